//! Serving items in the words of the plan's engine: its own switch for
//! each lever, how it pages the KV cache and where it states its pool
//! (issue 15, finding 8: a serving plan's checklist asked for a
//! load-balancing loss and a Transformer Engine FP8 recipe, training
//! advice).
//!
//! Switches as each engine documents them: vLLM's serving arguments
//! (`--tensor-parallel-size`, `--pipeline-parallel-size`,
//! `--enable-expert-parallel` with `--data-parallel-size`, docs.vllm.ai
//! "Data Parallel Deployment" and "Expert Parallel Deployment";
//! `--kv-cache-dtype`, `--quantization fp8`, `--block-size`,
//! `--gpu-memory-utilization`); SGLang's server arguments (`--tp-size`,
//! `--pp-size`, `--ep-size`, `--enable-dp-attention` with `--dp-size`,
//! `--kv-cache-dtype`, `--quantization fp8`, `--page-size`,
//! `--mem-fraction-static`; docs.sglang.io "Server Arguments");
//! TensorRT-LLM's LLM API options, also the keys of a `trtllm-serve
//! --config` file (`tensor_parallel_size`, `pipeline_parallel_size`,
//! `moe_expert_parallel_size`, `enable_attention_dp`,
//! `kv_cache_config.dtype`, `kv_cache_config.tokens_per_block`,
//! `kv_cache_config.free_gpu_memory_fraction`; "Parallelism in
//! TensorRT LLM"); transformers' `from_pretrained(tp_plan="auto")`,
//! `DistributedConfig(enable_expert_parallel=True)` and
//! `FineGrainedFP8Config` (transformers docs, "Expert parallelism",
//! "Tensor parallelism").

use super::{draft, t, Category as C, Draft};
use crate::engine::Engine;
use crate::plan::{Plan, Workload};

/// An engine's own switch for each lever, untranslated (they are code).
pub(super) struct Switches {
    /// The engine's name in a sentence.
    pub name: &'static str,
    /// Tensor parallelism, followed by the degree.
    pub tp: &'static str,
    /// Pipeline parallelism, followed by the degree; `None` where the
    /// engine has none.
    pub pp: Option<&'static str>,
    /// Expert parallelism, and data-parallel attention beside it, in
    /// English and Chinese.
    pub ep: (&'static str, &'static str),
    /// The KV-cache format.
    pub kv_format: &'static str,
    /// FP8 GEMMs, in English and Chinese.
    pub fp8: (&'static str, &'static str),
    /// How it pages the KV cache and the switch for the page size,
    /// followed by the size, in English and Chinese.
    pub pages: (&'static str, &'static str),
    /// What shows a full pool, in English and Chinese.
    pub full_pool: (&'static str, &'static str),
    /// The memory setting that sizes the KV pool.
    pub memory: &'static str,
    /// The start-up log line that states the pool.
    pub pool_log: Option<&'static str>,
}

