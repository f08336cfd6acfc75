//! Multi-Instance GPU (MIG) profiles: the slices each MIG-capable GPU can
//! be cut into.
//!
//! A MIG GPU has 7 compute slices (groups of SMs) and 8 memory slices (each
//! an eighth of the memory controllers, L2 and DRAM). A GPU instance profile
//! `Ng.Mgb` takes N compute slices and a fixed number of memory slices:
//! 1g takes one eighth of the memory (or two, for the "double-memory" 1g
//! profile such as 1g.20gb), 2g two eighths, 3g and 4g half, 7g all of it
//! (NVIDIA Multi-Instance GPU User Guide, "Supported MIG Profiles": the
//! A100-SXM4-40GB table lists 1g.5gb at 1/8 of memory and 1/7 of SMs, 2g.10gb
//! at 2/8 and 2/7, 3g.20gb at 4/8 and 3/7, and says the other GPUs' profile
//! names change with their memory). Profile names and the number of
//! instances of each are NVIDIA's own `nvidia-mig-parted` default
//! configuration (`deployments/systemd/config-default.yaml`, one
//! `all-<profile>` entry per profile with its count per GPU).
//!
//! Where an instance may start (in memory-slice positions) follows from the
//! counts: seven 1g, four double-memory 1g, three 2g, two 3g, one 4g and
//! one 7g instance fit only at the starts listed in [`placements`]; that
//! table is recalled from `nvidia-smi mig -lgipp` output, and a unit test
//! checks it reproduces every profile's instance count.
//!
//! The memory a slice offers is taken from the profile name in decimal GB,
//! which rounds down what CUDA sees (an H100 80GB lists 1g.10gb at 9.75 GiB,
//! 10.5 GB, in `nvidia-smi mig -lgip`, as printed in public field notes), and
//! capped at the GPU's device memory × memory slices / 8. The packing is
//! conservative by a few per cent.

use super::{GpuId, Provenance};
use crate::units::Bytes;

/// Compute slices of a MIG GPU.
pub const COMPUTE_SLICES: u32 = 7;
/// Memory slices of a MIG GPU.
pub const MEMORY_SLICES: u32 = 8;

/// One GPU instance profile.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MigProfile {
    /// NVIDIA's name (`1g.10gb`).
    pub name: &'static str,
    /// Compute slices (the "g" count) out of [`COMPUTE_SLICES`].
    pub compute_slices: u32,
    /// Memory slices out of [`MEMORY_SLICES`].
    pub memory_slices: u32,
    /// Memory named in the profile, decimal GB.
    pub named_memory: Bytes,
    /// Most instances of this profile one GPU holds.
    pub max_instances: u32,
}

impl MigProfile {
    /// Fraction of the SMs, `compute_slices / 7`, in 0..=1.
    pub fn compute_fraction(&self) -> f64 {
        f64::from(self.compute_slices) / f64::from(COMPUTE_SLICES)
    }

    /// Fraction of the memory slices, `memory_slices / 8`, in 0..=1.
    pub fn memory_fraction(&self) -> f64 {
        f64::from(self.memory_slices) / f64::from(MEMORY_SLICES)
    }

    /// Memory the slice offers on a GPU with `device_memory`: the named
    /// size, capped at the slice's share of the device.
    pub fn memory(&self, device_memory: Bytes) -> Bytes {
        self.named_memory
            .min(device_memory * self.memory_fraction())
    }

    /// Memory-slice positions an instance may start at.
    pub fn placements(&self) -> &'static [u32] {
        placements(self.compute_slices, self.memory_slices)
    }
}

/// Memory-slice positions where an instance of `compute` compute slices and
/// `memory` memory slices may start (`nvidia-smi mig -lgipp`, recalled;
/// checked against the instance counts in a unit test).
pub fn placements(compute: u32, memory: u32) -> &'static [u32] {
    match (compute, memory) {
        (1, 1) => &[0, 1, 2, 3, 4, 5, 6],
        (1, 2) => &[0, 2, 4, 6],
        (2, 2) => &[0, 2, 4],
        (3, 4) => &[0, 4],
        (4, 4) | (7, 8) => &[0],
        _ => &[],
    }
}

/// The MIG profiles of one GPU kind.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MigEntry {
    /// The GPU kinds these profiles apply to.
    pub gpus: &'static [GpuId],
    /// Profiles, smallest first.
    pub profiles: &'static [MigProfile],
    /// Where they come from.
    pub source: &'static str,
    /// How they were checked.
    pub provenance: Provenance,
}

