//! KV across tiers with reuse, as LMCache runs it under vLLM (and as
//! SGLang's HiCache and Mooncake's store do in their own ways): the
//! engine's prefix cache in HBM keeps the blocks of finished requests in
//! its free pool until they are needed (vLLM V1 `KVCacheManager`: freed
//! blocks stay cached and are evicted least recently used first); a second
//! store below HBM (`levers.kv_tier`: host DRAM, CXL expanders or a pool,
//! NVMe) keeps every chunk the engine has computed, written down as it is
//! computed; a request whose prompt starts with a context either finds it
//! in HBM (it skips prefill), or in the store (it fetches it, chunk by
//! chunk, and skips prefill), or computes it.
//!
//! Hit rates follow from capacity through LRU's stack of recency (Mattson
//! et al. 1970): a context is in a cache of C tokens when the contexts
//! used since it was last used, itself included, take at most C tokens.
//! The two caches share that stack (the store holds what HBM holds and
//! more), so with uniform use of N contexts of S tokens the HBM share hits
//! with probability min(1, C_hbm/(N·S)) and the store adds
//! min(1, max(C_hbm, C_store)/(N·S)) minus that. The simulator keeps the
//! stack itself; the steady state uses the formula with the pool's free
//! tokens at its own operating point.
//!
//! Transfers: a fetch of n tokens costs ⌈n/chunk⌉ × the tier's latency
//! plus n × the KV bytes per token of the binding device over the slower
//! of the GPU's host link and the tier's bandwidth per GPU (the same link
//! model as weight and KV offload, `time::training::tier_seconds_per_byte`
//! and `tier_latency`); every prefill token's KV is written down the same
//! way. With `KvLoad::Bulk` (LMCache's default) the iteration waits for
//! both; with `KvLoad::Layerwise` they run one layer ahead of compute and
//! only what compute cannot cover shows (`time::training::pipelined`).

use super::capacity::Capacity;
use crate::engine::{KvLoad, PreemptedKv};
use crate::plan::Tier;
use crate::report::DeviceMemory;
use crate::request::RequestStream;
use crate::resolve::Resolved;
use crate::time::training::{pipelined, tier_latency, tier_seconds_per_byte};

/// The store below HBM of one replica, resolved.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Store {
    pub tier: Tier,
    /// Tokens it holds (its bytes per GPU over the binding device's KV
    /// bytes per token).
    pub tokens: f64,
    /// Seconds per token moved, on the binding device.
    pub per_token: f64,
    /// Seconds each chunk waits for its first byte.
    pub latency: f64,
    pub chunk: u32,
    pub load: KvLoad,
    pub swap: bool,
    /// Layers on one device, the pieces a layer-wise copy overlaps by.
    pub layers: f64,
}

impl Store {
    /// Seconds to move `tokens` tokens in whole chunks.
    pub fn moved(&self, tokens: f64) -> f64 {
        if tokens <= 0.0 {
            return 0.0;
        }
        let chunks = (tokens / f64::from(self.chunk.max(1))).ceil();
        chunks * self.latency + tokens * self.per_token
    }

    /// What an iteration of `compute` seconds waits for `copies` seconds
    /// of fetches and writes.
    pub fn exposed(&self, copies: f64, compute: f64) -> f64 {
        match self.load {
            KvLoad::Bulk => copies.max(0.0),
            KvLoad::Layerwise => pipelined(copies, compute, self.layers),
        }
    }
}

/// Reuse and the store, for one replica.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tiering {
    /// Distinct contexts (0 without reuse).
    pub contexts: f64,
    /// Tokens of one context, in whole blocks, as the mean prompt reuses it.
    pub context: f64,
    pub store: Option<Store>,
}

impl Tiering {
    /// Tokens of all contexts.
    pub fn working_set(&self) -> f64 {
        self.contexts * self.context
    }

    /// Probabilities that a request's context is in HBM, and in the store
    /// but not in HBM, when HBM's prefix cache has `free` tokens.
    pub fn hits(&self, free: f64) -> [f64; 2] {
        let w = self.working_set();
        if w <= 0.0 {
            return [0.0, 0.0];
        }
        let hbm = (free.max(0.0) / w).clamp(0.0, 1.0);
        let below = self.store.map_or(0.0, |s| s.tokens);
        let all = (free.max(below) / w).clamp(0.0, 1.0);
        [hbm, (all - hbm).max(0.0)]
    }
}

