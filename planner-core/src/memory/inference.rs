//! Serving memory of one device: weights by quantization, the KV cache with
//! its allocation slack, the prefill working set, overheads.

use super::Sink;
use crate::model::AttentionKind;
use crate::partition::Stage;
use crate::plan::{AttentionKernel, KvCacheLayout, LogitsScope};
use crate::report::ItemKind;
use crate::resolve::Resolved;

/// KV cache bytes per token per layer on one TP rank.
///
/// Standard attention stores K and V: 2 × kv_heads × head_dim elements
/// (vLLM paper §3, Kwon et al. 2023: 800 KB per token for OPT-13B), split
/// over TP ranks, with at least one head per rank. MLA stores its latent
/// and rotary key, d_c + d_R elements (DeepSeek-V2, arXiv:2405.04434
/// §2.1.2), replicated on every TP rank as vLLM does.
pub(crate) fn kv_per_token_layer_rank(r: &Resolved) -> f64 {
    let shape = r.spec.attention_shape();
    let b = r.levers.precision.kv_cache.bytes_per_element();
    match r.spec.attention {
        AttentionKind::Standard => {
            let k = f64::from(r.spec.kv_heads);
            let per_rank = (k / f64::from(r.tp)).max(1.0);
            per_rank / k * shape.kv_cache_elems * b
        }
        AttentionKind::Mla(_) => shape.kv_cache_elems * b,
    }
}

/// KV cache bytes per token of one model replica, all layers and TP ranks.
pub(crate) fn kv_bytes_per_token(r: &Resolved) -> f64 {
    kv_per_token_layer_rank(r) * f64::from(r.tp) * f64::from(r.spec.layers)
}

/// Tokens a sequence holds in the cache, and tokens allocated for it.
fn kv_tokens(r: &Resolved, context: u32) -> (f64, f64) {
    let held = r.spec.keys_within(f64::from(context));
    let alloc = match r.levers.kv_cache {
        KvCacheLayout::Paged { block_tokens } => {
            return (held, r.spec.blocked_keys(context, block_tokens));
        }
        KvCacheLayout::Contiguous { reserve_tokens } => {
            let reserve = if reserve_tokens == 0 {
                context
            } else {
                reserve_tokens
            };
            r.spec.keys_within(f64::from(reserve)).max(held)
        }
    };
    (held, alloc)
}

/// Transient bytes of the prefill pass on one device: the widest point of
/// one layer's forward (nothing is kept for backward), plus logits on the
/// last stage.
fn prefill(r: &Resolved, st: &Stage, prompt: u32, batch: u32, logits: LogitsScope) -> f64 {
    let spec = &r.spec;
    let t = f64::from(r.tp);
    let ab = r.levers.precision.activations.bytes_per_element();
    let all = f64::from(prompt) * f64::from(batch);
    let tokens = r
        .levers
        .prefill_chunk
        .map_or(all, |c| all.min(f64::from(c)));
    let layer = layer_transient(r, st, tokens, f64::from(prompt));
    let head = if st.head {
        let rows = match logits {
            LogitsScope::LastToken => (tokens / f64::from(prompt)).ceil().max(1.0),
            LogitsScope::AllTokens => tokens,
        };
        // Logits in the compute format and their FP32 upcast for sampling.
        rows * f64::from(spec.vocab) * (ab + 4.0) / t
    } else {
        0.0
    };
    layer + head
}

