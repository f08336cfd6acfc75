//! Migration checklists: what a team must change or verify to adopt a plan,
//! item by item, generated from the levers and hardware the plan uses
//! beyond a baseline ([`effort::efforts`]) and from the plan's own figures
//! (its memory margin, its largest item, its checkpoint interval).
//!
//! Every item carries its category, its text and the reason it follows from
//! the plan, each in English and Simplified Chinese, so the app can show
//! either language without re-deriving anything. Items are data; their
//! order is the order of the levers in [`Lever`], then the plan-wide items.
//!
//! The items for each lever are in `levers`, the plan-wide items from the
//! plan's figures in `figures`, and the words for the plan's choices in
//! `names`.

mod engine;
mod figures;
mod levers;
mod names;

use crate::checkpoint::CheckpointSettings;
use crate::effort::{self, Lever, MigrationClass};
use crate::evaluate::evaluate;
use crate::lang::Lang;
pub use crate::lang::Text;
use crate::plan::{Plan, Workload};
use serde::{Deserialize, Serialize};

/// What kind of work an item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// The framework must support a feature (a ZeRO stage, paged KV, FP8).
    FrameworkSupport,
    /// The model or training code changes.
    CodeChange,
    /// Machines, memory devices or network to provision or re-check.
    Infrastructure,
    /// Isolation and access control of shared or pooled memory.
    Isolation,
    /// Alerts, post-mortems and state persistence to set up.
    Monitoring,
}

impl Category {
    /// Every category, in display order.
    pub const ALL: [Category; 5] = [
        Category::FrameworkSupport,
        Category::CodeChange,
        Category::Infrastructure,
        Category::Isolation,
        Category::Monitoring,
    ];

    /// The category's name in a language.
    pub fn label(self, lang: Lang) -> &'static str {
        match (self, lang) {
            (Category::FrameworkSupport, Lang::En) => "Framework support",
            (Category::FrameworkSupport, Lang::Zh) => "框架支持",
            (Category::CodeChange, Lang::En) => "Code changes",
            (Category::CodeChange, Lang::Zh) => "代码修改",
            (Category::Infrastructure, Lang::En) => "Infrastructure",
            (Category::Infrastructure, Lang::Zh) => "基础设施",
            (Category::Isolation, Lang::En) => "Isolation and access control",
            (Category::Isolation, Lang::Zh) => "隔离与访问控制",
            (Category::Monitoring, Lang::En) => "Monitoring",
            (Category::Monitoring, Lang::Zh) => "监控",
        }
    }
}

/// One thing to change or verify.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ChecklistItem {
    /// A stable key (`sharding.framework`), for tests and links.
    pub id: String,
    /// What kind of work.
    pub category: Category,
    /// The lever it follows from (`None` for plan-wide items).
    pub lever: Option<Lever>,
    /// The kind of change (from [`effort`]).
    pub class: MigrationClass,
    /// What to do.
    pub text: Text,
    /// Why the plan needs it.
    pub reason: Text,
}

/// A plan's checklist.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Checklist {
    /// The plan's name.
    pub plan: String,
    /// The baseline's name.
    pub baseline: String,
    /// Whether the baseline is the plain one ([`effort::plain_baseline`]).
    pub plain_baseline: bool,
    /// The most disruptive change.
    pub migration: MigrationClass,
    /// Assumed person-weeks, from [`effort`].
    pub person_weeks: f64,
    /// The items.
    pub items: Vec<ChecklistItem>,
}

impl Checklist {
    /// The checklist as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Items of one category.
    pub fn of(&self, category: Category) -> impl Iterator<Item = &ChecklistItem> {
        self.items.iter().filter(move |i| i.category == category)
    }
}

/// A text from its English and Chinese.
fn t(en: impl Into<String>, zh: impl Into<String>) -> Text {
    Text::new(en, zh)
}

/// An item before it is tagged with the lever it follows from and the kind
/// of change.
struct Draft {
    id: &'static str,
    category: Category,
    text: Text,
    reason: Text,
}

/// An item's key, category, text and reason.
fn draft(id: &'static str, category: Category, text: Text, reason: Text) -> Draft {
    Draft {
        id,
        category,
        text,
        reason,
    }
}