/// Where the reuse stands at one operating point of the steady state.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct KvUse<'a> {
    pub tiers: Option<&'a Tiering>,
    /// Mean context tokens a request finds (in HBM or the store); they
    /// skip prefill, and each running request holds their blocks.
    pub reused: f64,
    /// Mean seconds of fetch per request.
    pub fetch: f64,
    /// Hit probabilities, HBM and the store.
    pub hits: [f64; 2],
}

impl<'a> KvUse<'a> {
    /// The use at `free` tokens of HBM prefix cache.
    pub fn at(tiers: Option<&'a Tiering>, free: f64) -> Self {
        let Some(t) = tiers else {
            return KvUse::default();
        };
        let hits = t.hits(free);
        KvUse {
            tiers,
            reused: (hits[0] + hits[1]) * t.context,
            fetch: t.store.map_or(0.0, |s| hits[1] * s.moved(t.context)),
            hits,
        }
    }

    /// Seconds an iteration of `compute` seconds adds for `starting`
    /// requests' fetches and `prefilled` tokens written down.
    pub fn added(&self, compute: f64, starting: f64, prefilled: f64) -> f64 {
        let Some(s) = self.tiers.and_then(|t| t.store) else {
            return 0.0;
        };
        // Writes stream out behind compute as the tokens are produced:
        // bytes over the link, no first-byte wait of their own.
        let copies = self.fetch * starting + prefilled.max(0.0) * s.per_token;
        s.exposed(copies, compute)
    }
}

/// Tokens of a prompt of `prompt` tokens that a context of `context`
/// tokens after `cached` shared tokens lets it reuse: whole blocks, never
/// the prompt's last token.
pub(crate) fn reusable(prompt: u32, cached: u32, context: u32, block: u32) -> u32 {
    let b = block.max(1);
    let end = cached.saturating_add(context).min(prompt.saturating_sub(1));
    (end / b * b).saturating_sub(cached)
}

/// The store of a plan (`levers.kv_tier`), if any: its bytes per GPU are
/// the plan's, or what the binding device leaves free in the tier.
pub(crate) fn store(r: &Resolved, devices: &[DeviceMemory], cap: &Capacity) -> Option<Store> {
    let k = r.levers.kv_tier?;
    if k.tier == Tier::Hbm || cap.per_token <= 0.0 {
        return None;
    }
    let free = devices
        .iter()
        .map(|d| (r.capacity(k.tier) - d.in_tier(k.tier)).base().max(0.0))
        .fold(r.capacity(k.tier).base(), f64::min);
    let bytes = k.capacity.map_or(free, |b| b.base().min(free)).max(0.0);
    Some(Store {
        tier: k.tier,
        tokens: bytes / cap.per_token,
        per_token: cap.per_token * tier_seconds_per_byte(r, k.tier),
        latency: tier_latency(r, k.tier),
        chunk: k.chunk_tokens.max(1),
        load: k.load,
        swap: k.preempted == PreemptedKv::Swap,
        layers: f64::from(r.spec.layers.div_ceil(r.pp.max(1)).max(1)),
    })
}

/// Reuse and the store of a plan's stream; `None` when neither applies.
/// Contexts are served only with the prefix cache on (`prefix_cache`);
/// the store alone still takes swapped requests.
pub(crate) fn tiering(
    r: &Resolved,
    devices: &[DeviceMemory],
    cap: &Capacity,
    stream: &RequestStream,
    prefix_cache: bool,
    shared: f64,
) -> Option<Tiering> {
    let store = store(r, devices, cap);
    let reuse = stream.reuse.filter(|_| prefix_cache);
    if store.is_none() && reuse.is_none() {
        return None;
    }
    let (contexts, context) = reuse.map_or((0.0, 0.0), |u| {
        let mean = stream.prompt.mean().max(1.0).round() as u32;
        let tokens = reusable(mean, shared as u32, u.tokens, cap.block_tokens);
        (f64::from(u.contexts), f64::from(tokens))
    });
    Some(Tiering {
        contexts,
        context,
        store,
    })
}

