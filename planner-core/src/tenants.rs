//! Multi-tenant sharing: pack a set of jobs (training, fine-tuning or
//! serving plans) onto a pool of GPUs, each job in a MIG slice, under a
//! per-process memory cap, or on whole GPUs, so that no job's peak exceeds
//! what it is given.
//!
//! Two steps, both pure:
//!
//! 1. **Sizing.** Each job is evaluated with [`evaluate`] on what it could
//!    be given, smallest first, and takes the first that works:
//!    - a MIG slice is a [`GpuSpec`] scaled to the profile: memory as the
//!      profile names it (capped at its eighths of the device), compute and
//!      board power × compute slices / 7, bandwidth × memory slices / 8, no
//!      NVLink (NVIDIA's MIG user guide: instances have no GPU-to-GPU P2P);
//!      a job on more than one GPU gets whole GPUs;
//!    - a memory cap is `levers.memory_cap` (PyTorch
//!      `torch.cuda.set_per_process_memory_fraction`: "allowed memory equals
//!      total_memory * fraction"; vLLM `gpu_memory_utilization`), in whole
//!      per cent, found by bisection (memory is monotone in the cap), or the
//!      plan's own cap when it sets one;
//!    - a whole GPU is the plan as written on the pool's GPU.
//!
//!    A training job works where its verdict is `fits`. A serving job works
//!    where dynamic batching can run it at its target batch: the batch a
//!    server runs is the largest, up to what the plan asks for, that fits
//!    the memory (the report's `max_batch`) and meets the job's latency
//!    targets (the report's TTFT and TPOT, which grow with the batch, so the
//!    largest is found by bisection). The target is the job's `min_batch`,
//!    or the plan's batch. Where nothing meets the target, the job takes the
//!    largest option and runs at the batch it allows, with a warning; the
//!    throughput it keeps is reported against the job alone on a whole GPU.
//!
//! 2. **Packing** ([`pack`]): first-fit decreasing, deterministic. Jobs are
//!    taken largest first (GPUs × share of a GPU; ties keep input order) and
//!    each goes to the lowest-numbered GPU where it fits: a MIG instance at
//!    the first free start its profile allows with compute slices to spare,
//!    a cap where the caps on the GPU stay within 100 %, whole GPUs on free
//!    GPUs, in one node where one has room. First-fit decreasing is not
//!    optimal (bin packing is NP-hard) but never over-commits a slice or a
//!    GPU, which a property test checks.

use crate::catalog::{self, GpuId, MigProfile, COMPUTE_SLICES, MEMORY_SLICES};
use crate::diagnostics::{Diagnostic, DiagnosticKind, Severity};
use crate::evaluate::evaluate;
use crate::hardware::{CustomGpu, GpuChoice, GpuSpec, Hardware};
use crate::plan::{
    parse_json, Inference, Levers, ModelChoice, Parallelism, Plan, PlanParseError, Precisions,
    Training, TrainingKind, Workload, SCHEMA_VERSION,
};
use crate::precision::Precision;
use crate::report::{Report, TimeReport, Verdict};
use crate::units::{Bytes, Seconds};
use serde::{Deserialize, Serialize};

/// How jobs share a GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ShareMode {
    /// Multi-Instance GPU slices: memory and compute both partitioned.
    #[default]
    Mig,
    /// Per-process memory caps (PyTorch memory fraction, vLLM
    /// `gpu_memory_utilization`): memory partitioned, compute time-shared.
    MemoryCap,
    /// No sharing: every job gets whole GPUs (the reference to compare with).
    Exclusive,
}

/// The pool of GPUs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Pool {
    /// The GPU kind (every GPU of the pool is the same).
    pub gpu: GpuChoice,
    /// GPUs in the pool.
    pub gpus: u32,
    /// GPUs per node (default 8).
    #[serde(default = "default_per_node")]
    pub gpus_per_node: u32,
    /// How jobs share a GPU (default MIG).
    #[serde(default)]
    pub mode: ShareMode,
}

fn default_per_node() -> u32 {
    8
}

/// A serving job's latency targets; an absent target is not checked.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LatencySlo {
    /// Longest acceptable time to first token, seconds.
    #[serde(default)]
    pub max_ttft: Option<Seconds>,
    /// Longest acceptable time per output token, seconds.
    #[serde(default)]
    pub max_tpot: Option<Seconds>,
}

impl LatencySlo {
    fn met(&self, ttft: Seconds, tpot: Seconds) -> bool {
        self.max_ttft.is_none_or(|m| ttft.base() <= m.base())
            && self.max_tpot.is_none_or(|m| tpot.base() <= m.base())
    }
}

/// One tenant: a plan and, for serving, its targets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Job {
    /// Name shown in the placement.
    pub name: String,
    /// What it runs; its GPU kind is replaced by the pool's, its GPU count
    /// and levers are kept.
    pub plan: Plan,
    /// Latency targets (serving only).
    #[serde(default)]
    pub slo: LatencySlo,
    /// Smallest batch the job accepts (serving only; default: the plan's
    /// batch). Lower it to let the job take a smaller slice and run at the
    /// batch the slice allows.
    #[serde(default)]
    pub min_batch: Option<u32>,
}

/// Jobs and the pool they share: the input of [`share`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Sharing {
    /// Schema version.
    #[serde(default = "schema_version")]
    pub version: u32,
    /// The pool.
    pub pool: Pool,
    /// The jobs.
    pub jobs: Vec<Job>,
}

fn schema_version() -> u32 {
    SCHEMA_VERSION
}

impl Sharing {
    /// Parses the input from JSON; the error names the failing field.
    pub fn from_json(json: &str) -> Result<Sharing, PlanParseError> {
        parse_json(json)
    }

    /// The input as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// What a job is, for display.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum JobKind {
    /// Pre-training.
    Training,
    /// Full fine-tuning, LoRA or QLoRA.
    FineTuning,
    /// Serving.
    Serving,
}

fn job_kind(plan: &Plan) -> JobKind {
    match &plan.workload {
        Workload::Inference(_) => JobKind::Serving,
        Workload::Training(t) => match t.kind {
            TrainingKind::PreTraining => JobKind::Training,
            _ => JobKind::FineTuning,
        },
    }
}

