//! Training memory of one device: model states sharded as ZeRO/FSDP, TP,
//! PP and EP dictate; activations of the in-flight micro-batches; logits;
//! gather buffers; overheads.
//!
//! Model states follow Rajbhandari et al., "ZeRO" (SC'20, arXiv:1910.02054)
//! §5: with N data-parallel ranks, stage 1 divides optimizer states (and the
//! master copy) by N, stage 2 also gradients, stage 3 also parameters. The
//! bytes per parameter are those of the chosen precisions, so Megatron-LM's
//! 18 B/param (BF16 weights, FP32 main grads, FP32 master and Adam;
//! `theoretical_memory_usage.py`) and ZeRO's 16 B/param (FP16 grads) are
//! both special cases.

use super::activations::{self, ActContext, Ffn, LayerActs};
use super::Sink;
use crate::hardware::GpuArch;
use crate::lang::Named;
use crate::partition::{Stage, StageParams};
use crate::plan::{
    AttentionKernel, Checkpointing, Momentum, OffloadTarget, Optimizer, PipelineSchedule, Sharding,
    Tier, TrainingKind,
};
use crate::precision::Precision;
use crate::report::ItemKind;
use crate::resolve::Resolved;
use crate::software::{Head, LossKernel, OptimizerImpl};
use crate::zero::{
    gather_schedule, model_states, sharded_states, BlockShape, Gathering, StateBytes, Zero3Fetch,
};

/// Optimizer bytes per trainable parameter (moments only; Adafactor's
/// factored statistics are added per matrix).
fn optimizer_bytes(r: &Resolved) -> f64 {
    let state = r.levers.precision.optimizer.bytes_per_element();
    match r.levers.optimizer {
        Optimizer::AdamW => 2.0 * state,
        // Dettmers et al. 2021, "8-bit Optimizers via Block-wise
        // Quantization": two INT8 moments, FP32 absmax per 2048-block.
        Optimizer::Adam8bit => 2.0 * Precision::Int8.bytes_per_element(),
        Optimizer::Adafactor { momentum } | Optimizer::Sgd { momentum } => match momentum {
            Momentum::On => state,
            Momentum::Off => 0.0,
        },
    }
}

/// Micro-batches (in units of "all of this stage's layers, one micro-batch")
/// whose activations are alive at the peak on pipeline rank `rank`.
///
/// 1F1B: rank i runs p − i warm-up forwards before its first backward, so
/// stage 0 holds p micro-batches (Narayanan et al. 2021 §2.2.1; Korthikanti
/// et al. §4.2.3). Interleaved with v chunks: Megatron-LM's warm-up count
/// (p − i − 1)·2 + (v − 1)·N chunk-forwards plus the current one, each of
/// L/(pv) layers, N the micro-batch group (p by default); on stage 0 with
/// N = p this is Korthikanti's factor p·(1 + (p−1)/(pv)).
/// GPipe keeps all m micro-batches. DualPipeV: PP + 1 chunk-forwards on
/// every rank (deepseek-ai/DualPipe README, PP its 2p stages), each of half
/// a rank's layers.
pub(crate) fn in_flight(r: &Resolved, rank: u32, micro_batches: u32) -> f64 {
    let p = r.pp;
    let m = f64::from(micro_batches);
    if p <= 1 {
        return 1.0;
    }
    match r.levers.parallel.schedule {
        PipelineSchedule::OneFOneB => f64::from(p - rank).min(m),
        PipelineSchedule::Interleaved { .. } if r.chunks > 1 => {
            let v = f64::from(r.chunks);
            // Megatron-Core `get_pp_rank_microbatches`: (p − rank − 1)·2 +
            // (v − 1)·N warm-up forwards, N the micro-batch group (PP by
            // default, `microbatch_group_size_per_vp_stage`).
            let group = match r.levers.parallel.microbatch_group {
                0 => p,
                g => g,
            };
            let warmup = f64::from(p - rank - 1) * 2.0 + (v - 1.0) * f64::from(group);
            (warmup + 1.0).min(m * v) / v
        }
        PipelineSchedule::Interleaved { .. } => f64::from(p - rank).min(m),
        PipelineSchedule::Gpipe => m,
        PipelineSchedule::DualPipeV => (f64::from(p) + 0.5).min(m),
    }
}

/// Micro-batches whose output-layer tensors are alive at once: one under
/// 1F1B and interleaving (the last stage runs each micro-batch's loss and
/// backward back to back, and warm-up forwards of the other chunks never
/// reach the head), all of them under GPipe.
fn head_in_flight(r: &Resolved, micro_batches: u32) -> f64 {
    match r.levers.parallel.schedule {
        PipelineSchedule::Gpipe if r.pp > 1 => f64::from(micro_batches),
        _ => 1.0,
    }
}

fn act_context(r: &Resolved, kind: TrainingKind, seq: u32, micro_batch: u32) -> ActContext {
    let prec = &r.levers.precision;
    let act_bytes = prec.activations.bytes_per_element();
    let stack = r.levers.memory.stack();
    let (norm_bytes, softmax_bytes) = activations::saved_bytes(stack, r.spec.norm, act_bytes);
    let gemm_bytes = if prec.compute == Precision::Fp8 {
        1.0
    } else {
        act_bytes
    };
    ActContext {
        seq: f64::from(seq) / f64::from(r.cp),
        keys: f64::from(seq),
        batch: f64::from(micro_batch),
        tp: f64::from(r.tp),
        sp: r.sp(),
        act_bytes,
        gemm_bytes,
        dropout: r.spec.dropout == crate::model::Dropout::On,
        kernel: r.levers.attention,
        norm_bytes,
        softmax_bytes,
        fp32_math: stack.layer_code().fp32_math_attention,
        selective: activations::selective_policy(r.levers.memory.stack()),
        gathered_inputs: activations::gathers_saved(r.levers.memory.stack()),
        linears: linear_saves(r, kind, act_bytes, gemm_bytes),
        gate_output_bytes: activations::silu_output_bytes(
            stack,
            r.levers.training_stack == Some(crate::stack::TrainingStack::TorchtitanCompiled),
            act_bytes,
        ),
    }
}

/// What a layer's linears keep of their inputs: every input when every
/// weight trains; under LoRA only what the adapters keep, and under QLoRA
/// with bitsandbytes before 0.43.2 also each 4-bit layer's input
/// (`MatMul4Bit.forward`, `ctx.tensors = (A, B)`; PR #1270).
fn linear_saves(r: &Resolved, kind: TrainingKind, ab: f64, gb: f64) -> activations::LinearSaves {
    let (l, quantized) = match kind {
        TrainingKind::PreTraining | TrainingKind::FullFineTune => {
            return activations::LinearSaves::trained(gb)
        }
        TrainingKind::Lora(l) => (l, false),
        TrainingKind::Qlora(l) => (l, true),
    };
    let sw = r.levers.memory;
    let keeps_input = quantized && sw.bitsandbytes == crate::software::Bitsandbytes::Before0_43_2;
    activations::LinearSaves::lora(&activations::LoraLayer {
        targets: l.targets,
        base: if keeps_input { ab } else { 0.0 },
        dropout: sw.lora_dropout == crate::software::LoraDropout::On,
        ab,
        separate_qkv: activations::separate_qkv(sw.stack()),
        gated: r.spec.activation.is_gated(),
        flash: !r.levers.attention.keeps_scores(),
    })
}

