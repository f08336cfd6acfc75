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

fn poisson(rate: f64) -> Arrival {
    Arrival::Poisson {
        rate: Frequency::per_second(rate),
    }
}

fn fixed(tokens: u32) -> Lengths {
    Lengths::Fixed { tokens }
}

/// The simulator is a pure function of the plan: the same seed gives the
/// same figures, bit for bit.
#[test]
fn the_simulator_is_deterministic_for_a_seed() {
    let p = with_stream(
        plan(ModelId::Llama31_8b, GpuId::H100Sxm, 1, Engine::Vllm, 0, 0),
        poisson(8.0),
        Lengths::Uniform { min: 100, max: 900 },
        Lengths::Uniform { min: 20, max: 300 },
    );
    let (a, b) = (serving(&p), serving(&p));
    assert_eq!(a, b);
    let s = a.simulated.unwrap();
    assert_eq!(s.completed, s.requests);
    assert!(s.ttft.p99 >= s.ttft.p50 && s.tpot.p99 >= s.tpot.p50);
}

/// Relative difference of `a` from `b`.
fn rel(a: f64, b: f64) -> f64 {
    (a - b) / b
}

/// The analytic approximation against the simulator over a grid of
/// models, lengths and loads (fractions of the analytic largest rate).
/// The domain where they agree is stated in docs/validation.md.
#[test]
fn analytic_agrees_with_the_simulator_below_saturation() {
    let cases = [
        (ModelId::Llama31_8b, 1, 512, 128),
        (ModelId::Llama31_8b, 1, 2000, 200),
        (ModelId::Llama31_70b, 4, 512, 256),
        (ModelId::Llama31_70b, 4, 4000, 100),
    ];
    let mut worst = [0.0f64; 3];
    println!("model              in   out  load  rate   tpot sim/an ms   ttft p50 sim/an ms   tok/s sim/an");
    for (model, tp, prompt, output) in cases {
        let base = plan(model, GpuId::H100Sxm, tp, Engine::Vllm, prompt, output);
        let probe = with_stream(base.clone(), poisson(1.0), fixed(prompt), fixed(output));
        let max = serving(&probe).analytic.unwrap().max_rate;
        assert!(max > 0.0);
        for load in [0.2, 0.4, 0.6, 0.8, 0.95, 1.3] {
            let mut p = with_stream(
                base.clone(),
                poisson(load * max),
                fixed(prompt),
                fixed(output),
            );
            if let Workload::Inference(i) = &mut p.workload {
                i.stream.as_mut().unwrap().requests = 1500;
            }
            let s = serving(&p);
            let (sim, an) = (s.simulated.unwrap(), s.analytic.unwrap());
            // The largest rate is where the steady state ends.
            assert_eq!(an.stable, load < 1.0, "{model:?} at {load}");
            let e = [
                rel(an.tpot.as_secs(), sim.tpot.mean.as_secs()),
                rel(an.ttft.p50.as_secs(), sim.ttft.p50.as_secs()),
                rel(an.output_tokens_per_second, sim.output_tokens_per_second),
            ];
            println!(
                "{:<18} {prompt:>5} {output:>4} {load:>4} {:>6.2} {:>8.2}/{:<8.2} {:>8.1}/{:<8.1} {:>8.0}/{:<8.0}",
                format!("{model:?}"),
                load * max,
                sim.tpot.mean.as_millis(),
                an.tpot.as_millis(),
                sim.ttft.p50.as_millis(),
                an.ttft.p50.as_millis(),
                sim.output_tokens_per_second,
                an.output_tokens_per_second
            );
            if load > 1.0 {
                // Past the largest rate the simulated replica saturates
                // near it: completions stop following arrivals.
                let r = sim.requests_per_second / max;
                assert!(
                    (0.85..=1.15).contains(&r),
                    "{model:?}: saturates at {r:.2}× the analytic rate"
                );
            }
            if load <= 0.6 {
                for k in 0..3 {
                    worst[k] = worst[k].max(e[k].abs());
                }
            }
        }
    }
    println!(
        "worst |error| up to 0.6 load: tpot {:.3} ttft p50 {:.3} throughput {:.3}",
        worst[0], worst[1], worst[2]
    );
    // The agreement domain docs/validation.md states.
    assert!(
        worst[0] <= 0.20 && worst[1] <= 0.20 && worst[2] <= 0.05,
        "{worst:?}"
    );
}
