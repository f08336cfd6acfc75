//! Replicas sized to the request stream, in the results column: while
//! the worker runs the core's serving search, an indeterminate progress
//! bar and Cancel; then its answers, fewest GPUs first — what changed
//! from the base (the core's diff, changes users would see flagged), the
//! way's family (its own GPU and formats, narrower formats, another GPU
//! kind, both), ties within the model's uncertainty marked, the
//! replicas and TP degree, the GPUs, the simulated TTFT p99 and TPOT, the
//! price per hour and per million output tokens — each one "Add to
//! plans" away from the workspace.

use super::search_results::{changed, tie_mark};
use crate::i18n::search::{t, K};
use crate::i18n::Lang;
use crate::numfmt::{duration, usd};
use crate::size_run::{use_size, SizePhase, SizedOutcome, SIZE_SECTION_ID};
use crate::state::use_state;
use crate::url::History;
use leptos::prelude::*;
use planner_core::link::MAX_PLANS;
use planner_core::Named;
use search_worker::SizedPlan;

/// The progress bar (ways sized of all; indeterminate for one way, a
/// single search) and Cancel.
#[component]
fn Sizing(
    /// Ways sized.
    done: usize,
    /// Ways in all.
    total: usize,
) -> impl IntoView {
    let size = use_size();
    let state = use_state();
    let lang = move || state.lang();
    let one = total <= 1;
    let pct = (done * 100).checked_div(total).unwrap_or(0);
    let label = move || {
        if one {
            t(lang(), K::Sizing).to_string()
        } else {
            format!(
                "{} {done} / {total} {}",
                t(lang(), K::Sizing),
                t(lang(), K::WaysSized)
            )
        }
    };
    view! {
        <div class="search-progress">
            <div
                class={if one { "progress-track indeterminate" } else { "progress-track" }}
                role="progressbar"
                data-testid="size-progress"
                aria-valuemin="0"
                aria-valuemax=total.to_string()
                aria-valuenow=done.to_string()
                aria-label=label
            >
                <div class="progress-fill" style=(!one).then(|| format!("width: {pct}%"))></div>
            </div>
            <span class="progress-text">{label}</span>
            <button data-testid="size-cancel" on:click=move |_| size.cancel()>
                {move || t(lang(), K::Cancel)}
            </button>
        </div>
    }
}

/// One answer.
fn sized_row(i: usize, p: &SizedPlan, lang: Lang) -> impl IntoView {
    let state = use_state();
    let size = use_size();
    let (line, impacts) = changed(&p.changes, lang);
    let why = format!("{}×{}", p.gpus, p.gpu);
    let price = |u: Option<planner_core::units::Usd>| u.map_or_else(|| "—".to_string(), usd);
    let full = move || state.ws.with(|w| w.plans.len() >= MAX_PLANS);
    let add = move |_| {
        let Some(plan) = size.outcome.with_untracked(|o| {
            o.as_ref()
                .and_then(|o| o.plans.get(i).map(|p| p.plan.clone()))
        }) else {
            return;
        };
        state.update(History::Push, |w| {
            if w.plans.len() < MAX_PLANS {
                w.plans.push(plan);
                w.active = w.plans.len() - 1;
            }
        });
    };
    let tie = p.tie.map(|j| tie_mark(j, "sized-tie", lang));
    view! {
        <tr data-testid=format!("sized-{i}")>
            <th scope="row" class="found-index">{(i + 1).to_string()}{tie}</th>
            <td class="summary-plan" data-testid="sized-changed">
                <div>{line}</div>
                <div class="changed">{why}</div>
                {impacts
                    .into_iter()
                    .map(|m| view! { <span class="impact" data-testid="sized-impact">{format!("⚠ {}", m.name(lang))}</span> })
                    .collect_view()}
            </td>
            <td class="found-family" data-label=t(lang, K::Family) data-testid="sized-family" data-family=p.family.key()>
                {p.family.name(lang)}
            </td>
            <td class="sized-shape" data-label=t(lang, K::Shape) data-testid="sized-shape">
                {format!("{} × TP {}", p.replicas, p.plan.levers.parallel.tp)}
            </td>
            <td class="sized-num" data-label=t(lang, K::Gpus) data-testid="sized-gpus">{p.gpus.to_string()}</td>
            <td class="sized-num" data-label=t(lang, K::TtftP99)>{duration(p.ttft_p99)}</td>
            <td class="sized-num" data-label=t(lang, K::Tpot)>
                {if p.simulated {
                    duration(p.tpot)
                } else {
                    format!("{} ({})", duration(p.tpot), t(lang, K::Mean))
                }}
            </td>
            <td class="sized-num" data-label=t(lang, K::PerHour) data-testid="sized-per-hour">{price(p.usd_per_hour)}</td>
            <td class="sized-num" data-label=t(lang, K::PerMillionOutput)>{price(p.usd_per_million_output)}</td>
            <td>
                <button data-testid=format!("add-sized-{i}") disabled=full on:click=add>
                    {t(lang, K::Add)}
                </button>
            </td>
        </tr>
    }
}

