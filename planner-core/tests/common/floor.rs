//! Shared by the physics, serving-search, KV-tier and disaggregation
//! tests: every answer a search returns is held to the independent floor
//! (`planner_core::floor`).

use planner_core::evaluate;
use planner_core::plan::Plan;
use planner_core::report::TimeReport;

/// Holds plans to the floor: each time at or above the independent bound,
/// each MFU at or below the ceiling; each a plan eval accepts.
pub fn held_to_the_floor(plans: Vec<&Plan>) {
    assert!(!plans.is_empty(), "the search returned nothing to check");
    let mut checked = 0;
    for plan in plans {
        let Some(f) = planner_core::floor::floor(plan) else {
            continue;
        };
        let r = evaluate(plan);
        // What search returns, eval accepts as a valid plan (hardening
        // finding 4; the baseline may still not fit).
        assert_ne!(
            r.verdict,
            planner_core::Verdict::Invalid,
            "{}: {:?}",
            plan.name,
            r.diagnostics
        );
        match &r.time {
            TimeReport::Training(t) => {
                assert!(
                    t.step >= f.time * (1.0 - 1e-9),
                    "{}: step {} < floor {}",
                    plan.name,
                    t.step.as_secs(),
                    f.time.as_secs()
                );
                assert!(
                    t.mfu <= f.mfu_ceiling * (1.0 + 1e-9),
                    "{}: MFU {} > {}",
                    plan.name,
                    t.mfu,
                    f.mfu_ceiling
                );
            }
            TimeReport::Inference(t) => {
                assert!(
                    t.tpot >= f.time * (1.0 - 1e-9),
                    "{}: TPOT {} < floor {}",
                    plan.name,
                    t.tpot.as_secs(),
                    f.time.as_secs()
                );
                assert!(
                    t.ttft >= f.ttft * (1.0 - 1e-9),
                    "{}: TTFT {} < floor {}",
                    plan.name,
                    t.ttft.as_secs(),
                    f.ttft.as_secs()
                );
            }
        }
        checked += 1;
    }
    assert!(checked > 0);
}
