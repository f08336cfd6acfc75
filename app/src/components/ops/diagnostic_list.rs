//! A list of the core's diagnostics in the workspace's language
//! (`Diagnostic::message_in`), each a text node with its severity.

use crate::i18n::ops::{t, K};
use crate::state::use_state;
use leptos::prelude::*;
use planner_core::Named;
use planner_core::{Diagnostic, Severity};

fn class(s: Severity) -> &'static str {
    match s {
        Severity::Info => "diag info",
        Severity::Warning => "diag warning",
        Severity::Error => "diag error",
    }
}

/// The diagnostics, or a line saying there are none.
#[component]
pub fn DiagnosticItems(
    /// `data-testid` of the list.
    testid: &'static str,
    /// What to list.
    #[prop(into)]
    items: Signal<Vec<Diagnostic>>,
    /// What an empty list says.
    empty: K,
) -> impl IntoView {
    let state = use_state();
    view! {
        <ul class="diag-list" data-testid={testid}>
            {move || {
                let lang = state.lang();
                let list = items.get();
                if list.is_empty() {
                    return view! { <li class="diag none">{t(lang, empty)}</li> }.into_any();
                }
                list.into_iter()
                    .map(|d| {
                        view! {
                            <li class={class(d.severity)} data-testid="ops-diagnostic" data-severity={format!("{:?}", d.severity)}>
                                <strong>{d.severity.name(lang)}</strong>
                                " "
                                <span>{d.message_in(lang)}</span>
                            </li>
                        }
                    })
                    .collect_view()
                    .into_any()
            }}
        </ul>
    }
}
