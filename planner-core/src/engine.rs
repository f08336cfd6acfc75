//! Serving engines as the planner models them: how each one sizes its KV
//! pool, how many tokens one iteration may carry, how it pages the cache,
//! and what it does when the cache runs out. Every default below is the
//! engine's own, with the file it comes from.

use crate::precision::Precision;
use crate::units::Bytes;
use serde::{Deserialize, Serialize};

/// The serving engine a plan runs under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum Engine {
    /// Static batches, memwall's original semantics: the whole batch is
    /// prefilled (in chunks only if `levers.prefill_chunk` says so), then
    /// decoded together; the KV pool is whatever HBM the plan leaves.
    #[default]
    Static,
    /// vLLM (V1 engine): continuous batching with chunked prefill.
    Vllm,
    /// vLLM's V0 engine (releases 0.5–0.6): prefills whole prompts in
    /// iterations of their own ahead of decoding, optionally several decode
    /// steps per scheduling (`--num-scheduler-steps`).
    VllmV0,
    /// SGLang: continuous batching with chunked prefill run ahead of
    /// decoding (mixed only with `--enable-mixed-chunk`) and a radix cache.
    Sglang,
    /// TensorRT-LLM (in-flight batching, paged KV).
    TrtLlm,
    /// Hugging Face transformers' `generate` in eager PyTorch: static
    /// batches, a contiguous cache, every operator issued from Python (no
    /// CUDA graphs), so small models and decode steps wait on the host
    /// (`time::host`).
    HfTransformers,
}

impl Engine {
    /// Every engine, in display order.
    pub const ALL: [Engine; 6] = [
        Engine::Static,
        Engine::Vllm,
        Engine::VllmV0,
        Engine::Sglang,
        Engine::TrtLlm,
        Engine::HfTransformers,
    ];

    /// Whether the engine reuses prompt prefixes unless told otherwise:
    /// vLLM V1 (`enable_prefix_caching` on by default since V1), SGLang's
    /// radix cache and TensorRT-LLM's `KvCacheConfig.enable_block_reuse`
    /// do; vLLM V0 did not (`enable_prefix_caching` False in the 0.5–0.6
    /// `EngineArgs`). A static batch has nothing to reuse.
    pub fn prefix_caching(self) -> PrefixCaching {
        match self {
            Engine::VllmV0 | Engine::Static | Engine::HfTransformers => PrefixCaching::Off,
            Engine::Vllm | Engine::Sglang | Engine::TrtLlm => PrefixCaching::On,
        }
    }

    /// Whether the engine schedules iteration by iteration (Orca-style
    /// continuous batching, Yu et al. OSDI 2022) rather than batch by batch.
    pub fn continuous(self) -> bool {
        !matches!(self, Engine::Static | Engine::HfTransformers)
    }

    /// The training stack whose kernels the engine's model code runs:
    /// transformers' `generate` runs the same eager modules as its Trainer
    /// (SDPA's FlashAttention-2 backend on Hopper, one kernel per
    /// element-wise op, cuBLAS GEMMs as PyTorch calls them). The serving
    /// engines run their own fused kernels: `None`.
    pub fn kernel_stack(self) -> Option<crate::stack::TrainingStack> {
        match self {
            Engine::HfTransformers => Some(crate::stack::TrainingStack::HfTrainer),
            _ => None,
        }
    }

    /// Whether the engine issues a pass that carries prompt tokens from
    /// Python, layer by layer, while its decode steps replay CUDA graphs:
    /// vLLM's V0 engine uses a captured graph only for a decode-only batch
    /// (`ModelInputForGPUBuilder._use_captured_graph`: `decode_only and not
    /// enforce_eager`), and SGLang replays graphs for the decode forward
    /// modes only (`ModelRunner.forward`: `forward_mode.is_cuda_graph()`),
    /// running an extend batch through `forward_extend` eagerly unless
    /// `--enable-piecewise-cuda-graph` (off by default, `ServerArgs`). vLLM
    /// V1 compiles prefill into piecewise graphs and TensorRT-LLM's engine
    /// runs in C++: no.
    pub fn eager_prefill(self) -> bool {
        matches!(self, Engine::VllmV0 | Engine::Sglang)
    }

    /// Whether a pass's outputs reach the client only during the next
    /// pass: vLLM 0.6's async output processing (on by default) queues a
    /// step's sampled tokens and turns them into responses in a callback
    /// the next step runs once its forward is launched (`LLMEngine.
    /// step_async` appends to `output_queue`; `ModelRunner.execute_model`
    /// calls `async_callback` → `_process_model_outputs`), so a first
    /// token waits for the next scheduling and launch, or for the next
    /// prompt's eager launches when a prefill follows; a multi-step
    /// window's tokens likewise arrive one pass late. SGLang sends them
    /// right after the pass; vLLM V1 and TensorRT-LLM process outputs
    /// beside the next pass.
    pub fn defers_output(self) -> bool {
        self == Engine::VllmV0
    }

    /// How the engine issues a forward pass's kernels: the serving engines
    /// capture CUDA graphs for decode (vLLM's `cudagraph_capture_sizes`,
    /// SGLang's `cuda_graph_max_bs`, TensorRT-LLM's
    /// `cuda_graph_config`), so the host issues nothing per layer;
    /// transformers' `generate` runs the model's modules eagerly and writes
    /// its cache op by op. Static batches are memwall's idealised engine:
    /// no host floor.
    pub fn dispatch(self) -> crate::stack::Dispatch {
        match self {
            Engine::HfTransformers => crate::stack::Dispatch::Eager {
                cache: true,
                autocast: false,
            },
            _ => crate::stack::Dispatch::Graphs,
        }
    }
}

crate::lang::named!(Engine {
    Engine::Static => "static", "static batches", "静态批处理";
    Engine::Vllm => "vllm", "vLLM", "vLLM";
    Engine::VllmV0 => "vllm_v0", "vLLM 0.6 (V0 engine)", "vLLM 0.6（V0 引擎）";
    Engine::Sglang => "sglang", "SGLang", "SGLang";
    Engine::TrtLlm => "trt_llm", "TensorRT-LLM", "TensorRT-LLM";
    Engine::HfTransformers => "hf_transformers", "transformers generate (eager)", "transformers generate（eager 模式）";
});

/// How an engine sizes the KV pool of one device.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum KvPoolRule {
    /// The pool is what the plan's own memory leaves in (capped) HBM.
    Leftover,
    /// vLLM: `fraction` of the device's memory for everything (weights,
    /// activation peak of a profiling pass at the token budget, runtime);
    /// the KV pool is the rest of that fraction
    /// (`vllm/v1/worker/gpu_worker.py`, `determine_available_memory`).
    OfTotal {
        /// `gpu_memory_utilization`, 0..=1.
        fraction: f64,
    },
    /// SGLang: `fraction` of the device's memory for weights and the KV
    /// pool only; activations and CUDA graphs live in the remainder
    /// (`python/sglang/srt/model_executor/model_runner.py`,
    /// `profile_max_num_token`).
    StaticOfTotal {
        /// `mem_fraction_static`, 0..=1.
        fraction: f64,
    },
    /// TensorRT-LLM: `fraction` of the memory still free once weights and
    /// runtime buffers are allocated (`KvCacheConfig.free_gpu_memory_fraction`,
    /// `tensorrt_llm/llmapi/llm_args.py`).
    OfFree {
        /// `free_gpu_memory_fraction`, 0..=1.
        fraction: f64,
    },
}

impl KvPoolRule {
    /// The same rule at another fraction (the engine's memory knob:
    /// vLLM `gpu_memory_utilization`, SGLang `mem_fraction_static`,
    /// TensorRT-LLM `free_gpu_memory_fraction`).
    pub fn with_fraction(self, f: f64) -> Self {
        match self {
            KvPoolRule::Leftover => KvPoolRule::Leftover,
            KvPoolRule::OfTotal { .. } => KvPoolRule::OfTotal { fraction: f },
            KvPoolRule::StaticOfTotal { .. } => KvPoolRule::StaticOfTotal { fraction: f },
            KvPoolRule::OfFree { .. } => KvPoolRule::OfFree { fraction: f },
        }
    }

    /// KV pool bytes of one device: `total` device memory, `weights` the
    /// weights it holds in HBM, `others` everything else besides the KV
    /// cache (activations at the token budget, runtime overheads).
    pub fn pool(self, total: Bytes, weights: Bytes, others: Bytes) -> Bytes {
        Bytes::new(self.balance(total, weights, others).max(0.0))
    }

