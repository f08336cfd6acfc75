//! The comparison as CSV (RFC 4180), for spreadsheets.

use super::{CompareRow, Latency};
use crate::i18n::results::{t, K};
use crate::i18n::Lang;
use planner_core::units::{Seconds, Usd};
use planner_core::Named;

/// A text field of a CSV record (RFC 4180): quoted when it holds a comma,
/// quote or line break, quotes doubled. A leading `=`, `+`, `-`, `@`, tab
/// or carriage return gets a `'` first, so a plan name from a link cannot
/// become a spreadsheet formula.
pub fn csv_text(s: &str) -> String {
    let s = if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{s}")
    } else {
        s.to_string()
    };
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

/// A number field: the shortest exact decimal; empty when absent.
fn csv_num(v: Option<f64>) -> String {
    v.filter(|v| v.is_finite())
        .map(|v| v.to_string())
        .unwrap_or_default()
}

/// The comparison as CSV: a header and one record per plan, CRLF line
/// ends, numbers in base units named in the header (GiB, seconds, dollars).
pub fn csv(rows: &[CompareRow], lang: Lang) -> String {
    let (lo, hi) = (t(lang, K::Low), t(lang, K::High));
    let time = |k: K| {
        let n = t(lang, k);
        [
            format!("{n} (s)"),
            format!("{n} ({lo}, s)"),
            format!("{n} ({hi}, s)"),
        ]
    };
    let mut header: Vec<String> = [K::Plan, K::Family, K::Verdict, K::Margin, K::PeakHbm]
        .iter()
        .map(|&k| t(lang, k).to_string())
        .collect();
    header.extend(time(K::StepTime));
    header.extend(time(K::Ttft));
    header.extend(time(K::Tpot));
    header.extend(
        [
            K::Throughput,
            K::Mfu,
            K::UsdPerHour,
            K::UsdPerMTok,
            K::Migration,
            K::Effort,
            K::OneTime,
        ]
        .iter()
        .map(|&k| t(lang, k).to_string()),
    );
    let mut out = header
        .iter()
        .map(|h| csv_text(h))
        .collect::<Vec<_>>()
        .join(",");
    out.push_str("\r\n");
    for r in rows {
        let secs = |s: Seconds| Some(s.as_secs());
        let (step, ttft, tpot) = match r.latency {
            Latency::Step { step, range } => (
                [secs(step), secs(range.low), secs(range.high)],
                [None; 3],
                [None; 3],
            ),
            Latency::Serve {
                ttft,
                ttft_range,
                tpot,
                tpot_range,
            } => (
                [None; 3],
                [secs(ttft), secs(ttft_range.low), secs(ttft_range.high)],
                [secs(tpot), secs(tpot_range.low), secs(tpot_range.high)],
            ),
        };
        let mut f = vec![
            csv_text(&r.name),
            csv_text(r.family.name(lang)),
            csv_text(r.verdict.name(lang)),
            csv_num(Some(r.margin.as_gib())),
            csv_num(Some(r.peak_hbm.as_gib())),
        ];
        f.extend(step.into_iter().chain(ttft).chain(tpot).map(csv_num));
        f.push(csv_num(Some(r.tokens_per_second)));
        f.push(csv_num(r.mfu));
        f.push(csv_num(r.usd_per_hour.map(Usd::as_usd)));
        f.push(csv_num(r.usd_per_million_tokens.map(Usd::as_usd)));
        f.push(
            r.migration
                .map(|m| csv_text(m.name(lang)))
                .unwrap_or_default(),
        );
        f.push(csv_num(r.person_weeks));
        f.push(csv_num(r.one_time.map(Usd::as_usd)));
        out.push_str(&f.join(","));
        out.push_str("\r\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::rows;
    use crate::fixtures;

    /// Splits one CSV record into fields, honouring quotes.
    fn fields(line: &str) -> Vec<String> {
        let (mut out, mut cur, mut quoted, mut chars) =
            (Vec::new(), String::new(), false, line.chars().peekable());
        while let Some(c) = chars.next() {
            match (c, quoted) {
                ('"', true) if chars.peek() == Some(&'"') => {
                    cur.push('"');
                    chars.next();
                }
                ('"', _) => quoted = !quoted,
                (',', false) => out.push(std::mem::take(&mut cur)),
                _ => cur.push(c),
            }
        }
        out.push(cur);
        out
    }

    #[test]
    fn csv_has_a_header_and_one_record_per_plan_and_escapes_names() {
        let (plans, reports) = fixtures::three();
        let rows = rows(&plans, &reports);
        for lang in [Lang::En, Lang::Zh] {
            let text = csv(&rows, lang);
            let lines: Vec<&str> = text.split("\r\n").filter(|l| !l.is_empty()).collect();
            assert_eq!(lines.len(), 1 + plans.len());
            let width = fields(lines[0]).len();
            for (line, plan) in lines[1..].iter().zip(&plans) {
                let f = fields(line);
                assert_eq!(f.len(), width, "{line}");
                // Names with commas and quotes come back whole.
                assert_eq!(f[0], plan.name);
            }
        }
        assert_eq!(csv_text("serve, \"fast\""), "\"serve, \"\"fast\"\"\"");
        assert_eq!(csv_text("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(csv_text("-3"), "'-3");
        assert_eq!(csv_text("plain"), "plain");
        assert_eq!(csv_text("two\nlines"), "\"two\nlines\"");
    }
}
