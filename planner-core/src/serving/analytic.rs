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
use super::kv_tiers::{KvUse, Tiering};
use super::sim::Limits;
use crate::engine::{Batching, DP_BALANCE_BATCHING_WAIT_ITERS, DP_BALANCE_TIMEOUT_ITERS};
use crate::memory::breakdown::Breakdown;
use crate::memory::speculator::Speculator;
use crate::request::{Arrival, RequestStream, Slo};
use crate::resolve::Resolved;
use crate::time::inference::{windowed, Mix};
use crate::time::work::{expert_group_seconds, token_sets};

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
    /// Mean prompt tokens the prefix cache serves (they skip prefill).
    pub cached: f64,
    /// Speculative decoding, when on.
    pub spec: Option<&'a Speculator>,
    /// Contexts reused from HBM and a store below it, and the copies they
    /// cost (`kv_tiers`); the default when the stream reuses nothing.
    pub kv: KvUse<'a>,
    /// Data-parallel attention ranks whose prefills hold each other up
    /// ([`lockstep`]); 1 when none do.
    pub lockstep: f64,
    /// The stream's output lengths under static batches, whose batch runs
    /// until its longest output is done ([`Shape::steady_static`]);
    /// `None` for an engine that batches continuously.
    pub outputs: Option<&'a crate::request::Lengths>,
    /// A closed loop whose requests share one prompt and one output
    /// length ([`aligned`]): its clients arrive in waves, not one by one
    /// ([`Shape::closed_waves`]).
    pub aligned: bool,
}

/// Whether a stream is a closed loop of one prompt length and one output
/// length, as benchmark clients run fixed lengths (`vllm bench serve
/// --max-concurrency` on random prompts of one length with `--ignore-eos`,
/// genai-perf's and `trtllm-bench`'s fixed ISL/OSL): its requests start
/// together, finish together and are replaced together, so their prompts
/// reach the engine in waves ([`Shape::closed_waves`]).
pub(crate) fn aligned(stream: &RequestStream) -> bool {
    use crate::request::Lengths;
    let fixed = |l: &Lengths| matches!(l, Lengths::Fixed { .. });
    matches!(stream.arrival, Arrival::Concurrency { .. })
        && fixed(&stream.prompt)
        && fixed(&stream.output)
}

/// Data-parallel attention ranks whose prefills hold each other up
/// (`Shape::step_lockstep`): the ranks that feed one expert group, unless
/// the stream keeps their prefills together. A closed loop of requests of
/// one prompt length and one output length starts every rank's requests
/// in the same iteration, finishes them in the same iteration and
/// replaces them in the next, so the ranks prefill together; the
/// simulator, which runs the ranks together (`sim::run_lockstep`), shows
/// it. An engine that holds prompts for every rank
/// ([`crate::engine::DpBalance`]) lines them up too. Random arrivals or
/// lengths put each rank's prefills at their own iterations.
pub(crate) fn lockstep(r: &Resolved, limits: &Limits, stream: &RequestStream) -> f64 {
    if limits.dp_balance || aligned(stream) {
        1.0
    } else {
        token_sets(r)
    }
}

/// Seconds to prefill `tokens` prompt tokens with `left` of the budget
/// free an iteration, from a decode-only iteration `td` and one carrying
/// `left` (or all of `tokens`, when they fit) prompt tokens `tp`: one
/// iteration when they fit, else ⌈tokens/left⌉ iterations, each with its
/// decode work, whose prefill part is tokens/left full chunks' worth (the
/// last chunk is partial; the work is continuous in the tokens, as the
/// simulator's is).
fn prefill_service(tokens: f64, left: f64, td: f64, tp: f64) -> f64 {
    let chunks = (tokens / left).ceil().max(1.0);
    if chunks > 1.0 {
        chunks * td + (tokens / left) * (tp - td).max(0.0)
    } else {
        tp
    }
}

/// A steady state at one rate (per replica).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Steady {
    pub stable: bool,
    /// Iteration time.
    pub t: f64,
    /// Time per output token: the iteration over the tokens a decoding
    /// sequence emits in it (one without speculation).
    pub tpot: f64,
    /// Running sequences.
    pub running: f64,
    /// TTFT at the median, the 99th percentile, and the mean.
    pub ttft: [f64; 3],
    /// Requests per second (per replica).
    pub rate: f64,
    /// Share of the iteration time spent on prefill.
    pub prefill_share: f64,
    /// The mean queueing wait inside `ttft`.
    pub wait: f64,
    /// KV tokens the running requests hold.
    pub held: f64,
    /// Probabilities that a request's context is found in HBM, and in the
    /// store below it.
    pub hits: [f64; 2],
    /// Mean seconds a request spends fetching from the store.
    pub fetch: f64,
    /// The prefill groups a wave of a closed loop of fixed lengths takes
    /// where the steady state models its arrivals as waves
    /// ([`Shape::closed_waves`]; the state after the first wave); `None`
    /// where arrivals are taken as independent.
    pub waves: Option<f64>,
}

