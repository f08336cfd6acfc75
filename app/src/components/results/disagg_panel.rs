//! The active plan's prefill and decode pools, when it splits them: each
//! pool's shape, KV pool, fit, largest rate, iteration and load, and the
//! split's link, KV transfer, latencies, rate, bound and price. Every
//! figure is a field of the core's `report.disaggregated`; every name
//! comes from the core's name tables ([`PoolFigure`], [`SplitFigure`],
//! [`ServingFigure`], [`PoolRole`], [`Verdict`]).

use crate::i18n::results::{t, K};
use crate::i18n::Lang;
use crate::numfmt::{duration, num, si, usd};
use crate::state::use_state;
use leptos::prelude::*;
use planner_core::disagg::{PoolFigure, SplitFigure};
use planner_core::report::{DisaggReport, PoolReport, ServingFigure, Verdict};
use planner_core::Named;

/// One figure as shown: (test id, name, value).
pub type Row = (String, &'static str, String);

/// A pool's figures in a language.
pub fn pool_rows(p: &PoolReport, lang: Lang) -> Vec<Row> {
    let role = p.role.key();
    let fit = if p.fits {
        Verdict::Fits
    } else {
        Verdict::DoesNotFit
    };
    vec![
        (
            format!("{role}-{}", PoolFigure::Shape.key()),
            PoolFigure::Shape.name(lang),
            format!("{} × {}", p.tp, p.replicas),
        ),
        (
            format!("{role}-{}", ServingFigure::KvPoolTokens.key()),
            ServingFigure::KvPoolTokens.name(lang),
            si(p.kv_capacity_tokens),
        ),
        (
            format!("{role}-fit"),
            t(lang, K::PoolFit),
            fit.name(lang).to_string(),
        ),
        (
            format!("{role}-{}", ServingFigure::MaxRate.key()),
            ServingFigure::MaxRate.name(lang),
            num(p.max_rate),
        ),
        (
            format!("{role}-{}", PoolFigure::Iteration.key()),
            PoolFigure::Iteration.name(lang),
            duration(p.iteration),
        ),
        (
            format!("{role}-{}", PoolFigure::Running.key()),
            PoolFigure::Running.name(lang),
            num(p.running),
        ),
    ]
}

/// The split's figures in a language; a price only where there is one.
/// Latencies are "—" when no request got through (a pool that does not
/// fit serves none).
pub fn split_rows(d: &DisaggReport, lang: Lang) -> Vec<Row> {
    let link = planner_core::catalog::link(d.link).name.to_string();
    let served = d.simulated.completed > 0;
    let latency = |s| {
        if served {
            duration(s)
        } else {
            "—".to_string()
        }
    };
    let mut rows = vec![
        (
            SplitFigure::Link.key().to_string(),
            SplitFigure::Link.name(lang),
            link,
        ),
        (
            SplitFigure::Transfer.key().to_string(),
            SplitFigure::Transfer.name(lang),
            duration(d.transfer),
        ),
        (
            ServingFigure::TtftP50.key().to_string(),
            ServingFigure::TtftP50.name(lang),
            latency(d.simulated.ttft.p50),
        ),
        (
            ServingFigure::TpotP50.key().to_string(),
            ServingFigure::TpotP50.name(lang),
            latency(d.simulated.tpot.p50),
        ),
        (
            ServingFigure::MaxRate.key().to_string(),
            ServingFigure::MaxRate.name(lang),
            num(d.analytic.max_rate),
        ),
        (
            SplitFigure::Bottleneck.key().to_string(),
            SplitFigure::Bottleneck.name(lang),
            d.analytic.bottleneck.name(lang).to_string(),
        ),
    ];
    if let Some(u) = d.usd_per_million_output {
        rows.push((
            ServingFigure::UsdPerMOutput.key().to_string(),
            ServingFigure::UsdPerMOutput.name(lang),
            usd(u),
        ));
    }
    rows
}

fn figures(rows: Vec<Row>) -> impl IntoView {
    view! {
        <dl class="serving-figures">
            {rows
                .into_iter()
                .map(|(key, name, v)| view! {
                    <div class="figure" data-testid=format!("disagg-{key}")>
                        <dt>{name}</dt>
                        <dd>{v}</dd>
                    </div>
                })
                .collect_view()}
        </dl>
    }
}

/// The pools of the active plan; nothing when it does not split them.
#[component]
pub fn DisaggPanel() -> impl IntoView {
    let state = use_state();
    let split = Memo::new(move |_| {
        let i = state.ws.with(|w| w.active);
        state
            .reports
            .with(|r| r.get(i).and_then(|r| r.disaggregated))
    });
    view! {
        {move || {
            split.get().map(|d| {
                let lang = state.lang();
                let pool = |p: PoolReport| view! {
                    <h4>{p.role.name(lang)}</h4>
                    {figures(pool_rows(&p, lang))}
                };
                view! {
                    <section class="serving-panel" data-testid="disagg-panel">
                        <h3>{t(lang, K::DisaggTitle)}</h3>
                        {figures(split_rows(&d, lang))}
                        {pool(d.prefill)}
                        {pool(d.decode)}
                        <p class="note" data-testid="disagg-note">{t(lang, K::DisaggNote)}</p>
                    </section>
                }
            })
        }}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner_core::{evaluate, example_disagg_plan};

    #[test]
    fn the_example_split_shows_both_pools_in_both_languages() {
        let d = evaluate(&example_disagg_plan())
            .disaggregated
            .expect("a split report");
        for lang in [Lang::En, Lang::Zh] {
            let split = split_rows(&d, lang);
            // The example has a catalog price.
            assert_eq!(split.len(), 7, "{split:?}");
            for p in [d.prefill, d.decode] {
                let rows = pool_rows(&p, lang);
                assert_eq!(rows.len(), 6);
                assert!(rows.iter().all(|(k, n, _)| !k.is_empty() && !n.is_empty()));
            }
            assert!(split.iter().all(|(_, n, v)| !n.is_empty() && !v.is_empty()));
        }
        let zh = split_rows(&d, Lang::Zh);
        assert!(zh
            .iter()
            .any(|(k, _, v)| k == "bottleneck" && (v == "预填充池" || v == "解码池")));
    }

    #[test]
    fn a_pool_that_does_not_fit_shows_no_latency() {
        let mut p = example_disagg_plan();
        if let Some(d) = p.levers.disaggregation.as_mut() {
            d.prefill.tp = 1;
        }
        let d = evaluate(&p).disaggregated.expect("a split report");
        assert!(!d.prefill.fits);
        let rows = split_rows(&d, Lang::En);
        let ttft = rows
            .iter()
            .find(|r| r.0 == "ttft_p50")
            .map(|r| r.2.as_str());
        assert_eq!(ttft, Some("—"));
        let fit = pool_rows(&d.prefill, Lang::En);
        assert!(fit
            .iter()
            .any(|r| r.0 == "prefill-fit" && r.2 == "Does not fit"));
    }
}
