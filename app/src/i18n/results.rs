//! Strings of the results column and the charts.

use super::{tr, Lang};

/// Keys of the results' strings (each names its string).
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum K {
    Results,
}

/// A results string.
pub fn t(lang: Lang, k: K) -> &'static str {
    match k {
        K::Results => tr(lang, "Results", "结果"),
    }
}
