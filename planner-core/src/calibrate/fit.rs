//! The fit: options, the objective and its line search, the coordinate
//! search over the knobs, and the before/after errors on the held-out
//! measurements ([`Calibration`]).

use super::{
    plan_row_measurements, relative_error, CalibrationProfile, Figure, FigureValue, Knob, Knobs,
    Measurement, PlanRow, ProfileSource, Scale,
};
use crate::catalog::GpuId;
use crate::diagnostics::Severity;
use crate::evaluate::evaluate;
use crate::hardware::GpuChoice;
use crate::report::{Interval, Report, Verdict};
use serde::{Deserialize, Serialize};

/// Options of [`fit`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FitOptions {
    /// The knobs to fit; a knob none of whose figures was measured is left
    /// at its starting value and listed in [`Calibration::not_fitted`].
    #[serde(default = "default_knobs")]
    pub knobs: Vec<Knob>,
    /// Every `hold_out`-th measurement (the 4th, 8th, …) is kept out of the
    /// fit and used to judge it; 0 uses every measurement for both.
    #[serde(default = "default_hold_out")]
    pub hold_out: usize,
    /// Most coordinate sweeps.
    #[serde(default = "default_sweeps")]
    pub max_sweeps: u32,
    /// Where the measurements came from (copied into the profile).
    #[serde(default)]
    pub source: ProfileSource,
}

fn default_knobs() -> Vec<Knob> {
    Knob::DEFAULT.to_vec()
}
fn default_hold_out() -> usize {
    4
}
fn default_sweeps() -> u32 {
    16
}

impl Default for FitOptions {
    fn default() -> Self {
        Self {
            knobs: default_knobs(),
            hold_out: default_hold_out(),
            max_sweeps: default_sweeps(),
            source: ProfileSource::default(),
        }
    }
}

/// What a calibration is run on: measurements and where they came from.
/// The GPU harness's comparison report carries these two fields, so
/// `memwall calibrate REPORT.json` reads it directly.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CalibrationInput {
    /// The measurements.
    pub measurements: Vec<Measurement>,
    /// Where they came from.
    #[serde(default)]
    pub source: ProfileSource,
}

/// One measured figure before and after the fit. In JSON the values are
/// plain numbers in base units (bytes or seconds, as `figure` says).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "CalibrationRowJson", into = "CalibrationRowJson")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(with = "CalibrationRowJson"))]
pub struct CalibrationRow {
    /// The measurement's id.
    pub id: String,
    /// Whether it was held out of the fit.
    pub held_out: bool,
    /// The figure.
    pub figure: Figure,
    /// Measured.
    pub measured: FigureValue,
    /// Predicted with the starting knobs.
    pub before: FigureValue,
    /// Predicted with the fitted knobs.
    pub after: FigureValue,
}

/// [`CalibrationRow`] as JSON: values in base units.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
struct CalibrationRowJson {
    id: String,
    held_out: bool,
    figure: Figure,
    measured: f64,
    before: f64,
    after: f64,
}

impl From<CalibrationRowJson> for CalibrationRow {
    fn from(j: CalibrationRowJson) -> Self {
        let v = |x: f64| j.figure.value(x);
        CalibrationRow {
            measured: v(j.measured),
            before: v(j.before),
            after: v(j.after),
            id: j.id,
            held_out: j.held_out,
            figure: j.figure,
        }
    }
}

impl From<CalibrationRow> for CalibrationRowJson {
    fn from(r: CalibrationRow) -> Self {
        CalibrationRowJson {
            id: r.id,
            held_out: r.held_out,
            figure: r.figure,
            measured: r.measured.base(),
            before: r.before.base(),
            after: r.after.base(),
        }
    }
}

impl CalibrationRow {
    /// Relative error before the fit.
    pub fn error_before(&self) -> f64 {
        relative_error(self.before, self.measured).unwrap_or(f64::NAN)
    }
    /// Relative error after the fit.
    pub fn error_after(&self) -> f64 {
        relative_error(self.after, self.measured).unwrap_or(f64::NAN)
    }
}

