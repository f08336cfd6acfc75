//! A drawing backend for native tests: it draws nothing, so tests can run
//! the chart code (layout, coordinates, hover regions) without a browser.

use plotters_backend::{
    BackendColor, BackendCoord, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};

/// Draws nothing.
pub struct Recorder {
    size: (u32, u32),
}

impl Recorder {
    /// A backend of this size.
    pub fn new(w: u32, h: u32) -> Self {
        Self { size: (w, h) }
    }
}

impl DrawingBackend for Recorder {
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
        _: BackendCoord,
        _: BackendColor,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        Ok(())
    }

    /// Text is skipped: without a font backend plotters cannot rasterise it.
    fn draw_text<S: BackendTextStyle>(
        &mut self,
        _: &str,
        _: &S,
        _: BackendCoord,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        Ok(())
    }
}
