//! Disaggregated prefill and decode as a plan states it and as a report
//! shows it: two GPU pools, each with its own tensor parallelism, replicas
//! and engine knobs, and the fabric that carries each request's KV cache
//! from the prefill pool to the decode pool (DistServe, Zhong et al.,
//! OSDI 2024; Mooncake, Qin et al., FAST 2025; NVIDIA Dynamo; vLLM's
//! `--kv-transfer-config`). The model is in `serving::disagg`.

use crate::catalog::LinkId;
use serde::{Deserialize, Serialize};

/// The most GPUs one pool may take (tensor parallelism × replicas): the
/// planner's bound on a cluster (`resolve::MAX_GPUS` is of the same order).
pub const MAX_POOL_GPUS: u32 = 1_000_000;

/// One pool of engine replicas.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Pool {
    /// Tensor-parallel degree of each replica, ≥ 1.
    pub tp: u32,
    /// Engine replicas in the pool, ≥ 1.
    #[serde(default = "one")]
    pub replicas: u32,
    /// Token budget per iteration in this pool (`max_num_batched_tokens`);
    /// `None` takes the plan's `levers.prefill_chunk` (the engine's default
    /// when that is unset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_budget: Option<u32>,
    /// Running requests per replica (`max_num_seqs`); `None` takes the
    /// plan's `levers.engine_knobs.max_seqs`, else the engine's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_seqs: Option<u32>,
    /// Expert-parallel degree in this pool (MoE): `tp: 1` with `ep` equal
    /// to `replicas` is DP attention with the experts spread over the
    /// pool (SGLang `--enable-dp-attention`, `--ep-size`); `None` takes the
    /// plan's `levers.parallel.ep`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ep: Option<u32>,
}

fn one() -> u32 {
    1
}

impl Pool {
    /// GPUs the pool takes.
    pub fn gpus(&self) -> u64 {
        u64::from(self.tp) * u64::from(self.replicas)
    }
}

/// Separate prefill and decode pools (`levers.disaggregation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Disaggregation {
    /// The pool that prefills prompts.
    pub prefill: Pool,
    /// The pool that decodes.
    pub decode: Pool,
    /// The link that carries the KV cache between the pools; `None` takes
    /// the GPU's scale-up link (NVLink) when both pools fit in one scale-up
    /// domain, else the cluster's scale-out fabric (one NIC per GPU as in
    /// DGX/HGX nodes, `hardware.nics_per_node` scales it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<LinkId>,
    /// When the KV cache crosses the link: after the prompt's prefill
    /// (the default) or layer by layer during it.
    #[serde(default, skip_serializing_if = "KvTransfer::is_default")]
    pub transfer: KvTransfer,
}

/// When a prefill pool sends a request's KV cache to the decode pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum KvTransfer {
    /// The whole cache once the prompt's prefill is done: vLLM's NIXL and
    /// Mooncake connectors (the decode side reads the finished blocks;
    /// `MooncakeConnector` "does not do layerwise saving"), DistServe.
    #[default]
    AfterPrefill,
    /// Each layer's cache as soon as the layer is computed, while later
    /// layers run: vLLM's `KVConnectorBase_V1.save_kv_layer` hook, called
    /// from inside the attention layer for asynchronous copies (LMCache's
    /// layer-wise mode uses it), and Mooncake's layer-wise prefill (Qin et
    /// al., FAST 2025). The prefill hides the transfer up to its own
    /// length; the last layer's share always follows it.
    LayerByLayer,
}

impl KvTransfer {
    /// Both, in display order.
    pub const ALL: [KvTransfer; 2] = [KvTransfer::AfterPrefill, KvTransfer::LayerByLayer];

    /// Whether this is the default (left out of plan files and links).
    pub fn is_default(&self) -> bool {
        *self == KvTransfer::AfterPrefill
    }

    /// Seconds of a `whole`-second transfer (its fixed latency apart) that
    /// follow a prefill of `span` seconds over `layers` layers.
    pub fn exposed(self, whole: f64, span: f64, layers: f64) -> f64 {
        match self {
            KvTransfer::AfterPrefill => whole,
            KvTransfer::LayerByLayer => (whole - span.max(0.0)).max(whole / layers.max(1.0)),
        }
    }
}

crate::lang::named!(KvTransfer {
    KvTransfer::AfterPrefill => "after_prefill", "after the prefill", "预填充完成后";
    KvTransfer::LayerByLayer => "layer_by_layer", "layer by layer, during the prefill", "逐层传输（与预填充重叠）";
});

/// Which pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum PoolRole {
    /// Prefills prompts and hands the KV cache on.
    Prefill,
    /// Decodes from the KV cache it received.
    Decode,
}

crate::lang::named!(PoolRole {
    PoolRole::Prefill => "prefill", "prefill pool", "预填充池";
    PoolRole::Decode => "decode", "decode pool", "解码池";
});