/// What a job is given on each of its GPUs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Share {
    /// A MIG instance.
    Mig {
        /// NVIDIA's profile name (`3g.40gb`).
        profile: String,
        /// Compute slices out of 7.
        compute_slices: u32,
        /// Memory slices out of 8.
        memory_slices: u32,
    },
    /// A per-process memory cap.
    Cap {
        /// Fraction of the GPU's memory, 0..=1 (whole per cent).
        fraction: f64,
    },
    /// Whole GPUs.
    Whole,
}

impl Share {
    fn label(&self, gpus: u32) -> String {
        let each = match self {
            Share::Mig { profile, .. } => format!("a MIG {profile} slice"),
            Share::Cap { fraction } => format!("{:.0} % of a GPU", fraction * 100.0),
            Share::Whole => "a whole GPU".to_string(),
        };
        if gpus > 1 {
            format!("{gpus} × {each}")
        } else {
            each
        }
    }
}

/// What the packer places: integer sizes so that the invariants are exact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Demand {
    /// One MIG instance.
    Mig {
        /// Compute slices out of 7.
        compute: u32,
        /// Memory slices out of 8.
        memory: u32,
    },
    /// `percent` of the memory of each of `gpus` distinct GPUs.
    Cap {
        /// Whole per cent, 1..=100.
        percent: u32,
        /// GPUs.
        gpus: u32,
    },
    /// Whole GPUs.
    Whole {
        /// GPUs.
        gpus: u32,
    },
}

impl Demand {
    /// GPUs the demand spans.
    pub fn gpus(&self) -> u32 {
        match *self {
            Demand::Mig { .. } => 1,
            Demand::Cap { gpus, .. } | Demand::Whole { gpus } => gpus,
        }
    }

    /// Size in 1/800 of a GPU (eighths × percent), for the decreasing order.
    fn size(&self) -> (u64, u32) {
        match *self {
            Demand::Mig { compute, memory } => (u64::from(memory) * 100, compute),
            Demand::Cap { percent, gpus } => (u64::from(percent) * 8 * u64::from(gpus), 0),
            Demand::Whole { gpus } => (800 * u64::from(gpus), 0),
        }
    }
}

/// Where a demand was placed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Slot {
    /// GPU indices, ascending.
    pub gpus: Vec<u32>,
    /// First memory slice of a MIG instance.
    pub mig_start: Option<u32>,
}

/// How one GPU of the pool is used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum GpuState {
    /// Nothing on it.
    Free,
    /// One job has it whole.
    Whole {
        /// The job's index.
        job: usize,
    },
    /// MIG instances.
    Mig {
        /// Which job holds each memory slice.
        memory: [Option<usize>; MEMORY_SLICES as usize],
        /// Compute slices in use.
        compute_used: u32,
    },
    /// Capped processes.
    Capped {
        /// (job index, per cent) of each process.
        caps: Vec<(usize, u32)>,
    },
}

/// Packs demands onto `gpus` GPUs of `per_node` per node, first-fit
/// decreasing (see the module documentation). Returns the slot of each
/// demand (`None` where there was no room) and the state of each GPU.
/// `None` demands (jobs that fit nowhere) are skipped.
pub fn pack(
    gpus: u32,
    per_node: u32,
    demands: &[Option<Demand>],
) -> (Vec<Option<Slot>>, Vec<GpuState>) {
    let per_node = per_node.max(1);
    let mut state = vec![GpuState::Free; gpus as usize];
    let mut slots = vec![None; demands.len()];
    let mut order: Vec<usize> = (0..demands.len())
        .filter(|&i| demands[i].is_some())
        .collect();
    // Largest first; `sort_by` is stable, so ties keep input order.
    order.sort_by(|&a, &b| {
        let (sa, sb) = (demands[a].map(|d| d.size()), demands[b].map(|d| d.size()));
        sb.cmp(&sa)
    });
    for i in order {
        let Some(d) = demands[i] else { continue };
        slots[i] = place(&mut state, per_node, i, d);
    }
    (slots, state)
}

/// GPU indices to take for a multi-GPU demand: the first `k` eligible in
/// one node when a node has `k`, else the first `k` overall.
fn choose(eligible: &[u32], k: u32, per_node: u32) -> Option<Vec<u32>> {
    if (eligible.len() as u64) < u64::from(k) {
        return None;
    }
    if k <= per_node {
        let mut node = u32::MAX;
        let mut run = Vec::new();
        for &g in eligible {
            if g / per_node != node {
                node = g / per_node;
                run.clear();
            }
            run.push(g);
            if run.len() as u32 == k {
                return Some(run);
            }
        }
    }
    Some(eligible[..k as usize].to_vec())
}

fn place(state: &mut [GpuState], per_node: u32, job: usize, d: Demand) -> Option<Slot> {
    match d {
        Demand::Whole { gpus } => {
            let free: Vec<u32> = (0..state.len() as u32)
                .filter(|&g| state[g as usize] == GpuState::Free)
                .collect();
            let chosen = choose(&free, gpus.max(1), per_node)?;
            for &g in &chosen {
                state[g as usize] = GpuState::Whole { job };
            }
            Some(Slot {
                gpus: chosen,
                mig_start: None,
            })
        }
        Demand::Cap { percent, gpus } => {
            let room = |s: &GpuState| match s {
                GpuState::Free => true,
                GpuState::Capped { caps } => caps.iter().map(|c| c.1).sum::<u32>() + percent <= 100,
                _ => false,
            };
            let eligible: Vec<u32> = (0..state.len() as u32)
                .filter(|&g| room(&state[g as usize]))
                .collect();
            let chosen = choose(&eligible, gpus.max(1), per_node)?;
            for &g in &chosen {
                let s = &mut state[g as usize];
                match s {
                    GpuState::Capped { caps } => caps.push((job, percent)),
                    _ => {
                        *s = GpuState::Capped {
                            caps: vec![(job, percent)],
                        }
                    }
                }
            }
            Some(Slot {
                gpus: chosen,
                mig_start: None,
            })
        }
        Demand::Mig { compute, memory } => {
            for (g, s) in state.iter_mut().enumerate() {
                let (slices, used) = match s {
                    GpuState::Free => ([None; MEMORY_SLICES as usize], 0),
                    GpuState::Mig {
                        memory,
                        compute_used,
                    } => (*memory, *compute_used),
                    _ => continue,
                };
                if used + compute > COMPUTE_SLICES {
                    continue;
                }
                let free = |start: u32| {
                    let end = start + memory;
                    end <= MEMORY_SLICES
                        && slices[start as usize..end as usize]
                            .iter()
                            .all(Option::is_none)
                };
                let Some(&start) = catalog::placements(compute, memory)
                    .iter()
                    .find(|&&st| free(st))
                else {
                    continue;
                };
                let mut slices = slices;
                for m in &mut slices[start as usize..(start + memory) as usize] {
                    *m = Some(job);
                }
                *s = GpuState::Mig {
                    memory: slices,
                    compute_used: used + compute,
                };
                return Some(Slot {
                    gpus: vec![g as u32],
                    mig_start: Some(start),
                });
            }
            None
        }
    }
}

