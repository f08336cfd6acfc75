//! An independent physics floor: the least time any implementation of a
//! plan could take on its hardware, and the highest MFU it could report.
//!
//! This module does not call the memory or time model (nor `resolve`): it
//! reads the plan, the model's shape and the datasheet, so that a bug or an
//! optimistic efficiency in the model cannot move the floor with it. Tests
//! hold every predicted time at or above [`floor`]'s and every MFU at or
//! below its ceiling, over sampled plans and over everything `search`
//! returns (`tests/physics.rs`, `tests/properties.rs`).
//!
//! Each bound is work divided by the fastest the hardware can do it:
//! - **compute:** GEMM FLOPs (6 per parameter per token to train, 4 when the
//!   weights are frozen as in LoRA, 2 to serve; Kaplan et al. 2020 §2.1;
//!   Narayanan et al. 2021 §5.1), plus causal attention, over every GPU at
//!   the part's dense peak for the compute format times its measured
//!   best matmul fraction or the best published attention-kernel fraction,
//!   whichever is higher;
//! - **HBM:** a decode step reads every active weight once (Pope et al.
//!   2022, "Efficiently Scaling Transformer Inference", §2), spread at best
//!   over the GPUs of one pipeline stage, at peak HBM bandwidth;
//! - **links:** offloaded weights cross the GPU's host link on every
//!   serving pass, at its peak per-direction rate; offloaded routed
//!   experts at least the k experts a token picks in each MoE layer.
//!
//! Speculative decoding verifies k draft tokens in one pass of the target
//! model, so one pass (one read of the weights, one crossing of the link)
//! emits at most k + 1 tokens per sequence, every draft accepted plus the
//! verifier's own (Leviathan et al. 2023, "Fast Inference from
//! Transformers via Speculative Decoding", §3); the read and link bounds
//! per output token are divided by that, whatever the acceptance rate.
//! Each output token still costs at least its own forward FLOPs.
//!
//! Plans the floor cannot bound without the model's own arithmetic — a
//! pruned or distilled model, whose shape `resolve` rewrites — get `None`.

use crate::catalog;
use crate::hardware::GpuSpec;
use crate::model::{ModelSpec, ParamCounts};
use crate::plan::{Plan, Pruning, TrainingKind, Workload};
use crate::precision::Precision;
use crate::units::Seconds;

/// The floor of one plan.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Floor {
    /// Least step time (training) or time per output token (serving).
    pub time: Seconds,
    /// Least time to first token (serving; zero for training).
    pub ttft: Seconds,
    /// Highest MFU a training step can report under Megatron-LM's
    /// convention (non-causal attention counted in full); 0 for serving.
    pub mfu_ceiling: f64,
}

/// The floor of a plan, or `None` where it cannot be bounded independently.
pub fn floor(plan: &Plan) -> Option<Floor> {
    if plan.distillation.is_some() || plan.levers.pruning != Pruning::None {
        return None;
    }
    let spec = plan.model.spec();
    let gpu = plan.hardware.gpu.spec();
    let gpus = f64::from(plan.hardware.gpus.max(1));
    let compute = plan.levers.precision.compute;
    // A power limit lowers the clock of every compute-bound kernel.
    let rate = fastest_rate(&gpu, compute)
        * best_fraction(&gpu, compute)
        * plan.hardware.clock_fraction(gpu.tdp);
    if rate <= 0.0 || !rate.is_finite() {
        return None;
    }
    let params = spec.params();
    let gemm = gemm_params(&spec, &params);
    match &plan.workload {
        Workload::Training(t) => {
            let tokens = f64::from(t.global_batch) * f64::from(t.seq_len);
            let per_param = match t.kind {
                TrainingKind::Lora(_) | TrainingKind::Qlora(_) => 4.0,
                _ => 6.0,
            };
            let seq = f64::from(t.seq_len);
            let executed =
                per_param * gemm * tokens + 3.0 * attention_flops(&spec, seq, true) * tokens;
            let convention =
                6.0 * gemm * tokens + 3.0 * attention_flops(&spec, seq, false) * tokens;
            let time = executed / (rate * gpus);
            let peak = fastest_rate(&gpu, compute) * gpus;
            let mfu_ceiling = if time > 0.0 {
                convention / (time * peak)
            } else {
                0.0
            };
            Some(Floor {
                time: Seconds::from_secs(time),
                ttft: Seconds::ZERO,
                mfu_ceiling,
            })
        }
        Workload::Inference(i) => {
            let pp = f64::from(plan.levers.parallel.pp.max(1));
            let stage_gpus = (gpus / pp).max(1.0);
            // The routed experts a token passes through are read in their
            // own format when the plan gives them one.
            let prec = &plan.levers.precision;
            let routed = params.active_routed(&spec).min(gemm);
            let bytes = (gemm - routed) * prec.weights.bytes_per_element()
                + routed * prec.expert_weights().bytes_per_element();
            let hbm = gpu.memory_bandwidth.base();
            let read = if hbm > 0.0 {
                bytes / (stage_gpus * hbm)
            } else {
                0.0
            };
            let offloaded = plan
                .levers
                .offload
                .parameters
                .filter(|o| o.tier != crate::plan::Tier::Hbm)
                .map_or(0.0, |o| o.fraction.clamp(0.0, 1.0));
            // Offloaded routed experts: at least the k experts each token
            // picks cross the link in every MoE layer.
            let experts = plan
                .levers
                .offload
                .experts
                .filter(|o| o.tier != crate::plan::Tier::Hbm)
                .map_or(0.0, |o| {
                    o.fraction.clamp(0.0, 1.0)
                        * params.active_routed(&spec)
                        * prec.expert_weights().bytes_per_element()
                });
            let link = catalog::link(gpu.host_link).per_direction.base();
            let stream = if link > 0.0 {
                (offloaded * bytes + experts) / stage_gpus / link
            } else {
                0.0
            };
            let per_pass = 1.0
                + plan.levers.speculative.map_or(0.0, |s| {
                    f64::from(s.tokens.min(crate::engine::MAX_SPECULATIVE_TOKENS))
                });
            let batch = f64::from(i.batch.max(1));
            let decode_flops = 2.0 * gemm * batch / (rate * gpus);
            let prompt = f64::from(i.prompt_tokens);
            let prefill_flops =
                (2.0 * gemm + attention_flops(&spec, prompt, true)) * prompt * batch
                    / (rate * gpus);
            Some(Floor {
                time: Seconds::from_secs((read.max(stream) / per_pass).max(decode_flops)),
                ttft: Seconds::from_secs(prefill_flops.max(stream)),
                mfu_ceiling: 0.0,
            })
        }
    }
}

