//! Import of a Hugging Face `config.json` into a [`ModelSpec`].
//!
//! Only the keys that decide the shape are read. Every default filled in and
//! every simplification made is reported in [`ImportedModel::notes`], so a
//! user can see what was assumed rather than trust a silent guess. Any input,
//! however malformed, yields either a model or an [`ImportError`] that names
//! the offending key: this module never panics.

use crate::lang::Text;
use crate::model::{
    AttentionKind, Bias, Dropout, Embeddings, FfnActivation, MlaSpec, ModelSpec, MoeSpec, Norm,
    Positions,
};
use crate::precision::Precision;
pub use crate::precision::ShippedWeights;
use serde_json::{Map, Value};
use std::fmt;

/// A model read from a `config.json`, with the assumptions that were made.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedModel {
    /// The architecture.
    pub spec: ModelSpec,
    /// `_name_or_path` when the file has one, else its `model_type`.
    pub name: String,
    /// Defaults filled in and simplifications made, one sentence each, in
    /// both languages.
    pub notes: Vec<Text>,
    /// The weight formats the checkpoint ships in, when its
    /// `quantization_config` names one memwall models: a serving plan
    /// sets these to serve it as shipped.
    pub shipped: Option<ShippedWeights>,
}

/// Why a `config.json` could not be imported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportError {
    /// The text is not JSON.
    InvalidJson {
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// What the parser expected.
        message: String,
    },
    /// The JSON is valid but not an object.
    NotAnObject,
    /// A key the shape needs is absent.
    MissingKey(String),
    /// A key has a value of the wrong type or range.
    InvalidValue {
        /// The key.
        key: String,
        /// What is wrong with it, in both languages.
        reason: Text,
    },
    /// The `model_type` is not one we read, and the file lacks the Llama key
    /// set we could fall back on.
    UnsupportedModelType(String),
    /// The key describes a feature [`ModelSpec`] cannot express.
    Unsupported {
        /// The key.
        key: String,
        /// What is not supported, in both languages.
        reason: Text,
    },
}

impl ImportError {
    /// The message in both languages (the parser's own words, for invalid
    /// JSON, stay as the parser wrote them).
    pub fn text(&self) -> Text {
        match self {
            ImportError::InvalidJson {
                line,
                column,
                message,
            } => Text::new(
                format!("invalid JSON at line {line} column {column}: {message}"),
                format!("JSON 无效（第 {line} 行第 {column} 列）：{message}"),
            ),
            ImportError::NotAnObject => Text::new(
                "config.json must be a JSON object",
                "config.json 必须是一个 JSON 对象",
            ),
            ImportError::MissingKey(key) => Text::new(
                format!("missing key \"{key}\""),
                format!("缺少键 \"{key}\""),
            ),
            ImportError::InvalidValue { key, reason } => Text::new(
                format!("invalid value for \"{key}\": {}", reason.en),
                format!("键 \"{key}\" 的值无效：{}", reason.zh),
            ),
            ImportError::UnsupportedModelType(t) => Text::new(
                format!("unsupported model_type \"{t}\" (and no Llama-style keys to fall back on)"),
                format!("不支持的 model_type \"{t}\"（且没有可退回的 Llama 式键）"),
            ),
            ImportError::Unsupported { key, reason } => Text::new(
                format!("unsupported \"{key}\": {}", reason.en),
                format!("不支持的 \"{key}\"：{}", reason.zh),
            ),
        }
    }
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text().en)
    }
}

impl std::error::Error for ImportError {}

type Result<T> = std::result::Result<T, ImportError>;

/// Reads a Hugging Face `config.json` (its text) into a model.
///
/// Supported `model_type`s: dense `llama`, `mistral`, `qwen2`, `qwen3`,
/// `gpt2`, `bert`, `opt`; and mixture-of-experts `mixtral`, `phimoe`,
/// `granitemoe`, `gpt_oss` (Mixtral's keys), `qwen2_moe`, `qwen3_moe`
/// (Qwen's), `olmoe`, and `deepseek_v2`, `deepseek_v3`, `kimi_k2`,
/// `glm4_moe`, `dots1` (DeepSeek's). Any other decoder that has the Llama
/// key set is read as a Llama, with a note — unless it has expert keys:
/// reading an MoE as dense would undercount its weights many times over,
/// so that is an error naming the keys.
pub fn import_hf_config(json: &str) -> Result<ImportedModel> {
    let value: Value = serde_json::from_str(json).map_err(|e| {
        let (line, column) = (e.line(), e.column());
        let full = e.to_string();
        // serde_json appends the position; we print it first instead.
        let suffix = format!(" at line {line} column {column}");
        let message = full.strip_suffix(&suffix).unwrap_or(&full).to_string();
        ImportError::InvalidJson {
            line,
            column,
            message,
        }
    })?;
    let obj = value.as_object().ok_or(ImportError::NotAnObject)?;
    let cfg = Cfg { obj };
    let mut notes = Vec::new();

    let model_type = cfg.str_opt("model_type")?;
    let (family, experts) = match model_type.and_then(classify) {
        Some(known) => known,
        None => fallback(&cfg, model_type, &mut notes)?,
    };

    let spec = match family {
        Family::Gpt2 => gpt2(&cfg, &mut notes)?,
        Family::Bert => bert(&cfg, &mut notes)?,
        Family::Opt => opt(&cfg, &mut notes)?,
        _ => decoder(&cfg, family, experts, &mut notes)?,
    };

    let shipped = quantization(&cfg, spec.moe.is_some(), &mut notes);
    let name = match cfg.str_opt("_name_or_path")? {
        Some(n) if !n.is_empty() => n.to_string(),
        _ => model_type.unwrap_or("unknown").to_string(),
    };
    Ok(ImportedModel {
        spec,
        name,
        notes,
        shipped,
    })
}

/// A checkpoint that ships quantized (`quantization_config`) names its
/// method; the formats memwall models are read into [`ShippedWeights`]
/// and said in a note, and any other method is named in a note:
/// - `mxfp4` (gpt-oss): the MoE weights in MXFP4 and everything else,
///   attention included, left in BF16 (gpt-oss model card, arXiv:2508.10925
///   §2; its `quantization_config.modules_to_not_convert` lists the
///   attention, router, embedding and output layers). On a dense model
///   every linear layer.
/// - `fp8` (DeepSeek-V3's and Qwen3's FP8 releases: 128 × 128 block
///   scales, one FP32 scale per 16,384 weights, which the FP8 format's
///   negligible-scale cost covers).
/// - `gptq` / `awq` with `bits` 4 (group size `group_size`, 128 if absent)
///   or 8.
/// - `modelopt` (NVIDIA TensorRT Model Optimizer exports) with `quant_algo`
///   `NVFP4` or `FP8`; an MoE whose `exclude_modules` keep the attention
///   layers (`…self_attn…`) has only its experts in NVFP4, the rest taken
///   as BF16.
fn quantization(cfg: &Cfg, moe: bool, notes: &mut Vec<Text>) -> Option<ShippedWeights> {
    let Some(Value::Object(q)) = cfg.get("quantization_config") else {
        return None;
    };
    let method = q
        .get("quant_method")
        .and_then(Value::as_str)
        .unwrap_or("unnamed");
    let bits = q.get("bits").and_then(Value::as_u64);
    let group = q
        .get("group_size")
        .and_then(Value::as_u64)
        .and_then(|g| u32::try_from(g).ok())
        .filter(|&g| g > 0)
        .unwrap_or(128);
    // NVIDIA ModelOpt exports name the format in `quant_algo` and the
    // layers left unquantized in `exclude_modules`.
    let algo = q.get("quant_algo").and_then(Value::as_str).unwrap_or("");
    let attention_kept = q
        .get("exclude_modules")
        .and_then(Value::as_array)
        .is_some_and(|m| {
            m.iter()
                .filter_map(Value::as_str)
                .any(|n| n.contains("attn"))
        });
    // A 4-bit format on an MoE that keeps its attention wide is on the
    // experts alone.
    let four_bit = |p, experts_only| {
        if moe && experts_only {
            ShippedWeights::experts(p)
        } else {
            ShippedWeights::linear(p)
        }
    };
    let shipped = match (method, bits) {
        ("modelopt", _) if algo.eq_ignore_ascii_case("nvfp4") => {
            Some(four_bit(Precision::Nvfp4, attention_kept))
        }
        ("modelopt", _) if algo.eq_ignore_ascii_case("fp8") => {
            Some(ShippedWeights::linear(Precision::Fp8))
        }
        ("mxfp4", _) => Some(four_bit(Precision::Mxfp4, true)),
        ("fp8", _) => Some(ShippedWeights::linear(Precision::Fp8)),
        ("gptq" | "awq", Some(4)) => Some(ShippedWeights::linear(Precision::Int4 {
            group_size: group,
        })),
        ("gptq" | "awq", Some(8)) => Some(ShippedWeights::linear(Precision::Int8)),
        _ => None,
    };
    notes.push(shipped_note(method, shipped));
    shipped
}

