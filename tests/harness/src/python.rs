//! Finding Python and PyTorch, and running the workload.

use crate::nvml::Nvml;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The workload script.
pub fn workload() -> PathBuf {
    crate::repo_root().join("tests/gpu/workload.py")
}

/// The interpreter: the one given, else `$MEMWALL_PYTHON`, else `python3`.
pub fn interpreter(given: Option<&str>) -> String {
    given
        .map(str::to_string)
        .or_else(|| {
            std::env::var("MEMWALL_PYTHON")
                .ok()
                .filter(|s| !s.is_empty())
        })
        .unwrap_or_else(|| "python3".into())
}

/// What the interpreter offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Torch {
    /// PyTorch with a CUDA device.
    Ready {
        /// `torch.__version__`.
        version: String,
        /// The device's name.
        device: String,
    },
    /// Python, PyTorch or a CUDA device is missing; why.
    Missing(String),
}

#[derive(Deserialize)]
struct TorchAnswer {
    torch: Option<String>,
    cuda: bool,
    device: Option<String>,
    error: Option<String>,
}

const CHECK: &str = "import json\n\
try:\n    import torch\nexcept Exception as e:\n    print(json.dumps({'torch': None, 'cuda': False, 'device': None, 'error': repr(e)}))\n    raise SystemExit(0)\n\
ok = torch.cuda.is_available()\n\
print(json.dumps({'torch': torch.__version__, 'cuda': ok, 'device': torch.cuda.get_device_name(0) if ok else None, 'error': None}))\n";

/// Asks the interpreter whether it has PyTorch and a CUDA device.
pub fn check_torch(python: &str) -> Torch {
    let out = match Command::new(python).arg("-c").arg(CHECK).output() {
        Ok(o) => o,
        Err(e) => return Torch::Missing(format!("cannot run {python}: {e}")),
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let Some(line) = text.lines().rev().find(|l| l.starts_with('{')) else {
        return Torch::Missing(format!(
            "{python} did not answer the PyTorch check: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    };
    match serde_json::from_str::<TorchAnswer>(line) {
        Ok(a) => match (a.torch, a.cuda, a.device) {
            (Some(version), true, Some(device)) => Torch::Ready { version, device },
            (Some(version), _, _) => Torch::Missing(format!(
                "PyTorch {version} under {python} sees no CUDA device"
            )),
            (None, _, _) => Torch::Missing(format!(
                "PyTorch is not installed for {python} ({})",
                a.error.unwrap_or_default()
            )),
        },
        Err(e) => Torch::Missing(format!("unreadable PyTorch check from {python}: {e}")),
    }
}

/// Runs the workload over a grid file, writing a run set to `out`; its
/// output goes to the terminal. While it runs, NVML (if given) is sampled
/// every 50 ms for the highest device memory in use on `device`.
pub fn run_workload(
    python: &str,
    grid: &Path,
    out: &Path,
    only: &[String],
    nvml: Option<(&Nvml, u32)>,
) -> Result<Option<u64>, String> {
    let mut cmd = Command::new(python);
    cmd.arg(workload())
        .arg("--grid")
        .arg(grid)
        .arg("--out")
        .arg(out);
    for o in only {
        cmd.arg("--only").arg(o);
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot run {python}: {e}"))?;
    let done = AtomicBool::new(false);
    let (status, peak) = std::thread::scope(|s| {
        let sampler = s.spawn(|| {
            let (nvml, index) = nvml?;
            let mut peak = 0u64;
            while !done.load(Ordering::Relaxed) {
                if let Ok(u) = nvml.memory_used(index) {
                    peak = peak.max(u);
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            Some(peak)
        });
        let status = child.wait();
        done.store(true, Ordering::Relaxed);
        (status, sampler.join().ok().flatten())
    });
    let status = status.map_err(|e| format!("workload did not finish: {e}"))?;
    if !status.success() {
        return Err(format!("workload exited with {status}"));
    }
    Ok(peak)
}
