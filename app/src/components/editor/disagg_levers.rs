//! Disaggregated prefill and decode: a serving plan's GPUs split into a
//! pool that prefills and a pool that decodes, each with its own TP and
//! replicas, and the link that carries the KV cache between them. The
//! first split is the core's (`Disaggregation::halves`); the core checks
//! every pool and names what does not fit.

use super::bind::{choice, number, toggle};
use super::hardware::{id_key, id_of_key};
use super::lens::use_plan;
use super::parse::COUNT;
use crate::i18n::editor::{t, K};
use crate::i18n::Lang;
use leptos::prelude::*;
use planner_core::catalog::LINKS;
use planner_core::disagg::{Disaggregation, KvTransfer, Pool};
use planner_core::plan::Plan;
use planner_core::Named;

/// GPU-to-GPU links: the scale-up and scale-out entries of the catalog,
/// after the automatic choice.
fn link_options(lang: Lang) -> Vec<(String, String)> {
    let mut o = vec![(String::new(), t(lang, K::KvLinkAuto).to_string())];
    o.extend(
        LINKS
            .iter()
            .filter(|l| id_key(l.role) != "host")
            .map(|l| (id_key(l.id), l.name.to_string())),
    );
    o
}

/// When the KV cache crosses: the core's names of both ways.
fn transfer_options(lang: Lang) -> Vec<(String, String)> {
    KvTransfer::ALL
        .iter()
        .map(|k| (k.key().to_string(), k.name(lang).to_string()))
        .collect()
}

/// A pool's number field, read and written through `pool`.
fn pool_field(
    label: K,
    testid: &'static str,
    pool: fn(&mut Disaggregation) -> &mut Pool,
    field: fn(&mut Pool) -> &mut u32,
) -> impl IntoView {
    let lens = use_plan();
    number(
        lens,
        label,
        testid,
        COUNT,
        move |p: &Plan| {
            p.levers
                .disaggregation
                .map_or(0, |mut d| *field(pool(&mut d)))
        },
        move |p: &mut Plan, v| {
            if let Some(d) = p.levers.disaggregation.as_mut() {
                *field(pool(d)) = v;
            }
        },
    )
}

/// The split of a serving plan.
#[component]
pub fn DisaggLevers() -> impl IntoView {
    let lens = use_plan();
    let on = Memo::new(move |_| lens.get(|p| p.levers.disaggregation.is_some()));
    let possible = Memo::new(move |_| {
        lens.get(|p| Disaggregation::halves(p.levers.parallel.tp, p.hardware.gpus).is_some())
    });
    view! {
        <details class="lever-set" data-testid="levers-disagg">
            <summary>{move || t(lens.lang(), K::Disaggregation)}</summary>
            {toggle(lens, K::DisaggOn, "lever-disagg-on", |p| p.levers.disaggregation.is_some(),
                |p, want| p.levers.disaggregation = if want {
                    Disaggregation::halves(p.levers.parallel.tp, p.hardware.gpus)
                } else {
                    None
                })}
            <Show when=move || !on.get() && !possible.get()>
                <p class="hint" data-testid="disagg-needs">{move || t(lens.lang(), K::DisaggNeeds)}</p>
            </Show>
            <Show when=move || on.get()>
                <div class="grid2">
                    {pool_field(K::PrefillTp, "lever-prefill-tp", |d| &mut d.prefill, |p| &mut p.tp)}
                    {pool_field(K::PrefillReplicas, "lever-prefill-replicas", |d| &mut d.prefill, |p| &mut p.replicas)}
                    {pool_field(K::DecodeTp, "lever-decode-tp", |d| &mut d.decode, |p| &mut p.tp)}
                    {pool_field(K::DecodeReplicas, "lever-decode-replicas", |d| &mut d.decode, |p| &mut p.replicas)}
                </div>
                {choice(lens, K::KvLink, "lever-kv-link", link_options,
                    |p| p.levers.disaggregation.and_then(|d| d.link).map(id_key).unwrap_or_default(),
                    |p, key| if let Some(d) = p.levers.disaggregation.as_mut() { d.link = id_of_key(key) })}
                {choice(lens, K::KvTransfer, "lever-kv-transfer", transfer_options,
                    |p| p.levers.disaggregation.map(|d| d.transfer.key().to_string()).unwrap_or_default(),
                    |p, key| if let Some(d) = p.levers.disaggregation.as_mut() {
                        d.transfer = KvTransfer::ALL.into_iter().find(|k| k.key() == key).unwrap_or_default();
                    })}
            </Show>
        </details>
    }
}