/// A serving job's batch and throughput where it runs, against the job
/// alone on a whole GPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ServingOutcome {
    /// The batch the plan asks for.
    pub requested_batch: u32,
    /// The smallest batch the job accepts (its `min_batch`, else the plan's).
    pub target_batch: u32,
    /// The largest batch that fits its memory (≤ the requested batch).
    pub memory_batch: u32,
    /// The batch it runs: the largest that fits and meets its targets.
    pub batch: u32,
    /// Time to first token at that batch.
    pub ttft: Seconds,
    /// Time per output token at that batch.
    pub tpot: Seconds,
    /// Whether the targets are met at that batch.
    pub slo_met: bool,
    /// Output tokens per second at that batch (all replicas).
    pub tokens_per_second: f64,
    /// The batch it would run alone on whole GPUs.
    pub reference_batch: u32,
    /// Output tokens per second alone on whole GPUs.
    pub reference_tokens_per_second: f64,
    /// `tokens_per_second / reference_tokens_per_second`, 0..=1 (1 where
    /// there is no reference).
    pub throughput_kept: f64,
    /// Output tokens per second given up against the reference (≥ 0).
    pub tokens_per_second_lost: f64,
}

/// A training job's step time where it runs, against whole GPUs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TrainingOutcome {
    /// Step time where it runs.
    pub step: Seconds,
    /// Step time alone on whole GPUs.
    pub reference_step: Seconds,
    /// `step / reference_step` (≥ 1 on a slice).
    pub slowdown: f64,
}

/// Where a job went and how it runs there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct JobPlacement {
    /// The job's name.
    pub job: String,
    /// Training, fine-tuning or serving.
    pub kind: JobKind,
    /// What it needs on each GPU (`None` when it fits nowhere).
    pub share: Option<Share>,
    /// GPUs it needs.
    pub gpus_needed: u32,
    /// Whether it was placed.
    pub placed: bool,
    /// GPU indices it runs on (empty when not placed).
    pub gpus: Vec<u32>,
    /// First memory slice of its MIG instance.
    pub mig_start: Option<u32>,
    /// Device memory it may use on each GPU.
    pub capacity: Bytes,
    /// Its peak device memory on the most loaded GPU.
    pub peak: Bytes,
    /// `capacity − peak` (negative when it does not fit).
    pub headroom: Bytes,
    /// The verdict of its plan where it runs.
    pub verdict: Verdict,
    /// Serving figures.
    pub serving: Option<ServingOutcome>,
    /// Training figures.
    pub training: Option<TrainingOutcome>,
    /// Why it did not fit or was not placed, and other notes (the plan's
    /// own diagnostics where they explain a failure).
    pub diagnostics: Vec<Diagnostic>,
}

/// How one GPU is used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GpuUse {
    /// Index in the pool.
    pub index: u32,
    /// Node it is in.
    pub node: u32,
    /// What is on it.
    pub state: GpuState,
    /// Jobs on it, by name.
    pub jobs: Vec<String>,
    /// Device memory a process can address.
    pub capacity: Bytes,
    /// Memory given to jobs (slices, caps or the whole GPU).
    pub allotted: Bytes,
    /// The jobs' peaks added up.
    pub peak: Bytes,
}

/// The packer used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Packing {
    /// First-fit decreasing (see the module documentation).
    FirstFitDecreasing,
}

/// The result of [`share`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SharingResult {
    /// How jobs share GPUs (MIG falls back to whole GPUs on parts without it).
    pub mode: ShareMode,
    /// The pool's GPU.
    pub gpu: String,
    /// GPUs in the pool.
    pub pool_gpus: u32,
    /// The packer.
    pub packing: Packing,
    /// One entry per job, in input order.
    pub jobs: Vec<JobPlacement>,
    /// One entry per GPU.
    pub gpus: Vec<GpuUse>,
    /// GPUs with at least one job.
    pub gpus_used: u32,
    /// GPUs the placed jobs would take without sharing (each on whole GPUs).
    pub gpus_without_sharing: u32,
    /// Jobs placed.
    pub placed: u32,
    /// Problems and notes, pool-wide and per job.
    pub diagnostics: Vec<Diagnostic>,
}

