//! Plain-text views of running a plan: shared pools, checkpoints and
//! failures, migration checklists, and the wall over time. Views only:
//! every number comes from `planner-core`.

use crate::table::diagnostics;
use planner_core::catalog::{self, Provenance};
use planner_core::checklist::{Category, Checklist};
use planner_core::checkpoint::{CheckpointReport, SaveLayout, SaveMode, StorageBound, WriteStep};
use planner_core::tenants::{
    GpuState, GpuUse, JobKind, JobPlacement, Share, ShareMode, SharingResult,
};
use planner_core::units::{Bytes, Seconds};
use planner_core::wall::WallSeries;
use planner_core::workspace::Lang;
use planner_core::Named;
use std::fmt::Write;

fn gb(b: Bytes) -> String {
    format!("{:.2} GB", b.as_gb())
}

fn duration(s: Seconds) -> String {
    let v = s.as_secs();
    if !v.is_finite() {
        "n/a".into()
    } else if v < 120.0 {
        format!("{v:.1} s")
    } else if v < 2.0 * 3600.0 {
        format!("{:.1} min", v / 60.0)
    } else if v < 3.0 * 86_400.0 {
        format!("{:.1} h", v / 3600.0)
    } else {
        format!("{:.1} days", v / 86_400.0)
    }
}

fn share_label(s: &Option<Share>) -> String {
    match s {
        Some(Share::Mig { profile, .. }) => format!("MIG {profile}"),
        Some(Share::Cap { fraction }) => format!("cap {:.0}%", fraction * 100.0),
        Some(Share::Whole) => "whole".into(),
        None => "-".into(),
    }
}

fn mode(m: ShareMode) -> &'static str {
    match m {
        ShareMode::Mig => "MIG slices",
        ShareMode::MemoryCap => "per-process memory caps",
        ShareMode::Exclusive => "whole GPUs",
    }
}

/// The placement table of a shared pool.
pub fn render_sharing(r: &SharingResult) -> String {
    let mut o = String::new();
    pool_heading(&mut o, r);
    job_table(&mut o, &r.jobs);
    gpu_lines(&mut o, &r.gpus);
    diagnostics(&mut o, &r.diagnostics);
    o
}

/// The pool, how it is shared and how many jobs it placed.
fn pool_heading(o: &mut String, r: &SharingResult) {
    let _ = writeln!(
        o,
        "pool     {} × {}, {}, packed first-fit decreasing",
        r.pool_gpus,
        r.gpu,
        mode(r.mode)
    );
    let _ = writeln!(
        o,
        "placed   {} of {} jobs on {} GPUs ({} GPUs without sharing)\n",
        r.placed,
        r.jobs.len(),
        r.gpus_used,
        r.gpus_without_sharing
    );
}

/// One row per job: its share, its GPUs, its memory and how it runs there.
fn job_table(o: &mut String, jobs: &[JobPlacement]) {
    let _ = writeln!(
        o,
        "{:<28} {:<9} {:<12} {:<8} {:>5} {:>9} {:>9} {:>9}  running",
        "job", "kind", "share", "gpus", "start", "cap GiB", "peak GiB", "spare GiB"
    );
    for j in jobs {
        let kind = match j.kind {
            JobKind::Training => "training",
            JobKind::FineTuning => "fine-tune",
            JobKind::Serving => "serving",
        };
        let gpus = if j.placed {
            j.gpus
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(",")
        } else {
            "NOT PLACED".into()
        };
        let start = j.mig_start.map_or("-".into(), |s| s.to_string());
        let name: String = j.job.chars().take(28).collect();
        let _ = writeln!(
            o,
            "{:<28} {:<9} {:<12} {:<8} {:>5} {:>9.2} {:>9.2} {:>9.2}  {}",
            name,
            kind,
            share_label(&j.share),
            gpus,
            start,
            j.capacity.as_gib(),
            j.peak.as_gib(),
            j.headroom.as_gib(),
            running(j)
        );
    }
}

/// How a placed job runs on its share: serving latency and throughput, or
/// the training step and its slowdown.
fn running(j: &JobPlacement) -> String {
    match (&j.serving, &j.training) {
        (Some(s), _) => format!(
            "batch {}/{}, TTFT {:.0} ms, TPOT {:.1} ms, {:.0} tok/s ({:.0}% kept){}",
            s.batch,
            s.requested_batch,
            s.ttft.as_millis(),
            s.tpot.as_millis(),
            s.tokens_per_second,
            s.throughput_kept * 100.0,
            if s.slo_met { "" } else { ", misses SLO" }
        ),
        (_, Some(t)) => format!(
            "step {:.3} s ({:.2}× whole GPUs)",
            t.step.as_secs(),
            t.slowdown
        ),
        _ => String::new(),
    }
}

