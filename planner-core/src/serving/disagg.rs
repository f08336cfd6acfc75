//! Disaggregated prefill and decode (DistServe, Zhong et al., OSDI 2024,
//! §2–3: prefill and decode on separate GPUs so neither interferes with
//! the other, each pool with its own parallelism; Mooncake, Qin et al.,
//! FAST 2025; NVIDIA Dynamo; vLLM's `--kv-transfer-config`).
//!
//! Each pool is the plan itself with the pool's tensor parallelism,
//! replicas and engine knobs, so memory, the engine's KV pool and the
//! iteration time are the co-located model's. A request is prefilled in
//! the prefill pool (as vLLM's disaggregated proxy runs it, with one
//! output token), its KV cache crosses the link between the pools, and
//! the decode pool takes it with the prompt's KV in place: its first step
//! there, a decode-sized step, emits the first token the client sees.
//! TTFT = prefill queue + prefill + transfer + the decode pool's wait and
//! first step; TPOT is the decode pool's alone, without prefill chunks in
//! its iterations.
//!
//! The transfer moves at the link's per-GPU bandwidth with each GPU moving
//! its own share (a prefill device's or a decode device's KV bytes per
//! token, whichever is larger), plus the link's fixed latency. It starts
//! when the plan says (`Disaggregation::transfer`): after the prefill, all
//! of it follows; layer by layer, the prefill hides it up to the time the
//! request spends in prefill passes, and the last layer's share (or what
//! the link has not caught up with) follows (`KvTransfer::exposed`).

use super::analytic::{meets, Shape, Steady};
use super::capacity::{self, Capacity};
use super::sim::{self, Limits, Req, Run};
use crate::catalog::{LinkId, LinkRole};
use crate::disagg::{Disaggregation, KvTransfer, Pool, PoolRole};
use crate::engine::PrefixCaching;
use crate::memory::breakdown::Breakdown;
use crate::memory::speculator::Speculator;
use crate::plan::{Plan, Workload};
use crate::report::Percentiles;
use crate::report::{AnalyticDisagg, DisaggReport, PoolReport};
use crate::request::{Arrival, Lengths, RequestStream};
use crate::resolve::{Resolved, Work};
use crate::time::inference::{windowed, Mix};
use crate::units::{ByteRate, Bytes, Seconds, Usd};

/// One pool resolved as `evaluate` resolves a plan.
pub(crate) struct PoolModel {
    role: PoolRole,
    pool: Pool,
    r: Resolved,
    tables: Vec<Breakdown>,
    /// One lane's share of a replica's pool ([`super::lanes`]).
    cap: Capacity,
    /// Micro-batches a replica keeps in flight ([`super::lanes`]).
    lanes: u32,
    limits: Limits,
    pub(crate) fits: bool,
    stream: RequestStream,
}

impl PoolModel {
    /// The engines the pool's stream is spread over: each replica's lanes.
    fn engines(&self) -> u32 {
        self.pool.replicas.max(1) * self.lanes
    }
}

/// The link between the pools as reached.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Link {
    id: LinkId,
    bandwidth: ByteRate,
    latency: Seconds,
    /// KV bytes one GPU moves per prompt token.
    per_token: f64,
    /// When the transfer starts.
    mode: KvTransfer,
    /// Layers one prefill device computes (and sends).
    layers: f64,
}

impl Link {
    /// Seconds to move the KV cache of a `prompt`-token prompt.
    fn transfer(&self, prompt: f64) -> f64 {
        let bw = self.bandwidth.base();
        let bytes = prompt * self.per_token;
        self.latency.as_secs() + if bw > 0.0 { bytes / bw } else { f64::INFINITY }
    }

    /// Seconds of that transfer after the prompt's last prefill pass ends,
    /// the request having spent `span` seconds in prefill passes.
    fn after_prefill(&self, prompt: f64, span: f64) -> f64 {
        let latency = self.latency.as_secs();
        let whole = self.transfer(prompt) - latency;
        latency + self.mode.exposed(whole, span, self.layers)
    }
}

