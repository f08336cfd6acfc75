//! Colours and markers, from one colour-blind-safe categorical palette.
//!
//! The hues are Okabe and Ito's eight ("Color Universal Design", Okabe &
//! Ito 2002/2008, https://jfly.uni-koeln.de/color/; the palette Wong
//! recommends in "Points of view: Color blindness", Nature Methods 8, 441,
//! 2011): distinct under protanopia, deuteranopia and tritanopia. A chart
//! can show up to eighteen memory items or time parts, more than any
//! categorical palette separates by hue alone, so each hue is given to one
//! *group* of related kinds (parameters, training states, activations,
//! runtime buffers…) and the members of a group differ in lightness: the
//! hue itself, a dark shade (45 % black) and a light tint (55 % white).
//! Hue tells the group, lightness the member; both survive colour-vision
//! deficiencies, and the legend and hover read-out name every segment.
//! Every kind has one fixed colour, wherever it is drawn, and no two kinds
//! of a table share one (tested below).
//!
//! Text drawn on a colour is black or white, whichever contrasts more
//! (WCAG 2.1 relative luminance, success criterion 1.4.3); the better of
//! the two is always at least 4.58:1.

use planner_core::effort::PlanFamily;
use planner_core::report::{ItemKind, TimeKind, Verdict};
use plotters::style::RGBColor;

/// Okabe–Ito orange.
const ORANGE: RGBColor = RGBColor(0xE6, 0x9F, 0x00);
/// Okabe–Ito sky blue.
const SKY: RGBColor = RGBColor(0x56, 0xB4, 0xE9);
/// Okabe–Ito bluish green.
const GREEN: RGBColor = RGBColor(0x00, 0x9E, 0x73);
/// Okabe–Ito yellow.
const YELLOW: RGBColor = RGBColor(0xF0, 0xE4, 0x42);
/// Okabe–Ito blue.
const BLUE: RGBColor = RGBColor(0x00, 0x72, 0xB2);
/// Okabe–Ito vermillion.
const VERMILLION: RGBColor = RGBColor(0xD5, 0x5E, 0x00);
/// Okabe–Ito reddish purple.
const PURPLE: RGBColor = RGBColor(0xCC, 0x79, 0xA7);
/// A neutral grey for the allocator's share and transient working sets,
/// which are no tensor the user chose (Okabe–Ito's black, lightened).
const GREY: RGBColor = RGBColor(0x77, 0x77, 0x77);

/// Which member of a hue group a kind is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shade {
    /// The hue itself.
    Base,
    /// Mixed with 45 % black.
    Dark,
    /// Mixed with 55 % white.
    Light,
    /// Mixed with 70 % black: a fourth member where a group is full.
    Deep,
}

/// A hue in one of its shades.
fn shade(c: RGBColor, s: Shade) -> RGBColor {
    let mix =
        |v: u8, toward: f64, t: f64| (f64::from(v) + (toward - f64::from(v)) * t).round() as u8;
    let (toward, t) = match s {
        Shade::Base => return c,
        Shade::Dark => (0.0, 0.45),
        Shade::Light => (255.0, 0.55),
        Shade::Deep => (0.0, 0.7),
    };
    RGBColor(
        mix(c.0, toward, t),
        mix(c.1, toward, t),
        mix(c.2, toward, t),
    )
}