/// Median and worst relative error of one figure over a set of rows.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ErrorSummary {
    /// The figure.
    pub figure: Figure,
    /// Rows summarised.
    pub count: usize,
    /// Median of |error|.
    pub median_abs: f64,
    /// The error of largest magnitude, with its sign.
    pub worst: f64,
}

/// Median |e| and the signed error of largest magnitude of `errors` for
/// one figure; `None` when there are none.
pub fn summarise(figure: Figure, errors: &[f64]) -> Option<ErrorSummary> {
    let mut abs: Vec<f64> = errors
        .iter()
        .copied()
        .filter(|e| e.is_finite())
        .map(f64::abs)
        .collect();
    if abs.is_empty() {
        return None;
    }
    abs.sort_by(f64::total_cmp);
    let n = abs.len();
    let median_abs = if n % 2 == 1 {
        abs[n / 2]
    } else {
        (abs[n / 2 - 1] + abs[n / 2]) / 2.0
    };
    let worst = errors
        .iter()
        .copied()
        .filter(|e| e.is_finite())
        .fold(0.0_f64, |w, e| if e.abs() > w.abs() { e } else { w });
    Some(ErrorSummary {
        figure,
        count: n,
        median_abs,
        worst,
    })
}

/// The result of a fit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Calibration {
    /// The fitted profile.
    pub profile: CalibrationProfile,
    /// The knobs before the fit (the first measurement's plan).
    pub start: Knobs,
    /// Knobs asked for but not fitted, and why.
    pub not_fitted: Vec<(Knob, String)>,
    /// Coordinate sweeps run.
    pub sweeps: u32,
    /// Objective (mean squared log-ratio over the fitted figures of the
    /// training set) before and after.
    pub objective: Interval<f64>,
    /// Every measured figure, before and after; held-out rows first.
    pub rows: Vec<CalibrationRow>,
    /// Per-figure errors on the held-out rows (all rows when nothing was
    /// held out): before the fit.
    pub held_out_before: Vec<ErrorSummary>,
    /// The same after the fit.
    pub held_out_after: Vec<ErrorSummary>,
    /// Measurements held out of the fit.
    pub held_out: usize,
}

/// Why a fit could not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CalibrationError {
    /// No measurement was given.
    NoMeasurements,
    /// The measurements are of more than one GPU kind.
    MixedGpus {
        /// The first GPU seen.
        first: String,
        /// Another one.
        other: String,
    },
    /// A measurement's plan is invalid.
    InvalidPlan {
        /// Its id.
        id: String,
        /// The plan's errors.
        message: String,
    },
    /// A measured figure is zero, negative or not finite: no run measures
    /// that, and a log-ratio fit cannot use it.
    BadMeasurement {
        /// The measurement's id.
        id: String,
        /// The figure.
        figure: Figure,
        /// The value as given, in base units.
        value: String,
    },
}

impl std::fmt::Display for CalibrationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CalibrationError::NoMeasurements => write!(f, "no measurements to fit"),
            CalibrationError::BadMeasurement { id, figure, value } => write!(
                f,
                "measurement {id:?}: {} is {value}; a measured figure must be positive and finite",
                figure.label()
            ),
            CalibrationError::MixedGpus { first, other } => write!(
                f,
                "measurements of more than one GPU kind ({first} and {other}); fit one kind at a time"
            ),
            CalibrationError::InvalidPlan { id, message } => {
                write!(f, "measurement {id}: invalid plan: {message}")
            }
        }
    }
}

impl std::error::Error for CalibrationError {}

/// Refuses a measured figure that is zero, negative or not finite.
fn check_measured(ms: &[Measurement]) -> Result<(), CalibrationError> {
    for m in ms {
        for f in Figure::ALL {
            if let Some(v) = f.measured(&m.measured).map(FigureValue::base) {
                if !(v.is_finite() && v > 0.0) {
                    return Err(CalibrationError::BadMeasurement {
                        id: m.id.clone(),
                        figure: f,
                        value: v.to_string(),
                    });
                }
            }
        }
    }
    Ok(())
}

