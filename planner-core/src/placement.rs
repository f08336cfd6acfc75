//! Placement by heat: a model of a tiering engine's loop (track accesses →
//! rank bytes by heat → migrate the coldest). When HBM overflows, the state
//! touched least per step per byte moves first, to the fastest tier with
//! room, and only as much of it as HBM needs.
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
//!   do not (vLLM/LMCache-style KV offload).

use crate::memory;
use crate::plan::{Checkpointing, OffloadTarget, Tier};
pub use crate::report::{MovableState, Placed};
use crate::resolve::{Resolved, Work};

fn slot(r: &mut Resolved, s: MovableState) -> &mut Option<OffloadTarget> {
    let o = &mut r.levers.offload;
    match s {
        MovableState::Optimizer => &mut o.optimizer,
        MovableState::Gradients => &mut o.gradients,
        MovableState::Parameters => &mut o.parameters,
        MovableState::Activations => &mut o.activations,
        MovableState::KvCache => &mut o.kv_cache,
    }
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
        Work::Infer { .. } => vec![
            (MovableState::KvCache, 1.0),
            (MovableState::Parameters, 1.0),
        ],
    };
    // Stable: equal heats keep the order above.
    c.sort_by(|a, b| a.1.total_cmp(&b.1));
    c
}

/// Whether every device's HBM fits (the allocation-free tables, which
/// agree with the report's tiers to the bit).
fn hbm_fits(r: &Resolved) -> bool {
    memory::hbm_fits(r)
}

fn all_fit(r: &Resolved) -> bool {
    memory::fits(r)
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
    let tiers: Vec<Tier> = [Tier::Cxl, Tier::HostDram, Tier::Nvme]
        .into_iter()
        .filter(|t| r.capacity(*t).base() > 0.0)
        .collect();
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
        // The fastest tier that takes the moved bytes; else the last one.
        let mut pick = None;
        for &tier in &tiers {
            let f = fraction_for(tier);
            if all_fit(&with(tier, f)) {
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
