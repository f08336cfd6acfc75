//! The pipeline partition: which layers and ends of the model each
//! pipeline stage holds, the parameter elements one device keeps of a
//! stage after tensor and expert parallelism, the bytes per weight, and
//! the number of micro-batches a training step runs.
//!
//! Both the memory model and the time model read these; neither owns them.
//! The module sits below `resolve`: it imports only the vocabulary (model
//! shape and parameter counts, plan levers, precisions, the device role)
//! and takes a [`Partition`], a small borrowed view of the pieces it needs.
//! `resolve` builds that view from a resolved plan (`From<&Resolved>`), so
//! callers holding a resolved plan pass it as is.

use crate::diagnostics::DeviceRole;
use crate::engine::Mxfp4Layout;
use crate::fixed::FixedVec;
use crate::model::{LayerParams, ModelSpec, ParamCounts};
use crate::plan::{PipelineSchedule, Pruning, TrainingKind};
use crate::precision::{DoubleQuant, Precision};

/// What the partition helpers read of a plan: the model's shape and
/// parameter counts, the parallel degrees that split it, and what sets the
/// bytes per weight.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Partition<'a> {
    /// The model's shape (after pruning).
    pub spec: &'a ModelSpec,
    /// Its parameter counts.
    pub params: &'a ParamCounts,
    /// Tensor-parallel degree.
    pub tp: u32,
    /// Pipeline-parallel degree.
    pub pp: u32,
    /// Expert-parallel degree.
    pub ep: u32,
    /// Tensor-parallel degree inside each routed expert (TP unless
    /// `levers.moe.expert_tp` says otherwise).
    pub etp: u32,
    /// The training kind, when training (LoRA adapters, QLoRA's NF4 base);
    /// `None` when serving.
    pub training: Option<TrainingKind>,
    /// Precision of the weights as the levers set it.
    pub weights: Precision,
    /// Precision of the routed experts' weights (the weights' own unless
    /// `levers.precision.experts` sets one).
    pub experts: Precision,
    /// How the serving engine lays out MXFP4 experts on this GPU
    /// (`Checkpoint` when training).
    pub mxfp4_layout: Mxfp4Layout,
    /// The pruning lever (2:4 sparsity changes the bytes per weight).
    pub pruning: Pruning,
    /// The pipeline schedule (a V-shaped one puts both ends of the model
    /// on the first rank).
    pub schedule: PipelineSchedule,
}

/// Micro-batches per step per data-parallel rank: the global batch over
/// micro-batch × data-parallel degree, at least 1. The one place this
/// count is made (resolve, the search and the sweep all use it).
#[inline]
pub(crate) fn micro_batch_count(global_batch: u32, micro_batch: u32, dp: u32) -> u32 {
    (global_batch / micro_batch.saturating_mul(dp).max(1)).max(1)
}

/// Which layers and ends of the model one pipeline stage holds.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stage {
    pub role: DeviceRole,
    /// Pipeline rank (0 or p−1).
    pub rank: u32,
    pub dense_layers: u32,
    pub moe_layers: u32,
    pub embedding: bool,
    pub head: bool,
}

impl Stage {
    pub fn layers(&self) -> u32 {
        self.dense_layers + self.moe_layers
    }
}

/// The distinct stages of a plan: one or two (a fixed array, so the search
/// path never allocates).
pub(crate) type Stages = FixedVec<Stage, 2>;

/// The distinct stages worth reporting: the only one, or the first and
/// last. Layers are dealt as Megatron-LM does with uneven splits: the first
/// L mod p stages take one extra layer. Under a V-shaped schedule the first
/// rank also runs the last chunk, so it holds the output head and the last
/// rank neither end (`PipelineSchedule::ends_on_first_rank`).
fn stages<'a>(p: impl Into<Partition<'a>>) -> Stages {
    let r = p.into();
    let v_shaped = r.schedule.ends_on_first_rank();
    let l = r.spec.layers;
    let p = r.pp.min(l).max(1);
    let dense_total = r.params.dense_layers;
    if p == 1 {
        return Stages::one(Stage {
            role: DeviceRole::OnlyStage,
            rank: 0,
            dense_layers: dense_total,
            moe_layers: r.params.moe_layers,
            embedding: true,
            head: true,
        });
    }
    let base = l / p;
    let first = base + u32::from(l % p > 0);
    let last = base;
    let first_dense = dense_total.min(first);
    // The last stage holds layers [l - last, l); dense layers come first.
    let last_dense = dense_total.saturating_sub(l - last).min(last);
    Stages::two(
        Stage {
            role: DeviceRole::FirstStage,
            rank: 0,
            dense_layers: first_dense,
            moe_layers: first - first_dense,
            embedding: true,
            head: v_shaped,
        },
        Stage {
            role: DeviceRole::LastStage,
            rank: p - 1,
            dense_layers: last_dense,
            moe_layers: last - last_dense,
            embedding: false,
            head: !v_shaped,
        },
    )
}

