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

/// Draws a legend: down a column beside the plot, lines getting tighter
/// (down to 11 px) so every entry fits, or in rows of
/// [`LEGEND_COLUMNS`] under the plot of a narrow chart
/// ([`split_legend`]); entries that still do not fit are left out.
pub fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[LegendEntry],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (w, h) = area.dim_in_pixel();
    let under = w >= NARROW_CHART / 2 && w > h;
    let (top, columns) = if under { (4, LEGEND_COLUMNS) } else { (30, 1) };
    let n = entries.len().max(1).div_ceil(columns) as i32;
    let row = ((h as i32 - top) / n).clamp(11, 17);
    let size = f64::from((row - 4).clamp(9, 12));
    let swatch = row - 5;
    let column_w = w as i32 / columns as i32;
    for (i, e) in entries.iter().enumerate() {
        let (x, y) = (
            column_w * (i % columns) as i32,
            top + row * (i / columns) as i32,
        );
        if y + row > h as i32 {
            break;
        }
        if e.line {
            area.draw(&PathElement::new(
                vec![(x + 6, y + swatch / 2), (x + 20, y + swatch / 2)],
                e.color.stroke_width(2),
            ))?;
        } else {
            area.draw(&Rectangle::new(
                [(x + 6, y), (x + 6 + swatch, y + swatch)],
                e.color.filled(),
            ))?;
        }
        area.draw(&Text::new(
            fit(&e.label, size, column_w - 26),
            (x + 24, y - 1),
            font(size),
        ))?;
    }
    Ok(())
}

/// Charts narrower than this many CSS pixels (a phone's) put their legend
/// in rows under the plot, so the plot keeps the whole width.
pub const NARROW_CHART: u32 = 520;

/// Legend entries per row under a narrow chart.
const LEGEND_COLUMNS: usize = 2;

