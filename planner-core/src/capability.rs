//! What each training stack can run: which sharding modes, with which
//! parallel dimensions, and which offloads.
//!
//! A plan names its stack, or is evaluated on the mainstream one for its
//! workload. Either way its levers must be something that stack runs: the
//! time and memory models price a stack's kernels and allocator, and a
//! combination the stack refuses (or silently ignores) would be priced as
//! if it ran. The search walks only what the stack in force runs
//! (`search::walk`), and `evaluate` rejects a plan whose named stack cannot
//! run it, naming the lever.
//!
//! Each rule below cites the release it was read from (late 2025: DeepSpeed
//! v0.18.3, Megatron-Core core_v0.15.0, torchtitan v0.2.1, Accelerate
//! v1.12.0) or a later change. Where a source is silent the combination is
//! allowed: the table refuses only what a stack is documented or coded to
//! refuse, or has no switch for.

use crate::efficiency::Efficiency;
use crate::hardware::Tier;
use crate::plan::{
    Checkpointing, Levers, Offload, OffloadTarget, PipelineSchedule, Plan, Sharding, TrainingKind,
    Workload,
};
use crate::stack::TrainingStack;
use serde::{Deserialize, Serialize};

/// The levers a stack's capabilities depend on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Layout {
    /// ZeRO / FSDP mode.
    pub sharding: Sharding,
    /// Data-parallel ranks.
    pub dp: u32,
    /// Tensor-parallel degree.
    pub tp: u32,
    /// Pipeline stages.
    pub pp: u32,
    /// Context-parallel degree.
    pub cp: u32,
    /// Expert-parallel degree.
    pub ep: u32,
    /// What is offloaded, and where.
    pub offload: Offload,
    /// Activation recomputation.
    pub checkpointing: Checkpointing,
    /// Pipeline schedule.
    pub schedule: PipelineSchedule,
}

impl Layout {
    /// The layout a plan's levers state.
    pub fn of(l: &Levers) -> Layout {
        let p = &l.parallel;
        Layout {
            sharding: l.sharding,
            dp: p.dp,
            tp: p.tp,
            pp: p.pp,
            cp: p.cp,
            ep: p.ep,
            offload: l.offload,
            checkpointing: l.checkpointing,
            schedule: p.schedule,
        }
    }
}

/// Why a stack cannot run a layout, named in both languages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Unsupported {
    /// The stack has no such sharding mode.
    ShardingMode,
    /// The stack runs this sharding mode only without pipeline stages.
    ShardingWithPipeline,
    /// The stack has no pipeline parallelism.
    Pipeline,
    /// Plain data parallelism (DDP) only as the sole parallel dimension.
    PlainDataParallelAlone,
    /// The stack has no parameter offload.
    ParameterOffload,
    /// Parameters are offloaded only under ZeRO-3.
    ParameterOffloadSharding,
    /// The optimizer is offloaded only with its states sharded.
    OptimizerOffloadSharding,
    /// Optimizer states go to NVMe only under ZeRO-3.
    NvmeOptimizerOffload,
    /// FSDP's CPU offload moves parameters, gradients and optimizer states
    /// together and whole, to host memory.
    PartialCpuOffload,
    /// The stack has no gradient offload of its own.
    GradientOffload,
    /// Activation offload is not available with this layout.
    ActivationOffload,
    /// The stack has no such pipeline schedule.
    PipelineSchedule,
}

