//! The workspace: what the web planner holds and a link carries — the
//! plans, the chosen view, the language, the sweep chart's settings, the
//! tenants pool with each plan's job choice, and the reliability settings.
//!
//! Fields added after version 1 (the tenants pool, the reliability
//! settings) are optional with defaults, so every version-1 link still
//! opens; adding a field or a [`View`] does not change the version. The
//! codec itself (versioned, compressed, base64url) is [`crate::link`].

use crate::catalog::GpuId;
use crate::checkpoint::CheckpointSettings;
use crate::hardware::GpuChoice;
pub use crate::lang::Lang;
pub use crate::link::LinkError;
use crate::link::{self, LINK_VERSION, MAX_PLANS};
use crate::plan::Plan;
pub use crate::sweep::{Sweep, SweepAxis};
use crate::tenants::{Job, LatencySlo, Pool, ShareMode, Sharing};
use serde::{Deserialize, Serialize};

/// Most GPUs a workspace's tenants pool holds: a link cannot make the
/// packer lay out more (the packer's own bound is
/// [`crate::tenants::MAX_POOL_GPUS`]).
pub const MAX_LINK_POOL_GPUS: u32 = 256;

/// Which result the workspace shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum View {
    /// Memory per device and tier.
    #[default]
    Memory,
    /// Step time or latency breakdown.
    Time,
    /// Cost against latency, with the Pareto frontier.
    Frontier,
    /// Memory against a swept quantity, with each GPU's HBM as the wall.
    Sweep,
    /// Side-by-side comparison table.
    Compare,
    /// The workspace's plans as tenants of a shared pool of GPUs.
    Tenants,
    /// Checkpoints, failures and goodput of the active plan.
    Reliability,
    /// Model sizes and GPU memory over the years, under the active plan.
    Wall,
}

/// How one plan of the workspace takes part in the tenants view.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct JobChoice {
    /// Whether the plan is a job on the pool (default yes).
    #[serde(default = "yes")]
    pub include: bool,
    /// Latency targets (serving plans only).
    #[serde(default)]
    pub slo: LatencySlo,
    /// Smallest batch the job accepts (serving only; default the plan's).
    #[serde(default)]
    pub min_batch: Option<u32>,
}

fn yes() -> bool {
    true
}

impl Default for JobChoice {
    fn default() -> Self {
        Self {
            include: true,
            slo: LatencySlo::default(),
            min_batch: None,
        }
    }
}

/// The tenants view's settings: the pool, and which plans share it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct TenantSettings {
    /// The pool's GPU kind (default H100 SXM).
    #[serde(default = "default_pool_gpu")]
    pub gpu: GpuId,
    /// GPUs in the pool (default 8, one node; at most [`MAX_LINK_POOL_GPUS`]
    /// are used).
    #[serde(default = "default_pool_gpus")]
    pub gpus: u32,
    /// How jobs share a GPU (default MIG).
    #[serde(default)]
    pub mode: ShareMode,
    /// One entry per plan, by position: entry `i` is plan `i`. Plans past
    /// the end of the list are jobs without targets.
    #[serde(default)]
    pub jobs: Vec<JobChoice>,
}

fn default_pool_gpu() -> GpuId {
    GpuId::H100Sxm
}

fn default_pool_gpus() -> u32 {
    8
}

impl Default for TenantSettings {
    fn default() -> Self {
        Self {
            gpu: default_pool_gpu(),
            gpus: default_pool_gpus(),
            mode: ShareMode::default(),
            jobs: Vec::new(),
        }
    }
}

impl TenantSettings {
    /// The choice for plan `i` (the default past the end of the list).
    pub fn job(&self, i: usize) -> JobChoice {
        self.jobs.get(i).copied().unwrap_or_default()
    }

    /// The choice for plan `i`, for a change: the list grows to reach it.
    pub fn job_mut(&mut self, i: usize) -> &mut JobChoice {
        if self.jobs.len() <= i {
            self.jobs.resize(i + 1, JobChoice::default());
        }
        &mut self.jobs[i]
    }

