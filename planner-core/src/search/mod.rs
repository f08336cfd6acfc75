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

mod disagg;
mod price;
mod result;
mod scenario;
mod serving;
mod serving_space;
mod serving_ways;
mod slice;
mod space;
#[cfg(test)]
mod tests;
mod tie;

pub use crate::effort::PlanFamily;
pub use result::{figures, Counts, FamilyBests, Figures, Found, SearchResult, Speed};
pub use scenario::{
    example_scenario, Constraints, GpuCounts, GpuPrice, Interleaving, Permission, Scenario, Space,
};
pub use serving::{
    example_serving_scenario, search_serving, stream_rate, ServingFound, ServingScenario,
    ServingSearch, ServingSpace,
};
pub use serving_ways::{
    cost_range, fp8, listed_tpot, on_each_gpu_kind, rank_answers, rank_ways, serving_ways,
    software_formats, RankedWay, ServingWay, WayKey,
};
pub use slice::{merge, search_slice, slices, Partial, Slice};
pub use tie::ties;

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

    /// A candidate's memory was filled: the resolved plan as the walk left
    /// it and its tables, as the search's memos made them.
    fn filled(&mut self, _: &Resolved, _: &crate::memory::Tables) {}

    /// Whether [`Observe::filled`] reads whole tables. Otherwise the walk
    /// stops filling a candidate's device once a tier is past its capacity
    /// (`Tables::verdict_only`): the verdict is the same, and about a third
    /// of the candidates, those that do not fit, skip the rest of the
    /// memory model.
    const WHOLE_TABLES: bool = false;
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

/// One feasible candidate, as the collector keeps it (and as a slice of
/// the search hands it to the merge).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    key: Key,
    hw: usize,
    n: u32,
    choice: Choice,
    family: PlanFamily,
    /// $ per million tokens; +∞ when the GPU has no price (`null` in
    /// JSON, which has no infinity).
    #[serde(with = "slice::unpriced_as_null")]
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
            | K::DualPipeMicroBatches { .. }
            | K::EpWithoutMoe { .. }
            | K::EpExperts { .. }
            | K::EpRanks { .. }
            | K::CpSequence { .. }
            | K::BatchSplit { .. }
            | K::ShardGroup { .. }
            | K::MissingTier { .. }
            | K::StackCannotRun { .. }
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
    /// The training stack in force for the base plan (`None` serving):
    /// candidates are only what it runs, and found plans are evaluated
    /// on it.
    stack: Option<crate::stack::TrainingStack>,
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
        let moved = self.hw[hw].stack.is_some() || self.hw[hw].attention.is_some();
        let lev_changed =
            moved || group_dropped || self.base_choice.as_ref().is_none_or(|b| !c.same_levers(b));
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
        // A plan that names no stack would be evaluated on the first that
        // runs its levers; name the one the search priced it on when that
        // is another. A plan moved to another framework always names it.
        self.hw[hw].apply(&mut plan.levers);
        if self.hw[hw].stack.is_none() && plan.training_stack() != self.stack {
            plan.levers.training_stack = self.stack;
        }
        plan
    }

    /// The framework a hardware option's candidates run on.
    #[inline]
    fn stack_of(&self, hw: usize) -> Option<crate::stack::TrainingStack> {
        self.hw[hw].stack.or(self.stack)
    }

    /// Whether the stack in force runs a candidate's levers (always, when
    /// serving).
    #[inline]
    fn runs(&self, hw: usize, c: &Choice) -> bool {
        let d = &c.degrees;
        self.stack_of(hw).is_none_or(|st| {
            st.runs(&crate::capability::Layout {
                sharding: c.sharding,
                dp: d.dp,
                tp: d.tp,
                pp: d.pp,
                cp: d.cp,
                ep: d.ep,
                offload: c.offload,
                checkpointing: c.checkpointing,
                schedule: c.schedule,
            })
            .is_ok()
        })
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
#[derive(Debug, Default, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Counters {
    combinations: u64,
    after_non_fit: u64,
    idle_cxl: u64,
    evaluated: u64,
    fitting: u64,
    feasible: u64,
    unsupported: u64,
    /// Hardware options whose price is unknown.
    unpriced: Vec<usize>,
}

/// A result with no answers yet.
fn empty(s: &Scenario) -> SearchResult {
    SearchResult {
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
    }
}