crate::lang::named!(Unsupported {
    Unsupported::ShardingMode => "sharding_mode", "this sharding mode", "该分片方式";
    Unsupported::ShardingWithPipeline => "sharding_with_pipeline", "this sharding mode with pipeline parallelism", "该分片方式与流水线并行同用";
    Unsupported::Pipeline => "pipeline", "pipeline parallelism", "流水线并行";
    Unsupported::PlainDataParallelAlone => "plain_data_parallel_alone", "plain data parallelism (DDP) beside other parallel dimensions", "纯数据并行（DDP）与其他并行维度同用";
    Unsupported::ParameterOffload => "parameter_offload", "parameter offload", "参数卸载";
    Unsupported::ParameterOffloadSharding => "parameter_offload_sharding", "parameter offload without ZeRO-3", "不用 ZeRO-3 的参数卸载";
    Unsupported::OptimizerOffloadSharding => "optimizer_offload_sharding", "optimizer offload without sharded optimizer states", "优化器状态未分片时的优化器卸载";
    Unsupported::NvmeOptimizerOffload => "nvme_optimizer_offload", "optimizer offload to NVMe without ZeRO-3", "不用 ZeRO-3 时把优化器卸载到 NVMe";
    Unsupported::PartialCpuOffload => "partial_cpu_offload", "an offload other than FSDP's (parameters, gradients and optimizer states together, whole, to host memory)", "FSDP 之外的卸载方式（FSDP 只能把参数、梯度和优化器状态一起整体卸载到主机内存）";
    Unsupported::GradientOffload => "gradient_offload", "gradient offload", "梯度卸载";
    Unsupported::ActivationOffload => "activation_offload", "activation offload with this layout", "该布局下的激活卸载";
    Unsupported::PipelineSchedule => "pipeline_schedule", "this pipeline schedule", "该流水线调度";
});

impl Unsupported {
    /// Every reason, in display order.
    pub const ALL: [Unsupported; 12] = [
        Unsupported::ShardingMode,
        Unsupported::ShardingWithPipeline,
        Unsupported::Pipeline,
        Unsupported::PlainDataParallelAlone,
        Unsupported::ParameterOffload,
        Unsupported::ParameterOffloadSharding,
        Unsupported::OptimizerOffloadSharding,
        Unsupported::NvmeOptimizerOffload,
        Unsupported::PartialCpuOffload,
        Unsupported::GradientOffload,
        Unsupported::ActivationOffload,
        Unsupported::PipelineSchedule,
    ];

    /// The plan field that states the refused lever.
    pub fn field(self) -> &'static str {
        match self {
            Unsupported::ShardingMode | Unsupported::ShardingWithPipeline => "levers.sharding",
            Unsupported::Pipeline => "levers.parallel.pp",
            Unsupported::PlainDataParallelAlone => "levers.sharding",
            Unsupported::ParameterOffload | Unsupported::ParameterOffloadSharding => {
                "levers.offload.parameters"
            }
            Unsupported::OptimizerOffloadSharding | Unsupported::NvmeOptimizerOffload => {
                "levers.offload.optimizer"
            }
            Unsupported::PartialCpuOffload => "levers.offload",
            Unsupported::GradientOffload => "levers.offload.gradients",
            Unsupported::ActivationOffload => "levers.offload.activations",
            Unsupported::PipelineSchedule => "levers.parallel.schedule",
        }
    }
}

/// An offload that moves something out of HBM.
pub(crate) fn moved(t: Option<OffloadTarget>) -> Option<OffloadTarget> {
    t.filter(|t| t.tier != Tier::Hbm && t.fraction > 0.0)
}

/// Whether the optimizer states are sharded, as an optimizer offload
/// needs: a ZeRO or FSDP mode, or one data-parallel rank (where the
/// sharded optimizer is the whole one, a switch away).
fn optimizer_sharded(l: &Layout) -> bool {
    l.sharding != Sharding::None || l.dp.saturating_mul(l.cp) <= 1
}

/// Whether a sharding mode is one of PyTorch FSDP's.
fn is_fsdp(s: Sharding) -> bool {
    matches!(
        s,
        Sharding::FsdpFullShard | Sharding::FsdpShardGradOp | Sharding::FsdpShardGradOpNoSync
    )
}

/// Whether a sharding mode is one of DeepSpeed's ZeRO stages.
fn is_zero(s: Sharding) -> bool {
    matches!(s, Sharding::Zero1 | Sharding::Zero2 | Sharding::Zero3)
}

