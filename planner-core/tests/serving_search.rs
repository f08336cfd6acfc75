//! The serving search (issue 13): engine knobs and replicas under the
//! stream's rate and SLOs; every answer evaluates as found, meets the
//! SLOs, and lists what changed.

use planner_core::diff::{Impact, Setting};
use planner_core::engine::PrefixCaching;
use planner_core::plan::Workload;
use planner_core::search::{example_serving_scenario, search_serving};
use planner_core::{evaluate, Verdict};

#[test]
fn the_example_search_finds_plans_that_meet_the_slos() {
    let s = example_serving_scenario();
    let out = search_serving(&s);
    assert!(out.problem.is_none(), "{:?}", out.problem);
    // 4 TP × 4 budgets × 5 running limits × 6 draft-token counts.
    assert_eq!(out.evaluated, 4 * 4 * 5 * 6);
    let best = out.best.as_ref().expect("an answer");
    assert!(best.gpus <= s.max_gpus);
    assert!(!out.frontier.is_empty());
    for f in &out.frontier {
        let a = &f.analytic;
        assert!(a.stable);
        assert!(
            a.ttft.p99.as_secs() <= 2.0 + 1e-9,
            "{}",
            a.ttft.p99.as_secs()
        );
        assert!(a.tpot.as_secs() <= 0.1 + 1e-9);
        assert_eq!(f.gpus, f.replicas * f.plan.levers.parallel.tp);
        let r = evaluate(&f.plan);
        assert_eq!(r.verdict, Verdict::Fits, "{:?}", r.diagnostics);
        // What it lists is what differs, and the flag follows the list.
        let listed: Vec<Setting> = f.changes.iter().map(|c| c.setting).collect();
        assert!(listed.contains(&Setting::MaxSeqs));
        let sla = f.changes.iter().any(|c| c.impact == Impact::Sla);
        assert_eq!(f.affects_sla, sla);
        assert_eq!(
            f.plan.levers.engine_knobs.max_seqs.is_some(),
            listed.contains(&Setting::MaxSeqs)
        );
        assert_eq!(
            f.plan.levers.engine_knobs.host_overlap.is_some(),
            listed.contains(&Setting::HostOverlap)
        );
        // Named by what changed, not after the base (physics finding 7).
        assert_ne!(f.plan.name, s.base.name);
        assert!(
            f.plan.name.starts_with(&format!("{}×", f.gpus)),
            "{}",
            f.plan.name
        );
        assert!(
            f.plan.name.contains("running-request limit"),
            "{}",
            f.plan.name
        );
    }
    // The frontier's TPOT falls strictly as GPUs rise.
    for w in out.frontier.windows(2) {
        assert!(w[1].gpus >= w[0].gpus);
        assert!(w[1].analytic.tpot < w[0].analytic.tpot);
    }
}

#[test]
fn speculation_is_tried_only_with_a_drafter_and_caching_only_with_a_prefix() {
    let mut s = example_serving_scenario();
    s.base.levers.speculative = None;
    let plain = search_serving(&s);
    assert_eq!(plain.evaluated, 4 * 4 * 5);
    if let Workload::Inference(i) = &mut s.base.workload {
        i.stream.as_mut().expect("stream").shared_prefix = 256;
    }
    let prefixed = search_serving(&s);
    assert_eq!(prefixed.evaluated, 2 * 4 * 4 * 5);
    // A warm shared prefix only removes prefill work: the best answer
    // keeps caching on and needs no more GPUs than without a prefix.
    let best = prefixed.best.expect("an answer");
    assert_eq!(
        best.plan.levers.engine_knobs.prefix_caching,
        Some(PrefixCaching::On)
    );
    assert!(best.gpus <= plain.best.expect("an answer").gpus);
}

/// SGLang may run prompt chunks beside decoding (`--enable-mixed-chunk`):
/// its search tries both ways, every answer says which it took, and the
/// best is never worse than with prefill first alone.
#[test]
fn sglang_searches_both_ways_of_meeting_prompts() {
    use planner_core::engine::{Batching, Engine};
    let mut s = example_serving_scenario();
    s.base.levers.speculative = None;
    s.base.levers.engine = Engine::Sglang;
    let both = search_serving(&s);
    assert_eq!(both.evaluated, 2 * 4 * 4 * 5);
    s.base.levers.engine = Engine::Vllm;
    assert_eq!(search_serving(&s).evaluated, 4 * 4 * 5);
    s.base.levers.engine = Engine::Sglang;
    s.space.token_budgets = vec![8192];
    let best = search_serving(&s).best.expect("an answer");
    let ways: Vec<Option<Batching>> = both
        .frontier
        .iter()
        .map(|f| f.plan.levers.engine_knobs.batching)
        .collect();
    assert!(
        ways.iter()
            .all(|w| w.is_none() || *w == Some(Batching::Mixed)),
        "{ways:?}"
    );
    assert!(best.gpus >= both.best.expect("an answer").gpus);
}

