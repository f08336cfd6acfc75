//! What the editor's number boxes accept and how they show a value. Pure
//! and total: a text that does not parse is `None`, and the caller keeps
//! the old value. Ranges are not checked here; the core reports a zero,
//! an impossible split or a fraction above one as a diagnostic.

use planner_core::units::{Bytes, Frequency, Seconds, Usd, Watts};

/// How one kind of value is read from and written to a text box.
pub struct Codec<T> {
    /// Reads a typed text; `None` when it is not a value.
    pub parse: fn(&str) -> Option<T>,
    /// Writes a value for the box.
    pub show: fn(&T) -> String,
}

impl<T> Clone for Codec<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Codec<T> {}

/// A count (degrees, tokens per sequence, batch): a whole number.
pub const COUNT: Codec<u32> = Codec {
    parse: parse_count,
    show: |v| v.to_string(),
};

/// An optional count: an empty box means "none".
pub const OPT_COUNT: Codec<Option<u32>> = Codec {
    parse: parse_opt_count,
    show: |v| v.map(|v| v.to_string()).unwrap_or_default(),
};

/// A plain number (years, tokens, fractions).
pub const NUMBER: Codec<f64> = Codec {
    parse: parse_number,
    show: |v| show_number(*v),
};

/// An amount of memory shown in decimal GB; a bare number is GB, and
/// `512 GiB` or `2 TB` are read with their unit.
pub const GB: Codec<Bytes> = Codec {
    parse: parse_gb,
    show: |b| show_number(b.as_gb()),
};

/// An optional price in dollars: an empty box takes the catalog's.
pub const OPT_USD: Codec<Option<Usd>> = Codec {
    parse: parse_opt_usd,
    show: |v| v.map(|u| show_number(u.as_usd())).unwrap_or_default(),
};

/// An optional power in watts: an empty box means none (a board power
/// limit: the part's TDP). The core names a limit out of range.
pub const OPT_WATTS: Codec<Option<Watts>> = Codec {
    parse: |s| {
        if s.trim().is_empty() {
            return Some(None);
        }
        parse_number(s).map(|v| Some(Watts::new(v)))
    },
    show: |v| v.map(|w| show_number(w.as_watts())).unwrap_or_default(),
};

/// A request rate in requests per second: a positive number (a zero or
/// negative rate is no stream; the box keeps the old value).
pub const RATE: Codec<Frequency> = Codec {
    parse: |s| {
        parse_number(s)
            .filter(|v| *v > 0.0)
            .map(Frequency::per_second)
    },
    show: |f| show_number(f.as_per_second()),
};

/// An optional latency in milliseconds that may be zero, at most 10 s
/// (`planner_core::engine::MAX_FRONT_END_MS`): an empty box means the
/// engine's own.
pub const OPT_MS_OR_ZERO: Codec<Option<f64>> = Codec {
    parse: |s| {
        if s.trim().is_empty() {
            return Some(None);
        }
        parse_number(s)
            .filter(|v| (0.0..=planner_core::engine::MAX_FRONT_END_MS).contains(v))
            .map(Some)
    },
    show: |v| v.map(show_number).unwrap_or_default(),
};

/// An optional latency target in milliseconds: an empty box means none.
pub const OPT_MS: Codec<Option<Seconds>> = Codec {
    parse: |s| {
        if s.trim().is_empty() {
            return Some(None);
        }
        parse_number(s)
            .filter(|v| *v > 0.0)
            .map(|v| Some(Seconds::from_millis(v)))
    },
    show: |v| v.map(|s| show_number(s.as_millis())).unwrap_or_default(),
};

/// Drops digit-group separators (`4,096`, `4_096`, `4 096`).
fn ungroup(s: &str) -> String {
    s.trim()
        .chars()
        .filter(|c| !matches!(c, ',' | '_' | ' ' | '\u{a0}' | '\u{202f}'))
        .collect()
}

/// A whole number ≥ 0 that fits a `u32`.
pub fn parse_count(s: &str) -> Option<u32> {
    ungroup(s).parse().ok()
}

