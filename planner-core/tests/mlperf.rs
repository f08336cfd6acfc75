//! Held-out serving throughput: NVIDIA's MLPerf Inference datacenter
//! submissions (closed division, Offline scenario, TensorRT-LLM), with
//! each benchmark's prompt lengths as its dataset has them. None of these
//! rows was used to set a default or an efficiency; they test the serving
//! model at the scale and lengths NVIDIA tunes for.
//! `cargo test -p planner-core --release --test mlperf -- --nocapture`
//! prints the table (docs/validation.md, "MLPerf Inference").
//!
//! Sources. Results: the `mlperf_log_summary.txt` of each run
//! ("Tokens per second", "Samples per second"), in
//! `mlcommons/inference_results_v4.0` (commit 3c4a1cf) and `_v4.1`
//! (a2f5d66), `closed/NVIDIA/results/<system>/<benchmark>/Offline/`, and
//! for v5.0 the MLCommons results pages copied in the fork
//! `ntuhpc/mlperf_inference_results_v5.0` (cf35411). Layouts, batch sizes,
//! token budgets and KV fractions: NVIDIA's `closed/NVIDIA/configs/<benchmark>/
//! Offline/__init__.py` of the same rounds. Output tokens per sample are the
//! log's tokens/s over its samples/s. Prompt lengths: per-sample token
//! counts of MLCommons' preprocessed datasets (OpenOrca 24,576 samples for
//! Llama 2 70B; 15,000 of OpenOrca, GSM8K and MBXP for Mixtral; the 8,313
//! samples of Llama 3.1 405B), as extracted into
//! `openshift-psap/performance-dashboard` `mlperf-data/summaries/*.csv`
//! (commits 7cd1065, 67033ba); the histograms below are ours, from those
//! files (their means are within 1 % of the files' exact means: 222.3,
//! 427.4 and 9,428.6 tokens). The extraction matches what MLCommons
//! publishes where it publishes anything: the Mixtral and 405B reference
//! outputs average 144.84 and 684.68 tokens, the READMEs' `tokens_per_sample`.

use planner_core::catalog::{GpuId, ModelId};
use planner_core::engine::Engine;
use planner_core::hardware::{GpuChoice, Hardware};
use planner_core::plan::{
    Inference, Levers, LogitsScope, ModelChoice, Parallelism, Plan, Precisions, Workload,
};
use planner_core::precision::Precision;
use planner_core::report::TimeReport;
use planner_core::request::{Arrival, Lengths, RequestStream, Slo};
use planner_core::uncertainty::ValidationBasis;

/// A dataset's prompt lengths: (bucket width, first bucket's midpoint,
/// samples per bucket, the last bucket's midpoint where it is partial).
struct Prompts {
    width: u32,
    counts: &'static [u32],
    last_mid: u32,
}

/// Llama 2 70B's OpenOrca prompts (Llama 2 tokenizer, with the token the
/// harness appends): 100-token buckets, the last 1,000–1,021.
const OPENORCA: Prompts = Prompts {
    width: 100,
    counts: &[4491, 11030, 3852, 1621, 956, 1176, 1007, 214, 134, 78, 17],
    last_mid: 1010,
};

/// Mixtral's 15,000 prompts (5,000 each of OpenOrca, GSM8K with its
/// few-shot preamble, MBXP): 100-token buckets, the last 1,900–1,948.
const MIXTRAL_15K: Prompts = Prompts {
    width: 100,
    counts: &[
        1139, 4625, 1923, 634, 227, 234, 4679, 470, 98, 209, 170, 131, 105, 86, 84, 46, 42, 50, 42,
        6,
    ],
    last_mid: 1924,
};

/// Llama 3.1 405B's 8,313 long-context prompts: 2,000-token buckets.
const LLAMA405_8K: Prompts = Prompts {
    width: 2000,
    counts: &[163, 845, 1076, 845, 1188, 1935, 1325, 552, 224, 160],
    last_mid: 19_000,
};

impl Prompts {
    fn lengths(&self) -> Lengths {
        let n = self.counts.len();
        let points = self
            .counts
            .iter()
            .enumerate()
            .map(|(k, &c)| {
                let mid = if k + 1 == n {
                    self.last_mid
                } else {
                    self.width / 2 + self.width * k as u32
                };
                (mid, f64::from(c))
            })
            .collect();
        Lengths::Empirical { points }
    }
}

