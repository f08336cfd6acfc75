//! The two Qwen3-MoE models as their `config.json` files on the Hugging
//! Face Hub give them (Qwen/Qwen3-30B-A3B, Qwen/Qwen3-235B-A22B: 128
//! experts, top 8, 4 KV heads of 128), imported as a user would
//! (`hf::import_hf_config`). Shared by the serving and training tables.

use planner_core::plan::{CustomModel, ModelChoice};

/// A Qwen3-MoE `config.json`; the fields that differ between the
/// family's sizes are the arguments.
fn qwen3_moe(
    name: &str,
    hidden: u32,
    dense_ffn: u32,
    expert_ffn: u32,
    heads: u32,
    layers: u32,
) -> ModelChoice {
    let json = format!(
        r#"{{"architectures": ["Qwen3MoeForCausalLM"], "decoder_sparse_step": 1,
        "head_dim": 128, "hidden_act": "silu", "hidden_size": {hidden},
        "intermediate_size": {dense_ffn}, "max_position_embeddings": 40960,
        "mlp_only_layers": [], "model_type": "qwen3_moe",
        "moe_intermediate_size": {expert_ffn}, "num_attention_heads": {heads},
        "num_experts": 128, "num_experts_per_tok": 8, "num_hidden_layers": {layers},
        "num_key_value_heads": 4, "tie_word_embeddings": false, "vocab_size": 151936}}"#
    );
    let m = planner_core::hf::import_hf_config(&json).expect("a Qwen3-MoE config imports");
    ModelChoice::Custom(CustomModel {
        shipped: None,
        name: name.into(),
        spec: m.spec,
    })
}

/// Qwen3-235B-A22B (Qwen/Qwen3-235B-A22B's `config.json`).
pub fn qwen3_235b() -> ModelChoice {
    qwen3_moe("Qwen3-235B-A22B", 4096, 12288, 1536, 64, 94)
}

/// Qwen3-30B-A3B (Qwen/Qwen3-30B-A3B's `config.json`).
pub fn qwen3_30b() -> ModelChoice {
    qwen3_moe("Qwen3-30B-A3B", 2048, 6144, 768, 32, 48)
}
