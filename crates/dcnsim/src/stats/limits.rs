//! Limits that protect the machine: before a scenario runs, estimate the
//! memory it can take and the events it can need, and reject it (with the
//! estimate and the field to change) when either is out of reach.
//!
//! Each term bounds something the engine really allocates, under one
//! stated reading of the traffic: a window is cut once its path's
//! bottleneck queue is full (or past its ECN threshold), so windows and the
//! packets in flight are what the paths can hold, and a byte-limited queue
//! holds data packets (an ACK queue only builds as far as there is data to
//! answer). A flow alone behind an unlimited NIC queue can grow past that
//! (bufferbloat, one segment per round trip): the run-time guard counts
//! what runs really hold and stops them at `limits.memory`. The estimate
//! must be tight as well as a bound (tests/memory_bound.rs: at most 10×
//! the measured peak of every bench scenario), or it refuses what fits; a
//! bound that rejects a reasonable scenario is raised with
//! `limits = { memory = "64GB" }` (or `events = 1e13`) in the scenario
//! itself, and the refusal names the keys that drive each term.

use crate::config::{
    AppSpec, BulkAmount, Config, Limit, NodeKind, SegPolicyKind, TcpConfig, TcpRandMode,
};
use crate::sim::time::SimTime;

pub use crate::config::{Limits, DEFAULT_EVENTS, DEFAULT_MEMORY};

/// What a run may need, by component.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Estimate {
    /// Nodes, links and routing tables.
    pub routes: u64,
    /// Packets alive at once: every buffer full and every wire busy.
    pub packets: u64,
    /// Per-flow scoreboards and receivers' out-of-order lists.
    pub windows: u64,
    /// Every flow's connection state, its timers' events and its row of
    /// the result tables (flows are kept until the end of the run).
    pub flows: u64,
    /// Result tables other than per flow (queues, their inputs, rounds).
    pub results: u64,
    /// The key behind `results`: `topology` (the queues' rows), or the
    /// app whose rounds' rows weigh more.
    pub results_key: String,
    /// `trace` samples held until the end of the run.
    pub trace: u64,
    /// `pcap` records held until the end of the run.
    pub pcap: u64,
    /// Packet hops plus timer events, plus the routing BFS steps.
    pub events: u64,
    /// The key behind the most events: `stop`, or `apps[i]` when that
    /// app's bytes, not the time, bound what it sends.
    pub events_key: String,
    /// The scenario key that bounds the largest windows: `tcp.rwnd`,
    /// `tcp.init_cwnd`, `topology.buffer` (what the path holds), `stop`
    /// (how far a window can grow into an unlimited queue by then) or
    /// `apps[i]` (a flow cannot send more than it writes).
    pub windows_key: String,
    /// The key that bounds the live packets: `topology.buffer`, or the
    /// windows' key when the windows put fewer packets in flight.
    pub packets_key: String,
    /// The flows' first windows (their scoreboard entries), part of
    /// `windows`: a flow sends its first window within the one event that
    /// opens it, before the run-time guard can look.
    pub first_windows: u64,
    /// The key that bounds the first windows: `tcp.init_cwnd`, `tcp.rwnd`
    /// or `apps[i]` (a flow cannot send more than it writes).
    pub first_windows_key: String,
}

impl Estimate {
    /// What the run-time guard cannot stop in time, so what only a refusal
    /// before the run keeps under `limits.memory`: the topology's tables
    /// (built with the world), the flows' first windows (each sent within
    /// one event), and the structures one growth step of which can jump
    /// past the limit between two looks of the guard — the run's list of
    /// flows and the trace and pcap buffers, each one Vec that doubles (a
    /// million tiny Poisson flows under a 300 MB limit peaked at 434 MB
    /// when only the guard watched them). The rest (packets in flight,
    /// windows, the queue tables) grows in many small pieces or is counted
    /// before it is built, and the guard stops it at the limit.
    pub fn unguarded(&self) -> u64 {
        // (pcap records grow in fixed buffers, `net::pcap::CHUNK`, which
        // the guard counts as they fill, with the copy the results take)
        self.routes
            .saturating_add(self.first_windows)
            .saturating_add(self.flows)
            .saturating_add(self.trace)
    }

    pub fn memory(&self) -> u64 {
        self.routes
            .saturating_add(self.packets)
            .saturating_add(self.windows)
            .saturating_add(self.flows)
            .saturating_add(self.results)
            .saturating_add(self.trace)
            .saturating_add(self.pcap)
    }
}

/// Human-readable bytes: "1.5 GB".
pub fn fmt_bytes(b: u64) -> String {
    let units = [
        ("TB", 1u64 << 40),
        ("GB", 1 << 30),
        ("MB", 1 << 20),
        ("KB", 1 << 10),
    ];
    for (u, s) in units {
        if b >= s {
            return format!("{:.3} {u}", b as f64 / s as f64)
                .replace(".000 ", " ")
                .to_string();
        }
    }
    format!("{b} B")
}

use std::mem::size_of;

use crate::stats::report::{FLOW_RESULT_BYTES, QUEUE_ROW_BYTES, ROUND_ROW_BYTES, SLOT_ROW_BYTES};

/// A TCP flow's fixed cost, at most: what the world keeps of it
/// ([`crate::world::World::TCP_FLOW_BYTES`]) and its result rows.
pub fn flow_bytes() -> u64 {
    (crate::world::World::TCP_FLOW_BYTES + FLOW_RESULT_BYTES) as u64
}

/// A UDP source's cost, as [`flow_bytes`].
fn udp_bytes() -> u64 {
    (crate::world::World::UDP_FLOW_BYTES + FLOW_RESULT_BYTES) as u64
}

/// A queue at least this large never fills (`nic_buffer = "unlimited"` is
/// u64::MAX bytes).
const UNLIMITED: u64 = 1 << 50;

/// Smallest wire size of a data packet (TCP's smallest segment, or a UDP
/// datagram): what a byte-limited queue is counted in.
fn min_data_wire(c: &Config) -> u64 {
    let l2 = c.l2_overhead as u64;
    c.apps
        .iter()
        .map(|a| match (a, a.tcp()) {
            (AppSpec::UdpCbr { payload_bytes, .. }, _) => *payload_bytes as u64 + 28 + l2,
            (_, Some(t)) => min_payload(t) + t.header_bytes as u64 + l2,
            _ => u64::MAX,
        })
        .min()
        .unwrap_or(40 + l2)
        .max(1)
}

/// An upper bound on the links of any host-to-host shortest path: for any
/// node c, d(u, v) ≤ d(u, c) + d(c, v), so the two largest host distances
/// from c bound it. c is tried at node 0, the node farthest from it, and the
/// middle of the path between them (a fabric's centre, where the bound is
/// tight: 6 links in a fat-tree).
pub(crate) fn path_hops(t: &crate::config::TopologySpec) -> u64 {
    let n = t.nodes.len();
    if n == 0 {
        return 0;
    }
    let mut adj = vec![Vec::new(); n];
    for l in &t.links {
        adj[l.a].push(l.b);
        adj[l.b].push(l.a);
    }
    let bfs = |s: usize| {
        let mut dist = vec![u64::MAX; n];
        let mut parent = vec![usize::MAX; n];
        let mut q = std::collections::VecDeque::from([s]);
        dist[s] = 0;
        while let Some(u) = q.pop_front() {
            for &v in &adj[u] {
                if dist[v] == u64::MAX {
                    dist[v] = dist[u] + 1;
                    parent[v] = u;
                    q.push_back(v);
                }
            }
        }
        (dist, parent)
    };
    let bound = |dist: &[u64]| {
        let (mut a, mut b) = (0u64, 0u64);
        for (i, &d) in dist.iter().enumerate() {
            // An unreachable host has no route: packets to it fail.
            if t.nodes[i].kind != NodeKind::Host || d == u64::MAX {
                continue;
            }
            if d > a {
                (a, b) = (d, a);
            } else if d > b {
                b = d;
            }
        }
        a + b
    };
    let (d0, _) = bfs(0);
    let far = (0..n)
        .filter(|&i| d0[i] != u64::MAX)
        .max_by_key(|&i| d0[i])
        .unwrap_or(0);
    let (df, parent) = bfs(far);
    let end = (0..n)
        .filter(|&i| df[i] != u64::MAX)
        .max_by_key(|&i| df[i])
        .unwrap_or(far);
    let mut mid = end;
    for _ in 0..df[end] / 2 {
        mid = parent[mid];
    }
    let (dm, _) = bfs(mid);
    bound(&d0).min(bound(&df)).min(bound(&dm)).max(1)
}

