//! Calibration in the browser: paste a GPU harness report, or type what a
//! run of the active plan measured, fit the overhead and efficiency knobs
//! with the core's fitter (`planner_core::calibrate`), see the knobs, the
//! errors before and after and the active plan's prediction with them, and
//! write the fitted knobs into the plan. Nothing pasted is rendered as
//! markup: names, ids and messages are text nodes.

use super::lens::{active, use_plan};
use super::parse::parse_number;
use crate::i18n::calibrate::{figure, knob, t, K};
use crate::i18n::Lang;
use crate::url::History;
use leptos::prelude::*;
use planner_core::calibrate::{
    fit, fit_plan_rows, plan_row_measurements, time_figure, Calibration, CalibrationError,
    CalibrationInput, Figure, FigureValue, FitOptions, Knob, Knobs, Measurement, PlanRow,
};
use planner_core::evaluate;
use planner_core::plan::Plan;
use planner_core::units::{Bytes, Seconds};

/// Largest pasted text read, in bytes.
pub const MAX_TEXT_BYTES: usize = 2 * 1024 * 1024;
/// Most measurements fitted in the browser (the fit evaluates every plan
/// many times; the CLI has no such limit).
pub const MAX_MEASUREMENTS: usize = 64;

/// Why nothing was fitted or added: a message key and, where there is one,
/// the parser's or the core's detail (shown as text).
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// The message.
    pub key: K,
    /// The detail after it (English, from serde or the core); may be empty.
    pub detail: String,
}

fn problem(key: K) -> Problem {
    Problem {
        key,
        detail: String::new(),
    }
}

/// Reads a pasted harness report (`{"measurements": [...], "source": ...}`)
/// or a bare list of measurements.
pub fn parse_report(text: &str) -> Result<Vec<Measurement>, Problem> {
    if text.len() > MAX_TEXT_BYTES {
        return Err(problem(K::ProblemTooLarge));
    }
    match serde_json::from_str::<CalibrationInput>(text) {
        Ok(input) => Ok(input.measurements),
        Err(e) => {
            if let Ok(ms) = serde_json::from_str::<Vec<Measurement>>(text) {
                return Ok(ms);
            }
            if let Ok(serde_json::Value::Object(o)) = serde_json::from_str(text) {
                if o.contains_key("results") && !o.contains_key("measurements") {
                    return Err(problem(K::ProblemRunSet));
                }
            }
            Err(Problem {
                key: K::ProblemJson,
                detail: e.to_string(),
            })
        }
    }
}

/// A typed measured value: empty is `Ok(None)`; otherwise a positive,
/// finite number.
fn parse_measured(text: &str) -> Result<Option<f64>, ()> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    match parse_number(text) {
        Some(v) if v.is_finite() && v > 0.0 => Ok(Some(v)),
        _ => Err(()),
    }
}

/// A row of the plan from the typed peak (GiB) and time (ms).
pub fn row_of(plan: &Plan, peak_gib: &str, time_ms: &str) -> Result<PlanRow, Problem> {
    let peak = parse_measured(peak_gib).map_err(|_| problem(K::ProblemPeak))?;
    let time = parse_measured(time_ms).map_err(|_| problem(K::ProblemTime))?;
    if peak.is_none() && time.is_none() {
        return Err(problem(K::ProblemEmptyRow));
    }
    Ok(PlanRow {
        plan: plan.clone(),
        peak_allocated: peak.map(Bytes::from_gib),
        time: time.map(Seconds::from_millis),
    })
}

fn core_problem(e: CalibrationError) -> Problem {
    match e {
        CalibrationError::NoMeasurements => problem(K::ProblemNothing),
        CalibrationError::MixedGpus { first, other } => Problem {
            key: K::ProblemMixed,
            detail: format!("{first}, {other}"),
        },
        CalibrationError::InvalidPlan { id, message } => Problem {
            key: K::ProblemInvalidPlan,
            detail: format!("{id}: {message}"),
        },
    }
}

