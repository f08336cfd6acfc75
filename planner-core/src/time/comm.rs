//! Collective and point-to-point communication times, from where the
//! group's ranks sit.
//!
//! **Placement.** Ranks are numbered Megatron-LM's way (TP fastest, then
//! CP, then DP, PP slowest), so a group of `size` ranks `stride` apart
//! spans `size·stride` consecutive ranks. If the span fits in one scale-up
//! domain (an NVLink/NVSwitch node of 8, an NVL72 rack of 72) the group
//! talks over NVLink-class links ([`Span::Domain`]). Otherwise it crosses
//! the scale-out fabric with `k` of its ranks in each domain
//! ([`Span::Fabric`]). Fabrics are rail-optimised as in DGX/HGX
//! SuperPODs: each GPU owns its NIC share (`Net::scale_out` is the NIC rate
//! × NICs per node ÷ GPUs per node), so a rank never gets a node's
//! aggregate NIC bandwidth on its own.
//!
//! **Bus bandwidth** follows NCCL-tests' convention (NVIDIA/nccl-tests
//! `doc/PERFORMANCE.md`): an all-reduce of S bytes over n ranks moves
//! 2(n−1)/n·S per rank, an all-gather, reduce-scatter or all-to-all
//! (n−1)/n·S. A ring across domains runs one channel per NIC: each channel
//! leaves a domain through one rank's NIC and crosses the other k−1 ranks
//! over NVLink, so the ring's bus bandwidth is k NIC shares, capped by the
//! scale-up link carrying (k−1)/k of the traffic. This is also the
//! bandwidth of the hierarchical form (reduce-scatter inside the domain,
//! all-reduce of 1/k of the data on each rail, all-gather inside), and it is
//! what NCCL's maintainers quote: about 48 GB/s per 400 Gb/s NIC, "up to
//! ~396 GB/s" for 8-GPU H100 nodes with eight NICs (nccl-tests issue #319),
//! 192 GB/s measured between DGX A100s with 8×200 Gb/s (nccl issue #812).
//! An all-to-all cannot aggregate NICs (nccl-tests issue #267): each rank
//! sends its off-domain share through its own NIC share.
//!
//! **Latency** is NCCL's own α–β tuning model (NVIDIA/nccl
//! `src/graph/tuning.cc`, `ncclTopoTuneModel`): a ring pays a per-step
//! latency for each of its 2(n−1) (all-reduce) or n−1 (all-gather,
//! reduce-scatter) steps, the inter-domain steps at the network's latency;
//! a tree all-reduce (NCCL's double binary tree, Sanders et al. 2009; NVIDIA
//! blog "Massively Scale Your Deep Learning Training with NCCL 2.4", 2019)
//! pays 2·((k−1) intra + log2(domains) inter) steps at 92 % of the ring's
//! bandwidth. Each algorithm runs in NCCL's three protocols (LL, LL128,
//! Simple: less latency, less bandwidth), and NCCL picks the fastest, as
//! here. The ring and tree step counts are Thakur, Rabenseifner and Gropp,
//! "Optimization of Collective Communication Operations in MPICH" (IJHPCA
//! 2005, §4). The efficiency knobs scale the bandwidths; the fixed
//! `scale_up_latency`/`scale_out_latency` knobs are the launch and
//! synchronisation cost of one collective (NCCL's base latency included).

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
    /// Bytes moved per rank, as a multiple of the buffer size
    /// (nccl-tests `doc/PERFORMANCE.md`, "Summary"): `volume(n) / n`.
    #[cfg(test)]
    pub(crate) fn factor(self, n: f64) -> f64 {
        self.volume(n) / n
    }

    /// n times the bytes moved per rank per buffer byte: 2(n−1) for an
    /// all-reduce, n−1 otherwise
    /// (kept apart so the hot path divides once).
    #[inline]
    fn volume(self, n: f64) -> f64 {
        match self {
            Collective::AllReduce => 2.0 * (n - 1.0),
            _ => n - 1.0,
        }
    }

    /// Ring steps and the inter-domain ones among them for `n` ranks in
    /// `d` domains (NCCL `tuning.cc`: `nsteps`, `nInterSteps`).
    fn ring_steps(self, n: f64, d: f64) -> (f64, f64) {
        match self {
            Collective::AllReduce => (2.0 * (n - 1.0), 2.0 * (d - 1.0)),
            _ => (n - 1.0, d - 1.0),
        }
    }
}