impl Draft {
    /// The item, following from `lever` (`None` for plan-wide items) with a
    /// change of kind `class`.
    fn tag(self, lever: Option<Lever>, class: MigrationClass) -> ChecklistItem {
        ChecklistItem {
            id: self.id.into(),
            category: self.category,
            lever,
            class,
            text: self.text,
            reason: self.reason,
        }
    }
}

/// The checklist of `plan` against `baseline`; `checkpoint` sets the
/// storage and failure assumptions behind the checkpoint items.
pub fn checklist(plan: &Plan, baseline: &Plan, checkpoint: &CheckpointSettings) -> Checklist {
    let efforts: Vec<_> = effort::efforts(plan, baseline, &plan.economics.engineering)
        .into_iter()
        .filter(|e| acts_on(e.lever, &plan.workload))
        .collect();
    let mut items: Vec<ChecklistItem> = efforts
        .iter()
        .flat_map(|e| levers::lever_items(plan, e.lever, e.class))
        .collect();
    let report = evaluate(plan);
    items.extend(
        figures::plan_items(plan, &report, checkpoint)
            .into_iter()
            .map(|d| d.tag(None, MigrationClass::None)),
    );
    Checklist {
        plan: plan.name.clone(),
        baseline: baseline.name.clone(),
        plain_baseline: false,
        migration: effort::migration_class(&efforts),
        person_weeks: effort::person_weeks(&efforts),
        items,
    }
}

/// Whether a lever does anything for the plan's workload: recomputation,
/// ZeRO/FSDP sharding and the optimizer act on training states only;
/// chunked prefill and the KV-cache format on serving only. A lever set
/// where it does nothing is named as ignored by the plan's diagnostics
/// (resolve's `LeverIgnored`) and asks nothing of a team, so it gets no
/// checklist item and no effort (issue 15: a serving plan's checklist
/// said "Turn on ZeRO-1").
fn acts_on(lever: Lever, workload: &Workload) -> bool {
    let trains = matches!(workload, Workload::Training(_));
    match lever {
        Lever::Sharding
        | Lever::ActivationCheckpointing
        | Lever::Optimizer
        | Lever::TrainingStack => trains,
        Lever::ChunkedPrefill | Lever::KvCacheQuantization => !trains,
        _ => true,
    }
}

