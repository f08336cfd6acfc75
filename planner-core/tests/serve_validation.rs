//! Validation of the serving time model against measured single-request
//! latencies, with the same default efficiencies as training.
//!
//! At concurrency 1 a server's time to first token is one prefill and its
//! inter-token latency one decode step, which is what the planner reports
//! as TTFT and TPOT. Higher concurrencies add queueing and scheduling that
//! a plan does not describe, so they are not used here.
//! `cargo test -p planner-core --test serve_validation -- --nocapture`
//! prints the table.

#[path = "common/qwen3_moe.rs"]
mod qwen3_moe;
#[path = "common/stats.rs"]
mod stats;
use planner_core::catalog::{GpuId, ModelId};
use planner_core::evaluate;
use planner_core::hardware::{GpuChoice, Hardware};
use planner_core::plan::{
    Inference, Levers, LogitsScope, ModelChoice, Parallelism, Plan, Precisions, Workload,
};
use planner_core::precision::Precision;
use planner_core::report::{TimeReport, Verdict};
use qwen3_moe::{qwen3_235b, qwen3_30b};
use stats::assert_band_holds;

struct Case {
    name: &'static str,
    model: ModelId,
    gpu: GpuId,
    tp: u32,
    weights: Precision,
    prompt: u32,
    output: u32,
    /// Published TTFT and inter-token latency, milliseconds.
    ttft_ms: f64,
    itl_ms: f64,
}

