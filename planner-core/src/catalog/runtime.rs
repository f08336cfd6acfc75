//! The CUDA context by software: what the driver holds for a process
//! outside PyTorch's caching allocator, by CUDA version and module loading
//! (issue 12).
//!
//! Every row is a measured figure with its source. The published rows
//! measure a bare context (before or just after the first tensor); the
//! CUDA 13 row is our own measurement once a training or serving run has
//! loaded its kernels, 1.8× the bare figure on the same CUDA, which is
//! what `nvidia-smi` shows while a job runs. No source we found measures a
//! difference by GPU architecture at the same CUDA version and loading
//! mode, so the table has no architecture column; the report's range for
//! the context (0.6× to 2×) covers what the loaded libraries (cuDNN, NCCL,
//! Triton kernels) add.

use super::Provenance;
use crate::software::{CudaVersion, ModuleLoading};
use crate::units::Bytes;

/// One row of the CUDA-context table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContextEntry {
    /// The CUDA version it applies to.
    pub cuda: CudaVersion,
    /// The module loading it applies to.
    pub loading: ModuleLoading,
    /// Device memory the context takes.
    pub bytes: Bytes,
    /// Where the figure comes from.
    pub source: &'static str,
    /// How sure we are of it.
    pub provenance: Provenance,
}

/// The table. CUDA 11.6 and older have no lazy loading, so both rows of
/// that version are the eager figure.
pub static CUDA_CONTEXTS: &[ContextEntry] = &[
    ContextEntry {
        cuda: CudaVersion::Cuda11Early,
        loading: ModuleLoading::Eager,
        bytes: Bytes::new(1343.0 * 1_048_576.0),
        source: "Hugging Face Transformers docs, 'Model training anatomy': torch.ones((1, 1)) \
                 on a V100-SXM2 16GB, driver 460.91.03 (CUDA 11.2): GPU memory occupied \
                 1343 MB (pynvml used // 1024**2, so MiB); ptrblck (pytorch#107667): \
                 '>1000MB' before CUDA 11.7",
        provenance: Provenance::Verified,
    },
    ContextEntry {
        cuda: CudaVersion::Cuda11Early,
        loading: ModuleLoading::Lazy,
        bytes: Bytes::new(1343.0 * 1_048_576.0),
        source: "lazy loading needs CUDA ≥ 11.7 (CUDA C Programming Guide, 'Lazy Loading'); \
                 the eager figure (HF 'Model training anatomy', 1343 MiB) applies",
        provenance: Provenance::Verified,
    },
    ContextEntry {
        cuda: CudaVersion::Cuda12,
        loading: ModuleLoading::Eager,
        bytes: Bytes::new(666_632_192.0),
        source: "pytorch/pytorch PR #86509: CUDA_MODULE_LOADING=DEFAULT (eager), one small op, \
                 cudaMemGetInfo total−free = 666,632,192 B",
        provenance: Provenance::Verified,
    },
    ContextEntry {
        cuda: CudaVersion::Cuda12,
        loading: ModuleLoading::Lazy,
        bytes: Bytes::new(400.0 * 1_048_576.0),
        source: "pytorch/pytorch#109888 (ptrblck, 2023-09-23): 'around 400MB if CUDA >= 11.7 \
                 is used and lazy module loading enabled'; PR #86509 measured 287,047,680 B \
                 for one small op",
        provenance: Provenance::Secondary,
    },
    ContextEntry {
        cuda: CudaVersion::Cuda13,
        loading: ModuleLoading::Eager,
        bytes: Bytes::new(769.0 * 1_048_576.0),
        source: "no CUDA 13 eager measurement found; eager loading loads every kernel lazy \
                 loading would and more, so at least the lazy row's 769 MiB once a run's \
                 kernels are loaded",
        provenance: Provenance::Assumed,
    },
    ContextEntry {
        cuda: CudaVersion::Cuda13,
        loading: ModuleLoading::Lazy,
        bytes: Bytes::new(769.0 * 1_048_576.0),
        source: "memwall's H200 fixtures (tests/gpu/fixtures, 2026-12-04; PyTorch 2.11.0+cu130, \
                 driver 580.159.04): NVML used less the caching allocator's peak reserved, \
                 median 769 MiB over 87 training and serving runs (705–829 MiB) once the \
                 run's kernels are loaded; a bare context is 426 MiB (unslothai/unsloth-zoo \
                 PR #1053, PyTorch 2.10.0+cu130, RTX 6000 Ada)",
        provenance: Provenance::Computed,
    },
];

