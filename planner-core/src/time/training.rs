//! Time of one training step.
//!
//! A step is m micro-batches through a pipeline of p stages (Narayanan et
//! al. 2021, "Efficient Large-Scale Language Model Training on GPU Clusters
//! Using Megatron-LM", §2.2): the slowest stage sets the pace, the
//! pipeline bubble adds (p−1)/v stage-times of one micro-batch (v model
//! chunks per device; §2.2.2), and around the pipeline sit the
//! data-parallel reductions, the optimizer step and copies to slower
//! tiers, each hidden behind compute as far as the framework overlaps it.
//!
//! Per micro-batch and layer, forward costs its GEMMs at a size-dependent
//! efficiency, the attention core, the memory-bound element-wise work and
//! the TP/CP/EP collectives; backward costs twice the GEMMs (input and
//! weight gradients; only input gradients for a frozen base), 2.5× a Flash
//! attention forward (FlashAttention-2 paper's accounting) and twice the
//! element-wise traffic; checkpointing adds forward work again.

use super::comm::{collective, p2p, Collective};
use super::work::{peak, stage, Pass, StageWork};
use super::Parts;
use crate::memory::breakdown::Breakdown;
use crate::memory::{stage_params, stages, weight_bytes};
use crate::plan::{
    AttentionKernel, Checkpointing, Overlap, PipelineSchedule, Sharding, Tier, TrainingKind,
};
use crate::report::{ItemKind, TimeKind};
use crate::resolve::Resolved;

/// The step time and the FLOP counts that go with it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StepTime {
    pub parts: Parts,
    pub model_flops: f64,
    pub hardware_flops: f64,
    pub tokens: f64,
}

/// Seconds per byte moved between HBM and `tier`, per GPU: the host link
/// and the tier's own bandwidth, whichever is slower.
pub(crate) fn tier_seconds_per_byte(r: &Resolved, tier: Tier) -> f64 {
    let link = r.net.host_link * r.eff.host_link;
    let pool = match tier {
        Tier::Hbm => return 0.0,
        Tier::Cxl => r.net.cxl,
        Tier::HostDram => r.net.host_memory,
        Tier::Nvme => r.net.nvme,
    };
    let bw = link.min(pool);
    if bw > 0.0 {
        1.0 / bw
    } else {
        f64::INFINITY
    }
}

fn transfer_kind(tier: Tier) -> TimeKind {
    match tier {
        Tier::Cxl => TimeKind::TransferCxl,
        Tier::Nvme => TimeKind::TransferNvme,
        _ => TimeKind::TransferHost,
    }
}

/// Exposed part of `busy` seconds that may overlap a `window` of compute.
fn exposed(r: &Resolved, mode: Overlap, busy: f64, window: f64) -> f64 {
    match mode {
        Overlap::Off => busy,
        Overlap::On => (busy - window).max(busy * (1.0 - r.eff.overlap)),
    }
}

/// Per-micro-batch times of one stage.
#[derive(Debug, Clone, Copy, Default)]
struct StageTimes {
    fwd: f64,
    bwd: f64,
    parts: Parts,
    /// Recompute FLOPs (model convention) per micro-batch.
    recompute_flops: f64,
}

