//! The simulation: network core, flows, applications and the event loop.

use crate::app::{App, AppCtx, FlowMeta, UdpFlow};
use crate::config::{Config, NodeKind, RoutingMode, TraceConfig};
use crate::net::int::IntStack;
use crate::net::pcap::Capture;
use crate::net::routing::Routes;
use crate::net::{flags, Arena, Enqueue, Hdr, HdrWords, Links, Packet, PktId, PktKind, NO_ROUTE};
use crate::sim::prefetch::{prefetch, prefetch_at};
use crate::sim::queue::{Event, EventQueue};
use crate::sim::rng::{mix64, stream, Rng, Stream};
use crate::sim::time::SimTime;
use crate::tcp::{TcpFlow, TcpIo, TcpOut, TcpTimer};
use rand::Rng as _;

// The per-input and per-flow tables live in net/ now; their old paths stay
// valid for the report and the memory guard.
pub use crate::net::inputs::{
    DropRuns, InputStats, InputTable, INPUT_SLOT_BYTES, WIDE_SLOT_BYTES, WIDE_SWITCH_INPUTS,
};
use crate::net::route::{five_tuple, FlowRoute, FlowletEntry, Hop, Paths, RouteHop};
pub use crate::net::route::{
    FLOWLET_SLOTS, FLOWLET_TABLE_BYTES, RESUME_BYTES_PER_FLOW, ROUTE_BYTES_FIXED,
    ROUTE_BYTES_PER_HOP,
};

mod footprint;
mod reads;
mod seam;
pub use footprint::Accounted;
pub use reads::Counters;
pub use seam::{Seam, Whole};

/// The event of TCP flow `flow`'s timer `timer`.
#[inline]
fn wake(flow: u32, timer: TcpTimer) -> Event {
    match timer {
        TcpTimer::Rto => Event::Rto(flow),
        TcpTimer::DelAck => Event::DelAck(flow),
        TcpTimer::ProbRetx => Event::ProbRetx(flow),
        TcpTimer::Rack => Event::Rack(flow),
    }
}

/// Where a packet's flow keeps its source route: the index into the TCP
/// (data `2f`, ACKs `2f + 1`) or, when the flag is set, the UDP slots.
#[inline(always)]
fn route_slot(p: &Packet) -> (usize, bool) {
    match p.kind {
        PktKind::Data => (2 * p.flow as usize, false),
        PktKind::Ack => (2 * p.flow as usize + 1, false),
        PktKind::Udp => (p.flow as usize, true),
    }
}

/// "No input link": a packet handed to a NIC by its own host.
pub use crate::net::NO_LINK;

/// Above this much hot state ([`World::run`]) the event loop stages its
/// read-ahead over three events: 32 MiB, a server's last-level cache (the
/// project machine's L3). A heuristic for speed only; no result depends on it.
pub const DEEP_READAHEAD_BYTES: usize = 32 << 20;
/// At or below this much hot state the loop does not read ahead at all:
/// 512 KiB, half a Zen 4 core's L2 (the rest holds code, routes and the
/// stack). A star's incast (0.13–0.43 MB) ran 10–14 % faster without it; a
/// k = 8 fat-tree (0.35 MB at its start, over 1 MB soon) reads ahead as
/// before, and k = 16 without any read-ahead ran 30 % slower
/// (docs/performance.md, "The hot path").
pub const SHALLOW_READAHEAD_BYTES: usize = 512 << 10;

/// Bit of [`Core::far`]'s word that says the link leads to a host (the
/// rest is the host's index; without it, the switch's node index).
const FAR_HOST: u32 = 1 << 31;

/// Everything a packet touches on its way: clock, links, arena, routes.
pub struct Core {
    pub q: EventQueue,
    pub links: Links,
    pub arena: Arena,
    /// Shared by a partitioned run's worlds (built once).
    pub routes: std::sync::Arc<Routes>,
    /// Host index of each node (`u32::MAX` for switches).
    pub node_host: Vec<u32>,
    /// Node index of each host.
    pub host_node: Vec<u32>,
    /// Per link, what its far end is: the switch's node index, or
    /// [`FAR_HOST`] with the host's index. One load answers the question
    /// every hop asks three times (at its arrival, for the next hop's
    /// hint, and in the read-ahead), where `node_host[links.to(l)]` was
    /// two dependent ones and two bounds checks each time.
    far: Vec<u32>,
    /// A link leaving each host (its first; `u32::MAX` if none): what the
    /// host sends next most likely leaves by it, so its state line is
    /// prefetched before a packet reaches the host.
    host_nic: Vec<u32>,
    pub node_names: Vec<String>,
    pub mode: RoutingMode,
    switch_rng: Vec<Rng>,
    ecmp_salt: Vec<u64>,
    /// Flowlet mode: per switch, a direct-mapped table of `FLOWLET_SLOTS`
    /// entries (empty otherwise), as a switch's flowlet table in hardware.
    flowlets: Vec<FlowletEntry>,
    /// New flowlets started (a next hop chosen afresh), over all switches.
    pub flowlets_started: u64,
    pub l2_overhead: u32,
    host_jitter: SimTime,
    host_rng: Vec<Rng>,
    pub packet_hops: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub tcp_drops: Vec<DropRuns>,
    pub udp_drops: Vec<DropRuns>,
    /// Capture index of each host (`u32::MAX` = not captured).
    capture_of: Vec<u32>,
    pub captures: Vec<Capture>,
    pub inputs: InputTable,
    paths: Paths,
    /// What this world runs of the model, and whom it tells of drops and
    /// apps' ends ([`Whole`] on one thread).
    pub seam: Box<dyn Seam>,
}

impl Core {
    /// A host hands a new packet to its NIC.
    #[inline]
    pub fn send_from_host(&mut self, host: u32, pkt: &Packet) -> PktId {
        let node = self.host_node[host as usize];
        let c = self.capture_of[host as usize];
        if c != u32::MAX {
            // taken back if the NIC queue drops it (`forward_inline`'s drop)
            self.captures[c as usize].record(self.q.now(), pkt);
        }
        let route = if self.paths.enabled {
            self.source_route(host, pkt)
        } else {
            NO_ROUTE
        };
        let h = Hdr {
            id: self.arena.alloc(pkt),
            wire: pkt.wire,
            route,
            next: NO_LINK,
            flow: pkt.flow,
            flags: pkt.flags,
            kind: pkt.kind,
        };
        self.forward(node, h.words());
        h.id
    }

    /// [`Self::send_from_host`] for a packet that carries INT records (an
    /// HPCC ACK, the records of the data it answers): they are set on the
    /// id it is about to get, before its NIC can drop it, so a drop clears
    /// them with it. Set after the send, a dropped ACK's records stayed on
    /// its freed id, and the next packet given that id carried them as its
    /// own first hops (a run on several threads, whose worlds reuse ids
    /// differently, then differed from one thread's). Out of the send's
    /// own path, which stays as it was.
    #[inline(never)]
    pub fn send_from_host_int(&mut self, host: u32, pkt: &Packet, int: IntStack) -> PktId {
        let id = self.arena.next_id();
        self.links.int.set(id, int);
        let sent = self.send_from_host(host, pkt);
        debug_assert_eq!(sent, id, "the id the arena said it would give");
        sent
    }

    /// The egress link at `node` for a packet with these header fields, as
    /// the routing mode picks it (`None`: no route).
    #[inline(always)]
    fn pick(
        &mut self,
        node: u32,
        src: u32,
        dst: u32,
        flow: u32,
        kind: PktKind,
        label: u16,
    ) -> Option<u32> {
        let hops = self.routes.next_hops(node as usize, dst as usize);
        Some(match hops.len() {
            0 => return None,
            1 => hops[0],
            n => match self.mode {
                RoutingMode::Single => hops[0],
                RoutingMode::Ecmp => {
                    let tuple = five_tuple(src, dst, flow, kind, label);
                    hops[(mix64(tuple ^ self.ecmp_salt[node as usize]) % n as u64) as usize]
                }
                // Every switch computes the same function of the tuple.
                RoutingMode::EcmpUnsalted => {
                    hops[(mix64(five_tuple(src, dst, flow, kind, label)) % n as u64) as usize]
                }
                RoutingMode::Rps => hops[self.switch_rng[node as usize].gen_range(0..n)],
                RoutingMode::Flowlet { gap } => {
                    let tuple = five_tuple(src, dst, flow, kind, label);
                    let h = mix64(tuple ^ self.ecmp_salt[node as usize]);
                    let slot = node as usize * FLOWLET_SLOTS + (h as usize & (FLOWLET_SLOTS - 1));
                    let now = self.q.now();
                    let e = &mut self.flowlets[slot];
                    if e.key != tuple.wrapping_add(1) || now.saturating_sub(e.last) > gap {
                        e.key = tuple.wrapping_add(1);
                        e.link = hops[self.switch_rng[node as usize].gen_range(0..n)];
                        self.flowlets_started += 1;
                    }
                    e.last = now;
                    e.link
                }
            },
        })
    }

    /// The source route of a packet `host` sends (see [`Paths`]): looked up
    /// by its flow, computed and interned on the flow's first packet.
    #[inline]
    fn source_route(&mut self, host: u32, p: &Packet) -> u32 {
        // a host sends its own packets (the route starts at `src`)
        debug_assert_eq!(host, p.src);
        let key = FlowRoute {
            label: p.label as u32,
            src: p.src,
            dst: p.dst,
            route: 0,
        };
        if let Some(r) = self.flow_route(p) {
            if (r.src, r.dst, r.label) == (p.src, p.dst, p.label as u32) {
                return r.route;
            }
        }
        let (i, udp) = route_slot(p);
        self.new_source_route(key, i, udp, p)
    }

