//! The knobs a fit may move ([`Knob`]), their values ([`Knobs`]), and
//! reading them from and writing them into a plan.

use super::Figure;
use crate::plan::Plan;
use crate::units::{Bytes, Seconds};
use serde::{Deserialize, Serialize};

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
    /// `efficiency.host_op` (seconds per eager operator the host issues;
    /// moves the host-bound passes of eager stacks).
    HostOp,
}

/// How a knob's range is searched.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Scale {
    /// Searched evenly between the bounds.
    Linear,
    /// Searched in log space (fixed costs spanning orders of magnitude).
    Log,
}

impl Knob {
    /// Every knob.
    pub const ALL: [Knob; 7] = [
        Knob::CudaContext,
        Knob::Fragmentation,
        Knob::Gemm,
        Knob::Hbm,
        Knob::Attention,
        Knob::LayerOverhead,
        Knob::HostOp,
    ];

    /// The knobs [`FitOptions::default`] fits. The attention efficiency is
    /// left out: on one GPU kind it trades off against the GEMM efficiency
    /// unless the measurements vary the attention share widely.
    pub const DEFAULT: [Knob; 6] = [
        Knob::CudaContext,
        Knob::Fragmentation,
        Knob::Gemm,
        Knob::Hbm,
        Knob::LayerOverhead,
        Knob::HostOp,
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
            Knob::HostOp => "efficiency.host_op",
        }
    }

    /// The figures the knob moves.
    pub fn figures(self) -> &'static [Figure] {
        match self {
            Knob::CudaContext => &[Figure::DeviceUsed],
            Knob::Fragmentation => &[Figure::PeakReserved, Figure::DeviceUsed],
            Knob::Gemm | Knob::Hbm | Knob::Attention | Knob::LayerOverhead | Knob::HostOp => {
                &[Figure::StepTime, Figure::Ttft, Figure::Tpot]
            }
        }
    }

    /// The search range in base units (bytes, fraction or seconds): wide
    /// enough to hold every published value the defaults were chosen from
    /// (`Overheads` and `Efficiency` docs) with room on both sides.
    pub(super) fn bounds(self) -> (f64, f64, Scale) {
        match self {
            Knob::CudaContext => (0.0, Bytes::from_gib(4.0).base(), Scale::Linear),
            Knob::Fragmentation => (0.0, 1.0, Scale::Linear),
            Knob::Gemm | Knob::Hbm | Knob::Attention => (0.05, 1.0, Scale::Linear),
            Knob::LayerOverhead => (
                Seconds::from_micros(0.5).base(),
                Seconds::from_millis(2.0).base(),
                Scale::Log,
            ),
            // A bare ATen call is ~2 µs from C++ (pytorch/pytorch#41383);
            // a slow host's Python module call, tens of µs.
            Knob::HostOp => (
                Seconds::from_micros(1.0).base(),
                Seconds::from_micros(100.0).base(),
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
    /// `overheads.fragmentation`, 0..=1 (0: the allocator model).
    pub fragmentation: f64,
    /// `efficiency.gemm`, 0..=1.
    pub gemm: f64,
    /// `efficiency.hbm`, 0..=1.
    pub hbm: f64,
    /// `efficiency.attention`, 0..=1.
    pub attention: f64,
    /// `efficiency.layer_overhead`.
    pub layer_overhead: Seconds,
    /// `efficiency.host_op` (profiles fitted before it existed take the
    /// default).
    #[serde(default = "default_host_op")]
    pub host_op: Seconds,
}

fn default_host_op() -> Seconds {
    crate::efficiency::Efficiency::default().host_op
}

impl Knobs {
    /// The knobs as a plan sets them.
    pub fn of(plan: &Plan) -> Self {
        let e = plan.efficiency_in_force();
        Self {
            cuda_context: plan.overheads.context(),
            // No flat fraction: the allocator model is in force (0 here).
            fragmentation: plan.overheads.fragmentation.unwrap_or(0.0),
            gemm: e.gemm,
            hbm: e.hbm,
            attention: e.attention,
            layer_overhead: e.layer_overhead,
            host_op: e.host_op,
        }
    }

    /// Writes the knobs into a plan (every other field is left alone).
    pub fn apply(&self, plan: &mut Plan) {
        plan.overheads.cuda_context = Some(self.cuda_context);
        // A fitted flat fraction replaces the allocator model; a zero one
        // leaves a plan on the model if it was there.
        if self.fragmentation > 0.0 || plan.overheads.fragmentation.is_some() {
            plan.overheads.fragmentation = Some(self.fragmentation);
        }
        plan.efficiency.gemm = Some(self.gemm);
        plan.efficiency.hbm = Some(self.hbm);
        plan.efficiency.attention = Some(self.attention);
        plan.efficiency.layer_overhead = Some(self.layer_overhead);
        plan.efficiency.host_op = Some(self.host_op);
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
            Knob::HostOp => self.host_op.base(),
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
            Knob::HostOp => self.host_op = Seconds::from_base(v),
        }
    }

    /// One knob's value as text with its unit.
    pub fn show(&self, k: Knob) -> String {
        match k {
            Knob::CudaContext => format!("{:.0} MiB", self.cuda_context.as_mib()),
            Knob::LayerOverhead => format!("{:.1} µs", self.layer_overhead.base() * 1e6),
            Knob::HostOp => format!("{:.2} µs", self.host_op.base() * 1e6),
            _ => format!("{:.3}", self.get(k)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
