//! What a model is: its architecture, and the parameter counts derived from it.
//!
//! Parameter counts are never typed in: they follow from the shapes, matrix by
//! matrix, so that TP sharding, LoRA targets and factored optimizer states can
//! all be computed from the same list.

use serde::{Deserialize, Serialize};

/// Feed-forward activation; gated variants have three matrices instead of two.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum FfnActivation {
    /// GELU, two matrices (GPT-2, GPT-3, BERT, OPT uses ReLU: same shape).
    Gelu,
    /// ReLU, two matrices (OPT).
    Relu,
    /// SwiGLU, three matrices (Llama, Qwen, Mistral, DeepSeek).
    SwiGlu,
    /// GeGLU, three matrices (Gemma, T5 v1.1).
    GeGlu,
}

impl FfnActivation {
    /// True for the gated (three-matrix) variants.
    pub fn is_gated(self) -> bool {
        matches!(self, FfnActivation::SwiGlu | FfnActivation::GeGlu)
    }
}

/// Whether the output projection shares the input embedding matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum Embeddings {
    /// One V×h matrix serves both ends (GPT-2, BERT, OPT, Megatron GPT).
    Tied,
    /// A separate V×h output layer (Llama, Qwen2.5-7B+, DeepSeek-V3).
    Untied,
}

/// How positions enter the model; only learned tables cost parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum Positions {
    /// Rotary embeddings: no parameters.
    Rotary,
    /// ALiBi: no parameters.
    Alibi,
    /// A learned table of `max_positions`×h (GPT-2, BERT, OPT, GPT-3).
    Learned {
        /// Rows of the table.
        max_positions: u32,
    },
}

/// Normalisation layers: LayerNorm has a weight and a bias, RMSNorm a weight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum Norm {
    /// LayerNorm, 2h parameters.
    LayerNorm,
    /// RMSNorm, h parameters.
    RmsNorm,
}

/// Which linear layers carry a bias vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum Bias {
    /// No linear biases (Llama, Mistral, DeepSeek).
    None,
    /// Biases on the Q, K, V projections only (Qwen2/2.5).
    QkvOnly,
    /// Biases on every linear layer (GPT-2, GPT-3, BERT, OPT).
    All,
}

/// Whether dropout is active in training; its masks cost 1 byte per element
/// (Korthikanti et al. 2022 §4.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum Dropout {
    /// Dropout after attention scores, attention output and MLP output.
    On,
    /// No dropout (modern LLM pre-training).
    Off,
}

/// Multi-head latent attention (DeepSeek-V2/V3): K and V are compressed into
/// a shared latent that is what the KV cache stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct MlaSpec {
    /// Rank of the query compression; 0 means queries are not compressed.
    pub q_lora_rank: u32,
    /// Rank of the KV latent (512 in DeepSeek-V3).
    pub kv_lora_rank: u32,
    /// Per-head query/key dimension without rotary part (128 in V3).
    pub qk_nope_head_dim: u32,
    /// Rotary part of the query/key head, shared across heads for keys (64).
    pub qk_rope_head_dim: u32,
    /// Per-head value dimension (128).
    pub v_head_dim: u32,
}

/// The attention variant; MHA, GQA and MQA are all `Standard` with
/// `kv_heads` = heads, < heads, or 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum AttentionKind {
    /// Separate K and V heads of `head_dim` (MHA / GQA / MQA).
    Standard,
    /// Multi-head latent attention.
    Mla(MlaSpec),
}

/// Mixture-of-experts feed-forward layers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct MoeSpec {
    /// Routed experts per MoE layer.
    pub experts: u32,
    /// Experts each token is routed to.
    pub top_k: u32,
    /// Intermediate size of one routed expert.
    pub expert_ffn: u32,
    /// Summed intermediate size of the always-on shared experts (0 if none).
    #[serde(default)]
    pub shared_ffn: u32,
    /// The first `dense_layers` layers use a dense FFN of `ffn` instead.
    #[serde(default)]
    pub dense_layers: u32,
}

