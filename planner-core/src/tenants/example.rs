//! The example sharing `memwall example-tenants` prints.

use super::schema::{Job, LatencySlo, Pool, ShareMode, Sharing};
use crate::catalog::{GpuId, ModelId};
use crate::hardware::{GpuChoice, Hardware};
use crate::plan::{
    Checkpointing, Inference, Levers, LoraSpec, LoraTargets, ModelChoice, Parallelism, Plan,
    Precisions, Training, TrainingKind, Workload, SCHEMA_VERSION,
};
use crate::precision::Precision;
use crate::units::Seconds;

/// A plan on one H100 with the given workload and levers, defaults
/// elsewhere.
fn h100_plan(name: &str, model: ModelId, workload: Workload, levers: Levers) -> Plan {
    Plan {
        version: SCHEMA_VERSION,
        name: name.into(),
        model: ModelChoice::Preset(model),
        workload,
        levers,
        hardware: Hardware::new(GpuChoice::Preset(GpuId::H100Sxm), 1),
        overheads: Default::default(),
        efficiency: Default::default(),
        economics: Default::default(),
        distillation: None,
    }
}

/// A serving job: (prompt, output, batch) tokens and sequences, its weight
/// format and its latency targets.
fn serving_job(
    name: &str,
    model: ModelId,
    (prompt, output, batch): (u32, u32, u32),
    weights: Precision,
    slo: LatencySlo,
) -> Job {
    let workload = Workload::Inference(Inference {
        prompt_tokens: prompt,
        output_tokens: output,
        batch,
        logits: Default::default(),
        stream: None,
    });
    let levers = Levers {
        precision: Precisions {
            weights,
            ..Precisions::default()
        },
        ..Levers::default()
    };
    Job {
        name: name.into(),
        plan: h100_plan(name, model, workload, levers),
        slo,
        min_batch: None,
    }
}

/// A training job with full recomputation: (sequence length, global batch,
/// micro-batch).
fn training_job(
    name: &str,
    model: ModelId,
    kind: TrainingKind,
    (seq, batch, mb): (u32, u32, u32),
) -> Job {
    let workload = Workload::Training(Training {
        kind,
        seq_len: seq,
        global_batch: batch,
        tokens: 0.0,
    });
    let levers = Levers {
        checkpointing: Checkpointing::Full,
        parallel: Parallelism {
            micro_batch: mb,
            ..Parallelism::default()
        },
        ..Levers::default()
    };
    Job {
        name: name.into(),
        plan: h100_plan(name, model, workload, levers),
        slo: LatencySlo::default(),
        min_batch: None,
    }
}

/// Latency targets: TTFT in seconds, TPOT in milliseconds.
fn slo(ttft: f64, tpot: f64) -> LatencySlo {
    LatencySlo {
        max_ttft: Some(Seconds::from_secs(ttft)),
        max_tpot: Some(Seconds::from_millis(tpot)),
    }
}

/// Llama 3.1 70B served in FP8 with TP = 2 over two GPUs.
fn seventy_b_job() -> Job {
    let mut seventy = serving_job(
        "llama3.1-70b-fp8-tp2",
        ModelId::Llama31_70b,
        (2048, 512, 32),
        Precision::Fp8,
        slo(2.0, 60.0),
    );
    seventy.plan.hardware.gpus = 2;
    seventy.plan.levers.parallel = Parallelism {
        tp: 2,
        ..Parallelism::default()
    };
    seventy
}

/// The three chat/summarisation services of the example.
fn service_jobs() -> [Job; 3] {
    [
        serving_job(
            "chat-llama3.1-8b",
            ModelId::Llama31_8b,
            (1024, 256, 16),
            Precision::Bf16,
            slo(1.0, 50.0),
        ),
        serving_job(
            "summarise-qwen2.5-7b-int4",
            ModelId::Qwen25_7b,
            (2048, 128, 8),
            Precision::Int4 { group_size: 128 },
            slo(2.0, 40.0),
        ),
        serving_job(
            "code-mistral-7b",
            ModelId::Mistral7bV01,
            (512, 256, 8),
            Precision::Bf16,
            slo(1.0, 50.0),
        ),
    ]
}

/// The two fine-tunes of the example.
fn fine_tune_jobs() -> [Job; 2] {
    [
        training_job(
            "qlora-llama2-7b",
            ModelId::Llama2_7b,
            TrainingKind::Qlora(LoraSpec {
                rank: 16,
                targets: LoraTargets::AllLinear,
                adapter_precision: Precision::Fp32,
            }),
            (2048, 16, 1),
        ),
        training_job(
            "bert-large-finetune",
            ModelId::BertLarge,
            TrainingKind::FullFineTune,
            (512, 32, 8),
        ),
    ]
}

/// The example `memwall example-tenants` prints: four H100s shared by MIG
/// between three chat/summarisation services (Llama 3.1 8B, Qwen2.5 7B in
/// INT4, Mistral 7B), a QLoRA fine-tune of Llama 2 7B, a BERT-large
/// fine-tune and Llama 3.1 70B served in FP8 over two GPUs. The latency
/// targets are illustrative, not taken from any service.
pub fn example_sharing() -> Sharing {
    let mut jobs = Vec::from(service_jobs());
    jobs.extend(fine_tune_jobs());
    jobs.push(seventy_b_job());
    Sharing {
        version: SCHEMA_VERSION,
        pool: Pool {
            gpu: GpuChoice::Preset(GpuId::H100Sxm),
            gpus: 4,
            gpus_per_node: 8,
            mode: ShareMode::Mig,
        },
        jobs,
    }
}
