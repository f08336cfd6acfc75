//! The steady-state approximation of a continuous-batching replica, cheap
//! enough for the search: at request rate λ with mean prompt P and mean
//! output O, an iteration of time t carries λ·P·t prompt tokens and
//! λ·(O−1)·t decode sequences (Little's law, L = λW, with each request
//! decoding for O−1 iterations); t is the least fixed point of
//! t = T(mix(λ, t)), T the time model's iteration. Time to first token is
//! the wait for the next iteration, the prompt's prefill iterations, and
//! an M/D/1 queue (Pollaczek–Khinchine mean wait ρS/(2(1−ρ))) on the
//! prefill budget the decode tokens leave. The agreement with the
//! simulator, and where it ends, is in docs/validation.md.

use super::capacity::Capacity;
use super::sim::Limits;
use crate::memory::breakdown::Breakdown;
use crate::request::{Arrival, RequestStream, Slo};
use crate::resolve::Resolved;
use crate::time::inference::{iteration, windowed, Mix};

/// The stream's shape as the approximation needs it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shape<'a> {
    pub r: &'a Resolved,
    pub dev: Option<&'a Breakdown>,
    pub cap: &'a Capacity,
    pub limits: Limits,
    /// Mean prompt tokens.
    pub prompt: f64,
    /// Mean output tokens.
    pub output: f64,
}

/// A steady state at one rate (per replica).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Steady {
    pub stable: bool,
    /// Iteration time.
    pub t: f64,
    /// Running sequences.
    pub running: f64,
    /// TTFT at the median, the 99th percentile, and the mean.
    pub ttft: [f64; 3],
    /// Requests per second (per replica).
    pub rate: f64,
    /// Share of the iteration time spent on prefill.
    pub prefill_share: f64,
}

/// Fixed-point iterations before a rate is declared unsustainable.
const MAX_FIXED_POINT: usize = 200;

