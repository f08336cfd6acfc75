//! The work of one transformer layer on one device: GEMM and attention
//! FLOPs, element-wise bytes, and the sizes that set kernel efficiency.
//! Shared by training (forward, backward, recompute) and inference
//! (prefill, decode).

use crate::model::{AttentionShape, Dropout, LayerParams};
use crate::partition::Stage;
use crate::plan::AttentionKernel;
use crate::precision::Precision;
use crate::resolve::Resolved;
use crate::units::Seconds;

/// Peak dense tensor rate (FLOP/s) of the compute format.
///
/// FP32 GEMMs run as TF32 on Ampere and later, at half the BF16 rate
/// (NVIDIA A100/H100 datasheets: 156/312 and 495/989 TFLOPS); Volta has no
/// TF32 and runs FP32 at one eighth of its FP16 tensor rate (V100
/// datasheet: 15.7 vs 125 TFLOPS), and so does Turing (T4 datasheet: 8.1
/// vs 65). FP8 falls back to BF16 where the part
/// has no FP8 units, and FP4 too where it has no FP4 units: engines run an
/// FP4 checkpoint there weight-only, dequantizing in the kernel and
/// multiplying in 16 bits (vLLM's Marlin FP4 and its Triton `w4a16` MoE
/// path on Ampere and Hopper; TensorRT-LLM's WFP4A16). Quantized weights
/// (INT8/INT4/NF4) are dequantized to the compute format. BF16 on a part
/// with no BF16 units (Volta, Turing) runs emulated
/// ([`crate::catalog::emulated_bf16`]).
pub(crate) fn peak(r: &Resolved) -> f64 {
    let g = &r.gpu;
    let half = peak_16bit(r);
    match r.levers.precision.compute {
        Precision::Fp16 => g.fp16.base().max(0.0),
        Precision::Fp8 => g.fp8.map_or(half, |f| f.base()),
        Precision::Fp32 => match g.arch {
            crate::hardware::GpuArch::Volta | crate::hardware::GpuArch::Turing => {
                g.fp16.base() / 8.0
            }
            _ => half / 2.0,
        },
        Precision::Mxfp4 | Precision::Nvfp4 => g.fp4.map_or(half, |f| f.base()),
        _ => half,
    }
}

/// The rated dense rate MFU is quoted against: [`peak`], but a part's
/// FP16 rate where it emulates BF16, so an emulated plan's MFU reads low.
pub(crate) fn rated_peak(r: &Resolved) -> f64 {
    let g = &r.gpu;
    if r.levers.precision.compute == Precision::Bf16 && !g.arch.has_bf16_units() {
        g.fp16.base().max(0.0)
    } else {
        peak(r)
    }
}

/// Forward work of one layer for `tokens` query tokens per device, each
/// attending to `keys` keys on average.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LayerWork {
    /// GEMM FLOPs.
    pub gemm_flops: f64,
    /// Seconds the GEMMs take at their size-dependent efficiency.
    pub gemm_time: f64,
    /// Attention-core FLOPs in the non-causal convention of MFU papers.
    pub attn_model_flops: f64,
    /// Seconds for the attention core.
    pub attn_time: f64,
    /// Element-wise bytes read and written.
    pub elementwise_bytes: f64,
    /// The part of `elementwise_bytes` spent on materialised attention
    /// scores (eager attention only); selective recompute repeats it.
    pub score_bytes: f64,
    /// Weight bytes the GEMMs read.
    pub weight_bytes: f64,
    /// Activation bytes of the residual stream entering the layer (the TP
    /// all-reduce buffer; full width, whatever the TP degree).
    pub stream_bytes: f64,
    /// The routed experts of an MoE layer (zero for a dense one); their
    /// FLOPs, compute time and weight bytes are inside the totals above.
    pub experts: RoutedExperts,
    /// The GEMMs torchtitan's op-level selective checkpointing runs again
    /// in backward ([`op_sac_gemms`]): FLOPs and seconds; zero unless the
    /// plan runs that policy (nothing else reads them).
    pub op_sac_flops: f64,
    pub op_sac_time: f64,
    /// Backward-only bytes: summing the input gradients of the inputs that
    /// several linears read ([`grad_sum_bytes`]).
    pub grad_sum_bytes: f64,
    /// Small kernels the layer issues beyond its GEMMs and collectives, in
    /// units of the reference dense layer's ([`small_kernels`]): 1 for a
    /// dense layer, more for MLA and routed-expert layers. Scales
    /// `Efficiency::layer_overhead` ([`overhead_seconds`]).
    pub small_kernels: f64,
}

/// How a layer is run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pass {
    /// Query tokens per device in this pass (micro-batch × sequence / CP,
    /// or batch for a decode step).
    pub tokens: f64,
    /// Average keys each query attends to, as executed.
    pub keys: f64,
    /// Keys in the non-causal MFU convention (the full sequence).
    pub model_keys: f64,
}

/// Peak dense rate of the 16-bit tensor path, which the attention core and
/// the output layer use even when the block GEMMs run in FP8 (Transformer
/// Engine quantizes the transformer layers' linear GEMMs only; fused
/// attention in training stays in BF16). A part with no BF16 units runs
/// FP16, or BF16 emulated when the plan computes in BF16.
pub(crate) fn peak_16bit(r: &Resolved) -> f64 {
    let g = &r.gpu;
    if g.bf16.base() > 0.0 {
        g.bf16.base()
    } else if r.levers.precision.compute == Precision::Bf16 && !g.arch.has_bf16_units() {
        // No BF16 units: PyTorch emulates BF16 matmuls on the CUDA cores.
        // (A user's part with no BF16 figure and another architecture
        // runs at its FP16 rate, as before.)
        g.fp16.base().max(0.0) * crate::catalog::emulated_bf16(g.arch)
    } else {
        g.fp16.base().max(0.0)
    }
}

fn ceiling_16bit(r: &Resolved) -> f64 {
    r.gpu
        .matmul_ceiling
        .map_or(crate::catalog::DEFAULT_CEILING, |c| c.bf16)
}

/// The part's measured best matmul rate as a fraction of its peak, for
/// the compute format (see `catalog::matmul_ceiling`).
pub(crate) fn matmul_ceiling(r: &Resolved) -> f64 {
    let c = r.gpu.matmul_ceiling;
    let bf16 = c.map_or(crate::catalog::DEFAULT_CEILING, |c| c.bf16);
    let fp8 = c.and_then(|c| c.fp8).unwrap_or(bf16);
    match r.levers.precision.compute {
        Precision::Fp8 if r.gpu.fp8.is_some() => fp8,
        Precision::Mxfp4 | Precision::Nvfp4 if r.gpu.fp4.is_some() => {
            c.and_then(|c| c.fp4).unwrap_or(fp8)
        }
        _ => bf16,
    }
}

