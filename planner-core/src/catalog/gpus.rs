//! Accelerators. Compute rates are dense (no 2:4 sparsity; vendor figures
//! quoted "with sparsity" are halved); `usable` is the device total
//! `nvidia-smi` prints, where known.
//!
//! Multi-die packages: an AMD MI250X OAM module holds two graphics compute
//! dies (GCDs), and the runtime exposes each as its own device with 64 GB.
//! A rank can only address one GCD's memory, so the catalog models the
//! MI250X per GCD ([`GpuId::Mi250xGcd`]): half the package's capacity,
//! bandwidth, compute and power. A node of four OAM modules is eight devices.
//! A Huawei Ascend 910C package likewise holds two dies that the runtime
//! exposes as two devices, so it is modelled per die
//! ([`GpuId::Ascend910cDie`]).
//!
//! memwall's efficiencies (matmul ceilings, attention fractions, launch
//! costs) are calibrated on NVIDIA parts; on Ascend they are uncertain.

use super::{LinkId, Provenance};
use crate::hardware::{GpuArch, GpuSpec, MemoryTech};
use crate::units::{ByteRate, Bytes, FlopRate, Watts};
use serde::{Deserialize, Serialize};

/// Catalog ids of accelerators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum GpuId {
    /// NVIDIA V100 SXM2 16GB.
    #[serde(rename = "v100-sxm2-16gb")]
    V100Sxm2_16,
    /// NVIDIA V100 SXM2 32GB.
    #[serde(rename = "v100-sxm2-32gb")]
    V100Sxm2_32,
    /// NVIDIA V100 PCIe 32GB.
    #[serde(rename = "v100-pcie-32gb")]
    V100Pcie32,
    /// NVIDIA A100 SXM4 40GB.
    #[serde(rename = "a100-sxm-40gb")]
    A100Sxm40,
    /// NVIDIA A100 SXM4 80GB.
    #[serde(rename = "a100-sxm-80gb")]
    A100Sxm80,
    /// NVIDIA A100 PCIe 80GB.
    #[serde(rename = "a100-pcie-80gb")]
    A100Pcie80,
    /// NVIDIA A800 SXM4 80GB (A100 with NVLink capped at 400 GB/s).
    #[serde(rename = "a800-sxm-80gb")]
    A800Sxm80,
    /// NVIDIA H100 SXM5 80GB.
    #[serde(rename = "h100-sxm")]
    H100Sxm,
    /// NVIDIA H100 PCIe 80GB.
    #[serde(rename = "h100-pcie")]
    H100Pcie,
    /// NVIDIA H100 NVL 94GB (one GPU of the bridged pair).
    #[serde(rename = "h100-nvl")]
    H100Nvl,
    /// NVIDIA H800 SXM5 80GB (H100 with NVLink capped at 400 GB/s).
    #[serde(rename = "h800-sxm")]
    H800Sxm,
    /// NVIDIA H20 96GB (cut-down Hopper).
    #[serde(rename = "h20")]
    H20,
    /// NVIDIA GH200 Grace Hopper, 96GB HBM3 (the Hopper GPU).
    #[serde(rename = "gh200-96gb")]
    Gh200_96,
    /// NVIDIA GH200 Grace Hopper, 144GB HBM3e (the Hopper GPU).
    #[serde(rename = "gh200-144gb")]
    Gh200_144,
    /// NVIDIA H200 SXM 141GB.
    #[serde(rename = "h200-sxm")]
    H200Sxm,
    /// NVIDIA H200 NVL 141GB (PCIe card).
    #[serde(rename = "h200-nvl")]
    H200Nvl,
    /// NVIDIA B200 (HGX/DGX B200).
    #[serde(rename = "b200")]
    B200,
    /// NVIDIA GB200, one Blackwell GPU of the superchip (NVL72).
    #[serde(rename = "gb200")]
    Gb200,
    /// NVIDIA B300 / GB300 (Blackwell Ultra), one GPU.
    #[serde(rename = "b300")]
    B300,
    /// AMD Instinct MI250X, one GCD (an OAM package is two of these).
    #[serde(rename = "mi250x-gcd")]
    Mi250xGcd,
    /// AMD Instinct MI300X.
    #[serde(rename = "mi300x")]
    Mi300x,
    /// AMD Instinct MI325X.
    #[serde(rename = "mi325x")]
    Mi325x,
    /// AMD Instinct MI355X.
    #[serde(rename = "mi355x")]
    Mi355x,
    /// Intel Gaudi 2 (OAM).
    #[serde(rename = "gaudi2")]
    Gaudi2,
    /// Intel Gaudi 3 (OAM, HL-325L).
    #[serde(rename = "gaudi3")]
    Gaudi3,
    /// NVIDIA L40S.
    #[serde(rename = "l40s")]
    L40s,
    /// NVIDIA A10 (24 GB GDDR6, PCIe).
    #[serde(rename = "a10")]
    A10,
    /// NVIDIA T4 (16 GB GDDR6, PCIe; Turing).
    #[serde(rename = "t4")]
    T4,
    /// NVIDIA L20 48GB.
    #[serde(rename = "l20")]
    L20,
    /// NVIDIA L4 (72 W, one slot).
    #[serde(rename = "l4")]
    L4,
    /// NVIDIA GeForce RTX 3090.
    #[serde(rename = "rtx-3090")]
    Rtx3090,
    /// NVIDIA GeForce RTX 4090.
    #[serde(rename = "rtx-4090")]
    Rtx4090,
    /// NVIDIA GeForce RTX 4090 D (fewer SMs than the 4090).
    #[serde(rename = "rtx-4090d")]
    Rtx4090d,
    /// NVIDIA GeForce RTX 5090.
    #[serde(rename = "rtx-5090")]
    Rtx5090,
    /// NVIDIA RTX PRO 6000 Blackwell (Server Edition; 96 GB).
    #[serde(rename = "rtx-pro-6000")]
    RtxPro6000,
    /// Huawei Ascend 910B.
    #[serde(rename = "ascend-910b")]
    Ascend910b,
    /// Huawei Ascend 910C, one die (a package is two of these).
    #[serde(rename = "ascend-910c-die")]
    Ascend910cDie,
}

