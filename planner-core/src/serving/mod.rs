//! Serving as the engines run it: the engine's KV pool and the requests it
//! holds at once; with a request stream, an iteration-level simulation
//! (`sim`) and a steady-state approximation (`analytic`) of latency,
//! throughput, goodput and the largest sustainable rate; the cost per
//! million input and output tokens.

pub(crate) mod analytic;
pub(crate) mod capacity;
pub(crate) mod disagg;
pub(crate) mod kv_tiers;
mod rng;
pub(crate) mod sim;
mod static_batch;

use crate::engine::{EngineProfile, PrefixCaching};
use crate::memory::breakdown::Breakdown;
use crate::report::{
    AnalyticServing, DeviceMemory, Interval, Percentiles, ServingReport, SimulatedServing,
    StreamTime, TimeReport,
};
use crate::request::{RequestStream, Slo};
use crate::resolve::{Resolved, Work};
use crate::units::{Bytes, Seconds, Usd};
use analytic::{meets, Shape, Steady};
use kv_tiers::{KvUse, Tiering};
use sim::{Limits, Run};

/// The engine's profile as this plan applies it
/// ([`Resolved::engine_profile`]), with the plan's page size.
pub(crate) fn profile(r: &Resolved, batch: u32) -> EngineProfile {
    let mut p = r.engine_profile(batch);
    p.block_tokens = capacity::block_tokens(r, &p);
    p
}

/// Micro-batches a replica keeps in flight through its pipeline stages,
/// each behaving as an engine of its own over its share of the KV pool:
/// `pp` for an engine that batches continuously, 1 for static batches.
/// vLLM runs `pipeline_parallel_size` virtual engines, each with its own
/// scheduler (running limit and token budget) over 1/pp of the KV blocks
/// (`vllm/core/scheduler.py`, `Scheduler.__init__`: `num_gpu_blocks //=
/// pipeline_parallel_size`); TensorRT-LLM and SGLang keep micro-batches in
/// flight the same way, and are taken to split their pools alike. Each
/// micro-batch crosses every stage in turn, so its iteration is the whole
/// model's (the time model's sum over the stages and the sends between
/// them) while the others occupy the other stages. A static batch (a
/// model's layers over devices, as transformers' `device_map` places them)
/// runs one batch at a time.
pub(crate) fn lanes(r: &Resolved) -> u32 {
    if r.levers.engine.continuous() {
        r.pp.max(1)
    } else {
        1
    }
}

/// The share of the pool one lane holds, and the engines a stream is
/// spread over: every replica's lanes ([`lanes`]).
fn spread(r: &Resolved, cap: capacity::Capacity) -> (capacity::Capacity, u32) {
    let engines = lanes(r);
    // Saturating: an invalid plan's DP × PP need not fit a u32 (its
    // figures are not shown, but must not overflow).
    (cap.lane(engines), r.dp.max(1).saturating_mul(engines))
}

fn limits(p: &EngineProfile) -> Limits {
    Limits {
        token_budget: p.token_budget,
        max_seqs: p.max_seqs.max(1),
        static_batches: !p.engine.continuous(),
        prefix_cache: p.engine.continuous() && p.prefix_caching == PrefixCaching::On,
        batching: p.batching,
        scheduler_steps: p.scheduler_steps.max(1),
        host: p.host,
        reserve: p.preemption == crate::engine::Preemption::ReserveToFinish,
        dp_balance: p.dp_balance == crate::engine::DpBalance::On,
        deferred_output: p.engine.defers_output(),
        front_end: p.front_end.base(),
    }
}

