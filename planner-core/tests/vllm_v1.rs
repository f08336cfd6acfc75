//! Held-out validation of the serving simulator against vLLM's V1 engine:
//! GPUStack's "Performance Lab" pages (gpustack/gpustack, `docs/
//! performance-lab/`, read at commit 47277d79f4a5bae12a2d25e9ecbed2a2177a5f2d;
//! first published 2025-10-15 and 2025-11-13), which print `vllm bench
//! serve` output for a bare `vllm serve` of vLLM v0.11.0 on one GPU:
//! - `qwen3-8b/h100-latency.md`: Qwen3-8B BF16 on one H100 SXM, ShareGPT
//!   (`--dataset-name sharegpt`, chat endpoint), 100 prompts at
//!   `--max-concurrency` 1, 2, 4 and 8;
//! - `qwen3-14b/h100.md`, `qwen3-32b/h100.md`: Qwen3-14B and Qwen3-32B
//!   BF16 on one H100 SXM, every prompt sent at once: ShareGPT (1,000
//!   prompts) and random prompts of fixed length (`--dataset-name random`,
//!   range ratio 0: 32,000 / 100 tokens, 100 prompts; 4,000 / 200, 500,
//!   seed 42; 2,000 / 100, 500; 128 / 4, 1,000);
//! - `qwen3-32b/a100.md`: Qwen3-32B BF16 on one A100 SXM 80 GB, the same
//!   cases (ShareGPT with `--max-model-len 32768`).
//!
//! vLLM 0.11.0's defaults apply (its `arg_utils.py`): 8,192 batched tokens
//! and 1,024 sequences on the H100, 2,048 and 256 on the A100; 90 % of
//! HBM; prefix caching on (nothing is shared here). Asynchronous
//! scheduling was still opt-in in 0.11 (`--async-scheduling`, vLLM PR
//! #19970; made the default by PR #27614 after it), so the host's
//! scheduling runs between GPU steps: `HostOverlap::Serial`. No
//! `--ignore-eos`: the pages' totals show the random cases' outputs at
//! 99.8–100 % of nominal, so they are taken as fixed. ShareGPT's lengths
//! are the dataset's shape (`request::sharegpt`) scaled to the means the
//! pages' totals give. Nothing in the model was fitted to these rows.
//!
//! `cargo test --release -p planner-core --test vllm_v1 -- --nocapture`
//! prints the table (docs/validation.md, "vLLM V1 (GPUStack)").

#[path = "common/errors.rs"]
mod errors;
use errors::median_and_worst;
use planner_core::catalog::GpuId;
use planner_core::engine::{Engine, EngineKnobs, HostOverlap};
use planner_core::hardware::{GpuChoice, Hardware};
use planner_core::plan::{
    Inference, Levers, LogitsScope, ModelChoice, Parallelism, Plan, Precisions, Workload,
};
use planner_core::precision::Precision;
use planner_core::request::{Arrival, Lengths, RequestStream, Slo};

/// Qwen3's `config.json` on the Hugging Face Hub (Qwen/Qwen3-8B,
/// Qwen3-14B, Qwen3-32B: head_dim 128, 8 KV heads, vocabulary 151,936,
/// untied), imported as a user would.
fn qwen3(name: &str, layers: u32, hidden: u32, heads: u32, ffn: u32) -> ModelChoice {
    let json = format!(
        r#"{{"architectures": ["Qwen3ForCausalLM"], "head_dim": 128, "hidden_act": "silu",
        "hidden_size": {hidden}, "intermediate_size": {ffn}, "max_position_embeddings": 40960,
        "max_window_layers": {layers}, "model_type": "qwen3", "num_attention_heads": {heads},
        "num_hidden_layers": {layers}, "num_key_value_heads": 8, "sliding_window": null,
        "tie_word_embeddings": false, "use_sliding_window": false, "vocab_size": 151936}}"#
    );
    let m = planner_core::hf::import_hf_config(&json).expect("a Qwen3 config imports");
    ModelChoice::Custom(planner_core::plan::CustomModel {
        shipped: None,
        name: name.into(),
        spec: m.spec,
    })
}

