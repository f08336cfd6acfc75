//! The active serving plan's figures as its engine runs it: the KV pool in
//! tokens and the concurrency it holds, and with a request stream the
//! latencies at the stream's rate, goodput under the SLOs, the largest
//! sustainable rate and the price of input and output tokens. Every
//! figure is a field of the core's `report.serving`; every name comes from
//! the core's name table ([`ServingFigure`]).

use crate::i18n::results::{t, K};
use crate::i18n::Lang;
use crate::numfmt::{duration, num, pct, si, usd};
use crate::state::use_state;
use leptos::prelude::*;
use planner_core::report::{ServingFigure as F, ServingReport};
use planner_core::units::Seconds;
use planner_core::Named;

/// A figure's value as shown, or `None` when the report does not have it
/// (no stream, no price, no SLO). The simulated percentiles are shown
/// where the simulator ran; the steady-state ones otherwise.
pub fn value(s: &ServingReport, f: F) -> Option<String> {
    let sim = s.simulated.as_ref();
    let ana = s.analytic.as_ref();
    let secs = |v: Seconds| Some(duration(v));
    match f {
        F::KvPoolTokens => Some(si(s.kv_capacity_tokens)),
        F::MaxConcurrency => Some(num(s.max_concurrency)),
        F::TtftP50 => sim
            .map(|m| m.ttft.p50)
            .or(ana.map(|a| a.ttft.p50))
            .and_then(secs),
        F::TtftP99 => sim
            .map(|m| m.ttft.p99)
            .or(ana.map(|a| a.ttft.p99))
            .and_then(secs),
        F::TpotP50 => sim
            .map(|m| m.tpot.p50)
            .or(ana.map(|a| a.tpot))
            .and_then(secs),
        F::TpotP99 => sim.map(|m| m.tpot.p99).and_then(secs),
        F::ItlP50 => sim.map(|m| m.itl.p50).and_then(secs),
        F::Goodput => sim.map(|m| num(m.goodput)),
        F::MaxRate => ana.map(|a| num(a.max_rate)),
        F::MaxRateUnderSlo => ana.and_then(|a| a.max_rate_under_slo).map(num),
        F::UsdPerMInput => s.usd_per_million_input.map(usd),
        F::UsdPerMOutput => s.usd_per_million_output.map(usd),
        F::DpStall => ana.and_then(|a| a.dp_stall).map(pct),
        F::WaveGroups => ana.and_then(|a| a.waves).map(|g| g.to_string()),
        _ => None,
    }
}

/// The rows of a report in a language: (key, name, value); figures the
/// report does not have are left out.
pub fn rows(s: &ServingReport, lang: Lang) -> Vec<(&'static str, &'static str, String)> {
    F::FIGURES
        .into_iter()
        .filter_map(|f| value(s, f).map(|v| (f.key(), f.name(lang), v)))
        .collect()
}

/// How much of a streamed TTFT the server's front end is, when a stream
/// runs on a server that has one.
fn front_end(s: &ServingReport, lang: Lang) -> Option<String> {
    let ms = s.profile.front_end.as_millis();
    (ms > 0.0 && (s.simulated.is_some() || s.analytic.is_some())).then(|| {
        let (lo, hi) = s.profile.engine.front_end_span();
        crate::i18n::results::front_end_note(lang, ms, (lo.as_millis(), hi.as_millis()))
    })
}

/// The serving figures of the active plan; nothing for a training plan.
#[component]
pub fn ServingPanel() -> impl IntoView {
    let state = use_state();
    let lang = move || state.lang();
    let serving = Memo::new(move |_| {
        let i = state.ws.with(|w| w.active);
        state.reports.with(|r| r.get(i).and_then(|r| r.serving))
    });
    view! {
        {move || {
            serving.get().map(|s| {
                let lang = lang();
                let note = match s.simulated {
                    Some(m) if m.ranks > 1 => K::ServingLockstepNote,
                    Some(_) => K::ServingStreamNote,
                    None => K::ServingNoStream,
                };
                view! {
                    <section class="serving-panel" data-testid="serving-panel">
                        <h3>{format!("{} · {}", t(lang, K::ServingTitle), s.profile.engine.name(lang))}</h3>
                        <dl class="serving-figures">
                            {rows(&s, lang)
                                .into_iter()
                                .map(|(key, name, v)| view! {
                                    <div class="figure" data-testid=format!("serving-{key}")>
                                        <dt>{name}</dt>
                                        <dd>{v}</dd>
                                    </div>
                                })
                                .collect_view()}
                        </dl>
                        <p class="note" data-testid="serving-note">{t(lang, note)}</p>
                        {front_end(&s, lang).map(|n| view! {
                            <p class="note" data-testid="serving-front-end">{n}</p>
                        })}
                    </section>
                }
            })
        }}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner_core::{evaluate, example_serving_plan};

    #[test]
    fn a_stream_shows_every_figure_in_both_languages() {
        let r = evaluate(&example_serving_plan());
        let s = r.serving.expect("a serving report");
        for lang in [Lang::En, Lang::Zh] {
            let shown = rows(&s, lang);
            // The example sets both p99 targets, and has a catalog price;
            // it runs no attention DP, so it has no stall figure, and its
            // Poisson arrivals come in no waves.
            assert_eq!(shown.len(), F::FIGURES.len() - 2, "{shown:?}");
            assert!(shown
                .iter()
                .all(|(k, _, _)| *k != "dp_stall" && *k != "wave_groups"));
            assert!(shown.iter().all(|(_, n, v)| !n.is_empty() && !v.is_empty()));
        }
    }

    /// A stream on vLLM says how much of its TTFT is the server's front
    /// end, in both languages; a static batch says nothing of it.
    #[test]
    fn a_stream_names_the_servers_front_end() {
        let r = evaluate(&example_serving_plan());
        let s = r.serving.expect("a serving report");
        let en = front_end(&s, Lang::En).expect("a note");
        let zh = front_end(&s, Lang::Zh).expect("a note");
        assert!(en.contains("30 ms") && en.contains("20–50"), "{en}");
        assert!(zh.contains("30 毫秒"), "{zh}");
        let mut p = example_serving_plan();
        if let planner_core::plan::Workload::Inference(i) = &mut p.workload {
            i.stream = None;
        }
        let s = evaluate(&p).serving.expect("a serving report");
        assert_eq!(front_end(&s, Lang::En), None);
    }

    #[test]
    fn without_a_stream_only_the_pool_shows() {
        let mut p = example_serving_plan();
        if let planner_core::plan::Workload::Inference(i) = &mut p.workload {
            i.stream = None;
        }
        let s = evaluate(&p).serving.expect("a serving report");
        let keys: Vec<_> = rows(&s, Lang::En).into_iter().map(|r| r.0).collect();
        assert!(
            keys.starts_with(&["kv_pool_tokens", "max_concurrency"]),
            "{keys:?}"
        );
        assert!(
            !keys.contains(&"ttft_p50") && !keys.contains(&"goodput"),
            "{keys:?}"
        );
    }
}
