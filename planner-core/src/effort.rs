//! What it takes to adopt a plan: the engineering effort of each lever it
//! uses, the kind of change each one is ([`MigrationClass`]), and which
//! family a plan belongs to relative to a baseline ([`PlanFamily`]).
//!
//! Effort is counted against a baseline plan: a lever costs effort only
//! where the plan sets it and the baseline does not, and where the plan's
//! setting is not the plain one (going back to plain data parallelism costs
//! nothing). [`plain_baseline`] builds the baseline a report uses when no
//! other is given: the same model, workload, GPU kind and count, with no
//! sharding, TP = PP = CP = EP = 1, no checkpointing, Megatron-LM BF16 mixed
//! precision (on the training framework the plan names, if it names one), AdamW, no offload, no quantization, no pruning, no
//! distillation, paged KV (the baseline of vLLM-class servers) and no CXL,
//! pool or multi-node scale-up domain. A serving plan's baseline stores a
//! catalog model's weights as its checkpoint ships them
//! ([`crate::catalog::ModelEntry::shipped`]): serving gpt-oss with its
//! MXFP4 experts quantizes nothing.
//!
//! **The person-week figures are assumptions**, set from what each change
//! involves in the frameworks that implement it (named in [`LeverEffort::why`]);
//! no published survey of migration effort was found. Override them per
//! lever with `economics.engineering.effort`.

use crate::economics::Engineering;
use crate::hardware::Hardware;
pub use crate::lever::Lever;
use crate::plan::{
    AttentionKernel, Checkpointing, Levers, Overlap, Parallelism, Placement, Plan, Precisions,
    Pruning, SequenceParallel, Sharding, TrainingKind, Workload,
};
use crate::precision::Precision;
use serde::{Deserialize, Serialize};

/// What kind of change adopting a lever is, from least to most disruptive.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default,
)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum MigrationClass {
    /// Nothing changes.
    #[default]
    None,
    /// A setting of the framework already in use (a DeepSpeed or FSDP
    /// config, a vLLM flag, a quantized checkpoint).
    Configuration,
    /// A different or extended framework (Transformer Engine, a CP or EP
    /// implementation).
    FrameworkChange,
    /// The model code changes (Megatron-style parallel layers, a pruned or
    /// distilled model that must be trained and evaluated).
    ModelCodeChange,
    /// Different machines: GPUs, memory devices, fabric.
    InfrastructureChange,
}

impl MigrationClass {
    /// Every class, least disruptive first.
    pub const ALL: [MigrationClass; 5] = [
        MigrationClass::None,
        MigrationClass::Configuration,
        MigrationClass::FrameworkChange,
        MigrationClass::ModelCodeChange,
        MigrationClass::InfrastructureChange,
    ];

    /// The English name ([`crate::lang::Named`]).
    pub fn label(self) -> &'static str {
        crate::lang::Named::en(self)
    }
}

crate::lang::named!(MigrationClass {
    MigrationClass::None => "none", "no change", "无需改动";
    MigrationClass::Configuration => "configuration", "configuration", "改配置";
    MigrationClass::FrameworkChange => "framework_change", "framework change", "换框架";
    MigrationClass::ModelCodeChange => "model_code_change", "model-code change", "改模型代码";
    MigrationClass::InfrastructureChange => "infrastructure_change", "infrastructure change", "换基础设施";
});

/// The effort one lever takes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LeverEffort {
    /// Which lever.
    pub lever: Lever,
    /// What kind of change it is.
    pub class: MigrationClass,
    /// Engineering effort in person-weeks (assumed unless the plan set it).
    pub person_weeks: f64,
    /// Why, in one line.
    pub why: String,
}

/// Where a plan stands relative to a baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum PlanFamily {
    /// Same hardware, same levers, same model and workload.
    Baseline,
    /// Software only: levers, number formats, model (pruned or distilled)
    /// or workload shape differ; the hardware is the same.
    /// Written `software`, the name table's key and the page's word;
    /// `algorithmic`, its earlier serde spelling, is still read.
    #[serde(rename = "software", alias = "algorithmic")]
    Algorithmic,
    /// Hardware only: the same software on different machines.
    Hardware,
    /// Both.
    Hybrid,
}

