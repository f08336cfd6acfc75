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
