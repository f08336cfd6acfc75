//! Accelerators. Compute rates are dense (no 2:4 sparsity); `usable` is the
//! device total `nvidia-smi` prints, where known.

use super::{LinkId, Provenance};
use crate::hardware::{GpuArch, GpuSpec, MemoryTech};
use crate::units::{ByteRate, Bytes, FlopRate, Watts};
use serde::{Deserialize, Serialize};

/// Catalog ids of accelerators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum GpuId {
    /// NVIDIA A100 SXM4 80GB.
    #[serde(rename = "a100-sxm-80gb")]
    A100Sxm80,
    /// NVIDIA H100 SXM5 80GB.
    #[serde(rename = "h100-sxm")]
    H100Sxm,
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
    /// How they were checked.
    pub provenance: Provenance,
}

/// The accelerator catalog.
pub static GPUS: &[GpuEntry] = &[
    GpuEntry {
        id: GpuId::A100Sxm80,
        name: "NVIDIA A100 SXM4 80GB",
        spec: GpuSpec {
            arch: GpuArch::Ampere,
            memory: MemoryTech::Hbm2e,
            capacity: Bytes::from_gb(80.0),
            usable: Some(Bytes::from_mib(81920.0)),
            memory_bandwidth: ByteRate::from_tb_per_s(2.039),
            bf16: FlopRate::from_tflops(312.0),
            fp16: FlopRate::from_tflops(312.0),
            fp8: None,
            fp4: None,
            tdp: Watts::new(400.0),
            scale_up: Some(LinkId::NvLink3),
            host_link: LinkId::Pcie4x16,
            mig_slices: 7,
        },
        source: "NVIDIA A100 Tensor Core GPU datasheet (80GB SXM: 2,039 GB/s, 312 TFLOPS BF16 dense, 400 W, NVLink 600 GB/s); nvidia-smi total 81920 MiB",
        provenance: Provenance::Recalled,
    },
    GpuEntry {
        id: GpuId::H100Sxm,
        name: "NVIDIA H100 SXM5 80GB",
        spec: GpuSpec {
            arch: GpuArch::Hopper,
            memory: MemoryTech::Hbm3,
            capacity: Bytes::from_gb(80.0),
            usable: Some(Bytes::from_mib(81559.0)),
            memory_bandwidth: ByteRate::from_tb_per_s(3.35),
            bf16: FlopRate::from_tflops(989.4),
            fp16: FlopRate::from_tflops(989.4),
            fp8: Some(FlopRate::from_tflops(1978.9)),
            fp4: None,
            tdp: Watts::new(700.0),
            scale_up: Some(LinkId::NvLink4),
            host_link: LinkId::Pcie5x16,
            mig_slices: 7,
        },
        source: "NVIDIA H100 Tensor Core GPU datasheet (SXM5: 3.35 TB/s, 989.4 TFLOPS BF16 dense, 1,978.9 FP8 dense, 700 W, NVLink 900 GB/s); nvidia-smi total ≈81559 MiB",
        provenance: Provenance::VerifiedCopy,
    },
];
