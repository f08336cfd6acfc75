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
use super::work::{stage, Pass, StageWork};
use super::Parts;
use crate::memory::breakdown::Breakdown;
use crate::partition::{stage_params, stages, weight_bytes};
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
    let link = r.net.host_link.base() * r.eff.host_link;
    let pool = match tier {
        Tier::Hbm => return 0.0,
        Tier::Cxl => r.net.cxl.base(),
        Tier::HostDram => r.net.host_memory.base(),
        Tier::Nvme => r.net.nvme.base(),
    };
    let bw = link.min(pool);
    if bw > 0.0 {
        1.0 / bw
    } else {
        f64::INFINITY
    }
}

pub(crate) fn transfer_kind(tier: Tier) -> TimeKind {
    match tier {
        Tier::Cxl => TimeKind::TransferCxl,
        Tier::Nvme => TimeKind::TransferNvme,
        _ => TimeKind::TransferHost,
    }
}

/// Exposed part of `busy` seconds that may overlap a `window` of compute.
pub(crate) fn exposed(r: &Resolved, mode: Overlap, busy: f64, window: f64) -> f64 {
    match mode {
        Overlap::Off => busy,
        Overlap::On => (busy - window).max(busy * (1.0 - r.eff.overlap)),
    }
}

/// Channels transfers run on: the network (collectives) and the host link
/// (tier copies). Different channels run concurrently.
const NET: usize = 0;
const HOST: usize = 1;
const KINDS: usize = TimeKind::ALL.len();

/// Transfers that may hide behind one compute window, `times` times a step.
struct Window {
    len: f64,
    times: f64,
    busy: [[f64; KINDS]; 2],
}

impl Window {
    fn new(len: f64, times: f64) -> Self {
        Self {
            len,
            times,
            busy: [[0.0; KINDS]; 2],
        }
    }

    /// One window holding this window's and `once`'s transfers, and this
    /// window for the remaining `times − 1` occurrences.
    fn split_first(&self, once: &Window) -> (Window, Window) {
        let mut first = Window::new(self.len, 1.0);
        for c in 0..2 {
            for i in 0..KINDS {
                first.busy[c][i] = self.busy[c][i] + once.busy[c][i];
            }
        }
        let mut rest = Window::new(self.len, (self.times - 1.0).max(0.0));
        rest.busy = self.busy;
        (first, rest)
    }

    fn add(&mut self, channel: usize, kind: TimeKind, busy: f64) {
        self.busy[channel][kind as usize] += busy;
    }

