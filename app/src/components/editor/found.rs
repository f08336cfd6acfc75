//! The search the editor starts: the scenario built from the plan being
//! edited. Pure; the workers (`crate::search_run`) run it.

use planner_core::hardware::GpuChoice;
use planner_core::plan::Plan;
use planner_core::search::{Constraints, Scenario, ServingScenario, ServingSpace, Space};
use planner_core::stack::TrainingStack;

/// The search of `base` within `max_gpus`, every other setting at the
/// core's defaults; `other_gpus` lets it try every priced GPU kind, else
/// only the plan's own; `other_frameworks` lets a training plan move to
/// every current framework (`TrainingStack::DESTINATIONS`), each a
/// framework change the effort model prices.
pub fn scenario(base: Plan, max_gpus: u32, other_gpus: bool, other_frameworks: bool) -> Scenario {
    // A custom GPU has no catalog id to name in the list of kinds, so it
    // is always searched alongside the priced catalog GPUs.
    let own = match &base.hardware.gpu {
        GpuChoice::Preset(id) => Some(vec![*id]),
        GpuChoice::Custom(_) => None,
    };
    Scenario {
        version: planner_core::plan::SCHEMA_VERSION,
        name: base.name.clone(),
        base,
        max_gpus,
        gpu_counts: Default::default(),
        constraints: Constraints {
            gpu_kinds: if other_gpus { None } else { own },
            ..Constraints::default()
        },
        space: Space {
            training_stacks: if other_frameworks {
                TrainingStack::DESTINATIONS.to_vec()
            } else {
                Vec::new()
            },
            ..Space::default()
        },
        prices: Vec::new(),
    }
}

/// The most GPUs the serving search takes (`search_serving`'s bound).
const MAX_SIZED_GPUS: u32 = 4096;

/// Sizing `base`'s replicas to its request stream within `max_gpus`
/// (clamped to what the serving search takes), over the core's default
/// space of TP degrees and engine knobs.
pub fn serving_scenario(base: Plan, max_gpus: u32) -> ServingScenario {
    ServingScenario {
        base,
        max_gpus: max_gpus.clamp(1, MAX_SIZED_GPUS),
        space: ServingSpace::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner_core::example_plan;
    use planner_core::search::search;
    use search_worker::listed;

    #[test]
    fn a_stream_is_sized_within_the_budget_the_search_takes() {
        let base = planner_core::example_serving_plan();
        assert!(planner_core::search::stream_rate(&base).is_ok());
        assert!(planner_core::search::stream_rate(&example_plan()).is_err());
        let s = serving_scenario(base.clone(), 0);
        assert_eq!(s.max_gpus, 1);
        assert_eq!(serving_scenario(base.clone(), 1 << 20).max_gpus, 4096);
        let r = planner_core::search::search_serving(&serving_scenario(base, 16));
        assert_eq!(r.problem, None);
        assert!(r.frontier.iter().all(|f| f.gpus <= 16));
    }

    #[test]
    fn search_rows_are_plans_of_the_base() {
        let base = example_plan();
        let s = scenario(base.clone(), 8, false, false);
        assert_eq!(s.max_gpus, 8);
        assert_eq!(s.constraints.gpu_kinds.as_ref().map(Vec::len), Some(1));
        assert!(s.space.training_stacks.is_empty());
        assert_eq!(
            scenario(base.clone(), 8, true, false).constraints.gpu_kinds,
            None
        );
        let moved = scenario(base.clone(), 8, false, true);
        assert_eq!(moved.space.training_stacks.len(), 5);
        let r = search(&moved);
        assert!(r.counts.frameworks > 1);
        let r = search(&s);
        let rows = listed(&r);
        assert!(!rows.is_empty());
        for (_, f) in &rows {
            assert_eq!(f.plan.model, base.model);
            assert!(f.plan.hardware.gpus <= 8);
            assert_ne!(
                planner_core::evaluate(&f.plan).verdict,
                planner_core::Verdict::Invalid
            );
        }
    }
}
