//! Held-out validation of a closed loop of fixed lengths, the shape most
//! published serving sweeps take (`vllm bench serve --dataset-name random
//! --ignore-eos --max-concurrency N`): the clients start together, finish
//! together and come back together, so their prompts arrive in waves
//! (`analytic::Shape::closed_waves`, docs/validation.md "Closed loops of
//! fixed lengths arrive in waves").
//!
//! Source: ai.wmx.dev/benchmarks (read 2026-12-07), a concurrency sweep of
//! its `serving/raw-vllm` deployment at commit 8e78aaa: one NVIDIA L4 on a
//! Google Cloud g2-standard-4 (on demand; driver 580.126.20, CUDA 13.0),
//! vLLM v0.23.0 (V1 engine) serving Qwen/Qwen2.5-0.5B-Instruct in BF16
//! with `--gpu-memory-utilization 0.6 --max-model-len 8192`, driven by
//! `vllm bench serve` with 256-token prompts and 128-token outputs,
//! `--ignore-eos`, seed 42, `--request-rate inf` at a fixed
//! `--max-concurrency` of 1 to 32. The page gives medians (TTFT, ITL and
//! end-to-end, ms) and output tokens/s; the prompt count is not stated
//! (`vllm bench serve`'s default, 1,000, is taken). Nothing in the model
//! was fitted to these rows.
//!
//! `cargo test --release -p planner-core --test closed_loop_l4 --
//! --nocapture` prints the table (docs/validation.md, "A closed loop on
//! one L4").

#[path = "common/errors.rs"]
mod errors;
#[path = "common/qwen2.rs"]
mod qwen2;
use errors::median_and_worst;
use planner_core::catalog::GpuId;
use planner_core::engine::{Engine, EngineKnobs};
use planner_core::hardware::{GpuChoice, Hardware};
use planner_core::plan::{Inference, Levers, LogitsScope, ModelChoice, Plan, Precisions, Workload};
use planner_core::precision::Precision;
use planner_core::request::{Arrival, Lengths, RequestStream, Slo};
use qwen2::{qwen2, Qwen2};

/// Qwen/Qwen2.5-0.5B-Instruct's `config.json` (24 layers, hidden 896, 14
/// heads, 2 KV heads, intermediate 4,864, vocabulary 151,936, tied
/// embeddings), imported as a user would.
fn qwen25_05b() -> ModelChoice {
    qwen2(Qwen2 {
        name: "Qwen2.5-0.5B-Instruct",
        layers: 24,
        hidden: 896,
        heads: 14,
        kv_heads: 2,
        intermediate: 4864,
    })
}

/// The page's prompt and output lengths.
const PROMPT: u32 = 256;
const OUTPUT: u32 = 128;

/// `vllm bench serve`'s default prompt count.
const PROMPTS: u32 = 1000;

/// One row of the page's table: concurrency, output tokens/s, and the
/// medians of TTFT, ITL and end-to-end latency (ms).
struct Row {
    clients: u32,
    out_tok_s: f64,
    ttft_p50: f64,
    itl_p50: f64,
    e2e_p50: f64,
}

#[rustfmt::skip]
fn rows() -> [Row; 6] {
    let r = |clients, out_tok_s, ttft_p50, itl_p50, e2e_p50| Row { clients, out_tok_s, ttft_p50, itl_p50, e2e_p50 };
    [
        // | concurrency | req/s | out tok/s | TTFT p50 | TTFT p95 | ITL p50 | ITL p95 | E2E p50 | E2E p95 |
        r(1, 168.0, 27.0, 5.1, 679.0),
        r(2, 367.0, 37.8, 5.2, 698.0),
        r(4, 698.0, 50.1, 5.3, 722.0),
        r(8, 1312.0, 60.9, 5.5, 772.0),
        r(16, 2277.0, 103.8, 6.0, 880.0),
        r(32, 3773.0, 135.3, 7.1, 1082.0),
    ]
}

/// The deployment as the page states it.
fn plan(clients: u32) -> Plan {
    Plan {
        version: planner_core::plan::SCHEMA_VERSION,
        name: format!("Qwen2.5-0.5B, vLLM 0.23, one L4, {clients} clients"),
        model: qwen25_05b(),
        workload: Workload::Inference(Inference {
            prompt_tokens: PROMPT,
            output_tokens: OUTPUT,
            batch: 1,
            logits: LogitsScope::LastToken,
            stream: Some(RequestStream {
                arrival: Arrival::Concurrency { clients },
                prompt: Lengths::Fixed { tokens: PROMPT },
                output: Lengths::Fixed { tokens: OUTPUT },
                slo: Slo::default(),
                shared_prefix: 0,
                reuse: None,
                requests: PROMPTS,
                seed: 42,
            }),
        }),
        levers: Levers {
            precision: Precisions {
                weights: Precision::Bf16,
                compute: Precision::Bf16,
                ..Precisions::default()
            },
            engine: Engine::Vllm,
            engine_knobs: EngineKnobs {
                memory_fraction: Some(0.6),
                ..EngineKnobs::default()
            },
            ..Levers::default()
        },
        hardware: Hardware::new(GpuChoice::Preset(GpuId::L4), 1),
        overheads: Default::default(),
        efficiency: Default::default(),
        economics: Default::default(),
        distillation: None,
    }
}

