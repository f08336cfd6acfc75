//! The time chart: one panel per metric (step time, or TTFT and TPOT), a
//! stacked bar of exposed time parts per plan, and the expected range as
//! an error bar. A panel whose bars span more than ten times turns its
//! axis logarithmic ([`value_axis`]).

use super::{
    bold_grid, category_label, category_names, fit, font, legend, light_grid, ticks, Done, Drawn,
    LegendEntry,
};
use crate::charts::hover::Hit;
use crate::charts::palette::{self, INK};
use crate::charts::series::{TimeBar, TimeMetric, TimePanel, TimeSeries};
use crate::i18n::results::{t, K};
use crate::i18n::Lang;
use crate::numfmt::{duration, duration_range, pct, tick};
use planner_core::Named;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

/// A metric's panel title.
pub fn metric_name(lang: Lang, m: TimeMetric) -> &'static str {
    match m {
        TimeMetric::Step => t(lang, K::StepTime),
        TimeMetric::Ttft => t(lang, K::Ttft),
        TimeMetric::Tpot => t(lang, K::Tpot),
    }
}

/// Draws the time series; returns a hover region per segment and error bar.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    s: &TimeSeries,
    lang: Lang,
) -> Drawn<DB> {
    root.fill(&WHITE)?;
    let root = super::titled(root, t(lang, K::TimeTitle))?;
    let mut hits = Vec::new();
    if s.panels.is_empty() {
        return Ok(hits);
    }
    let entries: Vec<LegendEntry> = s
        .kinds()
        .into_iter()
        .map(|k| LegendEntry {
            label: k.name(lang).to_string(),
            color: palette::time(k).to_rgba(),
            line: false,
        })
        .collect();
    let (area, side) = super::split_legend(&root, entries.len());
    // Panel widths follow their bar counts (plus one for the axis).
    let total_w = f64::from(area.dim_in_pixel().0);
    let weights: Vec<f64> = s.panels.iter().map(|p| p.bars.len() as f64 + 1.0).collect();
    let sum: f64 = weights.iter().sum();
    let mut breaks = Vec::new();
    let mut acc = 0.0;
    for w in &weights[..weights.len() - 1] {
        acc += w;
        breaks.push((total_w * acc / sum).round() as i32);
    }
    let panels = area.split_by_breakpoints(breaks, Vec::<i32>::new());
    for (panel, p) in panels.iter().zip(&s.panels) {
        draw_panel(panel, &mut hits, s, p, lang)?;
    }
    legend(&side, &entries)?;
    Ok(hits)
}

/// How a panel's value axis is drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ValueAxis {
    /// Seconds to the axis's unit (1 or 1000).
    pub scale: f64,
    /// The unit's name.
    pub unit: K,
    /// Logarithmic from `low` (in the axis's unit), or linear from zero.
    pub log_from: Option<f64>,
    /// The top, in the axis's unit.
    pub top: f64,
}

/// When the largest bar is more than ten times the smallest, a linear axis
/// squeezes the small ones to a few pixels (20 ms beside 2 s is 1 %), so the
/// axis turns logarithmic. Milliseconds when the smallest value is below a
/// second, so the ticks never read 0.00…, unless a logarithmic axis reaches
/// ten seconds (its ticks would read "10.0 K" milliseconds, wider than the
/// axis's room; seconds read 0.1, 1, 10).
pub fn value_axis(bars: &[TimeBar]) -> ValueAxis {
    let highs = bars.iter().map(|b| b.total.max(b.range.high).as_secs());
    let top = highs.fold(0.0, f64::max);
    let lows = bars
        .iter()
        .flat_map(|b| [b.total.as_secs(), b.range.low.as_secs()])
        .filter(|v| *v > 0.0 && v.is_finite());
    let low = lows.fold(f64::INFINITY, f64::min);
    let smallest = if low.is_finite() { low } else { top };
    let log = low.is_finite() && top / low > 10.0;
    let (scale, unit) = if smallest >= 1.0 || (log && top >= 10.0) {
        (1.0, K::Seconds)
    } else {
        (1e3, K::Milliseconds)
    };
    ValueAxis {
        scale,
        unit,
        log_from: log.then_some(low * scale / 2.0),
        top: if log {
            top * scale * 2.0
        } else {
            (top * scale * 1.12).max(1e-9)
        },
    }
}

