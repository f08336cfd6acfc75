//! The comparison as the table shows it: columns, headers, cells.

use super::{CompareRow, Latency};
use crate::i18n::results::{t, K};
use crate::i18n::Lang;
use crate::numfmt::{duration, gib, gib_signed, pct, si, usd};
use planner_core::Named;

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
}

impl Col {
    /// The columns, in order. The effort rides in the migration cell
    /// ("framework change · 1.50 person-weeks", as the family summary
    /// writes it), so the cost columns stay in view; the CSV keeps it as
    /// a column of its own.
    pub const ALL: [Col; 11] = [
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
        Col::Family => row.family.name(lang).into(),
        Col::Verdict => super::verdict_text(row.verdict, row.served, lang),
        Col::Margin => gib_signed(row.margin),
        Col::PeakHbm => gib(row.peak_hbm),
        Col::Latency => match row.latency {
            // The range on a line of its own (the cell keeps line breaks),
            // so the column stays narrow and the cost columns in view.
            Latency::Step { step, range } => format!(
                "{}\n({}–{})",
                duration(step),
                duration(range.low),
                duration(range.high)
            ),
            Latency::Serve {
                ttft,
                ttft_range,
                tpot,
                tpot_range,
            } => format!(
                "{} / {}\n({}–{} / {}–{})",
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
        Col::Migration => match (row.migration, row.person_weeks) {
            (Some(m), Some(w)) => format!(
                "{} · {} {}",
                m.name(lang),
                crate::numfmt::num(w + 0.0),
                t(lang, K::PersonWeeks)
            ),
            (m, _) => or_dash(m, |m| m.name(lang).into()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::rows;
    use crate::fixtures;

    #[test]
    fn every_cell_has_text_in_both_languages() {
        let (plans, reports) = fixtures::three();
        for lang in [Lang::En, Lang::Zh] {
            for row in &rows(&plans, &reports) {
                for col in Col::ALL {
                    assert!(!cell(row, col, lang).is_empty());
                    assert!(!col.header(lang).is_empty());
                }
            }
        }
    }
}
