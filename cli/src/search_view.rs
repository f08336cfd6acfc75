//! Plain-text views of search results and plan comparisons. Views only:
//! every number comes from `planner-core`.

use crate::table::{diagnostics, maybe, secs};
use planner_core::diff::Impact;
use planner_core::plan::{
    AttentionKernel, Checkpointing, Offload, OffloadTarget, PipelineSchedule, Plan,
    SequenceParallel, Sharding, Tier, Workload,
};
use planner_core::report::Verdict;
use planner_core::search::{Figures, Found, SearchResult, Speed};
use planner_core::{Lang, Named};
use std::fmt::Write;

/// Thousands separators: 7,228,560.
fn count(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn sharding(s: Sharding) -> &'static str {
    match s {
        Sharding::None => "no ZeRO",
        Sharding::Zero1 => "ZeRO-1",
        Sharding::Zero2 => "ZeRO-2",
        Sharding::Zero3 => "ZeRO-3",
        Sharding::FsdpFullShard => "FSDP full",
        Sharding::FsdpShardGradOp => "FSDP grad-op",
        Sharding::FsdpShardGradOpNoSync => "FSDP grad-op no_sync",
    }
}

fn checkpointing(c: Checkpointing) -> String {
    match c {
        Checkpointing::None => "no recompute".into(),
        Checkpointing::Selective => "selective".into(),
        Checkpointing::Full => "full recompute".into(),
        Checkpointing::Uniform { group } => format!("recompute/{group}"),
        Checkpointing::Block { layers } => format!("recompute {layers} layers"),
    }
}

fn offload(o: &Offload) -> String {
    let mut parts = Vec::new();
    let mut add = |name: &str, t: Option<OffloadTarget>| {
        if let Some(t) = t.filter(|t| t.tier != Tier::Hbm && t.fraction > 0.0) {
            if t.fraction >= 1.0 {
                parts.push(format!("{name}→{}", t.tier.en()));
            } else {
                parts.push(format!("{name} {:.0}%→{}", t.fraction * 100.0, t.tier.en()));
            }
        }
    };
    add("opt", o.optimizer);
    add("params", o.parameters);
    add("grads", o.gradients);
    add("acts", o.activations);
    add("KV", o.kv_cache);
    add("experts", o.experts);
    if parts.is_empty() {
        "no offload".into()
    } else {
        parts.join(" ")
    }
}

/// The levers of a plan on one line: degrees, batch, schedule, sharding,
/// checkpointing, offload, formats.
pub fn levers(plan: &Plan) -> String {
    let l = &plan.levers;
    let p = &l.parallel;
    let mut o = format!("TP{} PP{} DP{}", p.tp, p.pp, p.dp);
    if p.cp > 1 {
        let _ = write!(o, " CP{}", p.cp);
    }
    if p.ep > 1 {
        let _ = write!(o, " EP{}", p.ep);
    }
    if p.sequence_parallel == SequenceParallel::On && p.tp > 1 {
        o.push_str(" SP");
    }
    match &plan.workload {
        Workload::Training(_) => {
            let _ = write!(o, ", mb {}", p.micro_batch);
            if p.pp > 1 {
                match p.schedule {
                    PipelineSchedule::OneFOneB => o.push_str(", 1F1B"),
                    PipelineSchedule::Interleaved { chunks } => {
                        let _ = write!(o, ", interleaved×{chunks}");
                    }
                    PipelineSchedule::Gpipe => o.push_str(", GPipe"),
                    PipelineSchedule::DualPipeV => o.push_str(", DualPipeV"),
                }
            }
            let _ = write!(
                o,
                ", {}, {}",
                sharding(l.sharding),
                checkpointing(l.checkpointing)
            );
            let _ = write!(o, ", {}", offload(&l.offload));
            let _ = write!(o, ", {} GEMMs", l.precision.compute.label());
        }
        Workload::Inference(i) => {
            let _ = write!(o, ", batch {}", i.batch);
            let _ = write!(
                o,
                ", weights {}, KV {}",
                l.precision.weights.label(),
                l.precision.kv_cache.label()
            );
            let _ = write!(o, ", {}", offload(&l.offload));
        }
    }
    if l.attention != AttentionKernel::Flash {
        let _ = write!(o, ", {} attention", l.attention.key());
    }
    o
}

fn hardware(plan: &Plan, f: &Figures) -> String {
    let hw = &plan.hardware;
    let mut o = format!("{}× {}", f.gpus, f.gpu);
    if hw.scale_up_domain > hw.gpus_per_node {
        let _ = write!(o, " (NVLink domain {})", hw.scale_up_domain);
    }
    if let Some(x) = hw.cxl {
        let _ = write!(o, " + {} CXL expander(s)/node", x.devices_per_node);
    }
    o
}