    /// The input of [`crate::tenants::share`]: the pool, and each included
    /// plan as a job named after it, in workspace order. Also returns the
    /// index of the plan behind each job.
    pub fn sharing(&self, plans: &[Plan]) -> (Sharing, Vec<usize>) {
        let picked: Vec<usize> = (0..plans.len()).filter(|&i| self.job(i).include).collect();
        let jobs = picked
            .iter()
            .map(|&i| {
                let c = self.job(i);
                Job {
                    name: plans[i].name.clone(),
                    plan: plans[i].clone(),
                    slo: c.slo,
                    min_batch: c.min_batch,
                }
            })
            .collect();
        let sharing = Sharing {
            version: crate::plan::SCHEMA_VERSION,
            pool: Pool {
                gpu: GpuChoice::Preset(self.gpu),
                gpus: self.gpus.min(MAX_LINK_POOL_GPUS),
                gpus_per_node: 8,
                mode: self.mode,
            },
            jobs,
        };
        (sharing, picked)
    }
}

/// Everything a link restores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Workspace {
    /// Link format version.
    #[serde(default = "link_version")]
    pub version: u32,
    /// Language.
    #[serde(default)]
    pub lang: Lang,
    /// The plans, in display order (the first is the baseline).
    pub plans: Vec<Plan>,
    /// Index of the plan being edited.
    #[serde(default)]
    pub active: usize,
    /// The result shown.
    #[serde(default)]
    pub view: View,
    /// The sweep chart's settings.
    #[serde(default)]
    pub sweep: Sweep,
    /// The tenants view's pool and jobs (added in version 1; optional).
    #[serde(default)]
    pub tenants: TenantSettings,
    /// Storage and failure settings of the reliability view and the
    /// checklists (added in version 1; optional, every field defaulted).
    #[serde(default)]
    pub reliability: CheckpointSettings,
}

fn link_version() -> u32 {
    LINK_VERSION
}

impl Workspace {
    /// A workspace of one plan.
    pub fn new(plan: Plan) -> Self {
        Self {
            version: LINK_VERSION,
            lang: Lang::default(),
            plans: vec![plan],
            active: 0,
            view: View::default(),
            sweep: Sweep::default(),
            tenants: TenantSettings::default(),
            reliability: CheckpointSettings::default(),
        }
    }

    /// Inserts a plan at `index` (at most the end), keeping the per-plan
    /// settings (the tenants' job choices) with their plans.
    pub fn insert_plan(&mut self, index: usize, plan: Plan) {
        let index = index.min(self.plans.len());
        self.plans.insert(index, plan);
        if index < self.tenants.jobs.len() {
            self.tenants.jobs.insert(index, JobChoice::default());
        }
    }

    /// Removes the plan at `index`, keeping the per-plan settings with
    /// their plans; `None` when there is no such plan.
    pub fn remove_plan(&mut self, index: usize) -> Option<Plan> {
        if index >= self.plans.len() {
            return None;
        }
        if index < self.tenants.jobs.len() {
            self.tenants.jobs.remove(index);
        }
        Some(self.plans.remove(index))
    }

    /// The workspace as a link payload: version 2 (what differs from the
    /// frozen reference) when it rebuilds the workspace exactly, otherwise
    /// version 1 (the whole JSON).
    pub fn to_link(&self) -> String {
        let Ok(full) = serde_json::to_value(self) else {
            return String::new();
        };
        match link::compact::compact(&full).and_then(|c| serde_json::to_vec(&c).ok()) {
            Some(json) => link::encode_as(link::COMPACT, &json),
            None => link::encode(&serde_json::to_vec(&full).unwrap_or_default()),
        }
    }

