//! The reliability chart's series: the core's figures at a range of
//! failure rates ([`planner_core::checkpoint::failure_sweep`]) and the
//! plan's own point, taken from its checkpoint report. No formula here.

use planner_core::checkpoint::{CheckpointReport, RatePoint};

/// Everything the reliability chart draws.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ReliabilitySeries {
    /// Goodput and intervals by failure rate, lowest rate first.
    pub points: Vec<RatePoint>,
    /// The plan at its own failure rate (`None` for a serving plan).
    pub current: Option<RatePoint>,
}

/// The plan's own point, from its report.
pub fn current_point(c: &CheckpointReport) -> RatePoint {
    RatePoint {
        failure_rate: c.failure_rate,
        mtbi: c.mtbi,
        interval: c.interval,
        interval_young: c.interval_young,
        interval_daly: c.interval_daly,
        goodput: c.goodput,
        lost_gpu_hours_per_day: c.lost_gpu_hours_per_day,
    }
}

/// The series of a training plan's report and its failure sweep.
pub fn reliability_series(
    c: Option<&CheckpointReport>,
    points: Vec<RatePoint>,
) -> ReliabilitySeries {
    ReliabilitySeries {
        points,
        current: c.map(current_point),
    }
}
