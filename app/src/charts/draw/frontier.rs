//! The frontier chart: every plan as a point of latency against cost,
//! marked by family, hollow when it does not fit, with the Pareto frontier
//! of the plans that fit as a line. The latency axis turns logarithmic when
//! the plans' latencies span more than twenty times (a serving TPOT next
//! to training steps).

use super::{
    bold_grid, fit, font, legend, light_grid, message, muted, text_width, ticks, Done, Drawn,
    LegendEntry, Placed,
};
use crate::charts::draw::time::metric_name;
use crate::charts::hover::Hit;
use crate::charts::palette::{self, Marker, FRONT, MUTED};
use crate::charts::series::{CostMetric, FrontierPoint, FrontierSeries};
use crate::i18n::results::{t, K};
use crate::i18n::Lang;
use crate::numfmt::{duration, num, tick, usd};
use planner_core::effort::PlanFamily;
use planner_core::report::Verdict;
use planner_core::units::Usd;
use planner_core::Named;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// The cost axis's name.
pub fn metric_name_of(lang: Lang, m: CostMetric) -> &'static str {
    match m {
        CostMetric::UsdPerMillionTokens => t(lang, K::UsdPerMTok),
        CostMetric::GpuHoursPerRun => t(lang, K::GpuHoursPerRun),
    }
}

fn cost_text(m: CostMetric, v: f64) -> String {
    match m {
        CostMetric::UsdPerMillionTokens => usd(Usd::new(v)),
        CostMetric::GpuHoursPerRun => num(v),
    }
}

/// The vertices of a marker around (0, 0), in pixels; `None` for a circle.
fn outline(m: Marker) -> Option<Vec<(i32, i32)>> {
    match m {
        Marker::Circle => None,
        Marker::Square => Some(vec![(-5, -5), (5, -5), (5, 5), (-5, 5)]),
        Marker::Triangle => Some(vec![(0, -7), (6, 4), (-6, 4)]),
        Marker::Diamond => Some(vec![(0, -7), (7, 0), (0, 7), (-7, 0)]),
    }
}

/// Draws the frontier series; returns a hover region per point.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    s: &FrontierSeries,
    lang: Lang,
) -> Drawn<DB> {
    root.fill(&WHITE)?;
    let root = super::titled(root, t(lang, K::FrontierTitle))?;
    let Some(metric) = s.metric.filter(|_| !s.points.is_empty()) else {
        message(
            &root,
            &format!("{} {}", t(lang, K::NotPlaced), s.unplaced.join(", ")),
        )?;
        return Ok(Vec::new());
    };
    let entries = legend_entries(s, lang);
    let (area, side) = super::split_legend(&root, entries.len());
    let xs = s
        .points
        .iter()
        .map(|p| p.latency.as_secs())
        .filter(|x| *x > 0.0);
    let (min_x, max_x) = xs.fold((f64::INFINITY, 0.0f64), |(lo, hi), x| {
        (lo.min(x), hi.max(x))
    });
    let max_y = s.points.iter().map(|p| p.cost).fold(0.0, f64::max);
    let (scale, unit) = if max_x >= 1.0 {
        (1.0, K::Seconds)
    } else {
        (1e3, K::Milliseconds)
    };
    let x_desc = format!("{} ({})", t(lang, K::LatencyAxis), t(lang, unit));
    let y = 0f64..(max_y * 1.2).max(1e-9);
    let mut builder = ChartBuilder::on(&area);
    builder
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60);
    if min_x.is_finite() && max_x / min_x > 20.0 {
        let x = (min_x * scale / 2.0..max_x * scale * 2.0).log_scale();
        plot(
            builder.build_cartesian_2d(x, y)?,
            &side,
            s,
            lang,
            metric,
            scale,
            x_desc,
        )
    } else {
        plot(
            builder.build_cartesian_2d(0f64..(max_x * scale * 1.2).max(1e-9), y)?,
            &side,
            s,
            lang,
            metric,
            scale,
            x_desc,
        )
    }
}

/// A built frontier chart: latency across (linear or logarithmic), cost up.
type Chart<'a, DB, X> = ChartContext<'a, DB, Cartesian2d<X, RangedCoordf64>>;

