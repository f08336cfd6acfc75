//! Published NCCL-tests all-reduce bus bandwidths at large messages: what
//! the collective model is held to (`time::comm` tests; docs/validation.md,
//! "Collectives vs NCCL-tests").
//!
//! Each row is a figure someone posted with its system: a run they measured
//! or the figure NCCL's maintainers at NVIDIA give for that system. Bus
//! bandwidth is nccl-tests' `busbw` (algbw × 2(n−1)/n for all-reduce,
//! NVIDIA/nccl-tests `doc/PERFORMANCE.md`).

use super::{GpuId, LinkId, Provenance};
use crate::units::Bytes;

/// What kind of figure a row is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NcclFigure {
    /// A run's output, posted by whoever ran it.
    Measured,
    /// The figure NCCL's maintainers say the system reaches.
    MaintainerExpected,
}

/// The algorithm NCCL used, where the source says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NcclAlgorithm {
    /// Ring or tree over point-to-point links (what the model covers).
    RingOrTree,
    /// NVLink SHARP (in-switch reduction on NVSwitch 3), which the model
    /// does not cover: its bus bandwidth can exceed the link's.
    Nvls,
}

/// One published all-reduce bus bandwidth.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NcclRow {
    /// Short label.
    pub name: &'static str,
    /// The GPU.
    pub gpu: GpuId,
    /// Ranks in the all-reduce.
    pub gpus: u32,
    /// GPUs per node (one NVLink domain each).
    pub gpus_per_node: u32,
    /// NICs per node; 0 means one per GPU.
    pub nics_per_node: u32,
    /// The fabric between nodes.
    pub scale_out: LinkId,
    /// Message size the figure is read at.
    pub bytes: Bytes,
    /// Bus bandwidth, GB/s (10⁹ B/s).
    pub busbw_gb_s: f64,
    /// Measured or expected.
    pub figure: NcclFigure,
    /// Algorithm, where known.
    pub algorithm: NcclAlgorithm,
    /// Where the figure was published, quoted closely.
    pub source: &'static str,
    /// How it was checked.
    pub provenance: Provenance,
}

use NcclAlgorithm::{Nvls, RingOrTree};
use NcclFigure::{MaintainerExpected, Measured};