/// The widest point of one layer's forward over `tokens` tokens whose
/// queries see `keys` keys: the residual stream and its normalised copy,
/// then the larger of the attention's projections (with the eager
/// kernel's scores) and the MLP's live tensors.
fn layer_transient(r: &Resolved, st: &Stage, tokens: f64, keys: f64) -> f64 {
    let spec = &r.spec;
    let t = f64::from(r.tp);
    let ab = r.levers.precision.activations.bytes_per_element();
    let h = f64::from(spec.hidden);
    let shape = spec.attention_shape();
    let base = 2.0 * ab * tokens * h;
    let qkv = ab * tokens * (shape.q_width + shape.k_width + shape.v_width + shape.o_width) / t;
    let scores = match r.levers.attention {
        // Scores and softmax output of every head for the pass's queries
        // against the prompt's keys.
        AttentionKernel::Eager => 2.0 * ab * f64::from(spec.heads) * tokens * keys / t,
        AttentionKernel::Flash | AttentionKernel::FlashTriton => 0.0,
    };
    let per_f = gated_mlp_live(r, spec);
    let mlp = match spec.moe {
        Some(m) if st.moe_layers > 0 => {
            let k = f64::from(m.top_k);
            ab * tokens
                * (k * h + per_f * (k * f64::from(m.expert_ffn) + f64::from(m.shared_ffn)) / t)
        }
        _ => ab * per_f * tokens * f64::from(spec.ffn) / t,
    };
    base + (qkv + scores).max(mlp)
}

/// What vLLM V1 takes off its KV budget for activations: the peak of its
/// profile run (`gpu_worker.determine_available_memory`, v0.11.0), one
/// dummy forward of `max_num_batched_tokens` tokens with attention
/// skipped, then on the last pipeline stage the sampler on
/// min(`max_num_seqs`, tokens) requests with top-k and top-p on, whose
/// logits span the whole vocabulary on every TP rank. The larger of the
/// two. `None` for other engines.
fn vllm_profile_peak(r: &Resolved, st: &Stage) -> Option<f64> {
    if r.levers.engine != crate::engine::Engine::Vllm {
        return None;
    }
    let tokens = f64::from(r.levers.prefill_chunk?);
    let ab = r.levers.precision.activations.bytes_per_element();
    let forward = layer_transient(r, st, tokens, 0.0);
    if !st.head {
        return Some(forward);
    }
    let reqs = f64::from(r.engine_profile(1).max_seqs).min(tokens);
    let sampler = sampler_peak(
        (tokens, reqs),
        (f64::from(r.spec.hidden), f64::from(r.spec.vocab)),
        ab,
        r.levers
            .engine_knobs
            .sampler
            .unwrap_or_default()
            .bytes_per_logit(),
    );
    Some(forward.max(sampler))
}

/// Bytes live at the sampler's peak in vLLM V1's profile run, for
/// `tokens` tokens and `reqs` requests of a model of `hidden` width and
/// `vocab` logits, activations of `ab` bytes: the pass's hidden states,
/// the gathered last ones (twice), and the logits with the sampler's
/// copies, `fp32_per_logit` bytes past the compute format. Checked
/// against vLLM's start-up logs in the tests below.
fn sampler_peak(
    (tokens, reqs): (f64, f64),
    (hidden, vocab): (f64, f64),
    ab: f64,
    fp32_per_logit: f64,
) -> f64 {
    ab * tokens * hidden + 2.0 * ab * reqs * hidden + reqs * vocab * (ab + fp32_per_logit)
}

/// FFN-wide tensors alive at once in a prefill layer's MLP. Plain: the up
/// projection's output and the activation's (2). Gated, as transformers
/// writes it (`down(act(gate(x)) * up(x))`): the activation's output, the
/// up projection's and their product (3; the gate's output is freed once
/// the activation has read it). Fused gate-up with a fused activation
/// (Megatron's `bias_swiglu`, the engines' `SiluAndMul`): the 2f-wide
/// projection and the f-wide result (3). Fused gate-up in eager
/// PyTorch-native code (`g, u = up(x).chunk(2)`, then `silu(g) * u`): the
/// 2f-wide output stays alive under its two views while `silu(g)` and the
/// product are made (4), measured on the H200 harness's TinyLlama and
/// 8B-shape prefills (docs/validation.md).
fn gated_mlp_live(r: &Resolved, spec: &crate::model::ModelSpec) -> f64 {
    if !spec.activation.is_gated() {
        return 2.0;
    }
    // A fused gate-up linear (fewer than three gated linears) whose
    // activation and product run as separate eager operators.
    let eager = matches!(r.factors.dispatch, crate::stack::Dispatch::Eager { .. });
    if eager && r.levers.memory.stack().layer_code().gated_linears < 3.0 {
        4.0
    } else {
        3.0
    }
}

