//! The page's address as the single source of truth: `#w=<link>` holds the
//! workspace, `embed=1` asks for the embed view. Parsing is pure and tested
//! natively; only `read`/`write` touch the browser.

use planner_core::workspace::{LinkError, Workspace};

/// What the address asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct Address {
    /// The workspace, if the address holds one (or why it could not be read).
    pub workspace: Option<Result<Workspace, LinkError>>,
    /// The embed view without the editor.
    pub embed: bool,
}

/// Parses a location hash (`#w=…&embed=1`, with or without the `#`).
pub fn parse(hash: &str) -> Address {
    let hash = hash.strip_prefix('#').unwrap_or(hash);
    let mut workspace = None;
    let mut embed = false;
    for part in hash.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = part.split_once('=').unwrap_or((part, ""));
        match key {
            "w" => workspace = Some(Workspace::from_link(value)),
            "embed" => embed = value != "0",
            _ => {}
        }
    }
    Address { workspace, embed }
}

/// The hash for a workspace.
pub fn hash(ws: &Workspace, embed: bool) -> String {
    if embed {
        format!("#embed=1&w={}", ws.to_link())
    } else {
        format!("#w={}", ws.to_link())
    }
}

/// The current location's hash.
pub fn read() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

/// The page's address without its hash.
pub fn base() -> String {
    web_sys::window()
        .and_then(|w| w.location().href().ok())
        .map(|h| h.split('#').next().unwrap_or_default().to_string())
        .unwrap_or_default()
}

/// How a change enters the browser's history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum History {
    /// Replace the current entry (slider drags, typing).
    Replace,
    /// Add an entry (adding or removing a plan, switching views).
    Push,
}

/// Writes the hash without reloading.
pub fn write(hash: &str, how: History) {
    let Some(h) = web_sys::window().and_then(|w| w.history().ok()) else {
        return;
    };
    let _ = match how {
        History::Replace => h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(hash)),
        History::Push => h.push_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(hash)),
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner_core::example_plan;

    #[test]
    fn round_trip_and_embed_flag() {
        let ws = Workspace::new(example_plan());
        let a = parse(&hash(&ws, false));
        assert_eq!(a.workspace, Some(Ok(ws.clone())));
        assert!(!a.embed);
        let b = parse(&hash(&ws, true));
        assert!(b.embed);
        assert_eq!(b.workspace, Some(Ok(ws)));
    }

    #[test]
    fn empty_and_damaged_hashes() {
        assert_eq!(parse("").workspace, None);
        assert_eq!(parse("#").workspace, None);
        assert!(matches!(parse("#w=1.%%%").workspace, Some(Err(_))));
        assert!(matches!(
            parse("#w=").workspace,
            Some(Err(LinkError::Empty))
        ));
        assert_eq!(parse("#other=3").workspace, None);
    }
}
