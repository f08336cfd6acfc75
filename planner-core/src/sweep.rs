//! Sweeps: the same plan evaluated along one axis (sequence length, batch,
//! model size), for charts that draw memory against that axis with each
//! GPU's HBM as the wall.

use crate::catalog::{self, GpuId, ModelId};
use crate::evaluate::evaluate;
use crate::plan::{ModelChoice, Plan, Workload};
use crate::report::{Report, TimeReport, Verdict};
use crate::units::{Bytes, Seconds};
use serde::{Deserialize, Serialize};

/// What a sweep varies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum SweepAxis {
    /// Sequence length (training) or context (serving).
    #[default]
    SequenceLength,
    /// Micro-batch (training) or concurrent sequences (serving).
    Batch,
    /// Model size, through the catalog's models.
    ModelSize,
}

/// The sweep chart's settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Sweep {
    /// What is varied.
    #[serde(default)]
    pub axis: SweepAxis,
    /// GPUs whose HBM is drawn as a line.
    #[serde(default = "default_walls")]
    pub walls: Vec<GpuId>,
}

fn default_walls() -> Vec<GpuId> {
    vec![
        GpuId::A100Sxm80,
        GpuId::H100Sxm,
        GpuId::H200Sxm,
        GpuId::B200,
    ]
}

impl Default for Sweep {
    fn default() -> Self {
        Self {
            axis: SweepAxis::default(),
            walls: default_walls(),
        }
    }
}

/// One evaluated point of a sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    /// The swept value: tokens, sequences, or parameters.
    pub x: f64,
    /// Label of the point (a model name for model-size sweeps).
    pub label: String,
    /// HBM used on the most loaded device.
    pub hbm_used: Bytes,
    /// Its expected range.
    pub hbm_low: Bytes,
    /// Its expected range.
    pub hbm_high: Bytes,
    /// Whether the plan fits at this point.
    pub verdict: Verdict,
    /// Step time (training) or TPOT (serving).
    pub time: Seconds,
}

/// One GPU's HBM, drawn as a horizontal wall.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Wall {
    /// The GPU.
    pub gpu: GpuId,
    /// Its name.
    pub name: String,
    /// Memory a process can address.
    pub capacity: Bytes,
}

/// A sweep's points and walls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepResult {
    /// What was varied.
    pub axis: SweepAxis,
    /// The points, in increasing `x`.
    pub points: Vec<SweepPoint>,
    /// The walls.
    pub walls: Vec<Wall>,
}

fn point(x: f64, label: String, r: &Report) -> SweepPoint {
    let (used, low, high) =
        r.binding_device()
            .map_or((Bytes::ZERO, Bytes::ZERO, Bytes::ZERO), |d| {
                let t = d.hbm();
                (
                    d.hbm_used(),
                    t.map_or(Bytes::ZERO, |t| t.range.low),
                    t.map_or(Bytes::ZERO, |t| t.range.high),
                )
            });
    SweepPoint {
        x,
        label,
        hbm_used: used,
        hbm_low: low,
        hbm_high: high,
        verdict: r.verdict,
        time: match &r.time {
            TimeReport::Training(t) => t.step,
            TimeReport::Inference(t) => t.tpot,
        },
    }
}

/// Powers of two from `lo` to `hi`, both included when they are powers.
fn doublings(lo: u32, hi: u32) -> Vec<u32> {
    let mut v = Vec::new();
    let mut x = lo.max(1);
    while x <= hi {
        v.push(x);
        match x.checked_mul(2) {
            Some(n) => x = n,
            None => break,
        }
    }
    v
}

/// Evaluates `plan` along `axis`. Model-size sweeps walk the catalog's
/// decoder models that share the plan's workload; the others double the
/// value from 1 (or 512 tokens) up to a bound.
pub fn sweep(plan: &Plan, axis: SweepAxis, walls: &[GpuId]) -> SweepResult {
    let mut points = Vec::new();
    match axis {
        SweepAxis::SequenceLength => {
            for s in doublings(512, 1 << 20) {
                let mut p = plan.clone();
                match &mut p.workload {
                    Workload::Training(t) => t.seq_len = s,
                    Workload::Inference(i) => {
                        i.prompt_tokens = s.saturating_sub(i.output_tokens).max(1);
                    }
                }
                let r = evaluate(&p);
                points.push(point(f64::from(s), format!("{s}"), &r));
            }
        }
        SweepAxis::Batch => {
            for b in doublings(1, 4096) {
                let mut p = plan.clone();
                match &mut p.workload {
                    Workload::Training(t) => {
                        p.levers.parallel.micro_batch = b;
                        let dp = p.levers.parallel.dp.max(1);
                        let m = crate::partition::micro_batch_count(t.global_batch, b, dp);
                        t.global_batch = m * b * dp;
                    }
                    Workload::Inference(i) => i.batch = b,
                }
                let r = evaluate(&p);
                points.push(point(f64::from(b), format!("{b}"), &r));
            }
        }
        SweepAxis::ModelSize => {
            let mut models: Vec<(f64, ModelId)> = ModelId::ALL
                .iter()
                .map(|&id| (catalog::model(id).spec.params().total(), id))
                .collect();
            models.sort_by(|a, b| a.0.total_cmp(&b.0));
            for (n, id) in models {
                let mut p = plan.clone();
                p.model = ModelChoice::Preset(id);
                let r = evaluate(&p);
                points.push(point(n, catalog::model(id).name.to_string(), &r));
            }
        }
    }
    let walls = walls
        .iter()
        .map(|&g| {
            let e = catalog::gpu(g);
            Wall {
                gpu: g,
                name: e.name.to_string(),
                capacity: e.spec.device_memory(),
            }
        })
        .collect();
    SweepResult {
        axis,
        points,
        walls,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::example_plan;

    #[test]
    fn memory_grows_along_sequence_and_batch() {
        for axis in [SweepAxis::SequenceLength, SweepAxis::Batch] {
            let s = sweep(&example_plan(), axis, &[GpuId::H100Sxm]);
            assert!(s.points.len() > 4);
            for w in s.points.windows(2) {
                assert!(w[1].x > w[0].x);
                assert!(w[1].hbm_used.base() >= w[0].hbm_used.base());
            }
            assert_eq!(s.walls.len(), 1);
            // The wall is crossed somewhere along the way.
            assert!(s.points.iter().any(|p| p.verdict == Verdict::DoesNotFit));
        }
    }

    #[test]
    fn model_size_sweep_covers_the_catalog() {
        let s = sweep(&example_plan(), SweepAxis::ModelSize, &[]);
        assert_eq!(s.points.len(), ModelId::ALL.len());
        assert!(s.points.windows(2).all(|w| w[1].x >= w[0].x));
    }
}
