//! Memory beyond HBM: host DRAM and NVMe per node, CXL expanders, and a
//! CXL pool shared by several GPUs.

use super::bind::{choice, number, toggle};
use super::hardware::{id_key, id_of_key};
use super::lens::use_plan;
use super::parse::{parse_number, show_number, Codec, COUNT, GB};
use crate::i18n::editor::{t, K};
use crate::i18n::Lang;
use crate::presets::default_pool;
use leptos::prelude::*;
use planner_core::catalog::CXL_DEVICES;
use planner_core::hardware::{CxlChoice, CxlExpansion};
use planner_core::plan::Plan;
use planner_core::units::{ByteRate, Seconds};

/// Bandwidth in decimal GB/s.
const GB_PER_S: Codec<ByteRate> = Codec {
    parse: |s| parse_number(s).map(ByteRate::from_gb_per_s),
    show: |r| show_number(r.as_gb_per_s()),
};

/// Latency in nanoseconds.
const NANOS: Codec<Seconds> = Codec {
    parse: |s| parse_number(s).map(Seconds::from_nanos),
    show: |s| show_number(s.as_nanos()),
};

fn cxl_options(p: &Plan, lang: Lang) -> Vec<(String, String)> {
    let mut o = vec![(String::new(), t(lang, K::NoCxl).to_string())];
    o.extend(
        CXL_DEVICES
            .iter()
            .map(|e| (id_key(e.id), e.name.to_string())),
    );
    // A custom device (from a link) keeps an entry of its own.
    if let Some(CxlChoice::Custom(c)) = p.hardware.cxl.map(|c| c.device) {
        o.push((
            "custom".into(),
            format!("{} {}", t(lang, K::CustomEntry), c.capacity),
        ));
    }
    o
}

fn cxl_key(p: &Plan) -> String {
    match p.hardware.cxl.map(|c| c.device) {
        Some(CxlChoice::Preset(id)) => id_key(id),
        Some(CxlChoice::Custom(_)) => "custom".into(),
        None => String::new(),
    }
}

fn set_cxl(p: &mut Plan, key: &str) {
    if key == "custom" {
        return;
    }
    p.hardware.cxl = id_of_key(key).map(|id| CxlExpansion {
        devices_per_node: p.hardware.cxl.map_or(4, |c| c.devices_per_node),
        device: CxlChoice::Preset(id),
    });
}

macro_rules! pool_field {
    ($label:ident, $id:literal, $codec:expr, $field:ident) => {
        number(
            use_plan(),
            K::$label,
            $id,
            $codec,
            |p| p.hardware.pool.unwrap_or_else(default_pool).$field,
            |p, v| {
                if let Some(pool) = &mut p.hardware.pool {
                    pool.$field = v;
                }
            },
        )
    };
}

/// Memory-tier levers.
#[component]
pub fn TierLevers() -> impl IntoView {
    let lens = use_plan();
    let has_cxl = Memo::new(move |_| lens.get(|p| p.hardware.cxl.is_some()));
    let pooled = Memo::new(move |_| lens.get(|p| p.hardware.pool.is_some()));
    view! {
        <details class="lever-set" open data-testid="levers-tiers">
            <summary>{move || t(lens.lang(), K::Tiers)}</summary>
            <div class="grid2">
                {number(lens, K::HostDram, "hw-host-dram", GB, |p| p.hardware.host_dram_per_node, |p, v| p.hardware.host_dram_per_node = v)}
                {number(lens, K::Nvme, "hw-nvme", GB, |p| p.hardware.nvme_per_node, |p, v| p.hardware.nvme_per_node = v)}
            </div>
            {choice(lens, K::CxlDevice, "hw-cxl-device", move |lang| lens.get(|p| cxl_options(p, lang)), cxl_key, set_cxl)}
            <Show when={move || has_cxl.get()}>
                {number(lens, K::CxlCount, "hw-cxl-count", COUNT,
                    |p| p.hardware.cxl.map_or(0, |c| c.devices_per_node),
                    |p, v| if let Some(c) = &mut p.hardware.cxl { c.devices_per_node = v })}
            </Show>
            {toggle(lens, K::Pool, "hw-pool", |p| p.hardware.pool.is_some(),
                |p, on| p.hardware.pool = on.then(|| p.hardware.pool.unwrap_or_else(default_pool)))}
            <Show when={move || pooled.get()}>
                <div class="grid2">
                    {pool_field!(PoolCapacity, "hw-pool-capacity", GB, capacity)}
                    {pool_field!(PoolShared, "hw-pool-shared", COUNT, shared_by_gpus)}
                    {pool_field!(PoolBandwidth, "hw-pool-bandwidth", GB_PER_S, bandwidth)}
                    {pool_field!(PoolLatency, "hw-pool-latency", NANOS, latency)}
                </div>
            </Show>
        </details>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner_core::catalog::CxlId;
    use planner_core::example_plan;

    #[test]
    fn cxl_devices_keep_their_count() {
        let mut p = example_plan();
        set_cxl(&mut p, &id_key(CxlId::SamsungCmmD128));
        assert_eq!(p.hardware.cxl.map(|c| c.devices_per_node), Some(4));
        if let Some(c) = &mut p.hardware.cxl {
            c.devices_per_node = 2;
        }
        set_cxl(&mut p, &id_key(CxlId::MicronCz120_256));
        assert_eq!(cxl_key(&p), id_key(CxlId::MicronCz120_256));
        assert_eq!(p.hardware.cxl.map(|c| c.devices_per_node), Some(2));
        set_cxl(&mut p, "");
        assert_eq!(p.hardware.cxl, None);
        assert_eq!(cxl_options(&p, Lang::En).len(), CXL_DEVICES.len() + 1);
    }
}
