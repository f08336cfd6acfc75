//! The node each catalog accelerator typically ships in, as far as memory
//! cares: host DRAM per GPU (issue 12, "host DRAM defaults to 2 TB per node
//! even for a single 4090 box or a GH200").
//!
//! A plan's `hardware.host_dram_per_node` of 0 (its default) gives each
//! GPU in a node this figure, so offload checks see a GH200's 480 GB or a
//! desktop's DIMMs rather than a DGX's 2 TB. The figure is per GPU so
//! that it does not depend on how many GPUs a plan puts in a node (a
//! 1-GPU GH200 node, a 4-GPU GB200 tray, one GPU of an 8-GPU server).
//! Where no reference system exists the entry says so and its provenance
//! is `Assumed`.

use super::{GpuId, Provenance};
use crate::units::Bytes;

/// A GPU's typical node.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NodeEntry {
    /// The accelerator.
    pub gpu: GpuId,
    /// The reference system.
    pub system: &'static str,
    /// Host DRAM per GPU of that system (its DRAM ÷ its GPUs).
    pub host_dram_per_gpu: Bytes,
    /// Where the figure comes from.
    pub source: &'static str,
    /// How it was checked.
    pub provenance: Provenance,
}

/// 2 TB over 8 GPUs: the DGX H100/H200/B200 figure, and what a plan
/// without a catalog GPU gets.
pub const REFERENCE_DRAM_PER_GPU: Bytes = Bytes::from_gb(250.0);

const HGX_ASSUMED: &str = "no reference system of its own: taken as an 8-GPU server with \
     DGX H100's 2 TB of DDR5 (250 GB per GPU); set hardware.host_dram_per_node";
const PCIE_ASSUMED: &str = "no reference system: taken as an 8-GPU PCIe server with 1 TB of \
     DRAM (125 GB per GPU); set hardware.host_dram_per_node";
const DESKTOP_ASSUMED: &str = "consumer card, no reference system: taken as a desktop \
     workstation with 64 GB of DDR5 (2 × 32 GB DIMMs) per GPU; set \
     hardware.host_dram_per_node";

const fn entry(
    gpu: GpuId,
    system: &'static str,
    gb_per_gpu: f64,
    source: &'static str,
    provenance: Provenance,
) -> NodeEntry {
    NodeEntry {
        gpu,
        system,
        host_dram_per_gpu: Bytes::from_gb(gb_per_gpu),
        source,
        provenance,
    }
}

