//! Inverse answers stop at the model's trained context: a longest-context
//! figure past `max_position_embeddings` would recommend a context the
//! model was never trained for.

#[path = "common/refused.rs"]
mod refused;
use refused::assert_refused_by_name;

use planner_core::catalog::{GpuId, ModelId};
use planner_core::evaluate;
use planner_core::hardware::{GpuChoice, Hardware};
use planner_core::plan::{Inference, LogitsScope, ModelChoice, Workload};
use planner_core::report::ContextLimit;

/// Llama 3.1 8B (trained to 131,072 tokens) served one sequence at a time
/// on four H200s: memory would hold about a million tokens of context
/// (the review saw 995,232 offered), the model only 131,072.
#[test]
fn longest_context_stops_at_the_trained_context() {
    let mut p = planner_core::example_plan();
    p.model = ModelChoice::Preset(ModelId::Llama31_8b);
    p.workload = Workload::Inference(Inference {
        prompt_tokens: 1000,
        output_tokens: 1000,
        batch: 1,
        logits: LogitsScope::LastToken,
        stream: None,
    });
    p.levers = Default::default();
    p.levers.parallel.tp = 4;
    p.hardware = Hardware::new(GpuChoice::Preset(GpuId::H200Sxm), 4);
    let r = evaluate(&p);
    let l = r.inference.expect("serving limits");
    assert_eq!(l.max_context, 131_072);
    assert_eq!(l.context_limit, ContextLimit::TrainedContext);
}

/// Where memory binds first, the answer says so.
#[test]
fn memory_bounds_when_it_binds_first() {
    let mut p = planner_core::example_plan();
    p.model = ModelChoice::Preset(ModelId::Llama31_8b);
    p.workload = Workload::Inference(Inference {
        prompt_tokens: 1000,
        output_tokens: 1000,
        batch: 256,
        logits: LogitsScope::LastToken,
        stream: None,
    });
    p.levers = Default::default();
    p.hardware = Hardware::new(GpuChoice::Preset(GpuId::H100Sxm), 1);
    let l = evaluate(&p).inference.expect("serving limits");
    assert!(l.max_context < 131_072, "{}", l.max_context);
    assert_eq!(l.context_limit, ContextLimit::Memory);
}

/// A link or file with absurd dimensions (hardening finding 1: 2³²−1
/// layers cost about 400 s of CPU) is refused by field and evaluated on
/// the bound instead, so its cost stays bounded.
#[test]
fn absurd_dimensions_are_refused_by_field() {
    use planner_core::plan::CustomModel;
    let mut spec = planner_core::catalog::model(ModelId::Llama31_8b).spec;
    spec.layers = u32::MAX;
    spec.hidden = u32::MAX;
    let mut p = planner_core::example_plan();
    p.model = ModelChoice::Custom(CustomModel {
        shipped: None,
        name: "absurd".into(),
        spec,
    });
    let r = evaluate(&p);
    for field in ["model.layers", "model.hidden"] {
        assert_refused_by_name(&r, field);
    }
}

/// A search space that cannot be walked is refused up front, naming the
/// count and the bound (hardening finding 5: node multiples up to 10⁹
/// GPUs were collected into a list of 1.25 × 10⁸ counts).
#[test]
fn an_unbounded_search_is_refused_up_front() {
    use planner_core::search::{search, Constraints, GpuCounts, Scenario, Space};
    let s = Scenario {
        version: 1,
        name: "every node multiple".into(),
        base: planner_core::example_plan(),
        max_gpus: 1_000_000_000,
        gpu_counts: GpuCounts::NodeMultiples,
        constraints: Constraints::default(),
        space: Space::default(),
        prices: Vec::new(),
    };
    let r = search(&s);
    assert!(r.frontier.is_empty());
    assert!(
        r.diagnostics
            .iter()
            .any(|d| d.message.contains("gpu_counts")),
        "{:?}",
        r.diagnostics
    );
}
