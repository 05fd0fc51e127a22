//! Priority flow control (`[pfc]`: IEEE 802.1Qbb with one traffic class),
//! the lossless Ethernet that RoCE fabrics and HPCC run over.
//!
//! **The rule** (as htsim's `LosslessInputQueue` / `LosslessOutputQueue`
//! have it, the fabric of its HPCC experiments): a switch counts, per
//! ingress port, the bytes of the packets that came in through it and
//! have not yet left the switch (a packet is counted when it joins an
//! egress queue and released when its serialization there ends). When an
//! ingress port's count goes above `xoff` the switch sends PAUSE to the
//! port's upstream sender (a switch's egress or a host's NIC); when it
//! falls below `xon`, RESUME. Each travels the link's propagation delay
//! back, jumping every queue (a MAC control frame). A paused sender
//! finishes the packet it is serializing and starts no other until it
//! is resumed; its queue keeps filling (a host's NIC without limit for
//! its transports, whose windows bound it: the bytes wait in the host, as
//! a paused NIC holds back its stack; UDP keeps `nic_buffer`). Pauses
//! spread congestion upstream hop by hop instead of dropping: with
//! thresholds that leave a link's round trip of headroom below the
//! buffer, nothing is lost. A switch egress still drops past its
//! `buffer` (htsim's never do; a drop there says the thresholds leave too
//! little headroom, and `dcnsim run` warns).
//!
//! **Cost to every other scenario: none on the FIFO path.** As with
//! trimming (net/trim.rs), every link is given a link class whose
//! drop-tail limit is zero, so each enqueue takes the FIFO's cold
//! over-limit branch, which hands it here; a link's serializer is driven by
//! an event at each departure (`Event::Serve`), since a paused port's
//! departures are not known when a packet is enqueued. A packet enters the
//! link's ring (its propagation pipe) when it starts serialization.

use super::{flags, int, Enqueue, Hdr, Link, Links, PktKind, NO_LINK};
use crate::config::{Limit, PfcConfig};
use crate::sim::queue::{Event, EventQueue};
use crate::sim::time::SimTime;
use std::collections::VecDeque;

/// One waiting packet.
#[derive(Clone, Copy, Debug)]
struct Waiting {
    at: SimTime,
    h: Hdr,
    /// Start serialization no earlier than `at + delay` (host jitter).
    delay: SimTime,
    /// The link it came in on (`NO_LINK`: from the host's own stack).
    input: u32,
}

/// One directed link's state: as an egress (its queue and serializer, at
/// the link's sending node) and as an ingress (the bytes it brought into
/// the switch at its far end, and the pause that count sends back).
#[derive(Clone, Debug)]
struct Port {
    waiting: VecDeque<Waiting>,
    waiting_bytes: u64,
    /// The class whose limits and ECN threshold the queue applies (the
    /// link's own holds a zero limit: see the module's notes).
    real_class: u32,
    /// A host's NIC: no drop-tail limit but for UDP (a paused NIC holds the
    /// host's transports back).
    nic: bool,
    /// Input link of the packet being serialized, and its wire bytes
    /// (released at the switch when its serialization ends).
    serving_in: u32,
    serving_wire: u32,
    /// A `Serve` event is pending at the serializer's `free_at`.
    armed: bool,
    /// Pause state changes on their way to this link's sender (time they
    /// arrive, paused?), oldest first, and the state reached.
    changes: VecDeque<(SimTime, bool)>,
    paused: bool,
    /// As an ingress: bytes held in the far end's switch, and whether the
    /// last frame sent back was a PAUSE.
    held: u64,
    held_pkts: u64,
    xoff_sent: bool,
    counts: PfcCounts,
    /// When the last PAUSE reaches the sender.
    pause_from: SimTime,
}

/// What PFC did on one directed link, as an ingress port of the switch at
/// its far end (the pauses it sent back) and to its sender.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PfcCounts {
    /// PAUSE frames sent to the link's sender (each followed by a RESUME,
    /// unless the run ended first).
    pub pauses: u64,
    /// Time the sender spent paused, in ps (up to [`Links::pfc_counts`]'s
    /// `end` for a pause still on).
    pub paused_ps: u64,
    /// The most bytes the link had in the far end's switch at once.
    pub max_held: u64,
}

