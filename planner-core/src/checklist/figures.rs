//! Items every plan gets from its own figures: its fit, its memory cap,
//! its serving engine, its memory alerts and its checkpoints.

use super::{draft, t, Category as C, Draft};
use crate::checkpoint::{self, CheckpointSettings};
use crate::plan::{KvCacheLayout, Plan, Tier, TrainingKind, Workload};
use crate::report::{Report, Verdict};
use crate::units::{significant, Bytes};

/// A time in hours as hours, or days from 48 hours up, with the one number
/// format: `12.5 h`, `264 d` (issue 15: "6334.6 小时").
fn hours(h: f64, hour: &str, day: &str) -> String {
    if h.abs() >= 48.0 {
        format!("{} {}", significant(h / 24.0), day.trim_start())
    } else {
        format!("{} {}", significant(h), hour.trim_start())
    }
}

/// Items every plan gets from its own figures.
pub(super) fn plan_items(plan: &Plan, report: &Report, ckpt: &CheckpointSettings) -> Vec<Draft> {
    let mut items = fit_items(report);
    items.extend(cap_items(plan));
    items.extend(serving_items(plan, report));
    items.push(memory_item(plan, report));
    items.push(oom_item(report));
    items.extend(checkpoint_items(plan, ckpt));
    items
}

/// A plan that does not fit must be made to fit first.
fn fit_items(report: &Report) -> Vec<Draft> {
    if report.verdict != Verdict::DoesNotFit {
        return Vec::new();
    }
    vec![draft(
        "plan.fit",
        C::CodeChange,
        t(
            "Resolve the over-capacity first: the plan as written does not fit.",
            "先解决容量超限问题：按当前写法，方案放不下。",
        ),
        t(
            format!("HBM margin {} on the most loaded GPU.", report.hbm_margin),
            format!("负载最重的 GPU 上 HBM 余量为 {}。", report.hbm_margin),
        ),
    )]
}

/// A plan under a memory cap: set it, and decide what tenants may share.
fn cap_items(plan: &Plan) -> Vec<Draft> {
    let Some(f) = plan.levers.memory_cap else {
        return Vec::new();
    };
    let pct = f * 100.0;
    vec![
        draft(
            "isolation.cap",
            C::Isolation,
            t(
                format!("Set the per-process cap to {pct:.0} % (torch.cuda.set_per_process_memory_fraction({f:.2}) or vLLM --gpu-memory-utilization {f:.2}) and check the engine version treats it as a per-instance limit (vLLM once treated it as a limit on the whole GPU's use: vllm-project/vllm#9505)."),
                format!("把每个进程的显存上限设为 {pct:.0}%（torch.cuda.set_per_process_memory_fraction({f:.2}) 或 vLLM --gpu-memory-utilization {f:.2}），并确认所用引擎版本把它当作单实例上限（vLLM 曾把它当作整块 GPU 的使用上限：vllm-project/vllm#9505）。"),
            ),
            t(
                "The plan runs under a memory cap, beside other processes on the same GPU.",
                "方案在显存上限下运行，与其他进程共享同一块 GPU。",
            ),
        ),
        draft(
            "isolation.cap_faults",
            C::Isolation,
            t(
                "Decide whether tenants may share faults and compute: a cap limits one caching allocator, not other processes' memory, faults or SMs; use MIG slices where tenants must not affect each other.",
                "判断租户之间能否共享故障域和算力：显存上限只约束单个缓存分配器，不隔离其他进程的显存、故障或 SM；租户之间必须互不影响时应使用 MIG 切片。",
            ),
            t(
                "Capped processes share one GPU.",
                "受上限约束的多个进程共享同一块 GPU。",
            ),
        ),
    ]
}

