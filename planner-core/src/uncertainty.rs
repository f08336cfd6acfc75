//! How far a predicted time may be from a measured one, from the
//! validation tables of the runs most like the plan.
//!
//! The report's ranges (`step_range`, `ttft_range`, `tpot_range`) are the
//! spread of the efficiency defaults, widened to what the model missed by
//! on published measurements of the same kind: the 10th and 90th
//! percentiles of (predicted − measured) / measured over that table's
//! rows, so about four measured runs in five of that kind fall inside.
//! Each kind is a [`ValidationBasis`]; its figures are in
//! [`ValidationBasis::band`] with the test that prints the rows, and
//! docs/validation.md holds the tables. A plan that matches no validated
//! kind takes the closest one; the ranges never claim more than the
//! tables show.

use crate::plan::Sharding;
use crate::stack::TrainingStack;
use serde::{Deserialize, Serialize};

/// The measured runs a plan's range is read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ValidationBasis {
    /// Dense training on Megatron-LM, Megatron-Core / NeMo and
    /// Megatron-DeepSpeed's 3D parallelism (`tests/time_validation.rs`,
    /// 29 runs; `tests/stack_validation.rs` `deepspeed_table`, its ZeRO-1
    /// rows).
    #[default]
    MegatronTraining,
    /// Dense training on PyTorch-native stacks: torchtitan (eager and
    /// compiled) and HF Trainer / Accelerate (`tests/stack_validation.rs`:
    /// 26 torchtitan rows and 129 held-out llm-foundry rows). DeepSpeed
    /// over Hugging Face models has no rows of its own and is taken to
    /// miss as these do.
    PytorchTraining,
    /// DeepSpeed ZeRO-3 (under DeepSpeed, Megatron-DeepSpeed or the HF
    /// Trainer's DeepSpeed integration) without offload at a
    /// data-parallel degree of 384 or more (`deepspeed_table`, Narayanan
    /// et al. 2021's baseline, six runs): every row fast, more so with more
    /// GPUs.
    Zero3AtScale,
    /// Mixture-of-experts training (`tests/stack_validation.rs`
    /// `moe_table`, 15 runs).
    MoeTraining,
    /// Dense serving (`tests/serve_validation.rs`: TensorRT-LLM's 60
    /// offline rows).
    DenseServing,
    /// Mixture-of-experts serving with expert parallelism
    /// (`tests/serve_validation.rs` `trt_llm_offline_moe_throughput`,
    /// 17 rows, every one predicted faster than measured).
    MoeServing,
    /// Serving with 4-bit floating-point GEMMs (NVFP4, MXFP4) on Blackwell,
    /// without expert parallelism (`tests/serve_validation.rs`
    /// `trt_llm_offline_one_b200_fp4`, 20 rows of a dense and an MoE model
    /// on one B200; `tests/mlperf.rs`, NVIDIA's four MLPerf FP4 runs):
    /// every row predicted faster than measured.
    Fp4Serving,
    /// Serving on a card the PCIe slot powers (GDDR memory, 75 W or less:
    /// the T4, the L4), static batches and streams alike; measured under
    /// continuous batching (`tests/poisson_t4.rs`, two T4 deployments;
    /// `tests/closed_loop_l4.rs`, one L4; 12 decode-step figures): one
    /// request agrees, but the measured steps grow with the running
    /// sequences several times faster than modelled, every figure
    /// predicted short.
    LowPowerServing,
}

impl ValidationBasis {
    /// Every basis.
    pub const ALL: [ValidationBasis; 8] = [
        ValidationBasis::MegatronTraining,
        ValidationBasis::PytorchTraining,
        ValidationBasis::Zero3AtScale,
        ValidationBasis::MoeTraining,
        ValidationBasis::DenseServing,
        ValidationBasis::MoeServing,
        ValidationBasis::Fp4Serving,
        ValidationBasis::LowPowerServing,
    ];
}

crate::lang::named!(ValidationBasis {
    ValidationBasis::MegatronTraining => "megatron_training", "Megatron dense training runs", "Megatron 稠密模型训练";
    ValidationBasis::PytorchTraining => "pytorch_training", "PyTorch-native dense training runs", "PyTorch 原生框架稠密模型训练";
    ValidationBasis::Zero3AtScale => "zero3_at_scale", "DeepSpeed ZeRO-3 runs at hundreds of GPUs", "数百卡规模的 DeepSpeed ZeRO-3 训练";
    ValidationBasis::MoeTraining => "moe_training", "MoE training runs", "MoE 模型训练";
    ValidationBasis::DenseServing => "dense_serving", "dense serving runs", "稠密模型推理服务";
    ValidationBasis::MoeServing => "moe_serving", "MoE serving runs with expert parallelism", "专家并行的 MoE 推理服务";
    ValidationBasis::Fp4Serving => "fp4_serving", "serving runs with FP4 GEMMs on Blackwell", "Blackwell 上 FP4 矩阵乘的推理服务";
    ValidationBasis::LowPowerServing => "low_power_serving", "serving runs on cards of 75 W or less (T4, L4)", "75 W 及以下小功率卡（T4、L4）上的推理服务";
});

