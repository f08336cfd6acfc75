//! The serving lines of `eval --format table`: the engine and its KV pool,
//! the simulated stream, the analytic steady state and the cost per token.
//! Views only: every number comes from `planner-core`.

use planner_core::report::{Percentiles, ServingReport};
use planner_core::units::Usd;
use planner_core::Named;
use std::fmt::Write;

fn ms(p: &Percentiles) -> String {
    format!(
        "p50 {:.1} ms, p99 {:.1} ms",
        p.p50.as_millis(),
        p.p99.as_millis()
    )
}

fn usd(u: Option<Usd>) -> String {
    u.map_or("unpriced".into(), |u| format!("${:.4}", u.as_usd()))
}

/// Engine, pool, stream, analytic and cost lines.
pub fn serving(o: &mut String, s: &ServingReport) {
    engine_lines(o, s);
    kv_lines(o, s);
    stream_lines(o, s);
    analytic_lines(o, s);
    if s.simulated.is_some() {
        let _ = writeln!(
            o,
            "price    {} per M input tokens, {} per M output tokens, {} per request",
            usd(s.usd_per_million_input),
            usd(s.usd_per_million_output),
            usd(s.usd_per_request)
        );
    }
}

/// The engine's batching, its host costs and any speculative decoding.
fn engine_lines(o: &mut String, s: &ServingReport) {
    let p = &s.profile;
    let budget = p
        .token_budget
        .map_or("whole prompts".into(), |b| format!("{b}-token budget"));
    let _ = writeln!(
        o,
        "engine   {}: {budget}, {}-token blocks, up to {} running{}",
        p.engine.en(),
        p.block_tokens,
        p.max_seqs,
        if p.dp_balance == planner_core::engine::DpBalance::On {
            format!("; {}", p.dp_balance.en())
        } else {
            String::new()
        }
    );
    if p.engine.continuous() {
        let h = &p.host;
        let steps = if p.scheduler_steps > 1 {
            format!("; {} decode steps per scheduling", p.scheduler_steps)
        } else {
            String::new()
        };
        let _ = writeln!(
            o,
            "host     {:.2} ms a scheduling + {:.0} µs a sequence, {}{steps}",
            h.per_step.as_millis(),
            h.per_sequence.base() * 1e6,
            h.overlap.en()
        );
    }
    if let Some(sp) = &s.speculative {
        let _ = writeln!(
            o,
            "speculate {}: {} draft tokens at acceptance {:.2}, {:.2} tokens per step",
            sp.drafter.en(),
            sp.tokens,
            sp.acceptance,
            s.tokens_per_step
        );
    }
}

/// The KV pool and, with a tier below HBM, what the store holds and saves.
fn kv_lines(o: &mut String, s: &ServingReport) {
    let _ = writeln!(
        o,
        "KV pool  {} per device ({:.1} KiB/token there); {:.0} tokens per replica; {:.2} requests of the plan's length at once",
        s.kv_pool,
        s.kv_bytes_per_token_device.as_bytes() / 1024.0,
        s.kv_capacity_tokens,
        s.max_concurrency
    );
    if let Some(k) = &s.kv_tier {
        let pct = |x: Option<f64>| x.map_or("–".into(), |x| format!("{:.0} %", x * 100.0));
        let _ = writeln!(
            o,
            "KV tier  {}: {:.0} tokens below HBM for a {:.0}-token working set; hits {:.0} % in HBM, {:.0} % below (simulated {}, {}); fetch {:.1} ms per request; {} swaps; TTFT p50 {}",
            k.tier.map_or("HBM prefix cache only", |t| t.en()),
            k.store_tokens,
            k.working_set_tokens,
            k.hit_rate_hbm * 100.0,
            k.hit_rate_store * 100.0,
            pct(k.simulated_hit_rate_hbm),
            pct(k.simulated_hit_rate_store),
            k.fetch_per_request.as_millis(),
            k.swaps,
            k.ttft_gain
                .map_or("–".into(), |g| format!("{:.1} ms faster with the store", g.as_millis()))
        );
    }
}

