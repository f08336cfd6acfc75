//! The comparison of a workspace's plans: one row per plan with the
//! figures people decide by, as the table shows them and as CSV. Every
//! figure is a field of the plan's report; the family is
//! [`planner_core::effort::family`] against the first plan.

use crate::i18n::results::{t, K};
use crate::i18n::{domain, Lang};
use crate::numfmt::{duration, duration_range, gib, gib_signed, pct, si, usd};
use planner_core::effort::{family, MigrationClass, PlanFamily};
use planner_core::report::{Interval, Report, TimeReport, Verdict};
use planner_core::units::{Bytes, Seconds, Usd};
use planner_core::Plan;

/// A plan's latency: step time for training, TTFT and TPOT for serving.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Latency {
    /// Training.
    Step {
        /// Wall time of one optimizer step.
        step: Seconds,
        /// Its expected range.
        range: Interval<Seconds>,
    },
    /// Serving.
    Serve {
        /// Time to first token.
        ttft: Seconds,
        /// Its expected range.
        ttft_range: Interval<Seconds>,
        /// Time per output token.
        tpot: Seconds,
        /// Its expected range.
        tpot_range: Interval<Seconds>,
    },
}

/// One plan's row.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareRow {
    /// The plan's name (text).
    pub name: String,
    /// Its family against the first plan.
    pub family: PlanFamily,
    /// Fits, does not fit, invalid.
    pub verdict: Verdict,
    /// HBM capacity minus use on the binding device.
    pub margin: Bytes,
    /// HBM used on the binding device.
    pub peak_hbm: Bytes,
    /// Step time, or TTFT and TPOT.
    pub latency: Latency,
    /// Tokens per second of the whole job: trained tokens, or output
    /// tokens of all replicas.
    pub tokens_per_second: f64,
    /// Model FLOPs utilisation in `0..=1` (training only).
    pub mfu: Option<f64>,
    /// Dollars per hour of the job.
    pub usd_per_hour: Option<Usd>,
    /// Dollars per million tokens.
    pub usd_per_million_tokens: Option<Usd>,
    /// The most disruptive change the plan needs.
    pub migration: Option<MigrationClass>,
    /// Engineering effort in person-weeks (assumed).
    pub person_weeks: Option<f64>,
    /// One-time dollars: engineering plus distillation.
    pub one_time: Option<Usd>,
}

/// The rows of a workspace's plans and their reports.
pub fn rows(plans: &[Plan], reports: &[Report]) -> Vec<CompareRow> {
    let Some(baseline) = plans.first() else {
        return Vec::new();
    };
    plans
        .iter()
        .zip(reports)
        .map(|(plan, r)| {
            let (latency, tokens_per_second, mfu) = match &r.time {
                TimeReport::Training(t) => (
                    Latency::Step {
                        step: t.step,
                        range: t.step_range,
                    },
                    t.tokens_per_second,
                    Some(t.mfu),
                ),
                TimeReport::Inference(t) => (
                    Latency::Serve {
                        ttft: t.ttft,
                        ttft_range: t.ttft_range,
                        tpot: t.tpot,
                        tpot_range: t.tpot_range,
                    },
                    t.total_output_tokens_per_second,
                    None,
                ),
            };
            let cost = r.cost.as_ref();
            CompareRow {
                name: plan.name.clone(),
                family: family(plan, baseline),
                verdict: r.verdict,
                margin: r.hbm_margin,
                peak_hbm: r.binding_device().map_or(Bytes::ZERO, |d| d.hbm_used()),
                latency,
                tokens_per_second,
                mfu,
                usd_per_hour: cost.and_then(|c| c.usd_per_hour),
                usd_per_million_tokens: cost.and_then(|c| c.usd_per_million_tokens),
                migration: cost.map(|c| c.migration),
                person_weeks: cost.map(|c| c.person_weeks),
                one_time: cost.and_then(|c| c.one_time_usd),
            }
        })
        .collect()
}

/// A column of the table.
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Col {
    Plan,
    Family,
    Verdict,
    Margin,
    PeakHbm,
    Latency,
    Throughput,
    Mfu,
    UsdPerHour,
    UsdPerMTok,
    Migration,
    Effort,
}

