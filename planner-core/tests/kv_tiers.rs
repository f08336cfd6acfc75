//! KV across tiers with reuse (issue 13): a stream whose prompts come
//! back to long contexts, served from HBM's prefix cache alone or with a
//! store below it (`levers.kv_tier`). Why a CXL tier pays off, the
//! simulator against the steady state, the properties the issue asks for,
//! and bounds by field.
//! `cargo test -p planner-core --test kv_tiers -- --nocapture` prints the
//! figures.

use planner_core::catalog::{CxlId, GpuId, ModelId};
use planner_core::engine::{Engine, KvLoad, KvTier, PreemptedKv};
use planner_core::evaluate;
use planner_core::hardware::{CxlChoice, CxlExpansion, CxlSpec, GpuChoice, Hardware};
use planner_core::plan::{
    Inference, Levers, LogitsScope, ModelChoice, Parallelism, Plan, Tier, Workload,
};
use planner_core::report::{KvTierReport, ServingReport};
use planner_core::request::{Arrival, Lengths, RequestStream, Reuse, Slo};
use planner_core::units::{ByteRate, Bytes, Frequency, Seconds};

#[path = "common/floor.rs"]
mod floor_check;

/// Llama 3.1 70B, TP 4 on H100 80 GB under vLLM, serving prompts of a
/// 16K-token context plus a 512-token question and 256 output tokens:
/// long-document QA or long multi-turn chat, each request coming back to
/// one of `contexts` contexts.
fn plan(contexts: u32, rate: f64) -> Plan {
    Plan {
        version: 1,
        name: String::new(),
        model: ModelChoice::Preset(ModelId::Llama31_70b),
        workload: Workload::Inference(Inference {
            prompt_tokens: 16_896,
            output_tokens: 256,
            batch: 1,
            logits: LogitsScope::LastToken,
            stream: Some(RequestStream {
                arrival: Arrival::Poisson {
                    rate: Frequency::per_second(rate),
                },
                prompt: Lengths::Fixed { tokens: 16_896 },
                output: Lengths::Fixed { tokens: 256 },
                slo: Slo::default(),
                shared_prefix: 0,
                reuse: Some(Reuse {
                    contexts,
                    tokens: 16_384,
                }),
                requests: 600,
                seed: 3,
            }),
        }),
        levers: Levers {
            parallel: Parallelism {
                tp: 4,
                ..Parallelism::default()
            },
            engine: Engine::Vllm,
            ..Levers::default()
        },
        hardware: Hardware::new(GpuChoice::Preset(GpuId::H100Sxm), 4),
        overheads: Default::default(),
        efficiency: Default::default(),
        economics: Default::default(),
        distillation: None,
    }
}

/// Four Micron CZ120 256 GB expanders per node (the catalog's product-brief
/// figures: 256 GB, 36 GB/s each), shared by the node's four GPUs here:
/// 256 GB and 36 GB/s per GPU, and the store on them.
fn with_cxl(mut p: Plan) -> Plan {
    p.hardware.cxl = Some(CxlExpansion {
        devices_per_node: 4,
        device: CxlChoice::Preset(CxlId::MicronCz120_256),
    });
    p.levers.kv_tier = Some(store(Tier::Cxl));
    p
}

fn store(tier: Tier) -> KvTier {
    KvTier {
        tier,
        capacity: None,
        chunk_tokens: 256,
        load: KvLoad::Bulk,
        preempted: PreemptedKv::Recompute,
    }
}

fn serving(p: &Plan) -> ServingReport {
    evaluate(p).serving.expect("a serving section")
}

fn tiers(s: &ServingReport) -> KvTierReport {
    s.kv_tier.expect("a KV tier section")
}

fn max_rate(p: &Plan) -> f64 {
    planner_core::serving::analytic(p)
        .expect("analytic")
        .max_rate
}

