//! The commands about running a plan: `tenants`, `checkpoint`, `checklist`
//! and `wall`. Reading inputs and printing only; the arguments are parsed
//! in `args.rs`.

use crate::args;
use crate::ops_view;
use crate::{plan_errors, read_input, Fail, Format};
use planner_core::catalog::GpuId;
use planner_core::checklist::{checklist as make_checklist, checklist_from_plain};
use planner_core::checkpoint::checkpoint as make_checkpoint;
use planner_core::hardware::GpuChoice;
use planner_core::tenants::{share, Sharing};
use planner_core::wall::{serving_template, training_template, wall as make_wall};
use planner_core::{evaluate, DiagnosticKind, Plan, Severity, Verdict};
use std::process::ExitCode;

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
    crate::io::emit(&format!("{json}\n"));
}

/// `memwall tenants JOBS`: exit 0 when every job is placed, 1 otherwise.
pub fn tenants(file: &str, format: Format) -> Result<ExitCode, Fail> {
    let text = read_input(file)?;
    let sharing = Sharing::from_json(&text).map_err(|e| Fail(format!("invalid jobs file: {e}")))?;
    if let Some(d) = sharing.problems().first() {
        return Err(Fail(format!("invalid jobs file: {}", d.message)));
    }
    if sharing.pool.gpus > planner_core::tenants::MAX_POOL_GPUS {
        return Err(Fail(format!(
            "invalid jobs file: pool.gpus: {} is more than the {} a pool is laid out on",
            sharing.pool.gpus,
            planner_core::tenants::MAX_POOL_GPUS
        )));
    }
    let r = share(&sharing);
    match format {
        Format::Json => print_json(r.to_json()),
        Format::Table => crate::io::emit(&ops_view::render_sharing(&r)),
    }
    Ok(if r.jobs.iter().all(|j| j.placed) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `memwall checkpoint PLAN`.
pub fn checkpoint(a: &args::Checkpoint) -> Result<ExitCode, Fail> {
    let file = &a.file;
    let plan = valid_plan(file)?;
    let c = make_checkpoint(&plan, &a.settings.settings());
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
    match a.format.format {
        Format::Json => print_json(c.to_json()),
        Format::Table => crate::io::emit(&ops_view::render_checkpoint(&c)),
    }
    Ok(ExitCode::SUCCESS)
}

/// `memwall checklist PLAN [--baseline BASE] [--lang zh]`.
pub fn checklist(a: &args::Checklist) -> Result<ExitCode, Fail> {
    if a.file == "-" && a.baseline.as_deref() == Some("-") {
        return Err(Fail("stdin (-) can be read only once".into()));
    }
    let plan = valid_plan(&a.file)?;
    let settings = a.settings.settings();
    let c = match &a.baseline {
        Some(b) => make_checklist(&plan, &valid_plan(b)?, &settings),
        None => checklist_from_plain(&plan, &settings),
    };
    match a.format.format {
        Format::Json => print_json(c.to_json()),
        Format::Table => crate::io::emit(&ops_view::render_checklist(&c, a.lang.into())),
    }
    Ok(ExitCode::SUCCESS)
}

/// `memwall wall [--serving] [--gpu ID]`.
pub fn wall(a: &args::Wall) -> Result<ExitCode, Fail> {
    let template = if a.serving {
        serving_template()
    } else {
        training_template()
    };
    let gpu = GpuChoice::Preset(a.gpu.unwrap_or(GpuId::H100Sxm));
    let w = make_wall(&template, &gpu);
    match a.format.format {
        Format::Json => print_json(w.to_json()),
        Format::Table => crate::io::emit(&ops_view::render_wall(&w)),
    }
    Ok(ExitCode::SUCCESS)
}
