//! From a [`Plan`] as written to the numbers the model works with: catalog
//! ids looked up, pruning applied, every input checked. Bad values become
//! diagnostics and are replaced by safe ones, so evaluation never panics.

use crate::catalog;
use crate::diagnostics::{Diagnostic, DiagnosticKind as K, IgnoredLever};
use crate::economics::{self, Economics, Pricing};
use crate::efficiency::Efficiency;
use crate::hardware::{CxlChoice, GpuArch, GpuChoice, GpuSpec, Hardware};
use crate::model::{ModelSpec, ParamCounts};
use crate::partition::{micro_batch_count, Partition, Split};
use crate::plan::{
    Checkpointing, Inference, Levers, LogitsScope, ModelChoice, Overheads, PipelineSchedule, Plan,
    Pruning, SequenceParallel, Sharding, Tier, Training, TrainingKind, Workload,
};
use crate::precision::Precision;
use crate::units::{ByteRate, Bytes, Seconds, Usd};

/// The workload, resolved.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Work {
    Train {
        kind: TrainingKind,
        seq: u32,
        /// Micro-batches per step per data-parallel rank.
        micro_batches: u32,
    },
    Infer {
        prompt: u32,
        output: u32,
        batch: u32,
        logits: LogitsScope,
    },
}

/// Everything evaluation needs, checked and defaulted.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Resolved {
    /// The pipeline partition (stages, parameters per device, weight bytes,
    /// adapters), computed once from the fields below; see
    /// [`Resolved::repartition`].
    pub split: Split,
    pub spec: ModelSpec,
    pub params: ParamCounts,
    /// The GPU as it runs: under a power limit its tensor rates are the
    /// clock-scaled ones and its `tdp` the limit.
    pub gpu: GpuSpec,
    /// The fraction of its rated clock the GPU keeps under the plan's
    /// power limit (1 without one); MFU stays against the rated peak.
    pub power_clock: f64,
    /// Whether the GPU's name says A100, the test vLLM keys its smaller
    /// batch defaults on (`Engine::profile`).
    pub gpu_named_a100: bool,
    pub levers: Levers,
    pub overheads: Overheads,
    pub work: Work,
    pub tp: u32,
    pub pp: u32,
    pub dp: u32,
    pub cp: u32,
    pub ep: u32,
    /// Model chunks per device (1 unless interleaved).
    pub chunks: u32,
    /// Capacity per GPU of each tier, in `Tier::ALL` order.
    pub capacity: [Bytes; 4],
    /// Tokens to train on (0 when not given or serving).
    pub tokens: f64,
    /// Calibration knobs: the training stack's, with the plan's stated
    /// ones over them.
    pub eff: Efficiency,
    /// What the time model reads from the training stack in force on this
    /// GPU (the plan's stack, or the mainstream one; none when serving).
    pub factors: crate::stack::StackFactors,
    /// When the training stack allocates gradients and optimizer states
    /// (lazy when serving: nothing is allocated for them).
    pub state_allocation: crate::stack::StateAllocation,
    /// Cluster shape and link rates.
    pub net: Net,
    /// The distillation that produced the model, if any (the model in
    /// `spec` is then the student).
    pub distill: Option<Distill>,
}

/// Cluster shape and the bandwidths the time model uses, per GPU and per
/// direction (peaks; efficiencies apply later).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Net {
    pub gpus: u32,
    /// GPUs in one scale-up domain.
    pub domain: u32,
    /// Scale-up link per GPU (0 when the part has none: PCIe peer copies
    /// then go through the host link).
    pub scale_up: ByteRate,
    /// Scale-out bandwidth per GPU (NIC rate × NICs per node / GPUs per node).
    pub scale_out: ByteRate,
    /// GPU–host link.
    pub host_link: ByteRate,
    /// Host DRAM bandwidth per GPU (node bandwidth / GPUs per node).
    pub host_memory: ByteRate,
    /// CXL bandwidth per GPU (expanders and pool).
    pub cxl: ByteRate,
    /// Load-to-use latency of the CXL tier: the slower of the expanders'
    /// and the pool's, since a copy striped over both waits for the last.
    pub cxl_latency: Seconds,
    /// NVMe bandwidth per GPU.
    pub nvme: ByteRate,
}

impl<'a> From<&'a Resolved> for Partition<'a> {
    #[inline]
    fn from(r: &'a Resolved) -> Self {
        Partition {
            spec: &r.spec,
            params: &r.params,
            tp: r.tp,
            pp: r.pp,
            ep: r.ep,
            etp: r.etp(),
            training: match r.work {
                Work::Train { kind, .. } => Some(kind),
                Work::Infer { .. } => None,
            },
            weights: r.levers.precision.weights,
            experts: r.levers.precision.expert_weights(),
            mxfp4_layout: match r.work {
                Work::Train { .. } => crate::engine::Mxfp4Layout::Checkpoint,
                Work::Infer { .. } => crate::engine::Mxfp4Layout::of(r.levers.engine, r.gpu.arch),
            },
            pruning: r.levers.pruning,
            // Serving runs no pipeline schedule: its stages keep the ends
            // apart whatever the lever says.
            schedule: match r.work {
                Work::Train { .. } => r.levers.parallel.schedule,
                Work::Infer { .. } => crate::plan::PipelineSchedule::OneFOneB,
            },
        }
    }
}

impl Resolved {
    /// The serving engine's defaults with the plan's knobs over them, its
    /// token budget the resolved prefill chunk (resolve puts the engine's
    /// default there). `batch` is the static batch (the Static engine's
    /// running limit).
    pub(crate) fn engine_profile(&self, batch: u32) -> crate::engine::EngineProfile {
        let d = deployment(
            &self.levers,
            self.gpu.device_memory(),
            self.gpu_named_a100,
            batch,
        );
        let mut p = self
            .levers
            .engine
            .profile(&d)
            .with_knobs(&self.levers.engine_knobs);
        p.token_budget = self.levers.prefill_chunk;
        p
    }

    /// Tensor-parallel degree inside each routed expert: `levers.moe.expert_tp`
    /// (checked to divide TP), else TP.
    #[inline]
    pub fn etp(&self) -> u32 {
        expert_tp(&self.levers, self.tp)
    }

    /// The kernel the serving engine runs the routed experts with
    /// ([`experts_kernel`]).
    #[inline]
    pub(crate) fn moe_kernel(&self) -> crate::engine::MoeKernel {
        experts_kernel(&self.work, &self.levers, self.gpu.arch)
    }

    /// Bytes a second the routed experts' grouped GEMMs stream their
    /// weights and activations at: the MoE kernel's measured rate where it
    /// departs from the general `efficiency.hbm`.
    #[inline]
    pub(crate) fn expert_stream_rate(&self) -> f64 {
        let fraction = self.moe_kernel().stream_fraction();
        self.gpu.memory_bandwidth.base() * fraction.unwrap_or(self.eff.hbm)
    }

    /// Recomputes the partition after the degrees, the weight format or
    /// the model changed.
    #[inline]
    pub fn repartition(&mut self) {
        self.split = Split::of(&*self);
    }

    pub fn sp(&self) -> bool {
        self.levers.parallel.sequence_parallel == SequenceParallel::On && self.tp > 1
    }

    pub fn capacity(&self, tier: Tier) -> Bytes {
        self.capacity[tier_index(tier)]
    }
}

pub(crate) fn tier_index(t: Tier) -> usize {
    match t {
        Tier::Hbm => 0,
        Tier::Cxl => 1,
        Tier::HostDram => 2,
        Tier::Nvme => 3,
    }
}

/// Names of the model and GPU, for the report.
pub(crate) struct Names {
    /// The model that runs (the student when distilling).
    pub model: String,
    pub gpu: String,
    /// The teacher, when distilling.
    pub teacher: Option<String>,
}

/// A distillation, resolved: the teacher's shape and the token budget.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Distill {
    pub teacher: ModelSpec,
    pub tokens: f64,
}

/// A model's shape and display name.
fn model_of(m: &ModelChoice) -> (ModelSpec, String) {
    match m {
        ModelChoice::Preset(id) => {
            let e = catalog::model(*id);
            (e.spec, e.name.to_string())
        }
        ModelChoice::Custom(m) => (
            m.spec,
            if m.name.is_empty() {
                "custom model".to_string()
            } else {
                m.name.clone()
            },
        ),
    }
}

/// The largest amount of memory any one field may give: 1 EB (10^18
/// bytes), a thousand times a whole GB200 NVL72 rack's HBM and host
/// memory. Past it a sum of a few such fields (a tier's use, its range's
/// upper end) could overflow to infinity.
pub const MAX_MEMORY_BYTES: f64 = 1e18;

struct Checker {
    diags: Vec<Diagnostic>,
}

impl Checker {
    /// A count that must be ≥ 1; returns 1 when it is not.
    fn count(&mut self, field: &str, v: u32) -> u32 {
        if v == 0 {
            self.diags.push(Diagnostic::error(K::InvalidValue {
                field: field.to_string(),
                problem: "must be at least 1".into(),
            }));
            1
        } else {
            v
        }
    }

    /// A count that must lie in 1..=`max`: 1 below, `max` above (an
    /// absurd dimension would make evaluation walk billions of layers).
    fn bounded(&mut self, field: &str, v: u32, max: u32) -> u32 {
        let v = self.count(field, v);
        if v > max {
            self.diags.push(Diagnostic::error(K::InvalidValue {
                field: field.to_string(),
                problem: format!("{v} is beyond the largest this planner takes ({max})"),
            }));
            max
        } else {
            v
        }
    }