/// A PAUSE or RESUME for a link whose sender another world runs (see
/// [`Links::set_remote_senders`]): handed to that world, which applies it
/// as its own ([`Links::accept_pause`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PauseHandoff {
    /// When it reaches the link's sender.
    pub at: SimTime,
    pub link: u32,
    pub paused: bool,
}

/// The fabric's PFC: per directed link its [`Port`]; empty when off.
#[derive(Clone, Debug)]
pub struct Pfc {
    ports: Vec<Port>,
    xoff: Limit,
    xon: Limit,
    /// Every PAUSE and RESUME sent, in the order sent: (when it reaches
    /// the sender, link, paused?, the key of the event that sent it).
    /// The key orders frames that reach their senders at one time as one
    /// queue ran their events, when partitions' logs are merged (a world
    /// that runs the whole model sends them in that order, and its key is
    /// not kept: 0).
    log: Vec<(SimTime, u32, bool, u128)>,
    /// Per link, whether another world runs its sender (empty: none).
    remote: Vec<bool>,
    /// Frames for such links since the last [`Links::swap_pause_outbox`].
    out: Vec<PauseHandoff>,
}

impl Default for Pfc {
    /// Off: no ports.
    fn default() -> Self {
        Pfc {
            ports: Vec::new(),
            xoff: Limit::Bytes(0),
            xon: Limit::Bytes(0),
            log: Vec::new(),
            remote: Vec::new(),
            out: Vec::new(),
        }
    }
}

impl Port {
    /// Over `xoff` (bytes or packets held).
    fn over(&self, xoff: Limit) -> bool {
        match xoff {
            Limit::Bytes(b) => self.held > b,
            Limit::Packets(n) => self.held_pkts > n,
        }
    }

    /// Under `xon`.
    fn under(&self, xon: Limit) -> bool {
        match xon {
            Limit::Bytes(b) => self.held < b,
            Limit::Packets(n) => self.held_pkts < n,
        }
    }
}

impl Pfc {
    #[inline]
    pub fn on(&self) -> bool {
        !self.ports.is_empty()
    }

    /// The class link `l`'s queue applies under PFC (its own is refusing).
    pub(super) fn real_class(&self, l: usize) -> u32 {
        self.ports[l].real_class
    }

    pub fn heap_bytes(&self) -> usize {
        self.ports.capacity() * std::mem::size_of::<Port>()
            + self
                .ports
                .iter()
                .map(|p| {
                    p.waiting.capacity() * std::mem::size_of::<Waiting>()
                        + p.changes.capacity() * 16
                })
                .sum::<usize>()
            + self.log.capacity() * std::mem::size_of::<(SimTime, u32, bool, u128)>()
            + self.remote.capacity()
            + self.out.capacity() * std::mem::size_of::<PauseHandoff>()
    }

    /// Whether another world runs the sender of link `i`.
    #[inline]
    fn remote(&self, i: usize) -> bool {
        self.remote.get(i).is_some_and(|&r| r)
    }
}

impl Links {
    /// Turn PFC on at every link: `from_switch[l]` says whether link `l`
    /// leaves a switch (else it is a host's NIC: no drop-tail limit but
    /// for UDP). The links a packet comes in on are counted where it is
    /// enqueued ([`Self::enqueue_from`]). With INT on, call after
    /// [`Self::set_int`] (its egresses keep their real classes there).
    pub fn set_pfc(&mut self, cfg: &PfcConfig, from_switch: &[bool]) {
        assert!(!self.trimming(), "PFC and trimming queues: not together");
        let mut ports = Vec::with_capacity(self.hot.len());
        assert_eq!(from_switch.len(), self.hot.len(), "a flag per link");
        for (l, &from_switch) in from_switch.iter().enumerate() {
            let own = self.hot[l].st.class;
            let real = self.int.real_class(l).unwrap_or(own);
            self.hot[l].st.class = self.refusing(own);
            ports.push(Port {
                waiting: VecDeque::new(),
                waiting_bytes: 0,
                real_class: real,
                nic: !from_switch,
                serving_in: NO_LINK,
                serving_wire: 0,
                armed: false,
                changes: VecDeque::new(),
                paused: false,
                held: 0,
                held_pkts: 0,
                xoff_sent: false,
                counts: PfcCounts::default(),
                pause_from: SimTime::ZERO,
            });
        }
        self.pfc = Pfc {
            ports,
            xoff: cfg.xoff,
            xon: cfg.xon,
            log: Vec::new(),
            remote: Vec::new(),
            out: Vec::new(),
        };
    }