fn ttft(p: &Plan) -> f64 {
    planner_core::serving::analytic(p)
        .expect("analytic")
        .ttft
        .p50
        .as_secs()
}

fn stream(p: &mut Plan) -> &mut RequestStream {
    match &mut p.workload {
        Workload::Inference(i) => i.stream.as_mut().expect("stream"),
        Workload::Training(_) => unreachable!(),
    }
}

/// 200 contexts of 16K tokens are a 3.3M-token working set. A replica's
/// HBM pool (about 0.36M tokens at 80 KiB per token per GPU) keeps a tenth
/// of it at best, and less under load, when running requests take the
/// pool; the CXL store (256 GB per GPU ≈ 3.1M tokens) keeps almost all of
/// it. A hit fetches 1.3 GB per GPU in about 40 ms at 36 GB/s instead of
/// a prefill of about a second, so the replica's largest rate rises
/// several-fold.
#[test]
fn a_cxl_tier_raises_the_sustainable_rate_of_a_long_reuse_stream() {
    let hbm = plan(200, 0.5);
    let cxl = with_cxl(plan(200, 0.5));
    let (a, b) = (max_rate(&hbm), max_rate(&cxl));
    let (ta, tb) = (tiers(&serving(&hbm)), tiers(&serving(&cxl)));
    println!("largest rate HBM only {a:.3}/s, with CXL {b:.3}/s");
    println!("HBM only {ta:?}\nwith CXL {tb:?}");
    assert!(b > 2.0 * a, "{a} -> {b}");
    assert_eq!(ta.tier, None);
    assert_eq!(ta.hit_rate_store, 0.0);
    assert!(ta.hit_rate_hbm < 0.2, "{}", ta.hit_rate_hbm);
    assert_eq!(tb.tier, Some(Tier::Cxl));
    assert!(tb.hit_rate_hbm + tb.hit_rate_store > 0.9, "{tb:?}");
    let fetch = tb.fetch_per_request.as_secs();
    assert!((0.02..0.1).contains(&fetch), "{fetch}");
    let gain = tb.ttft_gain.expect("a gain").as_secs();
    assert!(gain > 0.3, "{gain}");
}

/// The simulator keeps LRU's stack itself; the steady state uses its
/// formula at its own operating point. Their hit rates and TTFT agree
/// within the bounds below at a moderate load.
#[test]
fn the_simulator_and_the_steady_state_agree_on_hits_and_ttft() {
    println!("contexts store  load  hit hbm sim/an  hit store sim/an  ttft p50 sim/an s  fetch sim/an ms");
    for (contexts, cxl) in [(20, false), (200, false), (200, true), (400, true)] {
        let base = if cxl {
            with_cxl(plan(contexts, 1.0))
        } else {
            plan(contexts, 1.0)
        };
        let max = max_rate(&base);
        for load in [0.3, 0.6] {
            let mut p = base.clone();
            stream(&mut p).arrival = Arrival::Poisson {
                rate: Frequency::per_second(load * max),
            };
            let s = serving(&p);
            let t = tiers(&s);
            let (sim, an) = (s.simulated.expect("sim"), s.analytic.expect("an"));
            let (h, b) = (
                t.simulated_hit_rate_hbm.expect("looked up"),
                t.simulated_hit_rate_store.expect("looked up"),
            );
            println!(
                "{contexts:>8} {cxl:>5} {load:>5} {h:>7.3}/{:<7.3} {b:>7.3}/{:<7.3} {:>8.3}/{:<8.3} {:>6.1}/{:<6.1}",
                t.hit_rate_hbm,
                t.hit_rate_store,
                sim.ttft.p50.as_secs(),
                an.ttft.p50.as_secs(),
                t.simulated_fetch_per_request.expect("done").as_millis(),
                t.fetch_per_request.as_millis(),
            );
            assert!((h + b - t.hit_rate_hbm - t.hit_rate_store).abs() < 0.15);
            let e = an.ttft.p50.as_secs() / sim.ttft.p50.as_secs() - 1.0;
            assert!(
                e.abs() < 0.35,
                "TTFT p50 {e:+.2} at {contexts} {cxl} {load}"
            );
        }
    }
}