impl TrainingStack {
    /// Whether the stack runs `l`, and if not, the first reason.
    pub fn runs(self, l: &Layout) -> Result<(), Unsupported> {
        match self {
            TrainingStack::MegatronCore => megatron_core(l),
            TrainingStack::Torchtitan | TrainingStack::TorchtitanCompiled => torchtitan(l),
            TrainingStack::DeepSpeed => deepspeed(l, Pipelines::None),
            TrainingStack::MegatronDeepSpeed => deepspeed(l, Pipelines::Engine),
            TrainingStack::HfTrainer => hf_trainer(l),
        }?;
        // The schedule last: a stack without pipelines says so first.
        if l.pp > 1 && !self.has_schedule(l.schedule) {
            return Err(Unsupported::PipelineSchedule);
        }
        Ok(())
    }

    /// Whether the stack runs the pipeline schedule `s` (with pipeline
    /// stages; the notes on each stack below): only torchtitan runs
    /// DualPipeV.
    pub fn has_schedule(self, s: PipelineSchedule) -> bool {
        match s {
            PipelineSchedule::DualPipeV => matches!(
                self,
                TrainingStack::Torchtitan | TrainingStack::TorchtitanCompiled
            ),
            PipelineSchedule::OneFOneB
            | PipelineSchedule::Interleaved { .. }
            | PipelineSchedule::Gpipe => true,
        }
    }
}

/// Megatron-Core (NVIDIA/Megatron-LM core_v0.15.0):
/// - sharding: DDP, the distributed optimizer (ZeRO-1), and Megatron-FSDP
///   (`--use-megatron-fsdp`, `--data-parallel-sharding-strategy` optim /
///   optim_grads / optim_grads_params = ZeRO-1/2/3 per
///   `megatron/core/distributed/fsdp/src/README.md`); no mode keeps
///   gathered parameters from forward to backward (SHARD_GRAD_OP);
/// - Megatron-FSDP with pipeline stages is not supported in that release
///   (pipeline support for it was still an open pull request,
///   NVIDIA/Megatron-LM#6486, in August 2026);
/// - `--optimizer-cpu-offload` needs the precision-aware optimizer, which
///   needs the distributed optimizer (`arguments.py`,
///   `optimizer_config.py`), and offloads to host memory only;
/// - no parameter or gradient offload: the layer-weight offload switch is
///   passed to Transformer Engine, whose `cpu_offload.py` says weight
///   offloading is deprecated and has no effect;
/// - activation offload (`cpu_offloading`, through Transformer Engine) is
///   refused with pipeline parallelism and with recomputation
///   (`transformer_config.py`);
/// - pipeline schedules: 1F1B and interleaved 1F1B
///   (`pipeline_parallel/schedules.py`); no split-backward V schedule
///   (DualPipeV).
fn megatron_core(l: &Layout) -> Result<(), Unsupported> {
    match l.sharding {
        Sharding::None | Sharding::Zero1 => {}
        Sharding::Zero2 | Sharding::Zero3 | Sharding::FsdpFullShard => {
            if l.pp > 1 {
                return Err(Unsupported::ShardingWithPipeline);
            }
        }
        Sharding::FsdpShardGradOp | Sharding::FsdpShardGradOpNoSync => {
            return Err(Unsupported::ShardingMode)
        }
    }
    let o = &l.offload;
    if moved(o.parameters).is_some() {
        return Err(Unsupported::ParameterOffload);
    }
    if moved(o.gradients).is_some() {
        return Err(Unsupported::GradientOffload);
    }
    if let Some(t) = moved(o.optimizer) {
        if t.tier == Tier::Nvme {
            return Err(Unsupported::NvmeOptimizerOffload);
        }
        if !optimizer_sharded(l) {
            return Err(Unsupported::OptimizerOffloadSharding);
        }
    }
    if moved(o.activations).is_some() && (l.pp > 1 || l.checkpointing != Checkpointing::None) {
        return Err(Unsupported::ActivationOffload);
    }
    Ok(())
}

