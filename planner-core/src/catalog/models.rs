//! Model architectures. Shapes come from each model's paper or its released
//! `config.json`; the parameter count is derived, never typed in.

use super::Provenance;
use crate::model::{AttentionKind, Bias, FfnActivation, MlaSpec, ModelSpec, MoeSpec, Positions};
use crate::precision::{Precision, ShippedWeights};
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
    /// Megatron-Turing NLG 530B (Korthikanti et al. Table 3).
    #[serde(rename = "megatron-530b")]
    Megatron530b,
    /// Megatron 1T (Korthikanti et al. Table 3).
    #[serde(rename = "megatron-1t")]
    Megatron1t,
    /// GPT-2 1.5B (the "XL" checkpoint).
    #[serde(rename = "gpt2-xl")]
    Gpt2Xl,
    /// BERT-large (uncased or cased: same shape up to vocabulary; uncased here).
    #[serde(rename = "bert-large")]
    BertLarge,
    /// OPT 13B.
    #[serde(rename = "opt-13b")]
    Opt13b,
    /// Llama 2 7B.
    #[serde(rename = "llama2-7b")]
    Llama2_7b,
    /// Llama 2 13B.
    #[serde(rename = "llama2-13b")]
    Llama2_13b,
    /// Llama 2 70B.
    #[serde(rename = "llama2-70b")]
    Llama2_70b,
    /// Llama 3.1 8B.
    #[serde(rename = "llama3.1-8b")]
    Llama31_8b,
    /// Llama 3.1 70B.
    #[serde(rename = "llama3.1-70b")]
    Llama31_70b,
    /// Llama 3.1 405B.
    #[serde(rename = "llama3.1-405b")]
    Llama31_405b,
    /// Mistral 7B v0.1.
    #[serde(rename = "mistral-7b-v0.1")]
    Mistral7bV01,
    /// Mixtral 8x7B v0.1.
    #[serde(rename = "mixtral-8x7b")]
    Mixtral8x7b,
    /// Qwen2.5 7B.
    #[serde(rename = "qwen2.5-7b")]
    Qwen25_7b,
    /// Qwen2.5 72B.
    #[serde(rename = "qwen2.5-72b")]
    Qwen25_72b,
    /// DeepSeek-V3 (671B total, without the multi-token-prediction module).
    #[serde(rename = "deepseek-v3")]
    DeepseekV3,
    /// OpenAI gpt-oss-120b (117B total, 5.1B active).
    #[serde(rename = "gpt-oss-120b")]
    GptOss120b,
    /// OpenAI gpt-oss-20b (21B total, 3.6B active).
    #[serde(rename = "gpt-oss-20b")]
    GptOss20b,
}

impl ModelId {
    /// Every catalog id, in catalog order. A unit test checks, through an
    /// exhaustive `match`, that no variant is missing here.
    pub const ALL: &'static [ModelId] = &[
        ModelId::Gpt3_175b,
        ModelId::Megatron22b,
        ModelId::Megatron530b,
        ModelId::Megatron1t,
        ModelId::Gpt2Xl,
        ModelId::BertLarge,
        ModelId::Opt13b,
        ModelId::Llama2_7b,
        ModelId::Llama2_13b,
        ModelId::Llama2_70b,
        ModelId::Llama31_8b,
        ModelId::Llama31_70b,
        ModelId::Llama31_405b,
        ModelId::Mistral7bV01,
        ModelId::Mixtral8x7b,
        ModelId::Qwen25_7b,
        ModelId::Qwen25_72b,
        ModelId::DeepseekV3,
        ModelId::GptOss120b,
        ModelId::GptOss20b,
    ];
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
    /// The formats its released checkpoint stores, where it ships
    /// quantized (a serving plan starts from them).
    pub shipped: Option<ShippedWeights>,
}

