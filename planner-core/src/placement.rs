//! Placement by heat: a model of a tiering engine's loop (track accesses →
//! rank bytes by heat → migrate the coldest). When HBM overflows, the state
//! touched least per step per byte moves first, to the fastest tier with
//! room, and only as much of it as HBM needs.
//!
//! "Fastest" is measured, not assumed: the tiers that have capacity are
//! ranked by seconds per byte between HBM and the tier (the slower of the
//! host link and the tier's own bandwidth, as the time model charges it),
//! ties in the order CXL, host DRAM, NVMe. On a Grace-Hopper host DRAM
//! over NVLink-C2C outruns a CXL expander; behind PCIe the two often tie
//! at the link and CXL goes first. A tiering engine fills its fast tier
//! before it demotes to the next one, and so does this model:
//! - a state goes to the fastest tier that still has room;
//! - when that tier cannot take all of the fraction HBM needs, it takes
//!   the largest fraction of the state it can hold (to 1/1024 of the
//!   state), the tier counts as full, and the next coldest state goes on
//!   to the next tier in speed order: nothing lands in a slower tier while
//!   a faster one has room;
//! - a state takes one tier (an offload lever names one tier per state);
//! - when every tier is full, the state goes to the slowest tier anyway
//!   and the report shows that tier overflowing.
//!
//! Heat is counted in accesses per optimizer step (training) or per decode
//! step (serving), per byte of the state:
//! - optimizer moments and master weights: read and written once per step
//!   (2), which is why ZeRO-Offload moves them first (Ren et al. 2021 §3);
//! - gradients: accumulated by every micro-batch (2 per micro-batch);
//! - weights: read by forward, backward and any recompute (2–3 per
//!   micro-batch);
//! - saved activations: written and read once per micro-batch, but the
//!   buffer is reused by `m / in_flight` micro-batches;
//! - serving: weights and KV cache are both read once per decode step;
//!   the KV cache moves first because it grows with traffic while weights
//!   do not (vLLM/LMCache-style KV offload);
//! - an MoE model's routed experts, serving: a decode step of `b` tokens
//!   reads only the experts they route to, an expected 1 − (1 − k/E)^b of
//!   them (each token picks k of E), so a routed expert is that much
//!   colder than a dense weight, and at small batches the experts move
//!   first (as expert-offloading engines keep them in host memory and
//!   fetch what each step routes to: Eliseev & Mazur, arXiv 2312.17238).

use crate::memory;
use crate::plan::{Checkpointing, OffloadTarget, Tier};
pub use crate::report::{MovableState, Placed};
use crate::resolve::{Resolved, Work};
use crate::time::training::tier_seconds_per_byte;

fn slot(r: &mut Resolved, s: MovableState) -> &mut Option<OffloadTarget> {
    let o = &mut r.levers.offload;
    match s {
        MovableState::Optimizer => &mut o.optimizer,
        MovableState::Gradients => &mut o.gradients,
        MovableState::Parameters => &mut o.parameters,
        MovableState::Activations => &mut o.activations,
        MovableState::KvCache => &mut o.kv_cache,
        MovableState::Experts => &mut o.experts,
    }
}

/// Accesses per decode step per byte of the routed experts: the expected
/// share of them a step of `tokens` tokens routes to (each token picks k
/// of E), as `time::work::routed_experts` counts the experts a step reads.
/// With attention data-parallel, the `ep·etp/tp` replicas feeding one
/// expert group all route to its experts.
fn expert_heat(r: &Resolved, tokens: f64) -> Option<f64> {
    let m = r.spec.moe?;
    let (e, k) = (f64::from(m.experts).max(1.0), f64::from(m.top_k));
    let groups = (f64::from(r.ep) * f64::from(r.etp()) / f64::from(r.tp.max(1))).max(1.0);
    Some(1.0 - (1.0 - (k / e).min(1.0)).powf((tokens * groups).max(1.0)))
}