/// One Offline submission.
struct Row {
    run: &'static str,
    model: ModelId,
    prompts: &'static Prompts,
    gpu: GpuId,
    gpus: u32,
    /// One instance's TP and PP (the system runs gpus / (tp·pp) of them).
    tp: u32,
    pp: u32,
    /// Blackwell rows run NVFP4 weights and GEMMs; Hopper rows FP8. Both
    /// keep the KV cache in FP8.
    fp4: bool,
    /// `gpu_batch_size`, `max_num_tokens`, `kvcache_free_gpu_mem_frac`.
    batch: u32,
    max_tokens: u32,
    kv_fraction: f64,
    /// Output tokens per sample, from the same log.
    output: f64,
    /// Output tokens per second, the log's.
    measured: f64,
}

/// A row from its source's figures: the log's tokens and samples per
/// second give the output per sample.
#[allow(clippy::too_many_arguments)]
fn row(
    run: &'static str,
    model: ModelId,
    prompts: &'static Prompts,
    gpu: GpuId,
    gpus: u32,
    (tp, pp): (u32, u32),
    fp4: bool,
    (batch, max_tokens, kv_fraction): (u32, u32, f64),
    (tokens, samples): (f64, f64),
) -> Row {
    Row {
        run,
        model,
        prompts,
        gpu,
        gpus,
        tp,
        pp,
        fp4,
        batch,
        max_tokens,
        kv_fraction,
        output: tokens / samples,
        measured: tokens,
    }
}

#[rustfmt::skip]
fn rows() -> Vec<Row> {
    use GpuId::{Gb200, H100Sxm as H100, H200Sxm as H200, B200};
    use ModelId::{Llama2_70b as L2, Llama31_405b as L405, Mixtral8x7b as MX};
    vec![
        // v4.0, DGX H100, llama2-70b-99.9: TP2 × 4, batch 896, the builder's
        // 16,384 tokens, 0.90; TensorRT 9.3. The KV dtype of v4.0 is not
        // stated (v5.0's Hopper configs set FP8): taken as FP8.
        row("v4.0 DGX H100 ×8, Llama 2 70B FP8", L2, &OPENORCA, H100, 8, (2, 1), false, (896, 16_384, 0.90), (21_805.8, 74.699)),
        // v4.0 and v4.1, H200 ×8 (700 W), TP1 × 8, batch 806, 0.90.
        row("v4.0 H200 ×8, Llama 2 70B FP8", L2, &OPENORCA, H200, 8, (1, 1), false, (806, 16_384, 0.90), (27_738.3, 94.6223)),
        row("v4.1 H200 ×8, Llama 2 70B FP8", L2, &OPENORCA, H200, 8, (1, 1), false, (806, 16_384, 0.90), (31_302.7, 107.477)),
        // v5.0, DGX B200 ×8: FP4 with FP8 KV, TP1 × 8, batch 2,048,
        // 3,584 tokens, 0.95.
        row("v5.0 DGX B200 ×8, Llama 2 70B FP4", L2, &OPENORCA, B200, 8, (1, 1), true, (2048, 3584, 0.95), (98_858.0, 363.895)),
        // v5.0, DGX B200 ×8, Mixtral 8x7B: FP4 with FP8 KV, TP1 × 8, batch
        // 6,144, 14,336 runtime tokens, 0.95.
        row("v5.0 DGX B200 ×8, Mixtral 8x7B FP4", MX, &MIXTRAL_15K, B200, 8, (1, 1), true, (6144, 14_336, 0.95), (128_148.0, 886.233)),
        // v5.0, Llama 3.1 405B: TP2 × PP2 instances, batch 128, 1,536
        // tokens (chunked context), FP4 with FP8 KV.
        row("v5.0 DGX B200 ×8, Llama 3.1 405B FP4", L405, &LLAMA405_8K, B200, 8, (2, 2), true, (128, 1536, 0.90), (1_526.29, 2.32353)),
        row("v5.0 GB200 NVL72, Llama 3.1 405B FP4", L405, &LLAMA405_8K, Gb200, 72, (2, 2), true, (128, 1536, 0.90), (13_886.4, 21.1733)),
    ]
}

