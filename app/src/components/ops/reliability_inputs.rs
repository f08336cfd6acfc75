//! The storage and failure settings behind the reliability view and the
//! checklists' checkpoint items. An empty box takes the core's default,
//! which the box shows as its placeholder (read from the report, so the
//! app computes none of it).

use super::codecs::{OPT_GBPS, OPT_MINUTES, OPT_PER_YEAR};
use crate::components::editor::bind::{number_with_hint, toggle};
use crate::components::editor::lens::{use_workspace, Lens};
use crate::components::editor::parse::show_number;
use crate::i18n::ops::{t, K};
use leptos::prelude::*;
use planner_core::checkpoint::{default_restart_overhead, CheckpointReport, SaveLayout, SaveMode};

/// The settings.
#[component]
pub fn ReliabilityInputs(
    /// The active plan's report, for the defaults shown in empty boxes.
    report: Memo<Option<CheckpointReport>>,
) -> impl IntoView {
    let ws = use_workspace();
    let lang = move || ws.lang();
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
                {number_with_hint(ws, K::Storage, "reliability-storage", OPT_GBPS,
                    |w| w.reliability.storage_bandwidth, |w, v| w.reliability.storage_bandwidth = v,
                    hint(|c| c.storage_bandwidth.as_gb_per_s()))}
                {number_with_hint(ws, K::NodeBandwidth, "reliability-node", OPT_GBPS,
                    |w| w.reliability.node_bandwidth, |w, v| w.reliability.node_bandwidth = v,
                    hint(|c| c.node_bandwidth.as_gb_per_s()))}
                {number_with_hint(ws, K::FailureRate, "reliability-failure-rate", OPT_PER_YEAR,
                    |w| w.reliability.failure_rate, |w, v| w.reliability.failure_rate = v,
                    hint(|c| c.failure_rate.as_per_year()))}
                {number_with_hint(ws, K::RestartMinutes, "reliability-restart", OPT_MINUTES,
                    |w| w.reliability.restart_overhead, |w, v| w.reliability.restart_overhead = v,
                    restart)}
            </div>
            {toggle(ws, K::AsyncSave, "reliability-async",
                |w| w.reliability.mode == SaveMode::Async,
                |w, on| w.reliability.mode = if on { SaveMode::Async } else { SaveMode::Blocking })}
            {toggle(ws, K::OwnShards, "reliability-own-shards",
                |w| w.reliability.layout == SaveLayout::OwnShards,
                |w, on| w.reliability.layout = if on { SaveLayout::OwnShards } else { SaveLayout::Balanced })}
        </fieldset>
    }
}
