//! Held-out validation against the Qwen team's speed benchmarks, the
//! pages their model cards point to: one request at a time generating
//! 2,048 tokens after prompts of 1 to 30,720 tokens, each model on the
//! fewest GPUs that hold it, with Hugging Face transformers' `generate`
//! (speed and peak allocated memory) and with a serving engine (speed).
//! Nothing here was fitted; the bounds pin today's errors so a change
//! shows, and the misses are named (docs/validation.md, "Qwen's speed
//! benchmarks").
//!
//! - Qwen2.5 (QwenLM/Qwen2.5 `docs/source/benchmark/speed_benchmark.rst`,
//!   the last version before the Qwen3 rewrite, commit 2abc0f3 of
//!   2025-04-22): NVIDIA A100 80GB; transformers 4.46.0 on PyTorch 2.3.1
//!   with flash-attn 2.5.8; vLLM 0.6.3 on PyTorch 2.4.0 with
//!   `gpu_memory_utilization` 0.9, `max_model_len` 32,768 and CUDA graphs.
//!   The scripts beside it (`examples/speed-benchmark/`) time one
//!   `generate` call: speed is 2,048 over its wall time, memory the sum of
//!   `torch.cuda.max_memory_allocated` over the GPUs in GiB.
//! - Qwen3 (the same repository, `docs/source/getting_started/
//!   speed_benchmark.md` at 77fb0c1): NVIDIA H20 96GB; transformers 4.51.3
//!   on PyTorch 2.6.0 with flash-attn 2.7.4; SGLang 0.4.6.post1 with
//!   `mem_fraction_static` 0.85, `context_length` 140,000 and mixed
//!   chunks. Speed there is prompt plus generated tokens over the time;
//!   memory in MB, taken as MiB (the scripts' `max_memory_allocated`
//!   divided by 1,024 per step).
//!
//! The A100's form factor is not stated: the SXM part is assumed. Left out:
//! the 64K and 128K prompts (YaRN and other engine settings), the rows
//! with `enforce_eager` or other non-default settings, quantized weights
//! other than FP8 (GPTQ, AWQ), and the 72B on three GPUs (speed and
//! memory: the report holds the first and last pipeline stage, not the
//! middle one).

#[path = "common/qwen3_moe.rs"]
mod qwen3_moe;
use planner_core::catalog::GpuId;
use planner_core::engine::Engine;
use planner_core::evaluate;
use planner_core::hardware::{GpuChoice, Hardware};
use planner_core::model::{Bias, Embeddings, ModelSpec};
use planner_core::plan::{
    CustomModel, Inference, KvCacheLayout, Levers, LogitsScope, ModelChoice, Parallelism, Plan,
    Precisions, Workload,
};
use planner_core::precision::Precision;
use planner_core::report::{TimeKind, TimeReport, Verdict};
use planner_core::request::{Arrival, Lengths, RequestStream};
use qwen3_moe::{qwen3_235b, qwen3_30b};

/// Tokens every request generates.
const OUTPUT: u32 = 2048;

/// Prompt lengths of the rows used.
const PROMPTS: [u32; 4] = [1, 6144, 14336, 30720];

/// A Qwen2/Qwen3 decoder from its `config.json` fields.
struct Qwen {
    name: &'static str,
    layers: u32,
    hidden: u32,
    heads: u32,
    kv_heads: u32,
    head_dim: u32,
    ffn: u32,
    vocab: u32,
    tied: bool,
    /// Qwen2's Q/K/V biases (Qwen3 has none and normalises Q and K).
    qkv_bias: bool,
    /// Parameters the model card states, billions.
    card_params: f64,
}

impl Qwen {
    fn choice(&self) -> ModelChoice {
        let mut spec = ModelSpec {
            head_dim: self.head_dim,
            bias: if self.qkv_bias {
                Bias::QkvOnly
            } else {
                Bias::None
            },
            ..ModelSpec::llama(
                self.layers,
                self.hidden,
                self.heads,
                self.kv_heads,
                self.ffn,
                self.vocab,
                32768,
            )
        };
        if self.tied {
            spec.embeddings = Embeddings::Tied;
        }
        ModelChoice::Custom(CustomModel {
            shipped: None,
            name: self.name.into(),
            spec,
        })
    }
}

