//! UI components, one per file.

pub mod app;
pub mod banner;
pub mod header;
pub mod plan_tabs;
pub mod verdict;
