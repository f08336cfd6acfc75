//! The cost report: its arithmetic, its defaults, what it refuses to make
//! up, effort classes, plan families and distillation.

use planner_core::catalog::{self, GpuId, ModelId, PriceKind, PricedItem};
use planner_core::economics::{
    Economics, EffortOverride, Energy, Engineering, Pricing, RentalEnergy, HOURS_PER_YEAR,
};
use planner_core::effort::{self, family, Lever, MigrationClass, PlanFamily};
use planner_core::hardware::{CustomGpu, CxlChoice, CxlExpansion, GpuChoice, Hardware};
use planner_core::plan::{
    Distillation, Inference, Levers, LogitsScope, ModelChoice, Overheads, Plan, Workload,
};
use planner_core::report::{
    CostReport, EnergyBilling, InferenceTime, ItemKind, PriceBasis, Report, TimeReport,
    TrainingTime,
};
use planner_core::units::Usd;
use planner_core::{evaluate, example_plan, DiagnosticKind, Severity, Verdict};
use proptest::prelude::*;

fn cost(r: &Report) -> CostReport {
    r.cost.clone().expect("evaluate fills in the cost")
}

fn training(r: &Report) -> Option<&TrainingTime> {
    match &r.time {
        TimeReport::Training(t) => Some(t),
        TimeReport::Inference(_) => None,
    }
}

fn serving_time(r: &Report) -> Option<&InferenceTime> {
    match &r.time {
        TimeReport::Inference(t) => Some(t),
        TimeReport::Training(_) => None,
    }
}

fn usd(u: Option<Usd>) -> f64 {
    u.map_or(f64::NAN, Usd::as_usd)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
}

/// Llama 3.1 8B served on one H100 (a plan that fits).
fn serving(model: ModelId) -> Plan {
    Plan {
        version: 1,
        name: "serve".into(),
        model: ModelChoice::Preset(model),
        workload: Workload::Inference(Inference {
            prompt_tokens: 1024,
            output_tokens: 256,
            batch: 16,
            logits: LogitsScope::LastToken,
            stream: None,
        }),
        levers: Levers::default(),
        hardware: Hardware::new(GpuChoice::Preset(GpuId::H100Sxm), 1),
        overheads: Overheads::default(),
        efficiency: Default::default(),
        economics: Economics::default(),
        distillation: None,
    }
}

fn capex(utilisation: f64) -> Pricing {
    Pricing::Capex {
        usd_per_gpu: None,
        horizon_years: 4.0,
        utilisation,
    }
}

#[test]
fn per_million_tokens_is_hourly_cost_over_tokens_per_hour() {
    let r = evaluate(&example_plan());
    let c = cost(&r);
    let t = training(&r).expect("the example trains");
    let hourly = usd(c.usd_per_hour);
    assert!(hourly > 0.0);
    assert_eq!(
        usd(c.usd_per_million_tokens),
        hourly / (t.tokens_per_second * 3600.0) * 1e6
    );
    assert_eq!(usd(c.usd_per_step), hourly * t.step.as_hours());
    let run_hours = t.time_to_train.map_or(f64::NAN, |s| s.as_hours());
    assert_eq!(usd(c.usd_per_run), hourly * run_hours);
    assert_eq!(
        c.gpu_hours_per_run.map(|h| h.as_gpu_hours()),
        Some(run_hours * 8.0)
    );

    let r = evaluate(&serving(ModelId::Llama31_8b));
    assert_eq!(r.verdict, Verdict::Fits);
    let c = cost(&r);
    let t = serving_time(&r).expect("a serving plan");
    assert_eq!(
        usd(c.usd_per_million_tokens),
        usd(c.usd_per_hour) / (t.total_output_tokens_per_second * 3600.0) * 1e6
    );
    assert!(c.usd_per_step.is_none() && c.usd_per_run.is_none());
}

