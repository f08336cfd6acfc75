//! A deterministic iteration-level simulator of one replica, in the spirit
//! of Vidur's scheduler level (Agrawal et al., MLSys 2024) and vLLM V1's
//! scheduler (`vllm/v1/core/sched/scheduler.py`): every iteration first
//! gives each running request its next tokens (one decode token, or its
//! next prefill chunk) in arrival order, then admits waiting requests
//! first come first served, all within the token budget and the running
//! limit; a request takes KV blocks as its tokens are computed; when none
//! is free the newest running request is preempted and recomputed later.
//! The iteration's time is the time model's ([`time::inference::iteration`]).
//!
//! Bounds: at most [`MAX_SIMULATED_REQUESTS`] requests and
//! [`MAX_ITERATIONS`] iterations per run; what has not finished by then is
//! left out of the figures and counted as not completed.

use super::capacity::Capacity;
use super::kv_tiers::{reusable, Lru, Seen, Tiering};
use super::rng::SplitMix;
use crate::engine::{Batching, HostCost, DP_BALANCE_BATCHING_WAIT_ITERS, DP_BALANCE_TIMEOUT_ITERS};
use crate::memory::breakdown::Breakdown;
use crate::memory::speculator::Speculator;
use crate::request::{Arrival, RequestStream, MAX_SIMULATED_REQUESTS};
use crate::resolve::Resolved;
use crate::time::inference::{windowed, Mix};
use crate::time::speculative;
use std::collections::VecDeque;

/// Iterations one run may take.
pub(crate) const MAX_ITERATIONS: u32 = 400_000;

/// The scheduler's limits on one replica.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// Tokens per iteration (`None`: whole prompts at once).
    pub token_budget: Option<u32>,
    /// Running requests at most.
    pub max_seqs: u32,
    /// Static batches: admit only when nothing runs.
    pub static_batches: bool,
    /// Whether shared prompt prefixes are served from a prefix cache.
    pub prefix_cache: bool,
    /// How an iteration mixes prefill and decode.
    pub batching: Batching,
    /// Decode steps per scheduling: no request is admitted in between.
    pub scheduler_steps: u32,
    /// The host's work around each iteration.
    pub host: HostCost,
    /// Admission reserves the blocks of the whole request (prompt and
    /// output), so nothing is preempted (`Preemption::ReserveToFinish`).
    pub reserve: bool,
    /// Attention-DP ranks' prompts wait for each other
    /// (`engine::DpBalance::On`; only ranks run in lockstep read it).
    pub dp_balance: bool,
    /// Outputs reach the client during the next pass
    /// (`Engine::defers_output`).
    pub deferred_output: bool,
    /// Seconds a request spends outside the engine loop on the way to its
    /// first token (`Engine::front_end`): added to every TTFT, and
    /// between a closed-loop client's response and its next request's
    /// arrival at the engine.
    pub front_end: f64,
}

impl Limits {
    /// Seconds of one iteration carrying `m`: the GPU's work (the time
    /// model's, with speculation) and the host's as the engine charges it;
    /// the decode steps of a multi-step window share one scheduling.
    pub(crate) fn iteration(
        &self,
        r: &Resolved,
        spec: Option<&Speculator>,
        dev: Option<&Breakdown>,
        m: &Mix,
    ) -> f64 {
        let gpu = speculative::step(r, spec, dev, m).total();
        let window = if m.prefill_tokens > 0.0 {
            1.0
        } else {
            f64::from(self.scheduler_steps.max(1))
        };
        self.host
            .iteration(gpu, m.decode_seqs + m.prefill_done, window)
    }
}

/// One request's life.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Req {
    pub arrival: f64,
    pub prompt: u32,
    pub output: u32,
    /// Tokens whose KV is computed.
    computed: u32,
    /// Leading tokens served by the prefix cache (whole blocks).
    cached: u32,
    /// Tokens generated so far.
    pub generated: u32,
    /// KV blocks held.
    blocks: u64,
    /// Fraction of a token owed by speculative iterations (their mean
    /// yield is not whole; the credit keeps the mean exact and the run
    /// deterministic).
    credit: f64,
    pub first_token: Option<f64>,
    /// When its first prefill pass began.
    pub prefill_start: Option<f64>,
    pub finish: Option<f64>,
    /// Whether it can never fit the pool.
    pub dropped: bool,
    /// The context its prompt reuses, if the stream has any.
    ctx: Option<u32>,
    /// Whether it has looked its context up.
    looked: bool,
    /// Tokens whose KV waits in the store after a swap.
    swapped: u32,
    /// Whether it holds its context's blocks while it runs.
    holds: bool,
    /// When the client last received tokens of it (the first token, or a
    /// later chunk).
    delivered: Option<f64>,
    /// Blocks of its own KV still cached in the free pool after a
    /// preemption (`State::pool`).
    kept: u64,
}

impl Req {
    /// Tokens known: the prompt and what was generated.
    fn len(&self) -> u32 {
        self.prompt + self.generated
    }
}

/// What one run produced.
#[derive(Debug, Clone, Default)]
pub(crate) struct Run {
    pub reqs: Vec<Req>,
    pub iterations: u32,
    pub preemptions: u32,
    /// Σ over iterations of running requests.
    pub running_sum: f64,
    /// What the tiers saw, when the plan has reuse or a store.
    pub tiers: Option<Seen>,
    /// Gaps between the chunks a streaming client receives after the
    /// first token.
    pub itl: Gaps,
    /// Replicas simulated together (data-parallel attention ranks in
    /// lockstep, `run_lockstep`); 0 or 1 for one.
    pub ranks: u32,
}

