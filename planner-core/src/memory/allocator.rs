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

/// Share of the states a training stack creates inside the first step
/// that PyTorch's caching allocator still holds beyond the live tensors
/// at a step's peak ([`crate::report::ItemKind::AllocatorCache`]).
///
/// Mechanism, from `CUDACachingAllocator.cpp`: a segment goes back to the
/// driver only when every block in it is free (`release_cached_blocks`,
/// on a failed `cudaMalloc`); a cached block serves a later request only
/// if the request fits in it (best fit, `get_free_block`), and the rest of
/// a split block stays in its segment. Eager PyTorch creates each `.grad`
/// in the first backward and each optimizer state in the first `step()`
/// (`crate::stack::StateAllocation`), when the blocks of the first
/// forward pass are cached: a state placed in such a block pins its
/// segment for the whole run, and the next pass's requests that no longer
/// fit take new segments. A fixed-shape step otherwise reuses its own
/// transient blocks exactly, and unpinned cached blocks are released
/// before an out-of-memory error, so transients alone are not charged.
/// This describes a fresh start: a run resumed from a checkpoint loads its
/// optimizer states before the first step (Megatron-Core then fills them
/// in place, `_init_optimizer_states_with_dummy_values`), so only its
/// gradients are created lazily.
///
/// How much stays depends on the order and sizes of the requests, which
/// the planner does not trace, so the share is fitted: the geometric mean
/// of (measured `max_memory_reserved` − `max_memory_allocated` − the
/// rounding above) ÷ predicted lazily created states over the H200
/// fixtures' training runs of the 1.1 B and 8 B models (17 runs, 3.5 % to
/// 13.6 % each; `tests/harness/tests/fixtures.rs`
/// `allocator_cache_share_is_the_fit_over_the_h200_fixtures`). An 8 B run
/// that ran out of memory had 3.16 GiB reserved but unallocated at the
/// failure, 3.5 % of its 89.7 GiB of such states: the part no release
/// could free. The 125 M model's runs hold far more relative to its
/// states (20 MiB segments for its 1–10 MiB tensors) and are left out:
/// the share matters where a verdict is near the capacity.
pub const CACHE_PER_LAZY_STATE: f64 = 0.0635;

/// From 2^52 up every `f64` is a whole number.
const WHOLE: f64 = 4_503_599_627_370_496.0;

/// `x.ceil()`, to the bit (signed zeros, NaN and infinities included),
/// without the call into the software `ceil` that the baseline x86-64
/// target (no SSE4.1 `roundsd`) makes for `f64::ceil`: the allocator
/// rounds dozens of sizes per evaluation. Below 2^52 in magnitude, adding
/// and taking away 2^52 rounds to the nearest whole number exactly (the
/// sum's unit in the last place is 1), and one step corrects it.
#[inline]
pub(crate) fn ceil(x: f64) -> f64 {
    let a = x.abs();
    if a < WHOLE {
        let n = ((a + WHOLE) - WHOLE).copysign(x);
        (if n < x { n + 1.0 } else { n }).copysign(x)
    } else {
        x
    }
}

/// `x.floor()`, to the bit, as [`ceil`] does it.
#[inline]
pub(crate) fn floor(x: f64) -> f64 {
    let a = x.abs();
    if a < WHOLE {
        let n = ((a + WHOLE) - WHOLE).copysign(x);
        (if n > x { n - 1.0 } else { n }).copysign(x)
    } else {
        x
    }
}

/// `round_size`: the request rounded up to 512 B.
#[inline]
pub(crate) fn round_size(bytes: f64) -> f64 {
    ceil(bytes / MIN_BLOCK).max(1.0) * MIN_BLOCK
}