/// The largest window a flow can reach, in bytes, and the key that bounds
/// it. `hold` is what its path can hold (None: the path has an unlimited
/// queue, which never drops); `acked` the bytes it can have acknowledged
/// by the end.
///
/// Into an unlimited queue a window grows by its congestion control's own
/// law, as far as the acknowledged bytes A let it: slow start adds at most
/// A (RFC 3465) up to ssthresh; then NewReno and DCTCP add one MSS per
/// window acknowledged (W² ≤ W₀² + 2·MSS·A, counted twice over for the
/// step's rounding and recovery's inflation), CUBIC at most half of A
/// (its target is capped at 1.5 cwnd per window); FaST is counted as slow
/// start throughout. A loss only lowers the window and ssthresh, so the
/// envelope holds past it.
fn window_bound(t: &TcpConfig, hold: Option<u64>, acked: f64) -> (u64, String) {
    let mss = t.mss.max(1) as f64;
    let init = (t.init_cwnd_segments as u64).saturating_mul(t.mss as u64);
    let ss = t
        .init_ssthresh_segments
        .map(|s| (s as f64 * mss).max(init as f64) + 2.0 * mss);
    let growth = match (ss, t.cc) {
        (Some(w0), crate::config::CcKind::NewReno | crate::config::CcKind::Dctcp) => {
            (w0 * w0 + 4.0 * mss * acked).sqrt() + mss
        }
        (Some(w0), crate::config::CcKind::Cubic) => w0 + acked / 2.0,
        _ => init as f64 + acked,
    };
    let growth = growth.min(u64::MAX as f64) as u64;
    let (cap, key) = match hold {
        Some(h) if init.saturating_add(h.saturating_mul(2)) <= growth => {
            let key = if init >= h.saturating_mul(2) {
                "tcp.init_cwnd"
            } else {
                "topology.buffer"
            };
            (init.saturating_add(h.saturating_mul(2)), key)
        }
        _ => (
            growth.max(init),
            if init >= growth {
                "tcp.init_cwnd"
            } else {
                "stop"
            },
        ),
    };
    if t.rwnd_bytes < cap {
        (t.rwnd_bytes, "tcp.rwnd".to_string())
    } else {
        (cap, key.to_string())
    }
}

/// The smallest payload the flow's segment policy sends.
fn min_payload(t: &TcpConfig) -> u64 {
    let p = match t.seg {
        SegPolicyKind::Fixed => t.mss,
        SegPolicyKind::Fast => t.fast.smin.min(t.fast.probe_size.max(1)),
        SegPolicyKind::Dsr => t.dsr.mss,
        SegPolicyKind::TcpRand => match t.tcprand.mode {
            TcpRandMode::Static => t.tcprand.rmin,
            TcpRandMode::Adaptive => t.tcprand.theta,
        },
    };
    p.clamp(1, t.mss.max(1)) as u64
}

/// What the topology is, for the estimate: its size, the routing tables'
/// shape, the longest path and the switches' input slots.
struct Fabric {
    nodes: u64,
    hosts: u64,
    links: u64,
    /// Rows of the routing tables: one per group of destinations (a
    /// gateway switch of single-homed hosts, or a multi-homed host).
    groups: u64,
    /// Columns of the routing tables: nodes that are not single-homed hosts.
    cols: u64,
    /// Links of the longest host-to-host shortest path, at most.
    hops: u64,
    /// Node index of each host.
    host_nodes: Vec<usize>,
    /// Whether packets of one flow may take different paths (RPS, flowlets).
    per_packet: bool,
    /// Flow directions the switches may see (a TCP connection's two, a
    /// UDP flow's one).
    flow_dirs: u64,
    /// Input-accounting slots of the switches, and their bytes.
    slots: u64,
    slot_bytes: u64,
}

impl Fabric {
    /// Rows of `queue_inputs` at most: a row per (egress, input) pair that
    /// offered packets. With a path per flow, a flow direction offers to one
    /// pair at each switch it crosses (at most `hops - 1`), so the rows are
    /// at most that many per direction (at k = 32: 82 k, not the 1.3 M slots).
    fn slot_rows(&self) -> u64 {
        if self.per_packet {
            self.slots
        } else {
            self.slots.min(
                self.flow_dirs
                    .saturating_mul(self.hops.saturating_sub(1).max(1)),
            )
        }
    }

    fn of(c: &Config) -> Fabric {
        let topo = &c.topology;
        let mut degree = vec![0u32; topo.nodes.len()];
        let mut gateway = vec![usize::MAX; topo.nodes.len()];
        for l in &topo.links {
            degree[l.a] += 1;
            degree[l.b] += 1;
            gateway[l.a] = l.b;
            gateway[l.b] = l.a;
        }
        let mut groups = std::collections::BTreeSet::new();
        let mut single = 0u64;
        for (i, n) in topo.nodes.iter().enumerate() {
            if n.kind != NodeKind::Host {
                continue;
            }
            let gw = gateway[i];
            if degree[i] == 1 && gw != usize::MAX && topo.nodes[gw].kind == NodeKind::Switch {
                single += 1;
                groups.insert(gw);
            } else {
                groups.insert(topo.nodes.len() + i);
            }
        }
        let nodes = topo.nodes.len() as u64;
        let per_packet = matches!(
            c.routing,
            crate::config::RoutingMode::Rps | crate::config::RoutingMode::Flowlet { .. }
        );
        let flow_dirs = c
            .apps
            .iter()
            .map(|a| a.flow_directions(c.stop))
            .fold(0u64, u64::saturating_add);
        let (slots, slot_bytes) = input_slots(c, &degree, per_packet, flow_dirs);
        Fabric {
            nodes,
            hosts: topo
                .nodes
                .iter()
                .filter(|n| n.kind == NodeKind::Host)
                .count() as u64,
            links: topo.links.len() as u64,
            groups: groups.len() as u64,
            cols: nodes - single,
            hops: path_hops(topo),
            host_nodes: topo.hosts(),
            per_packet,
            flow_dirs,
            slots,
            slot_bytes,
        }
    }
}

/// Per switch: an input-accounting slot per (egress, input) pair. A wide
/// switch makes a slot per pair a packet takes: with a path per flow, at
/// most one per flow direction it forwards; per-packet routing may take
/// any pair. (slots, their bytes).
fn input_slots(c: &Config, degree: &[u32], per_packet: bool, flow_dirs: u64) -> (u64, u64) {
    let (mut slots, mut slot_bytes) = (0u64, 0u64);
    for (_, &d) in c
        .topology
        .nodes
        .iter()
        .zip(degree)
        .filter(|(n, _)| n.kind == NodeKind::Switch)
    {
        let pairs = d as u64 * d as u64;
        let (n, each) = if d as usize > crate::world::WIDE_SWITCH_INPUTS {
            let n = if per_packet {
                pairs
            } else {
                pairs.min(flow_dirs)
            };
            (n, crate::world::WIDE_SLOT_BYTES as u64)
        } else {
            (pairs, crate::world::INPUT_SLOT_BYTES as u64)
        };
        slots = slots.saturating_add(n);
        slot_bytes = slot_bytes.saturating_add(n.saturating_mul(each));
    }
    (slots, slot_bytes)
}

