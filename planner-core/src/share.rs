//! Share links: the whole workspace (plans, the chosen view, the language)
//! as one compact, versioned string for a URL.
//!
//! Format: `<version>.<payload>`, where the payload is the workspace as JSON,
//! compressed with raw DEFLATE (RFC 1951) and written in unpadded base64url
//! (RFC 4648 §5), so it survives any URL unescaped. Decoding is defensive:
//! the length is bounded before and after decompression, every failure is a
//! [`LinkError`] with a plain message, and the decoded workspace is checked
//! (at least one plan, at most [`MAX_PLANS`]) so a hostile link can neither
//! exhaust memory nor leave the app without a plan. Nothing decoded is ever
//! markup: names are plain strings the app renders as text.
//!
//! Fields added after version 1 (the tenants pool, the reliability
//! settings) are optional with defaults, so every version-1 link still
//! opens; adding a field or a [`View`] does not change the version.

use crate::catalog::GpuId;
use crate::checkpoint::CheckpointSettings;
use crate::hardware::GpuChoice;
use crate::plan::Plan;
use crate::tenants::{Job, LatencySlo, Pool, ShareMode, Sharing};
use serde::{Deserialize, Serialize};

/// Version of the link format and of [`Workspace`]; bump when a field
/// changes meaning, and keep decoding the old ones.
pub const LINK_VERSION: u32 = 1;

/// Longest link payload accepted, in characters.
pub const MAX_LINK_CHARS: usize = 32 * 1024;

/// Largest decompressed workspace accepted, in bytes.
pub const MAX_STATE_BYTES: usize = 512 * 1024;

/// Most plans a workspace holds.
pub const MAX_PLANS: usize = 12;

/// Most GPUs a workspace's tenants pool holds: a link cannot make the
/// packer lay out more.
pub const MAX_POOL_GPUS: u32 = 256;

/// Display language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Lang {
    /// English.
    #[default]
    #[serde(rename = "en")]
    En,
    /// Simplified Chinese.
    #[serde(rename = "zh")]
    Zh,
}

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

/// What a sweep varies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum SweepAxis {
    /// Sequence length (training) or context (serving).
    #[default]
    SequenceLength,
    /// Micro-batch (training) or concurrent sequences (serving).
    Batch,
    /// Model size, through the catalog's models.
    ModelSize,
}

/// The sweep chart's settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Sweep {
    /// What is varied.
    #[serde(default)]
    pub axis: SweepAxis,
    /// GPUs whose HBM is drawn as a line.
    #[serde(default = "default_walls")]
    pub walls: Vec<GpuId>,
}

fn default_walls() -> Vec<GpuId> {
    vec![
        GpuId::A100Sxm80,
        GpuId::H100Sxm,
        GpuId::H200Sxm,
        GpuId::B200,
    ]
}

impl Default for Sweep {
    fn default() -> Self {
        Self {
            axis: SweepAxis::default(),
            walls: default_walls(),
        }
    }
}

/// How one plan of the workspace takes part in the tenants view.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
pub struct TenantSettings {
    /// The pool's GPU kind (default H100 SXM).
    #[serde(default = "default_pool_gpu")]
    pub gpu: GpuId,
    /// GPUs in the pool (default 8, one node; at most [`MAX_POOL_GPUS`]
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
                gpus: self.gpus.min(MAX_POOL_GPUS),
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

    /// The workspace as a link payload.
    pub fn to_link(&self) -> String {
        let json = serde_json::to_vec(self).unwrap_or_default();
        let packed = miniz_oxide::deflate::compress_to_vec(&json, 9);
        format!("{LINK_VERSION}.{}", base64url_encode(&packed))
    }

    /// Reads a link payload; the error says what is wrong in plain words.
    pub fn from_link(link: &str) -> Result<Workspace, LinkError> {
        let link = link.trim();
        if link.is_empty() {
            return Err(LinkError::Empty);
        }
        if link.len() > MAX_LINK_CHARS {
            return Err(LinkError::TooLong { chars: link.len() });
        }
        let (version, payload) = link.split_once('.').ok_or(LinkError::Damaged)?;
        let version: u32 = version.parse().map_err(|_| LinkError::Damaged)?;
        if version > LINK_VERSION {
            return Err(LinkError::NewerVersion { version });
        }
        if version == 0 {
            return Err(LinkError::Damaged);
        }
        let packed = base64url_decode(payload).ok_or(LinkError::Damaged)?;
        let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, MAX_STATE_BYTES)
            .map_err(|e| match e.status {
                miniz_oxide::inflate::TINFLStatus::HasMoreOutput => LinkError::TooLarge,
                _ => LinkError::Damaged,
            })?;
        let text = std::str::from_utf8(&json).map_err(|_| LinkError::Damaged)?;
        // Plain serde_json, not serde_path_to_error: the error still names
        // the value and its position, and the web build stays 200 KB smaller
        // (one instantiation of every Deserialize impl instead of two).
        let mut ws: Workspace = serde_json::from_str(text).map_err(|e| LinkError::Invalid {
            field: String::new(),
            message: e.to_string(),
        })?;
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
        Ok(ws)
    }
}