    /// Transfers on one channel queue behind each other; the two channels
    /// run side by side, so the step waits for the one that overruns the
    /// window most, and that channel's kinds carry the exposed time.
    fn settle(&self, r: &Resolved, modes: [Overlap; 2], parts: &mut Parts) {
        let total = [
            self.busy[0].iter().sum::<f64>(),
            self.busy[1].iter().sum::<f64>(),
        ];
        let e = [
            exposed(r, modes[0], total[0], self.len),
            exposed(r, modes[1], total[1], self.len),
        ];
        let bind = usize::from(e[1] > e[0]);
        for (c, row) in self.busy.iter().enumerate() {
            for (i, &b) in row.iter().enumerate() {
                if b <= 0.0 {
                    continue;
                }
                let exp = if c == bind && total[c] > 0.0 {
                    e[c] * b / total[c]
                } else {
                    0.0
                };
                parts.add(TimeKind::ALL[i], b * self.times, exp * self.times);
            }
        }
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
    p.add(
        TimeKind::LayerOverhead,
        passes * overhead,
        passes * overhead,
    );

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
        let bytes = tokens_mb
            * f64::from(r.spec.hidden)
            * r.levers.precision.activations.bytes_per_element()
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
    // Transfers hidden behind compute, grouped by the compute window they
    // overlap: the last micro-batch's backward and the first one's forward
    // (once per step), and every micro-batch's forward and backward.
    let mut end = Window::new(worst.bwd, 1.0); // merged below
    let mut start = Window::new(worst.fwd, 1.0);
    let mut each_f = Window::new(worst.fwd, mf);
    let mut each_b = Window::new(worst.bwd, mf);
    match r.levers.sharding {
        Sharding::None if shard > 1 => {
            end.add(NET, TimeKind::DataParallel, grads(Collective::AllReduce));
        }
        Sharding::None => {}
        // Megatron's distributed optimizer and FSDP SHARD_GRAD_OP with
        // local accumulation: reduce-scatter once per step, all-gather the
        // updated parameters once.
        Sharding::Zero1 | Sharding::FsdpShardGradOp => {
            end.add(
                NET,
                TimeKind::DataParallel,
                grads(Collective::ReduceScatter),
            );
            parts.add(TimeKind::DataParallel, across, across);
            start.add(NET, TimeKind::ParameterGather, gather());
        }
        // ZeRO-2 keeps only its gradient shard, so every micro-batch's
        // gradients are reduce-scattered as backward produces them.
        Sharding::Zero2 => {
            each_b.add(
                NET,
                TimeKind::DataParallel,
                grads(Collective::ReduceScatter),
            );
            parts.add(TimeKind::DataParallel, across, across);
            start.add(NET, TimeKind::ParameterGather, gather());
        }
        // ZeRO-3/FSDP: gather parameters for forward and again for
        // backward, reduce-scatter gradients, every micro-batch (the 1.5×
        // volume of ZeRO §7).
        Sharding::Zero3 | Sharding::FsdpFullShard => {
            let ag = gather();
            each_f.add(NET, TimeKind::ParameterGather, ag);
            each_b.add(NET, TimeKind::ParameterGather, ag);
            each_b.add(
                NET,
                TimeKind::DataParallel,
                grads(Collective::ReduceScatter),
            );
            parts.add(TimeKind::DataParallel, across, across);
        }
    }

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
                let frac =
                    states / (d.kind(ItemKind::OptimizerStates) + d.kind(ItemKind::MasterWeights));
                let n = frac * local;
                let down = n * g * spb;
                let up = n * w_dense * spb;
                let cpu_bw = match tier {
                    Tier::Cxl => r.net.cxl.base(),
                    _ => r.net.host_memory.base(),
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
                end.add(HOST, kind, down);
                start.add(HOST, kind, up);
                parts.add(TimeKind::Optimizer, cpu, cpu);
            }
            // Parameter offload: fetched for forward and for backward
            // (and for the recompute) every micro-batch.
            let wts = d.get(ItemKind::Weights, tier);
            if wts > 0.0 {
                let one = wts * spb;
                each_f.add(HOST, kind, one);
                each_b.add(HOST, kind, one);
            }
            // Gradient offload: accumulated in the slow tier (read and
            // written) every micro-batch.
            let gr = d.get(ItemKind::Gradients, tier);
            if gr > 0.0 {
                each_b.add(HOST, kind, 2.0 * gr * spb);
            }
            // Activation offload: written in forward, read in backward.
            let acts =
                d.get(ItemKind::Activations, tier) + d.get(ItemKind::EmbeddingActivations, tier);
            if acts > 0.0 {
                let flight = crate::memory::training_in_flight(r, st.rank, m).max(1.0);
                let one = acts / flight * spb;
                each_f.add(HOST, kind, one);
                each_b.add(HOST, kind, one);
            }
        }
    }

    // The once-per-step transfers share the first forward and the last
    // backward with that micro-batch's own transfers.
    let modes = [r.levers.overlap.data_parallel, r.levers.overlap.offload];
    let (first_f, rest_f) = each_f.split_first(&start);
    let (last_b, rest_b) = each_b.split_first(&end);
    for w in [&first_f, &rest_f, &last_b, &rest_b] {
        w.settle(r, modes, &mut parts);
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
        crate::partition::adapter_params(r)
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
    let recompute_per_token =
        worst.recompute_flops * f64::from(r.tp) * layer_share / tokens_mb.max(1.0);
    let hardware_flops = model_flops + recompute_per_token * tokens;
    StepTime {
        parts,
        model_flops,
        hardware_flops,
        tokens,
    }
}
