//! The bodies of memwall's fuzz targets: each takes raw bytes, feeds them
//! to one entry point of the core as a user or a link would, and panics if
//! an invariant breaks. `fuzz/` wraps each in a cargo-fuzz target (nightly,
//! `scripts/fuzz.sh`); `tests/smoke.rs` runs them on a stable toolchain
//! with a fixed seed in every `cargo test`.
//!
//! The invariants (the hardening issue): nothing panics; a plan that fits
//! is within capacity on every device and tier; every figure is finite;
//! every link that opens reopens the same; every plan a search returns is
//! one `evaluate` accepts.

pub mod finite;

use finite::non_finite;
use planner_core::calibrate::{fit, CalibrationInput, FitOptions};
use planner_core::checklist::checklist_from_plain;
use planner_core::checkpoint::{checkpoint, CheckpointSettings};
use planner_core::report::Report;
use planner_core::search::{search, search_serving, Scenario, ServingScenario};
use planner_core::tenants::{share, Sharing};
use planner_core::workspace::Workspace;
use planner_core::{evaluate, Plan, Severity, Verdict};

/// Most GPUs a fuzzed search or pool may ask for, so that one input costs
/// milliseconds and the fuzzer explores instead of waiting.
const SMALL: u32 = 16;

fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

/// Every number `value` serialises is finite (`what` names it).
fn all_finite<T: serde::Serialize>(value: &T, what: &str) {
    let at = non_finite(value);
    assert!(
        at.is_none(),
        "{what} serialises a non-finite number: {at:?}"
    );
}

/// A report's own invariants: a plan that fits is within capacity on every
/// tier of every device, and every figure is finite.
pub fn check_report(r: &Report) {
    all_finite(r, "the report");
    assert!(r.hbm_margin.is_finite(), "HBM margin {:?}", r.hbm_margin);
    for d in &r.devices {
        for t in &d.tiers {
            assert!(
                t.used.is_finite() && t.capacity.is_finite()
                    || !t.used.is_finite() && r.verdict != Verdict::Fits,
                "{:?} on {:?}: {:?} of {:?}",
                t.tier,
                d.role,
                t.used,
                t.capacity
            );
            if r.verdict == Verdict::Fits {
                assert!(
                    t.fits(),
                    "fits, yet {:?} on {:?} holds {:?} of {:?}",
                    t.tier,
                    d.role,
                    t.used,
                    t.capacity
                );
            }
        }
        for i in &d.items {
            assert!(
                i.bytes.is_finite() && i.bytes.base() >= 0.0,
                "{:?} is {:?}",
                i.kind,
                i.bytes
            );
        }
    }
}

/// A plan `what` returned: `evaluate` accepts it (no error diagnostic),
/// and its report keeps the invariants.
fn accepted(plan: &Plan, what: &str) {
    let r = evaluate(plan);
    let errors: Vec<_> = r
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    assert!(
        errors.is_empty(),
        "{what} returned a plan eval rejects: {errors:?}"
    );
    check_report(&r);
}

/// A share link: decode, evaluate every plan as the page would, and
/// re-encode.
pub fn link(data: &[u8]) {
    let Some(payload) = text(data) else { return };
    let Ok(ws) = Workspace::from_link(payload) else {
        return;
    };
    let again = ws.to_link();
    assert_eq!(
        Workspace::from_link(&again).as_ref(),
        Ok(&ws),
        "a link that opens must reopen the same"
    );
    for plan in &ws.plans {
        check_report(&evaluate(plan));
        all_finite(&checkpoint(plan, &ws.reliability), "checkpoint");
    }
    let (sharing, _) = ws.tenants.sharing(&ws.plans);
    all_finite(&share(&sharing), "the tenants' share");
}

/// A plan file: what `eval`, `checkpoint` and `checklist` do with it.
pub fn plan_json(data: &[u8]) {
    let Some(json) = text(data) else { return };
    let Ok(plan) = Plan::from_json(json) else {
        return;
    };
    check_report(&evaluate(&plan));
    let settings = CheckpointSettings::default();
    all_finite(&checkpoint(&plan, &settings), "checkpoint");
    let _ = checklist_from_plain(&plan, &settings);
}