/// A memory item's colour: parameters blue (FP8 copies sky blue),
/// training states vermillion, activations green, output and transient
/// buffers purple, KV cache orange, runtime buffers yellow, fragmentation
/// dark sky blue, segments pinned in the allocator's cache deep brown
/// (orange with 70 % black), autocast's weight casts light blue, the allocator's rounding and
/// transient working sets grey. Chosen so that every two kinds differ by at least 15
/// CIE76 ΔE (tested).
pub fn item(k: ItemKind) -> RGBColor {
    use ItemKind as I;
    use Shade::{Base, Dark, Deep, Light};
    let (hue, s) = match k {
        I::Weights => (BLUE, Base),
        I::MasterWeights => (BLUE, Dark),
        I::Fp8WeightCopies => (SKY, Base),
        I::Gradients => (VERMILLION, Base),
        I::OptimizerStates => (VERMILLION, Dark),
        I::Adapters => (VERMILLION, Light),
        I::Activations => (GREEN, Base),
        I::RecomputeWorkingSet => (GREEN, Dark),
        I::EmbeddingActivations => (GREEN, Light),
        I::Logits => (PURPLE, Base),
        I::GatherBuffers => (PURPLE, Dark),
        I::PrefillActivations => (PURPLE, Light),
        I::KvCache => (ORANGE, Base),
        I::KvCacheWaste => (ORANGE, Dark),
        I::CudaContext => (YELLOW, Base),
        I::Workspace => (YELLOW, Dark),
        I::NcclBuffers => (YELLOW, Light),
        I::Fragmentation => (SKY, Dark),
        I::AutocastCache => (BLUE, Light),
        I::OptimizerTemporaries => (GREY, Light),
        I::BackwardWorkingSet => (GREY, Base),
        I::AllocatorRounding => (GREY, Dark),
        I::AllocatorCache => (ORANGE, Deep),
    };
    shade(hue, s)
}

/// A time part's colour: compute blue, recompute and optimizer green,
/// memory reads orange, model-parallel collectives vermillion, pipeline
/// purple, data-parallel traffic sky blue, offload transfers yellow; every
/// two parts at least 15 CIE76 ΔE apart (tested).
pub fn time(k: TimeKind) -> RGBColor {
    use Shade::{Base, Dark, Light};
    use TimeKind as T;
    let (hue, s) = match k {
        T::Gemm => (BLUE, Base),
        T::Attention => (BLUE, Dark),
        T::Elementwise => (BLUE, Light),
        T::Recompute => (GREEN, Base),
        T::Optimizer => (GREEN, Dark),
        T::LayerOverhead => (GREEN, Light),
        T::HostBound => (GREY, Base),
        T::FrontEnd => (GREY, Light),
        T::Waiting => (GREY, Dark),
        T::WeightRead => (ORANGE, Base),
        T::KvRead => (ORANGE, Dark),
        T::TensorParallel => (VERMILLION, Base),
        T::ContextParallel => (VERMILLION, Dark),
        T::ExpertParallel => (VERMILLION, Light),
        T::PipelineP2p => (PURPLE, Base),
        T::PipelineBubble => (PURPLE, Dark),
        T::DataParallel => (SKY, Base),
        T::ParameterGather => (SKY, Dark),
        T::TransferHost => (YELLOW, Base),
        T::TransferCxl => (YELLOW, Light),
        T::TransferNvme => (YELLOW, Dark),
    };
    shade(hue, s)
}

/// A job's colour in the tenants grid, by its index among the jobs: the
/// seven hues in turn, then their dark shades, then their light tints.
pub fn job(i: usize) -> RGBColor {
    const HUES: [RGBColor; 7] = [BLUE, ORANGE, GREEN, PURPLE, SKY, VERMILLION, YELLOW];
    let s = match (i / HUES.len()) % 3 {
        0 => Shade::Base,
        1 => Shade::Dark,
        _ => Shade::Light,
    };
    shade(HUES[i % HUES.len()], s)
}

