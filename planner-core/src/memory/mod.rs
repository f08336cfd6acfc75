//! The memory model: per-device breakdowns by item and tier.
//!
//! `training` and `inference` each write a resolved plan's memory, item by
//! item, into a [`Sink`]. There are two sinks, fed by the same formulas in
//! the same order: [`Items`] keeps every item with its one-line basis for
//! the report, and [`Tally`] keeps only the fixed table of bytes per kind
//! and tier ([`Tables`]), never formats a basis and never allocates, for
//! the search.
//! Because both see the same numbers in the same order, their totals agree
//! to the bit (a property test checks it). This module also holds what the
//! two workloads share: offload splits and runtime overheads (which layers
//! a pipeline stage holds and its parameter shards are the partition's,
//! in `crate::partition`). The runtime overheads end with the caching
//! allocator's reserve: `granules` says which tensors each item is made
//! of, `allocator` what PyTorch's allocator holds for them.

pub(crate) mod activations;
pub(crate) mod allocator;
pub(crate) mod breakdown;
pub(crate) mod granules;
mod inference;
pub(crate) mod speculator;
mod training;

use crate::catalog::CommPattern;
use crate::lang::Named;
use crate::plan::{OffloadTarget, Tier};
use crate::report::{DeviceMemory, DeviceRole, Interval, ItemKind, MemoryItem, TierUse};
use crate::resolve::{tier_index, Resolved, Work};
use crate::software::ExpandableSegments;
use crate::units::Bytes;
use breakdown::Breakdown;

pub(crate) use crate::partition::Stage;
pub(crate) use inference::{kv_bytes_per_token, kv_per_token_layer_rank};
pub(crate) use training::block_shape;
pub(crate) use training::in_flight as training_in_flight;

/// Where the memory formulas write their items.
///
/// A formula states each item once, with its bytes, its offload lever and a
/// closure that words its basis; [`Sink::place`] splits the bytes between
/// HBM and the offload tier and hands each part to [`Sink::record`]. The
/// basis closure is only called by sinks that keep text, so the fast sink
/// never formats a string.
pub(crate) trait Sink {
    /// Records `bytes` of `kind` in `tier`.
    fn record<B: Fn() -> String>(&mut self, kind: ItemKind, tier: Tier, bytes: f64, basis: &B);

    /// HBM bytes of transient kinds recorded so far, summed in recording
    /// order (a flat fragmentation is a fraction of them).
    fn transient_hbm(&self) -> f64;

    /// HBM bytes of one kind recorded so far, summed in recording order.
    fn hbm_of(&self, kind: ItemKind) -> f64;

    /// Whether this sink only needs the fit verdict and a tier is already
    /// past its capacity: items are never negative, so nothing recorded
    /// after this can make the device fit, and the formulas may stop (the
    /// search's walk; every other sink records everything).
    fn past_capacity(&self) -> bool {
        false
    }

    /// A memo of activation walks, if this sink keeps one (the search's).
    fn memo(&mut self) -> Option<&mut training::StoredMemo> {
        None
    }

    /// The plan's tensor sizes, if this sink worked them out once for
    /// every stage, and a memo of allocator mixes, if it keeps one (the
    /// search's).
    fn allocator(&mut self) -> (Option<&granules::Granules>, Option<&mut allocator::MixMemo>) {
        (None, None)
    }

    /// Adds an item in HBM.
    fn hbm<B: Fn() -> String>(&mut self, kind: ItemKind, bytes: f64, basis: B) {
        self.place(kind, bytes, None, basis);
    }

    /// Adds an item, moving the offloaded fraction to its tier. Empty,
    /// negative and NaN amounts are dropped.
    fn place<B: Fn() -> String>(
        &mut self,
        kind: ItemKind,
        bytes: f64,
        offload: Option<OffloadTarget>,
        basis: B,
    ) {
        // Also skips NaN.
        if bytes.is_nan() || bytes <= 0.0 {
            return;
        }
        match offload {
            Some(o) if o.tier != Tier::Hbm && o.fraction > 0.0 => {
                let moved = bytes * o.fraction;
                if moved < bytes {
                    self.record(kind, Tier::Hbm, bytes - moved, &basis);
                }
                self.record(kind, o.tier, moved, &basis);
            }
            _ => self.record(kind, Tier::Hbm, bytes, &basis),
        }
    }
}