/// The answers of a finished sizing.
fn sized_table(o: &SizedOutcome, lang: Lang) -> AnyView {
    if let Some(problem) = &o.problem {
        return view! {
            <p class="error" data-testid="sized-problem">{format!("{} {problem}", t(lang, K::SizeFailed))}</p>
        }
        .into_any();
    }
    if o.plans.is_empty() {
        let none = format!(
            "{} {} {}",
            t(lang, K::SizedNone),
            o.budget,
            t(lang, K::RaiseBudget)
        );
        return view! { <p class="hint" data-testid="sized-none">{none}</p> }.into_any();
    }
    let checked = o.plans.iter().all(|p| p.simulated);
    let counts = if checked {
        K::SizedCounts
    } else {
        K::SizedCountsSteady
    };
    let mut note = format!("{} {}", o.evaluated, t(lang, counts));
    if o.across_ways {
        note = format!("{note}; {}", t(lang, K::SizedAcross));
    }
    let ties = o.plans.iter().any(|p| p.tie.is_some()).then(|| {
        view! { <p class="note" data-testid="sized-tie-note">{t(lang, K::SizedTieNote)}</p> }
    });
    view! {
        <p class="note" data-testid="sized-counts">{note}</p>
        <table class="summary search-found" data-testid="sized-list">
            <thead>
                <tr>
                    <th scope="col">"#"</th>
                    <th scope="col">{t(lang, K::WhatChanged)}</th>
                    <th scope="col">{t(lang, K::Family)}</th>
                    <th scope="col">{t(lang, K::Shape)}</th>
                    <th scope="col">{t(lang, K::Gpus)}</th>
                    <th scope="col">{t(lang, K::TtftP99)}</th>
                    <th scope="col">{t(lang, K::Tpot)}</th>
                    <th scope="col">{t(lang, K::PerHour)}</th>
                    <th scope="col">{t(lang, K::PerMillionOutput)}</th>
                    <th scope="col"></th>
                </tr>
            </thead>
            <tbody>
                {o.plans.iter().enumerate().map(|(i, p)| sized_row(i, p, lang)).collect_view()}
            </tbody>
        </table>
        {ties}
    }
    .into_any()
}

/// The sizing's section of the results column; empty until sizing
/// starts.
#[component]
pub fn SizingResults() -> impl IntoView {
    let size = use_size();
    let state = use_state();
    let shown = move || size.phase.get() != SizePhase::Idle || size.outcome.with(Option::is_some);
    view! {
        <section class="search-results" id=SIZE_SECTION_ID data-testid="sized-results" aria-live="polite">
            <Show when=shown>
                <h3>{move || t(state.lang(), K::SizedTitle)}</h3>
                {move || match size.phase.get() {
                    SizePhase::Idle => None,
                    SizePhase::Failed => Some(
                        view! { <p class="error" data-testid="size-failed">{t(state.lang(), K::SizeWorkerFailed)}</p> }
                            .into_any(),
                    ),
                    SizePhase::Running { done, total } => {
                        Some(view! { <Sizing done=done total=total /> }.into_any())
                    }
                }}
                {move || {
                    let lang = state.lang();
                    size.outcome.with(|o| o.as_ref().map(|o| sized_table(o, lang)))
                }}
            </Show>
        </section>
    }
}
