//! The command line, declared with clap: every subcommand, its options and
//! its help text. Parsing only; the commands themselves are in `main.rs`
//! and `ops.rs`.

use crate::Format;
use clap::{Args, Parser, Subcommand, ValueEnum};
use planner_core::calibrate::Knob;
use planner_core::catalog::GpuId;
use planner_core::checkpoint::{CheckpointSettings, SaveLayout, SaveMode};
use planner_core::units::{ByteRate, Frequency, Seconds};
use planner_core::Lang;

const EXIT_CODES: &str = "\
Exit codes: 0 fits (search: found a plan; tenants: every job placed), 1 does not fit
(search: nothing fits; tenants: some job left out), 2 bad input.

A FILE argument of - reads stdin. Options take --flag value or --flag=value.
Run `memwall COMMAND --help` for a command's options and examples.";

/// memwall — does it fit, and how far over the GPU memory wall is it?
#[derive(Parser)]
#[command(name = "memwall", version, args_override_self = true, after_help = EXIT_CODES)]
pub(crate) struct Cli {
    /// The command; none prints this help.
    #[command(subcommand)]
    pub command: Option<Cmd>,
}

/// The subcommands.
#[derive(Subcommand)]
pub(crate) enum Cmd {
    /// Evaluate a plan (FILE or - for stdin)
    ///
    /// Memory per device and tier, time per step, cost and the verdict.
    /// Exit 0 when the plan fits, 1 when it is valid but does not fit.
    #[command(after_help = "Examples:
  memwall example | memwall eval - --format table
  memwall eval plan.json --format=json")]
    Eval(FileFormat),
    /// Print a complete example plan (JSON)
    #[command(after_help = "Example:
  memwall example > plan.json && memwall eval plan.json --format table")]
    Example,
    /// Print a serving plan with a request stream: Llama 3.1 70B, vLLM, 8×H100
    ///
    /// Two TP-4 replicas, Poisson arrivals at 10 requests/s, ShareGPT's
    /// lengths, SLOs on TTFT and TPOT; `eval` simulates the stream.
    #[command(after_help = "Example:
  memwall example-serving | memwall eval - --format table")]
    ExampleServing,
    /// Print the serving plan split into prefill and decode pools
    ///
    /// One TP-4 replica prefills, one TP-4 replica decodes, the KV cache
    /// crossing NVLink; `eval` adds each pool, the transfer, and the
    /// stream through both.
    #[command(after_help = "Example:
  memwall example-disagg | memwall eval - --format table")]
    ExampleDisagg,
    /// Print the JSON schema of a plan, a search scenario or a shared pool
    #[command(after_help = "Examples:
  memwall schema > plan.schema.json
  memwall schema scenario")]
    Schema {
        /// Which schema
        #[arg(value_enum, default_value_t = SchemaKind::Plan, value_name = "SCHEMA")]
        kind: SchemaKind,
    },
    /// Search every valid plan of a scenario (FILE or -)
    ///
    /// Prints the cost/latency frontier, the best plan per kind of change,
    /// the fewest GPUs, the cheapest GPU kind and the largest batch. Exit 0
    /// when a plan is found, 1 when nothing fits and meets the constraints.
    #[command(after_help = "Examples:
  memwall example-scenario | memwall search - --format table
  memwall search scenario.json > result.json")]
    Search(FileFormat),
    /// Print a search scenario: GPT-3 175B on 1024×A100-80GB
    #[command(after_help = "Example:
  memwall example-scenario > scenario.json")]
    ExampleScenario,
    /// Search a serving scenario's engine knobs and replicas (FILE or -)
    ///
    /// Token budget, running-request limit, prefix caching, draft tokens
    /// and TP, against the stream's rate and SLOs; each answer lists what
    /// it changed and flags changes users would see. With --every-gpu
    /// (other GPU kinds) or --formats (narrower number formats), each way
    /// is searched and its answer with the fewest GPUs listed, cheapest
    /// per hour first, answers whose cost ranges overlap marked as ties.
    /// Exit 0 when a plan is found, 1 when none carries the rate within
    /// the SLOs.
    #[command(after_help = "Examples:
  memwall example-serving-scenario | memwall search-serving - --format table
  memwall example-serving-scenario | memwall search-serving - --every-gpu --format table
  memwall example-serving-scenario | memwall search-serving - --every-gpu --formats --format table
  memwall search-serving scenario.json > result.json")]
    SearchServing(SearchServing),
    /// Print a serving search scenario: the serving example on ≤ 16 H100s
    #[command(after_help = "Example:
  memwall example-serving-scenario > scenario.json")]
    ExampleServingScenario,
    /// Plans side by side (two or more PLAN files)
    ///
    /// Fits, margin, time, cost, and the migration class from the first plan.
    #[command(after_help = "Examples:
  memwall compare plan.json zero3.json --format table
  memwall example | memwall compare - zero3.json")]
    Compare(Compare),
    /// Turn a Hugging Face config.json (or -) into a plan for that model
    ///
    /// The example plan with its model replaced; notes go to stderr.
    /// With --serving, the serving example, stored in the formats the
    /// checkpoint ships (its quantization_config).
    #[command(after_help = "Examples:
  memwall import-hf config.json | memwall eval - --format table
  memwall import-hf config.json --serving | memwall eval - --format table")]
    ImportHf {
        /// A Hugging Face config.json, or - for stdin
        #[arg(value_name = "CONFIG")]
        file: String,
        /// Start from the serving example and serve the checkpoint as shipped
        #[arg(long)]
        serving: bool,
    },
    /// Pack jobs (plans) onto a shared pool of GPUs (JOBS file or -)
    ///
    /// MIG slices, memory caps or whole GPUs. Exit 0 when every job is
    /// placed, 1 when some job is left out.
    #[command(after_help = "Examples:
  memwall example-tenants | memwall tenants - --format table
  memwall tenants pool.json")]
    Tenants(FileFormat),
    /// Print a pool of 4 H100s and six jobs to share it
    #[command(after_help = "Example:
  memwall example-tenants > pool.json")]
    ExampleTenants,
    /// Checkpoint size, save and restore time, MTBI, interval and goodput
    ///
    /// Of a training plan (PLAN file or -): the optimal checkpoint interval
    /// and the goodput it gives.
    #[command(after_help = "Examples:
  memwall example | memwall checkpoint - --format table
  memwall checkpoint plan.json --storage-gbps=20 --failure-rate 10 --async")]
    Checkpoint(Checkpoint),
    /// What to change or verify to adopt a plan (also takes the checkpoint options)
    #[command(after_help = "Examples:
  memwall example | memwall checklist - --format table
  memwall checklist new.json --baseline old.json --lang zh --format table")]
    Checklist(Checklist),
    /// Model sizes and GPU memory by year
    ///
    /// And what each model needs on one GPU and on the fewest GPUs.
    #[command(after_help = "Examples:
  memwall wall --format table
  memwall wall --serving --gpu h200-sxm --format table")]
    Wall(Wall),
    /// Fit overheads and efficiencies to measured runs of one GPU kind
    ///
    /// Reads the GPU harness's comparison report (REPORT or - for stdin);
    /// prints the fitted profile and the before/after errors.
    #[command(after_help = "Examples:
  memwall-harness compare --report report.json
  memwall calibrate report.json --hold-out 0 --knobs gemm,cuda_context")]
    Calibrate(Calibrate),
    /// List catalog entries and their sources
    #[command(after_help = "Examples:
  memwall presets gpus
  memwall presets")]
    Presets {
        /// Which catalog (all of them by default)
        #[arg(value_enum, default_value_t = Catalog::All, value_name = "CATALOG")]
        catalog: Catalog,
    },
    /// Print a shell completion script to stdout
    #[command(after_help = "Examples:
  memwall completions bash > ~/.local/share/bash-completion/completions/memwall
  memwall completions fish > ~/.config/fish/completions/memwall.fish")]
    Completions {
        /// The shell
        #[arg(value_enum, value_name = "SHELL")]
        shell: Shell,
    },
}

