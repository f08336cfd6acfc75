//! Training software stacks: which kernels a plan's framework runs, and
//! how close each gets to the hardware.
//!
//! The same GPU runs a Megatron-Core step and an eager PyTorch step at very
//! different speeds: the attention kernel the stack ships for the GPU's
//! architecture (FlashAttention-2 or a Hopper-native kernel), whether the
//! element-wise chain of a layer is fused, and how the optimizer step is
//! written. One profile per stack holds those choices; each names what it
//! was read from. Serving engines are a separate concern and get their own
//! enum beside the inference workload.

use crate::catalog::AttentionImpl;
use crate::efficiency::Efficiency;
use crate::hardware::GpuArch;
use crate::units::Seconds;
use serde::{Deserialize, Serialize};

/// The framework a training plan runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum TrainingStack {
    /// Megatron-Core with Transformer Engine (also NeMo and
    /// Megatron-Bridge): fused kernels, cuDNN fused attention on Hopper,
    /// fused Adam.
    MegatronCore,
    /// torchtitan / FSDP2 in eager mode (also plain PyTorch FSDP): PyTorch
    /// SDPA, one kernel per element-wise op, `foreach` AdamW.
    Torchtitan,
    /// torchtitan / FSDP2 with `torch.compile`: Inductor fuses each
    /// layer's element-wise chains; attention and the optimizer as eager.
    TorchtitanCompiled,
    /// DeepSpeed (ZeRO) over Hugging Face models: the models' eager
    /// modules with FlashAttention-2, DeepSpeed's fused Adam on the GPU.
    /// Written `deepspeed` (the name table's key); `deep_speed`, what
    /// serde's snake case made of it before, is still read.
    #[serde(rename = "deepspeed", alias = "deep_speed")]
    DeepSpeed,
    /// Hugging Face Trainer / Accelerate (PyTorch eager): SDPA or
    /// FlashAttention-2, `adamw_torch` (`foreach`).
    HfTrainer,
    /// Megatron-DeepSpeed (deepspeedai/Megatron-DeepSpeed, the 2021–22
    /// fork of Megatron-LM behind MT-NLG 530B, BLOOM 176B and DeepSpeed's
    /// ZeRO-3 scaling runs): Megatron-LM's fused kernels (fused softmax,
    /// bias-GeLU, apex LayerNorm, fused Adam) driven by DeepSpeed's engine,
    /// pipeline engine and ZeRO.
    #[serde(rename = "megatron_deepspeed", alias = "megatron_deep_speed")]
    MegatronDeepSpeed,
}

/// When a training stack allocates the gradients and the optimizer
/// states: before the first step, as flat buffers, or inside it, where
/// they land in blocks the caching allocator cached from the first pass
/// (`memory::allocator_cache`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateAllocation {
    /// Both inside the first step: PyTorch creates `.grad` in the first
    /// backward and `optimizer.state` in the first `step()` (eager
    /// PyTorch, FSDP2, the Hugging Face Trainer).
    Lazy,
    /// One contiguous gradient buffer when the model is wrapped
    /// (Megatron-Core's DDP, `param_and_grad_buffer.py`); the optimizer's
    /// states still inside the first step.
    GradientBuffer,
    /// Both as flat partitions when the engine is built (DeepSpeed's ZeRO
    /// optimizers allocate the gradient partitions and initialise the
    /// optimizer states at construction, `initialize_optimizer_states`).
    Preallocated,
}

/// What a rank keeps of the 16-bit weights when the parameters are sharded
/// and FP32 master weights exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShardedWeights {
    /// A 16-bit shard beside the FP32 one: DeepSpeed's ZeRO-3 keeps its
    /// 16-bit partition, and Megatron-FSDP its sharded 16-bit buffer.
    HalfShard,
    /// None: PyTorch FSDP keeps each rank's shard in the parameters' own
    /// type, which is the FP32 master copy, and casts to the compute type
    /// on the way into the all-gather. FSDP1 allocates its low-precision
    /// shard for the gather and frees it after
    /// (`torch/distributed/fsdp/_flat_param.py`,
    /// `_use_low_precision_shard`, `_free_low_precision_sharded_param`);
    /// FSDP2 casts in the gather's copy-in (`_fsdp_collectives.py`,
    /// `foreach_all_gather`, with `MixedPrecisionPolicy.param_dtype`).
    CastAtGather,
}

impl TrainingStack {
    /// When the stack allocates gradients and optimizer states.
    pub fn state_allocation(self) -> StateAllocation {
        match self {
            TrainingStack::MegatronCore => StateAllocation::GradientBuffer,
            TrainingStack::DeepSpeed | TrainingStack::MegatronDeepSpeed => {
                StateAllocation::Preallocated
            }
            TrainingStack::Torchtitan
            | TrainingStack::TorchtitanCompiled
            | TrainingStack::HfTrainer => StateAllocation::Lazy,
        }
    }