/// The figures of one pool of a disaggregated report
/// (`report::PoolReport`) that have no name elsewhere; a view names the
/// pool's KV tokens, largest rate and fit with `report::ServingFigure` and
/// `report::Verdict`, whose concepts they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PoolFigure {
    /// Tensor parallelism × replicas.
    Shape,
    /// The pool's iteration time.
    Iteration,
    /// Running requests per replica.
    Running,
}

impl PoolFigure {
    /// Every figure.
    pub const ALL: [PoolFigure; 3] = [
        PoolFigure::Shape,
        PoolFigure::Iteration,
        PoolFigure::Running,
    ];
}

crate::lang::named!(PoolFigure {
    PoolFigure::Shape => "shape", "GPUs (TP × replicas)", "GPU（TP × 副本数）";
    PoolFigure::Iteration => "iteration", "iteration", "单次迭代";
    PoolFigure::Running => "running", "running requests per replica", "每副本运行中请求";
});

/// The figures of the split as a whole (`report::DisaggReport`) that have
/// no name elsewhere (latency, rate and price are `report::ServingFigure`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SplitFigure {
    /// The link that carries the KV cache.
    Link,
    /// The KV transfer of a mean prompt.
    Transfer,
    /// The pool that bounds the rate.
    Bottleneck,
}

impl SplitFigure {
    /// Every figure.
    pub const ALL: [SplitFigure; 3] = [
        SplitFigure::Link,
        SplitFigure::Transfer,
        SplitFigure::Bottleneck,
    ];
}

crate::lang::named!(SplitFigure {
    SplitFigure::Link => "link", "KV link", "KV 传输链路";
    SplitFigure::Transfer => "transfer", "KV transfer after the prefill, per request", "预填充后每请求 KV 传输";
    SplitFigure::Bottleneck => "bottleneck", "bounded by", "瓶颈";
});

/// What the checks of a disaggregated plan need to know of the rest of it.
#[derive(Debug, Clone, Copy)]
pub struct Context {
    /// `hardware.gpus`.
    pub gpus: u32,
    /// GPUs in one scale-up domain.
    pub domain: u32,
    /// The GPU's scale-up link, if it has one.
    pub scale_up: Option<LinkId>,
    /// Whether the plan serves a request stream.
    pub stream: bool,
    /// Whether the stream is a closed loop (a fixed concurrency).
    pub closed_loop: bool,
    /// Whether the engine batches continuously.
    pub continuous: bool,
}

impl Disaggregation {
    /// A first split of `gpus` GPUs into pools of TP-`tp` replicas: half of
    /// the replicas prefill, the rest decode (the decode pool takes the odd
    /// one), the link left to the plan's hardware. `None` when the GPUs
    /// hold fewer than two replicas. Where to go from there is the serving
    /// search's question (`"disaggregation": "explore"`).
    pub fn halves(tp: u32, gpus: u32) -> Option<Self> {
        let tp = tp.max(1);
        let replicas = gpus / tp;
        if replicas < 2 {
            return None;
        }
        let pool = |replicas| Pool {
            tp,
            replicas,
            token_budget: None,
            max_seqs: None,
            ep: None,
        };
        Some(Self {
            prefill: pool(replicas / 2),
            decode: pool(replicas - replicas / 2),
            link: None,
            transfer: KvTransfer::default(),
        })
    }

    /// GPUs both pools take.
    pub fn gpus(&self) -> u64 {
        self.prefill.gpus() + self.decode.gpus()
    }

    /// What is wrong with it, each as (field, one-line problem).
    pub fn problems(&self, ctx: &Context) -> Vec<(String, String)> {
        let at = "levers.disaggregation";
        let mut out = Vec::new();
        for (name, p) in [("prefill", &self.prefill), ("decode", &self.decode)] {
            for (knob, v) in [("tp", p.tp), ("replicas", p.replicas)] {
                if v == 0 {
                    out.push((
                        format!("{at}.{name}.{knob}"),
                        "must be at least 1: a pool with no GPUs serves nothing".into(),
                    ));
                }
            }
            if p.gpus() > u64::from(MAX_POOL_GPUS) {
                out.push((
                    format!("{at}.{name}"),
                    format!("takes {} GPUs, more than {MAX_POOL_GPUS}", p.gpus()),
                ));
            }
            if p.ep == Some(0) {
                out.push((
                    format!("{at}.{name}.ep"),
                    "must be at least 1 (1 is no expert parallelism)".into(),
                ));
            }
            if p.token_budget == Some(0) {
                out.push((
                    format!("{at}.{name}.token_budget"),
                    "must be at least 1 token".into(),
                ));
            }
            if let Some(m) = p
                .max_seqs
                .filter(|m| *m == 0 || *m > crate::engine::MAX_SEQS_LIMIT)
            {
                out.push((
                    format!("{at}.{name}.max_seqs"),
                    format!(
                        "must be between 1 and {}, got {m}",
                        crate::engine::MAX_SEQS_LIMIT
                    ),
                ));
            }
        }
        if self.gpus() > u64::from(ctx.gpus) {
            out.push((
                at.to_string(),
                format!(
                    "the pools take {} GPUs, hardware.gpus gives {}",
                    self.gpus(),
                    ctx.gpus
                ),
            ));
        }
        out.extend(self.link_problem(ctx).map(|p| (format!("{at}.link"), p)));
        if !ctx.stream {
            out.push((
                at.to_string(),
                "needs a request stream (workload.inference.stream)".into(),
            ));
        } else if ctx.closed_loop {
            out.push((
                at.to_string(),
                "takes an open (Poisson) stream; a closed loop couples the pools and is not modelled"
                    .into(),
            ));
        }
        if !ctx.continuous {
            out.push((
                at.to_string(),
                "needs a continuous-batching engine (levers.engine: vllm, sglang or trt_llm)"
                    .into(),
            ));
        }
        out
    }

