//! The editor column: the scenario, the plans, and the model, workload and
//! levers of the plan being edited. Every field edits the workspace through
//! [`lens::PlanLens`]; nothing here computes a figure of the plan.

pub mod bind;
mod calibrate;
mod custom_model;
mod disagg_levers;
mod economics;
mod find_best;
mod found;
pub mod hardware;
mod hf_import;
pub mod lens;
mod levers;
mod memory_levers;
mod model_picker;
pub mod naming;
pub mod number_box;
mod offload;
mod parallel;
pub mod parse;
pub mod pick;
mod plan_actions;
mod plan_tabs;
mod precision;
mod reduction;
mod saved_plans;
mod scenario;
mod select;
mod serving_levers;
mod slider;
mod stream_levers;
mod tiers;
mod toggle;
mod workload;

use leptos::prelude::*;

/// Everything that edits the workspace.
#[component]
pub fn EditorPanel() -> impl IntoView {
    view! {
        <scenario::ScenarioPanel />
        <plan_tabs::PlanTabs />
        <plan_actions::PlanActions />
        <model_picker::ModelPicker />
        <workload::WorkloadEditor />
        <levers::LeverEditor />
        <find_best::FindBest />
        <calibrate::CalibratePanel />
    }
}
