//! Dated prices. Prices are scenario inputs, not facts: each carries the date
//! it was seen and its source, and the planner lets the user override it.

use super::{GpuId, Provenance};
use crate::units::Usd;
use serde::{Deserialize, Serialize};

/// What a price is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum PricedItem {
    /// One accelerator of a kind.
    Gpu(GpuId),
    /// One GB (10^9 B) of server DRAM.
    DramGb,
    /// One GB of CXL-attached memory (DRAM plus controller premium).
    CxlGb,
    /// One kWh of electricity delivered to a data centre.
    ElectricityKwh,
    /// One person-week of engineering time, fully loaded.
    EngineerWeek,
}

/// Rental or purchase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum PriceKind {
    /// Dollars per item-hour (cloud rental).
    RentalPerHour,
    /// Dollars per item, bought outright (or per unit consumed: a kWh, a
    /// person-week).
    Purchase,
}

/// Where a price is paid: the clouds of one market charge in its currency
/// and rent the parts sold there (the H20, H800, A800, L20 and Ascend parts
/// are rented in China; a price seen there is not one a team elsewhere can
/// pay, nor the other way round).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Market {
    /// Clouds outside China, priced in dollars.
    Global,
    /// Clouds in China, priced in yuan (converted at [`CNY_PER_USD`]).
    China,
}

crate::lang::named!(Market {
    Market::Global => "global", "clouds outside China", "海外云";
    Market::China => "china", "clouds in China", "国内云";
});

/// One dated price.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PriceEntry {
    /// What is priced.
    pub item: PricedItem,
    /// Rental or purchase.
    pub kind: PriceKind,
    /// The price (midpoint of the quoted range, where a range was quoted).
    pub usd: Usd,
    /// When the price was seen: ISO date, year-month, year, or a range of
    /// years written `YYYY/YYYY`.
    pub date: &'static str,
    /// Where it comes from.
    pub source: &'static str,
    /// How it was checked.
    pub provenance: Provenance,
    /// The market whose clouds charge it.
    pub market: Market,
}

/// Per-GPU-hour price from an 8-GPU instance price.
const fn per_gpu_of_8(instance_per_hour: f64) -> Usd {
    Usd::new(instance_per_hour / 8.0)
}

/// Yuan per US dollar: the People's Bank of China's USD/CNY central parity
/// of 26 March 2026, 6.9056 (as reported by Fazen Markets, "PBOC Sets
/// USD/CNY Mid-Point at 6.9056"). Every price quoted in yuan below is
/// converted at this one rate, whatever its own date.
pub const CNY_PER_USD: f64 = 6.9056;

/// A price in yuan, in dollars at [`CNY_PER_USD`].
const fn cny(yuan: f64) -> Usd {
    Usd::new(yuan / CNY_PER_USD)
}

/// Hours in a month of a monthly lease (8,760 / 12).
const HOURS_PER_MONTH: f64 = 730.0;

/// Per-GPU-hour price, in dollars, of an 8-GPU server leased by the month
/// for `yuan_per_month`.
const fn cny_month_per_gpu_of_8(yuan_per_month: f64) -> Usd {
    Usd::new(yuan_per_month / 8.0 / HOURS_PER_MONTH / CNY_PER_USD)
}

