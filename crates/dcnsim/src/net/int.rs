//! In-band network telemetry (INT, HPCC's switch feature: Li et al.,
//! SIGCOMM 2019, §3.1).
//!
//! With INT on, every switch egress a data packet leaves by appends one
//! record to the packet: the egress link's queue length, the bytes it has
//! transmitted, a timestamp and its line rate. The receiver copies the
//! records of the data packet it acknowledges into its ACK (the paper's
//! ACK carries them back verbatim; the ACK's own hops add nothing).
//!
//! **Where the records live, and what it costs others.** Not in
//! [`super::Packet`]: that would cost every scenario a larger packet line.
//! They live in a side table indexed by packet id ([`Int`], in
//! [`super::Links`]), grown to the arena's size only when INT is on. Only
//! the packets of a transport that carries an INT header (HPCC: data with
//! `flags::NDP`) are written; its receiver and sender take the records
//! when the packet arrives, and a dropped packet's are cleared, so an id
//! reused by a new packet starts empty. The forwarding path does not test
//! for INT: as trimming does (net/trim.rs), a switch egress with INT is
//! given a link class whose drop-tail limit is zero, so each of its
//! enqueues takes the FIFO's cold over-limit branch, which enqueues it
//! under its real class and writes the record ([`super::Links::enqueue_int`]).
//! On several threads a packet handed to another partition takes its
//! records with it (crates/dcnsim/src/parallel.rs), and a cut egress
//! writes its record in the sink's enqueue ([`super::Links::enqueue_sink_int`]).
//!
//! **What a record says** (the FIFO's departure times are known when a
//! packet is enqueued, net/mod.rs): `ts` is the end of the packet's
//! serialization on the link (when a switch writes INT at dequeue),
//! `tx_bytes` the link's bytes sent by then (this packet's included), so
//! two records of one link give its exact throughput between them; `qlen`
//! the bytes the packet found waiting ahead of it — in a FIFO served at
//! line rate, in distribution the queue a packet leaves behind (what a
//! switch reads at dequeue).

use super::{flags, Enqueue, Hdr, Links, PktId, PktKind};
use crate::sim::queue::EventQueue;
use crate::sim::time::SimTime;

/// The deepest path a packet records (a fat-tree's longest is 5 switch
/// egresses; htsim and the paper's header keep 5).
pub const MAX_HOPS: usize = 5;

/// One switch egress's record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IntHop {
    /// The directed link (so a sender can tell a changed path).
    pub link: u32,
    /// Bytes waiting ahead of the packet in the egress queue.
    pub qlen: u64,
    /// Bytes the link has transmitted, up to the end of this packet.
    pub tx_bytes: u64,
    /// End of this packet's serialization.
    pub ts: SimTime,
    /// The link's rate, bits per second.
    pub rate_bps: u64,
}

/// The records one packet carries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IntStack {
    pub n: u8,
    pub hops: [IntHop; MAX_HOPS],
}

impl IntStack {
    /// The records, first hop first.
    pub fn hops(&self) -> &[IntHop] {
        &self.hops[..self.n as usize]
    }

    /// Append a hop's record (beyond [`MAX_HOPS`] the path is deeper than
    /// the header holds: later hops are not recorded, as a switch that
    /// finds the INT header full).
    #[inline]
    pub fn push(&mut self, h: IntHop) {
        if (self.n as usize) < MAX_HOPS {
            self.hops[self.n as usize] = h;
            self.n += 1;
        }
    }
}

/// The side table: the records of each packet that carries some, and
/// per link its real class (INT on: a switch egress runs under a
/// zero-limit class, see the module's notes; `u32::MAX`: a host's NIC).
#[derive(Default)]
pub struct Int {
    stacks: Vec<IntStack>,
    real_class: Vec<u32>,
}

impl Int {
    /// Whether INT is on.
    #[inline]
    pub fn on(&self) -> bool {
        !self.real_class.is_empty()
    }

