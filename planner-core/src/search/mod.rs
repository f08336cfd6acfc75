//! Search: every valid plan within a GPU budget, evaluated on the fast
//! path, and the answers worth showing — the Pareto frontier of cost and
//! latency, the cheapest plan of each kind of change, and the inverse
//! answers (fewest GPUs, cheapest GPU kind, largest batch, longest
//! context).
//!
//! [`search`] is pure and deterministic like `evaluate`: the same
//! scenario always gives the same result, ties broken by a stable key of
//! the plan's levers.
//!
//! # How the space is walked
//!
//! The scenario is resolved once per hardware option and GPU count; each
//! candidate then overwrites the levers of a copy of that resolved plan
//! (as `resolve` would have set them) and runs the allocation-free memory
//! model, and the time model if it fits. Only candidates `resolve` accepts
//! are generated: TP divides the heads and the FFN width and agrees with
//! the KV heads, PP is at most the layers, interleaving divides a stage's
//! layers and the micro-batches, CP divides the sequence, EP divides the
//! experts and the data-parallel ranks, and micro-batch × DP divides the
//! global batch.
//!
//! # Pruning
//!
//! Only what provably cannot change the answers is skipped, and each
//! rule is counted in [`Counts`]:
//!
//! 1. **Larger batches after a non-fit.** The batch (serving) or
//!    micro-batch (training) is the innermost loop, ascending. Every item
//!    of memory is non-decreasing in it: activations, logits and the
//!    recompute working set are proportional to it, and the in-flight
//!    count min(p, m) shrinks only where p·micro-batch stays constant;
//!    the KV cache and prefill set grow with the batch; nothing else
//!    depends on it. Each tier's use is therefore non-decreasing, so once
//!    a batch does not fit no larger one does.
//! 2. **Idle CXL.** On hardware with an added CXL expansion, plans that
//!    place nothing in CXL memory are skipped: the same plan without the
//!    expansion has the same memory in every other tier and the same time
//!    (only CXL transfers read its bandwidth), and costs more.
//!
//! Under placement by heat (`levers.placement: by_heat`) the placement
//! chooses each candidate's offload, so the offload levers are not varied,
//! and neither rule applies: a greedy placement is not provably monotone
//! in the batch. That mode also runs the placement for every candidate,
//! which allocates, so it is much slower.
//!
//! The unit tests check on small scenarios that an exhaustive walk and the
//! pruned one return the same frontier, and that every generated candidate,
//! turned back into a plan, is one `evaluate` accepts and agrees with.

mod price;
mod result;
mod scenario;
mod space;
#[cfg(test)]
mod tests;

pub use crate::effort::PlanFamily;
pub use result::{figures, Counts, FamilyBests, Figures, Found, SearchResult, Speed};
pub use scenario::{
    example_scenario, Constraints, GpuCounts, GpuPrice, Interleaving, Permission, Scenario, Space,
};

use crate::catalog::GpuId;
use crate::diagnostics::Severity;
use crate::diagnostics::{Diagnostic, DiagnosticKind as K};
use crate::plan::{Placement, Plan, Workload};
use crate::quick::{self, QuickTime};
use crate::resolve::{resolve, Resolved, Work};
use space::{AddedCxl, Choice, HwOption};
use std::cmp::Ordering;

/// Searches a scenario.
pub fn search(s: &Scenario) -> SearchResult {
    run(s, Mode::Pruned, &mut ())
}

/// Sees every evaluated candidate (tests check them against `evaluate`);
/// the search itself uses `()`, which does nothing and compiles away.
pub(crate) trait Observe {
    /// A candidate was evaluated: its plan's parts, and its time if it fit.
    fn seen(&mut self, ctx: &Ctx, hw: usize, n: u32, c: &Choice, time: Option<QuickTime>);
}

impl Observe for () {
    #[inline]
    fn seen(&mut self, _: &Ctx, _: usize, _: u32, _: &Choice, _: Option<QuickTime>) {}
}

