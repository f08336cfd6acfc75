//! `memwall`: the planner on the command line.
//!
//! Exit codes: 0 the plan fits (or the search found a plan), 1 it is valid
//! but does not fit (or nothing in the space fits and meets the
//! constraints), 2 bad input (unreadable file, malformed JSON, unknown
//! preset, invalid values or impossible splits). Errors are one line on
//! stderr; nothing panics.

#![forbid(unsafe_code)]

mod args;
mod calibrate_view;
mod disagg_view;
mod io;
mod ops;
mod ops_view;
mod search_view;
mod serving_view;
mod table;
mod usage;

use args::{Catalog, Cli, Cmd, SchemaKind};
use clap::{CommandFactory, Parser};
use planner_core::search::{self, Scenario};
use planner_core::{evaluate, example_plan, Plan, Severity, Verdict};
use std::process::ExitCode;
use std::time::Instant;

/// A failure that ends the program with exit code 2 and one line on stderr.
pub(crate) struct Fail(String);

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage::report(&e),
    };
    match run(cli) {
        Ok(code) => code,
        Err(Fail(msg)) => {
            eprintln!("memwall: {}", io::one_line(&msg));
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, Fail> {
    let Some(cmd) = cli.command else {
        crate::io::emit(&format!("{}\n", Cli::command().render_help()));
        return Ok(ExitCode::SUCCESS);
    };
    match cmd {
        Cmd::Eval(a) => eval(&a.file, a.format.format),
        Cmd::Example => print_ok(example_plan().to_json()),
        Cmd::ExampleServing => print_ok(planner_core::example_serving_plan().to_json()),
        Cmd::ExampleDisagg => print_ok(planner_core::example_disagg_plan().to_json()),
        Cmd::Schema { kind } => schema(kind),
        Cmd::Search(a) => run_search(&a.file, a.format.format),
        Cmd::ExampleScenario => print_ok(search::example_scenario().to_json()),
        Cmd::SearchServing(a) => {
            serving_view::run_search_serving(&a.file, a.every_gpu, a.formats, a.format.format)
        }
        Cmd::ExampleServingScenario => print_ok(
            serde_json::to_string_pretty(&search::example_serving_scenario())
                .map_err(|e| Fail(e.to_string()))?,
        ),
        Cmd::Compare(a) => compare(&a.files, a.format.format),
        Cmd::Tenants(a) => ops::tenants(&a.file, a.format.format),
        Cmd::ExampleTenants => print_ok(planner_core::tenants::example_sharing().to_json()),
        Cmd::Checkpoint(a) => ops::checkpoint(&a),
        Cmd::Checklist(a) => ops::checklist(&a),
        Cmd::Wall(a) => ops::wall(&a),
        Cmd::Presets { catalog } => presets(catalog),
        Cmd::ImportHf { file, serving } => import_hf(&file, serving),
        Cmd::Calibrate(a) => calibrate(&a),
        Cmd::Completions { shell } => {
            let shell: clap_complete::Shell = shell.into();
            clap_complete::generate(
                shell,
                &mut Cli::command(),
                "memwall",
                &mut std::io::stdout(),
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn print_ok(json: String) -> Result<ExitCode, Fail> {
    crate::io::emit(&format!("{json}\n"));
    Ok(ExitCode::SUCCESS)
}

fn schema(kind: SchemaKind) -> Result<ExitCode, Fail> {
    let schema = match kind {
        SchemaKind::Plan => schemars::schema_for!(Plan),
        SchemaKind::Scenario => schemars::schema_for!(Scenario),
        SchemaKind::Tenants => schemars::schema_for!(planner_core::tenants::Sharing),
    };
    print_ok(serde_json::to_string_pretty(&schema).unwrap_or_default())
}

/// The output format of `--format`.
#[derive(Clone, Copy, PartialEq, clap::ValueEnum)]
pub(crate) enum Format {
    /// JSON, for programs
    Json,
    /// A table, for people
    Table,
}

fn eval(file: &str, format: Format) -> Result<ExitCode, Fail> {
    let text = read_input(file)?;
    let plan = Plan::from_json(&text).map_err(|e| Fail(format!("invalid plan: {e}")))?;
    let report = evaluate(&plan);

    if report.verdict == Verdict::Invalid {
        let errors: Vec<_> = report
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .map(|d| d.message.as_str())
            .collect();
        return Err(Fail(format!("invalid plan: {}", errors.join("; "))));
    }
    match format {
        Format::Json => crate::io::emit(&format!("{}\n", report.to_json())),
        Format::Table => crate::io::emit(&table::render(&report)),
    }
    Ok(match report.verdict {
        Verdict::Fits => ExitCode::SUCCESS,
        _ => ExitCode::from(1),
    })
}

/// The errors of a plan that make it invalid, on one line.
pub(crate) fn plan_errors(diagnostics: &[planner_core::Diagnostic]) -> String {
    diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.message.as_str())
        .collect::<Vec<_>>()
        .join("; ")
}

/// Searches a scenario; the elapsed time goes to stderr with the table (the
/// core has no clock).
fn run_search(file: &str, format: Format) -> Result<ExitCode, Fail> {
    let text = read_input(file)?;
    let scenario =
        Scenario::from_json(&text).map_err(|e| Fail(format!("invalid scenario: {e}")))?;
    let start = Instant::now();
    let result = search::search(&scenario);
    let elapsed = start.elapsed();
    if result.counts.combinations == 0 && !result.diagnostics.is_empty() {
        return Err(Fail(format!(
            "invalid scenario: {}",
            plan_errors(&result.diagnostics)
        )));
    }
    match format {
        Format::Json => crate::io::emit(&format!("{}\n", result.to_json())),
        Format::Table => {
            crate::io::emit(&search_view::render_search(&result));
            let _ = std::io::Write::flush(&mut std::io::stdout());
            eprintln!(
                "searched {} plans ({} evaluated) in {:.2} s",
                result.counts.combinations,
                result.counts.evaluated,
                elapsed.as_secs_f64()
            );
        }
    }
    Ok(if result.frontier.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Plans side by side; migration classes are counted from the first.
fn compare(files: &[String], format: Format) -> Result<ExitCode, Fail> {
    if files.len() < 2 {
        return Err(Fail("compare needs at least two plan files".into()));
    }
    if files.iter().filter(|f| f.as_str() == "-").count() > 1 {
        return Err(Fail("stdin (-) can be read only once".into()));
    }
    let mut plans = Vec::new();
    for f in files {
        let text = read_input(f)?;
        let plan = Plan::from_json(&text).map_err(|e| Fail(format!("invalid plan {f}: {e}")))?;
        let report = evaluate(&plan);
        if report.verdict == Verdict::Invalid {
            return Err(Fail(format!(
                "invalid plan {f}: {}",
                plan_errors(&report.diagnostics)
            )));
        }
        plans.push(plan);
    }
    let figures: Vec<_> = plans
        .iter()
        .map(|p| search::figures(p, &plans[0]))
        .collect();
    match format {
        Format::Json => {
            let rows: Vec<_> = files
                .iter()
                .zip(&figures)
                .map(|(file, f)| serde_json::json!({ "file": file, "figures": f }))
                .collect();
            crate::io::emit(&format!(
                "{}\n",
                serde_json::to_string_pretty(&rows).unwrap_or_default()
            ));
        }
        Format::Table => {
            let names: Vec<String> = files
                .iter()
                .zip(&plans)
                .map(|(f, p)| {
                    if p.name.is_empty() {
                        f.clone()
                    } else {
                        p.name.clone()
                    }
                })
                .collect();
            crate::io::emit(&search_view::render_compare(&names, &figures, &plans));
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn read_input(file: &str) -> Result<String, Fail> {
    if file == "-" {
        io::read_bounded(std::io::stdin().lock(), "stdin").map_err(Fail)
    } else {
        let f = std::fs::File::open(file).map_err(|e| Fail(format!("cannot read {file}: {e}")))?;
        io::read_bounded(f, file).map_err(Fail)
    }
}

/// Fits the knobs to the measurements of a harness report.
fn calibrate(a: &args::Calibrate) -> Result<ExitCode, Fail> {
    use planner_core::calibrate::{fit, CalibrationInput, FitOptions};
    let mut options = FitOptions::default();
    if let Some(k) = a.hold_out {
        options.hold_out = k;
    }
    if let Some(knobs) = &a.knobs {
        options.knobs = knobs.clone();
    }
    let file = &a.file;
    let text = read_input(file)?;
    let de = &mut serde_json::Deserializer::from_str(&text);
    let input: CalibrationInput = serde_path_to_error::deserialize(de).map_err(|e| {
        Fail(format!(
            "invalid report {file}: {}: {}",
            e.path(),
            e.inner()
        ))
    })?;
    options.source = input.source.clone();
    let cal = fit(&input.measurements, &options)
        .map_err(|e| Fail(format!("cannot calibrate {file}: {e}")))?;
    match a.format {
        Format::Json => crate::io::emit(&format!(
            "{}\n",
            serde_json::to_string_pretty(&cal).unwrap_or_default()
        )),
        Format::Table => crate::io::emit(&calibrate_view::render(&cal)),
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints the example plan (or, `serving`, the serving example in the
/// checkpoint's shipped formats) with its model replaced by the imported
/// one.
fn import_hf(file: &str, serving: bool) -> Result<ExitCode, Fail> {
    let text = read_input(file)?;
    let imported = planner_core::hf::import_hf_config(&text)
        .map_err(|e| Fail(format!("cannot import {file}: {e}")))?;
    for note in &imported.notes {
        eprintln!("note: {}", io::one_line(&note.en));
    }
    let mut plan = if serving {
        planner_core::example_serving_plan()
    } else {
        example_plan()
    };
    if let Some(shipped) = imported.shipped.filter(|_| serving) {
        plan.serve_as_shipped(shipped);
        eprintln!("note: weights stored as shipped");
    }
    plan.name = format!("{} (imported)", imported.name);
    plan.model = planner_core::plan::ModelChoice::Custom(planner_core::plan::CustomModel {
        shipped: imported.shipped,
        name: imported.name,
        spec: imported.spec,
    });
    crate::io::emit(&format!("{}\n", plan.to_json()));
    Ok(ExitCode::SUCCESS)
}

fn presets(catalog: Catalog) -> Result<ExitCode, Fail> {
    let text = match catalog {
        Catalog::Models => table::models(),
        Catalog::Gpus => table::gpus(),
        Catalog::Mig => ops_view::mig(),
        Catalog::Links => table::links(),
        Catalog::Cxl => table::cxl(),
        Catalog::Prices => table::prices(),
        Catalog::All => [
            table::models(),
            table::gpus(),
            ops_view::mig(),
            table::links(),
            table::cxl(),
            table::prices(),
        ]
        .join("\n"),
    };
    crate::io::emit(&text);
    Ok(ExitCode::SUCCESS)
}
