//! memwall's web planner: URL → workspace → reports → views.
//!
//! The app holds no formulas. It edits a [`planner_core::workspace::Workspace`],
//! asks the core for reports, sweeps and searches, and draws them.

pub mod charts;
pub mod compare;
pub mod components;
pub mod export;
#[cfg(test)]
pub(crate) mod fixtures;
pub mod i18n;
pub mod numfmt;
pub mod presets;
pub mod state;
pub mod storage;
pub mod url;

/// Mounts the app on the page's body.
pub fn mount() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(components::app::App);
}