/// What every candidate shares, from the scenario and its resolved base
/// plan (`base_valid`: the base plan's levers are valid as they stand).
fn context<'a>(s: &'a Scenario, base_r: &Resolved, base_valid: bool) -> Ctx<'a> {
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
    // Frameworks are software: tried where a software or hybrid change may
    // be made.
    let stacks = if allowed[1] || allowed[3] {
        space::other_stacks(&s.space.training_stacks, s.base.training_stack())
    } else {
        Vec::new()
    };
    let kernels = if allowed[1] || allowed[3] {
        s.space.flash_attention
    } else {
        Permission::Forbidden
    };
    let hw = space::with_stacks(space::hardware_options(s, hardware_changes), &stacks);
    let hw = space::with_kernels(hw, &s.base, kernels);
    let hw_is_base = hw
        .iter()
        .map(|h| h.added_cxl == AddedCxl::No && h.hardware == s.base.hardware)
        .collect();
    let (training, global_batch) = match &s.base.workload {
        Workload::Training(t) => (true, t.global_batch),
        Workload::Inference(_) => (false, 0),
    };
    Ctx {
        s,
        training,
        global_batch,
        base_n: s.base.hardware.gpus,
        base_shard_group: s.base.levers.shard_group,
        base_choice: base_valid.then(|| choice_of(base_r)),
        counts: space::gpu_counts(s, hardware_changes),
        econ: hw.iter().map(|h| price::economics_for(s, h.gpu)).collect(),
        hw,
        hw_is_base,
        allowed,
        stack: s.base.training_stack(),
    }
}