/// What each layer of a stage keeps for backward, as the basis says it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Kept {
    Everything,
    Selective(AttentionKernel),
    SelectiveOps,
    LayerInputs,
    GroupInputs(usize),
    FirstRecomputed(usize),
}

impl Kept {
    fn describe(self) -> String {
        match self {
            Kept::Everything => "every activation kept (Korthikanti Eq. 1/2/4)".into(),
            Kept::Selective(AttentionKernel::Eager) => {
                "attention core recomputed (Korthikanti §4.2.2, Eq. 6)".into()
            }
            Kept::Selective(AttentionKernel::Flash | AttentionKernel::FlashTriton) => {
                "FlashAttention already recomputes the attention core; nothing more to drop".into()
            }
            Kept::SelectiveOps => "layer input, every other matmul output and the attention \
                 output kept (torchtitan op-level selective checkpointing)"
                .into(),
            Kept::LayerInputs => {
                "one layer input per layer (Korthikanti Table 2, full recompute)".into()
            }
            Kept::GroupInputs(g) => {
                format!("one input per group of {g} layers, each group recomputed in backward")
            }
            Kept::FirstRecomputed(k) => {
                format!("first {k} layers of the stage recomputed, the rest kept")
            }
        }
    }
}

/// Activations one micro-batch keeps across the stage's layers, how far
/// its backward rises above that, and what was kept.
///
/// The stage's layers are its dense layers followed by its MoE layers, and
/// checkpointing cuts them into segments. Backward runs from the last
/// segment to the first; while segment j is processed, the earlier segments
/// still hold what they kept and segment j holds its full activations
/// (recomputed, if it was checkpointed). The peak is
/// max_j (Σ_{i<j} kept_i + live_j); what exceeds Σ kept is the recompute
/// working set. Korthikanti et al. count only Σ kept (Table 2).
///
/// Runs of identical segments (same layers, same size, same recompute
/// choice) are taken at once in closed form, so the cost is a handful of
/// steps whatever the number of layers (issue 14: evaluation is O(1) in
/// identical layers): within a run every segment keeps `k` and holds
/// `live`, so its peak is at the last segment, `before + (m−1)·k + live`.
fn stored(r: &Resolved, st: &Stage, dense: &LayerActs, moe: &LayerActs) -> (f64, f64, Kept) {
    let nd = st.dense_layers as usize;
    let n = nd + st.moe_layers as usize;
    let kernel = r.levers.attention;
    let (group, recomputed, kept) = match r.levers.checkpointing {
        // (layers per segment, layers from the start whose inner
        // activations are recomputed)
        Checkpointing::None => (1, 0, Kept::Everything),
        Checkpointing::Selective => match activations::selective_policy(r.levers.memory.stack()) {
            activations::SelectivePolicy::AttentionCore => (1, 0, Kept::Selective(kernel)),
            activations::SelectivePolicy::EveryOtherMatmul => (1, 0, Kept::SelectiveOps),
        },
        Checkpointing::Full => (1, n, Kept::LayerInputs),
        Checkpointing::Uniform { group } => {
            let g = (group as usize).max(1);
            (g, n, Kept::GroupInputs(g))
        }
        Checkpointing::Block { layers: k } => {
            let k = (k as usize).min(n);
            (1, k, Kept::FirstRecomputed(k))
        }
    };
    let mut before = 0.0;
    let mut peak: f64 = 0.0;
    let mut start = 0;
    while start < n {
        let end = (start + group).min(n);
        let first = if start < nd { dense } else { moe };
        let (kept_here, live) = if start < recomputed {
            // A checkpointed segment keeps its input and rebuilds the rest.
            let dense_in = end.min(nd).saturating_sub(start);
            let moe_in = end - start - dense_in;
            let live = dense_in as f64 * dense.full() + moe_in as f64 * moe.full();
            (first.input, live)
        } else if let Kept::Selective(_) | Kept::SelectiveOps = kept {
            (first.selective(), first.full())
        } else {
            (first.full(), first.full())
        };
        let m = identical_run(start, group, n, nd, recomputed);
        let last = before + (m - 1) as f64 * kept_here;
        peak = peak.max(before + live).max(last + live);
        before += m as f64 * kept_here;
        start += m * group;
    }
    (before, (peak - before).max(0.0), kept)
}

/// How many segments from `start` on (segments of `group` layers, `n`
/// layers, the first `nd` dense) have the same layers, the same size and
/// the same recompute choice as the one at `start`: at least 1.
fn identical_run(start: usize, group: usize, n: usize, nd: usize, recomputed: usize) -> usize {
    let end = (start + group).min(n);
    let partial = end - start < group;
    let straddles = start < nd && end > nd;
    if partial || straddles {
        return 1;
    }
    let region_end = if start < nd { nd } else { n };
    let mut m = (region_end - start) / group;
    if start < recomputed {
        m = m.min((recomputed - start).div_ceil(group));
    }
    m.max(1)
}

/// Everything [`stored`] reads, bit for bit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StoredKey {
    acts: [u64; 10],
    dense_layers: u32,
    moe_layers: u32,
    checkpointing: Checkpointing,
    kernel: AttentionKernel,
}

impl StoredKey {
    fn new(r: &Resolved, st: &Stage, dense: &LayerActs, moe: &LayerActs) -> Self {
        let b = |a: &LayerActs| {
            [
                a.replicated.to_bits(),
                a.sharded.to_bits(),
                a.scores.to_bits(),
                a.input.to_bits(),
                a.selective.to_bits(),
            ]
        };
        let (d, m) = (b(dense), b(moe));
        Self {
            acts: [d[0], d[1], d[2], d[3], d[4], m[0], m[1], m[2], m[3], m[4]],
            dense_layers: st.dense_layers,
            moe_layers: st.moe_layers,
            checkpointing: r.levers.checkpointing,
            kernel: r.levers.attention,
        }
    }