/// The output format.
#[derive(Args)]
pub(crate) struct FormatArg {
    /// JSON for programs, a table for people
    #[arg(long, value_enum, default_value_t = Format::Json, value_name = "FORMAT")]
    pub format: Format,
}

/// One input file and a format.
#[derive(Args)]
pub(crate) struct FileFormat {
    /// The input file, or - for stdin
    #[arg(value_name = "FILE")]
    pub file: String,
    #[command(flatten)]
    pub format: FormatArg,
}

/// `memwall search-serving`.
#[derive(Args)]
pub(crate) struct SearchServing {
    /// The serving scenario, or - for stdin
    #[arg(value_name = "FILE")]
    pub file: String,
    /// Size the stream on every priced GPU kind too (the plan's GPU
    /// swapped, the rest of its hardware kept); with --formats, each kind
    /// in FP8 as well
    #[arg(long)]
    pub every_gpu: bool,
    /// Size the stream in narrower number formats too (an FP8 KV cache,
    /// FP8 weights, INT4 weights, NVFP4 on Blackwell, INT4 experts of an
    /// MoE); each changes the model's numbers, so its quality is flagged
    #[arg(long)]
    pub formats: bool,
    #[command(flatten)]
    pub format: FormatArg,
}

/// `memwall compare`.
#[derive(Args)]
pub(crate) struct Compare {
    /// Two or more plan files; at most one may be - (stdin)
    #[arg(value_name = "PLAN", required = true)]
    pub files: Vec<String>,
    #[command(flatten)]
    pub format: FormatArg,
}