/// Qwen2.5 Instruct models (Qwen/Qwen2.5-*-Instruct `config.json`; model
/// cards' "Number of Parameters").
#[rustfmt::skip]
const QWEN25: [Qwen; 7] = [
    Qwen { name: "Qwen2.5-0.5B", layers: 24, hidden: 896, heads: 14, kv_heads: 2, head_dim: 64, ffn: 4864, vocab: 151_936, tied: true, qkv_bias: true, card_params: 0.49 },
    Qwen { name: "Qwen2.5-1.5B", layers: 28, hidden: 1536, heads: 12, kv_heads: 2, head_dim: 128, ffn: 8960, vocab: 151_936, tied: true, qkv_bias: true, card_params: 1.54 },
    Qwen { name: "Qwen2.5-3B", layers: 36, hidden: 2048, heads: 16, kv_heads: 2, head_dim: 128, ffn: 11008, vocab: 151_936, tied: true, qkv_bias: true, card_params: 3.09 },
    Qwen { name: "Qwen2.5-7B", layers: 28, hidden: 3584, heads: 28, kv_heads: 4, head_dim: 128, ffn: 18944, vocab: 152_064, tied: false, qkv_bias: true, card_params: 7.61 },
    Qwen { name: "Qwen2.5-14B", layers: 48, hidden: 5120, heads: 40, kv_heads: 8, head_dim: 128, ffn: 13824, vocab: 152_064, tied: false, qkv_bias: true, card_params: 14.7 },
    Qwen { name: "Qwen2.5-32B", layers: 64, hidden: 5120, heads: 40, kv_heads: 8, head_dim: 128, ffn: 27648, vocab: 152_064, tied: false, qkv_bias: true, card_params: 32.5 },
    Qwen { name: "Qwen2.5-72B", layers: 80, hidden: 8192, heads: 64, kv_heads: 8, head_dim: 128, ffn: 29568, vocab: 152_064, tied: false, qkv_bias: true, card_params: 72.7 },
];

/// Qwen3 dense models (Qwen/Qwen3-* `config.json`, head_dim 128; model
/// cards' "Number of Parameters").
#[rustfmt::skip]
const QWEN3: [Qwen; 6] = [
    Qwen { name: "Qwen3-0.6B", layers: 28, hidden: 1024, heads: 16, kv_heads: 8, head_dim: 128, ffn: 3072, vocab: 151_936, tied: true, qkv_bias: false, card_params: 0.6 },
    Qwen { name: "Qwen3-1.7B", layers: 28, hidden: 2048, heads: 16, kv_heads: 8, head_dim: 128, ffn: 6144, vocab: 151_936, tied: true, qkv_bias: false, card_params: 1.7 },
    Qwen { name: "Qwen3-4B", layers: 36, hidden: 2560, heads: 32, kv_heads: 8, head_dim: 128, ffn: 9728, vocab: 151_936, tied: true, qkv_bias: false, card_params: 4.0 },
    Qwen { name: "Qwen3-8B", layers: 36, hidden: 4096, heads: 32, kv_heads: 8, head_dim: 128, ffn: 12288, vocab: 151_936, tied: false, qkv_bias: false, card_params: 8.2 },
    Qwen { name: "Qwen3-14B", layers: 40, hidden: 5120, heads: 40, kv_heads: 8, head_dim: 128, ffn: 17408, vocab: 151_936, tied: false, qkv_bias: false, card_params: 14.8 },
    Qwen { name: "Qwen3-32B", layers: 64, hidden: 5120, heads: 64, kv_heads: 8, head_dim: 128, ffn: 25600, vocab: 151_936, tied: false, qkv_bias: false, card_params: 32.8 },
];

