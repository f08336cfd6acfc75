//! Hover read-outs: each chart returns the regions it drew (bars, points,
//! walls) with their text, in CSS pixels; the pointer picks the nearest.

/// A region of a chart and what its tooltip says.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// Left edge, CSS pixels from the canvas's left.
    pub x0: i32,
    /// Top edge.
    pub y0: i32,
    /// Right edge.
    pub x1: i32,
    /// Bottom edge.
    pub y1: i32,
    /// The read-out (text, never markup).
    pub text: String,
    /// The kind the region is coloured by, and its colour, where it is
    /// coloured by kind (a memory item, a time part, a plan family).
    pub swatch: Option<Swatch>,
}

/// What colours a region: a kind's stable key (its Rust name, the same in
/// both languages) and the colour as CSS.
#[derive(Debug, Clone, PartialEq)]
pub struct Swatch {
    /// The kind, e.g. `Weights` or `Gemm`.
    pub kind: String,
    /// The colour, `#rrggbb`.
    pub color: String,
}

/// How far from a region the pointer may be and still pick it, in CSS
/// pixels: enough to hit a thin wall line or a small marker.
pub const REACH: i32 = 10;

impl Hit {
    /// The region between two corners, in any order.
    pub fn rect(a: (i32, i32), b: (i32, i32), text: String) -> Self {
        Self {
            x0: a.0.min(b.0),
            y0: a.1.min(b.1),
            x1: a.0.max(b.0),
            y1: a.1.max(b.1),
            text,
            swatch: None,
        }
    }

    /// The same region, marked as coloured by `kind` in `color`.
    pub fn with_swatch(self, kind: impl std::fmt::Debug, color: plotters::style::RGBColor) -> Self {
        Self {
            swatch: Some(Swatch {
                kind: format!("{kind:?}"),
                color: super::palette::css(color),
            }),
            ..self
        }
    }

    /// A point and a radius around it.
    pub fn point(c: (i32, i32), r: i32, text: String) -> Self {
        Self::rect((c.0 - r, c.1 - r), (c.0 + r, c.1 + r), text)
    }

    /// Distance from the pointer to the region (0 inside).
    fn distance(&self, x: i32, y: i32) -> i32 {
        let dx = (self.x0 - x).max(x - self.x1).max(0);
        let dy = (self.y0 - y).max(y - self.y1).max(0);
        dx.max(dy)
    }

    fn area(&self) -> i64 {
        i64::from(self.x1 - self.x0) * i64::from(self.y1 - self.y0)
    }
}

/// The region under or nearest the pointer, within [`REACH`]; of regions
/// at the same distance the smallest wins (a marker over the bar behind it).
pub fn nearest(hits: &[Hit], x: i32, y: i32) -> Option<&Hit> {
    hits.iter()
        .map(|h| (h.distance(x, y), h.area(), h))
        .filter(|(d, _, _)| *d <= REACH)
        .min_by_key(|(d, a, _)| (*d, *a))
        .map(|(_, _, h)| h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inside_beats_near_and_small_beats_large() {
        let hits = vec![
            Hit::rect((0, 0), (100, 100), "bar".into()),
            Hit::point((50, 50), 3, "marker".into()),
            Hit::rect((200, 0), (110, 10), "other".into()),
        ];
        assert_eq!(nearest(&hits, 10, 10).map(|h| h.text.as_str()), Some("bar"));
        assert_eq!(
            nearest(&hits, 51, 49).map(|h| h.text.as_str()),
            Some("marker")
        );
        assert_eq!(nearest(&hits, 103, 5).map(|h| h.text.as_str()), Some("bar"));
        assert_eq!(
            nearest(&hits, 108, 5).map(|h| h.text.as_str()),
            Some("other")
        );
        assert_eq!(nearest(&hits, 150, 60), None);
        assert_eq!(nearest(&[], 0, 0), None);
    }
}
