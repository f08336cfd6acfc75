//! Catalogs as data: models, accelerators, MIG profiles, links, CXL devices
//! and prices. (Stored calibration profiles live with the fit, in
//! `calibrate::profile`.)
//!
//! Every entry names its source and how sure we are of it ([`Provenance`]),
//! so the report can say where a number came from. Entries are `static`
//! data; a plan refers to them by id (an enum, so an unknown id is a parse
//! error that names the field) or describes a custom part in full.

mod cxl;
mod gpus;
mod links;
mod mamf;
mod mig;
mod models;
mod nccl;
mod nccl_memory;
mod nodes;
mod power;
mod prices;
mod runtime;

pub use cxl::{CxlEntry, CxlId, CXL_DEVICES};
pub use gpus::{GpuEntry, GpuId, GPUS};
pub use links::{LinkEntry, LinkId, LinkRole, DMA_COPY_OVERHEAD_S, LINKS, NVME_READ_LATENCY_S};
pub use mamf::{
    attention_ceiling, emulated_bf16, kernel_attention_ceiling, matmul_ceiling, AttentionImpl,
    DEFAULT_CEILING, TRITON_FLASH_SLOWDOWN,
};
pub use mig::{mig_profiles, placements, MigEntry, MigProfile, COMPUTE_SLICES, MEMORY_SLICES, MIG};
pub use models::{ModelEntry, ModelId, MODELS};
pub use nccl::{NcclAlgorithm, NcclFigure, NcclRow, NCCL_TESTS};
pub use nccl_memory::{nccl_memory, CommPattern, NcclMemoryEntry, NCCL_MEMORY};
pub use nodes::{host_dram_per_gpu, typical_node, NodeEntry, NODES, REFERENCE_DRAM_PER_GPU};
pub use power::{clock_fraction, CLOCK_UNDER_LIMIT, LOWEST_LIMIT_FRACTION};
pub use prices::{
    default_price, default_price_in, Market, PriceEntry, PriceKind, PricedItem, CNY_PER_USD, PRICES,
};
pub use runtime::{
    blas_workspace, blaslt_workspace, cublas_default, cuda_context, te_workspace, ContextEntry,
    CUDA_CONTEXTS, TE_GROUPED_STREAMS,
};

use serde::{Deserialize, Serialize};

/// How a catalog figure was checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Provenance {
    /// Checked against the primary source (paper, datasheet, config file).
    Verified,
    /// Checked against a faithful copy of the primary source.
    VerifiedCopy,
    /// Computed from primary figures (e.g. per-GPU from a rack total).
    Computed,
    /// Secondary material only (press, blogs); indicative.
    Secondary,
    /// Recalled vendor figure, not re-checked; treat as uncertain.
    Recalled,
    /// A scenario default we chose, with no public figure behind it; the
    /// `source` says how it was set. Override it with your own value.
    Assumed,
}

/// Looks up a model entry by id.
pub fn model(id: ModelId) -> &'static ModelEntry {
    // Every id has exactly one entry; a unit test checks the table is total.
    MODELS.iter().find(|e| e.id == id).unwrap_or(&MODELS[0])
}

/// Looks up a GPU entry by id.
pub fn gpu(id: GpuId) -> &'static GpuEntry {
    GPUS.iter().find(|e| e.id == id).unwrap_or(&GPUS[0])
}

/// Looks up a link entry by id.
pub fn link(id: LinkId) -> &'static LinkEntry {
    LINKS.iter().find(|e| e.id == id).unwrap_or(&LINKS[0])
}

/// Looks up a CXL device entry by id.
pub fn cxl_device(id: CxlId) -> &'static CxlEntry {
    CXL_DEVICES
        .iter()
        .find(|e| e.id == id)
        .unwrap_or(&CXL_DEVICES[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every catalog entry names where its figures come from: a source of
    /// some substance (a document and what in it), never an empty string.
    #[test]
    fn every_entry_cites_a_source() {
        let sources = GPUS
            .iter()
            .map(|e| e.source)
            .chain(MODELS.iter().map(|e| e.source))
            .chain(LINKS.iter().map(|e| e.source))
            .chain(CXL_DEVICES.iter().map(|e| e.source))
            .chain(MIG.iter().map(|e| e.source))
            .chain(PRICES.iter().map(|e| e.source))
            .chain(CUDA_CONTEXTS.iter().map(|e| e.source));
        for s in sources {
            assert!(s.trim().len() >= 20, "a source too thin to check: {s:?}");
        }
    }
}
