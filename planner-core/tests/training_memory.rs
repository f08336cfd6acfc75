//! Training peak memory against published measured runs (issue 12,
//! docs/validation.md "Training peak memory").
//!
//! Every row is a run someone measured and published, with the figure it
//! measured: `max_memory_allocated`, `max_memory_reserved` or what
//! `nvidia-smi` / NVML showed as used. The plan describes the run as its
//! source does; nothing here is tuned to a row. The test holds the median
//! and the worst error to the figures docs/validation.md states, so a
//! change that moves them shows up here and in the doc together.
//!
//! `cargo test -p planner-core --test training_memory -- --nocapture`
//! prints the table the doc carries.

use planner_core::catalog::{GpuId, ModelId};
use planner_core::hardware::{GpuChoice, Hardware};
use planner_core::model::ModelSpec;
use planner_core::plan::{
    AttentionKernel, Checkpointing, CustomModel, Levers, LoraSpec, LoraTargets, ModelChoice,
    Momentum, Optimizer, Overheads, Parallelism, Plan, Precisions, Training, TrainingKind,
    Workload,
};
use planner_core::precision::Precision;
use planner_core::report::Report;
use planner_core::software::{
    CudaVersion, Head, MemorySoftware, MemoryStack, ModuleLoading, OptimizerImpl,
};
use planner_core::{evaluate, Verdict};

/// Which figure a row measured.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Metric {
    /// `torch.cuda.max_memory_allocated`.
    Allocated,
    /// `torch.cuda.max_memory_reserved`.
    Reserved,
    /// Device memory used as `nvidia-smi` / NVML reports it.
    NvidiaSmi,
}

/// Mixed precision as the run set it.
#[derive(Debug, Clone, Copy)]
enum Mp {
    /// Everything FP32.
    Fp32,
    /// `torch.cuda.amp` FP16 autocast over FP32 parameters (HF `fp16=True`).
    AutocastFp16,
}

/// The optimizer as the run set it.
#[derive(Debug, Clone, Copy)]
enum Opt {
    /// transformers' own `AdamW` (`adamw_hf`): a loop over parameters.
    AdamWHf,
    /// transformers' `Adafactor` with its defaults (no first moment).
    Adafactor,
    /// bitsandbytes `Adam8bit`.
    Adam8bit,
}

/// One published run.
struct Row {
    id: &'static str,
    source: &'static str,
    metric: Metric,
    /// The published figure, MiB.
    measured_mib: f64,
    model: ModelId,
    gpu: GpuId,
    seq: u32,
    micro_batch: u32,
    accumulation: u32,
    checkpointing: bool,
    mp: Mp,
    opt: Opt,
    stack: MemoryStack,
    head: Head,
    attention: AttentionKernel,
    cuda: CudaVersion,
}

const HF_ANATOMY: &str = "Hugging Face Transformers docs, 'Methods and tools for efficient \
    training on a single GPU' (perf_train_gpu_one, v4.21-v4.35): bert-large-uncased sequence \
    classification, 512 random sequences of 512 tokens, Trainer, V100-SXM2 16GB, driver \
    460.91.03; 'GPU memory occupied' = NVML used // 1024**2 after trainer.train()";

/// A BERT-large row of the HF single-GPU guide.
const fn hf_bert(
    id: &'static str,
    measured_mib: f64,
    micro_batch: u32,
    accumulation: u32,
    checkpointing: bool,
    mp: Mp,
    opt: Opt,
) -> Row {
    Row {
        id,
        source: HF_ANATOMY,
        metric: Metric::NvidiaSmi,
        measured_mib,
        model: ModelId::BertLarge,
        gpu: GpuId::V100Sxm2_16,
        seq: 512,
        micro_batch,
        accumulation,
        checkpointing,
        mp,
        opt,
        stack: MemoryStack::HfEager,
        head: Head::Classifier { labels: 2 },
        attention: AttentionKernel::Eager,
        cuda: CudaVersion::Cuda11Early,
    }
}

