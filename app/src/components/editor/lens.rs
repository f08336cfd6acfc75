//! The one way fields read and change what they edit: every field reads
//! through [`Lens::get`] and writes through [`Lens::set`], which goes
//! through the app state (and so into the address). [`PlanLens`] looks at
//! the active plan (the editor), [`WorkspaceLens`] at the workspace's own
//! settings (the operations views' pool, jobs and storage figures).

use crate::i18n::Lang;
use crate::state::{use_state, AppState};
use crate::url::History;
use leptos::prelude::*;
use planner_core::plan::Plan;
use planner_core::workspace::Workspace;

/// The plan being edited (the first when the index is out of range).
pub fn active(ws: &Workspace) -> Option<&Plan> {
    ws.plans.get(ws.active).or_else(|| ws.plans.first())
}

/// The plan being edited, for a change.
pub fn active_mut(ws: &mut Workspace) -> Option<&mut Plan> {
    let i = ws.active.min(ws.plans.len().saturating_sub(1));
    ws.plans.get_mut(i)
}

/// What a field reads and writes, and in which language it speaks.
pub trait Lens: Copy + Send + Sync + 'static {
    /// What the fields edit (a plan, the workspace).
    type Target: 'static;

    /// Reads the target; tracked, so a view that calls it updates. The
    /// default value stands in when there is nothing to read.
    fn get<T: Default>(self, f: impl FnOnce(&Self::Target) -> T) -> T;

    /// Changes the target; `how` says whether the change is a new history
    /// entry (Push for discrete choices, Replace for typing).
    fn set(self, how: History, f: impl FnOnce(&mut Self::Target));

    /// The display language; tracked.
    fn lang(self) -> Lang;
}

/// A handle on the workspace itself, for the settings that sit beside the
/// plans rather than in one.
#[derive(Clone, Copy)]
pub struct WorkspaceLens {
    state: AppState,
}

/// The lens on the workspace (needs the app state in context).
pub fn use_workspace() -> WorkspaceLens {
    WorkspaceLens { state: use_state() }
}

impl Lens for WorkspaceLens {
    type Target = Workspace;

    fn get<T: Default>(self, f: impl FnOnce(&Workspace) -> T) -> T {
        self.state.ws.with(f)
    }

    fn set(self, how: History, f: impl FnOnce(&mut Workspace)) {
        self.state.update(how, f);
    }

    fn lang(self) -> Lang {
        self.state.lang()
    }
}

/// A handle on the active plan of the app's workspace.
#[derive(Clone, Copy)]
pub struct PlanLens {
    state: AppState,
}

/// The lens on the active plan (needs the app state in context).
pub fn use_plan() -> PlanLens {
    PlanLens { state: use_state() }
}

impl PlanLens {
    /// Reads the active plan; tracked, so a view that calls it updates.
    pub fn get<T: Default>(self, f: impl FnOnce(&Plan) -> T) -> T {
        self.state.ws.with(|w| active(w).map(f).unwrap_or_default())
    }

    /// Changes the active plan; `how` says whether the change is a new
    /// history entry (Push for discrete choices, Replace for typing). A
    /// name the app gave follows the new content ([`super::naming`]).
    pub fn set(self, how: History, f: impl FnOnce(&mut Plan)) {
        self.state.update(how, |w| {
            let lang = w.lang;
            if let Some(p) = active_mut(w) {
                let before = p.clone();
                f(p);
                super::naming::follow(&before, p, lang);
            }
        });
    }

    /// The display language; tracked.
    pub fn lang(self) -> Lang {
        self.state.lang()
    }

    /// Whether the plan trains (else it serves); tracked. Levers the
    /// workload ignores are hidden by it (issue 15: a serving plan shows
    /// no ZeRO or checkpointing, a training plan no KV-cache levers).
    pub fn trains(self) -> bool {
        self.get(|p| matches!(p.workload, planner_core::plan::Workload::Training(_)))
    }

    /// The app state behind the lens.
    pub fn state(self) -> AppState {
        self.state
    }
}

impl Lens for PlanLens {
    type Target = Plan;

    fn get<T: Default>(self, f: impl FnOnce(&Plan) -> T) -> T {
        PlanLens::get(self, f)
    }

    fn set(self, how: History, f: impl FnOnce(&mut Plan)) {
        PlanLens::set(self, how, f);
    }

    fn lang(self) -> Lang {
        PlanLens::lang(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner_core::example_plan;

    #[test]
    fn active_plan_is_always_found() {
        let mut ws = Workspace::new(example_plan());
        ws.active = 7;
        assert!(active(&ws).is_some());
        assert!(active_mut(&mut ws).is_some());
        ws.plans.clear();
        assert!(active(&ws).is_none());
        assert!(active_mut(&mut ws).is_none());
    }
}
