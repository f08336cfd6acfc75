//! The search in pieces: the space cut into slices (one hardware option
//! over a range of GPU counts), each walked on its own — in a Web Worker,
//! say — and the pieces merged into the result [`super::search`] gives,
//! bit for bit.
//!
//! A slice keeps every candidate that could be an answer: its frontier,
//! the cheapest of each family, the fewest GPUs, the largest batch and the
//! cheapest of each GPU kind. Each answer of the whole search is the best
//! of all candidates by a total order (cost, latency, then the candidate's
//! key, which is unique), so it is the best of the slices' bests; the
//! frontier is the undominated set under a transitive dominance (ties
//! broken by the key), so a plan undominated in the whole space is
//! undominated in its slice, and merging the slices' frontiers leaves
//! exactly the whole frontier. The counters add up; the unpriced hardware
//! options are listed in the order the whole walk meets them, because the
//! merge takes the slices in walk order (hardware option, then GPU count).

use super::{finish, prepare, walk, Collector, Counters, Entry, Mode, Scenario, SearchResult};
use serde::{Deserialize, Serialize};

/// One piece of a search's space: one hardware option over a range of
/// the GPU counts the scenario tries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Slice {
    /// Index of the hardware option, in the order the search walks them
    /// (GPU kind × CXL expansion × scale-up domain × training framework).
    pub hardware: u32,
    /// Index of the first GPU count walked, in `SearchResult::counts.gpu_counts`.
    pub first: u32,
    /// One past the index of the last GPU count walked.
    pub end: u32,
}

/// What a slice's walk kept and counted; [`merge`] combines them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Partial {
    /// The slice walked.
    pub slice: Slice,
    /// Every candidate that could be an answer of the whole search.
    entries: Vec<Entry>,
    counters: Counters,
}

impl Partial {
    fn empty(slice: Slice) -> Partial {
        Partial {
            slice,
            entries: Vec::new(),
            counters: Counters::default(),
        }
    }

    /// The partial as JSON (to cross from a worker to the page).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// A partial from the JSON [`Partial::to_json`] wrote.
    pub fn from_json(json: &str) -> Result<Partial, String> {
        serde_json::from_str(json).map_err(|e| e.to_string())
    }
}

/// The slices of a scenario: one per hardware option and GPU count, in
/// walk order. Empty when the scenario stops before the walk (a broken base
/// plan, bad limits); [`merge`] of no partials then gives its diagnostics.
pub fn slices(s: &Scenario) -> Vec<Slice> {
    let Ok((ctx, _)) = prepare(s) else {
        return Vec::new();
    };
    let u = |i: usize| u32::try_from(i).unwrap_or(u32::MAX);
    (0..ctx.hw.len())
        .flat_map(|h| {
            (0..ctx.counts.len()).map(move |c| Slice {
                hardware: u(h),
                first: u(c),
                end: u(c + 1),
            })
        })
        .collect()
}

/// Walks one slice of the scenario's space (as [`super::search`] walks
/// it, pruning included). A slice outside the space gives an empty partial.
pub fn search_slice(s: &Scenario, slice: Slice) -> Partial {
    let Ok((ctx, _)) = prepare(s) else {
        return Partial::empty(slice);
    };
    let (hi, first, end) = (
        slice.hardware as usize,
        slice.first as usize,
        slice.end as usize,
    );
    if hi >= ctx.hw.len() || first > end || end > ctx.counts.len() {
        return Partial::empty(slice);
    }
    let mut col = Collector::new();
    let mut t = Counters::default();
    for &n in &ctx.counts[first..end] {
        walk(&ctx, hi, n, Mode::Pruned, &mut col, &mut t, &mut ());
    }
    let mut entries: Vec<Entry> = col.frontier.clone();
    entries.extend(col.best.iter().flatten());
    entries.extend(col.fewest);
    entries.extend(col.largest);
    entries.extend(col.by_kind.iter().map(|(_, e)| *e));
    entries.sort_by_key(|a| a.key);
    entries.dedup_by(|a, b| a.key == b.key);
    Partial {
        slice,
        entries,
        counters: t,
    }
}

/// The search's result from the partials of its slices, in any order: the
/// same as [`super::search`] when every slice of [`slices`] is there once.
/// Partials of slices outside the space, and repeats of a slice, are left
/// out.
pub fn merge(s: &Scenario, parts: &[Partial]) -> SearchResult {
    let (ctx, diagnostics) = match prepare(s) {
        Ok(p) => p,
        Err(out) => return *out,
    };
    let mut order: Vec<&Partial> = parts
        .iter()
        .filter(|p| {
            let sl = p.slice;
            (sl.hardware as usize) < ctx.hw.len()
                && sl.first <= sl.end
                && (sl.end as usize) <= ctx.counts.len()
        })
        .collect();
    order.sort_by_key(|p| p.slice);
    order.dedup_by_key(|p| p.slice);
    let mut col = Collector::new();
    let mut t = Counters::default();
    for p in order {
        let c = &p.counters;
        t.combinations += c.combinations;
        t.after_non_fit += c.after_non_fit;
        t.idle_cxl += c.idle_cxl;
        t.evaluated += c.evaluated;
        t.fitting += c.fitting;
        t.feasible += c.feasible;
        t.unsupported += c.unsupported;
        for &hi in &c.unpriced {
            if hi < ctx.hw.len() && !t.unpriced.contains(&hi) {
                t.unpriced.push(hi);
            }
        }
        for e in p.entries.iter().filter(|e| e.hw < ctx.hw.len()) {
            col.offer(*e, ctx.hw[e.hw].gpu);
        }
    }
    finish(&ctx, &col, &t, diagnostics)
}

/// An entry's cost in JSON: a number, or `null` for +∞ (an unpriced GPU),
/// which JSON cannot write.
pub(super) mod unpriced_as_null {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        v.is_finite().then_some(*v).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::INFINITY))
    }
}
