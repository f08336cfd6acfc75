//! The search in the results column, next to the charts: while it runs,
//! a progress bar (slices done of all) and Cancel; when it is done, the
//! plans found — what changed from the base (the core's diff), with the
//! changes that touch quality or the service level flagged, the family,
//! the verdict, latency and cost, ties within the model's uncertainty
//! marked (the core's `search::ties`) — each one "Add to plans" away from
//! the workspace.

use crate::i18n::search::{t, K};
use crate::i18n::Lang;
use crate::numfmt::{duration, si, usd};
use crate::search_run::{use_search, Outcome, Phase, Row, SEARCH_SECTION_ID};
use crate::state::use_state;
use crate::url::History;
use leptos::prelude::*;
use planner_core::diff::{Change, Impact};
use planner_core::link::MAX_PLANS;
use planner_core::report::StreamVerdict;
use planner_core::Named;
use search_worker::Listed;

/// The progress bar and Cancel, while a search runs.
#[component]
fn Progress(
    /// Where the search stands.
    phase: Phase,
) -> impl IntoView {
    let run = use_search();
    let state = use_state();
    let lang = move || state.lang();
    let (done, total) = match phase {
        Phase::Running { done, total } => (done, total),
        Phase::Merging { total } => (total, total),
        Phase::Idle | Phase::Failed => (0, 0),
    };
    let pct = (done * 100).checked_div(total).unwrap_or(0);
    let label = move || match phase {
        Phase::Merging { .. } => t(lang(), K::Merging).to_string(),
        _ => format!("{done} / {total} {}", t(lang(), K::SlicesSearched)),
    };
    view! {
        <div class="search-progress">
            <div
                class="progress-track"
                role="progressbar"
                data-testid="search-progress"
                aria-valuemin="0"
                aria-valuemax=total.to_string()
                aria-valuenow=done.to_string()
                aria-label=label
            >
                <div class="progress-fill" style=format!("width: {pct}%")></div>
            </div>
            <span class="progress-text" data-testid="search-progress-text">{label}</span>
            <button data-testid="search-cancel" on:click=move |_| run.cancel()>
                {move || t(lang(), K::Cancel)}
            </button>
        </div>
    }
}

/// What changed, in one line, and the side effects to check, each once
/// (the search's rows and the sizing's).
pub(super) fn changed(list: &[Change], lang: Lang) -> (String, Vec<Impact>) {
    let mut impacts: Vec<Impact> = Vec::new();
    for c in list {
        if c.impact != Impact::None && !impacts.contains(&c.impact) {
            impacts.push(c.impact);
        }
    }
    let line = if list.is_empty() {
        t(lang, K::Unchanged).to_string()
    } else {
        list.iter()
            .map(|c| c.describe(lang))
            .collect::<Vec<_>>()
            .join(", ")
    };
    (line, impacts)
}

/// "≈ n": the row ties with row n (0-based `j`) within the model's
/// uncertainty; the search's and the sizing's lists mark ties alike.
pub(super) fn tie_mark(j: usize, testid: &'static str, lang: Lang) -> impl IntoView {
    view! {
        <span class="tie" data-testid=testid title=format!("{} {}", t(lang, K::TieWith), j + 1)>
            {format!("≈ {}", j + 1)}
        </span>
    }
}