/// The switches of `engine`.
pub(super) fn switches(engine: Engine) -> Switches {
    match engine {
        Engine::Vllm | Engine::VllmV0 => Switches {
            name: "vLLM",
            tp: "--tensor-parallel-size",
            pp: Some("--pipeline-parallel-size"),
            ep: (
                "--enable-expert-parallel, with --data-parallel-size for data-parallel attention",
                "--enable-expert-parallel；数据并行注意力另加 --data-parallel-size",
            ),
            kv_format: "--kv-cache-dtype",
            fp8: ("--quantization fp8, or an FP8 checkpoint", "--quantization fp8，或 FP8 检查点"),
            pages: ("vLLM PagedAttention, --block-size", "vLLM PagedAttention，--block-size"),
            full_pool: ("vllm:num_preemptions", "vllm:num_preemptions"),
            memory: "--gpu-memory-utilization",
            pool_log: Some("\"GPU KV cache size: … tokens\""),
        },
        Engine::Sglang => Switches {
            name: "SGLang",
            tp: "--tp-size",
            pp: Some("--pp-size"),
            ep: (
                "--ep-size, with --enable-dp-attention --dp-size for data-parallel attention",
                "--ep-size；数据并行注意力另加 --enable-dp-attention --dp-size",
            ),
            kv_format: "--kv-cache-dtype",
            fp8: ("--quantization fp8, or an FP8 checkpoint", "--quantization fp8，或 FP8 检查点"),
            pages: ("SGLang's token pool, --page-size", "SGLang 的 token 池，--page-size"),
            full_pool: (
                "retracted requests in the scheduler's log",
                "调度器日志中被撤回（retract）的请求",
            ),
            memory: "--mem-fraction-static",
            pool_log: Some("\"KV Cache is allocated. #tokens: …\""),
        },
        Engine::TrtLlm => Switches {
            name: "TensorRT-LLM",
            tp: "tensor_parallel_size",
            pp: Some("pipeline_parallel_size"),
            ep: (
                "moe_expert_parallel_size, with enable_attention_dp for data-parallel attention",
                "moe_expert_parallel_size；数据并行注意力另加 enable_attention_dp",
            ),
            kv_format: "kv_cache_config.dtype",
            fp8: (
                "an FP8 checkpoint from TensorRT Model Optimizer",
                "用 TensorRT Model Optimizer 生成的 FP8 检查点",
            ),
            pages: (
                "TensorRT-LLM's paged KV cache, kv_cache_config.tokens_per_block",
                "TensorRT-LLM 分页 KV 缓存，kv_cache_config.tokens_per_block",
            ),
            full_pool: (
                "requests queued for KV blocks: its default scheduler admits a request only when its blocks are guaranteed",
                "排队等待 KV 块的请求：其默认调度器只在块有保证时才接纳请求",
            ),
            memory: "kv_cache_config.free_gpu_memory_fraction",
            pool_log: Some("\"… for max tokens in paged KV cache (…)\""),
        },
        Engine::HfTransformers => Switches {
            name: "transformers",
            tp: "from_pretrained(tp_plan=\"auto\"), launched by torchrun --nproc-per-node",
            pp: None,
            ep: (
                "DistributedConfig(enable_expert_parallel=True)",
                "DistributedConfig(enable_expert_parallel=True)",
            ),
            kv_format: "generate(cache_implementation=\"quantized\")",
            fp8: ("FineGrainedFP8Config, or an FP8 checkpoint", "FineGrainedFP8Config，或 FP8 检查点"),
            pages: ("a paged cache, block size", "分页缓存，块大小"),
            full_pool: (
                "out-of-memory errors: a static batch is not preempted",
                "显存溢出错误：静态批次不会被抢占",
            ),
            memory: "torch.cuda.set_per_process_memory_fraction",
            pool_log: None,
        },
        Engine::Static => Switches {
            name: "the serving engine",
            tp: "vLLM --tensor-parallel-size, SGLang --tp-size or TensorRT-LLM tensor_parallel_size, set to",
            pp: Some("vLLM --pipeline-parallel-size, SGLang --pp-size or TensorRT-LLM pipeline_parallel_size, set to"),
            ep: (
                "vLLM --enable-expert-parallel, SGLang --ep-size or TensorRT-LLM moe_expert_parallel_size",
                "vLLM --enable-expert-parallel、SGLang --ep-size 或 TensorRT-LLM moe_expert_parallel_size",
            ),
            kv_format: "vLLM or SGLang --kv-cache-dtype, TensorRT-LLM kv_cache_config.dtype",
            fp8: (
                "vLLM or SGLang --quantization fp8, or an FP8 checkpoint",
                "vLLM 或 SGLang 的 --quantization fp8，或 FP8 检查点",
            ),
            pages: ("vLLM PagedAttention, block size", "vLLM PagedAttention，块大小"),
            full_pool: ("vLLM num_preemptions", "vLLM num_preemptions"),
            memory: "vLLM --gpu-memory-utilization",
            pool_log: None,
        },
    }
}

/// The engine of a serving plan; `None` for training.
pub(super) fn serving_engine(plan: &Plan) -> Option<Engine> {
    match plan.workload {
        Workload::Inference(_) => Some(plan.levers.engine),
        Workload::Training(_) => None,
    }
}

/// Tensor parallelism in the engine.
pub(super) fn tp_item(engine: Engine, tp: u32) -> Draft {
    let s = switches(engine);
    let flag = s.tp;
    draft(
        "tp.engine",
        C::FrameworkSupport,
        t(
            format!("Serve with tensor parallelism over {tp} GPUs ({flag} {tp})."),
            format!("以 {tp} 块 GPU 的张量并行提供服务（{flag} {tp}）。"),
        ),
        t(
            format!("The plan splits every layer over TP = {tp} GPUs."),
            format!("方案把每一层切分到 TP = {tp} 块 GPU 上。"),
        ),
    )
}

