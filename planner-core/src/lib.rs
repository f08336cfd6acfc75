//! # planner-core
//!
//! memwall's domain model: given a [`Plan`] (model, workload, levers,
//! hardware), [`evaluate`] computes a [`Report`] of memory per device and
//! tier, whether it fits, and why not. Pure Rust: no I/O, no clocks, no
//! randomness, no web dependency; it builds for the host and for
//! `wasm32-unknown-unknown`.
//!
//! ```
//! use planner_core::{evaluate, example_plan, Verdict};
//! let report = evaluate(&example_plan());
//! assert_ne!(report.verdict, Verdict::Invalid);
//! ```

// The workspace denies unsafe code (the GPU harness alone allows it in its
// NVML module); the core forbids it outright.
#![forbid(unsafe_code)]

pub mod calibrate;
pub mod capability;
pub mod catalog;
pub mod checklist;
pub mod checkpoint;
mod cost;
pub mod diagnostics;
pub mod diff;
pub mod disagg;
pub mod economics;
pub mod efficiency;
pub mod effort;
pub mod engine;
mod evaluate;
mod examples;
pub mod fixed;
pub mod floor;
pub mod hardware;
pub mod hf;
pub mod lang;
pub mod lever;
pub mod link;
mod memory;
pub mod model;
pub mod moe;
pub mod pareto;
mod partition;
pub mod placement;
pub mod plan;
pub mod precision;
pub mod quick;
pub mod report;
pub mod request;
mod resolve;
pub mod search;
pub mod serving;
pub mod software;
pub mod stack;
pub mod sweep;
pub mod tenants;
mod time;
pub mod uncertainty;
pub mod units;
pub mod wall;
pub mod workspace;
pub mod zero;

pub use cost::market_of;
pub use diagnostics::{Diagnostic, DiagnosticKind, IgnoredLever, Severity};
pub use evaluate::evaluate;
pub use examples::{example_disagg_plan, example_plan, example_serving_plan};
pub use lang::{Lang, Named, Text};
/// The fitted allocator reserve per lazily created state (for the GPU
/// harness's fit test; `overheads.allocator_cache` overrides it).
pub use memory::allocator::CACHE_PER_LAZY_STATE;
pub use plan::{Plan, PlanParseError};
pub use report::{Report, Verdict};
