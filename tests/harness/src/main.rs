//! `memwall-harness`: measure a GPU with the PyTorch workloads, record the
//! run as a fixture, and compare fixtures with the planner.
//!
//! Exit codes: 0 done (also when measuring was skipped because there is no
//! GPU or no PyTorch: the message says why), 1 a comparison found rows
//! outside tolerance, 2 bad input or a failed run.

use harness::compare::{self, Tolerance};
use harness::runset::{HarnessInfo, RunSet};
use harness::{grid, nvml, python};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "\
memwall-harness — measure real GPUs and hold memwall's predictions against them

usage:
  memwall-harness measure [--quick] [--python PY] [--only TEXT]...
        probe the GPU (NVML), run tests/gpu/workload.py over the grid (full, or
        quick), record the run set under tests/gpu/fixtures/ and compare it with
        the planner; skips with a message (exit 0) without a GPU or PyTorch
  memwall-harness compare [FIXTURE...] [--report FILE] [--format table|json]
        compare fixtures (default: every file in tests/gpu/fixtures/) with the
        planner's predictions; --report writes the JSON report that
        `memwall calibrate` reads
  memwall-harness import RUNSET.json
        record a run set made by the workload alone (python3
        tests/gpu/workload.py) as a fixture
  memwall-harness probe       print what NVML sees (or why it sees nothing)
  memwall-harness grid quick|full
        print a grid as JSON (the workload's input)
  memwall-harness write-grids write tests/gpu/grids/{quick,full}.json
  memwall-harness plan ID [--gpu NAME --memory BYTES]
        print the plan a configuration of a grid is compared with (default GPU:
        NVIDIA H100 80GB HBM3); pipe it into `memwall eval - --format table`
  memwall-harness help

exit codes: 0 done or skipped, 1 rows outside tolerance, 2 bad input or failure";

struct Fail(String);

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    match run(&args) {
        Ok(code) => code,
        Err(Fail(m)) => {
            eprintln!("memwall-harness: {m}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &[String]) -> Result<ExitCode, Fail> {
    let Some(cmd) = args.get(1) else {
        println!("{USAGE}");
        return Ok(ExitCode::SUCCESS);
    };
    let rest = &args[2..];
    match cmd.as_str() {
        "measure" => measure(args, rest),
        "compare" => compare_cmd(rest),
        "import" => import(args, rest),
        "probe" => {
            match nvml::probe() {
                Ok(p) => println!("{}", serde_json::to_string_pretty(&p).unwrap_or_default()),
                Err(e) => println!("no GPU to probe: {e}"),
            }
            Ok(ExitCode::SUCCESS)
        }
        "grid" => {
            let name = rest.first().map(String::as_str).unwrap_or("full");
            let g = grid::by_name(name)
                .ok_or_else(|| Fail(format!("unknown grid {name:?}; use quick or full")))?;
            print!("{}", g.to_json());
            Ok(ExitCode::SUCCESS)
        }
        "plan" => plan_cmd(rest),
        "write-grids" => {
            for g in [grid::quick(), grid::full()] {
                let path = harness::grids_dir().join(format!("{}.json", g.name));
                write(&path, &g.to_json())?;
                println!("wrote {}", path.display());
            }
            Ok(ExitCode::SUCCESS)
        }
        "help" | "--help" | "-h" => {
            println!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        other => Err(Fail(format!(
            "unknown command {other:?}; try `memwall-harness help`"
        ))),
    }
}

fn plan_cmd(rest: &[String]) -> Result<ExitCode, Fail> {
    let mut id = None;
    let mut gpu = "NVIDIA H100 80GB HBM3".to_string();
    let mut memory: u64 = 81559 * 1024 * 1024;
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--gpu" => {
                gpu = it
                    .next()
                    .ok_or_else(|| Fail("--gpu needs a name".into()))?
                    .clone()
            }
            "--memory" => {
                memory = it
                    .next()
                    .and_then(|m| m.parse().ok())
                    .ok_or_else(|| Fail("--memory needs a number of bytes".into()))?
            }
            other => id = Some(other.to_string()),
        }
    }
    let id = id.ok_or_else(|| Fail("plan needs a configuration id (see `grid full`)".into()))?;
    let (choice, _) = harness::plans::gpu_choice(&gpu, memory);
    for g in [grid::quick(), grid::full()] {
        if let Some(run) = g.runs.iter().find(|r| r.id() == id) {
            let p = harness::plans::plan(run, &g.models[run.model()], choice);
            println!("{}", p.to_json());
            return Ok(ExitCode::SUCCESS);
        }
    }
    Err(Fail(format!(
        "no configuration {id:?} in the quick or full grid"
    )))
}

fn write(path: &Path, text: &str) -> Result<(), Fail> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| Fail(format!("cannot create {}: {e}", dir.display())))?;
    }
    std::fs::write(path, text).map_err(|e| Fail(format!("cannot write {}: {e}", path.display())))
}

