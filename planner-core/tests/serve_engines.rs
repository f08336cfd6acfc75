//! Validation of the serving simulator against continuous-batching
//! engines at stated request rates: SGLang v0.3.0 and vLLM v0.6.0 serving
//! Llama 3.1 8B and 70B Instruct, as published in SGLang's
//! `benchmark/benchmark_vllm_060/README.md` (sgl-project/sglang, read at
//! commit 5d2c83e6bb27e91c893e5fc11f6c268790a2a538).
//!
//! Each row is a plan with the engine (`levers.engine`) and a request
//! stream (`workload.inference.stream`) at the published rate, evaluated
//! by `serving::simulate`; the test prints predicted against published and
//! pins the median and worst |error| of each metric as they stand
//! (docs/validation.md, "Serving: vLLM and SGLang at stated rates").
//! `cargo test --release -p planner-core --test serve_engines -- --nocapture`
//! prints the table.

use planner_core::catalog::{GpuId, ModelId};
use planner_core::engine::{Engine, EngineKnobs, HostOverlap, PrefixCaching};
use planner_core::hardware::{GpuChoice, Hardware};
use planner_core::plan::{
    Inference, Levers, LogitsScope, ModelChoice, Parallelism, Plan, Precisions, Workload,
};
use planner_core::precision::Precision;
use planner_core::request::{Arrival, Lengths, RequestStream, Slo};
use planner_core::units::Frequency;

/// Mean output tokens per request: the source's offline tables give
/// output token throughput ÷ request throughput = 4281.51 / 22.03 = 194.3
/// (SGLang, 8B), 4132.37 / 21.27 = 194.3 (vLLM, 8B), 3856.01 / 19.84 =
/// 194.4 (SGLang, 70B), 3700.64 / 19.04 = 194.4 (vLLM, 70B): the
/// `sglang.bench_serving --dataset-name sharegpt` sample it used.
const MEAN_OUTPUT: u32 = 194;

/// Mean prompt tokens. The source does not state it; this is the mean of
/// ShareGPT as `bench_serving` samples it (`request::sharegpt`, 221).
const MEAN_PROMPT: u32 = 221;

/// The sample's lengths: ShareGPT as `sglang.bench_serving` (v0.3: the
/// 4 / 1,024 / 2,048 filter) samples it (`request::sharegpt`), its
/// replies scaled to the mean the source's own sample had
/// ([`MEAN_OUTPUT`], 2 % under the dataset's 198.9; the client forces
/// each reply's length, `ignore_eos`).
fn lengths() -> (Lengths, Lengths) {
    let (prompt, output) = planner_core::request::sharegpt();
    let k = f64::from(MEAN_OUTPUT) / output.mean();
    let output = match output {
        Lengths::Empirical { points } => Lengths::Empirical {
            points: points
                .into_iter()
                .map(|(t, w)| (((f64::from(t) * k).round() as u32).max(1), w))
                .collect(),
        },
        other => other,
    };
    (prompt, output)
}

/// What a row measures.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Metric {
    /// Median time to first token, ms.
    TtftMs,
    /// Median time per output token, ms.
    TpotMs,
    /// Median end-to-end latency, ms.
    E2eMs,
    /// Median inter-token latency as the client sees it (the gap between
    /// streamed chunks), ms.
    ItlMs,
    /// Output tokens per second, all requests sent at once.
    OutTokPerS,
}

impl Metric {
    const ALL: [Metric; 5] = [
        Metric::TtftMs,
        Metric::TpotMs,
        Metric::E2eMs,
        Metric::ItlMs,
        Metric::OutTokPerS,
    ];
}

/// One published figure.
struct Row {
    model: ModelId,
    gpu: GpuId,
    tp: u32,
    engine: Engine,
    /// Poisson requests per second; `None` = offline (`--request-rate`
    /// left at its default, infinity: every prompt sent at once).
    rate: Option<f64>,
    /// `--num-prompts`.
    prompts: u32,
    metric: Metric,
    published: f64,
    /// The source's table and line.
    source: &'static str,
}

