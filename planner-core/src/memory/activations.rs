//! Activation memory of one transformer layer, after Korthikanti et al.,
//! "Reducing Activation Recomputation in Large Transformer Models"
//! (MLSys 2023, arXiv:2205.05198), §4.1 and Table 2, generalised to GQA/MLA
//! widths, gated FFNs, MoE, FlashAttention, FP8 GEMM inputs and no dropout.
//!
//! With 16-bit activations, dropout, MHA (a·d = h) and a 4h GeLU FFN the
//! terms below add up to the paper's sbh(34 + 5as/h) per layer:
//! replicated 10sbh (two LayerNorm inputs 4, QKV and MLP inputs 4, two
//! dropout masks 2), TP-sharded 24sbh (Q, K, V, projection input 8; FFN
//! 16), attention scores 5as²b (softmax 2, its dropout mask 1 and output 2).

use crate::model::{ModelSpec, Norm};
use crate::plan::{AttentionKernel, LoraTargets};
use crate::software::MemoryStack;

/// Shapes and formats of one micro-batch through one layer on one rank.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ActContext {
    /// Tokens of the local sequence slice (s / cp).
    pub seq: f64,
    /// Keys each query attends to (s; the whole sequence under CP).
    pub keys: f64,
    /// Sequences in the micro-batch.
    pub batch: f64,
    /// TP degree.
    pub tp: f64,
    /// Sequence parallelism on (replicated terms split by TP).
    pub sp: bool,
    /// Bytes of a saved activation (2 for BF16).
    pub act_bytes: f64,
    /// Bytes of a saved GEMM input (1 with FP8 compute, else `act_bytes`).
    pub gemm_bytes: f64,
    /// Dropout masks present.
    pub dropout: bool,
    /// Attention kernel.
    pub kernel: AttentionKernel,
    /// Bytes one norm keeps per element of its input (the stack's
    /// saved-tensor table, [`saved_bytes`]).
    pub norm_bytes: f64,
    /// Bytes of the softmax output an eager attention keeps per score (4
    /// when autocast runs the softmax in FP32, else `act_bytes`).
    pub softmax_bytes: f64,
    /// The materialised attention runs in FP32 (SDPA's math backend,
    /// `software::LayerCode::fp32_math_attention`): Q, K, V and the
    /// probabilities are kept in FP32, with no 16-bit cast.
    pub fp32_math: bool,
    /// What selective recomputation keeps ([`selective_policy`]).
    pub selective: SelectivePolicy,
    /// Column-parallel linears keep their all-gathered input (DTensor
    /// tensor parallelism, [`gathers_saved`]) rather than the
    /// sequence-parallel shard.
    pub gathered_inputs: bool,
    /// What the layer's linears (and their adapters) keep of their inputs
    /// ([`LinearSaves::trained`] when every weight trains).
    pub linears: LinearSaves,
    /// Bytes per FFN unit a gated unit keeps beyond its gate and up
    /// outputs ([`silu_output_bytes`]).
    pub gate_output_bytes: f64,
}

/// Bytes per element of its input each group of a layer's linears keeps
/// for its own backward, with what LoRA adapters on it keep.
///
/// A linear keeps its input only for its weight gradient: PyTorch's
/// autograd saves `mm`'s `self` only when the weight needs a gradient
/// (`tools/autograd/derivatives.yaml`, `mm: mat2: mm_mat2_backward(grad,
/// self, ...)`, the generated code guarding each save with
/// `should_compute_output`). A frozen base layer under LoRA keeps nothing
/// (its input gradient needs only the weight); a bitsandbytes 4-bit layer
/// before 0.43.2 kept its input regardless ([`Bitsandbytes`](crate::software::Bitsandbytes)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct LinearSaves {
    /// The QKV projections' input (the first norm's output).
    pub qkv: f64,
    /// The attention output projection's input.
    pub out: f64,
    /// The FFN's first linears' input (the second norm's output).
    pub ffn_in: f64,
    /// The FFN output projection's input.
    pub ffn_out: f64,
    /// The attention kernel's own output when it is a tensor apart from
    /// the projection's input (FlashAttention keeps its output for
    /// backward; Hugging Face and LitGPT layouts transpose and reshape it
    /// into a copy before the projection). 0 when the projection's input
    /// term already is that tensor.
    pub attn_out: f64,
}