    fn slot(&mut self, id: PktId) -> &mut IntStack {
        let i = id as usize;
        if self.stacks.len() <= i {
            self.stacks.resize(i + 1, IntStack::default());
        }
        &mut self.stacks[i]
    }

    /// Packet `id` (an ACK just sent) carries `s`, its data packet's records.
    pub fn set(&mut self, id: PktId, s: IntStack) {
        *self.slot(id) = s;
    }

    /// Packet `id`'s records, taken as it arrives (its id may be reused).
    pub fn take(&mut self, id: PktId) -> IntStack {
        std::mem::take(self.slot(id))
    }

    /// The real class of INT egress `l` (`None`: not one, or INT off).
    pub(super) fn real_class(&self, l: usize) -> Option<u32> {
        self.real_class.get(l).copied().filter(|&c| c != u32::MAX)
    }

    /// Append a hop's record to packet `id` (PFC writes it at dequeue:
    /// net/pfc.rs).
    pub(super) fn push(&mut self, id: PktId, hop: IntHop) {
        self.slot(id).push(hop);
    }

    /// Packet `id` was dropped: its id starts the next packet empty.
    #[cold]
    pub fn clear(&mut self, id: PktId) {
        if let Some(s) = self.stacks.get_mut(id as usize) {
            s.n = 0;
        }
    }

    pub fn heap_bytes(&self) -> usize {
        self.stacks.capacity() * std::mem::size_of::<IntStack>() + self.real_class.capacity() * 4
    }
}

/// Whether packet `h` carries an INT header: HPCC's data.
#[inline]
pub(super) fn carries_int(h: &Hdr) -> bool {
    h.kind == PktKind::Data && h.flags & flags::NDP != 0
}

impl Links {
    /// Turn INT on at the egresses `switch_egress[l]` marks.
    pub fn set_int(&mut self, switch_egress: &[bool]) {
        assert!(!self.trimming(), "INT reads the FIFO: not with trimming");
        let mut real = vec![u32::MAX; self.hot.len()];
        for (l, &sw) in switch_egress.iter().enumerate() {
            if sw {
                let st = &mut self.hot[l].st;
                real[l] = st.class;
                let mut c = self.classes[st.class as usize];
                c.lim_bytes = super::trim::PRIO_LIMIT;
                self.hot[l].st.class = self.intern(c);
            }
        }
        self.int.real_class = real;
    }

    /// The FIFO's over-limit branch with INT on: `Some` when link `link`
    /// is an INT egress under its zero-limit class (the enqueue, done under
    /// its real class, with the packet's record written), `None` when the
    /// packet is over the real limit (a drop, to the caller).
    #[cold]
    #[inline(never)]
    pub(super) fn enqueue_int(
        &mut self,
        link: u32,
        h: Hdr,
        q: &mut EventQueue,
        start_delay: SimTime,
    ) -> Option<Enqueue> {
        let real = self.int.real_class[link as usize];
        let zero = self.hot[link as usize].st.class;
        if real == u32::MAX || zero == real {
            return None;
        }
        let res = self.enqueue_as(real, link, h, q, start_delay);
        if res == Enqueue::Queued && carries_int(&h) {
            let hop = self.int_hop(link, h.wire);
            self.int.slot(h.id).push(hop);
        } else if res == Enqueue::Dropped {
            self.int.clear(h.id);
        }
        Some(res)
    }

    /// [`Self::enqueue_int`] on an INT egress whose far end is a sink (its
    /// world hands the packet, and its records, to the far end's): the
    /// sink's enqueue under the link's real class, the record written.
    #[cold]
    #[inline(never)]
    pub(super) fn enqueue_sink_int(
        &mut self,
        link: u32,
        real: u32,
        h: Hdr,
        q: &mut EventQueue,
        start_delay: SimTime,
        input: u32,
    ) -> Enqueue {
        let l = link as usize;
        let own = std::mem::replace(&mut self.sinks[l], real);
        let res = self.enqueue_on::<true>(link, h, q, start_delay, input);
        self.sinks[l] = own;
        if res == Enqueue::Queued && carries_int(&h) {
            let hop = self.int_hop(link, h.wire);
            self.int.slot(h.id).push(hop);
        } else if res == Enqueue::Dropped {
            self.int.clear(h.id);
        }
        res
    }