/// The published fraction of the dense peak that the attention kernel the
/// plan's stack runs on this architecture reaches
/// ([`crate::catalog::kernel_attention_ceiling`]): FlashAttention-2 on
/// Hopper for the PyTorch-native stacks, a Hopper-native kernel for
/// Megatron-Core / Transformer Engine. Serving takes the best kernel of
/// the architecture ([`crate::catalog::attention_ceiling`]).
fn attention_ceiling(r: &Resolved) -> f64 {
    r.factors.attention_ceiling
}

/// Element-wise traffic of the plan's stack relative to a fused layer
/// (`stack::StackProfile::elementwise`; 1 when serving).
#[inline]
fn elementwise_factor(r: &Resolved) -> f64 {
    r.factors.elementwise
}

/// Seconds for `flops` of GEMM split into `n` equal GEMMs.
fn gemm_seconds(r: &Resolved, flops: f64, n: f64) -> f64 {
    gemm_seconds_at(r, (peak(r), matmul_ceiling(r)), flops, n)
}

/// [`gemm_seconds`] with the part's [`peak`] and [`matmul_ceiling`] for
/// the plan's compute format worked out (a layer prices several GEMMs).
#[inline]
fn gemm_seconds_at(r: &Resolved, (peak, ceiling): (f64, f64), flops: f64, n: f64) -> f64 {
    if flops <= 0.0 {
        return 0.0;
    }
    let rate = peak * ceiling;
    let each = flops / n.max(1.0) / rate.max(1.0);
    let eff = r.eff.gemm_at(Seconds::from_secs(each)) * ceiling;
    flops / (peak * eff).max(1.0)
}

/// Bytes per weight element as stored (quantized linear layers).
fn linear_weight_bytes(r: &Resolved) -> f64 {
    r.split.weight_bytes.0
}

/// What every step of a layer's work shares.
#[derive(Debug, Clone, Copy)]
struct LayerCtx {
    /// TP degree.
    t: f64,
    /// Hidden width.
    h: f64,
    /// Bytes per activation element.
    ab: f64,
    /// Query tokens per device.
    tok: f64,
    /// Rows of tensor-core work the dense GEMMs issue for `tok`: never
    /// fewer than one MMA tile where the kernels pad ([`mma_rows`]).
    mma_tok: f64,
    /// Bytes per stored linear weight.
    wb: f64,
    /// Weight matrices of one MLP (3 when gated).
    mats: f64,
    shape: AttentionShape,
    /// FFN width a token passes through (routed top-k and shared experts
    /// in an MoE layer).
    ffn_width: f64,
    /// The part's [`peak`] and [`matmul_ceiling`] for the compute format.
    rate: (f64, f64),
    /// Linears reading the attention input and the dense MLP input
    /// (`stack::input_readers`).
    readers: [f64; 2],
    /// Bytes per element of a GEMM's activation input: 1 under FP8
    /// compute (the input is cast first, `fp8_cast_bytes`), else `ab`.
    in_b: f64,
    /// Achievable HBM bandwidth (B/s).
    hbm: f64,
}

/// Seconds a linear's GEMM waits on HBM beyond its compute `secs`: it
/// reads `k` and writes `n` activation elements a token, and a kernel
/// cannot finish before those bytes have moved (the roofline: Williams,
/// Waterman and Patterson, "Roofline", CACM 52(4), 2009). A layer's large
/// GEMMs reuse each element hundreds of times and never wait; a narrow one
/// does, such as a separate K or V projection under grouped-query
/// attention and TP (Llama 3 8B at TP 8: 4,096 in, 128 out, about 120 FLOPs
/// a byte against an H100's ridge of about 300). The backward's input- and
/// weight-gradient GEMMs move the same activations, so they wait as long
/// (the backward doubles the forward's GEMM seconds). Weight reads are
/// left to the callers that price them (decode).
#[inline]
fn activation_stall(c: &LayerCtx, k: f64, n: f64, secs: f64) -> f64 {
    if c.hbm <= 0.0 {
        return 0.0;
    }
    (c.tok * (k * c.in_b + n * c.ab) / c.hbm - secs).max(0.0)
}

/// [`activation_stall`] of each linear in `dims` (input and output
/// widths a token), their compute sharing `secs` by FLOPs.
fn stalls(c: &LayerCtx, dims: &[(f64, f64)], secs: f64) -> f64 {
    let total: f64 = dims.iter().map(|&(k, n)| k * n).sum();
    if total <= 0.0 {
        return 0.0;
    }
    dims.iter()
        .map(|&(k, n)| activation_stall(c, k, n, secs * k * n / total))
        .sum()
}

/// The attention block's linears on one device, input and output widths:
/// Q, K and V apart or as one fused QKV, then the output projection.
/// Multi-head latent attention's down- and up-projections are not listed
/// (its linears are wide; none waits on HBM).
fn attention_linears(r: &Resolved, c: &LayerCtx) -> ([(f64, f64); 4], usize) {
    let s = &c.shape;
    let kv_share = r.spec.kv_share(c.t);
    let (q, k, v) = (s.q_width / c.t, s.k_width * kv_share, s.v_width * kv_share);
    let o = (s.o_width / c.t, c.h);
    if matches!(r.spec.attention, crate::model::AttentionKind::Mla(_)) {
        ([(0.0, 0.0); 4], 0)
    } else if c.readers[0] >= 3.0 {
        ([(c.h, q), (c.h, k), (c.h, v), o], 4)
    } else {
        ([(c.h, q + k + v), o, (0.0, 0.0), (0.0, 0.0)], 2)
    }
}

/// The GEMMs of one layer.
#[derive(Debug, Clone, Copy)]
struct Gemms {
    flops: f64,
    time: f64,
    weight_bytes: f64,
    /// The routed experts (MoE layers).
    experts: RoutedExperts,
}

/// Attention projections: QKV and output, two GEMMs.
fn projections(r: &Resolved, l: &LayerParams, c: &LayerCtx) -> Gemms {
    let attn_params =
        (l.attention - l.kv_projections) / c.t + l.kv_projections * r.spec.kv_share(c.t);
    let time = gemm_seconds_at(r, c.rate, 2.0 * c.mma_tok * attn_params, 2.0);
    let (dims, n) = attention_linears(r, c);
    Gemms {
        flops: 2.0 * c.tok * attn_params,
        time: time + stalls(c, &dims[..n], time),
        weight_bytes: attn_params * c.wb,
        experts: RoutedExperts::default(),
    }
}

/// The M of a Hopper warpgroup MMA, whatever the batch (PTX ISA,
/// `wgmma.mma_async` shapes m64nNk16); Blackwell's `tcgen05.mma` takes 64
/// or 128 rows for one CTA.
const HOPPER_MMA_M: f64 = 64.0;

/// Rows of one expert's tile in a grouped GEMM: each expert's tokens are
/// padded to the kernel's block M (vLLM's fused_moe `moe_align_block_size`
/// pads every expert's token count to `BLOCK_SIZE_M`; DeepGEMM's contiguous
/// layout aligns each expert segment to the GEMM M block, README "Grouped
/// GEMMs (contiguous layout)"): the Hopper MMA's 64, the block DeepGEMM's
/// masked layout and vLLM's small-batch configs use in decode.
const EXPERT_BLOCK_ROWS: f64 = HOPPER_MMA_M;

