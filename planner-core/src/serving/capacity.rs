//! The KV pool an engine sets aside on each device, the tokens it holds and
//! the requests that fit at once.

use crate::engine::{EngineProfile, KvPoolRule};
use crate::memory::kv_per_token_layer_rank;
use crate::plan::{KvCacheLayout, Tier};
use crate::report::{DeviceMemory, DeviceRole, ItemKind};
use crate::resolve::Resolved;
use crate::units::Bytes;

/// The pool and what it holds, for one replica.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Capacity {
    /// KV pool of the device that holds the fewest tokens.
    pub pool: Bytes,
    /// KV bytes per token on that device (its layers, its TP share).
    pub per_token: f64,
    /// Tokens the replica's pool holds (the fewest over its devices).
    pub tokens: f64,
    /// Tokens per block as the engine pages.
    pub block_tokens: u32,
}

impl Capacity {
    /// One of `n` equal shares of the pool: what one micro-batch's
    /// scheduler holds when a pipeline keeps `n` in flight ([`super::lanes`]).
    pub fn lane(self, n: u32) -> Capacity {
        let n = f64::from(n.max(1));
        Capacity {
            pool: Bytes::new(self.pool.as_bytes() / n),
            tokens: self.tokens / n,
            ..self
        }
    }

    /// Blocks the pool holds.
    pub fn blocks(&self) -> u64 {
        (self.tokens / f64::from(self.block_tokens.max(1))).floor() as u64
    }

    /// Blocks a sequence of `tokens` tokens holds (sliding-window models
    /// hold at most the window).
    pub fn blocks_for(&self, r: &Resolved, tokens: u32) -> u64 {
        let b = self.block_tokens.max(1);
        (r.spec.blocked_keys(tokens, b) / f64::from(b)).ceil() as u64
    }

    /// Requests of `tokens` tokens the pool holds at once (vLLM's maximum
    /// concurrency: pool tokens over whole blocks per request).
    pub fn concurrency(&self, r: &Resolved, tokens: u32) -> f64 {
        let per = self.blocks_for(r, tokens) * u64::from(self.block_tokens.max(1));
        if per == 0 {
            return 0.0;
        }
        self.blocks() as f64 * f64::from(self.block_tokens.max(1)) / per as f64
    }
}

/// The engine's page size: the plan's paged block size when it differs
/// from the default 16, else the engine's own (vLLM 16, SGLang 1,
/// TensorRT-LLM 32).
pub(crate) fn block_tokens(r: &Resolved, profile: &EngineProfile) -> u32 {
    match r.levers.kv_cache {
        KvCacheLayout::Paged { block_tokens } if block_tokens != 16 => block_tokens,
        KvCacheLayout::Paged { .. } | KvCacheLayout::Contiguous { .. } => profile.block_tokens,
    }
}

/// KV pool of one device by the engine's rule, never more than the HBM
/// the rest leaves (the plan's memory cap, when set, bounds it).
///
/// vLLM's budget is `gpu_memory_utilization` × the device's total less
/// the bytes PyTorch allocated for the weights and the profile run, and
/// the non-torch growth after its start-up snapshot
/// (`vllm/v1/worker/gpu_worker.py` `determine_available_memory`,
/// v0.11.0). The snapshot follows CUDA's and NCCL's initialisation, and
/// both measures are of allocated bytes, so the CUDA context, NCCL's
/// buffers and the caching allocator's rounding sit outside the budget:
/// vLLM's process uses the fraction plus those.
pub(crate) fn pool(r: &Resolved, d: &DeviceMemory, profile: &EngineProfile) -> Bytes {
    pool_and_room(r, d, profile).0
}

/// The pool by the engine's rule, the HBM the device leaves for KV
/// whatever the rule (the plan's cap or the device's memory, less every
/// other item), and the rule's balance before it is floored at zero
/// (negative by what it lacks).
fn pool_and_room(r: &Resolved, d: &DeviceMemory, profile: &EngineProfile) -> (Bytes, Bytes, f64) {
    let total = r.capacity(Tier::Hbm);
    let in_hbm = |k: ItemKind| -> Bytes {
        d.items
            .iter()
            .filter(|i| i.tier == Tier::Hbm && i.kind == k)
            .map(|i| i.bytes)
            .sum()
    };
    let kv = in_hbm(ItemKind::KvCache) + in_hbm(ItemKind::KvCacheWaste);
    let weights = in_hbm(ItemKind::Weights);
    let others = (d.hbm_used() - kv - weights).max(Bytes::ZERO);
    let leftover = KvPoolRule::Leftover.pool(total, weights, others);
    let balance = match profile.pool {
        KvPoolRule::OfTotal { fraction } => {
            let outside = in_hbm(ItemKind::CudaContext)
                + in_hbm(ItemKind::NcclBuffers)
                + in_hbm(ItemKind::Fragmentation);
            let budgeted = (others - outside).max(Bytes::ZERO);
            KvPoolRule::OfTotal { fraction }.balance(r.gpu.device_memory(), weights, budgeted)
        }
        rule => rule.balance(total, weights, others),
    };
    let balance = balance.min(leftover.base());
    (Bytes::new(balance.max(0.0)), leftover, balance)
}

