//! Validation of the time model against measured training runs on stacks
//! other than Megatron-Core (whose runs are in `time_validation.rs`), one
//! table per stack, with each stack's one profile (`stack::TrainingStack`)
//! and no per-row tuning. Run with `--nocapture` to see the tables:
//! `cargo test -p planner-core --test stack_validation -- --nocapture`.
//!
//! Each row states the configuration as its source publishes it; where the
//! source is silent the assumption is written beside the row.

use planner_core::catalog::{GpuId, LinkId, ModelId};
use planner_core::evaluate;
use planner_core::hardware::{GpuChoice, Hardware};
use planner_core::plan::{
    AttentionKernel, Checkpointing, CommOverlap, Levers, ModelChoice, Overlap, Parallelism, Plan,
    Precisions, SequenceParallel, Sharding, Training, TrainingKind, Workload,
};
use planner_core::precision::Precision;
use planner_core::report::{TimeReport, Verdict};
use planner_core::stack::TrainingStack;
use planner_core::Named;

/// A training run as published.
#[derive(Clone)]
struct Run {
    name: String,
    stack: TrainingStack,
    model: ModelId,
    gpu: GpuId,
    scale_out: Option<LinkId>,
    seq: u32,
    /// Sequences per data-parallel rank and step (no accumulation: the
    /// micro-batch).
    micro_batch: u32,
    tp: u32,
    dp: u32,
    cp: u32,
    ckpt: Checkpointing,
    sharding: Sharding,
    /// TP communication overlapped (async TP).
    tp_overlap: bool,
    fp8: bool,
    /// Published tokens per second per GPU.
    tokens_per_gpu_s: f64,
}

impl Run {
    fn plan(&self) -> Plan {
        let gpus = self.tp * self.dp * self.cp;
        Plan {
            version: 1,
            name: self.name.clone(),
            model: ModelChoice::Preset(self.model),
            workload: Workload::Training(Training {
                kind: TrainingKind::PreTraining,
                seq_len: self.seq,
                global_batch: self.micro_batch * self.dp,
                tokens: 0.0,
            }),
            levers: Levers {
                checkpointing: self.ckpt,
                attention: AttentionKernel::Flash,
                sharding: self.sharding,
                overlap: CommOverlap {
                    data_parallel: Overlap::On,
                    tensor_parallel: if self.tp_overlap {
                        Overlap::On
                    } else {
                        Overlap::Off
                    },
                    offload: Overlap::On,
                },
                precision: Precisions {
                    compute: if self.fp8 {
                        Precision::Fp8
                    } else {
                        Precision::Bf16
                    },
                    ..Precisions::default()
                },
                parallel: Parallelism {
                    tp: self.tp,
                    dp: self.dp,
                    cp: self.cp,
                    micro_batch: self.micro_batch,
                    sequence_parallel: if self.tp > 1 {
                        SequenceParallel::On
                    } else {
                        SequenceParallel::Off
                    },
                    ..Parallelism::default()
                },
                training_stack: Some(self.stack),
                ..Levers::default()
            },
            hardware: Hardware {
                scale_out: self.scale_out,
                ..Hardware::new(GpuChoice::Preset(self.gpu), gpus)
            },
            overheads: Default::default(),
            efficiency: Default::default(),
            economics: Default::default(),
            distillation: None,
        }
    }

    /// Published seconds per step.
    fn published(&self) -> f64 {
        // A TP × CP group shares its data-parallel rank's sequences.
        f64::from(self.micro_batch * self.seq)
            / f64::from(self.tp * self.cp)
            / self.tokens_per_gpu_s
    }
}

// torchtitan's per-op selective AC (its default) saves every second
// matmul's output and recomputes the rest of the forward: about half a
// forward pass again, charged as recomputing half of the layers.
const OP_SAC_8B: Checkpointing = Checkpointing::Block { layers: 16 };
const OP_SAC_13B: Checkpointing = Checkpointing::Block { layers: 20 };
const OP_SAC_70B: Checkpointing = Checkpointing::Block { layers: 40 };