#[test]
fn rental_default_is_the_catalog_price_times_gpus() {
    let c = cost(&evaluate(&example_plan()));
    let p = catalog::default_price(PricedItem::Gpu(GpuId::H100Sxm), PriceKind::RentalPerHour);
    let price = c.gpu_price.clone();
    assert_eq!(price.as_ref().map(|p| p.basis), Some(PriceBasis::Rental));
    assert_eq!(price.as_ref().map(|p| p.usd_per_gpu_hour), p.map(|e| e.usd));
    assert_eq!(
        price.as_ref().map(|p| p.source.date.clone()),
        p.map(|e| e.date.to_string())
    );
    assert_eq!(
        usd(c.usd_per_hour),
        8.0 * p.map_or(f64::NAN, |e| e.usd.as_usd())
    );
}

#[test]
fn halving_utilisation_doubles_the_gpu_hour() {
    let mut a = example_plan();
    a.economics.pricing = capex(0.8);
    let mut b = example_plan();
    b.economics.pricing = capex(0.4);
    let (ca, cb) = (cost(&evaluate(&a)), cost(&evaluate(&b)));
    let gpu_hour = |c: &CostReport| {
        c.gpu_price
            .as_ref()
            .map_or(f64::NAN, |p| p.usd_per_gpu_hour.as_usd())
    };
    assert!(close(gpu_hour(&cb), 2.0 * gpu_hour(&ca)));
    // Energy is the same; the GPU part of the hourly cost doubles.
    let gpus = |c: &CostReport| {
        usd(c.usd_per_hour) - usd(c.energy.usd_per_hour) - usd(c.memory.usd_per_hour)
    };
    assert!(close(gpus(&cb), 2.0 * gpus(&ca)));
    // Amortisation: purchase over 4 years of 8766 h at 80 %.
    let purchase = catalog::default_price(PricedItem::Gpu(GpuId::H100Sxm), PriceKind::Purchase)
        .map_or(f64::NAN, |e| e.usd.as_usd());
    assert!(close(
        gpu_hour(&ca),
        purchase / (4.0 * HOURS_PER_YEAR * 0.8)
    ));
    assert_eq!(
        ca.gpu_price.map(|p| p.basis),
        Some(PriceBasis::AmortisedCapex)
    );
}

#[test]
fn rental_ignores_energy_capex_pays_it() {
    let with_kwh = |pricing: Pricing, rental: RentalEnergy, kwh: f64| {
        let mut p = example_plan();
        p.economics.pricing = pricing;
        p.economics.energy = Energy {
            usd_per_kwh: Some(Usd::new(kwh)),
            rental,
            ..Energy::default()
        };
        cost(&evaluate(&p))
    };
    let rental = Pricing::default();
    let (cheap, dear) = (
        with_kwh(rental, RentalEnergy::Included, 0.05),
        with_kwh(rental, RentalEnergy::Included, 0.50),
    );
    assert_eq!(cheap.usd_per_hour, dear.usd_per_hour);
    assert_eq!(cheap.energy.billing, EnergyBilling::IncludedInRental);
    assert!(usd(dear.energy.usd_per_hour) > usd(cheap.energy.usd_per_hour));

    let billed = with_kwh(rental, RentalEnergy::Billed, 0.50);
    assert!(close(
        usd(billed.usd_per_hour),
        usd(dear.usd_per_hour) + usd(billed.energy.usd_per_hour)
    ));

    let (cheap, dear) = (
        with_kwh(capex(0.7), RentalEnergy::Included, 0.05),
        with_kwh(capex(0.7), RentalEnergy::Included, 0.50),
    );
    assert_eq!(dear.energy.billing, EnergyBilling::Charged);
    assert!(close(
        usd(dear.usd_per_hour) - usd(cheap.usd_per_hour),
        usd(dear.energy.usd_per_hour) - usd(cheap.energy.usd_per_hour)
    ));
}

#[test]
fn energy_is_tdp_times_overheads_at_the_meter() {
    let c = cost(&evaluate(&example_plan()));
    let e = Energy::default();
    let tdp = catalog::gpu(GpuId::H100Sxm).spec.tdp.as_watts();
    let watts = 8.0 * tdp * (1.0 + e.node_overhead) * e.average_power_fraction * e.pue;
    assert!(close(c.energy.power.as_watts(), watts));
    let kwh = catalog::default_price(PricedItem::ElectricityKwh, PriceKind::Purchase)
        .map_or(f64::NAN, |p| p.usd.as_usd());
    assert!(close(usd(c.energy.usd_per_hour), watts / 1000.0 * kwh));
}