impl LinearSaves {
    /// Every weight trains: each linear keeps its input in the GEMM format
    /// `gb` (Korthikanti et al. Table 2), and the projection's input is
    /// the attention output.
    pub fn trained(gb: f64) -> Self {
        Self {
            qkv: gb,
            out: gb,
            ffn_in: gb,
            ffn_out: gb,
            attn_out: 0.0,
        }
    }

    /// A frozen base under LoRA adapters on `targets`. `base` is what a
    /// base linear keeps per input element (0, or the 16-bit input of a
    /// bitsandbytes 4-bit layer before 0.43.2). Each adapter's `lora_A`
    /// keeps its input for its weight gradient: with dropout a 16-bit
    /// copy and a 1-byte mask (one per adapted linear when Q, K and V are
    /// separate linears with their own dropout, as in PEFT; one per group
    /// when they are fused, as in LitGPT's `LoRAQKVLinear`); without
    /// dropout the layer's input itself, already counted if the base
    /// keeps it. FlashAttention's own output is kept whatever the
    /// projection does.
    pub fn lora(l: &LoraLayer) -> Self {
        let per = |adapted: f64| -> f64 {
            if adapted <= 0.0 {
                l.base
            } else if l.dropout {
                l.base + adapted * (l.ab + 1.0)
            } else {
                l.base.max(l.ab)
            }
        };
        let n = if l.separate_qkv { 1.0 } else { 0.0 };
        let (qkv, out, ffn_in, ffn_out) = match l.targets {
            LoraTargets::QueryValue => (1.0 + n, 0.0, 0.0, 0.0),
            LoraTargets::Attention => (1.0 + 2.0 * n, 1.0, 0.0, 0.0),
            LoraTargets::AllLinear => {
                let up = if l.gated && l.separate_qkv { 2.0 } else { 1.0 };
                (1.0 + 2.0 * n, 1.0, up, 1.0)
            }
        };
        Self {
            qkv: per(qkv),
            out: per(out),
            ffn_in: per(ffn_in),
            ffn_out: per(ffn_out),
            attn_out: if l.flash { l.ab } else { 0.0 },
        }
    }
}

/// The facts of a LoRA layer [`LinearSaves::lora`] reads.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LoraLayer {
    /// Adapted linears.
    pub targets: LoraTargets,
    /// Bytes a frozen base linear keeps per input element.
    pub base: f64,
    /// Adapters run dropout on their input.
    pub dropout: bool,
    /// Bytes of a 16-bit activation.
    pub ab: f64,
    /// Q, K, V (and gate, up) are separate linears with an adapter each.
    pub separate_qkv: bool,
    /// The FFN is gated (gate and up linears).
    pub gated: bool,
    /// The attention kernel is FlashAttention (keeps its output).
    pub flash: bool,
}

/// Whether a stack's Q, K and V are separate linears, each with its own
/// LoRA adapter and dropout: Hugging Face models (`q_proj`, `k_proj`,
/// `v_proj`, wrapped one by one by PEFT) are. The other stacks count as
/// one fused QKV input with one adapter group: Megatron's `linear_qkv`,
/// and LitGPT's `attn` (one `LoRAQKVLinear`), whose runs use the
/// torchtitan saved-tensor row.
pub(crate) fn separate_qkv(stack: MemoryStack) -> bool {
    matches!(stack, MemoryStack::HfEager)
}