/// The serving section of a report and, with a stream, where a streamed
/// request's time goes (its ranges those of the plan's static figures,
/// `time`); `usd_per_hour` is the whole plan's price (all replicas), when
/// known.
pub(crate) fn report(
    r: &Resolved,
    devices: &[DeviceMemory],
    tables: &[Breakdown],
    stream: Option<&RequestStream>,
    (time, usd_per_hour): (&TimeReport, Option<Usd>),
) -> Option<(ServingReport, Option<StreamTime>)> {
    let Work::Infer {
        prompt,
        output,
        batch,
        ..
    } = r.work
    else {
        return None;
    };
    let profile = profile(r, batch);
    let cap = capacity::capacity(r, devices, &profile);
    let dev = tables.first();
    let lim = limits(&profile);
    let mut out = ServingReport {
        profile,
        kv_pool: cap.pool,
        kv_bytes_per_token_device: Bytes::new(cap.per_token),
        kv_capacity_tokens: cap.tokens,
        max_concurrency: cap.concurrency(r, prompt.saturating_add(output)),
        simulated: None,
        analytic: None,
        usd_per_million_input: None,
        usd_per_million_output: None,
        usd_per_request: None,
        speculative: r
            .levers
            .speculative
            .filter(crate::engine::Speculation::active),
        tokens_per_step: r
            .levers
            .speculative
            .filter(crate::engine::Speculation::active)
            .map_or(1.0, |s| s.expected_tokens()),
        kv_tier: None,
    };
    let Some(stream) = stream else {
        return Some((out, None));
    };
    let (cap, replicas) = spread(r, cap);
    let spec = crate::memory::speculator::Speculator::of(r);
    let tiers = tiering(r, devices, &cap, stream, &lim);
    let shape = shape(r, dev, &cap, lim, stream, spec.as_ref(), tiers.as_ref());
    let steady = shape.of(stream, replicas);
    let analytic = analytic_figures(&shape, stream, &steady, replicas);
    let max_rate = analytic.max_rate / f64::from(replicas);
    out.analytic = Some(analytic);
    let run = sim::simulate_tiered(r, dev, &cap, lim, stream, replicas, tiers.as_ref());
    let sim = simulated_figures(&run, &stream.slo, replicas, lim.front_end);
    out.kv_tier = tiers.map(|t| tier_figures(&shape, &t, &steady, &run, stream, replicas));
    if let Some(price) = usd_per_hour {
        let per_second = price.as_usd() / 3600.0;
        // Past its largest rate the engine runs saturated at it: the share
        // of its time in prefill is that rate's, not the overloaded fixed
        // point's (which has none).
        let share = if steady.stable {
            steady.prefill_share
        } else {
            shape.steady(max_rate).prefill_share
        };
        let per_m =
            |tps: f64, part: f64| (tps > 0.0).then(|| Usd::new(per_second * part / tps * 1e6));
        out.usd_per_million_input = per_m(sim.input_tokens_per_second, share);
        out.usd_per_million_output = per_m(sim.output_tokens_per_second, 1.0 - share);
        out.usd_per_request =
            (sim.requests_per_second > 0.0).then(|| Usd::new(per_second / sim.requests_per_second));
    }
    let streamed = stream_time(&shape, &sim, lim.front_end, (time, usd_per_hour));
    out.simulated = Some(sim);
    Some((out, Some(streamed)))
}

