//! `memwall`: the planner on the command line.
//!
//! Exit codes: 0 the plan fits, 1 it is valid but does not fit, 2 bad input
//! (unreadable file, malformed JSON, unknown preset, invalid values or
//! impossible splits). Errors are one line on stderr; nothing panics.

mod table;

use planner_core::{evaluate, example_plan, Plan, Severity, Verdict};
use std::io::Read;
use std::process::ExitCode;

const USAGE: &str = "\
memwall — does it fit, and how far over the GPU memory wall is it?

usage:
  memwall eval FILE [--format json|table]   evaluate a plan (FILE or - for stdin)
  memwall example                           print a complete example plan (JSON)
  memwall schema                            print the plan's JSON schema
  memwall import-hf CONFIG                  turn a Hugging Face config.json (or -) into a
                                            plan for that model (notes on stderr)
  memwall presets [models|gpus|links|cxl|prices]
                                            list catalog entries and their sources
  memwall help                              this text

exit codes: 0 fits, 1 does not fit, 2 bad input";

/// A failure that ends the program with exit code 2 and one line on stderr.
struct Fail(String);

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
            no_extra(rest)?;
            let schema = schemars::schema_for!(Plan);
            println!(
                "{}",
                serde_json::to_string_pretty(&schema).unwrap_or_default()
            );
            Ok(ExitCode::SUCCESS)
        }
        "presets" => presets(rest),
        "import-hf" => import_hf(rest),
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
enum Format {
    Json,
    Table,
}

fn eval(rest: &[String]) -> Result<ExitCode, Fail> {
    let mut file = None;
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
            f if file.is_none() => file = Some(f.to_string()),
            extra => return Err(Fail(format!("unexpected argument {extra:?}"))),
        }
    }
    let file = file.ok_or_else(|| Fail("eval needs a plan file, or - for stdin".into()))?;
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

fn read_input(file: &str) -> Result<String, Fail> {
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
        "links" => table::links(),
        "cxl" => table::cxl(),
        "prices" => table::prices(),
        "all" => [
            table::models(),
            table::gpus(),
            table::links(),
            table::cxl(),
            table::prices(),
        ]
        .join("\n"),
        other => {
            return Err(Fail(format!(
                "unknown catalog {other:?}; use models, gpus, links, cxl or prices"
            )))
        }
    };
    print!("{text}");
    Ok(ExitCode::SUCCESS)
}