    /// What the stack keeps of the 16-bit weights where it shards the
    /// parameters and keeps FP32 master weights.
    pub fn sharded_weights(self) -> ShardedWeights {
        match self {
            TrainingStack::Torchtitan
            | TrainingStack::TorchtitanCompiled
            | TrainingStack::HfTrainer => ShardedWeights::CastAtGather,
            TrainingStack::MegatronCore
            | TrainingStack::DeepSpeed
            | TrainingStack::MegatronDeepSpeed => ShardedWeights::HalfShard,
        }
    }

    /// Whether the stack's FP8 linears all-gather their sequence-parallel
    /// inputs (and, in backward, their outputs' gradients) in FP8, one byte
    /// an element, where the reduce-scatters stay 16-bit. torchtitan's
    /// Float8 linears do by default (`docs/float8.md`: "float8 all-gather
    /// ... for TP (by default for `Float8Linear`)"): torchao's
    /// `Float8ColwiseParallel` casts the input to e4m3 before its
    /// all-gather and `Float8RowwiseParallel` casts the gradient of its
    /// output to e5m2 before the backward all-gather
    /// (`torchao/float8/float8_tensor_parallel.py`). Transformer Engine's
    /// linears under Megatron-Core do the same: with FP8 on, a
    /// column-parallel linear quantizes its local input before the
    /// sequence-parallel all-gather (NCCL or userbuffers) and gathers the
    /// quantized data, backward regathers it quantized for the weight
    /// gradient, and a row-parallel linear quantizes its output's gradient
    /// before that gradient's all-gather (NVIDIA/TransformerEngine
    /// `pytorch/module/linear.py`, `gather_along_first_dim(...,
    /// quantizer=...)`, and `module/base.py`,
    /// `grad_output_preprocess`); the reduce-scatters carry the 16-bit
    /// outputs. DeepSpeed and Megatron-DeepSpeed are counted 16-bit.
    pub fn tp_gathers_in_fp8(self) -> bool {
        matches!(
            self,
            TrainingStack::Torchtitan
                | TrainingStack::TorchtitanCompiled
                | TrainingStack::MegatronCore
        )
    }

    /// Whether the stack's TP overlap also hides the backward's
    /// reduce-scatters of the attention and FFN inputs' gradients.
    /// torchtitan's async TP is Inductor's micro-pipeline pass
    /// (`torch/_inductor/fx_passes/micro_pipeline_tp.py`): it fuses an
    /// all-gather with the matmuls that read the gathered tensor, and a
    /// reduce-scatter only when its input is the output of one matmul
    /// (`_find_producer_matmul`). Those two reduce-scatters each reduce a
    /// sum of matmuls (Q, K and V; gate and up), so they run as plain
    /// collectives that the rest of the block's backward waits for; the
    /// backward's gradient all-gathers are fused. PyTorch's announcement
    /// measured what this implies: up to 20 % faster forward passes, 8 %
    /// end to end on Llama 3 70B ("Distributed w/ TorchTitan: Introducing
    /// Async Tensor Parallelism", PyTorch forums, 2024). Transformer
    /// Engine overlaps them too (its `ub_overlap_rs_dgrad`).
    pub fn fuses_backward_reduce_scatters(self) -> bool {
        !matches!(
            self,
            TrainingStack::Torchtitan | TrainingStack::TorchtitanCompiled
        )
    }

    /// The stack shards with PyTorch's FSDP2 (`fully_shard`, per-parameter
    /// DTensor shards): torchtitan. Its all-gather lands in one flat buffer
    /// that is then copied into each parameter's own unsharded tensor
    /// (`_fsdp_param_group.py` `wait_for_unshard` →
    /// `_fsdp_collectives.py` `foreach_all_gather_copy_out`,
    /// `split_with_sizes_copy`), and its reduce-scatter input is first
    /// copied together from the parameters' gradients, cast to the reduce
    /// dtype (`foreach_reduce` → `foreach_reduce_scatter_copy_in`,
    /// `chunk_cat`); both run on the compute stream, before any switch to
    /// the collectives' streams. FSDP1's flat parameters (HF Trainer /
    /// Accelerate), DeepSpeed's ZeRO-3 and Megatron's distributed
    /// optimizer gather into and reduce from flat buffers that the
    /// parameters and gradients are views of.
    pub fn fsdp2(self) -> bool {
        matches!(
            self,
            TrainingStack::Torchtitan | TrainingStack::TorchtitanCompiled
        )
    }

    /// The loss kernel the stack runs when the plan names none: torchtitan
    /// with `training.compile` passes its loss through `torch.compile`
    /// too (`torchtitan/components/loss.py`, `build_cross_entropy_loss`,
    /// from pytorch/torchtitan#1033, 2025-04-02; from #1608, 2025-08-20,
    /// `compile.components` names "loss", on by default), so Inductor
    /// fuses the FP32 upcast, the log-softmax and the NLL, with or
    /// without loss parallel under TP. Between #755 (2024-12-18) and #1033
    /// the loss stayed eager, so runs of that time name `unfused`. Every
    /// other stack keeps its memory stack's default
    /// (`MemorySoftware::loss_kernel`).
    pub fn default_loss(self) -> Option<crate::software::LossKernel> {
        match self {
            TrainingStack::TorchtitanCompiled => Some(crate::software::LossKernel::Compiled),
            _ => None,
        }
    }