/// One line per GPU of the pool: what is allotted, what peaks, who is on it.
fn gpu_lines(o: &mut String, gpus: &[GpuUse]) {
    let _ = writeln!(o, "\ngpus");
    for g in gpus {
        let what = match &g.state {
            GpuState::Free => "free".to_string(),
            GpuState::Whole { .. } => format!("whole: {}", g.jobs.join(", ")),
            GpuState::Mig { compute_used, .. } => format!(
                "MIG ({compute_used}/7 compute slices): {}",
                g.jobs.join(", ")
            ),
            GpuState::Capped { caps } => format!(
                "caps {}%: {}",
                caps.iter().map(|c| c.1).sum::<u32>(),
                g.jobs.join(", ")
            ),
        };
        let _ = writeln!(
            o,
            "  {:>3} (node {})  allotted {:>7.2} of {:.2} GiB, peaks {:>7.2} GiB  {}",
            g.index,
            g.node,
            g.allotted.as_gib(),
            g.capacity.as_gib(),
            g.peak.as_gib(),
            what
        );
    }
}

/// The checkpoint and failure figures.
pub fn render_checkpoint(c: &CheckpointReport) -> String {
    let mut o = String::new();
    checkpoint_size(&mut o, c);
    checkpoint_writers(&mut o, c);
    save_and_restore(&mut o, c);
    failures_and_goodput(&mut o, c);
    diagnostics(&mut o, &c.diagnostics);
    o
}

/// The plan, the size of a checkpoint and what a restore reads.
fn checkpoint_size(o: &mut String, c: &CheckpointReport) {
    let _ = writeln!(
        o,
        "plan        {}  ({} GPUs, {} node{})",
        c.plan,
        c.gpus,
        c.nodes,
        if c.nodes == 1 { "" } else { "s" }
    );
    let s = &c.size;
    let _ = writeln!(
        o,
        "checkpoint  {} of unique states: weights {}, master {}, optimizer {}, adapters {}",
        gb(s.total),
        gb(s.weights),
        gb(s.master),
        gb(s.optimizer),
        gb(s.adapters)
    );
    if c.restore_bytes.base() > s.total.base() {
        let _ = writeln!(
            o,
            "            a restore also reads the frozen base: {} in all",
            gb(c.restore_bytes)
        );
    }
}

/// What each rank holds and writes, and from which tier.
fn checkpoint_writers(o: &mut String, c: &CheckpointReport) {
    let layout = match c.layout {
        SaveLayout::Balanced => "replicas written once, spread over ranks",
        SaveLayout::OwnShards => "each rank writes what it holds",
    };
    let _ = writeln!(
        o,
        "per rank    holds {} of states; writes {} ({layout}); busiest node writes {}",
        gb(c.held_per_rank),
        gb(c.written_per_rank),
        gb(c.written_per_node)
    );
    for t in &c.tiers {
        let step = match t.step {
            WriteStep::StageThroughHost => "staged through host memory",
            WriteStep::Direct => "written from there directly",
            WriteStep::ReadFromNvme => "read from NVMe, then written",
        };
        let _ = writeln!(
            o,
            "  {:<10} holds {}, writes {}, {step}",
            t.tier.en(),
            gb(t.held),
            gb(t.written)
        );
    }
}

/// Storage bandwidth, the time to save and what it stalls, the time to
/// restore.
fn save_and_restore(o: &mut String, c: &CheckpointReport) {
    let _ = writeln!(
        o,
        "storage     {:.2} GB/s aggregate, {:.1} GB/s per node, {} saves",
        c.storage_bandwidth.as_gb_per_s(),
        c.node_bandwidth.as_gb_per_s(),
        match c.mode {
            SaveMode::Blocking => "blocking",
            SaveMode::Async => "asynchronous",
        }
    );
    let _ = writeln!(
        o,
        "save        stage {} + persist {} ({}-bound); training stalls {} per checkpoint",
        duration(c.stage),
        duration(c.persist),
        match c.bound {
            StorageBound::Aggregate => "storage",
            StorageBound::PerNode => "node-link",
        },
        duration(c.stall)
    );
    let _ = writeln!(
        o,
        "restore     {} (relaunch, read, copy back)",
        duration(c.restore)
    );
}

