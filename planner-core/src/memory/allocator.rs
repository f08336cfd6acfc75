//! PyTorch's CUDA caching allocator, as a pure function from the live
//! tensors to the bytes it has reserved from the driver.
//!
//! The constants and rules are those of `c10/cuda/CUDACachingAllocator.cpp`
//! (PyTorch 2.x; the same values in every release since 1.x):
//! - every request is rounded up to `kMinBlockSize` = 512 B (`round_size`);
//! - requests of at most `kSmallSize` = 1 MiB come from the small pool,
//!   whose segments are `kSmallBuffer` = 2 MiB; a block is split when at
//!   least 512 B remain;
//! - larger requests come from the large pool: below `kMinLargeAlloc` =
//!   10 MiB a cache miss allocates a `kLargeBuffer` = 20 MiB segment that
//!   later requests split; from 10 MiB up the segment is the request
//!   rounded up to `kRoundLarge` = 2 MiB (`get_allocation_size`); a large
//!   block is split only when more than 1 MiB would remain
//!   (`should_split`);
//! - with `expandable_segments:True` each pool is one virtual segment that
//!   grows by mapping pages of 2 MiB (small pool) or 20 MiB (large pool),
//!   so tensors pack back to back and only the last page is partly empty
//!   (`ExpandableSegment`, "2MB for small pool, 20MB for large pool"; the
//!   PyTorch "CUDA semantics" notes on `PYTORCH_CUDA_ALLOC_CONF`).
//!
//! What this models is the reserve the allocator *cannot* give back while
//! the tensors live: the rounding and the segment tails. Blocks it caches
//! after a free are not counted: on a failed `cudaMalloc` the allocator
//! frees every unsplit cached block and retries (`release_cached_blocks`),
//! so caching alone never causes an out-of-memory error, and a training
//! step of fixed shapes reuses its cached blocks exactly (the CUDA
//! semantics notes: "many requests of exactly the same size"). That is the
//! reserve a fit verdict must hold against the device; `max_memory_reserved`
//! of a real run can sit above it by the cache of earlier phases.

use crate::software::ExpandableSegments;

/// `kMinBlockSize`: every request is rounded up to this.
pub(crate) const MIN_BLOCK: f64 = 512.0;
/// `kSmallSize`: the largest small-pool request (1 MiB).
pub(crate) const SMALL_SIZE: f64 = 1_048_576.0;
/// `kSmallBuffer`: a small-pool segment (2 MiB).
pub(crate) const SMALL_BUFFER: f64 = 2_097_152.0;
/// `kLargeBuffer`: a large-pool segment for requests below 10 MiB (20 MiB).
pub(crate) const LARGE_BUFFER: f64 = 20_971_520.0;
/// `kMinLargeAlloc`: from here a request gets a segment of its own (10 MiB).
pub(crate) const MIN_LARGE_ALLOC: f64 = 10_485_760.0;
/// `kRoundLarge`: such a segment is rounded up to this (2 MiB).
pub(crate) const ROUND_LARGE: f64 = 2_097_152.0;

/// `round_size`: the request rounded up to 512 B.
pub(crate) fn round_size(bytes: f64) -> f64 {
    (bytes / MIN_BLOCK).ceil().max(1.0) * MIN_BLOCK
}

fn round_up(x: f64, to: f64) -> f64 {
    (x / to).ceil() * to
}

/// Live tensors sorted by the pool and segment rule that holds them.
///
/// Tensors of one size class share segments whatever item they belong
/// to: the allocator serves a request from the best-fitting free block of
/// its pool and splits it, so blocks of different sizes fill each other's
/// tails. What stays unusable is each own-segment tensor's rounding to
/// 2 MiB and the last, partly filled segment of each shared pool.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Pools {
    /// Segments of tensors of 10 MiB or more (one each, rounded to 2 MiB).
    own: f64,
    /// The same tensors rounded to 512 B only (packed back to back under
    /// expandable segments).
    own_bytes: f64,
    /// Tensors above 1 MiB and below 10 MiB, rounded to 512 B: they share
    /// 20 MiB segments.
    large: f64,
    /// Tensors of at most 1 MiB, rounded to 512 B: they share 2 MiB
    /// segments.
    small: f64,
}

impl Pools {
    /// `count` (whole, ≥ 0) tensors of `bytes` each.
    fn same(count: f64, bytes: f64) -> Self {
        if count <= 0.0 || bytes <= 0.0 || !bytes.is_finite() || !count.is_finite() {
            return Self::default();
        }
        let r = round_size(bytes);
        if r <= SMALL_SIZE {
            Self {
                small: count * r,
                ..Self::default()
            }
        } else if r < MIN_LARGE_ALLOC {
            Self {
                large: count * r,
                ..Self::default()
            }
        } else {
            Self {
                own: count * round_up(r, ROUND_LARGE),
                own_bytes: count * r,
                ..Self::default()
            }
        }
    }