/// Bytes per FFN unit a gated unit keeps beyond its gate and up outputs.
/// Eager PyTorch (`down(silu(gate(x)) * up(x))` in Hugging Face's
/// `LlamaMLP`, torchtitan's `FeedForward` and LitGPT's `LLaMAMLP`) keeps
/// `silu`'s input for its own backward and `silu`'s output for the
/// product's (`mul` saves each factor for the other's gradient), so three
/// `ab` tensors per unit; Megatron's fused `bias_swiglu` keeps only its
/// input (gate and up, `fused_bias_swiglu.py`) and recomputes the rest,
/// and so does a `torch.compile`d block (AOTAutograd's min-cut
/// partitioner recomputes cheap pointwise ops such as `silu` in backward
/// rather than saving them).
pub(crate) fn silu_output_bytes(stack: MemoryStack, compiled: bool, ab: f64) -> f64 {
    match (stack, compiled) {
        (MemoryStack::Megatron, _) | (_, true) => 0.0,
        (MemoryStack::Torchtitan | MemoryStack::HfEager | MemoryStack::PytorchNative, false) => ab,
    }
}

/// Whether a stack's sequence-parallel column-parallel linears save the
/// all-gathered input. Megatron's `LinearWithGradAccumulationAndAsync-
/// Communication` saves the local shard and all-gathers it again in
/// backward (Korthikanti et al. §4.2.2); torchtitan's DTensor
/// `ColwiseParallel(input_layouts=Shard(1))` redistributes the input to
/// `Replicate` before the matmul, so autograd keeps the gathered tensor
/// (`parallelize_llama.py`, attention/FFN inputs and the output layer).
pub(crate) fn gathers_saved(stack: MemoryStack) -> bool {
    matches!(stack, MemoryStack::Torchtitan)
}

/// What "selective" activation recomputation means in a stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SelectivePolicy {
    /// Korthikanti et al. §4.2.2 (Megatron `--recompute-granularity
    /// selective`, and what HF-style stacks approximate): the attention
    /// core (scores, softmax, its dropout) is recomputed, everything else
    /// kept.
    AttentionCore,
    /// torchtitan's op-level selective checkpointing (`selective_ac_option
    /// = "op"`, `parallelize_llama.py` `_save_list` and `_custom_policy`):
    /// each block keeps its input, the outputs of every other `aten.mm`
    /// (the 1st, 3rd, 5th… of the forward), the SDPA output with its
    /// log-sum-exp and reduce-scatter outputs; norms, RoPE, activations and
    /// the other matmuls are recomputed in backward.
    EveryOtherMatmul,
}

/// The selective policy of a stack.
pub(crate) fn selective_policy(stack: MemoryStack) -> SelectivePolicy {
    match stack {
        MemoryStack::Torchtitan => SelectivePolicy::EveryOtherMatmul,
        MemoryStack::Megatron | MemoryStack::HfEager | MemoryStack::PytorchNative => {
            SelectivePolicy::AttentionCore
        }
    }
}