/// Interruptions, the checkpoint interval, goodput and the time to train.
fn failures_and_goodput(o: &mut String, c: &CheckpointReport) {
    let _ = writeln!(
        o,
        "failures    {:.3} interruptions per GPU-year: MTBI {} on {} GPUs, {:.2} per day",
        c.failure_rate.as_per_year(),
        duration(c.mtbi),
        c.gpus,
        c.interruptions_per_day
    );
    let steps = c
        .steps_per_interval
        .map_or(String::new(), |s| format!(", every {s:.0} steps"));
    let _ = writeln!(
        o,
        "interval    {} (Young {}, Daly {}){steps}",
        duration(c.interval),
        duration(c.interval_young),
        duration(c.interval_daly)
    );
    let _ = writeln!(
        o,
        "goodput     {:.2} %; {:.1} GPU-hours lost per day",
        c.goodput * 100.0,
        c.lost_gpu_hours_per_day.as_gpu_hours()
    );
    if let (Some(t), Some(f)) = (c.time_to_train, c.time_to_train_with_failures) {
        let _ = writeln!(
            o,
            "train time  {} without failures, {} with them",
            duration(t),
            duration(f)
        );
    }
}

/// A checklist in one language, grouped by category.
pub fn render_checklist(c: &Checklist, lang: Lang) -> String {
    let mut o = String::new();
    let (plan, base, class, weeks, because) = match lang {
        Lang::En => (
            "plan",
            "against",
            "change",
            "person-weeks (assumed)",
            "because",
        ),
        Lang::Zh => ("方案", "对照", "变更类型", "人周（假设值）", "原因"),
    };
    let baseline = match (c.plain_baseline, lang) {
        (true, Lang::En) => "plain data parallelism on the same GPUs".to_string(),
        (true, Lang::Zh) => "同一批 GPU 上的普通数据并行".to_string(),
        (false, _) => c.baseline.clone(),
    };
    let migration = c.migration.name(lang);
    let _ = writeln!(o, "{plan}: {}", c.plan);
    let _ = writeln!(o, "{base}: {baseline}");
    let _ = writeln!(o, "{class}: {migration}   {weeks}: {:.1}", c.person_weeks);
    for cat in Category::ALL {
        let items: Vec<_> = c.of(cat).collect();
        if items.is_empty() {
            continue;
        }
        let _ = writeln!(o, "\n{}", cat.label(lang));
        for i in items {
            let _ = writeln!(o, "  [ ] {}", i.text.get(lang));
            let sep = if lang == Lang::Zh { "：" } else { ": " };
            let _ = writeln!(o, "      {because}{sep}{}", i.reason.get(lang));
        }
    }
    o
}

fn tag(p: Provenance) -> &'static str {
    match p {
        Provenance::Verified => "V",
        Provenance::VerifiedCopy => "V*",
        Provenance::Computed => "C",
        Provenance::Secondary => "S",
        Provenance::Recalled => "R",
        Provenance::Assumed => "A",
    }
}

/// The wall's series as two tables.
pub fn render_wall(w: &WallSeries) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "template  {}", w.plan);
    let _ = writeln!(o, "gpu       {}\n", w.gpu);
    let _ = writeln!(
        o,
        "{:<26} {:>7} {:>10} {:>12} {:>9}  [provenance] source",
        "model", "date", "params B", "one GPU GB", "min GPUs"
    );
    for m in &w.models {
        let _ = writeln!(
            o,
            "{:<26} {:>4}-{:02} {:>10.1} {:>12.1} {:>9}  [{}] {}",
            m.name,
            m.date.year,
            m.date.month,
            m.published_params / 1e9,
            m.one_gpu.as_gb(),
            m.min_gpus.map_or("-".into(), |n| n.to_string()),
            tag(m.provenance),
            m.source
        );
    }
    let _ = writeln!(
        o,
        "\n{:<26} {:>7} {:>10}  [provenance] source",
        "gpu", "date", "GB"
    );
    for g in &w.gpus {
        let _ = writeln!(
            o,
            "{:<26} {:>4}-{:02} {:>10.0}  [{}] {}",
            g.name,
            g.date.year,
            g.date.month,
            g.capacity.as_gb(),
            tag(g.provenance),
            g.source
        );
    }
    o
}

/// The MIG catalog.
pub fn mig() -> String {
    let mut o = String::from(
        "mig (gpus, profiles as name compute/7 memory/8 max-instances, [provenance] source)\n",
    );
    for e in catalog::MIG {
        let gpus: Vec<String> = e
            .gpus
            .iter()
            .map(|g| {
                serde_json::to_value(g)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default()
            })
            .collect();
        let profiles: Vec<String> = e
            .profiles
            .iter()
            .map(|p| {
                format!(
                    "{} {}/{} ×{}",
                    p.name, p.compute_slices, p.memory_slices, p.max_instances
                )
            })
            .collect();
        let _ = writeln!(
            o,
            "  {:<40} {}  [{}] {}",
            gpus.join(", "),
            profiles.join("; "),
            tag(e.provenance),
            e.source
        );
    }
    o
}
