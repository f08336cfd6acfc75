//! The grid of configurations the GPU workloads run: which models, which
//! levers, which sizes. The models are planner-core [`ModelSpec`]s; the
//! grid carries each one twice, as the spec (what the planner evaluates)
//! and as the flat architecture the PyTorch workload builds
//! (`tests/gpu/model.py`), so both sides describe the same network.

use planner_core::model::{
    AttentionKind, Bias, Dropout, Embeddings, FfnActivation, ModelSpec, Norm, Positions,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Format tag of a grid file.
pub const GRID_FORMAT: &str = "memwall-gpu-grid/1";

/// A grid: models, settings and runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Grid {
    /// [`GRID_FORMAT`].
    pub format: String,
    /// `quick` or `full`.
    pub name: String,
    /// Warm-up and repetition counts.
    pub settings: Settings,
    /// The models by name.
    pub models: BTreeMap<String, GridModel>,
    /// The configurations, in the order they run.
    pub runs: Vec<RunConfig>,
}

/// How many steps and repetitions each run takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// Training steps before measuring (optimizer states and the
    /// allocator's cache are in place after the first).
    pub warmup_steps: u32,
    /// Training steps timed; the median is reported.
    pub measure_steps: u32,
    /// Timed prefills of the batch; the median is the TTFT.
    pub prefill_repeats: u32,
    /// Timed generations of `output` tokens; the median per-token time is
    /// the TPOT.
    pub decode_repeats: u32,
    /// Seed of the weights and token ids.
    pub seed: u64,
}

/// A model of the grid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GridModel {
    /// Where the shape comes from.
    pub source: String,
    /// The planner's description.
    pub spec: ModelSpec,
    /// The workload's description (derived from `spec`).
    pub architecture: Architecture,
    /// Parameters the planner counts; the workload checks its own count
    /// against it.
    pub expected_params: u64,
}

/// A decoder-only transformer as the PyTorch workload builds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Architecture {
    /// Transformer layers.
    pub layers: u32,
    /// Residual width.
    pub hidden: u32,
    /// Query heads.
    pub heads: u32,
    /// Key/value heads.
    pub kv_heads: u32,
    /// Per-head width.
    pub head_dim: u32,
    /// FFN intermediate width.
    pub ffn: u32,
    /// Vocabulary.
    pub vocab: u32,
    /// `gelu`, `relu`, `swiglu` or `geglu`.
    pub activation: String,
    /// Whether the FFN is gated (three matrices).
    pub gated: bool,
    /// `layernorm` or `rmsnorm`.
    pub norm: String,
    /// `none`, `qkv` or `all`.
    pub bias: String,
    /// Output layer shares the embedding matrix.
    pub tied: bool,
    /// `rotary` or `learned`.
    pub positions: String,
    /// Rows of the learned position table (0 for rotary).
    pub max_positions: u32,
    /// Dropout (p = 0.1) after embeddings, attention scores, attention
    /// output and MLP output.
    pub dropout: bool,
    /// Longest context.
    pub max_context: u32,
}

/// Why a spec cannot be built by the workload.
pub fn architecture(spec: &ModelSpec) -> Result<Architecture, String> {
    if spec.attention != AttentionKind::Standard {
        return Err("multi-head latent attention is not built by the workload".into());
    }
    if spec.moe.is_some() {
        return Err("mixture-of-experts layers are not built by the workload".into());
    }
    if spec.sliding_window.is_some() {
        return Err("sliding-window attention is not built by the workload".into());
    }
    if spec.token_types > 0 {
        return Err("token-type tables (encoders) are not built by the workload".into());
    }
    let (positions, max_positions) = match spec.positions {
        Positions::Rotary => ("rotary", 0),
        Positions::Learned { max_positions } => ("learned", max_positions),
        Positions::Alibi => return Err("ALiBi is not built by the workload".into()),
    };
    if spec.heads % spec.kv_heads.max(1) != 0 {
        return Err("query heads must be a multiple of the KV heads".into());
    }
    Ok(Architecture {
        layers: spec.layers,
        hidden: spec.hidden,
        heads: spec.heads,
        kv_heads: spec.kv_heads,
        head_dim: spec.head_dim,
        ffn: spec.ffn,
        vocab: spec.vocab,
        activation: match spec.activation {
            FfnActivation::Gelu => "gelu",
            FfnActivation::Relu => "relu",
            FfnActivation::SwiGlu => "swiglu",
            FfnActivation::GeGlu => "geglu",
        }
        .into(),
        gated: spec.activation.is_gated(),
        norm: match spec.norm {
            Norm::LayerNorm => "layernorm",
            Norm::RmsNorm => "rmsnorm",
        }
        .into(),
        bias: match spec.bias {
            Bias::None => "none",
            Bias::QkvOnly => "qkv",
            Bias::All => "all",
        }
        .into(),
        tied: spec.embeddings == Embeddings::Tied,
        positions: positions.into(),
        max_positions,
        dropout: spec.dropout == Dropout::On,
        max_context: spec.max_context,
    })
}