/// A transformer's architecture. Everything memwall needs about a model.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ModelSpec {
    /// Transformer layers.
    pub layers: u32,
    /// Model (residual) width h.
    pub hidden: u32,
    /// Query heads a.
    pub heads: u32,
    /// Key/value heads (= heads for MHA, fewer for GQA, 1 for MQA).
    pub kv_heads: u32,
    /// Per-head dimension (usually hidden / heads).
    pub head_dim: u32,
    /// FFN intermediate size (of dense layers).
    pub ffn: u32,
    /// FFN activation.
    pub activation: FfnActivation,
    /// Vocabulary size.
    pub vocab: u32,
    /// Tied or untied output embedding.
    pub embeddings: Embeddings,
    /// Position encoding.
    pub positions: Positions,
    /// Normalisation layers.
    pub norm: Norm,
    /// Linear biases.
    pub bias: Bias,
    /// Dropout in training.
    pub dropout: Dropout,
    /// Attention variant.
    #[serde(default = "standard_attention")]
    pub attention: AttentionKind,
    /// Sliding-window attention span in tokens (Mistral 7B v0.1: 4096),
    /// in every layer unless `windowed_layers` says how many. Limits the
    /// keys a query attends to and the KV cache those layers hold.
    #[serde(default)]
    pub sliding_window: Option<u32>,
    /// How many of the layers attend within `sliding_window`, the rest
    /// attending to every earlier token: gpt-oss alternates the two (18
    /// of 36, its `layer_types`). Absent: every layer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub windowed_layers: Option<u32>,
    /// Mixture of experts, if any.
    #[serde(default)]
    pub moe: Option<MoeSpec>,
    /// Rows of a token-type table (BERT: 2), 0 for decoders.
    #[serde(default)]
    pub token_types: u32,
    /// Longest context the model was trained for.
    pub max_context: u32,
}

fn standard_attention() -> AttentionKind {
    AttentionKind::Standard
}

/// The shapes one attention block works with, after MLA decompression.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AttentionShape {
    /// Width of all query heads (a × q head dim).
    pub q_width: f64,
    /// Width of all key heads as materialised for the score GEMM.
    pub k_width: f64,
    /// Width of all value heads.
    pub v_width: f64,
    /// Width of the attention output entering the output projection.
    pub o_width: f64,
    /// Elements per token per layer the KV cache stores.
    pub kv_cache_elems: f64,
    /// Heads that are sharded across TP ranks for K/V (kv heads, or a for MLA).
    pub kv_heads_sharded: u32,
}

/// Parameter counts of one layer, split the way memory and sharding need.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LayerParams {
    /// Attention projections (sharded by TP).
    pub attention: f64,
    /// The part of `attention` in the K and V projections of standard
    /// attention; TP ranks beyond the KV-head count replicate it.
    pub kv_projections: f64,
    /// Dense FFN matrices (sharded by TP); 0 on MoE layers.
    pub dense_mlp: f64,
    /// Routed experts, all of them (sharded by EP and TP); 0 on dense layers.
    pub experts: f64,
    /// One routed expert.
    pub one_expert: f64,
    /// Shared experts and router (sharded by TP; router replicated but tiny).
    pub shared: f64,
    /// Norms and biases (replicated across TP).
    pub small: f64,
    /// Σ (rows + cols) over the layer's weight matrices, all experts included;
    /// what a factored optimizer (Adafactor) stores.
    pub matrix_dims: f64,
}

impl LayerParams {
    /// All parameters of the layer.
    pub fn total(&self) -> f64 {
        self.attention + self.dense_mlp + self.experts + self.shared + self.small
    }
}

/// The parameter counts of a whole model.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ParamCounts {
    /// One dense layer (all layers when the model has no MoE).
    pub dense_layer: LayerParams,
    /// One MoE layer (zeroes when the model has no MoE).
    pub moe_layer: LayerParams,
    /// Number of dense layers.
    pub dense_layers: u32,
    /// Number of MoE layers.
    pub moe_layers: u32,
    /// Input embedding (V×h) plus learned position and token-type tables.
    pub embedding: f64,
    /// Output layer (V×h) if untied, else 0.
    pub lm_head: f64,
    /// Final norm.
    pub final_norm: f64,
}