impl PlanFamily {
    /// Every family.
    pub const ALL: [PlanFamily; 4] = [
        PlanFamily::Baseline,
        PlanFamily::Algorithmic,
        PlanFamily::Hardware,
        PlanFamily::Hybrid,
    ];
}

crate::lang::named!(PlanFamily {
    PlanFamily::Baseline => "baseline", "baseline", "基线";
    PlanFamily::Algorithmic => "software", "software", "软件手段";
    PlanFamily::Hardware => "hardware", "hardware", "硬件方案";
    PlanFamily::Hybrid => "hybrid", "hybrid", "软硬结合";
});

/// The levers of a plan with the data-parallel degree set to 1: DP follows
/// from the GPU count and the other degrees, so it is not a lever of its
/// own.
fn levers_without_dp(l: &Levers) -> Levers {
    Levers {
        parallel: Parallelism {
            dp: 1,
            ..l.parallel
        },
        ..*l
    }
}

/// The family of `plan` relative to `baseline`: hardware that differs makes
/// it a hardware plan; levers (other than the data-parallel degree, which
/// the GPU count implies), model, distillation or workload that differ make
/// it algorithmic; both make it hybrid. Overheads, efficiency knobs,
/// economics and the name are not part of the comparison.
pub fn family(plan: &Plan, baseline: &Plan) -> PlanFamily {
    let hardware = plan.hardware != baseline.hardware;
    let algorithmic = levers_without_dp(&plan.levers) != levers_without_dp(&baseline.levers)
        || plan.model != baseline.model
        || plan.distillation != baseline.distillation
        || plan.workload != baseline.workload;
    match (hardware, algorithmic) {
        (false, false) => PlanFamily::Baseline,
        (false, true) => PlanFamily::Algorithmic,
        (true, false) => PlanFamily::Hardware,
        (true, true) => PlanFamily::Hybrid,
    }
}

/// The plain baseline of a plan (see the module documentation): same model,
/// workload and GPUs, plain levers with DP over all GPUs, no distillation,
/// and the hardware without CXL, pool or a scale-up domain beyond one node.
/// Host DRAM, NVMe and fabric stay as the plan has them: they describe the
/// machine rather than a lever pulled; so does the training framework the
/// plan names.
pub fn plain_baseline(plan: &Plan) -> Plan {
    let hw = &plan.hardware;
    let mut base = Plan {
        levers: Levers {
            parallel: Parallelism {
                dp: hw.gpus.max(1),
                micro_batch: plan.levers.parallel.micro_batch,
                ..Parallelism::default()
            },
            // The framework the team runs, like the machine, is not a
            // lever pulled; moving to another is (`Lever::TrainingStack`).
            training_stack: plan.levers.training_stack,
            // So is the attention kernel it runs; moving to a fused one is
            // a lever (`Lever::FusedAttention`).
            attention: plan.levers.attention,
            ..Levers::default()
        },
        hardware: Hardware {
            cxl: None,
            pool: None,
            scale_up_domain: 0,
            ..hw.clone()
        },
        distillation: None,
        ..plan.clone()
    };
    // A catalog model served in the formats its checkpoint ships in
    // (gpt-oss's MXFP4 experts) quantizes nothing: those formats are the
    // model as released, like the machine, not a lever pulled.
    if let Some(s) = plan.model.shipped() {
        base.serve_as_shipped(s);
    }
    base
}

