//! A list of the core's diagnostics in the workspace's language
//! (`Diagnostic::message_in`), each a text node with its severity. The
//! results column lists the active plan's; the tenants and reliability
//! views list their own.

use crate::state::use_state;
use leptos::prelude::*;
use planner_core::Named;
use planner_core::{Diagnostic, Severity};

fn severity_class(s: Severity) -> &'static str {
    match s {
        Severity::Info => "diag info",
        Severity::Warning => "diag warning",
        Severity::Error => "diag error",
    }
}

/// The diagnostics, or a line saying there are none.
#[component]
pub fn DiagnosticList(
    /// `data-testid` of the list.
    testid: &'static str,
    /// `data-testid` of each diagnostic's item.
    item_testid: &'static str,
    /// What to list.
    #[prop(into)]
    items: Signal<Vec<Diagnostic>>,
    /// What an empty list says, in the workspace's language.
    #[prop(into)]
    empty: Signal<String>,
    /// `data-testid` of the line an empty list shows, where a test reads it.
    #[prop(optional)]
    empty_testid: Option<&'static str>,
    /// Class of the list, where it is styled apart from the results column's.
    #[prop(optional)]
    class: Option<&'static str>,
) -> impl IntoView {
    let state = use_state();
    view! {
        <ul class={class} data-testid={testid}>
            {move || {
                let lang = state.lang();
                let list = items.get();
                if list.is_empty() {
                    return view! { <li class="diag none" data-testid={empty_testid}>{empty.get()}</li> }
                        .into_any();
                }
                list.into_iter()
                    .map(|d| {
                        view! {
                            <li
                                class={severity_class(d.severity)}
                                data-testid={item_testid}
                                data-severity={format!("{:?}", d.severity)}
                            >
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
