//! The tensors each memory item is made of, so the allocator model
//! (`allocator.rs`) can round them as PyTorch's caching allocator does.
//!
//! Items are totals; the allocator sees tensors. This module says, per
//! item kind, what one tensor of it is on this rank:
//! - model states are one tensor per weight matrix (HF, torchtitan's
//!   per-parameter FSDP2 shards), or flat buffers where the stack keeps
//!   them so: Megatron-Core's contiguous `_ParamAndGradBuffer` and
//!   distributed optimizer, DeepSpeed ZeRO's flat partitions;
//! - FSDP/ZeRO-3 gathers a layer into one flat buffer;
//! - activations are s·b·h-sized tensors and FFN/attention intermediates;
//! - the loss works on s·b·v/t logits;
//! - a KV cache is one tensor per layer.

use super::allocator::Pools;
use crate::plan::Sharding;
use crate::report::ItemKind;
use crate::resolve::{Resolved, Work};
use crate::software::MemoryStack;
use crate::zero::sharded_states;

/// Tensor sizes of one rank, in elements unless named bytes.
pub(crate) struct Granules {
    /// One layer's weight matrices on this rank (after TP), in elements.
    matrices: [f64; 7],
    /// Divisors of the per-parameter shards: (weights, grads, optimizer).
    shards: (f64, f64, f64),
    /// States live in flat buffers (Megatron, DeepSpeed ZeRO).
    flat: bool,
    /// Bytes per element: weights, gradients, master, optimizer moments.
    widths: [f64; 4],
    /// Bytes of one hidden-sized activation, one FFN and one attention
    /// intermediate, and one head's score matrix (eager attention).
    acts: [f64; 4],
    /// Bytes of one logits tensor (FP32, the rank's vocabulary slice).
    logits: f64,
    /// Bytes of one adapter matrix.
    adapter: f64,
    /// Layers on the device (a KV cache is one tensor per layer).
    layers: f64,
}

impl Granules {
    pub fn new(r: &Resolved) -> Self {
        let s = &r.spec;
        let t = f64::from(r.tp.max(1));
        let h = f64::from(s.hidden);
        let shape = s.attention_shape();
        let (f, k) = match s.moe {
            Some(m) if s.ffn == 0 => (f64::from(m.expert_ffn), 1.0),
            _ => (f64::from(s.ffn), 1.0),
        };
        let gated = if s.activation.is_gated() { 1.0 } else { 0.0 };
        let matrices = [
            h * shape.q_width / t,
            h * shape.k_width / t,
            h * shape.v_width / t,
            h * shape.o_width / t,
            k * h * f / t,
            k * h * f / t,
            gated * h * f / t,
        ];
        let n = f64::from(
            r.levers
                .shard_group
                .unwrap_or(r.dp.saturating_mul(r.cp))
                .max(1),
        );
        let (opt, grad, param) = sharded_states(r.levers.sharding);
        let d = |on: bool| if on { n } else { 1.0 };
        let zero = matches!(
            r.levers.sharding,
            Sharding::Zero1 | Sharding::Zero2 | Sharding::Zero3
        );
        let p = &r.levers.precision;
        let (seq, batch) = match r.work {
            Work::Train { seq, .. } => (
                f64::from(seq) / f64::from(r.cp.max(1)),
                f64::from(r.levers.parallel.micro_batch),
            ),
            Work::Infer { prompt, batch, .. } => (f64::from(prompt), f64::from(batch)),
        };
        let ab = p.activations.bytes_per_element();
        let sb = seq * batch;
        let adapter = match r.work {
            Work::Train {
                kind: crate::plan::TrainingKind::Lora(l) | crate::plan::TrainingKind::Qlora(l),
                ..
            } => f64::from(l.rank) * h * l.adapter_precision.bytes_per_element(),
            _ => 0.0,
        };
        Self {
            matrices,
            shards: (d(param), d(grad), d(opt)),
            flat: zero || r.levers.memory.stack() == MemoryStack::Megatron,
            // Quantized weights keep their scales in separate small
            // tensors: the matrices themselves are whole half-bytes.
            widths: [
                ((r.split.weight_bytes.0 * 2.0).floor() / 2.0).max(0.5),
                p.gradients.bytes_per_element(),
                p.master.map_or(4.0, |m| m.bytes_per_element()),
                p.optimizer.bytes_per_element(),
            ],
            acts: [
                sb * h * ab,
                sb * f / t * ab,
                sb * shape.q_width / t * ab,
                match r.levers.attention {
                    crate::plan::AttentionKernel::Eager => sb * f64::from(s.heads) / t * seq * ab,
                    crate::plan::AttentionKernel::Flash => 0.0,
                },
            ],
            logits: 4.0 * sb * f64::from(s.vocab) / t,
            adapter,
            layers: f64::from(s.layers.max(1)),
        }
    }

    /// The tensors `bytes` of `kind` are held as on this rank, by pool.
    pub fn pools(&self, kind: ItemKind, bytes: f64) -> Pools {
        let states = |width: f64, shard: f64| -> Pools {
            if self.flat {
                return Pools::split(bytes, bytes);
            }
            let mut shapes = self.matrices;
            for m in &mut shapes {
                *m *= width / shard;
            }
            Pools::mix(bytes, &shapes)
        };
        let (sw, sg, so) = self.shards;
        let [w, g, m, o] = self.widths;
        match kind {
            ItemKind::Weights => states(w, sw),
            ItemKind::Fp8WeightCopies => states(1.0, sw),
            ItemKind::AutocastCache => states(2.0, sw),
            ItemKind::Gradients => states(g, sg),
            ItemKind::MasterWeights => states(m, so),
            ItemKind::OptimizerStates | ItemKind::OptimizerTemporaries => states(o, so),
            ItemKind::Adapters => Pools::split(bytes, self.adapter),
            ItemKind::Activations
            | ItemKind::EmbeddingActivations
            | ItemKind::RecomputeWorkingSet
            | ItemKind::BackwardWorkingSet => Pools::mix(bytes, &self.acts),
            ItemKind::Logits => Pools::split(bytes, self.logits),
            ItemKind::KvCache | ItemKind::KvCacheWaste => Pools::split(bytes, bytes / self.layers),
            // One flat buffer (a gathered layer), or one working set.
            ItemKind::GatherBuffers | ItemKind::PrefillActivations => Pools::split(bytes, bytes),
            // Not tensors of the allocator.
            ItemKind::CudaContext
            | ItemKind::Workspace
            | ItemKind::NcclBuffers
            | ItemKind::Fragmentation
            | ItemKind::AllocatorRounding => Pools::default(),
        }
    }
}
