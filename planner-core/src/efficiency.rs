//! How close to the datasheet the software gets: the calibration knobs of the
//! time model.
//!
//! Datasheets give peaks; kernels and collectives reach a fraction of them
//! that depends on the size of the operation. The defaults here are the
//! Megatron-Core set; each training stack starts from its own set
//! (`stack::TrainingStack::profile`), and a plan's [`EfficiencyOverrides`]
//! replace single knobs. The validation suite checks every set against
//! published runs of its stack with no per-case tuning; the GPU harness
//! can fit them to a machine.
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
#[serde(deny_unknown_fields)]
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
    /// hides (launch gaps and the ramp of small kernels); decode steps
    /// feel it most. It is the cost of the reference dense layer's six
    /// small kernels (about 5 µs each, near the 4.5 µs launch floor of an
    /// H100 in TaxBreak, arXiv 2603.12465); an MLA or routed-expert layer,
    /// which issues more, pays it in proportion to its count
    /// (`time::work::small_kernels`).
    #[serde(default = "d_layer_overhead")]
    pub layer_overhead: Seconds,
    /// Host time per expert a device holds, for one MoE layer's forward
    /// pass, that the GPU waits for. Megatron-Core's grouped linears
    /// (Transformer Engine `GroupedLinear`) split, quantize and launch one
    /// cuBLAS GEMM per local expert (`multi_stream_cublas_gemm` loops over
    /// the experts on 4 streams), and the dropless all-to-all dispatcher
    /// synchronises the host with the device every MoE layer (the token
    /// counts it needs for the all-to-all's splits, `cuda_sync_point`), so
    /// the host cannot run ahead and those launches add to the layer's
    /// time. It grows with the experts per rank, not the tokens. Backward
    /// issues twice the forward's launches; a recomputed layer repeats its
    /// forward. Fitted, the one MoE calibration of the Megatron-Core stack
    /// (`MOE_EXPERT_HOST_US`).
    #[serde(default = "d_moe_expert_host")]
    pub moe_expert_host: Seconds,
    /// Host time to issue one operator from eager PyTorch (Python, the
    /// dispatcher, the launch): with the operator counts of the stack's
    /// layer code (`time::host`) it is the floor under a pass, which is
    /// never shorter than the host's time to issue it. A property of the
    /// CPU, the Python and the PyTorch release.
    #[serde(default = "d_host_op")]
    pub host_op: Seconds,
    /// Fraction of the tensor-parallel collectives and offload copies an
    /// overlapping framework actually hides behind compute when the window
    /// is long enough. (Data-parallel reductions and parameter gathers hide
    /// by their buckets instead: `time::training::pipelined`.)
    #[serde(default = "d_overlap")]
    pub overlap: f64,
}

/// Megatron-Core's MoE host time per local expert and MoE layer forward,
/// in µs: fitted by least squares of the log step-time ratio over ten NeMo
/// 25.11 MoE pre-training runs (DeepSeek-V3 and Qwen3-MoE on GB300, GB200,
/// B200 and H100; NVIDIA-NeMo/Megatron-Bridge
/// `docs/performance-summary-archive.md`), every other cost of the time
/// model in place (`tests/stack_validation.rs` `moe_expert_host_is_the_fit_over_the_nemo_rows`; a fixed
/// part per layer fitted to zero and was dropped). Per local expert,
/// forward and backward, it is about 12 launches (two GEMMs forward and
/// four backward, each with its quantization) at ~36 µs each: the 4.5 µs
/// launch floor of an H100 (TaxBreak, arXiv 2603.12465) plus Transformer
/// Engine's per-expert Python and cuBLASLt set-up. Checked on runs outside
/// the fit: the 26.02 container's DeepSeek-V3 on 256 B200 and DeepSeek's
/// own run (docs/validation.md, "MoE training").
const MOE_EXPERT_HOST_US: f64 = 143.0;

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
fn d_moe_expert_host() -> Seconds {
    Seconds::from_micros(MOE_EXPERT_HOST_US)
}
/// Host time per eager operator, µs. Fitted on the GPU harness's eager
/// decode runs (tests/gpu/fixtures, one H200 in a virtual machine with
/// PyTorch 2.11, 2026-12-04; `tests/harness/tests/fixtures.rs`
/// `eager_host_constants_are_the_fit_over_the_h200_fixtures`), where a decode
/// step of a 125 M or 1.1 B model is all host. For scale: a bare PyTorch
/// operator costs about 3.6 µs of Python and dispatch (Horace He, "Making
/// Deep Learning Go Brrrr From First Principles", 2022: 280 thousand
/// operations a second); module calls, autograd and autocast add to it.
/// Held out: transformers' eager `generate` of Llama 2 7B on an A100 PCIe
/// (transformers#29651: 33.4 ms a token at batch 1, 34.4 ms at batch 32;
/// predicted 26.4 ms at both, `tests/serve_validation.rs`
/// `transformers_generate_is_host_bound`).
const HOST_OP_US: f64 = 11.0;

