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
/// The values offered for a field at fault, each a button that sets it on
/// the active plan.
fn offer(field: &'static str, values: Vec<u32>, lang: planner_core::Lang) -> impl IntoView {
    let state = use_state();
    crate::guidance::testid_of(field).map(|id| {
        view! {
            <span class="fix" data-testid="fix-values" data-field=id>
                " "
                {crate::i18n::results::t(lang, crate::i18n::results::K::ValidValues)}
                {values
                    .into_iter()
                    .map(|v| {
                        let pick = move |_| {
                            state.update(crate::url::History::Push, |w| {
                                if let Some(p) = crate::components::editor::lens::active_mut(w) {
                                    crate::guidance::set(p, field, v);
                                }
                            })
                        };
                        view! { " " <button class="fix-value" data-testid="fix-value" on:click=pick>{v}</button> }
                    })
                    .collect_view()}
            </span>
        }
    })
}

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
    /// Whether the items are the active plan's: then a diagnostic that
    /// names a field offers the core's valid values as buttons that set it.
    #[prop(optional)]
    fixes: bool,
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
                                {fixes.then(|| d.detail.fix()).flatten().map(|(field, values)| offer(field, values, lang))}
                            </li>
                        }
                    })
                    .collect_view()
                    .into_any()
            }}
        </ul>
    }
}
