//! Applications: long flows, partition/aggregate, synchronized reads, UDP
//! CBR, and open-loop Poisson flow arrivals.
//!
//! Apps talk to TCP through `app_write` (with a message tag) and the
//! receiver's report that a message's last byte was delivered in order
//! (`AppCtx::answered`), and end a connection through `app_close` and
//! `release_buffers`; they read flows' state (`w.flows()`) only to decide
//! when a round is over, which ties their hosts into one partition
//! (partition.rs).
//! Requests are real data on a request flow (client → server); responses
//! on a response flow (server → client). Connections persist across
//! queries/blocks, so congestion state carries over as it does in practice.

use crate::cdf::FlowSizeCdf;
use crate::config::{AppSpec, BulkAmount, PoissonSpec, TcpConfig};
use crate::net::{Packet, PktKind};
use crate::sim::rng::{stream, Rng, Stream};
use crate::sim::time::{tx_time, SimTime};
use crate::tcp::TcpFlow;
use rand::Rng as _;

/// What an application may do to the rest of the simulation — its only
/// view of it. The world implements it; apps name flows and apps by index.
pub trait AppCtx {
    fn now(&self) -> SimTime;
    /// The run's seed (apps derive their random streams from it).
    fn seed(&self) -> u64;
    /// Link-layer bytes added to every packet.
    fn l2_overhead(&self) -> u32;
    /// Every TCP flow so far (counters, delivered bytes).
    fn flows(&self) -> &[TcpFlow];
    fn flow_mut(&mut self, flow: u32) -> &mut TcpFlow;
    fn flow_meta(&self, flow: u32) -> FlowMeta;
    /// Open a TCP flow from host `src` to host `dst` for app `app`.
    fn add_tcp_flow(
        &mut self,
        app: u32,
        src: u32,
        dst: u32,
        cfg: &TcpConfig,
        meta: FlowMeta,
    ) -> u32;
    fn add_udp_flow(&mut self, u: UdpFlow) -> u32;
    fn udp(&mut self, flow: u32) -> &mut UdpFlow;
    /// Write `bytes` to TCP flow `flow` (see `TcpFlow::app_write`).
    fn tcp_write(&mut self, flow: u32, bytes: u64, msg_tag: Option<u32>);
    /// The app answers what TCP flow `flow` delivered, on another flow:
    /// the ACK its receiver holds back leaves now (`TcpFlow::ack_answered`).
    fn answered(&mut self, flow: u32);
    /// Wake app `app` with `tag` at `at` (`App::on_event`).
    fn wake(&mut self, at: SimTime, app: u32, tag: u32);
    /// Start UDP source `flow` ticking at `at`.
    fn wake_udp(&mut self, at: SimTime, flow: u32);
    /// Whether this world runs host `host`'s end of its flows: always on
    /// one thread; in a partitioned run, the hosts of its partition.
    fn runs_host(&self, host: u32) -> bool;
    /// The calling app has finished.
    fn app_done(&mut self);
}

/// What a TCP flow does for its app (the `role` column of `flows`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Bulk,
    Request,
    Response,
    /// One flow of a Poisson workload.
    Flow,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Bulk => "bulk",
            Role::Request => "request",
            Role::Response => "response",
            Role::Flow => "flow",
        }
    }
}

/// Per TCP flow: its role and its index within the app (worker / server number).
#[derive(Clone, Copy, Debug)]
pub struct FlowMeta {
    pub role: Role,
    pub idx: u32,
}

