//! Every visible string, in English and Simplified Chinese.
//!
//! Each area of the app has its own key enum and table (`common`, and the
//! ones the editor and results add), so no string is written inline in a
//! component. `tr(lang, en, zh)` is the one way a table picks a language.

pub mod calibrate;
pub mod common;
pub mod domain;
pub mod editor;
pub mod results;

pub use planner_core::share::Lang;

/// Picks the string of a language.
pub fn tr(lang: Lang, en: &'static str, zh: &'static str) -> &'static str {
    match lang {
        Lang::En => en,
        Lang::Zh => zh,
    }
}

/// The browser's preferred language: Chinese for any `zh*` tag, else English.
pub fn from_browser_tag(tag: &str) -> Lang {
    if tag.to_ascii_lowercase().starts_with("zh") {
        Lang::Zh
    } else {
        Lang::En
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn browser_tags() {
        assert_eq!(from_browser_tag("zh-CN"), Lang::Zh);
        assert_eq!(from_browser_tag("zh-Hans-CN"), Lang::Zh);
        assert_eq!(from_browser_tag("en-US"), Lang::En);
        assert_eq!(from_browser_tag("fr"), Lang::En);
    }
}
