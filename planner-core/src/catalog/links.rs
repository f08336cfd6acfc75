//! Interconnects: host links (PCIe, NVLink-C2C), scale-up links (NVLink,
//! Infinity Fabric, Gaudi's on-die RoCE) and scale-out fabrics (InfiniBand,
//! RoCE).
//!
//! `per_direction` is the peak one GPU can push one way. For scale-out
//! fabrics it is one port's rate, i.e. one NIC per GPU (as in DGX/HGX
//! nodes); a node with fewer NICs than GPUs must scale it down.

use super::Provenance;
use crate::units::ByteRate;
use serde::{Deserialize, Serialize};

/// Seconds the driver and the copy engine take to start one asynchronous
/// copy between host-visible memory and HBM, before its first byte moves
/// (`cudaMemcpyAsync` issue, descriptor set-up, completion event). The
/// DualPath paper (arXiv 2602.21548, §5.2) measures 5–7 µs per
/// `cudaMemcpyAsync` on Hopper nodes; we take the middle, 6 µs. Every tier
/// copy below HBM pays it once (host DRAM, CXL, NVMe); a copy moves one
/// layer's bytes (`time::training::tier_latency`).
pub const DMA_COPY_OVERHEAD_S: f64 = 6e-6;

/// Seconds an NVMe read waits for its first data: a flash read is of the
/// order of 100 µs on datacentre NVMe SSDs (Pure Storage, "What Is NVMe?",
/// NVMe primer: ~100 µs reads versus milliseconds for disks). Bulk reads
/// keep many commands queued, so one copy pays it once, not per page.
pub const NVME_READ_LATENCY_S: f64 = 100e-6;

/// Catalog ids of links.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum LinkId {
    /// PCIe 3.0 x16.
    #[serde(rename = "pcie3-x16")]
    Pcie3x16,
    /// PCIe 4.0 x16.
    #[serde(rename = "pcie4-x16")]
    Pcie4x16,
    /// PCIe 5.0 x16.
    #[serde(rename = "pcie5-x16")]
    Pcie5x16,
    /// PCIe 6.0 x16.
    #[serde(rename = "pcie6-x16")]
    Pcie6x16,
    /// NVLink 2 (V100), 6 links.
    #[serde(rename = "nvlink2")]
    NvLink2,
    /// NVLink 3 (A100), 12 links.
    #[serde(rename = "nvlink3")]
    NvLink3,
    /// NVLink 4 (H100/H200), 18 links.
    #[serde(rename = "nvlink4")]
    NvLink4,
    /// NVLink 4 over a bridge on PCIe Hopper cards (H100 PCIe, H100 NVL).
    #[serde(rename = "nvlink4-bridge")]
    NvLink4Bridge,
    /// NVLink 5 (B200/GB200/B300), 18 links.
    #[serde(rename = "nvlink5")]
    NvLink5,
    /// NVLink capped at 400 GB/s bidirectional for export (A800, H800).
    #[serde(rename = "nvlink-400")]
    NvLink400,
    /// NVLink-C2C between a Grace CPU and a Hopper/Blackwell GPU.
    #[serde(rename = "nvlink-c2c")]
    NvLinkC2c,
    /// AMD Infinity Fabric on MI250X, per GCD.
    #[serde(rename = "infinity-fabric-mi250x")]
    InfinityFabricMi250x,
    /// AMD Infinity Fabric on MI300X-class parts (MI300X, MI325X).
    #[serde(rename = "infinity-fabric-mi300")]
    InfinityFabricMi300,
    /// Huawei Ascend HCCS / Unified Bus, per die.
    #[serde(rename = "ascend-hccs")]
    AscendHccs,
    /// Intel Gaudi 2 on-die RoCE, 21 × 100 GbE inside the node.
    #[serde(rename = "gaudi2-roce")]
    Gaudi2Roce,
    /// Intel Gaudi 3 on-die RoCE, 21 × 200 GbE inside the node.
    #[serde(rename = "gaudi3-roce")]
    Gaudi3Roce,
    /// InfiniBand EDR, 100 Gb/s per port.
    #[serde(rename = "ib-edr")]
    InfinibandEdr,
    /// InfiniBand HDR, 200 Gb/s per port.
    #[serde(rename = "ib-hdr")]
    InfinibandHdr,
    /// InfiniBand NDR, 400 Gb/s per port.
    #[serde(rename = "ib-ndr")]
    InfinibandNdr,
    /// InfiniBand XDR, 800 Gb/s per port.
    #[serde(rename = "ib-xdr")]
    InfinibandXdr,
    /// RoCE v2 at 400 Gb/s per port.
    #[serde(rename = "roce-400g")]
    Roce400,
    /// RoCE v2 at 800 Gb/s per port.
    #[serde(rename = "roce-800g")]
    Roce800,
}