impl Shape<'_> {
    fn budget(&self) -> f64 {
        self.limits.token_budget.map_or(f64::INFINITY, f64::from)
    }

    /// The iteration's mix when `rate` requests/s arrive and an iteration
    /// lasts `t`.
    fn mix(&self, rate: f64, t: f64) -> Mix {
        let (p, o) = (self.prompt, self.output);
        let per_iter = rate * t;
        let chunks = (p / self.budget()).ceil().max(1.0);
        Mix {
            prefill_tokens: per_iter * p,
            prefill_keys: per_iter * p * windowed(self.r, p / 2.0),
            prefill_cached: per_iter * windowed(self.r, p) * (chunks - 1.0) / 2.0,
            prefill_done: per_iter,
            decode_seqs: per_iter * (o - 1.0).max(0.0),
            decode_keys: per_iter * (o - 1.0).max(0.0) * windowed(self.r, p + o / 2.0),
        }
    }

    fn time(&self, m: &Mix) -> f64 {
        iteration(self.r, self.dev, m).total()
    }

    /// The least fixed point of t = T(mix(rate, t)), if one exists within
    /// the budget, the running limit and the KV pool.
    pub fn steady(&self, rate: f64) -> Steady {
        let mut t = self.time(&self.mix(rate, 0.0).with_one_decode(self));
        let mut ok = false;
        for _ in 0..MAX_FIXED_POINT {
            let next = self.time(&self.mix(rate, t).with_one_decode(self));
            if !next.is_finite() || next > 1e4 {
                break;
            }
            if (next - t).abs() <= 1e-9 * t.max(1e-12) {
                t = next;
                ok = true;
                break;
            }
            t = next;
        }
        let m = self.mix(rate, t);
        let tokens = m.prefill_tokens + m.decode_seqs;
        let prefill_left = self.budget() - m.decode_seqs;
        let rho = if prefill_left.is_finite() && prefill_left > 0.0 {
            m.prefill_tokens / prefill_left
        } else if prefill_left.is_finite() {
            f64::INFINITY
        } else {
            0.0
        };
        let service = (self.prompt / prefill_left.max(1.0)).ceil().max(1.0) * t;
        let prefilling = rate * service;
        let running = m.decode_seqs + prefilling;
        let kv = m.decode_seqs * (self.prompt + self.output / 2.0) + prefilling * self.prompt;
        let stable = ok
            && rho < 1.0
            && tokens <= self.budget()
            && running <= f64::from(self.limits.max_seqs)
            && kv <= self.cap.tokens;
        let wait = if rho > 0.0 && rho < 1.0 {
            rho * service / (2.0 * (1.0 - rho))
        } else {
            0.0
        };
        // The queue's wait is about exponential with P(wait > 0) = ρ.
        let quantile = |q: f64| {
            if wait <= 0.0 || rho <= 1.0 - q {
                0.0
            } else {
                wait / rho * (rho / (1.0 - q)).ln()
            }
        };
        let base = service;
        let ttft = [
            base + 0.5 * t + quantile(0.5),
            base + 0.99 * t + quantile(0.99),
            base + 0.5 * t + wait,
        ];
        let (tp, td) = (
            self.time(&Mix {
                decode_seqs: 0.0,
                decode_keys: 0.0,
                ..m
            }),
            self.time(&Mix {
                prefill_tokens: 0.0,
                prefill_keys: 0.0,
                prefill_cached: 0.0,
                prefill_done: 0.0,
                ..m
            }),
        );
        Steady {
            stable,
            t,
            running,
            ttft,
            rate,
            prefill_share: if tp + td > 0.0 { tp / (tp + td) } else { 0.0 },
        }
    }

    /// A closed loop of `clients`: the rate is clients over the cycle
    /// (TTFT plus the remaining decode), found by damped iteration; clients
    /// beyond what the pool and the running limit hold wait their turn.
    pub fn closed(&self, clients: f64) -> Steady {
        let seqs = (self.cap.tokens / (self.prompt + self.output / 2.0).max(1.0))
            .min(f64::from(self.limits.max_seqs))
            .max(1.0);
        let active = clients.min(seqs);
        let mut rate =
            active / (self.time(&self.mix(0.0, 0.0).with_one_decode(self)) * (self.output + 1.0));
        let mut s = self.steady(rate);
        for _ in 0..60 {
            let cycle = s.ttft[2] + (self.output - 1.0).max(0.0) * s.t;
            let next = active / cycle.max(1e-12);
            let blended = 0.5 * rate + 0.5 * next;
            if (blended - rate).abs() <= 1e-6 * rate {
                break;
            }
            rate = blended;
            s = self.steady(rate);
        }
        let queued = (clients - active).max(0.0);
        let wait = if rate > 0.0 { queued / rate } else { 0.0 };
        s.ttft = s.ttft.map(|x| x + wait);
        s.stable = true;
        s
    }

    /// The largest rate (per replica) that is sustainable and, when given,
    /// meets `slo` at its steady state.
    pub fn max_rate(&self, slo: Option<&Slo>) -> f64 {
        let ok = |rate: f64| {
            let s = self.steady(rate);
            s.stable && slo.is_none_or(|slo| meets(slo, &s))
        };
        let mut lo = 0.0;
        let mut hi = 1.0;
        let mut doublings = 0;
        while ok(hi) && doublings < 40 {
            lo = hi;
            hi *= 2.0;
            doublings += 1;
        }
        if lo == 0.0 {
            // Below one request per second: halve down first.
            let mut x = 1.0;
            for _ in 0..30 {
                x /= 2.0;
                if ok(x) {
                    lo = x;
                    hi = 2.0 * x;
                    break;
                }
            }
            if lo == 0.0 {
                return 0.0;
            }
        }
        for _ in 0..30 {
            let mid = 0.5 * (lo + hi);
            if ok(mid) {
                lo = mid;
            } else {
                hi = mid;
            }
            if hi - lo <= 1e-4 * lo {
                break;
            }
        }
        lo
    }

    /// The steady state of the stream's own arrivals (per replica).
    pub fn of(&self, stream: &RequestStream, replicas: u32) -> Steady {
        let n = f64::from(replicas.max(1));
        match stream.arrival {
            Arrival::Poisson { rate } => self.steady(rate.base() / n),
            Arrival::Concurrency { clients } => self.closed((f64::from(clients) / n).max(1.0)),
        }
    }
}

impl Mix {
    /// At least one decoding sequence, so the fixed point starts from the
    /// time of a non-empty iteration.
    fn with_one_decode(mut self, s: &Shape) -> Mix {
        if self.decode_seqs + self.prefill_tokens < 1.0 {
            self.decode_seqs = 1.0;
            self.decode_keys = windowed(s.r, s.prompt + s.output / 2.0);
        }
        self
    }
}

/// Whether a steady state meets every objective set.
pub(crate) fn meets(slo: &Slo, s: &Steady) -> bool {
    let le = |x: f64, b: Option<crate::units::Seconds>| b.is_none_or(|b| x <= b.as_secs());
    le(s.ttft[0], slo.ttft_p50)
        && le(s.ttft[1], slo.ttft_p99)
        && le(s.t, slo.tpot_p50)
        && le(s.t, slo.tpot_p99)
}
