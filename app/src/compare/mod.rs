//! The comparison of a workspace's plans: one row per plan with the
//! figures people decide by, as the table shows them and as CSV. Every
//! figure is a field of the plan's report; the family is
//! [`planner_core::effort::family`] against the first plan.

pub mod best;
mod csv;
mod table;

pub use best::{best_of_families, FamilyBest};

pub use csv::{csv, csv_text};
pub use table::{cell, Col};

use crate::i18n::Lang;
use planner_core::effort::{family, MigrationClass, PlanFamily};
use planner_core::report::{Interval, Report, StreamVerdict, TimeReport, Verdict};
use planner_core::units::{Bytes, Seconds, Usd};
use planner_core::{Named, Plan};

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
    /// How a plan that fits serves its request stream, when it has one.
    pub served: Option<StreamVerdict>,
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
    /// The GPU price's source when the price is an assumption (set in the
    /// plan or tagged assumed); the table marks the dollar cells.
    pub assumed_price: Option<String>,
}

/// A plan's verdict as the tables show it: memory's, and how a plan with
/// a stream serves it ("Fits · Misses its SLOs").
pub fn verdict_text(verdict: Verdict, served: Option<StreamVerdict>, lang: Lang) -> String {
    match served {
        Some(v) => format!("{} · {}", verdict.name(lang), v.name(lang)),
        None => verdict.name(lang).to_string(),
    }
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
                // A streamed request's medians where the plan has a
                // stream; its static batch's otherwise.
                TimeReport::Inference(t) => match &r.stream_time {
                    Some(s) => (
                        Latency::Serve {
                            ttft: s.ttft,
                            ttft_range: s.ttft_range,
                            tpot: s.tpot,
                            tpot_range: s.tpot_range,
                        },
                        s.output_tokens_per_second,
                        None,
                    ),
                    None => (
                        Latency::Serve {
                            ttft: t.ttft,
                            ttft_range: t.ttft_range,
                            tpot: t.tpot,
                            tpot_range: t.tpot_range,
                        },
                        t.total_output_tokens_per_second,
                        None,
                    ),
                },
            };
            let cost = r.cost.as_ref();
            CompareRow {
                name: plan.name.clone(),
                family: family(plan, baseline),
                verdict: r.verdict,
                served: r.stream_verdict(),
                margin: r.hbm_margin,
                peak_hbm: r.binding_device().map_or(Bytes::ZERO, |d| d.hbm_used()),
                latency,
                tokens_per_second,
                mfu,
                usd_per_hour: cost.and_then(|c| c.usd_per_hour),
                usd_per_million_tokens: r.usd_per_million_tokens(),
                migration: cost.map(|c| c.migration),
                person_weeks: cost.map(|c| c.person_weeks),
                one_time: cost.and_then(|c| c.one_time_usd),
                assumed_price: crate::charts::series::frontier::assumed_price(r),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;

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
        // The fixtures' GPUs have dated catalog prices.
        assert!(rows.iter().all(|r| r.assumed_price.is_none()));
    }
}