/// A serving plan: the engine's KV pages where the plan pages, the pool
/// its start-up log should state, and KV alerts, in the engine's words.
fn serving_items(plan: &Plan, report: &Report) -> Vec<Draft> {
    let Some(engine) = super::engine::serving_engine(plan) else {
        return Vec::new();
    };
    let s = super::engine::switches(engine);
    let mut items = Vec::new();
    let paged = matches!(plan.levers.kv_cache, KvCacheLayout::Paged { .. }) || engine.continuous();
    if paged {
        let block = match (report.serving, plan.levers.kv_cache) {
            (Some(sv), _) => sv.profile.block_tokens,
            (None, KvCacheLayout::Paged { block_tokens }) => block_tokens,
            (None, _) => engine.block_tokens(),
        };
        let (en, zh) = s.pages;
        items.push(draft(
            "serving.paged_kv",
            C::FrameworkSupport,
            t(
                format!("Serve with an engine that pages the KV cache ({en} {block}) and size its KV budget from the plan."),
                format!("使用对 KV 缓存分页的推理引擎（{zh} {block}），并按方案设置其 KV 预算。"),
            ),
            t(
                "The plan's KV-cache figures assume paged blocks.",
                "方案中的 KV 缓存数字基于分页块计算。",
            ),
        ));
    }
    items.extend(pool_item(&s, report));
    if let Some(limits) = report.inference {
        let ((en, zh), n) = (s.full_pool, limits.max_batch);
        items.push(draft(
            "monitor.kv",
            C::Monitoring,
            t(
                format!("Alert on KV-cache usage and on what shows a full pool ({en}); the plan allows up to {n} concurrent sequences."),
                format!("对 KV 缓存使用率以及缓存池已满的迹象（{zh}）设置告警；方案最多允许 {n} 条并发序列。"),
            ),
            t(
                "A full KV cache preempts or queues requests instead of failing, which shows only in latency.",
                "KV 缓存满时请求会被抢占或排队而不是报错，问题只会体现在延迟上。",
            ),
        ));
    }
    items
}

/// The KV pool an engine that sizes its own should report at start-up.
fn pool_item(s: &super::engine::Switches, report: &Report) -> Option<Draft> {
    let sv = report.serving?;
    let log = s.pool_log?;
    if sv.profile.pool == crate::engine::KvPoolRule::Leftover {
        return None;
    }
    let (name, memory) = (s.name, s.memory);
    let tokens = sv.kv_capacity_tokens.round();
    Some(draft(
        "serving.kv_pool",
        C::Monitoring,
        t(
            format!("Check that {name}'s start-up log states a KV pool of about {tokens:.0} tokens ({log}); a smaller pool serves fewer requests at once than planned."),
            format!("确认 {name} 启动日志中的 KV 缓存池约为 {tokens:.0} 个 token（{log}）；缓存池更小则同时服务的请求会少于方案。"),
        ),
        t(
            format!("The plan's concurrency and latency rest on that pool per replica, which {memory} sizes."),
            format!("方案的并发与延迟数字都基于每个副本的这一缓存池，其大小由 {memory} 决定。"),
        ),
    ))
}

/// HBM in use and its capacity on the most loaded device (zero without
/// one).
fn hbm_peak(report: &Report) -> (Bytes, Bytes) {
    report
        .binding_device()
        .and_then(|d| d.hbm().map(|t| (t.used, t.capacity)))
        .unwrap_or_default()
}

/// An alert halfway between the predicted peak and the capacity. An
/// engine that reserves its KV pool at start-up sits at its peak from then
/// on, so the alert says so and leaves the allocator's counters out.
fn memory_item(plan: &Plan, report: &Report) -> Draft {
    let (peak, capacity) = hbm_peak(report);
    let threshold = peak + (capacity - peak).max(crate::units::Bytes::ZERO) * 0.5;
    let reserves = report
        .serving
        .is_some_and(|sv| sv.profile.pool != crate::engine::KvPoolRule::Leftover);
    if reserves {
        let s = super::engine::switches(plan.levers.engine);
        let (name, memory) = (s.name, s.memory);
        // The engine's own fraction is the plan's capacity; the alert is
        // halfway to what the device holds.
        let device = plan.hardware.gpu.spec().device_memory();
        let threshold = peak + (device - peak).max(crate::units::Bytes::ZERO) * 0.5;
        return draft(
            "monitor.memory",
            C::Monitoring,
            t(
                format!("Expect device memory in use at about {peak} from start-up on ({name} reserves its KV pool up front, {memory}) and alert when it passes {threshold}: only activations beyond the engine's profiling pass or another process can take more."),
                format!("预计从启动起显存占用即约为 {peak}（{name} 启动时预留 KV 缓存池，{memory}），当占用超过 {threshold} 时告警：只有超出引擎预分析的激活或其他进程才会占用更多。"),
            ),
            t(
                format!("The plan predicts a peak of {peak} of {capacity} on its most loaded GPU."),
                format!("方案预测负载最重的 GPU 峰值为 {peak}（容量 {capacity}）。"),
            ),
        );
    }
    draft(
        "monitor.memory",
        C::Monitoring,
        t(
            format!("Alert when device memory in use passes {threshold} (halfway between the plan's predicted peak {peak} and the capacity {capacity}) and record torch.cuda.max_memory_reserved per step."),
            format!("当显存占用超过 {threshold}（方案预测峰值 {peak} 与容量 {capacity} 的中点）时告警，并逐步记录 torch.cuda.max_memory_reserved。"),
        ),
        t(
            format!("The plan predicts a peak of {peak} of {capacity} on its most loaded GPU."),
            format!("方案预测负载最重的 GPU 峰值为 {peak}（容量 {capacity}）。"),
        ),
    )
}