/// torchtitan on 64 A100-80GB, FSDP2 (1D), eager, BF16 mixed precision
/// with FP32 reduction, SDPA attention, `foreach` AdamW
/// (pytorch/torchtitan `docs/performance.md` at 3faaa1a, 2024-08; configs
/// `train_configs/*.toml` at the same commit: `compile = false`). Local
/// batch = micro-batch, global batch = local × 64. "Selective layer" AC
/// checkpoints every second layer; "selective op" is taken as selective
/// recompute (with Flash attention it recomputes nothing we charge).
/// Assumed: InfiniBand HDR between nodes (the page does not say).
fn torchtitan_a100() -> Vec<Run> {
    use Checkpointing::{Block, Full, None as NoAc};

    let rows = [
        (
            "Llama 3 8B sel. layer",
            ModelId::Llama31_8b,
            8192,
            1,
            Block { layers: 16 },
            2904.0,
        ),
        (
            "Llama 3 8B sel. op",
            ModelId::Llama31_8b,
            8192,
            1,
            OP_SAC_8B,
            2973.0,
        ),
        (
            "Llama 3 70B full AC",
            ModelId::Llama31_70b,
            8192,
            1,
            Full,
            331.0,
        ),
        (
            "Llama 2 13B no AC",
            ModelId::Llama2_13b,
            4096,
            2,
            NoAc,
            2162.0,
        ),
        (
            "Llama 2 13B sel. layer",
            ModelId::Llama2_13b,
            4096,
            2,
            Block { layers: 20 },
            1914.0,
        ),
        (
            "Llama 2 13B sel. op",
            ModelId::Llama2_13b,
            4096,
            2,
            OP_SAC_13B,
            1904.0,
        ),
        (
            "Llama 2 70B sel. op",
            ModelId::Llama2_70b,
            4096,
            1,
            OP_SAC_70B,
            355.0,
        ),
        (
            "Llama 2 70B full AC",
            ModelId::Llama2_70b,
            4096,
            2,
            Full,
            353.0,
        ),
    ];
    rows.iter()
        .map(|&(name, model, seq, mb, ckpt, tps)| Run {
            name: format!("torchtitan A100×64 {name}"),
            stack: TrainingStack::Torchtitan,
            model,
            gpu: GpuId::A100Sxm80,
            scale_out: None,
            seq,
            micro_batch: mb,
            tp: 1,
            dp: 64,
            cp: 1,
            ckpt,
            sharding: Sharding::FsdpFullShard,
            tp_overlap: false,
            fp8: false,
            tokens_per_gpu_s: tps,
        })
        .collect()
}

/// torchtitan on H100 (pytorch/torchtitan
/// `benchmarks/llama3_h100_202412_torchtitan.md`, torch 2024-12-23
/// nightly): Grand Teton hosts, 8 GPUs on NVLink, 400 Gb/s RDMA per GPU.
/// Tables 1 and 3: Llama 3.1 8B, FSDP, local batch 2, selective AC. The
/// page's H100s are 96 GB HBM2e parts at
/// a 500 W power limit whose peak lies "between SXM and NVL"; they are
/// modelled as H100 SXM, which makes every row optimistic by the clock
/// the power cap takes (see docs/validation.md).
fn torchtitan_h100() -> Vec<Run> {
    let mut out = Vec::new();
    for (gpus, eager, compiled, fp8) in [(8, 5762.0, 6667.0, 8532.0), (128, 5605.0, 6514.0, 8380.0)]
    {
        for (label, stack, fp8_on, tps) in [
            ("FSDP", TrainingStack::Torchtitan, false, eager),
            (
                "FSDP+compile",
                TrainingStack::TorchtitanCompiled,
                false,
                compiled,
            ),
            (
                "FSDP+compile+Float8",
                TrainingStack::TorchtitanCompiled,
                true,
                fp8,
            ),
        ] {
            out.push(Run {
                name: format!("torchtitan H100×{gpus} 8B {label}"),
                stack,
                model: ModelId::Llama31_8b,
                gpu: GpuId::H100Sxm,
                scale_out: Some(LinkId::Roce400),
                seq: 8192,
                micro_batch: 2,
                tp: 1,
                dp: gpus,
                cp: 1,
                ckpt: OP_SAC_8B,
                sharding: Sharding::FsdpFullShard,
                tp_overlap: false,
                fp8: fp8_on,
                tokens_per_gpu_s: tps,
            });
        }
    }
    out
}