/// Topology and routing state (routing.rs): rows of 4-byte entries, one
/// row per group of destinations and one column per node that is not a
/// single-homed host; then per node its name, random streams, routing
/// columns and (in flowlet mode) flowlet table, per link its queues,
/// adjacency and far-end word, and the switches' input slots. A run on several threads
/// keeps `copies` worlds, one per partition: its own nodes, links, input
/// tallies, flows and samples, one set of routing tables shared
/// (crate::parallel).
fn routes_bytes(c: &Config, f: &Fabric, copies: u64) -> u64 {
    let link_bytes = (size_of::<crate::config::LinkSpec>()
        + 2 * crate::net::Links::LINK_BYTES
        + 2 * (16 + 4)) as u64;
    let flowlets = match c.routing {
        crate::config::RoutingMode::Flowlet { .. } => crate::world::FLOWLET_TABLE_BYTES as u64,
        _ => 0,
    };
    f.groups
        .saturating_mul(f.cols)
        .saturating_mul(4)
        .saturating_add(
            f.nodes
                .saturating_mul(256 + flowlets)
                .saturating_add(f.links.saturating_mul(link_bytes))
                .saturating_add(f.slot_bytes)
                .saturating_mul(copies),
        )
}

/// What the queues and wires can hold, for the estimate.
struct Buffers {
    /// Data packets the buffers and wires can hold (`u64::MAX` when a
    /// queue is unlimited): a byte-limited queue holds at most its size in
    /// the smallest data packets (a queue of ACKs only exists while as
    /// much data is in flight, counted with the windows).
    pkts: u64,
    /// What one queue can hold of a window, in bytes: its limit, or its
    /// ECN threshold for a flow that backs off on marks.
    hop_hold: u64,
    hop_hold_ecn: u64,
    /// The same in data packets, per limited queue.
    q_pkts: Vec<u64>,
    q_pkts_ecn: Vec<u64>,
    /// Data packets on the wires.
    wire_pkts: u64,
    /// The longest link's bandwidth-delay product, both ways.
    path_pipe: u64,
    max_rate: u64,
    /// Per node, the fastest link it has.
    access_rate: Vec<u64>,
    /// Largest wire size of a TCP segment.
    max_wire: u64,
}

impl Buffers {
    fn of(c: &Config) -> Buffers {
        let topo = &c.topology;
        let data_min = min_data_wire(c);
        let max_wire = c
            .apps
            .iter()
            .filter_map(AppSpec::tcp)
            .map(|t| (t.mss + t.header_bytes) as u64)
            .max()
            .unwrap_or(1500)
            + c.l2_overhead as u64;
        let mut b = Buffers {
            pkts: 0,
            hop_hold: 0,
            hop_hold_ecn: 0,
            q_pkts: Vec::new(),
            q_pkts_ecn: Vec::new(),
            wire_pkts: 0,
            path_pipe: 0,
            max_rate: 0,
            access_rate: vec![0u64; topo.nodes.len()],
            max_wire,
        };
        for l in &topo.links {
            b.max_rate = b.max_rate.max(l.rate_bps);
            b.access_rate[l.a] = b.access_rate[l.a].max(l.rate_bps);
            b.access_rate[l.b] = b.access_rate[l.b].max(l.rate_bps);
            let pipe_bytes = (l.rate_bps as f64 * l.delay.as_secs_f64() / 8.0) as u64 + 1;
            for q in [l.queue_ab, l.queue_ba] {
                b.add_queue(&q, data_min);
            }
            b.path_pipe = b.path_pipe.max(2 * pipe_bytes);
            let w = 2 * (pipe_bytes / data_min + 1);
            b.pkts = b.pkts.saturating_add(w);
            b.wire_pkts = b.wire_pkts.saturating_add(w);
        }
        b
    }

    fn add_queue(&mut self, q: &crate::config::QueueConfig, data_min: u64) {
        let max_wire = self.max_wire;
        let (pkts, bytes) = match q.limit {
            Limit::Packets(p) => (p, p.saturating_mul(max_wire)),
            Limit::Bytes(b) => (b / data_min + 1, b),
        };
        if pkts >= UNLIMITED || bytes >= UNLIMITED {
            // It holds whatever the windows put in it: they bound the
            // packets then.
            self.pkts = u64::MAX;
            return;
        }
        self.pkts = self.pkts.saturating_add(pkts);
        let (k_pkts, k_bytes) = match q.ecn_k {
            Some(Limit::Packets(p)) => (p + 1, p.saturating_add(1).saturating_mul(max_wire)),
            Some(Limit::Bytes(b)) => (b / data_min + 2, b.saturating_add(max_wire)),
            None => (pkts, bytes),
        };
        self.hop_hold = self.hop_hold.max(bytes);
        self.hop_hold_ecn = self.hop_hold_ecn.max(k_bytes.min(bytes));
        self.q_pkts.push(pkts);
        self.q_pkts_ecn.push(k_pkts.min(pkts));
    }

    /// Data packets that `flows` bottlenecks hold, one per flow: no more
    /// than the largest `flows` queues (each at its ECN threshold when
    /// every flow backs off on marks), however the flows share them — a
    /// queue is one flow's bottleneck or several flows', never more than
    /// full. (A fat-tree's host NICs, unmarked, hold more than its marked
    /// switch ports: at k = 32, 8,192 NICs of 100 packets and the rest at
    /// 66, not every flow's queue at 100.)
    fn bottlenecks(&self, flows: u64, ecn: bool) -> u64 {
        let mut q = if ecn {
            self.q_pkts_ecn.clone()
        } else {
            self.q_pkts.clone()
        };
        let n = (flows.min(q.len() as u64)) as usize;
        if n < q.len() {
            q.select_nth_unstable_by(n, |a, b| b.cmp(a));
        }
        q[..n].iter().fold(0u64, |s, &x| s.saturating_add(x))
    }

    /// What a flow's path can hold: its wires both ways (the data and the
    /// ACKs that stand for it) and one full queue, at its bottleneck. A
    /// window past that is dropped or marked there and cut (slow start
    /// overshoots it at most twice over). Queues before the bottleneck
    /// stay short (they drain faster than the flow arrives), and an
    /// unlimited NIC queue only fills for a flow alone on its path, which
    /// grows into it by one segment per round trip (bufferbloat): the
    /// run-time guard, not this estimate, counts that.
    fn path_hold(&self, hops: u64, ecn: bool) -> u64 {
        hops.saturating_mul(self.path_pipe).saturating_add(if ecn {
            self.hop_hold_ecn
        } else {
            self.hop_hold
        })
    }
}

