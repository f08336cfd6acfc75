//! The space the search walks: hardware options, GPU counts, and the lever
//! values tried on each. Everything here is built once per scenario (or
//! per hardware option and GPU count); the per-candidate loop only indexes
//! into these lists.
//!
//! Every list contains the base plan's own value where it is valid, so the
//! base plan, and the base levers on other hardware, are in the space.

use super::scenario::{GpuCounts, Interleaving, Permission, Scenario};
use crate::catalog::{self, GpuId, LinkId, PriceKind, PricedItem};
use crate::hardware::{GpuChoice, Hardware};
use crate::model::{AttentionKind, ModelSpec};
use crate::plan::{
    AttentionKernel, Checkpointing, Levers, Offload, OffloadTarget, PipelineSchedule, Precisions,
    SequenceParallel, Sharding, Tier,
};
use crate::precision::Precision;
use crate::resolve::{Resolved, Work};
use crate::stack::TrainingStack;

/// The scale-up domain of a GB200/GB300 NVL72 rack.
pub(crate) const NVL72: u32 = 72;

/// One hardware choice: a GPU kind in the base plan's node, with or
/// without an added CXL expansion, in its own or an NVL72 domain.
#[derive(Debug, Clone)]
pub(crate) struct HwOption {
    /// The hardware, `gpus` not yet set.
    pub hardware: Hardware,
    /// Catalog id of the GPU (`None`: the base plan's custom GPU).
    pub gpu: Option<GpuId>,
    /// Whether a CXL expansion was added that the base plan does not have
    /// (the idle-CXL rule applies).
    pub added_cxl: AddedCxl,
    /// The training framework the option moves the plan to (`None`: the
    /// base plan's own; `Space::training_stacks`).
    pub stack: Option<TrainingStack>,
    /// The attention kernel the option moves the plan to (`None`: the
    /// base plan's own; `Space::flash_attention`).
    pub attention: Option<AttentionKernel>,
}

impl HwOption {
    /// Writes the software the option moves a plan to (its framework, its
    /// attention kernel) into the plan's levers; the base plan's own where
    /// it names none. On a GPU without BF16 units (Volta, Turing) the
    /// plan's BF16 tensors become FP16, the base plan's own option too (its
    /// BF16 levers stay the baseline, evaluated apart), as those parts run
    /// it (mixed
    /// precision with loss scaling, Micikevicius et al. 2018; vLLM's
    /// `--dtype half`): BF16 there is emulated at a few per cent of the
    /// FP16 rate (`catalog::emulated_bf16`) or refused (vLLM).
    pub(crate) fn apply(&self, l: &mut Levers) {
        if let Some(st) = self.stack {
            l.training_stack = Some(st);
        }
        if let Some(kernel) = self.attention {
            l.attention = kernel;
        }
        if !self.hardware.gpu.spec().arch.has_bf16_units() {
            l.precision = l.precision.in_fp16();
        }
    }
}

/// Whether a hardware option has a CXL expansion the base plan lacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AddedCxl {
    No,
    Yes,
}

/// GPUs sold in NVL72 racks: the Grace-Blackwell parts, GB200 and GB300
/// (the catalog's "B300 / GB300" entry), whose NVLink 5 spans 72 GPUs
/// (NVIDIA GB200 NVL72 and GB300 NVL72 product pages). A plain B200 comes
/// on an 8-GPU HGX board (HGX B200: eight GPUs on NVLink 5), so a B200 in
/// a 72-GPU domain is hardware nobody sells.
fn nvl72_capable(gpu: Option<GpuId>) -> bool {
    gpu.is_some_and(|id| {
        matches!(id, GpuId::Gb200 | GpuId::B300)
            && catalog::gpu(id).spec.scale_up == Some(LinkId::NvLink5)
    })
}

/// Whether the catalog has a price for `id` of that kind on `market`'s
/// clouds.
fn priced(id: GpuId, kind: PriceKind, market: catalog::Market) -> bool {
    catalog::default_price_in(PricedItem::Gpu(id), kind, Some(market)).is_some()
}

