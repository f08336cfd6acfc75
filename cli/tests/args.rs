//! The command line itself: help, `--flag=value`, completions and usage
//! errors, run on the built binary.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn memwall(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_memwall"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the memwall binary runs");
    if let Some(mut pipe) = child.stdin.take() {
        if let Some(input) = stdin {
            // memwall may exit before reading stdin; the exit is what counts.
            let _ = pipe.write_all(input.as_bytes());
        }
    }
    child.wait_with_output().expect("memwall exits")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

const COMMANDS: [&str; 17] = [
    "eval",
    "example",
    "example-serving",
    "schema",
    "search",
    "example-scenario",
    "compare",
    "import-hf",
    "tenants",
    "example-tenants",
    "checkpoint",
    "checklist",
    "wall",
    "calibrate",
    "presets",
    "completions",
    "help",
];

#[test]
fn eval_help_prints_usage_and_opens_no_file() {
    let out = memwall(&["eval", "--help"], None);
    let s = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(s.contains("Usage: memwall eval"), "{s}");
    assert!(s.contains("--format"), "{s}");
    assert!(
        s.contains("memwall example | memwall eval - --format table"),
        "{s}"
    );
    assert!(!text(&out.stderr).contains("cannot read"));
}

#[test]
fn every_command_has_help_with_usage_and_an_example() {
    for cmd in COMMANDS.into_iter().filter(|c| *c != "help") {
        for flag in ["--help", "-h"] {
            let out = memwall(&[cmd, flag], None);
            let s = text(&out.stdout);
            assert_eq!(out.status.code(), Some(0), "{cmd} {flag}: {s}");
            assert!(s.contains("Usage: memwall"), "{cmd} {flag}: {s}");
            assert!(s.contains("Example"), "{cmd} {flag}: {s}");
            assert!(s.contains(&format!("memwall {cmd}")), "{cmd} {flag}: {s}");
        }
        // `memwall help CMD` says the same.
        let out = memwall(&["help", cmd], None);
        assert_eq!(out.status.code(), Some(0), "help {cmd}");
        assert!(text(&out.stdout).contains("Usage: memwall"), "help {cmd}");
    }
}

#[test]
fn top_level_help_lists_every_command() {
    for args in [&["--help"][..], &["help"], &[]] {
        let out = memwall(args, None);
        let s = text(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {s}");
        assert!(s.contains("Usage: memwall"), "{s}");
        for cmd in COMMANDS {
            assert!(s.contains(cmd), "{args:?} lacks {cmd}: {s}");
        }
        assert!(s.contains("Exit codes"), "{s}");
    }
    let out = memwall(&["--version"], None);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).starts_with("memwall "));
}

#[test]
fn format_equals_table_works_for_eval_and_compare() {
    let example = text(&memwall(&["example"], None).stdout);
    let out = memwall(&["eval", "-", "--format=table"], Some(&example));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("verdict  FITS"));

    let dir = std::env::temp_dir().join(format!("memwall-args-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let a = dir.join("a.json");
    std::fs::write(&a, &example).expect("plan written");
    let a = a.to_str().unwrap_or_default();
    // The option before, between and after the files.
    for args in [
        ["compare", "--format=table", a, "-"],
        ["compare", a, "--format=table", "-"],
        ["compare", a, "-", "--format=table"],
    ] {
        let out = memwall(&args, Some(&example));
        let s = text(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(s.contains("HBM margin"), "{args:?}: {s}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn options_take_equals_values() {
    let example = text(&memwall(&["example"], None).stdout);
    let out = memwall(
        &["checkpoint", "-", "--failure-rate=50", "--format=json"],
        Some(&example),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let c: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert!(c["goodput"].as_f64().is_some());
    let out = memwall(&["wall", "--gpu=h200-sxm", "--format=table"], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("H200"));
}

#[test]
fn completions_for_bash_zsh_and_fish() {
    for shell in ["bash", "zsh", "fish"] {
        let out = memwall(&["completions", shell], None);
        let s = text(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{shell}: {}", text(&out.stderr));
        assert!(s.len() > 200, "{shell}: {s}");
        assert!(s.contains("memwall"), "{shell}: {s}");
        assert!(s.contains("checkpoint"), "{shell} completes subcommands");
    }
    let out = memwall(&["completions", "tcsh"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("bash, zsh or fish"));
}

/// Exit 2, one line on stderr naming the problem, nothing on stdout.
fn assert_usage_error(args: &[&str], mentions: &str) {
    let out = memwall(args, Some("{}"));
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(err.starts_with("memwall: "), "{args:?}: {err}");
    assert!(
        err.contains(mentions),
        "{args:?}: {err:?} lacks {mentions:?}"
    );
    assert!(out.stdout.is_empty(), "{args:?}");
}

#[test]
fn usage_errors_exit_2_on_one_line() {
    assert_usage_error(
        &["eval", "-", "--frobnicate"],
        "unknown option \"--frobnicate\"",
    );
    assert_usage_error(&["eval", "-", "--fromat", "table"], "did you mean --format");
    assert_usage_error(&["--frobnicate"], "unknown option");
    assert_usage_error(&["wall", "extra"], "unexpected argument \"extra\"");
    assert_usage_error(&["eval", "-", "--format=xml"], "unknown format \"xml\"");
    assert_usage_error(&["eval", "-", "--format"], "--format needs json or table");
    assert_usage_error(&["checklist", "-", "--lang=fr"], "unknown language");
    assert_usage_error(&["checkpoint", "-", "--node-gbps=0"], "--node-gbps");
    assert_usage_error(&["calibrate", "-", "--hold-out", "x"], "whole number");
    assert_usage_error(&["compare"], "at least two");
    assert_usage_error(&["checkpoint"], "checkpoint needs a plan file");
    assert_usage_error(&["completions"], "needs a shell");
}
