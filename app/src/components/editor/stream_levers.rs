//! The serving engine and the request stream a serving plan is held to:
//! arrival rate, prompt and output lengths, and the p99 latency targets.
//! Field names come from the core's name table
//! ([`planner_core::report::ServingFigure`], [`planner_core::engine::Engine`]).

use super::bind::{choice, hint, number, number_with_hint, toggle};
use super::lens::{use_plan, PlanLens};
use super::parse::{COUNT, OPT_COUNT, OPT_MS, OPT_MS_OR_ZERO, RATE};
use crate::i18n::editor::{t, K};
use crate::i18n::Lang;
use leptos::prelude::*;
use planner_core::engine::{Batching, Engine, HostOverlap, MoeBackend};
use planner_core::plan::{Plan, Workload};
use planner_core::report::ServingFigure as F;
use planner_core::request::{sharegpt, Arrival, Lengths, RequestStream, Slo};
use planner_core::units::Frequency;
use planner_core::Named;

/// The option of an engine knob that leaves the engine's default.
const DEFAULT: &str = "default";

/// An engine knob's options: the engine's default, then every value by
/// the core's name.
fn with_default<T: Named>(lang: Lang, all: &[T]) -> Vec<(String, String)> {
    std::iter::once((DEFAULT.to_string(), t(lang, K::EngineDefault).to_string()))
        .chain(
            all.iter()
                .map(|v| (v.key().to_string(), v.name(lang).to_string())),
        )
        .collect()
}

/// The option a knob shows: its value's key, or the default's.
fn key_or_default<T: Named>(v: Option<T>) -> String {
    v.map_or(DEFAULT.to_string(), |v| v.key().to_string())
}

/// The value an option names; the default's names none.
fn by_key<T: Named>(all: &[T], key: &str) -> Option<T> {
    all.iter().copied().find(|v| v.key() == key)
}

/// The stream a newly ticked box starts with: one request per second of
/// the plan's own prompt and output lengths, no targets.
fn new_stream(p: &Plan) -> Option<RequestStream> {
    let Workload::Inference(i) = &p.workload else {
        return None;
    };
    Some(RequestStream {
        arrival: Arrival::Poisson {
            rate: Frequency::per_second(1.0),
        },
        prompt: Lengths::Fixed {
            tokens: i.prompt_tokens,
        },
        output: Lengths::Fixed {
            tokens: i.output_tokens,
        },
        slo: Slo::default(),
        shared_prefix: 0,
        reuse: None,
        requests: 1000,
        seed: 0,
    })
}

/// The engine's own front end, shown in an empty box: "engine default: 30".
fn front_end_hint(lens: PlanLens) -> Signal<Option<String>> {
    Signal::derive(move || {
        let ms = lens.get(|p| p.levers.engine.front_end().as_millis());
        Some(format!("{}: {ms:.0}", t(lens.lang(), K::EngineDefault)))
    })
}

/// The engine's own CUDA-graph cap, as the core's report of the active
/// plan gives it (SGLang's default follows the GPU's memory and the
/// ranks): "engine default: 256".
fn graph_hint(lens: PlanLens) -> Signal<Option<String>> {
    let state = crate::state::use_state();
    Signal::derive(move || {
        let i = state.ws.with(|w| w.active);
        let cap = state.reports.with(|r| {
            r.get(i)
                .and_then(|r| r.serving.as_ref())
                .and_then(|s| s.profile.graph_max_batch)
        })?;
        Some(format!("{}: {cap}", t(lens.lang(), K::EngineDefault)))
    })
}

fn stream(p: &Plan) -> Option<&RequestStream> {
    match &p.workload {
        Workload::Inference(i) => i.stream.as_ref(),
        Workload::Training(_) => None,
    }
}

fn stream_mut(p: &mut Plan) -> Option<&mut RequestStream> {
    match &mut p.workload {
        Workload::Inference(i) => i.stream.as_mut(),
        Workload::Training(_) => None,
    }
}

