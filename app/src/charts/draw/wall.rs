//! The wall over time: each published model's memory on one GPU under the
//! active plan's levers (the climb), against each GPU's memory when it was
//! announced (the wall), by date; memory on a logarithmic axis, since the
//! models grew a thousandfold while GPU memory grew about tenfold.

use super::{bold_grid, font, light_grid, message, muted, text_width, ticks, Drawn, Placed};
use crate::charts::hover::Hit;
use crate::charts::palette::{FRONT, WALL};
use crate::i18n::ops::{t, K};
use crate::i18n::Lang;
use crate::numfmt::{gb, si, tick};
use planner_core::wall::{GpuWall, ModelNeed, WallSeries, YearMonth};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

/// The chart's coordinates: fractional years against GB on a log axis.
type Coords = Cartesian2d<RangedCoordf64, LogCoord<f64>>;

/// A month as `2020-05`.
pub fn month(d: YearMonth) -> String {
    format!("{}-{:02}", d.year, d.month)
}

/// The fewest GPUs of the series' kind and the memory each holds, or why
/// there is no count.
pub fn fewest(m: &ModelNeed, gpu: &str, lang: Lang) -> String {
    match (m.min_gpus, m.per_gpu) {
        (Some(n), Some(per)) => format!("{n} × {gpu}, {} {}", gb(per), t(lang, K::PerGpu)),
        _ => t(lang, K::BeyondSearch).to_string(),
    }
}

/// A model's read-out.
pub fn model_text(m: &ModelNeed, gpu: &str, lang: Lang) -> String {
    format!(
        "{} ({})\n{} {}\n{}: {}\n{}: {}",
        m.name,
        month(m.date),
        si(m.published_params),
        t(lang, K::Parameters),
        t(lang, K::OneGpu),
        gb(m.one_gpu),
        t(lang, K::FewestGpus),
        fewest(m, gpu, lang),
    )
}

/// A GPU's read-out.
pub fn gpu_text(g: &GpuWall, lang: Lang) -> String {
    format!(
        "{} ({}): {}\n{}",
        g.name,
        month(g.date),
        gb(g.capacity),
        t(lang, K::GpuMemory)
    )
}

