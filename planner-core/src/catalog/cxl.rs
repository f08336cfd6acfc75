//! CXL Type-3 memory expanders.

use super::Provenance;
use crate::hardware::CxlSpec;
use crate::units::{ByteRate, Bytes, Seconds};
use serde::{Deserialize, Serialize};

/// Catalog ids of CXL devices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum CxlId {
    /// Micron CZ120, 256 GB.
    #[serde(rename = "micron-cz120-256")]
    MicronCz120_256,
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
    /// How they were checked.
    pub provenance: Provenance,
}

/// The CXL device catalog.
pub static CXL_DEVICES: &[CxlEntry] = &[CxlEntry {
    id: CxlId::MicronCz120_256,
    name: "Micron CZ120 256 GB (CXL 2.0, PCIe 5.0 x8)",
    spec: CxlSpec {
        capacity: Bytes::from_gb(256.0),
        bandwidth: ByteRate::from_gb_per_s(36.0),
        latency: Seconds::from_nanos(250.0),
    },
    source: "Micron CZ120 product brief (up to 36 GB/s, 2:1 read/write, MLC); latency: Intel CacheLib wiki OCP demo of a CXL 2.0 E3.S x8 expander, 250 ns",
    provenance: Provenance::VerifiedCopy,
}];
