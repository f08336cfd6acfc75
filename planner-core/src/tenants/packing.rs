//! Packing: first-fit decreasing of integer demands (MIG instances,
//! memory caps, whole GPUs) onto the GPUs of a pool.

use crate::catalog::{self, COMPUTE_SLICES, MEMORY_SLICES};
use serde::{Deserialize, Serialize};

/// What the packer places: integer sizes so that the invariants are exact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Demand {
    /// One MIG instance.
    Mig {
        /// Compute slices out of 7.
        compute: u32,
        /// Memory slices out of 8.
        memory: u32,
    },
    /// `percent` of the memory of each of `gpus` distinct GPUs.
    Cap {
        /// Whole per cent, 1..=100.
        percent: u32,
        /// GPUs.
        gpus: u32,
    },
    /// Whole GPUs.
    Whole {
        /// GPUs.
        gpus: u32,
    },
}

impl Demand {
    /// GPUs the demand spans.
    pub fn gpus(&self) -> u32 {
        match *self {
            Demand::Mig { .. } => 1,
            Demand::Cap { gpus, .. } | Demand::Whole { gpus } => gpus,
        }
    }

    /// Size in 1/800 of a GPU (eighths × percent), for the decreasing order.
    fn size(&self) -> (u64, u32) {
        match *self {
            Demand::Mig { compute, memory } => (u64::from(memory) * 100, compute),
            Demand::Cap { percent, gpus } => (u64::from(percent) * 8 * u64::from(gpus), 0),
            Demand::Whole { gpus } => (800 * u64::from(gpus), 0),
        }
    }
}

/// Where a demand was placed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Slot {
    /// GPU indices, ascending.
    pub gpus: Vec<u32>,
    /// First memory slice of a MIG instance.
    pub mig_start: Option<u32>,
}

/// How one GPU of the pool is used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum GpuState {
    /// Nothing on it.
    Free,
    /// One job has it whole.
    Whole {
        /// The job's index.
        job: usize,
    },
    /// MIG instances.
    Mig {
        /// Which job holds each memory slice.
        memory: [Option<usize>; MEMORY_SLICES as usize],
        /// Compute slices in use.
        compute_used: u32,
    },
    /// Capped processes.
    Capped {
        /// (job index, per cent) of each process.
        caps: Vec<(usize, u32)>,
    },
}

/// Packs demands onto `gpus` GPUs of `per_node` per node, first-fit
/// decreasing (see the module documentation). Returns the slot of each
/// demand (`None` where there was no room) and the state of each GPU.
/// `None` demands (jobs that fit nowhere) are skipped.
pub fn pack(
    gpus: u32,
    per_node: u32,
    demands: &[Option<Demand>],
) -> (Vec<Option<Slot>>, Vec<GpuState>) {
    let per_node = per_node.max(1);
    let mut state = vec![GpuState::Free; gpus as usize];
    let mut slots = vec![None; demands.len()];
    let mut order: Vec<usize> = (0..demands.len())
        .filter(|&i| demands[i].is_some())
        .collect();
    // Largest first; `sort_by` is stable, so ties keep input order.
    order.sort_by(|&a, &b| {
        let (sa, sb) = (demands[a].map(|d| d.size()), demands[b].map(|d| d.size()));
        sb.cmp(&sa)
    });
    for i in order {
        let Some(d) = demands[i] else { continue };
        slots[i] = place(&mut state, per_node, i, d);
    }
    (slots, state)
}

/// GPU indices to take for a multi-GPU demand: the first `k` eligible in
/// one node when a node has `k`, else the first `k` overall.
fn choose(eligible: &[u32], k: u32, per_node: u32) -> Option<Vec<u32>> {
    if (eligible.len() as u64) < u64::from(k) {
        return None;
    }
    if k <= per_node {
        let mut node = u32::MAX;
        let mut run = Vec::new();
        for &g in eligible {
            if g / per_node != node {
                node = g / per_node;
                run.clear();
            }
            run.push(g);
            if run.len() as u32 == k {
                return Some(run);
            }
        }
    }
    Some(eligible[..k as usize].to_vec())
}

/// Places one demand on the first GPUs with room for it, and marks them.
fn place(state: &mut [GpuState], per_node: u32, job: usize, d: Demand) -> Option<Slot> {
    match d {
        Demand::Whole { gpus } => place_whole(state, per_node, job, gpus),
        Demand::Cap { percent, gpus } => place_cap(state, per_node, job, percent, gpus),
        Demand::Mig { compute, memory } => place_mig(state, job, compute, memory),
    }
}

/// Whole GPUs: the first free ones, in one node where one has room.
fn place_whole(state: &mut [GpuState], per_node: u32, job: usize, gpus: u32) -> Option<Slot> {
    let free: Vec<u32> = (0..state.len() as u32)
        .filter(|&g| state[g as usize] == GpuState::Free)
        .collect();
    let chosen = choose(&free, gpus.max(1), per_node)?;
    for &g in &chosen {
        state[g as usize] = GpuState::Whole { job };
    }
    Some(Slot {
        gpus: chosen,
        mig_start: None,
    })
}

/// Whether a GPU can take a cap of `percent` more: free, or capped with
/// the caps staying within 100 %.
fn cap_room(s: &GpuState, percent: u32) -> bool {
    match s {
        GpuState::Free => true,
        GpuState::Capped { caps } => caps.iter().map(|c| c.1).sum::<u32>() + percent <= 100,
        _ => false,
    }
}