    /// The record of the packet just enqueued on link `link` (right after
    /// the FIFO path accepted it).
    pub(super) fn int_hop(&self, link: u32, wire: u32) -> IntHop {
        let st = &self.hot[link as usize].st;
        IntHop {
            link,
            qlen: st.q_bytes - wire as u64,
            tx_bytes: st.enq_bytes,
            ts: st.free_at,
            rate_bps: self.classes[st.class as usize].rate_bps,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Limit, NonEct, QueueConfig};
    use crate::net::{flags, Enqueue, Hdr, Links, PktKind, NO_ROUTE};
    use crate::sim::queue::EventQueue;

    fn hdr(id: u32, wire: u32, flags: u8) -> Hdr {
        Hdr {
            id,
            wire,
            route: NO_ROUTE,
            next: u32::MAX,
            flow: 0,
            flags,
            kind: PktKind::Data,
        }
    }

    /// Three back-to-back HPCC packets on a 10 Gbps switch egress holding
    /// two: the second's record sees the first waiting, the two records'
    /// difference is the line rate (what HPCC's txRate measures), the
    /// third is dropped by the real limit and leaves no record; a TCP
    /// packet records nothing.
    #[test]
    fn records_give_queue_and_line_rate() {
        let mut links = Links::default();
        let cfg = QueueConfig {
            limit: Limit::Packets(2),
            ecn_k: None,
            non_ect: NonEct::Queue,
        };
        let l = links.push(0, 1, 10_000_000_000, SimTime::from_us(1), cfg);
        links.set_int(&[true]);
        let mut q = EventQueue::new();
        let z = SimTime::ZERO;
        assert_eq!(
            links.enqueue(l, hdr(0, 1500, flags::NDP), &mut q, z),
            Enqueue::Queued
        );
        assert_eq!(
            links.enqueue(l, hdr(1, 1500, flags::NDP), &mut q, z),
            Enqueue::Queued
        );
        assert_eq!(
            links.enqueue(l, hdr(2, 1500, flags::NDP), &mut q, z),
            Enqueue::Dropped
        );
        assert_eq!(
            links.enqueue(l, hdr(3, 1500, 0), &mut q, z),
            Enqueue::Dropped
        );
        let (a, b) = (links.int.take(0), links.int.take(1));
        let (a, b) = (a.hops()[0], b.hops()[0]);
        assert_eq!(
            (a.qlen, b.qlen),
            (0, 1500),
            "the second found the first ahead of it"
        );
        assert_eq!(b.tx_bytes - a.tx_bytes, 1500);
        let rate = (b.tx_bytes - a.tx_bytes) as f64 * 8e12 / (b.ts - a.ts).0 as f64;
        assert_eq!(rate, 10e9);
        assert_eq!(a.ts, SimTime(1500 * 800), "the end of its serialization");
        assert_eq!(links.int.take(2).n, 0, "a dropped packet keeps no record");
        assert_eq!(links.stats(l as usize).dropped, 2, "the real limit holds");
        assert_eq!(links.int.take(0).n, 0, "taken once");
    }

    #[test]
    fn a_stack_keeps_at_most_five_hops() {
        let mut s = IntStack::default();
        for i in 0..7 {
            s.push(IntHop {
                link: i,
                ..IntHop::default()
            });
        }
        assert_eq!(s.hops().len(), MAX_HOPS);
        assert_eq!(s.hops()[4].link, 4);
    }
}