/// Default effort of each lever: class, person-weeks and the reason.
/// Every figure is an assumption (see the module documentation).
fn default_effort(lever: Lever) -> (MigrationClass, f64, &'static str) {
    use Lever as L;
    use MigrationClass as M;
    match lever {
        L::Sharding => (
            M::Configuration,
            0.5,
            "ZeRO stage in the DeepSpeed config or an FSDP wrapping policy; checkpoints change format",
        ),
        L::ActivationCheckpointing => (
            M::Configuration,
            0.5,
            "a framework setting (Megatron --recompute-*, torch.utils.checkpoint wrapping)",
        ),
        L::TensorParallel => (
            M::ModelCodeChange,
            4.0,
            "Megatron-style column/row-parallel layers in the model code, unless it already uses them",
        ),
        L::SequenceParallel => (
            M::ModelCodeChange,
            1.0,
            "sequence-split norms and dropout around the TP layers (Megatron-style model code)",
        ),
        L::PipelineParallel => (
            M::ModelCodeChange,
            4.0,
            "the model split into stages with a pipeline schedule (Megatron-style model code)",
        ),
        L::ContextParallel => (
            M::FrameworkChange,
            2.0,
            "a context-parallel attention implementation (Megatron-Core, ring attention)",
        ),
        L::ExpertParallel => (
            M::FrameworkChange,
            2.0,
            "an expert-parallel MoE layer with all-to-all dispatch (Megatron-Core, DeepSpeed-MoE)",
        ),
        L::LowPrecisionCompute => (
            M::FrameworkChange,
            2.0,
            "Transformer Engine layers and an FP8 recipe, plus convergence checks",
        ),
        L::WeightQuantization => (
            M::Configuration,
            1.0,
            "a quantized checkpoint for vLLM/TensorRT-LLM, with calibration and an accuracy check",
        ),
        L::KvCacheQuantization => (
            M::Configuration,
            0.5,
            "a serving flag (vLLM kv_cache_dtype) and an accuracy check",
        ),
        L::NumberFormats => (
            M::Configuration,
            0.5,
            "mixed-precision settings of the framework; needs a convergence check",
        ),
        L::Optimizer => (
            M::Configuration,
            0.5,
            "a different optimizer (bitsandbytes, Adafactor); needs a convergence check",
        ),
        L::Offload => (
            M::Configuration,
            1.0,
            "ZeRO-Offload/ZeRO-Infinity settings and pinned host or NVMe buffers",
        ),
        L::TieredPlacement => (
            M::InfrastructureChange,
            3.0,
            "a memory-tiering engine (access tracking, migration) deployed under the framework",
        ),
        L::ChunkedPrefill => (
            M::Configuration,
            0.1,
            "a serving flag (vLLM max_num_batched_tokens)",
        ),
        L::TpCommOverlap => (
            M::Configuration,
            0.5,
            "Transformer Engine userbuffers overlap (Megatron --tp-comm-overlap) and its tuning",
        ),
        // FlashAttention computes exact attention (Dao et al. 2022, §3.1),
        // so the switch asks for a build and a short parity run, not a
        // convergence study.
        L::FusedAttention => (
            M::Configuration,
            0.5,
            "flash-attn 2 built for the cluster's CUDA and PyTorch, the model's attention switched to it (Hugging Face attn_implementation=\"flash_attention_2\", llm-foundry attn_impl: flash) and a short loss-parity run",
        ),
        L::Pruning => (
            M::ModelCodeChange,
            4.0,
            "a pruned model to build, retrain and evaluate (2:4 sparsity or Minitron-style shapes)",
        ),
        L::Distillation => (
            M::ModelCodeChange,
            8.0,
            "a distillation pipeline (teacher logits, student training) and a full evaluation",
        ),
        // Hugging Face PEFT (`get_peft_model` with a `LoraConfig`) over the
        // model the framework loads; QLoRA adds bitsandbytes 4-bit loading
        // (`BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4")`,
        // Dettmers et al. 2023 §3). Adapters over a frozen base train a
        // different function than full fine-tuning (Hu et al. 2021 §4;
        // Biderman et al. 2024, "LoRA Learns Less and Forgets Less"), so the
        // rank, targets and learning rate need a quality re-validation.
        L::TrainingMethod => (
            M::FrameworkChange,
            1.5,
            "PEFT adapters (and bitsandbytes 4-bit loading for QLoRA) in the training script, adapter merging for serving, and a quality re-validation of rank, targets and learning rate",
        ),
        L::TrainingStack => (
            M::FrameworkChange,
            4.0,
            "the training moved to another framework: the model in its layers or a checkpoint conversion both ways (Megatron-Bridge, torchtitan's converters), data loading, launch and config, and a loss-parity run against the current framework",
        ),
        L::GpuKind => (
            M::InfrastructureChange,
            4.0,
            "new GPUs to procure or reserve, drivers and kernels to requalify",
        ),
        L::GpuCount => (
            M::InfrastructureChange,
            1.0,
            "more nodes to provision and wire into the cluster",
        ),
        L::CxlExpansion => (
            M::InfrastructureChange,
            6.0,
            "CXL-capable servers and Type-3 devices, kernel and NUMA support, allocator changes",
        ),
        L::MemoryPool => (
            M::InfrastructureChange,
            8.0,
            "a CXL switch and pooled memory, with its fabric manager and allocation software",
        ),
        L::ScaleUpDomain => (
            M::InfrastructureChange,
            4.0,
            "rack-scale systems (NVL72-class) with their power, cooling and NVLink switches",
        ),
        L::HostMemory => (
            M::InfrastructureChange,
            0.5,
            "more DIMMs per node",
        ),
        L::Nvme => (
            M::InfrastructureChange,
            0.5,
            "more drives per node",
        ),
        L::ScaleOutFabric => (
            M::InfrastructureChange,
            2.0,
            "a different node-to-node fabric or more NICs per node",
        ),
    }
}