/// Where a streamed request's median time goes ([`StreamTime`]): the
/// simulated medians, split into the front end, the work the time model
/// gives one request (its prompt's prefill alone; a decode iteration at the
/// simulated mean batch, per token), and the rest behind other requests;
/// each with the range of the static figure it stands for, as a share of
/// it (the same model's errors on the same kind of run).
fn stream_time(
    shape: &Shape,
    sim: &SimulatedServing,
    front_end: f64,
    (time, usd_per_hour): (&TimeReport, Option<Usd>),
) -> StreamTime {
    use crate::report::TimeKind;
    // `parts` fitted under `total`: scaled down to it when longer, the
    // rest behind other requests when shorter.
    let fitted = |mut parts: crate::time::Parts, total: f64| {
        let own = parts.total();
        if own > total && own > 0.0 {
            parts = parts.scaled(total / own);
        } else if total > own {
            parts.add(TimeKind::Waiting, total - own, total - own);
        }
        parts
    };
    let ttft = sim.ttft.p50.as_secs();
    let front = front_end.clamp(0.0, ttft);
    let mut first = fitted(shape.prefill_alone(), ttft - front);
    first.add(TimeKind::FrontEnd, front, front);
    let tpot = sim.tpot.p50.as_secs();
    let next = fitted(shape.decode_token(sim.mean_running), tpot);
    let (ttft_range, tpot_range) = match time {
        TimeReport::Inference(s) => (
            like(sim.ttft.p50, s.ttft, s.ttft_range),
            like(sim.tpot.p50, s.tpot, s.tpot_range),
        ),
        TimeReport::Training(_) => (point(sim.ttft.p50), point(sim.tpot.p50)),
    };
    StreamTime {
        ttft: sim.ttft.p50,
        ttft_range,
        ttft_parts: first.listed(),
        tpot: sim.tpot.p50,
        tpot_range,
        tpot_parts: next.listed(),
        output_tokens_per_second: sim.output_tokens_per_second,
        usd_per_million_output: usd_per_hour
            .filter(|_| sim.output_tokens_per_second > 0.0)
            .map(|u| Usd::new(u.as_usd() / 3600.0 / sim.output_tokens_per_second * 1e6)),
    }
}

/// `x` with the range `range` gives `of`, as shares of it.
fn like(x: Seconds, of: Seconds, range: Interval<Seconds>) -> Interval<Seconds> {
    let k = |end: Seconds| {
        if of.as_secs() > 0.0 {
            end.as_secs() / of.as_secs()
        } else {
            1.0
        }
    };
    Interval {
        low: Seconds::from_secs(x.as_secs() * k(range.low)),
        high: Seconds::from_secs(x.as_secs() * k(range.high)),
    }
}

/// A range of one point.
fn point(x: Seconds) -> Interval<Seconds> {
    Interval { low: x, high: x }
}

/// The devices a report shows for a stream under a continuous-batching
/// engine: each holds the engine's whole KV pool, sized for requests up to
/// the stream's longest (see [`capacity::engine_devices`]); `None` when
/// the plan's devices stand as computed (static batches, no stream).
pub(crate) fn engine_devices(
    r: &Resolved,
    devices: &[DeviceMemory],
    stream: Option<&RequestStream>,
) -> Option<Vec<DeviceMemory>> {
    let stream = stream?;
    let Work::Infer { batch, .. } = r.work else {
        return None;
    };
    if !r.levers.engine.continuous() {
        return None;
    }
    let longest = stream.prompt.max().saturating_add(stream.output.max());
    Some(capacity::engine_devices(
        r,
        devices,
        &profile(r, batch),
        longest,
    ))
}

/// Reuse and the store of a stream under a continuous-batching engine.
fn tiering(
    r: &Resolved,
    devices: &[DeviceMemory],
    cap: &capacity::Capacity,
    stream: &RequestStream,
    lim: &Limits,
) -> Option<Tiering> {
    if lim.static_batches {
        return None;
    }
    let shared = cached(stream, lim, cap);
    kv_tiers::tiering(r, devices, cap, stream, lim.prefix_cache, shared)
}

/// The steady-state shape of a stream on one replica.
fn shape<'a>(
    r: &'a Resolved,
    dev: Option<&'a Breakdown>,
    cap: &'a capacity::Capacity,
    lim: Limits,
    stream: &'a RequestStream,
    spec: Option<&'a crate::memory::speculator::Speculator>,
    tiers: Option<&'a Tiering>,
) -> Shape<'a> {
    let cached = cached(stream, &lim, cap);
    Shape {
        outputs: lim.static_batches.then_some(&stream.output),
        r,
        dev,
        cap,
        limits: lim,
        prompt: stream.prompt.mean().max(1.0),
        output: stream.output.mean().max(1.0),
        cached,
        spec,
        kv: KvUse::at(tiers, cap.tokens - cached),
        lockstep: analytic::lockstep(r, &lim, stream),
        aligned: analytic::aligned(stream),
    }
}