/// Prints why measuring was skipped; exit 0, nothing recorded.
fn skipped(why: &str) -> Result<ExitCode, Fail> {
    println!("memwall-harness measure: skipped, nothing measured or recorded: {why}");
    Ok(ExitCode::SUCCESS)
}

fn measure(all: &[String], rest: &[String]) -> Result<ExitCode, Fail> {
    let mut grid_name = "full";
    let mut py = None;
    let mut only = Vec::new();
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--quick" => grid_name = "quick",
            "--full" => grid_name = "full",
            "--python" => {
                py = Some(
                    it.next()
                        .ok_or_else(|| Fail("--python needs a path".into()))?
                        .clone(),
                )
            }
            "--only" => only.push(
                it.next()
                    .ok_or_else(|| Fail("--only needs a text".into()))?
                    .clone(),
            ),
            other => return Err(Fail(format!("unexpected argument {other:?}"))),
        }
    }

    // 1. The device, through NVML.
    let nv = match nvml::Nvml::load() {
        Ok(n) => n,
        Err(e) => return skipped(&e.to_string()),
    };
    let probe = match nv.probe() {
        Ok(p) => p,
        Err(e) => return skipped(&e.to_string()),
    };
    for d in &probe.devices {
        println!(
            "GPU {}: {} ({:.1} GiB, {:.1} GiB in use), driver {}, CUDA {}",
            d.index,
            d.name,
            d.memory_total as f64 / 1073741824.0,
            d.memory_used as f64 / 1073741824.0,
            probe.driver,
            probe.cuda_driver.as_deref().unwrap_or("?")
        );
    }

    // 2. Python and PyTorch with CUDA.
    let python = python::interpreter(py.as_deref());
    match python::check_torch(&python) {
        python::Torch::Ready { version, device } => {
            println!("PyTorch {version} under {python} sees {device}")
        }
        python::Torch::Missing(why) => return skipped(&why),
    }

    // 3. The grid, the run.
    let g = grid::by_name(grid_name).ok_or_else(|| Fail("unknown grid".into()))?;
    let out = harness::out_dir();
    let grid_path = out.join(format!("grid-{}.json", g.name));
    write(&grid_path, &g.to_json())?;
    let runset_path = out.join(format!("runset-{}.json", g.name));
    let _ = std::fs::remove_file(&runset_path);
    // CUDA's device 0 is NVML's device 0 unless CUDA_VISIBLE_DEVICES or
    // CUDA_DEVICE_ORDER reorder them; the peak is informational only.
    let peak = python::run_workload(&python, &grid_path, &runset_path, &only, Some((&nv, 0)))
        .map_err(Fail)?;
    if !runset_path.exists() {
        // The workload printed why it skipped.
        return skipped("the workload recorded nothing (see its message above)");
    }

    // 4. Record it.
    let text = std::fs::read_to_string(&runset_path)
        .map_err(|e| Fail(format!("cannot read {}: {e}", runset_path.display())))?;
    let mut runs = RunSet::from_json(&text).map_err(|e| Fail(format!("run set: {e}")))?;
    runs.harness = Some(HarnessInfo {
        command: all.to_vec(),
        probe: Some(probe),
        nvml_peak_used: peak,
        python,
        recorded_by: "memwall-harness measure".into(),
    });
    let problems = runs.check();
    if !problems.is_empty() {
        return Err(Fail(format!(
            "the run set is not fit to record: {}",
            problems.join("; ")
        )));
    }
    let fixture = record(&runs)?;
    compare_and_print(&[fixture], None)
}