/// The fewest token rows a dense GEMM's tensor-core tile computes, by the
/// kernels engines run. FP8 GEMMs on Hopper and data-centre Blackwell
/// (CUTLASS's scaled-mm in vLLM and SGLang, DeepGEMM) put the tokens on
/// the MMA's M side, [`HOPPER_MMA_M`] rows: DeepGEMM picks `block_m` 64
/// for up to 64 rows (`deep_gemm/jit_kernels/config.py`, commit ba142b8),
/// SGLang's SM90 FP8 W8A8 path tiles small batches 64×64×128
/// (sgl-project/sglang#25532), and Ant Group's H20 report names the waste
/// ("WGMMA's `block_m` is fixed at 64", LMSYS blog 2025-09-26). So an FP8
/// decode GEMM of a few tokens costs the tensor time of 64, which on the
/// H20 (296 dense FP8 TFLOPS against 4.0 TB/s) is longer than its weight
/// read: DeepGEMM#192 measured its 32-token grouped GEMMs on an H20 at
/// 117–118 TFLOPS of real work, under half the bandwidth, before swapping
/// A and B. Not padded: 16-bit GEMMs, which go through cuBLAS, whose
/// Hopper decode kernels put the tokens on the 8-wide side
/// (`nvjet_tst_64x8_…`, `…_256x8_…` in SGLang's H100 decode traces,
/// sgl-project/sglang `.claude/skills/sglang-torch-profiler-analysis`);
/// weight-only formats, whose mixed-input kernels hold the weights in the
/// MMA's A operand (Machete) or run 16-row `mma.sync` tiles (Marlin); and
/// parts without warpgroup MMAs (GDDR Blackwell, sm_120, and everything
/// before Hopper, whose `mma.sync` tiles are 16 rows). On parts whose
/// tensor rate dwarfs their memory (H100, H200, B200) the padded FP8 work
/// still hides under the read.
fn mma_rows(r: &Resolved) -> f64 {
    use crate::hardware::{GpuArch, MemoryTech};
    let fp8 = r.levers.precision.compute == Precision::Fp8 && r.gpu.fp8.is_some();
    let warpgroup_mma = matches!(r.gpu.arch, GpuArch::Hopper | GpuArch::Blackwell)
        && !matches!(r.gpu.memory, MemoryTech::Gddr6 | MemoryTech::Gddr7);
    if fp8 && warpgroup_mma {
        HOPPER_MMA_M
    } else {
        1.0
    }
}

/// The rows a GEMM over `tokens` issues: at least one MMA tile
/// ([`mma_rows`]); 0 stays 0. Only the first tile's padding is charged:
/// past 64 tokens the kernels switch to larger tiles (DeepGEMM's 128
/// rows) whose last partial tile is not modelled, which leaves a batch of
/// 65–127 tokens up to half a tile short.
fn mma_tokens(r: &Resolved, tokens: f64) -> f64 {
    if tokens <= 0.0 {
        return 0.0;
    }
    tokens.max(mma_rows(r))
}

/// The routed experts of one MoE layer on one device, as an engine runs
/// them: one grouped GEMM per matrix over the local experts.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct RoutedExperts {
    /// FLOPs of the busiest rank's token-expert pairs (unpadded).
    pub flops: f64,
    /// Seconds of tensor-core work, padded tiles included.
    pub compute: f64,
    /// Weight bytes of the local experts the step touches, each read once.
    pub weight_bytes: f64,
    /// Local experts the step touches (expected distinct ones).
    pub touched: f64,
    /// Activation bytes the grouped GEMMs read and write.
    pub io_bytes: f64,
    /// Dispatch buffer one device sends (its tokens' copies, one way;
    /// the busiest receiver's share), 0 when no all-to-all runs.
    pub dispatch_buffer: f64,
}

impl RoutedExperts {
    /// The grouped GEMMs' roofline: tensor-core time or the bytes they
    /// stream through HBM at the engine's MoE kernel's rate
    /// (`Resolved::expert_stream_rate`), whichever is longer.
    pub fn seconds(&self, r: &Resolved) -> f64 {
        let hbm = r.expert_stream_rate();
        let bytes = self.weight_bytes + self.io_bytes;
        self.compute.max(if hbm > 0.0 { bytes / hbm } else { 0.0 })
    }
}

/// The tokens of the busiest expert-parallel rank over the mean
/// (`levers.moe.balance`): a capacity factor pads every expert to it; a
/// dropless router's busiest expert adds its excess to a rank that carries
/// its other `e/ep − 1` experts at the mean.
#[inline]
pub(crate) fn rank_load(r: &Resolved, local_experts: f64) -> f64 {
    use crate::moe::ExpertBalance as B;
    match r.levers.moe.balance {
        B::Balanced => 1.0,
        B::Capacity { factor } => factor.max(1.0),
        B::Dropless { busiest_over_mean } => {
            1.0 + (busiest_over_mean.max(1.0) - 1.0) / local_experts.max(1.0)
        }
    }
}

/// Distinct token sets that feed one expert group: `ep·etp/t`, the
/// attention groups (data-parallel attention ranks, SGLang's and
/// vLLM's DP attention, TensorRT-LLM's attention DP) whose tokens meet in
/// the experts; 1 for a dense model or when EP spans the TP group.
pub(crate) fn token_sets(r: &Resolved) -> f64 {
    if r.spec.moe.is_none() {
        return 1.0;
    }
    let (t, ep, etp) = (f64::from(r.tp), f64::from(r.ep), f64::from(r.etp()));
    (ep * etp / t).max(1.0)
}

/// Seconds of an inference iteration's routed-expert GEMMs (their
/// roofline against the weights and activations they stream) and their
/// dispatch and combine, when every attention group of the expert group
/// brings `tok` tokens: the part of an iteration that data-parallel
/// attention ranks share. The same roofline `time::inference::pass_parts`
/// splits into GEMM and weight-read time.
pub(crate) fn expert_group_seconds(r: &Resolved, tok: f64) -> f64 {
    let p = &r.params;
    if p.moe_layers == 0 || tok <= 0.0 {
        return 0.0;
    }
    let x = routed_experts(r, &p.moe_layer, tok, mlp_matrices(r));
    f64::from(p.moe_layers) * (x.seconds(r) + 2.0 * dispatch_seconds(r, &x))
}

/// Weight matrices of an MLP: three when gated (SwiGLU, GeGLU), two
/// otherwise.
fn mlp_matrices(r: &Resolved) -> f64 {
    if r.spec.activation.is_gated() {
        3.0
    } else {
        2.0
    }
}

