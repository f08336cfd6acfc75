//! The frontier chart's series: every plan as a point of latency against
//! cost, its family against the first plan, and the Pareto frontier of the
//! plans that fit (from [`planner_core::pareto::pareto_front`]).

use super::time::TimeMetric;
use planner_core::catalog::Provenance;
use planner_core::effort::{family, PlanFamily};
use planner_core::pareto::pareto_front;
use planner_core::report::{Report, TimeReport, Verdict};
use planner_core::units::Seconds;
use planner_core::Plan;

/// What the cost axis shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CostMetric {
    /// `report.cost.usd_per_million_tokens`.
    UsdPerMillionTokens,
    /// `report.cost.gpu_hours_per_run`, when no plan has a dollar figure.
    GpuHoursPerRun,
}

/// One plan on the chart.
#[derive(Debug, Clone, PartialEq)]
pub struct FrontierPoint {
    /// Index of the plan in the workspace.
    pub plan: usize,
    /// Its name (text).
    pub name: String,
    /// Its family against the first plan.
    pub family: PlanFamily,
    /// Step time (training) or TPOT (serving).
    pub latency: Seconds,
    /// Which of the two `latency` is.
    pub latency_metric: TimeMetric,
    /// The cost, in the unit of [`FrontierSeries::metric`] (dollars or
    /// GPU-hours).
    pub cost: f64,
    /// Whether the plan fits; plans that do not are drawn but are never on
    /// the frontier, since they cannot run.
    pub verdict: Verdict,
    /// Where the GPU price came from, when it is not a dated price of the
    /// catalog (set in the plan, or a catalog price tagged assumed): the
    /// chart marks the point "price assumed" and names this source.
    pub assumed_price: Option<String>,
}

/// The source of a report's GPU price when that price is an assumption:
/// set in the plan (no provenance) or tagged [`Provenance::Assumed`].
pub fn assumed_price(r: &Report) -> Option<String> {
    let p = r.cost.as_ref()?.gpu_price.as_ref()?;
    match p.source.provenance {
        None | Some(Provenance::Assumed) => Some(format!(
            "{} ({}/GPU-h)",
            p.source.source,
            crate::numfmt::usd(p.usd_per_gpu_hour)
        )),
        Some(_) => None,
    }
}

/// Everything the frontier chart draws.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FrontierSeries {
    /// The cost axis (`None` when no plan has a cost figure).
    pub metric: Option<CostMetric>,
    /// The placed plans.
    pub points: Vec<FrontierPoint>,
    /// Indices into `points` of the frontier, by increasing latency.
    pub front: Vec<usize>,
    /// Names of plans without a figure on the cost axis.
    pub unplaced: Vec<String>,
}

fn cost_of(r: &Report, m: CostMetric) -> Option<f64> {
    let c = r.cost.as_ref()?;
    match m {
        // A stream's tokens where the plan has one.
        CostMetric::UsdPerMillionTokens => r.usd_per_million_tokens().map(|u| u.as_usd()),
        CostMetric::GpuHoursPerRun => c.gpu_hours_per_run.map(|h| h.as_gpu_hours()),
    }
    .filter(|v| v.is_finite())
}

/// The series of a workspace's plans and their reports (the first plan is
/// the baseline for families).
pub fn frontier_series(plans: &[Plan], reports: &[Report]) -> FrontierSeries {
    let Some(baseline) = plans.first() else {
        return FrontierSeries::default();
    };
    let metric = [CostMetric::UsdPerMillionTokens, CostMetric::GpuHoursPerRun]
        .into_iter()
        .find(|&m| reports.iter().any(|r| cost_of(r, m).is_some()));
    let mut s = FrontierSeries {
        metric,
        ..FrontierSeries::default()
    };
    for (i, (plan, report)) in plans.iter().zip(reports).enumerate() {
        let (latency, latency_metric) = match &report.time {
            TimeReport::Training(t) => (t.step, TimeMetric::Step),
            TimeReport::Inference(t) => (
                report.stream_time.as_ref().map_or(t.tpot, |s| s.tpot),
                TimeMetric::Tpot,
            ),
        };
        match metric.and_then(|m| cost_of(report, m)) {
            Some(cost) if latency.is_finite() => s.points.push(FrontierPoint {
                plan: i,
                name: plan.name.clone(),
                family: family(plan, baseline),
                latency,
                latency_metric,
                cost,
                verdict: report.verdict,
                assumed_price: assumed_price(report),
            }),
            _ => s.unplaced.push(plan.name.clone()),
        }
    }
    let fitting: Vec<usize> = (0..s.points.len())
        .filter(|&i| s.points[i].verdict == Verdict::Fits)
        .collect();
    let coords: Vec<(Seconds, f64)> = fitting
        .iter()
        .map(|&i| (s.points[i].latency, s.points[i].cost))
        .collect();
    s.front = pareto_front(&coords)
        .into_iter()
        .map(|k| fitting[k])
        .collect();
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;
    use planner_core::evaluate;

    #[test]
    fn every_priced_plan_is_placed_and_the_front_is_undominated() {
        let (plans, reports) = fixtures::three();
        let s = frontier_series(&plans, &reports);
        assert_eq!(s.metric, Some(CostMetric::UsdPerMillionTokens));
        assert_eq!(s.points.len() + s.unplaced.len(), plans.len());
        assert_eq!(s.points[0].family, PlanFamily::Baseline);
        assert_eq!(s.points[1].latency_metric, TimeMetric::Tpot);
        assert!(!s.front.is_empty());
        for &f in &s.front {
            let p = &s.points[f];
            assert_eq!(p.verdict, Verdict::Fits);
            let beaten = s.points.iter().any(|q| {
                q.verdict == Verdict::Fits
                    && q.latency <= p.latency
                    && q.cost <= p.cost
                    && (q.latency < p.latency || q.cost < p.cost)
            });
            assert!(!beaten, "{} is dominated", p.name);
        }
    }

    #[test]
    fn plans_that_do_not_fit_are_drawn_but_off_the_front() {
        let mut big = fixtures::training();
        big.name = "too big".into();
        if let planner_core::plan::Workload::Training(t) = &mut big.workload {
            t.seq_len = 1 << 17;
        }
        let plans = vec![fixtures::training(), big];
        let reports: Vec<_> = plans.iter().map(evaluate).collect();
        assert_eq!(reports[1].verdict, Verdict::DoesNotFit);
        let s = frontier_series(&plans, &reports);
        assert_eq!(s.points.len(), 2);
        assert_eq!(s.front, vec![0]);
    }

    #[test]
    fn no_plans_no_points() {
        assert_eq!(frontier_series(&[], &[]), FrontierSeries::default());
    }
}
