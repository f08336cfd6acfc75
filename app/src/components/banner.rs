//! The message shown when the address's link could not be opened, and
//! short notices. Text only: nothing from a link is rendered as markup.

use crate::i18n::common::{t, K};
use crate::state::use_state;
use leptos::prelude::*;

/// Link problems and notices.
#[component]
pub fn Banner() -> impl IntoView {
    let state = use_state();
    let lang = move || state.lang();
    view! {
        {move || {
            state.link_error.get().map(|e| {
                view! {
                    <div class="banner error" role="alert" data-testid="link-error">
                        <strong>{move || t(lang(), K::LinkProblem)}</strong>
                        " "
                        <span>{e.message(lang())}</span>
                        " "
                        <span>{move || t(lang(), K::DefaultLoaded)}</span>
                        <button
                            data-testid="dismiss-link-error"
                            on:click={move |_| state.link_error.set(None)}
                        >
                            {move || t(lang(), K::Dismiss)}
                        </button>
                    </div>
                }
            })
        }}
        {move || {
            state.notice.get().map(|n| view! { <div class="banner notice" data-testid="notice">{n}</div> })
        }}
    }
}