impl Col {
    /// The columns, in order.
    pub const ALL: [Col; 12] = [
        Col::Plan,
        Col::Family,
        Col::Verdict,
        Col::Margin,
        Col::PeakHbm,
        Col::Latency,
        Col::Throughput,
        Col::Mfu,
        Col::UsdPerHour,
        Col::UsdPerMTok,
        Col::Migration,
        Col::Effort,
    ];

    /// A stable id (the cell's `data-col`).
    pub fn id(self) -> &'static str {
        match self {
            Col::Plan => "plan",
            Col::Family => "family",
            Col::Verdict => "verdict",
            Col::Margin => "margin",
            Col::PeakHbm => "peak-hbm",
            Col::Latency => "latency",
            Col::Throughput => "throughput",
            Col::Mfu => "mfu",
            Col::UsdPerHour => "usd-per-hour",
            Col::UsdPerMTok => "usd-per-mtok",
            Col::Migration => "migration",
            Col::Effort => "effort",
        }
    }

    /// The header.
    pub fn header(self, lang: Lang) -> &'static str {
        t(
            lang,
            match self {
                Col::Plan => K::Plan,
                Col::Family => K::Family,
                Col::Verdict => K::Verdict,
                Col::Margin => K::Margin,
                Col::PeakHbm => K::PeakHbm,
                Col::Latency => K::Latency,
                Col::Throughput => K::Throughput,
                Col::Mfu => K::Mfu,
                Col::UsdPerHour => K::UsdPerHour,
                Col::UsdPerMTok => K::UsdPerMTok,
                Col::Migration => K::Migration,
                Col::Effort => K::Effort,
            },
        )
    }
}

fn or_dash<T>(v: Option<T>, f: impl Fn(T) -> String) -> String {
    v.map_or_else(|| "—".to_string(), f)
}

/// A cell as the table shows it.
pub fn cell(row: &CompareRow, col: Col, lang: Lang) -> String {
    match col {
        Col::Plan => row.name.clone(),
        Col::Family => domain::family(lang, row.family).into(),
        Col::Verdict => domain::verdict(lang, row.verdict).into(),
        Col::Margin => gib_signed(row.margin),
        Col::PeakHbm => gib(row.peak_hbm),
        Col::Latency => match row.latency {
            Latency::Step { step, range } => duration_range(step, range.low, range.high),
            Latency::Serve {
                ttft,
                ttft_range,
                tpot,
                tpot_range,
            } => format!(
                "{} / {} ({}–{} / {}–{})",
                duration(ttft),
                duration(tpot),
                duration(ttft_range.low),
                duration(ttft_range.high),
                duration(tpot_range.low),
                duration(tpot_range.high)
            ),
        },
        Col::Throughput => si(row.tokens_per_second),
        Col::Mfu => or_dash(row.mfu, pct),
        Col::UsdPerHour => or_dash(row.usd_per_hour, usd),
        Col::UsdPerMTok => or_dash(row.usd_per_million_tokens, usd),
        Col::Migration => or_dash(row.migration, |m| domain::migration(lang, m).into()),
        Col::Effort => or_dash(row.person_weeks, crate::numfmt::num),
    }
}

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
            csv_text(domain::family(lang, r.family)),
            csv_text(domain::verdict(lang, r.verdict)),
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
                .map(|m| csv_text(domain::migration(lang, m)))
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
    fn one_row_per_plan_with_the_reports_figures() {
        let (plans, reports) = fixtures::three();
        let rows = rows(&plans, &reports);
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].family, PlanFamily::Baseline);
        assert_eq!(rows[0].margin, reports[0].hbm_margin);
        assert!(matches!(rows[1].latency, Latency::Serve { .. }));
        assert_eq!(rows[1].mfu, None);
        assert_eq!(rows[2].family, PlanFamily::Hybrid);
        for lang in [Lang::En, Lang::Zh] {
            for row in &rows {
                for col in Col::ALL {
                    assert!(!cell(row, col, lang).is_empty());
                }
            }
        }
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
