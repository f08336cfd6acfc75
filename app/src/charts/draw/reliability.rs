//! The reliability chart: goodput (left axis) and the checkpoint interval
//! (right axis, logarithmic) against the failure rate (logarithmic), from
//! the core's figures at each rate, with the plan's own rate marked. Both
//! curves fall as failures grow: more restarts and lost work, shorter
//! intervals and so more time saving.

use super::{bold_grid, font, light_grid, message, muted, Done, Drawn};
use crate::charts::hover::Hit;
use crate::charts::palette::{FRONT, WALL};
use crate::charts::series::ReliabilitySeries;
use crate::i18n::ops::{t, K};
use crate::i18n::Lang;
use crate::numfmt::{num, pct, span, tick};
use planner_core::checkpoint::RatePoint;
use plotters::chart::DualCoordChartContext;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

/// The interval's colour (the goodput's is the frontier blue).
const INTERVAL: RGBColor = RGBColor(191, 87, 0);

/// The read-out of one point.
pub fn readout(p: &RatePoint, lang: Lang) -> String {
    format!(
        "{}: {}\n{}: {}\n{}: {}\n{}: {}\n{}: {}",
        t(lang, K::RateAxis),
        num(p.failure_rate.as_per_year()),
        t(lang, K::Mtbi),
        span(p.mtbi),
        t(lang, K::Interval),
        span(p.interval),
        t(lang, K::Goodput),
        pct(p.goodput),
        t(lang, K::LostHours),
        num(p.lost_gpu_hours_per_day.as_gpu_hours()),
    )
}

/// Draws the series; returns a hover region per rate and one for the
/// plan's own point.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    s: &ReliabilitySeries,
    lang: Lang,
) -> Drawn<DB> {
    root.fill(&WHITE)?;
    let root = super::titled(root, t(lang, K::ReliabilityChart))?;
    let mut hits = Vec::new();
    let pts: Vec<&RatePoint> = s
        .points
        .iter()
        .filter(|p| p.failure_rate.base() > 0.0 && p.interval.base() > 0.0)
        .collect();
    let Some(first) = pts.first() else {
        message(&root, "—")?;
        return Ok(hits);
    };
    let floor = goodput_floor(&pts);
    let mut chart = axes(&root, &pts, floor, lang)?;
    curves(&mut chart, &pts)?;
    key(&mut chart, (rate(first) / 1.2, floor), lang)?;
    readouts(&chart, &mut hits, &pts, lang);
    if let Some(c) = &s.current {
        this_rate(&mut chart, &mut hits, c, floor, lang)?;
    }
    Ok(hits)
}

/// Goodput in % (left) and the interval in hours (right, logarithmic),
/// both against the failure rate (logarithmic).
type Chart<'a, DB> = DualCoordChartContext<
    'a,
    DB,
    Cartesian2d<LogCoord<f64>, RangedCoordf64>,
    Cartesian2d<LogCoord<f64>, LogCoord<f64>>,
>;

/// Failures per GPU-year: the x of a point.
fn rate(p: &RatePoint) -> f64 {
    p.failure_rate.as_per_year()
}

/// The checkpoint interval in hours: a point's y on the right axis.
fn hours(p: &RatePoint) -> f64 {
    p.interval.as_hours()
}

/// The bottom of the goodput axis: a little under the lowest goodput, so
/// the curve does not sit on the axis.
fn goodput_floor(pts: &[&RatePoint]) -> f64 {
    let low = pts.iter().map(|p| p.goodput * 100.0).fold(100.0, f64::min);
    (low - (100.0 - low) * 0.1 - 0.5).max(0.0)
}