/// Where a group's ranks sit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Span {
    /// Every rank in one scale-up domain.
    Domain,
    /// `per_domain` ranks in each of `domains` scale-up domains, joined by
    /// the scale-out fabric.
    Fabric { per_domain: u32, domains: u32 },
}

/// Where a group of `size` ranks `stride` apart sits.
pub(crate) fn span(r: &Resolved, size: u32, stride: u32) -> Span {
    let domain = r.net.domain.max(1);
    let stride = stride.max(1);
    if u64::from(size) * u64::from(stride) <= u64::from(domain) {
        return Span::Domain;
    }
    let per_domain = (domain / stride).clamp(1, size.max(1));
    Span::Fabric {
        per_domain,
        domains: size.div_ceil(per_domain),
    }
}

/// A group's achievable bandwidths per rank and direction (B/s), with the
/// efficiency knobs applied.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GroupLink {
    pub span: Span,
    /// Scale-up link of one rank (peer copies go through the host link on
    /// parts without NVLink).
    pub up: f64,
    /// One rank's share of its node's NICs.
    pub nic: f64,
    /// Bus bandwidth of a ring over the group: its bottleneck hop.
    pub ring: f64,
}

/// The achievable bandwidths of a group of `size` ranks `stride` apart.
pub(crate) fn group_link(r: &Resolved, size: u32, stride: u32) -> GroupLink {
    let net = &r.net;
    let e = &r.eff;
    let up = if net.scale_up.base() > 0.0 {
        net.scale_up.base() * e.scale_up
    } else {
        net.host_link.base() * e.host_link
    };
    let nic = net.scale_out.base() * e.scale_out;
    let s = span(r, size, stride);
    let ring = match s {
        Span::Domain => up,
        Span::Fabric { per_domain: 1, .. } => nic,
        Span::Fabric { per_domain: k, .. } => {
            // min(k·nic, up·k/(k−1)), dividing only when NVLink binds.
            let k = f64::from(k);
            if nic * (k - 1.0) <= up {
                k * nic
            } else {
                up * k / (k - 1.0)
            }
        }
    };
    GroupLink {
        span: s,
        up,
        nic,
        ring,
    }
}

/// One NCCL protocol's cost model (NVIDIA/nccl `src/graph/tuning.cc`,
/// `ncclTunerConstantsDefaults` and the refinements in
/// `ncclTopoTuneModel`): per-step latency over NVLink and over the network
/// (µs), the least a step of a ring that also crosses the network costs
/// (`getNetOverhead`: 1 µs on x86, ×3 for Simple), and the inverse of the
/// share of the bus bandwidth a ring and a tree all-reduce reach.
struct Protocol {
    ring_hop_up: f64,
    ring_hop_net: f64,
    net_overhead: f64,
    tree_hop_up: f64,
    tree_hop_net: f64,
    inv_ring_bw: f64,
    inv_tree_bw: f64,
}

/// Simple, LL128 and LL, in the order they are tried (the widest first,
/// so the others are skipped when their bandwidth alone loses). A ring in
/// LL reaches half the bus bandwidth, in LL128 92 % (120 of each 128 bytes
/// carry data); a tree all-reduce 92 % in Simple, 120/128 of that in LL128
/// and 1/3.8 of it in LL.
const PROTOCOLS: [Protocol; 3] = [
    Protocol {
        ring_hop_up: 3.4,
        ring_hop_net: 14.0,
        net_overhead: 3.0,
        tree_hop_up: 4.0,
        tree_hop_net: 14.0,
        inv_ring_bw: 1.0,
        inv_tree_bw: 1.0 / 0.92,
    },
    Protocol {
        ring_hop_up: 1.9,
        ring_hop_net: 4.0,
        net_overhead: 1.0,
        tree_hop_up: 1.25,
        tree_hop_net: 8.5,
        inv_ring_bw: 1.0 / 0.92,
        inv_tree_bw: 128.0 / (120.0 * 0.92),
    },
    Protocol {
        ring_hop_up: 0.6,
        ring_hop_net: 2.7,
        net_overhead: 1.0,
        tree_hop_up: 0.6,
        tree_hop_net: 5.0,
        inv_ring_bw: 1.0 / 0.5,
        inv_tree_bw: 3.8 / 0.92,
    },
];

/// The protocol point-to-point sends and all-to-all use (bulk transfers).
const SIMPLE: &Protocol = &PROTOCOLS[0];

/// Microseconds to seconds.
const US: f64 = 1e-6;

