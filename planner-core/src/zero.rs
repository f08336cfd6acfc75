//! Model-state memory under ZeRO / FSDP sharding.
//!
//! Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion
//! Parameter Models" (SC'20, arXiv:1910.02054) §5.1–5.3: with N_d
//! data-parallel ranks, P_os (stage 1) divides optimizer states by N_d,
//! P_os+g (stage 2) also gradients, P_os+g+p (stage 3) also parameters.
//! The paper counts the FP32 master copy among the optimizer states
//! (K = 12 = 4 master + 4 momentum + 4 variance); here the master copy is
//! its own term, sharded with the optimizer states.

use crate::plan::Sharding;
use crate::units::Bytes;

/// Bytes per parameter of each model state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StateBytes {
    /// Working weights.
    pub weights: f64,
    /// Gradients.
    pub gradients: f64,
    /// Master weights (0 when the weights are updated in place).
    pub master: f64,
    /// Optimizer moments.
    pub optimizer: f64,
}

/// Model-state bytes on one rank.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelStates {
    /// Working weights.
    pub weights: Bytes,
    /// Gradients.
    pub gradients: Bytes,
    /// Master weights.
    pub master: Bytes,
    /// Optimizer moments.
    pub optimizer: Bytes,
}

impl ModelStates {
    /// All four together.
    pub fn total(&self) -> Bytes {
        self.weights + self.gradients + self.master + self.optimizer
    }
}

/// A data-parallel exchange of a sharding mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exchange {
    /// Gradients all-reduced (each rank ends with the whole sum).
    GradientAllReduce,
    /// Gradients reduce-scattered (each rank ends with its shard's sum).
    GradientReduceScatter,
    /// Parameters all-gathered from their shards.
    ParameterAllGather,
}

/// When an exchange runs, and so which compute it can hide behind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cadence {
    /// In every micro-batch's forward pass.
    EachForward,
    /// In every micro-batch's backward pass.
    EachBackward,
    /// Once a step, in the last micro-batch's backward.
    StepEnd,
    /// Once a step, after the optimizer, before the first forward.
    StepStart,
}

/// One sharding mode: what each rank keeps sharded at the memory peak,
/// and the exchanges it runs with gradient accumulation. The memory model
/// reads the first three fields and the time model the exchanges, so the
/// two cannot disagree; `tests::memory_and_traffic_agree` checks the
/// rules that tie them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardingMode {
    /// Optimizer states and master weights divided over the group.
    pub optimizer: bool,
    /// Gradients divided over the group during accumulation.
    pub gradients: bool,
    /// Parameters divided over the group between uses.
    pub parameters: bool,
    /// The exchanges, with when they run.
    pub exchanges: &'static [(Exchange, Cadence)],
    /// How the per-micro-batch parameter gathers are cut and prefetched.
    pub gather: Gathering,
}

/// How a mode gathers parameters within a pass: the unit a gather
/// brings in, how far ahead the next one is fetched, and so both what is
/// live at once (memory) and how many collectives a pass issues and what
/// they hide behind (time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gathering {
    /// No gathers inside a pass (parameters whole, or gathered once a step).
    None,
    /// PyTorch FSDP: one wrapped unit (a transformer block) per all-gather,
    /// the next unit prefetched (`forward_prefetch` /
    /// `BackwardPrefetch.BACKWARD_PRE`; FSDP2 prefetches one block by
    /// default): two blocks live, one collective per block and pass.
    PerBlock,
    /// DeepSpeed ZeRO-3: each submodule's parameters are fetched as it
    /// runs and the following ones prefetched up to
    /// `stage3_prefetch_bucket_size` elements, as long as fewer than
    /// `stage3_max_live_parameters` are resident; parameters smaller than
    /// `stage3_param_persistence_threshold` are never partitioned
    /// (`PartitionedParameterCoordinator`, deepspeed/runtime/zero/
    /// partitioned_param_coordinator.py; knobs in [`Zero3Fetch`]).
    Prefetch,
}

pub use crate::plan::Zero3Fetch;

/// The shape of one transformer block's parameters on a rank, as the
/// gather schedule sees it (elements, after TP).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlockShape {
    /// Elements of the largest gather unit (the largest block, or the
    /// embedding / output layer when larger).
    pub block: f64,
    /// Elements of the largest single weight matrix (DeepSpeed's
    /// smallest fetch: a submodule is gathered whole).
    pub largest_matrix: f64,
    /// Weight matrices per block (each its own submodule).
    pub matrices: u32,
}

