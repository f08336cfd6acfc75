//! Drawing the series with plotters. Each function takes a drawing area of
//! any backend (the canvas in the browser, a recording backend in native
//! tests), draws one series, and returns the hover regions in the area's
//! pixels. Nothing here computes a figure; it places the series' numbers.

pub mod frontier;
pub mod memory;
pub mod reliability;
pub mod sweep;
pub mod time;
pub mod wall;

use super::hover::Hit;
use super::palette::{INK, MUTED};
use plotters::coord::Shift;
use plotters::prelude::*;

/// The font family: the system UI font, then CJK fonts of macOS, Windows
/// and Linux, so Chinese labels never fall back to boxes.
pub const FONT: &str =
    "system-ui, -apple-system, 'Segoe UI', 'PingFang SC', 'Microsoft YaHei', 'Noto Sans CJK SC', sans-serif";

/// The hover regions drawn, or why drawing failed.
pub type Drawn<DB> = Result<Vec<Hit>, DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// One part drawn, or why drawing failed.
pub type Done<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// A chart on two linear axes.
pub type LinearChart<'a, DB> = ChartContext<
    'a,
    DB,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// Text in the chart font, at a size in CSS pixels.
pub fn font(size: f64) -> TextStyle<'static> {
    (FONT, size).into_font().color(&INK)
}

/// Secondary text.
pub fn muted(size: f64) -> TextStyle<'static> {
    (FONT, size).into_font().color(&MUTED)
}

/// Grid lines: faint, so the data reads first.
pub fn light_grid() -> ShapeStyle {
    RGBAColor(0, 0, 0, 0.05).stroke_width(1)
}

/// Major grid lines.
pub fn bold_grid() -> ShapeStyle {
    RGBAColor(0, 0, 0, 0.12).stroke_width(1)
}

/// One legend line: a swatch and its label.
pub struct LegendEntry {
    /// The label (text).
    pub label: String,
    /// The swatch's colour.
    pub color: RGBAColor,
    /// A line swatch instead of a block.
    pub line: bool,
}

/// Draws a legend down an area, one entry per line; lines get tighter
/// (down to 11 px) so every entry fits, and any that still do not are left
/// out.
pub fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[LegendEntry],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (_, h) = area.dim_in_pixel();
    let top = 30;
    let n = entries.len().max(1) as i32;
    let row = ((h as i32 - top) / n).clamp(11, 17);
    let size = f64::from((row - 4).clamp(9, 12));
    let swatch = row - 5;
    for (i, e) in entries.iter().enumerate() {
        let y = top + row * i as i32;
        if y + row > h as i32 {
            break;
        }
        if e.line {
            area.draw(&PathElement::new(
                vec![(6, y + swatch / 2), (20, y + swatch / 2)],
                e.color.stroke_width(2),
            ))?;
        } else {
            area.draw(&Rectangle::new(
                [(6, y), (6 + swatch, y + swatch)],
                e.color.filled(),
            ))?;
        }
        area.draw(&Text::new(e.label.clone(), (24, y - 1), font(size)))?;
    }
    Ok(())
}

/// Width of the legend column for an area this wide.
pub fn legend_width(total: u32) -> u32 {
    (total / 4).clamp(110, 190)
}

/// A message in the middle of an empty chart.
pub fn message<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (w, h) = area.dim_in_pixel();
    let style = muted(13.0).pos(plotters::style::text_anchor::Pos::new(
        plotters::style::text_anchor::HPos::Center,
        plotters::style::text_anchor::VPos::Center,
    ));
    area.draw(&Text::new(
        text.to_string(),
        (w as i32 / 2, h as i32 / 2),
        style,
    ))
}

/// The label of category `v` on an axis whose categories sit at 0, 1, 2…:
/// the name at whole numbers, nothing between.
pub fn category_label(names: &[String], v: f64) -> String {
    let i = v.round();
    if (v - i).abs() > 1e-6 || i < 0.0 {
        return String::new();
    }
    names.get(i as usize).cloned().unwrap_or_default()
}

/// Roughly how wide a label is in CSS pixels: wide (CJK) characters count
/// as a full em, others as about 0.6 em. Used only to keep labels apart.
pub fn text_width(text: &str, size: f64) -> i32 {
    let em: f64 = text
        .chars()
        .map(|c| if u32::from(c) >= 0x2E80 { 1.0 } else { 0.6 })
        .sum();
    (em * size).ceil() as i32
}

/// Labels already placed on a chart, so new ones go where they do not
/// overlap (or are left out; the tooltip still names every point).
#[derive(Debug, Default)]
pub struct Placed(Vec<(i32, i32, i32, i32)>);

impl Placed {
    /// The first of the candidate top-left corners where a `w`×`h` label
    /// overlaps no earlier one; it is then taken.
    pub fn take(&mut self, candidates: &[(i32, i32)], w: i32, h: i32) -> Option<(i32, i32)> {
        let free = |&(x, y): &(i32, i32)| {
            self.0
                .iter()
                .all(|&(a, b, c, d)| x + w <= a || c <= x || y + h <= b || d <= y)
        };
        let at = candidates.iter().copied().find(free)?;
        self.0.push((at.0, at.1, at.0 + w, at.1 + h));
        Some(at)
    }
}

/// How many characters of a category label fit in `px` pixels.
pub fn label_chars(px: f64) -> usize {
    ((px - 8.0) / 7.0).clamp(3.0, 24.0) as usize
}

#[cfg(test)]
pub(crate) mod recorder;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categories_label_whole_numbers_only() {
        let names = vec!["a".to_string(), "b".to_string()];
        assert_eq!(category_label(&names, 1.0), "b");
        assert_eq!(category_label(&names, 0.5), "");
        assert_eq!(category_label(&names, 2.0), "");
        assert_eq!(category_label(&names, -1.0), "");
    }

    #[test]
    fn labels_do_not_overlap() {
        let mut p = Placed::default();
        assert_eq!(p.take(&[(0, 0)], 10, 10), Some((0, 0)));
        assert_eq!(p.take(&[(5, 5), (0, 10)], 10, 10), Some((0, 10)));
        assert_eq!(p.take(&[(5, 5)], 10, 10), None);
        assert!(text_width("显存", 10.0) > text_width("ab", 10.0));
        assert_eq!(label_chars(1000.0), 24);
        assert_eq!(label_chars(0.0), 3);
    }
}