/// Whether the pruning rules apply (tests compare both).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Pruned,
    /// Every valid candidate is evaluated; only the tests walk this way.
    #[cfg_attr(not(test), allow(dead_code))]
    Exhaustive,
}

/// A stable key of a candidate: its hardware option, GPU count and the
/// index of each lever value in its list. Lexicographic order on it breaks
/// every tie.
type Key = [u32; 13];

/// One feasible candidate, as the collector keeps it.
#[derive(Debug, Clone, Copy)]
struct Entry {
    key: Key,
    hw: usize,
    n: u32,
    choice: Choice,
    family: PlanFamily,
    /// $ per million tokens; +∞ when the GPU has no price.
    cost: f64,
    /// Step time or time per output token, seconds.
    latency: f64,
}

/// Cheaper, then faster, then the smaller key.
fn by_cost(a: &Entry, b: &Entry) -> Ordering {
    a.cost
        .total_cmp(&b.cost)
        .then(a.latency.total_cmp(&b.latency))
        .then(a.key.cmp(&b.key))
}

/// Whether `a` beats `b` on the frontier: no worse on both axes and better
/// on one, or equal on both with the smaller key.
fn dominates(a: &Entry, b: &Entry) -> bool {
    a.cost <= b.cost
        && a.latency <= b.latency
        && (a.cost < b.cost || a.latency < b.latency || a.key < b.key)
}

/// Position of a family in the collector's table.
fn family_index(f: PlanFamily) -> usize {
    match f {
        PlanFamily::Baseline => 0,
        PlanFamily::Algorithmic => 1,
        PlanFamily::Hardware => 2,
        PlanFamily::Hybrid => 3,
    }
}

/// Keeps the answers while the candidates stream past.
struct Collector {
    frontier: Vec<Entry>,
    best: [Option<Entry>; 4],
    fewest: Option<Entry>,
    largest: Option<Entry>,
    /// Cheapest per GPU kind, in the order kinds were first seen.
    by_kind: Vec<(Option<GpuId>, Entry)>,
}

fn keep(slot: &mut Option<Entry>, e: Entry, better: impl Fn(&Entry, &Entry) -> Ordering) {
    match slot {
        Some(cur) if better(&e, cur) != Ordering::Less => {}
        _ => *slot = Some(e),
    }
}

impl Collector {
    fn new() -> Self {
        Self {
            frontier: Vec::new(),
            best: [None; 4],
            fewest: None,
            largest: None,
            by_kind: Vec::new(),
        }
    }

    fn offer(&mut self, e: Entry, gpu: Option<GpuId>) {
        if !self.frontier.iter().any(|f| dominates(f, &e)) {
            self.frontier.retain(|f| !dominates(&e, f));
            let at = self
                .frontier
                .partition_point(|f| by_cost(f, &e) == Ordering::Less);
            self.frontier.insert(at, e);
        }
        keep(&mut self.best[family_index(e.family)], e, by_cost);
        keep(&mut self.fewest, e, |a, b| {
            a.n.cmp(&b.n).then(by_cost(a, b))
        });
        keep(&mut self.largest, e, |a, b| {
            b.choice.batch.cmp(&a.choice.batch).then(by_cost(a, b))
        });
        match self.by_kind.iter_mut().find(|(k, _)| *k == gpu) {
            Some((_, cur)) => {
                if by_cost(&e, cur) == Ordering::Less {
                    *cur = e;
                }
            }
            None => self.by_kind.push((gpu, e)),
        }
    }
}

/// Diagnostics about the levers the search sets itself; the base plan's
/// own values of these do not stop the search.
fn about_levers(k: &K) -> bool {
    matches!(
        k,
        K::DegreesProduct { .. }
            | K::TpHeads { .. }
            | K::TpKvHeads { .. }
            | K::TpFfn { .. }
            | K::PpTooDeep { .. }
            | K::InterleaveLayers { .. }
            | K::InterleaveMicroBatches { .. }
            | K::EpWithoutMoe { .. }
            | K::EpExperts { .. }
            | K::EpRanks { .. }
            | K::CpSequence { .. }
            | K::BatchSplit { .. }
            | K::ShardGroup { .. }
            | K::MissingTier { .. }
    )
}

