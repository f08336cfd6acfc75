//! Strings of the search in the results column (progress, cancel, the
//! plans found), in English and Simplified Chinese.

use super::{tr, Lang};

strings! {
    SearchTitle => "Plans the search found", "搜索找到的方案";
    SlicesSearched => "slices searched (hardware option × GPU count)", "个切片已搜索（硬件选项 × GPU 数）";
    Merging => "Merging the slices…", "正在合并各切片…";
    Cancel => "Cancel", "取消";
    Failed => "The search could not run in a Web Worker.", "搜索无法在 Web Worker 中运行。";
    Evaluated => "plans evaluated", "个方案已评估";
    LeftOut => "left out: levers the training framework cannot run", "已排除：训练框架不支持的设置组合";
    Unpriced => "GPU kinds without a price (not costed):", "无价格的 GPU 型号（未计成本）：";
    NothingFound => "No plan within this budget fits.", "在此预算内没有放得下的方案。";
    WhatChanged => "What changed from the base", "相对基线的改动";
    Unchanged => "the base plan as it stands", "基线方案本身";
    Family => "Family", "类别";
    Verdict => "Verdict", "结论";
    Latency => "Step time or TPOT", "单步时间或 TPOT";
    Cost => "$ per million tokens", "每百万 token 美元";
    Add => "Add to plans", "加入方案";
    OnFrontier => "cost–latency frontier", "成本—延迟前沿";
    BestOfFamily => "cheapest of its family", "同类中最便宜";
    TieWith => "Tie within the model's uncertainty with row", "在模型不确定度内与之持平的行：";
    TieNote => "≈ rows: latency and cost ranges overlap, so the model cannot rank them.", "≈ 行：延迟与成本的预期范围重叠，模型无法区分优劣。";
    SizedTitle => "Replicas sized to the request stream", "按请求流确定的副本规模";
    Sizing => "Sizing replicas and engine settings to the stream…", "正在按请求流确定副本数与引擎设置…";
    SizedCounts => "candidate replicas tried; these carry the stream's rate within its targets on the fewest GPUs, each checked in the simulator (p99 figures)", "个单副本候选已尝试；以下方案以最少的 GPU 在目标内承载该请求流的速率，均经模拟器核验（p99 数值）";
    SizedCountsSteady => "candidate replicas tried; these carry the stream's rate on the fewest GPUs (steady state: the stream sets no targets to check in the simulator)", "个单副本候选已尝试；以下方案以最少的 GPU 承载该请求流的速率（稳态估算：请求流未设目标，未经模拟器核验）";
    SizedNone => "No replica shape carries the stream's rate within its targets on the GPU budget of", "没有副本形态能在目标内承载该请求流的速率，GPU 预算为";
    RaiseBudget => "GPUs: raise it and size again.", "个 GPU：请提高预算后重新计算。";
    SizeFailed => "The stream could not be sized:", "无法按请求流确定规模：";
    SizeWorkerFailed => "Sizing could not run in a Web Worker.", "规模计算无法在 Web Worker 中运行。";
    Shape => "Replicas × TP", "副本数 × TP";
    Gpus => "GPUs", "GPU 数";
    TtftP99 => "TTFT p99", "首 token 时间 p99";
    Tpot => "TPOT p99", "每输出 token 时间 p99";
    Mean => "mean", "均值";
    PerHour => "$ per hour", "每小时美元";
    PerMillionOutput => "$ per million output tokens", "每百万输出 token 美元";
    SizedTieNote => "≈ rows: the price the stream may need overlaps, so the model cannot rank them; the first place goes to an answer that keeps the number formats when its price is within the cheapest's range.", "≈ 行：承载该请求流可能需要的成本范围重叠，模型无法区分优劣；若不改变数值格式的方案价格落在最便宜方案的成本范围内，则由它排第一。";
    WaysSized => "ways sized", "种方式已计算";
    SizedAcross => "each way's answer with the fewest GPUs, cheapest per hour first", "每种方式用最少 GPU 的方案，按每小时成本从低到高";
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
            assert!(!en.trim().is_empty() && !zh.trim().is_empty(), "{k:?}");
            assert_ne!(en, zh, "{k:?} is not translated");
            assert!(has_cjk(zh), "{k:?}: {zh}");
        }
    }

    #[test]
    fn keys_are_listed_once() {
        let set: std::collections::HashSet<K> = K::ALL.iter().copied().collect();
        assert_eq!(set.len(), K::ALL.len());
    }
}
