//! The cost of a plan, from its economics and the time report.
//!
//! - **GPU-hour:** the rental price, or the purchase price over
//!   `horizon_years × 8766 h × utilisation` (straight-line amortisation of
//!   the hours that do paid-for work).
//! - **Energy:** `gpus × TDP × (1 + node_overhead) × average_power_fraction
//!   × PUE` at the kWh price; charged for capex (and for rental only when
//!   the plan says the rental price excludes it).
//! - **Memory:** CXL expanders, the job's share of a pool and host DRAM
//!   beyond a 2 TB reference node, bought at the catalog's $/GB and
//!   amortised like capex GPUs.
//! - **Per step, per run, per million tokens:** the hourly cost times the
//!   step time, the time to train, or one hour over the tokens of one hour.
//! - **One-time:** engineering (person-weeks of the levers the plan uses
//!   over a plain baseline, at the person-week price) and distillation.
//!
//! No figure is made up: where a price is unknown (a custom GPU with no
//! price in the plan), the dollar figures that need it are `None` and a
//! diagnostic says which field would supply it.

use crate::catalog::{self, Market, PriceKind, PricedItem};
use crate::diagnostics::{Diagnostic, DiagnosticKind};
use crate::economics::{self, Economics, Pricing, RentalEnergy, HOURS_PER_YEAR};
use crate::effort;
use crate::hardware::{default_host_dram, CxlChoice};
use crate::plan::Plan;
use crate::report::{
    CostReport, DistillationCost, EnergyBilling, EnergyCost, GpuHourPrice, MemoryCost, PriceBasis,
    PriceSource, TimeReport,
};
use crate::resolve::Resolved;
use crate::time::work::peak;
use crate::units::{Bytes, Flops, GpuHours, Seconds, Usd, Watts};

/// End-to-end fraction of the GEMM efficiency a large training run
/// reaches, used for distillation when the plan itself is not a training
/// plan (so no MFU of its own is at hand). Large runs report MFU about half
/// the ~80 % a large GEMM sustains: Llama 3 405B 38–43 % BF16 MFU (Dubey et
/// al. 2024, "The Llama 3 Herd of Models", Table 4) and PaLM 540B 46.2 %
/// (Chowdhery et al. 2022, Table 3); both recalled, not re-checked.
const END_TO_END: f64 = 0.5;

/// A price from the plan, or the catalog's default for `item`.
fn chosen(
    plan_value: Option<Usd>,
    field: &str,
    item: PricedItem,
    kind: PriceKind,
) -> Option<(Usd, PriceSource)> {
    chosen_in(plan_value, field, item, kind, None)
}

/// The market a plan's GPUs are paid on: `economics.market` where the plan
/// sets it, else [`first_market`] of its GPU.
pub fn market_of(plan: &Plan) -> Market {
    plan.economics
        .market
        .unwrap_or_else(|| first_market(plan.hardware.gpu.preset(), plan.economics.pricing.kind()))
}

/// The market of a GPU's first catalog price of `kind` (China's for the
/// parts rented only there), the global one for a GPU without one.
pub(crate) fn first_market(gpu: Option<catalog::GpuId>, kind: PriceKind) -> Market {
    gpu.and_then(|id| catalog::default_price(PricedItem::Gpu(id), kind))
        .map_or(Market::Global, |p| p.market)
}

/// [`chosen`] on one market's clouds (`None`: the catalog's first price).
fn chosen_in(
    plan_value: Option<Usd>,
    field: &str,
    item: PricedItem,
    kind: PriceKind,
    market: Option<Market>,
) -> Option<(Usd, PriceSource)> {
    match plan_value {
        Some(v) => Some((
            v,
            PriceSource {
                source: format!("set in the plan ({field})"),
                date: String::new(),
                provenance: None,
                market: None,
            },
        )),
        None => catalog::default_price_in(item, kind, market).map(|p| {
            (
                p.usd,
                PriceSource {
                    source: p.source.to_string(),
                    date: p.date.to_string(),
                    provenance: Some(p.provenance),
                    market: Some(p.market),
                },
            )
        }),
    }
}

