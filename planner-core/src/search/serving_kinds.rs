//! The serving search on every GPU kind a plan could move to: which
//! hardware carries a request stream within its SLOs for the least money.
//!
//! Each kind is one serving search ([`super::search_serving`]) of the base
//! plan with its GPU swapped for that kind, the rest of its hardware kept
//! (as the batch search swaps kinds, `space::hardware_options`), so the
//! page can run them in parallel workers, one scenario each. The answer
//! of a kind is its best (fewest GPUs, then the lowest TPOT); the kinds'
//! answers are ranked by what they cost an hour, the kinds without a
//! price last.

use super::serving_space::{ServingFound, ServingScenario, ServingSearch};
use crate::hardware::GpuChoice;
use crate::units::Usd;

/// One scenario per GPU kind: the base plan's own first, then every
/// catalog GPU priced in its pricing basis (rental or purchase).
pub fn on_each_gpu_kind(s: &ServingScenario) -> Vec<ServingScenario> {
    let own = match &s.base.hardware.gpu {
        GpuChoice::Preset(id) => Some(*id),
        GpuChoice::Custom(_) => None,
    };
    let mut out = vec![s.clone()];
    for id in super::space::priced_gpu_kinds(&s.base) {
        if Some(id) != own {
            let mut other = s.clone();
            other.base.hardware.gpu = GpuChoice::Preset(id);
            out.push(other);
        }
    }
    out
}

/// The order of the kinds' answers: cheaper per hour first, an answer
/// without a price after every priced one, then fewer GPUs. (The page
/// orders the answers its workers return with this, as
/// [`cheapest_kinds`] does.)
pub fn cheaper(
    (a_usd, a_gpus): (Option<Usd>, u32),
    (b_usd, b_gpus): (Option<Usd>, u32),
) -> std::cmp::Ordering {
    let cost = |u: Option<Usd>| u.map_or(f64::INFINITY, |u| u.base());
    cost(a_usd)
        .total_cmp(&cost(b_usd))
        .then(a_gpus.cmp(&b_gpus))
}

/// Each kind's best answer, in [`cheaper`] order; kinds with no answer
/// are left out.
pub fn cheapest_kinds(results: &[ServingSearch]) -> Vec<ServingFound> {
    let mut best: Vec<ServingFound> = results.iter().filter_map(|r| r.best.clone()).collect();
    best.sort_by(|a, b| cheaper((a.usd_per_hour, a.gpus), (b.usd_per_hour, b.gpus)));
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{example_serving_scenario, search_serving};

    /// The base kind comes first and no kind twice; every other scenario
    /// differs from the base in its GPU kind alone.
    #[test]
    fn each_priced_kind_once_the_base_first() {
        let s = example_serving_scenario();
        let all = on_each_gpu_kind(&s);
        assert!(all.len() > 3, "{} kinds", all.len());
        assert_eq!(all[0], s);
        let kinds: Vec<String> = all
            .iter()
            .map(|o| o.base.hardware.gpu.name().to_string())
            .collect();
        let unique: std::collections::HashSet<&String> = kinds.iter().collect();
        assert_eq!(unique.len(), kinds.len(), "{kinds:?}");
        for o in &all[1..] {
            let mut back = o.clone();
            back.base.hardware.gpu = s.base.hardware.gpu.clone();
            assert_eq!(back, s);
        }
    }

    /// The kinds' best answers, cheapest first; each is that kind's own
    /// best answer.
    #[test]
    fn the_cheapest_kind_leads() {
        let s = example_serving_scenario();
        let results: Vec<ServingSearch> = on_each_gpu_kind(&s)
            .iter()
            .take(4)
            .map(search_serving)
            .collect();
        let ranked = cheapest_kinds(&results);
        assert!(!ranked.is_empty());
        let cost = |f: &ServingFound| f.usd_per_hour.map_or(f64::INFINITY, |u| u.base());
        for w in ranked.windows(2) {
            assert!(cost(&w[0]) <= cost(&w[1]));
        }
        for f in &ranked {
            assert!(results.iter().any(|r| r.best.as_ref() == Some(f)));
        }
    }
}