/// The submission as a plan: every sample queued at once (a closed loop
/// of more clients than the engines hold), the engine in-process (no HTTP
/// front end), NVIDIA's batch, token budget and KV fraction.
fn plan(r: &Row) -> Plan {
    let instances = r.gpus / (r.tp * r.pp);
    let (weights, compute) = if r.fp4 {
        (Precision::Nvfp4, Precision::Nvfp4)
    } else {
        (Precision::Fp8, Precision::Fp8)
    };
    let mut levers = Levers {
        precision: Precisions {
            weights,
            compute,
            kv_cache: Precision::Fp8,
            ..Precisions::default()
        },
        parallel: Parallelism {
            tp: r.tp,
            pp: r.pp,
            dp: instances,
            ..Parallelism::default()
        },
        engine: Engine::TrtLlm,
        prefill_chunk: Some(r.max_tokens),
        ..Levers::default()
    };
    levers.engine_knobs.max_seqs = Some(r.batch);
    levers.engine_knobs.memory_fraction = Some(r.kv_fraction);
    levers.engine_knobs.front_end_ms = Some(0.0);
    let mut hardware = Hardware::new(GpuChoice::Preset(r.gpu), r.gpus);
    if r.gpu == GpuId::Gb200 {
        // Four GPUs a compute tray, 72 in one NVLink domain.
        hardware.gpus_per_node = 4;
        hardware.scale_up_domain = 72;
    }
    let prompt = r.prompts.lengths();
    let output = r.output.round() as u32;
    Plan {
        version: 1,
        name: r.run.into(),
        model: ModelChoice::Preset(r.model),
        workload: Workload::Inference(Inference {
            prompt_tokens: prompt.mean().round() as u32,
            output_tokens: output,
            batch: 1,
            logits: LogitsScope::LastToken,
            stream: Some(RequestStream {
                arrival: Arrival::Concurrency { clients: 24_576 },
                prompt,
                output: Lengths::Fixed { tokens: output },
                slo: Slo::default(),
                shared_prefix: 0,
                reuse: None,
                requests: 1000,
                seed: 0,
            }),
        }),
        levers,
        hardware,
        overheads: Default::default(),
        efficiency: Default::default(),
        economics: Default::default(),
        distillation: None,
    }
}

#[test]
fn mlperf_offline_throughput() {
    println!(
        "{:<42} {:>10} {:>10} {:>8} {:>8}",
        "run", "measured", "predicted", "error", "running"
    );
    let mut errors = Vec::new();
    for r in rows() {
        let p = plan(&r);
        let report = planner_core::evaluate(&p);
        assert_eq!(
            report.verdict,
            planner_core::Verdict::Fits,
            "{}: {:?}",
            r.run,
            report.diagnostics
        );
        let a = planner_core::serving::analytic(&p).expect("a stream");
        let predicted = a.output_tokens_per_second;
        let e = (predicted - r.measured) / r.measured;
        // The report's range comes from the rows most like the run.
        let basis = match report.time {
            TimeReport::Inference(t) => t.range_basis,
            TimeReport::Training(_) => unreachable!("a serving plan"),
        };
        let fp4 = ValidationBasis::Fp4Serving;
        assert_eq!(basis == fp4, r.fp4, "{}: {basis:?}", r.run);
        if r.fp4 && r.model != ModelId::Mixtral8x7b {
            // Held out, and inside the band the one-B200 rows set.
            assert!(
                r.measured / predicted - 1.0 >= -fp4.band(1).fast,
                "{}",
                r.run
            );
        }
        println!(
            "{:<42} {:>10.0} {:>10.0} {:>+7.1}% {:>8.0}",
            r.run,
            r.measured,
            predicted,
            e * 100.0,
            a.running
        );
        errors.push(e);
    }
    let mut abs: Vec<f64> = errors.iter().map(|e| e.abs()).collect();
    abs.sort_by(f64::total_cmp);
    let (median, worst) = (abs[abs.len() / 2], abs[abs.len() - 1]);
    println!(
        "median |error| {:.1}%, worst {:.1}%",
        median * 100.0,
        worst * 100.0
    );
    // As measured on 2026-12-06 (docs/validation.md, "MLPerf Inference"):
    // every row predicted high. Hopper FP8, Llama 2 70B: +24.1 / +27.3 %
    // on the v4.0 software (TensorRT-LLM of February 2024), +12.5 % on
    // v4.1's for the same H200s. Blackwell FP4, dense: +16.2 % (Llama 2
    // 70B), +20.6 / +28.7 % (Llama 3.1 405B, TP 2 × PP 2) with FP4 GEMMs
    // at their measured rate (`catalog::mamf`, 63.4 % of the peak; +31.7,
    // +32.9 and +37.7 % at the FP8 figure before); Mixtral FP4 +92.5 %,
    // Blackwell's FP4 MoE path. A change that moves these is a change to
    // the model.
    assert!(errors.iter().all(|e| *e > 0.0), "{errors:?}");
    let (hopper, blackwell_dense) = (&errors[..3], [errors[3], errors[5], errors[6]]);
    assert!(hopper.iter().all(|e| *e <= 0.30), "{hopper:?}");
    assert!(
        blackwell_dense.iter().all(|e| (0.10..=0.30).contains(e)),
        "{blackwell_dense:?}"
    );
    assert!(errors[4] <= 0.95, "Mixtral {}", errors[4]);
    assert!(median <= 0.25 && worst <= 0.95, "{median} {worst}");
}