fn quantized(p: Precision) -> bool {
    matches!(
        p,
        Precision::Int8
            | Precision::Int4 { .. }
            | Precision::Nf4 { .. }
            | Precision::Fp8
            | Precision::Mxfp4
            | Precision::Nvfp4
    )
}

/// Number formats with the weights, KV cache and compute formats left at
/// their defaults (they are levers of their own).
fn other_formats(p: &Precisions) -> Precisions {
    let d = Precisions::default();
    Precisions {
        weights: d.weights,
        kv_cache: d.kv_cache,
        compute: d.compute,
        experts: d.experts,
        ..*p
    }
}

/// The setting of each software lever, in a form that compares equal when
/// the lever is set the same way; `None` when the plan leaves it plain.
#[derive(Debug, Clone, PartialEq)]
enum Setting {
    Sharding(Sharding, Option<u32>),
    Checkpointing(Checkpointing),
    Degree(u32),
    Flag,
    Pipeline(u32, crate::plan::PipelineSchedule),
    Format(Precision),
    /// The weights' format and the routed experts' own, if set.
    WeightFormats(Precision, Option<Precision>),
    Formats(Precisions),
    Optimizer(crate::plan::Optimizer),
    Offload(crate::plan::Offload),
    Chunk(u32),
    Pruning(Pruning),
    Distillation(Box<crate::plan::Distillation>),
    Method(crate::plan::TrainingKind),
}