fn positive(v: f64) -> f64 {
    if v.is_finite() && v > 0.0 {
        v
    } else {
        0.0
    }
}

/// Some(v) when v is a finite number.
fn finite_usd(v: f64) -> Option<Usd> {
    v.is_finite().then_some(Usd::new(v))
}

/// The GPU-hour price, or `None` (with a diagnostic) when none is known.
fn gpu_price(
    plan: &Plan,
    econ: &Economics,
    gpu: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<GpuHourPrice> {
    let item = plan.hardware.gpu.preset().map(PricedItem::Gpu);
    let lookup = |v: Option<Usd>, field: &str, kind: PriceKind| match item {
        Some(item) => chosen_in(v, field, item, kind, Some(market_of(plan))),
        None => v.map(|v| {
            (
                v,
                PriceSource {
                    source: format!("set in the plan ({field})"),
                    date: String::new(),
                    provenance: None,
                    market: None,
                },
            )
        }),
    };
    let (field, found) = match econ.pricing {
        Pricing::Rental { usd_per_gpu_hour } => {
            let field = "economics.pricing.rental.usd_per_gpu_hour";
            (
                field,
                lookup(usd_per_gpu_hour, field, PriceKind::RentalPerHour).map(|(usd, source)| {
                    GpuHourPrice {
                        usd_per_gpu_hour: usd,
                        basis: PriceBasis::Rental,
                        purchase: None,
                        source,
                    }
                }),
            )
        }
        Pricing::Capex {
            usd_per_gpu,
            horizon_years,
            utilisation,
        } => {
            let field = "economics.pricing.capex.usd_per_gpu";
            let hours = horizon_years * HOURS_PER_YEAR * utilisation;
            (
                field,
                lookup(usd_per_gpu, field, PriceKind::Purchase).and_then(|(usd, source)| {
                    (hours > 0.0).then(|| GpuHourPrice {
                        usd_per_gpu_hour: usd / hours,
                        basis: PriceBasis::AmortisedCapex,
                        purchase: Some(usd),
                        source,
                    })
                }),
            )
        }
    };
    if found.is_none() {
        diags.push(Diagnostic::info(DiagnosticKind::NoGpuPrice {
            gpu: gpu.to_string(),
            field: field.to_string(),
            market: plan.economics.market,
        }));
    }
    found
}

/// Hours over which bought memory is amortised: the capex horizon's
/// utilised hours, or the defaults under rental.
fn amortised_hours(pricing: &Pricing) -> f64 {
    match *pricing {
        Pricing::Capex {
            horizon_years,
            utilisation,
            ..
        } => horizon_years * HOURS_PER_YEAR * utilisation,
        Pricing::Rental { .. } => {
            economics::default_horizon_years() * HOURS_PER_YEAR * economics::default_utilisation()
        }
    }
}

/// Memory the plan adds and its amortised cost.
fn memory_cost(
    plan: &Plan,
    r: &Resolved,
    econ: &Economics,
    diags: &mut Vec<Diagnostic>,
) -> MemoryCost {
    let hw = &plan.hardware;
    let gpus = f64::from(r.net.gpus);
    let nodes = f64::from(r.net.gpus.div_ceil(hw.gpus_per_node.max(1)));
    let cxl_gb = hw.cxl.map_or(0.0, |x| {
        let dev = match x.device {
            CxlChoice::Preset(id) => catalog::cxl_device(id).spec,
            CxlChoice::Custom(s) => s,
        };
        positive(dev.capacity.as_gb()) * f64::from(x.devices_per_node) * nodes
    });
    let pool_gb = hw.pool.map_or(0.0, |p| {
        positive(p.capacity.as_gb()) * gpus / f64::from(p.shared_by_gpus.max(1))
    });
    let host_dram_gb = positive((hw.host_dram_per_node - default_host_dram()).as_gb()) * nodes;
    let cxl_price = chosen(
        econ.memory.cxl_usd_per_gb,
        "economics.memory.cxl_usd_per_gb",
        PricedItem::CxlGb,
        PriceKind::Purchase,
    );
    let dram_price = chosen(
        econ.memory.dram_usd_per_gb,
        "economics.memory.dram_usd_per_gb",
        PricedItem::DramGb,
        PriceKind::Purchase,
    );
    let part = |gb: f64, price: &Option<(Usd, PriceSource)>| -> Option<f64> {
        if gb > 0.0 {
            price.as_ref().map(|(u, _)| gb * u.as_usd())
        } else {
            Some(0.0)
        }
    };
    let capex = match (
        part(cxl_gb + pool_gb, &cxl_price),
        part(host_dram_gb, &dram_price),
    ) {
        (Some(a), Some(b)) => finite_usd(a + b),
        _ => None,
    };
    let added = cxl_gb + pool_gb + host_dram_gb;
    if added > 0.0 && matches!(econ.pricing, Pricing::Rental { .. }) {
        diags.push(Diagnostic::info(DiagnosticKind::RentalMemoryAmortised {
            gb: added,
        }));
    }
    let hours = amortised_hours(&econ.pricing);
    MemoryCost {
        cxl: Bytes::from_gb(cxl_gb),
        pool: Bytes::from_gb(pool_gb),
        host_dram: Bytes::from_gb(host_dram_gb),
        capex,
        usd_per_hour: capex.and_then(|c| (hours > 0.0).then(|| c / hours)),
    }
}

fn energy_cost(r: &Resolved, econ: &Economics) -> EnergyCost {
    let e = &econ.energy;
    let gpus = f64::from(r.net.gpus);
    let watts = gpus
        * positive(r.gpu.tdp.as_watts())
        * (1.0 + e.node_overhead)
        * e.average_power_fraction
        * e.pue;
    let price = chosen(
        e.usd_per_kwh,
        "economics.energy.usd_per_kwh",
        PricedItem::ElectricityKwh,
        PriceKind::Purchase,
    );
    let billing = match (econ.pricing, e.rental) {
        (Pricing::Capex { .. }, _) | (Pricing::Rental { .. }, RentalEnergy::Billed) => {
            EnergyBilling::Charged
        }
        (Pricing::Rental { .. }, RentalEnergy::Included) => EnergyBilling::IncludedInRental,
    };
    EnergyCost {
        power: Watts::new(watts),
        usd_per_kwh: price.as_ref().map(|p| p.0),
        usd_per_hour: price
            .as_ref()
            .and_then(|(u, _)| finite_usd(u.as_usd() * watts / 1000.0)),
        source: price.map(|p| p.1),
        billing,
    }
}

fn distillation_cost(
    r: &Resolved,
    model: &str,
    teacher: Option<&str>,
    time: &TimeReport,
    usd_per_gpu_hour: Option<f64>,
) -> Option<DistillationCost> {
    let d = r.distill?;
    let n_teacher = d.teacher.params().active_non_embedding(&d.teacher);
    let n_student = r.params.active_non_embedding(&r.spec);
    let flops = d.tokens * (2.0 * n_teacher + 6.0 * n_student);
    let utilisation = match time {
        TimeReport::Training(t) if t.mfu.is_finite() && t.mfu > 0.0 => t.mfu.min(1.0),
        _ => r.eff.gemm * END_TO_END,
    };
    let rate = peak(r) * utilisation;
    let gpu_seconds = if rate > 0.0 {
        flops / rate
    } else {
        f64::INFINITY
    };
    let gpu_hours = gpu_seconds / 3600.0;
    let finite_hours = gpu_hours.is_finite();
    Some(DistillationCost {
        teacher: teacher.unwrap_or_default().to_string(),
        student: model.to_string(),
        tokens: d.tokens,
        flops: Flops::new(flops),
        utilisation,
        gpu_hours: GpuHours::new(if finite_hours { gpu_hours } else { 0.0 }),
        wall: Seconds::from_secs(if finite_hours {
            gpu_seconds / f64::from(r.net.gpus.max(1))
        } else {
            0.0
        }),
        usd: usd_per_gpu_hour
            .filter(|_| finite_hours)
            .and_then(|p| finite_usd(p * gpu_hours)),
    })
}

/// Names the cost report needs.
pub(crate) struct CostNames<'a> {
    pub model: &'a str,
    pub gpu: &'a str,
    pub teacher: Option<&'a str>,
}

