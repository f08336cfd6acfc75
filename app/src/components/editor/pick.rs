//! The choices of the editor's drop-downs: each of the core's enums as a
//! list of (key, label) options, and back. Choosing the variant a value
//! already has keeps its payload (a LoRA rank, a checkpointing group), so a
//! drop-down never throws away a number the user typed.

use crate::i18n::editor::K;
use planner_core::catalog::Market;
use planner_core::economics::{default_horizon_years, default_utilisation, Pricing};
use planner_core::plan::{
    Checkpointing, Inference, KvCacheLayout, LogitsScope, LoraSpec, LoraTargets, Momentum,
    OffloadTarget, Optimizer, PipelineSchedule, Placement, Pruning, Sharding, Tier, Training,
    TrainingKind, Workload,
};
use planner_core::precision::{DoubleQuant, Precision};

/// A value the editor offers as a drop-down.
pub trait Pick: Sized + Clone {
    /// Every option: its key and the key of its label.
    const OPTIONS: &'static [(&'static str, K)];
    /// The option a value is.
    fn key(&self) -> &'static str;
    /// The value of an option, starting from the current value so that a
    /// payload survives; `None` for an unknown key.
    fn pick(key: &str, current: &Self) -> Option<Self>;
}

/// Implements `Pick` for an enum whose options carry no payload.
macro_rules! unit_pick {
    ($t:ty { $($key:literal => $v:expr, $label:ident;)* }) => {
        impl Pick for $t {
            const OPTIONS: &'static [(&'static str, K)] = &[$(($key, K::$label)),*];
            fn key(&self) -> &'static str {
                $(if *self == $v { return $key; })*
                ""
            }
            fn pick(key: &str, _: &Self) -> Option<Self> {
                match key {
                    $($key => Some($v),)*
                    _ => None,
                }
            }
        }
    };
}

unit_pick!(Sharding {
    "none" => Sharding::None, ShardNone;
    "zero1" => Sharding::Zero1, Zero1;
    "zero2" => Sharding::Zero2, Zero2;
    "zero3" => Sharding::Zero3, Zero3;
    "fsdp_full_shard" => Sharding::FsdpFullShard, FsdpFull;
    "fsdp_shard_grad_op" => Sharding::FsdpShardGradOp, FsdpGradOp;
    "fsdp_shard_grad_op_no_sync" => Sharding::FsdpShardGradOpNoSync, FsdpGradOpNoSync;
});

unit_pick!(Option<Market> {
    "auto" => None, MarketAuto;
    "global" => Some(Market::Global), MarketGlobal;
    "china" => Some(Market::China), MarketChina;
});

unit_pick!(Placement {
    "manual" => Placement::Manual, PlaceManual;
    "by_heat" => Placement::ByHeat, PlaceByHeat;
});

unit_pick!(LoraTargets {
    "query_value" => LoraTargets::QueryValue, TargetsQv;
    "attention" => LoraTargets::Attention, TargetsAttention;
    "all_linear" => LoraTargets::AllLinear, TargetsAll;
});

unit_pick!(Optimizer {
    "adamw" => Optimizer::AdamW, AdamW;
    "adam8bit" => Optimizer::Adam8bit, Adam8bit;
    "adafactor" => Optimizer::Adafactor { momentum: Momentum::Off }, Adafactor;
    "adafactor_momentum" => Optimizer::Adafactor { momentum: Momentum::On }, AdafactorMomentum;
    "sgd" => Optimizer::Sgd { momentum: Momentum::Off }, Sgd;
    "sgd_momentum" => Optimizer::Sgd { momentum: Momentum::On }, SgdMomentum;
});

impl Pick for Checkpointing {
    const OPTIONS: &'static [(&'static str, K)] = &[
        ("none", K::CkptNone),
        ("selective", K::CkptSelective),
        ("full", K::CkptFull),
        ("uniform", K::CkptUniform),
        ("block", K::CkptBlock),
    ];
    fn key(&self) -> &'static str {
        match self {
            Checkpointing::None => "none",
            Checkpointing::Selective => "selective",
            Checkpointing::Full => "full",
            Checkpointing::Uniform { .. } => "uniform",
            Checkpointing::Block { .. } => "block",
        }
    }
    fn pick(key: &str, current: &Self) -> Option<Self> {
        if key == current.key() {
            return Some(*current);
        }
        Some(match key {
            "none" => Checkpointing::None,
            "selective" => Checkpointing::Selective,
            "full" => Checkpointing::Full,
            // Megatron's `--recompute-num-layers` defaults to 1.
            "uniform" => Checkpointing::Uniform { group: 1 },
            "block" => Checkpointing::Block { layers: 1 },
            _ => return None,
        })
    }
}

