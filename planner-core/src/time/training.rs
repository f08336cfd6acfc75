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
use super::work::{Pass, StageWork};
use super::Parts;
use crate::catalog::{DMA_COPY_OVERHEAD_S, NVME_READ_LATENCY_S};
use crate::memory::activations::{selective_policy, SelectivePolicy};
use crate::memory::breakdown::Breakdown;
use crate::partition::Stage;
use crate::plan::{
    AttentionKernel, Checkpointing, Overlap, PipelineSchedule, Sharding, Tier, TrainingKind,
};
use crate::report::{ItemKind, TimeKind};
use crate::resolve::Resolved;
use crate::zero::Zero3Fetch;

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

/// Seconds one copy to or from a slower tier waits before its first byte
/// arrives: the tier's load-to-use latency. Tier copies move a layer at a
/// time (ZeRO-Offload/Infinity prefetch a layer's parameters and swap a
/// layer's states; engines stream offloaded weights and KV layer by
/// layer), and inside a copy the DMA engines keep enough reads in flight
/// that the latency is paid once per copy, not per page: so each layer's
/// copy costs its latency plus its bytes over the link. The CXL tier's
/// latency is the plan's (`hardware.cxl.device.latency`,
/// `hardware.pool.latency`: 170–250 ns for direct-attached expanders,
/// 300–600 ns behind a switch, microseconds for PCIe-DMA pools; see
/// docs/sources.md). Every copy below HBM also pays the driver's cost of
/// starting an asynchronous copy (`DMA_COPY_OVERHEAD_S`, 6 µs), and an
/// NVMe copy waits a flash read (`NVME_READ_LATENCY_S`, 100 µs).
#[inline]
pub(crate) fn tier_latency(r: &Resolved, tier: Tier) -> f64 {
    match tier {
        Tier::Hbm => 0.0,
        Tier::HostDram => DMA_COPY_OVERHEAD_S,
        Tier::Cxl => DMA_COPY_OVERHEAD_S + r.net.cxl_latency.base(),
        Tier::Nvme => DMA_COPY_OVERHEAD_S + NVME_READ_LATENCY_S,
    }
}

pub(crate) fn transfer_kind(tier: Tier) -> TimeKind {
    match tier {
        Tier::Cxl => TimeKind::TransferCxl,
        Tier::Nvme => TimeKind::TransferNvme,
        _ => TimeKind::TransferHost,
    }
}

/// Exposed part of `busy` seconds that may overlap a `window` of compute,
/// a constant share of it at best (tensor-parallel and tier copies).
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

/// The kinds a compute window can hold, in `TimeKind` order: the network
/// channel's collectives, then the host link's tier copies. A window keeps
/// only these five sums (it kept one per kind and channel, 36, and the
/// search walked all of them for every candidate); the sums and the order
/// they are added in are the same, so no figure changes.
const SLOTS: [TimeKind; 5] = [
    TimeKind::DataParallel,
    TimeKind::ParameterGather,
    TimeKind::TransferCxl,
    TimeKind::TransferHost,
    TimeKind::TransferNvme,
];

/// `SLOTS[..NET_SLOTS]` run on the network, the rest on the host link.
const NET_SLOTS: usize = 2;

/// The slot of a collective (`data_parallel` issues gradient reductions
/// and parameter gathers only).
#[inline]
fn net_slot(kind: TimeKind) -> usize {
    match kind {
        TimeKind::ParameterGather => 1,
        _ => 0,
    }
}

/// The slot of a tier copy ([`transfer_kind`]'s three kinds).
#[inline]
fn host_slot(kind: TimeKind) -> usize {
    match kind {
        TimeKind::TransferCxl => 2,
        TimeKind::TransferNvme => 4,
        _ => 3,
    }
}

/// Exposed part of `busy` seconds of collectives cut in `pieces` equal
/// buckets that overlap a `window` of compute cut alike: a bucket's
/// gradients can be reduced once backward has produced them, and a layer's
/// parameters must be gathered before its forward runs (PyTorch DDP, Li et
/// al., VLDB 2020, §3.2.3 and Fig. 2; FSDP, Zhao et al., VLDB 2023, §3.3
/// and §4.3). Compute and communication then form a two-stage pipeline
/// over the pieces whose makespan is max(T + C/b, C + T/b) (Johnson's
/// two-machine flow shop with equal pieces), so what shows beyond the
/// compute T is max(C/b, C − T·(1 − 1/b)): at least one bucket, and all
/// the communication the window is too short to cover.
pub(crate) fn pipelined(busy: f64, window: f64, pieces: f64) -> f64 {
    if busy <= 0.0 {
        return 0.0;
    }
    let b = pieces.max(1.0);
    (busy / b)
        .max(busy - window.max(0.0) * (1.0 - 1.0 / b))
        .min(busy)
}

/// Transfers that may hide behind one compute window, `times` times a step.
#[derive(Debug, Clone, Copy)]
struct Window {
    len: f64,
    times: f64,
    /// Busy seconds per kind of [`SLOTS`].
    busy: [f64; SLOTS.len()],
    /// The fewest pieces any collective in the window is cut into: the
    /// coarsest one sets the tail that cannot hide.
    pieces: f64,
    /// The same for the tier copies on the host link.
    host_pieces: f64,
}

impl Window {
    fn new(len: f64, times: f64) -> Self {
        Self {
            len,
            times,
            busy: [0.0; SLOTS.len()],
            pieces: f64::INFINITY,
            host_pieces: f64::INFINITY,
        }
    }

    /// One window holding this window's and `once`'s transfers, and this
    /// window for the remaining `times − 1` occurrences.
    fn split_first(&self, once: &Window) -> (Window, Window) {
        let mut first = Window::new(self.len, 1.0);
        for (f, (a, b)) in first.busy.iter_mut().zip(self.busy.iter().zip(&once.busy)) {
            *f = a + b;
        }
        first.pieces = self.pieces.min(once.pieces);
        first.host_pieces = self.host_pieces.min(once.host_pieces);
        let rest = Window {
            times: (self.times - 1.0).max(0.0),
            ..*self
        };
        (first, rest)
    }

    /// A tier copy on the host link, moved as `pieces` equal parts (one
    /// per layer: a layer's parameters or activations move as a unit).
    fn add_host(&mut self, kind: TimeKind, busy: f64, pieces: f64) {
        if busy > 0.0 {
            self.busy[host_slot(kind)] += busy;
            self.host_pieces = self.host_pieces.min(pieces.max(1.0));
        }
    }

    /// A collective on the network channel, run as `pieces` buckets.
    fn add_net(&mut self, kind: TimeKind, busy: f64, pieces: f64) {
        if busy > 0.0 {
            self.busy[net_slot(kind)] += busy;
            self.pieces = self.pieces.min(pieces.max(1.0));
        }
    }

    /// Transfers on one channel queue behind each other; the two channels
    /// run side by side, so the step waits for the one that overruns the
    /// window most, and that channel's kinds carry the exposed time.
    fn settle(&self, modes: [Overlap; 2], parts: &mut Parts) {
        let (net_busy, host_busy) = self.busy.split_at(NET_SLOTS);
        let total = [net_busy.iter().sum::<f64>(), host_busy.iter().sum::<f64>()];
        let net = match modes[NET] {
            Overlap::Off => total[NET],
            Overlap::On => pipelined(total[NET], self.len, self.pieces.min(1e9)),
        };
        // Tier copies overlap compute the way collectives do: piece by
        // piece, each hiding behind the compute of the piece before it
        // (ZeRO-Infinity's layer-wise prefetch, Rajbhandari et al. 2021
        // §6.2; ZeRO-Offload's bucketed gradient copies, Ren et al. 2021
        // §4.1).
        let host = match modes[HOST] {
            Overlap::Off => total[HOST],
            Overlap::On => pipelined(total[HOST], self.len, self.host_pieces.min(1e9)),
        };
        let e = [net, host];
        let bind = usize::from(e[1] > e[0]);
        // The collectives' seconds hidden behind compute slow it
        // (`OVERLAP_CONTENTION`); what hides behind the host link's
        // copies instead does not.
        let slowed = OVERLAP_CONTENTION * (total[NET] - net).max(0.0);
        for (s, (&kind, &b)) in SLOTS.iter().zip(&self.busy).enumerate() {
            if b <= 0.0 {
                continue;
            }
            let c = if s < NET_SLOTS { NET } else { HOST };
            let mut exp = if c == bind && total[c] > 0.0 {
                e[c] * b / total[c]
            } else {
                0.0
            };
            if c == NET && total[NET] > 0.0 {
                exp += slowed * b / total[NET];
            }
            parts.add(kind, b * self.times, exp * self.times);
        }
    }
}

/// Per-micro-batch times of one stage.
#[derive(Debug, Clone, Copy, Default)]
struct StageTimes {
    fwd: f64,
    bwd: f64,
    /// The part of `bwd` that computes weight gradients (the GEMMs'
    /// second half), which split-backward schedules defer into the bubble.
    wgrad: f64,
    parts: Parts,
    /// Recompute FLOPs (model convention) per micro-batch.
    recompute_flops: f64,
}

