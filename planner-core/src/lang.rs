//! The two languages memwall speaks, and the one way every core enum is
//! named in them.
//!
//! Each enum users read (tiers, memory items, time parts, verdicts,
//! severities, device roles, families, migration classes, levers and
//! number formats) implements [`Named`] through the [`named!`] table next
//! to its definition: a stable string key, an English name and a Chinese
//! name, one row per variant. The CLI and the web app take every such name
//! from here, so one concept has one wording in each language. The tables
//! sit beside their enums (not in this file) so that modules low in the
//! vocabulary floor, such as the diagnostics, can word their messages with
//! them without importing upward; `tests::every_name_in_both_languages`
//! walks all of them.

use serde::{Deserialize, Serialize};

/// Display language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Lang {
    /// English.
    #[default]
    #[serde(rename = "en")]
    En,
    /// Simplified Chinese.
    #[serde(rename = "zh")]
    Zh,
}

impl Lang {
    /// Both languages.
    pub const ALL: [Lang; 2] = [Lang::En, Lang::Zh];

    /// The BCP 47 tag (`en`, `zh-CN`), for `<html lang>`.
    pub fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh-CN",
        }
    }
}

/// An enum whose variants users read: one key and one name per language.
pub trait Named: Copy {
    /// A stable snake_case key (for test ids, CSV headers and look-ups).
    fn key(self) -> &'static str;
    /// The name in a language.
    fn name(self, lang: Lang) -> &'static str;
    /// The English name.
    fn en(self) -> &'static str {
        self.name(Lang::En)
    }
}

/// Implements [`Named`] from a table of `pattern => key, English, Chinese;`
/// rows, one per variant.
macro_rules! named {
    ($ty:ty { $($pat:pat => $key:literal, $en:literal, $zh:literal;)+ }) => {
        impl $crate::lang::Named for $ty {
            fn key(self) -> &'static str {
                match self {
                    $($pat => $key,)+
                }
            }
            fn name(self, lang: $crate::lang::Lang) -> &'static str {
                match (self, lang) {
                    $(($pat, $crate::lang::Lang::En) => $en,)+
                    $(($pat, $crate::lang::Lang::Zh) => $zh,)+
                }
            }
        }
    };
}
pub(crate) use named;

/// A text in both languages (checklist items, import notes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Text {
    /// English.
    pub en: String,
    /// Simplified Chinese.
    pub zh: String,
}

impl Text {
    /// A text from its English and its Chinese.
    pub fn new(en: impl Into<String>, zh: impl Into<String>) -> Self {
        Self {
            en: en.into(),
            zh: zh.into(),
        }
    }