    #[cold]
    fn new_source_route(&mut self, mut key: FlowRoute, i: usize, udp: bool, p: &Packet) -> u32 {
        // Walk the path the tables give, hop by hop, exactly as `forward`
        // would (static modes draw no randomness, so nothing is consumed).
        let mut hops = Vec::new();
        let mut node = self.host_node[key.src as usize];
        let mut input = NO_LINK;
        key.route = loop {
            let Some(link) = self.pick(node, p.src, p.dst, p.flow, p.kind, p.label) else {
                // Unreachable: route hop by hop, to fail where it always did.
                break NO_ROUTE;
            };
            let slot = if input == NO_LINK {
                u32::MAX
            } else {
                self.inputs.slot(link, input)
            };
            hops.push(Hop { link, slot });
            node = self.links.to(link);
            input = link;
            if self.node_host[node as usize] != u32::MAX {
                break self.paths.intern(hops, &self.inputs);
            }
            assert!(hops.len() <= self.node_host.len(), "routing loop");
        };
        let v = if udp {
            &mut self.paths.udp
        } else {
            &mut self.paths.tcp
        };
        if v.len() <= i {
            v.resize(i + 1, FlowRoute::NONE);
        }
        v[i] = key;
        key.route
    }

    /// Start fetching what the next arrival on link `l` will need, so
    /// those cache misses overlap the current event's work: at k = 16 a
    /// hop otherwise waits on them one after another. The link's state
    /// line and head slot are read (their contents are the addresses of
    /// the rest); the route entry, the egress link's state line (named by
    /// the slot's [`Hdr::next`]) and, at a host, the packet are prefetched,
    /// which does not stall the loop as a chain of loads would.
    #[inline(always)]
    fn touch_next_hop(&self, l: u32) -> Option<Hdr> {
        let h = self.links.peek_head(l);
        let far = self.far[l as usize];
        if far & FAR_HOST == 0 {
            if h.route != NO_ROUTE {
                prefetch_at(&self.paths.hops, h.route as usize);
            }
            self.links.prefetch_state(h.next);
            None
        } else {
            self.arena.prefetch(h.id);
            self.links
                .prefetch_state(self.host_nic[(far & !FAR_HOST) as usize]);
            Some(h)
        }
    }

    /// [`Self::forward_inline`] out of line, for packets leaving a host
    /// (a new send, or a trimmed header bounced back).
    /// (`h` in words: [`HdrWords`])
    #[inline(never)]
    fn forward(&mut self, node: u32, h: HdrWords) {
        self.forward_inline::<true>(node, Hdr::from_words(h), NO_LINK)
    }

    /// Pick the egress link at `node` for packet `h`, which came in on
    /// link `input` (`NO_LINK` from the node's own host stack), and enqueue
    /// it there: the next hop of its source route if it has one (without
    /// reading the packet), else from the tables.
    /// `FROM_HOST`: whether `input` is `NO_LINK` (a host's send; else a
    /// switch hop), known where each caller is compiled, so a switch hop
    /// carries neither the host's timing noise nor the tests for it.
    #[inline(always)]
    fn forward_inline<const FROM_HOST: bool>(&mut self, node: u32, mut h: Hdr, input: u32) {
        debug_assert_eq!(FROM_HOST, input == NO_LINK);
        let id = h.id;
        // `entry`: the route entry that tallies this hop (NO_ROUTE: the slot's word).
        let mut entry = NO_ROUTE;
        let (link, slot) = if h.route != NO_ROUTE {
            let e = h.route;
            let hop = self.paths.hops[e as usize];
            debug_assert!(
                FROM_HOST || h.next == hop.link,
                "the prefetch hint named link {} for route entry {e} (link {})",
                h.next,
                hop.link
            );
            h.route += 1;
            if hop.slot & RouteHop::DIRECT == 0 {
                entry = e;
            }
            // A route ends at a host; before that, the entry names the
            // next switch's egress.
            h.next = hop.next;
            debug_assert_eq!(
                hop.next == NO_LINK,
                self.far[hop.link as usize] & FAR_HOST != 0,
                "route entry {e}'s next hop against where its link leads"
            );
            (hop.link, hop.slot & !RouteHop::DIRECT)
        } else {
            let pk = self.arena.get(id);
            let (src, dst, flow, kind, label) = (pk.src, pk.dst, pk.flow, pk.kind, pk.label);
            let Some(link) = self.pick(node, src, dst, flow, kind, label) else {
                unreachable!("no route from node {node} to host {dst}")
            };
            let slot = if FROM_HOST {
                u32::MAX
            } else {
                self.inputs.slot(link, input)
            };
            (link, slot)
        };
        // Host timing noise applies only when the NIC is idle, so it shifts
        // the phase of ACK-clocked packets without lowering the line rate.
        let jitter =
            if FROM_HOST && self.host_jitter.0 > 0 && self.links.idle_at(link, self.q.now()) {
                let src = self.arena.get(id).src;
                SimTime(self.host_rng[src as usize].gen_range(0..=self.host_jitter.0))
            } else {
                SimTime::ZERO
            };
        let res = self.links.enqueue_from(link, h, &mut self.q, jitter, input);
        let dropped = res == Enqueue::Dropped;
        if !FROM_HOST {
            if entry == NO_ROUTE {
                self.inputs.record(slot, dropped);
            } else {
                let e = &mut self.paths.hops[entry as usize];
                e.offered = e.offered.wrapping_add(1);
                if e.offered == 0 || dropped {
                    self.paths.tally_rare(entry, dropped, &mut self.inputs);
                }
            }
        }
        if dropped {
            let pk = self.arena.get(id);
            let (flow, txn) = (pk.flow as usize, pk.txn);
            let kind = pk.kind;
            if FROM_HOST {
                // A capture sees what the NIC queue accepts, as tcpdump
                // (which taps after the qdisc) and ns-3's device trace do:
                // a drop at a full `nic_buffer` is the host's own, not the
                // fabric's. Taken back here, on the drop's cold path.
                let c = self.capture_of[pk.src as usize];
                if c != u32::MAX {
                    self.captures[c as usize].take_back_last();
                }
            }
            self.seam.dropped(self.q.last_key(), flow as u32, txn, kind);
            match kind {
                PktKind::Data => self.tcp_drops[flow].on_drop(txn),
                PktKind::Udp => self.udp_drops[flow].on_drop(txn),
                PktKind::Ack => self.tcp_drops[flow].ack_drops += 1,
            }
            self.dropped += 1;
            if self.links.int.on() {
                self.links.int.clear(id);
            }
            self.arena.release(id);
        } else if res == Enqueue::Bounced {
            self.bounce(node, h.words());
        }
    }

    /// A trimmed NDP header that found a full header queue at `node` goes
    /// back to its sender (`trimming.return_to_sender`), routed from the
    /// tables; it is marked so that it is not bounced twice.
    #[cold]
    #[inline(never)]
    fn bounce(&mut self, node: u32, w: HdrWords) {
        let mut h = Hdr::from_words(w);
        let pk = self.arena.get_mut(h.id);
        std::mem::swap(&mut pk.src, &mut pk.dst);
        pk.flags |= flags::BOUNCED;
        h.flags |= flags::BOUNCED;
        h.route = NO_ROUTE;
        h.next = NO_LINK;
        self.forward(node, h.words());
    }

    /// The route slot of `pkt`'s flow, if the store has grown that far
    /// (whether it holds this packet's route is [`Self::source_route`]'s
    /// check).
    #[inline(always)]
    fn flow_route(&self, pkt: &Packet) -> Option<&FlowRoute> {
        let (i, udp) = route_slot(pkt);
        if udp {
            self.paths.udp.get(i)
        } else {
            self.paths.tcp.get(i)
        }
    }

    /// A packet that enters this world on link `link` (sent into a sink
    /// by another world): its source route's entry for the hop after that
    /// link and the link that hop takes (computed from the packet's source
    /// host as the sender computed it, and interned here once per flow),
    /// or `(NO_ROUTE, NO_LINK)` where packets are routed from the tables.
    pub fn resume_route(&mut self, pkt: &Packet, link: u32) -> (u32, u32) {
        // a trimmed header bounced back to its sender is routed from the
        // tables at every hop (`bounce`), wherever it crosses; a TCP
        // segment with CWR, the same bit, is not (DCTCP sets it after each
        // window cut: at k = 32 those segments' table walks after the cut
        // were 1.5 % of a two-thread run's CPU)
        if !self.paths.enabled || flags::bounced(pkt.flags) {
            return (NO_ROUTE, NO_LINK);
        }
        let mut e = self.source_route(pkt.src, pkt);
        if e == NO_ROUTE {
            return (NO_ROUTE, NO_LINK);
        }
        while self.paths.hops[e as usize].link != link {
            e += 1;
        }
        let next = e + 1;
        (next, self.paths.hops[next as usize].link)
    }

    /// Add the counts of `o`, the core of a world that ran other nodes of
    /// the same model.
    pub fn absorb_counts(&mut self, o: &Core) {
        self.packet_hops += o.packet_hops;
        self.delivered += o.delivered;
        self.dropped += o.dropped;
        self.flowlets_started += o.flowlets_started;
        self.arena.created += o.arena.created;
        self.arena.released += o.arena.released;
    }

    /// Fold every route entry's tally into its slot's word (the end of
    /// the run: the report reads the words).
    pub fn fold_route_tallies(&mut self) {
        self.paths.fold_tallies(&mut self.inputs);
    }