fn custom_gpu_plan() -> Plan {
    let mut p = example_plan();
    p.hardware.gpu = GpuChoice::Custom(CustomGpu {
        name: "future GPU".into(),
        spec: catalog::gpu(GpuId::H100Sxm).spec,
    });
    p
}

#[test]
fn a_custom_gpu_without_price_gets_no_made_up_cost() {
    let r = evaluate(&custom_gpu_plan());
    let c = cost(&r);
    assert!(c.gpu_price.is_none());
    assert!(c.usd_per_hour.is_none());
    assert!(c.usd_per_million_tokens.is_none());
    assert!(c.usd_per_step.is_none() && c.usd_per_run.is_none());
    // What needs no GPU price is still there.
    assert!(c.gpu_hours_per_run.is_some());
    assert!(c.energy.power.as_watts() > 0.0);
    assert!(c.engineering_usd.is_some());
    assert!(r.diagnostics.iter().any(|d| matches!(
        &d.detail,
        DiagnosticKind::NoGpuPrice { gpu, field, .. }
            if gpu == "future GPU" && field == "economics.pricing.rental.usd_per_gpu_hour"
    )));
    assert_ne!(r.verdict, Verdict::Invalid);

    // With a price in the plan, the cost is back.
    let mut p = custom_gpu_plan();
    p.economics.pricing = Pricing::Rental {
        usd_per_gpu_hour: Some(Usd::new(3.0)),
    };
    let c = cost(&evaluate(&p));
    assert_eq!(usd(c.usd_per_hour), 24.0);
    assert_eq!(c.gpu_price.and_then(|p| p.source.provenance), None);
}

#[test]
fn a_gpu_without_a_catalog_rental_price_is_left_out_too() {
    let mut p = example_plan();
    p.hardware.gpu = GpuChoice::Preset(GpuId::V100Pcie32);
    assert!(
        catalog::default_price(PricedItem::Gpu(GpuId::V100Pcie32), PriceKind::RentalPerHour)
            .is_none()
    );
    let r = evaluate(&p);
    assert!(cost(&r).usd_per_hour.is_none());
    assert!(r
        .diagnostics
        .iter()
        .any(|d| matches!(d.detail, DiagnosticKind::NoGpuPrice { .. })));
}

#[test]
fn cxl_is_bought_and_amortised() {
    let mut p = example_plan();
    p.economics.pricing = capex(0.5);
    let base = cost(&evaluate(&p));
    let device = catalog::CxlId::MicronCz120_256;
    p.hardware.cxl = Some(CxlExpansion {
        devices_per_node: 4,
        device: CxlChoice::Preset(device),
    });
    let with = cost(&evaluate(&p));
    let gb = 4.0 * catalog::cxl_device(device).spec.capacity.as_gb();
    assert!(close(with.memory.cxl.as_gb(), gb));
    let per_gb = catalog::default_price(PricedItem::CxlGb, PriceKind::Purchase)
        .map_or(f64::NAN, |e| e.usd.as_usd());
    let hourly = gb * per_gb / (4.0 * HOURS_PER_YEAR * 0.5);
    assert!(close(usd(with.memory.usd_per_hour), hourly));
    assert!(close(
        usd(with.usd_per_hour) - usd(base.usd_per_hour),
        hourly
    ));
    assert_eq!(with.migration, MigrationClass::InfrastructureChange);
    assert!(with.effort.iter().any(|e| e.lever == Lever::CxlExpansion));
}

#[test]
fn memory_added_to_a_rental_plan_is_flagged() {
    let mut p = example_plan();
    p.hardware.host_dram_per_node = planner_core::units::Bytes::from_tb(4.0);
    let r = evaluate(&p);
    let c = cost(&r);
    assert!(close(c.memory.host_dram.as_gb(), 2000.0));
    assert!(usd(c.memory.usd_per_hour) > 0.0);
    assert!(r
        .diagnostics
        .iter()
        .any(|d| matches!(d.detail, DiagnosticKind::RentalMemoryAmortised { .. })));
}

