//! The clock a GPU sustains under a board power limit below its TDP.
//!
//! A power limit (`nvidia-smi -pl`) is enforced by lowering the SM clock
//! until the board's draw fits: compute-bound kernels run slower in
//! proportion to the clock, while memory-bound ones, which draw less, are
//! little affected (the HBM clock is separate). Sites cap GPUs to fit a
//! rack's power budget: torchtitan's H100 benchmarks ran Meta's Grand
//! Teton H100s at "the default 500W power limit" of a 700 W part.
//!
//! Source: Ujeniya, Eitzinger, Hager and Wellein, "Architectural
//! Trade-offs in the Energy-Efficient Era: A Comparative Study of
//! power-capping NVIDIA H100 and H200" (arXiv 2604.11391 v2, 2026), Fig. 6b:
//! the average SM clock of an H100 (94 GiB HBM2e, 700 W TDP) running a
//! compute-bound ViT-L/16 pass (batch 256, TF32) at power caps of 200 to
//! 700 W, with the measured draw of Fig. 9b (199, 298, 395, 493, 591 and
//! 647 W: the caps bind up to 600 W, and at 700 W the pass ran at its top
//! clock drawing 647 W). The figures were read through a transcription of
//! the paper's figure annotations (Provenance::VerifiedCopy at best), not
//! from the paper's own text; they are held as a curve of the fraction of
//! the rated TDP against the fraction of the clock at the TDP, and applied
//! to every part (only Hopper was measured; other generations' DVFS curves
//! are taken to have the same shape).
//!
//! A held-out check of the same group's end-to-end figure: Mayr et al.,
//! "AI Application Benchmarking: Power-Aware Performance Analysis for
//! Vision and Language Models" (arXiv 2603.16164, Table 4, the same
//! transcription), Llama 3 8B continued pre-training under LitGPT on four
//! H100 SXM 94 GB: 27,705.3 tokens/s a GPU at 500 W against 30,271.0 at
//! 700 W (0.915), the step's memory-bound part losing less than its GEMMs
//! (`tests/power_limit.rs`).
//!
//! A denser kernel than that pass (a BF16 GEMM at full occupancy) draws
//! more at a given clock, so it reaches a cap at a lower clock: the curve
//! is the milder end, and the report's range says so.

/// (limit ÷ TDP, SM clock ÷ the clock at the TDP), ascending, from the
/// caps of the source above: 200, 300, 400, 500, 600 and 700 W of 700 W
/// at 625, 1,132, 1,501, 1,731, 1,889 and 1,969 MHz.
pub const CLOCK_UNDER_LIMIT: [(f64, f64); 6] = [
    (200.0 / 700.0, 625.0 / 1969.0),
    (300.0 / 700.0, 1132.0 / 1969.0),
    (400.0 / 700.0, 1501.0 / 1969.0),
    (500.0 / 700.0, 1731.0 / 1969.0),
    (600.0 / 700.0, 1889.0 / 1969.0),
    (1.0, 1.0),
];

/// The lowest limit the curve covers, as a fraction of the TDP; below it
/// the clock is not measured and a limit is refused.
pub const LOWEST_LIMIT_FRACTION: f64 = CLOCK_UNDER_LIMIT[0].0;

/// The fraction of its TDP clock a GPU's compute-bound kernels keep under
/// a power limit of `limit_fraction` of its TDP: linear between the
/// measured caps, 1 at or above the TDP, the lowest measured point below
/// the curve (resolve refuses such a limit first).
pub fn clock_fraction(limit_fraction: f64) -> f64 {
    let pts = &CLOCK_UNDER_LIMIT;
    if !limit_fraction.is_finite() || limit_fraction >= 1.0 {
        return 1.0;
    }
    if limit_fraction <= pts[0].0 {
        return pts[0].1;
    }
    pts.windows(2)
        .find(|w| limit_fraction <= w[1].0)
        .map_or(1.0, |w| {
            let (x0, y0) = w[0];
            let (x1, y1) = w[1];
            y0 + (limit_fraction - x0) / (x1 - x0) * (y1 - y0)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_falls_with_the_limit_through_the_measured_caps() {
        assert_eq!(clock_fraction(1.0), 1.0);
        assert_eq!(clock_fraction(1.3), 1.0);
        // 500 of 700 W: 1,731 of 1,969 MHz.
        assert!((clock_fraction(500.0 / 700.0) - 0.8791).abs() < 1e-4);
        // Halfway between the 500 and 600 W caps.
        let mid = clock_fraction(550.0 / 700.0);
        assert!((mid - (1731.0 + 1889.0) / 2.0 / 1969.0).abs() < 1e-9);
        // Monotone over the whole range.
        let mut last = 0.0;
        for i in 0..=100 {
            let f = clock_fraction(LOWEST_LIMIT_FRACTION + i as f64 * 0.008);
            assert!(f >= last && f <= 1.0);
            last = f;
        }
    }
}
