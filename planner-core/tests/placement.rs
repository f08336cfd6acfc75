//! Placement by heat: coldest state first, fastest tier with room, only as
//! much as HBM needs, and the transfers show up in the time.

use planner_core::catalog::{GpuId, ModelId};
use planner_core::evaluate;
use planner_core::hardware::{GpuChoice, Hardware};
use planner_core::placement::MovableState;
use planner_core::plan::{
    Inference, Levers, LogitsScope, ModelChoice, Placement, Plan, Tier, Training, TrainingKind,
    Workload,
};
use planner_core::report::{ItemKind, TimeKind, TimeReport, Verdict};
use planner_core::units::Bytes;

fn finetune(model: ModelId, gpu: GpuId, placement: Placement) -> Plan {
    Plan {
        version: 1,
        name: String::new(),
        model: ModelChoice::Preset(model),
        workload: Workload::Training(Training {
            kind: TrainingKind::FullFineTune,
            seq_len: 2048,
            global_batch: 8,
            tokens: 0.0,
        }),
        levers: Levers {
            placement,
            checkpointing: planner_core::plan::Checkpointing::Full,
            ..Levers::default()
        },
        hardware: Hardware::new(GpuChoice::Preset(gpu), 1),
        overheads: Default::default(),
        efficiency: Default::default(),
        economics: Default::default(),
        distillation: None,
    }
}

#[test]
fn moves_optimizer_states_first_and_only_what_is_needed() {
    let manual = evaluate(&finetune(
        ModelId::Llama2_7b,
        GpuId::A100Sxm80,
        Placement::Manual,
    ));
    assert_eq!(manual.verdict, Verdict::DoesNotFit);
    let heat = evaluate(&finetune(
        ModelId::Llama2_7b,
        GpuId::A100Sxm80,
        Placement::ByHeat,
    ));
    assert_eq!(heat.verdict, Verdict::Fits, "{:?}", heat.diagnostics);
    let first = heat.placement.first().expect("something moved");
    assert_eq!(first.state, MovableState::Optimizer);
    assert_eq!(first.tier, Tier::HostDram);
    // Partial move: HBM ends up nearly full, not emptied.
    let d = heat.binding_device().expect("device");
    let used = d.hbm_used().as_gib();
    let cap = d
        .tiers
        .iter()
        .find(|t| t.tier == Tier::Hbm)
        .map_or(0.0, |t| t.capacity.as_gib());
    assert!(
        used > 0.9 * cap,
        "HBM {used} of {cap} GiB: moved more than needed"
    );
    assert!(d.of_kind(ItemKind::OptimizerStates).as_gib() > 0.0);
    // The copies cost time.
    let TimeReport::Training(t) = &heat.time else {
        unreachable!()
    };
    assert!(t
        .parts
        .iter()
        .any(|p| p.kind == TimeKind::TransferHost && p.busy.as_secs() > 0.0));
}

#[test]
fn nothing_moves_when_everything_fits() {
    let r = evaluate(&finetune(
        ModelId::Llama2_7b,
        GpuId::H200Sxm,
        Placement::ByHeat,
    ));
    assert_eq!(r.verdict, Verdict::Fits);
    assert!(r.placement.is_empty());
}

/// Behind an A100's PCIe 4.0 link the expander (4 × 30 GB/s) and host DRAM
/// both copy at the link's speed; on that tie CXL goes first.
#[test]
fn prefers_cxl_over_host_memory() {
    let mut p = finetune(ModelId::Llama2_7b, GpuId::A100Sxm80, Placement::ByHeat);
    p.hardware.cxl = Some(planner_core::hardware::CxlExpansion {
        devices_per_node: 4,
        device: planner_core::hardware::CxlChoice::Custom(planner_core::hardware::CxlSpec {
            capacity: Bytes::from_gb(256.0),
            bandwidth: planner_core::units::ByteRate::from_gb_per_s(30.0),
            latency: planner_core::units::Seconds::from_nanos(250.0),
        }),
    });
    let r = evaluate(&p);
    assert_eq!(r.verdict, Verdict::Fits);
    assert_eq!(r.placement[0].tier, Tier::Cxl);
}

#[test]
fn serving_moves_the_kv_cache_first() {
    let plan = Plan {
        version: 1,
        name: String::new(),
        model: ModelChoice::Preset(ModelId::Llama31_8b),
        workload: Workload::Inference(Inference {
            prompt_tokens: 120_000,
            output_tokens: 1000,
            batch: 8,
            logits: LogitsScope::LastToken,
            stream: None,
        }),
        levers: Levers {
            placement: Placement::ByHeat,
            prefill_chunk: Some(8192),
            ..Levers::default()
        },
        hardware: Hardware::new(GpuChoice::Preset(GpuId::H100Sxm), 1),
        overheads: Default::default(),
        efficiency: Default::default(),
        economics: Default::default(),
        distillation: None,
    };
    let r = evaluate(&plan);
    assert_eq!(r.verdict, Verdict::Fits, "{:?}", r.diagnostics);
    assert_eq!(r.placement[0].state, MovableState::KvCache);
    let TimeReport::Inference(t) = &r.time else {
        unreachable!()
    };
    assert!(t.decode.iter().any(|p| p.kind == TimeKind::TransferHost));
}