/// One query (partition/aggregate) or block (synchronized reads).
#[derive(Clone, Debug)]
pub struct Round {
    pub start: SimTime,
    pub end: SimTime,
    pub bytes: u64,
    pub timeouts: u64,
    /// Of the timeouts: those of the client's request flows (a worker's
    /// ACK of the request was lost), kept apart because they stall the
    /// round only when the request itself is still unacknowledged.
    pub request_timeouts: u64,
    /// Of the timeouts: anterior / intermediate block-transfer timeouts.
    pub abtt: u64,
    pub ibtt: u64,
    /// Of the timeouts: those whose lost segment was in a block's first flight.
    pub rto_first_flight: u64,
    /// Distinct response flows with at least one ABTT in this round: the
    /// dissertation's ζ (repeated expiries of one flow count once; a
    /// request flow whose ACK was lost does not stall the block).
    pub abtt_flows: u64,
}

/// Timeout counters summed over a set of flows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeoutCounts {
    pub timeouts: u64,
    pub request_timeouts: u64,
    pub abtt: u64,
    pub ibtt: u64,
    pub rto_first_flight: u64,
}

impl TimeoutCounts {
    fn of(flows: &[TcpFlow], ids: impl Iterator<Item = u32>) -> Self {
        let mut c = TimeoutCounts::default();
        for f in ids {
            let s = &flows[f as usize].stats;
            c.timeouts += s.timeouts;
            c.abtt += s.abtt;
            c.ibtt += s.ibtt;
            c.rto_first_flight += s.rto_first_flight;
        }
        c
    }

    fn of_round(flows: &[TcpFlow], r: &Rounds) -> Self {
        let mut c = Self::of(flows, r.req_flows.iter().chain(&r.resp_flows).copied());
        c.request_timeouts = Self::of(flows, r.req_flows.iter().copied()).timeouts;
        c
    }
}

pub struct Bulk {
    pub flow: u32,
    pub amount: BulkAmount,
    pub start: SimTime,
    pub end: Option<SimTime>,
    /// Bytes delivered by the end of a duration-limited flow.
    pub delivered_at_end: u64,
}

/// Shared by partition/aggregate and synchronized reads: a client, n
/// servers, one request and one response per server per round.
pub struct Rounds {
    pub kind: &'static str,
    pub client: u32,
    pub servers: Vec<u32>,
    pub req_flows: Vec<u32>,
    pub resp_flows: Vec<u32>,
    pub request_bytes: u64,
    pub response_bytes: u64,
    pub rounds: u32,
    pub gap: SimTime,
    pub jitter: SimTime,
    pub spacing: SimTime,
    pub start: SimTime,
    rng: Rng,
    cur: u32,
    outstanding: u32,
    round_start: SimTime,
    at_start: TimeoutCounts,
    /// Each flow's ABTT count at the round's start.
    abtt_at_start: Vec<u64>,
    pub done: Vec<Round>,
}

/// What distinguishes partition/aggregate from synchronized reads.
pub struct RoundShape {
    pub kind: &'static str,
    pub request_bytes: u64,
    pub response_bytes: u64,
    pub rounds: u32,
    pub gap: SimTime,
    pub jitter: SimTime,
    /// Request i leaves i × spacing into the round (before its jitter).
    pub spacing: SimTime,
    pub start: SimTime,
}

