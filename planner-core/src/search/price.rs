//! What a plan costs, in one place so the cost model can be swapped.
//!
//! Until the cost module lands this is rental arithmetic: GPU-hours at the
//! catalog's default rental price (or the scenario's override), plus CXL
//! memory bought at the catalog's price and written off over
//! [`AMORTIZATION_HOURS`]. Host DRAM, NVMe, power and networking are taken
//! to be in the GPU-hour price, as they are in a cloud instance's.

use super::scenario::GpuPrice;
use crate::catalog::{self, GpuId, PriceKind, PricedItem};
use crate::hardware::{CxlChoice, Hardware};

/// Hours over which bought CXL memory is written off: three years of
/// continuous use, straight line. An assumption (a common depreciation
/// period for servers), not a published figure.
pub(crate) const AMORTIZATION_HOURS: f64 = 3.0 * 365.0 * 24.0;

/// Dollars per GPU-hour of a GPU kind (`None`: the base plan's custom
/// GPU): the scenario's override, else the catalog's default rental price.
pub(crate) fn gpu_hour(gpu: Option<GpuId>, overrides: &[GpuPrice]) -> Option<f64> {
    if let Some(p) = overrides.iter().find(|p| p.gpu == gpu) {
        let v = p.usd_per_hour.as_usd();
        return (v.is_finite() && v >= 0.0).then_some(v);
    }
    let id = gpu?;
    catalog::default_price(PricedItem::Gpu(id), PriceKind::RentalPerHour).map(|p| p.usd.as_usd())
}

/// Dollars per hour of a whole plan's hardware (`hw.gpus` GPUs), or
/// `None` when its GPU kind has no price.
pub(crate) fn usd_per_hour(
    hw: &Hardware,
    gpu: Option<GpuId>,
    overrides: &[GpuPrice],
) -> Option<f64> {
    let gpus = f64::from(hw.gpus);
    let mut total = gpu_hour(gpu, overrides)? * gpus;
    if let Some(x) = hw.cxl {
        let per_device = match x.device {
            CxlChoice::Preset(id) => catalog::cxl_device(id).spec.capacity,
            CxlChoice::Custom(s) => s.capacity,
        };
        let nodes = f64::from(hw.gpus.div_ceil(hw.gpus_per_node.max(1)));
        let gb = per_device.as_gb() * f64::from(x.devices_per_node) * nodes;
        if let Some(p) = catalog::default_price(PricedItem::CxlGb, PriceKind::Purchase) {
            total += gb * p.usd.as_usd() / AMORTIZATION_HOURS;
        }
    }
    Some(total)
}

/// Dollars per million tokens at a throughput (tokens trained, or tokens
/// generated, per second).
pub(crate) fn usd_per_million_tokens(usd_per_hour: f64, tokens_per_second: f64) -> Option<f64> {
    (tokens_per_second > 0.0 && tokens_per_second.is_finite())
        .then(|| usd_per_hour / 3600.0 / tokens_per_second * 1e6)
}
