//! Drawing the series with plotters. Each function takes a drawing area of
//! any backend (the canvas in the browser, a recording backend in native
//! tests), draws one series, and returns the hover regions in the area's
//! pixels. Nothing here computes a figure; it places the series' numbers.

pub mod frontier;
pub mod memory;
pub mod sweep;
pub mod time;

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

/// Draws a legend down an area, one entry per line, as many as fit.
pub fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[LegendEntry],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (_, h) = area.dim_in_pixel();
    let row = 17;
    for (i, e) in entries.iter().enumerate() {
        let y = 30 + row * i as i32;
        if y + row > h as i32 {
            break;
        }
        if e.line {
            area.draw(&PathElement::new(
                vec![(6, y + 6), (20, y + 6)],
                e.color.stroke_width(2),
            ))?;
        } else {
            area.draw(&Rectangle::new([(6, y), (18, y + 12)], e.color.filled()))?;
        }
        area.draw(&Text::new(e.label.clone(), (24, y - 1), font(12.0)))?;
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
}