impl Rounds {
    /// One request flow (client → server) and one response flow (server →
    /// client) per server, persistent across rounds.
    fn build(
        w: &mut impl AppCtx,
        id: u32,
        client: usize,
        servers: &[usize],
        tcp: &TcpConfig,
        s: RoundShape,
    ) -> Rounds {
        let mut req_flows = Vec::with_capacity(servers.len());
        let mut resp_flows = Vec::with_capacity(servers.len());
        for (i, &srv) in servers.iter().enumerate() {
            let (c, srv, idx) = (client as u32, srv as u32, i as u32);
            req_flows.push(w.add_tcp_flow(
                id,
                c,
                srv,
                tcp,
                FlowMeta {
                    role: Role::Request,
                    idx,
                },
            ));
            resp_flows.push(w.add_tcp_flow(
                id,
                srv,
                c,
                tcp,
                FlowMeta {
                    role: Role::Response,
                    idx,
                },
            ));
        }
        Rounds {
            kind: s.kind,
            client: client as u32,
            servers: servers.iter().map(|&h| h as u32).collect(),
            req_flows,
            resp_flows,
            request_bytes: s.request_bytes,
            response_bytes: s.response_bytes,
            rounds: s.rounds,
            gap: s.gap,
            jitter: s.jitter,
            spacing: s.spacing,
            start: s.start,
            rng: stream(w.seed(), Stream::App, id as u64),
            cur: 0,
            outstanding: 0,
            round_start: SimTime::ZERO,
            at_start: TimeoutCounts::default(),
            abtt_at_start: Vec::new(),
            done: Vec::new(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct UdpFlow {
    pub app: u32,
    pub src: u32,
    pub dst: u32,
    pub rate_bps: u64,
    pub payload: u32,
    pub wire: u32,
    pub interval: SimTime,
    pub start: SimTime,
    pub stop: SimTime,
    pub sent_pkts: u64,
    pub sent_bytes: u64,
    /// What the receiving end counted.
    pub rx: UdpRx,
}

/// A UDP flow's receiving end: all it writes.
#[derive(Clone, Copy, Debug, Default)]
pub struct UdpRx {
    pub pkts: u64,
    pub bytes: u64,
    /// When the last packet arrived.
    pub last: SimTime,
}

impl UdpFlow {
    pub fn on_receive(&mut self, p: &Packet, now: SimTime) {
        self.rx.pkts += 1;
        self.rx.bytes += p.payload as u64;
        self.rx.last = now;
    }

    /// Absorb `rx`, the copy of this flow that ran its receiving end
    /// (this one ran the sender).
    pub fn absorb(&mut self, rx: &UdpFlow) {
        self.rx = rx.rx;
    }
}

/// One flow arrival of a Poisson workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrival {
    /// Time since the previous arrival (or since the app's start).
    pub gap: SimTime,
    pub src: u32,
    pub dst: u32,
    pub bytes: u64,
}

/// The arrival process of a Poisson app, separate from the network so it
/// can be checked on its own (millions of arrivals in milliseconds).
/// Every draw comes from the app's own stream, in a fixed order per
/// arrival (gap, source, destination, size): the workload is the same
/// whatever the transport does with it.
#[derive(Clone, Debug)]
pub struct Arrivals {
    cdf: FlowSizeCdf,
    sources: Vec<u32>,
    destinations: Vec<u32>,
    /// Position of each host in `destinations` (`u32::MAX` if absent).
    dst_pos: Vec<u32>,
    /// Mean inter-arrival time in picoseconds.
    mean_gap_ps: f64,
    rng: Rng,
}

impl Arrivals {
    pub fn new(spec: &PoissonSpec, rng: Rng) -> Arrivals {
        let n = spec
            .sources
            .iter()
            .chain(&spec.destinations)
            .max()
            .map_or(0, |&h| h + 1);
        let mut dst_pos = vec![u32::MAX; n];
        for (i, &d) in spec.destinations.iter().enumerate() {
            dst_pos[d] = i as u32;
        }
        Arrivals {
            cdf: spec.cdf.clone(),
            sources: spec.sources.iter().map(|&h| h as u32).collect(),
            destinations: spec.destinations.iter().map(|&h| h as u32).collect(),
            dst_pos,
            mean_gap_ps: 1e12 / spec.arrival_rate(),
            rng,
        }
    }

    /// The next arrival.
    pub fn next_arrival(&mut self) -> Arrival {
        let u = 1.0 - self.rng.gen::<f64>(); // (0, 1]: ln is finite
        let gap = SimTime((-u.ln() * self.mean_gap_ps).round() as u64);
        let src = self.sources[self.rng.gen_range(0..self.sources.len())];
        // Uniform over the destinations other than the source.
        let pos = self.dst_pos[src as usize];
        let dst = if pos == u32::MAX {
            self.destinations[self.rng.gen_range(0..self.destinations.len())]
        } else {
            let k = self.rng.gen_range(0..self.destinations.len() - 1);
            self.destinations[if k >= pos as usize { k + 1 } else { k }]
        };
        let bytes = self.cdf.sample(&mut self.rng);
        Arrival {
            gap,
            src,
            dst,
            bytes,
        }
    }
}

/// Open-loop Poisson flow arrivals: every arrival opens a new TCP flow
/// (created when it arrives, so memory grows with flows started, not with
/// the run's length up front) and writes its whole size at once.
///
/// In a partitioned run every partition runs the app: each draws every
/// arrival (the seed's stream, whatever the cut) and opens every flow, so
/// flows have the same numbers everywhere; the sender's partition writes,
/// the receiver's learns the message's end ([`AppCtx::tcp_write`]). Each
/// copy waits only for the flows it receives (`outstanding`): the app is
/// done when every copy is, at the event that ends it on one thread.
pub struct PoissonApp {
    pub spec: Box<PoissonSpec>,
    arrivals: Arrivals,
    /// Arrivals at or after this time are not generated.
    pub gen_end: SimTime,
    /// The next arrival, drawn and scheduled.
    pending: Option<Arrival>,
    pub generated: u64,
    pub generated_bytes: u64,
    outstanding: u64,
    gen_done: bool,
    /// Flows whose last byte arrived; their sender buffers are released once acknowledged.
    finished: Vec<u32>,
    /// Flows this world sends to a host it does not run (a partitioned
    /// run): it never sees their last byte arrive, so it looks at their
    /// acknowledgements when the list has doubled since it last did
    /// (a look per arrival on average). Empty on one thread.
    sent_away: Vec<u32>,
    sent_away_looked: usize,
}

// A handful of apps per run, never copied: the size difference between
// variants costs nothing worth a Box.
#[allow(clippy::large_enum_variant)]
pub enum App {
    Bulk(Bulk),
    Rounds(Rounds),
    Udp { flow: u32 },
    Poisson(PoissonApp),
}

impl App {
    pub fn kind(&self) -> &'static str {
        match self {
            App::Bulk(_) => "bulk",
            App::Rounds(r) => r.kind,
            App::Udp { .. } => "udp_cbr",
            App::Poisson(_) => "poisson",
        }
    }

    /// Heap bytes of the app's own lists (flow ids, finished rounds).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        match self {
            App::Bulk(_) | App::Udp { .. } => 0,
            App::Rounds(r) => {
                (r.servers.capacity() + r.req_flows.capacity() + r.resp_flows.capacity()) * 4
                    + r.abtt_at_start.capacity() * 8
                    + r.done.capacity() * size_of::<Round>()
            }
            // Its spec and CDF are fixed and small; what grows is the
            // list of flows waiting for their last ACK.
            App::Poisson(p) => (p.finished.capacity() + p.sent_away.capacity()) * 4,
        }
    }