/// The simulated stream and the front end's share of its TTFT.
fn stream_lines(o: &mut String, s: &ServingReport) {
    if let Some(m) = &s.simulated {
        let _ = writeln!(
            o,
            "stream   simulated {} ({} done, {} preempted, {} iterations, {:.1} s); mean {:.1} running",
            if m.ranks > 1 {
                format!(
                    "{} requests, {} on each of {} attention-DP replicas stepping together",
                    m.requests,
                    m.requests / m.ranks,
                    m.ranks
                )
            } else {
                format!("{} requests/replica", m.requests)
            },
            m.completed,
            m.preemptions,
            m.iterations,
            m.simulated.as_secs(),
            m.mean_running
        );
        let _ = writeln!(
            o,
            "         TTFT {}; TPOT {}; ITL {}; {:.0} output and {:.0} input tokens/s, {:.2} requests/s, goodput {:.2}/s; SLOs {}",
            ms(&m.ttft),
            ms(&m.tpot),
            ms(&m.itl),
            m.output_tokens_per_second,
            m.input_tokens_per_second,
            m.requests_per_second,
            m.goodput,
            if m.meets_slo { "met" } else { "MISSED" }
        );
    }
    let front = s.profile.front_end.as_millis();
    if front > 0.0 && (s.simulated.is_some() || s.analytic.is_some()) {
        let (lo, hi) = s.profile.engine.front_end_span();
        let _ = writeln!(
            o,
            "         TTFT is the client's: {front:.0} ms of it the server's front end (HTTP, template, tokenisation; published harnesses {:.0}–{:.0} ms; levers.engine_knobs.front_end_ms)",
            lo.as_millis(),
            hi.as_millis()
        );
    }
}

/// The analytic steady state and attention-DP stalls.
fn analytic_lines(o: &mut String, s: &ServingReport) {
    if let Some(a) = &s.analytic {
        let under = a
            .max_rate_under_slo
            .map_or(String::new(), |x| format!(" ({x:.2} under the SLOs)"));
        // Past the largest rate the queue grows without bound: the steady
        // state has no TTFT or TPOT to give, only the rate it serves.
        let latency = if a.stable {
            format!("TTFT {}; TPOT {:.1} ms", ms(&a.ttft), a.tpot.as_millis())
        } else {
            "TTFT and TPOT grow without bound (the queue does)".to_string()
        };
        let _ = writeln!(
            o,
            "analytic {}: {latency}; {:.0} output tokens/s; largest rate {:.2} requests/s{under}",
            if a.stable { "steady" } else { "UNSUSTAINABLE" },
            a.output_tokens_per_second,
            a.max_rate
        );
        if let Some(g) = a.waves {
            let _ = writeln!(
                o,
                "         a closed loop of fixed lengths arrives in waves of {g} prompt group(s): these figures follow the first wave (every client at once), which the simulated ones above include"
            );
        }
        if let Some(x) = a.dp_stall {
            let fix = if s.profile.engine == planner_core::engine::Engine::TrtLlm {
                "levers.engine_knobs.attention_dp_balance lines them up"
            } else {
                "TensorRT-LLM's attention_dp_balance would line them up"
            };
            let _ = writeln!(
                o,
                "         attention-DP ranks wait for each other's prefills: {:.0} % of each output token's time ({fix}, at the cost of first-token time)",
                x * 100.0
            );
        }
    }
}

/// `memwall search-serving`: reads a serving scenario, searches it, prints
/// the answers as JSON or a table. Exit 1 when nothing carries the rate.
pub(crate) fn run_search_serving(
    file: &str,
    every_gpu: bool,
    formats: bool,
    format: crate::Format,
) -> Result<std::process::ExitCode, crate::Fail> {
    use planner_core::search::{search_serving, Permission, ServingScenario};
    let text = crate::read_input(file)?;
    let scenario = ServingScenario::from_json(&text)
        .map_err(|e| crate::Fail(format!("invalid serving scenario: {e}")))?;
    let result = search_serving(&scenario);
    if let Some(p) = &result.problem {
        return Err(crate::Fail(format!("invalid serving scenario: {p}")));
    }
    if every_gpu || formats {
        let allow = |b: bool| {
            if b {
                Permission::Allowed
            } else {
                Permission::Forbidden
            }
        };
        return every_way(&scenario, result, allow(formats), allow(every_gpu), format);
    }
    match format {
        crate::Format::Json => crate::io::emit(&format!(
            "{}\n",
            serde_json::to_string_pretty(&result).map_err(|e| crate::Fail(e.to_string()))?
        )),
        crate::Format::Table => crate::io::emit(&render_serving_search(&result)),
    }
    Ok(if result.best.is_some() {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::from(1)
    })
}

/// The stream sized every way asked (the core's `serving_ways`): each
/// way's answer with the fewest GPUs, cheapest per hour first, ties
/// marked (the core's `rank_answers`), changes listed against the
/// scenario's plan. `own` is the plan's own search, already run.
fn every_way(
    scenario: &planner_core::search::ServingScenario,
    own: planner_core::search::ServingSearch,
    formats: planner_core::search::Permission,
    kinds: planner_core::search::Permission,
    format: crate::Format,
) -> Result<std::process::ExitCode, crate::Fail> {
    use planner_core::search::{rank_answers, serving_ways};
    let ways = serving_ways(scenario, formats, kinds);
    let mut bests = vec![own.best];
    bests.extend(search_each(&ways[1..]));
    let answers = ways
        .iter()
        .zip(bests)
        .filter_map(|(w, best)| best.map(|b| (w.family, b)))
        .collect();
    let ranked = rank_answers(&scenario.base, answers);
    match format {
        crate::Format::Json => crate::io::emit(&format!(
            "{}\n",
            serde_json::to_string_pretty(&ranked).map_err(|e| crate::Fail(e.to_string()))?
        )),
        crate::Format::Table => crate::io::emit(&render_ways(ways.len(), &ranked)),
    }
    Ok(if ranked.is_empty() {
        std::process::ExitCode::from(1)
    } else {
        std::process::ExitCode::SUCCESS
    })
}