/// Fixed cost of one collective on this span (the knob).
fn fixed(r: &Resolved, s: Span) -> f64 {
    match s {
        Span::Domain => r.eff.scale_up_latency.base(),
        Span::Fabric { .. } => r.eff.scale_out_latency.base(),
    }
}

/// Seconds of a ring (and, for an all-reduce across domains, a tree)
/// collective in the fastest protocol, fixed cost excluded. `wire` is the
/// bytes each rank moves over the ring's bus bandwidth. NCCL builds trees
/// only between nodes, with a chain inside.
fn ring_or_tree(op: Collective, wire: f64, n: f64, span: Span) -> f64 {
    // The hot path of the search: plain comparisons, no NaN-aware min/max
    // (every term is finite and non-negative here).
    let (steps, inter, across) = match span {
        Span::Domain => {
            let (s, _) = op.ring_steps(n, 1.0);
            (s, 0.0, false)
        }
        Span::Fabric { domains, .. } => {
            let (s, i) = op.ring_steps(n, f64::from(domains));
            (s, i, true)
        }
    };
    let mut best = f64::INFINITY;
    for p in &PROTOCOLS {
        let wire_time = wire * p.inv_ring_bw;
        if wire_time >= best {
            continue;
        }
        let intra = if across && p.net_overhead > p.ring_hop_up {
            p.net_overhead
        } else {
            p.ring_hop_up
        };
        let t = ((steps - inter) * intra + inter * p.ring_hop_net) * US + wire_time;
        if t < best {
            best = t;
        }
    }
    if let (
        Collective::AllReduce,
        Span::Fabric {
            per_domain,
            domains,
        },
    ) = (op, span)
    {
        let chain = f64::from(per_domain - 1);
        let levels = f64::from(domains.max(1).ilog2());
        for p in &PROTOCOLS {
            let wire_time = wire * p.inv_tree_bw;
            if wire_time >= best {
                continue;
            }
            let t = 2.0 * (chain * p.tree_hop_up + levels * p.tree_hop_net) * US + wire_time;
            if t < best {
                best = t;
            }
        }
    }
    best
}

/// Seconds of an all-to-all: every rank sends (n−1)/n of its buffer, the
/// in-domain share over NVLink and the rest through its own NIC share, both
/// at once (NCCL cannot spread one rank's all-to-all over several NICs).
fn all_to_all(bytes: f64, n: f64, l: &GroupLink) -> f64 {
    let (k, hop) = match l.span {
        Span::Domain => (n, SIMPLE.ring_hop_up),
        Span::Fabric { per_domain, .. } => (f64::from(per_domain), SIMPLE.ring_hop_net),
    };
    let inside = bytes * (k - 1.0) / n / l.up;
    let outside = bytes * (n - k) / n / l.nic;
    hop * US + inside.max(outside)
}

/// Seconds for one collective of a `bytes`-byte buffer over `size` ranks
/// `stride` apart: the fastest of NCCL's algorithms and protocols.
#[inline]
pub(crate) fn collective(r: &Resolved, op: Collective, bytes: f64, size: u32, stride: u32) -> f64 {
    if size <= 1 || bytes <= 0.0 {
        return 0.0;
    }
    priced(r, op, bytes, size, stride)
}

/// [`collective`] for a group of two or more and a non-empty buffer.
fn priced(r: &Resolved, op: Collective, bytes: f64, size: u32, stride: u32) -> f64 {
    let l = group_link(r, size, stride);
    if !(l.ring > 0.0 && l.up > 0.0) {
        return f64::INFINITY;
    }
    let n = f64::from(size);
    let t = match op {
        Collective::AllToAll => all_to_all(bytes, n, &l),
        _ => ring_or_tree(op, op.volume(n) * bytes / (n * l.ring), n, l.span),
    };
    fixed(r, l.span) + t
}

/// Seconds of an MoE dispatch or combine that crosses the fabric once per
/// destination domain and fans out inside it over the scale-up links
/// (DeepSeek-V3 report §3.2.2: a token goes over InfiniBand to the GPU of
/// the same in-node index on each target node, then over NVLink to the
/// GPUs holding its experts). `buffer` bytes of token copies leave each
/// rank over NVLink (delivered or forwarded); `fabric` bytes of them cross
/// its NIC share. Inside one domain it is the plain all-to-all.
pub(crate) fn all_to_all_per_domain(
    r: &Resolved,
    buffer: f64,
    fabric: f64,
    size: u32,
    stride: u32,
) -> f64 {
    if size <= 1 || buffer <= 0.0 {
        return 0.0;
    }
    let l = group_link(r, size, stride);
    match l.span {
        Span::Domain => priced(r, Collective::AllToAll, buffer, size, stride),
        Span::Fabric { .. } => {
            if !(l.up > 0.0 && l.nic > 0.0) {
                return f64::INFINITY;
            }
            fixed(r, l.span) + SIMPLE.ring_hop_net * US + (buffer / l.up).max(fabric / l.nic)
        }
    }
}