impl SharingResult {
    /// The result as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// The pool's GPU: its spec, name and catalog id.
fn pool_gpu(choice: &GpuChoice) -> (GpuSpec, String, Option<GpuId>) {
    match choice {
        GpuChoice::Preset(id) => {
            let e = catalog::gpu(*id);
            let mut spec = e.spec;
            spec.matmul_ceiling = catalog::matmul_ceiling(*id);
            (spec, e.name.to_string(), Some(*id))
        }
        GpuChoice::Custom(g) => (g.spec, g.name.clone(), None),
    }
}

/// The GPU a MIG instance looks like to a job (see the module documentation).
fn slice_spec(base: &GpuSpec, p: &MigProfile) -> GpuSpec {
    let c = p.compute_fraction();
    let m = p.memory_fraction();
    GpuSpec {
        capacity: p.memory(base.device_memory()),
        usable: None,
        memory_bandwidth: base.memory_bandwidth * m,
        bf16: base.bf16 * c,
        fp16: base.fp16 * c,
        fp8: base.fp8.map(|r| r * c),
        fp4: base.fp4.map(|r| r * c),
        tdp: base.tdp * c,
        scale_up: None,
        mig_slices: 0,
        ..*base
    }
}

/// One way to run a job: what it is given and its plan there.
struct Option_ {
    share: Share,
    demand: Demand,
    plan: Plan,
}

/// How a job runs on one option.
struct Trial {
    report: Report,
    /// Serving: (memory batch, batch, report at that batch).
    serving: Option<(u32, u32, Report)>,
}

impl Trial {
    /// The report at the batch the job runs (serving) or the plan's.
    fn running(&self) -> &Report {
        self.serving.as_ref().map_or(&self.report, |s| &s.2)
    }
}

fn with_batch(plan: &Plan, batch: u32) -> Plan {
    let mut p = plan.clone();
    if let Workload::Inference(i) = &mut p.workload {
        i.batch = batch;
    }
    p
}

fn latencies(r: &Report) -> (Seconds, Seconds) {
    match &r.time {
        TimeReport::Inference(t) => (t.ttft, t.tpot),
        TimeReport::Training(t) => (t.step, t.step),
    }
}

/// Evaluates a job on one option; a serving job's batch is the largest up
/// to its plan's that fits and meets its targets (0 if none).
fn trial(plan: &Plan, slo: &LatencySlo) -> Trial {
    let report = evaluate(plan);
    let Workload::Inference(inf) = &plan.workload else {
        return Trial {
            report,
            serving: None,
        };
    };
    let requested = inf.batch.max(1);
    let memory_batch = report.inference.map_or(0, |l| l.max_batch).min(requested);
    let ok = |b: u32| {
        let r = evaluate(&with_batch(plan, b));
        let (ttft, tpot) = latencies(&r);
        let pass = r.verdict == Verdict::Fits && slo.met(ttft, tpot);
        (pass, r)
    };
    let mut best: Option<(u32, Report)> = None;
    if memory_batch > 0 {
        let (pass, r) = if memory_batch == requested {
            let (ttft, tpot) = latencies(&report);
            (
                report.verdict == Verdict::Fits && slo.met(ttft, tpot),
                report.clone(),
            )
        } else {
            ok(memory_batch)
        };
        if pass {
            best = Some((memory_batch, r));
        } else {
            // Latency grows with the batch: bisect for the largest that meets
            // the targets.
            let (mut lo, mut hi) = (0u32, memory_batch);
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                let (pass, r) = ok(mid);
                if pass {
                    lo = mid;
                    best = Some((mid, r));
                } else {
                    hi = mid;
                }
            }
        }
    }
    let serving = match best {
        Some((b, r)) => Some((memory_batch, b, r)),
        None => Some((memory_batch, 0, report.clone())),
    };
    Trial { report, serving }
}

/// Whether a trial does the job: a training plan fits; a serving plan runs
/// at least `target` sequences.
fn works(t: &Trial, target: u32) -> bool {
    match &t.serving {
        Some((_, b, _)) => *b >= target.max(1),
        None => t.report.verdict == Verdict::Fits,
    }
}

fn plan_on(job: &Plan, gpu: GpuChoice, per_node: u32, cap: Option<f64>) -> Plan {
    let mut p = job.clone();
    p.hardware.gpu = gpu;
    p.hardware.gpus_per_node = per_node;
    p.levers.memory_cap = cap;
    p
}

/// The options of a job, smallest first (memory caps are bisected
/// separately).
fn options(pool: &Pool, mode: ShareMode, job: &Job, per_node: u32) -> Vec<Option_> {
    let (spec, name, id) = pool_gpu(&pool.gpu);
    let gpus = job.plan.hardware.gpus.max(1);
    let mut out = Vec::new();
    if mode == ShareMode::Mig && gpus == 1 {
        if let Some(entry) = id.and_then(catalog::mig_profiles) {
            for p in entry.profiles {
                let gpu = GpuChoice::Custom(CustomGpu {
                    name: format!("{name} MIG {}", p.name),
                    spec: slice_spec(&spec, p),
                });
                out.push(Option_ {
                    share: Share::Mig {
                        profile: p.name.to_string(),
                        compute_slices: p.compute_slices,
                        memory_slices: p.memory_slices,
                    },
                    demand: Demand::Mig {
                        compute: p.compute_slices,
                        memory: p.memory_slices,
                    },
                    plan: plan_on(&job.plan, gpu, per_node, None),
                });
            }
        }
    }
    let whole_cap = match mode {
        ShareMode::Mig => None,
        _ => job.plan.levers.memory_cap,
    };
    out.push(Option_ {
        share: Share::Whole,
        demand: Demand::Whole { gpus },
        plan: plan_on(&job.plan, pool.gpu.clone(), per_node, whole_cap),
    });
    out
}

fn cap_option(pool: &Pool, job: &Job, per_node: u32, percent: u32) -> Option_ {
    let gpus = job.plan.hardware.gpus.max(1);
    let fraction = f64::from(percent) / 100.0;
    Option_ {
        share: Share::Cap { fraction },
        demand: Demand::Cap { percent, gpus },
        plan: plan_on(&job.plan, pool.gpu.clone(), per_node, Some(fraction)),
    }
}

/// A sized job: the option it takes and how it runs there, or why none.
struct Sized {
    chosen: Option<(Option_, Trial)>,
    reference: Trial,
    diagnostics: Vec<Diagnostic>,
}

fn errors_of(r: &Report) -> String {
    r.diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.message.as_str())
        .collect::<Vec<_>>()
        .join("; ")
}

/// The plan's own diagnostics that explain a failure (capacity, invalid
/// inputs), without the price notes a MIG slice's custom GPU raises.
fn explaining(r: &Report) -> impl Iterator<Item = Diagnostic> + '_ {
    r.diagnostics
        .iter()
        .filter(|d| {
            d.severity == Severity::Error && !matches!(d.detail, DiagnosticKind::NoGpuPrice { .. })
        })
        .cloned()
}