    /// Heap bytes fixed when the world is built: routes, per-node and
    /// per-link tables, the flowlet table.
    pub fn fixed_heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.routes.heap_bytes()
            + self.links.fixed_heap_bytes()
            + (self.node_host.capacity()
                + self.host_node.capacity()
                + self.host_nic.capacity()
                + self.far.capacity()
                + self.capture_of.capacity())
                * 4
            + self
                .node_names
                .iter()
                .map(|n| n.capacity() + 24)
                .sum::<usize>()
            + (self.switch_rng.capacity() + self.host_rng.capacity()) * size_of::<Rng>()
            + self.ecmp_salt.capacity() * 8
            + self.flowlets.capacity() * size_of::<FlowletEntry>()
            + self.inputs.heap_bytes()
    }

    /// Heap bytes of the per-flow routes of the static routing modes.
    pub fn paths_heap_bytes(&self) -> usize {
        self.paths.heap_bytes()
    }

    /// Unloaded round-trip time of a packet of `fwd` wire bytes from `src`
    /// to `dst` and one of `rev` bytes back, along the first shortest path.
    /// A packet whose `ts` is the time it starts to leave its host's NIC:
    /// now plus the NIC's backlog at its line rate (the NIC serves in
    /// order, so what waits ahead is all that delays it).
    /// Returns the stamp.
    #[cold]
    pub fn send_nic_stamped(&mut self, mut pkt: Packet) -> SimTime {
        let nic = self.host_nic[pkt.src as usize] as usize;
        let now = self.q.now();
        let (bytes, _) = self.links.occupancy(nic, now);
        let rate = self.links.info(nic).rate_bps;
        pkt.ts = now + SimTime((bytes as u128 * 8_000_000_000_000 / rate as u128) as u64);
        self.send_from_host(pkt.src, &pkt);
        pkt.ts
    }

    /// Links from host `src` to host `dst` on the first of its routes.
    pub fn hops(&self, src: u32, dst: u32) -> u32 {
        let mut node = self.host_node[src as usize] as usize;
        let target = self.host_node[dst as usize] as usize;
        let mut n = 0;
        while node != target {
            let l = self.routes.next_hops(node, dst as usize)[0] as usize;
            node = self.links.info(l).to as usize;
            n += 1;
        }
        n
    }

    pub fn base_rtt(&self, src: u32, dst: u32, fwd: u32, rev: u32) -> SimTime {
        self.one_way(src, dst, fwd) + self.one_way(dst, src, rev)
    }

    fn one_way(&self, src: u32, dst: u32, bytes: u32) -> SimTime {
        let mut node = self.host_node[src as usize] as usize;
        let target = self.host_node[dst as usize] as usize;
        let mut t = SimTime::ZERO;
        while node != target {
            let l = self.routes.next_hops(node, dst as usize)[0] as usize;
            t += self.links.tx_time(l, bytes) + self.links.delay(l);
            node = self.links.info(l).to as usize;
        }
        t
    }
}

/// What the receiving application of one TCP flow has been handed,
/// counted by the application layer itself (not read back from the
/// transport's `rcv_nxt`), so the conservation checker compares two
/// independent tallies.
#[derive(Clone, Copy, Debug, Default)]
pub struct AppRx {
    /// Bytes handed up in order.
    pub bytes: u64,
    /// Messages (blocks, responses, requests) the application received.
    pub msgs: u64,
    /// When the application received its last message.
    pub last_msg: Option<SimTime>,
}

/// Deliberate faults for the conservation tests: each breaks one law the
/// checker must then report. Hidden and reachable only from Rust (not from
/// scenarios, the CLI or Python); `None` in every real run.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The n-th packet (counting from 1) to reach a host vanishes: it is
    /// neither delivered nor dropped nor released.
    LosePacket(u64),
    /// The n-th in-order hand-off to a receiving application is made twice.
    DoubleHandoff(u64),
    /// The n-th in-order hand-off is lost between transport and application.
    DropHandoff(u64),
}

pub struct World {
    pub core: Core,
    pub flows: Vec<TcpFlow>,
    /// The distinct TCP configurations, each shared by its flows (at most
    /// one per app: an app gives all its flows one configuration).
    tcp_classes: Vec<std::sync::Arc<crate::config::TcpConfig>>,
    /// The TCP endpoints' shared outbox: a flow fills it during a call,
    /// [`World::flush_tcp`] empties it right after.
    tcp_io: TcpIo,
    pub flow_meta: Vec<FlowMeta>,
    pub udps: Vec<UdpFlow>,
    pub apps: Vec<App>,
    pub stop: SimTime,
    pub seed: u64,
    pub name: String,
    /// Apps that have not finished yet; the run ends when this reaches 0.
    /// With `until = "stop"` it counts one more, an app that never
    /// finishes, so every loop that ends on it runs to `stop` at no cost
    /// per event; [`Self::finish`] takes it off ([`Self::run_to_stop`]).
    pub pending_apps: usize,
    /// `until = "stop"`: [`Self::pending_apps`] holds the app that never
    /// finishes (cleared when it is taken off, or when a partitioned run's
    /// merged world counts its apps again).
    pub run_to_stop: bool,
    pub trace: Option<Trace>,
    /// Per TCP flow: what its receiving application was handed.
    pub app_rx: Vec<AppRx>,
    #[doc(hidden)]
    pub fault: Option<Fault>,
    /// Routing's changes at failures' `converge` times (None: none).
    reroutes: Option<Box<Reroutes>>,
    /// Packets that reached a host / in-order hand-offs so far (for `fault`).
    fault_count: [u64; 2],
    /// The run-time memory guard, if one is installed ([`crate::guarded_world`]).
    memory_guard: Option<MemoryGuard>,
    /// Events processed when the memory guard looks next.
    next_mem_check: u64,
    /// Events processed when the read-ahead depth is chosen next.
    next_depth_check: u64,
    /// The earlier of the two: the one test [`Self::run`] makes per event.
    next_check: u64,
    /// Whether the state a hop can touch has outgrown a typical last-level
    /// cache: the loop then stages its read-ahead over three events (see
    /// [`Self::run`]).
    deep_readahead: bool,
    /// Whether the loop reads ahead at all ([`Self::choose_readahead`]).
    shallow_readahead: bool,
    /// Hot bytes above which it does ([`SHALLOW_READAHEAD_BYTES`]; tests
    /// set 0 or `usize::MAX`).
    #[doc(hidden)]
    pub shallow_readahead_above: usize,
    /// The size of that state above which it does
    /// ([`DEEP_READAHEAD_BYTES`]; tests set 0 or `usize::MAX`).
    #[doc(hidden)]
    pub deep_readahead_above: usize,
    /// Set when the guard stopped the run.
    pub memory_stop: Option<MemoryStop>,
    /// Asked every 2¹⁶ events whether to stop ([`Self::set_interrupt`]).
    interrupt: Option<Interrupt>,
    /// Set when the interrupt check stopped the run.
    pub interrupted: bool,
    /// Told the clock and the events so far every 2¹⁶ events
    /// ([`Self::set_progress`]).
    progress: Option<Progress>,
    /// Threads (partitions) that ran this world: 1, or a merged
    /// partitioned run's ([`crate::parallel`]).
    pub threads_used: u32,
    /// Worker threads that ran them (fewer than `threads_used` when the
    /// partitions outnumber the cores).
    pub workers_used: u32,
    /// Links and route tallies are closed ([`Self::finish_books`]): a
    /// partitioned run closes each partition's before merging them.
    books_closed: bool,
    /// NDP's pull pacers, one per host (empty without NDP flows).
    pacers: Vec<Pacer>,
    /// Trimmed headers of TCP flows that reached their receiver: TCP
    /// cannot use a header, so each is a loss.
    pub tcp_headers_discarded: u64,
}

/// A receiving host's NDP pull pacer (tcp/ndp.rs): one pull per packet
/// time at `ndp_pull_rate` × its line rate, round-robin over its flows.
#[derive(Clone, Debug, Default)]
struct Pacer {
    /// No pull before this.
    next: SimTime,
    /// Flows with pulls waiting, in turn.
    rr: std::collections::VecDeque<u32>,
    /// An `Event::Pace` is pending.
    armed: bool,
}

/// A check the run loop makes with its periodic work, every 2¹⁶ events
/// (a few milliseconds of simulation), so it costs the per-event path
/// nothing: `true` stops the run. The Python binding polls the
/// interpreter's signals here, so Ctrl-C stops a run within a second.
pub type Interrupt = Box<dyn FnMut() -> bool + Send>;

/// A progress report: the simulated time reached and the events processed
/// so far, told in the loop's periodic work (every 2¹⁶ events, off the
/// per-event path); it only watches, never changes what a run does.
pub type Progress = Box<dyn FnMut(SimTime, u64) + Send>;

/// The run-time memory guard. `limits` measures a world, so the guard is
/// installed from outside (lib) as two functions: the world only asks, and
/// needs no dependency on the estimator.
#[derive(Clone, Copy)]
pub struct MemoryGuard {
    /// `limits.memory`.
    pub limit: u64,
    /// Bytes the run holds now plus what its result tables will add, given
    /// [`Self::slot_rows`].
    pub measure: fn(&World, u64) -> u64,
    /// The most rows the `queue_inputs` table can have (the switches hold
    /// far more input slots than ever offer a packet).
    pub slot_rows: u64,
    /// Events until the next look, given (world, bytes held, limit).
    pub interval: fn(&World, u64, u64) -> u64,
}

/// Where the guard stopped a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryStop {
    /// What the run held (state plus the tables it would build).
    pub used: u64,
    pub limit: u64,
    pub at: SimTime,
}