/// What a row measures.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Metric {
    /// Mean time to first token, ms.
    TtftMs,
    /// Mean time per output token, ms.
    TpotMs,
    /// Output tokens per second.
    OutTokPerS,
}

/// The workload of a row.
#[derive(Clone, Copy, Debug)]
enum Data {
    /// ShareGPT with the page's mean prompt and output tokens.
    ShareGpt { prompt: f64, output: f64 },
    /// Fixed lengths.
    Fixed { prompt: u32, output: u32 },
}

impl Data {
    fn lengths(self) -> (Lengths, Lengths) {
        match self {
            Data::Fixed { prompt, output } => (
                Lengths::Fixed { tokens: prompt },
                Lengths::Fixed { tokens: output },
            ),
            Data::ShareGpt { prompt, output } => {
                let (p, o) = planner_core::request::sharegpt();
                (scaled(p, prompt), scaled(o, output))
            }
        }
    }
}

/// An empirical length distribution scaled to `mean`.
fn scaled(l: Lengths, mean: f64) -> Lengths {
    let k = mean / l.mean();
    match l {
        Lengths::Empirical { points } => Lengths::Empirical {
            points: points
                .into_iter()
                .map(|(t, w)| (((f64::from(t) * k).round() as u32).max(1), w))
                .collect(),
        },
        other => other,
    }
}

/// One published figure.
struct Row {
    label: &'static str,
    model: ModelChoice,
    gpu: GpuId,
    data: Data,
    prompts: u32,
    /// `--max-concurrency`; `None`: every prompt sent at once.
    clients: Option<u32>,
    metric: Metric,
    published: f64,
}