/// Allocations that live only while a step or pass runs; the caching
/// allocator's fragmentation is charged against them.
fn is_transient(kind: ItemKind) -> bool {
    matches!(
        kind,
        ItemKind::Activations
            | ItemKind::EmbeddingActivations
            | ItemKind::RecomputeWorkingSet
            | ItemKind::BackwardWorkingSet
            | ItemKind::AutocastCache
            | ItemKind::Logits
            | ItemKind::GatherBuffers
            | ItemKind::PrefillActivations
    )
}

/// The report's sink: every item with its basis.
pub(crate) struct Items {
    pub items: Vec<MemoryItem>,
    transient: f64,
}

impl Sink for Items {
    fn record<B: Fn() -> String>(&mut self, kind: ItemKind, tier: Tier, bytes: f64, basis: &B) {
        if tier == Tier::Hbm && is_transient(kind) {
            self.transient += bytes;
        }
        self.items.push(MemoryItem {
            kind,
            tier,
            bytes: Bytes::new(bytes),
            basis: basis(),
        });
    }

    fn transient_hbm(&self) -> f64 {
        self.transient
    }

    fn hbm_of(&self, kind: ItemKind) -> f64 {
        let mut sum = 0.0;
        for i in self
            .items
            .iter()
            .filter(|i| i.kind == kind && i.tier == Tier::Hbm)
        {
            sum += i.bytes.base();
        }
        sum
    }
}

impl Items {
    pub fn new() -> Self {
        Self {
            items: Vec::with_capacity(20),
            transient: 0.0,
        }
    }

    /// Finishes a device: sums per tier against capacity.
    pub fn into_device(self, r: &Resolved, st: &Stage) -> DeviceMemory {
        let mut tiers = Vec::with_capacity(4);
        for tier in Tier::ALL {
            let used: Bytes = self
                .items
                .iter()
                .filter(|i| i.tier == tier)
                .map(|i| i.bytes)
                .sum();
            let capacity = r.capacity(tier);
            let (mut low, mut high) = (0.0, 0.0);
            for i in self.items.iter().filter(|i| i.tier == tier) {
                let (l, h) = i.kind.relative_range();
                low += l * i.bytes.base();
                high += h * i.bytes.base();
            }
            if tier == Tier::Hbm || used.base() > 0.0 || capacity.base() > 0.0 {
                tiers.push(TierUse {
                    tier,
                    used,
                    capacity,
                    range: Interval {
                        low: Bytes::new(low),
                        high: Bytes::new(high),
                    },
                });
            }
        }
        DeviceMemory {
            role: st.role,
            layers: st.layers(),
            items: self.items,
            tiers,
        }
    }
}

/// The search's sink: bytes per kind and tier, and per-tier totals summed
/// in the order the report sums its items (so the verdicts agree to the
/// bit). No strings, no heap; it writes into a table the caller owns.
pub(crate) struct Tally<'a> {
    table: &'a mut Breakdown,
    used: &'a mut [f64; 4],
    transient: f64,
    memo: Option<&'a mut training::StoredMemo>,
    granules: Option<&'a granules::Granules>,
    mix: Option<&'a mut allocator::MixMemo>,
    /// Each tier's capacity, where only the verdict is wanted.
    verdict_only: Option<[f64; 4]>,
}