/// The plan one pool runs: the plan with the pool's TP, replicas and
/// knobs on as many GPUs as they take; the prefill pool's stream asks for
/// one output token, the decode pool holds no prefix cache (it prefills
/// nothing).
fn pool_plan(plan: &Plan, pool: Pool, role: PoolRole) -> Plan {
    let mut p = plan.clone();
    p.levers.disaggregation = None;
    let par = &mut p.levers.parallel;
    par.tp = pool.tp;
    par.dp = pool.replicas;
    if let Some(ep) = pool.ep {
        par.ep = ep;
    }
    let gpus =
        u64::from(pool.tp) * u64::from(par.pp) * u64::from(par.cp) * u64::from(pool.replicas);
    p.hardware.gpus = u32::try_from(gpus).unwrap_or(u32::MAX);
    if pool.token_budget.is_some() {
        p.levers.prefill_chunk = pool.token_budget;
    }
    if pool.max_seqs.is_some() {
        p.levers.engine_knobs.max_seqs = pool.max_seqs;
    }
    if let Workload::Inference(i) = &mut p.workload {
        if let (PoolRole::Prefill, Some(s)) = (role, i.stream.as_mut()) {
            s.output = Lengths::Fixed { tokens: 1 };
        }
    }
    if role == PoolRole::Decode {
        p.levers.engine_knobs.prefix_caching = Some(PrefixCaching::Off);
    }
    p
}

/// Resolves one pool.
fn pool_model(plan: &Plan, pool: Pool, role: PoolRole) -> Option<PoolModel> {
    let sub = pool_plan(plan, pool, role);
    let (r, devices, tables, stream) = super::prepared(&sub)?;
    let Work::Infer { batch, .. } = r.work else {
        return None;
    };
    let profile = super::profile(&r, batch);
    let lanes = super::lanes(&r);
    let cap = capacity::capacity(&r, &devices, &profile).lane(lanes);
    let fits = super::engine_devices(&r, &devices, Some(stream))
        .is_some_and(|held| held.iter().all(|d| d.tiers.iter().all(|t| t.fits())));
    Some(PoolModel {
        role,
        pool,
        limits: super::limits(&profile),
        stream: stream.clone(),
        r,
        tables,
        cap,
        lanes,
        fits,
    })
}

/// The link that carries the KV cache: the one the plan names, else the
/// GPU's scale-up link when both pools sit in one scale-up domain, else
/// the cluster's scale-out fabric. Scale-up copies reach the collectives'
/// fraction of the peak (`Efficiency::scale_up`, from nccl-tests), and so
/// do RDMA writes across nodes (`Efficiency::scale_out`); each transfer
/// pays the link's fixed latency once.
fn link(plan: &Plan, d: &Disaggregation, pre: &PoolModel, dec: &PoolModel) -> Link {
    let r = &dec.r;
    let own_out = plan
        .hardware
        .scale_out
        .unwrap_or_else(|| crate::hardware::default_scale_out(r.gpu.arch));
    let in_domain = d.gpus() <= u64::from(r.net.domain);
    let id = d.link.unwrap_or(match r.gpu.scale_up {
        Some(up) if in_domain => up,
        _ => own_out,
    });
    let entry = crate::catalog::link(id);
    let (bandwidth, latency) = match entry.role {
        LinkRole::ScaleUp => (
            entry.per_direction.base() * r.eff.scale_up,
            r.eff.scale_up_latency,
        ),
        LinkRole::ScaleOut | LinkRole::Host => {
            // NICs per GPU as the plan's own fabric has them.
            let own = crate::catalog::link(own_out).per_direction.base();
            let share = if own > 0.0 {
                r.net.scale_out.base() / own
            } else {
                1.0
            };
            (
                entry.per_direction.base() * share * r.eff.scale_out,
                r.eff.scale_out_latency,
            )
        }
    };
    let pp = f64::from(pre.r.levers.parallel.pp.max(1));
    Link {
        id,
        bandwidth: ByteRate::from_base(bandwidth),
        latency,
        per_token: pre.cap.per_token.max(dec.cap.per_token),
        mode: d.transfer,
        // Each pipeline stage sends its own layers.
        layers: (f64::from(pre.r.spec.layers) / pp).max(1.0),
    }
}