const fn p(
    name: &'static str,
    compute_slices: u32,
    memory_slices: u32,
    gb: f64,
    max_instances: u32,
) -> MigProfile {
    MigProfile {
        name,
        compute_slices,
        memory_slices,
        named_memory: Bytes::from_gb(gb),
        max_instances,
    }
}

/// The six profile shapes every MIG datacenter GPU offers, with the
/// memory of a single memory slice in GB (the 1g name) and of the others.
#[allow(clippy::too_many_arguments)]
const fn six(
    n1: &'static str,
    g1: f64,
    n1d: &'static str,
    g2: f64,
    n2: &'static str,
    n3: &'static str,
    g4: f64,
    n4: &'static str,
    n7: &'static str,
    g8: f64,
) -> [MigProfile; 6] {
    [
        p(n1, 1, 1, g1, 7),
        p(n1d, 1, 2, g2, 4),
        p(n2, 2, 2, g2, 3),
        p(n3, 3, 4, g4, 2),
        p(n4, 4, 4, g4, 1),
        p(n7, 7, 8, g8, 1),
    ]
}

const A100_40: [MigProfile; 6] = six(
    "1g.5gb", 5.0, "1g.10gb", 10.0, "2g.10gb", "3g.20gb", 20.0, "4g.20gb", "7g.40gb", 40.0,
);
const GB80: [MigProfile; 6] = six(
    "1g.10gb", 10.0, "1g.20gb", 20.0, "2g.20gb", "3g.40gb", 40.0, "4g.40gb", "7g.80gb", 80.0,
);
const H100_94: [MigProfile; 6] = six(
    "1g.12gb", 12.0, "1g.24gb", 24.0, "2g.24gb", "3g.47gb", 47.0, "4g.47gb", "7g.94gb", 94.0,
);
/// GH200 96GB: `nvidia-mig-parted` lists no double-memory 1g profile for
/// it, so it is left out.
const GH200_96: [MigProfile; 5] = [
    p("1g.12gb", 1, 1, 12.0, 7),
    p("2g.24gb", 2, 2, 24.0, 3),
    p("3g.48gb", 3, 4, 48.0, 2),
    p("4g.48gb", 4, 4, 48.0, 1),
    p("7g.96gb", 7, 8, 96.0, 1),
];
const GH200_144: [MigProfile; 6] = six(
    "1g.18gb", 18.0, "1g.36gb", 36.0, "2g.36gb", "3g.72gb", 72.0, "4g.72gb", "7g.144gb", 144.0,
);
const H200: [MigProfile; 6] = six(
    "1g.18gb", 18.0, "1g.35gb", 35.0, "2g.35gb", "3g.71gb", 71.0, "4g.71gb", "7g.141gb", 141.0,
);
const B200: [MigProfile; 6] = six(
    "1g.23gb", 23.0, "1g.45gb", 45.0, "2g.45gb", "3g.90gb", 90.0, "4g.90gb", "7g.180gb", 180.0,
);
const GB200: [MigProfile; 6] = six(
    "1g.24gb", 24.0, "1g.47gb", 47.0, "2g.47gb", "3g.95gb", 95.0, "4g.95gb", "7g.189gb", 189.0,
);
const B300: [MigProfile; 6] = six(
    "1g.34gb", 34.0, "1g.67gb", 67.0, "2g.67gb", "3g.135gb", 135.0, "4g.135gb", "7g.269gb", 269.0,
);

const PARTED: &str = "NVIDIA nvidia-mig-parted, deployments/systemd/config-default.yaml (profile names and instances per GPU)";