fn d_host_op() -> Seconds {
    Seconds::from_micros(HOST_OP_US)
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
            moe_expert_host: d_moe_expert_host(),
            host_op: d_host_op(),
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

/// The range of [`Efficiency::host_op`] as factors of the value: the
/// H200 fixtures' decode steps scatter from 0.80 to 1.30 of the fitted
/// host time, and other hosts differ again (transformers#29651's A100
/// PCIe host decodes Llama 2 7B in 33.4 ms a token where the fit predicts
/// 26.4 ms, `tests/serve_validation.rs`).
const HOST_SPREAD: (f64, f64) = (0.75, 1.5);

impl Efficiency {
    /// Every knob at the favourable end of its range.
    pub fn optimistic(&self) -> Self {
        self.shifted(1.0 + SPREAD, 0.5, HOST_SPREAD.0)
    }

    /// Every knob at the unfavourable end of its range.
    pub fn pessimistic(&self) -> Self {
        self.shifted(1.0 - SPREAD, 2.0, HOST_SPREAD.1)
    }

    fn shifted(&self, k: f64, fixed: f64, host: f64) -> Self {
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
            moe_expert_host: self.moe_expert_host * fixed,
            host_op: self.host_op * host,
            overlap: f(self.overlap),
        }
    }
}

/// The efficiency knobs a plan sets explicitly. Each one left out takes the
/// value of the plan's software stack (`stack::TrainingStack::profile`) or,
/// for serving, [`Efficiency::default`]; each one given wins over both.
/// A plan written before stacks existed states every knob and so keeps
/// the numbers it was made with.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct EfficiencyOverrides {
    /// [`Efficiency::gemm`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gemm: Option<f64>,
    /// [`Efficiency::gemm_half_time`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gemm_half_time: Option<Seconds>,
    /// [`Efficiency::attention`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attention: Option<f64>,
    /// [`Efficiency::hbm`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hbm: Option<f64>,
    /// [`Efficiency::scale_up`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_up: Option<f64>,
    /// [`Efficiency::scale_out`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_out: Option<f64>,
    /// [`Efficiency::host_link`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_link: Option<f64>,
    /// [`Efficiency::scale_up_latency`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_up_latency: Option<Seconds>,
    /// [`Efficiency::scale_out_latency`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_out_latency: Option<Seconds>,
    /// [`Efficiency::layer_overhead`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layer_overhead: Option<Seconds>,
    /// [`Efficiency::moe_expert_host`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moe_expert_host: Option<Seconds>,
    /// [`Efficiency::host_op`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_op: Option<Seconds>,
    /// [`Efficiency::overlap`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overlap: Option<f64>,
}

impl EfficiencyOverrides {
    /// Every knob of `e`, stated explicitly.
    pub fn all(e: Efficiency) -> Self {
        Self {
            gemm: Some(e.gemm),
            gemm_half_time: Some(e.gemm_half_time),
            attention: Some(e.attention),
            hbm: Some(e.hbm),
            scale_up: Some(e.scale_up),
            scale_out: Some(e.scale_out),
            host_link: Some(e.host_link),
            scale_up_latency: Some(e.scale_up_latency),
            scale_out_latency: Some(e.scale_out_latency),
            layer_overhead: Some(e.layer_overhead),
            moe_expert_host: Some(e.moe_expert_host),
            host_op: Some(e.host_op),
            overlap: Some(e.overlap),
        }
    }

    /// `base` with every knob this plan states replaced.
    pub fn over(&self, base: Efficiency) -> Efficiency {
        Efficiency {
            gemm: self.gemm.unwrap_or(base.gemm),
            gemm_half_time: self.gemm_half_time.unwrap_or(base.gemm_half_time),
            attention: self.attention.unwrap_or(base.attention),
            hbm: self.hbm.unwrap_or(base.hbm),
            scale_up: self.scale_up.unwrap_or(base.scale_up),
            scale_out: self.scale_out.unwrap_or(base.scale_out),
            host_link: self.host_link.unwrap_or(base.host_link),
            scale_up_latency: self.scale_up_latency.unwrap_or(base.scale_up_latency),
            scale_out_latency: self.scale_out_latency.unwrap_or(base.scale_out_latency),
            layer_overhead: self.layer_overhead.unwrap_or(base.layer_overhead),
            moe_expert_host: self.moe_expert_host.unwrap_or(base.moe_expert_host),
            host_op: self.host_op.unwrap_or(base.host_op),
            overlap: self.overlap.unwrap_or(base.overlap),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stated_knobs_win_and_the_rest_follow_the_base() {
        let base = Efficiency {
            gemm: 0.5,
            ..Efficiency::default()
        };
        let none = EfficiencyOverrides::default();
        assert_eq!(none.over(base), base);
        let some = EfficiencyOverrides {
            gemm: Some(0.7),
            ..EfficiencyOverrides::default()
        };
        assert_eq!(some.over(base).gemm, 0.7);
        assert_eq!(some.over(base).hbm, base.hbm);
        let all = EfficiencyOverrides::all(Efficiency::default());
        assert_eq!(all.over(base), Efficiency::default());
    }

    #[test]
    fn an_old_plan_states_every_knob_and_a_new_one_none() {
        let old = serde_json::to_string(&Efficiency::default()).unwrap_or_default();
        let o: Option<EfficiencyOverrides> = serde_json::from_str(&old).ok();
        assert_eq!(o, Some(EfficiencyOverrides::all(Efficiency::default())));
        assert_eq!(
            serde_json::to_string(&EfficiencyOverrides::default()).ok(),
            Some("{}".to_string())
        );
    }
}