/// Seconds to stream `bytes` through HBM at the achievable bandwidth.
#[inline]
fn hbm_seconds(r: &Resolved, bytes: f64) -> f64 {
    let hbm = r.gpu.memory_bandwidth.base() * r.eff.hbm;
    if hbm > 0.0 {
        bytes / hbm
    } else {
        0.0
    }
}

/// Backward time of the attention core from its forward time `fwd`: a
/// fused kernel's backward does 2.5 times the forward's FLOPs
/// (FlashAttention-2 paper's accounting), eager attention's two batched
/// GEMMs twice theirs. The Triton FlashAttention kernel's backward is
/// slower against FlashAttention-2 than its forward
/// (`AttentionKernel::flash_slowdown`), so its ratio is 2.5 × 2.0 / 1.4.
fn backward_attention(r: &Resolved, fwd: f64) -> f64 {
    match r.levers.attention {
        AttentionKernel::Flash | AttentionKernel::FlashTriton => {
            let (f, b) = r.levers.attention.flash_slowdown();
            2.5 * fwd * b / f
        }
        AttentionKernel::Eager => 2.0 * fwd,
    }
}

/// Compute seconds of one micro-batch on a stage, forward and backward.
#[derive(Debug, Clone, Copy)]
struct Compute {
    gemm_f: f64,
    gemm_b: f64,
    attn_f: f64,
    attn_b: f64,
    ew_f: f64,
    ew_b: f64,
}

impl Compute {
    #[inline]
    fn fwd(&self) -> f64 {
        self.gemm_f + self.attn_f + self.ew_f
    }

    #[inline]
    fn bwd(&self) -> f64 {
        self.gemm_b + self.attn_b + self.ew_b
    }
}

/// GEMMs, the attention core and the element-wise traffic of a stage.
fn compute(r: &Resolved, w: &StageWork, frozen_base: bool, quantized_base: bool) -> Compute {
    // The routed experts' grouped GEMMs on their roofline: with few tokens
    // per expert they wait on their weight reads.
    let x = &w.moe.experts;
    let memory_bound = w.moe_layers * (x.seconds(r) - x.compute).max(0.0);
    let gemm_f = w.sum(|l| l.gemm_time) + w.head_time + memory_bound;
    let gemm_b = if frozen_base {
        // Input gradients only (the head is frozen too).
        gemm_f
    } else {
        2.0 * gemm_f
    };
    let attn_f = w.sum(|l| l.attn_time);
    let attn_b = backward_attention(r, attn_f);
    let mut ew_f = hbm_seconds(r, w.sum(|l| l.elementwise_bytes));
    if quantized_base {
        // Dequantizing the frozen NF4/INT weights to the compute format in
        // every pass: read the packed weights, write 16-bit ones.
        ew_f += hbm_seconds(
            r,
            w.sum(|l| l.weight_bytes) * (1.0 + 2.0 / r.split.weight_bytes.0.max(0.01)),
        );
    }
    // Backward also sums the input gradients of inputs several linears
    // read (`work::grad_sum_bytes`).
    // The loss over the logits has its own passes each way
    // (`work::loss_bytes_per_logit`).
    let [loss_f, loss_b] = w.head_loss.map(|b| hbm_seconds(r, b));
    let ew_b = 2.0 * ew_f + hbm_seconds(r, w.sum(|l| l.grad_sum_bytes)) + loss_b;
    ew_f += loss_f;
    Compute {
        gemm_f,
        gemm_b,
        attn_f,
        attn_b,
        ew_f,
        ew_b,
    }
}

/// Forward collectives and per-layer overhead of a stage, one micro-batch.
#[derive(Debug, Clone, Copy)]
struct Comms {
    /// TP/SP forward.
    tp_f: f64,
    /// The forward's SP all-gathers alone: what a backward regather or a
    /// recompute gathers again (read only under SP; without it half the
    /// all-reduces).
    tp_gather_f: f64,
    /// CP forward and backward.
    cp_f: f64,
    cp_b: f64,
    /// EP forward (backward is the same).
    ep_f: f64,
    /// The part of the EP forward and backward all-to-all on the critical
    /// path (`levers.moe.dispatch_overlap`).
    ep_exposed_f: f64,
    ep_exposed_b: f64,
    /// Launch overhead of one pass over the stage's layers.
    overhead: f64,
    /// Host time of the stage's MoE layers in one forward pass
    /// ([`moe_host_forward`]); backward is twice it.
    moe_host_f: f64,
}

/// One layer's collectives, priced once per step: every stage's layers
/// are the same dense and MoE layer, so the prices are too.
#[derive(Debug, Clone, Copy)]
struct LayerPrices {
    /// One TP all-reduce (or all-gather + reduce-scatter pair).
    tp_one: f64,
    /// Its all-gather alone.
    tp_gather_one: f64,
    /// One CP all-gather of K and V.
    cp_one: f64,
    /// One EP dispatch (or combine) all-to-all.
    ep_one: f64,
}

fn layer_prices(r: &Resolved, [dense, moe]: &[super::work::LayerWork; 2]) -> LayerPrices {
    // TP/SP: two all-reduces (or all-gather + reduce-scatter pairs, same
    // volume) forward and two backward per layer (Narayanan et al. 2021
    // §3.2; Korthikanti et al. §4.2.2).
    let (tp_one, tp_gather_one) = tp_pair_seconds(r, dense.stream_bytes);
    // CP: gather the sequence's K and V forward; gather again and
    // reduce-scatter their gradients backward (Llama 3 §3.3.2 all-gather CP).
    let cp = r.cp;
    let kv_frac = {
        let s = r.spec.attention_shape();
        (s.k_width + s.v_width) / f64::from(r.spec.hidden)
    };
    let cp_buf = dense.stream_bytes * kv_frac * f64::from(cp) / f64::from(r.tp);
    let cp_one = collective(r, Collective::AllGather, cp_buf, cp, r.tp);
    // EP: dispatch and combine all-to-all per MoE layer, forward and back.
    let ep_one = super::work::dispatch_seconds(r, &moe.experts);
    LayerPrices {
        tp_one,
        tp_gather_one,
        cp_one,
        ep_one,
    }
}

/// One TP all-reduce of a `stream_bytes` buffer, or under sequence
/// parallelism its all-gather and reduce-scatter pair, whose volume is the
/// same unless the stack gathers FP8 activations in FP8
/// ([`crate::stack::TrainingStack::tp_gathers_in_fp8`]): then the
/// all-gather carries one byte an element and the reduce-scatter the
/// activations' 16 bits. Also returns the all-gather's seconds alone
/// (half the pair's in 16 bits).
fn tp_pair_seconds(r: &Resolved, stream_bytes: f64) -> (f64, f64) {
    let fp8_gathers = r.sp()
        && r.levers.precision.compute == crate::precision::Precision::Fp8
        && r.levers
            .training_stack
            .is_some_and(|s| s.tp_gathers_in_fp8());
    let ab = r.levers.precision.activations.bytes_per_element();
    if !fp8_gathers || ab <= 1.0 {
        let pair = collective(r, Collective::AllReduce, stream_bytes, r.tp, 1);
        return (pair, 0.5 * pair);
    }
    let gather = collective(r, Collective::AllGather, stream_bytes / ab, r.tp, 1);
    (
        gather + collective(r, Collective::ReduceScatter, stream_bytes, r.tp, 1),
        gather,
    )
}

fn comms(r: &Resolved, w: &StageWork, lp: &LayerPrices) -> Comms {
    let LayerPrices {
        tp_one,
        tp_gather_one,
        cp_one,
        ep_one,
    } = *lp;
    let tp_f = 2.0 * w.layers() * tp_one;
    let tp_gather_f = 2.0 * w.layers() * tp_gather_one;
    let cp_f = w.layers() * cp_one;
    let cp_b = 2.0 * cp_f;
    let ep_f = 2.0 * w.moe_layers * ep_one;
    let (ep_exposed_f, ep_exposed_b) = ep_exposed(r, w, 2.0 * ep_one);
    let overhead = super::work::overhead_seconds(r, w);
    Comms {
        tp_f,
        tp_gather_f,
        cp_f,
        cp_b,
        ep_f,
        ep_exposed_f,
        ep_exposed_b,
        overhead,
        moe_host_f: moe_host_forward(r, w),
    }
}

/// Host time of one forward pass over the stage's MoE layers that the
/// GPU waits for (`Efficiency::moe_expert_host`): the dropless dispatcher
/// reads the token counts back every MoE layer, so the host issues the
/// per-expert grouped-GEMM launches after the GPU has drained, and they add
/// to the layer's time rather than hide behind it. It scales with the
/// experts this rank holds (`experts / ep`), not with the tokens. Backward
/// issues about twice the forward's launches (input and weight gradients);
/// a recomputed layer repeats its forward.
fn moe_host_forward(r: &Resolved, w: &StageWork) -> f64 {
    let Some(m) = r.spec.moe else {
        return 0.0;
    };
    let local = (f64::from(m.experts) / f64::from(r.ep.max(1))).max(1.0);
    w.moe_layers * r.eff.moe_expert_host.base() * local
}

