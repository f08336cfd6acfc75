//! The comparison summary: for each family of ways over the wall (software
//! only, hardware only, both), the plan a reader would look at first.
//!
//! This is a choice among the rows, not a figure: the best of a family is
//! its cheapest plan that fits (dollars per million tokens, the frontier
//! chart's cost axis), ties and plans without a price broken by the lower
//! latency; where plans serve a request stream, one that keeps up with it
//! and meets its targets comes before one that does not. When none of the
//! family fits, the one closest to fitting (largest HBM margin) stands for
//! it.

use super::{CompareRow, Latency};
use planner_core::effort::PlanFamily;
use planner_core::report::{StreamVerdict, Verdict};
use std::cmp::Ordering;

/// The families the summary lists, in order.
pub const FAMILIES: [PlanFamily; 3] = [
    PlanFamily::Algorithmic,
    PlanFamily::Hardware,
    PlanFamily::Hybrid,
];

/// One family's line of the summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FamilyBest {
    /// Which family.
    pub family: PlanFamily,
    /// How many plans of the workspace are in it.
    pub plans: usize,
    /// How many of them fit.
    pub fitting: usize,
    /// Index of its best plan (see the module documentation).
    pub best: usize,
}

/// The latency a row is ranked by: step time, or time per output token.
pub fn latency_secs(row: &CompareRow) -> f64 {
    match row.latency {
        Latency::Step { step, .. } => step.as_secs(),
        Latency::Serve { tpot, .. } => tpot.as_secs(),
    }
}

fn cheaper(a: &CompareRow, b: &CompareRow) -> Ordering {
    let cost = |r: &CompareRow| {
        r.usd_per_million_tokens
            .map_or(f64::INFINITY, |u| u.as_usd())
    };
    cost(a)
        .total_cmp(&cost(b))
        .then(latency_secs(a).total_cmp(&latency_secs(b)))
}

/// Whether a row's plan serves its stream (keeps up, and meets the
/// targets it sets); a plan without a stream does.
fn serves(row: &CompareRow) -> bool {
    row.served.is_none_or(StreamVerdict::serves)
}

/// Every family with at least one plan, with its best plan; families
/// without a plan are left out.
pub fn best_of_families(rows: &[CompareRow]) -> Vec<FamilyBest> {
    FAMILIES
        .into_iter()
        .filter_map(|family| {
            let members: Vec<usize> = (0..rows.len())
                .filter(|&i| rows[i].family == family)
                .collect();
            let fits: Vec<usize> = members
                .iter()
                .copied()
                .filter(|&i| rows[i].verdict == Verdict::Fits)
                .collect();
            let fitting = fits.len();
            // Plans that also serve their stream, where any does.
            let serving: Vec<usize> = fits.iter().copied().filter(|&i| serves(&rows[i])).collect();
            let fits = if serving.is_empty() { fits } else { serving };
            let best = if fits.is_empty() {
                members.iter().copied().max_by(|&a, &b| {
                    rows[a]
                        .margin
                        .as_bytes()
                        .total_cmp(&rows[b].margin.as_bytes())
                })?
            } else {
                fits.iter()
                    .copied()
                    .min_by(|&a, &b| cheaper(&rows[a], &rows[b]))?
            };
            Some(FamilyBest {
                family,
                plans: members.len(),
                fitting,
                best,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::rows;
    use crate::i18n::Lang;
    use crate::presets::default_workspace;
    use planner_core::evaluate;

    #[test]
    fn each_family_is_led_by_its_cheapest_plan_that_fits() {
        let ws = default_workspace(Lang::En);
        let reports: Vec<_> = ws.plans.iter().map(evaluate).collect();
        let rows = rows(&ws.plans, &reports);
        let best = best_of_families(&rows);
        assert_eq!(best.len(), 3, "{best:?}");
        for b in &best {
            assert_eq!(rows[b.best].family, b.family);
            assert!(b.fitting >= 1 && b.fitting <= b.plans);
            assert_eq!(rows[b.best].verdict, Verdict::Fits);
            for (i, r) in rows.iter().enumerate() {
                if r.family == b.family && r.verdict == Verdict::Fits {
                    assert_ne!(cheaper(r, &rows[b.best]), Ordering::Less, "{i}");
                }
            }
        }
        // The counts add up to every plan but the baseline.
        assert_eq!(best.iter().map(|b| b.plans).sum::<usize>(), rows.len() - 1);
    }

    #[test]
    fn a_family_where_nothing_fits_is_led_by_the_closest() {
        let ws = default_workspace(Lang::En);
        let reports: Vec<_> = ws.plans.iter().map(evaluate).collect();
        let mut rows = rows(&ws.plans, &reports);
        for r in rows.iter_mut().filter(|r| r.family == PlanFamily::Hardware) {
            r.verdict = Verdict::DoesNotFit;
        }
        let hw = best_of_families(&rows)
            .into_iter()
            .find(|b| b.family == PlanFamily::Hardware)
            .expect("a hardware family");
        assert_eq!(hw.fitting, 0);
        let top = rows
            .iter()
            .filter(|r| r.family == PlanFamily::Hardware)
            .map(|r| r.margin.as_bytes())
            .fold(f64::NEG_INFINITY, f64::max);
        assert_eq!(rows[hw.best].margin.as_bytes(), top);
        assert!(best_of_families(&[]).is_empty());
    }

    /// In the serving scenario every plan fits; the cheaper H200 misses the
    /// stream's targets, so the GB200 that meets them leads the hardware.
    #[test]
    fn a_plan_that_meets_its_targets_leads_one_that_misses_them() {
        let ws = crate::presets::Preset::Serving.workspace(Lang::En);
        let reports: Vec<_> = ws.plans.iter().map(evaluate).collect();
        let rows = rows(&ws.plans, &reports);
        let hw = best_of_families(&rows)
            .into_iter()
            .find(|b| b.family == PlanFamily::Hardware)
            .expect("a hardware family");
        let h200 = rows.iter().position(|r| r.name.contains("H200"));
        let h200 = h200.expect("an H200 plan");
        assert_eq!(rows[h200].served, Some(StreamVerdict::MissesSlo));
        assert_eq!(rows[hw.best].served, Some(StreamVerdict::MeetsSlo));
        assert!(
            rows[hw.best].name.contains("GB200"),
            "{}",
            rows[hw.best].name
        );
        assert_eq!(cheaper(&rows[h200], &rows[hw.best]), Ordering::Less);
        // Both fit: the count is memory's.
        assert_eq!(hw.fitting, 2);
    }
}
