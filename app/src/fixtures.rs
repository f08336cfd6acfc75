//! Plans for the app's native tests: the example training plan, the same
//! model served, and a variant that offloads to host memory.

use planner_core::catalog::GpuId;
use planner_core::hardware::{GpuChoice, Hardware};
use planner_core::plan::{
    Inference, Levers, LogitsScope, OffloadTarget, Parallelism, Plan, Tier, Workload,
};
use planner_core::{evaluate, example_plan, Report};

/// The example plan: Llama 2 7B pre-training on 8×H100 with ZeRO-1.
pub fn training() -> Plan {
    example_plan()
}

/// Llama 2 7B served on 8×H100, one replica per GPU.
pub fn serving() -> Plan {
    let mut p = example_plan();
    p.name = "serve, \"fast\"".into();
    p.workload = Workload::Inference(Inference {
        prompt_tokens: 2048,
        output_tokens: 512,
        batch: 32,
        logits: LogitsScope::LastToken,
        stream: None,
    });
    p.levers = Levers {
        parallel: Parallelism {
            dp: 8,
            ..Parallelism::default()
        },
        ..Levers::default()
    };
    p
}

/// The example plan with its optimizer states in host DRAM, on H200s.
pub fn offload() -> Plan {
    let mut p = example_plan();
    p.name = "offload, H200".into();
    p.levers.offload.optimizer = Some(OffloadTarget {
        tier: Tier::HostDram,
        fraction: 1.0,
    });
    p.hardware = Hardware {
        nvme_per_node: p.hardware.nvme_per_node,
        ..Hardware::new(GpuChoice::Preset(GpuId::H200Sxm), 8)
    };
    p
}

/// The three plans and their reports.
pub fn three() -> (Vec<Plan>, Vec<Report>) {
    let plans = vec![training(), serving(), offload()];
    let reports = plans.iter().map(evaluate).collect();
    (plans, reports)
}