impl Row {
    /// The releases as they ran: vLLM 0.6.0 is the V0 engine with
    /// `--num-scheduler-steps 10`; SGLang v0.3.0 predates v0.4's
    /// overlapped scheduler, so its host work runs between GPU steps.
    /// SGLang ran with `--disable-radix-cache`; vLLM 0.6.0's prefix
    /// caching was off by default. No prefix is shared.
    fn knobs(&self) -> EngineKnobs {
        EngineKnobs {
            prefix_caching: Some(PrefixCaching::Off),
            scheduler_steps: (self.engine == Engine::VllmV0).then_some(10),
            host_overlap: (self.engine == Engine::Sglang).then_some(HostOverlap::Serial),
            // SGLang's offline 70B run set `--mem-frac 0.88` (its TP-4
            // default is 0.85).
            memory_fraction: (self.engine == Engine::Sglang && self.tp == 4 && self.rate.is_none())
                .then_some(0.88),
            ..EngineKnobs::default()
        }
    }

    fn plan(&self) -> Plan {
        let arrival = match self.rate {
            Some(r) => Arrival::Poisson {
                rate: Frequency::per_second(r),
            },
            None => Arrival::Concurrency {
                clients: self.prompts,
            },
        };
        Plan {
            version: 1,
            name: format!(
                "{:?} {:?} TP{} {:?}",
                self.model, self.gpu, self.tp, self.engine
            ),
            model: ModelChoice::Preset(self.model),
            workload: Workload::Inference(Inference {
                prompt_tokens: MEAN_PROMPT,
                output_tokens: MEAN_OUTPUT,
                batch: 1,
                logits: LogitsScope::LastToken,
                stream: Some(RequestStream {
                    arrival,
                    prompt: lengths().0,
                    output: lengths().1,
                    slo: Slo::default(),
                    shared_prefix: 0,
                    reuse: None,
                    requests: self.prompts,
                    seed: 0,
                }),
            }),
            levers: Levers {
                precision: Precisions {
                    weights: Precision::Bf16,
                    compute: Precision::Bf16,
                    ..Precisions::default()
                },
                parallel: Parallelism {
                    tp: self.tp,
                    ..Parallelism::default()
                },
                engine: self.engine,
                // SGLang ran with `--disable-radix-cache`; vLLM 0.6.0's
                // prefix caching was off by default. No prefix is shared.
                engine_knobs: self.knobs(),
                ..Levers::default()
            },
            hardware: Hardware::new(GpuChoice::Preset(self.gpu), self.tp),
            overheads: Default::default(),
            efficiency: Default::default(),
            economics: Default::default(),
            distillation: None,
        }
    }
}

