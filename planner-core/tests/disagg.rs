//! Disaggregated prefill and decode (`levers.disaggregation`): the report
//! section, its properties, the simulator against the steady state, and
//! bad inputs refused by name.

use planner_core::catalog::LinkId;
use planner_core::disagg::{Disaggregation, KvTransfer, Pool, PoolRole};
use planner_core::plan::{Plan, Workload};
use planner_core::report::DisaggReport;
use planner_core::request::{Arrival, Lengths};
use planner_core::units::Frequency;
use planner_core::{evaluate, example_disagg_plan};

#[path = "common/floor.rs"]
mod floor_check;

fn pool(tp: u32, replicas: u32) -> Pool {
    Pool {
        tp,
        replicas,
        token_budget: None,
        max_seqs: None,
        ep: None,
    }
}

/// The example with the given pools on 16 H100s (two nodes), the stream at
/// `rate` with fixed lengths.
fn plan(pre: Pool, dec: Pool, link: Option<LinkId>, rate: f64, prompt: u32, output: u32) -> Plan {
    let mut p = example_disagg_plan();
    p.hardware.gpus = 16;
    p.levers.parallel.dp = 4;
    p.levers.disaggregation = Some(Disaggregation {
        prefill: pre,
        decode: dec,
        link,
        transfer: KvTransfer::AfterPrefill,
    });
    if let Workload::Inference(i) = &mut p.workload {
        let s = i.stream.as_mut().expect("stream");
        s.arrival = Arrival::Poisson {
            rate: Frequency::per_second(rate),
        };
        s.prompt = Lengths::Fixed { tokens: prompt };
        s.output = Lengths::Fixed { tokens: output };
        s.requests = 400;
    }
    p
}

fn report(p: &Plan) -> DisaggReport {
    let r = evaluate(p);
    assert!(r.disaggregated.is_some(), "no section: {:?}", r.diagnostics);
    r.disaggregated.expect("a disaggregated section")
}

