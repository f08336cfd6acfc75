//! The CLI as a user runs it: the built binary, real files and pipes.

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
    if let Some(input) = stdin {
        // memwall may exit before reading stdin (bad arguments); a broken
        // pipe here is then expected and its exit status is what we check.
        if let Some(mut pipe) = child.stdin.take() {
            let _ = pipe.write_all(input.as_bytes());
        }
    } else {
        drop(child.stdin.take());
    }
    child.wait_with_output().expect("memwall exits")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn example() -> String {
    text(&memwall(&["example"], None).stdout)
}

/// A one-line error on stderr, exit code 2, no panic, no backtrace.
fn assert_bad_input(out: &Output, mentions: &str) {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(
        err.contains(mentions),
        "{err:?} should mention {mentions:?}"
    );
    assert!(
        !err.contains("panicked") && !err.contains("backtrace"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn example_pipes_into_eval() {
    let out = memwall(&["eval", "-"], Some(&example()));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("eval prints JSON");
    assert_eq!(report["verdict"], "fits");
    let items = report["devices"][0]["items"]
        .as_array()
        .expect("items are listed");
    for kind in [
        "weights",
        "gradients",
        "optimizer_states",
        "activations",
        "cuda_context",
    ] {
        assert!(
            items.iter().any(|i| i["kind"] == kind),
            "report lacks {kind}"
        );
    }
}

#[test]
fn table_format_from_a_file() {
    let dir = std::env::temp_dir().join(format!("memwall-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("plan.json");
    std::fs::write(&path, example()).expect("plan written");
    let out = memwall(
        &[
            "eval",
            path.to_str().unwrap_or_default(),
            "--format",
            "table",
        ],
        None,
    );
    let s = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(s.contains("verdict  FITS"), "{s}");
    assert!(s.contains("optimizer states"), "{s}");
    assert!(s.contains("max micro-batch"), "{s}");
    assert!(s.contains("per hour at $2.74/GPU-h (rental"), "{s}");
    assert!(s.contains("per M tokens trained"), "{s}");
    assert!(s.contains("adoption: configuration"), "{s}");
}

#[test]
fn json_report_carries_the_cost() {
    let out = memwall(&["eval", "-"], Some(&example()));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("eval prints JSON");
    let cost = &report["cost"];
    assert_eq!(cost["gpu_price"]["basis"], "rental");
    assert_eq!(cost["migration"], "configuration");
    assert!(cost["usd_per_hour"].as_f64().is_some_and(|v| v > 0.0));
    assert!(cost["usd_per_million_tokens"]
        .as_f64()
        .is_some_and(|v| v > 0.0));
    let prices = text(&memwall(&["presets", "prices"], None).stdout);
    assert!(prices.contains("electricity_kwh"), "{prices}");
    assert!(prices.contains("engineer_week"), "{prices}");
}

#[test]
fn a_plan_that_does_not_fit_exits_1_with_a_diagnostic() {
    let plan = example().replace("\"dp\": 8", "\"dp\": 8, \"micro_batch\": 1");
    let mut v: serde_json::Value = serde_json::from_str(&plan).expect("example is JSON");
    v["levers"]["sharding"] = "none".into();
    v["workload"]["training"]["seq_len"] = 16384.into();
    let out = memwall(&["eval", "-"], Some(&v.to_string()));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(report["verdict"], "does_not_fit");
    let diags = report["diagnostics"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        diags.iter().any(|d| d["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("HBM over by"))),
        "{diags:?}"
    );
}

#[test]
fn malformed_json() {
    assert_bad_input(
        &memwall(&["eval", "-"], Some("{\"model\": ")),
        "invalid plan",
    );
}

#[test]
fn unknown_preset_names_the_field() {
    let plan = example().replace("\"llama2-7b\"", "\"llama-9000\"");
    let out = memwall(&["eval", "-"], Some(&plan));
    assert_bad_input(&out, "model.preset");
    assert!(text(&out.stderr).contains("llama-9000"));
}

#[test]
fn negative_count_names_the_field() {
    let plan = example().replace("\"dp\": 8", "\"dp\": -8");
    assert_bad_input(&memwall(&["eval", "-"], Some(&plan)), "levers.parallel.dp");
}

#[test]
fn zero_gpus_is_rejected() {
    let plan = example().replace("\"gpus\": 8", "\"gpus\": 0");
    assert_bad_input(&memwall(&["eval", "-"], Some(&plan)), "hardware.gpus");
}

#[test]
fn negative_memory_names_the_field() {
    let mut v: serde_json::Value = serde_json::from_str(&example()).expect("JSON");
    v["hardware"]["host_dram_per_node"] = (-5.0).into();
    assert_bad_input(
        &memwall(&["eval", "-"], Some(&v.to_string())),
        "hardware.host_dram_per_node",
    );
}

#[test]
fn impossible_split_is_explained() {
    let mut v: serde_json::Value = serde_json::from_str(&example()).expect("JSON");
    v["levers"]["parallel"]["tp"] = 3.into();
    v["levers"]["parallel"]["dp"] = 1.into();
    v["hardware"]["gpus"] = 3.into();
    v["workload"]["training"]["global_batch"] = 3.into();
    let out = memwall(&["eval", "-"], Some(&v.to_string()));
    assert_bad_input(&out, "TP=3 does not divide 32 attention heads");
}

#[test]
fn nan_is_not_json() {
    let plan = example().replace("\"tokens\": 2000000000000.0", "\"tokens\": NaN");
    assert_bad_input(&memwall(&["eval", "-"], Some(&plan)), "invalid plan");
}

#[test]
fn missing_file_and_unknown_command() {
    assert_bad_input(
        &memwall(&["eval", "/nonexistent/plan.json"], None),
        "cannot read /nonexistent/plan.json",
    );
    assert_bad_input(&memwall(&["frobnicate"], None), "unknown command");
    assert_bad_input(&memwall(&["eval"], None), "needs a plan file");
    assert_bad_input(
        &memwall(&["eval", "-", "--format", "xml"], Some("{}")),
        "unknown format",
    );
    assert_bad_input(&memwall(&["presets", "boats"], None), "unknown catalog");
}

#[test]
fn schema_describes_the_plan() {
    let out = memwall(&["schema"], None);
    assert_eq!(out.status.code(), Some(0));
    let schema: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON schema");
    let props = &schema["properties"];
    for field in ["model", "workload", "levers", "hardware", "overheads"] {
        assert!(props.get(field).is_some(), "schema lacks {field}");
    }
}

#[test]
fn presets_list_catalogs_with_sources() {
    let out = memwall(&["presets"], None);
    let s = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0));
    for needle in [
        "llama3.1-405b",
        "deepseek-v3",
        "h200-sxm",
        "micron-cz120-256",
        "pcie5-x16",
    ] {
        assert!(s.contains(needle), "presets lack {needle}");
    }
    let gpus = text(&memwall(&["presets", "gpus"], None).stdout);
    assert!(
        gpus.lines().skip(1).all(|l| l.contains('[')),
        "every GPU cites a source"
    );
}

#[test]
fn import_hf_config_then_eval() {
    let config = r#"{
        "model_type": "llama", "_name_or_path": "tiny-llama-test",
        "hidden_size": 2048, "intermediate_size": 5632, "num_hidden_layers": 22,
        "num_attention_heads": 32, "num_key_value_heads": 4, "vocab_size": 32000,
        "max_position_embeddings": 2048, "hidden_act": "silu", "tie_word_embeddings": false
    }"#;
    let out = memwall(&["import-hf", "-"], Some(config));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let plan = text(&out.stdout);
    assert!(plan.contains("tiny-llama-test"));
    let out = memwall(&["eval", "-"], Some(&plan));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let total = report["params"]["total"].as_f64().unwrap_or(0.0);
    // TinyLlama-1.1B's published count is 1.1 B.
    assert!((total / 1.1e9 - 1.0).abs() < 0.01, "{total}");

    assert_bad_input(
        &memwall(&["import-hf", "-"], Some(r#"{"model_type": "llama"}"#)),
        "cannot import",
    );
}

/// The built-in search scenario with a smaller GPU budget (the full one is
/// for release builds and the benchmark).
fn scenario(max_gpus: u32) -> String {
    let out = memwall(&["example-scenario"], None);
    assert_eq!(out.status.code(), Some(0));
    let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("scenario JSON");
    assert_eq!(v["max_gpus"], 1024);
    assert_eq!(v["base"]["workload"]["training"]["global_batch"], 1536);
    assert_eq!(v["base"]["workload"]["training"]["seq_len"], 2048);
    assert_eq!(v["base"]["hardware"]["gpu"]["preset"], "a100-sxm-80gb");
    v["max_gpus"] = max_gpus.into();
    v.to_string()
}

#[test]
fn search_prints_frontier_families_and_answers_as_json() {
    let out = memwall(&["search", "-"], Some(&scenario(32)));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(out.stderr.is_empty(), "JSON output keeps stderr quiet");
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("search prints JSON");
    let counts = &r["counts"];
    let n = |k: &str| counts[k].as_u64().unwrap_or(0);
    assert!(n("combinations") >= n("evaluated") && n("evaluated") >= n("fitting"));
    assert!(n("fitting") > 0);
    let frontier = r["frontier"].as_array().cloned().unwrap_or_default();
    assert!(!frontier.is_empty());
    for f in &frontier {
        assert_eq!(f["figures"]["verdict"], "fits");
        assert!(f["figures"]["gpus"].as_u64().is_some_and(|g| g <= 32));
    }
    assert!(r["fewest_gpus"]["plan"]["hardware"]["gpus"]
        .as_u64()
        .is_some());
    assert!(r["best"]["hybrid"]["plan"].is_object());
    assert_eq!(r["baseline"]["family"], "baseline");
    // A returned plan is a whole plan: it evaluates, and fits.
    let plan = frontier[0]["plan"].to_string();
    let out = memwall(&["eval", "-"], Some(&plan));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn search_table_reports_the_time_on_stderr() {
    let dir = std::env::temp_dir().join(format!("memwall-search-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("scenario.json");
    std::fs::write(&path, scenario(32)).expect("scenario written");
    let out = memwall(
        &[
            "search",
            path.to_str().unwrap_or_default(),
            "--format",
            "table",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    for needle in ["frontier", "cheapest of each kind", "fewest GPUs", "/M tok"] {
        assert!(s.contains(needle), "table lacks {needle}: {s}");
    }
    let err = text(&out.stderr);
    assert!(
        err.starts_with("searched ") && err.contains(" s\n"),
        "{err}"
    );
}

#[test]
fn search_where_nothing_fits_exits_1() {
    // GPT-3 175B cannot fit on 8 A100s, even with everything offloaded.
    let out = memwall(&["search", "-"], Some(&scenario(8)));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(r["counts"]["fitting"], 0);
    assert_eq!(r["frontier"], serde_json::json!([]));
}

#[test]
fn bad_scenarios_are_bad_input() {
    assert_bad_input(
        &memwall(&["search", "-"], Some("{\"base\": ")),
        "invalid scenario",
    );
    let bad_budget = scenario(8).replace("\"max_gpus\":8", "\"max_gpus\":-8");
    assert_bad_input(&memwall(&["search", "-"], Some(&bad_budget)), "max_gpus");
    let mut v: serde_json::Value = serde_json::from_str(&scenario(8)).expect("JSON");
    v["base"]["hardware"]["host_dram_per_node"] = (-5.0).into();
    assert_bad_input(
        &memwall(&["search", "-"], Some(&v.to_string())),
        "hardware.host_dram_per_node",
    );
    assert_bad_input(&memwall(&["search"], None), "needs a scenario file");
    assert_bad_input(
        &memwall(&["example-scenario", "extra"], None),
        "unexpected argument",
    );
}

#[test]
fn compare_shows_plans_side_by_side() {
    let dir = std::env::temp_dir().join(format!("memwall-compare-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let a = dir.join("a.json");
    let b = dir.join("b.json");
    std::fs::write(&a, example()).expect("plan a");
    let mut v: serde_json::Value = serde_json::from_str(&example()).expect("JSON");
    v["name"] = "ZeRO-3 instead".into();
    v["levers"]["sharding"] = "zero3".into();
    std::fs::write(&b, v.to_string()).expect("plan b");
    let (a, b) = (
        a.to_str().unwrap_or_default().to_string(),
        b.to_str().unwrap_or_default().to_string(),
    );

    let out = memwall(&["compare", &a, &b, "--format", "table"], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    for needle in [
        "ZeRO-3 instead",
        "HBM margin",
        "step",
        "MFU",
        "$/M tokens",
        "migration",
    ] {
        assert!(s.contains(needle), "table lacks {needle}: {s}");
    }

    let out = memwall(&["compare", &a, &b], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let rows = rows.as_array().cloned().unwrap_or_default();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["figures"]["migration"], "none");
    assert_ne!(rows[1]["figures"]["migration"], "none");
    assert_eq!(rows[0]["figures"]["verdict"], "fits");
}

#[test]
fn compare_needs_two_valid_plans() {
    assert_bad_input(
        &memwall(&["compare", "-"], Some(&example())),
        "at least two",
    );
    let bad = example().replace("\"gpus\": 8", "\"gpus\": 0");
    let dir = std::env::temp_dir().join(format!("memwall-compare-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let good = dir.join("good.json");
    std::fs::write(&good, example()).expect("plan");
    let good = good.to_str().unwrap_or_default().to_string();
    assert_bad_input(
        &memwall(&["compare", &good, "-"], Some(&bad)),
        "hardware.gpus",
    );
    assert_bad_input(
        &memwall(&["compare", "-", "-"], Some(&example())),
        "only once",
    );
}

#[test]
fn schema_describes_the_scenario() {
    let out = memwall(&["schema", "scenario"], None);
    assert_eq!(out.status.code(), Some(0));
    let schema: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON schema");
    for field in ["base", "max_gpus", "constraints", "space", "prices"] {
        assert!(
            schema["properties"].get(field).is_some(),
            "schema lacks {field}"
        );
    }
    assert_bad_input(&memwall(&["schema", "boats"], None), "unknown schema");
}

fn example_tenants() -> String {
    text(&memwall(&["example-tenants"], None).stdout)
}

#[test]
fn example_tenants_are_all_placed() {
    let out = memwall(&["tenants", "-"], Some(&example_tenants()));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("tenants prints JSON");
    let jobs = r["jobs"].as_array().expect("jobs are listed");
    assert_eq!(jobs.len(), 6);
    for j in jobs {
        assert_eq!(j["placed"], true, "{j}");
        assert!(j["headroom"].as_f64().unwrap_or(-1.0) >= 0.0, "{j}");
    }
    assert!(jobs.iter().any(|j| j["share"]["kind"] == "mig"));
    assert!(jobs.iter().any(|j| j["share"]["kind"] == "whole"));
    assert!(r["gpus_used"].as_u64().unwrap_or(99) <= 4);

    let table = memwall(
        &["tenants", "-", "--format", "table"],
        Some(&example_tenants()),
    );
    let t = text(&table.stdout);
    assert!(
        t.contains("MIG 3g.40gb") && t.contains("first-fit decreasing"),
        "{t}"
    );
}

#[test]
fn a_pool_too_small_exits_1_and_says_who_is_left_out() {
    let mut s: serde_json::Value = serde_json::from_str(&example_tenants()).expect("json");
    s["pool"]["gpus"] = 1.into();
    s["pool"]["mode"] = "memory_cap".into();
    let out = memwall(&["tenants", "-", "--format", "table"], Some(&s.to_string()));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let t = text(&out.stdout);
    assert!(
        t.contains("NOT PLACED") && t.contains("no room left in the pool"),
        "{t}"
    );
    assert!(t.contains("cap "), "{t}");
}

#[test]
fn bad_tenant_files_are_bad_input() {
    assert_bad_input(&memwall(&["tenants", "-"], Some("{")), "invalid jobs file");
    let mut s: serde_json::Value = serde_json::from_str(&example_tenants()).expect("json");
    s["pool"]["mode"] = "timeshare".into();
    assert_bad_input(
        &memwall(&["tenants", "-"], Some(&s.to_string())),
        "pool.mode",
    );
    s["pool"]["mode"] = "mig".into();
    s["pool"]["gpus"] = 0.into();
    assert_bad_input(
        &memwall(&["tenants", "-"], Some(&s.to_string())),
        "pool.gpus",
    );
    assert_bad_input(&memwall(&["tenants"], None), "jobs file");
}

fn checkpoint_json(extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["checkpoint", "-"];
    args.extend_from_slice(extra);
    let out = memwall(&args, Some(&example()));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("checkpoint prints JSON")
}

#[test]
fn checkpoint_reports_size_times_interval_and_goodput() {
    let c = checkpoint_json(&[]);
    // Llama 2 7B: BF16 weights, FP32 master and Adam, 14 bytes per parameter.
    let total = c["size"]["total"].as_f64().unwrap_or(0.0);
    assert!(total > 90e9 && total < 98e9, "{total}");
    let goodput = c["goodput"].as_f64().unwrap_or(0.0);
    assert!(goodput > 0.9 && goodput < 1.0);
    for key in [
        "interval",
        "interval_young",
        "interval_daly",
        "mtbi",
        "stall",
        "restore",
    ] {
        assert!(c[key].as_f64().unwrap_or(0.0) > 0.0, "{key}");
    }
    // More failures: a shorter interval and less goodput.
    let worse = checkpoint_json(&["--failure-rate", "50"]);
    assert!(worse["interval"].as_f64() < c["interval"].as_f64());
    assert!(worse["goodput"].as_f64() < c["goodput"].as_f64());
    // Faster storage: a shorter persist.
    let fast = checkpoint_json(&["--storage-gbps", "100"]);
    assert!(fast["persist"].as_f64() < c["persist"].as_f64());
    let table = memwall(
        &["checkpoint", "-", "--format", "table", "--async"],
        Some(&example()),
    );
    let t = text(&table.stdout);
    assert!(t.contains("goodput") && t.contains("asynchronous"), "{t}");
}

#[test]
fn checkpoint_refuses_serving_plans_and_bad_options() {
    let s: serde_json::Value = serde_json::from_str(&example_tenants()).expect("json");
    let serving = s["jobs"][0]["plan"].to_string();
    assert_bad_input(&memwall(&["checkpoint", "-"], Some(&serving)), "training");
    assert_bad_input(
        &memwall(
            &["checkpoint", "-", "--storage-gbps", "-3"],
            Some(&example()),
        ),
        "--storage-gbps",
    );
    assert_bad_input(
        &memwall(&["checkpoint", "-", "--lang", "zh"], Some(&example())),
        "unknown option",
    );
}

#[test]
fn checklist_in_both_languages() {
    let out = memwall(&["checklist", "-"], Some(&example()));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let c: serde_json::Value = serde_json::from_slice(&out.stdout).expect("checklist prints JSON");
    let items = c["items"].as_array().expect("items");
    assert!(items.iter().any(|i| i["id"] == "sharding.framework"));
    assert!(items.iter().any(|i| i["category"] == "monitoring"));
    for i in items {
        assert!(!i["text"]["zh"].as_str().unwrap_or("").is_empty());
        assert!(!i["reason"]["en"].as_str().unwrap_or("").is_empty());
    }
    let zh = memwall(
        &["checklist", "-", "--lang", "zh", "--format", "table"],
        Some(&example()),
    );
    let t = text(&zh.stdout);
    assert!(
        t.contains("框架支持") && t.contains("监控") && t.contains("原因"),
        "{t}"
    );
}

#[test]
fn checklist_against_a_baseline_lists_only_what_changes() {
    let dir = std::env::temp_dir().join(format!("memwall-checklist-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let base = dir.join("base.json");
    std::fs::write(&base, example()).expect("written");
    let same = memwall(
        &[
            "checklist",
            "-",
            "--baseline",
            base.to_str().unwrap_or_default(),
        ],
        Some(&example()),
    );
    assert_eq!(same.status.code(), Some(0), "{}", text(&same.stderr));
    let c: serde_json::Value = serde_json::from_slice(&same.stdout).expect("json");
    assert_eq!(c["migration"], "none");
    let items = c["items"].as_array().expect("items");
    assert!(items.iter().all(|i| i["lever"].is_null()), "{items:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn wall_lists_models_and_gpus_by_date() {
    let out = memwall(&["wall"], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let w: serde_json::Value = serde_json::from_slice(&out.stdout).expect("wall prints JSON");
    let models = w["models"].as_array().expect("models");
    assert!(models.len() >= 8);
    assert!(models
        .iter()
        .all(|m| !m["source"].as_str().unwrap_or("").is_empty()));
    let table = memwall(
        &[
            "wall",
            "--serving",
            "--gpu",
            "h200-sxm",
            "--format",
            "table",
        ],
        None,
    );
    let t = text(&table.stdout);
    assert!(
        t.contains("DeepSeek-V3") && t.contains("MI355X") && t.contains("H200"),
        "{t}"
    );
    assert_bad_input(&memwall(&["wall", "--gpu", "x9000"], None), "unknown GPU");
}

#[test]
fn mig_presets_and_tenants_schema() {
    let out = memwall(&["presets", "mig"], None);
    let t = text(&out.stdout);
    assert!(
        t.contains("3g.40gb") && t.contains("7g.141gb") && t.contains("mig-parted"),
        "{t}"
    );
    let schema = memwall(&["schema", "tenants"], None);
    assert_eq!(schema.status.code(), Some(0));
    assert!(text(&schema.stdout).contains("min_batch"));
}

/// A SYNTHETIC calibration report: variations of the example plan, each
/// "measured" as the planner predicts it with a slower GEMM efficiency and
/// a larger CUDA context. Not a measurement of anything.
fn synthetic_calibration_report() -> String {
    use planner_core::calibrate::{CalibrationInput, Figure, Knobs, Measured, Measurement};
    use planner_core::plan::Workload;
    use planner_core::units::{Bytes, Seconds};
    let mut measurements = Vec::new();
    for (i, (seq, mb)) in [
        (2048, 1),
        (4096, 1),
        (2048, 2),
        (4096, 2),
        (1024, 4),
        (8192, 1),
    ]
    .into_iter()
    .enumerate()
    {
        let mut plan = planner_core::example_plan();
        if let Workload::Training(t) = &mut plan.workload {
            t.seq_len = seq;
        }
        plan.levers.parallel.micro_batch = mb;
        let mut truth = plan.clone();
        let mut k = Knobs::of(&truth);
        k.gemm = 0.7;
        k.cuda_context = Bytes::from_mib(900.0);
        k.apply(&mut truth);
        let r = planner_core::evaluate(&truth);
        let d = r.binding_device().expect("device");
        measurements.push(Measurement {
            id: format!("synthetic-{i}"),
            plan,
            measured: Measured {
                peak_allocated: Some(d.hbm_allocated()),
                peak_reserved: Some(d.hbm_reserved()),
                device_used: Some(d.hbm_used()),
                step_time: Figure::StepTime
                    .predicted(&r)
                    .map(|v| Seconds::from_secs(v.base())),
                ..Measured::default()
            },
        });
    }
    serde_json::to_string(&CalibrationInput {
        measurements,
        source: Default::default(),
    })
    .expect("serialize")
}

#[test]
fn calibrate_prints_the_fitted_profile_and_errors() {
    let report = synthetic_calibration_report();
    let out = memwall(&["calibrate", "-"], Some(&report));
    let t = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    for want in [
        "calibration of NVIDIA H100 SXM5 80GB (h100-sxm) from 6 measurements (1 held out)",
        "efficiency.gemm",
        "overheads.cuda_context",
        "efficiency.attention",
        "(not fitted)",
        "errors on the held-out configurations",
        "synthetic-3",
        "step time",
    ] {
        assert!(t.contains(want), "{want:?} missing from:\n{t}");
    }
    let out = memwall(
        &[
            "calibrate",
            "-",
            "--format",
            "json",
            "--hold-out",
            "0",
            "--knobs",
            "gemm,cuda_context",
        ],
        Some(&report),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let cal: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(cal["held_out"], 0);
    assert_eq!(
        cal["profile"]["fitted"],
        serde_json::json!(["gemm", "cuda_context"])
    );
    let ctx = cal["profile"]["knobs"]["cuda_context"]
        .as_f64()
        .expect("bytes");
    assert!(
        (ctx / (900.0 * 1024.0 * 1024.0) - 1.0).abs() < 0.01,
        "{ctx}"
    );
}

#[test]
fn calibrate_rejects_bad_reports() {
    assert_bad_input(&memwall(&["calibrate", "-"], Some("{}")), "measurements");
    assert_bad_input(
        &memwall(&["calibrate", "-"], Some(r#"{"measurements": []}"#)),
        "no measurements",
    );
    assert_bad_input(&memwall(&["calibrate"], None), "calibrate needs a report");
    assert_bad_input(
        &memwall(&["calibrate", "-", "--knobs", "warp"], Some("{}")),
        "unknown knob",
    );
}

/// The serving example evaluates to a table with the engine, the KV pool,
/// the simulated stream, the analytic steady state and the price per token.
#[test]
fn example_serving_pipes_into_eval() {
    let plan = text(&memwall(&["example-serving"], None).stdout);
    let out = memwall(&["eval", "-", "--format", "table"], Some(&plan));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    for line in [
        "serves   Meets its SLOs",
        "engine   vLLM",
        "KV pool",
        "stream   simulated 1000",
        "analytic steady",
        "per M input tokens",
        "static   the figures below are one static batch",
        "per M output tokens (one static batch)",
    ] {
        assert!(s.contains(line), "{line} missing from\n{s}");
    }
    let json = memwall(&["eval", "-", "--format", "json"], Some(&plan));
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
    assert!(
        v["serving"]["simulated"]["output_tokens_per_second"]
            .as_f64()
            .expect("a number")
            > 0.0
    );
}

/// A closed loop of one prompt and one output length arrives in waves: the
/// table says so under the steady state and that its figures follow the
/// first wave; the JSON carries the groups. Poisson arrivals say nothing.
#[test]
fn a_closed_loop_of_fixed_lengths_is_labelled_as_waves() {
    let plan = text(&memwall(&["example-serving"], None).stdout);
    let mut v: serde_json::Value = serde_json::from_str(&plan).expect("json");
    let stream = &mut v["workload"]["inference"]["stream"];
    stream["arrival"] = serde_json::json!({"concurrency": {"clients": 32}});
    stream["prompt"] = serde_json::json!({"fixed": {"tokens": 1000}});
    stream["output"] = serde_json::json!({"fixed": {"tokens": 500}});
    let closed = v.to_string();
    let out = memwall(&["eval", "-", "--format", "table"], Some(&closed));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(s.contains("arrives in waves of"), "{s}");
    assert!(s.contains("follow the first wave"), "{s}");
    let json = memwall(&["eval", "-", "--format", "json"], Some(&closed));
    let j: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
    assert!(
        j["serving"]["analytic"]["waves"]
            .as_u64()
            .is_some_and(|g| g >= 1),
        "{j}"
    );
    let poisson = memwall(&["eval", "-", "--format", "table"], Some(&plan));
    assert!(!text(&poisson.stdout).contains("waves"));
}

/// Past its largest rate the plan still fits, and the table says under the
/// verdict that it cannot keep up, with the rate it can.
#[test]
fn an_overloaded_stream_says_so_under_the_verdict() {
    let plan = text(&memwall(&["example-serving"], None).stdout);
    let mut v: serde_json::Value = serde_json::from_str(&plan).expect("json");
    v["workload"]["inference"]["stream"]["arrival"]["poisson"]["rate"] = 500.0.into();
    let out = memwall(&["eval", "-", "--format", "table"], Some(&v.to_string()));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(
        s.contains("serves   Cannot keep up: the queue grows (largest sustainable rate "),
        "{s}"
    );
}

/// vLLM 0.6 as SGLang's benchmark ran it (`vllm_v0`, ten decode steps per
/// scheduling): the table names the engine and its host work.
#[test]
fn vllm_v0_with_multi_step_shows_its_host_work() {
    let plan = text(&memwall(&["example-serving"], None).stdout);
    let mut v: serde_json::Value = serde_json::from_str(&plan).expect("json");
    v["levers"]["engine"] = "vllm_v0".into();
    v["levers"]["engine_knobs"] = serde_json::json!({"scheduler_steps": 10});
    let out = memwall(&["eval", "-", "--format", "table"], Some(&v.to_string()));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    for line in [
        "engine   vLLM 0.6 (V0 engine): whole prompts",
        "host     4.00 ms a scheduling + 35 µs a sequence, host work between GPU steps; 10 decode steps per scheduling",
    ] {
        assert!(s.contains(line), "{line} missing from\n{s}");
    }
}

/// The memory table's columns line up whatever its longest item name
/// ("backward gradients in flight" is 29 characters): each row's
/// tier starts under the header's "tier".
#[test]
fn table_columns_line_up_with_long_item_names() {
    let out = memwall(&["eval", "-", "--format", "table"], Some(&example()));
    let s = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let lines: Vec<&str> = s.lines().collect();
    let header = lines
        .iter()
        .position(|l| l.trim_start().starts_with("item ") && l.contains(" tier "))
        .unwrap_or(usize::MAX);
    assert!(header < lines.len(), "{s}");
    let col = lines[header].find(" tier ").map_or(0, |i| i + 1);
    let rows: Vec<&str> = lines[header + 1..]
        .iter()
        .take_while(|l| !l.trim_start().starts_with("HBM:"))
        .copied()
        .collect();
    assert!(rows.iter().any(|r| r.contains("allocator rounding")), "{s}");
    for r in rows {
        let chars: Vec<char> = r.chars().collect();
        assert!(
            chars.get(col - 1) == Some(&' ') && chars.get(col).is_some_and(|c| *c != ' '),
            "tier column at {col}: {r:?}"
        );
    }
}

/// `search-serving --every-gpu`: each priced GPU kind's answer with the
/// fewest GPUs, cheapest per hour first, each a different kind, another
/// kind's answer naming its GPU change; the table says how many kinds.
#[test]
fn a_stream_is_sized_on_every_gpu_kind() {
    let scenario = text(&memwall(&["example-serving-scenario"], None).stdout);
    let out = memwall(&["search-serving", "-", "--every-gpu"], Some(&scenario));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let answers: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let answers = answers.as_array().cloned().unwrap_or_default();
    assert!(answers.len() > 2, "{} answers", answers.len());
    let price = |a: &serde_json::Value| a["usd_per_hour"].as_f64().unwrap_or(f64::INFINITY);
    let gpu = |a: &serde_json::Value| a["plan"]["hardware"]["gpu"].to_string();
    for (i, a) in answers.iter().enumerate() {
        assert!(i == 0 || price(&answers[i - 1]) <= price(a));
        assert!(answers[..i].iter().all(|b| gpu(b) != gpu(a)));
        let own = gpu(a) == r#"{"preset":"h100-sxm"}"#;
        let names_kind = a["changes"]
            .as_array()
            .is_some_and(|c| c.iter().any(|c| c["setting"] == "gpu_kind"));
        assert_eq!(names_kind, !own, "{}", a["changes"]);
    }
    let table = memwall(
        &["search-serving", "-", "--every-gpu", "--format", "table"],
        Some(&scenario),
    );
    assert!(
        text(&table.stdout).contains("ways sized"),
        "{}",
        text(&table.stdout)
    );
}

/// With --formats the narrower number formats are sized too: each answer
/// names its family, a software answer changes a format and is flagged
/// for quality, and ties point to an earlier answer.
#[test]
fn a_stream_is_sized_in_other_formats() {
    let scenario = text(&memwall(&["example-serving-scenario"], None).stdout);
    let out = memwall(&["search-serving", "-", "--formats"], Some(&scenario));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let answers: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let answers = answers.as_array().cloned().unwrap_or_default();
    assert!(answers.len() >= 3, "{} answers", answers.len());
    let families: Vec<&str> = answers
        .iter()
        .filter_map(|a| a["family"].as_str())
        .collect();
    assert!(families.contains(&"baseline") && families.contains(&"software"));
    assert!(families
        .iter()
        .all(|f| *f == "baseline" || *f == "software"));
    for (i, a) in answers.iter().enumerate() {
        let quality = a["changes"]
            .as_array()
            .is_some_and(|c| c.iter().any(|c| c["impact"] == "quality"));
        assert_eq!(quality, a["family"] == "software", "{}", a["changes"]);
        if let Some(j) = a["tie"].as_u64() {
            assert!((j as usize) < i);
        }
        let (low, high) = (
            a["cost_range"]["low"].as_f64(),
            a["cost_range"]["high"].as_f64(),
        );
        let usd = a["usd_per_hour"].as_f64();
        assert!(
            matches!((low, usd, high), (Some(l), Some(u), Some(h)) if l <= u && u <= h),
            "{}",
            a["cost_range"]
        );
    }
}
