//! `memwall`: the planner on the command line.
//!
//! Exit codes: 0 the plan fits (or the search found a plan), 1 it is valid
//! but does not fit (or nothing in the space fits and meets the
//! constraints), 2 bad input (unreadable file, malformed JSON, unknown
//! preset, invalid values or impossible splits). Errors are one line on
//! stderr; nothing panics.

#![forbid(unsafe_code)]

mod calibrate_view;
mod ops;
mod ops_view;
mod search_view;
mod table;

use planner_core::search::{self, Scenario};
use planner_core::{evaluate, example_plan, Plan, Severity, Verdict};
use std::io::Read;
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str = "\
memwall — does it fit, and how far over the GPU memory wall is it?

usage:
  memwall eval FILE [--format json|table]   evaluate a plan (FILE or - for stdin)
  memwall example                           print a complete example plan (JSON)
  memwall schema [plan|scenario|tenants]    print the JSON schema of a plan, a search scenario
                                            or a shared pool
  memwall search SCENARIO [--format json|table]
                                            search every valid plan of a scenario (FILE or -):
                                            cost/latency frontier, best per kind of change,
                                            fewest GPUs, cheapest GPU kind, largest batch
  memwall example-scenario                  print a search scenario: GPT-3 175B on 1024×A100-80GB
  memwall compare PLAN PLAN... [--format json|table]
                                            plans side by side (fits, margin, time, cost,
                                            migration class from the first plan)
  memwall import-hf CONFIG                  turn a Hugging Face config.json (or -) into a
                                            plan for that model (notes on stderr)
  memwall tenants JOBS [--format json|table]
                                            pack jobs (plans) onto a shared pool of GPUs with
                                            MIG slices, memory caps or whole GPUs (FILE or -)
  memwall example-tenants                   print a pool of 4 H100s and six jobs to share it
  memwall checkpoint PLAN [--storage-gbps X] [--node-gbps Y] [--failure-rate Z]
                          [--restart-minutes M] [--async] [--own-shards] [--format json|table]
                                            checkpoint size, save and restore time, MTBI,
                                            optimal interval and goodput of a training plan
                                            (X, Y in GB/s; Z interruptions per GPU-year)
  memwall checklist PLAN [--baseline BASE] [--lang en|zh] [--format json|table]
                                            what to change or verify to adopt a plan
                                            (also takes the checkpoint options)
  memwall wall [--serving] [--gpu ID] [--format json|table]
                                            model sizes and GPU memory by year, and what each
                                            model needs on one GPU and on the fewest GPUs
  memwall calibrate REPORT [--format json|table] [--hold-out K] [--knobs K,K...]
                                            fit overheads and efficiencies to measured runs
                                            of one GPU kind (the GPU harness's comparison
                                            report, or - for stdin); prints the fitted
                                            profile and the before/after errors
  memwall presets [models|gpus|mig|links|cxl|prices]
                                            list catalog entries and their sources
  memwall help                              this text

exit codes: 0 fits (search: found a plan; tenants: every job placed), 1 does not fit
(search: nothing fits; tenants: some job left out), 2 bad input";