/// Draws the mesh, the frontier, the points and the legend on a built chart.
fn plot<DB: DrawingBackend, X: Ranged<ValueType = f64> + ValueFormatter<f64>>(
    mut chart: Chart<'_, DB, X>,
    side: &DrawingArea<DB, Shift>,
    s: &FrontierSeries,
    lang: Lang,
    metric: CostMetric,
    scale: f64,
    x_desc: String,
) -> Drawn<DB> {
    let (x_px, y_px) = chart.plotting_area().dim_in_pixel();
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(metric_name_of(lang, metric))
        .x_labels(ticks(x_px, 64))
        .y_labels(ticks(y_px, 28))
        .label_style(font(12.0))
        .axis_desc_style(font(12.0))
        .x_label_formatter(&|v| tick(*v))
        .y_label_formatter(&|v| tick(*v))
        .max_light_lines(1)
        .light_line_style(light_grid())
        .bold_line_style(bold_grid())
        .draw()?;
    chart.draw_series(LineSeries::new(
        s.front.iter().map(|&i| at(&s.points[i], scale)),
        FRONT.stroke_width(2),
    ))?;
    let mut hits = Vec::new();
    let mut labels = Placed::within(chart.plotting_area().get_pixel_range());
    // Every marker first, so no name is drawn over another point (issue
    // 15: at 390 px labels covered markers).
    for p in &s.points {
        let (x, y) = chart.backend_coord(&at(p, scale));
        labels.block((x - 8, y - 8, x + 8, y + 8));
    }
    for (i, p) in s.points.iter().enumerate() {
        point(&mut chart, p, scale)?;
        if p.assumed_price.is_some() {
            // A dashed-looking ring: the price is an assumption.
            chart.draw_series(std::iter::once(Circle::new(
                at(p, scale),
                11,
                MUTED.stroke_width(1),
            )))?;
        }
        let c = chart.backend_coord(&at(p, scale));
        hits.push(
            Hit::point(c, 7, point_readout(p, s.front.contains(&i), metric, lang))
                .with_swatch(p.family, palette::family(p.family).0),
        );
        name_label(&mut chart, &mut labels, p, scale)?;
    }
    legend(side, &legend_entries(s, lang))?;
    Ok(hits)
}

/// Where a point sits: its latency (in the axis's unit) and its cost.
fn at(p: &FrontierPoint, scale: f64) -> (f64, f64) {
    (p.latency.as_secs() * scale, p.cost)
}

/// A point's marker in its family's colour and shape: filled when the plan
/// fits, an outline when it does not.
fn point<DB: DrawingBackend, X: Ranged<ValueType = f64>>(
    chart: &mut Chart<'_, DB, X>,
    p: &FrontierPoint,
    scale: f64,
) -> Done<DB> {
    let (color, marker) = palette::family(p.family);
    let fits = p.verdict == Verdict::Fits;
    let style = if fits {
        color.filled()
    } else {
        color.stroke_width(2)
    };
    match (outline(marker), fits) {
        (None, _) => chart.draw_series(std::iter::once(Circle::new(at(p, scale), 6, style)))?,
        (Some(v), true) => chart.draw_series(std::iter::once(
            EmptyElement::at(at(p, scale)) + Polygon::new(v, style),
        ))?,
        (Some(mut v), false) => {
            v.push(v[0]);
            chart.draw_series(std::iter::once(
                EmptyElement::at(at(p, scale)) + PathElement::new(v, style),
            ))?
        }
    };
    Ok(())
}

/// A point's read-out: name, family, verdict, latency and cost, whether
/// the frontier joins it, and the price's source when it is assumed.
fn point_readout(p: &FrontierPoint, on_front: bool, metric: CostMetric, lang: Lang) -> String {
    let mut text = format!(
        "{}\n{} · {}\n{}: {}\n{}: {}",
        p.name,
        p.family.name(lang),
        p.verdict.name(lang),
        metric_name(lang, p.latency_metric),
        duration(p.latency),
        metric_name_of(lang, metric),
        cost_text(metric, p.cost)
    );
    // The text alternative says which points the frontier line joins.
    if on_front {
        text.push_str(&format!("\n{}", t(lang, K::Pareto)));
    }
    if let Some(src) = &p.assumed_price {
        text.push_str(&format!("\n{}: {src}", t(lang, K::PriceAssumed)));
    }
    text
}