/// Every catalog GPU with a price in `plan`'s pricing basis on its market
/// (`cost::market_of`), in catalog order: the kinds a search may move a
/// plan to. A part rented only in China is not offered to a plan paid on
/// other clouds, nor the other way round.
pub(crate) fn priced_gpu_kinds(plan: &crate::plan::Plan) -> Vec<GpuId> {
    let kind = plan.economics.pricing.kind();
    let market = crate::cost::market_of(plan);
    GpuId::ALL
        .iter()
        .copied()
        .filter(|id| priced(*id, kind, market))
        .collect()
}

/// The GPU kinds tried: the allowed list, or the base GPU and every
/// catalog GPU with a price in the base plan's pricing basis (rental or
/// purchase) on its market, or in the scenario's prices. The base kind comes first.
fn gpu_kinds(s: &Scenario) -> Vec<Option<GpuId>> {
    let kind = s.base.economics.pricing.kind();
    let market = crate::cost::market_of(&s.base);
    let base = match &s.base.hardware.gpu {
        GpuChoice::Preset(id) => Some(*id),
        GpuChoice::Custom(_) => None,
    };
    let allowed = |id: Option<GpuId>| match (&s.constraints.gpu_kinds, id) {
        (Some(list), Some(id)) => list.contains(&id),
        (Some(_), None) => false,
        (None, _) => true,
    };
    let mut out = Vec::new();
    if allowed(base) {
        out.push(base);
    }
    let listed: Vec<GpuId> = match &s.constraints.gpu_kinds {
        Some(list) => GpuId::ALL
            .iter()
            .copied()
            .filter(|id| list.contains(id))
            .collect(),
        None => GpuId::ALL
            .iter()
            .copied()
            .filter(|id| priced(*id, kind, market) || s.prices.iter().any(|p| p.gpu == *id))
            .collect(),
    };
    for id in listed {
        if Some(id) != base {
            out.push(Some(id));
        }
    }
    out
}

/// Hardware options, the base plan's hardware first (index 0 when its GPU
/// kind is allowed).
pub(crate) fn hardware_options(s: &Scenario, hardware_changes: Permission) -> Vec<HwOption> {
    let base = &s.base.hardware;
    let base_gpu = match &base.gpu {
        GpuChoice::Preset(id) => Some(*id),
        GpuChoice::Custom(_) => None,
    };
    let mut out = Vec::new();
    for gpu in gpu_kinds(s) {
        let same_kind = gpu == base_gpu;
        if hardware_changes == Permission::Forbidden && !same_kind {
            continue;
        }
        let mut hw = base.clone();
        if let (Some(id), false) = (gpu, same_kind) {
            hw.gpu = GpuChoice::Preset(id);
        }
        let mut domains = vec![hw.scale_up_domain];
        // An NVL72 domain changes nothing for a budget that fits in the
        // domain the GPUs already have.
        if s.space.nvl72 == Permission::Allowed
            && nvl72_capable(gpu)
            && hw.scale_up_gpus() != NVL72
            && s.max_gpus > hw.scale_up_gpus()
        {
            domains.push(NVL72);
        }
        for domain in domains {
            let with_domain = Hardware {
                scale_up_domain: domain,
                ..hw.clone()
            };
            out.push(HwOption {
                hardware: with_domain.clone(),
                gpu,
                added_cxl: AddedCxl::No,
                stack: None,
                attention: None,
            });
            if s.constraints.offload == Permission::Allowed {
                for x in &s.space.cxl {
                    if base.cxl.as_ref() != Some(x) {
                        out.push(HwOption {
                            hardware: Hardware {
                                cxl: Some(*x),
                                ..with_domain.clone()
                            },
                            gpu,
                            added_cxl: AddedCxl::Yes,
                            stack: None,
                            attention: None,
                        });
                    }
                }
            }
        }
        if hardware_changes == Permission::Forbidden {
            // Only the base hardware itself.
            out.truncate(1);
        }
    }
    out
}

/// Each hardware option on the base plan's framework, then on each of
/// `stacks` (other frameworks the search may move a training plan to), in
/// that order, so the base plan's own option stays first.
pub(crate) fn with_stacks(options: Vec<HwOption>, stacks: &[TrainingStack]) -> Vec<HwOption> {
    if stacks.is_empty() {
        return options;
    }
    options
        .into_iter()
        .flat_map(|o| {
            let moved: Vec<HwOption> = stacks
                .iter()
                .map(|&st| HwOption {
                    stack: Some(st),
                    ..o.clone()
                })
                .collect();
            std::iter::once(o).chain(moved)
        })
        .collect()
}