/// The note that says what a checkpoint ships and which levers serve it so.
fn shipped_note(method: &str, shipped: Option<ShippedWeights>) -> Text {
    match shipped {
        Some(ShippedWeights {
            weights,
            experts: Some(x),
        }) => Text::new(
            format!(
                "quantization_config: the checkpoint ships {method}: routed experts in {} and \
                 the other linear layers in {}; set levers.precision.experts and \
                 levers.precision.weights to serve it as shipped",
                x.label(),
                weights.label()
            ),
            format!(
                "quantization_config：检查点以 {method} 发布，路由专家为 {}，其余线性层为 {}；\
                 把 levers.precision.experts 和 levers.precision.weights 设为这两种格式即按发布格式推理",
                x.label(),
                weights.label()
            ),
        ),
        Some(ShippedWeights { weights, .. }) => Text::new(
            format!(
                "quantization_config: the checkpoint ships {method}: linear layers in {}; set \
                 levers.precision.weights to serve it as shipped",
                weights.label()
            ),
            format!(
                "quantization_config：检查点以 {method} 发布，线性层为 {}；\
                 把 levers.precision.weights 设为该格式即按发布格式推理",
                weights.label()
            ),
        ),
        None => Text::new(
            format!(
                "quantization_config: the checkpoint ships {method}-quantized weights, a method \
                 memwall does not read; set levers.precision.weights to the nearest format"
            ),
            format!(
                "quantization_config：检查点的权重以 {method} 量化，memwall 不识别该方法；\
                 请把 levers.precision.weights 设为最接近的格式"
            ),
        ),
    }
}

/// The attention, norm and bias conventions of a `model_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    Llama,
    Mistral,
    Qwen2,
    Qwen3,
    Deepseek,
    Gpt2,
    Bert,
    Opt,
}

/// Which keys describe the routed experts of a `model_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ExpertKeys {
    /// A dense model.
    None,
    /// `num_local_experts`, `num_experts_per_tok`; each expert is an
    /// `intermediate_size` MLP (Mixtral, PhiMoE, GraniteMoE, gpt-oss).
    Mixtral,
    /// `num_experts`, `num_experts_per_tok`, `moe_intermediate_size`,
    /// optional `shared_expert_intermediate_size` (Qwen2-MoE, Qwen3-MoE).
    Qwen,
    /// `num_experts`, `num_experts_per_tok`; each expert is an
    /// `intermediate_size` MLP (OLMoE).
    Olmoe,
    /// `n_routed_experts`, `n_shared_experts`, `moe_intermediate_size`,
    /// `first_k_dense_replace` (DeepSeek-V2/V3, Kimi K2, GLM-4.5, dots.llm1).
    Deepseek,
}

/// The conventions of a `model_type` memwall knows by name, from the
/// configuration classes in Hugging Face transformers
/// (`models/<type>/configuration_<type>.py`).
fn classify(model_type: &str) -> Option<(Family, ExpertKeys)> {
    use ExpertKeys as E;
    Some(match model_type {
        "llama" => (Family::Llama, E::None),
        "mistral" => (Family::Mistral, E::None),
        "qwen2" => (Family::Qwen2, E::None),
        "qwen3" => (Family::Qwen3, E::None),
        "gpt2" => (Family::Gpt2, E::None),
        "bert" => (Family::Bert, E::None),
        "opt" => (Family::Opt, E::None),
        "mixtral" | "phimoe" => (Family::Mistral, E::Mixtral),
        "granitemoe" | "gpt_oss" => (Family::Llama, E::Mixtral),
        "qwen2_moe" => (Family::Qwen2, E::Qwen),
        "qwen3_moe" => (Family::Qwen3, E::Qwen),
        "olmoe" => (Family::Llama, E::Olmoe),
        "deepseek_v2" | "deepseek_v3" | "kimi_k2" => (Family::Deepseek, E::Deepseek),
        "glm4_moe" | "dots1" => (Family::Llama, E::Deepseek),
        _ => return None,
    })
}

/// Keys that only a mixture-of-experts configuration has, across the
/// transformers configuration classes.
const EXPERT_KEYS: [&str; 10] = [
    "num_local_experts",
    "num_experts",
    "n_routed_experts",
    "moe_num_experts",
    "num_experts_per_tok",
    "num_experts_per_token",
    "experts_per_token",
    "moe_intermediate_size",
    "moe_k",
    "ffn_config",
];

/// An unknown `model_type`: read as a Llama when it has the Llama keys and
/// no expert keys; an error otherwise.
fn fallback(
    cfg: &Cfg,
    model_type: Option<&str>,
    notes: &mut Vec<Text>,
) -> Result<(Family, ExpertKeys)> {
    let shown = model_type.map_or("(absent)".to_string(), |t| format!("\"{t}\""));
    let experts: Vec<&str> = EXPERT_KEYS
        .iter()
        .copied()
        .filter(|k| cfg.get(k).is_some_and(|v| v.as_u64() != Some(0)))
        .collect();
    if !experts.is_empty() {
        return Err(ImportError::Unsupported {
            key: "model_type".into(),
            reason: Text::new(
                format!(
                    "{shown} has mixture-of-experts keys ({}) that memwall cannot map to experts \
                     for this type; reading it as dense would undercount its weights, so \
                     describe it as a custom model instead",
                    experts.join(", ")
                ),
                format!(
                    "{shown} 含有混合专家的键（{}），memwall 无法为该类型映射专家；\
                     按稠密模型读取会严重低估权重，请改为自定义模型描述",
                    experts.join(", ")
                ),
            ),
        });
    }
    if !cfg.has_llama_keys() {
        return Err(match model_type {
            Some(t) => ImportError::UnsupportedModelType(t.to_string()),
            None => ImportError::MissingKey("model_type".into()),
        });
    }
    notes.push(Text::new(
        format!(
            "model_type {shown} is not one memwall knows; read as a Llama-style decoder \
             (SwiGLU, RMSNorm, rotary positions) because it has the Llama keys"
        ),
        format!(
            "model_type {shown} 不在 memwall 已知的类型中；因其具备 Llama 的键，\
             按 Llama 式解码器读取（SwiGLU、RMSNorm、旋转位置编码）"
        ),
    ));
    Ok((Family::Llama, ExpertKeys::None))
}

/// Typed access to the config object; `null` counts as absent throughout,
/// since Hugging Face writes `null` for "use the default".
struct Cfg<'a> {
    obj: &'a Map<String, Value>,
}

fn describe(v: &Value) -> Text {
    match v {
        Value::Null => Text::new("null", "null"),
        Value::Bool(b) => Text::new(format!("the boolean {b}"), format!("布尔值 {b}")),
        Value::Number(n) => Text::new(n.to_string(), n.to_string()),
        Value::String(s) => Text::new(format!("the string \"{s}\""), format!("字符串 \"{s}\"")),
        Value::Array(_) => Text::new("an array", "一个数组"),
        Value::Object(_) => Text::new("an object", "一个对象"),
    }
}

/// "expected …, got …" in both languages.
fn expected(what: (&str, &str), got: &Text) -> Text {
    Text::new(
        format!("expected {}, got {}", what.0, got.en),
        format!("应为{}，实际为{}", what.1, got.zh),
    )
}