/// Names of the GPUs of the unpriced hardware options, once each.
fn unpriced_names(ctx: &Ctx, t: &Counters) -> Vec<String> {
    let mut out = Vec::new();
    for &hi in &t.unpriced {
        let name = match (ctx.hw[hi].gpu, &ctx.s.base.hardware.gpu) {
            (Some(id), _) => crate::catalog::gpu(id).name.to_string(),
            (None, crate::hardware::GpuChoice::Custom(g)) => g.name.clone(),
            (None, _) => String::new(),
        };
        if !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

fn counts(ctx: &Ctx, t: &Counters) -> Counts {
    Counts {
        hardware_options: u32::try_from(ctx.hw.len()).unwrap_or(u32::MAX),
        frameworks: 1 + crate::stack::TrainingStack::ALL
            .iter()
            .filter(|&&st| ctx.hw.iter().any(|h| h.stack == Some(st)))
            .count() as u32,
        attention_kernels: 1 + u32::from(ctx.hw.iter().any(|h| h.attention.is_some())),
        gpu_counts: ctx.counts.clone(),
        combinations: t.combinations,
        pruned_after_non_fit: t.after_non_fit,
        pruned_idle_cxl: t.idle_cxl,
        evaluated: t.evaluated,
        fitting: t.fitting,
        feasible: t.feasible,
        unsupported: t.unsupported,
    }
}

/// The longest context among the plans returned, ties to the cheapest;
/// `kinds` are the cheapest plans per GPU kind.
fn longest_context(ctx: &Ctx, col: &Collector, kinds: Vec<Entry>) -> Option<Found> {
    let mut returned: Vec<Entry> = col.frontier.clone();
    returned.extend(col.best.iter().flatten());
    returned.extend(col.fewest);
    returned.extend(col.largest);
    returned.extend(kinds);
    returned.sort_by(by_cost);
    returned.dedup_by(|a, b| a.key == b.key);
    returned
        .iter()
        .map(|e| (e, ctx.found(e)))
        .min_by(|(a, fa), (b, fb)| {
            fb.figures
                .max_context
                .cmp(&fa.figures.max_context)
                .then(by_cost(a, b))
        })
        .map(|(_, f)| f)
}

/// The answers the collector kept, as plans with their figures.
fn answers(ctx: &Ctx, col: &Collector, out: &mut SearchResult) {
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
    out.longest_context = longest_context(ctx, col, kinds);
}

pub(crate) fn run<O: Observe>(s: &Scenario, mode: Mode, obs: &mut O) -> SearchResult {
    let (ctx, diagnostics) = match prepare(s) {
        Ok(p) => p,
        Err(out) => return *out,
    };
    let mut col = Collector::new();
    let mut t = Counters::default();
    for hi in 0..ctx.hw.len() {
        for &n in &ctx.counts {
            walk(&ctx, hi, n, mode, &mut col, &mut t, obs);
        }
    }
    finish(&ctx, &col, &t, diagnostics)
}

/// The checks before a walk: the scenario's context and the diagnostics
/// that limit the search, or the result when they stop it.
fn prepare(s: &Scenario) -> Result<(Ctx<'_>, Vec<Diagnostic>), Box<SearchResult>> {
    let (base_r, _, base_diags) = resolve(&s.base);
    let mut diagnostics: Vec<Diagnostic> = errors(&base_diags).cloned().collect();
    // The economics are checked as `evaluate` checks them: a base plan
    // with a broken price would make every answer a plan `eval` rejects.
    let (_, econ_diags) = crate::resolve::resolve_economics(&s.base);
    let econ_fatal = errors(&econ_diags).next().is_some();
    diagnostics.extend(errors(&econ_diags).cloned());
    let fatal = econ_fatal || errors(&base_diags).any(|d| !about_levers(&d.detail));
    if s.max_gpus == 0 {
        diagnostics.push(Diagnostic::error(K::InvalidValue {
            field: "max_gpus".into(),
            problem: "must be at least 1".into(),
        }));
    }
    let bad_limits = s.constraints.problems();
    for (field, v) in &bad_limits {
        diagnostics.push(Diagnostic::error(K::InvalidValue {
            field: (*field).into(),
            problem: format!("must be a positive, finite limit, got {v}"),
        }));
    }
    let too_many_cxl = s.space.cxl.len() > space::MAX_CXL_OPTIONS;
    if too_many_cxl {
        diagnostics.push(Diagnostic::error(K::InvalidValue {
            field: "space.cxl".into(),
            problem: format!(
                "{} CXL options listed, more than the {} a search walks",
                s.space.cxl.len(),
                space::MAX_CXL_OPTIONS
            ),
        }));
    }
    let n_counts = space::gpu_count_size(s);
    if n_counts > space::MAX_GPU_COUNTS {
        diagnostics.push(Diagnostic::error(K::InvalidValue {
            field: "gpu_counts".into(),
            problem: format!(
                "about {n_counts} GPU counts to try, more than the {} a search walks: list the counts, or lower max_gpus",
                space::MAX_GPU_COUNTS
            ),
        }));
    }
    if fatal
        || s.max_gpus == 0
        || !bad_limits.is_empty()
        || too_many_cxl
        || n_counts > space::MAX_GPU_COUNTS
    {
        let mut out = empty(s);
        out.diagnostics = diagnostics;
        return Err(Box::new(out));
    }
    let base_valid = errors(&base_diags).next().is_none();
    Ok((context(s, &base_r, base_valid), diagnostics))
}

/// The answers of a walk whose candidates `col` kept and `t` counted.
fn finish(ctx: &Ctx, col: &Collector, t: &Counters, diagnostics: Vec<Diagnostic>) -> SearchResult {
    let s = ctx.s;
    let mut out = empty(s);
    out.unpriced = unpriced_names(ctx, t);
    out.counts = counts(ctx, t);
    if ctx.base_choice.is_some() {
        out.baseline = Some(Found::new(PlanFamily::Baseline, s.base.clone(), &s.base));
    }
    answers(ctx, col, &mut out);
    out.diagnostics = diagnostics;
    out
}

/// One hardware option and GPU count, resolved once with the base levers.
struct Probe {
    r: Resolved,
    /// Dollars per hour of the hardware; `None` when unpriced.
    per_hour: Option<f64>,
}

/// Resolves and prices a hardware option at `n` GPUs; `None` when the
/// base plan cannot run there or the hardware costs more per hour than the
/// constraints allow.
fn probe(ctx: &Ctx, hi: usize, n: u32, t: &mut Counters) -> Option<Probe> {
    let s = ctx.s;
    let mut probe_plan = s.base.clone();
    probe_plan.hardware = ctx.hw[hi].hardware.clone();
    probe_plan.hardware.gpus = n;
    ctx.hw[hi].apply(&mut probe_plan.levers);
    probe_plan.economics = ctx.econ[hi].clone();
    let (r, _, diags) = resolve(&probe_plan);
    if errors(&diags).any(|d| !about_levers(&d.detail)) {
        return None;
    }
    let per_hour = price::usd_per_hour(&probe_plan, &r);
    if per_hour.is_none() && !t.unpriced.contains(&hi) {
        t.unpriced.push(hi);
    }
    let per_hour_ok = match (s.constraints.max_usd_per_hour, per_hour) {
        (Some(cap), Some(p)) => p <= cap.as_usd(),
        (Some(_), None) => false,
        (None, _) => true,
    };
    per_hour_ok.then_some(Probe { r, per_hour })
}

/// The lever values that do not depend on the parallel degrees.
struct Levels {
    precisions: Vec<crate::plan::Precisions>,
    offloads: Vec<space::OffloadOption>,
    ckpts: Vec<crate::plan::Checkpointing>,
    /// The base plan's micro-batch (training) or batch (serving).
    base_batch: u32,
    /// Placement by heat chooses the offload itself.
    by_heat: bool,
    /// Whether the pruning rules apply.
    prune: bool,
}

fn levels(ctx: &Ctx, probe: &Resolved, mode: Mode) -> Levels {
    let base = &probe.levers;
    let c = &ctx.s.constraints;
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
        space::offloads(probe, base.offload, c.offload)
    };
    Levels {
        precisions: space::precisions(probe, base.precision, c.quantization),
        offloads,
        ckpts: space::checkpointings(base.checkpointing, ctx.training),
        base_batch: match probe.work {
            Work::Train { .. } => base.parallel.micro_batch,
            Work::Infer { batch, .. } => batch,
        },
        by_heat,
        prune: mode == Mode::Pruned && !by_heat,
    }
}

/// The lever values that depend on the parallel degrees.
struct DegreeLevels {
    sps: Vec<crate::plan::SequenceParallel>,
    shards: Vec<crate::plan::Sharding>,
    scheds: Vec<crate::plan::PipelineSchedule>,
    /// Batches (serving) or micro-batches (training), ascending.
    sizes: Vec<u32>,
}

fn degree_levels(
    ctx: &Ctx,
    hi: usize,
    probe: &Resolved,
    lv: &Levels,
    d: &space::Degrees,
) -> DegreeLevels {
    let s = ctx.s;
    let base = &probe.levers;
    DegreeLevels {
        sps: space::sequence_parallel(d.tp, base.parallel.sequence_parallel, ctx.training),
        shards: space::shardings(d.dp * d.cp, base.sharding, ctx.stack_of(hi)),
        scheds: space::schedules(
            probe.spec.layers,
            d.pp,
            base.parallel.schedule,
            s.space.interleaving,
            ctx.training,
            ctx.stack_of(hi)
                .is_some_and(|st| st.has_schedule(crate::plan::PipelineSchedule::DualPipeV)),
        ),
        sizes: if ctx.training {
            space::micro_batches(
                ctx.global_batch / d.dp,
                s.space.max_micro_batch,
                lv.base_batch,
            )
        } else {
            space::batches(s.space.max_batch, lv.base_batch)
        },
    }
}

/// The candidate's key with `i` the index of each lever value, the batch
/// index last.
#[inline]
fn key_of(hi: usize, n: u32, d: &space::Degrees, i: [usize; 7]) -> Key {
    let u = |i: usize| u32::try_from(i).unwrap_or(u32::MAX);
    [
        u(hi),
        n,
        d.tp,
        d.pp,
        d.cp,
        d.ep,
        u(i[0]),
        u(i[1]),
        u(i[2]),
        u(i[3]),
        u(i[4]),
        u(i[5]),
        u(i[6]),
    ]
}

/// The key of a candidate's paced stage within one walk
/// (`time::training::StageMemo`): its degrees and the indices of its
/// sequence parallelism, checkpointing, number formats, schedule and
/// batch in `key` (see [`key_of`]), leaving out its sharding and offload.
#[inline]
fn stage_key(c: &Choice, key: Key) -> [u64; 5] {
    let d = c.degrees;
    let pair = |a: u32, b: u32| (u64::from(a) << 32) | u64::from(b);
    [
        pair(d.tp, d.pp),
        pair(d.dp, d.cp),
        pair(d.ep, key[6]),
        pair(key[8], key[9]),
        pair(key[11], key[12]),
    ]
}

/// Whether the schedule lacks the micro-batches it needs: interleaving
/// whole rounds of PP, DualPipeV two per rank (`resolve` refuses both).
#[inline]
fn too_few_micro_batches(ctx: &Ctx, c: &Choice) -> bool {
    use crate::plan::PipelineSchedule;
    if !ctx.training {
        return false;
    }
    let d = c.degrees;
    let m = crate::partition::micro_batch_count(ctx.global_batch, c.batch, d.dp);
    d.pp > 1
        && match c.schedule {
            PipelineSchedule::Interleaved { .. } => m % d.pp != 0,
            PipelineSchedule::DualPipeV => m < d.pp.saturating_mul(2),
            PipelineSchedule::OneFOneB | PipelineSchedule::Gpipe => false,
        }
}

/// The state of a walk over one hardware option and GPU count.
struct Walker<'a, 'c, O> {
    ctx: &'a Ctx<'c>,
    hi: usize,
    n: u32,
    per_hour: Option<f64>,
    by_heat: bool,
    prune: bool,
    /// The probe, its levers overwritten by each candidate in turn.
    r: Resolved,
    tables: crate::memory::Tables,
    /// Paced stages of this walk's training candidates.
    stages: crate::time::training::StageMemo,
    col: &'a mut Collector,
    t: &'a mut Counters,
    obs: &'a mut O,
}

impl<O: Observe> Walker<'_, '_, O> {
    /// Every batch of one combination of the other levers, ascending;
    /// `first` is that combination with the base batch, `key` its key
    /// with the batch index 0.
    fn batches(&mut self, first: Choice, key: Key, sizes: &[u32], idle_cxl: bool) {
        let mut stop = false;
        for (bi, &batch) in sizes.iter().enumerate() {
            let choice = Choice { batch, ..first };
            if too_few_micro_batches(self.ctx, &choice) {
                continue;
            }
            let family = self.ctx.family(self.hi, self.n, &choice);
            if !self.ctx.allowed[family_index(family)] {
                continue;
            }
            self.t.combinations += 1;
            if self.prune {
                if idle_cxl {
                    self.t.idle_cxl += 1;
                    continue;
                }
                if stop {
                    self.t.after_non_fit += 1;
                    continue;
                }
            }
            let mut key = key;
            key[12] = u32::try_from(bi).unwrap_or(u32::MAX);
            if !self.candidate(choice, family, key) {
                stop = true;
            }
        }
    }

    /// Evaluates one candidate and offers it to the collector if it is
    /// feasible; whether it fits.
    fn candidate(&mut self, choice: Choice, family: PlanFamily, key: Key) -> bool {
        let ctx = self.ctx;
        choice.apply_resolved(&mut self.r, ctx.base_shard_group, ctx.global_batch);
        self.t.evaluated += 1;
        let heated;
        let r = if self.by_heat {
            heated = quick::placed(self.r);
            &heated
        } else {
            &self.r
        };
        let mem = quick::memory(r, &mut self.tables);
        self.obs.filled(r, &self.tables);
        if !mem.fits {
            self.obs.seen(ctx, self.hi, self.n, &choice, None);
            return false;
        }
        self.t.fitting += 1;
        let time = quick::time_of_with(
            r,
            &self.tables,
            Some((&mut self.stages, stage_key(&choice, key))),
        );
        self.obs.seen(ctx, self.hi, self.n, &choice, Some(time));
        let Some(e) = judge(ctx, self.per_hour, &time) else {
            return true;
        };
        self.t.feasible += 1;
        self.col.offer(
            Entry {
                key,
                hw: self.hi,
                n: self.n,
                choice,
                family,
                cost: e.0,
                latency: e.1,
            },
            ctx.hw[self.hi].gpu,
        );
        true
    }
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
    let Some(Probe { r: probe, per_hour }) = probe(ctx, hi, n, t) else {
        return;
    };
    let lv = levels(ctx, &probe, mode);
    let added_cxl = ctx.hw[hi].added_cxl == AddedCxl::Yes;
    let mut w = Walker {
        ctx,
        hi,
        n,
        per_hour,
        by_heat: lv.by_heat,
        prune: lv.prune,
        r: probe,
        tables: crate::memory::Tables::with_memo().verdicts_only(!O::WHOLE_TABLES),
        stages: crate::time::training::StageMemo::new(),
        col,
        t,
        obs,
    };
    for d in space::degrees(
        &probe,
        n,
        ctx.s.space.max_context_parallel,
        ctx.global_batch,
    ) {
        let dl = degree_levels(ctx, hi, &probe, &lv, &d);
        for (spi, &sp) in dl.sps.iter().enumerate() {
            for (shi, &sharding) in dl.shards.iter().enumerate() {
                for (cki, &checkpointing) in lv.ckpts.iter().enumerate() {
                    for (pri, &precision) in lv.precisions.iter().enumerate() {
                        for (ofi, off) in lv.offloads.iter().enumerate() {
                            let idle_cxl = added_cxl && !off.uses_cxl;
                            for (sci, &schedule) in dl.scheds.iter().enumerate() {
                                let first = Choice {
                                    degrees: d,
                                    sp,
                                    schedule,
                                    sharding,
                                    checkpointing,
                                    precision,
                                    offload: off.offload,
                                    batch: 0,
                                };
                                if !ctx.runs(hi, &first) {
                                    w.t.unsupported += dl.sizes.len() as u64;
                                    continue;
                                }
                                let key = key_of(hi, n, &d, [spi, shi, cki, pri, ofi, sci, 0]);
                                w.batches(first, key, &dl.sizes, idle_cxl);
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
