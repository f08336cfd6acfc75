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
pub mod guidance;
pub mod i18n;
pub mod numfmt;
pub mod presets;
pub mod search_run;
pub mod size_run;
pub mod state;
pub mod storage;
pub mod url;
pub mod workers;

/// The id of index.html's loading indicator, shown until the app mounts.
const LOADING_ID: &str = "memwall-loading";

/// Mounts the app on the page's body, then removes index.html's loading
/// indicator.
pub fn mount() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(components::app::App);
    if let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(LOADING_ID))
    {
        el.remove();
    }
}
