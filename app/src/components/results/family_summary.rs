//! The comparison summary under the chart: the baseline's verdict, and for
//! each family of ways over the wall (software only, hardware only, both)
//! its best plan ([`crate::compare::best_of_families`]) with what changed
//! from the baseline (the core's diff), whether it fits, its latency, cost
//! and migration effort from the baseline (the core's effort table), and a
//! button that opens it.

use crate::compare::{best::latency_secs, best_of_families, rows, CompareRow, FamilyBest};
use crate::i18n::results::{t, K};
use crate::i18n::Lang;
use crate::numfmt::{duration, gib_signed, num, usd};
use crate::state::use_state;
use crate::url::History;
use leptos::prelude::*;
use planner_core::diff::{changes, Impact};
use planner_core::effort::{efforts, migration_class, person_weeks};
use planner_core::units::Seconds;
use planner_core::{Named, Plan};

/// What changed from the baseline, in one line, and the side effects to
/// check (quality, service level), each once.
fn what_changed(base: &Plan, plan: &Plan, lang: Lang) -> (String, Vec<Impact>) {
    let list = changes(base, plan);
    let mut impacts: Vec<Impact> = Vec::new();
    for c in &list {
        if c.impact != Impact::None && !impacts.contains(&c.impact) {
            impacts.push(c.impact);
        }
    }
    let line = list
        .iter()
        .map(|c| c.describe(lang))
        .collect::<Vec<_>>()
        .join(", ");
    (line, impacts)
}

/// One family's row.
fn family_row(
    b: FamilyBest,
    row: &CompareRow,
    plan: &Plan,
    base: &Plan,
    lang: Lang,
) -> impl IntoView {
    let state = use_state();
    let (line, impacts) = what_changed(base, plan, lang);
    let index = b.best;
    let cost = row
        .usd_per_million_tokens
        .map_or_else(|| "—".to_string(), usd);
    // Effort from the baseline the reader starts at (the table's column is
    // from a plain baseline on the plan's own GPUs).
    let steps = efforts(plan, base, &plan.economics.engineering);
    let migration = format!(
        "{} · {} {}",
        migration_class(&steps).name(lang),
        // `+ 0.0` turns the empty sum's −0 into 0, so no "-0" shows.
        num(person_weeks(&steps) + 0.0),
        t(lang, K::PersonWeeks)
    );
    let verdict_class = if row.verdict == planner_core::Verdict::Fits {
        "fits"
    } else {
        "over"
    };
    view! {
        <tr data-testid=format!("summary-{}", b.family.key()) data-best=index.to_string()>
            <th scope="row">{b.family.name(lang)}</th>
            <td class="summary-plan">
                <button
                    class="link-button"
                    data-testid=format!("summary-open-{}", b.family.key())
                    title=t(lang, K::OpenPlan)
                    on:click=move |_| state.update(History::Push, |w| w.active = index)
                >
                    {row.name.clone()}
                </button>
                <div class="changed" data-testid="summary-changed">{line}</div>
                {impacts
                    .into_iter()
                    .map(|i| view! { <span class="impact" data-testid="summary-impact">{format!("⚠ {}", i.name(lang))}</span> })
                    .collect_view()}
            </td>
            <td class=verdict_class data-col="fits" data-label=t(lang, K::Verdict)>
                {format!("{} / {} {}", b.fitting, b.plans, t(lang, K::FitsCount))}
            </td>
            <td data-col="latency" data-label=t(lang, K::LatencyShort)>{duration(Seconds::from_secs(latency_secs(row)))}</td>
            <td data-col="usd-per-mtok" data-label=t(lang, K::UsdPerMTok)>{cost}</td>
            <td data-col="migration" data-label=t(lang, K::MigrationFromBase)>{migration}</td>
        </tr>
    }
}

/// The summary; shown when the workspace compares plans.
#[component]
pub fn FamilySummary() -> impl IntoView {
    let state = use_state();
    let lang = move || state.lang();
    let rows = Memo::new(move |_| state.ws.with(|w| state.reports.with(|r| rows(&w.plans, r))));
    let best = Memo::new(move |_| rows.with(|r| best_of_families(r)));
    let head = move || {
        rows.with(|r| {
            let b = r.first()?;
            let fits = r
                .iter()
                .skip(1)
                .filter(|x| x.verdict == planner_core::Verdict::Fits)
                .count();
            let (lang, others) = (lang(), r.len() - 1);
            let base = planner_core::effort::PlanFamily::Baseline.name(lang);
            // An invalid baseline's margin is that of `resolve`'s stand-ins.
            let verdict = b.verdict.name(lang);
            let verdict = match (b.verdict, lang) {
                (planner_core::Verdict::Invalid, _) => verdict.to_string(),
                (_, Lang::En) => format!("{verdict} ({})", gib_signed(b.margin)),
                (_, Lang::Zh) => format!("{verdict}（{}）", gib_signed(b.margin)),
            };
            let label = t(lang, K::OthersFit);
            Some(match lang {
                Lang::En => format!(
                    "Baseline “{}”: {verdict}. {label} {fits} / {others}.",
                    b.name
                ),
                Lang::Zh => format!("{base}“{}”：{verdict}。{label}{fits} / {others}。", b.name),
            })
        })
    };
    view! {
        <Show when=move || !best.with(Vec::is_empty)>
            <section class="family-summary" data-testid="family-summary">
                <h3>{move || t(lang(), K::SummaryTitle)}</h3>
                <p class="note" data-testid="summary-head">{head}</p>
                <table class="summary" data-testid="summary-table">
                    <thead>
                        <tr>
                            <th scope="col">{move || t(lang(), K::Family)}</th>
                            <th scope="col">{move || t(lang(), K::SummaryBest)}</th>
                            <th scope="col">{move || t(lang(), K::Verdict)}</th>
                            <th scope="col">{move || t(lang(), K::LatencyShort)}</th>
                            <th scope="col">{move || t(lang(), K::UsdPerMTok)}</th>
                            <th scope="col">{move || t(lang(), K::MigrationFromBase)}</th>
                        </tr>
                    </thead>
                    <tbody>
                        {move || {
                            let lang = lang();
                            state.ws.with(|w| {
                                rows.with(|r| {
                                    best.get()
                                        .into_iter()
                                        .filter_map(|b| {
                                            let plan = w.plans.get(b.best)?;
                                            Some(family_row(b, &r[b.best], plan, &w.plans[0], lang))
                                        })
                                        .collect_view()
                                })
                            })
                        }}
                    </tbody>
                </table>
            </section>
        </Show>
    }
}
