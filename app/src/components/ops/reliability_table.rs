//! The checkpoint report of a training plan as a table: size and where it
//! lives, save and restore times, failures, the interval and the goodput.
//! Every value is a field of the core's [`CheckpointReport`].

use crate::i18n::ops::{bound, step, t, K};
use crate::i18n::Lang;
use crate::numfmt::{gbps, gib, num, pct, span};
use leptos::prelude::*;
use planner_core::checkpoint::CheckpointReport;
use planner_core::report::ItemKind;
use planner_core::Named;

/// One row: its test id, label and value.
pub type Row = (&'static str, &'static str, String);

/// The rows of a report, in display order.
pub fn rows(c: &CheckpointReport, lang: Lang) -> Vec<Row> {
    let parts = [
        (ItemKind::Weights, c.size.weights),
        (ItemKind::MasterWeights, c.size.master),
        (ItemKind::OptimizerStates, c.size.optimizer),
        (ItemKind::Adapters, c.size.adapters),
    ]
    .iter()
    .filter(|(_, b)| b.base() > 0.0)
    .map(|(k, b)| format!("{} {}", k.name(lang), gib(*b)))
    .collect::<Vec<_>>()
    .join(", ");
    let tiers = c
        .tiers
        .iter()
        .map(|s| {
            format!(
                "{}: {} {}, {} {} ({})",
                s.tier.name(lang),
                t(lang, K::Held),
                gib(s.held),
                t(lang, K::Writes),
                gib(s.written),
                step(lang, s.step)
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    let storage = format!(
        "{} {}, {} {}; {} {}",
        gbps(c.storage_bandwidth),
        t(lang, K::Aggregate),
        gbps(c.node_bandwidth),
        t(lang, K::PerNode),
        t(lang, K::BoundBy),
        bound(lang, c.bound)
    );
    let dash = || "—".to_string();
    vec![
        (
            "rel-size",
            t(lang, K::CkptSize),
            format!("{} ({parts})", gib(c.size.total)),
        ),
        (
            "rel-restore-bytes",
            t(lang, K::RestoreBytes),
            gib(c.restore_bytes),
        ),
        ("rel-held", t(lang, K::HeldPerRank), gib(c.held_per_rank)),
        (
            "rel-written",
            t(lang, K::WrittenPerRank),
            gib(c.written_per_rank),
        ),
        (
            "rel-written-node",
            t(lang, K::WrittenPerNode),
            gib(c.written_per_node),
        ),
        ("rel-tiers", t(lang, K::ByTier), tiers),
        ("rel-storage", t(lang, K::StorageUsed), storage),
        ("rel-stage", t(lang, K::Stage), span(c.stage)),
        ("rel-persist", t(lang, K::Persist), span(c.persist)),
        ("rel-stall", t(lang, K::Stall), span(c.stall)),
        ("rel-restore", t(lang, K::Restore), span(c.restore)),
        ("rel-mtbi", t(lang, K::Mtbi), span(c.mtbi)),
        (
            "rel-per-day",
            t(lang, K::PerDay),
            num(c.interruptions_per_day),
        ),
        ("rel-interval", t(lang, K::Interval), span(c.interval)),
        ("rel-young", t(lang, K::Young), span(c.interval_young)),
        ("rel-daly", t(lang, K::Daly), span(c.interval_daly)),
        (
            "rel-steps",
            t(lang, K::StepsPerInterval),
            c.steps_per_interval.map_or_else(dash, num),
        ),
        ("rel-goodput", t(lang, K::Goodput), pct(c.goodput)),
        (
            "rel-lost",
            t(lang, K::LostHours),
            num(c.lost_gpu_hours_per_day.as_gpu_hours()),
        ),
        (
            "rel-time",
            t(lang, K::TimeToTrain),
            c.time_to_train.map_or_else(dash, span),
        ),
        (
            "rel-time-failures",
            t(lang, K::WithFailures),
            c.time_to_train_with_failures.map_or_else(dash, span),
        ),
    ]
}

/// The table.
#[component]
pub fn ReliabilityTable(
    /// The rows to show (already in the workspace's language).
    #[prop(into)]
    rows: Signal<Vec<Row>>,
) -> impl IntoView {
    view! {
        <table class="ops-kv" data-testid="reliability-table">
            <tbody>
                {move || {
                    rows.get()
                        .into_iter()
                        .map(|(id, label, value)| view! {
                            <tr><th scope="row">{label}</th><td data-testid={id}>{value}</td></tr>
                        })
                        .collect_view()
                }}
            </tbody>
        </table>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;
    use planner_core::checkpoint::{checkpoint, CheckpointSettings};

    #[test]
    fn rows_have_values_and_differ_by_language() {
        let c = checkpoint(&fixtures::training(), &CheckpointSettings::default());
        let (en, zh) = (rows(&c, Lang::En), rows(&c, Lang::Zh));
        assert_eq!(en.len(), zh.len());
        for (a, b) in en.iter().zip(&zh) {
            assert_eq!(a.0, b.0);
            assert_ne!(a.1, b.1, "{}", a.0);
            assert!(!a.2.is_empty(), "{}", a.0);
        }
        let ids: std::collections::HashSet<_> = en.iter().map(|r| r.0).collect();
        assert_eq!(ids.len(), en.len());
        assert!(en[0].2.contains("master weights"));
    }
}