/// Each way's best answer, in the ways' order, the searches spread over
/// the machine's cores (each is a pure function of its scenario, so the
/// answers do not depend on how they are spread).
fn search_each(
    ways: &[planner_core::search::ServingWay],
) -> Vec<Option<planner_core::search::ServingFound>> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, ways.len().max(1));
    let mut out: Vec<Option<planner_core::search::ServingFound>> = vec![None; ways.len()];
    let done: Vec<Vec<(usize, Option<planner_core::search::ServingFound>)>> =
        std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    scope.spawn(|| {
                        let mut mine = Vec::new();
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some(w) = ways.get(i) else { break };
                            mine.push((i, planner_core::search::search_serving(&w.scenario).best));
                        }
                        mine
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect()
        });
    for (i, best) in done.into_iter().flatten() {
        out[i] = best;
    }
    out
}

/// The ways' answers, one a line with its changes beneath.
fn render_ways(ways: usize, ranked: &[planner_core::search::RankedWay]) -> String {
    use planner_core::Named;
    let lang = planner_core::Lang::En;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{ways} ways sized; each way's answer with the fewest GPUs, cheapest per hour first"
    );
    for (i, r) in ranked.iter().enumerate() {
        let f = &r.answer;
        let price = f
            .usd_per_hour
            .map_or_else(|| "no price".to_string(), |u| format!("${:.2}/h", u.base()));
        let range = r
            .cost_range
            .map(|c| format!(" (${:.2}–{:.2})", c.low, c.high))
            .unwrap_or_default();
        let tie = r
            .tie
            .map(|j| format!("; ties with #{} within the model's uncertainty", j + 1))
            .unwrap_or_default();
        let tpot = if f.simulated.is_some() {
            "TPOT p99"
        } else {
            "TPOT (mean)"
        };
        let _ = writeln!(
            o,
            "#{} {}: {}×{} ({} × TP {}): {price}{range}; {tpot} {:.1} ms{tie}",
            i + 1,
            r.family.name(lang),
            f.gpus,
            crate::io::one_line(f.plan.hardware.gpu.name()),
            f.replicas,
            f.plan.levers.parallel.tp,
            planner_core::search::listed_tpot(f).as_millis(),
        );
        let changes: Vec<String> = f.changes.iter().map(|c| c.describe(lang)).collect();
        let _ = writeln!(o, "       {}", crate::io::one_line(&changes.join(", ")));
        let flags: Vec<&str> = [
            planner_core::diff::Impact::Quality,
            planner_core::diff::Impact::Sla,
        ]
        .into_iter()
        .filter(|m| f.changes.iter().any(|c| c.impact == *m))
        .map(|m| m.name(lang))
        .collect();
        if !flags.is_empty() {
            let _ = writeln!(o, "       ⚠ {}", flags.join("; "));
        }
    }
    if ranked.iter().any(|r| r.tie.is_some()) {
        let _ = writeln!(
            o,
            "Ties: the cost ranges overlap, so the model cannot rank them; the lead goes to an answer that keeps the number formats when its price is within the cheapest's range."
        );
    }
    o
}

/// The frontier of a serving search, one answer a line, with its changes.
fn render_serving_search(r: &planner_core::search::ServingSearch) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{} candidates, {} carry the rate within the SLOs (steady state); the answers below were checked in the simulator",
        r.evaluated, r.feasible
    );
    for (i, f) in r.frontier.iter().enumerate() {
        let a = &f.analytic;
        let mark = if i == 0 { "best " } else { "     " };
        let _ = writeln!(
            o,
            "{mark}{} GPUs ({} × TP {}): TTFT {}; TPOT {:.1} ms{}",
            f.gpus,
            f.replicas,
            f.plan.levers.parallel.tp,
            ms(&a.ttft),
            a.tpot.as_millis(),
            if f.affects_sla {
                "  [changes what users see: check the SLOs]"
            } else {
                ""
            }
        );
        if let Some(m) = &f.simulated {
            let _ = writeln!(
                o,
                "       simulated: TTFT {}; TPOT {}; SLOs met",
                ms(&m.ttft),
                ms(&m.tpot)
            );
        }
        let changes: Vec<String> = f
            .changes
            .iter()
            .map(|c| c.describe(planner_core::Lang::En))
            .collect();
        let _ = writeln!(o, "       {}", changes.join(", "));
    }
    o
}