#[test]
fn turning_on_tp_raises_the_migration_class() {
    let before = cost(&evaluate(&example_plan()));
    assert_eq!(before.migration, MigrationClass::Configuration);
    let mut p = example_plan();
    p.levers.parallel.tp = 2;
    p.levers.parallel.dp = 4;
    let after = cost(&evaluate(&p));
    assert!(after.migration > before.migration);
    assert_eq!(after.migration, MigrationClass::ModelCodeChange);
    assert!(after.person_weeks > before.person_weeks);
    let rate = usd(after.usd_per_person_week);
    assert!(close(usd(after.engineering_usd), after.person_weeks * rate));
}

#[test]
fn effort_overrides_and_rates_come_from_the_plan() {
    let mut p = example_plan();
    p.economics.engineering = Engineering {
        usd_per_person_week: Some(Usd::new(1000.0)),
        effort: vec![EffortOverride {
            lever: Lever::Sharding,
            person_weeks: 2.0,
        }],
    };
    let c = cost(&evaluate(&p));
    // Sharding 2 (set) + checkpointing 0.5 (assumed).
    assert!(close(c.person_weeks, 2.5));
    assert_eq!(usd(c.engineering_usd), 2500.0);
    assert_eq!(usd(c.one_time_usd), 2500.0);
}

#[test]
fn families_of_plans() {
    let base = example_plan();
    let mut hw = base.clone();
    hw.hardware.gpu = GpuChoice::Preset(GpuId::H200Sxm);
    assert_eq!(family(&hw, &base), PlanFamily::Hardware);
    let mut sw = base.clone();
    sw.levers.checkpointing = planner_core::plan::Checkpointing::Full;
    assert_eq!(family(&sw, &base), PlanFamily::Algorithmic);
    let mut both = hw.clone();
    both.levers.checkpointing = planner_core::plan::Checkpointing::Full;
    assert_eq!(family(&both, &base), PlanFamily::Hybrid);
    assert_eq!(family(&base, &base), PlanFamily::Baseline);
    let mut distilled = base.clone();
    distilled.distillation = Some(Distillation {
        student: ModelChoice::Preset(ModelId::Llama31_8b),
        tokens: 1e9,
    });
    assert_eq!(family(&distilled, &base), PlanFamily::Algorithmic);
    // Against the base plan, a GPU change is one infrastructure lever.
    let e = effort::efforts(&hw, &base, &Engineering::default());
    assert_eq!(e.len(), 1);
    assert_eq!(
        effort::migration_class(&e),
        MigrationClass::InfrastructureChange
    );
}

fn distilled(tokens: f64) -> Plan {
    let mut p = serving(ModelId::Llama31_70b);
    p.hardware.gpus = 1;
    p.distillation = Some(Distillation {
        student: ModelChoice::Preset(ModelId::Llama31_8b),
        tokens,
    });
    p
}

