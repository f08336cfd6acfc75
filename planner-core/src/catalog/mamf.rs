//! Measured matmul ceilings: how close the best-shaped BF16 (and FP8)
//! matmul gets to each part's datasheet peak.
//!
//! Source: Stas Bekman, *Machine Learning Engineering*,
//! `compute/accelerator/README.md`, "Maximum Achievable Matmul FLOPS
//! comparison table" (stas00/ml-engineering, read 2026-11): `mamf-finder.py`
//! searches matmul shapes and reports the mean of 100 iterations after 50
//! warm-up ones, with the torch/CUDA or ROCm version noted per row. The
//! H100 PCIe figure (499.5 of 756 TFLOPS) comes from an earlier run of the
//! same tool published in mag-/gpu_benchmark's README. Rows measured on a
//! sibling part (the 40 GB A100, the 96 GB GH200) reuse that part's figure.
//! These are the software stacks of 2024–25; newer ones move them.
//!
//! A second source stands in where that table has no row:
//! zzc0721/torch-performance-test-data `database.md` (read 2026-12), a
//! crowd-sourced table of its `test.py`: `torch.mm` of square random
//! matrices of 1,024 to 10,240, 6 warm-up and 30 timed calls each, the best
//! size reported, with each row's PyTorch version. It agrees with the MAMF
//! table where both measured a part (BF16: H100 789.2 and 783.7 against
//! 794.5, H200 790.3 against 794.5, A100 SXM4 80GB 264.5 against 271.2,
//! B200 1,696 against 1,745). Its RTX 5090 rows (236.0, 242.2) exceed the
//! catalog's 209.5 (FP32 accumulate at half rate, a secondary figure) by
//! 13–16 %: whether the datasheet rate or the clock explains it is
//! unsettled, but either way the card reaches at least the catalog's
//! figure, so its ceiling is capped there as the other GeForce cards' are.

use super::GpuId;
use crate::hardware::{GpuArch, MatmulCeiling};

/// A fused attention kernel family, as a software stack ships it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttentionImpl {
    /// FlashAttention-2 (Dao 2023) and the kernels built like it: the
    /// `flash_attn` 2.x package and PyTorch SDPA's flash backend. It uses
    /// no Hopper feature (TMA, WGMMA, warp specialisation).
    FlashAttention2,
    /// The architecture's native fused kernel: FlashAttention-3 or
    /// cuDNN's fused attention on Hopper (Transformer Engine's
    /// `FusedAttention` backend), FlashAttention-2 on Ampere and Ada.
    Native,
}

/// Best published fraction of the dense 16-bit peak that a fused attention
/// kernel reaches on an architecture, forward pass:
/// - FlashAttention-2 up to 73 % on A100 (Dao 2023, "FlashAttention-2",
///   §4.1); Ada is taken to match Ampere.
/// - On H100 FlashAttention-2 stops at 335 TFLOPS, 34 % (Shah et al. 2024,
///   "FlashAttention-3", benchmarks). PyTorch SDPA's default backend
///   measured 329 TFLOPS on the same part (pytorch/pytorch#142132,
///   nightly 2.6.0.dev20241204, heads 24, d 128, s 4608).
/// - FlashAttention-3 and cuDNN's fused attention, the kernels Hopper-aware
///   stacks pick, reach 740 TFLOPS, 75 % (FlashAttention-3, abstract); the
///   same issue measured cuDNN 9.1 and FlashAttention-3 at 631 and 632.
/// - Other parts are assumed to sit at 60 % for either family.
///
/// The time model runs attention at a fraction of this; the physics floor
/// (`floor.rs`) bounds every kernel by the best family
/// ([`attention_ceiling`]).
pub fn kernel_attention_ceiling(kernel: AttentionImpl, arch: GpuArch) -> f64 {
    match (kernel, arch) {
        (_, GpuArch::Ampere | GpuArch::Ada) => 0.73,
        (AttentionImpl::FlashAttention2, GpuArch::Hopper) => 0.34,
        (AttentionImpl::Native, GpuArch::Hopper) => 0.75,
        _ => 0.60,
    }
}