/// One plan found.
fn found_row(i: usize, row: &Row, lang: Lang) -> impl IntoView {
    let state = use_state();
    let run = use_search();
    let (line, impacts) = changed(&row.found.changes, lang);
    let g = &row.found.figures;
    let why = match row.listed {
        Listed::Frontier => t(lang, K::OnFrontier),
        Listed::Best(_) => t(lang, K::BestOfFamily),
    };
    let cost = g
        .usd_per_million_tokens
        .map_or_else(|| "—".to_string(), usd);
    // A plan that fits but misses its stream's targets reads as missed.
    let served = row.served;
    let fits = g.verdict == planner_core::Verdict::Fits && served.is_none_or(StreamVerdict::serves);
    let verdict = crate::compare::verdict_text(g.verdict, served, lang);
    let full = move || state.ws.with(|w| w.plans.len() >= MAX_PLANS);
    let add = move |_| {
        let Some(plan) = run.outcome.with_untracked(|o| {
            o.as_ref()
                .and_then(|o| o.rows.get(i).map(|r| r.found.plan.clone()))
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
    let tie = row.tie.map(|j| tie_mark(j, "found-tie", lang));
    view! {
        <tr data-testid=format!("found-{i}")>
            <th scope="row" class="found-index">{(i + 1).to_string()}{tie}</th>
            <td class="summary-plan" data-testid="found-changed">
                <div>{line}</div>
                <div class="changed">{format!("{}×{} · {why}", g.gpus, g.gpu)}</div>
                {impacts
                    .into_iter()
                    .map(|m| view! { <span class="impact" data-testid="found-impact">{format!("⚠ {}", m.name(lang))}</span> })
                    .collect_view()}
            </td>
            <td class="found-family" data-label=t(lang, K::Family)>{row.found.family.name(lang)}</td>
            <td
                class={if fits { "fits" } else { "over" }}
                data-testid="found-verdict"
                data-served=served.map(|v| v.key())
                data-label=t(lang, K::Verdict)
            >
                {verdict}
            </td>
            <td data-col="latency" data-label=t(lang, K::Latency)>{duration(g.speed.latency())}</td>
            <td data-col="cost" data-label=t(lang, K::Cost)>{cost}</td>
            <td>
                <button data-testid=format!("add-found-{i}") disabled=full on:click=add>
                    {t(lang, K::Add)}
                </button>
            </td>
        </tr>
    }
}

/// The plans of a finished search.
fn found_table(o: &Outcome, lang: Lang) -> AnyView {
    if o.rows.is_empty() {
        return view! { <p class="hint" data-testid="found-none">{t(lang, K::NothingFound)}</p> }
            .into_any();
    }
    // A count, not a quantity: `si` writes 1,311,657 as "1.31 M".
    let mut note = format!("{} {}", si(o.evaluated as f64), t(lang, K::Evaluated));
    if o.unsupported > 0 {
        note += &format!("; {} {}", si(o.unsupported as f64), t(lang, K::LeftOut));
    }
    let unpriced = (!o.unpriced.is_empty())
        .then(|| format!(" {} {}", t(lang, K::Unpriced), o.unpriced.join(", ")));
    let ties = o.rows.iter().any(|r| r.tie.is_some()).then(|| {
        view! { <p class="note" data-testid="found-tie-note">{t(lang, K::TieNote)}</p> }
    });
    view! {
        <p class="note" data-testid="found-counts">{note}{unpriced}</p>
        <table class="summary search-found" data-testid="found-list">
            <thead>
                <tr>
                    <th scope="col">"#"</th>
                    <th scope="col">{t(lang, K::WhatChanged)}</th>
                    <th scope="col">{t(lang, K::Family)}</th>
                    <th scope="col">{t(lang, K::Verdict)}</th>
                    <th scope="col">{t(lang, K::Latency)}</th>
                    <th scope="col">{t(lang, K::Cost)}</th>
                    <th scope="col"></th>
                </tr>
            </thead>
            <tbody>
                {o.rows.iter().enumerate().map(|(i, r)| found_row(i, r, lang)).collect_view()}
            </tbody>
        </table>
        {ties}
    }
    .into_any()
}

/// The search's section of the results column; empty until a search
/// starts.
#[component]
pub fn SearchResults() -> impl IntoView {
    let run = use_search();
    let state = use_state();
    let shown = move || run.phase.get() != Phase::Idle || run.outcome.with(Option::is_some);
    view! {
        <section class="search-results" id=SEARCH_SECTION_ID data-testid="search-results" aria-live="polite">
            <Show when=shown>
                <h3>{move || t(state.lang(), K::SearchTitle)}</h3>
                {move || match run.phase.get() {
                    Phase::Idle => None,
                    Phase::Failed => Some(
                        view! { <p class="error" data-testid="search-failed">{t(state.lang(), K::Failed)}</p> }
                            .into_any(),
                    ),
                    phase => Some(view! { <Progress phase=phase /> }.into_any()),
                }}
                {move || {
                    let lang = state.lang();
                    run.outcome.with(|o| o.as_ref().map(|o| found_table(o, lang)))
                }}
            </Show>
        </section>
    }
}