/// Inter-token latency as a streaming benchmark client measures it
/// (`bench_serving`'s ITL: the time between successive chunks of one
/// response after the first, every chunk of every request a sample): a
/// histogram of 400 bins a decade from 1 µs to 1,000 s (0.6 % wide), so a
/// run of a million tokens keeps 3,600 counts, not a million samples.
#[derive(Debug, Clone, Default)]
pub(crate) struct Gaps {
    counts: Vec<u32>,
    n: u64,
    sum: f64,
}

impl Gaps {
    /// Adds another histogram's samples.
    fn merge(&mut self, o: &Gaps) {
        if self.counts.len() < o.counts.len() {
            self.counts.resize(o.counts.len(), 0);
        }
        for (a, b) in self.counts.iter_mut().zip(&o.counts) {
            *a += b;
        }
        self.n += o.n;
        self.sum += o.sum;
    }

    const PER_DECADE: f64 = 400.0;
    const LOW: f64 = -6.0;
    const BINS: usize = 3_600;

    fn add(&mut self, gap: f64) {
        if !gap.is_finite() || gap < 0.0 {
            return;
        }
        if self.counts.is_empty() {
            self.counts = vec![0; Self::BINS];
        }
        let b = ((gap.max(1e-6).log10() - Self::LOW) * Self::PER_DECADE).floor();
        let i = (b.max(0.0) as usize).min(Self::BINS - 1);
        if let Some(c) = self.counts.get_mut(i) {
            *c = c.saturating_add(1);
        }
        self.n += 1;
        self.sum += gap;
    }

    /// The nearest-rank `q` quantile, at its bin's geometric middle.
    pub fn quantile(&self, q: f64) -> f64 {
        if self.n == 0 {
            return 0.0;
        }
        let k = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        let mut seen = 0u64;
        for (i, c) in self.counts.iter().enumerate() {
            seen += u64::from(*c);
            if seen >= k {
                return 10f64.powf(Self::LOW + (i as f64 + 0.5) / Self::PER_DECADE);
            }
        }
        0.0
    }

    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum / self.n as f64
        }
    }
}

/// Tokens of a prompt the prefix cache serves: the shared prefix in whole
/// blocks, never the prompt's last token.
pub(crate) fn reused(prompt: u32, shared: u32, block: u32) -> u32 {
    let b = block.max(1);
    let whole = |x: u32| x / b * b;
    whole(shared).min(whole(prompt.saturating_sub(1)))
}

impl Req {
    /// Seconds from its first prefill pass to its first token.
    pub(crate) fn prefill_span(&self) -> Option<f64> {
        Some(self.first_token? - self.prefill_start?)
    }

    /// A request handed over by a prefill pool at `arrival` with its
    /// prompt's KV cache: all but the last prompt token is computed, so
    /// its first step here is one decode-sized step that emits the first
    /// token (disaggregated serving, `serving::disagg`).
    pub(crate) fn handed_over(arrival: f64, prompt: u32, output: u32) -> Req {
        Req {
            arrival,
            prompt,
            output,
            computed: prompt.saturating_sub(1),
            ..Req::default()
        }
    }
}

/// The requests of one replica's share of the stream: arrival times
/// (closed-loop requests get theirs as earlier ones finish) and lengths.
pub(crate) fn requests(stream: &RequestStream, replicas: u32) -> (Vec<Req>, Option<u32>) {
    ranked_requests(stream, replicas, (0, 1))
}

/// Mixed into the stream's seed once per rank after the first.
const RANK_SEED: u64 = 0x9e37_79b9_7f4a_7c15;

/// Rank `rank` of `ranks` replicas simulated together: its own draws (the
/// first rank's are [`requests`]'), as many as one replica's while all
/// ranks together stay within [`MAX_SIMULATED_REQUESTS`].
fn ranked_requests(
    stream: &RequestStream,
    replicas: u32,
    (rank, ranks): (u32, u32),
) -> (Vec<Req>, Option<u32>) {
    let n = stream
        .requests
        .min(MAX_SIMULATED_REQUESTS / ranks.max(1))
        .max(1) as usize;
    let mut rng = SplitMix::new(stream.seed ^ RANK_SEED.wrapping_mul(u64::from(rank)));
    let mut t = 0.0;
    let mut reqs = Vec::with_capacity(n);
    let clients = match stream.arrival {
        Arrival::Concurrency { clients } => Some((clients / replicas.max(1)).max(1)),
        Arrival::Poisson { .. } => None,
    };
    for i in 0..n {
        let arrival = match stream.arrival {
            Arrival::Poisson { rate } => {
                let per = rate.base() / f64::from(replicas.max(1));
                t += rng.exponential(if per > 0.0 { 1.0 / per } else { f64::MAX });
                t
            }
            Arrival::Concurrency { .. } if i < clients.unwrap_or(1) as usize => 0.0,
            Arrival::Concurrency { .. } => f64::INFINITY,
        };
        reqs.push(Req {
            arrival,
            prompt: stream.prompt.at(rng.unit()).max(1),
            output: stream.output.at(rng.unit()).max(1),
            ..Req::default()
        });
    }
    (reqs, clients)
}

