//! Throughput of the planner: full `evaluate`, the allocation-free fast
//! path, and the search. Run with
//! `cargo bench -p planner-core --bench throughput`; figures go to stdout.
//! No timing is asserted anywhere: this only measures.
//!
//! Arguments name the parts to run (`full`, `fast`, `serving`, `search`,
//! `wide`; all when none is named), e.g.
//! `cargo bench -p planner-core --bench throughput -- fast search`.
//! `MEMWALL_BENCH_ONCE=1` runs each rate over the plans once and each
//! search once, so an instruction count (`valgrind --tool=callgrind`) is
//! the same from run to run.

use planner_core::catalog::{GpuId, ModelId};
use planner_core::hardware::{GpuChoice, Hardware};
use planner_core::plan::{
    Checkpointing, Inference, Levers, LogitsScope, ModelChoice, Offload, OffloadTarget, Overheads,
    Parallelism, PipelineSchedule, Plan, SequenceParallel, Sharding, Tier, Training, TrainingKind,
    Workload,
};
use planner_core::quick::Prepared;
use planner_core::units::Bytes;
use planner_core::{evaluate, Verdict};
use std::hint::black_box;
use std::time::Instant;

/// A spread of plans: models from 1.5B to 671B, training and serving,
/// every checkpointing and sharding mode, offload on and off, PP 1 and > 1.
fn varied_plans() -> Vec<Plan> {
    let models = [
        ModelId::Gpt3_175b,
        ModelId::Llama2_7b,
        ModelId::Llama31_70b,
        ModelId::Mixtral8x7b,
        ModelId::DeepseekV3,
        ModelId::Gpt2Xl,
    ];
    let ckpts = [
        Checkpointing::None,
        Checkpointing::Selective,
        Checkpointing::Full,
    ];
    let shards = [Sharding::None, Sharding::Zero1, Sharding::Zero3];
    let degrees = [(1, 1, 8), (8, 1, 1), (8, 4, 4), (4, 8, 2)];
    let mut plans = Vec::new();
    for (mi, m) in models.into_iter().enumerate() {
        for (tp, pp, dp) in degrees {
            for c in ckpts {
                for s in shards {
                    for serve in [false, true] {
                        let i = plans.len();
                        let offload = if i % 3 == 0 {
                            Offload {
                                optimizer: Some(OffloadTarget {
                                    tier: Tier::HostDram,
                                    fraction: 1.0,
                                }),
                                ..Offload::default()
                            }
                        } else {
                            Offload::default()
                        };
                        let workload = if serve {
                            Workload::Inference(Inference {
                                prompt_tokens: 2000,
                                output_tokens: 500,
                                batch: 16 << (mi % 3),
                                logits: LogitsScope::LastToken,
                                stream: None,
                            })
                        } else {
                            Workload::Training(Training {
                                kind: TrainingKind::PreTraining,
                                seq_len: 2048 << (mi % 2),
                                global_batch: 64 * dp * pp,
                                tokens: 1e12,
                            })
                        };
                        plans.push(Plan {
                            version: 1,
                            name: String::new(),
                            model: ModelChoice::Preset(m),
                            workload,
                            levers: Levers {
                                checkpointing: c,
                                sharding: s,
                                offload,
                                parallel: Parallelism {
                                    tp,
                                    pp,
                                    dp,
                                    micro_batch: 1 + (i as u32 % 2),
                                    sequence_parallel: if i % 2 == 0 {
                                        SequenceParallel::On
                                    } else {
                                        SequenceParallel::Off
                                    },
                                    schedule: PipelineSchedule::OneFOneB,
                                    ..Parallelism::default()
                                },
                                ..Levers::default()
                            },
                            hardware: Hardware {
                                nvme_per_node: Bytes::from_tb(8.0),
                                ..Hardware::new(GpuChoice::Preset(GpuId::H100Sxm), tp * pp * dp)
                            },
                            overheads: Overheads::default(),
                            efficiency: Default::default(),
                            economics: Default::default(),
                            distillation: None,
                        });
                    }
                }
            }
        }
    }
    plans
}