/// `memwall checkpoint`.
#[derive(Args)]
pub(crate) struct Checkpoint {
    /// A training plan, or - for stdin
    #[arg(value_name = "PLAN")]
    pub file: String,
    #[command(flatten)]
    pub settings: CheckpointArgs,
    #[command(flatten)]
    pub format: FormatArg,
}

/// `memwall checklist`.
#[derive(Args)]
pub(crate) struct Checklist {
    /// The plan to adopt, or - for stdin
    #[arg(value_name = "PLAN")]
    pub file: String,
    /// The plan running today: list only what changes from it
    #[arg(long, value_name = "BASE")]
    pub baseline: Option<String>,
    /// The language of the table
    #[arg(long, value_enum, default_value_t = LangArg::En, value_name = "LANGUAGE")]
    pub lang: LangArg,
    #[command(flatten)]
    pub settings: CheckpointArgs,
    #[command(flatten)]
    pub format: FormatArg,
}

/// `memwall wall`.
#[derive(Args)]
pub(crate) struct Wall {
    /// Serving (inference) needs instead of training
    #[arg(long)]
    pub serving: bool,
    /// The GPU (default h100-sxm; see `memwall presets gpus`)
    #[arg(long, value_name = "ID", value_parser = gpu_id)]
    pub gpu: Option<GpuId>,
    #[command(flatten)]
    pub format: FormatArg,
}

/// `memwall calibrate`.
#[derive(Args)]
pub(crate) struct Calibrate {
    /// The harness's comparison report, or - for stdin
    #[arg(value_name = "REPORT")]
    pub file: String,
    /// A table (default) or JSON
    #[arg(long, value_enum, default_value_t = Format::Table, value_name = "FORMAT")]
    pub format: Format,
    /// Hold every K-th measurement out of the fit to judge it (0: none)
    #[arg(long, value_name = "K", value_parser = whole)]
    pub hold_out: Option<usize>,
    /// The knobs to fit, comma-separated (e.g. gemm,cuda_context)
    #[arg(long, value_name = "KNOBS", value_delimiter = ',', value_parser = knob, action = clap::ArgAction::Set)]
    pub knobs: Option<Vec<Knob>>,
}

/// The checkpoint options of `checkpoint` and `checklist`.
#[derive(Args)]
pub(crate) struct CheckpointArgs {
    /// Storage bandwidth to persist a checkpoint, in GB/s
    #[arg(long, value_name = "GB/S", value_parser = positive, allow_negative_numbers = true)]
    storage_gbps: Option<f64>,
    /// Bandwidth between nodes, in GB/s
    #[arg(long, value_name = "GB/S", value_parser = positive, allow_negative_numbers = true)]
    node_gbps: Option<f64>,
    /// Interruptions per GPU-year
    #[arg(long, value_name = "Z", value_parser = positive, allow_negative_numbers = true)]
    failure_rate: Option<f64>,
    /// Minutes to relaunch after an interruption
    #[arg(long, value_name = "M", value_parser = positive, allow_negative_numbers = true)]
    restart_minutes: Option<f64>,
    /// Save asynchronously (snapshot to host memory, persist in the background)
    #[arg(long = "async")]
    async_save: bool,
    /// Every rank saves its own shards
    #[arg(long)]
    own_shards: bool,
}

