//! Host-bound passes: the CPU that issues the kernels as the floor under a
//! pass's time.
//!
//! A GPU runs kernels in the order the host queues them, and the host can
//! run ahead of the GPU by a whole launch queue. When a pass's kernels are
//! large the host's issue time hides behind them; when they are small —
//! small models, decode steps, short sequences — the GPU finishes each
//! kernel before the host has issued the next and waits. Eager PyTorch
//! issues every operator from Python through the dispatcher, so its host
//! time per layer is tens of operators at several microseconds each. The
//! PyTorch team's own trace of eager Llama-7B decoding at batch 1 on an
//! A100 ("Accelerating Generative AI with PyTorch II: GPT, Fast", PyTorch
//! blog, 2023-11-30: 25.5 tokens/s eager) found it "heavily CPU overhead
//! bound"; CUDA graphs or `torch.compile(mode="reduce-overhead")` replay
//! the whole step with one launch and took it past 100 tokens/s.
//!
//! The time of a pass is therefore never below the host's time to issue
//! it: `max(GPU time, host time)` per forward and per backward pass. The
//! GPU-side gap each kernel leaves even when the host is ahead stays in
//! `Efficiency::layer_overhead`.
//!
//! Host time = operators per layer × layers × `Efficiency::host_op`. The
//! operator counts are read from the layer code each kind of stack runs
//! ([`forward_ops`]); `host_op` is the host's time per operator, a property
//! of the CPU, Python and PyTorch release as much as of the stack.

use super::work::StageWork;
use crate::model::{Bias, ModelSpec, Norm, Positions};
use crate::plan::{AttentionKernel, Checkpointing};
use crate::resolve::Resolved;
use crate::software::MemoryStack;
use crate::stack::Dispatch;

/// Operators of one eager layer's forward, counted from the layer code
/// the stack runs ([`crate::software::LayerCode`]; transformers' Llama and GPT-2 layers,
/// torchtitan's `TransformerBlock`, nanoGPT-style modules):
/// - two norms and two residual adds;
/// - the QKV projections, the head split (`view` + `transpose` of Q, K and
///   V: 6), the merge (`transpose`, `contiguous`, `reshape`: 3) and the
///   output projection;
/// - rotary embeddings where the model has them; grouped K/V heads
///   expanded where the code does;
/// - the attention core: one `scaled_dot_product_attention`, or the eager
///   `matmul`, `transpose`, scale, mask add, `softmax`, cast, dropout and
///   `matmul` (8);
/// - the MLP: up, activation, down (3); gated: the gated linears, the
///   activation and the product; routed experts add about 8 operators per
///   expert (the per-expert loop of transformers' MoE blocks: select,
///   index, three linears, activation, product, `index_add_`);
/// - with dropout, three `dropout` calls; with a KV cache, two cache
///   writes;
/// - under autocast (16-bit compute over FP32 weights), a cast of the
///   input and one of the weight per linear call;
/// - each `nn.Module` call, counted as one operator more (its
///   `__call__` dispatch in Python): the block, its two norms, the
///   attention and MLP modules, every linear, and an activation module
///   where the code has one.
///
/// Fused stacks (Megatron-Core with Transformer Engine, `torch.compile`)
/// issue about ten kernels a layer (fused norm + QKV, rotary, attention,
/// output projection, bias-dropout-add, fused norm + FC1, activation, FC2,
/// bias-dropout-add), whose launch cost is already the fitted
/// `Efficiency::layer_overhead` of the Megatron runs: no floor is set
/// under them (none has been measured host-bound); replayed CUDA graphs
/// issue none per layer.
pub(crate) fn forward_ops(
    spec: &ModelSpec,
    (d, stack): (&Dispatch, MemoryStack),
    kernel: AttentionKernel,
    moe: bool,
) -> f64 {
    let experts = if moe { local_experts(spec) } else { 0.0 };
    let (cache, autocast) = match *d {
        Dispatch::Graphs | Dispatch::Fused => return 0.0,
        Dispatch::Eager { cache, autocast } => (cache, autocast),
    };
    let code = stack.layer_code();
    let gated = spec.activation.is_gated();
    let grouped = spec.kv_heads > 0 && spec.kv_heads < spec.heads;
    let norm = match spec.norm {
        Norm::RmsNorm => code.rms_norm,
        Norm::LayerNorm => 1.0,
    };
    let (mlp, mlp_linears) = if gated {
        (code.gated_calls + 2.0, code.gated_linears)
    } else {
        (3.0, 2.0)
    };
    let attention = code.qkv + 6.0 + 3.0 + 1.0 + if grouped { code.gqa_expand } else { 0.0 };
    let rotary = if matches!(spec.positions, Positions::Rotary) {
        code.rotary
    } else {
        0.0
    };
    let core = match kernel {
        AttentionKernel::Flash | AttentionKernel::FlashTriton => 1.0,
        AttentionKernel::Eager => 8.0,
    };
    let dropout = if spec.dropout == crate::model::Dropout::On {
        3.0
    } else {
        0.0
    };
    let writes = if cache { 2.0 } else { 0.0 };
    let linears = code.qkv_linears + 1.0 + mlp_linears;
    let casts = if autocast { 2.0 * linears } else { 0.0 };
    let modules = 5.0 + linears + code.act_module;
    2.0 * norm
        + attention
        + rotary
        + core
        + mlp
        + 2.0
        + dropout
        + writes
        + casts
        + modules
        + 8.0 * experts
}

