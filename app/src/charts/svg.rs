//! A drawing backend that writes SVG: the same chart code that draws on
//! the canvas (`charts::draw`) draws into a string, so the SVG export is
//! the same drawing, with every label as real `<text>` (searchable,
//! selectable, readable in any language the viewer's fonts cover).
//!
//! Hand-written on `plotters-backend` (already a dependency) instead of
//! plotters' `svg_backend` feature, which pulls in another crate; only the
//! primitives the charts use are written out: lines, rectangles, paths,
//! polygons, circles and text.

use crate::charts::draw::text_width;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
    FontTransform,
};
use std::cell::RefCell;
use std::fmt::Write;
use std::rc::Rc;

/// Draws into an SVG document's body, a string shared with the caller
/// (a drawing area keeps its backend).
pub struct Svg {
    size: (u32, u32),
    body: Rc<RefCell<String>>,
}

impl Svg {
    /// An empty drawing of this size in CSS pixels, and its body.
    pub fn new(w: u32, h: u32) -> (Self, Rc<RefCell<String>>) {
        let body = Rc::new(RefCell::new(String::new()));
        let svg = Self {
            size: (w, h),
            body: body.clone(),
        };
        (svg, body)
    }

    fn out(&self) -> std::cell::RefMut<'_, String> {
        self.body.borrow_mut()
    }
}

/// A whole SVG document around a drawn body, with a title and a
/// description (its text alternative: what each point is).
pub fn document((w, h): (u32, u32), title: &str, desc: &str, body: &str) -> String {
    {
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\">\
             <title>{}</title><desc>{}</desc>\
             <style>text{{font-family:system-ui,-apple-system,\"Segoe UI\",\"PingFang SC\",\"Microsoft YaHei\",\"Noto Sans CJK SC\",sans-serif}}</style>\
             {}</svg>",
            escape(title),
            escape(desc),
            body
        )
    }
}

/// Text as XML character data or an attribute value.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => {}
            c => out.push(c),
        }
    }
    out
}

/// A colour as `rgb(…)` and its opacity.
fn paint(c: BackendColor) -> (String, f64) {
    let (r, g, b) = c.rgb;
    (format!("rgb({r},{g},{b})"), c.alpha)
}

fn stroke<S: BackendStyle>(s: &S) -> String {
    let (c, a) = paint(s.color());
    format!(
        "fill=\"none\" stroke=\"{c}\" stroke-opacity=\"{a}\" stroke-width=\"{}\"",
        s.stroke_width()
    )
}

fn fill<S: BackendStyle>(s: &S) -> String {
    let (c, a) = paint(s.color());
    format!("fill=\"{c}\" fill-opacity=\"{a}\" stroke=\"none\"")
}

fn points<I: IntoIterator<Item = BackendCoord>>(path: I) -> String {
    path.into_iter()
        .map(|(x, y)| format!("{x},{y}"))
        .collect::<Vec<_>>()
        .join(" ")
}

impl DrawingBackend for Svg {
    type ErrorType = std::fmt::Error;

    fn get_size(&self) -> (u32, u32) {
        self.size
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        Ok(())
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        Ok(())
    }