/// A search scenario, its budget cut to [`SMALL`] GPUs: every plan it
/// returns is one `evaluate` accepts.
pub fn scenario(data: &[u8]) {
    let Some(json) = text(data) else { return };
    let Ok(mut s) = Scenario::from_json(json) else {
        return;
    };
    s.max_gpus = s.max_gpus.min(SMALL);
    s.base.hardware.gpus = s.base.hardware.gpus.min(SMALL);
    let result = search(&s);
    all_finite(&result, "the search's result");
    let found = result
        .frontier
        .iter()
        .chain(result.best.algorithmic.iter())
        .chain(result.best.hardware.iter())
        .chain(result.best.hybrid.iter())
        .chain(result.fewest_gpus.iter())
        .chain(result.by_gpu_kind.iter());
    for f in found {
        accepted(&f.plan, "search");
    }
}

/// Requests a fuzzed serving search may simulate, so one input costs
/// milliseconds.
const FEW_REQUESTS: u32 = 200;

/// A serving scenario, its budget cut to [`SMALL`] GPUs, each space list
/// to its first two values and the stream to [`FEW_REQUESTS`]: every
/// answer is one `evaluate` accepts, within the budget, with finite
/// figures, and checked in the simulator against the stream's SLOs.
pub fn serving_scenario(data: &[u8]) {
    let Some(json) = text(data) else { return };
    let Ok(mut s) = serde_json::from_str::<ServingScenario>(json) else {
        return;
    };
    s.max_gpus = s.max_gpus.min(SMALL);
    s.base.hardware.gpus = s.base.hardware.gpus.min(SMALL);
    let sp = &mut s.space;
    sp.tp.truncate(2);
    sp.token_budgets.truncate(2);
    sp.max_seqs.truncate(2);
    sp.draft_tokens.truncate(2);
    sp.kv_tier_gb.truncate(2);
    let mut slo = None;
    if let planner_core::plan::Workload::Inference(w) = &mut s.base.workload {
        if let Some(st) = &mut w.stream {
            st.requests = st.requests.min(FEW_REQUESTS);
            slo = Some(st.slo);
        }
    }
    let result = search_serving(&s);
    all_finite(&result, "the serving search's result");
    if result.problem.is_some() {
        assert!(result.best.is_none() && result.frontier.is_empty());
        return;
    }
    assert!(result.feasible <= result.evaluated);
    for f in result.best.iter().chain(result.frontier.iter()) {
        assert!(
            f.gpus >= 1 && f.gpus <= s.max_gpus,
            "{} GPUs against a budget of {}",
            f.gpus,
            s.max_gpus
        );
        let a = &f.analytic;
        assert!(
            a.output_tokens_per_second.is_finite() && a.tpot.as_secs().is_finite(),
            "steady state {a:?}"
        );
        if slo.is_some_and(|o| o.is_set()) {
            let sim = f
                .simulated
                .as_ref()
                .expect("an answer under SLOs is simulated");
            assert!(sim.meets_slo, "an answer that misses its SLOs: {sim:?}");
        }
        accepted(&f.plan, "serving search");
    }
}

/// A tenants file, its pool cut to [`SMALL`] GPUs.
pub fn tenants(data: &[u8]) {
    let Some(json) = text(data) else { return };
    let Ok(mut s) = Sharing::from_json(json) else {
        return;
    };
    s.pool.gpus = s.pool.gpus.min(SMALL);
    s.jobs.truncate(8);
    all_finite(&share(&s), "the tenants' share");
}

/// A Hugging Face `config.json`: an import that succeeds gives a model the
/// planner evaluates.
pub fn hf(data: &[u8]) {
    let Some(json) = text(data) else { return };
    let Ok(imported) = planner_core::hf::import_hf_config(json) else {
        return;
    };
    let mut plan = planner_core::example_plan();
    plan.model = planner_core::plan::ModelChoice::Custom(planner_core::plan::CustomModel {
        shipped: imported.shipped,
        name: imported.name,
        spec: imported.spec,
    });
    check_report(&evaluate(&plan));
}