    /// [`KvPoolRule::pool`] before it is floored at zero: negative by
    /// what the rule lacks when the weights and the rest overrun it.
    pub fn balance(self, total: Bytes, weights: Bytes, others: Bytes) -> f64 {
        let t = total.base();
        let (w, o) = (weights.base(), others.base());
        match self {
            KvPoolRule::Leftover => t - w - o,
            KvPoolRule::OfTotal { fraction } => fraction * t - w - o,
            KvPoolRule::StaticOfTotal { fraction } => (fraction * t - w).min(t - w - o),
            KvPoolRule::OfFree { fraction } => fraction * (t - w - o),
        }
    }
}

/// What an engine does when a running request needs a KV block and none
/// is free.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Preemption {
    /// Free the newest running request's blocks and prefill it again later
    /// (vLLM V1's only mode; SGLang's retraction). Blocks are taken as
    /// tokens are computed.
    Recompute,
    /// Never preempt: a request is admitted only when the blocks for its
    /// whole prompt and its largest output can be reserved, and it keeps
    /// them until it finishes (TensorRT-LLM's default capacity scheduler,
    /// `CapacitySchedulerPolicy.GUARANTEED_NO_EVICT`: "only accepts new
    /// requests if they can complete without eviction"; the TensorRT-LLM
    /// performance-tuning guide, "Capacity Scheduler Policy", and
    /// `SchedulerConfig`'s default). Fewer requests run at once than the
    /// pool would hold on demand when outputs are long.
    ReserveToFinish,
}

/// An engine's scheduling and memory defaults, as the planner uses them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct EngineProfile {
    /// The engine.
    pub engine: Engine,
    /// How the KV pool is sized.
    pub pool: KvPoolRule,
    /// Largest number of tokens one iteration carries (prefill chunks plus
    /// decode tokens); `None` = no limit (whole prompts at once).
    pub token_budget: Option<u32>,
    /// Tokens per KV block (page).
    pub block_tokens: u32,
    /// Largest number of running requests.
    pub max_seqs: u32,
    /// What happens when blocks run out.
    pub preemption: Preemption,
    /// Whether shared prompt prefixes are served from the cache.
    #[serde(default)]
    pub prefix_caching: PrefixCaching,
    /// How an iteration mixes prefill and decode.
    #[serde(default)]
    pub batching: Batching,
    /// Decode steps run per scheduling (vLLM V0 `num_scheduler_steps`;
    /// 1 everywhere else).
    #[serde(default = "one")]
    pub scheduler_steps: u32,
    /// The host's work around each iteration.
    #[serde(default)]
    pub host: HostCost,
    /// Whether attention-DP ranks' prompts wait for each other.
    #[serde(default)]
    pub dp_balance: DpBalance,
    /// Seconds a streamed request spends outside the engine loop on the
    /// way to its first token ([`Engine::front_end`]).
    pub front_end: crate::units::Seconds,
    /// Largest decode batch the engine replays from a captured CUDA
    /// graph; a larger one runs eagerly, its layers issued from Python
    /// (SGLang's `cuda_graph_max_bs`, [`SglangMemory`]). `None`: every
    /// decode batch replays a graph, or the engine issues nothing per
    /// layer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graph_max_batch: Option<u32>,
}

fn one() -> u32 {
    1
}

/// How a continuous-batching engine fills an iteration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Batching {
    /// Running requests first, then prompt chunks in the budget left, in
    /// one forward pass (vLLM V1, TensorRT-LLM's in-flight batching,
    /// SGLang with `--enable-mixed-chunk`; Sarathi-Serve, Agrawal et al.
    /// OSDI 2024 §4).
    #[default]
    Mixed,
    /// Prompts (whole, or in chunks of the token budget) in iterations of
    /// their own whenever one is waiting and fits, decoding paused
    /// meanwhile: vLLM V0's default scheduler (`Scheduler._schedule_default`,
    /// chunked prefill off), and SGLang's, whose scheduler runs a new
    /// prefill ("extend") batch ahead of the running decode batch and
    /// mixes the two only with `--enable-mixed-chunk`, off by default
    /// (`ServerArgs.enable_mixed_chunk = False`; `Scheduler.get_new_batch_prefill`,
    /// `ScheduleBatch.mix_with_running`, sgl-project/sglang 0.3 to 0.5).
    PrefillFirst,
}

impl Batching {
    /// Both ways, in display order.
    pub const ALL: [Batching; 2] = [Batching::Mixed, Batching::PrefillFirst];
}

crate::lang::named!(Batching {
    Batching::Mixed => "mixed", "prefill chunks mixed with decode", "预填充分块与解码混合";
    Batching::PrefillFirst => "prefill_first", "whole prompts first, decode paused", "整段提示优先，解码暂停";
});

/// The top-k/top-p sampler whose peak vLLM V1's profile run takes off
/// its KV budget (`_dummy_sampler_run`: top-p 0.9 and top-k on every
/// request, the logits over the whole vocabulary).
///
/// vLLM's defaults, read in its PyPI wheels (`vllm/envs.py`
/// `VLLM_USE_FLASHINFER_SAMPLER`, `v1/sample/ops/topk_topp_sampler.py`):
/// FlashInfer's kernel where FlashInfer is installed in 0.9.0–0.11.0
/// (which `pip install vllm` did not install), off from 0.11.1 (PR #26859,
/// "Disable FlashInfer sampler by default") to 0.20.0, on again from 0.21.0
/// (PR #40376), where the profile run then also warms the PyTorch path
/// with a seeded call. So the sort path's peak is what every release but
/// 0.9–0.11.0's Docker images reaches, and the default here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Sampler {
    /// PyTorch's sort-based top-k/top-p: an FP32 copy of the logits, the
    /// sorted values, int64 indices and their inverse, and the sort's
    /// scratch, about 36 bytes a logit past the compute format. Checked
    /// against vLLM's logs (`memory::inference` tests): Qwen3-8B's
    /// 1.40 GiB and gpt-oss-120b's 7.38 GiB profile peaks.
    #[default]
    Sort,
    /// FlashInfer's sampling kernels (`top_k_top_p_sampling_from_logits`):
    /// the FP32 logits and probabilities and a little scratch, about 12
    /// bytes a logit.
    FlashInfer,
}

impl Sampler {
    /// Both samplers, in display order.
    pub const ALL: [Sampler; 2] = [Sampler::Sort, Sampler::FlashInfer];

    /// Bytes a logit holds at the sampler's peak past its copy in the
    /// compute format.
    pub fn bytes_per_logit(self) -> f64 {
        match self {
            Sampler::Sort => 36.0,
            Sampler::FlashInfer => 12.0,
        }
    }
}

crate::lang::named!(Sampler {
    Sampler::Sort => "sort", "PyTorch sort (top-k/top-p)", "PyTorch 排序（top-k/top-p）";
    Sampler::FlashInfer => "flash_infer", "FlashInfer sampling kernels", "FlashInfer 采样内核";
});

/// Whether the host's work for the next iteration runs while the GPU
/// computes this one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum HostOverlap {
    /// The GPU waits for it: an iteration lasts GPU + host.
    #[default]
    Serial,
    /// Scheduled one iteration ahead: an iteration lasts the longer of
    /// the two.
    Overlapped,
}

crate::lang::named!(HostOverlap {
    HostOverlap::Serial => "serial", "host work between GPU steps", "主机工作在 GPU 步之间串行";
    HostOverlap::Overlapped => "overlapped", "host work one step ahead, overlapped", "主机工作提前一步、与 GPU 重叠";
});

impl HostOverlap {
    /// Both modes, in display order.
    pub const ALL: [HostOverlap; 2] = [HostOverlap::Serial, HostOverlap::Overlapped];
}

/// The CPU work an engine does per iteration besides launching kernels:
/// scheduling, preparing the batch's inputs, sampling bookkeeping and
/// processing outputs (detokenisation, streaming). The GPU idles through
/// it unless the engine overlaps it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct HostCost {
    /// Seconds per scheduling, whatever the batch.
    pub per_step: crate::units::Seconds,
    /// Seconds per sequence that samples a token in the iteration.
    pub per_sequence: crate::units::Seconds,
    /// Whether the GPU waits for it.
    pub overlap: HostOverlap,
}

impl HostCost {
    /// Host seconds before a pass's forward is launched: its scheduling,
    /// input preparation for `sampled` sequences, and `issue` seconds of
    /// eager launches (`time::inference::prefill_issue_seconds`). An
    /// engine that hands outputs over in the next pass
    /// ([`Engine::defers_output`]) delivers them this long into it.
    pub fn lead(&self, sampled: f64, issue: f64) -> f64 {
        self.per_step.base() + self.per_sequence.base() * sampled + issue
    }

