//! From a recorded configuration to the planner's [`Plan`] for it: the
//! GPU matched to the catalog by name, the model as a custom model, the
//! PyTorch settings mapped to the plan's levers.
//!
//! The mapping, and why:
//! - **FP32**: weights, gradients, Adam moments and activations in FP32,
//!   no separate master copy; compute `fp32`, which the time model runs as
//!   TF32 at half the BF16 rate (the workload allows TF32).
//! - **AMP (torch.autocast) FP16/BF16**: PyTorch keeps FP32 parameters,
//!   which the optimizer updates (the master copy, 4 B), and autocast makes
//!   16-bit copies of the linear layers' weights for the GEMMs and keeps
//!   them for backward (the working weights, 2 B); gradients land in FP32
//!   on the FP32 parameters; activations are 16-bit GEMM outputs. That is
//!   the plan's default precision set: weights 16-bit, master FP32,
//!   gradients and moments FP32.
//! - **Gradients stay allocated**: the workload zeroes them in place
//!   (`zero_grad(set_to_none=False)`), as DDP buckets, Megatron's main-grad
//!   buffer and DeepSpeed do, and as the planner assumes.
//! - **Checkpointing** `full` is `torch.utils.checkpoint` per layer
//!   ([`Checkpointing::Full`]); `selective` checkpoints the attention core
//!   ([`Checkpointing::Selective`], Korthikanti et al. §4.2.2).
//! - **Attention** `flash` allows only fused SDPA kernels
//!   ([`AttentionKernel::Flash`]); `math` materialises the scores
//!   ([`AttentionKernel::Eager`]).
//! - **The framework** is plain eager PyTorch: the time model's eager
//!   stack ([`TrainingStack::HfTrainer`]: one kernel per element-wise op,
//!   every operator issued from Python) over nanoGPT-style layer code
//!   ([`MemoryStack::PytorchNative`]: `nn.LayerNorm`/`nn.RMSNorm` run and
//!   saved in FP32 under autocast, fused QKV and gate-up linears, the loss
//!   upcasting the full logits to FP32 for `F.cross_entropy`). The
//!   mainstream pre-training stack (Megatron-Core: fused kernels,
//!   vocabulary-parallel cross-entropy) would describe another program. AdamW runs `fused=True`, as the
//!   workload records (`details.optimizer`); SGD keeps `torch.optim`'s
//!   default `foreach` path, the stack's.
//! - **Serving** is eager PyTorch token by token, as transformers'
//!   `generate` runs it ([`Engine::HfTransformers`]: static batch, every
//!   operator issued from Python, no CUDA graphs), and keeps a contiguous KV cache of prompt + output tokens per
//!   sequence and computes logits of the last prompt token only.

use crate::grid::{
    AttentionChoice, CheckpointChoice, GridModel, InferConfig, OptimizerChoice, RunConfig,
    TrainConfig, TrainPrecision, WeightChoice,
};
use planner_core::catalog::{self, GpuId};
use planner_core::engine::Engine;
use planner_core::hardware::{CustomGpu, GpuArch, GpuChoice, GpuSpec, Hardware, MemoryTech};
use planner_core::plan::{
    AttentionKernel, Checkpointing, CustomModel, Inference, KvCacheLayout, Levers, LogitsScope,
    ModelChoice, Momentum, Optimizer, Parallelism, Plan, Precisions, Training, TrainingKind,
    Workload, SCHEMA_VERSION,
};
use planner_core::precision::Precision;
use planner_core::software::{MemorySoftware, MemoryStack, OptimizerImpl};
use planner_core::stack::TrainingStack;
use planner_core::units::{ByteRate, Bytes, FlopRate, Watts};
use serde::{Deserialize, Serialize};

/// How the GPU of a run set was matched to the catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GpuMatch {
    /// A catalog entry: memory and time are compared.
    Catalog(GpuId),
    /// No catalog entry: a custom GPU with the probed memory and no
    /// compute rates, so only memory is compared.
    Custom,
}

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

