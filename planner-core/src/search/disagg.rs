//! The P:D lever of the serving search: disaggregated prefill and decode
//! pools, each with its own tensor parallelism, token budget (prefill)
//! and running-request limit (decode).
//!
//! One replica of each pool shape gets its largest rate within the
//! objectives that pool answers for (TTFT for prefill, TPOT for decode;
//! `serving::disagg::pool_rate`); the stream's rate over each gives the
//! replicas, so the P:D ratio follows from the two rates. Pairs are then
//! checked through both pools together, fewest GPUs first (the TTFT
//! objective also holds the transfer and the decode pool's first step):
//! a pair that misses it gets one more prefill replica, up to
//! [`MAX_PREFILL_BUMPS`] times.

use super::serving_space::{ServingFound, ServingScenario};
use crate::diff::{changes, Impact};
use crate::disagg::{Disaggregation, Pool, PoolRole};
use crate::plan::Plan;
use crate::report::AnalyticDisagg;
use crate::report::AnalyticServing;

/// Extra prefill replicas a pair may take to meet its TTFT objective.
const MAX_PREFILL_BUMPS: u32 = 3;
/// Pairs checked through both pools, fewest GPUs first.
const MAX_CHECKED: usize = 24;

/// A pool shape and one replica's largest rate.
#[derive(Debug, Clone, Copy)]
struct Shape {
    pool: Pool,
    rate: f64,
}

/// Every pool shape of one role the space holds, with its rate.
fn shapes(s: &ServingScenario, role: PoolRole, evaluated: &mut u32) -> Vec<Shape> {
    let mut out = Vec::new();
    for &tp in &s.space.tp {
        if tp > s.max_gpus {
            continue;
        }
        let knobs: Vec<(Option<u32>, Option<u32>)> = match role {
            PoolRole::Prefill => s
                .space
                .token_budgets
                .iter()
                .map(|b| (Some(*b), None))
                .collect(),
            PoolRole::Decode => s.space.max_seqs.iter().map(|m| (None, Some(*m))).collect(),
        };
        for (token_budget, max_seqs) in knobs {
            let pool = Pool {
                tp,
                replicas: 1,
                token_budget,
                max_seqs,
                ep: None,
            };
            *evaluated += 1;
            let rate = crate::serving::disagg::pool_rate(&s.base, pool, role);
            if let Some(rate) = rate.filter(|r| *r > 0.0) {
                out.push(Shape { pool, rate });
            }
        }
    }
    out
}

/// The plan of a pair: the base with both pools on as many GPUs as they
/// take; its own degrees are the decode pool's.
fn pair_plan(base: &Plan, pre: Pool, dec: Pool) -> Plan {
    let mut p = base.clone();
    p.levers.disaggregation = Some(Disaggregation {
        prefill: pre,
        decode: dec,
        link: base.levers.disaggregation.and_then(|d| d.link),
        transfer: base
            .levers
            .disaggregation
            .map(|d| d.transfer)
            .unwrap_or_default(),
    });
    p.levers.parallel.tp = dec.tp;
    p.levers.parallel.pp = 1;
    p.levers.parallel.dp = dec.replicas;
    p.hardware.gpus = (pre.gpus() + dec.gpus()) as u32;
    p
}

/// The figures a serving answer shows, from the disaggregated steady state.
/// (The iteration is the decode pool's time per output token.)
fn as_serving(a: &AnalyticDisagg) -> AnalyticServing {
    AnalyticServing {
        stable: a.stable,
        iteration: a.tpot,
        running: 0.0,
        ttft: a.ttft,
        tpot: a.tpot,
        output_tokens_per_second: a.output_tokens_per_second,
        max_rate: a.max_rate,
        max_rate_under_slo: a.max_rate_under_slo,
        prefill_share: 0.0,
        dp_stall: None,
        waves: None,
    }
}

