//! Expert offload while serving (`levers.offload.experts`): the routed
//! experts of an MoE model live in a slower tier and the experts a decode
//! step touches are copied to HBM for it, while the dense weights stay
//! where `parameters` puts them (MoE-Lightning, arXiv 2411.11217;
//! llama.cpp `--n-cpu-moe`). Bounds follow from bytes over the host
//! link's peak, not from the model's own efficiencies.

use planner_core::catalog::{self, GpuId, LinkId, ModelId};
use planner_core::diagnostics::DiagnosticKind;
use planner_core::evaluate;
use planner_core::hardware::{GpuChoice, Hardware};
use planner_core::plan::{
    Inference, Levers, LogitsScope, ModelChoice, Offload, OffloadTarget, Plan, Tier, Workload,
};
use planner_core::report::{ItemKind, Report, TimeKind, TimeReport, Verdict};

fn serve(model: ModelId, offload: Offload, batch: u32) -> Plan {
    Plan {
        version: 1,
        name: "expert offload".into(),
        model: ModelChoice::Preset(model),
        workload: Workload::Inference(Inference {
            prompt_tokens: 512,
            output_tokens: 128,
            batch,
            logits: LogitsScope::LastToken,
            stream: None,
        }),
        levers: Levers {
            offload,
            ..Levers::default()
        },
        hardware: Hardware::new(GpuChoice::Preset(GpuId::H100Sxm), 1),
        overheads: Default::default(),
        efficiency: Default::default(),
        economics: Default::default(),
        distillation: None,
    }
}

fn experts_to(tier: Tier, fraction: f64) -> Offload {
    Offload {
        experts: Some(OffloadTarget { tier, fraction }),
        ..Offload::default()
    }
}

fn tpot(r: &Report) -> f64 {
    match &r.time {
        TimeReport::Inference(t) => t.tpot.as_secs(),
        TimeReport::Training(_) => f64::NAN,
    }
}

fn decode_host_busy(r: &Report) -> f64 {
    match &r.time {
        TimeReport::Inference(t) => t
            .decode
            .iter()
            .filter(|x| x.kind == TimeKind::TransferHost)
            .map(|x| x.busy.as_secs())
            .sum(),
        TimeReport::Training(_) => 0.0,
    }
}

fn weights_in(r: &Report, tier: Tier) -> f64 {
    r.binding_device().map_or(0.0, |d| {
        d.items
            .iter()
            .filter(|i| i.kind == ItemKind::Weights && i.tier == tier)
            .map(|i| i.bytes.base())
            .sum()
    })
}

/// Mixtral 8x7B in BF16 (~93 GB) does not fit one H100; with its experts
/// in host DRAM it does, the dense part stays in HBM, and a decode step of
/// one sequence waits at least for the two experts per layer it touches
/// to cross PCIe 5.0 (32 layers × 2 × 3 × 4096 × 14336 × 2 B ≈ 22.5 GB).
#[test]
fn mixtral_on_one_h100_with_experts_in_host_dram() {
    let all_in_hbm = evaluate(&serve(ModelId::Mixtral8x7b, Offload::default(), 1));
    assert_ne!(all_in_hbm.verdict, Verdict::Fits);
    let r = evaluate(&serve(
        ModelId::Mixtral8x7b,
        experts_to(Tier::HostDram, 1.0),
        1,
    ));
    assert_eq!(r.verdict, Verdict::Fits, "{:?}", r.diagnostics);
    let (hbm, host) = (weights_in(&r, Tier::Hbm), weights_in(&r, Tier::HostDram));
    assert!(host > 85e9 && host < 95e9, "experts in host: {host}");
    assert!(hbm > 1e9 && hbm < 5e9, "dense weights in HBM: {hbm}");
    let touched = 32.0 * 2.0 * 3.0 * 4096.0 * 14336.0 * 2.0;
    let link = catalog::link(LinkId::Pcie5x16).per_direction.base();
    let t = tpot(&r);
    assert!(t >= touched / link, "TPOT {t} below {}", touched / link);
    // ... and not as slow as copying every expert every step.
    assert!(
        t < host / link,
        "TPOT {t} above all experts {}",
        host / link
    );
}

/// The copy of one decode step: the touched experts' bytes over the host
/// link, plus one copy per touched expert and MoE layer, each paying the
/// driver's per-copy cost; the dense weights in HBM add nothing.
#[test]
fn a_step_copies_only_the_touched_experts() {
    let r = evaluate(&serve(
        ModelId::Mixtral8x7b,
        experts_to(Tier::HostDram, 1.0),
        1,
    ));
    let touched = 32.0 * 2.0 * 3.0 * 4096.0 * 14336.0 * 2.0;
    let link = catalog::link(LinkId::Pcie5x16).per_direction.base();
    let copies = 32.0 * 2.0 * catalog::DMA_COPY_OVERHEAD_S;
    let busy = decode_host_busy(&r);
    assert!(busy >= touched / link + copies, "{busy}");
    // Only the host link's efficiency lies between the bound and the model.
    assert!(busy < 1.5 * (touched / link) + copies, "{busy}");
}

