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
//! two workloads share: which layers a pipeline stage holds, parameter
//! shards, offload splits and runtime overheads.

pub(crate) mod activations;
pub(crate) mod breakdown;
mod inference;
mod training;

use crate::fixed::FixedVec;
use crate::model::LayerParams;
use crate::plan::{OffloadTarget, Pruning, Tier, TrainingKind};
use crate::precision::{DoubleQuant, Precision};
use crate::report::{DeviceMemory, DeviceRole, Interval, ItemKind, MemoryItem, TierUse};
use crate::resolve::{tier_index, Resolved, Work};
use crate::units::Bytes;
use breakdown::Breakdown;

pub(crate) use inference::{kv_bytes_per_token, kv_per_token_layer_rank};
pub(crate) use training::in_flight as training_in_flight;

/// Which layers and ends of the model one pipeline stage holds.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stage {
    pub role: DeviceRole,
    /// Pipeline rank (0 or p−1).
    pub rank: u32,
    pub dense_layers: u32,
    pub moe_layers: u32,
    pub embedding: bool,
    pub head: bool,
}

impl Stage {
    pub fn layers(&self) -> u32 {
        self.dense_layers + self.moe_layers
    }
}

/// The distinct stages of a plan: one or two (a fixed array, so the search
/// path never allocates).
pub(crate) type Stages = FixedVec<Stage, 2>;

/// The distinct stages worth reporting: the only one, or the first and
/// last. Layers are dealt as Megatron-LM does with uneven splits: the first
/// L mod p stages take one extra layer.
pub(crate) fn stages(r: &Resolved) -> Stages {
    let l = r.spec.layers;
    let p = r.pp.min(l).max(1);
    let dense_total = r.params.dense_layers;
    if p == 1 {
        return Stages::one(Stage {
            role: DeviceRole::OnlyStage,
            rank: 0,
            dense_layers: dense_total,
            moe_layers: r.params.moe_layers,
            embedding: true,
            head: true,
        });
    }
    let base = l / p;
    let first = base + u32::from(l % p > 0);
    let last = base;
    let first_dense = dense_total.min(first);
    // The last stage holds layers [l - last, l); dense layers come first.
    let last_dense = dense_total.saturating_sub(l - last).min(last);
    Stages::two(
        Stage {
            role: DeviceRole::FirstStage,
            rank: 0,
            dense_layers: first_dense,
            moe_layers: first - first_dense,
            embedding: true,
            head: false,
        },
        Stage {
            role: DeviceRole::LastStage,
            rank: p - 1,
            dense_layers: last_dense,
            moe_layers: last - last_dense,
            embedding: false,
            head: true,
        },
    )
}

/// Parameter elements one device holds for a stage, after TP and EP and
/// before any ZeRO sharding.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct StageParams {
    /// Linear-layer weights outside the routed experts (attention, dense
    /// FFN, shared experts, router).
    pub linear: f64,
    /// Routed-expert weights on this EP rank.
    pub experts: f64,
    /// Norms, biases, embeddings and output layer (kept in 16 bits when the
    /// linear layers are quantized).
    pub other: f64,
    /// The largest layer on the device (ZeRO-3 gather unit).
    pub largest_layer: f64,
    /// Σ (rows + cols) of the weight matrices (Adafactor's factored state).
    pub matrix_dims: f64,
    /// LoRA adapter parameters.
    pub adapters: f64,
}

/// Parameters of one layer on one device: (linear, routed experts, small).
/// K/V projections are split over at most `kv_heads` ranks; beyond that each
/// rank holds a replica of one head (vLLM `QKVParallelLinear`).
fn layer_on_device(l: &LayerParams, t: f64, ep: f64, kv_heads: f64) -> (f64, f64, f64) {
    let kv_share = (1.0 / t).max(1.0 / kv_heads.max(1.0));
    let linear =
        (l.attention - l.kv_projections + l.dense_mlp + l.shared) / t + l.kv_projections * kv_share;
    let experts = l.experts / (ep * t);
    (linear, experts, l.small)
}

/// LoRA adapter parameters of one layer: r·(d_in + d_out) per adapted matrix.
fn lora_params(r: &Resolved, moe: bool) -> f64 {
    let (rank, targets) = match r.work {
        Work::Train {
            kind: TrainingKind::Lora(l) | TrainingKind::Qlora(l),
            ..
        } => (f64::from(l.rank), l.targets),
        _ => return 0.0,
    };
    let spec = &r.spec;
    let h = f64::from(spec.hidden);
    let s = spec.attention_shape();
    use crate::plan::LoraTargets as T;
    let qv = (h + s.q_width) + (h + s.v_width);
    let attn = qv + (h + s.k_width) + (s.o_width + h);
    let n = if spec.activation.is_gated() { 3.0 } else { 2.0 };
    let mlp = match (moe, spec.moe) {
        (true, Some(m)) => {
            n * (h + f64::from(m.expert_ffn)) * f64::from(m.experts)
                + if m.shared_ffn > 0 {
                    n * (h + f64::from(m.shared_ffn))
                } else {
                    0.0
                }
        }
        _ => n * (h + f64::from(spec.ffn)),
    };
    rank * match targets {
        T::QueryValue => qv,
        T::Attention => attn,
        T::AllLinear => attn + mlp,
    }
}

/// LoRA adapter parameters of the whole model (all layers, unsharded).
pub(crate) fn adapter_params(r: &Resolved) -> f64 {
    lora_params(r, false) * f64::from(r.params.dense_layers)
        + lora_params(r, true) * f64::from(r.params.moe_layers)
}

