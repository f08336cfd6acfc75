//! Fixtures against predictions: for every measured configuration, the
//! plan that describes it, the planner's report, and the error of each
//! figure; per-figure median and worst errors; which rows break the
//! tolerances; and the measurements in the form `memwall calibrate` reads.

use crate::grid::{GridModel, RunConfig};
use crate::plans::{gpu_choice, plan, GpuMatch};
use crate::runset::{Provenance, RunResult, RunSet, Status};
use planner_core::calibrate::{
    errors_against, summarise, ErrorSummary, Figure, FigureError, FigureValue, Measured,
    Measurement, ProfileSource,
};
use planner_core::hardware::Tier;
use planner_core::units::{Bytes, Seconds};
use planner_core::{evaluate, Report, Verdict};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Format tag of a comparison report.
pub const REPORT_FORMAT: &str = "memwall-gpu-comparison/1";

/// A recorded run set and the file it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Fixture {
    /// File name (no directory).
    pub name: String,
    /// Its content.
    pub runs: RunSet,
}

/// Every `*.json` file of a directory, parsed, in name order. A missing
/// directory has no fixtures; a file that does not parse is an error
/// naming it.
pub fn load_dir(dir: &Path) -> Result<Vec<Fixture>, String> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("cannot read {}: {e}", dir.display())),
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    paths.iter().map(|p| load_file(p)).collect()
}

/// One fixture file.
pub fn load_file(path: &Path) -> Result<Fixture, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let runs = RunSet::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Fixture {
        name: path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        runs,
    })
}

/// Tolerances a comparison holds predictions to.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Tolerance {
    /// Largest |relative error| of peak allocated memory (the 5 %).
    pub allocated: f64,
    /// Whether measured times must lie in the report's own range (the
    /// efficiency spread widened by the validation residuals: at least
    /// predicted/1.10 to predicted/0.85; `docs/validation.md`, "Ranges").
    pub time_in_range: bool,
}

impl Default for Tolerance {
    fn default() -> Self {
        Self {
            allocated: 0.05,
            time_in_range: true,
        }
    }
}

/// One configuration of one fixture against its prediction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Fixture file.
    pub fixture: String,
    /// Configuration id.
    pub id: String,
    /// How the run ended.
    pub status: Status,
    /// How the GPU was matched.
    pub gpu: GpuMatch,
    /// The planner's verdict for the plan.
    pub verdict: Verdict,
    /// Each measured figure against its prediction.
    pub errors: Vec<FigureError>,
    /// What else the reader should know (skips, mismatches, retries).
    pub notes: Vec<String>,
}

/// A row outside a tolerance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    /// Fixture file.
    pub fixture: String,
    /// Configuration id.
    pub id: String,
    /// The figure.
    pub figure: Figure,
    /// What is wrong, in words.
    pub message: String,
}

/// A fixture in one line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FixtureSummary {
    /// File name.
    pub name: String,
    /// GPU name.
    pub gpu: String,
    /// How it matched the catalog.
    pub matched: GpuMatch,
    /// When it ran.
    pub date: String,
    /// Driver, CUDA and PyTorch.
    pub software: String,
    /// Configurations in it.
    pub results: usize,
    /// Those measured.
    pub measured: usize,
}

/// The comparison of a set of fixtures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// [`REPORT_FORMAT`].
    pub format: String,
    /// The fixtures compared.
    pub fixtures: Vec<FixtureSummary>,
    /// The tolerances applied.
    pub tolerance: Tolerance,
    /// Every configuration.
    pub rows: Vec<Row>,
    /// Per-figure median and worst error over the measured rows.
    pub summary: Vec<ErrorSummary>,
    /// Rows outside a tolerance.
    pub failures: Vec<Failure>,
    /// The measured configurations as plans and figures
    /// (`memwall calibrate` reads this and `source`).
    pub measurements: Vec<Measurement>,
    /// Where the measurements came from.
    pub source: ProfileSource,
}

fn software(r: &RunSet) -> String {
    let p = &r.provenance;
    format!(
        "driver {}, CUDA {}, PyTorch {}",
        p.driver.as_deref().unwrap_or("?"),
        p.cuda_runtime.as_deref().unwrap_or("?"),
        p.torch
    )
}