/// The largest HBM item of the most loaded device, by name, as a sentence
/// in each language (empty without one).
fn largest_item(report: &Report) -> (String, String) {
    let largest = report
        .binding_device()
        .and_then(|d| d.largest_in(Tier::Hbm))
        .map(|i| (i.kind, i.bytes));
    match largest {
        Some((kind, bytes)) => (
            format!(
                " The largest item should be {} at {bytes}.",
                crate::lang::Named::name(kind, crate::lang::Lang::En)
            ),
            {
                let zh = crate::lang::Named::name(kind, crate::lang::Lang::Zh);
                let gap = crate::diagnostics::latin_gap(zh.chars().next());
                format!("最大的一项应为{gap}{zh}，约 {bytes}。")
            },
        ),
        None => (String::new(), String::new()),
    }
}

/// A memory snapshot on every out-of-memory, to compare with the plan.
fn oom_item(report: &Report) -> Draft {
    let (big_en, big_zh) = largest_item(report);
    draft(
        "monitor.oom",
        C::Monitoring,
        t(
            format!("On every out-of-memory, keep a memory snapshot (torch.cuda.memory._record_memory_history, then _dump_snapshot) and compare it with the plan's breakdown.{big_en}"),
            format!("每次显存溢出时保存显存快照（torch.cuda.memory._record_memory_history，随后 _dump_snapshot），并与方案的分项明细对比。{big_zh}"),
        ),
        t(
            "An OOM that the breakdown does not explain points at fragmentation or an unmodelled buffer.",
            "明细无法解释的 OOM 往往指向碎片或未建模的缓冲区。",
        ),
    )
}

/// What a training job's checkpoints hold, in each language.
fn checkpoint_contents(kind: &TrainingKind) -> (&'static str, &'static str) {
    if matches!(kind, TrainingKind::Lora(_) | TrainingKind::Qlora(_)) {
        (
            "the adapters and their optimizer states",
            "适配器及其优化器状态",
        )
    } else {
        (
            "weights, master weights and optimizer states",
            "权重、主权重和优化器状态",
        )
    }
}

/// A training plan: checkpoint at the interval of Daly's model, and
/// rehearse a restore.
fn checkpoint_items(plan: &Plan, ckpt: &CheckpointSettings) -> Vec<Draft> {
    let Workload::Training(tr) = &plan.workload else {
        return Vec::new();
    };
    let c = checkpoint::checkpoint(plan, ckpt);
    let minutes = c.interval.as_secs() / 60.0;
    let steps = c
        .steps_per_interval
        .map(|s| s.floor().max(1.0))
        .unwrap_or(1.0);
    let (what_en, what_zh) = checkpoint_contents(&tr.kind);
    vec![
        draft(
            "monitor.checkpoint",
            C::Monitoring,
            t(
                format!("Save {what_en} ({}) every {minutes:.0} min, that is every {steps:.0} steps, and alert when a save takes much longer than {:.0} s.", c.size.total, c.stall.as_secs()),
                format!("每 {minutes:.0} 分钟（即每 {steps:.0} 步）保存一次{what_zh}（{}），并在单次保存明显超过 {:.0} 秒时告警。", c.size.total, c.stall.as_secs()),
            ),
            t(
                format!("The optimum of Daly's model for a mean time between interruptions of {} on {} GPUs; expected goodput {} %.", hours(c.mtbi.as_hours(), "h", "d"), c.gpus, significant(c.goodput * 100.0)),
                format!("这是 Daly 模型在 {} 块 GPU、平均中断间隔 {}下的最优间隔；预期有效时间占比 {}%。", c.gpus, hours(c.mtbi.as_hours(), " 小时", " 天"), significant(c.goodput * 100.0)),
            ),
        ),
        draft(
            "monitor.restore",
            C::Monitoring,
            t(
                format!("Rehearse a restore from the latest checkpoint and check it completes in about {:.0} min.", c.restore.as_secs() / 60.0),
                format!("演练从最新检查点恢复，并确认约 {:.0} 分钟内完成。", c.restore.as_secs() / 60.0),
            ),
            t(
                "Restarts are part of the expected goodput; an untested restore is where long outages come from.",
                "重启时间计入预期有效时间占比；未经演练的恢复流程往往是长时间中断的根源。",
            ),
        ),
    ]
}
