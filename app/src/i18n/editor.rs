//! Strings of the editor column.

use super::{tr, Lang};

/// Keys of the editor's strings (each names its string).
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum K {
    Scenario,
}

/// An editor string.
pub fn t(lang: Lang, k: K) -> &'static str {
    match k {
        K::Scenario => tr(lang, "Scenario", "场景"),
    }
}