/// A length field: shows the mean (rounded), writes a fixed length.
fn tokens(
    lens: PlanLens,
    f: F,
    testid: &'static str,
    of: fn(&RequestStream) -> &Lengths,
    set: fn(&mut RequestStream) -> &mut Lengths,
) -> impl IntoView {
    number(
        lens,
        f,
        testid,
        COUNT,
        move |p| stream(p).map_or(0, |s| of(s).mean().round() as u32),
        move |p, v| {
            if let Some(s) = stream_mut(p) {
                *set(s) = Lengths::Fixed { tokens: v.max(1) }
            }
        },
    )
}

/// The stream's lengths as one of the choices: `fixed`, `sharegpt`, or
/// `custom` (a distribution a link or file gave).
fn lengths_key(p: &Plan) -> String {
    let Some(s) = stream(p) else {
        return "fixed".into();
    };
    let (prompt, output) = sharegpt();
    match (&s.prompt, &s.output) {
        (Lengths::Fixed { .. }, Lengths::Fixed { .. }) => "fixed".into(),
        (a, b) if *a == prompt && *b == output => "sharegpt".into(),
        _ => "custom".into(),
    }
}

/// Sets the stream's lengths from a choice; `custom` leaves them.
fn set_lengths(p: &mut Plan, key: &str) {
    let Some(s) = stream_mut(p) else { return };
    match key {
        "sharegpt" => (s.prompt, s.output) = sharegpt(),
        "fixed" => {
            let fixed = |l: &Lengths| Lengths::Fixed {
                tokens: (l.mean().round() as u32).max(1),
            };
            (s.prompt, s.output) = (fixed(&s.prompt), fixed(&s.output));
        }
        _ => {}
    }
}