/// The checklist against the plain baseline on the same GPUs
/// ([`effort::plain_baseline`]).
pub fn checklist_from_plain(plan: &Plan, checkpoint: &CheckpointSettings) -> Checklist {
    let base = effort::plain_baseline(plan);
    let mut c = checklist(plan, &base, checkpoint);
    c.plain_baseline = true;
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::example_plan;
    use crate::hardware::MemoryPool;
    use crate::plan::{OffloadTarget, Tier};
    use crate::units::{ByteRate, Bytes, Seconds};

    fn ids(c: &Checklist) -> Vec<String> {
        c.items.iter().map(|i| i.id.clone()).collect()
    }

    fn list(p: &Plan) -> Checklist {
        checklist_from_plain(p, &CheckpointSettings::default())
    }

    #[test]
    fn every_item_is_bilingual_and_explained() {
        let mut p = example_plan();
        p.levers.parallel.tp = 2;
        p.levers.parallel.dp = 4;
        p.levers.memory_cap = Some(0.9);
        let c = list(&p);
        assert!(!c.items.is_empty());
        for i in &c.items {
            for s in [&i.text.en, &i.reason.en, &i.text.zh, &i.reason.zh] {
                assert!(!s.trim().is_empty(), "{}", i.id);
            }
            let cjk = |s: &str| s.chars().any(|ch| ('\u{4e00}'..='\u{9fff}').contains(&ch));
            assert!(cjk(&i.text.zh) && cjk(&i.reason.zh), "{}", i.id);
            assert!(!cjk(&i.text.en), "{}", i.id);
        }
        for cat in Category::ALL {
            assert_ne!(cat.label(Lang::En), cat.label(Lang::Zh));
        }
    }

    #[test]
    fn checklists_change_when_levers_change() {
        let base = example_plan();
        let a = ids(&list(&base));
        assert!(a.contains(&"sharding.framework".to_string()));
        assert!(a.contains(&"recompute.wrap".to_string()));
        assert!(a.contains(&"monitor.checkpoint".to_string()));
        assert!(!a.iter().any(|x| x.starts_with("tp.")));

        let mut tp = base.clone();
        tp.levers.parallel.tp = 2;
        tp.levers.parallel.dp = 4;
        let b = ids(&list(&tp));
        assert!(b.contains(&"tp.model".to_string()) && b.contains(&"tp.network".to_string()));

        let mut off = base.clone();
        off.levers.offload.optimizer = Some(OffloadTarget {
            tier: Tier::HostDram,
            fraction: 1.0,
        });
        let c = ids(&list(&off));
        assert!(c.contains(&"offload.framework".to_string()));
        assert!(!a.contains(&"offload.framework".to_string()));

        let mut pooled = base.clone();
        pooled.hardware.pool = Some(MemoryPool {
            capacity: Bytes::from_tb(4.0),
            shared_by_gpus: 32,
            bandwidth: ByteRate::from_gb_per_s(25.0),
            latency: Seconds::from_nanos(500.0),
        });
        let d = list(&pooled);
        assert!(d.of(Category::Isolation).any(|i| i.id == "isolation.pool"));
        assert_eq!(d.migration, MigrationClass::InfrastructureChange);

        // DualPipeV says where it runs and what it needs; 1F1B does not.
        let mut pp = base.clone();
        pp.levers.parallel.pp = 4;
        pp.levers.parallel.dp = 2;
        let one = ids(&list(&pp));
        assert!(one.contains(&"pp.model".to_string()));
        assert!(!one.contains(&"pp.dualpipev".to_string()));
        pp.levers.parallel.schedule = crate::plan::PipelineSchedule::DualPipeV;
        let v = list(&pp);
        let item = v
            .of(Category::FrameworkSupport)
            .find(|i| i.id == "pp.dualpipev");
        assert!(
            item.is_some_and(|i| i.reason.en.contains("8 or more")),
            "{item:?}"
        );
    }

    #[test]
    fn the_checkpoint_item_follows_the_failure_rate() {
        let p = example_plan();
        let text = |rate: f64| {
            let s = CheckpointSettings {
                failure_rate: Some(crate::units::Frequency::per_year(rate)),
                ..CheckpointSettings::default()
            };
            list_with(&p, &s)
                .items
                .into_iter()
                .find(|i| i.id == "monitor.checkpoint")
                .map(|i| i.text.en)
        };
        assert_ne!(text(0.1), text(10.0));
    }

    fn list_with(p: &Plan, s: &CheckpointSettings) -> Checklist {
        checklist_from_plain(p, s)
    }

    #[test]
    fn serving_plans_get_serving_items() {
        let s = crate::tenants::example_sharing();
        let c = list(&s.jobs[0].plan);
        let i = ids(&c);
        assert!(i.contains(&"serving.paged_kv".to_string()));
        assert!(i.contains(&"monitor.kv".to_string()));
        assert!(!i.contains(&"monitor.checkpoint".to_string()));
    }

    /// Issue 15, finding 8: a serving plan's checklist asked for a
    /// load-balancing loss and a Transformer Engine FP8 recipe. Serving
    /// items name the plan's engine and its own switches; training plans
    /// keep the training items.
    #[test]
    fn serving_plans_speak_their_engine() {
        use crate::catalog::ModelId;
        use crate::engine::Engine;
        use crate::plan::ModelChoice;
        use crate::precision::Precision;
        let mut p = crate::examples::example_serving_plan();
        p.model = ModelChoice::Preset(ModelId::Mixtral8x7b);
        if let Workload::Inference(inf) = &mut p.workload {
            inf.stream = None;
        }
        p.levers.parallel.tp = 1;
        p.levers.parallel.dp = 8;
        p.levers.parallel.ep = 8;
        p.levers.precision.compute = Precision::Fp8;
        let expect = [
            (Engine::Vllm, "--enable-expert-parallel", "--block-size 16"),
            (Engine::Sglang, "--ep-size", "--page-size 1"),
            (
                Engine::TrtLlm,
                "moe_expert_parallel_size",
                "tokens_per_block 32",
            ),
        ];
        for (engine, ep_switch, pages) in expect {
            p.levers.engine = engine;
            let c = list(&p);
            let i = ids(&c);
            let text = |id: &str| {
                c.items
                    .iter()
                    .find(|x| x.id == id)
                    .map(|x| (x.text.en.clone(), x.text.zh.clone()))
                    .unwrap_or_default()
            };
            for id in ["ep.engine", "fp8.engine", "fp8.accuracy", "serving.kv_pool"] {
                assert!(i.contains(&id.to_string()), "{engine:?}: {i:?}");
            }
            for id in ["ep.framework", "fp8.framework", "fp8.convergence"] {
                assert!(!i.contains(&id.to_string()), "{engine:?}: {i:?}");
            }
            assert!(text("ep.engine").0.contains(ep_switch), "{engine:?}");
            assert!(text("ep.engine").1.contains(ep_switch), "{engine:?}");
            assert!(text("serving.paged_kv").0.contains(pages), "{engine:?}");
            for x in &c.items {
                for s in [&x.text.en, &x.reason.en] {
                    for training in ["load-balancing loss", "Transformer Engine", "loss against"] {
                        assert!(!s.contains(training), "{engine:?} {}: {s}", x.id);
                    }
                }
            }
        }
        // The same MoE and FP8 levers on a training plan keep the
        // training items.
        let mut tr = example_plan();
        tr.model = ModelChoice::Preset(ModelId::Mixtral8x7b);
        tr.levers.parallel.ep = 8;
        tr.levers.precision.compute = Precision::Fp8;
        let t = ids(&list(&tr));
        assert!(t.contains(&"ep.framework".to_string()), "{t:?}");
        assert!(t.contains(&"fp8.framework".to_string()), "{t:?}");
        assert!(!t.contains(&"ep.engine".to_string()), "{t:?}");
    }

    /// A move to another training framework asks for the port and a
    /// parity run, named by the framework.
    #[test]
    fn a_framework_move_asks_for_the_port() {
        use crate::stack::TrainingStack;
        let base = example_plan();
        let mut moved = base.clone();
        moved.levers.training_stack = Some(TrainingStack::Torchtitan);
        let c = checklist(&moved, &base, &CheckpointSettings::default());
        let port = c
            .items
            .iter()
            .find(|i| i.id == "stack.port")
            .expect("the port");
        assert!(port.text.en.contains("torchtitan"), "{}", port.text.en);
        assert!(ids(&c).contains(&"stack.parity".to_string()));
        assert_eq!(c.migration, MigrationClass::FrameworkChange);
        // Staying on it asks nothing.
        let stay = list(&moved);
        assert!(!ids(&stay).iter().any(|i| i.starts_with("stack.")));
    }

    /// FlashAttention-2 over eager attention asks for the build (with the
    /// model's head dimension), the switch and a parity run.
    #[test]
    fn a_kernel_upgrade_asks_for_the_build_the_switch_and_parity() {
        use crate::plan::AttentionKernel;
        let mut base = example_plan();
        base.levers.attention = AttentionKernel::Eager;
        let mut flash = base.clone();
        flash.levers.attention = AttentionKernel::Flash;
        let c = checklist(&flash, &base, &CheckpointSettings::default());
        let install = c
            .items
            .iter()
            .find(|i| i.id == "attention.install")
            .expect("the build");
        assert!(install.text.en.contains("(128)"), "{}", install.text.en);
        for id in ["attention.switch", "attention.parity"] {
            assert!(ids(&c).contains(&id.to_string()), "{id}");
        }
        assert_eq!(c.migration, MigrationClass::Configuration);
        let stay = checklist(&base, &base, &CheckpointSettings::default());
        assert!(!ids(&stay).iter().any(|i| i.starts_with("attention.")));
    }

    #[test]
    fn levers_the_workload_ignores_ask_nothing() {
        use crate::plan::{Inference, LogitsScope};
        // The example plan (ZeRO-1, selective recompute) switched to serving.
        let mut p = example_plan();
        p.workload = Workload::Inference(Inference {
            prompt_tokens: 2048,
            output_tokens: 256,
            batch: 8,
            logits: LogitsScope::LastToken,
            stream: None,
        });
        let c = list(&p);
        for lever in [Lever::Sharding, Lever::ActivationCheckpointing] {
            assert!(
                c.items.iter().all(|i| i.lever != Some(lever)),
                "{lever:?}: {:?}",
                ids(&c)
            );
        }
        assert!(
            !c.items.iter().any(|i| i.text.en.contains("ZeRO")),
            "{:?}",
            ids(&c)
        );
        // The same levers on the training plan still ask for their work.
        let t = list(&example_plan());
        assert!(t.items.iter().any(|i| i.lever == Some(Lever::Sharding)));
    }
}
