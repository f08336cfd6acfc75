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

/// Which states a sharding level divides: (optimizer and master,
/// gradients, parameters). FSDP SHARD_GRAD_OP keeps the parameters
/// gathered between forward and backward, so at the peak they are whole.
pub fn sharded_states(s: Sharding) -> (bool, bool, bool) {
    match s {
        Sharding::None => (false, false, false),
        Sharding::Zero1 => (true, false, false),
        Sharding::Zero2 | Sharding::FsdpShardGradOp => (true, true, false),
        Sharding::Zero3 | Sharding::FsdpFullShard => (true, true, true),
    }
}

/// Model-state bytes of `params` parameters on one of `group` sharding ranks.
pub fn model_states(params: f64, per: StateBytes, sharding: Sharding, group: f64) -> ModelStates {
    let (opt, grad, param) = sharded_states(sharding);
    let n = group.max(1.0);
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

    /// ZeRO's mixed-precision Adam: 2 + 2 + K with K = 12.
    const ZERO_ADAM: StateBytes = StateBytes {
        weights: 2.0,
        gradients: 2.0,
        master: 4.0,
        optimizer: 8.0,
    };

    #[test]
    fn zero_figure1_7_5b_at_64() {
        let gb = |s: Sharding| model_states(7.5e9, ZERO_ADAM, s, 64.0).total().as_gb();
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
        let b = model_states(1.0, per, Sharding::Zero1, 8.0)
            .total()
            .as_bytes();
        assert_eq!(b, 7.5);
        assert_eq!(
            model_states(1.0, per, Sharding::None, 8.0)
                .total()
                .as_bytes(),
            18.0
        );
    }
}