    /// Mark the links whose sending end another world runs (`remote[l]`):
    /// the PAUSE and RESUME frames this world's switches send them go to
    /// the outbox ([`Self::swap_pause_outbox`]), for that world's
    /// [`Self::accept_pause`], instead of to a sender here. No-op with
    /// PFC off.
    pub fn set_remote_senders(&mut self, remote: Vec<bool>) {
        if !self.pfc.on() {
            return;
        }
        assert_eq!(remote.len(), self.hot.len(), "one flag per link");
        self.pfc.remote = if remote.iter().any(|&r| r) {
            remote
        } else {
            Vec::new()
        };
    }

    /// The frames sent to other worlds' senders since the last call, in
    /// the order sent, into `buf` (cleared), whose allocation the outbox
    /// takes in exchange.
    pub fn swap_pause_outbox(&mut self, buf: &mut Vec<PauseHandoff>) {
        buf.clear();
        std::mem::swap(&mut self.pfc.out, buf);
    }

    /// A PAUSE or RESUME sent to the sender of link `f.link`, which this
    /// world runs (from a switch here or in another world): applied when it
    /// arrives, at `f.at`; a RESUME serves the link then.
    pub fn accept_pause(&mut self, q: &mut EventQueue, f: PauseHandoff) {
        let p = &mut self.pfc.ports[f.link as usize];
        debug_assert!(p.changes.back().is_none_or(|&(t, _)| t <= f.at));
        p.changes.push_back((f.at, f.paused));
        if !f.paused {
            q.schedule(f.at, Event::Serve(f.link));
        }
    }

    /// Absorb from `other` (another world of the same model, its run
    /// ended) the PFC state of the links it ran: a port's egress side
    /// (its queue, serializer and the frames that reached it) where it
    /// ran the link's sender (`sender(l)`), its ingress side (the bytes
    /// held, the frames sent and their counts) where it ran the far end
    /// (`far_end(l)`); and its log.
    pub fn absorb_pfc(
        &mut self,
        other: &Links,
        sender: impl Fn(usize) -> bool,
        far_end: impl Fn(usize) -> bool,
    ) {
        if !self.pfc.on() {
            return;
        }
        for (l, (p, o)) in self.pfc.ports.iter_mut().zip(&other.pfc.ports).enumerate() {
            if sender(l) {
                p.waiting = o.waiting.clone();
                p.waiting_bytes = o.waiting_bytes;
                p.serving_in = o.serving_in;
                p.serving_wire = o.serving_wire;
                p.armed = o.armed;
                p.changes = o.changes.clone();
                p.paused = o.paused;
            }
            if far_end(l) {
                p.held = o.held;
                p.held_pkts = o.held_pkts;
                p.xoff_sent = o.xoff_sent;
                p.counts = o.counts;
                p.pause_from = o.pause_from;
            }
        }
        self.pfc.log.extend_from_slice(&other.pfc.log);
        self.pfc.remote = Vec::new();
    }

    /// Whether PFC is on.
    #[inline]
    pub fn pfc_on(&self) -> bool {
        self.pfc.on()
    }

    /// Per directed link, what PFC did, a pause still on counted up to `end`.
    pub fn pfc_counts(&self, end: SimTime) -> Vec<PfcCounts> {
        self.pfc
            .ports
            .iter()
            .map(|p| {
                let mut c = p.counts;
                if p.xoff_sent && end > p.pause_from {
                    c.paused_ps += (end - p.pause_from).0;
                }
                c
            })
            .collect()
    }

