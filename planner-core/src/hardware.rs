//! What a plan runs on: accelerators, links, memory devices, and how many.

use crate::catalog::{CxlId, GpuId, LinkId};
use crate::units::{ByteRate, Bytes, FlopRate, Seconds, Watts};
use serde::{Deserialize, Serialize};

/// Accelerator micro-architecture; decides things like whether FP8 needs a
/// transposed weight copy (Hopper/Ada) or not (Blackwell).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum GpuArch {
    /// NVIDIA Volta (V100).
    Volta,
    /// NVIDIA Turing (T4): FP16 tensor cores, no BF16, no TF32, no FP8;
    /// like Volta, only the memory-efficient attention backend.
    Turing,
    /// NVIDIA Ampere (A100).
    Ampere,
    /// NVIDIA Ada Lovelace (L40S, RTX 4090).
    Ada,
    /// NVIDIA Hopper (H100, H200, GH200).
    Hopper,
    /// NVIDIA Blackwell (B200, GB200, B300).
    Blackwell,
    /// AMD CDNA 2 (MI250X).
    Cdna2,
    /// AMD CDNA 3 (MI300X, MI325X).
    Cdna3,
    /// AMD CDNA 4 (MI355X).
    Cdna4,
    /// Intel Gaudi 2/3.
    Gaudi,
    /// Huawei Ascend (Da Vinci cores): 910B, 910C. memwall's efficiencies
    /// are calibrated on NVIDIA parts; they are uncertain here.
    DaVinci,
    /// Anything else (a user-defined part).
    Other,
}

impl GpuArch {
    /// Whether the part has BF16 tensor cores: every NVIDIA architecture
    /// from Ampere on and the other vendors' catalog parts; not Volta or
    /// Turing (compute capability below 8.0), where PyTorch emulates BF16
    /// and vLLM refuses it.
    pub fn has_bf16_units(self) -> bool {
        !self.before_ampere()
    }

    /// NVIDIA's architectures older than Ampere (compute capability below
    /// 8.0): no BF16 tensor cores, and no FlashAttention-2 (its README:
    /// Ampere, Ada or Hopper).
    pub fn before_ampere(self) -> bool {
        matches!(self, GpuArch::Volta | GpuArch::Turing)
    }

    /// Whether a FlashAttention-2-class fused kernel runs here: PyTorch
    /// SDPA's flash backend on NVIDIA sm80 to sm121, Ampere to Blackwell
    /// (`check_flash_attention_hardware_support` in
    /// aten/src/ATen/native/transformers/cuda/sdp_utils.cpp), and the
    /// `flash-attn` package's ROCm build on MI200 and MI300 (its README,
    /// "AMD ROCm Support"). Volta and Turing have only the memory-efficient
    /// backend; for the other parts no source was read.
    pub fn runs_flash_attention_2(self) -> bool {
        matches!(
            self,
            GpuArch::Ampere
                | GpuArch::Ada
                | GpuArch::Hopper
                | GpuArch::Blackwell
                | GpuArch::Cdna2
                | GpuArch::Cdna3
        )
    }
}

/// The device memory technology.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum MemoryTech {
    /// HBM2.
    Hbm2,
    /// HBM2e.
    Hbm2e,
    /// HBM3.
    Hbm3,
    /// HBM3e.
    Hbm3e,
    /// HBM4.
    Hbm4,
    /// GDDR6 / GDDR6X.
    Gddr6,
    /// GDDR7.
    Gddr7,
}

