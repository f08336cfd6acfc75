//! The time chart: one panel per metric (step time, or TTFT and TPOT), a
//! stacked bar of exposed time parts per plan, and the expected range as
//! an error bar.

use super::{
    bold_grid, category_label, font, label_chars, legend, legend_width, light_grid, Done, Drawn,
    LegendEntry, LinearChart,
};
use crate::charts::hover::Hit;
use crate::charts::palette::{self, INK};
use crate::charts::series::{TimeBar, TimeMetric, TimeSeries};
use crate::i18n::results::{t, K};
use crate::i18n::Lang;
use crate::numfmt::{duration, duration_range, pct, short, tick};
use planner_core::Named;
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
    let root = root.titled(t(lang, K::TimeTitle), font(14.0))?;
    let mut hits = Vec::new();
    if s.panels.is_empty() {
        return Ok(hits);
    }
    let (w, _) = root.dim_in_pixel();
    let (area, side) = root.split_horizontally(w - legend_width(w));
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
    for ((panel, p), w) in panels.iter().zip(&s.panels).zip(&weights) {
        let chars = label_chars((total_w * w / sum - 70.0) / (w - 1.0).max(1.0));
        let top = p
            .bars
            .iter()
            .map(|b| b.total.max(b.range.high).as_secs())
            .fold(0.0, f64::max);
        // Milliseconds below a second, so the axis never reads 0.00…
        let (scale, unit) = if top >= 1.0 {
            (1.0, K::Seconds)
        } else {
            (1e3, K::Milliseconds)
        };
        let names: Vec<String> = p
            .bars
            .iter()
            .map(|b| short(&s.plans[b.plan], chars))
            .collect();
        let label = |v: &f64| category_label(&names, *v);
        let mut chart = ChartBuilder::on(panel)
            .caption(metric_name(lang, p.metric), font(13.0))
            .margin(8)
            .x_label_area_size(26)
            .y_label_area_size(54)
            .build_cartesian_2d(
                -0.5f64..(p.bars.len() as f64 - 0.5),
                0f64..(top * scale * 1.12).max(1e-9),
            )?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(p.bars.len() + 2)
            .x_label_formatter(&label)
            .y_desc(t(lang, unit))
            .label_style(font(12.0))
            .axis_desc_style(font(12.0))
            .y_label_formatter(&|v| tick(*v))
            .max_light_lines(1)
            .light_line_style(light_grid())
            .bold_line_style(bold_grid())
            .draw()?;
        for (j, bar) in p.bars.iter().enumerate() {
            let name = &s.plans[bar.plan];
            bar_at(
                &mut chart, &mut hits, j as f64, bar, scale, name, lang, p.metric,
            )?;
        }
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
    legend(&side, &entries)?;
    Ok(hits)
}

/// One stacked bar and its error bar at category `x`.
#[allow(clippy::too_many_arguments)]
fn bar_at<DB: DrawingBackend>(
    chart: &mut LinearChart<'_, DB>,
    hits: &mut Vec<Hit>,
    x: f64,
    bar: &TimeBar,
    scale: f64,
    name: &str,
    lang: Lang,
    metric: TimeMetric,
) -> Done<DB> {
    let (x0, x1) = (x - 0.22, x + 0.22);
    let mut y = 0.0;
    for &(kind, secs) in &bar.segments {
        let y1 = y + secs.as_secs() * scale;
        chart.draw_series(std::iter::once(Rectangle::new(
            [(x0, y), (x1, y1)],
            palette::time(kind).filled(),
        )))?;
        let share = if bar.total.as_secs() > 0.0 {
            pct(secs.as_secs() / bar.total.as_secs())
        } else {
            String::new()
        };
        hits.push(Hit::rect(
            chart.backend_coord(&(x0, y)),
            chart.backend_coord(&(x1, y1)),
            format!(
                "{name}\n{} · {}\n{} ({share})",
                metric_name(lang, metric),
                kind.name(lang),
                duration(secs)
            ),
        ));
        y = y1;
    }
    let (lo, hi) = (
        bar.range.low.as_secs() * scale,
        bar.range.high.as_secs() * scale,
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
