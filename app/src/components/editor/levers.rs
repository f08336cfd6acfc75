//! The levers of the plan being edited, in two groups side by side: the
//! algorithmic ones (change the software) and the hardware ones (change
//! the machine, and how it is paid for).

use super::disagg_levers::DisaggLevers;
use super::economics::EconomicsLevers;
use super::hardware::HardwareLevers;
use super::memory_levers::MemoryLevers;
use super::offload::OffloadLevers;
use super::parallel::ParallelLevers;
use super::precision::PrecisionLevers;
use super::reduction::ReductionLevers;
use super::serving_levers::ServingLevers;
use super::stream_levers::StreamLevers;
use super::tiers::TierLevers;
use crate::i18n::editor::{t, K};
use crate::state::use_state;
use leptos::prelude::*;

/// Algorithmic and hardware levers.
#[component]
pub fn LeverEditor() -> impl IntoView {
    let state = use_state();
    let lens = super::lens::use_plan();
    let lang = move || state.lang();
    view! {
        <div class="levers" data-testid="levers">
            <section class="lever-group" data-testid="algorithmic-levers">
                <h3>{move || t(lang(), K::Algorithmic)}</h3>
                <PrecisionLevers />
                <MemoryLevers />
                <ParallelLevers />
                <OffloadLevers />
                // The serving levers only where there is serving.
                <Show when=move || !lens.trains()>
                    <ServingLevers />
                    <StreamLevers />
                    <DisaggLevers />
                </Show>
                <ReductionLevers />
            </section>
            <section class="lever-group" data-testid="hardware-levers">
                <h3>{move || t(lang(), K::HardwareGroup)}</h3>
                <HardwareLevers />
                <TierLevers />
                <EconomicsLevers />
            </section>
        </div>
    }
}