/// Both pools and the link of a disaggregated plan whose inputs are
/// sound; `None` otherwise (resolve lists what is wrong).
pub(crate) fn model(plan: &Plan) -> Option<(PoolModel, PoolModel, Link)> {
    let d = plan.levers.disaggregation?;
    let Workload::Inference(i) = &plan.workload else {
        return None;
    };
    let stream = i.stream.as_ref()?;
    if !stream.problems().is_empty() || !matches!(stream.arrival, Arrival::Poisson { .. }) {
        return None;
    }
    let (_, _, diagnostics) = crate::resolve::resolve(plan);
    let error =
        |x: &crate::diagnostics::Diagnostic| x.severity == crate::diagnostics::Severity::Error;
    if diagnostics.iter().any(error) {
        return None;
    }
    let pre = pool_model(plan, d.prefill, PoolRole::Prefill)?;
    let dec = pool_model(plan, d.decode, PoolRole::Decode)?;
    let l = link(plan, &d, &pre, &dec);
    Some((pre, dec, l))
}

/// The disaggregated section of a report; `usd_per_hour` is the price of
/// the plan's `hardware.gpus`, shared out per GPU.
pub(crate) fn report(plan: &Plan, usd_per_hour: Option<Usd>) -> Option<DisaggReport> {
    let (pre, dec, l) = model(plan)?;
    let rate = match pre.stream.arrival {
        Arrival::Poisson { rate } => rate.base(),
        Arrival::Concurrency { .. } => return None,
    };
    let a = analytic(&pre, &dec, &l, rate);
    let simulated = simulate(&pre, &dec, &l);
    let prompt = pre.stream.prompt.mean().max(1.0);
    // Only a layer-by-layer transfer hides behind the prefill.
    let span = if l.mode.is_default() {
        0.0
    } else {
        prefill_span(&pre, rate)
    };
    let pool_report =
        |m: &PoolModel, rate_per_replica: f64, max_rate: f64, s: Option<Steady>| PoolReport {
            role: m.role,
            tp: m.pool.tp,
            replicas: m.pool.replicas,
            kv_capacity_tokens: m.cap.tokens * f64::from(m.lanes),
            kv_bytes_per_token_device: Bytes::new(m.cap.per_token),
            fits: m.fits,
            max_rate,
            iteration: Seconds::from_secs(match m.role {
                PoolRole::Prefill => prefill_alone(m),
                PoolRole::Decode => s.map_or(0.0, |s| s.t),
            }),
            running: s.map_or(rate_per_replica, |s| s.running),
        };
    let replicas = |m: &PoolModel| f64::from(m.engines());
    let pre_steady = prefill_shape(&pre, |s| s.steady(rate / replicas(&pre)));
    let dec_steady = decode_steady(&dec, rate / replicas(&dec));
    let gpus = f64::from(plan.hardware.gpus.max(1));
    let per_gpu = usd_per_hour.map(|u| u.as_usd() / gpus);
    let pool_usd = |m: &PoolModel| per_gpu.map(|u| u * m.pool.gpus() as f64);
    let per_m = |hourly: Option<f64>, tps: f64| {
        hourly.and_then(|h| (tps > 0.0).then(|| Usd::new(h / 3600.0 / tps * 1e6)))
    };
    let total = pool_usd(&pre).zip(pool_usd(&dec)).map(|(a, b)| a + b);
    Some(DisaggReport {
        prefill: pool_report(&pre, rate / replicas(&pre), a.prefill_max, Some(pre_steady)),
        decode: pool_report(&dec, rate / replicas(&dec), a.decode_max, Some(dec_steady)),
        link: l.id,
        link_bandwidth: l.bandwidth,
        link_latency: l.latency,
        kv_bytes_per_request: Bytes::new(prompt * l.per_token),
        transfer: Seconds::from_secs(l.after_prefill(prompt, span)),
        usd_per_hour: total.map(Usd::new),
        usd_per_million_input: per_m(pool_usd(&pre), simulated.input_tokens_per_second),
        usd_per_million_output: per_m(pool_usd(&dec), simulated.output_tokens_per_second),
        usd_per_request: total.and_then(|h| {
            (simulated.requests_per_second > 0.0)
                .then(|| Usd::new(h / 3600.0 / simulated.requests_per_second))
        }),
        analytic: a.figures,
        simulated,
    })
}