    /// Per directed link, whether its sender is paused now (a PAUSE
    /// reached it and no RESUME since).
    pub fn pfc_paused_now(&self) -> Vec<bool> {
        self.pfc.ports.iter().map(|p| p.paused).collect()
    }

    /// Every PAUSE and RESUME sent: when it reaches the sender, the link
    /// (whose sender it pauses), and whether it pauses. In time order.
    pub fn pfc_log(&self) -> Vec<(SimTime, u32, bool)> {
        let mut log = self.pfc.log.clone();
        // sent in time order, each a link's delay ahead: stable by arrival,
        // then by the sending event (merged partitions' logs)
        log.sort_by_key(|&(t, _, _, key)| (t, key));
        log.into_iter()
            .map(|(t, l, paused, _)| (t, l, paused))
            .collect()
    }

    /// Packet `h`, come in on `input` (`NO_LINK`: from the host), offered
    /// to link `link`'s queue at `q.now()`.
    pub(super) fn enqueue_pfc(
        &mut self,
        link: u32,
        mut h: Hdr,
        q: &mut EventQueue,
        start_delay: SimTime,
        input: u32,
    ) -> Enqueue {
        let now = q.now();
        let l = link as usize;
        let Link { st, rare } = &mut self.hot[l];
        Self::advance(st, &self.pool, &self.classes, now);
        let p = &mut self.pfc.ports[l];
        let c = &self.classes[p.real_class as usize];
        let wire = h.wire;
        // the packet being serialized counts, as in the FIFO
        let bytes = st.q_bytes + p.waiting_bytes;
        let pkts = st.buffered as u64 + p.waiting.len() as u64;
        // A host's NIC holds back its transports' packets whatever their
        // number (their windows bound it), and drops a UDP source's past
        // `nic_buffer`, as a kernel's full qdisc does: a paused NIC must
        // not queue an open-loop source without end.
        let bounded = !p.nic || h.kind == PktKind::Udp;
        if bounded && (bytes + wire as u64 > c.lim_bytes || pkts + 1 > c.lim_pkts) {
            rare.dropped += 1;
            return Enqueue::Dropped;
        }
        if c.over_k(bytes, pkts)
            && h.flags & flags::ECT != 0
            && (rare.ramp_kmax == 0 || c.ramp_marks(rare, bytes, pkts))
        {
            h.flags |= flags::CE;
            rare.marked += 1;
        }
        p.waiting.push_back(Waiting {
            at: now,
            h,
            delay: start_delay,
            input,
        });
        p.waiting_bytes += wire as u64;
        st.enqueued += 1;
        st.enq_bytes += wire as u64;
        let m = &mut self.max[l];
        if bytes + wire as u64 > m.bytes as u64 {
            Self::raise_max_bytes(m, rare, bytes + wire as u64);
        }
        m.pkts = m.pkts.max(pkts as u32 + 1);
        if input != NO_LINK {
            let (xoff, i) = (self.pfc.xoff, input as usize);
            let ing = &mut self.pfc.ports[i];
            ing.held += wire as u64;
            ing.held_pkts += 1;
            ing.counts.max_held = ing.counts.max_held.max(ing.held);
            if !ing.xoff_sent && ing.over(xoff) {
                // PAUSE, to the input link's sender, a propagation delay away
                ing.xoff_sent = true;
                ing.counts.pauses += 1;
                let t = now + self.info[i].delay;
                ing.pause_from = t;
                self.send_frame(
                    q,
                    PauseHandoff {
                        at: t,
                        link: input,
                        paused: true,
                    },
                );
            }
        }
        if self.hot[l].st.free_at <= now {
            self.serve_pfc(q, link);
        } else if !self.pfc.ports[l].armed {
            self.pfc.ports[l].armed = true;
            q.schedule(self.hot[l].st.free_at, Event::Serve(link));
        }
        Enqueue::Queued
    }

