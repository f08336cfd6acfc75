//! The shell the ops views' tables share: a scrolling frame, a table with
//! a heading per column in the current language, and the caller's rows.

use crate::i18n::ops::{t, K};
use crate::state::use_state;
use leptos::prelude::*;

/// A table of an ops view; its rows are the children.
#[component]
pub fn OpsTable(
    /// The table's `data-testid`.
    testid: &'static str,
    /// The column headings, in order.
    columns: &'static [K],
    /// The rows (the body of the table).
    children: Children,
) -> impl IntoView {
    let state = use_state();
    let lang = move || state.lang();
    view! {
        <div class="table-scroll">
            <table class="compare ops-table" data-testid={testid}>
                <thead>
                    <tr>{move || columns.iter().map(|&k| view! { <th>{t(lang(), k)}</th> }).collect_view()}</tr>
                </thead>
                <tbody>{children()}</tbody>
            </table>
        </div>
    }
}