/// The catalog entry for a device name as CUDA or NVML reports it
/// (`NVIDIA H100 80GB HBM3`, `NVIDIA A100-SXM4-40GB`, `Tesla V100-PCIE-32GB`)
/// and its memory, or `None` when no entry is that part. The memory
/// separates parts that share a name (A100 40/80 GB, GH200 96/144 GB) and
/// must lie within 15 % of the entry's capacity.
pub fn match_gpu(name: &str, total_memory: u64) -> Option<GpuId> {
    let n = name.to_ascii_uppercase().replace(['-', '_'], " ");
    // Checked from the most specific name down: GH200 before H200, GB200
    // before B200.
    let has = |s: &str| n.contains(s);
    let gib = total_memory as f64 / GIB;
    let id = if has("GH200") {
        if gib > 120.0 {
            GpuId::Gh200_144
        } else {
            GpuId::Gh200_96
        }
    } else if has("GB200") {
        GpuId::Gb200
    } else if has("GB300") || has("B300") {
        GpuId::B300
    } else if has("B200") {
        GpuId::B200
    } else if has("H800") {
        GpuId::H800Sxm
    } else if has("H20") && !has("H200") {
        GpuId::H20
    } else if has("A800") {
        GpuId::A800Sxm80
    } else if has("H200") {
        if has("NVL") {
            GpuId::H200Nvl
        } else {
            GpuId::H200Sxm
        }
    } else if has("H100") {
        if has("NVL") {
            GpuId::H100Nvl
        } else if has("PCIE") {
            GpuId::H100Pcie
        } else {
            GpuId::H100Sxm
        }
    } else if has("A100") {
        match (has("PCIE"), gib > 60.0) {
            (true, true) => GpuId::A100Pcie80,
            // The catalog has no 40 GB PCIe A100.
            (true, false) => return None,
            (false, true) => GpuId::A100Sxm80,
            (false, false) => GpuId::A100Sxm40,
        }
    } else if has("V100") {
        match (has("PCIE"), gib > 24.0) {
            (true, true) => GpuId::V100Pcie32,
            (true, false) => return None,
            (false, true) => GpuId::V100Sxm2_32,
            (false, false) => GpuId::V100Sxm2_16,
        }
    } else if has("L40S") {
        GpuId::L40s
    } else if has("L20") {
        GpuId::L20
    } else if has("RTX 4090 D") || has("RTX 4090D") {
        GpuId::Rtx4090d
    } else if has("RTX 4090") {
        GpuId::Rtx4090
    } else if has("RTX 5090") {
        GpuId::Rtx5090
    } else {
        return None;
    };
    let entry = catalog::gpu(id).spec;
    let expected = entry.device_memory().base();
    let ratio = total_memory as f64 / expected;
    (0.85..=1.15).contains(&ratio).then_some(id)
}

/// The plan's GPU for a device: the catalog entry when the name matches,
/// else a custom part with the probed memory and no compute rates.
pub fn gpu_choice(name: &str, total_memory: u64) -> (GpuChoice, GpuMatch) {
    match match_gpu(name, total_memory) {
        Some(id) => (GpuChoice::Preset(id), GpuMatch::Catalog(id)),
        None => (
            GpuChoice::Custom(CustomGpu {
                name: name.to_string(),
                spec: GpuSpec {
                    arch: GpuArch::Other,
                    memory: MemoryTech::Hbm3,
                    capacity: Bytes::new(total_memory as f64),
                    usable: Some(Bytes::new(total_memory as f64)),
                    memory_bandwidth: ByteRate::ZERO,
                    bf16: FlopRate::ZERO,
                    fp16: FlopRate::ZERO,
                    fp8: None,
                    fp4: None,
                    tdp: Watts::ZERO,
                    scale_up: None,
                    host_link: catalog::LinkId::Pcie4x16,
                    mig_slices: 0,
                    matmul_ceiling: None,
                },
            }),
            GpuMatch::Custom,
        ),
    }
}

/// The plan's number formats for a training precision.
pub fn train_precisions(p: TrainPrecision) -> Precisions {
    let amp = |half: Precision| Precisions {
        weights: half,
        master: Some(Precision::Fp32),
        gradients: Precision::Fp32,
        optimizer: Precision::Fp32,
        activations: half,
        kv_cache: half,
        compute: half,
        experts: None,
    };
    match p {
        TrainPrecision::Fp32 => Precisions {
            weights: Precision::Fp32,
            master: None,
            gradients: Precision::Fp32,
            optimizer: Precision::Fp32,
            activations: Precision::Fp32,
            kv_cache: Precision::Fp32,
            compute: Precision::Fp32,
            experts: None,
        },
        TrainPrecision::AmpFp16 => amp(Precision::Fp16),
        TrainPrecision::AmpBf16 => amp(Precision::Bf16),
    }
}

fn one_gpu(gpu: GpuChoice) -> Hardware {
    Hardware {
        gpus_per_node: 1,
        ..Hardware::new(gpu, 1)
    }
}