/// One metric's panel: its axis (linear or logarithmic) and its bars.
fn draw_panel<DB: DrawingBackend>(
    panel: &DrawingArea<DB, Shift>,
    hits: &mut Vec<Hit>,
    s: &TimeSeries,
    p: &TimePanel,
    lang: Lang,
) -> Done<DB> {
    let axis = value_axis(&p.bars);
    let w = panel.dim_in_pixel().0 as i32;
    let per = (w - 70) / p.bars.len().max(1) as i32 - 8;
    let plans: Vec<(usize, &str)> = p
        .bars
        .iter()
        .map(|b| (b.plan, s.plans[b.plan].as_str()))
        .collect();
    let names = category_names(&plans, 12.0, per);
    let x = -0.5f64..(p.bars.len() as f64 - 0.5);
    let mut builder = ChartBuilder::on(panel);
    builder
        .caption(fit(metric_name(lang, p.metric), 13.0, w - 8), font(13.0))
        .margin(8)
        .x_label_area_size(26)
        .y_label_area_size(54);
    match axis.log_from {
        Some(low) => {
            let chart = builder.build_cartesian_2d(x, (low..axis.top).log_scale())?;
            bars(chart, hits, s, p, &names, axis, lang)
        }
        None => {
            let chart = builder.build_cartesian_2d(x, 0f64..axis.top)?;
            bars(chart, hits, s, p, &names, axis, lang)
        }
    }
}

/// A time panel's chart: plans across, time up (linear or logarithmic).
type Chart<'a, DB, Y> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, Y>>;

/// The mesh and every bar of a built panel.
fn bars<DB: DrawingBackend, Y: Ranged<ValueType = f64> + ValueFormatter<f64>>(
    mut chart: Chart<'_, DB, Y>,
    hits: &mut Vec<Hit>,
    s: &TimeSeries,
    p: &TimePanel,
    names: &[String],
    axis: ValueAxis,
    lang: Lang,
) -> Done<DB> {
    let label = |v: &f64| category_label(names, *v);
    let height = chart.plotting_area().dim_in_pixel().1;
    let desc = match axis.log_from {
        Some(_) => format!("{} ({})", t(lang, axis.unit), t(lang, K::LogScale)),
        None => t(lang, axis.unit).to_string(),
    };
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(p.bars.len() + 2)
        .y_labels(ticks(height, 28))
        .x_label_formatter(&label)
        .y_desc(desc)
        .label_style(font(12.0))
        .axis_desc_style(font(12.0))
        .y_label_formatter(&|v| tick(*v))
        .max_light_lines(1)
        .light_line_style(light_grid())
        .bold_line_style(bold_grid())
        .draw()?;
    for (j, bar) in p.bars.iter().enumerate() {
        let name = &s.plans[bar.plan];
        bar_at(&mut chart, hits, j as f64, bar, axis, name, lang, p.metric)?;
    }
    Ok(())
}

