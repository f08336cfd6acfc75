//! How close to the datasheet the software gets: the calibration knobs of the
//! time model.
//!
//! Datasheets give peaks; kernels and collectives reach a fraction of them
//! that depends on the size of the operation. One set of defaults serves
//! every plan (the validation suite checks them against published runs with
//! no per-case tuning); the GPU harness can fit them to a machine.
//!
//! Sources for the ranges the defaults sit in:
//! - dense BF16 GEMMs on large shapes reach ~70–85 % of peak, streaming
//!   kernels ~80–92 % of peak HBM bandwidth (vendor microbenchmarks as
//!   summarised in our hardware notes; docs/sources.md);
//! - calculon's A100/H100 system files (calculon-ai/calculon, `systems/`)
//!   use size-dependent matrix efficiency (60 % at ≥ 1 GFLOP up to 95 % at
//!   ≥ 128 GFLOP), 65 % of NVLink and 90 % of InfiniBand per-direction
//!   bandwidth;
//! - FlashAttention-2 (Dao 2023, §4) reaches 50–73 % of A100 peak in the
//!   forward pass and less in the backward.

use crate::units::Seconds;
use serde::{Deserialize, Serialize};

/// Efficiency knobs, each a fraction of a datasheet peak in `0..=1` unless
/// it is a size or a time.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Efficiency {
    /// Fraction of the part's measured best matmul rate (its "maximum
    /// achievable matmul FLOPS", `GpuSpec::matmul_ceiling`) that the GEMMs
    /// of a training or serving step sustain at large sizes.
    #[serde(default = "d_gemm")]
    pub gemm: f64,
    /// Run time at which a GEMM reaches half of `gemm`: launch, tail and
    /// wave-quantisation costs are roughly fixed in time, so a GEMM that
    /// would take `x` seconds at full speed runs at
    /// `gemm · x / (x + gemm_half_time)`. Expressed in time, the same
    /// default fits a V100 and a B200.
    #[serde(default = "d_gemm_half")]
    pub gemm_half_time: Seconds,
    /// Fraction of the best published rate of a fused (Flash) attention
    /// kernel on the architecture that a step reaches, forward and
    /// backward averaged (backward runs slower than the best forward).
    #[serde(default = "d_attention")]
    pub attention: f64,
    /// Fraction of peak HBM bandwidth a streaming kernel reaches.
    #[serde(default = "d_hbm")]
    pub hbm: f64,
    /// Bus bandwidth of collectives inside the scale-up domain as a
    /// fraction of the link's per-direction peak (0.78: published
    /// NCCL-tests all-reduce bus bandwidths at large messages, the
    /// per-step latency charged apart; `catalog::NCCL_TESTS`).
    #[serde(default = "d_scale_up")]
    pub scale_up: f64,
    /// Bus bandwidth of collectives across nodes as a fraction of the NIC
    /// rate (0.93: NCCL's maintainers quote 46–48 GB/s per 400 Gb/s NIC;
    /// `catalog::NCCL_TESTS`).
    #[serde(default = "d_scale_out")]
    pub scale_out: f64,
    /// Fraction of the host link (PCIe, NVLink-C2C) a bulk copy reaches.
    #[serde(default = "d_host_link")]
    pub host_link: f64,
    /// Fixed cost of one collective inside the scale-up domain (launch and
    /// synchronisation).
    #[serde(default = "d_lat_up")]
    pub scale_up_latency: Seconds,
    /// Fixed cost of one collective across nodes.
    #[serde(default = "d_lat_out")]
    pub scale_out_latency: Seconds,
    /// Fixed cost per transformer layer and pass that no kernel's size
    /// hides (launches, small kernels, Python); decode steps feel it most.
    #[serde(default = "d_layer_overhead")]
    pub layer_overhead: Seconds,
    /// Fraction of the tensor-parallel collectives and offload copies an
    /// overlapping framework actually hides behind compute when the window
    /// is long enough. (Data-parallel reductions and parameter gathers hide
    /// by their buckets instead: `time::training::pipelined`.)
    #[serde(default = "d_overlap")]
    pub overlap: f64,
}

fn d_gemm() -> f64 {
    0.90
}
fn d_gemm_half() -> Seconds {
    Seconds::from_micros(2.0)
}
fn d_attention() -> f64 {
    0.80
}
fn d_hbm() -> f64 {
    0.80
}
fn d_scale_up() -> f64 {
    0.78
}
fn d_scale_out() -> f64 {
    0.93
}
fn d_host_link() -> f64 {
    0.80
}
fn d_lat_up() -> Seconds {
    Seconds::from_micros(10.0)
}
fn d_lat_out() -> Seconds {
    Seconds::from_micros(25.0)
}
fn d_layer_overhead() -> Seconds {
    Seconds::from_micros(30.0)
}
fn d_overlap() -> f64 {
    0.90
}

impl Default for Efficiency {
    fn default() -> Self {
        Self {
            gemm: d_gemm(),
            gemm_half_time: d_gemm_half(),
            attention: d_attention(),
            hbm: d_hbm(),
            scale_up: d_scale_up(),
            scale_out: d_scale_out(),
            host_link: d_host_link(),
            scale_up_latency: d_lat_up(),
            scale_out_latency: d_lat_out(),
            layer_overhead: d_layer_overhead(),
            overlap: d_overlap(),
        }
    }
}

impl Efficiency {
    /// Fraction of the matmul ceiling reached by a GEMM that would take
    /// `ideal` at full speed.
    pub fn gemm_at(&self, ideal: Seconds) -> f64 {
        let x = ideal.base().max(0.0);
        let h = self.gemm_half_time.base().max(0.0);
        if x + h <= 0.0 {
            return self.gemm;
        }
        self.gemm * x / (x + h)
    }
}

/// Relative spread of each knob: the ranges the defaults were chosen from
/// (GEMM 70–85 % of peak, HBM 80–92 %, collectives and overlap ±10 points,
/// fixed costs within a factor of two).
const SPREAD: f64 = 0.10;

impl Efficiency {
    /// Every knob at the favourable end of its range.
    pub fn optimistic(&self) -> Self {
        self.shifted(1.0 + SPREAD, 0.5)
    }

    /// Every knob at the unfavourable end of its range.
    pub fn pessimistic(&self) -> Self {
        self.shifted(1.0 - SPREAD, 2.0)
    }

    fn shifted(&self, k: f64, fixed: f64) -> Self {
        let f = |x: f64| (x * k).clamp(1e-3, 1.0);
        Self {
            gemm: f(self.gemm),
            gemm_half_time: self.gemm_half_time * fixed,
            attention: f(self.attention),
            hbm: f(self.hbm),
            scale_up: f(self.scale_up),
            scale_out: f(self.scale_out),
            host_link: f(self.host_link),
            scale_up_latency: self.scale_up_latency * fixed,
            scale_out_latency: self.scale_out_latency * fixed,
            layer_overhead: self.layer_overhead * fixed,
            overlap: f(self.overlap),
        }
    }
}
