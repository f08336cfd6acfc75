//! What a candidate costs, in one place: the cost module's figures (the
//! same `cost::hourly` and `cost::per_million_tokens` the report uses), so
//! the search ranks plans by exactly the dollars their reports show.
//!
//! The hourly cost depends on the hardware and the economics only, not on
//! the levers, so it is computed once per hardware option and GPU count;
//! per candidate only the division by its throughput remains.

use super::scenario::Scenario;
use crate::catalog::GpuId;
use crate::cost;
use crate::economics::{Economics, Pricing};
use crate::plan::Plan;
use crate::resolve::{resolve_economics, Resolved};
use crate::units::Usd;

/// The base plan's economics for a GPU kind: the scenario's price for that
/// kind if it lists one; else the base plan's own price for its own kind;
/// else the catalog's default on the base plan's market (a price set for
/// one kind says nothing about another).
pub(crate) fn economics_for(s: &Scenario, gpu: Option<GpuId>) -> Economics {
    let mut e = s.base.economics.clone();
    // Every kind is priced on the base plan's market (stated where the
    // kind's first price is another market's).
    let market = cost::market_of(&s.base);
    if e.market.is_none() && cost::first_market(gpu, e.pricing.kind()) != market {
        e.market = Some(market);
    }
    let base_gpu = s.base.hardware.gpu.preset();
    let listed = s.prices.iter().find(|p| Some(p.gpu) == gpu).map(|p| p.usd);
    let keep = gpu == base_gpu;
    let choose = |current: Option<Usd>| match (listed, keep) {
        (Some(v), _) => Some(v),
        (None, true) => current,
        (None, false) => None,
    };
    e.pricing = match e.pricing {
        Pricing::Rental { usd_per_gpu_hour } => Pricing::Rental {
            usd_per_gpu_hour: choose(usd_per_gpu_hour),
        },
        Pricing::Capex {
            usd_per_gpu,
            horizon_years,
            utilisation,
        } => Pricing::Capex {
            usd_per_gpu: choose(usd_per_gpu),
            horizon_years,
            utilisation,
        },
    };
    e
}

/// Dollars per hour of a plan's hardware (GPUs, energy where charged,
/// added memory), or `None` when a price is unknown.
pub(crate) fn usd_per_hour(plan: &Plan, r: &Resolved) -> Option<f64> {
    let (econ, _) = resolve_economics(plan);
    let mut scratch = Vec::new();
    cost::hourly(plan, r, &econ, "", &mut scratch)
        .usd_per_hour
        .map(Usd::as_usd)
}

/// Dollars per million tokens (trained, or generated) at a throughput.
pub(crate) fn usd_per_million_tokens(hourly: Option<f64>, tokens_per_second: f64) -> Option<f64> {
    cost::per_million_tokens(hourly, tokens_per_second).map(Usd::as_usd)
}