/// torchtitan's Table 4 (same page and hosts as [`torchtitan_h100`]):
/// Llama 3.1 70B on 256 GPUs, FSDP 32 × TP 8, local batch 16, full AC,
/// compile + Float8, without and with async TP.
fn torchtitan_h100_2d() -> Vec<Run> {
    let mut out = Vec::new();
    for (label, async_tp, tps) in [("2D", false, 829.0), ("2D+AsyncTP", true, 876.0)] {
        out.push(Run {
            name: format!("torchtitan H100×256 70B {label} Float8"),
            stack: TrainingStack::TorchtitanCompiled,
            model: ModelId::Llama31_70b,
            gpu: GpuId::H100Sxm,
            scale_out: Some(LinkId::Roce400),
            seq: 8192,
            micro_batch: 16,
            tp: 8,
            dp: 32,
            cp: 1,
            ckpt: Checkpointing::Full,
            sharding: Sharding::FsdpFullShard,
            tp_overlap: async_tp,
            fp8: true,
            tokens_per_gpu_s: tps,
        });
    }
    out
}

/// torchtitan async-TP study on the same H100 hosts
/// (pytorch/torchtitan `benchmarks/asyncTP_llama3_h100_2025-06_torchtitan.md`,
/// torch 2025-06-14): torch.compile, BF16 and Float8 tensorwise, vanilla
/// and async TP. Llama 3 70B on 256 GPUs (FSDP 32, TP 8, full AC, local
/// batch 16); Llama 3 8B on 64 GPUs (FSDP 8, TP 8, per-op SAC, local batch
/// 12). The row-wise Float8 rows are left out: the page flags their
/// baseline as a known regression (torchtitan#1207).
fn torchtitan_async_tp() -> Vec<Run> {
    let rows = [
        (
            ModelId::Llama31_70b,
            32,
            16,
            Checkpointing::Full,
            false,
            597.3,
            652.4,
        ),
        (
            ModelId::Llama31_70b,
            32,
            16,
            Checkpointing::Full,
            true,
            809.8,
            942.4,
        ),
        (ModelId::Llama31_8b, 8, 12, OP_SAC_8B, false, 4378.0, 4809.4),
        (ModelId::Llama31_8b, 8, 12, OP_SAC_8B, true, 5078.1, 5570.1),
    ];
    let mut out = Vec::new();
    for (model, dp, mb, ckpt, fp8, vanilla, async_tp) in rows {
        for (label, on, tps) in [("TP", false, vanilla), ("AsyncTP", true, async_tp)] {
            out.push(Run {
                name: format!(
                    "torchtitan H100×{} {model:?} {label}{}",
                    dp * 8,
                    if fp8 { " Float8" } else { "" }
                ),
                stack: TrainingStack::TorchtitanCompiled,
                model,
                gpu: GpuId::H100Sxm,
                scale_out: Some(LinkId::Roce400),
                seq: 8192,
                micro_batch: mb,
                tp: 8,
                dp,
                cp: 1,
                ckpt,
                sharding: Sharding::FsdpFullShard,
                tp_overlap: on,
                fp8,
                tokens_per_gpu_s: tps,
            });
        }
    }
    out
}

/// torchtitan on H200 (pytorch/torchtitan
/// `benchmarks/llama3-8b_h200_202506_trainy-whitefiber.md`): Llama 3.1 8B,
/// FSDP over 4 and 8 nodes of 8 H200, 400 Gb/s per GPU, local batch 2,
/// compile + Float8 (default `llama3_8b.toml`: selective AC).
fn torchtitan_h200() -> Vec<Run> {
    [(32, 10938.0), (64, 10753.0)]
        .iter()
        .map(|&(gpus, tps)| Run {
            name: format!("torchtitan H200×{gpus} 8B compile+Float8"),
            stack: TrainingStack::TorchtitanCompiled,
            model: ModelId::Llama31_8b,
            gpu: GpuId::H200Sxm,
            scale_out: Some(LinkId::InfinibandNdr),
            seq: 8192,
            micro_batch: 2,
            tp: 1,
            dp: gpus,
            cp: 1,
            ckpt: OP_SAC_8B,
            sharding: Sharding::FsdpFullShard,
            tp_overlap: false,
            fp8: true,
            tokens_per_gpu_s: tps,
        })
        .collect()
}