/// What the apps put on the network, summed over apps.
struct Traffic {
    /// TCP flows.
    flows: u64,
    /// Segments of the flows' first windows (as `first_segs`, counted
    /// per flow towards `outstanding`).
    init_segs: u64,
    first_segs: u64,
    /// The first windows of the app with the most, and the key behind them.
    first_key: (u64, String),
    /// Whether every TCP flow backs off on ECN marks.
    all_ecn: bool,
    /// Packets alive: at most a window of data and its ACKs per flow.
    window_pkts: u64,
    /// Packets the UDP sources send (they have no window).
    udp_pkts: f64,
    udp: bool,
    /// Every flow's own window bound, summed (capped later), and the key
    /// behind the largest app's.
    windows: u64,
    windows_key: (u64, String),
    /// Packets the whole run sends, and by host; the key behind the app
    /// that sends the most (`stop` where time bounds it, the app where its
    /// bytes do).
    sent: f64,
    sent_key: (f64, String),
    sent_by_host: Vec<f64>,
    /// What bounds a captured host's records by its links ([`pcap_bytes`]):
    /// whether every app is window-clocked TCP, the smallest payload of a
    /// full segment and the largest MSS, and by host the initial windows
    /// (bytes) of the flows it takes part in and the messages they write
    /// (each message's last segment may be shorter than the smallest).
    clocked: bool,
    min_payload: u64,
    max_mss: u64,
    init_bytes_by_host: Vec<f64>,
    msgs_by_host: Vec<f64>,
}

/// Per segment of a window: the sender's scoreboard entry and the
/// receiver's out-of-order range, each in a VecDeque/Vec at most twice its
/// peak.
const SEG_ENTRY: u64 = 2 * (crate::tcp::SEG_BYTES + size_of::<(u64, u64, u64)>()) as u64;

impl Traffic {
    fn of(c: &Config, fabric: &Fabric, net: &Buffers) -> Traffic {
        let mut t = Traffic {
            flows: 0,
            init_segs: 0,
            first_segs: 0,
            first_key: (0, String::new()),
            all_ecn: true,
            window_pkts: 0,
            udp_pkts: 0.0,
            udp: false,
            windows: 0,
            windows_key: (0, String::new()),
            sent: 0.0,
            sent_key: (0.0, "stop".to_string()),
            sent_by_host: vec![0f64; fabric.hosts as usize],
            clocked: true,
            min_payload: u64::MAX,
            max_mss: 0,
            init_bytes_by_host: vec![0f64; fabric.hosts as usize],
            msgs_by_host: vec![0f64; fabric.hosts as usize],
        };
        for (i, a) in c.apps.iter().enumerate() {
            let (n, _, _) = a.tcp_load(c.stop);
            t.flows += n;
            let (pkts_a, ends, by_bytes) = match (a, a.tcp()) {
                (AppSpec::UdpCbr { .. }, _) => {
                    let (p, ends) = t.add_udp_app(c, a);
                    (p, ends, false)
                }
                (_, Some(tcp)) => t.add_tcp_app(c, i, a, tcp, fabric, net),
                _ => (0.0, Vec::new(), false),
            };
            t.sent += pkts_a;
            if pkts_a > t.sent_key.0 {
                let key = if by_bytes {
                    format!("apps[{i}]")
                } else {
                    "stop".to_string()
                };
                t.sent_key = (pkts_a, key);
            }
            // A Poisson flow touches 2 of the app's hosts, each equally
            // likely, so a captured host sees about 2/n of its packets
            // (count 4/n to stay above the fluctuations); other apps'
            // hosts may see them all.
            let share = match a {
                AppSpec::Poisson(_) if ends.len() > 4 => 4.0 / ends.len() as f64,
                _ => 1.0,
            };
            let (init, msgs) = t.add_clock(a, n);
            for h in ends {
                if let Some(x) = t.sent_by_host.get_mut(h) {
                    *x += pkts_a * share;
                    t.init_bytes_by_host[h] += init * share;
                    t.msgs_by_host[h] += msgs * share;
                }
            }
        }
        t
    }

    /// What [`pcap_bytes`] needs of an app of `n` flows: (the bytes of
    /// their initial windows, the messages they write: a request and a
    /// response per round, one message otherwise), and whether its sends
    /// are clocked by what the network delivers. Not so for UDP (it sends
    /// at its own rate), the modern transports (NDP's unsolicited windows
    /// and pulls, the rate-based senders) and Kulkarni's probabilistic
    /// retransmissions (a timer resends segments whatever was lost).
    fn add_clock(&mut self, a: &AppSpec, n: u64) -> (f64, f64) {
        let Some(t) = a.tcp() else {
            self.clocked = false;
            return (0.0, 0.0);
        };
        if t.transport != crate::config::Transport::Tcp || t.probretx.p > 0.0 {
            self.clocked = false;
        }
        self.min_payload = self.min_payload.min(min_payload(t));
        self.max_mss = self.max_mss.max(t.mss as u64);
        // a window never below 4 segments (BBR's floor; the others' are lower)
        let init = (t.init_cwnd_segments.max(4) as u64)
            .saturating_mul(t.mss as u64)
            .min(t.rwnd_bytes) as f64;
        let msgs = 2.0 * a.rounds().max(1) as f64;
        (init * n as f64, msgs * n as f64)
    }

    /// A UDP source: (packets it sends, its hosts).
    fn add_udp_app(&mut self, c: &Config, a: &AppSpec) -> (f64, Vec<usize>) {
        let AppSpec::UdpCbr {
            rate_bps,
            payload_bytes,
            start,
            stop,
            ..
        } = a
        else {
            return (0.0, Vec::new());
        };
        self.udp = true;
        let span = (*stop).min(c.stop).saturating_sub(*start).as_secs_f64();
        let wire = (*payload_bytes as u64 + 28 + c.l2_overhead as u64) as f64;
        let p = *rate_bps as f64 / 8.0 * span / wire;
        self.udp_pkts += p;
        (p, a.hosts())
    }

    /// A TCP app (`apps[i]`): adds its flows' windows, first windows and
    /// packets alive; (packets it sends, its hosts, whether its bytes and
    /// not `stop` bound them).
    fn add_tcp_app(
        &mut self,
        c: &Config,
        i: usize,
        a: &AppSpec,
        t: &TcpConfig,
        fabric: &Fabric,
        net: &Buffers,
    ) -> (f64, Vec<usize>, bool) {
        let (n, bytes, timed) = a.tcp_load(c.stop);
        let ends = a.hosts();
        let stop_s = c.stop.as_secs_f64();
        let span = match a {
            AppSpec::Bulk {
                amount: BulkAmount::Duration(d),
                ..
            } => d.as_secs_f64().min(stop_s),
            _ => stop_s,
        };
        // The fastest access link among the app's hosts: no flow is
        // acknowledged faster than its hosts can send.
        let rate = ends
            .iter()
            .filter_map(|&h| fabric.host_nodes.get(h))
            .map(|&v| net.access_rate[v])
            .max()
            .unwrap_or(net.max_rate);
        let mut acked = rate as f64 / 8.0 * span;
        if !timed {
            acked = acked.min(bytes as f64 / n.max(1) as f64);
        }
        let ecn = t.ecn || t.cc.needs_ecn();
        self.all_ecn &= ecn;
        let (wnd, key) = window_bound(t, Some(net.path_hold(fabric.hops, ecn)), acked);
        let at_once = a.bytes_at_once().unwrap_or(bytes / n.max(1));
        let (wnd, key) = if !timed && at_once.saturating_add(1) < wnd {
            (at_once.saturating_add(1), format!("apps[{i}]"))
        } else {
            (wnd, key)
        };
        let segs = wnd / min_payload(t) + 1;
        self.add_first_windows(i, a, t, n, timed, at_once);
        // Every flow's own bound (a VecDeque starts at 4 entries); the sum
        // over flows is capped in `windows_and_packets`.
        let mut per_flow = segs.max(2).saturating_mul(SEG_ENTRY);
        if t.cc == crate::config::CcKind::Bbr {
            // BBR's sending record beside each entry (a VecDeque at most
            // twice its peak) and its boxed model
            use crate::tcp::cc::bbr::{STATE_BYTES, TX_REC_BYTES};
            per_flow = per_flow
                .saturating_add(segs.max(2).saturating_mul(2 * TX_REC_BYTES as u64))
                .saturating_add(STATE_BYTES as u64);
        }
        let w = per_flow.saturating_mul(n);
        self.windows = self.windows.saturating_add(w);
        if w >= self.windows_key.0 {
            self.windows_key = (w, key);
        }
        // Packets alive: at most a window of data and its ACKs per flow.
        self.window_pkts = self
            .window_pkts
            .saturating_add(segs.saturating_mul(2).saturating_mul(n));
        let seg_wire = (min_payload(t) + t.header_bytes as u64 + c.l2_overhead as u64) as f64;
        let (data, by_bytes) = if timed {
            (net.max_rate as f64 / 8.0 * span / seg_wire, false)
        } else {
            // A message of b bytes is at most b / min_payload + 1 packets
            // (its last one short: a round's 64-byte request is one): a
            // request and a response per flow and round.
            let msgs = 2.0 * a.rounds().max(1) as f64 * n as f64;
            let by_size = bytes as f64 / min_payload(t) as f64 + msgs;
            // By `stop` no host puts more than its line rate on its link,
            // even in packets of one byte, and a sender gets at most a
            // window more out than was acknowledged: a size far beyond
            // what `stop` leaves room for costs what `stop` does.
            let tiny_wire = (1 + t.header_bytes as u64 + c.l2_overhead as u64) as f64;
            let cap = net.max_rate as f64 / 8.0 * span / tiny_wire * ends.len().max(1) as f64
                + segs as f64 * n as f64;
            (by_size.min(cap), by_size < cap)
        };
        // Data twice (retransmissions) and as many ACKs.
        (data * 4.0, ends, by_bytes)
    }