impl Case {
    fn plan(&self) -> Plan {
        let fp8 = self.weights == Precision::Fp8;
        Plan {
            version: 1,
            name: self.name.into(),
            model: ModelChoice::Preset(self.model),
            workload: Workload::Inference(Inference {
                prompt_tokens: self.prompt,
                output_tokens: self.output,
                batch: 1,
                logits: LogitsScope::LastToken,
                stream: None,
            }),
            levers: Levers {
                precision: Precisions {
                    weights: self.weights,
                    compute: if fp8 { Precision::Fp8 } else { Precision::Bf16 },
                    ..Precisions::default()
                },
                parallel: Parallelism {
                    tp: self.tp,
                    ..Parallelism::default()
                },
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

/// NVIDIA NIM LLM benchmarking guide, "Performance" (docs.nvidia.com/nim/
/// benchmarking/llm/1.0.0/performance): Llama-3.3-70B-Instruct, NIM 1.8.0,
/// 2 × H100 80GB, FP8, TP2, measured with AIPerf at concurrency 1.
/// Llama 3.3 70B has Llama 3.1 70B's architecture.
fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "NIM 1.8 Llama-3.3-70B FP8 TP2 2×H100, 5000 in / 500 out",
            model: ModelId::Llama31_70b,
            gpu: GpuId::H100Sxm,
            tp: 2,
            weights: Precision::Fp8,
            prompt: 5000,
            output: 500,
            ttft_ms: 406.77,
            itl_ms: 18.58,
        },
        Case {
            name: "NIM 1.8 Llama-3.3-70B FP8 TP2 2×H100, 500 in / 2000 out",
            model: ModelId::Llama31_70b,
            gpu: GpuId::H100Sxm,
            tp: 2,
            weights: Precision::Fp8,
            prompt: 500,
            output: 2000,
            ttft_ms: 47.77,
            itl_ms: 18.91,
        },
    ]
}

#[test]
fn single_request_latency() {
    println!(
        "{:<58} {:>9} {:>9} {:>9} {:>9}",
        "case", "TTFT pub", "TTFT", "ITL pub", "TPOT"
    );
    for c in cases() {
        let r = evaluate(&c.plan());
        assert_eq!(r.verdict, Verdict::Fits, "{}", c.name);
        let TimeReport::Inference(t) = r.time else {
            unreachable!("{}: not a serving report", c.name)
        };
        let (ttft, tpot) = (t.ttft.as_millis(), t.tpot.as_millis());
        println!(
            "{:<58} {:>9.1} {:>9.1} {:>9.2} {:>9.2}",
            c.name, c.ttft_ms, ttft, c.itl_ms, tpot
        );
        // Decode is a bandwidth roofline and should land close; prefill of
        // a short prompt is dominated by fixed costs we model coarsely.
        let e_tpot = (tpot - c.itl_ms) / c.itl_ms;
        let e_ttft = (ttft - c.ttft_ms) / c.ttft_ms;
        println!(
            "    TTFT error {:+.1}%, TPOT error {:+.1}%",
            e_ttft * 100.0,
            e_tpot * 100.0
        );
        assert!(
            e_tpot.abs() < 0.15,
            "{}: TPOT {tpot} vs {}",
            c.name,
            c.itl_ms
        );
        assert!(
            e_ttft.abs() < 0.25,
            "{}: TTFT {ttft} vs {}",
            c.name,
            c.ttft_ms
        );
    }
}

/// One published static-batch measurement: TensorRT-LLM's
/// `docs/source/performance.md` at commit 138f96d4 (NVIDIA/TensorRT-LLM,
/// "Peak Throughput", data of v0.6.1 for H100, v0.5 for A100's TP-1 rows
/// and for the batch-1 first-token latencies), measured with
/// `gptSessionBenchmark`: static batches, every sequence `prompt` in and
/// `output` out. The models are Llama-2-7b and Llama-2-70b (the page's
/// "Engine Building Setups"); H100 is H100-HBM3-80GB (SXM) with FP8
/// weights, compute and KV cache (`--enable_fp8 --fp8_kv_cache`); the A100
/// variant is not stated (modelled as SXM 80 GB), FP16.
struct Static {
    model: ModelId,
    gpu: GpuId,
    tp: u32,
    batch: u32,
    prompt: u32,
    output: u32,
    fp8: bool,
    /// Output tokens/s per GPU, or the first-token latency in ms.
    measured: Measured,
}

#[derive(Clone, Copy)]
enum Measured {
    TokensPerGpu(f64),
    FirstTokenMs(f64),
}

#[rustfmt::skip]
fn trt_llm_static() -> Vec<Static> {
    use Measured::{FirstTokenMs as Ttft, TokensPerGpu as Tps};
    use ModelId::{Llama2_70b as L70, Llama2_7b as L7};
    let h = |model, tp, batch, prompt, output, m| Static { model, gpu: GpuId::H100Sxm, tp, batch, prompt, output, fp8: true, measured: m };
    let a = |model, tp, batch, prompt, output, m| Static { model, gpu: GpuId::A100Sxm80, tp, batch, prompt, output, fp8: false, measured: m };
    vec![
        // H100 FP8, v0.6.1, out tok/s/GPU.
        h(L7, 1, 768, 128, 128, Tps(19_694.0)),
        h(L7, 1, 112, 128, 2048, Tps(6_818.0)),
        h(L7, 1, 80, 2048, 128, Tps(2_244.0)),
        h(L7, 1, 48, 2048, 2048, Tps(2_740.0)),
        h(L70, 2, 1024, 128, 128, Tps(2_657.0)),
        h(L70, 4, 480, 128, 2048, Tps(1_486.0)),
        h(L70, 2, 96, 2048, 128, Tps(306.0)),
        h(L70, 2, 64, 2048, 2048, Tps(547.0)),
        // A100 FP16, TP 1 rows (the table's unit is out tok/s; at TP 1
        // that is per GPU).
        a(L7, 1, 384, 128, 128, Tps(5_586.0)),
        a(L7, 1, 60, 128, 2048, Tps(1_928.0)),
        a(L7, 1, 52, 2048, 128, Tps(591.0)),
        // First-token latency at batch 1 (v0.5).
        h(L7, 1, 1, 128, 1, Ttft(7.0)),
        h(L7, 1, 1, 2048, 1, Ttft(36.0)),
        h(L70, 4, 1, 128, 1, Ttft(26.0)),
        h(L70, 4, 1, 2048, 1, Ttft(109.0)),
        a(L7, 1, 1, 128, 1, Ttft(16.0)),
        a(L7, 1, 1, 2048, 1, Ttft(133.0)),
        a(L70, 4, 1, 128, 1, Ttft(47.0)),
        a(L70, 4, 1, 2048, 1, Ttft(377.0)),
    ]
}

impl Static {
    fn plan(&self) -> Plan {
        let c = Case {
            name: "",
            model: self.model,
            gpu: self.gpu,
            tp: self.tp,
            weights: if self.fp8 {
                Precision::Fp8
            } else {
                Precision::Bf16
            },
            prompt: self.prompt,
            output: self.output,
            ttft_ms: 0.0,
            itl_ms: 0.0,
        };
        let mut p = c.plan();
        if let Workload::Inference(i) = &mut p.workload {
            i.batch = self.batch;
        }
        if self.fp8 {
            p.levers.precision.kv_cache = Precision::Fp8;
        }
        p
    }
}

/// TensorRT-LLM's published static-batch throughputs and first-token
/// latencies against the static serving model, at the default
/// efficiencies. Prints each row; pins the median and worst |error| as
/// they stand (docs/validation.md explains the misses).
#[test]
fn trt_llm_static_batches() {
    let mut errors = Vec::new();
    for s in trt_llm_static() {
        let r = evaluate(&s.plan());
        let TimeReport::Inference(t) = r.time else {
            unreachable!("not a serving report")
        };
        let (label, predicted, measured) = match s.measured {
            Measured::TokensPerGpu(m) => (
                "out tok/s/GPU",
                t.output_tokens_per_second / f64::from(s.tp),
                m,
            ),
            Measured::FirstTokenMs(m) => ("TTFT ms", t.ttft.as_millis(), m),
        };
        let e = (predicted - measured) / measured;
        println!(
            "{:?} {:?} TP{} b{} {}/{} {label}: measured {measured:.1}, predicted {predicted:.1} ({:+.1}%) {:?}",
            s.model, s.gpu, s.tp, s.batch, s.prompt, s.output, e * 100.0, r.verdict
        );
        errors.push(e.abs());
    }
    errors.sort_by(f64::total_cmp);
    let median = errors[errors.len() / 2];
    let worst = errors[errors.len() - 1];
    println!(
        "median |error| {:.1}%, worst {:.1}%",
        median * 100.0,
        worst * 100.0
    );
    // As measured on 2026-12-01 (19 rows): median 7.2 %, worst 100.3 %
    // (Llama-2-70B decode at long context, measured before TensorRT-LLM's
    // GQA decode kernel; docs/validation.md). A change that moves these is
    // a change to the model: say why in its commit.
    assert_eq!(errors.len(), 19);
    assert!(median <= 0.08, "median |error| {median}");
    assert!(worst <= 1.05, "worst |error| {worst}");
}

/// TensorRT-LLM's offline maximum-throughput table (`trtllm-bench
/// throughput`, PyTorch backend: every request queued at once, fixed
/// lengths, total output tokens/s), `docs/source/performance/perf-overview.md`
/// at commit 00f37686aa854010d68bcbd0f4ab000221541ca6 of NVIDIA/TensorRT-LLM
/// (the v1.0 tables). GPUs H100 SXM 80GB (DGX H100) and H200 SXM 141GB;
/// FP8 checkpoints (nvidia/Llama-3.1-8B-Instruct-FP8,
/// nvidia/Llama-3.3-70B-Instruct-FP8, nvidia/Llama-3.1-405B-Instruct-FP8).
/// Llama 3.3 70B has Llama 3.1 70B's architecture.
#[rustfmt::skip]
fn trt_llm_offline() -> Vec<(ModelId, GpuId, u32, u32, u32, f64)> {
    use GpuId::{H100Sxm as H1, H200Sxm as H2};
    use ModelId::{Llama31_405b as L405, Llama31_70b as L70, Llama31_8b as L8};
    let lens = TRT_LENGTHS;
    let table: [(ModelId, GpuId, u32, [f64; 10]); 6] = [
        (L8, H1, 1, [28_312.0, 22_714.0, 14_325.0, 17_660.0, 15_220.0, 13_899.0, 3_450.0, 9_305.0, 3_459.0, 1_351.0]),
        (L8, H2, 1, [27_911.0, 26_221.0, 18_027.0, 20_770.0, 17_744.0, 16_828.0, 3_538.0, 12_194.0, 3_902.0, 1_804.0]),
        (L70, H1, 2, [6_378.0, 6_651.0, 4_199.0, 5_222.0, 4_205.0, 4_146.0, 762.0, 3_082.0, 898.0, 437.0]),
        (L70, H2, 1, [3_803.0, 4_336.0, 2_872.0, 3_666.0, 2_909.0, 2_994.0, 442.0, 2_003.0, 566.0, 283.0]),
        (L405, H1, 8, [3_627.0, 4_340.0, 3_116.0, 3_994.0, 2_919.0, 2_895.0, 453.0, 2_296.0, 610.0, 345.0]),
        (L405, H2, 8, [3_814.0, 5_348.0, 4_741.0, 4_724.0, 3_330.0, 3_722.0, 456.0, 2_948.0, 650.0, 505.0]),
    ];
    let mut out = Vec::new();
    for (m, g, tp, row) in table {
        for (k, (i, o)) in lens.iter().enumerate() {
            out.push((m, g, tp, *i, *o, row[k]));
        }
    }
    out
}

/// `trtllm-bench throughput` as a plan: FP8 weights, compute and KV, the
/// `trt_llm` engine, and every request queued at once (a closed loop of
/// 8,192 clients) at fixed lengths `i` / `o`, on `gpus` GPUs of `gpu` in
/// `tp` × `dp` (× `ep` for experts).
fn offline(model: ModelChoice, gpu: GpuId, (tp, dp, ep): (u32, u32, u32), i: u32, o: u32) -> Plan {
    use planner_core::engine::Engine;
    use planner_core::request::{Arrival, Lengths, RequestStream, Slo};
    let c = Case {
        name: "",
        model: ModelId::Llama31_8b,
        gpu,
        tp,
        weights: Precision::Fp8,
        prompt: i,
        output: o,
        ttft_ms: 0.0,
        itl_ms: 0.0,
    };
    let mut p = c.plan();
    p.model = model;
    p.hardware.gpus = tp * dp;
    p.levers.parallel.dp = dp;
    p.levers.parallel.ep = ep;
    p.levers.precision.kv_cache = Precision::Fp8;
    p.levers.engine = Engine::TrtLlm;
    // `trtllm-bench` drives the engine in-process: no HTTP server.
    p.levers.engine_knobs.front_end_ms = Some(0.0);
    if let Workload::Inference(w) = &mut p.workload {
        w.stream = Some(RequestStream {
            arrival: Arrival::Concurrency { clients: 8192 },
            prompt: Lengths::Fixed { tokens: i },
            output: Lengths::Fixed { tokens: o },
            slo: Slo::default(),
            shared_prefix: 0,
            reuse: None,
            requests: 1000,
            seed: 0,
        });
    }
    p
}

/// Median (the upper middle value) and worst of `errors`, printed.
fn median_and_worst(mut errors: Vec<f64>) -> (f64, f64) {
    errors.sort_by(f64::total_cmp);
    let (median, worst) = (errors[errors.len() / 2], errors[errors.len() - 1]);
    println!(
        "median |error| {:.1}%, worst {:.1}%",
        median * 100.0,
        worst * 100.0
    );
    (median, worst)
}

#[test]
fn trt_llm_offline_throughput() {
    let mut errors = Vec::new();
    let mut time_errors = Vec::new();
    for (model, gpu, tp, i, o, measured) in trt_llm_offline() {
        let p = offline(ModelChoice::Preset(model), gpu, (tp, 1, 1), i, o);
        // Dense serving misses both ways: no one-sided warning.
        assert!(!predictions_fast(&evaluate(&p)), "{model:?} {i}/{o}");
        let a = planner_core::serving::analytic(&p).expect("a stream");
        let predicted = a.output_tokens_per_second;
        let e = (predicted - measured) / measured;
        println!("{model:?} {gpu:?} TP{tp} {i}/{o}: measured {measured:.0}, predicted {predicted:.0} ({:+.1}%), running {:.0}", e * 100.0, a.running);
        errors.push(e.abs());
        // The same error as a time (seconds per token) error.
        time_errors.push(measured / predicted - 1.0);
    }
    // The dense serving band (`uncertainty.rs`) holds these rows' 10th
    // and 90th percentiles in time, widened on the fast side for eager
    // `generate` (below): never narrower, at most five points wider.
    let band = planner_core::uncertainty::ValidationBasis::DenseServing.band(1);
    assert_band_holds("dense serving, time", band, &time_errors, (0.05, 0.02));
    let n = errors.len();
    let (median, worst) = median_and_worst(errors);
    // As measured on 2026-12-04 (60 rows), with TensorRT-LLM's reserving
    // scheduler (`Preemption::ReserveToFinish`): median 7.2 %, worst
    // 28.8 % (Llama 3.1 405B, H100 TP 8, 128 / 4096; before it, 7.8 % and
    // 48.0 %; docs/validation.md lists the misses). A change that moves
    // these is a change to the model.
    assert_eq!(n, 60);
    assert!(median <= 0.075, "median |error| {median}");
    assert!(worst <= 0.30, "worst |error| {worst}");
}

/// The ten lengths (prompt / output) of TensorRT-LLM's perf-overview
/// tables, in the page's order.
const TRT_LENGTHS: [(u32, u32); 10] = [
    (128, 128),
    (128, 2048),
    (128, 4096),
    (500, 2000),
    (1000, 1000),
    (1000, 2000),
    (2048, 128),
    (2048, 2048),
    (5000, 500),
    (20000, 2000),
];

/// MoE serving: the same page's Qwen3-235B-A22B table
/// (nvidia/Qwen3-235B-A22B-FP8), 8 GPUs, `trtllm-bench --tp 8 --ep
/// $ep_size` with the page's MoE options (`enable_attention_dp: true`):
/// attention data-parallel on each GPU, experts over 8 ranks. The page does
/// not state `ep_size`; 8 (every GPU) is assumed. Empty cells are left out.
#[rustfmt::skip]
fn trt_llm_offline_moe() -> Vec<(GpuId, u32, u32, f64)> {
    let lens = TRT_LENGTHS;
    let h200 = [Some(30_429.0), Some(42_821.0), Some(26_852.0), Some(28_026.0), Some(23_789.0), Some(22_061.0), Some(3_331.0), Some(16_672.0), Some(3_623.0), Some(1_876.0)];
    let h100 = [None, Some(19_658.0), Some(12_447.0), Some(18_351.0), Some(14_898.0), Some(15_136.0), None, Some(9_924.0), Some(3_225.0), None];
    let mut out = Vec::new();
    for (gpu, row) in [(GpuId::H200Sxm, h200), (GpuId::H100Sxm, h100)] {
        for (k, (i, o)) in lens.iter().enumerate() {
            if let Some(m) = row[k] {
                out.push((gpu, *i, *o, m));
            }
        }
    }
    out
}

/// Whether the report warns that its kind of plan ran slower than
/// predicted on every published run (`DiagnosticKind::PredictionsFast`).
fn predictions_fast(r: &planner_core::Report) -> bool {
    r.diagnostics.iter().any(|d| {
        matches!(
            d.detail,
            planner_core::diagnostics::DiagnosticKind::PredictionsFast { .. }
        )
    })
}

/// The MoE rows against the analytic steady state, as the dense rows are
/// run. They are all predicted high, by 1.4–1.9× (docs/validation.md,
/// "MoE serving": not explained yet). The bounds pin the miss as it stands
/// so a change that moves it is seen.
#[test]
fn trt_llm_offline_moe_throughput() {
    let mut errors = Vec::new();
    let mut shortfall: f64 = 0.0;
    for (gpu, i, o, measured) in trt_llm_offline_moe() {
        let p = offline(qwen3_235b(), gpu, (1, 8, 8), i, o);
        let r = evaluate(&p);
        assert_eq!(r.verdict, Verdict::Fits, "{gpu:?} {i}/{o}");
        // Every row below is predicted fast, and the report says so.
        assert!(predictions_fast(&r), "{gpu:?} {i}/{o}");
        let a = planner_core::serving::analytic(&p).expect("a stream");
        let predicted = a.output_tokens_per_second;
        let e = (predicted - measured) / measured;
        println!("Qwen3-235B {gpu:?} DP8 EP8 {i}/{o}: measured {measured:.0}, predicted {predicted:.0} ({:+.1}%), running {:.0} per rank", e * 100.0, a.running);
        // Every row high, as it stands.
        assert!(e > 0.3 && e < 1.0, "{gpu:?} {i}/{o}: {e}");
        errors.push(e.abs());
        shortfall = f64::max(shortfall, 1.0 - measured / predicted);
    }
    let n = errors.len();
    let (median, worst) = median_and_worst(errors);
    // As measured on 2026-12-05 (17 rows), with TensorRT-LLM's reserving
    // scheduler and the layers' small kernels counted by structure:
    // median 65.9 %, worst 86.0 %, every row high (before the count,
    // 72.0 % and 92.9 %). A change that moves these is a change to the
    // model.
    assert_eq!(n, 17);
    assert!(median <= 0.66 && worst <= 0.87, "{median} {worst}");
    // The MoE serving band (`uncertainty.rs`) is the worst shortfall in
    // time, rounded up.
    let band = planner_core::uncertainty::ValidationBasis::MoeServing.band(8);
    assert!(
        band.fast >= shortfall && band.fast <= shortfall + 0.01,
        "{} vs {shortfall}",
        band.fast
    );
}

/// transformers' eager `generate` is host-bound: transformers#29651
/// (2024-03-14; NVIDIA A100 80GB PCIe, torch 2.3.0.dev, transformers
/// 4.35.0, Llama-2-7b-chat in FP16, `attn_implementation="eager"`, no
/// `torch.compile`, 32 new tokens) measured 33.41 ms a token at batch 1
/// and 34.43 ms at batch 32: thirty-two times the sequences for 3 % more
/// time, where a bandwidth-bound decode step would have grown with the KV
/// reads and stayed near 13.5 GB / 1.94 TB/s ≈ 7 ms. Held out from the
/// fit of `Efficiency::host_op` (the H200 harness's decode steps, another
/// host): the measurement must lie inside the report's TPOT range, and
/// the predicted step must stay flat from batch 1 to 32.
#[test]
fn transformers_generate_is_host_bound() {
    let plan = |batch: u32| Plan {
        version: planner_core::plan::SCHEMA_VERSION,
        name: format!("transformers generate, Llama 2 7B FP16, A100 PCIe, batch {batch}"),
        model: ModelChoice::Preset(ModelId::Llama2_7b),
        workload: Workload::Inference(Inference {
            prompt_tokens: 32,
            output_tokens: 32,
            batch,
            logits: LogitsScope::LastToken,
            stream: None,
        }),
        levers: Levers {
            precision: Precisions {
                weights: Precision::Fp16,
                kv_cache: Precision::Fp16,
                activations: Precision::Fp16,
                compute: Precision::Fp16,
                ..Precisions::default()
            },
            attention: planner_core::plan::AttentionKernel::Eager,
            kv_cache: planner_core::plan::KvCacheLayout::Contiguous { reserve_tokens: 0 },
            engine: planner_core::engine::Engine::HfTransformers,
            ..Levers::default()
        },
        hardware: Hardware::new(GpuChoice::Preset(GpuId::A100Pcie80), 1),
        overheads: Default::default(),
        efficiency: Default::default(),
        economics: Default::default(),
        distillation: None,
    };
    let tpot = |batch: u32| {
        let r = evaluate(&plan(batch));
        assert_eq!(r.verdict, Verdict::Fits, "batch {batch}");
        let TimeReport::Inference(t) = r.time else {
            unreachable!("not a serving report")
        };
        let host = t
            .decode
            .iter()
            .find(|p| p.kind == planner_core::report::TimeKind::HostBound)
            .map_or(0.0, |p| p.exposed.as_millis());
        (t.tpot.as_millis(), t.tpot_range, host)
    };
    for (batch, measured) in [(1, 33.41), (32, 34.43)] {
        let (ms, range, host) = tpot(batch);
        println!(
            "transformers generate batch {batch}: TPOT {ms:.1} ms ({:.1}–{:.1}), measured {measured} ms, error {:+.1} %, waiting on the host {host:.1} ms",
            range.low.as_millis(),
            range.high.as_millis(),
            (ms - measured) / measured * 100.0
        );
        // The host sets the pace: the GPU waits for it.
        assert!(host > 0.0, "batch {batch}: the step should be host-bound");
        assert!(
            range.low.as_millis() <= measured && measured <= range.high.as_millis(),
            "batch {batch}: {measured} ms outside {:.1}–{:.1}",
            range.low.as_millis(),
            range.high.as_millis()
        );
    }
    let flat = tpot(32).0 / tpot(1).0;
    assert!((1.0..1.15).contains(&flat), "batch 32 / batch 1 = {flat}");
}

/// Attention-DP ranks step together (`analytic::Shape::step_lockstep`,
/// `sim::run_lockstep`): a rank's prefill holds up the other seven at every
/// MoE layer. The simulator runs the eight ranks together, each with its
/// own requests; the steady state charges the stalls in closed form. They
/// must agree on streams whose ranks prefill at their own times (random
/// arrivals or lengths), and the stall must show: at 20 requests a second
/// a token takes about four times as long as at 1 (47 ms against 12 ms;
/// without the stalls the steady state gave 25.6 ms). A closed loop of fixed lengths keeps the
/// ranks' prefills together, and there the steady state charges no stall.
#[test]
fn attention_dp_ranks_wait_for_each_others_prefills() {
    use planner_core::request::{Arrival, Lengths};
    use planner_core::units::Frequency;
    let uniform = Lengths::Uniform {
        min: 200,
        max: 1800,
    };
    let fixed = Lengths::Fixed { tokens: 1000 };
    let poisson = |rate: f64| Arrival::Poisson {
        rate: Frequency::per_second(rate),
    };
    let run = |arrival: Arrival, lens: &Lengths| {
        let mut p = offline(qwen3_235b(), GpuId::H200Sxm, (1, 8, 8), 1000, 1000);
        if let Workload::Inference(w) = &mut p.workload {
            let s = w.stream.as_mut().expect("a stream");
            s.arrival = arrival;
            s.prompt = lens.clone();
            s.output = lens.clone();
        }
        let a = planner_core::serving::analytic(&p).expect("a stream");
        let s = planner_core::serving::simulate(&p).expect("a stream");
        println!(
            "{arrival:?} {lens:?}: steady state {:.0} tok/s, {:.1} ms/token; simulator {:.0} tok/s, {:.1} ms/token (p50)",
            a.output_tokens_per_second,
            a.tpot.as_secs() * 1e3,
            s.output_tokens_per_second,
            s.tpot.p50.as_secs() * 1e3
        );
        (a, s)
    };
    let near = |x: f64, y: f64, tol: f64| (x - y).abs() <= tol * y;
    for (arrival, lens) in [
        (Arrival::Concurrency { clients: 1024 }, &uniform),
        (Arrival::Concurrency { clients: 256 }, &uniform),
        (poisson(20.0), &fixed),
        (Arrival::Concurrency { clients: 1024 }, &fixed),
    ] {
        let (a, s) = run(arrival, lens);
        // An open stream's rate is given; a closed loop's is the engine's.
        if matches!(arrival, Arrival::Concurrency { .. }) {
            assert!(
                near(a.output_tokens_per_second, s.output_tokens_per_second, 0.07),
                "{arrival:?} {lens:?}"
            );
        }
        assert!(
            near(a.tpot.as_secs(), s.tpot.p50.as_secs(), 0.06),
            "{arrival:?} {lens:?}"
        );
    }
    let (light, _) = run(poisson(1.0), &fixed);
    let (busy, s) = run(poisson(20.0), &fixed);
    assert!(busy.tpot.as_secs() > 3.0 * light.tpot.as_secs());
    assert!(s.tpot.p50.as_secs() > 3.0 * light.tpot.as_secs());
    // The report says how much of a token's time the stalls take: about
    // half at 20 requests a second (47.3 ms against 25.6 lined up), none
    // where the ranks already prefill together.
    let stall = busy.dp_stall.expect("a stall figure");
    assert!(stall > 0.4 && stall < 0.5, "{stall}");
    let (aligned, _) = run(Arrival::Concurrency { clients: 1024 }, &fixed);
    assert_eq!(aligned.dp_stall, None);
}

/// SGLang runs a rank's prompts in prefill iterations of their own
/// (`engine::Batching::PrefillFirst`, its default without
/// `--enable-mixed-chunk`), so with attention DP a prefill on any rank
/// holds every rank, and the prefilling rank decodes nothing in it. The
/// steady state (`Shape::step_prefill_first_lockstep`) and the simulator
/// must agree on streams whose ranks prefill at their own times, and the
/// stall must show against the same ranks lined up.
#[test]
fn sglang_prefill_iterations_hold_every_attention_dp_rank() {
    use planner_core::engine::{Batching, Engine};
    use planner_core::request::{Arrival, Lengths};
    use planner_core::units::Frequency;
    let uniform = Lengths::Uniform {
        min: 200,
        max: 1800,
    };
    let fixed = Lengths::Fixed { tokens: 1000 };
    let poisson = |rate: f64| Arrival::Poisson {
        rate: Frequency::per_second(rate),
    };
    let run = |arrival: Arrival, lens: &Lengths| {
        let mut p = offline(qwen3_235b(), GpuId::H200Sxm, (1, 8, 8), 1000, 1000);
        p.levers.engine = Engine::Sglang;
        if let Workload::Inference(w) = &mut p.workload {
            let s = w.stream.as_mut().expect("a stream");
            s.arrival = arrival;
            s.prompt = lens.clone();
            s.output = lens.clone();
        }
        let r = planner_core::evaluate(&p);
        let profile = r.serving.expect("serving").profile;
        assert_eq!(profile.batching, Batching::PrefillFirst);
        let a = planner_core::serving::analytic(&p).expect("a stream");
        let s = planner_core::serving::simulate(&p).expect("a stream");
        println!(
            "SGLang {arrival:?} {lens:?}: steady state {:.0} tok/s, {:.1} ms/token, stall {:?}; simulator {:.0} tok/s, {:.1} ms/token (p50)",
            a.output_tokens_per_second,
            a.tpot.as_secs() * 1e3,
            a.dp_stall,
            s.output_tokens_per_second,
            s.tpot.p50.as_secs() * 1e3
        );
        (a, s)
    };
    let near = |x: f64, y: f64, tol: f64| (x - y).abs() <= tol * y;
    // As measured on 2026-12-05 (after SGLang's eager prefill was
    // charged its host time): 20.5 against 21.4 ms a token at 5 requests
    // a second, 46.8 against 46.1 at 20, and 26.4 against 27.1 (9,700 against 9,126 tokens/s) for
    // a closed loop of 256. The closed loop's throughput differs by 6 %:
    // the host floor is a maximum per iteration, which the steady state
    // takes at the mean prefill iteration and the simulator at each one
    // (its short prompts' passes are host-bound, the mean one is not).
    for (arrival, lens, stall) in [
        (poisson(5.0), &uniform, 0.05..0.2),
        (poisson(20.0), &fixed, 0.3..0.45),
        (Arrival::Concurrency { clients: 256 }, &uniform, 0.1..0.25),
    ] {
        let (a, s) = run(arrival, lens);
        assert!(
            near(a.tpot.as_secs(), s.tpot.p50.as_secs(), 0.06),
            "{arrival:?} {lens:?}"
        );
        if matches!(arrival, Arrival::Concurrency { .. }) {
            assert!(
                near(a.output_tokens_per_second, s.output_tokens_per_second, 0.07),
                "{arrival:?} {lens:?}"
            );
        }
        let x = a.dp_stall.expect("a stall figure");
        assert!(stall.contains(&x), "{arrival:?} {lens:?}: {x}");
    }
}

/// TensorRT-LLM's attention-DP balance (`engine::DpBalance::On`) holds a
/// rank's prompts until every rank has one, so the ranks prefill together:
/// the stalls go, and the prompts wait instead. In the simulator, which
/// runs the engine's rule (`sim::Balance`), a token at 20 requests a
/// second takes 29 ms instead of 45, and the first token 0.77 s instead
/// of 0.09. The steady state lines the ranks up and adds the mean hold
/// in closed form (`analytic::Shape::held`): within 15 % of the
/// simulator's TPOT, and of its median TTFT within 35 % (it counts the
/// wait for every rank from an empty queue; the simulator's ranks often
/// still hold a prompt). Other engines have no such switch and say so.
#[test]
fn attention_dp_balance_trades_first_token_for_the_stalls() {
    use planner_core::diagnostics::{DiagnosticKind, IgnoredLever};
    use planner_core::engine::{DpBalance, Engine};
    use planner_core::request::{Arrival, Lengths};
    use planner_core::units::Frequency;
    let plan = |balance: Option<DpBalance>, rate: f64, lens: Lengths| {
        let mut p = offline(qwen3_235b(), GpuId::H200Sxm, (1, 8, 8), 1000, 1000);
        p.levers.engine_knobs.attention_dp_balance = balance;
        if let Workload::Inference(w) = &mut p.workload {
            let s = w.stream.as_mut().expect("a stream");
            s.arrival = Arrival::Poisson {
                rate: Frequency::per_second(rate),
            };
            s.prompt = lens.clone();
            s.output = lens;
        }
        p
    };
    let near = |x: f64, y: f64, tol: f64| (x - y).abs() <= tol * y;
    let fixed = Lengths::Fixed { tokens: 1000 };
    let uniform = Lengths::Uniform {
        min: 200,
        max: 1800,
    };
    let off = planner_core::serving::simulate(&plan(None, 20.0, fixed.clone())).expect("a stream");
    for (rate, lens) in [(20.0, fixed), (5.0, uniform)] {
        let p = plan(Some(DpBalance::On), rate, lens);
        let a = planner_core::serving::analytic(&p).expect("a stream");
        let s = planner_core::serving::simulate(&p).expect("a stream");
        println!(
            "balanced, {rate} req/s: steady state {:.1} ms/token, TTFT p50 {:.0} ms; simulator {:.1} ms/token, TTFT p50 {:.0} ms",
            a.tpot.as_secs() * 1e3,
            a.ttft.p50.as_secs() * 1e3,
            s.tpot.p50.as_secs() * 1e3,
            s.ttft.p50.as_secs() * 1e3
        );
        assert!(near(a.tpot.as_secs(), s.tpot.p50.as_secs(), 0.15), "{rate}");
        assert!(
            near(a.ttft.p50.as_secs(), s.ttft.p50.as_secs(), 0.35),
            "{rate}"
        );
        if rate == 20.0 {
            assert!(s.tpot.p50.as_secs() < 0.75 * off.tpot.p50.as_secs());
            assert!(s.ttft.p50.as_secs() > 3.0 * off.ttft.p50.as_secs());
        }
    }
    let mut p = plan(Some(DpBalance::On), 20.0, Lengths::Fixed { tokens: 1000 });
    p.levers.engine = Engine::Sglang;
    let r = evaluate(&p);
    assert!(r.diagnostics.iter().any(|d| matches!(
        d.detail,
        DiagnosticKind::LeverIgnored {
            lever: IgnoredLever::DpBalance
        }
    )));
}

/// The same page's one-GPU FP4 rows on a B200 (`trtllm-bench`, TP 1):
/// NVIDIA's NVFP4 checkpoints of Qwen3-30B-A3B (MoE, no collective at
/// all) and Llama 3.3 70B (dense), NVFP4 weights and compute and an FP8
/// KV cache (planned with MXFP4 for NVFP4 until 2026-12-06). Held out,
/// nothing fitted. What they showed before TensorRT-LLM's CUTLASS MoE
/// backend was priced (`engine::MoeKernel`, 2026-12-06): the dense rows
/// 8–38 % high, where the same harness's dense FP8 rows on H100 and H200
/// are within 8 % at the median, and the MoE rows higher again (median
/// 56.5 %): Blackwell's FP4 MoE path, since one GPU missed as much as
/// eight and Mixtral in FP8 on Hopper does not
/// (`trt_llm_mixtral_fp8_on_hopper`). With the backend's measured cost
/// (tech blog 24: 97 µs a layer + 40 % of the HBM peak, where the
/// general model stands for TRTLLM-Gen's 26 µs + 71 %) the MoE rows miss
/// about as much as the dense ones: what is left is Blackwell's, not
/// the MoE layer's.
#[rustfmt::skip]
#[test]
fn trt_llm_offline_one_b200_fp4() {
    let lens = TRT_LENGTHS;
    let moe = [39_827.0, 37_844.0, 24_953.0, 27_817.0, 25_828.0, 22_051.0, 6_251.0, 17_554.0, 6_142.0, 2_944.0];
    let dense = [11_147.0, 9_922.0, 6_831.0, 7_762.0, 7_007.0, 6_271.0, 1_339.0, 4_783.0, 1_459.0, 665.0];
    let run = |model: ModelChoice, name: &str, measured: &[f64]| {
        let mut errors = Vec::new();
        for (k, &(i, o)) in lens.iter().enumerate() {
            let mut p = offline(model.clone(), GpuId::B200, (1, 1, 1), i, o);
            p.levers.precision.weights = Precision::Nvfp4;
            p.levers.precision.compute = Precision::Nvfp4;
            let a = planner_core::serving::analytic(&p).expect("a stream");
            let e = a.output_tokens_per_second / measured[k] - 1.0;
            println!("{name} B200 FP4 {i}/{o}: measured {:.0}, predicted {:.0} ({:+.1}%)", measured[k], a.output_tokens_per_second, e * 100.0);
            errors.push(e);
        }
        errors
    };
    let m = run(qwen3_30b(), "Qwen3-30B-A3B", &moe);
    let d = run(ModelChoice::Preset(ModelId::Llama31_70b), "Llama 3.3 70B", &dense);
    // The FP4 serving band (`uncertainty.rs`) holds these rows' 10th
    // percentile in time; none is slow.
    let band = planner_core::uncertainty::ValidationBasis::Fp4Serving.band(1);
    let time: Vec<f64> = m.iter().chain(&d).map(|e| 1.0 / (1.0 + e) - 1.0).collect();
    assert_band_holds("FP4 serving, time", band, &time, (0.02, 0.22));
    // As measured on 2026-12-06, with FP4 GEMMs at their measured rate on
    // the B200 (`catalog::mamf`, 63.4 % of the peak), TensorRT-LLM's host
    // charged per running sequence (`Engine::host`) and its CUTLASS MoE
    // backend priced (`engine::MoeKernel::CutlassFp4`): every row high
    // but the MoE 20,000 / 2,000 (−9.1 %); MoE median |error| 30.6 %,
    // worst 37.6 % (1,000 / 1,000; 56.5 / 75.1 % before the backend, with
    // MXFP4 for NVFP4); dense median 26.1 %, worst 37.6 % (500 / 2,000;
    // 26.1 / 37.9 % with MXFP4). Medians here are the upper middle row. A change that moves these is a change to the
    // model.
    assert!(m.iter().filter(|e| **e < 0.0).count() <= 1 && d.iter().all(|e| *e > 0.0), "{m:?} {d:?}");
    let (mm, mw) = median_and_worst(m.iter().map(|e| e.abs()).collect());
    let (dm, dw) = median_and_worst(d.iter().map(|e| e.abs()).collect());
    assert!(mm <= 0.31 && mw <= 0.38, "{mm} {mw}");
    assert!(dm <= 0.27 && dw <= 0.38, "{dm} {dw}");
    // The MoE layer's own miss is gone: the two models miss alike.
    assert!((mm - dm).abs() <= 0.06, "{mm} {dm}");
}

/// NVIDIA's DeepSeek-R1 throughput row on 8 H200 (TensorRT-LLM's
/// "Best performance practice on DeepSeek-R1" guide, the H200
/// max-throughput command, as a research pass recorded it): FP8
/// block-scaled weights, attention DP on 8 ranks with experts over 8
/// (`--tp 8 --ep 8`, `enable_attention_dp`), MTP off, `--max_batch_size
/// 128 --max_num_tokens 1151 --kv_cache_free_gpu_mem_fraction 0.8`, 5,120
/// requests of 1,024 / 2,048 fixed tokens at concurrency 1,024: 11,489
/// output tokens/s. The KV format is not stated; BF16 (the checkpoint's
/// default) is assumed. Held out, nothing fitted: predicted 71 % high
/// (2026-12-05; 81 % before the layers' small kernels were counted by
/// structure), the MoE serving miss of the Qwen3 rows on another model.
#[test]
fn trt_llm_deepseek_r1_h200() {
    use planner_core::request::Arrival;
    let mut p = offline(
        ModelChoice::Preset(ModelId::DeepseekV3),
        GpuId::H200Sxm,
        (1, 8, 8),
        1024,
        2048,
    );
    p.levers.precision.kv_cache = Precision::Bf16;
    p.levers.engine_knobs.max_seqs = Some(128);
    p.levers.engine_knobs.memory_fraction = Some(0.8);
    p.levers.prefill_chunk = Some(1151);
    if let Workload::Inference(w) = &mut p.workload {
        w.stream.as_mut().expect("a stream").arrival = Arrival::Concurrency { clients: 1024 };
    }
    assert_eq!(planner_core::evaluate(&p).verdict, Verdict::Fits);
    let a = planner_core::serving::analytic(&p).expect("a stream");
    let e = a.output_tokens_per_second / 11_489.0 - 1.0;
    println!(
        "DeepSeek-R1 8xH200 ADP8 EP8 1024/2048: measured 11489, predicted {:.0} ({:+.1}%), {:.0} running a rank",
        a.output_tokens_per_second,
        e * 100.0,
        a.running
    );
    assert!((0.6..0.8).contains(&e), "{e}");
    // The MoE serving band, fitted on the Qwen3 rows, reaches it.
    let band = planner_core::uncertainty::ValidationBasis::MoeServing.band(8);
    assert!(
        band.fast >= 1.0 - 11_489.0 / a.output_tokens_per_second,
        "{}",
        band.fast
    );
}

/// An SGLang server with tensor parallelism over `tp` GPUs (experts split
/// over the same ranks, no attention DP: `--tp N` alone), serving a
/// benchmark client that keeps `clients` requests in flight
/// (`--max-concurrency`) over `requests` prompts of `prompt` / `output`
/// tokens. The KV cache stays in the checkpoint's 16 bits (SGLang's
/// `--kv-cache-dtype auto`).
fn sglang_tp(
    model: ModelChoice,
    (gpu, tp): (GpuId, u32),
    weights: Precision,
    (clients, requests): (u32, u32),
    (prompt, output): (
        planner_core::request::Lengths,
        planner_core::request::Lengths,
    ),
) -> Plan {
    use planner_core::engine::Engine;
    use planner_core::request::{Arrival, RequestStream, Slo};
    let mut p = offline(model, gpu, (tp, 1, 1), 1, 1);
    p.levers.precision.weights = weights;
    p.levers.precision.compute = weights;
    p.levers.precision.kv_cache = Precision::Bf16;
    p.levers.engine = Engine::Sglang;
    if let Workload::Inference(w) = &mut p.workload {
        w.prompt_tokens = prompt.mean().round() as u32;
        w.output_tokens = output.mean().round() as u32;
        w.stream = Some(RequestStream {
            arrival: Arrival::Concurrency { clients },
            prompt,
            output,
            slo: Slo::default(),
            shared_prefix: 0,
            reuse: None,
            requests,
            seed: 0,
        });
    }
    p
}

/// MoE decode steps at low and middle concurrency, where the step is the
/// experts' weight reads, the TP all-reduces and the layers' small
/// kernels: mean TPOT as `bench_serving` prints it (time per output token
/// after the first, prefill stalls included), against the simulator's
/// mean. Held out: nothing in the model was fitted to these rows.
/// - InferenceX (SemiAnalysisAI/InferenceX issue #870, 2026-03-05, an
///   automated sweep): DeepSeek-R1-0528 FP8 on 8 H200, SGLang v0.5.7,
///   TP 8, EP 1, ISL / OSL 1,024, concurrency 8 / 16 / 32 / 64: mean TPOT
///   12.8 / 17.2 / 25.6 / 34.6 ms. The prompt count is not stated (ten
///   per client assumed). Mean E2E 12.22 s at concurrency 8 with 12.8 ms
///   a token and a 331 ms TTFT implies about 930 output tokens, so the
///   lengths are drawn, not fixed: uniform over 820–1,024 (a range ratio
///   of 0.8, mean 922) is assumed.
/// - SGLang's cookbook (sgl-project/sglang `docs_new/cookbook/
///   autoregressive/Qwen/Qwen3.mdx` at 0278d9cb, `DeepSeek/
///   DeepSeek-R1.mdx` at 23b0c3db): 8 B200, `--tp 8`, SGLang 0.5.6,
///   `bench_serving --dataset-name random` at the default range ratio
///   (lengths uniform from 1 to the stated length: the printed totals
///   give 249,831 prompt tokens for 500 prompts of "1,000"), 10 / 80 /
///   500 / 320 prompts at concurrency 1 / 16 / 100 / 64. Qwen3-235B-A22B
///   in BF16; DeepSeek-R1-0528 in its FP8 block checkpoint.
#[test]
fn sglang_moe_decode_steps() {
    use planner_core::request::Lengths;
    let r1 = || ModelChoice::Preset(ModelId::DeepseekV3);
    let upto = |n: u32| Lengths::Uniform { min: 1, max: n };
    let ix = || Lengths::Uniform {
        min: 820,
        max: 1024,
    };
    let requests = |c: u32| match c {
        1 => 10,
        16 => 80,
        64 => 320,
        _ => 500,
    };
    let mut rows: Vec<(String, Plan, f64)> = Vec::new();
    for (c, tpot) in [(8, 12.8), (16, 17.2), (32, 25.6), (64, 34.6)] {
        let p = sglang_tp(
            r1(),
            (GpuId::H200Sxm, 8),
            Precision::Fp8,
            (c, 10 * c),
            (ix(), ix()),
        );
        rows.push((format!("DeepSeek-R1 H200 TP8 1024/1024 c={c}"), p, tpot));
    }
    #[rustfmt::skip]
    let b200 = [
        ("Qwen3-235B", 1000, 1000, 1, 10.12), ("Qwen3-235B", 1000, 1000, 16, 16.36), ("Qwen3-235B", 1000, 1000, 100, 32.94),
        ("Qwen3-235B", 1000, 8000, 1, 10.23), ("Qwen3-235B", 1000, 8000, 16, 14.82), ("Qwen3-235B", 1000, 8000, 64, 23.66),
        ("Qwen3-235B", 8000, 1000, 1, 10.31), ("Qwen3-235B", 8000, 1000, 16, 16.81), ("Qwen3-235B", 8000, 1000, 64, 32.50),
        ("DeepSeek-R1", 1000, 1000, 1, 9.16), ("DeepSeek-R1", 1000, 1000, 16, 17.56), ("DeepSeek-R1", 1000, 1000, 100, 40.11),
        ("DeepSeek-R1", 1000, 8000, 64, 25.94),
    ];
    for (name, i, o, c, tpot) in b200 {
        let (model, w) = if name == "DeepSeek-R1" {
            (r1(), Precision::Fp8)
        } else {
            (qwen3_235b(), Precision::Bf16)
        };
        let p = sglang_tp(
            model,
            (GpuId::B200, 8),
            w,
            (c, requests(c)),
            (upto(i), upto(o)),
        );
        rows.push((format!("{name} B200 TP8 {i}/{o} c={c}"), p, tpot));
    }
    let mut errors = Vec::new();
    for (name, p, measured) in &rows {
        assert_eq!(evaluate(p).verdict, Verdict::Fits, "{name}");
        let s = planner_core::serving::simulate(p).expect("a stream");
        let predicted = s.tpot.mean.as_secs() * 1e3;
        let e = predicted / measured - 1.0;
        println!("{name:<40} mean TPOT measured {measured:>6.2} ms, predicted {predicted:>6.2} ({:+.1}%)", e * 100.0);
        errors.push(e);
    }
    let high = errors.iter().filter(|e| **e > 0.0).count();
    let (median, worst) = median_and_worst(errors.iter().map(|e| e.abs()).collect());
    // As measured on 2026-12-05 (17 rows): median |error| 6.4 %, worst
    // 24.6 % (DeepSeek-R1 on B200 at concurrency 100, short); 4 rows
    // long. Before SGLang's eager prefill was charged its host time
    // (`time::host::engine_prefill_seconds`: each prompt's pass stalls
    // the running batch), 6.9 % and 32.5 %; before the layers' small
    // kernels were counted by structure (`time::work::small_kernels`:
    // MLA, routed and shared experts), every row was short: median
    // 19.6 %, worst 42.1 %. A change that moves these is a change to the
    // model.
    assert_eq!(rows.len(), 17);
    assert!(median <= 0.065 && worst <= 0.25, "{median} {worst}");
    assert!(high >= 4, "{high} rows long");
}

/// MoE without expert parallelism on Hopper in FP8: TensorRT-LLM 0.17's
/// Mixtral 8x7B rows on one and two H100s and H200s (NVIDIA/TensorRT-LLM
/// `docs/source/performance/perf-overview.md` at 258c7540: "All data in
/// the table below was generated using version 0.17"; `trtllm-bench`, FP8
/// weights and KV, identical requests, KV fraction 0.95 "in majority of
/// cases"; 9 lengths). Held out, nothing fitted: they tell whether the
/// Blackwell FP4 MoE rows' miss (Qwen3-30B-A3B one-B200, MLPerf Mixtral)
/// is the MoE layer or the FP4 part.
#[rustfmt::skip]
#[test]
fn trt_llm_mixtral_fp8_on_hopper() {
    let lens = [(128, 128), (128, 2048), (128, 4096), (500, 2000), (1000, 1000), (2048, 128), (2048, 2048), (5000, 500), (20000, 2000)];
    let table: [(GpuId, u32, [f64; 9]); 4] = [
        (GpuId::H200Sxm, 1, [17_157.72, 15_095.21, 9_534.62, 12_105.27, 10_371.36, 2_009.67, 6_940.32, 2_309.10, 1_151.78]),
        (GpuId::H100Sxm, 1, [15_962.49, 8_290.13, 4_784.86, 6_800.60, 6_868.52, 1_892.81, 3_983.10, 1_764.70, 673.70]),
        (GpuId::H200Sxm, 2, [27_825.34, 29_584.05, 21_564.68, 23_410.63, 19_151.19, 3_383.16, 14_007.29, 4_223.68, 2_299.21]),
        (GpuId::H100Sxm, 2, [27_451.13, 22_830.08, 14_237.01, 17_036.04, 15_770.89, 3_333.68, 10_685.85, 3_646.09, 1_757.45]),
    ];
    let mut errors = Vec::new();
    for (gpu, tp, measured) in table {
        for (k, &(i, o)) in lens.iter().enumerate() {
            let mut p = offline(ModelChoice::Preset(ModelId::Mixtral8x7b), gpu, (tp, 1, 1), i, o);
            p.levers.engine_knobs.memory_fraction = Some(0.95);
            let a = planner_core::serving::analytic(&p).expect("a stream");
            let e = a.output_tokens_per_second / measured[k] - 1.0;
            println!("Mixtral 8x7B {gpu:?} TP{tp} {i}/{o}: measured {:.0}, predicted {:.0} ({:+.1}%), running {:.0}", measured[k], a.output_tokens_per_second, e * 100.0, a.running);
            errors.push(e);
        }
    }
    // As measured on 2026-12-06: median |error| 9.6 %, worst +28.5 %
    // (H100 TP 2, 500 / 2,000), high where decoding dominates at large
    // batches (+18 … +28 % on H200), within ±11 % on prompt-heavy rows;
    // about the dense FP8 rows' miss (median 7.2 %). So the MoE layer on
    // Hopper FP8 is near the dense model's accuracy, and the one-B200 and
    // MLPerf FP4 MoE misses (+70 % median, +113 %) belong to Blackwell's
    // FP4 MoE path. A change that moves these is a change to the model.
    let (m, w) = median_and_worst(errors.iter().map(|e| e.abs()).collect());
    assert!(m <= 0.10 && w <= 0.29, "{m} {w}");
}
