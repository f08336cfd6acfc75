//! What a run of the workloads writes (a run set), and what a fixture is:
//! the same JSON plus the harness's own probe. Fields the workload may
//! leave out are optional, so a run set written on a machine without the
//! Rust side (`python3 tests/gpu/workload.py`) reads the same way.

use crate::grid::Grid;
use crate::nvml::Probe;
use serde::{Deserialize, Serialize};

/// Format tag of a run set.
pub const RUNSET_FORMAT: &str = "memwall-gpu-runset/1";

/// One run of a grid on one GPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSet {
    /// [`RUNSET_FORMAT`].
    pub format: String,
    /// Where, when and with what it ran.
    pub provenance: Provenance,
    /// The grid as run (models and configurations).
    pub grid: Grid,
    /// One result per configuration, in grid order.
    pub results: Vec<RunResult>,
    /// What the Rust harness added (absent when the workload ran alone).
    #[serde(default)]
    pub harness: Option<HarnessInfo>,
}

/// Provenance of a run set, as the workload records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// UTC date and time the run set started (ISO 8601).
    pub date: String,
    /// The exact command line.
    pub command: Vec<String>,
    /// Python version.
    pub python: String,
    /// PyTorch version.
    pub torch: String,
    /// CUDA runtime PyTorch was built with.
    #[serde(default)]
    pub cuda_runtime: Option<String>,
    /// cuDNN version.
    #[serde(default)]
    pub cudnn: Option<String>,
    /// NVIDIA driver version.
    #[serde(default)]
    pub driver: Option<String>,
    /// The GPU.
    pub gpu: GpuProvenance,
    /// `platform.platform()`.
    #[serde(default)]
    pub platform: String,
    /// `PYTORCH_CUDA_ALLOC_CONF`, if set.
    #[serde(default)]
    pub allocator_conf: Option<String>,
    /// Whether FP32 matmuls may use TF32.
    #[serde(default)]
    pub tf32: bool,
    /// Device memory in use before the workload touched CUDA (NVML), bytes.
    #[serde(default)]
    pub device_used_before: Option<u64>,
    /// The INT8 weight kernel used, if any.
    #[serde(default)]
    pub int8_kernel: Option<String>,
    /// SHA-256 of the workload's source files.
    #[serde(default)]
    pub workload_sha256: Option<String>,
    /// `git rev-parse HEAD` of the checkout, if it is one.
    #[serde(default)]
    pub git_commit: Option<String>,
}

/// The GPU a run set ran on, as PyTorch and NVML see it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GpuProvenance {
    /// `torch.cuda.get_device_name`.
    pub name: String,
    /// Device memory PyTorch reports (`total_memory`), bytes.
    pub total_memory: u64,
    /// `major.minor`.
    #[serde(default)]
    pub compute_capability: Option<String>,
    /// Streaming multiprocessors.
    #[serde(default)]
    pub multiprocessors: Option<u32>,
    /// `GPU-…` UUID.
    #[serde(default)]
    pub uuid: Option<String>,
}

/// How a configuration ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Ran and was measured.
    Ok,
    /// Ran out of device memory.
    Oom,
    /// Not run (a kernel or format the machine lacks); `reason` says why.
    Skipped,
    /// Failed otherwise; `reason` says how.
    Error,
}

/// Memory a configuration measured, bytes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MemoryResult {
    /// `torch.cuda.max_memory_allocated` after a reset at steady state.
    pub peak_allocated: u64,
    /// `torch.cuda.max_memory_reserved` likewise.
    pub peak_reserved: u64,
    /// Device memory in use after the measured steps, from NVML.
    #[serde(default)]
    pub device_used_nvml: Option<u64>,
    /// The same from `torch.cuda.mem_get_info` (total − free).
    #[serde(default)]
    pub device_used_cuda: Option<u64>,
    /// Allocator retries (`num_alloc_retries`): the cache was flushed to
    /// satisfy an allocation, which inflates times.
    #[serde(default)]
    pub alloc_retries: Option<u64>,
}

/// Times a configuration measured, seconds (CUDA events).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TimeResult {
    /// Median optimizer step.
    #[serde(default)]
    pub step_median: Option<f64>,
    /// Every timed step.
    #[serde(default)]
    pub step_samples: Vec<f64>,
    /// Median prefill of the batch.
    #[serde(default)]
    pub ttft_median: Option<f64>,
    /// Every timed prefill.
    #[serde(default)]
    pub ttft_samples: Vec<f64>,
    /// Median per-token decode time over whole generations.
    #[serde(default)]
    pub tpot_median: Option<f64>,
    /// Per-token time of every timed generation.
    #[serde(default)]
    pub tpot_samples: Vec<f64>,
}

/// The result of one configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    /// The configuration's id.
    pub id: String,
    /// How it ended.
    pub status: Status,
    /// Why it was skipped or failed.
    #[serde(default)]
    pub reason: Option<String>,
    /// Parameters of the model as built by PyTorch.
    #[serde(default)]
    pub params: Option<u64>,
    /// Memory.
    #[serde(default)]
    pub memory: Option<MemoryResult>,
    /// Times.
    #[serde(default)]
    pub time: Option<TimeResult>,
    /// Anything else the workload noted (kernels allowed, losses).
    #[serde(default)]
    pub details: serde_json::Value,
}

/// What the Rust harness adds to a run set when it records a fixture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HarnessInfo {
    /// The harness command line.
    pub command: Vec<String>,
    /// NVML's view of the machine before the workload started.
    #[serde(default)]
    pub probe: Option<Probe>,
    /// Highest device memory in use NVML saw while the workload ran,
    /// sampled every 50 ms, bytes (the whole run set, not one run).
    #[serde(default)]
    pub nvml_peak_used: Option<u64>,
    /// The Python interpreter used.
    pub python: String,
    /// `memwall-harness import` (a run set recorded without the harness)
    /// or `memwall-harness measure`.
    pub recorded_by: String,
}

impl RunSet {
    /// Parses a run set; the error gives the line and column.
    pub fn from_json(text: &str) -> Result<RunSet, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }

    /// Pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    /// Problems that make a run set unfit to be a fixture.
    pub fn check(&self) -> Vec<String> {
        let mut e = Vec::new();
        if self.format != RUNSET_FORMAT {
            e.push(format!(
                "format is {:?}, expected {RUNSET_FORMAT:?}",
                self.format
            ));
        }
        let p = &self.provenance;
        for (field, v) in [
            ("provenance.date", &p.date),
            ("provenance.python", &p.python),
            ("provenance.torch", &p.torch),
            ("provenance.gpu.name", &p.gpu.name),
        ] {
            if v.trim().is_empty() {
                e.push(format!("{field} is empty"));
            }
        }
        if p.command.is_empty() {
            e.push("provenance.command is empty".into());
        }
        if p.gpu.total_memory == 0 {
            e.push("provenance.gpu.total_memory is 0".into());
        }
        for r in &self.results {
            if !self.grid.runs.iter().any(|c| c.id() == r.id) {
                e.push(format!("result {} is not in the grid", r.id));
            }
            if r.status == Status::Ok && r.memory.is_none() {
                e.push(format!("result {} is ok but has no memory figures", r.id));
            }
        }
        for (name, m) in &self.grid.models {
            match crate::grid::architecture(&m.spec) {
                Ok(a) if a == m.architecture => {}
                Ok(_) => e.push(format!(
                    "model {name}: the architecture the workload built is not the spec's"
                )),
                Err(why) => e.push(format!("model {name}: {why}")),
            }
        }
        e.extend(self.grid.check());
        e
    }
}