    /// The app's first windows: each flow sends its first window within
    /// the one event that opens it, and the key behind the largest.
    fn add_first_windows(
        &mut self,
        i: usize,
        a: &AppSpec,
        t: &TcpConfig,
        n: u64,
        timed: bool,
        at_once: u64,
    ) {
        let init = t.init_cwnd_segments as u64;
        let by_rwnd = t.rwnd_bytes / min_payload(t) + 1;
        let by_bytes = if timed {
            u64::MAX
        } else {
            at_once / min_payload(t) + 1
        };
        let first = init.min(by_rwnd).min(by_bytes);
        self.init_segs = self.init_segs.saturating_add(first.saturating_mul(n));
        let first_all = first.saturating_mul(n);
        self.first_segs = self.first_segs.saturating_add(first_all);
        if first_all >= self.first_key.0 {
            // A Poisson app's first windows add up over its many flows:
            // what opens them drives the sum.
            let key = if let AppSpec::Poisson(p) = a {
                match p.max_flows {
                    Some(_) => format!("apps[{i}].flows"),
                    None => format!("apps[{i}].duration"),
                }
            } else if first == init {
                "tcp.init_cwnd".to_string()
            } else if first == by_rwnd {
                "tcp.rwnd".to_string()
            } else {
                format!("apps[{i}]")
            };
            self.first_key = (first_all, key);
        }
    }
}

/// The windows' bytes and their key, and the live packets' bytes and
/// their key. Segments outstanding in all flows at once are their initial
/// windows plus twice what the network holds at one bottleneck per flow
/// (each queue full, or at its ECN threshold) and on every wire; the
/// windows are the less of that and the flows' own bounds. Live packets
/// are data in full buffers and busy wires, or what the flows' windows can
/// put in flight, whichever is less; live ACKs are no more than the data
/// they answer (one per data packet, at most). UDP has no window: its
/// packets are bounded by what it sends.
fn windows_and_packets(
    fabric: &Fabric,
    net: &Buffers,
    tr: &Traffic,
) -> ((u64, String), (u64, String)) {
    let held = net
        .bottlenecks(tr.flows, tr.all_ecn)
        .saturating_add(net.wire_pkts);
    let outstanding = tr.init_segs.saturating_add(held.saturating_mul(2));
    let mut windows = (tr.windows, tr.windows_key.1.clone());
    if outstanding.saturating_mul(SEG_ENTRY) < tr.windows {
        let key = if tr.init_segs >= held.saturating_mul(2) {
            "tcp.init_cwnd"
        } else {
            "topology.buffer"
        };
        windows = (outstanding.saturating_mul(SEG_ENTRY), key.to_string());
    }
    let window_pkts = tr.window_pkts.min(outstanding.saturating_mul(2));
    let window_pkts = if tr.udp {
        window_pkts.saturating_add(tr.udp_pkts.min(u64::MAX as f64) as u64)
    } else {
        window_pkts
    };
    let (live, packets_key) = if net.pkts.saturating_mul(2) <= window_pkts {
        (net.pkts.saturating_mul(2), "topology.buffer".to_string())
    } else {
        (window_pkts, windows.1.clone())
    };
    // Per live packet: its slab slot, its id on the free list and its
    // link-FIFO entry, each in a Vec or VecDeque at most twice its peak.
    let per_pkt = (2 * crate::net::Arena::PACKET_BYTES + crate::net::Links::SLOT_BYTES) as u64;
    let packets = live
        .saturating_mul(per_pkt)
        .saturating_add(2 * fabric.links * crate::net::Links::FIRST_SEGMENT_BYTES as u64);
    (windows, (packets, packets_key))
}

/// Flows and UDP sources: state, rows, timers, routes and shared
/// configurations, for one world. The event queue holds at most two
/// entries per timer (a lazily cancelled one and the live one), four
/// timers per flow, one per directed link, two per app (sim/queue.rs
/// bounds the bytes of that many).
fn flow_state_bytes(c: &Config, fabric: &Fabric, flows: u64) -> u64 {
    let udps = udp_sources(c);
    let entries = flows
        .saturating_mul(8)
        .saturating_add(2 * fabric.links + 2 * c.apps.len() as u64 + udps + 1);
    let queue = match c.ties {
        crate::config::Ties::Fifo => crate::sim::queue::EventQueue::bound_bytes(entries),
        crate::config::Ties::Seeded => crate::sim::queue::EventQueue::bound_bytes_seeded(entries),
    };
    // Static routing modes keep each flow's route (per direction) once
    // computed; a route is a shortest path between hosts, at most `hops` long.
    let route_bytes = match c.routing {
        crate::config::RoutingMode::Rps | crate::config::RoutingMode::Flowlet { .. } => 0,
        _ => (crate::world::ROUTE_BYTES_FIXED as u64)
            .saturating_add(fabric.hops * crate::world::ROUTE_BYTES_PER_HOP as u64),
    };
    // Flows share their configuration: one class per distinct one, at most
    // one per app (its `Arc` with two counters, and the world's list of
    // classes at most twice its length).
    let classes = (c.apps.len() as u64).saturating_mul(
        (size_of::<crate::config::TcpConfig>() + 2 * size_of::<usize>() + 2 * size_of::<usize>())
            as u64,
    );
    flows
        .saturating_mul(flow_bytes().saturating_add(route_bytes))
        .saturating_add(classes)
        .saturating_add(udps.saturating_mul(udp_bytes()))
        .saturating_add(queue)
}

/// The UDP sources among `c`'s apps (a flow each).
fn udp_sources(c: &Config) -> u64 {
    c.apps
        .iter()
        .filter(|a| matches!(a, AppSpec::UdpCbr { .. }))
        .count() as u64
}

