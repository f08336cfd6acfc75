//! The software a training or serving process runs on, as far as memory
//! cares: the CUDA version and its module loading (the context's size),
//! the caching allocator's settings, and the framework whose layer code
//! decides which tensors autograd keeps, how the loss is computed and which
//! optimizer implementation runs (issue 12).
//!
//! These are vocabulary: the figures that go with them live in
//! `catalog::runtime` (the CUDA context) and `memory/` (the formulas).

use serde::{Deserialize, Serialize};

/// The CUDA toolkit the process runs (the `+cuXYZ` of a PyTorch wheel).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum CudaVersion {
    /// CUDA 11.6 or older: no lazy module loading, every kernel of a
    /// loaded library is put into the context.
    Cuda11Early,
    /// CUDA 11.7 to 12.x: lazy loading available (the default since 12.2,
    /// and PyTorch ≥ 1.13 turns it on when the variable is unset).
    #[default]
    Cuda12,
    /// CUDA 13.x.
    Cuda13,
}

impl CudaVersion {
    /// Every version, oldest first.
    pub const ALL: [CudaVersion; 3] = [
        CudaVersion::Cuda11Early,
        CudaVersion::Cuda12,
        CudaVersion::Cuda13,
    ];
}

crate::lang::named!(CudaVersion {
    CudaVersion::Cuda11Early => "cuda11_early", "CUDA 11.6 or older", "CUDA 11.6 及更早";
    CudaVersion::Cuda12 => "cuda12", "CUDA 11.7–12.x", "CUDA 11.7–12.x 版本";
    CudaVersion::Cuda13 => "cuda13", "CUDA 13", "CUDA 13 版本";
});

/// `CUDA_MODULE_LOADING`: when kernels are loaded into the context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ModuleLoading {
    /// `LAZY`: a kernel is loaded on its first launch (CUDA ≥ 11.7; the
    /// CUDA default since 12.2 and PyTorch's since 1.13, PR #86509).
    #[default]
    Lazy,
    /// `EAGER`: every kernel of a library is loaded when the library is.
    Eager,
}

impl ModuleLoading {
    /// Both modes.
    pub const ALL: [ModuleLoading; 2] = [ModuleLoading::Lazy, ModuleLoading::Eager];
}

crate::lang::named!(ModuleLoading {
    ModuleLoading::Lazy => "lazy", "lazy module loading", "延迟加载模块";
    ModuleLoading::Eager => "eager", "eager module loading", "立即加载模块";
});

/// `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True|False`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ExpandableSegments {
    /// One `cudaMalloc` segment per cache miss (PyTorch's default).
    #[default]
    Off,
    /// One growing virtual segment per pool, mapped in 2 MiB (small pool)
    /// or 20 MiB (large pool) pages.
    On,
}

impl ExpandableSegments {
    /// Both settings.
    pub const ALL: [ExpandableSegments; 2] = [ExpandableSegments::Off, ExpandableSegments::On];
}

crate::lang::named!(ExpandableSegments {
    ExpandableSegments::Off => "off", "segments per allocation", "按分配建段";
    ExpandableSegments::On => "on", "expandable segments", "可扩展段";
});

/// The framework whose layer code runs, as far as memory cares: which
/// tensors autocast keeps in FP32, how the loss is computed, and which
/// optimizer implementation it uses unless told otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum MemoryStack {
    /// Megatron-LM / Megatron-Core with Transformer Engine: fused
    /// LayerNorm-linear and softmax kernels save 16-bit tensors; the
    /// vocabulary-parallel cross-entropy; fused Adam. Korthikanti et al.'s
    /// counts are this stack's.
    #[default]
    Megatron,
    /// torchtitan (FSDP2): RMSNorm saves its FP32 statistics only, the
    /// loss upcasts the logits to FP32; fused Adam by default.
    Torchtitan,
    /// Hugging Face Transformers in eager PyTorch (Trainer, PEFT, TRL):
    /// RMSNorm/LayerNorm upcast to FP32 and keep it, eager softmax in FP32,
    /// the loss upcasts the logits; `adamw_torch` (foreach) by default.
    HfEager,
    /// Model code written with PyTorch's own modules, nanoGPT-style (also
    /// gpt-fast without compilation and memwall's GPU harness,
    /// `tests/gpu/model.py`): `nn.LayerNorm`/`nn.RMSNorm`, one fused QKV
    /// linear and one fused gate-up linear, SDPA with its native grouped
    /// heads, autocast. Saves what the Hugging Face layers save apart from
    /// the separate Q, K and V inputs; the loss upcasts the logits;
    /// `torch.optim` defaults (foreach).
    PytorchNative,
}