/// FlashAttention written in Triton against FlashAttention-2, forward and
/// backward time: FlashAttention-2 is "around 1.3–1.5× faster than
/// FlashAttention in Triton in the forward pass and around 2× faster in the
/// backward pass" on an A100 80GB SXM4 (Dao 2023, "FlashAttention-2",
/// §4.1, sequence lengths 512 to 16k, head dimension 64 and 128). The
/// middle of the forward range is taken. The Triton kernel uses no Hopper
/// feature either, so the same ratios are taken on every part.
pub const TRITON_FLASH_SLOWDOWN: (f64, f64) = (1.4, 2.0);

/// The best published attention-kernel fraction on an architecture, over
/// every kernel family ([`kernel_attention_ceiling`]).
pub fn attention_ceiling(arch: GpuArch) -> f64 {
    [AttentionImpl::FlashAttention2, AttentionImpl::Native]
        .iter()
        .map(|&k| kernel_attention_ceiling(k, arch))
        .fold(0.0, f64::max)
}

const fn c(bf16: f64, fp8: Option<f64>) -> Option<MatmulCeiling> {
    Some(MatmulCeiling {
        bf16,
        fp8,
        fp4: None,
    })
}

/// The best published dense 4-bit GEMM on a B200, as a fraction of its
/// 9 PFLOPS FP4 peak: MXFP4 at M = N = K = 8192 reached 5,702 TFLOPS with
/// DeepGEMM's kernel and 5,239 with cuBLAS 13.3 (deepseek-ai/DeepGEMM
/// PR #348, B200, CUDA 12.9), 63.4 %; NVFP4 through cuBLAS reached 5,590
/// at the same shape in Triton PR #9697's benchmark (62.1 %, beside MXFP8
/// at 64.3 % of 4.5 PFLOPS in the same harness). No shape-searched figure
/// like the FP8 row's 76 % has been published for FP4; the best fixed
/// shape is taken. Applied to the B200 and to a GB200's GPU (the same
/// die); the B300's Blackwell Ultra FP4 units are unmeasured and keep the
/// FP8 figure. Read in 2026-12 (research note in the session record).
const BLACKWELL_FP4: f64 = 0.634;

const fn c4(bf16: f64, fp8: f64, fp4: f64) -> Option<MatmulCeiling> {
    Some(MatmulCeiling {
        bf16,
        fp8: Some(fp8),
        fp4: Some(fp4),
    })
}