/// One table: prints every row and returns the signed errors
/// ((predicted − published) / published).
fn table(title: &str, runs: &[Run]) -> Vec<f64> {
    println!("\n{title}");
    println!(
        "{:<52} {:>9} {:>9} {:>8} {:>6}",
        "run", "published", "predicted", "error", "MFU"
    );
    let mut errs = Vec::new();
    for run in runs {
        let r = evaluate(&run.plan());
        let TimeReport::Training(t) = r.time else {
            panic!("{}: not a training report", run.name)
        };
        assert_eq!(
            r.verdict,
            Verdict::Fits,
            "{}: {:?}",
            run.name,
            r.diagnostics
        );
        let (pub_s, pred) = (run.published(), t.step.as_secs());
        let e = (pred - pub_s) / pub_s;
        errs.push(e);
        println!(
            "{:<52} {:>9.3} {:>9.3} {:>+7.1}% {:>5.1}%  [{}]",
            run.name,
            pub_s,
            pred,
            e * 100.0,
            t.mfu * 100.0,
            run.stack.en()
        );
        let parts: Vec<String> = t
            .parts
            .iter()
            .map(|p| {
                format!(
                    "{}={:.2}/{:.2}",
                    p.kind.label(),
                    p.exposed.as_secs(),
                    p.busy.as_secs()
                )
            })
            .collect();
        println!("    {}", parts.join(", "));
    }
    let (median, worst) = stats(&errs);
    println!(
        "{} runs: median |error| {:.1}%, worst {:.1}%",
        errs.len(),
        median * 100.0,
        worst * 100.0
    );
    errs
}

/// Median and worst |error|.
fn stats(errs: &[f64]) -> (f64, f64) {
    let mut a: Vec<f64> = errs.iter().map(|e| e.abs()).collect();
    a.sort_by(f64::total_cmp);
    (a[a.len() / 2], a[a.len() - 1])
}

/// The PyTorch-native table (docs/validation.md). The bounds pin what the
/// model reaches today, table by table, so a regression fails here:
/// - torchtitan eager on A100, the runs the PyTorch GEMM fraction was
///   fitted on, and torchtitan compiled + Float8 on H200 meet the issue's
///   targets (median ≤ 5 %, worst ≤ 12 %);
/// - torchtitan on Meta's 500 W H100s is predicted faster than measured on
///   every row, by the clock the power cap takes off a 700 W H100 SXM (the
///   part it is modelled as);
/// - the TP rows miss by up to a third where async TP is on: the time
///   model hides 90 % of TP traffic behind compute (a constant overlap,
///   being replaced by the communication rework of the same issue), while
///   torchtitan measured 1.04–1.16× from async TP.
#[test]
fn pytorch_native_table() {
    let mut all = Vec::new();

    let e = table("torchtitan eager, 64 × A100", &torchtitan_a100());
    let (median, worst) = stats(&e);
    assert!(median <= 0.05 && worst <= 0.08, "A100: {median} {worst}");
    all.extend(e);

    let e = table("torchtitan compiled + Float8, H200", &torchtitan_h200());
    assert!(stats(&e).1 <= 0.05, "H200: {:?}", stats(&e));
    all.extend(e);

    let e = table("torchtitan 1D FSDP, 500 W H100", &torchtitan_h100());
    for x in &e {
        assert!(*x < 0.0 && *x > -0.25, "500 W H100 row {x}");
    }
    all.extend(e);

    let mut tp = torchtitan_h100_2d();
    tp.extend(torchtitan_async_tp());
    let e = table("torchtitan FSDP + TP, H100", &tp);
    assert!(stats(&e).1 <= 0.35, "TP: {:?}", stats(&e));
    all.extend(e);

    let (median, worst) = stats(&all);
    println!(
        "\nPyTorch-native, {} runs: median |error| {:.1}%, worst {:.1}%",
        all.len(),
        median * 100.0,
        worst * 100.0
    );
    assert!(all.len() >= 15);
    assert!(median <= 0.10 && worst <= 0.35, "{median} {worst}");
}
