//! A plan's name follows its content unless the user named it (issue 15:
//! a plan switched to 70B serving kept "Llama 2 7B on 8×H100, ZeRO-1").
//!
//! The app gives a name in three ways: a built-in scenario's plan names,
//! "Plan N" for a new plan, and [`content_name`] after an edit. A name
//! that is none of these was typed by the user and is never replaced.
//! An app-given name is replaced only when an edit changes what a content
//! name says (model, workload kind, GPUs), so nudging a lever keeps a
//! scenario's descriptive name.

use super::pick::Pick;
use crate::i18n::editor::t;
use crate::i18n::Lang;
use crate::presets::Preset;
use planner_core::catalog;
use planner_core::plan::{ModelChoice, Plan};

/// The name a plan's content gives it: "Llama 3.1 70B · Serving
/// (inference) · 8×H100 SXM5 80GB".
pub fn content_name(plan: &Plan, lang: Lang) -> String {
    let model = match &plan.model {
        ModelChoice::Preset(id) => catalog::model(*id).name.to_string(),
        ModelChoice::Custom(c) => c.name.clone(),
    };
    let kind = Pick::key(&plan.workload);
    let label = <planner_core::plan::Workload as Pick>::OPTIONS
        .iter()
        .find(|(k, _)| *k == kind)
        .map_or("", |(_, l)| t(lang, *l));
    let gpu = plan.hardware.gpu.name();
    let gpu = gpu.strip_prefix("NVIDIA ").unwrap_or(gpu);
    format!("{model} · {label} · {}×{gpu}", plan.hardware.gpus)
}

/// Whether the app gave `plan` its name (see the module documentation).
pub fn app_given(plan: &Plan) -> bool {
    let name = plan.name.trim();
    let numbered = |prefix: &str| {
        name.strip_prefix(prefix)
            .is_some_and(|n| n.parse::<u32>().is_ok())
    };
    name.is_empty()
        || numbered("Plan ")
        || numbered("方案 ")
        || [Lang::En, Lang::Zh].into_iter().any(|l| {
            content_name(plan, l) == name
                || Preset::ALL
                    .into_iter()
                    .any(|p| p.workspace(l).plans.iter().any(|q| q.name == name))
        })
}

/// The plan's name in `to`, when the app gave it (a scenario's plan
/// name, "Plan N", a content name) and it reads differently there; `None`
/// for a name the user typed. Used by the language switch, so a scenario
/// opened in English reads in Chinese after switching.
pub fn in_language(plan: &Plan, to: Lang) -> Option<String> {
    let name = plan.name.trim();
    let numbered = ["Plan ", "方案 "]
        .into_iter()
        .find_map(|prefix| name.strip_prefix(prefix)?.parse::<u32>().ok());
    let renamed = if let Some(n) = numbered {
        Some(crate::presets::new_plan(to, n as usize).name)
    } else if [Lang::En, Lang::Zh]
        .into_iter()
        .any(|l| content_name(plan, l) == name)
    {
        Some(content_name(plan, to))
    } else {
        Preset::ALL.into_iter().find_map(|p| {
            [Lang::En, Lang::Zh].into_iter().find_map(|l| {
                let i = p.workspace(l).plans.iter().position(|q| q.name == name)?;
                p.workspace(to).plans.get(i).map(|q| q.name.clone())
            })
        })
    };
    renamed.filter(|r| r != &plan.name)
}

/// After an edit of the active plan from `before` to `after`: renames it
/// to its content name, in `lang`, when the app gave its name and the
/// edit changed what the name says. An edit of the name itself is kept.
pub fn follow(before: &Plan, after: &mut Plan, lang: Lang) {
    if after.name != before.name || content_name(before, Lang::En) == content_name(after, Lang::En)
    {
        return;
    }
    if app_given(before) {
        after.name = content_name(after, lang);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner_core::catalog::{GpuId, ModelId};
    use planner_core::example_plan;
    use planner_core::plan::{Inference, LogitsScope, Workload};

    fn served_70b(p: &Plan) -> Plan {
        let mut q = p.clone();
        q.model = ModelChoice::Preset(ModelId::Llama31_70b);
        q.workload = Workload::Inference(Inference {
            prompt_tokens: 4096,
            output_tokens: 256,
            batch: 16,
            logits: LogitsScope::LastToken,
            stream: None,
        });
        q
    }

    #[test]
    fn a_scenario_name_follows_a_new_model_and_workload() {
        let before = example_plan();
        let mut after = served_70b(&before);
        follow(&before, &mut after, Lang::En);
        assert_eq!(
            after.name,
            "Llama 3.1 70B · Serving (inference) · 8×H100 SXM5 80GB"
        );
        // And keeps following, now that it is a content name.
        let mut more = after.clone();
        more.hardware.gpu = planner_core::hardware::GpuChoice::Preset(GpuId::H200Sxm);
        follow(&after, &mut more, Lang::Zh);
        assert_eq!(more.name, content_name(&more, Lang::Zh));
        assert!(more.name.contains("推理服务") && more.name.contains("H200"));
    }

    #[test]
    fn a_lever_nudge_keeps_a_scenario_name_and_a_typed_name_stays() {
        let before = example_plan();
        let mut nudged = before.clone();
        nudged.levers.parallel.micro_batch = 2;
        follow(&before, &mut nudged, Lang::En);
        assert_eq!(nudged.name, before.name);
        let typed = Plan {
            name: "our prod config".into(),
            ..before
        };
        let mut after = served_70b(&typed);
        follow(&typed, &mut after, Lang::En);
        assert_eq!(after.name, "our prod config");
        // Typing a name is itself an edit, never undone.
        let mut renamed = typed.clone();
        renamed.name = "x".into();
        follow(&typed, &mut renamed, Lang::En);
        assert_eq!(renamed.name, "x");
    }

    #[test]
    fn app_given_names_follow_the_language_and_typed_ones_stay() {
        for p in Preset::ALL {
            let en = p.workspace(Lang::En);
            let zh = p.workspace(Lang::Zh);
            for (a, b) in en.plans.iter().zip(&zh.plans) {
                if a.name != b.name {
                    assert_eq!(in_language(a, Lang::Zh).as_deref(), Some(b.name.as_str()));
                    assert_eq!(in_language(b, Lang::En).as_deref(), Some(a.name.as_str()));
                }
            }
        }
        let mut p = example_plan();
        p.name = "Plan 4".into();
        assert_eq!(in_language(&p, Lang::Zh).as_deref(), Some("方案 4"));
        p.name = content_name(&p, Lang::En);
        assert_eq!(in_language(&p, Lang::Zh), Some(content_name(&p, Lang::Zh)));
        p.name = "my own plan".into();
        assert_eq!(in_language(&p, Lang::Zh), None);
    }

    #[test]
    fn app_names_are_recognised() {
        assert!(app_given(&crate::presets::new_plan(Lang::Zh, 4)));
        for l in [Lang::En, Lang::Zh] {
            for p in Preset::ALL {
                for q in p.workspace(l).plans {
                    assert!(app_given(&q), "{}", q.name);
                }
            }
        }
        assert!(!app_given(&Plan {
            name: "Plan B".into(),
            ..example_plan()
        }));
    }
}