/// The routed experts this device holds, for `tok` tokens entering the
/// layer on it.
///
/// The expert group is `ep` ranks, each expert split over `etp` of them;
/// the `t` TP ranks of an attention group hold the same tokens, so
/// `d = ep·etp/t` distinct token sets feed the group (d = EP when the
/// experts follow TP; 1 when EP spans the TP group, as in vLLM's
/// `--enable-expert-parallel` with TP attention, where each rank finds
/// its experts' tokens locally and no all-to-all runs). Each device then
/// computes `tok·k·d/ep` token-expert pairs of `1/etp` of an expert.
pub(crate) fn routed_experts(r: &Resolved, l: &LayerParams, tok: f64, mats: f64) -> RoutedExperts {
    let Some(m) = r.spec.moe else {
        return RoutedExperts::default();
    };
    let e = f64::from(m.experts).max(1.0);
    let k = f64::from(m.top_k);
    let (t, ep, etp) = (f64::from(r.tp), f64::from(r.ep), f64::from(r.etp()));
    let d = token_sets(r);
    let local = (e / ep).max(1.0);
    let load = rank_load(r, local);
    let pairs = tok * k * d / ep * load;
    let expert = l.one_expert / etp;
    let flops = 2.0 * pairs * expert;
    // Experts a step touches: each of the `tok·d` tokens in the group picks
    // k of e experts; the expected number of distinct ones is
    // e·(1 − (1 − k/e)^n). Each is read once per step by the device
    // holding it.
    let touched = local * (1.0 - (1.0 - k / e).powf((tok * d).max(1.0)));
    // Tiles: the pairs spread over the experts touched, each padded to the
    // block M.
    let rows = pairs / touched.max(1e-9);
    let padded = touched * (rows / EXPERT_BLOCK_ROWS).ceil().max(1.0) * EXPERT_BLOCK_ROWS;
    let padded_flops = if pairs > 0.0 {
        2.0 * padded * expert
    } else {
        0.0
    };
    // One launch per matrix over all local experts (grouped GEMM), so its
    // size-dependent efficiency is that of the whole group.
    let compute = gemm_seconds(r, padded_flops, mats);
    let h = f64::from(r.spec.hidden);
    let ab = r.levers.precision.activations.bytes_per_element();
    let width = f64::from(m.expert_ffn) / etp;
    // Up (gate) reads the tokens and writes the intermediate, down reads
    // the activated intermediate and writes the output.
    let io_bytes = pairs * (2.0 * h + (mats - 1.0) * width + width) * ab;
    let dispatch_buffer = if d > 1.0 && r.ep > 1 {
        tok * etp / t * k * h * ab * load
    } else {
        0.0
    };
    RoutedExperts {
        flops,
        compute,
        weight_bytes: touched * expert * r.split.expert_bytes,
        touched,
        io_bytes,
        dispatch_buffer,
    }
}

/// Seconds of one all-to-all (dispatch or combine) of an MoE layer: the
/// device's dispatch buffer over the `ep` ranks of its expert group,
/// `etp·cp` ranks apart, priced by where they sit (`comm::collective`:
/// NVLink inside a scale-up domain, one NIC share per rank across).
///
/// With `levers.moe.node_limit` the router sends each token to experts on
/// at most that many scale-up domains and the dispatch crosses the fabric
/// once per destination domain, not once per expert (DeepSeek-V3 report
/// §2.1.2, node-limited routing with M = 4, and §3.2.2).
pub(crate) fn dispatch_seconds(r: &Resolved, x: &RoutedExperts) -> f64 {
    use super::comm::{all_to_all_per_domain, collective, span, Collective, Span};
    if x.dispatch_buffer <= 0.0 {
        return 0.0;
    }
    let stride = r.etp().saturating_mul(r.cp);
    let plain = || collective(r, Collective::AllToAll, x.dispatch_buffer, r.ep, stride);
    let Some(limit) = r.levers.moe.node_limit else {
        return plain();
    };
    let Span::Fabric { domains, .. } = span(r, r.ep, stride) else {
        return plain();
    };
    let k = f64::from(r.spec.moe.unwrap_or_default().top_k).max(1.0);
    let n = f64::from(domains);
    // Domains a token's k experts fall in, uniformly placed, at most the
    // limit; all but its own are across the fabric.
    let reached = (n * (1.0 - (1.0 - 1.0 / n).powf(k))).min(f64::from(limit.max(1)));
    let fabric = x.dispatch_buffer / k * reached * (n - 1.0) / n;
    all_to_all_per_domain(r, x.dispatch_buffer, fabric, r.ep, stride)
}

/// The MLP of an MoE layer: router and shared experts, and the routed
/// experts this EP rank holds.
fn moe_mlp(r: &Resolved, l: &LayerParams, c: &LayerCtx, g: &mut Gemms) {
    let tok = c.tok;
    // Router and shared experts see every token.
    let shared = l.shared / c.t;
    g.flops += 2.0 * tok * shared;
    g.time += gemm_seconds_at(r, c.rate, 2.0 * c.mma_tok * shared, c.mats);
    g.weight_bytes += shared * c.wb;
    // Routed experts: one grouped GEMM per matrix, not one GEMM per expert
    // (vLLM's fused_moe Triton kernel, SGLang and TensorRT-LLM's MoE
    // kernels, Megatron-Core's `--moe-grouped-gemm`, DeepSeek's DeepGEMM
    // grouped layouts), so the fixed cost of a launch is paid once per
    // matrix. The padded tiles and the weight-read roofline of the experts
    // touched make small per-expert row counts (decode, small
    // micro-batches) memory-bound.
    let x = routed_experts(r, l, tok, c.mats);
    g.flops += x.flops;
    g.time += x.compute;
    g.weight_bytes += x.weight_bytes;
    g.experts = x;
}

/// The MLP of a dense layer.
fn dense_mlp(r: &Resolved, l: &LayerParams, c: &LayerCtx, g: &mut Gemms) {
    let mlp = l.dense_mlp / c.t;
    let time = gemm_seconds_at(r, c.rate, 2.0 * c.mma_tok * mlp, c.mats);
    g.flops += 2.0 * c.tok * mlp;
    g.time += time + stalls(c, &mlp_linears(r, c), time);
    g.weight_bytes += mlp * c.wb;
}

/// The dense MLP's linears on one device, input and output widths: gate
/// and up apart or fused (or the one up projection of an ungated MLP),
/// then down.
fn mlp_linears(r: &Resolved, c: &LayerCtx) -> [(f64, f64); 3] {
    let f = f64::from(r.spec.ffn) / c.t;
    if gate_up_apart(c) {
        [(c.h, f), (c.h, f), (f, c.h)]
    } else {
        [(c.h, f * (c.mats - 1.0).max(1.0)), (f, c.h), (0.0, 0.0)]
    }
}

/// A gated MLP whose gate and up projections are separate linears
/// (`stack::input_readers`).
#[inline]
fn gate_up_apart(c: &LayerCtx) -> bool {
    c.mats >= 3.0 && c.readers[1] >= 2.0
}

/// The attention core of one layer.
#[derive(Debug, Clone, Copy)]
struct AttentionCore {
    /// FLOPs in the non-causal convention of MFU papers.
    model_flops: f64,
    time: f64,
    /// Materialised score bytes (eager attention only).
    score_bytes: f64,
}