    /// Reads a link payload of any version; the error says what is wrong
    /// in plain words.
    pub fn from_link(text: &str) -> Result<Workspace, LinkError> {
        let (version, json) = link::decode_versioned(text)?;
        // Plain serde_json, not serde_path_to_error: the error still names
        // the value and its position, and the web build stays 200 KB smaller
        // (one instantiation of every Deserialize impl instead of two).
        let invalid = |e: serde_json::Error| LinkError::Invalid {
            message: crate::plan::with_suggestion(&e.to_string()),
        };
        let json = if version == link::COMPACT {
            let patch: serde_json::Value = serde_json::from_str(&json).map_err(invalid)?;
            // Back to text, so the workspace is read by the one `from_str`
            // instantiation of its Deserialize impls (`from_value` would add
            // a second, about 100 KB of the web build).
            serde_json::to_string(&link::compact::expand(patch)?).map_err(invalid)?
        } else {
            json
        };
        let mut ws: Workspace = serde_json::from_str(&json).map_err(invalid)?;
        if ws.plans.is_empty() {
            return Err(LinkError::NoPlan);
        }
        if ws.plans.len() > MAX_PLANS {
            return Err(LinkError::TooManyPlans {
                plans: ws.plans.len(),
            });
        }
        ws.version = LINK_VERSION;
        ws.active = ws.active.min(ws.plans.len() - 1);
        // Lists a link could inflate past anything it can carry back out:
        // job entries past the last plan mean nothing ("entry i is plan
        // i"), and a wall drawn twice is drawn once.
        ws.tenants.jobs.truncate(ws.plans.len());
        // `seen` holds distinct GPUs only (a few dozen), so a link of
        // 40,000 repeated walls costs 40,000 short scans, not 40,000².
        let mut seen = Vec::new();
        ws.sweep.walls.retain(|g| {
            let first = !seen.contains(g);
            if first {
                seen.push(*g);
            }
            first
        });
        Ok(ws)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::example_plan;
    use crate::link::*;

    #[test]
    fn workspace_round_trips_exactly() {
        let mut ws = Workspace::new(example_plan());
        let mut second = example_plan();
        second.name = "<b>second</b> 方案".into();
        ws.plans.push(second);
        ws.active = 1;
        ws.lang = Lang::Zh;
        ws.view = View::Frontier;
        let link = ws.to_link();
        assert!(link.starts_with("2."));
        assert!(link.len() < 1500, "{} characters", link.len());
        assert_eq!(Workspace::from_link(&link), Ok(ws));
    }

    #[test]
    fn tenants_and_reliability_round_trip() {
        use crate::units::{ByteRate, Frequency, Seconds};
        let mut ws = Workspace::new(example_plan());
        ws.plans.push(example_plan());
        ws.view = View::Reliability;
        ws.tenants.gpu = GpuId::A100Sxm80;
        ws.tenants.gpus = 3;
        ws.tenants.mode = ShareMode::MemoryCap;
        ws.tenants.job_mut(1).include = false;
        ws.tenants.job_mut(0).slo.max_tpot = Some(Seconds::from_millis(50.0));
        ws.tenants.job_mut(0).min_batch = Some(4);
        ws.reliability.storage_bandwidth = Some(ByteRate::from_gb_per_s(12.5));
        ws.reliability.failure_rate = Some(Frequency::per_year(0.3));
        ws.reliability.mode = crate::checkpoint::SaveMode::Async;
        for v in [View::Tenants, View::Reliability, View::Wall] {
            ws.view = v;
            assert_eq!(Workspace::from_link(&ws.to_link()), Ok(ws.clone()));
        }
    }

    #[test]
    fn workspaces_without_the_new_fields_open_with_defaults() {
        let plan = serde_json::to_string(&example_plan()).unwrap_or_default();
        let json = format!("{{\"version\":1,\"plans\":[{plan}],\"view\":\"sweep\"}}");
        let packed = miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 9);
        let ws = Workspace::from_link(&format!("1.{}", base64url_encode(&packed)));
        let ws = ws.expect("opens");
        assert_eq!(ws.tenants, TenantSettings::default());
        assert_eq!(ws.reliability, CheckpointSettings::default());
        assert_eq!(ws.view, View::Sweep);
    }