    fn slot(&self, slots: usize) -> usize {
        let ckpt = match self.checkpointing {
            Checkpointing::None => 0,
            Checkpointing::Selective => 1,
            Checkpointing::Full => 2,
            Checkpointing::Uniform { group } => 3 + (u64::from(group) << 3),
            Checkpointing::Block { layers } => 4 + (u64::from(layers) << 3),
        };
        let mut h = ckpt ^ (u64::from(self.dense_layers) << 32) ^ u64::from(self.moe_layers);
        for x in self.acts {
            h = (h ^ x).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
        // The top bits of the product depend on every bit of the key (bits
        // 40.. ignored the exponents and leading digits of the sizes).
        (h >> 54) as usize % slots.max(1)
    }
}

/// Results of [`stored`] the search computed recently. Its layer walk is a
/// chain of dependent additions, the longest single cost of the memory
/// model, and the search asks for the same stage with the same
/// activations again and again (every sharding, offload and schedule
/// choice leaves them alone). A hit returns the very numbers `stored`
/// returned for the same inputs, so the memo changes no result.
#[derive(Debug, Clone)]
pub(crate) struct StoredMemo {
    slots: Vec<Option<(StoredKey, f64, f64, Kept)>>,
}

impl StoredMemo {
    /// Slots in the direct-mapped table.
    const SLOTS: usize = 1024;

    pub fn new() -> Self {
        Self {
            slots: vec![None; Self::SLOTS],
        }
    }

    fn get_or(&mut self, key: StoredKey, f: impl FnOnce() -> (f64, f64, Kept)) -> (f64, f64, Kept) {
        let i = key.slot(self.slots.len());
        match self.slots.get(i) {
            Some(Some((k, kept, working, how))) if *k == key => (*kept, *working, *how),
            _ => {
                let v = f();
                if let Some(slot) = self.slots.get_mut(i) {
                    *slot = Some((key, v.0, v.1, v.2));
                }
                v
            }
        }
    }
}

/// Writes the training memory of one stage; `m` is micro-batches per step.
pub(crate) fn fill<S: Sink>(
    items: &mut S,
    r: &Resolved,
    st: &Stage,
    kind: TrainingKind,
    seq: u32,
    m: u32,
) {
    let sp = r.split.params(st);
    let (w_lin, w_other) = r.split.weight_bytes;
    let g = Groups::new(r);
    let weights = model_state_items(items, r, &sp, (w_lin, w_other), kind, &g);
    fp8_weight_copies(items, r, &sp, &g);
    autocast_cache(items, r, &sp, &g);
    let full_training = matches!(kind, TrainingKind::PreTraining | TrainingKind::FullFineTune);
    gather_buffers(items, r, st, &sp, w_lin, full_training, &g, weights);
    if items.past_capacity() {
        return;
    }
    activation_items(items, r, st, kind, seq, m);
    optimizer_temporaries(items, r, &sp, &g, full_training);
    if items.past_capacity() {
        return;
    }
    super::overheads(items, r, &super::process_groups(r));
    super::allocator_cache(items, r);
}

/// Sharding groups: dense states over dp·cp (or the hybrid shard group),
/// expert states over the expert-data-parallel group dp·cp/ep, and which
/// states the sharding level divides.
struct Groups {
    /// Ranks the dense states are sharded over.
    n: u32,
    /// Ranks the expert states are sharded over (the group over EP).
    ne: u32,
    sharding: Sharding,
    shard_opt: bool,
    shard_grad: bool,
    shard_param: bool,
}

impl Groups {
    #[inline]
    fn new(r: &Resolved) -> Self {
        let dp_group = r.dp.saturating_mul(r.cp);
        let n = r.levers.shard_group.unwrap_or(dp_group).max(1);
        let ne = (n / r.ep.max(1)).max(1);
        let sharding = r.levers.sharding;
        let (shard_opt, shard_grad, shard_param) = sharded_states(sharding);
        Self {
            n,
            ne,
            sharding,
            shard_opt,
            shard_grad,
            shard_param,
        }
    }
}

/// The group when the state is sharded, else 1.
#[inline]
fn div(on: bool, group: u32) -> f64 {
    if on {
        f64::from(group)
    } else {
        1.0
    }
}

/// How a basis says a state is sharded.
fn suffix(on: bool) -> &'static str {
    if on {
        " / shard group"
    } else {
        ""
    }
}

/// Weights, gradients, master weights, optimizer states (or LoRA
/// adapters); returns the bytes of weights placed, before offload.
fn model_state_items<S: Sink>(
    items: &mut S,
    r: &Resolved,
    sp: &StageParams,
    (w_lin, w_other): (f64, f64),
    kind: TrainingKind,
    g: &Groups,
) -> f64 {
    let prec = &r.levers.precision;
    let off = &r.levers.offload;
    let (n, ne, sharding) = (g.n, g.ne, g.sharding);
    let (shard_opt, shard_grad, shard_param) = (g.shard_opt, g.shard_grad, g.shard_param);
    let full_training = matches!(kind, TrainingKind::PreTraining | TrainingKind::FullFineTune);
    let dense_params = sp.linear + sp.other;
    let cast_at_gather = casts_at_gather(r, sharding, full_training);
    let per = |weights: f64| StateBytes {
        weights: if cast_at_gather { 0.0 } else { weights },
        gradients: if full_training {
            prec.gradients.bytes_per_element()
        } else {
            0.0
        },
        master: match (full_training, prec.master) {
            (true, Some(m)) => m.bytes_per_element(),
            _ => 0.0,
        },
        optimizer: if full_training {
            optimizer_bytes(r)
        } else {
            0.0
        },
    };
    // Linear layers may be quantized while norms and embeddings are not:
    // the dense part uses the parameter-weighted mean width.
    let w_dense = if dense_params > 0.0 {
        (sp.linear * w_lin + sp.other * w_other) / dense_params
    } else {
        w_lin
    };
    let dense = model_states(dense_params, per(w_dense), sharding, n);
    let experts = model_states(sp.experts, per(r.split.expert_bytes), sharding, ne);

    items.place(
        ItemKind::Weights,
        (dense.weights + experts.weights).base(),
        off.parameters,
        || {
            if cast_at_gather {
                "none kept: under PyTorch FSDP the sharded parameter is the FP32 master copy, cast to 16 bits only into each all-gather".into()
            } else {
                format!(
                    "{:.3e} params × {:.3} B{}",
                    dense_params + sp.experts,
                    w_dense,
                    suffix(shard_param)
                )
            }
        },
    );
    if full_training {
        let p = per(w_dense);
        items.place(
            ItemKind::Gradients,
            (dense.gradients + experts.gradients).base(),
            off.gradients,
            || format!("{} B/param{}", p.gradients, suffix(shard_grad)),
        );
        items.place(
            ItemKind::MasterWeights,
            (dense.master + experts.master).base(),
            off.optimizer,
            || format!("{} B/param{}", p.master, suffix(shard_opt)),
        );
        let factored = match r.levers.optimizer {
            // Shazeer & Stern 2018, "Adafactor": row and column statistics
            // per matrix instead of a full second moment, in FP32.
            Optimizer::Adafactor { .. } => 4.0 * sp.matrix_dims / div(shard_opt, n),
            _ => 0.0,
        };
        items.place(
            ItemKind::OptimizerStates,
            (dense.optimizer + experts.optimizer).base() + factored,
            paged(r).or(off.optimizer),
            || format!("{} B/param{}", p.optimizer, suffix(shard_opt)),
        );
    } else if let TrainingKind::Lora(l) | TrainingKind::Qlora(l) = kind {
        adapter_items(items, r, sp, l, g);
    }
    (dense.weights + experts.weights).base()
}

