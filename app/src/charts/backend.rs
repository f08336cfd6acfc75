//! Drawing on an HTML canvas, crisp on high-DPI screens: the canvas's
//! backing store is the CSS size times `devicePixelRatio`, the context is
//! scaled by the same factor, and plotters draws in CSS pixels, so hover
//! regions and mouse positions share one coordinate system.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::FontTransform;
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
};
use plotters_canvas::CanvasBackend;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

/// The canvas backend's error (its type is not exported by name).
pub type CanvasError = <CanvasBackend as DrawingBackend>::ErrorType;

/// A canvas backend that reports its size in CSS pixels, and records the
/// box of every text it draws (so a browser test can check that no label
/// leaves the chart or covers another).
pub struct Hidpi {
    inner: CanvasBackend,
    ctx: CanvasRenderingContext2d,
    size: (u32, u32),
    labels: Rc<RefCell<Vec<LabelBox>>>,
}

/// A drawn text's box in CSS pixels (`x0, y0, x1, y1`) and the text.
pub type LabelBox = (i32, i32, i32, i32, String);

/// The box a text of size `w`×`h` covers when drawn at `pos` with this
/// anchor and rotation (as the canvas backend draws it: translate, rotate,
/// then align).
fn text_box(
    pos: BackendCoord,
    (w, h): (i32, i32),
    anchor: Pos,
    turn: FontTransform,
) -> (i32, i32, i32, i32) {
    let lx0 = match anchor.h_pos {
        HPos::Left => 0,
        HPos::Center => -w / 2,
        HPos::Right => -w,
    };
    let ly0 = match anchor.v_pos {
        VPos::Top => 0,
        VPos::Center => -h / 2,
        VPos::Bottom => -h,
    };
    let (x, y) = pos;
    match turn {
        // (u, v) → (v, −u)
        FontTransform::Rotate270 => (x + ly0, y - lx0 - w, x + ly0 + h, y - lx0),
        // (u, v) → (−v, u)
        FontTransform::Rotate90 => (x - ly0 - h, y + lx0, x - ly0, y + lx0 + w),
        // (u, v) → (−u, −v)
        FontTransform::Rotate180 => (x - lx0 - w, y - ly0 - h, x - lx0, y - ly0),
        FontTransform::None => (x + lx0, y + ly0, x + lx0 + w, y + ly0 + h),
    }
}

/// The CSS `font` shorthand the canvas backend writes for a text style.
fn font_of<S: BackendTextStyle>(style: &S) -> String {
    format!(
        "{} {}px {}",
        style.style().as_str(),
        style.size(),
        style.family().as_str()
    )
}

impl DrawingBackend for Hidpi {
    type ErrorType = CanvasError;

    fn get_size(&self) -> (u32, u32) {
        self.size
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.present()
    }

    fn draw_pixel(
        &mut self,
        p: BackendCoord,
        c: BackendColor,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_pixel(p, c)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        b: BackendCoord,
        s: &S,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_line(a, b, s)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        b: BackendCoord,
        s: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_rect(a, b, s, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        s: &S,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_path(path, s)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        s: &S,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.fill_polygon(path, s)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        c: BackendCoord,
        r: u32,
        s: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        self.inner.draw_circle(c, r, s, fill)
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        s: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<CanvasError>> {
        if !text.trim().is_empty() {
            let (w, h) = self.estimate_text_size(text, s)?;
            let (x0, y0, x1, y1) = text_box(pos, (w as i32, h as i32), s.anchor(), s.transform());
            self.labels
                .borrow_mut()
                .push((x0, y0, x1, y1, text.to_string()));
        }
        self.inner.draw_text(text, s, pos)
    }

    /// Measures with the canvas itself: exact for any script, and no
    /// layout of a hidden element per label (plotters' default on wasm).
    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        s: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<CanvasError>> {
        self.ctx.set_font(&font_of(s));
        let width = self
            .ctx
            .measure_text(text)
            .map(|m| m.width())
            .unwrap_or(text.chars().count() as f64 * s.size());
        Ok((width.ceil() as u32, s.size().ceil() as u32))
    }
}

/// Sizes the canvas for its CSS box at the screen's pixel ratio and runs
/// `f` on a drawing area in CSS pixels. `css_height` is the canvas's CSS
/// height; its width is what layout gave it.
pub fn draw_on<T>(
    canvas: &HtmlCanvasElement,
    css_height: u32,
    f: impl FnOnce(&DrawingArea<Hidpi, Shift>) -> Result<T, DrawingAreaErrorKind<CanvasError>>,
) -> Result<T, String> {
    let css_width = match canvas.client_width() {
        w if w > 0 => w as u32,
        _ => 640,
    };
    let ratio = web_sys::window()
        .map(|w| w.device_pixel_ratio())
        .filter(|r| r.is_finite() && *r > 0.0)
        .unwrap_or(1.0)
        .clamp(1.0, 4.0);
    canvas.set_width((f64::from(css_width) * ratio).round() as u32);
    canvas.set_height((f64::from(css_height) * ratio).round() as u32);
    let ctx: CanvasRenderingContext2d = canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into().ok())
        .ok_or("no 2d context")?;
    // Resizing reset the context; scale it so one unit is one CSS pixel.
    ctx.set_transform(ratio, 0.0, 0.0, ratio, 0.0, 0.0)
        .map_err(|e| format!("{e:?}"))?;
    let inner = CanvasBackend::with_canvas_object(canvas.clone()).ok_or("no canvas backend")?;
    let labels = Rc::new(RefCell::new(Vec::new()));
    let root = Hidpi {
        inner,
        ctx,
        size: (css_width, css_height),
        labels: labels.clone(),
    }
    .into_drawing_area();
    let out = f(&root).map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())?;
    let json = serde_json::to_string(&*labels.borrow()).unwrap_or_default();
    let _ = canvas.set_attribute("data-labels", &json);
    Ok(out)
}

/// Marks the end of a chart's drawing for browser benchmarks
/// (`performance.getEntriesByName("memwall:chart:<name>")`).
pub fn mark(name: &str) {
    if let Some(p) = web_sys::window().and_then(|w| w.performance()) {
        let _ = p.mark(&format!("memwall:chart:{name}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_boxes_follow_anchor_and_rotation() {
        let centre = Pos::new(HPos::Center, VPos::Center);
        let top_left = Pos::new(HPos::Left, VPos::Top);
        assert_eq!(
            text_box((100, 50), (40, 10), top_left, FontTransform::None),
            (100, 50, 140, 60)
        );
        assert_eq!(
            text_box((100, 50), (40, 10), centre, FontTransform::None),
            (80, 45, 120, 55)
        );
        // Read bottom to top: tall and thin, centred on the anchor.
        assert_eq!(
            text_box((100, 50), (40, 10), centre, FontTransform::Rotate270),
            (95, 30, 105, 70)
        );
        assert_eq!(
            text_box((100, 50), (40, 10), centre, FontTransform::Rotate90),
            (95, 30, 105, 70)
        );
    }
}