    /// A byte amount that must be finite, ≥ 0 (or > 0 when `positive`)
    /// and at most [`MAX_MEMORY_BYTES`].
    fn bytes(&mut self, field: &str, v: Bytes, positive: bool) -> Bytes {
        let b = v.base();
        let bad = !b.is_finite() || b < 0.0 || (positive && b == 0.0) || b > MAX_MEMORY_BYTES;
        if bad {
            self.diags.push(Diagnostic::error(K::InvalidValue {
                field: field.to_string(),
                problem: format!(
                    "must be a finite {} amount of memory of at most 1 EB (10^18 bytes), got {}",
                    if positive { "positive" } else { "non-negative" },
                    short_number(b)
                ),
            }));
            Bytes::ZERO
        } else {
            v
        }
    }

    /// A fraction in 0..=1.
    fn fraction(&mut self, field: &str, v: f64, fallback: f64) -> f64 {
        if v.is_finite() && (0.0..=1.0).contains(&v) {
            v
        } else {
            self.diags.push(Diagnostic::error(K::InvalidValue {
                field: field.to_string(),
                problem: format!("must be a fraction between 0 and 1, got {v}"),
            }));
            fallback
        }
    }

    /// A rate (bytes/s, FLOP/s, watts, tokens): finite, and 0 or at
    /// least 1 in its base unit. A subnormal rate such as 5e-324 B/s
    /// would make a time computed over it overflow to infinity.
    fn rate(&mut self, field: &str, v: f64) -> bool {
        let bad = !v.is_finite() || v < 0.0 || (v > 0.0 && v < 1.0);
        if bad {
            self.diags.push(Diagnostic::error(K::InvalidValue {
                field: field.to_string(),
                problem: format!(
                    "must be finite and either 0 or at least 1 (a byte or FLOP a second), got {}",
                    short_number(v)
                ),
            }));
        }
        !bad
    }

    /// A load-to-use latency: finite, non-negative and at most
    /// [`MAX_FIXED_COST_S`]; 0 when it is not.
    fn latency(&mut self, field: &str, v: Seconds) -> f64 {
        let s = v.base();
        if s.is_finite() && (0.0..=MAX_FIXED_COST_S).contains(&s) {
            s
        } else {
            self.diags.push(Diagnostic::error(K::InvalidValue {
                field: field.to_string(),
                problem: format!(
                    "must be between 0 and {MAX_FIXED_COST_S} s (a memory's load-to-use latency is nanoseconds to microseconds), got {}",
                    short_number(s)
                ),
            }));
            0.0
        }
    }

    fn push(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }
}

/// Checks a model's shape; `at` names it in messages (`model`,
/// `distillation.student`).
/// The largest model dimensions the planner takes: one to three orders of
/// magnitude past any published model (the deepest, Megatron's 1T, has 128
/// layers; the widest hidden sizes are tens of thousands; vocabularies are
/// a few hundred thousand; contexts reach ten million tokens), so that
/// every real model passes and a typo or a hostile link cannot make
/// evaluation walk billions of layers.
pub(crate) const MAX_LAYERS: u32 = 100_000;
/// See [`MAX_LAYERS`]: tokens a training run may cover, about 300× the
/// largest published pre-training corpus (Qwen3, 36 T tokens; Qwen3
/// technical report, arXiv:2505.09388 §3), so that time and cost stay far
/// from overflow.
pub(crate) const MAX_TRAINING_TOKENS: f64 = 1e16;
/// See [`MAX_LAYERS`]: hidden, FFN and per-head widths.
pub(crate) const MAX_WIDTH: u32 = 1_000_000;
/// See [`MAX_LAYERS`]: attention heads and routed experts.
pub(crate) const MAX_HEADS: u32 = 100_000;
/// See [`MAX_LAYERS`]: vocabulary entries.
pub(crate) const MAX_VOCAB: u32 = 10_000_000;
/// See [`MAX_LAYERS`]: tokens of context, sequence or prompt.
pub(crate) const MAX_TOKENS: u32 = 100_000_000;

fn check_spec(c: &mut Checker, s: &mut ModelSpec, at: &str) {
    s.layers = c.bounded(&format!("{at}.layers"), s.layers, MAX_LAYERS);
    s.hidden = c.bounded(&format!("{at}.hidden"), s.hidden, MAX_WIDTH);
    s.heads = c.bounded(&format!("{at}.heads"), s.heads, MAX_HEADS);
    s.kv_heads = c.bounded(&format!("{at}.kv_heads"), s.kv_heads, MAX_HEADS);
    s.head_dim = c.bounded(&format!("{at}.head_dim"), s.head_dim, MAX_WIDTH);
    s.ffn = c.bounded(&format!("{at}.ffn"), s.ffn, MAX_WIDTH);
    s.vocab = c.bounded(&format!("{at}.vocab"), s.vocab, MAX_VOCAB);
    s.max_context = c.bounded(&format!("{at}.max_context"), s.max_context, MAX_TOKENS);
    if s.kv_heads > s.heads {
        c.push(Diagnostic::error(K::InvalidValue {
            field: format!("{at}.kv_heads"),
            problem: format!("{} KV heads exceed {} query heads", s.kv_heads, s.heads),
        }));
        s.kv_heads = s.heads;
    }
    if let Some(w) = s.sliding_window {
        if w == 0 {
            c.push(Diagnostic::error(K::InvalidValue {
                field: format!("{at}.sliding_window"),
                problem: "must be at least 1 token".into(),
            }));
            s.sliding_window = None;
        }
    }
    if let Some(n) = s.windowed_layers {
        let problem = if s.sliding_window.is_none() {
            Some("needs a sliding_window".to_string())
        } else if n == 0 || n > s.layers {
            Some(format!("must be 1 to the {} layers", s.layers))
        } else {
            None
        };
        if let Some(problem) = problem {
            c.push(Diagnostic::error(K::InvalidValue {
                field: format!("{at}.windowed_layers"),
                problem,
            }));
            s.windowed_layers = None;
        }
    }
    if let Some(m) = s.moe.as_mut() {
        m.experts = c.bounded(&format!("{at}.moe.experts"), m.experts, MAX_HEADS);
        m.top_k = c.count(&format!("{at}.moe.top_k"), m.top_k);
        m.expert_ffn = c.bounded(&format!("{at}.moe.expert_ffn"), m.expert_ffn, MAX_WIDTH);
        m.shared_ffn = m.shared_ffn.min(MAX_WIDTH);
        m.dense_layers = m.dense_layers.min(s.layers);
        if m.top_k > m.experts {
            c.push(Diagnostic::error(K::InvalidValue {
                field: format!("{at}.moe.top_k"),
                problem: format!("top-{} of {} experts", m.top_k, m.experts),
            }));
            m.top_k = m.experts;
        }
    }
    if let crate::model::AttentionKind::Mla(m) = &mut s.attention {
        m.kv_lora_rank = c.bounded(
            &format!("{at}.attention.mla.kv_lora_rank"),
            m.kv_lora_rank,
            MAX_WIDTH,
        );
        m.qk_nope_head_dim = c.bounded(
            &format!("{at}.attention.mla.qk_nope_head_dim"),
            m.qk_nope_head_dim,
            MAX_WIDTH,
        );
        m.v_head_dim = c.bounded(
            &format!("{at}.attention.mla.v_head_dim"),
            m.v_head_dim,
            MAX_WIDTH,
        );
        m.q_lora_rank = m.q_lora_rank.min(MAX_WIDTH);
        m.qk_rope_head_dim = m.qk_rope_head_dim.min(MAX_WIDTH);
    }
}

fn apply_pruning(c: &mut Checker, s: &mut ModelSpec, p: Pruning) {
    if let Pruning::Shape(shape) = p {
        let keep = |c: &mut Checker, field: &str, orig: u32, new: Option<u32>| match new {
            Some(v) if v == 0 || v > orig => {
                c.push(Diagnostic::error(K::InvalidValue {
                    field: field.to_string(),
                    problem: format!("a pruned size must be between 1 and the original {orig}"),
                }));
                orig
            }
            Some(v) => v,
            None => orig,
        };
        s.layers = keep(c, "levers.pruning.shape.layers", s.layers, shape.layers);
        s.hidden = keep(c, "levers.pruning.shape.hidden", s.hidden, shape.hidden);
        s.heads = keep(c, "levers.pruning.shape.heads", s.heads, shape.heads);
        s.kv_heads = keep(
            c,
            "levers.pruning.shape.kv_heads",
            s.kv_heads,
            shape.kv_heads,
        )
        .min(s.heads);
        s.ffn = keep(c, "levers.pruning.shape.ffn", s.ffn, shape.ffn);
    }
}

