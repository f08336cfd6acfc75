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

/// Bytes reserved for `count` live tensors of `bytes` each (count ≥ 0,
/// whole).
fn reserved_same(count: f64, bytes: f64, mode: ExpandableSegments) -> f64 {
    if count <= 0.0 || bytes <= 0.0 || !bytes.is_finite() {
        return 0.0;
    }
    let r = round_size(bytes);
    let small = r <= SMALL_SIZE;
    match mode {
        ExpandableSegments::On => {
            let page = if small { SMALL_BUFFER } else { LARGE_BUFFER };
            round_up(count * r, page)
        }
        ExpandableSegments::Off if small => {
            let per_segment = (SMALL_BUFFER / r).floor().max(1.0);
            (count / per_segment).ceil() * SMALL_BUFFER
        }
        ExpandableSegments::Off if r < MIN_LARGE_ALLOC => {
            // Each 20 MiB segment holds ⌊20 MiB / r⌋ of them: a split
            // leaves the rest for the next request, and a tail too small
            // for one more stays with the segment.
            let per_segment = (LARGE_BUFFER / r).floor().max(1.0);
            (count / per_segment).ceil() * LARGE_BUFFER
        }
        ExpandableSegments::Off => count * round_up(r, ROUND_LARGE),
    }
}

/// Bytes reserved for `total` bytes held as tensors of `each` bytes (the
/// last one smaller when `each` does not divide `total`).
pub(crate) fn reserved(total: f64, each: f64, mode: ExpandableSegments) -> f64 {
    if total.is_nan() || total <= 0.0 {
        return 0.0;
    }
    if each.is_nan() || each <= 0.0 || each >= total {
        return reserved_same(1.0, total, mode);
    }
    let whole = (total / each).floor();
    let rest = total - whole * each;
    reserved_same(whole, each, mode) + reserved_same(1.0, rest, mode)
}

/// Bytes reserved for `total` bytes spread over tensors in the proportions
/// of `shapes` (bytes of one tensor each, one of each per group): the
/// groups are whole layers' matrices, so `total` is that many groups.
pub(crate) fn reserved_mix(total: f64, shapes: &[f64], mode: ExpandableSegments) -> f64 {
    let group: f64 = shapes.iter().filter(|s| **s > 0.0).sum();
    if total.is_nan() || total <= 0.0 {
        return 0.0;
    }
    if group <= 0.0 || !group.is_finite() {
        return reserved(total, total, mode);
    }
    let groups = total / group;
    let mut out = 0.0;
    for s in shapes.iter().filter(|s| **s > 0.0) {
        out += reserved(groups * s, *s, mode);
    }
    out
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
        // Three 6 MiB tensors share one 20 MiB segment, a fourth opens another.
        assert_eq!(reserved(18.0 * MIB, 6.0 * MIB, Off), 20.0 * MIB);
        assert_eq!(reserved(24.0 * MIB, 6.0 * MIB, Off), 40.0 * MIB);
        // A 33 MiB tensor gets a 34 MiB segment; a 32 MiB one exactly 32.
        assert_eq!(reserved(33.0 * MIB, 33.0 * MIB, Off), 34.0 * MIB);
        assert_eq!(reserved(64.0 * MIB, 32.0 * MIB, Off), 64.0 * MIB);
        // Expandable segments pack back to back and round the pool to 20 MiB.
        assert_eq!(reserved(4.0 * 33.0 * MIB, 33.0 * MIB, On), 140.0 * MIB);
    }

    #[test]
    fn reserve_is_never_below_the_tensors_and_a_mix_adds_up() {
        for each in [100.0, 700_000.0, 3.3 * MIB, 12.7 * MIB, 250.0 * MIB] {
            for n in [1.0, 3.0, 17.0] {
                for mode in [Off, On] {
                    let r = reserved(n * each, each, mode);
                    assert!(r >= n * each, "{each} × {n}: {r}");
                    // Off never packs tighter than expandable segments.
                    assert!(reserved(n * each, each, Off) >= reserved(n * each, each, On) - 20.0 * MIB);
                }
            }
        }
        let shapes = [32.0 * MIB, 8.0 * MIB, 86.0 * MIB];
        let one = reserved_mix(126.0 * MIB, &shapes, Off);
        // 32 and 86 MiB are whole 2 MiB multiples; 8 MiB takes a 20 MiB segment.
        assert_eq!(one, (32.0 + 20.0 + 86.0) * MIB);
    }
}