    /// Link `link`'s serializer may be free (a departure, an enqueue on
    /// an idle link, or a RESUME reaching it): release the packet whose
    /// serialization ended at the switch it came into, apply the pause
    /// frames that have arrived, and start the next packet unless paused.
    /// Idempotent: an event that finds the serializer busy arms the next.
    pub(super) fn serve_pfc(&mut self, q: &mut EventQueue, link: u32) {
        let now = q.now();
        let l = link as usize;
        let free_at = self.hot[l].st.free_at;
        let p = &mut self.pfc.ports[l];
        if p.serving_in != NO_LINK && free_at <= now {
            let (i, wire) = (p.serving_in, p.serving_wire);
            p.serving_in = NO_LINK;
            self.release(q, i, wire);
        }
        let p = &mut self.pfc.ports[l];
        while let Some(&(t, paused)) = p.changes.front() {
            if t > now {
                break;
            }
            p.paused = paused;
            p.changes.pop_front();
        }
        if free_at > now {
            if !p.armed {
                p.armed = true;
                q.schedule(free_at, Event::Serve(link));
            }
            return;
        }
        p.armed = false;
        if p.paused {
            return; // the RESUME's arrival serves it
        }
        let Some(w) = p.waiting.pop_front() else {
            return;
        };
        p.waiting_bytes -= w.h.wire as u64;
        let left = p.waiting_bytes;
        let more = !p.waiting.is_empty();
        let wire = w.h.wire;
        let depart = self.start_serializing(q, link, w.h, w.at, w.delay);
        if self.int.on() && int::carries_int(&w.h) && self.int.real_class(l).is_some() {
            // written at dequeue, as a switch does: the queue left behind,
            // the bytes sent by the end of this packet
            let st = &self.hot[l].st;
            let hop = int::IntHop {
                link,
                qlen: left,
                tx_bytes: st.enq_bytes - left,
                ts: depart,
                rate_bps: self.classes[st.class as usize].rate_bps,
            };
            self.int.push(w.h.id, hop);
        }
        let p = &mut self.pfc.ports[l];
        if w.input != NO_LINK {
            p.serving_in = w.input;
            p.serving_wire = wire;
        }
        if more || w.input != NO_LINK {
            p.armed = true;
            q.schedule(depart, Event::Serve(link));
        }
    }

    /// `wire` bytes that came in on link `input` left the switch: below
    /// `xon`, RESUME to its sender, whose serializer the frame's arrival
    /// serves.
    fn release(&mut self, q: &mut EventQueue, input: u32, wire: u32) {
        let i = input as usize;
        let xon = self.pfc.xon;
        let ing = &mut self.pfc.ports[i];
        ing.held -= wire as u64;
        ing.held_pkts -= 1;
        if ing.xoff_sent && ing.under(xon) {
            ing.xoff_sent = false;
            let t = q.now() + self.info[i].delay;
            ing.counts.paused_ps += (t - ing.pause_from).0;
            self.send_frame(
                q,
                PauseHandoff {
                    at: t,
                    link: input,
                    paused: false,
                },
            );
        }
    }

    /// A PAUSE or RESUME this world's switch sends to the sender of link
    /// `f.link`, logged: applied here ([`Self::accept_pause`]) or, where
    /// another world runs that sender, handed to it through the outbox,
    /// which applies it the same way.
    fn send_frame(&mut self, q: &mut EventQueue, f: PauseHandoff) {
        self.pfc.log.push((f.at, f.link, f.paused, q.last_key()));
        if self.pfc.remote(f.link as usize) {
            self.pfc.out.push(f);
        } else {
            self.accept_pause(q, f);
        }
    }

    /// Waiting packets (not yet serialized) under PFC on link `i`: bytes, packets.
    pub(super) fn pfc_waiting(&self, i: usize) -> (u64, u64) {
        self.pfc
            .ports
            .get(i)
            .map_or((0, 0), |p| (p.waiting_bytes, p.waiting.len() as u64))
    }