impl ParamCounts {
    /// Every parameter of the model.
    pub fn total(&self) -> f64 {
        self.dense_layer.total() * f64::from(self.dense_layers)
            + self.moe_layer.total() * f64::from(self.moe_layers)
            + self.embedding
            + self.lm_head
            + self.final_norm
    }

    /// Parameters in transformer layers only.
    pub fn transformer(&self) -> f64 {
        self.dense_layer.total() * f64::from(self.dense_layers)
            + self.moe_layer.total() * f64::from(self.moe_layers)
    }

    /// Parameters a token passes through (MoE: only `top_k` routed experts);
    /// embeddings excluded, since a lookup is not a matmul.
    pub fn active_non_embedding(&self, spec: &ModelSpec) -> f64 {
        let moe_active = match spec.moe {
            Some(m) => {
                let l = &self.moe_layer;
                l.attention + l.shared + l.small + l.one_expert * f64::from(m.top_k)
            }
            None => 0.0,
        };
        self.dense_layer.total() * f64::from(self.dense_layers)
            + moe_active * f64::from(self.moe_layers)
            // The logits GEMM runs whether or not the matrix is tied.
            + f64::from(spec.vocab) * f64::from(spec.hidden)
    }

    /// Routed-expert parameters one token passes through: its top-k
    /// experts in every MoE layer (0 for a dense model).
    pub fn active_routed(&self, spec: &ModelSpec) -> f64 {
        spec.moe.map_or(0.0, |m| {
            f64::from(m.top_k) * self.moe_layer.one_expert * f64::from(self.moe_layers)
        })
    }
}

impl ModelSpec {
    /// The share of the layers that attend within the sliding window (0
    /// without one).
    pub fn windowed_share(&self) -> f64 {
        match (self.sliding_window, self.windowed_layers) {
            (None, _) => 0.0,
            (Some(_), None) => 1.0,
            (Some(_), Some(n)) => f64::from(n.min(self.layers)) / f64::from(self.layers.max(1)),
        }
    }

    /// Keys a query attends to, or a sequence's cache holds, after
    /// `tokens` tokens, averaged over the layers: a windowed layer holds
    /// at most the window, a full one every token.
    pub fn keys_within(&self, tokens: f64) -> f64 {
        match self.sliding_window {
            None => tokens,
            Some(w) => {
                let f = self.windowed_share();
                (1.0 - f) * tokens + f * tokens.min(f64::from(w))
            }
        }
    }

    /// The mean keys per query of a causal pass over `s` tokens, averaged
    /// over the layers, as a kernel that skips masked blocks computes
    /// them: s/2 in a full layer; in a layer with a window w < s, the
    /// first w queries see 1 to w keys and the rest w each, w − w²/(2s)
    /// on average (continuous form).
    pub fn causal_keys(&self, s: f64) -> f64 {
        let full = s / 2.0;
        match self.sliding_window {
            None => full,
            Some(w) => {
                let w = f64::from(w).min(s);
                let windowed = if s > 0.0 { w - w * w / (2.0 * s) } else { 0.0 };
                let f = self.windowed_share();
                (1.0 - f) * full + f * windowed
            }
        }
    }

    /// KV tokens a sequence of `tokens` tokens is allocated in blocks of
    /// `block`, averaged over the layers: each kind of layer rounds its own
    /// share up to whole blocks (vLLM's hybrid allocator keeps the full
    /// and the windowed layers in separate groups of pages).
    pub fn blocked_keys(&self, tokens: u32, block: u32) -> f64 {
        let b = u64::from(block.max(1));
        let whole = |t: u32| (u64::from(t).div_ceil(b) * b) as f64;
        match self.sliding_window {
            None => whole(tokens),
            Some(w) => {
                let f = self.windowed_share();
                (1.0 - f) * whole(tokens) + f * whole(tokens.min(w))
            }
        }
    }