impl Cfg<'_> {
    fn get(&self, key: &str) -> Option<&Value> {
        self.obj.get(key).filter(|v| !v.is_null())
    }

    fn invalid(key: &str, reason: Text) -> ImportError {
        ImportError::InvalidValue {
            key: key.to_string(),
            reason,
        }
    }

    fn to_u32(key: &str, v: &Value, allow_zero: bool) -> Result<u32> {
        let what = if allow_zero {
            ("a non-negative integer", "非负整数")
        } else {
            ("a positive integer", "正整数")
        };
        let n = match v {
            Value::Number(n) => n,
            other => return Err(Self::invalid(key, expected(what, &describe(other)))),
        };
        match n.as_u64() {
            Some(0) if !allow_zero => Err(Self::invalid(key, expected(what, &Text::new("0", "0")))),
            Some(u) => u32::try_from(u).map_err(|_| {
                Self::invalid(
                    key,
                    Text::new(
                        format!("{u} is too large (limit {})", u32::MAX),
                        format!("{u} 过大（上限 {}）", u32::MAX),
                    ),
                )
            }),
            None => Err(Self::invalid(key, expected(what, &describe(v)))),
        }
    }

    /// A required positive integer.
    fn u32(&self, key: &str) -> Result<u32> {
        match self.obj.get(key) {
            None => Err(ImportError::MissingKey(key.to_string())),
            Some(v) => Self::to_u32(key, v, false),
        }
    }

    /// An optional positive integer.
    fn u32_opt(&self, key: &str) -> Result<Option<u32>> {
        self.get(key)
            .map(|v| Self::to_u32(key, v, false))
            .transpose()
    }

    /// An optional integer that may be zero.
    fn u32_or_zero_opt(&self, key: &str) -> Result<Option<u32>> {
        self.get(key)
            .map(|v| Self::to_u32(key, v, true))
            .transpose()
    }

    /// An optional probability or other non-negative real.
    fn f64_opt(&self, key: &str) -> Result<Option<f64>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Number(n)) => match n.as_f64() {
                Some(x) if x >= 0.0 && x.is_finite() => Ok(Some(x)),
                _ => Err(Self::invalid(
                    key,
                    expected(
                        ("a non-negative number", "非负数"),
                        &Text::new(n.to_string(), n.to_string()),
                    ),
                )),
            },
            Some(other) => Err(Self::invalid(
                key,
                expected(("a number", "数值"), &describe(other)),
            )),
        }
    }

    fn bool_opt(&self, key: &str) -> Result<Option<bool>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(Self::invalid(
                key,
                expected(("true or false", " true 或 false"), &describe(other)),
            )),
        }
    }

    fn str_opt(&self, key: &str) -> Result<Option<&str>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(other) => Err(Self::invalid(
                key,
                expected(("a string", "字符串"), &describe(other)),
            )),
        }
    }

    fn has_llama_keys(&self) -> bool {
        [
            "hidden_size",
            "num_hidden_layers",
            "num_attention_heads",
            "intermediate_size",
            "vocab_size",
        ]
        .iter()
        .all(|k| self.get(k).is_some())
    }

    /// `tie_word_embeddings`, or the model class's default when absent.
    fn embeddings(&self, default_tied: bool, notes: &mut Vec<Text>) -> Result<Embeddings> {
        let tied = match self.bool_opt("tie_word_embeddings")? {
            Some(t) => t,
            None => {
                notes.push(Text::new(
                    format!(
                        "tie_word_embeddings absent: took this model class's default \
                         ({default_tied})"
                    ),
                    format!("缺少 tie_word_embeddings：取该模型类的默认值（{default_tied}）"),
                ));
                default_tied
            }
        };
        Ok(if tied {
            Embeddings::Tied
        } else {
            Embeddings::Untied
        })
    }

    /// Dropout is on if any of `keys` (with their class defaults) is > 0.
    fn dropout(&self, keys: &[(&str, f64)]) -> Result<Dropout> {
        let mut on = false;
        for &(key, default) in keys {
            on |= self.f64_opt(key)?.unwrap_or(default) > 0.0;
        }
        Ok(if on { Dropout::On } else { Dropout::Off })
    }
}

/// Number of KV heads and the per-head width, with the usual defaults, and
/// checks that the heads split evenly.
fn heads_and_dims(
    cfg: &Cfg,
    hidden: u32,
    heads: u32,
    heads_key: &str,
    notes: &mut Vec<Text>,
) -> Result<(u32, u32)> {
    // The heads against the hidden size first: a head count that does
    // not divide it is the error to name, not the KV heads beside it.
    let head_dim = match cfg.u32_opt("head_dim")? {
        Some(d) => d,
        None => {
            if hidden % heads != 0 {
                return Err(Cfg::invalid(
                    heads_key,
                    Text::new(
                        format!(
                            "{heads} heads do not divide hidden size {hidden}, and no head_dim \
                             is given"
                        ),
                        format!("{heads} 个头不能整除隐藏维度 {hidden}，且未给出 head_dim"),
                    ),
                ));
            }
            notes.push(Text::new(
                "head_dim derived as hidden / heads",
                "head_dim 由 hidden / heads 推出",
            ));
            hidden / heads
        }
    };
    let kv_heads = match cfg.u32_opt("num_key_value_heads")? {
        Some(k) => k,
        None => {
            notes.push(Text::new(
                "num_key_value_heads absent: multi-head attention assumed",
                "缺少 num_key_value_heads：按多头注意力（MHA）处理",
            ));
            heads
        }
    };
    if kv_heads > heads || heads % kv_heads != 0 {
        return Err(Cfg::invalid(
            "num_key_value_heads",
            Text::new(
                format!("{kv_heads} does not divide the {heads} attention heads"),
                format!("{kv_heads} 不能整除 {heads} 个注意力头"),
            ),
        ));
    }
    Ok((kv_heads, head_dim))
}

/// The feed-forward activation named by `key`, for a gated or plain MLP.
fn activation(cfg: &Cfg, key: &str, default: &str, gated: bool) -> Result<FfnActivation> {
    let name = cfg.str_opt(key)?.unwrap_or(default);
    let act = match (gated, name) {
        (true, "silu" | "swish") => FfnActivation::SwiGlu,
        (true, "gelu" | "gelu_new" | "gelu_pytorch_tanh" | "gelu_fast") => FfnActivation::GeGlu,
        (false, "gelu" | "gelu_new" | "gelu_pytorch_tanh" | "gelu_fast") => FfnActivation::Gelu,
        (false, "relu") => FfnActivation::Relu,
        _ => {
            return Err(ImportError::Unsupported {
                key: key.to_string(),
                reason: Text::new(
                    format!(
                        "activation \"{name}\" in a {} MLP",
                        if gated { "gated" } else { "two-matrix" }
                    ),
                    format!(
                        "{} MLP 中的激活函数 \"{name}\"",
                        if gated { "门控" } else { "两矩阵" }
                    ),
                ),
            })
        }
    };
    Ok(act)
}

/// The biases of a Llama-style decoder.
fn decoder_bias(cfg: &Cfg, family: Family, notes: &mut Vec<Text>) -> Result<Bias> {
    let bias = if family == Family::Qwen2 {
        notes.push(Text::new(
            "Qwen2 always has Q/K/V biases (not a config key)",
            "Qwen2 的 Q/K/V 投影总是带偏置（不是配置键）",
        ));
        Bias::QkvOnly
    } else if cfg.bool_opt("attention_bias")?.unwrap_or(false) {
        // In Llama-style code attention_bias puts a bias on Q, K, V and O; a
        // gated MLP is counted without biases, so `All` is exact.
        Bias::All
    } else {
        Bias::None
    };
    if cfg.bool_opt("mlp_bias")?.unwrap_or(false) {
        notes.push(Text::new(
            "mlp_bias is true: MLP biases are not counted (a small undercount)",
            "mlp_bias 为 true：未计入 MLP 偏置（略有低估）",
        ));
    }
    Ok(bias)
}

/// The sliding window and how many layers use it, where the model has
/// one. `layer_types` (transformers' per-layer list, "sliding_attention"
/// or "full_attention": gpt-oss, Gemma 2/3, Qwen 3) says which layers
/// when present; gpt-oss without it but with a window alternates, its
/// first layer windowed (`GptOssConfig`). Otherwise the family's keys apply to every layer.
fn sliding_window(
    cfg: &Cfg,
    family: Family,
    layers: u32,
    notes: &mut Vec<Text>,
) -> Result<(Option<u32>, Option<u32>)> {
    let windowed = match cfg.get("layer_types") {
        Some(v) => Some(windowed_layers(v, layers, notes)?),
        None if cfg.str_opt("model_type")? == Some("gpt_oss")
            && cfg.u32_opt("sliding_window")?.is_some() =>
        {
            Some(layers.div_ceil(2))
        }
        None => None,
    };
    match windowed {
        Some(0) => Ok((None, None)),
        Some(n) => {
            let w = cfg.u32_opt("sliding_window")?.ok_or_else(|| {
                Cfg::invalid(
                    "sliding_window",
                    Text::new(
                        format!("{n} layers are sliding_attention but no window is given"),
                        format!("{n} 层为 sliding_attention，但未给出窗口大小"),
                    ),
                )
            })?;
            Ok((Some(w), (n < layers).then_some(n)))
        }
        None => Ok((family_window(cfg, family, notes)?, None)),
    }
}