/// Squared log-ratio of prediction to measurement; a large finite penalty
/// where the prediction is not positive and finite.
fn log_ratio_sq(predicted: FigureValue, measured: FigureValue) -> f64 {
    let (predicted, measured) = (predicted.base(), measured.base());
    if predicted > 0.0 && predicted.is_finite() && measured > 0.0 {
        // A difference of logarithms, not the log of a quotient: a
        // subnormal measurement would make the quotient overflow.
        let l = predicted.ln() - measured.ln();
        l * l
    } else {
        1e6
    }
}

/// The training set, the figures the fit moves, and the objective.
struct Problem<'a> {
    plans: Vec<&'a Measurement>,
    figures: Vec<Figure>,
}

impl Problem<'_> {
    fn objective(&self, k: &Knobs) -> f64 {
        let mut sum = 0.0;
        let mut n = 0usize;
        for m in &self.plans {
            let mut plan = m.plan.clone();
            k.apply(&mut plan);
            let r = evaluate(&plan);
            for &f in &self.figures {
                if let (Some(meas), Some(pred)) = (f.measured(&m.measured), f.predicted(&r)) {
                    sum += log_ratio_sq(pred, meas);
                    n += 1;
                }
            }
        }
        if n == 0 {
            0.0
        } else {
            sum / n as f64
        }
    }
}

/// Points of the coarse scan of each knob's range.
const GRID: usize = 17;
/// Golden-section steps after the scan: shrinks the bracket (two grid
/// cells) by 0.618^24 ≈ 1e-5.
const GOLDEN: usize = 24;