/// The largest rate one replica of a pool carries within the objectives
/// it answers for (TTFT for the prefill pool, TPOT for the decode pool),
/// if the pool's plan is valid and its devices hold the weights and the
/// engine's KV pool: what the serving search sizes pools by.
pub(crate) fn pool_rate(plan: &Plan, pool: Pool, role: PoolRole) -> Option<f64> {
    let one = Pool {
        replicas: 1,
        ..pool
    };
    let (_, _, diagnostics) = crate::resolve::resolve(&pool_plan(plan, one, role));
    let error =
        |x: &crate::diagnostics::Diagnostic| x.severity == crate::diagnostics::Severity::Error;
    if diagnostics.iter().any(error) {
        return None;
    }
    let m = pool_model(plan, one, role).filter(|m| m.fits)?;
    let slo = m.stream.slo;
    Some(match role {
        PoolRole::Prefill => {
            let ttft = crate::request::Slo {
                ttft_p50: slo.ttft_p50,
                ttft_p99: slo.ttft_p99,
                ..crate::request::Slo::default()
            };
            prefill_shape(&m, |s| s.max_rate(Some(&ttft)))
        }
        PoolRole::Decode => {
            let tpot = slo
                .tpot_p50
                .into_iter()
                .chain(slo.tpot_p99)
                .map(Seconds::as_secs);
            let bound = tpot.fold(f64::INFINITY, f64::min);
            largest(|x| {
                let s = decode_steady(&m, x);
                s.stable && s.tpot <= bound
            })
        }
    })
}

/// The steady state of a disaggregated plan at its stream's rate and
/// whether it meets the stream's objectives there, if its inputs are
/// sound and both pools fit.
pub(crate) fn screen(plan: &Plan) -> Option<(AnalyticDisagg, bool)> {
    let (pre, dec, l) = model(plan)?;
    if !(pre.fits && dec.fits) {
        return None;
    }
    let Arrival::Poisson { rate } = pre.stream.arrival else {
        return None;
    };
    let a = analytic(&pre, &dec, &l, rate.base()).figures;
    let s = Steady {
        ttft: [
            a.ttft.p50.as_secs(),
            a.ttft.p99.as_secs(),
            a.ttft.mean.as_secs(),
        ],
        tpot: a.tpot.as_secs(),
        ..Steady::default()
    };
    let meets = meets(&pre.stream.slo, &s);
    Some((a, meets))
}

/// One prefill of a mean prompt alone.
fn prefill_alone(m: &PoolModel) -> f64 {
    let p = m.stream.prompt.mean().max(1.0);
    let mix = Mix {
        prefill_tokens: p,
        prefill_keys: p * windowed(&m.r, p / 2.0),
        prefill_done: 1.0,
        ..Mix::default()
    };
    m.limits.iteration(&m.r, None, m.tables.first(), &mix)
}

/// The mean time a request spends in prefill passes in the prefill pool
/// at `rate` requests/s over all replicas (its TTFT there less its wait
/// and the server's front end).
fn prefill_span(m: &PoolModel, rate: f64) -> f64 {
    let p = prefill_shape(m, |s| s.steady(rate / f64::from(m.engines())));
    (p.ttft[2] - p.wait - m.limits.front_end).max(0.0)
}

/// The prefill pool's steady-state shape (one output token per request),
/// handed to `f`.
fn prefill_shape<T>(m: &PoolModel, f: impl FnOnce(&Shape) -> T) -> T {
    let spec = Speculator::of(&m.r);
    let shape = Shape {
        // Pools batch continuously.
        outputs: None,
        r: &m.r,
        dev: m.tables.first(),
        cap: &m.cap,
        // The prefill pool's KV leaves when its pass ends (as in the
        // simulator): its outputs are never deferred.
        limits: Limits {
            deferred_output: false,
            ..m.limits
        },
        prompt: m.stream.prompt.mean().max(1.0),
        output: 1.0,
        cached: super::cached(&m.stream, &m.limits, &m.cap),
        spec: spec.as_ref(),
        // A disaggregated prefill pool keeps no store below HBM.
        kv: Default::default(),
        lockstep: super::analytic::lockstep(&m.r, &m.limits, &m.stream),
        // The prefill pool's prompts come from the clients through the
        // router; the decode pool's waves are not modelled here.
        aligned: false,
    };
    f(&shape)
}

/// Plain iterations of the decode pool's fixed point before it is
/// declared unsustainable.
const DECODE_FIXED_POINT: usize = 200;