/// One accelerator's datasheet, the figures the model uses.
///
/// Compute rates are dense (no 2:4 sparsity). `usable` is the total that
/// `nvidia-smi` reports (MiB), where it is known; otherwise the marketed
/// capacity is used and the report says so.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct GpuSpec {
    /// Micro-architecture.
    pub arch: GpuArch,
    /// Memory technology.
    pub memory: MemoryTech,
    /// Marketed device memory (decimal GB in datasheets).
    pub capacity: Bytes,
    /// Memory CUDA can allocate on the device, if known: the total
    /// `cudaMemGetInfo` reports (PyTorch's `total_memory`, the "total
    /// capacity" of its out-of-memory message). Where only nvidia-smi's
    /// total is known it stands in; that is larger by what the driver
    /// reserves (615 MiB of 143,771 on the H200, measured).
    #[serde(default)]
    pub usable: Option<Bytes>,
    /// Peak device-memory bandwidth.
    pub memory_bandwidth: ByteRate,
    /// Dense BF16 tensor rate (0 where BF16 is unsupported).
    pub bf16: FlopRate,
    /// Dense FP16 tensor rate.
    pub fp16: FlopRate,
    /// Dense FP8 tensor rate, if supported.
    #[serde(default)]
    pub fp8: Option<FlopRate>,
    /// Dense FP4 tensor rate, if supported.
    #[serde(default)]
    pub fp4: Option<FlopRate>,
    /// Board power (TDP).
    pub tdp: Watts,
    /// Scale-up link (NVLink, Infinity Fabric), if any.
    #[serde(default)]
    pub scale_up: Option<LinkId>,
    /// Link to the host (PCIe generation or NVLink-C2C).
    pub host_link: LinkId,
    /// Multi-Instance GPU slices the part supports (0 if none).
    #[serde(default)]
    pub mig_slices: u32,
    /// Fraction of the dense BF16 peak the best-shaped matmul reaches on
    /// this part ("maximum achievable matmul FLOPS"), and the same for FP8
    /// and FP4.
    /// `None` takes the measured figure of the catalog where there is one
    /// (`catalog::matmul_ceiling`), else 0.80.
    #[serde(default)]
    pub matmul_ceiling: Option<MatmulCeiling>,
}

/// Measured best-case matmul rate as a fraction of the datasheet peak.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct MatmulCeiling {
    /// BF16/FP16 inputs.
    pub bf16: f64,
    /// FP8 inputs, if measured.
    #[serde(default)]
    pub fp8: Option<f64>,
    /// 4-bit floating-point inputs (NVFP4, MXFP4), if measured; the FP8
    /// figure stands in where not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fp4: Option<f64>,
}

impl GpuSpec {
    /// The device memory a process can address: the driver-reported total
    /// where known, else the marketed capacity.
    pub fn device_memory(&self) -> Bytes {
        self.usable.unwrap_or(self.capacity)
    }
}

/// A GPU given by catalog id or described in full.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum GpuChoice {
    /// A catalog entry.
    Preset(GpuId),
    /// A user-defined part (a future HBM4 GPU, say).
    Custom(CustomGpu),
}

impl GpuChoice {
    /// The catalog id, for a catalog part.
    pub fn preset(&self) -> Option<GpuId> {
        match self {
            GpuChoice::Preset(id) => Some(*id),
            GpuChoice::Custom(_) => None,
        }
    }

    /// The part's datasheet figures; a catalog part also gets its measured
    /// matmul ceiling ([`crate::catalog::matmul_ceiling`]).
    pub fn spec(&self) -> GpuSpec {
        match self {
            GpuChoice::Preset(id) => {
                let mut spec = crate::catalog::gpu(*id).spec;
                spec.matmul_ceiling = crate::catalog::matmul_ceiling(*id);
                spec
            }
            GpuChoice::Custom(g) => g.spec,
        }
    }

    /// The display name.
    pub fn name(&self) -> &str {
        match self {
            GpuChoice::Preset(id) => crate::catalog::gpu(*id).name,
            GpuChoice::Custom(g) => &g.name,
        }
    }
}

/// A user-defined accelerator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CustomGpu {
    /// Display name.
    pub name: String,
    /// Its datasheet.
    pub spec: GpuSpec,
}

/// A memory device attached over CXL (Type 3 expander).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CxlSpec {
    /// Capacity of one device.
    pub capacity: Bytes,
    /// Sustained bandwidth of one device (mixed read/write).
    pub bandwidth: ByteRate,
    /// Load-to-use latency.
    pub latency: Seconds,
}

/// A CXL device given by catalog id or described in full.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum CxlChoice {
    /// A catalog entry.
    Preset(CxlId),
    /// A user-defined device.
    Custom(CxlSpec),
}

/// CXL expanders in each node.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CxlExpansion {
    /// Devices per node.
    pub devices_per_node: u32,
    /// Which device.
    pub device: CxlChoice,
}

