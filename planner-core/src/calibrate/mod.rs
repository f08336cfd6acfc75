//! Calibration: fit the overhead and efficiency knobs of a plan to
//! measurements of one GPU kind, and say how much closer the predictions
//! come on configurations the fit did not see.
//!
//! A [`Measurement`] is a plan plus what a real run of it showed (PyTorch's
//! peak allocated and reserved bytes, the device memory the driver saw in
//! use, step time or TTFT/TPOT). [`errors`] holds one against the plan's
//! report; [`fit`] searches the knobs ([`Knob`]) that minimise the squared
//! log-ratio of predicted to measured figures over a training subset and
//! reports the before/after errors on the rest.
//!
//! The search is a bounded coordinate search: for each knob in turn, a
//! grid scan of its range followed by a golden-section refinement around
//! the best grid point, repeated until a sweep no longer improves the
//! objective. It is deterministic (no randomness, no clock) and, like the
//! rest of the core, does no I/O: the GPU harness (`tests/harness`) turns
//! recorded runs into measurements, the CLI (`memwall calibrate`) prints
//! the result.

use crate::catalog::GpuId;
use crate::diagnostics::Severity;
use crate::evaluate::evaluate;
use crate::hardware::GpuChoice;
use crate::plan::Plan;
use crate::report::{Interval, Report, TimeReport, Verdict};
use crate::units::{Bytes, Seconds};
use serde::{Deserialize, Serialize};

/// What a run of a plan measured; every figure is optional.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Measured {
    /// Peak bytes held by tensors (`torch.cuda.max_memory_allocated`).
    #[serde(default)]
    pub peak_allocated: Option<Bytes>,
    /// Peak bytes held by the caching allocator
    /// (`torch.cuda.max_memory_reserved`).
    #[serde(default)]
    pub peak_reserved: Option<Bytes>,
    /// Device memory the process used as the driver sees it (NVML or
    /// `cudaMemGetInfo`, less what was in use before the process started).
    #[serde(default)]
    pub device_used: Option<Bytes>,
    /// Median optimizer-step time (training).
    #[serde(default)]
    pub step_time: Option<Seconds>,
    /// Median prefill time of the batch (serving).
    #[serde(default)]
    pub ttft: Option<Seconds>,
    /// Median decode time per output token (serving).
    #[serde(default)]
    pub tpot: Option<Seconds>,
}

/// One configuration: the plan that describes it and what it measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Measurement {
    /// A stable name of the configuration (the harness's run id).
    pub id: String,
    /// The plan of the run.
    pub plan: Plan,
    /// What it measured.
    pub measured: Measured,
}

/// A figure a run measures and a report predicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Figure {
    /// Peak tensor bytes ([`crate::report::DeviceMemory::hbm_allocated`]).
    PeakAllocated,
    /// Peak allocator bytes ([`crate::report::DeviceMemory::hbm_reserved`]).
    PeakReserved,
    /// Driver-level use ([`crate::report::DeviceMemory::hbm_used`]).
    DeviceUsed,
    /// Optimizer-step time.
    StepTime,
    /// Time to first token.
    Ttft,
    /// Time per output token.
    Tpot,
}

impl Figure {
    /// Every figure, memory first.
    pub const ALL: [Figure; 6] = [
        Figure::PeakAllocated,
        Figure::PeakReserved,
        Figure::DeviceUsed,
        Figure::StepTime,
        Figure::Ttft,
        Figure::Tpot,
    ];