/// The published rows.
const ROWS: &[Row] = &[
    hf_bert("hf-bert-bs4", 14949.0, 4, 1, false, Mp::Fp32, Opt::AdamWHf),
    hf_bert(
        "hf-bert-bs1-ga4",
        8681.0,
        1,
        4,
        false,
        Mp::Fp32,
        Opt::AdamWHf,
    ),
    hf_bert(
        "hf-bert-bs1-ga4-gc",
        6775.0,
        1,
        4,
        true,
        Mp::Fp32,
        Opt::AdamWHf,
    ),
    hf_bert(
        "hf-bert-bs4-fp16",
        13939.0,
        4,
        1,
        false,
        Mp::AutocastFp16,
        Opt::AdamWHf,
    ),
    hf_bert(
        "hf-bert-bs1-ga4-gc-fp16",
        7275.0,
        1,
        4,
        true,
        Mp::AutocastFp16,
        Opt::AdamWHf,
    ),
    hf_bert(
        "hf-bert-bs4-adafactor",
        12295.0,
        4,
        1,
        false,
        Mp::Fp32,
        Opt::Adafactor,
    ),
    hf_bert(
        "hf-bert-bs1-ga4-gc-fp16-adafactor",
        4847.0,
        1,
        4,
        true,
        Mp::AutocastFp16,
        Opt::Adafactor,
    ),
    hf_bert(
        "hf-bert-bs4-adam8bit",
        13085.0,
        4,
        1,
        false,
        Mp::Fp32,
        Opt::Adam8bit,
    ),
    hf_bert(
        "hf-bert-bs1-ga4-gc-fp16-adam8bit",
        5363.0,
        1,
        4,
        true,
        Mp::AutocastFp16,
        Opt::Adam8bit,
    ),
];

fn plan(row: &Row) -> Plan {
    let fp32 = Precision::Fp32;
    let act = match row.mp {
        Mp::Fp32 => fp32,
        Mp::AutocastFp16 => Precision::Fp16,
    };
    let (optimizer, optimizer_impl) = match row.opt {
        Opt::AdamWHf => (Optimizer::AdamW, OptimizerImpl::ForLoop),
        Opt::Adafactor => (
            Optimizer::Adafactor {
                momentum: Momentum::Off,
            },
            OptimizerImpl::ForLoop,
        ),
        Opt::Adam8bit => (Optimizer::Adam8bit, OptimizerImpl::Fused),
    };
    Plan {
        version: 1,
        name: row.id.into(),
        model: ModelChoice::Preset(row.model),
        workload: Workload::Training(Training {
            kind: TrainingKind::FullFineTune,
            seq_len: row.seq,
            global_batch: row.micro_batch * row.accumulation,
            tokens: 0.0,
        }),
        levers: Levers {
            precision: Precisions {
                weights: fp32,
                master: None,
                gradients: fp32,
                optimizer: fp32,
                activations: act,
                kv_cache: act,
                compute: act,
            },
            optimizer,
            checkpointing: if row.checkpointing {
                Checkpointing::Full
            } else {
                Checkpointing::None
            },
            attention: row.attention,
            parallel: Parallelism {
                micro_batch: row.micro_batch,
                ..Parallelism::default()
            },
            memory: MemorySoftware {
                stack: Some(row.stack),
                optimizer_impl,
                head: row.head,
                ..MemorySoftware::default()
            },
            ..Levers::default()
        },
        hardware: Hardware::new(GpuChoice::Preset(row.gpu), 1),
        overheads: Overheads {
            cuda: row.cuda,
            module_loading: ModuleLoading::Eager,
            ..Overheads::default()
        },
        efficiency: Default::default(),
        economics: Default::default(),
        distillation: None,
    }
}

