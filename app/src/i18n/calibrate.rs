//! Strings of the calibration panel, in English and Simplified Chinese.
//!
//! One table, as in `editor.rs`: each line is a key, its English and its
//! Chinese, through the `strings!` macro of `i18n/mod.rs`.

use super::{tr, Lang};
use planner_core::calibrate::{Figure, Knob};

strings! {
    Calibrate => "Calibrate to measurements", "按实测结果校准";
    About => "Paste a GPU harness report (memwall-harness compare --report), or type what a run of the active plan measured; the fit moves the overhead and efficiency knobs.",
        "粘贴 GPU 测试工具的比较报告（memwall-harness compare --report），或填写当前方案实际运行的测量值；拟合会调整开销与效率参数。";
    PasteReport => "Harness report JSON (with \"measurements\")", "测试报告 JSON（含 \"measurements\"）";
    MeasuredPeak => "Measured peak allocated (GiB)", "实测峰值已分配显存（GiB）";
    MeasuredStep => "Measured step time (ms)", "实测单步时间（毫秒）";
    MeasuredTpot => "Measured TPOT (ms)", "实测每输出词元时间 TPOT（毫秒）";
    AddRow => "Add row for the active plan", "为当前方案添加一行";
    RemoveRow => "Remove", "删除";
    RowsTitle => "Typed rows (each holds the plan as it was when added)", "手动填写的行（每行保存添加时的方案）";
    Fit => "Fit", "拟合";
    Apply => "Apply to plan", "应用到方案";
    Applied => "The fitted knobs were written into the active plan.", "拟合参数已写入当前方案。";
    KnobsTitle => "Knobs", "参数";
    Knob => "Knob", "参数";
    Before => "Before", "拟合前";
    Fitted => "Fitted", "拟合值";
    NotFitted => "not fitted (nothing measured that it moves)", "未拟合（没有测到它影响的指标）";
    ErrorsTitle => "Error per measured figure", "各测量指标的误差";
    Row => "Row", "行";
    FigureCol => "Figure", "指标";
    Measured => "Measured", "实测";
    ErrBefore => "Error before", "拟合前误差";
    ErrAfter => "Error after", "拟合后误差";
    HeldOut => "held out", "留出验证";
    PredictionTitle => "Active plan: current knobs vs calibrated", "当前方案：现有参数与校准后对比";
    Current => "Current", "现有参数";
    Calibrated => "Calibrated", "校准后";
    NotPredicted => "not predicted", "无预测";
    ProblemJson => "Not a calibration report:", "不是校准报告：";
    ProblemRunSet => "This is a raw run set: it has no plans. Compare it first (memwall-harness compare --report FILE) and paste that report.",
        "这是原始运行记录，其中没有方案。请先比较（memwall-harness compare --report FILE），再粘贴生成的报告。";
    ProblemTooLarge => "The pasted text is too large (at most 2 MiB).", "粘贴的文本过大（最多 2 MiB）。";
    ProblemTooMany => "Too many measurements to fit in the browser (at most 64); use memwall calibrate.", "测量数过多，无法在浏览器中拟合（最多 64 个）；请使用 memwall calibrate。";
    ProblemPeak => "The measured peak is not a positive number of GiB.", "实测峰值不是正的 GiB 数值。";
    ProblemTime => "The measured time is not a positive number of milliseconds.", "实测时间不是正的毫秒数值。";
    ProblemEmptyRow => "Type a measured peak or a time first.", "请先填写实测峰值或时间。";
    ProblemNothing => "Nothing to fit: paste a report or add a row.", "没有可拟合的数据：请粘贴报告或添加一行。";
    ProblemMixed => "Measurements of more than one GPU kind; fit one kind at a time:", "测量来自多种 GPU，请每次只拟合一种：";
    ProblemInvalidPlan => "A measurement's plan is invalid:", "某个测量对应的方案无效：";
    ProblemBadMeasurement => "A measured figure must be positive and finite:", "测量值必须为有限的正数：";
    PeakAllocated => "Peak allocated", "峰值已分配";
    PeakReserved => "Peak reserved", "峰值已预留";
    DeviceUsed => "Peak HBM (device used)", "峰值 HBM（设备占用）";
    StepTime => "Step time", "单步时间";
    Ttft => "Time to first token", "首词元延迟 TTFT";
    Tpot => "Time per output token", "每输出词元时间 TPOT";
    KnobCudaContext => "CUDA context", "CUDA 上下文";
    KnobFragmentation => "Allocator fragmentation", "分配器碎片率";
    KnobGemm => "GEMM efficiency", "GEMM 效率";
    KnobHbm => "HBM efficiency", "HBM 带宽效率";
    KnobAttention => "Attention efficiency", "注意力效率";
    KnobLayerOverhead => "Per-layer overhead", "每层固定开销";
    KnobHostOp => "Host time per eager operator", "eager 模式每个算子的主机耗时";
}

/// The name of a measured figure.
pub fn figure(lang: Lang, f: Figure) -> &'static str {
    t(
        lang,
        match f {
            Figure::PeakAllocated => K::PeakAllocated,
            Figure::PeakReserved => K::PeakReserved,
            Figure::DeviceUsed => K::DeviceUsed,
            Figure::StepTime => K::StepTime,
            Figure::Ttft => K::Ttft,
            Figure::Tpot => K::Tpot,
        },
    )
}

/// The name of a knob.
pub fn knob(lang: Lang, k: Knob) -> &'static str {
    t(
        lang,
        match k {
            Knob::CudaContext => K::KnobCudaContext,
            Knob::Fragmentation => K::KnobFragmentation,
            Knob::Gemm => K::KnobGemm,
            Knob::Hbm => K::KnobHbm,
            Knob::Attention => K::KnobAttention,
            Knob::LayerOverhead => K::KnobLayerOverhead,
            Knob::HostOp => K::KnobHostOp,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn has_cjk(s: &str) -> bool {
        s.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
    }

    #[test]
    fn every_key_is_translated() {
        for k in K::ALL {
            let (en, zh) = (t(Lang::En, *k), t(Lang::Zh, *k));
            assert!(!en.trim().is_empty(), "{k:?}");
            assert_ne!(en, zh, "{k:?} is not translated");
            assert!(has_cjk(zh), "{k:?}: {zh}");
        }
        for f in Figure::ALL {
            assert!(has_cjk(figure(Lang::Zh, f)));
        }
        for k in Knob::ALL {
            assert_ne!(knob(Lang::En, k), knob(Lang::Zh, k));
        }
    }

    #[test]
    fn keys_are_listed_once() {
        let set: std::collections::HashSet<K> = K::ALL.iter().copied().collect();
        assert_eq!(set.len(), K::ALL.len());
    }
}