/// LoRA adapters: their weights and gradients in the adapter precision
/// and the optimizer's moments, the only states that train. They are
/// sharded and moved as full training's states are: FSDP wraps each
/// layer's adapters with the layer, so FULL_SHARD shards them and
/// `CPUOffload(offload_params=True)` keeps them, their gradients and the
/// optimizer's step on the host (Answer.AI's `fsdp_qlora` `train.py`,
/// which trains a 70B QLoRA on two 24 GB GPUs that way); ZeRO partitions
/// the trainable parameters' moments (stage 1), gradients (2) and the
/// parameters themselves (3) (DeepSpeed ZeRO docs). Whole and in HBM, as
/// one item, when nothing shards or moves them; a paged optimizer keeps
/// the moments in host memory (`optimizer_impl: paged`).
fn adapter_items<S: Sink>(
    items: &mut S,
    r: &Resolved,
    sp: &StageParams,
    l: crate::plan::LoraSpec,
    g: &Groups,
) {
    let off = &r.levers.offload;
    let ab = l.adapter_precision.bytes_per_element();
    let moments = optimizer_bytes(r);
    let host = paged(r);
    let sharded = g.n > 1 && (g.shard_opt || g.shard_grad || g.shard_param);
    let moved = off.parameters.is_some() || off.gradients.is_some() || off.optimizer.is_some();
    if !sharded && !moved {
        let per = 2.0 * ab + if host.is_some() { 0.0 } else { moments };
        let what = if host.is_some() {
            "weights, grads"
        } else {
            "weights, grads, optimizer"
        };
        items.hbm(ItemKind::Adapters, sp.adapters * per, || {
            format!(
                "{:.3e} adapter params (rank {}) × {per} B ({what})",
                sp.adapters, l.rank
            )
        });
    } else {
        let n = g.n;
        items.place(
            ItemKind::Adapters,
            sp.adapters * ab / div(g.shard_param, n),
            off.parameters,
            || {
                format!(
                    "{:.3e} adapter params (rank {}) × {ab} B (weights){}",
                    sp.adapters,
                    l.rank,
                    suffix(g.shard_param)
                )
            },
        );
        items.place(
            ItemKind::Adapters,
            sp.adapters * ab / div(g.shard_grad, n),
            off.gradients,
            || {
                format!(
                    "{ab} B per adapter param (gradients){}",
                    suffix(g.shard_grad)
                )
            },
        );
        if host.is_none() {
            items.place(
                ItemKind::OptimizerStates,
                sp.adapters * moments / div(g.shard_opt, n),
                off.optimizer,
                || {
                    format!(
                        "{moments} B per adapter param (optimizer){}",
                        suffix(g.shard_opt)
                    )
                },
            );
        }
    }
    if let Some(host) = host {
        items.place(
            ItemKind::OptimizerStates,
            sp.adapters * moments / div(g.shard_opt, g.n),
            Some(host),
            || format!("{moments} B per adapter param, paged to host memory"),
        );
    }
}

/// Whether the plan's 16-bit weights exist only inside the all-gather
/// buffers: fully sharded parameters with master weights, on a stack that
/// casts the master shard at each gather
/// ([`ShardedWeights::CastAtGather`](crate::stack::ShardedWeights)).
/// Stacks that do not shard parameters keep their 16-bit copy.
fn casts_at_gather(r: &Resolved, sharding: Sharding, full_training: bool) -> bool {
    use crate::stack::ShardedWeights;
    full_training
        && sharding == Sharding::FsdpFullShard
        && r.levers.precision.master.is_some()
        && r.levers.training_stack.map(|s| s.sharded_weights())
            == Some(ShardedWeights::CastAtGather)
}

/// Where a paged optimizer keeps its states: bitsandbytes' paged optimizers
/// (`paged_adamw_32bit`, `paged_adamw_8bit`; Dettmers et al. 2023, QLoRA
/// §3 "Paged Optimizers") allocate them in CUDA unified memory, which the
/// driver evicts to host memory when the GPU runs short and pages back for
/// the optimizer step. For the fit they live in host DRAM; the time model
/// charges their traffic as for offloaded states.
fn paged(r: &Resolved) -> Option<OffloadTarget> {
    (r.levers.memory.optimizer() == OptimizerImpl::Paged).then_some(OffloadTarget {
        tier: Tier::HostDram,
        fraction: 1.0,
    })
}

/// FP8 GEMMs keep quantized copies of the high-precision weights; Hopper
/// and Ada need a transposed copy too (Transformer Engine docs,
/// "Performance considerations", memory section).
fn fp8_weight_copies<S: Sink>(items: &mut S, r: &Resolved, sp: &StageParams, g: &Groups) {
    let prec = &r.levers.precision;
    if prec.compute == Precision::Fp8 && prec.weights != Precision::Fp8 {
        let copies = match r.gpu.arch {
            GpuArch::Blackwell => 1.0,
            _ => 2.0,
        };
        items.hbm(
            ItemKind::Fp8WeightCopies,
            copies * (sp.linear / div(g.shard_param, g.n) + sp.experts / div(g.shard_param, g.ne)),
            || format!("{copies} FP8 byte(s) per linear weight"),
        );
    }
}

/// `torch.autocast` over FP32 parameters casts each linear weight to the
/// 16-bit compute type once per forward and keeps the cast until the
/// autocast region exits ("cast cache" for leaf tensors that require
/// grad: `at::autocast::cached_cast`, PyTorch `torch.amp` docs), so at the
/// end of the forward, beside every kept activation, the rank holds a
/// 16-bit copy of its linear weights. Embeddings are not on autocast's
/// lists and stay FP32. Stacks that keep 16-bit working weights
/// (Megatron, FSDP mixed precision) have no such copy.
fn autocast_cache<S: Sink>(items: &mut S, r: &Resolved, sp: &StageParams, g: &Groups) {
    let prec = &r.levers.precision;
    let wide = prec.weights.bytes_per_element();
    let narrow = prec.compute.bytes_per_element();
    if matches!(prec.compute, Precision::Bf16 | Precision::Fp16) && wide > narrow {
        let linear = sp.linear / div(g.shard_param, g.n) + sp.experts / div(g.shard_param, g.ne);
        items.hbm(ItemKind::AutocastCache, narrow * linear, || {
            format!(
                "{narrow} B per linear weight: autocast's cast cache of the {} weights",
                prec.weights.en()
            )
        });
    }
}