#[inline]
fn round_up(x: f64, to: f64) -> f64 {
    ceil(x / to) * to
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
    #[inline]
    pub fn same(count: f64, bytes: f64) -> Self {
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

    /// `total` bytes held as one tensor: `split(total, total)`, whose
    /// checks all pass to `same(1.0, total)` (which drops a NaN, infinite,
    /// zero or negative total as `split` does).
    #[inline]
    pub fn one(total: f64) -> Self {
        Self::same(1.0, total)
    }

    /// `total` bytes held as tensors of `each` bytes (the last one smaller
    /// when `each` does not divide `total`).
    #[inline]
    pub fn split(total: f64, each: f64) -> Self {
        if total.is_nan() || total <= 0.0 {
            return Self::default();
        }
        if each.is_nan() || each <= 0.0 || each >= total {
            return Self::same(1.0, total);
        }
        let whole = floor(total / each);
        Self::same(whole, each).add(Self::same(1.0, total - whole * each))
    }

    /// `total` bytes held as tensors of `each.bytes` each, the rounding
    /// of one such tensor already worked out: the same sums as
    /// [`Pools::split`] with the same operands.
    #[inline]
    fn split_sized(total: f64, each: &Size) -> Self {
        if total.is_nan() || total <= 0.0 {
            return Self::default();
        }
        let e = each.bytes;
        if e.is_nan() || e <= 0.0 || e >= total {
            return Self::same(1.0, total);
        }
        let whole = floor(total / e);
        each.times(whole).add(Self::same(1.0, total - whole * e))
    }

    /// `total` bytes spread over tensors in the proportions of `shapes`
    /// (bytes of one tensor each, one of each per group).
    pub fn mix(total: f64, shapes: &Shapes) -> Self {
        let group = shapes.group;
        if total.is_nan() || total <= 0.0 {
            return Self::default();
        }
        if group <= 0.0 || !group.is_finite() {
            return Self::one(total);
        }
        let groups = total / group;
        let mut out = Self::default();
        for s in shapes.sizes.iter().filter(|s| s.bytes > 0.0) {
            out = out.add(Self::split_sized(groups * s.bytes, s));
        }
        out
    }

    /// Both sets of tensors.
    #[inline]
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

/// One tensor size with the allocator's rounding of one such tensor
/// worked out once (`Pools::same(1.0, bytes)`), so a size shared by many
/// items is rounded once per evaluation instead of once per item.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Size {
    bytes: f64,
    one: Pools,
}

impl Size {
    pub fn new(bytes: f64) -> Self {
        Self {
            bytes,
            one: Pools::same(1.0, bytes),
        }
    }

    /// `Pools::same(count, self.bytes)`: every field of `one` is 1 × the
    /// rounded size or +0, so `count` times it is the same product.
    #[inline]
    fn times(&self, count: f64) -> Pools {
        if count <= 0.0 || !count.is_finite() {
            return Pools::default();
        }
        let o = self.one;
        Pools {
            own: count * o.own,
            own_bytes: count * o.own_bytes,
            large: count * o.large,
            small: count * o.small,
        }
    }
}

/// Up to seven tensor shapes an item is spread over (one of each per
/// group), rounded once, with their sum.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Shapes {
    sizes: [Size; 7],
    /// Bytes of one group: the sum of the positive shapes.
    group: f64,
}

impl Shapes {
    /// The shapes of `bytes` (zeros and negatives are no tensor).
    pub fn new(bytes: &[f64; 7]) -> Self {
        let mut sizes = [Size::default(); 7];
        for (size, b) in sizes.iter_mut().zip(bytes) {
            if *b > 0.0 {
                *size = Size::new(*b);
            } else {
                // Never read by `Pools::mix`; only its size is kept.
                size.bytes = *b;
            }
        }
        Self {
            sizes,
            group: bytes.iter().filter(|s| **s > 0.0).sum(),
        }
    }
}

/// Pools of [`Pools::mix`] the search computed recently, by their exact
/// operands (the bits of the total and of the seven raw shapes). A hit
/// returns the very `Pools` the mix returned for the same operands, so the
/// memo changes no result. The search asks for the same activation items
/// of the same stage again for every sharding, offload and precision
/// choice that leaves them alone.
#[derive(Debug, Clone)]
pub(crate) struct MixMemo {
    slots: Vec<([u64; 8], Pools)>,
}

impl MixMemo {
    /// Slots in the direct-mapped table (a power of two).
    const SLOTS: usize = 4096;

    pub fn new() -> Self {
        // A NaN total: a key no lookup that reaches the table can carry
        // with these shapes, and whose mix would be empty anyway.
        Self {
            slots: vec![([u64::MAX; 8], Pools::default()); Self::SLOTS],
        }
    }

