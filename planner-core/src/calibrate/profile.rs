//! Fitted profiles: a [`CalibrationProfile`] (knob values for one GPU kind
//! and where they came from) and the stored ones, [`CALIBRATIONS`], fitted
//! to measured runs by the GPU harness (`tests/harness`, [`super::fit`]).
//!
//! A profile can only come from fixtures recorded on a real GPU
//! (`tests/gpu/fixtures/`): record them with `cargo run -p memwall-harness
//! -- measure`, fit them with `memwall calibrate REPORT.json`, and add an
//! entry that names the fixture files it was fitted on. The harness test
//! `stored_profiles_are_the_fit_of_their_fixtures` refits every entry from
//! its fixtures and fails when the stored knobs drift from the fit (after
//! a model change: refit, never edit by hand).

use super::{Knob, Knobs};
use crate::catalog::{self, GpuId, Provenance};
use crate::plan::Plan;
use serde::{Deserialize, Serialize};

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
/// a stored entry gives ([`CalibrationEntry::profile`]) and a plan can apply.
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

/// A stored profile: fitted knobs of one catalog GPU and where they come
/// from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CalibrationEntry {
    /// The GPU it was measured on.
    pub gpu: GpuId,
    /// The fitted knob values (and the starting values of the rest).
    pub knobs: Knobs,
    /// The knobs the fit moved.
    pub fitted: &'static [Knob],
    /// Measurements the fit used.
    pub measurements: usize,
    /// Fixture files under `tests/gpu/fixtures/` it was fitted on.
    pub fixtures: &'static [&'static str],
    /// When they were measured.
    pub measured_on: &'static str,
    /// Driver, CUDA and PyTorch versions they were measured with.
    pub software: &'static str,
    /// How it was obtained (`Computed`: fitted to our own measurements).
    pub provenance: Provenance,
}

/// Every stored profile.
///
/// - **H200 SXM**, eager PyTorch (nanoGPT-style modules, the harness's
///   workload): the time knobs fitted on the three run sets of 2026-12-04
///   without the configurations the model does not describe (the SDPA
///   math kernel's FP32 upcast, the INT8 weight kernel), 64 measurements,
///   every 4th held out: held-out step-time median error 5.4 % → 3.6 %,
///   TTFT 2.7 % → 5.9 % and TPOT 11.9 % → 15.5 % (3 each; refitted on
///   2026-12-07 when the loss was charged kernel by kernel, which moved
///   the fitted HBM fraction from 0.672 to 0.784). Command:
///   `memwall-harness compare --report r.json`, the math and INT8 rows
///   removed, `memwall calibrate r.json --knobs
///   gemm,hbm,layer_overhead,host_op` (docs/validation.md, "H200
///   calibration"). It describes small eager models on that host; the
///   stack defaults describe the published large runs better.
pub static CALIBRATIONS: &[CalibrationEntry] = &[CalibrationEntry {
    gpu: GpuId::H200Sxm,
    knobs: Knobs {
        cuda_context: crate::units::Bytes::new(806_354_944.0),
        fragmentation: 0.0,
        gemm: 0.799_350_835_383_383_1,
        hbm: 0.783_789_217_662_936_5,
        attention: 0.8,
        layer_overhead: crate::units::Seconds::from_secs(0.000_110_344_692_455_176_4),
        host_op: crate::units::Seconds::from_secs(1.135_248_461_660_963_4e-5),
    },
    fitted: &[Knob::Gemm, Knob::Hbm, Knob::LayerOverhead, Knob::HostOp],
    measurements: 48,
    fixtures: &[
        "nvidia-h200-20261204t120359-quick.json",
        "nvidia-h200-20261204t121122-full.json",
        "nvidia-h200-20261204t121257-full.json",
    ],
    measured_on: "2026-12-04T12:03:59+00:00, 2026-12-04T12:11:22+00:00, 2026-12-04T12:12:57+00:00",
    software: "driver 580.159.04, CUDA 13.0, PyTorch 2.11.0+cu130",
    provenance: Provenance::Computed,
}];

/// The stored profile of a GPU, if there is one.
pub fn calibration(id: GpuId) -> Option<&'static CalibrationEntry> {
    CALIBRATIONS.iter().find(|e| e.gpu == id)
}

impl CalibrationEntry {
    /// The entry as a profile a plan can apply.
    pub fn profile(&self) -> CalibrationProfile {
        CalibrationProfile {
            gpu: catalog::gpu(self.gpu).name.to_string(),
            gpu_id: Some(self.gpu),
            knobs: self.knobs,
            fitted: self.fitted.to_vec(),
            measurements: self.measurements,
            source: ProfileSource {
                fixtures: self.fixtures.iter().map(|f| f.to_string()).collect(),
                measured_on: self.measured_on.to_string(),
                software: self.software.to_string(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_names_its_fixtures_and_stays_in_range() {
        for e in CALIBRATIONS {
            assert!(!e.fixtures.is_empty(), "{:?} names no fixture", e.gpu);
            assert!(!e.measured_on.is_empty() && !e.software.is_empty());
            assert!(e.measurements > 0);
            let k = &e.knobs;
            for f in [k.fragmentation, k.gemm, k.hbm, k.attention] {
                assert!((0.0..=1.0).contains(&f), "{:?}", e.gpu);
            }
            assert!(k.cuda_context.base() >= 0.0 && k.layer_overhead.base() >= 0.0);
            let n = CALIBRATIONS.iter().filter(|o| o.gpu == e.gpu).count();
            assert_eq!(n, 1, "{:?} has {n} profiles", e.gpu);
        }
    }
}
