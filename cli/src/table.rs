//! Plain-text views of reports and catalogs. Views only: every number comes
//! from `planner-core`.

use planner_core::catalog::{self, Provenance};
use planner_core::report::{
    ContextLimit, CostReport, DeviceMemory, EnergyBilling, Placed, PriceBasis, Report,
    StreamVerdict, TimePart, TimeReport, Verdict,
};
use planner_core::units::{Bytes, GpuHours, Seconds, Usd};
use planner_core::{Diagnostic, Named};
use std::fmt::Write;

fn gib(b: Bytes) -> String {
    format!("{:>10.2}", b.as_gib())
}

fn params(n: f64) -> String {
    if n >= 1e9 {
        format!("{:.2} B", n / 1e9)
    } else {
        format!("{:.1} M", n / 1e6)
    }
}

/// A readable breakdown of a report.
pub fn render(r: &Report) -> String {
    let mut o = String::new();
    heading(&mut o, r);
    for (i, d) in r.devices.iter().enumerate() {
        device(&mut o, d, i == r.binding);
    }
    limits(&mut o, r);
    if let Some(s) = &r.serving {
        crate::serving_view::serving(&mut o, s);
    }
    if let Some(d) = &r.disaggregated {
        crate::disagg_view::disaggregated(&mut o, d);
    }
    placement(&mut o, &r.placement);
    let streamed = r.serving.as_ref().is_some_and(|s| s.simulated.is_some());
    if streamed {
        // The stream's figures are above; what follows is the plan's one
        // static batch, which a reader would otherwise take for the same.
        let _ = writeln!(
            o,
            "static   the figures below are one static batch (the whole batch prefilled, then decoded together), not the stream above"
        );
    }
    time(&mut o, &r.time);
    if let Some(c) = &r.cost {
        let tokens = match r.time {
            TimeReport::Training(_) => "M tokens trained",
            TimeReport::Inference(_) if streamed => "M output tokens (one static batch)",
            TimeReport::Inference(_) => "M output tokens",
        };
        cost(&mut o, c, r.distilled_from.as_deref(), tokens);
    }
    diagnostics(&mut o, &r.diagnostics);
    o
}

/// Plan, model, GPU and verdict.
fn heading(o: &mut String, r: &Report) {
    let _ = writeln!(o, "plan     {}", r.plan);
    let _ = writeln!(
        o,
        "model    {}  ({} parameters, {} active, {} trainable)",
        r.model,
        params(r.params.total),
        params(r.params.active),
        params(r.params.trainable)
    );
    if let Some(t) = &r.distilled_from {
        let _ = writeln!(o, "         distilled from {t}");
    }
    let _ = writeln!(o, "gpu      {}", r.gpu);
    let verdict = match r.verdict {
        // A serving engine fills its memory budget with its KV pool on purpose.
        Verdict::Fits => match r
            .serving
            .as_ref()
            .filter(|s| s.profile.engine.continuous() && s.analytic.is_some())
        {
            Some(s) => format!(
                "FITS: the engine's {} KV pool per device fills its memory budget",
                s.kv_pool
            ),
            None => format!("FITS with {} of HBM to spare", r.hbm_margin),
        },
        Verdict::DoesNotFit => {
            // Name the tiers that are over: HBM may fit while host memory
            // or CXL does not.
            let over: Vec<String> = r
                .over_tiers()
                .iter()
                .map(|(t, by)| format!("{} over by {by}", t.en()))
                .collect();
            if over.is_empty() {
                format!("DOES NOT FIT (HBM margin {})", r.hbm_margin)
            } else {
                format!("DOES NOT FIT: {}", over.join(", "))
            }
        }
        Verdict::Invalid => "INVALID".to_string(),
    };
    let _ = writeln!(o, "verdict  {verdict}");
    if let Some(v) = r.stream_verdict() {
        let _ = writeln!(o, "serves   {}", served(v, r.largest_rates()));
    }
    let _ = writeln!(o);
}

/// How the plan serves its stream, with the rate that would change that.
fn served(v: StreamVerdict, rates: Option<(f64, Option<f64>)>) -> String {
    let name = v.en();
    match (v, rates) {
        (StreamVerdict::Unsustainable, Some((max, _))) => {
            format!("{name} (largest sustainable rate {max:.2} requests/s)")
        }
        (StreamVerdict::MissesSlo, Some((_, Some(within)))) => {
            format!("{name} (largest rate within them {within:.2} requests/s)")
        }
        _ => name.to_string(),
    }
}