/// The simulator's state.
struct State<'a> {
    r: &'a Resolved,
    dev: Option<&'a Breakdown>,
    cap: &'a Capacity,
    limits: Limits,
    spec: Option<Speculator>,
    run: Run,
    waiting: VecDeque<usize>,
    running: Vec<usize>,
    free: u64,
    /// The free blocks in the order the engine hands them out again,
    /// when a prefix cache keeps what they held: runs of blocks, each a
    /// preempted request's (still cached for it) or anyone's. vLLM V1's
    /// free queue takes blocks from its head, the least recently freed,
    /// and puts freed ones at its tail, a request's last block first
    /// (`BlockPool`, `KVCacheManager.free`). SGLang's radix cache keeps
    /// the part of a retracted request it had inserted (its prompt) until
    /// evicted and frees the rest (`retract_decode`); counting its decoded
    /// tokens as kept too is the approximation here. Empty when nothing is
    /// tracked (`tracks`).
    pool: VecDeque<(Option<usize>, u64)>,
    /// Whether preempted requests' blocks stay cached: a prefix cache, no
    /// sliding window (whose pages are not cached whole), no reservation.
    tracks: bool,
    clock: f64,
    /// Next request not yet arrived.
    next: usize,
    /// Requests released so far (closed loop).
    released: usize,
    closed: bool,
    /// Reuse and the store, with the stack of recency and what is owed.
    tiers: Option<Tiers>,
    /// Decode steps left in the current multi-step window.
    hold: u32,
    /// Requests whose tokens wait for the next pass to be handed over
    /// (`Limits::deferred_output`).
    pending: Vec<usize>,
    /// Host seconds to issue an eager prompt pass
    /// (`time::inference::prefill_issue_seconds`).
    issue: f64,
    /// Whether new prompts may start this iteration (attention-DP
    /// balance holds them, `Balance`).
    open: bool,
}

/// What one admission found (see `State::look`).
#[derive(Debug, Clone, Copy, Default)]
struct Found {
    /// The context looked up, if one was.
    ctx: Option<u32>,
    /// Its tokens this prompt can reuse.
    reusable: u32,
    /// Of them, found in HBM and in the store.
    hbm: u32,
    below: u32,
    /// Tokens fetched from the store (a context or a swapped request).
    fetched: u32,
}

/// The simulator's view of the tiers.
struct Tiers {
    t: Tiering,
    lru: Lru,
    /// Tokens of a context as the stream gives it.
    context: u32,
    seen: Seen,
    /// Seconds of fetches and swaps the next iteration waits for.
    owed: f64,
    /// Running requests holding each context, and the contexts held.
    held: Vec<u32>,
    distinct: u32,
}

impl Tiers {
    /// Request `q` lets go of its context (it finished or was preempted).
    fn release(&mut self, q: &mut Req) {
        if let (true, Some(c)) = (q.holds, q.ctx) {
            q.holds = false;
            let h = &mut self.held[c as usize];
            *h -= 1;
            if *h == 0 {
                self.distinct -= 1;
            }
        }
    }
}

/// Runs the stream on one replica with reuse and a store below HBM
/// (`kv_tiers`): contexts drawn per request from their own generator (a
/// stream without reuse draws as before), looked up in LRU's stack when a
/// request is admitted.
pub(crate) fn simulate_tiered(
    r: &Resolved,
    dev: Option<&Breakdown>,
    cap: &Capacity,
    limits: Limits,
    stream: &RequestStream,
    replicas: u32,
    tiering: Option<&Tiering>,
) -> Run {
    let ranks = lockstep_ranks(r, replicas);
    if ranks > 1 {
        let starts = (0..ranks)
            .map(|k| start(cap, limits, stream, replicas, tiering, (k, ranks)))
            .collect();
        return run_lockstep(r, dev, cap, limits, starts);
    }
    let first = start(cap, limits, stream, replicas, tiering, (0, 1));
    run(r, dev, cap, limits, first)
}

/// Replicas that step together: the data-parallel attention ranks that
/// feed one expert group (`time::work::token_sets`), when the plan has
/// that many, at most [`MAX_LOCKSTEP_RANKS`].
fn lockstep_ranks(r: &Resolved, replicas: u32) -> u32 {
    let n = crate::time::work::token_sets(r).round() as u32;
    if n > 1 && n <= replicas {
        n.min(MAX_LOCKSTEP_RANKS)
    } else {
        1
    }
}

/// Ranks one run simulates together: past 64, a group's stalls are those
/// of 64 ranks (the share of iterations some rank prefills in,
/// 1 − (1 − f)^n, barely moves beyond), so a plan's cost stays bounded.
const MAX_LOCKSTEP_RANKS: u32 = 64;

/// The requests of rank `k` of `ranks`, with their contexts and the
/// shared prefix's blocks.
fn start(
    cap: &Capacity,
    limits: Limits,
    stream: &RequestStream,
    replicas: u32,
    tiering: Option<&Tiering>,
    (k, ranks): (u32, u32),
) -> Start {
    let (mut reqs, clients) = ranked_requests(stream, replicas, (k, ranks));
    let tiers = tiering.map(|t| {
        let contexts = if t.contexts > 0.0 {
            t.contexts as u32
        } else {
            0
        };
        let mut rng =
            SplitMix::new(stream.seed ^ CONTEXT_SEED ^ RANK_SEED.wrapping_mul(u64::from(k)));
        for q in &mut reqs {
            q.ctx = (contexts > 0).then(|| ((rng.unit() * t.contexts) as u32).min(contexts - 1));
        }
        Tiers {
            t: *t,
            lru: Lru::new(contexts, reqs.len() as u32),
            context: stream.reuse.map_or(0, |u| u.tokens),
            seen: Seen::default(),
            owed: 0.0,
            held: vec![0; contexts as usize],
            distinct: 0,
        }
    });
    let shared = if limits.prefix_cache {
        stream.shared_prefix
    } else {
        0
    };
    let block = cap.block_tokens.max(1);
    for q in &mut reqs {
        q.cached = reused(q.prompt, shared, block);
        q.computed = q.cached;
    }
    let shared_blocks = u64::from(reused(u32::MAX, shared, block) / block);
    Start {
        reqs,
        clients,
        shared_blocks,
        tiers,
    }
}