/// The world as applications see it.
impl AppCtx for World {
    #[inline]
    fn now(&self) -> SimTime {
        self.core.q.now()
    }
    fn seed(&self) -> u64 {
        self.seed
    }
    fn l2_overhead(&self) -> u32 {
        self.core.l2_overhead
    }
    #[inline]
    fn flows(&self) -> &[TcpFlow] {
        &self.flows
    }
    fn flow_mut(&mut self, flow: u32) -> &mut TcpFlow {
        &mut self.flows[flow as usize]
    }
    fn flow_meta(&self, flow: u32) -> FlowMeta {
        self.flow_meta[flow as usize]
    }
    fn add_tcp_flow(
        &mut self,
        app: u32,
        src: u32,
        dst: u32,
        cfg: &crate::config::TcpConfig,
        meta: FlowMeta,
    ) -> u32 {
        World::add_tcp_flow(self, app, src, dst, cfg, meta)
    }
    fn add_udp_flow(&mut self, u: UdpFlow) -> u32 {
        World::add_udp_flow(self, u)
    }
    fn udp(&mut self, flow: u32) -> &mut UdpFlow {
        &mut self.udps[flow as usize]
    }
    #[inline]
    fn tcp_write(&mut self, flow: u32, bytes: u64, msg_tag: Option<u32>) {
        // Each end's world runs the app's event: the sender's writes, a
        // receiver's without the sender only learns the message bounds.
        let f = &self.flows[flow as usize];
        if self.core.seam.runs_host(f.src_host) {
            World::tcp_write(self, flow, bytes, msg_tag)
        } else if self.core.seam.runs_host(f.dst_host) {
            self.flows[flow as usize].note_write(bytes, msg_tag);
        }
    }
    fn answered(&mut self, flow: u32) {
        // the receiving end's world: the answer is written where the
        // request was delivered
        if self.core.seam.runs_host(self.flows[flow as usize].dst_host) {
            let io = self.tcp_io.at(self.core.q.now());
            self.flows[flow as usize].ack_answered(io);
            self.flush_tcp(flow);
        }
    }
    fn wake(&mut self, at: SimTime, app: u32, tag: u32) {
        self.core.q.schedule(at, Event::App { app, tag });
    }
    fn wake_udp(&mut self, at: SimTime, flow: u32) {
        if self.core.seam.runs_host(self.udps[flow as usize].src) {
            self.core.q.schedule(at, Event::Udp(flow));
        }
    }
    fn runs_host(&self, host: u32) -> bool {
        self.core.seam.runs_host(host)
    }
    fn app_done(&mut self) {
        if self.core.seam.app_done() {
            self.pending_apps -= 1;
            if self.pending_apps == 0 {
                let key = self.core.q.last_key();
                self.core.seam.all_apps_done(key);
            }
        }
    }
}

/// Collected time series (columns), filled by the periodic `Sample` event.
#[derive(Default)]
pub struct Trace {
    pub cfg: TraceConfig,
    pub f_time: Vec<f64>,
    pub f_flow: Vec<u64>,
    pub f_delivered: Vec<u64>,
    pub f_cwnd: Vec<u64>,
    pub f_ssthresh: Vec<f64>,
    pub f_srtt: Vec<f64>,
    pub q_time: Vec<f64>,
    pub q_id: Vec<u64>,
    pub q_bytes: Vec<u64>,
    pub q_pkts: Vec<u64>,
    /// When the next sample is due (the clock event also serves `Reroutes`).
    pub next: SimTime,
    /// The last sample taken: its time and the rows the columns held
    /// before it (so the sample at the end of the run can replace one
    /// taken at that instant before the run's last events).
    last: Option<(SimTime, usize, usize)>,
    /// The sample at the end of the run is taken ([`World::sample_end`]).
    ended: bool,
}

/// Routing that converges around failing links (`[[failures]]` with
/// `converge`): the tables are computed anew at each instant the set of
/// routed-around links changes, in every partition alike.
pub struct Reroutes {
    topo: crate::config::TopologySpec,
    /// (when, per directed link whether routing avoids it from then on).
    steps: Vec<(SimTime, Vec<bool>)>,
    next: usize,
}

/// A flow's ssthresh as the trace's `ssthresh_bytes`: `inf` while it is
/// unset (`u64::MAX`, RFC 5681's "arbitrarily high" initial value) or at
/// Linux's `TCP_INFINITE_SSTHRESH` (0x7fffffff segments), where BBR keeps
/// it through its losses (`tcp/cc/bbr.rs`): not a byte count anyone set.
fn ssthresh_bytes(ssthresh: u64, smss: u64) -> f64 {
    if ssthresh == u64::MAX
        || ssthresh >= crate::tcp::info::INFINITE_SSTHRESH.saturating_mul(smss.max(1))
    {
        f64::INFINITY
    } else {
        ssthresh as f64
    }
}

impl Trace {
    /// Keep the first `f_rows` flow rows and `q_rows` queue rows.
    fn truncate(&mut self, f_rows: usize, q_rows: usize) {
        self.f_time.truncate(f_rows);
        self.f_flow.truncate(f_rows);
        self.f_delivered.truncate(f_rows);
        self.f_cwnd.truncate(f_rows);
        self.f_ssthresh.truncate(f_rows);
        self.f_srtt.truncate(f_rows);
        self.q_time.truncate(q_rows);
        self.q_id.truncate(q_rows);
        self.q_bytes.truncate(q_rows);
        self.q_pkts.truncate(q_rows);
    }

    /// Absorb from `o`, the same samples taken by another world of the
    /// same model (its rows line up with these: every world holds every
    /// flow at every sample), the fields that world ran: a flow's window
    /// and RTT where it ran the sender, its delivered bytes where it ran
    /// the receiver, a queue's occupancy where it ran the link.
    pub fn absorb(
        &mut self,
        o: &Trace,
        sender: impl Fn(usize) -> bool,
        receiver: impl Fn(usize) -> bool,
        queue: impl Fn(usize) -> bool,
    ) {
        for (i, &f) in self.f_flow.iter().enumerate() {
            debug_assert_eq!(o.f_flow[i], f, "sample rows line up");
            if sender(f as usize) {
                self.f_cwnd[i] = o.f_cwnd[i];
                self.f_ssthresh[i] = o.f_ssthresh[i];
                self.f_srtt[i] = o.f_srtt[i];
            }
            if receiver(f as usize) {
                self.f_delivered[i] = o.f_delivered[i];
            }
        }
        for (i, &q) in self.q_id.iter().enumerate() {
            if queue(q as usize) {
                self.q_bytes[i] = o.q_bytes[i];
                self.q_pkts[i] = o.q_pkts[i];
            }
        }
    }
}

impl World {
    pub fn new(cfg: &Config) -> World {
        Self::with_wide_switch_inputs(cfg, WIDE_SWITCH_INPUTS)
    }

    /// [`Self::new`] with another [`WIDE_SWITCH_INPUTS`] (tests compare
    /// the two kinds of input tally on the same run).
    #[doc(hidden)]
    pub fn with_wide_switch_inputs(cfg: &Config, wide_inputs: usize) -> World {
        Self::build(cfg, wide_inputs, &mut || false, Box::new(Whole), None)
            .expect("a check that never stops")
    }

    /// A world of the whole model that runs what `seam` says it runs
    /// (a partition's, [`crate::parallel`]), on the routing tables
    /// `routes` built once for every such world.
    pub fn with_seam(cfg: &Config, seam: Box<dyn Seam>, routes: std::sync::Arc<Routes>) -> World {
        Self::build(cfg, WIDE_SWITCH_INPUTS, &mut || false, seam, Some(routes))
            .expect("a check that never stops")
    }

    /// A world whose set-up (the routing tables: minutes for a k = 128
    /// fat-tree) asks `interrupt` as it goes, with `interrupt` installed
    /// for the run ([`Self::set_interrupt`]); `None` if it said stop
    /// before the world was built.
    pub fn new_interruptible(cfg: &Config, mut interrupt: Interrupt) -> Option<World> {
        let mut w = Self::build(
            cfg,
            WIDE_SWITCH_INPUTS,
            &mut *interrupt,
            Box::new(Whole),
            None,
        )?;
        w.set_interrupt(interrupt);
        Some(w)
    }