fn errors(d: &[Diagnostic]) -> impl Iterator<Item = &Diagnostic> {
    d.iter().filter(|d| d.severity == Severity::Error)
}

/// What every candidate shares.
pub(crate) struct Ctx<'a> {
    s: &'a Scenario,
    training: bool,
    global_batch: u32,
    base_n: u32,
    base_shard_group: Option<u32>,
    /// The base plan's levers, when they are valid.
    base_choice: Option<Choice>,
    hw: Vec<HwOption>,
    /// Whether each hardware option is the base plan's hardware.
    hw_is_base: Vec<bool>,
    /// The economics each hardware option is priced with.
    econ: Vec<crate::economics::Economics>,
    counts: Vec<u32>,
    allowed: [bool; 4],
}

impl Ctx<'_> {
    /// The family of a candidate, as `effort::family` would class its plan
    /// against the base plan (a test checks they agree), without building
    /// the plan.
    fn family(&self, hw: usize, n: u32, c: &Choice) -> PlanFamily {
        let hw_changed = !(self.hw_is_base[hw] && n == self.base_n);
        let ranks = c.degrees.dp * c.degrees.cp;
        let group_dropped = self
            .base_shard_group
            .is_some_and(|g| g == 0 || ranks % g != 0);
        let lev_changed = group_dropped || self.base_choice.is_none_or(|b| !c.same_levers(&b));
        match (hw_changed, lev_changed) {
            (false, false) => PlanFamily::Baseline,
            (false, true) => PlanFamily::Algorithmic,
            (true, false) => PlanFamily::Hardware,
            (true, true) => PlanFamily::Hybrid,
        }
    }

    /// The plan of a candidate, whole.
    pub(crate) fn plan(&self, hw: usize, n: u32, c: &Choice) -> Plan {
        let mut plan = self.s.base.clone();
        plan.hardware = self.hw[hw].hardware.clone();
        plan.hardware.gpus = n;
        plan.economics = self.econ[hw].clone();
        c.apply(&mut plan.levers, self.base_shard_group, self.training);
        if let Workload::Inference(i) = &mut plan.workload {
            i.batch = c.batch;
        }
        plan
    }

    fn found(&self, e: &Entry) -> Found {
        Found::new(e.family, self.plan(e.hw, e.n, &e.choice), &self.s.base)
    }
}

/// The levers of a resolved plan as a [`Choice`].
fn choice_of(r: &Resolved) -> Choice {
    let p = &r.levers.parallel;
    Choice {
        degrees: space::Degrees {
            tp: r.tp,
            pp: r.pp,
            dp: r.dp,
            cp: r.cp,
            ep: r.ep,
        },
        sp: p.sequence_parallel,
        schedule: p.schedule,
        sharding: r.levers.sharding,
        checkpointing: r.levers.checkpointing,
        precision: r.levers.precision,
        offload: r.levers.offload,
        batch: match r.work {
            Work::Train { .. } => p.micro_batch,
            Work::Infer { batch, .. } => batch,
        },
    }
}

/// Counters of the walk.
#[derive(Default)]
struct Counters {
    combinations: u64,
    after_non_fit: u64,
    idle_cxl: u64,
    evaluated: u64,
    fitting: u64,
    feasible: u64,
    /// Hardware options whose price is unknown.
    unpriced: Vec<usize>,
}