/// SGLang's `benchmark/benchmark_vllm_060/README.md` at commit
/// 5d2c83e6bb27e91c893e5fc11f6c268790a2a538: SGLang v0.3.0
/// (`--disable-radix-cache`, `--enable-torch-compile` on the 8B) against
/// vLLM v0.6.0 (`--num-scheduler-steps 10 --max_model_len 4096`), BF16
/// Llama 3.1 8B Instruct on one A100 80G (the variant is not stated;
/// modelled as SXM 80 GB) and Llama 3.1 70B Instruct on 4 × H100 80G
/// (TP 4; modelled as SXM), `sglang.bench_serving --dataset-name
/// sharegpt`. Online: medians in ms at 4 and 8 requests/s (1200 and 2400
/// prompts); offline: 5000 prompts, output tokens/s. Median ITL is the gap
/// between streamed chunks: one token per chunk for SGLang, a ten-step
/// window per chunk for vLLM with `--num-scheduler-steps 10`.
#[rustfmt::skip]
fn rows() -> Vec<Row> {
    use Engine::{Sglang as S, VllmV0 as V};
    use Metric::{E2eMs as E2e, ItlMs as Itl, OutTokPerS as Out, TpotMs as Tpot, TtftMs as Ttft};
    use ModelId::{Llama31_70b as L70, Llama31_8b as L8};
    let a = |engine, rate, prompts, metric, published, source| Row { model: L8, gpu: GpuId::A100Sxm80, tp: 1, engine, rate, prompts, metric, published, source };
    let h = |engine, rate, prompts, metric, published, source| Row { model: L70, gpu: GpuId::H100Sxm, tp: 4, engine, rate, prompts, metric, published, source };
    const A_ON: &str = "Online, Llama 3.1 8B Instruct 1 x A100 80G";
    const H_ON: &str = "Online, Llama 3.1 70B Insruct 4 x H100 80G";
    const A_OFF: &str = "Offline, Llama 3.1 8B Instruct 1 x A100 80G";
    const H_OFF: &str = "Offline, Llama 3.1 70B Insruct 4 x H100 80G";
    vec![
        // | 4 | 1200 | SGLang | 1564.17 | 31.98 | 13.17 | 11.93 |
        a(S, Some(4.0), 1200, E2e, 1564.17, A_ON), a(S, Some(4.0), 1200, Ttft, 31.98, A_ON), a(S, Some(4.0), 1200, Tpot, 13.17, A_ON), a(S, Some(4.0), 1200, Itl, 11.93, A_ON),
        // | 4 | 1200 | vLLM | 1691.97 | 100.48 | 14.14 | 129.32 |
        a(V, Some(4.0), 1200, E2e, 1691.97, A_ON), a(V, Some(4.0), 1200, Ttft, 100.48, A_ON), a(V, Some(4.0), 1200, Tpot, 14.14, A_ON), a(V, Some(4.0), 1200, Itl, 129.32, A_ON),
        // | 8 | 2400 | SGLang | 2175.02 | 35.68 | 17.85 | 14.41 |
        a(S, Some(8.0), 2400, E2e, 2175.02, A_ON), a(S, Some(8.0), 2400, Ttft, 35.68, A_ON), a(S, Some(8.0), 2400, Tpot, 17.85, A_ON), a(S, Some(8.0), 2400, Itl, 14.41, A_ON),
        // | 8 | 2400 | vLLM | 2137.16 | 120.39 | 17.09 | 158.63 |
        a(V, Some(8.0), 2400, E2e, 2137.16, A_ON), a(V, Some(8.0), 2400, Ttft, 120.39, A_ON), a(V, Some(8.0), 2400, Tpot, 17.09, A_ON), a(V, Some(8.0), 2400, Itl, 158.63, A_ON),
        // | 4 | 1200 | SGLang | 3005.24 | 53.94 | 25.03 | 21.67 |
        h(S, Some(4.0), 1200, E2e, 3005.24, H_ON), h(S, Some(4.0), 1200, Ttft, 53.94, H_ON), h(S, Some(4.0), 1200, Tpot, 25.03, H_ON), h(S, Some(4.0), 1200, Itl, 21.67, H_ON),
        // | 4 | 1200 | vLLM | 2915.60 | 179.15 | 23.58 | 231.23 |
        h(V, Some(4.0), 1200, E2e, 2915.60, H_ON), h(V, Some(4.0), 1200, Ttft, 179.15, H_ON), h(V, Some(4.0), 1200, Tpot, 23.58, H_ON), h(V, Some(4.0), 1200, Itl, 231.23, H_ON),
        // | 8 | 2400 | SGLang | 4064.98 | 58.11 | 33.07 | 24.45 |
        h(S, Some(8.0), 2400, E2e, 4064.98, H_ON), h(S, Some(8.0), 2400, Ttft, 58.11, H_ON), h(S, Some(8.0), 2400, Tpot, 33.07, H_ON), h(S, Some(8.0), 2400, Itl, 24.45, H_ON),
        // | 8 | 2400 | vLLM | 3752.38 | 207.12 | 29.15 | 275.32 |
        h(V, Some(8.0), 2400, E2e, 3752.38, H_ON), h(V, Some(8.0), 2400, Ttft, 207.12, H_ON), h(V, Some(8.0), 2400, Tpot, 29.15, H_ON), h(V, Some(8.0), 2400, Itl, 275.32, H_ON),
        // | inf | 5000 | SGLang | 22.03 | 4281.51 |  and  | inf | 5000 | vLLM | 21.27 | 4132.37 |
        a(S, None, 5000, Out, 4281.51, A_OFF), a(V, None, 5000, Out, 4132.37, A_OFF),
        // | inf | 5000 | SGLang | 19.84 | 3856.01 |  and  | inf | 5000 | vLLM | 19.04 | 3700.64 |
        h(S, None, 5000, Out, 3856.01, H_OFF), h(V, None, 5000, Out, 3700.64, H_OFF),
    ]
}

