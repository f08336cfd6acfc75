//! Strings of the results column, the charts, the comparison table and the
//! exports.

use super::{tr, Lang};

/// Keys of the results' strings (each names its string).
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum K {
    Results,
    ResultViews,
    Diagnostics,
    NoProblems,
    ExportJson,
    ExportCsv,
    ExportPng,
    Total,
    Range,
    NotAvailable,
    // Memory chart.
    MemoryTitle,
    GibPerGpu,
    HbmCapacity,
    // Time chart.
    TimeTitle,
    StepTime,
    Ttft,
    Tpot,
    Seconds,
    Milliseconds,
    LogScale,
    PriceAssumed,
    // Frontier chart.
    FrontierTitle,
    LatencyAxis,
    UsdPerMTok,
    GpuHoursPerRun,
    Pareto,
    NotPlaced,
    Unfit,
    // Sweep chart.
    SweepTitle,
    SweepAxis,
    AxisSeqLen,
    AxisBatch,
    AxisModelSize,
    HbmUsed,
    // Comparison table and CSV.
    Plan,
    Family,
    Verdict,
    Margin,
    PeakHbm,
    Latency,
    Throughput,
    Mfu,
    UsdPerHour,
    Migration,
    Effort,
    OneTime,
    Low,
    High,
    EffortNote,
    // Comparison summary.
    SummaryTitle,
    SummaryBest,
    LatencyShort,
    FitsCount,
    OthersFit,
    PersonWeeks,
    OpenPlan,
    MigrationFromBase,
    // Serving figures.
    ServingTitle,
    ServingStreamNote,
    /// The note under the figures when attention-DP ranks ran together.
    ServingLockstepNote,
    ServingNoStream,
    ValidValues,
    // Disaggregated prefill and decode.
    DisaggTitle,
    DisaggNote,
    PoolFit,
}