/// One batch-1 request of `prompt` tokens on `gpus` GPUs: transformers
/// splits the layers over them (`device_map="auto"`, one after another),
/// an engine shards each layer (TP).
fn plan(model: ModelChoice, gpu: GpuId, engine: Engine, gpus: u32, prompt: u32, fp8: bool) -> Plan {
    let hf = engine == Engine::HfTransformers;
    let w = if fp8 { Precision::Fp8 } else { Precision::Bf16 };
    let name = match &model {
        ModelChoice::Custom(c) => c.name.clone(),
        ModelChoice::Preset(id) => format!("{id:?}"),
    };
    Plan {
        version: planner_core::plan::SCHEMA_VERSION,
        name: format!("{name} {engine:?} ×{gpus} prompt {prompt}"),
        model,
        workload: Workload::Inference(Inference {
            prompt_tokens: prompt,
            output_tokens: OUTPUT,
            batch: 1,
            logits: LogitsScope::LastToken,
            stream: None,
        }),
        levers: Levers {
            precision: Precisions {
                weights: w,
                kv_cache: Precision::Bf16,
                activations: Precision::Bf16,
                compute: w,
                ..Precisions::default()
            },
            parallel: Parallelism {
                tp: if hf { 1 } else { gpus },
                pp: if hf { gpus } else { 1 },
                ..Parallelism::default()
            },
            kv_cache: if hf {
                KvCacheLayout::Contiguous { reserve_tokens: 0 }
            } else {
                KvCacheLayout::Paged {
                    block_tokens: engine.block_tokens(),
                }
            },
            engine,
            ..Levers::default()
        },
        hardware: Hardware::new(GpuChoice::Preset(gpu), gpus),
        overheads: Default::default(),
        efficiency: Default::default(),
        economics: Default::default(),
        distillation: None,
    }
}

/// The request's wall time: `generate`'s prefill and decode steps, or,
/// for an engine, one client's closed loop through its simulator (the
/// engine's host work per iteration included), called in-process as the
/// benchmarks do (no server front end).
fn seconds(mut p: Plan, prompt: u32) -> f64 {
    if p.levers.engine == Engine::HfTransformers {
        let r = evaluate(&p);
        assert_eq!(r.verdict, Verdict::Fits, "{}", p.name);
        let TimeReport::Inference(t) = &r.time else {
            unreachable!("not a serving report")
        };
        return t.request_latency.base();
    }
    if let Workload::Inference(i) = &mut p.workload {
        i.stream = Some(RequestStream {
            arrival: Arrival::Concurrency { clients: 1 },
            prompt: Lengths::Fixed { tokens: prompt },
            output: Lengths::Fixed { tokens: OUTPUT },
            slo: Default::default(),
            shared_prefix: 0,
            reuse: None,
            requests: 2,
            seed: 0,
        });
    }
    p.levers.engine_knobs.front_end_ms = Some(0.0);
    let r = evaluate(&p);
    assert_eq!(r.verdict, Verdict::Fits, "{}", p.name);
    r.simulated_stream()
        .expect("a stream is simulated")
        .latency
        .p50
        .base()
}

/// Peak allocated memory summed over the plan's devices, GiB.
fn allocated_gib(p: &Plan) -> f64 {
    let r = evaluate(p);
    r.devices.iter().map(|d| d.hbm_allocated().as_gib()).sum()
}

/// Published (tokens/s, memory) per prompt of [`PROMPTS`]; (0, 0) where
/// the row is left out.
type Published = [(f64, f64); 4];

fn err(pred: f64, measured: f64) -> f64 {
    pred / measured - 1.0
}

/// The median of the errors' magnitudes (the upper middle of an even count).
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.abs().total_cmp(&b.abs()));
    v[v.len() / 2].abs()
}

#[test]
fn the_configs_give_the_model_cards_parameter_counts() {
    for q in QWEN25.iter().chain(&QWEN3) {
        let n = q.choice().spec().params().total() / 1e9;
        assert!(
            (n / q.card_params - 1.0).abs() < 0.02,
            "{}: {n:.3} B against the card's {}",
            q.name,
            q.card_params
        );
    }
}

