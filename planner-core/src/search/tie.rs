//! Ties within the model's uncertainty: two plans the search ranks apart
//! whose latency and cost ranges overlap, so the model cannot say which is
//! better. The ranges are `evaluate`'s (the efficiency spread widened by
//! the validation error of the time model on measured runs of the same
//! kind, `uncertainty.rs`). At a fixed price per hour, dollars per
//! million tokens scale with the time per step or per output token, so a
//! plan's cost range is its cost scaled by its latency range.

use super::Found;
use crate::evaluate::evaluate;
use crate::report::{Interval, TimeReport};

/// A plan's expected ranges: latency (seconds) and cost ($ per million
/// tokens; `None` when unpriced).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Spread {
    latency: Interval<f64>,
    cost: Option<Interval<f64>>,
}

fn spread(f: &Found) -> Spread {
    let range = match evaluate(&f.plan).time {
        TimeReport::Training(t) => t.step_range,
        TimeReport::Inference(t) => t.tpot_range,
    };
    let (low, high) = (range.low.as_secs(), range.high.as_secs());
    let mid = f.figures.speed.latency().as_secs();
    let cost = f
        .figures
        .usd_per_million_tokens
        .and_then(|u| scaled(u.as_usd(), Interval { low, high }, mid));
    Spread {
        latency: Interval { low, high },
        cost,
    }
}

/// A cost's range when the time it scales with ranges over `time` about
/// `mid` (seconds): the cost times each end over the middle; `None`
/// without a finite positive middle.
pub(super) fn scaled(cost: f64, time: Interval<f64>, mid: f64) -> Option<Interval<f64>> {
    (mid > 0.0 && mid.is_finite()).then(|| Interval {
        low: cost * time.low / mid,
        high: cost * time.high / mid,
    })
}

/// Whether two ranges share a point.
pub(super) fn overlap(a: &Interval<f64>, b: &Interval<f64>) -> bool {
    a.low <= b.high && b.low <= a.high
}

/// Whether two spreads cannot be told apart: latency ranges overlap, and
/// cost ranges overlap (or neither plan is priced).
fn tied(a: &Spread, b: &Spread) -> bool {
    overlap(&a.latency, &b.latency)
        && match (&a.cost, &b.cost) {
            (Some(x), Some(y)) => overlap(x, y),
            (None, None) => true,
            _ => false,
        }
}

/// For each plan of a list, the first earlier plan it ties with within
/// the model's uncertainty (see the module documentation), if any.
pub fn ties(rows: &[&Found]) -> Vec<Option<usize>> {
    let spreads: Vec<Spread> = rows.iter().map(|f| spread(f)).collect();
    spreads
        .iter()
        .enumerate()
        .map(|(i, s)| (0..i).find(|&j| tied(&spreads[j], s)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::example_plan;
    use crate::search::PlanFamily;

    #[test]
    fn a_plan_ties_with_itself_and_not_with_one_far_slower() {
        let base = example_plan();
        let a = Found::new(PlanFamily::Baseline, base.clone(), &base);
        let mut slow = base.clone();
        // A quarter of the GPUs (and of the data-parallel ranks): about
        // four times the step time, far outside ±15 %.
        slow.hardware.gpus = base.hardware.gpus / 4;
        slow.levers.parallel.dp = (base.levers.parallel.dp / 4).max(1);
        let b = Found::new(PlanFamily::Hardware, slow, &base);
        let t = ties(&[&a, &a.clone(), &b]);
        assert_eq!(t[0], None);
        assert_eq!(t[1], Some(0));
        assert_eq!(t[2], None, "{:?} vs {:?}", spread(&a), spread(&b));
    }

    #[test]
    fn overlap_is_symmetric_and_strict_outside() {
        let iv = |low, high| Interval { low, high };
        assert!(overlap(&iv(1.0, 2.0), &iv(2.0, 3.0)));
        assert!(overlap(&iv(2.0, 3.0), &iv(1.0, 2.0)));
        assert!(!overlap(&iv(1.0, 2.0), &iv(2.1, 3.0)));
        assert!(!overlap(&iv(2.1, 3.0), &iv(1.0, 2.0)));
    }
}