/// Writes the serving memory of one stage.
pub(crate) fn fill<S: Sink>(
    items: &mut S,
    r: &Resolved,
    st: &Stage,
    prompt: u32,
    output: u32,
    batch: u32,
    logits: LogitsScope,
) {
    weights(items, r, st);
    let draft = drafter(items, r, st);
    kv_cache(
        items,
        r,
        st,
        prompt.saturating_add(output),
        batch,
        draft.as_ref(),
    );
    prefill_peak(items, r, st, prompt, batch, logits);
    if items.past_capacity() {
        return;
    }
    super::overheads(items, r, &super::process_groups(r));
}

/// The stage's weights where `levers.offload.parameters` puts them, and
/// the routed experts where `levers.offload.experts` does.
fn weights<S: Sink>(items: &mut S, r: &Resolved, st: &Stage) {
    let sp = r.split.params(st);
    let (w_lin, w_other) = r.split.weight_bytes;
    let w_exp = r.split.expert_bytes;
    // With `levers.offload.experts` the routed experts go where it says
    // and the rest where `parameters` says; without it they all follow
    // `parameters`.
    let apart = r.levers.offload.experts.filter(|_| sp.experts > 0.0);
    let pooled = if apart.is_some() { 0.0 } else { sp.experts };
    items.place(
        ItemKind::Weights,
        sp.linear * w_lin + pooled * w_exp + sp.other * w_other,
        r.levers.offload.parameters,
        || {
            let experts = if pooled > 0.0 {
                format!(" + {pooled:.3e} routed-expert params × {w_exp:.4} B")
            } else {
                String::new()
            };
            format!(
                "{:.3e} linear params × {:.4} B{experts} + {:.3e} others × {} B",
                sp.linear, w_lin, sp.other, w_other
            )
        },
    );
    if let Some(to) = apart {
        items.place(ItemKind::Weights, sp.experts * w_exp, Some(to), || {
            format!("routed experts: {:.3e} params × {:.4} B", sp.experts, w_exp)
        });
        if to.tier != crate::plan::Tier::Hbm && st.moe_layers > 0 {
            // The copy of one layer's experts lands while the layer
            // before runs: two layers' moved share in HBM at most.
            let layer = sp.experts / f64::from(st.moe_layers) * w_exp * to.fraction;
            items.hbm(ItemKind::GatherBuffers, 2.0 * layer, || {
                "two MoE layers' offloaded experts staged in HBM".into()
            });
        }
    }
}

/// The drafter's weights, on the stage with the output layer.
fn drafter<S: Sink>(
    items: &mut S,
    r: &Resolved,
    st: &Stage,
) -> Option<super::speculator::Speculator> {
    // The drafter sits beside the output layer (EAGLE reads the last
    // hidden state; engines run no drafter under pipeline parallelism).
    let draft = if st.head {
        super::speculator::Speculator::of(r)
    } else {
        None
    };
    if let Some(s) = &draft {
        items.place(
            ItemKind::Weights,
            s.weight_bytes(),
            r.levers.offload.parameters,
            || format!("drafter ({} layers) for speculative decoding", s.layers()),
        );
    }
    draft
}

