//! UI components, one per file. The editor column lives in `editor/`, the
//! results column and the embed view in `results/`.

pub mod app;
pub mod banner;
pub mod editor;
pub mod header;
pub mod results;
pub mod verdict;