/// Qwen2.5 on one A100 (two for the 72B): transformers' peak allocated
/// memory (weights, the contiguous cache and the prefill's working set,
/// logits of the last position only) and its speed, and vLLM 0.6.3's.
#[test]
fn qwen25_on_a100() {
    #[rustfmt::skip]
    let hf: [(usize, u32, Published); 7] = [
        // (model, GPUs, [(tokens/s, GiB)] per prompt of PROMPTS)
        (0, 1, [(47.40, 0.97), (47.45, 1.23), (47.11, 1.60), (47.16, 2.34)]),
        (1, 1, [(39.68, 2.95), (40.88, 3.43), (40.43, 4.16), (38.59, 5.62)]),
        (2, 1, [(30.80, 5.95), (32.20, 6.59), (31.72, 7.47), (25.37, 9.30)]),
        (3, 1, [(40.38, 14.38), (38.76, 15.38), (29.78, 16.91), (18.83, 19.97)]),
        (4, 1, [(24.74, 28.08), (20.51, 29.50), (13.92, 31.95), (8.20, 36.85)]),
        (5, 1, [(17.54, 61.58), (12.49, 63.72), (8.95, 67.31), (5.59, 74.47)]),
        (6, 2, [(8.73, 136.20), (6.39, 140.00), (0.0, 0.0), (0.0, 0.0)]),
    ];
    let (mut mem, mut short, mut long) = (vec![], vec![], vec![]);
    println!("Qwen2.5, transformers 4.46 on A100 80GB: tokens/s and GiB, published → predicted");
    for (m, gpus, rows) in hf {
        let q = &QWEN25[m];
        for (&prompt, (speed, gib)) in PROMPTS.iter().zip(rows) {
            if speed == 0.0 {
                continue;
            }
            let p = plan(
                q.choice(),
                GpuId::A100Sxm80,
                Engine::HfTransformers,
                gpus,
                prompt,
                false,
            );
            let s = f64::from(OUTPUT) / seconds(p.clone(), prompt);
            let g = allocated_gib(&p);
            let (es, eg) = (err(s, speed), err(g, gib));
            println!(
                "  {:<13} ×{gpus} {prompt:>6}: {speed:6.2} → {s:6.2} ({:+6.1} %)   {gib:7.2} → {g:7.2} ({:+5.1} %)",
                q.name,
                es * 100.0,
                eg * 100.0
            );
            mem.push(eg);
            // A decode step that reads little cache: the prompt of one
            // token, or 6,144 below 7B.
            if prompt == 1 || (prompt == 6144 && m < 4) {
                short.push(es);
            } else if m >= 3 && prompt >= 14336 {
                long.push(es);
            }
        }
    }
    let (mm, mw) = (
        median(mem.clone()),
        mem.iter().fold(0.0f64, |a, e| a.max(e.abs())),
    );
    println!(
        "  memory: {} rows, median {:.1} %, worst {:.1} %",
        mem.len(),
        mm * 100.0,
        mw * 100.0
    );
    assert_eq!(mem.len(), 26);
    assert!(mm < 0.02 && mw < 0.05, "memory: median {mm}, worst {mw}");
    // Short caches: the host sets the pace (eager PyTorch), 6-21 % fast
    // on this host against the H200 fixtures' fit (`Efficiency::host_op`).
    assert!(short.iter().all(|e| (0.0..0.25).contains(e)), "{short:?}");
    // Named miss: past ~14K cached tokens transformers' decode slows far
    // more than its cache reads (1.5-3.1× the prediction).
    assert!(long.iter().all(|e| (0.4..2.3).contains(e)), "{long:?}");

    #[rustfmt::skip]
    let vllm: [(usize, u32, [f64; 4]); 7] = [
        (0, 1, [311.55, 304.79, 290.28, 264.51]),
        (1, 1, [183.33, 176.68, 168.69, 152.04]),
        (2, 1, [127.61, 123.15, 117.35, 105.88]),
        (3, 1, [84.28, 80.70, 77.69, 70.33]),
        (4, 1, [46.30, 43.83, 41.91, 37.18]),
        (5, 2, [0.0, 0.0, 0.0, 31.82]),
        (6, 4, [31.37, 29.90, 30.10, 27.53]),
    ];
    let mut e = vec![];
    println!("Qwen2.5, vLLM 0.6.3 (V0) on A100 80GB: tokens/s, published → predicted");
    for (m, gpus, rows) in vllm {
        let q = &QWEN25[m];
        for (&prompt, speed) in PROMPTS.iter().zip(rows) {
            if speed == 0.0 {
                continue;
            }
            let p = plan(
                q.choice(),
                GpuId::A100Sxm80,
                Engine::VllmV0,
                gpus,
                prompt,
                false,
            );
            let s = f64::from(OUTPUT) / seconds(p, prompt);
            e.push(err(s, speed));
            println!(
                "  {:<13} TP{gpus} {prompt:>6}: {speed:7.2} → {s:7.2} ({:+6.1} %)",
                q.name,
                err(s, speed) * 100.0
            );
        }
    }
    println!(
        "  vLLM: {} rows, median {:.1} %",
        e.len(),
        median(e.clone()) * 100.0
    );
    assert_eq!(e.len(), 25);
    // Named miss: V0's 4 ms of serial host work a step (measured on
    // 0.5.x, `Engine::host`) is more than 0.6.3 spends with its
    // asynchronous output processing, so the small models are slow by up
    // to 40 %; from 7B the weights set the pace and the rows are within
    // −13 … +6 %.
    assert!(e.iter().all(|x| (-0.42..0.12).contains(x)), "{e:?}");
    assert!(median(e) < 0.13);
}