/// Routed experts a layer runs (all of them: the eager loop visits each).
fn local_experts(spec: &ModelSpec) -> f64 {
    spec.moe.map_or(0.0, |m| f64::from(m.experts))
}

/// Host seconds to issue one forward pass over a stage's layers.
pub(crate) fn forward_seconds(r: &Resolved, w: &StageWork) -> f64 {
    let d = &r.factors.dispatch;
    if !matches!(d, Dispatch::Eager { .. }) {
        return 0.0;
    }
    let (k, code) = (r.levers.attention, (d, r.levers.memory.stack()));
    let ops = w.dense_layers * forward_ops(&r.spec, code, k, false)
        + w.moe_layers * forward_ops(&r.spec, code, k, true);
    ops * r.eff.host_op.base()
}

/// Python-level operators of one layer's prefill forward on a serving
/// engine that runs prefill eagerly ([`crate::engine::Engine::eager_prefill`]),
/// counted from vLLM 0.6's `LlamaDecoderLayer` (`model_executor/models/
/// llama.py`) and SGLang's, which is built from the same layers (a module
/// call and the custom kernel each):
/// - the layer call; two fused add-norms (module + `fused_add_rms_norm`:
///   4); the attention module;
/// - QKV: the merged linear (module + GEMM) and its `split` (3); rotary
///   (module + `rotary_embedding`: 2); the output projection (2);
/// - the attention backend: its module, the views of Q, K and V, the
///   KV-cache write (`reshape_and_cache_flash` / `set_kv_buffer`), the
///   output allocation, the prefill slices of Q, K and V, the varlen kernel
///   (`flash_attn_varlen_func` / FlashInfer's ragged prefill), the copy
///   into the output and its view (12);
/// - the MLP: its module, the merged gate-up linear (2), `SiluAndMul`
///   (module, output allocation, kernel: 3), the down linear (2): 8;
/// - with tensor parallelism, the two all-reduces.
///
/// A routed-expert layer replaces the MLP's 8 with `FusedMoE`'s path
/// (vLLM `fused_moe/fused_moe.py`, SGLang `layers/moe/fused_moe_triton`):
/// the block and router (module, gate linear: 3), `select_experts`
/// (`fused_topk`'s three allocations and kernel, the renormalisation's
/// sum and division: 6), `fused_experts` (three cache allocations,
/// `moe_align_block_size` with its three allocations, two Triton grouped
/// GEMMs at two operators each — a Triton launch binds its arguments in
/// Python — `silu_and_mul`, `moe_sum`, the output copy: 14): 23; shared
/// experts add an MLP and the
/// sum (9). MLA (DeepSeek-V2 §2.1; SGLang `forward_normal` for prefill)
/// adds the query and KV latent projections and norms (`q_a_proj`,
/// `q_a_layernorm`, `kv_a_proj_with_mqa`, `kv_a_layernorm`: 8), the KV
/// up-projection (2), the splits of the latent, the nope/rope parts and
/// K, V (5), the rope slices (2) and the `cat`s that rebuild Q and K (2):
/// 19. Each operator is charged at `Efficiency::host_op`, fitted on eager
/// PyTorch and taken as the same CPU cost per Python-level call here.
pub(crate) fn engine_prefill_ops(spec: &ModelSpec, tp: u32, moe: bool) -> f64 {
    let attention = 1.0 + 4.0 + 3.0 + 2.0 + 2.0 + 12.0;
    let mla = match spec.attention {
        crate::model::AttentionKind::Mla(_) => 19.0,
        crate::model::AttentionKind::Standard => 0.0,
    };
    let mlp = match spec.moe {
        Some(m) if moe => 23.0 + if m.shared_ffn > 0 { 9.0 } else { 0.0 },
        _ => 8.0,
    };
    let reduce = if tp > 1 { 2.0 } else { 0.0 };
    1.0 + attention + mla + mlp + reduce
}

