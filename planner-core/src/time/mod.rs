//! The time model: step time for training, TTFT and TPOT for serving, each
//! broken into parts with what is exposed and what overlaps compute.
//!
//! Like the memory model it is a pure function of the resolved plan (and of
//! the memory breakdown, which says what lives in which tier). It keeps its
//! parts in a fixed table so the search can run it millions of times
//! without allocating.

pub(crate) mod comm;
pub(crate) mod host;
pub(crate) mod inference;
pub(crate) mod speculative;
pub(crate) mod training;
pub(crate) mod work;

use crate::memory::breakdown::Breakdown;
use crate::plan::LogitsScope;
use crate::report::{TimeKind, TimePart};
use crate::resolve::Resolved;
use crate::units::Seconds;

const N: usize = TimeKind::ALL.len();

/// Busy and exposed seconds per time kind.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Parts {
    pub busy: [f64; N],
    pub exposed: [f64; N],
}

impl Default for Parts {
    fn default() -> Self {
        Self {
            busy: [0.0; N],
            exposed: [0.0; N],
        }
    }
}

impl Parts {
    pub fn add(&mut self, kind: TimeKind, busy: f64, exposed: f64) {
        let i = kind as usize;
        self.busy[i] += busy;
        self.exposed[i] += exposed.min(busy).max(0.0);
    }

    pub fn add_all(&mut self, other: &Parts) {
        for i in 0..N {
            self.busy[i] += other.busy[i];
            self.exposed[i] += other.exposed[i];
        }
    }

    pub fn scaled(&self, k: f64) -> Parts {
        let mut p = *self;
        for i in 0..N {
            p.busy[i] *= k;
            p.exposed[i] *= k;
        }
        p
    }

    /// Wall time: the sum of exposed parts.
    pub fn total(&self) -> f64 {
        self.exposed.iter().sum()
    }

    /// The non-zero parts, in display order.
    pub fn listed(&self) -> Vec<TimePart> {
        TimeKind::ALL
            .iter()
            .filter(|k| self.busy[**k as usize] > 0.0)
            .map(|&k| TimePart {
                kind: k,
                busy: Seconds::from_secs(self.busy[k as usize]),
                exposed: Seconds::from_secs(self.exposed[k as usize]),
            })
            .collect()
    }
}

/// Prefill and average decode step of a serving plan's static batch, with
/// its speculative decoding when it has one (`inference::serve`, then
/// `speculative::static_batch`).
pub(crate) fn serve(
    r: &Resolved,
    devices: &[Breakdown],
    prompt: u32,
    output: u32,
    batch: u32,
    logits: LogitsScope,
) -> inference::ServeTime {
    let t = inference::serve(r, devices, prompt, output, batch, logits);
    let bs = (f64::from(batch), f64::from(prompt));
    speculative::static_batch(r, devices.first(), bs, t)
}
