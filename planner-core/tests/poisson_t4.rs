//! Held-out validation of an open Poisson stream on one NVIDIA T4, the
//! Turing part, in FP16 (vLLM refuses BF16 there).
//!
//! Source: thealonemusk/InferStack, `docs/phases/phase-04-bench.md` (commit
//! 8ce223f, September 2026) and `docs/phases/phase-05-tuning.md` (commit
//! 054703b, measured 25 September 2026), read 2026-12-07: one Tesla T4 of a
//! Kaggle session, vLLM 0.29.0 (V1 engine, its Triton attention backend on
//! Turing), Qwen/Qwen2.5-1.5B-Instruct in float16, `max_num_seqs` 256 (the
//! default), a 4,096-token context, an open-loop Poisson schedule seeded
//! ahead of the run (seed 1337), 30 s a rate, 128 prompt tokens and exactly
//! 128 output tokens (`ignore_eos`, greedy), straight to the engine. The
//! pages give TTFT p50 at 0.86 to 16.47 requests/s, the sustainable rate
//! under TTFT p99 < 1 s and TPOT p99 < 50 ms (16.47 requests/s sustained,
//! 20 not, whatever the running limit from 96 up: "somewhere between 16.5
//! and 20"), TPOT p99 at 16.47 (42 ms) and 20 requests/s (65 ms), and one
//! request alone (TTFT 26 ms, TPOT 14.6 ms, 64 output tokens, prompt length
//! not stated). The phase-4 TTFT p99 at 16.47 requests/s (593 ms) was
//! inflated by the client's own connection cap (phase 5: 153 ms without
//! it); the rows up to 12.47 requests/s stand as published, and only they
//! are compared. Nothing in the model was fitted to these figures.
//!
//! `cargo test --release -p planner-core --test poisson_t4 -- --nocapture`
//! prints the tables (docs/validation.md, "A Poisson stream on one T4").

#[path = "common/errors.rs"]
mod errors;
#[path = "common/qwen2.rs"]
mod qwen2;
use errors::median_and_worst;
use planner_core::catalog::GpuId;
use planner_core::engine::Engine;
use planner_core::hardware::{GpuChoice, Hardware};
use planner_core::plan::{Inference, Levers, LogitsScope, ModelChoice, Plan, Precisions, Workload};
use planner_core::precision::Precision;
use planner_core::request::{Arrival, Lengths, RequestStream, Slo};
use planner_core::units::{Frequency, Seconds};
use qwen2::{qwen2, Qwen2};

/// Qwen/Qwen2.5-1.5B-Instruct's `config.json` (28 layers, hidden 1,536,
/// 12 heads, 2 KV heads, intermediate 8,960, vocabulary 151,936, tied
/// embeddings), imported as a user would.
fn qwen25_15b() -> ModelChoice {
    qwen2(Qwen2 {
        name: "Qwen2.5-1.5B-Instruct",
        layers: 28,
        hidden: 1536,
        heads: 12,
        kv_heads: 2,
        intermediate: 8960,
    })
}

/// The harness's prompt and output lengths.
const PROMPT: u32 = 128;
const OUTPUT: u32 = 128;

/// The interactive SLO the pages judge a rate by.
fn slo() -> Slo {
    Slo {
        ttft_p99: Some(Seconds::from_secs(1.0)),
        tpot_p99: Some(Seconds::from_secs(0.050)),
        ..Slo::default()
    }
}

/// The deployment as the pages state it, at `rate` requests a second for
/// 30 s, or one request alone (`rate` None).
fn plan(rate: Option<f64>, output: u32) -> Plan {
    let (arrival, requests) = match rate {
        Some(r) => (
            Arrival::Poisson {
                rate: Frequency::per_second(r),
            },
            (r * 30.0).round().max(1.0) as u32,
        ),
        None => (Arrival::Concurrency { clients: 1 }, 8),
    };
    let fp16 = Precision::Fp16;
    Plan {
        version: planner_core::plan::SCHEMA_VERSION,
        name: "Qwen2.5-1.5B, vLLM 0.29, one T4".into(),
        model: qwen25_15b(),
        workload: Workload::Inference(Inference {
            prompt_tokens: PROMPT,
            output_tokens: output,
            batch: 1,
            logits: LogitsScope::LastToken,
            stream: Some(RequestStream {
                arrival,
                prompt: Lengths::Fixed { tokens: PROMPT },
                output: Lengths::Fixed { tokens: output },
                slo: slo(),
                shared_prefix: 0,
                reuse: None,
                requests,
                seed: 1337,
            }),
        }),
        levers: Levers {
            precision: Precisions {
                weights: fp16,
                activations: fp16,
                kv_cache: fp16,
                compute: fp16,
                ..Precisions::default()
            },
            engine: Engine::Vllm,
            ..Levers::default()
        },
        hardware: Hardware::new(GpuChoice::Preset(GpuId::T4), 1),
        overheads: Default::default(),
        efficiency: Default::default(),
        economics: Default::default(),
        distillation: None,
    }
}