/// A colour as CSS (`#0072b2`), for views drawn in the DOM and for the
/// charts' data tables.
pub fn css(c: RGBColor) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// WCAG 2.1 relative luminance of an sRGB colour.
pub fn luminance(c: RGBColor) -> f64 {
    let lin = |v: u8| {
        let s = f64::from(v) / 255.0;
        if s <= 0.040_45 {
            s / 12.92
        } else {
            ((s + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * lin(c.0) + 0.7152 * lin(c.1) + 0.0722 * lin(c.2)
}

/// WCAG 2.1 contrast ratio of two colours (1 to 21).
pub fn contrast(a: RGBColor, b: RGBColor) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// Black or white, whichever reads better on `bg`.
pub fn text_on(bg: RGBColor) -> RGBColor {
    let (black, white) = (RGBColor(0, 0, 0), RGBColor(255, 255, 255));
    if contrast(bg, black) >= contrast(bg, white) {
        black
    } else {
        white
    }
}

/// The HBM wall.
pub const WALL: RGBColor = RGBColor(207, 34, 46);
/// Whiskers, axes and text.
pub const INK: RGBColor = RGBColor(27, 31, 36);
/// Secondary text and grid (5.9:1 on white).
pub const MUTED: RGBColor = RGBColor(91, 100, 112);
/// Fits.
pub const OK: RGBColor = RGBColor(26, 127, 55);
/// The Pareto frontier line: Okabe–Ito bluish green, apart from every
/// family's colour (software points are blue).
pub const FRONT: RGBColor = GREEN;

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
        PlanFamily::Algorithmic => (BLUE, Marker::Circle),
        PlanFamily::Hardware => (VERMILLION, Marker::Square),
        PlanFamily::Hybrid => (PURPLE, Marker::Triangle),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn every_kind_has_its_own_colour() {
        let items: HashSet<String> = ItemKind::ALL.iter().map(|&k| css(item(k))).collect();
        assert_eq!(items.len(), ItemKind::ALL.len());
        let times: HashSet<String> = TimeKind::ALL.iter().map(|&k| css(time(k))).collect();
        assert_eq!(times.len(), TimeKind::ALL.len());
        let families = [
            PlanFamily::Baseline,
            PlanFamily::Algorithmic,
            PlanFamily::Hardware,
            PlanFamily::Hybrid,
        ];
        let mut seen: HashSet<String> = families.iter().map(|&f| css(family(f).0)).collect();
        assert_eq!(seen.len(), families.len());
        assert!(
            seen.insert(css(FRONT)),
            "the frontier shares a family's colour"
        );
    }

    /// CIE L*a*b* of an sRGB colour (D65).
    fn lab(c: RGBColor) -> [f64; 3] {
        let lin = |v: u8| {
            let s = f64::from(v) / 255.0;
            if s <= 0.040_45 {
                s / 12.92
            } else {
                ((s + 0.055) / 1.055).powf(2.4)
            }
        };
        let (r, g, b) = (lin(c.0), lin(c.1), lin(c.2));
        let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.950_47;
        let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
        let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.088_83;
        let f = |t: f64| {
            if t > 0.008_856 {
                t.cbrt()
            } else {
                7.787 * t + 16.0 / 116.0
            }
        };
        [
            116.0 * f(y) - 16.0,
            500.0 * (f(x) - f(y)),
            200.0 * (f(y) - f(z)),
        ]
    }

    /// The smallest CIE76 colour difference between two of the colours.
    fn min_delta_e(cs: &[RGBColor]) -> f64 {
        let mut min = f64::INFINITY;
        for (i, a) in cs.iter().enumerate() {
            for b in &cs[i + 1..] {
                let (p, q) = (lab(*a), lab(*b));
                let d =
                    ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt();
                min = min.min(d);
            }
        }
        min
    }

    #[test]
    fn no_two_kinds_look_alike() {
        let items: Vec<RGBColor> = ItemKind::ALL.iter().map(|&k| item(k)).collect();
        let times: Vec<RGBColor> = TimeKind::ALL.iter().map(|&k| time(k)).collect();
        assert!(min_delta_e(&items) >= 15.0, "{}", min_delta_e(&items));
        assert!(min_delta_e(&times) >= 15.0, "{}", min_delta_e(&times));
    }

    #[test]
    fn text_on_any_colour_reads_at_4_5_to_1() {
        let all = ItemKind::ALL
            .iter()
            .map(|&k| item(k))
            .chain(TimeKind::ALL.iter().map(|&k| time(k)))
            .chain((0..21).map(job));
        for c in all {
            assert!(contrast(c, text_on(c)) >= 4.5, "{}", css(c));
        }
        let white = RGBColor(255, 255, 255);
        assert!(contrast(INK, white) >= 4.5 && contrast(MUTED, white) >= 4.5);
        assert!((contrast(white, RGBColor(0, 0, 0)) - 21.0).abs() < 1e-9);
    }

    #[test]
    fn shades_and_css() {
        assert_eq!(css(BLUE), "#0072b2");
        assert_eq!(css(shade(BLUE, Shade::Dark)), "#003f62");
        assert_eq!(css(shade(RGBColor(0, 0, 0), Shade::Light)), "#8c8c8c");
        assert_ne!(css(job(0)), css(job(1)));
        assert_ne!(css(job(0)), css(job(7)));
    }
}
