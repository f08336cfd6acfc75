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

/// Llama 3.1 70B served by vLLM on one 8×H100 node as two TP-4 replicas:
/// a Poisson stream of 10 requests/s with ShareGPT's lengths as the
/// benchmark clients sample them (`request::sharegpt`), held to a
/// 99th-percentile TTFT of 2 s and TPOT of 100 ms (what `memwall
/// example-serving` prints). The static figures are for the longest
/// request of the stream (815 prompt + 778 output tokens).
pub fn example_serving_plan() -> Plan {
    use crate::engine::Engine;
    use crate::plan::{Inference, LogitsScope};
    use crate::request::{sharegpt, Arrival, RequestStream, Slo};
    use crate::units::{Frequency, Seconds};
    let (prompt, output) = sharegpt();
    Plan {
        version: SCHEMA_VERSION,
        name: "Llama 3.1 70B on 8×H100, vLLM, 2 replicas of TP 4".into(),
        model: ModelChoice::Preset(ModelId::Llama31_70b),
        workload: Workload::Inference(Inference {
            prompt_tokens: 815,
            output_tokens: 778,
            batch: 64,
            logits: LogitsScope::LastToken,
            stream: Some(RequestStream {
                arrival: Arrival::Poisson {
                    rate: Frequency::per_second(10.0),
                },
                prompt,
                output,
                slo: Slo {
                    ttft_p99: Some(Seconds::from_secs(2.0)),
                    tpot_p99: Some(Seconds::from_millis(100.0)),
                    ..Slo::default()
                },
                shared_prefix: 0,
                reuse: None,
                requests: 1000,
                seed: 0,
            }),
        }),
        levers: Levers {
            engine: Engine::Vllm,
            parallel: Parallelism {
                tp: 4,
                dp: 2,
                ..Parallelism::default()
            },
            ..Levers::default()
        },
        hardware: Hardware::new(GpuChoice::Preset(GpuId::H100Sxm), 8),
        overheads: Overheads::default(),
        efficiency: Default::default(),
        economics: Default::default(),
        distillation: None,
    }
}

/// The serving example split into pools (what `memwall example-disagg`
/// prints): on the same 8×H100 node, one TP-4 replica prefills and one
/// TP-4 replica decodes, the KV cache crossing NVLink between them.
pub fn example_disagg_plan() -> Plan {
    use crate::disagg::{Disaggregation, Pool};
    let mut p = example_serving_plan();
    p.name = "Llama 3.1 70B on 8×H100, vLLM, prefill TP 4 : decode TP 4".into();
    let pool = Pool {
        tp: 4,
        replicas: 1,
        token_budget: None,
        max_seqs: None,
        ep: None,
    };
    p.levers.disaggregation = Some(Disaggregation {
        prefill: pool,
        decode: pool,
        link: None,
        transfer: Default::default(),
    });
    p
}
