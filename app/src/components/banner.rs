//! The message shown when the address's link could not be opened, and
//! short notices. Text only: nothing from a link is rendered as markup.

use crate::i18n::common::{t, K};
use crate::state::use_state;
use leptos::prelude::*;
use std::time::Duration;

/// How long a notice stays before it is removed; it fades out over the
/// last second (the `.banner.notice` animation in style.css).
const NOTICE_SHOWN: Duration = Duration::from_secs(4);

/// Link problems and notices.
#[component]
pub fn Banner() -> impl IntoView {
    let state = use_state();
    let lang = move || state.lang();
    // Each notice is removed after a while, unless a newer one replaced it.
    let shown = StoredValue::new(0u64);
    Effect::new(move |_| {
        if state.notice.with(Option::is_some) {
            shown.update_value(|n| *n += 1);
            let mine = shown.get_value();
            set_timeout(
                move || {
                    if shown.get_value() == mine {
                        state.notice.set(None);
                    }
                },
                NOTICE_SHOWN,
            );
        }
    });
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
            state.notice.get().map(|n| view! { <div class="banner notice" role="status" data-testid="notice">{n}</div> })
        }}
    }
}