impl MemoryStack {
    /// Every stack.
    pub const ALL: [MemoryStack; 4] = [
        MemoryStack::Megatron,
        MemoryStack::Torchtitan,
        MemoryStack::HfEager,
        MemoryStack::PytorchNative,
    ];
}

crate::lang::named!(MemoryStack {
    MemoryStack::Megatron => "megatron", "Megatron-LM / Transformer Engine", "Megatron-LM / Transformer Engine 框架";
    MemoryStack::Torchtitan => "torchtitan", "torchtitan (FSDP2)", "torchtitan（FSDP2）框架";
    MemoryStack::HfEager => "hf_eager", "Hugging Face (eager PyTorch)", "Hugging Face（PyTorch 即时模式）";
    MemoryStack::PytorchNative => "pytorch_native", "PyTorch modules (nanoGPT-style)", "原生 PyTorch 模块（nanoGPT 风格）";
});

/// The operators an eager layer's code issues from Python, where the
/// frameworks' layer code differs. Each is a Python-level call (an ATen
/// operator, a view included); an operator that decomposes inside C++
/// counts once.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LayerCode {
    /// Python calls of one RMSNorm: transformers' `LlamaRMSNorm` runs `to(float32)`,
    /// `pow`, `mean`, `+ eps`, `rsqrt`, `*`, `to(dtype)`, `weight *` (8);
    /// `nn.RMSNorm` is one call. `nn.LayerNorm` is one call everywhere.
    pub rms_norm: f64,
    /// The Q, K, V projections: three linears (`q_proj`, `k_proj`,
    /// `v_proj`; torchtitan's `wq`, `wk`, `wv`) or one fused linear and
    /// its `split` (2).
    pub qkv: f64,
    /// Grouped K/V heads expanded before SDPA: `repeat_kv`'s `expand` and
    /// `reshape` of K and V (4), or none where SDPA takes
    /// `enable_gqa=True`.
    pub gqa_expand: f64,
    /// Rotary embeddings of Q and K: transformers' `q * cos +
    /// rotate_half(q) * sin` (`rotate_half`: two slices, `neg`, `cat`;
    /// 7 per tensor) and the two `unsqueeze`s (16); torchtitan's complex
    /// product (`view_as_complex`, `*`, `view_as_real`, `flatten`,
    /// `type_as` per tensor, and the table's reshape: 12); the harness's
    /// `tests/gpu/model.py` (two table slices, two casts, two half slices,
    /// four products, a difference, a sum and a `cat` per tensor: 26).
    pub rotary: f64,
    /// Linears of a gated MLP, with the split of a fused gate-up linear
    /// (3: gate, up, down; or up, `chunk`, down).
    pub gated_calls: f64,
    /// Of those, the linears (whose inputs autocast casts): 3, or 2 with a
    /// fused gate-up linear.
    pub gated_linears: f64,
    /// QKV linears (whose inputs autocast casts): 3, or 1 fused.
    pub qkv_linears: f64,
    /// The activation is a module of its own (transformers' `ACT2FN`),
    /// not a function call.
    pub act_module: f64,
    /// HBM passes of one RMSNorm, in h-wide 16-bit elements: transformers'
    /// and torchtitan's Python norms 16 (cast to FP32, square, mean,
    /// scale, cast back, weight); `nn.RMSNorm`'s C++ decomposition 11
    /// (the same steps without the Python casts' extra round trip); a
    /// fused kernel 2.
    pub rms_norm_passes: f64,
    /// HBM passes of rotary embeddings over Q and K (10: the products,
    /// the half-rotation's slices and `cat`, the sum), against 2 fused.
    pub rotary_passes: f64,
    /// The materialised-attention path runs in FP32: code that calls
    /// `F.scaled_dot_product_attention` gets its math backend there, which
    /// since PyTorch 2.5 upcasts 16-bit Q, K and V to FP32 and runs both
    /// matmuls and the softmax in FP32 (`_scaled_dot_product_attention_math`,
    /// `allow_fp16_bf16_reduction_math_sdp` False by default), keeping FP32
    /// Q, K, V and probabilities for backward. transformers' `eager`
    /// attention multiplies in the compute dtype and upcasts only the
    /// softmax.
    pub fp32_math_attention: bool,
}