/// Device memory in use before the workload touched CUDA: the workload's
/// own NVML reading, else the harness probe's for the same device.
fn used_before(r: &RunSet) -> Option<u64> {
    r.provenance.device_used_before.or_else(|| {
        let probe = r.harness.as_ref()?.probe.as_ref()?;
        let uuid = r.provenance.gpu.uuid.as_deref()?;
        probe
            .devices
            .iter()
            .find(|d| d.uuid.trim_start_matches("GPU-") == uuid.trim_start_matches("GPU-"))
            .map(|d| d.memory_used)
    })
}

/// The software a run set records, written into its plans: the CUDA
/// version of the PyTorch build (its context size) and the caching
/// allocator's `expandable_segments`.
fn apply_software(p: &Provenance, plan: &mut planner_core::plan::Plan) {
    use planner_core::software::{CudaVersion, ExpandableSegments};
    let cuda = p.cuda_runtime.as_deref().and_then(|v| {
        let mut it = v.split('.').map(|x| x.trim().parse::<u32>().ok());
        Some((it.next()??, it.next().flatten().unwrap_or(0)))
    });
    if let Some((major, minor)) = cuda {
        plan.overheads.cuda = match (major, minor) {
            (0..=10, _) | (11, 0..=6) => CudaVersion::Cuda11Early,
            (11, _) | (12, _) => CudaVersion::Cuda12,
            _ => CudaVersion::Cuda13,
        };
    }
    if p.allocator_conf
        .as_deref()
        .is_some_and(|c| c.replace(' ', "").contains("expandable_segments:True"))
    {
        plan.overheads.expandable_segments = ExpandableSegments::On;
    }
}

/// The measurement a result makes, with how the GPU matched and notes; an
/// error when the result has no configuration or model in the grid.
pub fn measurement(
    runs: &RunSet,
    result: &RunResult,
) -> Result<(Measurement, GpuMatch, Vec<String>), String> {
    let config: &RunConfig = runs
        .grid
        .runs
        .iter()
        .find(|c| c.id() == result.id)
        .ok_or_else(|| format!("result {} is not in the grid", result.id))?;
    let model: &GridModel = runs
        .grid
        .models
        .get(config.model())
        .ok_or_else(|| format!("{}: model {} is not in the grid", result.id, config.model()))?;
    let g = &runs.provenance.gpu;
    let (choice, matched) = gpu_choice(&g.name, g.total_memory);
    let mut notes = Vec::new();
    let mut measured = Measured::default();
    if let Some(m) = &result.memory {
        measured.peak_allocated = Some(Bytes::new(m.peak_allocated as f64));
        measured.peak_reserved = Some(Bytes::new(m.peak_reserved as f64));
        match (m.device_used_nvml, used_before(runs)) {
            (Some(after), Some(before)) if after >= before => {
                measured.device_used = Some(Bytes::new((after - before) as f64));
            }
            _ => notes.push("device used not compared: no NVML reading before and after".into()),
        }
        if let Some(n) = m.alloc_retries.filter(|n| *n > 0) {
            notes.push(format!(
                "the allocator flushed its cache {n} times: times include the retries"
            ));
        }
    }
    if let Some(t) = &result.time {
        measured.step_time = t.step_median.map(Seconds::from_secs);
        measured.ttft = t.ttft_median.map(Seconds::from_secs);
        measured.tpot = t.tpot_median.map(Seconds::from_secs);
    }
    if matched == GpuMatch::Custom {
        measured.step_time = None;
        measured.ttft = None;
        measured.tpot = None;
        notes.push(format!(
            "time not compared: {} is not in the catalog (memory only)",
            g.name
        ));
    }
    if let Some(p) = result.params.filter(|p| *p != model.expected_params) {
        notes.push(format!(
            "PyTorch built {p} parameters, the planner counts {}",
            model.expected_params
        ));
    }
    let mut plan = plan(config, model, choice);
    apply_software(&runs.provenance, &mut plan);
    Ok((
        Measurement {
            id: result.id.clone(),
            plan,
            measured,
        },
        matched,
        notes,
    ))
}

/// Compares every result of every fixture with its prediction.
pub fn compare(fixtures: &[Fixture], tol: &Tolerance) -> Comparison {
    let mut out = Collected::default();
    let fixture_summaries = fixtures
        .iter()
        .map(|f| compare_fixture(f, tol, &mut out))
        .collect();
    Comparison {
        format: REPORT_FORMAT.into(),
        fixtures: fixture_summaries,
        tolerance: *tol,
        summary: error_summary(&out.rows),
        rows: out.rows,
        failures: out.failures,
        measurements: out.measurements,
        source: profile_source(fixtures),
    }
}