/// The tiers' figures: hit rates, fetch time per request, and the median
/// TTFT the store saves against the same replica without it.
fn tier_figures(
    shape: &Shape,
    t: &Tiering,
    s: &Steady,
    run: &Run,
    stream: &RequestStream,
    replicas: u32,
) -> crate::report::KvTierReport {
    let bare = Tiering { store: None, ..*t };
    let gain = (t.store.is_some() && t.contexts > 0.0).then(|| {
        let without = Shape {
            kv: KvUse::at(Some(&bare), 0.0),
            ..*shape
        };
        let w = without.of(stream, replicas);
        Seconds::from_secs(w.ttft[0] - s.ttft[0])
    });
    let seen = run.tiers.unwrap_or_default();
    let done = run.reqs.iter().filter(|q| q.finish.is_some()).count();
    let share = |x: f64| (seen.looked > 0.0).then(|| x / seen.looked);
    crate::report::KvTierReport {
        tier: t.store.map(|s| s.tier),
        store_tokens: t.store.map_or(0.0, |s| s.tokens),
        working_set_tokens: t.working_set(),
        hit_rate_hbm: s.hits[0],
        hit_rate_store: s.hits[1],
        fetch_per_request: Seconds::from_secs(s.fetch),
        simulated_hit_rate_hbm: share(seen.hbm),
        simulated_hit_rate_store: share(seen.below),
        simulated_fetch_per_request: (done > 0)
            .then(|| Seconds::from_secs(seen.fetch / done as f64)),
        swaps: seen.swaps,
        ttft_gain: gain,
    }
}

/// Mean prompt tokens the prefix cache serves.
fn cached(stream: &RequestStream, lim: &Limits, cap: &capacity::Capacity) -> f64 {
    if !lim.prefix_cache {
        return 0.0;
    }
    let mean = stream.prompt.mean().max(1.0).round() as u32;
    f64::from(sim::reused(mean, stream.shared_prefix, cap.block_tokens))
}

fn analytic_figures(
    shape: &Shape,
    stream: &RequestStream,
    s: &Steady,
    replicas: u32,
) -> AnalyticServing {
    let n = f64::from(replicas);
    let slo = &stream.slo;
    let any_slo = slo.is_set();
    // The same ranks with their prefills lined up.
    let dp_stall = (shape.lockstep > 1.0 && s.tpot > 0.0).then(|| {
        let aligned = Shape {
            lockstep: 1.0,
            ..*shape
        }
        .of(stream, replicas);
        (1.0 - aligned.tpot / s.tpot).clamp(0.0, 1.0)
    });
    let max_rate = shape.max_rate(None);
    AnalyticServing {
        stable: s.stable,
        iteration: Seconds::from_secs(s.t),
        running: s.running,
        ttft: Percentiles {
            p50: Seconds::from_secs(s.ttft[0]),
            p99: Seconds::from_secs(s.ttft[1]),
            mean: Seconds::from_secs(s.ttft[2]),
        },
        tpot: Seconds::from_secs(s.tpot),
        // An unsustainable stream is served at the largest rate, not the
        // offered one.
        output_tokens_per_second: if s.stable {
            s.rate
        } else {
            s.rate.min(max_rate)
        } * shape.output
            * n,
        max_rate: max_rate * n,
        max_rate_under_slo: any_slo.then(|| shape.max_rate(Some(slo)) * n),
        prefill_share: s.prefill_share,
        dp_stall,
        waves: s.waves.map(|g| g.round().max(1.0) as u32),
    }
}