    fn build(
        cfg: &Config,
        wide_inputs: usize,
        stop: &mut dyn FnMut() -> bool,
        seam: Box<dyn Seam>,
        routes: Option<std::sync::Arc<Routes>>,
    ) -> Option<World> {
        let topo = &cfg.topology;
        let routes = match routes {
            Some(r) => r,
            None => std::sync::Arc::new(Routes::compute_without(
                topo,
                &cfg.routed_around(SimTime::ZERO),
                1,
                stop,
            )?),
        };
        let mut node_host = vec![u32::MAX; topo.nodes.len()];
        let mut host_node = Vec::new();
        for (i, n) in topo.nodes.iter().enumerate() {
            if n.kind == NodeKind::Host {
                node_host[i] = host_node.len() as u32;
                host_node.push(i as u32);
            }
        }
        let mut links = Links::with_capacity(2 * topo.links.len());
        for l in &topo.links {
            let extra = |to: usize| {
                if topo.nodes[to].kind == NodeKind::Switch {
                    cfg.switch_delay
                } else {
                    SimTime::ZERO
                }
            };
            links.push(
                l.a as u32,
                l.b as u32,
                l.rate_bps,
                l.delay + extra(l.b),
                l.queue_ab,
            );
            links.push(
                l.b as u32,
                l.a as u32,
                l.rate_bps,
                l.delay + extra(l.a),
                l.queue_ba,
            );
        }
        let n = topo.nodes.len();
        let is_switch: Vec<bool> = topo
            .nodes
            .iter()
            .map(|n| n.kind == NodeKind::Switch)
            .collect();
        let inputs = InputTable::build(links.infos(), &is_switch, wide_inputs);
        let mut host_nic = vec![u32::MAX; host_node.len()];
        for (i, l) in links.infos().iter().enumerate() {
            let h = node_host[l.from as usize];
            if h != u32::MAX && host_nic[h as usize] == u32::MAX {
                host_nic[h as usize] = i as u32;
            }
        }
        assert!(
            n < FAR_HOST as usize,
            "{n} nodes: more than a link's far-end word holds"
        );
        let far = links
            .infos()
            .iter()
            .map(|l| match node_host[l.to as usize] {
                u32::MAX => l.to,
                h => FAR_HOST | h,
            })
            .collect();
        let core = Core {
            inputs,
            q: match cfg.ties {
                crate::config::Ties::Fifo => EventQueue::new(),
                crate::config::Ties::Seeded => {
                    EventQueue::seeded(mix64(cfg.seed ^ mix64(Stream::Ties as u64)))
                }
            },
            links,
            arena: Arena::default(),
            routes,
            node_host,
            host_node,
            far,
            host_nic,
            node_names: topo.nodes.iter().map(|n| n.name.clone()).collect(),
            mode: cfg.routing,
            switch_rng: (0..n)
                .map(|i| stream(cfg.seed, Stream::Switch, i as u64))
                .collect(),
            ecmp_salt: (0..n)
                .map(|i| mix64(cfg.seed ^ mix64(Stream::EcmpSalt as u64 + ((i as u64) << 8))))
                .collect(),
            flowlets: match cfg.routing {
                RoutingMode::Flowlet { .. } => vec![FlowletEntry::default(); n * FLOWLET_SLOTS],
                _ => Vec::new(),
            },
            flowlets_started: 0,
            paths: Paths {
                // hop by hop where routing changes during the run
                // (`converge`): a packet in flight then takes the tables of
                // the moment at each hop, in whichever partition forwards
                // it, where a source route would be the sender's
                enabled: matches!(
                    cfg.routing,
                    RoutingMode::Single | RoutingMode::Ecmp | RoutingMode::EcmpUnsalted
                ) && cfg.failures.iter().all(|f| f.converge.is_none()),
                ..Paths::default()
            },
            l2_overhead: cfg.l2_overhead,
            host_jitter: cfg.host_jitter,
            host_rng: (0..n)
                .map(|i| stream(cfg.seed, Stream::Host, i as u64))
                .collect(),
            packet_hops: 0,
            delivered: 0,
            dropped: 0,
            tcp_drops: Vec::new(),
            udp_drops: Vec::new(),
            capture_of: vec![u32::MAX; cfg.topology.hosts().len()],
            captures: Vec::new(),
            seam,
        };
        let mut core = core;
        for &h in &cfg.pcap_hosts {
            core.capture_of[h] = core.captures.len() as u32;
            core.captures.push(Capture::new(h as u32));
        }
        let mut w = World {
            core,
            flows: Vec::new(),
            tcp_classes: Vec::new(),
            tcp_io: TcpIo::new(cfg.l2_overhead),
            flow_meta: Vec::new(),
            udps: Vec::new(),
            apps: Vec::new(),
            stop: cfg.stop,
            seed: cfg.seed,
            name: cfg.name.clone(),
            pending_apps: 0,
            run_to_stop: cfg.until == crate::config::Until::Stop,
            trace: None,
            app_rx: Vec::new(),
            fault: None,
            fault_count: [0; 2],
            reroutes: None,
            memory_guard: None,
            next_mem_check: u64::MAX,
            next_depth_check: 0,
            next_check: 0,
            deep_readahead: false,
            shallow_readahead: true,
            shallow_readahead_above: SHALLOW_READAHEAD_BYTES,
            deep_readahead_above: DEEP_READAHEAD_BYTES,
            memory_stop: None,
            interrupt: None,
            progress: None,
            interrupted: false,
            threads_used: 1,
            workers_used: 1,
            books_closed: false,
            pacers: Vec::new(),
            tcp_headers_discarded: 0,
        };
        let egress: Vec<bool> = w
            .core
            .links
            .infos()
            .iter()
            .map(|l| w.core.node_host[l.from as usize] == u32::MAX)
            .collect();
        if let Some(t) = &cfg.trimming {
            let wire = cfg.full_packet();
            w.core.links.set_trimming(t, &egress, cfg.seed, wire);
        }
        if cfg.int {
            w.core.links.set_int(&egress);
        }
        if let Some(p) = &cfg.pfc {
            w.core.links.set_pfc(p, &egress);
        }
        if let Some(r) = &cfg.ecn_ramp {
            w.core.links.set_ecn_ramp(r, cfg.seed);
        }
        w.core.links.set_failures(&cfg.failures, cfg.seed);
        let mut apps = Vec::with_capacity(cfg.apps.len());
        // at least a flow an app (a permutation's 8,192 bulk apps grew
        // these by doubling: each step a copy of every flow so far)
        w.flows.reserve(cfg.apps.len());
        w.app_rx.reserve(cfg.apps.len());
        w.flow_meta.reserve(cfg.apps.len());
        w.core.tcp_drops.reserve(cfg.apps.len());
        for (i, spec) in cfg.apps.iter().enumerate() {
            let jitter = cfg.start_jitter.get(i).copied().unwrap_or(SimTime::ZERO);
            apps.push(App::build(&mut w, i as u32, spec, jitter));
        }
        w.apps = apps;
        let seam = &w.core.seam;
        w.pending_apps = (0..w.apps.len() as u32)
            .filter(|&a| seam.counts_app(a))
            .count()
            + w.run_to_stop as usize;
        // A link whose far end another world runs is a sink here; one whose
        // sender another world runs gets this world's PFC frames through
        // the seam too.
        let (sinks, remote) = w
            .core
            .links
            .infos()
            .iter()
            .map(|l| {
                let (from, to) = (seam.runs_node(l.from), seam.runs_node(l.to));
                (from && !to, !from && to)
            })
            .unzip();
        w.core.links.set_sinks(sinks);
        w.core.links.set_remote_senders(remote);
        if let Some(t) = &cfg.trace {
            w.trace = Some(Trace {
                cfg: t.clone(),
                ..Trace::default()
            });
            w.core.q.schedule(SimTime::ZERO, Event::Sample);
        }
        let steps = cfg.reroutes();
        if !steps.is_empty() {
            for (t, _) in &steps {
                w.core.q.schedule(*t, Event::Sample);
            }
            w.reroutes = Some(Box::new(Reroutes {
                topo: cfg.topology.clone(),
                steps,
                next: 0,
            }));
        }
        for i in 0..w.apps.len() {
            if !w.core.seam.runs_app(i as u32) {
                continue;
            }
            let start = w.apps[i].start_time();
            w.core.q.schedule(
                start,
                Event::App {
                    app: i as u32,
                    tag: 0,
                },
            );
        }
        Some(w)
    }

    /// Create a TCP flow (used by apps while building).
    pub fn add_tcp_flow(
        &mut self,
        app: u32,
        src: u32,
        dst: u32,
        cfg: &crate::config::TcpConfig,
        meta: FlowMeta,
    ) -> u32 {
        let id = self.flows.len() as u32;
        let rng = stream(self.seed, Stream::Flow, id as u64);
        let class = TcpFlow::class_of(cfg);
        let class = match self.tcp_classes.iter().find(|c| ***c == class) {
            Some(c) => c.clone(),
            None => {
                let c = std::sync::Arc::new(class);
                self.tcp_classes.push(c.clone());
                c
            }
        };
        let mut f = TcpFlow::new(id, app, src, dst, class, rng);
        if f.is_ndp() && self.pacers.is_empty() {
            self.pacers = vec![Pacer::default(); self.core.host_node.len()];
        }
        let hdr = cfg.header_bytes + self.core.l2_overhead;
        f.handshake_sample(self.core.base_rtt(src, dst, hdr, hdr));
        if f.is_hpcc() || f.is_dcqcn() || f.is_ndp() {
            // the unloaded RTT of a full packet and its ACK, and the
            // sender's line rate: what these transports size themselves by
            let rtt = self.core.base_rtt(src, dst, hdr + cfg.mss, hdr);
            let nic = self.core.host_nic[src as usize] as usize;
            let rate = self.core.links.info(nic).rate_bps;
            if f.is_hpcc() {
                f.hpcc_setup(rtt, rate);
            } else if f.is_dcqcn() {
                f.dcqcn_setup(rtt, rate);
            } else {
                f.ndp_set_window(rtt, rate, self.core.l2_overhead);
            }
        }
        if f.is_swift() {
            f.swift_set_hops(self.core.hops(src, dst));
            let nic = self.core.host_nic[src as usize] as usize;
            f.swift_set_path(
                self.core.base_rtt(src, dst, hdr + cfg.mss, hdr),
                self.core.links.info(nic).rate_bps,
            );
        }
        self.flows.push(f);
        self.app_rx.push(AppRx::default());
        self.flow_meta.push(meta);
        self.core.tcp_drops.push(DropRuns::default());
        id
    }

    /// Heap bytes of the shared TCP configurations (limits.rs): each in
    /// its `Arc` with two counters, and the list of them.
    pub fn tcp_class_bytes(&self) -> usize {
        use std::mem::size_of;
        self.tcp_classes.len() * (size_of::<crate::config::TcpConfig>() + 2 * size_of::<usize>())
            + self.tcp_classes.capacity() * size_of::<usize>()
    }

    pub fn add_udp_flow(&mut self, u: UdpFlow) -> u32 {
        self.udps.push(u);
        self.core.udp_drops.push(DropRuns::default());
        (self.udps.len() - 1) as u32
    }

    /// Install the run-time memory guard; it first looks at the next event.
    pub fn set_memory_guard(&mut self, g: MemoryGuard) {
        self.memory_guard = Some(g);
        self.next_mem_check = 0;
        self.next_check = 0;
    }

    /// Install the interrupt check; it first looks at the next event.
    pub fn set_interrupt(&mut self, f: Interrupt) {
        self.interrupt = Some(f);
        self.next_depth_check = 0;
        self.next_check = 0;
    }

    /// Install the progress report; it is first told at the next event.
    pub fn set_progress(&mut self, f: Progress) {
        self.progress = Some(f);
        self.next_depth_check = 0;
        self.next_check = 0;
    }

    /// Run to completion (all apps done) or to the stop time.
    ///
    /// Before each event the loop starts fetching what the next one will
    /// touch (`Core::touch_next_hop`). Once the run's state is past a
    /// last-level cache, a miss goes to DRAM, and the chain of reads that
    /// names the next event's lines (its node, its link, its slot) no longer
    /// fits in one event's time; the loop then stages it over three events:
    /// the fourth event's node, the third's link state and the second's
    /// head slot are prefetched, each read an event later. Below that size
    /// the staging only costs instructions (k = 8 +4.7 %, k = 16 even,
    /// k = 32 −28 %: docs/performance.md). Below half an L2 there is no
    /// read-ahead at all ([`Self::choose_readahead`]). The depth changes no
    /// result.
    pub fn run(&mut self) {
        if self.core.q.is_seeded() {
            self.run_in::<true>()
        } else {
            self.run_in::<false>()
        }
        self.end_at_stop();
    }

