//! One row per job: what it was given, where, its memory and headroom,
//! whether it fits, the batch and throughput it keeps (serving) or how much
//! slower its step is (training), and whether it was placed. Every figure
//! is a field of the core's [`JobPlacement`].

use super::ops_table::OpsTable;
use crate::i18n::ops::{kind, t, yes_no, K};
use crate::i18n::Lang;
use crate::numfmt::{gib, gib_signed, num, pct};
use crate::state::use_state;
use leptos::prelude::*;
use planner_core::tenants::{JobPlacement, Share, SharingResult};
use planner_core::Named;

/// The columns, in order.
pub const COLUMNS: [K; 12] = [
    K::Job,
    K::Kind,
    K::Given,
    K::GpusCol,
    K::Capacity,
    K::Peak,
    K::Headroom,
    K::Fits,
    K::BatchKept,
    K::ThroughputKept,
    K::TokensLost,
    K::Placed,
];

/// What a job is given on each GPU, in words.
pub fn share_label(lang: Lang, share: &Option<Share>, gpus: u32) -> String {
    let each = match share {
        Some(Share::Mig { profile, .. }) => format!("MIG {profile}"),
        Some(Share::Cap { fraction }) => format!("{} {}", t(lang, K::CapOf), pct(*fraction)),
        Some(Share::Whole) => t(lang, K::WholeGpu).to_string(),
        None => return t(lang, K::Nowhere).to_string(),
    };
    if gpus > 1 {
        format!("{gpus} × {each}")
    } else {
        each
    }
}

/// The cells of one job's row, in [`COLUMNS`] order.
pub fn cells(j: &JobPlacement, lang: Lang) -> Vec<String> {
    let dash = || "—".to_string();
    let gpus = if j.gpus.is_empty() {
        dash()
    } else {
        j.gpus
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (batch, kept, lost) = match (&j.serving, &j.training) {
        (Some(s), _) => (
            format!("{} / {}", s.batch, s.requested_batch),
            pct(s.throughput_kept),
            num(s.tokens_per_second_lost),
        ),
        (None, Some(tr)) => (
            dash(),
            format!("{} {}", t(lang, K::Slowdown), num(tr.slowdown)),
            dash(),
        ),
        (None, None) => (dash(), dash(), dash()),
    };
    vec![
        j.job.clone(),
        kind(lang, j.kind).to_string(),
        share_label(lang, &j.share, j.gpus_needed),
        gpus,
        gib(j.capacity),
        gib(j.peak),
        gib_signed(j.headroom),
        j.verdict.name(lang).to_string(),
        batch,
        kept,
        lost,
        yes_no(lang, j.placed).to_string(),
    ]
}

/// The table.
#[component]
pub fn TenantsTable(
    /// The packing to list.
    result: Memo<SharingResult>,
) -> impl IntoView {
    let state = use_state();
    let lang = move || state.lang();
    view! {
        <OpsTable testid="tenants-table" columns={&COLUMNS}>
            {move || {
                let lang = lang();
                result.with(|r| {
                    r.jobs
                        .iter()
                        .enumerate()
                        .map(|(i, j)| {
                            view! {
                                <tr
                                    data-testid={format!("tenants-row-{i}")}
                                    data-placed={j.placed.to_string()}
                                    data-verdict={format!("{:?}", j.verdict)}
                                >
                                    {cells(j, lang).into_iter().map(|c| view! { <td>{c}</td> }).collect_view()}
                                </tr>
                            }
                        })
                        .collect_view()
                })
            }}
        </OpsTable>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner_core::tenants::{example_sharing, share};

    #[test]
    fn every_job_has_a_cell_per_column_in_both_languages() {
        let r = share(&example_sharing());
        for lang in [Lang::En, Lang::Zh] {
            for j in &r.jobs {
                let c = cells(j, lang);
                assert_eq!(c.len(), COLUMNS.len());
                assert_eq!(c[0], j.job);
            }
        }
        let serving = r.jobs.iter().find(|j| j.serving.is_some());
        assert!(serving.is_some_and(|j| cells(j, Lang::En)[8].contains(" / ")));
        assert_eq!(share_label(Lang::En, &None, 1), "fits nowhere");
        assert_eq!(
            share_label(Lang::En, &Some(Share::Whole), 2),
            "2 × whole GPU"
        );
        assert_eq!(
            share_label(Lang::Zh, &Some(Share::Cap { fraction: 0.4 }), 1),
            "上限 40.0 %"
        );
    }
}
