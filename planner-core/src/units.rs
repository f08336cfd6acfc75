//! Typed physical quantities.
//!
//! Every quantity is stored in its base unit (bytes, seconds, FLOPs, …) as an
//! `f64`, built and read through named constructors so a call site always says
//! which unit it means. GB (10^9) and GiB (2^30) are different units and the
//! constructors say which one they take.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::{Add, AddAssign, Div, Mul, Sub};

const KIB: f64 = 1024.0;
const MIB: f64 = 1024.0 * 1024.0;
const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
const TIB: f64 = 1024.0 * 1024.0 * 1024.0 * 1024.0;

macro_rules! quantity {
    ($(#[$doc:meta])* $name:ident, $unit:literal) => {
        quantity!(@def $(#[$doc])* $name, $unit, Deserialize);
    };
    ($(#[$doc:meta])* $name:ident, $unit:literal, parsed) => {
        quantity!(@def $(#[$doc])* $name, $unit, );
    };
    (@def $(#[$doc:meta])* $name:ident, $unit:literal, $($de:ident)?) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default, Serialize $(, $de)?)]
        #[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
        #[serde(transparent)]
        pub struct $name(f64);

        impl $name {
            /// Zero of this quantity.
            pub const ZERO: Self = Self(0.0);

            /// The raw value in the base unit (
            #[doc = $unit]
            /// ).
            #[inline]
            pub const fn base(self) -> f64 {
                self.0
            }

            /// Builds the quantity from a value in the base unit (
            #[doc = $unit]
            /// ).
            #[inline]
            pub const fn from_base(v: f64) -> Self {
                Self(v)
            }

            /// The larger of two values.
            #[inline]
            pub fn max(self, other: Self) -> Self {
                Self(self.0.max(other.0))
            }

            /// The smaller of two values.
            #[inline]
            pub fn min(self, other: Self) -> Self {
                Self(self.0.min(other.0))
            }

            /// True when the value is finite (not NaN or infinite).
            #[inline]
            pub fn is_finite(self) -> bool {
                self.0.is_finite()
            }
        }

        impl Add for $name {
            type Output = Self;
            #[inline]
            fn add(self, o: Self) -> Self {
                Self(self.0 + o.0)
            }
        }
        impl AddAssign for $name {
            #[inline]
            fn add_assign(&mut self, o: Self) {
                self.0 += o.0;
            }
        }
        impl Sub for $name {
            type Output = Self;
            #[inline]
            fn sub(self, o: Self) -> Self {
                Self(self.0 - o.0)
            }
        }
        impl Mul<f64> for $name {
            type Output = Self;
            #[inline]
            fn mul(self, k: f64) -> Self {
                Self(self.0 * k)
            }
        }
        impl Div<f64> for $name {
            type Output = Self;
            #[inline]
            fn div(self, k: f64) -> Self {
                Self(self.0 / k)
            }
        }
        /// The ratio of two values of the same quantity is a plain number.
        impl Div for $name {
            type Output = f64;
            #[inline]
            fn div(self, o: Self) -> f64 {
                self.0 / o.0
            }
        }
        impl std::iter::Sum for $name {
            fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
                // Start from +0.0: `f64::sum` starts from -0.0, which prints
                // as "-0.00" for an empty tier.
                Self(iter.fold(0.0, |acc, q| acc + q.0))
            }
        }
    };
}

quantity!(
    /// An amount of memory, in bytes. In JSON: a number of bytes, or a
    /// string with a unit (`"80 GB"`, `"512 GiB"`, `"64 MiB"`).
    Bytes,
    "bytes",
    parsed
);
quantity!(
    /// A duration, in seconds.
    Seconds,
    "seconds"
);
quantity!(
    /// A number of floating-point operations.
    Flops,
    "FLOPs"
);
quantity!(
    /// A compute rate, in FLOP per second.
    FlopRate,
    "FLOP/s"
);
quantity!(
    /// A transfer rate, in bytes per second. In JSON: a number of bytes/s,
    /// or a string with a unit (`"25 GB/s"`, `"3.35 TB/s"`).
    ByteRate,
    "bytes/s",
    parsed
);
quantity!(
    /// An amount of money, in US dollars.
    Usd,
    "US dollars"
);
quantity!(
    /// A power draw, in watts.
    Watts,
    "watts"
);
quantity!(
    /// How often something happens, in events per second (failure rates).
    Frequency,
    "events per second"
);
quantity!(
    /// GPU time, in GPU-hours: one GPU busy for one hour is one GPU-hour.
    GpuHours,
    "GPU-hours"
);

impl Bytes {
    /// Bytes from a count of bytes.
    pub const fn new(b: f64) -> Self {
        Self(b)
    }
    /// Bytes from KiB (2^10).
    pub const fn from_kib(v: f64) -> Self {
        Self(v * KIB)
    }
    /// Bytes from MiB (2^20), the unit `nvidia-smi` prints.
    pub const fn from_mib(v: f64) -> Self {
        Self(v * MIB)
    }
    /// Bytes from GiB (2^30).
    pub const fn from_gib(v: f64) -> Self {
        Self(v * GIB)
    }
    /// Bytes from TiB (2^40).
    pub const fn from_tib(v: f64) -> Self {
        Self(v * TIB)
    }
    /// Bytes from decimal GB (10^9), the unit of vendor datasheets.
    pub const fn from_gb(v: f64) -> Self {
        Self(v * 1e9)
    }
    /// Bytes from decimal TB (10^12).
    pub const fn from_tb(v: f64) -> Self {
        Self(v * 1e12)
    }
    /// The value in bytes.
    pub fn as_bytes(self) -> f64 {
        self.0
    }
    /// The value in MiB (2^20).
    pub fn as_mib(self) -> f64 {
        self.0 / MIB
    }
    /// The value in GiB (2^30).
    pub fn as_gib(self) -> f64 {
        self.0 / GIB
    }
    /// The value in decimal GB (10^9).
    pub fn as_gb(self) -> f64 {
        self.0 / 1e9
    }
}

/// Significant digits of every quantity the core and the page write
/// (docs/decisions.md, "One number format").
pub const SIGNIFICANT: i32 = 3;

/// A number with [`SIGNIFICANT`] significant digits, whole from a hundred
/// up: `66.2`, `9.12`, `0.100`, `0.0123`, `1234`; `—` when not finite. The
/// one number format of the core's texts and the page (issue 15).
pub fn significant(v: f64) -> String {
    if !v.is_finite() {
        return "—".into();
    }
    let digits = |a: f64| {
        if a == 0.0 {
            0
        } else {
            (SIGNIFICANT - 1 - a.log10().floor() as i32).clamp(0, 9) as usize
        }
    };
    let d = digits(v.abs());
    // 9.996 rounds to 10.00: count the digits of the rounded value.
    let rounded: f64 = format!("{:.d$}", v.abs()).parse().unwrap_or(v.abs());
    let s = format!("{v:.*}", digits(rounded).min(d));
    // No "-0" or "-0.00" for a value that rounds to zero.
    if s.starts_with('-') && s.trim_start_matches(['-', '0', '.']).is_empty() {
        return s[1..].to_string();
    }
    s
}

impl fmt::Display for Bytes {
    /// Binary units, [`significant`] digits: `12.4 GiB`, `80.0 GiB`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.0;
        let a = v.abs();
        let (unit, size) = if a >= TIB {
            ("TiB", TIB)
        } else if a >= GIB {
            ("GiB", GIB)
        } else if a >= MIB {
            ("MiB", MIB)
        } else if a >= KIB {
            ("KiB", KIB)
        } else {
            return write!(f, "{v:.0} B");
        };
        write!(f, "{} {unit}", significant(v / size))
    }
}

impl Seconds {
    /// Seconds from seconds.
    pub const fn from_secs(v: f64) -> Self {
        Self(v)
    }
    /// Seconds from milliseconds.
    pub const fn from_millis(v: f64) -> Self {
        Self(v / 1e3)
    }
    /// Seconds from microseconds.
    pub const fn from_micros(v: f64) -> Self {
        Self(v / 1e6)
    }
    /// Seconds from hours.
    pub const fn from_hours(v: f64) -> Self {
        Self(v * 3600.0)
    }
    /// The value in hours.
    pub fn as_hours(self) -> f64 {
        self.0 / 3600.0
    }
    /// The value in days.
    pub fn as_days(self) -> f64 {
        self.0 / 86400.0
    }
    /// Seconds from nanoseconds.
    pub const fn from_nanos(v: f64) -> Self {
        Self(v / 1e9)
    }
    /// The value in seconds.
    pub fn as_secs(self) -> f64 {
        self.0
    }
    /// The value in milliseconds.
    pub fn as_millis(self) -> f64 {
        self.0 * 1e3
    }
    /// The value in nanoseconds.
    pub fn as_nanos(self) -> f64 {
        self.0 * 1e9
    }
}

impl Flops {
    /// A FLOP count.
    pub const fn new(v: f64) -> Self {
        Self(v)
    }
}

impl FlopRate {
    /// FLOP/s from TFLOP/s (10^12), the unit of datasheets.
    pub const fn from_tflops(v: f64) -> Self {
        Self(v * 1e12)
    }
    /// The value in TFLOP/s.
    pub fn as_tflops(self) -> f64 {
        self.0 / 1e12
    }
}

impl ByteRate {
    /// Bytes/s from decimal GB/s (10^9 bytes per second).
    pub const fn from_gb_per_s(v: f64) -> Self {
        Self(v * 1e9)
    }
    /// Bytes/s from decimal TB/s.
    pub const fn from_tb_per_s(v: f64) -> Self {
        Self(v * 1e12)
    }
    /// The value in decimal GB/s.
    pub fn as_gb_per_s(self) -> f64 {
        self.0 / 1e9
    }
}

impl Usd {
    /// Dollars.
    pub const fn new(v: f64) -> Self {
        Self(v)
    }
    /// The value in dollars.
    pub fn as_usd(self) -> f64 {
        self.0
    }
}

impl Watts {
    /// Watts.
    pub const fn new(v: f64) -> Self {
        Self(v)
    }
    /// The value in watts.
    pub fn as_watts(self) -> f64 {
        self.0
    }
}

/// Hours in a year of 365.25 days.
const HOURS_PER_YEAR: f64 = 365.25 * 24.0;

impl Frequency {
    /// Events per second.
    pub const fn per_second(v: f64) -> Self {
        Self(v)
    }
    /// Events per hour.
    pub const fn per_hour(v: f64) -> Self {
        Self(v / 3600.0)
    }
    /// Events per year of 365.25 days.
    pub const fn per_year(v: f64) -> Self {
        Self(v / (HOURS_PER_YEAR * 3600.0))
    }
    /// The value in events per second.
    pub fn as_per_second(self) -> f64 {
        self.0
    }
    /// The value in events per hour.
    pub fn as_per_hour(self) -> f64 {
        self.0 * 3600.0
    }
    /// The value in events per year of 365.25 days.
    pub fn as_per_year(self) -> f64 {
        self.0 * HOURS_PER_YEAR * 3600.0
    }
    /// The mean time between events (infinite when the rate is 0).
    pub fn mean_interval(self) -> Seconds {
        Seconds(1.0 / self.0)
    }
}

impl GpuHours {
    /// GPU-hours from a count of GPU-hours.
    pub const fn new(v: f64) -> Self {
        Self(v)
    }
    /// The value in GPU-hours.
    pub fn as_gpu_hours(self) -> f64 {
        self.0
    }
}

/// Serde for a [`Bytes`] written as a plain number of GB (10^9 B): the
/// report keeps the `*_gb` figures it always had while the code holds
/// bytes.
pub mod in_gb {
    use super::Bytes;
    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes the bytes as GB.
    pub fn serialize<S: Serializer>(b: &Bytes, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(b.as_gb())
    }

    /// Reads GB into bytes.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Bytes, D::Error> {
        f64::deserialize(d).map(Bytes::from_gb)
    }
}

/// Parses `"<number> <unit>"` with one of the given (suffix, factor) units.
fn parse_with_units(s: &str, units: &[(&str, f64)]) -> Option<f64> {
    let s = s.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+' || c == 'e'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let v: f64 = num.trim().parse().ok()?;
    let unit = unit.trim();
    units
        .iter()
        .find(|(u, _)| u.eq_ignore_ascii_case(unit))
        .map(|(_, f)| v * f)
        // "1e400 GB" is not a quantity: JSON could not carry it back out.
        .filter(|v| v.is_finite())
}

const BYTE_UNITS: &[(&str, f64)] = &[
    ("", 1.0),
    ("B", 1.0),
    ("KiB", KIB),
    ("MiB", MIB),
    ("GiB", GIB),
    ("TiB", TIB),
    ("KB", 1e3),
    ("MB", 1e6),
    ("GB", 1e9),
    ("TB", 1e12),
];

const RATE_UNITS: &[(&str, f64)] = &[
    ("", 1.0),
    ("B/s", 1.0),
    ("MB/s", 1e6),
    ("GB/s", 1e9),
    ("TB/s", 1e12),
    ("MiB/s", MIB),
    ("GiB/s", GIB),
];

macro_rules! parsed_quantity {
    ($name:ident, $units:expr, $what:literal) => {
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                #[derive(Deserialize)]
                #[serde(untagged)]
                enum Raw {
                    Num(f64),
                    Text(String),
                }
                match Raw::deserialize(d)? {
                    Raw::Num(v) => Ok($name(v)),
                    Raw::Text(t) => parse_with_units(&t, $units).map($name).ok_or_else(|| {
                        serde::de::Error::custom(format!(concat!("cannot read {:?} as ", $what), t))
                    }),
                }
            }
        }
    };
}

parsed_quantity!(
    Bytes,
    BYTE_UNITS,
    "an amount of memory (e.g. 80 GB, 512 GiB)"
);
parsed_quantity!(ByteRate, RATE_UNITS, "a bandwidth (e.g. 25 GB/s)");

/// Moving `Bytes` at a `ByteRate` takes `Seconds`.
impl Div<ByteRate> for Bytes {
    type Output = Seconds;
    fn div(self, r: ByteRate) -> Seconds {
        Seconds(self.0 / r.0)
    }
}

/// Doing `Flops` at a `FlopRate` takes `Seconds`.
impl Div<FlopRate> for Flops {
    type Output = Seconds;
    fn div(self, r: FlopRate) -> Seconds {
        Seconds(self.0 / r.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gb_and_gib_differ() {
        assert_eq!(Bytes::from_gb(1.0).as_bytes(), 1e9);
        assert_eq!(Bytes::from_gib(1.0).as_bytes(), 1_073_741_824.0);
        assert!((Bytes::from_gb(80.0).as_gib() - 74.505_805_969).abs() < 1e-6);
    }

    #[test]
    fn dimensional_division() {
        let t = Bytes::from_gb(64.0) / ByteRate::from_gb_per_s(32.0);
        assert_eq!(t.as_secs(), 2.0);
        let t = Flops::new(312e12) / FlopRate::from_tflops(312.0);
        assert_eq!(t.as_secs(), 1.0);
    }

    #[test]
    fn bytes_parse_numbers_and_units() {
        let b: Bytes = serde_json::from_str("\"80 GB\"").unwrap_or_default();
        assert_eq!(b.as_bytes(), 80e9);
        let b: Bytes = serde_json::from_str("\"1.5GiB\"").unwrap_or_default();
        assert_eq!(b.as_gib(), 1.5);
        let b: Bytes = serde_json::from_str("1024").unwrap_or_default();
        assert_eq!(b.as_bytes(), 1024.0);
        assert!(serde_json::from_str::<Bytes>("\"80 parsecs\"").is_err());
        assert!(serde_json::from_str::<Bytes>("\"1e400 GB\"").is_err());
        let r: ByteRate = serde_json::from_str("\"25 GB/s\"").unwrap_or_default();
        assert_eq!(r.as_gb_per_s(), 25.0);
    }

    #[test]
    fn frequencies_convert() {
        let f = Frequency::per_hour(2.0);
        assert!((f.mean_interval().as_secs() - 1800.0).abs() < 1e-9);
        assert!((Frequency::per_year(1.0).as_per_hour() * HOURS_PER_YEAR - 1.0).abs() < 1e-12);
    }

    #[test]
    fn display_uses_binary_units() {
        assert_eq!(Bytes::from_gib(12.4).to_string(), "12.4 GiB");
        assert_eq!(Bytes::from_gib(80.0).to_string(), "80.0 GiB");
        assert_eq!(Bytes::from_gib(164.832).to_string(), "165 GiB");
        assert_eq!(significant(0.1), "0.100");
        assert_eq!(significant(9.996), "10.0");
        assert_eq!(significant(-0.0), "0");
        assert_eq!(Bytes::from_mib(300.0).to_string(), "300 MiB");
        assert_eq!(Bytes::from_mib(2.5).to_string(), "2.50 MiB");
        assert_eq!(Bytes::new(12.0).to_string(), "12 B");
    }
}
