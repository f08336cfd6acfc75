//! # planner-core
//!
//! memwall's domain model: given a [`Plan`] (model, workload, levers,
//! hardware), [`evaluate`] computes a [`Report`] of memory per device and
//! tier, whether it fits, and why not. Pure Rust: no I/O, no clocks, no
//! randomness, no web dependency; it builds for the host and for
//! `wasm32-unknown-unknown`.

pub mod catalog;
pub mod hardware;
pub mod hf;
pub mod model;
pub mod precision;
pub mod units;
