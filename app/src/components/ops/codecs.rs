//! What the operations views' number boxes accept: optional quantities in
//! the unit their label names, where an empty box means "the default" (or
//! "no target"). Pure and total, like the editor's codecs; the core says
//! which values are out of range.

use crate::components::editor::parse::{parse_number, show_number, Codec};
use planner_core::units::{ByteRate, Frequency, Seconds};

/// Reads an optional value: empty is `Some(None)`, a number is mapped.
fn optional<T>(s: &str, f: impl Fn(f64) -> T) -> Option<Option<T>> {
    if s.trim().is_empty() {
        Some(None)
    } else {
        parse_number(s).map(|v| Some(f(v)))
    }
}

/// A bandwidth in GB/s.
pub const OPT_GBPS: Codec<Option<ByteRate>> = Codec {
    parse: |s| optional(s, ByteRate::from_gb_per_s),
    show: |v| v.map(|r| show_number(r.as_gb_per_s())).unwrap_or_default(),
};

/// A rate in events per year (of 365.25 days).
pub const OPT_PER_YEAR: Codec<Option<Frequency>> = Codec {
    parse: |s| optional(s, Frequency::per_year),
    show: |v| v.map(|f| show_number(f.as_per_year())).unwrap_or_default(),
};

/// A duration in minutes.
pub const OPT_MINUTES: Codec<Option<Seconds>> = Codec {
    parse: |s| optional(s, |m| Seconds::from_secs(m * 60.0)),
    show: |v| {
        v.map(|d| show_number(d.as_secs() / 60.0))
            .unwrap_or_default()
    },
};

/// A duration in seconds.
pub const OPT_SECS: Codec<Option<Seconds>> = Codec {
    parse: |s| optional(s, Seconds::from_secs),
    show: |v| v.map(|d| show_number(d.as_secs())).unwrap_or_default(),
};

/// A duration in milliseconds.
pub const OPT_MILLIS: Codec<Option<Seconds>> = Codec {
    parse: |s| optional(s, Seconds::from_millis),
    show: |v| v.map(|d| show_number(d.as_millis())).unwrap_or_default(),
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_is_the_default_and_numbers_keep_their_unit() {
        assert_eq!((OPT_GBPS.parse)(" "), Some(None));
        assert_eq!((OPT_GBPS.parse)("x"), None);
        let r = (OPT_GBPS.parse)("12.5").flatten();
        assert_eq!((OPT_GBPS.show)(&r), "12.5");
        let f = (OPT_PER_YEAR.parse)("0.5").flatten();
        assert!((f.map_or(0.0, |f| f.as_per_year()) - 0.5).abs() < 1e-12);
        assert_eq!((OPT_PER_YEAR.show)(&f), "0.5");
        let m = (OPT_MINUTES.parse)("10").flatten();
        assert_eq!(m.map(|d| d.as_secs()), Some(600.0));
        assert_eq!((OPT_MINUTES.show)(&m), "10");
        let t = (OPT_MILLIS.parse)("50").flatten();
        assert_eq!((OPT_MILLIS.show)(&t), "50");
        assert_eq!((OPT_SECS.show)(&(OPT_SECS.parse)("2").flatten()), "2");
        assert_eq!((OPT_SECS.show)(&None), "");
    }
}
