//! Failures and checkpoints of a training plan: how big a checkpoint is and
//! where its states live, how long it takes to write and to restore, how
//! often the cluster is interrupted, how often to checkpoint, and how much
//! of the run that leaves for useful work.
//!
//! - **Size.** A checkpoint holds each model state once: the working
//!   weights, the master weights and the optimizer moments (gradients and
//!   FP8 weight copies are rebuilt, not saved); LoRA and QLoRA save only the
//!   adapters, and a restore also reads the frozen base. The unique total is
//!   the plan's states on one unsharded device (the plan evaluated with no
//!   parallelism, sharding or offload); what each rank holds is the plan's
//!   own breakdown, so ZeRO/FSDP stages, offload and CXL or pooled tiers show
//!   in the per-rank size and in where the bytes come from.
//! - **Who writes what.** [`SaveLayout::Balanced`] spreads the unique bytes
//!   evenly over the ranks, as PyTorch Distributed Checkpoint does (each
//!   rank saves its local shards, replicated tensors once) with Megatron-Core's
//!   fully parallel save strategy (`FullyParallelSaveStrategyWrapper`).
//!   [`SaveLayout::OwnShards`] has every rank write what it holds, replicas
//!   included: the slowest rank writes its whole share.
//! - **Time.** A save first stages the states held in HBM to host memory
//!   over the host link (PyTorch DCP's `async_save` reports this as its
//!   "staging" future) and reads NVMe-held states, then persists to storage
//!   (its "upload" future) at the lesser of the storage system's aggregate
//!   bandwidth and each node's link to it. A blocking save stalls training
//!   for both; an asynchronous one for the staging only, but must finish
//!   persisting before the next save. A restore relaunches the job
//!   (`restart_overhead`), reads the checkpoint and copies it to the GPUs.
//! - **Interruptions.** Each GPU fails at a constant rate, so the cluster's
//!   mean time between interruptions is 1 / (rate × GPUs).
//! - **Interval.** Young's first-order optimum √(2δM) (J. W. Young, "A first
//!   order approximation to the optimum checkpoint interval", CACM 17(9),
//!   1974), Daly's higher-order estimate √(2δM)·[1 + ⅓√(δ/2M) + ⅑(δ/2M)] − δ
//!   for δ < 2M, else M (J. T. Daly, "A higher order estimate of the optimum
//!   checkpoint interval for restart dumps", Future Generation Computer
//!   Systems 22(3), 2006), and the exact minimum of Daly's complete model of
//!   the wall time, T_w(τ) = M·e^{R/M}·(e^{(τ+δ)/M} − 1)·T_s/τ, which is the
//!   interval used. Setting dT_w/dτ = 0 gives (1 − x)·eˣ = e^{−δ/M} for
//!   x = τ/M, that is ln(1 − x) + x + δ/M = 0, one root in (0, 1) (our
//!   derivation; it equals M·(1 + W₀(−e^{−1−δ/M})) with Lambert's W, the
//!   function Daly's paper names among its keywords).
//! - **Goodput** is T_s/T_w at that interval: τ / (M·e^{R/M}·(e^{(τ+δ)/M} − 1)).
//!   It counts checkpoint stalls, work lost since the last checkpoint and
//!   restarts. Lost GPU-hours per day are GPUs × 24 h × (1 − goodput).

use crate::catalog::{self, Provenance};
use crate::diagnostics::{Diagnostic, DiagnosticKind, Severity};
use crate::evaluate::evaluate;
use crate::hardware::GpuChoice;
use crate::plan::{Offload, Parallelism, Placement, Plan, Sharding, Tier, TrainingKind, Workload};
use crate::report::{ItemKind, Report, TimeReport};
use crate::units::{ByteRate, Bytes, Frequency, GpuHours, Seconds};
use serde::{Deserialize, Serialize};

/// The least failure rate per GPU taken, per second: about one
/// interruption in 30 million years. Below it the mean time between the
/// job's interruptions (its inverse) could overflow to infinity.
pub const MIN_FAILURE_RATE: f64 = 1e-15;

/// The most failure rate per GPU taken, per second: one interruption a
/// second.
pub const MAX_FAILURE_RATE: f64 = 1.0;

/// Unexpected interruptions per GPU-hour in the Llama 3 405B pre-training
/// run: 419 unexpected interruptions in a 54-day snapshot on 16,384 H100s
/// (Llama Team, "The Llama 3 Herd of Models", arXiv:2407.21783, §3.3.4:
/// 466 interruptions, 47 of them planned; as quoted by DatacenterDynamics,
/// July 2024, "one failure every three hours").
pub fn llama3_failure_rate() -> Frequency {
    Frequency::per_hour(419.0 / (16_384.0 * 54.0 * 24.0))
}

/// Sustained checkpoint bandwidth per GPU of the Llama 3 cluster: Meta's
/// Tectonic file system sustains 2 TB/s (peak 7 TB/s) for up to 16,384
/// GPUs (arXiv:2407.21783 §3.3.1, as summarised in public paper notes),
/// so 2 TB/s ÷ 16,384 ≈ 122 MB/s per GPU. The default aggregate bandwidth
/// is this share times the plan's GPUs.
pub fn storage_share_per_gpu() -> ByteRate {
    ByteRate::from_tb_per_s(2.0) / 16_384.0
}

