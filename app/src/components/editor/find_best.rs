//! "Find best plans": the core searches the space around the plan being
//! edited within a GPU budget; the editor lists the cost–latency frontier
//! and the cheapest plan of each kind of change, each one a click away from
//! becoming a plan of the workspace.

use super::found::{family, rows, scenario, summary};
use super::lens::{active, use_plan};
use super::number_box::NumberBox;
use super::parse::{parse_count, COUNT};
use crate::i18n::editor::{t, K};
use crate::url::History;
use leptos::prelude::*;
use planner_core::link::MAX_PLANS;
use planner_core::search::{search, Found};
use std::time::Duration;

/// Budget box, search button and the plans found.
#[component]
pub fn FindBest() -> impl IntoView {
    let lens = use_plan();
    let lang = move || lens.lang();
    let budget = RwSignal::new(None::<u32>);
    let other_gpus = RwSignal::new(true);
    let found = RwSignal::new(None::<Vec<(K, Found)>>);
    let busy = RwSignal::new(false);
    let full = move || lens.state().ws.with(|w| w.plans.len() >= MAX_PLANS);
    let base = move || lens.state().ws.with_untracked(|w| active(w).cloned());
    let run = move |_| {
        let Some(plan) = base() else { return };
        let max = budget.get_untracked().unwrap_or(plan.hardware.gpus).max(1);
        let other = other_gpus.get_untracked();
        busy.set(true);
        // Let "searching…" paint before the search holds the thread.
        set_timeout(
            move || {
                found.set(Some(rows(&search(&scenario(plan, max, other)))));
                busy.set(false);
            },
            Duration::from_millis(20),
        );
    };
    let add = move |i: usize| {
        let Some((_, f)) = found.with_untracked(|v| v.as_ref().and_then(|v| v.get(i).cloned()))
        else {
            return;
        };
        lens.state().update(History::Push, |w| {
            if w.plans.len() < MAX_PLANS {
                let mut p = f.plan.clone();
                p.name = format!("{}: {}", family(w.lang, f.family), summary(w.lang, &f));
                w.plans.push(p);
                w.active = w.plans.len() - 1;
            }
        });
    };
    view! {
        <section class="editor-block find-best" data-testid="find-best-panel">
            <h3>{move || t(lang(), K::FindBest)}</h3>
            <div class="row">
                <label class="field">
                    <span class="field-label">{move || t(lang(), K::GpuBudget)}</span>
                    <NumberBox
                        testid="gpu-budget"
                        value={Signal::derive(move || budget.get().map(|b| (COUNT.show)(&b)).unwrap_or_else(|| lens.get(|p| p.hardware.gpus.to_string())))}
                        on_text={Callback::new(move |s: String| parse_count(&s).map(|b| budget.set(Some(b))).is_some())}
                        label={Signal::derive(move || t(lang(), K::GpuBudget).to_string())}
                    />
                </label>
                <label class="toggle">
                    <input
                        type="checkbox"
                        data-testid="search-other-gpus"
                        prop:checked={move || other_gpus.get()}
                        on:change={move |ev| other_gpus.set(event_target_checked(&ev))}
                    />
                    <span>{move || t(lang(), K::OtherGpus)}</span>
                </label>
                <button data-testid="find-best" disabled={move || busy.get()} on:click={run}>
                    {move || t(lang(), if busy.get() { K::Searching } else { K::FindBestButton })}
                </button>
            </div>
            {move || found.get().map(|v| if v.is_empty() {
                view! { <p class="hint" data-testid="found-none">{t(lang(), K::NothingFound)}</p> }.into_any()
            } else {
                view! {
                    <ul class="found" data-testid="found-list">
                        {v.into_iter().enumerate().map(|(i, (k, f))| view! {
                            <li data-testid={format!("found-{i}")}>
                                <span class="found-kind">{t(lang(), k)}</span>
                                <span class="found-figures">{summary(lang(), &f)}</span>
                                <button data-testid={format!("add-found-{i}")}
                                    disabled={move || full()} on:click={move |_| add(i)}>
                                    {t(lang(), K::AddToPlans)}
                                </button>
                            </li>
                        }).collect_view()}
                    </ul>
                }.into_any()
            })}
        </section>
    }
}