    /// The framework as the memory model sees it: whose layer code saves
    /// which tensors, and its loss and optimizer defaults.
    pub fn memory_stack(self) -> crate::software::MemoryStack {
        use crate::software::MemoryStack as M;
        match self {
            TrainingStack::MegatronCore | TrainingStack::MegatronDeepSpeed => M::Megatron,
            TrainingStack::Torchtitan | TrainingStack::TorchtitanCompiled => M::Torchtitan,
            // DeepSpeed runs the Hugging Face models' own eager modules.
            TrainingStack::DeepSpeed | TrainingStack::HfTrainer => M::HfEager,
        }
    }

    /// Every stack, in display order.
    pub const ALL: [TrainingStack; 6] = [
        TrainingStack::MegatronCore,
        TrainingStack::Torchtitan,
        TrainingStack::TorchtitanCompiled,
        TrainingStack::DeepSpeed,
        TrainingStack::HfTrainer,
        TrainingStack::MegatronDeepSpeed,
    ];

    /// The frameworks a team would move to today: every stack but the
    /// 2021–22 Megatron-DeepSpeed fork, which is here to price the runs
    /// it made.
    pub const DESTINATIONS: [TrainingStack; 5] = [
        TrainingStack::MegatronCore,
        TrainingStack::Torchtitan,
        TrainingStack::TorchtitanCompiled,
        TrainingStack::DeepSpeed,
        TrainingStack::HfTrainer,
    ];
}

crate::lang::named!(TrainingStack {
    TrainingStack::MegatronCore => "megatron_core", "Megatron-Core / Transformer Engine", "Megatron-Core / Transformer Engine";
    TrainingStack::Torchtitan => "torchtitan", "torchtitan / FSDP2 (eager)", "torchtitan / FSDP2（eager 模式）";
    TrainingStack::TorchtitanCompiled => "torchtitan_compiled", "torchtitan / FSDP2 + torch.compile", "torchtitan / FSDP2 + torch.compile 编译";
    TrainingStack::DeepSpeed => "deepspeed", "DeepSpeed ZeRO", "DeepSpeed ZeRO";
    TrainingStack::HfTrainer => "hf_trainer", "Hugging Face Trainer / Accelerate", "Hugging Face Trainer / Accelerate";
    TrainingStack::MegatronDeepSpeed => "megatron_deepspeed", "Megatron-DeepSpeed", "Megatron-DeepSpeed";
});

/// How the optimizer step is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptimizerImpl {
    /// One fused multi-tensor kernel (apex / Transformer Engine / DeepSpeed
    /// `FusedAdam`, `torch.optim.AdamW(fused=True)`): parameters,
    /// gradients and both moments are read once and written once.
    Fused,
    /// `torch.optim.AdamW`'s default `foreach` path
    /// (`_multi_tensor_adamw` in `torch/optim/adamw.py`): one multi-tensor
    /// kernel per arithmetic op (lerp, mul, addcmul, sqrt, div, add,
    /// addcdiv, and the weight-decay mul), each a pass over its operands.
    Foreach,
}

impl OptimizerImpl {
    /// HBM traffic of the step relative to the fused kernel. Counted in
    /// FP32 words per parameter: the fused kernel reads p, g, m, v and
    /// writes p, m, v (7); the foreach path's passes read and write
    /// 3 (lerp m) + 2 (mul v) + 3 (addcmul v) + 2 (sqrt) + 2 (div) + 2 (add
    /// ε) + 4 (addcdiv p) + 2 (decay p) = 20 words.
    pub fn traffic_factor(self) -> f64 {
        match self {
            OptimizerImpl::Fused => 1.0,
            OptimizerImpl::Foreach => 20.0 / 7.0,
        }
    }
}

/// One stack's efficiencies and kernel choices.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StackProfile {
    /// The efficiency knobs the stack sets (GEMM, attention and per-layer
    /// overhead; the rest stay at [`Efficiency::default`]). A plan's
    /// explicit `efficiency` values override these.
    pub efficiency: Efficiency,
    /// Element-wise HBM traffic of a layer relative to a fully fused layer
    /// (norms, rotary embeddings, the gated activation, residual adds).
    pub elementwise: f64,
    /// The optimizer step's implementation.
    pub optimizer: OptimizerImpl,
    /// The attention kernel the stack runs on Hopper. Every stack runs
    /// FlashAttention-2-class kernels on Ampere and Ada.
    pub hopper_attention: AttentionImpl,
}

/// Element-wise traffic of an eager Llama-style layer relative to a fused
/// one, counted from the modules eager stacks run (Hugging Face
/// `LlamaRMSNorm`, `apply_rotary_pos_emb`, `act_fn(gate) * up`; torchtitan's
/// `RMSNorm` and rotary are written the same way): per token and layer the
/// two RMSNorms move 16 h-sized 16-bit passes each instead of 2 (cast to
/// FP32, square, mean, scale, cast back, weight), rotary embeddings about
/// 10 passes over Q and K instead of 2, the gated activation 5 FFN-wide
/// passes instead of 3. For Llama 3 8B (h 4096, FFN 14336, Q 4096, K 1024)
/// that is 278,528 against 94,208 elements a token: 2.96×.
const EAGER_ELEMENTWISE: f64 = 2.96;