fn fields(p: &Plan) -> Vec<String> {
    evaluate(p)
        .diagnostics
        .iter()
        .filter_map(|d| match &d.detail {
            planner_core::DiagnosticKind::InvalidValue { field, .. } => Some(field.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn the_example_serves_its_stream_through_both_pools() {
    let d = report(&example_disagg_plan());
    assert!(d.prefill.fits && d.decode.fits);
    assert_eq!(d.link, LinkId::NvLink4, "both pools sit in one node");
    assert_eq!(d.simulated.completed, d.simulated.requests);
    assert!(d.analytic.stable && d.simulated.meets_slo);
    // 80 layers × 8 KV heads × 128 × 2 (K, V) × 2 bytes over TP 4.
    assert!((d.prefill.kv_bytes_per_token_device.as_bytes() - 81_920.0).abs() < 1.0);
    assert!(d.transfer.as_secs() > d.link_latency.as_secs());
    assert!(d.usd_per_million_output.is_some());
    assert_eq!(
        d.analytic.max_rate,
        d.prefill.max_rate.min(d.decode.max_rate)
    );
}

#[test]
fn more_decode_gpus_never_lower_the_sustainable_rate() {
    // Wider replicas: TP 2 → 4 → 8, one replica.
    let mut last = 0.0;
    for tp in [2, 4, 8] {
        let d = report(&plan(pool(4, 1), pool(tp, 1), None, 4.0, 1000, 200));
        let x = d.decode.max_rate;
        assert!(x >= last * (1.0 - 1e-3), "TP{tp}: {x} < {last}");
        assert!(d.analytic.max_rate <= x * (1.0 + 1e-9));
        last = x;
    }
    // Replicas alone: the rate grows with them.
    let mut last = 0.0;
    for replicas in 1..=3 {
        let d = report(&plan(pool(4, 1), pool(4, replicas), None, 4.0, 1000, 200));
        assert!(d.analytic.max_rate >= last * (1.0 - 1e-3));
        last = d.analytic.max_rate;
    }
}

#[test]
fn a_slower_kv_link_never_lowers_ttft() {
    // Fastest to slowest; the pools take 8 GPUs of 16, so scale-out links
    // and the node's NVLink all reach.
    let links = [
        LinkId::NvLink4,
        LinkId::InfinibandXdr,
        LinkId::InfinibandNdr,
        LinkId::InfinibandHdr,
        LinkId::InfinibandEdr,
    ];
    let (mut sim, mut ana, mut transfer) = (0.0, 0.0, 0.0);
    for l in links {
        let d = report(&plan(pool(4, 1), pool(4, 1), Some(l), 2.0, 8000, 100));
        let s = d.simulated.ttft.p50.as_secs();
        let a = d.analytic.ttft.p50.as_secs();
        assert!(d.transfer.as_secs() > transfer, "{l:?}");
        assert!(s >= sim * (1.0 - 1e-9), "{l:?}: simulated {s} < {sim}");
        assert!(a >= ana * (1.0 - 1e-9), "{l:?}: analytic {a} < {ana}");
        (sim, ana, transfer) = (s, a, d.transfer.as_secs());
    }
}

/// Sending each layer's KV cache while later layers prefill hides the
/// transfer up to the prefill's own length: on a slow link the TTFT falls
/// by about the prefill time, on a fast one only the last layer's share
/// follows, and it is never worse than sending after the prefill.
#[test]
fn layer_by_layer_transfer_hides_behind_the_prefill() {
    let with = |link, mode| {
        let mut p = plan(pool(4, 1), pool(4, 1), Some(link), 0.5, 8000, 100);
        if let Some(d) = p.levers.disaggregation.as_mut() {
            d.transfer = mode;
        }
        report(&p)
    };
    for link in [
        LinkId::NvLink4,
        LinkId::InfinibandNdr,
        LinkId::InfinibandEdr,
    ] {
        let after = with(link, KvTransfer::AfterPrefill);
        let layered = with(link, KvTransfer::LayerByLayer);
        let (a, l) = (after.transfer.as_secs(), layered.transfer.as_secs());
        assert!(l < a, "{link:?}: {l} ≥ {a}");
        // Never less than the link's latency plus one layer's share
        // (Llama 3.1 70B: 80 layers).
        let latency = after.link_latency.as_secs();
        assert!(
            l >= latency + (a - latency) / 80.0 * (1.0 - 1e-9),
            "{link:?}"
        );
        // The hidden part is at most the prefill pass itself.
        let prefill = after.prefill.iteration.as_secs();
        assert!(
            a - l <= prefill * 1.5,
            "{link:?}: hid {} of a {prefill} s prefill",
            a - l
        );
        for (x, y) in [
            (layered.simulated.ttft.p50, after.simulated.ttft.p50),
            (layered.analytic.ttft.p50, after.analytic.ttft.p50),
        ] {
            assert!(
                x.as_secs() <= y.as_secs() * (1.0 + 1e-9),
                "{link:?}: {x:?} > {y:?}"
            );
        }
        println!(
            "{link:?}: transfer {a:.4} s after the prefill, {l:.4} s layer by layer; prefill {prefill:.4} s"
        );
    }
}

/// The pools as plans of their own: the prefill pool is the plan with the
/// pool's degrees and one output token per request.
fn prefill_alone(p: &Plan, pre: Pool) -> Plan {
    let mut q = p.clone();
    q.levers.disaggregation = None;
    q.levers.parallel.tp = pre.tp;
    q.levers.parallel.dp = pre.replicas;
    q.hardware.gpus = pre.tp * pre.replicas;
    if let Workload::Inference(i) = &mut q.workload {
        i.stream.as_mut().expect("stream").output = Lengths::Fixed { tokens: 1 };
    }
    q
}

#[test]
fn pools_compose_as_the_model_of_each_alone() {
    let pre = pool(4, 1);
    let p = plan(pre, pool(4, 1), None, 3.0, 2000, 200);
    let d = report(&p);
    let alone = prefill_alone(&p, pre);
    let a = planner_core::serving::analytic(&alone).expect("analytic");
    let s = planner_core::serving::simulate(&alone).expect("simulated");
    // The prefill pool is the model's own replica.
    assert!((d.prefill.max_rate - a.max_rate).abs() <= 1e-9 * a.max_rate);
    // TTFT = the prefill pool's + the transfer + the decode pool's wait and
    // first step (1.5 decode iterations at the median).
    let first = 1.5 * d.decode.iteration.as_secs();
    let want = a.ttft.p50.as_secs() + d.transfer.as_secs() + first;
    let got = d.analytic.ttft.p50.as_secs();
    assert!((got - want).abs() <= 1e-9 * want, "{got} vs {want}");
    // The simulator composes the same way: each request's prefill time is
    // the prefill replica's, then the transfer, then at least one decode
    // iteration and at most a wait and a step of the busiest ones.
    let extra = d.simulated.ttft.p50.as_secs() - s.ttft.p50.as_secs() - d.transfer.as_secs();
    let it = d.decode.iteration.as_secs();
    assert!(extra >= 0.5 * it && extra <= 3.0 * it, "{extra} vs {it}");
    // No interference: the decode pool's TPOT is below that of the same
    // replica serving prefill and decode together at the same rate.
    let mut together = alone.clone();
    if let Workload::Inference(i) = &mut together.workload {
        i.stream.as_mut().expect("stream").output = Lengths::Fixed { tokens: 200 };
    }
    let c = planner_core::serving::analytic(&together).expect("co-located");
    assert!(d.analytic.tpot.as_secs() < c.tpot.as_secs());
}

#[test]
fn simulator_and_steady_state_agree_on_a_grid() {
    // Domain: TTFT up to 0.4 of the smaller pool's largest rate, TPOT and
    // throughput up to 0.7; fixed lengths. docs/validation.md has the figures.
    let mut worst = (0.0f64, 0.0f64, 0.0f64);
    for (prompt, output) in [(500, 200), (2000, 200), (4000, 500)] {
        let mut base = plan(pool(4, 1), pool(4, 1), None, 1.0, prompt, output);
        if let Workload::Inference(i) = &mut base.workload {
            i.stream.as_mut().expect("stream").requests = 2000;
        }
        let top = report(&base).analytic.max_rate;
        for load in [0.2, 0.4, 0.7] {
            let mut p = base.clone();
            if let Workload::Inference(i) = &mut p.workload {
                i.stream.as_mut().expect("stream").arrival = Arrival::Poisson {
                    rate: Frequency::per_second(load * top),
                };
            }
            let d = report(&p);
            let rel = |a: f64, s: f64| (a - s).abs() / s;
            let tpot = rel(d.analytic.tpot.as_secs(), d.simulated.tpot.p50.as_secs());
            let ttft = rel(
                d.analytic.ttft.p50.as_secs(),
                d.simulated.ttft.p50.as_secs(),
            );
            let tps = rel(
                d.analytic.output_tokens_per_second,
                d.simulated.output_tokens_per_second,
            );
            println!(
                "P {prompt} O {output} load {load}: TPOT {tpot:.3} TTFT {ttft:.3} ({:.1} vs {:.1} ms) tok/s {tps:.3}",
                d.analytic.ttft.p50.as_millis(),
                d.simulated.ttft.p50.as_millis(),
            );
            worst = (worst.0.max(tpot), worst.1, worst.2.max(tps));
            if load <= 0.4 {
                worst.1 = worst.1.max(ttft);
            } else {
                // Past the domain the steady state's prefill queue is
                // optimistic (the co-located model's M/D/1 wait).
                assert!(d.analytic.ttft.p50 <= d.simulated.ttft.p50);
            }
        }
    }
    println!(
        "worst TPOT {:.3} TTFT {:.3} tok/s {:.3}",
        worst.0, worst.1, worst.2
    );
    assert!(worst.0 <= 0.05, "TPOT {}", worst.0);
    assert!(worst.1 <= 0.12, "TTFT {}", worst.1);
    assert!(worst.2 <= 0.15, "throughput {}", worst.2);
}

#[test]
fn bad_pools_and_links_are_refused_by_name() {
    let ok = plan(pool(4, 1), pool(4, 1), None, 2.0, 500, 100);
    assert!(fields(&ok).is_empty(), "{:?}", fields(&ok));
    let cases: Vec<(Plan, &str)> = vec![
        (
            plan(pool(0, 1), pool(4, 1), None, 2.0, 500, 100),
            "levers.disaggregation.prefill.tp",
        ),
        (
            plan(pool(4, 1), pool(4, 0), None, 2.0, 500, 100),
            "levers.disaggregation.decode.replicas",
        ),
        (
            plan(pool(8, 2), pool(8, 1), None, 2.0, 500, 100),
            "levers.disaggregation",
        ),
        // NVLink does not reach across nodes: 16 GPUs, 8 per NVLink domain.
        (
            plan(pool(8, 1), pool(8, 1), Some(LinkId::NvLink4), 2.0, 500, 100),
            "levers.disaggregation.link",
        ),
        (
            plan(
                pool(4, 1),
                pool(4, 1),
                Some(LinkId::Pcie5x16),
                2.0,
                500,
                100,
            ),
            "levers.disaggregation.link",
        ),
        (
            plan(pool(4, 1), pool(4, 1), Some(LinkId::NvLink5), 2.0, 500, 100),
            "levers.disaggregation.link",
        ),
    ];
    for (p, f) in cases {
        let got = fields(&p);
        assert!(got.iter().any(|x| x == f), "{f} not named in {got:?}");
        assert!(evaluate(&p).disaggregated.is_none());
    }
    // A closed loop and a static engine are refused too.
    let mut closed = ok.clone();
    if let Workload::Inference(i) = &mut closed.workload {
        i.stream.as_mut().expect("stream").arrival = Arrival::Concurrency { clients: 8 };
    }
    let mut fixed = ok.clone();
    fixed.levers.engine = planner_core::engine::Engine::Static;
    for p in [closed, fixed] {
        assert!(fields(&p).iter().any(|x| x == "levers.disaggregation"));
    }
    // A misspelt key is refused, not ignored.
    let mut v = serde_json::to_value(&ok).expect("json");
    v["levers"]["disaggregation"]["decode"]["replica"] = serde_json::json!(2);
    assert!(serde_json::from_value::<Plan>(v).is_err());
}

#[test]
fn the_serving_search_weighs_pool_splits() {
    use planner_core::search::{example_serving_scenario, search_serving};
    let mut s = example_serving_scenario();
    s.base = example_disagg_plan();
    s.space.tp = vec![2, 4, 8];
    s.space.token_budgets = vec![4096, 8192];
    s.space.max_seqs = vec![128, 256];
    s.space.disaggregation = planner_core::disagg::PoolSearch::Explore;
    let r = search_serving(&s);
    assert!(r.problem.is_none());
    // Every answer names what it changed; the pooled ones the split.
    let all: Vec<_> = r.frontier.iter().chain(r.best.iter()).collect();
    assert!(!all.is_empty());
    let s_off = {
        let mut s = s.clone();
        s.space.disaggregation = planner_core::disagg::PoolSearch::Off;
        search_serving(&s)
    };
    assert!(r.evaluated > s_off.evaluated);
    assert!(
        r.feasible > s_off.feasible,
        "no pooled answer carried the rate"
    );
    // Co-located answers say the pools are gone.
    let named = |f: &planner_core::search::ServingFound| {
        f.changes
            .iter()
            .any(|c| c.setting == planner_core::diff::Setting::Disaggregation)
    };
    assert!(all.iter().all(|f| named(f)));
    // Pooled or not, each answer was run through the simulator and meets
    // the stream's SLOs there.
    for f in &all {
        let sim = f.simulated.as_ref().expect("checked in the simulator");
        assert!(sim.meets_slo, "{} GPUs", f.gpus);
    }
    // And none beats the independent physics floor.
    floor_check::held_to_the_floor(all.iter().map(|f| &f.plan).collect());
    let _ = PoolRole::Prefill;
}

#[test]
fn moe_pools_take_their_own_expert_parallelism() {
    use planner_core::catalog::{GpuId, ModelId};
    use planner_core::hardware::{GpuChoice, Hardware};
    // Mixtral 8x7B, DP attention with the experts over each pool
    // (tp 1, replicas = ep), on 8 H100s.
    let mut p = plan(pool(1, 4), pool(1, 4), None, 4.0, 1000, 200);
    p.model = planner_core::plan::ModelChoice::Preset(ModelId::Mixtral8x7b);
    p.hardware = Hardware::new(GpuChoice::Preset(GpuId::H100Sxm), 8);
    p.levers.parallel.tp = 1;
    p.levers.parallel.dp = 8;
    p.levers.parallel.ep = 8;
    let split = |ep: u32| Disaggregation {
        prefill: Pool {
            ep: Some(ep),
            ..pool(1, 4)
        },
        decode: Pool {
            ep: Some(ep),
            ..pool(1, 4)
        },
        link: None,
        transfer: KvTransfer::AfterPrefill,
    };
    p.levers.disaggregation = Some(split(4));
    assert!(fields(&p).is_empty(), "{:?}", fields(&p));
    let d = report(&p);
    assert!(d.prefill.fits && d.decode.fits);
    assert!(d.analytic.max_rate > 0.0 && d.simulated.completed > 0);
    p.levers.disaggregation = Some(split(0));
    let got = fields(&p);
    assert!(
        got.iter().any(|x| x == "levers.disaggregation.prefill.ep"),
        "{got:?}"
    );
}

/// vLLM V0 hands a pass's tokens over in the next pass
/// (`Engine::defers_output`); the decode pool's steady state charges that
/// lead as its simulator does, so the two agree on TTFT as they do for
/// engines that do not defer.
#[test]
fn a_deferring_decode_pool_agrees_with_its_simulator() {
    let mut base = plan(pool(4, 1), pool(4, 1), None, 1.0, 2000, 200);
    base.levers.engine = planner_core::engine::Engine::VllmV0;
    if let Workload::Inference(i) = &mut base.workload {
        i.stream.as_mut().expect("stream").requests = 2000;
    }
    let top = report(&base).analytic.max_rate;
    for load in [0.2, 0.4] {
        let mut p = base.clone();
        if let Workload::Inference(i) = &mut p.workload {
            i.stream.as_mut().expect("stream").arrival = Arrival::Poisson {
                rate: Frequency::per_second(load * top),
            };
        }
        let d = report(&p);
        let (a, s) = (
            d.analytic.ttft.p50.as_millis(),
            d.simulated.ttft.p50.as_millis(),
        );
        println!("load {load}: TTFT analytic {a:.2} ms, simulated {s:.2} ms");
        // At the light load the queue is empty and the two differ only by
        // what each charges: 0.2 % apart with the lead, 2.1 % without
        // (185.8 / 181.6 ms against 185.5 ms simulated).
        let bound = if load < 0.3 { 0.01 } else { 0.12 };
        assert!((a - s).abs() / s <= bound, "load {load}: {a} vs {s}");
    }
}