    #[test]
    fn job_choices_stay_with_their_plans() {
        let mut ws = Workspace::new(example_plan());
        for name in ["b", "c"] {
            let mut p = example_plan();
            p.name = name.into();
            ws.plans.push(p);
        }
        ws.tenants.job_mut(1).include = false;
        let (sharing, picked) = ws.tenants.sharing(&ws.plans);
        assert_eq!(picked, vec![0, 2]);
        assert_eq!(sharing.jobs[1].name, "c");
        assert_eq!(sharing.pool.gpus, 8);
        // A plan inserted before "b" takes a default choice; "b" keeps its own.
        ws.insert_plan(1, example_plan());
        assert!(ws.tenants.job(1).include && !ws.tenants.job(2).include);
        // Removing it brings "b" back to index 1, still excluded.
        assert!(ws.remove_plan(1).is_some());
        assert_eq!(ws.plans[1].name, "b");
        assert!(!ws.tenants.job(1).include);
        assert!(ws.remove_plan(1).is_some());
        assert!(ws.tenants.job(1).include, "c is a job again");
        assert!(ws.remove_plan(9).is_none());
        ws.tenants.gpus = u32::MAX;
        assert_eq!(
            ws.tenants.sharing(&ws.plans).0.pool.gpus,
            MAX_LINK_POOL_GPUS
        );
        ws.insert_plan(99, example_plan());
        assert_eq!(ws.plans.len(), 3);
    }

    #[test]
    fn damaged_links_are_errors_not_panics() {
        let link = Workspace::new(example_plan()).to_link();
        assert_eq!(Workspace::from_link(""), Err(LinkError::Empty));
        assert_eq!(Workspace::from_link("garbage"), Err(LinkError::Damaged));
        assert_eq!(Workspace::from_link("1.!!!"), Err(LinkError::Damaged));
        assert_eq!(
            Workspace::from_link("9.AAAA"),
            Err(LinkError::NewerVersion { version: 9 })
        );
        // Every truncation fails cleanly.
        for cut in 0..link.len() {
            let r = Workspace::from_link(&link[..cut]);
            assert!(r.is_err(), "truncated at {cut} decoded");
        }
        // Flipped characters: an error or a valid workspace, never a panic.
        let bytes = link.as_bytes();
        for i in 2..bytes.len() {
            let mut b = bytes.to_vec();
            b[i] = if b[i] == b'A' { b'B' } else { b'A' };
            let _ = Workspace::from_link(std::str::from_utf8(&b).unwrap_or(""));
        }
        let long = "1.".to_string() + &"A".repeat(MAX_LINK_CHARS);
        assert!(matches!(
            Workspace::from_link(&long),
            Err(LinkError::TooLong { .. })
        ));
    }

    #[test]
    fn zip_bombs_are_refused() {
        let json = format!(
            "{{\"plans\":[],\"pad\":\"{}\"}}",
            " ".repeat(MAX_STATE_BYTES * 2)
        );
        let packed = miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 9);
        let link = format!("1.{}", base64url_encode(&packed));
        assert!(link.len() < MAX_LINK_CHARS);
        assert_eq!(Workspace::from_link(&link), Err(LinkError::TooLarge));
    }

    #[test]
    fn empty_and_oversized_workspaces_are_refused() {
        let mut ws = Workspace::new(example_plan());
        ws.plans.clear();
        assert_eq!(Workspace::from_link(&ws.to_link()), Err(LinkError::NoPlan));
        ws.plans = vec![example_plan(); MAX_PLANS + 1];
        assert!(matches!(
            Workspace::from_link(&ws.to_link()),
            Err(LinkError::TooManyPlans { .. })
        ));
    }

    #[test]
    fn errors_read_in_both_languages() {
        for e in [
            LinkError::Empty,
            LinkError::Damaged,
            LinkError::TooLarge,
            LinkError::NoPlan,
            LinkError::NewerVersion { version: 2 },
            LinkError::TooLong { chars: 99 },
            LinkError::TooManyPlans { plans: 40 },
        ] {
            assert!(!e.message(Lang::En).is_empty());
            assert!(e.message(Lang::Zh).chars().any(|c| c > '\u{2e80}'));
        }
    }
}