/// Resolves and checks a plan.
pub(crate) fn resolve(plan: &Plan) -> (Resolved, Names, Vec<Diagnostic>) {
    let mut c = Checker { diags: Vec::new() };
    let models = resolve_models(&mut c, plan);
    let mut spec = models.spec;
    // Found once: with no stack named it is the first that runs the levers.
    let stack = plan.training_stack();
    let mut levers = levers_in_stack(plan, stack);
    apply_pruning(&mut c, &mut spec, levers.pruning);
    let params = spec.params();
    let (gpu, gpu_name, power_clock) = resolve_gpu(&mut c, plan);
    let gpu_named_a100 = crate::engine::named_a100(&gpu_name);
    let hw = &plan.hardware;
    let cluster = resolve_cluster(&mut c, hw, &gpu);
    let eff = check_efficiency(&mut c, plan.efficiency_in_force());
    if let Workload::Inference(_) = plan.workload {
        apply_engine(&mut c, &mut levers, &gpu, gpu_named_a100);
    }
    let hbm = capped_hbm(&mut c, &mut levers, &gpu);
    let overheads = check_overheads(&mut c, plan.overheads);
    let d = resolve_degrees(&mut c, &mut levers);
    check_moe(
        &mut c,
        &spec,
        d,
        &mut levers,
        matches!(plan.workload, Workload::Training(_)),
    );
    check_degrees(
        &mut c,
        &spec,
        d,
        cluster.net.gpus,
        hw.scale_up_gpus().max(1),
        &levers,
    );
    check_stack(&mut c, plan, stack);
    let work = match &plan.workload {
        Workload::Training(t) => resolve_training(&mut c, t, &spec, d, &levers),
        Workload::Inference(i) => resolve_inference(&mut c, i, &spec, &levers),
    };
    // Offload targets must exist and be fractions.
    let caps = [
        hbm,
        cluster.cxl,
        cluster.host / cluster.node_share,
        cluster.nvme / cluster.node_share,
    ];
    check_offload(&mut c, &mut levers, &caps);
    drop_dense_expert_levers(&mut c, &mut levers, &spec);
    check_kv_tier(&mut c, &mut levers, &caps);
    check_other_levers(&mut c, &mut levers, &gpu, &gpu_name);
    check_bf16_units(&mut c, &plan.workload, &levers, &gpu, &gpu_name);
    check_flash_units(&mut c, &levers, &gpu, &gpu_name);
    check_experts_kernel(&mut c, &mut levers, &spec, &work, gpu.arch);
    check_disaggregation(&mut c, plan, &levers, &gpu, cluster.net);
    let factors = stack_factors(plan, stack, &levers, &spec, gpu.arch);

    let mut resolved = Resolved {
        split: Split::EMPTY,
        spec,
        params,
        gpu_named_a100,
        power_clock,
        gpu,
        levers,
        overheads,
        work,
        tp: d.tp,
        pp: d.pp,
        dp: d.dp,
        cp: d.cp,
        ep: d.ep,
        chunks: d.chunks,
        capacity: caps,
        tokens: match &plan.workload {
            Workload::Training(t) if t.tokens.is_finite() && t.tokens > 0.0 => t.tokens,
            _ => 0.0,
        },
        eff,
        factors,
        state_allocation: stack.map_or(crate::stack::StateAllocation::Lazy, |s| {
            s.state_allocation()
        }),
        net: cluster.net,
        distill: models.distill,
    };
    resolved.split = Split::of(&resolved);
    (
        resolved,
        Names {
            model: models.name,
            gpu: gpu_name,
            teacher: models.teacher_name,
        },
        c.diags,
    )
}

/// What the time model reads from the stack in force
/// ([`crate::stack::StackFactors`]): its kernels on the part's
/// architecture, how the host issues them (autocast where 16-bit compute
/// runs over FP32 master weights), and the layer code of the memory stack.
fn stack_factors(
    plan: &Plan,
    stack: Option<crate::stack::TrainingStack>,
    levers: &Levers,
    spec: &ModelSpec,
    arch: crate::hardware::GpuArch,
) -> crate::stack::StackFactors {
    let autocast =
        levers.precision.master.is_some() && levers.precision.compute.bytes_per_element() < 4.0;
    crate::stack::StackFactors::of(
        plan.kernel_stack(),
        arch,
        levers.memory.optimizer_impl,
        stack.map_or_else(|| levers.engine.dispatch(), |s| s.dispatch(autocast)),
        (spec, levers.memory.stack().layer_code()),
    )
}

/// The plan's levers with the stack in force written in: the models
/// downstream read it, named or chosen (serving keeps a named one, to
/// report it ignored), and the memory stack and the loss kernel follow it
/// unless the plan sets them.
fn levers_in_stack(plan: &Plan, stack: Option<crate::stack::TrainingStack>) -> Levers {
    let mut levers = plan.levers;
    if stack.is_some() {
        levers.training_stack = stack;
    }
    if levers.memory.loss == crate::software::LossKernel::StackDefault {
        if let Some(loss) = stack.and_then(crate::stack::TrainingStack::default_loss) {
            levers.memory.loss = loss;
        }
    }
    if levers.memory.stack.is_none() {
        levers.memory.stack = Some(match stack {
            Some(s) => s.memory_stack(),
            // transformers' `generate` runs the Hugging Face layers.
            None if levers.engine == crate::engine::Engine::HfTransformers => {
                crate::software::MemoryStack::HfEager
            }
            None => Default::default(),
        });
    }
    levers
}

/// An expert offload or format, checked first (a bad fraction is refused
/// whatever the model), is dropped with a note where no routed experts
/// exist.
fn drop_dense_expert_levers(c: &mut Checker, levers: &mut Levers, spec: &ModelSpec) {
    if spec.moe.is_none() && levers.offload.experts.take().is_some() {
        c.push(Diagnostic::info(K::LeverIgnored {
            lever: IgnoredLever::ExpertOffloadDense,
        }));
    }
    if spec.moe.is_none() && levers.precision.experts.take().is_some() {
        c.push(Diagnostic::info(K::LeverIgnored {
            lever: IgnoredLever::ExpertFormatDense,
        }));
    }
}

/// The experts' kernel backend is checked, and a note says when the
/// CUTLASS FP4 kernel runs them.
fn check_experts_kernel(
    c: &mut Checker,
    levers: &mut Levers,
    spec: &ModelSpec,
    work: &Work,
    arch: GpuArch,
) {
    check_moe_backend(c, levers, spec.moe.is_some(), arch);
    if spec.moe.is_some()
        && experts_kernel(work, levers, arch) == crate::engine::MoeKernel::CutlassFp4
    {
        c.push(Diagnostic::info(K::CutlassFp4Experts));
    }
}

/// The training stack in force must run the plan's levers
/// (`capability`). A plan that names its stack gets an error when that
/// stack cannot; one that names none is evaluated on the first stack by
/// preference that can, and is told so when that is not the mainstream
/// one; an error when none can.
fn check_stack(c: &mut Checker, plan: &Plan, stack: Option<crate::stack::TrainingStack>) {
    let (Workload::Training(t), Some(stack)) = (&plan.workload, stack) else {
        return;
    };
    let layout = crate::capability::Layout::of(&plan.levers);
    let mainstream = t.kind.mainstream_stack();
    match stack.runs(&layout) {
        Err(reason) => {
            let runs = crate::capability::stacks_that_run(&layout);
            // When none runs them, what each other stack lacks.
            let others = if runs.is_empty() {
                crate::stack::TrainingStack::ALL
                    .into_iter()
                    .filter(|s| *s != stack)
                    .filter_map(|s| s.runs(&layout).err().map(|why| (s, why)))
                    .collect()
            } else {
                Vec::new()
            };
            c.push(Diagnostic::error(K::StackCannotRun {
                stack,
                reason,
                runs,
                others,
            }))
        }
        Ok(()) if plan.levers.training_stack.is_none() && stack != mainstream => {
            if let Err(reason) = mainstream.runs(&layout) {
                c.push(Diagnostic::info(K::StackForLevers {
                    stack,
                    mainstream,
                    reason,
                }));
            }
        }
        Ok(()) => {}
    }
}

/// The model that runs, checked, with the distillation that produced it.
struct Models {
    /// The model that runs (the student when distilling), before pruning.
    spec: ModelSpec,
    name: String,
    distill: Option<Distill>,
    teacher_name: Option<String>,
}

/// Looks up and checks the model and, when distilling, the student (which
/// then runs in place of the teacher).
fn resolve_models(c: &mut Checker, plan: &Plan) -> Models {
    let (mut spec, mut model_name) = model_of(&plan.model);
    check_spec(c, &mut spec, "model");
    let mut distill = None;
    let mut teacher_name = None;
    if let Some(d) = &plan.distillation {
        let (mut student, student_name) = model_of(&d.student);
        check_spec(c, &mut student, "distillation.student");
        let tokens = if d.tokens.is_finite() && d.tokens > 0.0 {
            d.tokens
        } else {
            let fallback = crate::plan::default_distillation_tokens();
            c.push(Diagnostic::error(K::InvalidValue {
                field: "distillation.tokens".into(),
                problem: format!(
                    "must be a positive number of tokens, got {}; {fallback:e} assumed",
                    d.tokens
                ),
            }));
            fallback
        };
        let (s_total, t_total) = (student.params().total(), spec.params().total());
        if s_total > t_total {
            c.push(Diagnostic::warning(K::StudentLargerThanTeacher {
                student: s_total,
                teacher: t_total,
            }));
        }
        distill = Some(Distill {
            teacher: spec,
            tokens,
        });
        teacher_name = Some(std::mem::replace(&mut model_name, student_name));
        spec = student;
    }
    Models {
        spec,
        name: model_name,
        distill,
        teacher_name,
    }
}