/// A Grace-Hopper superchip reaches its host memory over NVLink-C2C, so
/// the same offload costs a fraction of what it costs over PCIe.
#[test]
fn unified_memory_over_c2c_makes_offload_cheap() {
    let transfer = |gpu| {
        let mut p = finetune(ModelId::Llama2_7b, gpu, Placement::ByHeat);
        p.levers.checkpointing = planner_core::plan::Checkpointing::Full;
        let r = evaluate(&p);
        assert_eq!(r.verdict, Verdict::Fits, "{gpu:?}: {:?}", r.diagnostics);
        let TimeReport::Training(t) = &r.time else {
            unreachable!()
        };
        t.parts
            .iter()
            .filter(|x| x.kind == TimeKind::TransferHost)
            .map(|x| x.busy.as_secs())
            .sum::<f64>()
    };
    let pcie = transfer(GpuId::H100Sxm);
    let c2c = transfer(GpuId::Gh200_96);
    assert!(pcie > 0.0 && c2c > 0.0);
    assert!(c2c < pcie / 5.0, "C2C {c2c} s vs PCIe {pcie} s");
}

/// Use and capacity of `tier` on every device of the report, per GPU.
fn tier_use(r: &planner_core::report::Report, tier: Tier) -> Vec<(f64, f64)> {
    r.devices
        .iter()
        .flat_map(|d| d.tiers.iter().filter(|t| t.tier == tier))
        .map(|t| (t.used.as_gib(), t.capacity.as_gib()))
        .collect()
}

/// Issue finding: placement by heat spilled optimizer states to NVMe while
/// host DRAM sat empty and was faster. Host DRAM too small for all of the
/// fraction HBM needs still takes what it holds before NVMe takes the rest.
#[test]
fn fills_host_memory_before_spilling_to_nvme() {
    let mut p = finetune(ModelId::Llama2_7b, GpuId::A100Sxm80, Placement::ByHeat);
    p.hardware.gpus = 8;
    p.levers.parallel.dp = 8;
    // 25 GB of host DRAM per GPU: less than the ~40 GB of optimizer
    // states each GPU must shed, more than nothing.
    p.hardware.host_dram_per_node = Bytes::from_gb(200.0);
    p.hardware.nvme_per_node = Bytes::from_tb(30.0);
    let r = evaluate(&p);
    assert_eq!(r.verdict, Verdict::Fits, "{:?}", r.diagnostics);
    // HBM fits on every device, and the last state moved only as much as
    // HBM needs.
    for (used, cap) in tier_use(&r, Tier::Hbm) {
        assert!(used <= cap && used > 0.9 * cap, "HBM {used} of {cap} GiB");
    }
    // The coldest state goes to host DRAM first, and NVMe only follows it.
    assert_eq!(r.placement[0].state, MovableState::Optimizer);
    assert_eq!(r.placement[0].tier, Tier::HostDram, "{:?}", r.placement);
    assert!(r.placement.iter().any(|x| x.tier == Tier::Nvme));
    let first_nvme = r.placement.iter().position(|x| x.tier == Tier::Nvme);
    let last_host = r.placement.iter().rposition(|x| x.tier == Tier::HostDram);
    assert!(last_host < first_nvme, "{:?}", r.placement);
    // Nothing is in NVMe while host DRAM has room: it is filled to within
    // the search's resolution (1/1024 of the state) of its capacity.
    for (used, cap) in tier_use(&r, Tier::HostDram) {
        assert!(
            used > 0.97 * cap && used <= cap,
            "host DRAM {used} of {cap} GiB while NVMe is used"
        );
    }
    assert!(tier_use(&r, Tier::Nvme).iter().all(|(u, _)| *u > 0.0));
}

/// "Fastest" means fastest: on a Grace-Hopper, host DRAM over NVLink-C2C
/// outruns a CXL expander, so it is chosen first even though CXL comes
/// first when the two tie at a PCIe link.
#[test]
fn tier_order_follows_speed() {
    let mut p = finetune(ModelId::Llama2_13b, GpuId::Gh200_144, Placement::ByHeat);
    p.hardware.gpus_per_node = 1;
    p.hardware.host_dram_per_node = Bytes::from_gb(480.0);
    p.hardware.cxl = Some(planner_core::hardware::CxlExpansion {
        devices_per_node: 2,
        device: planner_core::hardware::CxlChoice::Preset(
            planner_core::catalog::CxlId::Cxl2X16Expander,
        ),
    });
    let r = evaluate(&p);
    assert_eq!(r.verdict, Verdict::Fits, "{:?}", r.diagnostics);
    assert!(!r.placement.is_empty());
    assert!(
        r.placement.iter().all(|x| x.tier == Tier::HostDram),
        "{:?}",
        r.placement
    );
    assert!(tier_use(&r, Tier::Cxl).iter().all(|(u, _)| *u == 0.0));
}