/// The model catalog.
pub static MODELS: &[ModelEntry] = &[
    ModelEntry {
        id: ModelId::Gpt3_175b,
        name: "GPT-3 175B",
        spec: ModelSpec::gpt(96, 12288, 96, 51200, 2048),
        source: "Brown et al., \"Language Models are Few-Shot Learners\", arXiv:2005.14165, Table 2.1 (96 layers, d_model 12288, 96 heads, context 2048); vocab 51200 as padded by Megatron-LM (Korthikanti et al. 2022, Table 3)",
        provenance: Provenance::Verified,
        shipped: None,
    },
    ModelEntry {
        id: ModelId::Megatron22b,
        name: "Megatron GPT 22B",
        spec: ModelSpec::gpt(48, 6144, 64, 51200, 2048),
        source: "Korthikanti et al., \"Reducing Activation Recomputation in Large Transformer Models\", arXiv:2205.05198, Table 3",
        provenance: Provenance::Verified,
        shipped: None,
    },
    ModelEntry {
        id: ModelId::Llama2_7b,
        name: "Llama 2 7B",
        spec: ModelSpec::llama(32, 4096, 32, 32, 11008, 32000, 4096),
        source: "meta-llama/Llama-2-7b-hf config.json (hidden_size 4096, intermediate_size 11008, 32 layers, 32 heads, vocab 32000); Touvron et al., arXiv:2307.09288",
        provenance: Provenance::Verified,
        shipped: None,
    },
    ModelEntry {
        id: ModelId::Megatron530b,
        name: "Megatron-Turing NLG 530B",
        spec: ModelSpec::gpt(105, 20480, 128, 51200, 2048),
        source: "Korthikanti et al., \"Reducing Activation Recomputation in Large Transformer Models\", arXiv:2205.05198, Table 3 (105 layers, hidden 20480, 128 heads, sequence 2048, vocabulary 51200); shape recalled, the table was not re-read for this entry",
        provenance: Provenance::Recalled,
        shipped: None,
    },
    ModelEntry {
        id: ModelId::Megatron1t,
        name: "Megatron GPT 1T",
        spec: ModelSpec::gpt(128, 25600, 160, 51200, 2048),
        source: "Korthikanti et al., \"Reducing Activation Recomputation in Large Transformer Models\", arXiv:2205.05198, Table 3 (128 layers, hidden 25600, 160 heads, sequence 2048, vocabulary 51200); shape recalled, the table was not re-read for this entry",
        provenance: Provenance::Recalled,
        shipped: None,
    },
    ModelEntry {
        id: ModelId::Gpt2Xl,
        name: "GPT-2 1.5B (XL)",
        spec: ModelSpec::gpt(48, 1600, 25, 50257, 1024),
        source: "openai-community/gpt2-xl config.json (n_layer 48, n_embd 1600, n_head 25, n_positions 1024, vocab_size 50257, n_inner null so the FFN is 4h, resid/attn/embd dropout 0.1); Radford et al. 2019, Table 2. Checked against the same values quoted in public code, not the file itself",
        provenance: Provenance::VerifiedCopy,
        shipped: None,
    },
    ModelEntry {
        id: ModelId::BertLarge,
        name: "BERT-large",
        spec: ModelSpec {
            token_types: 2,
            ..ModelSpec::gpt(24, 1024, 16, 30522, 512)
        },
        source: "google-bert/bert-large-uncased config.json (24 layers, hidden 1024, 16 heads, intermediate 4096, vocab 30522, 512 learned positions, type_vocab_size 2, GELU, dropout 0.1); Devlin et al., arXiv:1810.04805. The pooler (h x h + h) and the MLM head transform are not modelled; the embedding LayerNorm stands where a final norm would be, which has the same 2h size. Checked against a full copy of the config (as printed by transformers) in public documentation",
        provenance: Provenance::VerifiedCopy,
        shipped: None,
    },
    ModelEntry {
        id: ModelId::Opt13b,
        name: "OPT 13B",
        spec: ModelSpec {
            activation: FfnActivation::Relu,
            // OPT's learned position table is offset by 2 rows, so 2048
            // positions need a 2050-row table.
            positions: Positions::Learned { max_positions: 2050 },
            ..ModelSpec::gpt(40, 5120, 40, 50272, 2048)
        },
        source: "facebook/opt-13b config.json (40 layers, hidden 5120, 40 heads, ffn_dim 20480, ReLU, vocab 50272, max_position_embeddings 2048, word_embed_proj_dim 5120, dropout 0.1); Zhang et al., arXiv:2205.01068, Table 1. The learned position table has 2 extra rows (OPTLearnedPositionalEmbedding offset). Checked against a copy of the config in public code",
        provenance: Provenance::VerifiedCopy,
        shipped: None,
    },
    ModelEntry {
        id: ModelId::Llama2_13b,
        name: "Llama 2 13B",
        spec: ModelSpec::llama(40, 5120, 40, 40, 13824, 32000, 4096),
        source: "meta-llama/Llama-2-13b-hf config.json (40 layers, hidden 5120, 40 heads, intermediate 13824, vocab 32000, 4096 positions); Touvron et al., arXiv:2307.09288. Checked against the same values quoted in public code, not the file itself",
        provenance: Provenance::VerifiedCopy,
        shipped: None,
    },
    ModelEntry {
        id: ModelId::Llama2_70b,
        name: "Llama 2 70B",
        spec: ModelSpec::llama(80, 8192, 64, 8, 28672, 32000, 4096),
        source: "meta-llama/Llama-2-70b-hf config.json (80 layers, hidden 8192, 64 heads, 8 KV heads, intermediate 28672, vocab 32000, 4096 positions); Touvron et al., arXiv:2307.09288. Checked against the same values quoted in public code, not the file itself",
        provenance: Provenance::VerifiedCopy,
        shipped: None,
    },
    ModelEntry {
        id: ModelId::Llama31_8b,
        name: "Llama 3.1 8B",
        spec: ModelSpec::llama(32, 4096, 32, 8, 14336, 128256, 131072),
        source: "meta-llama/Llama-3.1-8B config.json (32 layers, hidden 4096, 32 heads, 8 KV heads, intermediate 14336, vocab 128256, max_position_embeddings 131072, untied); Llama Team, arXiv:2407.21783, Table 3. Checked against the same values quoted in public code, not the file itself",
        provenance: Provenance::VerifiedCopy,
        shipped: None,
    },
    ModelEntry {
        id: ModelId::Llama31_70b,
        name: "Llama 3.1 70B",
        spec: ModelSpec::llama(80, 8192, 64, 8, 28672, 128256, 131072),
        source: "meta-llama/Llama-3.1-70B config.json (80 layers, hidden 8192, 64 heads, 8 KV heads, intermediate 28672, vocab 128256, max_position_embeddings 131072, untied); Llama Team, arXiv:2407.21783, Table 3. Checked against the same values quoted in public code, not the file itself",
        provenance: Provenance::VerifiedCopy,
        shipped: None,
    },
    ModelEntry {
        id: ModelId::Llama31_405b,
        name: "Llama 3.1 405B",
        spec: ModelSpec::llama(126, 16384, 128, 8, 53248, 128256, 131072),
        source: "meta-llama/Llama-3.1-405B config.json (126 layers, hidden 16384, 128 heads, 8 KV heads, intermediate 53248, vocab 128256, max_position_embeddings 131072, untied); Llama Team, arXiv:2407.21783, Table 3. Checked against the same values quoted in public code, not the file itself",
        provenance: Provenance::VerifiedCopy,
        shipped: None,
    },
    ModelEntry {
        id: ModelId::Mistral7bV01,
        name: "Mistral 7B v0.1",
        spec: ModelSpec {
            sliding_window: Some(4096),
            windowed_layers: None,
            ..ModelSpec::llama(32, 4096, 32, 8, 14336, 32000, 32768)
        },
        source: "mistralai/Mistral-7B-v0.1 config.json (32 layers, hidden 4096, 32 heads, 8 KV heads, intermediate 14336, vocab 32000, max_position_embeddings 32768, sliding_window 4096); Jiang et al., arXiv:2310.06825, Table 1. Checked against the same values quoted in public code, not the file itself",
        provenance: Provenance::VerifiedCopy,
        shipped: None,
    },
    ModelEntry {
        id: ModelId::Mixtral8x7b,
        name: "Mixtral 8x7B v0.1",
        spec: ModelSpec {
            moe: Some(MoeSpec {
                experts: 8,
                top_k: 2,
                expert_ffn: 14336,
                shared_ffn: 0,
                dense_layers: 0,
            }),
            ..ModelSpec::llama(32, 4096, 32, 8, 14336, 32000, 32768)
        },
        source: "mistralai/Mixtral-8x7B-v0.1 config.json (32 layers, hidden 4096, 32 heads, 8 KV heads, intermediate 14336 per expert, num_local_experts 8, num_experts_per_tok 2, vocab 32000, max_position_embeddings 32768, sliding_window null so attention is full, untied); Jiang et al., arXiv:2401.04088. Checked against a full copy of the config in public code",
        provenance: Provenance::VerifiedCopy,
        shipped: None,
    },
    ModelEntry {
        id: ModelId::Qwen25_7b,
        name: "Qwen2.5 7B",
        spec: ModelSpec {
            bias: Bias::QkvOnly,
            ..ModelSpec::llama(28, 3584, 28, 4, 18944, 152064, 32768)
        },
        source: "Qwen/Qwen2.5-7B-Instruct config.json (28 layers, hidden 3584, 28 heads, 4 KV heads, intermediate 18944, vocab 152064, max_position_embeddings 32768, tie_word_embeddings false, use_sliding_window false); Q/K/V biases are built into the Qwen2 architecture. Qwen Team, arXiv:2412.15115. Checked against a full copy of the config in public code",
        provenance: Provenance::VerifiedCopy,
        shipped: None,
    },
    ModelEntry {
        id: ModelId::Qwen25_72b,
        name: "Qwen2.5 72B",
        spec: ModelSpec {
            bias: Bias::QkvOnly,
            ..ModelSpec::llama(80, 8192, 64, 8, 29568, 152064, 32768)
        },
        source: "Qwen/Qwen2.5-72B-Instruct config.json (80 layers, hidden 8192, 64 heads, 8 KV heads, intermediate 29568, vocab 152064, max_position_embeddings 32768, tie_word_embeddings false); Q/K/V biases are built into the Qwen2 architecture. Qwen Team, arXiv:2412.15115. Checked against the same values quoted in public code, not the file itself",
        provenance: Provenance::VerifiedCopy,
        shipped: None,
    },
    ModelEntry {
        id: ModelId::DeepseekV3,
        name: "DeepSeek-V3",
        spec: ModelSpec {
            // MLA sets the real widths; head_dim records the query/key head
            // (nope + rope) so that it is not left meaningless.
            head_dim: 192,
            attention: AttentionKind::Mla(MlaSpec {
                q_lora_rank: 1536,
                kv_lora_rank: 512,
                qk_nope_head_dim: 128,
                qk_rope_head_dim: 64,
                v_head_dim: 128,
            }),
            moe: Some(MoeSpec {
                experts: 256,
                top_k: 8,
                expert_ffn: 2048,
                shared_ffn: 2048,
                dense_layers: 3,
            }),
            ..ModelSpec::llama(61, 7168, 128, 128, 18432, 129280, 163840)
        },
        source: "deepseek-ai/DeepSeek-V3 config.json (61 layers, hidden 7168, 128 heads, q_lora_rank 1536, kv_lora_rank 512, qk_nope_head_dim 128, qk_rope_head_dim 64, v_head_dim 128, first_k_dense_replace 3 with intermediate 18432, 256 routed experts of 2048, 8 per token, 1 shared expert, vocab 129280, max_position_embeddings 163840, untied); DeepSeek-AI, arXiv:2412.19437. The multi-token-prediction layer (num_nextn_predict_layers 1) and the router's score-correction bias are not modelled. Checked against the same values quoted in public code, not the file itself",
        provenance: Provenance::VerifiedCopy,
        shipped: None,
    },
    ModelEntry {
        id: ModelId::GptOss120b,
        name: "gpt-oss-120b",
        spec: gpt_oss(36, 128),
        source: "openai/gpt-oss-120b config.json (36 layers, hidden 2880, 64 heads of 64, 8 KV heads, attention_bias true, 128 local experts of intermediate 2880, 4 per token, vocab 201088, max_position_embeddings 131072, sliding_window 128 on the layer_types' alternate sliding_attention layers, untied); OpenAI, \"gpt-oss-120b & gpt-oss-20b Model Card\", arXiv:2508.10925, Table 1 (116.83B total, 5.13B active). As shipped the MoE weights are MXFP4 and the rest BF16 (levers.precision.experts). The attention sinks and the experts' biases (0.04B) are not modelled. Checked by importing the config (hf::tests)",
        provenance: Provenance::VerifiedCopy,
        shipped: GPT_OSS_SHIPPED,
    },
    ModelEntry {
        id: ModelId::GptOss20b,
        name: "gpt-oss-20b",
        spec: gpt_oss(24, 32),
        source: "openai/gpt-oss-20b config.json (24 layers, 32 local experts, the rest as gpt-oss-120b); OpenAI, arXiv:2508.10925, Table 1 (20.91B total, 3.61B active). As shipped the MoE weights are MXFP4 and the rest BF16 (levers.precision.experts). Checked by importing the config (hf::tests)",
        provenance: Provenance::VerifiedCopy,
        shipped: GPT_OSS_SHIPPED,
    },
];

