//! `memwall-harness`: measure a GPU with the PyTorch workloads, record the
//! run as a fixture, and compare fixtures with the planner.
//!
//! Exit codes: 0 done (also when measuring was skipped because there is no
//! GPU or no PyTorch: the message says why), 1 a comparison found rows
//! outside tolerance, 2 bad input or a failed run.

mod args;

use args::{Cli, Cmd};
use clap::{CommandFactory, Parser};
use harness::compare::{self, Tolerance};
use harness::runset::{HarnessInfo, RunSet};
use harness::{grid, nvml, python};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

struct Fail(String);

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    // clap prints help and usage errors itself: exit 0 and 2.
    let cli = Cli::parse();
    match run(&args, cli) {
        Ok(code) => code,
        Err(Fail(m)) => {
            eprintln!("memwall-harness: {m}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &[String], cli: Cli) -> Result<ExitCode, Fail> {
    let Some(cmd) = cli.command else {
        println!("{}", Cli::command().render_help());
        return Ok(ExitCode::SUCCESS);
    };
    match cmd {
        Cmd::Measure(m) => measure(args, &m),
        Cmd::Compare(c) => compare_cmd(c),
        Cmd::Import { file } => import(args, &file),
        Cmd::Probe => {
            match nvml::probe() {
                Ok(p) => println!("{}", serde_json::to_string_pretty(&p).unwrap_or_default()),
                Err(e) => println!("no GPU to probe: {e}"),
            }
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Grid { name } => {
            let g = grid::by_name(name.as_str()).ok_or_else(|| Fail("unknown grid".into()))?;
            print!("{}", g.to_json());
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Plan(p) => plan_cmd(&p),
        Cmd::WriteGrids => {
            for g in [grid::quick(), grid::full(), grid::large()] {
                let path = harness::grids_dir().join(format!("{}.json", g.name));
                write(&path, &g.to_json())?;
                println!("wrote {}", path.display());
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn plan_cmd(a: &args::Plan) -> Result<ExitCode, Fail> {
    let id = &a.id;
    let (choice, _) = harness::plans::gpu_choice(&a.gpu, a.memory);
    for g in [grid::quick(), grid::full(), grid::large()] {
        if let Some(run) = g.runs.iter().find(|r| r.id() == id) {
            let p = harness::plans::plan(run, &g.models[run.model()], choice);
            println!("{}", p.to_json());
            return Ok(ExitCode::SUCCESS);
        }
    }
    Err(Fail(format!(
        "no configuration {id:?} in the quick, full or large grid"
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

fn measure(all: &[String], m: &args::Measure) -> Result<ExitCode, Fail> {
    let (grid_name, py, only) = (m.grid(), &m.python, &m.only);

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
    let peak = python::run_workload(&python, &grid_path, &runset_path, only, Some((&nv, 0)))
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

fn import(all: &[String], file: &str) -> Result<ExitCode, Fail> {
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

fn compare_cmd(a: args::Compare) -> Result<ExitCode, Fail> {
    let (files, report) = (a.files, a.report);
    let json = a.format == args::Format::Json;
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
