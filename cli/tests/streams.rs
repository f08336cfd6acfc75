//! The CLI's streams against hostile input and short pipes (the hardening
//! issue's findings 10, 11 and 13).

use std::io::{Read, Write};
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_memwall"))
}

/// Runs memwall with `args`, `input` on its stdin, and waits for it.
fn with_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = bin()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("memwall runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("written");
    child.wait_with_output().expect("memwall exits")
}

/// Runs memwall with `args`, reads the first 100 bytes of its output and
/// closes the pipe before memwall has written the rest: memwall must exit
/// quietly with status 0, no panic.
fn closed_after_100_bytes(args: &[&std::ffi::OsStr]) {
    let mut child = bin()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("memwall runs");
    let mut first = [0u8; 100];
    child
        .stdout
        .take()
        .expect("stdout")
        .read_exact(&mut first)
        .expect("100 bytes");
    // The pipe's read end is dropped here, before memwall has written all.
    let out = child.wait_with_output().expect("memwall exits");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// `memwall schema | head -c 100`: a 90 KB output.
#[test]
fn a_closed_pipe_ends_quietly() {
    closed_after_100_bytes(&["schema".as_ref()]);
}

/// `memwall search scenario.json | head -c 100`, the finding as reported:
/// the search's 68 KB answer is more than a pipe buffers, so its write
/// meets the closed pipe.
#[test]
fn a_search_into_a_closed_pipe_ends_quietly() {
    let scenario = bin().arg("example-scenario").output().expect("example");
    let path = std::env::temp_dir().join(format!("memwall-pipe-{}.json", std::process::id()));
    std::fs::write(&path, &scenario.stdout).expect("written");
    closed_after_100_bytes(&["search".as_ref(), path.as_os_str()]);
    let _ = std::fs::remove_file(&path);
}

/// A plan name with a terminal escape and a newline is printed escaped in
/// a table, never raw.
#[test]
fn control_characters_from_a_plan_are_escaped_in_tables() {
    let example = bin().arg("example").output().expect("example");
    let mut plan: serde_json::Value = serde_json::from_slice(&example.stdout).expect("JSON");
    plan["name"] = "evil\u{1b}[2J\u{7}name".into();
    let out = with_stdin(
        &["eval", "-", "--format", "table"],
        plan.to_string().as_bytes(),
    );
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        !table.contains('\u{1b}') && !table.contains('\u{7}'),
        "{table:?}"
    );
    assert!(table.contains("\\u{1b}"), "{table}");
}

/// An error quoting a name with a newline stays on one line.
#[test]
fn errors_stay_on_one_line() {
    let out = bin()
        .args(["eval", "no\nsuch\u{1b}file.json"])
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err:?}");
    assert!(!err.contains('\u{1b}'), "{err:?}");
}

/// Input past 64 MiB is refused by name, not read until memory runs out.
#[test]
fn oversized_input_is_refused() {
    let mut child = bin()
        .args(["eval", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("memwall runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let chunk = vec![b' '; 1 << 20];
    for _ in 0..70 {
        if stdin.write_all(&chunk).is_err() {
            break;
        }
    }
    drop(stdin);
    let out = child.wait_with_output().expect("exits");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("64 MiB"), "{err}");
}

/// A change to a JSON input.
type Edit = fn(&mut serde_json::Value);

/// Tenants input is checked like a plan (hardening finding 12): a pool
/// over the cap, zero GPUs per node, a smallest batch of 0 and a negative
/// latency target each exit 2 with one line naming the field.
#[test]
fn bad_tenants_input_is_refused_by_field() {
    let example = bin().arg("example-tenants").output().expect("example");
    let base: serde_json::Value = serde_json::from_slice(&example.stdout).expect("JSON");
    let cases: [(&str, Edit); 4] = [
        ("pool.gpus", |v| v["pool"]["gpus"] = 100_000.into()),
        ("pool.gpus_per_node", |v| {
            v["pool"]["gpus_per_node"] = 0.into()
        }),
        ("jobs[0].min_batch", |v| {
            v["jobs"][0]["min_batch"] = 0.into()
        }),
        ("jobs[0].slo.max_ttft", |v| {
            v["jobs"][0]["slo"]["max_ttft"] = (-1.0).into()
        }),
    ];
    for (field, edit) in cases {
        let mut v = base.clone();
        edit(&mut v);
        let out = with_stdin(&["tenants", "-"], v.to_string().as_bytes());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{field}: {err}");
        assert!(err.contains(field), "{field}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
}

/// Nonsense numbers that used to give "fits" with exit 0 (hardening
/// finding 2) are refused by field: a per-layer overhead of 1e307 s, a
/// link latency of 1e308 s, a PUE of 1.7e308, an efficiency of 5e-324 and
/// a custom GPU with no compute or bandwidth.
#[test]
fn nonsense_numbers_are_refused_by_field() {
    let example = bin().arg("example").output().expect("example");
    let base: serde_json::Value = serde_json::from_slice(&example.stdout).expect("JSON");
    let cases: [(&str, Edit); 5] = [
        ("efficiency.layer_overhead", |v| {
            v["efficiency"]["layer_overhead"] = 1e307.into()
        }),
        ("efficiency.scale_up_latency", |v| {
            v["efficiency"]["scale_up_latency"] = 1e308.into()
        }),
        ("economics.energy.pue", |v| {
            v["economics"]["energy"]["pue"] = 1.7e308.into()
        }),
        ("efficiency.gemm", |v| {
            v["efficiency"]["gemm"] = 5e-324.into()
        }),
        ("hardware.gpu", |v| {
            v["hardware"]["gpu"] = serde_json::json!({"custom": {
            "name": "nothing", "spec": {
                "arch": "hopper", "memory": "hbm3", "capacity": 80e9,
                "memory_bandwidth": 0.0, "bf16": 0.0, "fp16": 0.0,
                "tdp": 700.0, "host_link": "pcie5-x16"
            }}});
        }),
    ];
    for (field, edit) in cases {
        let mut v = base.clone();
        edit(&mut v);
        let out = with_stdin(&["eval", "-"], v.to_string().as_bytes());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{field}: {err}");
        assert!(err.contains(field), "{field}: {err}");
    }
}

/// `"version": 999` was accepted (hardening finding 6): a plan made by a
/// newer memwall is refused, naming the field.
#[test]
fn newer_versions_are_refused() {
    let example = bin().arg("example").output().expect("example");
    let mut v: serde_json::Value = serde_json::from_slice(&example.stdout).expect("JSON");
    v["version"] = 999.into();
    let out = with_stdin(&["eval", "-"], v.to_string().as_bytes());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("version") && err.contains("newer memwall"),
        "{err}"
    );
}