/// Attention core: QKᵀ over q_width and PV over o_width (per head:
/// 2·keys·d each).
fn attention_core(r: &Resolved, c: &LayerCtx, pass: Pass) -> AttentionCore {
    let spec = &r.spec;
    let (t, tok, ab, shape) = (c.t, c.tok, c.ab, &c.shape);
    let width = (shape.q_width + shape.o_width) / t;
    let attn_flops = 2.0 * tok * pass.keys * width;
    let model_flops = 2.0 * tok * pass.model_keys * width;
    let heads = f64::from(spec.heads) / t;
    let mut score_bytes = 0.0;
    let time = match r.levers.attention {
        AttentionKernel::Flash | AttentionKernel::FlashTriton => {
            // One fused kernel; it also reads Q, K, V and writes O. The
            // Triton kernel computes at its slowdown against
            // FlashAttention-2.
            let slow = r.levers.attention.flash_slowdown().0;
            let io = tok * (shape.q_width + shape.k_width + shape.v_width + shape.o_width) / t * ab;
            (slow * attn_flops / (peak_16bit(r) * r.eff.attention * attention_ceiling(r)).max(1.0))
                .max(io / (r.gpu.memory_bandwidth.base() * r.eff.hbm).max(1.0))
        }
        AttentionKernel::Eager => {
            // Two batched GEMMs per head, and the score matrix streamed
            // through HBM: QKᵀ writes it, scale-mask-softmax reads and
            // writes it, the ·V GEMM reads it (4 passes), and with dropout
            // a dropout pass reads, writes and stores a 1-byte mask (2.5).
            let per_head = attn_flops / (2.0 * heads.max(1.0));
            let drop = if spec.dropout == Dropout::On {
                2.5
            } else {
                0.0
            };
            // SDPA's math backend (`LayerCode::fp32_math_attention`) runs
            // in FP32: both matmuls as TF32 at half the 16-bit rate, the
            // scores at 4 B, and the causal mask it builds added in one
            // more read-modify-write pass.
            let fp32 = r.factors.fp32_math_attention;
            // (Volta and Turing have no TF32: FP32 at one eighth of their
            // FP16 rate.)
            let fp32_rate = if matches!(
                r.gpu.arch,
                crate::hardware::GpuArch::Volta | crate::hardware::GpuArch::Turing
            ) {
                0.125
            } else {
                0.5
            };
            let (sb, mask, slow) = if fp32 {
                (4.0, 1.5, fp32_rate)
            } else {
                (ab, 0.0, 1.0)
            };
            score_bytes = tok * pass.keys * heads * (4.0 + mask + drop) * sb;
            let rate = peak_16bit(r) * ceiling_16bit(r) * slow;
            attn_flops
                / (rate * r.eff.gemm_at(Seconds::from_secs(per_head / rate.max(1.0)))).max(1.0)
        }
    };
    AttentionCore {
        model_flops,
        time,
        score_bytes,
    }
}

/// Element-wise bytes of one layer besides the attention scores.
///
/// Per token: two norms (read + write h), two residual adds (read 2h,
/// write h), dropout after attention and MLP (read, write, 1-byte mask)
/// when on; these run on the full hidden width unless sequence parallelism
/// splits them. The FFN activation reads its input(s) and writes its
/// output on the TP shard; rotary embeddings read and write Q and K.
#[inline]
fn elementwise_bytes(r: &Resolved, c: &LayerCtx) -> f64 {
    let (t, h, tok, shape) = (c.t, c.h, c.tok, &c.shape);
    let rep = if r.sp() { t } else { 1.0 };
    let drop = if r.spec.dropout == Dropout::On {
        2.0 * 2.5
    } else {
        0.0
    };
    let per_token = (10.0 + drop) * h / rep
        + c.mats * c.ffn_width / t
        + 2.0 * (shape.q_width + shape.k_width) / t;
    tok * per_token * c.ab
}

/// Bytes the backward spends summing the input gradients of the attention
/// input and the dense MLP input where several linears read them
/// (`stack::grad_sum_passes`). The inputs are full width on every TP rank
/// (replicated, or gathered from the sequence shards under sequence
/// parallelism before the column-parallel linears), so unlike the other
/// element-wise work this does not shrink with TP. An MoE layer's MLP
/// input (router, dispatch, shared experts) is not counted.
#[inline]
fn grad_sum_bytes(r: &Resolved, c: &LayerCtx, moe: bool) -> f64 {
    let [attn, mlp] = r.factors.grad_sum_passes;
    let passes = attn + if moe { 0.0 } else { mlp };
    c.tok * c.h * c.ab * passes
}

/// Bytes Transformer Engine spends casting every GEMM input to FP8 (read
/// 16-bit, write 8-bit): the two full-width inputs (QKV, MLP up) and the
/// two TP-sharded ones (output projection, MLP down).
#[inline]
fn fp8_cast_bytes(c: &LayerCtx) -> f64 {
    let inputs = 2.0 * c.h + (c.shape.o_width + c.ffn_width) / c.t;
    c.tok * inputs * 3.0
}

/// Bytes the token permutation of an MoE layer moves: the tokens are
/// copied into expert order before the experts (each token once per chosen
/// expert) and gathered back, weighted by the router's probabilities,
/// after them: a read and a write of `k` copies of each token on each side
/// (Megatron-Core `moe_utils.permute` / `unpermute` around the grouped
/// GEMM; MegaBlocks, Gale et al. 2023 §5, gathers and scatters the same
/// way).
#[inline]
fn permute_bytes(r: &Resolved, c: &LayerCtx) -> f64 {
    let k = f64::from(r.spec.moe.unwrap_or_default().top_k);
    4.0 * c.tok * k * c.h * c.ab
}

/// FFN width a token passes through: the routed top-k experts and the
/// shared ones in an MoE layer.
#[inline]
fn ffn_width(r: &Resolved, moe: bool) -> f64 {
    let spec = &r.spec;
    if moe {
        let m = spec.moe.unwrap_or_default();
        f64::from(m.expert_ffn) * f64::from(m.top_k) + f64::from(m.shared_ffn)
    } else {
        f64::from(spec.ffn)
    }
}

/// The GEMMs torchtitan's op-level selective activation checkpointing
/// recomputes in backward. Its policy (`_custom_policy` in
/// `torchtitan/models/llama3/infra/parallelize.py` `_apply_ac_to_transformer_block`,
/// now `torchtitan/distributed/activation_checkpoint.py`) counts the
/// `aten.mm` calls of each block in forward order and saves every op on
/// `_save_list` "except every second mm": the 2nd, 4th, 6th… matmul is
/// recomputed. In a dense block the order is Q, K, V, output projection,
/// W1, W3, W2 (gated; W1, W2 otherwise), so K, the output projection and
/// W3 (W2 when not gated) run again. In an MoE block the routed experts
/// run as `_grouped_mm`, which the list saves; only the attention
/// projections are counted (K and the output projection).
fn op_sac_gemms(r: &Resolved, c: &LayerCtx, moe: bool) -> (f64, f64) {
    let k = c.h * c.shape.k_width * r.spec.kv_share(c.t);
    let o = c.shape.o_width * c.h / c.t;
    let ffn = if moe {
        0.0
    } else {
        c.h * f64::from(r.spec.ffn) / c.t
    };
    let params = k + o + ffn;
    let flops = 2.0 * c.tok * params;
    let n = if moe { 2.0 } else { 3.0 };
    let time = gemm_seconds_at(r, c.rate, flops, n);
    // The same linears' waits on HBM ([`activation_stall`]): K when it is
    // its own linear, the output projection, and W3 (or W2).
    let (attn, linears) = attention_linears(r, c);
    let mut dims = [(0.0, 0.0); 3];
    if linears == 4 {
        dims[0] = attn[1];
    }
    dims[1] = (c.shape.o_width / c.t, c.h);
    if !moe {
        dims[2] = mlp_linears(r, c)[usize::from(gate_up_apart(c))];
    }
    (flops, time + stalls(c, &dims, time))
}