/// The same submissions' Server runs: Poisson arrivals at the rate NVIDIA
/// tuned so the 99th percentiles sit under MLPerf's limits for Llama 2
/// 70B and Mixtral (2 s to the first token, 200 ms per output token;
/// `mlcommons/inference` `loadgen/mlperf.conf`, target latency percentile
/// 99). Each run's batch, budget and KV fraction are its Server config's.
#[rustfmt::skip]
fn server_rows() -> Vec<Row> {
    use GpuId::{H100Sxm as H100, H200Sxm as H200, B200};
    use ModelId::{Llama2_70b as L2, Mixtral8x7b as MX};
    vec![
        row("v4.0 DGX H100 ×8, Llama 2 70B FP8", L2, &OPENORCA, H100, 8, (2, 1), false, (1024, 16_384, 0.90), (20_556.40, 70.42)),
        row("v4.0 H200 ×8, Llama 2 70B FP8", L2, &OPENORCA, H200, 8, (1, 1), false, (896, 16_384, 0.90), (26_485.43, 90.35)),
        row("v4.1 H200 ×8, Llama 2 70B FP8", L2, &OPENORCA, H200, 8, (1, 1), false, (896, 16_384, 0.90), (29_228.22, 100.35)),
        row("v5.0 DGX B200 ×8, Llama 2 70B FP4", L2, &OPENORCA, B200, 8, (1, 1), true, (2048, 3584, 0.95), (98_443.30, 361.04)),
        row("v5.0 DGX B200 ×8, Mixtral 8x7B FP4", MX, &MIXTRAL_15K, B200, 8, (1, 1), true, (6144, 10_240, 0.90), (126_844.55, 870.82)),
    ]
}

/// The largest Poisson rate whose steady state meets MLPerf's limits, in
/// output tokens per second, against what the Server run sustained. A
/// test of the steady state's percentiles at the edge of the targets as
/// much as of the throughput.
#[test]
fn mlperf_server_rate_under_the_limits() {
    use planner_core::units::{Frequency, Seconds};
    println!(
        "{:<42} {:>10} {:>10} {:>8} {:>10}",
        "run (Server)", "measured", "predicted", "error", "offline"
    );
    let mut errors = Vec::new();
    for r in server_rows() {
        let mut p = plan(&r);
        if let Workload::Inference(i) = &mut p.workload {
            let s = i.stream.as_mut().expect("a stream");
            s.arrival = Arrival::Poisson {
                rate: Frequency::per_second(1.0),
            };
            s.slo = Slo {
                ttft_p99: Some(Seconds::from_secs(2.0)),
                tpot_p99: Some(Seconds::from_millis(200.0)),
                ..Slo::default()
            };
        }
        let a = planner_core::serving::analytic(&p).expect("a stream");
        let rate = a.max_rate_under_slo.expect("targets");
        let predicted = rate * r.output;
        let offline = a.max_rate * r.output;
        let e = (predicted - r.measured) / r.measured;
        println!(
            "{:<42} {:>10.0} {:>10.0} {:>+7.1}% {:>10.0}",
            r.run,
            r.measured,
            predicted,
            e * 100.0,
            offline
        );
        errors.push(e);
    }
    // As measured on 2026-12-06: every run predicted high, by about what
    // its Offline twin is (the limits cost NVIDIA's runs 0.4–6.6 % of
    // their Offline throughput, the steady state at most 0.7 %).
    assert!(errors.iter().all(|e| *e > 0.0 && *e <= 1.0), "{errors:?}");
}