impl MemoryStack {
    /// The layer code the framework runs, as eager dispatch and eager
    /// element-wise traffic count it.
    pub fn layer_code(self) -> LayerCode {
        match self {
            MemoryStack::HfEager | MemoryStack::Megatron => LayerCode {
                rms_norm: 8.0,
                qkv: 3.0,
                gqa_expand: 4.0,
                rotary: 16.0,
                gated_calls: 3.0,
                gated_linears: 3.0,
                qkv_linears: 3.0,
                act_module: 1.0,
                rms_norm_passes: 16.0,
                rotary_passes: 10.0,
                fp32_math_attention: false,
            },
            MemoryStack::Torchtitan => LayerCode {
                rms_norm: 1.0,
                qkv: 3.0,
                gqa_expand: 4.0,
                rotary: 12.0,
                gated_calls: 3.0,
                gated_linears: 3.0,
                qkv_linears: 3.0,
                act_module: 0.0,
                rms_norm_passes: 16.0,
                rotary_passes: 10.0,
                fp32_math_attention: true,
            },
            MemoryStack::PytorchNative => LayerCode {
                rms_norm: 1.0,
                qkv: 2.0,
                gqa_expand: 0.0,
                rotary: 26.0,
                gated_calls: 3.0,
                gated_linears: 2.0,
                qkv_linears: 1.0,
                act_module: 0.0,
                rms_norm_passes: 11.0,
                rotary_passes: 10.0,
                fp32_math_attention: true,
            },
        }
    }
}

/// How the loss over the vocabulary is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum LossKernel {
    /// What the stack does by default.
    #[default]
    StackDefault,
    /// Full logits, upcast to FP32, then `cross_entropy` (HF, torchtitan).
    Unfused,
    /// Megatron's fused vocabulary-parallel cross-entropy: FP32 softmax
    /// written over the upcast logits in place.
    FusedVocabParallel,
    /// Chunked / fused linear cross-entropy (Liger Kernel
    /// `LigerFusedLinearCrossEntropyLoss`, Apple's Cut Cross-Entropy): the
    /// logits of a chunk of tokens at a time, never all of them.
    Chunked,
    /// `torch.compile`d cross-entropy (torchtitan `build_cross_entropy_loss`
    /// with `training.compile`, since 2025): Inductor fuses the FP32 upcast,
    /// log-softmax and NLL into reductions, so only the 16-bit logits and
    /// their 16-bit gradient are ever full size.
    Compiled,
}

impl LossKernel {
    /// Every choice.
    pub const ALL: [LossKernel; 5] = [
        LossKernel::StackDefault,
        LossKernel::Unfused,
        LossKernel::FusedVocabParallel,
        LossKernel::Chunked,
        LossKernel::Compiled,
    ];
}

crate::lang::named!(LossKernel {
    LossKernel::StackDefault => "stack_default", "the stack's loss", "框架默认的损失计算";
    LossKernel::Unfused => "unfused", "full logits, FP32 cross-entropy", "完整 logits，FP32 交叉熵";
    LossKernel::FusedVocabParallel => "fused_vocab_parallel", "fused vocabulary-parallel cross-entropy", "融合的词表并行交叉熵";
    LossKernel::Chunked => "chunked", "chunked (fused linear) cross-entropy", "分块（融合线性层）交叉熵";
    LossKernel::Compiled => "compiled", "torch.compile'd cross-entropy", "torch.compile 编译的交叉熵";
});

/// Which implementation of the optimizer step runs; it decides the step's
/// temporaries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum OptimizerImpl {
    /// What the stack does by default.
    #[default]
    StackDefault,
    /// `torch.optim` multi-tensor (`foreach=True`, PyTorch's default on
    /// CUDA): whole-list intermediates.
    Foreach,
    /// One fused kernel (`fused=True`, apex/TE/DeepSpeed FusedAdam,
    /// bitsandbytes' block-wise 8-bit kernels): no full-size temporaries.
    Fused,
    /// One parameter at a time (`foreach=False`).
    ForLoop,
    /// bitsandbytes paged optimizer (`paged_adamw_32bit`, `paged_adamw_8bit`):
    /// fused kernels over states in CUDA unified memory, paged to host
    /// memory under pressure.
    Paged,
}

