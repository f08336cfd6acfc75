//! The serving search: the engine knobs and the replica shape that carry a
//! request stream's rate within its latency objectives on the fewest GPUs.
//!
//! For each tensor-parallel degree and each combination of engine knobs
//! (token budget, running-request limit, prefix caching where the stream
//! shares a prefix, draft tokens where the plan names a drafter), one
//! replica's largest rate under the SLOs comes from the analytic steady
//! state ([`crate::serving::analytic`]); the replicas needed are the
//! stream's rate over it, rounded up, and the candidate is scored at that
//! count. Replicas serve independent shares of a Poisson stream (its
//! split is Poisson again), so one replica's figures stand for all of
//! them. Every answer lists what it changed against the base plan
//! ([`crate::diff::changes`]) and whether any of it affects the service
//! level users see.

use super::serving_space::usd_per_hour;
use super::serving_space::MAX_ADDED_REPLICAS;
pub use super::serving_space::{
    ServingFound, ServingScenario, ServingSearch, ServingSpace, MAX_VALUES,
};
use crate::diff::{changes, Impact};
use crate::plan::{Plan, Workload};
use crate::request::Arrival;

/// The rate of a plan's request stream, if the serving search can size
/// replicas to it: a serving plan under a continuous-batching engine with
/// a Poisson stream at a positive rate, and economics `evaluate` accepts.
/// Otherwise why not (the page shows its sizing button only where this
/// is `Ok`).
pub fn stream_rate(base: &Plan) -> Result<f64, String> {
    let Workload::Inference(i) = &base.workload else {
        return Err("the base plan is not a serving plan".into());
    };
    let Some(stream) = &i.stream else {
        return Err("the base plan has no request stream".into());
    };
    if !base.levers.engine.continuous() {
        return Err("the base plan's engine is static batches".into());
    }
    let Arrival::Poisson { rate } = stream.arrival else {
        return Err("the stream must arrive at a rate (Poisson)".into());
    };
    // The economics are checked as `evaluate` checks them: a broken price
    // or power figure would make every answer a plan `eval` rejects.
    let (_, econ) = crate::resolve::resolve_economics(base);
    if let Some(d) = econ
        .iter()
        .find(|d| d.severity == crate::diagnostics::Severity::Error)
    {
        return Err(d.message.clone());
    }
    let r = rate.base();
    if !(r.is_finite() && r > 0.0) {
        return Err("the stream's rate must be positive".into());
    }
    Ok(r)
}

/// The scenario's stream rate, or why it cannot be searched.
fn demand(s: &ServingScenario) -> Result<f64, String> {
    let r = stream_rate(&s.base)?;
    if !(1..=4096).contains(&s.max_gpus) {
        return Err("max_gpus must be between 1 and 4,096".into());
    }
    let space = &s.space;
    let counts = [&space.tp, &space.token_budgets, &space.max_seqs];
    let long = |l: &Vec<u32>| l.is_empty() || l.len() > MAX_VALUES;
    if counts.iter().any(|l| long(l) || l.contains(&0)) || long(&space.draft_tokens) {
        return Err(format!(
            "each space list holds 1 to {MAX_VALUES} values, none 0 but in draft_tokens"
        ));
    }
    let gb = &space.kv_tier_gb;
    if gb.len() > MAX_VALUES || gb.iter().any(|g| !(g.is_finite() && *g > 0.0)) {
        return Err(format!(
            "kv_tier_gb holds at most {MAX_VALUES} sizes, each a positive number of GB"
        ));
    }
    Ok(r)
}

/// Searches a serving scenario.
pub fn search_serving(s: &ServingScenario) -> ServingSearch {
    let mut out = ServingSearch {
        evaluated: 0,
        feasible: 0,
        best: None,
        frontier: Vec::new(),
        problem: None,
    };
    let rate = match demand(s) {
        Ok(r) => r,
        Err(p) => {
            out.problem = Some(p);
            return out;
        }
    };
    let mut found: Vec<ServingFound> = Vec::new();
    for plan in candidates(s) {
        out.evaluated += 1;
        if let Some(f) = score(s, plan, rate) {
            found.push(f);
        }
    }
    if s.space.disaggregation == crate::disagg::PoolSearch::Explore {
        let (n, pooled) = super::disagg::found(s, rate);
        out.evaluated += n;
        found.extend(pooled);
    }
    out.feasible = found.len() as u32;
    let found: Vec<ServingFound> = simulated_answers(s, found)
        .into_iter()
        .map(|f| f.against(&s.base))
        .collect();
    out.best = found.first().cloned();
    // Sorted by GPUs then TPOT: the frontier keeps each strictly lower TPOT.
    let mut low = f64::INFINITY;
    for f in found {
        if f.analytic.tpot.as_secs() < low {
            low = f.analytic.tpot.as_secs();
            out.frontier.push(f);
        }
    }
    out
}