    pub fn start_time(&self) -> SimTime {
        match self {
            App::Bulk(b) => b.start,
            App::Rounds(r) => r.start,
            App::Udp { .. } => SimTime::ZERO,
            App::Poisson(p) => p.spec.start,
        }
    }

    /// Build app `id`; `start_jitter` > 0 delays its start by U[0, it]
    /// from the app's own stream of the seed (`Stream::Start`, so no other
    /// draw moves when it is set).
    pub fn build(w: &mut impl AppCtx, id: u32, spec: &AppSpec, start_jitter: SimTime) -> App {
        let offset = if start_jitter.0 > 0 {
            SimTime(stream(w.seed(), Stream::Start, id as u64).gen_range(0..=start_jitter.0))
        } else {
            SimTime::ZERO
        };
        match spec {
            AppSpec::Bulk {
                src,
                dst,
                amount,
                start,
                tcp,
            } => {
                let flow = w.add_tcp_flow(
                    id,
                    *src as u32,
                    *dst as u32,
                    tcp,
                    FlowMeta {
                        role: Role::Bulk,
                        idx: 0,
                    },
                );
                App::Bulk(Bulk {
                    flow,
                    amount: *amount,
                    start: *start + offset,
                    end: None,
                    delivered_at_end: 0,
                })
            }
            AppSpec::PartitionAggregate {
                aggregator,
                workers,
                response_bytes,
                request_bytes,
                queries,
                gap,
                start,
                tcp,
            } => {
                let shape = RoundShape {
                    kind: "partition_aggregate",
                    request_bytes: *request_bytes,
                    response_bytes: *response_bytes,
                    rounds: *queries,
                    gap: *gap,
                    jitter: SimTime::ZERO,
                    spacing: SimTime::ZERO,
                    start: *start + offset,
                };
                App::Rounds(Rounds::build(w, id, *aggregator, workers, tcp, shape))
            }
            AppSpec::SyncReads {
                client,
                servers,
                sru_bytes,
                request_bytes,
                blocks,
                jitter,
                spacing,
                start,
                tcp,
            } => {
                let shape = RoundShape {
                    kind: "sync_reads",
                    request_bytes: *request_bytes,
                    response_bytes: *sru_bytes,
                    rounds: *blocks,
                    gap: SimTime::ZERO,
                    jitter: *jitter,
                    spacing: *spacing,
                    start: *start + offset,
                };
                App::Rounds(Rounds::build(w, id, *client, servers, tcp, shape))
            }
            AppSpec::UdpCbr {
                src,
                dst,
                rate_bps,
                payload_bytes,
                start,
                stop,
            } => {
                // UDP/IP headers: 28 bytes.
                let wire = payload_bytes + 28 + w.l2_overhead();
                let flow = w.add_udp_flow(UdpFlow {
                    app: id,
                    src: *src as u32,
                    dst: *dst as u32,
                    rate_bps: *rate_bps,
                    payload: *payload_bytes,
                    wire,
                    interval: tx_time(wire as u64, *rate_bps),
                    start: *start + offset,
                    stop: *stop,
                    sent_pkts: 0,
                    sent_bytes: 0,
                    rx: UdpRx::default(),
                });
                App::Udp { flow }
            }
            AppSpec::Poisson(spec) => {
                let arrivals = Arrivals::new(spec, stream(w.seed(), Stream::App, id as u64));
                App::Poisson(PoissonApp {
                    gen_end: spec.start + spec.duration,
                    spec: spec.clone(),
                    arrivals,
                    pending: None,
                    generated: 0,
                    generated_bytes: 0,
                    outstanding: 0,
                    gen_done: false,
                    finished: Vec::new(),
                    sent_away: Vec::new(),
                    sent_away_looked: 0,
                })
            }
        }
    }