#[test]
fn distillation_runs_the_student() {
    let student = evaluate(&serving(ModelId::Llama31_8b));
    let teacher = evaluate(&serving(ModelId::Llama31_70b));
    let r = evaluate(&distilled(1e10));
    let weights = |r: &Report| r.devices[0].of_kind(ItemKind::Weights).as_bytes();
    assert_eq!(weights(&r), weights(&student));
    assert!(weights(&teacher) > 5.0 * weights(&r));
    assert_eq!(r.params, student.params);
    assert_eq!(r.model, student.model);
    assert_eq!(r.distilled_from.as_deref(), Some(teacher.model.as_str()));
    assert_eq!(r.verdict, Verdict::Fits);
    assert_eq!(r.time, student.time);

    let c = cost(&r);
    let d = c.distillation.clone();
    let spec = |id| catalog::model(id).spec;
    let active = |id| spec(id).params().active_non_embedding(&spec(id));
    let flops = 1e10 * (2.0 * active(ModelId::Llama31_70b) + 6.0 * active(ModelId::Llama31_8b));
    assert_eq!(d.as_ref().map(|d| d.flops.base()), Some(flops));
    assert_eq!(
        d.as_ref().map(|d| d.teacher.clone()),
        r.distilled_from.clone()
    );
    // At the plan's all-in GPU-hour price.
    let gpu_hours = d.as_ref().map_or(f64::NAN, |d| d.gpu_hours.as_gpu_hours());
    assert!(gpu_hours > 0.0);
    assert!(close(
        usd(d.as_ref().and_then(|d| d.usd)),
        gpu_hours * usd(c.usd_per_hour)
    ));
    assert!(close(
        usd(c.one_time_usd),
        usd(d.and_then(|d| d.usd)) + usd(c.engineering_usd)
    ));
    assert!(c.effort.iter().any(|e| e.lever == Lever::Distillation));
    assert_eq!(c.migration, MigrationClass::ModelCodeChange);
}

#[test]
fn distillation_checks() {
    // Non-positive tokens: an error and the default budget.
    let r = evaluate(&distilled(0.0));
    assert_eq!(r.verdict, Verdict::Invalid);
    assert!(r.diagnostics.iter().any(|d| d.severity == Severity::Error
        && matches!(&d.detail, DiagnosticKind::InvalidValue { field, .. } if field == "distillation.tokens")));
    assert_eq!(
        cost(&r).distillation.map(|d| d.tokens),
        Some(planner_core::plan::default_distillation_tokens())
    );
    // A student larger than its teacher: a warning.
    let mut p = serving(ModelId::Llama31_8b);
    p.hardware.gpus = 1;
    p.distillation = Some(Distillation {
        student: ModelChoice::Preset(ModelId::Llama31_70b),
        tokens: 1e9,
    });
    let r = evaluate(&p);
    assert!(r.diagnostics.iter().any(|d| d.severity == Severity::Warning
        && matches!(d.detail, DiagnosticKind::StudentLargerThanTeacher { .. })));
}

#[test]
fn bad_economics_are_reported_and_defaulted() {
    let mut p = example_plan();
    p.economics.pricing = Pricing::Capex {
        usd_per_gpu: Some(Usd::new(-5.0)),
        horizon_years: 0.0,
        utilisation: 0.0,
    };
    p.economics.energy.pue = 0.5;
    p.economics.energy.average_power_fraction = f64::NAN;
    p.economics.engineering.effort = vec![EffortOverride {
        lever: Lever::Sharding,
        person_weeks: -1.0,
    }];
    let r = evaluate(&p);
    assert_eq!(r.verdict, Verdict::Invalid);
    let bad: Vec<&str> = r
        .diagnostics
        .iter()
        .filter_map(|d| match &d.detail {
            DiagnosticKind::InvalidValue { field, .. } => Some(field.as_str()),
            _ => None,
        })
        .collect();
    for field in [
        "economics.pricing.capex.usd_per_gpu",
        "economics.pricing.capex.horizon_years",
        "economics.pricing.capex.utilisation",
        "economics.energy.pue",
        "economics.energy.average_power_fraction",
        "economics.engineering.effort.person_weeks",
    ] {
        assert!(bad.contains(&field), "{field} not reported: {bad:?}");
    }
    // The defaults are used instead.
    let mut good = example_plan();
    good.economics.pricing = capex(0.7);
    let (c, g) = (cost(&r), cost(&evaluate(&good)));
    assert_eq!(c.usd_per_hour, g.usd_per_hour);
    assert_eq!(c.person_weeks, g.person_weeks);
}

#[test]
fn reports_and_economics_survive_json() {
    let mut p = distilled(1e10);
    p.economics.pricing = capex(0.6);
    let r = evaluate(&p);
    let back: Result<Report, _> = serde_json::from_str(&r.to_json());
    assert_eq!(back.ok(), Some(r.clone()));
    let back = Plan::from_json(&p.to_json());
    assert_eq!(back.ok(), Some(p));
    // The JSON names the price's source and date.
    let json = r.to_json();
    assert!(json.contains("\"basis\": \"amortised_capex\""));
    assert!(json.contains("\"provenance\": \"secondary\""));
}