/// The published TTFT medians (ms) by offered rate (phase 4), the rows
/// phase 5 says stand; at 16.47 requests/s (120 ms) the client's own
/// connection cap may have held requests, so it is printed, not compared.
const TTFT_P50: [(f64, f64); 4] = [(0.86, 50.0), (3.99, 57.0), (8.25, 78.0), (12.47, 95.0)];

/// The first token follows the load; the engine carries 16.47 requests a
/// second within the SLO and not 20; the decode step at the sustainable
/// rate and alone. Prints the table; pins each figure's error as measured.
#[test]
fn a_poisson_stream_on_one_t4() {
    let mut ttft = Vec::new();
    println!(
        "{:>6}  {:>9}  {:>9} {:>7}  {:>9} {:>7}",
        "req/s", "TTFT p50", "simulated", "error", "steady", "error"
    );
    for (rate, measured) in TTFT_P50 {
        let p = plan(Some(rate), OUTPUT);
        let r = planner_core::evaluate(&p);
        assert_eq!(
            r.verdict,
            planner_core::report::Verdict::Fits,
            "{rate} req/s"
        );
        let sim = planner_core::serving::simulate(&p).expect("a stream");
        let a = planner_core::serving::analytic(&p).expect("a stream");
        let e = |x: f64| (x - measured) / measured;
        let (s, st) = (sim.ttft.p50.as_millis(), a.ttft.p50.as_millis());
        println!(
            "{rate:>6.2}  {measured:>9.0}  {s:>9.1} {:>+6.0}%  {st:>9.1} {:>+6.0}%",
            e(s) * 100.0,
            e(st) * 100.0
        );
        ttft.push(e(s));
    }
    let at16 = planner_core::serving::simulate(&plan(Some(16.47), OUTPUT)).expect("a stream");
    println!(
        " 16.47        120  {:>9.1}  (not compared: the client's cap)",
        at16.ttft.p50.as_millis()
    );
    let (median, worst) = median_and_worst(&ttft);
    println!(
        "TTFT p50 (simulator): median |error| {:.1} %, worst {:.1} %",
        median * 100.0,
        worst * 100.0
    );

    // The sustainable rate under the SLO: 16.47 carried, 20 not.
    let a = planner_core::serving::analytic(&plan(Some(16.47), OUTPUT)).expect("a stream");
    let largest = a.max_rate_under_slo.expect("an SLO is set");
    println!("largest rate within the SLO (steady state): {largest:.1} requests/s; measured between 16.47 and 20");
    let at20 = planner_core::serving::simulate(&plan(Some(20.0), OUTPUT)).expect("a stream");
    let (t16, t20) = (at16.tpot.p99.as_millis(), at20.tpot.p99.as_millis());
    println!("TPOT p99 (simulator): {t16:.1} ms at 16.47 requests/s (measured 42), {t20:.1} ms at 20 (measured 65)");

    // One request alone, 64 output tokens.
    let one = planner_core::serving::simulate(&plan(None, 64)).expect("a stream");
    let (t1, f1) = (one.tpot.p50.as_millis(), one.ttft.p50.as_millis());
    println!(
        "alone: TPOT {t1:.1} ms (measured 14.6), TTFT {f1:.1} ms (measured 26, prompt not stated)"
    );

    // Pinned as measured on 2026-12-07; a change that moves these is a
    // change to the model. One request alone agrees: the step within
    // 15 % (weights streamed at the catalog's 0.8 of 320 GB/s). Under load
    // the measured step grows about 0.27 ms a running sequence (14.6 ms
    // alone, about 38 at the 16.47 requests/s rate's ~75 running, 60 at
    // 20 requests/s), the modelled one about 0.03 ms: the decode steps are
    // short by up to 2.7x, the first token follows them (a token waits for
    // the step in flight and its own), and the largest rate within the SLO
    // is twice the measured one. Not explained (docs/validation.md, "A
    // Poisson stream on one T4"); the L4's closed loop misses the same
    // way, less.
    assert!((t1 - 14.6).abs() / 14.6 < 0.15, "alone: {t1} ms");
    assert!(median <= 0.35 && worst <= 0.44, "{median} {worst}");
    assert!(
        ttft.iter().skip(1).all(|e| *e < 0.0),
        "every loaded row's first token predicted short: {ttft:?}"
    );
    assert!((20.0..42.0).contains(&largest), "{largest}");
    assert!(t16 < 0.45 * 42.0 && t20 < 0.3 * 65.0, "{t16} {t20}");
    // The band of serving on 75 W cards (`uncertainty.rs`) is the worst
    // shortfall in time, rounded up; the plan reports it.
    let shortfall = [(t1, 14.6), (t16, 42.0), (t20, 65.0)]
        .iter()
        .map(|(p, m)| 1.0 - p / m)
        .fold(0.0, f64::max);
    let basis = planner_core::uncertainty::ValidationBasis::LowPowerServing;
    let band = basis.band(1);
    assert!(
        band.fast >= shortfall && band.fast <= shortfall + 0.01,
        "{} vs {shortfall}",
        band.fast
    );
    let r = planner_core::evaluate(&plan(Some(16.47), OUTPUT));
    let reported = match r.time {
        planner_core::report::TimeReport::Inference(t) => Some(t.range_basis),
        planner_core::report::TimeReport::Training(_) => None,
    };
    assert_eq!(reported, Some(basis));
}