/// How much faster and slower than measured the model ran on a basis's
/// table: a measured time is expected between `predicted / (1 + slow)`
/// and `predicted / (1 − fast)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Band {
    /// The 10th percentile of the errors, as a positive fraction: how
    /// much shorter than measured a prediction may be.
    pub fast: f64,
    /// The 90th percentile, as a positive fraction (0 when the table has
    /// no row predicted slow).
    pub slow: f64,
    /// Rows in the table.
    pub rows: u32,
}

/// The most a PCIe x16 slot delivers to a card without auxiliary power
/// (PCI Express Card Electromechanical Specification: 75 W).
pub const SLOT_POWER_W: f64 = 75.0;

/// The data-parallel degree from which DeepSpeed ZeRO-3's step stops
/// shrinking in the measured runs (Narayanan et al. 2021, Table 2: GPT-3
/// 175B takes 66.7 s a step on 768 and on 1,536 A100s).
const ZERO3_FLAT_FROM: u32 = 768;

impl ValidationBasis {
    /// The basis of a training plan: MoE first, then DeepSpeed ZeRO-3
    /// without offload at scale (`offload`: any state in a slower tier),
    /// then the stack's family. ZeRO-3 runs on DeepSpeed's engine under
    /// each of the three stacks that offer it.
    pub fn training(
        stack: Option<TrainingStack>,
        sharding: Sharding,
        dp: u32,
        moe: bool,
        offload: bool,
    ) -> Self {
        use TrainingStack as S;
        let deepspeed = matches!(
            stack,
            Some(S::DeepSpeed | S::MegatronDeepSpeed | S::HfTrainer)
        );
        if moe {
            ValidationBasis::MoeTraining
        } else if deepspeed && sharding == Sharding::Zero3 && !offload && dp >= 384 {
            ValidationBasis::Zero3AtScale
        } else {
            match stack {
                Some(S::Torchtitan | S::TorchtitanCompiled | S::HfTrainer | S::DeepSpeed) => {
                    ValidationBasis::PytorchTraining
                }
                _ => ValidationBasis::MegatronTraining,
            }
        }
    }

    /// The basis of a serving plan: MoE with expert parallelism first,
    /// then 4-bit floating-point GEMMs on FP4 units, then a card the PCIe
    /// slot powers (`low_power`: GDDR memory at 75 W or less), then dense
    /// serving. Static batches and streams alike.
    pub fn serving(moe_with_ep: bool, fp4: bool, low_power: bool) -> Self {
        if moe_with_ep {
            ValidationBasis::MoeServing
        } else if fp4 {
            ValidationBasis::Fp4Serving
        } else if low_power {
            ValidationBasis::LowPowerServing
        } else {
            ValidationBasis::DenseServing
        }
    }

