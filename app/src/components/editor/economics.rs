//! How the GPUs are paid for: rented by the hour or bought and amortised,
//! with an optional price in place of the catalog's.

use super::bind::{fraction_slider, hint, number, number_with_hint, pick};
use super::lens::use_plan;
use super::parse::{NUMBER, OPT_USD};
use crate::i18n::editor::{t, K};
use leptos::prelude::*;
use planner_core::economics::Pricing;

/// Economics levers.
#[component]
pub fn EconomicsLevers() -> impl IntoView {
    let lens = use_plan();
    let capex =
        Memo::new(move |_| lens.get(|p| matches!(p.economics.pricing, Pricing::Capex { .. })));
    let rental_price = move || {
        number_with_hint(
            lens,
            K::PriceHour,
            "econ-price",
            OPT_USD,
            |p| match p.economics.pricing {
                Pricing::Rental { usd_per_gpu_hour } => usd_per_gpu_hour,
                _ => None,
            },
            |p, v| {
                if let Pricing::Rental { usd_per_gpu_hour } = &mut p.economics.pricing {
                    *usd_per_gpu_hour = v
                }
            },
            hint(lens, K::CatalogPrice),
        )
    };
    view! {
        <details class="lever-set" open data-testid="levers-economics">
            <summary>{move || t(lens.lang(), K::Economics)}</summary>
            {pick(lens, K::Pricing, "econ-pricing", |p| p.economics.pricing, |p, v| p.economics.pricing = v)}
            {pick(lens, K::Market, "econ-market", |p| p.economics.market, |p, v| p.economics.market = v)}
            <Show when={move || capex.get()} fallback={rental_price}>
                {number_with_hint(lens, K::PriceGpu, "econ-price", OPT_USD,
                    |p| match p.economics.pricing { Pricing::Capex { usd_per_gpu, .. } => usd_per_gpu, _ => None },
                    |p, v| if let Pricing::Capex { usd_per_gpu, .. } = &mut p.economics.pricing { *usd_per_gpu = v },
                    hint(lens, K::CatalogPrice))}
                {number(lens, K::Horizon, "econ-horizon", NUMBER,
                    |p| match p.economics.pricing { Pricing::Capex { horizon_years, .. } => horizon_years, _ => 0.0 },
                    |p, v| if let Pricing::Capex { horizon_years, .. } = &mut p.economics.pricing { *horizon_years = v })}
                {fraction_slider(lens, K::Utilisation, "econ-utilisation",
                    |p| match p.economics.pricing { Pricing::Capex { utilisation, .. } => utilisation, _ => 0.0 },
                    |p, v| if let Pricing::Capex { utilisation, .. } = &mut p.economics.pricing { *utilisation = v })}
            </Show>
        </details>
    }
}
