//! The memory chart: per plan, one stacked bar per tier of the binding
//! device, a whisker for the expected range, and the HBM capacity as a
//! dashed wall across the plan's column.

use super::{
    bold_grid, category_label, category_names, fit, font, legend, light_grid, muted, text_width,
    ticks, Done, Drawn, LegendEntry, LinearChart, Placed,
};
use crate::charts::hover::Hit;
use crate::charts::palette::{self, INK, WALL};
use crate::charts::series::{MemoryBar, MemoryPlan, MemorySeries};
use crate::i18n::results::{t, K};
use crate::i18n::Lang;
use crate::numfmt::{gib, tick};
use planner_core::plan::Tier;
use planner_core::Named;
use plotters::coord::Shift;
use plotters::prelude::*;

/// Draws the memory series; returns a hover region per segment, whisker
/// and wall.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    s: &MemorySeries,
    lang: Lang,
) -> Drawn<DB> {
    root.fill(&WHITE)?;
    let root = super::titled(root, t(lang, K::MemoryTitle))?;
    let mut hits = Vec::new();
    if s.plans.is_empty() {
        return Ok(hits);
    }
    let entries = legend_entries(s, lang);
    let (area, side) = super::split_legend(&root, entries.len());
    let mut chart = axes(&area, s, lang)?;
    let mut labels = Placed::within(chart.plotting_area().get_pixel_range());
    for (i, plan) in s.plans.iter().enumerate() {
        column(&mut chart, &mut hits, &mut labels, s, i, plan, lang)?;
    }
    legend(&side, &entries)?;
    Ok(hits)
}

/// The chart: one column per plan (named, as far as the names fit), GiB
/// per GPU up to a little above the highest bar, whisker or wall.
fn axes<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    s: &MemorySeries,
    lang: Lang,
) -> Result<LinearChart<'a, DB>, DrawingAreaErrorKind<DB::ErrorType>> {
    let n = s.plans.len();
    let top = (s.top().as_gib() * 1.12).max(1.0);
    let (w, h) = area.dim_in_pixel();
    let per = (w as i32 - 70) / n.max(1) as i32 - 8;
    let plans: Vec<(usize, &str)> = s
        .plans
        .iter()
        .enumerate()
        .map(|(i, p)| (i, p.name.as_str()))
        .collect();
    let names = category_names(&plans, 12.0, per);
    let label = |v: &f64| category_label(&names, *v);
    let mut chart = ChartBuilder::on(area)
        .margin(8)
        .x_label_area_size(26)
        .y_label_area_size(54)
        .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), 0f64..top)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n + 2)
        .y_labels(ticks(h, 28))
        .x_label_formatter(&label)
        .y_desc(t(lang, K::GibPerGpu))
        .label_style(font(12.0))
        .axis_desc_style(font(12.0))
        .y_label_formatter(&|v| tick(*v))
        .max_light_lines(1)
        .light_line_style(light_grid())
        .bold_line_style(bold_grid())
        .draw()?;
    Ok(chart)
}

/// Plan `i`'s column: a bar per tier, each with its whisker and, when it
/// is not the lone HBM bar, its tier's name; then the plan's wall.
fn column<DB: DrawingBackend>(
    chart: &mut LinearChart<'_, DB>,
    hits: &mut Vec<Hit>,
    labels: &mut Placed,
    s: &MemorySeries,
    i: usize,
    plan: &MemoryPlan,
    lang: Lang,
) -> Done<DB> {
    let bars: Vec<_> = s.bars.iter().filter(|b| b.plan == i).collect();
    let m = bars.len().max(1) as f64;
    // Bars no wider than 0.4 of a column, the group centred on it.
    let width = (0.76 / m).min(0.4);
    let start = i as f64 - width * m / 2.0;
    for (j, bar) in bars.iter().enumerate() {
        let x0 = start + j as f64 * width + 0.02;
        let x = (x0, x0 + width - 0.04);
        segments(chart, hits, plan, bar, x, lang)?;
        whisker(chart, hits, plan, bar, x, lang)?;
        if bars.len() > 1 || bar.tier != Tier::Hbm {
            tier_label(chart, labels, bar, (x0, x0 + width), lang)?;
        }
    }
    wall(chart, hits, i, plan, lang)
}

/// A bar's segments, stacked from zero, one per item kind, between `x.0`
/// and `x.1`.
fn segments<DB: DrawingBackend>(
    chart: &mut LinearChart<'_, DB>,
    hits: &mut Vec<Hit>,
    plan: &MemoryPlan,
    bar: &MemoryBar,
    (x0, x1): (f64, f64),
    lang: Lang,
) -> Done<DB> {
    let role = plan.role.name(lang);
    let tier = bar.tier.name(lang);
    let mut y = 0.0;
    for &(kind, bytes) in &bar.segments {
        let y1 = y + bytes.as_gib();
        chart.draw_series(std::iter::once(Rectangle::new(
            [(x0, y), (x1, y1)],
            palette::item(kind).filled(),
        )))?;
        hits.push(
            Hit::rect(
                chart.backend_coord(&(x0, y)),
                chart.backend_coord(&(x1, y1)),
                format!(
                    "{}\n{} · {} · {}\n{}: {}",
                    plan.name,
                    role,
                    tier,
                    kind.name(lang),
                    gib(bytes),
                    pct_of(bytes.base(), bar.used.base())
                ),
            )
            .with_swatch(kind, palette::item(kind)),
        );
        y = y1;
    }
    Ok(())
}

