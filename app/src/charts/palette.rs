//! Colours and markers: one colour per memory item and time part, spread
//! around the hue circle by the golden angle so neighbours differ; fixed
//! colours for verdicts, walls and plan families.

use planner_core::effort::PlanFamily;
use planner_core::report::{ItemKind, TimeKind, Verdict};
use plotters::style::{HSLColor, RGBColor};

/// A colour for the i-th category of a legend.
fn nth(i: usize, offset: f64) -> HSLColor {
    let hue = (offset + i as f64 * 0.618_033_988_75).fract();
    let light = if i % 2 == 0 { 0.52 } else { 0.64 };
    HSLColor(hue, 0.58, light)
}

/// A memory item's colour.
pub fn item(k: ItemKind) -> HSLColor {
    nth(k.index(), 0.58)
}

/// A time part's colour.
pub fn time(k: TimeKind) -> HSLColor {
    let i = TimeKind::ALL.iter().position(|x| *x == k).unwrap_or(0);
    nth(i, 0.08)
}

/// A job's colour in the tenants grid (by its index among the jobs).
pub fn job(i: usize) -> HSLColor {
    nth(i, 0.33)
}

/// A colour as CSS (`hsl(120 58% 52%)`), for views drawn in the DOM.
pub fn css(c: HSLColor) -> String {
    format!(
        "hsl({:.0} {:.0}% {:.0}%)",
        c.0 * 360.0,
        c.1 * 100.0,
        c.2 * 100.0
    )
}

/// The HBM wall.
pub const WALL: RGBColor = RGBColor(207, 34, 46);
/// Whiskers, axes and text.
pub const INK: RGBColor = RGBColor(27, 31, 36);
/// Secondary text and grid.
pub const MUTED: RGBColor = RGBColor(91, 100, 112);
/// Fits.
pub const OK: RGBColor = RGBColor(26, 127, 55);
/// The Pareto frontier line.
pub const FRONT: RGBColor = RGBColor(31, 111, 235);

/// A verdict's colour.
pub fn verdict(v: Verdict) -> RGBColor {
    match v {
        Verdict::Fits => OK,
        Verdict::DoesNotFit => WALL,
        Verdict::Invalid => MUTED,
    }
}

/// How a family's points are marked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    /// A circle.
    Circle,
    /// A square.
    Square,
    /// A triangle.
    Triangle,
    /// A diamond.
    Diamond,
}

/// A family's colour and marker: both differ, so the chart reads in grey.
pub fn family(f: PlanFamily) -> (RGBColor, Marker) {
    match f {
        PlanFamily::Baseline => (INK, Marker::Diamond),
        PlanFamily::Algorithmic => (RGBColor(31, 111, 235), Marker::Circle),
        PlanFamily::Hardware => (RGBColor(191, 87, 0), Marker::Square),
        PlanFamily::Hybrid => (RGBColor(130, 80, 223), Marker::Triangle),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_colours_are_css() {
        assert_eq!(css(HSLColor(0.5, 0.58, 0.52)), "hsl(180 58% 52%)");
        assert_ne!(css(job(0)), css(job(1)));
    }
}