/// Host seconds to issue one prefill forward over a stage's layers on an
/// engine that runs prefill eagerly; 0 on the others (their prefill is
/// compiled or C++: vLLM V1's piecewise graphs, TensorRT-LLM's engine).
pub(crate) fn engine_prefill_seconds(r: &Resolved, w: &StageWork) -> f64 {
    if !r.levers.engine.eager_prefill() {
        return 0.0;
    }
    engine_pass_seconds(r, w)
}

/// Host seconds to issue a decode forward of `seqs` sequences over a
/// stage's layers: 0 while the batch replays a captured CUDA graph, the
/// eager pass's operators past the engine's largest graph batch
/// (`levers.engine_knobs.graph_max_batch`, SGLang's `cuda_graph_max_bs`,
/// resolved from its default). SGLang replays a graph only when
/// `CudaGraphRunner.can_run` finds the batch within `max_bs`
/// (`model_executor/cuda_graph_runner.py`), else `ModelRunner` runs
/// `forward_decode` eagerly through the same modules as a prefill; their
/// count is [`engine_prefill_ops`]'s (the decode attention backend's
/// views, cache write, output and kernel stand for the prefill's).
pub(crate) fn engine_decode_seconds(r: &Resolved, w: &StageWork, seqs: f64) -> f64 {
    match r.levers.engine_knobs.graph_max_batch {
        Some(cap) if seqs > f64::from(cap) => engine_pass_seconds(r, w),
        _ => 0.0,
    }
}

/// Host seconds to issue one forward over a stage's layers from Python,
/// module by module ([`engine_prefill_ops`]).
fn engine_pass_seconds(r: &Resolved, w: &StageWork) -> f64 {
    let ops = w.dense_layers * engine_prefill_ops(&r.spec, r.tp, false)
        + w.moe_layers * engine_prefill_ops(&r.spec, r.tp, true);
    ops * r.eff.host_op.base()
}

/// Backward host time relative to the forward's operators, for eager
/// autograd: every forward operator that needs a gradient leaves a node
/// the autograd engine runs, and a linear's node issues two GEMMs (input
/// and weight gradients), so about twice the forward's launches (the same
/// count `time::training` gives the MoE layers' backward host time).
pub(crate) const BACKWARD_HOST: f64 = 2.0;

/// Host time of each parameter tensor's gradient in backward, in eager
/// operators: its `AccumulateGrad` node adding into the kept `.grad`, the
/// gradient of autocast's cast of the weight, a bias's reduction. Fitted
/// on the H200 harness's GPT-3 Small training runs without
/// checkpointing, which are host-bound up to 4 × 1024 tokens a micro-batch
/// (`tests/harness/tests/fixtures.rs`
/// `eager_host_constants_are_the_fit_over_the_h200_fixtures`); the
/// TinyLlama-shape runs are held out.
pub(crate) const PARAM_BACKWARD_OPS: f64 = 6.8;

/// Host time of one `torch.utils.checkpoint` region, in eager operators:
/// the non-reentrant implementation installs saved-tensor hooks, runs the
/// region under them and, in backward, re-enters Python to unpack every
/// saved tensor and rerun the region. Fitted on the same GPT-3 Small runs
/// with full and selective checkpointing.
pub(crate) const CHECKPOINT_CALL_OPS: f64 = 140.0;

/// Parameter tensors of one layer: the linears' weights (as the layer
/// code groups them), their biases, the norms' weights and biases.
fn parameter_tensors(spec: &ModelSpec, stack: MemoryStack) -> f64 {
    let code = stack.layer_code();
    let mlp = if spec.activation.is_gated() {
        code.gated_linears
    } else {
        2.0
    };
    let weights = code.qkv_linears + 1.0 + mlp;
    let biases = match spec.bias {
        Bias::None => 0.0,
        Bias::QkvOnly => code.qkv_linears,
        Bias::All => weights,
    };
    let norms = match spec.norm {
        Norm::LayerNorm => 4.0,
        Norm::RmsNorm => 2.0,
    };
    weights + biases + norms
}

