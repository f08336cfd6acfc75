//! Interconnects: host links (PCIe, NVLink-C2C), scale-up links (NVLink,
//! Infinity Fabric) and scale-out fabrics (InfiniBand, RoCE).

use super::Provenance;
use crate::units::ByteRate;
use serde::{Deserialize, Serialize};

/// Catalog ids of links.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum LinkId {
    /// PCIe 4.0 x16.
    #[serde(rename = "pcie4-x16")]
    Pcie4x16,
    /// PCIe 5.0 x16.
    #[serde(rename = "pcie5-x16")]
    Pcie5x16,
    /// NVLink 3 (A100), 12 links.
    #[serde(rename = "nvlink3")]
    NvLink3,
    /// NVLink 4 (H100/H200), 18 links.
    #[serde(rename = "nvlink4")]
    NvLink4,
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

/// The link catalog.
pub static LINKS: &[LinkEntry] = &[
    LinkEntry {
        id: LinkId::Pcie4x16,
        name: "PCIe 4.0 x16",
        role: LinkRole::Host,
        per_direction: ByteRate::from_gb_per_s(31.5),
        source: "PCI-SIG PCIe 4.0 base specification: 16 GT/s, 128b/130b encoding, x16",
        provenance: Provenance::Recalled,
    },
    LinkEntry {
        id: LinkId::Pcie5x16,
        name: "PCIe 5.0 x16",
        role: LinkRole::Host,
        per_direction: ByteRate::from_gb_per_s(63.0),
        source: "PCI-SIG PCIe 5.0 base specification: 32 GT/s, 128b/130b encoding, x16",
        provenance: Provenance::Recalled,
    },
    LinkEntry {
        id: LinkId::NvLink3,
        name: "NVLink 3 (12 links)",
        role: LinkRole::ScaleUp,
        per_direction: ByteRate::from_gb_per_s(300.0),
        source: "NVIDIA A100 datasheet: 600 GB/s bidirectional NVLink per GPU",
        provenance: Provenance::Recalled,
    },
    LinkEntry {
        id: LinkId::NvLink4,
        name: "NVLink 4 (18 links)",
        role: LinkRole::ScaleUp,
        per_direction: ByteRate::from_gb_per_s(450.0),
        source: "NVIDIA H100/H200 datasheets: 900 GB/s bidirectional NVLink per GPU",
        provenance: Provenance::VerifiedCopy,
    },
];