    /// A GPT-2/GPT-3-style decoder: GELU FFN of 4h, learned positions for
    /// `seq` tokens, LayerNorm, biases everywhere, dropout, tied embeddings,
    /// `head_dim` = hidden / heads (Radford et al. 2019; Brown et al. 2020).
    pub const fn gpt(layers: u32, hidden: u32, heads: u32, vocab: u32, seq: u32) -> ModelSpec {
        ModelSpec {
            layers,
            hidden,
            heads,
            kv_heads: heads,
            head_dim: hidden / heads,
            ffn: 4 * hidden,
            activation: FfnActivation::Gelu,
            vocab,
            embeddings: Embeddings::Tied,
            positions: Positions::Learned { max_positions: seq },
            norm: Norm::LayerNorm,
            bias: Bias::All,
            dropout: Dropout::On,
            attention: AttentionKind::Standard,
            sliding_window: None,
            windowed_layers: None,
            moe: None,
            token_types: 0,
            max_context: seq,
        }
    }

    /// A Llama-style decoder: SwiGLU, RMSNorm, rotary positions, no biases, no
    /// dropout, untied output layer, `head_dim` = hidden / heads. Other modern
    /// decoders (Mistral, Qwen2, DeepSeek) start from this and override fields.
    pub const fn llama(
        layers: u32,
        hidden: u32,
        heads: u32,
        kv_heads: u32,
        ffn: u32,
        vocab: u32,
        max_context: u32,
    ) -> ModelSpec {
        ModelSpec {
            layers,
            hidden,
            heads,
            kv_heads,
            head_dim: hidden / heads,
            ffn,
            activation: FfnActivation::SwiGlu,
            vocab,
            embeddings: Embeddings::Untied,
            positions: Positions::Rotary,
            norm: Norm::RmsNorm,
            bias: Bias::None,
            dropout: Dropout::Off,
            attention: AttentionKind::Standard,
            sliding_window: None,
            windowed_layers: None,
            moe: None,
            token_types: 0,
            max_context,
        }
    }

    /// The share of the K and V projections one of `tp` tensor-parallel
    /// ranks holds: they split over at most `kv_heads` ranks, beyond which
    /// each rank holds a replica of one head (vLLM `QKVParallelLinear`).
    pub fn kv_share(&self, tp: f64) -> f64 {
        (1.0 / tp).max(1.0 / f64::from(self.kv_heads).max(1.0))
    }

    /// Attention widths after decompression, and what the KV cache stores.
    pub fn attention_shape(&self) -> AttentionShape {
        let a = f64::from(self.heads);
        match self.attention {
            AttentionKind::Standard => {
                let d = f64::from(self.head_dim);
                let k = f64::from(self.kv_heads);
                AttentionShape {
                    q_width: a * d,
                    k_width: k * d,
                    v_width: k * d,
                    o_width: a * d,
                    kv_cache_elems: 2.0 * k * d,
                    kv_heads_sharded: self.kv_heads,
                }
            }
            AttentionKind::Mla(m) => {
                let dq = f64::from(m.qk_nope_head_dim) + f64::from(m.qk_rope_head_dim);
                let dv = f64::from(m.v_head_dim);
                AttentionShape {
                    q_width: a * dq,
                    k_width: a * dq,
                    v_width: a * dv,
                    o_width: a * dv,
                    // The cache holds the compressed latent and the shared
                    // rotary key: DeepSeek-V2 paper §2.1.2, (d_c + d_h^R) per token.
                    kv_cache_elems: f64::from(m.kv_lora_rank) + f64::from(m.qk_rope_head_dim),
                    kv_heads_sharded: self.heads,
                }
            }
        }
    }

    fn norm_params(&self, width: f64) -> f64 {
        match self.norm {
            Norm::LayerNorm => 2.0 * width,
            Norm::RmsNorm => width,
        }
    }