/// A failure that ends the program with exit code 2 and one line on stderr.
pub(crate) struct Fail(String);

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(code) => code,
        Err(Fail(msg)) => {
            eprintln!("memwall: {msg}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &[String]) -> Result<ExitCode, Fail> {
    let Some(cmd) = args.first() else {
        println!("{USAGE}");
        return Ok(ExitCode::SUCCESS);
    };
    let rest = &args[1..];
    match cmd.as_str() {
        "eval" => eval(rest),
        "example" => {
            no_extra(rest)?;
            println!("{}", example_plan().to_json());
            Ok(ExitCode::SUCCESS)
        }
        "schema" => {
            let schema = match rest.first().map(String::as_str) {
                None | Some("plan") => schemars::schema_for!(Plan),
                Some("scenario") => schemars::schema_for!(Scenario),
                Some("tenants") => schemars::schema_for!(planner_core::tenants::Sharing),
                Some(other) => {
                    return Err(Fail(format!(
                        "unknown schema {other:?}; use plan, scenario or tenants"
                    )))
                }
            };
            if rest.len() > 1 {
                no_extra(&rest[1..])?;
            }
            println!(
                "{}",
                serde_json::to_string_pretty(&schema).unwrap_or_default()
            );
            Ok(ExitCode::SUCCESS)
        }
        "search" => run_search(rest),
        "example-scenario" => {
            no_extra(rest)?;
            println!("{}", search::example_scenario().to_json());
            Ok(ExitCode::SUCCESS)
        }
        "compare" => compare(rest),
        "tenants" => ops::tenants(rest),
        "example-tenants" => {
            no_extra(rest)?;
            println!("{}", planner_core::tenants::example_sharing().to_json());
            Ok(ExitCode::SUCCESS)
        }
        "checkpoint" => ops::checkpoint(rest),
        "checklist" => ops::checklist(rest),
        "wall" => ops::wall(rest),
        "presets" => presets(rest),
        "import-hf" => import_hf(rest),
        "calibrate" => calibrate(rest),
        "help" | "--help" | "-h" => {
            println!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        other => Err(Fail(format!(
            "unknown command {other:?}; try `memwall help`"
        ))),
    }
}

fn no_extra(rest: &[String]) -> Result<(), Fail> {
    match rest.first() {
        Some(a) => Err(Fail(format!("unexpected argument {a:?}"))),
        None => Ok(()),
    }
}

#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Format {
    Json,
    Table,
}

/// Splits arguments into files and a `--format`.
fn files_and_format(rest: &[String]) -> Result<(Vec<String>, Format), Fail> {
    let mut files = Vec::new();
    let mut format = Format::Json;
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--format" => {
                format = match it.next().map(String::as_str) {
                    Some("json") => Format::Json,
                    Some("table") => Format::Table,
                    Some(f) => {
                        return Err(Fail(format!("unknown format {f:?}; use json or table")))
                    }
                    None => return Err(Fail("--format needs json or table".into())),
                }
            }
            f => files.push(f.to_string()),
        }
    }
    Ok((files, format))
}

/// Exactly one input file.
fn one_file(files: Vec<String>, what: &str) -> Result<String, Fail> {
    let mut it = files.into_iter();
    let file = it.next().ok_or_else(|| Fail(what.to_string()))?;
    match it.next() {
        Some(extra) => Err(Fail(format!("unexpected argument {extra:?}"))),
        None => Ok(file),
    }
}