/// Number formats of a training run, as PyTorch sets them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TrainPrecision {
    /// Everything in FP32; matmuls may use TF32 (the workload allows it).
    #[serde(rename = "fp32")]
    Fp32,
    /// `torch.autocast(float16)` over FP32 parameters, `GradScaler`.
    #[serde(rename = "amp-fp16")]
    AmpFp16,
    /// `torch.autocast(bfloat16)` over FP32 parameters.
    #[serde(rename = "amp-bf16")]
    AmpBf16,
}

/// Optimizer of a training run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OptimizerChoice {
    /// `torch.optim.AdamW` (fused where available).
    Adamw,
    /// `torch.optim.SGD` with momentum 0.9.
    Sgd,
}

/// Activation checkpointing of a training run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckpointChoice {
    /// Keep every activation.
    None,
    /// `torch.utils.checkpoint` around every layer.
    Full,
    /// `torch.utils.checkpoint` around the attention core only.
    Selective,
}

/// Attention kernels `torch.nn.attention.sdpa_kernel` may pick.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttentionChoice {
    /// Fused kernels only (flash, memory-efficient, cuDNN): no s×s scores.
    Flash,
    /// The math backend: scores materialised.
    Math,
}

/// Weight format of a serving run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WeightChoice {
    /// BF16 weights.
    Bf16,
    /// INT8 weights with one scale per output channel in the blocks'
    /// linear layers (embeddings and output layer stay BF16).
    Int8,
}

/// A training configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrainConfig {
    /// Stable id.
    pub id: String,
    /// Model name in [`Grid::models`].
    pub model: String,
    /// Number formats.
    pub precision: TrainPrecision,
    /// Optimizer.
    pub optimizer: OptimizerChoice,
    /// Checkpointing.
    pub checkpointing: CheckpointChoice,
    /// Attention kernels.
    pub attention: AttentionChoice,
    /// Sequences per micro-batch.
    pub micro_batch: u32,
    /// Tokens per sequence.
    pub seq_len: u32,
    /// Micro-batches per optimizer step.
    pub grad_accum: u32,
}

/// A serving configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InferConfig {
    /// Stable id.
    pub id: String,
    /// Model name in [`Grid::models`].
    pub model: String,
    /// Weight format.
    pub weights: WeightChoice,
    /// Concurrent sequences.
    pub batch: u32,
    /// Prompt tokens per sequence.
    pub prompt: u32,
    /// Generated tokens per sequence.
    pub output: u32,
}

/// One configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RunConfig {
    /// Training steps.
    Train(TrainConfig),
    /// Prefill and decode.
    Infer(InferConfig),
}

impl RunConfig {
    /// The run's id.
    pub fn id(&self) -> &str {
        match self {
            RunConfig::Train(t) => &t.id,
            RunConfig::Infer(i) => &i.id,
        }
    }

    /// The run's model name.
    pub fn model(&self) -> &str {
        match self {
            RunConfig::Train(t) => &t.model,
            RunConfig::Infer(i) => &i.model,
        }
    }
}

/// The GPT-3 Small shape (Brown et al. 2020, "Language Models are
/// Few-Shot Learners", Table 2.1: 12 layers, d_model 768, 12 heads of 64,
/// 2048-token context) with GPT-2's learned positions, LayerNorm, biases,
/// GELU and tied embeddings; vocabulary 50,257 padded to 50,304, a
/// multiple of 64, as nanoGPT does for tensor-core-friendly shapes.
pub fn gpt_125m() -> ModelSpec {
    ModelSpec {
        vocab: 50304,
        dropout: Dropout::Off,
        ..ModelSpec::gpt(12, 768, 12, 50304, 2048)
    }
}

