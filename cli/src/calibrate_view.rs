//! `memwall calibrate`: the fitted profile and the before/after table, as
//! text. Views only: the fit is `planner_core::calibrate::fit`.

use planner_core::calibrate::{Calibration, ErrorSummary, Knob};
use std::fmt::Write;

fn pct(e: f64) -> String {
    if e.is_finite() {
        format!("{:+.1}%", e * 100.0)
    } else {
        "—".into()
    }
}

fn summaries(o: &mut String, title: &str, before: &[ErrorSummary], after: &[ErrorSummary]) {
    let _ = writeln!(o, "\n{title}");
    let _ = writeln!(
        o,
        "  {:14}  {:>5}  {:>14}  {:>14}  {:>10}  {:>10}",
        "figure", "n", "median before", "median after", "worst bef.", "worst aft."
    );
    for b in before {
        let a = after.iter().find(|a| a.figure == b.figure);
        let _ = writeln!(
            o,
            "  {:14}  {:>5}  {:>13.1}%  {:>13.1}%  {:>10}  {:>10}",
            b.figure.label(),
            b.count,
            b.median_abs * 100.0,
            a.map_or(f64::NAN, |a| a.median_abs * 100.0),
            pct(b.worst),
            a.map_or("—".into(), |a| pct(a.worst)),
        );
    }
}

/// The profile, the knobs before and after, the per-figure summaries and
/// every held-out row.
pub fn render(c: &Calibration) -> String {
    let mut o = String::new();
    let p = &c.profile;
    let _ = writeln!(
        o,
        "calibration of {}{} from {} measurements ({} held out), {} sweeps",
        p.gpu,
        p.gpu_id
            .map(|id| format!(
                " ({})",
                serde_json::to_string(&id)
                    .unwrap_or_default()
                    .trim_matches('"')
            ))
            .unwrap_or_default(),
        p.measurements + c.held_out,
        c.held_out,
        c.sweeps
    );
    if !p.source.fixtures.is_empty() {
        let _ = writeln!(o, "fixtures  {}", p.source.fixtures.join(", "));
    }
    if !p.source.measured_on.is_empty() {
        let _ = writeln!(o, "measured  {}", p.source.measured_on);
    }
    if !p.source.software.is_empty() {
        let _ = writeln!(o, "software  {}", p.source.software);
    }
    let _ = writeln!(o, "\n  {:26}  {:>12}  {:>12}", "knob", "before", "fitted");
    for k in Knob::ALL {
        let fitted = p.fitted.contains(&k);
        let _ = writeln!(
            o,
            "  {:26}  {:>12}  {:>12}{}",
            k.label(),
            c.start.show(k),
            if fitted {
                p.knobs.show(k)
            } else {
                "—".into()
            },
            if fitted { "" } else { "  (not fitted)" }
        );
    }
    for (k, why) in &c.not_fitted {
        let _ = writeln!(o, "  note: {} not fitted: {why}", k.label());
    }
    let _ = writeln!(
        o,
        "  objective (mean squared log-ratio): {:.3e} → {:.3e}",
        c.objective.high, c.objective.low
    );
    let title = if c.held_out > 0 {
        "errors on the held-out configurations"
    } else {
        "errors on every configuration (none held out)"
    };
    summaries(&mut o, title, &c.held_out_before, &c.held_out_after);
    let rows: Vec<_> = c
        .rows
        .iter()
        .filter(|r| r.held_out || c.held_out == 0)
        .collect();
    if !rows.is_empty() {
        let w = rows
            .iter()
            .map(|r| r.id.len())
            .max()
            .unwrap_or(0)
            .max("configuration".len());
        let _ = writeln!(
            o,
            "\n  {:w$}  {:14}  {:>12}  {:>9}  {:>9}",
            "configuration", "figure", "measured", "before", "after"
        );
        for r in rows {
            let _ = writeln!(
                o,
                "  {:w$}  {:14}  {:>12}  {:>9}  {:>9}",
                r.id,
                r.figure.label(),
                r.measured.to_string(),
                pct(r.error_before()),
                pct(r.error_after())
            );
        }
    }
    o
}