/// Minimises the objective along one knob; returns the best value found
/// (never worse than the current one).
fn line_search(p: &Problem, k: &Knobs, knob: Knob, current: f64) -> (f64, f64) {
    let (lo, hi, scale) = knob.bounds();
    let to = |x: f64| match scale {
        Scale::Linear => x,
        Scale::Log => x.ln(),
    };
    let from = |u: f64| match scale {
        Scale::Linear => u,
        Scale::Log => u.exp(),
    };
    let (ulo, uhi) = (to(lo), to(hi));
    let at = |u: f64| {
        let mut t = *k;
        t.set(knob, from(u).clamp(lo, hi));
        p.objective(&t)
    };
    let mut best_x = current;
    let mut best = {
        let mut t = *k;
        t.set(knob, current);
        p.objective(&t)
    };
    let step = (uhi - ulo) / (GRID - 1) as f64;
    let mut best_i = None;
    for i in 0..GRID {
        let u = ulo + step * i as f64;
        let v = at(u);
        if v < best {
            best = v;
            best_x = from(u).clamp(lo, hi);
            best_i = Some(i);
        }
    }
    // Refine inside the two cells around the best grid point, or around
    // the current value when no grid point beat it.
    let centre = match best_i {
        Some(i) => ulo + step * i as f64,
        None => to(current.clamp(lo, hi)),
    };
    let (mut a, mut b) = ((centre - step).max(ulo), (centre + step).min(uhi));
    let g = (5.0_f64.sqrt() - 1.0) / 2.0;
    let mut c = b - g * (b - a);
    let mut d = a + g * (b - a);
    let (mut fc, mut fd) = (at(c), at(d));
    for _ in 0..GOLDEN {
        if fc <= fd {
            b = d;
            d = c;
            fd = fc;
            c = b - g * (b - a);
            fc = at(c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + g * (b - a);
            fd = at(d);
        }
    }
    for (u, v) in [(c, fc), (d, fd)] {
        if v < best {
            best = v;
            best_x = from(u).clamp(lo, hi);
        }
    }
    (best_x, best)
}
/// Fits the knobs to measurements of one GPU kind.
///
/// The objective is the mean over the training measurements and the
/// figures the fitted knobs move of ln(predicted/measured)², so a 10 %
/// miss counts the same on a 1 ms decode step and a 10 s training step
/// and over- and under-prediction weigh alike. Every `hold_out`-th
/// measurement is kept out of the fit; the before/after summaries are
/// over those.
pub fn fit(ms: &[Measurement], options: &FitOptions) -> Result<Calibration, CalibrationError> {
    let first = ms.first().ok_or(CalibrationError::NoMeasurements)?;
    check_measured(ms)?;
    let (before_reports, gpu_name) = reports_before(ms)?;
    let gpu_id = common_gpu_id(first, ms);
    let held = hold_out_mask(ms.len(), options.hold_out);
    let any_held = held.iter().any(|h| *h);
    let train: Vec<&Measurement> = ms
        .iter()
        .zip(&held)
        .filter(|(_, h)| !**h)
        .map(|(m, _)| m)
        .collect();
    let chosen = choose_knobs(&train, &options.knobs);
    let problem = Problem {
        plans: train,
        figures: chosen.figures,
    };
    let start = Knobs::of(&first.plan);
    let search = coordinate_search(&problem, start, &chosen.fit, options.max_sweeps);
    let rows = rows_before_after(ms, &before_reports, &held, &search.knobs);
    let held_out_before = held_out_summaries(&rows, any_held, false);
    let held_out_after = held_out_summaries(&rows, any_held, true);

    Ok(Calibration {
        profile: CalibrationProfile {
            gpu: gpu_name.unwrap_or_default(),
            gpu_id,
            knobs: search.knobs,
            fitted: chosen.fit,
            measurements: problem.plans.len(),
            source: options.source.clone(),
        },
        start,
        not_fitted: chosen.not_fitted,
        sweeps: search.sweeps,
        objective: Interval {
            low: search.objective,
            high: search.objective_before,
        },
        rows,
        held_out_before,
        held_out_after,
        held_out: held.iter().filter(|h| **h).count(),
    })
}

/// One report per plan before the fit: the GPU check, validity, and the
/// "before" figures. Returns the reports and the GPU's name.
fn reports_before(ms: &[Measurement]) -> Result<(Vec<Report>, Option<String>), CalibrationError> {
    let mut before_reports = Vec::with_capacity(ms.len());
    let mut gpu_name: Option<String> = None;
    for m in ms {
        let r = evaluate(&m.plan);
        if r.verdict == Verdict::Invalid {
            let message = r
                .diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .map(|d| d.message.clone())
                .collect::<Vec<_>>()
                .join("; ");
            return Err(CalibrationError::InvalidPlan {
                id: m.id.clone(),
                message,
            });
        }
        match &gpu_name {
            None => gpu_name = Some(r.gpu.clone()),
            Some(g) if *g != r.gpu => {
                return Err(CalibrationError::MixedGpus {
                    first: g.clone(),
                    other: r.gpu.clone(),
                })
            }
            Some(_) => {}
        }
        before_reports.push(r);
    }
    Ok((before_reports, gpu_name))
}

/// The catalog id of the GPU, when every measurement uses the same catalog
/// GPU as the first.
fn common_gpu_id(first: &Measurement, ms: &[Measurement]) -> Option<GpuId> {
    match &first.plan.hardware.gpu {
        GpuChoice::Preset(id)
            if ms
                .iter()
                .all(|m| m.plan.hardware.gpu == GpuChoice::Preset(*id)) =>
        {
            Some(*id)
        }
        _ => None,
    }
}

/// Which measurements are held out: every k-th, unless that would leave
/// nothing to fit on (then every measurement serves both).
fn hold_out_mask(n: usize, k: usize) -> Vec<bool> {
    let mut held: Vec<bool> = (0..n).map(|i| k > 0 && i % k == k - 1).collect();
    if held.iter().all(|h| *h) {
        held.iter_mut().for_each(|h| *h = false);
    }
    held
}

/// The knobs the fit moves, those it cannot, and the figures it judges by.
struct KnobChoice {
    /// Knobs asked for whose figures the training set measured, in order.
    fit: Vec<Knob>,
    /// Knobs asked for but not fitted, and why.
    not_fitted: Vec<(Knob, String)>,
    /// The measured figures the fitted knobs move, sorted.
    figures: Vec<Figure>,
}

/// Knobs to fit: those asked for whose figures the training set measured.
fn choose_knobs(train: &[&Measurement], asked: &[Knob]) -> KnobChoice {
    let measured_figures: Vec<Figure> = Figure::ALL
        .iter()
        .copied()
        .filter(|f| train.iter().any(|m| f.measured(&m.measured).is_some()))
        .collect();
    let mut knobs_to_fit = Vec::new();
    let mut not_fitted = Vec::new();
    for &k in asked {
        if knobs_to_fit.contains(&k) {
            continue;
        }
        if k.figures().iter().any(|f| measured_figures.contains(f)) {
            knobs_to_fit.push(k);
        } else {
            let names: Vec<_> = k.figures().iter().map(|f| f.label()).collect();
            not_fitted.push((
                k,
                format!("no {} measured in the training set", names.join(" or ")),
            ));
        }
    }
    let mut figures: Vec<Figure> = knobs_to_fit
        .iter()
        .flat_map(|k| k.figures().iter().copied())
        .filter(|f| measured_figures.contains(f))
        .collect();
    figures.sort();
    figures.dedup();
    KnobChoice {
        fit: knobs_to_fit,
        not_fitted,
        figures,
    }
}

/// Where the coordinate search ended.
struct SearchOutcome {
    /// The fitted knobs.
    knobs: Knobs,
    /// The objective at the starting knobs.
    objective_before: f64,
    /// The objective at the fitted knobs.
    objective: f64,
    /// Sweeps run.
    sweeps: u32,
}

/// Sweeps the knobs in turn, each by a line search, until a sweep no
/// longer improves the objective or `max_sweeps` have run.
fn coordinate_search(
    problem: &Problem,
    start: Knobs,
    knobs_to_fit: &[Knob],
    max_sweeps: u32,
) -> SearchOutcome {
    let mut knobs = start;
    let objective_before = problem.objective(&knobs);
    let mut current = objective_before;
    let mut sweeps = 0;
    while sweeps < max_sweeps && !knobs_to_fit.is_empty() {
        sweeps += 1;
        let at_start = current;
        for &k in knobs_to_fit {
            let (x, v) = line_search(problem, &knobs, k, knobs.get(k));
            if v < current {
                knobs.set(k, x);
                current = v;
            }
        }
        if at_start - current <= 1e-12 * at_start.max(1e-300) {
            break;
        }
    }
    SearchOutcome {
        knobs,
        objective_before,
        objective: current,
        sweeps,
    }
}

/// Every measured figure, before and after; held-out rows first.
fn rows_before_after(
    ms: &[Measurement],
    before_reports: &[Report],
    held: &[bool],
    knobs: &Knobs,
) -> Vec<CalibrationRow> {
    let mut rows = Vec::new();
    for (i, (m, before)) in ms.iter().zip(before_reports).enumerate() {
        let mut plan = m.plan.clone();
        knobs.apply(&mut plan);
        let after = evaluate(&plan);
        for f in Figure::ALL {
            if let (Some(meas), Some(b), Some(a)) = (
                f.measured(&m.measured),
                f.predicted(before),
                f.predicted(&after),
            ) {
                rows.push(CalibrationRow {
                    id: m.id.clone(),
                    held_out: held[i],
                    figure: f,
                    measured: meas,
                    before: b,
                    after: a,
                });
            }
        }
    }
    rows.sort_by_key(|r| !r.held_out);
    rows
}

/// Per-figure error summaries of the held-out rows (every row when none
/// was held out), before the fit or after it.
fn held_out_summaries(rows: &[CalibrationRow], any_held: bool, after: bool) -> Vec<ErrorSummary> {
    let judged = |r: &&CalibrationRow| !any_held || r.held_out;
    Figure::ALL
        .iter()
        .filter_map(|&f| {
            let e: Vec<f64> = rows
                .iter()
                .filter(judged)
                .filter(|r| r.figure == f)
                .map(|r| {
                    if after {
                        r.error_after()
                    } else {
                        r.error_before()
                    }
                })
                .collect();
            summarise(f, &e)
        })
        .collect()
}

/// Fits the default knobs to a few typed rows, every row serving both to
/// fit and to judge (too few to hold any out).
pub fn fit_plan_rows(rows: &[PlanRow]) -> Result<Calibration, CalibrationError> {
    fit(
        &plan_row_measurements(rows),
        &FitOptions {
            hold_out: 0,
            ..FitOptions::default()
        },
    )
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::{Bytes, Seconds};

    #[test]
    fn summary_takes_median_of_magnitudes_and_signed_worst() {
        let s = summarise(Figure::StepTime, &[0.01, -0.08, 0.03, f64::NAN]).expect("rows");
        assert_eq!(s.count, 3);
        assert!((s.median_abs - 0.03).abs() < 1e-12);
        assert_eq!(s.worst, -0.08);
        let even = summarise(Figure::Ttft, &[0.1, -0.2]).expect("rows");
        assert!((even.median_abs - 0.15).abs() < 1e-12);
        assert!(summarise(Figure::Tpot, &[]).is_none());
    }

    #[test]
    fn no_measurements_is_an_error() {
        assert_eq!(
            fit(&[], &FitOptions::default()),
            Err(CalibrationError::NoMeasurements)
        );
    }

    #[test]
    fn typed_rows_become_measurements_of_the_right_figure() {
        let train = crate::examples::example_plan();
        let mut serve = crate::examples::example_plan();
        serve.workload = crate::plan::Workload::Inference(crate::plan::Inference {
            prompt_tokens: 512,
            output_tokens: 64,
            batch: 1,
            logits: Default::default(),
            stream: None,
        });
        let rows = [
            PlanRow {
                plan: train.clone(),
                peak_allocated: Some(Bytes::from_gib(30.0)),
                time: Some(Seconds::from_millis(900.0)),
            },
            PlanRow {
                plan: train.clone(),
                peak_allocated: None,
                time: None,
            },
            PlanRow {
                plan: serve,
                peak_allocated: None,
                time: Some(Seconds::from_millis(12.0)),
            },
        ];
        let ms = plan_row_measurements(&rows);
        assert_eq!(ms.len(), 2);
        assert_eq!(ms[0].measured.step_time, Some(Seconds::from_millis(900.0)));
        assert_eq!(ms[0].measured.peak_allocated, Some(Bytes::from_gib(30.0)));
        assert_eq!(ms[1].id, "row 3");
        assert_eq!(ms[1].measured.tpot, Some(Seconds::from_millis(12.0)));
        assert_eq!(ms[1].measured.step_time, None);
        assert_eq!(
            fit_plan_rows(&rows[1..2]),
            Err(CalibrationError::NoMeasurements)
        );
    }

    #[test]
    fn a_typed_step_time_moves_the_prediction_towards_it() {
        // SYNTHETIC: the "measurement" is the plan's own prediction scaled
        // by 1.3; it checks the machinery, not the model.
        let plan = crate::examples::example_plan();
        let predicted = Figure::StepTime
            .predicted(&evaluate(&plan))
            .expect("training plan has a step time");
        let rows = [PlanRow {
            plan,
            peak_allocated: None,
            time: Some(Seconds::from_base(predicted.base() * 1.3)),
        }];
        let c = fit_plan_rows(&rows).expect("fits");
        assert_eq!(c.held_out, 0);
        let row = c
            .rows
            .iter()
            .find(|r| r.figure == Figure::StepTime)
            .expect("a step-time row");
        assert!(row.error_after().abs() < row.error_before().abs());
        assert!(row.error_after().abs() < 0.02, "{}", row.error_after());
    }
}