/// The chart and both its axes: rates a little beyond the first and last,
/// goodput from `floor` to 100 %, intervals a little beyond their extremes.
fn axes<'a, DB: DrawingBackend>(
    root: &'a DrawingArea<DB, Shift>,
    pts: &[&RatePoint],
    floor: f64,
    lang: Lang,
) -> Result<Chart<'a, DB>, DrawingAreaErrorKind<DB::ErrorType>> {
    let (first, last) = (pts[0], pts[pts.len() - 1]);
    let x = rate(first) / 1.2..rate(last) * 1.2;
    let (h0, h1) = pts
        .iter()
        .map(|p| hours(p))
        .fold((f64::INFINITY, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
    let mut chart = ChartBuilder::on(root)
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .right_y_label_area_size(56)
        .build_cartesian_2d(x.clone().log_scale(), floor..100.0)?
        .set_secondary_coord(x.log_scale(), (h0 / 1.5..h1 * 1.5).log_scale());
    chart
        .configure_mesh()
        .x_desc(t(lang, K::RateAxis))
        .y_desc(t(lang, K::GoodputAxis))
        .x_label_formatter(&|v| tick(*v))
        .y_label_formatter(&|v| tick(*v))
        .label_style(font(12.0))
        .axis_desc_style(font(12.0))
        .max_light_lines(1)
        .light_line_style(light_grid())
        .bold_line_style(bold_grid())
        .draw()?;
    chart
        .configure_secondary_axes()
        .y_labels(6)
        .y_desc(t(lang, K::IntervalAxis))
        .y_label_formatter(&|v| tick(*v))
        .label_style(font(12.0).color(&INTERVAL))
        .axis_desc_style(font(12.0).color(&INTERVAL))
        .draw()?;
    Ok(chart)
}

/// Goodput and the interval as lines with a dot at each rate.
fn curves<DB: DrawingBackend>(chart: &mut Chart<'_, DB>, pts: &[&RatePoint]) -> Done<DB> {
    chart.draw_series(LineSeries::new(
        pts.iter().map(|p| (rate(p), p.goodput * 100.0)),
        FRONT.stroke_width(2),
    ))?;
    chart.draw_secondary_series(LineSeries::new(
        pts.iter().map(|p| (rate(p), hours(p))),
        INTERVAL.stroke_width(2),
    ))?;
    chart.draw_series(
        pts.iter()
            .map(|p| Circle::new((rate(p), p.goodput * 100.0), 3, FRONT.filled())),
    )?;
    chart.draw_secondary_series(
        pts.iter()
            .map(|p| Circle::new((rate(p), hours(p)), 3, INTERVAL.filled())),
    )?;
    Ok(())
}

/// The legend: two coloured lines of text at the bottom left of the plot
/// (`corner`), where both curves are high (they fall to the right).
fn key<DB: DrawingBackend>(chart: &mut Chart<'_, DB>, corner: (f64, f64), lang: Lang) -> Done<DB> {
    for (i, (k, c)) in [(K::Goodput, FRONT), (K::Interval, INTERVAL)]
        .iter()
        .enumerate()
    {
        let label = Text::new(
            t(lang, *k).to_string(),
            (8, -34 + 15 * i as i32),
            font(11.0).color(c),
        );
        chart.draw_series(std::iter::once(EmptyElement::at(corner) + label))?;
    }
    Ok(())
}

/// One read-out per rate: a band from the goodput point to the interval
/// point, so the pointer finds it anywhere between.
fn readouts<DB: DrawingBackend>(
    chart: &Chart<'_, DB>,
    hits: &mut Vec<Hit>,
    pts: &[&RatePoint],
    lang: Lang,
) {
    for p in pts {
        let a = chart.backend_coord(&(rate(p), p.goodput * 100.0));
        let b = chart.borrow_secondary().backend_coord(&(rate(p), hours(p)));
        hits.push(Hit::rect(
            (a.0 - 4, a.1.min(b.1) - 4),
            (a.0 + 4, a.1.max(b.1) + 4),
            readout(p, lang),
        ));
    }
}

/// The plan's own rate: a line down the plot, a dot on the goodput curve,
/// a label, and a read-out along the line.
fn this_rate<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    hits: &mut Vec<Hit>,
    c: &RatePoint,
    floor: f64,
    lang: Lang,
) -> Done<DB> {
    let (_, ys) = chart.plotting_area().get_pixel_range();
    let at = rate(c);
    let top = chart.backend_coord(&(at, 100.0));
    chart.draw_series(std::iter::once(PathElement::new(
        vec![(at, 100.0), (at, floor)],
        WALL.mix(0.6).stroke_width(1),
    )))?;
    chart.draw_series(std::iter::once(Circle::new(
        (at, c.goodput * 100.0),
        5,
        WALL.filled(),
    )))?;
    chart.draw_series(std::iter::once(
        EmptyElement::at((at, 100.0))
            + Text::new(t(lang, K::ThisRate).to_string(), (4, 2), muted(11.0)),
    ))?;
    hits.push(Hit::rect(
        (top.0 - 3, top.1),
        (top.0 + 3, ys.end),
        format!("{}\n{}", t(lang, K::ThisRate), readout(c, lang)),
    ));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::draw::recorder::Recorder;
    use crate::charts::series::reliability_series;
    use crate::fixtures;
    use planner_core::checkpoint::{checkpoint, failure_sweep, CheckpointSettings};

    #[test]
    fn a_region_per_rate_and_one_for_the_plan() {
        let p = fixtures::training();
        let settings = CheckpointSettings::default();
        let c = checkpoint(&p, &settings);
        let s = reliability_series(Some(&c), failure_sweep(&p, &settings));
        for lang in [Lang::En, Lang::Zh] {
            let area = Recorder::new(800, 360).into_drawing_area();
            let hits = draw(&area, &s, lang).expect("draws");
            assert_eq!(hits.len(), s.points.len() + 1);
            assert!(hits[0]
                .text
                .contains(&num(s.points[0].failure_rate.as_per_year())));
        }
        let empty = Recorder::new(800, 360).into_drawing_area();
        assert!(draw(&empty, &ReliabilitySeries::default(), Lang::En).is_ok_and(|h| h.is_empty()));
    }
}