/// Each hardware option as it is, then, where the base plan runs eager
/// attention or the Triton kernel in 16 bits and the option's GPU runs
/// FlashAttention-2, the same option on FlashAttention-2 (`upgrade`:
/// `Space::flash_attention`, and software changes allowed). FlashAttention
/// takes FP16 and BF16 inputs only (flash-attn README, "Datatype fp16 and
/// bf16").
pub(crate) fn with_kernels(
    options: Vec<HwOption>,
    base: &crate::plan::Plan,
    upgrade: Permission,
) -> Vec<HwOption> {
    let old = base.levers.attention != AttentionKernel::Flash;
    let sixteen = matches!(
        base.levers.precision.activations,
        Precision::Bf16 | Precision::Fp16
    );
    if upgrade == Permission::Forbidden || !old || !sixteen {
        return options;
    }
    // Head dimensions up to 256, backward up to 128 on ROCm (flash-attn
    // README).
    let head = base.model.spec().head_dim;
    let training = matches!(base.workload, crate::plan::Workload::Training(_));
    let fits = |arch: crate::hardware::GpuArch| {
        let rocm = matches!(
            arch,
            crate::hardware::GpuArch::Cdna2 | crate::hardware::GpuArch::Cdna3
        );
        head <= if rocm && training { 128 } else { 256 }
    };
    options
        .into_iter()
        .flat_map(|o| {
            let arch = o.hardware.gpu.spec().arch;
            let runs = arch.runs_flash_attention_2() && fits(arch);
            let moved = runs.then(|| HwOption {
                attention: Some(AttentionKernel::Flash),
                ..o.clone()
            });
            std::iter::once(o).chain(moved)
        })
        .collect()
}

/// The frameworks a scenario's search moves a training plan to: those it
/// lists, once each, in [`TrainingStack::ALL`] order, less the base plan's
/// own (`base`: the stack it runs on; `None` when serving, which moves to
/// none).
pub(crate) fn other_stacks(
    listed: &[TrainingStack],
    base: Option<TrainingStack>,
) -> Vec<TrainingStack> {
    let Some(base) = base else {
        return Vec::new();
    };
    TrainingStack::ALL
        .iter()
        .copied()
        .filter(|st| *st != base && listed.contains(st))
        .collect()
}

/// Most CXL options a scenario may list: each multiplies the hardware
/// options the search walks (GPU kinds × scale-up domains × CXL), and the
/// catalog holds a handful of devices at a few counts per node.
pub const MAX_CXL_OPTIONS: usize = 16;

/// GPU counts tried, ascending.
/// Most GPU counts a search walks (each is a full sweep of the levers):
/// powers of two up to 2³¹ are 32; a thousand node multiples is already
/// far past any question a search answers in seconds.
pub const MAX_GPU_COUNTS: u64 = 1024;

/// How many GPU counts `gpu_counts` would try, computed without building
/// them, so that an unbounded request is refused before any work.
pub(crate) fn gpu_count_size(s: &Scenario) -> u64 {
    let max = u64::from(s.max_gpus);
    let per_node = u64::from(s.base.hardware.gpus_per_node.max(1));
    match &s.gpu_counts {
        GpuCounts::PowersOfTwo => 33,
        GpuCounts::NodeMultiples => max / per_node + 32,
        GpuCounts::Listed(list) => list.len() as u64 + 1,
    }
}