/// The price table.
///
/// Order matters: for each (item, kind) the entry listed first is the
/// default that [`default_price`] returns; later entries are alternatives a
/// report can show. Rental defaults are neo-cloud on-demand midpoints where
/// we have them (what a small team would pay), with the AWS rates after
/// them; purchase prices are midpoints of the reported street ranges.
#[rustfmt::skip]
pub static PRICES: &[PriceEntry] = &[
    // Cloud rental, per GPU-hour.
    PriceEntry {
        item: PricedItem::Gpu(GpuId::A100Sxm80), kind: PriceKind::RentalPerHour,
        usd: Usd::new(1.89), date: "2025",
        source: "Neo-cloud on-demand A100 80GB (Lambda, RunPod and similar), range $1.29–2.49/GPU-h; midpoint",
        provenance: Provenance::Secondary,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::A100Sxm40), kind: PriceKind::RentalPerHour,
        usd: per_gpu_of_8(14.75), date: "2025-01",
        source: "AWS EC2 Capacity Blocks price list, p4d.24xlarge (8 × A100 40GB) at $14.75/h, rates listed through 2025-01-01",
        provenance: Provenance::Secondary,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::A100Sxm40), kind: PriceKind::RentalPerHour,
        usd: per_gpu_of_8(32.77), date: "2020/2025",
        source: "AWS EC2 on-demand price list, p4d.24xlarge (8 × A100 40GB) in us-east-1 at about $32.77/h (list price unchanged 2020–2025, recalled)",
        provenance: Provenance::Recalled,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::H100Sxm), kind: PriceKind::RentalPerHour,
        usd: Usd::new(2.74), date: "2025",
        source: "Neo-cloud on-demand H100 SXM (Lambda ≈$2.99, RunPod and similar), range $1.49–3.99/GPU-h over 2025–26; midpoint",
        provenance: Provenance::Secondary,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::H100Sxm), kind: PriceKind::RentalPerHour,
        usd: per_gpu_of_8(39.33), date: "2025-01",
        source: "AWS EC2 Capacity Blocks price list, p5.48xlarge (8 × H100) at $39.33/h, rates listed through 2025-01-01",
        provenance: Provenance::Secondary,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::H100Sxm), kind: PriceKind::RentalPerHour,
        usd: per_gpu_of_8(98.32), date: "2023-07",
        source: "AWS EC2 on-demand, p5.48xlarge (8 × H100) at $98.32/h at launch; AWS announced cuts of up to 45% in June 2025 (≈$6.9/GPU-h if the full cut applies)",
        provenance: Provenance::Secondary,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::H200Sxm), kind: PriceKind::RentalPerHour,
        usd: Usd::new(4.0), date: "2025",
        source: "Neo-cloud on-demand H200, roughly $3–5/GPU-h; midpoint, uncertain",
        provenance: Provenance::Secondary,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::H200Sxm), kind: PriceKind::RentalPerHour,
        usd: per_gpu_of_8(43.26), date: "2025-01",
        source: "AWS EC2 Capacity Blocks price list, p5e.48xlarge (8 × H200) at $43.26/h, rates listed through 2025-01-01",
        provenance: Provenance::Secondary,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::B200), kind: PriceKind::RentalPerHour,
        usd: Usd::new(5.5), date: "2025",
        source: "Neo-cloud on-demand B200, roughly $4–7/GPU-h; midpoint, uncertain",
        provenance: Provenance::Secondary,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::B300), kind: PriceKind::RentalPerHour,
        usd: Usd::new(6.125), date: "2026",
        source: "Ornn GPU rental benchmark as reported in 'NVIDIA B200 vs B300: Why use one instead of the other?' (ornnai.com/research, 2026): B300 on-demand $5.00–7.25/GPU-h across neo-clouds; midpoint",
        provenance: Provenance::Secondary,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::Gb200), kind: PriceKind::RentalPerHour,
        usd: Usd::new(42.0 / 4.0), date: "2026-02",
        source: "CoreWeave on-demand list price of a GB200 NVL72 instance (a 4-GPU slice of the rack), $42.00/h, as tabulated in Kael Research, 'GPU Economics: What Inference Actually Costs in 2026' (kaelresearch.com, February 2026); per GPU",
        provenance: Provenance::Secondary,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::Gb200), kind: PriceKind::RentalPerHour,
        usd: Usd::new(9.08 / 2.0), date: "2026-03-17",
        source: "Spheron on-demand GB200 at $9.08/h per Superchip (one Grace CPU, two Blackwell GPUs), Spheron blog 'NVIDIA H200 vs B200 vs GB200', prices as of 17 March 2026; per GPU",
        provenance: Provenance::Secondary,
        market: Market::Global,
    },
    // The GPUs sold in China and consumer cards: AutoDL's and China
    // Telecom's yuan prices at `CNY_PER_USD`; the rest from providers'
    // pricing pages as third parties transcribed them, each dated.
    PriceEntry {
        item: PricedItem::Gpu(GpuId::H20), kind: PriceKind::RentalPerHour,
        usd: cny(6.98), date: "2026-03-28",
        source: "AutoDL (China) on-demand member price (about 5% under list), ¥6.98 per card-hour, as surveyed on 2026-03-28 in zjw49246/gpu-hire docs/autodl-provider-design.md; at ¥6.9056/$",
        provenance: Provenance::Secondary,
        market: Market::China,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::H800Sxm), kind: PriceKind::RentalPerHour,
        usd: cny(8.88), date: "2026-03-28",
        source: "AutoDL (China) on-demand member price (about 5% under list), ¥8.88 per card-hour for an H800 SXM, as surveyed on 2026-03-28 in zjw49246/gpu-hire docs/autodl-provider-design.md; at ¥6.9056/$",
        provenance: Provenance::Secondary,
        market: Market::China,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::H800Sxm), kind: PriceKind::RentalPerHour,
        usd: cny_month_per_gpu_of_8(70_000.0), date: "2025-04",
        source: "China Telecom Jiangsu compute-market page: ¥70,000 a month for one server of 8 × H800 80GB (Hppppppf/jsctyun_gpu exampleSite/content/english/market/_index.md, 2025); per GPU over 730 hours, at ¥6.9056/$",
        provenance: Provenance::Secondary,
        market: Market::China,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::A800Sxm80), kind: PriceKind::RentalPerHour,
        usd: cny(4.98), date: "2026-03-28",
        source: "AutoDL (China) on-demand member price (about 5% under list), ¥4.98 per card-hour for an A800 80GB (form factor not stated), as surveyed on 2026-03-28 in zjw49246/gpu-hire docs/autodl-provider-design.md; at ¥6.9056/$",
        provenance: Provenance::Secondary,
        market: Market::China,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::A800Sxm80), kind: PriceKind::RentalPerHour,
        usd: cny_month_per_gpu_of_8(35_000.0), date: "2025-04",
        source: "China Telecom Jiangsu compute-market page: ¥35,000 a month for one server of 8 × A800 80GB (Hppppppf/jsctyun_gpu exampleSite/content/english/market/_index.md, 2025); per GPU over 730 hours, at ¥6.9056/$",
        provenance: Provenance::Secondary,
        market: Market::China,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::L20), kind: PriceKind::RentalPerHour,
        usd: cny(3.68), date: "2026-03-28",
        source: "AutoDL (China) on-demand member price (about 5% under list), ¥3.68 per card-hour, as surveyed on 2026-03-28 in zjw49246/gpu-hire docs/autodl-provider-design.md; at ¥6.9056/$",
        provenance: Provenance::Secondary,
        market: Market::China,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::Ascend910b), kind: PriceKind::RentalPerHour,
        usd: cny_month_per_gpu_of_8(29_000.0), date: "2025-04",
        source: "China Telecom Jiangsu compute-market page: ¥28,000–30,000 a month for one Atlas 800T A2 server of 8 × Ascend 910B (313 and 376 TFLOPS variants; Hppppppf/jsctyun_gpu exampleSite/content/english/market/_index.md, 2025); midpoint, per NPU over 730 hours, at ¥6.9056/$. A monthly lease: on-demand hours cost more",
        provenance: Provenance::Secondary,
        market: Market::China,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::Rtx4090), kind: PriceKind::RentalPerHour,
        usd: Usd::new((0.34 + 0.74) / 2.0), date: "2026-09-25",
        source: "RunPod on-demand RTX 4090, $0.34 (Community Cloud) and $0.74 (Secure Cloud) per GPU-hour (runpod.io/pricing as transcribed on 2026-09-25 in tgarg01/silybench-data derived/csv/gpu_prices.csv); midpoint",
        provenance: Provenance::Secondary,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::Rtx4090), kind: PriceKind::RentalPerHour,
        usd: cny(1.98), date: "2026-03-28",
        source: "AutoDL (China) on-demand member price (about 5% under list), ¥1.98 per card-hour, as surveyed on 2026-03-28 in zjw49246/gpu-hire docs/autodl-provider-design.md; at ¥6.9056/$",
        provenance: Provenance::Secondary,
        market: Market::China,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::Rtx4090d), kind: PriceKind::RentalPerHour,
        usd: cny(1.88), date: "2026-08-21",
        source: "AutoDL (China) on-demand RTX 4090D 24GB, about ¥1.88–1.98 per card-hour as a project's AutoDL environment notes of 2026-08-21 record it (¥1.88 taken; other users' records: ¥1.88 and ¥1.68; AutoDL's monthly rate, ¥946 a card, is ¥1.31 an hour); at ¥6.9056/$",
        provenance: Provenance::Secondary,
        market: Market::China,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::Rtx5090), kind: PriceKind::RentalPerHour,
        usd: Usd::new(0.86), date: "2026-05-03",
        source: "Spheron on-demand RTX 5090 'from $0.86/hr', prices as of 3 May 2026 (Spheron blog, 'RTX 5090 vs RTX 4090')",
        provenance: Provenance::Secondary,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::Rtx5090), kind: PriceKind::RentalPerHour,
        usd: cny(2.88), date: "2026-03-28",
        source: "AutoDL (China) on-demand member price (about 5% under list), ¥2.88 per card-hour, as surveyed on 2026-03-28 in zjw49246/gpu-hire docs/autodl-provider-design.md; at ¥6.9056/$",
        provenance: Provenance::Secondary,
        market: Market::China,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::Rtx3090), kind: PriceKind::RentalPerHour,
        usd: cny((1.32 + 1.58) / 2.0), date: "2026-03-28",
        source: "AutoDL (China) on-demand member price (about 5% under list), ¥1.32–1.58 per card-hour, as surveyed on 2026-03-28 in zjw49246/gpu-hire docs/autodl-provider-design.md; midpoint, at ¥6.9056/$",
        provenance: Provenance::Secondary,
        market: Market::China,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::V100Sxm2_16), kind: PriceKind::RentalPerHour,
        usd: Usd::new(0.79), date: "2026-09-20",
        source: "Lambda on-demand 8 × Tesla V100 16GB at $0.79 per GPU-hour (lambda.ai/instances as transcribed on 2026-09-20 in api-evangelist/lambda-labs plans/lambda-labs-plans-pricing.yml)",
        provenance: Provenance::Secondary,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::V100Sxm2_32), kind: PriceKind::RentalPerHour,
        usd: cny(2.28), date: "2026-03-28",
        source: "AutoDL (China) on-demand member price (about 5% under list), ¥2.28 per card-hour for a V100 32GB (form factor not stated), as surveyed on 2026-03-28 in zjw49246/gpu-hire docs/autodl-provider-design.md; at ¥6.9056/$",
        provenance: Provenance::Secondary,
        market: Market::China,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::L40s), kind: PriceKind::RentalPerHour,
        usd: Usd::new((0.79 + 1.09) / 2.0), date: "2026-09-25",
        source: "RunPod on-demand L40S, $0.79 (Community Cloud) and $1.09 (Secure Cloud) per GPU-hour (runpod.io/pricing as transcribed on 2026-09-25 in tgarg01/silybench-data derived/csv/gpu_prices.csv); midpoint",
        provenance: Provenance::Secondary,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::L4), kind: PriceKind::RentalPerHour,
        usd: Usd::new(0.44), date: "2026-03-10",
        source: "RunPod L4, $0.44 per GPU-hour (deploybase.ai, 'RunPod GPU Pricing', 2026-03-10: the column it calls spot, which carries RunPod's Community Cloud rates for the cards priced here from runpod.io; its 'on-demand' column is $0.78); Google Cloud Run bills an L4 at about $0.67 an hour of use (brandonseppa.com, 2026-04)",
        provenance: Provenance::Secondary,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::T4), kind: PriceKind::RentalPerHour,
        usd: Usd::new(0.35), date: "2026-03-31",
        source: "Google Cloud T4, $0.35 per GPU-hour on demand, the GPU alone (an N1 machine's vCPUs and memory are billed apart), as computeprices.com tabulated it on 2026-03-31 (its cheapest T4 listing; AWS's g4dn.xlarge, one T4 with its host, $0.53 on 2026-04-08)",
        provenance: Provenance::Secondary,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::RtxPro6000), kind: PriceKind::RentalPerHour,
        usd: Usd::new(0.89), date: "2026-03-10",
        source: "RunPod RTX PRO 6000 (96 GB), $0.89 per GPU-hour (deploybase.ai, 'RunPod GPU Pricing', 2026-03-10: the column it calls spot, which carries RunPod's Community Cloud rates for the cards priced here from runpod.io; its 'on-demand' column is $1.57)",
        provenance: Provenance::Secondary,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::A100Pcie80), kind: PriceKind::RentalPerHour,
        usd: Usd::new((1.19 + 1.59) / 2.0), date: "2026-09-25",
        source: "RunPod on-demand A100 PCIe 80GB, $1.19 (Community Cloud) and $1.59 (Secure Cloud) per GPU-hour (runpod.io/pricing as transcribed on 2026-09-25 in tgarg01/silybench-data derived/csv/gpu_prices.csv); midpoint",
        provenance: Provenance::Secondary,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::H100Pcie), kind: PriceKind::RentalPerHour,
        usd: Usd::new((1.99 + 2.89) / 2.0), date: "2026-09-25",
        source: "RunPod on-demand H100 PCIe, $1.99 (Community Cloud) and $2.89 (Secure Cloud) per GPU-hour (runpod.io/pricing as transcribed on 2026-09-25 in tgarg01/silybench-data derived/csv/gpu_prices.csv); midpoint. Lambda listed $3.29 the same day",
        provenance: Provenance::Secondary,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::H100Nvl), kind: PriceKind::RentalPerHour,
        usd: Usd::new((2.59 + 3.19) / 2.0), date: "2026-09-25",
        source: "RunPod on-demand H100 NVL, $2.59 (Community Cloud) and $3.19 (Secure Cloud) per GPU-hour (runpod.io/pricing as transcribed on 2026-09-25 in tgarg01/silybench-data derived/csv/gpu_prices.csv); midpoint",
        provenance: Provenance::Secondary,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::Gh200_96), kind: PriceKind::RentalPerHour,
        usd: Usd::new(2.29), date: "2026-09-25",
        source: "Lambda on-demand 1 × GH200 96GB at $2.29 per GPU-hour (lambda.ai/pricing as transcribed on 2026-09-25 in tgarg01/silybench-data derived/csv/gpu_prices.csv, and on 2026-09-20 in api-evangelist/lambda-labs)",
        provenance: Provenance::Secondary,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::H200Nvl), kind: PriceKind::RentalPerHour,
        usd: Usd::new(2.83), date: "2026-05-25",
        source: "Massed Compute self-serve 1 × H200 NVL at $2.83/h (8 × $22.64/h), vm.massedcompute.com/pricing as checked on 2026-05-25 in a third-party GPU-cloud price verification note",
        provenance: Provenance::Secondary,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::Mi300x), kind: PriceKind::RentalPerHour,
        usd: Usd::new((1.50 + 1.85) / 2.0), date: "2026-05-18",
        source: "MI300X on demand at $1.50 per GPU-hour at TensorWave and $1.85 at Vultr, as reported by Cliff Center, 'AMD inference economics' (cliffcenter.com/research, 2026-05-18); midpoint",
        provenance: Provenance::Secondary,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::Gaudi2), kind: PriceKind::RentalPerHour,
        usd: per_gpu_of_8(10.40), date: "2025-02-28",
        source: "Intel Tiber AI Cloud, bare-metal on-demand instances bm-icp-gaudi2 / bm-icx-gaudi2 / bm-spr-gaudi2, 8 Gaudi 2 cards at $10.40/h, in Intel's own instance table (intel/gaudi-reference-cloud docs/source/_static/files/df_ai_hl_225_specs.html at 07efbd0, 2025-02-28; 'prices are subject to change')",
        provenance: Provenance::Verified,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::Gaudi3), kind: PriceKind::RentalPerHour,
        usd: per_gpu_of_8(19.92), date: "2025-02-28",
        source: "Intel Tiber AI Cloud, bare-metal on-demand instance bm-gnr-gaudi3-smc, 8 Gaudi 3 cards at $19.92/h, in Intel's own instance table (intel/gaudi-reference-cloud docs/source/_static/files/df_ai_hl_325_specs.html at 07efbd0, 2025-02-28)",
        provenance: Provenance::Verified,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::Mi325x), kind: PriceKind::RentalPerHour,
        usd: Usd::new(1.95), date: "2026-05-18",
        source: "MI325X on demand at $1.95 per GPU-hour at TensorWave, as reported by Cliff Center, 'AMD inference economics' (cliffcenter.com/research, 2026-05-18)",
        provenance: Provenance::Secondary,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::Mi355x), kind: PriceKind::RentalPerHour,
        usd: Usd::new(2.59), date: "2026-07-31",
        source: "Vultr on-demand MI355X, $2.590 per GPU-hour (vultr.com/pricing, cloud GPU table, 'Pricing shown is on-demand'), as captured on 2026-07-31 in a public GPU-price dataset's evidence files; TensorWave listed 'starting at' $2.95 the same day",
        provenance: Provenance::Secondary,
        market: Market::Global,
    },
    // Purchase, per accelerator.
    PriceEntry {
        item: PricedItem::Gpu(GpuId::H100Sxm), kind: PriceKind::Purchase,
        usd: Usd::new(32_500.0), date: "2023/2024",
        source: "Press and analyst reports of H100 SXM street prices, $25k–40k; midpoint",
        provenance: Provenance::Secondary,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::H200Sxm), kind: PriceKind::Purchase,
        usd: Usd::new(32_500.0), date: "2024/2025",
        source: "Press reports of H200 prices, $30k–35k; midpoint",
        provenance: Provenance::Secondary,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::B200), kind: PriceKind::Purchase,
        usd: Usd::new(35_000.0), date: "2024-03",
        source: "Jensen Huang in a CNBC interview (March 2024): $30k–40k per Blackwell GPU; midpoint",
        provenance: Provenance::Secondary,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::B300), kind: PriceKind::Purchase,
        usd: Usd::new(53_000.0), date: "2026",
        source: "Ornn, 'NVIDIA B200 vs B300: Why use one instead of the other?' (ornnai.com/research, 2026): B300 modules reportedly about $53,000 per chip (OEM)",
        provenance: Provenance::Secondary,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::Gb200), kind: PriceKind::Purchase,
        usd: Usd::new(3_450_000.0 / 72.0), date: "2026",
        source: "Ornn, 'NVIDIA B200 vs B300: Why use one instead of the other?' (ornnai.com/research, 2026): a GB200 NVL72 rack (72 GPUs, 36 Grace CPUs) about $3.0–3.9M; midpoint over 72 GPUs (CPUs, switches and cooling included)",
        provenance: Provenance::Computed,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::Mi300x), kind: PriceKind::Purchase,
        usd: Usd::new(12_500.0), date: "2024",
        source: "Press reports of MI300X hyperscaler pricing, $10k–15k; midpoint",
        provenance: Provenance::Secondary,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::Gaudi3), kind: PriceKind::Purchase,
        usd: Usd::new(125_000.0 / 8.0), date: "2024-06",
        source: "Intel at Computex 2024 (as reported): $125k for an 8-accelerator Gaudi 3 UBB kit, ≈$15.6k each",
        provenance: Provenance::Secondary,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::L40s), kind: PriceKind::Purchase,
        usd: Usd::new(8_750.0), date: "2024",
        source: "L40S street price, about $7.5k–10k (recalled, uncertain); midpoint",
        provenance: Provenance::Recalled,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::Rtx3090), kind: PriceKind::Purchase,
        usd: Usd::new(1_499.0), date: "2020-09",
        source: "NVIDIA GeForce RTX 3090 launch MSRP, $1,499",
        provenance: Provenance::Recalled,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::Gpu(GpuId::Rtx4090), kind: PriceKind::Purchase,
        usd: Usd::new(1_599.0), date: "2022-10",
        source: "NVIDIA GeForce RTX 4090 launch MSRP, $1,599",
        provenance: Provenance::Recalled,
        market: Market::Global,
    },
    // Memory, per GB (10^9 B).
    PriceEntry {
        item: PricedItem::DramGb, kind: PriceKind::Purchase,
        usd: Usd::new(3.75), date: "2024",
        source: "Server DDR5 RDIMM before the 2025 price surge, roughly $2.5–5/GB (recalled); midpoint. TrendForce reported contract DRAM +171.8% year on year in Q3 2025, so late-2025 prices are far higher: set your own",
        provenance: Provenance::Recalled,
        market: Market::Global,
    },
    PriceEntry {
        item: PricedItem::CxlGb, kind: PriceKind::Purchase,
        usd: Usd::new(3.75 + 1.25), date: "2024",
        source: "Scenario default: no public list price for CXL expanders was found. DRAM at $3.75/GB plus an assumed $1.25/GB module/controller premium",
        provenance: Provenance::Assumed,
        market: Market::Global,
    },
    // Energy, per kWh.
    PriceEntry {
        item: PricedItem::ElectricityKwh, kind: PriceKind::Purchase,
        usd: Usd::new(0.0806), date: "2023",
        source: "US EIA average retail price of electricity to industrial customers, 2023: 8.06 ¢/kWh (EIA series as charted by Statista, March 2024). State averages run from about 5.8 ¢ (New Mexico) to 35 ¢ (Hawaii) in EIA's Electric Power Annual 2023; commercial customers paid about 12–13 ¢",
        provenance: Provenance::Secondary,
        market: Market::Global,
    },
    // Engineering, per person-week.
    PriceEntry {
        item: PricedItem::EngineerWeek, kind: PriceKind::Purchase,
        usd: Usd::new(8_000.0), date: "2025",
        source: "Scenario default: a US ML engineer at about $300k a year in total compensation, loaded by 1.25 for benefits, office and management overhead, over 47 working weeks (≈ $8k per person-week). Not a published figure: set your own",
        provenance: Provenance::Assumed,
        market: Market::Global,
    },
];