/// Runs given requests of an open stream (arrivals in order, some perhaps
/// partly computed, as [`Req::handed_over`] makes them) on one replica,
/// without a prefix cache.
pub(crate) fn simulate_requests(
    r: &Resolved,
    dev: Option<&Breakdown>,
    cap: &Capacity,
    limits: Limits,
    reqs: Vec<Req>,
) -> Run {
    let start = Start {
        reqs,
        clients: None,
        shared_blocks: 0,
        tiers: None,
    };
    run(r, dev, cap, limits, start)
}

/// What a run starts from: its requests, the clients of a closed loop,
/// the blocks a shared prefix holds, and reuse with its store.
struct Start {
    reqs: Vec<Req>,
    clients: Option<u32>,
    shared_blocks: u64,
    tiers: Option<Tiers>,
}

fn run(r: &Resolved, dev: Option<&Breakdown>, cap: &Capacity, limits: Limits, start: Start) -> Run {
    let mut s = State::new(r, dev, cap, limits, start);
    let mut plan: Vec<(usize, u32)> = Vec::new();
    while s.run.iterations < MAX_ITERATIONS {
        s.arrive();
        if s.running.is_empty() && s.waiting.is_empty() {
            // An idle engine's next step runs at once and hands the last
            // outputs over.
            s.deliver(s.clock);
            match s.next_arrival() {
                Some(t) => {
                    s.clock = s.clock.max(t);
                    continue;
                }
                None => break,
            }
        }
        plan.clear();
        s.schedule(&mut plan);
        if plan.is_empty() {
            // Nothing could be scheduled: the head request can never fit.
            if let Some(i) = s.waiting.pop_front() {
                s.run.reqs[i].dropped = true;
                s.release_next();
            }
            continue;
        }
        s.step(&plan);
    }
    s.deliver(s.clock);
    s.run.tiers = s.tiers.map(|t| t.seen);
    s.run
}

/// Runs `ranks` replicas in lockstep: data-parallel attention ranks whose
/// tokens meet in one expert group wait for each other at every MoE layer
/// (`analytic::Shape::step_lockstep` gives the engines' sources). Each
/// rank schedules its own requests; an iteration lasts as long as the
/// slowest rank's own work (attention, the dense GEMMs, its store waits:
/// its iteration less its expert part) plus the experts' work on the
/// tokens of all ranks together. A rank with nothing to run waits.
fn run_lockstep(
    r: &Resolved,
    dev: Option<&Breakdown>,
    cap: &Capacity,
    limits: Limits,
    starts: Vec<Start>,
) -> Run {
    use crate::time::work::expert_group_seconds;
    // Lockstep ranks are attention-DP engines, none of which defers its
    // outputs.
    let limits = Limits {
        deferred_output: false,
        ..limits
    };
    let mut states: Vec<State> = starts
        .into_iter()
        .map(|s| State::new(r, dev, cap, limits, s))
        .collect();
    let n = states.len().max(1) as f64;
    let mut plans: Vec<Vec<(usize, u32)>> = vec![Vec::new(); states.len()];
    let mut iterations = 0;
    let mut clock: f64 = 0.0;
    let mut balance = Balance::default();
    while iterations < MAX_ITERATIONS {
        for s in &mut states {
            s.clock = clock;
            s.arrive();
        }
        if limits.dp_balance {
            let open = balance.open(&states);
            for s in &mut states {
                s.open = open;
            }
        }
        let mut busy = false;
        for (s, plan) in states.iter_mut().zip(&mut plans) {
            busy |= s.plan(plan);
        }
        if !busy {
            match states
                .iter()
                .filter_map(State::next_arrival)
                .min_by(f64::total_cmp)
            {
                Some(t) => {
                    clock = clock.max(t);
                    continue;
                }
                None => break,
            }
        }
        // Ranks that prefill are timed one by one; those that only decode
        // together, at the most sequences and the most keys any of them
        // holds (an upper bound on the slowest of them, within the ranks'
        // spread), so an iteration costs the time model a few evaluations,
        // not one per rank.
        let (mut own, mut tokens, mut decode) = (0.0f64, 0.0, Mix::default());
        for (s, plan) in states.iter_mut().zip(&plans) {
            if plan.is_empty() {
                continue;
            }
            let m = s.mix(plan);
            let tok = s.tokens(&m);
            tokens += tok;
            // A rank with a store below HBM is timed to know its wait.
            let timed = (m.prefill_tokens > 0.0 || s.stores()).then(|| {
                let compute = s.compute(&m);
                (compute, s.copies(compute, &m))
            });
            if let Some((compute, wait)) = timed.filter(|&(_, w)| m.prefill_tokens > 0.0 || w > 0.0)
            {
                own = own.max(compute - expert_group_seconds(r, tok) + wait);
            } else {
                decode.decode_seqs = decode.decode_seqs.max(m.decode_seqs);
                decode.decode_keys = decode.decode_keys.max(m.decode_keys);
            }
        }
        if decode.decode_seqs > 0.0 {
            let s = &states[0];
            let tok = s.tokens(&decode);
            own = own.max(s.compute(&decode) - expert_group_seconds(r, tok));
        }
        let dt = own.max(0.0) + expert_group_seconds(r, tokens / n);
        for (s, plan) in states.iter_mut().zip(&plans) {
            if !plan.is_empty() {
                s.advance(plan, dt);
            }
        }
        clock += dt.max(0.0);
        iterations += 1;
    }
    merge(states.into_iter().map(|s| s.run), iterations)
}

/// TensorRT-LLM's attention-DP balance (`engine::DpBalance`), as
/// `_balance_adp_requests` decides it each iteration from every rank's
/// counts: when every rank has prompts waiting and room for them, they
/// start, after [`DP_BALANCE_BATCHING_WAIT_ITERS`] iterations of waiting
/// for more if every rank is also decoding; otherwise they wait, at most
/// [`DP_BALANCE_TIMEOUT_ITERS`] iterations, and not at all when a rank has
/// nothing to decode.
#[derive(Debug, Clone, Copy, Default)]
struct Balance {
    waiting: u32,
    batching: u32,
}