    /// Seconds of one iteration whose GPU work takes `gpu` and in which
    /// `sampled` sequences take a token; `window` decode steps share one
    /// scheduling (multi-step), 1 otherwise.
    pub fn iteration(&self, gpu: f64, sampled: f64, window: f64) -> f64 {
        let host = (self.per_step.base() + self.per_sequence.base() * sampled) / window.max(1.0);
        match self.overlap {
            HostOverlap::Serial => gpu + host,
            HostOverlap::Overlapped => gpu.max(host),
        }
    }
}

/// Whether a continuous-batching engine reuses the KV blocks of prompt
/// prefixes it has seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum PrefixCaching {
    /// Reuse (each engine's default: vLLM V1 `enable_prefix_caching`,
    /// SGLang's radix cache, TensorRT-LLM `KvCacheConfig.enable_block_reuse`).
    #[default]
    On,
    /// Prefill every prompt in full (vLLM `--no-enable-prefix-caching`,
    /// SGLang `--disable-radix-cache`).
    Off,
}

crate::lang::named!(PrefixCaching {
    PrefixCaching::On => "on", "prefix caching on", "前缀缓存开";
    PrefixCaching::Off => "off", "prefix caching off", "前缀缓存关";
});

/// Whether an engine holds attention-DP ranks' prompts until every rank
/// has one, so that their prefills run in the same iterations
/// (TensorRT-LLM's `attention_dp_config.enable_balance`; off by default).
/// With it on, a rank's new prompts wait while another rank has none, for
/// at most [`DP_BALANCE_TIMEOUT_ITERS`] iterations (and not at all when a
/// rank has nothing to decode), and, once every rank has prompts and
/// requests decoding, [`DP_BALANCE_BATCHING_WAIT_ITERS`] iterations more
/// to gather others (`_balance_adp_requests`). NVIDIA measured 1.31× the
/// throughput with the timeout alone and 1.33× with both on 8 GB200
/// serving DeepSeek-V3 (TensorRT-LLM tech blog 10, "ADP Balance
/// Strategy").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum DpBalance {
    /// Each rank prefills its prompts as they come.
    #[default]
    Off,
    /// Prompts wait until every rank has one.
    On,
}

impl DpBalance {
    /// Both settings, in display order.
    pub const ALL: [DpBalance; 2] = [DpBalance::Off, DpBalance::On];
}

crate::lang::named!(DpBalance {
    DpBalance::Off => "off", "attention-DP balance off", "注意力 DP 负载均衡关";
    DpBalance::On => "on", "attention-DP balance on (prompts wait for every rank)", "注意力 DP 负载均衡开（提示等待所有 rank）";
});

/// Iterations a rank's prompts wait for every rank to have one
/// (TensorRT-LLM `AttentionDpConfig.timeout_iters`, default 50).
pub const DP_BALANCE_TIMEOUT_ITERS: u32 = 50;
/// Iterations prompts wait for more once every rank has some
/// (`AttentionDpConfig.batching_wait_iters`, default 10).
pub const DP_BALANCE_BATCHING_WAIT_ITERS: u32 = 10;

/// TensorRT-LLM's MoE backend (`moe_config.backend`), where its kernels'
/// cost is published: NVIDIA timed one DeepSeek-R1 MoE module with NVFP4
/// experts on B200 under both (TensorRT-LLM tech blog 24), the CUTLASS
/// backend at 97 µs plus its weights at 40 % of the HBM peak and the
/// TRTLLM backend (TRTLLM-Gen kernels, Blackwell only) at 26 µs plus 71 %.
/// The other backends (DeepGEMM, Triton, CuteDSL, WideEP) have no such
/// figure and are not offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum MoeBackend {
    /// `CUTLASS`, the default through 1.2.
    Cutlass,
    /// `TRTLLM`: the TRTLLM-Gen kernels (Blackwell only).
    Trtllm,
}

impl MoeBackend {
    /// Both backends, in display order.
    pub const ALL: [MoeBackend; 2] = [MoeBackend::Cutlass, MoeBackend::Trtllm];
}

crate::lang::named!(MoeBackend {
    MoeBackend::Cutlass => "cutlass", "CUTLASS (TensorRT-LLM's default)", "CUTLASS（TensorRT-LLM 默认）";
    MoeBackend::Trtllm => "trtllm", "TRTLLM-Gen (Blackwell)", "TRTLLM-Gen（Blackwell）";
});

/// Engine settings a plan may state over the engine's defaults (the token
/// budget is `levers.prefill_chunk`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct EngineKnobs {
    /// Most running requests per replica (vLLM `max_num_seqs`, SGLang
    /// `max_running_requests`, TensorRT-LLM `max_batch_size`), 1..=65,536;
    /// `None` takes the engine's default.
    #[serde(default)]
    pub max_seqs: Option<u32>,
    /// Prefix caching (a stream's `shared_prefix` is served from it);
    /// `None` takes the engine's default ([`Engine::prefix_caching`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix_caching: Option<PrefixCaching>,
    /// Decode steps per scheduling, 1..=[`MAX_SCHEDULER_STEPS`] (vLLM V0
    /// `--num-scheduler-steps`, default 1); only `vllm_v0` has it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduler_steps: Option<u32>,
    /// Whether the host's work runs beside the GPU's (vLLM
    /// `--async-scheduling`, SGLang `--disable-overlap-schedule`,
    /// TensorRT-LLM `disable_overlap_scheduler`); `None` takes the
    /// engine's default ([`Engine::host`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_overlap: Option<HostOverlap>,
    /// The engine's memory fraction over its default, in (0, 1]: vLLM
    /// `gpu_memory_utilization` (weights, the profile run's peak and the
    /// pool inside it; the CUDA context and NCCL outside, as vLLM counts
    /// them: `serving::capacity::pool`), SGLang `mem_fraction_static`
    /// (weights and KV pool), TensorRT-LLM `free_gpu_memory_fraction` (of
    /// what weights and buffers leave).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_fraction: Option<f64>,
    /// Whether attention-DP ranks' prompts wait for each other
    /// ([`DpBalance`]); only `trt_llm` has it; `None` is off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attention_dp_balance: Option<DpBalance>,
    /// How prompts meet decoding ([`Batching`]): SGLang's
    /// `--enable-mixed-chunk` is `mixed`; `None` takes the engine's way
    /// (prefill first for SGLang and vLLM V0, mixed for vLLM V1 and
    /// TensorRT-LLM). Static batches ignore it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batching: Option<Batching>,
    /// The top-k/top-p sampler vLLM's profile run goes through
    /// ([`Sampler`]); `None` is the sort path. Only `vllm` has it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampler: Option<Sampler>,
    /// Milliseconds a streamed request spends outside the engine loop on
    /// the way to its first token, over the engine's default
    /// ([`Engine::front_end`]), 0..=[`MAX_FRONT_END_MS`]: 0 for an offline
    /// benchmark that calls the engine in-process (`trtllm-bench`, vLLM's
    /// `LLM.generate`), more behind a gateway.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub front_end_ms: Option<f64>,
    /// Largest decode batch run from a captured CUDA graph, 1..=65,536
    /// (SGLang `--cuda-graph-max-bs`); larger batches run eagerly. Only
    /// `sglang` has it; `None` takes its default ([`SglangMemory`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graph_max_batch: Option<u32>,
    /// TensorRT-LLM's MoE backend ([`MoeBackend`]); only `trt_llm` serving
    /// an MoE model has it; `None` takes the engine's default (CUTLASS for
    /// NVFP4 experts, [`MoeKernel::of`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moe_backend: Option<MoeBackend>,
}

/// The longest front-end latency a plan may state, milliseconds.
pub const MAX_FRONT_END_MS: f64 = 10_000.0;

/// The most decode steps per scheduling a plan may state.
pub const MAX_SCHEDULER_STEPS: u32 = 64;

impl EngineKnobs {
    /// Whether every knob is at the engine's default (then a plan does
    /// not write them out).
    pub fn is_default(&self) -> bool {
        *self == EngineKnobs::default()
    }
}

/// The most running requests a plan may state.
pub const MAX_SEQS_LIMIT: u32 = 65_536;