    /// Attention parameters of one layer, and Σ(rows+cols) of its matrices.
    fn attention_params(&self) -> (f64, f64, f64) {
        let h = f64::from(self.hidden);
        let a = f64::from(self.heads);
        match self.attention {
            AttentionKind::Standard => {
                let s = self.attention_shape();
                let mats = h * (s.q_width + s.k_width + s.v_width) + s.o_width * h;
                let bias = match self.bias {
                    Bias::None => 0.0,
                    Bias::QkvOnly => s.q_width + s.k_width + s.v_width,
                    Bias::All => s.q_width + s.k_width + s.v_width + h,
                };
                let dims = (h + s.q_width) + 2.0 * (h + s.k_width) + (s.o_width + h);
                (mats, bias, dims)
            }
            AttentionKind::Mla(m) => {
                let dq = f64::from(m.qk_nope_head_dim) + f64::from(m.qk_rope_head_dim);
                let q_out = a * dq;
                let (q, q_norm, q_dims) = if m.q_lora_rank == 0 {
                    (h * q_out, 0.0, h + q_out)
                } else {
                    let r = f64::from(m.q_lora_rank);
                    (
                        h * r + r * q_out,
                        self.norm_params(r),
                        (h + r) + (r + q_out),
                    )
                };
                let c = f64::from(m.kv_lora_rank);
                let rope = f64::from(m.qk_rope_head_dim);
                let kv_up = a * (f64::from(m.qk_nope_head_dim) + f64::from(m.v_head_dim));
                let kv = h * (c + rope) + c * kv_up;
                let o = a * f64::from(m.v_head_dim) * h;
                let dims =
                    q_dims + (h + c + rope) + (c + kv_up) + (a * f64::from(m.v_head_dim) + h);
                (q + kv + o, q_norm + self.norm_params(c), dims)
            }
        }
    }

    /// Parameters of a feed-forward block of intermediate size `f`, and
    /// Σ(rows+cols) of its matrices.
    fn mlp_params(&self, f: f64) -> (f64, f64, f64) {
        let h = f64::from(self.hidden);
        let (n, bias) = if self.activation.is_gated() {
            (3.0, 0.0)
        } else {
            (2.0, if self.bias == Bias::All { f + h } else { 0.0 })
        };
        (n * h * f, bias, n * (h + f))
    }