impl GpuId {
    /// Every accelerator id, in catalog order.
    pub const ALL: &'static [GpuId] = &[
        GpuId::V100Sxm2_16,
        GpuId::V100Sxm2_32,
        GpuId::V100Pcie32,
        GpuId::A100Sxm40,
        GpuId::A100Sxm80,
        GpuId::A100Pcie80,
        GpuId::A800Sxm80,
        GpuId::H100Sxm,
        GpuId::H100Pcie,
        GpuId::H100Nvl,
        GpuId::H800Sxm,
        GpuId::H20,
        GpuId::Gh200_96,
        GpuId::Gh200_144,
        GpuId::H200Sxm,
        GpuId::H200Nvl,
        GpuId::B200,
        GpuId::Gb200,
        GpuId::B300,
        GpuId::Mi250xGcd,
        GpuId::Mi300x,
        GpuId::Mi325x,
        GpuId::Mi355x,
        GpuId::Gaudi2,
        GpuId::Gaudi3,
        GpuId::L40s,
        GpuId::L20,
        GpuId::L4,
        GpuId::A10,
        GpuId::T4,
        GpuId::Rtx3090,
        GpuId::Rtx4090,
        GpuId::Rtx4090d,
        GpuId::Rtx5090,
        GpuId::RtxPro6000,
        GpuId::Ascend910b,
        GpuId::Ascend910cDie,
    ];
}

/// One accelerator in the catalog.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuEntry {
    /// Its id.
    pub id: GpuId,
    /// Display name.
    pub name: &'static str,
    /// The datasheet figures.
    pub spec: GpuSpec,
    /// Where they come from.
    pub source: &'static str,
    /// How they were checked (the weakest of the figures that matter).
    pub provenance: Provenance,
}

/// Builds a spec; keeps the table below one line per figure.
#[allow(clippy::too_many_arguments)]
const fn spec(
    arch: GpuArch,
    memory: MemoryTech,
    capacity_gb: f64,
    usable_mib: Option<f64>,
    bandwidth_tb_s: f64,
    bf16_tf: f64,
    fp16_tf: f64,
    fp8_tf: Option<f64>,
    fp4_tf: Option<f64>,
    tdp_w: f64,
    scale_up: Option<LinkId>,
    host_link: LinkId,
    mig_slices: u32,
) -> GpuSpec {
    GpuSpec {
        arch,
        memory,
        capacity: Bytes::from_gb(capacity_gb),
        usable: match usable_mib {
            Some(m) => Some(Bytes::from_mib(m)),
            None => None,
        },
        memory_bandwidth: ByteRate::from_tb_per_s(bandwidth_tb_s),
        bf16: FlopRate::from_tflops(bf16_tf),
        fp16: FlopRate::from_tflops(fp16_tf),
        fp8: match fp8_tf {
            Some(t) => Some(FlopRate::from_tflops(t)),
            None => None,
        },
        fp4: match fp4_tf {
            Some(t) => Some(FlopRate::from_tflops(t)),
            None => None,
        },
        tdp: Watts::new(tdp_w),
        scale_up,
        host_link,
        mig_slices,
        matmul_ceiling: None,
    }
}

use GpuArch as A;
use LinkId as L;
use MemoryTech as M;

