//! The disaggregated lines of `eval --format table`: each pool, the KV
//! transfer between them, the stream through both and their cost. Views
//! only: every number comes from `planner-core`.

use planner_core::report::Percentiles;
use planner_core::report::{DisaggReport, PoolReport};
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

fn pool(o: &mut String, p: &PoolReport) {
    let _ = writeln!(
        o,
        "pool     {}: {} × TP {}; {:.0} KV tokens per replica ({:.1} KiB/token per device); {}; largest rate {:.2} requests/s; iteration {:.1} ms, {:.1} running",
        p.role.en(),
        p.replicas,
        p.tp,
        p.kv_capacity_tokens,
        p.kv_bytes_per_token_device.as_bytes() / 1024.0,
        if p.fits { "fits" } else { "DOES NOT FIT" },
        p.max_rate,
        p.iteration.as_millis(),
        p.running
    );
}

/// Pools, transfer, stream, analytic and cost lines.
pub fn disaggregated(o: &mut String, d: &DisaggReport) {
    pool(o, &d.prefill);
    pool(o, &d.decode);
    let link = planner_core::catalog::link(d.link);
    let _ = writeln!(
        o,
        "KV link  {} at {:.1} GB/s per GPU + {:.0} µs: {} per mean prompt in {:.2} ms",
        link.name,
        d.link_bandwidth.as_gb_per_s(),
        d.link_latency.as_secs() * 1e6,
        d.kv_bytes_per_request,
        d.transfer.as_millis()
    );
    let m = &d.simulated;
    let _ = writeln!(
        o,
        "split    simulated {} requests ({} done, {} preempted): TTFT {}; TPOT {}; {:.0} output tokens/s, {:.2} requests/s, goodput {:.2}/s; SLOs {}",
        m.requests,
        m.completed,
        m.preemptions,
        ms(&m.ttft),
        ms(&m.tpot),
        m.output_tokens_per_second,
        m.requests_per_second,
        m.goodput,
        if m.meets_slo { "met" } else { "MISSED" }
    );
    let a = &d.analytic;
    let under = a
        .max_rate_under_slo
        .map_or(String::new(), |x| format!(" ({x:.2} under the SLOs)"));
    let _ = writeln!(
        o,
        "analytic {}: TTFT {}; TPOT {:.1} ms; largest rate {:.2} requests/s{under}, bound by the {}",
        if a.stable { "steady" } else { "UNSUSTAINABLE" },
        ms(&a.ttft),
        a.tpot.as_millis(),
        a.max_rate,
        a.bottleneck.en()
    );
    let _ = writeln!(
        o,
        "price    both pools {}/h: {} per M input tokens, {} per M output tokens, {} per request",
        usd(d.usd_per_hour),
        usd(d.usd_per_million_input),
        usd(d.usd_per_million_output),
        usd(d.usd_per_request)
    );
}
