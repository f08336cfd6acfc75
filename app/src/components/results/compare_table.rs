//! The comparison table: one row per plan, the columns people decide by.

use crate::compare::{cell, rows, Col};
use crate::i18n::results::{t, K};
use crate::state::use_state;
use leptos::prelude::*;
use planner_core::Named;

/// Every plan side by side.
#[component]
pub fn CompareTable() -> impl IntoView {
    let state = use_state();
    let lang = move || state.lang();
    let rows = Memo::new(move |_| state.ws.with(|w| state.reports.with(|r| rows(&w.plans, r))));
    let active = move || state.ws.with(|w| w.active);
    view! {
        <div class="table-scroll">
            <table class="compare" data-testid="compare-table">
                <thead>
                    <tr>
                        {Col::ALL
                            .into_iter()
                            .map(|c| view! { <th scope="col" data-col=c.id()>{move || c.header(lang())}</th> })
                            .collect_view()}
                    </tr>
                </thead>
                <tbody>
                    {move || {
                        let lang = lang();
                        rows.get()
                            .into_iter()
                            .enumerate()
                            .map(|(i, row)| {
                                view! {
                                    <tr
                                        data-testid=format!("compare-row-{i}")
                                        data-verdict=format!("{:?}", row.verdict)
                                        data-served=row.served.map(|v| v.key())
                                        class:active=move || active() == i
                                    >
                                        {Col::ALL
                                            .into_iter()
                                            .map(|c| {
                                                let marked = matches!(c, Col::UsdPerHour | Col::UsdPerMTok);
                                                let mark = row.assumed_price.clone().filter(|_| marked).map(|src| {
                                                    let title = format!("{}: {src}", t(lang, K::PriceAssumed));
                                                    view! { <span class="price-assumed" data-testid="price-assumed" title=title>" ○"</span> }
                                                });
                                                view! { <td data-col=c.id()>{cell(&row, c, lang)}{mark}</td> }
                                            })
                                            .collect_view()}
                                    </tr>
                                }
                            })
                            .collect_view()
                    }}
                </tbody>
            </table>
        </div>
        <p class="note" data-testid="compare-note">{move || t(lang(), K::EffortNote)}</p>
    }
}
