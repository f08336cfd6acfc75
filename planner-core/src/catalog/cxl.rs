//! CXL Type-3 memory expanders.
//!
//! Latency defaults follow the reference notes' recommendation for a
//! direct-attached ASIC expander: about 250 ns load-to-use in total (local
//! DDR5 plus 100–170 ns). Switched or pooled devices are slower (300–600 ns)
//! and belong in [`crate::hardware::MemoryPool`]. For GPU offload the
//! bandwidth matters far more than the latency.

use super::Provenance;
use crate::hardware::CxlSpec;
use crate::units::{ByteRate, Bytes, Seconds};
use serde::{Deserialize, Serialize};

/// Catalog ids of CXL devices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum CxlId {
    /// Micron CZ120, 128 GB.
    #[serde(rename = "micron-cz120-128")]
    MicronCz120_128,
    /// Micron CZ120, 256 GB.
    #[serde(rename = "micron-cz120-256")]
    MicronCz120_256,
    /// Samsung CMM-D (CXL 2.0), 128 GB.
    #[serde(rename = "samsung-cmm-d-128")]
    SamsungCmmD128,
    /// Samsung CMM-D (CXL 2.0), 256 GB.
    #[serde(rename = "samsung-cmm-d-256")]
    SamsungCmmD256,
    /// SK hynix CMM-DDR5 (CXL 2.0), 96 GB.
    #[serde(rename = "skhynix-cmm-ddr5-96")]
    SkHynixCmmDdr5_96,
    /// SK hynix CMM-DDR5 (CXL 2.0), 128 GB.
    #[serde(rename = "skhynix-cmm-ddr5-128")]
    SkHynixCmmDdr5_128,
    /// Samsung CMM-D on CXL 3.1, 1 TB (announced, not shipping).
    #[serde(rename = "samsung-cmm-d-cxl31-1tb")]
    SamsungCmmDCxl31_1tb,
    /// A generic DIMM-based CXL 2.0 add-in card on a PCIe 5.0 x16 slot
    /// (a scenario default, not a product).
    #[serde(rename = "cxl2-x16-expander")]
    Cxl2X16Expander,
}

impl CxlId {
    /// Every CXL device id, in catalog order.
    pub const ALL: &'static [CxlId] = &[
        CxlId::MicronCz120_128,
        CxlId::MicronCz120_256,
        CxlId::SamsungCmmD128,
        CxlId::SamsungCmmD256,
        CxlId::SkHynixCmmDdr5_96,
        CxlId::SkHynixCmmDdr5_128,
        CxlId::SamsungCmmDCxl31_1tb,
        CxlId::Cxl2X16Expander,
    ];
}

/// One CXL device in the catalog.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CxlEntry {
    /// Its id.
    pub id: CxlId,
    /// Display name.
    pub name: &'static str,
    /// Capacity, bandwidth, latency.
    pub spec: CxlSpec,
    /// Where the figures come from.
    pub source: &'static str,
    /// How they were checked (the weakest of the three figures).
    pub provenance: Provenance,
}

/// Direct-attach ASIC expander latency, load-to-use (see the module notes).
const DIRECT_ATTACH_NS: f64 = 250.0;

/// Where the latency default comes from; appended to every entry's source.
macro_rules! latency_note {
    () => {
        "; latency: 250 ns default for a direct-attached ASIC expander (Intel CacheLib wiki OCP demo measured 250 ns on a CXL 2.0 E3.S x8 device; Pond, ASPLOS'23, reports +70–90 ns over local DRAM)"
    };
}

const fn cxl(
    id: CxlId,
    name: &'static str,
    capacity_gb: f64,
    bandwidth_gb_s: f64,
    source: &'static str,
    provenance: Provenance,
) -> CxlEntry {
    CxlEntry {
        id,
        name,
        spec: CxlSpec {
            capacity: Bytes::from_gb(capacity_gb),
            bandwidth: ByteRate::from_gb_per_s(bandwidth_gb_s),
            latency: Seconds::from_nanos(DIRECT_ATTACH_NS),
        },
        source,
        provenance,
    }
}

