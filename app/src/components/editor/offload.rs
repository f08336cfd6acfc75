//! Offload of each kind of state to a slower tier, with the share moved,
//! and placement by heat (which replaces the offload settings).

use super::bind::{fraction_slider, pick};
use super::lens::use_plan;
use crate::i18n::editor::{t, K};
use leptos::prelude::*;
use planner_core::plan::{Offload, OffloadTarget, Plan};

/// A state the offload levers move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Optimizer moments and master weights.
    Optimizer,
    /// Working weights.
    Parameters,
    /// Gradients.
    Gradients,
    /// Saved activations.
    Activations,
    /// KV cache.
    KvCache,
    /// Routed expert weights of an MoE model while serving.
    Experts,
}

impl State {
    /// Every state, in the order shown.
    pub const ALL: [State; 6] = [
        State::Optimizer,
        State::Parameters,
        State::Gradients,
        State::Activations,
        State::KvCache,
        State::Experts,
    ];

    /// The state's slot in the offload levers.
    pub fn of(self, o: &Offload) -> Option<OffloadTarget> {
        match self {
            State::Optimizer => o.optimizer,
            State::Parameters => o.parameters,
            State::Gradients => o.gradients,
            State::Activations => o.activations,
            State::KvCache => o.kv_cache,
            State::Experts => o.experts,
        }
    }

    /// The state's slot, for a change.
    pub fn of_mut(self, o: &mut Offload) -> &mut Option<OffloadTarget> {
        match self {
            State::Optimizer => &mut o.optimizer,
            State::Parameters => &mut o.parameters,
            State::Gradients => &mut o.gradients,
            State::Activations => &mut o.activations,
            State::KvCache => &mut o.kv_cache,
            State::Experts => &mut o.experts,
        }
    }

    /// Whether the state exists in a workload that trains (`true`) or
    /// serves, of a model with routed experts (`moe`) or not: optimizer
    /// states, gradients and saved activations only in training, the KV
    /// cache only in serving, routed experts apart from the weights only
    /// when serving an MoE model, weights always.
    pub fn applies(self, trains: bool, moe: bool) -> bool {
        match self {
            State::Optimizer | State::Gradients | State::Activations => trains,
            State::KvCache => !trains,
            State::Experts => !trains && moe,
            State::Parameters => true,
        }
    }

    fn id(self) -> &'static str {
        match self {
            State::Optimizer => "optimizer",
            State::Parameters => "parameters",
            State::Gradients => "gradients",
            State::Activations => "activations",
            State::KvCache => "kv",
            State::Experts => "experts",
        }
    }

    fn label(self) -> K {
        match self {
            State::Optimizer => K::OffloadOptimizer,
            State::Parameters => K::OffloadParameters,
            State::Gradients => K::OffloadGradients,
            State::Activations => K::OffloadActivations,
            State::KvCache => K::OffloadKv,
            State::Experts => K::OffloadExperts,
        }
    }
}

/// One state: its tier and, when it leaves HBM, the share moved.
fn state_row(s: State) -> impl IntoView {
    let lens = use_plan();
    let moved = Memo::new(move |_| lens.get(|p: &Plan| s.of(&p.levers.offload).is_some()));
    view! {
        <div class="offload-row" data-testid={format!("offload-{}", s.id())}>
            {pick(lens, s.label(), format!("offload-{}-tier", s.id()), move |p| s.of(&p.levers.offload), move |p, v| *s.of_mut(&mut p.levers.offload) = v)}
            <Show when={move || moved.get()}>
                {fraction_slider(lens, K::MovedShare, format!("offload-{}-fraction", s.id()),
                    move |p| s.of(&p.levers.offload).map_or(0.0, |t| t.fraction),
                    move |p, v| if let Some(t) = s.of_mut(&mut p.levers.offload) { t.fraction = v })}
            </Show>
        </div>
    }
}

/// Offload and placement levers.
#[component]
pub fn OffloadLevers() -> impl IntoView {
    let lens = use_plan();
    let moe = Memo::new(move |_| lens.get(|p| p.model.spec().moe.is_some()));
    view! {
        <details class="lever-set" open data-testid="levers-offload">
            <summary>{move || t(lens.lang(), K::Offload)}</summary>
            {State::ALL
                .map(|s| view! { <Show when=move || s.applies(lens.trains(), moe.get())>{state_row(s)}</Show> })
                .collect_view()}
            {pick(lens, K::Placement, "lever-placement", |p| p.levers.placement, |p, v| p.levers.placement = v)}
        </details>
    }
}