/// What a plan's hardware costs per hour, with its parts.
pub(crate) struct Hourly {
    pub gpu_price: Option<GpuHourPrice>,
    pub energy: EnergyCost,
    pub memory: MemoryCost,
    /// GPUs, energy where charged, and added memory; `None` when a price
    /// is unknown.
    pub usd_per_hour: Option<Usd>,
}

/// The hourly cost of a plan's hardware. It depends on the hardware and the
/// economics only, not on the levers: the search computes it once per
/// hardware choice and GPU count.
pub(crate) fn hourly(
    plan: &Plan,
    r: &Resolved,
    econ: &Economics,
    gpu: &str,
    diags: &mut Vec<Diagnostic>,
) -> Hourly {
    let gpus = f64::from(r.net.gpus);
    let gpu_price = gpu_price(plan, econ, gpu, diags);
    let energy = energy_cost(r, econ);
    let memory = memory_cost(plan, r, econ, diags);
    let energy_part = match energy.billing {
        EnergyBilling::Charged => energy.usd_per_hour.map(Usd::as_usd),
        EnergyBilling::IncludedInRental => Some(0.0),
    };
    let usd_per_hour = match (&gpu_price, energy_part, memory.usd_per_hour) {
        (Some(p), Some(e), Some(m)) => {
            finite_usd(p.usd_per_gpu_hour.as_usd() * gpus + e + m.as_usd())
        }
        _ => None,
    };
    Hourly {
        gpu_price,
        energy,
        memory,
        usd_per_hour,
    }
}