fn eval(rest: &[String]) -> Result<ExitCode, Fail> {
    let (files, format) = files_and_format(rest)?;
    let file = one_file(files, "eval needs a plan file, or - for stdin")?;
    let text = read_input(&file)?;
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
        Format::Json => println!("{}", report.to_json()),
        Format::Table => print!("{}", table::render(&report)),
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
fn run_search(rest: &[String]) -> Result<ExitCode, Fail> {
    let (files, format) = files_and_format(rest)?;
    let file = one_file(files, "search needs a scenario file, or - for stdin")?;
    let text = read_input(&file)?;
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
        Format::Json => println!("{}", result.to_json()),
        Format::Table => {
            print!("{}", search_view::render_search(&result));
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
fn compare(rest: &[String]) -> Result<ExitCode, Fail> {
    let (files, format) = files_and_format(rest)?;
    if files.len() < 2 {
        return Err(Fail("compare needs at least two plan files".into()));
    }
    if files.iter().filter(|f| f.as_str() == "-").count() > 1 {
        return Err(Fail("stdin (-) can be read only once".into()));
    }
    let mut plans = Vec::new();
    for f in &files {
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
            println!(
                "{}",
                serde_json::to_string_pretty(&rows).unwrap_or_default()
            );
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
            print!("{}", search_view::render_compare(&names, &figures, &plans));
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn read_input(file: &str) -> Result<String, Fail> {
    if file == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| Fail(format!("cannot read stdin: {e}")))?;
        Ok(s)
    } else {
        std::fs::read_to_string(file).map_err(|e| Fail(format!("cannot read {file}: {e}")))
    }
}

/// Fits the knobs to the measurements of a harness report.
fn calibrate(rest: &[String]) -> Result<ExitCode, Fail> {
    use planner_core::calibrate::{fit, CalibrationInput, FitOptions, Knob};
    let mut files = Vec::new();
    let mut format = Format::Table;
    let mut options = FitOptions::default();
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--format" => {
                format = match it.next().map(String::as_str) {
                    Some("json") => Format::Json,
                    Some("table") => Format::Table,
                    _ => return Err(Fail("--format needs json or table".into())),
                }
            }
            "--hold-out" => {
                options.hold_out = it
                    .next()
                    .and_then(|k| k.parse().ok())
                    .ok_or_else(|| Fail("--hold-out needs a whole number (0: none)".into()))?
            }
            "--knobs" => {
                let list = it
                    .next()
                    .ok_or_else(|| Fail("--knobs needs a comma-separated list".into()))?;
                options.knobs = list
                    .split(',')
                    .map(|k| {
                        let k = k.trim();
                        Knob::ALL
                            .into_iter()
                            .find(|x| x.label() == k || x.label().rsplit('.').next() == Some(k))
                            .ok_or_else(|| {
                                Fail(format!(
                                    "unknown knob {k:?}; use {}",
                                    Knob::ALL.map(|x| x.label()).join(", ")
                                ))
                            })
                    })
                    .collect::<Result<_, _>>()?;
            }
            f => files.push(f.to_string()),
        }
    }
    let file = one_file(files, "calibrate needs a report file, or - for stdin")?;
    let text = read_input(&file)?;
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
    match format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&cal).unwrap_or_default()),
        Format::Table => print!("{}", calibrate_view::render(&cal)),
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints the example plan with its model replaced by the imported one.
fn import_hf(rest: &[String]) -> Result<ExitCode, Fail> {
    let file = rest
        .first()
        .ok_or_else(|| Fail("import-hf needs a config.json file, or - for stdin".into()))?;
    no_extra(&rest[1..])?;
    let text = read_input(file)?;
    let imported = planner_core::hf::import_hf_config(&text)
        .map_err(|e| Fail(format!("cannot import {file}: {e}")))?;
    for note in &imported.notes {
        eprintln!("note: {note}");
    }
    let mut plan = example_plan();
    plan.name = format!("{} (imported)", imported.name);
    plan.model = planner_core::plan::ModelChoice::Custom(planner_core::plan::CustomModel {
        name: imported.name,
        spec: imported.spec,
    });
    println!("{}", plan.to_json());
    Ok(ExitCode::SUCCESS)
}

fn presets(rest: &[String]) -> Result<ExitCode, Fail> {
    let which = rest.first().map(String::as_str).unwrap_or("all");
    if rest.len() > 1 {
        return Err(Fail(format!("unexpected argument {:?}", rest[1])));
    }
    let text = match which {
        "models" => table::models(),
        "gpus" => table::gpus(),
        "mig" => ops_view::mig(),
        "links" => table::links(),
        "cxl" => table::cxl(),
        "prices" => table::prices(),
        "all" => [
            table::models(),
            table::gpus(),
            ops_view::mig(),
            table::links(),
            table::cxl(),
            table::prices(),
        ]
        .join("\n"),
        other => {
            return Err(Fail(format!(
                "unknown catalog {other:?}; use models, gpus, mig, links, cxl or prices"
            )))
        }
    };
    print!("{text}");
    Ok(ExitCode::SUCCESS)
}