/// Signed errors of one metric's rows: median and worst |error|, and the
/// signed error of the worst row.
fn summary(errors: &[f64]) -> (f64, f64, f64) {
    let mut abs: Vec<f64> = errors.iter().map(|e| e.abs()).collect();
    abs.sort_by(f64::total_cmp);
    let median = abs[abs.len() / 2];
    let worst = errors
        .iter()
        .copied()
        .max_by(|a, b| a.abs().total_cmp(&b.abs()))
        .unwrap_or(0.0);
    (median, worst.abs(), worst)
}

/// Every row against the simulator at the default efficiencies. Prints
/// the table; pins each metric's median and worst |error| as measured.
#[test]
fn sglang_and_vllm_at_stated_rates() {
    println!(
        "{:<9} {:<9} {:>3} {:<7} {:>5} {:<11} {:>10} {:>10} {:>8}  source",
        "model", "GPU", "TP", "engine", "rate", "metric", "published", "predicted", "error"
    );
    let mut errors: Vec<(Metric, f64)> = Vec::new();
    for row in rows() {
        let sim = planner_core::serving::simulate(&row.plan()).expect("a stream");
        assert_eq!(sim.completed, row.prompts, "every request finishes");
        let predicted = match row.metric {
            Metric::TtftMs => sim.ttft.p50.as_millis(),
            Metric::TpotMs => sim.tpot.p50.as_millis(),
            Metric::E2eMs => sim.latency.p50.as_millis(),
            Metric::ItlMs => sim.itl.p50.as_millis(),
            Metric::OutTokPerS => sim.output_tokens_per_second,
        };
        let e = (predicted - row.published) / row.published;
        let rate = row.rate.map_or("inf".to_string(), |r| format!("{r}"));
        println!(
            "{:<9} {:<9} {:>3} {:<7} {:>5} {:<11} {:>10.2} {:>10.2} {:>+7.1}%  {}",
            format!("{:?}", row.model),
            format!("{:?}", row.gpu),
            row.tp,
            format!("{:?}", row.engine),
            rate,
            format!("{:?}", row.metric),
            row.published,
            predicted,
            e * 100.0,
            row.source
        );
        errors.push((row.metric, e));
    }
    assert_eq!(errors.len(), 36);
    for metric in Metric::ALL {
        let es: Vec<f64> = errors
            .iter()
            .filter(|(m, _)| *m == metric)
            .map(|(_, e)| *e)
            .collect();
        let (median, worst, signed) = summary(&es);
        println!(
            "{metric:?}: {} rows, median |error| {:.1}%, worst {:.1}% (signed {:+.1}%)",
            es.len(),
            median * 100.0,
            worst * 100.0,
            signed * 100.0
        );
        // As measured on 2026-12-05 (36 rows) with the engines' host
        // work, vLLM V0's and SGLang's prefill-first scheduling (vLLM's
        // multi-step), their eager prefill's host time, vLLM V0's outputs
        // handed over in the next pass, the sample's ShareGPT lengths and
        // the servers' front ends (`Engine::front_end`: 10 ms SGLang,
        // 30 ms vLLM; these rows are among its sources), each bound a
        // little above: TTFT median 9.6 %, worst 17.9 %; TPOT 12.5 %,
        // 21.4 %; E2E 13.2 %, 18.5 %; offline output tokens/s 28.9 %,
        // 33.4 %; median ITL 12.0 %, 19.9 % (docs/validation.md gives the
        // mechanisms). Before the front end was charged: TTFT 24.4 %,
        // 32.4 %, every row short; E2E 14.2 %, 19.9 %. Before the eager
        // prefill was charged: TTFT 30.6 %, 37.2 %; TPOT 12.8 %, 21.4 %;
        // E2E 17.5 %, 22.0 %; ITL 15.0 %, 19.5 %. A change that moves
        // these is a change to the model: say why in its commit.
        let (median_bound, worst_bound) = match metric {
            Metric::TtftMs => (0.10, 0.18),
            Metric::TpotMs => (0.13, 0.22),
            Metric::E2eMs => (0.14, 0.19),
            Metric::ItlMs => (0.125, 0.20),
            Metric::OutTokPerS => (0.29, 0.34),
        };
        assert!(
            median <= median_bound,
            "{metric:?}: median |error| {median}"
        );
        assert!(worst <= worst_bound, "{metric:?}: worst |error| {worst}");
    }
    // The signs as they stand: offline throughput long; a row that
    // changes side is a change to the model. Time to first token is long
    // on the four SGLang rows (3–13 %) and on vLLM V0's 8B at 4
    // requests/s, short on vLLM V0's other three (0–18 %).
    // End-to-end follows time per token, short on seven rows of
    // eight and +7 % on the eighth, where TPOT is +12 %. (With every
    // request at the mean lengths, end-to-end was 11–73 % long on every
    // row: the median request of a skewed sample is shorter than the mean
    // one.)
    let ttft_long = errors
        .iter()
        .filter(|(m, e)| *m == Metric::TtftMs && *e > 0.0)
        .count();
    assert_eq!(ttft_long, 5, "{errors:?}");
    for (metric, e) in &errors {
        match metric {
            Metric::TtftMs => {}
            Metric::OutTokPerS => assert!(*e > 0.0, "{metric:?} {e}"),
            Metric::TpotMs | Metric::ItlMs | Metric::E2eMs => {}
        }
    }
    let e2e_short = errors
        .iter()
        .filter(|(m, e)| *m == Metric::E2eMs && *e < 0.0)
        .count();
    assert_eq!(e2e_short, 7);
}