/// One 400 Gb/s storage port per node (50 GB/s): an assumption in the
/// range of DGX-class nodes' storage NICs; set your own.
pub fn default_node_bandwidth() -> ByteRate {
    ByteRate::from_gb_per_s(50.0)
}

/// Ten minutes to relaunch after an interruption (reschedule, start
/// processes, build communicators, restart the data loader), before the
/// checkpoint is read: an assumption, the restart time of Daly's 2006
/// examples (Figs. 3–5).
pub fn default_restart_overhead() -> Seconds {
    Seconds::from_secs(600.0)
}

/// Where defaults come from, for the report.
pub const DEFAULT_SOURCES: [(&str, &str, Provenance); 4] = [
    (
        "failure_rate",
        "Llama 3 405B: 419 unexpected interruptions in 54 days on 16,384 H100s (arXiv:2407.21783 §3.3.4)",
        Provenance::Secondary,
    ),
    (
        "storage_bandwidth",
        "Llama 3 cluster: Tectonic sustains 2 TB/s for 16,384 GPUs, so 122 MB/s per GPU (arXiv:2407.21783 §3.3.1)",
        Provenance::Computed,
    ),
    (
        "node_bandwidth",
        "one 400 Gb/s storage port per node",
        Provenance::Assumed,
    ),
    (
        "restart_overhead",
        "10 minutes, the restart time of Daly 2006's examples",
        Provenance::Assumed,
    ),
];

/// Whether a save stalls training until it is on storage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum SaveMode {
    /// Training waits for staging and persisting (`torch.distributed.checkpoint.save`).
    #[default]
    Blocking,
    /// Training waits for staging only; persisting runs in the background
    /// (`torch.distributed.checkpoint.async_save`, Megatron `--async-save`).
    Async,
}

/// Which rank writes which bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum SaveLayout {
    /// Replicas deduplicated and spread: each rank writes total / GPUs.
    #[default]
    Balanced,
    /// Each rank writes what it holds; the slowest writes its whole share.
    OwnShards,
}

/// Storage and failure settings; every field has a sourced or assumed
/// default (see [`DEFAULT_SOURCES`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CheckpointSettings {
    /// Aggregate write and read bandwidth of the checkpoint storage
    /// (default: [`storage_share_per_gpu`] × GPUs).
    #[serde(default)]
    pub storage_bandwidth: Option<ByteRate>,
    /// Each node's bandwidth to the storage (default 50 GB/s).
    #[serde(default)]
    pub node_bandwidth: Option<ByteRate>,
    /// Interruptions per GPU (default: the Llama 3 run's).
    #[serde(default)]
    pub failure_rate: Option<Frequency>,
    /// Time to relaunch before reading the checkpoint (default 10 min).
    #[serde(default)]
    pub restart_overhead: Option<Seconds>,
    /// Blocking or asynchronous saves.
    #[serde(default)]
    pub mode: SaveMode,
    /// Who writes what.
    #[serde(default)]
    pub layout: SaveLayout,
}

/// Unique bytes of one checkpoint, by state.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CheckpointSize {
    /// Working weights (0 for LoRA/QLoRA, whose base is frozen).
    pub weights: Bytes,
    /// Master weights.
    pub master: Bytes,
    /// Optimizer moments.
    pub optimizer: Bytes,
    /// LoRA adapters with their optimizer states (and gradients: an upper
    /// bound).
    pub adapters: Bytes,
    /// All of it.
    pub total: Bytes,
}

/// How bytes held in a tier reach storage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum WriteStep {
    /// Copied to host memory over the host link, then written.
    StageThroughHost,
    /// Written from host memory, a CXL expander or a pool as they are.
    Direct,
    /// Read from local NVMe, then written.
    ReadFromNvme,
}

/// Bytes of a rank's checkpoint share held in one tier.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TierShare {
    /// The tier.
    pub tier: Tier,
    /// State bytes the rank holds there.
    pub held: Bytes,
    /// Bytes it writes from there.
    pub written: Bytes,
    /// How they reach storage.
    pub step: WriteStep,
}

/// Which limit sets the persist time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum StorageBound {
    /// The storage system's aggregate bandwidth.
    Aggregate,
    /// A node's link to storage.
    PerNode,
}