impl Pick for PipelineSchedule {
    const OPTIONS: &'static [(&'static str, K)] = &[
        ("1f1b", K::Sched1f1b),
        ("interleaved", K::SchedInterleaved),
        ("gpipe", K::SchedGpipe),
        ("dualpipev", K::SchedDualPipeV),
    ];
    fn key(&self) -> &'static str {
        match self {
            PipelineSchedule::OneFOneB => "1f1b",
            PipelineSchedule::Interleaved { .. } => "interleaved",
            PipelineSchedule::Gpipe => "gpipe",
            PipelineSchedule::DualPipeV => "dualpipev",
        }
    }
    fn pick(key: &str, current: &Self) -> Option<Self> {
        if key == current.key() {
            return Some(*current);
        }
        Some(match key {
            "1f1b" => PipelineSchedule::OneFOneB,
            "interleaved" => PipelineSchedule::Interleaved { chunks: 2 },
            "gpipe" => PipelineSchedule::Gpipe,
            "dualpipev" => PipelineSchedule::DualPipeV,
            _ => return None,
        })
    }
}

impl Pick for KvCacheLayout {
    const OPTIONS: &'static [(&'static str, K)] =
        &[("paged", K::KvPaged), ("contiguous", K::KvContiguous)];
    fn key(&self) -> &'static str {
        match self {
            KvCacheLayout::Paged { .. } => "paged",
            KvCacheLayout::Contiguous { .. } => "contiguous",
        }
    }
    fn pick(key: &str, current: &Self) -> Option<Self> {
        if key == current.key() {
            return Some(*current);
        }
        match key {
            // vLLM's default block of 16 tokens.
            "paged" => Some(KvCacheLayout::Paged { block_tokens: 16 }),
            "contiguous" => Some(KvCacheLayout::Contiguous { reserve_tokens: 0 }),
            _ => None,
        }
    }
}

/// The number formats the editor offers, in display order.
const FORMATS: [(&str, K); 10] = [
    ("fp32", K::Fp32),
    ("bf16", K::Bf16),
    ("fp16", K::Fp16),
    ("fp8", K::Fp8),
    ("int8", K::Int8),
    ("int4", K::Int4),
    ("nf4", K::Nf4),
    ("nf4_dq", K::Nf4Dq),
    ("mxfp4", K::Mxfp4),
    ("nvfp4", K::Nvfp4),
];

/// "As the weights", then every format.
const EXPERT_FORMATS: [(&str, K); 11] = {
    let mut out = [("same", K::AsWeights); 11];
    let mut i = 0;
    while i < FORMATS.len() {
        out[i + 1] = FORMATS[i];
        i += 1;
    }
    out
};

impl Pick for Precision {
    const OPTIONS: &'static [(&'static str, K)] = &FORMATS;
    fn key(&self) -> &'static str {
        match self {
            Precision::Fp32 => "fp32",
            Precision::Bf16 => "bf16",
            Precision::Fp16 => "fp16",
            Precision::Fp8 => "fp8",
            Precision::Int8 => "int8",
            Precision::Int4 { .. } => "int4",
            Precision::Nf4 {
                double_quant: DoubleQuant::Off,
            } => "nf4",
            Precision::Nf4 {
                double_quant: DoubleQuant::On,
            } => "nf4_dq",
            Precision::Mxfp4 => "mxfp4",
            Precision::Nvfp4 => "nvfp4",
        }
    }
    fn pick(key: &str, current: &Self) -> Option<Self> {
        if key == current.key() {
            return Some(*current);
        }
        Some(match key {
            "fp32" => Precision::Fp32,
            "bf16" => Precision::Bf16,
            "fp16" => Precision::Fp16,
            "fp8" => Precision::Fp8,
            "int8" => Precision::Int8,
            // Group 128: the GPTQ/AWQ default.
            "int4" => Precision::Int4 { group_size: 128 },
            "nf4" => Precision::Nf4 {
                double_quant: DoubleQuant::Off,
            },
            "nf4_dq" => Precision::Nf4 {
                double_quant: DoubleQuant::On,
            },
            "mxfp4" => Precision::Mxfp4,
            "nvfp4" => Precision::Nvfp4,
            _ => return None,
        })
    }
}