pub(crate) fn run<O: Observe>(s: &Scenario, mode: Mode, obs: &mut O) -> SearchResult {
    let (base_r, _, base_diags) = resolve(&s.base);
    let mut diagnostics: Vec<Diagnostic> = errors(&base_diags).cloned().collect();
    let fatal = errors(&base_diags).any(|d| !about_levers(&d.detail));
    let mut out = SearchResult {
        scenario: s.name.clone(),
        counts: Counts::default(),
        baseline: None,
        frontier: Vec::new(),
        best: FamilyBests::default(),
        fewest_gpus: None,
        by_gpu_kind: Vec::new(),
        largest_batch: None,
        longest_context: None,
        unpriced: Vec::new(),
        diagnostics: Vec::new(),
    };
    if s.max_gpus == 0 {
        diagnostics.push(Diagnostic::error(K::InvalidValue {
            field: "max_gpus".into(),
            problem: "must be at least 1".into(),
        }));
    }
    if fatal || s.max_gpus == 0 {
        out.diagnostics = diagnostics;
        return out;
    }

    let c = &s.constraints;
    let allowed = [
        true,
        c.families.contains(&PlanFamily::Algorithmic),
        c.families.contains(&PlanFamily::Hardware),
        c.families.contains(&PlanFamily::Hybrid),
    ];
    let hardware_changes = if allowed[2] || allowed[3] {
        Permission::Allowed
    } else {
        Permission::Forbidden
    };
    let hw = space::hardware_options(s, hardware_changes);
    let hw_is_base = hw
        .iter()
        .map(|h| h.added_cxl == AddedCxl::No && h.hardware == s.base.hardware)
        .collect();
    let (training, global_batch) = match &s.base.workload {
        Workload::Training(t) => (true, t.global_batch),
        Workload::Inference(_) => (false, 0),
    };
    let base_valid = errors(&base_diags).next().is_none();
    let ctx = Ctx {
        s,
        training,
        global_batch,
        base_n: s.base.hardware.gpus,
        base_shard_group: s.base.levers.shard_group,
        base_choice: base_valid.then(|| choice_of(&base_r)),
        counts: space::gpu_counts(s, hardware_changes),
        econ: hw.iter().map(|h| price::economics_for(s, h.gpu)).collect(),
        hw,
        hw_is_base,
        allowed,
    };

    let mut col = Collector::new();
    let mut t = Counters::default();
    for hi in 0..ctx.hw.len() {
        for &n in &ctx.counts {
            walk(&ctx, hi, n, mode, &mut col, &mut t, obs);
        }
    }

    for &hi in &t.unpriced {
        let name = match (ctx.hw[hi].gpu, &s.base.hardware.gpu) {
            (Some(id), _) => crate::catalog::gpu(id).name.to_string(),
            (None, crate::hardware::GpuChoice::Custom(g)) => g.name.clone(),
            (None, _) => String::new(),
        };
        if !out.unpriced.contains(&name) {
            out.unpriced.push(name);
        }
    }
    out.counts = Counts {
        hardware_options: u32::try_from(ctx.hw.len()).unwrap_or(u32::MAX),
        gpu_counts: ctx.counts.clone(),
        combinations: t.combinations,
        pruned_after_non_fit: t.after_non_fit,
        pruned_idle_cxl: t.idle_cxl,
        evaluated: t.evaluated,
        fitting: t.fitting,
        feasible: t.feasible,
    };
    if base_valid {
        out.baseline = Some(Found::new(PlanFamily::Baseline, s.base.clone(), &s.base));
    }
    out.frontier = col.frontier.iter().map(|e| ctx.found(e)).collect();
    let best = |f: PlanFamily| col.best[family_index(f)].as_ref().map(|e| ctx.found(e));
    out.best = FamilyBests {
        algorithmic: best(PlanFamily::Algorithmic),
        hardware: best(PlanFamily::Hardware),
        hybrid: best(PlanFamily::Hybrid),
    };
    out.fewest_gpus = col.fewest.as_ref().map(|e| ctx.found(e));
    let mut kinds: Vec<Entry> = col.by_kind.iter().map(|(_, e)| *e).collect();
    kinds.sort_by(by_cost);
    out.by_gpu_kind = kinds.iter().map(|e| ctx.found(e)).collect();
    out.largest_batch = col.largest.as_ref().map(|e| ctx.found(e));

    // The longest context among the plans returned, ties to the cheapest.
    let mut returned: Vec<Entry> = col.frontier.clone();
    returned.extend(col.best.iter().flatten());
    returned.extend(col.fewest);
    returned.extend(col.largest);
    returned.extend(kinds);
    returned.sort_by(by_cost);
    returned.dedup_by(|a, b| a.key == b.key);
    out.longest_context = returned
        .iter()
        .map(|e| (e, ctx.found(e)))
        .min_by(|(a, fa), (b, fb)| {
            fb.figures
                .max_context
                .cmp(&fa.figures.max_context)
                .then(by_cost(a, b))
        })
        .map(|(_, f)| f);
    out.diagnostics = diagnostics;
    out
}