/// Pipeline parallelism in the engine, and its network.
pub(super) fn pp_items(engine: Engine, pp: u32) -> Vec<Draft> {
    let s = switches(engine);
    let setting = match s.pp {
        Some(flag) => t(
            format!("Serve the model in {pp} pipeline stages ({flag} {pp}) and keep enough requests in flight to fill them."),
            format!("把模型分成 {pp} 个流水线阶段提供服务（{flag} {pp}），并保持足够多的在途请求以填满各阶段。"),
        ),
        None => t(
            format!("{} has no pipeline-parallel serving: serve the {pp} stages with an engine that has (vLLM --pipeline-parallel-size, SGLang --pp-size or TensorRT-LLM pipeline_parallel_size).", s.name),
            format!("{} 不支持流水线并行推理：请改用支持它的引擎来运行这 {pp} 个阶段（vLLM --pipeline-parallel-size、SGLang --pp-size 或 TensorRT-LLM pipeline_parallel_size）。", s.name),
        ),
    };
    vec![
        draft(
            "pp.engine",
            C::FrameworkSupport,
            setting,
            t(
                format!("The plan runs PP = {pp} stages."),
                format!("方案使用 PP = {pp} 级流水线。"),
            ),
        ),
        draft(
            "pp.network",
            C::Infrastructure,
            t(
                "Check the point-to-point bandwidth between consecutive stages, across nodes where stages span them.",
                "检查相邻流水线阶段之间的点对点带宽，阶段跨节点时尤其要检查。",
            ),
            t(
                "Every iteration's activations cross each stage boundary.",
                "每次迭代的激活都要跨越各个阶段边界。",
            ),
        ),
    ]
}

/// Expert parallelism in the engine.
pub(super) fn ep_item(engine: Engine, ep: u32) -> Draft {
    let (en, zh) = switches(engine).ep;
    draft(
        "ep.engine",
        C::FrameworkSupport,
        t(
            format!("Serve the experts over {ep} ranks ({en}) and check the engine's all-to-all backend on these GPUs."),
            format!("把专家分布到 {ep} 个 rank 上提供服务（{zh}），并在这些 GPU 上检查引擎的 all-to-all 后端。"),
        ),
        t(
            format!("The plan spreads experts over EP = {ep} ranks."),
            format!("方案把专家分布到 EP = {ep} 个 rank 上。"),
        ),
    )
}

/// FP8 GEMMs in the engine, and the accuracy check before traffic moves.
pub(super) fn fp8_items(engine: Engine, gpu: &str, format: &str) -> Vec<Draft> {
    let (en, zh) = switches(engine).fp8;
    vec![
        draft(
            "fp8.engine",
            C::FrameworkSupport,
            t(
                format!("Run the GEMMs in FP8 on {gpu} ({en}), and confirm the GPU has FP8 tensor cores."),
                format!("在 {gpu} 上以 FP8 运行 GEMM（{zh}），并确认该 GPU 具备 FP8 张量核心。"),
            ),
            t(
                format!("The plan computes GEMMs in {format}."),
                format!("方案以 {format} 计算 GEMM。"),
            ),
        ),
        draft(
            "fp8.accuracy",
            C::Monitoring,
            t(
                "Compare the FP8 model's answers with the BF16 model's on your evaluation set before switching traffic.",
                "在切换流量前，用你的评测集对比 FP8 模型与 BF16 模型的回答。",
            ),
            t(
                "Narrow formats can change the model's outputs.",
                "更窄的数值格式可能改变模型的输出。",
            ),
        ),
    ]
}

/// The KV-cache format in the engine.
pub(super) fn kv_format_item(engine: Engine, format: &str) -> Draft {
    let flag = switches(engine).kv_format;
    draft(
        "quant.kv",
        C::FrameworkSupport,
        t(
            format!(
                "Set the KV-cache format to {format} ({flag}) and check accuracy on long prompts."
            ),
            format!("把 KV 缓存格式设为 {format}（{flag}），并在长提示上检查精度。"),
        ),
        t(
            "The plan narrows the KV cache.",
            "方案压缩了 KV 缓存的数值格式。",
        ),
    )
}
