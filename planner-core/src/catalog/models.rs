//! Model architectures. Shapes come from each model's paper or its released
//! `config.json`; the parameter count is derived, never typed in.

use super::Provenance;
use crate::model::{
    AttentionKind, Bias, Dropout, Embeddings, FfnActivation, ModelSpec, Norm, Positions,
};
use serde::{Deserialize, Serialize};

/// Catalog ids of models (the names used in plans and links).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum ModelId {
    /// GPT-3 175B.
    #[serde(rename = "gpt3-175b")]
    Gpt3_175b,
    /// Megatron 22B (Korthikanti et al. Table 3).
    #[serde(rename = "megatron-22b")]
    Megatron22b,
    /// Llama 2 7B.
    #[serde(rename = "llama2-7b")]
    Llama2_7b,
}

/// One model in the catalog.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelEntry {
    /// Its id.
    pub id: ModelId,
    /// Display name.
    pub name: &'static str,
    /// The architecture.
    pub spec: ModelSpec,
    /// Where the shape comes from.
    pub source: &'static str,
    /// How it was checked.
    pub provenance: Provenance,
}

const fn gpt(layers: u32, hidden: u32, heads: u32, vocab: u32, seq: u32) -> ModelSpec {
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
        moe: None,
        token_types: 0,
        max_context: seq,
    }
}

/// The model catalog.
pub static MODELS: &[ModelEntry] = &[
    ModelEntry {
        id: ModelId::Gpt3_175b,
        name: "GPT-3 175B",
        spec: gpt(96, 12288, 96, 51200, 2048),
        source: "Brown et al., \"Language Models are Few-Shot Learners\", arXiv:2005.14165, Table 2.1 (96 layers, d_model 12288, 96 heads, context 2048); vocab 51200 as padded by Megatron-LM (Korthikanti et al. 2022, Table 3)",
        provenance: Provenance::Verified,
    },
    ModelEntry {
        id: ModelId::Megatron22b,
        name: "Megatron GPT 22B",
        spec: gpt(48, 6144, 64, 51200, 2048),
        source: "Korthikanti et al., \"Reducing Activation Recomputation in Large Transformer Models\", arXiv:2205.05198, Table 3",
        provenance: Provenance::Verified,
    },
    ModelEntry {
        id: ModelId::Llama2_7b,
        name: "Llama 2 7B",
        spec: ModelSpec {
            layers: 32,
            hidden: 4096,
            heads: 32,
            kv_heads: 32,
            head_dim: 128,
            ffn: 11008,
            activation: FfnActivation::SwiGlu,
            vocab: 32000,
            embeddings: Embeddings::Untied,
            positions: Positions::Rotary,
            norm: Norm::RmsNorm,
            bias: Bias::None,
            dropout: Dropout::Off,
            attention: AttentionKind::Standard,
            sliding_window: None,
            moe: None,
            token_types: 0,
            max_context: 4096,
        },
        source: "meta-llama/Llama-2-7b-hf config.json (hidden_size 4096, intermediate_size 11008, 32 layers, 32 heads, vocab 32000); Touvron et al., arXiv:2307.09288",
        provenance: Provenance::Verified,
    },
];