    /// A short English label.
    pub fn label(self) -> &'static str {
        match self {
            Figure::PeakAllocated => "peak allocated",
            Figure::PeakReserved => "peak reserved",
            Figure::DeviceUsed => "device used",
            Figure::StepTime => "step time",
            Figure::Ttft => "TTFT",
            Figure::Tpot => "TPOT",
        }
    }

    /// True for the time figures (seconds), false for memory (bytes).
    pub fn is_time(self) -> bool {
        matches!(self, Figure::StepTime | Figure::Ttft | Figure::Tpot)
    }

    /// The measured value in base units (bytes or seconds), if measured.
    pub fn measured(self, m: &Measured) -> Option<f64> {
        match self {
            Figure::PeakAllocated => m.peak_allocated.map(Bytes::base),
            Figure::PeakReserved => m.peak_reserved.map(Bytes::base),
            Figure::DeviceUsed => m.device_used.map(Bytes::base),
            Figure::StepTime => m.step_time.map(Seconds::base),
            Figure::Ttft => m.ttft.map(Seconds::base),
            Figure::Tpot => m.tpot.map(Seconds::base),
        }
    }

    /// The predicted value in base units, if the report has it (memory
    /// figures are the binding device's HBM).
    pub fn predicted(self, r: &Report) -> Option<f64> {
        let dev = r.binding_device();
        match (self, &r.time) {
            (Figure::PeakAllocated, _) => dev.map(|d| d.hbm_allocated().base()),
            (Figure::PeakReserved, _) => dev.map(|d| d.hbm_reserved().base()),
            (Figure::DeviceUsed, _) => dev.map(|d| d.hbm_used().base()),
            (Figure::StepTime, TimeReport::Training(t)) => Some(t.step.base()),
            (Figure::Ttft, TimeReport::Inference(t)) => Some(t.ttft.base()),
            (Figure::Tpot, TimeReport::Inference(t)) => Some(t.tpot.base()),
            _ => None,
        }
    }

    /// The range the report expects a measured value in (time figures
    /// only; see `docs/validation.md`, "Ranges").
    pub fn range(self, r: &Report) -> Option<Interval<f64>> {
        let iv = |i: Interval<Seconds>| Interval {
            low: i.low.base(),
            high: i.high.base(),
        };
        match (self, &r.time) {
            (Figure::StepTime, TimeReport::Training(t)) => Some(iv(t.step_range)),
            (Figure::Ttft, TimeReport::Inference(t)) => Some(iv(t.ttft_range)),
            (Figure::Tpot, TimeReport::Inference(t)) => Some(iv(t.tpot_range)),
            _ => None,
        }
    }
}

/// A measured figure against its prediction.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FigureError {
    /// Which figure.
    pub figure: Figure,
    /// Measured, in base units (bytes or seconds).
    pub measured: f64,
    /// Predicted, in base units.
    pub predicted: f64,
    /// (predicted − measured) / measured.
    pub error: f64,
    /// The range the report gives for the figure, where it gives one.
    #[serde(default)]
    pub range: Option<Interval<f64>>,
}

impl FigureError {
    /// Whether the measured value lies inside the report's range (`None`
    /// when the report gives no range for the figure).
    pub fn in_range(&self) -> Option<bool> {
        self.range
            .map(|r| self.measured >= r.low && self.measured <= r.high)
    }
}

/// Relative error of a prediction; `None` unless both are finite and the
/// measurement positive.
pub fn relative_error(predicted: f64, measured: f64) -> Option<f64> {
    (predicted.is_finite() && measured.is_finite() && measured > 0.0)
        .then(|| (predicted - measured) / measured)
}

/// Every measured figure of a measurement against an already computed
/// report of its plan.
pub fn errors_against(report: &Report, measured: &Measured) -> Vec<FigureError> {
    Figure::ALL
        .iter()
        .filter_map(|&f| {
            let m = f.measured(measured)?;
            let p = f.predicted(report)?;
            Some(FigureError {
                figure: f,
                measured: m,
                predicted: p,
                error: relative_error(p, m)?,
                range: f.range(report),
            })
        })
        .collect()
}

/// Every measured figure of a measurement against its plan's report.
pub fn errors(m: &Measurement) -> Vec<FigureError> {
    errors_against(&evaluate(&m.plan), &m.measured)
}

/// A knob the fit may move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Knob {
    /// `overheads.cuda_context` (bytes; moves device used).
    CudaContext,
    /// `overheads.fragmentation` (fraction; moves reserved and used).
    Fragmentation,
    /// `efficiency.gemm` (fraction; moves every time).
    Gemm,
    /// `efficiency.hbm` (fraction; element-wise work, decode reads).
    Hbm,
    /// `efficiency.attention` (fraction; the fused attention core).
    Attention,
    /// `efficiency.layer_overhead` (seconds per layer and pass).
    LayerOverhead,
}

/// How a knob's range is searched.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Scale {
    Linear,
    /// Searched in log space (fixed costs spanning orders of magnitude).
    Log,
}