/// Memory pooled behind a CXL switch and shared by a group of GPUs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct MemoryPool {
    /// Pool capacity.
    pub capacity: Bytes,
    /// GPUs that share the pool (its capacity is split evenly among them).
    pub shared_by_gpus: u32,
    /// Bandwidth available to one GPU.
    pub bandwidth: ByteRate,
    /// Load-to-use latency (switched pools: 300–600 ns).
    pub latency: Seconds,
}

/// The hardware side of a plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Hardware {
    /// The accelerator.
    pub gpu: GpuChoice,
    /// Total accelerators.
    pub gpus: u32,
    /// Accelerators per node (server).
    #[serde(default = "default_gpus_per_node")]
    pub gpus_per_node: u32,
    /// Accelerators in one scale-up (NVLink) domain; 0 means one node.
    #[serde(default)]
    pub scale_up_domain: u32,
    /// Host DRAM per node; 0 (the default) gives each GPU in the node its
    /// typical node's share (`catalog::NODES`: a DGX H100's 2 TB over 8
    /// GPUs, a GH200's 480 GB, a desktop's 64 GB).
    #[serde(default)]
    pub host_dram_per_node: Bytes,
    /// NVMe capacity per node usable for offload.
    #[serde(default)]
    pub nvme_per_node: Bytes,
    /// CXL expanders, if any.
    #[serde(default)]
    pub cxl: Option<CxlExpansion>,
    /// A pooled memory tier, if any.
    #[serde(default)]
    pub pool: Option<MemoryPool>,
    /// Node-to-node fabric; `None` picks the one shipped with the GPU's
    /// reference system (see [`default_scale_out`]).
    #[serde(default)]
    pub scale_out: Option<LinkId>,
    /// Scale-out ports (NICs) per node; 0 means one per GPU, as in DGX/HGX.
    #[serde(default)]
    pub nics_per_node: u32,
    /// Host DRAM bandwidth per node; `None` picks a default from the host
    /// link (see [`default_host_bandwidth`]).
    #[serde(default)]
    pub host_memory_bandwidth: Option<ByteRate>,
    /// Sequential NVMe bandwidth per node usable for offload.
    #[serde(default = "default_nvme_bandwidth")]
    pub nvme_bandwidth_per_node: ByteRate,
    /// The board power limit each GPU runs under (`nvidia-smi -pl`);
    /// `None` is the part's rated TDP. Under a lower limit compute-bound
    /// kernels lose clock ([`crate::catalog::clock_fraction`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power_limit: Option<Watts>,
}

/// The fabric of each GPU generation's reference system: DGX-1 (V100)
/// shipped EDR InfiniBand, DGX A100 HDR, DGX H100/H200 NDR and DGX B200/
/// GB200 XDR-class ConnectX-8 (NVIDIA DGX user guides). AMD and Intel parts
/// get NDR-class 400 Gb/s Ethernet/IB, as sold in their reference servers;
/// Huawei Ascend 400 Gb/s RoCE (the CloudMatrix384 paper's RDMA plane).
pub fn default_scale_out(arch: GpuArch) -> LinkId {
    match arch {
        // Turing's T4 servers have no DGX; a 100 Gb/s-class fabric is
        // taken, as for Volta.
        GpuArch::Volta | GpuArch::Turing => LinkId::InfinibandEdr,
        GpuArch::Ampere => LinkId::InfinibandHdr,
        GpuArch::Blackwell => LinkId::InfinibandXdr,
        GpuArch::Gaudi | GpuArch::DaVinci => LinkId::Roce400,
        _ => LinkId::InfinibandNdr,
    }
}

/// The kind of CPU a node's host memory hangs off, as far as the planner
/// tells them apart: read from how its GPUs attach, since a GPU behind
/// NVLink-C2C sits on a Grace superchip (GH200, GB200, GB300) and every
/// other catalog node is an x86 server on PCIe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostCpu {
    /// A two-socket x86 server (DDR4/DDR5).
    X86,
    /// NVIDIA Grace (LPDDR5X), reached over NVLink-C2C.
    Grace,
}

impl HostCpu {
    /// The host CPU of a node whose GPUs attach over `host_link`.
    pub fn behind(host_link: LinkId) -> Self {
        match host_link {
            LinkId::NvLinkC2c => Self::Grace,
            _ => Self::X86,
        }
    }
}