/// The routed experts' format: the weights' own, or one of the formats.
impl Pick for Option<Precision> {
    const OPTIONS: &'static [(&'static str, K)] = &EXPERT_FORMATS;
    fn key(&self) -> &'static str {
        self.map_or("same", |p| p.key())
    }
    fn pick(key: &str, current: &Self) -> Option<Self> {
        if key == "same" {
            return Some(None);
        }
        Precision::pick(key, &current.unwrap_or(Precision::Bf16)).map(Some)
    }
}

impl Pick for Pruning {
    const OPTIONS: &'static [(&'static str, K)] = &[
        ("none", K::PruneNone),
        ("sparse24", K::Prune24),
        ("shape", K::PruneShape),
    ];
    fn key(&self) -> &'static str {
        match self {
            Pruning::None => "none",
            Pruning::Sparse24 => "sparse24",
            Pruning::Shape(_) => "shape",
        }
    }
    fn pick(key: &str, current: &Self) -> Option<Self> {
        if key == current.key() {
            return Some(*current);
        }
        Some(match key {
            "none" => Pruning::None,
            "sparse24" => Pruning::Sparse24,
            "shape" => Pruning::Shape(Default::default()),
            _ => return None,
        })
    }
}

/// Where one state lives: `None` keeps it in HBM.
impl Pick for Option<OffloadTarget> {
    const OPTIONS: &'static [(&'static str, K)] = &[
        ("hbm", K::StayInHbm),
        ("cxl", K::TierCxl),
        ("host_dram", K::TierHost),
        ("nvme", K::TierNvme),
    ];
    fn key(&self) -> &'static str {
        match self.map(|t| t.tier) {
            None | Some(Tier::Hbm) => "hbm",
            Some(Tier::Cxl) => "cxl",
            Some(Tier::HostDram) => "host_dram",
            Some(Tier::Nvme) => "nvme",
        }
    }
    fn pick(key: &str, current: &Self) -> Option<Self> {
        let tier = match key {
            "hbm" => return Some(None),
            "cxl" => Tier::Cxl,
            "host_dram" => Tier::HostDram,
            "nvme" => Tier::Nvme,
            _ => return None,
        };
        let fraction = current.map_or(1.0, |t| t.fraction);
        Some(Some(OffloadTarget { tier, fraction }))
    }
}

impl Pick for Pricing {
    const OPTIONS: &'static [(&'static str, K)] = &[("rental", K::Rental), ("capex", K::Capex)];
    fn key(&self) -> &'static str {
        match self {
            Pricing::Rental { .. } => "rental",
            Pricing::Capex { .. } => "capex",
        }
    }
    fn pick(key: &str, current: &Self) -> Option<Self> {
        if key == current.key() {
            return Some(*current);
        }
        match key {
            "rental" => Some(Pricing::Rental {
                usd_per_gpu_hour: None,
            }),
            "capex" => Some(Pricing::Capex {
                usd_per_gpu: None,
                horizon_years: default_horizon_years(),
                utilisation: default_utilisation(),
            }),
            _ => None,
        }
    }
}

