//! Serving time: prefill (TTFT) and decode (TPOT).
//!
//! Every GEMM is costed on a roofline: the larger of its FLOPs at the
//! size-dependent GEMM efficiency and the bytes it reads (weights, which
//! dominate at small batch) at the achievable HBM bandwidth. Prefill is
//! therefore compute-bound and decode memory-bound, as measured by every
//! serving study (e.g. Kwon et al. 2023 §2.2; Pope et al. 2022,
//! "Efficiently Scaling Transformer Inference", §2). Decode also reads the
//! KV cache of every sequence at every step; KV held in CXL or host memory
//! is streamed over the host link at the same time. Weights held in a
//! slower tier (weight offload) cross their link on every forward pass —
//! every prefill chunk and every decode step — so a pass is never shorter
//! than the offloaded bytes it reads divided by that link's bandwidth
//! (as FlexGen, Sheng et al. 2023 §4, and DeepSpeed ZeRO-Inference charge
//! it); the copy overlaps compute at best. Pipeline stages run one after
//! another for one batch (no micro-batch pipelining is assumed).

use super::comm::{collective, p2p, Collective};
use super::training::{exposed, tier_latency, tier_seconds_per_byte, transfer_kind};
use super::work::{stage, Pass, StageWork};
use super::Parts;
use crate::memory::breakdown::Breakdown;
use crate::memory::kv_per_token_layer_rank;
use crate::partition::Stage;
use crate::plan::{LogitsScope, Overlap, Tier};
use crate::report::{DeviceRole, ItemKind, TimeKind};
use crate::resolve::Resolved;

/// Prefill and decode times of one batch.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ServeTime {
    pub prefill: Parts,
    pub decode: Parts,
    pub output: u32,
}

impl ServeTime {
    pub fn ttft(&self) -> f64 {
        self.prefill.total()
    }
    pub fn tpot(&self) -> f64 {
        self.decode.total()
    }
    pub fn latency(&self) -> f64 {
        self.ttft() + f64::from(self.output.saturating_sub(1)) * self.tpot()
    }
}

fn pass_parts(r: &Resolved, w: &StageWork, parts: &mut Parts, memory_floor: bool) {
    // Seconds to stream `b` bytes at `rate` bytes a second.
    let at = |rate: f64| move |b: f64| if rate > 0.0 { b / rate } else { f64::INFINITY };
    let hbm_s = at(r.gpu.memory_bandwidth.base() * r.eff.hbm);
    let expert_s = at(r.expert_stream_rate());
    // Roofline per layer: GEMM time against weight-read time, the routed
    // experts' grouped GEMMs apart from the rest (their weights are read
    // once per step for the experts the batch touches, so in decode they
    // show as weight reads, at the engine's MoE kernel's rate).
    let roof = |gemm: f64, read: f64| -> (f64, f64) {
        if memory_floor && read > gemm {
            (0.0, read)
        } else {
            (gemm, 0.0)
        }
    };
    let layer = |l: &super::work::LayerWork| -> (f64, f64) {
        let x = &l.experts;
        let (g0, r0) = roof(
            l.gemm_time - x.compute,
            hbm_s(l.weight_bytes - x.weight_bytes),
        );
        let (g1, r1) = roof(x.compute, expert_s(x.weight_bytes + x.io_bytes));
        (g0 + g1, r0 + r1)
    };
    let (dg, dr) = layer(&w.dense);
    let (mg, mr) = layer(&w.moe);
    let head_read = hbm_s(w.head_weight_bytes);
    let (hg, hr) = if memory_floor && head_read > w.head_time {
        (0.0, head_read)
    } else {
        (w.head_time, 0.0)
    };
    let gemm = w.dense_layers * dg + w.moe_layers * mg + hg;
    let read = w.dense_layers * dr + w.moe_layers * mr + hr;
    parts.add(TimeKind::Gemm, gemm, gemm);
    parts.add(TimeKind::WeightRead, read, read);
    let attn = w.sum(|l| l.attn_time);
    parts.add(TimeKind::Attention, attn, attn);
    // Only the last token's logits go through softmax when generating.
    let ew = hbm_s(w.sum(|l| l.elementwise_bytes));
    parts.add(TimeKind::Elementwise, ew, ew);
    let tp = 2.0 * w.layers() * collective(r, Collective::AllReduce, w.dense.stream_bytes, r.tp, 1);
    parts.add(TimeKind::TensorParallel, tp, tp);
    // Dispatch and combine, once per MoE layer and pass.
    let ep = 2.0 * w.moe_layers * super::work::dispatch_seconds(r, &w.moe.experts);
    parts.add(TimeKind::ExpertParallel, ep, ep);
    let o = super::work::overhead_seconds(r, w);
    parts.add(TimeKind::LayerOverhead, o, o);
}

