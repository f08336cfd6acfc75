//! Number formats and what one element costs in memory.

use serde::{Deserialize, Serialize};

/// How the scales of a block-quantized format are themselves stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum DoubleQuant {
    /// One FP32 absmax per block of 64 weights: 32/64 = 0.5 bit per weight.
    Off,
    /// QLoRA's double quantization: FP8 block constants (block 64) whose own
    /// FP32 scales cover 256 blocks: 8/64 + 32/(64·256) ≈ 0.127 bit per weight.
    On,
}

/// A number format for stored tensors.
///
/// Block-quantized formats carry their scale overhead in
/// [`Precision::bytes_per_element`], so a 4-bit format never costs exactly
/// half a byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Precision {
    /// IEEE single precision, 4 bytes.
    Fp32,
    /// bfloat16, 2 bytes.
    Bf16,
    /// IEEE half precision, 2 bytes.
    Fp16,
    /// FP8 (E4M3/E5M2) with per-tensor scales; the scales are negligible.
    Fp8,
    /// INT8 with per-channel scales (LLM.int8(), SmoothQuant, bitsandbytes
    /// 8-bit optimizer states in blocks of 2048 with one FP32 absmax: the
    /// 4/2048 byte per element is included).
    Int8,
    /// INT4 with group-wise scales (GPTQ / AWQ layout): per group one FP16
    /// scale and one packed 4-bit zero point, i.e. 2.5 bytes per group.
    Int4 {
        /// Weights per scale group (128 is the common default).
        group_size: u32,
    },
    /// NormalFloat-4 as in QLoRA, blocks of 64 weights.
    Nf4 {
        /// Whether the block constants are double-quantized.
        double_quant: DoubleQuant,
    },
    /// MXFP4 (OCP Microscaling v1.0): 4-bit elements with one 8-bit shared
    /// exponent per block of 32, i.e. 4.25 bits per element.
    Mxfp4,
    /// NVFP4 (NVIDIA Blackwell): 4-bit E2M1 elements with one FP8 (E4M3)
    /// scale per block of 16 and one FP32 scale per tensor, i.e. 4.5 bits
    /// per element.
    Nvfp4,
}

/// The stored formats of a quantized checkpoint, as plan levers read them
/// (`Plan::serve_as_shipped` sets them). A described model carries them
/// (`CustomModel::shipped`) so that serving it as shipped is not counted
/// as quantizing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ShippedWeights {
    /// `levers.precision.weights`: the linear layers.
    pub weights: Precision,
    /// `levers.precision.experts`: the routed experts, where they are
    /// stored apart from the other linear layers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experts: Option<Precision>,
}

impl ShippedWeights {
    /// Every linear layer in `p`.
    pub const fn linear(p: Precision) -> Self {
        Self {
            weights: p,
            experts: None,
        }
    }

    /// The routed experts in `p`, every other weight in BF16 (gpt-oss).
    pub const fn experts(p: Precision) -> Self {
        Self {
            weights: Precision::Bf16,
            experts: Some(p),
        }
    }
}

impl Precision {
    /// Memory cost of one element in bytes, block-scale overhead included.
    ///
    /// Sources: NF4 and double quantization, Dettmers et al., "QLoRA",
    /// arXiv:2305.14314 §3 (0.5 vs 0.127 bits per parameter of constants);
    /// 8-bit optimizer blocks of 2048, Dettmers et al., "8-bit Optimizers via
    /// Block-wise Quantization", arXiv:2110.02861 §2; MXFP4, OCP
    /// Microscaling Formats (MX) Specification v1.0 (2023), Table 1
    /// (k = 32, 8-bit E8M0 scale); NVFP4, NVIDIA, "Introducing NVFP4 for
    /// Efficient and Accurate Low-Precision Inference" (technical blog,
    /// 2025-06: 16-value micro-blocks with an E4M3 scale, plus a per-tensor
    /// FP32 scale); INT4 groups, Frantar et al., "GPTQ",
    /// arXiv:2210.17323 (group-wise quantization, FP16 scales).
    pub fn bytes_per_element(self) -> f64 {
        match self {
            Precision::Fp32 => 4.0,
            Precision::Bf16 | Precision::Fp16 => 2.0,
            Precision::Fp8 => 1.0,
            Precision::Int8 => 1.0 + 4.0 / 2048.0,
            Precision::Int4 { group_size } => 0.5 + 2.5 / f64::from(group_size.max(1)),
            Precision::Nf4 { double_quant } => match double_quant {
                DoubleQuant::Off => 0.5 + 4.0 / 64.0,
                DoubleQuant::On => 0.5 + 1.0 / 64.0 + 4.0 / (64.0 * 256.0),
            },
            Precision::Mxfp4 => 4.25 / 8.0,
            Precision::Nvfp4 => 4.5 / 8.0,
        }
    }