/// The block shape a stage's gathers see (`zero::BlockShape`): its
/// largest gather unit, its largest weight matrix (the embedding and
/// output layer count where the stage holds them: they are submodules
/// too) and the matrices of one block (Q, K, V, O and two or three FFN
/// matrices, each a `Linear` submodule in the Hugging Face and
/// Megatron-DeepSpeed models).
pub(crate) fn block_shape(r: &Resolved, st: &Stage, sp: &StageParams) -> BlockShape {
    let s = &r.spec;
    let t = f64::from(r.tp.max(1));
    let h = f64::from(s.hidden);
    let shape = s.attention_shape();
    let widest_attn = shape.q_width.max(shape.o_width).max(shape.k_width);
    let mut largest = (h * f64::from(s.ffn) / t).max(h * widest_attn / t);
    if st.embedding || st.head {
        largest = largest.max(f64::from(s.vocab) * h / t);
    }
    let ffn = if s.activation.is_gated() { 3 } else { 2 };
    BlockShape {
        block: sp.largest_layer,
        largest_matrix: largest.min(sp.largest_layer),
        matrices: 4 + ffn,
    }
}

/// Gathered parameters of a sharded-parameter mode, from the one gather
/// schedule (`zero::gather_schedule`): FSDP holds the current and the
/// prefetched block; DeepSpeed ZeRO-3 the running submodule and its
/// prefetch bucket (capped by `stage3_max_live_parameters`), its
/// never-partitioned small parameters and its contiguous reduce bucket.
/// Both hold the unsharded gradient of the unit being reduced. Parameter
/// offload without ZeRO-3 stages two layers; `weights` is the weight
/// bytes before offload.
#[allow(clippy::too_many_arguments)]
fn gather_buffers<S: Sink>(
    items: &mut S,
    r: &Resolved,
    st: &Stage,
    sp: &StageParams,
    w_lin: f64,
    full_training: bool,
    g: &Groups,
    weights: f64,
) {
    let mode = crate::zero::mode(g.sharding);
    if g.shard_param && mode.gather != Gathering::None {
        let grad = if full_training {
            r.levers.precision.gradients.bytes_per_element()
        } else {
            0.0
        };
        let shape = block_shape(r, st, sp);
        let cfg = &r.levers.zero3;
        let plan = gather_schedule(mode.gather, cfg, shape);
        let (bytes, how) = match mode.gather {
            Gathering::Prefetch => {
                // Norm weights and biases are below the persistence
                // threshold while the hidden size is: they stay whole.
                let small = if f64::from(r.spec.hidden) < cfg.persistence_threshold as f64 {
                    r.params.dense_layer.small * f64::from(st.dense_layers)
                        + r.params.moe_layer.small * f64::from(st.moe_layers)
                } else {
                    0.0
                };
                let persistent = small * (1.0 - 1.0 / f64::from(g.n.max(1)));
                let bucket = if full_training {
                    (cfg.reduce_bucket.clamp(1, Zero3Fetch::MAX) as f64) * w_lin
                } else {
                    0.0
                };
                (
                    plan.live * w_lin + persistent * w_lin + shape.largest_matrix * grad + bucket,
                    "running submodule + prefetch bucket gathered (max-live capped), \
                     persistent small parameters, one matrix's gradient, the reduce bucket",
                )
            }
            _ => (
                plan.live * w_lin + shape.block * grad,
                "current + prefetched block gathered, one block's full gradient",
            ),
        };
        items.hbm(ItemKind::GatherBuffers, bytes, || how.into());
    } else if let Some(o) = r.levers.offload.parameters.filter(|o| o.tier != Tier::Hbm) {
        // Never more staging than what was moved out.
        let moved = o.fraction * weights;
        items.hbm(
            ItemKind::GatherBuffers,
            (2.0 * sp.largest_layer * w_lin).min(moved),
            || "two layers staged in HBM for parameter offload".into(),
        );
    }
}

/// Activations of the in-flight micro-batches, the embedding's inputs,
/// the recompute working set and the logits.
fn activation_items<S: Sink>(
    items: &mut S,
    r: &Resolved,
    st: &Stage,
    kind: TrainingKind,
    seq: u32,
    m: u32,
) {
    let off = &r.levers.offload;
    // Activations.
    let mb = r.levers.parallel.micro_batch;
    let ctx = act_context(r, kind, seq, mb);
    let dense = activations::layer(&r.spec, Ffn::Dense, &ctx);
    // A stage without MoE layers never reads the MoE figures.
    let moe = if st.moe_layers > 0 {
        activations::layer(&r.spec, Ffn::Moe, &ctx)
    } else {
        dense
    };
    let (per_mb, working, how) = match items.memo() {
        Some(memo) => memo.get_or(StoredKey::new(r, st, &dense, &moe), || {
            stored(r, st, &dense, &moe)
        }),
        None => stored(r, st, &dense, &moe),
    };
    let flight = in_flight(r, st.rank, m);
    let rep_div = if ctx.sp { ctx.tp } else { 1.0 };
    let sb = ctx.seq * ctx.batch;
    let h = f64::from(r.spec.hidden);
    items.place(
        ItemKind::Activations,
        per_mb * flight,
        off.activations,
        || {
            format!(
                "{}; {flight:.3} micro-batch(es) of {mb} in flight",
                how.describe()
            )
        },
    );
    if st.embedding {
        // Token ids (int64) and the embedding-dropout mask (Korthikanti §4.3).
        let mask = if ctx.dropout { sb * h / rep_div } else { 0.0 };
        items.place(
            ItemKind::EmbeddingActivations,
            (8.0 * sb + mask) * head_in_flight(r, m).max(f64::from(r.pp).min(f64::from(m))),
            off.activations,
            || "int64 token ids + embedding-dropout mask per in-flight micro-batch".into(),
        );
    }
    items.hbm(ItemKind::RecomputeWorkingSet, working, || {
        "rise above the kept activations while a recomputed segment runs its backward".into()
    });
    if let (true, Head::Classifier { labels }) = (st.head, r.levers.memory.head) {
        // The pooled vector per sequence and its FP32 logits, loss
        // gradient and softmax (12 B per label): nothing per token.
        let logits = ctx.batch * (ctx.act_bytes * h + 12.0 * f64::from(labels.max(1)));
        items.hbm(ItemKind::Logits, logits * head_in_flight(r, m), || {
            format!("classification head: {labels} label(s) per sequence")
        });
        items.hbm(
            ItemKind::BackwardWorkingSet,
            backward_working_set(r, &ctx),
            || {
                "gradients of the largest layer's output, residual and its widest \
                 intermediates while it runs backward"
                    .into()
            },
        );
    } else if st.head {
        let v = f64::from(r.spec.vocab);
        let (elems, how) = loss_peak(r, sb, v, h);
        // Final-norm input and output-layer input (Korthikanti §4.3), then
        // the loss kernel's peak over the rank's vocabulary slice.
        // The output layer's input is the gathered one where the stack
        // keeps gathers ([`activations::gathers_saved`]).
        let out_div = if ctx.gathered_inputs { 1.0 } else { rep_div };
        let logits =
            ctx.act_bytes * sb * h / rep_div + ctx.gemm_bytes * sb * h / out_div + elems / ctx.tp;
        items.hbm(ItemKind::Logits, logits * head_in_flight(r, m), || {
            format!("final-norm and output-layer inputs + {how}")
        });
        let bwd = backward_working_set(r, &ctx) - elems / ctx.tp;
        items.hbm(ItemKind::BackwardWorkingSet, bwd, || {
            "gradients of the largest layer's output, residual and FFN intermediates (or \
             its attention input's gradients) while it runs backward, beyond the loss peak \
             before it"
                .into()
        });
    } else {
        items.hbm(
            ItemKind::BackwardWorkingSet,
            backward_working_set(r, &ctx),
            || {
                "gradients of the largest layer's output, residual and FFN intermediates \
                 (or its attention input's gradients) while it runs backward"
                    .into()
            },
        );
    }
}