impl CheckpointArgs {
    /// The core's settings: defaults where an option is absent.
    pub fn settings(&self) -> CheckpointSettings {
        let mut s = CheckpointSettings::default();
        if let Some(x) = self.storage_gbps {
            s.storage_bandwidth = Some(ByteRate::from_gb_per_s(x));
        }
        if let Some(x) = self.node_gbps {
            s.node_bandwidth = Some(ByteRate::from_gb_per_s(x));
        }
        if let Some(x) = self.failure_rate {
            s.failure_rate = Some(Frequency::per_year(x));
        }
        if let Some(m) = self.restart_minutes {
            s.restart_overhead = Some(Seconds::from_secs(60.0 * m));
        }
        if self.async_save {
            s.mode = SaveMode::Async;
        }
        if self.own_shards {
            s.layout = SaveLayout::OwnShards;
        }
        s
    }
}

/// `memwall schema`'s choices.
#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum SchemaKind {
    /// A plan (`memwall eval`)
    Plan,
    /// A search scenario (`memwall search`)
    Scenario,
    /// A shared pool and its jobs (`memwall tenants`)
    Tenants,
}

/// `memwall presets`'s catalogs.
#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum Catalog {
    /// Models
    Models,
    /// GPUs
    Gpus,
    /// MIG profiles
    Mig,
    /// Links between devices
    Links,
    /// CXL memory expanders
    Cxl,
    /// Prices
    Prices,
    /// Every catalog
    All,
}

/// The checklist's languages.
#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum LangArg {
    /// English
    En,
    /// Chinese
    Zh,
}

impl From<LangArg> for Lang {
    fn from(l: LangArg) -> Lang {
        match l {
            LangArg::En => Lang::En,
            LangArg::Zh => Lang::Zh,
        }
    }
}

/// The shells `memwall completions` writes for.
#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum Shell {
    /// Bash
    Bash,
    /// Zsh
    Zsh,
    /// Fish
    Fish,
}

impl From<Shell> for clap_complete::Shell {
    fn from(s: Shell) -> clap_complete::Shell {
        match s {
            Shell::Bash => clap_complete::Shell::Bash,
            Shell::Zsh => clap_complete::Shell::Zsh,
            Shell::Fish => clap_complete::Shell::Fish,
        }
    }
}

fn positive(v: &str) -> Result<f64, String> {
    match v.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        _ => Err(format!("{v:?} is not a positive number")),
    }
}

fn whole(v: &str) -> Result<usize, String> {
    v.parse()
        .map_err(|_| format!("{v:?} is not a whole number (0: none)"))
}

fn gpu_id(v: &str) -> Result<GpuId, String> {
    serde_json::from_value(serde_json::Value::String(v.to_string()))
        .map_err(|_| format!("unknown GPU {v:?}; see memwall presets gpus"))
}

fn knob(v: &str) -> Result<Knob, String> {
    let k = v.trim();
    Knob::ALL
        .into_iter()
        .find(|x| x.label() == k || x.label().rsplit('.').next() == Some(k))
        .ok_or_else(|| {
            format!(
                "unknown knob {k:?}; use {}",
                Knob::ALL.map(|x| x.label()).join(", ")
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Cmd {
        let argv = std::iter::once(&"memwall").chain(args);
        let cmd = Cli::try_parse_from(argv).ok().and_then(|c| c.command);
        cmd.expect("the arguments parse")
    }

    #[test]
    fn a_repeated_option_keeps_its_last_value() {
        let Cmd::Eval(e) = parse(&["eval", "-", "--format", "json", "--format=table"]) else {
            unreachable!("eval");
        };
        assert!(e.format.format == Format::Table);
        let Cmd::Calibrate(c) = parse(&[
            "calibrate",
            "-",
            "--knobs",
            "gemm,hbm",
            "--knobs=cuda_context",
        ]) else {
            unreachable!("calibrate");
        };
        assert_eq!(c.knobs, Some(vec![Knob::CudaContext]));
        let Cmd::Wall(w) = parse(&["wall", "--serving", "--serving"]) else {
            unreachable!("wall");
        };
        assert!(w.serving);
    }
}
