//! The fitter recovers knob values it is given.
//!
//! SYNTHETIC DATA: every "measurement" below is the planner's own
//! prediction at chosen knob values, not a run on a GPU. The test checks
//! the fitting machinery (that it finds values it was given back from
//! varied configurations), not the model against hardware; that is the
//! GPU harness's job (`tests/harness`, `tests/gpu/fixtures/`).

use planner_core::calibrate::{
    fit, CalibrationError, CalibrationInput, Figure, FitOptions, Knob, Knobs, Measured, Measurement,
};
use planner_core::catalog::GpuId;
use planner_core::hardware::{GpuChoice, Hardware};
use planner_core::model::{
    AttentionKind, Bias, Dropout, Embeddings, FfnActivation, ModelSpec, Norm, Positions,
};
use planner_core::plan::{
    AttentionKernel, Checkpointing, CustomModel, Inference, KvCacheLayout, Levers, LogitsScope,
    ModelChoice, Parallelism, Plan, Training, TrainingKind, Workload, SCHEMA_VERSION,
};
use planner_core::units::{Bytes, Seconds};
use planner_core::{evaluate, Report};

fn decoder(layers: u32, hidden: u32, heads: u32) -> ModelSpec {
    ModelSpec {
        layers,
        hidden,
        heads,
        kv_heads: heads,
        head_dim: hidden / heads,
        ffn: 4 * hidden,
        activation: FfnActivation::Gelu,
        vocab: 50304,
        embeddings: Embeddings::Tied,
        positions: Positions::Rotary,
        norm: Norm::LayerNorm,
        bias: Bias::All,
        dropout: Dropout::Off,
        attention: AttentionKind::Standard,
        sliding_window: None,
        windowed_layers: None,
        moe: None,
        token_types: 0,
        max_context: 4096,
    }
}

fn base(spec: ModelSpec, workload: Workload, levers: Levers) -> Plan {
    Plan {
        version: SCHEMA_VERSION,
        name: String::new(),
        model: ModelChoice::Custom(CustomModel {
            shipped: None,
            name: "synthetic".into(),
            spec,
        }),
        workload,
        levers,
        hardware: Hardware {
            gpus_per_node: 1,
            ..Hardware::new(GpuChoice::Preset(GpuId::H100Sxm), 1)
        },
        overheads: Default::default(),
        efficiency: Default::default(),
        economics: Default::default(),
        distillation: None,
    }
}

/// Varied single-GPU plans: small and larger models, short and long
/// sequences, checkpointing and kernels, and serving with small and large
/// batches (decode is bandwidth-bound, prefill compute-bound).
fn plans() -> Vec<(String, Plan)> {
    let mut out = Vec::new();
    let models = [
        ("small", decoder(6, 512, 8)),
        ("mid", decoder(12, 768, 12)),
        ("wide", decoder(8, 2048, 16)),
    ];
    for (name, spec) in models {
        for (mb, seq, ckpt, attn) in [
            (1, 512, Checkpointing::None, AttentionKernel::Flash),
            (4, 1024, Checkpointing::None, AttentionKernel::Flash),
            (2, 2048, Checkpointing::Full, AttentionKernel::Flash),
            (2, 1024, Checkpointing::Selective, AttentionKernel::Eager),
        ] {
            let w = Workload::Training(Training {
                kind: TrainingKind::PreTraining,
                seq_len: seq,
                global_batch: mb,
                tokens: 0.0,
            });
            let levers = Levers {
                checkpointing: ckpt,
                attention: attn,
                parallel: Parallelism {
                    micro_batch: mb,
                    ..Parallelism::default()
                },
                ..Levers::default()
            };
            out.push((
                format!("train/{name}/mb{mb}-s{seq}/{ckpt:?}/{attn:?}"),
                base(spec, w, levers),
            ));
        }
        for (batch, prompt) in [(1, 256), (16, 1024), (64, 512)] {
            let w = Workload::Inference(Inference {
                prompt_tokens: prompt,
                output_tokens: 64,
                batch,
                logits: LogitsScope::LastToken,
                stream: None,
            });
            let levers = Levers {
                kv_cache: KvCacheLayout::Contiguous { reserve_tokens: 0 },
                ..Levers::default()
            };
            out.push((
                format!("infer/{name}/b{batch}-p{prompt}"),
                base(spec, w, levers),
            ));
        }
    }
    out
}

/// What a run would measure if the planner were exactly right at `knobs`.
fn synthetic_measured(r: &Report) -> Measured {
    let mut m = Measured::default();
    let d = r.binding_device().expect("one device");
    m.peak_allocated = Some(d.hbm_allocated());
    m.peak_reserved = Some(d.hbm_reserved());
    m.device_used = Some(d.hbm_used());
    let t = |f: Figure| f.predicted(r).map(|v| Seconds::from_secs(v.base()));
    m.step_time = t(Figure::StepTime);
    m.ttft = t(Figure::Ttft);
    m.tpot = t(Figure::Tpot);
    m
}