fn size(pool: &Pool, mode: ShareMode, job: &Job, gpu_name: &str) -> Sized {
    let per_node = pool.gpus_per_node.max(1);
    let mut diagnostics = Vec::new();
    let target = match &job.plan.workload {
        Workload::Inference(i) => job.min_batch.unwrap_or(i.batch).clamp(1, i.batch.max(1)),
        Workload::Training(_) => 1,
    };
    let whole = Option_ {
        share: Share::Whole,
        demand: Demand::Whole {
            gpus: job.plan.hardware.gpus.max(1),
        },
        plan: plan_on(&job.plan, pool.gpu.clone(), per_node, None),
    };
    let reference = trial(&whole.plan, &job.slo);
    if reference.report.verdict == Verdict::Invalid {
        diagnostics.push(Diagnostic::error(DiagnosticKind::JobInvalid {
            job: job.name.clone(),
            errors: errors_of(&reference.report),
        }));
        return Sized {
            chosen: None,
            reference,
            diagnostics,
        };
    }
    if mode == ShareMode::Mig && job.plan.levers.memory_cap.is_some() {
        diagnostics.push(Diagnostic::info(DiagnosticKind::LeverIgnored {
            lever: format!(
                "levers.memory_cap of job {:?} (its MIG slice bounds its memory)",
                job.name
            ),
        }));
    }

    let mut chosen: Option<(Option_, Trial)> = None;
    let mut largest: Option<(Option_, Trial)> = None;
    if mode == ShareMode::MemoryCap {
        match job.plan.levers.memory_cap {
            Some(f) => {
                let percent = (f * 100.0).ceil().clamp(1.0, 100.0) as u32;
                let o = cap_option(pool, job, per_node, percent);
                let t = trial(&o.plan, &job.slo);
                if works(&t, target) {
                    chosen = Some((o, t));
                } else {
                    largest = Some((o, t));
                }
            }
            None => {
                let top = cap_option(pool, job, per_node, 100);
                let tt = trial(&top.plan, &job.slo);
                if works(&tt, target) {
                    let (mut lo, mut hi) = (0u32, 100u32);
                    let mut best = (top, tt);
                    while hi - lo > 1 {
                        let mid = lo + (hi - lo) / 2;
                        let o = cap_option(pool, job, per_node, mid);
                        let t = trial(&o.plan, &job.slo);
                        if works(&t, target) {
                            hi = mid;
                            best = (o, t);
                        } else {
                            lo = mid;
                        }
                    }
                    chosen = Some(best);
                } else {
                    largest = Some((top, tt));
                }
            }
        }
    } else {
        for o in options(pool, mode, job, per_node) {
            let t = trial(&o.plan, &job.slo);
            if works(&t, target) {
                chosen = Some((o, t));
                break;
            }
            largest = Some((o, t));
        }
    }

    if chosen.is_none() {
        // Nothing meets the target: a serving job may still run at a smaller
        // batch on the largest option; otherwise say why not.
        if let Some((o, t)) = largest {
            let runs = matches!(t.serving, Some((_, b, _)) if b >= 1);
            if runs {
                chosen = Some((o, t));
            } else {
                let r = t.running();
                if r.verdict != Verdict::Fits || matches!(t.serving, Some((0, _, _))) {
                    diagnostics.push(Diagnostic::error(DiagnosticKind::JobDoesNotFit {
                        job: job.name.clone(),
                        gpu: gpu_name.to_string(),
                    }));
                    diagnostics.extend(explaining(&t.report));
                } else {
                    let (ttft, tpot) = latencies(&evaluate(&with_batch(&o.plan, 1)));
                    diagnostics.push(Diagnostic::error(DiagnosticKind::JobSloNotMet {
                        job: job.name.clone(),
                        gpu: gpu_name.to_string(),
                        ttft,
                        tpot,
                    }));
                }
            }
        }
    }
    if let Some((_, t)) = &chosen {
        if let (Some((_, b, _)), Workload::Inference(i)) = (&t.serving, &job.plan.workload) {
            if *b < i.batch {
                diagnostics.push(Diagnostic::warning(DiagnosticKind::BatchBounded {
                    job: job.name.clone(),
                    batch: *b,
                    requested: i.batch,
                }));
            }
        }
    }
    Sized {
        chosen,
        reference,
        diagnostics,
    }
}

fn hbm_figures(r: &Report) -> (Bytes, Bytes) {
    r.binding_device().map_or((Bytes::ZERO, Bytes::ZERO), |d| {
        let cap = d.hbm().map_or(Bytes::ZERO, |t| t.capacity);
        (cap, d.hbm_used())
    })
}

fn throughput(r: &Report) -> f64 {
    match &r.time {
        TimeReport::Inference(t) => t.total_output_tokens_per_second,
        TimeReport::Training(t) => t.tokens_per_second,
    }
}

fn outcomes(
    job: &Job,
    t: &Trial,
    reference: &Trial,
) -> (Option<ServingOutcome>, Option<TrainingOutcome>) {
    match (&job.plan.workload, &t.serving) {
        (Workload::Inference(i), Some((memory_batch, batch, r))) => {
            let (ttft, tpot) = latencies(r);
            let tps = if *batch > 0 { throughput(r) } else { 0.0 };
            let (ref_batch, ref_tps) = match &reference.serving {
                Some((_, b, rr)) if *b > 0 => (*b, throughput(rr)),
                _ => (0, 0.0),
            };
            let target = job.min_batch.unwrap_or(i.batch).clamp(1, i.batch.max(1));
            (
                Some(ServingOutcome {
                    requested_batch: i.batch,
                    target_batch: target,
                    memory_batch: *memory_batch,
                    batch: *batch,
                    ttft,
                    tpot,
                    slo_met: *batch > 0 && job.slo.met(ttft, tpot),
                    tokens_per_second: tps,
                    reference_batch: ref_batch,
                    reference_tokens_per_second: ref_tps,
                    throughput_kept: if ref_tps > 0.0 {
                        (tps / ref_tps).min(1.0)
                    } else {
                        1.0
                    },
                    tokens_per_second_lost: (ref_tps - tps).max(0.0),
                }),
                None,
            )
        }
        (Workload::Training(_), _) => {
            let step = latencies(&t.report).0;
            let reference_step = latencies(&reference.report).0;
            (
                None,
                Some(TrainingOutcome {
                    step,
                    reference_step,
                    slowdown: if reference_step.base() > 0.0 {
                        step / reference_step
                    } else {
                        1.0
                    },
                }),
            )
        }
        _ => (None, None),
    }
}

