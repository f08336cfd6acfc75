//! What a run measured ([`Measured`], [`Measurement`]), the figures it
//! measures and a report predicts ([`Figure`], typed as [`FigureValue`]),
//! and one measurement held against its plan's report ([`FigureError`],
//! [`errors`]). Typed rows ([`PlanRow`]) become measurements here too.

use crate::evaluate::evaluate;
use crate::plan::{Plan, Workload};
use crate::report::{Interval, Report, TimeReport};
use crate::units::{Bytes, Seconds};
use serde::{Deserialize, Serialize};
use std::fmt;

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

    /// The measured value, if measured.
    pub fn measured(self, m: &Measured) -> Option<FigureValue> {
        use FigureValue::{Bytes as B, Time as T};
        match self {
            Figure::PeakAllocated => m.peak_allocated.map(B),
            Figure::PeakReserved => m.peak_reserved.map(B),
            Figure::DeviceUsed => m.device_used.map(B),
            Figure::StepTime => m.step_time.map(T),
            Figure::Ttft => m.ttft.map(T),
            Figure::Tpot => m.tpot.map(T),
        }
    }

    /// The predicted value, if the report has it (memory figures are the
    /// binding device's HBM).
    pub fn predicted(self, r: &Report) -> Option<FigureValue> {
        use FigureValue::{Bytes as B, Time as T};
        let dev = r.binding_device();
        match (self, &r.time) {
            (Figure::PeakAllocated, _) => dev.map(|d| B(d.hbm_allocated())),
            (Figure::PeakReserved, _) => dev.map(|d| B(d.hbm_reserved())),
            (Figure::DeviceUsed, _) => dev.map(|d| B(d.hbm_used())),
            (Figure::StepTime, TimeReport::Training(t)) => Some(T(t.step)),
            (Figure::Ttft, TimeReport::Inference(t)) => Some(T(t.ttft)),
            (Figure::Tpot, TimeReport::Inference(t)) => Some(T(t.tpot)),
            _ => None,
        }
    }

    /// A value of this figure in base units, typed: bytes for the memory
    /// figures, seconds for the time figures.
    pub fn value(self, base: f64) -> FigureValue {
        if self.is_time() {
            FigureValue::Time(Seconds::from_base(base))
        } else {
            FigureValue::Bytes(Bytes::new(base))
        }
    }

    /// The range the report expects a measured value in (time figures
    /// only; see `docs/validation.md`, "Ranges").
    pub fn range(self, r: &Report) -> Option<Interval<FigureValue>> {
        let iv = |i: Interval<Seconds>| Interval {
            low: FigureValue::Time(i.low),
            high: FigureValue::Time(i.high),
        };
        match (self, &r.time) {
            (Figure::StepTime, TimeReport::Training(t)) => Some(iv(t.step_range)),
            (Figure::Ttft, TimeReport::Inference(t)) => Some(iv(t.ttft_range)),
            (Figure::Tpot, TimeReport::Inference(t)) => Some(iv(t.tpot_range)),
            _ => None,
        }
    }
}

/// The value of a [`Figure`] with its quantity: an amount of memory or a
/// duration.
///
/// Displayed in GiB or milliseconds; the formatter's precision sets the
/// decimals (three when none is given): `format!("{v:.2}")` gives
/// `12.40 GiB`, `v.to_string()` gives `812.500 ms`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FigureValue {
    /// A memory figure.
    Bytes(Bytes),
    /// A time figure.
    Time(Seconds),
}

impl FigureValue {
    /// Whether this is a duration (a memory amount otherwise).
    pub fn is_time(self) -> bool {
        matches!(self, FigureValue::Time(_))
    }

    /// The value in base units (bytes or seconds).
    pub fn base(self) -> f64 {
        match self {
            FigureValue::Bytes(b) => b.base(),
            FigureValue::Time(t) => t.base(),
        }
    }
}

