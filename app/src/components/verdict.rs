//! The fit verdict of the active plan, with its HBM margin, and for a plan
//! with a request stream whether it serves the stream (the core's
//! `Report::stream_verdict`): a plan can fit and still miss its targets.

use crate::state::use_state;
use leptos::prelude::*;
use planner_core::report::{Report, ServingFigure, StreamVerdict, Verdict};
use planner_core::Named;

/// One line: fits or not, and by how much; then how the stream is served.
#[component]
pub fn VerdictLine() -> impl IntoView {
    let state = use_state();
    let lang = move || state.lang();
    let report = move || {
        let i = state.ws.with(|w| w.active);
        state.reports.with(|r| r.get(i).cloned())
    };
    view! {
        {move || {
            report().map(|r| {
                let class = match r.verdict {
                    Verdict::Fits => "verdict fits",
                    Verdict::DoesNotFit => "verdict over",
                    Verdict::Invalid => "verdict invalid",
                };
                let served = stream(&r, lang());
                view! {
                    <div class={class} data-testid="verdict" data-verdict={format!("{:?}", r.verdict)}>
                        <strong>{r.verdict.name(lang())}</strong>
                        " "
                        <span data-testid="hbm-margin">{crate::numfmt::gib_signed(r.hbm_margin)}</span>
                        {served}
                    </div>
                }
            })
        }}
    }
}

/// How the plan serves its stream, and what to read beside it: the
/// largest sustainable rate when the queue grows, the simulated p99s
/// (against the targets in the editor) when a target is missed.
fn stream(r: &Report, lang: crate::i18n::Lang) -> Option<impl IntoView> {
    let v = r.stream_verdict()?;
    let class = if v.serves() {
        "stream-verdict met"
    } else {
        "stream-verdict missed"
    };
    let figure = |f: ServingFigure, x: String| format!("{} {x}", f.name(lang));
    let detail = match v {
        StreamVerdict::Unsustainable => r
            .largest_rates()
            .map(|(max, _)| figure(ServingFigure::MaxRate, crate::numfmt::num(max))),
        StreamVerdict::MissesSlo => r.simulated_stream().map(|m| {
            [
                figure(ServingFigure::TtftP99, crate::numfmt::duration(m.ttft.p99)),
                figure(ServingFigure::TpotP99, crate::numfmt::duration(m.tpot.p99)),
            ]
            .join(" · ")
        }),
        StreamVerdict::KeepsUp | StreamVerdict::MeetsSlo => None,
    }
    .map(|d| format!(" · {d}"));
    Some(view! {
        <span class={class} data-testid="stream-verdict" data-stream-verdict={v.key()}>
            <strong>{v.name(lang)}</strong>
            <span class="stream-rate">{detail}</span>
        </span>
    })
}