/// One step of the fixed point.
#[derive(Debug, Clone, Copy)]
struct Step {
    /// Time per decode token: the mean iteration when prompts ride along
    /// in chunks, more when prefill iterations stall decoding.
    t: f64,
    /// Mean iteration time.
    iter: f64,
    /// What a prefill iteration adds over a decode-only one.
    extra: f64,
    /// Decode-only and prefill iteration times.
    td: f64,
    tp: f64,
    /// Fraction of iterations that prefill.
    f: f64,
    /// Decoding sequences.
    d: f64,
    /// Budget left for prompt tokens.
    left: f64,
    /// Mean seconds a prompt is held before its prefill may start
    /// (attention-DP balance, [`Shape::held`]); 0 otherwise.
    hold: f64,
}

/// A prefill iteration's pieces, as `Shape::step` works them out.
#[derive(Debug, Clone, Copy)]
struct Iterations {
    /// Decoding sequences.
    d: f64,
    /// Budget left for prompt tokens.
    left: f64,
    /// Decode-only iteration time.
    td: f64,
    /// Iteration time with `c` prompt tokens on every rank.
    tp: f64,
    /// Prompt tokens of a prefill iteration.
    c: f64,
}

/// Bisection steps of the fixed point before a rate is declared
/// unsustainable.
pub(super) const MAX_FIXED_POINT: usize = 60;
/// Plain fixed-point iterations before bracketing.
const PLAIN_STEPS: usize = 12;
/// Relative tolerance of the fixed point.
pub(super) const FIXED_POINT_TOLERANCE: f64 = 1e-6;
/// An iteration longer than this is no steady state.
pub(super) const MAX_ITERATION_SECONDS: f64 = 1e4;

impl<'a> Shape<'a> {
    pub(super) fn budget(&self) -> f64 {
        self.limits.token_budget.map_or(f64::INFINITY, f64::from)
    }

    /// Output tokens a decoding sequence holds blocks for, on average: the
    /// half it has generated when blocks are taken as tokens come, all of
    /// them when the engine reserves the whole request at admission
    /// (`Preemption::ReserveToFinish`).
    pub(super) fn held_output(&self) -> f64 {
        if self.limits.reserve {
            self.output
        } else {
            self.output / 2.0
        }
    }

    /// Decode work of `d` sequences at the mean context.
    pub(super) fn decode(&self, d: f64) -> Mix {
        Mix {
            decode_seqs: d,
            decode_keys: d * windowed(self.r, self.prompt + self.output / 2.0),
            ..Mix::default()
        }
    }

    /// Prompt tokens a request prefills (what the prefix cache and the
    /// reused contexts leave).
    pub(super) fn fresh(&self) -> f64 {
        (self.prompt - self.cached - self.kv.reused).max(1.0)
    }

    /// `d` decode sequences plus `c` prompt tokens to prefill (whole
    /// prompts, or a chunk of one when `c` is below a prompt's fresh
    /// tokens); they attend to the cached prefix and to each other.
    pub(super) fn with_prefill(&self, d: f64, c: f64) -> Mix {
        let (p, k) = (self.fresh(), self.cached + self.kv.reused);
        Mix {
            prefill_tokens: c,
            prefill_keys: c * windowed(self.r, k + p / 2.0),
            prefill_cached: windowed(self.r, k + if c < p { (p - c) / 2.0 } else { 0.0 }),
            prefill_done: (c / p).max(0.0),
            ..self.decode(d)
        }
    }

    /// An iteration's time, with the store's fetches for the requests it
    /// starts and its writes of the tokens it prefills.
    pub(super) fn time(&self, m: &Mix) -> f64 {
        let compute = self.limits.iteration(self.r, self.spec, self.dev, m);
        compute + self.kv.added(compute, m.prefill_done, m.prefill_tokens)
    }

    /// The time model's parts of an iteration, with the engine's host
    /// work the GPU waits for (what `Limits::iteration` adds to the GPU's
    /// time) as host-bound time.
    pub(super) fn parts(&self, m: &Mix) -> crate::time::Parts {
        let mut p = crate::time::speculative::step(self.r, self.spec, self.dev, m);
        let host = self.limits.iteration(self.r, self.spec, self.dev, m) - p.total();
        if host > 0.0 {
            p.add(crate::report::TimeKind::HostBound, host, host);
        }
        p
    }

    /// One prompt's prefill, alone on the engine.
    pub(super) fn prefill_alone(&self) -> crate::time::Parts {
        self.parts(&self.with_prefill(0.0, self.fresh()))
    }