pub(crate) fn gpu_counts(s: &Scenario, hardware_changes: Permission) -> Vec<u32> {
    let max = s.max_gpus;
    let base_n = s.base.hardware.gpus;
    if hardware_changes == Permission::Forbidden {
        return if (1..=max).contains(&base_n) {
            vec![base_n]
        } else {
            Vec::new()
        };
    }
    let per_node = s.base.hardware.gpus_per_node.max(1);
    let powers =
        || std::iter::successors(Some(1u32), |n| n.checked_mul(2)).take_while(move |n| *n <= max);
    let mut out: Vec<u32> = match &s.gpu_counts {
        GpuCounts::PowersOfTwo => {
            let mut v: Vec<u32> = powers().collect();
            if max % per_node == 0 {
                v.push(max);
            }
            v
        }
        GpuCounts::NodeMultiples => powers()
            .filter(|n| *n < per_node)
            .chain((1..=max / per_node).map(|k| k * per_node))
            .collect(),
        GpuCounts::Listed(list) => list
            .iter()
            .copied()
            .filter(|n| (1..=max).contains(n))
            .collect(),
    };
    if (1..=max).contains(&base_n) {
        out.push(base_n);
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Divisors of `n`, ascending.
pub(crate) fn divisors(n: u32) -> Vec<u32> {
    let mut small = Vec::new();
    let mut large = Vec::new();
    let mut d = 1u32;
    while u64::from(d) * u64::from(d) <= u64::from(n) {
        if n % d == 0 {
            small.push(d);
            if d != n / d {
                large.push(n / d);
            }
        }
        d += 1;
    }
    large.reverse();
    small.extend(large);
    small
}

/// Whether `resolve` accepts a TP degree for this model: it divides the
/// heads and the FFN width, and the KV heads and it divide one another.
pub(crate) fn tp_ok(spec: &ModelSpec, tp: u32) -> bool {
    let kv_ok = match spec.attention {
        AttentionKind::Standard => spec.kv_heads % tp == 0 || tp % spec.kv_heads.max(1) == 0,
        AttentionKind::Mla(_) => true,
    };
    spec.heads % tp == 0 && spec.ffn % tp == 0 && kv_ok
}

/// Parallel degrees of one candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Degrees {
    pub tp: u32,
    pub pp: u32,
    pub dp: u32,
    pub cp: u32,
    pub ep: u32,
}

/// Every degree split of `n` GPUs that `resolve` accepts for this model
/// and workload, in (tp, pp, cp, ep) order.
pub(crate) fn degrees(r: &Resolved, n: u32, max_cp: u32, global_batch: u32) -> Vec<Degrees> {
    let spec = &r.spec;
    let (seq, training) = match r.work {
        Work::Train { seq, .. } => (seq, true),
        Work::Infer { .. } => (0, false),
    };
    let mut out = Vec::new();
    for tp in divisors(n) {
        if !tp_ok(spec, tp) {
            continue;
        }
        for pp in divisors(n / tp) {
            if pp > spec.layers {
                continue;
            }
            for cp in divisors(n / tp / pp) {
                // CP splits a training sequence; serving keeps it whole.
                let cp_ok = if training {
                    cp <= max_cp.max(1) && seq % cp == 0
                } else {
                    cp == 1
                };
                if !cp_ok {
                    continue;
                }
                let dp = n / tp / pp / cp;
                if training && global_batch % dp != 0 {
                    continue;
                }
                let ranks = dp * cp;
                match spec.moe {
                    Some(m) => {
                        for ep in divisors(m.experts) {
                            if ranks % ep == 0 {
                                out.push(Degrees { tp, pp, dp, cp, ep });
                            }
                        }
                    }
                    None => out.push(Degrees {
                        tp,
                        pp,
                        dp,
                        cp,
                        ep: 1,
                    }),
                }
            }
        }
    }
    out
}

/// Adds `v` to `list` unless it is there already.
fn with<T: PartialEq>(mut list: Vec<T>, v: T) -> Vec<T> {
    if !list.contains(&v) {
        list.push(v);
    }
    list
}

/// Sequence parallelism: both settings when TP > 1; with TP = 1 it does
/// nothing, so only the base plan's setting is kept.
pub(crate) fn sequence_parallel(
    tp: u32,
    base: SequenceParallel,
    training: bool,
) -> Vec<SequenceParallel> {
    if tp > 1 && training {
        with(vec![SequenceParallel::Off, SequenceParallel::On], base)
    } else {
        vec![base]
    }
}

/// ZeRO/FSDP levels (`stack`: the training stack in force, `None` when
/// serving). FSDP FULL_SHARD holds and moves what ZeRO-3 does, so only one
/// of them is generated: the base plan's, if it uses either, else the
/// stack's own (ZeRO-3 for the DeepSpeed-based stacks, FSDP for the
/// others). With a single data-parallel rank nothing can be sharded: only
/// no sharding (and the base plan's setting) is tried. The walk drops what
/// the stack cannot run with the other levers.
pub(crate) fn shardings(
    ranks: u32,
    base: Sharding,
    stack: Option<crate::stack::TrainingStack>,
) -> Vec<Sharding> {
    use crate::stack::TrainingStack as S;
    let Some(stack) = stack else {
        return vec![base];
    };
    if ranks <= 1 {
        return with(vec![Sharding::None], base);
    }
    let full = match (base, stack) {
        (Sharding::FsdpFullShard | Sharding::Zero3, _) => base,
        (_, S::DeepSpeed | S::MegatronDeepSpeed | S::HfTrainer) => Sharding::Zero3,
        (_, S::MegatronCore | S::Torchtitan | S::TorchtitanCompiled) => Sharding::FsdpFullShard,
    };
    with(
        vec![
            Sharding::None,
            Sharding::Zero1,
            Sharding::Zero2,
            full,
            Sharding::FsdpShardGradOp,
        ],
        base,
    )
}

/// Checkpointing: none, selective and full (training), and the base plan's.
pub(crate) fn checkpointings(base: Checkpointing, training: bool) -> Vec<Checkpointing> {
    if training {
        with(
            vec![
                Checkpointing::None,
                Checkpointing::Selective,
                Checkpointing::Full,
            ],
            base,
        )
    } else {
        vec![base]
    }
}

/// The GEMM format an FP8 checkpoint is served in: W8A8 where the part
/// has FP8 units (vLLM's `fp8` quantization on Hopper, Ada and
/// Blackwell), weight-only in `otherwise` elsewhere (vLLM's FP8 Marlin
/// kernel on Ampere dequantizes to 16 bits).
pub(crate) fn fp8_serving_compute(
    gpu: &crate::hardware::GpuSpec,
    otherwise: Precision,
) -> Precision {
    if gpu.fp8.is_some() {
        Precision::Fp8
    } else {
        otherwise
    }
}

/// Number formats: the base plan's; when narrower formats are allowed,
/// FP8 GEMMs for training (on GPUs with FP8 units), and for serving FP8
/// weights ([`fp8_serving_compute`]), INT8 and INT4 weights, NVFP4
/// weights and compute on parts with FP4 units, and for an MoE INT4
/// experts alone, each with the base or an FP8 KV cache.
pub(crate) fn precisions(
    r: &Resolved,
    base: Precisions,
    quantization: Permission,
) -> Vec<Precisions> {
    let mut out = vec![base];
    if quantization == Permission::Forbidden {
        return out;
    }
    match r.work {
        Work::Train { .. } => {
            if r.gpu.fp8.is_some() {
                out = with(
                    out,
                    Precisions {
                        compute: Precision::Fp8,
                        ..base
                    },
                );
            }
        }
        Work::Infer { .. } => {
            let weights = [
                base.weights,
                Precision::Bf16,
                Precision::Fp8,
                Precision::Int8,
                Precision::Int4 { group_size: 128 },
            ];
            for w in weights {
                let compute = if w == Precision::Fp8 {
                    fp8_serving_compute(&r.gpu, base.compute)
                } else {
                    base.compute
                };
                let p = Precisions {
                    weights: w,
                    compute,
                    ..base
                };
                out = with_both_caches(out, base.kv_cache, p);
            }
            // Blackwell computes in NVFP4: weights and activations in
            // 4 bits, as NVIDIA's FP4 checkpoints run (TensorRT Model
            // Optimizer's NVFP4 W4A4).
            if r.gpu.fp4.is_some() {
                let fp4 = Precisions {
                    weights: Precision::Nvfp4,
                    compute: Precision::Nvfp4,
                    ..base
                };
                out = with_both_caches(out, base.kv_cache, fp4);
            }
            // An MoE's routed experts hold most of its weights: 4-bit
            // experts beside the base's attention, as gpt-oss ships and
            // NVIDIA's FP4 DeepSeek-R1 quantizes.
            if r.spec.moe.is_some() {
                let experts = Precisions {
                    experts: Some(Precision::Int4 { group_size: 128 }),
                    ..base
                };
                out = with_both_caches(out, base.kv_cache, experts);
            }
        }
    }
    // A part without BF16 units runs FP16 in its place (`HwOption::apply`
    // writes the same into the found plan), so a BF16 format named above
    // is priced as the FP16 it becomes.
    if !r.gpu.arch.has_bf16_units() {
        out = out
            .into_iter()
            .map(Precisions::in_fp16)
            .fold(Vec::new(), with);
    }
    out
}

/// `p` with the base plan's KV-cache format and with an FP8 one.
fn with_both_caches(
    mut out: Vec<Precisions>,
    base_kv: Precision,
    p: Precisions,
) -> Vec<Precisions> {
    for kv in [base_kv, Precision::Fp8] {
        out = with(out, Precisions { kv_cache: kv, ..p });
    }
    out
}

/// An offload setting and whether it places anything in CXL memory.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OffloadOption {
    pub offload: Offload,
    pub uses_cxl: bool,
}