/// The context row of a CUDA version and loading mode.
pub fn cuda_context(cuda: CudaVersion, loading: ModuleLoading) -> &'static ContextEntry {
    // Every pair has exactly one row; a unit test checks the table is total.
    CUDA_CONTEXTS
        .iter()
        .find(|e| e.cuda == cuda && e.loading == loading)
        .unwrap_or(&CUDA_CONTEXTS[3])
}

/// The cuBLAS and cuBLASLt workspaces PyTorch holds for one (cuBLAS
/// handle, stream) pair, with where the figure comes from; callers count
/// the pairs (`memory::workspaces`). The cuBLAS one alone is
/// [`cublas_default`], the cuBLASLt one [`blaslt_workspace`].
///
/// PyTorch sets a workspace on each (cuBLAS handle, stream) pair it uses
/// and takes it from its caching allocator (`getNewWorkspace()` →
/// `CUDACachingAllocator::get()->allocate(getChosenWorkspaceSize())` in
/// `aten/src/ATen/cuda/CublasHandlePool.cpp`), kept for the life of the
/// process, so `max_memory_allocated`, `max_memory_reserved` and
/// `nvidia-smi` all count it. Its size is `CUBLAS_WORKSPACE_CONFIG`, by
/// default `:4096:2:16:8` (4096 KiB × 2 + 16 KiB × 8 = 8.125 MiB) and
/// `:4096:8` (32 MiB) on sm90 (`parseChosenWorkspaceSize`: "default, 32MiB
/// for Hopper"); ROCm builds take 32 MiB, 128 MiB on gfx94x/gfx95x
/// (MI300X/MI325X/MI355X). The cuBLASLt workspace is a separate
/// allocation of `CUBLASLT_WORKSPACE_SIZE`, 1024 KiB by default (pytorch
/// #73328), capped at the cuBLAS workspace on CUDA
/// (`getCUDABlasLtWorkspaceSize`), and 76 MiB for hipBLASLt (no cap). Gaudi and Ascend run their own
/// backends, for which no figure was found: they get the CUDA default.
pub fn blas_workspace(arch: crate::hardware::GpuArch) -> (Bytes, &'static str) {
    let (blas, how) = cublas_default_with_source(arch);
    (blas + blaslt_workspace(arch), how)
}

/// PyTorch's default cuBLAS (hipBLAS) workspace per (handle, stream) on a
/// GPU of `arch`, without the cuBLASLt one ([`blas_workspace`]).
pub fn cublas_default(arch: crate::hardware::GpuArch) -> Bytes {
    cublas_default_with_source(arch).0
}

fn cublas_default_with_source(arch: crate::hardware::GpuArch) -> (Bytes, &'static str) {
    use crate::hardware::GpuArch;
    const KIB: f64 = 1024.0;
    let (blas, how) = match arch {
        GpuArch::Hopper => (
            4096.0 * 8.0 * KIB,
            "cuBLAS :4096:8 (32 MiB, sm90) + cuBLASLt 1 MiB",
        ),
        GpuArch::Cdna3 | GpuArch::Cdna4 => (
            128.0 * 1024.0 * KIB,
            "hipBLAS 128 MiB (gfx94x/95x) + hipBLASLt 76 MiB",
        ),
        GpuArch::Cdna2 => (32.0 * 1024.0 * KIB, "hipBLAS 32 MiB + hipBLASLt 76 MiB"),
        _ => (
            (4096.0 * 2.0 + 16.0 * 8.0) * KIB,
            "cuBLAS :4096:2:16:8 (8.125 MiB) + cuBLASLt 1 MiB",
        ),
    };
    (Bytes::new(blas), how)
}

