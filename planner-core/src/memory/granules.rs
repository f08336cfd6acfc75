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

use super::allocator::{MixMemo, Pools, Shapes};
use crate::plan::Sharding;
use crate::report::ItemKind;
use crate::resolve::{Resolved, Work};
use crate::software::MemoryStack;
use crate::zero::sharded_states;

/// Tensor sizes of one rank, in elements unless named bytes.
#[derive(Debug, Clone)]
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
    /// intermediate, and one head's score matrix (eager attention); the
    /// last three of seven unused.
    acts: [f64; 7],
    /// The same, rounded once for the four activation kinds, where a
    /// caller evaluates the plan again ([`Granules::rounded`]); the search
    /// rounds them only when its memo misses.
    act_shapes: Option<Shapes>,
    /// Bytes of one logits tensor (FP32, the rank's vocabulary slice).
    logits: f64,
    /// Bytes of one adapter matrix.
    adapter: f64,
    /// Layers on the device (a KV cache is one tensor per layer).
    layers: f64,
    /// The library workspaces, as (count, bytes of each)
    /// (`memory::workspace_tensors`).
    workspaces: [(f64, f64); 3],
}

impl Granules {
    /// The tensor sizes of `r` when its allocator reserve is the caching
    /// allocator's (none under a flat `overheads.fragmentation`).
    pub fn of(r: &Resolved) -> Option<Self> {
        r.overheads.fragmentation.is_none().then(|| Self::new(r))
    }

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
        let acts = [
            sb * h * ab,
            sb * f / t * ab,
            sb * shape.q_width / t * ab,
            match r.levers.attention {
                crate::plan::AttentionKernel::Eager => sb * f64::from(s.heads) / t * seq * ab,
                crate::plan::AttentionKernel::Flash | crate::plan::AttentionKernel::FlashTriton => {
                    0.0
                }
            },
            0.0,
            0.0,
            0.0,
        ];
        Self {
            matrices,
            shards: (d(param), d(grad), d(opt)),
            flat: zero || r.levers.memory.stack() == MemoryStack::Megatron,
            // Quantized weights keep their scales in separate small
            // tensors: the matrices themselves are whole half-bytes.
            widths: [
                (super::allocator::floor(r.split.weight_bytes.0 * 2.0) / 2.0).max(0.5),
                p.gradients.bytes_per_element(),
                p.master.map_or(4.0, |m| m.bytes_per_element()),
                p.optimizer.bytes_per_element(),
            ],
            acts,
            act_shapes: None,
            logits: 4.0 * sb * f64::from(s.vocab) / t,
            adapter,
            layers: f64::from(s.layers.max(1)),
            workspaces: super::workspace_tensors(r),
        }
    }

    /// The same sizes with the activation shapes rounded once, for a
    /// plan evaluated again and again (`quick::Prepared`).
    pub fn rounded(self) -> Self {
        Self {
            act_shapes: Some(Shapes::new(&self.acts)),
            ..self
        }
    }

    /// The tensors `bytes` of `kind` are held as on this rank, by pool;
    /// mixes of several shapes go through `memo` when there is one.
    pub fn pools(&self, kind: ItemKind, bytes: f64, memo: Option<&mut MixMemo>) -> Pools {
        let states = |width: f64, shard: f64, memo: Option<&mut MixMemo>| -> Pools {
            if self.flat {
                return Pools::one(bytes);
            }
            let mut shapes = self.matrices;
            for m in &mut shapes {
                *m *= width / shard;
            }
            mixed(bytes, &shapes, None, memo)
        };
        let (sw, sg, so) = self.shards;
        let [w, g, m, o] = self.widths;
        match kind {
            ItemKind::Weights => states(w, sw, memo),
            ItemKind::Fp8WeightCopies => states(1.0, sw, memo),
            ItemKind::AutocastCache => states(2.0, sw, memo),
            ItemKind::Gradients => states(g, sg, memo),
            ItemKind::MasterWeights => states(m, so, memo),
            ItemKind::OptimizerStates | ItemKind::OptimizerTemporaries => states(o, so, memo),
            ItemKind::Adapters => Pools::split(bytes, self.adapter),
            ItemKind::Activations
            | ItemKind::EmbeddingActivations
            | ItemKind::RecomputeWorkingSet
            | ItemKind::BackwardWorkingSet => {
                mixed(bytes, &self.acts, self.act_shapes.as_ref(), memo)
            }
            ItemKind::Logits => Pools::split(bytes, self.logits),
            ItemKind::KvCache | ItemKind::KvCacheWaste => Pools::split(bytes, bytes / self.layers),
            // One flat buffer (a gathered layer), or one working set.
            ItemKind::GatherBuffers | ItemKind::PrefillActivations => Pools::one(bytes),
            // Each library's workspace apart; `bytes` is their sum.
            ItemKind::Workspace => self
                .workspaces
                .iter()
                .fold(Pools::default(), |p, &(n, each)| {
                    p.add(Pools::same(n, each))
                }),
            // Not tensors of the allocator.
            ItemKind::CudaContext
            | ItemKind::NcclBuffers
            | ItemKind::Fragmentation
            | ItemKind::AllocatorRounding
            | ItemKind::AllocatorCache => Pools::default(),
        }
    }
}

/// `Pools::mix(total, raw)`, from the memo when there is one and it holds
/// these operands; `rounded` is `raw` already rounded, when it is at hand.
fn mixed(
    total: f64,
    raw: &[f64; 7],
    rounded: Option<&Shapes>,
    memo: Option<&mut MixMemo>,
) -> Pools {
    let mix = || match rounded {
        Some(shapes) => Pools::mix(total, shapes),
        None => Pools::mix(total, &Shapes::new(raw)),
    };
    match memo {
        Some(memo) => memo.get_or(total, raw, mix),
        None => mix(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::GpuId;
    use crate::hardware::GpuChoice;

    const MIB: f64 = 1_048_576.0;

    /// The library workspaces reach the allocator as the tensors they are:
    /// on an A100 in training two 8.125 MiB cuBLAS workspaces, which share
    /// the large pool's 20 MiB segments with Transformer Engine's 4 MiB
    /// (the example plan runs Megatron-Core), and two 1 MiB cuBLASLt ones
    /// in the small pool; not one 22.25 MiB tensor in a segment of its own.
    #[test]
    fn workspaces_are_held_as_their_own_tensors() {
        let mut p = crate::examples::example_plan();
        p.hardware.gpu = GpuChoice::Preset(GpuId::A100Sxm80);
        let r = crate::resolve::resolve(&p).0;
        let tensors = super::super::workspace_tensors(&r);
        let total: f64 = tensors.iter().map(|(n, each)| n * each).sum();
        assert_eq!(total, (2.0 * 9.125 + 4.0) * MIB);
        let pools = Granules::new(&r).pools(ItemKind::Workspace, total, None);
        let held = Pools::same(2.0, 8.125 * MIB)
            .add(Pools::same(2.0, MIB))
            .add(Pools::same(1.0, 4.0 * MIB));
        assert_eq!(pools, held);
        assert_ne!(pools, Pools::one(total));
        // A set total is one tensor.
        p.overheads.workspace = Some(crate::units::Bytes::new(64.0 * MIB));
        let r = crate::resolve::resolve(&p).0;
        let set = Granules::new(&r).pools(ItemKind::Workspace, 64.0 * MIB, None);
        assert_eq!(set, Pools::one(64.0 * MIB));
    }
}