/// The predicted figure of a metric, MiB.
fn predicted_mib(metric: Metric, r: &Report) -> f64 {
    let d = r.binding_device().expect("a training report has devices");
    let b = match metric {
        Metric::Allocated => d.hbm_allocated(),
        Metric::Reserved => d.hbm_reserved(),
        Metric::NvidiaSmi => d.hbm_used(),
    };
    b.as_mib()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

#[test]
fn published_training_peaks() {
    let mut errors = Vec::new();
    println!("| run | metric | measured MiB | predicted MiB | error |");
    println!("|---|---|---:|---:|---:|");
    for row in ROWS {
        assert!(row.source.len() > 40, "{}: a source to check", row.id);
        let r = evaluate(&plan(row));
        assert_ne!(
            r.verdict,
            Verdict::Invalid,
            "{}: {:?}",
            row.id,
            r.diagnostics
        );
        let p = predicted_mib(row.metric, &r);
        // The three figures nest: tensors ≤ the allocator's reserve ≤ what
        // the driver sees.
        let (a, res, used) = (
            predicted_mib(Metric::Allocated, &r),
            predicted_mib(Metric::Reserved, &r),
            predicted_mib(Metric::NvidiaSmi, &r),
        );
        assert!(a <= res && res < used, "{}: {a} {res} {used}", row.id);
        let e = p / row.measured_mib - 1.0;
        println!(
            "| {} | {:?} | {:.0} | {:.0} | {:+.1} % |",
            row.id,
            row.metric,
            row.measured_mib,
            p,
            e * 100.0
        );
        errors.push(e.abs());
    }
    let med = median(errors.clone());
    let worst = errors.iter().copied().fold(0.0, f64::max);
    println!(
        "median |error| {:.1} %, worst {:.1} %",
        med * 100.0,
        worst * 100.0
    );
    // The figures docs/validation.md states (issue 12's targets are 3 % and
    // 8 %; the rows without checkpointing miss by the allocator's cache of
    // earlier phases, which the model does not simulate; see the doc).
    assert!(med <= 0.050, "median {med}");
    assert!(worst <= 0.135, "worst {worst}");
    // Every miss is an under-prediction, the direction of the unmodelled
    // cache; an over-prediction would mean a mechanism counted twice.
    assert!(ROWS.iter().all(|row| {
        let r = evaluate(&plan(row));
        predicted_mib(row.metric, &r) <= row.measured_mib * 1.01
    }));
}

/// A published claim that a configuration fits a GPU.
struct FitClaim {
    id: &'static str,
    source: &'static str,
    spec: ModelSpec,
    gpu: GpuId,
    seq: u32,
    micro_batch: u32,
    accumulation: u32,
}

const QLORA: &str = "Dettmers et al., 'QLoRA: Efficient Finetuning of Quantized LLMs' \
    (arXiv:2305.14314), abstract: 'finetune a 65B parameter model on a single 48GB GPU' and \
    Guanaco 33B 'trainable ... on a single consumer GPU' (24 GB); configuration from \
    artidoro/qlora scripts/finetune_guanaco_{65b,33b}.sh: NF4 + double quantization, BF16, \
    LoRA r 64 on all linear layers, gradient checkpointing, per-device batch 4, \
    source_max_len 16 + target_max_len 512, paged_adamw_32bit (qlora.py default)";

/// The published fit claims (the QLoRA 'fits in 48/24 GB' rows).
fn fit_claims() -> [FitClaim; 2] {
    [
        FitClaim {
            id: "qlora-llama-65b-48gb",
            source: QLORA,
            // LLaMA 65B (Touvron et al. 2023, Table 2): 80 layers, d 8192,
            // 64 heads, SwiGLU 22016, vocabulary 32000, context 2048.
            spec: ModelSpec::llama(80, 8192, 64, 64, 22016, 32000, 2048),
            gpu: GpuId::L40s,
            seq: 528,
            micro_batch: 4,
            accumulation: 4,
        },
        FitClaim {
            id: "qlora-llama-33b-24gb",
            source: QLORA,
            // LLaMA 33B: 60 layers, d 6656, 52 heads, SwiGLU 17920.
            spec: ModelSpec::llama(60, 6656, 52, 52, 17920, 32000, 2048),
            gpu: GpuId::Rtx4090,
            seq: 528,
            micro_batch: 4,
            accumulation: 4,
        },
    ]
}

fn qlora_plan(c: &FitClaim) -> Plan {
    let bf16 = Precision::Bf16;
    Plan {
        version: 1,
        name: c.id.into(),
        model: ModelChoice::Custom(CustomModel {
            name: c.id.into(),
            spec: c.spec,
        }),
        workload: Workload::Training(Training {
            kind: TrainingKind::Qlora(LoraSpec {
                rank: 64,
                targets: LoraTargets::AllLinear,
                adapter_precision: bf16,
            }),
            seq_len: c.seq,
            global_batch: c.micro_batch * c.accumulation,
            tokens: 0.0,
        }),
        levers: Levers {
            precision: Precisions {
                weights: bf16,
                master: None,
                gradients: bf16,
                optimizer: Precision::Fp32,
                activations: bf16,
                kv_cache: bf16,
                compute: bf16,
            },
            checkpointing: Checkpointing::Full,
            attention: AttentionKernel::Eager,
            parallel: Parallelism {
                micro_batch: c.micro_batch,
                ..Parallelism::default()
            },
            memory: MemorySoftware {
                stack: Some(MemoryStack::HfEager),
                optimizer_impl: OptimizerImpl::Paged,
                ..MemorySoftware::default()
            },
            ..Levers::default()
        },
        hardware: Hardware::new(GpuChoice::Preset(c.gpu), 1),
        overheads: Overheads::default(),
        efficiency: Default::default(),
        economics: Default::default(),
        distillation: None,
    }
}

#[test]
fn published_fit_claims_fit() {
    for c in fit_claims() {
        assert!(c.source.len() > 40);
        let r = evaluate(&qlora_plan(&c));
        let d = r.binding_device().expect("a device");
        let hbm = d.hbm().expect("HBM");
        println!(
            "| {} | fits | {:.0} MiB used of {:.0} MiB | {:?} |",
            c.id,
            hbm.used.as_mib(),
            hbm.capacity.as_mib(),
            r.verdict
        );
        assert_eq!(r.verdict, Verdict::Fits, "{}: {:?}", c.id, r.diagnostics);
    }
}

// ── Each issue-12 finding held by a plan ─────────────────────────────────

use planner_core::example_plan;
use planner_core::plan::Tier;
use planner_core::report::ItemKind;
use planner_core::software::{ExpandableSegments, LossKernel};
use planner_core::units::Bytes;

fn mib(r: &Report, kind: ItemKind) -> f64 {
    r.binding_device().map_or(0.0, |d| d.of_kind(kind).as_mib())
}

/// Llama 2 7B fine-tuning on one H100 as HF runs it: BF16 autocast over
/// FP32 weights, no checkpointing, SDPA.
fn hf_llama() -> Plan {
    let mut p = example_plan();
    p.model = ModelChoice::Preset(ModelId::Llama2_7b);
    p.hardware = Hardware::new(GpuChoice::Preset(GpuId::H100Sxm), 1);
    p.workload = Workload::Training(Training {
        kind: TrainingKind::FullFineTune,
        seq_len: 2048,
        global_batch: 1,
        tokens: 0.0,
    });
    p.levers = Levers {
        parallel: Parallelism {
            micro_batch: 1,
            ..Parallelism::default()
        },
        memory: MemorySoftware {
            stack: Some(MemoryStack::HfEager),
            ..MemorySoftware::default()
        },
        ..Levers::default()
    };
    p
}

#[test]
fn the_cuda_context_follows_version_and_loading_and_can_be_set() {
    let mut p = hf_llama();
    let lazy = mib(&evaluate(&p), ItemKind::CudaContext);
    p.overheads.module_loading = ModuleLoading::Eager;
    let eager = mib(&evaluate(&p), ItemKind::CudaContext);
    p.overheads.cuda = CudaVersion::Cuda11Early;
    let old = mib(&evaluate(&p), ItemKind::CudaContext);
    assert!(
        lazy < 512.0 && eager > lazy && old > 1300.0,
        "{lazy} {eager} {old}"
    );
    p.overheads.cuda_context = Some(Bytes::from_mib(777.0));
    assert_eq!(mib(&evaluate(&p), ItemKind::CudaContext), 777.0);
    let r = evaluate(&p);
    let basis = &r.binding_device().expect("a device").items;
    assert!(basis
        .iter()
        .any(|i| i.kind == ItemKind::CudaContext && i.basis.contains("as set")));
}

#[test]
fn the_loss_peak_depends_on_the_kernel_and_chunking_shrinks_it() {
    let mut p = hf_llama();
    let unfused = mib(&evaluate(&p), ItemKind::Logits);
    p.levers.memory.loss = LossKernel::FusedVocabParallel;
    let fused = mib(&evaluate(&p), ItemKind::Logits);
    p.levers.memory.loss = LossKernel::Chunked;
    let chunked = mib(&evaluate(&p), ItemKind::Logits);
    // 2048 tokens × 32000 entries: 12 B (unfused) against 6 B (fused),
    // both beside the 16-bit inputs of the final norm and output layer.
    let per_logit = 2048.0 * 32000.0 / 1_048_576.0;
    let inputs = 2.0 * 2.0 * 2048.0 * 4096.0 / 1_048_576.0;
    assert!(
        (unfused - inputs - 12.0 * per_logit).abs() < 1e-6,
        "{unfused}"
    );
    assert!((fused - inputs - 6.0 * per_logit).abs() < 1e-6, "{fused}");
    assert!(chunked < fused / 4.0, "{chunked} vs {fused}");
}

#[test]
fn optimizer_temporaries_follow_the_implementation() {
    let mut p = hf_llama();
    // Foreach (HF's default): a moment-sized list, less the activations
    // the step reuses.
    let foreach = mib(&evaluate(&p), ItemKind::OptimizerTemporaries);
    p.levers.memory.optimizer_impl = OptimizerImpl::Fused;
    let fused = mib(&evaluate(&p), ItemKind::OptimizerTemporaries);
    p.levers.memory.optimizer_impl = OptimizerImpl::ForLoop;
    let one = mib(&evaluate(&p), ItemKind::OptimizerTemporaries);
    assert!(
        foreach > 10_000.0 && fused == 0.0 && one < foreach,
        "{foreach} {one}"
    );
    // Longer sequences free more activations for the step to reuse.
    p.levers.memory.optimizer_impl = OptimizerImpl::Foreach;
    if let Workload::Training(t) = &mut p.workload {
        t.seq_len = 4096;
    }
    assert!(mib(&evaluate(&p), ItemKind::OptimizerTemporaries) < foreach);
}

#[test]
fn backward_holds_gradients_in_flight_without_recomputation() {
    let p = hf_llama();
    assert_eq!(p.levers.checkpointing, Checkpointing::None);
    let mut q = p.clone();
    q.levers.memory.head = Head::Classifier { labels: 2 };
    // With the LM head the loss peak comes first and is larger; with a
    // classifier the largest layer's backward is the transient.
    assert!(mib(&evaluate(&q), ItemKind::BackwardWorkingSet) > 100.0);
    assert!(mib(&evaluate(&q), ItemKind::Logits) < 1.0);
    assert!(mib(&evaluate(&p), ItemKind::Logits) > 700.0);
}

#[test]
fn autocast_over_fp32_weights_caches_16_bit_casts() {
    let mut p = hf_llama();
    p.levers.precision = Precisions {
        weights: Precision::Fp32,
        master: None,
        gradients: Precision::Fp32,
        optimizer: Precision::Fp32,
        activations: Precision::Bf16,
        kv_cache: Precision::Bf16,
        compute: Precision::Bf16,
    };
    let cache = mib(&evaluate(&p), ItemKind::AutocastCache);
    // Llama 2 7B: 6.48e9 linear weights (the embedding stays FP32) × 2 B.
    assert!((cache / 1024.0 - 12.1).abs() < 0.2, "{cache}");
    p.levers.precision.weights = Precision::Bf16;
    assert_eq!(mib(&evaluate(&p), ItemKind::AutocastCache), 0.0);
}

#[test]
fn hf_eager_keeps_more_than_megatron() {
    let hf = hf_llama();
    let mut mg = hf.clone();
    mg.levers.memory.stack = Some(MemoryStack::Megatron);
    let (a, b) = (
        mib(&evaluate(&hf), ItemKind::Activations),
        mib(&evaluate(&mg), ItemKind::Activations),
    );
    // Two RMSNorms per layer keep an FP32 copy beside the 16-bit output:
    // 4 B more per element each, 32 layers of 2048 × 4096.
    let extra = 32.0 * 2.0 * 4.0 * 2048.0 * 4096.0 / 1_048_576.0;
    assert!((a - b - extra).abs() < 1e-6, "{a} {b}");
}

#[test]
fn the_allocator_reserve_is_named_and_expandable_segments_shrink_it() {
    let mut p = hf_llama();
    let r = evaluate(&p);
    let d = r.binding_device().expect("a device");
    assert!(d.hbm_reserved() > d.hbm_allocated());
    assert!(d.hbm_used() > d.hbm_reserved());
    let off = mib(&r, ItemKind::AllocatorRounding);
    p.overheads.expandable_segments = ExpandableSegments::On;
    let on = mib(&evaluate(&p), ItemKind::AllocatorRounding);
    assert!(on <= off + 20.0, "{on} {off}");
    // A flat fraction replaces the model.
    p.overheads.fragmentation = Some(0.1);
    let r = evaluate(&p);
    assert_eq!(mib(&r, ItemKind::AllocatorRounding), 0.0);
    assert!(mib(&r, ItemKind::Fragmentation) > 0.0);
}

#[test]
fn the_verdict_holds_reserved_plus_runtime_against_the_driver_total() {
    // A sequence length whose tensors fit the RTX 4090's 24,564 MiB but
    // whose reserve plus context does not.
    let mut p = hf_llama();
    p.model = ModelChoice::Preset(ModelId::Llama31_8b);
    p.hardware = Hardware::new(GpuChoice::Preset(GpuId::Rtx4090), 1);
    p.levers.checkpointing = Checkpointing::Full;
    let cap = 24_564.0;
    let mut found = false;
    for seq in (8..512).map(|k| k * 128) {
        p.workload = Workload::Training(Training {
            kind: TrainingKind::Qlora(LoraSpec {
                rank: 16,
                targets: LoraTargets::AllLinear,
                adapter_precision: Precision::Bf16,
            }),
            seq_len: seq,
            global_batch: 1,
            tokens: 0.0,
        });
        let r = evaluate(&p);
        let d = r.binding_device().expect("a device");
        let (alloc, used) = (d.hbm_allocated().as_mib(), d.hbm_used().as_mib());
        assert_eq!(r.verdict == Verdict::Fits, used <= cap, "seq {seq}");
        if alloc <= cap && used > cap {
            found = true;
            break;
        }
    }
    assert!(found, "no length between the allocated and the used limit");
}

#[test]
fn paged_optimizers_keep_their_states_in_host_memory() {
    let claims = fit_claims();
    let mut p = qlora_plan(&claims[0]);
    let r = evaluate(&p);
    let d = r.binding_device().expect("a device");
    let host: f64 = d
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::OptimizerStates && i.tier == Tier::HostDram)
        .map(|i| i.bytes.as_mib())
        .sum();
    assert!(host > 5000.0, "{host}");
    // Without paging the 65B claim would not fit 48 GB.
    p.levers.memory.optimizer_impl = OptimizerImpl::Fused;
    assert_eq!(evaluate(&p).verdict, Verdict::DoesNotFit);
}