/// gpt-oss as released: MoE weights in MXFP4, everything else in BF16
/// (model card, arXiv:2508.10925, §2).
const GPT_OSS_SHIPPED: Option<ShippedWeights> = Some(ShippedWeights::experts(Precision::Mxfp4));

/// gpt-oss's shape with `layers` layers and `experts` experts: hidden 2880,
/// 64 query heads of 64 (wider than hidden ÷ heads), 8 KV heads, biases on
/// every projection, experts of 2880 with 4 per token, and a 128-token
/// window on every other layer.
const fn gpt_oss(layers: u32, experts: u32) -> ModelSpec {
    ModelSpec {
        head_dim: 64,
        bias: Bias::All,
        sliding_window: Some(128),
        windowed_layers: Some(layers / 2),
        moe: Some(MoeSpec {
            experts,
            top_k: 4,
            expert_ffn: 2880,
            shared_ffn: 0,
            dense_layers: 0,
        }),
        ..ModelSpec::llama(layers, 2880, 64, 8, 2880, 201088, 131072)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The position of `id` in [`ModelId::ALL`]. The `match` is exhaustive,
    /// so adding a variant without listing it here (and in `ALL`) fails to
    /// compile instead of silently escaping the tests below.
    fn position(id: ModelId) -> usize {
        match id {
            ModelId::Gpt3_175b => 0,
            ModelId::Megatron22b => 1,
            ModelId::Megatron530b => 2,
            ModelId::Megatron1t => 3,
            ModelId::Gpt2Xl => 4,
            ModelId::BertLarge => 5,
            ModelId::Opt13b => 6,
            ModelId::Llama2_7b => 7,
            ModelId::Llama2_13b => 8,
            ModelId::Llama2_70b => 9,
            ModelId::Llama31_8b => 10,
            ModelId::Llama31_70b => 11,
            ModelId::Llama31_405b => 12,
            ModelId::Mistral7bV01 => 13,
            ModelId::Mixtral8x7b => 14,
            ModelId::Qwen25_7b => 15,
            ModelId::Qwen25_72b => 16,
            ModelId::DeepseekV3 => 17,
            ModelId::GptOss120b => 18,
            ModelId::GptOss20b => 19,
        }
    }

    fn entry(id: ModelId) -> &'static ModelEntry {
        crate::catalog::model(id)
    }

    #[test]
    fn all_lists_every_variant_once() {
        for (i, id) in ModelId::ALL.iter().enumerate() {
            assert_eq!(position(*id), i, "{id:?} is out of place in ModelId::ALL");
        }
        assert_eq!(ModelId::ALL.len(), position(ModelId::GptOss20b) + 1);
    }

    #[test]
    fn every_id_has_exactly_one_entry() {
        for id in ModelId::ALL {
            let n = MODELS.iter().filter(|e| e.id == *id).count();
            assert_eq!(n, 1, "{id:?} has {n} catalog entries");
        }
        assert_eq!(MODELS.len(), ModelId::ALL.len());
    }

    #[test]
    fn ids_serialize_to_distinct_names_and_back() {
        let mut names = Vec::new();
        for id in ModelId::ALL {
            let json = serde_json::to_string(id).unwrap_or_default();
            let back: Option<ModelId> = serde_json::from_str(&json).ok();
            assert_eq!(back, Some(*id), "{json} does not round-trip");
            assert!(!names.contains(&json), "{json} is used twice");
            names.push(json);
        }
    }

    #[test]
    fn shapes_are_self_consistent() {
        for e in MODELS {
            let s = &e.spec;
            assert!(s.layers > 0 && s.hidden > 0 && s.vocab > 0, "{}", e.name);
            assert_eq!(
                s.heads % s.kv_heads,
                0,
                "{}: kv heads must divide heads",
                e.name
            );
            // gpt-oss's config sets its heads wider than hidden ÷ heads.
            let apart = matches!(e.id, ModelId::GptOss120b | ModelId::GptOss20b);
            if s.attention == AttentionKind::Standard && !apart {
                assert_eq!(s.heads * s.head_dim, s.hidden, "{}", e.name);
            }
            if let Some(m) = s.moe {
                assert!(
                    m.top_k <= m.experts && m.dense_layers < s.layers,
                    "{}",
                    e.name
                );
            }
            assert!(!e.source.is_empty());
        }
    }

    /// Derived total parameters against the published count, with the
    /// relative tolerance each one deserves. Published counts are the exact
    /// tensor totals of the released checkpoints where those exist (Hugging
    /// Face safetensors metadata), else the paper's figure.
    #[test]
    fn derived_totals_match_published_counts() {
        let cases: &[(ModelId, f64, f64)] = &[
            // Narayanan et al. Eq. 2 gives 174.6B; we add the final norm (2h).
            (ModelId::Gpt3_175b, 174.6e9, 1e-3),
            // Table 3 rounds to "22B"; Eq. 2 gives 22.07B.
            (ModelId::Megatron22b, 22.0e9, 5e-3),
            (ModelId::Megatron530b, 530.0e9, 2e-3),
            // Narayanan et al. 2021 Table 1 lists this shape as 1008B.
            (ModelId::Megatron1t, 1008.0e9, 1e-3),
            (ModelId::Gpt2Xl, 1_557_611_200.0, 1e-6),
            // BertModel is 335,141,888 with the pooler (h² + h = 1,049,600),
            // which we do not model.
            (ModelId::BertLarge, 335_141_888.0 - 1_049_600.0, 1e-6),
            (ModelId::Opt13b, 12.85e9, 1e-3),
            (ModelId::Llama2_7b, 6_738_415_616.0, 1e-6),
            (ModelId::Llama2_13b, 13_015_864_320.0, 1e-6),
            (ModelId::Llama2_70b, 68_976_648_192.0, 1e-6),
            (ModelId::Llama31_8b, 8_030_261_248.0, 1e-6),
            (ModelId::Llama31_70b, 70_553_706_496.0, 1e-6),
            (ModelId::Llama31_405b, 405_853_388_800.0, 1e-6),
            (ModelId::Mistral7bV01, 7_241_732_096.0, 1e-6),
            (ModelId::Mixtral8x7b, 46_702_792_704.0, 1e-6),
            (ModelId::Qwen25_7b, 7_615_616_512.0, 1e-6),
            (ModelId::Qwen25_72b, 72_706_203_648.0, 1e-6),
            // 671B for the main model; the released checkpoint's 685B adds
            // the 14B multi-token-prediction module.
            (ModelId::DeepseekV3, 671.0e9, 1e-3),
            // The card's 116.83B and 20.91B include the experts' biases
            // (0.04B in the 120b), which the shape does not model.
            (ModelId::GptOss120b, 116.83e9, 5e-4),
            (ModelId::GptOss20b, 20.91e9, 5e-4),
        ];
        assert_eq!(cases.len(), ModelId::ALL.len(), "every model needs a case");
        for &(id, published, tol) in cases {
            let derived = entry(id).spec.params().total();
            let err = (derived / published - 1.0).abs();
            assert!(
                err <= tol,
                "{id:?}: derived {derived:.0}, published {published:.0}, off by {err:.2e} > {tol:.0e}"
            );
        }
    }

    /// Active parameters of the MoE models. The vendors count
    /// differently: Mistral's 12.9B includes the input embedding, DeepSeek's
    /// 36.6B (V3 release notes, "including 0.9B for the output head") does
    /// not, which is exactly `active_non_embedding`; so do OpenAI's 5.13B
    /// and 3.61B (the unembedding in, the embedding out).
    #[test]
    fn moe_active_counts_match_published() {
        #[derive(Clone, Copy)]
        enum Plus {
            Nothing,
            InputEmbedding,
        }
        let cases: &[(ModelId, Plus, f64, f64)] = &[
            // Exact derivation: 12.88B, which Mistral rounds to 12.9B.
            (ModelId::Mixtral8x7b, Plus::InputEmbedding, 12.9e9, 2e-3),
            (ModelId::DeepseekV3, Plus::Nothing, 36.6e9, 2e-3),
            (ModelId::GptOss120b, Plus::Nothing, 5.13e9, 2e-3),
            (ModelId::GptOss20b, Plus::Nothing, 3.61e9, 2e-3),
        ];
        for &(id, plus, published, tol) in cases {
            let spec = &entry(id).spec;
            let p = spec.params();
            let mut active = p.active_non_embedding(spec);
            match plus {
                Plus::Nothing => {}
                Plus::InputEmbedding => active += p.embedding + p.final_norm,
            }
            let err = (active / published - 1.0).abs();
            assert!(err <= tol, "{id:?}: active {active:.0} vs {published:.0}");
        }
    }
}