/// A second KV store below HBM that keeps computed KV blocks for reuse:
/// LMCache's local CPU, local disk or remote backends behind vLLM's
/// `LMCacheConnectorV1` (docs.lmcache.ai, "Configurations":
/// `local_cpu`, `max_local_cpu_size`, `chunk_size`), vLLM's native KV
/// offloading connector, SGLang's HiCache, Mooncake's store. Every prefill
/// chunk the engine computes is written down to it; blocks the HBM prefix
/// cache evicts stay there; a later request whose prompt starts with them
/// fetches them instead of prefilling them (`serving::kv_tiers`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct KvTier {
    /// Where the store lives: `host_dram`, `cxl` (the plan's CXL
    /// expanders and pool together) or `nvme`; never `hbm`.
    pub tier: crate::hardware::Tier,
    /// Bytes per GPU the store may hold (LMCache's `max_local_cpu_size`
    /// is per worker, one worker per GPU); `None` takes all of the tier's
    /// memory per GPU that the plan leaves free. At most that.
    #[serde(default)]
    pub capacity: Option<Bytes>,
    /// Tokens per chunk the store moves (LMCache `chunk_size`, default
    /// 256), 1..=[`MAX_KV_CHUNK_TOKENS`]: each chunk fetched pays the
    /// tier's latency once.
    #[serde(default = "default_kv_chunk")]
    pub chunk_tokens: u32,
    /// How a fetch overlaps the forward pass that needs it.
    #[serde(default)]
    pub load: KvLoad,
    /// What a preempted request's KV does.
    #[serde(default)]
    pub preempted: PreemptedKv,
}

/// LMCache's default chunk (docs.lmcache.ai configuration reference,
/// `chunk_size: 256`; NVIDIA Dynamo's LMCache page repeats it).
pub const DEFAULT_KV_CHUNK_TOKENS: u32 = 256;
/// The largest chunk a plan may give (a million tokens: past any model's
/// context, so that a typo cannot pass).
pub const MAX_KV_CHUNK_TOKENS: u32 = 1 << 20;

fn default_kv_chunk() -> u32 {
    DEFAULT_KV_CHUNK_TOKENS
}

/// How KV fetched from (and written to) a lower tier meets the forward
/// pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum KvLoad {
    /// One bulk copy before the forward pass (loads) and one the forward
    /// waits for at its end (stores): LMCache's default, `use_layerwise`
    /// false (vLLM `LMCacheConnectorV1`, `extra_config.get("use_layerwise",
    /// False)`; vLLM `KVConnectorBase_V1.wait_for_save` blocks as the
    /// forward context exits). The whole iteration waits for it.
    #[default]
    Bulk,
    /// Layer by layer: layer i+1's copy runs while layer i computes
    /// (LMCache `use_layerwise: true`, `wait_for_layer_load` per layer):
    /// only what the iteration's compute cannot cover shows, and at least
    /// one layer's share.
    Layerwise,
}

crate::lang::named!(KvLoad {
    KvLoad::Bulk => "bulk", "bulk copy before the pass", "整块加载";
    KvLoad::Layerwise => "layerwise", "layer-wise, overlapped", "逐层重叠加载";
});

/// What happens to a preempted request's KV when a store is set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum PreemptedKv {
    /// Dropped and prefilled again later (vLLM V1's only mode).
    #[default]
    Recompute,
    /// Copied down to the store and fetched back when the request runs
    /// again (vLLM V0 `preemption_mode="swap"` into its `swap_space`).
    Swap,
}

crate::lang::named!(PreemptedKv {
    PreemptedKv::Recompute => "recompute", "recompute preempted KV", "重算被抢占的 KV";
    PreemptedKv::Swap => "swap", "swap preempted KV to the tier", "被抢占的 KV 换出到下层";
});

/// What proposes the tokens a speculative step verifies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[serde(deny_unknown_fields)]
pub enum Drafter {
    /// A smaller model of the same tokenizer (Leviathan et al. 2023; vLLM
    /// `speculative_config.model`), run at the target's tensor-parallel
    /// degree and weight format; its weights and its own KV cache are held
    /// beside the target's.
    Model {
        /// The draft model.
        model: crate::catalog::ModelId,
    },
    /// Decoder layers of the target's shape stacked on its last hidden
    /// state, sharing its embedding and output layer: an EAGLE head (Li et
    /// al. 2024, one layer) or a multi-token-prediction module
    /// (DeepSeek-V3, arXiv:2412.19437 §2.2, one MoE block on an MoE
    /// target). Their weights and KV are held; the output layer is shared.
    Heads {
        /// Decoder layers of the head, ≥ 1.
        layers: u32,
    },
}

crate::lang::named!(Drafter {
    Drafter::Model { .. } => "model", "draft model", "草稿模型";
    Drafter::Heads { .. } => "heads", "EAGLE/MTP head", "EAGLE/MTP 预测头";
});

/// Speculative decoding: each decode iteration the drafter proposes
/// `tokens` tokens one after another, and the target verifies them in
/// one forward pass of `tokens + 1` positions per sequence, keeping the
/// accepted prefix and one token of its own (Leviathan et al., "Fast
/// Inference from Transformers via Speculative Decoding", ICML 2023, §3;
/// vLLM `--speculative-config`, `num_speculative_tokens`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Speculation {
    /// What drafts the tokens.
    pub drafter: Drafter,
    /// Draft tokens per step (`num_speculative_tokens`, k), 0..=
    /// [`MAX_SPECULATIVE_TOKENS`]; 0 is no speculation.
    pub tokens: u32,
    /// Probability that a draft token is accepted, α in 0..=1, taken as
    /// independent per token (Leviathan et al. §3.1); measured acceptance
    /// depends on the data and the drafter, so it is an input.
    pub acceptance: f64,
}

/// The most draft tokens per step the planner takes (engines advise ≤ 5;
/// beyond ~10 the expected gain is flat for any α < 0.9).
pub const MAX_SPECULATIVE_TOKENS: u32 = 16;

impl Speculation {
    /// Expected tokens one target step emits per sequence:
    /// (1 − α^(k+1)) / (1 − α) (Leviathan et al. 2023, §3.1, Eq. 1),
    /// k + 1 at α = 1 and 1 at k = 0 or α = 0.
    pub fn expected_tokens(&self) -> f64 {
        let a = self.acceptance.clamp(0.0, 1.0);
        let k = f64::from(self.tokens.min(MAX_SPECULATIVE_TOKENS));
        if 1.0 - a < 1e-12 {
            return k + 1.0;
        }
        (1.0 - a.powf(k + 1.0)) / (1.0 - a)
    }

    /// Whether it changes anything (k ≥ 1).
    pub fn active(&self) -> bool {
        self.tokens > 0
    }
}

/// Device memory from which vLLM and SGLang pick their larger defaults.
const LARGE_GPU_GIB: f64 = 70.0;

/// Whether a GPU's name is an A100's, as vLLM tests it (`"a100"` in the
/// lower-cased device name, `EngineArgs.get_batch_defaults`): an A800
/// is not.
pub(crate) fn named_a100(name: &str) -> bool {
    name.as_bytes()
        .windows(4)
        .any(|w| w.eq_ignore_ascii_case(b"a100"))
}

/// Where an engine runs: what its defaults depend on besides its name.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Deployment {
    /// Memory CUDA can allocate on one device.
    pub device_memory: Bytes,
    /// Whether the device's name is an A100's ([`named_a100`]).
    pub a100: bool,
    /// Tensor-parallel degree of attention.
    pub tp: u32,
    /// Pipeline stages.
    pub pp: u32,
    /// Attention data-parallel ranks that meet in one expert group
    /// (SGLang's `--dp` with `--enable-dp-attention`); 1 without.
    pub attention_dp: u32,
    /// What drafts speculative tokens, when speculation is on.
    pub drafter: Option<Drafter>,
    /// The static batch (the Static engine's running limit).
    pub batch: u32,
}

impl Deployment {
    /// One device of `device_memory` running alone, batch 1.
    pub fn one(device_memory: Bytes) -> Self {
        Deployment {
            device_memory,
            a100: false,
            tp: 1,
            pp: 1,
            attention_dp: 1,
            drafter: None,
            batch: 1,
        }
    }
}

/// SGLang's defaults that follow the device's memory, as
/// `ServerArgs._handle_gpu_memory_settings` sets them
/// (`python/sglang/srt/server_args.py`; the rule of sgl-project/sglang
/// PR #10975, "Use more general heuristics to set the default value of
/// --mem-fraction-static", merged 2025-09-27, unchanged in the late-2025
/// and 2026 sources read). By the memory the device reports, in MiB
/// (SGLang reads nvidia-smi's total; the memory CUDA can allocate stands
/// in, a fraction of a percent less):
/// - under 20 GiB: chunks of 2,048 tokens, CUDA graphs up to batch 8;
/// - under 35 GiB: 2,048, graphs to 24 (80 at TP ≥ 4);
/// - under 60 GiB: 4,096, graphs to 32 (160 at TP ≥ 4);
/// - under 160 GiB: 8,192, graphs to 256 (512 at TP ≥ 4);
/// - from 160 GiB: 16,384, graphs to 512.
///
/// `mem_fraction_static` (weights and KV pool over the device's memory)
/// is then the memory less a reserve for activations and graph buffers,
/// in MiB: 512, 1.5 per chunk token (at least 2,048 tokens), 2 per graph
/// batch, 1,024 per 8 ranks of TP × PP, with attention DP 3 per graph
/// batch and DP rank (4.5 when graphs go past batch 300), at least
/// 10 GiB on devices above 60 GiB, and 2 GiB more for EAGLE or MTP
/// heads, 6 GiB for a draft model (`STANDALONE`). SGLang's TP size is
/// every rank of the attention-DP group.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SglangMemory {
    /// `chunked_prefill_size`.
    pub chunk: u32,
    /// `cuda_graph_max_bs`: larger decode batches run without CUDA graphs.
    pub graph_max_batch: u32,
    /// `mem_fraction_static`, rounded to three places as SGLang does.
    pub fraction: f64,
}