/// What a pass carries, as the host's time to issue it reads it.
#[derive(Debug, Clone, Copy)]
enum Carries {
    /// Prompt tokens (with or without decoding sequences beside them).
    Prompt,
    /// Only decoding sequences, this many.
    Decode(f64),
}

/// A pass is never shorter than the host's time to issue it
/// (`time::host`): the GPU's idle wait is charged as its own part.
/// A pass that carries prompt tokens on an engine that prefills eagerly
/// is issued layer by layer from Python (`host::engine_prefill_seconds`),
/// and so is a decode batch past the engine's largest CUDA graph
/// (`host::engine_decode_seconds`).
fn host_floor(r: &Resolved, w: &StageWork, parts: &mut Parts, carries: Carries) {
    let eager = match carries {
        Carries::Prompt => super::host::engine_prefill_seconds(r, w),
        Carries::Decode(seqs) => super::host::engine_decode_seconds(r, w, seqs),
    };
    let host = super::host::forward_seconds(r, w).max(eager);
    let wait = host - parts.total();
    if wait > 0.0 {
        parts.add(TimeKind::HostBound, wait, wait);
    }
}

/// Bytes a pass copies from `tier` and the copies they take.
///
/// The weights follow `levers.offload.parameters`: the tier's share of
/// every byte the pass reads, one copy per layer. Routed experts under
/// `levers.offload.experts` follow their own target instead: only the
/// experts the pass touches cross the link (`RoutedExperts::weight_bytes`),
/// one copy per touched expert and MoE layer, as an engine loading experts
/// on demand issues them (Eliseev & Mazur, arXiv 2312.17238, "naive"
/// on-demand loading, before their LRU cache and speculative prefetch;
/// Madan et al., arXiv 2603.19289, on-demand loading from CPU memory as
/// their baseline).
fn weights_from(r: &Resolved, w: &StageWork, tier: Tier) -> (f64, f64) {
    let share_of = |t: Option<crate::plan::OffloadTarget>| {
        t.filter(|o| o.tier == tier).map_or(0.0, |o| o.fraction)
    };
    let read = w.sum(|l| l.weight_bytes) + w.head_weight_bytes;
    let dense = share_of(r.levers.offload.parameters);
    let (experts, routed, expert_copies) = match r.levers.offload.experts {
        Some(x) if w.moe_layers > 0.0 => (
            w.moe_layers * w.moe.experts.weight_bytes,
            share_of(Some(x)),
            w.moe_layers * w.moe.experts.touched.ceil(),
        ),
        _ => (0.0, 0.0, 0.0),
    };
    let copies =
        if dense > 0.0 { w.layers() } else { 0.0 } + if routed > 0.0 { expert_copies } else { 0.0 };
    ((read - experts) * dense + experts * routed, copies)
}

/// Streams the offloaded share of the weights a pass reads from their
/// tiers: each tier's bytes over its link, overlapped with the rest of the
/// pass at best (`exposed`), never hidden below the copy itself.
fn stream_weights(r: &Resolved, dev: Option<&Breakdown>, w: &StageWork, parts: &mut Parts) {
    let Some(d) = dev else { return };
    let total = d.kind(ItemKind::Weights);
    if total <= 0.0 {
        return;
    }
    let compute = parts.total();
    let mut streamed = 0.0;
    for tier in [Tier::Cxl, Tier::HostDram, Tier::Nvme] {
        let (bytes, copies) = weights_from(r, w, tier);
        if bytes > 0.0 {
            // Each copy waits the tier's latency.
            let wait = copies * tier_latency(r, tier);
            let busy = bytes * tier_seconds_per_byte(r, tier) + wait;
            // Copies from different tiers share the host link: they queue.
            let window = (compute - streamed).max(0.0);
            let shown = exposed(r, r.levers.overlap.offload, busy, window);
            parts.add(transfer_kind(tier), busy, shown);
            streamed += busy;
        }
    }
}

/// The whole model on one TP group: one batch passes every stage in turn,
/// so latency is that of the whole model.
#[inline]
fn whole_model(r: &Resolved) -> Stage {
    Stage {
        role: DeviceRole::OnlyStage,
        rank: 0,
        dense_layers: r.params.dense_layers,
        moe_layers: r.params.moe_layers,
        embedding: true,
        head: true,
    }
}

/// Keys within the sliding window, if any.
#[inline]
pub(crate) fn windowed(r: &Resolved, k: f64) -> f64 {
    r.spec.keys_within(k)
}

/// Activation bytes of `tokens` tokens sent between pipeline stages.
#[inline]
fn send_bytes(r: &Resolved, tokens: f64) -> f64 {
    tokens * f64::from(r.spec.hidden) * r.levers.precision.activations.bytes_per_element()
}

