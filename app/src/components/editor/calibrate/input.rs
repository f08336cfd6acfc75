//! What the panel reads: a pasted harness report, or a peak and a time
//! typed for the active plan; each refused with a message key.

use crate::components::editor::parse::parse_number;
use crate::i18n::calibrate::K;
use planner_core::calibrate::{CalibrationInput, Measurement, PlanRow};
use planner_core::plan::Plan;
use planner_core::units::{Bytes, Seconds};

/// Largest pasted text read, in bytes.
pub const MAX_TEXT_BYTES: usize = 2 * 1024 * 1024;
/// Why nothing was fitted or added: a message key and, where there is one,
/// the parser's or the core's detail (shown as text).
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// The message.
    pub key: K,
    /// The detail after it (English, from serde or the core); may be empty.
    pub detail: String,
}

pub(super) fn problem(key: K) -> Problem {
    Problem {
        key,
        detail: String::new(),
    }
}

/// Reads a pasted harness report (`{"measurements": [...], "source": ...}`)
/// or a bare list of measurements.
pub fn parse_report(text: &str) -> Result<Vec<Measurement>, Problem> {
    if text.len() > MAX_TEXT_BYTES {
        return Err(problem(K::ProblemTooLarge));
    }
    match serde_json::from_str::<CalibrationInput>(text) {
        Ok(input) => Ok(input.measurements),
        Err(e) => {
            if let Ok(ms) = serde_json::from_str::<Vec<Measurement>>(text) {
                return Ok(ms);
            }
            if let Ok(serde_json::Value::Object(o)) = serde_json::from_str(text) {
                if o.contains_key("results") && !o.contains_key("measurements") {
                    return Err(problem(K::ProblemRunSet));
                }
            }
            Err(Problem {
                key: K::ProblemJson,
                detail: e.to_string(),
            })
        }
    }
}

/// A typed measured value: empty is `Ok(None)`; otherwise a positive,
/// finite number.
fn parse_measured(text: &str) -> Result<Option<f64>, ()> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    match parse_number(text) {
        Some(v) if v.is_finite() && v > 0.0 => Ok(Some(v)),
        _ => Err(()),
    }
}

/// A row of the plan from the typed peak (GiB) and time (ms).
pub fn row_of(plan: &Plan, peak_gib: &str, time_ms: &str) -> Result<PlanRow, Problem> {
    let peak = parse_measured(peak_gib).map_err(|_| problem(K::ProblemPeak))?;
    let time = parse_measured(time_ms).map_err(|_| problem(K::ProblemTime))?;
    if peak.is_none() && time.is_none() {
        return Err(problem(K::ProblemEmptyRow));
    }
    Ok(PlanRow {
        plan: plan.clone(),
        peak_allocated: peak.map(Bytes::from_gib),
        time: time.map(Seconds::from_millis),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner_core::example_plan;

    #[test]
    fn typed_values_are_positive_numbers_or_say_why_not() {
        let plan = example_plan();
        let r = row_of(&plan, "30.5", "1,200").expect("a row");
        assert_eq!(r.peak_allocated, Some(Bytes::from_gib(30.5)));
        assert_eq!(r.time, Some(Seconds::from_millis(1200.0)));
        assert!(row_of(&plan, "", "12").is_ok_and(|r| r.peak_allocated.is_none()));
        for (peak, time, key) in [
            ("", "", K::ProblemEmptyRow),
            ("-3", "", K::ProblemPeak),
            ("abc", "5", K::ProblemPeak),
            ("0", "", K::ProblemPeak),
            ("4", "NaN", K::ProblemTime),
            ("4", "inf", K::ProblemTime),
            ("4", "<b>1</b>", K::ProblemTime),
        ] {
            assert_eq!(
                row_of(&plan, peak, time).map(|_| ()),
                Err(problem(key)),
                "{peak} {time}"
            );
        }
    }

    #[test]
    fn pasted_text_is_a_report_a_list_or_a_message() {
        let m = Measurement {
            id: "<script>x</script>".into(),
            plan: example_plan(),
            measured: Default::default(),
        };
        let list = serde_json::to_string(&vec![m.clone()]).expect("json");
        let report = format!(r#"{{"measurements": {list}, "source": {{}}}}"#);
        assert_eq!(parse_report(&report).map(|v| v.len()), Ok(1));
        assert_eq!(parse_report(&list).map(|v| v[0].id.clone()), Ok(m.id));
        assert_eq!(
            parse_report(r#"{"format":"x","results":[]}"#).map(|_| ()),
            Err(problem(K::ProblemRunSet))
        );
        for bad in ["", "{", "[1]", "null", r#"{"measurements": 3}"#, "\u{0}"] {
            let e = parse_report(bad).expect_err(bad);
            assert_eq!(e.key, K::ProblemJson, "{bad}");
            assert!(!e.detail.is_empty(), "{bad}");
        }
        let huge = " ".repeat(MAX_TEXT_BYTES + 1);
        assert_eq!(
            parse_report(&huge).map(|_| ()),
            Err(problem(K::ProblemTooLarge))
        );
    }
}