/// Forward work of one layer (dense or MoE) on one device.
pub(crate) fn layer(r: &Resolved, l: &LayerParams, moe: bool, pass: Pass) -> LayerWork {
    let c = LayerCtx {
        t: f64::from(r.tp),
        h: f64::from(r.spec.hidden),
        ab: r.levers.precision.activations.bytes_per_element(),
        tok: pass.tokens,
        mma_tok: mma_tokens(r, pass.tokens),
        wb: linear_weight_bytes(r),
        mats: mlp_matrices(r),
        shape: r.spec.attention_shape(),
        ffn_width: ffn_width(r, moe),
        rate: (peak(r), matmul_ceiling(r)),
        readers: r.factors.input_readers,
        in_b: if r.levers.precision.compute == Precision::Fp8 {
            1.0
        } else {
            r.levers.precision.activations.bytes_per_element()
        },
        hbm: r.gpu.memory_bandwidth.base() * r.eff.hbm,
    };
    let mut g = projections(r, l, &c);
    if moe {
        moe_mlp(r, l, &c, &mut g);
    } else {
        dense_mlp(r, l, &c, &mut g);
    }
    let attn = attention_core(r, &c, pass);
    // Read only under torchtitan's op-level policy (`time::training::
    // op_sac_recompute`); other plans skip its GEMM pricing.
    let op_sac = r.levers.checkpointing == crate::plan::Checkpointing::Selective
        && crate::memory::activations::selective_policy(r.levers.memory.stack())
            == crate::memory::activations::SelectivePolicy::EveryOtherMatmul;
    let (op_sac_flops, op_sac_time) = if op_sac {
        op_sac_gemms(r, &c, moe)
    } else {
        (0.0, 0.0)
    };
    let mut elementwise = 0.0;
    elementwise += attn.score_bytes;
    elementwise += elementwise_bytes(r, &c) * elementwise_factor(r);
    // Autocast over FP32 weights: the FP32 residual stream and the casts
    // of the linears' inputs (`stack::autocast_traffic`), on the full
    // hidden width unless sequence parallelism splits it.
    let rep = if r.sp() { c.t } else { 1.0 };
    elementwise += c.tok * c.h / rep * r.factors.autocast_traffic;
    if r.levers.precision.compute == Precision::Fp8 {
        elementwise += fp8_cast_bytes(&c);
    }
    if moe {
        elementwise += permute_bytes(r, &c);
    }
    LayerWork {
        grad_sum_bytes: grad_sum_bytes(r, &c, moe),
        gemm_flops: g.flops,
        gemm_time: g.time,
        attn_model_flops: attn.model_flops,
        attn_time: attn.time,
        elementwise_bytes: elementwise,
        score_bytes: attn.score_bytes,
        weight_bytes: g.weight_bytes,
        stream_bytes: c.tok * c.h * c.ab,
        experts: g.experts,
        op_sac_flops,
        op_sac_time,
        small_kernels: small_kernels(&r.spec, moe) / REFERENCE_KERNELS,
    }
}

/// Small kernels of the reference dense layer (a gated-MLP, GQA layer
/// with rotary positions) as the serving engines run it under CUDA graphs
/// and Megatron-Core runs it fused: the two residual-add + norm kernels,
/// rotary embedding, the KV-cache write, the attention kernel and the
/// MLP's activation (vLLM `model_executor/models/llama.py`
/// `LlamaDecoderLayer.forward`; SGLang `models/llama.py`). Their launch
/// gaps and ramp-up are `Efficiency::layer_overhead` (30 µs a layer, about
/// 5 µs a kernel: the 4.5 µs launch floor of an H100 in TaxBreak, arXiv
/// 2603.12465, cited at `MOE_EXPERT_HOST_US`).
const REFERENCE_KERNELS: f64 = 6.0;

/// Small kernels one layer issues beyond the GEMMs and collectives the
/// model prices apart: the reference layer's six, plus
/// - **MLA** (DeepSeek-V2 §2.1; SGLang `models/deepseek_v2.py`
///   `DeepseekV2AttentionMLA.forward_absorb`): the norms of the query and
///   KV latents (`q_a_layernorm`, `kv_a_layernorm`), the query
///   up-projection (a third projection GEMM, whose own floor the two
///   projection GEMMs do not cover) and the two per-head products that
///   absorb the key and value up-projections into the query and output
///   (`torch.bmm` with `w_kc`, `w_vc`): 5. A long prefill decompresses
///   the cache with one GEMM instead of the two products: a kernel fewer,
///   not priced apart (under 1 % of a prefill);
/// - **routed experts** (vLLM and SGLang `fused_moe`: `select_experts`,
///   `moe_align_block_size`, the two grouped GEMMs, `silu_and_mul`,
///   `moe_sum_reduce`): the top-k routing, the alignment of tokens to
///   expert blocks and the weighted sum of each token's k outputs, 3 (the
///   activation takes the dense MLP's place);
/// - **shared experts**: their activation and the add of their output to
///   the routed one, 2.
///
/// The per-token-group FP8 quantisation some engines run before each
/// block-scaled GEMM is not counted: others fuse it into the norm or the
/// activation. Dense layers count the reference's six whatever their
/// norm or positions, so a dense model's overhead is the knob itself.
pub(crate) fn small_kernels(spec: &crate::model::ModelSpec, moe: bool) -> f64 {
    let mla = match spec.attention {
        crate::model::AttentionKind::Mla(_) => 5.0,
        crate::model::AttentionKind::Standard => 0.0,
    };
    let (routed, shared) = match spec.moe {
        Some(m) if moe => (3.0, if m.shared_ffn > 0 { 2.0 } else { 0.0 }),
        _ => (0.0, 0.0),
    };
    REFERENCE_KERNELS + mla + routed + shared
}

/// Fixed cost of one pass over a stage's layers: `layer_overhead` a
/// reference layer, in proportion to each layer's small kernels, and
/// what the engine's MoE kernel costs beyond them in each MoE layer
/// (`engine::MoeKernel::fixed_excess`).
pub(crate) fn overhead_seconds(r: &Resolved, w: &StageWork) -> f64 {
    r.eff.layer_overhead.base() * w.sum(|l| l.small_kernels)
        + w.moe_layers * r.moe_kernel().fixed_excess().base()
}

