//! The active plan's diagnostics in plain words, in the workspace's
//! language.

use crate::i18n::results::{t, K};
use crate::state::use_state;
use leptos::prelude::*;
use planner_core::Named;
use planner_core::Severity;

fn severity_class(s: Severity) -> &'static str {
    match s {
        Severity::Info => "diag info",
        Severity::Warning => "diag warning",
        Severity::Error => "diag error",
    }
}

/// What is wrong or worth knowing about the active plan.
#[component]
pub fn DiagnosticsList() -> impl IntoView {
    let state = use_state();
    let lang = move || state.lang();
    let diagnostics = Memo::new(move |_| {
        let i = state.ws.with(|w| w.active);
        state
            .reports
            .with(|r| r.get(i).map(|r| r.diagnostics.clone()).unwrap_or_default())
    });
    view! {
        <section class="diagnostics">
            <h3>{move || t(lang(), K::Diagnostics)}</h3>
            <ul data-testid="diagnostics">
                {move || {
                    let lang = lang();
                    let list = diagnostics.get();
                    if list.is_empty() {
                        return view! { <li class="diag none" data-testid="no-diagnostics">{t(lang, K::NoProblems)}</li> }
                            .into_any();
                    }
                    list.into_iter()
                        .map(|d| {
                            view! {
                                <li
                                    class=severity_class(d.severity)
                                    data-testid="diagnostic"
                                    data-severity=format!("{:?}", d.severity)
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
        </section>
    }
}