/// Qwen/Qwen2.5-3B-Instruct's `config.json` (36 layers, hidden 2,048, 16
/// heads, 2 KV heads, intermediate 11,008, vocabulary 151,936, tied
/// embeddings): 3.09 B parameters, the 5.79 GiB vLLM's log reports below.
fn qwen25_3b() -> ModelChoice {
    qwen2(Qwen2 {
        name: "Qwen2.5-3B-Instruct",
        layers: 36,
        hidden: 2048,
        heads: 16,
        kv_heads: 2,
        intermediate: 11008,
    })
}

/// A second T4 deployment, held out the same way: chiragn28/FXAssist_Lite
/// `results/BENCHMARKS.md` at 5a241fb (Kaggle, 2026-10-07): vLLM 0.31.0,
/// Qwen2.5-3B-Instruct in FP16 on one T4 (Triton attention),
/// `max_num_seqs` 32, 90 % of memory, closed loops of 4, 16 and 32
/// clients, exactly 128 output tokens (`ignore_eos`, greedy), "short"
/// prompts (22 questions, their length not stated: 64 tokens taken; the
/// decode step hardly depends on it), medians of three repetitions. The
/// decode time a token is read as (latency p50 − TTFT p50) / 127: 31.9,
/// 37.1 and 46.9 ms. The same page records a T4 throttling under load
/// (one request's rate sliding from 26.4 to 9.1 tokens/s at 100 %
/// utilisation), and its one-client long-prompt rows decode at about
/// 20 tokens/s where one request's weights alone stream in 24 ms.
#[test]
fn a_closed_loop_of_a_3b_model_on_one_t4() {
    let plan = |clients: u32| {
        let mut p = plan(None, OUTPUT);
        p.model = qwen25_3b();
        p.name = format!("Qwen2.5-3B, vLLM 0.31, one T4, {clients} clients");
        p.levers.engine_knobs.max_seqs = Some(32);
        if let Workload::Inference(i) = &mut p.workload {
            i.prompt_tokens = 64;
            if let Some(s) = i.stream.as_mut() {
                s.arrival = Arrival::Concurrency { clients };
                s.prompt = Lengths::Fixed { tokens: 64 };
                s.requests = 4 * clients;
            }
        }
        p
    };
    let mut errors = Vec::new();
    for (clients, measured) in [(4, 31.9), (16, 37.1), (32, 46.9)] {
        let r = planner_core::evaluate(&plan(clients));
        assert_eq!(r.verdict, planner_core::report::Verdict::Fits);
        let weights = r
            .binding_device()
            .expect("a device")
            .items
            .iter()
            .filter(|i| i.kind == planner_core::report::ItemKind::Weights)
            .map(|i| i.bytes.as_gib())
            .sum::<f64>();
        // vLLM's log: "model 5.79 GiB".
        assert!((weights - 5.79).abs() < 0.06, "{weights} GiB");
        let sim = planner_core::serving::simulate(&plan(clients)).expect("a stream");
        let t = sim.tpot.p50.as_millis();
        let e = (t - measured) / measured;
        println!("Qwen2.5-3B, {clients} clients: decode {measured} ms a token measured, {t:.1} predicted ({:+.0}%)", e * 100.0);
        errors.push(e);
    }
    // As measured on 2026-12-07: short from four clients on, more so with
    // more (the step grows about 0.5 ms a sequence measured, a tenth of
    // that modelled), as on the 1.5 B stream above.
    assert!(errors.iter().all(|e| *e < 0.0), "{errors:?}");
    assert!(errors[2] < errors[0], "{errors:?}");
    let (median, worst) = median_and_worst(&errors);
    assert!(median <= 0.40 && worst <= 0.50, "{median} {worst}");
    // Inside the band of serving on 75 W cards: a shortfall in time of
    // 1 - predicted / measured.
    let band = planner_core::uncertainty::ValidationBasis::LowPowerServing.band(1);
    for e in &errors {
        assert!(1.0 - (1.0 + e) <= band.fast, "{e}");
    }
}