fn speed(s: &Speed) -> String {
    match s {
        Speed::Training {
            step,
            mfu,
            tokens_per_second,
        } => format!(
            "step {}, {:.0} tok/s, MFU {:.1}%",
            secs(*step),
            tokens_per_second,
            mfu * 100.0
        ),
        Speed::Inference {
            ttft,
            tpot,
            tokens_per_second,
        } => format!(
            "TTFT {}, TPOT {}, {:.0} tok/s",
            secs(*ttft),
            secs(*tpot),
            tokens_per_second
        ),
    }
}

fn found(o: &mut String, label: &str, f: &Found) {
    let fig = &f.figures;
    let _ = writeln!(
        o,
        "  {label:<18} {:<12} {}  {}/M tok  {}/h  HBM margin {}",
        f.family.en(),
        speed(&fig.speed),
        maybe(fig.usd_per_million_tokens),
        maybe(fig.usd_per_hour),
        fig.hbm_margin
    );
    let _ = writeln!(
        o,
        "  {:<18} {:<12} {}: {}",
        "",
        "",
        hardware(&f.plan, fig),
        levers(&f.plan)
    );
    changes(o, f);
}

/// What changed from the base plan, flagged where it affects model
/// quality or the service level.
fn changes(o: &mut String, f: &Found) {
    if f.changes.is_empty() {
        return;
    }
    let listed: Vec<String> = f
        .changes
        .iter()
        .map(|c| match c.impact {
            Impact::None => c.describe(Lang::En),
            flag => format!("{} [{}]", c.describe(Lang::En), flag.en()),
        })
        .collect();
    let _ = writeln!(o, "  {:<18} {:<12} changed: {}", "", "", listed.join("; "));
}

/// A readable summary of a search.
pub fn render_search(r: &SearchResult) -> String {
    let mut o = String::new();
    let c = &r.counts;
    let _ = writeln!(o, "scenario  {}", r.scenario);
    let counts: Vec<String> = c.gpu_counts.iter().map(u32::to_string).collect();
    let mut walked = Vec::new();
    if c.frameworks > 1 {
        walked.push(format!("{} training frameworks", c.frameworks));
    }
    if c.attention_kernels > 1 {
        walked.push(format!("{} attention kernels", c.attention_kernels));
    }
    let options = if walked.is_empty() {
        format!("{} hardware option(s)", c.hardware_options)
    } else {
        format!(
            "{} option(s): hardware × {}",
            c.hardware_options,
            walked.join(" × ")
        )
    };
    let _ = writeln!(
        o,
        "searched  {} valid plans: {options} × GPU counts {{{}}}",
        count(c.combinations),
        counts.join(", ")
    );
    let _ = writeln!(
        o,
        "          {} evaluated ({} skipped after a batch that did not fit, {} on idle CXL), {} fit, {} meet the constraints",
        count(c.evaluated),
        count(c.pruned_after_non_fit),
        count(c.pruned_idle_cxl),
        count(c.fitting),
        count(c.feasible)
    );
    if c.unsupported > 0 {
        let stack = match r.baseline.as_ref().and_then(|b| b.plan.training_stack()) {
            Some(_) if c.frameworks > 1 => "their training framework",
            Some(s) => s.en(),
            None => "the training stack",
        };
        let _ = writeln!(
            o,
            "          {} left out: levers {stack} cannot run (sharding, pipeline or offload it does not offer)",
            count(c.unsupported)
        );
    }
    if !r.unpriced.is_empty() {
        let _ = writeln!(o, "unpriced  {} (no $ figures)", r.unpriced.join(", "));
    }
    if let Some(b) = &r.baseline {
        let _ = writeln!(o);
        found(&mut o, "baseline", b);
    }
    let _ = writeln!(
        o,
        "\nfrontier: no other plan is both cheaper and faster (cheapest first)"
    );
    if r.frontier.is_empty() {
        let _ = writeln!(o, "  (no plan fits and meets the constraints)");
    }
    for (i, f) in r.frontier.iter().enumerate() {
        found(&mut o, &format!("#{}", i + 1), f);
    }
    let _ = writeln!(o, "\ncheapest of each kind of change");
    for (label, f) in [
        ("algorithmic", &r.best.algorithmic),
        ("hardware", &r.best.hardware),
        ("hybrid", &r.best.hybrid),
    ] {
        match f {
            Some(f) => found(&mut o, label, f),
            None => {
                let _ = writeln!(o, "  {label:<18} none");
            }
        }
    }
    let _ = writeln!(o, "\nanswers");
    if let Some(f) = &r.fewest_gpus {
        found(&mut o, "fewest GPUs", f);
    }
    for (i, f) in r.by_gpu_kind.iter().enumerate() {
        let label = if i == 0 {
            "cheapest GPU kind"
        } else {
            "next GPU kind"
        };
        found(&mut o, label, f);
    }
    if let Some(f) = &r.largest_batch {
        found(&mut o, "largest batch", f);
    }
    if let Some(f) = &r.longest_context {
        found(&mut o, &format!("longest ctx {}", f.figures.max_context), f);
    }
    diagnostics(&mut o, &r.diagnostics);
    o
}