/// Bytes of the gradient tensors alive while one layer runs backward, on
/// top of what it kept: the gradient flowing in and the residual's
/// (2·s·b·h), and then the largest of the FFN intermediates' (one per
/// f-wide tensor the layer saved: 2 for GeLU, 3 for gated units), for
/// an eager attention the gradients of the probabilities and the scores
/// (2 per score, in the softmax's dtype), and the attention input's
/// gradients ([`input_gradients`]), whichever layer is largest.
fn backward_working_set(r: &Resolved, c: &ActContext) -> f64 {
    let sp = r.spec;
    let rep_div = if c.sp { c.tp } else { 1.0 };
    let sb = c.seq * c.batch;
    let ab = c.act_bytes;
    let per_f = if sp.activation.is_gated() { 3.0 } else { 2.0 };
    let dense = f64::from(sp.ffn);
    let routed = sp.moe.map_or(0.0, |m| {
        f64::from(m.top_k) * f64::from(m.expert_ffn) + f64::from(m.shared_ffn)
    });
    let ffn = per_f * ab * sb * dense.max(routed) / c.tp;
    let scores = match c.kernel {
        AttentionKernel::Eager => {
            let sm = if c.fp32_math { 4.0 } else { c.softmax_bytes };
            2.0 * sm * f64::from(sp.heads) * sb * c.keys / c.tp
        }
        AttentionKernel::Flash | AttentionKernel::FlashTriton => 0.0,
    };
    let inputs = input_gradients(r, c);
    2.0 * ab * sb * f64::from(sp.hidden) / rep_div + ffn.max(scores).max(inputs)
}

/// Bytes alive while the attention block's input gradient is formed: the
/// gradients of the Q, K and V outputs (on the TP shard) and the input
/// gradients their linears' backward writes, each full width on every TP
/// rank (the input is replicated, or gathered from the sequence shards
/// before the column-parallel linears, so its gradient is reduce-scattered
/// only after it is summed). One fused QKV linear writes one
/// (`stack::input_readers`). Separate Q, K and V linears write three:
/// eager autograd adds each into the first as it arrives
/// (`InputBuffer::add`, in place), so two are alive at once; a compiled
/// backward sums them in one kernel that reads all three, so all three are
/// (its output takes the first one's buffer, Inductor's `inplace_buffers`).
fn input_gradients(r: &Resolved, c: &ActContext) -> f64 {
    if matches!(r.spec.attention, crate::model::AttentionKind::Mla(_)) {
        return 0.0;
    }
    let readers = r.factors.input_readers[0];
    let live = match r.factors.dispatch {
        crate::stack::Dispatch::Eager { .. } => readers.min(2.0),
        _ => readers,
    };
    let s = r.spec.attention_shape();
    let kv_share = r.spec.kv_share(c.tp);
    let outputs = s.q_width / c.tp + (s.k_width + s.v_width) * kv_share;
    c.act_bytes * c.seq * c.batch * (live * f64::from(r.spec.hidden) + outputs)
}

/// Bytes per (token × vocabulary entry) at the loss's peak, before TP
/// splits the vocabulary, and how it was counted. In units of s·b·v:
/// - unfused (HF `ForCausalLMLoss`, torchtitan `cross_entropy_loss`):
///   `logits.float()` then `cross_entropy` = `log_softmax` + `nll_loss`.
///   The forward holds the compute-dtype logits, the FP32 copy and the
///   FP32 log-softmax (2 + 4 + 4 with BF16); the backward holds the saved
///   log-softmax, `nll_loss`'s dense FP32 gradient and `log_softmax`'s
///   gradient (4 + 4 + 4): 12 B, 3× the 4 B Korthikanti counts;
/// - torchtitan under TP runs the same call through DTensor's loss
///   parallel (`loss_parallel()`, on whenever TP is, unless
///   `disable_loss_parallel`), whose handlers decompose it over the
///   vocabulary shard (`torch/distributed/tensor/parallel/loss.py`):
///   `_log_softmax` holds the 16-bit logits, the FP32 copy, the shifted
///   copy and its `exp` (2 + 4 + 4 + 4), and the fused backward
///   `(zeros_like(x) + exp(x)) * grad` holds the saved log-softmax, the
///   zeros, the sum and the product (4 + 4 + 4 + 4): 16 B;
/// - Megatron's vocabulary-parallel cross-entropy upcasts once and turns
///   the FP32 copy into the softmax and then the gradient in place
///   (`_VocabParallelCrossEntropy`), beside the compute-dtype logits:
///   4 + 2 B;
/// - chunked (Liger `LigerFusedLinearCrossEntropyLoss`: chunks of
///   `next_power_of_2(⌈BT / ⌈V/H⌉⌉)` tokens) holds one chunk's logits in
///   the compute dtype, the kernel writing their gradient over them and
///   upcasting in registers (Liger since v0.5.3, 2025-02-10: #420 dropped
///   the scaled copy of the chunk's gradient, 2 B more a logit, that
///   v0.5.0–v0.5.2 made; before v0.5.0, 2024-12-10, #406, the chunk was
///   also copied to FP32 first, 4 B more), and the hidden-state gradient
///   (s·b·h in the compute dtype) instead.
fn loss_peak(r: &Resolved, sb: f64, v: f64, h: f64) -> (f64, &'static str) {
    let cb = r.levers.precision.activations.bytes_per_element();
    let loss_parallel = r.levers.memory.loss_parallel(r.tp);
    match r.levers.memory.loss_kernel() {
        LossKernel::Unfused | LossKernel::StackDefault if loss_parallel => (
            (cb + 12.0).max(16.0) * sb * v,
            "DTensor loss-parallel cross-entropy (decomposed log-softmax and its fused \
             backward: 16 B per logit)",
        ),
        LossKernel::Unfused | LossKernel::StackDefault => (
            (cb.max(4.0) + 8.0) * sb * v,
            "unfused FP32 cross-entropy (saved log-softmax, its gradient and nll's: 12 B per logit)",
        ),
        LossKernel::FusedVocabParallel => (
            (4.0 + cb) * sb * v,
            "fused vocabulary-parallel cross-entropy (FP32 softmax in place + 16-bit logits)",
        ),
        LossKernel::Compiled => (
            2.0 * cb * sb * v,
            "compiled cross-entropy (16-bit logits and their gradient)",
        ),
        LossKernel::Chunked => {
            let inc = (v / h.max(1.0)).ceil().max(1.0);
            let chunk = (sb / inc).ceil().max(1.0).log2().ceil().exp2().min(sb);
            (
                cb * chunk * v + cb * sb * h,
                "chunked cross-entropy (one chunk's logits, their gradient written over them, \
                 + the hidden-state gradient)",
            )
        }
    }
}