/// The accelerator catalog.
#[rustfmt::skip]
pub static GPUS: &[GpuEntry] = &[
    GpuEntry {
        id: GpuId::V100Sxm2_16,
        name: "NVIDIA V100 SXM2 16GB",
        spec: spec(A::Volta, M::Hbm2, 16.0, None, 0.9, 0.0, 125.0, None, None, 300.0,
            Some(L::NvLink2), L::Pcie3x16, 0),
        source: "NVIDIA Tesla V100 datasheet: 4-stack HBM2 at 900 GB/s, 125 TFLOPS FP16 tensor (no BF16, no FP8), 300 W, NVLink 2 at 300 GB/s over 6 links; Volta has no MIG",
        provenance: Provenance::Recalled,
    },
    GpuEntry {
        id: GpuId::V100Sxm2_32,
        name: "NVIDIA V100 SXM2 32GB",
        spec: spec(A::Volta, M::Hbm2, 32.0, Some(32510.0), 0.9, 0.0, 125.0, None, None, 300.0,
            Some(L::NvLink2), L::Pcie3x16, 0),
        source: "NVIDIA Tesla V100 datasheet (as for the 16GB SXM2 part); 32,510 MiB total seen in several public nvidia-smi logs of V100-SXM2-32GB (one NVML dump on driver 418 read 32,480 MiB)",
        provenance: Provenance::Recalled,
    },
    GpuEntry {
        id: GpuId::V100Pcie32,
        name: "NVIDIA V100 PCIe 32GB",
        spec: spec(A::Volta, M::Hbm2, 32.0, Some(32510.0), 0.9, 0.0, 112.0, None, None, 250.0,
            None, L::Pcie3x16, 0),
        source: "NVIDIA Tesla V100 datasheet: PCIe card, 112 TFLOPS FP16 tensor, 250 W, no NVLink; 32,510 MiB total seen in public nvidia-smi logs of V100-PCIE-32GB",
        provenance: Provenance::Recalled,
    },
    GpuEntry {
        id: GpuId::A100Sxm40,
        name: "NVIDIA A100 SXM4 40GB",
        spec: spec(A::Ampere, M::Hbm2, 40.0, Some(40960.0), 1.555, 312.0, 312.0, None, None, 400.0,
            Some(L::NvLink3), L::Pcie4x16, 7),
        source: "NVIDIA A100 Tensor Core GPU datasheet: 40GB HBM2 (5 stacks) at 1,555 GB/s, 312 TFLOPS BF16/FP16 dense, 400 W, NVLink 3 at 600 GB/s, MIG up to 7; nvidia-smi total 40,960 MiB (older drivers 40,536), seen in public logs",
        provenance: Provenance::Recalled,
    },
    GpuEntry {
        id: GpuId::A100Sxm80,
        name: "NVIDIA A100 SXM4 80GB",
        spec: spec(A::Ampere, M::Hbm2e, 80.0, Some(81152.0), 2.039, 312.0, 312.0, None, None, 400.0,
            Some(L::NvLink3), L::Pcie4x16, 7),
        source: "NVIDIA A100 Tensor Core GPU datasheet (80GB SXM: 2,039 GB/s, 312 TFLOPS BF16 dense, 400 W, NVLink 600 GB/s); nvidia-smi total 81,920 MiB, of which CUDA can allocate 79.25 GiB (81,152 MiB: '79.25 GiB total capacity' in an A100 out-of-memory log, levihsu/OOTDiffusion#235, 2025)",
        provenance: Provenance::Recalled,
    },
    GpuEntry {
        id: GpuId::A100Pcie80,
        name: "NVIDIA A100 PCIe 80GB",
        spec: spec(A::Ampere, M::Hbm2e, 80.0, Some(81920.0), 1.935, 312.0, 312.0, None, None, 300.0,
            Some(L::NvLink3), L::Pcie4x16, 7),
        source: "NVIDIA A100 Tensor Core GPU datasheet: 80GB PCIe at 1,935 GB/s, 312 TFLOPS BF16 dense, 300 W; NVLink bridge joins pairs at 600 GB/s; nvidia-smi total 81,920 MiB seen in public logs of A100 80GB PCIe",
        provenance: Provenance::Recalled,
    },
    GpuEntry {
        id: GpuId::A800Sxm80,
        name: "NVIDIA A800 SXM4 80GB",
        spec: spec(A::Ampere, M::Hbm2e, 80.0, Some(81234.0), 2.039, 312.0, 312.0, None, None, 400.0,
            Some(L::NvLink400), L::Pcie4x16, 7),
        source: "Reuters via Tweakers (Nov 2022): the A800 is the A100 with NVLink capped at 400 GB/s (A100: 600), same compute and 400 W SXM power, so the A100 SXM4 80GB datasheet figures (2,039 GB/s, 312 TFLOPS BF16 dense) are reused; 400 W cap and 81,920 MiB total in several public nvidia-smi logs of A800-SXM4-80GB, of which CUDA can allocate 79.33 GiB (81,234 MiB: 'total capacity of 79.33 GiB' in two A800-80G out-of-memory logs, hahnyuan/PB-LLM#3, 2023, and MoonshotAI/Kimi-VL#51, 2025); MIG as the A100 80GB (nvidia-mig-parted names A800-80GB with it)",
        provenance: Provenance::Secondary,
    },
    GpuEntry {
        id: GpuId::H100Sxm,
        name: "NVIDIA H100 SXM5 80GB",
        spec: spec(A::Hopper, M::Hbm3, 80.0, Some(81009.0), 3.35, 989.4, 989.4, Some(1978.9), None, 700.0,
            Some(L::NvLink4), L::Pcie5x16, 7),
        source: "NVIDIA H100 Tensor Core GPU datasheet (SXM5: 3.35 TB/s, 989.4 TFLOPS BF16 dense, 1,978.9 FP8 dense, 700 W, NVLink 900 GB/s); nvidia-smi total 81,559 MiB, of which CUDA can allocate 79.11 GiB (81,009 MiB: 'GPU 0 has a total capacity of 79.11 GiB' in an H100 out-of-memory log, vllm-project/vllm#27508, 2025)",
        provenance: Provenance::VerifiedCopy,
    },
    GpuEntry {
        id: GpuId::H100Pcie,
        name: "NVIDIA H100 PCIe 80GB",
        spec: spec(A::Hopper, M::Hbm2e, 80.0, Some(81559.0), 2.0, 756.0, 756.0, Some(1513.0), None, 350.0,
            Some(L::NvLink4Bridge), L::Pcie5x16, 7),
        source: "NVIDIA H100 PCIe product brief: 80GB HBM2e at 2.0 TB/s, 756 TFLOPS BF16 and 1,513 FP8 dense, 300–350 W (350 used), NVLink bridge 600 GB/s; nvidia-smi total 81,559 MiB at a 350 W cap, seen in public logs",
        provenance: Provenance::VerifiedCopy,
    },
    GpuEntry {
        id: GpuId::H100Nvl,
        name: "NVIDIA H100 NVL 94GB",
        spec: spec(A::Hopper, M::Hbm3, 94.0, None, 3.9, 835.0, 835.0, Some(1671.0), None, 400.0,
            Some(L::NvLink4Bridge), L::Pcie5x16, 7),
        source: "NVIDIA H100 NVL datasheet: 94GB HBM3 at 3.9 TB/s per GPU, 1,671 TFLOPS FP8 dense (3,341 sparse), BF16 half that, 350–400 W (400 used), NVLink bridge 600 GB/s",
        provenance: Provenance::Recalled,
    },
    GpuEntry {
        id: GpuId::H800Sxm,
        name: "NVIDIA H800 SXM5 80GB",
        spec: spec(A::Hopper, M::Hbm3, 80.0, Some(81009.0), 3.35, 989.4, 989.4, Some(1978.9), None, 700.0,
            Some(L::NvLink400), L::Pcie5x16, 7),
        source: "Secondary only (press, 2023): the H800 is the H100 SXM5 die with NVLink cut to 400 GB/s (H100: 900) and FP64 cut to about 1 TFLOPS; BF16/FP8 compute and HBM3 taken from the H100 SXM5 datasheet (989.4 / 1,978.9 TFLOPS dense, 3.35 TB/s); public nvidia-smi logs of NVIDIA H800 show a 700 W cap and 81,559 MiB, the H100 SXM's nvidia-smi total, so what CUDA can allocate is taken as the H100 SXM's 81,009 MiB (derived: same die and HBM3 stacks; no H800 out-of-memory log with its total was found); MIG as the H100 80GB (nvidia-mig-parted names H800-80GB with it); NVIDIA H800 datasheet not checked",
        provenance: Provenance::Secondary,
    },
    GpuEntry {
        id: GpuId::H20,
        name: "NVIDIA H20 96GB",
        spec: spec(A::Hopper, M::Hbm3, 96.0, Some(97280.0), 4.0, 148.0, 148.0, Some(296.0), None, 400.0,
            Some(L::NvLink4), L::Pcie5x16, 7),
        source: "Secondary only (NVIDIA publishes no public H20 datasheet; spec sheet as reported by press and spec sites): 96 GB HBM3 at 4.0 TB/s, 148 TFLOPS FP16/BF16 and 296 FP8 dense (a public torch matmul benchmark reaches 142 TFLOPS BF16, so 148 is the dense figure), 400 W, NVLink 900 GB/s, PCIe 5.0, MIG up to 7; 97,871 MiB total in public nvidia-smi logs (those show a 500 W cap; an older-driver log shows 98,304 MiB at 400 W), of which CUDA can allocate 95.00 GiB (97,280 MiB: 'total capacity of 95.00 GiB' in an H20 out-of-memory log, modelscope/DiffSynth-Studio#1238, 2026). A 141 GB H20 variant is reported but not catalogued",
        provenance: Provenance::Secondary,
    },
    GpuEntry {
        id: GpuId::Gh200_96,
        name: "NVIDIA GH200 Grace Hopper 96GB (GPU)",
        spec: spec(A::Hopper, M::Hbm3, 96.0, None, 4.0, 989.4, 989.4, Some(1978.9), None, 1000.0,
            Some(L::NvLink4), L::NvLinkC2c, 7),
        source: "NVIDIA GH200 Grace Hopper Superchip datasheet: 96GB HBM3 at 4 TB/s, Hopper compute as H100 SXM, NVLink-C2C to Grace at 900 GB/s (Grace: up to 480 GB LPDDR5X), module power 450–1000 W configurable (1000 used; covers CPU and GPU)",
        provenance: Provenance::Recalled,
    },
    GpuEntry {
        id: GpuId::Gh200_144,
        name: "NVIDIA GH200 Grace Hopper 144GB HBM3e (GPU)",
        spec: spec(A::Hopper, M::Hbm3e, 144.0, None, 4.9, 989.4, 989.4, Some(1978.9), None, 1000.0,
            Some(L::NvLink4), L::NvLinkC2c, 7),
        source: "NVIDIA GH200 Grace Hopper Superchip datasheet (HBM3e version): 144GB at 4.9 TB/s, otherwise as the 96GB part; module power 450–1000 W (1000 used)",
        provenance: Provenance::Recalled,
    },
    GpuEntry {
        id: GpuId::H200Sxm,
        name: "NVIDIA H200 SXM 141GB",
        spec: spec(A::Hopper, M::Hbm3e, 141.0, Some(143155.0), 4.8, 989.4, 989.4, Some(1978.9), None, 700.0,
            Some(L::NvLink4), L::Pcie5x16, 7),
        source: "NVIDIA H200 Tensor Core GPU product page: 141GB HBM3e (6 stacks) at 4.8 TB/s, same GH100 compute as H100 SXM (1,979 BF16 / 3,958 FP8 sparse), up to 700 W, NVLink 900 GB/s; usable 143,155 MiB measured on our H200 fixtures (torch total_memory 150,109,880,320 B, driver 580.159.04; an out-of-memory there reads 'total capacity of 139.80 GiB'): nvidia-smi's total of 143,771 MiB less the 615 MiB the driver reserves (NVML used before any process ran)",
        provenance: Provenance::VerifiedCopy,
    },
    GpuEntry {
        id: GpuId::H200Nvl,
        name: "NVIDIA H200 NVL 141GB",
        spec: spec(A::Hopper, M::Hbm3e, 141.0, None, 4.8, 835.0, 835.0, Some(1671.0), None, 600.0,
            Some(L::NvLink4), L::Pcie5x16, 7),
        source: "NVIDIA H200 NVL product page: 141GB HBM3e at 4.8 TB/s, 1,671 TFLOPS FP8 dense, up to 600 W, 2- or 4-way NVLink bridge at 900 GB/s; not re-checked, partly from secondary pages",
        provenance: Provenance::Recalled,
    },
    GpuEntry {
        id: GpuId::B200,
        name: "NVIDIA B200",
        spec: spec(A::Blackwell, M::Hbm3e, 180.0, None, 8.0, 2250.0, 2250.0, Some(4500.0), Some(9000.0), 1000.0,
            Some(L::NvLink5), L::Pcie5x16, 7),
        source: "NVIDIA DGX B200 system page: 1,440 GB HBM3e, 64 TB/s and 72 PFLOPS FP8 sparse per 8 GPUs, so 180 GB (192 GB physical), 8 TB/s, 4.5 PF FP8 dense and 2.25 PF BF16 dense per GPU; NVLink 5 at 1.8 TB/s; ≈1,000 W from press; host link taken as PCIe 5.0 (Gen6 uncertain)",
        provenance: Provenance::Computed,
    },
    GpuEntry {
        id: GpuId::Gb200,
        name: "NVIDIA GB200 (one Blackwell GPU, NVL72)",
        spec: spec(A::Blackwell, M::Hbm3e, 186.0, None, 8.0, 2500.0, 2500.0, Some(5000.0), Some(10000.0), 1200.0,
            Some(L::NvLink5), L::NvLinkC2c, 7),
        source: "NVIDIA GB200 NVL72 page: rack totals divided by 72 GPUs (≈13.4 TB HBM3e ⇒ ≈186 GB, 8 TB/s, 2.5 PF BF16 / 5 PF FP8 / 10 PF FP4 dense each), NVLink 5 at 1.8 TB/s, NVLink-C2C to Grace at 900 GB/s; ≈1,200 W per GPU",
        provenance: Provenance::Computed,
    },
    GpuEntry {
        id: GpuId::B300,
        name: "NVIDIA B300 / GB300 (Blackwell Ultra)",
        spec: spec(A::Blackwell, M::Hbm3e, 288.0, None, 8.0, 2500.0, 2500.0, Some(5000.0), Some(15000.0), 1100.0,
            Some(L::NvLink5), L::Pcie6x16, 7),
        source: "Secondary only (The Register, Tom's Hardware, 2025): 288GB HBM3e 12-high (8 stacks) at 8 TB/s, 15 PF dense FP4, BF16/FP8 about as GB200, 1,100–1,400 W (1,100 used), NVLink 5 at 1.8 TB/s, ConnectX-8 with PCIe 6.0; NVIDIA datasheet not checked",
        provenance: Provenance::Secondary,
    },
    GpuEntry {
        id: GpuId::Mi250xGcd,
        name: "AMD Instinct MI250X, one GCD (half an OAM package)",
        spec: spec(A::Cdna2, M::Hbm2e, 64.0, None, 1.6384, 191.5, 191.5, None, None, 280.0,
            Some(L::InfinityFabricMi250x), L::Pcie4x16, 0),
        source: "AMD Instinct MI250X datasheet, per package: 128 GB HBM2e (8 stacks) at 3.2768 TB/s, 383 TFLOPS FP16/BF16 matrix, 500–560 W; halved here because the two GCDs show up as two 64 GB devices (560 W max used). No MIG",
        provenance: Provenance::Computed,
    },
    GpuEntry {
        id: GpuId::Mi300x,
        name: "AMD Instinct MI300X",
        spec: spec(A::Cdna3, M::Hbm3, 192.0, None, 5.3, 1307.4, 1307.4, Some(2614.9), None, 750.0,
            Some(L::InfinityFabricMi300), L::Pcie5x16, 0),
        source: "AMD Instinct MI300X datasheet: 192 GB HBM3 (8 stacks) at 5.3 TB/s, 1,307.4 TFLOPS BF16/FP16 and 2,614.9 FP8 dense (sparse is twice), 750 W, 7 Infinity Fabric links, PCIe 5.0 x16; has compute partitioning but no MIG; figures agree with several secondary spec pages",
        provenance: Provenance::Recalled,
    },
    GpuEntry {
        id: GpuId::Mi325x,
        name: "AMD Instinct MI325X",
        spec: spec(A::Cdna3, M::Hbm3e, 256.0, None, 6.0, 1307.4, 1307.4, Some(2614.9), None, 1000.0,
            Some(L::InfinityFabricMi300), L::Pcie5x16, 0),
        source: "AMD Instinct MI325X datasheet: 256 GB HBM3E at 6 TB/s, MI300X compute (1,307.4 BF16 / 2,614.9 FP8 dense), 1,000 W; figures agree with secondary spec pages",
        provenance: Provenance::Recalled,
    },
    GpuEntry {
        id: GpuId::Mi355x,
        name: "AMD Instinct MI355X",
        spec: spec(A::Cdna4, M::Hbm3e, 288.0, None, 8.0, 2500.0, 2500.0, Some(5000.0), Some(10000.0), 1400.0,
            Some(L::InfinityFabricMi300), L::Pcie5x16, 0),
        source: "Secondary only (Tom's Hardware Jun 2025; The Register 2025-06-12; ISSCC 2026 report): 288 GB HBM3E (8 × 36 GB; reports of ten stacks conflict with 288 GB) at 8 TB/s, ≈2.5 PF BF16, ≈5 PF FP8, ≈10 PF FP4 dense (sparse/dense wording ambiguous), 1,400 W (MI350X: 1,000 W); Infinity Fabric gen 4 taken at MI300X-class bandwidth (conservative)",
        provenance: Provenance::Secondary,
    },
    GpuEntry {
        id: GpuId::Gaudi2,
        name: "Intel Gaudi 2",
        spec: spec(A::Gaudi, M::Hbm2e, 96.0, None, 2.45, 432.0, 432.0, Some(865.0), None, 600.0,
            Some(L::Gaudi2Roce), L::Pcie4x16, 0),
        source: "Secondary only (Intel/Habana launch material as reported): 96 GB HBM2e (6 stacks) at 2.45 TB/s, 432 TFLOPS BF16 and 865 FP8 matrix, 600 W, 24 × 100 GbE RoCE on die (21 inside the node); one press page gives 835 FP8",
        provenance: Provenance::Secondary,
    },
    GpuEntry {
        id: GpuId::Gaudi3,
        name: "Intel Gaudi 3 (OAM HL-325L)",
        spec: spec(A::Gaudi, M::Hbm2e, 128.0, None, 3.7, 1835.0, 1835.0, Some(1835.0), None, 900.0,
            Some(L::Gaudi3Roce), L::Pcie5x16, 0),
        source: "Secondary only (Intel Gaudi 3 white paper as reported by press): 128 GB HBM2e (8 stacks) at 3.7 TB/s, 1,835 TFLOPS BF16 and FP8 matrix (the MME runs both at the same peak), 900 W air-cooled OAM, 24 × 200 GbE RoCE on die",
        provenance: Provenance::Secondary,
    },
    GpuEntry {
        id: GpuId::L40s,
        name: "NVIDIA L40S",
        spec: spec(A::Ada, M::Gddr6, 48.0, None, 0.864, 362.05, 362.05, Some(733.0), None, 350.0,
            None, L::Pcie4x16, 0),
        source: "NVIDIA L40S datasheet: 48 GB GDDR6 ECC at 864 GB/s, 362.05 TFLOPS BF16 dense (733 sparse), 733 FP8 dense (1,466 sparse), 350 W, no NVLink, no MIG",
        provenance: Provenance::VerifiedCopy,
    },
    GpuEntry {
        id: GpuId::L20,
        name: "NVIDIA L20",
        spec: spec(A::Ada, M::Gddr6, 48.0, Some(46068.0), 0.864, 119.5, 119.5, Some(239.0), None, 275.0,
            None, L::Pcie4x16, 0),
        source: "NVIDIA L20 datasheet (recalled, not re-checked): 48 GB GDDR6 at 864 GB/s (spec sites agree), 119.5 TFLOPS BF16/FP16 dense (239 sparse) and 239 FP8 dense (478 sparse), 275 W, PCIe 4.0 x16, no NVLink, no MIG; public nvidia-smi logs show 46,068 MiB with ECC on (49,140 with ECC off) but a 350 W power cap",
        provenance: Provenance::Recalled,
    },
    GpuEntry {
        id: GpuId::L4,
        name: "NVIDIA L4",
        spec: spec(A::Ada, M::Gddr6, 24.0, Some(22559.0), 0.300, 121.0, 121.0, Some(242.0), None, 72.0,
            None, L::Pcie4x16, 0),
        source: "NVIDIA L4 Tensor Core GPU datasheet (recalled; spec pages agree: 300 GB/s over a 192-bit bus, 72 W, PCIe 4.0 x16, 485 TOPS INT8 with sparsity): 24 GB GDDR6 at 300 GB/s, 242 TFLOPS FP16/BF16 and 485 FP8 with sparsity, so 121 and 242 dense, 72 W from the slot, one slot, no NVLink, no MIG; CUDA can allocate 22.03 GiB (22,559 MiB: 'GPU 0 has a total capacity of 22.03 GiB' in L4 out-of-memory logs on Google Cloud g2 machines, 2025–26)",
        provenance: Provenance::Recalled,
    },
    GpuEntry {
        id: GpuId::A10,
        name: "NVIDIA A10",
        spec: spec(A::Ampere, M::Gddr6, 24.0, Some(22589.0), 0.600, 125.0, 125.0, None, None, 150.0,
            None, L::Pcie4x16, 0),
        source: "NVIDIA A10 Tensor Core GPU datasheet (recalled): GA102 at 72 SMs, 24 GB GDDR6 at 600 GB/s, 125 TFLOPS BF16/FP16 tensor dense with FP32 accumulate (250 with sparsity; a data-centre card, full rate), 62.5 TF32, 31.2 FP32, no FP8, 150 W, one slot, PCIe 4.0 x16, no NVLink, no MIG; nvidia-smi prints 23,028 MiB for the A10 and for AWS's A10G alike (public logs of both), and CUDA allocates 22.06 GiB (22,589 MiB) of an A10G's ('GPU 0 has a total capacity of 22.06 GiB', a 2026 vLLM out-of-memory log on AWS): taken for the A10, not seen on one",
        provenance: Provenance::Secondary,
    },
    GpuEntry {
        id: GpuId::T4,
        name: "NVIDIA T4",
        spec: spec(A::Turing, M::Gddr6, 16.0, Some(15104.0), 0.320, 0.0, 65.0, None, None, 70.0,
            None, L::Pcie3x16, 0),
        source: "NVIDIA T4 Tensor Core GPU datasheet (recalled; spec pages agree): TU104 at 40 SMs, 16 GB GDDR6 at 320 GB/s, 65 TFLOPS FP16 tensor with FP32 accumulate, 8.1 FP32, 130 TOPS INT8, no BF16 (PyTorch emulates it at about 2-2.5 TFLOPS, crowd-sourced torch table), no TF32, no FP8, 70 W from the slot, PCIe 3.0 x16, no NVLink, no MIG; nvidia-smi prints 15,360 MiB and CUDA allocates 14.75 GiB (15,104 MiB: 'GPU 0; 14.75 GiB total capacity' in many Colab and Kaggle T4 out-of-memory logs, 2022-24)",
        provenance: Provenance::Recalled,
    },
    GpuEntry {
        id: GpuId::Rtx3090,
        name: "NVIDIA GeForce RTX 3090",
        spec: spec(A::Ampere, M::Gddr6, 24.0, Some(24269.0), 0.936, 71.0, 71.0, None, None, 350.0,
            None, L::Pcie4x16, 0),
        source: "NVIDIA Ampere GA102 GPU architecture whitepaper (recalled, not re-read): 24 GB GDDR6X at 936 GB/s, 71 TFLOPS FP16/BF16 tensor dense with FP32 accumulate (GeForce's half rate; 142 with FP16 accumulate, not used), no FP8, 350 W, PCIe 4.0 x16, an optional NVLink bridge not modelled (most boxes have none); CUDA can allocate 23.70 GiB (24,269 MiB: 'GPU 0; 23.70 GiB total capacity' in RTX 3090 out-of-memory logs, GaoLii/DSP#10, 2022, and xiaoxiangAQ/GAS-Net#7, 2023)",
        provenance: Provenance::Recalled,
    },
    GpuEntry {
        id: GpuId::Rtx4090,
        name: "NVIDIA GeForce RTX 4090",
        spec: spec(A::Ada, M::Gddr6, 24.0, Some(24207.0), 1.008, 165.2, 165.2, Some(330.3), None, 450.0,
            None, L::Pcie4x16, 0),
        source: "NVIDIA Ada Lovelace architecture whitepaper: 24 GB GDDR6X at 1,008 GB/s, 165.2 TFLOPS BF16/FP16 and 330.3 FP8 dense with FP32 accumulate (GeForce runs FP32-accumulate at half rate; FP16-accumulate 330.3 not used), 450 W, no NVLink; device total 24,564 MiB as nvidia-smi prints it (driver 550, in a public issue log of RLinf, #255), of which CUDA can allocate 23.64 GiB (24,207 MiB) in a 2025 out-of-memory log (3DTopia/Phidias-Diffusion#8; 23.68 GiB with a 2023 driver, zai-org/CogVideo#36)",
        provenance: Provenance::VerifiedCopy,
    },
    GpuEntry {
        id: GpuId::Rtx4090d,
        name: "NVIDIA GeForce RTX 4090 D",
        spec: spec(A::Ada, M::Gddr6, 24.0, Some(24564.0), 1.008, 147.1, 147.1, Some(294.2), None, 425.0,
            None, L::Pcie4x16, 0),
        source: "Spec sites (hmc-tech, fpsbench): 114 SMs (14,592 CUDA cores) against the 4090's 128 at the same 2,520 MHz boost, 24 GB GDDR6X at 1,008 GB/s, 425 W; tensor rates computed as the RTX 4090's × 114/128 (165.2 → 147.1 BF16, 330.3 → 294.2 FP8, FP32 accumulate; hmc-tech lists 147.09); 24,564 MiB total in public nvidia-smi logs",
        provenance: Provenance::Secondary,
    },
    GpuEntry {
        id: GpuId::Rtx5090,
        name: "NVIDIA GeForce RTX 5090",
        spec: spec(A::Blackwell, M::Gddr7, 32.0, Some(32123.0), 1.792, 209.5, 209.5, Some(419.0), Some(1676.0), 575.0,
            None, L::Pcie5x16, 0),
        source: "Tom's Hardware review specs (Jarred Walton, 2025): 170 SMs, 32 GB GDDR7 at 1,792 GB/s, 575 W, 838 TFLOPS FP16 and 3,352 FP4 with sparsity and FP16 accumulate; dense ÷ 2 gives 419 and 1,676; GeForce runs FP32 accumulate at half rate (as on Ada; recalled from NVIDIA's RTX Blackwell whitepaper), so 209.5 BF16 and 419 FP8; PCIe 5.0 x16, no NVLink; 32,607 MiB total in public nvidia-smi logs, of which CUDA can allocate 31.37 GiB (32,123 MiB: 'total capacity of 31.37 GiB' in an RTX 5090 out-of-memory log, Wan-Video/Wan2.1#465, 2025)",
        provenance: Provenance::Secondary,
    },
    GpuEntry {
        id: GpuId::RtxPro6000,
        name: "NVIDIA RTX PRO 6000 Blackwell",
        spec: spec(A::Blackwell, M::Gddr7, 96.0, Some(97249.0), 1.792, 500.0, 500.0, Some(1000.0), Some(2000.0), 600.0,
            None, L::Pcie5x16, 0),
        source: "Press coverage of NVIDIA's GTC 2025 announcement (VideoCardz, Tom's Hardware as reported): GB202 with 188 SMs (24,064 CUDA cores, 752 tensor cores), 96 GB GDDR7 (3 GB chips in clamshell, 512-bit at 28 Gbps: 1,792 GB/s), 125 TFLOPS FP32 and 4,000 TOPS FP4 with sparsity, 600 W (Workstation and Server Editions; Max-Q 300 W), PCIe 5.0 x16, no NVLink; dense FP4 2,000, FP8 1,000 and BF16 500 TFLOPS derived by halving (sparsity) and halving again per format, the professional cards accumulating FP32 at full rate; CUDA can allocate 94.97 GiB (97,249 MiB: 'GPU 0 has a total capacity of 94.97 GiB' in sm120 out-of-memory logs, 2025–26). MIG (up to four instances) not modelled; NVIDIA datasheet not checked",
        provenance: Provenance::Secondary,
    },
    GpuEntry {
        id: GpuId::Ascend910b,
        name: "Huawei Ascend 910B",
        spec: spec(A::DaVinci, M::Hbm2e, 64.0, None, 1.6, 280.0, 280.0, None, None, 400.0,
            Some(L::AscendHccs), L::Pcie4x16, 0),
        source: "Gitee AI's Ascend 910B cluster docs: 64 GB HBM2e, 280 TFLOPS FP16 (910B SKUs differ, about 280–376 in secondary reports; BF16 taken equal); bandwidth taken as one 910C die's 1.6 TB/s (CloudMatrix384 paper), not confirmed for the 910B; ≈400 W as commonly reported; host link PCIe 4.0 as on the Ascend 910; no FP8, no MIG. memwall's efficiencies are NVIDIA-calibrated and uncertain on Ascend",
        provenance: Provenance::Recalled,
    },
    GpuEntry {
        id: GpuId::Ascend910cDie,
        name: "Huawei Ascend 910C, one die (half the package)",
        spec: spec(A::DaVinci, M::Hbm2e, 64.0, None, 1.6, 376.0, 376.0, None, None, 400.0,
            Some(L::AscendHccs), L::Pcie4x16, 0),
        source: "Huawei CloudMatrix384 paper (Zuo et al., June 2025) as summarized by secondary pages: a 910C package is two dies with 752 TFLOPS FP16/BF16 dense, 128 GB HBM and 3.2 TB/s, halved here per die; Huawei's MindCluster docs count the two dies of an A3 module as two Ascend processors (16 per 8-package server); power per die not found, 400 W assumed; host link taken as PCIe 4.0 x16 (conservative); no FP8, no MIG. memwall's efficiencies are NVIDIA-calibrated and uncertain on Ascend",
        provenance: Provenance::Secondary,
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::gpu;

    /// Fails to compile when a variant is added; add it to `GpuId::ALL` too.
    fn listed(id: GpuId) -> bool {
        match id {
            GpuId::V100Sxm2_16
            | GpuId::V100Sxm2_32
            | GpuId::V100Pcie32
            | GpuId::A100Sxm40
            | GpuId::A100Sxm80
            | GpuId::A100Pcie80
            | GpuId::A800Sxm80
            | GpuId::H100Sxm
            | GpuId::H100Pcie
            | GpuId::H100Nvl
            | GpuId::H800Sxm
            | GpuId::H20
            | GpuId::Gh200_96
            | GpuId::Gh200_144
            | GpuId::H200Sxm
            | GpuId::H200Nvl
            | GpuId::B200
            | GpuId::Gb200
            | GpuId::B300
            | GpuId::Mi250xGcd
            | GpuId::Mi300x
            | GpuId::Mi325x
            | GpuId::Mi355x
            | GpuId::Gaudi2
            | GpuId::Gaudi3
            | GpuId::L40s
            | GpuId::A10
            | GpuId::T4
            | GpuId::L20
            | GpuId::L4
            | GpuId::Rtx3090
            | GpuId::Rtx4090
            | GpuId::Rtx4090d
            | GpuId::Rtx5090
            | GpuId::RtxPro6000
            | GpuId::Ascend910b
            | GpuId::Ascend910cDie => GpuId::ALL.contains(&id),
        }
    }

    #[test]
    fn every_id_has_exactly_one_entry() {
        assert_eq!(GPUS.len(), GpuId::ALL.len());
        for &id in GpuId::ALL {
            assert!(listed(id));
            let n = GPUS.iter().filter(|e| e.id == id).count();
            assert_eq!(n, 1, "{id:?} has {n} entries");
            assert_eq!(gpu(id).id, id);
        }
    }

    #[test]
    fn figures_are_positive_and_finite() {
        for e in GPUS {
            let s = &e.spec;
            let pos = |v: f64| v.is_finite() && v > 0.0;
            assert!(pos(s.capacity.as_bytes()), "{}", e.name);
            assert!(pos(s.memory_bandwidth.as_gb_per_s()), "{}", e.name);
            assert!(pos(s.fp16.as_tflops()), "{}", e.name);
            assert!(pos(s.tdp.as_watts()), "{}", e.name);
            // BF16 is 0 only where the part lacks it (Volta, Turing).
            if !s.arch.has_bf16_units() {
                assert_eq!(s.bf16.as_tflops(), 0.0, "{}", e.name);
            } else {
                assert!(pos(s.bf16.as_tflops()), "{}", e.name);
            }
            for r in [s.fp8, s.fp4].into_iter().flatten() {
                assert!(pos(r.as_tflops()), "{}", e.name);
            }
            if let Some(u) = s.usable {
                assert!(pos(u.as_bytes()), "{}", e.name);
                // Usable is MiB of a part marketed in GB.
                assert!(u.as_bytes() <= s.capacity.as_bytes() * 1.1, "{}", e.name);
            }
            assert!(!e.source.is_empty(), "{}", e.name);
        }
    }

    #[test]
    fn low_precision_is_never_slower() {
        for e in GPUS {
            let s = &e.spec;
            if let Some(fp8) = s.fp8 {
                assert!(fp8.as_tflops() >= s.bf16.as_tflops(), "{}", e.name);
            }
            if let (Some(fp4), Some(fp8)) = (s.fp4, s.fp8) {
                assert!(fp4.as_tflops() >= fp8.as_tflops(), "{}", e.name);
            }
        }
    }

    /// The inference cards of the public clouds parse from their names;
    /// the T4 (Turing) has no BF16 units and about half the A10's 16-bit
    /// rate and bandwidth, and CUDA allocates less of each than the board
    /// carries.
    #[test]
    fn inference_cards_parse_and_compare_sanely() {
        for (name, id) in [("t4", GpuId::T4), ("a10", GpuId::A10)] {
            let parsed: GpuId = serde_json::from_str(&format!("\"{name}\"")).expect(name);
            assert_eq!(parsed, id);
        }
        let (t4, a10) = (gpu(GpuId::T4).spec, gpu(GpuId::A10).spec);
        assert_eq!(t4.arch, GpuArch::Turing);
        assert_eq!(t4.bf16.as_tflops(), 0.0);
        assert!(t4.fp8.is_none() && a10.fp8.is_none());
        assert!(a10.bf16.as_tflops() > 1.9 * t4.fp16.as_tflops());
        let bw = t4.memory_bandwidth.as_gb_per_s() / a10.memory_bandwidth.as_gb_per_s();
        assert!((0.5..0.6).contains(&bw), "{bw}");
        for s in [t4, a10] {
            assert!(s.device_memory().as_bytes() < s.capacity.as_bytes());
        }
    }

    /// The parts Chinese teams run parse from their serde names, and their
    /// figures keep the known relations to their siblings.
    #[test]
    fn china_market_parts_parse_and_compare_sanely() {
        for (name, id) in [
            ("h800-sxm", GpuId::H800Sxm),
            ("h20", GpuId::H20),
            ("a800-sxm-80gb", GpuId::A800Sxm80),
            ("l20", GpuId::L20),
            ("l4", GpuId::L4),
            ("rtx-4090d", GpuId::Rtx4090d),
            ("rtx-5090", GpuId::Rtx5090),
            ("ascend-910b", GpuId::Ascend910b),
            ("ascend-910c-die", GpuId::Ascend910cDie),
        ] {
            let parsed: GpuId = serde_json::from_str(&format!("\"{name}\"")).expect(name);
            assert_eq!(parsed, id);
        }
        let s = |id| gpu(id).spec;
        let (h100, h20) = (s(GpuId::H100Sxm), s(GpuId::H20));
        assert!(h20.capacity.as_bytes() > h100.capacity.as_bytes());
        assert!(h20.device_memory().as_bytes() > h100.device_memory().as_bytes());
        assert!(h20.memory_bandwidth.as_gb_per_s() > h100.memory_bandwidth.as_gb_per_s());
        assert!(h20.bf16.as_tflops() < h100.bf16.as_tflops() / 5.0);
        // H800 and A800: their parents' compute, a slower NVLink.
        for (cut, full) in [
            (GpuId::H800Sxm, GpuId::H100Sxm),
            (GpuId::A800Sxm80, GpuId::A100Sxm80),
        ] {
            assert_eq!(s(cut).bf16, s(full).bf16);
            assert_eq!(s(cut).capacity, s(full).capacity);
            let link = |g: GpuSpec| crate::catalog::link(g.scale_up.expect("NVLink")).per_direction;
            assert!(link(s(cut)).as_gb_per_s() < link(s(full)).as_gb_per_s());
        }
        let (r4090, r4090d, r5090) = (s(GpuId::Rtx4090), s(GpuId::Rtx4090d), s(GpuId::Rtx5090));
        assert!(r4090d.bf16.as_tflops() < r4090.bf16.as_tflops());
        assert_eq!(r4090d.capacity, r4090.capacity);
        assert!(r5090.capacity.as_bytes() > r4090.capacity.as_bytes());
        assert!(r5090.memory_bandwidth.as_gb_per_s() > r4090.memory_bandwidth.as_gb_per_s());
        assert!(s(GpuId::L20).bf16.as_tflops() < s(GpuId::L40s).bf16.as_tflops());
        for id in [GpuId::Ascend910b, GpuId::Ascend910cDie] {
            assert_eq!(s(id).arch, GpuArch::DaVinci);
            assert!(gpu(id).source.contains("NVIDIA-calibrated"));
        }
    }

    #[test]
    fn ids_round_trip_through_serde() {
        for &id in GpuId::ALL {
            let s = serde_json::to_string(&id).expect("serialize");
            let back: GpuId = serde_json::from_str(&s).expect("parse");
            assert_eq!(back, id);
            let name = s.trim_matches('"');
            assert!(name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'));
        }
    }
}
