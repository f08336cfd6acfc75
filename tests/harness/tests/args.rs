//! The harness's command line: help on every command, usage errors exit 2.

use std::process::{Command, Output};

fn harness(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memwall-harness"))
        .args(args)
        .output()
        .expect("the harness runs")
}

#[test]
fn every_command_has_help_with_usage_and_an_example() {
    for cmd in [
        "measure",
        "compare",
        "import",
        "probe",
        "grid",
        "write-grids",
        "plan",
    ] {
        let out = harness(&[cmd, "--help"]);
        let s = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{cmd}: {s}");
        assert!(s.contains("Usage: memwall-harness"), "{cmd}: {s}");
        assert!(s.contains("Example"), "{cmd}: {s}");
        assert!(s.contains(&format!("memwall-harness {cmd}")), "{cmd}: {s}");
    }
    let out = harness(&[]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("write-grids"));
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["measure", "--frobnicate"][..],
        &["frobnicate"],
        &["grid", "boats"],
        &["plan"],
        &["compare", "--format=xml"],
    ] {
        let out = harness(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
}

#[test]
fn options_take_equals_values() {
    let out = harness(&["plan", "nosuch-id", "--memory=1024", "--gpu=A100"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no configuration \"nosuch-id\""), "{err}");
}