    fn draw_pixel(
        &mut self,
        (x, y): BackendCoord,
        c: BackendColor,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let (c, a) = paint(c);
        write!(self.out(), "<rect x=\"{x}\" y=\"{y}\" width=\"1\" height=\"1\" fill=\"{c}\" fill-opacity=\"{a}\"/>")
            .map_err(DrawingErrorKind::DrawingError)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        (x0, y0): BackendCoord,
        (x1, y1): BackendCoord,
        s: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        write!(
            self.out(),
            "<line x1=\"{x0}\" y1=\"{y0}\" x2=\"{x1}\" y2=\"{y1}\" {}/>",
            stroke(s)
        )
        .map_err(DrawingErrorKind::DrawingError)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        (x0, y0): BackendCoord,
        (x1, y1): BackendCoord,
        s: &S,
        filled: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let paint = if filled { fill(s) } else { stroke(s) };
        let (x, y, w, h) = (x0.min(x1), y0.min(y1), (x1 - x0).abs(), (y1 - y0).abs());
        write!(
            self.out(),
            "<rect x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{h}\" {paint}/>"
        )
        .map_err(DrawingErrorKind::DrawingError)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        s: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        write!(
            self.out(),
            "<polyline points=\"{}\" {}/>",
            points(path),
            stroke(s)
        )
        .map_err(DrawingErrorKind::DrawingError)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        s: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        write!(
            self.out(),
            "<polygon points=\"{}\" {}/>",
            points(path),
            fill(s)
        )
        .map_err(DrawingErrorKind::DrawingError)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        (x, y): BackendCoord,
        r: u32,
        s: &S,
        filled: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let paint = if filled { fill(s) } else { stroke(s) };
        write!(
            self.out(),
            "<circle cx=\"{x}\" cy=\"{y}\" r=\"{r}\" {paint}/>"
        )
        .map_err(DrawingErrorKind::DrawingError)
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        s: &S,
        (x, y): BackendCoord,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let anchor = match s.anchor().h_pos {
            HPos::Left => "start",
            HPos::Center => "middle",
            HPos::Right => "end",
        };
        let baseline = match s.anchor().v_pos {
            VPos::Top => "hanging",
            VPos::Center => "middle",
            VPos::Bottom => "auto",
        };
        let turn = match s.transform() {
            FontTransform::Rotate90 => 90,
            FontTransform::Rotate180 => 180,
            FontTransform::Rotate270 => 270,
            _ => 0,
        };
        let (c, a) = paint(s.color());
        write!(
            self.out(),
            "<text x=\"{x}\" y=\"{y}\" font-size=\"{}\" fill=\"{c}\" fill-opacity=\"{a}\" text-anchor=\"{anchor}\" dominant-baseline=\"{baseline}\"{}>{}</text>",
            s.size(),
            if turn == 0 {
                String::new()
            } else {
                format!(" transform=\"rotate({turn} {x} {y})\"")
            },
            escape(text)
        )
        .map_err(DrawingErrorKind::DrawingError)
    }

    /// The charts' own width estimate ([`text_width`]): the SVG is laid
    /// out before any browser measures its text.
    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        s: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        Ok((
            text_width(text, s.size()).max(0) as u32,
            s.size().ceil() as u32,
        ))
    }
}

/// The frontier chart (cost against latency, every plan, the Pareto line)
/// as an SVG document of `w`×`h` CSS pixels.
pub fn frontier_svg(
    s: &crate::charts::series::FrontierSeries,
    lang: crate::i18n::Lang,
    (w, h): (u32, u32),
) -> String {
    use plotters::prelude::IntoDrawingArea;
    let (svg, body) = Svg::new(w, h);
    let area = svg.into_drawing_area();
    // Each point's read-out (the canvas's hover text) describes the SVG.
    let hits = crate::charts::draw::frontier::draw(&area, s, lang).unwrap_or_default();
    drop(area);
    let desc = hits
        .iter()
        .map(|h| h.text.replace('\n', " · "))
        .collect::<Vec<_>>()
        .join("\n");
    let title = crate::i18n::results::t(lang, crate::i18n::results::K::FrontierTitle);
    let body = body.borrow();
    document((w, h), title, &desc, &body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::series::frontier_series;
    use crate::i18n::Lang;

    #[test]
    fn the_frontier_svg_names_every_plan_and_parses() {
        for lang in [Lang::En, Lang::Zh] {
            let ws = crate::presets::default_workspace(lang);
            let reports: Vec<_> = ws.plans.iter().map(planner_core::evaluate).collect();
            let s = frontier_series(&ws.plans, &reports);
            let svg = frontier_svg(&s, lang, (900, 420));
            assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
            assert!(svg.ends_with("</svg>"));
            assert!(svg.contains("<polyline"), "the Pareto line");
            assert_eq!(svg.matches("<text").count(), svg.matches("</text>").count());
            // Labels are text, and the description names every plan.
            assert!(svg.matches("<text").count() > s.points.len());
            for p in &s.points {
                assert!(svg.contains(&escape(&p.name)), "{}", p.name);
            }
        }
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(
            escape("<b>\"x\" & 'y'</b>"),
            "&lt;b&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/b&gt;"
        );
    }
}