/// Offload settings: none; for training the optimizer states, or the
/// optimizer states and the parameters, moved wholly to each slow tier the
/// hardware has; for serving the KV cache, or the weights, or an MoE
/// model's routed experts alone, moved to it.
/// The base plan's setting is kept when its tiers exist.
pub(crate) fn offloads(r: &Resolved, base: Offload, permission: Permission) -> Vec<OffloadOption> {
    let exists = |t: Tier| r.capacity(t).base() > 0.0;
    let all = |tier: Tier| {
        Some(OffloadTarget {
            tier,
            fraction: 1.0,
        })
    };
    let tiers_exist = |o: &Offload| {
        o.targets()
            .iter()
            .flatten()
            .all(|t| t.tier == Tier::Hbm || exists(t.tier))
    };
    let uses_cxl = |o: &Offload| {
        o.targets()
            .iter()
            .flatten()
            .any(|t| t.tier == Tier::Cxl && t.fraction > 0.0)
    };
    let mut list = vec![Offload::default()];
    if permission == Permission::Allowed {
        for tier in [Tier::Cxl, Tier::HostDram, Tier::Nvme] {
            if !exists(tier) {
                continue;
            }
            match r.work {
                Work::Train { .. } => {
                    list.push(Offload {
                        optimizer: all(tier),
                        ..Offload::default()
                    });
                    list.push(Offload {
                        optimizer: all(tier),
                        parameters: all(tier),
                        ..Offload::default()
                    });
                }
                Work::Infer { .. } => {
                    list.push(Offload {
                        kv_cache: all(tier),
                        ..Offload::default()
                    });
                    list.push(Offload {
                        parameters: all(tier),
                        ..Offload::default()
                    });
                    // MoE: the routed experts alone, the dense layers in HBM.
                    if r.spec.moe.is_some() {
                        list.push(Offload {
                            experts: all(tier),
                            ..Offload::default()
                        });
                    }
                }
            }
        }
    }
    if tiers_exist(&base) && !list.contains(&base) {
        list.push(base);
    }
    list.into_iter()
        .map(|o| OffloadOption {
            uses_cxl: uses_cxl(&o),
            offload: o,
        })
        .collect()
}