/// Engine and request stream of a serving plan.
#[component]
pub fn StreamLevers() -> impl IntoView {
    let lens = use_plan();
    let on = Memo::new(move |_| lens.get(|p| stream(p).is_some()));
    let engines = |lang| {
        Engine::ALL
            .iter()
            .map(|e| (e.key().to_string(), e.name(lang).to_string()))
            .collect()
    };
    let continuous = Memo::new(move |_| lens.get(|p| p.levers.engine.continuous()));
    // Only SGLang's decode graphs stop at a stated batch.
    let graphs = Memo::new(move |_| lens.get(|p| p.levers.engine == Engine::Sglang));
    // TensorRT-LLM's MoE backend, for an MoE model.
    let moe_backend = Memo::new(move |_| {
        lens.get(|p| p.levers.engine == Engine::TrtLlm && p.model.spec().moe.is_some())
    });
    let backends = |lang| with_default(lang, &MoeBackend::ALL);
    // Multi-step scheduling is vLLM V0's alone.
    let multi_step = Memo::new(move |_| lens.get(|p| p.levers.engine == Engine::VllmV0));
    // Only SGLang and vLLM V0 choose how prompts meet decoding.
    let batching = Memo::new(move |_| {
        lens.get(|p| matches!(p.levers.engine, Engine::Sglang | Engine::VllmV0))
    });
    let ways = |lang| with_default(lang, &Batching::ALL);
    let lengths = |lang| {
        [
            ("fixed", K::LengthsFixed),
            ("sharegpt", K::LengthsShareGpt),
            ("custom", K::LengthsCustom),
        ]
        .iter()
        .map(|(k, label)| (k.to_string(), t(lang, *label).to_string()))
        .collect()
    };
    let overlaps = |lang| with_default(lang, &HostOverlap::ALL);
    view! {
        <details class="lever-set" open data-testid="levers-stream">
            <summary>{move || t(lens.lang(), K::RequestStream)}</summary>
            {choice(lens, K::Engine, "lever-engine", engines, |p| p.levers.engine.key().to_string(),
                |p, key| if let Some(e) = Engine::ALL.into_iter().find(|e| e.key() == key) { p.levers.engine = e })}
            <Show when=move || continuous.get()>
                {choice(lens, K::HostOverlap, "lever-host-overlap", overlaps,
                    |p| key_or_default(p.levers.engine_knobs.host_overlap),
                    |p, key| p.levers.engine_knobs.host_overlap = by_key(&HostOverlap::ALL, key))}
            </Show>
            <Show when=move || continuous.get()>
                {number_with_hint(lens, K::FrontEnd, "lever-front-end", OPT_MS_OR_ZERO,
                    |p| p.levers.engine_knobs.front_end_ms,
                    |p, v| p.levers.engine_knobs.front_end_ms = v,
                    front_end_hint(lens))}
            </Show>
            <Show when=move || batching.get()>
                {choice(lens, K::Batching, "lever-batching", ways,
                    |p| key_or_default(p.levers.engine_knobs.batching),
                    |p, key| p.levers.engine_knobs.batching = by_key(&Batching::ALL, key))}
            </Show>
            <Show when=move || graphs.get()>
                {number_with_hint(lens, K::GraphMaxBatch, "lever-graph-max-batch", OPT_COUNT,
                    |p| p.levers.engine_knobs.graph_max_batch,
                    |p, v| p.levers.engine_knobs.graph_max_batch = v,
                    graph_hint(lens))}
            </Show>
            <Show when=move || moe_backend.get()>
                {choice(lens, K::MoeBackend, "lever-moe-backend", backends,
                    |p| key_or_default(p.levers.engine_knobs.moe_backend),
                    |p, key| p.levers.engine_knobs.moe_backend = by_key(&MoeBackend::ALL, key))}
            </Show>
            <Show when=move || multi_step.get()>
                {number(lens, K::SchedulerSteps, "lever-scheduler-steps", COUNT,
                    |p| p.levers.engine_knobs.scheduler_steps.unwrap_or(1),
                    |p, v| p.levers.engine_knobs.scheduler_steps = (v > 1).then_some(v))}
            </Show>
            {toggle(lens, K::StreamOn, "lever-stream-on", |p| stream(p).is_some(),
                |p, want| {
                    let fresh = if want { new_stream(p) } else { None };
                    if let Workload::Inference(i) = &mut p.workload {
                        if want != i.stream.is_some() { i.stream = fresh; }
                    }
                })}
            <Show when=move || on.get()>
                {number(lens, F::ArrivalRate, "stream-rate", RATE,
                    |p| match stream(p).map(|s| s.arrival) { Some(Arrival::Poisson { rate }) => rate, _ => Frequency::per_second(0.0) },
                    |p, v| if let Some(s) = stream_mut(p) { s.arrival = Arrival::Poisson { rate: v } })}
                {choice(lens, K::StreamLengths, "stream-lengths", lengths, lengths_key, set_lengths)}
                {tokens(lens, F::PromptTokens, "stream-prompt", |s| &s.prompt, |s| &mut s.prompt)}
                {tokens(lens, F::OutputTokens, "stream-output", |s| &s.output, |s| &mut s.output)}
                {number_with_hint(lens, F::SloTtftP99, "stream-slo-ttft", OPT_MS,
                    |p| stream(p).and_then(|s| s.slo.ttft_p99), |p, v| if let Some(s) = stream_mut(p) { s.slo.ttft_p99 = v },
                    hint(lens, K::NoTarget))}
                {number_with_hint(lens, F::SloTpotP99, "stream-slo-tpot", OPT_MS,
                    |p| stream(p).and_then(|s| s.slo.tpot_p99), |p, v| if let Some(s) = stream_mut(p) { s.slo.tpot_p99 = v },
                    hint(lens, K::NoTarget))}
            </Show>
        </details>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner_core::example_serving_plan;

    #[test]
    fn lengths_switch_between_fixed_and_sharegpt() {
        let mut p = example_serving_plan();
        assert_eq!(lengths_key(&p), "sharegpt");
        set_lengths(&mut p, "fixed");
        assert_eq!(lengths_key(&p), "fixed");
        // Fixed at the distribution's means.
        assert_eq!(stream(&p).map(|s| s.prompt.mean()), Some(221.0));
        set_lengths(&mut p, "sharegpt");
        assert_eq!(lengths_key(&p), "sharegpt");
        if let Some(s) = stream_mut(&mut p) {
            s.prompt = Lengths::Uniform { min: 10, max: 20 };
        }
        assert_eq!(lengths_key(&p), "custom");
        set_lengths(&mut p, "custom");
        assert_eq!(lengths_key(&p), "custom");
    }
}