/// The exposed EP all-to-all of one micro-batch's forward and backward,
/// given `layer_a2a` seconds (dispatch + combine) per MoE layer and pass.
///
/// Without overlap all of it is on the critical path. Overlapped with the
/// other micro-batch (DualPipe, DeepSeek-V3 report §3.2.1; Megatron-Core's
/// combined 1F1B, `--overlap-moe-expert-parallel-comm`), a layer's forward
/// all-to-all runs beside the other micro-batch's backward compute of a
/// layer and its backward all-to-all beside a forward one, so per layer
/// only what exceeds that compute shows.
fn ep_exposed(r: &Resolved, w: &StageWork, layer_a2a: f64) -> (f64, f64) {
    let n = w.moe_layers;
    match r.levers.moe.dispatch_overlap {
        crate::moe::DispatchOverlap::None => (n * layer_a2a, n * layer_a2a),
        crate::moe::DispatchOverlap::OtherMicroBatch => {
            let l = &w.moe;
            let ew = hbm_seconds(r, l.elementwise_bytes);
            let fwd = l.gemm_time + l.attn_time + ew;
            let attn_b = backward_attention(r, l.attn_time);
            let bwd = 2.0 * l.gemm_time + attn_b + 2.0 * ew + hbm_seconds(r, l.grad_sum_bytes);
            (
                n * (layer_a2a - bwd).max(0.0),
                n * (layer_a2a - fwd).max(0.0),
            )
        }
    }
}

/// Forward work that checkpointing repeats in backward.
#[derive(Debug, Clone, Copy)]
struct Recompute {
    /// Share of the layers recomputed in full.
    full_fraction: f64,
    seconds: f64,
    /// FLOPs (model convention) per micro-batch.
    flops: f64,
}

fn recompute(r: &Resolved, w: &StageWork, c: &Compute, m: &Comms) -> Recompute {
    let layers = w.layers().max(1.0);
    let full_fraction = match r.levers.checkpointing {
        Checkpointing::None | Checkpointing::Selective => 0.0,
        Checkpointing::Full | Checkpointing::Uniform { .. } => 1.0,
        Checkpointing::Block { layers: k } => (f64::from(k) / layers).min(1.0),
    };
    let layer_fwd =
        w.sum(|l| l.gemm_time + l.attn_time) + hbm_seconds(r, w.sum(|l| l.elementwise_bytes));
    // The recomputed forward's TP collectives are charged with the other
    // TP collectives ([`tensor_parallel`]), where overlap can hide them.
    let mut seconds = full_fraction * (layer_fwd + m.cp_f + m.ep_f + m.overhead + m.moe_host_f);
    let mut flops = full_fraction * w.sum(|l| l.gemm_flops + l.attn_model_flops);
    if r.levers.checkpointing == Checkpointing::Selective {
        (seconds, flops) = match selective_policy(r.levers.memory.stack()) {
            SelectivePolicy::AttentionCore => attention_core_recompute(r, w, c),
            SelectivePolicy::EveryOtherMatmul => op_sac_recompute(r, w, m),
        };
    }
    Recompute {
        full_fraction,
        seconds,
        flops,
    }
}

/// Korthikanti et al. §4.2.2 (Megatron `--recompute-granularity
/// selective`): with an eager kernel the attention core (QKᵀ, softmax,
/// dropout, ·V) is recomputed; FlashAttention keeps nothing to recompute.
fn attention_core_recompute(r: &Resolved, w: &StageWork, c: &Compute) -> (f64, f64) {
    match r.levers.attention {
        AttentionKernel::Eager => (
            c.attn_f + hbm_seconds(r, w.sum(|l| l.score_bytes)),
            w.sum(|l| l.attn_model_flops),
        ),
        AttentionKernel::Flash | AttentionKernel::FlashTriton => (0.0, 0.0),
    }
}

/// torchtitan's op-level selective checkpointing
/// ([`super::work::LayerWork::op_sac_flops`]): every second matmul of a
/// block runs again, and so does every op off `_save_list` (norms, RoPE,
/// the activation and its gate product: all the forward element-wise
/// traffic). SDPA (flash or memory-efficient) is on the list and kept; an
/// eager attention's `bmm`s and softmax are not, so they run again. With
/// sequence parallelism the list keeps the reduce-scatter outputs but not
/// the all-gathers, so the two all-gathers before the column-parallel
/// matmuls (each half an all-reduce's volume, or the one-byte gather where
/// the stack gathers FP8) are repeated.
fn op_sac_recompute(r: &Resolved, w: &StageWork, m: &Comms) -> (f64, f64) {
    let eager = r.levers.attention == AttentionKernel::Eager;
    let attn_time = if eager { w.sum(|l| l.attn_time) } else { 0.0 };
    let attn_flops = if eager {
        w.sum(|l| l.attn_model_flops)
    } else {
        0.0
    };
    let gathers = if r.sp() { m.tp_gather_f } else { 0.0 };
    let seconds = w.sum(|l| l.op_sac_time)
        + attn_time
        + hbm_seconds(r, w.sum(|l| l.elementwise_bytes))
        + gathers;
    (seconds, w.sum(|l| l.op_sac_flops) + attn_flops)
}

/// TP/SP collectives of one micro-batch: busy, and exposed in each pass.
#[derive(Debug, Clone, Copy)]
struct TensorParallel {
    busy: f64,
    exposed_f: f64,
    exposed_b: f64,
}

fn tensor_parallel(r: &Resolved, c: &Compute, m: &Comms, full_fraction: f64) -> TensorParallel {
    // With SP Megatron keeps only the sequence shard of a column-parallel
    // layer's input, so backward gathers it again to form the weight
    // gradient (Megatron-LM `LinearWithGradAccumulationAndAsyncCommunication`):
    // two more all-gathers per layer, each half an all-reduce's volume (a
    // third of the pair's bytes where the gathers carry FP8).
    // torchtitan's DTensor linears keep the gathered input instead (the
    // memory model's `activations::gathers_saved`, one definition), and
    // what checkpointing drops is gathered again by the recompute.
    let regathers = r.sp() && !crate::memory::activations::gathers_saved(r.levers.memory.stack());
    let sp_regather = if regathers { m.tp_gather_f } else { 0.0 };
    // Backward's own collectives, then the recomputed forward's (once: the
    // recompute's seconds leave them out), each fused with its own GEMMs.
    let tp_bwd = m.tp_f + sp_regather;
    let tp_re = full_fraction * m.tp_f;
    let (exposed_f, exposed_b) = match r.levers.overlap.tensor_parallel {
        Overlap::Off => (m.tp_f, tp_bwd + tp_re),
        Overlap::On => (
            fused_with_gemms(r, m.tp_f, c.gemm_f, ALL_FUSED),
            fused_with_gemms(r, tp_bwd, c.gemm_b, backward_fused(r))
                + fused_with_gemms(r, tp_re, full_fraction * c.gemm_f, ALL_FUSED),
        ),
    };
    TensorParallel {
        busy: m.tp_f + tp_bwd + tp_re,
        exposed_f,
        exposed_b,
    }
}

/// Which of a layer's four TP collectives (in the order of
/// [`fused_with_gemms`]'s GEMMs: QKV, output projection, FFN up, FFN down)
/// an overlapping stack fuses with its GEMM.
type Fused = [bool; 4];

/// Every collective fused: a forward pass, and Transformer Engine's
/// userbuffers in both passes.
const ALL_FUSED: Fused = [true; 4];

/// The collectives of a backward pass that the stack fuses: the two
/// gradient all-gathers always, the two reduce-scatters where
/// [`crate::stack::TrainingStack::fuses_backward_reduce_scatters`] says.
fn backward_fused(r: &Resolved) -> Fused {
    let rs = r
        .levers
        .training_stack
        .is_none_or(|s| s.fuses_backward_reduce_scatters());
    [rs, true, rs, true]
}

