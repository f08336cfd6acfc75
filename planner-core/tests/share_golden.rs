//! Links made by earlier versions keep opening.

use planner_core::checkpoint::CheckpointSettings;
use planner_core::workspace::{Lang, TenantSettings, View, Workspace};
use planner_core::{evaluate, Verdict};

/// A link made by format version 1 (2026-11-29): the built-in example plan
/// and a renamed copy, Chinese, showing the frontier.
const V1: &str = include_str!("golden/link-v1.txt");

#[test]
fn version_1_links_open() {
    let ws = Workspace::from_link(V1).expect("v1 link");
    assert_eq!(ws.plans.len(), 2);
    assert_eq!(ws.lang, Lang::Zh);
    assert_eq!(ws.view, View::Frontier);
    assert_eq!(ws.active, 1);
    assert_eq!(ws.plans[1].name, "对照方案 <b>2</b>");
    // Fields added later take their defaults.
    assert_eq!(ws.tenants, TenantSettings::default());
    assert_eq!(ws.reliability, CheckpointSettings::default());
    for p in &ws.plans {
        assert_eq!(evaluate(p).verdict, Verdict::Fits);
    }
}
