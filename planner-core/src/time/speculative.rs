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
use crate::memory::breakdown::Breakdown;
use crate::memory::speculator::Speculator;
use crate::resolve::Resolved;

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

/// A static batch served with the plan's speculation: the drafter prefills
/// the prompts too, and each decode step is a speculative iteration over
/// the tokens it emits. Without speculation, `t` unchanged.
pub(crate) fn static_batch(
    r: &Resolved,
    dev: Option<&Breakdown>,
    (batch, prompt): (f64, f64),
    mut t: super::inference::ServeTime,
) -> super::inference::ServeTime {
    if let Some(s) = Speculator::of(r) {
        let context = prompt + f64::from(t.output) / 2.0;
        t.decode = static_decode(r, &s, dev, batch, context);
        t.prefill.add_all(&draft_prefill(&s, batch, prompt));
    }
    t
}
