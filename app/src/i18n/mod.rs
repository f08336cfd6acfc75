//! Every visible string, in English and Simplified Chinese.
//!
//! Each area of the app has its own key enum and table (`common`, and the
//! ones the editor and results add), so no string is written inline in a
//! component. `tr(lang, en, zh)` is the one way a table picks a language.
//! The editor's and the operations views' tables (`editor`, `ops`) are one
//! line per string through the `strings!` macro.

/// Turns a table of `Key => "English", "中文";` lines into the key enum
/// `K`, the list `K::ALL` (for the tests that check every translation),
/// the lookup `t(lang, key)` and `K`'s [`Label`] implementation.
macro_rules! strings {
    ($($key:ident => $en:literal, $zh:literal;)*) => {
        /// Keys of this table's strings (each names its string).
        #[allow(missing_docs)]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum K {
            $($key,)*
        }

        impl K {
            /// Every key.
            pub const ALL: &'static [K] = &[$(K::$key,)*];
        }

        /// A string of this table.
        pub fn t(lang: Lang, k: K) -> &'static str {
            match k {
                $(K::$key => tr(lang, $en, $zh),)*
            }
        }

        impl $crate::i18n::Label for K {
            fn in_lang(self, lang: Lang) -> String {
                t(lang, self).to_string()
            }
        }
    };
}

pub mod calibrate;
pub mod common;
pub mod editor;
pub mod ops;
pub mod results;
pub mod search;

pub use planner_core::workspace::Lang;

/// Text shown in the workspace's language: a key of any table (so a
/// field's label need not belong to one table), or text that follows the
/// language already.
pub trait Label: Copy + Send + Sync + 'static {
    /// The text in `lang`.
    fn in_lang(self, lang: Lang) -> String;
}

/// The core's serving figures are labels in their own name table.
impl Label for planner_core::report::ServingFigure {
    fn in_lang(self, lang: Lang) -> String {
        planner_core::Named::name(self, lang).to_string()
    }
}

/// Picks the string of a language.
pub fn tr(lang: Lang, en: &'static str, zh: &'static str) -> &'static str {
    match lang {
        Lang::En => en,
        Lang::Zh => zh,
    }
}

/// The BCP 47 tag of a language, for `<html lang>` (so screen readers,
/// hyphenation and CJK font selection follow the language switch).
pub fn to_html_tag(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "en",
        Lang::Zh => "zh-CN",
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
        for lang in [Lang::En, Lang::Zh] {
            assert_eq!(from_browser_tag(to_html_tag(lang)), lang);
        }
    }

    #[test]
    fn keys_of_any_table_are_labels() {
        assert_eq!(
            editor::K::Layers.in_lang(Lang::Zh),
            editor::t(Lang::Zh, editor::K::Layers)
        );
        assert_eq!(
            ops::K::Pool.in_lang(Lang::En),
            ops::t(Lang::En, ops::K::Pool)
        );
    }
}