/// A harness report given to `calibrate`: a fit that succeeds reports
/// finite errors.
pub fn calibrate(data: &[u8]) {
    let Some(json) = text(data) else { return };
    let Ok(mut input) = serde_json::from_str::<CalibrationInput>(json) else {
        return;
    };
    input.measurements.truncate(8);
    let options = FitOptions {
        max_sweeps: 2,
        ..FitOptions::default()
    };
    if let Ok(cal) = fit(&input.measurements, &options) {
        all_finite(&cal, "the calibration");
    }
}

/// A workspace of the serving levers the page added last: a request
/// stream, disaggregated pools sending the KV cache layer by layer, and an
/// MoE model placed by heat (its routed experts move apart).
pub fn serving_workspace() -> Workspace {
    use planner_core::disagg::KvTransfer;
    use planner_core::plan::{ModelChoice, Placement};
    let mut ws = Workspace::new(planner_core::example_serving_plan());
    let mut disagg = planner_core::example_disagg_plan();
    if let Some(d) = disagg.levers.disaggregation.as_mut() {
        d.transfer = KvTransfer::LayerByLayer;
    }
    ws.plans.push(disagg);
    let mut moe = planner_core::example_serving_plan();
    moe.model = ModelChoice::Preset(planner_core::catalog::ModelId::Mixtral8x7b);
    moe.hardware.gpus = 1;
    moe.levers.parallel.tp = 1;
    moe.levers.parallel.dp = 1;
    moe.levers.placement = Placement::ByHeat;
    ws.plans.push(moe);
    // Short streams, so one case costs milliseconds.
    for p in &mut ws.plans {
        if let planner_core::plan::Workload::Inference(i) = &mut p.workload {
            if let Some(st) = i.stream.as_mut() {
                st.requests = st.requests.min(200);
            }
        }
    }
    ws
}

/// Starting inputs for each target, as (target, file name, bytes): the
/// shipped examples of every input kind.
pub fn seeds() -> Vec<(&'static str, &'static str, Vec<u8>)> {
    let plan = planner_core::example_plan();
    let mut ws = Workspace::new(plan.clone());
    ws.plans.push(plan.clone());
    let mut small = planner_core::search::example_scenario();
    small.max_gpus = 8;
    small.base = plan.clone();
    vec![
        ("plan_json", "example.json", plan.to_json().into_bytes()),
        ("link", "example.txt", ws.to_link().into_bytes()),
        (
            "link",
            "serving.txt",
            serving_workspace().to_link().into_bytes(),
        ),
        (
            "scenario",
            "gpt3.json",
            planner_core::search::example_scenario()
                .to_json()
                .into_bytes(),
        ),
        ("scenario", "small.json", small.to_json().into_bytes()),
        (
            "serving_scenario",
            "example.json",
            serde_json::to_vec(&planner_core::search::example_serving_scenario())
                .unwrap_or_default(),
        ),
        (
            "tenants",
            "example.json",
            planner_core::tenants::example_sharing()
                .to_json()
                .into_bytes(),
        ),
        ("hf", "qwen3-moe.json", HF_QWEN3_MOE.as_bytes().to_vec()),
        (
            "calibrate",
            "two-runs.json",
            serde_json::to_vec(&calibration_seed(&plan)).unwrap_or_default(),
        ),
    ]
}

/// A Qwen3-30B-A3B-shaped `config.json` (the model card's published keys).
const HF_QWEN3_MOE: &str = r#"{"model_type": "qwen3_moe", "hidden_size": 2048, "num_hidden_layers": 48,
"num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128, "intermediate_size": 6144,
"moe_intermediate_size": 768, "num_experts": 128, "num_experts_per_tok": 8, "vocab_size": 151936,
"max_position_embeddings": 40960, "tie_word_embeddings": false}"#;

fn calibration_seed(plan: &Plan) -> serde_json::Value {
    let p = serde_json::to_value(plan).unwrap_or_default();
    serde_json::json!({"measurements": [
        {"id": "a", "plan": p, "measured": {"step_time": 1.0, "peak_allocated": 6.0e10}},
        {"id": "b", "plan": p, "measured": {"step_time": 1.1, "peak_reserved": 6.5e10}}
    ]})
}