/// CPU time of this thread (user + system), from `/proc/thread-self/stat`
/// in clock ticks of 1/100 s (Linux's USER_HZ); `None` where there is no
/// such file. On a shared machine this is the figure that does not count
/// the time other processes held the core.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    let after = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|v| v.parse::<f64>().ok());
    Some((ticks(11)? + ticks(12)?) / 100.0)
}

/// Wall and CPU seconds of `f`.
fn timed<T>(f: impl FnOnce() -> T) -> (T, f64, Option<f64>) {
    let cpu0 = cpu_seconds();
    let start = Instant::now();
    let v = f();
    let wall = start.elapsed().as_secs_f64();
    let cpu = match (cpu0, cpu_seconds()) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };
    (v, wall, cpu)
}

/// Runs `f` over `n` items repeatedly for at least `min_secs`; returns
/// calls per wall second, calls per CPU second, and the calls made.
fn rate(n: usize, min_secs: f64, mut f: impl FnMut(usize)) -> (f64, Option<f64>, u64) {
    let cpu0 = cpu_seconds();
    let start = Instant::now();
    let mut calls = 0u64;
    loop {
        for i in 0..n {
            f(i);
        }
        calls += n as u64;
        let t = start.elapsed().as_secs_f64();
        if t >= min_secs {
            let cpu = match (cpu0, cpu_seconds()) {
                (Some(a), Some(b)) if b > a => Some(calls as f64 / (b - a)),
                _ => None,
            };
            return (calls as f64 / t, cpu, calls);
        }
    }
}

fn per_cpu(v: Option<f64>) -> String {
    v.map_or_else(|| "n/a".to_string(), |v| format!("{v:.0}"))
}

/// Whether the command line asks for `part` (every part when it names none).
fn wanted(part: &str) -> bool {
    let named: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    named.is_empty() || named.iter().any(|a| a == part)
}

/// Whether to run each measurement once (for instruction counts).
fn once() -> bool {
    std::env::var_os("MEMWALL_BENCH_ONCE").is_some()
}

/// Seconds each rate runs for at least (none: one pass when counting).
fn min_secs() -> f64 {
    if once() {
        0.0
    } else {
        3.0
    }
}

fn main() {
    let plans = varied_plans();
    let fits = plans
        .iter()
        .filter(|p| evaluate(p).verdict == Verdict::Fits)
        .count();
    println!("plans: {} varied ({} fit)", plans.len(), fits);

    if wanted("full") {
        let (full, full_cpu, calls) = rate(plans.len(), min_secs(), |i| {
            black_box(evaluate(black_box(&plans[i])));
        });
        println!(
            "full evaluate:          {full:>12.0} plans/s wall, {} per CPU-second ({calls} calls)",
            per_cpu(full_cpu)
        );
    }

    if wanted("fast") {
        let prepared: Vec<Prepared> = plans.iter().map(Prepared::new).collect();
        let (fast, fast_cpu, calls) = rate(prepared.len(), min_secs(), |i| {
            black_box(black_box(&prepared[i]).quick());
        });
        println!(
            "fast path (one core):   {fast:>12.0} evaluations/s wall, {} per CPU-second ({calls} calls)",
            per_cpu(fast_cpu)
        );
    }

    if wanted("serving") {
        serving();
    }

    let scenario = planner_core::search::example_scenario();
    if wanted("search") {
        run_search(
            "GPT-3 175B within 1024 A100-80GB (the example scenario)",
            &scenario,
            if once() { 1 } else { 3 },
        );
    }

    // The same with every GPU kind that has a price (hardware alternatives,
    // CXL expanders, NVL72 domains): informational, no target.
    if wanted("wide") {
        let mut wide = scenario.clone();
        wide.constraints.gpu_kinds = None;
        run_search("the same, every priced GPU kind", &wide, 1);
    }
}

