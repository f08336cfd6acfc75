//! Shared by the serving validation tables: the summary each pins.

/// Median (the upper middle value) and worst of the |errors|.
pub fn median_and_worst(errors: &[f64]) -> (f64, f64) {
    let mut abs: Vec<f64> = errors.iter().map(|e| e.abs()).collect();
    abs.sort_by(f64::total_cmp);
    (abs[abs.len() / 2], abs.last().copied().unwrap_or(0.0))
}
