//! Charts: series built from the core's reports (`series`), drawn with
//! plotters (`draw`) on a canvas at the screen's resolution (`backend`),
//! with hover regions (`hover`) and fixed colours (`palette`).
//!
//! The split keeps the parts that decide what is shown pure and tested
//! natively: series building and drawing run in `cargo test` against a
//! backend that draws nothing; only `backend` needs a browser.

pub mod backend;
pub mod draw;
pub mod hover;
pub mod palette;
pub mod series;
pub mod svg;