/// Runs a search `runs` times; reports the counts and every wall and CPU
/// time.
fn run_search(label: &str, scenario: &planner_core::search::Scenario, runs: usize) {
    let mut walls = Vec::new();
    let mut cpus = Vec::new();
    let mut last = None;
    for _ in 0..runs.max(1) {
        let (result, wall, cpu) = timed(|| planner_core::search::search(black_box(scenario)));
        walls.push(wall);
        cpus.extend(cpu);
        last = Some(result);
    }
    let Some(result) = last else { return };
    let wall = walls.iter().copied().fold(f64::INFINITY, f64::min);
    let cpu = cpus.iter().copied().fold(f64::INFINITY, f64::min);
    let c = &result.counts;
    println!("search: {label}");
    println!("  GPU counts tried:     {:?}", c.gpu_counts);
    println!("  hardware options:     {}", c.hardware_options);
    println!("  valid combinations:   {}", c.combinations);
    println!("  pruned after non-fit: {}", c.pruned_after_non_fit);
    println!("  pruned idle CXL:      {}", c.pruned_idle_cxl);
    println!("  stack cannot run:     {}", c.unsupported);
    println!("  evaluated:            {}", c.evaluated);
    println!("  fitting:              {}", c.fitting);
    println!("  feasible:             {}", c.feasible);
    println!("  frontier size:        {}", result.frontier.len());
    let all: Vec<String> = walls.iter().map(|w| format!("{w:.3}")).collect();
    println!(
        "  wall time:            {wall:.3} s (best of {}: {} s)",
        walls.len(),
        all.join(", ")
    );
    if cpu.is_finite() {
        let all: Vec<String> = cpus.iter().map(|w| format!("{w:.2}")).collect();
        println!(
            "  CPU time:             {cpu:.2} s (best of {}: {} s)",
            cpus.len(),
            all.join(", ")
        );
    }
    println!(
        "  evaluated per second: {:.0} wall, {:.0} per CPU-second",
        c.evaluated as f64 / wall.max(1e-9),
        c.evaluated as f64 / cpu.max(1e-9)
    );
}

/// The serving models on `memwall example-serving`: the analytic steady
/// state (with its largest sustainable rates) per second, and the
/// simulator's CPU cost per simulated second of traffic.
fn serving() {
    let plan = planner_core::example_serving_plan();
    let (an, an_cpu, calls) = rate(1, min_secs(), |_| {
        black_box(planner_core::serving::analytic(black_box(&plan)));
    });
    println!(
        "serving analytic:       {an:>12.0} plans/s wall, {} per CPU-second ({calls} calls; steady state + largest rate with and without SLOs)",
        per_cpu(an_cpu)
    );
    let scenario = planner_core::search::example_serving_scenario();
    let (found, wall, cpu) = timed(|| planner_core::search::search_serving(&scenario));
    println!(
        "serving search:         {wall:.3} s wall, {} CPU s ({} candidates, {} feasible; best {} GPUs)",
        cpu.map_or_else(|| "n/a".to_string(), |c| format!("{c:.3}")),
        found.evaluated,
        found.feasible,
        found.best.as_ref().map_or(0, |b| b.gpus)
    );
    let sim = planner_core::serving::simulate(&plan).expect("the example has a stream");
    let secs = sim.simulated.as_secs();
    let (runs, runs_cpu, calls) = rate(1, min_secs(), |_| {
        black_box(planner_core::serving::simulate(black_box(&plan)));
    });
    println!(
        "serving simulator:      {runs:.0} runs/s wall, {} per CPU-second ({calls} runs of {} requests, {} iterations, {secs:.1} simulated s): {:.1} µs per simulated second (CPU)",
        per_cpu(runs_cpu),
        sim.requests,
        sim.iterations,
        runs_cpu.map_or(f64::NAN, |r| 1e6 / (r * secs))
    );
}