/// Layers `layer_types` marks "sliding_attention"; the list must name
/// every layer.
fn windowed_layers(v: &Value, layers: u32, notes: &mut Vec<Text>) -> Result<u32> {
    let Value::Array(kinds) = v else {
        return Err(Cfg::invalid(
            "layer_types",
            expected(("a list of layer kinds", "层类型列表"), &describe(v)),
        ));
    };
    if kinds.len() != layers as usize {
        return Err(Cfg::invalid(
            "layer_types",
            Text::new(
                format!(
                    "lists {} layers, num_hidden_layers is {layers}",
                    kinds.len()
                ),
                format!("列出 {} 层，而 num_hidden_layers 为 {layers}", kinds.len()),
            ),
        ));
    }
    let mut windowed = 0;
    for k in kinds {
        match k.as_str() {
            Some("sliding_attention") => windowed += 1,
            Some("full_attention") => {}
            _ => {
                notes.push(Text::new(
                    format!("layer_types has {}: read as full attention", describe(k).en),
                    format!("layer_types 含 {}：按全注意力读取", describe(k).zh),
                ));
            }
        }
    }
    Ok(windowed)
}

/// The sliding window a family's keys give every layer.
fn family_window(cfg: &Cfg, family: Family, notes: &mut Vec<Text>) -> Result<Option<u32>> {
    Ok(match family {
        Family::Qwen2 | Family::Qwen3 => {
            if cfg.bool_opt("use_sliding_window")?.unwrap_or(false) {
                notes.push(Text::new(
                    "use_sliding_window is true: the window is applied to every layer, \
                     ignoring max_window_layers",
                    "use_sliding_window 为 true：滑动窗口用于每一层，忽略 max_window_layers",
                ));
                cfg.u32_opt("sliding_window")?
            } else {
                None
            }
        }
        Family::Llama | Family::Deepseek => None,
        _ => cfg.u32_opt("sliding_window")?,
    })
}

/// KV heads, head width, attention kind and experts of a decoder.
struct DecoderAttention {
    kv_heads: u32,
    head_dim: u32,
    attention: AttentionKind,
    moe: Option<MoeSpec>,
}

/// DeepSeek's multi-head latent attention and its experts.
fn mla_attention(cfg: &Cfg, heads: u32, notes: &mut Vec<Text>) -> Result<DecoderAttention> {
    let q_lora_rank = match cfg.u32_opt("q_lora_rank")? {
        Some(r) => r,
        None => {
            notes.push(Text::new(
                "q_lora_rank is null: queries are not compressed",
                "q_lora_rank 为 null：查询不做压缩",
            ));
            0
        }
    };
    let mla = MlaSpec {
        q_lora_rank,
        kv_lora_rank: cfg.u32("kv_lora_rank")?,
        qk_nope_head_dim: cfg.u32("qk_nope_head_dim")?,
        qk_rope_head_dim: cfg.u32("qk_rope_head_dim")?,
        v_head_dim: cfg.u32("v_head_dim")?,
    };
    notes.push(Text::new(
        "multi-head latent attention: head_dim recorded as qk_nope + qk_rope; \
         num_nextn_predict_layers (MTP) is not modelled",
        "多头潜在注意力（MLA）：head_dim 记为 qk_nope + qk_rope；\
         未建模 num_nextn_predict_layers（MTP）",
    ));
    Ok(DecoderAttention {
        // MLA ignores kv_heads for its shapes; keep what the file says.
        kv_heads: cfg.u32_opt("num_key_value_heads")?.unwrap_or(heads),
        head_dim: mla.qk_nope_head_dim.saturating_add(mla.qk_rope_head_dim),
        attention: AttentionKind::Mla(mla),
        moe: deepseek_moe(cfg, notes)?,
    })
}

/// Standard multi-head (or grouped-query) attention and the experts named
/// by `experts`.
fn standard_attention(
    cfg: &Cfg,
    (hidden, heads, ffn): (u32, u32, u32),
    experts: ExpertKeys,
    notes: &mut Vec<Text>,
) -> Result<DecoderAttention> {
    let (kv_heads, head_dim) = heads_and_dims(cfg, hidden, heads, "num_attention_heads", notes)?;
    let moe = match experts {
        ExpertKeys::None => None,
        ExpertKeys::Mixtral => Some(experts_of_ffn(cfg, "num_local_experts", ffn)?),
        ExpertKeys::Olmoe => Some(experts_of_ffn(cfg, "num_experts", ffn)?),
        ExpertKeys::Qwen => Some(qwen_moe(cfg, notes)?),
        ExpertKeys::Deepseek => deepseek_moe(cfg, notes)?,
    };
    Ok(DecoderAttention {
        kv_heads,
        head_dim,
        attention: AttentionKind::Standard,
        moe,
    })
}

/// Refuses more experts per token than there are experts.
fn check_top_k(moe: Option<MoeSpec>) -> Result<()> {
    if let Some(m) = moe {
        if m.top_k > m.experts {
            return Err(Cfg::invalid(
                "num_experts_per_tok",
                Text::new(
                    format!("{} exceeds the {} experts", m.top_k, m.experts),
                    format!("{} 超过专家总数 {}", m.top_k, m.experts),
                ),
            ));
        }
    }
    Ok(())
}

/// Llama and its relatives: gated MLP, RMSNorm, rotary positions.
fn decoder(
    cfg: &Cfg,
    family: Family,
    experts: ExpertKeys,
    notes: &mut Vec<Text>,
) -> Result<ModelSpec> {
    let layers = cfg.u32("num_hidden_layers")?;
    let hidden = cfg.u32("hidden_size")?;
    let heads = cfg.u32("num_attention_heads")?;
    let ffn = cfg.u32("intermediate_size")?;
    let vocab = cfg.u32("vocab_size")?;
    let max_context = cfg.u32("max_position_embeddings")?;
    let activation = activation(cfg, "hidden_act", "silu", true)?;
    // Every one of these classes defaults to an untied output layer.
    let embeddings = cfg.embeddings(false, notes)?;
    let dropout = cfg.dropout(&[("attention_dropout", 0.0), ("hidden_dropout", 0.0)])?;
    let bias = decoder_bias(cfg, family, notes)?;
    let (sliding_window, windowed_layers) = sliding_window(cfg, family, layers, notes)?;
    let a = if family == Family::Deepseek {
        mla_attention(cfg, heads, notes)?
    } else {
        standard_attention(cfg, (hidden, heads, ffn), experts, notes)?
    };
    check_top_k(a.moe)?;

    Ok(ModelSpec {
        layers,
        hidden,
        heads,
        kv_heads: a.kv_heads,
        head_dim: a.head_dim,
        ffn,
        activation,
        vocab,
        embeddings,
        positions: Positions::Rotary,
        norm: Norm::RmsNorm,
        bias,
        dropout,
        attention: a.attention,
        sliding_window,
        windowed_layers,
        moe: a.moe,
        token_types: 0,
        max_context,
    })
}

/// DeepSeek's MoE keys; `None` for a config without routed experts.
fn deepseek_moe(cfg: &Cfg, notes: &mut Vec<Text>) -> Result<Option<MoeSpec>> {
    let Some(experts) = cfg.u32_opt("n_routed_experts")? else {
        notes.push(Text::new(
            "n_routed_experts is absent: every layer is dense",
            "缺少 n_routed_experts：每一层都是稠密层",
        ));
        return Ok(None);
    };
    if let Some(freq) = cfg.u32_opt("moe_layer_freq")? {
        if freq != 1 {
            return Err(ImportError::Unsupported {
                key: "moe_layer_freq".into(),
                reason: Text::new(
                    format!("{freq}: only every layer after the dense ones can be MoE"),
                    format!("{freq}：只支持稠密层之后的每一层都是 MoE"),
                ),
            });
        }
    }
    let expert_ffn = cfg.u32("moe_intermediate_size")?;
    let shared = match cfg.obj.get("n_shared_experts") {
        None => return Err(ImportError::MissingKey("n_shared_experts".into())),
        Some(_) => cfg.u32_or_zero_opt("n_shared_experts")?.unwrap_or(0),
    };
    notes.push(Text::new(
        "router score-correction bias (per expert) is not counted",
        "未计入路由器的打分校正偏置（每个专家一个）",
    ));
    Ok(Some(MoeSpec {
        experts,
        top_k: cfg.u32("num_experts_per_tok")?,
        expert_ffn,
        shared_ffn: shared.saturating_mul(expert_ffn),
        dense_layers: cfg.u32_or_zero_opt("first_k_dense_replace")?.unwrap_or(0),
    }))
}