/// A higher hit rate never raises TTFT: fewer contexts over the same
/// capacity hit more, and each step down in contexts leaves TTFT the same
/// or lower (steady state, HBM alone and with the store).
#[test]
fn a_higher_hit_rate_never_raises_ttft() {
    for cxl in [false, true] {
        let mut last: Option<(f64, f64)> = None;
        for contexts in [1000, 600, 400, 300, 200, 120, 60, 20, 5, 1] {
            let mut p = plan(contexts, 0.2);
            if cxl {
                p = with_cxl(p);
            }
            let t = tiers(&serving(&p));
            let hit = t.hit_rate_hbm + t.hit_rate_store;
            let x = ttft(&p);
            if let Some((h0, x0)) = last {
                assert!(hit >= h0 - 1e-9, "{contexts}: hit {h0} -> {hit}");
                assert!(x <= x0 * (1.0 + 1e-9), "{contexts}: ttft {x0} -> {x}");
            }
            last = Some((hit, x));
        }
    }
}

/// More store capacity never lowers the hit rate, in the steady state and
/// in the simulator (LRU's inclusion property: a larger cache holds what
/// a smaller one does).
#[test]
fn more_tier_capacity_never_lowers_the_hit_rate() {
    let mut last = (0.0, 0.0);
    for gb in [0.0, 20.0, 60.0, 120.0, 180.0, 256.0] {
        let mut p = with_cxl(plan(200, 0.3));
        if let Some(k) = p.levers.kv_tier.as_mut() {
            k.capacity = Some(Bytes::from_gb(gb));
        }
        let t = tiers(&serving(&p));
        let an = t.hit_rate_hbm + t.hit_rate_store;
        let sim =
            t.simulated_hit_rate_hbm.unwrap_or(0.0) + t.simulated_hit_rate_store.unwrap_or(0.0);
        println!("{gb:>5} GB: hit {an:.3} (sim {sim:.3})");
        assert!(an >= last.0 - 1e-9, "{gb}: {} -> {an}", last.0);
        assert!(sim >= last.1 - 0.02, "{gb}: {} -> {sim}", last.1);
        last = (an, sim);
    }
}

/// A custom expander of the CZ120's capacity at a given bandwidth and
/// latency.
fn custom(p: &mut Plan, gb_s: f64, latency_us: f64) {
    p.hardware.cxl = Some(CxlExpansion {
        devices_per_node: 4,
        device: CxlChoice::Custom(CxlSpec {
            capacity: Bytes::from_gb(256.0),
            bandwidth: ByteRate::from_gb_per_s(gb_s),
            latency: Seconds::from_secs(latency_us * 1e-6),
        }),
    });
}

/// A slower tier never lowers TTFT: less bandwidth or more latency per
/// chunk, the same or higher TTFT (steady state), bulk and layer-wise.
#[test]
fn a_slower_tier_never_lowers_ttft() {
    for load in [KvLoad::Bulk, KvLoad::Layerwise] {
        let mut last = 0.0;
        for (gb_s, us) in [
            (64.0, 0.25),
            (36.0, 0.25),
            (36.0, 5.0),
            (16.0, 5.0),
            (4.0, 50.0),
            (1.0, 500.0),
        ] {
            let mut p = with_cxl(plan(200, 0.2));
            custom(&mut p, gb_s, us);
            if let Some(k) = p.levers.kv_tier.as_mut() {
                k.load = load;
            }
            let x = ttft(&p);
            assert!(
                x >= last * (1.0 - 1e-9),
                "{gb_s} GB/s {us} µs: {last} -> {x}"
            );
            last = x;
        }
    }
}