fn custom_model(name: &str, m: &GridModel) -> ModelChoice {
    ModelChoice::Custom(CustomModel {
        shipped: None,
        name: name.to_string(),
        spec: m.spec,
    })
}

/// The plan of a training configuration.
pub fn train_plan(t: &TrainConfig, m: &GridModel, gpu: GpuChoice) -> Plan {
    Plan {
        version: SCHEMA_VERSION,
        name: t.id.clone(),
        model: custom_model(&t.model, m),
        workload: Workload::Training(Training {
            kind: TrainingKind::PreTraining,
            seq_len: t.seq_len,
            global_batch: t.micro_batch.saturating_mul(t.grad_accum),
            tokens: 0.0,
        }),
        levers: Levers {
            precision: train_precisions(t.precision),
            optimizer: match t.optimizer {
                OptimizerChoice::Adamw => Optimizer::AdamW,
                OptimizerChoice::Sgd => Optimizer::Sgd {
                    momentum: Momentum::On,
                },
            },
            checkpointing: match t.checkpointing {
                CheckpointChoice::None => Checkpointing::None,
                CheckpointChoice::Full => Checkpointing::Full,
                CheckpointChoice::Selective => Checkpointing::Selective,
            },
            attention: attention(t.attention),
            parallel: Parallelism {
                micro_batch: t.micro_batch,
                ..Parallelism::default()
            },
            training_stack: Some(TrainingStack::HfTrainer),
            memory: MemorySoftware {
                stack: Some(MemoryStack::PytorchNative),
                optimizer_impl: match t.optimizer {
                    OptimizerChoice::Adamw => OptimizerImpl::Fused,
                    OptimizerChoice::Sgd => OptimizerImpl::StackDefault,
                },
                ..MemorySoftware::default()
            },
            ..Levers::default()
        },
        hardware: one_gpu(gpu),
        overheads: Default::default(),
        efficiency: Default::default(),
        economics: Default::default(),
        distillation: None,
    }
}

fn attention(a: AttentionChoice) -> AttentionKernel {
    match a {
        AttentionChoice::Flash => AttentionKernel::Flash,
        AttentionChoice::Math => AttentionKernel::Eager,
    }
}

/// The plan of a serving configuration.
pub fn infer_plan(i: &InferConfig, m: &GridModel, gpu: GpuChoice) -> Plan {
    let weights = match i.weights {
        WeightChoice::Bf16 => Precision::Bf16,
        WeightChoice::Int8 => Precision::Int8,
    };
    Plan {
        version: SCHEMA_VERSION,
        name: i.id.clone(),
        model: custom_model(&i.model, m),
        workload: Workload::Inference(Inference {
            prompt_tokens: i.prompt,
            output_tokens: i.output,
            batch: i.batch,
            logits: LogitsScope::LastToken,
            stream: None,
        }),
        levers: Levers {
            precision: Precisions {
                weights,
                master: None,
                gradients: Precision::Bf16,
                optimizer: Precision::Bf16,
                activations: Precision::Bf16,
                kv_cache: Precision::Bf16,
                compute: Precision::Bf16,
                experts: None,
            },
            attention: AttentionKernel::Flash,
            kv_cache: KvCacheLayout::Contiguous { reserve_tokens: 0 },
            engine: Engine::HfTransformers,
            memory: MemorySoftware {
                stack: Some(MemoryStack::PytorchNative),
                ..MemorySoftware::default()
            },
            ..Levers::default()
        },
        hardware: one_gpu(gpu),
        overheads: Default::default(),
        efficiency: Default::default(),
        economics: Default::default(),
        distillation: None,
    }
}