/// An optional count; empty is `Some(None)`.
pub fn parse_opt_count(s: &str) -> Option<Option<u32>> {
    if s.trim().is_empty() {
        Some(None)
    } else {
        parse_count(s).map(Some)
    }
}

/// A finite number; `80%` reads as 0.8 and `2e12` as 2·10^12.
pub fn parse_number(s: &str) -> Option<f64> {
    let t = ungroup(s);
    let (t, scale) = match t.strip_suffix('%') {
        Some(p) => (p.to_string(), 0.01),
        None => (t, 1.0),
    };
    let v: f64 = t.parse().ok()?;
    (v * scale).is_finite().then_some(v * scale)
}

/// Memory: a bare number in decimal GB, or a number with a unit the core
/// reads (`B`, `KiB`…`TiB`, `KB`…`TB`).
pub fn parse_gb(s: &str) -> Option<Bytes> {
    if let Some(v) = parse_number(s) {
        return Some(Bytes::from_gb(v));
    }
    let b: Bytes = serde_json::from_value(serde_json::Value::String(s.trim().to_string())).ok()?;
    b.is_finite().then_some(b)
}

/// An optional price; a leading `$` is allowed, empty is `Some(None)`.
pub fn parse_opt_usd(s: &str) -> Option<Option<Usd>> {
    let t = s.trim();
    if t.is_empty() {
        return Some(None);
    }
    parse_number(t.strip_prefix('$').unwrap_or(t)).map(|v| Some(Usd::new(v)))
}