/// Plans side by side, one column each.
pub fn render_compare(names: &[String], figures: &[Figures], plans: &[Plan]) -> String {
    let mut t = Columns::new(names);
    t.row("plan", names.to_vec());
    fit_rows(&mut t, figures);
    speed_rows(&mut t, figures);
    economy_rows(&mut t, figures);
    let mut o = t.out;
    lever_lines(&mut o, names, plans);
    o
}

/// A table with a label column and one right-aligned column per plan, as
/// wide as the longest plan name (18 to 40 characters).
struct Columns {
    out: String,
    width: usize,
}

impl Columns {
    fn new(names: &[String]) -> Self {
        let width = names
            .iter()
            .map(|n| n.chars().count())
            .chain([18])
            .max()
            .unwrap_or(18)
            .min(40);
        Self {
            out: String::new(),
            width,
        }
    }

    fn row(&mut self, label: &str, cells: Vec<String>) {
        let width = self.width;
        let _ = write!(self.out, "{label:<16}");
        for c in cells {
            let _ = write!(self.out, " {c:>width$}");
        }
        let _ = writeln!(self.out);
    }
}

/// GPUs, verdict and HBM margin.
fn fit_rows(t: &mut Columns, figures: &[Figures]) {
    t.row(
        "GPUs",
        figures
            .iter()
            .map(|f| format!("{}× {}", f.gpus, short(&f.gpu)))
            .collect(),
    );
    t.row(
        "verdict",
        figures
            .iter()
            .map(|f| {
                match f.verdict {
                    Verdict::Fits => "fits",
                    Verdict::DoesNotFit => "DOES NOT FIT",
                    Verdict::Invalid => "INVALID",
                }
                .to_string()
            })
            .collect(),
    );
    t.row(
        "HBM margin",
        figures.iter().map(|f| f.hbm_margin.to_string()).collect(),
    );
}

/// Step and MFU when any plan trains, TTFT and TPOT when any serves; a
/// plan of the other kind shows a dash.
fn speed_rows(t: &mut Columns, figures: &[Figures]) {
    let training = figures
        .iter()
        .any(|f| matches!(f.speed, Speed::Training { .. }));
    let serving = figures
        .iter()
        .any(|f| matches!(f.speed, Speed::Inference { .. }));
    let pick = |g: &dyn Fn(&Speed) -> Option<String>| -> Vec<String> {
        figures
            .iter()
            .map(|f| g(&f.speed).unwrap_or_else(|| "—".into()))
            .collect()
    };
    if training {
        t.row(
            "step",
            pick(&|s| match s {
                Speed::Training { step, .. } => Some(secs(*step)),
                _ => None,
            }),
        );
        t.row(
            "MFU",
            pick(&|s| match s {
                Speed::Training { mfu, .. } => Some(format!("{:.1}%", mfu * 100.0)),
                _ => None,
            }),
        );
    }
    if serving {
        t.row(
            "TTFT",
            pick(&|s| match s {
                Speed::Inference { ttft, .. } => Some(secs(*ttft)),
                _ => None,
            }),
        );
        t.row(
            "TPOT",
            pick(&|s| match s {
                Speed::Inference { tpot, .. } => Some(secs(*tpot)),
                _ => None,
            }),
        );
    }
}

/// Throughput, prices, limits and the migration class.
fn economy_rows(t: &mut Columns, figures: &[Figures]) {
    t.row(
        "tokens/s",
        figures
            .iter()
            .map(|f| format!("{:.0}", f.speed.tokens_per_second()))
            .collect(),
    );
    t.row(
        "$/hour",
        figures.iter().map(|f| maybe(f.usd_per_hour)).collect(),
    );
    t.row(
        "$/M tokens",
        figures
            .iter()
            .map(|f| maybe(f.usd_per_million_tokens))
            .collect(),
    );
    t.row(
        "max batch",
        figures.iter().map(|f| f.max_batch.to_string()).collect(),
    );
    t.row(
        "max context",
        figures.iter().map(|f| f.max_context.to_string()).collect(),
    );
    t.row(
        "migration",
        figures
            .iter()
            .map(|f| f.migration.label().to_string())
            .collect(),
    );
}

/// Each plan's levers on a line of its own.
fn lever_lines(o: &mut String, names: &[String], plans: &[Plan]) {
    let _ = writeln!(o, "\nlevers (migration is counted from the first plan)");
    for (n, p) in names.iter().zip(plans) {
        let _ = writeln!(o, "  {n}: {}", levers(p));
    }
}

/// A GPU name without the vendor: "A100 SXM4 80GB".
fn short(name: &str) -> String {
    name.trim_start_matches("NVIDIA ")
        .trim_start_matches("AMD ")
        .to_string()
}
