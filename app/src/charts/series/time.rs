//! The time chart's series: per plan the exposed parts of a training step,
//! or of TTFT and TPOT for serving, with the expected range.

use planner_core::report::{Interval, Report, TimeKind, TimePart, TimeReport};
use planner_core::units::Seconds;

/// Which time a panel shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeMetric {
    /// Wall time of one optimizer step (training).
    Step,
    /// Time to first token (serving).
    Ttft,
    /// Time per output token (serving).
    Tpot,
}

/// One stacked bar: one plan's time.
#[derive(Debug, Clone, PartialEq)]
pub struct TimeBar {
    /// Index into [`TimeSeries::plans`].
    pub plan: usize,
    /// Exposed seconds per time kind, in [`TimeKind::ALL`] order, zeros
    /// left out.
    pub segments: Vec<(TimeKind, Seconds)>,
    /// The time the report gives.
    pub total: Seconds,
    /// Its expected range.
    pub range: Interval<Seconds>,
}

/// One panel: a metric and the bars of the plans that have it.
#[derive(Debug, Clone, PartialEq)]
pub struct TimePanel {
    /// The metric.
    pub metric: TimeMetric,
    /// One bar per plan that has the metric.
    pub bars: Vec<TimeBar>,
}

/// Everything the time chart draws.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TimeSeries {
    /// Plan names, in workspace order.
    pub plans: Vec<String>,
    /// Step, TTFT and TPOT panels, those that have bars.
    pub panels: Vec<TimePanel>,
}

impl TimeSeries {
    /// The time kinds that appear (the legend), in [`TimeKind::ALL`] order.
    pub fn kinds(&self) -> Vec<TimeKind> {
        TimeKind::ALL
            .into_iter()
            .filter(|k| {
                self.panels
                    .iter()
                    .flat_map(|p| &p.bars)
                    .any(|b| b.segments.iter().any(|s| s.0 == *k))
            })
            .collect()
    }
}

fn bar(plan: usize, parts: &[TimePart], total: Seconds, range: Interval<Seconds>) -> TimeBar {
    let segments = TimeKind::ALL
        .into_iter()
        .map(|k| {
            let s: Seconds = parts
                .iter()
                .filter(|p| p.kind == k)
                .map(|p| p.exposed)
                .sum();
            (k, s)
        })
        .filter(|(_, s)| s.as_secs() > 0.0)
        .collect();
    TimeBar {
        plan,
        segments,
        total,
        range,
    }
}

/// The series of some plans, each given as its name and report.
pub fn time_series<'a>(plans: impl IntoIterator<Item = (&'a str, &'a Report)>) -> TimeSeries {
    let mut names = Vec::new();
    let (mut step, mut ttft, mut tpot) = (Vec::new(), Vec::new(), Vec::new());
    for (i, (name, report)) in plans.into_iter().enumerate() {
        names.push(name.to_string());
        match &report.time {
            TimeReport::Training(t) => step.push(bar(i, &t.parts, t.step, t.step_range)),
            // A streamed request's median times, where the plan has a
            // stream; its static batch's otherwise.
            TimeReport::Inference(t) => match &report.stream_time {
                Some(s) => {
                    ttft.push(bar(i, &s.ttft_parts, s.ttft, s.ttft_range));
                    tpot.push(bar(i, &s.tpot_parts, s.tpot, s.tpot_range));
                }
                None => {
                    ttft.push(bar(i, &t.prefill, t.ttft, t.ttft_range));
                    tpot.push(bar(i, &t.decode, t.tpot, t.tpot_range));
                }
            },
        }
    }
    let panels = [
        (TimeMetric::Step, step),
        (TimeMetric::Ttft, ttft),
        (TimeMetric::Tpot, tpot),
    ]
    .into_iter()
    .filter(|(_, bars)| !bars.is_empty())
    .map(|(metric, bars)| TimePanel { metric, bars })
    .collect();
    TimeSeries {
        plans: names,
        panels,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;

    #[test]
    fn panels_follow_the_workloads_and_parts_add_up() {
        let (plans, reports) = fixtures::three();
        let s = time_series(
            plans
                .iter()
                .zip(&reports)
                .map(|(p, r)| (p.name.as_str(), r)),
        );
        let metrics: Vec<_> = s.panels.iter().map(|p| p.metric).collect();
        assert_eq!(
            metrics,
            vec![TimeMetric::Step, TimeMetric::Ttft, TimeMetric::Tpot]
        );
        assert_eq!(s.panels[0].bars.len(), 2, "two training plans");
        assert_eq!(s.panels[1].bars.len(), 1, "one serving plan");
        for b in s.panels.iter().flat_map(|p| &p.bars) {
            let sum: f64 = b.segments.iter().map(|x| x.1.as_secs()).sum();
            let total = b.total.as_secs();
            // Exposed parts add up to the reported time (the core's rule).
            assert!((sum - total).abs() <= 1e-6 * total, "{sum} vs {total}");
            assert!(b.range.low.as_secs() <= total && total <= b.range.high.as_secs());
        }
        assert!(s.kinds().contains(&TimeKind::Gemm));
    }

    /// A plan with a stream is drawn as its stream: its bars are the
    /// simulated medians, not its static batch's, and their parts add up.
    #[test]
    fn a_stream_plan_is_drawn_as_its_stream() {
        let ws = crate::presets::Preset::Serving.workspace(crate::i18n::Lang::En);
        let reports: Vec<_> = ws.plans.iter().map(planner_core::evaluate).collect();
        let s = time_series(
            ws.plans
                .iter()
                .zip(&reports)
                .map(|(p, r)| (p.name.as_str(), r)),
        );
        for (panel, metric) in s.panels.iter().zip([TimeMetric::Ttft, TimeMetric::Tpot]) {
            assert_eq!(panel.metric, metric);
            for b in &panel.bars {
                let st = reports[b.plan].stream_time.as_ref().expect("a stream");
                let want = if metric == TimeMetric::Ttft {
                    st.ttft
                } else {
                    st.tpot
                };
                assert_eq!(b.total, want);
                let sum: f64 = b.segments.iter().map(|x| x.1.as_secs()).sum();
                assert!((sum - want.as_secs()).abs() <= 1e-9 * want.as_secs().max(1.0));
            }
            // The baseline waits behind other requests.
            assert!(panel.bars[0]
                .segments
                .iter()
                .any(|x| x.0 == TimeKind::Waiting));
        }
    }
}