/// Parameter elements one device holds for a stage, after TP and EP and
/// before any ZeRO sharding.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct StageParams {
    /// Linear-layer weights outside the routed experts (attention, dense
    /// FFN, shared experts, router).
    pub linear: f64,
    /// Routed-expert weights on this EP rank.
    pub experts: f64,
    /// Norms, biases, embeddings and output layer (kept in 16 bits when the
    /// linear layers are quantized).
    pub other: f64,
    /// The largest layer on the device (ZeRO-3 gather unit).
    pub largest_layer: f64,
    /// Σ (rows + cols) of the weight matrices (Adafactor's factored state).
    pub matrix_dims: f64,
    /// LoRA adapter parameters.
    pub adapters: f64,
}

/// Parameters of one layer on one device: (linear, routed experts, small).
/// A rank holds `kv_share` of the K/V projections (`ModelSpec::kv_share`:
/// split over at most `kv_heads` ranks, beyond that a replica of one head).
fn layer_on_device(l: &LayerParams, t: f64, ep_etp: f64, kv_share: f64) -> (f64, f64, f64) {
    let linear =
        (l.attention - l.kv_projections + l.dense_mlp + l.shared) / t + l.kv_projections * kv_share;
    let experts = l.experts / ep_etp;
    (linear, experts, l.small)
}

/// LoRA adapter parameters of one layer: r·(d_in + d_out) per adapted matrix.
fn lora_params(r: &Partition, moe: bool) -> f64 {
    let (rank, targets) = match r.training {
        Some(TrainingKind::Lora(l) | TrainingKind::Qlora(l)) => (f64::from(l.rank), l.targets),
        _ => return 0.0,
    };
    let spec = r.spec;
    let h = f64::from(spec.hidden);
    let s = spec.attention_shape();
    use crate::plan::LoraTargets as T;
    let qv = (h + s.q_width) + (h + s.v_width);
    let attn = qv + (h + s.k_width) + (s.o_width + h);
    let n = if spec.activation.is_gated() { 3.0 } else { 2.0 };
    let mlp = match (moe, spec.moe) {
        (true, Some(m)) => {
            n * (h + f64::from(m.expert_ffn)) * f64::from(m.experts)
                + if m.shared_ffn > 0 {
                    n * (h + f64::from(m.shared_ffn))
                } else {
                    0.0
                }
        }
        _ => n * (h + f64::from(spec.ffn)),
    };
    rank * match targets {
        T::QueryValue => qv,
        T::Attention => attn,
        T::AllLinear => attn + mlp,
    }
}

/// LoRA adapter parameters of the whole model (all layers, unsharded).
fn adapter_params<'a>(p: impl Into<Partition<'a>>) -> f64 {
    let r = &p.into();
    lora_params(r, false) * f64::from(r.params.dense_layers)
        + lora_params(r, true) * f64::from(r.params.moe_layers)
}

/// Parameter elements one device holds for stage `st`.
fn stage_params<'a>(p: impl Into<Partition<'a>>, st: &Stage) -> StageParams {
    let r = &p.into();
    let t = f64::from(r.tp);
    // Routed experts are split by EP across ranks and by the expert TP
    // inside each expert.
    let ep = f64::from(r.ep) * f64::from(r.etp);
    let p = r.params;
    let kv = r.spec.kv_share(t);
    let (dl, de, ds) = layer_on_device(&p.dense_layer, t, ep, kv);
    let (ml, me, ms) = layer_on_device(&p.moe_layer, t, ep, kv);
    let nd = f64::from(st.dense_layers);
    let nm = f64::from(st.moe_layers);
    let mut other = nd * ds + nm * ms;
    if st.embedding {
        other += p.embedding / t;
    }
    if st.head {
        // An untied head is its own matrix; a tied one is still copied onto
        // the last stage when PP > 1 (Megatron-LM keeps both ends in sync).
        let head = if p.lm_head > 0.0 {
            p.lm_head
        } else if !st.embedding {
            f64::from(r.spec.vocab) * f64::from(r.spec.hidden)
        } else {
            0.0
        };
        other += head / t + p.final_norm;
    }
    // The embedding and the output layer are gather units too (DeepSpeed's
    // estimator takes the largest module; FSDP wraps them in the root unit).
    let mut largest: f64 = if st.embedding { p.embedding / t } else { 0.0 };
    if st.head {
        largest = largest.max(p.lm_head / t);
    }
    if st.dense_layers > 0 {
        largest = largest.max(dl + de + ds);
    }
    if st.moe_layers > 0 {
        largest = largest.max(ml + me + ms);
    }
    StageParams {
        linear: nd * dl + nm * ml,
        experts: nm * me,
        other,
        largest_layer: largest,
        matrix_dims: (nd * p.dense_layer.matrix_dims + nm * p.moe_layer.matrix_dims) / t,
        adapters: (nd * lora_params(r, false) + nm * lora_params(r, true)) / t,
    }
}