/// The TinyLlama 1.1B shape (Zhang et al. 2024, "TinyLlama: An
/// Open-Source Small Language Model", Table 1: 22 layers, hidden 2048,
/// intermediate 5632, 32 heads, 4 KV-head groups, vocabulary 32,000,
/// 2048-token context), a Llama 2 architecture: RMSNorm, rotary positions,
/// SwiGLU, no biases, untied output layer.
pub fn llama_1b() -> ModelSpec {
    ModelSpec::llama(22, 2048, 32, 4, 5632, 32000, 2048)
}

fn model(source: &str, spec: ModelSpec) -> GridModel {
    GridModel {
        source: source.into(),
        // The grid's own models are all buildable (`grids_are_consistent`).
        architecture: architecture(&spec).expect("grid models are buildable"),
        expected_params: spec.params().total().round() as u64,
        spec,
    }
}

/// Builds a training run with a derived id.
#[allow(clippy::too_many_arguments)]
fn train(
    model: &str,
    precision: TrainPrecision,
    optimizer: OptimizerChoice,
    checkpointing: CheckpointChoice,
    attention: AttentionChoice,
    micro_batch: u32,
    seq_len: u32,
    grad_accum: u32,
) -> RunConfig {
    let p = match precision {
        TrainPrecision::Fp32 => "fp32",
        TrainPrecision::AmpFp16 => "amp-fp16",
        TrainPrecision::AmpBf16 => "amp-bf16",
    };
    let o = match optimizer {
        OptimizerChoice::Adamw => "adamw",
        OptimizerChoice::Sgd => "sgd",
    };
    let c = match checkpointing {
        CheckpointChoice::None => "none",
        CheckpointChoice::Full => "full",
        CheckpointChoice::Selective => "selective",
    };
    let a = match attention {
        AttentionChoice::Flash => "flash",
        AttentionChoice::Math => "math",
    };
    RunConfig::Train(TrainConfig {
        id: format!("train/{model}/{p}/{o}/ckpt-{c}/{a}/mb{micro_batch}-s{seq_len}-ga{grad_accum}"),
        model: model.into(),
        precision,
        optimizer,
        checkpointing,
        attention,
        micro_batch,
        seq_len,
        grad_accum,
    })
}

fn infer(model: &str, weights: WeightChoice, batch: u32, prompt: u32, output: u32) -> RunConfig {
    let w = match weights {
        WeightChoice::Bf16 => "bf16",
        WeightChoice::Int8 => "int8",
    };
    RunConfig::Infer(InferConfig {
        id: format!("infer/{model}/{w}/b{batch}-p{prompt}-o{output}"),
        model: model.into(),
        weights,
        batch,
        prompt,
        output,
    })
}

use AttentionChoice as A;
use CheckpointChoice as C;
use OptimizerChoice as O;
use TrainPrecision as P;
use WeightChoice as W;

const GPT: &str = "gpt-125m";
const LLAMA: &str = "llama-1.1b";
const LLAMA8: &str = "llama-8b";

/// The Llama 3.1 8B shape (Llama Team, "The Llama 3 Herd of Models", 2024,
/// Table 3: 32 layers, hidden 4096, FFN 14,336, 32 heads, 8 KV heads,
/// vocabulary 128,256), with a 2,048-token context for the harness.
pub fn llama_8b() -> ModelSpec {
    ModelSpec::llama(32, 4096, 32, 8, 14336, 128256, 2048)
}

/// The large grid: the Llama 3.1 8B shape near one H200's memory. AMP
/// with SGD momentum holds 12 B of model state a parameter (FP32 weights,
/// gradients and momentum) plus autocast's 16-bit weight copies; AMP with
/// AdamW needs 16 B and does not fit 141 GB, which is the point of its
/// row (the planner must say so). Serving in BF16 at three batch sizes.
/// Sized for one GPU with 140 GB.
pub fn large() -> Grid {
    let mut models = BTreeMap::new();
    models.insert(
        LLAMA8.into(),
        model("Llama 3.1 8B shape (Llama Team 2024, Table 3)", llama_8b()),
    );
    let runs = vec![
        train(LLAMA8, P::AmpBf16, O::Sgd, C::Full, A::Flash, 1, 2048, 1),
        train(LLAMA8, P::AmpBf16, O::Sgd, C::None, A::Flash, 1, 2048, 1),
        train(LLAMA8, P::AmpBf16, O::Adamw, C::Full, A::Flash, 1, 2048, 1),
        infer(LLAMA8, W::Bf16, 1, 512, 64),
        // Prompt and output within the 2,048-token context the workload
        // builds its rotary table for.
        infer(LLAMA8, W::Bf16, 8, 1536, 64),
        infer(LLAMA8, W::Bf16, 32, 1536, 64),
    ];
    Grid {
        format: GRID_FORMAT.into(),
        name: "large".into(),
        settings: Settings {
            warmup_steps: 2,
            measure_steps: 5,
            prefill_repeats: 5,
            decode_repeats: 3,
            seed: 0,
        },
        models,
        runs,
    }
}