/// A memory cap on each of `gpus` GPUs with room for it.
fn place_cap(
    state: &mut [GpuState],
    per_node: u32,
    job: usize,
    percent: u32,
    gpus: u32,
) -> Option<Slot> {
    let eligible: Vec<u32> = (0..state.len() as u32)
        .filter(|&g| cap_room(&state[g as usize], percent))
        .collect();
    let chosen = choose(&eligible, gpus.max(1), per_node)?;
    for &g in &chosen {
        let s = &mut state[g as usize];
        match s {
            GpuState::Capped { caps } => caps.push((job, percent)),
            _ => {
                *s = GpuState::Capped {
                    caps: vec![(job, percent)],
                }
            }
        }
    }
    Some(Slot {
        gpus: chosen,
        mig_start: None,
    })
}

/// The MIG slices of a GPU and the compute slices in use (`None` for a GPU
/// taken whole or by caps).
fn mig_layout(s: &GpuState) -> Option<([Option<usize>; MEMORY_SLICES as usize], u32)> {
    match s {
        GpuState::Free => Some(([None; MEMORY_SLICES as usize], 0)),
        GpuState::Mig {
            memory,
            compute_used,
        } => Some((*memory, *compute_used)),
        _ => None,
    }
}

/// The first start NVIDIA allows for the profile whose memory slices are
/// free.
fn mig_start(
    slices: &[Option<usize>; MEMORY_SLICES as usize],
    compute: u32,
    memory: u32,
) -> Option<u32> {
    let free = |start: u32| {
        let end = start + memory;
        end <= MEMORY_SLICES
            && slices[start as usize..end as usize]
                .iter()
                .all(Option::is_none)
    };
    catalog::placements(compute, memory)
        .iter()
        .find(|&&st| free(st))
        .copied()
}

/// One MIG instance on the first GPU with compute slices to spare and a
/// free start for its profile.
fn place_mig(state: &mut [GpuState], job: usize, compute: u32, memory: u32) -> Option<Slot> {
    for (g, s) in state.iter_mut().enumerate() {
        let Some((slices, used)) = mig_layout(s) else {
            continue;
        };
        if used + compute > COMPUTE_SLICES {
            continue;
        }
        let Some(start) = mig_start(&slices, compute, memory) else {
            continue;
        };
        let mut slices = slices;
        for m in &mut slices[start as usize..(start + memory) as usize] {
            *m = Some(job);
        }
        *s = GpuState::Mig {
            memory: slices,
            compute_used: used + compute,
        };
        return Some(Slot {
            gpus: vec![g as u32],
            mig_start: Some(start),
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mig(compute: u32, memory: u32) -> Option<Demand> {
        Some(Demand::Mig { compute, memory })
    }

    #[test]
    fn mig_fills_a_gpu_as_nvidia_allows() {
        // 4g + 3g fill one GPU; a second 3g goes to the next.
        let (slots, state) = pack(2, 8, &[mig(3, 4), mig(4, 4), mig(3, 4)]);
        assert_eq!(slots[1].as_ref().map(|s| s.mig_start), Some(Some(0)));
        assert_eq!(slots[0].as_ref().map(|s| s.mig_start), Some(Some(4)));
        assert_eq!(slots[2].as_ref().map(|s| s.gpus.clone()), Some(vec![1]));
        assert!(matches!(
            state[0],
            GpuState::Mig {
                compute_used: 7,
                ..
            }
        ));
    }

    #[test]
    fn seven_small_slices_and_no_eighth() {
        let d = vec![mig(1, 1); 8];
        let (slots, _) = pack(1, 8, &d);
        assert_eq!(slots.iter().filter(|s| s.is_some()).count(), 7);
        assert!(slots[7].is_none());
    }

    #[test]
    fn caps_stay_within_the_gpu() {
        let d = [
            Some(Demand::Cap {
                percent: 60,
                gpus: 1,
            }),
            Some(Demand::Cap {
                percent: 50,
                gpus: 1,
            }),
            Some(Demand::Cap {
                percent: 40,
                gpus: 1,
            }),
        ];
        let (slots, _) = pack(2, 8, &d);
        // 60 then 50 (GPU 1) then 40 joins the 60 on GPU 0.
        assert_eq!(slots[0].as_ref().map(|s| s.gpus.clone()), Some(vec![0]));
        assert_eq!(slots[1].as_ref().map(|s| s.gpus.clone()), Some(vec![1]));
        assert_eq!(slots[2].as_ref().map(|s| s.gpus.clone()), Some(vec![0]));
    }

    #[test]
    fn whole_gpus_prefer_one_node() {
        // Largest first: the 8-GPU job takes node 0, the 4-GPU job the start
        // of node 1, and the slice the next free GPU.
        let (slots, _) = pack(
            16,
            8,
            &[
                mig(7, 8),
                Some(Demand::Whole { gpus: 8 }),
                Some(Demand::Whole { gpus: 4 }),
            ],
        );
        assert_eq!(slots[1].as_ref().map(|s| s.gpus[0]), Some(0));
        assert_eq!(
            slots[2].as_ref().map(|s| s.gpus.clone()),
            Some(vec![8, 9, 10, 11])
        );
        assert_eq!(slots[0].as_ref().map(|s| s.gpus.clone()), Some(vec![12]));
    }
}