fn setting(plan: &Plan, lever: Lever) -> Option<Setting> {
    let l = &plan.levers;
    let par = &l.parallel;
    let plain = Precisions::default();
    match lever {
        Lever::Sharding => (l.sharding != Sharding::None || l.shard_group.is_some())
            .then_some(Setting::Sharding(l.sharding, l.shard_group)),
        Lever::ActivationCheckpointing => (l.checkpointing != Checkpointing::None)
            .then_some(Setting::Checkpointing(l.checkpointing)),
        Lever::TensorParallel => (par.tp > 1).then_some(Setting::Degree(par.tp)),
        Lever::SequenceParallel => {
            (par.tp > 1 && par.sequence_parallel == SequenceParallel::On).then_some(Setting::Flag)
        }
        Lever::PipelineParallel => (par.pp > 1).then_some(Setting::Pipeline(par.pp, par.schedule)),
        Lever::ContextParallel => (par.cp > 1).then_some(Setting::Degree(par.cp)),
        Lever::ExpertParallel => (par.ep > 1).then_some(Setting::Degree(par.ep)),
        Lever::LowPrecisionCompute => matches!(
            l.precision.compute,
            Precision::Fp8 | Precision::Mxfp4 | Precision::Nvfp4
        )
        .then_some(Setting::Format(l.precision.compute)),
        Lever::WeightQuantization => {
            let (w, x) = (l.precision.weights, l.precision.experts);
            (quantized(w) || x.is_some_and(quantized)).then_some(Setting::WeightFormats(w, x))
        }
        Lever::KvCacheQuantization => {
            quantized(l.precision.kv_cache).then_some(Setting::Format(l.precision.kv_cache))
        }
        Lever::NumberFormats => {
            let mine = other_formats(&l.precision);
            let fp16_weights =
                l.precision.weights == Precision::Fp16 || l.precision.compute == Precision::Fp16;
            (mine != other_formats(&plain) || fp16_weights).then_some(Setting::Formats(l.precision))
        }
        Lever::Optimizer => (l.optimizer != crate::plan::Optimizer::AdamW)
            .then_some(Setting::Optimizer(l.optimizer)),
        Lever::Offload => {
            let o = &l.offload;
            o.targets()
                .iter()
                .any(Option::is_some)
                .then_some(Setting::Offload(*o))
        }
        Lever::TieredPlacement => (l.placement == Placement::ByHeat).then_some(Setting::Flag),
        Lever::ChunkedPrefill => l.prefill_chunk.map(Setting::Chunk),
        Lever::TpCommOverlap => {
            (par.tp > 1 && l.overlap.tensor_parallel == Overlap::On).then_some(Setting::Flag)
        }
        Lever::Pruning => (l.pruning != Pruning::None).then_some(Setting::Pruning(l.pruning)),
        Lever::Distillation => plan
            .distillation
            .as_ref()
            .map(|d| Setting::Distillation(Box::new(d.clone()))),
        Lever::TrainingMethod => match &plan.workload {
            Workload::Training(t)
                if matches!(t.kind, TrainingKind::Lora(_) | TrainingKind::Qlora(_)) =>
            {
                Some(Setting::Method(t.kind))
            }
            _ => None,
        },
        // Hardware levers are compared in `hardware_change`.
        _ => None,
    }
}

const SOFTWARE: [Lever; 19] = [
    Lever::Sharding,
    Lever::ActivationCheckpointing,
    Lever::TensorParallel,
    Lever::SequenceParallel,
    Lever::PipelineParallel,
    Lever::ContextParallel,
    Lever::ExpertParallel,
    Lever::LowPrecisionCompute,
    Lever::WeightQuantization,
    Lever::KvCacheQuantization,
    Lever::NumberFormats,
    Lever::Optimizer,
    Lever::Offload,
    Lever::TieredPlacement,
    Lever::ChunkedPrefill,
    Lever::TpCommOverlap,
    Lever::Pruning,
    Lever::Distillation,
    Lever::TrainingMethod,
];

/// Whether `plan` names a training framework other than the one
/// `baseline` runs on (named, or the stack its levers resolve to). A plan
/// that names none runs where its levers take it, which asks no port of
/// its own: the levers that took it there are priced.
fn stack_change(plan: &Plan, baseline: &Plan) -> bool {
    match (&plan.workload, plan.levers.training_stack) {
        (Workload::Training(_), Some(st)) => baseline.training_stack() != Some(st),
        _ => false,
    }
}

/// Whether `plan` runs FlashAttention-2 where `baseline` runs eager
/// attention or the Triton kernel. The other way is no lever pulled over
/// the wall: it only costs memory and time.
fn kernel_upgrade(plan: &Plan, baseline: &Plan) -> bool {
    plan.levers.attention == AttentionKernel::Flash
        && baseline.levers.attention != AttentionKernel::Flash
}

/// Whether `plan` adds this hardware lever over `baseline`.
fn hardware_change(plan: &Hardware, baseline: &Hardware, lever: Lever) -> bool {
    let more = |a: f64, b: f64| a > b;
    match lever {
        Lever::GpuKind => plan.gpu != baseline.gpu,
        Lever::GpuCount => plan.gpus > baseline.gpus,
        Lever::CxlExpansion => plan.cxl.is_some() && plan.cxl != baseline.cxl,
        Lever::MemoryPool => plan.pool.is_some() && plan.pool != baseline.pool,
        Lever::ScaleUpDomain => plan.scale_up_gpus() > baseline.scale_up_gpus(),
        Lever::HostMemory => more(
            plan.host_dram_per_node.base(),
            baseline.host_dram_per_node.base(),
        ),
        Lever::Nvme => more(plan.nvme_per_node.base(), baseline.nvme_per_node.base()),
        Lever::ScaleOutFabric => {
            plan.scale_out != baseline.scale_out || plan.nics_per_node > baseline.nics_per_node
        }
        _ => false,
    }
}