/// Parameters a token's GEMMs touch: the active layers' matrices (MoE:
/// the routed `top_k` experts) and the output layer, without norms and
/// biases, which are not matrix multiplications.
fn gemm_params(spec: &ModelSpec, p: &ParamCounts) -> f64 {
    let small = p.dense_layer.small * f64::from(p.dense_layers)
        + p.moe_layer.small * f64::from(p.moe_layers);
    (p.active_non_embedding(spec) - small).max(0.0)
}

/// Forward attention-core FLOPs per token over all layers: QKᵀ and AV,
/// 2 FLOPs per multiply-add, against the average keys a query sees —
/// `s/2` executed causally (`ModelSpec::causal_keys` within a window), `s` in the non-causal
/// convention MFU is quoted in (Narayanan et al. 2021, eq. 3).
fn attention_flops(spec: &ModelSpec, seq: f64, causal: bool) -> f64 {
    let keys = if causal {
        spec.causal_keys(seq)
    } else {
        spec.keys_within(seq)
    };
    let a = spec.attention_shape();
    2.0 * keys * (a.q_width + a.v_width) * f64::from(spec.layers)
}

/// The fastest dense tensor rate usable for a compute format: nothing in
/// the step runs faster than the narrowest format the plan computes in.
fn fastest_rate(gpu: &GpuSpec, compute: Precision) -> f64 {
    let b16 = gpu.bf16.base().max(gpu.fp16.base());
    let fp8 = gpu.fp8.map_or(0.0, |r| r.base());
    let fp4 = gpu.fp4.map_or(0.0, |r| r.base());
    match compute {
        Precision::Fp8 | Precision::Int8 => b16.max(fp8),
        Precision::Mxfp4 | Precision::Nvfp4 | Precision::Nf4 { .. } | Precision::Int4 { .. } => {
            b16.max(fp8).max(fp4)
        }
        _ => b16,
    }
}

/// The best fraction of the peak any kernel of the step has been measured
/// to reach: the part's maximum achievable matmul fraction
/// (`catalog::matmul_ceiling`, Bekman's MAMF table) or the best published
/// fused-attention fraction (FlashAttention-2: 73 % on A100, Dao 2023
/// §4.1; FlashAttention-3: 75 % on H100, Shah et al. 2024), whichever is
/// higher (`catalog::attention_ceiling`, the table the time model uses
/// too: published data, not the model's arithmetic); never below the
/// catalog's default for unmeasured parts.
fn best_fraction(gpu: &GpuSpec, compute: Precision) -> f64 {
    let c = gpu.matmul_ceiling;
    let bf16 = c.map_or(catalog::DEFAULT_CEILING, |c| c.bf16);
    let fp8 = c.and_then(|c| c.fp8).unwrap_or(bf16).max(bf16);
    let matmul = match compute {
        Precision::Fp8 => fp8,
        Precision::Mxfp4 | Precision::Nvfp4 => c.and_then(|c| c.fp4).unwrap_or(fp8).max(bf16),
        _ => bf16,
    };
    matmul
        .max(catalog::attention_ceiling(gpu.arch))
        .clamp(catalog::DEFAULT_CEILING, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Drafter, Speculation};
    use crate::examples::example_serving_plan;

    /// One verifying pass emits at most k + 1 tokens a sequence: the
    /// weight-read bound per token falls by that factor, never below the
    /// compute bound, and the acceptance rate does not move it.
    #[test]
    fn speculation_divides_the_read_bound_by_the_tokens_a_pass_can_emit() {
        let mut plan = example_serving_plan();
        if let Workload::Inference(i) = &mut plan.workload {
            i.batch = 1;
        }
        let plain = floor(&plan).map(|f| f.time.as_secs()).unwrap_or(0.0);
        let spec = |acceptance| Speculation {
            drafter: Drafter::Heads { layers: 1 },
            tokens: 4,
            acceptance,
        };
        plan.levers.speculative = Some(spec(0.7));
        let drafted = floor(&plan).map(|f| f.time.as_secs()).unwrap_or(0.0);
        assert!(plain > 0.0);
        assert!(
            (drafted - plain / 5.0).abs() < 1e-12 * plain,
            "{drafted} vs {plain}"
        );
        plan.levers.speculative = Some(spec(0.1));
        assert_eq!(floor(&plan).map(|f| f.time.as_secs()), Some(drafted));
    }
}
