//! The fit verdict of the active plan, with its HBM margin.

use crate::state::use_state;
use leptos::prelude::*;
use planner_core::report::Verdict;
use planner_core::Named;

/// One line: fits or not, and by how much.
#[component]
pub fn VerdictLine() -> impl IntoView {
    let state = use_state();
    let lang = move || state.lang();
    let report = move || {
        let i = state.ws.with(|w| w.active);
        state.reports.with(|r| r.get(i).cloned())
    };
    view! {
        {move || {
            report().map(|r| {
                let class = match r.verdict {
                    Verdict::Fits => "verdict fits",
                    Verdict::DoesNotFit => "verdict over",
                    Verdict::Invalid => "verdict invalid",
                };
                view! {
                    <div class={class} data-testid="verdict" data-verdict={format!("{:?}", r.verdict)}>
                        <strong>{r.verdict.name(lang())}</strong>
                        " "
                        <span data-testid="hbm-margin">{crate::numfmt::gib_signed(r.hbm_margin)}</span>
                    </div>
                }
            })
        }}
    }
}