/// Draws the wall; returns a hover region per model and per GPU.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    s: &WallSeries,
    lang: Lang,
) -> Drawn<DB> {
    root.fill(&WHITE)?;
    let root = super::titled(root, t(lang, K::WallTitle))?;
    let mut hits = Vec::new();
    let years = s
        .models
        .iter()
        .map(|m| m.date)
        .chain(s.gpus.iter().map(|g| g.date));
    let (y0, y1) = years.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), d| {
        (a.min(d.as_year()), b.max(d.as_year()))
    });
    let sizes = s
        .models
        .iter()
        .map(|m| m.one_gpu)
        .chain(s.gpus.iter().map(|g| g.capacity));
    let (lo, hi) = sizes
        .map(|b| b.as_gb())
        .filter(|v| *v > 0.0 && v.is_finite())
        .fold((f64::INFINITY, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
    if !(y0.is_finite() && lo.is_finite()) {
        message(&root, "—")?;
        return Ok(hits);
    }
    let mut chart = ChartBuilder::on(&root)
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(y0 - 0.6..y1 + 0.6, (lo / 2.0..hi * 3.0).log_scale())?;
    chart
        .configure_mesh()
        .x_desc(t(lang, K::Year))
        .y_desc(t(lang, K::GbAxis))
        .x_labels(ticks(root.dim_in_pixel().0.saturating_sub(72), 48))
        .y_labels(ticks(root.dim_in_pixel().1.saturating_sub(52), 28))
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| tick(*v))
        .label_style(font(12.0))
        .axis_desc_style(font(12.0))
        .max_light_lines(1)
        .light_line_style(light_grid())
        .bold_line_style(bold_grid())
        .draw()?;
    let gpu_at = |g: &GpuWall| (g.date.as_year(), g.capacity.as_gb());
    let model_at = |m: &ModelNeed| (m.date.as_year(), m.one_gpu.as_gb().max(lo));
    chart.draw_series(LineSeries::new(
        s.gpus.iter().map(gpu_at),
        WALL.stroke_width(2),
    ))?;
    chart.draw_series(s.gpus.iter().map(|g| {
        EmptyElement::at(gpu_at(g)) + Rectangle::new([(-3, -3), (3, 3)], WALL.filled())
    }))?;
    chart.draw_series(
        s.models
            .iter()
            .map(|m| Circle::new(model_at(m), 4, FRONT.filled())),
    )?;
    // Names where they do not overlap: models above their point, GPUs below.
    let mut placed = Placed::default();
    for (i, (k, c)) in [(K::ModelNeed, FRONT), (K::GpuMemory, WALL)]
        .iter()
        .enumerate()
    {
        let label = Text::new(
            t(lang, *k).to_string(),
            (8, 6 + 15 * i as i32),
            font(11.0).color(c),
        );
        let at = (y0 - 0.6, hi * 3.0);
        let (x, y) = chart.backend_coord(&at);
        placed.take(
            &[(x + 8, y + 6 + 15 * i as i32)],
            text_width(t(lang, *k), 11.0),
            13,
        );
        chart.draw_series(std::iter::once(EmptyElement::at(at) + label))?;
    }
    for m in &s.models {
        name_at(&mut chart, &mut placed, model_at(m), &m.name, true)?;
        hits.push(Hit::point(
            chart.backend_coord(&model_at(m)),
            5,
            model_text(m, &s.gpu, lang),
        ));
    }
    for g in &s.gpus {
        name_at(&mut chart, &mut placed, gpu_at(g), &g.name, false)?;
        hits.push(Hit::point(
            chart.backend_coord(&gpu_at(g)),
            5,
            gpu_text(g, lang),
        ));
    }
    Ok(hits)
}

/// A point's name next to it (above or below) where it overlaps no earlier
/// label; left out where there is no room (the read-out still names it).
fn name_at<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Coords>,
    placed: &mut Placed,
    at: (f64, f64),
    text: &str,
    above: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (x, y) = chart.backend_coord(&at);
    let (w, h) = (text_width(text, 10.0), 12);
    let dy = if above { -16 } else { 6 };
    let (xs, ys) = chart.plotting_area().get_pixel_range();
    let spots: Vec<(i32, i32)> = [
        (x - w / 2, y + dy),
        (x + 6, y + dy),
        (x - w - 6, y + dy),
        (x + 6, y - h / 2),
        (x - w - 6, y - h / 2),
    ]
    .into_iter()
    .filter(|&(px, py)| px >= xs.start && px + w <= xs.end && py >= ys.start && py + h <= ys.end)
    .collect();
    if let Some((px, py)) = placed.take(&spots, w, h) {
        let label = Text::new(text.to_string(), (px - x, py - y), muted(10.0));
        chart.draw_series(std::iter::once(EmptyElement::at(at) + label))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::draw::recorder::Recorder;
    use crate::fixtures;
    use planner_core::wall::wall;

    #[test]
    fn a_region_per_model_and_gpu_in_both_languages() {
        for plan in [fixtures::training(), fixtures::serving()] {
            let s = wall(&plan, &plan.hardware.gpu);
            for lang in [Lang::En, Lang::Zh] {
                let area = Recorder::new(900, 400).into_drawing_area();
                let hits = draw(&area, &s, lang).expect("draws");
                assert_eq!(hits.len(), s.models.len() + s.gpus.len());
            }
        }
        let m = &wall(&fixtures::training(), &fixtures::training().hardware.gpu).models[0];
        assert!(model_text(m, "H100", Lang::Zh).contains("参数量"));
        assert_eq!(month(m.date).len(), 7);
    }
}
