//! `memwall-harness`'s command line, declared with clap.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

const EXIT_CODES: &str = "\
Exit codes: 0 done or skipped, 1 rows outside tolerance, 2 bad input or failure.

Options take --flag value or --flag=value. Run `memwall-harness COMMAND --help`
for a command's options and an example.";

/// memwall-harness — measure real GPUs and hold memwall's predictions against them
#[derive(Parser)]
#[command(name = "memwall-harness", version, args_override_self = true, after_help = EXIT_CODES)]
pub(crate) struct Cli {
    /// The command; none prints this help.
    #[command(subcommand)]
    pub command: Option<Cmd>,
}

/// The subcommands.
#[derive(Subcommand)]
pub(crate) enum Cmd {
    /// Measure this GPU over the grid, record a fixture and compare it
    ///
    /// Probes the GPU (NVML), runs tests/gpu/workload.py over the grid (full,
    /// or quick), records the run set under tests/gpu/fixtures/ and compares
    /// it with the planner; skips with a message (exit 0) without a GPU or
    /// PyTorch.
    #[command(after_help = "Examples:
  memwall-harness measure --quick
  memwall-harness measure --python .venv/bin/python --only llama")]
    Measure(Measure),
    /// Compare fixtures with the planner's predictions
    ///
    /// Default: every file in tests/gpu/fixtures/. --report writes the JSON
    /// report that `memwall calibrate` reads.
    #[command(after_help = "Examples:
  memwall-harness compare
  memwall-harness compare --report report.json && memwall calibrate report.json")]
    Compare(Compare),
    /// Record a run set made by the workload alone as a fixture
    ///
    /// The run set comes from `python3 tests/gpu/workload.py`.
    #[command(after_help = "Example:
  memwall-harness import runset-quick.json")]
    Import {
        /// The run set file
        #[arg(value_name = "RUNSET.json")]
        file: String,
    },
    /// Print what NVML sees (or why it sees nothing)
    #[command(after_help = "Example:
  memwall-harness probe")]
    Probe,
    /// Print a grid as JSON (the workload's input)
    #[command(after_help = "Example:
  memwall-harness grid quick > grid.json")]
    Grid {
        /// Which grid
        #[arg(value_enum, default_value_t = GridName::Full, value_name = "GRID")]
        name: GridName,
    },
    /// Write tests/gpu/grids/{quick,full}.json
    #[command(after_help = "Example:
  memwall-harness write-grids && git diff tests/gpu/grids")]
    WriteGrids,
    /// Print the plan a configuration of a grid is compared with
    ///
    /// The default GPU is NVIDIA H100 80GB HBM3.
    #[command(after_help = "Example:
  memwall-harness plan ID | memwall eval - --format table
  (ID: a configuration id of `memwall-harness grid full`)")]
    Plan(Plan),
}

/// `measure`.
#[derive(Args)]
pub(crate) struct Measure {
    /// The quick grid
    #[arg(long, overrides_with = "full")]
    pub quick: bool,
    /// The full grid (the default)
    #[arg(long, overrides_with = "quick")]
    pub full: bool,
    /// The Python interpreter with PyTorch
    #[arg(long, value_name = "PY")]
    pub python: Option<String>,
    /// Run only the configurations whose id contains TEXT (repeatable)
    #[arg(long, value_name = "TEXT")]
    pub only: Vec<String>,
}

impl Measure {
    /// The grid's name.
    pub fn grid(&self) -> &'static str {
        if self.quick {
            "quick"
        } else {
            "full"
        }
    }
}

/// `compare`.
#[derive(Args)]
pub(crate) struct Compare {
    /// Fixture files (default: every file in tests/gpu/fixtures/)
    #[arg(value_name = "FIXTURE")]
    pub files: Vec<PathBuf>,
    /// Write the JSON report that `memwall calibrate` reads
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// A table for people or JSON
    #[arg(long, value_enum, default_value_t = Format::Table, value_name = "FORMAT")]
    pub format: Format,
}

/// `plan`.
#[derive(Args)]
pub(crate) struct Plan {
    /// The configuration id (see `memwall-harness grid full`)
    #[arg(value_name = "ID")]
    pub id: String,
    /// The GPU's name as NVML reports it
    #[arg(long, value_name = "NAME", default_value = "NVIDIA H100 80GB HBM3")]
    pub gpu: String,
    /// The GPU's memory in bytes
    #[arg(long, value_name = "BYTES", default_value_t = 81559 * 1024 * 1024)]
    pub memory: u64,
}

/// The grids.
#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum GridName {
    /// The quick grid
    Quick,
    /// The full grid
    Full,
    /// The large grid (an 8B model near one H200's memory)
    Large,
}

impl GridName {
    /// The grid's name.
    pub fn as_str(self) -> &'static str {
        match self {
            GridName::Quick => "quick",
            GridName::Full => "full",
            GridName::Large => "large",
        }
    }
}

/// `compare`'s output.
#[derive(Clone, Copy, PartialEq, ValueEnum)]
pub(crate) enum Format {
    /// A table
    Table,
    /// JSON
    Json,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measure(args: &[&str]) -> Measure {
        let argv = ["memwall-harness", "measure"].iter().chain(args);
        let cmd = Cli::try_parse_from(argv).ok().and_then(|c| c.command);
        let Some(Cmd::Measure(m)) = cmd else {
            unreachable!("measure {args:?} does not parse")
        };
        m
    }

    #[test]
    fn only_adds_up_and_the_last_grid_wins() {
        let m = measure(&["--only", "a", "--only=b", "--quick"]);
        assert_eq!(m.only, ["a", "b"]);
        assert_eq!(m.grid(), "quick");
        assert_eq!(measure(&["--quick", "--full"]).grid(), "full");
        assert_eq!(measure(&["--full", "--quick"]).grid(), "quick");
        assert_eq!(
            measure(&["--python", "a", "--python", "b"])
                .python
                .as_deref(),
            Some("b")
        );
    }
}
