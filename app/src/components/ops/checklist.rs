//! The migration checklist of the active plan (`planner_core::checklist`):
//! against the first plan of the workspace, or, for the first plan itself,
//! against plain data parallelism on the same GPUs. Items are grouped by
//! category, in the workspace's language, each with its reason; the
//! checkpoint items use the reliability view's storage and failure
//! settings.

use crate::i18n::ops::{t, K};
use crate::i18n::Lang;
use crate::numfmt::num;
use crate::state::use_state;
use leptos::prelude::*;
use planner_core::checklist::{checklist, checklist_from_plain, Category, Checklist};
use planner_core::Named;

fn group(c: &Checklist, cat: Category, lang: Lang) -> Option<impl IntoView> {
    let items: Vec<_> = c.of(cat).cloned().collect();
    if items.is_empty() {
        return None;
    }
    let list = items
        .into_iter()
        .map(|i| {
            view! {
                <li class="ck-item" data-testid="checklist-item" data-id={i.id.clone()}>
                    <span class="ck-text">{i.text.get(lang).to_string()}</span>
                    " "
                    <span class="ck-class">{i.class.name(lang)}</span>
                    <p class="ck-reason"><em>{t(lang, K::Why)}</em>" "{i.reason.get(lang).to_string()}</p>
                </li>
            }
        })
        .collect_view();
    Some(view! {
        <h4 data-testid="checklist-category">{cat.label(lang)}</h4>
        <ul class="ck-list">{list}</ul>
    })
}

/// The checklist panel.
#[component]
pub fn ChecklistPanel() -> impl IntoView {
    let state = use_state();
    let lang = move || state.lang();
    let input = Memo::new(move |_| {
        state.ws.with(|w| {
            let i = w.active.min(w.plans.len().saturating_sub(1));
            let baseline = (i > 0).then(|| w.plans.first().cloned()).flatten();
            (w.plans.get(i).cloned(), baseline, w.reliability)
        })
    });
    let list = Memo::new(move |_| {
        input.with(|(plan, baseline, settings)| {
            plan.as_ref().map(|p| match baseline {
                Some(b) => checklist(p, b, settings),
                None => checklist_from_plain(p, settings),
            })
        })
    });
    // An invalid plan was evaluated with safe stand-ins for its bad values:
    // a checklist of that stand-in would mislead.
    let invalid = Memo::new(move |_| {
        let i = state.ws.with(|w| w.active);
        state.reports.with(|r| {
            r.get(i)
                .is_some_and(|r| r.verdict == planner_core::Verdict::Invalid)
        })
    });
    let against = move || {
        list.with(|c| match c {
            Some(c) if !c.plain_baseline => c.baseline.clone(),
            _ => t(lang(), K::PlainBaseline).to_string(),
        })
    };
    view! {
        <details class="checklist" open data-testid="checklist">
            <summary>{move || t(lang(), K::Checklist)}</summary>
            <Show when=move || !invalid.get()>
            <dl class="figures">
                <div class="figure"><dt>{move || t(lang(), K::Baseline)}</dt><dd data-testid="checklist-baseline">{against}</dd></div>
                <div class="figure">
                    <dt>{move || t(lang(), K::MostDisruptive)}</dt>
                    <dd data-testid="checklist-migration">{move || list.with(|c| c.as_ref().map(|c| c.migration.name(lang())))}</dd>
                </div>
                <div class="figure">
                    <dt>{move || t(lang(), K::PersonWeeks)}</dt>
                    <dd>{move || list.with(|c| c.as_ref().map(|c| num(c.person_weeks)))}</dd>
                </div>
            </dl>
            </Show>
            {move || {
                let lang = lang();
                if invalid.get() {
                    return view! { <p class="note" data-testid="checklist-invalid">{t(lang, K::FixErrorsFirst)}</p> }.into_any();
                }
                list.with(|c| match c {
                    Some(c) if !c.items.is_empty() => {
                        Category::ALL.iter().filter_map(|&cat| group(c, cat, lang)).collect_view().into_any()
                    }
                    _ => view! { <p class="note">{t(lang, K::NothingToDo)}</p> }.into_any(),
                })
            }}
        </details>
    }
}