/// LRU's stack of recency over the contexts, for the simulator: a Fenwick
/// tree over use stamps counts the contexts used since a given one. The
/// stack starts warm, every context in it (context n − 1 most recent).
pub(crate) struct Lru {
    tree: Vec<u32>,
    last: Vec<u32>,
    next: u32,
}

impl Lru {
    /// A warm stack of `contexts` contexts with room for `touches` uses.
    pub fn new(contexts: u32, touches: u32) -> Self {
        let n = contexts as usize + touches as usize + 1;
        let mut tree = vec![0u32; n + 1];
        for i in 1..=n {
            if i <= contexts as usize {
                tree[i] += 1;
            }
            let j = i + (i & i.wrapping_neg());
            if j <= n {
                tree[j] += tree[i];
            }
        }
        Lru {
            tree,
            last: (1..=contexts).collect(),
            next: contexts + 1,
        }
    }

    fn add(&mut self, mut i: usize, v: i64) {
        while i < self.tree.len() {
            self.tree[i] = (i64::from(self.tree[i]) + v) as u32;
            i += i & i.wrapping_neg();
        }
    }

    fn upto(&self, mut i: usize) -> u64 {
        let mut s = 0u64;
        while i > 0 {
            s += u64::from(self.tree[i]);
            i -= i & i.wrapping_neg();
        }
        s
    }

    /// Contexts used since `ctx` was last used, itself included.
    pub fn depth(&self, ctx: u32) -> u64 {
        let at = self.last[ctx as usize] as usize;
        let all = self.upto(self.tree.len() - 1);
        all - self.upto(at) + 1
    }

    /// Marks `ctx` as used now.
    pub fn touch(&mut self, ctx: u32) {
        let at = self.last[ctx as usize] as usize;
        if (self.next as usize) >= self.tree.len() {
            return;
        }
        self.add(at, -1);
        self.add(self.next as usize, 1);
        self.last[ctx as usize] = self.next;
        self.next += 1;
    }
}

/// What the simulator saw of the tiers.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Seen {
    /// Context tokens requests looked up.
    pub looked: f64,
    /// Of them, found in HBM and in the store.
    pub hbm: f64,
    pub below: f64,
    /// Seconds of fetches (contexts and swapped requests).
    pub fetch: f64,
    /// Requests preempted by swapping to the store.
    pub swaps: u32,
}

impl Seen {
    /// What two replicas saw together.
    pub(crate) fn merged(&self, o: &Seen) -> Seen {
        Seen {
            looked: self.looked + o.looked,
            hbm: self.hbm + o.hbm,
            below: self.below + o.below,
            fetch: self.fetch + o.fetch,
            swaps: self.swaps + o.swaps,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stack_counts_contexts_used_since() {
        let mut l = Lru::new(4, 10);
        // Warm: context 3 most recent, 0 least.
        assert_eq!(l.depth(3), 1);
        assert_eq!(l.depth(0), 4);
        l.touch(0);
        assert_eq!(l.depth(0), 1);
        assert_eq!(l.depth(3), 2);
        assert_eq!(l.depth(1), 4);
        l.touch(1);
        l.touch(0);
        assert_eq!(l.depth(0), 1);
        assert_eq!(l.depth(1), 2);
        assert_eq!(l.depth(2), 4);
    }

    #[test]
    fn reuse_is_whole_blocks_and_never_the_last_token() {
        assert_eq!(reusable(1000, 0, 600, 16), 592);
        assert_eq!(reusable(500, 0, 600, 16), 496);
        assert_eq!(reusable(1000, 256, 600, 16), 592);
        assert_eq!(reusable(10, 0, 600, 16), 0);
    }

    #[test]
    fn hits_split_between_hbm_and_the_store() {
        let t = Tiering {
            contexts: 100.0,
            context: 1000.0,
            store: None,
        };
        assert_eq!(t.hits(50_000.0), [0.5, 0.0]);
        assert_eq!(t.hits(1e9), [1.0, 0.0]);
    }
}
