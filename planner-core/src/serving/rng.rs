//! The simulator's generator: SplitMix64 (Steele, Lea and Flood,
//! "Fast Splittable Pseudorandom Number Generators", OOPSLA 2014), written
//! here so the core keeps no dependency for it. Deterministic per seed.

/// A SplitMix64 stream.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SplitMix(u64);

impl SplitMix {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform on `[0, 1)` from the top 53 bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Exponential with the given mean (inverse transform).
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.unit()).ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_unit_in_range() {
        let (mut a, mut b) = (SplitMix::new(7), SplitMix::new(7));
        for _ in 0..1000 {
            let u = a.unit();
            assert_eq!(u, b.unit());
            assert!((0.0..1.0).contains(&u));
        }
        // The exponential's sample mean is near its mean.
        let mut c = SplitMix::new(1);
        let m: f64 = (0..20_000).map(|_| c.exponential(2.0)).sum::<f64>() / 20_000.0;
        assert!((m - 2.0).abs() < 0.05, "{m}");
    }
}