/// The quick grid: one 125M model, each lever varied once from a base
/// (AMP BF16, AdamW, no checkpointing, fused attention, 4 × 1024 tokens),
/// and a few serving runs; a few minutes on one GPU with 16 GB or more.
pub fn quick() -> Grid {
    let mut models = BTreeMap::new();
    models.insert(
        GPT.into(),
        model(
            "GPT-3 Small shape (Brown et al. 2020, Table 2.1)",
            gpt_125m(),
        ),
    );
    let base = |p, o, c, a| train(GPT, p, o, c, a, 4, 1024, 1);
    let runs = vec![
        base(P::AmpBf16, O::Adamw, C::None, A::Flash),
        base(P::AmpFp16, O::Adamw, C::None, A::Flash),
        base(P::Fp32, O::Adamw, C::None, A::Flash),
        base(P::AmpBf16, O::Sgd, C::None, A::Flash),
        base(P::AmpBf16, O::Adamw, C::Full, A::Flash),
        base(P::AmpBf16, O::Adamw, C::None, A::Math),
        base(P::AmpBf16, O::Adamw, C::Selective, A::Math),
        train(GPT, P::AmpBf16, O::Adamw, C::None, A::Flash, 8, 1024, 1),
        train(GPT, P::AmpBf16, O::Adamw, C::None, A::Flash, 2, 2048, 1),
        train(GPT, P::AmpBf16, O::Adamw, C::None, A::Flash, 4, 1024, 2),
        infer(GPT, W::Bf16, 1, 512, 64),
        infer(GPT, W::Bf16, 8, 512, 64),
        infer(GPT, W::Bf16, 8, 1024, 64),
        infer(GPT, W::Int8, 8, 512, 64),
    ];
    Grid {
        format: GRID_FORMAT.into(),
        name: "quick".into(),
        settings: Settings {
            warmup_steps: 3,
            measure_steps: 5,
            prefill_repeats: 5,
            decode_repeats: 3,
            seed: 0,
        },
        models,
        runs,
    }
}