/// The KV cache of `batch` sequences of `context` tokens (the drafter's
/// too), and what its layout wastes.
fn kv_cache<S: Sink>(
    items: &mut S,
    r: &Resolved,
    st: &Stage,
    context: u32,
    batch: u32,
    draft: Option<&super::speculator::Speculator>,
) {
    let (held, alloc) = kv_tokens(r, context);
    let per_token = kv_per_token_layer_rank(r) * f64::from(st.layers())
        + draft.map_or(0.0, |s| s.kv_per_token());
    let seqs = f64::from(batch);
    items.place(
        ItemKind::KvCache,
        seqs * held * per_token,
        r.levers.offload.kv_cache,
        || {
            format!(
                "{batch} sequences × {held} tokens × {:.1} KiB/token on this device",
                per_token / 1024.0
            )
        },
    );
    items.place(
        ItemKind::KvCacheWaste,
        seqs * (alloc - held) * per_token,
        r.levers.offload.kv_cache,
        || match r.levers.kv_cache {
            KvCacheLayout::Paged { block_tokens } => {
                format!("last partly filled {block_tokens}-token block of each sequence")
            }
            KvCacheLayout::Contiguous { .. } => {
                "contiguous reservation beyond the tokens held".to_string()
            }
        },
    );
}

/// The widest transient of a pass: vLLM's profile-run peak, or one
/// layer's prefill and its logits.
fn prefill_peak<S: Sink>(
    items: &mut S,
    r: &Resolved,
    st: &Stage,
    prompt: u32,
    batch: u32,
    logits: LogitsScope,
) {
    match vllm_profile_peak(r, st) {
        Some(peak) => items.hbm(ItemKind::PrefillActivations, peak, || {
            "vLLM's profile-run peak: one forward of the token budget, or the sampler over \
             max_num_seqs requests' logits (the larger)"
                .into()
        }),
        None => items.hbm(
            ItemKind::PrefillActivations,
            prefill(r, st, prompt, batch, logits),
            || "widest transient tensors of one layer's prefill + logits".into(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::sampler_peak;
    use crate::engine::Sampler;

    const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

    /// vLLM's start-up logs where they print the profile's peak (its
    /// "torch peak memory increase"), at the defaults of a GPU under
    /// 70 GiB (2,048 tokens, 256 requests), BF16 activations:
    /// - Qwen3-8B FP8 (hidden 4,096, vocabulary 151,936), vLLM 0.10.2
    ///   without FlashInfer: 1.40 GiB, the sampler's sort path;
    /// - OPT-2.7B (hidden 2,560, vocabulary 50,272) with FlashInfer 0.3.1,
    ///   vLLM 0.11.1.dev on 4 A30s (vllm-project/vllm#29070): 0.22 GiB, of
    ///   which the model's sampler is 0.18 (its forward at TP 4 is far
    ///   smaller); the rest is not accounted for.
    ///
    /// and at an H100's defaults (8,192 tokens, 1,024 requests):
    /// - gpt-oss-120b (hidden 2,880, vocabulary 201,088) on one H100
    ///   (vLLM `vllm-openai` image, llm-d-benchmark's
    ///   `config_explorer/empirical-vllm-memory-results.md`): activation
    ///   peak 7.38 GiB, the sort path.
    #[test]
    fn the_sampler_peak_matches_vllms_start_up_logs() {
        let qwen3 = sampler_peak(
            (2048.0, 256.0),
            (4096.0, 151_936.0),
            2.0,
            Sampler::Sort.bytes_per_logit(),
        ) / GIB;
        assert!((qwen3 - 1.40).abs() < 0.01, "{qwen3}");
        let opt = sampler_peak(
            (2048.0, 256.0),
            (2560.0, 50_272.0),
            2.0,
            Sampler::FlashInfer.bytes_per_logit(),
        ) / GIB;
        assert!(opt < 0.22 && opt > 0.8 * 0.22, "{opt}");
        let oss = sampler_peak(
            (8192.0, 1024.0),
            (2880.0, 201_088.0),
            2.0,
            Sampler::Sort.bytes_per_logit(),
        ) / GIB;
        assert!((oss / 7.38 - 1.0).abs() < 0.01, "{oss}");
    }
}