/// A number as a box shows it: never in exponent form below 10^15 (issue
/// 15: "2e12" in a box), whole numbers from 10,000 up grouped by
/// thousands with commas (which [`parse_number`] reads back), small ones with their significant
/// digits, the rest with up to four decimals.
pub fn show_number(v: f64) -> String {
    if !v.is_finite() {
        return String::new();
    }
    let a = v.abs();
    if a >= 1e15 {
        return format!("{v:e}");
    }
    if a >= 1e4 && (v.fract() == 0.0 || a >= 1e6) {
        return group(&format!("{v:.0}"));
    }
    if v.fract() == 0.0 {
        return format!("{v:.0}");
    }
    let decimals = if a < 1e-3 { 12 } else { 4 };
    let s = format!("{v:.decimals$}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A whole number's digits in groups of three: `2,000,000`.
fn group(digits: &str) -> String {
    let (sign, digits) = digits.strip_prefix('-').map_or(("", digits), |d| ("-", d));
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    format!("{sign}{out}")
}

/// A slider value as a count: rounded, clamped to `u32`, NaN as 0.
pub fn to_count(v: f64) -> u32 {
    if v.is_nan() {
        0
    } else {
        v.round().clamp(0.0, f64::from(u32::MAX)) as u32
    }
}

/// How a slider's position maps to a value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scale {
    /// Position = value, from `min` to `max` in steps of `step`.
    Linear {
        /// Left end.
        min: f64,
        /// Right end.
        max: f64,
        /// Step.
        step: f64,
    },
    /// Powers of two from `2^min` to `2^max`; the position is the exponent.
    Log2 {
        /// Exponent at the left end.
        min: i32,
        /// Exponent at the right end.
        max: i32,
    },
}

impl Scale {
    /// The range input's `min`, `max` and `step`.
    pub fn bounds(self) -> (f64, f64, f64) {
        match self {
            Scale::Linear { min, max, step } => (min, max, step),
            Scale::Log2 { min, max } => (f64::from(min), f64::from(max), 1.0),
        }
    }

    /// The slider position of a value, clamped to the ends.
    pub fn position(self, v: f64) -> f64 {
        let (lo, hi, _) = self.bounds();
        let p = match self {
            Scale::Linear { .. } => v,
            Scale::Log2 { .. } if v > 0.0 => v.log2().round(),
            Scale::Log2 { .. } => lo,
        };
        if p.is_nan() {
            lo
        } else {
            p.clamp(lo, hi)
        }
    }

    /// The value at a slider position.
    pub fn value(self, position: f64) -> f64 {
        match self {
            Scale::Linear { .. } => position,
            Scale::Log2 { .. } => position.round().exp2(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts() {
        assert_eq!(parse_count("4096"), Some(4096));
        assert_eq!(parse_count(" 4,096 "), Some(4096));
        assert_eq!(parse_count("4_096"), Some(4096));
        assert_eq!(parse_count("0"), Some(0));
        for bad in ["", "-1", "1.5", "abc", "4k", "99999999999", "NaN"] {
            assert_eq!(parse_count(bad), None, "{bad}");
        }
        assert_eq!(parse_opt_count(""), Some(None));
        assert_eq!(parse_opt_count("8192"), Some(Some(8192)));
        assert_eq!(parse_opt_count("x"), None);
    }

    #[test]
    fn numbers_and_percentages() {
        assert_eq!(parse_number("0.5"), Some(0.5));
        assert_eq!(parse_number("80%"), Some(0.8));
        assert_eq!(parse_number("2e12"), Some(2e12));
        assert_eq!(parse_number("1,000,000"), Some(1e6));
        for bad in ["", "NaN", "inf", "-inf", "1e999", "%", "a%"] {
            assert_eq!(parse_number(bad), None, "{bad}");
        }
    }

    #[test]
    fn memory_sizes() {
        assert_eq!(parse_gb("2000"), Some(Bytes::from_gb(2000.0)));
        assert_eq!(parse_gb("2 TB"), Some(Bytes::from_tb(2.0)));
        assert_eq!(parse_gb("512 GiB"), Some(Bytes::from_gib(512.0)));
        assert_eq!(parse_gb("lots"), None);
        assert_eq!(parse_gb("5 parsecs"), None);
        assert_eq!((GB.show)(&Bytes::from_tb(2.0)), "2000");
    }

    #[test]
    fn prices() {
        assert_eq!(parse_opt_usd(""), Some(None));
        assert_eq!(parse_opt_usd("$2.5"), Some(Some(Usd::new(2.5))));
        assert_eq!(parse_opt_usd("2.5"), Some(Some(Usd::new(2.5))));
        assert_eq!(parse_opt_usd("cheap"), None);
    }

    #[test]
    fn shown_numbers_read_back() {
        for v in [
            0.0, 1.0, 4096.0, 0.4, 0.125, 1.0e9, 2.0e12, 94.0e9, 1.5e-4, 123.4567,
        ] {
            let shown = show_number(v);
            let back = parse_number(&shown).unwrap_or(f64::NAN);
            assert!((back - v).abs() <= v.abs() * 1e-4, "{v} → {shown} → {back}");
        }
        assert_eq!(show_number(0.4), "0.4");
        // No exponent form in a box (issue 15): grouped digits instead.
        assert_eq!(show_number(2e12), "2,000,000,000,000");
        assert_eq!(show_number(-1234567.0), "-1,234,567");
        assert_eq!(show_number(1.5e-4), "0.00015");
        assert_eq!(show_number(26e9), "26,000,000,000");
        assert_eq!(show_number(f64::NAN), "");
    }

    #[test]
    fn slider_scales() {
        let log = Scale::Log2 { min: 0, max: 10 };
        assert_eq!(log.position(4.0), 2.0);
        assert_eq!(log.position(0.0), 0.0);
        assert_eq!(log.position(1.0e9), 10.0);
        assert_eq!(log.value(3.0), 8.0);
        let lin = Scale::Linear {
            min: 0.0,
            max: 1.0,
            step: 0.05,
        };
        assert_eq!(lin.position(1.5), 1.0);
        assert_eq!(lin.position(f64::NAN), 0.0);
        assert_eq!(lin.value(0.25), 0.25);
        assert_eq!(to_count(3.6), 4);
        assert_eq!(to_count(-2.0), 0);
        assert_eq!(to_count(f64::NAN), 0);
        assert_eq!(to_count(1e20), u32::MAX);
    }
}