pub(crate) fn stage_params(r: &Resolved, st: &Stage) -> StageParams {
    let t = f64::from(r.tp);
    let ep = f64::from(r.ep);
    let p = &r.params;
    let kvh = f64::from(r.spec.kv_heads);
    let (dl, de, ds) = layer_on_device(&p.dense_layer, t, ep, kvh);
    let (ml, me, ms) = layer_on_device(&p.moe_layer, t, ep, kvh);
    let nd = f64::from(st.dense_layers);
    let nm = f64::from(st.moe_layers);
    let mut other = nd * ds + nm * ms;
    if st.embedding {
        other += p.embedding / t;
    }
    if st.head {
        // An untied head is its own matrix; a tied one is still copied onto
        // the last stage when PP > 1 (Megatron-LM keeps both ends in sync).
        let head = if p.lm_head > 0.0 {
            p.lm_head
        } else if !st.embedding {
            f64::from(r.spec.vocab) * f64::from(r.spec.hidden)
        } else {
            0.0
        };
        other += head / t + p.final_norm;
    }
    // The embedding and the output layer are gather units too (DeepSpeed's
    // estimator takes the largest module; FSDP wraps them in the root unit).
    let mut largest: f64 = if st.embedding { p.embedding / t } else { 0.0 };
    if st.head {
        largest = largest.max(p.lm_head / t);
    }
    if st.dense_layers > 0 {
        largest = largest.max(dl + de + ds);
    }
    if st.moe_layers > 0 {
        largest = largest.max(ml + me + ms);
    }
    StageParams {
        linear: nd * dl + nm * ml,
        experts: nm * me,
        other,
        largest_layer: largest,
        matrix_dims: (nd * p.dense_layer.matrix_dims + nm * p.moe_layer.matrix_dims) / t,
        adapters: (nd * lora_params(r, false) + nm * lora_params(r, true)) / t,
    }
}

/// Bytes per linear-layer weight and per other weight.
pub(crate) fn weight_bytes(r: &Resolved) -> (f64, f64) {
    let w = match r.work {
        Work::Train {
            kind: TrainingKind::Qlora(_),
            ..
        } => Precision::Nf4 {
            double_quant: DoubleQuant::On,
        },
        _ => r.levers.precision.weights,
    };
    let mut lin = w.bytes_per_element();
    if r.levers.pruning == Pruning::Sparse24 {
        // 2:4: half the values kept, 2 bits of position per kept value
        // (NVIDIA Ampere architecture whitepaper, "Fine-grained structured
        // sparsity"; cuSPARSELt compressed format).
        lin = 0.5 * lin + 0.5 * 2.0 / 8.0;
    }
    // Embeddings, the output layer and norms are not quantized: vLLM's FP8
    // path quantizes every Linear "except for the final lm_head", and
    // GPTQ/AWQ/QLoRA leave embeddings in 16 bits. Only pure FP32 keeps them
    // wider.
    let other = if w == Precision::Fp32 {
        w.bytes_per_element()
    } else {
        Precision::Bf16.bytes_per_element()
    };
    (lin, other)
}

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
    /// order (fragmentation is a fraction of them).
    fn transient_hbm(&self) -> f64;

    /// A memo of activation walks, if this sink keeps one (the search's).
    fn memo(&mut self) -> Option<&mut training::StoredMemo> {
        None
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

    fn memo(&mut self) -> Option<&mut training::StoredMemo> {
        self.memo.as_deref_mut()
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
}

impl Default for Tables {
    fn default() -> Self {
        Self {
            tables: [Breakdown::empty(DeviceRole::OnlyStage, 0, 0); 2],
            used: [[0.0; 4]; 2],
            len: 0,
            memo: None,
        }
    }
}

impl Tables {
    /// Tables that remember activation walks across fills (the search's:
    /// one allocation, then none per candidate).
    pub fn with_memo() -> Self {
        Self {
            memo: Some(training::StoredMemo::new()),
            ..Self::default()
        }
    }

    /// The memory of `r`, overwriting what was there.
    pub fn fill(&mut self, r: &Resolved) {
        let sts = stages(r);
        self.len = sts.len();
        for ((st, table), used) in sts.iter().zip(&mut self.tables).zip(&mut self.used) {
            *table = Breakdown::empty(st.role, st.rank, st.layers());
            *used = [0.0; 4];
            let mut t = Tally {
                table,
                used,
                transient: 0.0,
                memo: self.memo.as_mut(),
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

/// Adds context, workspaces, NCCL buffers and fragmentation.
pub(crate) fn overheads<S: Sink>(s: &mut S, r: &Resolved, groups: u32) {
    let o = &r.overheads;
    s.hbm(ItemKind::CudaContext, o.cuda_context.base(), || {
        "CUDA context with lazy module loading (overheads.cuda_context)".into()
    });
    s.hbm(ItemKind::Workspace, o.workspace.base(), || {
        "cuBLAS/cuDNN workspaces (overheads.workspace)".into()
    });
    s.hbm(
        ItemKind::NcclBuffers,
        o.nccl_per_group.base() * f64::from(groups),
        || format!("{groups} process group(s) of size > 1 × overheads.nccl_per_group"),
    );
    let transient = s.transient_hbm();
    s.hbm(ItemKind::Fragmentation, transient * o.fragmentation, || {
        format!(
            "{:.0}% of transient allocations (overheads.fragmentation)",
            o.fragmentation * 100.0
        )
    });
}

/// Process groups of size > 1 a rank belongs to (each holds NCCL buffers).
pub(crate) fn process_groups(r: &Resolved) -> u32 {
    let data = match r.work {
        Work::Train { .. } => r.dp.saturating_mul(r.cp) > 1,
        Work::Infer { .. } => false,
    };
    u32::from(r.tp > 1)
        + u32::from(r.pp > 1)
        + u32::from(data)
        + u32::from(r.cp > 1)
        + u32::from(r.ep > 1)
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
    stages(r)
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