impl Balance {
    /// Whether new prompts may start on every rank this iteration.
    fn open(&mut self, states: &[State]) -> bool {
        let all = |f: &dyn Fn(&State) -> bool| states.iter().all(f);
        let prompts = all(&|s| !s.waiting.is_empty());
        let room = all(&|s| (s.running.len() as u32) < s.limits.max_seqs);
        let decoding = all(&|s| !s.running.is_empty());
        if prompts && room {
            self.waiting = 0;
            if decoding && self.batching < DP_BALANCE_BATCHING_WAIT_ITERS {
                self.batching += 1;
                return false;
            }
            self.batching = 0;
            return true;
        }
        self.waiting += 1;
        if self.waiting >= DP_BALANCE_TIMEOUT_ITERS || !decoding {
            self.waiting = 0;
            return true;
        }
        false
    }
}

/// One run of the ranks simulated together.
fn merge(runs: impl Iterator<Item = Run>, iterations: u32) -> Run {
    let mut out = Run {
        iterations,
        ..Run::default()
    };
    for r in runs {
        out.reqs.extend(r.reqs);
        out.preemptions += r.preemptions;
        out.itl.merge(&r.itl);
        out.ranks += 1;
        // Per iteration of the group: what every rank ran.
        out.running_sum += r.running_sum;
        if let Some(t) = r.tiers {
            out.tiers = Some(out.tiers.map_or(t, |o| o.merged(&t)));
        }
    }
    out
}

/// Mixed into the stream's seed for the contexts' own generator.
const CONTEXT_SEED: u64 = 0x6b76_7469_6572_7321;