impl Sink for Tally<'_> {
    #[inline]
    fn record<B: Fn() -> String>(&mut self, kind: ItemKind, tier: Tier, bytes: f64, _: &B) {
        if tier == Tier::Hbm && is_transient(kind) {
            self.transient += bytes;
        }
        self.table.add(kind, tier, bytes);
        self.used[tier_index(tier)] += bytes;
    }

    fn transient_hbm(&self) -> f64 {
        self.transient
    }

    fn hbm_of(&self, kind: ItemKind) -> f64 {
        self.table.get(kind, Tier::Hbm)
    }

    fn past_capacity(&self) -> bool {
        self.verdict_only
            .is_some_and(|cap| self.used.iter().zip(cap).any(|(u, c)| *u > c))
    }

    fn memo(&mut self) -> Option<&mut training::StoredMemo> {
        self.memo.as_deref_mut()
    }

    fn allocator(&mut self) -> (Option<&granules::Granules>, Option<&mut allocator::MixMemo>) {
        (self.granules, self.mix.as_deref_mut())
    }
}

/// The memory tables of every distinct device of a plan, in report order,
/// with their per-tier totals. Reused from candidate to candidate, so the
/// search neither allocates nor copies tables around.
#[derive(Debug, Clone)]
pub(crate) struct Tables {
    tables: [Breakdown; 2],
    used: [[f64; 4]; 2],
    len: usize,
    memo: Option<training::StoredMemo>,
    mix: Option<allocator::MixMemo>,
    /// Stop filling a device once a tier is past its capacity: its tables
    /// are then partial, and only `fits` may be read of them.
    verdict_only: bool,
}

impl Default for Tables {
    fn default() -> Self {
        Self {
            tables: [Breakdown::empty(DeviceRole::OnlyStage, 0, 0); 2],
            used: [[0.0; 4]; 2],
            len: 0,
            memo: None,
            mix: None,
            verdict_only: false,
        }
    }
}

impl Tables {
    /// Tables that remember activation walks and allocator mixes across
    /// fills (the search's: two allocations, then none per candidate).
    pub fn with_memo() -> Self {
        Self {
            memo: Some(training::StoredMemo::new()),
            mix: Some(allocator::MixMemo::new()),
            ..Self::default()
        }
    }

    /// These tables, stopping a device's fill once a tier is past its
    /// capacity when `on` (the tables of a device that does not fit are
    /// then partial: only its verdict may be read).
    pub fn verdicts_only(self, on: bool) -> Self {
        Self {
            verdict_only: on,
            ..self
        }
    }

    /// The memory of `r`, overwriting what was there.
    pub fn fill(&mut self, r: &Resolved) {
        // The tensor sizes depend on the plan, not the stage: once for all.
        let g = granules::Granules::of(r);
        self.fill_with(r, g.as_ref());
    }

    /// [`Tables::fill`] with the plan's tensor sizes already worked out
    /// (`Granules::of(r)`, which a caller evaluating `r` again keeps).
    pub fn fill_with(&mut self, r: &Resolved, g: Option<&granules::Granules>) {
        let sts = r.split.stages;
        self.len = sts.len();
        // In tier order, as `fits` compares them.
        let verdict_only = self.verdict_only.then(|| r.capacity.map(|c| c.base()));
        for ((st, table), used) in sts.iter().zip(&mut self.tables).zip(&mut self.used) {
            *table = Breakdown::empty(st.role, st.rank, st.layers());
            *used = [0.0; 4];
            let mut t = Tally {
                table,
                used,
                transient: 0.0,
                memo: self.memo.as_mut(),
                granules: g,
                mix: self.mix.as_mut(),
                verdict_only,
            };
            fill(&mut t, r, st);
        }
    }

    /// One table per distinct device.
    pub fn tables(&self) -> &[Breakdown] {
        &self.tables[..self.len]
    }

    /// Whether device `i` fits every tier (as `TierUse::fits` says).
    pub fn fits(&self, r: &Resolved, i: usize) -> bool {
        self.used[i]
            .iter()
            .zip(r.capacity.iter())
            .all(|(u, c)| *u <= c.base())
    }

    /// HBM capacity minus use of device `i` (as `TierUse::margin`).
    pub fn hbm_margin(&self, r: &Resolved, i: usize) -> f64 {
        (r.capacity(Tier::Hbm) - Bytes::new(self.used[i][0])).base()
    }
}

