//! The economics of a plan, as inputs: how GPU time is paid for, what
//! energy costs, what added memory costs, and what engineering time costs.
//! Every field has a default, so a plan without an `economics` section
//! parses and gets the dated catalog prices ([`crate::catalog::PRICES`]).
//! The cost itself is computed in `cost.rs` and reported as
//! [`crate::report::CostReport`].
//!
//! Where a default is a dollar figure it lives in the price catalog with its
//! date, source and [`crate::catalog::Provenance`]; `None` in a price field
//! means "the catalog default". The other defaults and their sources:
//!
//! | field | default | source |
//! |---|---|---|
//! | `pricing.capex.horizon_years` | 4 | Nebius depreciates its GPUs over 4 years; CoreWeave (S-1) and the hyperscalers use 5–6 years for servers. NVIDIA's yearly product cadence argues for the shorter figure (press reports, 2025; secondary) |
//! | `pricing.capex.utilisation` | 0.7 | Assumed: the share of the horizon's hours an owned GPU does paid-for work, after maintenance, failures, idle gaps between jobs and spare capacity |
//! | `energy.pue` | 1.58 | Uptime Institute, industry-average PUE of 2023 (UII Update 221, Nov 2023; flat at 1.55–1.59 since 2020). New large facilities report 1.3 or better, hyperscale 1.1–1.2 |
//! | `energy.average_power_fraction` | 0.76 | Newkirk et al. 2025 (arXiv:2506.14551): 8×H100 nodes training at 76 % of the 10.2 kW rating on compute-heavy workloads; Latif et al. 2024 (arXiv:2412.08602) saw a maximum of 8.4 kW (82 %) training Llama 2 13B |
//! | `energy.node_overhead` | 0.82 | Computed: DGX H100 is rated 10.2 kW for eight 700 W GPUs (5.6 kW), so the rest of the server (CPUs, DRAM, NICs, fans, power conversion) adds 4.6 kW, 0.82 of the GPUs' TDP |

use crate::lever::Lever;
use crate::units::Usd;
use serde::{Deserialize, Serialize};

/// Hours in a year (a Julian year of 365.25 days).
pub const HOURS_PER_YEAR: f64 = 365.25 * 24.0;

/// All economic inputs of a plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Economics {
    /// How GPU time is paid for (default: cloud rental at the catalog
    /// price).
    #[serde(default)]
    pub pricing: Pricing,
    /// Electricity and facility.
    #[serde(default)]
    pub energy: Energy,
    /// Prices of memory the plan adds.
    #[serde(default)]
    pub memory: MemoryPrices,
    /// Engineering time.
    #[serde(default)]
    pub engineering: Engineering,
    /// Where the GPUs are rented or bought: the catalog price seen on that
    /// market's clouds (`None`: the market of the GPU's first catalog
    /// price, which is China's for the parts rented only there). A search
    /// that moves the plan to other GPU kinds prices them on the same
    /// market and leaves out kinds that market has no price for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub market: Option<crate::catalog::Market>,
}

/// Rental or purchase of the GPUs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum Pricing {
    /// Cloud rental by the GPU-hour; energy and facility are in the price
    /// (unless `energy.rental` says otherwise).
    Rental {
        /// Dollars per GPU-hour; `None` takes the catalog's dated default
        /// rental price of the plan's GPU.
        #[serde(default)]
        usd_per_gpu_hour: Option<Usd>,
    },
    /// GPUs bought and amortised straight-line over `horizon_years`, of
    /// which a fraction `utilisation` of the hours is billable work; energy
    /// is paid on top.
    ///
    /// The purchase price covers the GPUs (and any memory the plan adds),
    /// not the servers, network or building around them: put those into
    /// `usd_per_gpu` if you want them counted.
    Capex {
        /// Dollars per GPU; `None` takes the catalog's dated default
        /// purchase price of the plan's GPU.
        #[serde(default)]
        usd_per_gpu: Option<Usd>,
        /// Amortisation horizon in years (> 0). Default 4: the shorter of
        /// the schedules GPU clouds report (Nebius 4 years; CoreWeave and
        /// the hyperscalers 5–6 years), chosen because NVIDIA now ships a
        /// new generation every year.
        #[serde(default = "default_horizon_years")]
        horizon_years: f64,
        /// Fraction of the horizon's hours spent on paid-for work, in
        /// `(0, 1]`. Default 0.7, an assumption: maintenance, failures,
        /// idle time between jobs and spare capacity take the rest.
        #[serde(default = "default_utilisation")]
        utilisation: f64,
    },
}

impl Pricing {
    /// The catalog price this pricing reads: a rental or a purchase price.
    pub fn kind(&self) -> crate::catalog::PriceKind {
        match self {
            Pricing::Rental { .. } => crate::catalog::PriceKind::RentalPerHour,
            Pricing::Capex { .. } => crate::catalog::PriceKind::Purchase,
        }
    }
}

impl Default for Pricing {
    fn default() -> Self {
        Pricing::Rental {
            usd_per_gpu_hour: None,
        }
    }
}

/// Default amortisation horizon (see [`Pricing::Capex`]).
pub fn default_horizon_years() -> f64 {
    4.0
}

/// Default utilisation of owned GPUs (see [`Pricing::Capex`]).
pub fn default_utilisation() -> f64 {
    0.7
}

/// Whether a rental price already pays for the electricity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum RentalEnergy {
    /// Included, as in every cloud GPU-hour price.
    #[default]
    Included,
    /// Billed separately (some colocation or bare-metal contracts).
    Billed,
}