fn record(runs: &RunSet) -> Result<PathBuf, Fail> {
    let path = harness::fixtures_dir().join(harness::fixture_name(runs));
    if path.exists() {
        return Err(Fail(format!(
            "{} exists already; fixtures are never overwritten",
            path.display()
        )));
    }
    write(&path, &runs.to_json())?;
    println!("recorded {}", path.display());
    Ok(path)
}

fn import(all: &[String], rest: &[String]) -> Result<ExitCode, Fail> {
    let [file] = rest else {
        return Err(Fail("import needs one run set file".into()));
    };
    let text =
        std::fs::read_to_string(file).map_err(|e| Fail(format!("cannot read {file}: {e}")))?;
    let mut runs = RunSet::from_json(&text).map_err(|e| Fail(format!("{file}: {e}")))?;
    let problems = runs.check();
    if !problems.is_empty() {
        return Err(Fail(format!(
            "{file} is not fit to record: {}",
            problems.join("; ")
        )));
    }
    if runs.harness.is_none() {
        runs.harness = Some(HarnessInfo {
            command: all.to_vec(),
            probe: None,
            nvml_peak_used: None,
            python: String::new(),
            recorded_by: "memwall-harness import".into(),
        });
    }
    let path = record(&runs)?;
    compare_and_print(&[path], None)
}

fn compare_cmd(rest: &[String]) -> Result<ExitCode, Fail> {
    let mut files = Vec::new();
    let mut report = None;
    let mut json = false;
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--report" => {
                report = Some(PathBuf::from(
                    it.next()
                        .ok_or_else(|| Fail("--report needs a file".into()))?,
                ))
            }
            "--format" => match it.next().map(String::as_str) {
                Some("json") => json = true,
                Some("table") => json = false,
                _ => return Err(Fail("--format needs json or table".into())),
            },
            f => files.push(PathBuf::from(f)),
        }
    }
    if files.is_empty() {
        let fixtures = compare::load_dir(&harness::fixtures_dir()).map_err(Fail)?;
        if fixtures.is_empty() {
            println!(
                "no fixture recorded yet in {}: nothing to compare (record one on a GPU with \
                 `cargo run -p memwall-harness -- measure`)",
                harness::fixtures_dir().display()
            );
            return Ok(ExitCode::SUCCESS);
        }
        return finish(
            &compare::compare(&fixtures, &Tolerance::default()),
            report,
            json,
        );
    }
    let fixtures = files
        .iter()
        .map(|f| compare::load_file(f))
        .collect::<Result<Vec<_>, _>>()
        .map_err(Fail)?;
    finish(
        &compare::compare(&fixtures, &Tolerance::default()),
        report,
        json,
    )
}

fn compare_and_print(paths: &[PathBuf], report: Option<PathBuf>) -> Result<ExitCode, Fail> {
    let fixtures = paths
        .iter()
        .map(|p| compare::load_file(p))
        .collect::<Result<Vec<_>, _>>()
        .map_err(Fail)?;
    let c = compare::compare(&fixtures, &Tolerance::default());
    let report = report.or_else(|| {
        let stem = paths.first()?.file_stem()?.to_string_lossy().into_owned();
        Some(harness::out_dir().join(format!("{stem}.report.json")))
    });
    finish(&c, report, false)
}

fn finish(c: &compare::Comparison, report: Option<PathBuf>, json: bool) -> Result<ExitCode, Fail> {
    if json {
        print!("{}", c.to_json());
    } else {
        print!("{}", c.render());
    }
    if let Some(path) = report {
        write(&path, &c.to_json())?;
        eprintln!(
            "report: {} (fit it with `memwall calibrate {}`)",
            path.display(),
            path.display()
        );
    }
    Ok(if c.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