/// Fraction of the matmul ceiling that the GEMMs of a PyTorch-native
/// training step reach: fitted, by least squares over a 0.01 grid, on
/// torchtitan's eight A100 runs (docs/validation.md, PyTorch-native
/// table; the H100 runs are left out of the fit because their 500 W parts
/// have an unknown peak), with every other cost in place: 0.80 until
/// 2026-12-07, 0.83 since FSDP2's copies on the compute stream are
/// charged (`time::training::fsdp2_copies`; summed squared percent error
/// 66.2 at 0.82, 54.4 at 0.83, 55.2 at 0.84). What the time model now
/// prices apart from the GEMM rate: the separate Q, K, V, gate and up
/// linears' summed input gradients and narrow GEMMs (`time::work`), the
/// eager element-wise traffic and FSDP2's copies. What is left in the
/// fraction: Megatron accumulates weight gradients inside the GEMM into
/// FP32 main grads (`gradient_accumulation_fusion`) and runs fewer,
/// larger GEMMs.
const PYTORCH_GEMM: f64 = 0.83;

/// Fraction of the matmul ceiling Megatron-DeepSpeed's GEMMs reach,
/// fitted once, by least squares over a 0.01 grid, on its seven published
/// runs (docs/validation.md, "DeepSpeed": DeepSpeed's ZeRO-3 Azure runs at
/// 256–1,024 A100, BLOOM 176B on 384 A100, MT-NLG 530B on 2,240–3,360
/// A100), with every other cost of the time model in place. On the same
/// layer shapes Megatron-LM itself (Korthikanti et al. 2022, Table 5:
/// 530B, TP 8, PP 35, full recompute, 0.175 s per micro-batch) ran about
/// 30 % faster per micro-batch than MT-NLG did (0.23 s), which the
/// Megatron-Core default of 0.90 reproduces; the fork's 2021–22 kernels,
/// PyTorch and CUDA releases and the DeepSpeed engine around them account
/// for the difference.
const MEGATRON_DEEPSPEED_GEMM: f64 = 0.69;

/// Element-wise HBM traffic of one eager layer relative to a fused one,
/// for a model and the layer code that runs it. Per token, in 16-bit
/// elements, a fused layer moves two norms (2h each), two residual adds
/// (3h each), its activation (3 FFN-wide passes gated, 2 not) and rotary
/// embeddings (2 passes over Q and K) — the count of
/// `time::work::elementwise_bytes`. The eager layer moves its norms'
/// passes ([`crate::software::LayerCode::rms_norm_passes`]; `nn.LayerNorm`
/// is one kernel, 2h), the same residual adds, 5 FFN-wide passes for a
/// gated activation (`act(gate) * up`: read gate, write the activation,
/// read it and up, write the product) and the code's rotary passes. For
/// Llama 3 8B in transformers' code this is [`EAGER_ELEMENTWISE`], 2.96;
/// a GPT-2-style layer (LayerNorm, GELU, learned positions) runs one
/// kernel per fused step anyway: 1.
pub fn eager_elementwise(spec: &crate::model::ModelSpec, code: &crate::software::LayerCode) -> f64 {
    let h = f64::from(spec.hidden);
    let f = f64::from(spec.ffn);
    let s = spec.attention_shape();
    let qk = s.q_width + s.k_width;
    let gated = spec.activation.is_gated();
    let rotary = matches!(spec.positions, crate::model::Positions::Rotary);
    let fused = 10.0 * h + if gated { 3.0 } else { 2.0 } * f + 2.0 * qk;
    let norm = match spec.norm {
        crate::model::Norm::RmsNorm => code.rms_norm_passes * h,
        crate::model::Norm::LayerNorm => 2.0 * h,
    };
    let eager = 2.0 * norm
        + 6.0 * h
        + if gated { 5.0 } else { 2.0 } * f
        + if rotary { code.rotary_passes } else { 2.0 } * qk;
    if fused > 0.0 {
        (eager / fused).max(1.0)
    } else {
        1.0
    }
}

/// HBM bytes per token and hidden element that `torch.autocast` over FP32
/// weights adds to an eager layer. The residual stream stays FP32 (the
/// embedding's output is FP32 and each residual add promotes), so the two
/// adds read 4 B and write 4 B where a 16-bit stream moves 2 (+8 B) and
/// the two norms read FP32 (+4 B); every linear that reads a norm's output
/// casts it to 16 bits first (read 4 B, write 2 B: 6 B each): Q, K and V
/// (one fused QKV in PyTorch-native code) and gate and up (one fused
/// gate-up), or the one up projection of a plain MLP.
pub fn autocast_traffic(
    spec: &crate::model::ModelSpec,
    code: &crate::software::LayerCode,
    dispatch: Dispatch,
) -> f64 {
    if dispatch
        != (Dispatch::Eager {
            cache: false,
            autocast: true,
        })
    {
        return 0.0;
    }
    let mlp_inputs = if spec.activation.is_gated() {
        code.gated_linears - 1.0
    } else {
        1.0
    };
    12.0 + 6.0 * (code.qkv_linears + mlp_inputs)
}