/// What comparing the results gathers, in fixture and result order.
#[derive(Default)]
struct Collected {
    rows: Vec<Row>,
    failures: Vec<Failure>,
    measurements: Vec<Measurement>,
}

/// Compares every result of one fixture and sums the fixture up.
fn compare_fixture(f: &Fixture, tol: &Tolerance, out: &mut Collected) -> FixtureSummary {
    let g = &f.runs.provenance.gpu;
    let (_, matched) = gpu_choice(&g.name, g.total_memory);
    let first = out.rows.len();
    for result in &f.runs.results {
        compare_result(f, result, tol, out);
    }
    let measured = out.rows[first..]
        .iter()
        .filter(|r| r.status == Status::Ok)
        .count();
    FixtureSummary {
        name: f.name.clone(),
        gpu: g.name.clone(),
        matched,
        date: f.runs.provenance.date.clone(),
        software: software(&f.runs),
        results: f.runs.results.len(),
        measured,
    }
}

/// One result against its prediction: its row, its failures and, when it
/// ran, its measurement. A result the grid does not describe is a failure
/// and no row.
fn compare_result(f: &Fixture, result: &RunResult, tol: &Tolerance, out: &mut Collected) {
    let fail = |figure: Figure, message: String| Failure {
        fixture: f.name.clone(),
        id: result.id.clone(),
        figure,
        message,
    };
    let (m, gpu, mut notes) = match measurement(&f.runs, result) {
        Ok(x) => x,
        Err(e) => {
            out.failures.push(fail(Figure::PeakAllocated, e));
            return;
        }
    };
    let report = evaluate(&m.plan);
    let errors = if result.status == Status::Ok {
        errors_against(&report, &m.measured)
    } else {
        Vec::new()
    };
    notes.extend(status_note(result, &report));
    if let Some(message) = wrong_verdict(result, &report) {
        out.failures.push(fail(Figure::PeakAllocated, message));
    }
    for e in &errors {
        if let Some(message) = outside_tolerance(e, tol) {
            out.failures.push(fail(e.figure, message));
        }
    }
    if result.status == Status::Ok {
        out.measurements.push(m);
    }
    out.rows.push(Row {
        fixture: f.name.clone(),
        id: result.id.clone(),
        status: result.status,
        gpu,
        verdict: report.verdict,
        errors,
        notes,
    });
}

/// What the reader should know about a run that did not end well: an
/// out-of-memory against the planner's verdict, or why it was skipped or
/// failed.
fn status_note(result: &RunResult, report: &Report) -> Option<String> {
    match result.status {
        Status::Ok => None,
        Status::Oom if report.verdict == Verdict::Fits => Some(format!(
            "ran out of memory; the planner predicted it fits with {} to spare",
            report.hbm_margin
        )),
        Status::Oom => Some("ran out of memory, as the planner predicted".into()),
        Status::Skipped | Status::Error => Some(format!(
            "{}: {}",
            if result.status == Status::Skipped {
                "skipped"
            } else {
                "failed"
            },
            result.reason.as_deref().unwrap_or("no reason given")
        )),
    }
}

/// A verdict the run contradicts where the planner was sure of it: an
/// out-of-memory though even the pessimistic end of the HBM range fits,
/// or a run that completed though even the optimistic end does not. Where
/// the range straddles the capacity the planner said it might go either
/// way (and warned), and the run is a note, not a miss.
fn wrong_verdict(result: &RunResult, report: &Report) -> Option<String> {
    let hbm = report.binding_device()?.tier(Tier::Hbm)?;
    let (low, high, cap) = (hbm.range.low, hbm.range.high, hbm.capacity);
    match result.status {
        Status::Oom if high.base() <= cap.base() => Some(format!(
            "ran out of memory where the planner was sure it fits (its range ends at {high}, under the {cap} capacity)"
        )),
        Status::Ok if low.base() > cap.base() => Some(format!(
            "ran where the planner was sure it does not fit (its range starts at {low}, over the {cap} capacity)"
        )),
        _ => None,
    }
}

