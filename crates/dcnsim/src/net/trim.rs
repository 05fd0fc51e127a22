//! Payload trimming and a header queue served first (`[trimming]`; NDP's
//! switch, after htsim's `CompositeQueue`).
//!
//! With trimming on, every link's egress has two FIFOs: a header queue
//! (pure ACKs, NDP's control packets and trimmed headers) and a data
//! queue (data and UDP), and the serializer always takes the header
//! queue's head first (strict priority, not preemptive). At a switch's
//! egress a data packet that would take the data queue over its limit
//! (`buffer`) is trimmed: cut to its header (`trimming.header` bytes on
//! the wire, `flags::TRIMMED`) and offered to the header queue. As in
//! htsim, the packet cut is the arriving one or, with probability ½, the
//! newest waiting data packet (which the arriving packet then replaces
//! at the data queue's tail), so a burst's last packet does not always
//! lose. A header that finds the header queue over its limit
//! (`trimming.header_buffer`, default twice the data queue's bytes, as
//! htsim; a data limit in packets counts full-size data packets)
//! is dropped — or, with `trimming.return_to_sender`, a trimmed data
//! header not bounced before is sent back towards its sender. Hosts' NICs
//! serve headers first too but never trim (their `nic_buffer` drops as
//! before; their header queues hold twice `nic_buffer`, not
//! `header_buffer`, which is a switch port's).
//!
//! **Cost to every other scenario: none on the FIFO path.** A link with
//! priority queues is given a link class whose drop-tail limit is zero,
//! so every enqueue on it takes the FIFO path's over-limit branch (cold),
//! where [`Links::over_limit`] hands it here. The FIFO's lazy departures
//! no longer hold (a header overtakes waiting data), so a priority link's
//! serializer is driven by an event at each departure
//! (`Event::Serve(link)`, scheduled only while packets wait); a packet
//! enters the link's ring (its propagation pipe) when it starts
//! serialization, so its arrival at the far end is the ring's as before.

use super::{flags, Enqueue, Handoff, Hdr, Link, Links, PktKind, Slot};
use crate::config::{Limit, TrimConfig};
use crate::sim::queue::{Event, EventQueue};
use crate::sim::rng::Rng;
use crate::sim::time::SimTime;
use rand::Rng as _;
use std::collections::VecDeque;

/// One waiting packet and when it was enqueued.
#[derive(Clone, Copy, Debug)]
struct Waiting {
    at: SimTime,
    h: Hdr,
    /// Start serialization no earlier than `at + delay` (host jitter).
    delay: SimTime,
}

/// A link's two queues.
#[derive(Clone, Debug)]
pub(super) struct Prio {
    hi: VecDeque<Waiting>,
    lo: VecDeque<Waiting>,
    hi_bytes: u64,
    lo_bytes: u64,
    /// The packet being serialized is a data packet of this many bytes
    /// (0: a header, or none): htsim counts it in the data queue.
    serving_lo: u32,
    /// When the pending `Serve` event fires (the serializer's next
    /// departure), if one is pending.
    serve_at: Option<SimTime>,
    /// A switch's egress: trims. A host's NIC only prioritises.
    trims: bool,
    lo_lim: (u64, u64),
    hi_lim: (u64, u64),
    rng: Rng,
    pub(super) counts: TrimCounts,
}

/// What a link's trimming did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TrimCounts {
    /// Data packets cut to their header.
    pub trimmed: u64,
    /// Headers (and pure ACKs) dropped because the header queue was full.
    pub header_drops: u64,
    /// Trimmed headers sent back to their sender.
    pub bounced: u64,
}

impl std::ops::AddAssign for TrimCounts {
    fn add_assign(&mut self, o: TrimCounts) {
        self.trimmed += o.trimmed;
        self.header_drops += o.header_drops;
        self.bounced += o.bounced;
    }
}

fn split(l: Limit) -> (u64, u64) {
    match l {
        Limit::Bytes(b) => (b, u64::MAX),
        Limit::Packets(p) => (u64::MAX, p),
    }
}