/// Looks up and checks the GPU; returns its spec as it runs, its display
/// name and the clock fraction its power limit leaves it.
fn resolve_gpu(c: &mut Checker, plan: &Plan) -> (GpuSpec, String, f64) {
    let (mut gpu, gpu_name) = match &plan.hardware.gpu {
        GpuChoice::Preset(id) => {
            let e = catalog::gpu(*id);
            let mut spec = e.spec;
            spec.matmul_ceiling = catalog::matmul_ceiling(*id);
            (spec, e.name.to_string())
        }
        GpuChoice::Custom(g) => (g.spec, g.name.clone()),
    };
    gpu.capacity = c.bytes("hardware.gpu.capacity", gpu.capacity, true);
    if let Some(u) = gpu.usable {
        gpu.usable = Some(c.bytes("hardware.gpu.usable", u, true));
    }
    // A refused rate becomes the floor (one byte, FLOP or watt a second),
    // so that the invalid plan's figures stay finite.
    if !c.rate("hardware.gpu.memory_bandwidth", gpu.memory_bandwidth.base()) {
        gpu.memory_bandwidth = crate::units::ByteRate::from_base(1.0);
    }
    if !c.rate("hardware.gpu.bf16", gpu.bf16.base()) {
        gpu.bf16 = crate::units::FlopRate::from_base(1.0);
    }
    if !c.rate("hardware.gpu.fp16", gpu.fp16.base()) {
        gpu.fp16 = crate::units::FlopRate::from_base(1.0);
    }
    if !c.rate("hardware.gpu.tdp", gpu.tdp.as_watts()) {
        gpu.tdp = crate::units::Watts::new(1.0);
    }
    if gpu.memory_bandwidth.base() <= 0.0 {
        c.push(Diagnostic::error(K::InvalidValue {
            field: "hardware.gpu.memory_bandwidth".into(),
            problem: "must be positive: a GPU that cannot read its memory runs nothing".into(),
        }));
    }
    if gpu.bf16.base() <= 0.0 && gpu.fp16.base() <= 0.0 {
        c.push(Diagnostic::error(K::InvalidValue {
            field: "hardware.gpu.bf16".into(),
            problem: "a GPU needs a positive BF16 or FP16 rate: with none it computes nothing"
                .into(),
        }));
    }
    let power_clock = power_limit(c, plan, &mut gpu, &gpu_name);
    if let Some(m) = gpu.matmul_ceiling.as_mut() {
        m.bf16 = c.fraction(
            "hardware.gpu.matmul_ceiling.bf16",
            m.bf16,
            catalog::DEFAULT_CEILING,
        );
        if let Some(f) = m.fp8 {
            m.fp8 = Some(c.fraction("hardware.gpu.matmul_ceiling.fp8", f, m.bf16));
        }
        if let Some(f) = m.fp4 {
            let or = m.fp8.unwrap_or(m.bf16);
            m.fp4 = Some(c.fraction("hardware.gpu.matmul_ceiling.fp4", f, or));
        }
    }
    (gpu, gpu_name, power_clock)
}

/// The kernel the serving engine runs the routed experts with
/// ([`crate::engine::MoeKernel`]); training keeps the general model (its
/// grouped GEMMs carry thousands of tokens an expert).
fn experts_kernel(work: &Work, levers: &Levers, arch: GpuArch) -> crate::engine::MoeKernel {
    match work {
        Work::Train { .. } => crate::engine::MoeKernel::General,
        Work::Infer { .. } => crate::engine::MoeKernel::of(
            levers.engine,
            arch,
            levers.precision.expert_weights(),
            levers.engine_knobs.moe_backend,
        ),
    }
}

/// Applies the plan's board power limit and returns the clock fraction it
/// leaves (1 where none applies): refused where it is not a finite
/// number of watts or lies below the lowest measured cap, ignored (with a
/// warning) above the rated TDP, and otherwise the tensor rates keep the
/// fraction of their clock the part sustains under it
/// ([`catalog::clock_fraction`]) and the board draws at most the limit
/// (the energy cost reads it as the power). Memory bandwidth keeps its
/// peak: the HBM clock is separate and memory-bound kernels draw less.
fn power_limit(c: &mut Checker, plan: &Plan, gpu: &mut GpuSpec, name: &str) -> f64 {
    let Some(limit) = plan.hardware.power_limit else {
        return 1.0;
    };
    let (w, tdp) = (limit.as_watts(), gpu.tdp.as_watts());
    let lowest = catalog::LOWEST_LIMIT_FRACTION * tdp;
    if !w.is_finite() || w < lowest {
        c.push(Diagnostic::error(K::InvalidValue {
            field: "hardware.power_limit".into(),
            problem: format!(
                "must be a number of watts from {lowest:.0} (the lowest measured cap, {:.0} % of the {tdp:.0} W TDP) up, got {}",
                catalog::LOWEST_LIMIT_FRACTION * 100.0,
                short_number(w)
            ),
        }));
        return 1.0;
    }
    if w >= tdp {
        if w > tdp {
            c.push(Diagnostic::warning(K::PowerLimitAboveTdp {
                limit_w: w,
                tdp_w: tdp,
                gpu: name.to_string(),
            }));
        }
        return 1.0;
    }
    let clock = plan.hardware.clock_fraction(gpu.tdp);
    gpu.bf16 = gpu.bf16 * clock;
    gpu.fp16 = gpu.fp16 * clock;
    gpu.fp8 = gpu.fp8.map(|r| r * clock);
    gpu.fp4 = gpu.fp4.map(|r| r * clock);
    gpu.tdp = limit;
    c.push(Diagnostic::info(K::PowerLimited {
        limit_w: w,
        tdp_w: tdp,
        clock,
    }));
    clock
}

/// The cluster around the GPUs, checked: memory per node and per GPU, and
/// the link rates.
struct Cluster {
    /// GPUs sharing a node's memory (the node's GPUs, or all of them when
    /// fewer).
    node_share: f64,
    /// Host DRAM per node.
    host: Bytes,
    /// NVMe per node.
    nvme: Bytes,
    /// CXL memory per GPU (expanders and pool).
    cxl: Bytes,
    net: Net,
}

/// Checks the cluster's shape, memory and links.
fn resolve_cluster(c: &mut Checker, hw: &Hardware, gpu: &GpuSpec) -> Cluster {
    let gpus = c.count("hardware.gpus", hw.gpus);
    let per_node = c.count("hardware.gpus_per_node", hw.gpus_per_node);
    if gpus > per_node && gpus % per_node != 0 {
        c.push(Diagnostic::warning(K::PartialNode { gpus, per_node }));
    }
    let node_share = f64::from(per_node.min(gpus));
    let host = c.bytes("hardware.host_dram_per_node", hw.host_dram_per_node, false);
    // 0 (the default): each GPU the node holds brings its typical node's
    // share (`catalog::NODES`: a DGX H100's 2 TB ÷ 8, a GH200's 480 GB, a
    // desktop's 64 GB).
    let host = if host == Bytes::ZERO {
        catalog::host_dram_per_gpu(hw.gpu.preset()) * node_share
    } else {
        host
    };
    let nvme = c.bytes("hardware.nvme_per_node", hw.nvme_per_node, false);
    let mut cxl = Bytes::ZERO;
    let mut cxl_bw = 0.0;
    let mut cxl_latency: f64 = 0.0;
    if let Some(x) = hw.cxl {
        let dev = match x.device {
            CxlChoice::Preset(id) => catalog::cxl_device(id).spec,
            CxlChoice::Custom(s) => s,
        };
        let cap = c.bytes("hardware.cxl.device.capacity", dev.capacity, true);
        cxl += cap * f64::from(x.devices_per_node) / node_share;
        if c.rate("hardware.cxl.device.bandwidth", dev.bandwidth.base()) {
            cxl_bw += finite(dev.bandwidth.base()) * f64::from(x.devices_per_node) / node_share;
        }
        cxl_latency = cxl_latency.max(c.latency("hardware.cxl.device.latency", dev.latency));
    }
    if let Some(p) = hw.pool {
        let cap = c.bytes("hardware.pool.capacity", p.capacity, false);
        let n = c.count("hardware.pool.shared_by_gpus", p.shared_by_gpus);
        cxl += cap / f64::from(n);
        if c.rate("hardware.pool.bandwidth", p.bandwidth.base()) {
            cxl_bw += finite(p.bandwidth.base());
        }
        cxl_latency = cxl_latency.max(c.latency("hardware.pool.latency", p.latency));
    }
    let link_bw = |id: crate::catalog::LinkId| catalog::link(id).per_direction.base();
    let scale_out_link = hw
        .scale_out
        .unwrap_or_else(|| crate::hardware::default_scale_out(gpu.arch));
    let nics = if hw.nics_per_node == 0 {
        per_node
    } else {
        hw.nics_per_node
    };
    // A refused bandwidth is replaced (the default, or none), so that an
    // invalid plan's figures stay finite.
    let default_host = crate::hardware::default_host_bandwidth(gpu.host_link, per_node);
    let mut host_bw = hw.host_memory_bandwidth.unwrap_or(default_host);
    if !c.rate("hardware.host_memory_bandwidth", host_bw.base()) {
        host_bw = default_host;
    }
    let nvme_bw = if c.rate(
        "hardware.nvme_bandwidth_per_node",
        hw.nvme_bandwidth_per_node.base(),
    ) {
        hw.nvme_bandwidth_per_node.base()
    } else {
        0.0
    };
    let net = Net {
        gpus,
        domain: hw.scale_up_gpus().max(1),
        scale_up: ByteRate::from_base(gpu.scale_up.map_or(0.0, link_bw)),
        scale_out: ByteRate::from_base(
            link_bw(scale_out_link) * f64::from(nics) / f64::from(per_node),
        ),
        host_link: ByteRate::from_base(link_bw(gpu.host_link)),
        host_memory: ByteRate::from_base(finite(host_bw.base()) / node_share),
        cxl: ByteRate::from_base(cxl_bw),
        cxl_latency: Seconds::from_secs(cxl_latency),
        nvme: ByteRate::from_base(finite(nvme_bw) / node_share),
    };
    Cluster {
        node_share,
        host,
        nvme,
        cxl,
        net,
    }
}

/// A continuous-batching engine's defaults where the plan leaves the lever
/// unset: its token budget becomes the prefill chunk (every prefill pass
/// carries at most that many tokens). The engines' pool rules (vLLM's
/// `gpu_memory_utilization` budget, SGLang's static fraction,
/// TensorRT-LLM's share of the free memory) are applied by the serving
/// model (`serving::capacity::pool`); the memory cap stays the plan's.
fn apply_engine(c: &mut Checker, levers: &mut Levers, gpu: &GpuSpec, a100: bool) {
    front_end_knob(c, levers);
    if !levers.engine.continuous() {
        return;
    }
    if let Some(f) = levers.engine_knobs.memory_fraction {
        let field = "levers.engine_knobs.memory_fraction";
        let f = c.fraction(field, f, 0.9);
        if f <= 0.0 {
            c.push(Diagnostic::error(K::InvalidValue {
                field: field.into(),
                problem: "must be above 0 (the engine would hold no KV cache)".into(),
            }));
        }
        levers.engine_knobs.memory_fraction = Some(f);
    }
    let d = deployment(levers, gpu.device_memory(), a100, 1);
    let profile = levers.engine.profile(&d).with_knobs(&levers.engine_knobs);
    if levers.prefill_chunk.is_none() {
        levers.prefill_chunk = profile.token_budget;
    }
    // Where the engine's decode graphs stop, for the time model (a
    // stated value is checked with the other knobs).
    if levers.engine_knobs.graph_max_batch.is_none() {
        levers.engine_knobs.graph_max_batch = profile.graph_max_batch;
    }
}