/// Dollars per million tokens at an hourly cost and a throughput: one
/// hour's cost over one hour's tokens.
pub(crate) fn per_million_tokens(hourly: Option<f64>, tokens_per_second: f64) -> Option<Usd> {
    let per_hour = tokens_per_second * 3600.0;
    hourly
        .filter(|_| per_hour > 0.0 && per_hour.is_finite())
        .and_then(|h| finite_usd(h / per_hour * 1e6))
}

/// The cost report of a plan. `econ` must have been checked
/// (`resolve::resolve_economics`); problems go to `diags`.
pub(crate) fn report(
    plan: &Plan,
    r: &Resolved,
    econ: &Economics,
    time: &TimeReport,
    names: CostNames<'_>,
    diags: &mut Vec<Diagnostic>,
) -> CostReport {
    let gpus = f64::from(r.net.gpus);
    let Hourly {
        gpu_price,
        energy,
        memory,
        usd_per_hour,
    } = hourly(plan, r, econ, names.gpu, diags);
    let hourly = usd_per_hour.map(Usd::as_usd);
    let per_hours = |hours: f64| hourly.and_then(|h| finite_usd(h * hours));
    let per_million = |tokens_per_second: f64| per_million_tokens(hourly, tokens_per_second);
    let (usd_per_step, gpu_hours_per_run, usd_per_run, usd_per_million_tokens) = match time {
        TimeReport::Training(t) => {
            let run_hours = t
                .time_to_train
                .map(Seconds::as_hours)
                .filter(|h| h.is_finite());
            (
                per_hours(t.step.as_hours()),
                run_hours.map(|h| GpuHours::new(h * gpus)),
                run_hours.and_then(per_hours),
                per_million(t.tokens_per_second),
            )
        }
        TimeReport::Inference(t) => (
            None,
            None,
            None,
            per_million(t.total_output_tokens_per_second),
        ),
    };

    let distillation = distillation_cost(
        r,
        names.model,
        names.teacher,
        time,
        hourly.map(|h| h / gpus.max(1.0)),
    );

    let effort = effort::efforts(plan, &effort::plain_baseline(plan), &econ.engineering);
    let person_weeks = effort::person_weeks(&effort);
    let rate = chosen(
        econ.engineering.usd_per_person_week,
        "economics.engineering.usd_per_person_week",
        PricedItem::EngineerWeek,
        PriceKind::Purchase,
    );
    let engineering_usd = rate
        .as_ref()
        .and_then(|(u, _)| finite_usd(u.as_usd() * person_weeks));
    let one_time_usd = match (&distillation, engineering_usd) {
        (None, Some(e)) => Some(e),
        (Some(d), Some(e)) => d.usd.map(|u| u + e),
        (_, None) => None,
    };
    CostReport {
        gpu_price,
        energy,
        memory,
        usd_per_hour,
        usd_per_step,
        gpu_hours_per_run,
        usd_per_run,
        usd_per_million_tokens,
        distillation,
        migration: effort::migration_class(&effort),
        effort,
        person_weeks,
        usd_per_person_week: rate.as_ref().map(|r| r.0),
        engineering_source: rate.map(|r| r.1),
        engineering_usd,
        one_time_usd,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::example_plan;
    use crate::hardware::MemoryPool;
    use crate::resolve::{resolve, resolve_economics};
    use crate::units::{ByteRate, Bytes};

    #[test]
    fn a_plan_price_wins_over_the_catalog() {
        let (u, src) = chosen(
            Some(Usd::new(1.5)),
            "f",
            PricedItem::DramGb,
            PriceKind::Purchase,
        )
        .unwrap_or((
            Usd::ZERO,
            PriceSource {
                source: String::new(),
                date: String::new(),
                provenance: None,
                market: None,
            },
        ));
        assert_eq!(u.as_usd(), 1.5);
        assert_eq!(src.provenance, None);
        assert!(src.source.contains("(f)"));
        let cat = chosen(None, "f", PricedItem::DramGb, PriceKind::Purchase);
        assert!(cat.is_some_and(|(_, s)| s.provenance.is_some() && !s.date.is_empty()));
    }

    #[test]
    fn rental_memory_is_amortised_over_the_default_horizon() {
        let h = amortised_hours(&Pricing::default());
        assert_eq!(h, 4.0 * HOURS_PER_YEAR * 0.7);
        let capex = Pricing::Capex {
            usd_per_gpu: None,
            horizon_years: 2.0,
            utilisation: 0.5,
        };
        assert_eq!(amortised_hours(&capex), HOURS_PER_YEAR);
    }

    #[test]
    fn a_pool_is_charged_by_the_jobs_share() {
        let mut p = example_plan();
        p.hardware.pool = Some(MemoryPool {
            capacity: Bytes::from_tb(16.0),
            shared_by_gpus: 32,
            bandwidth: ByteRate::from_gb_per_s(64.0),
            latency: crate::units::Seconds::from_nanos(500.0),
        });
        let (r, _, _) = resolve(&p);
        let (econ, _) = resolve_economics(&p);
        let mut diags = Vec::new();
        let m = memory_cost(&p, &r, &econ, &mut diags);
        // 8 of the 32 sharing GPUs: a quarter of 16 TB.
        assert!((m.pool.as_gb() - 4000.0).abs() < 1e-9);
        assert_eq!(m.cxl.as_gb(), 0.0);
        assert!(m.usd_per_hour.is_some_and(|u| u.as_usd() > 0.0));
        assert_eq!(diags.len(), 1);
    }
}
