//! The reliability chart's series: the core's figures at a range of
//! failure rates ([`planner_core::checkpoint::failure_sweep`]) and the
//! plan's own point, the core's [`CheckpointReport::rate_point`]. No
//! formula here.

use planner_core::checkpoint::{CheckpointReport, RatePoint};

/// Everything the reliability chart draws.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ReliabilitySeries {
    /// Goodput and intervals by failure rate, lowest rate first.
    pub points: Vec<RatePoint>,
    /// The plan at its own failure rate (`None` for a serving plan).
    pub current: Option<RatePoint>,
}

/// The series of a training plan's report and its failure sweep.
pub fn reliability_series(
    c: Option<&CheckpointReport>,
    points: Vec<RatePoint>,
) -> ReliabilitySeries {
    ReliabilitySeries {
        points,
        current: c.map(CheckpointReport::rate_point),
    }
}