impl LinkId {
    /// Every link id, in catalog order.
    pub const ALL: &'static [LinkId] = &[
        LinkId::Pcie3x16,
        LinkId::Pcie4x16,
        LinkId::Pcie5x16,
        LinkId::Pcie6x16,
        LinkId::NvLink2,
        LinkId::NvLink3,
        LinkId::NvLink4,
        LinkId::NvLink4Bridge,
        LinkId::NvLink5,
        LinkId::NvLink400,
        LinkId::NvLinkC2c,
        LinkId::InfinityFabricMi250x,
        LinkId::InfinityFabricMi300,
        LinkId::AscendHccs,
        LinkId::Gaudi2Roce,
        LinkId::Gaudi3Roce,
        LinkId::InfinibandEdr,
        LinkId::InfinibandHdr,
        LinkId::InfinibandNdr,
        LinkId::InfinibandXdr,
        LinkId::Roce400,
        LinkId::Roce800,
    ];
}

/// What a link is used for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum LinkRole {
    /// GPU to host CPU / memory.
    Host,
    /// GPU to GPU inside a scale-up domain.
    ScaleUp,
    /// Node to node.
    ScaleOut,
}

/// One link in the catalog.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkEntry {
    /// Its id.
    pub id: LinkId,
    /// Display name.
    pub name: &'static str,
    /// Role.
    pub role: LinkRole,
    /// Peak bandwidth per direction, per GPU.
    pub per_direction: ByteRate,
    /// Where the figure comes from.
    pub source: &'static str,
    /// How it was checked.
    pub provenance: Provenance,
}

const fn link(
    id: LinkId,
    name: &'static str,
    role: LinkRole,
    gb_per_s: f64,
    source: &'static str,
    provenance: Provenance,
) -> LinkEntry {
    LinkEntry {
        id,
        name,
        role,
        per_direction: ByteRate::from_gb_per_s(gb_per_s),
        source,
        provenance,
    }
}

use LinkId as I;
use LinkRole::{Host, ScaleOut, ScaleUp};
use Provenance as P;