const HARDWARE: [Lever; 8] = [
    Lever::GpuKind,
    Lever::GpuCount,
    Lever::CxlExpansion,
    Lever::MemoryPool,
    Lever::ScaleUpDomain,
    Lever::HostMemory,
    Lever::Nvme,
    Lever::ScaleOutFabric,
];

/// The effort of adopting `plan` starting from `baseline`: one entry per
/// lever the plan sets differently from the baseline (and not to its plain
/// value), in [`Lever`] order. Person-weeks come from the plan's overrides
/// where given, else from the assumed defaults.
pub fn efforts(plan: &Plan, baseline: &Plan, engineering: &Engineering) -> Vec<LeverEffort> {
    let mut out = Vec::new();
    let mut push = |lever: Lever| {
        let (class, weeks, why) = default_effort(lever);
        let set = engineering
            .effort
            .iter()
            .rev()
            .find(|o| o.lever == lever)
            .map(|o| o.person_weeks);
        out.push(LeverEffort {
            lever,
            class,
            person_weeks: set.unwrap_or(weeks),
            why: match set {
                Some(_) => format!("{why} (person-weeks set by the plan)"),
                None => format!("{why} (assumed effort)"),
            },
        });
    };
    for lever in SOFTWARE {
        if let Some(s) = setting(plan, lever) {
            if setting(baseline, lever).as_ref() != Some(&s) {
                push(lever);
            }
        }
    }
    if kernel_upgrade(plan, baseline) {
        push(Lever::FusedAttention);
    }
    if stack_change(plan, baseline) {
        push(Lever::TrainingStack);
    }
    for lever in HARDWARE {
        if hardware_change(&plan.hardware, &baseline.hardware, lever) {
            push(lever);
        }
    }
    out
}

/// The overall class of a set of changes: the most disruptive one.
pub fn migration_class(efforts: &[LeverEffort]) -> MigrationClass {
    efforts
        .iter()
        .map(|e| e.class)
        .max()
        .unwrap_or(MigrationClass::None)
}