    /// A scheduled wake-up of this app (number `app`): tag 0 starts the app
    /// (or its next round).
    pub fn on_event(&mut self, w: &mut impl AppCtx, app: u32, tag: u32) {
        let now = w.now();
        match self {
            App::Bulk(b) => {
                let flow = b.flow;
                match (tag, b.amount) {
                    (0, BulkAmount::Bytes(n)) => w.tcp_write(flow, n, Some(0)),
                    (0, BulkAmount::Duration(d)) => {
                        w.wake(now + d, app, 1);
                        // Effectively unlimited data until the deadline closes the flow.
                        w.tcp_write(flow, 1 << 60, None);
                    }
                    _ => {
                        b.end = Some(now);
                        b.delivered_at_end = w.flows()[flow as usize].delivered();
                        w.flow_mut(flow).app_close();
                        w.app_done();
                    }
                }
            }
            App::Rounds(r) => {
                if tag == 0 {
                    r.start_round(w, app);
                } else {
                    let i = (tag - 1) as usize;
                    w.tcp_write(r.req_flows[i], r.request_bytes, Some(r.cur));
                }
            }
            App::Poisson(p) => p.arrival(w, app, tag),
            App::Udp { flow } => {
                let f = *flow;
                if tag == 0 {
                    let (start, stop) = (w.udp(f).start, w.udp(f).stop);
                    w.wake_udp(start.max(now), f);
                    w.wake(stop.max(now), app, 1);
                } else {
                    w.app_done();
                }
            }
        }
    }