fn synthetic(truth: &Knobs) -> Vec<Measurement> {
    plans()
        .into_iter()
        .map(|(id, mut plan)| {
            let mut at_truth = plan.clone();
            truth.apply(&mut at_truth);
            let measured = synthetic_measured(&evaluate(&at_truth));
            // The measurement's own plan keeps the defaults: the fit must
            // find `truth` from there.
            plan.name = id.clone();
            Measurement { id, plan, measured }
        })
        .collect()
}

fn truth() -> Knobs {
    Knobs {
        cuda_context: Bytes::from_mib(820.0),
        fragmentation: 0.17,
        gemm: 0.71,
        hbm: 0.66,
        attention: 0.80,
        layer_overhead: Seconds::from_micros(55.0),
        // The synthetic plans run fused stacks, which the host time per
        // eager operator does not move: the truth is the default.
        host_op: planner_core::efficiency::Efficiency::default().host_op,
    }
}

#[test]
fn fitter_recovers_synthetic_knobs() {
    let truth = truth();
    let ms = synthetic(&truth);
    let cal = fit(&ms, &FitOptions::default()).expect("fit runs");
    let got = cal.profile.knobs;
    let close = |k: Knob, rel: f64| {
        let (g, t) = (got.get(k), truth.get(k));
        assert!(
            (g - t).abs() <= rel * t.abs(),
            "{}: fitted {}, truth {} (start {})",
            k.label(),
            got.show(k),
            truth.show(k),
            cal.start.show(k)
        );
    };
    close(Knob::CudaContext, 0.01);
    close(Knob::Fragmentation, 0.01);
    close(Knob::Gemm, 0.02);
    close(Knob::Hbm, 0.02);
    close(Knob::LayerOverhead, 0.05);
    // Attention was not asked for and stays where it started.
    assert_eq!(got.attention, cal.start.attention);
    assert_eq!(cal.profile.fitted, Knob::DEFAULT.to_vec());
    assert!(cal.not_fitted.is_empty());

    // Held out: every 4th measurement; after the fit they are (almost)
    // exact, before it they were not.
    assert_eq!(cal.held_out, ms.len() / 4);
    assert!(cal.rows.iter().any(|r| r.held_out));
    for s in &cal.held_out_after {
        assert!(s.worst.abs() < 0.01, "{:?} after: {:?}", s.figure, s);
    }
    let before_time = cal
        .held_out_before
        .iter()
        .find(|s| s.figure == Figure::StepTime)
        .expect("step times held out");
    assert!(before_time.median_abs > 0.05, "{before_time:?}");
    assert!(cal.objective.low < cal.objective.high * 1e-3);
    assert_eq!(cal.profile.gpu_id, Some(GpuId::H100Sxm));
}

#[test]
fn fitting_is_deterministic() {
    let ms = synthetic(&truth());
    let opts = FitOptions {
        knobs: vec![Knob::Fragmentation, Knob::CudaContext],
        ..FitOptions::default()
    };
    let a = fit(&ms, &opts).expect("fit");
    let b = fit(&ms, &opts).expect("fit");
    assert_eq!(a, b);
}

#[test]
fn knobs_without_measured_figures_are_not_fitted() {
    // Memory only: the time knobs have nothing to fit against.
    let mut ms = synthetic(&truth());
    for m in &mut ms {
        m.measured.step_time = None;
        m.measured.ttft = None;
        m.measured.tpot = None;
    }
    let cal = fit(&ms, &FitOptions::default()).expect("fit");
    assert_eq!(
        cal.profile.fitted,
        vec![Knob::CudaContext, Knob::Fragmentation]
    );
    let skipped: Vec<Knob> = cal.not_fitted.iter().map(|(k, _)| *k).collect();
    assert_eq!(
        skipped,
        vec![Knob::Gemm, Knob::Hbm, Knob::LayerOverhead, Knob::HostOp]
    );
    assert_eq!(cal.profile.knobs.gemm, cal.start.gemm);
}

#[test]
fn one_gpu_kind_at_a_time() {
    let mut ms = synthetic(&truth());
    ms[1].plan.hardware.gpu = GpuChoice::Preset(GpuId::A100Sxm80);
    match fit(&ms, &FitOptions::default()) {
        Err(CalibrationError::MixedGpus { .. }) => {}
        other => unreachable!("expected MixedGpus, got {other:?}"),
    }
}

#[test]
fn calibration_input_round_trips_through_json() {
    let input = CalibrationInput {
        measurements: synthetic(&truth()).into_iter().take(3).collect(),
        source: Default::default(),
    };
    let text = serde_json::to_string(&input).expect("serialize");
    let back: CalibrationInput = serde_json::from_str(&text).expect("parse");
    assert_eq!(back, input);
}

/// Zero, negative and infinite measurements are refused by name instead of
/// fitted ("inf → inf" and 300-digit percentages before).
#[test]
fn bad_measurements_are_refused() {
    for bad in [0.0, -1.0, f64::INFINITY, f64::NAN] {
        let mut ms = synthetic(&truth());
        ms[0].measured.step_time = Some(Seconds::from_secs(bad));
        ms[0].measured.tpot = None;
        ms[0].measured.ttft = None;
        match fit(&ms, &FitOptions::default()) {
            Err(CalibrationError::BadMeasurement { id, .. }) => assert_eq!(id, ms[0].id),
            other => unreachable!("{bad}: expected a refusal, got {other:?}"),
        }
    }
}