/// Walks every candidate on one hardware option and GPU count.
fn walk<O: Observe>(
    ctx: &Ctx,
    hi: usize,
    n: u32,
    mode: Mode,
    col: &mut Collector,
    t: &mut Counters,
    obs: &mut O,
) {
    let s = ctx.s;
    let h = &ctx.hw[hi];
    let mut probe_plan = s.base.clone();
    probe_plan.hardware = h.hardware.clone();
    probe_plan.hardware.gpus = n;
    probe_plan.economics = ctx.econ[hi].clone();
    let (probe, _, diags) = resolve(&probe_plan);
    if errors(&diags).any(|d| !about_levers(&d.detail)) {
        return;
    }
    let base = &probe.levers;
    let per_hour = price::usd_per_hour(&probe_plan, &probe);
    if per_hour.is_none() && !t.unpriced.contains(&hi) {
        t.unpriced.push(hi);
    }
    let per_hour_ok = match (s.constraints.max_usd_per_hour, per_hour) {
        (Some(cap), Some(p)) => p <= cap.as_usd(),
        (Some(_), None) => false,
        (None, _) => true,
    };
    if !per_hour_ok {
        return;
    }
    let c = &s.constraints;
    let precisions = space::precisions(&probe, base.precision, c.quantization);
    // Under placement by heat the offload levers are the placement's to
    // choose: only the base plan's (ignored) setting is generated, and
    // neither pruning rule applies (a greedy placement is not provably
    // monotone in the batch).
    let by_heat = base.placement == Placement::ByHeat;
    let offloads = if by_heat {
        vec![space::OffloadOption {
            offload: base.offload,
            uses_cxl: true,
        }]
    } else {
        space::offloads(&probe, base.offload, c.offload)
    };
    let prune = mode == Mode::Pruned && !by_heat;
    let ckpts = space::checkpointings(base.checkpointing, ctx.training);
    let base_batch = match probe.work {
        Work::Train { .. } => base.parallel.micro_batch,
        Work::Infer { batch, .. } => batch,
    };
    let mut r = probe;
    let mut tables = crate::memory::Tables::with_memo();
    for d in space::degrees(&probe, n, s.space.max_context_parallel, ctx.global_batch) {
        let sps = space::sequence_parallel(d.tp, base.parallel.sequence_parallel, ctx.training);
        let shards = space::shardings(d.dp * d.cp, base.sharding, ctx.training);
        let scheds = space::schedules(
            probe.spec.layers,
            d.pp,
            base.parallel.schedule,
            s.space.interleaving,
            ctx.training,
        );
        let sizes = if ctx.training {
            space::micro_batches(ctx.global_batch / d.dp, s.space.max_micro_batch, base_batch)
        } else {
            space::batches(s.space.max_batch, base_batch)
        };
        for (spi, &sp) in sps.iter().enumerate() {
            for (shi, &sharding) in shards.iter().enumerate() {
                for (cki, &checkpointing) in ckpts.iter().enumerate() {
                    for (pri, &precision) in precisions.iter().enumerate() {
                        for (ofi, off) in offloads.iter().enumerate() {
                            let idle_cxl = h.added_cxl == AddedCxl::Yes && !off.uses_cxl;
                            for (sci, &schedule) in scheds.iter().enumerate() {
                                let key = |b: usize| -> Key {
                                    let u = |i: usize| u32::try_from(i).unwrap_or(u32::MAX);
                                    [
                                        u(hi),
                                        n,
                                        d.tp,
                                        d.pp,
                                        d.cp,
                                        d.ep,
                                        u(spi),
                                        u(shi),
                                        u(cki),
                                        u(pri),
                                        u(ofi),
                                        u(sci),
                                        u(b),
                                    ]
                                };
                                let mut stop = false;
                                for (bi, &batch) in sizes.iter().enumerate() {
                                    let choice = Choice {
                                        degrees: d,
                                        sp,
                                        schedule,
                                        sharding,
                                        checkpointing,
                                        precision,
                                        offload: off.offload,
                                        batch,
                                    };
                                    // Interleaving needs whole rounds of micro-batches.
                                    if ctx.training {
                                        let m = crate::partition::micro_batch_count(
                                            ctx.global_batch,
                                            batch,
                                            d.dp,
                                        );
                                        if matches!(
                                            schedule,
                                            crate::plan::PipelineSchedule::Interleaved { .. }
                                        ) && d.pp > 1
                                            && m % d.pp != 0
                                        {
                                            continue;
                                        }
                                    }
                                    let family = ctx.family(hi, n, &choice);
                                    if !ctx.allowed[family_index(family)] {
                                        continue;
                                    }
                                    t.combinations += 1;
                                    if prune {
                                        if idle_cxl {
                                            t.idle_cxl += 1;
                                            continue;
                                        }
                                        if stop {
                                            t.after_non_fit += 1;
                                            continue;
                                        }
                                    }
                                    choice.apply_resolved(
                                        &mut r,
                                        ctx.base_shard_group,
                                        ctx.global_batch,
                                    );
                                    t.evaluated += 1;
                                    let heated;
                                    let r = if by_heat {
                                        heated = quick::placed(r);
                                        &heated
                                    } else {
                                        &r
                                    };
                                    let mem = quick::memory(r, &mut tables);
                                    if !mem.fits {
                                        obs.seen(ctx, hi, n, &choice, None);
                                        stop = true;
                                        continue;
                                    }
                                    t.fitting += 1;
                                    let time = quick::time_of(r, &tables);
                                    obs.seen(ctx, hi, n, &choice, Some(time));
                                    let Some(e) = judge(ctx, per_hour, &time) else {
                                        continue;
                                    };
                                    t.feasible += 1;
                                    col.offer(
                                        Entry {
                                            key: key(bi),
                                            hw: hi,
                                            n,
                                            choice,
                                            family,
                                            cost: e.0,
                                            latency: e.1,
                                        },
                                        h.gpu,
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Cost and latency of a fitting candidate, if it meets the constraints.
fn judge(ctx: &Ctx, per_hour: Option<f64>, time: &QuickTime) -> Option<(f64, f64)> {
    let c = &ctx.s.constraints;
    let under = |v: crate::units::Seconds, cap: Option<crate::units::Seconds>| {
        cap.is_none_or(|cap| v.base() <= cap.base())
    };
    let tokens_per_second = match *time {
        QuickTime::Training {
            step,
            tokens_per_step,
        } => {
            if !under(step, c.max_step_time) {
                return None;
            }
            if step.base() > 0.0 {
                tokens_per_step / step.base()
            } else {
                0.0
            }
        }
        QuickTime::Inference {
            ttft,
            tpot,
            output_tokens_per_second,
            ..
        } => {
            if !under(ttft, c.max_ttft) || !under(tpot, c.max_tpot) {
                return None;
            }
            output_tokens_per_second
        }
    };
    let latency = time.latency().base();
    if !latency.is_finite() {
        return None;
    }
    let cost = price::usd_per_million_tokens(per_hour, tokens_per_second);
    if let Some(cap) = c.max_usd_per_million_tokens {
        if cost.is_none_or(|v| v > cap.as_usd()) {
            return None;
        }
    }
    Some((cost.unwrap_or(f64::INFINITY), latency))
}