/// The default header queue: twice the data queue's bytes, as htsim's
/// (its queues are sized in bytes). A data limit in packets counts full
/// data packets (`packet_wire` bytes on the wire), so it is twice that
/// many packets' bytes of headers: counted in headers, `"8pkt"` gave room
/// for 16 headers, 1 KB, where htsim's 8 × 9 KB gives ≈ 2,250, and an NDP
/// incast over it timed out on dropped headers (audit, 2026-12-07).
fn twice(l: Limit, packet_wire: u64) -> Limit {
    match l {
        Limit::Bytes(b) => Limit::Bytes(b.saturating_mul(2)),
        Limit::Packets(p) if packet_wire > 0 => {
            Limit::Bytes(p.saturating_mul(packet_wire).saturating_mul(2))
        }
        Limit::Packets(p) => Limit::Packets(p.saturating_mul(2)),
    }
}

/// The link class limit that sends every enqueue to the priority path.
pub(super) const PRIO_LIMIT: u64 = 0;

/// A header goes to the header queue: pure ACKs and control packets, and
/// data cut to its header.
#[inline]
fn is_header(h: &Hdr) -> bool {
    h.kind == PktKind::Ack || h.flags & flags::TRIMMED != 0
}

impl Prio {
    pub(super) fn new(
        data_limit: Limit,
        cfg: &TrimConfig,
        trims: bool,
        packet_wire: u64,
        rng: Rng,
    ) -> Prio {
        Prio {
            hi: VecDeque::new(),
            lo: VecDeque::new(),
            hi_bytes: 0,
            lo_bytes: 0,
            serving_lo: 0,
            serve_at: None,
            trims,
            lo_lim: split(data_limit),
            // `header_buffer` is a switch port's: a NIC's headers (its
            // ACKs and pulls) get twice its own `nic_buffer`, none under
            // "unlimited", as htsim's host queues drop nothing
            hi_lim: split(match cfg.header_limit {
                Some(h) if trims => h,
                _ => twice(data_limit, packet_wire),
            }),
            rng,
            counts: TrimCounts::default(),
        }
    }

    fn over(lim: (u64, u64), bytes: u64, pkts: usize, wire: u32) -> bool {
        bytes + wire as u64 > lim.0 || pkts as u64 + 1 > lim.1
    }

    /// Packets and bytes waiting (not yet being serialized).
    pub(super) fn waiting(&self) -> (u64, u64) {
        (
            self.hi_bytes + self.lo_bytes,
            (self.hi.len() + self.lo.len()) as u64,
        )
    }
}

impl Links {
    /// Give every link two queues (see the module's notes): `switch_egress[l]`
    /// says whether link `l` leaves a switch (and so trims); `packet_wire`
    /// is the scenario's largest data packet on the wire (0: none), what a
    /// limit in packets counts when it sizes a default header queue.
    pub fn set_trimming(
        &mut self,
        cfg: &TrimConfig,
        switch_egress: &[bool],
        seed: u64,
        packet_wire: u64,
    ) {
        use crate::sim::rng::{stream, Stream};
        self.trim_header = cfg.header_bytes;
        self.trim_rts = cfg.return_to_sender;
        self.prio = (0..self.hot.len())
            .map(|l| {
                let info = self.info[l];
                Prio::new(
                    info.cfg.limit,
                    cfg,
                    switch_egress[l],
                    packet_wire,
                    stream(seed, Stream::Trim, l as u64),
                )
            })
            .collect();
        // Each link's class with a zero limit (see above): its own class,
        // since the key includes the limits.
        for l in 0..self.hot.len() {
            let mut c = self.classes[self.hot[l].st.class as usize];
            c.lim_bytes = PRIO_LIMIT;
            self.hot[l].st.class = self.intern(c);
        }
    }

    /// Whether links have priority queues.
    #[inline]
    pub fn trimming(&self) -> bool {
        !self.prio.is_empty()
    }

    /// What the links' trimming did, summed.
    pub fn trim_counts(&self) -> TrimCounts {
        let mut t = TrimCounts::default();
        for p in &self.prio {
            t += p.counts;
        }
        t
    }

