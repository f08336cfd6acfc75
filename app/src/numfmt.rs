//! Numbers as the results show them: sizes in GiB, durations in the unit
//! that reads best, dollars, counts with SI prefixes. The same in both
//! languages (Chinese technical writing uses the same units).

use planner_core::units::{ByteRate, Bytes, Seconds, Usd};

/// A number with three significant digits (whole numbers from a hundred
/// up): `66.2`, `0.100`, `1234`. The core's formatter
/// ([`planner_core::units::significant`]), so the page and the core's
/// texts write numbers alike (docs/decisions.md, "One number format").
pub fn num(v: f64) -> String {
    planner_core::units::significant(v)
}

/// A size in GiB (2^30 bytes): `66.2 GiB`.
pub fn gib(b: Bytes) -> String {
    format!("{} GiB", num(b.as_gib()))
}

/// A signed size in GiB: `+13.8 GiB`, `−4.10 GiB`.
pub fn gib_signed(b: Bytes) -> String {
    let v = b.as_gib();
    let sign = if v < 0.0 { "−" } else { "+" };
    format!("{sign}{} GiB", num(v.abs()))
}

/// A duration in s, ms or µs, whichever keeps the number readable.
pub fn duration(s: Seconds) -> String {
    let v = s.as_secs();
    if !v.is_finite() {
        "—".into()
    } else if v.abs() >= 1.0 {
        format!("{} s", num(v))
    } else if v.abs() >= 1e-3 {
        format!("{} ms", num(v * 1e3))
    } else {
        format!("{} µs", num(v * 1e6))
    }
}

/// A long duration in the unit that reads best: seconds (as
/// [`duration`]), minutes, hours or days: `45.0 min`, `2.50 h`, `3.20 d`.
pub fn span(s: Seconds) -> String {
    let v = s.as_secs();
    if !v.is_finite() {
        "—".into()
    } else if v.abs() < 60.0 {
        duration(s)
    } else if v.abs() < 3600.0 {
        format!("{} min", num(v / 60.0))
    } else if s.as_hours().abs() < 48.0 {
        format!("{} h", num(s.as_hours()))
    } else {
        format!("{} d", num(s.as_days()))
    }
}

/// A size in decimal GB (10^9 bytes), as GPU memory is marketed: `80.0 GB`.
pub fn gb(b: Bytes) -> String {
    format!("{} GB", num(b.as_gb()))
}

/// A bandwidth in GB/s: `12.5 GB/s`.
pub fn gbps(r: ByteRate) -> String {
    format!("{} GB/s", num(r.as_gb_per_s()))
}

/// A duration and its expected range: `9.12 s (8.50–10.1 s)`.
pub fn duration_range(s: Seconds, low: Seconds, high: Seconds) -> String {
    format!("{} ({}–{})", duration(s), duration(low), duration(high))
}

/// Dollars: `$21.92`, `$0.0529`, `$1234`.
pub fn usd(u: Usd) -> String {
    let v = u.as_usd();
    if v.is_finite() && v.abs() >= 1.0 && v.abs() < 100.0 {
        format!("${v:.2}")
    } else {
        format!("${}", num(v))
    }
}

/// A count with an SI prefix: `512`, `4.10 K`, `1.05 M`, `70.6 B`.
pub fn si(v: f64) -> String {
    let a = v.abs();
    let (scaled, prefix) = if a >= 1e12 {
        (v / 1e12, " T")
    } else if a >= 1e9 {
        (v / 1e9, " B")
    } else if a >= 1e6 {
        (v / 1e6, " M")
    } else if a >= 1e3 {
        (v / 1e3, " K")
    } else {
        (v, "")
    };
    format!("{}{prefix}", num(scaled))
}

/// An axis tick: no trailing zeros (`80`, `0.5`, `12.5`), SI prefixes
/// from ten thousand up.
pub fn tick(v: f64) -> String {
    if v.abs() >= 1e4 {
        return si(v);
    }
    let s = format!("{v:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.into()
    }
}

/// A fraction in `0..=1` as a percentage: `41.2 %`.
pub fn pct(f: f64) -> String {
    format!("{} %", num(f * 100.0))
}