/// The expected range as a whisker with caps, centred on the bar; none
/// when the range is empty.
fn whisker<DB: DrawingBackend>(
    chart: &mut LinearChart<'_, DB>,
    hits: &mut Vec<Hit>,
    plan: &MemoryPlan,
    bar: &MemoryBar,
    (x0, x1): (f64, f64),
    lang: Lang,
) -> Done<DB> {
    let (lo, hi) = (bar.range.low.as_gib(), bar.range.high.as_gib());
    if hi <= lo {
        return Ok(());
    }
    let xc = (x0 + x1) / 2.0;
    let cap = ((x1 - x0) / 4.0).min(0.04);
    let ink = INK.stroke_width(1);
    chart.draw_series([
        PathElement::new(vec![(xc, lo), (xc, hi)], ink),
        PathElement::new(vec![(xc - cap, lo), (xc + cap, lo)], ink),
        PathElement::new(vec![(xc - cap, hi), (xc + cap, hi)], ink),
    ])?;
    hits.push(Hit::rect(
        chart.backend_coord(&(xc - cap, lo)),
        chart.backend_coord(&(xc + cap, hi)),
        format!(
            "{} · {}\n{}: {}\n{}: {}–{}",
            plan.name,
            bar.tier.name(lang),
            t(lang, K::Total),
            gib(bar.used),
            t(lang, K::Range),
            gib(bar.range.low),
            gib(bar.range.high)
        ),
    ));
    Ok(())
}

/// The tier's name above its bar (or above its whisker, if higher),
/// shortened to the bar's width; left out where it would cover another
/// label or leave the plot (the read-out names the tier).
fn tier_label<DB: DrawingBackend>(
    chart: &mut LinearChart<'_, DB>,
    labels: &mut Placed,
    bar: &MemoryBar,
    (x0, x1): (f64, f64),
    lang: Lang,
) -> Done<DB> {
    let top = bar.used.max(bar.range.high).as_gib();
    let (left, y) = chart.backend_coord(&(x0, top));
    let right = chart.backend_coord(&(x1, top)).0;
    let text = fit(bar.tier.name(lang), 11.0, (right - left).max(0));
    // The width estimate runs short for Latin capitals (as in the
    // frontier's point labels), so the box is kept a fifth wider.
    let (w, h) = (text_width(&text, 11.0) * 6 / 5, 13);
    if text.is_empty() || labels.take(&[(left, y - 16)], w, h).is_none() {
        return Ok(());
    }
    chart.draw_series(std::iter::once(
        EmptyElement::at((x0, top)) + Text::new(text, (0, -16), muted(11.0)),
    ))?;
    Ok(())
}

/// The wall: plan `i`'s HBM per GPU as a dashed line across its column.
fn wall<DB: DrawingBackend>(
    chart: &mut LinearChart<'_, DB>,
    hits: &mut Vec<Hit>,
    i: usize,
    plan: &MemoryPlan,
    lang: Lang,
) -> Done<DB> {
    let cap = plan.hbm.as_gib();
    let (wx0, wx1) = (i as f64 - 0.45, i as f64 + 0.45);
    chart.draw_series(DashedLineSeries::new(
        vec![(wx0, cap), (wx1, cap)],
        6,
        4,
        WALL.stroke_width(2),
    ))?;
    let (a, b) = (
        chart.backend_coord(&(wx0, cap)),
        chart.backend_coord(&(wx1, cap)),
    );
    hits.push(Hit::rect(
        (a.0, a.1 - 3),
        (b.0, b.1 + 3),
        format!(
            "{}\n{}: {}",
            plan.name,
            t(lang, K::HbmCapacity),
            gib(plan.hbm)
        ),
    ));
    Ok(())
}

/// The legend: the wall, the range, then every item kind drawn.
fn legend_entries(s: &MemorySeries, lang: Lang) -> Vec<LegendEntry> {
    let lines = [
        LegendEntry {
            label: t(lang, K::HbmCapacity).to_string(),
            color: WALL.to_rgba(),
            line: true,
        },
        LegendEntry {
            label: t(lang, K::Range).to_string(),
            color: INK.to_rgba(),
            line: true,
        },
    ];
    let kinds = s.kinds().into_iter().map(|k| LegendEntry {
        label: k.name(lang).to_string(),
        color: palette::item(k).to_rgba(),
        line: false,
    });
    lines.into_iter().chain(kinds).collect()
}

/// A part's share of a whole, for read-outs.
fn pct_of(part: f64, whole: f64) -> String {
    if whole > 0.0 {
        crate::numfmt::pct(part / whole)
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::draw::recorder::Recorder;
    use crate::charts::series::memory_series;
    use crate::fixtures;

    #[test]
    fn draws_every_segment_and_wall_in_both_languages() {
        let (plans, reports) = fixtures::three();
        let s = memory_series(
            plans
                .iter()
                .zip(&reports)
                .map(|(p, r)| (p.name.as_str(), r)),
        );
        for lang in [Lang::En, Lang::Zh] {
            let area = Recorder::new(800, 360).into_drawing_area();
            let hits = draw(&area, &s, lang).expect("draws");
            let segments: usize = s.bars.iter().map(|b| b.segments.len()).sum();
            // Every segment and wall can be hovered; whiskers too.
            assert!(hits.len() >= segments + s.plans.len());
            assert!(hits.iter().all(|h| h.x0 <= h.x1 && h.y0 <= h.y1));
        }
    }
}