/// Per-expert host time of torchtitan's MoE layer: none. Its experts run
/// as one `torch._grouped_mm` per matrix over all local experts
/// (`GroupedExperts`, `use_grouped_mm` on by default), so its launches do
/// not grow with the experts per rank the way Transformer Engine's
/// per-expert GEMMs do (`Efficiency::moe_expert_host`). No torchtitan MoE
/// run has been measured against it.
const GROUPED_MM_EXPERT_HOST: Seconds = Seconds::ZERO;

/// Per-layer fixed cost of an eager stack: the fused layer's 30 µs
/// (fitted on Megatron runs, `Efficiency::default`) times the same ratio of
/// kernels launched, since each unfused op is its own launch.
fn eager_layer_overhead() -> Seconds {
    Efficiency::default().layer_overhead * EAGER_ELEMENTWISE
}

impl TrainingStack {
    /// The stack's profile.
    ///
    /// GEMM and attention fractions are the same for every stack: all of
    /// them call cuBLAS(Lt) for their GEMMs and the attention fraction is
    /// taken of the kernel the stack runs (`catalog::AttentionImpl`), so
    /// the stacks differ in which kernel, not in how well one kernel runs.
    /// Megatron-Core's values are the defaults fitted on the Megatron-LM
    /// and NeMo runs of docs/validation.md.
    pub fn profile(self) -> StackProfile {
        let fused = Efficiency::default();
        let torch = Efficiency {
            gemm: PYTORCH_GEMM,
            ..fused
        };
        let eager = Efficiency {
            layer_overhead: eager_layer_overhead(),
            ..torch
        };
        match self {
            // Transformer Engine picks cuDNN's fused attention on sm90
            // (`NVTE_FUSED_ATTN`); Megatron fuses bias-activation,
            // bias-dropout-add, RoPE and norms, and uses fused Adam.
            TrainingStack::MegatronCore => StackProfile {
                efficiency: fused,
                elementwise: self.elementwise(),
                optimizer: self.optimizer(),
                hopper_attention: self.attention_kernel(GpuArch::Hopper),
            },
            // torchtitan's published runs use PyTorch SDPA, whose default
            // backend on H100 is the FlashAttention-2 kernel (cuDNN SDPA
            // became opt-in after PyTorch 2.5, pytorch/pytorch#138522;
            // torchtitan's own cuDNN switch came in torchtitan#1000, March
            // 2025), `foreach` AdamW (`optimizer.fused = false` by default
            // in its 2024 configs).
            TrainingStack::Torchtitan => StackProfile {
                efficiency: Efficiency {
                    moe_expert_host: GROUPED_MM_EXPERT_HOST,
                    ..eager
                },
                elementwise: self.elementwise(),
                optimizer: self.optimizer(),
                hopper_attention: self.attention_kernel(GpuArch::Hopper),
            },
            // Inductor fuses each element-wise chain into one kernel and
            // CUDA-graph-free launches stay per fused kernel.
            TrainingStack::TorchtitanCompiled => StackProfile {
                efficiency: Efficiency {
                    moe_expert_host: GROUPED_MM_EXPERT_HOST,
                    ..torch
                },
                elementwise: self.elementwise(),
                optimizer: self.optimizer(),
                hopper_attention: self.attention_kernel(GpuArch::Hopper),
            },
            // DeepSpeed wraps the Hugging Face model as written (eager
            // modules, `flash_attention_2` from the flash-attn 2 package)
            // and swaps Adam for its own `FusedAdam`.
            TrainingStack::DeepSpeed => StackProfile {
                efficiency: eager,
                elementwise: self.elementwise(),
                optimizer: self.optimizer(),
                hopper_attention: self.attention_kernel(GpuArch::Hopper),
            },
            // Megatron-LM's fused kernels and fused Adam; only the GEMM
            // fraction is its own.
            TrainingStack::MegatronDeepSpeed => StackProfile {
                efficiency: Efficiency {
                    gemm: MEGATRON_DEEPSPEED_GEMM,
                    ..fused
                },
                elementwise: self.elementwise(),
                optimizer: self.optimizer(),
                hopper_attention: self.attention_kernel(GpuArch::Hopper),
            },
            // The Trainer's defaults: SDPA (FlashAttention-2 backend on
            // Hopper) and `optim = "adamw_torch"`.
            TrainingStack::HfTrainer => StackProfile {
                efficiency: eager,
                elementwise: self.elementwise(),
                optimizer: self.optimizer(),
                hopper_attention: self.attention_kernel(GpuArch::Hopper),
            },
        }
    }

    /// The attention kernel the stack runs on an architecture.
    #[inline]
    pub fn attention_kernel(self, arch: GpuArch) -> AttentionImpl {
        match (arch, self) {
            // Transformer Engine: cuDNN fused attention on sm90.
            (GpuArch::Hopper, TrainingStack::MegatronCore) => AttentionImpl::Native,
            // PyTorch SDPA's default backend and flash-attn 2.
            (GpuArch::Hopper, _) => AttentionImpl::FlashAttention2,
            _ => AttentionImpl::Native,
        }
    }