/// Every row against the simulator and the steady state. Prints the
/// table; pins each metric's median and worst |error| as measured, and
/// the signs that name what is missing.
#[test]
fn a_closed_loop_on_one_l4() {
    println!(
        "{:>3}  {:>26}  {:>20}  {:>20}  {:>26}",
        "c", "TTFT p50 ms (sim/steady)", "ITL p50 ms", "E2E p50 ms", "out tok/s (sim/steady)"
    );
    let (mut ttft, mut steady, mut itl, mut e2e, mut out) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for row in rows() {
        let p = plan(row.clients);
        let sim = planner_core::serving::simulate(&p).expect("a stream");
        assert_eq!(sim.completed, PROMPTS, "every request finishes");
        let a = planner_core::serving::analytic(&p).expect("a stream");
        // The steady state models the loop as waves, and says so.
        assert!(a.waves.is_some(), "{} clients", row.clients);
        let e = |x: f64, m: f64| (x - m) / m;
        ttft.push(e(sim.ttft.p50.as_millis(), row.ttft_p50));
        steady.push(e(a.ttft.p50.as_millis(), row.ttft_p50));
        itl.push(e(sim.itl.p50.as_millis(), row.itl_p50));
        e2e.push(e(sim.latency.p50.as_millis(), row.e2e_p50));
        out.push(e(sim.output_tokens_per_second, row.out_tok_s));
        let pc = |v: &[f64]| v[v.len() - 1] * 100.0;
        println!(
            "{:>3}  {:>6.1} {:>6.1}/{:<6.1} {:+5.0}%  {:>5.1} {:>5.2} {:+6.0}%  {:>5.0} {:>5.0} {:+6.0}%  {:>5.0} {:>5.0}/{:<5.0} {:+6.0}%",
            row.clients,
            row.ttft_p50,
            sim.ttft.p50.as_millis(),
            a.ttft.p50.as_millis(),
            pc(&ttft),
            row.itl_p50,
            sim.itl.p50.as_millis(),
            pc(&itl),
            row.e2e_p50,
            sim.latency.p50.as_millis(),
            pc(&e2e),
            row.out_tok_s,
            sim.output_tokens_per_second,
            a.output_tokens_per_second,
            pc(&out),
        );
    }
    let mut pinned = Vec::new();
    for (name, errors) in [
        ("TTFT p50 (simulator)", &ttft),
        ("TTFT p50 (steady state)", &steady),
        ("ITL p50", &itl),
        ("E2E p50", &e2e),
        ("output tokens/s", &out),
    ] {
        let (median, worst) = median_and_worst(errors);
        println!(
            "{name}: median |error| {:.1} %, worst {:.1} %",
            median * 100.0,
            worst * 100.0
        );
        pinned.push((median, worst));
    }
    // As measured on 2026-12-07 (six rows). The first token follows the
    // waves: from two clients on, within 9 % but for the simulator's median at
    // 16 clients, which falls on the edge between the two groups of eight
    // prompts one 2,048-token iteration apart (the steady state's -9 %);
    // at one client the server's front end is charged 30 ms where this
    // deployment's whole first token took 27 (+35 %). The steps are short
    // from one client on, more so as clients grow (measured 5.1 -> 7.5 ms
    // a token from 1 to 32 clients, about 70 us a sequence; predicted 4.9
    // -> 5.8, 22 us): not explained (docs/validation.md, "A closed loop on
    // one L4"). A change that moves these is a change to the model.
    let bounds = [
        (0.10, 0.37),
        (0.09, 0.36),
        (0.10, 0.23),
        (0.10, 0.21),
        (0.18, 0.25),
    ];
    for ((median, worst), (m, w)) in pinned.iter().zip(bounds) {
        assert!(
            *median <= m && *worst <= w,
            "{median} {worst} against {m} {w}"
        );
    }
    assert!(
        itl.iter().all(|e| *e < 0.0),
        "every step predicted short: {itl:?}"
    );
    assert!(
        out.iter().all(|e| *e > 0.0),
        "every row predicted fast: {out:?}"
    );
    // Inside the band of serving on 75 W cards (`uncertainty.rs`): each
    // step's shortfall in time, 1 - predicted / measured.
    let band = planner_core::uncertainty::ValidationBasis::LowPowerServing.band(1);
    for e in &itl {
        assert!(-e <= band.fast, "{e}");
    }
}
