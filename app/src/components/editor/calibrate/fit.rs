//! The fit: the core's fitter on the pasted and typed measurements, the
//! fitted knobs written into a plan, and the active plan's prediction
//! before and after.

use super::input::{parse_report, problem, Problem};
use crate::i18n::calibrate::K;
use planner_core::calibrate::{
    fit, fit_plan_rows, plan_row_measurements, time_figure, Calibration, CalibrationError, Figure,
    FigureValue, FitOptions, Knobs, PlanRow,
};
use planner_core::evaluate;
use planner_core::plan::Plan;

/// Most measurements fitted in the browser (the fit evaluates every plan
/// many times; the CLI has no such limit).
pub const MAX_MEASUREMENTS: usize = 64;

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
        CalibrationError::BadMeasurement { id, figure, value } => Problem {
            key: K::ProblemBadMeasurement,
            detail: format!("{id}: {} = {value}", figure.label()),
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
    /// With the plan's own knobs.
    pub current: Option<FigureValue>,
    /// With the fitted knobs.
    pub calibrated: Option<FigureValue>,
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

#[cfg(test)]
mod tests {
    use super::*;
    use planner_core::calibrate::Knob;
    use planner_core::example_plan;
    use planner_core::units::{Bytes, Seconds};

    #[test]
    fn fit_of_typed_rows_applies_only_fitted_knobs() {
        // SYNTHETIC: the "measured" step time is the plan's own prediction
        // scaled by 1.25; this checks the wiring, not the model.
        let plan = example_plan();
        let step = Figure::StepTime
            .predicted(&evaluate(&plan))
            .expect("step time")
            .base();
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
        let (now, after) = (
            time.current.expect("now").base(),
            time.calibrated.expect("after").base(),
        );
        assert!(
            (after / (step * 1.25) - 1.0).abs() < 0.02,
            "{after} vs {}",
            step * 1.25
        );
        assert_eq!(now, step);

        // Applying moves the fitted knobs and leaves the rest of the plan.
        let mut target = plan.clone();
        target.overheads.cuda_context = Some(Bytes::from_gib(1.0));
        apply_fitted(&c, &mut target);
        assert_eq!(target.overheads.cuda_context, Some(Bytes::from_gib(1.0)));
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
}