/// The optimizer step's full-size temporaries, beyond the activation
/// memory the step reuses (activations, logits and working sets are free
/// by then). `torch.optim`'s multi-tensor Adam (`_multi_tensor_adam`,
/// PyTorch 2.x) builds `exp_avg_sq_sqrt = torch._foreach_sqrt(exp_avg_sqs)`,
/// one moment-sized list; one tensor at a time (`foreach=False`) needs the
/// largest parameter's; fused kernels (torch `fused=True`, apex/TE
/// FusedAdam, bitsandbytes' block-wise 8-bit Adam) none. Other optimizers'
/// steps are taken as in place. DeepSpeed's ZeRO adds its gradient copies
/// ([`deepspeed_step_copies`]) whatever the optimizer.
fn optimizer_temporaries<S: Sink>(
    items: &mut S,
    r: &Resolved,
    sp: &StageParams,
    g: &Groups,
    full: bool,
) {
    let width = r.levers.precision.optimizer.bytes_per_element();
    let trainable = if full {
        (sp.linear + sp.other) / div(g.shard_opt, g.n) + sp.experts / div(g.shard_opt, g.ne)
    } else {
        sp.adapters
    };
    let kernel = match (r.levers.optimizer, r.levers.memory.optimizer()) {
        (Optimizer::AdamW, OptimizerImpl::Foreach | OptimizerImpl::StackDefault) => {
            width * trainable
        }
        (Optimizer::AdamW, OptimizerImpl::ForLoop) => width * largest_matrix(r).min(trainable),
        _ => 0.0,
    };
    let copies = deepspeed_step_copies(r, g, full, trainable);
    if kernel + copies <= 0.0 {
        return;
    }
    let temp = kernel + copies;
    let freed = items.transient_hbm();
    let imp = r.levers.memory.optimizer();
    items.hbm(ItemKind::OptimizerTemporaries, temp - freed, || {
        format!(
            "{}: {kernel:.3e} B of step temporaries + {copies:.3e} B of DeepSpeed gradient \
             copies, less {freed:.3e} B of freed activations",
            imp.en()
        )
    });
}

/// Elements of one ZeRO-3 optimizer sub-group (DeepSpeed `zero_optimization.
/// sub_group_size`, default 1e9, `runtime/zero/config.py`).
const DEEPSPEED_SUB_GROUP: f64 = 1e9;

/// Bytes DeepSpeed's ZeRO optimizers allocate for their step: the rank's
/// 16-bit gradient partition is flattened into one new tensor and cast to
/// the master weights' type (`stage_1_and_2.py` `step`: `flatten(
/// averaged_gradients)` then `.to(fp32)`, the whole partition at once;
/// `stage3.py` `_prepare_fp32_grad_for_sub_group`, one sub-group of up to
/// `sub_group_size` elements at a time). Both copies are alive together;
/// with 16-bit master weights (`bf16_master_weights_and_grads`) the cast
/// returns the flat copy itself. Zero for other stacks and without ZeRO.
fn deepspeed_step_copies(r: &Resolved, g: &Groups, full: bool, partition: f64) -> f64 {
    let deepspeed = r.levers.training_stack == Some(crate::stack::TrainingStack::DeepSpeed);
    if !deepspeed || !full || !g.shard_opt {
        return 0.0;
    }
    let prec = &r.levers.precision;
    let grad = prec.gradients.bytes_per_element();
    let master = prec.master.unwrap_or(prec.optimizer).bytes_per_element();
    let elements = match g.sharding {
        Sharding::Zero3 => partition.min(DEEPSPEED_SUB_GROUP),
        _ => partition,
    };
    let cast = if master > grad { master } else { 0.0 };
    elements * (grad + cast)
}