/// Total person-weeks of a set of changes.
pub fn person_weeks(efforts: &[LeverEffort]) -> f64 {
    efforts.iter().map(|e| e.person_weeks).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{GpuId, ModelId};
    use crate::economics::EffortOverride;
    use crate::examples::example_plan;
    use crate::hardware::{CxlChoice, CxlExpansion, GpuChoice};
    use crate::plan::{Distillation, ModelChoice};

    fn plain(plan: &Plan) -> Vec<LeverEffort> {
        efforts(plan, &plain_baseline(plan), &Engineering::default())
    }

    #[test]
    fn plain_plan_needs_nothing() {
        let p = plain_baseline(&example_plan());
        assert!(plain(&p).is_empty());
        assert_eq!(migration_class(&plain(&p)), MigrationClass::None);
        assert_eq!(family(&p, &p), PlanFamily::Baseline);
    }

    #[test]
    fn switching_to_adapters_costs_effort() {
        let mut base = example_plan();
        if let Workload::Training(t) = &mut base.workload {
            t.kind = TrainingKind::FullFineTune;
        }
        let mut p = base.clone();
        if let Workload::Training(t) = &mut p.workload {
            t.kind = TrainingKind::Qlora(crate::plan::LoraSpec {
                rank: 64,
                targets: crate::plan::LoraTargets::AllLinear,
                adapter_precision: Precision::Fp32,
            });
        }
        let e = efforts(&p, &base, &Engineering::default());
        assert_eq!(e.len(), 1, "{e:?}");
        assert_eq!(e[0].lever, Lever::TrainingMethod);
        assert_eq!(migration_class(&e), MigrationClass::FrameworkChange);
        assert!(person_weeks(&e) > 0.0);
        // Back to full fine-tuning is the plain setting: no effort.
        assert!(efforts(&base, &p, &Engineering::default()).is_empty());
    }

    /// FlashAttention-2 in place of eager attention (or the Triton
    /// kernel) is a configuration change; the other way is no lever, and
    /// the plain baseline keeps the plan's kernel.
    #[test]
    fn a_kernel_upgrade_is_priced_and_a_downgrade_is_not() {
        let mut base = example_plan();
        base.levers.attention = AttentionKernel::Eager;
        let mut flash = base.clone();
        flash.levers.attention = AttentionKernel::Flash;
        let e = efforts(&flash, &base, &Engineering::default());
        assert_eq!(e.len(), 1, "{e:?}");
        assert_eq!(e[0].lever, Lever::FusedAttention);
        assert_eq!(e[0].class, MigrationClass::Configuration);
        assert_eq!(family(&flash, &base), PlanFamily::Algorithmic);
        let mut triton = base.clone();
        triton.levers.attention = AttentionKernel::FlashTriton;
        assert_eq!(
            efforts(&flash, &triton, &Engineering::default())[0].lever,
            Lever::FusedAttention
        );
        assert!(efforts(&base, &flash, &Engineering::default()).is_empty());
        assert!(efforts(&triton, &flash, &Engineering::default()).is_empty());
        assert_eq!(
            plain_baseline(&base).levers.attention,
            AttentionKernel::Eager
        );
        assert!(plain(&base)
            .iter()
            .all(|e| e.lever != Lever::FusedAttention));
    }

    /// Moving to another training framework is a framework change; the
    /// framework a plan already names is the team's, so its plain baseline
    /// keeps it and asks nothing; a plan that names none moves nowhere.
    #[test]
    fn a_framework_move_is_priced_and_staying_is_not() {
        use crate::stack::TrainingStack;
        let base = example_plan();
        assert_eq!(base.training_stack(), Some(TrainingStack::MegatronCore));
        let mut moved = base.clone();
        moved.levers.training_stack = Some(TrainingStack::Torchtitan);
        let e = efforts(&moved, &base, &Engineering::default());
        assert_eq!(e.len(), 1, "{e:?}");
        assert_eq!(e[0].lever, Lever::TrainingStack);
        assert_eq!(e[0].class, MigrationClass::FrameworkChange);
        assert_eq!(family(&moved, &base), PlanFamily::Algorithmic);
        // Naming the stack the base resolves to is no move.
        let mut named = base.clone();
        named.levers.training_stack = Some(TrainingStack::MegatronCore);
        assert!(efforts(&named, &base, &Engineering::default()).is_empty());
        // The plain baseline keeps the plan's framework.
        assert_eq!(
            plain_baseline(&moved).levers.training_stack,
            Some(TrainingStack::Torchtitan)
        );
        assert!(plain(&moved)
            .iter()
            .all(|e| e.lever != Lever::TrainingStack));
    }

    #[test]
    fn example_is_configuration() {
        // ZeRO-1 and selective recompute: two configuration changes.
        let e = plain(&example_plan());
        let levers: Vec<Lever> = e.iter().map(|x| x.lever).collect();
        assert_eq!(
            levers,
            vec![Lever::Sharding, Lever::ActivationCheckpointing]
        );
        assert_eq!(migration_class(&e), MigrationClass::Configuration);
        assert!((person_weeks(&e) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn classes_are_ordered() {
        assert!(MigrationClass::None < MigrationClass::Configuration);
        assert!(MigrationClass::Configuration < MigrationClass::FrameworkChange);
        assert!(MigrationClass::FrameworkChange < MigrationClass::ModelCodeChange);
        assert!(MigrationClass::ModelCodeChange < MigrationClass::InfrastructureChange);
    }

    #[test]
    fn tensor_parallel_is_model_code() {
        let mut p = example_plan();
        p.levers.parallel.tp = 2;
        p.levers.parallel.dp = 4;
        let e = plain(&p);
        assert!(e.iter().any(|x| x.lever == Lever::TensorParallel));
        assert_eq!(migration_class(&e), MigrationClass::ModelCodeChange);
    }

    #[test]
    fn a_lever_the_baseline_already_uses_costs_nothing() {
        let p = example_plan();
        assert!(efforts(&p, &p, &Engineering::default()).is_empty());
    }

    #[test]
    fn overrides_replace_the_default() {
        let eng = Engineering {
            effort: vec![EffortOverride {
                lever: Lever::Sharding,
                person_weeks: 3.0,
            }],
            ..Engineering::default()
        };
        let p = example_plan();
        let e = efforts(&p, &plain_baseline(&p), &eng);
        let s = e.iter().find(|x| x.lever == Lever::Sharding);
        assert_eq!(s.map(|x| x.person_weeks), Some(3.0));
    }

    #[test]
    fn hardware_levers_are_infrastructure() {
        let mut p = example_plan();
        p.hardware.cxl = Some(CxlExpansion {
            devices_per_node: 4,
            device: CxlChoice::Preset(crate::catalog::CxlId::ALL[0]),
        });
        let e = plain(&p);
        assert!(e.iter().any(|x| x.lever == Lever::CxlExpansion));
        assert_eq!(migration_class(&e), MigrationClass::InfrastructureChange);

        let base = example_plan();
        let mut h200 = example_plan();
        h200.hardware.gpu = GpuChoice::Preset(GpuId::H200Sxm);
        let e = efforts(&h200, &base, &Engineering::default());
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].lever, Lever::GpuKind);
    }

    #[test]
    fn families() {
        let base = example_plan();
        let mut hw = base.clone();
        hw.hardware.gpu = GpuChoice::Preset(GpuId::H200Sxm);
        assert_eq!(family(&hw, &base), PlanFamily::Hardware);
        let mut sw = base.clone();
        sw.levers.sharding = Sharding::Zero3;
        assert_eq!(family(&sw, &base), PlanFamily::Algorithmic);
        let mut both = hw.clone();
        both.levers.sharding = Sharding::Zero3;
        assert_eq!(family(&both, &base), PlanFamily::Hybrid);
        // More GPUs with DP following them is a hardware change only.
        let mut wider = base.clone();
        wider.hardware.gpus = 16;
        wider.levers.parallel.dp = 16;
        assert_eq!(family(&wider, &base), PlanFamily::Hardware);
        // Economics and names are not part of the comparison.
        let mut renamed = base.clone();
        renamed.name = "other".into();
        assert_eq!(family(&renamed, &base), PlanFamily::Baseline);
    }

    #[test]
    fn distillation_is_model_code() {
        let mut p = example_plan();
        p.distillation = Some(Distillation {
            student: ModelChoice::Preset(ModelId::Llama2_7b),
            tokens: 1e9,
        });
        let e = plain(&p);
        assert!(e
            .iter()
            .any(|x| x.lever == Lever::Distillation && x.class == MigrationClass::ModelCodeChange));
    }

    /// gpt-oss served as it ships (MXFP4 experts) costs no quantization
    /// effort (its checklist: `tests/moe.rs`); quantizing its
    /// BF16 attention too is still a change, and training it is unchanged
    /// (its baseline trains in the plain formats).
    #[test]
    fn a_checkpoint_served_as_it_ships_quantizes_nothing() {
        let mut p = crate::examples::example_serving_plan();
        p.set_preset_model(ModelId::GptOss120b);
        assert_eq!(p.levers.precision.experts, Some(Precision::Mxfp4));
        let e = plain(&p);
        assert!(
            e.iter().all(|x| x.lever != Lever::WeightQuantization),
            "{e:?}"
        );
        p.levers.precision.weights = Precision::Int4 { group_size: 128 };
        assert!(plain(&p)
            .iter()
            .any(|x| x.lever == Lever::WeightQuantization));
        // A Llama has no shipped formats: its INT4 is a quantization.
        let mut q = crate::examples::example_serving_plan();
        q.levers.precision.weights = Precision::Int4 { group_size: 128 };
        assert!(plain(&q)
            .iter()
            .any(|x| x.lever == Lever::WeightQuantization));
    }

    #[test]
    fn serving_quantization_is_configuration() {
        let mut p = example_plan();
        p.levers = Levers::default();
        p.levers.parallel.dp = 8;
        p.levers.precision.weights = Precision::Int4 { group_size: 128 };
        let e = plain(&p);
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].lever, Lever::WeightQuantization);
        assert_eq!(e[0].class, MigrationClass::Configuration);
    }
}