impl Row {
    fn plan(&self) -> Plan {
        let (prompt, output) = self.data.lengths();
        Plan {
            version: 1,
            name: self.label.into(),
            model: self.model.clone(),
            workload: Workload::Inference(Inference {
                prompt_tokens: prompt.mean().round() as u32,
                output_tokens: output.mean().round() as u32,
                batch: 1,
                logits: LogitsScope::LastToken,
                stream: Some(RequestStream {
                    arrival: Arrival::Concurrency {
                        clients: self.clients.unwrap_or(self.prompts),
                    },
                    prompt,
                    output,
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
                parallel: Parallelism::default(),
                engine: Engine::Vllm,
                engine_knobs: EngineKnobs {
                    host_overlap: Some(HostOverlap::Serial),
                    ..EngineKnobs::default()
                },
                ..Levers::default()
            },
            hardware: Hardware::new(GpuChoice::Preset(self.gpu), 1),
            overheads: Default::default(),
            efficiency: Default::default(),
            economics: Default::default(),
            distillation: None,
        }
    }

    fn predicted(&self) -> f64 {
        let s = planner_core::serving::simulate(&self.plan()).expect("a stream");
        match self.metric {
            Metric::TtftMs => s.ttft.mean.as_millis(),
            Metric::TpotMs => s.tpot.mean.as_millis(),
            Metric::OutTokPerS => s.output_tokens_per_second,
        }
    }
}

fn rows() -> Vec<Row> {
    let q8 = || qwen3("Qwen3-8B", 36, 4096, 32, 12288);
    let q14 = || qwen3("Qwen3-14B", 40, 5120, 40, 17408);
    let q32 = || qwen3("Qwen3-32B", 64, 5120, 64, 25600);
    let mut out = Vec::new();
    // h100-latency.md: 23,260 prompt and 22,061 output tokens over 100.
    let latency = Data::ShareGpt {
        prompt: 232.6,
        output: 220.6,
    };
    #[rustfmt::skip]
    let by_clients = [
        (1, 59.01, 7.28, 132.86), (2, 63.78, 7.37, 257.19),
        (4, 64.00, 7.38, 496.88), (8, 74.57, 7.71, 917.28),
    ];
    for (c, ttft, tpot, tps) in by_clients {
        for (metric, published) in [
            (Metric::TtftMs, ttft),
            (Metric::TpotMs, tpot),
            (Metric::OutTokPerS, tps),
        ] {
            out.push(Row {
                label: [
                    "G1 8B H100 c=1",
                    "G2 8B H100 c=2",
                    "G3 8B H100 c=4",
                    "G4 8B H100 c=8",
                ][(c as f64).log2() as usize],
                model: q8(),
                gpu: GpuId::H100Sxm,
                data: latency,
                prompts: 100,
                clients: Some(c),
                metric,
                published,
            });
        }
    }
    // Every prompt at once: output tokens per second. ShareGPT totals:
    // 217,393 prompt tokens over 1,000; outputs 201,648 (14B H100),
    // 201,422 (32B H100), 201,396 (32B A100).
    let sg = |output: f64| Data::ShareGpt {
        prompt: 217.4,
        output,
    };
    let fixed = |prompt, output| Data::Fixed { prompt, output };
    #[rustfmt::skip]
    let offline = [
        ("G5 14B H100 ShareGPT", q14(), GpuId::H100Sxm, sg(201.6), 1000, 3173.92),
        ("G6 14B H100 32000/100", q14(), GpuId::H100Sxm, fixed(32_000, 100), 100, 25.48),
        ("G7 14B H100 4000/200", q14(), GpuId::H100Sxm, fixed(4000, 200), 500, 438.56),
        ("G8 14B H100 2000/100", q14(), GpuId::H100Sxm, fixed(2000, 100), 500, 505.51),
        ("G9 14B H100 128/4", q14(), GpuId::H100Sxm, fixed(128, 4), 1000, 176.06),
        ("G10 32B H100 ShareGPT", q32(), GpuId::H100Sxm, sg(201.4), 1000, 1131.55),
        ("G11 32B H100 32000/100", q32(), GpuId::H100Sxm, fixed(32_000, 100), 100, 6.64),
        ("G12 32B H100 4000/200", q32(), GpuId::H100Sxm, fixed(4000, 200), 500, 102.21),
        ("G13 32B H100 2000/100", q32(), GpuId::H100Sxm, fixed(2000, 100), 500, 152.42),
        ("G14 32B H100 128/4", q32(), GpuId::H100Sxm, fixed(128, 4), 1000, 121.66),
        ("G22 32B A100 ShareGPT", q32(), GpuId::A100Sxm80, sg(201.4), 1000, 832.43),
        ("G25 32B A100 32000/100", q32(), GpuId::A100Sxm80, fixed(32_000, 100), 100, 4.32),
        ("G26 32B A100 4000/200", q32(), GpuId::A100Sxm80, fixed(4000, 200), 500, 87.48),
        ("G27 32B A100 2000/100", q32(), GpuId::A100Sxm80, fixed(2000, 100), 500, 120.27),
        ("G28 32B A100 128/4", q32(), GpuId::A100Sxm80, fixed(128, 4), 1000, 80.69),
    ];
    for (label, model, gpu, data, prompts, published) in offline {
        out.push(Row {
            label,
            model,
            gpu,
            data,
            prompts,
            clients: None,
            metric: Metric::OutTokPerS,
            published,
        });
    }
    out
}

#[test]
fn vllm_v1_on_one_gpu() {
    let rows = rows();
    println!(
        "{:<26} {:<10} {:>10} {:>10} {:>8}",
        "row", "metric", "published", "predicted", "error"
    );
    let mut by_metric: Vec<(Metric, Vec<f64>)> = Vec::new();
    let mut refused = Vec::new();
    for row in &rows {
        let predicted = row.predicted();
        if predicted <= 0.0 {
            // The KV pool cannot hold one request: the plan does not fit,
            // as vLLM refuses to start (`check_enough_kv_cache_memory`).
            println!("{:<26} does not fit", row.label);
            refused.push(row.label);
            continue;
        }
        let e = predicted / row.published - 1.0;
        println!(
            "{:<26} {:<10} {:>10.2} {:>10.2} {:>+7.1}%",
            row.label,
            format!("{:?}", row.metric),
            row.published,
            predicted,
            e * 100.0
        );
        match by_metric.iter_mut().find(|(m, _)| *m == row.metric) {
            Some((_, v)) => v.push(e),
            None => by_metric.push((row.metric, vec![e])),
        }
    }
    // Every row fits but Qwen3-32B's 32,000-token prompts on the H100: at
    // vLLM's defaults its budget keeps a 4.4 GiB pool (the sort-path
    // sampler's 5.6 GiB peak over 1,024 requests taken off), less than one
    // 32,100-token request (7.84 GiB) and the 10 GiB of the default
    // 40,960-token context. That run must have lowered `max_model_len`
    // and either `max_num_seqs` or taken FlashInfer's sampler (a pool of
    // 7.9 GiB); the page does not say which, so the row is not predicted.
    assert_eq!(refused, ["G11 32B H100 32000/100"]);
    for (metric, errors) in &by_metric {
        let (median, worst) = median_and_worst(errors);
        println!(
            "{metric:?}: {} rows, median |error| {:.1} %, worst {:.1} %",
            errors.len(),
            median * 100.0,
            worst * 100.0
        );
        // Today's figures, pinned so a change shows here
        // (docs/validation.md, "vLLM V1 (GPUStack)"):
        match metric {
            // The decode step at one to eight sequences: 6–7 % fast.
            Metric::TpotMs => assert!(
                errors.iter().all(|e| (-0.10..=0.0).contains(e)),
                "{errors:?}"
            ),
            // About 50 ms of each request's first token is spent outside
            // the engine's passes (the OpenAI server, the chat template,
            // the client); the model charges vLLM's front end at 30 ms
            // (`Engine::front_end`, the middle of its sources' 20–50 ms,
            // these rows the top), so the rows stay 31–38 % short (before
            // it was charged, 84–85 %).
            Metric::TtftMs => assert!(
                errors.iter().all(|e| (-0.40..=-0.25).contains(e)),
                "{errors:?}"
            ),
            // Concurrency 1–8 +11 … +15 %; saturation runs: the 32B rows
            // −1 … +39 % but for the 128/4 runs (+157 % on the H100), the
            // 14B H100 rows +67 … +313 % (the docs say what is and is not
            // explained).
            Metric::OutTokPerS => assert!(median <= 0.25 && worst <= 3.2, "{median} {worst}"),
        }
    }
}

/// With a prefix cache (vLLM V1's default) a preempted request's blocks
/// go back to the free queue still holding its KV, behind every block
/// freed before them, and a request admitted again finds what was not
/// handed out since: it resumes instead of computing its prompt again.
/// Qwen3-32B on an A100 leaves room for a few long requests, so the
/// decoding ones preempt the newest (as in G26). Whether a run falls into
/// a storm of preemptions without the cache depends on the lengths; with
/// it, throughput is never lower and the storms go (printed).
#[test]
fn a_preempted_request_finds_its_blocks_still_cached() {
    use planner_core::engine::PrefixCaching;
    let Some(g26) = rows().into_iter().find(|r| r.label.starts_with("G26")) else {
        unreachable!("G26 is a row")
    };
    let run = |(prompt, output): (u32, u32), caching: PrefixCaching| {
        let mut p = g26.plan();
        if let Workload::Inference(i) = &mut p.workload {
            if let Some(s) = i.stream.as_mut() {
                s.prompt = Lengths::Fixed { tokens: prompt };
                s.output = Lengths::Fixed { tokens: output };
            }
        }
        p.levers.engine_knobs.prefix_caching = Some(caching);
        planner_core::serving::simulate(&p).expect("a stream")
    };
    let mut storms_gone = 0;
    let shapes = [
        (4000, 400),
        (3000, 300),
        (2000, 500),
        (8000, 100),
        (4000, 200),
    ];
    for shape in shapes {
        let (on, off) = (
            run(shape, PrefixCaching::On),
            run(shape, PrefixCaching::Off),
        );
        println!(
            "{shape:?}: cached {:.1} tok/s, {} preemptions; not cached {:.1} tok/s, {} preemptions",
            on.output_tokens_per_second,
            on.preemptions,
            off.output_tokens_per_second,
            off.preemptions
        );
        assert!(
            on.output_tokens_per_second >= 0.999 * off.output_tokens_per_second,
            "{shape:?}"
        );
        if on.output_tokens_per_second > 1.3 * off.output_tokens_per_second
            && off.preemptions > 5 * on.preemptions
        {
            storms_gone += 1;
        }
    }
    assert!(storms_gone >= 3, "{storms_gone}");
}

/// vLLM V1 takes its profile run's peak off the KV budget: a forward of
/// the whole token budget, or on the last stage the sampler over
/// `max_num_seqs` requests' full-vocabulary logits, the larger. Qwen3-32B
/// with vLLM's H100 defaults (8,192 tokens, 1,024 requests): the sampler
/// on the sort path, 1,024 × 151,936 logits × (2 + 36) B plus the hidden
/// states, 5.60 GiB (FlashInfer's kernels, 2 + 12 B: 2.13 GiB); with the
/// A100's (2,048, 256), 1.40 GiB; with four sequences the forward's MLP
/// of 8,192 tokens, 1.33 GiB. Every byte of it is a byte less of KV.
#[test]
fn vllm_takes_its_profile_peak_off_the_kv_budget() {
    use planner_core::engine::Sampler;
    use planner_core::report::ItemKind;
    let peak_and_pool = |label: &str, max_seqs: Option<u32>, sampler: Option<Sampler>| {
        let Some(row) = rows().into_iter().find(|r| r.label.starts_with(label)) else {
            unreachable!("{label} is a row")
        };
        let mut p = row.plan();
        p.levers.engine_knobs.max_seqs = max_seqs;
        p.levers.engine_knobs.sampler = sampler;
        let r = planner_core::evaluate(&p);
        let peak: f64 = r.devices[r.binding]
            .items
            .iter()
            .filter(|i| i.kind == ItemKind::PrefillActivations)
            .map(|i| i.bytes.as_gib())
            .sum();
        let pool = r.serving.map_or(0.0, |s| s.kv_pool.as_gib());
        (peak, pool)
    };
    let (h100, h100_pool) = peak_and_pool("G12", None, None);
    let (flash, _) = peak_and_pool("G12", None, Some(Sampler::FlashInfer));
    let (a100, _) = peak_and_pool("G26", None, None);
    let (few, few_pool) = peak_and_pool("G12", Some(4), None);
    println!("H100 {h100:.2} GiB (pool {h100_pool:.2}; FlashInfer {flash:.2}), A100 {a100:.2}, 4 sequences {few:.2} (pool {few_pool:.2})");
    assert!((h100 - 5.60).abs() < 0.02, "{h100}");
    assert!((flash - 2.13).abs() < 0.02, "{flash}");
    assert!((a100 - 1.40).abs() < 0.02, "{a100}");
    assert!((few - 1.33).abs() < 0.05, "{few}");
    assert!((few_pool - h100_pool - (h100 - few)).abs() < 0.01);
}

/// gpt-oss-120b as shipped (MXFP4 experts, BF16 attention) under vLLM
/// 0.10.2 on one H100 and on two at TP 2 with `--async-scheduling`, ShareGPT
/// at `--max-concurrency` 4, 100 prompts (21,691 output tokens; the
/// total-token rate gives about 229 prompt tokens a request): GPUStack's
/// `docs/performance-lab/gpt-oss-120b/h100.md`. 0.10.2 samples with
/// FlashInfer where it is installed (`engine::Sampler`), and the one-GPU
/// server set `--max-model-len 32768`. Held out; the misses are named in
/// docs/validation.md ("gpt-oss as shipped"): the decode step is 19–28 %
/// fast, the MXFP4 MoE kernels of 0.10.x (which warn "mxfp4 quantization
/// is not fully optimized yet") running slower than their weight reads;
/// TTFT carries vLLM's front end (`Engine::front_end`), which these rows
/// are among the sources of.
#[test]
fn gpt_oss_120b_at_concurrency_four() {
    use planner_core::catalog::ModelId;
    use planner_core::engine::Sampler;
    let data = Data::ShareGpt {
        prompt: 229.4,
        output: 216.9,
    };
    // (TP, host overlap, published mean TTFT ms, mean TPOT ms, output tokens/s)
    #[rustfmt::skip]
    let cases = [
        (1, HostOverlap::Serial, 49.00, 8.31, 453.04),
        (2, HostOverlap::Overlapped, 37.51, 5.75, 645.55),
    ];
    for (tp, overlap, ttft, tpot, tps) in cases {
        let row = Row {
            label: "gpt-oss-120b",
            model: ModelChoice::Preset(ModelId::GptOss120b),
            gpu: GpuId::H100Sxm,
            data,
            prompts: 100,
            clients: Some(4),
            metric: Metric::TpotMs,
            published: tpot,
        };
        let mut p = row.plan();
        p.levers.precision.experts = Some(Precision::Mxfp4);
        p.levers.parallel.tp = tp;
        p.hardware = Hardware::new(GpuChoice::Preset(GpuId::H100Sxm), tp);
        p.levers.engine_knobs.sampler = Some(Sampler::FlashInfer);
        p.levers.engine_knobs.host_overlap = Some(overlap);
        let r = planner_core::evaluate(&p);
        assert_eq!(r.verdict, planner_core::Verdict::Fits, "TP {tp}");
        let s = planner_core::serving::simulate(&p).expect("a stream");
        let e = |pred: f64, publ: f64| pred / publ - 1.0;
        let (et, ep, eo) = (
            e(s.ttft.mean.as_millis(), ttft),
            e(s.tpot.mean.as_millis(), tpot),
            e(s.output_tokens_per_second, tps),
        );
        println!(
            "gpt-oss-120b TP {tp} c=4: TTFT {:.1} ms ({:+.1} %), TPOT {:.2} ms ({:+.1} %), {:.0} tok/s ({:+.1} %)",
            s.ttft.mean.as_millis(),
            et * 100.0,
            s.tpot.mean.as_millis(),
            ep * 100.0,
            s.output_tokens_per_second,
            eo * 100.0
        );
        // Pinned so a change shows: TPOT fast by at most 30 %, never slow;
        // TTFT, with vLLM's 30 ms front end (`Engine::front_end`), 10 %
        // and 27 % long (before it was charged, 53 % and 63 % short).
        assert!((-0.30..=0.0).contains(&ep), "TP {tp}: TPOT {ep}");
        assert!((0.0..=0.30).contains(&et), "TP {tp}: TTFT {et}");
    }
}

/// Held out from the servers' front end (`Engine::front_end`, whose vLLM
/// figure was read from other GPUStack pages and vLLM #20710): two more
/// GPUStack runs of vLLM v0.11.0 at concurrency 4 on ShareGPT through the
/// chat endpoint (gpustack/gpustack `docs/performance-lab/`, commit
/// 47277d79): gpt-oss-120b on one A100 SXM 80 GB (`gpt-oss-120b/a100.md`,
/// `--max-model-len 32768`: mean TTFT 61.91 ms, TPOT 11.67 ms) and
/// DeepSeek-R1-0528 in its FP8 checkpoint on eight H200 at TP 8
/// (`deepseek-r1/h200.md`: 123.30 ms, 19.36 ms). 100 prompts, 229.5 and
/// 228.4 tokens on average as each model's tokenizer counts them; the R1
/// page's output mean is not printed, so gpt-oss's 216.9 is taken (the
/// same 100 ShareGPT conversations). vLLM 0.11.0 with FlashInfer installed
/// samples through FlashInfer and schedules serially (`HostOverlap::Serial`).
#[test]
fn held_out_first_tokens_at_concurrency_four() {
    use planner_core::catalog::ModelId;
    use planner_core::engine::Sampler;
    // (label, model, GPU, GPUs, weights, experts, prompt mean, TTFT ms, TPOT ms)
    let cases = [
        (
            "gpt-oss-120b A100",
            ModelId::GptOss120b,
            GpuId::A100Sxm80,
            1,
            Precision::Bf16,
            Some(Precision::Mxfp4),
            229.5,
            61.91,
            11.67,
        ),
        (
            "DeepSeek-R1 8×H200 TP 8",
            ModelId::DeepseekV3,
            GpuId::H200Sxm,
            8,
            Precision::Fp8,
            None,
            228.4,
            123.30,
            19.36,
        ),
    ];
    for (label, model, gpu, n, weights, experts, prompt, ttft, tpot) in cases {
        let row = Row {
            label,
            model: ModelChoice::Preset(model),
            gpu,
            data: Data::ShareGpt {
                prompt,
                output: 216.9,
            },
            prompts: 100,
            clients: Some(4),
            metric: Metric::TtftMs,
            published: ttft,
        };
        let mut p = row.plan();
        p.levers.precision.weights = weights;
        p.levers.precision.experts = experts;
        if weights == Precision::Fp8 {
            p.levers.precision.compute = Precision::Fp8;
        }
        p.levers.parallel.tp = n;
        p.hardware = Hardware::new(GpuChoice::Preset(gpu), n);
        p.levers.engine_knobs.sampler = Some(Sampler::FlashInfer);
        let r = planner_core::evaluate(&p);
        assert_eq!(r.verdict, planner_core::Verdict::Fits, "{label}");
        let s = planner_core::serving::simulate(&p).expect("a stream");
        let (et, ep) = (
            s.ttft.mean.as_millis() / ttft - 1.0,
            s.tpot.mean.as_millis() / tpot - 1.0,
        );
        println!(
            "{label} c=4: TTFT {:.1} ms ({:+.1} %), TPOT {:.2} ms ({:+.1} %)",
            s.ttft.mean.as_millis(),
            et * 100.0,
            s.tpot.mean.as_millis(),
            ep * 100.0
        );
        // Pinned as they stand (docs/validation.md, "Front-end latency"):
        // gpt-oss on the A100 is 46 % long on TTFT with its decode right
        // (−1 %): this run leaves no room for a 30 ms front end over the
        // model's prefill (Marlin's MXFP4 on Ampere), the least of vLLM's
        // sources; DeepSeek-R1 on vLLM is 42 % short on TTFT and 44 %
        // short on TPOT, where SGLang's DeepSeek-R1 decode on the same
        // GPUs is within 5 % (`serve_validation.rs::sglang_moe_decode_steps`):
        // vLLM 0.11's DeepSeek path at TP 8 runs slower than the model's
        // engine-neutral MoE and MLA kernels.
        let (ttft_band, tpot_band) = if model == ModelId::GptOss120b {
            (0.30..=0.60, -0.10..=0.10)
        } else {
            (-0.55..=-0.30, -0.55..=-0.30)
        };
        assert!(ttft_band.contains(&et), "{label}: TTFT {et}");
        assert!(tpot_band.contains(&ep), "{label}: TPOT {ep}");
    }
}