/// Why a link could not be opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkError {
    /// Nothing after the `#`.
    Empty,
    /// Longer than [`MAX_LINK_CHARS`].
    TooLong {
        /// Its length.
        chars: usize,
    },
    /// Not a memwall link, or cut short, or altered.
    Damaged,
    /// Decompresses to more than [`MAX_STATE_BYTES`].
    TooLarge,
    /// Made by a newer memwall.
    NewerVersion {
        /// The link's version.
        version: u32,
    },
    /// Well-formed, but a field is wrong.
    Invalid {
        /// Dotted path of the field, when known (empty otherwise).
        field: String,
        /// What is wrong.
        message: String,
    },
    /// No plan in it.
    NoPlan,
    /// More than [`MAX_PLANS`] plans.
    TooManyPlans {
        /// How many.
        plans: usize,
    },
}

impl LinkError {
    /// The problem in plain words, in a language.
    pub fn message(&self, lang: Lang) -> String {
        match (self, lang) {
            (LinkError::Empty, Lang::En) => "The link holds no plan.".into(),
            (LinkError::Empty, Lang::Zh) => "链接中没有方案。".into(),
            (LinkError::TooLong { chars }, Lang::En) => {
                format!("The link is too long ({chars} characters; at most {MAX_LINK_CHARS}).")
            }
            (LinkError::TooLong { chars }, Lang::Zh) => {
                format!("链接过长（{chars} 个字符，上限 {MAX_LINK_CHARS}）。")
            }
            (LinkError::Damaged, Lang::En) => {
                "The link is damaged or incomplete; it may have been cut when copied.".into()
            }
            (LinkError::Damaged, Lang::Zh) => "链接已损坏或不完整，可能在复制时被截断。".into(),
            (LinkError::TooLarge, Lang::En) => "The link expands to more data than a plan can hold.".into(),
            (LinkError::TooLarge, Lang::Zh) => "链接展开后的数据超出了方案的容量上限。".into(),
            (LinkError::NewerVersion { version }, Lang::En) => format!(
                "The link was made by a newer memwall (format {version}; this one reads up to {LINK_VERSION})."
            ),
            (LinkError::NewerVersion { version }, Lang::Zh) => format!(
                "该链接由更新版本的 memwall 生成（格式 {version}；当前版本最多支持 {LINK_VERSION}）。"
            ),
            (LinkError::Invalid { field, message }, Lang::En) if field.is_empty() => {
                format!("The link's plan is invalid: {message}")
            }
            (LinkError::Invalid { field, message }, Lang::En) => {
                format!("The link's plan is invalid at {field}: {message}")
            }
            (LinkError::Invalid { field, message }, Lang::Zh) if field.is_empty() => {
                format!("链接中的方案无效：{message}")
            }
            (LinkError::Invalid { field, message }, Lang::Zh) => {
                format!("链接中的方案在 {field} 处无效：{message}")
            }
            (LinkError::NoPlan, Lang::En) => "The link holds no plan.".into(),
            (LinkError::NoPlan, Lang::Zh) => "链接中没有方案。".into(),
            (LinkError::TooManyPlans { plans }, Lang::En) => {
                format!("The link holds {plans} plans; at most {MAX_PLANS} are allowed.")
            }
            (LinkError::TooManyPlans { plans }, Lang::Zh) => {
                format!("链接包含 {plans} 个方案，最多允许 {MAX_PLANS} 个。")
            }
        }
    }
}

impl std::fmt::Display for LinkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message(Lang::En))
    }
}

impl std::error::Error for LinkError {}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Unpadded base64url (RFC 4648 §5).
pub fn base64url_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let chars = chunk.len() + 1;
        for i in 0..chars {
            let idx = (n >> (18 - 6 * i)) & 63;
            out.push(char::from(ALPHABET[idx as usize]));
        }
    }
    out
}

/// Decodes unpadded base64url; `None` on any character outside the
/// alphabet or an impossible length. Padding `=` is tolerated at the end.
pub fn base64url_decode(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    if text.len() % 4 == 1 {
        return None;
    }
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' | b'+' => 62,
            b'_' | b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    for chunk in text.as_bytes().chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= value(c)? << (18 - 6 * i);
        }
        let bytes = chunk.len() - 1;
        for i in 0..bytes {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::example_plan;

    #[test]
    fn base64url_round_trips_every_length() {
        for len in 0..70usize {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
            let text = base64url_encode(&bytes);
            assert!(text.bytes().all(|c| ALPHABET.contains(&c)));
            assert_eq!(base64url_decode(&text), Some(bytes));
        }
        assert_eq!(base64url_encode(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64url_encode(b"fo"), "Zm8");
        assert_eq!(base64url_decode("Zm8="), Some(b"fo".to_vec()));
        assert_eq!(base64url_decode("Zm9v!"), None);
        assert_eq!(base64url_decode("Z"), None);
    }

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
        assert!(link.starts_with("1."));
        assert!(link.len() < 4000, "{} characters", link.len());
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
        assert_eq!(ws.tenants.sharing(&ws.plans).0.pool.gpus, MAX_POOL_GPUS);
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