/// The measured ceiling of a catalog GPU, if anyone measured it.
pub fn matmul_ceiling(id: GpuId) -> Option<MatmulCeiling> {
    match id {
        // 271.2 of 312 TFLOPS.
        GpuId::A100Sxm80 | GpuId::A100Sxm40 => c(0.869, None),
        // 252.9 of 312.
        GpuId::A100Pcie80 => c(0.811, None),
        // 794.5 of 989 BF16 ("H200 is the same"); FP8 1402.6 (H100) and
        // 1453.4 (H200) of 1979. The H800 is the same die and memory.
        GpuId::H100Sxm | GpuId::H800Sxm => c(0.803, Some(0.709)),
        GpuId::H200Sxm | GpuId::H200Nvl => c(0.803, Some(0.734)),
        // 499.5 of 756 (mag-/gpu_benchmark).
        GpuId::H100Pcie => c(0.661, None),
        // 828.6 of 989 BF16, 1535 of 1979 FP8 (900 W, 141 GB part).
        GpuId::Gh200_96 | GpuId::Gh200_144 => c(0.838, Some(0.776)),
        // 1745 and 1769 of 2250 BF16; 3432.5 and 3353.3 of 4500 FP8.
        GpuId::B200 => c4(0.776, 0.763, BLACKWELL_FP4),
        GpuId::B300 => c(0.786, Some(0.745)),
        // 1822 of 2500 BF16, 3615.6 of 5000 FP8.
        GpuId::Gb200 => c4(0.729, 0.723, BLACKWELL_FP4),
        // 668.4 of 1300 with ROCm 6.3 and TunableOp (the table's earlier
        // ROCm 6.2 row read 781.9, 60 %); 784.9 of 1300; 1565 of 2300.
        GpuId::Mi300x => c(0.514, None),
        GpuId::Mi325x => c(0.604, None),
        GpuId::Mi355x => c(0.680, None),
        // 147.0 of 191.5 per GCD.
        GpuId::Mi250xGcd => c(0.767, None),
        // 418.7 of 432 BF16, 826.5 of 865 FP8; 1243 of 1677, 1289.5 of 1677.
        GpuId::Gaudi2 => c(0.969, Some(0.955)),
        GpuId::Gaudi3 => c(0.741, Some(0.769)),
        // The parts below from the crowd-sourced torch matmul table
        // (the module's second source), BF16: an H20 at 141.86 of 148; an A800
        // at 266.48 of 312; an L40S at 269.15 of 362.05; an L4 (bare metal)
        // at 70.89 of 121, its 72 W holding the clock far under boost.
        GpuId::H20 => c(0.958, None),
        GpuId::L4 => c(0.586, None),
        // RTX PRO 6000 Blackwell Server Edition: 409.42 of 500 BF16 (a
        // Workstation Edition card: 417.98).
        GpuId::RtxPro6000 => c(0.819, None),
        GpuId::A800Sxm80 => c(0.854, None),
        GpuId::L40s => c(0.743, None),
        // T4, FP16 (it has no BF16 units): 41.91 (Colab), 41.93 and 42.71
        // (Kaggle) of 65, median 41.93; its 70 W holds the clock under
        // boost as the L4's 72 W does. The A10 is not in the table (an
        // A10G, a different AWS part, is).
        GpuId::T4 => c(0.645, None),
        // V100 SXM2 16GB, FP16 (no BF16 units): 94.84 of 125 (bare metal,
        // PyTorch 2.7.1); the 32 GB board is the same chip and clock. The
        // PCIe card (112 at a lower clock) is unmeasured.
        GpuId::V100Sxm2_16 | GpuId::V100Sxm2_32 => c(0.759, None),
        // RTX 4090: 162.39, 163.09, 170.06 and 173.31 (four 24 GB cards,
        // median 166.6) of 165.2; RTX 4090 D: 148.91 of 147.1. GeForce
        // cards run above the boost clock their datasheet figure is
        // computed at; the ceiling is capped at the datasheet figure.
        // RTX 3090: 76.34, 76.58 and 76.68 of 71.0; RTX 5090: 236.03 and
        // 242.18 of 209.5.
        GpuId::Rtx4090 | GpuId::Rtx4090d | GpuId::Rtx3090 | GpuId::Rtx5090 => c(1.0, None),
        _ => None,
    }
}

/// BF16 matmuls on a part with no BF16 tensor cores, as a fraction of its
/// FP16 tensor rate: PyTorch runs them emulated, on the CUDA cores. The
/// crowd-sourced torch matmul table (this module's second source) measures
/// both formats in one harness: a T4 at 2.46 / 41.91, 2.27 / 42.71 and
/// 2.01 / 41.93 TFLOPS (BF16 / FP16; median ratio 0.053), a V100 SXM2 16GB
/// at 10.34 / 94.84 and a V100S at 9.85 / 88.92 (0.11). Read only for
/// the architectures without BF16 units (`GpuArch::has_bf16_units`).
pub fn emulated_bf16(arch: GpuArch) -> f64 {
    match arch {
        GpuArch::Volta => 0.11,
        _ => 0.053,
    }
}

/// The ceiling assumed where nothing was measured: the middle of the
/// NVIDIA rows above.
pub const DEFAULT_CEILING: f64 = 0.80;