    /// The band of this basis (for [`ValidationBasis::Zero3AtScale`], at
    /// data-parallel degree `dp`). Figures as the validation tests print
    /// them on 2026-12-04 to 2026-12-07:
    /// - Megatron training: 10th/90th percentiles −12.6 % / +4.3 % over
    ///   29 runs (2026-12-07, a fully recomputed forward's TP collectives
    ///   charged once, not twice; −11.3 % / +9.6 % on 2026-12-06, its FP8
    ///   regathers priced as FP8 gathers;
    ///   −11.1 % with Transformer Engine's FP8 sequence-parallel
    ///   all-gathers in FP8; −10.0 % / +9.6 % on 2026-12-05, with
    ///   overlapped collectives charged their
    ///   contention; −12.0 % / +9.2 % before, then kept at −15 % / +10 %).
    /// - PyTorch-native training: −13.1 % / +12.2 % over 155 runs
    ///   (2026-12-07, torchtitan's compiled loss the default of its compiled
    ///   stack: its 2025 rows 1.4–2.4 points faster; −12.8 % before, the loss charged kernel by kernel: llm-foundry's
    ///   fused cross-entropy costs its small MPTs less than the flat 36 B a
    ///   logit before; −11.9 % / +12.4 % before that, with FSDP2's copies on the compute stream charged and the
    ///   PyTorch GEMM fraction refitted 0.80 → 0.83; −10.0 % / +14.1 %
    ///   before, with narrow linears waiting on HBM and the summed input
    ///   gradients of separate Q/K/V and gate/up linears charged; −10.9 % /
    ///   +14.1 % on 2026-12-06, torchtitan's backward keeping its gathered SP inputs;
    ///   −10.5 % / +14.1 % with its Float8 TP all-gathers in FP8; −9.9 % /
    ///   +15.2 % before, with its H100 rows at their 500 W power limit;
    ///   −13.3 % / +14.1 % on 2026-12-05, contention charged; −16.0 % / +13.6 % with
    ///   llm-foundry's Triton attention kernel named and no contention,
    ///   −27.8 % / +4.2 % before the Triton kernel).
    /// - ZeRO-3 at scale: −13.4 % and −16.3 % below 768 GPUs, −35.3 % to
    ///   −70.6 % from 768 (six runs, 2026-12-05, contention charged;
    ///   −15.1 / −16.8 % and −36.2 … −73.8 % before); the bands keep the
    ///   worst of each group as first published, 17 % and 74 %.
    /// - MoE training: −40.7 % / +9.6 % over 15 runs (2026-12-05, with
    ///   gpt-oss's windowed layers read; −38.2 % when every layer was
    ///   charged full attention).
    /// - Dense serving: −10.5 % / +10.1 % in time over TensorRT-LLM's 60
    ///   throughput rows; widened to −15 % / +11 %, since transformers'
    ///   eager `generate` (host-bound, `serve_validation.rs`) misses by
    ///   more.
    ///
    /// Each is rounded outwards, never in.
    /// - MoE serving: −26.5 % to −46.2 % in time over 17 rows, none slow;
    ///   the worst (2026-12-05, small kernels counted per layer).
    /// - FP4 serving on Blackwell: 10th percentile −26.0 % in time over the
    ///   20 one-B200 rows, 90th −6.2 % (2026-12-06, TensorRT-LLM's CUTLASS
    ///   MoE backend priced, `engine::MoeKernel`, and the rows in NVFP4;
    ///   one MoE row, 20,000 / 2,000, 10 % slow; −41.6 % before, with
    ///   TensorRT-LLM's host charged per sequence; −42.1 % with FP4 GEMMs
    ///   at their measured rate, −42.5 % before that); NVIDIA's four
    ///   MLPerf FP4 runs lie inside but Mixtral's (−46.6 %).
    /// - Serving on 75 W cards: the worst shortfall in time of 12
    ///   decode-step figures, −75.1 % (2026-12-07: Qwen2.5-1.5B on a T4 at
    ///   20 requests/s, TPOT p99 16.2 predicted against 65 ms measured;
    ///   −63.6 % at 16.47 requests/s; −21 … −44 % for a 3B model's
    ///   closed loops on a T4, −5 … −22 % for the L4's), none slow.
    pub fn band(self, dp: u32) -> Band {
        let b = |fast, slow, rows| Band { fast, slow, rows };
        match self {
            ValidationBasis::MegatronTraining => b(0.13, 0.05, 29),
            ValidationBasis::PytorchTraining => b(0.14, 0.13, 155),
            ValidationBasis::Zero3AtScale if dp >= ZERO3_FLAT_FROM => b(0.74, 0.0, 6),
            ValidationBasis::Zero3AtScale => b(0.17, 0.0, 6),
            ValidationBasis::MoeTraining => b(0.41, 0.10, 15),
            ValidationBasis::DenseServing => b(0.15, 0.11, 60),
            ValidationBasis::MoeServing => b(0.47, 0.0, 17),
            ValidationBasis::Fp4Serving => b(0.27, 0.0, 24),
            ValidationBasis::LowPowerServing => b(0.76, 0.0, 12),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_basis_follows_the_plan() {
        use TrainingStack as S;
        let t = |stack, sharding, dp, moe| {
            ValidationBasis::training(Some(stack), sharding, dp, moe, false)
        };
        use ValidationBasis as V;
        assert_eq!(
            t(S::MegatronCore, Sharding::Zero1, 64, false),
            V::MegatronTraining
        );
        assert_eq!(
            t(S::Torchtitan, Sharding::FsdpFullShard, 64, false),
            V::PytorchTraining
        );
        assert_eq!(
            t(S::DeepSpeed, Sharding::Zero3, 1536, false),
            V::Zero3AtScale
        );
        assert_eq!(
            t(S::HfTrainer, Sharding::Zero3, 1536, false),
            V::Zero3AtScale
        );
        assert_eq!(
            t(S::DeepSpeed, Sharding::Zero3, 64, false),
            V::PytorchTraining
        );
        assert_eq!(
            t(S::MegatronCore, Sharding::Zero1, 64, true),
            V::MoeTraining
        );
        // ZeRO-Offload at scale is not what the ZeRO-3 rows ran.
        let offload = ValidationBasis::training(
            Some(S::MegatronDeepSpeed),
            Sharding::Zero3,
            1024,
            false,
            true,
        );
        assert_eq!(offload, V::MegatronTraining);
        assert_eq!(ValidationBasis::serving(true, true, false), V::MoeServing);
        assert_eq!(ValidationBasis::serving(false, true, false), V::Fp4Serving);
        assert_eq!(
            ValidationBasis::serving(false, false, false),
            V::DenseServing
        );
        assert_eq!(
            ValidationBasis::serving(false, false, true),
            V::LowPowerServing
        );
        // Wider where the model missed by more.
        let z = ValidationBasis::Zero3AtScale;
        assert!(z.band(1536).fast > z.band(384).fast);
        for v in ValidationBasis::ALL {
            let band = v.band(8);
            assert!(
                band.fast > 0.0 && band.fast < 1.0 && band.slow >= 0.0,
                "{v:?}"
            );
        }
    }
}
