//! clap's errors as memwall's one-line `memwall: ...` messages (exit 2);
//! help and version go out as clap prints them (exit 0).

use crate::args::Cli;
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::CommandFactory;
use std::process::ExitCode;

/// Prints a parse failure (or the help or version clap answers with) and
/// gives the exit code.
pub(crate) fn report(err: &clap::Error) -> ExitCode {
    match err.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = err.print();
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("memwall: {}", one_line(err));
            ExitCode::from(2)
        }
    }
}

fn context(err: &clap::Error, kind: ContextKind) -> String {
    match err.get(kind) {
        Some(ContextValue::String(s)) => s.clone(),
        Some(ContextValue::Strings(v)) => v.join(", "),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

/// "a, b or c".
fn either(values: &[String]) -> String {
    match values {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

fn valid_values(err: &clap::Error) -> Vec<String> {
    match err.get(ContextKind::ValidValue) {
        Some(ContextValue::Strings(v)) => v.clone(),
        _ => Vec::new(),
    }
}

/// The flag of "--format <FORMAT>" or the value name of "[CATALOG]".
fn flag(arg: &str) -> &str {
    arg.split_whitespace().next().unwrap_or(arg)
}

/// "format" from "--format <FORMAT>", "catalog" from "[CATALOG]".
fn value_name(arg: &str) -> String {
    let last = arg.split_whitespace().last().unwrap_or(arg);
    last.trim_matches(|c: char| "<>[].".contains(c))
        .to_lowercase()
}

/// One line saying what is wrong with the arguments.
fn one_line(err: &clap::Error) -> String {
    let arg = context(err, ContextKind::InvalidArg);
    let hint = match context(err, ContextKind::SuggestedArg) {
        s if s.is_empty() => String::new(),
        s => format!("; did you mean {s}?"),
    };
    match err.kind() {
        ErrorKind::InvalidSubcommand => {
            let sub = context(err, ContextKind::InvalidSubcommand);
            format!("unknown command {sub:?}; try `memwall help`")
        }
        ErrorKind::UnknownArgument if arg.starts_with('-') => {
            format!("unknown option {arg:?}{hint}{}", see_help())
        }
        ErrorKind::UnknownArgument => format!("unexpected argument {arg:?}{}", see_help()),
        ErrorKind::InvalidValue => {
            let value = context(err, ContextKind::InvalidValue);
            let valid = either(&valid_values(err));
            if value.is_empty() {
                format!("{} needs {valid}", flag(&arg))
            } else {
                format!("unknown {} {value:?}; use {valid}", value_name(&arg))
            }
        }
        ErrorKind::ValueValidation => match std::error::Error::source(err) {
            Some(why) => format!("{}: {why}", flag(&arg)),
            None => first_line(err),
        },
        ErrorKind::MissingRequiredArgument | ErrorKind::TooFewValues => needs(),
        _ => format!("{}{}", first_line(err), see_help()),
    }
}

/// clap's own message, first line, without its "error: ".
fn first_line(err: &clap::Error) -> String {
    let text = err.to_string();
    let line = text.lines().next().unwrap_or_default();
    line.strip_prefix("error: ").unwrap_or(line).to_string()
}

/// The subcommand on the command line, if any.
fn subcommand() -> Option<String> {
    let cmd = Cli::command();
    std::env::args()
        .skip(1)
        .find(|a| cmd.find_subcommand(a).is_some())
}

fn see_help() -> String {
    match subcommand() {
        Some(s) => format!(" (see `memwall {s} --help`)"),
        None => " (see `memwall --help`)".into(),
    }
}

/// What a command missing its input needs.
fn needs() -> String {
    let sub = subcommand().unwrap_or_default();
    let what = match sub.as_str() {
        "compare" => return "compare needs at least two plan files".into(),
        "completions" => return "completions needs a shell: bash, zsh or fish".into(),
        "search" => "a scenario file",
        "import-hf" => "a config.json file",
        "tenants" => "a jobs file",
        "calibrate" => "a report file",
        _ => "a plan file",
    };
    format!("{sub} needs {what}, or - for stdin")
}