/// One entry per catalog GPU (a unit test checks the table is total).
pub static NODES: &[NodeEntry] = &[
    entry(
        GpuId::V100Sxm2_16,
        "DGX-1 (V100)",
        64.0,
        "NVIDIA DGX-1 datasheet: 512 GB DDR4 system memory for 8 V100",
        Provenance::Recalled,
    ),
    entry(
        GpuId::V100Sxm2_32,
        "DGX-2",
        96.0,
        "NVIDIA DGX-2 datasheet: 1.5 TB system memory for 16 V100 32 GB",
        Provenance::Recalled,
    ),
    entry(
        GpuId::V100Pcie32,
        "PCIe server",
        125.0,
        PCIE_ASSUMED,
        Provenance::Assumed,
    ),
    entry(
        GpuId::A100Sxm40,
        "DGX A100 320 GB",
        125.0,
        "NVIDIA DGX A100 datasheet: 1 TB system memory in the 320 GB (8 × A100 40 GB) system",
        Provenance::Recalled,
    ),
    entry(
        GpuId::A100Sxm80,
        "DGX A100 640 GB",
        250.0,
        "NVIDIA DGX A100 datasheet: 2 TB system memory in the 640 GB (8 × A100 80 GB) system",
        Provenance::Recalled,
    ),
    entry(
        GpuId::A100Pcie80,
        "PCIe server",
        125.0,
        PCIE_ASSUMED,
        Provenance::Assumed,
    ),
    entry(
        GpuId::A800Sxm80,
        "HGX A800",
        250.0,
        HGX_ASSUMED,
        Provenance::Assumed,
    ),
    entry(
        GpuId::H100Sxm,
        "DGX H100",
        250.0,
        "NVIDIA DGX BasePOD reference architecture, 'Core Components': DGX H100/H200, \
         2 TB of DDR5 system memory for 8 GPUs",
        Provenance::Verified,
    ),
    entry(
        GpuId::H100Pcie,
        "PCIe server",
        125.0,
        PCIE_ASSUMED,
        Provenance::Assumed,
    ),
    entry(
        GpuId::H100Nvl,
        "PCIe server",
        125.0,
        PCIE_ASSUMED,
        Provenance::Assumed,
    ),
    entry(
        GpuId::H800Sxm,
        "HGX H800",
        250.0,
        HGX_ASSUMED,
        Provenance::Assumed,
    ),
    entry(
        GpuId::H20,
        "HGX H20",
        250.0,
        HGX_ASSUMED,
        Provenance::Assumed,
    ),
    entry(
        GpuId::Gh200_96,
        "GH200 superchip node",
        480.0,
        "NVIDIA GH200 Grace Hopper Superchip datasheet: up to 480 GB LPDDR5X per superchip \
         (one GPU)",
        Provenance::Recalled,
    ),
    entry(
        GpuId::Gh200_144,
        "GH200 superchip node",
        480.0,
        "NVIDIA GH200 Grace Hopper Superchip datasheet: up to 480 GB LPDDR5X per superchip \
         (one GPU)",
        Provenance::Recalled,
    ),
    entry(
        GpuId::H200Sxm,
        "DGX H200",
        250.0,
        "NVIDIA DGX BasePOD reference architecture, 'Core Components': DGX H100/H200, \
         2 TB of DDR5 system memory for 8 GPUs",
        Provenance::Verified,
    ),
    entry(
        GpuId::H200Nvl,
        "PCIe server",
        125.0,
        PCIE_ASSUMED,
        Provenance::Assumed,
    ),
    entry(
        GpuId::B200,
        "DGX B200",
        250.0,
        "NVIDIA DGX B200 user guide, 'Introduction': system memory 2 TB using 32 DIMMs \
         (upgradable to 4 TB) for 8 GPUs",
        Provenance::Verified,
    ),
    entry(
        GpuId::Gb200,
        "GB200 NVL72 compute tray",
        240.0,
        "NVIDIA GB200 NVL72 specifications: up to 17 TB LPDDR5X over 36 Grace CPUs (480 GB \
         each), two B200 per Grace",
        Provenance::Recalled,
    ),
    entry(
        GpuId::B300,
        "HGX B300",
        250.0,
        HGX_ASSUMED,
        Provenance::Assumed,
    ),
    entry(
        GpuId::Mi250xGcd,
        "Frontier node",
        64.0,
        "OLCF Frontier user guide: 512 GB DDR4 per node of 4 MI250X (8 GCDs)",
        Provenance::Recalled,
    ),
    entry(
        GpuId::Mi300x,
        "8-GPU OAM server",
        250.0,
        HGX_ASSUMED,
        Provenance::Assumed,
    ),
    entry(
        GpuId::Mi325x,
        "8-GPU OAM server",
        250.0,
        HGX_ASSUMED,
        Provenance::Assumed,
    ),
    entry(
        GpuId::Mi355x,
        "8-GPU OAM server",
        250.0,
        HGX_ASSUMED,
        Provenance::Assumed,
    ),
    entry(
        GpuId::Gaudi2,
        "8-card server",
        250.0,
        HGX_ASSUMED,
        Provenance::Assumed,
    ),
    entry(
        GpuId::Gaudi3,
        "8-card server",
        250.0,
        HGX_ASSUMED,
        Provenance::Assumed,
    ),
    entry(
        GpuId::L40s,
        "PCIe server",
        125.0,
        PCIE_ASSUMED,
        Provenance::Assumed,
    ),
    entry(
        GpuId::L20,
        "PCIe server",
        125.0,
        PCIE_ASSUMED,
        Provenance::Assumed,
    ),
    entry(
        GpuId::L4,
        "PCIe server",
        125.0,
        PCIE_ASSUMED,
        Provenance::Assumed,
    ),
    entry(
        GpuId::A10,
        "PCIe server",
        125.0,
        PCIE_ASSUMED,
        Provenance::Assumed,
    ),
    entry(
        GpuId::T4,
        "PCIe server",
        125.0,
        PCIE_ASSUMED,
        Provenance::Assumed,
    ),
    entry(
        GpuId::RtxPro6000,
        "PCIe server",
        125.0,
        PCIE_ASSUMED,
        Provenance::Assumed,
    ),
    entry(
        GpuId::Rtx3090,
        "desktop workstation",
        64.0,
        DESKTOP_ASSUMED,
        Provenance::Assumed,
    ),
    entry(
        GpuId::Rtx4090,
        "desktop workstation",
        64.0,
        DESKTOP_ASSUMED,
        Provenance::Assumed,
    ),
    entry(
        GpuId::Rtx4090d,
        "desktop workstation",
        64.0,
        DESKTOP_ASSUMED,
        Provenance::Assumed,
    ),
    entry(
        GpuId::Rtx5090,
        "desktop workstation",
        64.0,
        DESKTOP_ASSUMED,
        Provenance::Assumed,
    ),
    entry(
        GpuId::Ascend910b,
        "8-NPU server",
        250.0,
        HGX_ASSUMED,
        Provenance::Assumed,
    ),
    entry(
        GpuId::Ascend910cDie,
        "8-NPU server",
        250.0,
        HGX_ASSUMED,
        Provenance::Assumed,
    ),
];

/// The typical node of a catalog GPU.
pub fn typical_node(gpu: GpuId) -> &'static NodeEntry {
    NODES.iter().find(|e| e.gpu == gpu).unwrap_or(&NODES[0])
}

/// Host DRAM per GPU for a plan's GPU: its typical node's, or the
/// reference 250 GB for a custom part.
pub fn host_dram_per_gpu(gpu: Option<GpuId>) -> Bytes {
    gpu.map_or(REFERENCE_DRAM_PER_GPU, |id| {
        typical_node(id).host_dram_per_gpu
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_gpu_has_one_node() {
        for id in GpuId::ALL {
            let n = NODES.iter().filter(|e| e.gpu == *id).count();
            assert_eq!(n, 1, "{id:?}");
            let e = typical_node(*id);
            assert!(e.host_dram_per_gpu.as_gb() >= 32.0, "{id:?}");
            assert!(e.source.len() > 30, "{id:?}");
        }
        assert_eq!(NODES.len(), GpuId::ALL.len());
        // The cases issue 12 names: a GH200 node is 480 GB, a single
        // 4090 desktop far below a DGX's 2 TB.
        assert_eq!(host_dram_per_gpu(Some(GpuId::Gh200_144)).as_gb(), 480.0);
        assert!(host_dram_per_gpu(Some(GpuId::Rtx4090)).as_gb() < 100.0);
        assert_eq!(
            host_dram_per_gpu(Some(GpuId::H100Sxm)).as_gb() * 8.0,
            2000.0
        );
        assert_eq!(host_dram_per_gpu(None), REFERENCE_DRAM_PER_GPU);
    }
}