    /// Packet `h` offered to priority link `link` at `q.now()`.
    pub(super) fn enqueue_prio(
        &mut self,
        link: u32,
        mut h: Hdr,
        q: &mut EventQueue,
        start_delay: SimTime,
    ) -> Enqueue {
        let now = q.now();
        let l = link as usize;
        let trim_wire = self.trim_header;
        let rts = self.trim_rts;
        let p = &mut self.prio[l];
        let mut w = Waiting {
            at: now,
            h,
            delay: start_delay,
        };
        if !is_header(&h) {
            // htsim counts the data packet being serialized in the queue.
            let lo_bytes = p.lo_bytes + p.serving_lo as u64;
            let lo_pkts = p.lo.len() + (p.serving_lo > 0) as usize;
            if !p.trims || !Prio::over(p.lo_lim, lo_bytes, lo_pkts, h.wire) {
                p.lo_bytes += h.wire as u64;
                p.lo.push_back(w);
                return self.accepted(link, h.wire, q);
            }
            p.counts.trimmed += 1;
            // htsim: half the time the newest waiting data packet is cut
            // and the arrival takes its place (its CompositeQueue's
            // `pop_front` takes the last packet pushed). Here only while
            // the header queue has room for it (htsim would drop it there)
            // and while the arrival fits where the cut one was (htsim lets
            // a full packet replace a short one over the limit).
            let swap = p.rng.gen_bool(0.5)
                && p.lo.back().is_some_and(|old| {
                    !Prio::over(p.hi_lim, p.hi_bytes, p.hi.len(), trim_wire)
                        && !Prio::over(p.lo_lim, lo_bytes - old.h.wire as u64, lo_pkts - 1, h.wire)
                });
            if swap {
                let mut old = p.lo.pop_back().expect("not empty");
                p.lo_bytes -= old.h.wire as u64;
                // a short last segment can be smaller than the trimmed
                // header: it keeps its size (cut to the header, it would
                // grow, and the queue's bytes underflow)
                let cut = old.h.wire.min(trim_wire);
                self.hot[l].st.enq_bytes -= (old.h.wire - cut) as u64;
                old.h.wire = cut;
                old.h.flags |= flags::TRIMMED;
                p.hi_bytes += cut as u64;
                p.hi.push_back(old);
                p.lo_bytes += h.wire as u64;
                p.lo.push_back(w);
                return self.accepted(link, h.wire, q);
            }
            h.wire = h.wire.min(trim_wire);
            h.flags |= flags::TRIMMED;
            w.h = h;
        }
        self.offer_header(link, w, q, rts)
    }

    /// A header offered to link `link`'s header queue.
    fn offer_header(&mut self, link: u32, w: Waiting, q: &mut EventQueue, rts: bool) -> Enqueue {
        let p = &mut self.prio[link as usize];
        if Prio::over(p.hi_lim, p.hi_bytes, p.hi.len(), w.h.wire) {
            let data = w.h.kind == PktKind::Data;
            // a header goes back once, and only in NDP's framing, the one
            // that can mark it returned (`flags::bounced`; NDP's sender
            // resends, DCQCN's and TIMELY's discard it: World::deliver_ndp);
            // a TCP or Swift header is dropped, as its sender would discard
            // it returned
            if rts && data && w.h.flags & flags::NDP != 0 && !flags::bounced(w.h.flags) {
                p.counts.bounced += 1;
                return Enqueue::Bounced;
            }
            p.counts.header_drops += 1;
            self.hot[link as usize].rare.dropped += 1;
            return Enqueue::Dropped;
        }
        p.hi_bytes += w.h.wire as u64;
        p.hi.push_back(w);
        self.accepted(link, w.h.wire, q)
    }

    /// A packet of `wire` bytes joined link `link`'s queues: count it,
    /// and start the serializer if idle.
    fn accepted(&mut self, link: u32, wire: u32, q: &mut EventQueue) -> Enqueue {
        let l = link as usize;
        let now = q.now();
        let st = &mut self.hot[l].st;
        st.enqueued += 1;
        st.enq_bytes += wire as u64;
        let (wb, wp) = self.prio[l].waiting();
        let m = &mut self.max[l];
        // The FIFO path advanced the ring's buffer to `now` before it
        // handed the packet here.
        let bytes = st.q_bytes + wb;
        let pkts = st.buffered as u64 + wp;
        if bytes > m.bytes as u64 {
            Self::raise_max_bytes(m, &mut self.hot[l].rare, bytes);
        }
        m.pkts = m.pkts.max(pkts as u32);
        if self.hot[l].st.free_at <= now {
            self.serve(q, link);
        } else if self.prio[l].serve_at.is_none() {
            let at = self.hot[l].st.free_at;
            self.prio[l].serve_at = Some(at);
            q.schedule(at, Event::Serve(link));
        }
        Enqueue::Queued
    }