impl SglangMemory {
    /// The defaults for deployment `d`.
    pub fn of(d: &Deployment) -> Self {
        let mib = d.device_memory.base() / 1_048_576.0;
        let gib = |g: f64| g * 1024.0;
        let tp = d.tp.max(1) * d.attention_dp.max(1);
        let wide = tp >= 4;
        let (chunk, graph_max_batch) = if mib < gib(20.0) {
            (2048, 8)
        } else if mib < gib(35.0) {
            (2048, if wide { 80 } else { 24 })
        } else if mib < gib(60.0) {
            (4096, if wide { 160 } else { 32 })
        } else if mib < gib(160.0) {
            (8192, if wide { 512 } else { 256 })
        } else {
            (16384, 512)
        };
        let bs = f64::from(graph_max_batch);
        let mut reserve = 512.0
            + f64::from(chunk.max(2048)) * 1.5
            + bs * 2.0
            + f64::from(tp) * f64::from(d.pp.max(1)) / 8.0 * 1024.0;
        if d.attention_dp > 1 {
            let dp = f64::from(d.attention_dp);
            reserve += bs * dp * 3.0;
            if graph_max_batch > 300 {
                reserve += bs * dp * 1.5;
            }
        }
        if mib > gib(60.0) {
            reserve = reserve.max(gib(10.0));
        }
        reserve += match d.drafter {
            None => 0.0,
            Some(Drafter::Heads { .. }) => gib(2.0),
            Some(Drafter::Model { .. }) => gib(6.0),
        };
        let fraction = if mib > 0.0 {
            (((mib - reserve) / mib) * 1000.0).round() / 1000.0
        } else {
            0.0
        };
        SglangMemory {
            chunk,
            graph_max_batch,
            fraction: fraction.max(0.0),
        }
    }
}

impl EngineProfile {
    /// The profile with the plan's engine knobs over the defaults (the
    /// running limit only on a continuous-batching engine).
    pub fn with_knobs(mut self, k: &EngineKnobs) -> Self {
        if let (true, Some(m)) = (self.engine.continuous(), k.max_seqs) {
            self.max_seqs = m;
        }
        if let Some(pc) = k.prefix_caching {
            self.prefix_caching = pc;
        }
        if let Some(n) = k.scheduler_steps {
            self.scheduler_steps = n;
        }
        if let Some(o) = k.host_overlap {
            self.host.overlap = o;
        }
        if let Some(f) = k.memory_fraction {
            self.pool = self.pool.with_fraction(f);
        }
        if let Some(b) = k.attention_dp_balance {
            self.dp_balance = b;
        }
        if let (true, Some(b)) = (self.engine.continuous(), k.batching) {
            self.batching = b;
        }
        if let (Engine::Sglang, Some(g)) = (self.engine, k.graph_max_batch) {
            self.graph_max_batch = Some(g);
        }
        if let (true, Some(ms)) = (self.engine.continuous(), k.front_end_ms) {
            self.front_end = crate::units::Seconds::from_millis(ms.clamp(0.0, MAX_FRONT_END_MS));
        }
        self
    }
}

impl Engine {
    /// The engine's defaults where it runs ([`Deployment`]: the device's
    /// memory, the ranks, the drafter, the static batch), for an online
    /// server.
    ///
    /// Sources:
    /// - vLLM: `gpu_memory_utilization` 0.9 and `block_size` 16
    ///   (`vllm/config/cache.py`); `max_num_batched_tokens` 8192 and
    ///   `max_num_seqs` 1024 for the OpenAI server on GPUs with ≥ 70 GiB
    ///   other than A100, else 2048 and 256 (`vllm/engine/arg_utils.py`,
    ///   `EngineArgs.get_batch_defaults`, vLLM PR #17885); V1 always
    ///   chunks prefill and preempts by recomputation.
    /// - SGLang: `mem_fraction_static` and `chunked_prefill_size` from the
    ///   device's memory and the ranks ([`SglangMemory`]); `page_size` 1.
    /// - TensorRT-LLM: `free_gpu_memory_fraction` 0.9, `tokens_per_block`
    ///   32, `max_num_tokens` 8192, `max_batch_size` 2048
    ///   (`tensorrt_llm/llmapi/llm_args.py`, `KvCacheConfig` and
    ///   `BuildConfig` defaults).
    ///
    /// Checked against the sources (issue 13, second part): TensorRT-LLM's
    /// `KvCacheConfig`:
    /// `free_gpu_memory_fraction` default 0.9 ("Default is 90%"),
    /// `tokens_per_block` default 32, `enable_block_reuse` default True.
    /// `max_num_tokens` 8192 and `max_batch_size` 2048 were not re-read in
    /// that pass.
    pub fn profile(self, d: &Deployment) -> EngineProfile {
        let (device_memory, a100, batch) = (d.device_memory, d.a100, d.batch);
        let large = device_memory.as_gib() >= LARGE_GPU_GIB;
        // vLLM keeps the small defaults on A100s whatever their memory:
        // the device's name is tested (PR #17885: the large budget cut
        // A100 throughput), so an A800 gets the large ones.
        let vllm_large = large && !a100;
        let block_tokens = self.block_tokens();
        // SGLang's memory-dependent defaults, worked out once.
        let sglang = (self == Engine::Sglang).then(|| SglangMemory::of(d));
        let (pool, token_budget, max_seqs) = match self {
            Engine::Static | Engine::HfTransformers => (KvPoolRule::Leftover, None, batch.max(1)),
            // V0 with chunked prefill off (its default below 32K context):
            // `max_num_seqs` 256, whole prompts (`max_num_batched_tokens`
            // = max(max_model_len, 2048)), `gpu_memory_utilization` 0.9,
            // block 16 (`vllm/engine/arg_utils.py`, `vllm/config.py`
            // `SchedulerConfig`, 0.5–0.6 series).
            Engine::VllmV0 => (KvPoolRule::OfTotal { fraction: 0.9 }, None, 256),
            Engine::Vllm => (
                KvPoolRule::OfTotal { fraction: 0.9 },
                Some(if vllm_large { 8192 } else { 2048 }),
                if vllm_large { 1024 } else { 256 },
            ),
            Engine::Sglang => {
                let fraction = sglang.map_or(0.0, |m| m.fraction);
                let chunk = sglang.map(|m| m.chunk);
                (KvPoolRule::StaticOfTotal { fraction }, chunk, 4096)
            }
            Engine::TrtLlm => (KvPoolRule::OfFree { fraction: 0.9 }, Some(8192), 2048),
        };
        EngineProfile {
            engine: self,
            pool,
            token_budget,
            block_tokens,
            max_seqs,
            preemption: if self == Engine::TrtLlm {
                Preemption::ReserveToFinish
            } else {
                Preemption::Recompute
            },
            // The plan's `engine_knobs.prefix_caching`, when stated,
            // replaces this.
            prefix_caching: self.prefix_caching(),
            batching: match self {
                Engine::VllmV0 | Engine::Sglang => Batching::PrefillFirst,
                _ => Batching::Mixed,
            },
            scheduler_steps: 1,
            host: self.host(),
            dp_balance: DpBalance::Off,
            front_end: self.front_end(),
            graph_max_batch: sglang.map(|m| m.graph_max_batch),
        }
    }

    /// Tokens per KV block (page) by default: vLLM `block_size` 16,
    /// SGLang `page_size` 1, TensorRT-LLM `tokens_per_block` 32 (sources
    /// at [`Engine::profile`]); a static batch is counted in vLLM's blocks.
    pub fn block_tokens(self) -> u32 {
        match self {
            Engine::Static | Engine::HfTransformers | Engine::Vllm | Engine::VllmV0 => 16,
            Engine::Sglang => 1,
            Engine::TrtLlm => 32,
        }
    }