    /// The mix of `total` over `raw`, from the table or from `f`.
    pub fn get_or(&mut self, total: f64, raw: &[f64; 7], f: impl FnOnce() -> Pools) -> Pools {
        let mut key = [total.to_bits(); 8];
        for (k, s) in key[1..].iter_mut().zip(raw) {
            *k = s.to_bits();
        }
        let mut h = 0u64;
        for x in key {
            h = (h ^ x).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
        // The top bits of a product depend on every bit of its operands
        // (low ones would ignore the exponents of the keys).
        let i = (h >> (64 - Self::SLOTS.trailing_zeros())) as usize % Self::SLOTS;
        match self.slots.get(i) {
            Some((k, p)) if *k == key => *p,
            _ => {
                let p = f();
                if let Some(slot) = self.slots.get_mut(i) {
                    *slot = (key, p);
                }
                p
            }
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
    fn ceil_and_floor_equal_the_library_to_the_bit() {
        let mut xs = vec![
            0.0,
            -0.0,
            0.3,
            -0.3,
            1.0,
            -1.0,
            1.5,
            -1.5,
            WHOLE - 0.5,
            -(WHOLE - 0.5),
            WHOLE,
            -WHOLE,
            WHOLE + 1.0,
            9.3e18,
            -9.3e18,
            1e300,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            f64::EPSILON,
            1.0 - f64::EPSILON,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MAX,
            f64::MIN,
        ];
        // Pseudo-random bit patterns over every exponent (a fixed LCG).
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        for _ in 0..200_000 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            xs.push(f64::from_bits(state));
            // And values near whole numbers of allocator sizes.
            let near = (state >> 40) as f64 * 512.0;
            xs.extend([near, near + 1e-7, near - 1e-7, near / 3.0]);
        }
        for x in xs {
            if x.is_nan() {
                assert!(ceil(x).is_nan() && floor(x).is_nan());
                continue;
            }
            assert_eq!(ceil(x).to_bits(), x.ceil().to_bits(), "ceil({x:e})");
            assert_eq!(floor(x).to_bits(), x.floor().to_bits(), "floor({x:e})");
        }
    }

    /// `Pools::mix` as it was written before sizes were rounded once: one
    /// `split` per shape on the raw sizes.
    fn mix_reference(total: f64, shapes: &[f64]) -> Pools {
        let group: f64 = shapes.iter().filter(|s| **s > 0.0).sum();
        if total.is_nan() || total <= 0.0 {
            return Pools::default();
        }
        if group <= 0.0 || !group.is_finite() {
            return Pools::split(total, total);
        }
        let groups = total / group;
        let mut out = Pools::default();
        for s in shapes.iter().filter(|s| **s > 0.0) {
            out = out.add(Pools::split(groups * s, *s));
        }
        out
    }

    fn bits(p: Pools) -> [u64; 4] {
        [p.own, p.own_bytes, p.large, p.small].map(f64::to_bits)
    }

    /// A fixed stream of sizes from 0 to a few GiB, with zeros, negatives,
    /// NaN and infinities mixed in, and repeats (so a memo hits).
    fn sizes(n: usize) -> Vec<f64> {
        let mut state = 0x2545_F491_4F6C_DD1D_u64;
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let x = match (state >> 60, i % 7) {
                (0, _) => 0.0,
                (1, _) => -((state >> 20) as f64),
                (2, 0) => f64::NAN,
                (2, 1) => f64::INFINITY,
                (3, _) => ((state >> 44) as f64).floor() * 512.0,
                _ => (state >> 30) as f64 / 7.0,
            };
            out.push(x);
        }
        out
    }

    #[test]
    fn rounded_once_equals_rounded_per_item_to_the_bit() {
        let xs = sizes(70_000);
        let mut memo = MixMemo::new();
        let mut stream = Vec::new();
        for chunk in xs.chunks_exact(8) {
            let total = chunk[0].abs() * 40.0;
            let mut raw = [0.0; 7];
            raw.copy_from_slice(&chunk[1..]);
            // Activation-like rows use four shapes and pad with zeros.
            if chunk[0].to_bits() % 2 == 0 {
                raw[4..].fill(0.0);
            }
            stream.push((total, raw));
        }
        // Replay each window of the stream three times, so most lookups
        // are hits (as the search's inner loops repeat their items), then
        // once with its totals shifted, so most are misses on the same
        // shapes.
        let mut replay: Vec<(f64, [f64; 7])> = Vec::new();
        for window in stream.chunks(256) {
            for _ in 0..3 {
                replay.extend_from_slice(window);
            }
            replay.extend(window.iter().map(|(t, r)| (t * 1.5, *r)));
        }
        let mut hits = 0;
        for (total, raw) in replay {
            let want = bits(mix_reference(total, &raw));
            assert_eq!(bits(Pools::mix(total, &Shapes::new(&raw))), want);
            let mut computed = false;
            let got = memo.get_or(total, &raw, || {
                computed = true;
                Pools::mix(total, &Shapes::new(&raw))
            });
            hits += usize::from(!computed);
            assert_eq!(bits(got), want, "{total} over {raw:?}");
        }
        assert!(hits > 10_000, "the memo hit {hits} times");
        for x in xs {
            assert_eq!(bits(Pools::one(x)), bits(Pools::split(x, x)), "{x}");
            let size = Size::new(x);
            for count in [0.0, 1.0, 3.0, 1e6, f64::NAN, f64::INFINITY, -2.0] {
                assert_eq!(bits(size.times(count)), bits(Pools::same(count, x)));
            }
        }
    }

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
        let shapes = Shapes::new(&[32.0 * MIB, 8.0 * MIB, 86.0 * MIB, 0.0, 0.0, 0.0, 0.0]);
        // 32 and 86 MiB are whole 2 MiB multiples; 8 MiB takes a 20 MiB segment.
        assert_eq!(
            Pools::mix(126.0 * MIB, &shapes).reserved(Off),
            (32.0 + 20.0 + 86.0) * MIB
        );
    }
}