    /// A run that `stop` ended with apps unfinished ends at `stop` (as
    /// ns-3's `Simulator::Stop`), not at its last event: when every flow
    /// waits on a timer past `stop`, the last event can be long before it,
    /// and rates over the run (goodput, a link's idle time) would be over
    /// that shorter span, and move when a trace's samples add events.
    fn end_at_stop(&mut self) {
        let q = &mut self.core.q;
        if self.pending_apps > 0
            && !self.interrupted
            && self.memory_stop.is_none()
            && self.stop != SimTime::MAX
            && q.now() < self.stop
        {
            let (key, processed) = (q.last_key(), q.processed());
            q.set_end(self.stop, key, processed);
        }
    }

    /// [`Self::run`] for one equal-time order (the queue's).
    fn run_in<const SEEDED: bool>(&mut self) {
        while self.pending_apps > 0 {
            let Some(ev) = self.core.q.pop_until_in::<SEEDED>(self.stop) else {
                break;
            };
            self.read_ahead::<SEEDED>();
            self.dispatch(ev);
            if self.core.q.processed() >= self.next_check && !self.periodic() {
                break;
            }
        }
    }

    /// Start fetching what the next events will touch (see [`Self::run`]).
    #[inline(always)]
    fn read_ahead<const SEEDED: bool>(&mut self) {
        if !self.shallow_readahead {
            return;
        }
        let next = if self.deep_readahead {
            let [l1, l2, l3] = self.core.q.peek_arrivals_in::<SEEDED>();
            self.core.links.prefetch_state(l3);
            self.core.links.prefetch_head(l2);
            (l1 != NO_LINK).then_some(l1)
        } else {
            self.core.q.peek_arrive_in::<SEEDED>()
        };
        if let Some(l) = next {
            if let Some(h) = self.core.touch_next_hop(l) {
                self.prefetch_endpoint(h);
            }
        }
    }

    /// One window of a run in step with other worlds
    /// ([`crate::parallel`]): process the events with keys below `limit`,
    /// in order, as [`Self::run`] does; stop early, right after it, at the
    /// event that finishes this world's last app (its key goes to
    /// [`Seam::all_apps_done`]) when `pause` is set.
    pub fn run_window(&mut self, limit: u128, pause: bool) {
        let watch = pause && self.pending_apps > 0;
        // keyed pops: seeded ties (a FIFO order cannot cross a sink)
        while let Some(ev) = self.core.q.pop_before(limit) {
            self.read_ahead::<true>();
            self.dispatch(ev);
            if self.core.q.processed() >= self.next_depth_check {
                self.choose_readahead();
                self.next_depth_check = self.core.q.processed() + (1 << 16);
            }
            if watch && self.pending_apps == 0 {
                break;
            }
        }
    }

    /// The run loop's periodic work: choose the read-ahead depth and ask
    /// the interrupt check (every 2¹⁶ events), and let the memory guard
    /// look when it is due. Returns false when the guard or the interrupt
    /// check stops the run.
    #[cold]
    fn periodic(&mut self) -> bool {
        let p = self.core.q.processed();
        if p >= self.next_depth_check {
            self.choose_readahead();
            self.next_depth_check = p + (1 << 16);
            if let Some(tell) = self.progress.as_mut() {
                tell(self.core.q.now(), p);
            }
            if let Some(stop) = self.interrupt.as_mut() {
                if stop() {
                    self.interrupted = true;
                    return false;
                }
            }
        }
        let ok = p < self.next_mem_check || self.memory_ok();
        self.next_check = self.next_mem_check.min(self.next_depth_check);
        ok
    }

    /// Whether the loop reads ahead, and how deep, for the state the run
    /// holds now ([`Self::hot_bytes`]): none while it all fits in a core's
    /// L2 with room to spare ([`SHALLOW_READAHEAD_BYTES`]), where a
    /// prefetch finds its line in cache already and costs its instructions
    /// alone; an event ahead above that, three above a last-level cache.
    fn choose_readahead(&mut self) {
        let hot = self.hot_bytes();
        self.shallow_readahead = hot > self.shallow_readahead_above;
        self.deep_readahead = hot > self.deep_readahead_above;
    }

    /// The state a packet's hops can touch, from capacities (cheap): link
    /// lines and rings, flows, packets, the event queue.
    fn hot_bytes(&self) -> usize {
        self.core.links.len() * std::mem::size_of::<crate::net::Link>()
            + self.core.links.pool_heap_bytes()
            + self.flows.len() * std::mem::size_of::<TcpFlow>()
            + self.core.arena.heap_bytes()
            + self.core.q.heap_bytes()
    }

    /// Start fetching the state that packet `h`, about to reach its host,
    /// will read there: its flow's sender or receiver lines, the route of
    /// what it sends back, and the application's delivery tally. Hints
    /// only: a wrong one costs time, never a result.
    #[inline(always)]
    fn prefetch_endpoint(&self, h: Hdr) {
        let f = h.flow as usize;
        match h.kind {
            PktKind::Data => {
                if let Some(t) = self.flows.get(f) {
                    t.prefetch_receiver();
                }
                if let Some(r) = self.app_rx.get(f) {
                    prefetch(r);
                }
                if let Some(r) = self.core.paths.tcp.get(2 * f + 1) {
                    prefetch(r);
                }
            }
            PktKind::Ack => {
                if let Some(t) = self.flows.get(f) {
                    t.prefetch_sender();
                }
                if let Some(r) = self.core.paths.tcp.get(2 * f) {
                    prefetch(r);
                }
            }
            PktKind::Udp => {
                if let Some(u) = self.udps.get(f) {
                    prefetch(u);
                }
            }
        }
    }

    /// The memory guard: whether what the run holds, plus the result
    /// tables it would build, is within its limit. Over it, the run stops
    /// with `memory_stop` set. Without a guard, always true.
    #[cold]
    pub fn memory_ok(&mut self) -> bool {
        if self.memory_stop.is_some() {
            return false;
        }
        let Some(g) = self.memory_guard else {
            return true;
        };
        let used = (g.measure)(self, g.slot_rows);
        if used > g.limit {
            self.memory_stop = Some(MemoryStop {
                used,
                limit: g.limit,
                at: self.core.q.now(),
            });
            return false;
        }
        self.next_mem_check = self.core.q.processed() + (g.interval)(self, used, g.limit);
        true
    }

    /// Run until the clock reaches `t` (events at `t` included), all apps
    /// finish, the stop time passes, or the memory guard stops the run
    /// (`memory_stop`). Returns whether apps are still pending (false
    /// once the guard stopped it). Lets tests and tools sample state (queues, windows) mid-run;
    /// [`Self::run`] afterwards continues to the end.
    pub fn run_until(&mut self, t: SimTime) -> bool {
        let limit = t.min(self.stop);
        while self.pending_apps > 0 {
            let Some(ev) = self.core.q.pop_until(limit) else {
                break;
            };
            self.dispatch(ev);
            if self.core.q.processed() >= self.next_mem_check && !self.memory_ok() {
                return false;
            }
        }
        // run to `stop` in steps ends where [`Self::run`] ends
        if t >= self.stop {
            self.end_at_stop();
        }
        self.pending_apps > 0
    }

    /// One event. A packet reaching a switch is the common case (every
    /// hop but the last) and runs here without a call: the event loop, the
    /// link's arrival, forwarding and the next link's enqueue form one
    /// function with few live registers, where the calls it had cost about
    /// 35 instructions per hop in register saves. Deliveries to hosts and
    /// every other event go through out-of-line functions.
    #[inline(always)]
    fn dispatch(&mut self, ev: Event) {
        if let Event::Arrive(l) = ev {
            let core = &mut self.core;
            // The egress link's state line was prefetched an event ago;
            // its ring slots can be on their way during the arrival.
            let h = core.links.arrive_prefetching(&mut core.q, l);
            let far = core.far[l as usize];
            core.packet_hops += 1;
            if far & FAR_HOST == 0 {
                core.forward_inline::<false>(far, h, l);
            } else {
                self.arrive_at_host(far & !FAR_HOST, h.words());
            }
        } else {
            self.dispatch_other(ev);
        }
    }

    /// A packet's last hop: it reaches host `host` (an index of hosts).
    /// (`h` in words, so the event loop's header stays in registers:
    /// [`HdrWords`])
    #[inline(never)]
    fn arrive_at_host(&mut self, host: u32, w: HdrWords) {
        let h = Hdr::from_words(w);
        if self.fault.is_some() && self.inject_loss() {
            return;
        }
        let core = &mut self.core;
        let id = h.id;
        core.arena.get_mut(id).flags = h.flags;
        let p = core.arena.copy_out(id);
        debug_assert_eq!(host, p.dst, "packet delivered to the wrong host");

        core.arena.release(id);
        core.delivered += 1;
        let c = core.capture_of[p.dst as usize];
        if c != u32::MAX {
            core.captures[c as usize].record(core.q.now(), &p);
        }
        self.deliver(&p, id);
    }

    /// Every event but a packet's arrival.
    #[inline(never)]
    fn dispatch_other(&mut self, ev: Event) {
        match ev {
            Event::Arrive(_) => unreachable!("arrivals are dispatched inline"),
            Event::Rto(f) => self.tcp_timer(f, TcpTimer::Rto),
            Event::DelAck(f) => self.tcp_timer(f, TcpTimer::DelAck),
            Event::ProbRetx(f) => self.tcp_timer(f, TcpTimer::ProbRetx),
            Event::Rack(f) => self.tcp_timer(f, TcpTimer::Rack),
            Event::App { app, tag } => {
                self.core.seam.app_event(app);
                // The apps step out of the world while one runs, so it can
                // be handed the world as its context.
                let mut apps = std::mem::take(&mut self.apps);
                apps[app as usize].on_event(self, app, tag);
                self.apps = apps;
            }
            Event::Udp(u) => {
                let now = self.core.q.now();
                if let Some((pkt, next)) = self.udps[u as usize].tick(u, now) {
                    self.core.send_from_host(pkt.src, &pkt);
                    self.core.q.schedule(next, Event::Udp(u));
                }
            }
            Event::Pace(h) => self.pace(h),
            Event::Serve(l) => self.core.links.serve(&mut self.core.q, l),
            Event::Sample => {
                self.core.seam.sample();
                self.timed()
            }
        }
    }