/// TensorRT-LLM's MoE backend is searched both ways only where it changes
/// what the experts cost (an MoE model's NVFP4 experts on Blackwell); the
/// answer names the backend it took, and with the TRTLLM-Gen kernels
/// cheaper there, the best answer takes them.
#[test]
fn tensorrt_llm_searches_its_moe_backend_where_it_matters() {
    use planner_core::catalog::{GpuId, ModelId};
    use planner_core::engine::{Engine, MoeBackend};
    use planner_core::hardware::GpuChoice;
    use planner_core::plan::ModelChoice;
    use planner_core::precision::Precision;
    let mut s = example_serving_scenario();
    s.base.levers.speculative = None;
    s.base.levers.engine = Engine::TrtLlm;
    s.space.token_budgets = vec![8192];
    let dense = search_serving(&s).evaluated;
    s.base.model = ModelChoice::Preset(ModelId::Mixtral8x7b);
    // On Hopper in FP8 the backend changes nothing: one way only.
    s.base.levers.precision.weights = Precision::Fp8;
    s.base.levers.precision.compute = Precision::Fp8;
    assert_eq!(search_serving(&s).evaluated, dense);
    s.base.hardware.gpu = GpuChoice::Preset(GpuId::B200);
    s.base.levers.precision.weights = Precision::Nvfp4;
    s.base.levers.precision.compute = Precision::Nvfp4;
    let both = search_serving(&s);
    assert!(both.problem.is_none(), "{:?}", both.problem);
    assert_eq!(both.evaluated, 2 * dense);
    let best = both.best.expect("an answer");
    assert_eq!(
        best.plan.levers.engine_knobs.moe_backend,
        Some(MoeBackend::Trtllm)
    );
    assert!(
        best.changes
            .iter()
            .any(|c| c.setting == Setting::MoeBackend && c.to == "trtllm"),
        "{:?}",
        best.changes
    );
}

#[test]
fn a_drafter_never_makes_the_best_answer_worse() {
    let with = search_serving(&example_serving_scenario());
    let mut s = example_serving_scenario();
    s.base.levers.speculative = None;
    let without = search_serving(&s);
    let (a, b) = (with.best.expect("answer"), without.best.expect("answer"));
    // k = 0 is in the space, so the drafter's search contains the plain one.
    assert!(a.gpus <= b.gpus);
    if a.gpus == b.gpus {
        assert!(a.analytic.tpot <= b.analytic.tpot);
    }
}

#[test]
fn scenarios_it_cannot_search_say_why() {
    let mut s = example_serving_scenario();
    s.base.levers.engine = planner_core::engine::Engine::Static;
    assert!(search_serving(&s).problem.is_some());
    let mut s = example_serving_scenario();
    s.space.tp = vec![0];
    assert!(search_serving(&s).problem.is_some());
    let mut s = example_serving_scenario();
    s.max_gpus = 0;
    assert!(search_serving(&s).problem.is_some());
}

/// The steady state is optimistic near saturation (docs/validation.md,
/// "Serving: analytic vs simulator"): on the example, its fewest-GPU
/// answer, two GPUs at 95 % of their largest rate, has a simulated TTFT
/// p99 of several seconds against a 2 s objective. Every answer the search
/// returns has been run through the simulator, and meets the stream's
/// SLOs there, with the replicas it needed.
#[test]
fn every_answer_meets_its_slos_in_the_simulator() {
    let s = example_serving_scenario();
    let out = search_serving(&s);
    let best = out.best.as_ref().expect("an answer");
    let mut answers = vec![best];
    answers.extend(out.frontier.iter());
    for f in answers {
        let sim = f.simulated.as_ref().expect("checked by the simulator");
        assert!(sim.meets_slo, "{} GPUs", f.gpus);
        assert!(sim.ttft.p99.as_secs() <= 2.0 + 1e-9);
        assert!(sim.tpot.p99.as_secs() <= 0.1 + 1e-9);
        // The figures are the plan's own: evaluating it again agrees.
        let again = planner_core::serving::simulate(&f.plan).expect("a stream");
        assert_eq!(again.ttft.p99, sim.ttft.p99);
        assert_eq!(f.gpus, f.replicas * f.plan.levers.parallel.tp);
        assert_eq!(f.plan.hardware.gpus, f.gpus);
    }
    // The two-GPU replicas the steady state would have sent miss the
    // objective in the simulator, so the best answer takes more GPUs.
    assert!(best.gpus > 2, "{}", best.gpus);
}