    /// ∫ bytes dt of link `i`'s waiting packets up to `now`.
    pub(super) fn pfc_waiting_area(&self, i: usize, now: SimTime) -> u128 {
        self.pfc.ports.get(i).map_or(0, |p| {
            p.waiting
                .iter()
                .map(|w| w.h.wire as u128 * now.saturating_sub(w.at).0 as u128)
                .sum()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Limit, NonEct, QueueConfig};
    use crate::net::NO_ROUTE;

    fn data(id: u32, wire: u32) -> Hdr {
        Hdr {
            id,
            wire,
            route: NO_ROUTE,
            next: u32::MAX,
            flow: 0,
            flags: 0,
            kind: PktKind::Data,
        }
    }

    /// Host 0 → switch 1 → host 2, 8 Gbps (1 ns a byte), 1 µs of
    /// propagation each, the switch's egress to host 2 at 1 Gbps (8 ns a
    /// byte): the switch fills faster than it drains.
    fn line(xoff: u64, xon: u64) -> Links {
        let mut links = fifo_line();
        let (xoff, xon) = (Limit::Bytes(xoff), Limit::Bytes(xon));
        links.set_pfc(&PfcConfig { xoff, xon }, &[false, true]);
        links
    }

    /// The same line without PFC.
    fn fifo_line() -> Links {
        let mut links = Links::default();
        let cfg = QueueConfig {
            limit: Limit::Bytes(1_000_000),
            ecn_k: None,
            non_ect: NonEct::Queue,
        };
        links.push(0, 1, 8_000_000_000, SimTime(1_000_000), cfg);
        links.push(1, 2, 1_000_000_000, SimTime(1_000_000), cfg);
        links
    }

    /// Run the line: the host offers `n` packets of 1,000 B at once; the
    /// switch forwards each as it arrives. Returns the arrivals at host 2
    /// and the most bytes the switch held for link 0.
    fn run(links: &mut Links, n: u32) -> (Vec<(SimTime, u32)>, PfcCounts) {
        let mut q = EventQueue::new();
        for i in 0..n {
            assert_eq!(
                links.enqueue(0, data(i, 1000), &mut q, SimTime::ZERO),
                Enqueue::Queued
            );
        }
        let mut got = Vec::new();
        while let Some(ev) = q.pop_until(SimTime::MAX) {
            match ev {
                Event::Arrive(0) => {
                    let h = links.arrive(&mut q, 0);
                    assert_eq!(
                        links.enqueue_from(1, h, &mut q, SimTime::ZERO, 0),
                        Enqueue::Queued
                    );
                }
                Event::Arrive(1) => {
                    let h = links.arrive(&mut q, 1);
                    got.push((q.now(), h.id));
                }
                Event::Serve(l) => links.serve(&mut q, l),
                e => unreachable!("{e:?}"),
            }
        }
        let c = links.pfc_counts(q.now())[0];
        (got, c)
    }

    /// Every packet arrives, in order, the bottleneck busy from its first
    /// packet to its last (pauses upstream never starve it: the switch
    /// resumes its sender while `xon` bytes are still queued), and the
    /// switch never holds more than `xoff` plus what was in flight when
    /// it paused (the link's round trip at 8 Gbps, 2 µs: 2,000 B, plus a
    /// packet being serialized and one crossing the threshold).
    #[test]
    fn pauses_hold_the_switch_near_xoff_and_lose_nothing() {
        let mut links = line(10_000, 8_000);
        let (got, c) = run(&mut links, 100);
        assert_eq!(got.len(), 100);
        assert!(got.windows(2).all(|w| w[0].1 + 1 == w[1].1), "in order");
        // 8 µs a packet at 1 Gbps, back to back from the first
        for w in got.windows(2) {
            assert_eq!((w[1].0 - w[0].0).0, 8_000_000, "the bottleneck idled");
        }
        assert!(c.pauses >= 2, "the switch paused its sender: {c:?}");
        assert!(c.max_held > 10_000, "{c:?}");
        assert!(c.max_held <= 10_000 + 2_000 + 2 * 1000, "{c:?}");
        let s = links.stats(1);
        assert_eq!((s.dropped, s.arrived), (0, 100));
        assert!(
            s.max_bytes <= c.max_held,
            "the egress holds only link 0's bytes"
        );
        // without PFC the same burst fills the switch's egress to ~88 KB
        let mut fifo = fifo_line();
        let mut q = EventQueue::new();
        for i in 0..100 {
            fifo.enqueue(0, data(i, 1000), &mut q, SimTime::ZERO);
        }
        while let Some(ev) = q.pop_until(SimTime::MAX) {
            if let Event::Arrive(l) = ev {
                let h = fifo.arrive(&mut q, l);
                if l == 0 {
                    fifo.enqueue(1, h, &mut q, SimTime::ZERO);
                }
            }
        }
        assert!(fifo.stats(1).max_bytes > 80_000);
    }

    /// The sender spends the time the switch needs to drain from `xoff`
    /// to `xon` paused: with the egress 8× slower than the ingress, most
    /// of the burst's time.
    #[test]
    fn the_sender_is_paused_while_the_switch_drains() {
        let mut links = line(10_000, 8_000);
        let (got, c) = run(&mut links, 100);
        let span = got.last().unwrap().0 .0;
        assert!(c.paused_ps > span / 2, "{c:?} over {span} ps");
        assert!(c.paused_ps < span, "{c:?} over {span} ps");
    }

    /// INT under PFC is written at dequeue: a burst of three HPCC packets
    /// and a TCP one on an idle switch egress (10 Gbps, 1,500 B: 1.2 µs
    /// each) records the queue each leaves behind (the first starts as it
    /// arrives, before the others: 0 B; the second leaves the third and
    /// the TCP packet, 3,000 B; the third 1,500 B), the bytes sent by the
    /// end of each (1,500, 3,000, 4,500: the records' difference over their
    /// timestamps is the line rate), and those ends; the TCP packet
    /// records nothing.
    #[test]
    fn int_records_are_written_at_dequeue() {
        let mut links = Links::default();
        let cfg = QueueConfig {
            limit: Limit::Bytes(1_000_000),
            ecn_k: None,
            non_ect: NonEct::Queue,
        };
        let l = links.push(0, 1, 10_000_000_000, SimTime::from_us(1), cfg);
        links.set_int(&[true]);
        let big = Limit::Bytes(1 << 30);
        links.set_pfc(
            &PfcConfig {
                xoff: big,
                xon: big,
            },
            &[true],
        );
        let mut q = EventQueue::new();
        for id in 0..3 {
            let mut h = data(id, 1500);
            h.flags = flags::NDP;
            assert_eq!(links.enqueue(l, h, &mut q, SimTime::ZERO), Enqueue::Queued);
        }
        assert_eq!(
            links.enqueue(l, data(3, 1500), &mut q, SimTime::ZERO),
            Enqueue::Queued
        );
        while let Some(ev) = q.pop_until(SimTime::MAX) {
            match ev {
                Event::Arrive(_) => {
                    links.arrive(&mut q, l);
                }
                Event::Serve(k) => links.serve(&mut q, k),
                e => unreachable!("{e:?}"),
            }
        }
        let recs: Vec<_> = (0..3).map(|id| links.int.take(id).hops()[0]).collect();
        assert_eq!(
            recs.iter().map(|r| r.qlen).collect::<Vec<_>>(),
            [0, 3000, 1500]
        );
        assert_eq!(
            recs.iter().map(|r| r.tx_bytes).collect::<Vec<_>>(),
            [1500, 3000, 4500]
        );
        let per = SimTime(1_200_000);
        assert_eq!(
            recs.iter().map(|r| r.ts).collect::<Vec<_>>(),
            [per, SimTime(2 * per.0), SimTime(3 * per.0)]
        );
        let rate = (recs[2].tx_bytes - recs[0].tx_bytes) as f64 * 8e12
            / (recs[2].ts - recs[0].ts).0 as f64;
        assert!((rate - 10e9).abs() < 1.0, "{rate}");
        assert_eq!(links.int.take(3).n, 0, "TCP data carries no INT");
    }
}