/// Pipeline schedules for a PP degree: with one stage the schedule does
/// nothing and the base plan's is kept. With more: 1F1B, the base plan's,
/// and interleaving with every chunk count that divides the stage's layers
/// (as bounded). GPipe is only tried when the base plan uses it: it holds
/// every micro-batch's activations where 1F1B holds at most p, for the
/// same bubble. DualPipeV is tried when training on a stack that runs it
/// (`v_schedule`) and the layers split into its 2p chunks.
pub(crate) fn schedules(
    layers: u32,
    pp: u32,
    base: PipelineSchedule,
    interleaving: Interleaving,
    training: bool,
    v_schedule: bool,
) -> Vec<PipelineSchedule> {
    let valid = |s: PipelineSchedule| match s {
        PipelineSchedule::Interleaved { chunks } => chunks >= 1 && layers % (pp * chunks) == 0,
        _ => true,
    };
    if pp <= 1 {
        return vec![base];
    }
    let mut out = vec![PipelineSchedule::OneFOneB];
    if training {
        let most = match interleaving {
            Interleaving::Off => 1,
            Interleaving::All => layers,
            Interleaving::UpTo { chunks } => chunks,
        };
        if layers % pp == 0 {
            for v in divisors(layers / pp) {
                if v > 1 && v <= most {
                    out.push(PipelineSchedule::Interleaved { chunks: v });
                }
            }
        }
        if v_schedule && layers % pp.saturating_mul(2) == 0 {
            out.push(PipelineSchedule::DualPipeV);
        }
    }
    if valid(base) {
        out = with(out, base);
    }
    out
}