/// What the partitions of a cut run remember of the source routes that
/// cross into them (`ResumeMap`, parallel.rs): per flow (TCP or UDP), in
/// every partition, as each partition's route slots.
fn resume_bytes(c: &Config, flows: u64, copies: u64) -> u64 {
    if copies <= 1
        || matches!(
            c.routing,
            crate::config::RoutingMode::Rps | crate::config::RoutingMode::Flowlet { .. }
        )
    {
        return 0;
    }
    let udps = udp_sources(c);
    flows
        .saturating_add(udps)
        .saturating_mul(crate::world::RESUME_BYTES_PER_FLOW as u64)
        .saturating_mul(copies)
}

/// Result tables other than per flow: a row per directed link (two node
/// names) and per switch input slot (three); a row per round of the round
/// apps. Loss indications (16 bytes each in the log, a row of `losses` at
/// the end) grow with congestion over the run, not with its size: no
/// static bound short of one per packet sent; the run-time guard counts
/// them.
fn tables_bytes(c: &Config, fabric: &Fabric) -> (u64, String) {
    let name_max = c
        .topology
        .nodes
        .iter()
        .map(|n| n.name.len())
        .max()
        .unwrap_or(0) as u64;
    let name = size_of::<String>() as u64 + 32 + name_max;
    // A round's row is kept when it ends, and no round ends sooner than a
    // round trip: by `stop` an app ends at most stop / that of its rounds.
    let round_trip = least_one_way(c).map_or(0, |t| t.0.saturating_mul(2));
    let by_time = c.stop.0.checked_div(round_trip).map_or(u64::MAX, |r| r + 1);
    let round_bytes = 2 * (ROUND_ROW_BYTES as u64 + size_of::<crate::app::Round>() as u64);
    let (mut rounds, mut most) = (0u64, (0u64, 0usize));
    for (i, a) in c.apps.iter().enumerate() {
        let r = a.rounds().min(by_time);
        rounds = rounds.saturating_add(r);
        if r > most.0 {
            most = (r, i);
        }
    }
    let slot_rows = fabric.slot_rows();
    let queues = (2 * fabric.links)
        .saturating_mul(QUEUE_ROW_BYTES as u64 + 2 * name)
        .saturating_add(slot_rows.saturating_mul(SLOT_ROW_BYTES as u64 + 3 * name));
    let of_rounds = rounds.saturating_mul(round_bytes);
    let key = if most.0.saturating_mul(round_bytes) > queues {
        format!("apps[{}]", most.1)
    } else {
        "topology".to_string()
    };
    (queues.saturating_add(of_rounds), key)
}

/// The least time any packet takes from host to host: the delay of a link
/// joining two hosts, or twice the shortest host link's and a switch's
/// `switch_delay` (a host link, a switch, a host link). `None` without a
/// host link.
pub fn least_one_way(c: &Config) -> Option<SimTime> {
    let nodes = &c.topology.nodes;
    let host = |v: usize| nodes[v].kind == crate::config::NodeKind::Host;
    c.topology
        .links
        .iter()
        .filter_map(|l| match (host(l.a), host(l.b)) {
            (true, true) => Some(l.delay),
            (true, false) | (false, true) => Some(SimTime(
                l.delay.0.saturating_mul(2).saturating_add(c.switch_delay.0),
            )),
            _ => None,
        })
        .min()
}

/// Events: packet hops (the longest path a packet takes: two hops through
/// one switch; in larger fabrics up to one hop per switch, 8 counted, or
/// the longest host-to-host path where that is longer: a chain of 30
/// switches takes 31), one per flow, and the routing's BFS over every node
/// and link per destination group.
fn events(fabric: &Fabric, tr: &Traffic) -> u64 {
    let switches = fabric.nodes - fabric.hosts;
    let diameter = if switches <= 1 {
        2.0
    } else {
        (switches + 1).min(8).max(fabric.hops) as f64
    };
    let bfs = fabric.groups as f64 * (fabric.nodes + 2 * fabric.links) as f64;
    (tr.sent * diameter + tr.flows as f64 + bfs).min(u64::MAX as f64) as u64
}

/// `trace` samples of one world: one at every multiple of `interval` up to
/// `stop` and one at the end of the run; columns grow by doubling (twice
/// the samples) and are copied into the result tables (once more).
fn trace_bytes(c: &Config, flows: u64) -> u64 {
    match &c.trace {
        Some(t) if t.interval.0 > 0 => {
            let samples = (c.stop.0 / t.interval.0).saturating_add(2);
            let per = if t.flows { flows * 48 } else { 0 } + t.queues.len() as u64 * 32;
            samples.saturating_mul(per).saturating_mul(3)
        }
        _ => 0,
    }
}

/// The largest pcap record: its 16-byte header, an IPv4 header and a TCP
/// header with the most options (60 bytes: its data offset's limit).
const PCAP_RECORD_MAX: f64 = 16.0 + 20.0 + 60.0;

/// What a capture's buffer holds before its first record
/// (`net::pcap::Capture::new`).
const PCAP_FIRST_BUFFER: f64 = (1u64 << 16) as f64;

/// `pcap` records: each at most [`PCAP_RECORD_MAX`] bytes, counted once
/// as held and once more for the copy returned, beside each capture's
/// first buffer and the unfilled part of its last (`net::pcap::CHUNK`:
/// the buffers never double).
///
/// A captured host records what it hands its NIC and what arrives for it:
/// at most every packet of the apps it takes part in (`sent_by_host`), and
/// no more than its links carry by `stop` ([`link_records`]). Each packet
/// is recorded at most twice (by its sender and its receiver), so all the
/// captures together hold at most twice the packets the run sends.
fn pcap_bytes(c: &Config, fabric: &Fabric, tr: &Traffic) -> u64 {
    let records: f64 = c
        .pcap_hosts
        .iter()
        .map(|&h| {
            let all = tr.sent_by_host.get(h).copied().unwrap_or(0.0);
            link_records(c, fabric, tr, h).map_or(all, |l| l.min(all))
        })
        .sum();
    let buffers = c.pcap_hosts.len() as f64 * (PCAP_FIRST_BUFFER + crate::net::pcap::CHUNK as f64);
    (records.min(2.0 * tr.sent) * PCAP_RECORD_MAX * 2.0 + buffers).min(u64::MAX as f64) as u64
}

/// The most packets host `h` can record by `stop` when its apps' sends
/// are clocked by what the network delivers (`None` otherwise). Its links
/// carry at most R·stop/8 bytes each way (every one counted at the fastest
/// rate a failure gives it), so at most `P` = that over the smallest full
/// segment's wire, plus one per link, plus a message's shorter last
/// segment per message, data packets each way. What it receives is that
/// data and the ACKs of what it sent (`P` each: a receiver sends at most
/// one ACK per data packet that arrives). What it hands its NIC, including
/// what the NIC drops before the link takes it, is its ACKs (`P`) and its
/// data: new data by `stop` is at most what was acknowledged (≤ R·stop/8)
/// plus the largest window, which starts at the initial window (at least
/// 4 segments) and grows by at most what is acknowledged (slow start, RFC
/// 3465) and what duplicate ACKs inflate (an MSS each, one per data packet
/// that arrives: ≤ `P`); each segment sent at most twice (the estimate's
/// reading of retransmissions, as for `events`).
fn link_records(c: &Config, fabric: &Fabric, tr: &Traffic, h: usize) -> Option<f64> {
    if !tr.clocked || tr.min_payload == u64::MAX {
        return None;
    }
    let node = *fabric.host_nodes.get(h)?;
    let mut rates = 0f64;
    let mut links = 0f64;
    // (a failure's rate is below its link's own: scenario/failures.rs)
    for l in c
        .topology
        .links
        .iter()
        .filter(|l| l.a == node || l.b == node)
    {
        rates += l.rate_bps as f64;
        links += 1.0;
    }
    let bytes = rates / 8.0 * c.stop.as_secs_f64();
    let tails = tr.msgs_by_host.get(h).copied().unwrap_or(0.0);
    let data = bytes / min_data_wire(c) as f64 + links + tails;
    let init = tr.init_bytes_by_host.get(h).copied().unwrap_or(0.0);
    let grown = 2.0 * bytes + data * tr.max_mss as f64;
    let handed = 2.0 * ((init + grown) / tr.min_payload as f64 + tails);
    Some(3.0 * data + handed)
}