/// The checkpoint and failure figures of a training plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CheckpointReport {
    /// Plan name.
    pub plan: String,
    /// GPUs of the job.
    pub gpus: u32,
    /// Nodes of the job.
    pub nodes: u32,
    /// Unique bytes of one checkpoint.
    pub size: CheckpointSize,
    /// Bytes a restore reads (the checkpoint, plus a frozen base).
    pub restore_bytes: Bytes,
    /// Model-state bytes the most loaded rank holds (as ZeRO/FSDP and
    /// offload place them).
    pub held_per_rank: Bytes,
    /// Bytes the slowest rank writes.
    pub written_per_rank: Bytes,
    /// Bytes the busiest node writes.
    pub written_per_node: Bytes,
    /// Where the rank's share lives and how it reaches storage.
    pub tiers: Vec<TierShare>,
    /// Aggregate storage bandwidth used.
    pub storage_bandwidth: ByteRate,
    /// Node bandwidth used.
    pub node_bandwidth: ByteRate,
    /// Blocking or asynchronous.
    pub mode: SaveMode,
    /// Who writes what.
    pub layout: SaveLayout,
    /// Staging: HBM-held bytes to host, NVMe-held bytes read.
    pub stage: Seconds,
    /// Persisting to storage.
    pub persist: Seconds,
    /// Which limit sets `persist`.
    pub bound: StorageBound,
    /// δ: how long training stalls per checkpoint.
    pub stall: Seconds,
    /// R: relaunch, read and copy back after an interruption.
    pub restore: Seconds,
    /// Interruptions per GPU.
    pub failure_rate: Frequency,
    /// M: the job's mean time between interruptions.
    pub mtbi: Seconds,
    /// Interruptions per day.
    pub interruptions_per_day: f64,
    /// Young's interval √(2δM).
    pub interval_young: Seconds,
    /// Daly's higher-order estimate.
    pub interval_daly: Seconds,
    /// The interval used: the optimum of Daly's model, no shorter than an
    /// asynchronous persist.
    pub interval: Seconds,
    /// Expected fraction of wall time spent on useful work, 0..=1.
    pub goodput: f64,
    /// GPU-hours lost per day to checkpoints, lost work and restarts.
    pub lost_gpu_hours_per_day: GpuHours,
    /// Steps between checkpoints at the plan's step time.
    pub steps_per_interval: Option<f64>,
    /// Time to train the plan's tokens without failures.
    pub time_to_train: Option<Seconds>,
    /// The same with failures and checkpoints (÷ goodput).
    pub time_to_train_with_failures: Option<Seconds>,
    /// Problems and warnings.
    pub diagnostics: Vec<Diagnostic>,
}

impl CheckpointReport {
    /// The report as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The figures of this report that change with the failure rate.
    pub fn rate_point(&self) -> RatePoint {
        RatePoint {
            failure_rate: self.failure_rate,
            mtbi: self.mtbi,
            interval: self.interval,
            interval_young: self.interval_young,
            interval_daly: self.interval_daly,
            goodput: self.goodput,
            lost_gpu_hours_per_day: self.lost_gpu_hours_per_day,
        }
    }
}

/// Young's first-order optimum interval, √(2δM).
pub fn young_interval(stall: Seconds, mtbi: Seconds) -> Seconds {
    Seconds::from_secs((2.0 * stall.as_secs() * mtbi.as_secs()).sqrt())
}

/// Daly's higher-order estimate: √(2δM)·[1 + ⅓√(δ/2M) + ⅑(δ/2M)] − δ for
/// δ < 2M, else M (Daly 2006, the perturbation solution; his Figs. 3–5
/// give 117, 57 and 9.1 min for δ = 5 min, R = 10 min and M = 24 h, 6 h and
/// 15 min).
pub fn daly_interval(stall: Seconds, mtbi: Seconds) -> Seconds {
    let (d, m) = (stall.as_secs(), mtbi.as_secs());
    if d >= 2.0 * m {
        return mtbi;
    }
    let r = d / (2.0 * m);
    Seconds::from_secs((2.0 * d * m).sqrt() * (1.0 + r.sqrt() / 3.0 + r / 9.0) - d)
}

/// The interval that minimises Daly's complete wall-time model: M·x with
/// ln(1 − x) + x + δ/M = 0 (see the module documentation). The root is
/// bracketed in (0, 1) and found by safeguarded Newton steps.
pub fn optimal_interval(stall: Seconds, mtbi: Seconds) -> Seconds {
    let (d, m) = (stall.as_secs(), mtbi.as_secs());
    if !(d > 0.0 && m > 0.0 && m.is_finite()) {
        return Seconds::ZERO;
    }
    let a = d / m;
    // h is decreasing on (0, 1), h(0) = a > 0, h → −∞ at 1.
    let h = |x: f64| (-x).ln_1p() + x + a;
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    let mut x = (2.0 * a).sqrt().min(0.5);
    for _ in 0..200 {
        let hx = h(x);
        if hx > 0.0 {
            lo = x;
        } else {
            hi = x;
        }
        let slope = -x / (1.0 - x);
        let mut next = x - hx / slope;
        if !(next > lo && next < hi) {
            next = 0.5 * (lo + hi);
        }
        if (next - x).abs() <= 1e-15 * x {
            x = next;
            break;
        }
        x = next;
    }
    Seconds::from_secs(m * x)
}

