//! The sweep chart: HBM per GPU of the active plan along one axis, its
//! expected range as a band, each point coloured by verdict, and the HBM of
//! several GPUs as horizontal walls. Both axes are logarithmic: memory
//! grows as a power of the swept value, so the curve reads as a line and
//! the walls stay visible next to points a thousand times above them.

use super::{
    bold_grid, fit, font, light_grid, message, muted, text_width, ticks, Done, Drawn, Placed,
};
use crate::charts::hover::Hit;
use crate::charts::palette::{self, INK, WALL};
use crate::i18n::results::{t, K};
use crate::i18n::Lang;
use crate::numfmt::{gib, si, tick};
use planner_core::sweep::{SweepPoint, SweepResult};
use planner_core::units::Bytes;
use planner_core::workspace::SweepAxis;
use planner_core::Named;
use plotters::coord::Shift;
use plotters::prelude::*;

/// The swept axis's name.
pub fn axis_name(lang: Lang, a: SweepAxis) -> &'static str {
    match a {
        SweepAxis::SequenceLength => t(lang, K::AxisSeqLen),
        SweepAxis::Batch => t(lang, K::AxisBatch),
        SweepAxis::ModelSize => t(lang, K::AxisModelSize),
    }
}

/// Draws a sweep; returns a hover region per point and per wall.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    s: &SweepResult,
    lang: Lang,
) -> Drawn<DB> {
    root.fill(&WHITE)?;
    let root = super::titled(root, t(lang, K::SweepTitle))?;
    let mut hits = Vec::new();
    let pts: Vec<_> = s
        .points
        .iter()
        .filter(|p| p.x > 0.0 && p.x.is_finite())
        .collect();
    let (Some(first), Some(last)) = (pts.first(), pts.last()) else {
        message(&root, t(lang, K::NotAvailable))?;
        return Ok(hits);
    };
    let span = (first.x, last.x);
    let mut chart = axes(&root, s, &pts, span, lang)?;
    band_and_line(&mut chart, &pts)?;
    walls(&mut chart, &mut hits, s, span, lang)?;
    points(&mut chart, &mut hits, s, &pts, lang)?;
    Ok(hits)
}

/// A chart on two logarithmic axes.
type LogChart<'a, DB> = ChartContext<'a, DB, Cartesian2d<LogCoord<f64>, LogCoord<f64>>>;

/// The chart: the swept values (a little beyond the first and last) across,
/// HBM per GPU up, from a little under the lowest value drawn (a range's
/// low end, a point, a wall) to a little over the highest.
fn axes<'a, DB: DrawingBackend>(
    root: &'a DrawingArea<DB, Shift>,
    s: &SweepResult,
    pts: &[&SweepPoint],
    (first, last): (f64, f64),
    lang: Lang,
) -> Result<LogChart<'a, DB>, DrawingAreaErrorKind<DB::ErrorType>> {
    let ys = pts
        .iter()
        .flat_map(|p| [p.hbm_low, p.hbm_used, p.hbm_high])
        .chain(s.walls.iter().map(|w| w.capacity))
        .map(|b| b.as_gib())
        .filter(|v| *v > 0.0);
    let (bottom, top) = ys.fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    let (bottom, top) = if bottom.is_finite() {
        (bottom / 1.5, top * 1.5)
    } else {
        (0.1, 1.0)
    };
    let mut chart = ChartBuilder::on(root)
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(
            (first / 1.4..last * 1.4).log_scale(),
            (bottom..top).log_scale(),
        )?;
    let x_label = |v: &f64| si(*v);
    chart
        .configure_mesh()
        .x_desc(axis_name(lang, s.axis))
        .y_desc(t(lang, K::HbmUsed))
        .x_labels(ticks(root.dim_in_pixel().0.saturating_sub(72), 56))
        .y_labels(ticks(root.dim_in_pixel().1.saturating_sub(52), 28))
        .x_label_formatter(&x_label)
        .label_style(font(12.0))
        .axis_desc_style(font(12.0))
        .y_label_formatter(&|v| tick(*v))
        .max_light_lines(1)
        .light_line_style(light_grid())
        .bold_line_style(bold_grid())
        .draw()?;
    Ok(chart)
}

/// The expected range as a band, and the HBM used as a line over it.
fn band_and_line<DB: DrawingBackend>(
    chart: &mut LogChart<'_, DB>,
    pts: &[&SweepPoint],
) -> Done<DB> {
    let band: Vec<(f64, f64)> = pts
        .iter()
        .map(|p| (p.x, p.hbm_low.as_gib()))
        .chain(pts.iter().rev().map(|p| (p.x, p.hbm_high.as_gib())))
        .collect();
    chart.draw_series(std::iter::once(Polygon::new(band, INK.mix(0.08).filled())))?;
    chart.draw_series(LineSeries::new(
        pts.iter().map(|p| (p.x, p.hbm_used.as_gib())),
        INK.stroke_width(2),
    ))?;
    Ok(())
}