    /// The text in a language.
    pub fn get(&self, lang: Lang) -> &str {
        match lang {
            Lang::En => &self.en,
            Lang::Zh => &self.zh,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::{DeviceRole, Severity};
    use crate::effort::{MigrationClass, PlanFamily};
    use crate::plan::{Lever, Tier};
    use crate::precision::{DoubleQuant, Precision};
    use crate::report::{ItemKind, TimeKind, Verdict};
    use std::collections::HashSet;

    /// Every variant has a key and a name in both languages; keys are
    /// unique within an enum, and so are the names in each language (one
    /// wording per concept, no two concepts worded alike).
    fn check<T: Named>(all: &[T]) {
        let keys: HashSet<_> = all.iter().map(|v| v.key()).collect();
        assert_eq!(keys.len(), all.len(), "duplicate key");
        for lang in Lang::ALL {
            let names: HashSet<_> = all.iter().map(|v| v.name(lang)).collect();
            assert_eq!(names.len(), all.len(), "duplicate name in {lang:?}");
            for v in all {
                assert!(!v.name(lang).trim().is_empty(), "{} empty", v.key());
            }
        }
        for v in all {
            assert!(v
                .key()
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'));
        }
    }

    #[test]
    fn every_name_in_both_languages() {
        check(&Tier::ALL);
        check(&crate::stack::TrainingStack::ALL);
        check(&crate::capability::Unsupported::ALL);
        check(&crate::uncertainty::ValidationBasis::ALL);
        check(&ItemKind::ALL);
        check(&TimeKind::ALL);
        check(&Lever::ALL);
        check(&MigrationClass::ALL);
        check(&PlanFamily::ALL);
        check(&DeviceRole::ALL);
        check(&crate::disagg::PoolFigure::ALL);
        check(&crate::disagg::SplitFigure::ALL);
        check(&crate::disagg::KvTransfer::ALL);
        check(&[Verdict::Fits, Verdict::DoesNotFit, Verdict::Invalid]);
        check(&[Severity::Info, Severity::Warning, Severity::Error]);
        check(&crate::diff::ValueWord::ALL);
        check(&[
            Precision::Fp32,
            Precision::Bf16,
            Precision::Fp16,
            Precision::Fp8,
            Precision::Int8,
            Precision::Int4 { group_size: 128 },
            Precision::Nf4 {
                double_quant: DoubleQuant::On,
            },
            Precision::Mxfp4,
            Precision::Nvfp4,
        ]);
    }

    /// A plan or report names a unit variant in JSON by its serde key; the
    /// name table's key must be the same word, so that a key read off a
    /// page, a CSV header or a test id is one a plan accepts.
    fn same_key_as_serde<T: Named + serde::Serialize + std::fmt::Debug>(all: &[T]) {
        for v in all {
            let json = serde_json::to_value(v).expect("serialisable");
            assert_eq!(
                json.as_str(),
                Some(v.key()),
                "{v:?}: serde writes {json}, the name table {}",
                v.key()
            );
        }
    }

    #[test]
    fn name_table_keys_are_the_serde_keys() {
        use crate::diagnostics::IgnoredLever;
        use crate::engine::{Batching, Engine, HostOverlap, KvLoad, PreemptedKv, PrefixCaching};
        check(&Engine::ALL);
        check(&Batching::ALL);
        check(&HostOverlap::ALL);
        check(&crate::engine::Sampler::ALL);
        check(&IgnoredLever::ALL);
        same_key_as_serde(&Engine::ALL);
        same_key_as_serde(&Batching::ALL);
        same_key_as_serde(&HostOverlap::ALL);
        same_key_as_serde(&crate::engine::Sampler::ALL);
        same_key_as_serde(&IgnoredLever::ALL);
        same_key_as_serde(&[PrefixCaching::On, PrefixCaching::Off]);
        same_key_as_serde(&crate::engine::DpBalance::ALL);
        check(&crate::engine::MoeBackend::ALL);
        same_key_as_serde(&crate::engine::MoeBackend::ALL);
        same_key_as_serde(&[KvLoad::Bulk, KvLoad::Layerwise]);
        same_key_as_serde(&[PreemptedKv::Recompute, PreemptedKv::Swap]);
        check(&crate::plan::AttentionKernel::ALL);
        same_key_as_serde(&crate::plan::AttentionKernel::ALL);
        same_key_as_serde(&Tier::ALL);
        same_key_as_serde(&crate::stack::TrainingStack::ALL);
        same_key_as_serde(&crate::uncertainty::ValidationBasis::ALL);
        same_key_as_serde(&ItemKind::ALL);
        same_key_as_serde(&TimeKind::ALL);
        same_key_as_serde(&Lever::ALL);
        same_key_as_serde(&MigrationClass::ALL);
        same_key_as_serde(&PlanFamily::ALL);
        same_key_as_serde(&DeviceRole::ALL);
        same_key_as_serde(&[Verdict::Fits, Verdict::DoesNotFit, Verdict::Invalid]);
        same_key_as_serde(&[Severity::Info, Severity::Warning, Severity::Error]);
        use crate::software::{
            Bitsandbytes, CudaVersion, ExpandableSegments, LoraDropout, LossKernel, MemoryStack,
            ModuleLoading, OptimizerImpl,
        };
        same_key_as_serde(&CudaVersion::ALL);
        same_key_as_serde(&ModuleLoading::ALL);
        same_key_as_serde(&ExpandableSegments::ALL);
        same_key_as_serde(&MemoryStack::ALL);
        same_key_as_serde(&LossKernel::ALL);
        same_key_as_serde(&OptimizerImpl::ALL);
        same_key_as_serde(&LoraDropout::ALL);
        same_key_as_serde(&Bitsandbytes::ALL);
        // Plans written before the keys agreed still read.
        let old: crate::stack::TrainingStack =
            serde_json::from_str("\"deep_speed\"").expect("the old spelling");
        assert_eq!(old, crate::stack::TrainingStack::DeepSpeed);
    }

    #[test]
    fn chinese_differs_where_it_should() {
        // Acronyms (HBM, NVMe, logits) read the same; these must not.
        assert_ne!(Verdict::Fits.name(Lang::Zh), Verdict::Fits.en());
        assert_ne!(PlanFamily::Hybrid.name(Lang::Zh), PlanFamily::Hybrid.en());
        assert_ne!(
            MigrationClass::Configuration.name(Lang::Zh),
            MigrationClass::Configuration.en()
        );
        assert_ne!(
            DeviceRole::LastStage.name(Lang::Zh),
            DeviceRole::LastStage.en()
        );
        assert_ne!(Tier::HostDram.name(Lang::Zh), Tier::HostDram.en());
        assert_ne!(Lever::Sharding.name(Lang::Zh), Lever::Sharding.en());
    }
}