/// Daly's expected useful fraction of wall time at interval τ:
/// τ / (M·e^{R/M}·(e^{(τ+δ)/M} − 1)).
pub fn goodput(interval: Seconds, stall: Seconds, restore: Seconds, mtbi: Seconds) -> f64 {
    let (t, d, r, m) = (
        interval.as_secs(),
        stall.as_secs(),
        restore.as_secs(),
        mtbi.as_secs(),
    );
    if m.is_nan() || m <= 0.0 {
        return 0.0;
    }
    if !m.is_finite() {
        return 1.0;
    }
    let restart = (-r / m).exp();
    if t + d <= 0.0 {
        return restart;
    }
    let g = t / (m * ((t + d) / m).exp_m1()) * restart;
    if g.is_finite() {
        g.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// The plan with no parallelism, sharding or offload on one GPU: its single
/// device holds every state once.
fn unsharded(plan: &Plan) -> Plan {
    let mut p = plan.clone();
    p.hardware.gpus = 1;
    p.hardware.cxl = None;
    p.hardware.pool = None;
    p.levers.parallel = Parallelism {
        micro_batch: 1,
        ..Parallelism::default()
    };
    p.levers.sharding = Sharding::None;
    p.levers.shard_group = None;
    p.levers.offload = Offload::default();
    p.levers.placement = Placement::Manual;
    p.levers.memory_cap = None;
    if let Workload::Training(t) = &mut p.workload {
        t.global_batch = 1;
    }
    p
}

fn sum_kind(r: &Report, kind: ItemKind) -> Bytes {
    r.devices.first().map_or(Bytes::ZERO, |d| d.of_kind(kind))
}

fn positive_rate(
    v: Option<ByteRate>,
    default: ByteRate,
    field: &str,
    diags: &mut Vec<Diagnostic>,
) -> ByteRate {
    match v {
        Some(r) if r.base() > 0.0 && r.is_finite() => r,
        Some(_) => {
            diags.push(Diagnostic::error(DiagnosticKind::InvalidValue {
                field: field.into(),
                problem: "must be a positive bandwidth; the default is used".into(),
            }));
            default
        }
        None => default,
    }
}

/// The checkpoint and failure figures of a training plan (see the module
/// documentation). Total: a serving plan or bad settings come back with
/// diagnostics and the defaults in their place.
pub fn checkpoint(plan: &Plan, settings: &CheckpointSettings) -> CheckpointReport {
    let report = evaluate(plan);
    let (mut diagnostics, kind) = plan_kind(plan, &report);
    let gpus = plan.hardware.gpus.max(1);
    let per_node = plan.hardware.gpus_per_node.clamp(1, gpus);
    let nodes = gpus.div_ceil(per_node);
    let (size, restore_bytes) = checkpoint_size(plan, kind);
    let share = rank_share(&report, kind, settings.layout, size.total, gpus, per_node);
    let bandwidths = bandwidths(plan, settings, gpus, per_node, &mut diagnostics);
    let save = save_times(&share, size.total, &bandwidths, settings.mode);
    let restore = restore_time(
        settings,
        restore_bytes,
        gpus,
        per_node,
        &bandwidths,
        &mut diagnostics,
    );
    let rate = failure_rate(settings, &mut diagnostics);
    let mtbi = (rate * f64::from(gpus)).mean_interval();
    let step = match &report.time {
        TimeReport::Training(t) if t.step.base() > 0.0 && t.step.is_finite() => Some(t.step),
        _ => None,
    };
    let rework = rework_restore(restore, &save, settings.mode);
    let intervals = intervals(&save, settings.mode, mtbi, step, rework, &mut diagnostics);
    let good = goodput(intervals.used, save.stall, rework, mtbi);
    if kind.training && good <= 0.0 {
        diagnostics.push(Diagnostic::error(DiagnosticKind::NoProgress));
    } else if kind.training && good < 0.5 {
        diagnostics.push(Diagnostic::warning(DiagnosticKind::LowGoodput {
            goodput: good,
        }));
    }
    let (steps_per_interval, time_to_train) = match &report.time {
        TimeReport::Training(t) => (
            (t.step.base() > 0.0).then(|| intervals.used / t.step),
            t.time_to_train,
        ),
        TimeReport::Inference(_) => (None, None),
    };
    CheckpointReport {
        plan: plan.name.clone(),
        gpus,
        nodes,
        size,
        restore_bytes,
        held_per_rank: share.held_per_rank,
        written_per_rank: share.written_per_rank,
        written_per_node: share.written_per_node,
        tiers: share.tiers,
        storage_bandwidth: bandwidths.storage,
        node_bandwidth: bandwidths.node,
        mode: settings.mode,
        layout: settings.layout,
        stage: save.stage,
        persist: save.persist,
        bound: save.bound,
        stall: save.stall,
        restore,
        failure_rate: rate,
        mtbi,
        interruptions_per_day: 86_400.0 / mtbi.as_secs(),
        interval_young: intervals.young,
        interval_daly: intervals.daly,
        interval: intervals.used,
        goodput: good,
        lost_gpu_hours_per_day: GpuHours::new(f64::from(gpus) * 24.0 * (1.0 - good)),
        steps_per_interval,
        time_to_train,
        // No finite time when the run cannot progress (the diagnostic says why).
        time_to_train_with_failures: time_to_train.filter(|_| good > 0.0).map(|t| t / good),
        diagnostics,
    }
}

/// What kind of training a plan is, as far as a checkpoint cares.
#[derive(Debug, Clone, Copy)]
struct PlanKind {
    /// A training plan (a serving plan has no checkpoint).
    training: bool,
    /// LoRA or QLoRA: only the adapters are saved.
    lora: bool,
}

/// The plan's own errors, a refusal of a serving plan, and its kind.
fn plan_kind(plan: &Plan, report: &Report) -> (Vec<Diagnostic>, PlanKind) {
    let mut diagnostics: Vec<Diagnostic> = report
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .cloned()
        .collect();
    let lora = match &plan.workload {
        Workload::Training(t) => matches!(t.kind, TrainingKind::Lora(_) | TrainingKind::Qlora(_)),
        Workload::Inference(_) => {
            diagnostics.push(Diagnostic::error(DiagnosticKind::NotATrainingPlan));
            false
        }
    };
    let training = matches!(plan.workload, Workload::Training(_));
    (diagnostics, PlanKind { training, lora })
}

/// The unique bytes of one checkpoint, and the bytes a restore reads (the
/// checkpoint plus a frozen LoRA base).
fn checkpoint_size(plan: &Plan, kind: PlanKind) -> (CheckpointSize, Bytes) {
    let flat = evaluate(&unsharded(plan));
    let weights_all = sum_kind(&flat, ItemKind::Weights);
    let size = if kind.training {
        let weights = if kind.lora { Bytes::ZERO } else { weights_all };
        let master = sum_kind(&flat, ItemKind::MasterWeights);
        let optimizer = sum_kind(&flat, ItemKind::OptimizerStates);
        let adapters = sum_kind(&flat, ItemKind::Adapters);
        CheckpointSize {
            weights,
            master,
            optimizer,
            adapters,
            total: weights + master + optimizer + adapters,
        }
    } else {
        CheckpointSize {
            weights: Bytes::ZERO,
            master: Bytes::ZERO,
            optimizer: Bytes::ZERO,
            adapters: Bytes::ZERO,
            total: Bytes::ZERO,
        }
    };
    let restore_bytes = size.total + if kind.lora { weights_all } else { Bytes::ZERO };
    (size, restore_bytes)
}

/// What the most loaded rank holds and writes, and from which tiers.
struct RankShare {
    held_per_rank: Bytes,
    written_per_rank: Bytes,
    written_per_node: Bytes,
    tiers: Vec<TierShare>,
}

/// The most loaded rank's saved states by tier, what it writes under the
/// layout, and how each tier's bytes reach storage.
fn rank_share(
    report: &Report,
    kind: PlanKind,
    layout: SaveLayout,
    total: Bytes,
    gpus: u32,
    per_node: u32,
) -> RankShare {
    let saved = |k: ItemKind| match k {
        ItemKind::Weights => !kind.lora,
        ItemKind::MasterWeights | ItemKind::OptimizerStates | ItemKind::Adapters => true,
        _ => false,
    };
    let mut held_by_tier = [Bytes::ZERO; 4];
    if kind.training {
        if let Some(d) = report.binding_device() {
            for i in d.items.iter().filter(|i| saved(i.kind)) {
                let t = Tier::ALL.iter().position(|&t| t == i.tier).unwrap_or(0);
                held_by_tier[t] += i.bytes;
            }
        }
    }
    let held_per_rank: Bytes = held_by_tier.iter().copied().sum();
    let written_per_rank = match layout {
        SaveLayout::Balanced => total / f64::from(gpus),
        SaveLayout::OwnShards => held_per_rank.min(total),
    };
    let written_per_node = written_per_rank * f64::from(per_node);
    let tiers: Vec<TierShare> = Tier::ALL
        .iter()
        .zip(held_by_tier)
        .filter(|(_, held)| held.base() > 0.0)
        .map(|(&tier, held)| TierShare {
            tier,
            held,
            written: if held_per_rank.base() > 0.0 {
                written_per_rank * (held / held_per_rank)
            } else {
                Bytes::ZERO
            },
            step: match tier {
                Tier::Hbm => WriteStep::StageThroughHost,
                Tier::Nvme => WriteStep::ReadFromNvme,
                Tier::Cxl | Tier::HostDram => WriteStep::Direct,
            },
        })
        .collect();
    RankShare {
        held_per_rank,
        written_per_rank,
        written_per_node,
        tiers,
    }
}

/// The bandwidths of the write and read paths.
struct Bandwidths {
    /// Aggregate storage bandwidth.
    storage: ByteRate,
    /// A node's link to storage.
    node: ByteRate,
    /// A GPU's host link, at the plan's efficiency.
    host_link: ByteRate,
    /// A rank's share of its node's NVMe bandwidth.
    nvme_per_rank: ByteRate,
}

/// Storage and node bandwidths from the settings (defaults in place of
/// bad values, with a diagnostic each), and the host link and NVMe share.
fn bandwidths(
    plan: &Plan,
    settings: &CheckpointSettings,
    gpus: u32,
    per_node: u32,
    diagnostics: &mut Vec<Diagnostic>,
) -> Bandwidths {
    let storage = positive_rate(
        settings.storage_bandwidth,
        storage_share_per_gpu() * f64::from(gpus),
        "storage_bandwidth",
        diagnostics,
    );
    let node = positive_rate(
        settings.node_bandwidth,
        default_node_bandwidth(),
        "node_bandwidth",
        diagnostics,
    );
    let link = match &plan.hardware.gpu {
        GpuChoice::Preset(id) => catalog::gpu(*id).spec.host_link,
        GpuChoice::Custom(g) => g.spec.host_link,
    };
    let eff = plan.efficiency_in_force().host_link.clamp(0.01, 1.0);
    Bandwidths {
        storage,
        node,
        host_link: catalog::link(link).per_direction * eff,
        nvme_per_rank: plan.hardware.nvme_bandwidth_per_node / f64::from(per_node),
    }
}

/// The times of one save.
struct SaveTimes {
    /// Staging: HBM-held bytes to host, NVMe-held bytes read.
    stage: Seconds,
    /// Persisting to storage.
    persist: Seconds,
    /// Which limit sets `persist`.
    bound: StorageBound,
    /// How long training stalls.
    stall: Seconds,
}

/// Staging, persisting and the stall of one save.
///
/// A blocking save stages what the rank writes. An asynchronous one must
/// snapshot everything the rank holds before the next optimizer step
/// changes it: PyTorch DCP's `async_save` copies the rank's whole local
/// state dict to CPU memory before planning which replicas each rank
/// writes, so its staging moves the held bytes, not the written ones.
fn save_times(share: &RankShare, total: Bytes, bw: &Bandwidths, mode: SaveMode) -> SaveTimes {
    let from = |tier: Tier| {
        share
            .tiers
            .iter()
            .filter(|t| t.tier == tier)
            .map(|t| match mode {
                SaveMode::Blocking => t.written,
                SaveMode::Async => t.held,
            })
            .sum::<Bytes>()
    };
    let stage_one = |hbm: Bytes, nvme: Bytes| {
        let mut s = hbm / bw.host_link;
        if bw.nvme_per_rank.base() > 0.0 {
            s += nvme / bw.nvme_per_rank;
        }
        s
    };
    let stage = stage_one(from(Tier::Hbm), from(Tier::Nvme));
    let by_total = total / bw.storage;
    let by_node = share.written_per_node / bw.node;
    let (persist, bound) = if by_node.base() > by_total.base() {
        (by_node, StorageBound::PerNode)
    } else {
        (by_total, StorageBound::Aggregate)
    };
    let stall = match mode {
        SaveMode::Blocking => stage + persist,
        SaveMode::Async => stage,
    };
    SaveTimes {
        stage,
        persist,
        bound,
        stall,
    }
}

/// R: relaunch (the settings' overhead, or the default in place of a bad
/// one), read the checkpoint from storage and copy it to the GPUs.
fn restore_time(
    settings: &CheckpointSettings,
    restore_bytes: Bytes,
    gpus: u32,
    per_node: u32,
    bw: &Bandwidths,
    diagnostics: &mut Vec<Diagnostic>,
) -> Seconds {
    let restart = match settings.restart_overhead {
        Some(s) if s.base() >= 0.0 && s.is_finite() => s,
        Some(_) => {
            diagnostics.push(Diagnostic::error(DiagnosticKind::InvalidValue {
                field: "restart_overhead".into(),
                problem: "must be zero or more; the default is used".into(),
            }));
            default_restart_overhead()
        }
        None => default_restart_overhead(),
    };
    let restore_per_rank = restore_bytes / f64::from(gpus);
    let read = (restore_bytes / bw.storage).max(restore_per_rank * f64::from(per_node) / bw.node);
    restart + read + restore_per_rank / bw.host_link
}

/// The settings' failure rate, or the Llama 3 default in place of a bad one.
fn failure_rate(settings: &CheckpointSettings, diagnostics: &mut Vec<Diagnostic>) -> Frequency {
    match settings.failure_rate {
        Some(f) if (MIN_FAILURE_RATE..=MAX_FAILURE_RATE).contains(&f.base()) => f,
        Some(_) => {
            diagnostics.push(Diagnostic::error(DiagnosticKind::InvalidValue {
                field: "failure_rate".into(),
                problem: "must be a rate per GPU between one interruption in 30 million \
                          years and one a second; the Llama 3 default is used"
                    .into(),
            }));
            llama3_failure_rate()
        }
        None => llama3_failure_rate(),
    }
}

/// Young's, Daly's and the interval used.
struct Intervals {
    young: Seconds,
    daly: Seconds,
    used: Seconds,
}

/// What a failure costs beyond the lost segment, as Daly's restart term.
/// An asynchronous checkpoint is durable only once persisted: a failure in
/// the `persist` seconds after it was taken falls back one interval more,
/// which costs `persist` of extra rework per failure on average (a failure
/// lands in that window with probability persist/τ and then loses τ), so
/// the persist time joins the restart.
fn rework_restore(restore: Seconds, save: &SaveTimes, mode: SaveMode) -> Seconds {
    match mode {
        SaveMode::Blocking => restore,
        SaveMode::Async => restore + save.persist,
    }
}

/// The intervals at the stall and MTBI. The one used is the optimum of
/// Daly's model, taken in whole training steps (a checkpoint is taken
/// between optimizer steps, so never more often than once a step): the
/// better of the two step counts around the continuous optimum. An
/// asynchronous save must finish staging and persisting before the next
/// one starts, so its interval is at least stage + persist (with a warning
/// when that lengthens it).
fn intervals(
    save: &SaveTimes,
    mode: SaveMode,
    mtbi: Seconds,
    step: Option<Seconds>,
    rework: Seconds,
    diagnostics: &mut Vec<Diagnostic>,
) -> Intervals {
    let young = young_interval(save.stall, mtbi);
    let daly = daly_interval(save.stall, mtbi);
    let optimum = optimal_interval(save.stall, mtbi);
    let mut interval = step.map_or(optimum, |s| whole_steps(optimum, s, save, rework, mtbi));
    let busy = save.stage + save.persist;
    if mode == SaveMode::Async && busy.base() > interval.base() {
        diagnostics.push(Diagnostic::warning(
            DiagnosticKind::PersistOutlastsInterval {
                persist: busy,
                interval,
            },
        ));
        let steps = step.map_or(1.0, |s| (busy / s).ceil().max(1.0));
        interval = step.map_or(busy, |s| s * steps);
    }
    Intervals {
        young,
        daly,
        used: interval,
    }
}

/// The interval in whole steps nearest the continuous optimum: at least
/// one step, the floor or the ceiling, whichever gives more goodput.
fn whole_steps(
    optimum: Seconds,
    step: Seconds,
    save: &SaveTimes,
    rework: Seconds,
    mtbi: Seconds,
) -> Seconds {
    let k = (optimum / step).max(1.0);
    let (lo, hi) = (k.floor().max(1.0), k.ceil().max(1.0));
    let g = |n: f64| goodput(step * n, save.stall, rework, mtbi);
    if g(hi) > g(lo) {
        step * hi
    } else {
        step * lo
    }
}

/// The figures of [`checkpoint`] that change with the failure rate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RatePoint {
    /// Interruptions per GPU.
    pub failure_rate: Frequency,
    /// The job's mean time between interruptions.
    pub mtbi: Seconds,
    /// The interval used (see [`CheckpointReport::interval`]).
    pub interval: Seconds,
    /// Young's interval.
    pub interval_young: Seconds,
    /// Daly's estimate.
    pub interval_daly: Seconds,
    /// Goodput at the interval, 0..=1.
    pub goodput: f64,
    /// GPU-hours lost per day.
    pub lost_gpu_hours_per_day: GpuHours,
}

/// Points per doubling of the failure rate in [`failure_sweep`].
pub const SWEEP_STEPS_PER_DOUBLING: u32 = 2;

/// Doublings each side of the settings' rate in [`failure_sweep`].
pub const SWEEP_DOUBLINGS: u32 = 4;

/// [`checkpoint`] of `plan` at failure rates from 2^-4 to 2^4 times the
/// rate the settings give (the Llama 3 rate by default), two points per
/// doubling, lowest rate first: the data of a chart of goodput and
/// interval against the failure rate, every figure the report's own.
pub fn failure_sweep(plan: &Plan, settings: &CheckpointSettings) -> Vec<RatePoint> {
    let centre = checkpoint(plan, settings).failure_rate;
    let steps = (SWEEP_DOUBLINGS * SWEEP_STEPS_PER_DOUBLING) as i32;
    (-steps..=steps)
        .map(|k| {
            let factor = 2f64.powf(f64::from(k) / f64::from(SWEEP_STEPS_PER_DOUBLING));
            checkpoint(
                plan,
                &CheckpointSettings {
                    failure_rate: Some(centre * factor),
                    ..*settings
                },
            )
            .rate_point()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::example_plan;
    use crate::plan::OffloadTarget;

    #[test]
    fn the_failure_sweep_centres_on_the_settings_and_is_monotone() {
        let p = example_plan();
        let settings = CheckpointSettings {
            failure_rate: Some(Frequency::per_year(2.0)),
            ..CheckpointSettings::default()
        };
        let points = failure_sweep(&p, &settings);
        let n = (2 * SWEEP_DOUBLINGS * SWEEP_STEPS_PER_DOUBLING + 1) as usize;
        assert_eq!(points.len(), n);
        let one = checkpoint(&p, &settings);
        let mid = points[n / 2];
        assert!((mid.failure_rate.as_per_year() - 2.0).abs() < 1e-9);
        assert_eq!(mid.interval, one.interval);
        assert_eq!(mid.goodput, one.goodput);
        let first = points[0].failure_rate.as_per_year();
        assert!((first - 2.0 / 16.0).abs() < 1e-9, "{first}");
        for w in points.windows(2) {
            assert!(w[1].failure_rate.base() > w[0].failure_rate.base());
            assert!(w[1].goodput <= w[0].goodput);
            assert!(w[1].interval.base() <= w[0].interval.base());
        }
        // A bad rate falls back to the default, and the sweep centres there.
        let bad = CheckpointSettings {
            failure_rate: Some(Frequency::per_year(-1.0)),
            ..CheckpointSettings::default()
        };
        let mid = failure_sweep(&p, &bad)[n / 2].failure_rate;
        assert!((mid.base() / llama3_failure_rate().base() - 1.0).abs() < 1e-12);
    }

    fn mins(v: f64) -> Seconds {
        Seconds::from_secs(v * 60.0)
    }

    #[test]
    fn daly_reproduces_his_figures() {
        // Daly 2006, Figs. 3–5: δ = 5 min; M = 24 h, 6 h, 15 min.
        for (m, want) in [(24.0 * 60.0, 117.0), (6.0 * 60.0, 57.0), (15.0, 9.1)] {
            let got = daly_interval(mins(5.0), mins(m)).as_secs() / 60.0;
            assert!((got - want).abs() < 0.5, "M {m} min: {got} vs {want}");
        }
    }

    #[test]
    fn the_exact_optimum_is_near_daly_and_minimises_the_model() {
        for m in [15.0, 360.0, 1440.0] {
            let (d, mm) = (mins(5.0), mins(m));
            let t = optimal_interval(d, mm);
            let daly = daly_interval(d, mm);
            assert!((t.as_secs() / daly.as_secs() - 1.0).abs() < 0.02, "M {m}");
            let r = mins(10.0);
            let g = goodput(t, d, r, mm);
            for f in [0.9, 0.97, 1.03, 1.1] {
                assert!(goodput(t * f, d, r, mm) <= g + 1e-12, "M {m} ×{f}");
            }
        }
    }

    #[test]
    fn young_is_the_small_delta_limit() {
        let (d, m) = (Seconds::from_secs(1.0), Seconds::from_hours(100.0));
        let y = young_interval(d, m).as_secs();
        assert!((optimal_interval(d, m).as_secs() / y - 1.0).abs() < 0.01);
    }

    #[test]
    fn llama3_rate_gives_three_hours_on_16k_gpus() {
        let m = (llama3_failure_rate() * 16_384.0).mean_interval();
        assert!((m.as_hours() - 54.0 * 24.0 / 419.0).abs() < 1e-9);
        assert!(m.as_hours() > 3.0 && m.as_hours() < 3.2);
    }

    #[test]
    fn example_plan_checkpoint_is_the_unique_states() {
        // Llama 2 7B, BF16 weights, FP32 master and Adam: 14 B per parameter.
        let p = example_plan();
        let c = checkpoint(&p, &CheckpointSettings::default());
        let params = evaluate(&p).params.total;
        assert!((c.size.total.as_bytes() / params - 14.0).abs() < 1e-9);
        assert!((c.written_per_rank.as_bytes() * 8.0 - c.size.total.as_bytes()).abs() < 1.0);
        assert!(c.goodput > 0.0 && c.goodput < 1.0);
        assert!(c.interval.base() > 0.0);
        assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
        // ZeRO-1 shards master and moments: the rank holds weights whole.
        let held = c.held_per_rank.as_bytes() / params;
        assert!((held - (2.0 + 12.0 / 8.0)).abs() < 1e-9, "{held}");
    }

    #[test]
    fn offloaded_optimizer_is_written_from_host_memory() {
        let mut p = example_plan();
        p.levers.offload.optimizer = Some(OffloadTarget {
            tier: Tier::HostDram,
            fraction: 1.0,
        });
        let c = checkpoint(&p, &CheckpointSettings::default());
        let host = c.tiers.iter().find(|t| t.tier == Tier::HostDram);
        assert_eq!(host.map(|t| t.step), Some(WriteStep::Direct));
        let base = checkpoint(&example_plan(), &CheckpointSettings::default());
        assert!(c.stage.base() < base.stage.base());
    }

    #[test]
    fn lora_saves_adapters_and_restores_the_base() {
        let mut p = example_plan();
        if let Workload::Training(t) = &mut p.workload {
            t.kind = TrainingKind::Lora(crate::plan::LoraSpec {
                rank: 16,
                targets: crate::plan::LoraTargets::AllLinear,
                adapter_precision: crate::precision::Precision::Fp32,
            });
        }
        let c = checkpoint(&p, &CheckpointSettings::default());
        assert_eq!(c.size.weights, Bytes::ZERO);
        assert!(c.size.adapters.base() > 0.0);
        assert!(c.restore_bytes.base() > 10.0 * c.size.total.base());
    }

    #[test]
    fn serving_plans_are_refused() {
        let mut s = crate::tenants::example_sharing();
        let c = checkpoint(&s.jobs.remove(0).plan, &CheckpointSettings::default());
        assert!(c
            .diagnostics
            .iter()
            .any(|d| d.detail == DiagnosticKind::NotATrainingPlan));
        assert_eq!(c.size.total, Bytes::ZERO);
    }

    #[test]
    fn async_saves_stall_less_but_wait_for_storage() {
        let p = example_plan();
        let slow = CheckpointSettings {
            storage_bandwidth: Some(ByteRate::from_gb_per_s(0.01)),
            ..CheckpointSettings::default()
        };
        let blocking = checkpoint(&p, &slow);
        let a = checkpoint(
            &p,
            &CheckpointSettings {
                mode: SaveMode::Async,
                ..slow
            },
        );
        assert!(a.stall.base() < blocking.stall.base());
        assert!(a.interval.base() >= a.persist.base());
        assert!(a
            .diagnostics
            .iter()
            .any(|d| matches!(d.detail, DiagnosticKind::PersistOutlastsInterval { .. })));
    }
}
