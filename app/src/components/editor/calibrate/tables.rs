//! The fit's tables: the knobs before and after, each measured figure's
//! error before and after, and the active plan's prediction with either.

use super::fit::Prediction;
use crate::i18n::calibrate::{figure, knob, t, K};
use crate::i18n::Lang;
use leptos::prelude::*;
use planner_core::calibrate::{Calibration, FigureValue, Knob};

/// A figure's value with its unit (GiB or ms).
pub fn show_value(v: Option<FigureValue>) -> String {
    match v {
        Some(value) if value.base().is_finite() => match value {
            FigureValue::Time(_) => format!("{value:.3}"),
            FigureValue::Bytes(_) => format!("{value:.2}"),
        },
        _ => "—".into(),
    }
}

/// A relative error as a signed percentage.
pub fn show_pct(e: f64) -> String {
    if e.is_finite() {
        format!("{:+.1}%", e * 100.0)
    } else {
        "—".into()
    }
}

/// The knobs: where they started and what the fit made of them.
pub fn knobs_table(lang: Lang, c: &Calibration) -> impl IntoView {
    let rows = Knob::ALL
        .iter()
        .map(|&k| {
            let fitted = c.profile.fitted.contains(&k);
            let value = if fitted {
                c.profile.knobs.show(k)
            } else {
                t(lang, K::NotFitted).to_string()
            };
            view! {
                <tr data-knob={format!("{k:?}")} data-fitted={fitted.to_string()}>
                    <td>{knob(lang, k)}</td>
                    <td>{c.start.show(k)}</td>
                    <td>{value}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <table data-testid="calib-knobs">
            <caption>{t(lang, K::KnobsTitle)}</caption>
            <thead><tr><th>{t(lang, K::Knob)}</th><th>{t(lang, K::Before)}</th><th>{t(lang, K::Fitted)}</th></tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

/// Every measured figure and its error before and after the fit.
pub fn errors_table(lang: Lang, c: &Calibration) -> impl IntoView {
    let rows = c
        .rows
        .iter()
        .map(|r| {
            let id = if r.held_out {
                format!("{} ({})", r.id, t(lang, K::HeldOut))
            } else {
                r.id.clone()
            };
            view! {
                <tr data-figure={format!("{:?}", r.figure)}>
                    <td>{id}</td>
                    <td>{figure(lang, r.figure)}</td>
                    <td>{show_value(Some(r.measured))}</td>
                    <td data-col="before">{show_pct(r.error_before())}</td>
                    <td data-col="after">{show_pct(r.error_after())}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <table data-testid="calib-errors">
            <caption>{t(lang, K::ErrorsTitle)}</caption>
            <thead><tr>
                <th>{t(lang, K::Row)}</th><th>{t(lang, K::FigureCol)}</th><th>{t(lang, K::Measured)}</th>
                <th>{t(lang, K::ErrBefore)}</th><th>{t(lang, K::ErrAfter)}</th>
            </tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

/// The active plan's figures with its own knobs and with the fitted ones.
pub fn prediction_table(lang: Lang, ps: Vec<Prediction>) -> impl IntoView {
    let rows = ps
        .into_iter()
        .map(|p| {
            let missing = t(lang, K::NotPredicted);
            let cell = |v: Option<FigureValue>| {
                if v.is_some() {
                    show_value(v)
                } else {
                    missing.to_string()
                }
            };
            view! {
                <tr data-figure={format!("{:?}", p.figure)}>
                    <td>{figure(lang, p.figure)}</td>
                    <td data-col="current">{cell(p.current)}</td>
                    <td data-col="calibrated">{cell(p.calibrated)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <table data-testid="calib-prediction">
            <caption>{t(lang, K::PredictionTitle)}</caption>
            <thead><tr><th>{t(lang, K::FigureCol)}</th><th>{t(lang, K::Current)}</th><th>{t(lang, K::Calibrated)}</th></tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner_core::units::{Bytes, Seconds};

    #[test]
    fn values_show_with_units() {
        assert_eq!(
            show_value(Some(FigureValue::Time(Seconds::from_base(0.0125)))),
            "12.500 ms"
        );
        assert_eq!(
            show_value(Some(FigureValue::Bytes(Bytes::from_gib(2.0)))),
            "2.00 GiB"
        );
        assert_eq!(show_value(None), "—");
        assert_eq!(show_pct(-0.123), "-12.3%");
        assert_eq!(show_pct(f64::NAN), "—");
    }
}