/// Exposed part of `busy` seconds of TP collectives overlapped the way
/// async TP and Transformer Engine's userbuffers overlap them: each of a
/// layer's four collectives (the gathers before the QKV and FC1 GEMMs, the
/// reductions after the output projection and FC2) is split into TP-degree
/// chunks and pipelined with the one GEMM it feeds or drains, so it can
/// hide only behind that GEMM, never behind attention, element-wise work
/// or the other GEMMs (torchtitan async TP: `_fused_all_gather_matmul` /
/// `_fused_matmul_reduce_scatter`, "Distributed w/ TorchTitan: Introducing
/// Async Tensor Parallelism", PyTorch forums 2024; Wang et al., "Overlap
/// Communication with Dependent Computation via Decomposition", ASPLOS
/// 2023). Each collective takes an equal share of the busy time (FP8
/// gathers, [`tp_pair_seconds`], make the gathers' shares the smaller in
/// truth); the GEMMs' shares follow their widths. In backward the same collectives run against the
/// input-gradient and weight-gradient GEMMs of the same matrix. A
/// collective the stack does not fuse (`fused`, [`backward_fused`]) is
/// exposed whole.
fn fused_with_gemms(r: &Resolved, busy: f64, gemms: f64, fused: Fused) -> f64 {
    if busy <= 0.0 {
        return 0.0;
    }
    let s = r.spec.attention_shape();
    let h = f64::from(r.spec.hidden);
    let f = match r.spec.moe {
        Some(m) => f64::from(m.top_k) * f64::from(m.expert_ffn) + f64::from(m.shared_ffn),
        None => f64::from(r.spec.ffn),
    };
    let up = if r.spec.activation.is_gated() {
        2.0
    } else {
        1.0
    };
    let widths = [
        s.q_width + s.k_width + s.v_width,
        s.o_width,
        up * f,
        f.max(0.0),
    ];
    let total: f64 = widths.iter().sum::<f64>() * h;
    if total <= 0.0 {
        return busy;
    }
    let chunks = f64::from(r.tp.max(1));
    let each = busy / widths.len() as f64;
    widths
        .iter()
        .zip(fused)
        .map(|(w, on)| {
            if on {
                pipelined(each, gemms * w * h / total, chunks)
            } else {
                each
            }
        })
        .sum()
}

/// The parts of one micro-batch on a stage.
fn stage_parts(c: &Compute, m: &Comms, re: &Recompute, tp: &TensorParallel) -> Parts {
    let mut p = Parts::default();
    p.add(TimeKind::Gemm, c.gemm_f + c.gemm_b, c.gemm_f + c.gemm_b);
    p.add(
        TimeKind::Attention,
        c.attn_f + c.attn_b,
        c.attn_f + c.attn_b,
    );
    p.add(TimeKind::Elementwise, c.ew_f + c.ew_b, c.ew_f + c.ew_b);
    p.add(TimeKind::Recompute, re.seconds, re.seconds);
    p.add(
        TimeKind::TensorParallel,
        tp.busy,
        tp.exposed_f + tp.exposed_b,
    );
    p.add(TimeKind::ContextParallel, m.cp_f + m.cp_b, m.cp_f + m.cp_b);
    p.add(
        TimeKind::ExpertParallel,
        2.0 * m.ep_f,
        m.ep_exposed_f + m.ep_exposed_b,
    );
    // The recomputed forward's overhead is in `re.seconds`.
    let host = 2.0 * m.overhead + 3.0 * m.moe_host_f;
    p.add(TimeKind::LayerOverhead, host, host);
    p
}

fn stage_times(
    r: &Resolved,
    w: &StageWork,
    lp: &LayerPrices,
    frozen_base: bool,
    quantized_base: bool,
) -> StageTimes {
    let c = compute(r, w, frozen_base, quantized_base);
    let m = comms(r, w, lp);
    let re = recompute(r, w, &c, &m);
    let tp = tensor_parallel(r, &c, &m, re.full_fraction);
    let fwd = c.fwd() + tp.exposed_f + m.cp_f + m.ep_exposed_f + m.overhead + m.moe_host_f;
    let bwd = c.bwd()
        + re.seconds
        + tp.exposed_b
        + m.cp_b
        + m.ep_exposed_b
        + m.overhead
        + 2.0 * m.moe_host_f;
    let mut parts = stage_parts(&c, &m, &re, &tp);
    // Neither pass is shorter than the host's time to issue it.
    let (host_f, host_b) = super::host::training_seconds(r, w, re.full_fraction);
    let wait = (host_f - fwd).max(0.0) + (host_b - bwd).max(0.0);
    parts.add(TimeKind::HostBound, wait, wait);
    StageTimes {
        fwd: fwd.max(host_f),
        bwd: bwd.max(host_b),
        wgrad: (c.gemm_b - c.gemm_f).max(0.0),
        parts,
        recompute_flops: re.flops,
    }
}

/// What every stage of a step shares: one micro-batch's pass and the kind
/// of training.
#[derive(Debug, Clone, Copy)]
struct StepSetup {
    /// Micro-batch size.
    mb: f64,
    /// Sequence length.
    s: f64,
    /// Tokens of one micro-batch per device (after CP).
    tokens_mb: f64,
    /// Keys in the MFU convention (the sliding window, if any).
    window: f64,
    pass: Pass,
    /// The base model is frozen (LoRA, QLoRA).
    frozen: bool,
    /// The base weights are quantized below 16 bits.
    quantized: bool,
}

fn setup(r: &Resolved, kind: TrainingKind, seq: u32) -> StepSetup {
    let mb = f64::from(r.levers.parallel.micro_batch);
    let cp = f64::from(r.cp);
    let s = f64::from(seq);
    let tokens_mb = mb * s / cp;
    // Keys per query in the convention model FLOPs are quoted in (every
    // earlier key, within the window where a layer has one).
    let window = r.spec.keys_within(s);
    let pass = Pass {
        tokens: tokens_mb,
        // Flash skips the masked half of a causal score matrix; the eager
        // path computes every score and masks afterwards.
        keys: match r.levers.attention {
            AttentionKernel::Flash | AttentionKernel::FlashTriton => r.spec.causal_keys(s),
            AttentionKernel::Eager => s,
        },
        model_keys: window,
    };
    StepSetup {
        mb,
        s,
        tokens_mb,
        window,
        pass,
        frozen: matches!(kind, TrainingKind::Lora(_) | TrainingKind::Qlora(_)),
        quantized: matches!(kind, TrainingKind::Qlora(_)) || r.split.weight_bytes.0 < 2.0,
    }
}

/// The slowest stage, which paces the pipeline (ties: the first), and its
/// per-micro-batch times.
fn worst_stage(r: &Resolved, sts: &[Stage], su: &StepSetup) -> (usize, StageTimes) {
    let mut worst = StageTimes::default();
    let mut worst_idx = 0;
    let layers = super::work::layers(r, su.pass);
    let prices = layer_prices(r, &layers);
    for (i, st) in sts.iter().enumerate() {
        let logits = if st.head { su.tokens_mb } else { 0.0 };
        let w = super::work::stage_of(r, st, layers, logits);
        let t = stage_times(r, &w, &prices, su.frozen, su.quantized && su.frozen);
        if t.fwd + t.bwd > worst.fwd + worst.bwd {
            worst = t;
            worst_idx = i;
        }
    }
    (worst_idx, worst)
}

/// Pipeline bubble and point-to-point sends of a step, from the paced
/// stage's forward, backward and weight-gradient seconds per micro-batch.
///
/// The bubbles, in deepseek-ai/DualPipe's README table (F a chunk's
/// forward, B its whole backward, W the weight-gradient part of B, PP the
/// pipeline's stages): 1F1B and GPipe (PP − 1)(F + B); interleaved 1F1B
/// that over the chunks per rank (Narayanan et al. 2021 §2.2.2);
/// DualPipeV (PP/2 − 1)(F&B + B − 3W) over its 2p half-size chunks, with
/// F&B, a forward and a backward run overlapped, taken as F + B: the
/// overlap hides communication (what `levers.moe.dispatch_overlap`
/// prices), not compute.
fn pipeline(r: &Resolved, t: &StageTimes, tokens_mb: f64, mf: f64, parts: &mut Parts) {
    let p = r.pp;
    let v = f64::from(r.chunks.max(1));
    if p <= 1 {
        return;
    }
    let per_mb = t.fwd + t.bwd;
    let stages = f64::from(p - 1);
    let bubble = match r.levers.parallel.schedule {
        PipelineSchedule::Gpipe | PipelineSchedule::OneFOneB => stages * per_mb,
        PipelineSchedule::Interleaved { .. } => stages / v * per_mb,
        PipelineSchedule::DualPipeV => {
            // Chunks of half a rank's layers: F/2, B/2 and W/2 each.
            stages * (t.fwd + 2.0 * t.bwd - 3.0 * t.wgrad).max(0.0) / 2.0
        }
    };
    parts.add(TimeKind::PipelineBubble, bubble, bubble);
    // Megatron's scatter/gather optimisation sends 1/t of the activation
    // per TP rank (Narayanan et al. §4.1); one send forward and one
    // backward per micro-batch and model chunk.
    let bytes =
        tokens_mb * f64::from(r.spec.hidden) * r.levers.precision.activations.bytes_per_element()
            / f64::from(r.tp);
    let stride = r.tp.saturating_mul(r.cp).saturating_mul(r.dp);
    let one = p2p(r, bytes, stride);
    let total = 2.0 * v * mf * one;
    parts.add(TimeKind::PipelineP2p, total, total);
}