/// More sequences in a step touch more experts: the copy grows with the
/// batch until every expert is fetched, then stops.
#[test]
fn copies_grow_with_the_experts_a_batch_touches() {
    let busy = |b| {
        decode_host_busy(&evaluate(&serve(
            ModelId::Mixtral8x7b,
            experts_to(Tier::HostDram, 1.0),
            b,
        )))
    };
    let (one, four, many) = (busy(1), busy(4), busy(64));
    assert!(one < four && four <= many, "{one} {four} {many}");
    assert!(
        (many - busy(128)).abs() <= 1e-6 * many,
        "saturates at all experts"
    );
}

/// Not an MoE model, or not serving: the lever is ignored with a note and
/// the report is the one without it.
#[test]
fn ignored_for_dense_models_and_training() {
    let with = evaluate(&serve(
        ModelId::Llama31_8b,
        experts_to(Tier::HostDram, 1.0),
        1,
    ));
    let without = evaluate(&serve(ModelId::Llama31_8b, Offload::default(), 1));
    assert!(with.diagnostics.iter().any(|d| matches!(
        &d.detail,
        DiagnosticKind::LeverIgnored {
            lever: planner_core::IgnoredLever::ExpertOffloadDense
        }
    )));
    assert_eq!(tpot(&with), tpot(&without));
    assert_eq!(weights_in(&with, Tier::HostDram), 0.0);

    let mut train = planner_core::example_plan();
    train.levers.offload.experts = Some(OffloadTarget {
        tier: Tier::HostDram,
        fraction: 1.0,
    });
    let r = evaluate(&train);
    assert!(r.diagnostics.iter().any(|d| matches!(
        &d.detail,
        DiagnosticKind::LeverIgnored {
            lever: planner_core::IgnoredLever::ExpertOffload
        }
    )));
}

/// A bad fraction is refused by its field; an absent lever is left out of
/// the JSON, so plans and links written before it read and write the same.
#[test]
fn fraction_checked_by_name_and_absent_lever_not_written() {
    let r = evaluate(&serve(
        ModelId::Mixtral8x7b,
        experts_to(Tier::HostDram, 1.5),
        1,
    ));
    assert_eq!(r.verdict, Verdict::Invalid);
    assert!(r.diagnostics.iter().any(|d| matches!(&d.detail,
        DiagnosticKind::InvalidValue { field, .. } if field == "levers.offload.experts.fraction")));
    let json = serde_json::to_string(&serve(ModelId::Mixtral8x7b, Offload::default(), 1))
        .unwrap_or_default();
    assert!(!json.contains("experts\""), "{json}");
    let with = serve(ModelId::Mixtral8x7b, experts_to(Tier::Nvme, 0.5), 1);
    let back: Plan = serde_json::from_str(&serde_json::to_string(&with).unwrap_or_default())
        .unwrap_or_else(|_| serve(ModelId::Llama31_8b, Offload::default(), 1));
    assert_eq!(back, with);
}

/// The search offers expert offload for MoE serving: Mixtral 8x7B in BF16
/// on at most one H100, narrower formats not allowed, has no plan in HBM
/// alone; its answers keep the experts apart, fit, and never beat the
/// physics floor (bytes of the experts a token picks over the host link).
#[test]
fn the_search_finds_expert_offload_and_respects_the_floor() {
    use planner_core::search::{Constraints, GpuCounts, Permission, Scenario, Space};
    let base = serve(ModelId::Mixtral8x7b, Offload::default(), 1);
    let s = Scenario {
        version: 1,
        name: base.name.clone(),
        base,
        max_gpus: 1,
        gpu_counts: GpuCounts::PowersOfTwo,
        constraints: Constraints {
            gpu_kinds: Some(vec![GpuId::H100Sxm]),
            quantization: Permission::Forbidden,
            ..Constraints::default()
        },
        space: Space::default(),
        prices: Vec::new(),
    };
    let result = planner_core::search::search(&s);
    let found: Vec<&Plan> = result.frontier.iter().map(|f| &f.plan).collect();
    assert!(!found.is_empty(), "no answer");
    assert!(
        found.iter().any(|p| p.levers.offload.experts.is_some()),
        "no expert offload among {:?}",
        found.iter().map(|p| p.levers.offload).collect::<Vec<_>>()
    );
    for p in found {
        let r = evaluate(p);
        assert_eq!(r.verdict, Verdict::Fits, "{:?}", r.diagnostics);
        let f = planner_core::floor::floor(p).map_or(0.0, |f| f.time.as_secs());
        assert!(
            tpot(&r) >= f * (1.0 - 1e-9),
            "TPOT {} < floor {f}",
            tpot(&r)
        );
    }
}