#[test]
fn an_old_plan_without_the_new_fields_still_parses() {
    let p = example_plan();
    let mut v: serde_json::Value = serde_json::from_str(&p.to_json()).unwrap_or_default();
    if let Some(o) = v.as_object_mut() {
        assert!(o.remove("economics").is_some());
        assert!(o.remove("distillation").is_some());
    }
    let old = v.to_string();
    assert!(!old.contains("economics"));
    let parsed = Plan::from_json(&old);
    assert_eq!(parsed.as_ref().ok(), Some(&p));
    // And it survives a round trip.
    let again = parsed.map(|q| q.to_json()).unwrap_or_default();
    assert_eq!(Plan::from_json(&again).ok(), Some(p));
    // An old report without a cost parses too.
    let r = evaluate(&example_plan());
    let mut v: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap_or_default();
    if let Some(o) = v.as_object_mut() {
        o.remove("cost");
        o.remove("distilled_from");
    }
    let old: Result<Report, _> = serde_json::from_value(v);
    assert_eq!(old.ok().map(|r| r.cost), Some(None));
}

#[test]
fn economics_in_json_by_hand() {
    let mut v: serde_json::Value =
        serde_json::from_str(&example_plan().to_json()).unwrap_or_default();
    v["economics"] = serde_json::json!({
        "pricing": {"capex": {"usd_per_gpu": 25000}},
        "energy": {"usd_per_kwh": 0.12, "pue": 1.2}
    });
    v["distillation"] = serde_json::json!({"student": {"preset": "llama2-7b"}});
    let p = Plan::from_json(&v.to_string());
    let p = p.expect("economics and distillation parse");
    assert_eq!(
        p.economics.pricing,
        Pricing::Capex {
            usd_per_gpu: Some(Usd::new(25_000.0)),
            horizon_years: 4.0,
            utilisation: 0.7,
        }
    );
    assert_eq!(p.economics.energy.average_power_fraction, 0.76);
    assert_eq!(
        p.distillation.map(|d| d.tokens),
        Some(planner_core::plan::default_distillation_tokens())
    );
}

fn arbitrary_number() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(0.0),
        Just(-1.0),
        Just(f64::NAN),
        Just(f64::INFINITY),
        0.0f64..2.0,
        0.0f64..1e6,
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever the economic inputs, every dollar figure is finite and
    /// non-negative, or absent.
    #[test]
    fn cost_is_total(
        a in arbitrary_number(), b in arbitrary_number(), c in arbitrary_number(),
        d in arbitrary_number(), e in arbitrary_number(), rental in any::<bool>(),
        custom in any::<bool>(), tokens in arbitrary_number(),
    ) {
        let mut p = if custom { custom_gpu_plan() } else { example_plan() };
        p.economics.pricing = if rental {
            Pricing::Rental { usd_per_gpu_hour: Some(Usd::new(a)) }
        } else {
            Pricing::Capex { usd_per_gpu: Some(Usd::new(a)), horizon_years: b, utilisation: c }
        };
        p.economics.energy = Energy {
            usd_per_kwh: Some(Usd::new(d)),
            pue: e,
            average_power_fraction: c,
            node_overhead: b,
            rental: RentalEnergy::Billed,
        };
        p.economics.memory.cxl_usd_per_gb = Some(Usd::new(d));
        p.distillation = Some(Distillation {
            student: ModelChoice::Preset(ModelId::Llama2_7b),
            tokens,
        });
        p.hardware.cxl = Some(CxlExpansion {
            devices_per_node: 2,
            device: CxlChoice::Preset(catalog::CxlId::MicronCz120_128),
        });
        let r = evaluate(&p);
        let c = cost(&r);
        let dist = c.distillation.clone();
        for v in [
            c.usd_per_hour, c.usd_per_step, c.usd_per_run, c.usd_per_million_tokens,
            c.energy.usd_per_hour, c.memory.usd_per_hour, c.memory.capex,
            c.engineering_usd, c.one_time_usd, dist.as_ref().and_then(|d| d.usd),
        ].into_iter().flatten() {
            prop_assert!(v.as_usd().is_finite() && v.as_usd() >= 0.0, "{:?}", c);
        }
        prop_assert!(c.energy.power.as_watts().is_finite());
        prop_assert!(dist.as_ref().is_some_and(|d| d.gpu_hours.as_gpu_hours().is_finite() && d.tokens > 0.0));
    }
}