/// Bus bandwidth (B/s, NCCL-tests' convention) the model gives a collective
/// of `bytes` over `size` ranks `stride` apart: the figure nccl-tests
/// prints, for comparison with published runs.
#[cfg(test)]
pub(crate) fn bus_bandwidth(
    r: &Resolved,
    op: Collective,
    bytes: f64,
    size: u32,
    stride: u32,
) -> f64 {
    let t = collective(r, op, bytes, size, stride);
    if t > 0.0 && t.is_finite() {
        op.factor(f64::from(size)) * bytes / t
    } else {
        0.0
    }
}

/// Seconds to send `bytes` to a rank `stride` away: NVLink inside a
/// domain, the sender's own NIC share across.
pub(crate) fn p2p(r: &Resolved, bytes: f64, stride: u32) -> f64 {
    if bytes <= 0.0 {
        return 0.0;
    }
    let l = group_link(r, 2, stride);
    let (bw, hop) = match l.span {
        Span::Domain => (l.up, SIMPLE.ring_hop_up),
        Span::Fabric { .. } => (l.nic, SIMPLE.ring_hop_net),
    };
    if bw <= 0.0 {
        return f64::INFINITY;
    }
    fixed(r, l.span) + hop * US + bytes / bw
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{GpuId, LinkId, NcclAlgorithm, NcclRow, NCCL_TESTS};
    use crate::efficiency::Efficiency;
    use crate::hardware::{GpuChoice, Hardware};
    use crate::resolve::resolve;

    /// A plan's resolved cluster: `gpus` of `gpu` in nodes of
    /// `per_node` with `nics` NICs each (0: one per GPU) on `fabric`.
    fn cluster(gpu: GpuId, gpus: u32, per_node: u32, nics: u32, fabric: LinkId) -> Resolved {
        let mut p = crate::examples::example_plan();
        p.hardware = Hardware {
            gpus_per_node: per_node,
            scale_out: Some(fabric),
            nics_per_node: nics,
            ..Hardware::new(GpuChoice::Preset(gpu), gpus)
        };
        resolve(&p).0
    }

    fn row_cluster(row: &NcclRow) -> Resolved {
        cluster(
            row.gpu,
            row.gpus,
            row.gpus_per_node,
            row.nics_per_node,
            row.scale_out,
        )
    }

    /// Model busbw (GB/s) of a row's all-reduce with these knobs.
    fn model_busbw(row: &NcclRow, eff: Efficiency) -> f64 {
        let mut r = row_cluster(row);
        r.eff = eff;
        let b = row.bytes.as_bytes();
        bus_bandwidth(&r, Collective::AllReduce, b, row.gpus, 1) / 1e9
    }

    /// The published NCCL-tests bus bandwidths the model covers (ring or
    /// tree, not NVLink SHARP), at the default knobs: every row within
    /// 11 %, the median within 5 %. (The worst, 4 HDR NICs for 8 A100s at
    /// 128 MiB, is read at a size where the ring's per-step latency still
    /// shows in the model; docs/validation.md.)
    #[test]
    fn all_reduce_bus_bandwidth_matches_published_nccl_tests() {
        let d = Efficiency::default();
        let mut errs = Vec::new();
        for row in NCCL_TESTS
            .iter()
            .filter(|r| r.algorithm == NcclAlgorithm::RingOrTree)
        {
            let model = model_busbw(row, d);
            let err = model / row.busbw_gb_s - 1.0;
            eprintln!(
                "{:<44} {:>6.1} GB/s  model {model:>6.1} ({:+.1} %)",
                row.name,
                row.busbw_gb_s,
                100.0 * err
            );
            assert!(err.abs() <= 0.11, "{}: {:+.1} %", row.name, 100.0 * err);
            errs.push(err.abs());
        }
        errs.sort_by(f64::total_cmp);
        assert!(errs.len() >= 7);
        assert!(
            errs[errs.len() / 2] <= 0.05,
            "median {}",
            errs[errs.len() / 2]
        );
    }

    #[test]
    fn nvlink_is_faster_than_the_fabric_for_the_same_bytes() {
        let r = cluster(GpuId::H100Sxm, 64, 8, 0, LinkId::InfinibandNdr);
        let bytes = 256e6;
        let inside = collective(&r, Collective::AllReduce, bytes, 8, 1);
        // Eight ranks one per node (stride 8): every hop crosses IB.
        let across = collective(&r, Collective::AllReduce, bytes, 8, 8);
        assert!(inside < across, "{inside} vs {across}");
        assert_eq!(span(&r, 8, 1), Span::Domain);
        assert_eq!(
            span(&r, 8, 8),
            Span::Fabric {
                per_domain: 1,
                domains: 8
            }
        );
    }

    #[test]
    fn bus_bandwidth_never_exceeds_the_links() {
        for (gpu, fabric) in [
            (GpuId::A100Sxm80, LinkId::InfinibandHdr),
            (GpuId::H100Sxm, LinkId::InfinibandNdr),
            (GpuId::B200, LinkId::InfinibandXdr),
        ] {
            for nics in [0, 1, 4] {
                let r = cluster(gpu, 1024, 8, nics, fabric);
                let up = r.net.scale_up.base();
                let nic = r.net.scale_out.base();
                for op in [
                    Collective::AllReduce,
                    Collective::AllGather,
                    Collective::ReduceScatter,
                    Collective::AllToAll,
                ] {
                    for (size, stride) in [(8, 1), (16, 1), (512, 1), (64, 8), (128, 2)] {
                        let l = group_link(&r, size, stride);
                        let bw = bus_bandwidth(&r, op, 1e9, size, stride);
                        let cap = match l.span {
                            Span::Domain => up,
                            Span::Fabric { per_domain: 1, .. } => nic,
                            Span::Fabric { per_domain: k, .. } => {
                                // k NIC shares; NVLink carries (k−1)/k.
                                let k = f64::from(k);
                                (k * nic).min(up * k / (k - 1.0))
                            }
                        };
                        assert!(
                            bw > 0.0 && bw <= cap,
                            "{op:?} {size}/{stride}: {bw} > {cap}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn latency_grows_with_group_size() {
        let r = cluster(GpuId::H100Sxm, 4096, 8, 0, LinkId::InfinibandNdr);
        for op in [
            Collective::AllReduce,
            Collective::AllGather,
            Collective::ReduceScatter,
        ] {
            let mut last = 0.0;
            for size in [2, 4, 8, 16, 64, 256, 1024, 4096] {
                // A tiny message: all latency.
                let t = collective(&r, op, 8.0, size, 1);
                assert!(t > last, "{op:?} at {size}: {t} ≤ {last}");
                last = t;
            }
        }
    }

    #[test]
    fn an_nvl72_rack_is_one_scale_up_domain() {
        // Trays of 4 GPUs, 72 to an NVLink domain (GB200 NVL72).
        let mut r = cluster(GpuId::B200, 144, 4, 0, LinkId::InfinibandXdr);
        r.net.domain = 72;
        assert_eq!(span(&r, 64, 1), Span::Domain);
        assert_eq!(
            span(&r, 144, 1),
            Span::Fabric {
                per_domain: 72,
                domains: 2
            }
        );
        // A 64-way group runs at NVLink speed, not through the trays' NICs.
        let inside = group_link(&r, 64, 1);
        assert_eq!(inside.ring, inside.up);
        assert!(inside.ring > 4.0 * inside.nic);
    }

    #[test]
    fn a_rank_gets_its_own_nic_share_not_the_nodes() {
        // One rank per node: the ring runs at one NIC share however many
        // NICs the node has.
        let r = cluster(GpuId::H100Sxm, 64, 8, 0, LinkId::InfinibandNdr);
        let l = group_link(&r, 8, 8);
        assert_eq!(l.ring, l.nic);
        // Half as many NICs as GPUs: half the share.
        let half = cluster(GpuId::H100Sxm, 64, 8, 4, LinkId::InfinibandNdr);
        assert!((group_link(&half, 8, 8).ring - l.nic / 2.0).abs() < 1.0);
        // All-to-all across nodes cannot aggregate NICs: the full group
        // gets no more than one NIC share for its off-node traffic.
        let full = group_link(&r, 64, 1);
        let a2a = bus_bandwidth(&r, Collective::AllToAll, 1e9, 64, 1);
        assert!(a2a < full.ring && a2a <= l.nic * 64.0 / 56.0, "{a2a}");
    }
}
