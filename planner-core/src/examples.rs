//! The built-in example plan (what `memwall example` prints and the web
//! app opens with).

use crate::catalog::{GpuId, ModelId};
use crate::hardware::{GpuChoice, Hardware};
use crate::plan::{
    Checkpointing, Levers, ModelChoice, Overheads, Parallelism, Plan, SequenceParallel, Sharding,
    Training, TrainingKind, Workload, SCHEMA_VERSION,
};
use crate::units::Bytes;

/// Llama 2 7B pre-training on one 8×H100 node: ZeRO-1 over 8 data-parallel
/// ranks, selective recomputation, FlashAttention, 4 K context.
pub fn example_plan() -> Plan {
    Plan {
        version: SCHEMA_VERSION,
        name: "Llama 2 7B on 8×H100, ZeRO-1".into(),
        model: ModelChoice::Preset(ModelId::Llama2_7b),
        workload: Workload::Training(Training {
            kind: TrainingKind::PreTraining,
            seq_len: 4096,
            global_batch: 256,
            tokens: 2.0e12,
        }),
        levers: Levers {
            checkpointing: Checkpointing::Selective,
            sharding: Sharding::Zero1,
            parallel: Parallelism {
                dp: 8,
                micro_batch: 1,
                sequence_parallel: SequenceParallel::Off,
                ..Parallelism::default()
            },
            ..Levers::default()
        },
        hardware: Hardware {
            nvme_per_node: Bytes::from_tb(30.0),
            ..Hardware::new(GpuChoice::Preset(GpuId::H100Sxm), 8)
        },
        overheads: Overheads::default(),
        efficiency: Default::default(),
        economics: Default::default(),
        distillation: None,
    }
}