/// The estimate before the run, as validation makes it: as many worlds
/// as the run may keep at most ([`worlds_at_most`]).
pub fn estimate(c: &Config) -> Estimate {
    estimate_for(c, worlds_at_most(c))
}

/// The estimate of a run that keeps `copies` worlds: one per partition
/// of its execution plan (`crate::parallel::ExecPlan`), one on one thread.
pub fn estimate_for(c: &Config, copies: u64) -> Estimate {
    let fabric = Fabric::of(c);
    let copies = copies.max(1);
    let net = Buffers::of(c);
    let traffic = Traffic::of(c, &fabric, &net);
    let results = tables_bytes(c, &fabric);
    let ((windows, windows_key), (packets, packets_key)) =
        windows_and_packets(&fabric, &net, &traffic);
    Estimate {
        first_windows: traffic.first_segs.saturating_mul(SEG_ENTRY),
        first_windows_key: traffic.first_key.1.clone(),
        windows_key,
        packets_key,
        routes: routes_bytes(c, &fabric, copies),
        packets,
        windows,
        flows: flow_state_bytes(c, &fabric, traffic.flows)
            .saturating_mul(copies)
            .saturating_add(resume_bytes(c, traffic.flows, copies)),
        results: results.0,
        results_key: results.1,
        trace: trace_bytes(c, traffic.flows).saturating_mul(copies),
        pcap: pcap_bytes(c, &fabric, &traffic),
        events: events(&fabric, &traffic),
        // an app's bytes are named only when that app is most of the
        // events: otherwise sending less in it would not bring them under
        events_key: if traffic.sent_key.0 >= 0.5 * traffic.sent {
            traffic.sent_key.1.clone()
        } else {
            "stop".to_string()
        },
    }
}

/// The most worlds a run of `c` can keep, without cutting it (the run
/// decides its cut once, where it starts): one per thread asked, and
/// never more than the switches with hosts (a host stays with its switch,
/// so each partition holds one at least). `"auto"` counts one: its plan
/// cuts the run only into as many worlds as fit `limits.memory`
/// (`crate::parallel::ExecPlan::auto`), so a run that fits one thread is
/// never refused for the machine's core count.
pub fn worlds_at_most(c: &Config) -> u64 {
    let asked = match c.threads {
        crate::config::Threads::N(n) => n as u64,
        crate::config::Threads::Auto => 1,
    };
    if asked <= 1 {
        return 1;
    }
    let topo = &c.topology;
    let host = |v: usize| topo.nodes[v].kind == crate::config::NodeKind::Host;
    let mut access: Vec<usize> = topo
        .links
        .iter()
        .filter_map(|l| match (host(l.a), host(l.b)) {
            (true, false) => Some(l.b),
            (false, true) => Some(l.a),
            _ => None,
        })
        .collect();
    access.sort_unstable();
    access.dedup();
    asked.min((access.len() as u64).max(1))
}

/// The key of the app that opens the most flows (a Poisson app's `load`
/// or `duration`, or a round app's servers); `apps` when none opens half
/// of them (21,120 one-flow apps: changing the last would change nothing).
fn flows_path(c: &Config) -> String {
    let total: u128 = c.apps.iter().map(|a| a.tcp_load(c.stop).0 as u128).sum();
    let most = c
        .apps
        .iter()
        .map(|a| a.tcp_load(c.stop).0 as u128)
        .max()
        .unwrap_or(0);
    if 2 * most < total {
        return "apps".to_string();
    }
    c.apps
        .iter()
        .enumerate()
        .max_by_key(|(_, a)| a.tcp_load(c.stop).0)
        .map_or("apps".to_string(), |(i, a)| match a {
            // the arrivals end at `stop` when it comes first: the duration
            // then changes nothing ([`AppSpec::tcp_load`])
            AppSpec::Poisson(p)
                if p.max_flows.is_none() && c.stop.saturating_sub(p.start) < p.duration =>
            {
                "stop".to_string()
            }
            AppSpec::Poisson(p) if p.max_flows.is_none() => format!("apps[{i}].duration"),
            AppSpec::Poisson(_) => format!("apps[{i}].flows"),
            _ => format!("apps[{i}]"),
        })
}

/// Problems of a scenario that is too big for `limits`, as (field path,
/// reason): the part of its memory estimate the run-time guard cannot stop
/// in time ([`Estimate::unguarded`]) over `limits.memory`, or its events
/// over `limits.events`. The rest of the memory estimate only warns
/// ([`warnings`]): the guard stops a run that really holds more.
pub fn check(c: &Config, lim: &Limits) -> Vec<(String, String)> {
    let e = estimate(c);
    let mut out = Vec::new();
    let unguarded = e.unguarded();
    if unguarded > lim.memory {
        let flows_path = flows_path(c);
        let terms = [
            (e.routes, "topology", "nodes, links and routing tables"),
            (
                e.flows,
                flows_path.as_str(),
                "flows' state, timers and result rows",
            ),
            (
                e.first_windows,
                e.first_windows_key.as_str(),
                "the flows' first windows",
            ),
            (e.trace, "trace.interval", "trace samples"),
        ];
        let (worst, breakdown) = largest_term(&terms);
        let worlds = worlds_at_most(c);
        // threads are a multiplier the user chose: say what one costs
        let one = (worlds > 1).then(|| estimate_for(c, 1).unguarded());
        let (worst, fix) = match one {
            Some(one) if one <= lim.memory => (
                "threads",
                format!(
                    " for its {worlds} worlds (threads = {worlds}; on one thread about {}, \
                     within the limit); fewer threads, or raise `limits.memory`",
                    fmt_bytes(one)
                ),
            ),
            Some(one) => (
                worst,
                format!(
                    " for its {worlds} worlds (threads = {worlds}; on one thread about {}); make \
                     the scenario smaller or raise `limits.memory`",
                    fmt_bytes(one)
                ),
            ),
            None => (
                worst,
                "; make the scenario smaller or raise `limits.memory`".to_string(),
            ),
        };
        out.push((
            worst.to_string(),
            format!(
                "the run needs about {} of memory that the run-time guard could not stop in time, \
                 over the {} limit ({breakdown}){fix}",
                fmt_bytes(unguarded),
                fmt_bytes(lim.memory)
            ),
        ));
    }
    if e.events > lim.events {
        let fix = if e.events_key == "stop" {
            "shorten `stop` or the traffic".to_string()
        } else {
            format!(
                "{k}'s bytes bound it, not `stop` (which leaves room for more): send less in {k}",
                k = e.events_key
            )
        };
        out.push((
            e.events_key.clone(),
            format!(
                "the run may need about {:.2e} events (over the limit of {:e}; \
                 at 10⁷ events/s that is {}); {fix}, or raise `limits.events`",
                e.events as f64,
                lim.events as f64,
                fmt_duration(e.events as f64 / 1e7)
            ),
        ));
    }
    out
}