/// Splits a chart into its plot and its legend's area: a column on the
/// right of a wide chart, a band of rows under a narrow one, tall enough
/// for `entries` (at most half the chart).
pub fn split_legend<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    entries: usize,
) -> (DrawingArea<DB, Shift>, DrawingArea<DB, Shift>) {
    let (w, h) = root.dim_in_pixel();
    if w >= NARROW_CHART {
        return root.split_horizontally(w - (w / 4).clamp(110, 190));
    }
    let rows = entries.max(1).div_ceil(LEGEND_COLUMNS) as u32;
    let band = (rows * 16 + 10).min(h / 2);
    root.split_vertically(h - band)
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

/// Roughly how wide a label is in CSS pixels: wide (CJK) characters and
/// the ellipsis count as a full em, Latin capitals as about 0.72 em (DejaVu
/// Sans, the page's fallback font), others as about 0.6 em. Used only to
/// keep labels apart.
pub fn text_width(text: &str, size: f64) -> i32 {
    let em: f64 = text
        .chars()
        .map(|c| match c {
            '…' => 1.0,
            c if u32::from(c) >= 0x2E80 => 1.0,
            c if c.is_ascii_uppercase() => 0.72,
            _ => 0.6,
        })
        .sum();
    (em * size).ceil() as i32
}

/// Labels already placed on a chart, so new ones go where they do not
/// overlap (or are left out; the tooltip still names every point), and,
/// when bounded, only inside the plotting area (never over the axes'
/// numbers or the legend).
#[derive(Debug, Default)]
pub struct Placed {
    taken: Vec<(i32, i32, i32, i32)>,
    bounds: Option<(i32, i32, i32, i32)>,
}

impl Placed {
    /// Labels kept inside a plotting area's pixel ranges.
    pub fn within((x, y): (std::ops::Range<i32>, std::ops::Range<i32>)) -> Self {
        Self {
            taken: Vec::new(),
            bounds: Some((x.start, y.start, x.end, y.end)),
        }
    }

    /// The bounds' left and right edges (unbounded: the whole line).
    pub fn x_range(&self) -> (i32, i32) {
        self.bounds
            .map_or((i32::MIN / 2, i32::MAX / 2), |(x0, _, x1, _)| (x0, x1))
    }

    /// The widest label that fits across the bounds (unbounded: any).
    pub fn max_width(&self) -> i32 {
        self.bounds.map_or(i32::MAX, |(x0, _, x1, _)| x1 - x0 - 2)
    }

    /// Marks a box (`x0, y0, x1, y1`) as taken without drawing in it: a
    /// point's marker, so no label is drawn over it.
    pub fn block(&mut self, b: (i32, i32, i32, i32)) {
        self.taken.push(b);
    }

    /// The first of the candidate top-left corners where a `w`×`h` label
    /// overlaps no earlier one (and stays inside the bounds); it is then
    /// taken.
    pub fn take(&mut self, candidates: &[(i32, i32)], w: i32, h: i32) -> Option<(i32, i32)> {
        let inside = |&(x, y): &(i32, i32)| {
            self.bounds
                .is_none_or(|(a, b, c, d)| a <= x && x + w <= c && b <= y && y + h <= d)
        };
        let free = |&(x, y): &(i32, i32)| {
            self.taken
                .iter()
                .all(|&(a, b, c, d)| x + w <= a || c <= x || y + h <= b || d <= y)
        };
        let at = candidates.iter().copied().find(|c| inside(c) && free(c))?;
        self.taken.push((at.0, at.1, at.0 + w, at.1 + h));
        Some(at)
    }
}

/// `text` shortened with an ellipsis until [`text_width`] says it fits in
/// `px` pixels at `size`; empty when not even one character does.
pub fn fit(text: &str, size: f64, px: i32) -> String {
    if text_width(text, size) <= px {
        return text.to_string();
    }
    let chars: Vec<char> = text.chars().collect();
    (1..chars.len())
        .rev()
        .map(|n| format!("{}…", chars[..n].iter().collect::<String>().trim_end()))
        .find(|s| text_width(s, size) <= px)
        .unwrap_or_default()
}

/// Category labels that fit `px` pixels each: the names, shortened, or the
/// plans' numbers (as on the plan tabs) when a name would keep fewer than
/// three characters or two shortened names read the same ("Ten…" for
/// every "Tenant …").
pub fn category_names(names: &[(usize, &str)], size: f64, px: i32) -> Vec<String> {
    let fitted: Vec<String> = names.iter().map(|(_, n)| fit(n, size, px)).collect();
    let too_short = fitted
        .iter()
        .any(|f| f.chars().filter(|c| *c != '…').count() < 3);
    let alike = fitted
        .iter()
        .enumerate()
        .any(|(i, f)| f.ends_with('…') && fitted[..i].contains(f));
    if too_short || alike {
        names.iter().map(|(i, _)| (i + 1).to_string()).collect()
    } else {
        fitted
    }
}

/// How many tick labels an axis this many pixels long holds, at one per
/// `spacing` pixels (so numbers never run into each other).
pub fn ticks(px: u32, spacing: u32) -> usize {
    (px / spacing.max(1)).clamp(2, 12) as usize
}

/// The chart's title across the top: 14 px, smaller on a narrow chart,
/// shortened if still too wide (the canvas's `aria-label` holds it whole).
pub fn titled<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    text: &str,
) -> Result<DrawingArea<DB, Shift>, DrawingAreaErrorKind<DB::ErrorType>> {
    let room = root.dim_in_pixel().0 as i32 - 12;
    let size = if text_width(text, 14.0) <= room {
        14.0
    } else {
        12.0
    };
    root.titled(&fit(text, size, room), font(size))
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
        let mut inside = Placed::within((0..50, 0..50));
        assert_eq!(inside.take(&[(45, 0), (40, 0)], 10, 10), Some((40, 0)));
        assert_eq!(inside.max_width(), 48);
        assert_eq!(fit("abcdef", 10.0, 100), "abcdef");
        // The ellipsis takes a full em: 2 × 6 + 10 ≤ 24 < 3 × 6 + 10.
        assert_eq!(fit("abcdef", 10.0, 24), "ab…");
        assert_eq!(fit("显存墙", 10.0, 5), "");
        let names = [(0, "4×H100, BF16"), (1, "FP8 weights")];
        assert_eq!(
            category_names(&names, 12.0, 200),
            vec!["4×H100, BF16", "FP8 weights"]
        );
        assert_eq!(category_names(&names, 12.0, 20), vec!["1", "2"]);
        let alike = [
            (0, "Tenant A on a whole H100"),
            (1, "Tenant B at a 25 % cap"),
        ];
        assert_eq!(category_names(&alike, 12.0, 40), vec!["1", "2"]);
        assert_eq!(
            category_names(&alike, 12.0, 400),
            vec!["Tenant A on a whole H100", "Tenant B at a 25 % cap"]
        );
        assert_eq!(ticks(700, 70), 10);
        assert_eq!(ticks(10, 70), 2);
        assert!(text_width("显存", 10.0) > text_width("ab", 10.0));
    }
}
