//! The operations views: a pool of GPUs shared by the workspace's plans
//! (tenants), checkpoints and failures of the active plan (reliability),
//! model memory against GPU memory over the years (the wall), and the
//! active plan's migration checklist. Each calls one function of the core
//! (`tenants::share`, `checkpoint::checkpoint` and `failure_sweep`,
//! `wall::wall`, `checklist::checklist`) and shows its result; their
//! settings live in the workspace, and so in the link.

pub mod checklist;
pub mod codecs;
pub mod gpu_grid;
pub mod job_picker;
pub mod ops_table;
pub mod pool_editor;
pub mod reliability_inputs;
pub mod reliability_table;
pub mod reliability_view;
pub mod tenants_summary;
pub mod tenants_table;
pub mod tenants_view;
pub mod wall_table;
pub mod wall_view;