    /// The last byte of a message tagged `tag` on `flow`, one of this
    /// app's flows, was delivered in order.
    pub fn on_message(&mut self, w: &mut impl AppCtx, flow: u32, tag: u32) {
        let app = w.flows()[flow as usize].app;
        let meta = w.flow_meta(flow);
        let now = w.now();
        match self {
            App::Bulk(b) => {
                b.end = Some(now);
                b.delivered_at_end = w.flows()[flow as usize].delivered();
                w.app_done();
            }
            App::Rounds(r) => match meta.role {
                Role::Request => {
                    // The server answers the request of round `tag`; the
                    // ACK of the request goes with the answer, as a real
                    // stack's rides on the response's first segment.
                    let f = r.resp_flows[meta.idx as usize];
                    w.answered(flow);
                    w.tcp_write(f, r.response_bytes, Some(tag));
                }
                Role::Response | Role::Bulk | Role::Flow => {
                    r.outstanding -= 1;
                    if r.outstanding > 0 {
                        return;
                    }
                    let flows = w.flows();
                    let c = TimeoutCounts::of_round(flows, r);
                    r.done.push(Round {
                        start: r.round_start,
                        end: now,
                        bytes: r.response_bytes * r.servers.len() as u64,
                        timeouts: c.timeouts - r.at_start.timeouts,
                        request_timeouts: c.request_timeouts - r.at_start.request_timeouts,
                        abtt: c.abtt - r.at_start.abtt,
                        ibtt: c.ibtt - r.at_start.ibtt,
                        rto_first_flight: c.rto_first_flight - r.at_start.rto_first_flight,
                        abtt_flows: r
                            .resp_flows
                            .iter()
                            .zip(&r.abtt_at_start)
                            .filter(|&(&f, &a0)| flows[f as usize].stats.abtt > a0)
                            .count() as u64,
                    });
                    r.cur += 1;
                    if r.cur >= r.rounds {
                        w.app_done();
                    } else if r.gap > SimTime::ZERO {
                        w.wake(now + r.gap, app, 0);
                    } else {
                        r.start_round(w, app);
                    }
                }
            },
            App::Poisson(p) => {
                p.outstanding -= 1;
                if w.runs_host(w.flows()[flow as usize].src_host) {
                    p.finished.push(flow);
                } else {
                    // the receiver's copy in a partitioned run: it holds
                    // nothing more of this flow's data
                    w.flow_mut(flow).release_buffers();
                }
                if p.gen_done && p.outstanding == 0 {
                    w.app_done();
                }
            }
            App::Udp { .. } => {}
        }
    }
}

impl Rounds {
    fn start_round(&mut self, w: &mut impl AppCtx, app: u32) {
        let now = w.now();
        let r = self;
        r.round_start = now;
        r.outstanding = r.servers.len() as u32;
        let flows = w.flows();
        r.at_start = TimeoutCounts::of_round(flows, r);
        r.abtt_at_start.clear();
        r.abtt_at_start
            .extend(r.resp_flows.iter().map(|&f| flows[f as usize].stats.abtt));
        let round = r.cur;
        for i in 0..r.servers.len() {
            if r.jitter > SimTime::ZERO || r.spacing > SimTime::ZERO {
                let mut d = SimTime(r.spacing.0.saturating_mul(i as u64));
                if r.jitter > SimTime::ZERO {
                    d += SimTime(r.rng.gen_range(0..=r.jitter.0));
                }
                w.wake(now + d, app, 1 + i as u32);
            } else {
                w.tcp_write(r.req_flows[i], r.request_bytes, Some(round));
            }
        }
    }
}