/// Largest pool `share` lays out (GPU by GPU); larger ones are cut to it
/// with an error diagnostic.
pub const MAX_POOL_GPUS: u32 = 65_536;

/// Packs the jobs of `sharing` onto its pool (see the module
/// documentation). Pure and total: bad jobs come back unplaced with the
/// reason in their diagnostics.
pub fn share(sharing: &Sharing) -> SharingResult {
    let mut diagnostics = Vec::new();
    // A pool is laid out GPU by GPU; an absurd size would exhaust memory,
    // so it is cut to the largest pool this planner lays out.
    let bounded = (sharing.pool.gpus > MAX_POOL_GPUS).then(|| {
        diagnostics.push(Diagnostic::error(DiagnosticKind::InvalidValue {
            field: "pool.gpus".into(),
            problem: format!(
                "{} GPUs is more than the {MAX_POOL_GPUS} a pool is laid out on; using {MAX_POOL_GPUS}",
                sharing.pool.gpus
            ),
        }));
        let mut p = sharing.pool.clone();
        p.gpus = MAX_POOL_GPUS;
        p
    });
    let pool = bounded.as_ref().unwrap_or(&sharing.pool);
    let (spec, gpu_name, id) = pool_gpu(&pool.gpu);
    let per_node = pool.gpus_per_node.max(1);
    let mut mode = pool.mode;
    if mode == ShareMode::Mig && id.and_then(catalog::mig_profiles).is_none() {
        diagnostics.push(Diagnostic::warning(DiagnosticKind::MigUnsupported {
            gpu: gpu_name.clone(),
        }));
        mode = ShareMode::Exclusive;
    }
    if mode == ShareMode::MemoryCap {
        diagnostics.push(Diagnostic::info(DiagnosticKind::CapsShareCompute));
    }

    let sized: Vec<Sized> = sharing
        .jobs
        .iter()
        .map(|j| size(pool, mode, j, &gpu_name))
        .collect();
    let demands: Vec<Option<Demand>> = sized
        .iter()
        .map(|s| s.chosen.as_ref().map(|(o, _)| o.demand))
        .collect();
    let (slots, states) = pack(pool.gpus, per_node, &demands);

    let mut jobs = Vec::with_capacity(sharing.jobs.len());
    let mut peaks = vec![Bytes::ZERO; pool.gpus as usize];
    let mut allotted = vec![Bytes::ZERO; pool.gpus as usize];
    for ((job, s), slot) in sharing.jobs.iter().zip(&sized).zip(&slots) {
        let mut diags = s.diagnostics.clone();
        let gpus_needed = job.plan.hardware.gpus.max(1);
        let Some((o, t)) = &s.chosen else {
            let (capacity, peak) = hbm_figures(&s.reference.report);
            jobs.push(JobPlacement {
                job: job.name.clone(),
                kind: job_kind(&job.plan),
                share: None,
                gpus_needed,
                placed: false,
                gpus: Vec::new(),
                mig_start: None,
                capacity,
                peak,
                headroom: capacity - peak,
                verdict: s.reference.report.verdict,
                serving: None,
                training: None,
                diagnostics: diags,
            });
            continue;
        };
        let running = t.running();
        let (capacity, peak) = hbm_figures(running);
        let (serving, training) = outcomes(job, t, &s.reference);
        if mode == ShareMode::Mig && gpus_needed > 1 {
            diags.push(Diagnostic::info(DiagnosticKind::WholeGpusForMultiGpuJob {
                job: job.name.clone(),
                gpus: gpus_needed,
            }));
        }
        match slot {
            None => diags.push(Diagnostic::error(DiagnosticKind::PoolFull {
                job: job.name.clone(),
                share: o.share.label(gpus_needed),
            })),
            Some(slot) => {
                let nodes = {
                    let mut n: Vec<u32> = slot.gpus.iter().map(|g| g / per_node).collect();
                    n.dedup();
                    n.len() as u32
                };
                if nodes > 1 {
                    diags.push(Diagnostic::warning(DiagnosticKind::JobSpansNodes {
                        job: job.name.clone(),
                        nodes,
                    }));
                }
                for &g in &slot.gpus {
                    peaks[g as usize] += peak;
                    allotted[g as usize] += capacity;
                }
            }
        }
        jobs.push(JobPlacement {
            job: job.name.clone(),
            kind: job_kind(&job.plan),
            share: Some(o.share.clone()),
            gpus_needed,
            placed: slot.is_some(),
            gpus: slot.as_ref().map_or_else(Vec::new, |s| s.gpus.clone()),
            mig_start: slot.as_ref().and_then(|s| s.mig_start),
            capacity,
            peak,
            headroom: capacity - peak,
            verdict: running.verdict,
            serving,
            training,
            diagnostics: diags,
        });
    }

    let device = spec.device_memory();
    let gpus: Vec<GpuUse> = states
        .into_iter()
        .enumerate()
        .map(|(i, state)| {
            let mut on: Vec<usize> = match &state {
                GpuState::Free => Vec::new(),
                GpuState::Whole { job } => vec![*job],
                GpuState::Mig { memory, .. } => memory.iter().flatten().copied().collect(),
                GpuState::Capped { caps } => caps.iter().map(|c| c.0).collect(),
            };
            on.dedup();
            GpuUse {
                index: i as u32,
                node: i as u32 / per_node,
                jobs: on.iter().map(|&j| sharing.jobs[j].name.clone()).collect(),
                state,
                capacity: device,
                allotted: allotted[i],
                peak: peaks[i],
            }
        })
        .collect();
    let gpus_used = gpus.iter().filter(|g| g.state != GpuState::Free).count() as u32;
    let placed: Vec<&JobPlacement> = jobs.iter().filter(|j| j.placed).collect();
    let gpus_without_sharing = placed.iter().map(|j| j.gpus_needed).sum();
    for j in &jobs {
        diagnostics.extend(
            j.diagnostics
                .iter()
                .filter(|d| d.severity != Severity::Info || j.placed)
                .cloned(),
        );
    }
    SharingResult {
        mode,
        gpu: gpu_name,
        pool_gpus: pool.gpus,
        packing: Packing::FirstFitDecreasing,
        placed: placed.len() as u32,
        jobs,
        gpus,
        gpus_used,
        gpus_without_sharing,
        diagnostics,
    }
}