/// The CXL device catalog.
#[rustfmt::skip]
pub static CXL_DEVICES: &[CxlEntry] = &[
    cxl(CxlId::MicronCz120_128, "Micron CZ120 128 GB (CXL 2.0, PCIe 5.0 x8)", 128.0, 36.0,
        concat!("Micron CZ120 product brief: 128/256 GB E3.S 2T, CXL 2.0 Type 3 on PCIe 5.0 x8, up to 36 GB/s (MLC, 2:1 read/write)", latency_note!()),
        Provenance::VerifiedCopy),
    cxl(CxlId::MicronCz120_256, "Micron CZ120 256 GB (CXL 2.0, PCIe 5.0 x8)", 256.0, 36.0,
        concat!("Micron CZ120 product brief (up to 36 GB/s, 2:1 read/write, MLC)", latency_note!()),
        Provenance::VerifiedCopy),
    cxl(CxlId::SamsungCmmD128, "Samsung CMM-D 128 GB (CXL 2.0, PCIe 5.0 x8)", 128.0, 36.0,
        concat!("Samsung CMM-D (CXL 2.0) announcements as reported by press and a module cross-reference page: 128/256 GB E3.S on PCIe 5.0 x8, ≈36 GB/s; Samsung's own datasheet not checked", latency_note!()),
        Provenance::Secondary),
    cxl(CxlId::SamsungCmmD256, "Samsung CMM-D 256 GB (CXL 2.0, PCIe 5.0 x8)", 256.0, 36.0,
        concat!("Samsung CMM-D (CXL 2.0) as for the 128 GB part (a 512 GB version is also listed by some)", latency_note!()),
        Provenance::Secondary),
    cxl(CxlId::SkHynixCmmDdr5_96, "SK hynix CMM-DDR5 96 GB (CXL 2.0, PCIe 5.0 x8)", 96.0, 36.0,
        concat!("SK hynix CMM-DDR5 as shown at trade events and reported by press: 96/128 GB E3.S 2T, CXL 2.0 on PCIe 5.0 x8, ≈36 GB/s; vendor datasheet not checked", latency_note!()),
        Provenance::Secondary),
    cxl(CxlId::SkHynixCmmDdr5_128, "SK hynix CMM-DDR5 128 GB (CXL 2.0, PCIe 5.0 x8)", 128.0, 36.0,
        concat!("SK hynix CMM-DDR5 128 GB shown at FMS 2024 (as reported by press); ≈36 GB/s", latency_note!()),
        Provenance::Secondary),
    cxl(CxlId::SamsungCmmDCxl31_1tb, "Samsung CMM-D 1 TB (CXL 3.1, PCIe 6.0; announced)", 1000.0, 72.0,
        concat!("Samsung CMM-D CXL 3.1 as reported by Korean press (2025–26): up to 1 TB, up to 72 GB/s on PCIe 6.0, samples targeted for 2026; not shipping, figures are announcements", latency_note!()),
        Provenance::Secondary),
    cxl(CxlId::Cxl2X16Expander, "Generic CXL 2.0 x16 add-in expander (scenario default)", 512.0, 63.0,
        concat!("Scenario default, not a product: a DIMM-based add-in card (e.g. on an Astera Labs Leo-class controller, up to 2 TB) with 512 GB fitted; bandwidth is the PCIe 5.0 x16 payload rate per direction (63 GB/s, often rounded to 64)", latency_note!()),
        Provenance::Assumed),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::cxl_device;

    /// Fails to compile when a variant is added; add it to `CxlId::ALL` too.
    fn listed(id: CxlId) -> bool {
        match id {
            CxlId::MicronCz120_128
            | CxlId::MicronCz120_256
            | CxlId::SamsungCmmD128
            | CxlId::SamsungCmmD256
            | CxlId::SkHynixCmmDdr5_96
            | CxlId::SkHynixCmmDdr5_128
            | CxlId::SamsungCmmDCxl31_1tb
            | CxlId::Cxl2X16Expander => CxlId::ALL.contains(&id),
        }
    }

    #[test]
    fn every_id_has_exactly_one_entry() {
        assert_eq!(CXL_DEVICES.len(), CxlId::ALL.len());
        for &id in CxlId::ALL {
            assert!(listed(id));
            let n = CXL_DEVICES.iter().filter(|e| e.id == id).count();
            assert_eq!(n, 1, "{id:?} has {n} entries");
            assert_eq!(cxl_device(id).id, id);
        }
    }

    #[test]
    fn figures_are_positive_and_plausible() {
        for e in CXL_DEVICES {
            let s = &e.spec;
            assert!(s.capacity.as_bytes().is_finite() && s.capacity.as_bytes() > 0.0);
            let bw = s.bandwidth.as_gb_per_s();
            // No device beats a PCIe 6.0 x16 link.
            assert!(bw.is_finite() && bw > 0.0 && bw <= 121.0, "{}", e.name);
            let ns = s.latency.as_nanos();
            assert!((100.0..=600.0).contains(&ns), "{}", e.name);
            assert!(!e.source.is_empty(), "{}", e.name);
        }
    }
}
