//! Serving as the engines run it (issue 13): engine KV capacity against
//! vLLM's own arithmetic, the simulator's determinism and monotone
//! invariants, and the analytic approximation against the simulator.
//! `cargo test -p planner-core --test serving -- --nocapture` prints the
//! comparison grid.

use planner_core::catalog::{GpuId, ModelId};
use planner_core::engine::Engine;
use planner_core::evaluate;
use planner_core::hardware::{GpuChoice, Hardware};
use planner_core::plan::{
    Inference, Levers, LogitsScope, ModelChoice, Parallelism, Plan, Precisions, Workload,
};
use planner_core::precision::Precision;
use planner_core::report::ServingReport;
use planner_core::request::{Arrival, Lengths, RequestStream, Slo};
use planner_core::units::{Frequency, Seconds};

fn plan(model: ModelId, gpu: GpuId, tp: u32, engine: Engine, prompt: u32, output: u32) -> Plan {
    Plan {
        version: 1,
        name: String::new(),
        model: ModelChoice::Preset(model),
        workload: Workload::Inference(Inference {
            prompt_tokens: prompt,
            output_tokens: output,
            batch: 1,
            logits: LogitsScope::LastToken,
            stream: None,
        }),
        levers: Levers {
            parallel: Parallelism {
                tp,
                ..Parallelism::default()
            },
            engine,
            ..Levers::default()
        },
        hardware: Hardware::new(GpuChoice::Preset(gpu), tp),
        overheads: Default::default(),
        efficiency: Default::default(),
        economics: Default::default(),
        distillation: None,
    }
}

fn fp8(mut p: Plan) -> Plan {
    p.levers.precision = Precisions {
        weights: Precision::Fp8,
        compute: Precision::Fp8,
        kv_cache: Precision::Fp8,
        ..Precisions::default()
    };
    p
}

fn serving(p: &Plan) -> ServingReport {
    evaluate(p)
        .serving
        .expect("a serving plan has a serving section")
}

fn with_stream(mut p: Plan, arrival: Arrival, prompt: Lengths, output: Lengths) -> Plan {
    if let Workload::Inference(i) = &mut p.workload {
        i.stream = Some(RequestStream {
            arrival,
            prompt,
            output,
            slo: Slo::default(),
            requests: 400,
            seed: 7,
        });
    }
    p
}

/// The example: Llama 3.1 70B at a 128K context on 8×H100 80GB,
/// TP8, under vLLM's defaults (`gpu_memory_utilization` 0.9, 16-token
/// blocks, an 8192-token budget). vLLM's own arithmetic: 0.9 × 80 GB per
/// GPU, less 141 GB of BF16 weights over 8 GPUs and the activation peak,
/// over 320 KiB of BF16 KV per token (80 layers × 8 KV heads × 128 × 2 ×
/// 2 B), over 131,072 tokens per request ≈ 10; with FP8 weights and FP8
/// KV ≈ 24.
#[test]
fn seventy_b_at_128k_holds_about_ten_bf16_and_twenty_four_fp8() {
    let p = plan(
        ModelId::Llama31_70b,
        GpuId::H100Sxm,
        8,
        Engine::Vllm,
        130_048,
        1024,
    );
    let bf16 = serving(&p);
    let fp8 = serving(&fp8(p.clone()));
    println!(
        "bf16 {:.2} fp8 {:.2}",
        bf16.max_concurrency, fp8.max_concurrency
    );
    assert!(
        (9.0..=11.0).contains(&bf16.max_concurrency),
        "{}",
        bf16.max_concurrency
    );
    assert!(
        (22.0..=26.0).contains(&fp8.max_concurrency),
        "{}",
        fp8.max_concurrency
    );
    // The static-batch inverse answer agrees once the engine's token
    // budget bounds the prefill peak.
    let limits = evaluate(&p).inference.unwrap();
    assert!(limits.max_batch >= 9, "{}", limits.max_batch);
}