impl Knob {
    /// Every knob.
    pub const ALL: [Knob; 6] = [
        Knob::CudaContext,
        Knob::Fragmentation,
        Knob::Gemm,
        Knob::Hbm,
        Knob::Attention,
        Knob::LayerOverhead,
    ];

    /// The knobs [`FitOptions::default`] fits. The attention efficiency is
    /// left out: on one GPU kind it trades off against the GEMM efficiency
    /// unless the measurements vary the attention share widely.
    pub const DEFAULT: [Knob; 5] = [
        Knob::CudaContext,
        Knob::Fragmentation,
        Knob::Gemm,
        Knob::Hbm,
        Knob::LayerOverhead,
    ];

    /// A short English label, naming the plan field.
    pub fn label(self) -> &'static str {
        match self {
            Knob::CudaContext => "overheads.cuda_context",
            Knob::Fragmentation => "overheads.fragmentation",
            Knob::Gemm => "efficiency.gemm",
            Knob::Hbm => "efficiency.hbm",
            Knob::Attention => "efficiency.attention",
            Knob::LayerOverhead => "efficiency.layer_overhead",
        }
    }

    /// The figures the knob moves.
    pub fn figures(self) -> &'static [Figure] {
        match self {
            Knob::CudaContext => &[Figure::DeviceUsed],
            Knob::Fragmentation => &[Figure::PeakReserved, Figure::DeviceUsed],
            Knob::Gemm | Knob::Hbm | Knob::Attention | Knob::LayerOverhead => {
                &[Figure::StepTime, Figure::Ttft, Figure::Tpot]
            }
        }
    }

    /// The search range in base units (bytes, fraction or seconds): wide
    /// enough to hold every published value the defaults were chosen from
    /// (`Overheads` and `Efficiency` docs) with room on both sides.
    fn bounds(self) -> (f64, f64, Scale) {
        match self {
            Knob::CudaContext => (0.0, Bytes::from_gib(4.0).base(), Scale::Linear),
            Knob::Fragmentation => (0.0, 1.0, Scale::Linear),
            Knob::Gemm | Knob::Hbm | Knob::Attention => (0.05, 1.0, Scale::Linear),
            Knob::LayerOverhead => (
                Seconds::from_micros(0.5).base(),
                Seconds::from_millis(2.0).base(),
                Scale::Log,
            ),
        }
    }
}

/// The values of every knob, in the plan's units.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Knobs {
    /// `overheads.cuda_context`.
    pub cuda_context: Bytes,
    /// `overheads.fragmentation`, 0..=1.
    pub fragmentation: f64,
    /// `efficiency.gemm`, 0..=1.
    pub gemm: f64,
    /// `efficiency.hbm`, 0..=1.
    pub hbm: f64,
    /// `efficiency.attention`, 0..=1.
    pub attention: f64,
    /// `efficiency.layer_overhead`.
    pub layer_overhead: Seconds,
}

impl Knobs {
    /// The knobs as a plan sets them.
    pub fn of(plan: &Plan) -> Self {
        Self {
            cuda_context: plan.overheads.cuda_context,
            fragmentation: plan.overheads.fragmentation,
            gemm: plan.efficiency.gemm,
            hbm: plan.efficiency.hbm,
            attention: plan.efficiency.attention,
            layer_overhead: plan.efficiency.layer_overhead,
        }
    }

    /// Writes the knobs into a plan (every other field is left alone).
    pub fn apply(&self, plan: &mut Plan) {
        plan.overheads.cuda_context = self.cuda_context;
        plan.overheads.fragmentation = self.fragmentation;
        plan.efficiency.gemm = self.gemm;
        plan.efficiency.hbm = self.hbm;
        plan.efficiency.attention = self.attention;
        plan.efficiency.layer_overhead = self.layer_overhead;
    }

    /// One knob's value in base units.
    pub fn get(&self, k: Knob) -> f64 {
        match k {
            Knob::CudaContext => self.cuda_context.base(),
            Knob::Fragmentation => self.fragmentation,
            Knob::Gemm => self.gemm,
            Knob::Hbm => self.hbm,
            Knob::Attention => self.attention,
            Knob::LayerOverhead => self.layer_overhead.base(),
        }
    }