/// Micro-batch sizes (training): divisors of the sequences each
/// data-parallel rank gets per step, up to the bound, ascending; the base
/// plan's is kept when it divides.
pub(crate) fn micro_batches(per_rank: u32, max: u32, base: u32) -> Vec<u32> {
    let mut v: Vec<u32> = divisors(per_rank)
        .into_iter()
        .filter(|d| *d <= max || *d == base)
        .collect();
    v.dedup();
    v
}

/// Batches per replica (serving): powers of two up to the bound and the
/// base plan's, ascending.
pub(crate) fn batches(max: u32, base: u32) -> Vec<u32> {
    let mut v: Vec<u32> = std::iter::successors(Some(1u32), |n| n.checked_mul(2))
        .take_while(|n| *n <= max)
        .collect();
    v.push(base.max(1));
    v.sort_unstable();
    v.dedup();
    v
}

/// The levers a candidate varies, besides what the base plan fixes.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Choice {
    pub degrees: Degrees,
    pub sp: SequenceParallel,
    pub schedule: PipelineSchedule,
    pub sharding: Sharding,
    pub checkpointing: Checkpointing,
    pub precision: Precisions,
    pub offload: Offload,
    /// Micro-batch (training) or batch per replica (serving).
    pub batch: u32,
}

impl Choice {
    /// Equal apart from the data-parallel degree (which follows the GPU
    /// count): what makes a plan "the base levers on other hardware".
    pub fn same_levers(&self, o: &Choice) -> bool {
        let d = |c: &Choice| (c.degrees.tp, c.degrees.pp, c.degrees.cp, c.degrees.ep);
        d(self) == d(o)
            && self.sp == o.sp
            && self.schedule == o.schedule
            && self.sharding == o.sharding
            && self.checkpointing == o.checkpointing
            && self.precision == o.precision
            && self.offload == o.offload
            && self.batch == o.batch
    }

    /// Writes the choice into a plan's (or a resolved plan's) levers.
    /// A hybrid shard group is kept only while it divides the
    /// data-parallel group.
    pub fn apply(&self, l: &mut Levers, base_shard_group: Option<u32>, training: bool) {
        let d = self.degrees;
        let p = &mut l.parallel;
        p.tp = d.tp;
        p.pp = d.pp;
        p.dp = d.dp;
        p.cp = d.cp;
        p.ep = d.ep;
        p.sequence_parallel = self.sp;
        p.schedule = self.schedule;
        if training {
            p.micro_batch = self.batch;
        }
        l.sharding = self.sharding;
        l.checkpointing = self.checkpointing;
        l.precision = self.precision;
        l.offload = self.offload;
        let ranks = d.dp * d.cp;
        l.shard_group = base_shard_group.filter(|g| *g >= 1 && ranks % *g == 0);
    }

    /// Writes the choice into a resolved plan, as `resolve` would have.
    pub fn apply_resolved(
        &self,
        r: &mut Resolved,
        base_shard_group: Option<u32>,
        global_batch: u32,
    ) {
        let training = matches!(r.work, Work::Train { .. });
        // What the partition reads of a resolved plan, beside the model
        // (which a walk does not change): `Partition::from(&Resolved)`.
        let partition = |r: &Resolved| {
            let kind = match r.work {
                Work::Train { kind, .. } => Some(kind),
                Work::Infer { .. } => None,
            };
            (
                (r.tp, r.pp, r.ep),
                kind,
                r.levers.precision.weights,
                r.levers.pruning,
                training && r.levers.parallel.schedule.ends_on_first_rank(),
            )
        };
        let before = partition(r);
        self.apply(&mut r.levers, base_shard_group, training);
        let d = self.degrees;
        r.tp = d.tp;
        r.pp = d.pp;
        r.dp = d.dp;
        r.cp = d.cp;
        r.ep = d.ep;
        r.chunks = self.schedule.chunks_per_rank(d.pp);
        match &mut r.work {
            Work::Train { micro_batches, .. } => {
                *micro_batches =
                    crate::partition::micro_batch_count(global_batch, self.batch, d.dp);
            }
            Work::Infer { batch, .. } => *batch = self.batch,
        }
        // Most candidates keep the degrees and weights of the one before
        // (the batch is the innermost loop): their split is unchanged.
        if partition(r) != before {
            r.repartition();
        }
    }
}