    /// [`StackProfile::elementwise`], without building the profile (the
    /// time model asks once per layer kind and candidate).
    #[inline]
    pub fn elementwise(self) -> f64 {
        match self {
            TrainingStack::Torchtitan | TrainingStack::DeepSpeed | TrainingStack::HfTrainer => {
                EAGER_ELEMENTWISE
            }
            TrainingStack::MegatronCore
            | TrainingStack::TorchtitanCompiled
            | TrainingStack::MegatronDeepSpeed => 1.0,
        }
    }

    /// [`StackProfile::optimizer`], without building the profile.
    #[inline]
    pub fn optimizer(self) -> OptimizerImpl {
        match self {
            TrainingStack::MegatronCore
            | TrainingStack::DeepSpeed
            | TrainingStack::MegatronDeepSpeed => OptimizerImpl::Fused,
            _ => OptimizerImpl::Foreach,
        }
    }
}

/// How the host issues a pass's kernels, which sets the host's time per
/// layer (`time::host`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dispatch {
    /// Eager PyTorch: every operator from Python through the dispatcher.
    /// `cache`: the pass writes a KV cache (serving); `autocast`: 16-bit
    /// compute over FP32 weights, so every linear casts its input and
    /// weight first.
    Eager {
        /// The pass writes a KV cache.
        cache: bool,
        /// Autocast casts every linear's input and weight.
        autocast: bool,
    },
    /// Fused kernels issued by the framework (Megatron-Core with
    /// Transformer Engine, `torch.compile` without CUDA graphs).
    Fused,
    /// CUDA graphs replayed: one launch a step, nothing per layer (vLLM,
    /// SGLang and TensorRT-LLM decode).
    Graphs,
}

impl TrainingStack {
    /// How the stack issues its kernels: the eager stacks run the models'
    /// PyTorch modules op by op; Megatron's fused kernels and Inductor's
    /// generated ones issue about one kernel per fused region.
    ///
    /// `autocast` (16-bit compute over FP32 weights) is how the Hugging
    /// Face Trainer runs `bf16=True`/`fp16=True` over a model loaded in
    /// FP32 (`torch.autocast`); FSDP2's `MixedPrecisionPolicy` (torchtitan)
    /// casts the parameters at their all-gather instead, and DeepSpeed's
    /// bf16/fp16 engine holds the module in 16 bits, so neither casts
    /// activations.
    pub fn dispatch(self, autocast: bool) -> Dispatch {
        match self {
            TrainingStack::Torchtitan | TrainingStack::DeepSpeed => Dispatch::Eager {
                cache: false,
                autocast: false,
            },
            TrainingStack::HfTrainer => Dispatch::Eager {
                cache: false,
                autocast,
            },
            TrainingStack::MegatronCore
            | TrainingStack::TorchtitanCompiled
            | TrainingStack::MegatronDeepSpeed => Dispatch::Fused,
        }
    }
}

/// What the time model reads from the stack, resolved once per plan and
/// GPU (`resolve`), so the search's inner loop does no look-ups.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StackFactors {
    /// Fraction of the dense 16-bit peak the stack's attention kernel
    /// reaches on the GPU (`catalog::kernel_attention_ceiling`).
    pub attention_ceiling: f64,
    /// [`StackProfile::elementwise`].
    pub elementwise: f64,
    /// [`OptimizerImpl::traffic_factor`] of the stack's optimizer.
    pub optimizer_passes: f64,
    /// How the host issues the kernels.
    pub dispatch: Dispatch,
    /// HBM bytes per token and hidden element that autocast over FP32
    /// weights adds to a layer ([`autocast_traffic`]); 0 without it.
    pub autocast_traffic: f64,
    /// Materialised attention runs in FP32
    /// ([`crate::software::LayerCode::fp32_math_attention`]).
    pub fp32_math_attention: bool,
    /// Linears that read the attention block's input and the dense MLP's
    /// ([`input_readers`]).
    pub input_readers: [f64; 2],
    /// HBM passes over one input, in units of its size, that summing its
    /// readers' input gradients costs in backward ([`grad_sum_passes`]),
    /// for the attention input and the MLP input.
    pub grad_sum_passes: [f64; 2],
}

/// Linears that read one layer's attention input and its dense MLP input,
/// as the stack's layer code builds them. Megatron-Core (Transformer
/// Engine's `LayerNormLinear`) and Megatron-DeepSpeed run one fused QKV
/// linear and one fused `fc1` (gate and up together), as the serving
/// engines do (vLLM's `QKVParallelLinear` and `MergedColumnParallelLinear`,
/// TensorRT-LLM's fused QKV): one reader each. Code written after
/// transformers' Llama (torchtitan's `wq`, `wk`, `wv`, `w1`, `w3`;
/// `LlamaAttention`'s `q_proj`, `k_proj`, `v_proj`, `LlamaMLP`'s
/// `gate_proj`, `up_proj`) keeps them apart: the layer code's
/// [`crate::software::LayerCode::qkv_linears`] and its gated linears less
/// the down projection. GPT-2-style layers (LayerNorm, an ungated MLP:
/// GPT-2's `c_attn`, GPT-NeoX's `query_key_value`, MPT's `Wqkv`) project
/// Q, K and V in one linear whatever the framework, so the separate
/// readers are taken for gated models only.
pub fn input_readers(
    stack: Option<TrainingStack>,
    spec: &crate::model::ModelSpec,
    code: &crate::software::LayerCode,
) -> [f64; 2] {
    match stack {
        Some(TrainingStack::MegatronCore | TrainingStack::MegatronDeepSpeed) | None => [1.0, 1.0],
        Some(_) if spec.activation.is_gated() => [
            code.qkv_linears.max(1.0),
            (code.gated_linears - 1.0).max(1.0),
        ],
        Some(_) => [1.0, 1.0],
    }
}

