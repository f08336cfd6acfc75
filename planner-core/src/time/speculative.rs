//! Speculative decoding in the time and memory models (Leviathan et al.,
//! "Fast Inference from Transformers via Speculative Decoding", ICML 2023,
//! §3; Chen et al., "Accelerating LLM Decoding with Speculative Sampling",
//! arXiv:2302.01318, Algorithm 2).
//!
//! One decode iteration with `k` draft tokens is: the drafter's first
//! forward over everything the target processes this iteration (prompt
//! chunks included, so its KV stays in step), `k − 1` more single-token
//! drafter steps per decoding sequence, and one target forward over
//! `k + 1` positions per decoding sequence that reads each sequence's KV
//! once and computes logits at every position (vLLM V1's
//! `EagleProposer.propose` and rejection sampler follow this shape). The
//! iteration emits (1 − α^(k+1))/(1 − α) tokens per sequence on average
//! ([`Speculation::expected_tokens`]).

use super::inference::{iteration, Mix};
use super::Parts;
use crate::engine::{Drafter, Speculation};
use crate::memory::breakdown::Breakdown;
use crate::memory::kv_per_token_layer_rank;
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
        let linear = (sp.linear + sp.experts) * w_lin;
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

/// The target's verification mix: each decoding sequence carries `w`
/// positions. The `w − 1` extra positions attend to the sequence's
/// context like a short prompt chunk, and each gets logits (the rejection
/// sampler reads them all); the KV cache is still read once per sequence.
fn widen(m: &Mix, w: f64) -> Mix {
    if m.decode_seqs <= 0.0 || w <= 1.0 {
        return *m;
    }
    let extra = m.decode_seqs * (w - 1.0);
    let context = m.decode_keys / m.decode_seqs;
    Mix {
        prefill_tokens: m.prefill_tokens + extra,
        prefill_keys: m.prefill_keys + extra * (context + (w - 1.0) / 2.0),
        prefill_done: m.prefill_done + extra,
        ..*m
    }
}

/// Time of one iteration of mix `m`, with speculation when `spec` is set:
/// the drafter's steps, then the target's verification. Without it (or
/// at k = 0) exactly [`iteration`].
pub(crate) fn step(
    r: &Resolved,
    spec: Option<&Speculator>,
    dev: Option<&Breakdown>,
    m: &Mix,
) -> Parts {
    let Some(s) = spec else {
        return iteration(r, dev, m);
    };
    let mut parts = iteration(r, dev, &widen(m, f64::from(s.width())));
    // The drafter's first forward covers the prompt chunks and one token
    // per decoding sequence; the rest draft one token per sequence.
    parts.add_all(&iteration(&s.draft, None, m));
    if m.decode_seqs > 0.0 && s.spec.tokens > 1 {
        let decode = Mix {
            decode_seqs: m.decode_seqs,
            decode_keys: m.decode_keys,
            ..Mix::default()
        };
        let rest = f64::from(s.spec.tokens - 1);
        parts.add_all(&iteration(&s.draft, None, &decode).scaled(rest));
    }
    parts
}

/// Mean time per output token of a static batch of `batch` sequences at
/// mean context `context`: one speculative iteration over the tokens it
/// emits.
pub(crate) fn static_decode(
    r: &Resolved,
    s: &Speculator,
    dev: Option<&Breakdown>,
    batch: f64,
    context: f64,
) -> Parts {
    let m = Mix {
        decode_seqs: batch,
        decode_keys: batch * super::inference::windowed(r, context),
        ..Mix::default()
    };
    step(r, Some(s), dev, &m).scaled(1.0 / s.expected().max(1.0))
}

/// The drafter's prefill of a static batch of `batch` prompts of `prompt`
/// tokens (its KV must hold the prompts before it drafts).
pub(crate) fn draft_prefill(s: &Speculator, batch: f64, prompt: f64) -> Parts {
    let tokens = batch * prompt;
    let m = Mix {
        prefill_tokens: tokens,
        prefill_keys: tokens * super::inference::windowed(&s.draft, prompt / 2.0),
        prefill_done: batch,
        ..Mix::default()
    };
    iteration(&s.draft, None, &m)
}