/// Where the plan's engine runs, as its defaults read it: attention
/// data-parallel ranks are the expert group's ranks over the attention
/// TP degree (`time::work::token_sets`), 1 without experts spread wider.
fn deployment(
    levers: &Levers,
    device_memory: crate::units::Bytes,
    a100: bool,
    batch: u32,
) -> crate::engine::Deployment {
    let p = &levers.parallel;
    let tp = p.tp.max(1);
    let etp = expert_tp(levers, tp);
    crate::engine::Deployment {
        device_memory,
        a100,
        tp,
        pp: p.pp.max(1),
        attention_dp: (p.ep.max(1) * etp / tp).max(1),
        drafter: levers.speculative.filter(|s| s.active()).map(|s| s.drafter),
        batch,
    }
}

/// Tensor-parallel degree inside each routed expert at attention TP `tp`:
/// `levers.moe.expert_tp` (checked to divide TP), else TP.
fn expert_tp(levers: &Levers, tp: u32) -> u32 {
    levers.moe.expert_tp.unwrap_or(tp).clamp(1, tp.max(1))
}

/// `levers.engine_knobs.front_end_ms` is refused by name outside 0..=10 s
/// on any engine (a static batch ignores it, but a hostile value is still
/// named).
fn front_end_knob(c: &mut Checker, levers: &mut Levers) {
    use crate::engine::MAX_FRONT_END_MS;
    let Some(ms) = levers.engine_knobs.front_end_ms else {
        return;
    };
    if !(ms.is_finite() && (0.0..=MAX_FRONT_END_MS).contains(&ms)) {
        c.push(Diagnostic::error(K::InvalidValue {
            field: "levers.engine_knobs.front_end_ms".into(),
            problem: format!(
                "must be between 0 and {MAX_FRONT_END_MS} ms, got {}",
                short_number(ms)
            ),
        }));
        levers.engine_knobs.front_end_ms = None;
    }
}

/// HBM per GPU under the memory-cap lever (which is checked in place).
fn capped_hbm(c: &mut Checker, levers: &mut Levers, gpu: &GpuSpec) -> Bytes {
    let mut hbm = gpu.device_memory();
    if let Some(cap) = levers.memory_cap {
        let mut f = c.fraction("levers.memory_cap", cap, 1.0);
        if f == 0.0 {
            c.push(Diagnostic::error(K::InvalidValue {
                field: "levers.memory_cap".into(),
                problem: "a memory cap of 0 leaves no memory at all".into(),
            }));
            f = 1.0;
        }
        levers.memory_cap = Some(f);
        hbm = hbm * f;
    }
    hbm
}

/// Runtime overheads must be non-negative sizes and a fraction.
fn check_overheads(c: &mut Checker, mut overheads: Overheads) -> Overheads {
    overheads.cuda_context = overheads
        .cuda_context
        .map(|b| c.bytes("overheads.cuda_context", b, false));
    overheads.workspace = overheads
        .workspace
        .map(|b| c.bytes("overheads.workspace", b, false));
    overheads.cublas_workspace = overheads
        .cublas_workspace
        .map(|b| c.bytes("overheads.cublas_workspace", b, false));
    overheads.nccl_per_group = overheads
        .nccl_per_group
        .map(|b| c.bytes("overheads.nccl_per_group", b, false));
    // An invalid flat fraction falls back to the allocator model.
    overheads.fragmentation = overheads.fragmentation.and_then(|f| {
        let ok = f.is_finite() && (0.0..=1.0).contains(&f);
        let checked = c.fraction("overheads.fragmentation", f, 0.0);
        ok.then_some(checked)
    });
    overheads.allocator_cache = overheads.allocator_cache.and_then(|f| {
        let ok = f.is_finite() && (0.0..=1.0).contains(&f);
        let checked = c.fraction("overheads.allocator_cache", f, 0.0);
        ok.then_some(checked)
    });
    overheads
}

/// The parallel degrees, each at least 1, and the model chunks per device.
#[derive(Debug, Clone, Copy)]
struct Degrees {
    tp: u32,
    pp: u32,
    dp: u32,
    cp: u32,
    ep: u32,
    /// Model chunks per device (1 unless interleaved with PP > 1).
    chunks: u32,
}

/// Reads the parallel degrees; the micro-batch and the interleaving chunks
/// are checked in place in the levers.
fn resolve_degrees(c: &mut Checker, levers: &mut Levers) -> Degrees {
    let par = &mut levers.parallel;
    let tp = c.count("levers.parallel.tp", par.tp);
    let pp = c.count("levers.parallel.pp", par.pp);
    let dp = c.count("levers.parallel.dp", par.dp);
    let cp = c.count("levers.parallel.cp", par.cp);
    let ep = c.count("levers.parallel.ep", par.ep);
    par.micro_batch = c.count("levers.parallel.micro_batch", par.micro_batch);
    if let PipelineSchedule::Interleaved { chunks } = par.schedule {
        let v = c.count("levers.parallel.schedule.interleaved.chunks", chunks);
        par.schedule = PipelineSchedule::Interleaved { chunks: v };
    }
    let chunks = par.schedule.chunks_per_rank(pp);
    Degrees {
        tp,
        pp,
        dp,
        cp,
        ep,
        chunks,
    }
}

/// Checks the degrees against the GPU count, the scale-up domain and the
/// model's shape.
fn check_degrees(
    c: &mut Checker,
    spec: &ModelSpec,
    d: Degrees,
    gpus: u32,
    domain: u32,
    levers: &Levers,
) {
    let Degrees {
        tp,
        pp,
        dp,
        cp,
        ep,
        chunks,
    } = d;
    let product = tp.saturating_mul(pp).saturating_mul(dp).saturating_mul(cp);
    let dpcp = dp.saturating_mul(cp);
    // A disaggregated plan's pools take the GPUs (checked with them); its
    // own degrees describe the co-located view on as many as they take.
    let pooled = levers.disaggregation.is_some() && product <= gpus;
    if product != gpus && !pooled {
        c.push(Diagnostic::error(K::DegreesProduct { product, gpus }));
    }
    if spec.heads % tp != 0 {
        c.push(Diagnostic::error(K::TpHeads {
            tp,
            heads: spec.heads,
        }));
    }
    if matches!(spec.attention, crate::model::AttentionKind::Standard) {
        let k = spec.kv_heads;
        if k % tp != 0 && tp % k != 0 {
            c.push(Diagnostic::error(K::TpKvHeads { tp, kv_heads: k }));
        } else if k < tp {
            c.push(Diagnostic::info(K::KvHeadsReplicated { tp, kv_heads: k }));
        }
    }
    if spec.ffn % tp != 0 {
        c.push(Diagnostic::error(K::TpFfn { tp, ffn: spec.ffn }));
    }
    check_pipeline_split(c, spec.layers, pp, chunks);
    if tp > domain {
        c.push(Diagnostic::warning(K::TpBeyondScaleUp { tp, domain }));
    }
    if levers.parallel.sequence_parallel == SequenceParallel::On && tp == 1 {
        c.push(Diagnostic::info(K::SequenceParallelWithoutTp));
    }
    match spec.moe {
        None if ep > 1 => c.push(Diagnostic::error(K::EpWithoutMoe { ep })),
        Some(m) => {
            if m.experts % ep != 0 {
                c.push(Diagnostic::error(K::EpExperts {
                    ep,
                    experts: m.experts,
                }));
            }
            // The routed experts' EP × expert-TP groups tile the TP × CP ×
            // DP ranks of a stage (Megatron-Core MoE parallel folding,
            // `--expert-tensor-parallel-size`; vLLM's expert-parallel size
            // TP × DP). With the expert TP equal to TP this is "EP divides
            // DP × CP".
            let etp = levers.moe.expert_tp.unwrap_or(tp).max(1);
            let ranks = tp.saturating_mul(dpcp);
            if ranks % ep.saturating_mul(etp).max(1) != 0 {
                c.push(Diagnostic::error(K::EpRanks {
                    ep,
                    ranks: if etp == tp { dpcp } else { ranks / etp },
                }));
            }
        }
        None => {}
    }
}

/// Checks the MoE levers: load factors at least 1 and bounded, the expert
/// TP a divisor of TP (and equal to it in training, the only layout the
/// training model describes).
fn check_moe(c: &mut Checker, spec: &ModelSpec, d: Degrees, levers: &mut Levers, training: bool) {
    use crate::moe::{ExpertBalance, MAX_LOAD_FACTOR};
    let factor = |c: &mut Checker, field: &str, v: f64| -> f64 {
        if v.is_finite() && (1.0..=MAX_LOAD_FACTOR).contains(&v) {
            v
        } else {
            c.push(Diagnostic::error(K::InvalidValue {
                field: field.to_string(),
                problem: format!("must be between 1 and {MAX_LOAD_FACTOR}, got {v}"),
            }));
            1.0
        }
    };
    let m = &mut levers.moe;
    m.balance = match m.balance {
        ExpertBalance::Balanced => ExpertBalance::Balanced,
        ExpertBalance::Capacity { factor: f } => ExpertBalance::Capacity {
            factor: factor(c, "levers.moe.balance.capacity.factor", f),
        },
        ExpertBalance::Dropless { busiest_over_mean } => ExpertBalance::Dropless {
            busiest_over_mean: factor(
                c,
                "levers.moe.balance.dropless.busiest_over_mean",
                busiest_over_mean,
            ),
        },
    };
    if let Some(n) = m.node_limit {
        m.node_limit = Some(c.count("levers.moe.node_limit", n));
    }
    if let Some(etp) = m.expert_tp {
        let etp = c.count("levers.moe.expert_tp", etp);
        let problem = if d.tp % etp != 0 {
            Some(format!("must divide parallel.tp = {}", d.tp))
        } else if training && etp != d.tp {
            Some(
                "must equal parallel.tp when training (other layouts are modelled for serving)"
                    .into(),
            )
        } else if spec.moe.is_none() && etp != d.tp {
            Some("applies to routed experts; this model has none".into())
        } else {
            None
        };
        if let Some(problem) = problem {
            c.push(Diagnostic::error(K::InvalidValue {
                field: "levers.moe.expert_tp".into(),
                problem,
            }));
            m.expert_tp = None;
        } else {
            m.expert_tp = Some(etp);
        }
    }
}