/// The MIG catalog.
pub static MIG: &[MigEntry] = &[
    MigEntry {
        gpus: &[GpuId::A100Sxm40],
        profiles: &A100_40,
        source: "NVIDIA Multi-Instance GPU User Guide, Supported MIG Profiles, A100-SXM4-40GB table (fractions of memory and SMs, instances); NVIDIA nvidia-mig-parted, deployments/systemd/config-default.yaml (the A100-40GB entries)",
        provenance: Provenance::Verified,
    },
    MigEntry {
        gpus: &[
            GpuId::A100Sxm80,
            GpuId::A100Pcie80,
            GpuId::A800Sxm80,
            GpuId::H100Sxm,
            GpuId::H100Pcie,
            GpuId::H800Sxm,
        ],
        profiles: &GB80,
        source: "NVIDIA Multi-Instance GPU User Guide, Supported MIG Profiles (A100-SXM4-80GB names: 1g.10gb, 1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb); NVIDIA nvidia-mig-parted, deployments/systemd/config-default.yaml (H100-80GB, H800-80GB, A100-80GB and A800-80GB share these profiles and counts)",
        provenance: Provenance::Verified,
    },
    MigEntry {
        gpus: &[GpuId::H100Nvl],
        profiles: &H100_94,
        source: PARTED,
        provenance: Provenance::Verified,
    },
    MigEntry {
        gpus: &[GpuId::Gh200_96],
        profiles: &GH200_96,
        source: PARTED,
        provenance: Provenance::Verified,
    },
    MigEntry {
        gpus: &[GpuId::H20],
        profiles: &GH200_96,
        source: "NVIDIA nvidia-mig-parted, deployments/systemd/config-default.yaml: its all-balanced entry lists the H20 (device 0x2329) with the H100-96GB and GH200 (1g.12gb, 2g.24gb, 3g.48gb); the single-profile entries name only those siblings, so the H20 is given the GH200 96GB set (no double-memory 1g profile)",
        provenance: Provenance::Computed,
    },
    MigEntry {
        gpus: &[GpuId::Gh200_144],
        profiles: &GH200_144,
        source: PARTED,
        provenance: Provenance::Verified,
    },
    MigEntry {
        gpus: &[GpuId::H200Sxm, GpuId::H200Nvl],
        profiles: &H200,
        source: PARTED,
        provenance: Provenance::Verified,
    },
    MigEntry {
        gpus: &[GpuId::B200],
        profiles: &B200,
        source: PARTED,
        provenance: Provenance::Verified,
    },
    MigEntry {
        gpus: &[GpuId::Gb200],
        profiles: &GB200,
        source: "NVIDIA nvidia-mig-parted, deployments/systemd/config-default.yaml (GB200 HGX: 1g.24gb ×7, 2g.47gb, 3g.95gb; the 4g.95gb, 1g.47gb and 7g.189gb profiles are listed without a device comment and assigned here by their sizes)",
        provenance: Provenance::Secondary,
    },
    MigEntry {
        gpus: &[GpuId::B300],
        profiles: &B300,
        source: "Secondary: aws/sagemaker-hyperpod-cli PR #403 (P6-B300 profiles 1g.34gb ×7, 1g.67gb ×4, 2g.67gb ×3, 3g.135gb ×2, 4g.135gb, 7g.269gb, citing NVIDIA GPU Operator v25.3.0)",
        provenance: Provenance::Secondary,
    },
];

/// The MIG profiles of a GPU kind, if it supports MIG.
pub fn mig_profiles(id: GpuId) -> Option<&'static MigEntry> {
    MIG.iter().find(|e| e.gpus.contains(&id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::gpu;

    #[test]
    fn placements_reproduce_the_instance_counts() {
        for e in MIG {
            for p in e.profiles {
                let starts = p.placements();
                // Non-overlapping instances that fit: greedy from the left
                // over the allowed starts.
                let mut end = 0;
                let mut n = 0;
                for &s in starts {
                    if s >= end && s + p.memory_slices <= MEMORY_SLICES {
                        n += 1;
                        end = s + p.memory_slices;
                    }
                }
                let by_compute = COMPUTE_SLICES / p.compute_slices;
                assert_eq!(n.min(by_compute), p.max_instances, "{}", p.name);
            }
        }
    }

    #[test]
    fn every_mig_gpu_has_profiles_and_no_other_does() {
        for &id in GpuId::ALL {
            let mig = gpu(id).spec.mig_slices > 0;
            assert_eq!(mig, mig_profiles(id).is_some(), "{id:?}");
        }
    }

    #[test]
    fn profiles_are_ordered_and_within_the_gpu() {
        for e in MIG {
            assert!(!e.source.is_empty());
            for w in e.profiles.windows(2) {
                assert!(
                    (w[0].memory_slices, w[0].compute_slices)
                        <= (w[1].memory_slices, w[1].compute_slices)
                );
            }
            for &id in e.gpus {
                let dev = gpu(id).spec.device_memory();
                for p in e.profiles {
                    assert!(p.memory(dev).base() <= dev.base() * p.memory_fraction() + 1.0);
                    assert!(p.memory(dev).base() > 0.0);
                    assert!(p.compute_fraction() > 0.0 && p.compute_fraction() <= 1.0);
                    // The name starts with the compute slices.
                    assert!(p.name.starts_with(&format!("{}g.", p.compute_slices)));
                }
            }
        }
    }
}
