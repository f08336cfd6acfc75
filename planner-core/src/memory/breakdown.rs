//! A device's memory as a fixed table of bytes by item kind and tier: what
//! the time model, the placement and the search read. It carries no
//! strings and allocates nothing. Public (as `planner_core::quick::Breakdown`)
//! so tests and views can compare it with a report's items.

use crate::plan::Tier;
use crate::report::{DeviceMemory, DeviceRole, ItemKind};
use crate::resolve::tier_index;

/// Number of item kinds.
pub const KINDS: usize = ItemKind::ALL.len();

/// Bytes per (item kind, tier) of one device.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Breakdown {
    /// Which device.
    pub role: DeviceRole,
    /// Pipeline rank.
    pub rank: u32,
    /// Transformer layers held.
    pub layers: u32,
    /// Bytes, indexed by `ItemKind::index()` and then by the tier's
    /// position in `Tier::ALL`.
    pub bytes: [[f64; 4]; KINDS],
}

impl Breakdown {
    /// A table with nothing in it.
    pub fn empty(role: DeviceRole, rank: u32, layers: u32) -> Self {
        Self {
            role,
            rank,
            layers,
            bytes: [[0.0; 4]; KINDS],
        }
    }

    /// Adds bytes of one kind to one tier.
    pub fn add(&mut self, kind: ItemKind, tier: Tier, bytes: f64) {
        self.bytes[kind.index()][tier_index(tier)] += bytes;
    }

    /// Bytes of one kind in one tier.
    pub fn get(&self, kind: ItemKind, tier: Tier) -> f64 {
        self.bytes[kind.index()][tier_index(tier)]
    }

    /// Bytes of one kind, all tiers.
    pub fn kind(&self, kind: ItemKind) -> f64 {
        self.bytes[kind.index()].iter().sum()
    }

    /// The table of a full breakdown.
    pub fn from_device(d: &DeviceMemory, rank: u32) -> Self {
        let mut b = Self::empty(d.role, rank, d.layers);
        for i in &d.items {
            b.add(i.kind, i.tier, i.bytes.base());
        }
        b
    }
}