/// Qwen3 on one H20: transformers' memory and speed, SGLang's speed in
/// BF16 and FP8. The H20 has an H100's memory system (4.0 TB/s) with a
/// sixth of its tensor rate (148 dense BF16, 296 FP8 TFLOPS), so an FP8
/// decode step's GEMMs, padded to 64-row Hopper MMA tiles, take longer
/// than its weight reads (`time::work::mma_rows`).
#[test]
fn qwen3_on_h20() {
    #[rustfmt::skip]
    let hf: [Published; 6] = [
        // [(tokens/s, MiB)] per prompt of PROMPTS; speed counts the prompt.
        [(58.57, 1394.0), (154.82, 2066.0), (168.48, 2963.0), (175.93, 4755.0)],
        [(59.83, 3412.0), (238.53, 4213.0), (352.59, 5109.0), (418.13, 6902.0)],
        [(45.94, 7973.0), (159.95, 8860.0), (195.31, 10012.0), (217.97, 12317.0)],
        [(45.32, 15947.0), (146.12, 16811.0), (183.29, 17963.0), (208.98, 20267.0)],
        [(40.66, 28402.0), (108.52, 29495.0), (136.36, 30775.0), (155.38, 33336.0)],
        [(26.24, 62751.0), (51.41, 64583.0), (62.41, 66632.0), (69.16, 70728.0)],
    ];
    let (mut mem, mut first, mut long) = (vec![], vec![], vec![]);
    println!("Qwen3, transformers 4.51 on H20: tokens/s (prompt included) and MiB, published → predicted");
    for (m, (q, rows)) in QWEN3.iter().zip(hf).enumerate() {
        for (&prompt, (speed, mib)) in PROMPTS.iter().zip(rows) {
            let p = plan(
                q.choice(),
                GpuId::H20,
                Engine::HfTransformers,
                1,
                prompt,
                false,
            );
            let s = f64::from(prompt + OUTPUT) / seconds(p.clone(), prompt);
            let g = allocated_gib(&p) * 1024.0;
            println!(
                "  {:<11} {prompt:>6}: {speed:7.2} → {s:7.2} ({:+6.1} %)   {mib:6.0} → {g:6.0} ({:+5.1} %)",
                q.name,
                err(s, speed) * 100.0,
                err(g, mib) * 100.0
            );
            mem.push((prompt, err(g, mib)));
            if m >= 2 && prompt >= 14336 {
                long.push(err(s, speed));
            }
            if prompt == 1 {
                first.push(err(s, speed));
            }
        }
    }
    // Memory: −1 … +7 % at prompts up to 6,144; named miss, 4-20 % over
    // at 14,336 and 30,720 tokens (transformers 4.51's prefill peaks lower than the
    // model's working set; on 4.46 above it was within 5 %).
    for (prompt, e) in &mem {
        let bound = if *prompt <= 6144 {
            -0.01..0.07
        } else {
            -0.01..0.20
        };
        assert!(bound.contains(e), "prompt {prompt}: {e}");
    }
    // The host sets the pace at a one-token prompt; this host is 22-25 %
    // quicker than the fit (`Efficiency::host_op`, inside its range).
    assert!(
        first.iter().all(|e| (-0.26..-0.20).contains(e)),
        "{first:?}"
    );
    // Named miss, as on the A100: past ~14K cached tokens (4B and up) the
    // decode is 1.4-3.3× slower than predicted.
    assert!(long.iter().all(|e| (0.3..2.4).contains(e)), "{long:?}");

    #[rustfmt::skip]
    let sglang: [([f64; 4], [f64; 4]); 6] = [
        // (BF16, FP8) tokens/s per prompt of PROMPTS; speed counts the prompt.
        ([414.17, 1426.46, 2478.02, 3577.42], [458.03, 1572.95, 2689.08, 3819.86]),
        ([227.80, 838.28, 1525.71, 2439.03], [333.90, 1198.20, 2095.61, 3165.32]),
        ([133.13, 466.19, 789.25, 1165.75], [200.61, 662.26, 1066.23, 1467.71]),
        ([81.73, 296.25, 524.70, 832.67], [150.25, 516.64, 859.92, 1242.24]),
        ([47.10, 174.85, 317.56, 525.80], [97.11, 342.95, 587.33, 880.72]),
        ([20.72, 77.82, 143.08, 240.75], [46.17, 165.71, 287.60, 436.59]),
    ];
    println!("Qwen3, SGLang 0.4.6 on H20: tokens/s (prompt included), published → predicted");
    let (mut bf, mut f8, mut small) = (vec![], vec![], vec![]);
    for (m, (q, (bf16, fp8))) in QWEN3.iter().zip(sglang).enumerate() {
        for (fp, rows) in [(false, bf16), (true, fp8)] {
            for (&prompt, speed) in PROMPTS.iter().zip(rows) {
                let mut p = plan(q.choice(), GpuId::H20, Engine::Sglang, 1, prompt, fp);
                p.levers.engine_knobs.memory_fraction = Some(0.85);
                let s = f64::from(prompt + OUTPUT) / seconds(p, prompt);
                let e = err(s, speed);
                println!(
                    "  {:<11} {} {prompt:>6}: {speed:8.2} → {s:8.2} ({:+6.1} %)",
                    q.name,
                    if fp { "FP8 " } else { "BF16" },
                    e * 100.0
                );
                if m >= 2 {
                    if fp { &mut f8 } else { &mut bf }.push(e);
                } else {
                    small.push(e);
                }
            }
        }
    }
    // From 4B the FP8 rows are fast by 15-53 % (the 4B the most, the 32B
    // by 15-19 %; by 48-97 % before the padded tiles). Named miss: the BF16
    // rows are fast by 74-120 %; their cuBLAS GEMMs are not padded
    // (`mma_rows`), and this run's BF16 decode, at a third of the H20's
    // bandwidth, is slower than the FP8 one by more than the weight bytes
    // say (docs/validation.md). The 0.6B and 1.7B are host-paced, within
    // −28 … +61 %.
    assert!(f8.iter().all(|e| (0.12..0.56).contains(e)), "{f8:?}");
    assert!(bf.iter().all(|e| (0.70..1.25).contains(e)), "{bf:?}");
    assert!(small.iter().all(|e| (-0.30..0.65).contains(e)), "{small:?}");
}

