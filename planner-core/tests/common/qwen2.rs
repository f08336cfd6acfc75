//! Qwen2.5 models as a user imports them: a `config.json` of the Qwen2
//! architecture (SiLU, RMSNorm, untied Q/K/V biases, no sliding window,
//! a 151,936-token vocabulary and tied embeddings, as the Qwen2.5 models
//! up to 3B ship), through `hf::import_hf_config`.

use planner_core::plan::{CustomModel, ModelChoice};

/// The shape of one Qwen2.5 model's `config.json`.
pub struct Qwen2 {
    pub name: &'static str,
    pub layers: u32,
    pub hidden: u32,
    pub heads: u32,
    pub kv_heads: u32,
    pub intermediate: u32,
}

/// The model `config.json` of that shape imports to.
pub fn qwen2(q: Qwen2) -> ModelChoice {
    let json = format!(
        r#"{{"architectures": ["Qwen2ForCausalLM"], "hidden_act": "silu",
        "hidden_size": {}, "intermediate_size": {}, "max_position_embeddings": 32768,
        "model_type": "qwen2", "num_attention_heads": {}, "num_hidden_layers": {},
        "num_key_value_heads": {}, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
        "sliding_window": 32768, "tie_word_embeddings": true, "torch_dtype": "bfloat16",
        "use_sliding_window": false, "vocab_size": 151936}}"#,
        q.hidden, q.intermediate, q.heads, q.layers, q.kv_heads
    );
    let m = planner_core::hf::import_hf_config(&json).expect("a Qwen2.5 config imports");
    ModelChoice::Custom(CustomModel {
        shipped: None,
        name: q.name.into(),
        spec: m.spec,
    })
}
