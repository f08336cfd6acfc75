//! Built-in workspaces: the default plan and the scenario presets.

use planner_core::example_plan;
use planner_core::share::{Lang, Workspace};

/// The workspace shown when the address holds none.
pub fn default_workspace(lang: Lang) -> Workspace {
    let mut ws = Workspace::new(example_plan());
    ws.lang = lang;
    ws
}