/// Shortens a name for a chart label, keeping whole characters.
pub fn short(name: &str, max_chars: usize) -> String {
    if name.chars().count() <= max_chars {
        name.to_string()
    } else {
        let mut s: String = name.chars().take(max_chars.saturating_sub(1)).collect();
        s.push('…');
        s
    }
}

/// A parameter count (a model's size in a list) as `70.6B` or `335M`.
pub fn params_label(n: f64) -> String {
    if n >= 1e12 {
        format!("{:.2}T", n / 1e12)
    } else if n >= 1e9 {
        format!("{:.1}B", n / 1e9)
    } else {
        format!("{:.0}M", n / 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readable_numbers() {
        assert_eq!(gib(Bytes::from_gib(66.171)), "66.2 GiB");
        assert_eq!(gib(Bytes::from_gib(0.0)), "0 GiB");
        assert_eq!(gib_signed(Bytes::from_gib(-4.1)), "−4.10 GiB");
        assert_eq!(duration(Seconds::from_secs(9.1178)), "9.12 s");
        assert_eq!(duration(Seconds::from_millis(35.14)), "35.1 ms");
        assert_eq!(duration(Seconds::from_micros(12.0)), "12.0 µs");
        assert_eq!(usd(Usd::new(21.92)), "$21.92");
        assert_eq!(usd(Usd::new(0.052945)), "$0.0529");
        assert_eq!(usd(Usd::new(1234.4)), "$1234");
        assert_eq!(si(4096.0), "4.10 K");
        assert_eq!(si(512.0), "512");
        assert_eq!(si(7.0e9), "7.00 B");
        assert_eq!(pct(0.4123), "41.2 %");
        assert_eq!(num(f64::NAN), "—");
        assert_eq!(tick(80.0), "80");
        assert_eq!(tick(0.30000000000000004), "0.3");
        assert_eq!(tick(0.0), "0");
        assert_eq!(tick(25000.0), "25.0 K");
        assert_eq!(span(Seconds::from_secs(2700.0)), "45.0 min");
        assert_eq!(span(Seconds::from_hours(2.5)), "2.50 h");
        assert_eq!(span(Seconds::from_hours(96.0)), "4.00 d");
        assert_eq!(span(Seconds::from_secs(12.0)), "12.0 s");
        assert_eq!(gb(Bytes::from_gb(80.0)), "80.0 GB");
        assert_eq!(gbps(ByteRate::from_gb_per_s(12.5)), "12.5 GB/s");
    }

    /// One rule for every quantity: three significant digits, whole
    /// numbers from a hundred up, the unit by magnitude (issue 15: no
    /// "80.000 GiB", no "0.1000 person-weeks", no "6334.6 h").
    #[test]
    fn three_significant_digits_for_a_list_of_values() {
        let cases: [(f64, &str); 14] = [
            (0.1, "0.100"),
            (0.5, "0.500"),
            (1.0, "1.00"),
            (14.08, "14.1"),
            (80.0, "80.0"),
            (9.996, "10.0"),
            (99.96, "100"),
            (0.0123456, "0.0123"),
            (0.000999, "0.000999"),
            (1234.4, "1234"),
            (-4.1, "-4.10"),
            (-0.0, "0"),
            (0.0, "0"),
            (f64::INFINITY, "—"),
        ];
        for (v, want) in cases {
            assert_eq!(num(v), want, "{v}");
        }
        assert_eq!(gib(Bytes::from_gib(80.0)), "80.0 GiB");
        assert_eq!(span(Seconds::from_hours(6334.6)), "264 d");
        assert_eq!(span(Seconds::from_secs(96.6)), "1.61 min");
    }

    #[test]
    fn parameter_labels() {
        assert_eq!(params_label(70_553_706_496.0), "70.6B");
        assert_eq!(params_label(335e6), "335M");
        assert_eq!(params_label(1.008e12), "1.01T");
    }

    #[test]
    fn short_keeps_whole_characters() {
        assert_eq!(short("abc", 5), "abc");
        assert_eq!(short("Llama 2 7B on 8×H100", 8), "Llama 2…");
        assert_eq!(short("显存墙规划器方案", 4), "显存墙…");
    }
}
