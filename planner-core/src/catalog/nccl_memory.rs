//! Device memory NCCL holds per communicator (one per process group), by
//! what the communicator runs (issue 12).
//!
//! NCCL's buffers live outside PyTorch's caching allocator (fairscale PR
//! #678: "the NCCL buffers are not allocated through the PyTorch caching
//! allocator"), so they show in `nvidia-smi` but not in `memory_reserved`.
//! Their size is linear in the channels a communicator connects and in the
//! peers each channel talks to: a ring connects two neighbours whatever the
//! group size, all-to-all and send/receive connect every pair (NCCL
//! maintainers in NVIDIA/nccl#864 and #986; `NCCL_BUFFSIZE`, 4 MiB, is one
//! protocol's FIFO per channel and peer, NCCL environment-variable docs).
//! The figures below are measured where a measurement exists; the source
//! says when one is derived.

use super::Provenance;
use crate::units::Bytes;

/// What a communicator runs, as far as its buffers care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommPattern {
    /// Ring/tree collectives (all-reduce, all-gather, reduce-scatter): TP,
    /// data-parallel and sharding groups.
    Collective,
    /// Send/receive with neighbours (pipeline stages, context-parallel
    /// rings).
    PointToPoint,
    /// All-to-all (expert parallelism's token dispatch): every pair of
    /// ranks connected.
    AllToAll,
}

/// One measured (or derived) figure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NcclMemoryEntry {
    /// The pattern it applies to.
    pub pattern: CommPattern,
    /// Group sizes it applies to, inclusive.
    pub ranks: (u32, u32),
    /// Device memory per rank for the communicator (for all-to-all: per
    /// peer in the same node).
    pub bytes: Bytes,
    /// Where the figure comes from.
    pub source: &'static str,
    /// How sure we are of it.
    pub provenance: Provenance,
}

/// The table.
pub static NCCL_MEMORY: &[NcclMemoryEntry] = &[
    NcclMemoryEntry {
        pattern: CommPattern::Collective,
        ranks: (2, 2),
        bytes: Bytes::new(544.0 * 1_048_576.0),
        source: "NVIDIA/nccl#964: 4x A100 with NVLink, PyTorch, one process group per \
                 pair after a 4 MB all-reduce: 544 MB per group of 2",
        provenance: Provenance::Secondary,
    },
    NcclMemoryEntry {
        pattern: CommPattern::Collective,
        ranks: (3, u32::MAX),
        bytes: Bytes::new(688.0 * 1_048_576.0),
        source: "NVIDIA/nccl#964: the same run, 688 MB per group of more than 2 (rings \
                 and trees add the tree peers); beyond 2 nodes it no longer grows \
                 (NVIDIA/nccl#986)",
        provenance: Provenance::Secondary,
    },
    NcclMemoryEntry {
        pattern: CommPattern::PointToPoint,
        ranks: (2, u32::MAX),
        bytes: Bytes::new(544.0 * 1_048_576.0),
        source: "no send/receive measurement found; a pipeline or context-parallel \
                 neighbour communicator connects two peers like the 2-rank group of \
                 NVIDIA/nccl#964 (544 MB)",
        provenance: Provenance::Assumed,
    },
    NcclMemoryEntry {
        pattern: CommPattern::AllToAll,
        ranks: (2, u32::MAX),
        bytes: Bytes::new(3.28e9 / 7.0),
        source: "NVIDIA/nccl#1685: 8x H100, intra-node all_to_all_single: 1.06 GB before \
                 and 4.34 GB after the first call (32 channels per pair, 10 MiB and 2 MiB \
                 buffers), i.e. 3.28 GB for 7 peers, 469 MB per peer in the node; a peer \
                 in another node gets NCCL_NCHANNELS_PER_NET_PEER (2) channels instead of \
                 32, 1/16 of it (derived)",
        provenance: Provenance::Secondary,
    },
];

/// The bytes one rank holds for a communicator of `ranks` ranks running
/// `pattern`, `local` of them (itself included) in its node, and the
/// entry the figure comes from.
pub fn nccl_memory(
    pattern: CommPattern,
    ranks: u32,
    local: u32,
) -> (Bytes, &'static NcclMemoryEntry) {
    let e = NCCL_MEMORY
        .iter()
        .find(|e| e.pattern == pattern && (e.ranks.0..=e.ranks.1).contains(&ranks))
        .unwrap_or(&NCCL_MEMORY[1]);
    let ranks = ranks.max(1);
    let b = match pattern {
        CommPattern::AllToAll => {
            let near = local.clamp(1, ranks) - 1;
            let far = ranks - 1 - near;
            e.bytes.base() * (f64::from(near) + f64::from(far) / 16.0)
        }
        _ => e.bytes.base(),
    };
    (Bytes::new(b), e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_has_a_row_for_every_size_and_all_to_all_grows_with_peers() {
        for p in [
            CommPattern::Collective,
            CommPattern::PointToPoint,
            CommPattern::AllToAll,
        ] {
            for n in [2, 3, 8, 1024] {
                let (b, e) = nccl_memory(p, n, 8);
                assert_eq!(e.pattern, p);
                assert!(b.as_mib() > 100.0, "{p:?} {n}");
                assert!(!e.source.is_empty());
            }
        }
        // Rings: more ranks than 2 cost the tree peers once, then nothing.
        let c = |n| nccl_memory(CommPattern::Collective, n, 8).0;
        assert!(c(2) < c(4) && c(4) == c(512));
        // All-to-all: the 8-GPU measurement back, and remote peers cheaper.
        let a = |n, local| nccl_memory(CommPattern::AllToAll, n, local).0;
        assert!((a(8, 8).base() / 3.28e9 - 1.0).abs() < 1e-12);
        assert!(a(16, 8) > a(8, 8) && a(16, 8) < a(8, 8) * 1.2);
    }
}