fn stage_times(r: &Resolved, w: &StageWork, frozen_base: bool, quantized_base: bool) -> StageTimes {
    let mut p = Parts::default();
    let hbm = r.gpu.memory_bandwidth.base() * r.eff.hbm;
    let hbm_s = |bytes: f64| if hbm > 0.0 { bytes / hbm } else { 0.0 };

    let gemm_f = w.sum(|l| l.gemm_time) + w.head_time;
    let gemm_b = if frozen_base {
        // Input gradients only (the head is frozen too).
        gemm_f
    } else {
        2.0 * gemm_f
    };
    let attn_f = w.sum(|l| l.attn_time);
    let attn_b = match r.levers.attention {
        AttentionKernel::Flash => 2.5 * attn_f,
        AttentionKernel::Eager => 2.0 * attn_f,
    };
    let mut ew_f = hbm_s(w.sum(|l| l.elementwise_bytes) + w.head_elementwise);
    if quantized_base {
        // Dequantizing the frozen NF4/INT weights to the compute format in
        // every pass: read the packed weights, write 16-bit ones.
        ew_f += hbm_s(w.sum(|l| l.weight_bytes) * (1.0 + 2.0 / weight_bytes(r).0.max(0.01)));
    }
    let ew_b = 2.0 * ew_f;

    // TP/SP: two all-reduces (or all-gather + reduce-scatter pairs, same
    // volume) forward and two backward per layer (Narayanan et al. 2021
    // §3.2; Korthikanti et al. §4.2.2).
    let tp_one = collective(r, Collective::AllReduce, w.dense.stream_bytes, r.tp, 1);
    let tp_f = 2.0 * w.layers() * tp_one;
    // CP: gather the sequence's K and V forward; gather again and
    // reduce-scatter their gradients backward (Llama 3 §3.3.2 all-gather CP).
    let cp = r.cp;
    let kv_frac = {
        let s = r.spec.attention_shape();
        (s.k_width + s.v_width) / f64::from(r.spec.hidden)
    };
    let cp_buf = w.dense.stream_bytes * kv_frac * f64::from(cp) / f64::from(r.tp);
    let cp_one = collective(r, Collective::AllGather, cp_buf, cp, r.tp);
    let cp_f = w.layers() * cp_one;
    let cp_b = 2.0 * cp_f;
    // EP: dispatch and combine all-to-all per MoE layer, forward and back.
    let ep_one = collective(
        r,
        Collective::AllToAll,
        w.moe.dispatch_bytes * f64::from(r.ep) / f64::from(r.ep.saturating_sub(1).max(1)),
        r.ep,
        r.tp.saturating_mul(r.cp),
    );
    let ep_f = 2.0 * w.moe_layers * ep_one;
    let overhead = r.eff.layer_overhead.base() * w.layers();

    // Checkpointing repeats forward work in backward.
    let layers = w.layers().max(1.0);
    let full_fraction = match r.levers.checkpointing {
        Checkpointing::None | Checkpointing::Selective => 0.0,
        Checkpointing::Full | Checkpointing::Uniform { .. } => 1.0,
        Checkpointing::Block { layers: k } => (f64::from(k) / layers).min(1.0),
    };
    let layer_fwd = w.sum(|l| l.gemm_time + l.attn_time) + hbm_s(w.sum(|l| l.elementwise_bytes));
    let mut recompute = full_fraction * (layer_fwd + tp_f + cp_f + ep_f + overhead);
    let mut recompute_flops = full_fraction * w.sum(|l| l.gemm_flops + l.attn_model_flops);
    if r.levers.checkpointing == Checkpointing::Selective
        && r.levers.attention == AttentionKernel::Eager
    {
        // Korthikanti et al. §4.2.2: the attention core (QKᵀ, softmax,
        // dropout, ·V) is recomputed.
        recompute = attn_f + hbm_s(w.sum(|l| l.score_bytes));
        recompute_flops = w.sum(|l| l.attn_model_flops);
    }

    let tp_mode = r.levers.overlap.tensor_parallel;
    let compute_f = gemm_f + attn_f + ew_f;
    let compute_b = gemm_b + attn_b + ew_b;
    // With SP only the sequence shard of a column-parallel layer's input
    // is kept, so backward gathers it again to form the weight gradient
    // (Megatron-LM `LinearWithGradAccumulationAndAsyncCommunication`): two
    // more all-gathers per layer, each half an all-reduce's volume.
    let sp_regather = if r.sp() { 0.5 * tp_f } else { 0.0 };
    let tp_bwd = tp_f * (1.0 + full_fraction) + sp_regather;
    let tp_busy = tp_f + tp_bwd;
    let tp_exp_f = exposed(r, tp_mode, tp_f, compute_f);
    let tp_exp_b = exposed(r, tp_mode, tp_bwd, compute_b);

    p.add(TimeKind::Gemm, gemm_f + gemm_b, gemm_f + gemm_b);
    p.add(TimeKind::Attention, attn_f + attn_b, attn_f + attn_b);
    p.add(TimeKind::Elementwise, ew_f + ew_b, ew_f + ew_b);
    p.add(TimeKind::Recompute, recompute, recompute);
    p.add(TimeKind::TensorParallel, tp_busy, tp_exp_f + tp_exp_b);
    p.add(TimeKind::ContextParallel, cp_f + cp_b, cp_f + cp_b);
    p.add(TimeKind::ExpertParallel, 2.0 * ep_f, 2.0 * ep_f);
    let passes = 2.0 + full_fraction;
    p.add(TimeKind::LayerOverhead, passes * overhead, passes * overhead);

    let _ = tp_busy;
    let fwd = compute_f + tp_exp_f + cp_f + ep_f + overhead;
    let bwd = compute_b + recompute + tp_exp_b + cp_b + ep_f + (1.0 + full_fraction) * overhead;
    StageTimes {
        fwd,
        bwd,
        parts: p,
        recompute_flops,
    }
}