#[test]
fn energy_prices_and_engineering_rates_are_in_the_catalog() {
    for item in [
        PricedItem::ElectricityKwh,
        PricedItem::EngineerWeek,
        PricedItem::CxlGb,
        PricedItem::DramGb,
    ] {
        let p = catalog::default_price(item, PriceKind::Purchase);
        assert!(
            p.is_some_and(|p| p.usd.as_usd() > 0.0 && !p.date.is_empty()),
            "{item:?}"
        );
    }
}

/// A plan is priced on one market's clouds: an RTX 4090 at RunPod's rate
/// by default and at AutoDL's in China (yuan at the catalog's rate); an
/// H20 on its only market, China, unless told otherwise; an H100 in China
/// has no price, and the note names the market. The serving search's
/// other GPU kinds are the base plan's market's only, each priced there.
#[test]
fn plans_are_priced_on_one_market() {
    use planner_core::catalog::Market;
    let rent = |gpu: GpuId, market: Option<Market>| {
        let mut p = planner_core::example_plan();
        p.hardware.gpu = planner_core::hardware::GpuChoice::Preset(gpu);
        p.economics.market = market;
        let r = evaluate(&p);
        let price = r.cost.as_ref().and_then(|c| c.gpu_price.clone());
        (price, r.diagnostics)
    };
    let usd = |gpu, m| rent(gpu, m).0.map(|p| p.usd_per_gpu_hour.as_usd());
    assert_eq!(
        usd(GpuId::Rtx4090, None),
        usd(GpuId::Rtx4090, Some(Market::Global))
    );
    let cn = usd(GpuId::Rtx4090, Some(Market::China)).unwrap_or_default();
    assert!(
        (cn - 1.98 / planner_core::catalog::CNY_PER_USD).abs() < 1e-12,
        "{cn}"
    );
    let (h20, _) = rent(GpuId::H20, None);
    assert_eq!(h20.and_then(|p| p.source.market), Some(Market::China));
    assert!(usd(GpuId::H20, Some(Market::Global)).is_none());
    let (none, diags) = rent(GpuId::H100Sxm, Some(Market::China));
    assert!(none.is_none());
    assert!(diags.iter().any(|d| matches!(
        d.detail,
        DiagnosticKind::NoGpuPrice {
            market: Some(Market::China),
            ..
        }
    ) && d.message.contains("clouds in China")));

    let mut s = planner_core::search::example_serving_scenario();
    let kinds = |s: &planner_core::search::ServingScenario| -> Vec<(GpuId, Market)> {
        planner_core::search::on_each_gpu_kind(s)
            .iter()
            .skip(1)
            .filter_map(|w| {
                let m = planner_core::market_of(&w.base);
                w.base.hardware.gpu.preset().map(|g| (g, m))
            })
            .collect()
    };
    let global = kinds(&s);
    assert!(
        global.iter().all(|(_, m)| *m == Market::Global),
        "{global:?}"
    );
    assert!(!global
        .iter()
        .any(|(g, _)| *g == GpuId::H20 || *g == GpuId::Ascend910b));
    s.base.hardware.gpu = planner_core::hardware::GpuChoice::Preset(GpuId::H20);
    let china = kinds(&s);
    assert!(china.iter().all(|(_, m)| *m == Market::China), "{china:?}");
    assert!(china.iter().any(|(g, _)| *g == GpuId::Ascend910b));
    assert!(china.iter().any(|(g, _)| *g == GpuId::Rtx4090));
    assert!(!china.iter().any(|(g, _)| *g == GpuId::H100Sxm));
}