    #[inline]
    fn deliver(&mut self, p: &Packet, id: PktId) {
        match p.kind {
            PktKind::Data if p.flags & (flags::NDP | flags::TRIMMED) != 0 => {
                self.deliver_ndp(p, id)
            }
            PktKind::Data => {
                let f = p.flow as usize;
                let io = self.tcp_io.at(self.core.q.now());
                let n = self.flows[f].on_data(io, p);
                self.flush_tcp(p.flow);
                self.hand_up(f, n);
            }
            PktKind::Ack if p.flags & flags::NDP != 0 => {
                let io = self.tcp_io.at(self.core.q.now());
                let f = &mut self.flows[p.flow as usize];
                if f.is_hpcc() {
                    // The records the ACK carries (its id is free again).
                    let int = self.core.links.int.take(id);
                    f.hpcc_on_ack(io, p, &int);
                } else if f.is_dcqcn() {
                    let backlog = self.dcqcn_backlog(p.flow);
                    let io = self.tcp_io.at(self.core.q.now()).set_nic_backlog(backlog);
                    self.flows[p.flow as usize].dcqcn_on_ack(io, p);
                } else {
                    f.ndp_on_ack(io, p);
                }
                self.flush_tcp(p.flow);
            }
            PktKind::Ack => {
                let io = self.tcp_io.at(self.core.q.now());
                self.flows[p.flow as usize].on_ack(io, p);
                self.flush_tcp(p.flow);
            }
            PktKind::Udp => self.udps[p.flow as usize].on_receive(p, self.core.q.now()),
        }
    }

    /// In-order delivery of TCP flow `f` advanced by `n` bytes: the
    /// application's tally, and each message completed to its app.
    #[inline(always)]
    fn hand_up(&mut self, f: usize, mut n: u64) {
        if n > 0 {
            if self.fault.is_some() {
                n = self.inject_handoff(n);
            }
            self.app_rx[f].bytes += n;
            while let Some(tag) = self.flows[f].pop_delivered_msg() {
                let rx = &mut self.app_rx[f];
                rx.msgs += 1;
                rx.last_msg = Some(self.core.q.now());
                self.core.seam.app_message(self.flows[f].app);
                let mut apps = std::mem::take(&mut self.apps);
                apps[self.flows[f].app as usize].on_message(self, f as u32, tag);
                self.apps = apps;
            }
        }
    }

    /// A packet of an NDP flow reaches its receiver (data or a trimmed
    /// header) or, bounced, its sender; or a TCP data packet that a
    /// trimming queue cut to its header, which TCP cannot use (a loss).
    #[inline(never)]
    fn deliver_ndp(&mut self, p: &Packet, id: PktId) {
        let f = p.flow as usize;
        if p.flags & flags::NDP == 0 {
            self.tcp_headers_discarded += 1;
            return;
        }
        if flags::bounced(p.flags) && !self.flows[f].is_ndp() {
            // A DCQCN or TIMELY header the fabric returned: its sender has
            // no use for one (return-to-sender is NDP's), so it is
            // discarded here, a loss go-back-N recovers. (It was taken for
            // a header reaching the receiver, whose state, on several
            // threads, another partition holds: the runs differed.) No
            // INT record rides with it: telemetry is refused with trimming.
            return;
        }
        let io = self.tcp_io.at(self.core.q.now());
        if self.flows[f].is_hpcc() {
            // The ACK it sends carries the packet's INT records back.
            let int = self.core.links.int.take(id);
            let n = self.flows[f].hpcc_on_data(io, p);
            for out in self.tcp_io.pending() {
                match out {
                    TcpOut::Send(pkt) => {
                        self.core.send_from_host_int(pkt.src, pkt, int);
                    }
                    TcpOut::SendNicStamped(_) => unreachable!("HPCC stamps no packet at the NIC"),
                    TcpOut::Wake { at, timer } => self.core.q.schedule(*at, wake(p.flow, *timer)),
                }
            }
            self.tcp_io.clear();
            self.hand_up(f, n);
            return;
        }
        if self.flows[f].is_dcqcn() {
            if self.core.links.int.on() {
                // (an HPCC flow elsewhere turned INT on: DCQCN reads no
                // records, and its id's must not reach the next packet)
                self.core.links.int.clear(id);
            }
            let n = self.flows[f].dcqcn_on_data(io, p);
            self.flush_tcp(p.flow);
            self.hand_up(f, n);
            return;
        }
        if self.core.links.int.on() {
            // (NDP's data carry the framing INT is written on: with an
            // HPCC flow elsewhere, a reused id must not hand its hops on)
            self.core.links.int.clear(id);
        }
        if flags::bounced(p.flags) {
            self.flows[f].ndp_on_bounce(io, p);
            self.flush_tcp(p.flow);
            return;
        }
        let (n, more) = self.flows[f].ndp_on_data(io, p);
        if more {
            self.ask_pull(f);
        }
        self.flush_tcp(p.flow);
        self.hand_up(f, n);
    }

    /// Time between two pulls for flow `f` at its receiver's pacer: one
    /// full packet at `ndp_pull_rate` × the receiver's line rate.
    fn pull_spacing(&self, f: usize) -> SimTime {
        let fl = &self.flows[f];
        let nic = self.core.host_nic[fl.dst_host as usize] as usize;
        let rate = self.core.links.info(nic).rate_bps as f64;
        let bytes = (fl.cfg.mss + fl.cfg.header_bytes + self.core.l2_overhead) as f64;
        SimTime((bytes * 8e12 / rate / fl.cfg.ndp.pull_rate).round() as u64)
    }

    /// NDP flow `f`'s receiver asks its pacer for a pull: on the ACK or
    /// NACK it just made if the pacer is free, else later.
    fn ask_pull(&mut self, f: usize) {
        let now = self.core.q.now();
        let host = self.flows[f].dst_host;
        let spacing = self.pull_spacing(f);
        let pc = &mut self.pacers[host as usize];
        let n = self.flows[f].ndp_mut().expect("an NDP flow");
        n.pulls_asked += 1;
        if pc.rr.is_empty() && now >= pc.next {
            n.pulls_released += 1;
            let no = n.pulls_released;
            let ack = self.tcp_io.last_send_mut().expect("the ACK just made");
            ack.flags |= flags::PULL;
            ack.txn = no;
            pc.next = now + spacing;
            return;
        }
        if !n.queued {
            n.queued = true;
            pc.rr.push_back(f as u32);
        }
        if !pc.armed {
            pc.armed = true;
            self.core.q.schedule(pc.next.max(now), Event::Pace(host));
        }
    }

    /// Host `host`'s pacer releases one pull, to the next flow in turn
    /// that still wants data.
    fn pace(&mut self, host: u32) {
        let now = self.core.q.now();
        self.pacers[host as usize].armed = false;
        while let Some(f) = self.pacers[host as usize].rr.pop_front() {
            let fl = &mut self.flows[f as usize];
            let done = fl.delivered() >= fl.written_as_received();
            let n = fl.ndp_mut().expect("an NDP flow");
            if done {
                // As htsim's sink releases a finished flow's pulls.
                n.pulls_asked = n.pulls_released;
            }
            if n.pulls_pending() == 0 {
                n.queued = false;
                continue;
            }
            n.pulls_released += 1;
            let no = n.pulls_released;
            if n.pulls_pending() > 0 {
                self.pacers[host as usize].rr.push_back(f);
            } else {
                n.queued = false;
            }
            let fl = &self.flows[f as usize];
            let pkt = Packet {
                kind: PktKind::Ack,
                flags: flags::NDP | flags::PULL,
                flow: f,
                txn: no,
                src: fl.dst_host,
                dst: fl.src_host,
                wire: fl.ndp_ctrl_wire(self.core.l2_overhead),
                seq: crate::tcp::ndp::NO_SEQ,
                ts: now,
                ..Packet::EMPTY
            };
            self.pacers[host as usize].next = now + self.pull_spacing(f as usize);
            self.core.send_from_host(host, &pkt);
            break;
        }
        let pc = &mut self.pacers[host as usize];
        if !pc.rr.is_empty() {
            pc.armed = true;
            self.core.q.schedule(pc.next, Event::Pace(host));
        }
    }

    /// A TCP flow's timer wake-up is due.
    #[inline]
    fn tcp_timer(&mut self, flow: u32, timer: TcpTimer) {
        let backlog = self.dcqcn_backlog(flow);
        let io = self.tcp_io.at(self.core.q.now()).set_nic_backlog(backlog);
        self.flows[flow as usize].on_timer(io, timer);
        self.flush_tcp(flow);
    }

    /// The bytes waiting at a DCQCN flow's NIC (0 for any other flow): a
    /// RoCE NIC makes a queue pair's next packet only when its transmit
    /// queue has room, so a paused NIC stops the sender instead of
    /// queueing what its rate would send.
    #[inline]
    fn dcqcn_backlog(&mut self, flow: u32) -> u64 {
        let f = &self.flows[flow as usize];
        if !f.is_dcqcn() {
            return 0;
        }
        let nic = self.core.host_nic[f.src_host as usize] as usize;
        self.core.links.occupancy(nic, self.core.q.now()).0
    }

    /// The application writes to TCP flow `flow` (see [`TcpFlow::app_write`]).
    pub fn tcp_write(&mut self, flow: u32, bytes: u64, msg_tag: Option<u32>) {
        let backlog = self.dcqcn_backlog(flow);
        let io = self.tcp_io.at(self.core.q.now()).set_nic_backlog(backlog);
        self.flows[flow as usize].app_write(io, bytes, msg_tag);
        self.flush_tcp(flow);
    }