impl OptimizerImpl {
    /// Every choice.
    pub const ALL: [OptimizerImpl; 5] = [
        OptimizerImpl::StackDefault,
        OptimizerImpl::Foreach,
        OptimizerImpl::Fused,
        OptimizerImpl::ForLoop,
        OptimizerImpl::Paged,
    ];
}

crate::lang::named!(OptimizerImpl {
    OptimizerImpl::StackDefault => "stack_default", "the stack's optimizer", "框架默认的优化器实现";
    OptimizerImpl::Foreach => "foreach", "multi-tensor (foreach)", "多张量（foreach）";
    OptimizerImpl::Fused => "fused", "fused kernel", "融合内核";
    OptimizerImpl::ForLoop => "for_loop", "one tensor at a time", "逐张量";
    OptimizerImpl::Paged => "paged", "paged (unified memory)", "分页（统一内存）";
});

/// Whether LoRA adapters run dropout on their input (`lora_dropout` > 0
/// in PEFT's `LoraConfig`, LitGPT's `lora_dropout`). The probability does
/// not change memory; whether there is a dropout does: PEFT's LoRA
/// `Linear.forward` runs `lora_B(lora_A(dropout(x)))`, and `nn.Dropout`
/// keeps a boolean mask while `lora_A` keeps the dropped-out copy of `x`
/// for its weight gradient (peft `tuners/lora/layer.py`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum LoraDropout {
    /// `lora_dropout = 0` (PEFT's default): `nn.Identity`, so `lora_A`
    /// keeps the layer's own input.
    #[default]
    Off,
    /// `lora_dropout > 0`: each adapted linear keeps a 16-bit copy and a
    /// 1-byte mask of its input.
    On,
}

impl LoraDropout {
    /// Both settings.
    pub const ALL: [LoraDropout; 2] = [LoraDropout::Off, LoraDropout::On];
}

crate::lang::named!(LoraDropout {
    LoraDropout::Off => "off", "no adapter dropout", "适配器不做 dropout";
    LoraDropout::On => "on", "adapter dropout", "适配器 dropout";
});

/// The bitsandbytes release under a QLoRA base, as far as memory cares:
/// whether a 4-bit linear keeps its input for backward.
/// `MatMul4Bit.forward` stored `ctx.tensors = (A, B)` whenever an input
/// needed a gradient, although its backward only reads `B` (the weight
/// gradient of a 4-bit weight is not computed); bitsandbytes PR #1270
/// ("fix QLoRA mem bug: delete useless buffered activation", 9e75374,
/// 2024-07-16, first released in 0.43.2) stores `(None, B)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Bitsandbytes {
    /// Before 0.43.2: every 4-bit linear keeps its 16-bit input.
    #[serde(rename = "before_0_43_2")]
    Before0_43_2,
    /// 0.43.2 and later: a 4-bit linear keeps only its quantized weight.
    #[default]
    #[serde(rename = "since_0_43_2")]
    Since0_43_2,
}

impl Bitsandbytes {
    /// Both releases, oldest first.
    pub const ALL: [Bitsandbytes; 2] = [Bitsandbytes::Before0_43_2, Bitsandbytes::Since0_43_2];
}

crate::lang::named!(Bitsandbytes {
    Bitsandbytes::Before0_43_2 => "before_0_43_2", "bitsandbytes before 0.43.2 (4-bit layers keep their inputs)", "bitsandbytes 0.43.2 之前（4 位层保留输入）";
    Bitsandbytes::Since0_43_2 => "since_0_43_2", "bitsandbytes 0.43.2 or later", "bitsandbytes 0.43.2 及以后";
});

/// What sits on top of the last layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum Head {
    /// Logits over the vocabulary for every token (causal or masked LM).
    #[default]
    LanguageModel,
    /// One vector of `labels` logits per sequence (HF
    /// `AutoModelForSequenceClassification`; `labels` = 1 is regression).
    Classifier {
        /// Outputs per sequence, ≥ 1.
        labels: u32,
    },
}

crate::lang::named!(Head {
    Head::LanguageModel => "language_model", "language-model head", "语言模型输出头";
    Head::Classifier { .. } => "classifier", "classification or regression head", "分类或回归输出头";
});