/// Forward work of every layer of a stage, summed, plus the stage's ends
/// (embedding lookup, output layer).
pub(crate) fn stage(r: &Resolved, st: &Stage, pass: Pass, logits_tokens: f64) -> StageWork {
    stage_of(r, st, layers(r, pass), logits_tokens)
}

/// Forward work of one dense and one MoE layer: the same on every stage of
/// a pass, so a walk over stages works them out once.
pub(crate) fn layers(r: &Resolved, pass: Pass) -> [LayerWork; 2] {
    let p = &r.params;
    // A dense model has no MoE layer to work out: every reader multiplies
    // it by the stage's MoE layer count, 0.
    let moe = if p.moe_layers > 0 {
        layer(r, &p.moe_layer, true, pass)
    } else {
        LayerWork::default()
    };
    [layer(r, &p.dense_layer, false, pass), moe]
}

/// Forward work of a stage from its layers' ([`layers`]).
pub(crate) fn stage_of(
    r: &Resolved,
    st: &Stage,
    [d, m]: [LayerWork; 2],
    logits_tokens: f64,
) -> StageWork {
    let nd = f64::from(st.dense_layers);
    let nm = f64::from(st.moe_layers);
    let mut w = StageWork {
        dense: d,
        moe: m,
        dense_layers: nd,
        moe_layers: nm,
        ..StageWork::default()
    };
    if st.head && logits_tokens > 0.0 {
        let t = f64::from(r.tp);
        let hv = f64::from(r.spec.hidden) * f64::from(r.spec.vocab) / t;
        let f = 2.0 * logits_tokens * hv;
        w.head_flops = f;
        // The output layer stays in 16 bits under FP8 recipes.
        // It runs through cuBLAS's 16-bit kernels, unpadded (`mma_rows`).
        let rate = peak_16bit(r) * ceiling_16bit(r);
        w.head_time = f / (rate * r.eff.gemm_at(Seconds::from_secs(f / rate.max(1.0)))).max(1.0);
        w.head_weight_bytes = hv * r.split.weight_bytes.1;
        let logits = logits_tokens * f64::from(r.spec.vocab) / t;
        let [loss_f, loss_b] = loss_bytes_per_logit(r);
        w.head_loss = [logits * loss_f, logits * loss_b];
    }
    w
}

/// HBM bytes a logit costs the loss in the forward and in the backward
/// pass, kernel by kernel, for the loss kernel in force
/// ([`crate::software::MemorySoftware::loss_kernel`]; the memory side is
/// `memory::training::loss_peak`). `up` is the upcast of 16-bit logits to
/// FP32 (read 2, write 4 B) and its mirror in the backward, the FP32
/// gradient cast back (autograd's cast of `.float()`); FP32 logits pay
/// neither. Every full-size op is its own kernel over a tensor far larger
/// than L2, so each reads and writes HBM:
/// - unfused (HF `ForCausalLMLoss`, torchtitan `cross_entropy_loss`,
///   eager `F.cross_entropy` on the upcast logits): the log-softmax of a
///   row longer than shared memory takes three reads and a write
///   (PyTorch `aten/src/ATen/native/cuda/SoftMax.cu` `cunn_SoftMaxForward`:
///   the max, the sum of exponentials, the output), 16 B; the backward
///   zero-fills `nll_loss`'s dense gradient (4 B) and runs
///   `cunn_SoftMaxBackward` (a read for the row sum, two reads and a
///   write, 16 B): `up` + 16 forward, 20 + `up` backward;
/// - torchtitan under TP, DTensor's loss parallel
///   (`torch/distributed/tensor/parallel/loss.py`): `_log_softmax`
///   decomposed into `amax` (4), the shift (8), `exp` (8), its sum (4) and
///   the shifted minus the log-sum (8); the fused backward
///   `(zeros_like(x) + exp(x)) * grad` writes the zeros (4), the `exp` (8),
///   the sum (12) and the product (8): `up` + 32 each way;
/// - Megatron's vocabulary-parallel cross-entropy, fused
///   (`megatron/core/fusions/fused_cross_entropy.py`, NeMo's default
///   `cross_entropy_loss_fusion`): the upcast fused with the max (6 B with
///   BF16), the shift and `exp` in place (8), the sum (4), the division in
///   place (8); the backward scales the softmax in place (8) and casts it
///   back: `up` (at least the max's 4 B read) + 20 forward, 8 + `up`
///   backward. Megatron-LM without `--cross-entropy-loss-fusion` runs the
///   same steps as separate eager kernels (the max and the shift apart:
///   12 B more), which is not told apart;
/// - compiled (Inductor): the 16-bit logits read twice, for the max and
///   the sum of exponentials (4 B with BF16), and once more in the
///   backward to write the 16-bit gradient (4 B);
/// - chunked (Liger `LigerFusedLinearCrossEntropyLoss`): each chunk's
///   logits read twice and the gradient written over them in the
///   forward pass (`ops/cross_entropy.py` `liger_cross_entropy_kernel`:
///   an online max and sum, then the gradient), nothing in the backward.
pub(crate) fn loss_bytes_per_logit(r: &Resolved) -> [f64; 2] {
    use crate::software::LossKernel;
    // The logits are 16-bit or FP32: the output layer stays in 16 bits
    // under FP8 recipes.
    let cb = r
        .levers
        .precision
        .activations
        .bytes_per_element()
        .clamp(2.0, 4.0);
    let up = if cb < 4.0 { cb + 4.0 } else { 0.0 };
    let memory = r.levers.memory;
    let loss_parallel = memory.loss_parallel(r.tp);
    match memory.loss_kernel() {
        LossKernel::Unfused | LossKernel::StackDefault if loss_parallel => [up + 32.0, 32.0 + up],
        LossKernel::Unfused | LossKernel::StackDefault => [up + 16.0, 20.0 + up],
        LossKernel::FusedVocabParallel => [up.max(4.0) + 20.0, 8.0 + up],
        LossKernel::Compiled => [2.0 * cb, 2.0 * cb],
        LossKernel::Chunked => [3.0 * cb, 0.0],
    }
}

/// Forward work of a stage.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct StageWork {
    pub dense: LayerWork,
    pub moe: LayerWork,
    pub dense_layers: f64,
    pub moe_layers: f64,
    pub head_flops: f64,
    pub head_time: f64,
    pub head_weight_bytes: f64,
    /// HBM bytes of the loss over the logits, forward and backward
    /// ([`loss_bytes_per_logit`]).
    pub head_loss: [f64; 2],
}

impl StageWork {
    pub fn layers(&self) -> f64 {
        self.dense_layers + self.moe_layers
    }