/// torchtitan v0.2.1 (FSDP2):
/// - sharding: FSDP2's `fully_shard` only, resharding after forward or
///   not (`reshard_after_forward` "always" / "never", and with pipeline
///   stages "default" keeps parameters gathered across micro-batches,
///   `models/llama3/infra/parallelize.py`), or hybrid; no ZeRO stages;
/// - plain DDP only as the one parallel dimension: `apply_ddp` raises
///   "DDP has not supported > 1D parallelism";
/// - CPU offload (`training.enable_cpu_offload`) passes FSDP2's
///   `CPUOffloadPolicy`: parameters, gradients and optimizer states move
///   together, whole, to host memory, and the optimizer steps on the CPU
///   (`config/job_config.py`); there is no activation offload switch;
/// - every pipeline schedule of `torch.distributed.pipelining`
///   (`parallelism.pipeline_parallel_schedule`), DualPipeV
///   (`ScheduleDualPipeV`) from the PyTorch release after 2.8.
fn torchtitan(l: &Layout) -> Result<(), Unsupported> {
    if is_zero(l.sharding) {
        return Err(Unsupported::ShardingMode);
    }
    let model_parallel = l.tp > 1 || l.pp > 1 || l.cp > 1 || l.ep > 1;
    if l.sharding == Sharding::None && l.dp > 1 && model_parallel {
        return Err(Unsupported::PlainDataParallelAlone);
    }
    fsdp_cpu_offload(l)?;
    if moved(l.offload.activations).is_some() {
        return Err(Unsupported::ActivationOffload);
    }
    Ok(())
}

/// PyTorch FSDP's CPU offload, the only one FSDP has: FSDP1's
/// `CPUOffload(offload_params=True)` and FSDP2's `CPUOffloadPolicy` both
/// keep the parameters and gradients on the CPU and step the optimizer
/// there (`torch/distributed/fsdp/api.py`), so the optimizer and the
/// parameters move together, whole, to host memory (a CXL expander is
/// host memory on a CPU-less NUMA node); without FSDP there is none.
fn fsdp_cpu_offload(l: &Layout) -> Result<(), Unsupported> {
    let o = &l.offload;
    let states = [o.optimizer, o.parameters, o.gradients];
    if states.iter().all(|t| moved(*t).is_none()) {
        return Ok(());
    }
    let whole_to_host = |t: Option<OffloadTarget>| {
        moved(t).is_some_and(|t| t.fraction >= 1.0 && matches!(t.tier, Tier::HostDram | Tier::Cxl))
    };
    let gradients_ok = moved(o.gradients).is_none() || whole_to_host(o.gradients);
    if !is_fsdp(l.sharding)
        || !whole_to_host(o.optimizer)
        || !whole_to_host(o.parameters)
        || !gradients_ok
    {
        return Err(Unsupported::PartialCpuOffload);
    }
    Ok(())
}

/// DeepSpeed v0.18.3 (`deepspeed/runtime/zero/config.py`,
/// `offload_config.py`, `docs/_pages/config-json.md`):
/// - ZeRO stages only, no FSDP modes;
/// - `offload_param` is valid only with stage 3 (stages 1 and 2 never pass
///   it to their optimizer, so it would be ignored);
/// - `offload_optimizer` is valid with stages 1–3, and to NVMe only with
///   stage 3;
/// - the pipeline engine asserts "ZeRO-2 and ZeRO-3 are incompatible with
///   pipeline parallelism" (`runtime/pipe/engine.py`), and it runs only a
///   `PipelineModule`: a Hugging Face model under DeepSpeed has no
///   pipeline stages ([`Pipelines::None`]), Megatron-DeepSpeed's models do
///   ([`Pipelines::Engine`]); the engine runs its own 1F1B
///   (`runtime/pipe/schedule.py`, `TrainSchedule`), no V schedule.
fn deepspeed(l: &Layout, pipelines: Pipelines) -> Result<(), Unsupported> {
    if is_fsdp(l.sharding) {
        return Err(Unsupported::ShardingMode);
    }
    if l.pp > 1 {
        if pipelines == Pipelines::None {
            return Err(Unsupported::Pipeline);
        }
        if matches!(l.sharding, Sharding::Zero2 | Sharding::Zero3) {
            return Err(Unsupported::ShardingWithPipeline);
        }
    }
    zero_offload(l)
}

