//! What the search found, as the editor lists it: the scenario built from
//! the plan being edited, the rows shown (the first frontier plans, then
//! the cheapest of each kind of change) and a one-line summary of each.
//! Pure; the figures are the core's.

use crate::i18n::editor::{t, K};
use crate::i18n::Lang;
use planner_core::effort::PlanFamily;
use planner_core::hardware::GpuChoice;
use planner_core::plan::Plan;
use planner_core::search::{Constraints, Found, Scenario, SearchResult, Speed};

/// Frontier plans listed, at most.
pub const FRONTIER_SHOWN: usize = 5;

/// The search of `base` within `max_gpus`, every other setting at the
/// core's defaults; `other_gpus` lets it try every priced GPU kind, else
/// only the plan's own.
pub fn scenario(base: Plan, max_gpus: u32, other_gpus: bool) -> Scenario {
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
        space: Default::default(),
        prices: Vec::new(),
    }
}

/// The rows to show: the first frontier plans, then the best of each kind.
pub fn rows(r: &SearchResult) -> Vec<(K, Found)> {
    let mut v: Vec<(K, Found)> = r
        .frontier
        .iter()
        .take(FRONTIER_SHOWN)
        .map(|f| (K::FrontierRow, f.clone()))
        .collect();
    for (k, f) in [
        (K::BestAlgorithmic, &r.best.algorithmic),
        (K::BestHardware, &r.best.hardware),
        (K::BestHybrid, &r.best.hybrid),
    ] {
        if let Some(f) = f {
            v.push((k, f.clone()));
        }
    }
    v
}

/// The name of a kind of change.
pub fn family(lang: Lang, f: PlanFamily) -> &'static str {
    t(
        lang,
        match f {
            PlanFamily::Baseline => K::FamilyBaseline,
            PlanFamily::Algorithmic => K::FamilyAlgorithmic,
            PlanFamily::Hardware => K::FamilyHardware,
            PlanFamily::Hybrid => K::FamilyHybrid,
        },
    )
}

/// One line of figures: GPUs, latency, cost, as the core computed them.
pub fn summary(lang: Lang, f: &Found) -> String {
    let g = &f.figures;
    let speed = match g.speed {
        Speed::Training { step, .. } => {
            format!("{:.2} {}", step.as_secs(), t(lang, K::SecondsPerStep))
        }
        Speed::Inference { tpot, .. } => {
            format!("{:.1} {}", tpot.as_millis(), t(lang, K::MsPerToken))
        }
    };
    let cost = g
        .usd_per_million_tokens
        .map(|u| format!(" · ${:.2} {}", u.as_usd(), t(lang, K::PerMillionTokens)))
        .unwrap_or_default();
    format!("{}×{} · {speed}{cost}", g.gpus, g.gpu)
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner_core::example_plan;
    use planner_core::search::search;

    #[test]
    fn search_rows_are_plans_of_the_base() {
        let base = example_plan();
        let s = scenario(base.clone(), 8, false);
        assert_eq!(s.max_gpus, 8);
        assert_eq!(s.constraints.gpu_kinds.as_ref().map(Vec::len), Some(1));
        assert_eq!(scenario(base.clone(), 8, true).constraints.gpu_kinds, None);
        let r = search(&s);
        let rows = rows(&r);
        assert!(!rows.is_empty());
        assert!(rows.iter().filter(|(k, _)| *k == K::FrontierRow).count() <= FRONTIER_SHOWN);
        for (_, f) in &rows {
            assert_eq!(f.plan.model, base.model);
            assert!(f.plan.hardware.gpus <= 8);
            assert_ne!(
                planner_core::evaluate(&f.plan).verdict,
                planner_core::Verdict::Invalid
            );
            assert!(summary(Lang::En, f).contains(&f.figures.gpu));
        }
    }
}