    /// A decode iteration of `d` sequences, per token a sequence emits.
    pub(super) fn decode_token(&self, d: f64) -> crate::time::Parts {
        self.parts(&self.decode(d.max(1.0)))
            .scaled(1.0 / self.yield_())
    }

    /// Tokens a decoding sequence emits per iteration.
    pub(super) fn yield_(&self) -> f64 {
        self.spec.map_or(1.0, Speculator::expected)
    }

    /// Budget positions a decoding sequence takes per iteration.
    fn width(&self) -> f64 {
        f64::from(self.spec.map_or(1, Speculator::width))
    }

    /// One step of the fixed point from a mean iteration time `t` and a
    /// prefill-iteration time `tp`: iterations are of two kinds, decode
    /// only (`td`) and decode plus one prefill chunk (`tp`), a fraction f
    /// of them; f·(1/t̄) prefill iterations a second carry λ·P tokens a
    /// second, so t̄ = td / (1 − (λP/c)(tp − td)). When every iteration
    /// must prefill, the prompt tokens spread over all of them.
    fn step(&self, rate: f64, t: f64, tp: f64) -> Option<Step> {
        if self.limits.batching == Batching::PrefillFirst {
            return Some(self.step_prefill_first(rate, t, tp));
        }
        let (p, o) = (self.fresh(), self.output);
        let d = rate * (o - 1.0).max(0.0) / self.yield_() * t;
        let left = self.budget() - d * self.width();
        if left < 1.0 {
            return None;
        }
        let td = self.time(&self.decode(d));
        // Prompts that arrive during a prefill iteration start together,
        // and under attention-DP balance those of a whole hold cycle
        // (twice the mean hold).
        let hold = self.held(rate, t);
        let together = (rate * (tp + 2.0 * hold)).max(1.0);
        let c = (together * p).min(left);
        let tp = self.time(&self.with_prefill(d, c));
        let per_s = rate * p / c;
        let n = self.lockstep;
        if n > 1.0 {
            let x = Iterations { d, left, td, tp, c };
            return Some(self.step_lockstep(n, rate, per_s, t, x));
        }
        let denom = 1.0 - per_s * (tp - td);
        let mean = if denom > 0.0 {
            td / denom
        } else {
            f64::INFINITY
        };
        let (mean, f) = if per_s * mean <= 1.0 {
            (mean, per_s * mean)
        } else {
            // Saturated: every iteration carries λ·P·t̄ prompt tokens.
            let m = self.with_prefill(d, (rate * p * t).min(left));
            let x = self.time(&m);
            (x, 1.0)
        };
        Some(Step {
            t: mean,
            iter: mean,
            extra: (tp - td).max(0.0),
            td,
            tp,
            f,
            d,
            left,
            hold,
        })
    }

    /// The step when `n` data-parallel attention ranks feed one expert
    /// group. They step together: every MoE layer's dispatch waits for all
    /// of them (TensorRT-LLM's attention DP gathers every rank's tokens
    /// before the experts and pads an idle rank with a dummy request,
    /// `PyExecutor._pad_attention_dp_dummy_request`; vLLM's and SGLang's
    /// DP attention run dummy or idle batches on ranks without work), and
    /// none of these engines lines up the ranks' prefills by default
    /// (TensorRT-LLM `AttentionDpConfig.enable_balance` is off). So a
    /// rank's prefill holds up the other n − 1: the group runs a prefill
    /// iteration whenever any rank prefills, a fraction F = 1 − (1 − f)^n
    /// of iterations when each rank prefills a fraction f on its own, and
    /// in it only the prefilling ranks' prompts reach the experts (n·f/F
    /// ranks on average: one when prefills are rare, all when every
    /// iteration prefills). The mean iteration is the root of
    /// m = td + F(λP/c · m)·(tp − td), found by bisection (the right side
    /// is concave in m). NVIDIA measured the cost: unbalanced attention-DP
    /// prefills lost 35 % of the throughput an 8-GPU GB200 node reached
    /// with balancing on (TensorRT-LLM tech blog 10, "ADP Balance
    /// Strategy").
    fn step_lockstep(&self, n: f64, rate: f64, per_s: f64, t: f64, x: Iterations) -> Step {
        let Iterations { d, left, td, tp, c } = x;
        let any = |f: f64| any_rank(n, f);
        // Prompt tokens reaching the experts, per rank of the group.
        let share = prefilling_share(n, per_s * t);
        // A decoding sequence's draft positions go through the experts too.
        let dw = d * self.width();
        let spared =
            expert_group_seconds(self.r, dw + c) - expert_group_seconds(self.r, dw + c * share);
        let tp = (tp - spared.max(0.0)).max(td);
        let g = |m: f64| td + any(per_s * m) * (tp - td) - m;
        let top = if per_s > 0.0 {
            1.0 / per_s
        } else {
            f64::INFINITY
        };
        if top.is_finite() && g(top) > 0.0 {
            // Saturated: every rank prefills in every iteration.
            let m = self.with_prefill(d, (rate * self.fresh() * t).min(left));
            let x = self.time(&m);
            return Step {
                t: x,
                iter: x,
                extra: (tp - td).max(0.0),
                td,
                tp,
                f: 1.0,
                d,
                left,
                hold: 0.0,
            };
        }
        let mean = root(g, td, if top.is_finite() { top } else { tp.max(td) });
        Step {
            t: mean,
            iter: mean,
            extra: (tp - td).max(0.0),
            td,
            tp,
            f: any(per_s * mean),
            d,
            left,
            hold: 0.0,
        }
    }