    /// Sets one knob from a value in base units.
    pub fn set(&mut self, k: Knob, v: f64) {
        match k {
            Knob::CudaContext => self.cuda_context = Bytes::new(v),
            Knob::Fragmentation => self.fragmentation = v,
            Knob::Gemm => self.gemm = v,
            Knob::Hbm => self.hbm = v,
            Knob::Attention => self.attention = v,
            Knob::LayerOverhead => self.layer_overhead = Seconds::from_base(v),
        }
    }

    /// One knob's value as text with its unit.
    pub fn show(&self, k: Knob) -> String {
        match k {
            Knob::CudaContext => format!("{:.0} MiB", self.cuda_context.as_mib()),
            Knob::LayerOverhead => format!("{:.1} µs", self.layer_overhead.base() * 1e6),
            _ => format!("{:.3}", self.get(k)),
        }
    }
}

/// Where a profile's measurements came from.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ProfileSource {
    /// Fixture files the measurements were read from.
    #[serde(default)]
    pub fixtures: Vec<String>,
    /// When they were measured (the fixtures' dates).
    #[serde(default)]
    pub measured_on: String,
    /// Software they were measured with (driver, CUDA, PyTorch).
    #[serde(default)]
    pub software: String,
}

/// A fitted set of knobs for one GPU kind, with where it came from; what
/// the catalog stores (`catalog::CALIBRATIONS`) and a plan can apply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CalibrationProfile {
    /// The GPU's display name, as the reports name it.
    pub gpu: String,
    /// Its catalog id, when the measurements used a catalog GPU.
    #[serde(default)]
    pub gpu_id: Option<GpuId>,
    /// The knob values (fitted ones and the starting values of the rest).
    pub knobs: Knobs,
    /// The knobs the fit moved.
    pub fitted: Vec<Knob>,
    /// Measurements the fit used.
    pub measurements: usize,
    /// Where they came from.
    pub source: ProfileSource,
}

impl CalibrationProfile {
    /// Writes the profile's knobs into a plan.
    pub fn apply(&self, plan: &mut Plan) {
        self.knobs.apply(plan);
    }
}

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

/// One measured figure before and after the fit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CalibrationRow {
    /// The measurement's id.
    pub id: String,
    /// Whether it was held out of the fit.
    pub held_out: bool,
    /// The figure.
    pub figure: Figure,
    /// Measured (bytes or seconds).
    pub measured: f64,
    /// Predicted with the starting knobs.
    pub before: f64,
    /// Predicted with the fitted knobs.
    pub after: f64,
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
}

impl std::fmt::Display for CalibrationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CalibrationError::NoMeasurements => write!(f, "no measurements to fit"),
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

