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
                // An invalid plan's margin is that of the safe stand-ins
                // `resolve` put in for its bad values: say what is wrong
                // instead.
                let detail = match r.verdict {
                    Verdict::Invalid => view! {
                        <span class="verdict-reason" data-testid="verdict-reason">{first_error(&r, lang())}</span>
                    }
                    .into_any(),
                    _ => view! {
                        <span data-testid="hbm-margin">{crate::numfmt::gib_signed(r.hbm_margin)}</span>
                    }
                    .into_any(),
                };
                view! {
                    <div class={class} data-testid="verdict" data-verdict={format!("{:?}", r.verdict)}>
                        <strong>{r.verdict.name(lang())}</strong>
                        " "
                        {detail}
                        {served}
                    </div>
                }
            })
        }}
    }
}

/// The first error of an invalid plan in the workspace's language, with how
/// many more the diagnostics list.
fn first_error(r: &Report, lang: crate::i18n::Lang) -> String {
    let mut errors = r
        .diagnostics
        .iter()
        .filter(|d| d.severity == planner_core::Severity::Error);
    let Some(first) = errors.next() else {
        return String::new();
    };
    let first = first.message_in(lang);
    match (errors.count(), lang) {
        (0, _) => first,
        (more, crate::i18n::Lang::En) => format!("{first} (and {more} more below)"),
        (more, crate::i18n::Lang::Zh) => format!("{first}（另有 {more} 项，见下方）"),
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