/// One device: its items, its HBM use and each tier against capacity.
fn device(o: &mut String, d: &DeviceMemory, most_loaded: bool) {
    let mark = if most_loaded { "  ← most loaded" } else { "" };
    let _ = writeln!(o, "{} ({} layers){mark}", d.role.en(), d.layers);
    // The item column is as wide as its longest label, so a long one
    // ("LoRA saved inputs of 4-bit layers") does not push its row askew.
    let w = d
        .items
        .iter()
        .map(|it| it.kind.label().chars().count())
        .max()
        .unwrap_or(0)
        .max(24);
    let _ = writeln!(o, "  {:<w$} {:<10} {:>10}  basis", "item", "tier", "GiB");
    for it in &d.items {
        let _ = writeln!(
            o,
            "  {:<w$} {:<10} {}  {}",
            it.kind.label(),
            it.tier.en(),
            gib(it.bytes),
            it.basis
        );
    }
    let _ = writeln!(
        o,
        "  HBM: allocated {:.2} GiB, reserved {:.2} GiB, used {:.2} GiB",
        d.hbm_allocated().as_gib(),
        d.hbm_reserved().as_gib(),
        d.hbm_used().as_gib()
    );
    for t in &d.tiers {
        let _ = writeln!(
            o,
            "  {:<10} {:>10.2} / {:>10.2} GiB  {:<4}  (expected {:.2}–{:.2} GiB)",
            t.tier.en(),
            t.used.as_gib(),
            t.capacity.as_gib(),
            if t.fits() { "ok" } else { "OVER" },
            t.range.low.as_gib(),
            t.range.high.as_gib()
        );
    }
    let _ = writeln!(o);
}

/// The serving or training limits: what fits at most.
fn limits(o: &mut String, r: &Report) {
    if let Some(l) = &r.inference {
        let _ = writeln!(
            o,
            "serving  KV cache {:.1} KiB/token per replica; KV budget {} on the most loaded GPU; max batch {}; max context {} tokens{}",
            l.kv_bytes_per_token.base() / 1024.0,
            l.kv_budget,
            l.max_batch,
            l.max_context,
            bound_note(l.context_limit)
        );
    }
    if let Some(l) = &r.training {
        let _ = writeln!(
            o,
            "training {} micro-batches/step, {:.2} in flight on stage 0; max micro-batch {}; max sequence {} tokens{}",
            l.micro_batches,
            l.in_flight,
            l.max_micro_batch,
            l.max_seq_len,
            bound_note(l.seq_limit)
        );
    }
}

/// Says when the trained context, not memory, bounds a longest answer.
fn bound_note(limit: ContextLimit) -> String {
    match limit {
        ContextLimit::Memory => String::new(),
        ContextLimit::TrainedContext => format!(" ({}; more would fit)", limit.en()),
    }
}

/// States placed off HBM by heat, coldest first.
fn placement(o: &mut String, placed: &[Placed]) {
    if placed.is_empty() {
        return;
    }
    let _ = writeln!(o, "placed by heat (coldest first):");
    for p in placed {
        let _ = writeln!(
            o,
            "  {:?}: {:.0}% to {} ({:.0} accesses per step per byte)",
            p.state,
            p.fraction * 100.0,
            p.tier.en(),
            p.heat
        );
    }
}

/// The diagnostics section, after a blank line; nothing when there are none.
pub(crate) fn diagnostics(o: &mut String, ds: &[Diagnostic]) {
    if ds.is_empty() {
        return;
    }
    let _ = writeln!(o, "\ndiagnostics");
    for d in ds {
        let _ = writeln!(o, "  [{:?}] {}", d.severity, d.message);
    }
}

/// Dollars with a precision that suits the amount: `$97,465`, `$21.92`,
/// `$0.0487`.
fn dollars(u: Usd) -> String {
    let v = u.as_usd();
    if !v.is_finite() {
        return "n/a".to_string();
    }
    if v.abs() >= 1000.0 {
        let whole = format!("{:.0}", v.abs());
        let mut grouped = String::new();
        for (i, ch) in whole.chars().enumerate() {
            if i > 0 && (whole.len() - i) % 3 == 0 {
                grouped.push(',');
            }
            grouped.push(ch);
        }
        format!("{}${grouped}", if v < 0.0 { "-" } else { "" })
    } else if v.abs() >= 1.0 || v == 0.0 {
        format!("${v:.2}")
    } else {
        // Three significant digits.
        let decimals = (2.0 - v.abs().log10().floor()).clamp(2.0, 9.0) as usize;
        format!("${v:.decimals$}")
    }
}

pub(crate) fn maybe(u: Option<Usd>) -> String {
    u.map_or_else(|| "n/a".to_string(), dollars)
}