impl<'a> State<'a> {
    fn new(
        r: &'a Resolved,
        dev: Option<&'a Breakdown>,
        cap: &'a Capacity,
        limits: Limits,
        start: Start,
    ) -> State<'a> {
        let Start {
            reqs,
            clients,
            shared_blocks,
            tiers,
        } = start;
        let released = clients.map_or(reqs.len(), |c| (c as usize).min(reqs.len()));
        let free = cap.blocks().saturating_sub(shared_blocks);
        let tracks = limits.prefix_cache && r.spec.sliding_window.is_none() && !limits.reserve;
        State {
            r,
            dev,
            cap,
            limits,
            spec: Speculator::of(r),
            run: Run {
                reqs,
                ..Run::default()
            },
            waiting: VecDeque::new(),
            running: Vec::new(),
            free,
            pool: if tracks {
                VecDeque::from([(None, free)])
            } else {
                VecDeque::new()
            },
            tracks,
            clock: 0.0,
            next: 0,
            released,
            closed: clients.is_some(),
            tiers,
            hold: 0,
            pending: Vec::new(),
            issue: crate::time::inference::prefill_issue_seconds(r),
            open: true,
        }
    }

    /// Moves every request that has arrived by now to the waiting queue.
    /// A request longer than the whole pool is refused on arrival, as an
    /// engine refuses one beyond its `max_model_len`.
    fn arrive(&mut self) {
        while self.next < self.released && self.run.reqs[self.next].arrival <= self.clock {
            let q = self.run.reqs[self.next];
            let shared = u64::from(q.cached / self.cap.block_tokens.max(1));
            if self.cap.blocks_for(self.r, q.prompt + q.output) > self.cap.blocks() + shared {
                self.run.reqs[self.next].dropped = true;
                self.next += 1;
                self.release_next();
                continue;
            }
            self.waiting.push_back(self.next);
            self.next += 1;
        }
    }

    fn next_arrival(&self) -> Option<f64> {
        (self.next < self.released)
            .then(|| self.run.reqs[self.next].arrival)
            .filter(|t| t.is_finite())
    }

    /// A closed-loop client sends its next request now.
    fn release_next(&mut self) {
        self.release_next_at(self.clock);
    }

    /// A closed-loop client sends its next request at `t` (no earlier than
    /// any request released before it); it reaches the engine the
    /// front-end latency later.
    fn release_next_at(&mut self, t: f64) {
        if self.closed && self.released < self.run.reqs.len() {
            self.run.reqs[self.released].arrival = t + self.limits.front_end;
            self.released += 1;
        }
    }

    fn budget(&self) -> u64 {
        self.limits.token_budget.map_or(u64::MAX, u64::from)
    }

    /// Whether request `i` is decoding (its next token is a generated one).
    fn decoding(&self, i: usize) -> bool {
        let q = &self.run.reqs[i];
        q.generated > 0 && q.computed + 1 == q.len()
    }

    /// Positions a decoding request carries (k + 1 with speculation).
    fn width(&self) -> u32 {
        self.spec.as_ref().map_or(1, Speculator::width)
    }

    /// Blocks request `i` needs to hold `n` more tokens.
    fn needs(&self, i: usize, n: u32) -> u64 {
        let q = &self.run.reqs[i];
        let shared = u64::from(q.cached / self.cap.block_tokens.max(1));
        self.cap
            .blocks_for(self.r, q.computed + n)
            .saturating_sub(q.blocks + shared)
    }

    /// The newest running request gives its blocks back and waits to be
    /// recomputed (vLLM V1 `_preempt_request`).
    fn preempt_last(&mut self) -> Option<usize> {
        let v = self.running.pop()?;
        let q = &mut self.run.reqs[v];
        let held = q.blocks;
        q.blocks = 0;
        if let Some(t) = self.tiers.as_mut() {
            swap_out(t, q);
            t.release(q);
        }
        // Its whole blocks of computed KV stay cached, unless swapped out.
        let block = self.cap.block_tokens.max(1);
        let whole = u64::from(q.computed.saturating_sub(q.cached) / block);
        let kept = if self.tracks && q.swapped == 0 {
            whole.min(held)
        } else {
            0
        };
        q.kept = kept;
        q.computed = q.cached;
        self.give_back(None, held - kept);
        self.give_back(Some(v), kept);
        self.waiting.push_front(v);
        self.run.preemptions += 1;
        Some(v)
    }

    /// `n` blocks return to the free pool, behind every block already
    /// there; `owner`'s stay cached for it until handed out again.
    fn give_back(&mut self, owner: Option<usize>, n: u64) {
        self.free += n;
        if !self.tracks || n == 0 {
            return;
        }
        match (self.pool.back_mut(), owner) {
            (Some((None, k)), None) => *k += n,
            _ => self.pool.push_back((owner, n)),
        }
    }

    /// New KV takes `n` free blocks from the head of the pool, evicting
    /// what they cached.
    fn take(&mut self, n: u64) {
        self.free -= n;
        let mut n = n;
        while n > 0 && self.tracks {
            let Some(front) = self.pool.front_mut() else {
                break;
            };
            let k = front.1.min(n);
            front.1 -= k;
            n -= k;
            if let Some(j) = front.0 {
                self.run.reqs[j].kept -= k;
            }
            if front.1 == 0 {
                self.pool.pop_front();
            }
        }
    }

    /// A preempted request about to be admitted again finds the blocks it
    /// left still cached: it holds them again and resumes after their
    /// tokens (at least one token is computed again, as vLLM's prefix hit
    /// leaves the last). Returns the blocks; `reattach` takes them out of
    /// the pool once the admission holds.
    fn cached_again(&mut self, i: usize) -> u64 {
        let block = self.cap.block_tokens.max(1);
        let q = &mut self.run.reqs[i];
        let kept = q.kept;
        if kept == 0 {
            return 0;
        }
        let own = (kept * u64::from(block)).min(u64::from(q.len().saturating_sub(1 + q.cached)));
        q.computed = q.cached + own as u32;
        q.blocks = kept;
        kept
    }

    /// Request `i`'s cached blocks leave the free pool with it.
    fn reattach(&mut self, i: usize, kept: u64) {
        if kept == 0 {
            return;
        }
        if let Some(at) = self.pool.iter().position(|s| s.0 == Some(i)) {
            self.pool.remove(at);
        }
        self.run.reqs[i].kept = 0;
        self.free -= kept;
    }

    /// The iteration's plan, as the engine's batching fills it: inside a
    /// multi-step window the running requests only; with prefill first,
    /// waiting prompts alone when any can start, else the running ones;
    /// mixed, the running requests and then new prompts in the budget left.
    /// A decode-only plan opens a window of `scheduler_steps`.
    fn schedule(&mut self, plan: &mut Vec<(usize, u32)>) {
        if self.running.is_empty() {
            self.hold = 0;
        }
        if self.hold > 0 {
            self.hold -= 1;
            self.schedule_running(plan);
            return;
        }
        match self.limits.batching {
            Batching::PrefillFirst => {
                self.continue_prompts(plan);
                self.admit(plan);
                if plan.is_empty() {
                    self.schedule_running(plan);
                }
            }
            Batching::Mixed => {
                if !self.schedule_running(plan) {
                    self.admit(plan);
                }
            }
        }
        let decode_only = plan.iter().all(|&(i, _)| self.decoding(i));
        if decode_only && !plan.is_empty() {
            self.hold = self.limits.scheduler_steps.max(1) - 1;
        }
    }

    /// Tokens for every running request, in order; returns whether any
    /// request was preempted.
    fn schedule_running(&mut self, plan: &mut Vec<(usize, u32)>) -> bool {
        let mut budget = self.budget();
        let mut preempted = false;
        let mut k = 0;
        while k < self.running.len() && budget > 0 {
            let i = self.running[k];
            let q = &self.run.reqs[i];
            let n = u64::from(q.len() - q.computed).min(budget) as u32;
            // A decoding request's draft positions take budget and slots.
            let held = if self.decoding(i) { self.width() } else { n };
            let need = self.needs(i, held);
            let mut me = false;
            while self.free < need {
                preempted = true;
                if self.preempt_last() == Some(i) {
                    me = true;
                    break;
                }
            }
            if me {
                break;
            }
            self.take(need);
            self.run.reqs[i].blocks += need;
            plan.push((i, n));
            budget = budget.saturating_sub(u64::from(held));
            k += 1;
        }
        preempted
    }

    /// Prefill first: running requests still part-way through their
    /// prompt (chunked by the token budget) go on in the prefill
    /// iteration, ahead of new prompts and without the decoding ones
    /// (SGLang's `chunked_req`, resumed first in `get_new_batch_prefill`).
    fn continue_prompts(&mut self, plan: &mut Vec<(usize, u32)>) {
        let mut budget = self.budget();
        for k in 0..self.running.len() {
            let i = self.running[k];
            let q = &self.run.reqs[i];
            if budget == 0 || q.generated > 0 || q.computed >= q.prompt {
                continue;
            }
            let n = u64::from(q.prompt - q.computed).min(budget) as u32;
            let need = self.needs(i, n);
            if self.free < need {
                continue;
            }
            self.take(need);
            self.run.reqs[i].blocks += need;
            plan.push((i, n));
            budget -= u64::from(n);
        }
    }

    /// Admits waiting requests while budget, running slots and blocks last.
    /// A static batch takes every waiting request up to its size whatever
    /// the budget: the budget chunks the batch's prefill (the prompts it
    /// could not start here go on in the next iterations,
    /// [`Self::continue_prompts`]), it does not shrink the batch.
    fn admit(&mut self, plan: &mut Vec<(usize, u32)>) {
        let whole_batch = self.limits.static_batches;
        if !self.open || (whole_batch && !self.running.is_empty()) {
            return;
        }
        let used: u64 = plan.iter().map(|p| u64::from(p.1)).sum();
        let mut budget = self.budget().saturating_sub(used);
        while (budget > 0 || whole_batch) && (self.running.len() as u32) < self.limits.max_seqs {
            let Some(&i) = self.waiting.front() else {
                break;
            };
            let before = self.run.reqs[i];
            let found = self.look(i);
            let kept = self.cached_again(i);
            let q = &self.run.reqs[i];
            let n = u64::from(q.len() - q.computed).min(budget) as u32;
            // A reserving engine takes the blocks of the whole request now.
            let need = if self.limits.reserve {
                let whole = (q.prompt + q.output).saturating_sub(q.computed);
                self.needs(i, whole.max(n))
            } else {
                self.needs(i, n)
            };
            if self.free < need + kept {
                self.run.reqs[i] = before;
                break;
            }
            self.found(i, found);
            self.waiting.pop_front();
            self.reattach(i, kept);
            self.take(need);
            self.run.reqs[i].blocks += need;
            self.running.push(i);
            if n > 0 {
                plan.push((i, n));
            }
            budget -= u64::from(n);
        }
    }

    /// Where request `i` finds its tokens as it is admitted: a swapped
    /// request its own KV in the store; a new one its context in HBM's
    /// free blocks or in the store by its depth in LRU's stack, or
    /// nowhere. Sets its computed tokens.
    fn look(&mut self, i: usize) -> Found {
        let free = self.free as f64 * f64::from(self.cap.block_tokens.max(1));
        let block = self.cap.block_tokens;
        let Some(t) = self.tiers.as_ref() else {
            return Found::default();
        };
        let q = &mut self.run.reqs[i];
        if q.swapped > 0 {
            let fetched = q.swapped - q.cached;
            q.computed = q.swapped;
            q.swapped = 0;
            return Found {
                fetched,
                ..Found::default()
            };
        }
        let Some(ctx) = q.ctx.filter(|_| !q.looked && q.generated == 0) else {
            return Found::default();
        };
        q.looked = true;
        let n = reusable(q.prompt, q.cached, t.context, block);
        // Contexts running requests hold are in HBM too (the most recent
        // in the stack); the free blocks keep the next ones.
        let depth = t.lru.depth(ctx) as f64 * t.t.context;
        let in_hbm = free + f64::from(t.distinct) * t.t.context;
        let below = t.t.store.map_or(0.0, |s| s.tokens);
        let mut f = Found {
            ctx: Some(ctx),
            reusable: n,
            ..Found::default()
        };
        if t.held[ctx as usize] > 0 || depth <= in_hbm {
            f.hbm = n;
        } else if depth <= below {
            (f.below, f.fetched) = (n, n);
        }
        q.computed = q.cached + f.hbm + f.below;
        f
    }

    /// Records what an admission found: the context is used now, and its
    /// fetch is owed by the coming iteration.
    fn found(&mut self, i: usize, f: Found) {
        let Some(t) = self.tiers.as_mut() else {
            return;
        };
        if let Some(ctx) = f.ctx {
            self.run.reqs[i].holds = true;
            let h = &mut t.held[ctx as usize];
            if *h == 0 {
                t.distinct += 1;
            }
            *h += 1;
            t.seen.looked += f64::from(f.reusable);
            t.seen.hbm += f64::from(f.hbm);
            t.seen.below += f64::from(f.below);
            t.lru.touch(ctx);
        }
        if let Some(s) = t.t.store {
            let secs = s.moved(f64::from(f.fetched));
            t.owed += secs;
            t.seen.fetch += secs;
        }
    }

    /// The iteration's work, summed.
    fn mix(&self, plan: &[(usize, u32)]) -> Mix {
        let mut m = Mix::default();
        for &(i, n) in plan {
            let q = &self.run.reqs[i];
            let (p, c) = (f64::from(q.computed), f64::from(n));
            if n == 1 && q.computed > 0 && q.computed + 1 == q.len() {
                m.decode_seqs += 1.0;
                m.decode_keys += windowed(self.r, p + 1.0);
            } else {
                m.prefill_tokens += c;
                m.prefill_keys += c * windowed(self.r, p + c / 2.0);
                m.prefill_cached += windowed(self.r, p);
                if q.computed + n == q.len() {
                    m.prefill_done += 1.0;
                }
            }
        }
        m
    }

    /// Seconds the iteration waits for the store: what admissions and
    /// swaps owe, and the prompt tokens it computes written down.
    fn copies(&mut self, compute: f64, m: &Mix) -> f64 {
        let Some(t) = self.tiers.as_mut() else {
            return 0.0;
        };
        let owed = std::mem::take(&mut t.owed);
        t.t.store.map_or(0.0, |s| {
            s.exposed(owed + m.prefill_tokens * s.per_token, compute)
        })
    }

    /// Runs one iteration and advances every scheduled request; tokens
    /// the last one left for this one to hand over reach the client once
    /// its forward is launched.
    fn step(&mut self, plan: &[(usize, u32)]) {
        let (m, compute, wait) = self.work(plan);
        if !self.pending.is_empty() {
            let issue = if m.prefill_tokens > 0.0 {
                self.issue
            } else {
                0.0
            };
            let sampled = m.decode_seqs + m.prefill_done;
            let lead = self.limits.host.lead(sampled, issue).min(compute + wait);
            self.deliver(self.clock + lead);
        }
        self.advance(plan, compute + wait);
    }

    /// Hands the pending requests' tokens to the client at `t`; a client
    /// whose request ended there sends its next one then (closed loop).
    fn deliver(&mut self, t: f64) {
        for i in std::mem::take(&mut self.pending) {
            let q = &mut self.run.reqs[i];
            q.first_token.get_or_insert(t);
            if let Some(prev) = q.delivered {
                self.run.itl.add(t - prev);
            }
            q.delivered = Some(t);
            if q.finish.is_some() {
                q.finish = Some(t);
                self.release_next_at(t);
            }
        }
    }

    /// The iteration's work, its compute time and what it waits for the
    /// store.
    fn work(&mut self, plan: &[(usize, u32)]) -> (Mix, f64, f64) {
        let m = self.mix(plan);
        let compute = self.compute(&m);
        let wait = self.copies(compute, &m);
        (m, compute, wait)
    }

    /// Seconds of an iteration carrying `m`.
    fn compute(&self, m: &Mix) -> f64 {
        self.limits
            .iteration(self.r, self.spec.as_ref(), self.dev, m)
    }

    /// Whether the replica keeps a store below HBM (its iterations may
    /// wait for copies, [`State::copies`]).
    fn stores(&self) -> bool {
        self.tiers.as_ref().is_some_and(|t| t.t.store.is_some())
    }

    /// Tokens the iteration's GEMMs carry (a decoding sequence's draft
    /// positions included).
    fn tokens(&self, m: &Mix) -> f64 {
        m.prefill_tokens + m.decode_seqs * f64::from(self.width())
    }

    /// Schedules the next iteration, refusing requests that can never be
    /// scheduled; false when this replica has nothing to run.
    fn plan(&mut self, plan: &mut Vec<(usize, u32)>) -> bool {
        loop {
            plan.clear();
            if self.running.is_empty() && self.waiting.is_empty() {
                return false;
            }
            self.schedule(plan);
            if !plan.is_empty() {
                return true;
            }
            let Some(i) = self.waiting.pop_front() else {
                return false;
            };
            self.run.reqs[i].dropped = true;
            self.release_next();
            self.arrive();
        }
    }

    /// Ends an iteration of `dt` seconds: every scheduled request advances.
    fn advance(&mut self, plan: &[(usize, u32)], dt: f64) {
        let yield_ = self.spec.as_ref().map_or(1.0, Speculator::expected);
        for &(i, _) in plan {
            let q = &mut self.run.reqs[i];
            q.prefill_start.get_or_insert(self.clock);
        }
        self.clock += dt.max(0.0);
        self.run.iterations += 1;
        self.run.running_sum += self.running.len() as f64;
        let mut done = Vec::new();
        for &(i, n) in plan {
            let q = &mut self.run.reqs[i];
            let decoding = q.generated > 0;
            q.computed += n;
            if q.computed == q.len() {
                let mut g = 1;
                if decoding {
                    // Accepted draft tokens have their KV computed.
                    q.credit += yield_;
                    g = (q.credit.floor() as u32).clamp(1, q.output - q.generated);
                    q.credit -= f64::from(g);
                    q.computed += g - 1;
                }
                q.generated += g;
                // Inside a multi-step window the engine hands the tokens
                // over when the window ends (or the request does); an
                // engine that defers its outputs, during the next pass.
                let handed = self.hold == 0 || q.generated >= q.output;
                if self.limits.deferred_output {
                    if handed || q.first_token.is_none() {
                        self.pending.push(i);
                    }
                } else {
                    q.first_token.get_or_insert(self.clock);
                    if handed {
                        if let Some(prev) = q.delivered {
                            self.run.itl.add(self.clock - prev);
                        }
                        q.delivered = Some(self.clock);
                    }
                }
                if q.generated >= q.output {
                    q.finish = Some(self.clock);
                    let held = q.blocks;
                    q.blocks = 0;
                    if let Some(t) = self.tiers.as_mut() {
                        t.release(q);
                    }
                    done.push(i);
                    self.give_back(None, held);
                }
            }
        }
        if !done.is_empty() {
            self.running.retain(|i| !done.contains(i));
            // Under deferral the client learns of the end when the
            // tokens are handed over (`deliver`).
            if !self.limits.deferred_output {
                for _ in &done {
                    self.release_next();
                }
            }
        }
    }
}