    /// Carry out what TCP flow `flow` asked for, in the order it asked:
    /// packets go to their host's NIC, wake-ups into the event queue.
    #[inline]
    fn flush_tcp(&mut self, flow: u32) {
        // By reference, then one clear: each packet is copied once more,
        // from the outbox straight into the arena (`send_from_host` takes
        // it by reference: by value it was copied to the stack first).
        for out in self.tcp_io.pending() {
            match out {
                TcpOut::Send(pkt) => {
                    self.core.send_from_host(pkt.src, pkt);
                }
                TcpOut::SendNicStamped(pkt) => {
                    let ts = self.core.send_nic_stamped(*pkt);
                    self.flows[flow as usize].swift_stamped(self.core.q.now(), ts);
                }
                TcpOut::Wake { at, timer } => self.core.q.schedule(*at, wake(flow, *timer)),
            }
        }
        self.tcp_io.clear();
    }

    /// `Fault::LosePacket`: whether the packet now reaching a host vanishes.
    #[cold]
    fn inject_loss(&mut self) -> bool {
        let Some(Fault::LosePacket(n)) = self.fault else {
            return false;
        };
        self.fault_count[0] += 1;
        self.fault_count[0] == n
    }

    /// `Fault::DoubleHandoff` / `DropHandoff`: the bytes this hand-off
    /// actually gives the application.
    #[cold]
    fn inject_handoff(&mut self, bytes: u64) -> u64 {
        let nth = match self.fault {
            Some(Fault::DoubleHandoff(n)) | Some(Fault::DropHandoff(n)) => n,
            _ => return bytes,
        };
        self.fault_count[1] += 1;
        match self.fault {
            Some(Fault::DoubleHandoff(_)) if self.fault_count[1] == nth => 2 * bytes,
            Some(Fault::DropHandoff(_)) if self.fault_count[1] == nth => 0,
            _ => bytes,
        }
    }

    /// The periodic sample (`Event::Sample`, every `interval` from t = 0
    /// up to `stop`).
    fn sample(&mut self) {
        let now = self.core.q.now();
        self.record_sample(now);
        let Some(tr) = self.trace.as_mut() else {
            return;
        };
        let next = now + tr.cfg.interval;
        tr.next = next;
        if next <= self.stop {
            self.core.q.schedule(next, Event::Sample);
        }
    }

    /// The trace's last sample, at the end of the run (the clock's `now`:
    /// the event that finished the last app, or `stop`), once: so a flow's
    /// last `delivered_bytes` is its total in the flows table and the last
    /// `cwnd_bytes` its `final_cwnd_bytes`, wherever the end falls between
    /// the periodic samples. A sample already taken at that instant is
    /// taken again (under `ties = "fifo"` events at the same instant can
    /// follow it). Called by [`Self::finish`], and by a partitioned run's
    /// merge in each partition at the run's end, before the traces are
    /// merged. Not an event: it changes no count.
    pub fn sample_end(&mut self) {
        let now = self.core.q.now();
        let Some(tr) = self.trace.as_mut() else {
            return;
        };
        if std::mem::replace(&mut tr.ended, true) {
            return;
        }
        if let Some((t, f_rows, q_rows)) = tr.last {
            if t == now {
                tr.truncate(f_rows, q_rows);
            }
        }
        self.record_sample(now);
    }

    /// One sample's rows: every TCP flow (with `flows`) and every traced
    /// queue, at `now`.
    fn record_sample(&mut self, now: SimTime) {
        let Some(tr) = self.trace.as_mut() else {
            return;
        };
        tr.last = Some((now, tr.f_time.len(), tr.q_time.len()));
        let t = now.as_secs_f64();
        if tr.cfg.flows {
            for f in &self.flows {
                tr.f_time.push(t);
                tr.f_flow.push(f.id as u64);
                tr.f_delivered.push(f.delivered());
                tr.f_cwnd.push(f.st.cwnd);
                tr.f_ssthresh.push(ssthresh_bytes(f.st.ssthresh, f.st.smss));
                tr.f_srtt
                    .push(f.reported_srtt().map_or(f64::NAN, |x| x.as_secs_f64()));
            }
        }
        for &qi in &tr.cfg.queues {
            let (b, p) = self.core.links.occupancy(qi, now);
            tr.q_time.push(t);
            tr.q_id.push(qi as u64);
            tr.q_bytes.push(b);
            tr.q_pkts.push(p);
        }
    }

    /// The clock event (`Event::Sample`): routing's changes due now
    /// ([`Reroutes`]), then the time series' sample if one is due.
    fn timed(&mut self) {
        let now = self.core.q.now();
        if let Some(r) = self.reroutes.as_deref_mut() {
            while let Some((t, dead)) = r.steps.get(r.next) {
                if *t > now {
                    break;
                }
                let core = &mut self.core;
                core.routes = std::sync::Arc::new(
                    Routes::compute_without(&r.topo, dead, 1, &mut || false)
                        .expect("a search that is never stopped"),
                );
                // the flowlets' next hops were the old tables' (source
                // routes are off in such runs: `Paths::enabled`)
                core.flowlets.iter_mut().for_each(|e| e.key = 0);
                r.next += 1;
            }
        }
        if self.trace.as_ref().is_some_and(|t| t.next == now) {
            self.sample();
        }
    }

    /// Close the links' books (their last busy or idle stretch, what lies
    /// beyond the end) and fold route entries' tallies into their slots;
    /// once only.
    pub fn finish_books(&mut self) {
        if self.books_closed {
            return;
        }
        self.books_closed = true;
        let now = self.core.q.now();
        self.core.links.finish(now);
        self.core.fold_route_tallies();
    }

    /// The installed run-time memory guard, if any.
    pub fn memory_guard(&self) -> Option<MemoryGuard> {
        self.memory_guard
    }

    /// Close the books at the end of a run: the trace takes its sample at
    /// the end ([`Self::sample_end`]), links account their last busy
    /// or idle stretch, route entries' input tallies go into their slots,
    /// open drop runs are counted. The tables are built
    /// from the finished world by [`crate::finish`].
    pub fn finish(&mut self) {
        if std::mem::take(&mut self.run_to_stop) {
            self.pending_apps -= 1;
        }
        self.sample_end();
        self.finish_books();
        for d in self
            .core
            .tcp_drops
            .iter_mut()
            .chain(self.core.udp_drops.iter_mut())
        {
            d.close();
        }
    }
}

#[cfg(test)]
mod tests {
    /// Source-routed packets tally their input port in the route entry
    /// (folded into the slot's word on the slot's first drop); routed from
    /// the tables, every packet counts in the word. Both see the same
    /// packets take the same links, so every table is the same, the
    /// per-input offered counts and drop runs included. 15 CUBIC senders
    /// to one host of a k = 4 fat-tree with 20-packet queues drop in runs.
    #[test]
    fn route_entry_tallies_count_as_the_slot_words() {
        use crate::stats::results::Column;
        let apps: Vec<String> = (1..16)
            .map(|s| format!(r#"{{"kind": "bulk", "src": {s}, "dst": 0, "duration": "30ms"}}"#))
            .collect();
        let doc = format!(
            r#"{{"name": "outcast", "seed": 3, "stop": "30ms",
                "topology": {{"kind": "fat_tree", "k": 4, "rate": "1Gbps", "delay": "1us", "buffer": "20pkt"}},
                "tcp": {{"cc": "cubic", "rto_min": "2ms"}}, "apps": [{}]}}"#,
            apps.join(",")
        );
        let cfg = crate::scenario::parse_config_str(&doc).expect("valid scenario");
        let run = |source_routes: bool| {
            let mut w = super::World::new(&cfg);
            w.core.paths.enabled = source_routes;
            w.run();
            assert_eq!(!w.core.paths.hops.is_empty(), source_routes);
            crate::finish(w, 0.0)
        };
        let (routed, tabled) = (run(true), run(false));
        let Some(Column::U64(runs)) = routed.table("queue_inputs").unwrap().column("max_drop_run")
        else {
            panic!("max_drop_run is a u64 column")
        };
        assert!(runs.iter().any(|&r| r > 1), "no drop run longer than 1");
        assert_eq!(routed.tables, tabled.tables);
    }

    /// A packet that crosses a cut resumes its source route there, and a
    /// DCTCP segment with CWR set is no exception: CWR shares its bit with
    /// NDP's "bounced", which only an NDP-framed header means (the
    /// fabric returns no other). Before, every CWR segment that crossed
    /// was routed from the tables at each hop after the cut. A bounced
    /// NDP header, src and dst swapped, is routed from the tables.
    #[test]
    fn a_cwr_segment_resumes_its_route_and_a_bounced_header_does_not() {
        use crate::net::{flags, Packet, PktKind, NO_ROUTE};
        let doc = r#"{"name": "cut", "seed": 1, "stop": "1ms",
            "topology": {"kind": "fat_tree", "k": 4, "rate": "10Gbps", "delay": "1us",
                         "buffer": "100pkt"},
            "tcp": {"cc": "dctcp"},
            "apps": [{"kind": "bulk", "src": 0, "dst": 15, "size": "10KB"}]}"#;
        let cfg = crate::scenario::parse_config_str(doc).expect("valid scenario");
        let mut w = super::World::new(&cfg);
        let pkt = Packet {
            kind: PktKind::Data,
            flags: flags::ECT,
            src: 0,
            dst: 15,
            ..Packet::EMPTY
        };
        // the route's third link: aggregation to core, where pods are cut
        let e = w.core.source_route(0, &pkt);
        let link = w.core.paths.hops[e as usize + 2].link;
        let plain = w.core.resume_route(&pkt, link);
        assert_eq!(plain.0, e + 3);
        let cwr = Packet {
            flags: flags::ECT | flags::CWR,
            ..pkt
        };
        assert_eq!(w.core.resume_route(&cwr, link), plain);
        let bounced = Packet {
            flags: flags::NDP | flags::TRIMMED | flags::BOUNCED,
            src: 15,
            dst: 0,
            ..pkt
        };
        assert_eq!(w.core.resume_route(&bounced, link).0, NO_ROUTE);
    }
}