impl PoissonApp {
    /// Tag 0: the app starts (draw the first arrival); tag 1: the pending
    /// arrival happens (open its flow, draw the next).
    fn arrival(&mut self, w: &mut impl AppCtx, app: u32, tag: u32) {
        let now = w.now();
        let p = self;
        let mut opened = None;
        if tag == 1 {
            if let Some(a) = p.pending.take() {
                p.generated += 1;
                p.generated_bytes += a.bytes;
                p.outstanding += w.runs_host(a.dst) as u64;
                opened = Some((a, p.spec.tcp.clone(), p.generated - 1));
            }
        }
        // Release the buffers of flows fully acknowledged since the last arrival.
        p.finished.retain(|&f| !release_if_acked(w, f));
        if p.sent_away.len() >= 2 * p.sent_away_looked.max(8) {
            p.sent_away.retain(|&f| !release_if_acked(w, f));
            p.sent_away_looked = p.sent_away.len();
        }
        let limit = p.spec.max_flows.unwrap_or(u64::MAX);
        if p.generated < limit {
            let a = p.arrivals.next_arrival();
            let at = now + a.gap;
            if at < p.gen_end {
                p.pending = Some(a);
                w.wake(at, app, 1);
            } else {
                p.gen_done = true;
            }
        } else {
            p.gen_done = true;
        }
        if let Some((a, tcp, idx)) = opened {
            let meta = FlowMeta {
                role: Role::Flow,
                idx: idx as u32,
            };
            let f = w.add_tcp_flow(app, a.src, a.dst, &tcp, meta);
            w.tcp_write(f, a.bytes, Some(0));
            if w.runs_host(a.src) && !w.runs_host(a.dst) {
                p.sent_away.push(f);
            }
        }
        // (on one thread a flow just opened is outstanding; a partition
        // that does not receive it may be done at its arrival)
        if p.gen_done && p.outstanding == 0 {
            w.app_done();
        }
    }
}

/// Give back the buffers of TCP flow `f` if everything it was given is
/// acknowledged; whether it did.
fn release_if_acked(w: &mut impl AppCtx, f: u32) -> bool {
    let fl = w.flow_mut(f);
    let done = fl.snd_una() >= fl.app_bytes();
    if done {
        fl.release_buffers();
    }
    done
}

impl UdpFlow {
    /// The CBR source `f` (this one) emits its next packet at `now`:
    /// returns it and when the one after is due, or nothing once stopped.
    pub fn tick(&mut self, f: u32, now: SimTime) -> Option<(Packet, SimTime)> {
        if now >= self.stop {
            return None;
        }
        let pkt = Packet {
            kind: PktKind::Udp,
            flow: f,
            txn: self.sent_pkts as u32,
            src: self.src,
            dst: self.dst,
            payload: self.payload,
            wire: self.wire,
            ts: now,
            ..Packet::EMPTY
        };
        self.sent_pkts += 1;
        self.sent_bytes += self.payload as u64;
        Some((pkt, now + self.interval))
    }
}

/// A round app's load: a request flow and a response flow per server, and
/// every round's request and response on each.
fn round_load(servers: usize, response: u64, request: u64, rounds: u64) -> (u64, u64, bool) {
    let n = servers as u64;
    let b = response
        .saturating_add(request)
        .saturating_mul(n)
        .saturating_mul(rounds);
    (2 * n, b, false)
}