/// Checks that `layers` split into `pp` stages of `chunks` model chunks.
fn check_pipeline_split(c: &mut Checker, layers: u32, pp: u32, chunks: u32) {
    if pp > layers {
        c.push(Diagnostic::error(K::PpTooDeep { pp, layers }));
    } else if chunks > 1 && layers / pp < chunks {
        c.push(Diagnostic::error(K::InterleaveLayers {
            pp,
            chunks,
            layers,
        }));
    } else if chunks > 1 && layers % pp.saturating_mul(chunks) != 0 {
        // Megatron-LM refuses this; frameworks that balance stages by hand
        // (Llama 3 §3.3.2) accept it, so it is a warning.
        c.push(Diagnostic::warning(K::InterleaveLayers {
            pp,
            chunks,
            layers,
        }));
    } else if layers % pp != 0 {
        c.push(Diagnostic::warning(K::PpLayers { pp, layers }));
    }
}

/// Checks a training workload against the model and the degrees.
fn resolve_training(
    c: &mut Checker,
    t: &Training,
    spec: &ModelSpec,
    d: Degrees,
    levers: &Levers,
) -> Work {
    let Degrees {
        pp, dp, cp, chunks, ..
    } = d;
    let (seq, gb) = check_training_workload(c, t, spec, cp);
    let m = check_batch_split(c, gb, &levers.parallel, dp);
    check_interleaving(c, &levers.parallel, pp, chunks, m);
    check_sharding(c, levers, dp.saturating_mul(cp));
    note_serving_levers(c, levers);
    Work::Train {
        kind: t.kind,
        seq,
        micro_batches: m,
    }
}

/// The training workload's own fields: the sequence (bounded, within the
/// model's context, split evenly by CP), the global batch, the tokens and
/// an adapter's rank. Returns the sequence length and the global batch.
fn check_training_workload(c: &mut Checker, t: &Training, spec: &ModelSpec, cp: u32) -> (u32, u32) {
    let seq = c.bounded("workload.training.seq_len", t.seq_len, MAX_TOKENS);
    let gb = c.count("workload.training.global_batch", t.global_batch);
    c.rate("workload.training.tokens", t.tokens);
    if t.tokens > MAX_TRAINING_TOKENS {
        c.push(Diagnostic::error(K::InvalidValue {
            field: "workload.training.tokens".into(),
            problem: format!(
                "{:e} tokens is past the {MAX_TRAINING_TOKENS:e} a plan may train on",
                t.tokens
            ),
        }));
    }
    if let TrainingKind::Lora(l) | TrainingKind::Qlora(l) = t.kind {
        c.count("workload.training.kind.rank", l.rank);
    }
    if seq > spec.max_context {
        c.push(Diagnostic::warning(K::ContextBeyondModel {
            tokens: seq,
            max_context: spec.max_context,
        }));
    }
    if seq % cp != 0 {
        c.push(Diagnostic::error(K::CpSequence { cp, seq_len: seq }));
    }
    (seq, gb)
}

/// The global batch must split into whole micro-batches on every
/// data-parallel rank; returns the micro-batches per step.
fn check_batch_split(c: &mut Checker, gb: u32, par: &crate::plan::Parallelism, dp: u32) -> u32 {
    let per_step = par.micro_batch.saturating_mul(dp);
    if gb % per_step != 0 {
        c.push(Diagnostic::error(K::BatchSplit {
            global_batch: gb,
            micro_batch: par.micro_batch,
            dp,
        }));
    }
    micro_batch_count(gb, par.micro_batch, dp)
}

/// Megatron-Core `forward_backward_pipelining_with_interleaving`: the
/// group N (PP unless set) must lie in [PP, M], and the last group,
/// M mod N, must be empty or at least PP (schedules.py, "dependency
/// bubbles"). With N = PP this is M divisible by PP. A pipeline with
/// fewer micro-batches than stages is warned of.
fn check_interleaving(
    c: &mut Checker,
    par: &crate::plan::Parallelism,
    pp: u32,
    chunks: u32,
    m: u32,
) {
    let group = if par.microbatch_group == 0 {
        pp
    } else {
        par.microbatch_group
    };
    let interleaved = matches!(par.schedule, PipelineSchedule::Interleaved { .. }) && chunks > 1;
    if !interleaved && par.microbatch_group != 0 {
        c.push(Diagnostic::error(K::InvalidValue {
            field: "levers.parallel.microbatch_group".into(),
            problem: format!(
                "applies only to the interleaved schedule with PP > 1; set 0, got {}",
                par.microbatch_group
            ),
        }));
    }
    let last = m % group.max(1);
    if interleaved && (group < pp || group > m || (last > 0 && last < pp)) {
        c.push(Diagnostic::error(K::InterleaveMicroBatches {
            pp,
            micro_batches: m,
            group,
        }));
    }
    if par.schedule == PipelineSchedule::DualPipeV && pp > 1 && m < pp.saturating_mul(2) {
        c.push(Diagnostic::error(K::DualPipeMicroBatches {
            pp,
            micro_batches: m,
        }));
    } else if pp > 1 && m < pp {
        c.push(Diagnostic::warning(K::PipelineUnderfilled {
            pp,
            micro_batches: m,
        }));
    }
}

/// Sharding over `dpcp` ranks: a note when there is no one to shard
/// with, the ZeRO-3 knobs within bounds, a shard group that divides the
/// ranks.
fn check_sharding(c: &mut Checker, levers: &Levers, dpcp: u32) {
    if levers.sharding != Sharding::None && dpcp == 1 {
        c.push(Diagnostic::info(K::ShardingWithoutDp));
    }
    for (field, v) in levers.zero3.fields() {
        if v > crate::zero::Zero3Fetch::MAX {
            c.push(Diagnostic::error(K::InvalidValue {
                field: field.into(),
                problem: format!(
                    "{v} elements is beyond the largest this planner takes ({})",
                    crate::zero::Zero3Fetch::MAX
                ),
            }));
        }
    }
    if levers.zero3.reduce_bucket == 0 {
        c.push(Diagnostic::error(K::InvalidValue {
            field: "levers.zero3.reduce_bucket".into(),
            problem: "must be at least 1 element".into(),
        }));
    }
    if let Some(g) = levers.shard_group {
        let g = c.count("levers.shard_group", g);
        if dpcp % g != 0 {
            c.push(Diagnostic::error(K::ShardGroup {
                group: g,
                ranks: dpcp,
            }));
        }
    }
}

/// Serving levers a training plan carries are ignored, with a note each.
fn note_serving_levers(c: &mut Checker, levers: &Levers) {
    let serving_only = [
        (
            levers.offload.kv_cache.is_some(),
            IgnoredLever::KvCacheOffload,
        ),
        (
            levers.offload.experts.is_some(),
            IgnoredLever::ExpertOffload,
        ),
        (levers.engine.continuous(), IgnoredLever::ServingEngine),
    ];
    for (set, lever) in serving_only {
        if set {
            c.push(Diagnostic::info(K::LeverIgnored { lever }));
        }
    }
}

/// Offload fractions must be fractions, and their tiers must exist
/// (`caps` is the capacity per GPU of each tier, in `Tier::ALL` order).
fn check_offload(c: &mut Checker, levers: &mut Levers, caps: &[Bytes; 4]) {
    let off = &mut levers.offload;
    for (name, slot) in [
        ("optimizer", &mut off.optimizer),
        ("parameters", &mut off.parameters),
        ("gradients", &mut off.gradients),
        ("activations", &mut off.activations),
        ("kv_cache", &mut off.kv_cache),
        ("experts", &mut off.experts),
    ] {
        if let Some(t) = slot.as_mut() {
            t.fraction = c.fraction(&format!("levers.offload.{name}.fraction"), t.fraction, 1.0);
            if t.tier != Tier::Hbm && caps[tier_index(t.tier)].base() <= 0.0 {
                c.push(Diagnostic::error(K::MissingTier { tier: t.tier }));
            }
        }
    }
}

/// FlashAttention-2 named on an NVIDIA part older than Ampere (flash-attn
/// README: Ampere, Ada or Hopper; FlashAttention 1.x for Turing): a note
/// that a memory-efficient fallback runs there at an assumed ceiling. The
/// other vendors' parts run their own fused kernels.
fn check_flash_units(c: &mut Checker, levers: &Levers, gpu: &GpuSpec, gpu_name: &str) {
    if levers.attention == crate::plan::AttentionKernel::Flash && gpu.arch.before_ampere() {
        c.push(Diagnostic::info(K::FlashUnavailable {
            gpu: gpu_name.to_string(),
        }));
    }
}