/// KV bytes per token on device `d`: its layers' share, and the
/// drafter's on the device with the output layer.
pub(crate) fn per_token(r: &Resolved, d: &DeviceMemory) -> f64 {
    let head = matches!(d.role, DeviceRole::OnlyStage | DeviceRole::LastStage);
    let draft = if head {
        crate::memory::speculator::Speculator::of(r).map_or(0.0, |s| s.kv_per_token())
    } else {
        0.0
    };
    kv_per_token_layer_rank(r) * f64::from(d.layers) + draft
}

/// The devices as a continuous-batching engine holds them. The engine
/// allocates its whole KV pool when it starts (vLLM
/// `GPUModelRunner.initialize_kv_cache`, SGLang's `TokenToKVPool`,
/// TensorRT-LLM's `KVCacheManager`), so each device's HBM KV items become
/// that pool, not one batch's cache. A pool smaller than one request of
/// `longest` tokens is shown at that request's size plus the HBM the
/// engine's rule leaves unused: the device is then over by what the rule
/// lacks, and the verdict says so, as vLLM refuses to start when
/// `max_model_len` exceeds what the cache stores
/// (`vllm/v1/core/kv_cache_utils.py`, `check_enough_kv_cache_memory`).
pub(crate) fn engine_devices(
    r: &Resolved,
    devices: &[DeviceMemory],
    profile: &EngineProfile,
    longest: u32,
) -> Vec<DeviceMemory> {
    let block = block_tokens(r, profile).max(1);
    let one = r.spec.blocked_keys(longest, block);
    devices
        .iter()
        .map(|d| {
            let (p, room, balance) = pool_and_room(r, d, profile);
            let per = per_token(r, d);
            let need = Bytes::new(one * per);
            // Short of one request, the engine refuses to start: the
            // device is shown over by what its rule lacks (one request
            // less the rule's balance), even where the HBM its rule leaves
            // unused would hold it.
            let bytes = if p < need {
                Bytes::new(need.base() + room.base() - balance)
            } else {
                p
            };
            let mut out = d.clone();
            let is_kv = |i: &crate::report::MemoryItem| {
                i.tier == Tier::Hbm && matches!(i.kind, ItemKind::KvCache | ItemKind::KvCacheWaste)
            };
            out.items.retain(|i| !is_kv(i));
            let tokens = if per > 0.0 { p.base() / per } else { 0.0 };
            out.items.push(crate::report::MemoryItem {
                kind: ItemKind::KvCache,
                tier: Tier::Hbm,
                bytes,
                basis: format!(
                    "{} KV pool: {tokens:.0} tokens × {:.1} KiB/token on this device",
                    crate::lang::Named::name(profile.engine, crate::lang::Lang::En),
                    per / 1024.0
                ),
            });
            retier(r, &mut out);
            out
        })
        .collect()
}

/// Recomputes a device's use of HBM from its items, as
/// `memory::Items::into_device` sums it.
fn retier(r: &Resolved, d: &mut DeviceMemory) {
    let Some(t) = d.tiers.iter_mut().find(|t| t.tier == Tier::Hbm) else {
        return;
    };
    let (mut used, mut low, mut high) = (Bytes::ZERO, 0.0, 0.0);
    for i in d.items.iter().filter(|i| i.tier == Tier::Hbm) {
        let (l, h) = i.kind.relative_range();
        used += i.bytes;
        low += l * i.bytes.base();
        high += h * i.bytes.base();
    }
    t.used = used;
    t.capacity = r.capacity(Tier::Hbm);
    t.range = crate::report::Interval {
        low: Bytes::new(low),
        high: Bytes::new(high),
    };
}

/// The pool of every device and the tokens the replica holds.
pub(crate) fn capacity(
    r: &Resolved,
    devices: &[DeviceMemory],
    profile: &EngineProfile,
) -> Capacity {
    let mut best: Option<Capacity> = None;
    for d in devices {
        let per_token = per_token(r, d);
        if per_token <= 0.0 {
            continue;
        }
        let p = pool(r, d, profile);
        let tokens = p.base() / per_token;
        if best.is_none_or(|b| tokens < b.tokens) {
            best = Some(Capacity {
                pool: p,
                per_token,
                tokens,
                block_tokens: block_tokens(r, profile),
            });
        }
    }
    best.unwrap_or(Capacity {
        pool: Bytes::ZERO,
        per_token: 0.0,
        tokens: 0.0,
        block_tokens: profile.block_tokens,
    })
}