    /// Prefill first with n attention-DP ranks stepping together: a rank
    /// prefills in a fraction f = r·t̄ of the iterations (r its prefill
    /// iterations a second) and decodes in the rest, and an iteration
    /// lasts a prefill's time whenever any rank prefills, F = 1 − (1 − f)^n
    /// of them, with only the prefilling ranks' prompts in the experts
    /// (the others' decode tokens instead). The mean iteration t̄ is the
    /// root of t̄ = td + F(t̄)·(tp − td), found by bisection; a decoding
    /// request advances in its own rank's decode iterations, every
    /// t̄ / (1 − f) seconds.
    fn step_prefill_first_lockstep(&self, per_s: f64, t: f64, x: Iterations) -> Step {
        let Iterations { d, left, td, tp, c } = x;
        let n = self.lockstep;
        let any = |f: f64| any_rank(n, f);
        let share = prefilling_share(n, per_s * t);
        let dw = d * self.width();
        let spared = expert_group_seconds(self.r, c)
            - expert_group_seconds(self.r, c * share + dw * (1.0 - share));
        let tp = (tp - spared.max(0.0)).max(td);
        let g = |m: f64| td + any(per_s * m) * (tp - td) - m;
        let top = if per_s > 0.0 {
            1.0 / per_s
        } else {
            f64::INFINITY
        };
        let unstable = Step {
            t: f64::INFINITY,
            iter: f64::INFINITY,
            extra: tp,
            td,
            tp,
            f: 1.0,
            d,
            left,
            hold: 0.0,
        };
        if td <= 0.0 || (top.is_finite() && g(top) >= 0.0) {
            return unstable;
        }
        let mean = root(g, td, if top.is_finite() { top } else { tp.max(td) });
        let f = (per_s * mean).min(1.0);
        if f >= 1.0 {
            return unstable;
        }
        Step {
            t: mean / (1.0 - f),
            iter: mean,
            extra: tp,
            td,
            tp,
            f,
            d,
            left,
            hold: 0.0,
        }
    }

    /// Mean seconds a prompt waits under attention-DP balance
    /// ([`crate::engine::DpBalance`]): prompts start once every one of the
    /// n ranks has one (after the last of them receives a request, H_n/λ
    /// on average at λ requests a second a rank, the largest of n
    /// exponential waits; at most the timeout's iterations), then, every
    /// rank decoding, the batching wait's iterations more. A prompt comes
    /// at a uniform point of that cycle and waits half of it.
    fn held(&self, rate: f64, t: f64) -> f64 {
        let n = token_sets(self.r);
        if !self.limits.dp_balance || n <= 1.0 || rate <= 0.0 {
            return 0.0;
        }
        let harmonic: f64 = (1..=n as u32).map(|k| 1.0 / f64::from(k)).sum();
        let all = (harmonic / rate).min(f64::from(DP_BALANCE_TIMEOUT_ITERS) * t);
        (all + f64::from(DP_BALANCE_BATCHING_WAIT_ITERS) * t) / 2.0
    }

    /// The step under prefill-first batching (vLLM V0, SGLang): prompts that
    /// arrived during a cycle (a window of n decode steps and a prefill)
    /// are prefilled together in an iteration of their own, a fraction x
    /// of the time, while decoding waits; a decoding sequence's token then
    /// takes td / (1 − x).
    fn step_prefill_first(&self, rate: f64, t: f64, tp: f64) -> Step {
        let (p, o) = (self.fresh(), self.output);
        let d = rate * (o - 1.0).max(0.0) / self.yield_() * t;
        let left = self.budget();
        let td = self.time(&self.decode(d));
        let n = f64::from(self.limits.scheduler_steps.max(1));
        let together = (rate * (n * td + tp)).max(1.0);
        let c = (together * p).min(left);
        let tp = self.time(&self.with_prefill(0.0, c));
        let per_s = rate * p / c;
        if self.lockstep > 1.0 {
            let x = Iterations { d, left, td, tp, c };
            return self.step_prefill_first_lockstep(per_s, t, x);
        }
        let x = per_s * tp;
        let (t, iter, f) = if x < 1.0 && td > 0.0 {
            let decodes = (1.0 - x) / td;
            (
                td / (1.0 - x),
                1.0 / (per_s + decodes),
                per_s / (per_s + decodes),
            )
        } else {
            (f64::INFINITY, f64::INFINITY, 1.0)
        };
        Step {
            t,
            iter,
            extra: tp,
            td,
            tp,
            f,
            d,
            left,
            hold: 0.0,
        }
    }