/// Host seconds of one training micro-batch's forward and backward on a
/// stage: the backward's own operators ([`BACKWARD_HOST`]) and parameter
/// gradients ([`PARAM_BACKWARD_OPS`]), the forward again in the fully
/// recomputed share of the layers, and the checkpoint regions' machinery
/// (one region per checkpointed layer).
pub(crate) fn training_seconds(r: &Resolved, w: &StageWork, full_fraction: f64) -> (f64, f64) {
    let fwd = forward_seconds(r, w);
    if fwd <= 0.0 {
        return (0.0, 0.0);
    }
    let regions = match r.levers.checkpointing {
        Checkpointing::None => 0.0,
        Checkpointing::Full | Checkpointing::Selective | Checkpointing::Uniform { .. } => {
            w.layers()
        }
        Checkpointing::Block { layers } => f64::from(layers).min(w.layers()),
    };
    let op = r.eff.host_op.base();
    let checkpoint = regions * CHECKPOINT_CALL_OPS * op;
    let grads =
        w.layers() * parameter_tensors(&r.spec, r.levers.memory.stack()) * PARAM_BACKWARD_OPS * op;
    let bwd = BACKWARD_HOST * fwd + grads + full_fraction * fwd + checkpoint;
    (fwd, bwd)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{self, ModelId};

    fn ops(spec: &ModelSpec, d: Dispatch, stack: MemoryStack, k: AttentionKernel) -> f64 {
        forward_ops(spec, (&d, stack), k, false)
    }

    /// The engines' eager prefill: 33 operators a dense Llama layer (35
    /// with the two TP all-reduces); MLA and routed experts as their code
    /// adds them; DeepSeek's shared experts an MLP more.
    #[test]
    fn engine_prefill_operators_follow_the_layer_code() {
        let llama = catalog::model(ModelId::Llama31_8b).spec;
        assert_eq!(engine_prefill_ops(&llama, 1, false), 33.0);
        assert_eq!(engine_prefill_ops(&llama, 4, false), 35.0);
        let v3 = catalog::model(ModelId::DeepseekV3).spec;
        assert_eq!(engine_prefill_ops(&v3, 8, false), 35.0 + 19.0);
        assert_eq!(
            engine_prefill_ops(&v3, 8, true),
            35.0 + 19.0 - 8.0 + 23.0 + 9.0
        );
        use crate::engine::Engine;
        let eager: Vec<Engine> = Engine::ALL
            .into_iter()
            .filter(|e| e.eager_prefill())
            .collect();
        // transformers' own eager passes are counted by `forward_ops`.
        assert_eq!(eager, [Engine::VllmV0, Engine::Sglang]);
    }

    #[test]
    fn layer_code_sets_the_operator_count() {
        let llama = catalog::model(ModelId::Llama2_7b).spec;
        let gpt2 = catalog::model(ModelId::Gpt2Xl).spec;
        let (f, hf) = (AttentionKernel::Flash, MemoryStack::HfEager);
        let serve = Dispatch::Eager {
            cache: true,
            autocast: false,
        };
        // transformers' Llama 2 decoder layer: 2 × 8 norm operators, 3 + 6
        // + 3 + 1 attention projections and reshapes, 16 rotary, SDPA, 5 in
        // the MLP, 2 residual adds and 2 cache writes.
        // And 13 module calls (the layer, 2 norms, attention, 4
        // projections, MLP, 3 linears, the activation).
        assert_eq!(
            ops(&llama, serve, hf, f),
            16.0 + 13.0 + 16.0 + 1.0 + 5.0 + 2.0 + 2.0 + 13.0
        );
        // GPT-2's LayerNorm is one operator, it has no rotary table and
        // it calls dropout three times a layer.
        assert_eq!(
            ops(&gpt2, serve, hf, f),
            2.0 + 13.0 + 1.0 + 3.0 + 2.0 + 3.0 + 2.0 + 12.0
        );
        // nn.RMSNorm and fused projections issue fewer than transformers'.
        let native = ops(&llama, serve, MemoryStack::PytorchNative, f);
        assert!(native < ops(&llama, serve, hf, f));
        assert_eq!(ops(&llama, Dispatch::Graphs, hf, f), 0.0);
        assert_eq!(ops(&llama, Dispatch::Fused, hf, f), 0.0);
        let train = |autocast| Dispatch::Eager {
            cache: false,
            autocast,
        };
        // Autocast casts the input and weight of each linear call: q, k, v,
        // output, up and down in the Hugging Face layer code, the fused QKV
        // in place of three in nanoGPT-style code.
        assert_eq!(
            ops(&gpt2, train(true), hf, f) - ops(&gpt2, train(false), hf, f),
            12.0
        );
        let native = |a| ops(&gpt2, train(a), MemoryStack::PytorchNative, f);
        assert_eq!(native(true) - native(false), 8.0);
        assert_eq!(
            ops(&gpt2, train(false), hf, AttentionKernel::Eager) - ops(&gpt2, train(false), hf, f),
            7.0
        );
    }
}