/// The decode pool's steady state at `rate` requests/s per replica: each
/// request takes one first step and (O − 1)/yield decode steps, so
/// d = rate × (1 + (O − 1)/yield) × t sequences run (Little's law) and
/// t = T(d decode sequences at the mean context); the least fixed point,
/// reached from below. Stable when it converges within the running limit,
/// the token budget and the KV pool.
pub(crate) fn decode_steady(m: &PoolModel, rate: f64) -> Steady {
    let spec = Speculator::of(&m.r);
    let yield_ = spec.as_ref().map_or(1.0, Speculator::expected);
    let width = f64::from(spec.as_ref().map_or(1, Speculator::width));
    let (prompt, output) = (
        m.stream.prompt.mean().max(1.0),
        m.stream.output.mean().max(1.0),
    );
    let steps = 1.0 + (output - 1.0).max(0.0) / yield_;
    let time = |d: f64| {
        let mix = Mix {
            decode_seqs: d,
            decode_keys: d * windowed(&m.r, prompt + output / 2.0),
            ..Mix::default()
        };
        m.limits
            .iteration(&m.r, spec.as_ref(), m.tables.first(), &mix)
    };
    let mut t = time(1.0);
    let mut converged = false;
    for _ in 0..DECODE_FIXED_POINT {
        let next = time((rate * steps * t).max(1.0));
        if !next.is_finite() || next > 1e4 {
            break;
        }
        if (next - t).abs() <= 1e-7 * t.max(1e-12) {
            t = next;
            converged = true;
            break;
        }
        t = next;
    }
    let d = rate * steps * t;
    let budget = m.limits.token_budget.map_or(f64::INFINITY, f64::from);
    let kv = d * (prompt + output / 2.0);
    let stable =
        converged && d <= f64::from(m.limits.max_seqs) && d * width <= budget && kv <= m.cap.tokens;
    // An engine that defers its outputs (`Engine::defers_output`, vLLM
    // V0) hands the first token over in the next decode step, once that
    // step is scheduled and launched (`HostCost::lead`), as the
    // simulator's decode replica does.
    let lead = if m.limits.deferred_output {
        m.limits.host.lead(d, 0.0).min(t)
    } else {
        0.0
    };
    Steady {
        stable,
        t,
        tpot: t / yield_,
        running: d,
        // The wait for the iteration under way, then the first step.
        ttft: [1.5 * t + lead, 2.0 * t + lead, 1.5 * t + lead],
        rate,
        prefill_share: 0.0,
        wait: 0.0,
        held: kv,
        hits: [0.0; 2],
        fetch: 0.0,
        waves: None,
    }
}