/// Each wall (GPUs of equal HBM merged) as a dashed line across the chart,
/// named where its name overlaps no other.
fn walls<DB: DrawingBackend>(
    chart: &mut LogChart<'_, DB>,
    hits: &mut Vec<Hit>,
    s: &SweepResult,
    (first, last): (f64, f64),
    lang: Lang,
) -> Done<DB> {
    let mut placed = Placed::within(chart.plotting_area().get_pixel_range());
    for (capacity, names) in merged_walls(s) {
        let y = capacity.as_gib();
        let (x0, x1) = (first / 1.4, last * 1.4);
        chart.draw_series(DashedLineSeries::new(
            vec![(x0, y), (x1, y)],
            6,
            4,
            WALL.stroke_width(1),
        ))?;
        let label = format!("{} · {}", names.join(", "), gib(capacity));
        wall_label(chart, &mut placed, &label, (first, y))?;
        let (a, b) = (chart.backend_coord(&(x0, y)), chart.backend_coord(&(x1, y)));
        hits.push(Hit::rect(
            (a.0, a.1 - 3),
            (b.0, b.1 + 3),
            format!("{}: {label}", t(lang, K::HbmCapacity)),
        ));
    }
    Ok(())
}

/// A wall's name: above the line at the left, else further along or below
/// it, so walls close together keep readable names; left out when every
/// spot is taken.
fn wall_label<DB: DrawingBackend>(
    chart: &mut LogChart<'_, DB>,
    placed: &mut Placed,
    label: &str,
    (first, y): (f64, f64),
) -> Done<DB> {
    let (lx, ly) = chart.backend_coord(&(first, y));
    let label = &fit(label, 11.0, placed.max_width());
    let (w, h) = (text_width(label, 11.0), 13);
    let spots: Vec<(i32, i32)> = [0, 1, 2]
        .iter()
        .flat_map(|k| {
            [
                (lx + 2 + k * (w + 16), ly - 15),
                (lx + 2 + k * (w + 16), ly + 3),
            ]
        })
        .collect();
    if let Some((x, y_px)) = placed.take(&spots, w, h) {
        chart.draw_series(std::iter::once(
            EmptyElement::at((first, y))
                + Text::new(label.to_string(), (x - lx, y_px - ly), muted(11.0)),
        ))?;
    }
    Ok(())
}

/// Each point as a dot coloured by its verdict.
fn points<DB: DrawingBackend>(
    chart: &mut LogChart<'_, DB>,
    hits: &mut Vec<Hit>,
    s: &SweepResult,
    pts: &[&SweepPoint],
    lang: Lang,
) -> Done<DB> {
    for p in pts {
        let c = (p.x, p.hbm_used.as_gib());
        chart.draw_series(std::iter::once(Circle::new(
            c,
            4,
            palette::verdict(p.verdict).filled(),
        )))?;
        hits.push(Hit::point(
            chart.backend_coord(&c),
            5,
            format!(
                "{}: {}\n{} ({}: {}–{})\n{}",
                axis_name(lang, s.axis),
                p.label,
                gib(p.hbm_used),
                t(lang, K::Range),
                gib(p.hbm_low),
                gib(p.hbm_high),
                p.verdict.name(lang)
            ),
        ));
    }
    Ok(())
}

/// Walls of equal capacity (within 1 %) as one line naming every GPU, so
/// the labels of the A100 80GB and the H100 do not print over each other.
pub fn merged_walls(s: &SweepResult) -> Vec<(Bytes, Vec<String>)> {
    let mut out: Vec<(Bytes, Vec<String>)> = Vec::new();
    for w in &s.walls {
        let near = |c: &Bytes| (c.base() - w.capacity.base()).abs() <= 0.01 * w.capacity.base();
        match out.iter_mut().find(|(c, _)| near(c)) {
            Some((_, names)) => names.push(w.name.clone()),
            None => out.push((w.capacity, vec![w.name.clone()])),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::draw::recorder::Recorder;
    use crate::fixtures;
    use planner_core::catalog::GpuId;
    use planner_core::sweep::sweep;

    #[test]
    fn every_axis_draws_a_region_per_point_and_wall() {
        let walls = [GpuId::A100Sxm80, GpuId::H100Sxm, GpuId::B200];
        let merged = merged_walls(&sweep(&fixtures::serving(), SweepAxis::Batch, &walls));
        assert_eq!(merged.len(), 2, "A100 80GB and H100 share a line");
        for axis in [
            SweepAxis::SequenceLength,
            SweepAxis::Batch,
            SweepAxis::ModelSize,
        ] {
            let s = sweep(&fixtures::serving(), axis, &walls);
            for lang in [Lang::En, Lang::Zh] {
                let area = Recorder::new(800, 360).into_drawing_area();
                let hits = draw(&area, &s, lang).expect("draws");
                assert_eq!(hits.len(), s.points.len() + merged_walls(&s).len());
            }
        }
    }
}
