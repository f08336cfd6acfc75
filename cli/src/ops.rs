//! The commands about running a plan: `tenants`, `checkpoint`, `checklist`
//! and `wall`. Argument parsing and printing only.

use crate::ops_view;
use crate::{plan_errors, read_input, Fail, Format};
use planner_core::catalog::GpuId;
use planner_core::checklist::{checklist as make_checklist, checklist_from_plain};
use planner_core::checkpoint::{
    checkpoint as make_checkpoint, CheckpointSettings, SaveLayout, SaveMode,
};
use planner_core::hardware::GpuChoice;
use planner_core::tenants::{share, Sharing};
use planner_core::units::{ByteRate, Frequency, Seconds};
use planner_core::wall::{serving_template, training_template, wall as make_wall};
use planner_core::workspace::Lang;
use planner_core::{evaluate, DiagnosticKind, Plan, Severity, Verdict};
use std::process::ExitCode;

/// Parsed options of one command.
struct Options {
    files: Vec<String>,
    format: Format,
    settings: CheckpointSettings,
    baseline: Option<String>,
    lang: Lang,
    serving: bool,
    gpu: Option<GpuId>,
}

/// Which options a command takes.
#[derive(Clone, Copy, PartialEq)]
enum Takes {
    FormatOnly,
    Checkpoint,
    Checklist,
    Wall,
}

fn number(flag: &str, v: Option<&String>) -> Result<f64, Fail> {
    let v = v.ok_or_else(|| Fail(format!("{flag} needs a number")))?;
    match v.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        _ => Err(Fail(format!("{flag}: {v:?} is not a positive number"))),
    }
}

fn parse(rest: &[String], takes: Takes) -> Result<Options, Fail> {
    let mut o = Options {
        files: Vec::new(),
        format: Format::Json,
        settings: CheckpointSettings::default(),
        baseline: None,
        lang: Lang::En,
        serving: false,
        gpu: None,
    };
    let ckpt = matches!(takes, Takes::Checkpoint | Takes::Checklist);
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--format" => {
                o.format = match it.next().map(String::as_str) {
                    Some("json") => Format::Json,
                    Some("table") => Format::Table,
                    Some(f) => {
                        return Err(Fail(format!("unknown format {f:?}; use json or table")))
                    }
                    None => return Err(Fail("--format needs json or table".into())),
                }
            }
            "--storage-gbps" if ckpt => {
                o.settings.storage_bandwidth = Some(ByteRate::from_gb_per_s(number(a, it.next())?));
            }
            "--node-gbps" if ckpt => {
                o.settings.node_bandwidth = Some(ByteRate::from_gb_per_s(number(a, it.next())?));
            }
            "--failure-rate" if ckpt => {
                o.settings.failure_rate = Some(Frequency::per_year(number(a, it.next())?));
            }
            "--restart-minutes" if ckpt => {
                o.settings.restart_overhead =
                    Some(Seconds::from_secs(60.0 * number(a, it.next())?));
            }
            "--async" if ckpt => o.settings.mode = SaveMode::Async,
            "--own-shards" if ckpt => o.settings.layout = SaveLayout::OwnShards,
            "--baseline" if takes == Takes::Checklist => {
                o.baseline = Some(
                    it.next()
                        .ok_or_else(|| Fail("--baseline needs a plan file".into()))?
                        .clone(),
                );
            }
            "--lang" if takes == Takes::Checklist => {
                o.lang = match it.next().map(String::as_str) {
                    Some("en") => Lang::En,
                    Some("zh") => Lang::Zh,
                    Some(l) => return Err(Fail(format!("unknown language {l:?}; use en or zh"))),
                    None => return Err(Fail("--lang needs en or zh".into())),
                }
            }
            "--serving" if takes == Takes::Wall => o.serving = true,
            "--gpu" if takes == Takes::Wall => {
                let id = it.next().ok_or_else(|| {
                    Fail("--gpu needs a GPU id (see memwall presets gpus)".into())
                })?;
                o.gpu = Some(
                    serde_json::from_value(serde_json::Value::String(id.clone())).map_err(
                        |_| Fail(format!("unknown GPU {id:?}; see memwall presets gpus")),
                    )?,
                );
            }
            f if f.starts_with("--") => return Err(Fail(format!("unknown option {f:?}"))),
            f => o.files.push(f.to_string()),
        }
    }
    Ok(o)
}