/// The paced stage's parameters as data-parallel traffic and the optimizer
/// see them.
#[derive(Debug, Clone, Copy)]
struct StageBytes {
    /// Dense parameter elements (linear and other).
    dense: f64,
    /// Routed-expert elements.
    experts: f64,
    /// Bytes per routed-expert weight.
    w_exp: f64,
    /// Bytes per dense weight, averaged over linear and other.
    w_dense: f64,
    trainable_dense: f64,
    trainable_experts: f64,
    /// Bytes per gradient element.
    g: f64,
}

fn stage_bytes(r: &Resolved, st: &Stage, frozen: bool) -> StageBytes {
    let sp = r.split.params(st);
    let (w_lin, w_other) = r.split.weight_bytes;
    let dense = sp.linear + sp.other;
    let w_dense = if dense > 0.0 {
        (sp.linear * w_lin + sp.other * w_other) / dense
    } else {
        w_lin
    };
    StageBytes {
        dense,
        experts: sp.experts,
        w_exp: r.split.expert_bytes,
        w_dense,
        trainable_dense: if frozen { sp.adapters } else { dense },
        trainable_experts: if frozen { 0.0 } else { sp.experts },
        g: r.levers.precision.gradients.bytes_per_element(),
    }
}

/// The data-parallel groups: the shard group (ZeRO/FSDP), its replicas
/// (hybrid sharding) and the expert shard group.
#[derive(Debug, Clone, Copy)]
struct DpGroups {
    shard: u32,
    replicas: u32,
    ep: u32,
    exp_group: u32,
}

fn dp_groups(r: &Resolved) -> DpGroups {
    let dpcp = r.dp.saturating_mul(r.cp);
    let shard = r.levers.shard_group.unwrap_or(dpcp).clamp(1, dpcp.max(1));
    let ep = r.ep.max(1);
    DpGroups {
        shard,
        replicas: dpcp / shard.max(1),
        ep,
        exp_group: (shard / ep).max(1),
    }
}

impl DpGroups {
    /// Collectives over the dense parameters' group and over the
    /// experts', each cut in `pieces` buckets that each pay the
    /// collective's latency.
    #[inline]
    fn coll(
        &self,
        r: &Resolved,
        op: Collective,
        dense_bytes: f64,
        expert_bytes: f64,
        pieces: f64,
    ) -> f64 {
        let n = pieces.max(1.0);
        let each = 1.0 / n;
        n * (collective(r, op, dense_bytes * each, self.shard, r.tp)
            + collective(
                r,
                op,
                expert_bytes * each,
                self.exp_group,
                r.tp.saturating_mul(self.ep),
            ))
    }

    /// Gradient reduction of the trainable parameters.
    #[inline]
    fn grads(&self, r: &Resolved, b: &StageBytes, op: Collective, pieces: f64) -> f64 {
        self.coll(
            r,
            op,
            b.trainable_dense * b.g,
            b.trainable_experts * b.g,
            pieces,
        )
    }

    /// Gathering every parameter.
    #[inline]
    fn gather(&self, r: &Resolved, b: &StageBytes, pieces: f64) -> f64 {
        self.coll(
            r,
            Collective::AllGather,
            b.dense * b.w_dense,
            b.experts * b.w_exp,
            pieces,
        )
    }

    /// Hybrid sharding: the shards are then all-reduced across replicas.
    fn across(&self, r: &Resolved, b: &StageBytes) -> f64 {
        if self.replicas > 1 && r.levers.sharding != Sharding::None {
            collective(
                r,
                Collective::AllReduce,
                (b.trainable_dense + b.trainable_experts) * b.g / f64::from(self.shard),
                self.replicas,
                r.tp.saturating_mul(self.shard),
            )
        } else {
            0.0
        }
    }
}

/// Transfers hidden behind compute, grouped by the compute window they
/// overlap: the last micro-batch's backward and the first one's forward
/// (once per step), and every micro-batch's forward and backward.
struct Windows {
    end: Window,
    start: Window,
    each_f: Window,
    each_b: Window,
}

impl Windows {
    fn new(worst: &StageTimes, mf: f64) -> Self {
        Self {
            end: Window::new(worst.bwd, 1.0), // merged in `settle`
            start: Window::new(worst.fwd, 1.0),
            each_f: Window::new(worst.fwd, mf),
            each_b: Window::new(worst.bwd, mf),
        }
    }

    /// The once-per-step transfers share the first forward and the last
    /// backward with that micro-batch's own transfers.
    fn settle(&self, r: &Resolved, parts: &mut Parts) {
        let modes = [r.levers.overlap.data_parallel, r.levers.overlap.offload];
        let (first_f, rest_f) = self.each_f.split_first(&self.start);
        let (last_b, rest_b) = self.each_b.split_first(&self.end);
        for w in [&first_f, &rest_f, &last_b, &rest_b] {
            w.settle(modes, parts);
        }
    }
}

/// PyTorch DDP's default gradient bucket, `bucket_cap_mb = 25` (MiB; Li
/// et al., VLDB 2020, §3.2.3 and §5.2: 25 MB buckets overlap best).
const DDP_BUCKET_BYTES: f64 = 25.0 * 1024.0 * 1024.0;

/// Megatron-Core's default bucket for its distributed optimizer and DDP:
/// max(40 M, 1 M × DP) parameters ("larger DP sizes need larger buckets
/// to ensure collectives do not become latency-bound";
/// `DistributedDataParallelConfig.bucket_size`). DeepSpeed's ZeRO-1/2
/// defaults (`reduce_bucket_size`, `allgather_bucket_size` = 5·10⁸
/// elements) are coarser still.
fn megatron_bucket_elements(dp: u32) -> f64 {
    (1e6 * f64::from(dp)).max(4e7)
}

/// How many buckets a sharding mode's gradient exchange of `elements`
/// parameters (`bytes` bytes) runs in: DeepSpeed ZeRO-3's
/// `reduce_bucket_size` ([`crate::zero::Zero3Fetch`]), one per block
/// where FSDP wraps each transformer block (Zhao et al. 2023 §3.2), DDP's
/// byte buckets for plain data parallelism, Megatron's parameter buckets
/// for ZeRO-1/2. Without overlap the reduction waits for the whole
/// backward and runs as one collective over a contiguous buffer
/// (Megatron-LM before its overlapped buckets, Narayanan et al. 2021
/// §4.2); FSDP's reduce-scatters stay per block, since a block's
/// gradients are only ever whole while it runs.
fn grad_buckets(r: &Resolved, st: &Stage, elements: f64, bytes: f64) -> f64 {
    let per_block = matches!(
        r.levers.sharding,
        Sharding::FsdpFullShard | Sharding::FsdpShardGradOp | Sharding::FsdpShardGradOpNoSync
    );
    if per_block {
        return f64::from(st.layers().max(1));
    }
    if r.levers.sharding == Sharding::Zero3 {
        // DeepSpeed reduces bucket by bucket with or without overlap.
        let bucket = r.levers.zero3.reduce_bucket.clamp(1, Zero3Fetch::MAX) as f64;
        return (elements / bucket).ceil().max(1.0);
    }
    if r.levers.overlap.data_parallel == Overlap::Off {
        return 1.0;
    }
    let n = match r.levers.sharding {
        Sharding::None => bytes / DDP_BUCKET_BYTES,
        _ => elements / megatron_bucket_elements(r.dp),
    };
    n.ceil().max(1.0)
}

/// The per-micro-batch parameter gathers of a stage: how many all-gathers
/// a pass issues and whether the next is prefetched, from the mode's one
/// gather schedule ([`crate::zero::gather_schedule`], which the memory
/// model reads for what is live).
fn gather_buckets(r: &Resolved, st: &Stage) -> (f64, bool) {
    let gather = crate::zero::mode(r.levers.sharding).gather;
    let blocks = f64::from(st.layers().max(1));
    if gather == crate::zero::Gathering::None {
        // No gathers inside the passes; the count is never read.
        return (blocks, true);
    }
    let shape = crate::memory::block_shape(r, st, &r.split.params(st));
    let plan = crate::zero::gather_schedule(gather, &r.levers.zero3, shape);
    ((blocks * plan.per_block).max(1.0), plan.prefetched)
}

