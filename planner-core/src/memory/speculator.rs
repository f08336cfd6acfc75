//! The drafter of speculative decoding as the memory and time models see
//! it: a draft model of its own or heads on the target, resolved beside
//! the target (its weights, KV per token and layers). The time it takes
//! is in `time/speculative.rs`.

use super::kv_per_token_layer_rank;
use crate::engine::{Drafter, Speculation};
use crate::resolve::Resolved;

/// The drafter as the models run it, and the speculation settings.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Speculator {
    /// The drafter, resolved at the target's GPU, TP degree and formats:
    /// a draft model of its own, or the target's shape cut to the head's
    /// layers (the output layer counted, as each draft step samples).
    pub draft: Resolved,
    /// The settings.
    pub spec: Speculation,
}

impl Speculator {
    /// The plan's speculation, when it drafts at least one token.
    pub fn of(r: &Resolved) -> Option<Speculator> {
        let spec = r.levers.speculative.filter(Speculation::active)?;
        Some(Speculator {
            draft: drafter(r, spec.drafter),
            spec,
        })
    }

    /// Positions the target verifies per decoding sequence (k + 1).
    pub fn width(&self) -> u32 {
        self.spec.tokens + 1
    }

    /// Expected tokens emitted per decoding sequence and iteration.
    pub fn expected(&self) -> f64 {
        self.spec.expected_tokens()
    }

    /// Drafter layers held on the device with the output layer.
    pub fn layers(&self) -> u32 {
        self.draft.params.dense_layers + self.draft.params.moe_layers
    }

    /// Drafter KV bytes per token on that device.
    pub fn kv_per_token(&self) -> f64 {
        kv_per_token_layer_rank(&self.draft) * f64::from(self.layers())
    }

    /// Drafter weight bytes on that device. Heads share the target's
    /// embedding and output layer, so only their layers count.
    pub fn weight_bytes(&self) -> f64 {
        let d = &self.draft;
        // One stage (PP 1): rank 0 holds it all.
        let st = crate::partition::Stage {
            role: crate::report::DeviceRole::OnlyStage,
            rank: 0,
            dense_layers: d.params.dense_layers,
            moe_layers: d.params.moe_layers,
            embedding: true,
            head: true,
        };
        let sp = d.split.params(&st);
        let (w_lin, w_other) = d.split.weight_bytes;
        let linear = sp.linear * w_lin + sp.experts * d.split.expert_bytes;
        match self.spec.drafter {
            Drafter::Model { .. } => linear + sp.other * w_other,
            Drafter::Heads { .. } => {
                let p = &d.params;
                let small = f64::from(p.dense_layers) * p.dense_layer.small
                    + f64::from(p.moe_layers) * p.moe_layer.small;
                linear + small * w_other
            }
        }
    }
}

/// The drafter resolved beside the target `r`: one pipeline stage (engines
/// do not pipeline the drafter), the target's TP, formats and GPU.
fn drafter(r: &Resolved, which: Drafter) -> Resolved {
    let mut d = *r;
    match which {
        Drafter::Heads { layers } => {
            // A head repeats the target's last block: an MoE block on an
            // MoE target (DeepSeek-V3 §2.2), else a dense one.
            let n = layers.max(1);
            if r.params.moe_layers > 0 {
                (d.params.dense_layers, d.params.moe_layers) = (0, n);
            } else {
                (d.params.dense_layers, d.params.moe_layers) = (n, 0);
            }
        }
        Drafter::Model { model } => {
            d.spec = crate::catalog::model(model).spec;
            d.params = d.spec.params();
        }
    }
    d.pp = 1;
    d.repartition();
    d
}