/// The library workspaces one device holds for the whole run, with how
/// they were counted: `overheads.workspace` where the plan sets it, else
/// PyTorch's cuBLAS + cuBLASLt workspace for each (handle, stream) pair
/// that runs GEMMs, and Transformer Engine's own under Megatron-Core.
///
/// PyTorch keys its workspaces by (cuBLAS handle, stream) and hands each
/// thread its own handle (`DeviceThreadHandlePool`, a thread-local pool
/// window, in `aten/src/ATen/cuda/CublasHandlePool.cpp`). The autograd
/// engine runs a CUDA backward on its own device thread
/// (`Engine::start_device_threads`, `torch/csrc/autograd/engine.cpp`), so
/// training holds two: the forward's, on the caller's thread, and the
/// backward's. Serving runs on one thread.
fn workspaces(r: &Resolved) -> Bytes {
    let bytes = workspace_tensors(r)
        .iter()
        .map(|(count, each)| count * each)
        .sum();
    Bytes::new(bytes)
}

/// The tensors [`workspaces`] is made of, as (count, bytes of each), so
/// the allocator model rounds each as the caching allocator does
/// (`granules.rs`): a cuBLAS and a cuBLASLt workspace per handle, then
/// Transformer Engine's, one per stream it runs GEMMs on; a set
/// `overheads.workspace` is one tensor.
pub(crate) fn workspace_tensors(r: &Resolved) -> [(f64, f64); 3] {
    let o = &r.overheads;
    if let Some(b) = o.workspace {
        return [(1.0, b.base()), (0.0, 0.0), (0.0, 0.0)];
    }
    let (blas, lt) = o.blas_buffers(r.gpu.arch);
    let handles = blas_handles(r);
    let te = te_in_force(r).map_or((0.0, 0.0), |(each, count, _)| {
        (f64::from(count), each.base())
    });
    [(handles, blas.base()), (handles, lt.base()), te]
}

/// Training's two cuBLAS handles, serving's one (see [`workspaces`]).
fn blas_handles(r: &Resolved) -> f64 {
    if matches!(r.work, Work::Train { .. }) {
        2.0
    } else {
        1.0
    }
}

/// Transformer Engine's workspaces where its GEMMs run: training under
/// Megatron-Core (grouped ones too for an MoE model's experts).
fn te_in_force(r: &Resolved) -> Option<(Bytes, u32, &'static str)> {
    let te = matches!(r.work, Work::Train { .. })
        && r.levers.training_stack == Some(crate::stack::TrainingStack::MegatronCore);
    te.then(|| crate::catalog::te_workspace(r.gpu.arch, r.spec.moe.is_some()))
        .flatten()
}

/// How [`workspaces`] counted, in one line.
fn workspaces_basis(r: &Resolved) -> String {
    let o = &r.overheads;
    if o.workspace.is_some() {
        return "library workspaces as set (overheads.workspace)".into();
    }
    let pytorch = match o.cublas_workspace {
        Some(_) => "CUBLAS_WORKSPACE_CONFIG as set (overheads.cublas_workspace) + cuBLASLt",
        None => crate::catalog::blas_workspace(r.gpu.arch).1,
    };
    let threads = if blas_handles(r) > 1.0 {
        " for each of the forward's and the autograd engine's threads"
    } else {
        ""
    };
    let te = match te_in_force(r) {
        Some((_, count, how)) if count > 1 => format!(
            " + {how}, and {} more for the experts' grouped GEMMs (cpp_extensions/gemm.py)",
            count - 1
        ),
        Some((_, _, how)) => format!(" + {how} (cpp_extensions/gemm.py)"),
        None => String::new(),
    };
    format!("PyTorch's {pytorch}{threads}, from its caching allocator (CublasHandlePool.cpp){te}")
}