/// The saved-tensor table: bytes per element a layer's norm keeps, and the
/// bytes per score of the softmax output an eager attention keeps, by
/// stack, norm and activation bytes `ab`.
/// - Megatron/TE: fused LayerNorm/RMSNorm kernels keep their 16-bit input
///   (and per-row statistics); the fused scale-mask-softmax keeps one
///   16-bit output. Korthikanti et al.'s counts (Table 2) are this row.
/// - torchtitan: `nn.RMSNorm` and SDPA; counted as Megatron (its norm keeps
///   the input; no eager softmax in its models).
/// - HF eager: `LlamaRMSNorm` (and its copies) runs `hidden.to(float32)`,
///   `pow(2)`, `* rsqrt(var)`, `.to(input_dtype)`, `weight *`: autograd
///   keeps the FP32 copy (4 B) and the normalised tensor in the input
///   dtype (ab); `nn.LayerNorm` is on autocast's FP32 list and keeps its
///   FP32 input (4 B). The eager softmax is FP32 under autocast
///   (`softmax(..., dtype=torch.float32)`, or autocast's FP32 list), so it
///   keeps 4 B per score, its dropout an FP32 output, and the value GEMM a
///   16-bit cast.
/// - PyTorch modules (nanoGPT-style): `nn.LayerNorm` as above;
///   `nn.RMSNorm` is counted as the Hugging Face norm (FP32 input and the
///   normalised tensor), which the H200 harness's TinyLlama-shape runs
///   bear out (peak allocated within 0.1 %, FlashAttention, no
///   checkpointing; docs/validation.md).
pub(crate) fn saved_bytes(stack: MemoryStack, norm: Norm, ab: f64) -> (f64, f64) {
    match (stack, norm) {
        (MemoryStack::Megatron | MemoryStack::Torchtitan, _) => (ab, ab),
        (MemoryStack::HfEager | MemoryStack::PytorchNative, Norm::RmsNorm) => (4.0 + ab, 4.0),
        (MemoryStack::HfEager | MemoryStack::PytorchNative, Norm::LayerNorm) => (4.0, 4.0),
    }
}

/// Bytes one layer keeps for backward, split by how they shard.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct LayerActs {
    /// Terms replicated across TP ranks (already divided by t under SP).
    pub replicated: f64,
    /// Terms split across TP ranks (already divided by t).
    pub sharded: f64,
    /// Attention-score terms (eager kernel; divided by t). FlashAttention
    /// keeps only its FP32 log-sum-exp here.
    pub scores: f64,
    /// The layer's input, all a fully recomputed layer keeps.
    pub input: f64,
    /// What selective recomputation keeps, by the stack's policy.
    pub selective: f64,
}

impl LayerActs {
    /// Everything stored, no recomputation.
    pub fn full(&self) -> f64 {
        self.replicated + self.sharded + self.scores
    }

    /// What selective recomputation keeps: under Korthikanti's policy the
    /// score terms are dropped (§4.2.2), and with FlashAttention there is
    /// nothing left to drop but the log-sum-exp, which the kernel needs
    /// anyway; under torchtitan's op policy, see [`op_selective`].
    pub fn selective(&self) -> f64 {
        self.selective
    }
}

/// The kind of FFN in a layer.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Ffn {
    Dense,
    Moe,
}

