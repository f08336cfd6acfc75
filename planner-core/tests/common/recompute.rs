//! Shared by the validation tests: the least activation recompute that
//! fits, for runs whose publication does not say.

use planner_core::plan::{Checkpointing, ModelChoice, Plan};
use planner_core::{evaluate, Verdict};

/// `plan` with the least recompute that fits: none, then the first k
/// layers of each of its `pp` stages, then every layer. Unchanged past
/// that (the caller reports the plan as not fitting).
pub fn least_that_fits(mut plan: Plan, pp: u32) -> Plan {
    let layers = match &plan.model {
        ModelChoice::Preset(id) => planner_core::catalog::model(*id).spec.layers,
        ModelChoice::Custom(c) => c.spec.layers,
    };
    let per_stage = layers.div_ceil(pp);
    let options = std::iter::once(Checkpointing::None)
        .chain((1..per_stage).map(|k| Checkpointing::Block { layers: k }))
        .chain(std::iter::once(Checkpointing::Full));
    for ckpt in options {
        plan.levers.checkpointing = ckpt;
        if evaluate(&plan).verdict == Verdict::Fits {
            return plan;
        }
    }
    plan
}