/// The cost section: hourly cost and what it is made of, per token, per
/// step and per run, one-time costs and the migration class.
fn cost(o: &mut String, c: &CostReport, teacher: Option<&str>, tokens: &str) {
    let _ = writeln!(o);
    match &c.gpu_price {
        Some(p) => {
            let basis = match p.basis {
                PriceBasis::Rental => "rental".to_string(),
                PriceBasis::AmortisedCapex => {
                    format!("amortised purchase of {} per GPU", maybe(p.purchase))
                }
            };
            let seen = if p.source.date.is_empty() {
                "set in the plan".to_string()
            } else {
                let market = match p.source.market {
                    Some(m @ planner_core::catalog::Market::China) => {
                        use planner_core::Named;
                        format!(" on {}", m.name(planner_core::Lang::En))
                    }
                    _ => String::new(),
                };
                format!("price of {}{market}", p.source.date)
            };
            let _ = writeln!(
                o,
                "cost     {} per hour at {}/GPU-h ({basis}, {seen})",
                maybe(c.usd_per_hour),
                dollars(p.usd_per_gpu_hour)
            );
        }
        None => {
            let _ = writeln!(o, "cost     no GPU price known (see diagnostics)");
        }
    }
    let billing = match c.energy.billing {
        EnergyBilling::IncludedInRental => "included in the rental",
        EnergyBilling::Charged => "charged",
    };
    let _ = writeln!(
        o,
        "         energy {:.1} kW at the meter, {}/h, {billing}",
        c.energy.power.as_watts() / 1000.0,
        maybe(c.energy.usd_per_hour)
    );
    let added = (c.memory.cxl + c.memory.pool + c.memory.host_dram).as_gb();
    if added > 0.0 {
        let _ = writeln!(
            o,
            "         memory added {added:.0} GB (CXL {:.0}, pool {:.0}, host {:.0}): {} bought, {}/h amortised",
            c.memory.cxl.as_gb(),
            c.memory.pool.as_gb(),
            c.memory.host_dram.as_gb(),
            maybe(c.memory.capex),
            maybe(c.memory.usd_per_hour)
        );
    }
    let mut per = vec![format!("{} per {tokens}", maybe(c.usd_per_million_tokens))];
    if c.usd_per_step.is_some() {
        per.push(format!("{} per step", maybe(c.usd_per_step)));
    }
    if let Some(h) = c.gpu_hours_per_run.map(GpuHours::as_gpu_hours) {
        per.push(format!(
            "{} per run ({h:.0} GPU-hours)",
            maybe(c.usd_per_run)
        ));
    }
    let _ = writeln!(o, "         {}", per.join("; "));
    if let Some(d) = &c.distillation {
        let _ = writeln!(
            o,
            "         distilling {} → {} over {:.3e} tokens: {:.0} GPU-hours at {:.0}% of peak, {} once",
            teacher.unwrap_or(&d.teacher),
            d.student,
            d.tokens,
            d.gpu_hours.as_gpu_hours(),
            d.utilisation * 100.0,
            maybe(d.usd)
        );
    }
    let levers: Vec<String> = c
        .effort
        .iter()
        .map(|e| format!("{} {:.1}", e.lever.label(), e.person_weeks))
        .collect();
    let _ = writeln!(
        o,
        "         adoption: {}; {:.1} person-weeks ({}){}{}",
        c.migration.label(),
        c.person_weeks,
        maybe(c.engineering_usd),
        if levers.is_empty() { "" } else { ": " },
        levers.join(", ")
    );
    if c.distillation.is_some() {
        let _ = writeln!(o, "         one-time total {}", maybe(c.one_time_usd));
    }
}

fn tag(p: Provenance) -> &'static str {
    match p {
        Provenance::Verified => "V",
        Provenance::VerifiedCopy => "V*",
        Provenance::Computed => "C",
        Provenance::Secondary => "S",
        Provenance::Recalled => "R",
        Provenance::Assumed => "A",
    }
}