/// The format a linear weight is stored in: QLoRA's base is NF4 whatever
/// the levers say.
fn stored<'a>(p: impl Into<Partition<'a>>, levers: Precision) -> Precision {
    match p.into().training {
        Some(TrainingKind::Qlora(_)) => Precision::Nf4 {
            double_quant: DoubleQuant::On,
        },
        _ => levers,
    }
}

/// Bytes per stored linear weight of format `w`, 2:4 pruning included.
fn linear_bytes(w: Precision, pruning: Pruning) -> f64 {
    let b = w.bytes_per_element();
    if pruning == Pruning::Sparse24 {
        // 2:4: half the values kept, 2 bits of position per kept value
        // (NVIDIA Ampere architecture whitepaper, "Fine-grained structured
        // sparsity"; cuSPARSELt compressed format).
        0.5 * b + 0.5 * 2.0 / 8.0
    } else {
        b
    }
}

/// Bytes per linear-layer weight and per other weight.
fn weight_bytes<'a>(p: impl Into<Partition<'a>>) -> (f64, f64) {
    let r = p.into();
    let w = stored(r, r.weights);
    // Embeddings, the output layer and norms are not quantized: vLLM's FP8
    // path quantizes every Linear "except for the final lm_head", and
    // GPTQ/AWQ/QLoRA leave embeddings in 16 bits. Only pure FP32 keeps them
    // wider.
    let other = if w == Precision::Fp32 {
        w.bytes_per_element()
    } else {
        Precision::Bf16.bytes_per_element()
    };
    (linear_bytes(w, r.pruning), other)
}

/// Bytes per routed-expert weight: MXFP4 as the engine lays it out on
/// the device's share of each expert (`Mxfp4Layout`), any other format as
/// stored.
fn expert_bytes<'a>(p: impl Into<Partition<'a>>) -> f64 {
    let r = p.into();
    match (stored(r, r.experts), r.spec.moe) {
        (Precision::Mxfp4, Some(m)) if r.pruning == Pruning::None => {
            let mats = if r.spec.activation.is_gated() {
                3.0
            } else {
                2.0
            };
            let width = m.expert_ffn / r.etp.max(1);
            r.mxfp4_layout.bytes_per_weight(r.spec.hidden, width, mats)
        }
        (w, _) => linear_bytes(w, r.pruning),
    }
}

/// The partition of one resolved plan, computed once: its stages, what
/// each stage's device holds, the bytes per weight and the adapters. The
/// memory and time models read these instead of recomputing them, and
/// `resolve` (and the search, per candidate) refresh it whenever the
/// degrees, the weight format or the model change.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Split {
    /// The distinct stages (one, or the first and the last).
    pub stages: Stages,
    /// Parameters per device of each stage, in `stages` order.
    params: [StageParams; 2],
    /// Bytes per linear-layer weight and per other weight.
    pub weight_bytes: (f64, f64),
    /// Bytes per routed-expert weight (the linear layers' unless the
    /// experts have a format of their own).
    pub expert_bytes: f64,
    /// LoRA adapter parameters of the whole model.
    pub adapters: f64,
}

impl Split {
    /// A placeholder, replaced by [`Split::of`] before use.
    pub const EMPTY: Split = Split {
        stages: Stages::one(Stage {
            role: DeviceRole::OnlyStage,
            rank: 0,
            dense_layers: 0,
            moe_layers: 0,
            embedding: false,
            head: false,
        }),
        params: [StageParams {
            linear: 0.0,
            experts: 0.0,
            other: 0.0,
            largest_layer: 0.0,
            matrix_dims: 0.0,
            adapters: 0.0,
        }; 2],
        weight_bytes: (0.0, 0.0),
        expert_bytes: 0.0,
        adapters: 0.0,
    };

    /// The partition of `p`.
    pub fn of<'a>(p: impl Into<Partition<'a>>) -> Split {
        let p = p.into();
        let stages = stages(p);
        let mut params = [StageParams::default(); 2];
        for (slot, st) in params.iter_mut().zip(stages.iter()) {
            *slot = stage_params(p, st);
        }
        Split {
            stages,
            params,
            weight_bytes: weight_bytes(p),
            expert_bytes: expert_bytes(p),
            adapters: adapter_params(p),
        }
    }

    /// What a device of stage `st` holds (a stage of this split, found by
    /// its pipeline rank).
    #[inline]
    pub fn params(&self, st: &Stage) -> StageParams {
        let i = self
            .stages
            .iter()
            .position(|s| s.rank == st.rank)
            .unwrap_or(0);
        self.params[i]
    }
}
