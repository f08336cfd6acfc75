//! The memory chart's series: per plan, the binding device's items stacked
//! by tier, with the HBM capacity as the wall.

use planner_core::plan::Tier;
use planner_core::report::{DeviceRole, Interval, ItemKind, Report, Verdict};
use planner_core::units::Bytes;

/// One plan's column of the chart.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryPlan {
    /// The plan's name (text, never markup).
    pub name: String,
    /// Which device the bars show: the most loaded one.
    pub role: DeviceRole,
    /// HBM capacity per GPU: the wall.
    pub hbm: Bytes,
    /// The plan's verdict.
    pub verdict: Verdict,
}

/// One stacked bar: one tier of one plan's binding device.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryBar {
    /// Index into [`MemorySeries::plans`].
    pub plan: usize,
    /// The tier.
    pub tier: Tier,
    /// Bytes per item kind, in [`ItemKind::ALL`] order, zeros left out.
    pub segments: Vec<(ItemKind, Bytes)>,
    /// The tier's use (the segments add up to it).
    pub used: Bytes,
    /// Where the use is expected to fall in a real run.
    pub range: Interval<Bytes>,
}

/// Everything the memory chart draws.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MemorySeries {
    /// The plans, in workspace order.
    pub plans: Vec<MemoryPlan>,
    /// The bars: HBM for every plan, other tiers where they hold something.
    pub bars: Vec<MemoryBar>,
}

impl MemorySeries {
    /// The item kinds that appear, in [`ItemKind::ALL`] order (the legend).
    pub fn kinds(&self) -> Vec<ItemKind> {
        ItemKind::ALL
            .into_iter()
            .filter(|k| {
                self.bars
                    .iter()
                    .any(|b| b.segments.iter().any(|s| s.0 == *k))
            })
            .collect()
    }

    /// The highest value drawn: a bar, a whisker or a wall.
    pub fn top(&self) -> Bytes {
        let bars = self.bars.iter().map(|b| b.used.max(b.range.high));
        let walls = self.plans.iter().map(|p| p.hbm);
        bars.chain(walls).fold(Bytes::ZERO, Bytes::max)
    }
}

/// The series of some plans, each given as its name and report.
pub fn memory_series<'a>(plans: impl IntoIterator<Item = (&'a str, &'a Report)>) -> MemorySeries {
    let mut s = MemorySeries::default();
    for (name, report) in plans {
        let Some(d) = report.binding_device() else {
            continue;
        };
        let plan = s.plans.len();
        let hbm = d.hbm().map_or(Bytes::ZERO, |t| t.capacity);
        s.plans.push(MemoryPlan {
            name: name.to_string(),
            role: d.role,
            hbm,
            verdict: report.verdict,
        });
        for t in d
            .tiers
            .iter()
            .filter(|t| t.tier == Tier::Hbm || t.used.base() > 0.0)
        {
            let segments = ItemKind::ALL
                .into_iter()
                .map(|k| {
                    let b: Bytes = d
                        .items
                        .iter()
                        .filter(|i| i.kind == k && i.tier == t.tier)
                        .map(|i| i.bytes)
                        .sum();
                    (k, b)
                })
                .filter(|(_, b)| b.base() > 0.0)
                .collect();
            s.bars.push(MemoryBar {
                plan,
                tier: t.tier,
                segments,
                used: t.used,
                range: t.range,
            });
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;

    #[test]
    fn segments_add_up_to_the_reports_tier_use() {
        let (plans, reports) = fixtures::three();
        let s = memory_series(
            plans
                .iter()
                .zip(&reports)
                .map(|(p, r)| (p.name.as_str(), r)),
        );
        assert_eq!(s.plans.len(), 3);
        for (i, r) in reports.iter().enumerate() {
            let d = r.binding_device().expect("a device");
            let hbm_bars = s
                .bars
                .iter()
                .filter(|b| b.plan == i && b.tier == Tier::Hbm)
                .count();
            assert_eq!(hbm_bars, 1, "every plan has its HBM bar");
            for b in s.bars.iter().filter(|b| b.plan == i) {
                let sum: f64 = b.segments.iter().map(|x| x.1.base()).sum();
                let in_tier = d.in_tier(b.tier).base();
                assert!(
                    (sum - in_tier).abs() <= 1e-6 * in_tier.max(1.0),
                    "{sum} vs {in_tier}"
                );
                assert!((b.used.base() - in_tier).abs() <= 1e-6 * in_tier.max(1.0));
            }
            assert_eq!(s.plans[i].verdict, r.verdict);
        }
        // The offload plan has a host-DRAM bar holding optimizer states.
        let host = s
            .bars
            .iter()
            .find(|b| b.plan == 2 && b.tier == Tier::HostDram);
        assert!(host.is_some_and(|b| b.segments.iter().any(|x| x.0 == ItemKind::OptimizerStates)));
        assert!(s.top().base() >= s.plans[2].hbm.base());
        assert!(s.kinds().contains(&ItemKind::Weights));
    }

    #[test]
    fn empty_input_is_an_empty_series() {
        let s = memory_series(std::iter::empty());
        assert!(s.plans.is_empty() && s.bars.is_empty());
        assert_eq!(s.top(), Bytes::ZERO);
    }
}