fn one_file(files: &[String], what: &str) -> Result<String, Fail> {
    match files {
        [f] => Ok(f.clone()),
        [] => Err(Fail(what.to_string())),
        [_, extra, ..] => Err(Fail(format!("unexpected argument {extra:?}"))),
    }
}

/// Reads a plan and refuses one that is invalid.
fn valid_plan(file: &str) -> Result<Plan, Fail> {
    let text = read_input(file)?;
    let plan = Plan::from_json(&text).map_err(|e| Fail(format!("invalid plan {file}: {e}")))?;
    let r = evaluate(&plan);
    if r.verdict == Verdict::Invalid {
        return Err(Fail(format!(
            "invalid plan {file}: {}",
            plan_errors(&r.diagnostics)
        )));
    }
    Ok(plan)
}

fn print_json(json: String) {
    println!("{json}");
}

/// `memwall tenants JOBS`: exit 0 when every job is placed, 1 otherwise.
pub fn tenants(rest: &[String]) -> Result<ExitCode, Fail> {
    let o = parse(rest, Takes::FormatOnly)?;
    let file = one_file(&o.files, "tenants needs a jobs file, or - for stdin")?;
    let text = read_input(&file)?;
    let sharing = Sharing::from_json(&text).map_err(|e| Fail(format!("invalid jobs file: {e}")))?;
    if sharing.pool.gpus == 0 {
        return Err(Fail(
            "invalid jobs file: pool.gpus must be at least 1".into(),
        ));
    }
    let r = share(&sharing);
    match o.format {
        Format::Json => print_json(r.to_json()),
        Format::Table => print!("{}", ops_view::render_sharing(&r)),
    }
    Ok(if r.jobs.iter().all(|j| j.placed) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `memwall checkpoint PLAN`.
pub fn checkpoint(rest: &[String]) -> Result<ExitCode, Fail> {
    let o = parse(rest, Takes::Checkpoint)?;
    let file = one_file(&o.files, "checkpoint needs a plan file, or - for stdin")?;
    let plan = valid_plan(&file)?;
    let c = make_checkpoint(&plan, &o.settings);
    if let Some(d) = c
        .diagnostics
        .iter()
        .find(|d| d.detail == DiagnosticKind::NotATrainingPlan)
    {
        return Err(Fail(format!("{file}: {}", d.message)));
    }
    if let Some(d) = c.diagnostics.iter().find(|d| d.severity == Severity::Error) {
        return Err(Fail(format!("{file}: {}", d.message)));
    }
    match o.format {
        Format::Json => print_json(c.to_json()),
        Format::Table => print!("{}", ops_view::render_checkpoint(&c)),
    }
    Ok(ExitCode::SUCCESS)
}

/// `memwall checklist PLAN [--baseline BASE] [--lang zh]`.
pub fn checklist(rest: &[String]) -> Result<ExitCode, Fail> {
    let o = parse(rest, Takes::Checklist)?;
    if o.files.iter().any(|f| f == "-") && o.baseline.as_deref() == Some("-") {
        return Err(Fail("stdin (-) can be read only once".into()));
    }
    let file = one_file(&o.files, "checklist needs a plan file, or - for stdin")?;
    let plan = valid_plan(&file)?;
    let c = match &o.baseline {
        Some(b) => make_checklist(&plan, &valid_plan(b)?, &o.settings),
        None => checklist_from_plain(&plan, &o.settings),
    };
    match o.format {
        Format::Json => print_json(c.to_json()),
        Format::Table => print!("{}", ops_view::render_checklist(&c, o.lang)),
    }
    Ok(ExitCode::SUCCESS)
}

/// `memwall wall [--serving] [--gpu ID]`.
pub fn wall(rest: &[String]) -> Result<ExitCode, Fail> {
    let o = parse(rest, Takes::Wall)?;
    if let Some(extra) = o.files.first() {
        return Err(Fail(format!("unexpected argument {extra:?}")));
    }
    let template = if o.serving {
        serving_template()
    } else {
        training_template()
    };
    let gpu = GpuChoice::Preset(o.gpu.unwrap_or(GpuId::H100Sxm));
    let w = make_wall(&template, &gpu);
    match o.format {
        Format::Json => print_json(w.to_json()),
        Format::Table => print!("{}", ops_view::render_wall(&w)),
    }
    Ok(ExitCode::SUCCESS)
}