/// The published rows.
#[rustfmt::skip]
pub static NCCL_TESTS: &[NcclRow] = &[
    NcclRow {
        name: "DGX A100, 1 node (NVLink 3)", gpu: GpuId::A100Sxm80, gpus: 8, gpus_per_node: 8,
        nics_per_node: 0, scale_out: LinkId::InfinibandHdr, bytes: Bytes::from_gib(4.0),
        busbw_gb_s: 232.54, figure: Measured, algorithm: RingOrTree,
        source: "NVIDIA/nccl-tests issue #175 (2023-10-29): 8×A100 single node, `all_reduce_perf -b 8 -e 4G -f 2 -g 8`, result 232.54 GB/s",
        provenance: Provenance::VerifiedCopy,
    },
    NcclRow {
        name: "DGX A100, multi-node, 8×HDR per node", gpu: GpuId::A100Sxm80, gpus: 16, gpus_per_node: 8,
        nics_per_node: 0, scale_out: LinkId::InfinibandHdr, bytes: Bytes::from_gib(4.0),
        busbw_gb_s: 192.0, figure: Measured, algorithm: RingOrTree,
        source: "NVIDIA/nccl issue #812, NCCL maintainer (AddyLaddy), quoted in nccl issue #1576: \"On an Nvidia DGX-A100 system we have 8x200Gbit/s IB cards and we measure 192GB/s AllReduce BusBW\" (node count not given; two nodes here)",
        provenance: Provenance::VerifiedCopy,
    },
    NcclRow {
        name: "A100 40GB, 3 nodes, 4×HDR per node", gpu: GpuId::A100Sxm40, gpus: 24, gpus_per_node: 8,
        nics_per_node: 4, scale_out: LinkId::InfinibandHdr, bytes: Bytes::from_mib(128.0),
        busbw_gb_s: 96.0, figure: Measured, algorithm: RingOrTree,
        source: "NVIDIA/nccl-tests issue #119 (2022-11-17): 3 servers of 8×A100 SXM4 40G with 4 HDR cards each, `all_reduce_perf -b 8 -e 128M`, \"peak performance reaches about 96GB/s\"",
        provenance: Provenance::VerifiedCopy,
    },
    NcclRow {
        name: "A800, 1 node (NVLink capped at 400 GB/s)", gpu: GpuId::A800Sxm80, gpus: 8, gpus_per_node: 8,
        nics_per_node: 1, scale_out: LinkId::InfinibandHdr, bytes: Bytes::from_gib(8.0),
        busbw_gb_s: 160.0, figure: MaintainerExpected, algorithm: RingOrTree,
        source: "NVIDIA/nccl issue #412, NCCL maintainer (sjeaugey, 2023-04-24) for 8 NVLink A800s: \"looking at the BusBW at a size of 8G, you should get ~160GB/s intra-node\"",
        provenance: Provenance::VerifiedCopy,
    },
    NcclRow {
        name: "A800, 12 nodes, 1×HDR per node", gpu: GpuId::A800Sxm80, gpus: 96, gpus_per_node: 8,
        nics_per_node: 1, scale_out: LinkId::InfinibandHdr, bytes: Bytes::from_gib(8.0),
        busbw_gb_s: 24.0, figure: MaintainerExpected, algorithm: RingOrTree,
        source: "NVIDIA/nccl issue #412, NCCL maintainer (sjeaugey, 2023-04-24) for 12 nodes of 8 A800s with one HDR 200G card each: \"~160GB/s intra-node and 24GB/s inter-node\"",
        provenance: Provenance::VerifiedCopy,
    },
    NcclRow {
        name: "HGX H100, 2 nodes, 8×NDR per node, ring", gpu: GpuId::H100Sxm, gpus: 16, gpus_per_node: 8,
        nics_per_node: 0, scale_out: LinkId::InfinibandNdr, bytes: Bytes::from_gib(8.0),
        busbw_gb_s: 396.0, figure: MaintainerExpected, algorithm: RingOrTree,
        source: "NVIDIA/nccl-tests issue #319, NCCL maintainer (AddyLaddy, 2025-06-11): \"around 48GB/s from each CX7 NIC at 400Gbps. Then with NVLink based nodes that can be aggregated to achieve up to ~396GB/s with the RING protocol\"",
        provenance: Provenance::VerifiedCopy,
    },
    NcclRow {
        name: "HGX H100, 4 nodes, 8×NDR per node", gpu: GpuId::H100Sxm, gpus: 32, gpus_per_node: 8,
        nics_per_node: 0, scale_out: LinkId::InfinibandNdr, bytes: Bytes::from_gib(16.0),
        busbw_gb_s: 365.84, figure: Measured, algorithm: RingOrTree,
        source: "NVIDIA/nccl-tests issue #309 (2025-05): 4 HGX H100 hosts (VMs), 32 GPU-NIC pairs, `all_reduce_perf_mpi -b 8 -e 16g`: \"max busbw can get 365.84 GB/s\"",
        provenance: Provenance::VerifiedCopy,
    },
    NcclRow {
        name: "HGX H100, 1 node, NVLink SHARP", gpu: GpuId::H100Sxm, gpus: 8, gpus_per_node: 8,
        nics_per_node: 0, scale_out: LinkId::InfinibandNdr, bytes: Bytes::from_gib(8.0),
        busbw_gb_s: 476.0, figure: Measured, algorithm: Nvls,
        source: "NVIDIA/nccl-tests issue #290, NCCL maintainer (AddyLaddy, 2025-03-03) on a user's single-node run: \"will be using NVLink and NVLink SHARP to accelerate AllReduce and 476GB/s looks to be in the expected range for H100\"",
        provenance: Provenance::VerifiedCopy,
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_well_formed() {
        for row in NCCL_TESTS {
            assert!(row.gpus >= 2 && row.gpus_per_node >= 1, "{}", row.name);
            assert!(row.busbw_gb_s > 0.0 && row.busbw_gb_s.is_finite());
            assert!(row.bytes.as_gb() > 0.0);
            assert!(row.source.contains("NVIDIA/nccl"), "{}", row.name);
        }
    }
}
