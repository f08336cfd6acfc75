//! The result the workspace's view names.

use super::compare_table::CompareTable;
use super::frontier_view::FrontierView;
use super::memory_view::MemoryView;
use super::scope::Scope;
use super::sweep_view::SweepView;
use super::time_view::TimeView;
use crate::components::ops::{
    reliability_view::ReliabilityView, tenants_view::TenantsView, wall_view::WallView,
};
use crate::state::use_state;
use leptos::prelude::*;
use planner_core::workspace::View;

/// The chosen view. Only it is mounted, so a hidden chart neither draws nor
/// sweeps.
#[component]
pub fn ResultBody(
    /// Which plans the memory and time charts draw.
    scope: Scope,
    /// CSS height of the charts in pixels.
    #[prop(default = 340)]
    height: u32,
) -> impl IntoView {
    let state = use_state();
    // A memo, so a lever change does not remount the chart.
    let current = Memo::new(move |_| state.ws.with(|w| w.view));
    move || match current.get() {
        View::Memory => view! { <MemoryView scope=scope height=height /> }.into_any(),
        View::Time => view! { <TimeView scope=scope height=height /> }.into_any(),
        View::Frontier => view! { <FrontierView height=height /> }.into_any(),
        View::Sweep => view! { <SweepView height=height /> }.into_any(),
        View::Compare => view! { <CompareTable /> }.into_any(),
        View::Tenants => view! { <TenantsView /> }.into_any(),
        View::Reliability => view! { <ReliabilityView height=height /> }.into_any(),
        View::Wall => view! { <WallView height=height /> }.into_any(),
    }
}