/// The step time of a training plan.
pub(crate) fn step(
    r: &Resolved,
    devices: &[Breakdown],
    kind: TrainingKind,
    seq: u32,
    m: u32,
) -> StepTime {
    let mb = f64::from(r.levers.parallel.micro_batch);
    let cp = f64::from(r.cp);
    let s = f64::from(seq);
    let tokens_mb = mb * s / cp;
    let window = r.spec.sliding_window.map_or(s, |w| f64::from(w).min(s));
    let pass = Pass {
        tokens: tokens_mb,
        // Flash skips the masked half of a causal score matrix; the eager
        // path computes every score and masks afterwards.
        keys: match r.levers.attention {
            AttentionKernel::Flash => (window / 2.0).max(window - s / 2.0),
            AttentionKernel::Eager => s,
        },
        model_keys: window,
        sequences: mb,
    };
    let frozen = matches!(kind, TrainingKind::Lora(_) | TrainingKind::Qlora(_));
    let quantized = matches!(kind, TrainingKind::Qlora(_)) || weight_bytes(r).0 < 2.0;

    // The slowest stage paces the pipeline.
    let sts = stages(r);
    let mut worst = StageTimes::default();
    let mut worst_idx = 0;
    for (i, st) in sts.iter().enumerate() {
        let w = stage(r, st, pass, if st.head { tokens_mb } else { 0.0 });
        let t = stage_times(r, &w, frozen, quantized && frozen);
        if t.fwd + t.bwd > worst.fwd + worst.bwd {
            worst = t;
            worst_idx = i;
        }
    }
    let st = sts[worst_idx];
    let dev = devices.get(worst_idx).or(devices.first());
    let mf = f64::from(m);
    let per_mb = worst.fwd + worst.bwd;
    let mut parts = worst.parts.scaled(mf);

    // Pipeline bubble and point-to-point sends.
    let p = r.pp;
    let v = f64::from(r.chunks.max(1));
    if p > 1 {
        let bubble = match r.levers.parallel.schedule {
            PipelineSchedule::Gpipe | PipelineSchedule::OneFOneB => f64::from(p - 1) * per_mb,
            PipelineSchedule::Interleaved { .. } => f64::from(p - 1) / v * per_mb,
        };
        parts.add(TimeKind::PipelineBubble, bubble, bubble);
        // Megatron's scatter/gather optimisation sends 1/t of the
        // activation per TP rank (Narayanan et al. §4.1); one send forward
        // and one backward per micro-batch and model chunk.
        let bytes = tokens_mb * f64::from(r.spec.hidden) * r.levers.precision.activations.bytes_per_element()
            / f64::from(r.tp);
        let stride = r.tp.saturating_mul(r.cp).saturating_mul(r.dp);
        let one = p2p(r, bytes, stride);
        let total = 2.0 * v * mf * one;
        parts.add(TimeKind::PipelineP2p, total, total);
    }

    // Data-parallel traffic of the stage's parameters.
    let sp = stage_params(r, &st);
    let prec = &r.levers.precision;
    let (w_lin, w_other) = weight_bytes(r);
    let dense_params = sp.linear + sp.other;
    let w_dense = if dense_params > 0.0 {
        (sp.linear * w_lin + sp.other * w_other) / dense_params
    } else {
        w_lin
    };
    let trainable_dense = if frozen { sp.adapters } else { dense_params };
    let trainable_experts = if frozen { 0.0 } else { sp.experts };
    let g = prec.gradients.bytes_per_element();
    let dpcp = r.dp.saturating_mul(r.cp);
    let shard = r.levers.shard_group.unwrap_or(dpcp).clamp(1, dpcp.max(1));
    let replicas = dpcp / shard.max(1);
    let ep = r.ep.max(1);
    let exp_group = (shard / ep).max(1);
    let dmode = r.levers.overlap.data_parallel;
    let coll = |op, dense_bytes: f64, expert_bytes: f64| {
        collective(r, op, dense_bytes, shard, r.tp)
            + collective(r, op, expert_bytes, exp_group, r.tp.saturating_mul(ep))
    };
    let grads = |op| coll(op, trainable_dense * g, trainable_experts * g);
    let gather = || {
        coll(
            Collective::AllGather,
            dense_params * w_dense,
            sp.experts * w_lin,
        )
    };
    // Hybrid sharding: the shards are then all-reduced across replicas.
    let across = if replicas > 1 && r.levers.sharding != Sharding::None {
        collective(
            r,
            Collective::AllReduce,
            (trainable_dense + trainable_experts) * g / f64::from(shard),
            replicas,
            r.tp.saturating_mul(shard),
        )
    } else {
        0.0
    };
    let (mut dp_busy, mut dp_exp, mut ag_busy, mut ag_exp) = (0.0, 0.0, 0.0, 0.0);
    let last_bwd = worst.bwd;
    let first_fwd = worst.fwd;
    match r.levers.sharding {
        Sharding::None if shard > 1 => {
            dp_busy = grads(Collective::AllReduce);
            dp_exp = exposed(r, dmode, dp_busy, last_bwd);
        }
        Sharding::None => {}
        // Megatron's distributed optimizer and FSDP SHARD_GRAD_OP with
        // local accumulation: reduce-scatter once per step, all-gather the
        // updated parameters once.
        Sharding::Zero1 | Sharding::FsdpShardGradOp => {
            dp_busy = grads(Collective::ReduceScatter) + across;
            dp_exp = exposed(r, dmode, dp_busy, last_bwd);
            ag_busy = gather();
            ag_exp = exposed(r, dmode, ag_busy, first_fwd);
        }
        // ZeRO-2 keeps only its gradient shard, so every micro-batch's
        // gradients are reduce-scattered as backward produces them.
        Sharding::Zero2 => {
            let one = grads(Collective::ReduceScatter);
            dp_busy = mf * one + across;
            dp_exp = mf * exposed(r, dmode, one, worst.bwd) + across;
            ag_busy = gather();
            ag_exp = exposed(r, dmode, ag_busy, first_fwd);
        }
        // ZeRO-3/FSDP: gather parameters for forward and again for
        // backward, reduce-scatter gradients, every micro-batch (the 1.5×
        // volume of ZeRO §7).
        Sharding::Zero3 | Sharding::FsdpFullShard => {
            let rs = grads(Collective::ReduceScatter);
            let ag = gather();
            dp_busy = mf * rs + across;
            dp_exp = mf * exposed(r, dmode, rs, worst.bwd) + across;
            ag_busy = mf * 2.0 * ag;
            ag_exp = mf * (exposed(r, dmode, ag, worst.fwd) + exposed(r, dmode, ag, worst.bwd));
        }
    }
    parts.add(TimeKind::DataParallel, dp_busy, dp_exp);
    parts.add(TimeKind::ParameterGather, ag_busy, ag_exp);

    // Optimizer step: memory-bound over the parameters this rank updates.
    let (shard_opt, _, _) = crate::zero::sharded_states(r.levers.sharding);
    let n_opt = if shard_opt { f64::from(shard) } else { 1.0 };
    let local = trainable_dense / n_opt + trainable_experts / (n_opt / f64::from(ep)).max(1.0);
    let master = prec.master.map_or(0.0, |x| x.bytes_per_element());
    let opt = match dev {
        Some(d) if local > 0.0 => {
            let states = d.kind(ItemKind::OptimizerStates) + d.kind(ItemKind::MasterWeights);
            states / local
        }
        _ => 2.0 * prec.optimizer.bytes_per_element() + master,
    };
    let traffic = g + 2.0 * opt + w_dense;
    let hbm = r.gpu.memory_bandwidth.base() * r.eff.hbm;
    let off_frac = dev.map_or(0.0, |d| {
        let all = d.kind(ItemKind::OptimizerStates) + d.kind(ItemKind::MasterWeights);
        if all > 0.0 {
            1.0 - (d.get(ItemKind::OptimizerStates, Tier::Hbm)
                + d.get(ItemKind::MasterWeights, Tier::Hbm))
                / all
        } else {
            0.0
        }
    });
    let on_gpu = (1.0 - off_frac) * local * traffic / hbm.max(1.0);
    parts.add(TimeKind::Optimizer, on_gpu, on_gpu);

    // Copies to and from slower tiers.
    let omode = r.levers.overlap.offload;
    if let Some(d) = dev {
        for tier in [Tier::Cxl, Tier::HostDram, Tier::Nvme] {
            let spb = tier_seconds_per_byte(r, tier);
            let kind = transfer_kind(tier);
            // Optimizer offload (ZeRO-Offload): gradients go down, the
            // CPU updates its states at host-memory speed, updated
            // weights come back.
            let states =
                d.get(ItemKind::OptimizerStates, tier) + d.get(ItemKind::MasterWeights, tier);
            if states > 0.0 {
                let frac = states / (d.kind(ItemKind::OptimizerStates) + d.kind(ItemKind::MasterWeights));
                let n = frac * local;
                let down = n * g * spb;
                let up = n * w_dense * spb;
                let cpu_bw = match tier {
                    Tier::Cxl => r.net.cxl,
                    _ => r.net.host_memory,
                };
                let mut cpu = if cpu_bw > 0.0 {
                    n * (g + 2.0 * opt) / cpu_bw
                } else {
                    f64::INFINITY
                };
                if tier == Tier::Nvme {
                    // ZeRO-Infinity swaps the states in and out of NVMe.
                    cpu += 2.0 * states * spb;
                }
                parts.add(kind, down + up, exposed(r, omode, down, last_bwd) + exposed(r, omode, up, first_fwd));
                parts.add(TimeKind::Optimizer, cpu, cpu);
            }
            // Parameter offload: fetched for forward and for backward
            // (and for the recompute) every micro-batch.
            let wts = d.get(ItemKind::Weights, tier);
            if wts > 0.0 {
                let one = wts * spb;
                parts.add(
                    kind,
                    2.0 * mf * one,
                    mf * (exposed(r, omode, one, worst.fwd) + exposed(r, omode, one, worst.bwd)),
                );
            }
            // Gradient offload: accumulated in the slow tier (read and
            // written) every micro-batch.
            let gr = d.get(ItemKind::Gradients, tier);
            if gr > 0.0 {
                let one = 2.0 * gr * spb;
                parts.add(kind, mf * one, mf * exposed(r, omode, one, worst.bwd));
            }
            // Activation offload: written in forward, read in backward.
            let acts = d.get(ItemKind::Activations, tier) + d.get(ItemKind::EmbeddingActivations, tier);
            if acts > 0.0 {
                let flight = crate::memory::training_in_flight(r, st.rank, m).max(1.0);
                let one = acts / flight * spb;
                parts.add(
                    kind,
                    2.0 * mf * one,
                    mf * (exposed(r, omode, one, worst.fwd) + exposed(r, omode, one, worst.bwd)),
                );
            }
        }
    }

    // FLOPs (PaLM App. B convention: 6N + 12·L·H·Q·T per token for full
    // training, attention counted non-causal; no recompute in model FLOPs).
    let tokens = mf * mb * s * f64::from(r.dp);
    let linear = r.params.active_non_embedding(&r.spec)
        - r.params.dense_layer.small * f64::from(r.params.dense_layers)
        - r.params.moe_layer.small * f64::from(r.params.moe_layers);
    let shape = r.spec.attention_shape();
    let attn = 2.0 * window * (shape.q_width + shape.o_width) * f64::from(r.spec.layers);
    let adapters = if frozen {
        crate::memory::adapter_params(r)
    } else {
        0.0
    };
    let per_token = if frozen {
        // Forward and input gradients through the frozen base; adapters
        // train fully.
        4.0 * linear + 6.0 * adapters + 3.0 * attn
    } else {
        6.0 * linear + 3.0 * attn
    };
    let model_flops = per_token * tokens;
    // Recompute per micro-batch on one stage, scaled to the whole model.
    let layer_share = f64::from(r.spec.layers) / f64::from(st.layers().max(1));
    let recompute_per_token = worst.recompute_flops * f64::from(r.tp) * layer_share / tokens_mb.max(1.0);
    let hardware_flops = model_flops + recompute_per_token * tokens;
    let _ = peak(r);
    StepTime {
        parts,
        model_flops,
        hardware_flops,
        tokens,
    }
}