/// Squared log-ratio of prediction to measurement; a large finite penalty
/// where the prediction is not positive and finite.
fn log_ratio_sq(predicted: f64, measured: f64) -> f64 {
    if predicted > 0.0 && predicted.is_finite() && measured > 0.0 {
        let l = (predicted / measured).ln();
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
    // One report per plan before the fit: the GPU check, validity, and the
    // "before" figures.
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
    let gpu_id = match &first.plan.hardware.gpu {
        GpuChoice::Preset(id)
            if ms
                .iter()
                .all(|m| m.plan.hardware.gpu == GpuChoice::Preset(*id)) =>
        {
            Some(*id)
        }
        _ => None,
    };

    // Hold out every k-th measurement, unless that would leave nothing
    // to fit on (then every measurement serves both).
    let k = options.hold_out;
    let mut held: Vec<bool> = (0..ms.len()).map(|i| k > 0 && i % k == k - 1).collect();
    if held.iter().all(|h| *h) {
        held.iter_mut().for_each(|h| *h = false);
    }
    let any_held = held.iter().any(|h| *h);
    let train: Vec<&Measurement> = ms
        .iter()
        .zip(&held)
        .filter(|(_, h)| !**h)
        .map(|(m, _)| m)
        .collect();

    // Knobs to fit: those asked for whose figures the training set measured.
    let measured_figures: Vec<Figure> = Figure::ALL
        .iter()
        .copied()
        .filter(|f| train.iter().any(|m| f.measured(&m.measured).is_some()))
        .collect();
    let mut knobs_to_fit = Vec::new();
    let mut not_fitted = Vec::new();
    for &k in &options.knobs {
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

    let problem = Problem {
        plans: train,
        figures,
    };
    let start = Knobs::of(&first.plan);
    let mut knobs = start;
    let objective_before = problem.objective(&knobs);
    let mut current = objective_before;
    let mut sweeps = 0;
    while sweeps < options.max_sweeps && !knobs_to_fit.is_empty() {
        sweeps += 1;
        let at_start = current;
        for &k in &knobs_to_fit {
            let (x, v) = line_search(&problem, &knobs, k, knobs.get(k));
            if v < current {
                knobs.set(k, x);
                current = v;
            }
        }
        if at_start - current <= 1e-12 * at_start.max(1e-300) {
            break;
        }
    }

    // Rows: every measured figure, before and after.
    let mut rows = Vec::new();
    for (i, (m, before)) in ms.iter().zip(&before_reports).enumerate() {
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
    let judged = |r: &&CalibrationRow| !any_held || r.held_out;
    let summaries = |after: bool| -> Vec<ErrorSummary> {
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
    };
    let held_out_before = summaries(false);
    let held_out_after = summaries(true);

    Ok(Calibration {
        profile: CalibrationProfile {
            gpu: gpu_name.unwrap_or_default(),
            gpu_id,
            knobs,
            fitted: knobs_to_fit,
            measurements: problem.plans.len(),
            source: options.source.clone(),
        },
        start,
        not_fitted,
        sweeps,
        objective: Interval {
            low: current,
            high: objective_before,
        },
        rows,
        held_out_before,
        held_out_after,
        held_out: held.iter().filter(|h| **h).count(),
    })
}

/// A few figures typed in for one plan: a measured peak and a measured
/// time. The time is the optimizer-step time of a training plan and the
/// decode time per output token (TPOT) of a serving plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PlanRow {
    /// The plan that was run.
    pub plan: Plan,
    /// Peak bytes held by tensors (`torch.cuda.max_memory_allocated`).
    #[serde(default)]
    pub peak_allocated: Option<Bytes>,
    /// Step time (training) or TPOT (serving).
    #[serde(default)]
    pub time: Option<Seconds>,
}

/// The figure a [`PlanRow`]'s time is: step time for training, TPOT for
/// serving.
pub fn time_figure(plan: &Plan) -> Figure {
    match plan.workload {
        crate::plan::Workload::Training(_) => Figure::StepTime,
        crate::plan::Workload::Inference(_) => Figure::Tpot,
    }
}

/// Measurements of typed rows (ids `row 1`, `row 2`, …); a row with
/// neither figure is dropped.
pub fn plan_row_measurements(rows: &[PlanRow]) -> Vec<Measurement> {
    rows.iter()
        .enumerate()
        .filter(|(_, r)| r.peak_allocated.is_some() || r.time.is_some())
        .map(|(i, r)| {
            let mut measured = Measured {
                peak_allocated: r.peak_allocated,
                ..Measured::default()
            };
            match time_figure(&r.plan) {
                Figure::StepTime => measured.step_time = r.time,
                _ => measured.tpot = r.time,
            }
            Measurement {
                id: format!("row {}", i + 1),
                plan: r.plan.clone(),
                measured,
            }
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
    fn knobs_round_trip_through_a_plan() {
        let mut plan = crate::examples::example_plan();
        let mut k = Knobs::of(&plan);
        for (i, knob) in Knob::ALL.iter().enumerate() {
            let (lo, hi, _) = knob.bounds();
            k.set(*knob, lo + (hi - lo) * (i as f64 + 1.0) / 8.0);
        }
        k.apply(&mut plan);
        assert_eq!(Knobs::of(&plan), k);
        for knob in Knob::ALL {
            assert_eq!(Knobs::of(&plan).get(knob), k.get(knob));
        }
    }

    #[test]
    fn no_measurements_is_an_error() {
        assert_eq!(
            fit(&[], &FitOptions::default()),
            Err(CalibrationError::NoMeasurements)
        );
    }

    #[test]
    fn relative_error_needs_a_positive_measurement() {
        assert_eq!(
            relative_error(1.1, 1.0).map(|e| (e * 1e9).round()),
            Some(1e8)
        );
        assert_eq!(relative_error(1.0, 0.0), None);
        assert_eq!(relative_error(f64::NAN, 1.0), None);
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
            time: Some(Seconds::from_base(predicted * 1.3)),
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