    /// The host's work per iteration, as the engine's own developers
    /// measured it (docs/sources.md, "Engine host time"):
    /// - vLLM V0: about 4 ms of GPU idle per decode step on H100 with
    ///   Llama 3 8B, spent on scheduling, input preparation, sampled
    ///   tokens' copy and output processing (vLLM RFC #6854, "Multi-Step
    ///   Scheduling", 2024-07), growing with the sequences in the batch,
    ///   not the tokens (WukLab, "Scheduling Overhead in LLM Inference
    ///   Engines", 2024: vLLM 0.5.4 on an A6000 host, about 6 ms plus
    ///   35 µs per request, read off their figure); serial.
    /// - vLLM V1: 5–6 ms between two decode steps at batch 256 on
    ///   Llama 2 7B with ShareGPT (vLLM issue #10634, 2024-11), about
    ///   20 µs per sequence; overlapped: async scheduling (vLLM PR
    ///   #19970, 2025-06, opt-in at first) is on by default since the
    ///   "Async Scheduling Plan" (vLLM issue #27679, PR #27614; the
    ///   `async_scheduling` docstring after PR #32775, 2026-01: "If set
    ///   to False, disable async scheduling").
    /// - SGLang: its scheduler's overhead "never was more than 3 ms"
    ///   (WukLab, same study), taken here as its cost; overlapped with the
    ///   GPU since v0.4's zero-overhead batch scheduler (LMSYS blog,
    ///   2024-12-04), unless `--disable-overlap-schedule`.
    /// - TensorRT-LLM (PyTorch executor): about 580 µs of host time per
    ///   iteration exposed at concurrency 64 (TensorRT-LLM issue #13957,
    ///   Llama 3.1 8B FP8 on B200), plus about 20 µs per sequence for the
    ///   executor's Python loops over every running request: the sampler's
    ///   host side alone measured 11–14 µs per request at a batch of 1,000
    ///   (TensorRT-LLM PR #11983, 2026-03) and about 7 µs at 64 (PR #15920,
    ///   B300 host, before that PR's fix), and input preparation
    ///   (`_prepare_tp_inputs`, PR #11704) and the response loop
    ///   (`update_requests`, PR #16564) walk every request again; the same
    ///   order as vLLM V1's. Overlapped by default (its overlap scheduler,
    ///   PR #4174, `disable_overlap_scheduler` False), one step deep, so a
    ///   step's host work hides behind the GPU's until it is longer: at
    ///   thousands of sequences of a small-active MoE (Qwen3-30B-A3B in
    ///   FP4 on one B200) the host sets the pace.
    /// - Static batches: none (memwall's idealised engine).
    pub fn host(self) -> HostCost {
        let (per_step, per_sequence, overlap) = match self {
            // transformers' host time is its operators, charged per layer
            // (`time::host`).
            Engine::Static | Engine::HfTransformers => (0.0, 0.0, HostOverlap::Serial),
            Engine::VllmV0 => (4_000.0, 35.0, HostOverlap::Serial),
            Engine::Vllm => (0.0, 20.0, HostOverlap::Overlapped),
            Engine::Sglang => (3_000.0, 0.0, HostOverlap::Overlapped),
            Engine::TrtLlm => (580.0, 20.0, HostOverlap::Overlapped),
        };
        HostCost {
            per_step: crate::units::Seconds::from_micros(per_step),
            per_sequence: crate::units::Seconds::from_micros(per_sequence),
            overlap,
        }
    }

    /// What a streamed request spends outside the engine loop before its
    /// first token reaches the client: the HTTP request, the chat template
    /// and tokenization in the API server, the hand-over to the engine
    /// process, and the first token's detokenization and server-sent
    /// event. A client at concurrency 1 sees it in every TTFT, and a
    /// closed-loop client once a request. No source breaks it into parts;
    /// each figure is the residual of published TTFTs at low concurrency
    /// over the prefill the time model gives them, one calibration per
    /// server (docs/validation.md, "Front-end latency"):
    /// - vLLM's OpenAI server (V1 and V0): 30 ms. GPUStack's performance
    ///   lab (`vllm bench serve`, chat endpoint, ShareGPT, one H100):
    ///   Qwen3-8B on vLLM 0.11.0 at concurrency 1–4, 59–64 ms against
    ///   about 10 ms of prefill; gpt-oss-120b on 0.10.2 at concurrency 4,
    ///   about 25–30 ms over prefill; Qwen3.5-9B on 0.17.1 at 1 request/s
    ///   (guidellm), about 20 ms; vLLM issue #20710 (0.9.0, Llama 3.3 70B
    ///   FP8 on two B200, concurrency 1, 512 tokens), about 30 ms. The
    ///   residuals span 20–50 ms.
    /// - SGLang: 10 ms. The same GPUStack run with SGLang 0.5.3.post3,
    ///   27.7 ms at concurrency 4 (at most 15–20 ms over prefill); SGLang's
    ///   `benchmark/benchmark_vllm_060` (SGLang 0.3.0 online at 4 and 8
    ///   requests/s, Llama 3.1 8B on an A100 and 70B on four H100s), 6–9 ms
    ///   over the time model's TTFT (vLLM 0.6.0 there: 16–67 ms, growing
    ///   with the rate).
    /// - TensorRT-LLM served over HTTP: 10 ms. NVIDIA NIM 1.8 (Llama 3.3
    ///   70B FP8 on two H100, concurrency 1), 5–9 ms over the time model's
    ///   TTFT; `trtllm-serve` 1.2.0rc1 in the GPUStack run, about 35–40 ms.
    /// - Static batches and transformers' `generate`: none (no server).
    pub fn front_end(self) -> crate::units::Seconds {
        crate::units::Seconds::from_millis(self.front_end_ms().0)
    }

    /// The span of the residuals [`Engine::front_end`] was read from,
    /// least and most (its sources, above): vLLM 20–50 ms, SGLang 6–20,
    /// TensorRT-LLM 5 (NIM) to 40 (`trtllm-serve`). What a plan's TTFT
    /// carries is one harness's; this is how far harnesses part.
    pub fn front_end_span(self) -> (crate::units::Seconds, crate::units::Seconds) {
        let (_, lo, hi) = self.front_end_ms();
        (
            crate::units::Seconds::from_millis(lo),
            crate::units::Seconds::from_millis(hi),
        )
    }

    /// The front end in milliseconds: the figure, then the least and most
    /// residual of its sources (one table for both methods above).
    fn front_end_ms(self) -> (f64, f64, f64) {
        match self {
            Engine::Vllm | Engine::VllmV0 => (30.0, 20.0, 50.0),
            Engine::Sglang => (10.0, 6.0, 20.0),
            Engine::TrtLlm => (10.0, 5.0, 40.0),
            Engine::Static | Engine::HfTransformers => (0.0, 0.0, 0.0),
        }
    }
}

/// How an engine lays out MXFP4 routed-expert weights in HBM after
/// loading. The checkpoint holds 4-bit values with one 8-bit scale per 32
/// (4.25 bits); the engines' MoE kernels pad or copy parts of that.
///
/// Source: vLLM's `model_executor/layers/quantization/mxfp4.py`
/// (`create_weights`, `process_weights_after_loading`, `get_mxfp4_backend`)
/// in the 0.12–0.14 wheels, with the `triton_kernels` layouts it bundles
/// (`hopper_scale.py`: scale rows padded to `2 · num_warps · 2 · 8` = 256
/// with 8 warps; `hopper_value.py`: values in 16-row × 32-byte packs).
/// Checked against vLLM's "Model loading took" lines for gpt-oss on one
/// H100 (64.38 GiB for the 120b, 13.47 GiB for the 20b: vLLM issue #33155
/// and llm-d-benchmark's empirical memory results), which the Triton
/// layout below puts at 64.2 and 13.4 GiB before the experts' biases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mxfp4Layout {
    /// As the checkpoint stores it (engines whose layout memwall has not
    /// read: SGLang, TensorRT-LLM, and everything but vLLM).
    Checkpoint,
    /// vLLM's Triton backend on Hopper: the values as stored, the scales
    /// swizzled into a copy whose rows are padded to 256, the original
    /// scales kept beside it.
    TritonHopper,
    /// vLLM's Marlin backend (Ampere and Ada, weight-only FP4): the
    /// hidden width padded to 256 and the expert width to 128, values
    /// and scales alike.
    Marlin,
    /// vLLM's default on Blackwell, FlashInfer's TensorRT-LLM kernels:
    /// both widths padded to 256.
    TrtllmBlackwell,
}

/// `n` rounded up to a multiple of `m`.
fn round_up(n: f64, m: f64) -> f64 {
    (n / m).ceil() * m
}