/// The cuBLASLt workspace PyTorch takes beside each cuBLAS workspace:
/// `CUBLASLT_WORKSPACE_SIZE`, 1024 KiB by default on CUDA, 76 MiB for
/// hipBLASLt (`parseCUDABlasLtWorkspaceSize` in `CublasHandlePool.cpp`);
/// what [`blas_workspace`] adds to the cuBLAS figure, so a plan that sets
/// `CUBLAS_WORKSPACE_CONFIG` (`overheads.cublas_workspace`) keeps it.
pub fn blaslt_workspace(arch: crate::hardware::GpuArch) -> Bytes {
    use crate::hardware::GpuArch;
    match arch {
        GpuArch::Cdna2 | GpuArch::Cdna3 | GpuArch::Cdna4 => Bytes::new(76.0 * 1024.0 * 1024.0),
        _ => Bytes::new(1024.0 * 1024.0),
    }
}

/// Transformer Engine's own cuBLAS workspaces, which its GEMMs pass to
/// cuBLASLt instead of PyTorch's: the size of one, how many (one per
/// stream it runs GEMMs on) and where the figure comes from; `None` where
/// Transformer Engine does not run (Gaudi, Ascend, other parts).
///
/// `transformer_engine/pytorch/cpp_extensions/gemm.py` (NVIDIA/
/// TransformerEngine at d0067d0): `get_cublas_workspace_size_bytes` is
/// 32 MiB + 1 KiB ("32 MiB for NVFP4 GEMM, plus additional 1024 B for
/// alignment and misc scales") when the device's compute capability major
/// is 9 or more (Hopper, Blackwell; ROCm builds report CDNA as gfx9, major
/// 9), else 4 MiB; `get_cublas_workspace` allocates it with `torch.empty`,
/// cached once per device (`functools.lru_cache`), so the caching
/// allocator counts it for the whole run. Grouped GEMMs (the experts'
/// `GroupedLinear`) take [`TE_GROUPED_STREAMS`] more of the same size,
/// cached apart.
pub fn te_workspace(
    arch: crate::hardware::GpuArch,
    grouped: bool,
) -> Option<(Bytes, u32, &'static str)> {
    use crate::hardware::GpuArch;
    const MIB: f64 = 1024.0 * 1024.0;
    let (one, how) = match arch {
        GpuArch::Volta | GpuArch::Turing | GpuArch::Ampere | GpuArch::Ada => {
            (4.0 * MIB, "Transformer Engine's 4 MiB")
        }
        GpuArch::Hopper | GpuArch::Blackwell | GpuArch::Cdna2 | GpuArch::Cdna3 | GpuArch::Cdna4 => {
            (
                32.0 * MIB + 1024.0,
                "Transformer Engine's 32 MiB + 1 KiB (capability 9+)",
            )
        }
        GpuArch::Gaudi | GpuArch::DaVinci | GpuArch::Other => return None,
    };
    let copies = if grouped { 1 + TE_GROUPED_STREAMS } else { 1 };
    Some((Bytes::new(one), copies, how))
}

/// Transformer Engine's cuBLAS streams for grouped GEMMs, each with a
/// workspace of its own (`tex.get_num_cublas_streams()`, 4).
pub const TE_GROUPED_STREAMS: u32 = 4;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pair_has_one_row_and_eager_costs_more() {
        for cuda in CudaVersion::ALL {
            for loading in ModuleLoading::ALL {
                let n = CUDA_CONTEXTS
                    .iter()
                    .filter(|e| e.cuda == cuda && e.loading == loading)
                    .count();
                assert_eq!(n, 1, "{cuda:?} {loading:?}");
                assert!(!cuda_context(cuda, loading).source.is_empty());
            }
            let lazy = cuda_context(cuda, ModuleLoading::Lazy).bytes;
            let eager = cuda_context(cuda, ModuleLoading::Eager).bytes;
            assert!(eager >= lazy);
        }
        // Issue 12: older CUDA takes over 1 GB, lazy loading under 0.5 GiB.
        let old = cuda_context(CudaVersion::Cuda11Early, ModuleLoading::Lazy).bytes;
        assert!(old.as_mib() >= 1000.0);
        let lazy = cuda_context(CudaVersion::Cuda12, ModuleLoading::Lazy).bytes;
        assert!(lazy.as_gib() < 0.5);
    }
}
