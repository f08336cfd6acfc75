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
        },
        Sharding::Zero1 => ShardingMode {
            optimizer: true,
            gradients: false,
            parameters: false,
            exchanges: &[
                (GradientReduceScatter, StepEnd),
                (ParameterAllGather, StepStart),
            ],
        },
        Sharding::Zero2 => ShardingMode {
            optimizer: true,
            gradients: true,
            parameters: false,
            exchanges: &[
                (GradientReduceScatter, EachBackward),
                (ParameterAllGather, StepStart),
            ],
        },
        Sharding::FsdpShardGradOp => ShardingMode {
            optimizer: true,
            gradients: true,
            parameters: false,
            exchanges: &[
                (ParameterAllGather, EachForward),
                (GradientReduceScatter, EachBackward),
            ],
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
        },
        Sharding::Zero3 | Sharding::FsdpFullShard => ShardingMode {
            optimizer: true,
            gradients: true,
            parameters: true,
            exchanges: &[
                (ParameterAllGather, EachForward),
                (ParameterAllGather, EachBackward),
                (GradientReduceScatter, EachBackward),
            ],
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
            assert!(!m.gradients || m.optimizer, "{s:?}: ZeRO stages nest");
            assert!(!m.parameters || m.gradients, "{s:?}: ZeRO stages nest");
        }
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