    /// `total` bytes held as tensors of `each` bytes (the last one smaller
    /// when `each` does not divide `total`).
    pub fn split(total: f64, each: f64) -> Self {
        if total.is_nan() || total <= 0.0 {
            return Self::default();
        }
        if each.is_nan() || each <= 0.0 || each >= total {
            return Self::same(1.0, total);
        }
        let whole = (total / each).floor();
        Self::same(whole, each).add(Self::same(1.0, total - whole * each))
    }

    /// `total` bytes spread over tensors in the proportions of `shapes`
    /// (bytes of one tensor each, one of each per group).
    pub fn mix(total: f64, shapes: &[f64]) -> Self {
        let group: f64 = shapes.iter().filter(|s| **s > 0.0).sum();
        if total.is_nan() || total <= 0.0 {
            return Self::default();
        }
        if group <= 0.0 || !group.is_finite() {
            return Self::split(total, total);
        }
        let groups = total / group;
        let mut out = Self::default();
        for s in shapes.iter().filter(|s| **s > 0.0) {
            out = out.add(Self::split(groups * s, *s));
        }
        out
    }

    /// Both sets of tensors.
    pub fn add(self, o: Self) -> Self {
        Self {
            own: self.own + o.own,
            own_bytes: self.own_bytes + o.own_bytes,
            large: self.large + o.large,
            small: self.small + o.small,
        }
    }

    /// Bytes the allocator holds for these tensors.
    pub fn reserved(self, mode: ExpandableSegments) -> f64 {
        let small = round_up(self.small, SMALL_BUFFER);
        match mode {
            ExpandableSegments::Off => self.own + round_up(self.large, LARGE_BUFFER) + small,
            ExpandableSegments::On => round_up(self.own_bytes + self.large, LARGE_BUFFER) + small,
        }
    }
}

/// Bytes reserved for `total` bytes held as tensors of `each` bytes alone.
#[cfg(test)]
fn reserved(total: f64, each: f64, mode: ExpandableSegments) -> f64 {
    Pools::split(total, each).reserved(mode)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ExpandableSegments::{Off, On};

    const MIB: f64 = 1_048_576.0;

    #[test]
    fn rounding_and_segments_follow_the_allocator() {
        // 1 B is a 512 B block in a 2 MiB small segment.
        assert_eq!(round_size(1.0), 512.0);
        assert_eq!(reserved(1.0, 1.0, Off), 2.0 * MIB);
        // 4,096 blocks of 512 B fill exactly one 2 MiB segment.
        assert_eq!(reserved(4096.0 * 512.0, 512.0, Off), 2.0 * MIB);
        assert_eq!(reserved(4097.0 * 512.0, 512.0, Off), 4.0 * MIB);
        // 6 MiB tensors share 20 MiB segments; the last is partly empty.
        assert_eq!(reserved(18.0 * MIB, 6.0 * MIB, Off), 20.0 * MIB);
        assert_eq!(reserved(24.0 * MIB, 6.0 * MIB, Off), 40.0 * MIB);
        // A 33 MiB tensor gets a 34 MiB segment; a 32 MiB one exactly 32.
        assert_eq!(reserved(33.0 * MIB, 33.0 * MIB, Off), 34.0 * MIB);
        assert_eq!(reserved(64.0 * MIB, 32.0 * MIB, Off), 64.0 * MIB);
        // Expandable segments pack back to back and round the pool to 20 MiB.
        assert_eq!(reserved(4.0 * 33.0 * MIB, 33.0 * MIB, On), 140.0 * MIB);
    }

    #[test]
    fn reserve_is_never_below_the_tensors_and_pools_share_segments() {
        for each in [100.0, 700_000.0, 3.3 * MIB, 12.7 * MIB, 250.0 * MIB] {
            for n in [1.0, 3.0, 17.0] {
                for mode in [Off, On] {
                    let r = reserved(n * each, each, mode);
                    assert!(r >= n * each, "{each} × {n}: {r}");
                }
            }
        }
        // 8 MiB tensors of two items fill one 20 MiB segment together
        // (best fit and splitting), not one each.
        let a = Pools::split(8.0 * MIB, 8.0 * MIB);
        let b = Pools::split(8.0 * MIB, 8.0 * MIB);
        assert_eq!(a.add(b).reserved(Off), 20.0 * MIB);
        let shapes = [32.0 * MIB, 8.0 * MIB, 86.0 * MIB];
        // 32 and 86 MiB are whole 2 MiB multiples; 8 MiB takes a 20 MiB segment.
        assert_eq!(
            Pools::mix(126.0 * MIB, &shapes).reserved(Off),
            (32.0 + 20.0 + 86.0) * MIB
        );
    }
}