    /// Σ over layers of `f(layer)`.
    pub fn sum(&self, f: impl Fn(&LayerWork) -> f64) -> f64 {
        self.dense_layers * f(&self.dense) + self.moe_layers * f(&self.moe)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{self, ModelId};

    #[test]
    fn small_kernels_follow_the_layer_structure() {
        let spec = |id| catalog::model(id).spec;
        // Dense layers are the reference, whatever their norm or
        // positions: a dense model's overhead is the knob itself.
        for id in [ModelId::Llama31_70b, ModelId::Gpt2Xl, ModelId::Llama2_7b] {
            assert_eq!(small_kernels(&spec(id), false), REFERENCE_KERNELS, "{id:?}");
        }
        // DeepSeek-V3: MLA (5) on every layer; its MoE layers add the
        // routing (3) and the shared expert (2).
        let ds = spec(ModelId::DeepseekV3);
        assert_eq!(small_kernels(&ds, false), 11.0);
        assert_eq!(small_kernels(&ds, true), 16.0);
        // Mixtral: standard attention, routed experts without a shared
        // one.
        let mx = spec(ModelId::Mixtral8x7b);
        assert_eq!(small_kernels(&mx, true), 9.0);
    }

    /// A resolved Llama 3.1 8B training plan on eight H100s at TP `tp`
    /// (sequence parallel) under `stack`.
    fn llama3_8b(stack: crate::stack::TrainingStack, tp: u32) -> Resolved {
        use crate::plan::{ModelChoice, SequenceParallel};
        let mut p = crate::examples::example_plan();
        p.model = ModelChoice::Preset(ModelId::Llama31_8b);
        p.levers.training_stack = Some(stack);
        p.levers.parallel.tp = tp;
        p.levers.parallel.dp = 8 / tp;
        p.levers.parallel.pp = 1;
        p.levers.parallel.sequence_parallel = if tp > 1 {
            SequenceParallel::On
        } else {
            SequenceParallel::Off
        };
        crate::resolve::resolve(&p).0
    }

    #[test]
    fn the_loss_costs_what_its_kernels_read_and_write() {
        use crate::software::LossKernel;
        use crate::stack::TrainingStack::{HfTrainer, MegatronCore, Torchtitan};
        let total = |r: &Resolved| loss_bytes_per_logit(r).iter().sum::<f64>();
        let with = |mut r: Resolved, loss| {
            r.levers.memory.loss = loss;
            r
        };
        // BF16 logits: F.cross_entropy on the FP32 upcast (6 + 16, then
        // 4 + 16 + 6), DTensor's decomposed loss parallel under TP (6 + 32
        // each way), Megatron's fused kernel (6 + 20, 8 + 6).
        assert_eq!(loss_bytes_per_logit(&llama3_8b(HfTrainer, 1)), [22.0, 26.0]);
        assert_eq!(total(&llama3_8b(Torchtitan, 1)), 48.0);
        assert_eq!(total(&llama3_8b(Torchtitan, 8)), 76.0);
        // Loss parallel is torchtitan's: HF under TP runs the eager loss
        // on its vocabulary shard.
        assert_eq!(total(&llama3_8b(HfTrainer, 8)), 48.0);
        // FP32 logits need no upcast nor the cast back; Megatron's fused
        // max still reads them.
        let fp32 = |mut r: Resolved| {
            r.levers.precision.activations = Precision::Fp32;
            r
        };
        assert_eq!(
            loss_bytes_per_logit(&fp32(llama3_8b(HfTrainer, 1))),
            [16.0, 20.0]
        );
        assert_eq!(
            loss_bytes_per_logit(&fp32(llama3_8b(MegatronCore, 8))),
            [24.0, 8.0]
        );
        assert_eq!(total(&llama3_8b(MegatronCore, 8)), 40.0);
        // Fused kernels never write an FP32 copy: the 16-bit logits read
        // twice and the gradient written (compiled), or read twice and
        // overwritten with the gradient in the forward pass (chunked).
        assert_eq!(
            loss_bytes_per_logit(&with(llama3_8b(HfTrainer, 1), LossKernel::Compiled)),
            [4.0, 4.0]
        );
        assert_eq!(
            loss_bytes_per_logit(&with(llama3_8b(HfTrainer, 1), LossKernel::Chunked)),
            [6.0, 0.0]
        );
        // The stage's loss traffic is per logit on this rank: the
        // vocabulary is split over TP.
        let st = Stage {
            role: crate::diagnostics::DeviceRole::OnlyStage,
            rank: 0,
            dense_layers: 0,
            moe_layers: 0,
            embedding: true,
            head: true,
        };
        let r = llama3_8b(MegatronCore, 8);
        let w = stage_of(&r, &st, [LayerWork::default(); 2], 1000.0);
        let logits = 1000.0 * f64::from(r.spec.vocab) / 8.0;
        assert_eq!(w.head_loss, [26.0 * logits, 14.0 * logits]);
    }

    /// The dense layer of `r` for 8,192 tokens of an 8,192-token sequence.
    fn dense(r: &Resolved) -> LayerWork {
        let pass = Pass {
            tokens: 8192.0,
            keys: 4096.0,
            model_keys: 8192.0,
        };
        layers(r, pass)[0]
    }

    /// GEMM seconds of the dense layer with HBM at `hbm` of its peak.
    fn gemm_at_hbm(mut r: Resolved, hbm: f64) -> f64 {
        r.eff.hbm = hbm;
        dense(&r).gemm_time
    }

    #[test]
    fn narrow_linears_wait_on_hbm() {
        use crate::stack::TrainingStack::{MegatronCore, TorchtitanCompiled};
        // torchtitan's separate K and V projections at TP 8 write 128
        // columns a token for 4,096 read: slower HBM slows them.
        let titan = llama3_8b(TorchtitanCompiled, 8);
        assert!(gemm_at_hbm(titan, 0.6) > gemm_at_hbm(titan, 0.8));
        // Megatron's fused QKV (768 columns) and torchtitan at TP 1
        // (1,024) reuse every element enough never to wait.
        for r in [llama3_8b(MegatronCore, 8), llama3_8b(TorchtitanCompiled, 1)] {
            assert_eq!(gemm_at_hbm(r, 0.6), gemm_at_hbm(r, 0.8));
        }
    }

    #[test]
    fn summed_input_gradients_are_full_width_on_every_tp_rank() {
        use crate::stack::TrainingStack::{MegatronCore, Torchtitan, TorchtitanCompiled};
        let (tok, h, ab) = (8192.0, 4096.0, 2.0);
        // Compiled: one kernel reads the three Q/K/V input gradients and
        // writes their sum (4 passes), and the two of gate and up (3).
        for tp in [1, 8] {
            let w = dense(&llama3_8b(TorchtitanCompiled, tp));
            assert_eq!(w.grad_sum_bytes, tok * h * ab * 7.0, "TP {tp}");
        }
        // Eager: an add per further gradient, 3 passes each (2 + 1).
        let eager = dense(&llama3_8b(Torchtitan, 8));
        assert_eq!(eager.grad_sum_bytes, tok * h * ab * 9.0);
        // Megatron's fused QKV and fc1 have one reader each.
        assert_eq!(dense(&llama3_8b(MegatronCore, 8)).grad_sum_bytes, 0.0);
    }
}