/// Layer-wise loading hides what compute covers: never slower than bulk.
#[test]
fn layerwise_loads_are_never_slower_than_bulk() {
    let bulk = with_cxl(plan(200, 0.2));
    let mut layered = bulk.clone();
    if let Some(k) = layered.levers.kv_tier.as_mut() {
        k.load = KvLoad::Layerwise;
    }
    assert!(ttft(&layered) <= ttft(&bulk));
}

/// Swapping preempted requests to the store: a pool too small for the
/// running requests preempts; with `preempted: swap` their KV goes down
/// and comes back, charged as fetches.
#[test]
fn preempted_requests_swap_to_the_store() {
    let mut p = with_cxl(plan(200, 0.5));
    // A tight pool: little HBM left beside the weights.
    p.levers.memory_cap = Some(0.6);
    stream(&mut p).prompt = Lengths::Uniform {
        min: 2_000,
        max: 16_896,
    };
    stream(&mut p).output = Lengths::Uniform {
        min: 200,
        max: 3000,
    };
    stream(&mut p).arrival = Arrival::Concurrency { clients: 64 };
    let recompute = serving(&p);
    if let Some(k) = p.levers.kv_tier.as_mut() {
        k.preempted = PreemptedKv::Swap;
    }
    let swap = serving(&p);
    let (r, s) = (
        recompute.simulated.expect("sim"),
        swap.simulated.expect("sim"),
    );
    println!(
        "preemptions {} (recompute) {} (swap), swaps {}",
        r.preemptions,
        s.preemptions,
        tiers(&swap).swaps
    );
    assert!(r.preemptions > 0);
    assert_eq!(tiers(&recompute).swaps, 0);
    assert!(tiers(&swap).swaps > 0);
}

/// Without reuse and without a store the report has no tier section and
/// the figures are those of the plan before the tiers existed.
#[test]
fn no_reuse_no_store_no_section() {
    let mut p = plan(200, 0.5);
    stream(&mut p).reuse = None;
    assert!(serving(&p).kv_tier.is_none());
}

fn invalid_fields(p: &Plan) -> Vec<String> {
    evaluate(p)
        .diagnostics
        .iter()
        .filter_map(|d| match &d.detail {
            planner_core::DiagnosticKind::InvalidValue { field, .. } => Some(field.clone()),
            _ => None,
        })
        .collect()
}

/// An edit to a plan.
type Edit = Box<dyn Fn(&mut Plan)>;

/// Bad inputs are named by field.
#[test]
fn bad_tier_inputs_are_named() {
    let cases: Vec<(Edit, &str)> = vec![
        (
            Box::new(|p| p.levers.kv_tier = Some(store(Tier::Hbm))),
            "levers.kv_tier.tier",
        ),
        (
            Box::new(|p| p.levers.kv_tier = Some(store(Tier::Cxl))),
            "levers.kv_tier.tier",
        ),
        (
            Box::new(|p| {
                let mut k = store(Tier::HostDram);
                k.capacity = Some(Bytes::from_tb(50.0));
                p.levers.kv_tier = Some(k);
            }),
            "levers.kv_tier.capacity",
        ),
        (
            Box::new(|p| {
                let mut k = store(Tier::HostDram);
                k.capacity = Some(Bytes::new(f64::NAN));
                p.levers.kv_tier = Some(k);
            }),
            "levers.kv_tier.capacity",
        ),
        (
            Box::new(|p| {
                let mut k = store(Tier::HostDram);
                k.chunk_tokens = 0;
                p.levers.kv_tier = Some(k);
            }),
            "levers.kv_tier.chunk_tokens",
        ),
        (
            Box::new(|p| {
                stream(p).reuse = Some(Reuse {
                    contexts: 0,
                    tokens: 10,
                })
            }),
            "workload.inference.stream.reuse.contexts",
        ),
        (
            Box::new(|p| {
                stream(p).reuse = Some(Reuse {
                    contexts: 10,
                    tokens: 0,
                })
            }),
            "workload.inference.stream.reuse.tokens",
        ),
    ];
    for (edit, field) in cases {
        let mut p = plan(200, 0.5);
        edit(&mut p);
        let fields = invalid_fields(&p);
        assert!(
            fields.iter().any(|f| f == field),
            "{field} not in {fields:?}"
        );
    }
    // A host-DRAM store within the node's share is fine.
    let mut p = plan(200, 0.5);
    p.levers.kv_tier = Some(store(Tier::HostDram));
    assert!(invalid_fields(&p).is_empty());
}