/// BF16 on a part with no BF16 units (Volta, Turing): vLLM will not
/// serve a model in BF16 there, whether its GEMMs or its activations are
/// (`--dtype` sets both; an error); anything else runs BF16 GEMMs
/// emulated, priced so (a warning naming the rate).
fn check_bf16_units(
    c: &mut Checker,
    workload: &Workload,
    levers: &Levers,
    gpu: &GpuSpec,
    gpu_name: &str,
) {
    if gpu.arch.has_bf16_units() {
        return;
    }
    let p = &levers.precision;
    let vllm = matches!(
        levers.engine,
        crate::engine::Engine::Vllm | crate::engine::Engine::VllmV0
    ) && matches!(workload, Workload::Inference(_));
    let gpu_name = gpu_name.to_string();
    if vllm && (p.compute == Precision::Bf16 || p.activations == Precision::Bf16) {
        c.push(Diagnostic::error(K::Bf16Refused { gpu: gpu_name }));
    } else if p.compute == Precision::Bf16 {
        c.push(Diagnostic::warning(K::EmulatedBf16 {
            gpu: gpu_name,
            percent: 100.0 * catalog::emulated_bf16(gpu.arch),
        }));
    }
}

/// Checks the remaining levers (compute precision, checkpointing, prefill
/// chunk, KV-cache blocks, INT4 groups) in place.
fn check_other_levers(c: &mut Checker, levers: &mut Levers, gpu: &GpuSpec, gpu_name: &str) {
    let missing = match levers.precision.compute {
        Precision::Fp8 if gpu.fp8.is_none() => Some("FP8"),
        Precision::Mxfp4 | Precision::Nvfp4 if gpu.fp4.is_none() => Some("FP4"),
        _ => None,
    };
    if let Some(precision) = missing {
        c.push(Diagnostic::warning(K::UnsupportedCompute {
            precision: precision.into(),
            gpu: gpu_name.to_string(),
        }));
    }
    if let Checkpointing::Uniform { group } = levers.checkpointing {
        let g = c.count("levers.checkpointing.uniform.group", group);
        levers.checkpointing = Checkpointing::Uniform { group: g };
    }
    if let Some(ch) = levers.prefill_chunk {
        levers.prefill_chunk = Some(c.count("levers.prefill_chunk", ch));
    }
    match &mut levers.kv_cache {
        crate::plan::KvCacheLayout::Paged { block_tokens } => {
            *block_tokens = c.count("levers.kv_cache.paged.block_tokens", *block_tokens);
        }
        crate::plan::KvCacheLayout::Contiguous { .. } => {}
    }
    if let Precision::Int4 { group_size } = levers.precision.weights {
        c.count("levers.precision.weights.int4.group_size", group_size);
    }
    if let Some(Precision::Int4 { group_size }) = levers.precision.experts {
        c.count("levers.precision.experts.int4.group_size", group_size);
    }
    check_speculation(c, levers);
    if let Some(m) = levers.engine_knobs.max_seqs {
        let m = c.bounded(
            "levers.engine_knobs.max_seqs",
            m,
            crate::engine::MAX_SEQS_LIMIT,
        );
        levers.engine_knobs.max_seqs = Some(m);
    }
    if let Some(n) = levers.engine_knobs.scheduler_steps {
        levers.engine_knobs.scheduler_steps = Some(c.bounded(
            "levers.engine_knobs.scheduler_steps",
            n,
            crate::engine::MAX_SCHEDULER_STEPS,
        ));
    }
    if let Some(g) = levers.engine_knobs.graph_max_batch {
        levers.engine_knobs.graph_max_batch = Some(c.bounded(
            "levers.engine_knobs.graph_max_batch",
            g,
            crate::engine::MAX_SEQS_LIMIT,
        ));
    }
    use crate::engine::Engine as E;
    let engine = levers.engine;
    let k = &mut levers.engine_knobs;
    // Multi-step scheduling is vLLM V0's alone (V1 removed it).
    engine_only(
        c,
        engine == E::VllmV0,
        IgnoredLever::SchedulerSteps,
        &mut k.scheduler_steps,
    );
    // Holding prompts for every attention-DP rank is TensorRT-LLM's
    // (`attention_dp_config.enable_balance`).
    engine_only(
        c,
        engine == E::TrtLlm,
        IgnoredLever::DpBalance,
        &mut k.attention_dp_balance,
    );
    // SGLang mixes prompts into decoding only with `--enable-mixed-chunk`
    // and vLLM V0 only with chunked prefill; vLLM V1 and TensorRT-LLM
    // always mix, and static batches do not schedule by iteration.
    let mixes = matches!(engine, E::Sglang | E::VllmV0);
    engine_only(c, mixes, IgnoredLever::Batching, &mut k.batching);
    // Only SGLang's decode graphs stop at a stated batch
    // (`--cuda-graph-max-bs`).
    engine_only(
        c,
        engine == E::Sglang,
        IgnoredLever::GraphMaxBatch,
        &mut k.graph_max_batch,
    );
    // Only vLLM V1 profiles its sampler before sizing the pool.
    engine_only(c, engine == E::Vllm, IgnoredLever::Sampler, &mut k.sampler);
}

/// TensorRT-LLM's MoE backend is read only where that engine serves an
/// MoE model, and its TRTLLM backend (TRTLLM-Gen kernels) only on
/// Blackwell; elsewhere the knob is dropped and named as ignored.
fn check_moe_backend(c: &mut Checker, levers: &mut Levers, moe: bool, arch: GpuArch) {
    let read = match levers.engine_knobs.moe_backend {
        None => return,
        Some(crate::engine::MoeBackend::Cutlass) => true,
        Some(crate::engine::MoeBackend::Trtllm) => arch == GpuArch::Blackwell,
    };
    engine_only(
        c,
        read && moe && levers.engine == crate::engine::Engine::TrtLlm,
        IgnoredLever::MoeBackend,
        &mut levers.engine_knobs.moe_backend,
    );
}

/// A knob only some engines read (`read`): elsewhere it is dropped and
/// named as ignored.
fn engine_only<T>(c: &mut Checker, read: bool, lever: IgnoredLever, knob: &mut Option<T>) {
    if knob.is_some() && !read {
        c.push(Diagnostic::info(K::LeverIgnored { lever }));
        *knob = None;
    }
}

/// Disaggregated pools: GPUs in each, within the plan's; a link that
/// reaches between them; a stream and an engine to run them
/// ([`crate::disagg::Disaggregation::problems`]).
fn check_disaggregation(c: &mut Checker, plan: &Plan, levers: &Levers, gpu: &GpuSpec, net: Net) {
    let Some(d) = levers.disaggregation else {
        return;
    };
    let stream = match &plan.workload {
        Workload::Inference(i) => i.stream.as_ref(),
        Workload::Training(_) => None,
    };
    let ctx = crate::disagg::Context {
        gpus: net.gpus,
        domain: net.domain,
        scale_up: gpu.scale_up,
        stream: stream.is_some(),
        closed_loop: stream
            .is_some_and(|s| matches!(s.arrival, crate::request::Arrival::Concurrency { .. })),
        continuous: levers.engine.continuous(),
    };
    for (field, problem) in d.problems(&ctx) {
        c.push(Diagnostic::error(K::InvalidValue { field, problem }));
    }
}

/// Speculative decoding's inputs: draft tokens within
/// [`crate::engine::MAX_SPECULATIVE_TOKENS`], an acceptance rate that is a
/// fraction, heads of at least one layer and at most a few.
fn check_speculation(c: &mut Checker, levers: &mut Levers) {
    use crate::engine::{Drafter, MAX_SPECULATIVE_TOKENS};
    let Some(s) = levers.speculative.as_mut() else {
        return;
    };
    if s.tokens > MAX_SPECULATIVE_TOKENS {
        c.push(Diagnostic::error(K::InvalidValue {
            field: "levers.speculative.tokens".into(),
            problem: format!(
                "{} is beyond the largest this planner takes ({MAX_SPECULATIVE_TOKENS})",
                s.tokens
            ),
        }));
        s.tokens = MAX_SPECULATIVE_TOKENS;
    }
    s.acceptance = c.fraction("levers.speculative.acceptance", s.acceptance, 0.0);
    if let Drafter::Heads { layers } = &mut s.drafter {
        *layers = c.bounded("levers.speculative.drafter.heads.layers", *layers, 8);
    }
}

/// A KV store below HBM: a tier the hardware has (not HBM), a size that
/// is a finite amount within the tier's memory per GPU, a chunk within
/// bounds. A bad size falls back to the tier's whole share.
fn check_kv_tier(c: &mut Checker, levers: &mut Levers, caps: &[Bytes; 4]) {
    use crate::engine::MAX_KV_CHUNK_TOKENS;
    let Some(k) = levers.kv_tier.as_mut() else {
        return;
    };
    let have = caps[tier_index(k.tier)];
    if k.tier == Tier::Hbm || have.base() <= 0.0 {
        c.push(Diagnostic::error(K::InvalidValue {
            field: "levers.kv_tier.tier".into(),
            problem: format!(
                "must be a tier below HBM that the hardware has, got {} with {:.1} GB per GPU",
                crate::lang::Named::key(k.tier),
                have.as_gb()
            ),
        }));
    }
    if let Some(b) = k.capacity {
        let v = c.bytes("levers.kv_tier.capacity", b, false);
        if v.base() > have.base() * (1.0 + 1e-9) {
            c.push(Diagnostic::error(K::InvalidValue {
                field: "levers.kv_tier.capacity".into(),
                problem: format!(
                    "{:.1} GB is more than the tier's {:.1} GB per GPU",
                    v.as_gb(),
                    have.as_gb()
                ),
            }));
        }
        k.capacity = Some(v.min(have));
    }
    k.chunk_tokens = c.bounded(
        "levers.kv_tier.chunk_tokens",
        k.chunk_tokens,
        MAX_KV_CHUNK_TOKENS,
    );
}

/// A price that must be finite and non-negative; `None` (the catalog
/// default) when it is not.
/// The highest price any one field may give, in dollars: a trillion,
/// past any GPU, gigabyte, kilowatt-hour or engineer; above it a cost
/// summed over hours and GPUs could overflow to infinity.
const MAX_PRICE_USD: f64 = 1e12;