/// States in the order they move, with their heat.
fn candidates(r: &Resolved) -> Vec<(MovableState, f64)> {
    let mut c = match r.work {
        Work::Train { micro_batches, .. } => {
            let m = f64::from(micro_batches);
            let flight = memory::training_in_flight(r, 0, micro_batches).max(1.0);
            let recompute = match r.levers.checkpointing {
                Checkpointing::None | Checkpointing::Selective => 0.0,
                _ => 1.0,
            };
            vec![
                (MovableState::Optimizer, 2.0),
                (MovableState::Gradients, 2.0 * m),
                (MovableState::Parameters, (2.0 + recompute) * m),
                (MovableState::Activations, 2.0 * m / flight),
            ]
        }
        Work::Infer { batch, .. } => {
            let mut c = vec![
                (MovableState::KvCache, 1.0),
                (MovableState::Parameters, 1.0),
            ];
            if let Some(heat) = expert_heat(r, f64::from(batch)) {
                c.push((MovableState::Experts, heat));
            }
            c
        }
    };
    // Stable: heats equal to a thousandth keep the order above (routed
    // experts every step reads, at large batches, stay behind the KV cache
    // and beside the dense weights).
    c.sort_by_key(|(_, heat)| (heat * 1000.0).round() as i64);
    c
}

/// Whether every device's HBM fits (the allocation-free tables, which
/// agree with the report's tiers to the bit).
fn hbm_fits(r: &Resolved) -> bool {
    memory::hbm_fits(r)
}

/// Whether every device's use of `tier` fits (the same tables).
fn tier_fits(r: &Resolved, tier: Tier) -> bool {
    memory::tier_fits(r, tier)
}

/// The tiers below HBM that have capacity, fastest first (seconds per
/// byte from HBM, as the time model charges a copy), ties in the order
/// CXL, host DRAM, NVMe; and how many there are.
fn tiers_by_speed(r: &Resolved) -> ([Tier; 3], usize) {
    let mut order = [Tier::Cxl, Tier::HostDram, Tier::Nvme];
    // Stable: equal speeds keep the order above.
    order.sort_by(|a, b| tier_seconds_per_byte(r, *a).total_cmp(&tier_seconds_per_byte(r, *b)));
    let mut tiers = order;
    let mut n = 0;
    for t in order {
        if r.capacity(t).base() > 0.0 {
            tiers[n] = t;
            n += 1;
        }
    }
    (tiers, n)
}

/// Offload levers chosen by heat. Returns the plan with them set and the
/// decisions taken (empty when everything fits in HBM).
pub(crate) fn by_heat(r: &Resolved) -> (Resolved, Vec<Placed>) {
    let mut x = *r;
    x.levers.offload = Default::default();
    let mut placed = Vec::new();
    if hbm_fits(&x) {
        return (x, placed);
    }
    let (order, n) = tiers_by_speed(r);
    let tiers = &order[..n];
    // The fastest tier that may still have room; those before it are full.
    let mut next = 0;
    for (state, heat) in candidates(r) {
        let with = |tier: Tier, f: f64| {
            let mut y = x;
            *slot(&mut y, state) = Some(OffloadTarget { tier, fraction: f });
            y
        };
        // Smallest fraction (to 1/1024) that lets HBM fit, or all of it.
        let fraction_for = |tier: Tier| {
            if !hbm_fits(&with(tier, 1.0)) {
                return 1.0;
            }
            let (mut lo, mut hi) = (0.0f64, 1.0f64);
            for _ in 0..10 {
                let mid = 0.5 * (lo + hi);
                if hbm_fits(&with(tier, mid)) {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            hi
        };
        // Largest fraction up to `need` (to 1/1024 of it) that `tier`
        // holds; 0 when not even that much fits.
        let most_held = |tier: Tier, need: f64| {
            if tier_fits(&with(tier, need), tier) {
                return need;
            }
            let (mut lo, mut hi) = (0.0f64, need);
            for _ in 0..10 {
                let mid = 0.5 * (lo + hi);
                if tier_fits(&with(tier, mid), tier) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            lo
        };
        // The fastest tier with room takes what HBM needs, or as much as
        // it holds (and is then full); when every tier is full, the
        // slowest takes what HBM needs and overflows.
        let mut pick = None;
        while let Some(&tier) = tiers.get(next) {
            let need = fraction_for(tier);
            let f = most_held(tier, need);
            if f >= need {
                pick = Some((tier, need));
                break;
            }
            next += 1;
            if f > 0.0 {
                pick = Some((tier, f));
                break;
            }
        }
        let Some((tier, fraction)) = pick.or_else(|| tiers.last().map(|&t| (t, fraction_for(t))))
        else {
            break;
        };
        x = with(tier, fraction);
        placed.push(Placed {
            state,
            heat,
            tier,
            fraction,
        });
        if hbm_fits(&x) {
            break;
        }
    }
    (x, placed)
}