/// Whether a DeepSpeed-driven model can be cut into pipeline stages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pipelines {
    /// A Hugging Face model: no `PipelineModule`, no stages.
    None,
    /// A `PipelineModule` under DeepSpeed's pipeline engine.
    Engine,
}

/// DeepSpeed's offload rules for a ZeRO stage (see [`deepspeed`]).
fn zero_offload(l: &Layout) -> Result<(), Unsupported> {
    let o = &l.offload;
    if moved(o.parameters).is_some() && l.sharding != Sharding::Zero3 {
        return Err(Unsupported::ParameterOffloadSharding);
    }
    if let Some(t) = moved(o.optimizer) {
        if !optimizer_sharded(l) {
            return Err(Unsupported::OptimizerOffloadSharding);
        }
        if t.tier == Tier::Nvme && l.sharding != Sharding::Zero3 {
            return Err(Unsupported::NvmeOptimizerOffload);
        }
    }
    Ok(())
}

/// The Hugging Face Trainer on Accelerate v1.12.0:
/// - no pipeline parallelism for training (`Accelerator` raises
///   NotImplementedError for a pipeline rank; `prepare_pippy` is for
///   inference);
/// - ZeRO stages through its DeepSpeed integration, with DeepSpeed's
///   offload rules; FSDP modes with FSDP's CPU offload.
fn hf_trainer(l: &Layout) -> Result<(), Unsupported> {
    if l.pp > 1 {
        return Err(Unsupported::Pipeline);
    }
    if is_fsdp(l.sharding) {
        fsdp_cpu_offload(l)
    } else {
        zero_offload(l)
    }
}

impl TrainingKind {
    /// The stack a plan of this kind that names none runs on: the first
    /// by preference that runs `l`, or the mainstream one when none does
    /// (and `evaluate` says why).
    pub fn stack_for(&self, l: &Layout) -> TrainingStack {
        self.stacks_by_preference()
            .into_iter()
            .find(|s| s.runs(l).is_ok())
            .unwrap_or_else(|| self.mainstream_stack())
    }
}

impl Plan {
    /// The training stack in force: the plan's own; or, when it names
    /// none, the mainstream one for its kind of training if that runs its
    /// levers, else the first by preference that does
    /// ([`TrainingKind::stack_for`]); `None` for serving.
    pub fn training_stack(&self) -> Option<TrainingStack> {
        match &self.workload {
            Workload::Training(t) => Some(
                self.levers
                    .training_stack
                    .unwrap_or_else(|| t.kind.stack_for(&Layout::of(&self.levers))),
            ),
            Workload::Inference(_) => None,
        }
    }

    /// The stack whose kernels run: the training stack, or for serving
    /// the one an engine's model code shares
    /// ([`crate::engine::Engine::kernel_stack`]); `None` for the serving
    /// engines' own kernels.
    pub fn kernel_stack(&self) -> Option<TrainingStack> {
        match &self.workload {
            Workload::Training(_) => self.training_stack(),
            Workload::Inference(_) => self.levers.engine.kernel_stack(),
        }
    }

    /// The efficiency knobs in force: the kernel stack's
    /// ([`Plan::kernel_stack`]), with the plan's stated knobs over them
    /// (the serving engines use [`Efficiency::default`]). Values are not
    /// range-checked here; `evaluate` checks them.
    pub fn efficiency_in_force(&self) -> Efficiency {
        let base = self
            .kernel_stack()
            .map_or_else(Efficiency::default, |s| s.profile().efficiency);
        self.efficiency.over(base)
    }
}