/// The workload kind: the four kinds of training and serving. Switching
/// between training and serving carries the lengths over (a training
/// sequence becomes prompt + output and back); the rest starts from
/// editing defaults the user is expected to change.
impl Pick for Workload {
    const OPTIONS: &'static [(&'static str, K)] = &[
        ("pre_training", K::PreTraining),
        ("full_fine_tune", K::FullFineTune),
        ("lora", K::Lora),
        ("qlora", K::Qlora),
        ("inference", K::Inference),
    ];
    fn key(&self) -> &'static str {
        match self {
            Workload::Training(t) => match t.kind {
                TrainingKind::PreTraining => "pre_training",
                TrainingKind::FullFineTune => "full_fine_tune",
                TrainingKind::Lora(_) => "lora",
                TrainingKind::Qlora(_) => "qlora",
            },
            Workload::Inference(_) => "inference",
        }
    }
    fn pick(key: &str, current: &Self) -> Option<Self> {
        if key == current.key() {
            return Some(current.clone());
        }
        let training = match current {
            Workload::Training(t) => t.clone(),
            Workload::Inference(i) => Training {
                kind: TrainingKind::FullFineTune,
                seq_len: i.prompt_tokens.saturating_add(i.output_tokens),
                global_batch: i.batch,
                tokens: 0.0,
            },
        };
        let lora = match training.kind {
            TrainingKind::Lora(l) | TrainingKind::Qlora(l) => l,
            // QLoRA's setting (Dettmers et al. 2023): r = 64 on every
            // linear layer, adapters in PEFT's default FP32.
            _ => LoraSpec {
                rank: 64,
                targets: LoraTargets::AllLinear,
                adapter_precision: Precision::Fp32,
            },
        };
        let kind = match key {
            "pre_training" => TrainingKind::PreTraining,
            "full_fine_tune" => TrainingKind::FullFineTune,
            "lora" => TrainingKind::Lora(lora),
            "qlora" => TrainingKind::Qlora(lora),
            "inference" => {
                return Some(match current {
                    Workload::Inference(i) => Workload::Inference(i.clone()),
                    Workload::Training(t) => Workload::Inference(Inference {
                        prompt_tokens: t.seq_len,
                        output_tokens: 256,
                        batch: t.global_batch.clamp(1, 64),
                        logits: LogitsScope::LastToken,
                        stream: None,
                    }),
                })
            }
            _ => return None,
        };
        Some(Workload::Training(Training { kind, ..training }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner_core::example_plan;

    /// Every option maps to a value whose key is that option, from any
    /// starting value, and an unknown key changes nothing.
    fn round_trip<P: Pick + std::fmt::Debug>(starts: &[P]) {
        for start in starts {
            for (key, _) in P::OPTIONS {
                let v = P::pick(key, start);
                assert_eq!(v.as_ref().map(Pick::key), Some(*key), "{start:?} → {key}");
            }
            assert!(P::pick("no-such-option", start).is_none());
            assert!(
                P::OPTIONS.iter().any(|(k, _)| *k == start.key()),
                "{start:?}"
            );
        }
    }

    #[test]
    fn every_option_round_trips() {
        round_trip(&[Sharding::None, Sharding::FsdpShardGradOp]);
        round_trip(&[Placement::ByHeat]);
        round_trip(&[LoraTargets::QueryValue]);
        round_trip(&[
            Optimizer::AdamW,
            Optimizer::Sgd {
                momentum: Momentum::On,
            },
        ]);
        round_trip(&[Checkpointing::None, Checkpointing::Block { layers: 3 }]);
        round_trip(&[PipelineSchedule::Interleaved { chunks: 4 }]);
        round_trip(&[KvCacheLayout::default()]);
        round_trip(&[Precision::Bf16, Precision::Int4 { group_size: 64 }]);
        round_trip(&[Pruning::None]);
        round_trip(&[
            None,
            Some(OffloadTarget {
                tier: Tier::Nvme,
                fraction: 0.3,
            }),
        ]);
        round_trip(&[Pricing::default()]);
        round_trip(&[example_plan().workload]);
    }

    #[test]
    fn payloads_survive_and_carry_over() {
        let c = Checkpointing::Uniform { group: 4 };
        assert_eq!(Checkpointing::pick("uniform", &c), Some(c));
        let i = Precision::Int4 { group_size: 32 };
        assert_eq!(Precision::pick("int4", &i), Some(i));
        let o = Some(OffloadTarget {
            tier: Tier::Cxl,
            fraction: 0.25,
        });
        assert_eq!(
            <Option<OffloadTarget>>::pick("nvme", &o),
            Some(Some(OffloadTarget {
                tier: Tier::Nvme,
                fraction: 0.25
            }))
        );
        // Training → serving → training keeps the lengths.
        let w = example_plan().workload;
        let served = Workload::pick("inference", &w);
        let Some(Workload::Inference(i)) = &served else {
            unreachable!("inference was picked");
        };
        assert_eq!(i.prompt_tokens, 4096);
        let back = served.as_ref().and_then(|s| Workload::pick("lora", s));
        let Some(Workload::Training(t)) = back else {
            unreachable!("lora was picked");
        };
        assert_eq!(t.seq_len, 4096 + 256);
        assert!(matches!(t.kind, TrainingKind::Lora(l) if l.rank == 64));
    }
}
