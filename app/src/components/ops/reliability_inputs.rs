//! The storage and failure settings behind the reliability view and the
//! checklists' checkpoint items. An empty box takes the core's default,
//! which the box shows as its placeholder (read from the report, so the
//! app computes none of it).

use super::codecs::{OPT_GBPS, OPT_MINUTES, OPT_PER_YEAR};
use super::field::{number, toggle};
use crate::components::editor::parse::show_number;
use crate::i18n::ops::{t, K};
use crate::state::use_state;
use leptos::prelude::*;
use planner_core::checkpoint::{default_restart_overhead, CheckpointReport, SaveLayout, SaveMode};

/// The settings.
#[component]
pub fn ReliabilityInputs(
    /// The active plan's report, for the defaults shown in empty boxes.
    report: Memo<Option<CheckpointReport>>,
) -> impl IntoView {
    let state = use_state();
    let lang = move || state.lang();
    let hint = move |f: fn(&CheckpointReport) -> f64| {
        Signal::derive(move || {
            report.with(|r| {
                r.as_ref()
                    .map(|c| format!("{} {}", t(lang(), K::Default), show_number(f(c))))
            })
        })
    };
    let restart = Signal::derive(move || {
        let minutes = default_restart_overhead().as_secs() / 60.0;
        Some(format!(
            "{} {}",
            t(lang(), K::Default),
            show_number(minutes)
        ))
    });
    view! {
        <fieldset class="ops-box" data-testid="reliability-settings">
            <legend>{move || t(lang(), K::StorageSettings)}</legend>
            <div class="grid2">
                {number(K::Storage, "reliability-storage".into(), OPT_GBPS,
                    |w| w.reliability.storage_bandwidth, |w, v| w.reliability.storage_bandwidth = v,
                    hint(|c| c.storage_bandwidth.as_gb_per_s()))}
                {number(K::NodeBandwidth, "reliability-node".into(), OPT_GBPS,
                    |w| w.reliability.node_bandwidth, |w, v| w.reliability.node_bandwidth = v,
                    hint(|c| c.node_bandwidth.as_gb_per_s()))}
                {number(K::FailureRate, "reliability-failure-rate".into(), OPT_PER_YEAR,
                    |w| w.reliability.failure_rate, |w, v| w.reliability.failure_rate = v,
                    hint(|c| c.failure_rate.as_per_year()))}
                {number(K::RestartMinutes, "reliability-restart".into(), OPT_MINUTES,
                    |w| w.reliability.restart_overhead, |w, v| w.reliability.restart_overhead = v,
                    restart)}
            </div>
            {toggle(K::AsyncSave, "reliability-async".into(),
                |w| w.reliability.mode == SaveMode::Async,
                |w, on| w.reliability.mode = if on { SaveMode::Async } else { SaveMode::Blocking })}
            {toggle(K::OwnShards, "reliability-own-shards".into(),
                |w| w.reliability.layout == SaveLayout::OwnShards,
                |w, on| w.reliability.layout = if on { SaveLayout::OwnShards } else { SaveLayout::Balanced })}
        </fieldset>
    }
}