/// Why the H20's FP8 rows moved: at batch 1 its FP8 decode GEMMs, padded
/// to a 64-row tile, take longer than reading their weights; an H100's
/// hide under the read, and 16-bit GEMMs (cuBLAS) are not padded. Without
/// the padding every case is paced by the read.
#[test]
fn an_h20_fp8_decode_step_waits_on_padded_tensor_work() {
    let q = &QWEN3[3];
    for (gpu, fp8, compute_bound) in [
        (GpuId::H20, true, true),
        (GpuId::H100Sxm, true, false),
        (GpuId::H20, false, false),
    ] {
        let p = plan(q.choice(), gpu, Engine::Sglang, 1, 1000, fp8);
        let r = evaluate(&p);
        let TimeReport::Inference(t) = &r.time else {
            unreachable!("not a serving report")
        };
        let part = |k: TimeKind| {
            t.decode
                .iter()
                .filter(|x| x.kind == k)
                .map(|x| x.exposed.base())
                .sum::<f64>()
        };
        let (gemm, read) = (part(TimeKind::Gemm), part(TimeKind::WeightRead));
        println!(
            "{gpu:?} FP8 {fp8}: GEMM {:.2} ms, weight read {:.2} ms",
            gemm * 1e3,
            read * 1e3
        );
        assert_eq!(
            gemm > read,
            compute_bound,
            "{gpu:?} FP8 {fp8}: {gemm} against {read}"
        );
    }
}