/// The largest per-replica rate at which `ok` holds, by doubling and
/// bisection (as [`Shape::max_rate`] searches).
fn largest(ok: impl Fn(f64) -> bool) -> f64 {
    let (mut lo, mut hi) = (0.0, 1.0);
    let mut n = 0;
    while ok(hi) && n < 40 {
        lo = hi;
        hi *= 2.0;
        n += 1;
    }
    if lo == 0.0 {
        let mut x = 1.0;
        for _ in 0..30 {
            x /= 2.0;
            if ok(x) {
                (lo, hi) = (x, 2.0 * x);
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

/// The steady state of both pools and its figures.
pub(crate) struct Analytic {
    pub figures: AnalyticDisagg,
    /// The prefill pool's and the decode pool's largest rates (whole pools).
    pub prefill_max: f64,
    pub decode_max: f64,
}

/// Both pools' steady states at `rate` requests/s over all replicas:
/// whether both hold it, TTFT (p50, p99, mean; the p99 adds the pools'
/// p99s, an upper bound) and TPOT.
fn combined(pre: &PoolModel, dec: &PoolModel, l: &Link, rate: f64) -> (bool, [f64; 3], f64) {
    let p = prefill_shape(pre, |s| s.steady(rate / f64::from(pre.engines())));
    let d = decode_steady(dec, rate / f64::from(dec.engines()));
    // A request's time in prefill passes: its TTFT in the pool less its
    // queueing wait, for the mean prompt; a longer prompt's in proportion.
    let span = (p.ttft[2] - p.wait - pre.limits.front_end).max(0.0);
    let prompt = pre.stream.prompt.mean().max(1.0);
    let most = f64::from(pre.stream.prompt.max().max(1));
    let mean = l.after_prefill(prompt, span);
    let longest = l.after_prefill(most, span * most / prompt);
    let ttft = [
        p.ttft[0] + mean + d.ttft[0],
        p.ttft[1] + longest + d.ttft[1],
        p.ttft[2] + mean + d.ttft[2],
    ];
    (p.stable && d.stable, ttft, d.tpot)
}

/// The steady-state approximation of the disaggregated stream.
pub(crate) fn analytic(pre: &PoolModel, dec: &PoolModel, l: &Link, rate: f64) -> Analytic {
    let n = |m: &PoolModel| f64::from(m.engines());
    let prefill_max = prefill_shape(pre, |s| s.max_rate(None)) * n(pre);
    let decode_max = largest(|x| decode_steady(dec, x).stable) * n(dec);
    let max_rate = prefill_max.min(decode_max);
    let slo = pre.stream.slo;
    let any_slo = slo.is_set();
    let meets_at = |x: f64| {
        let (stable, ttft, tpot) = combined(pre, dec, l, x);
        let s = Steady {
            ttft,
            tpot,
            ..Steady::default()
        };
        stable && meets(&slo, &s)
    };
    let (stable, ttft, tpot) = combined(pre, dec, l, rate);
    let output = dec.stream.output.mean().max(1.0);
    Analytic {
        figures: AnalyticDisagg {
            stable,
            ttft: Percentiles {
                p50: Seconds::from_secs(ttft[0]),
                p99: Seconds::from_secs(ttft[1]),
                mean: Seconds::from_secs(ttft[2]),
            },
            tpot: Seconds::from_secs(tpot),
            output_tokens_per_second: rate.min(max_rate) * output,
            max_rate,
            max_rate_under_slo: any_slo.then(|| largest(meets_at).min(max_rate)),
            bottleneck: if prefill_max <= decode_max {
                PoolRole::Prefill
            } else {
                PoolRole::Decode
            },
        },
        prefill_max,
        decode_max,
    }
}

/// The stream through both pools. One prefill replica and one decode
/// replica are simulated, each at its share of the rate, on the same
/// sequence of requests (the same seed draws the same lengths, and a
/// Poisson stream's arrival times scale with its rate): request k reaches
/// the decode replica at its arrival there plus its time in the prefill
/// replica plus its transfer. Figures are per request from its arrival.
pub(crate) fn simulate(
    pre: &PoolModel,
    dec: &PoolModel,
    l: &Link,
) -> crate::report::SimulatedServing {
    // The prefill pool's KV leaves when its pass ends; the client's
    // tokens come from the decode pool.
    let pre_limits = Limits {
        deferred_output: false,
        ..pre.limits
    };
    let pr = sim::simulate_tiered(
        &pre.r,
        pre.tables.first(),
        &pre.cap,
        pre_limits,
        &pre.stream,
        pre.engines(),
        None,
    );
    let (base, _) = sim::requests(&dec.stream, dec.engines());
    let mut order: Vec<(f64, usize)> = Vec::with_capacity(base.len());
    let mut handed: Vec<Req> = Vec::with_capacity(base.len());
    for (k, q) in base.iter().enumerate() {
        let p = pr.reqs.get(k);
        let at = match p.and_then(|p| Some((p.first_token? - p.arrival, p.prefill_span()?))) {
            Some((prefill, span)) => {
                q.arrival + prefill + l.after_prefill(f64::from(q.prompt), span)
            }
            None => f64::INFINITY,
        };
        order.push((at, k));
    }
    order.sort_by(|a, b| a.0.total_cmp(&b.0));
    for &(at, k) in &order {
        handed.push(Req::handed_over(at, base[k].prompt, base[k].output));
    }
    let mut run: Run =
        sim::simulate_requests(&dec.r, dec.tables.first(), &dec.cap, dec.limits, handed);
    // Each request's own arrival, so TTFT counts the prefill pool and the
    // transfer too.
    for (q, &(_, k)) in run.reqs.iter_mut().zip(&order) {
        q.arrival = base[k].arrival;
    }
    run.iterations = run.iterations.saturating_add(pr.iterations);
    run.preemptions = run.preemptions.saturating_add(pr.preemptions);
    super::simulated_figures(&run, &dec.stream.slo, dec.engines(), dec.limits.front_end)
}