impl fmt::Display for FigureValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let decimals = f.precision().unwrap_or(3);
        match self {
            FigureValue::Bytes(b) => write!(f, "{:.decimals$} GiB", b.as_gib()),
            FigureValue::Time(t) => write!(f, "{:.decimals$} ms", t.as_millis()),
        }
    }
}

/// A measured figure against its prediction. In JSON the values are plain
/// numbers in base units (bytes for memory figures, seconds for time
/// figures), as `figure` says.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(from = "FigureErrorJson", into = "FigureErrorJson")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(with = "FigureErrorJson"))]
pub struct FigureError {
    /// Which figure.
    pub figure: Figure,
    /// Measured.
    pub measured: FigureValue,
    /// Predicted.
    pub predicted: FigureValue,
    /// (predicted − measured) / measured.
    pub error: f64,
    /// The range the report gives for the figure, where it gives one.
    pub range: Option<Interval<FigureValue>>,
}

/// [`FigureError`] as JSON: values in base units.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
struct FigureErrorJson {
    figure: Figure,
    measured: f64,
    predicted: f64,
    error: f64,
    #[serde(default)]
    range: Option<Interval<f64>>,
}

impl From<FigureErrorJson> for FigureError {
    fn from(j: FigureErrorJson) -> Self {
        let v = |x: f64| j.figure.value(x);
        FigureError {
            figure: j.figure,
            measured: v(j.measured),
            predicted: v(j.predicted),
            error: j.error,
            range: j.range.map(|r| Interval {
                low: v(r.low),
                high: v(r.high),
            }),
        }
    }
}

impl From<FigureError> for FigureErrorJson {
    fn from(e: FigureError) -> Self {
        FigureErrorJson {
            figure: e.figure,
            measured: e.measured.base(),
            predicted: e.predicted.base(),
            error: e.error,
            range: e.range.map(|r| Interval {
                low: r.low.base(),
                high: r.high.base(),
            }),
        }
    }
}

impl FigureError {
    /// Whether the measured value lies inside the report's range (`None`
    /// when the report gives no range for the figure).
    pub fn in_range(&self) -> Option<bool> {
        let m = self.measured.base();
        self.range.map(|r| m >= r.low.base() && m <= r.high.base())
    }
}

/// Relative error of a prediction; `None` unless both are of one kind,
/// finite, and the measurement positive.
pub fn relative_error(predicted: FigureValue, measured: FigureValue) -> Option<f64> {
    let (p, m) = (predicted.base(), measured.base());
    (predicted.is_time() == measured.is_time() && p.is_finite() && m.is_finite() && m > 0.0)
        .then(|| (p - m) / m)
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
        Workload::Training(_) => Figure::StepTime,
        Workload::Inference(_) => Figure::Tpot,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_error_needs_a_positive_measurement() {
        let t = |x: f64| FigureValue::Time(Seconds::from_base(x));
        assert_eq!(
            relative_error(t(1.1), t(1.0)).map(|e| (e * 1e9).round()),
            Some(1e8)
        );
        assert_eq!(relative_error(t(1.0), t(0.0)), None);
        assert_eq!(relative_error(t(f64::NAN), t(1.0)), None);
        // A time against a memory figure is no error at all.
        assert_eq!(
            relative_error(t(1.0), FigureValue::Bytes(Bytes::new(1.0))),
            None
        );
    }

    #[test]
    fn figure_values_carry_their_unit() {
        let gib = Figure::PeakAllocated.value(Bytes::from_gib(12.4).base());
        assert_eq!(gib, FigureValue::Bytes(Bytes::from_gib(12.4)));
        assert_eq!(gib.to_string(), "12.400 GiB");
        assert_eq!(format!("{gib:.2}"), "12.40 GiB");
        let ms = Figure::Tpot.value(0.0125);
        assert_eq!(ms, FigureValue::Time(Seconds::from_secs(0.0125)));
        assert_eq!(ms.to_string(), "12.500 ms");
        assert_eq!(format!("{ms:.1}"), "12.5 ms");
        assert_eq!(ms.base(), 0.0125);
    }
}