/// One pass's parameter gathers: what is live at once and how they are
/// issued.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GatherSchedule {
    /// Gathered elements resident at once at the peak.
    pub live: f64,
    /// All-gathers issued per block and pass.
    pub per_block: f64,
    /// The next gather is in flight while the current unit computes. When
    /// false every gather is on demand and waits in full.
    pub prefetched: bool,
}

/// The gather schedule of `g` for a block of `shape` (the one definition
/// the memory and the time model both read).
///
/// - FSDP: the current and the prefetched block, one all-gather each.
/// - DeepSpeed: the running submodule (at least the largest matrix) plus
///   what the prefetch may bring in, min(bucket, max-live − running),
///   never below zero. A bucket coalesces submodules smaller than itself
///   into one all-gather; a submodule larger than the bucket is its own,
///   so a block issues ⌈block ÷ bucket⌉ gathers, at least one and at most
///   one per matrix. With no room to prefetch, every fetch is on demand.
pub fn gather_schedule(g: Gathering, cfg: &Zero3Fetch, shape: BlockShape) -> GatherSchedule {
    match g {
        Gathering::None => GatherSchedule {
            live: 0.0,
            per_block: 0.0,
            prefetched: false,
        },
        Gathering::PerBlock => GatherSchedule {
            live: 2.0 * shape.block,
            per_block: 1.0,
            prefetched: true,
        },
        Gathering::Prefetch => {
            let running = shape.largest_matrix.min(shape.block).max(0.0);
            let room = (cfg.max_live as f64 - running).max(0.0);
            let ahead = (cfg.prefetch_bucket as f64).min(room).min(shape.block);
            let matrices = f64::from(shape.matrices.max(1));
            let per_block = if ahead >= 1.0 {
                (shape.block / ahead).ceil().clamp(1.0, matrices)
            } else {
                matrices
            };
            GatherSchedule {
                live: running + ahead,
                per_block,
                prefetched: ahead >= 1.0,
            }
        }
    }
}

/// The one definition of each sharding mode.
///
/// - Plain data parallelism accumulates locally (DDP's `no_sync`) and
///   all-reduces once, in the last backward (PyTorch DDP documentation,
///   `no_sync`).
/// - ZeRO-1 / Megatron's distributed optimizer: whole gradients accumulate
///   locally, one reduce-scatter a step, the updated parameters all-gathered
///   once (ZeRO §5.1; Megatron-LM `distrib_optimizer.md`).
/// - ZeRO-2 keeps only its gradient shard, so every micro-batch's
///   gradients are reduce-scattered as backward produces them (ZeRO §5.2;
///   DeepSpeed's `reduce_scatter` with buckets).
/// - ZeRO-3 and FSDP FULL_SHARD gather each layer's parameters for forward
///   and again for backward, and reduce-scatter its gradients, every
///   micro-batch (ZeRO §5.3 and §7: 1.5× the data-parallel volume; Zhao et
///   al., "PyTorch FSDP", VLDB 2023 §3.2).
/// - FSDP SHARD_GRAD_OP keeps parameters gathered from forward to the end of
///   backward, then reshards: one all-gather in every forward and a
///   reduce-scatter in every backward; gradients are sharded between
///   micro-batches (PyTorch `ShardingStrategy.SHARD_GRAD_OP`: "parameters
///   are not resharded after forward").
/// - SHARD_GRAD_OP under `no_sync` accumulates whole gradients and keeps
///   the parameters gathered across micro-batches: ZeRO-1's memory and
///   traffic, an explicit choice of its own.
pub fn mode(s: Sharding) -> ShardingMode {
    use Cadence::*;
    use Exchange::*;
    match s {
        Sharding::None => ShardingMode {
            optimizer: false,
            gradients: false,
            parameters: false,
            exchanges: &[(GradientAllReduce, StepEnd)],
            gather: Gathering::None,
        },
        Sharding::Zero1 => ShardingMode {
            optimizer: true,
            gradients: false,
            parameters: false,
            exchanges: &[
                (GradientReduceScatter, StepEnd),
                (ParameterAllGather, StepStart),
            ],
            gather: Gathering::None,
        },
        Sharding::Zero2 => ShardingMode {
            optimizer: true,
            gradients: true,
            parameters: false,
            exchanges: &[
                (GradientReduceScatter, EachBackward),
                (ParameterAllGather, StepStart),
            ],
            gather: Gathering::None,
        },
        Sharding::FsdpShardGradOp => ShardingMode {
            optimizer: true,
            gradients: true,
            parameters: false,
            exchanges: &[
                (ParameterAllGather, EachForward),
                (GradientReduceScatter, EachBackward),
            ],
            gather: Gathering::PerBlock,
        },
        // FSDP1 keeps SHARD_GRAD_OP's parameters unsharded through backward
        // while gradients are not synchronised (`_should_free_in_backward`),
        // so under `no_sync` they are gathered once a step.
        Sharding::FsdpShardGradOpNoSync => ShardingMode {
            optimizer: true,
            gradients: false,
            parameters: false,
            exchanges: &[
                (GradientReduceScatter, StepEnd),
                (ParameterAllGather, StepStart),
            ],
            gather: Gathering::None,
        },
        Sharding::Zero3 => ShardingMode {
            optimizer: true,
            gradients: true,
            parameters: true,
            exchanges: &[
                (ParameterAllGather, EachForward),
                (ParameterAllGather, EachBackward),
                (GradientReduceScatter, EachBackward),
            ],
            gather: Gathering::Prefetch,
        },
        Sharding::FsdpFullShard => ShardingMode {
            optimizer: true,
            gradients: true,
            parameters: true,
            exchanges: &[
                (ParameterAllGather, EachForward),
                (ParameterAllGather, EachBackward),
                (GradientReduceScatter, EachBackward),
            ],
            gather: Gathering::PerBlock,
        },
    }
}