/// The full grid: both models; for the 125M model every precision ×
/// optimizer × checkpointing × attention combination plus micro-batch,
/// sequence and accumulation sweeps; for the 1.1B model each lever and
/// size varied from a base; serving at three batches, two prompt lengths
/// and both weight formats. Sized for one GPU with 40 GB or more (runs
/// that do not fit are recorded as out of memory, not dropped).
pub fn full() -> Grid {
    let mut models = BTreeMap::new();
    models.insert(
        GPT.into(),
        model(
            "GPT-3 Small shape (Brown et al. 2020, Table 2.1)",
            gpt_125m(),
        ),
    );
    models.insert(
        LLAMA.into(),
        model(
            "TinyLlama 1.1B shape (Zhang et al. 2024, Table 1)",
            llama_1b(),
        ),
    );
    let mut runs = Vec::new();
    for p in [P::AmpBf16, P::AmpFp16, P::Fp32] {
        for o in [O::Adamw, O::Sgd] {
            for c in [C::None, C::Full, C::Selective] {
                for a in [A::Flash, A::Math] {
                    runs.push(train(GPT, p, o, c, a, 4, 1024, 1));
                }
            }
        }
    }
    for (mb, s) in [
        (1, 1024),
        (2, 1024),
        (8, 1024),
        (16, 1024),
        (16, 512),
        (1, 2048),
        (4, 2048),
        (8, 2048),
    ] {
        runs.push(train(
            GPT,
            P::AmpBf16,
            O::Adamw,
            C::None,
            A::Flash,
            mb,
            s,
            1,
        ));
    }
    for ga in [2, 4] {
        runs.push(train(
            GPT,
            P::AmpBf16,
            O::Adamw,
            C::None,
            A::Flash,
            4,
            1024,
            ga,
        ));
    }
    for p in [P::AmpBf16, P::AmpFp16, P::Fp32] {
        for c in [C::None, C::Full, C::Selective] {
            runs.push(train(LLAMA, p, O::Adamw, c, A::Flash, 2, 2048, 1));
        }
    }
    for c in [C::None, C::Full] {
        runs.push(train(LLAMA, P::AmpBf16, O::Sgd, c, A::Flash, 2, 2048, 1));
    }
    for c in [C::None, C::Selective] {
        runs.push(train(LLAMA, P::AmpBf16, O::Adamw, c, A::Math, 2, 2048, 1));
    }
    for (mb, s) in [(1, 2048), (4, 2048), (8, 1024), (4, 512)] {
        runs.push(train(
            LLAMA,
            P::AmpBf16,
            O::Adamw,
            C::None,
            A::Flash,
            mb,
            s,
            1,
        ));
    }
    runs.push(train(
        LLAMA,
        P::AmpBf16,
        O::Adamw,
        C::None,
        A::Flash,
        2,
        2048,
        4,
    ));
    for m in [GPT, LLAMA] {
        for w in [W::Bf16, W::Int8] {
            for b in [1, 8, 32] {
                for (prompt, output) in [(512, 128), (1536, 128)] {
                    runs.push(infer(m, w, b, prompt, output));
                }
            }
        }
    }
    Grid {
        format: GRID_FORMAT.into(),
        name: "full".into(),
        settings: Settings {
            warmup_steps: 3,
            measure_steps: 10,
            prefill_repeats: 5,
            decode_repeats: 3,
            seed: 0,
        },
        models,
        runs,
    }
}

/// A grid by name.
pub fn by_name(name: &str) -> Option<Grid> {
    match name {
        "quick" => Some(quick()),
        "full" => Some(full()),
        "large" => Some(large()),
        _ => None,
    }
}

impl Grid {
    /// The grid as pretty JSON (what `tests/gpu/grids/*.json` hold).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    /// Checks ids are unique, models exist and sizes fit the models'
    /// context; the errors in words.
    pub fn check(&self) -> Vec<String> {
        let mut errs = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for r in &self.runs {
            if !seen.insert(r.id().to_string()) {
                errs.push(format!("duplicate run id {}", r.id()));
            }
            let Some(m) = self.models.get(r.model()) else {
                errs.push(format!("{}: unknown model {}", r.id(), r.model()));
                continue;
            };
            let tokens = match r {
                RunConfig::Train(t) => t.seq_len,
                RunConfig::Infer(i) => i.prompt + i.output,
            };
            if tokens > m.spec.max_context {
                errs.push(format!(
                    "{}: {tokens} tokens exceed the model's {}-token context",
                    r.id(),
                    m.spec.max_context
                ));
            }
        }
        errs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_are_consistent() {
        for g in [quick(), full()] {
            assert_eq!(g.check(), Vec::<String>::new(), "{}", g.name);
            for m in g.models.values() {
                assert_eq!(architecture(&m.spec).as_ref(), Ok(&m.architecture));
            }
        }
        assert!(quick().runs.len() < full().runs.len());
    }

    #[test]
    fn expected_params_follow_the_planner() {
        // GPT-3 Small: 12 layers of 12h² + 13h, tied V×h embedding, 2048×h
        // positions, final LayerNorm 2h.
        let h = 768.0_f64;
        let expect = 12.0 * (12.0 * h * h + 13.0 * h) + 50304.0 * h + 2048.0 * h + 2.0 * h;
        assert_eq!(quick().models[GPT].expected_params, expect as u64);
        let llama = full().models[LLAMA].expected_params;
        assert!((1.0e9..1.2e9).contains(&(llama as f64)), "{llama}");
    }

    #[test]
    fn unsupported_architectures_are_refused() {
        let mut s = gpt_125m();
        s.positions = Positions::Alibi;
        assert!(architecture(&s).is_err());
        let mut s = gpt_125m();
        s.kv_heads = 5;
        assert!(architecture(&s).is_err());
    }

    #[test]
    fn run_configs_round_trip() {
        for r in full().runs {
            let j = serde_json::to_string(&r).expect("serialize");
            let back: RunConfig = serde_json::from_str(&j).expect("parse");
            assert_eq!(back, r);
        }
    }
}