/// Host DRAM bandwidth per node when none is given.
///
/// A two-socket x86 server with 8 channels of DDR4-3200 per socket peaks at
/// 2 × 8 × 25.6 GB/s = 409.6 GB/s (JEDEC DDR4-3200: 3200 MT/s × 8 B); we
/// take 400 GB/s. A Grace CPU's LPDDR5X reaches about 500 GB/s per
/// superchip (NVIDIA Grace Hopper datasheet, up to 512 GB/s), so nodes whose
/// GPUs attach over NVLink-C2C get 500 GB/s per GPU.
pub fn default_host_bandwidth(host_link: LinkId, gpus_per_node: u32) -> ByteRate {
    match HostCpu::behind(host_link) {
        HostCpu::Grace => ByteRate::from_gb_per_s(500.0 * f64::from(gpus_per_node.max(1))),
        HostCpu::X86 => ByteRate::from_gb_per_s(400.0),
    }
}

/// Four PCIe 4.0 NVMe drives striped, at about 6.5 GB/s sequential each
/// (datacenter U.2 drives of the DGX A100 class are rated ~7 GB/s read).
/// An assumption; set it from your own `fio` numbers.
fn default_nvme_bandwidth() -> ByteRate {
    ByteRate::from_gb_per_s(26.0)
}

fn default_gpus_per_node() -> u32 {
    8
}

/// 2 TB per node, as in a DGX H100/H200/B200; the reference beyond which
/// the cost report charges added host DRAM. (The default of a plan's
/// `host_dram_per_node` is its GPU's typical node, `catalog::NODES`.)
pub fn default_host_dram() -> Bytes {
    Bytes::from_tb(2.0)
}

impl Hardware {
    /// `gpus` accelerators of one kind in 8-GPU nodes, every other field at
    /// its default (the GPU's typical node's host DRAM, no NVMe, CXL or
    /// pool).
    pub fn new(gpu: GpuChoice, gpus: u32) -> Self {
        Self {
            gpu,
            gpus,
            gpus_per_node: default_gpus_per_node(),
            scale_up_domain: 0,
            host_dram_per_node: Bytes::ZERO,
            nvme_per_node: Bytes::ZERO,
            cxl: None,
            pool: None,
            scale_out: None,
            nics_per_node: 0,
            host_memory_bandwidth: None,
            nvme_bandwidth_per_node: default_nvme_bandwidth(),
            power_limit: None,
        }
    }

    /// The fraction of its TDP clock a GPU of rated power `tdp` keeps for
    /// compute-bound kernels under this hardware's power limit
    /// ([`crate::catalog::clock_fraction`]); 1 with no limit, a limit at
    /// or above the TDP, or one resolve refuses (not finite, below the
    /// lowest measured cap).
    pub fn clock_fraction(&self, tdp: Watts) -> f64 {
        let Some(limit) = self.power_limit else {
            return 1.0;
        };
        let f = limit.as_watts() / tdp.as_watts();
        if f.is_finite() && f >= crate::catalog::LOWEST_LIMIT_FRACTION {
            crate::catalog::clock_fraction(f)
        } else {
            1.0
        }
    }

    /// Scale-up domain size with the default (one node) resolved.
    pub fn scale_up_gpus(&self) -> u32 {
        // (A scale-up domain of 0 means "one node".)
        if self.scale_up_domain == 0 {
            self.gpus_per_node
        } else {
            self.scale_up_domain
        }
    }
}

/// A memory tier.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default,
)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// Device memory (HBM or GDDR).
    #[default]
    Hbm,
    /// CXL-attached memory (expanders and pools).
    Cxl,
    /// Host DRAM (also Grace memory over NVLink-C2C).
    HostDram,
    /// NVMe.
    Nvme,
}

impl Tier {
    /// All tiers, hottest first.
    pub const ALL: [Tier; 4] = [Tier::Hbm, Tier::Cxl, Tier::HostDram, Tier::Nvme];
}

crate::lang::named!(Tier {
    Tier::Hbm => "hbm", "HBM", "HBM";
    Tier::Cxl => "cxl", "CXL memory", "CXL 内存";
    Tier::HostDram => "host_dram", "host DRAM", "主机内存";
    Tier::Nvme => "nvme", "NVMe", "NVMe";
});