/// The disaggregated answers of a serving search at `rate` requests/s,
/// and the candidates weighed (pool shapes and checked pairs).
pub(super) fn found(s: &ServingScenario, rate: f64) -> (u32, Vec<ServingFound>) {
    let mut evaluated = 0;
    let pre = shapes(s, PoolRole::Prefill, &mut evaluated);
    let dec = shapes(s, PoolRole::Decode, &mut evaluated);
    let need = |x: &Shape| (rate / x.rate * (1.0 + 1e-9)).ceil().max(1.0) as u64;
    let mut pairs: Vec<(u64, Pool, Pool)> = Vec::new();
    for p in &pre {
        for d in &dec {
            let pp = Pool {
                replicas: need(p) as u32,
                ..p.pool
            };
            let dd = Pool {
                replicas: need(d) as u32,
                ..d.pool
            };
            let gpus = pp.gpus() + dd.gpus();
            if gpus <= u64::from(s.max_gpus) {
                pairs.push((gpus, pp, dd));
            }
        }
    }
    pairs.sort_by_key(|x| (x.0, x.1.tp, x.2.tp));
    let mut out = Vec::new();
    for &(_, pp, dd) in pairs.iter().take(MAX_CHECKED) {
        evaluated += 1;
        if let Some(f) = check(s, pp, dd) {
            out.push(f);
        }
    }
    (evaluated, out)
}

/// A pair through both pools: the first prefill count (from the pair's
/// own, up to [`MAX_PREFILL_BUMPS`] more) that is stable and meets the
/// stream's objectives within the GPU budget.
fn check(s: &ServingScenario, pre: Pool, dec: Pool) -> Option<ServingFound> {
    for extra in 0..=MAX_PREFILL_BUMPS {
        let pp = Pool {
            replicas: pre.replicas + extra,
            ..pre
        };
        let gpus = pp.gpus() + dec.gpus();
        if gpus > u64::from(s.max_gpus) {
            return None;
        }
        let plan = pair_plan(&s.base, pp, dec);
        let (a, meets) = crate::serving::disagg::screen(&plan)?;
        if a.stable && meets {
            let ch = changes(&s.base, &plan);
            let affects_sla = ch.iter().any(|c| c.impact == Impact::Sla);
            return Some(ServingFound {
                usd_per_hour: super::serving_space::usd_per_hour(&plan),
                analytic: as_serving(&a),
                simulated: None,
                changes: ch,
                affects_sla,
                gpus: gpus as u32,
                replicas: pp.replicas + dec.replicas,
                plan,
            });
        }
    }
    None
}

/// A disaggregated answer as the simulator sees it: the stream through
/// both pools (`serving::disagg::simulate`, as `evaluate` reports it);
/// while it misses an SLO, one more replica for the pool that bounds the
/// rate, within the GPU budget. `None` when the budget runs out first or
/// the plan stops fitting.
pub(super) fn checked(s: &ServingScenario, mut f: ServingFound) -> Option<ServingFound> {
    for _ in 0..=super::serving_space::MAX_ADDED_REPLICAS {
        let (pre, dec, l) = crate::serving::disagg::model(&f.plan)?;
        if !(pre.fits && dec.fits) {
            return None;
        }
        let sim = crate::serving::disagg::simulate(&pre, &dec, &l);
        if sim.meets_slo {
            f.simulated = Some(sim);
            return Some(f);
        }
        let (a, _) = crate::serving::disagg::screen(&f.plan)?;
        let d = f.plan.levers.disaggregation?;
        let (mut pp, mut dd) = (d.prefill, d.decode);
        match a.bottleneck {
            PoolRole::Prefill => pp.replicas += 1,
            PoolRole::Decode => dd.replicas += 1,
        }
        let gpus = pp.gpus() + dd.gpus();
        if gpus > u64::from(s.max_gpus) {
            return None;
        }
        let plan = pair_plan(&s.base, pp, dd);
        let (a, _) = crate::serving::disagg::screen(&plan)?;
        f.changes = changes(&s.base, &plan);
        f.affects_sla = f.changes.iter().any(|c| c.impact == Impact::Sla);
        f.usd_per_hour = super::serving_space::usd_per_hour(&plan);
        f.analytic = as_serving(&a);
        f.gpus = gpus as u32;
        f.replicas = pp.replicas + dd.replicas;
        f.plan = plan;
    }
    None
}
