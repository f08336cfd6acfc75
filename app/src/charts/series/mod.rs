//! What the charts draw, built from the core's reports and nothing else:
//! every number here is a field of a [`planner_core::Report`] (or of a
//! [`planner_core::sweep::SweepResult`], which the sweep chart draws as it
//! is, or of the operations views' results: the checkpoint reports and the
//! wall series), regrouped for drawing. No formula lives here.

pub mod frontier;
pub mod memory;
pub mod reliability;
pub mod time;

pub use frontier::{frontier_series, CostMetric, FrontierPoint, FrontierSeries};
pub use memory::{memory_series, MemoryBar, MemoryPlan, MemorySeries};
pub use reliability::{reliability_series, ReliabilitySeries};
pub use time::{time_series, TimeBar, TimeMetric, TimePanel, TimeSeries};
