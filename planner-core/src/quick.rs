//! The fast path: memory, verdict and time of a plan without building a
//! report. No strings, no heap: what the search runs millions of times.
//!
//! [`Prepared::new`] resolves a plan once (that part allocates: catalog
//! names, diagnostics); [`Prepared::quick`] then evaluates it with the same
//! formulas `evaluate` uses, written into fixed tables instead of item
//! lists. Its verdict, HBM margin and times equal the report's to the bit;
//! `tests/properties.rs` checks that on random plans.
//!
//! ```
//! use planner_core::{example_plan, evaluate, quick::Prepared};
//! let plan = example_plan();
//! let fast = Prepared::new(&plan).quick();
//! assert_eq!(fast.verdict, evaluate(&plan).verdict);
//! ```

use crate::fixed::FixedVec;
use crate::memory::granules::Granules;
use crate::memory::Tables;
use crate::plan::{Placement, Plan};
use crate::report::Verdict;
use crate::resolve::{resolve, Resolved, Work};
use crate::time;
use crate::units::{Bytes, Seconds};

pub use crate::memory::breakdown::Breakdown;

/// A plan resolved once, ready to be evaluated quickly.
#[derive(Debug, Clone)]
pub struct Prepared {
    r: Resolved,
    validity: Validity,
    /// The plan's tensor sizes for the allocator model, worked out once
    /// like the resolution itself (they depend on nothing else).
    granules: Option<Granules>,
}

/// Whether resolving a plan raised errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Validity {
    Valid,
    Invalid,
}

impl Prepared {
    /// Resolves a plan (catalog look-ups, checks) and, under placement by
    /// heat, chooses its offload levers, as `evaluate` does.
    pub fn new(plan: &Plan) -> Self {
        let (r, _, diagnostics) = resolve(plan);
        let r = placed(r);
        let validity = if diagnostics
            .iter()
            .any(|d| d.severity == crate::diagnostics::Severity::Error)
        {
            Validity::Invalid
        } else {
            Validity::Valid
        };
        let granules = Granules::of(&r).map(Granules::rounded);
        Self {
            r,
            validity,
            granules,
        }
    }

    /// Memory, verdict and time. Allocates nothing.
    pub fn quick(&self) -> Quick {
        let mut q = quick(&self.r, self.granules.as_ref());
        if self.validity == Validity::Invalid {
            q.verdict = Verdict::Invalid;
        }
        q
    }

    /// The memory table of each distinct device, in report order.
    pub fn tables(&self) -> FixedVec<Breakdown, 2> {
        let mut t = Tables::default();
        t.fill(&self.r);
        let tables = t.tables();
        let mut out = FixedVec::one(tables[0]);
        for b in tables.iter().skip(1) {
            out.push(*b);
        }
        out
    }
}

/// The resolved plan with its offload levers chosen by heat when its
/// placement says so (the placement itself allocates; plans under manual
/// placement pass through untouched).
pub(crate) fn placed(r: Resolved) -> Resolved {
    match r.levers.placement {
        Placement::ByHeat => crate::placement::by_heat(&r).0,
        Placement::Manual => r,
    }
}

/// The headline figures of a plan, as `evaluate` would report them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quick {
    /// Fits or does not fit (or invalid, for a plan with errors).
    pub verdict: Verdict,
    /// Index of the device with the least HBM margin (report order).
    pub binding: usize,
    /// HBM capacity minus use on that device; negative when over.
    pub hbm_margin: Bytes,
    /// Step time or token latencies.
    pub time: QuickTime,
}

/// Time figures of the fast path.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum QuickTime {
    /// A training plan.
    Training {
        /// Wall time of one optimizer step.
        step: Seconds,
        /// Tokens per optimizer step.
        tokens_per_step: f64,
    },
    /// A serving plan.
    Inference {
        /// Time to first token.
        ttft: Seconds,
        /// Time per output token.
        tpot: Seconds,
        /// Prefill plus every decode step of one batch.
        request_latency: Seconds,
        /// Output tokens per second over all replicas.
        output_tokens_per_second: f64,
    },
}

impl QuickTime {
    /// The latency the search ranks by: the step time when training, the
    /// time per output token when serving.
    pub fn latency(&self) -> Seconds {
        match self {
            QuickTime::Training { step, .. } => *step,
            QuickTime::Inference { tpot, .. } => *tpot,
        }
    }
}

/// The memory half of [`Quick`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Memory {
    pub fits: bool,
    pub binding: usize,
    pub hbm_margin: f64,
}

/// Memory of every distinct device into `t`, whether all fit, and the
/// binding one (least HBM margin; ties: the first, as `evaluate` picks it).
pub(crate) fn memory(r: &Resolved, t: &mut Tables) -> Memory {
    memory_with(r, t, Granules::of(r).as_ref())
}

/// [`memory`] with the plan's tensor sizes already worked out.
fn memory_with(r: &Resolved, t: &mut Tables, g: Option<&Granules>) -> Memory {
    t.fill_with(r, g);
    let mut fits = true;
    let mut binding = 0;
    let mut worst = f64::INFINITY;
    for i in 0..t.tables().len() {
        fits &= t.fits(r, i);
        let m = t.hbm_margin(r, i);
        if m < worst {
            worst = m;
            binding = i;
        }
    }
    Memory {
        fits,
        binding,
        hbm_margin: t.hbm_margin(r, binding),
    }
}

/// The time model over the memory tables of `r` (filled by [`memory`]).
pub(crate) fn time_of(r: &Resolved, t: &Tables) -> QuickTime {
    time_of_with(r, t, None)
}

/// [`time_of`], with a training step's paced stage kept in `memo` under
/// `key` (`time::training::StageMemo`; the search's walk).
pub(crate) fn time_of_with(
    r: &Resolved,
    t: &Tables,
    memo: Option<(&mut time::training::StageMemo, [u64; 5])>,
) -> QuickTime {
    let tables = t.tables();
    match r.work {
        Work::Train {
            kind,
            seq,
            micro_batches,
        } => {
            let s = time::training::step_with(r, tables, kind, seq, micro_batches, memo);
            QuickTime::Training {
                step: Seconds::from_secs(s.parts.total()),
                tokens_per_step: s.tokens,
            }
        }
        Work::Infer {
            prompt,
            output,
            batch,
            logits,
        } => {
            let s = time::serve(r, tables, prompt, output, batch, logits);
            let latency = s.latency();
            let per_replica = if latency > 0.0 {
                f64::from(batch) * f64::from(output) / latency
            } else {
                0.0
            };
            QuickTime::Inference {
                ttft: Seconds::from_secs(s.ttft()),
                tpot: Seconds::from_secs(s.tpot()),
                request_latency: Seconds::from_secs(latency),
                output_tokens_per_second: per_replica * f64::from(r.dp),
            }
        }
    }
}

/// Memory, verdict and time of a resolved plan whose tensor sizes are
/// worked out (`Granules::of(r)`).
fn quick(r: &Resolved, g: Option<&Granules>) -> Quick {
    let mut t = Tables::default();
    let mem = memory_with(r, &mut t, g);
    Quick {
        verdict: if mem.fits {
            Verdict::Fits
        } else {
            Verdict::DoesNotFit
        },
        binding: mem.binding,
        hbm_margin: Bytes::new(mem.hbm_margin),
        time: time_of(r, &t),
    }
}