/// What each kind of app asks of the machine, before it runs: the limits
/// (stats/limits.rs) add these up, so a new app states its own here.
impl AppSpec {
    /// (TCP flows, bytes written, whether it sends until a deadline), in a
    /// run that stops at `stop`.
    pub fn tcp_load(&self, stop: SimTime) -> (u64, u64, bool) {
        match self {
            AppSpec::Bulk { amount, .. } => match amount {
                BulkAmount::Bytes(n) => (1, *n, false),
                BulkAmount::Duration(_) => (1, 0, true),
            },
            AppSpec::PartitionAggregate {
                workers,
                response_bytes,
                request_bytes,
                ..
            } => round_load(
                workers.len(),
                *response_bytes,
                *request_bytes,
                self.rounds(),
            ),
            AppSpec::SyncReads {
                servers,
                sru_bytes,
                request_bytes,
                ..
            } => round_load(servers.len(), *sru_bytes, *request_bytes, self.rounds()),
            AppSpec::Poisson(p) => {
                // Arrivals until start + duration (or max_flows), or the
                // run's stop if sooner (a 5 s load cut at 10 ms was refused
                // as 78 GB: the estimate counted all 5 s). The count is
                // Poisson with mean λ: it exceeds λ + 8√λ + 20 with
                // probability below 10⁻¹⁴ (Chernoff), for any λ.
                let window = p.duration.min(stop.saturating_sub(p.start));
                let lambda = p.arrival_rate() * window.secs_scaled();
                let n = (lambda + 8.0 * lambda.sqrt() + 20.0).min(1e15) as u64;
                let n = p.max_flows.map_or(n, |m| m.min(n));
                (
                    n,
                    (n as f64 * p.cdf.mean()).min(u64::MAX as f64) as u64,
                    false,
                )
            }
            AppSpec::UdpCbr { .. } => (0, 0, true),
        }
    }

    /// The most bytes one of the app's flows has written and not yet had
    /// acknowledged at any time, where the app bounds it: a sized bulk
    /// flow its size; a round app one round's message (the next query or
    /// block starts only when every response of the last one has arrived),
    /// not all its rounds' bytes. None for a Poisson app (its flows' sizes
    /// differ: the sum over flows is bounded by the bytes written, `bytes /
    /// n` each) and for flows that send until a deadline.
    pub fn bytes_at_once(&self) -> Option<u64> {
        match self {
            AppSpec::Bulk {
                amount: BulkAmount::Bytes(n),
                ..
            } => Some(*n),
            AppSpec::PartitionAggregate {
                response_bytes,
                request_bytes,
                ..
            } => Some((*response_bytes).max(*request_bytes)),
            AppSpec::SyncReads {
                sru_bytes,
                request_bytes,
                ..
            } => Some((*sru_bytes).max(*request_bytes)),
            _ => None,
        }
    }

    /// Hosts the app's packets start or end at.
    pub fn hosts(&self) -> Vec<usize> {
        match self {
            AppSpec::Bulk { src, dst, .. } | AppSpec::UdpCbr { src, dst, .. } => vec![*src, *dst],
            AppSpec::PartitionAggregate {
                aggregator,
                workers,
                ..
            } => {
                let mut v = workers.clone();
                v.push(*aggregator);
                v
            }
            AppSpec::SyncReads {
                client, servers, ..
            } => {
                let mut v = servers.clone();
                v.push(*client);
                v
            }
            AppSpec::Poisson(p) => {
                let mut v = p.sources.clone();
                v.extend(&p.destinations);
                v.sort_unstable();
                v.dedup();
                v
            }
        }
    }

    /// Rows the app adds to the rounds tables (`queries`, `blocks`).
    pub fn rounds(&self) -> u64 {
        match self {
            AppSpec::PartitionAggregate { queries, .. } => *queries as u64,
            AppSpec::SyncReads { blocks, .. } => *blocks as u64,
            _ => 0,
        }
    }

    /// Flow directions a switch may see of the app: a TCP connection's two
    /// per flow, a UDP source's one.
    pub fn flow_directions(&self, stop: SimTime) -> u64 {
        match self {
            AppSpec::UdpCbr { .. } => 1,
            _ => self.tcp_load(stop).0.saturating_mul(2),
        }
    }
}