/// Activation bytes of one layer for one micro-batch on one rank.
pub(crate) fn layer(spec: &ModelSpec, ffn: Ffn, c: &ActContext) -> LayerActs {
    let sb = c.seq * c.batch;
    let h = f64::from(spec.hidden);
    let sbh = sb * h;
    let t = c.tp;
    let rep_div = if c.sp { t } else { 1.0 };
    let shape = spec.attention_shape();
    // K/V heads fewer than TP ranks are replicated: each rank keeps ≥ 1 head.
    let kv_per_rank = (1.0 / t).max(1.0 / f64::from(shape.kv_heads_sharded.max(1)));
    let (a, ab, gb) = (f64::from(spec.heads), c.act_bytes, c.gemm_bytes);
    let masks = if c.dropout { 1.0 } else { 0.0 };

    // LayerNorm inputs (2), QKV and MLP GEMM inputs, attention and MLP
    // output dropout masks.
    // Under SP the GEMM inputs are split by TP unless the stack keeps the
    // gathered copy ([`gathers_saved`]): they are counted at full size and
    // multiplied back up before the replicated terms are divided below.
    let gathered = if c.sp && c.gathered_inputs { t } else { 1.0 };
    let lin = c.linears;
    let mut replicated =
        2.0 * c.norm_bytes * sbh + (lin.qkv + lin.ffn_in) * sbh * gathered + 2.0 * masks * sbh;

    // Q, K and V as the attention core keeps them: FP32 copies on the
    // math path.
    let qkv_b = if c.fp32_math && c.kernel == AttentionKernel::Eager {
        4.0
    } else {
        ab
    };
    let attention = qkv_b * sb * shape.q_width / t
        + qkv_b * sb * (shape.k_width + shape.v_width) * kv_per_rank
        + (lin.out + lin.attn_out) * sb * shape.o_width / t;

    let gated = spec.activation.is_gated();
    // Non-gated: activation input (ab) and output = fc2 input per f.
    // Gated: gate and up outputs (2·ab), in eager stacks the gate's
    // activation output, and their product (fc2's input) per f.
    let per_f = if gated {
        2.0 * ab + c.gate_output_bytes + lin.ffn_out
    } else {
        ab + lin.ffn_out
    };
    let mlp = match (ffn, spec.moe) {
        (Ffn::Moe, Some(m)) => {
            let k = f64::from(m.top_k);
            // Router probabilities in FP32 and the permuted token copies
            // each routed expert receives (Megatron-Core MoE token dispatcher).
            replicated += 4.0 * sb * f64::from(m.experts) + k * gb * sbh;
            k * per_f * sb * f64::from(m.expert_ffn) / t + per_f * sb * f64::from(m.shared_ffn) / t
        }
        _ => per_f * sb * f64::from(spec.ffn) / t,
    };

    let scores = match c.kernel {
        // Softmax output (ab), and with dropout its mask (1) and output (ab).
        // The softmax output (sm), with dropout its mask and output (in
        // the softmax's dtype), and a cast to ab for the value GEMM when the
        // softmax ran wider.
        AttentionKernel::Eager => {
            let sm = if c.fp32_math { 4.0 } else { c.softmax_bytes };
            let cast = if sm > ab && !c.fp32_math { ab } else { 0.0 };
            a * sb * c.keys * (sm + masks * (1.0 + sm) + cast) / t
        }
        // FlashAttention keeps the FP32 log-sum-exp per query and head.
        AttentionKernel::Flash | AttentionKernel::FlashTriton => 4.0 * a * sb / t,
    };

    let (replicated, sharded, input) = (replicated / rep_div, attention + mlp, ab * sbh / rep_div);
    let selective = match (c.selective, c.kernel, ffn, spec.moe) {
        (SelectivePolicy::EveryOtherMatmul, _, Ffn::Dense, _)
        | (SelectivePolicy::EveryOtherMatmul, _, Ffn::Moe, None) => {
            input + op_selective(spec, c, kv_per_rank)
        }
        (SelectivePolicy::AttentionCore, AttentionKernel::Eager, _, _) => replicated + sharded,
        _ => replicated + sharded + scores,
    };
    LayerActs {
        replicated,
        sharded,
        scores,
        input,
        selective,
    }
}

