//! Guidance on a plan that does not divide: which editor field is at
//! fault, and the values the core offers for it
//! ([`planner_core::DiagnosticKind::fix`]). The values are the core's; this
//! module only maps the core's field path to the editor's field and writes
//! an offered value back.

use planner_core::report::Report;
use planner_core::{Plan, Severity};

/// The editor field (its `data-testid`) that edits a plan field path.
pub fn testid_of(field: &str) -> Option<&'static str> {
    Some(match field {
        "levers.parallel.tp" => "lever-tp",
        "levers.parallel.pp" => "lever-pp",
        "levers.parallel.cp" => "lever-cp",
        "levers.parallel.ep" => "lever-ep",
        "levers.shard_group" => "lever-shard-group",
        _ => return None,
    })
}

/// Sets a field the core offered values for; `false` for a path this app
/// does not edit.
pub fn set(plan: &mut Plan, field: &str, v: u32) -> bool {
    let par = &mut plan.levers.parallel;
    match field {
        "levers.parallel.tp" => par.tp = v,
        "levers.parallel.pp" => par.pp = v,
        "levers.parallel.cp" => par.cp = v,
        "levers.parallel.ep" => par.ep = v,
        "levers.shard_group" => plan.levers.shard_group = Some(v),
        _ => return false,
    }
    true
}

/// The fields at fault in a report (errors and warnings that name one),
/// with the values offered for each: (field path, test id, values).
pub fn faults(r: &Report) -> Vec<(&'static str, &'static str, Vec<u32>)> {
    r.diagnostics
        .iter()
        .filter(|d| d.severity != Severity::Info)
        .filter_map(|d| d.detail.fix())
        .filter_map(|(field, values)| testid_of(field).map(|id| (field, id, values)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner_core::{evaluate, example_plan};

    #[test]
    fn tp_3_on_32_heads_marks_the_tp_box_and_offers_its_divisors() {
        let mut p = example_plan();
        p.levers.parallel.tp = 3;
        let f = faults(&evaluate(&p));
        let tp = f.iter().find(|x| x.1 == "lever-tp").expect("TP at fault");
        assert_eq!(tp.2[..6], [1, 2, 4, 8, 16, 32]);
        assert!(set(&mut p, tp.0, 4));
        assert_eq!(p.levers.parallel.tp, 4);
        assert!(faults(&evaluate(&example_plan())).is_empty());
        assert!(!set(&mut p, "levers.nothing", 1));
    }
}