/// A name beside the point where it overlaps no other name; none when
/// every spot is taken.
fn name_label<DB: DrawingBackend, X: Ranged<ValueType = f64>>(
    chart: &mut Chart<'_, DB, X>,
    labels: &mut Placed,
    p: &FrontierPoint,
    scale: f64,
) -> Done<DB> {
    let c = chart.backend_coord(&at(p, scale));
    let (x0, x1) = labels.x_range();
    // Right of the point, else left, each shortened to the room on its
    // side (at most 150 px), and only while at least three characters stay.
    // The width estimate runs short for Latin capitals and digits, so the
    // box placed is a fifth wider than the estimate, and a name on the
    // left is anchored at its right end, next to its own marker.
    for right in [true, false] {
        let room = if right { x1 - c.0 - 10 } else { c.0 - 10 - x0 };
        let name = fit(&p.name, 11.0, room.min(150) * 5 / 6);
        if name.chars().filter(|ch| *ch != '…').count() < 3 {
            continue;
        }
        let (w, h) = (text_width(&name, 11.0) * 6 / 5, 13);
        let x = if right { c.0 + 9 } else { c.0 - 9 - w };
        if let Some((_, y)) = labels.take(&[(x, c.1 - 15), (x, c.1 + 3)], w, h) {
            let (dx, anchor) = if right {
                (9, HPos::Left)
            } else {
                (-9, HPos::Right)
            };
            let style = muted(11.0).pos(Pos::new(anchor, VPos::Top));
            chart.draw_series(std::iter::once(
                EmptyElement::at(at(p, scale)) + Text::new(name, (dx, y - c.1), style),
            ))?;
            break;
        }
    }
    Ok(())
}

/// The legend: the families drawn, the frontier, and the outline of plans
/// that do not fit when there are any.
fn legend_entries(s: &FrontierSeries, lang: Lang) -> Vec<LegendEntry> {
    let mut entries: Vec<LegendEntry> = [
        PlanFamily::Baseline,
        PlanFamily::Algorithmic,
        PlanFamily::Hardware,
        PlanFamily::Hybrid,
    ]
    .into_iter()
    .filter(|f| s.points.iter().any(|p| p.family == *f))
    .map(|f| LegendEntry {
        label: f.name(lang).to_string(),
        color: palette::family(f).0.to_rgba(),
        line: false,
    })
    .collect();
    entries.push(LegendEntry {
        label: t(lang, K::Pareto).to_string(),
        color: FRONT.to_rgba(),
        line: true,
    });
    if s.points.iter().any(|p| p.assumed_price.is_some()) {
        entries.push(LegendEntry {
            label: format!("○ {}", t(lang, K::PriceAssumed)),
            color: MUTED.to_rgba(),
            line: true,
        });
    }
    if s.points.iter().any(|p| p.verdict != Verdict::Fits) {
        entries.push(LegendEntry {
            label: t(lang, K::Unfit).to_string(),
            color: MUTED.to_rgba(),
            line: true,
        });
    }
    entries
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::draw::recorder::Recorder;
    use crate::charts::series::frontier_series;
    use crate::fixtures;

    #[test]
    fn one_hover_region_per_point_on_linear_and_log_axes() {
        let (plans, reports) = fixtures::three();
        // Training only (linear), then with the serving plan (log).
        for n in [1, 3] {
            let s = frontier_series(&plans[..n], &reports[..n]);
            for lang in [Lang::En, Lang::Zh] {
                let area = Recorder::new(800, 360).into_drawing_area();
                let hits = draw(&area, &s, lang).expect("draws");
                assert_eq!(hits.len(), s.points.len());
            }
        }
        let empty = Recorder::new(400, 300).into_drawing_area();
        assert!(draw(&empty, &FrontierSeries::default(), Lang::En)
            .expect("draws")
            .is_empty());
    }

    #[test]
    fn the_text_alternative_names_the_frontier_points() {
        let ws = crate::presets::default_workspace(Lang::En);
        let reports: Vec<_> = ws.plans.iter().map(planner_core::evaluate).collect();
        let s = frontier_series(&ws.plans, &reports);
        assert!(s.front.len() >= 2, "{:?}", s.front);
        let area = Recorder::new(900, 360).into_drawing_area();
        let hits = draw(&area, &s, Lang::En).expect("draws");
        let marked = hits
            .iter()
            .filter(|h| h.text.contains("\nPareto frontier"))
            .count();
        assert_eq!(marked, s.front.len());
    }
}
