//! Collective and point-to-point communication times.
//!
//! Times follow the NCCL-tests bus-bandwidth convention
//! (NVIDIA/nccl-tests `doc/PERFORMANCE.md`): an all-reduce of S bytes over
//! n ranks moves 2(n−1)/n·S per rank, an all-gather, reduce-scatter or
//! all-to-all (n−1)/n·S, each at the bus bandwidth of the slowest hop, plus
//! a fixed latency.
//!
//! Which hop is slowest depends on where the group's ranks sit. Ranks are
//! numbered Megatron-LM's way (TP fastest, then CP, then DP, PP slowest), so
//! a group of `size` ranks `stride` apart spans `size·stride` consecutive
//! ranks. If that span fits in one scale-up domain the collective runs on
//! NVLink-class links. Otherwise it crosses the scale-out fabric: with k of
//! the group's ranks in each domain NCCL runs k rings in parallel, one per
//! NIC, so the bus bandwidth is k NICs' worth, capped by the scale-up link.

use crate::resolve::Resolved;

/// A collective operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Collective {
    AllReduce,
    AllGather,
    ReduceScatter,
    AllToAll,
}

impl Collective {
    /// Bytes moved per rank, as a multiple of the buffer size.
    fn factor(self, n: f64) -> f64 {
        match self {
            Collective::AllReduce => 2.0 * (n - 1.0) / n,
            _ => (n - 1.0) / n,
        }
    }
}

/// Effective bus bandwidth (B/s) and latency (s) of a group.
pub(crate) fn group_link(r: &Resolved, size: u32, stride: u32) -> (f64, f64) {
    let net = &r.net;
    let e = &r.eff;
    // Peer copies without NVLink go through PCIe and the host.
    let up = if net.scale_up.base() > 0.0 {
        net.scale_up.base() * e.scale_up
    } else {
        net.host_link.base() * e.host_link
    };
    let span = u64::from(size) * u64::from(stride.max(1));
    if span <= u64::from(net.domain) {
        return (up, e.scale_up_latency.base());
    }
    let k = (net.domain / stride.max(1)).clamp(1, size.max(1));
    let out = net.scale_out.base() * e.scale_out * f64::from(k);
    let bw = if k > 1 { out.min(up) } else { out };
    (bw, e.scale_out_latency.base())
}

/// Seconds for one collective of a `bytes`-byte buffer over `size` ranks
/// `stride` apart.
pub(crate) fn collective(r: &Resolved, op: Collective, bytes: f64, size: u32, stride: u32) -> f64 {
    if size <= 1 || bytes <= 0.0 {
        return 0.0;
    }
    let (bw, lat) = group_link(r, size, stride);
    if bw <= 0.0 {
        return f64::INFINITY;
    }
    op.factor(f64::from(size)) * bytes / bw + lat
}

/// Seconds to send `bytes` to a rank `stride` away.
pub(crate) fn p2p(r: &Resolved, bytes: f64, stride: u32) -> f64 {
    if bytes <= 0.0 {
        return 0.0;
    }
    let (bw, lat) = group_link(r, 2, stride);
    if bw <= 0.0 {
        return f64::INFINITY;
    }
    bytes / bw + lat
}