    /// The serializer of priority link `link` is free (a departure, or an
    /// enqueue on an idle link): start the next packet, headers first.
    /// (Under PFC, PFC's serializer: net/pfc.rs.)
    pub fn serve(&mut self, q: &mut EventQueue, link: u32) {
        if self.pfc_on() {
            return self.serve_pfc(q, link);
        }
        let l = link as usize;
        let (now, free_at) = (q.now(), self.hot[l].st.free_at);
        if free_at > now {
            // The serializer is busy: this Serve's instant was taken first,
            // by an arrival at the instant it freed (accepted() serves an
            // idle link at once) or by a packet sent past the queues.
            // Starting another packet now would put it behind that one,
            // counted in neither queue's limit (the port held one data
            // packet over its buffer). A later Serve armed by that start
            // serves next; else one is armed for when it frees.
            let p = &mut self.prio[l];
            if p.serve_at.is_some_and(|t| t > now) {
                return;
            }
            p.serve_at = None;
            if !(p.hi.is_empty() && p.lo.is_empty()) {
                p.serve_at = Some(free_at);
                q.schedule(free_at, Event::Serve(link));
            }
            return;
        }
        let p = &mut self.prio[l];
        p.serve_at = None;
        p.serving_lo = 0;
        let w = if let Some(w) = p.hi.pop_front() {
            p.hi_bytes -= w.h.wire as u64;
            w
        } else if let Some(w) = p.lo.pop_front() {
            p.lo_bytes -= w.h.wire as u64;
            p.serving_lo = w.h.wire;
            w
        } else {
            return;
        };
        let more = !(p.hi.is_empty() && p.lo.is_empty());
        let depart = self.start_serializing(q, link, w.h, w.at, w.delay);
        if more {
            self.prio[l].serve_at = Some(depart);
            q.schedule(depart, Event::Serve(link));
        }
    }

    /// A waiting packet `h` (enqueued at `at`, to start no earlier than
    /// `at + delay`) starts serialization on link `link`, whose serializer
    /// is free: it enters the link's ring (its propagation pipe), and the
    /// buffer's accounting and occupancy integral count it. Returns the end
    /// of its serialization. The event-driven serializers' common step
    /// (trimming's queues here, PFC's in net/pfc.rs).
    pub(super) fn start_serializing(
        &mut self,
        q: &mut EventQueue,
        link: u32,
        h: Hdr,
        at: SimTime,
        delay: SimTime,
    ) -> SimTime {
        let now = q.now();
        let sink = self.is_sink(link);
        let Link { st, rare } = &mut self.hot[link as usize];
        Self::advance(st, &self.pool, &self.classes, now);
        let c = &self.classes[st.class as usize];
        let wire = h.wire;
        let depart = st.free_at.max(now).max(at + delay) + c.tx_time(wire);
        st.free_at = depart;
        st.q_bytes += wire as u64;
        st.buffered += 1;
        let arrive = depart + c.delay;
        Self::add_area(st, rare, wire as u128 * (depart.0 - at.0) as u128);
        // a trimming or PFC link whose far end another world runs: handed
        // over as a FIFO sink's packet is ([`Self::enqueue_on`]), but when
        // it starts, its ring kept for the accounting alone
        if sink {
            self.outbox.push(Handoff { link, arrive, h });
        } else if st.len == 0 {
            q.schedule(arrive, Event::Arrive(link));
        }
        if st.len > st.mask {
            if sink {
                Self::retire_arrived(st, &self.pool, now);
            }
            if st.len > st.mask {
                Self::grow(st, &mut self.pool);
            }
        }
        let tail = st.base + (st.head.wrapping_add(st.len) & st.mask);
        *self.pool.get_mut(tail) = Slot { arrive, h };
        st.len += 1;
        depart
    }

    /// Waiting packets (not yet serialized) on link `i`: bytes, packets.
    /// (PFC's queues too: net/pfc.rs.)
    pub(super) fn prio_waiting(&self, i: usize) -> (u64, u64) {
        if self.pfc_on() {
            return self.pfc_waiting(i);
        }
        self.prio.get(i).map_or((0, 0), Prio::waiting)
    }

