//! # memwall-harness
//!
//! The GPU harness: it runs PyTorch workloads (`tests/gpu/workload.py`)
//! over a grid of configurations on a real NVIDIA GPU, records what they
//! measure as fixtures (`tests/gpu/fixtures/`), and holds planner-core's
//! predictions against every fixture.
//!
//! - [`nvml`] probes the device through NVML, loaded at run time;
//! - [`grid`] is the grid: models (planner-core `ModelSpec`s) and levers;
//! - [`runset`] is what a run writes, and what a fixture holds;
//! - [`plans`] turns a recorded configuration into the planner's plan;
//! - [`compare`] evaluates those plans and tabulates the errors;
//! - [`python`] finds Python and PyTorch and runs the workload.
//!
//! It builds and runs on any machine: without an NVIDIA driver or without
//! PyTorch the measuring command says why it skipped and exits 0.

pub mod compare;
pub mod grid;
pub mod nvml;
pub mod plans;
pub mod python;
pub mod runset;

use std::path::PathBuf;

/// The repository root (the harness runs from a checkout).
pub fn repo_root() -> PathBuf {
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    // tests/harness → the root, two levels up.
    manifest
        .ancestors()
        .nth(2)
        .map_or_else(|| manifest.join("../.."), PathBuf::from)
}

/// Where fixtures live; only the harness writes there.
pub fn fixtures_dir() -> PathBuf {
    repo_root().join("tests/gpu/fixtures")
}

/// Where generated grids live (the workload's defaults).
pub fn grids_dir() -> PathBuf {
    repo_root().join("tests/gpu/grids")
}

/// Scratch output (git-ignored): run sets before recording, reports.
pub fn out_dir() -> PathBuf {
    repo_root().join("tests/gpu/out")
}

/// The file name a run set is recorded under:
/// `<gpu>-<UTC date and time>-<grid>.json`, e.g.
/// `nvidia-h100-80gb-hbm3-20261201t101500-quick.json`.
pub fn fixture_name(runs: &runset::RunSet) -> String {
    let slug = |s: &str| {
        let mut out = String::new();
        for c in s.chars() {
            if c.is_ascii_alphanumeric() {
                out.push(c.to_ascii_lowercase());
            } else if !out.ends_with('-') {
                out.push('-');
            }
        }
        out.trim_matches('-').to_string()
    };
    // Date digits and the 'T' only, up to the seconds.
    let date: String = runs
        .provenance
        .date
        .chars()
        .take_while(|c| *c != '+' && *c != 'Z' && *c != '.')
        .filter(|c| c.is_ascii_digit() || *c == 'T')
        .collect::<String>()
        .to_ascii_lowercase();
    format!(
        "{}-{}-{}.json",
        slug(&runs.provenance.gpu.name),
        if date.is_empty() {
            "undated".into()
        } else {
            date
        },
        slug(&runs.grid.name)
    )
}