/// Bytes one dense layer keeps beyond its input under torchtitan's op
/// policy: the outputs of the odd-numbered `aten.mm` calls in forward order
/// (Q, K, V, output projection, then W1, W3 for gated units, W2) and, with
/// FlashAttention, the SDPA output and its FP32 log-sum-exp. Eager
/// attention's `bmm`s and softmax are not on the save list. Row-parallel
/// outputs (attention and FFN output projections) are counted after their
/// reduce-scatter, which the list also keeps.
fn op_selective(spec: &ModelSpec, c: &ActContext, kv_per_rank: f64) -> f64 {
    let sb = c.seq * c.batch;
    let (h, t, ab) = (f64::from(spec.hidden), c.tp, c.act_bytes);
    let rep_div = if c.sp { t } else { 1.0 };
    let shape = spec.attention_shape();
    let f = f64::from(spec.ffn) / t;
    let mut mms = [0.0; 7];
    mms[0] = shape.q_width / t;
    mms[1] = shape.k_width * kv_per_rank;
    mms[2] = shape.v_width * kv_per_rank;
    mms[3] = h / rep_div;
    let n = if spec.activation.is_gated() {
        mms[4] = f;
        mms[5] = f;
        mms[6] = h / rep_div;
        7
    } else {
        mms[4] = f;
        mms[5] = h / rep_div;
        6
    };
    let kept: f64 = mms[..n].iter().step_by(2).sum();
    let sdpa = match c.kernel {
        AttentionKernel::Flash | AttentionKernel::FlashTriton => {
            shape.o_width / t * ab + 4.0 * f64::from(spec.heads) / t
        }
        AttentionKernel::Eager => 0.0,
    };
    sb * (ab * kept + sdpa)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{self, ModelId};

    fn ctx(t: f64, sp: bool, kernel: AttentionKernel) -> ActContext {
        ActContext {
            seq: 2048.0,
            keys: 2048.0,
            batch: 1.0,
            tp: t,
            sp,
            act_bytes: 2.0,
            gemm_bytes: 2.0,
            dropout: true,
            kernel,
            norm_bytes: 2.0,
            softmax_bytes: 2.0,
            fp32_math: false,
            selective: SelectivePolicy::AttentionCore,
            gathered_inputs: false,
            linears: LinearSaves::trained(2.0),
            gate_output_bytes: 0.0,
        }
    }

    /// Korthikanti et al. Table 2, all five rows, for GPT-3 175B at t = 8.
    #[test]
    fn table2_rows() {
        let spec = catalog::model(ModelId::Gpt3_175b).spec;
        let (s, b, h, a, t) = (2048.0, 1.0, 12288.0, 96.0, 8.0);
        let sbh = s * b * h;
        let eq1 = sbh * (34.0 + 5.0 * a * s / h);
        let l = layer(&spec, Ffn::Dense, &ctx(1.0, false, AttentionKernel::Eager));
        assert!((l.full() / eq1 - 1.0).abs() < 1e-12);

        let eq2 = sbh * (10.0 + 24.0 / t + 5.0 * a * s / (h * t));
        let l = layer(&spec, Ffn::Dense, &ctx(t, false, AttentionKernel::Eager));
        assert!((l.full() / eq2 - 1.0).abs() < 1e-12);
        let sel = sbh * (10.0 + 24.0 / t);
        assert!((l.selective() / sel - 1.0).abs() < 1e-12);
        assert_eq!(l.input, 2.0 * sbh);

        let eq4 = sbh / t * (34.0 + 5.0 * a * s / h);
        let l = layer(&spec, Ffn::Dense, &ctx(t, true, AttentionKernel::Eager));
        assert!((l.full() / eq4 - 1.0).abs() < 1e-12);
        let eq6 = sbh * 34.0 / t;
        assert!((l.selective() / eq6 - 1.0).abs() < 1e-12);
    }

    /// HF eager keeps FP32 norm copies and an FP32 softmax: more than
    /// Korthikanti's count, by exactly the table's bytes.
    #[test]
    fn hf_eager_keeps_fp32_norms_and_softmax() {
        let spec = catalog::model(ModelId::Gpt3_175b).spec;
        let base = ctx(1.0, false, AttentionKernel::Eager);
        let (norm, soft) = saved_bytes(MemoryStack::HfEager, Norm::RmsNorm, 2.0);
        let hf = ActContext {
            norm_bytes: norm,
            softmax_bytes: soft,
            fp32_math: false,
            ..base
        };
        let m = layer(&spec, Ffn::Dense, &base);
        let e = layer(&spec, Ffn::Dense, &hf);
        let (s, h, a) = (2048.0, 12288.0, 96.0);
        // Norms: 2 × 4 B more; scores: FP32 softmax and dropout output
        // (2 × 2 B more) and the 16-bit cast (2 B).
        let extra = 2.0 * 4.0 * s * h + a * s * s * 6.0;
        assert!(((e.full() - m.full()) / extra - 1.0).abs() < 1e-12);
        assert_eq!(
            saved_bytes(MemoryStack::Megatron, Norm::RmsNorm, 2.0),
            (2.0, 2.0)
        );
        // In FP32 nothing is upcast: a LayerNorm keeps its input only.
        assert_eq!(
            saved_bytes(MemoryStack::HfEager, Norm::LayerNorm, 4.0),
            (4.0, 4.0)
        );
    }

    /// DTensor TP keeps the gathered inputs of the QKV and FFN GEMMs: each
    /// is t times its sequence-parallel shard.
    #[test]
    fn dtensor_tp_keeps_gathered_gemm_inputs() {
        let spec = catalog::model(ModelId::Gpt3_175b).spec;
        let t = 8.0;
        let shard = ctx(t, true, AttentionKernel::Flash);
        let gathered = ActContext {
            gathered_inputs: true,
            ..shard
        };
        let (a, b) = (
            layer(&spec, Ffn::Dense, &shard),
            layer(&spec, Ffn::Dense, &gathered),
        );
        let sbh = 2048.0 * 12288.0;
        let extra = 2.0 * 2.0 * sbh * (1.0 - 1.0 / t);
        assert!(((b.replicated - a.replicated) / extra - 1.0).abs() < 1e-12);
        assert_eq!(a.sharded, b.sharded);
        assert!(gathers_saved(MemoryStack::Torchtitan));
        assert!(!gathers_saved(MemoryStack::Megatron));
    }

    /// What LoRA layers keep, by layout, dropout and 4-bit release.
    #[test]
    fn lora_linears_keep_only_what_their_adapters_and_4_bit_layers_save() {
        let l = LoraLayer {
            targets: LoraTargets::QueryValue,
            base: 0.0,
            dropout: true,
            ab: 2.0,
            separate_qkv: false,
            gated: true,
            flash: true,
        };
        // Fused QKV (LitGPT): one dropout copy (2) and mask (1); nothing
        // for the frozen projection and FFN but FlashAttention's output.
        let fused = LinearSaves::lora(&l);
        assert_eq!(
            (
                fused.qkv,
                fused.out,
                fused.ffn_in,
                fused.ffn_out,
                fused.attn_out
            ),
            (3.0, 0.0, 0.0, 0.0, 2.0)
        );
        // PEFT wraps q_proj and v_proj separately: two dropouts.
        let peft = LinearSaves::lora(&LoraLayer {
            separate_qkv: true,
            ..l
        });
        assert_eq!(peft.qkv, 6.0);
        // Every linear adapted (QLoRA's choice) under PEFT: q, k, v; o;
        // gate and up; down. A 4-bit base before 0.43.2 adds its input.
        let all = LinearSaves::lora(&LoraLayer {
            targets: LoraTargets::AllLinear,
            separate_qkv: true,
            base: 2.0,
            ..l
        });
        assert_eq!(
            (all.qkv, all.out, all.ffn_in, all.ffn_out),
            (2.0 + 9.0, 5.0, 2.0 + 6.0, 5.0)
        );
        // Without dropout an adapter keeps the input itself, once.
        let plain = LinearSaves::lora(&LoraLayer {
            dropout: false,
            targets: LoraTargets::AllLinear,
            flash: false,
            ..l
        });
        assert_eq!(
            (
                plain.qkv,
                plain.out,
                plain.ffn_in,
                plain.ffn_out,
                plain.attn_out
            ),
            (2.0, 2.0, 2.0, 2.0, 0.0)
        );
        // Full training keeps every input once and the projection's input
        // is the attention output.
        assert_eq!(LinearSaves::trained(1.0).attn_out, 0.0);
    }

    #[test]
    fn flash_drops_quadratic_term() {
        let spec = catalog::model(ModelId::Gpt3_175b).spec;
        let e = layer(&spec, Ffn::Dense, &ctx(8.0, true, AttentionKernel::Eager));
        let f = layer(&spec, Ffn::Dense, &ctx(8.0, true, AttentionKernel::Flash));
        assert!(f.full() < e.full());
        assert_eq!(f.replicated + f.sharded, e.replicated + e.sharded);
    }
}
