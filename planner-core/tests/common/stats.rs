//! Shared by the validation tests: the percentiles the report's ranges
//! are checked against (`planner_core::uncertainty`).

/// The `q` quantile of `xs`, linear between order statistics.
pub fn percentile(xs: &[f64], q: f64) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let k = (v.len() - 1) as f64 * q;
    let (f, c) = (k.floor() as usize, k.ceil() as usize);
    v[f] + (v[c] - v[f]) * (k - k.floor())
}

/// Checks that a report's band holds the 10th-to-90th percentile of the
/// signed errors `xs` (negative: predicted fast) and is at most `slack`
/// (fast side, slow side) wider, printing the percentiles under `name`.
pub fn assert_band_holds(
    name: &str,
    band: planner_core::uncertainty::Band,
    xs: &[f64],
    slack: (f64, f64),
) {
    let (p10, p90) = (percentile(xs, 0.10), percentile(xs, 0.90));
    println!(
        "{name}: errors p10 {:+.1} %, p90 {:+.1} % over {} rows",
        p10 * 100.0,
        p90 * 100.0,
        xs.len()
    );
    assert!(
        band.fast >= -p10 && band.fast <= -p10 + slack.0,
        "{name}: fast {} vs {p10}",
        band.fast
    );
    assert!(
        band.slow >= p90 && band.slow <= p90 + slack.1,
        "{name}: slow {} vs {p90}",
        band.slow
    );
}
