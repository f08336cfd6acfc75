//! UI components, one per file. The editor column lives in `editor/`, the
//! results column and the embed view in `results/`, the tenants,
//! reliability and wall views and the checklist in `ops/`.

pub mod app;
pub mod banner;
pub mod diagnostic_list;
pub mod editor;
pub mod header;
pub mod ops;
pub mod results;
pub mod share;
pub mod snippets;
pub mod verdict;