/// Experts that are each an `intermediate_size` MLP, every layer MoE
/// (Mixtral's and OLMoE's key sets).
fn experts_of_ffn(cfg: &Cfg, experts_key: &str, ffn: u32) -> Result<MoeSpec> {
    Ok(MoeSpec {
        experts: cfg.u32(experts_key)?,
        top_k: cfg.u32("num_experts_per_tok")?,
        expert_ffn: ffn,
        shared_ffn: 0,
        dense_layers: 0,
    })
}

/// Qwen2-MoE and Qwen3-MoE, when every layer is MoE (`decoder_sparse_step` 1, no
/// `mlp_only_layers`), which is what the released checkpoints do.
fn qwen_moe(cfg: &Cfg, notes: &mut Vec<Text>) -> Result<MoeSpec> {
    if let Some(step) = cfg.u32_opt("decoder_sparse_step")? {
        if step != 1 {
            return Err(ImportError::Unsupported {
                key: "decoder_sparse_step".into(),
                reason: Text::new(
                    format!("{step}: interleaved dense and MoE layers"),
                    format!("{step}：稠密层与 MoE 层交错"),
                ),
            });
        }
    }
    match cfg.get("mlp_only_layers") {
        None => {}
        Some(Value::Array(a)) if a.is_empty() => {}
        Some(_) => {
            return Err(ImportError::Unsupported {
                key: "mlp_only_layers".into(),
                reason: Text::new(
                    "dense layers placed among MoE layers",
                    "稠密层夹在 MoE 层之间",
                ),
            })
        }
    }
    let shared_ffn = cfg
        .u32_or_zero_opt("shared_expert_intermediate_size")?
        .unwrap_or(0);
    if shared_ffn > 0 {
        notes.push(Text::new(
            "the shared expert's sigmoid gate (h per layer) is not counted",
            "未计入共享专家的 sigmoid 门控（每层 h 个参数）",
        ));
    }
    Ok(MoeSpec {
        experts: cfg.u32("num_experts")?,
        top_k: cfg.u32("num_experts_per_tok")?,
        expert_ffn: cfg.u32("moe_intermediate_size")?,
        shared_ffn,
        dense_layers: 0,
    })
}

/// GPT-2: its own key names, learned positions, LayerNorm, biases everywhere.
fn gpt2(cfg: &Cfg, notes: &mut Vec<Text>) -> Result<ModelSpec> {
    let layers = cfg.u32("n_layer")?;
    let hidden = cfg.u32("n_embd")?;
    let heads = cfg.u32("n_head")?;
    let positions = cfg.u32("n_positions")?;
    let vocab = cfg.u32("vocab_size")?;
    if hidden % heads != 0 {
        return Err(Cfg::invalid(
            "n_head",
            Text::new(
                format!("{heads} heads do not divide n_embd {hidden}"),
                format!("{heads} 个头不能整除 n_embd {hidden}"),
            ),
        ));
    }
    let ffn = match cfg.u32_opt("n_inner")? {
        Some(f) => f,
        None => {
            notes.push(Text::new(
                "n_inner is null: FFN width is 4 x n_embd",
                "n_inner 为 null：FFN 宽度取 4 x n_embd",
            ));
            hidden.saturating_mul(4)
        }
    };
    Ok(ModelSpec {
        layers,
        hidden,
        heads,
        kv_heads: heads,
        head_dim: hidden / heads,
        ffn,
        activation: activation(cfg, "activation_function", "gelu_new", false)?,
        vocab,
        embeddings: cfg.embeddings(true, notes)?,
        positions: Positions::Learned {
            max_positions: positions,
        },
        norm: Norm::LayerNorm,
        bias: Bias::All,
        dropout: cfg.dropout(&[
            ("resid_pdrop", 0.1),
            ("embd_pdrop", 0.1),
            ("attn_pdrop", 0.1),
        ])?,
        attention: AttentionKind::Standard,
        sliding_window: None,
        windowed_layers: None,
        moe: None,
        token_types: 0,
        max_context: positions,
    })
}

/// BERT: the encoder, without its pooler or MLM head.
fn bert(cfg: &Cfg, notes: &mut Vec<Text>) -> Result<ModelSpec> {
    let layers = cfg.u32("num_hidden_layers")?;
    let hidden = cfg.u32("hidden_size")?;
    let heads = cfg.u32("num_attention_heads")?;
    let ffn = cfg.u32("intermediate_size")?;
    let vocab = cfg.u32("vocab_size")?;
    let max_positions = cfg.u32_opt("max_position_embeddings")?.unwrap_or(512);
    let token_types = cfg.u32_or_zero_opt("type_vocab_size")?.unwrap_or(2);
    if let Some(kind) = cfg.str_opt("position_embedding_type")? {
        if kind != "absolute" {
            return Err(ImportError::Unsupported {
                key: "position_embedding_type".into(),
                reason: Text::new(
                    format!("\"{kind}\" (only absolute positions are modelled)"),
                    format!("\"{kind}\"（只建模绝对位置编码）"),
                ),
            });
        }
    }
    if hidden % heads != 0 {
        return Err(Cfg::invalid(
            "num_attention_heads",
            Text::new(
                format!("{heads} heads do not divide hidden size {hidden}"),
                format!("{heads} 个头不能整除隐藏维度 {hidden}"),
            ),
        ));
    }
    notes.push(Text::new(
        "the pooler and the MLM head transform are not modelled; the embedding \
         LayerNorm is counted as the final norm (same size)",
        "未建模 pooler 和 MLM 头的变换层；嵌入层的 LayerNorm 按最终归一化层计入（大小相同）",
    ));
    Ok(ModelSpec {
        layers,
        hidden,
        heads,
        kv_heads: heads,
        head_dim: hidden / heads,
        ffn,
        activation: activation(cfg, "hidden_act", "gelu", false)?,
        vocab,
        embeddings: cfg.embeddings(true, notes)?,
        positions: Positions::Learned { max_positions },
        norm: Norm::LayerNorm,
        bias: Bias::All,
        dropout: cfg.dropout(&[
            ("hidden_dropout_prob", 0.1),
            ("attention_probs_dropout_prob", 0.1),
        ])?,
        attention: AttentionKind::Standard,
        sliding_window: None,
        windowed_layers: None,
        moe: None,
        token_types,
        max_context: max_positions,
    })
}

/// OPT: GPT-like, ReLU by default, position table offset by two rows.
fn opt(cfg: &Cfg, notes: &mut Vec<Text>) -> Result<ModelSpec> {
    let layers = cfg.u32("num_hidden_layers")?;
    let hidden = cfg.u32("hidden_size")?;
    let heads = cfg.u32("num_attention_heads")?;
    let ffn = cfg.u32("ffn_dim")?;
    let vocab = cfg.u32("vocab_size")?;
    let max_context = cfg.u32("max_position_embeddings")?;
    if let Some(proj) = cfg.u32_opt("word_embed_proj_dim")? {
        if proj != hidden {
            return Err(ImportError::Unsupported {
                key: "word_embed_proj_dim".into(),
                reason: Text::new(
                    format!(
                        "{proj} differs from hidden_size {hidden} (the embedding projections are \
                         not modelled)"
                    ),
                    format!("{proj} 与 hidden_size {hidden} 不同（未建模嵌入投影）"),
                ),
            });
        }
    }
    if hidden % heads != 0 {
        return Err(Cfg::invalid(
            "num_attention_heads",
            Text::new(
                format!("{heads} heads do not divide hidden size {hidden}"),
                format!("{heads} 个头不能整除隐藏维度 {hidden}"),
            ),
        ));
    }
    let bias = if cfg.bool_opt("enable_bias")?.unwrap_or(true) {
        Bias::All
    } else {
        Bias::None
    };
    notes.push(Text::new(
        "OPT's learned position table has 2 extra rows (offset 2)",
        "OPT 的可学习位置表多 2 行（偏移量 2）",
    ));
    Ok(ModelSpec {
        layers,
        hidden,
        heads,
        kv_heads: heads,
        head_dim: hidden / heads,
        ffn,
        activation: activation(cfg, "activation_function", "relu", false)?,
        vocab,
        embeddings: cfg.embeddings(true, notes)?,
        positions: Positions::Learned {
            max_positions: max_context.saturating_add(2),
        },
        norm: Norm::LayerNorm,
        bias,
        dropout: cfg.dropout(&[("dropout", 0.1), ("attention_dropout", 0.0)])?,
        attention: AttentionKind::Standard,
        sliding_window: None,
        windowed_layers: None,
        moe: None,
        token_types: 0,
        max_context,
    })
}