/// The default price for an item: the first entry in [`PRICES`] with this
/// item and kind (the table lists each default first), or `None` if the
/// catalog has no such price.
pub fn default_price(item: PricedItem, kind: PriceKind) -> Option<&'static PriceEntry> {
    PRICES.iter().find(|p| p.item == item && p.kind == kind)
}

/// The default price for an item on one market's clouds: the first entry
/// with this item, kind and market (`None` when that market has none), or
/// [`default_price`] when no market is asked for.
pub fn default_price_in(
    item: PricedItem,
    kind: PriceKind,
    market: Option<Market>,
) -> Option<&'static PriceEntry> {
    match market {
        None => default_price(item, kind),
        Some(m) => PRICES
            .iter()
            .find(|p| p.item == item && p.kind == kind && p.market == m),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_price_is_positive_finite_and_dated() {
        for p in PRICES {
            let v = p.usd.as_usd();
            assert!(v.is_finite() && v > 0.0, "{p:?}");
            assert!(!p.date.is_empty(), "{p:?}");
            assert!(!p.source.is_empty(), "{p:?}");
        }
    }

    #[test]
    fn every_priced_gpu_has_a_usable_default() {
        let mut priced = 0;
        for &id in GpuId::ALL {
            for kind in [PriceKind::RentalPerHour, PriceKind::Purchase] {
                if let Some(p) = default_price(PricedItem::Gpu(id), kind) {
                    priced += 1;
                    assert_eq!(p.item, PricedItem::Gpu(id));
                    assert_eq!(p.kind, kind);
                    let v = p.usd.as_usd();
                    assert!(v.is_finite() && v > 0.0, "{id:?}");
                    assert!(!p.date.is_empty(), "{id:?}");
                }
            }
        }
        assert!(priced > 0);
    }

    #[test]
    fn default_is_the_first_listed() {
        let h100 = PricedItem::Gpu(GpuId::H100Sxm);
        let first = PRICES
            .iter()
            .position(|p| p.item == h100 && p.kind == PriceKind::RentalPerHour);
        let chosen = default_price(h100, PriceKind::RentalPerHour);
        assert_eq!(
            chosen.map(|p| p as *const _),
            first.map(|i| &PRICES[i] as *const _)
        );
        assert!(default_price(PricedItem::Gpu(GpuId::V100Pcie32), PriceKind::Purchase).is_none());
    }

    #[test]
    fn cxl_costs_more_than_dram() {
        let dram = default_price(PricedItem::DramGb, PriceKind::Purchase).map(|p| p.usd.as_usd());
        let cxl = default_price(PricedItem::CxlGb, PriceKind::Purchase).map(|p| p.usd.as_usd());
        assert!(matches!((dram, cxl), (Some(d), Some(c)) if c > d));
    }
    /// Every GPU in the catalog has a dated rental price, so a plan on it
    /// gets a cost without the user's own figure, but the parts no
    /// published on-demand price was found for (2026-12; named here so a
    /// new part cannot slip in unpriced).
    #[test]
    fn every_catalog_gpu_rents_at_a_dated_price_or_is_named_unpriced() {
        const UNPRICED: [GpuId; 5] = [
            GpuId::V100Pcie32,
            // Lambda's one-A10 instance appears at $0.60 and $0.75 an hour
            // in public code, undated: no dated figure was found.
            GpuId::A10,
            GpuId::Gh200_144,
            GpuId::Mi250xGcd,
            GpuId::Ascend910cDie,
        ];
        for &id in GpuId::ALL {
            let rent = default_price(PricedItem::Gpu(id), PriceKind::RentalPerHour);
            if UNPRICED.contains(&id) {
                assert!(rent.is_none(), "{id:?} is priced now: take it off the list");
            } else {
                // A GPU-hour between ten cents and fifty dollars.
                let usd = rent.map(|p| p.usd.as_usd());
                assert!(
                    usd.is_some_and(|u| (0.1..50.0).contains(&u)),
                    "{id:?}: {usd:?}"
                );
            }
        }
    }

    /// A market picks its own clouds' price: the RTX 4090 rents at
    /// RunPod's by default and at AutoDL's in China; the H20 has no price
    /// outside China, the H100 none inside.
    #[test]
    fn each_market_has_its_own_price() {
        let rent = |id, m| {
            default_price_in(PricedItem::Gpu(id), PriceKind::RentalPerHour, m)
                .map(|p| p.usd.as_usd())
        };
        assert_eq!(
            rent(GpuId::Rtx4090, None),
            rent(GpuId::Rtx4090, Some(Market::Global))
        );
        assert_eq!(
            rent(GpuId::Rtx4090, Some(Market::China)),
            Some(cny(1.98).as_usd())
        );
        assert!(rent(GpuId::H20, Some(Market::Global)).is_none());
        assert!(rent(GpuId::H20, Some(Market::China)).is_some());
        assert!(rent(GpuId::H100Sxm, Some(Market::China)).is_none());
    }

    /// Yuan prices convert at the one stated rate: AutoDL's ¥1.98 RTX 4090
    /// card-hour is about 29 cents; a ¥70,000 monthly lease of 8 GPUs is
    /// ¥11.99 a GPU-hour.
    #[test]
    fn yuan_prices_convert_at_the_stated_rate() {
        assert!((cny(1.98).as_usd() - 0.2867).abs() < 1e-4);
        let h800 = cny_month_per_gpu_of_8(70_000.0).as_usd() * CNY_PER_USD;
        assert!((h800 - 70_000.0 / 8.0 / 730.0).abs() < 1e-9);
    }
}