/// The data-parallel exchanges of the sharding mode in force, each in
/// the compute window its cadence gives it ([`crate::zero::mode`], the one
/// definition the memory model also reads) and cut into its buckets, and
/// the hybrid-shard all-reduce across replicas. Gathers that are not
/// prefetched (DeepSpeed with no room under `stage3_max_live_parameters`)
/// run on demand: the compute waits for each in full.
fn data_parallel(
    r: &Resolved,
    st: &Stage,
    g: &DpGroups,
    b: &StageBytes,
    win: &mut Windows,
    parts: &mut Parts,
) {
    use crate::zero::{Cadence, Exchange};
    if r.levers.sharding == Sharding::None && g.shard <= 1 {
        return;
    }
    let trainable = b.trainable_dense + b.trainable_experts;
    let grad_pieces = grad_buckets(r, st, trainable, trainable * b.g);
    let (gather_pieces, prefetched) = gather_buckets(r, st);
    let all = b.dense + b.experts;
    let step_gather_pieces = grad_buckets(r, st, all, b.dense * b.w_dense + b.experts * b.w_exp);
    for &(exchange, cadence) in crate::zero::mode(r.levers.sharding).exchanges {
        let (kind, seconds, pieces) = match exchange {
            Exchange::GradientAllReduce => (
                TimeKind::DataParallel,
                g.grads(r, b, Collective::AllReduce, grad_pieces),
                grad_pieces,
            ),
            Exchange::GradientReduceScatter => (
                TimeKind::DataParallel,
                g.grads(r, b, Collective::ReduceScatter, grad_pieces),
                grad_pieces,
            ),
            Exchange::ParameterAllGather => {
                // Gathered once a step over a contiguous buffer, or per
                // block inside the passes.
                let pieces = match cadence {
                    Cadence::EachForward | Cadence::EachBackward => gather_pieces,
                    Cadence::StepEnd | Cadence::StepStart => step_gather_pieces,
                };
                (TimeKind::ParameterGather, g.gather(r, b, pieces), pieces)
            }
        };
        let per_pass = matches!(cadence, Cadence::EachForward | Cadence::EachBackward);
        if exchange == Exchange::ParameterAllGather && per_pass && !prefetched {
            let all = seconds * win.each_f.times;
            parts.add(kind, all, all);
            continue;
        }
        let window = match cadence {
            Cadence::EachForward => &mut win.each_f,
            Cadence::EachBackward => &mut win.each_b,
            Cadence::StepEnd => &mut win.end,
            Cadence::StepStart => &mut win.start,
        };
        window.add_net(kind, seconds, pieces);
    }
    if r.levers.sharding != Sharding::None {
        let across = g.across(r, b);
        parts.add(TimeKind::DataParallel, across, across);
    }
    let copies = if g.shard > 1 {
        fsdp2_copies(r, b, win.each_f.times)
    } else {
        0.0
    };
    parts.add(TimeKind::Elementwise, copies, copies);
}

/// HBM seconds of FSDP2's copies around its collectives, which run on the
/// compute stream ([`crate::stack::TrainingStack::fsdp2`]), per step of
/// `micro_batches`: each all-gather's copy-out reads the gathered buffer
/// and writes the unsharded parameters (twice the gathered bytes), each
/// reduce-scatter's copy-in reads the unsharded gradients in the compute
/// dtype and writes them in the reduce dtype. How often each runs is the
/// sharding mode's one schedule ([`crate::zero::mode`]).
fn fsdp2_copies(r: &Resolved, b: &StageBytes, micro_batches: f64) -> f64 {
    use crate::zero::{Cadence, Exchange};
    if !r.levers.training_stack.is_some_and(|s| s.fsdp2()) || r.levers.sharding == Sharding::None {
        return 0.0;
    }
    let gathered = b.dense * b.w_dense + b.experts * b.w_exp;
    let grad_in = r.levers.precision.activations.bytes_per_element();
    let reduced = (b.trainable_dense + b.trainable_experts) * (grad_in + b.g);
    let bytes: f64 = crate::zero::mode(r.levers.sharding)
        .exchanges
        .iter()
        .map(|&(exchange, cadence)| {
            let times = match cadence {
                Cadence::EachForward | Cadence::EachBackward => micro_batches,
                Cadence::StepEnd | Cadence::StepStart => 1.0,
            };
            times
                * match exchange {
                    Exchange::ParameterAllGather => 2.0 * gathered,
                    Exchange::GradientReduceScatter => reduced,
                    Exchange::GradientAllReduce => 0.0,
                }
        })
        .sum();
    hbm_seconds(r, bytes)
}

/// The parameters this rank updates and the optimizer bytes per parameter.
#[derive(Debug, Clone, Copy)]
struct OptimizerShare {
    local: f64,
    /// Optimizer-state and master-weight bytes per parameter.
    opt: f64,
}

fn optimizer_share(
    r: &Resolved,
    dev: Option<&Breakdown>,
    g: &DpGroups,
    b: &StageBytes,
) -> OptimizerShare {
    let prec = &r.levers.precision;
    let (shard_opt, _, _) = crate::zero::sharded_states(r.levers.sharding);
    let n_opt = if shard_opt { f64::from(g.shard) } else { 1.0 };
    let local =
        b.trainable_dense / n_opt + b.trainable_experts / (n_opt / f64::from(g.ep)).max(1.0);
    let master = prec.master.map_or(0.0, |x| x.bytes_per_element());
    let opt = match dev {
        Some(d) if local > 0.0 => {
            let states = d.kind(ItemKind::OptimizerStates) + d.kind(ItemKind::MasterWeights);
            states / local
        }
        _ => 2.0 * prec.optimizer.bytes_per_element() + master,
    };
    OptimizerShare { local, opt }
}

/// Optimizer step on the GPU: memory-bound over the parameters this rank
/// updates whose states live in HBM.
fn optimizer_on_gpu(
    r: &Resolved,
    dev: Option<&Breakdown>,
    b: &StageBytes,
    o: &OptimizerShare,
) -> f64 {
    // The stack's implementation sets how many passes the update makes
    // over these bytes (`stack::OptimizerImpl::traffic_factor`).
    let passes = r.factors.optimizer_passes;
    let traffic = (b.g + 2.0 * o.opt + b.w_dense) * passes;
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
    (1.0 - off_frac) * o.local * traffic / hbm.max(1.0)
}

/// Share of the host memory's peak bandwidth a vectorised CPU Adam step
/// streams, the step reading gradients, master weights and both moments
/// and writing the last three back (the `n · (g + 2·opt)` bytes charged in
/// [`tier_copies`]).
/// - x86 hosts, 0.43: DeepSpeed's CPU-Adam (AVX-512) updated 10 B
///   parameters in 2.57 s on a DGX-2's two Xeon Platinum 8168 (Ren et al.,
///   "ZeRO-Offload", USENIX ATC 2021, Tables 2 and 4: 3.3–4.5 G params/s
///   from 1 B to 10 B); at 28 B a parameter that is 109 GB/s of the
///   sockets' 256 GB/s (2 × 6 channels of DDR4-2666, Intel's
///   specification).
/// - Grace (GPUs behind NVLink-C2C, [`crate::hardware::HostCpu`]), 0.58:
///   the same CPU-Adam updated 8 B parameters in 0.769 s on a GH200's
///   Grace (DeepSpeed's SuperOffload
///   blog, 2025, Figure 5: 10.4 G params/s), 291 GB/s of its 500 GB/s
///   LPDDR5X ([`crate::hardware::default_host_bandwidth`]).
///
/// PyTorch's own CPU AdamW, without the fused kernel, runs 5–7× slower
/// (the same table; DeepSpeed's ZeRO-Offload tutorial); Megatron-Core's
/// optimizer offload uses the fused one (`torch.optim.AdamW(fused=True)`,
/// `megatron/core/optimizer/__init__.py`), taken at CPU-Adam's rate.
fn cpu_adam_fraction(host_link: crate::catalog::LinkId) -> f64 {
    use crate::hardware::HostCpu;
    match HostCpu::behind(host_link) {
        HostCpu::Grace => 0.58,
        HostCpu::X86 => 0.43,
    }
}

/// What the tier copies need besides the device's breakdown.
struct CopyCtx<'a> {
    r: &'a Resolved,
    d: &'a Breakdown,
    /// Pipeline rank of the paced stage.
    rank: u32,
    /// Micro-batches per step.
    m: u32,
    /// Layers of the paced stage: the pieces tier copies move in.
    layers: f64,
    b: &'a StageBytes,
    o: &'a OptimizerShare,
}