/// Fits the pasted report's measurements and the typed rows together (the
/// report's every fourth measurement held out, as `memwall calibrate`
/// does), or the typed rows alone when nothing is pasted.
pub fn run_fit(pasted: &str, rows: &[PlanRow]) -> Result<Calibration, Problem> {
    if pasted.trim().is_empty() {
        if rows.len() > MAX_MEASUREMENTS {
            return Err(problem(K::ProblemTooMany));
        }
        return fit_plan_rows(rows).map_err(core_problem);
    }
    let mut ms = parse_report(pasted)?;
    ms.extend(plan_row_measurements(rows));
    if ms.len() > MAX_MEASUREMENTS {
        return Err(problem(K::ProblemTooMany));
    }
    fit(&ms, &FitOptions::default()).map_err(core_problem)
}

/// Writes the fitted knobs (only those the fit moved) into a plan.
pub fn apply_fitted(c: &Calibration, plan: &mut Plan) {
    let mut k = Knobs::of(plan);
    for &f in &c.profile.fitted {
        k.set(f, c.profile.knobs.get(f));
    }
    k.apply(plan);
}

/// One figure of the active plan with its knobs and with the fitted ones.
#[derive(Debug, Clone, PartialEq)]
pub struct Prediction {
    /// The figure.
    pub figure: Figure,
    /// With the plan's own knobs (base units).
    pub current: Option<f64>,
    /// With the fitted knobs.
    pub calibrated: Option<f64>,
}

/// Peak allocated, peak HBM and the step time or TPOT of a plan, before
/// and after the fitted knobs.
pub fn predictions(plan: &Plan, c: &Calibration) -> Vec<Prediction> {
    let now = evaluate(plan);
    let mut tuned = plan.clone();
    apply_fitted(c, &mut tuned);
    let after = evaluate(&tuned);
    [Figure::PeakAllocated, Figure::DeviceUsed, time_figure(plan)]
        .into_iter()
        .map(|f| Prediction {
            figure: f,
            current: f.predicted(&now),
            calibrated: f.predicted(&after),
        })
        .collect()
}