/// Which states a sharding level divides: (optimizer and master,
/// gradients, parameters), from [`mode`].
pub fn sharded_states(s: Sharding) -> (bool, bool, bool) {
    let m = mode(s);
    (m.optimizer, m.gradients, m.parameters)
}

/// Model-state bytes of `params` parameters (an element count, fractional
/// where TP splits a matrix unevenly) on one of `group` sharding ranks.
pub fn model_states(params: f64, per: StateBytes, sharding: Sharding, group: u32) -> ModelStates {
    let (opt, grad, param) = sharded_states(sharding);
    let n = f64::from(group.max(1));
    let div = |on: bool| if on { n } else { 1.0 };
    ModelStates {
        weights: Bytes::new(params * per.weights / div(param)),
        gradients: Bytes::new(params * per.gradients / div(grad)),
        master: Bytes::new(params * per.master / div(opt)),
        optimizer: Bytes::new(params * per.optimizer / div(opt)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [Sharding; 7] = [
        Sharding::None,
        Sharding::Zero1,
        Sharding::Zero2,
        Sharding::Zero3,
        Sharding::FsdpFullShard,
        Sharding::FsdpShardGradOp,
        Sharding::FsdpShardGradOpNoSync,
    ];

    /// The rules that tie what a mode keeps sharded to what it exchanges:
    /// a rank that keeps only a gradient shard must reduce-scatter every
    /// micro-batch (it cannot accumulate the whole locally); one that keeps
    /// whole gradients exchanges them once a step; sharded parameters are
    /// gathered for every forward and backward; a sharded optimizer with
    /// whole parameters gathers the updated parameters at least once a step;
    /// every mode reduces its gradients exactly once per accumulation unit.
    #[test]
    fn memory_and_traffic_agree() {
        use Cadence::*;
        use Exchange::*;
        for s in ALL {
            let m = mode(s);
            let has = |e: Exchange, c: Cadence| m.exchanges.contains(&(e, c));
            let grad: Vec<_> = m
                .exchanges
                .iter()
                .filter(|(e, _)| *e != ParameterAllGather)
                .collect();
            assert_eq!(grad.len(), 1, "{s:?}: one gradient exchange");
            let (_, cadence) = grad[0];
            if m.gradients {
                assert_eq!(*cadence, EachBackward, "{s:?}: sharded gradients");
            } else {
                assert_eq!(*cadence, StepEnd, "{s:?}: whole gradients");
            }
            if m.parameters {
                assert!(
                    has(ParameterAllGather, EachForward) && has(ParameterAllGather, EachBackward)
                );
            }
            if m.optimizer && !m.parameters {
                assert!(
                    has(ParameterAllGather, StepStart) || has(ParameterAllGather, EachForward),
                    "{s:?}: updated parameters must be gathered"
                );
            }
            if !m.optimizer {
                assert!(!m.exchanges.iter().any(|(e, _)| *e == ParameterAllGather));
            }
            // Gathers inside the passes need a gather schedule, and only
            // they have one; sharded parameters are gathered that way.
            let per_pass = has(ParameterAllGather, EachForward);
            assert_eq!(per_pass, m.gather != Gathering::None, "{s:?}: gather");
            if m.parameters {
                assert_ne!(m.gather, Gathering::None, "{s:?}");
            }
            assert!(!m.gradients || m.optimizer, "{s:?}: ZeRO stages nest");
            assert!(!m.parameters || m.gradients, "{s:?}: ZeRO stages nest");
        }
    }

    /// Every gather schedule holds at least what one of its gathers
    /// brings in (memory ≥ the traffic's unit), issues at least one
    /// gather per block, and never more than one per matrix.
    #[test]
    fn gather_memory_holds_what_each_gather_moves() {
        let shapes = [
            (2.0e8, 5.9e7, 7),
            (7.86e9, 2.62e9, 6),
            (1.8e9, 6.0e8, 6),
            (1.0e6, 2.5e5, 7),
        ];
        let knobs = [
            Zero3Fetch::default(),
            Zero3Fetch {
                prefetch_bucket: 0,
                ..Zero3Fetch::default()
            },
            Zero3Fetch {
                max_live: 1,
                ..Zero3Fetch::default()
            },
            Zero3Fetch {
                prefetch_bucket: 5_000_000_000,
                max_live: 100_000_000_000,
                ..Zero3Fetch::default()
            },
        ];
        for (block, largest_matrix, matrices) in shapes {
            let shape = BlockShape {
                block,
                largest_matrix,
                matrices,
            };
            for cfg in &knobs {
                for g in [Gathering::PerBlock, Gathering::Prefetch] {
                    let p = gather_schedule(g, cfg, shape);
                    assert!(p.per_block >= 1.0 && p.per_block <= f64::from(matrices));
                    let unit = block / p.per_block;
                    assert!(
                        p.live >= unit.min(largest_matrix) - 1e-6,
                        "{g:?} {cfg:?}: {} < {unit}",
                        p.live
                    );
                }
            }
        }
    }

    /// More room under `stage3_max_live_parameters` never holds less
    /// memory or issues more gathers, and a larger prefetch bucket never
    /// issues more gathers.
    #[test]
    fn max_live_and_prefetch_are_monotone() {
        let shape = BlockShape {
            block: 1.8e9,
            largest_matrix: 6.0e8,
            matrices: 6,
        };
        let mut last: Option<GatherSchedule> = None;
        for max_live in [
            0,
            1,
            100_000_000,
            600_000_000,
            650_000_000,
            1_000_000_000,
            5_000_000_000,
        ] {
            let cfg = Zero3Fetch {
                max_live,
                ..Zero3Fetch::default()
            };
            let p = gather_schedule(Gathering::Prefetch, &cfg, shape);
            if let Some(l) = last {
                assert!(p.live >= l.live && p.per_block <= l.per_block);
                assert!(p.prefetched || !l.prefetched);
            }
            last = Some(p);
        }
        let few = |prefetch_bucket| {
            let cfg = Zero3Fetch {
                prefetch_bucket,
                ..Zero3Fetch::default()
            };
            gather_schedule(Gathering::Prefetch, &cfg, shape).per_block
        };
        assert!(few(10_000_000) >= few(50_000_000));
        assert!(few(50_000_000) >= few(400_000_000));
        // A 1T block (7.86 B elements, 2.62 B-element FFN matrices) is past
        // the default max-live: the running matrix alone is resident and
        // every fetch is on demand.
        let big = BlockShape {
            block: 7.86e9,
            largest_matrix: 2.62e9,
            matrices: 6,
        };
        let p = gather_schedule(Gathering::Prefetch, &Zero3Fetch::default(), big);
        assert_eq!(p.live, 2.62e9);
        assert!(!p.prefetched);
    }

    /// ZeRO's mixed-precision Adam: 2 + 2 + K with K = 12.
    const ZERO_ADAM: StateBytes = StateBytes {
        weights: 2.0,
        gradients: 2.0,
        master: 4.0,
        optimizer: 8.0,
    };

    #[test]
    fn zero_figure1_7_5b_at_64() {
        let gb = |s: Sharding| model_states(7.5e9, ZERO_ADAM, s, 64).total().as_gb();
        assert_eq!(gb(Sharding::None), 120.0);
        assert!((gb(Sharding::Zero1) - 31.406_25).abs() < 1e-9);
        assert!((gb(Sharding::Zero2) - 16.640_625).abs() < 1e-9);
        assert!((gb(Sharding::Zero3) - 1.875).abs() < 1e-9);
    }

    #[test]
    fn megatron_distributed_optimizer() {
        // theoretical_memory_usage.py: 6 + 12/d bytes/param (BF16 weights,
        // FP32 main grads, FP32 master + Adam, distributed optimizer).
        let per = StateBytes {
            weights: 2.0,
            gradients: 4.0,
            master: 4.0,
            optimizer: 8.0,
        };
        let b = model_states(1.0, per, Sharding::Zero1, 8)
            .total()
            .as_bytes();
        assert_eq!(b, 7.5);
        assert_eq!(
            model_states(1.0, per, Sharding::None, 8).total().as_bytes(),
            18.0
        );
    }
}
