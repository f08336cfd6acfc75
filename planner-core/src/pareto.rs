//! The Pareto frontier of plans that minimise two figures at once, such as
//! latency and cost: the plans no other plan beats on both.
//!
//! The function is generic over the two figures so typed quantities
//! ([`crate::units::Seconds`], [`crate::units::Usd`]) go in as they are.

use std::cmp::Ordering;

/// Indices of the points that no other point dominates, both coordinates to
/// be minimised, in increasing order of the first coordinate.
///
/// A point dominates another when it is no worse in both coordinates and
/// better in at least one. Equal points do not dominate each other, so all
/// copies of a frontier point are kept. A point with a coordinate that
/// compares with nothing (a NaN) is never on the frontier and dominates
/// nothing. Runs in O(n log n).
pub fn pareto_front<A: PartialOrd, B: PartialOrd>(points: &[(A, B)]) -> Vec<usize> {
    let comparable =
        |v: &(A, B)| v.0.partial_cmp(&v.0).is_some() && v.1.partial_cmp(&v.1).is_some();
    let mut order: Vec<usize> = (0..points.len())
        .filter(|&i| comparable(&points[i]))
        .collect();
    // By the first coordinate, then the second, then the index: every point
    // that can dominate a point comes before it.
    order.sort_by(|&i, &j| {
        let (a, b) = (&points[i], &points[j]);
        a.0.partial_cmp(&b.0)
            .unwrap_or(Ordering::Equal)
            .then(a.1.partial_cmp(&b.1).unwrap_or(Ordering::Equal))
            .then(i.cmp(&j))
    });
    let mut front: Vec<usize> = Vec::new();
    for i in order {
        let p = &points[i];
        let keep = match front.last() {
            None => true,
            // The last kept point has the least second coordinate so far
            // and no greater first coordinate: the point survives only by
            // beating it on the second, or by being equal to it.
            Some(&k) => {
                let last = &points[k];
                p.1 < last.1 || (p.1 == last.1 && p.0 == last.0)
            }
        };
        if keep {
            front.push(i);
        }
    }
    front
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::{Seconds, Usd};
    use proptest::prelude::*;

    #[test]
    fn hand_examples() {
        let empty: [(f64, f64); 0] = [];
        assert!(pareto_front(&empty).is_empty());
        assert_eq!(pareto_front(&[(1.0, 1.0)]), vec![0]);
        // A staircase, listed out of order, with one dominated point.
        let pts = [(3.0, 1.0), (1.0, 3.0), (2.0, 2.0), (2.5, 2.5)];
        assert_eq!(pareto_front(&pts), vec![1, 2, 0]);
        // Same latency, one cheaper: the dearer one is dominated.
        assert_eq!(pareto_front(&[(1.0, 2.0), (1.0, 1.0)]), vec![1]);
        // Same cost, one faster.
        assert_eq!(pareto_front(&[(2.0, 1.0), (1.0, 1.0)]), vec![1]);
        // Exact copies are both kept.
        assert_eq!(
            pareto_front(&[(1.0, 1.0), (1.0, 1.0), (2.0, 2.0)]),
            vec![0, 1]
        );
        // One point better in both: the only one.
        assert_eq!(pareto_front(&[(5.0, 5.0), (0.5, 0.5), (1.0, 9.0)]), vec![1]);
    }

    #[test]
    fn nan_is_never_on_the_front_and_dominates_nothing() {
        let pts = [(f64::NAN, 0.0), (1.0, 1.0), (2.0, f64::NAN), (0.5, 2.0)];
        assert_eq!(pareto_front(&pts), vec![3, 1]);
    }

    #[test]
    fn typed_quantities() {
        let pts = [
            (Seconds::from_secs(2.0), Usd::new(1.0)),
            (Seconds::from_secs(1.0), Usd::new(3.0)),
            (Seconds::from_secs(3.0), Usd::new(4.0)),
        ];
        assert_eq!(pareto_front(&pts), vec![1, 0]);
    }

    fn dominates(p: (f64, f64), q: (f64, f64)) -> bool {
        p.0 <= q.0 && p.1 <= q.1 && (p.0 < q.0 || p.1 < q.1)
    }

    proptest! {
        /// The front is exactly the set of undominated points, in order of
        /// the first coordinate. Small integer grids make ties common.
        #[test]
        fn front_is_the_undominated_set(raw in prop::collection::vec((0u8..8, 0u8..8), 0..40)) {
            let pts: Vec<(f64, f64)> = raw.iter().map(|&(a, b)| (f64::from(a), f64::from(b))).collect();
            let front = pareto_front(&pts);
            for i in 0..pts.len() {
                let undominated = !pts.iter().any(|&q| dominates(q, pts[i]));
                prop_assert_eq!(front.contains(&i), undominated, "point {} {:?}", i, pts[i]);
            }
            prop_assert!(front.windows(2).all(|w| pts[w[0]].0 <= pts[w[1]].0));
            prop_assert!(front.windows(2).all(|w| pts[w[0]].1 >= pts[w[1]].1));
        }
    }
}