/// Prefill: the batch's prompts in chunks of at most `prefill_chunk`
/// tokens; each chunk re-reads the weights.
fn prefill(
    r: &Resolved,
    dev: Option<&Breakdown>,
    whole: &Stage,
    (b, s): (f64, f64),
    logits: LogitsScope,
) -> Parts {
    let all = b * s;
    let chunk = r
        .levers
        .prefill_chunk
        .map_or(all, |c| all.min(f64::from(c)));
    let chunks = (all / chunk.max(1.0)).ceil().max(1.0);
    let mut prefill = Parts::default();
    let kernel_keys = match r.levers.attention {
        crate::plan::AttentionKernel::Flash | crate::plan::AttentionKernel::FlashTriton => {
            r.spec.causal_keys(s)
        }
        crate::plan::AttentionKernel::Eager => s,
    };
    let pass = Pass {
        tokens: chunk,
        keys: kernel_keys,
        model_keys: windowed(r, s),
    };
    let logits_tokens = match logits {
        LogitsScope::LastToken => (chunk / s).max(1.0),
        LogitsScope::AllTokens => chunk,
    };
    let w = stage(r, whole, pass, logits_tokens);
    let mut one = Parts::default();
    pass_parts(r, &w, &mut one, true);
    stream_weights(r, dev, &w, &mut one);
    host_floor(r, &w, &mut one, Carries::Prompt);
    prefill.add_all(&one.scaled(chunks));
    if r.pp > 1 {
        let t = p2p(r, send_bytes(r, chunk), r.tp) * chunks * f64::from(r.pp - 1);
        prefill.add(TimeKind::PipelineP2p, t, t);
    }
    prefill
}

/// The KV cache a decode step reads, by where it lives.
#[derive(Debug, Clone, Copy)]
struct KvSplit {
    /// Seconds reading the HBM share.
    hbm: f64,
    /// Seconds streaming each slower tier's share (CXL, host, NVMe).
    by_tier: [f64; 3],
    /// Their sum.
    slow: f64,
}

/// Splits a decode step's `kv` bytes by tier. Offloaded KV shares are
/// fractions, the same on every stage.
fn kv_split(r: &Resolved, dev: Option<&Breakdown>, kv: f64, layers: f64) -> KvSplit {
    let hbm = r.gpu.memory_bandwidth.base() * r.eff.hbm;
    let total_kv = dev.map_or(0.0, |d| d.kind(ItemKind::KvCache));
    let mut on_hbm = kv;
    let mut slow: f64 = 0.0;
    let mut by_tier = [0.0; 3];
    if let Some(d) = dev {
        if total_kv > 0.0 {
            for (j, tier) in [Tier::Cxl, Tier::HostDram, Tier::Nvme]
                .into_iter()
                .enumerate()
            {
                let share = d.get(ItemKind::KvCache, tier) / total_kv;
                if share > 0.0 {
                    // Streamed a layer at a time: one latency per layer.
                    let t = kv * share * tier_seconds_per_byte(r, tier)
                        + layers * tier_latency(r, tier);
                    by_tier[j] = t;
                    slow += t;
                    on_hbm -= kv * share;
                }
            }
        }
    }
    let hbm_t = if hbm > 0.0 {
        on_hbm / hbm
    } else {
        f64::INFINITY
    };
    KvSplit {
        hbm: hbm_t,
        by_tier,
        slow,
    }
}

/// KV cache read of a decode step: every cached token of every sequence,
/// every layer. Streaming from slow tiers runs beside the HBM reads when
/// copies overlap; the step waits for whichever finishes last.
fn kv_read(r: &Resolved, dev: Option<&Breakdown>, kv: f64, layers: f64, parts: &mut Parts) {
    let k = kv_split(r, dev, kv, layers);
    let (kv_exp, slow_exp) = match r.levers.overlap.offload {
        Overlap::On => (k.hbm, (k.slow - k.hbm).max(0.0)),
        Overlap::Off => (k.hbm, k.slow),
    };
    parts.add(TimeKind::KvRead, k.hbm, kv_exp);
    for (j, kind) in [
        TimeKind::TransferCxl,
        TimeKind::TransferHost,
        TimeKind::TransferNvme,
    ]
    .into_iter()
    .enumerate()
    {
        if k.by_tier[j] > 0.0 {
            let e = if k.slow > 0.0 {
                slow_exp * k.by_tier[j] / k.slow
            } else {
                0.0
            };
            parts.add(kind, k.by_tier[j], e);
        }
    }
}