/// Electricity and facility.
///
/// The power of a job is `gpus × TDP × (1 + node_overhead) ×
/// average_power_fraction × pue`. TDP is an upper bound of what a GPU
/// draws on average; `average_power_fraction` brings the server's rating
/// down to what it draws while training, and `pue` adds cooling and power
/// distribution.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Energy {
    /// Dollars per kWh; `None` takes the catalog's dated default (the US
    /// industrial average from EIA).
    #[serde(default)]
    pub usd_per_kwh: Option<Usd>,
    /// Power usage effectiveness, ≥ 1: facility power over IT power.
    /// Default 1.58, Uptime Institute's 2023 industry average.
    #[serde(default = "default_pue")]
    pub pue: f64,
    /// Average draw of a server as a fraction of its rating, in `0..=1`.
    /// Default 0.76 (Newkirk et al. 2025, 8×H100 nodes training).
    #[serde(default = "default_average_power_fraction")]
    pub average_power_fraction: f64,
    /// Rating of the rest of the server (CPUs, DRAM, NICs, fans, power
    /// conversion) as a fraction of its GPUs' TDP, ≥ 0. Default 0.82, from
    /// DGX H100: 10.2 kW for eight 700 W GPUs.
    #[serde(default = "default_node_overhead")]
    pub node_overhead: f64,
    /// Whether a rental price already pays for the electricity (only used
    /// with [`Pricing::Rental`]; capex always pays it on top).
    #[serde(default)]
    pub rental: RentalEnergy,
}

/// Default PUE (see [`Energy::pue`]).
pub fn default_pue() -> f64 {
    1.58
}

/// Default average power fraction (see [`Energy::average_power_fraction`]).
pub fn default_average_power_fraction() -> f64 {
    0.76
}

/// Default node overhead (see [`Energy::node_overhead`]).
pub fn default_node_overhead() -> f64 {
    (10_200.0 - 8.0 * 700.0) / (8.0 * 700.0)
}

impl Default for Energy {
    fn default() -> Self {
        Self {
            usd_per_kwh: None,
            pue: default_pue(),
            average_power_fraction: default_average_power_fraction(),
            node_overhead: default_node_overhead(),
            rental: RentalEnergy::Included,
        }
    }
}

/// Prices of memory a plan adds: CXL expanders, a pool's share, and host
/// DRAM beyond a reference node (2 TB per node, as in DGX A100/H100).
/// Bought and amortised like capex GPUs; under rental, with the default
/// horizon and utilisation, since no cloud rents CXL memory.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct MemoryPrices {
    /// Dollars per GB (10^9 B) of CXL memory; `None` takes the catalog
    /// default.
    #[serde(default)]
    pub cxl_usd_per_gb: Option<Usd>,
    /// Dollars per GB of host DRAM; `None` takes the catalog default.
    #[serde(default)]
    pub dram_usd_per_gb: Option<Usd>,
}

/// Engineering time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Engineering {
    /// Dollars per person-week, fully loaded; `None` takes the catalog
    /// default (an assumed figure: see `memwall presets prices`).
    #[serde(default)]
    pub usd_per_person_week: Option<Usd>,
    /// Person-weeks per lever, replacing the assumed defaults of
    /// `effort.rs`; the last entry for a lever wins.
    #[serde(default)]
    pub effort: Vec<EffortOverride>,
}

/// Your own effort estimate for one lever.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct EffortOverride {
    /// The lever.
    pub lever: Lever,
    /// Person-weeks, ≥ 0.
    pub person_weeks: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_economics_takes_every_default() {
        let e: Result<Economics, _> = serde_json::from_str("{}");
        let e = e.ok().unwrap_or_else(|| Economics {
            pricing: Pricing::Capex {
                usd_per_gpu: None,
                horizon_years: 0.0,
                utilisation: 0.0,
            },
            ..Economics::default()
        });
        assert_eq!(e, Economics::default());
        assert_eq!(
            e.pricing,
            Pricing::Rental {
                usd_per_gpu_hour: None
            }
        );
        assert!((e.energy.node_overhead - 4.6 / 5.6).abs() < 1e-12);
    }

    #[test]
    fn capex_fields_default() {
        let p: Pricing = serde_json::from_str(r#"{"capex": {}}"#).unwrap_or_default();
        assert_eq!(
            p,
            Pricing::Capex {
                usd_per_gpu: None,
                horizon_years: 4.0,
                utilisation: 0.7
            }
        );
    }

    #[test]
    fn round_trips() {
        let e = Economics {
            pricing: Pricing::Capex {
                usd_per_gpu: Some(Usd::new(30_000.0)),
                horizon_years: 5.0,
                utilisation: 0.5,
            },
            energy: Energy {
                usd_per_kwh: Some(Usd::new(0.1)),
                rental: RentalEnergy::Billed,
                ..Energy::default()
            },
            memory: MemoryPrices {
                cxl_usd_per_gb: Some(Usd::new(6.0)),
                dram_usd_per_gb: None,
            },
            engineering: Engineering {
                usd_per_person_week: Some(Usd::new(5_000.0)),
                effort: vec![EffortOverride {
                    lever: Lever::TensorParallel,
                    person_weeks: 1.5,
                }],
            },
            market: Some(crate::catalog::Market::China),
        };
        let json = serde_json::to_string(&e).unwrap_or_default();
        assert!(json.contains(r#""market":"china""#), "{json}");
        let back: Economics = serde_json::from_str(&json).unwrap_or_default();
        assert_eq!(back, e);
    }
}