fn serving_job(
    name: &str,
    model: crate::catalog::ModelId,
    (prompt, output, batch): (u32, u32, u32),
    weights: Precision,
    slo: LatencySlo,
) -> Job {
    Job {
        name: name.into(),
        plan: Plan {
            version: SCHEMA_VERSION,
            name: name.into(),
            model: ModelChoice::Preset(model),
            workload: Workload::Inference(Inference {
                prompt_tokens: prompt,
                output_tokens: output,
                batch,
                logits: Default::default(),
            }),
            levers: Levers {
                precision: Precisions {
                    weights,
                    ..Precisions::default()
                },
                ..Levers::default()
            },
            hardware: Hardware::new(GpuChoice::Preset(GpuId::H100Sxm), 1),
            overheads: Default::default(),
            efficiency: Default::default(),
            economics: Default::default(),
            distillation: None,
        },
        slo,
        min_batch: None,
    }
}

/// The example `memwall example-tenants` prints: four H100s shared by MIG
/// between three chat/summarisation services (Llama 3.1 8B, Qwen2.5 7B in
/// INT4, Mistral 7B), a QLoRA fine-tune of Llama 2 7B, a BERT-large
/// fine-tune and Llama 3.1 70B served in FP8 over two GPUs. The latency
/// targets are illustrative, not taken from any service.
pub fn example_sharing() -> Sharing {
    use crate::catalog::ModelId as M;
    use crate::plan::{Checkpointing, LoraSpec, LoraTargets};
    let slo = |ttft: f64, tpot: f64| LatencySlo {
        max_ttft: Some(Seconds::from_secs(ttft)),
        max_tpot: Some(Seconds::from_millis(tpot)),
    };
    let mut seventy = serving_job(
        "llama3.1-70b-fp8-tp2",
        M::Llama31_70b,
        (2048, 512, 32),
        Precision::Fp8,
        slo(2.0, 60.0),
    );
    seventy.plan.hardware.gpus = 2;
    seventy.plan.levers.parallel = Parallelism {
        tp: 2,
        ..Parallelism::default()
    };
    let train = |name: &str, model: M, kind: TrainingKind, seq: u32, batch: u32, mb: u32| Job {
        name: name.into(),
        plan: Plan {
            version: SCHEMA_VERSION,
            name: name.into(),
            model: ModelChoice::Preset(model),
            workload: Workload::Training(Training {
                kind,
                seq_len: seq,
                global_batch: batch,
                tokens: 0.0,
            }),
            levers: Levers {
                checkpointing: Checkpointing::Full,
                parallel: Parallelism {
                    micro_batch: mb,
                    ..Parallelism::default()
                },
                ..Levers::default()
            },
            hardware: Hardware::new(GpuChoice::Preset(GpuId::H100Sxm), 1),
            overheads: Default::default(),
            efficiency: Default::default(),
            economics: Default::default(),
            distillation: None,
        },
        slo: LatencySlo::default(),
        min_batch: None,
    };
    Sharing {
        version: SCHEMA_VERSION,
        pool: Pool {
            gpu: GpuChoice::Preset(GpuId::H100Sxm),
            gpus: 4,
            gpus_per_node: 8,
            mode: ShareMode::Mig,
        },
        jobs: vec![
            serving_job(
                "chat-llama3.1-8b",
                M::Llama31_8b,
                (1024, 256, 16),
                Precision::Bf16,
                slo(1.0, 50.0),
            ),
            serving_job(
                "summarise-qwen2.5-7b-int4",
                M::Qwen25_7b,
                (2048, 128, 8),
                Precision::Int4 { group_size: 128 },
                slo(2.0, 40.0),
            ),
            serving_job(
                "code-mistral-7b",
                M::Mistral7bV01,
                (512, 256, 8),
                Precision::Bf16,
                slo(1.0, 50.0),
            ),
            train(
                "qlora-llama2-7b",
                M::Llama2_7b,
                TrainingKind::Qlora(LoraSpec {
                    rank: 16,
                    targets: LoraTargets::AllLinear,
                    adapter_precision: Precision::Fp32,
                }),
                2048,
                16,
                1,
            ),
            train(
                "bert-large-finetune",
                M::BertLarge,
                TrainingKind::FullFineTune,
                512,
                32,
                8,
            ),
            seventy,
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mig(compute: u32, memory: u32) -> Option<Demand> {
        Some(Demand::Mig { compute, memory })
    }

    #[test]
    fn absurd_pools_are_cut_with_a_diagnostic() {
        let mut s = crate::tenants::example_sharing();
        s.pool.gpus = u32::MAX;
        let r = share(&s);
        assert_eq!(r.pool_gpus, MAX_POOL_GPUS);
        assert!(r
            .diagnostics
            .iter()
            .any(|d| matches!(d.detail, DiagnosticKind::InvalidValue { .. })));
    }

    #[test]
    fn mig_fills_a_gpu_as_nvidia_allows() {
        // 4g + 3g fill one GPU; a second 3g goes to the next.
        let (slots, state) = pack(2, 8, &[mig(3, 4), mig(4, 4), mig(3, 4)]);
        assert_eq!(slots[1].as_ref().map(|s| s.mig_start), Some(Some(0)));
        assert_eq!(slots[0].as_ref().map(|s| s.mig_start), Some(Some(4)));
        assert_eq!(slots[2].as_ref().map(|s| s.gpus.clone()), Some(vec![1]));
        assert!(matches!(
            state[0],
            GpuState::Mig {
                compute_used: 7,
                ..
            }
        ));
    }

    #[test]
    fn seven_small_slices_and_no_eighth() {
        let d = vec![mig(1, 1); 8];
        let (slots, _) = pack(1, 8, &d);
        assert_eq!(slots.iter().filter(|s| s.is_some()).count(), 7);
        assert!(slots[7].is_none());
    }

    #[test]
    fn caps_stay_within_the_gpu() {
        let d = [
            Some(Demand::Cap {
                percent: 60,
                gpus: 1,
            }),
            Some(Demand::Cap {
                percent: 50,
                gpus: 1,
            }),
            Some(Demand::Cap {
                percent: 40,
                gpus: 1,
            }),
        ];
        let (slots, _) = pack(2, 8, &d);
        // 60 then 50 (GPU 1) then 40 joins the 60 on GPU 0.
        assert_eq!(slots[0].as_ref().map(|s| s.gpus.clone()), Some(vec![0]));
        assert_eq!(slots[1].as_ref().map(|s| s.gpus.clone()), Some(vec![1]));
        assert_eq!(slots[2].as_ref().map(|s| s.gpus.clone()), Some(vec![0]));
    }

    #[test]
    fn whole_gpus_prefer_one_node() {
        // Largest first: the 8-GPU job takes node 0, the 4-GPU job the start
        // of node 1, and the slice the next free GPU.
        let (slots, _) = pack(
            16,
            8,
            &[
                mig(7, 8),
                Some(Demand::Whole { gpus: 8 }),
                Some(Demand::Whole { gpus: 4 }),
            ],
        );
        assert_eq!(slots[1].as_ref().map(|s| s.gpus[0]), Some(0));
        assert_eq!(
            slots[2].as_ref().map(|s| s.gpus.clone()),
            Some(vec![8, 9, 10, 11])
        );
        assert_eq!(slots[0].as_ref().map(|s| s.gpus.clone()), Some(vec![12]));
    }

    #[test]
    fn example_places_every_job_within_its_share() {
        let r = share(&example_sharing());
        assert_eq!(r.mode, ShareMode::Mig);
        for j in &r.jobs {
            assert!(j.placed, "{} not placed: {:?}", j.job, j.diagnostics);
            assert!(j.headroom.base() >= 0.0, "{}", j.job);
            assert_eq!(j.verdict, Verdict::Fits, "{}", j.job);
        }
        // The 70B job takes two whole GPUs; the rest share MIG slices.
        let big = r.jobs.iter().find(|j| j.job.contains("70b"));
        assert_eq!(big.map(|j| j.share.clone()), Some(Some(Share::Whole)));
        assert!(r.gpus_used <= 4);
        assert!(r.gpus_without_sharing > r.gpus_used);
        for g in &r.gpus {
            assert!(
                g.allotted.base() <= g.capacity.base() + 1.0,
                "GPU {}",
                g.index
            );
            assert!(g.peak.base() <= g.allotted.base() + 1.0, "GPU {}", g.index);
        }
    }

    #[test]
    fn a_job_too_big_for_the_pool_says_why() {
        let mut s = example_sharing();
        s.jobs.truncate(1);
        s.jobs[0].plan.model = ModelChoice::Preset(crate::catalog::ModelId::Llama31_405b);
        let r = share(&s);
        assert!(!r.jobs[0].placed);
        assert!(r.jobs[0]
            .diagnostics
            .iter()
            .any(|d| matches!(d.detail, DiagnosticKind::JobDoesNotFit { .. })));
        assert!(r.jobs[0]
            .diagnostics
            .iter()
            .any(|d| matches!(d.detail, DiagnosticKind::OverCapacity { .. })));
    }

    #[test]
    fn a_full_pool_reports_the_jobs_left_out() {
        let mut s = example_sharing();
        s.pool.gpus = 1;
        let r = share(&s);
        assert!(r.jobs.iter().any(|j| !j.placed));
        assert!(r
            .diagnostics
            .iter()
            .any(|d| matches!(d.detail, DiagnosticKind::PoolFull { .. })));
    }

    #[test]
    fn caps_are_the_smallest_that_work() {
        let mut s = example_sharing();
        s.pool.mode = ShareMode::MemoryCap;
        s.jobs.truncate(3);
        let r = share(&s);
        for j in &r.jobs {
            let fraction = match j.share {
                Some(Share::Cap { fraction }) => fraction,
                _ => -1.0,
            };
            assert!(fraction > 0.0 && fraction <= 1.0);
            // One per cent less would not do.
            let mut job = s.jobs.iter().find(|x| x.name == j.job).cloned();
            if let Some(job) = job.as_mut() {
                job.plan.levers.memory_cap = Some(fraction - 0.01);
                job.plan.hardware.gpu = s.pool.gpu.clone();
                if fraction > 0.01 {
                    let t = trial(&job.plan, &job.slo);
                    let target = match &job.plan.workload {
                        Workload::Inference(i) => i.batch,
                        Workload::Training(_) => 1,
                    };
                    assert!(!works(&t, target), "{}", j.job);
                }
            }
        }
    }

    #[test]
    fn a_tight_slo_bounds_the_batch_and_costs_throughput() {
        let mut s = example_sharing();
        s.jobs.truncate(1);
        s.pool.mode = ShareMode::Exclusive;
        // A TPOT target between the batch-1 and batch-16 latencies.
        let b1 = evaluate(&with_batch(&s.jobs[0].plan, 1));
        let b16 = evaluate(&s.jobs[0].plan);
        let mid = (latencies(&b1).1.base() + latencies(&b16).1.base()) / 2.0;
        s.jobs[0].slo.max_tpot = Some(Seconds::from_secs(mid));
        let r = share(&s);
        let sv = r.jobs[0].serving.as_ref().map(|x| (x.batch, x.slo_met));
        let (batch, met) = sv.unwrap_or((0, false));
        assert!((1..16).contains(&batch), "batch {batch}");
        assert!(met);
        assert!(r.jobs[0]
            .diagnostics
            .iter()
            .any(|d| matches!(d.detail, DiagnosticKind::BatchBounded { .. })));
    }

    #[test]
    fn a_gpu_without_mig_falls_back_to_whole_gpus() {
        let mut s = example_sharing();
        s.pool.gpu = GpuChoice::Preset(GpuId::Mi300x);
        let r = share(&s);
        assert_eq!(r.mode, ShareMode::Exclusive);
        assert!(r
            .diagnostics
            .iter()
            .any(|d| matches!(d.detail, DiagnosticKind::MigUnsupported { .. })));
    }

    #[test]
    fn the_input_round_trips() {
        let s = example_sharing();
        let back = Sharing::from_json(&s.to_json());
        assert_eq!(back.ok(), Some(s));
    }
}