/// The plan of any configuration.
pub fn plan(run: &RunConfig, m: &GridModel, gpu: GpuChoice) -> Plan {
    match run {
        RunConfig::Train(t) => train_plan(t, m, gpu),
        RunConfig::Infer(i) => infer_plan(i, m, gpu),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid;
    use planner_core::{evaluate, Verdict};

    const GB: f64 = 1e9;
    const MIB: f64 = 1024.0 * 1024.0;

    #[test]
    fn device_names_match_catalog_entries() {
        // Names in the form CUDA and NVML print them; memory in bytes as
        // the driver reports it.
        let cases: &[(&str, f64, Option<GpuId>)] = &[
            ("NVIDIA H100 80GB HBM3", 81559.0 * MIB, Some(GpuId::H100Sxm)),
            ("NVIDIA H100 PCIe", 81559.0 * MIB, Some(GpuId::H100Pcie)),
            ("NVIDIA H100 NVL", 95830.0 * MIB, Some(GpuId::H100Nvl)),
            ("NVIDIA H200", 143771.0 * MIB, Some(GpuId::H200Sxm)),
            ("NVIDIA H200 NVL", 143771.0 * MIB, Some(GpuId::H200Nvl)),
            ("NVIDIA GH200 480GB", 97871.0 * MIB, Some(GpuId::Gh200_96)),
            (
                "NVIDIA A100-SXM4-80GB",
                81920.0 * MIB,
                Some(GpuId::A100Sxm80),
            ),
            (
                "NVIDIA A100-SXM4-40GB",
                40960.0 * MIB,
                Some(GpuId::A100Sxm40),
            ),
            (
                "NVIDIA A100 80GB PCIe",
                81920.0 * MIB,
                Some(GpuId::A100Pcie80),
            ),
            ("NVIDIA A100-PCIE-40GB", 40960.0 * MIB, None),
            (
                "Tesla V100-SXM2-16GB",
                16160.0 * MIB,
                Some(GpuId::V100Sxm2_16),
            ),
            (
                "Tesla V100-PCIE-32GB",
                32510.0 * MIB,
                Some(GpuId::V100Pcie32),
            ),
            ("NVIDIA B200", 180.0 * GB, Some(GpuId::B200)),
            ("NVIDIA L40S", 46068.0 * MIB, Some(GpuId::L40s)),
            (
                "NVIDIA GeForce RTX 4090",
                24564.0 * MIB,
                Some(GpuId::Rtx4090),
            ),
            ("NVIDIA H800", 81559.0 * MIB, Some(GpuId::H800Sxm)),
            ("NVIDIA H20", 97871.0 * MIB, Some(GpuId::H20)),
            (
                "NVIDIA A800-SXM4-80GB",
                81920.0 * MIB,
                Some(GpuId::A800Sxm80),
            ),
            ("NVIDIA L20", 46068.0 * MIB, Some(GpuId::L20)),
            (
                "NVIDIA GeForce RTX 4090 D",
                24564.0 * MIB,
                Some(GpuId::Rtx4090d),
            ),
            (
                "NVIDIA GeForce RTX 5090",
                32607.0 * MIB,
                Some(GpuId::Rtx5090),
            ),
            ("Tesla T4", 15360.0 * MIB, None),
            // A name that matches but memory that does not (a MIG slice).
            ("NVIDIA H100 80GB HBM3 MIG 1g.10gb", 9.75 * GB, None),
        ];
        for &(name, bytes, want) in cases {
            assert_eq!(match_gpu(name, bytes as u64), want, "{name}");
        }
    }

    #[test]
    fn harness_plans_are_valid() {
        let gpu = GpuChoice::Preset(GpuId::H100Sxm);
        for g in [grid::quick(), grid::full(), grid::large()] {
            for run in &g.runs {
                let p = plan(run, &g.models[run.model()], gpu.clone());
                let r = evaluate(&p);
                assert_ne!(
                    r.verdict,
                    Verdict::Invalid,
                    "{}: {:?}",
                    run.id(),
                    r.diagnostics
                );
            }
        }
    }

    #[test]
    fn amp_is_eighteen_bytes_per_parameter_of_model_states() {
        // FP32 parameters (4) + 16-bit autocast copies (2) + FP32 grads (4)
        // + two FP32 Adam moments (8).
        let p = train_precisions(TrainPrecision::AmpBf16);
        let bytes = p.weights.bytes_per_element()
            + p.master.map_or(0.0, Precision::bytes_per_element)
            + p.gradients.bytes_per_element()
            + 2.0 * p.optimizer.bytes_per_element();
        assert_eq!(bytes, 18.0);
        let f = train_precisions(TrainPrecision::Fp32);
        assert_eq!(f.master, None);
    }

    #[test]
    fn unknown_gpus_get_the_probed_memory() {
        let (choice, m) = gpu_choice("Tesla T4", 15_843_721_216);
        assert_eq!(m, GpuMatch::Custom);
        match choice {
            GpuChoice::Custom(c) => {
                assert_eq!(c.spec.device_memory().base(), 15_843_721_216.0);
                assert_eq!(c.name, "Tesla T4");
            }
            GpuChoice::Preset(_) => unreachable!("T4 is not in the catalog"),
        }
    }
}