/// The key behind the largest of `terms` (bytes, key, what) and every
/// non-zero term as "what N (key)", for a message that says where the
/// memory goes.
fn largest_term<'a>(terms: &[(u64, &'a str, &str)]) -> (&'a str, String) {
    let worst = terms.iter().max_by_key(|t| t.0).map_or("topology", |t| t.1);
    let breakdown = terms
        .iter()
        .filter(|t| t.0 > 0)
        .map(|t| format!("{} {} ({})", t.2, fmt_bytes(t.0), t.1))
        .collect::<Vec<_>>()
        .join(", ");
    (worst, breakdown)
}

/// The memory estimate over `limits.memory`, as a warning (field path,
/// reason) at the key behind its largest term, each term with its key:
/// the run starts, and the run-time guard stops it with a `limits.memory`
/// error if it really holds more (the estimate is an upper bound, often
/// several times what a run holds). Empty when the estimate fits, or when
/// [`check`] refuses the run anyway.
///
/// The limit does not follow the machine: an estimate over the machine's
/// physical memory ([`machine_memory`]) with a limit that is not below it
/// warns at `limits.memory` (the guard would not stop the run before the
/// machine runs out); under a lower limit the warning above says the
/// machine's figure beside the limit's.
pub fn warnings(c: &Config, lim: &Limits) -> Vec<(String, String)> {
    let e = estimate(c);
    let mem = e.memory();
    let machine = machine_memory().filter(|&m| mem > m);
    let mut out = Vec::new();
    if mem > lim.memory && e.unguarded() <= lim.memory {
        out.push(over_limit(c, &e, lim, machine));
    }
    if let Some(m) = machine.filter(|&m| lim.memory >= m) {
        out.push(over_machine(mem, m, lim));
    }
    out
}

fn over_limit(c: &Config, e: &Estimate, lim: &Limits, machine: Option<u64>) -> (String, String) {
    let flows_path = flows_path(c);
    let terms = [
        (e.routes, "topology", "nodes, links and routing tables"),
        (
            e.packets,
            e.packets_key.as_str(),
            "packets in flight (buffers and wires, or windows)",
        ),
        (
            e.windows,
            e.windows_key.as_str(),
            "flow windows (per segment)",
        ),
        (
            e.flows,
            flows_path.as_str(),
            "flows' state, timers and result rows",
        ),
        (e.results, e.results_key.as_str(), "queue and round tables"),
        (e.trace, "trace.interval", "trace samples"),
        (e.pcap, "pcap.hosts", "pcap records"),
    ];
    let (worst, breakdown) = largest_term(&terms);
    let machine = machine.map_or(String::new(), |m| {
        format!(
            "; it is also over this machine's {} (MemTotal in /proc/meminfo)",
            fmt_bytes(m)
        )
    });
    (
        worst.to_string(),
        format!(
            "the run may need up to about {} of memory, over the {} limit ({breakdown}); \
             it runs, and stops with a `limits.memory` error if it really holds more \
             (raise `limits.memory` or make the scenario smaller to be sure){machine}",
            fmt_bytes(e.memory()),
            fmt_bytes(lim.memory)
        ),
    )
}

/// The warning of an estimate `mem` over the machine's memory `machine`
/// under a limit that is not below it.
fn over_machine(mem: u64, machine: u64, lim: &Limits) -> (String, String) {
    (
        "limits.memory".to_string(),
        format!(
            "the run may need up to about {} of memory, more than this machine's {} \
             (MemTotal in /proc/meminfo), and the {} limit is not below that: the \
             run-time guard would not stop it before the machine runs out; set \
             `limits.memory` under {} or make the scenario smaller (the estimate is an \
             upper bound, often several times what a run holds)",
            fmt_bytes(mem),
            fmt_bytes(machine),
            fmt_bytes(lim.memory),
            fmt_bytes(machine)
        ),
    )
}

/// The machine's physical memory in bytes: `MemTotal` of /proc/meminfo,
/// read once; `None` where it cannot be read (not Linux), and then no
/// warning compares with it.
pub fn machine_memory() -> Option<u64> {
    static TOTAL: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    *TOTAL.get_or_init(|| {
        let text = std::fs::read_to_string("/proc/meminfo").ok()?;
        mem_total(&text)
    })
}

/// `MemTotal` of a /proc/meminfo text, in bytes.
fn mem_total(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let mut words = line["MemTotal:".len()..].split_whitespace();
    let n: u64 = words.next()?.parse().ok()?;
    match words.next() {
        Some("kB") => n.checked_mul(1024),
        None => Some(n),
        Some(_) => None,
    }
}

/// A wall time in the unit that reads best ("40 s", "12 min", "3.5 hours"):
/// a small `limits.events` must not read as "0.0 hours".
fn fmt_duration(s: f64) -> String {
    if s < 60.0 {
        format!("{s:.2} s")
    } else if s < 3600.0 {
        format!("{:.1} min", s / 60.0)
    } else {
        format!("{:.1} hours", s / 3600.0)
    }
}

pub use crate::world::Accounted;

/// What a running world holds on the heap, by component.
pub fn accounted(w: &crate::world::World) -> Accounted {
    w.accounted()
}

/// What building the result tables will add, at most: a row per flow and
/// per loss indication, copies of the trace and the pcap records, and the
/// other tables' rows.
pub fn results_bytes(w: &crate::world::World, a: &Accounted, slot_rows: u64) -> usize {
    let flows = w.tcp_flows().len() + w.udp_flows().len();
    let links = w.links().len();
    // the table's rows, not the slots the switches hold (1.27 M at k = 32
    // against 110 k rows: a guard counting every slot stopped runs that fit)
    let slots = (w.inputs().len() as u64).min(slot_rows) as usize;
    let name_max = w.node_names().iter().map(|n| n.len()).max().unwrap_or(0);
    let name = size_of::<String>() + 32 + name_max;
    flows * FLOW_RESULT_BYTES
        + a.losses * crate::stats::report::LOSS_RESULT_BYTES
        + a.trace
        + a.pcap
        + links * (QUEUE_ROW_BYTES + 2 * name)
        + slots * (SLOT_ROW_BYTES + 3 * name)
        + a.apps
}

/// Bytes a run holds now plus what its results will add (the guard's
/// measure), with `queue_inputs` at most `slot_rows` rows ([`slot_rows`]).
pub fn run_bytes(w: &crate::world::World, slot_rows: u64) -> u64 {
    let a = accounted(w);
    (a.total() + results_bytes(w, &a, slot_rows)) as u64
}

/// The most rows `queue_inputs` can have in a run of `c` (the guard's bound
/// for that table).
pub fn slot_rows(c: &Config) -> u64 {
    Fabric::of(c).slot_rows()
}

/// Events between two checks of the guard: the headroom at a generous
/// 1 KB per event (a new flow, its row and its Vec's growth), at least
/// 2¹⁶ and at least 4 per flow so the O(flows) check stays cheap.
pub fn guard_interval(w: &crate::world::World, used: u64, limit: u64) -> u64 {
    (limit.saturating_sub(used) / 1024)
        .max(1 << 16)
        .max(4 * w.tcp_flows().len() as u64)
}

/// The run-time guard's verdict, as the message of a `limits.memory` error.
pub fn memory_exceeded(
    used: u64,
    limit: u64,
    estimate: u64,
    at: crate::sim::time::SimTime,
) -> String {
    format!(
        "the run stopped at {:.6} s: it held {} (state plus the result tables it would build), \
         over the {} limit (the estimate before the run was {}); nothing was written; \
         make the scenario smaller or raise `limits.memory`",
        at.as_secs_f64(),
        fmt_bytes(used),
        fmt_bytes(limit),
        fmt_bytes(estimate)
    )
}