/// Copies to and from one slower tier.
fn tier_copies(c: &CopyCtx, tier: Tier, win: &mut Windows, parts: &mut Parts) {
    let (r, d) = (c.r, c.d);
    let spb = tier_seconds_per_byte(r, tier);
    let kind = transfer_kind(tier);
    // One copy per layer, each waiting its latency (`tier_latency`).
    let wait = c.layers * tier_latency(r, tier);
    // Optimizer offload (ZeRO-Offload): gradients go down, the CPU
    // updates its states at host-memory speed, updated weights come back.
    let states = d.get(ItemKind::OptimizerStates, tier) + d.get(ItemKind::MasterWeights, tier);
    if states > 0.0 {
        let frac = states / (d.kind(ItemKind::OptimizerStates) + d.kind(ItemKind::MasterWeights));
        let n = frac * c.o.local;
        let down = n * c.b.g * spb + wait;
        let up = n * c.b.w_dense * spb + wait;
        let cpu_bw = match tier {
            Tier::Cxl => r.net.cxl.base(),
            _ => r.net.host_memory.base(),
        } * cpu_adam_fraction(r.gpu.host_link);
        let mut cpu = if cpu_bw > 0.0 {
            n * (c.b.g + 2.0 * c.o.opt) / cpu_bw
        } else {
            f64::INFINITY
        };
        if tier == Tier::Nvme {
            // ZeRO-Infinity swaps the states in and out of NVMe.
            cpu += 2.0 * states * spb;
        }
        win.end.add_host(kind, down, c.layers);
        // The updated parameters come back after the CPU step, before the
        // forward that reads them: nothing to hide behind (ZeRO-Offload
        // §4.1 without its optional one-step delayed update).
        parts.add(kind, up, up);
        parts.add(TimeKind::Optimizer, cpu, cpu);
    }
    // Parameter offload: fetched for forward and for backward (and for the
    // recompute) every micro-batch.
    let wts = d.get(ItemKind::Weights, tier);
    if wts > 0.0 {
        let one = wts * spb + wait;
        win.each_f.add_host(kind, one, c.layers);
        win.each_b.add_host(kind, one, c.layers);
    }
    // Gradient offload: accumulated in the slow tier (read and written)
    // every micro-batch.
    let gr = d.get(ItemKind::Gradients, tier);
    if gr > 0.0 {
        win.each_b.add_host(kind, 2.0 * (gr * spb + wait), c.layers);
    }
    // Activation offload: written in forward, read in backward.
    let acts = d.get(ItemKind::Activations, tier) + d.get(ItemKind::EmbeddingActivations, tier);
    if acts > 0.0 {
        let flight = crate::memory::training_in_flight(r, c.rank, c.m).max(1.0);
        let one = acts / flight * spb + wait;
        win.each_f.add_host(kind, one, c.layers);
        win.each_b.add_host(kind, one, c.layers);
    }
}

/// Model and hardware FLOPs of a step, and its tokens.
#[derive(Debug, Clone, Copy)]
struct StepFlops {
    model: f64,
    hardware: f64,
    tokens: f64,
}

/// FLOPs (PaLM App. B convention: 6N + 12·L·H·Q·T per token for full
/// training, attention counted non-causal; no recompute in model FLOPs).
fn flops(r: &Resolved, su: &StepSetup, mf: f64, st: &Stage, recompute_flops: f64) -> StepFlops {
    let tokens = mf * su.mb * su.s * f64::from(r.dp);
    let linear = r.params.active_non_embedding(&r.spec)
        - r.params.dense_layer.small * f64::from(r.params.dense_layers)
        - r.params.moe_layer.small * f64::from(r.params.moe_layers);
    let shape = r.spec.attention_shape();
    let attn = 2.0 * su.window * (shape.q_width + shape.o_width) * f64::from(r.spec.layers);
    let adapters = if su.frozen { r.split.adapters } else { 0.0 };
    let per_token = if su.frozen {
        // Forward and input gradients through the frozen base; adapters
        // train fully.
        4.0 * linear + 6.0 * adapters + 3.0 * attn
    } else {
        6.0 * linear + 3.0 * attn
    };
    let model = per_token * tokens;
    // Recompute per micro-batch on one stage, scaled to the whole model.
    let layer_share = f64::from(r.spec.layers) / f64::from(st.layers().max(1));
    let recompute_per_token =
        recompute_flops * f64::from(r.tp) * layer_share / su.tokens_mb.max(1.0);
    StepFlops {
        model,
        hardware: model + recompute_per_token * tokens,
        tokens,
    }
}

/// Paced stages the search worked out recently, by a key of the candidate
/// that names every input [`worst_stage`] reads which a walk varies (the
/// parallel degrees, sequence parallelism, schedule, checkpointing, number
/// formats and micro-batch: `search::Walker` builds it from the indices of
/// those lever values). Sharding and offload are left out of the key:
/// they change the data-parallel traffic and the tier copies, which
/// [`step`] prices after the paced stage, not the stage itself. A hit
/// returns the very times `worst_stage` returned for the same key, so the
/// memo changes no result (`search::tests::memos_and_kept_splits_change_no_number`
/// checks every candidate's step against a fresh one). One memo serves
/// one walk (one hardware option and GPU count): what the key leaves out
/// is the walk's own.
#[derive(Debug, Clone)]
pub(crate) struct StageMemo {
    slots: Vec<Option<StageSlot>>,
}

/// One memo entry: the key, the paced stage and its times.
type StageSlot = ([u64; 5], (usize, StageTimes));

impl StageMemo {
    /// Slots in the direct-mapped table (a power of two).
    const SLOTS: usize = 4096;

    /// An empty memo; its table is allocated on first use (a serving
    /// walk never uses it).
    pub fn new() -> Self {
        Self { slots: Vec::new() }
    }

