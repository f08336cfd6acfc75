//! Saved plans in the browser's localStorage, under one key as JSON. A
//! damaged entry is dropped, never trusted.

use planner_core::plan::Plan;
use serde::{Deserialize, Serialize};

const KEY: &str = "memwall.saved.v1";

/// A plan the user saved, with the name they gave it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Saved {
    /// The name.
    pub name: String,
    /// The plan.
    pub plan: Plan,
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

/// Parses the stored list, dropping anything unreadable. Each entry goes
/// back through text rather than `serde_json::from_value`, so the wasm holds
/// one deserializer of the plan, not two (about 100 KB).
pub fn parse(json: &str) -> Vec<Saved> {
    serde_json::from_str::<Vec<serde_json::Value>>(json)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|v| serde_json::from_str(&v.to_string()).ok())
        .collect()
}

/// Every saved plan.
pub fn load() -> Vec<Saved> {
    storage()
        .and_then(|s| s.get_item(KEY).ok().flatten())
        .map(|j| parse(&j))
        .unwrap_or_default()
}

/// Replaces the saved list.
pub fn store(list: &[Saved]) {
    if let (Some(s), Ok(json)) = (storage(), serde_json::to_string(list)) {
        let _ = s.set_item(KEY, &json);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner_core::example_plan;

    #[test]
    fn damaged_entries_are_dropped() {
        let good = Saved {
            name: "a".into(),
            plan: example_plan(),
        };
        let json = serde_json::to_string(&vec![good.clone()]).unwrap_or_default();
        assert_eq!(parse(&json), vec![good.clone()]);
        let mixed = format!(
            "[{{\"name\":\"x\"}},{}]",
            serde_json::to_string(&good).unwrap_or_default()
        );
        assert_eq!(parse(&mixed), vec![good]);
        assert!(parse("not json").is_empty());
    }
}