/// The link catalog.
#[rustfmt::skip]
pub static LINKS: &[LinkEntry] = &[
    link(I::Pcie3x16, "PCIe 3.0 x16", Host, 15.75,
        "PCI-SIG PCIe 3.0 base specification: 8 GT/s per lane, 128b/130b encoding, 16 lanes",
        P::Recalled),
    link(I::Pcie4x16, "PCIe 4.0 x16", Host, 31.5,
        "PCI-SIG PCIe 4.0 base specification: 16 GT/s, 128b/130b encoding, x16 (pinned host-to-device copies reach about 24–26 GB/s)",
        P::Recalled),
    link(I::Pcie5x16, "PCIe 5.0 x16", Host, 63.0,
        "PCI-SIG PCIe 5.0 base specification: 32 GT/s, 128b/130b encoding, x16 (pinned host-to-device copies reach about 50–55 GB/s)",
        P::Recalled),
    link(I::Pcie6x16, "PCIe 6.0 x16", Host, 121.0,
        "PCI-SIG PCIe 6.0 base specification: 64 GT/s PAM4 with FLIT encoding, x16; 128 GB/s raw, about 121 GB/s after FLIT overhead",
        P::Recalled),
    link(I::NvLink2, "NVLink 2 (6 links)", ScaleUp, 150.0,
        "NVIDIA Tesla V100 datasheet: 300 GB/s bidirectional over 6 NVLink 2 links",
        P::Recalled),
    link(I::NvLink3, "NVLink 3 (12 links)", ScaleUp, 300.0,
        "NVIDIA A100 datasheet: 600 GB/s bidirectional NVLink per GPU (also the A100 PCIe bridge, pairs only)",
        P::Recalled),
    link(I::NvLink4, "NVLink 4 (18 links)", ScaleUp, 450.0,
        "NVIDIA H100/H200 datasheets: 900 GB/s bidirectional NVLink per GPU (H200 NVL bridge: same)",
        P::VerifiedCopy),
    link(I::NvLink4Bridge, "NVLink 4 bridge (PCIe Hopper cards)", ScaleUp, 300.0,
        "NVIDIA H100 PCIe product brief and H100 NVL datasheet: 600 GB/s bidirectional over the NVLink bridge",
        P::VerifiedCopy),
    link(I::NvLink5, "NVLink 5 (18 links)", ScaleUp, 900.0,
        "NVIDIA NVLink page: 18 links × 100 GB/s = 1.8 TB/s bidirectional per Blackwell GPU",
        P::VerifiedCopy),
    link(I::NvLink400, "NVLink capped at 400 GB/s (A800, H800)", ScaleUp, 200.0,
        "Reuters via Tweakers (Nov 2022): the A800 keeps the A100 but caps NVLink at 400 GB/s (A100: 600 GB/s); press on the H800 (2023) gives the same 400 GB/s cap (H100: 900 GB/s); a public A800 NCCL report counts 8 links; 400 bidirectional ÷ 2 per direction",
        P::Secondary),
    link(I::NvLinkC2c, "NVLink-C2C", Host, 450.0,
        "NVIDIA Grace Hopper Superchip datasheet: 900 GB/s bidirectional CPU–GPU coherent link",
        P::Recalled),
    link(I::InfinityFabricMi250x, "Infinity Fabric (MI250X, per GCD)", ScaleUp, 200.0,
        "AMD MI250X material as reported by secondary sources: up to 8 links, up to 800 GB/s total per OAM package; per GCD per direction = 800 / 2 GCDs / 2 directions",
        P::Secondary),
    link(I::InfinityFabricMi300, "Infinity Fabric (MI300X class, 7 links)", ScaleUp, 448.0,
        "AMD Instinct MI300X datasheet: 7 links at 128 GB/s, 896 GB/s aggregate bidirectional; per direction half of that",
        P::Recalled),
    link(I::AscendHccs, "Ascend HCCS / Unified Bus (per die)", ScaleUp, 196.0,
        "Huawei CloudMatrix384 paper (Zuo et al., June 2025) as summarized by secondary pages: each Ascend 910C package gives over 392 GB/s unidirectional on the UB plane; its two dies appear as two devices, so 196 GB/s per die per direction (a Huawei Cloud write-up also gives 196 GB/s per NPU). Used for the 910B's HCCS too, not checked against Huawei's Atlas 800T A2 figures",
        P::Secondary),
    link(I::Gaudi2Roce, "Gaudi 2 on-die RoCE (21 × 100 GbE in node)", ScaleUp, 262.5,
        "Intel Gaudi 2 material as reported: 24 × 100 GbE RoCE ports on die, 21 for the all-to-all inside an 8-card node and 3 for scale-out; 21 × 12.5 GB/s",
        P::Secondary),
    link(I::Gaudi3Roce, "Gaudi 3 on-die RoCE (21 × 200 GbE in node)", ScaleUp, 525.0,
        "Intel Gaudi 3 white paper as reported: 24 × 200 GbE RoCE ports on die (600 GB/s per direction in all), 21 inside the node; 21 × 25 GB/s",
        P::Secondary),
    link(I::InfinibandEdr, "InfiniBand EDR (100 Gb/s)", ScaleOut, 12.5,
        "InfiniBand Trade Association EDR rate, 100 Gb/s per 4x port (ConnectX-5); one NIC per GPU",
        P::Recalled),
    link(I::InfinibandHdr, "InfiniBand HDR (200 Gb/s)", ScaleOut, 25.0,
        "InfiniBand Trade Association HDR rate, 200 Gb/s per port (ConnectX-6; DGX A100 has 8 per node); one NIC per GPU",
        P::Recalled),
    link(I::InfinibandNdr, "InfiniBand NDR (400 Gb/s)", ScaleOut, 50.0,
        "InfiniBand Trade Association NDR rate, 400 Gb/s per port (ConnectX-7; DGX H100 has 8 per node); one NIC per GPU",
        P::Recalled),
    link(I::InfinibandXdr, "InfiniBand XDR (800 Gb/s)", ScaleOut, 100.0,
        "InfiniBand Trade Association XDR rate, 800 Gb/s per port (ConnectX-8, PCIe 6.0); one NIC per GPU",
        P::Recalled),
    link(I::Roce400, "RoCE v2 400G", ScaleOut, 50.0,
        "400 GbE per port (ConnectX-7 / BlueField-3 on Spectrum-X); Llama 3 paper (arXiv:2407.21783, §3.3.1) trained on RoCE at 400 Gb/s per GPU",
        P::Recalled),
    link(I::Roce800, "RoCE v2 800G", ScaleOut, 100.0,
        "800 GbE per port (ConnectX-8); one NIC per GPU",
        P::Recalled),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::link as lookup;

    /// Fails to compile when a variant is added; add it to `LinkId::ALL` too.
    fn listed(id: LinkId) -> bool {
        match id {
            I::Pcie3x16
            | I::Pcie4x16
            | I::Pcie5x16
            | I::Pcie6x16
            | I::NvLink2
            | I::NvLink3
            | I::NvLink4
            | I::NvLink4Bridge
            | I::NvLink5
            | I::NvLink400
            | I::NvLinkC2c
            | I::InfinityFabricMi250x
            | I::InfinityFabricMi300
            | I::AscendHccs
            | I::Gaudi2Roce
            | I::Gaudi3Roce
            | I::InfinibandEdr
            | I::InfinibandHdr
            | I::InfinibandNdr
            | I::InfinibandXdr
            | I::Roce400
            | I::Roce800 => LinkId::ALL.contains(&id),
        }
    }

    #[test]
    fn every_id_has_exactly_one_entry() {
        assert_eq!(LINKS.len(), LinkId::ALL.len());
        for &id in LinkId::ALL {
            assert!(listed(id));
            let n = LINKS.iter().filter(|e| e.id == id).count();
            assert_eq!(n, 1, "{id:?} has {n} entries");
            assert_eq!(lookup(id).id, id);
        }
    }

    #[test]
    fn rates_are_positive_and_finite() {
        for e in LINKS {
            let r = e.per_direction.as_gb_per_s();
            assert!(r.is_finite() && r > 0.0, "{}", e.name);
            assert!(!e.source.is_empty(), "{}", e.name);
        }
    }

    #[test]
    fn pcie_generations_roughly_double() {
        let g = |id| lookup(id).per_direction.as_gb_per_s();
        for (lo, hi) in [
            (I::Pcie3x16, I::Pcie4x16),
            (I::Pcie4x16, I::Pcie5x16),
            (I::Pcie5x16, I::Pcie6x16),
        ] {
            let ratio = g(hi) / g(lo);
            assert!((1.9..=2.01).contains(&ratio), "{lo:?}→{hi:?}: {ratio}");
        }
    }

    #[test]
    fn gpu_links_have_the_right_roles() {
        for g in crate::catalog::GPUS {
            assert_eq!(lookup(g.spec.host_link).role, LinkRole::Host, "{}", g.name);
            if let Some(s) = g.spec.scale_up {
                assert_eq!(lookup(s).role, LinkRole::ScaleUp, "{}", g.name);
            }
        }
    }
}