/// A preempted request's KV goes down to the store when the plan swaps
/// and the store holds it (vLLM V0 `swap_out`, before the next forward).
fn swap_out(t: &mut Tiers, q: &mut Req) {
    let Some(s) = t.t.store.filter(|s| s.swap) else {
        return;
    };
    let n = q.computed.saturating_sub(q.cached);
    if n == 0 || f64::from(n) > s.tokens {
        return;
    }
    q.swapped = q.computed;
    t.owed += s.moved(f64::from(n));
    t.seen.swaps += 1;
}

#[cfg(test)]
mod tests {
    use super::Gaps;

    #[test]
    fn gaps_give_nearest_rank_quantiles_within_a_bin() {
        let mut g = Gaps::default();
        assert_eq!(g.quantile(0.5), 0.0);
        // 1..=1000 ms: the median is 500 ms, the 99th 990 ms.
        for k in 1..=1000 {
            g.add(f64::from(k) * 1e-3);
        }
        for bad in [f64::NAN, -1.0, f64::INFINITY] {
            g.add(bad);
        }
        let close = |x: f64, want: f64| (x / want - 1.0).abs() < 0.006;
        assert!(close(g.quantile(0.5), 0.5), "{}", g.quantile(0.5));
        assert!(close(g.quantile(0.99), 0.99), "{}", g.quantile(0.99));
        assert!((g.mean() - 0.5005).abs() < 1e-12);
        // Gaps outside the range land in the end bins.
        let mut tiny = Gaps::default();
        tiny.add(0.0);
        tiny.add(1e9);
        assert!(tiny.quantile(0.5) < 2e-6 && tiny.quantile(1.0) > 900.0);
    }
}