/// Decode at the average context of the generation.
fn decode(
    r: &Resolved,
    dev: Option<&Breakdown>,
    whole: &Stage,
    (b, s): (f64, f64),
    output: u32,
) -> Parts {
    let ctx = s + f64::from(output) / 2.0;
    let mut decode = Parts::default();
    let pass = Pass {
        tokens: b,
        keys: windowed(r, ctx),
        model_keys: windowed(r, ctx),
    };
    let w = stage(r, whole, pass, b);
    pass_parts(r, &w, &mut decode, true);
    stream_weights(r, dev, &w, &mut decode);
    let kv = kv_per_token_layer_rank(r) * windowed(r, ctx) * b * f64::from(whole.layers());
    kv_read(r, dev, kv, w.layers(), &mut decode);
    host_floor(r, &w, &mut decode, Carries::Decode(b));
    if r.pp > 1 {
        let t = p2p(r, send_bytes(r, b), r.tp) * f64::from(r.pp - 1);
        decode.add(TimeKind::PipelineP2p, t, t);
    }
    decode
}

/// Prefill and average decode step of a serving plan.
pub(crate) fn serve(
    r: &Resolved,
    devices: &[Breakdown],
    prompt: u32,
    output: u32,
    batch: u32,
    logits: LogitsScope,
) -> ServeTime {
    let bs = (f64::from(batch), f64::from(prompt));
    let whole = whole_model(r);
    let dev = devices.first();
    ServeTime {
        prefill: prefill(r, dev, &whole, bs, logits),
        decode: decode(r, dev, &whole, bs, output),
        output,
    }
}

/// What one iteration of a continuous-batching engine carries, summed over
/// its sequences (Orca's iteration-level scheduling, Yu et al. OSDI 2022;
/// vLLM V1 and Sarathi-Serve mix prefill chunks with decode tokens in one
/// forward pass, Agrawal et al. OSDI 2024 §4).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Mix {
    /// Prompt tokens prefilled this iteration, all chunks together.
    pub prefill_tokens: f64,
    /// Σ over those tokens of the keys each attends to: the tokens cached
    /// before its chunk plus the causal half of the chunk.
    pub prefill_keys: f64,
    /// Σ over the prefilling sequences of the tokens already cached, which
    /// their attention reads from the KV cache.
    pub prefill_cached: f64,
    /// Sequences whose prompt completes this iteration (each samples its
    /// first token).
    pub prefill_done: f64,
    /// Decoding sequences, one token each.
    pub decode_seqs: f64,
    /// Σ over them of the keys each attends to (its context).
    pub decode_keys: f64,
}

/// Host seconds an engine that prefills eagerly takes to issue one pass
/// with prompt tokens over the whole model (`host::engine_prefill_seconds`;
/// the count does not depend on the tokens), 0 on the others.
pub(crate) fn prefill_issue_seconds(r: &Resolved) -> f64 {
    if !r.levers.engine.eager_prefill() {
        return 0.0;
    }
    let whole = whole_model(r);
    let one = Pass {
        tokens: 1.0,
        keys: 1.0,
        model_keys: 1.0,
    };
    super::host::engine_prefill_seconds(r, &stage(r, &whole, one, 1.0))
}

/// Time of one iteration: the GEMMs on all its tokens together (so the
/// weights are read once per iteration, not once per sequence), attention
/// per sequence through the summed keys, the KV the iteration reads, the
/// logits of every sequence that samples. A decode-only mix of `b`
/// sequences at context `c` is exactly the static model's decode step.
pub(crate) fn iteration(r: &Resolved, dev: Option<&Breakdown>, m: &Mix) -> Parts {
    let tokens = m.prefill_tokens + m.decode_seqs;
    let mut parts = Parts::default();
    if tokens <= 0.0 {
        return parts;
    }
    let keys = (m.prefill_keys + m.decode_keys) / tokens;
    let whole = whole_model(r);
    let pass = Pass {
        tokens,
        keys,
        model_keys: keys,
    };
    let w = stage(r, &whole, pass, m.prefill_done + m.decode_seqs);
    pass_parts(r, &w, &mut parts, true);
    stream_weights(r, dev, &w, &mut parts);
    let read = m.decode_keys + m.prefill_cached;
    let kv = kv_per_token_layer_rank(r) * read * f64::from(whole.layers());
    kv_read(r, dev, kv, w.layers(), &mut parts);
    let carries = if m.prefill_tokens > 0.0 {
        Carries::Prompt
    } else {
        Carries::Decode(m.decode_seqs)
    };
    host_floor(r, &w, &mut parts, carries);
    if r.pp > 1 {
        let t = p2p(r, send_bytes(r, tokens), r.tp) * f64::from(r.pp - 1);
        parts.add(TimeKind::PipelineP2p, t, t);
    }
    parts
}
