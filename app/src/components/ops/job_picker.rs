//! Which of the workspace's plans run on the pool, and a serving job's
//! latency targets and smallest acceptable batch. The choices are stored
//! per plan in the workspace (and so in the link).

use super::codecs::{OPT_MILLIS, OPT_SECS};
use crate::components::editor::bind::{number_with_hint, toggle};
use crate::components::editor::lens::use_workspace;
use crate::components::editor::parse::OPT_COUNT;
use crate::i18n::ops::{t, K};
use crate::state::use_state;
use leptos::prelude::*;
use planner_core::plan::Workload;

/// One plan's row: whether it is a job and, when it serves, its targets.
fn job_row(i: usize) -> impl IntoView {
    let state = use_state();
    let name = move || {
        state
            .ws
            .with(|w| w.plans.get(i).map(|p| p.name.clone()).unwrap_or_default())
    };
    let serving = Memo::new(move |_| {
        state.ws.with(|w| {
            matches!(
                w.plans.get(i).map(|p| &p.workload),
                Some(Workload::Inference(_))
            )
        })
    });
    let ws = use_workspace();
    let included = Memo::new(move |_| state.ws.with(|w| w.tenants.job(i).include));
    let none = Signal::derive(move || Some(t(state.lang(), K::NoTarget).to_string()));
    let plans_batch = Signal::derive(move || Some(t(state.lang(), K::PlansBatch).to_string()));
    view! {
        <li class="job-row" data-testid={format!("tenants-job-row-{i}")}>
            <div class="job-name">
                {toggle(ws, K::RunsOnPool, format!("tenants-job-{i}"),
                    move |w| w.tenants.job(i).include,
                    move |w, on| w.tenants.job_mut(i).include = on)}
                <span class="plan-name">{name}</span>
            </div>
            <Show when={move || serving.get() && included.get()}>
                <div class="grid3">
                    {number_with_hint(ws, K::MaxTtft, format!("tenants-ttft-{i}"), OPT_SECS,
                        move |w| w.tenants.job(i).slo.max_ttft,
                        move |w, v| w.tenants.job_mut(i).slo.max_ttft = v, none)}
                    {number_with_hint(ws, K::MaxTpot, format!("tenants-tpot-{i}"), OPT_MILLIS,
                        move |w| w.tenants.job(i).slo.max_tpot,
                        move |w, v| w.tenants.job_mut(i).slo.max_tpot = v, none)}
                    {number_with_hint(ws, K::MinBatch, format!("tenants-min-batch-{i}"), OPT_COUNT,
                        move |w| w.tenants.job(i).min_batch,
                        move |w, v| w.tenants.job_mut(i).min_batch = v, plans_batch)}
                </div>
            </Show>
        </li>
    }
}

/// The job list.
#[component]
pub fn JobPicker() -> impl IntoView {
    let state = use_state();
    let count = Memo::new(move |_| state.ws.with(|w| w.plans.len()));
    view! {
        <fieldset class="ops-box" data-testid="tenants-jobs">
            <legend>{move || t(state.lang(), K::Jobs)}</legend>
            <ul class="job-list">
                <For each={move || 0..count.get()} key={|i| *i} children={job_row} />
            </ul>
        </fieldset>
    }
}
