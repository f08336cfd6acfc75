//! The steady state of static batches (`Engine::Static`, transformers'
//! `generate` behind a server): one batch a cycle, every request that
//! arrived meanwhile, prefilled together and decoded to the longest
//! output. The simulator runs the same rule (`sim::State::admit`); the two
//! are held together in `tests/serving.rs`
//! (`static_batches_agree_with_the_simulator`).

use super::analytic::{
    Shape, Steady, FIXED_POINT_TOLERANCE, MAX_FIXED_POINT, MAX_ITERATION_SECONDS,
};

impl Shape<'_> {
    /// Static batches (`Engine::Static`, transformers' `generate`): a
    /// batch starts when the last one has finished, with every request
    /// that arrived meanwhile (the simulator's `admit`); its prompts are
    /// prefilled together, in chunks of the token budget when there is
    /// one, then it decodes until its longest output is done. A batch of
    /// b takes C(b) = Tp(b) + (L(b) − 1)·Td(b): Tp the prefill of b
    /// prompts, Td a decode step of b sequences, L(b) the expected longest
    /// of b outputs (the b/(b+1) quantile, exact for fixed and uniform
    /// lengths). At rate λ the batch is the requests of one cycle,
    /// b = λ·C(b) (at least one, at most the running limit and the KV
    /// pool), sustainable while that least fixed point exists. An arrival
    /// finds the engine busy with probability ρ = λ·C(b)/b and then waits
    /// out the rest of the cycle, uniform on [0, C]; its first token comes
    /// when its own prompt's chunk is done: on average half way through
    /// the batch's prefill, at worst at its end; the rest of the prefill
    /// then stalls its decoding, which its time per output token carries.
    pub(super) fn steady_static(&self, rate: f64, outputs: &crate::request::Lengths) -> Steady {
        let p = self.fresh();
        let per_request = p + self.output;
        let most = (self.cap.tokens / per_request)
            .floor()
            .min(f64::from(self.limits.max_seqs))
            .max(1.0);
        let cycle = |b: f64| {
            let tokens = b * p;
            let chunk = self.budget().min(tokens).max(1.0);
            let chunks = (tokens / chunk).ceil().max(1.0);
            let last = tokens - (chunks - 1.0) * chunk;
            let tp = (chunks - 1.0) * self.time(&self.with_prefill(0.0, chunk))
                + self.time(&self.with_prefill(0.0, last));
            let td = self.time(&self.decode(b));
            let longest = if b > 1.0 {
                f64::from(outputs.at(b / (b + 1.0))).max(self.output)
            } else {
                self.output
            };
            let steps = (longest - 1.0).max(0.0) / self.yield_();
            (tp + steps * td, tp, td, chunks)
        };
        // The least fixed point of b = λ·C(b), from one request up.
        let mut b = 1.0_f64;
        for _ in 0..MAX_FIXED_POINT {
            let next = (rate * cycle(b).0).clamp(1.0, most);
            if (next - b).abs() <= FIXED_POINT_TOLERANCE * b {
                b = next;
                break;
            }
            b = next;
        }
        let (c, tp, td, chunks) = cycle(b);
        let stable = rate * c <= b * (1.0 + FIXED_POINT_TOLERANCE)
            && c.is_finite()
            && c < MAX_ITERATION_SECONDS;
        let rho = (rate * c / b).clamp(0.0, 1.0);
        // P(wait > w) = ρ(1 − w/C) on [0, C].
        let wait_at = |q: f64| {
            if rho > 1.0 - q {
                c * (1.0 - (1.0 - q) / rho)
            } else {
                0.0
            }
        };
        let own = tp * (chunks + 1.0) / (2.0 * chunks);
        let lead = self.limits.front_end;
        let wait = rho * c / 2.0;
        // After its first token a request waits for the rest of the
        // batch's prefill before it decodes: spread over its other tokens.
        let stall = (tp - own) / (self.output - 1.0).max(1.0);
        Steady {
            stable,
            t: td,
            tpot: td / self.yield_() + stall,
            running: rho * b,
            ttft: [
                wait_at(0.5) + own + lead,
                wait_at(0.99) + tp + lead,
                wait + own + lead,
            ],
            rate,
            prefill_share: if c > 0.0 { tp / c } else { 0.0 },
            wait,
            held: b * (p + self.held_output()) + self.cached,
            hits: self.kv.hits,
            fetch: self.kv.fetch,
            waves: None,
        }
    }
}