/// Adds context, workspaces, NCCL buffers and the allocator's reserve:
/// the caching-allocator model, or a flat fraction where the plan sets
/// one (`overheads.fragmentation`).
pub(crate) fn overheads<S: Sink>(s: &mut S, r: &Resolved, groups: &Groups) {
    let o = &r.overheads;
    s.hbm(ItemKind::CudaContext, o.context().base(), || {
        match o.cuda_context {
            Some(_) => "CUDA context as set (overheads.cuda_context)".into(),
            None => {
                let e = crate::catalog::cuda_context(o.cuda, o.module_loading);
                format!(
                    "CUDA context, {} with {}: {}",
                    o.cuda.en(),
                    o.module_loading.en(),
                    e.source
                )
            }
        }
    });
    s.hbm(ItemKind::Workspace, workspaces(r).base(), || {
        workspaces_basis(r)
    });
    nccl_buffers(s, r, groups);
    match o.fragmentation {
        Some(f) => {
            let transient = s.transient_hbm();
            s.hbm(ItemKind::Fragmentation, transient * f, || {
                format!(
                    "{:.0}% of transient allocations (overheads.fragmentation)",
                    f * 100.0
                )
            });
        }
        None => {
            let hbm = ItemKind::ALL.map(|kind| s.hbm_of(kind));
            let (shared, mut mix) = s.allocator();
            let own;
            let g = match shared {
                Some(g) => g,
                None => {
                    own = granules::Granules::new(r);
                    &own
                }
            };
            let mut pools = allocator::Pools::default();
            let mut tensors = 0.0;
            for (kind, bytes) in ItemKind::ALL.into_iter().zip(hbm) {
                if bytes > 0.0 && kind.accounting() == crate::report::Accounting::Tensor {
                    pools = pools.add(g.pools(kind, bytes, mix.as_deref_mut()));
                    tensors += bytes;
                }
            }
            let mode = o.expandable_segments;
            let extra = pools.reserved(mode) - tensors;
            s.hbm(ItemKind::AllocatorRounding, extra, || {
                format!(
                    "PyTorch caching allocator with {}: 512 B rounding, 2 MiB small and \
                     20 MiB / 2 MiB-rounded large segments, split tails \
                     (c10/cuda/CUDACachingAllocator.cpp)",
                    mode.en()
                )
            });
        }
    }
}

/// The caching allocator's reserve beyond the tensors at a training
/// step's peak: a share (`overheads.allocator_cache`, by default
/// [`allocator::CACHE_PER_LAZY_STATE`]) of the states the stack creates
/// inside the first step. Nothing when the plan sets a flat
/// `overheads.fragmentation`, which replaces the allocator model, and
/// nothing with `expandable_segments`: before it reports an out-of-memory
/// error that allocator unmaps the free pages of every segment
/// (`release_cached_blocks` → `release_expandable_segment`), so no
/// segment stays pinned.
pub(crate) fn allocator_cache<S: Sink>(s: &mut S, r: &Resolved) {
    use crate::stack::StateAllocation as A;
    let o = &r.overheads;
    if o.fragmentation.is_some() || o.expandable_segments == ExpandableSegments::On {
        return;
    }
    let share = o.allocator_cache.unwrap_or(allocator::CACHE_PER_LAZY_STATE);
    let lazy = match r.state_allocation {
        A::Lazy => s.hbm_of(ItemKind::Gradients) + s.hbm_of(ItemKind::OptimizerStates),
        A::GradientBuffer => s.hbm_of(ItemKind::OptimizerStates),
        A::Preallocated => 0.0,
    };
    s.hbm(ItemKind::AllocatorCache, lazy * share, || {
        let what = match r.state_allocation {
            A::Lazy => "gradients and optimizer states",
            A::GradientBuffer => "optimizer states",
            A::Preallocated => "states",
        };
        format!(
            "{:.1}% of the {:.1} GiB of {what} created inside the first step: \
             they land in blocks the first pass freed and pin those segments \
             (fitted on H200 runs; CUDACachingAllocator.cpp)",
            share * 100.0,
            Bytes::new(lazy).as_gib(),
        )
    });
}