/// Elements of the largest weight matrix on a rank (embedding or FFN).
fn largest_matrix(r: &Resolved) -> f64 {
    let s = &r.spec;
    let t = f64::from(r.tp.max(1));
    let h = f64::from(s.hidden);
    (f64::from(s.vocab) * h / t).max(h * f64::from(s.ffn) / t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::example_plan;
    use crate::resolve::resolve;

    /// A memo hit returns exactly what the walk returned; other inputs miss.
    #[test]
    fn the_memo_returns_what_stored_returns() {
        let (mut r, _, _) = resolve(&example_plan());
        let st = r.split.stages[0];
        let ctx = act_context(&r, TrainingKind::PreTraining, 4096, 2);
        let dense = activations::layer(&r.spec, Ffn::Dense, &ctx);
        let mut memo = StoredMemo::new();
        let direct = stored(&r, &st, &dense, &dense);
        let key = StoredKey::new(&r, &st, &dense, &dense);
        let first = memo.get_or(key, || stored(&r, &st, &dense, &dense));
        let second = memo.get_or(key, || (f64::NAN, f64::NAN, Kept::Everything));
        for v in [first, second] {
            assert_eq!(v.0.to_bits(), direct.0.to_bits());
            assert_eq!(v.1.to_bits(), direct.1.to_bits());
        }
        r.levers.checkpointing = Checkpointing::Full;
        let other = StoredKey::new(&r, &st, &dense, &dense);
        assert_ne!(other, key);
        let full = memo.get_or(other, || stored(&r, &st, &dense, &dense));
        assert!(full.0 < direct.0);
    }

    /// The per-layer walk `stored` replaced: segments one by one, sums in
    /// layer order. The closed form must agree with it for every
    /// checkpointing mode, group size and dense/MoE mix.
    fn walked(r: &Resolved, st: &Stage, dense: &LayerActs, moe: &LayerActs) -> (f64, f64) {
        let nd = st.dense_layers as usize;
        let n = nd + st.moe_layers as usize;
        let layer = |i: usize| if i < nd { dense } else { moe };
        let (group, recomputed, selective) = match r.levers.checkpointing {
            Checkpointing::None => (1, 0, false),
            Checkpointing::Selective => (1, 0, true),
            Checkpointing::Full => (1, n, false),
            Checkpointing::Uniform { group } => ((group as usize).max(1), n, false),
            Checkpointing::Block { layers } => (1, (layers as usize).min(n), false),
        };
        let (mut before, mut peak, mut start) = (0.0, 0.0f64, 0);
        while start < n {
            let end = (start + group).min(n);
            let first = layer(start);
            let (kept, live) = if start < recomputed {
                (first.input, (start..end).map(|i| layer(i).full()).sum())
            } else if selective {
                (first.selective(), first.full())
            } else {
                (first.full(), first.full())
            };
            peak = peak.max(before + live);
            before += kept;
            start = end;
        }
        (before, (peak - before).max(0.0))
    }

    #[test]
    fn the_closed_form_agrees_with_the_layer_walk() {
        let (mut r, _, _) = resolve(&example_plan());
        let ctx = act_context(&r, TrainingKind::PreTraining, 4096, 2);
        let dense = activations::layer(&r.spec, Ffn::Dense, &ctx);
        // An MoE layer with different figures, so a mix-up shows.
        let moe = LayerActs {
            replicated: dense.replicated * 1.7,
            sharded: dense.sharded * 2.3,
            scores: dense.scores,
            input: dense.input * 1.1,
            selective: dense.selective * 1.9,
        };
        let modes = [
            Checkpointing::None,
            Checkpointing::Selective,
            Checkpointing::Full,
            Checkpointing::Uniform { group: 1 },
            Checkpointing::Uniform { group: 3 },
            Checkpointing::Uniform { group: 7 },
            Checkpointing::Block { layers: 0 },
            Checkpointing::Block { layers: 5 },
            Checkpointing::Block { layers: 13 },
            Checkpointing::Block { layers: 100 },
        ];
        let mut st = r.split.stages[0];
        for mode in modes {
            r.levers.checkpointing = mode;
            for (d, m) in [
                (0, 0),
                (1, 0),
                (0, 1),
                (12, 0),
                (3, 58),
                (10, 11),
                (0, 40),
                (7, 7),
            ] {
                st.dense_layers = d;
                st.moe_layers = m;
                let (a, b, _) = stored(&r, &st, &dense, &moe);
                let (x, y) = walked(&r, &st, &dense, &moe);
                // The working set is a difference of sums of the stored
                // bytes, so both are held to the stored bytes' scale.
                let close = |p: f64, q: f64| (p - q).abs() <= 1e-9 * (x + y).abs().max(1.0);
                assert!(
                    close(a, x) && close(b, y),
                    "{mode:?} {d}+{m}: {a} {b} vs {x} {y}"
                );
            }
        }
    }

    /// However many identical layers, the walk takes a handful of runs.
    #[test]
    fn identical_layers_are_taken_in_a_few_runs() {
        for (group, recomputed) in [(1, 0), (1, 100_000), (7, 100_000), (1, 31_337)] {
            let (n, nd) = (100_000, 40_000);
            let (mut start, mut runs) = (0, 0);
            while start < n {
                start += identical_run(start, group, n, nd, recomputed) * group;
                runs += 1;
            }
            assert!(
                runs <= 6,
                "group {group}, recomputed {recomputed}: {runs} runs"
            );
        }
    }

    #[test]
    fn separate_qkv_linears_hold_their_input_gradients_at_full_width() {
        use crate::plan::{ModelChoice, SequenceParallel};
        use crate::stack::TrainingStack;
        // Llama 3.1 8B at TP 8 with sequence parallelism: per token, the
        // Q, K and V output gradients on the shard (512 + 128 + 128) and
        // the input gradients their linears write, 4,096 wide each.
        let grads = |stack: TrainingStack| {
            let mut p = example_plan();
            p.model = ModelChoice::Preset(crate::catalog::ModelId::Llama31_8b);
            p.levers.training_stack = Some(stack);
            p.levers.parallel.tp = 8;
            p.levers.parallel.dp = 1;
            p.levers.parallel.sequence_parallel = SequenceParallel::On;
            let (r, _, _) = resolve(&p);
            let c = act_context(&r, TrainingKind::PreTraining, 1, 1);
            input_gradients(&r, &c) / c.act_bytes
        };
        let outputs = 512.0 + 128.0 + 128.0;
        // Compiled: all three before the one summing kernel.
        assert_eq!(
            grads(TrainingStack::TorchtitanCompiled),
            3.0 * 4096.0 + outputs
        );
        // Eager: each added into the first as it arrives.
        assert_eq!(grads(TrainingStack::Torchtitan), 2.0 * 4096.0 + outputs);
        // Megatron's fused QKV writes one.
        assert_eq!(grads(TrainingStack::MegatronCore), 4096.0 + outputs);
    }

    /// The loss peak per logit by stack: the plain kernels' 12 B, DTensor's
    /// decomposed loss parallel 16 B under torchtitan with TP, Megatron's
    /// fused kernel 6 B, torchtitan with compile its compiled loss's 4 B;
    /// a chosen kernel overrides the stack's.
    #[test]
    fn the_loss_peak_follows_the_stack_and_tp() {
        use crate::stack::TrainingStack;
        let per_logit = |stack: TrainingStack, tp: u32, loss: LossKernel| {
            let mut p = example_plan();
            p.levers.training_stack = Some(stack);
            p.levers.parallel.tp = tp;
            p.levers.parallel.dp = 8 / tp;
            p.levers.memory.loss = loss;
            let (r, _, _) = resolve(&p);
            assert_eq!(r.tp, tp);
            loss_peak(&r, 1.0, 1.0, 4096.0).0
        };
        let d = LossKernel::StackDefault;
        assert_eq!(per_logit(TrainingStack::Torchtitan, 1, d), 12.0);
        assert_eq!(per_logit(TrainingStack::Torchtitan, 2, d), 16.0);
        // torchtitan compiles its loss with the model (2025 on); a run of
        // the months it stayed eager names `unfused`.
        assert_eq!(per_logit(TrainingStack::TorchtitanCompiled, 8, d), 4.0);
        assert_eq!(per_logit(TrainingStack::TorchtitanCompiled, 1, d), 4.0);
        assert_eq!(
            per_logit(TrainingStack::TorchtitanCompiled, 8, LossKernel::Unfused),
            16.0
        );
        assert_eq!(per_logit(TrainingStack::HfTrainer, 2, d), 12.0);
        assert_eq!(per_logit(TrainingStack::MegatronCore, 2, d), 6.0);
        assert_eq!(
            per_logit(TrainingStack::Torchtitan, 2, LossKernel::Compiled),
            4.0
        );
    }
}