    /// Why the stated link cannot carry the KV cache, if it cannot.
    fn link_problem(&self, ctx: &Context) -> Option<String> {
        let id = self.link?;
        let entry = crate::catalog::link(id);
        match entry.role {
            crate::catalog::LinkRole::Host => Some(format!(
                "{} joins a GPU to its host, not two GPUs; name a scale-up or scale-out link",
                entry.name
            )),
            crate::catalog::LinkRole::ScaleUp if ctx.scale_up != Some(id) => Some(format!(
                "{} is not this GPU's scale-up link ({})",
                entry.name,
                ctx.scale_up
                    .map_or("it has none", |l| crate::catalog::link(l).name)
            )),
            crate::catalog::LinkRole::ScaleUp if self.gpus() > u64::from(ctx.domain) => {
                Some(format!(
                    "{} does not reach across nodes: the pools take {} GPUs, one scale-up domain holds {}",
                    entry.name,
                    self.gpus(),
                    ctx.domain
                ))
            }
            _ => None,
        }
    }
}

/// Whether the serving search tries disaggregated pools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum PoolSearch {
    /// Co-located replicas only.
    #[default]
    Off,
    /// Also separate prefill and decode pools, the P:D ratio following
    /// from each pool's rate.
    Explore,
}

crate::lang::named!(PoolSearch {
    PoolSearch::Off => "off", "co-located only", "仅合并部署";
    PoolSearch::Explore => "explore", "try prefill/decode pools", "尝试预填充/解码分离";
});

#[cfg(test)]
mod tests {
    #[test]
    fn layer_by_layer_transfer_follows_only_what_the_prefill_cannot_hide() {
        let after = KvTransfer::AfterPrefill;
        let layered = KvTransfer::LayerByLayer;
        // After the prefill, all of it follows.
        assert_eq!(after.exposed(2.0, 1.0, 80.0), 2.0);
        // A link slower than the prefill: the backlog follows.
        assert!((layered.exposed(2.0, 1.5, 80.0) - 0.5).abs() < 1e-12);
        // A link faster than the prefill: one layer's share follows.
        assert!((layered.exposed(0.8, 1.0, 80.0) - 0.01).abs() < 1e-12);
        // Never more than after the prefill, never less than one layer's.
        for (whole, span) in [(0.0, 1.0), (1.0, 0.0), (3.0, 3.0), (0.5, 9.0)] {
            let x = layered.exposed(whole, span, 40.0);
            assert!(
                x <= whole + 1e-12 && x >= whole / 40.0 - 1e-12,
                "{whole} {span}: {x}"
            );
        }
        assert_eq!(KvTransfer::LayerByLayer.key(), "layer_by_layer");
    }

    use super::{Disaggregation, KvTransfer};
    use crate::lang::Named;

    #[test]
    fn halves_split_the_replicas_and_need_two() {
        let d = Disaggregation::halves(4, 8).expect("two TP-4 replicas");
        assert_eq!((d.prefill.tp, d.prefill.replicas), (4, 1));
        assert_eq!((d.decode.tp, d.decode.replicas), (4, 1));
        let d = Disaggregation::halves(2, 14).expect("seven TP-2 replicas");
        assert_eq!((d.prefill.replicas, d.decode.replicas), (3, 4));
        assert_eq!(d.gpus(), 14);
        assert!(Disaggregation::halves(8, 8).is_none(), "one replica");
        assert!(Disaggregation::halves(0, 1).is_none());
        assert_eq!(
            Disaggregation::halves(0, 2).map(|d| d.gpus()),
            Some(2),
            "TP 0 read as 1"
        );
    }
}