impl Mxfp4Layout {
    /// The layout `engine` uses on a GPU of architecture `arch`.
    pub fn of(engine: Engine, arch: crate::hardware::GpuArch) -> Mxfp4Layout {
        use crate::hardware::GpuArch as A;
        match (engine, arch) {
            (Engine::Vllm, A::Hopper) => Mxfp4Layout::TritonHopper,
            (Engine::Vllm, A::Ampere | A::Ada) => Mxfp4Layout::Marlin,
            (Engine::Vllm, A::Blackwell) => Mxfp4Layout::TrtllmBlackwell,
            _ => Mxfp4Layout::Checkpoint,
        }
    }

    /// Bytes per routed-expert weight element of an expert with `hidden`
    /// inputs and a `width`-wide hidden layer on this device (after expert
    /// TP), its `mats` matrices (3 when gated: the fused gate-and-up
    /// projection of 2·width rows and the down projection of `hidden`
    /// rows).
    pub fn bytes_per_weight(self, hidden: u32, width: u32, mats: f64) -> f64 {
        let (h, w) = (f64::from(hidden.max(1)), f64::from(width.max(1)));
        let up_rows = (mats - 1.0).max(1.0) * w;
        let elements = up_rows * h + h * w;
        let value = 0.5;
        let scale = 1.0 / 32.0;
        let stored = match self {
            Mxfp4Layout::Checkpoint => elements * (value + scale),
            Mxfp4Layout::TritonHopper => {
                let padded_scales = (round_up(up_rows, 256.0) * h + round_up(h, 256.0) * w) * scale;
                elements * (value + scale) + padded_scales
            }
            Mxfp4Layout::Marlin => {
                let (ph, pw) = (round_up(h, 256.0), round_up(w, 128.0));
                ((mats - 1.0).max(1.0) * pw * ph + ph * pw) * (value + scale)
            }
            Mxfp4Layout::TrtllmBlackwell => {
                let (ph, pw) = (round_up(h, 256.0), round_up(w, 256.0));
                ((mats - 1.0).max(1.0) * pw * ph + ph * pw) * (value + scale)
            }
        };
        stored / elements
    }
}

/// The kernel an engine runs the routed experts with, where its
/// measured cost departs from the general model of an MoE layer (its
/// weights streamed at `efficiency.hbm`, its router, top-k and launches
/// among the layer's small kernels, `time::work::small_kernels`).
///
/// Each published measurement below times a whole MoE module (router,
/// top-k, quantisation, both grouped GEMMs) at several batch sizes; a
/// line through them, time = fixed + expert bytes touched ÷ rate (uniform
/// routing), separates what a kernel streams at from what it costs
/// whatever it reads (fits in docs/validation.md, "The experts' kernel by
/// engine"):
/// - TensorRT-LLM tech blog 24 ("MoE as Dense GEMM": one B200 rank of
///   DeepSeek-V3 at TP 8, NVFP4, 8–256 tokens): the TRTLLM-Gen backend
///   26 µs + 71 % of 8 TB/s; the CUTLASS backend, `MoeConfig.backend`'s
///   default through release 1.2, **97 µs + 40 %** (each within 3 % of the
///   five times).
/// - Triton `fused_moe`, tuned: 33–37 µs + 77–95 % of an H100's 3.35
///   TB/s (vllm-project/vllm PR #24700: Qwen3-30B-A3B FP8 at batch 8–128,
///   Mixtral 8x7B BF16 at TP 2); on a B200, DeepSeek-R1's TP 8 shape in
///   block FP8, 47 µs + 74 % (sgl-project/sglang PR #11816).
/// - DeepGEMM's masked FP8 grouped GEMM: 85 % of an H200's 4.8 TB/s at 64
///   tokens an expert (deepseek-ai/DeepGEMM issue #20).
///
/// All but TensorRT-LLM's CUTLASS backend stream within the general
/// figure's reach (0.8; B200's measured streaming floor is 76 %,
/// NVIDIA/Megatron-LM PR #6454), so only that one is priced apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoeKernel {
    /// The general model: Hopper's and Blackwell's tuned Triton,
    /// DeepGEMM, TRTLLM-Gen, and every engine and part without a kernel
    /// measurement.
    General,
    /// TensorRT-LLM's CUTLASS MoE backend with NVFP4 experts on
    /// Blackwell.
    CutlassFp4,
}

impl MoeKernel {
    /// The kernel `engine` runs experts stored as `experts` with on a part
    /// of architecture `arch`. TensorRT-LLM's default backend is CUTLASS
    /// (`MoeConfig.backend` through 1.2; its DeepSeek-R1 deployment guide
    /// for 1.2 runs NVFP4 on B200 with it); its gpt-oss guide sets
    /// TRTLLM for MXFP4, the `AUTO` choice since PR #11074, so only NVFP4
    /// takes the CUTLASS kernel. A plan may name the backend
    /// (`engine_knobs.moe_backend`): TRTLLM keeps the general model; CUTLASS
    /// is priced apart only where it was timed (NVFP4 on Blackwell).
    pub fn of(
        engine: Engine,
        arch: crate::hardware::GpuArch,
        experts: Precision,
        backend: Option<MoeBackend>,
    ) -> MoeKernel {
        match (engine, arch, experts, backend) {
            (
                Engine::TrtLlm,
                crate::hardware::GpuArch::Blackwell,
                Precision::Nvfp4,
                None | Some(MoeBackend::Cutlass),
            ) => MoeKernel::CutlassFp4,
            _ => MoeKernel::General,
        }
    }

    /// The share of the HBM peak the kernel streams expert weights at;
    /// `None`: the general `efficiency.hbm`.
    pub fn stream_fraction(self) -> Option<f64> {
        match self {
            MoeKernel::General => None,
            MoeKernel::CutlassFp4 => Some(0.40),
        }
    }

