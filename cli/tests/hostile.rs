//! The hostile-input catalogue (the hardening issue): every case is an
//! input a careless or malicious user could give, with the exit it must
//! get, the field its one-line error must name, and a watchdog that fails
//! the case if memwall has not answered in bounded time.
//!
//! The watchdog is a hang detector, not a benchmark: it is set far above
//! the ~1 s any of these takes, so a noisy machine cannot fail it. The
//! slowest cases' times are printed (`cargo test --release -p memwall-cli
//! --test hostile -- --nocapture`), as a benchmark's figures are.
//!
//! Memory is bounded for real: every case runs with its address space
//! capped at [`ADDRESS_SPACE_KIB`] (`ulimit -v`), so an input that makes
//! memwall allocate without bound ends in an allocation failure (an
//! abort, which fails the case) instead of passing on a large machine.

use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Longest any case may run before it counts as unbounded.
const WATCHDOG: Duration = Duration::from_secs(60);

/// The address space each case may map, KiB (2 GiB: a CLI run of any
/// input within the 64 MiB input limit needs a few hundred MB).
const ADDRESS_SPACE_KIB: u64 = 2 * 1024 * 1024;

/// What a case must produce.
#[derive(Clone, Copy)]
enum Expect {
    /// Exit 2, one line on stderr naming this text, nothing on stdout.
    Refused(&'static str),
    /// Exit 0 or 1 (a valid input, whatever its verdict), with a JSON answer.
    Answered,
}

struct Case {
    name: &'static str,
    args: Vec<String>,
    stdin: Vec<u8>,
    expect: Expect,
}

fn output(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_memwall"))
        .args(args)
        .output()
        .expect("memwall runs");
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// Runs one case under its memory cap; returns how long it took and a
/// description of what went wrong, if anything did.
fn run(case: &Case) -> (Duration, Option<String>) {
    let start = std::time::Instant::now();
    let wrong = check(case);
    (start.elapsed(), wrong)
}

/// Runs one case and returns a description of what went wrong, if any.
fn check(case: &Case) -> Option<String> {
    // `sh` caps the address space, then becomes memwall ($0 and its args).
    let capped = format!("ulimit -v {ADDRESS_SPACE_KIB} && exec \"$0\" \"$@\"");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(capped)
        .arg(env!("CARGO_BIN_EXE_memwall"))
        .args(&case.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("memwall runs");
    let input = case.stdin.clone();
    let mut pipe = child.stdin.take().expect("stdin");
    // Written from a thread: memwall may refuse before reading it all.
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    // Output is drained from a thread too, so a large answer cannot fill
    // the pipe and stall memwall while the watchdog waits.
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let Ok(out) = rx.recv_timeout(WATCHDOG) else {
        let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        return Some(format!("{}: no answer within {WATCHDOG:?}", case.name));
    };
    let _ = writer.join();
    let out = out.expect("output");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let code = out.status.code();
    if err.contains("panicked") || err.contains("backtrace") {
        return Some(format!("{}: panicked: {err}", case.name));
    }
    if code.is_none() || err.contains("memory allocation") {
        return Some(format!(
            "{}: killed by a signal (an allocation past {} MiB aborts): {err}",
            case.name,
            ADDRESS_SPACE_KIB / 1024
        ));
    }
    match case.expect {
        Expect::Refused(field) => {
            if code != Some(2) {
                return Some(format!("{}: exit {code:?}, want 2; {err}", case.name));
            }
            if err.trim_end().lines().count() != 1 {
                return Some(format!("{}: not one line: {err:?}", case.name));
            }
            if !err.contains(field) {
                return Some(format!("{}: {err:?} does not name {field:?}", case.name));
            }
            if !out.stdout.is_empty() {
                return Some(format!("{}: refused but printed a result", case.name));
            }
        }
        Expect::Answered => {
            if !matches!(code, Some(0 | 1)) {
                return Some(format!("{}: exit {code:?}, want 0 or 1; {err}", case.name));
            }
            if serde_json::from_slice::<Value>(&out.stdout).is_err() {
                return Some(format!("{}: the answer is not JSON", case.name));
            }
        }
    }
    None
}

/// `base` with the value at each JSON pointer replaced (the parent must
/// exist; a missing last key is added).
fn patched(base: &Value, edits: &[(&str, Value)]) -> Vec<u8> {
    let mut doc = base.clone();
    for (pointer, value) in edits {
        let (parent, key) = pointer.rsplit_once('/').expect("pointer");
        let slot = doc.pointer_mut(parent).expect(pointer);
        if let Some(items) = slot.as_array_mut() {
            let i: usize = key.parse().expect("index");
            items[i] = value.clone();
        } else {
            let map = slot.as_object_mut().expect("a container");
            map.insert(key.to_string(), value.clone());
        }
    }
    serde_json::to_vec(&doc).expect("JSON")
}

fn case(name: &'static str, args: &[&str], stdin: Vec<u8>, expect: Expect) -> Case {
    Case {
        name,
        args: args.iter().map(|a| a.to_string()).collect(),
        stdin,
        expect,
    }
}

use Expect::{Answered, Refused};

/// Disaggregated plans given to `eval`: empty pools, more GPUs than the
/// plan has, a link that does not reach, a misspelt key.
fn disagg_cases(plan: &Value) -> Vec<Case> {
    let at = "/levers/disaggregation";
    let eval = |name, pointer: &str, value: Value, field| {
        let pointer = format!("{at}{pointer}");
        case(
            name,
            &["eval", "-"],
            patched(plan, &[(pointer.as_str(), value)]),
            Refused(field),
        )
    };
    vec![
        eval(
            "disagg: a prefill pool of TP 0",
            "/prefill/tp",
            json!(0),
            "disaggregation.prefill.tp",
        ),
        eval(
            "disagg: a decode pool of no replicas",
            "/decode/replicas",
            json!(0),
            "disaggregation.decode.replicas",
        ),
        eval(
            "disagg: pools beyond the plan's GPUs",
            "/decode/replicas",
            json!(4_000_000_000u32),
            "levers.disaggregation",
        ),
        eval(
            "disagg: a third prefill replica past the node",
            "/prefill/replicas",
            json!(3),
            "levers.disaggregation",
        ),
        eval(
            "disagg: a host link between pools",
            "/link",
            json!("pcie5-x16"),
            "disaggregation.link",
        ),
        eval(
            "disagg: another GPU's NVLink",
            "/link",
            json!("nvlink5"),
            "disaggregation.link",
        ),
        eval(
            "disagg: a misspelt pool key",
            "/decode/replica",
            json!(2),
            "replica",
        ),
    ]
}

/// Plans given to `eval`: damaged structure, unknown keys, numbers out of
/// their domain, impossible splits, absurd sizes.
fn plan_cases(plan: &Value) -> Vec<Case> {
    let eval = |name, edits: &[(&str, Value)], expect| {
        case(name, &["eval", "-"], patched(plan, edits), expect)
    };
    let raw = |name, text: &str, expect| case(name, &["eval", "-"], text.into(), expect);
    vec![
        raw("empty input", "", Refused("EOF")),
        raw("not JSON", "hello", Refused("expected")),
        raw(
            "truncated JSON",
            "{\"version\": 1, \"name\":",
            Refused("EOF"),
        ),
        raw("JSON array", "[1,2,3]", Refused("invalid type")),
        raw("NaN literal", "{\"version\": NaN}", Refused("expected")),
        raw(
            "deep nesting",
            &"[".repeat(100_000),
            Refused("invalid type"),
        ),
        eval(
            "typo in a top-level key",
            &[("/levrs", json!({}))],
            Refused("did you mean `levers`"),
        ),
        eval(
            "typo in a nested key",
            &[("/levers/parallel/tpp", json!(2))],
            Refused("did you mean `tp`"),
        ),
        eval(
            "a named stack that cannot run the levers (DeepSpeed over HF models has no pipeline)",
            &[
                ("/levers/training_stack", json!("deepspeed")),
                ("/levers/parallel/pp", json!(2)),
                ("/levers/parallel/dp", json!(4)),
            ],
            Refused("levers.parallel.pp: DeepSpeed ZeRO cannot run pipeline parallelism"),
        ),
        eval(
            "levers no stack runs (ZeRO-3 with pipeline stages)",
            &[
                ("/levers/sharding", json!("zero3")),
                ("/levers/parallel/pp", json!(2)),
                ("/levers/parallel/dp", json!(4)),
            ],
            Refused("no stack in the catalog runs these levers together"),
        ),
        eval(
            "unknown key in hardware",
            &[("/hardware/gpu_count", json!(8))],
            Refused("gpu_count"),
        ),
        eval(
            "unknown key in overheads",
            &[("/overheads/cuda_ctx", json!(1))],
            Refused("did you mean `cuda_context`"),
        ),
        eval(
            "unknown key in efficiency",
            &[("/efficiency/gemmm", json!(0.5))],
            Refused("did you mean `gemm`"),
        ),
        eval(
            "unknown key in workload",
            &[("/workload/training/seq_length", json!(4096))],
            Refused("seq_length"),
        ),
        eval(
            "version from the future",
            &[("/version", json!(999))],
            Refused("newer memwall"),
        ),
        eval(
            "negative version",
            &[("/version", json!(-1))],
            Refused("version"),
        ),
        eval(
            "unknown model preset",
            &[("/model/preset", json!("gpt-7"))],
            Refused("model"),
        ),
        eval(
            "unknown GPU preset",
            &[("/hardware/gpu/preset", json!("h900"))],
            Refused("hardware.gpu"),
        ),
        eval(
            "preset name with a newline",
            &[("/hardware/gpu/preset", json!("h1\n00"))],
            Refused("hardware.gpu"),
        ),
        eval(
            "zero GPUs",
            &[("/hardware/gpus", json!(0))],
            Refused("gpus"),
        ),
        eval(
            "negative GPUs",
            &[("/hardware/gpus", json!(-8))],
            Refused("hardware.gpus"),
        ),
        eval(
            "fractional GPUs",
            &[("/hardware/gpus", json!(7.5))],
            Refused("hardware.gpus"),
        ),
        eval(
            "GPU count past u32",
            &[("/hardware/gpus", json!(1u64 << 40))],
            Refused("hardware.gpus"),
        ),
        eval(
            "zero per node",
            &[("/hardware/gpus_per_node", json!(0))],
            Refused("gpus_per_node"),
        ),
        eval(
            "TP that does not divide heads",
            &[
                ("/levers/parallel/tp", json!(3)),
                ("/levers/parallel/dp", json!(1)),
                ("/hardware/gpus", json!(3)),
            ],
            Refused("TP=3"),
        ),
        eval(
            "TP×PP×DP not the GPU count",
            &[("/levers/parallel/dp", json!(7))],
            Refused("DP 7"),
        ),
        eval(
            "zero micro-batch",
            &[("/levers/parallel/micro_batch", json!(0))],
            Refused("micro_batch"),
        ),
        eval(
            "PP beyond layers",
            &[
                ("/levers/parallel/pp", json!(64)),
                ("/levers/parallel/dp", json!(1)),
                ("/hardware/gpus", json!(64)),
            ],
            Refused("PP=64"),
        ),
        eval(
            "zero sequence length",
            &[("/workload/training/seq_len", json!(0))],
            Refused("seq_len"),
        ),
        eval(
            "sequence past 10^8",
            &[("/workload/training/seq_len", json!(4_000_000_000u64))],
            Refused("seq_len"),
        ),
        eval(
            "zero global batch",
            &[("/workload/training/global_batch", json!(0))],
            Refused("global_batch"),
        ),
        eval(
            "negative tokens",
            &[("/workload/training/tokens", json!(-1.0))],
            Refused("tokens"),
        ),
        eval(
            "infinite-looking tokens",
            &[("/workload/training/tokens", json!(1e300))],
            Refused("tokens"),
        ),
        eval(
            "memory as 1e400 GB",
            &[("/hardware/host_dram_per_node", json!("1e400 GB"))],
            Refused("host_dram_per_node"),
        ),
        eval(
            "memory in parsecs",
            &[("/hardware/host_dram_per_node", json!("80 parsecs"))],
            Refused("host_dram_per_node"),
        ),
        eval(
            "negative memory",
            &[("/hardware/host_dram_per_node", json!(-1.0))],
            Refused("host_dram_per_node"),
        ),
        eval(
            "a CUDA context past an exabyte",
            &[("/overheads/cuda_context", json!(1e308))],
            Refused("cuda_context"),
        ),
        eval(
            "the rest of the server at 1e308 times its GPUs' power",
            &[("/economics/energy/node_overhead", json!(1e308))],
            Refused("node_overhead"),
        ),
        eval(
            "a GPU-hour at 1e300 dollars",
            &[("/economics/pricing/rental/usd_per_gpu_hour", json!(1e300))],
            Refused("usd_per_gpu_hour"),
        ),
        eval(
            "host memory at a subnormal 5e-324 B/s",
            &[("/hardware/host_memory_bandwidth", json!(5e-324))],
            Refused("host_memory_bandwidth"),
        ),
        eval(
            "negative CUDA context",
            &[("/overheads/cuda_context", json!(-5.0))],
            Refused("cuda_context"),
        ),
        eval(
            "negative library workspace",
            &[("/overheads/workspace", json!(-5.0))],
            Refused("workspace"),
        ),
        eval(
            "negative cuBLAS workspace per handle",
            &[("/overheads/cublas_workspace", json!(-5.0))],
            Refused("cublas_workspace"),
        ),
        eval(
            "micro-batch group without interleaving",
            &[("/levers/parallel/microbatch_group", json!(4_000_000_000u32))],
            Refused("microbatch_group"),
        ),
        eval(
            "fragmentation above 1",
            &[("/overheads/fragmentation", json!(3.0))],
            Refused("fragmentation"),
        ),
        eval(
            "efficiency 0",
            &[("/efficiency/gemm", json!(0.0))],
            Refused("gemm"),
        ),
        eval(
            "efficiency subnormal",
            &[("/efficiency/hbm", json!(5e-324))],
            Refused("hbm"),
        ),
        eval(
            "efficiency above 1",
            &[("/efficiency/attention", json!(1.5))],
            Refused("attention"),
        ),
        eval(
            "layer overhead 1e307 s",
            &[("/efficiency/layer_overhead", json!(1e307))],
            Refused("layer_overhead"),
        ),
        eval(
            "negative MoE host time",
            &[("/efficiency/moe_expert_host", json!(-1e-4))],
            Refused("moe_expert_host"),
        ),
        eval(
            "collective latency 1e308 s",
            &[("/efficiency/scale_up_latency", json!(1e308))],
            Refused("scale_up_latency"),
        ),
        eval(
            "PUE 1.7e308",
            &[("/economics/energy/pue", json!(1.7e308))],
            Refused("pue"),
        ),
        eval(
            "PUE below 1",
            &[("/economics/energy/pue", json!(0.5))],
            Refused("pue"),
        ),
        eval(
            "negative price",
            &[("/economics/pricing/rental/usd_per_gpu_hour", json!(-2.0))],
            Refused("usd_per_gpu_hour"),
        ),
        eval(
            "custom GPU with a 4-bit matmul ceiling over 1",
            &[(
                "/hardware/gpu",
                json!({"custom": {"name": "b200ish", "spec": gpu_with_ceiling(json!({"bf16": 0.8, "fp8": 0.75, "fp4": 5.0}))}}),
            )],
            Refused("matmul_ceiling.fp4"),
        ),
        eval(
            "custom GPU with a negative 4-bit matmul ceiling",
            &[(
                "/hardware/gpu",
                json!({"custom": {"name": "b200ish", "spec": gpu_with_ceiling(json!({"bf16": 0.8, "fp4": -0.2}))}}),
            )],
            Refused("matmul_ceiling.fp4"),
        ),
        eval(
            "custom GPU with no compute or bandwidth",
            &[(
                "/hardware/gpu",
                json!({"custom": {"name": "zero", "spec": zero_gpu()}}),
            )],
            Refused("hardware.gpu"),
        ),
        eval(
            "custom model with 2^32-1 layers",
            &[(
                "/model",
                json!({"custom": {"name": "huge", "spec": huge_model(4_294_967_295, 4096)}}),
            )],
            Refused("layers"),
        ),
        eval(
            "custom model with every width at u32::MAX",
            &[(
                "/model",
                json!({"custom": {"name": "huge", "spec": huge_model(32, 4_294_967_295)}}),
            )],
            Refused("hidden"),
        ),
        eval(
            "custom model windowing more layers than it has",
            &[(
                "/model",
                json!({"custom": {"name": "over", "spec": windowed_model(Some(4096), 33)}}),
            )],
            Refused("windowed_layers"),
        ),
        eval(
            "custom model windowing layers without a window",
            &[(
                "/model",
                json!({"custom": {"name": "nowindow", "spec": windowed_model(None, 16)}}),
            )],
            Refused("windowed_layers"),
        ),
        eval(
            "custom model with 100,000 layers evaluates",
            &[
                (
                    "/model",
                    json!({"custom": {"name": "deep", "spec": huge_model(100_000, 4096)}}),
                ),
                ("/workload/training/tokens", json!(0.0)),
            ],
            Answered,
        ),
        eval(
            "routed experts in a format that does not exist",
            &[("/levers/precision/experts", json!("fp3"))],
            Refused("levers.precision.experts"),
        ),
        eval(
            "routed experts in INT4 groups of zero",
            &[
                ("/model", json!({"preset": "gpt-oss-20b"})),
                (
                    "/levers/precision/experts",
                    json!({"int4": {"group_size": 0}}),
                ),
            ],
            Refused("levers.precision.experts.int4.group_size"),
        ),
        eval(
            "routed experts' format on a dense model is named as ignored",
            &[("/levers/precision/experts", json!("mxfp4"))],
            Answered,
        ),
        eval(
            "a sampler vLLM does not have",
            &[("/levers/engine_knobs", json!({"sampler": "fastest"}))],
            Refused("levers.engine_knobs.sampler"),
        ),
        eval(
            "name with terminal escapes",
            &[("/name", json!("\u{1b}[2Jevil\u{7}"))],
            Answered,
        ),
        eval(
            "one-million-character name",
            &[("/name", json!("x".repeat(1_000_000)))],
            Answered,
        ),
    ]
}

fn zero_gpu() -> Value {
    // The H100's own datasheet with every rate set to zero.
    let spec = planner_core::hardware::GpuChoice::Preset(
        serde_json::from_value(json!("h100-sxm")).expect("preset"),
    )
    .spec();
    let mut v = serde_json::to_value(spec).expect("spec");
    for key in ["memory_bandwidth", "bf16", "fp16"] {
        v[key] = json!(0.0);
    }
    v
}

/// The B200's own datasheet with a matmul ceiling of the test's.
fn gpu_with_ceiling(ceiling: Value) -> Value {
    let spec = planner_core::hardware::GpuChoice::Preset(
        serde_json::from_value(json!("b200")).expect("preset"),
    )
    .spec();
    let mut v = serde_json::to_value(spec).expect("spec");
    v["matmul_ceiling"] = ceiling;
    v
}

/// A 32-layer Llama with `layers` of them windowed by `window`.
fn windowed_model(window: Option<u32>, layers: u32) -> Value {
    let mut spec = serde_json::to_value(planner_core::model::ModelSpec::llama(
        32, 4096, 32, 32, 11008, 32000, 4096,
    ))
    .expect("spec");
    spec["sliding_window"] = json!(window);
    spec["windowed_layers"] = json!(layers);
    spec
}

fn huge_model(layers: u64, width: u64) -> Value {
    let mut spec = serde_json::to_value(planner_core::model::ModelSpec::llama(
        32, 4096, 32, 32, 11008, 32000, 4096,
    ))
    .expect("spec");
    spec["layers"] = json!(layers);
    if width != 4096 {
        for key in ["hidden", "ffn", "heads", "kv_heads", "head_dim", "vocab"] {
            spec[key] = json!(width);
        }
    }
    spec
}

/// Scenarios given to `search`.
/// Serving scenarios given to `search-serving`: a broken price or power
/// figure in the base plan is refused before any candidate is scored (the
/// serving fuzz target found answers `eval` rejected), and so are an empty
/// space list and a budget of nothing.
fn serving_search_cases(scenario: &Value) -> Vec<Case> {
    let search = |name, edits: &[(&str, Value)], expect| {
        case(
            name,
            &["search-serving", "-"],
            patched(scenario, edits),
            expect,
        )
    };
    vec![
        search(
            "serving search, power fraction of 2^32",
            &[(
                "/base/economics/energy/average_power_fraction",
                json!(4_294_967_295u64),
            )],
            Refused("economics.energy.average_power_fraction"),
        ),
        search(
            "serving search, no TP degrees",
            &[("/space/tp", json!([]))],
            Refused("space list"),
        ),
        search(
            "serving search, zero budget",
            &[("/max_gpus", json!(0))],
            Refused("max_gpus"),
        ),
        search(
            "serving search, a format without its group size",
            &[("/base/levers/precision/weights", json!("int4"))],
            Refused("base.levers.precision.weights"),
        ),
        search(
            "serving search, base plan from the future",
            &[("/base/version", json!(99))],
            Refused("base.version"),
        ),
        search(
            "serving search, misspelt key",
            &[("/max_gpu", json!(8))],
            Refused("did you mean `max_gpus`"),
        ),
    ]
}

fn scenario_cases(scenario: &Value) -> Vec<Case> {
    let search = |name, edits: &[(&str, Value)], expect| {
        case(name, &["search", "-"], patched(scenario, edits), expect)
    };
    vec![
        search(
            "scenario typo",
            &[("/max_gpu", json!(8))],
            Refused("did you mean `max_gpus`"),
        ),
        search(
            "scenario from the future",
            &[("/version", json!(7))],
            Refused("newer memwall"),
        ),
        search(
            "zero budget",
            &[("/max_gpus", json!(0))],
            Refused("max_gpus"),
        ),
        search(
            "negative budget",
            &[("/max_gpus", json!(-4))],
            Refused("max_gpus"),
        ),
        search(
            "budget of 10^8 GPUs",
            &[
                ("/max_gpus", json!(100_000_000)),
                ("/gpu_counts", json!("node_multiples")),
            ],
            Refused("max_gpus"),
        ),
        search(
            "negative step-time limit",
            &[("/constraints/max_step_time", json!(-1.0))],
            Refused("max_step_time"),
        ),
        search(
            "unknown family",
            &[("/constraints/families", json!(["magic"]))],
            Refused("families"),
        ),
        search(
            "unknown GPU kind",
            &[("/constraints/gpu_kinds", json!(["h900"]))],
            Refused("gpu_kinds"),
        ),
        search(
            "a hundred CXL options",
            &[(
                "/space/cxl",
                Value::Array(vec![scenario["space"]["cxl"][0].clone(); 100]),
            )],
            Refused("space.cxl"),
        ),
        search(
            "unknown key in space",
            &[("/space/max_microbatch", json!(4))],
            Refused("did you mean `max_micro_batch`"),
        ),
        search(
            "unknown training framework",
            &[("/space/training_stacks", json!(["megatron"]))],
            Refused("training_stacks"),
        ),
        search(
            "every framework, a thousand times over",
            &[(
                "/space/training_stacks",
                Value::Array(vec![json!("torchtitan"); 1000]),
            )],
            Answered,
        ),
        search(
            "a base plan with no sequence",
            &[("/base/workload/training/seq_len", json!(0))],
            Refused("seq_len"),
        ),
        search(
            "a 10^9-layer base model",
            &[(
                "/base/model",
                json!({"custom": {"name": "huge", "spec": huge_model(1_000_000_000, 4096)}}),
            )],
            Refused("layers"),
        ),
        search(
            "base economics out of domain",
            &[("/base/economics/energy/pue", json!(9.0))],
            Refused("pue"),
        ),
    ]
}

/// Pools given to `tenants`.
fn tenant_cases(pool: &Value) -> Vec<Case> {
    let tenants = |name, edits: &[(&str, Value)], expect| {
        case(name, &["tenants", "-"], patched(pool, edits), expect)
    };
    vec![
        tenants("no jobs", &[("/jobs", json!([]))], Refused("jobs")),
        tenants(
            "pool of zero GPUs",
            &[("/pool/gpus", json!(0))],
            Refused("pool.gpus"),
        ),
        tenants(
            "zero per node",
            &[("/pool/gpus_per_node", json!(0))],
            Refused("gpus_per_node"),
        ),
        tenants(
            "pool over the cap",
            &[("/pool/gpus", json!(1_000_000))],
            Refused("pool.gpus"),
        ),
        tenants(
            "negative SLO",
            &[("/jobs/0/slo/max_ttft", json!(-1.0))],
            Refused("max_ttft"),
        ),
        tenants(
            "zero minimum batch",
            &[("/jobs/0/min_batch", json!(0))],
            Refused("min_batch"),
        ),
        tenants(
            "unknown share mode",
            &[("/pool/mode", json!("timeshare"))],
            Refused("mode"),
        ),
        tenants(
            "typo in a job",
            &[("/jobs/0/slos", json!({}))],
            Refused("did you mean `slo`"),
        ),
    ]
}

/// Request streams given to `eval` (the serving example): rates, client
/// counts, lengths and objectives out of their domain, each refused with
/// the field named.
fn stream_cases(plan: &Value) -> Vec<Case> {
    let at = "/workload/inference/stream";
    let store = |name, value: Value, field| {
        case(
            name,
            &["eval", "-"],
            patched(plan, &[("/levers/kv_tier", value)]),
            Refused(field),
        )
    };
    let eval = |name, pointer: &str, value: Value, field| {
        let pointer = format!("{at}{pointer}");
        case(
            name,
            &["eval", "-"],
            patched(plan, &[(pointer.as_str(), value)]),
            Refused(field),
        )
    };
    vec![
        eval(
            "stream: a prompt length weighed 1e308",
            "/prompt",
            json!({"empirical": {"points": [[10, 1e308], [20, 1.0]]}}),
            "prompt.empirical.points",
        ),
        eval(
            "stream: zero arrival rate",
            "/arrival",
            json!({"poisson": {"rate": 0.0}}),
            "arrival.poisson.rate",
        ),
        eval(
            "stream: negative arrival rate",
            "/arrival",
            json!({"poisson": {"rate": -3.0}}),
            "arrival.poisson.rate",
        ),
        eval(
            "stream: absurd arrival rate",
            "/arrival",
            json!({"poisson": {"rate": 1e300}}),
            "arrival.poisson.rate",
        ),
        eval(
            "stream: more requests than the simulator takes",
            "/requests",
            json!(1_000_000),
            "stream.requests",
        ),
        eval(
            "stream: zero clients",
            "/arrival",
            json!({"concurrency": {"clients": 0}}),
            "arrival.concurrency.clients",
        ),
        eval(
            "stream: zero-token prompts",
            "/prompt",
            json!({"fixed": {"tokens": 0}}),
            "stream.prompt.fixed.tokens",
        ),
        eval(
            "stream: absurd outputs",
            "/output",
            json!({"fixed": {"tokens": 4_000_000_000u64}}),
            "stream.output.fixed.tokens",
        ),
        eval(
            "stream: inverted uniform",
            "/prompt",
            json!({"uniform": {"min": 900, "max": 10}}),
            "stream.prompt.uniform.min",
        ),
        eval(
            "stream: no length points",
            "/output",
            json!({"empirical": {"points": []}}),
            "stream.output.empirical.points",
        ),
        eval(
            "stream: negative weight",
            "/output",
            json!({"empirical": {"points": [[10, -1.0]]}}),
            "stream.output.empirical.points",
        ),
        eval(
            "stream: zero TTFT objective",
            "/slo/ttft_p99",
            json!(0.0),
            "slo.ttft_p99",
        ),
        eval(
            "stream: negative TPOT objective",
            "/slo/tpot_p50",
            json!(-0.1),
            "slo.tpot_p50",
        ),
        eval(
            "stream: zero requests",
            "/requests",
            json!(0),
            "stream.requests",
        ),
        eval(
            "stream: no reused contexts",
            "/reuse",
            json!({"contexts": 0, "tokens": 1000}),
            "stream.reuse.contexts",
        ),
        eval(
            "stream: absurd reused contexts",
            "/reuse",
            json!({"contexts": 4_000_000_000u64, "tokens": 1000}),
            "stream.reuse.contexts",
        ),
        eval(
            "stream: zero-token context",
            "/reuse",
            json!({"contexts": 10, "tokens": 0}),
            "stream.reuse.tokens",
        ),
        case(
            "expert offload fraction above 1",
            &["eval", "-"],
            patched(
                plan,
                &[(
                    "/levers/offload/experts",
                    json!({"tier": "host_dram", "fraction": 1.5}),
                )],
            ),
            Refused("levers.offload.experts.fraction"),
        ),
        case(
            "expert offload with a typo",
            &["eval", "-"],
            patched(
                plan,
                &[(
                    "/levers/offload/experts",
                    json!({"tier": "host_dram", "frac": 1}),
                )],
            ),
            Refused("frac"),
        ),
        case(
            "multi-step scheduling of a million steps",
            &["eval", "-"],
            patched(
                plan,
                &[
                    ("/levers/engine", json!("vllm_v0")),
                    (
                        "/levers/engine_knobs",
                        json!({"scheduler_steps": 1_000_000}),
                    ),
                ],
            ),
            Refused("levers.engine_knobs.scheduler_steps"),
        ),
        case(
            "engine memory fraction above 1",
            &["eval", "-"],
            patched(
                plan,
                &[("/levers/engine_knobs", json!({"memory_fraction": 1.5}))],
            ),
            Refused("levers.engine_knobs.memory_fraction"),
        ),
        case(
            "a negative front-end latency",
            &["eval", "-"],
            patched(
                plan,
                &[("/levers/engine_knobs", json!({"front_end_ms": -5.0}))],
            ),
            Refused("levers.engine_knobs.front_end_ms"),
        ),
        case(
            "a negative front-end latency on a static batch",
            &["eval", "-"],
            patched(
                plan,
                &[
                    ("/levers/engine", json!("static")),
                    ("/levers/engine_knobs", json!({"front_end_ms": -1.0})),
                ],
            ),
            Refused("levers.engine_knobs.front_end_ms"),
        ),
        case(
            "a front-end latency of eleven days",
            &["eval", "-"],
            patched(
                plan,
                &[("/levers/engine_knobs", json!({"front_end_ms": 1e9}))],
            ),
            Refused("levers.engine_knobs.front_end_ms"),
        ),
        case(
            "batching that is not a way",
            &["eval", "-"],
            patched(
                plan,
                &[("/levers/engine_knobs", json!({"batching": "interleaved"}))],
            ),
            Refused("batching"),
        ),
        case(
            "host overlap that is not a mode",
            &["eval", "-"],
            patched(
                plan,
                &[("/levers/engine_knobs", json!({"host_overlap": "sometimes"}))],
            ),
            Refused("host_overlap"),
        ),
        case(
            "attention-DP balance that is not a setting",
            &["eval", "-"],
            patched(
                plan,
                &[(
                    "/levers/engine_knobs",
                    json!({"attention_dp_balance": "always"}),
                )],
            ),
            Refused("attention_dp_balance"),
        ),
        store("KV store in HBM", json!({"tier": "hbm"}), "kv_tier.tier"),
        store(
            "KV store on CXL the hardware lacks",
            json!({"tier": "cxl"}),
            "kv_tier.tier",
        ),
        store(
            "KV store larger than host DRAM",
            json!({"tier": "host_dram", "capacity": 1e15}),
            "kv_tier.capacity",
        ),
        store(
            "KV store of negative size",
            json!({"tier": "host_dram", "capacity": -1.0}),
            "kv_tier.capacity",
        ),
        store(
            "KV store with zero-token chunks",
            json!({"tier": "host_dram", "chunk_tokens": 0}),
            "kv_tier.chunk_tokens",
        ),
        store(
            "KV store with a typo",
            json!({"tier": "host_dram", "chunk": 256}),
            "chunk",
        ),
    ]
}

/// Options and other commands.
fn other_cases(plan: &[u8]) -> Vec<Case> {
    let with_plan = |name, args: &[&str], expect| case(name, args, plan.to_vec(), expect);
    vec![
        with_plan("checkpoint: negative storage bandwidth", &["checkpoint", "-", "--storage-gbps", "-5"], Refused("storage-gbps")),
        with_plan("checkpoint: zero failure rate", &["checkpoint", "-", "--failure-rate", "0"], Refused("failure-rate")),
        with_plan("checkpoint: a failure rate of 1e-300 (a mean interval past f64)", &["checkpoint", "-", "--failure-rate", "1e-300"], Refused("failure_rate")),
        with_plan("checkpoint: NaN restart", &["checkpoint", "-", "--restart-minutes", "NaN"], Refused("restart-minutes")),
        with_plan("checkpoint: infinite storage", &["checkpoint", "-", "--storage-gbps", "inf"], Refused("storage-gbps")),
        with_plan("eval: unknown format", &["eval", "-", "--format", "xml"], Refused("format")),
        with_plan("checklist: unknown language", &["checklist", "-", "--lang", "fr"], Refused("lang")),
        case("import-hf: not a config", &["import-hf", "-"], b"{\"model_type\": 5}".to_vec(), Refused("model_type")),
        case("import-hf: MoE of an unknown type", &["import-hf", "-"], br#"{"model_type":"newmoe","hidden_size":4096,"num_hidden_layers":32,"num_attention_heads":32,"intermediate_size":11008,"vocab_size":32000,"num_experts":64}"#.to_vec(), Refused("newmoe")),
        case("import-hf: layer_types shorter than the layers", &["import-hf", "-"], br#"{"model_type":"gpt_oss","hidden_size":2880,"num_hidden_layers":36,"num_attention_heads":64,"num_key_value_heads":8,"head_dim":64,"intermediate_size":2880,"vocab_size":201088,"max_position_embeddings":131072,"num_local_experts":128,"num_experts_per_tok":4,"sliding_window":128,"layer_types":["sliding_attention"]}"#.to_vec(), Refused("layer_types")),
        case("import-hf: 3 heads for hidden 4096 beside 8 KV heads", &["import-hf", "-"], br#"{"model_type":"llama","hidden_size":4096,"num_hidden_layers":32,"num_attention_heads":3,"num_key_value_heads":8,"intermediate_size":11008,"vocab_size":32000,"max_position_embeddings":4096}"#.to_vec(), Refused("num_attention_heads")),
        case("import-hf: a model type with a newline (read as Llama-style, its note escaped)", &["import-hf", "-"], b"{\"model_type\":\"llama\\nexec\",\"hidden_size\":4096,\"num_hidden_layers\":32,\"num_attention_heads\":32,\"intermediate_size\":11008,\"vocab_size\":32000,\"max_position_embeddings\":4096}".to_vec(), Answered),
        case("import-hf: a key with a newline and an unreadable value", &["import-hf", "-"], b"{\"model_type\":\"llama\",\"hidden_size\":4096,\"num_hidden_layers\":32,\"num_attention_heads\":32,\"intermediate_size\":11008,\"vocab_size\":32000,\"max_position_embeddings\":4096,\"num_key_value_heads\\n\":\"x\",\"head_dim\":[1]}".to_vec(), Refused("head_dim")),
        case("import-hf: negative layers", &["import-hf", "-"], br#"{"model_type":"llama","hidden_size":4096,"num_hidden_layers":-32,"num_attention_heads":32,"intermediate_size":11008,"vocab_size":32000}"#.to_vec(), Refused("num_hidden_layers")),
        case("calibrate: no measurements", &["calibrate", "-"], b"{\"measurements\": []}".to_vec(), Refused("measurements")),
        case("calibrate: not a report", &["calibrate", "-"], b"[]".to_vec(), Refused("invalid report")),
        case("unknown command", &["frobnicate"], Vec::new(), Refused("frobnicate")),
        case("missing file", &["eval", "/nonexistent/plan.json"], Vec::new(), Refused("/nonexistent/plan.json")),
        case("a directory as the plan", &["eval", "/"], Vec::new(), Refused("/")),
    ]
}

#[test]
fn every_hostile_input_is_bounded_and_named() {
    let plan = output(&["example"]);
    let scenario = output(&["example-scenario"]);
    let pool = output(&["example-tenants"]);
    let serving = output(&["example-serving"]);
    let plan_bytes = serde_json::to_vec(&plan).expect("JSON");
    let mut cases = plan_cases(&plan);
    cases.extend(scenario_cases(&scenario));
    cases.extend(serving_search_cases(&output(&["example-serving-scenario"])));
    cases.extend(tenant_cases(&pool));
    cases.extend(stream_cases(&serving));
    cases.extend(disagg_cases(&output(&["example-disagg"])));
    cases.extend(other_cases(&plan_bytes));
    assert!(
        cases.len() >= 60,
        "the catalogue holds {} cases",
        cases.len()
    );
    let mut ran: Vec<(Duration, &str, Option<String>)> = cases
        .iter()
        .map(|c| {
            let (took, wrong) = run(c);
            (took, c.name, wrong)
        })
        .collect();
    ran.sort_by_key(|r| std::cmp::Reverse(r.0));
    println!(
        "{} hostile cases; the slowest (each under a {ADDRESS_SPACE_KIB} KiB address space):",
        ran.len()
    );
    for (took, name, _) in ran.iter().take(5) {
        println!("  {:>7.3} s  {name}", took.as_secs_f64());
    }
    let failures: Vec<String> = ran.into_iter().filter_map(|r| r.2).collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