/// HBM passes, in units of the input's size, that autograd spends summing
/// the input gradients of a tensor `readers` linears read. Each reader's
/// backward writes its own input gradient (a GEMM output); the engine
/// accumulates them into one (`torch/csrc/autograd/input_buffer.cpp`,
/// `InputBuffer::add`): eager PyTorch adds each further gradient in its
/// own kernel (read two, write one: 3 passes per add), a compiled
/// backward (`torch.compile`, AOTAutograd's joint graph) fuses the adds
/// into one point-wise kernel that reads every gradient and writes the
/// sum (`readers + 1` passes). One reader sums nothing.
pub fn grad_sum_passes(readers: f64, dispatch: Dispatch) -> f64 {
    if readers <= 1.0 {
        return 0.0;
    }
    match dispatch {
        Dispatch::Eager { .. } => 3.0 * (readers - 1.0),
        Dispatch::Fused | Dispatch::Graphs => readers + 1.0,
    }
}

impl StackFactors {
    /// The factors of `stack` on `arch`; with no stack (serving) the
    /// architecture's best attention kernel and fused element-wise work.
    /// An optimizer implementation the plan states
    /// (`levers.memory.optimizer_impl`) replaces the stack's, so the time
    /// model runs the optimizer the memory model holds.
    /// `dispatch` is how the host issues the kernels
    /// ([`TrainingStack::dispatch`], or the serving engine's).
    /// The element-wise factor of an eager stack is counted for the
    /// model's layer and the framework's layer code
    /// ([`eager_elementwise`]).
    pub fn of(
        stack: Option<TrainingStack>,
        arch: GpuArch,
        stated: crate::software::OptimizerImpl,
        dispatch: Dispatch,
        (spec, code): (&crate::model::ModelSpec, crate::software::LayerCode),
    ) -> Self {
        use crate::software::OptimizerImpl as Stated;
        let readers = input_readers(stack, spec, &code);
        let sums = readers.map(|n| grad_sum_passes(n, dispatch));
        match stack {
            Some(s) => StackFactors {
                attention_ceiling: crate::catalog::kernel_attention_ceiling(
                    s.attention_kernel(arch),
                    arch,
                ),
                elementwise: if s.elementwise() > 1.0 {
                    eager_elementwise(spec, &code)
                } else {
                    1.0
                },
                optimizer_passes: match stated {
                    Stated::StackDefault => s.optimizer(),
                    // A per-parameter loop runs the same unfused passes.
                    Stated::Foreach | Stated::ForLoop => OptimizerImpl::Foreach,
                    Stated::Fused | Stated::Paged => OptimizerImpl::Fused,
                }
                .traffic_factor(),
                dispatch,
                autocast_traffic: autocast_traffic(spec, &code, dispatch),
                fp32_math_attention: code.fp32_math_attention,
                input_readers: readers,
                grad_sum_passes: sums,
            },
            None => StackFactors {
                attention_ceiling: crate::catalog::attention_ceiling(arch),
                elementwise: 1.0,
                optimizer_passes: 1.0,
                dispatch,
                autocast_traffic: 0.0,
                fp32_math_attention: code.fp32_math_attention,
                input_readers: readers,
                grad_sum_passes: sums,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::kernel_attention_ceiling;

    #[test]
    fn input_readers_follow_the_layer_code() {
        use crate::catalog::{model, ModelId};
        use crate::software::MemoryStack;
        let llama = model(ModelId::Llama31_8b).spec;
        let gpt2 = model(ModelId::Gpt2Xl).spec;
        let titan = MemoryStack::Torchtitan.layer_code();
        let native = MemoryStack::PytorchNative.layer_code();
        let t = Some(TrainingStack::Torchtitan);
        assert_eq!(input_readers(t, &llama, &titan), [3.0, 2.0]);
        // One fused QKV and one fused gate-up linear.
        assert_eq!(input_readers(t, &llama, &native), [1.0, 1.0]);
        // GPT-2-style layers fuse QKV whatever the framework.
        assert_eq!(input_readers(t, &gpt2, &titan), [1.0, 1.0]);
        assert_eq!(
            input_readers(Some(TrainingStack::MegatronCore), &llama, &titan),
            [1.0, 1.0]
        );
        assert_eq!(input_readers(None, &llama, &titan), [1.0, 1.0]);
        let eager = Dispatch::Eager {
            cache: false,
            autocast: false,
        };
        assert_eq!(grad_sum_passes(3.0, eager), 6.0);
        assert_eq!(grad_sum_passes(3.0, Dispatch::Fused), 4.0);
        assert_eq!(grad_sum_passes(1.0, eager), 0.0);
    }

    #[test]
    fn only_hopper_aware_stacks_get_hopper_native_attention() {
        let c = |s: TrainingStack, a| kernel_attention_ceiling(s.attention_kernel(a), a);
        assert!(
            c(TrainingStack::MegatronCore, GpuArch::Hopper)
                > 2.0 * c(TrainingStack::HfTrainer, GpuArch::Hopper)
        );
        for s in TrainingStack::ALL {
            // On Ampere every stack runs the same FlashAttention-2 kernel.
            assert_eq!(
                c(s, GpuArch::Ampere),
                c(TrainingStack::MegatronCore, GpuArch::Ampere)
            );
            assert!(c(s, GpuArch::Hopper) <= crate::catalog::attention_ceiling(GpuArch::Hopper));
        }
    }

    #[test]
    fn a_stated_optimizer_replaces_the_stacks_in_the_time_model() {
        use crate::software::OptimizerImpl as Stated;
        let spec = crate::catalog::model(crate::catalog::ModelId::Llama31_8b).spec;
        let of = |s| {
            StackFactors::of(
                Some(TrainingStack::HfTrainer),
                GpuArch::Hopper,
                s,
                Dispatch::Fused,
                (&spec, crate::software::MemoryStack::HfEager.layer_code()),
            )
        };
        assert_eq!(
            of(Stated::StackDefault).optimizer_passes,
            OptimizerImpl::Foreach.traffic_factor()
        );
        assert_eq!(of(Stated::Fused).optimizer_passes, 1.0);
        assert_eq!(of(Stated::Paged).optimizer_passes, 1.0);
        assert_eq!(
            of(Stated::ForLoop).optimizer_passes,
            OptimizerImpl::Foreach.traffic_factor()
        );
        let mc = |s| {
            StackFactors::of(
                Some(TrainingStack::MegatronCore),
                GpuArch::Hopper,
                s,
                Dispatch::Fused,
                (&spec, crate::software::MemoryStack::HfEager.layer_code()),
            )
        };
        assert_eq!(mc(Stated::StackDefault).optimizer_passes, 1.0);
        assert!(mc(Stated::Foreach).optimizer_passes > 1.0);
    }

    #[test]
    fn eager_elementwise_traffic_follows_the_layer_code() {
        use crate::catalog::{model, ModelId};
        use crate::software::MemoryStack;
        let llama = model(ModelId::Llama31_8b).spec;
        let hf = MemoryStack::HfEager.layer_code();
        // Llama 3 8B in transformers' code: the profile's 2.96.
        assert!((eager_elementwise(&llama, &hf) - EAGER_ELEMENTWISE).abs() < 0.01);
        // nn.RMSNorm moves less than transformers' Python norm.
        let native = MemoryStack::PytorchNative.layer_code();
        assert!(eager_elementwise(&llama, &native) < eager_elementwise(&llama, &hf));
        // GPT-2: LayerNorm, GELU, learned positions: nothing to unfuse.
        let gpt2 = model(ModelId::Gpt2Xl).spec;
        assert_eq!(eager_elementwise(&gpt2, &hf), 1.0);
    }

    #[test]
    fn autocast_over_fp32_weights_moves_the_residual_stream_and_the_casts() {
        use crate::catalog::{model, ModelId};
        use crate::software::MemoryStack;
        let llama = model(ModelId::Llama31_8b).spec;
        let gpt2 = model(ModelId::Gpt2Xl).spec;
        let amp = TrainingStack::HfTrainer.dispatch(true);
        // transformers: Q, K, V, gate and up each cast the norm's output.
        let hf = MemoryStack::HfEager.layer_code();
        assert_eq!(autocast_traffic(&llama, &hf, amp), 12.0 + 6.0 * 5.0);
        // nanoGPT-style: one fused QKV and one up projection.
        let native = MemoryStack::PytorchNative.layer_code();
        assert_eq!(autocast_traffic(&gpt2, &native, amp), 12.0 + 6.0 * 2.0);
        // Pure 16-bit, FSDP2's parameter casts and DeepSpeed's 16-bit
        // module cast no activation.
        assert_eq!(
            autocast_traffic(&llama, &hf, TrainingStack::HfTrainer.dispatch(false)),
            0.0
        );
        for s in [
            TrainingStack::Torchtitan,
            TrainingStack::DeepSpeed,
            TrainingStack::MegatronCore,
        ] {
            assert_eq!(
                autocast_traffic(&llama, &hf, s.dispatch(true)),
                0.0,
                "{s:?}"
            );
        }
    }

    #[test]
    fn eager_stacks_move_more_bytes_than_fused_ones() {
        let m = TrainingStack::MegatronCore.profile();
        for s in [TrainingStack::Torchtitan, TrainingStack::HfTrainer] {
            let p = s.profile();
            assert!(p.elementwise > m.elementwise);
            assert!(p.efficiency.layer_overhead > m.efficiency.layer_overhead);
        }
        assert!(OptimizerImpl::Foreach.traffic_factor() > OptimizerImpl::Fused.traffic_factor());
    }
}