/// A results string.
pub fn t(lang: Lang, k: K) -> &'static str {
    match k {
        K::Results => tr(lang, "Results", "结果"),
        K::ResultViews => tr(lang, "Result views", "结果视图"),
        K::Diagnostics => tr(lang, "Diagnostics", "诊断"),
        K::NoProblems => tr(lang, "No problems found.", "未发现问题。"),
        K::ExportJson => tr(lang, "Export JSON", "导出 JSON"),
        K::ExportCsv => tr(lang, "Export CSV", "导出 CSV"),
        K::ExportPng => tr(lang, "Save PNG", "保存 PNG"),
        K::Total => tr(lang, "total", "合计"),
        K::Range => tr(lang, "expected range", "预期范围"),
        K::NotAvailable => "—",
        K::MemoryTitle => tr(
            lang,
            "Memory per GPU of the most loaded device, by item and tier",
            "最吃紧设备的每 GPU 显存：按项目与层级",
        ),
        K::GibPerGpu => tr(lang, "GiB per GPU", "每 GPU GiB"),
        K::HbmCapacity => tr(lang, "HBM capacity", "HBM 容量"),
        K::TimeTitle => tr(
            lang,
            "Where the time goes (exposed time, with expected range)",
            "时间花在哪里（未被重叠的时间，含预期范围）",
        ),
        K::StepTime => tr(lang, "Step time", "单步时间"),
        K::Ttft => tr(lang, "Time to first token", "首 token 时间 (TTFT)"),
        K::Tpot => tr(lang, "Time per output token", "每输出 token 时间 (TPOT)"),
        K::Seconds => tr(lang, "seconds", "秒"),
        K::Milliseconds => tr(lang, "milliseconds", "毫秒"),
        K::LogScale => tr(lang, "log scale", "对数刻度"),
        K::PriceAssumed => tr(lang, "price assumed", "价格为假设值"),
        K::FrontierTitle => tr(
            lang,
            "Cost against latency, with the Pareto frontier of plans that fit",
            "成本与延迟，以及可放下方案的帕累托前沿",
        ),
        K::LatencyAxis => tr(lang, "latency: step time or TPOT", "延迟：单步时间或 TPOT"),
        K::UsdPerMTok => tr(lang, "$ per million tokens", "每百万 token 美元"),
        K::GpuHoursPerRun => tr(lang, "GPU-hours per run", "每次训练 GPU 小时"),
        K::Pareto => tr(lang, "Pareto frontier", "帕累托前沿"),
        K::NotPlaced => tr(lang, "Not placed, no cost figure:", "无成本数据，未绘出："),
        K::Unfit => tr(lang, "hollow: does not fit", "空心：放不下"),
        K::SweepTitle => tr(
            lang,
            "Memory of the active plan along one axis, with each GPU's HBM as the wall",
            "当前方案沿某一维度的显存，以各 GPU 的 HBM 为墙",
        ),
        K::SweepAxis => tr(lang, "Sweep along", "扫描维度"),
        K::AxisSeqLen => tr(lang, "sequence length (tokens)", "序列长度（token）"),
        K::AxisBatch => tr(lang, "batch (sequences)", "批大小（序列数）"),
        K::AxisModelSize => tr(lang, "model size (parameters)", "模型规模（参数量）"),
        K::HbmUsed => tr(lang, "HBM used per GPU (GiB)", "每 GPU HBM 用量 (GiB)"),
        K::Plan => tr(lang, "Plan", "方案"),
        K::Family => tr(lang, "Family", "类别"),
        K::Verdict => tr(lang, "Fits", "能否放下"),
        K::Margin => tr(lang, "HBM margin (GiB)", "HBM 余量 (GiB)"),
        K::PeakHbm => tr(lang, "Peak HBM (GiB)", "HBM 峰值 (GiB)"),
        K::Latency => tr(lang, "Step time or TTFT / TPOT", "单步时间或 TTFT / TPOT"),
        K::Throughput => tr(lang, "Throughput (tokens/s)", "吞吐 (token/s)"),
        K::Mfu => tr(lang, "MFU", "MFU"),
        K::UsdPerHour => tr(lang, "$ per hour", "每小时美元"),
        K::Migration => tr(lang, "Migration", "迁移类型"),
        K::Effort => tr(lang, "Effort (person-weeks)", "工作量（人周）"),
        K::OneTime => tr(lang, "One-time $", "一次性美元"),
        K::Low => tr(lang, "low", "下限"),
        K::High => tr(lang, "high", "上限"),
        K::EffortNote => tr(
            lang,
            "Family is against the first plan; migration and effort against a plain baseline on the same GPUs. Person-weeks are assumptions.",
            "类别相对第一个方案；迁移类型与工作量相对同一 GPU 上的朴素基线。人周数为假设值。",
        ),
        K::SummaryTitle => tr(
            lang,
            "Ways over the wall: the cheapest plan that fits in each family",
            "翻越显存墙的途径：每类中放得下且最便宜的方案",
        ),
        K::SummaryBest => tr(lang, "Best plan: what changed", "最优方案：改了什么"),
        K::LatencyShort => tr(lang, "Step time or TPOT", "单步时间或 TPOT"),
        K::FitsCount => tr(lang, "fit", "放得下"),
        K::OthersFit => tr(lang, "Other plans that fit:", "其余方案中放得下的："),
        K::PersonWeeks => tr(lang, "person-weeks", "人周"),
        K::OpenPlan => tr(lang, "Open this plan", "打开此方案"),
        K::MigrationFromBase => tr(lang, "Migration from the baseline", "相对基线的迁移"),
        K::ServingTitle => tr(lang, "Serving", "推理服务"),
        K::DisaggTitle => tr(lang, "Prefill and decode pools", "预填充与解码分离"),
        K::PoolFit => tr(lang, "Weights and KV pool", "权重与 KV 池"),
        K::DisaggNote => tr(
            lang,
            "Latencies from the simulated stream through both pools; rates from the steady-state model. The KV cache crosses the link once per request, after its prefill or layer by layer during it, as the pool levers say.",
            "延迟来自请求流经两个池的模拟；速率来自稳态模型。每个请求的 KV 缓存经链路传输一次：按池设置，在预填充后，或在预填充中逐层传输。",
        ),
        K::ValidValues => tr(lang, "Valid values:", "可选值："),
        K::ServingStreamNote => tr(
            lang,
            "Latencies and goodput from the iteration-level simulation of the request stream on one replica; rates from the steady-state model.",
            "延迟与有效吞吐来自对请求流在单个副本上的逐迭代模拟；速率来自稳态模型。",
        ),
        K::ServingLockstepNote => tr(
            lang,
            "Latencies and goodput from the iteration-level simulation of the request stream on the attention-DP replicas that step together (each waits for the others' prefills); rates from the steady-state model.",
            "延迟与有效吞吐来自对请求流在同步推进的各注意力 DP 副本上的逐迭代模拟（每个副本都要等待其他副本的预填充）；速率来自稳态模型。",
        ),
        K::ServingNoStream => tr(
            lang,
            "One static batch. Turn on a request stream (editor: engine and request stream) for latencies at a rate, goodput and the largest sustainable rate.",
            "单个静态批。在编辑器“推理引擎与请求流”中开启请求流，可得到给定速率下的延迟、有效吞吐与最大可持续速率。",
        ),
    }
}

/// The sentence under the serving figures that says how much of a
/// streamed TTFT is the server's front end (`Engine::front_end`), and how
/// far published harnesses part.
pub fn front_end_note(lang: Lang, ms: f64, (lo, hi): (f64, f64)) -> String {
    match lang {
        Lang::En => format!(
            "TTFT is the client's: {ms:.0} ms of it is the server's front end (HTTP, chat template, tokenisation, the first token's way back); published harnesses leave {lo:.0}–{hi:.0} ms."
        ),
        Lang::Zh => format!(
            "TTFT 按客户端计：其中 {ms:.0} 毫秒是服务端前端（HTTP、对话模板、分词、首个 token 的回传）；已发布的测试环境在 {lo:.0}–{hi:.0} 毫秒之间。"
        ),
    }
}

/// The sentence under the time chart: which measured runs the expected
/// range comes from (`planner_core::uncertainty::ValidationBasis`).
pub fn range_basis(lang: Lang, runs: &str, rows: u32) -> String {
    match lang {
        Lang::En => format!(
            "Expected range of the active plan: as wide as the model's errors on {runs} ({rows} published runs)."
        ),
        Lang::Zh => {
            let gap = if runs.starts_with(|c: char| c.is_ascii_alphanumeric()) {
                " "
            } else {
                ""
            };
            format!("当前方案的预期范围：依据模型在 {rows} 次公开的{gap}{runs}实测中的误差。")
        }
    }
}