/// Every combination of the space's values, as plans of one replica.
fn candidates(s: &ServingScenario) -> Vec<Plan> {
    let shared = match &s.base.workload {
        Workload::Inference(i) => i.stream.as_ref().is_some_and(|st| st.shared_prefix > 0),
        Workload::Training(_) => false,
    };
    // Both ways where the stream shares a prefix; the base plan's own
    // setting where nothing could be reused.
    let caching: Vec<Option<crate::engine::PrefixCaching>> = if shared {
        vec![
            Some(crate::engine::PrefixCaching::On),
            Some(crate::engine::PrefixCaching::Off),
        ]
    } else {
        vec![s.base.levers.engine_knobs.prefix_caching]
    };
    let drafts: Vec<Option<u32>> = match s.base.levers.speculative {
        Some(_) => s.space.draft_tokens.iter().map(|k| Some(*k)).collect(),
        None => vec![None],
    };
    let ways = batching_ways(s);
    let backends = moe_backends(s);
    let stores = stores(s);
    let mut out = Vec::new();
    for &tp in &s.space.tp {
        if tp > s.max_gpus {
            continue;
        }
        for &budget in &s.space.token_budgets {
            for &seqs in &s.space.max_seqs {
                for &pc in &caching {
                    for &k in &drafts {
                        let mut p = s.base.clone();
                        p.levers.disaggregation = None;
                        p.levers.parallel.tp = tp;
                        p.levers.parallel.pp = 1;
                        p.levers.parallel.dp = 1;
                        p.hardware.gpus = tp;
                        p.levers.prefill_chunk = Some(budget);
                        p.levers.engine_knobs.max_seqs = Some(seqs);
                        p.levers.engine_knobs.prefix_caching = pc;
                        if let (Some(k), Some(sp)) = (k, p.levers.speculative.as_mut()) {
                            sp.tokens = k;
                        }
                        for &way in &ways {
                            for &backend in &backends {
                                for store in &stores {
                                    let mut q = p.clone();
                                    q.levers.engine_knobs.batching = way;
                                    q.levers.engine_knobs.moe_backend = backend;
                                    if let Some(store) = store {
                                        store.apply(&mut q);
                                    }
                                    out.push(q);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

/// How prompts meet decoding, tried both ways where the engine has a
/// choice (SGLang's `--enable-mixed-chunk`, vLLM V0's chunked prefill):
/// the base plan's setting and the other; elsewhere the base plan's.
fn batching_ways(s: &ServingScenario) -> Vec<Option<crate::engine::Batching>> {
    use crate::engine::{Batching, Engine};
    let base = s.base.levers.engine_knobs.batching;
    match s.base.levers.engine {
        Engine::Sglang | Engine::VllmV0 => {
            let other = match base.unwrap_or(Batching::PrefillFirst) {
                Batching::PrefillFirst => Batching::Mixed,
                Batching::Mixed => Batching::PrefillFirst,
            };
            vec![base, Some(other)]
        }
        _ => vec![base],
    }
}

/// TensorRT-LLM's MoE backend, tried both ways where the choice changes
/// what the experts cost (an MoE model's NVFP4 experts on Blackwell,
/// [`crate::engine::MoeKernel::of`]): the base plan's setting and the
/// other; elsewhere the base plan's.
fn moe_backends(s: &ServingScenario) -> Vec<Option<crate::engine::MoeBackend>> {
    use crate::engine::{MoeBackend, MoeKernel};
    let base = s.base.levers.engine_knobs.moe_backend;
    let arch = s.base.hardware.gpu.spec().arch;
    let experts = s.base.levers.precision.expert_weights();
    let kernel = |b| MoeKernel::of(s.base.levers.engine, arch, experts, Some(b));
    let moe = s.base.model.spec().moe.is_some();
    if !moe || kernel(MoeBackend::Cutlass) == kernel(MoeBackend::Trtllm) {
        return vec![base];
    }
    let other = match base.unwrap_or(MoeBackend::Cutlass) {
        MoeBackend::Cutlass => MoeBackend::Trtllm,
        MoeBackend::Trtllm => MoeBackend::Cutlass,
    };
    vec![base, Some(other)]
}

/// One KV-store choice of the search: `levers.kv_tier`, and whether the
/// CXL hardware stays (a plan that stores nowhere on CXL and offloads
/// nothing there does not buy it).
#[derive(Debug, Clone, Copy)]
struct StoreChoice {
    tier: Option<crate::engine::KvTier>,
    keep_cxl: bool,
}

impl StoreChoice {
    fn apply(&self, p: &mut Plan) {
        p.levers.kv_tier = self.tier;
        if !self.keep_cxl {
            p.hardware.cxl = None;
            p.hardware.pool = None;
        }
    }
}

/// The stores tried: none, then each tier below HBM the base hardware has
/// at each size (`None` in the list is the base plan's own setting, when
/// the stream reuses no contexts).
fn stores(s: &ServingScenario) -> Vec<Option<StoreChoice>> {
    use crate::plan::Tier;
    let reuses = match &s.base.workload {
        Workload::Inference(i) => i.stream.as_ref().is_some_and(|st| st.reuse.is_some()),
        Workload::Training(_) => false,
    };
    if !reuses {
        return vec![None];
    }
    let hw = &s.base.hardware;
    let o = &s.base.levers.offload;
    let on_cxl = o
        .targets()
        .iter()
        .any(|t| t.is_some_and(|t| t.tier == Tier::Cxl && t.fraction > 0.0));
    let mut tiers = Vec::new();
    if hw.host_dram_per_node.base() > 0.0 {
        tiers.push(Tier::HostDram);
    }
    if hw.cxl.is_some() || hw.pool.is_some() {
        tiers.push(Tier::Cxl);
    }
    if hw.nvme_per_node.base() > 0.0 {
        tiers.push(Tier::Nvme);
    }
    let sizes: Vec<Option<crate::units::Bytes>> = if s.space.kv_tier_gb.is_empty() {
        vec![None]
    } else {
        s.space
            .kv_tier_gb
            .iter()
            .map(|g| Some(crate::units::Bytes::from_gb(*g)))
            .collect()
    };
    // The base plan's store settings (chunk, loading, preemption) carry
    // over; LMCache's defaults otherwise.
    let template = s.base.levers.kv_tier.unwrap_or(crate::engine::KvTier {
        tier: Tier::HostDram,
        capacity: None,
        chunk_tokens: crate::engine::DEFAULT_KV_CHUNK_TOKENS,
        load: crate::engine::KvLoad::Bulk,
        preempted: crate::engine::PreemptedKv::Recompute,
    });
    let mut out = vec![Some(StoreChoice {
        tier: None,
        keep_cxl: on_cxl,
    })];
    for tier in tiers {
        for &capacity in &sizes {
            let tier_choice = crate::engine::KvTier {
                tier,
                capacity,
                ..template
            };
            out.push(Some(StoreChoice {
                tier: Some(tier_choice),
                keep_cxl: on_cxl || tier == Tier::Cxl,
            }));
        }
    }
    out
}

/// A one-replica candidate scaled to the replicas the rate needs, if it
/// is valid, holds the stream's longest request and fits the budget.
fn score(s: &ServingScenario, one: Plan, rate: f64) -> Option<ServingFound> {
    let per = crate::serving::screen(&one)?;
    let slo_rate = per.max_rate_under_slo.unwrap_or(per.max_rate);
    if slo_rate <= 0.0 {
        return None;
    }
    let replicas = (rate / slo_rate * (1.0 + 1e-9)).ceil().max(1.0);
    let tp = one.levers.parallel.tp;
    let gpus = f64::from(tp) * replicas;
    if gpus > f64::from(s.max_gpus) {
        return None;
    }
    let mut plan = one;
    plan.levers.parallel.dp = replicas as u32;
    plan.hardware.gpus = gpus as u32;
    let analytic = crate::serving::analytic(&plan)?;
    if !analytic.stable {
        return None;
    }
    let changes = changes(&s.base, &plan);
    let affects_sla = changes.iter().any(|c| c.impact == Impact::Sla);
    let usd_per_hour = usd_per_hour(&plan);
    Some(ServingFound {
        usd_per_hour,
        plan,
        changes,
        affects_sla,
        gpus: gpus as u32,
        replicas: replicas as u32,
        analytic,
        simulated: None,
    })
}

/// Candidates the simulator checks for each GPU count the steady state
/// asks for: the lowest-TPOT ones, which are those the best answer and
/// the frontier are drawn from.
const CHECKED_PER_GPU_COUNT: usize = 4;

/// The answer as the iteration-level simulator sees it: while one
/// replica's simulated share of the stream misses an SLO the stream sets
/// (the steady state's M/D/1 wait is optimistic near saturation, where a
/// Poisson burst queues prompts behind each other; docs/validation.md,
/// "Serving: analytic vs simulator"), one more replica, within the GPU
/// budget. `None` when the budget runs out first. A stream without SLOs
/// is returned as it is; a disaggregated answer is checked through both
/// pools (`super::disagg::checked`).
fn checked(s: &ServingScenario, mut f: ServingFound) -> Option<ServingFound> {
    if !has_slo(&f.plan) {
        return Some(f);
    }
    if f.plan.levers.disaggregation.is_some() {
        return super::disagg::checked(s, f);
    }
    let tp = f.plan.levers.parallel.tp.max(1);
    for _ in 0..=MAX_ADDED_REPLICAS {
        let sim = crate::serving::simulate(&f.plan)?;
        if sim.meets_slo {
            f.simulated = Some(sim);
            return Some(f);
        }
        let replicas = f.replicas + 1;
        let gpus = u64::from(tp) * u64::from(replicas);
        if gpus > u64::from(s.max_gpus) {
            return None;
        }
        f.replicas = replicas;
        f.gpus = gpus as u32;
        f.plan.levers.parallel.dp = replicas;
        f.plan.hardware.gpus = gpus as u32;
        f.analytic = crate::serving::analytic(&f.plan)?;
        f.changes = changes(&s.base, &f.plan);
        f.affects_sla = f.changes.iter().any(|c| c.impact == Impact::Sla);
        f.usd_per_hour = usd_per_hour(&f.plan);
    }
    None
}

/// Whether the plan's stream sets any latency objective.
fn has_slo(p: &Plan) -> bool {
    match &p.workload {
        Workload::Inference(i) => i.stream.as_ref().is_some_and(|st| st.slo.is_set()),
        Workload::Training(_) => false,
    }
}

/// The answers sorted by GPUs, then TPOT, then TTFT p99, and of each
/// GPU count the [`CHECKED_PER_GPU_COUNT`] best checked by the simulator
/// ([`checked`]); the rest cannot be the best answer or on the frontier
/// unless a checked one moves past them, and are left out.
fn simulated_answers(s: &ServingScenario, mut found: Vec<ServingFound>) -> Vec<ServingFound> {
    sort_answers(&mut found);
    // Sorted by GPUs first, so each GPU count is one run.
    let mut run: Option<(u32, usize)> = None;
    let mut out = Vec::new();
    for f in found {
        let seen = match run {
            Some((gpus, n)) if gpus == f.gpus => n,
            _ => 0,
        };
        run = Some((f.gpus, seen + 1));
        if seen >= CHECKED_PER_GPU_COUNT {
            continue;
        }
        if let Some(c) = checked(s, f) {
            out.push(c);
        }
    }
    sort_answers(&mut out);
    out
}

fn sort_answers(found: &mut [ServingFound]) {
    let key = |f: &ServingFound| {
        (
            f.gpus,
            f.analytic.tpot.as_secs(),
            f.analytic.ttft.p99.as_secs(),
        )
    };
    found.sort_by(|a, b| {
        let (x, y) = (key(a), key(b));
        x.0.cmp(&y.0)
            .then(x.1.total_cmp(&y.1))
            .then(x.2.total_cmp(&y.2))
    });
}

/// The serving scenario the benchmark and `memwall` examples use: the
/// serving example (Llama 3.1 70B under vLLM, Poisson 10 requests/s,
/// TTFT p99 ≤ 2 s, TPOT p99 ≤ 100 ms) on at most 16 H100s, with an
/// EAGLE head whose draft tokens are accepted at α = 0.7 (an input here,
/// not a measurement), over the default space.
pub fn example_serving_scenario() -> ServingScenario {
    let mut base = crate::example_serving_plan();
    base.levers.speculative = Some(crate::engine::Speculation {
        drafter: crate::engine::Drafter::Heads { layers: 1 },
        tokens: 0,
        acceptance: 0.7,
    });
    ServingScenario {
        base,
        max_gpus: 16,
        space: ServingSpace::default(),
    }
}