/// The serving search tries no store and a store on each tier the
/// hardware has. With host DRAM cut to 256 GB per node (64 GB per GPU
/// here, a fifth of the working set) and CXL expanders beside it, the
/// best answer stores on CXL, on fewer GPUs than HBM alone needs; it names
/// the change and carries the hardware's hourly cost, CXL included.
#[test]
fn the_serving_search_explores_the_kv_tier() {
    use planner_core::diff::Setting;
    use planner_core::search::{search_serving, ServingScenario, ServingSpace};
    let mut base = with_cxl(plan(200, 2.0));
    base.levers.kv_tier = None;
    base.hardware.host_dram_per_node = Bytes::from_gb(256.0);
    let space = ServingSpace {
        tp: vec![4],
        token_budgets: vec![8192],
        max_seqs: vec![256],
        draft_tokens: vec![0],
        kv_tier_gb: Vec::new(),
        disaggregation: Default::default(),
    };
    let scenario = ServingScenario {
        base: base.clone(),
        max_gpus: 64,
        space: space.clone(),
    };
    let found = search_serving(&scenario);
    assert_eq!(found.problem, None);
    // No store, host DRAM, CXL.
    assert_eq!(found.evaluated, 3);
    let best = found.best.expect("an answer");
    println!(
        "best: {} GPUs, {:?}, ${:?}/h",
        best.gpus,
        best.plan.levers.kv_tier.map(|k| k.tier),
        best.usd_per_hour
    );
    assert_eq!(best.plan.levers.kv_tier.map(|k| k.tier), Some(Tier::Cxl));
    assert!(best.changes.iter().any(|c| c.setting == Setting::KvTier));
    assert!(best.usd_per_hour.is_some());
    // No answer beats the independent physics floor.
    floor_check::held_to_the_floor(found.frontier.iter().map(|f| &f.plan).collect());
    // HBM alone: the same scenario without a tier to store on.
    let mut bare = base;
    bare.hardware.cxl = None;
    bare.hardware.host_dram_per_node = Bytes::ZERO;
    let alone = search_serving(&ServingScenario {
        base: bare,
        max_gpus: 64,
        space,
    });
    let alone = alone.best.expect("an answer");
    println!("HBM alone: {} GPUs", alone.gpus);
    assert!(alone.plan.levers.kv_tier.is_none());
    assert!(best.gpus < alone.gpus, "{} vs {}", best.gpus, alone.gpus);
}

/// The tiers keep the simulator a pure function of the plan, and a store
/// without reuse only costs: every prefill token is written down, nothing
/// is fetched, so TTFT is not lower than without it.
#[test]
fn a_store_without_reuse_is_deterministic_and_only_costs() {
    let mut with = with_cxl(plan(200, 0.3));
    stream(&mut with).reuse = None;
    let (a, b) = (serving(&with), serving(&with));
    assert_eq!(a, b);
    let t = tiers(&a);
    assert_eq!(t.working_set_tokens, 0.0);
    assert_eq!(t.hit_rate_store, 0.0);
    assert_eq!(t.simulated_hit_rate_store, None);
    let mut without = with.clone();
    without.levers.kv_tier = None;
    assert!(serving(&without).kv_tier.is_none());
    assert!(ttft(&with) >= ttft(&without));
}