    /// The least fixed point of the mean iteration time at `rate`
    /// requests/s, if one exists within the budget, the running limit and
    /// the KV pool, with its latencies.
    pub fn steady(&self, rate: f64) -> Steady {
        if let Some(outputs) = self.outputs {
            return self.steady_static(rate, outputs);
        }
        let Some(t) = self.kv.tiers.filter(|t| t.contexts > 0.0) else {
            return self.steady_at(rate);
        };
        // Reused contexts live in the pool's free blocks: first at an idle
        // pool, then at what the first pass's running requests leave.
        let idle = self.cap.tokens - self.cached;
        let first = self.reusing(t, idle).steady_at(rate);
        // The contexts running requests hold are in HBM as well: of N
        // contexts drawn uniformly, R requests hold N(1 − (1 − 1/N)^R).
        let free = if first.stable {
            let n = t.contexts;
            let distinct = n * (1.0 - (1.0 - 1.0 / n).powf(first.running));
            idle - first.held + distinct * t.context
        } else {
            0.0
        };
        self.reusing(t, free).steady_at(rate)
    }

    /// This shape with the reuse of `free` tokens of HBM prefix cache.
    fn reusing(&self, t: &'a Tiering, free: f64) -> Shape<'a> {
        Shape {
            kv: KvUse::at(Some(t), free),
            ..*self
        }
    }

    /// The steady state at `rate` with the reuse as it stands.
    fn steady_at(&self, rate: f64) -> Steady {
        let one = self.time(&self.decode(1.0));
        match self.fixed_point(rate, one) {
            Some((st, ok)) => self.latencies(rate, &st, ok),
            None => Steady {
                rate,
                t: one,
                tpot: one / self.yield_(),
                ..Steady::default()
            },
        }
    }

    /// The least t with step(t) = t: a few plain iterations from below
    /// (they rise monotonically to it), then, if they have not settled, a
    /// bracket by doubling and bisection, so a rate near saturation costs
    /// tens of iterations of the time model, not hundreds. Returns the
    /// last step and whether it converged.
    fn fixed_point(&self, rate: f64, start: f64) -> Option<(Step, bool)> {
        let close = |a: f64, b: f64| (a - b).abs() <= FIXED_POINT_TOLERANCE * b.abs().max(1e-12);
        let (mut t, mut tp) = (start, start);
        let mut last = self.step(rate, t, tp)?;
        for _ in 0..PLAIN_STEPS {
            if !last.t.is_finite() || last.t > MAX_ITERATION_SECONDS {
                return Some((last, false));
            }
            if close(last.t, t) && close(last.tp, tp) {
                return Some((last, true));
            }
            (t, tp) = (last.t, last.tp);
            last = self.step(rate, t, tp)?;
        }
        // Bracket: step(lo) > lo, step(hi) ≤ hi.
        let mut lo = t;
        let mut hi = last.t.max(t) * 2.0;
        loop {
            if hi > MAX_ITERATION_SECONDS {
                return Some((last, false));
            }
            let s = self.step(rate, hi, last.tp)?;
            if s.t <= hi {
                last = s;
                break;
            }
            lo = hi;
            hi *= 2.0;
        }
        for _ in 0..MAX_FIXED_POINT {
            if close(lo, hi) {
                return Some((last, true));
            }
            let mid = 0.5 * (lo + hi);
            let Some(s) = self.step(rate, mid, last.tp) else {
                hi = mid;
                continue;
            };
            if s.t <= mid {
                hi = mid;
                last = s;
            } else {
                lo = mid;
            }
        }
        Some((last, false))
    }

    /// With reused contexts, requests come in three kinds that prefill
    /// different lengths: those that find their context in HBM, those that
    /// fetch it from the store, and those that compute it. Each kind's
    /// share and its prefill service (its chunks, or its own iteration,
    /// beside the decoding sequences, with its fetch), fastest first;
    /// empty without contexts.
    fn classes(&self, st: &Step) -> Vec<(f64, f64)> {
        let Some(t) = self.kv.tiers.filter(|t| t.contexts > 0.0) else {
            return Vec::new();
        };
        let whole = (self.prompt - self.cached).max(1.0);
        let fetch = t.store.map_or(0.0, |s| s.moved(t.context));
        let [a, b] = self.kv.hits;
        let kinds = [
            (a, t.context, 0.0),
            (b, t.context, fetch),
            ((1.0 - a - b).max(0.0), 0.0, 0.0),
        ];
        let mut out: Vec<(f64, f64)> = kinds
            .iter()
            .map(|&(share, reused, fetch)| {
                let one = Shape {
                    kv: KvUse {
                        reused,
                        fetch,
                        ..self.kv
                    },
                    ..*self
                };
                // Its own chunks attend to its own keys.
                let p = (whole - reused).max(1.0);
                let chunks = (p / st.left).ceil().max(1.0);
                let s = if chunks > 1.0 {
                    let tp = one.time(&one.with_prefill(st.d, st.left));
                    chunks * st.td + (p / st.left) * (tp - st.td).max(0.0)
                } else {
                    one.time(&one.with_prefill(st.d, p))
                };
                (share, s)
            })
            .collect();
        out.sort_by(|x, y| x.1.total_cmp(&y.1));
        out
    }

    /// Seconds into the next pass at which an engine that defers its
    /// outputs (`Engine::defers_output`) hands a first token over: that
    /// pass's scheduling and launch ([`crate::engine::HostCost::lead`]).
    /// The next pass is another prompt's when one arrived during this
    /// prefill (prompts go first), else a decode step.
    fn output_lead(&self, rate: f64, st: &Step) -> f64 {
        if !self.limits.deferred_output {
            return 0.0;
        }
        let next_prefill = 1.0 - (-rate * st.tp).exp();
        let issue = crate::time::inference::prefill_issue_seconds(self.r);
        let h = &self.limits.host;
        next_prefill * h.lead(1.0, issue).min(st.tp)
            + (1.0 - next_prefill) * h.lead(st.d, 0.0).min(st.td)
    }

    /// What an arrival waits for the iteration under way: its mean,
    /// median and 99th percentile. The mean residual is E[t²]/(2E[t]) over
    /// the two kinds of iteration; an arrival lands in a prefill iteration
    /// with probability w (their share of time), so the median waits half
    /// a decode iteration unless w ≥ ½, and the 99th percentile a whole
    /// prefill iteration once w ≥ 1 %. Under multi-step scheduling an
    /// arrival waits out the whole window of n decode steps: one
    /// "iteration" of n·td in n.
    fn residual(&self, st: &Step) -> [f64; 3] {
        let n = f64::from(self.limits.scheduler_steps.max(1));
        let mean =
            (st.f * st.tp * st.tp + (1.0 - st.f) * n * st.td * st.td) / (2.0 * st.iter.max(1e-12));
        let w = st.f * st.tp / st.iter.max(1e-12);
        let window = n * st.td;
        // The median: uniform over a prefill iteration with probability
        // w, else over a decode window; with one step per window the
        // older rule (half a decode iteration below w = ½) is the same to
        // within a decode step.
        let r50 = if n > 1.0 && w < 0.5 && window > st.tp {
            (0.5 - w) / (1.0 - w) * window
        } else if w < 0.5 {
            window / 2.0
        } else {
            st.tp / 2.0
        };
        let r99 = if w < 0.01 { window } else { st.tp.max(window) };
        [mean, r50, r99]
    }

    /// TTFT, running sequences and stability of a converged step.
    fn latencies(&self, rate: f64, st: &Step, converged: bool) -> Steady {
        let p = self.fresh();
        let service = prefill_service(p, st.left, st.td, st.tp);
        let classes = self.classes(st);
        let class = |q: f64| {
            let mut acc = 0.0;
            for &(share, s) in &classes {
                acc += share;
                if acc >= q - 1e-12 {
                    return s;
                }
            }
            classes.last().map_or(service, |c| c.1)
        };
        let class_mean = if classes.is_empty() {
            service
        } else {
            classes.iter().map(|c| c.0 * c.1).sum()
        };
        // Prompts the budget carries together; the queue is on them.
        let slots = (st.left / p).floor().max(1.0);
        let rho = rate * service / slots;
        let prefilling = rate * service;
        let running = st.d + prefilling;
        // The shared prefix's blocks are held once; reused contexts by
        // each request.
        let own = p + self.kv.reused;
        let kv = st.d * (own + self.held_output()) + prefilling * own + self.cached;
        let stable = converged
            && rho < 1.0
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
        let [mean_residual, r50, r99] = self.residual(st);
        // A held prompt waits out the rest of the balance cycle; an
        // engine that defers its outputs hands the first token over in
        // the next pass (`Engine::defers_output`).
        // The request's way through the server to the engine and its first
        // token's way back (`Engine::front_end`).
        let lead = self.output_lead(rate, st) + self.limits.front_end;
        let ttft = [
            class(0.5) + r50 + quantile(0.5) + st.hold + lead,
            class(0.99) + r99 + quantile(0.99) + 2.0 * st.hold + lead,
            class_mean + mean_residual + wait + st.hold + lead,
        ];
        let prefill_time = st.f * st.extra;
        Steady {
            stable,
            t: st.t,
            tpot: st.t / self.yield_(),
            running,
            ttft,
            rate,
            prefill_share: if st.iter > 0.0 {
                (prefill_time / st.iter).clamp(0.0, 1.0)
            } else {
                0.0
            },
            wait,
            held: kv,
            hits: self.kv.hits,
            fetch: self.kv.fetch,
            waves: None,
        }
    }

    /// A closed loop of `clients`: the rate λ at which λ × cycle = the
    /// clients in the engine (Little's law; the cycle is TTFT without an
    /// open queue's wait plus the remaining decode), found by bisection
    /// (λ × cycle grows with λ); past the largest sustainable rate the
    /// engine is saturated and runs at it. Clients beyond what the pool
    /// and the running limit hold wait their turn, and so do those a
    /// saturated engine's rate leaves waiting.
    pub fn closed(&self, clients: f64) -> Steady {
        let own = self.fresh() + self.kv.reused;
        let seqs = ((self.cap.tokens - self.cached) / (own + self.held_output()))
            .min(f64::from(self.limits.max_seqs))
            .max(1.0);
        let active = clients.min(seqs);
        // Waves where every client fits the engine; clients beyond it wait
        // in the server's queue and enter as slots free, one by one.
        if let Some(s) = (self.aligned && clients <= active)
            .then(|| self.closed_waves(active))
            .flatten()
        {
            return s;
        }
        let in_engine = |rate: f64| {
            let s = self.steady(rate);
            let cycle = s.ttft[2] - s.wait + (self.output - 1.0).max(0.0) * s.tpot;
            (rate * cycle, s)
        };
        let hi = self.max_rate(None);
        let (n_hi, s_hi) = in_engine(hi);
        let (mut rate, mut s) = (hi, s_hi);
        if n_hi > active {
            let (mut lo, mut up) = (0.0, hi);
            for _ in 0..40 {
                let mid = 0.5 * (lo + up);
                let (n, st) = in_engine(mid);
                if n <= active {
                    lo = mid;
                    (rate, s) = (mid, st);
                } else {
                    up = mid;
                }
            }
        }
        // Little's law over the loop: the clients not being served wait in
        // the server's queue. They are those past the pool and the running
        // limit and, where the engine runs at its largest rate and still
        // serves fewer than it holds (a loop of short outputs keeps it
        // prefilling), those that rate leaves waiting.
        let queued = (clients - n_hi.min(active)).max(0.0);
        let wait = if rate > 0.0 { queued / rate } else { 0.0 };
        s.ttft = s.ttft.map(|x| x + wait - s.wait);
        s.wait = wait;
        s.stable = true;
        s
    }

    /// A closed loop of `n` clients of one prompt and one output length
    /// ([`aligned`]) with chunked prefill: its prompts arrive in waves.
    /// The budget beside the others' decodes carries g prompts an
    /// iteration (or one prompt in `slots` chunks), so a wave of n takes
    /// G = ⌈n/g⌉ prefill services of `slots` iterations each, one group
    /// after another. A group's requests finish one decode iteration
    /// after the group prefilled before it (a prefill iteration advances
    /// every decode by one token, whatever it lasts), and each client's
    /// next request reaches the engine the front end's latency later. So
    /// the groups that finish before the first replacement is scheduled,
    /// m = 1 + ⌈front end / (spacing·td)⌉ of them (groups in chunks finish
    /// p/left iterations apart), queue together and are served
    /// 1, 2, …, m services after they arrive; every later group arrives
    /// one service after the one before it and finds m − 1 ahead, m
    /// services. A request sees every group's prefill once a cycle: those
    /// ahead of it before its first token, the rest while it decodes,
    /// each a prefill iteration where a decode iteration would have been.
    /// The first wave, every client at once, waits longer (up to G
    /// services); this is the steady state after it, as the simulator
    /// (`sim`, which runs the loop request by request) settles to.
    /// Attention-DP ranks of such a loop step together as one
    /// ([`lockstep`] gives 1). `None` where the scheduler is not chunked
    /// prefill in one pass (prefill-first, multi-step windows, static
    /// batches, held prompts of attention-DP balance, outputs handed over
    /// a pass late), where requests reuse stored contexts (their hits make
    /// prompts unequal), where the budget holds nothing beside the
    /// decodes, and where a request's decode is shorter than the prefills
    /// of the groups behind it (the engine is prefill-bound); [`Shape::closed`]
    /// then takes arrivals as independent, and a prefill-bound loop queues
    /// at the engine's largest rate. A last, partial group is counted as a
    /// full one.
    fn closed_waves(&self, n: f64) -> Option<Steady> {
        let reuses = self.kv.tiers.is_some_and(|t| t.contexts > 0.0);
        let plain = self.limits.batching == Batching::Mixed
            && self.limits.scheduler_steps <= 1
            && !self.limits.dp_balance
            && !self.limits.deferred_output
            && self.outputs.is_none()
            && !reuses;
        if !plain {
            return None;
        }
        let (p, y) = (self.fresh(), self.yield_());
        // Step 1: a prefill service: g prompts in one iteration beside the
        // others' decodes, or one prompt in chunks of what the budget
        // leaves (the last one partial, as `latencies` counts it).
        let beside = self.budget() - (n - 1.0).max(0.0) * self.width();
        if beside < 1.0 {
            return None;
        }
        let g = (beside / p).floor().clamp(1.0, n);
        let d = n - g;
        let left = self.budget() - d * self.width();
        let td = self.time(&self.decode(n));
        let tp = self.time(&self.with_prefill(d, (g * p).min(left)));
        let service = prefill_service(g * p, left, td, tp);
        // Iterations between consecutive groups' first tokens (p/left for
        // a prompt in chunks: the next prompt's first chunk fills the last
        // one's iteration), and the iterations a service takes.
        let spacing = (p / left).max(1.0);
        let slots = spacing.ceil();
        // What a service adds over the decode iterations it stands for.
        let extra = (service - slots * td).max(0.0);
        let groups = (n / g).ceil();
        // Step 2: the groups that queue together. Consecutive groups
        // finish `spacing` decode iterations apart.
        let fe = self.limits.front_end;
        let m = (1.0 + (fe / (spacing * td).max(1e-12)).ceil()).min(groups);
        // Step 3: first tokens, in services from arrival (the mean, the
        // median group's and the last of a cluster's). A decode shorter
        // than the prefills behind it cannot hold them (the engine is
        // prefill-bound): `closed` queues such a loop instead.
        let tokens = (self.output - 1.0).max(0.0) / y;
        let ahead = (m * (m + 1.0) / 2.0 + (groups - m) * m) / groups;
        if slots * (groups - ahead) > tokens {
            return None;
        }
        let median = (groups / 2.0).ceil().min(m);
        // Step 4: the decode, with the services of the groups behind.
        let decode = tokens * td + (groups - ahead) * extra;
        // Step 5: one client's cycle; the engine's iterations in it (a
        // request lives through all of them but its turnaround's); what
        // runs (prefilling or decoding, not queued) and holds the pool.
        let engine = ahead * service + decode;
        let cycle = engine + fe;
        let iterations = slots * ahead + tokens;
        let running = n * (service + decode) / cycle;
        let own = p + self.kv.reused;
        Some(Steady {
            stable: true,
            t: engine / iterations.max(1.0),
            tpot: if tokens > 0.0 {
                decode / tokens / y
            } else {
                td / y
            },
            running,
            ttft: [
                median * service + fe,
                m * service + fe,
                ahead * service + fe,
            ],
            rate: n / cycle,
            prefill_share: (groups * extra / engine).clamp(0.0, 1.0),
            wait: (ahead - 1.0) * service,
            held: running * (own + self.held_output()) + self.cached,
            hits: self.kv.hits,
            fetch: self.kv.fetch,
            waves: Some(groups),
        })
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
            if hi - lo <= 1e-3 * lo {
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

/// Whether a steady state meets every objective set.
pub(crate) fn meets(slo: &Slo, s: &Steady) -> bool {
    let le = |x: f64, b: Option<crate::units::Seconds>| b.is_none_or(|b| x <= b.as_secs());
    le(s.ttft[0], slo.ttft_p50)
        && le(s.ttft[1], slo.ttft_p99)
        && le(s.tpot, slo.tpot_p50)
        && le(s.tpot, slo.tpot_p99)
}

/// The share of iterations in which any of `n` ranks prefills, each in a
/// fraction `f` of them independently: 1 − (1 − f)^n.
fn any_rank(n: f64, f: f64) -> f64 {
    1.0 - (1.0 - f.clamp(0.0, 1.0)).powf(n)
}

/// Of the ranks in an iteration where some rank prefills, the share that
/// prefills (f / F, at least one of n): how many ranks' prompts reach the
/// experts in it.
fn prefilling_share(n: f64, f: f64) -> f64 {
    let any = any_rank(n, f);
    if any > 0.0 {
        (f.clamp(0.0, 1.0) / any).clamp(1.0 / n, 1.0)
    } else {
        1.0 / n
    }
}

/// The root of `g` in `[lo, hi]` by bisection, `g` positive below it (the
/// lockstep steps' mean iteration).
fn root(g: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> f64 {
    for _ in 0..MAX_FIXED_POINT {
        let mid = 0.5 * (lo + hi);
        if g(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo <= FIXED_POINT_TOLERANCE * hi {
            break;
        }
    }
    0.5 * (lo + hi)
}
