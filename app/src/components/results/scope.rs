//! Which plans a result shows: all of them in the planner, only the active
//! one in the embed view.

use planner_core::workspace::Workspace;

/// Which plans a chart draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scope {
    /// Every plan of the workspace.
    #[default]
    All,
    /// Only the active plan.
    Active,
}

impl Scope {
    /// Indices and names of the plans in scope.
    pub fn pick(self, ws: &Workspace) -> Vec<(usize, String)> {
        ws.plans
            .iter()
            .enumerate()
            .filter(|(i, _)| self == Scope::All || *i == ws.active)
            .map(|(i, p)| (i, p.name.clone()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;

    #[test]
    fn active_picks_one() {
        let mut ws = Workspace::new(fixtures::training());
        ws.plans.push(fixtures::serving());
        ws.active = 1;
        assert_eq!(Scope::All.pick(&ws).len(), 2);
        assert_eq!(Scope::Active.pick(&ws), vec![(1, ws.plans[1].name.clone())]);
    }
}