/// The two Qwen3-MoE models of the same page under SGLang on H20s: the
/// 30B-A3B on one (BF16 and FP8), the 235B-A22B on eight in BF16 and four
/// in FP8 (TP over every GPU, the experts split with it); and the 30B's
/// peak allocated memory under transformers. Its transformers speed
/// (1.9 tokens/s at a one-token prompt: the experts run one at a time
/// from Python) is left out.
#[test]
fn qwen3_moe_on_h20() {
    #[rustfmt::skip]
    let rows: [(&str, ModelChoice, u32, bool, [f64; 4]); 4] = [
        ("30B-A3B", qwen3_30b(), 1, false, [137.18, 490.10, 849.62, 1283.94]),
        ("30B-A3B", qwen3_30b(), 1, true, [155.55, 551.34, 945.13, 1405.91]),
        ("235B-A22B", qwen3_235b(), 8, false, [74.50, 289.03, 546.73, 979.41]),
        ("235B-A22B", qwen3_235b(), 4, true, [71.65, 275.16, 514.23, 887.90]),
    ];
    println!("Qwen3-MoE, SGLang 0.4.6 on H20: tokens/s (prompt included), published → predicted");
    let mut e = vec![];
    for (name, model, gpus, fp8, speeds) in rows {
        for (&prompt, speed) in PROMPTS.iter().zip(speeds) {
            let mut p = plan(model.clone(), GpuId::H20, Engine::Sglang, gpus, prompt, fp8);
            p.levers.engine_knobs.memory_fraction = Some(0.85);
            let s = f64::from(prompt + OUTPUT) / seconds(p, prompt);
            let x = err(s, speed);
            println!(
                "  {name:<10} TP{gpus} {} {prompt:>6}: {speed:8.2} → {s:8.2} ({:+6.1} %)",
                if fp8 { "FP8 " } else { "BF16" },
                x * 100.0
            );
            e.push((name, x));
        }
    }
    // Named miss: fast by 38-47 % (the 30B-A3B) and 19-25 % (the
    // 235B-A22B), BF16 and FP8 alike; not investigated.
    for (name, x) in &e {
        let bound = if *name == "30B-A3B" {
            0.30..0.52
        } else {
            0.14..0.30
        };
        assert!(bound.contains(x), "{name}: {x}");
    }

    // transformers' peak allocated memory of the 30B-A3B in BF16, MiB.
    for (&prompt, mib) in PROMPTS.iter().zip([58462.0, 59037.0, 59806.0, 61342.0]) {
        let p = plan(
            qwen3_30b(),
            GpuId::H20,
            Engine::HfTransformers,
            1,
            prompt,
            false,
        );
        let g = allocated_gib(&p) * 1024.0;
        println!(
            "  30B-A3B transformers {prompt:>6}: {mib:6.0} → {g:6.0} MiB ({:+5.1} %)",
            err(g, mib) * 100.0
        );
        assert!((-0.01..0.05).contains(&err(g, mib)), "prompt {prompt}");
    }
}
