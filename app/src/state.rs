//! The app's one state: the workspace signal (mirrored to the address), the
//! reports derived from it, and transient notices.

use crate::url::{self, History};
use leptos::prelude::*;
use planner_core::report::Report;
use planner_core::workspace::{Lang, LinkError, Workspace};

/// Shared handles, provided as context at the root.
#[derive(Clone, Copy)]
pub struct AppState {
    /// The workspace; the address is written from it.
    pub ws: RwSignal<Workspace>,
    /// One report per plan, recomputed when the workspace changes.
    pub reports: Memo<Vec<Report>>,
    /// Why the address's link could not be opened, if it could not.
    pub link_error: RwSignal<Option<LinkError>>,
    /// Embed view (no editor).
    pub embed: RwSignal<bool>,
    /// A short notice ("Link copied"); it fades after a few seconds.
    pub notice: RwSignal<Option<&'static str>>,
    /// Text to copy by hand, when the browser would not copy it: shown in
    /// a dialog while set.
    pub share: RwSignal<Option<String>>,
    /// How the next write enters the history.
    history: RwSignal<History>,
    /// The hash this app wrote last: an event reporting it is our own echo.
    written: StoredValue<String>,
}

impl AppState {
    /// Reads the address (falling back to the default workspace) and starts
    /// mirroring the workspace into it.
    pub fn start(browser_lang: Lang) -> Self {
        let address = url::parse(&url::read());
        let (ws, link_error) = match address.workspace {
            Some(Ok(ws)) => (ws, None),
            Some(Err(e)) => (crate::presets::default_workspace(browser_lang), Some(e)),
            None => (crate::presets::default_workspace(browser_lang), None),
        };
        let ws = RwSignal::new(ws);
        let reports =
            Memo::new(move |_| ws.with(|w| w.plans.iter().map(planner_core::evaluate).collect()));
        let state = Self {
            ws,
            reports,
            link_error: RwSignal::new(link_error),
            embed: RwSignal::new(address.embed),
            notice: RwSignal::new(None),
            share: RwSignal::new(None),
            history: RwSignal::new(History::Replace),
            written: StoredValue::new(String::new()),
        };
        let embed = state.embed;
        let history = state.history;
        let written = state.written;
        Effect::new(move |_| {
            let h = ws.with(|w| url::hash(w, embed.get_untracked()));
            url::write(&h, history.get_untracked());
            written.set_value(h);
            history.set(History::Replace);
        });
        state
    }

    /// Changes the workspace; `how` says whether the change is a new
    /// history entry.
    pub fn update(&self, how: History, f: impl FnOnce(&mut Workspace)) {
        self.history.set(how);
        self.ws.update(f);
    }

    /// The current language.
    pub fn lang(&self) -> Lang {
        self.ws.with(|w| w.lang)
    }

    /// Reloads the workspace from the address: back/forward navigation, or
    /// a link pasted into the address bar of an open page (only the hash
    /// changes, so the page does not reload). A link that cannot be read
    /// shows its message over the default workspace, as on first load.
    pub fn reload_from_address(&self) {
        let hash = url::read();
        // `popstate` and `hashchange` may both report one change, the second
        // after we rewrote the address; our own hash is not news.
        if self.written.with_value(|w| *w == hash) {
            return;
        }
        let address = url::parse(&hash);
        if self.embed.get_untracked() != address.embed {
            self.embed.set(address.embed);
        }
        match address.workspace {
            Some(Ok(ws)) => {
                self.link_error.set(None);
                if self.ws.with_untracked(|w| *w != ws) {
                    self.ws.set(ws);
                }
            }
            Some(Err(e)) => {
                let lang = self.ws.with_untracked(|w| w.lang);
                self.link_error.set(Some(e));
                self.ws.set(crate::presets::default_workspace(lang));
            }
            None => {}
        }
    }
}

/// The state provided at the root.
pub fn use_state() -> AppState {
    expect_context::<AppState>()
}