    /// What one MoE layer's pass costs beyond the general model's fixed
    /// costs, whatever it reads: the CUTLASS backend's 97 µs against the
    /// TRTLLM-Gen backend's 26 µs on the same module (the general model's
    /// router, top-k and grouped-GEMM launches come to about 20–25 µs).
    pub fn fixed_excess(self) -> crate::units::Seconds {
        match self {
            MoeKernel::General => crate::units::Seconds::ZERO,
            MoeKernel::CutlassFp4 => crate::units::Seconds::from_micros(97.0 - 26.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only TensorRT-LLM's default CUTLASS backend with NVFP4 experts on
    /// Blackwell is priced apart; TRTLLM-Gen (SGLang's and vLLM's runner
    /// there, TensorRT-LLM's for MXFP4) and Hopper's kernels stream within
    /// the general figure.
    #[test]
    fn the_experts_kernel_follows_engine_part_and_format() {
        use crate::hardware::GpuArch as A;
        let cutlass = MoeKernel::of(Engine::TrtLlm, A::Blackwell, Precision::Nvfp4, None);
        assert_eq!(cutlass, MoeKernel::CutlassFp4);
        let named = Some(MoeBackend::Cutlass);
        assert_eq!(
            MoeKernel::of(Engine::TrtLlm, A::Blackwell, Precision::Nvfp4, named),
            cutlass
        );
        let gen = Some(MoeBackend::Trtllm);
        assert_eq!(
            MoeKernel::of(Engine::TrtLlm, A::Blackwell, Precision::Nvfp4, gen),
            MoeKernel::General
        );
        assert_eq!(cutlass.stream_fraction(), Some(0.40));
        assert!((cutlass.fixed_excess().base() * 1e6 - 71.0).abs() < 1e-9);
        for (engine, arch, format) in [
            (Engine::TrtLlm, A::Blackwell, Precision::Mxfp4),
            (Engine::TrtLlm, A::Blackwell, Precision::Fp8),
            (Engine::TrtLlm, A::Hopper, Precision::Fp8),
            (Engine::Sglang, A::Blackwell, Precision::Nvfp4),
            (Engine::Vllm, A::Blackwell, Precision::Nvfp4),
            (Engine::Static, A::Blackwell, Precision::Nvfp4),
        ] {
            let k = MoeKernel::of(engine, arch, format, None);
            assert_eq!(k, MoeKernel::General, "{engine:?} {arch:?} {format:?}");
            assert_eq!(k.stream_fraction(), None);
            assert_eq!(k.fixed_excess(), crate::units::Seconds::ZERO);
        }
    }

    #[test]
    fn pools_follow_each_engines_rule() {
        let (t, w, o) = (
            Bytes::from_gib(80.0),
            Bytes::from_gib(20.0),
            Bytes::from_gib(4.0),
        );
        let vllm = KvPoolRule::OfTotal { fraction: 0.9 }.pool(t, w, o);
        assert!((vllm.as_gib() - 48.0).abs() < 1e-9);
        let trt = KvPoolRule::OfFree { fraction: 0.9 }.pool(t, w, o);
        assert!((trt.as_gib() - 50.4).abs() < 1e-9);
        let sgl = KvPoolRule::StaticOfTotal { fraction: 0.85 }.pool(t, w, o);
        assert!((sgl.as_gib() - 48.0).abs() < 1e-9);
        // Never negative.
        let none = KvPoolRule::OfTotal { fraction: 0.1 }.pool(t, w, o);
        assert_eq!(none, Bytes::ZERO);
    }

    #[test]
    fn defaults_depend_on_the_gpu_and_tp() {
        let big = Bytes::from_gib(80.0);
        let small = Bytes::from_gib(24.0);
        let on = |m: Bytes| Deployment::one(m);
        assert_eq!(Engine::Vllm.profile(&on(big)).token_budget, Some(8192));
        assert_eq!(Engine::Vllm.profile(&on(small)).token_budget, Some(2048));
        // vLLM keeps an 80 GB A100 on the small defaults (PR #17885), by
        // name: an A800 is not one.
        assert!(named_a100("NVIDIA A100 SXM4 80GB") && !named_a100("NVIDIA A800 SXM4 80GB"));
        let a100 = Engine::Vllm.profile(&Deployment {
            a100: true,
            ..on(big)
        });
        assert_eq!((a100.token_budget, a100.max_seqs), (Some(2048), 256));
        let h100 = Engine::Vllm.profile(&on(big));
        assert_eq!((h100.token_budget, h100.max_seqs), (Some(8192), 1024));
        let tp8 = Deployment { tp: 8, ..on(big) };
        assert!(matches!(
            Engine::Sglang.profile(&tp8).pool,
            KvPoolRule::StaticOfTotal { .. }
        ));
        assert_eq!(Engine::Sglang.profile(&tp8).block_tokens, 1);
        assert_eq!(Engine::TrtLlm.profile(&on(big)).block_tokens, 32);
        assert_eq!(
            Engine::Static
                .profile(&Deployment {
                    batch: 7,
                    ..on(big)
                })
                .max_seqs,
            7
        );
        assert!(!Engine::Static.continuous());
    }

    /// SGLang's memory defaults, worked by hand from
    /// `_handle_gpu_memory_settings` (figures in MiB).
    #[test]
    fn sglang_reserves_by_memory_chunk_graphs_and_ranks() {
        let mib = |m: f64| Bytes::new(m * 1_048_576.0);
        let on = |m: f64| Deployment::one(mib(m));
        // An H100 (81,559 MiB) at TP 8: 512 + 8,192 × 1.5 + 512 × 2 +
        // 1,024 = 14,848 → (81,559 − 14,848) / 81,559 = 0.818.
        let h100 = SglangMemory::of(&Deployment {
            tp: 8,
            ..on(81_559.0)
        });
        assert_eq!((h100.chunk, h100.graph_max_batch), (8192, 512));
        assert_eq!(h100.fraction, 0.818);
        // At TP 1 the reserve is 13,440 and graphs stop at 256: 0.835.
        let one = SglangMemory::of(&on(81_559.0));
        assert_eq!((one.graph_max_batch, one.fraction), (256, 0.835));
        // An H200 (143,771) at TP 8: the same reserve, 0.897.
        assert_eq!(
            SglangMemory::of(&Deployment {
                tp: 8,
                ..on(143_771.0)
            })
            .fraction,
            0.897
        );
        // With attention DP 8 over TP 1: SGLang's TP is 8, and DP adds
        // 512 × 8 × 4.5 = 18,432: 33,280 → 0.769.
        let dp = SglangMemory::of(&Deployment {
            attention_dp: 8,
            ..on(143_771.0)
        });
        assert_eq!(dp.fraction, 0.769);
        // A B200 (183,359): chunks of 16,384, reserve 27,136 → 0.852.
        let b200 = SglangMemory::of(&Deployment {
            tp: 8,
            ..on(183_359.0)
        });
        assert_eq!((b200.chunk, b200.fraction), (16_384, 0.852));
        // An RTX 4090 (24,564) alone: 2,048-token chunks, graphs to 24,
        // 512 + 3,072 + 48 + 128 = 3,760 → 0.847; no 10 GiB floor.
        let rtx = SglangMemory::of(&on(24_564.0));
        assert_eq!(
            (rtx.chunk, rtx.graph_max_batch, rtx.fraction),
            (2048, 24, 0.847)
        );
        // A small model on an A100 40GB at TP 1: 4,096 and graphs to 32.
        assert_eq!(SglangMemory::of(&on(40_960.0)).chunk, 4096);
        // EAGLE heads reserve 2 GiB more; a draft model 6 GiB.
        let heads = SglangMemory::of(&Deployment {
            drafter: Some(Drafter::Heads { layers: 1 }),
            ..on(81_559.0)
        });
        assert_eq!(heads.fraction, 0.810);
        // The profile carries the fraction and the chunk.
        let p = Engine::Sglang.profile(&Deployment {
            tp: 8,
            ..on(81_559.0)
        });
        assert_eq!(p.pool, KvPoolRule::StaticOfTotal { fraction: 0.818 });
        assert_eq!(p.token_budget, Some(8192));
        // Never below nothing on a device smaller than the reserve.
        assert_eq!(SglangMemory::of(&on(2_000.0)).fraction, 0.0);
    }

    #[test]
    fn host_work_adds_when_serial_and_hides_when_overlapped() {
        use crate::units::Seconds;
        let h = HostCost {
            per_step: Seconds::from_millis(4.0),
            per_sequence: Seconds::from_micros(35.0),
            overlap: HostOverlap::Serial,
        };
        // 4 ms + 20 × 35 µs = 4.7 ms after a 10 ms GPU step.
        assert!((h.iteration(0.010, 20.0, 1.0) - 0.0147).abs() < 1e-12);
        // Ten steps share one scheduling.
        assert!((h.iteration(0.010, 20.0, 10.0) - 0.01047).abs() < 1e-12);
        let o = HostCost {
            overlap: HostOverlap::Overlapped,
            ..h
        };
        assert_eq!(o.iteration(0.010, 20.0, 1.0), 0.010);
        assert!((o.iteration(0.001, 20.0, 1.0) - 0.0047).abs() < 1e-12);
        assert_eq!(Engine::Static.host().iteration(0.01, 100.0, 1.0), 0.01);
        // Each engine's default as documented on `Engine::host`.
        assert_eq!(Engine::VllmV0.host().overlap, HostOverlap::Serial);
        assert_eq!(Engine::Sglang.host().overlap, HostOverlap::Overlapped);
        assert_eq!(
            Engine::VllmV0
                .profile(&Deployment::one(Bytes::from_gib(80.0)))
                .batching,
            Batching::PrefillFirst
        );
    }

    /// SGLang prefills first unless told to mix (`--enable-mixed-chunk`);
    /// vLLM V1 and TensorRT-LLM mix.
    #[test]
    fn each_engine_meets_prompts_its_own_way() {
        let big = Bytes::from_gib(80.0);
        let sglang = Engine::Sglang.profile(&Deployment::one(big));
        assert_eq!(sglang.batching, Batching::PrefillFirst);
        let mixed = EngineKnobs {
            batching: Some(Batching::Mixed),
            ..EngineKnobs::default()
        };
        assert_eq!(sglang.with_knobs(&mixed).batching, Batching::Mixed);
        for e in [Engine::Vllm, Engine::TrtLlm] {
            assert_eq!(
                e.profile(&Deployment::one(big)).batching,
                Batching::Mixed,
                "{e:?}"
            );
        }
    }

    #[test]
    fn expected_tokens_follow_leviathan() {
        let s = |k, a| Speculation {
            drafter: Drafter::Heads { layers: 1 },
            tokens: k,
            acceptance: a,
        };
        assert!((s(0, 0.8).expected_tokens() - 1.0).abs() < 1e-12);
        assert!((s(3, 0.0).expected_tokens() - 1.0).abs() < 1e-12);
        assert!((s(3, 1.0).expected_tokens() - 4.0).abs() < 1e-12);
        // 1 + α + α² + α³ at α = 0.5.
        assert!((s(3, 0.5).expected_tokens() - 1.875).abs() < 1e-12);
        let mut last = 0.0;
        for i in 0..=20 {
            let e = s(4, f64::from(i) / 20.0).expected_tokens();
            assert!(e >= last);
            last = e;
        }
    }

    /// Each server's front end lies inside the span its sources leave, and
    /// an engine without a server has none.
    #[test]
    fn front_ends_lie_inside_their_sources_span() {
        for e in Engine::ALL {
            let (f, (lo, hi)) = (e.front_end(), e.front_end_span());
            assert!(lo <= f && f <= hi, "{e:?}");
            assert_eq!(
                f.as_secs() == 0.0,
                !e.continuous(),
                "{e:?}: a front end only where a server is"
            );
        }
    }
}