/// A decode batch past SGLang's largest CUDA graph (`cuda_graph_max_bs`,
/// 256 on one H100 by `ServerArgs._handle_gpu_memory_settings`) runs
/// eagerly, its layers issued from Python (`CudaGraphRunner.can_run`):
/// short requests' steps (Llama 3.1 8B, 64 / 32 tokens: about 10 ms of
/// GPU work at 320 sequences against 12 ms to issue 32 layers of 33
/// operators) wait on the host. Within the graphs, or with the cap raised
/// (`--cuda-graph-max-bs`, `levers.engine_knobs.graph_max_batch`), it
/// does not; vLLM's decode is not held to it.
#[test]
fn sglang_decode_past_its_graphs_runs_eagerly() {
    use planner_core::report::{TimeKind, TimeReport};
    let plan = |engine: Engine, batch: u32, cap: Option<u32>| Plan {
        version: 1,
        name: String::new(),
        model: ModelChoice::Preset(ModelId::Llama31_8b),
        workload: Workload::Inference(Inference {
            prompt_tokens: 64,
            output_tokens: 32,
            batch,
            logits: LogitsScope::LastToken,
            stream: None,
        }),
        levers: Levers {
            engine,
            engine_knobs: EngineKnobs {
                graph_max_batch: cap,
                ..EngineKnobs::default()
            },
            ..Levers::default()
        },
        hardware: Hardware::new(GpuChoice::Preset(GpuId::H100Sxm), 1),
        overheads: Default::default(),
        efficiency: Default::default(),
        economics: Default::default(),
        distillation: None,
    };
    // The decode step's host wait, and its TPOT (NaN for no serving time).
    let decode = |p: &Plan| match planner_core::evaluate(p).time {
        TimeReport::Inference(t) => (
            t.decode
                .iter()
                .filter(|x| x.kind == TimeKind::HostBound)
                .map(|x| x.exposed.as_secs())
                .sum::<f64>(),
            t.tpot.as_secs(),
        ),
        TimeReport::Training(_) => (f64::NAN, f64::NAN),
    };
    let (within, _) = decode(&plan(Engine::Sglang, 256, None));
    let (past, slow) = decode(&plan(Engine::Sglang, 320, None));
    let (raised, fast) = decode(&plan(Engine::Sglang, 320, Some(512)));
    let (vllm, _) = decode(&plan(Engine::Vllm, 320, None));
    assert_eq!(within, 0.0, "a batch within the graphs replays one");
    assert!(past > 0.0, "past the graphs the host issues every layer");
    assert_eq!(raised, 0.0, "raising --cuda-graph-max-bs replays a graph");
    assert!(slow > fast, "{slow} {fast}");
    assert_eq!(vllm, 0.0);
    // The knob is SGLang's alone: stated for vLLM it is named ignored.
    let r = planner_core::evaluate(&plan(Engine::Vllm, 320, Some(512)));
    assert!(r.diagnostics.iter().any(|d| matches!(
        d.detail,
        planner_core::diagnostics::DiagnosticKind::LeverIgnored {
            lever: planner_core::diagnostics::IgnoredLever::GraphMaxBatch
        }
    )));
}