    fn get_or(
        &mut self,
        key: [u64; 5],
        f: impl FnOnce() -> (usize, StageTimes),
    ) -> Option<&(usize, StageTimes)> {
        let mut h = 0u64;
        for x in key {
            h = (h ^ x).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
        // The top bits of the product depend on every bit of the key.
        let i = (h >> (64 - Self::SLOTS.trailing_zeros())) as usize % Self::SLOTS;
        if self.slots.is_empty() {
            self.slots = vec![None; Self::SLOTS];
        }
        let slot = self.slots.get_mut(i)?;
        if !matches!(slot, Some((k, _)) if *k == key) {
            *slot = Some((key, f()));
        }
        slot.as_ref().map(|(_, v)| v)
    }
}

/// The step time of a training plan.
/// Share of a collective's overlapped seconds that the compute it hides
/// behind loses: NCCL's kernels hold SMs (a block per channel) and HBM
/// bandwidth while the GEMMs run, and a GEMM sized to one wave of the SMs
/// spills into a second. Measured on GPT and Llama layers on A100, H100,
/// MI250 and MI210 with their collectives overlapped: an average
/// computational slowdown of 18.9 % against the same compute alone
/// (maximum 40.0 %; "Characterizing Compute-Communication Overlap in
/// GPU-Accelerated Distributed Deep Learning: Performance and Power
/// Implications", arXiv 2507.03114, abstract).
pub(crate) const OVERLAP_CONTENTION: f64 = 0.189;

/// Charges the hidden seconds of the collectives a stage overlaps with its
/// own compute (TP, CP, EP) their contention ([`OVERLAP_CONTENTION`]) as
/// exposed time of that collective: what the step loses to it, never more
/// than its busy time. The data-parallel traffic is charged where its
/// window settles (`Window::settle`), for the part hidden behind compute
/// only. Tier copies run on the copy engines, not the SMs, and are not
/// charged.
fn contention(parts: &mut Parts) {
    for kind in [
        TimeKind::TensorParallel,
        TimeKind::ContextParallel,
        TimeKind::ExpertParallel,
    ] {
        let i = kind as usize;
        let hidden = parts.busy[i] - parts.exposed[i];
        if hidden > 0.0 {
            parts.exposed[i] += OVERLAP_CONTENTION * hidden;
        }
    }
}

pub(crate) fn step(
    r: &Resolved,
    devices: &[Breakdown],
    kind: TrainingKind,
    seq: u32,
    m: u32,
) -> StepTime {
    step_with(r, devices, kind, seq, m, None)
}

/// [`step`], with the paced stage from `memo` under `key` when the search
/// priced the same stage before.
pub(crate) fn step_with(
    r: &Resolved,
    devices: &[Breakdown],
    kind: TrainingKind,
    seq: u32,
    m: u32,
    memo: Option<(&mut StageMemo, [u64; 5])>,
) -> StepTime {
    let su = setup(r, kind, seq);
    let sts = r.split.stages;
    // Read in place from the memo (a paced stage's times are 300 bytes).
    let own;
    let (worst_idx, worst) =
        match memo.and_then(|(memo, key)| memo.get_or(key, || worst_stage(r, &sts, &su))) {
            Some((i, t)) => (*i, t),
            None => {
                own = worst_stage(r, &sts, &su);
                (own.0, &own.1)
            }
        };
    let st = sts[worst_idx];
    let dev = devices.get(worst_idx).or(devices.first());
    let mf = f64::from(m);
    let mut parts = worst.parts.scaled(mf);

    pipeline(r, worst, su.tokens_mb, mf, &mut parts);

    let bytes = stage_bytes(r, &st, su.frozen);
    let groups = dp_groups(r);
    let mut win = Windows::new(worst, mf);
    data_parallel(r, &st, &groups, &bytes, &mut win, &mut parts);

    let opt = optimizer_share(r, dev, &groups, &bytes);
    let on_gpu = optimizer_on_gpu(r, dev, &bytes, &opt);
    parts.add(TimeKind::Optimizer, on_gpu, on_gpu);

    if let Some(d) = dev {
        let c = CopyCtx {
            r,
            d,
            rank: st.rank,
            m,
            layers: f64::from(st.layers().max(1)),
            b: &bytes,
            o: &opt,
        };
        for tier in [Tier::Cxl, Tier::HostDram, Tier::Nvme] {
            tier_copies(&c, tier, &mut win, &mut parts);
        }
    }
    win.settle(r, &mut parts);
    contention(&mut parts);

    let f = flops(r, &su, mf, &st, worst.recompute_flops);
    StepTime {
        parts,
        model_flops: f.model,
        hardware_flops: f.hardware,
        tokens: f.tokens,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::SequenceParallel;
    use crate::precision::Precision;
    use crate::resolve::resolve;
    use crate::stack::TrainingStack;

    /// The example plan at TP 8 with sequence parallelism on `stack`,
    /// computing in `compute`.
    fn tp8(stack: TrainingStack, compute: Precision, sp: SequenceParallel) -> Resolved {
        let mut p = crate::examples::example_plan();
        p.levers.parallel.tp = 8;
        p.levers.parallel.dp = 1;
        p.levers.parallel.sequence_parallel = sp;
        p.levers.training_stack = Some(stack);
        p.levers.precision.compute = compute;
        resolve(&p).0
    }

    /// The bubble of each schedule on the same paced stage, with that
    /// stage's times: Llama 2 7B on torchtitan, 4 stages × 2 FSDP ranks.
    fn bubble(schedule: PipelineSchedule) -> (f64, StageTimes) {
        let mut p = crate::examples::example_plan();
        p.levers.training_stack = Some(TrainingStack::Torchtitan);
        p.levers.sharding = crate::plan::Sharding::FsdpFullShard;
        p.levers.parallel.pp = 4;
        p.levers.parallel.dp = 2;
        p.levers.parallel.schedule = schedule;
        let r = resolve(&p).0;
        let crate::resolve::Work::Train { kind, seq, .. } = r.work else {
            unreachable!("the example trains")
        };
        let su = setup(&r, kind, seq);
        let (_, t) = worst_stage(&r, &r.split.stages, &su);
        let mut parts = Parts::default();
        pipeline(&r, &t, su.tokens_mb, 16.0, &mut parts);
        (parts.busy[TimeKind::PipelineBubble as usize], t)
    }

    /// DualPipeV's bubble is the DualPipe README's (PP/2 − 1)(F&B + B −
    /// 3W) over its 2p chunks of half a rank's layers, F&B as F + B:
    /// (p − 1)(F + 2B − 3W)/2 in a rank's times, where 1F1B's is
    /// (p − 1)(F + B). Only the weight gradients move into the bubble, so
    /// it lies between 1F1B's and nothing, and the first rank, which runs
    /// the last chunk too, carries the output head.
    #[test]
    fn dual_pipe_v_defers_weight_gradients_into_the_bubble() {
        let (one_f_one_b, t) = bubble(PipelineSchedule::OneFOneB);
        assert!((one_f_one_b - 3.0 * (t.fwd + t.bwd)).abs() < 1e-12);
        let (v, tv) = bubble(PipelineSchedule::DualPipeV);
        assert!(tv.wgrad > 0.0 && tv.wgrad < tv.bwd, "{tv:?}");
        let expected = 3.0 * (tv.fwd + 2.0 * tv.bwd - 3.0 * tv.wgrad) / 2.0;
        assert!((v - expected).abs() < 1e-12, "{v} {expected}");
        assert!(v > 0.0 && v < one_f_one_b, "{v} {one_f_one_b}");
        // The same paced stage, its ends moved: the V puts the head on
        // rank 0 (embedding and head together) and neither on the last.
        assert!((tv.fwd + tv.bwd - t.fwd - t.bwd).abs() < 1e-12);
        let mut p = crate::examples::example_plan();
        p.levers.parallel.pp = 4;
        p.levers.parallel.dp = 2;
        p.levers.parallel.schedule = PipelineSchedule::DualPipeV;
        let sts = resolve(&p).0.split.stages;
        let ends: Vec<(bool, bool)> = sts.iter().map(|s| (s.embedding, s.head)).collect();
        assert_eq!(ends, [(true, true), (false, false)]);
    }

    /// torchtitan's Float8 linears and Transformer Engine's FP8 linears
    /// (Megatron-Core) gather in FP8 under sequence parallelism: the pair
    /// is a one-byte all-gather and a 16-bit reduce-scatter; in BF16,
    /// without SP, or on DeepSpeed it is the 16-bit all-reduce's volume.
    #[test]
    fn fp8_linears_gather_one_byte() {
        let b = 64.0e6;
        let (on, off) = (SequenceParallel::On, SequenceParallel::Off);
        for stack in [TrainingStack::Torchtitan, TrainingStack::MegatronCore] {
            let r = tp8(stack, Precision::Fp8, on);
            let fp8 = collective(&r, Collective::AllGather, b / 2.0, 8, 1)
                + collective(&r, Collective::ReduceScatter, b, 8, 1);
            let gather = collective(&r, Collective::AllGather, b / 2.0, 8, 1);
            // A regather or a recompute gathers the FP8 shard again.
            assert_eq!(tp_pair_seconds(&r, b), (fp8, gather), "{stack:?}");
            let all_reduce = collective(&r, Collective::AllReduce, b, 8, 1);
            // Three quarters of the volume, plus one more fixed latency.
            assert!(fp8 < 0.85 * all_reduce, "{fp8} {all_reduce}");
        }
        for r in [
            tp8(TrainingStack::Torchtitan, Precision::Bf16, on),
            tp8(TrainingStack::Torchtitan, Precision::Fp8, off),
            tp8(TrainingStack::MegatronCore, Precision::Bf16, on),
            tp8(TrainingStack::DeepSpeed, Precision::Fp8, on),
        ] {
            let pair = collective(&r, Collective::AllReduce, b, 8, 1);
            assert_eq!(tp_pair_seconds(&r, b), (pair, 0.5 * pair));
        }
    }

    /// torchtitan's async TP fuses the backward's gradient all-gathers
    /// with their matmuls but not the reduce-scatters of summed input
    /// gradients, which stay whole on the critical path; Transformer
    /// Engine's userbuffers overlap all four.
    #[test]
    fn torchtitan_async_tp_leaves_the_backward_reduce_scatters_exposed() {
        let on = SequenceParallel::On;
        let titan = tp8(TrainingStack::TorchtitanCompiled, Precision::Bf16, on);
        let megatron = tp8(TrainingStack::MegatronCore, Precision::Bf16, on);
        assert_eq!(backward_fused(&titan), [false, true, false, true]);
        assert_eq!(backward_fused(&megatron), ALL_FUSED);
        // GEMMs long enough to hide every chunk but the first.
        let (busy, gemms) = (1.0, 100.0);
        let all = fused_with_gemms(&titan, busy, gemms, ALL_FUSED);
        let half = fused_with_gemms(&titan, busy, gemms, backward_fused(&titan));
        assert!(all < 0.5 * busy, "{all}");
        assert!(half > 0.5 * busy && half < 0.5 * busy + all, "{half} {all}");
        assert_eq!(fused_with_gemms(&titan, busy, gemms, [false; 4]), busy);
    }

    /// Megatron gathers a sequence-parallel input again in backward for the
    /// weight gradient; torchtitan's DTensor linears keep the gathered
    /// input (the memory model's `gathers_saved`), so without
    /// checkpointing its TP collectives are the forward pair and its
    /// gradient pair only: 2 against Megatron's 2.5 forward volumes in
    /// 16 bits. Where both stacks gather FP8, Megatron's regather is the
    /// one-byte gather: about a third of the 16-bit one, so its extra is
    /// about a sixth of torchtitan's two pairs (a little more, since each
    /// collective also pays a fixed latency).
    #[test]
    fn only_megatron_gathers_sp_inputs_again_in_backward() {
        use crate::plan::Checkpointing;
        use crate::report::{TimeKind, TimeReport};
        let busy = |stack: TrainingStack, compute: Precision| {
            let mut p = crate::examples::example_plan();
            p.levers.parallel.tp = 8;
            p.levers.parallel.dp = 1;
            p.levers.parallel.sequence_parallel = SequenceParallel::On;
            p.levers.checkpointing = Checkpointing::None;
            p.levers.training_stack = Some(stack);
            p.levers.precision.compute = compute;
            let r = crate::evaluate(&p);
            let t = match &r.time {
                TimeReport::Training(t) => Some(t),
                TimeReport::Inference(_) => None,
            }
            .expect("a training plan");
            t.parts
                .iter()
                .filter(|x| x.kind == TimeKind::TensorParallel)
                .map(|x| x.busy.as_secs())
                .sum::<f64>()
        };
        let extra = |compute| {
            let titan = busy(TrainingStack::Torchtitan, compute);
            assert!(titan > 0.0);
            busy(TrainingStack::MegatronCore, compute) / titan - 1.0
        };
        let bf16 = extra(Precision::Bf16);
        assert!((bf16 - 0.25).abs() < 1e-9, "{bf16}");
        let fp8 = extra(Precision::Fp8);
        assert!((1.0 / 6.0 - 1e-9..0.2).contains(&fp8), "{fp8}");
    }
}
