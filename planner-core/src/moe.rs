//! The levers of a mixture-of-experts run as the engines expose them
//! (`levers.moe`): how evenly the router spreads tokens over the experts,
//! whether the expert-parallel all-to-all hides behind another
//! micro-batch's compute, and how the routed experts are split when their
//! layout differs from the attention's (TP attention with EP experts, the
//! layout of vLLM's `--enable-expert-parallel` and SGLang's DP attention).

use serde::{Deserialize, Serialize};

/// The largest busiest-over-mean load or capacity factor a plan may state
/// (a bound for hostile input; Switch Transformer §2.1 and GShard explore
/// capacity factors of 1–2, and a collapsed router sends at most all
/// tokens to one expert).
pub const MAX_LOAD_FACTOR: f64 = 1024.0;

/// How the router's load lands on the experts. The busiest expert of an
/// expert-parallel rank paces the rank, and the busiest rank paces the
/// layer (every rank waits for it at the combine all-to-all).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum ExpertBalance {
    /// Every expert receives the mean load. NVIDIA's published MoE
    /// performance recipes force this (Megatron-Core
    /// `--moe-router-force-load-balancing`, used by the NeMo /
    /// Megatron-Bridge benchmark tables), and it is the default: no
    /// training stack publishes a measured dropless load figure to default
    /// to, and a plan that knows its router's imbalance states it.
    #[default]
    Balanced,
    /// Token dropping at a capacity factor (Switch Transformer, Fedus et
    /// al. 2022 §2.1; Megatron-Core `--moe-expert-capacity-factor` with
    /// `--moe-pad-expert-input-to-capacity`): each expert computes
    /// `factor` × its mean load, padded or dropped to exactly that.
    Capacity {
        /// Expert capacity over the mean tokens per expert, ≥ 1.
        factor: f64,
    },
    /// Dropless routing with a stated imbalance: the busiest expert
    /// receives `busiest_over_mean` × the mean load (1 + MaxVio in Wang et
    /// al. 2024, "Auxiliary-Loss-Free Load Balancing Strategy for
    /// Mixture-of-Experts", §4.1, which DeepSeek-V3 §2.1.2 adopts).
    Dropless {
        /// The busiest expert's tokens over the mean, ≥ 1.
        busiest_over_mean: f64,
    },
}

impl ExpertBalance {
    /// Tokens the busiest expert computes over the mean (≥ 1).
    pub fn load_factor(self) -> f64 {
        match self {
            ExpertBalance::Balanced => 1.0,
            ExpertBalance::Capacity { factor } => factor,
            ExpertBalance::Dropless { busiest_over_mean } => busiest_over_mean,
        }
    }
}

crate::lang::named!(ExpertBalance {
    ExpertBalance::Balanced => "balanced", "balanced experts", "专家负载均衡";
    ExpertBalance::Capacity { .. } => "capacity", "capacity factor (token dropping)", "容量因子（丢弃 token）";
    ExpertBalance::Dropless { .. } => "dropless", "dropless, busiest expert stated", "不丢弃 token，给定最忙专家负载";
});

/// Whether the expert-parallel dispatch and combine all-to-alls run
/// behind compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum DispatchOverlap {
    /// On the critical path: a layer's experts wait for its dispatch, the
    /// next layer for its combine (Megatron-Core's default `alltoall`
    /// dispatcher without `--overlap-moe-expert-parallel-comm`).
    #[default]
    None,
    /// Hidden behind the compute of another micro-batch: DeepSeek-V3's
    /// DualPipe runs one micro-batch's forward chunk beside another's
    /// backward chunk so that dispatch and combine overlap computation
    /// (DeepSeek-V3 Technical Report §3.2.1, Figure 4); Megatron-Core's
    /// combined 1F1B (`--overlap-moe-expert-parallel-comm`, Megatron-Core
    /// developer guide "Combined 1F1B: Expert-Parallel All-to-All
    /// Overlap") pairs the forward of one micro-batch with the backward of
    /// the adjacent one the same way. What cannot hide is the part of a
    /// layer's all-to-all longer than the other micro-batch's compute of
    /// that layer.
    OtherMicroBatch,
}

crate::lang::named!(DispatchOverlap {
    DispatchOverlap::None => "none", "all-to-all not overlapped", "all-to-all 不重叠";
    DispatchOverlap::OtherMicroBatch => "other_micro_batch", "all-to-all behind the other micro-batch (DualPipe, combined 1F1B)", "all-to-all 与另一微批次计算重叠（DualPipe、combined 1F1B）";
});

/// The MoE levers of a plan (`levers.moe`); every field defaults, so
/// plans without it keep their numbers.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct MoeLevers {
    /// How evenly tokens land on the experts.
    #[serde(default)]
    pub balance: ExpertBalance,
    /// Whether the all-to-all hides behind another micro-batch (training).
    #[serde(default)]
    pub dispatch_overlap: DispatchOverlap,
    /// Tensor-parallel degree inside each routed expert (Megatron-Core
    /// `--expert-tensor-parallel-size`); `None` follows `parallel.tp`.
    /// Serving may set it below TP so that EP spans the TP group: with
    /// `tp: 8, ep: 8, expert_tp: 1` attention is split by TP and each GPU
    /// holds 1/8 of the experts whole (vLLM `--enable-expert-parallel`,
    /// where the expert-parallel size is TP × DP; Megatron-Core's MoE
    /// parallel folding, EP × ETP × EDP = TP × CP × DP). Must divide TP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expert_tp: Option<u32>,
    /// Node-limited routing: each token's experts lie in at most this many
    /// scale-up domains, and the dispatch sends a token across the fabric
    /// once per domain, forwarding it inside over NVLink (DeepSeek-V3
    /// Technical Report §2.1.2, M = 4, and §3.2.2; DeepSeek-V2 §2.1.3
    /// limits devices the same way). `None`: one copy per expert, as
    /// Megatron-Core's `alltoall` dispatcher sends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_limit: Option<u32>,
}

impl MoeLevers {
    /// No lever moved from its default (the field is then left out of
    /// saved plans and links).
    pub fn is_default(&self) -> bool {
        *self == MoeLevers::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::{Lang, Named};

    #[test]
    fn names_are_distinct() {
        let b = [
            ExpertBalance::Balanced,
            ExpertBalance::Capacity { factor: 1.25 },
            ExpertBalance::Dropless {
                busiest_over_mean: 1.1,
            },
        ];
        let o = [DispatchOverlap::None, DispatchOverlap::OtherMicroBatch];
        for lang in Lang::ALL {
            assert_ne!(b[0].name(lang), b[1].name(lang));
            assert_ne!(b[1].name(lang), b[2].name(lang));
            assert_ne!(o[0].name(lang), o[1].name(lang));
        }
        assert_eq!(b[1].load_factor(), 1.25);
        assert_eq!(b[0].load_factor(), 1.0);
    }

    #[test]
    fn unknown_keys_are_refused() {
        let ok: MoeLevers = serde_json::from_str(r#"{"balance":{"capacity":{"factor":1.5}}}"#)
            .expect("a capacity factor parses");
        assert_eq!(ok.balance.load_factor(), 1.5);
        assert!(serde_json::from_str::<MoeLevers>(r#"{"balanse":"balanced"}"#).is_err());
        assert!(MoeLevers::default().is_default());
    }
}