/// Nearest-rank percentiles and the mean of `xs` (sorted in place).
fn percentiles(xs: &mut [f64]) -> Percentiles {
    if xs.is_empty() {
        return Percentiles::default();
    }
    xs.sort_by(f64::total_cmp);
    let at = |q: f64| {
        let k = ((q * xs.len() as f64).ceil() as usize).clamp(1, xs.len());
        Seconds::from_secs(xs[k - 1])
    };
    Percentiles {
        p50: at(0.5),
        p99: at(0.99),
        mean: Seconds::from_secs(xs.iter().sum::<f64>() / xs.len() as f64),
    }
}

/// The figures of a simulated run; every request's TTFT and latency carry
/// the server's `front_end` (seconds) beside its time in the engine.
fn simulated_figures(run: &Run, slo: &Slo, replicas: u32, front_end: f64) -> SimulatedServing {
    // A run of ranks in lockstep holds that many replicas' requests.
    let ranks = f64::from(run.ranks.max(1));
    let n = f64::from(replicas) / ranks;
    let done: Vec<_> = run.reqs.iter().filter(|q| q.finish.is_some()).collect();
    let start = run
        .reqs
        .iter()
        .map(|q| q.arrival)
        .fold(f64::INFINITY, f64::min);
    let end = done
        .iter()
        .filter_map(|q| q.finish)
        .fold(f64::NEG_INFINITY, f64::max);
    let span = if end > start { end - start } else { 0.0 };
    let mut ttft: Vec<f64> = Vec::with_capacity(done.len());
    let mut tpot: Vec<f64> = Vec::with_capacity(done.len());
    let mut latency: Vec<f64> = Vec::with_capacity(done.len());
    let mut good = 0u32;
    let (mut out_tokens, mut in_tokens) = (0.0, 0.0);
    for q in &done {
        let (first, fin) = (q.first_token.unwrap_or(q.arrival), q.finish.unwrap_or(0.0));
        // The client's clock: the front-end latency beside the engine's.
        let t1 = first - q.arrival + front_end;
        let tp = if q.output > 1 {
            (fin - first) / f64::from(q.output - 1)
        } else {
            0.0
        };
        ttft.push(t1);
        tpot.push(tp);
        latency.push(fin - q.arrival + front_end);
        out_tokens += f64::from(q.output);
        in_tokens += f64::from(q.prompt);
        let ok_t = slo.ttft_p99.is_none_or(|b| t1 <= b.as_secs());
        let ok_p = slo.tpot_p99.is_none_or(|b| tp <= b.as_secs());
        if ok_t && ok_p {
            good += 1;
        }
    }
    let (ttft, tpot, latency) = (
        percentiles(&mut ttft),
        percentiles(&mut tpot),
        percentiles(&mut latency),
    );
    let per_s = |x: f64| if span > 0.0 { x / span * n } else { 0.0 };
    let steady = Steady {
        t: tpot.p50.as_secs(),
        tpot: tpot.p50.as_secs(),
        ttft: [ttft.p50.as_secs(), ttft.p99.as_secs(), ttft.mean.as_secs()],
        ..Steady::default()
    };
    let meets_slo = meets(slo, &steady)
        && slo
            .tpot_p99
            .is_none_or(|b| tpot.p99.as_secs() <= b.as_secs());
    SimulatedServing {
        requests: run.reqs.len() as u32,
        ranks: run.ranks.max(1),
        completed: done.len() as u32,
        iterations: run.iterations,
        preemptions: run.preemptions,
        simulated: Seconds::from_secs(span),
        ttft,
        tpot,
        latency,
        itl: Percentiles {
            p50: Seconds::from_secs(run.itl.quantile(0.5)),
            p99: Seconds::from_secs(run.itl.quantile(0.99)),
            mean: Seconds::from_secs(run.itl.mean()),
        },
        mean_running: if run.iterations > 0 {
            run.running_sum / f64::from(run.iterations) / ranks
        } else {
            0.0
        },
        output_tokens_per_second: per_s(out_tokens),
        input_tokens_per_second: per_s(in_tokens),
        requests_per_second: per_s(done.len() as f64),
        goodput: per_s(f64::from(good)),
        meets_slo,
    }
}