/// The stacks that run `l`, in display order.
pub fn stacks_that_run(l: &Layout) -> Vec<TrainingStack> {
    TrainingStack::ALL
        .into_iter()
        .filter(|s| s.runs(l).is_ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(sharding: Sharding, pp: u32) -> Layout {
        Layout {
            sharding,
            dp: 8,
            tp: 1,
            pp,
            cp: 1,
            ep: 1,
            offload: Offload::default(),
            checkpointing: Checkpointing::None,
            schedule: PipelineSchedule::OneFOneB,
        }
    }

    fn host() -> Option<OffloadTarget> {
        Some(OffloadTarget {
            tier: Tier::HostDram,
            fraction: 1.0,
        })
    }

    /// The search's GPT-3 finds that no stack runs: DeepSpeed's pipeline
    /// engine refuses ZeRO-3, and parameters leave HBM only under ZeRO-3
    /// or with FSDP's whole offload.
    #[test]
    fn documented_refusals() {
        let zero3_pp = layout(Sharding::Zero3, 4);
        assert_eq!(
            TrainingStack::MegatronDeepSpeed.runs(&zero3_pp),
            Err(Unsupported::ShardingWithPipeline)
        );
        assert_eq!(
            TrainingStack::DeepSpeed.runs(&zero3_pp),
            Err(Unsupported::Pipeline)
        );
        assert!(stacks_that_run(&zero3_pp).is_empty());
        let mut zero2_params = layout(Sharding::Zero2, 1);
        zero2_params.offload.parameters = host();
        zero2_params.offload.optimizer = host();
        assert!(stacks_that_run(&zero2_params).is_empty());
        let mut zero3_params = zero2_params;
        zero3_params.sharding = Sharding::Zero3;
        assert_eq!(
            stacks_that_run(&zero3_params),
            vec![
                TrainingStack::DeepSpeed,
                TrainingStack::HfTrainer,
                TrainingStack::MegatronDeepSpeed
            ]
        );
    }

    /// Megatron-Core runs its distributed optimizer with pipelines and its
    /// FSDP without them; torchtitan runs FSDP with pipelines.
    #[test]
    fn megatron_fsdp_without_pipelines_and_torchtitan_with_them() {
        let fsdp_pp = layout(Sharding::FsdpFullShard, 4);
        assert_eq!(
            TrainingStack::MegatronCore.runs(&fsdp_pp),
            Err(Unsupported::ShardingWithPipeline)
        );
        assert_eq!(TrainingStack::Torchtitan.runs(&fsdp_pp), Ok(()));
        assert_eq!(
            TrainingStack::MegatronCore.runs(&layout(Sharding::FsdpFullShard, 1)),
            Ok(())
        );
        assert_eq!(
            TrainingStack::MegatronCore.runs(&layout(Sharding::Zero1, 8)),
            Ok(())
        );
        let kind = TrainingKind::PreTraining;
        assert_eq!(kind.stack_for(&fsdp_pp), TrainingStack::Torchtitan);
        assert_eq!(
            kind.stack_for(&layout(Sharding::Zero1, 8)),
            TrainingStack::MegatronCore
        );
    }

    /// FSDP offloads the optimizer only with the parameters, whole, to
    /// host memory; Megatron-Core offloads the optimizer alone.
    #[test]
    fn optimizer_offload_alone() {
        let mut l = layout(Sharding::FsdpFullShard, 1);
        l.offload.optimizer = host();
        assert_eq!(
            TrainingStack::Torchtitan.runs(&l),
            Err(Unsupported::PartialCpuOffload)
        );
        assert_eq!(TrainingStack::MegatronCore.runs(&l), Ok(()));
        l.offload.parameters = host();
        assert_eq!(TrainingStack::Torchtitan.runs(&l), Ok(()));
        assert_eq!(
            TrainingStack::MegatronCore.runs(&l),
            Err(Unsupported::ParameterOffload)
        );
    }

    /// Every reason names a plan field that exists in the schema's terms.
    #[test]
    fn every_reason_names_a_lever() {
        for u in Unsupported::ALL {
            assert!(u.field().starts_with("levers."), "{u:?}");
        }
    }
}