#[cfg(test)]
// Tests fail by panicking; the workspace lints against it only for library code.
#[allow(clippy::panic, clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::catalog::{model, ModelId};

    fn import(json: &str) -> ImportedModel {
        match import_hf_config(json) {
            Ok(m) => m,
            Err(e) => panic!("import failed: {e}"),
        }
    }

    fn error(json: &str) -> ImportError {
        match import_hf_config(json) {
            Ok(m) => panic!("expected an error, imported {:?}", m.spec),
            Err(e) => e,
        }
    }

    // The configs below are the shape-relevant keys of each released
    // config.json, with the values those files have.

    const LLAMA31_8B: &str = r#"{
        "_name_or_path": "meta-llama/Llama-3.1-8B",
        "architectures": ["LlamaForCausalLM"],
        "attention_bias": false,
        "attention_dropout": 0.0,
        "hidden_act": "silu",
        "hidden_size": 4096,
        "intermediate_size": 14336,
        "max_position_embeddings": 131072,
        "mlp_bias": false,
        "model_type": "llama",
        "num_attention_heads": 32,
        "num_hidden_layers": 32,
        "num_key_value_heads": 8,
        "rms_norm_eps": 1e-05,
        "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                         "original_max_position_embeddings": 8192, "rope_type": "llama3"},
        "rope_theta": 500000.0,
        "tie_word_embeddings": false,
        "torch_dtype": "bfloat16",
        "vocab_size": 128256
    }"#;

    const MIXTRAL_8X7B: &str = r#"{
        "architectures": ["MixtralForCausalLM"],
        "attention_dropout": 0.0,
        "hidden_act": "silu",
        "hidden_size": 4096,
        "intermediate_size": 14336,
        "max_position_embeddings": 32768,
        "model_type": "mixtral",
        "num_attention_heads": 32,
        "num_experts_per_tok": 2,
        "num_hidden_layers": 32,
        "num_key_value_heads": 8,
        "num_local_experts": 8,
        "rms_norm_eps": 1e-05,
        "rope_theta": 1000000.0,
        "sliding_window": null,
        "tie_word_embeddings": false,
        "vocab_size": 32000
    }"#;

    const QWEN25_7B: &str = r#"{
        "_name_or_path": "Qwen/Qwen2.5-7B-Instruct",
        "attention_dropout": 0.0,
        "hidden_act": "silu",
        "hidden_size": 3584,
        "intermediate_size": 18944,
        "max_position_embeddings": 32768,
        "max_window_layers": 28,
        "model_type": "qwen2",
        "num_attention_heads": 28,
        "num_hidden_layers": 28,
        "num_key_value_heads": 4,
        "rms_norm_eps": 1e-06,
        "rope_theta": 1000000.0,
        "sliding_window": 131072,
        "tie_word_embeddings": false,
        "use_sliding_window": false,
        "vocab_size": 152064
    }"#;

    const GPT2_XL: &str = r#"{
        "activation_function": "gelu_new",
        "architectures": ["GPT2LMHeadModel"],
        "attn_pdrop": 0.1,
        "embd_pdrop": 0.1,
        "layer_norm_epsilon": 1e-05,
        "model_type": "gpt2",
        "n_ctx": 1024,
        "n_embd": 1600,
        "n_head": 25,
        "n_layer": 48,
        "n_positions": 1024,
        "resid_pdrop": 0.1,
        "vocab_size": 50257
    }"#;

    const BERT_LARGE: &str = r#"{
        "architectures": ["BertForMaskedLM"],
        "attention_probs_dropout_prob": 0.1,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "hidden_size": 1024,
        "initializer_range": 0.02,
        "intermediate_size": 4096,
        "layer_norm_eps": 1e-12,
        "max_position_embeddings": 512,
        "model_type": "bert",
        "num_attention_heads": 16,
        "num_hidden_layers": 24,
        "pad_token_id": 0,
        "type_vocab_size": 2,
        "vocab_size": 30522
    }"#;

    const OPT_13B: &str = r#"{
        "_name_or_path": "facebook/opt-13b",
        "activation_dropout": 0.0,
        "activation_function": "relu",
        "attention_dropout": 0.0,
        "do_layer_norm_before": true,
        "dropout": 0.1,
        "ffn_dim": 20480,
        "hidden_size": 5120,
        "max_position_embeddings": 2048,
        "model_type": "opt",
        "num_attention_heads": 40,
        "num_hidden_layers": 40,
        "vocab_size": 50272,
        "word_embed_proj_dim": 5120
    }"#;

    const DEEPSEEK_V3: &str = r#"{
        "architectures": ["DeepseekV3ForCausalLM"],
        "attention_bias": false,
        "attention_dropout": 0.0,
        "first_k_dense_replace": 3,
        "hidden_act": "silu",
        "hidden_size": 7168,
        "intermediate_size": 18432,
        "kv_lora_rank": 512,
        "max_position_embeddings": 163840,
        "model_type": "deepseek_v3",
        "moe_intermediate_size": 2048,
        "moe_layer_freq": 1,
        "n_group": 8,
        "n_routed_experts": 256,
        "n_shared_experts": 1,
        "norm_topk_prob": true,
        "num_attention_heads": 128,
        "num_experts_per_tok": 8,
        "num_hidden_layers": 61,
        "num_key_value_heads": 128,
        "num_nextn_predict_layers": 1,
        "q_lora_rank": 1536,
        "qk_nope_head_dim": 128,
        "qk_rope_head_dim": 64,
        "rms_norm_eps": 1e-06,
        "tie_word_embeddings": false,
        "topk_group": 4,
        "v_head_dim": 128,
        "vocab_size": 129280
    }"#;

    #[test]
    fn released_configs_match_the_catalog() {
        let cases = [
            (LLAMA31_8B, ModelId::Llama31_8b),
            (MIXTRAL_8X7B, ModelId::Mixtral8x7b),
            (QWEN25_7B, ModelId::Qwen25_7b),
            (GPT2_XL, ModelId::Gpt2Xl),
            (BERT_LARGE, ModelId::BertLarge),
            (OPT_13B, ModelId::Opt13b),
            (DEEPSEEK_V3, ModelId::DeepseekV3),
        ];
        for (json, id) in cases {
            let imported = import(json);
            assert_eq!(imported.spec, model(id).spec, "{id:?}");
        }
        // gpt-oss: the 120b's keys, and the 20b's 24 layers of 32 experts.
        let oss = gpt_oss_120b("");
        assert_eq!(import(&oss).spec, model(ModelId::GptOss120b).spec);
        let small = oss
            .replace("\"num_hidden_layers\": 36", "\"num_hidden_layers\": 24")
            .replace("\"num_local_experts\": 128", "\"num_local_experts\": 32");
        assert_eq!(import(&small).spec, model(ModelId::GptOss20b).spec);
    }

    /// Qwen3-30B-A3B's config.json (Qwen/Qwen3-30B-A3B on the Hugging Face
    /// Hub). Its model card: "30.5B in total and 3.3B activated", 29.9B
    /// non-embedding.
    const QWEN3_30B_A3B: &str = r#"{
        "architectures": ["Qwen3MoeForCausalLM"],
        "attention_bias": false,
        "attention_dropout": 0.0,
        "decoder_sparse_step": 1,
        "head_dim": 128,
        "hidden_act": "silu",
        "hidden_size": 2048,
        "intermediate_size": 6144,
        "max_position_embeddings": 40960,
        "max_window_layers": 48,
        "mlp_only_layers": [],
        "model_type": "qwen3_moe",
        "moe_intermediate_size": 768,
        "norm_topk_prob": true,
        "num_attention_heads": 32,
        "num_experts": 128,
        "num_experts_per_tok": 8,
        "num_hidden_layers": 48,
        "num_key_value_heads": 4,
        "rms_norm_eps": 1e-06,
        "rope_theta": 1000000.0,
        "sliding_window": null,
        "tie_word_embeddings": false,
        "use_sliding_window": false,
        "vocab_size": 151936
    }"#;

    /// OLMoE-1B-7B-0924's config.json (allenai/OLMoE-1B-7B-0924); Muennighoff
    /// et al., "OLMoE", arXiv:2409.02060: 6.9B total, 1.3B active.
    const OLMOE_1B_7B: &str = r#"{
        "hidden_act": "silu",
        "hidden_size": 2048,
        "intermediate_size": 1024,
        "max_position_embeddings": 4096,
        "model_type": "olmoe",
        "num_attention_heads": 16,
        "num_experts": 64,
        "num_experts_per_tok": 8,
        "num_hidden_layers": 16,
        "num_key_value_heads": 16,
        "tie_word_embeddings": false,
        "vocab_size": 50304
    }"#;

    #[test]
    fn qwen3_moe_reads_its_experts() {
        let m = import(QWEN3_30B_A3B);
        let moe = m.spec.moe.expect("experts");
        assert_eq!((moe.experts, moe.top_k, moe.expert_ffn), (128, 8, 768));
        assert_eq!((moe.shared_ffn, moe.dense_layers), (0, 0));
        assert_eq!(m.spec.head_dim, 128);
        assert_eq!(m.spec.bias, Bias::None);
        let total = m.spec.params().total() / 1e9;
        assert!(
            (total - 30.5).abs() < 0.15,
            "{total} B, the card says 30.5 B"
        );
        assert!(
            !m.notes
                .iter()
                .any(|n| n.en.contains("not one memwall knows")),
            "{:?}",
            m.notes
        );
    }

    #[test]
    fn olmoe_reads_its_experts() {
        let m = import(OLMOE_1B_7B);
        let moe = m.spec.moe.expect("experts");
        assert_eq!((moe.experts, moe.top_k, moe.expert_ffn), (64, 8, 1024));
        let total = m.spec.params().total() / 1e9;
        assert!((total - 6.9).abs() < 0.1, "{total} B, the paper says 6.9 B");
    }

    #[test]
    fn an_unknown_type_with_expert_keys_is_refused_not_read_as_dense() {
        let e = error(&QWEN3_30B_A3B.replace("\"qwen3_moe\"", "\"future_moe\""));
        let text = e.to_string();
        assert!(text.contains("future_moe"), "{text}");
        assert!(text.contains("num_experts"), "{text}");
        assert!(text.contains("mixture-of-experts"), "{text}");
        assert!(!text.contains('\n'));
        // A dense model of an unknown type still reads as a Llama.
        let dense = import(&LLAMA31_8B.replace("\"llama\"", "\"future_dense\""));
        assert_eq!(dense.spec.moe, None);
    }

    #[test]
    fn every_named_moe_type_reads_experts() {
        // The same Mixtral-keyed file under each type that uses those keys.
        for t in ["mixtral", "phimoe", "granitemoe", "gpt_oss"] {
            let m = import(&MIXTRAL_8X7B.replace("\"mixtral\"", &format!("\"{t}\"")));
            assert_eq!(m.spec.moe.map(|x| x.experts), Some(8), "{t}");
        }
        for t in ["qwen2_moe", "qwen3_moe"] {
            let m = import(&QWEN3_30B_A3B.replace("\"qwen3_moe\"", &format!("\"{t}\"")));
            assert_eq!(m.spec.moe.map(|x| x.experts), Some(128), "{t}");
        }
        for t in ["deepseek_v2", "deepseek_v3", "kimi_k2"] {
            let m = import(&DEEPSEEK_V3.replace("\"deepseek_v3\"", &format!("\"{t}\"")));
            assert_eq!(m.spec.moe.map(|x| x.experts), Some(256), "{t}");
        }
    }

    #[test]
    fn names_come_from_name_or_path_else_model_type() {
        assert_eq!(import(LLAMA31_8B).name, "meta-llama/Llama-3.1-8B");
        assert_eq!(import(MIXTRAL_8X7B).name, "mixtral");
    }

    #[test]
    fn assumptions_are_reported() {
        let notes = import(GPT2_XL).notes;
        assert!(notes.iter().any(|n| n.en.contains("n_inner")), "{notes:?}");
        assert!(notes.iter().any(|n| n.en.contains("tie_word_embeddings")));
        let notes = import(MIXTRAL_8X7B).notes;
        assert!(notes.iter().any(|n| n.en.contains("head_dim derived")));
    }

    #[test]
    fn explicit_null_n_inner_means_four_h() {
        let json = GPT2_XL.replace("\"n_ctx\": 1024,", "\"n_inner\": null,");
        assert_eq!(import(&json).spec.ffn, 6400);
    }

    /// openai/gpt-oss-120b's `config.json` (Hugging Face Hub), the keys
    /// memwall reads: 36 layers alternating a 128-token window with full
    /// attention.
    fn gpt_oss_120b(layer_types: &str) -> String {
        format!(
            r#"{{"architectures": ["GptOssForCausalLM"], "attention_bias": true,
            "experts_per_token": 4, "head_dim": 64, "hidden_act": "silu",
            "hidden_size": 2880, "intermediate_size": 2880, {layer_types}
            "max_position_embeddings": 131072, "model_type": "gpt_oss",
            "num_attention_heads": 64, "num_experts_per_tok": 4,
            "num_hidden_layers": 36, "num_key_value_heads": 8,
            "num_local_experts": 128, "sliding_window": 128,
            "tie_word_embeddings": false, "vocab_size": 201088}}"#
        )
    }

    #[test]
    fn a_quantized_checkpoint_ships_the_formats_its_method_names() {
        let with = |q: &str| {
            let cfg = format!(
                r#"{{"model_type": "llama", "hidden_size": 4096, "intermediate_size": 11008,
                "num_attention_heads": 32, "num_hidden_layers": 32, "vocab_size": 32000,
                "max_position_embeddings": 4096, "quantization_config": {q}}}"#
            );
            import(&cfg)
        };
        let w = |m: ImportedModel| m.shipped.map(|s| (s.weights, s.experts));
        assert_eq!(
            w(with(
                r#"{"quant_method": "gptq", "bits": 4, "group_size": 64}"#
            )),
            Some((Precision::Int4 { group_size: 64 }, None))
        );
        assert_eq!(
            w(with(r#"{"quant_method": "awq", "bits": 4}"#)),
            Some((Precision::Int4 { group_size: 128 }, None))
        );
        assert_eq!(
            w(with(
                r#"{"quant_method": "gptq", "bits": 8, "group_size": -1}"#
            )),
            Some((Precision::Int8, None))
        );
        assert_eq!(
            w(with(
                r#"{"quant_method": "fp8", "weight_block_size": [128, 128]}"#
            )),
            Some((Precision::Fp8, None))
        );
        // On a dense model MXFP4 is every linear layer.
        assert_eq!(
            w(with(r#"{"quant_method": "mxfp4"}"#)),
            Some((Precision::Mxfp4, None))
        );
        assert_eq!(
            w(with(
                r#"{"quant_method": "modelopt", "quant_algo": "NVFP4", "exclude_modules": ["lm_head"]}"#
            )),
            Some((Precision::Nvfp4, None))
        );
        assert_eq!(
            w(with(r#"{"quant_method": "modelopt", "quant_algo": "FP8"}"#)),
            Some((Precision::Fp8, None))
        );
        // An MoE whose attention stays unquantized: FP4 experts alone.
        let moe = gpt_oss_120b(
            r#""quantization_config": {"quant_method": "modelopt", "quant_algo": "NVFP4",
            "exclude_modules": ["lm_head", "model.layers.*.self_attn*"]},"#,
        );
        assert_eq!(
            import(&moe).shipped,
            Some(ShippedWeights {
                weights: Precision::Bf16,
                experts: Some(Precision::Nvfp4)
            })
        );
        // A method memwall does not read is named, and nothing is set.
        let m = with(r#"{"quant_method": "bitsandbytes", "load_in_4bit": true}"#);
        assert!(m.shipped.is_none());
        assert!(
            m.notes.iter().any(|n| n.en.contains("bitsandbytes")),
            "{:?}",
            m.notes
        );
    }

    #[test]
    fn gpt_oss_windows_the_layers_its_layer_types_name() {
        let alternating = (0..36)
            .map(|i| {
                if i % 2 == 0 {
                    "\"sliding_attention\""
                } else {
                    "\"full_attention\""
                }
            })
            .collect::<Vec<_>>()
            .join(", ");
        let listed = import(&gpt_oss_120b(&format!("\"layer_types\": [{alternating}],")));
        assert_eq!(listed.spec.sliding_window, Some(128));
        assert_eq!(listed.spec.windowed_layers, Some(18));
        // Without the list, gpt-oss's own default: the same alternation.
        let default = import(&gpt_oss_120b(""));
        assert_eq!(default.spec.windowed_layers, Some(18));
        // Every layer full: no window at all.
        let full = vec!["\"full_attention\""; 36].join(", ");
        let none = import(&gpt_oss_120b(&format!("\"layer_types\": [{full}],")));
        assert_eq!(
            (none.spec.sliding_window, none.spec.windowed_layers),
            (None, None)
        );
        // The shipped quantization is read and noted: MXFP4 experts,
        // everything else BF16, as the catalog entry says.
        let q = gpt_oss_120b("\"quantization_config\": {\"quant_method\": \"mxfp4\"},");
        let m = import(&q);
        assert!(
            m.notes.iter().any(|n| n.en.contains("mxfp4")),
            "{:?}",
            m.notes
        );
        assert_eq!(
            m.shipped,
            Some(ShippedWeights {
                weights: Precision::Bf16,
                experts: Some(Precision::Mxfp4)
            })
        );
        assert_eq!(m.shipped, model(ModelId::GptOss120b).shipped);
        // A list that does not name every layer is refused by name.
        let short = error(&gpt_oss_120b("\"layer_types\": [\"full_attention\"],"));
        assert!(short.to_string().contains("layer_types"), "{short}");
    }

    #[test]
    fn mistral_keeps_its_sliding_window() {
        let json = MIXTRAL_8X7B
            .replace("\"mixtral\"", "\"mistral\"")
            .replace("\"sliding_window\": null", "\"sliding_window\": 4096")
            .replace("\"num_local_experts\": 8,", "");
        let spec = import(&json).spec;
        assert_eq!(spec.sliding_window, Some(4096));
        assert_eq!(spec.moe, None);
    }

    /// Every note an import writes reads in both languages: the Chinese
    /// is written out (CJK characters), not the English again.
    #[test]
    fn every_note_is_in_both_languages() {
        let unknown = LLAMA31_8B.replace("\"llama\"", "\"granite\"");
        let quantized = gpt_oss_120b("").replace(
            "\"vocab_size\"",
            r#""quantization_config": {"quant_method": "mxfp4"}, "vocab_size""#,
        );
        let configs = [
            LLAMA31_8B,
            MIXTRAL_8X7B,
            QWEN25_7B,
            GPT2_XL,
            BERT_LARGE,
            OPT_13B,
            DEEPSEEK_V3,
            QWEN3_30B_A3B,
            OLMOE_1B_7B,
            &unknown,
            &quantized,
        ];
        let mut seen = 0;
        for c in configs {
            for n in import(c).notes {
                assert!(!n.en.is_empty(), "{n:?}");
                assert!(
                    n.zh.chars()
                        .any(|ch| ('\u{4e00}'..='\u{9fff}').contains(&ch)),
                    "{n:?}"
                );
                seen += 1;
            }
        }
        assert!(seen >= 10, "{seen} notes");
    }

    /// Every refusal reads in both languages too, the field named in each.
    #[test]
    fn every_error_is_in_both_languages() {
        let heads = LLAMA31_8B.replace("\"num_attention_heads\": 32", "\"num_attention_heads\": 7");
        let kv = LLAMA31_8B.replace(
            "\"num_key_value_heads\": 8",
            "\"num_key_value_heads\": \"x\"",
        );
        let missing = LLAMA31_8B.replace("\"hidden_size\"", "\"hidden\"");
        let top_k =
            QWEN3_30B_A3B.replace("\"num_experts_per_tok\": 8", "\"num_experts_per_tok\": 999");
        let bad = [
            "{",
            "[]",
            r#"{"model_type": "nope"}"#,
            &heads,
            &kv,
            &missing,
            &top_k,
        ];
        for cfg in bad {
            let e = error(cfg);
            let t = e.text();
            assert_eq!(t.en, e.to_string());
            assert!(
                t.zh.chars()
                    .any(|ch| ('\u{4e00}'..='\u{9fff}').contains(&ch)),
                "{t:?}"
            );
        }
    }

    #[test]
    fn unknown_decoder_with_llama_keys_falls_back() {
        let json = LLAMA31_8B.replace("\"llama\"", "\"granite\"");
        let imported = import(&json);
        assert_eq!(imported.spec, model(ModelId::Llama31_8b).spec);
        assert!(imported.notes.iter().any(|n| n.en.contains("\"granite\"")));
    }

    #[test]
    fn malformed_json_names_line_and_column() {
        let e = error("{\n  \"n_layer\": 48,\n  \"n_embd\" 1600\n}");
        assert!(
            matches!(e, ImportError::InvalidJson { line: 3, .. }),
            "{e:?}"
        );
        assert!(
            e.to_string().starts_with("invalid JSON at line 3 column"),
            "{e}"
        );
    }

    #[test]
    fn non_object_is_rejected() {
        assert_eq!(error("[1, 2]"), ImportError::NotAnObject);
    }

    #[test]
    fn missing_heads_is_named() {
        let json = LLAMA31_8B.replace("\"num_attention_heads\": 32,", "");
        // Without heads the Llama key set is incomplete, but the type is
        // known, so the missing key itself is reported.
        assert_eq!(
            error(&json).to_string(),
            "missing key \"num_attention_heads\""
        );
    }

    #[test]
    fn unknown_type_without_llama_keys_is_unsupported() {
        let e = error(r#"{"model_type": "mamba", "hidden_size": 768, "n_layer": 24}"#);
        assert_eq!(e, ImportError::UnsupportedModelType("mamba".into()));
        assert!(e
            .to_string()
            .starts_with("unsupported model_type \"mamba\""));
        assert_eq!(
            error(r#"{"hidden_size": 768}"#),
            ImportError::MissingKey("model_type".into())
        );
    }

    #[test]
    fn bad_numbers_name_their_key() {
        let cases = [
            (
                "\"num_hidden_layers\": 32",
                "\"num_hidden_layers\": 0",
                "num_hidden_layers",
            ),
            ("\"vocab_size\": 128256", "\"vocab_size\": -5", "vocab_size"),
            (
                "\"hidden_size\": 4096",
                "\"hidden_size\": \"4096\"",
                "hidden_size",
            ),
            (
                "\"hidden_size\": 4096",
                "\"hidden_size\": 4096.5",
                "hidden_size",
            ),
            (
                "\"hidden_size\": 4096",
                "\"hidden_size\": 99999999999",
                "hidden_size",
            ),
            (
                "\"num_key_value_heads\": 8",
                "\"num_key_value_heads\": 5",
                "num_key_value_heads",
            ),
            (
                "\"attention_dropout\": 0.0",
                "\"attention_dropout\": -0.1",
                "attention_dropout",
            ),
        ];
        for (from, to, key) in cases {
            let e = error(&LLAMA31_8B.replace(from, to));
            assert!(
                matches!(&e, ImportError::InvalidValue { key: k, .. } if k == key),
                "{to}: {e:?}"
            );
            assert!(e.to_string().contains(&format!("\"{key}\"")), "{e}");
        }
        let e = error(&LLAMA31_8B.replace("\"num_hidden_layers\": 32", "\"num_hidden_layers\": 0"));
        assert_eq!(
            e.to_string(),
            "invalid value for \"num_hidden_layers\": expected a positive integer, got 0"
        );
    }

    #[test]
    fn opt_projection_is_unsupported() {
        let json = OPT_13B.replace(
            "\"word_embed_proj_dim\": 5120",
            "\"word_embed_proj_dim\": 512",
        );
        assert!(matches!(
            error(&json),
            ImportError::Unsupported { key, .. } if key == "word_embed_proj_dim"
        ));
    }

    #[test]
    fn dropout_follows_the_probabilities() {
        assert_eq!(import(GPT2_XL).spec.dropout, Dropout::On);
        assert_eq!(import(LLAMA31_8B).spec.dropout, Dropout::Off);
        let json = LLAMA31_8B.replace("\"attention_dropout\": 0.0", "\"attention_dropout\": 0.1");
        assert_eq!(import(&json).spec.dropout, Dropout::On);
    }

    /// Every shape key of every family, replaced by every kind of bad value,
    /// must give an error or a model, never a panic.
    #[test]
    fn hostile_values_never_panic() {
        let bad = [
            "null",
            "0",
            "-1",
            "1.5",
            "1e300",
            "18446744073709551616",
            "\"x\"",
            "[]",
            "{}",
            "true",
        ];
        for config in [
            LLAMA31_8B,
            MIXTRAL_8X7B,
            QWEN25_7B,
            GPT2_XL,
            BERT_LARGE,
            OPT_13B,
            DEEPSEEK_V3,
        ] {
            let Ok(Value::Object(obj)) = serde_json::from_str::<Value>(config) else {
                panic!("test config is not an object");
            };
            for key in obj.keys() {
                for b in bad {
                    let mut changed = obj.clone();
                    changed.insert(key.clone(), serde_json::from_str(b).unwrap());
                    let _ = import_hf_config(&Value::Object(changed).to_string());
                }
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_text_never_panics(s in ".{0,200}") {
            let _ = import_hf_config(&s);
        }
    }
}
