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
//!
//! - `measurement`: what a run measured, the figures and their errors;
//! - `knobs`: the knobs and applying them to a plan;
//! - `fit`: the fit, its line search and the held-out errors;
//! - `profile`: fitted profiles and the stored ones.

mod fit;
mod knobs;
mod measurement;
mod profile;

pub use fit::{
    fit, fit_plan_rows, summarise, Calibration, CalibrationError, CalibrationInput, CalibrationRow,
    ErrorSummary, FitOptions,
};
use knobs::Scale;
pub use knobs::{Knob, Knobs};
pub use measurement::{
    errors, errors_against, plan_row_measurements, relative_error, time_figure, Figure,
    FigureError, FigureValue, Measured, Measurement, PlanRow,
};
pub use profile::{calibration, CalibrationEntry, CalibrationProfile, ProfileSource, CALIBRATIONS};
