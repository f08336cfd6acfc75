//! Stable-toolchain smoke runs of every fuzz target: inputs made from the
//! shipped examples with hostile values written into random places (and
//! random bytes), from a fixed seed, so every `cargo test` repeats the same
//! cases. The real campaign is `scripts/fuzz.sh` (cargo-fuzz, nightly).

use memwall_fuzz_bodies as body;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{json, Value};

fn runner(cases: u32) -> TestRunner {
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha))
}

/// Values a hostile user writes.
fn hostile() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!(0)),
        Just(json!(-1)),
        Just(json!(1e308)),
        Just(json!(5e-324)),
        Just(json!(4_294_967_295u64)),
        Just(json!(18_446_744_073_709_551_615u64)),
        Just(json!("1e400 GB")),
        Just(json!("80 GB")),
        Just(json!("\u{1b}[2J")),
        Just(json!(null)),
        Just(json!(true)),
        Just(json!([])),
        Just(json!({})),
        (0u32..5000).prop_map(|n| json!(n)),
        (0.0f64..2.0).prop_map(|x| json!(x)),
        "[a-z_]{1,12}".prop_map(|s| json!(s)),
    ]
}

fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => m
            .iter()
            .for_each(|(k, x)| pointers(x, format!("{at}/{k}"), out)),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, x)| pointers(x, format!("{at}/{i}"), out)),
        _ => {}
    }
    out.push(at);
}

/// `doc` with up to three hostile edits, as JSON bytes; now and then a
/// byte is flipped so the parser sees broken text too.
fn mutations(doc: Value) -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec((any::<usize>(), hostile()), 0..4),
        prop::option::weighted(0.1, (any::<usize>(), any::<u8>())),
    )
        .prop_map(move |(edits, flip)| {
            let mut d = doc.clone();
            for (pick, value) in edits {
                let mut all = Vec::new();
                pointers(&d, String::new(), &mut all);
                let at = all[pick % all.len()].clone();
                if let Some(slot) = d.pointer_mut(&at) {
                    *slot = value;
                }
            }
            let mut bytes = serde_json::to_vec(&d).unwrap_or_default();
            if let Some((i, b)) = flip {
                if !bytes.is_empty() {
                    let n = bytes.len();
                    bytes[i % n] = b;
                }
            }
            bytes
        })
}

fn example(v: impl serde::Serialize) -> Value {
    serde_json::to_value(v).unwrap_or_default()
}

fn run(cases: u32, doc: Value, target: fn(&[u8])) {
    runner(cases)
        .run(&mutations(doc), |bytes| {
            target(&bytes);
            Ok(())
        })
        .expect("every case keeps the invariants");
}

/// The starting document of a target: the same example `seeds` writes
/// into the fuzzing corpus.
fn seed(target: &str, name: &str) -> Value {
    let (_, _, bytes) = body::seeds()
        .into_iter()
        .find(|(t, n, _)| *t == target && *n == name)
        .expect("a seed of that name");
    serde_json::from_slice(&bytes).expect("seeds are JSON")
}

#[test]
fn plan_json() {
    run(10_000, seed("plan_json", "example.json"), body::plan_json);
}

#[test]
fn link() {
    // The link seed is an encoded payload; hostile edits go into the
    // workspace's JSON before it is encoded.
    let mut ws = planner_core::workspace::Workspace::new(planner_core::example_plan());
    ws.plans.push(planner_core::example_plan());
    runner(10_000)
        .run(&mutations(example(&ws)), |bytes| {
            body::link(planner_core::link::encode(&bytes).as_bytes());
            Ok(())
        })
        .expect("every case keeps the invariants");
}

/// Links holding the serving levers the page added last (a stream,
/// layer-by-layer disaggregation, an MoE model placed by heat).
#[test]
fn link_with_serving_levers() {
    runner(10_000)
        .run(&mutations(example(body::serving_workspace())), |bytes| {
            body::link(planner_core::link::encode(&bytes).as_bytes());
            Ok(())
        })
        .expect("every case keeps the invariants");
}

#[test]
fn scenario() {
    run(10_000, seed("scenario", "small.json"), body::scenario);
}

#[test]
fn serving_scenario() {
    run(
        10_000,
        seed("serving_scenario", "example.json"),
        body::serving_scenario,
    );
}

#[test]
fn tenants() {
    run(10_000, seed("tenants", "example.json"), body::tenants);
}

#[test]
fn hf() {
    run(10_000, seed("hf", "qwen3-moe.json"), body::hf);
}

#[test]
fn calibrate() {
    run(10_000, seed("calibrate", "two-runs.json"), body::calibrate);
}