/// The process groups of size > 1 a rank belongs to, each with its NCCL
/// communicator: (pattern, ranks, ranks of it in the rank's node). Ranks
/// are laid out TP fastest, then CP, EP and DP (Megatron-Core's
/// `tp-cp-ep-dp-pp` order), so a group's stride is the product of the
/// degrees before it.
/// No heap: the search evaluates this per candidate.
pub(crate) type Groups = [Option<(CommPattern, u32, u32)>; 5];

/// The process groups of a resolved plan (see [`Groups`]).
pub(crate) fn process_groups(r: &Resolved) -> Groups {
    let node = r.net.domain.max(1);
    let local = |ranks: u32, stride: u32| ranks.min((node / stride.max(1)).max(1));
    let mut g: Groups = [None; 5];
    let mut i = 0;
    let mut add = |p: CommPattern, ranks: u32, stride: u32| {
        if let (true, Some(slot)) = (ranks > 1, g.get_mut(i)) {
            *slot = Some((p, ranks, local(ranks, stride)));
            i += 1;
        }
    };
    add(CommPattern::Collective, r.tp, 1);
    add(CommPattern::PointToPoint, r.cp, r.tp);
    add(CommPattern::AllToAll, r.ep, r.tp.saturating_mul(r.cp));
    if let Work::Train { .. } = r.work {
        add(CommPattern::Collective, r.dp.saturating_mul(r.cp), r.tp);
    }
    add(
        CommPattern::PointToPoint,
        r.pp,
        r.tp.saturating_mul(r.cp).saturating_mul(r.dp),
    );
    g
}

/// NCCL's buffers: one communicator per process group, each the measured
/// figure of its pattern and size (`catalog::nccl_memory`), or the plan's
/// flat `overheads.nccl_per_group`.
fn nccl_buffers<S: Sink>(s: &mut S, r: &Resolved, groups: &Groups) {
    let n = groups.iter().flatten().count();
    match r.overheads.nccl_per_group {
        Some(per) => s.hbm(ItemKind::NcclBuffers, per.base() * n as f64, || {
            format!("{n} process group(s) of size > 1 × overheads.nccl_per_group")
        }),
        None => {
            for &(pattern, ranks, local) in groups.iter().flatten() {
                let (b, e) = crate::catalog::nccl_memory(pattern, ranks, local);
                s.hbm(ItemKind::NcclBuffers, b.base(), || {
                    format!("{pattern:?} communicator of {ranks} ranks: {}", e.source)
                });
            }
        }
    }
}

/// Writes the memory of one stage into a sink.
fn fill<S: Sink>(s: &mut S, r: &Resolved, st: &Stage) {
    match r.work {
        Work::Train {
            kind,
            seq,
            micro_batches,
        } => training::fill(s, r, st, kind, seq, micro_batches),
        Work::Infer {
            prompt,
            output,
            batch,
            logits,
        } => inference::fill(s, r, st, prompt, output, batch, logits),
    }
}

/// The breakdown of every distinct device of the plan, with bases.
pub(crate) fn devices(r: &Resolved) -> Vec<DeviceMemory> {
    r.split
        .stages
        .iter()
        .map(|st| {
            let mut items = Items::new();
            fill(&mut items, r, st);
            items.into_device(r, st)
        })
        .collect()
}

/// Whether every tier of every device fits, without building the report.
pub(crate) fn fits(r: &Resolved) -> bool {
    let mut t = Tables::default();
    t.fill(r);
    (0..t.len).all(|i| t.fits(r, i))
}

/// Whether every device's HBM fits, without building the report.
pub(crate) fn hbm_fits(r: &Resolved) -> bool {
    let mut t = Tables::default();
    t.fill(r);
    (0..t.len).all(|i| t.used[i][0] <= r.capacity(Tier::Hbm).base())
}

/// Whether every device's use of `tier` fits its capacity, without
/// building the report (as `TierUse::fits` says for that tier).
pub(crate) fn tier_fits(r: &Resolved, tier: Tier) -> bool {
    let mut t = Tables::default();
    t.fill(r);
    let k = tier_index(tier);
    (0..t.len).all(|i| t.used[i][k] <= r.capacity(tier).base())
}
