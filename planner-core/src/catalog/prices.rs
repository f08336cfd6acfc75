//! Dated prices. Prices are scenario inputs, not facts: each carries the date
//! it was seen and its source, and the planner lets the user override it.

use super::{GpuId, Provenance};
use crate::units::Usd;
use serde::{Deserialize, Serialize};

/// What a price is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum PricedItem {
    /// One accelerator of a kind.
    Gpu(GpuId),
    /// One GB (10^9 B) of server DRAM.
    DramGb,
    /// One GB of CXL-attached memory (DRAM plus controller premium).
    CxlGb,
}

/// Rental or purchase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum PriceKind {
    /// Dollars per item-hour (cloud rental).
    RentalPerHour,
    /// Dollars per item, bought outright.
    Purchase,
}

/// One dated price.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PriceEntry {
    /// What is priced.
    pub item: PricedItem,
    /// Rental or purchase.
    pub kind: PriceKind,
    /// The price (midpoint of the quoted range, where a range was quoted).
    pub usd: Usd,
    /// When the price was seen (ISO date or year-month).
    pub date: &'static str,
    /// Where it comes from.
    pub source: &'static str,
    /// How it was checked.
    pub provenance: Provenance,
}

/// The price table.
pub static PRICES: &[PriceEntry] = &[PriceEntry {
    item: PricedItem::Gpu(GpuId::H100Sxm),
    kind: PriceKind::RentalPerHour,
    usd: Usd::new(4.92),
    date: "2025-01",
    source: "AWS EC2 Capacity Blocks price list, p5.48xlarge (8 × H100) at $39.33/h",
    provenance: Provenance::Secondary,
}];