fn id_name<T: serde::Serialize>(id: &T) -> String {
    serde_json::to_value(id)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The model catalog.
pub fn models() -> String {
    let mut o = String::from("models (id, name, parameters, [provenance] source)\n");
    for e in catalog::MODELS {
        let _ = writeln!(
            o,
            "  {:<18} {:<22} {:>10}  [{}] {}",
            id_name(&e.id),
            e.name,
            params(e.spec.params().total()),
            tag(e.provenance),
            e.source
        );
    }
    o
}

/// The GPU catalog.
pub fn gpus() -> String {
    let mut o = String::from(
        "gpus (id, name, device memory GiB, bandwidth TB/s, BF16 dense TFLOP/s, [provenance] source)\n",
    );
    for e in catalog::GPUS {
        let s = &e.spec;
        let _ = writeln!(
            o,
            "  {:<16} {:<28} {:>7.1} {:>6.2} {:>7.0}  [{}] {}",
            id_name(&e.id),
            e.name,
            s.device_memory().as_gib(),
            s.memory_bandwidth.base() / 1e12,
            s.bf16.as_tflops(),
            tag(e.provenance),
            e.source
        );
    }
    o
}

/// The link catalog.
pub fn links() -> String {
    let mut o = String::from("links (id, name, GB/s per direction, [provenance] source)\n");
    for e in catalog::LINKS {
        let _ = writeln!(
            o,
            "  {:<16} {:<28} {:>7.1}  [{}] {}",
            id_name(&e.id),
            e.name,
            e.per_direction.as_gb_per_s(),
            tag(e.provenance),
            e.source
        );
    }
    o
}

/// The CXL device catalog.
pub fn cxl() -> String {
    let mut o = String::from("cxl devices (id, name, GB, GB/s, ns, [provenance] source)\n");
    for e in catalog::CXL_DEVICES {
        let _ = writeln!(
            o,
            "  {:<22} {:<40} {:>6.0} {:>5.0} {:>5.0}  [{}] {}",
            id_name(&e.id),
            e.name,
            e.spec.capacity.as_gb(),
            e.spec.bandwidth.as_gb_per_s(),
            e.spec.latency.as_nanos(),
            tag(e.provenance),
            e.source
        );
    }
    o
}

/// The price table.
pub fn prices() -> String {
    let mut o = String::from("prices (item, kind, USD, date, market, [provenance] source)\n");
    for e in catalog::PRICES {
        let _ = writeln!(
            o,
            "  {:<28} {:<16} {:>10.2}  {:<10} {:<6} [{}] {}",
            serde_json::to_string(&e.item).unwrap_or_default(),
            id_name(&e.kind),
            e.usd.as_usd(),
            e.date,
            id_name(&e.market),
            tag(e.provenance),
            e.source
        );
    }
    o
}

pub(crate) fn secs(s: Seconds) -> String {
    let v = s.as_secs();
    if v >= 1.0 {
        format!("{v:.2} s")
    } else {
        format!("{:.2} ms", v * 1e3)
    }
}

fn parts(o: &mut String, title: &str, ps: &[TimePart]) {
    let w = ps
        .iter()
        .map(|p| p.kind.label().chars().count())
        .chain([title.chars().count(), 24])
        .max()
        .unwrap_or(24);
    let _ = writeln!(o, "  {title:<w$} {:>12} {:>12}", "exposed", "busy");
    for p in ps {
        let _ = writeln!(
            o,
            "  {:<w$} {:>12} {:>12}",
            p.kind.label(),
            secs(p.exposed),
            secs(p.busy)
        );
    }
}

/// Which measured runs a range was widened to, with their spread.
fn basis(b: planner_core::uncertainty::ValidationBasis) -> String {
    use planner_core::Named;
    format!(
        "the model's errors on {} ({} published runs; docs/validation.md, \"Ranges\")",
        b.en(),
        b.band(0).rows
    )
}

fn time(o: &mut String, t: &TimeReport) {
    let _ = writeln!(o);
    match t {
        TimeReport::Training(t) => {
            let _ = writeln!(
                o,
                "step     {} (range {} – {}); {:.0} tokens/s; MFU {:.1}%, HFU {:.1}%",
                secs(t.step),
                secs(t.step_range.low),
                secs(t.step_range.high),
                t.tokens_per_second,
                t.mfu * 100.0,
                t.hfu * 100.0
            );
            let _ = writeln!(o, "         range from {}", basis(t.range_basis));
            if let Some(d) = t.time_to_train {
                let _ = writeln!(
                    o,
                    "run      {:.1} days for {:.3e} steps",
                    d.as_days(),
                    t.steps.unwrap_or(0.0)
                );
            }
            parts(o, "step part", &t.parts);
        }
        TimeReport::Inference(t) => {
            let _ = writeln!(
                o,
                "latency  TTFT {} (range {} – {}); TPOT {} (range {} – {})",
                secs(t.ttft),
                secs(t.ttft_range.low),
                secs(t.ttft_range.high),
                secs(t.tpot),
                secs(t.tpot_range.low),
                secs(t.tpot_range.high)
            );
            let _ = writeln!(o, "         ranges from {}", basis(t.range_basis));
            let _ = writeln!(
                o,
                "output   {:.0} tokens/s per replica, {:.0} tokens/s in all; one batch takes {}",
                t.output_tokens_per_second,
                t.total_output_tokens_per_second,
                secs(t.request_latency)
            );
            parts(o, "prefill part", &t.prefill);
            parts(o, "decode part", &t.decode);
        }
    }
}