/// Why a figure breaks a tolerance, if it does: peak allocated off by more
/// than allowed, or a time outside the report's range.
fn outside_tolerance(e: &FigureError, tol: &Tolerance) -> Option<String> {
    match e.figure {
        Figure::PeakAllocated if e.error.abs() > tol.allocated => Some(format!(
            "peak allocated off by {:+.1} % (tolerance ±{:.0} %)",
            e.error * 100.0,
            tol.allocated * 100.0
        )),
        f if f.is_time() && tol.time_in_range && e.in_range() == Some(false) => e.range.map(|r| {
            format!(
                "{} {} outside the report's range {}–{} (error {:+.1} %)",
                f.label(),
                show(e.measured),
                show(r.low),
                show(r.high),
                e.error * 100.0
            )
        }),
        _ => None,
    }
}

/// Per figure, the median and worst error over every row that measured it.
fn error_summary(rows: &[Row]) -> Vec<ErrorSummary> {
    Figure::ALL
        .iter()
        .filter_map(|&fig| {
            let e: Vec<f64> = rows
                .iter()
                .flat_map(|r| r.errors.iter())
                .filter(|e| e.figure == fig)
                .map(|e| e.error)
                .collect();
            summarise(fig, &e)
        })
        .collect()
}

/// The fixtures' names, their distinct dates and software.
fn profile_source(fixtures: &[Fixture]) -> ProfileSource {
    let mut dates: Vec<String> = fixtures
        .iter()
        .map(|f| f.runs.provenance.date.clone())
        .collect();
    dates.sort();
    dates.dedup();
    let mut sw: Vec<String> = fixtures.iter().map(|f| software(&f.runs)).collect();
    sw.sort();
    sw.dedup();
    ProfileSource {
        fixtures: fixtures.iter().map(|f| f.name.clone()).collect(),
        measured_on: dates.join(", "),
        software: sw.join("; "),
    }
}

/// A figure's value with its unit.
/// Times of 10 ms or more get one decimal, shorter ones and memory three.
pub fn show(value: FigureValue) -> String {
    match value {
        value @ FigureValue::Time(t) if t.as_millis() < 10.0 => format!("{value:.3}"),
        value @ FigureValue::Time(_) => format!("{value:.1}"),
        value => format!("{value:.3}"),
    }
}

impl Comparison {
    /// Pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    /// The per-configuration table, the summary and the failures.
    pub fn render(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        for f in &self.fixtures {
            let m = match f.matched {
                GpuMatch::Catalog(id) => serde_json::to_string(&id)
                    .unwrap_or_default()
                    .trim_matches('"')
                    .to_string(),
                GpuMatch::Custom => "not in the catalog".into(),
            };
            let _ = writeln!(
                s,
                "fixture {}: {} ({m}), {}, {}; {} of {} configurations measured",
                f.name, f.gpu, f.date, f.software, f.measured, f.results
            );
        }
        let width = self
            .rows
            .iter()
            .map(|r| r.id.len())
            .max()
            .unwrap_or(2)
            .max(2);
        let _ = writeln!(
            s,
            "\n{:width$}  {:14}  {:>12}  {:>12}  {:>8}",
            "id", "figure", "measured", "predicted", "error"
        );
        for r in &self.rows {
            if r.errors.is_empty() {
                let _ = writeln!(s, "{:width$}  {:?}", r.id, r.status);
            }
            for e in &r.errors {
                let flag = match e.in_range() {
                    Some(false) => "  (outside range)",
                    _ => "",
                };
                let _ = writeln!(
                    s,
                    "{:width$}  {:14}  {:>12}  {:>12}  {:>+7.1}%{flag}",
                    r.id,
                    e.figure.label(),
                    show(e.measured),
                    show(e.predicted),
                    e.error * 100.0
                );
            }
            for n in &r.notes {
                let _ = writeln!(s, "{:width$}  note: {n}", "");
            }
        }
        let _ = writeln!(
            s,
            "\n{:14}  {:>5}  {:>12}  {:>8}",
            "figure", "n", "median |err|", "worst"
        );
        for x in &self.summary {
            let _ = writeln!(
                s,
                "{:14}  {:>5}  {:>11.1}%  {:>+7.1}%",
                x.figure.label(),
                x.count,
                x.median_abs * 100.0,
                x.worst * 100.0
            );
        }
        if self.failures.is_empty() {
            let _ = writeln!(
                s,
                "\nevery row within tolerance (peak allocated ±{:.0} %, times inside the report's range)",
                self.tolerance.allocated * 100.0
            );
        } else {
            let _ = writeln!(s, "\n{} outside tolerance:", self.failures.len());
            for f in &self.failures {
                let _ = writeln!(s, "  {} {}: {}", f.fixture, f.id, f.message);
            }
        }
        s
    }
}