    /// Parameter counts derived from the shapes.
    ///
    /// For GPT-style models this reproduces Narayanan et al. 2021 Eq. 2,
    /// P = 12lh²(1 + 13/(12h) + (V+s)/(12lh)).
    pub fn params(&self) -> ParamCounts {
        let h = f64::from(self.hidden);
        let (attn, attn_small, attn_dims) = self.attention_params();
        let kv_projections = match self.attention {
            AttentionKind::Standard => {
                let s = self.attention_shape();
                h * (s.k_width + s.v_width)
            }
            AttentionKind::Mla(_) => 0.0,
        };
        let norms = 2.0 * self.norm_params(h);
        let (mlp, mlp_bias, mlp_dims) = self.mlp_params(f64::from(self.ffn));
        let dense_layer = LayerParams {
            attention: attn,
            kv_projections,
            dense_mlp: mlp,
            experts: 0.0,
            one_expert: 0.0,
            shared: 0.0,
            small: attn_small + norms + mlp_bias,
            matrix_dims: attn_dims + mlp_dims,
        };
        let (moe_layer, dense_layers, moe_layers) = match self.moe {
            None => (LayerParams::default(), self.layers, 0),
            Some(m) => {
                let (one, one_bias, one_dims) = self.mlp_params(f64::from(m.expert_ffn));
                let e = f64::from(m.experts);
                let (shared, shared_bias, shared_dims) = if m.shared_ffn > 0 {
                    self.mlp_params(f64::from(m.shared_ffn))
                } else {
                    (0.0, 0.0, 0.0)
                };
                let router = h * e;
                let layer = LayerParams {
                    attention: attn,
                    kv_projections,
                    dense_mlp: 0.0,
                    experts: e * (one + one_bias),
                    one_expert: one + one_bias,
                    shared: shared + shared_bias + router,
                    small: attn_small + norms,
                    matrix_dims: attn_dims + e * one_dims + shared_dims + (h + e),
                };
                let dense = m.dense_layers.min(self.layers);
                (layer, dense, self.layers - dense)
            }
        };
        let positions = match self.positions {
            Positions::Learned { max_positions } => f64::from(max_positions) * h,
            Positions::Rotary | Positions::Alibi => 0.0,
        };
        let embedding = f64::from(self.vocab) * h + positions + f64::from(self.token_types) * h;
        let lm_head = match self.embeddings {
            Embeddings::Tied => 0.0,
            Embeddings::Untied => f64::from(self.vocab) * h,
        };
        ParamCounts {
            dense_layer,
            moe_layer,
            dense_layers,
            moe_layers,
            embedding,
            lm_head,
            final_norm: self.norm_params(h),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gpt(l: u32, h: u32, a: u32, v: u32, s: u32) -> ModelSpec {
        ModelSpec {
            layers: l,
            hidden: h,
            heads: a,
            kv_heads: a,
            head_dim: h / a,
            ffn: 4 * h,
            activation: FfnActivation::Gelu,
            vocab: v,
            embeddings: Embeddings::Tied,
            positions: Positions::Learned { max_positions: s },
            norm: Norm::LayerNorm,
            bias: Bias::All,
            dropout: Dropout::On,
            attention: AttentionKind::Standard,
            sliding_window: None,
            windowed_layers: None,
            moe: None,
            token_types: 0,
            max_context: s,
        }
    }

    #[test]
    fn windowed_layers_attend_within_the_window_and_the_rest_to_everything() {
        let mut m = gpt(36, 2880, 64, 201_088, 131_072);
        let s = 8192.0;
        // No window: half the sequence causally, all of it held.
        assert_eq!(m.causal_keys(s), s / 2.0);
        assert_eq!(m.keys_within(s), s);
        // A window in every layer: w − w²/(2s) causally (exact sum
        // [w(w+1)/2 + (s − w)w]/s = 127.5 for w = 128 at s = 8192, against
        // 127.0 here), at most w held; a window past the sequence changes
        // nothing.
        m.sliding_window = Some(128);
        assert!((m.causal_keys(s) - 127.0).abs() < 1e-9);
        assert_eq!(m.keys_within(s), 128.0);
        assert_eq!(m.keys_within(100.0), 100.0);
        m.sliding_window = Some(10_000);
        assert_eq!(m.causal_keys(s), s / 2.0);
        // Half the layers windowed (gpt-oss): the mean of the two kinds.
        m.sliding_window = Some(128);
        m.windowed_layers = Some(18);
        assert!((m.causal_keys(s) - (s / 2.0 + 127.0) / 2.0).abs() < 1e-9);
        assert_eq!(m.keys_within(s), (s + 128.0) / 2.0);
        // Blocks of 16: the full layers round 8,200 up to 8,208, the
        // windowed ones hold 128.
        assert_eq!(m.blocked_keys(8200, 16), (8208.0 + 128.0) / 2.0);
    }

    #[test]
    fn narayanan_eq2_layer_params() {
        // Eq. 2 per layer: 12h² + 13h.
        let m = gpt(96, 12288, 96, 51200, 2048);
        let p = m.params();
        let h = 12288.0_f64;
        assert_eq!(p.dense_layer.total(), 12.0 * h * h + 13.0 * h);
        // Whole model: Eq. 2 adds (V + s)h for the tables; we also count the final norm (2h).
        let eq2 = 12.0
            * 96.0
            * h
            * h
            * (1.0 + 13.0 / (12.0 * h) + (51200.0 + 2048.0) / (12.0 * 96.0 * h));
        assert!((p.total() / (eq2 + 2.0 * h) - 1.0).abs() < 1e-12);
    }
}