/// A figure's value with its unit (GiB or ms).
pub fn show_value(f: Figure, v: Option<f64>) -> String {
    match v {
        Some(v) if v.is_finite() => match f.value(v) {
            value @ FigureValue::Time(_) => format!("{value:.3}"),
            value @ FigureValue::Bytes(_) => format!("{value:.2}"),
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

fn knobs_table(lang: Lang, c: &Calibration) -> impl IntoView {
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

fn errors_table(lang: Lang, c: &Calibration) -> impl IntoView {
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
                    <td>{show_value(r.figure, Some(r.measured))}</td>
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

fn prediction_table(lang: Lang, ps: Vec<Prediction>) -> impl IntoView {
    let rows = ps
        .into_iter()
        .map(|p| {
            let missing = t(lang, K::NotPredicted);
            let cell = |v: Option<f64>| {
                if v.is_some() {
                    show_value(p.figure, v)
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

/// The collapsible calibration panel.
#[component]
pub fn CalibratePanel() -> impl IntoView {
    let lens = use_plan();
    let lang = move || lens.lang();
    let pasted = RwSignal::new(String::new());
    let peak = RwSignal::new(String::new());
    let time = RwSignal::new(String::new());
    let rows = RwSignal::new(Vec::<PlanRow>::new());
    let result = RwSignal::new(None::<Calibration>);
    let trouble = RwSignal::new(None::<Problem>);
    let applied = RwSignal::new(false);

    let time_label = move || {
        let f = lens
            .get(|p| Some(time_figure(p)))
            .unwrap_or(Figure::StepTime);
        t(
            lang(),
            if f == Figure::Tpot {
                K::MeasuredTpot
            } else {
                K::MeasuredStep
            },
        )
    };
    let add_row = move |_| {
        let plan = lens.state().ws.with_untracked(|w| active(w).cloned());
        let Some(plan) = plan else { return };
        match row_of(&plan, &peak.get_untracked(), &time.get_untracked()) {
            Ok(r) => {
                rows.update(|rs| rs.push(r));
                peak.set(String::new());
                time.set(String::new());
                trouble.set(None);
            }
            Err(p) => trouble.set(Some(p)),
        }
    };
    let run = move |_| {
        let out = pasted.with_untracked(|s| rows.with_untracked(|rs| run_fit(s, rs)));
        applied.set(false);
        match out {
            Ok(c) => {
                result.set(Some(c));
                trouble.set(None);
            }
            Err(p) => {
                result.set(None);
                trouble.set(Some(p));
            }
        }
    };
    let apply = move |_| {
        if let Some(c) = result.get_untracked() {
            lens.set(History::Push, |p| apply_fitted(&c, p));
            applied.set(true);
        }
    };

    view! {
        <details class="lever-set calibrate" data-testid="calib-panel">
            <summary>{move || t(lang(), K::Calibrate)}</summary>
            <p class="hint">{move || t(lang(), K::About)}</p>
            <textarea
                data-testid="calib-json"
                rows="4"
                spellcheck="false"
                aria-label={move || t(lang(), K::PasteReport)}
                placeholder={move || t(lang(), K::PasteReport)}
                prop:value={move || pasted.get()}
                on:input={move |ev| pasted.set(event_target_value(&ev))}
            ></textarea>
            <div class="row">
                <label class="field">
                    <span class="field-label">{move || t(lang(), K::MeasuredPeak)}</span>
                    <input type="text" inputmode="decimal" data-testid="calib-peak"
                        prop:value={move || peak.get()}
                        on:input={move |ev| peak.set(event_target_value(&ev))} />
                </label>
                <label class="field">
                    <span class="field-label">{time_label}</span>
                    <input type="text" inputmode="decimal" data-testid="calib-time"
                        prop:value={move || time.get()}
                        on:input={move |ev| time.set(event_target_value(&ev))} />
                </label>
                <button data-testid="calib-add-row" on:click={add_row}>{move || t(lang(), K::AddRow)}</button>
            </div>
            <Show when={move || rows.with(|r| !r.is_empty())}>
                <p class="hint">{move || t(lang(), K::RowsTitle)}</p>
                <ul data-testid="calib-rows">
                    {move || {
                        let l = lang();
                        rows.get()
                            .into_iter()
                            .enumerate()
                            .map(|(i, r)| {
                                let f = time_figure(&r.plan);
                                let text = format!(
                                    "{} {} · {} · {}: {} · {}: {}",
                                    t(l, K::Row),
                                    i + 1,
                                    r.plan.name,
                                    figure(l, Figure::PeakAllocated),
                                    show_value(Figure::PeakAllocated, r.peak_allocated.map(Bytes::base)),
                                    figure(l, f),
                                    show_value(f, r.time.map(Seconds::base)),
                                );
                                view! {
                                    <li data-testid={format!("calib-row-{i}")}>
                                        {text} " "
                                        <button data-testid={format!("calib-remove-row-{i}")}
                                            on:click={move |_| rows.update(|rs| { if i < rs.len() { rs.remove(i); } })}>
                                            {t(l, K::RemoveRow)}
                                        </button>
                                    </li>
                                }
                            })
                            .collect_view()
                    }}
                </ul>
            </Show>
            <div class="row">
                <button data-testid="calib-fit" on:click={run}>{move || t(lang(), K::Fit)}</button>
            </div>
            {move || trouble.get().map(|p| view! {
                <p class="error" role="alert" data-testid="calib-error">{t(lang(), p.key)} " " {p.detail}</p>
            })}
            {move || result.get().map(|c| {
                let l = lang();
                let ps = lens.get(|p| predictions(p, &c));
                view! {
                    <div class="calib-result" data-testid="calib-result">
                        {knobs_table(l, &c)}
                        {errors_table(l, &c)}
                        {prediction_table(l, ps)}
                        <div class="row">
                            <button data-testid="calib-apply" on:click={apply}>{t(l, K::Apply)}</button>
                        </div>
                        <Show when={move || applied.get()}>
                            <p class="hint" data-testid="calib-applied">{move || t(lang(), K::Applied)}</p>
                        </Show>
                    </div>
                }
            })}
        </details>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner_core::example_plan;

    #[test]
    fn typed_values_are_positive_numbers_or_say_why_not() {
        let plan = example_plan();
        let r = row_of(&plan, "30.5", "1,200").expect("a row");
        assert_eq!(r.peak_allocated, Some(Bytes::from_gib(30.5)));
        assert_eq!(r.time, Some(Seconds::from_millis(1200.0)));
        assert!(row_of(&plan, "", "12").is_ok_and(|r| r.peak_allocated.is_none()));
        for (peak, time, key) in [
            ("", "", K::ProblemEmptyRow),
            ("-3", "", K::ProblemPeak),
            ("abc", "5", K::ProblemPeak),
            ("0", "", K::ProblemPeak),
            ("4", "NaN", K::ProblemTime),
            ("4", "inf", K::ProblemTime),
            ("4", "<b>1</b>", K::ProblemTime),
        ] {
            assert_eq!(
                row_of(&plan, peak, time).map(|_| ()),
                Err(problem(key)),
                "{peak} {time}"
            );
        }
    }

    #[test]
    fn pasted_text_is_a_report_a_list_or_a_message() {
        let m = Measurement {
            id: "<script>x</script>".into(),
            plan: example_plan(),
            measured: Default::default(),
        };
        let list = serde_json::to_string(&vec![m.clone()]).expect("json");
        let report = format!(r#"{{"measurements": {list}, "source": {{}}}}"#);
        assert_eq!(parse_report(&report).map(|v| v.len()), Ok(1));
        assert_eq!(parse_report(&list).map(|v| v[0].id.clone()), Ok(m.id));
        assert_eq!(
            parse_report(r#"{"format":"x","results":[]}"#).map(|_| ()),
            Err(problem(K::ProblemRunSet))
        );
        for bad in ["", "{", "[1]", "null", r#"{"measurements": 3}"#, "\u{0}"] {
            let e = parse_report(bad).expect_err(bad);
            assert_eq!(e.key, K::ProblemJson, "{bad}");
            assert!(!e.detail.is_empty(), "{bad}");
        }
        let huge = " ".repeat(MAX_TEXT_BYTES + 1);
        assert_eq!(
            parse_report(&huge).map(|_| ()),
            Err(problem(K::ProblemTooLarge))
        );
    }

    #[test]
    fn fit_of_typed_rows_applies_only_fitted_knobs() {
        // SYNTHETIC: the "measured" step time is the plan's own prediction
        // scaled by 1.25; this checks the wiring, not the model.
        let plan = example_plan();
        let step = Figure::StepTime
            .predicted(&evaluate(&plan))
            .expect("step time");
        let rows = vec![PlanRow {
            plan: plan.clone(),
            peak_allocated: None,
            time: Some(Seconds::from_base(step * 1.25)),
        }];
        assert_eq!(
            run_fit("", &[]).map(|_| ()),
            Err(problem(K::ProblemNothing))
        );
        let c = run_fit("  ", &rows).expect("fits");
        assert!(!c.profile.fitted.contains(&Knob::CudaContext));
        let ps = predictions(&plan, &c);
        assert_eq!(ps.len(), 3);
        let time = &ps[2];
        assert_eq!(time.figure, Figure::StepTime);
        let (now, after) = (time.current.expect("now"), time.calibrated.expect("after"));
        assert!(
            (after / (step * 1.25) - 1.0).abs() < 0.02,
            "{after} vs {}",
            step * 1.25
        );
        assert_eq!(now, step);

        // Applying moves the fitted knobs and leaves the rest of the plan.
        let mut target = plan.clone();
        target.overheads.cuda_context = Bytes::from_gib(1.0);
        apply_fitted(&c, &mut target);
        assert_eq!(target.overheads.cuda_context, Bytes::from_gib(1.0));
        for &k in &c.profile.fitted {
            assert_eq!(Knobs::of(&target).get(k), c.profile.knobs.get(k));
        }
        assert_eq!(target.workload, plan.workload);
        assert!(evaluate(&target)
            .diagnostics
            .iter()
            .all(|d| d.severity != planner_core::Severity::Error));
    }

    #[test]
    fn core_errors_become_messages() {
        let mut other = example_plan();
        other.hardware.gpu =
            planner_core::hardware::GpuChoice::Preset(planner_core::catalog::GpuId::A100Sxm80);
        let mk = |plan: Plan| PlanRow {
            plan,
            peak_allocated: Some(Bytes::from_gib(10.0)),
            time: None,
        };
        let e = run_fit("", &[mk(example_plan()), mk(other)]).expect_err("mixed");
        assert_eq!(e.key, K::ProblemMixed);
        assert!(!e.detail.is_empty());
    }

    #[test]
    fn values_show_with_units() {
        assert_eq!(show_value(Figure::StepTime, Some(0.0125)), "12.500 ms");
        assert_eq!(
            show_value(Figure::PeakAllocated, Some(Bytes::from_gib(2.0).base())),
            "2.00 GiB"
        );
        assert_eq!(show_value(Figure::Tpot, None), "—");
        assert_eq!(show_pct(-0.123), "-12.3%");
        assert_eq!(show_pct(f64::NAN), "—");
    }
}