/// The memory-side software levers of a plan (`levers.memory`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct MemorySoftware {
    /// The framework; unset, it follows the plan's training stack
    /// (`TrainingStack::memory_stack`: Megatron-Core → Megatron,
    /// torchtitan → torchtitan, DeepSpeed and HF Trainer → HF eager), and
    /// Megatron for serving. One choice of framework so sets both the time
    /// model's efficiencies and the memory model's saved tensors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack: Option<MemoryStack>,
    /// How the loss is computed (default: the stack's).
    #[serde(default)]
    pub loss: LossKernel,
    /// The optimizer implementation (default: the stack's).
    #[serde(default)]
    pub optimizer_impl: OptimizerImpl,
    /// The output head (default: the language-model head).
    #[serde(default)]
    pub head: Head,
    /// LoRA adapters' dropout (default: off, as PEFT's `lora_dropout = 0`).
    #[serde(default)]
    pub lora_dropout: LoraDropout,
    /// The bitsandbytes release under a QLoRA base (default: 0.43.2 or
    /// later).
    #[serde(default)]
    pub bitsandbytes: Bitsandbytes,
}

impl MemorySoftware {
    /// The framework in force (`resolve` fills an unset one from the
    /// training stack; Megatron where nothing says otherwise).
    pub fn stack(self) -> MemoryStack {
        self.stack.unwrap_or_default()
    }

    /// The loss kernel in force: the stack's unless one is chosen.
    /// Megatron-LM's default is its fused vocabulary-parallel
    /// cross-entropy (`tensor_parallel.vocab_parallel_cross_entropy`);
    /// torchtitan's `cross_entropy_loss` and HF's `ForCausalLMLoss` upcast
    /// the full logits and call `torch.nn.functional.cross_entropy`.
    /// torchtitan with `torch.compile` compiles its loss too: `resolve`
    /// writes `Compiled` for that training stack before this is read
    /// (`TrainingStack::default_loss`).
    pub fn loss_kernel(self) -> LossKernel {
        match (self.loss, self.stack()) {
            (LossKernel::StackDefault, MemoryStack::Megatron) => LossKernel::FusedVocabParallel,
            (LossKernel::StackDefault, _) => LossKernel::Unfused,
            (l, _) => l,
        }
    }

    /// Whether the loss runs as DTensor's loss parallel over the vocabulary
    /// shard: torchtitan enters `loss_parallel()` whenever TP is on
    /// (unless `training.disable_loss_parallel`); the memory and time
    /// models both read it.
    pub fn loss_parallel(self, tp: u32) -> bool {
        tp > 1 && self.stack() == MemoryStack::Torchtitan
    }

    /// The optimizer implementation in force: Megatron's distributed
    /// optimizer runs apex/TE FusedAdam; torchtitan's `optimizer.
    /// implementation` defaults to `"fused"`; HF Trainer's `adamw_torch`
    /// leaves `torch.optim.AdamW` to pick `foreach` on CUDA.
    pub fn optimizer(self) -> OptimizerImpl {
        match (self.optimizer_impl, self.stack()) {
            (OptimizerImpl::StackDefault, MemoryStack::HfEager | MemoryStack::PytorchNative) => {
                OptimizerImpl::Foreach
            }
            (OptimizerImpl::StackDefault, _) => OptimizerImpl::Fused,
            (o, _) => o,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::{Lang, Named};

    #[test]
    fn names_in_both_languages_and_stack_defaults() {
        fn distinct<T: Named>(all: &[T]) {
            for lang in Lang::ALL {
                let mut names: Vec<_> = all.iter().map(|v| v.name(lang)).collect();
                names.sort_unstable();
                names.dedup();
                assert_eq!(names.len(), all.len());
            }
        }
        distinct(&CudaVersion::ALL);
        distinct(&ModuleLoading::ALL);
        distinct(&ExpandableSegments::ALL);
        distinct(&MemoryStack::ALL);
        distinct(&LossKernel::ALL);
        distinct(&OptimizerImpl::ALL);
        distinct(&LoraDropout::ALL);
        distinct(&Bitsandbytes::ALL);
        let hf = MemorySoftware {
            stack: Some(MemoryStack::HfEager),
            ..MemorySoftware::default()
        };
        assert_eq!(hf.loss_kernel(), LossKernel::Unfused);
        assert_eq!(hf.optimizer(), OptimizerImpl::Foreach);
        let m = MemorySoftware::default();
        assert_eq!(m.loss_kernel(), LossKernel::FusedVocabParallel);
        assert_eq!(m.optimizer(), OptimizerImpl::Fused);
        let liger = MemorySoftware {
            loss: LossKernel::Chunked,
            ..hf
        };
        assert_eq!(liger.loss_kernel(), LossKernel::Chunked);
    }
}