/// One stacked bar and its error bar at category `x`. On a logarithmic
/// axis the stack starts at the axis's bottom instead of zero, and each
/// segment spans its cumulative range, so the bar's top is its total.
#[allow(clippy::too_many_arguments)]
fn bar_at<DB: DrawingBackend, Y: Ranged<ValueType = f64>>(
    chart: &mut Chart<'_, DB, Y>,
    hits: &mut Vec<Hit>,
    x: f64,
    bar: &TimeBar,
    axis: ValueAxis,
    name: &str,
    lang: Lang,
    metric: TimeMetric,
) -> Done<DB> {
    let (x0, x1) = (x - 0.22, x + 0.22);
    let floor = axis.log_from.unwrap_or(0.0);
    let mut sum = 0.0;
    for &(kind, secs) in &bar.segments {
        let y0 = (sum * axis.scale).max(floor);
        sum += secs.as_secs();
        let y1 = (sum * axis.scale).max(floor);
        chart.draw_series(std::iter::once(Rectangle::new(
            [(x0, y0), (x1, y1)],
            palette::time(kind).filled(),
        )))?;
        let share = if bar.total.as_secs() > 0.0 {
            pct(secs.as_secs() / bar.total.as_secs())
        } else {
            String::new()
        };
        hits.push(
            Hit::rect(
                chart.backend_coord(&(x0, y0)),
                chart.backend_coord(&(x1, y1)),
                format!(
                    "{name}\n{} · {}\n{} ({share})",
                    metric_name(lang, metric),
                    kind.name(lang),
                    duration(secs)
                ),
            )
            .with_swatch(kind, palette::time(kind)),
        );
    }
    let (lo, hi) = (
        (bar.range.low.as_secs() * axis.scale).max(floor),
        (bar.range.high.as_secs() * axis.scale).max(floor),
    );
    let cap = 0.05;
    let ink = INK.stroke_width(1);
    chart.draw_series([
        PathElement::new(vec![(x, lo), (x, hi)], ink),
        PathElement::new(vec![(x - cap, lo), (x + cap, lo)], ink),
        PathElement::new(vec![(x - cap, hi), (x + cap, hi)], ink),
    ])?;
    hits.push(Hit::rect(
        chart.backend_coord(&(x - cap, lo)),
        chart.backend_coord(&(x + cap, hi)),
        format!(
            "{name}\n{}: {}",
            metric_name(lang, metric),
            duration_range(bar.total, bar.range.low, bar.range.high)
        ),
    ));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::draw::recorder::Recorder;
    use crate::charts::series::time_series;
    use crate::fixtures;
    use planner_core::report::{Interval, TimeKind};
    use planner_core::units::Seconds;

    fn bar(ms: f64) -> TimeBar {
        let t = Seconds::from_millis(ms);
        TimeBar {
            plan: 0,
            segments: vec![(TimeKind::WeightRead, t)],
            total: t,
            range: Interval { low: t, high: t },
        }
    }

    #[test]
    fn a_wide_span_turns_the_axis_logarithmic() {
        let near = value_axis(&[bar(20.0), bar(50.0)]);
        assert_eq!((near.unit, near.log_from), (K::Milliseconds, None));
        let wide = value_axis(&[bar(20.0), bar(3000.0)]);
        assert_eq!(wide.unit, K::Milliseconds);
        assert_eq!(wide.log_from, Some(10.0));
        assert!(wide.top >= 3000.0);
        let slow = value_axis(&[bar(2000.0), bar(3000.0)]);
        assert_eq!((slow.unit, slow.scale), (K::Seconds, 1.0));
        // A log axis up to tens of seconds ticks in seconds.
        let long = value_axis(&[bar(400.0), bar(14_000.0)]);
        assert_eq!((long.unit, long.log_from), (K::Seconds, Some(0.2)));
        // On the log axis a 20 ms bar is a good share of the panel's height.
        let s = TimeSeries {
            plans: vec!["fast".into(), "slow".into()],
            panels: vec![crate::charts::series::TimePanel {
                metric: TimeMetric::Tpot,
                bars: vec![bar(20.0), bar(3000.0)],
            }],
        };
        let area = Recorder::new(600, 300).into_drawing_area();
        let hits = draw(&area, &s, Lang::En).expect("draws");
        let fast = &hits[0];
        assert!(fast.y1 - fast.y0 >= 20, "{fast:?}");
    }

    #[test]
    fn draws_every_panel_in_both_languages() {
        let (plans, reports) = fixtures::three();
        let s = time_series(
            plans
                .iter()
                .zip(&reports)
                .map(|(p, r)| (p.name.as_str(), r)),
        );
        for lang in [Lang::En, Lang::Zh] {
            let area = Recorder::new(900, 360).into_drawing_area();
            let hits = draw(&area, &s, lang).expect("draws");
            let segments: usize = s
                .panels
                .iter()
                .flat_map(|p| &p.bars)
                .map(|b| b.segments.len() + 1)
                .sum();
            assert_eq!(hits.len(), segments);
        }
    }
}