    /// ∫ bytes dt of link `i`'s waiting packets up to `now` (they are
    /// counted when they start; at the end of a run, up to its end).
    pub(super) fn prio_waiting_area(&self, i: usize, now: SimTime) -> u128 {
        if self.pfc_on() {
            return self.pfc_waiting_area(i, now);
        }
        self.prio.get(i).map_or(0, |p| {
            p.hi.iter()
                .chain(p.lo.iter())
                .map(|w| w.h.wire as u128 * now.saturating_sub(w.at).0 as u128)
                .sum()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{NonEct, QueueConfig};

    /// A switch port with a data queue of 2 packets (the one being sent
    /// counts) and a header queue of `hdr` packets, at 8 Gbps (1 ns a
    /// byte), 5 ns of propagation.
    fn port(hdr: u64) -> Links {
        port_with(Limit::Packets(2), hdr)
    }

    fn port_with(limit: Limit, hdr: u64) -> Links {
        trimming_port(limit, Some(Limit::Packets(hdr)), 1000)
    }

    /// One trimming switch egress of `limit`, its header queue's limit
    /// `header_limit` (`None`: the default), data packets `packet_wire` B.
    fn trimming_port(limit: Limit, header_limit: Option<Limit>, packet_wire: u64) -> Links {
        let mut links = Links::default();
        let cfg = QueueConfig {
            limit,
            ecn_k: None,
            non_ect: NonEct::Queue,
        };
        links.push(0, 1, 8_000_000_000, SimTime(5_000), cfg);
        let t = TrimConfig {
            header_limit,
            header_bytes: 64,
            return_to_sender: false,
        };
        links.set_trimming(&t, &[true], 1, packet_wire);
        links
    }

    fn data(id: u32) -> Hdr {
        Hdr {
            id,
            wire: 1000,
            kind: PktKind::Data,
            ..Hdr::default()
        }
    }

    /// Everything offered, in arrival order at the far end: (id, wire).
    fn drain(links: &mut Links, q: &mut EventQueue) -> Vec<(u32, u32)> {
        let mut got = Vec::new();
        while let Some(ev) = q.pop_until(SimTime::MAX) {
            match ev {
                Event::Arrive(l) => {
                    let h = links.arrive(q, l);
                    got.push((h.id, h.wire));
                }
                Event::Serve(l) => links.serve(q, l),
                e => unreachable!("{e:?}"),
            }
        }
        got
    }

    /// A burst of 20 data packets at one instant: the first is sent, one
    /// waits, the other 18 are cut to 64-byte headers (none dropped: the
    /// header queue has room), and the headers overtake the waiting data
    /// packet. Without trimming the same burst loses 18.
    #[test]
    fn overflow_is_trimmed_and_headers_go_first() {
        let mut links = port(100);
        let mut q = EventQueue::new();
        for i in 0..20 {
            assert_eq!(
                links.enqueue(0, data(i), &mut q, SimTime::ZERO),
                Enqueue::Queued
            );
        }
        assert_eq!(links.trim_counts().trimmed, 18);
        let got = drain(&mut links, &mut q);
        assert_eq!(got.len(), 20, "every packet arrives");
        assert_eq!(got[0], (0, 1000), "the packet on the wire first");
        assert!(got[1..19].iter().all(|&(_, w)| w == 64), "then the headers");
        assert_eq!(got[19].1, 1000, "the waiting data packet last");
        let s = links.stats(0);
        assert_eq!((s.dropped, s.enqueued, s.arrived), (0, 20, 20));
        assert_eq!(s.tx_bytes, 2 * 1000 + 18 * 64);

        let mut fifo = Links::default();
        let cfg = QueueConfig {
            limit: Limit::Packets(2),
            ecn_k: None,
            non_ect: NonEct::Queue,
        };
        fifo.push(0, 1, 8_000_000_000, SimTime(5_000), cfg);
        let mut q = EventQueue::new();
        let dropped = (0..20)
            .filter(|&i| fifo.enqueue(0, data(i), &mut q, SimTime::ZERO) == Enqueue::Dropped)
            .count();
        assert_eq!(dropped, 18);
    }

    /// The default header queue (no `header_buffer`) of a data queue
    /// limited to 2 packets of 1,000 B holds twice those bytes in headers,
    /// 62 of 64 B, as htsim's byte-sized queues: a burst of 40 keeps every
    /// header (1 sent, 1 waiting, as the packet on the wire counts, and 38
    /// cut, 2,432 B). Counted in headers (4), it dropped 34 of them.
    #[test]
    fn a_default_header_queue_counts_a_data_limit_in_packets_as_their_bytes() {
        let mut links = trimming_port(Limit::Packets(2), None, 1000);
        assert_eq!(links.prio[0].hi_lim, (4000, u64::MAX));
        let mut q = EventQueue::new();
        for i in 0..40 {
            links.enqueue(0, data(i), &mut q, SimTime::ZERO);
        }
        let c = links.trim_counts();
        assert_eq!(c.trimmed, 38);
        assert_eq!(links.stats(0).dropped, 0, "{c:?}");
        // with no data packet size known (no app sends one), packets of headers
        let bare = trimming_port(Limit::Packets(2), None, 0);
        assert_eq!(bare.prio[0].hi_lim, (u64::MAX, 4));
    }

    /// The packet cut instead of an arrival is the newest waiting one, as
    /// htsim's CompositeQueue takes the last packet pushed: with room for
    /// two waiting, packet 1 (the head) is never cut however many
    /// arrivals follow, and the last full packet is an arrival that took
    /// a cut packet's place. (The oldest was cut before: packet 1 lost its
    /// payload on the first swap.)
    #[test]
    fn the_packet_cut_for_an_arrival_is_the_newest_waiting() {
        let mut links = port_with(Limit::Packets(3), 100);
        let mut q = EventQueue::new();
        for i in 0..40 {
            links.enqueue(0, data(i), &mut q, SimTime::ZERO);
        }
        let full: Vec<u32> = drain(&mut links, &mut q)
            .into_iter()
            .filter(|&(_, w)| w == 1000)
            .map(|(id, _)| id)
            .collect();
        assert_eq!(full.len(), 3, "one sent, two waiting: {full:?}");
        assert_eq!(&full[..2], &[0, 1], "the head waiting is never cut");
        assert!(full[2] > 2, "no arrival took a cut packet's place");
    }

    /// An arrival takes a cut packet's place only if it fits there: a
    /// full packet does not replace a short one over the data queue's
    /// byte limit (htsim's swap does, and the port then held more than
    /// its buffer).
    #[test]
    fn a_swap_never_takes_the_data_queue_over_its_buffer() {
        let mut links = port_with(Limit::Bytes(2_100), 100);
        let mut q = EventQueue::new();
        let short = |id| Hdr {
            wire: 100,
            ..data(id)
        };
        for h in [data(0), data(1), short(2)] {
            assert_eq!(links.enqueue(0, h, &mut q, SimTime::ZERO), Enqueue::Queued);
        }
        for i in 3..40 {
            links.enqueue(0, data(i), &mut q, SimTime::ZERO);
            let p = &links.prio[0];
            assert!(
                p.lo_bytes + p.serving_lo as u64 <= 2_100,
                "after {i}: {} B of data",
                p.lo_bytes + p.serving_lo as u64
            );
        }
        assert_eq!(links.trim_counts().trimmed, 37);
    }

    /// A header is dropped only when the header queue is full: with room
    /// for 4, a burst that makes 18 headers keeps 4 and drops each of the
    /// other 14 when 4 are waiting.
    #[test]
    fn headers_drop_only_when_the_header_queue_is_full() {
        let mut links = port(4);
        let mut q = EventQueue::new();
        let mut waiting_headers = 0;
        let mut drops = 0;
        for i in 0..20 {
            let before = links.trim_counts().trimmed;
            let r = links.enqueue(0, data(i), &mut q, SimTime::ZERO);
            let trimmed = links.trim_counts().trimmed > before;
            match r {
                Enqueue::Dropped => {
                    assert_eq!(waiting_headers, 4, "header {i} dropped with room");
                    drops += 1;
                }
                Enqueue::Queued if trimmed => waiting_headers += 1,
                Enqueue::Queued => {}
                Enqueue::Bounced => unreachable!("return_to_sender is off"),
            }
        }
        assert_eq!((drops, links.trim_counts().header_drops), (14, 14));
        assert_eq!(drain(&mut links, &mut q).len(), 6);
    }
}
