//! Validation of the serving time model against measured single-request
//! latencies, with the same default efficiencies as training.
//!
//! At concurrency 1 a server's time to first token is one prefill and its
//! inter-token latency one decode step, which is what the planner reports
//! as TTFT and TPOT. Higher concurrencies add queueing and scheduling that
//! a plan does not describe, so they are not used here.
//! `cargo test -p planner-core --test serve_validation -- --nocapture`
//! prints the table.

use planner_core::catalog::{GpuId, ModelId};
use planner_core::evaluate;
use planner_core::hardware::{GpuChoice, Hardware};
use planner_core::plan::{
    Inference, Levers, LogitsScope, ModelChoice, Parallelism, Plan, Precisions, Workload,
};
use planner_core::precision::Precision;
use planner_core::report::{TimeReport, Verdict};

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