fn price(c: &mut Checker, field: &str, v: Option<Usd>) -> Option<Usd> {
    match v {
        Some(u) if !(u.is_finite() && (0.0..=MAX_PRICE_USD).contains(&u.as_usd())) => {
            c.push(Diagnostic::error(K::InvalidValue {
                field: field.to_string(),
                problem: format!(
                    "must be a finite, non-negative price of at most $10^12, got {}; the catalog default is used",
                    short_number(u.as_usd())
                ),
            }));
            None
        }
        other => other,
    }
}

/// Checks the economic inputs of a plan. Bad values become diagnostics and
/// are replaced by their defaults, so the cost report is always computed.
pub(crate) fn resolve_economics(plan: &Plan) -> (Economics, Vec<Diagnostic>) {
    let mut c = Checker { diags: Vec::new() };
    let mut e = plan.economics.clone();
    match &mut e.pricing {
        Pricing::Rental { usd_per_gpu_hour } => {
            *usd_per_gpu_hour = price(
                &mut c,
                "economics.pricing.rental.usd_per_gpu_hour",
                *usd_per_gpu_hour,
            );
        }
        Pricing::Capex {
            usd_per_gpu,
            horizon_years,
            utilisation,
        } => {
            *usd_per_gpu = price(&mut c, "economics.pricing.capex.usd_per_gpu", *usd_per_gpu);
            if !(horizon_years.is_finite() && *horizon_years > 0.0) {
                let d = economics::default_horizon_years();
                c.push(Diagnostic::error(K::InvalidValue {
                    field: "economics.pricing.capex.horizon_years".into(),
                    problem: format!(
                        "must be a positive number of years, got {horizon_years}; {d} assumed"
                    ),
                }));
                *horizon_years = d;
            }
            let d = economics::default_utilisation();
            let u = c.fraction("economics.pricing.capex.utilisation", *utilisation, d);
            *utilisation = if u == 0.0 {
                c.push(Diagnostic::error(K::InvalidValue {
                    field: "economics.pricing.capex.utilisation".into(),
                    problem: format!("a utilisation of 0 never pays the GPUs back; {d} assumed"),
                }));
                d
            } else {
                u
            };
        }
    }
    let en = &mut e.energy;
    en.usd_per_kwh = price(&mut c, "economics.energy.usd_per_kwh", en.usd_per_kwh);
    if !(en.pue.is_finite() && (1.0..=3.0).contains(&en.pue)) {
        c.push(Diagnostic::error(K::InvalidValue {
            field: "economics.energy.pue".into(),
            problem: format!(
                "a PUE lies between 1 (no overhead) and 3 (the worst data centres), got {}",
                short_number(en.pue)
            ),
        }));
        en.pue = economics::default_pue();
    }
    en.average_power_fraction = c.fraction(
        "economics.energy.average_power_fraction",
        en.average_power_fraction,
        economics::default_average_power_fraction(),
    );
    // The rest of the server's power against its GPUs' TDP: 0.82 for a
    // DGX H100 (economics.rs); ten times the GPUs' power is no GPU server.
    if !(en.node_overhead.is_finite() && (0.0..=10.0).contains(&en.node_overhead)) {
        c.push(Diagnostic::error(K::InvalidValue {
            field: "economics.energy.node_overhead".into(),
            problem: format!(
                "the rest of the server's power as a multiple of its GPUs' TDP lies between 0 and 10, got {}",
                short_number(en.node_overhead)
            ),
        }));
        en.node_overhead = economics::default_node_overhead();
    }
    let m = &mut e.memory;
    m.cxl_usd_per_gb = price(&mut c, "economics.memory.cxl_usd_per_gb", m.cxl_usd_per_gb);
    m.dram_usd_per_gb = price(
        &mut c,
        "economics.memory.dram_usd_per_gb",
        m.dram_usd_per_gb,
    );
    let g = &mut e.engineering;
    g.usd_per_person_week = price(
        &mut c,
        "economics.engineering.usd_per_person_week",
        g.usd_per_person_week,
    );
    g.effort.retain(|o| {
        // A million person-weeks is some 19,000 person-years.
        let ok = o.person_weeks.is_finite() && (0.0..=1e6).contains(&o.person_weeks);
        if !ok {
            c.push(Diagnostic::error(K::InvalidValue {
                field: "economics.engineering.effort.person_weeks".into(),
                problem: format!(
                    "must lie between 0 and a million, got {}; the assumed effort is used",
                    short_number(o.person_weeks)
                ),
            }));
        }
        ok
    });
    (e, c.diags)
}

fn finite(v: f64) -> f64 {
    if v.is_finite() && v > 0.0 {
        v
    } else {
        0.0
    }
}

/// Efficiencies must be fractions in (0, 1]; sizes and times non-negative.
/// A number for a message: plain in the usual range, in scientific
/// notation when huge or tiny (never a 300-digit string).
fn short_number(v: f64) -> String {
    if v == 0.0 || (1e-3..1e6).contains(&v.abs()) || !v.is_finite() {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// The least efficiency accepted: 0.1 % of a measured ceiling. Real stacks
/// reach tens of per cent; anything near 0 is a typo that would make a
/// step last for years.
const MIN_EFFICIENCY: f64 = 1e-3;

/// The largest fixed cost accepted (a GEMM's half-time, a link latency, a
/// per-layer overhead), in seconds: these are microseconds on every real
/// system; a second already means a broken input.
const MAX_FIXED_COST_S: f64 = 1.0;

fn check_efficiency(c: &mut Checker, e: Efficiency) -> Efficiency {
    let d = Efficiency::default();
    let mut frac = |field: &str, v: f64, fallback: f64| {
        let v = c.fraction(&format!("efficiency.{field}"), v, fallback);
        if v < MIN_EFFICIENCY {
            c.push(Diagnostic::error(K::InvalidValue {
                field: format!("efficiency.{field}"),
                problem: format!(
                    "{} is below {MIN_EFFICIENCY}: no software runs at under 0.1 % of the hardware's rate",
                    short_number(v)
                ),
            }));
            fallback
        } else {
            v
        }
    };
    let mut out = Efficiency {
        gemm: frac("gemm", e.gemm, d.gemm),
        attention: frac("attention", e.attention, d.attention),
        hbm: frac("hbm", e.hbm, d.hbm),
        scale_up: frac("scale_up", e.scale_up, d.scale_up),
        scale_out: frac("scale_out", e.scale_out, d.scale_out),
        host_link: frac("host_link", e.host_link, d.host_link),
        ..e
    };
    out.overlap = c.fraction("efficiency.overlap", e.overlap, d.overlap);
    let mut nonneg = |field: &str, v: f64, fallback: f64| {
        if v.is_finite() && (0.0..=MAX_FIXED_COST_S).contains(&v) {
            v
        } else {
            c.push(Diagnostic::error(K::InvalidValue {
                field: format!("efficiency.{field}"),
                problem: format!(
                    "must be between 0 and {MAX_FIXED_COST_S} s (a launch or link latency is microseconds), got {}",
                    short_number(v)
                ),
            }));
            fallback
        }
    };
    out.gemm_half_time = crate::units::Seconds::from_secs(nonneg(
        "gemm_half_time",
        e.gemm_half_time.base(),
        d.gemm_half_time.base(),
    ));
    out.scale_up_latency = crate::units::Seconds::from_secs(nonneg(
        "scale_up_latency",
        e.scale_up_latency.base(),
        d.scale_up_latency.base(),
    ));
    out.scale_out_latency = crate::units::Seconds::from_secs(nonneg(
        "scale_out_latency",
        e.scale_out_latency.base(),
        d.scale_out_latency.base(),
    ));
    out.layer_overhead = crate::units::Seconds::from_secs(nonneg(
        "layer_overhead",
        e.layer_overhead.base(),
        d.layer_overhead.base(),
    ));
    out.moe_expert_host = crate::units::Seconds::from_secs(nonneg(
        "moe_expert_host",
        e.moe_expert_host.base(),
        d.moe_expert_host.base(),
    ));
    out.host_op =
        crate::units::Seconds::from_secs(nonneg("host_op", e.host_op.base(), d.host_op.base()));
    out
}

fn resolve_inference(c: &mut Checker, i: &Inference, spec: &ModelSpec, levers: &Levers) -> Work {
    let prompt = c.bounded(
        "workload.inference.prompt_tokens",
        i.prompt_tokens,
        MAX_TOKENS,
    );
    let batch = c.count("workload.inference.batch", i.batch);
    for (field, problem) in i.stream.iter().flat_map(|s| s.problems()) {
        c.push(Diagnostic::error(K::InvalidValue { field, problem }));
    }
    let ctx = prompt.saturating_add(i.output_tokens);
    if ctx > spec.max_context {
        c.push(Diagnostic::warning(K::ContextBeyondModel {
            tokens: ctx,
            max_context: spec.max_context,
        }));
    }
    let training_only = [
        (
            levers.offload.optimizer.is_some(),
            IgnoredLever::OptimizerOffload,
        ),
        (
            levers.offload.gradients.is_some(),
            IgnoredLever::GradientOffload,
        ),
        (
            levers.offload.activations.is_some(),
            IgnoredLever::ActivationOffload,
        ),
        (levers.sharding != Sharding::None, IgnoredLever::Sharding),
        (
            levers.checkpointing != Checkpointing::None,
            IgnoredLever::Checkpointing,
        ),
        (levers.training_stack.is_some(), IgnoredLever::TrainingStack),
    ];
    for (set, lever) in training_only {
        if set {
            c.push(Diagnostic::info(K::LeverIgnored { lever }));
        }
    }
    Work::Infer {
        prompt,
        output: i.output_tokens,
        batch,
        logits: i.logits,
    }
}