/// A plan resolved as `evaluate` resolves it, with its devices and their
/// tables, and its stream; `None` for training plans and plans without one.
fn prepared(
    plan: &crate::plan::Plan,
) -> Option<(Resolved, Vec<DeviceMemory>, Vec<Breakdown>, &RequestStream)> {
    let crate::plan::Workload::Inference(i) = &plan.workload else {
        return None;
    };
    let stream = i.stream.as_ref()?;
    let (r, _, _) = crate::resolve::resolve(plan);
    let r = match r.levers.placement {
        crate::plan::Placement::ByHeat => crate::placement::by_heat(&r).0,
        crate::plan::Placement::Manual => r,
    };
    let devices = crate::memory::devices(&r);
    let tables = devices
        .iter()
        .zip(r.split.stages.iter())
        .map(|(d, st)| Breakdown::from_device(d, st.rank))
        .collect();
    Some((r, devices, tables, stream))
}

/// The steady-state approximation of a plan's stream alone, without the
/// simulator: what the search can afford per candidate (BENCHMARKS.md).
pub fn analytic(plan: &crate::plan::Plan) -> Option<AnalyticServing> {
    let (r, devices, tables, stream) = prepared(plan)?;
    let Work::Infer { batch, .. } = r.work else {
        return None;
    };
    let profile = profile(&r, batch);
    let (cap, replicas) = spread(&r, capacity::capacity(&r, &devices, &profile));
    let lim = limits(&profile);
    let spec = crate::memory::speculator::Speculator::of(&r);
    let tiers = tiering(&r, &devices, &cap, stream, &lim);
    let shape = shape(
        &r,
        tables.first(),
        &cap,
        lim,
        stream,
        spec.as_ref(),
        tiers.as_ref(),
    );
    let steady = shape.of(stream, replicas);
    Some(analytic_figures(&shape, stream, &steady, replicas))
}

/// The steady state of a candidate the serving search weighs: `None`
/// when the plan is invalid (an error diagnostic), its devices are over,
/// or the engine's pool cannot hold the stream's longest request.
pub(crate) fn screen(plan: &crate::plan::Plan) -> Option<AnalyticServing> {
    let crate::plan::Workload::Inference(i) = &plan.workload else {
        return None;
    };
    let stream = i.stream.as_ref()?;
    let (r, _, diagnostics) = crate::resolve::resolve(plan);
    let error =
        |d: &crate::diagnostics::Diagnostic| d.severity == crate::diagnostics::Severity::Error;
    if diagnostics.iter().any(error) {
        return None;
    }
    let devices = crate::memory::devices(&r);
    let held = engine_devices(&r, &devices, Some(stream))?;
    if !held.iter().all(|d| d.tiers.iter().all(|t| t.fits())) {
        return None;
    }
    analytic(plan)
}

/// The simulated stream of a plan alone (what `evaluate` reports in
/// `serving.simulated`).
pub fn simulate(plan: &crate::plan::Plan) -> Option<SimulatedServing> {
    let (r, devices, tables, stream) = prepared(plan)?;
    let Work::Infer { batch, .. } = r.work else {
        return None;
    };
    let profile = profile(&r, batch);
    let (cap, replicas) = spread(&r, capacity::capacity(&r, &devices, &profile));
    let lim = limits(&profile);
    let tiers = tiering(&r, &devices, &cap, stream, &lim);
    let run = sim::simulate_tiered(
        &r,
        tables.first(),
        &cap,
        lim,
        stream,
        replicas,
        tiers.as_ref(),
    );
    Some(simulated_figures(
        &run,
        &stream.slo,
        replicas,
        lim.front_end,
    ))
}