    /// Short label for tables: `bf16`, `int4/g128`, `nf4+dq`.
    pub fn label(self) -> String {
        match self {
            Precision::Fp32 => "fp32".into(),
            Precision::Bf16 => "bf16".into(),
            Precision::Fp16 => "fp16".into(),
            Precision::Fp8 => "fp8".into(),
            Precision::Int8 => "int8".into(),
            Precision::Int4 { group_size } => format!("int4/g{group_size}"),
            Precision::Nf4 { double_quant } => match double_quant {
                DoubleQuant::Off => "nf4".into(),
                DoubleQuant::On => "nf4+dq".into(),
            },
            Precision::Mxfp4 => "mxfp4".into(),
            Precision::Nvfp4 => "nvfp4".into(),
        }
    }

    /// True for the formats matrix units compute in directly (as opposed to
    /// storage-only formats that are dequantized before the GEMM).
    pub fn is_float(self) -> bool {
        matches!(
            self,
            Precision::Fp32 | Precision::Bf16 | Precision::Fp16 | Precision::Fp8
        )
    }
}

crate::lang::named!(Precision {
    Precision::Fp32 => "fp32", "FP32", "FP32";
    Precision::Bf16 => "bf16", "BF16", "BF16";
    Precision::Fp16 => "fp16", "FP16", "FP16";
    Precision::Fp8 => "fp8", "FP8", "FP8";
    Precision::Int8 => "int8", "INT8", "INT8";
    Precision::Int4 { .. } => "int4", "INT4 (grouped)", "INT4（分组）";
    Precision::Nf4 { .. } => "nf4", "NF4 (QLoRA)", "NF4（QLoRA）";
    Precision::Mxfp4 => "mxfp4", "MXFP4", "MXFP4";
    Precision::Nvfp4 => "nvfp4", "NVFP4", "NVFP4";
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qlora_constant_overheads() {
        // QLoRA §3: 0.5 bit/param without, 0.127 bit/param with double quantization.
        let off = Precision::Nf4 {
            double_quant: DoubleQuant::Off,
        };
        let on = Precision::Nf4 {
            double_quant: DoubleQuant::On,
        };
        assert!(((off.bytes_per_element() - 0.5) * 8.0 - 0.5).abs() < 1e-12);
        assert!(((on.bytes_per_element() - 0.5) * 8.0 - 0.127).abs() < 1e-3);
    }

    #[test]
    fn widths() {
        assert_eq!(Precision::Fp32.bytes_per_element(), 4.0);
        assert_eq!(Precision::Bf16.bytes_per_element(), 2.0);
        assert_eq!(Precision::Fp8.bytes_per_element(), 1.0);
        assert_eq!(
            Precision::Int4 { group_size: 128 }.bytes_per_element(),
            0.5 + 2.5 / 128.0
        );
        assert_eq!(Precision::Mxfp4.bytes_per_element(), 0.531_25);
        // NVFP4: 4 bits and an 8-bit scale per 16.
        assert_eq!(Precision::Nvfp4.bytes_per_element(), 0.5625);
    }
}
