//! In-band network telemetry (INT, HPCC's switch feature: Li et al.,
//! SIGCOMM 2019, §3.1).
//!
//! With INT on, every switch egress a data packet leaves by appends one
//! record to the packet: the egress link's queue length, the bytes it has
//! transmitted, a timestamp and its line rate. The receiver copies the
//! records of the data packet it acknowledges into its ACK (the paper's
//! ACK carries them back verbatim; the ACK's own hops add nothing).
//!
//! **Where the records live.** Not in [`super::Packet`]: that would cost
//! every scenario a larger packet line. They live in a side table indexed
//! by packet id ([`Int::stacks`]), grown to the arena's size and touched
//! only when INT is on, so a scenario without HPCC pays one predictable
//! branch per switch hop.
//!
//! **What a record says** (the FIFO's departure times are known when a
//! packet is enqueued, net/mod.rs): `ts` is the end of the packet's
//! serialization on the link (when a switch writes INT at dequeue),
//! `tx_bytes` the link's bytes sent by then (this packet's included), so
//! two records of one link give its exact throughput between them; `qlen`
//! the bytes the packet found waiting ahead of it — in a FIFO served at
//! line rate, in distribution the queue a packet leaves behind (what a
//! switch reads at dequeue).

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

/// The side table: on or off, the records of each live packet, and the
/// records the next ACK a receiver sends is to carry.
#[derive(Default)]
pub struct Int {
    pub on: bool,
    stacks: Vec<IntStack>,
    /// Set by the receiver's side just before it sends an ACK (see
    /// [`Int::attach`]), taken by that ACK.
    echo: Option<IntStack>,
}

impl Int {
    pub fn new(on: bool) -> Int {
        Int {
            on,
            ..Int::default()
        }
    }

    /// Packet `id` was just allocated: it starts with no records, or, if
    /// it is the ACK a receiver was told to answer with, the echoed ones.
    #[cold]
    #[inline(never)]
    pub fn attach(&mut self, id: super::PktId) {
        let i = id as usize;
        if self.stacks.len() <= i {
            self.stacks.resize(i + 1, IntStack::default());
        }
        self.stacks[i] = self.echo.take().unwrap_or_default();
    }

    /// The next packet allocated carries `s` (an ACK echoing its data
    /// packet's records).
    pub fn echo_next(&mut self, s: IntStack) {
        self.echo = Some(s);
    }

    /// Packet `id` leaves a switch by an egress that recorded `h`.
    #[cold]
    #[inline(never)]
    pub fn record(&mut self, id: super::PktId, h: IntHop) {
        self.stacks[id as usize].push(h);
    }

    /// Packet `id`'s records (on its arrival, before the id is reused).
    pub fn get(&self, id: super::PktId) -> IntStack {
        self.stacks.get(id as usize).copied().unwrap_or_default()
    }

    pub fn heap_bytes(&self) -> usize {
        self.stacks.capacity() * std::mem::size_of::<IntStack>()
    }
}

impl super::Links {
    /// The record of the packet just enqueued on link `link` (call right
    /// after [`Self::enqueue`] accepted it on the FIFO path).
    #[cold]
    #[inline(never)]
    pub fn int_hop(&self, link: u32, wire: u32) -> IntHop {
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
    use crate::config::{Limit, QueueConfig};
    use crate::net::{Hdr, Links, PktKind, NO_ROUTE};
    use crate::sim::queue::EventQueue;

    fn hdr(id: u32, wire: u32) -> Hdr {
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

    /// Two back-to-back packets on a 10 Gbps link: the second's record
    /// sees the first waiting, and the two records' difference is the
    /// line rate (what HPCC's txRate measures).
    #[test]
    fn records_give_queue_and_line_rate() {
        let mut links = Links::default();
        let cfg = QueueConfig {
            limit: Limit::Bytes(1 << 20),
            ecn_k: None,
        };
        let l = links.push(0, 1, 10_000_000_000, SimTime::from_us(1), cfg);
        let mut q = EventQueue::new();
        links.enqueue(l, hdr(0, 1500), &mut q, SimTime::ZERO);
        let a = links.int_hop(l, 1500);
        links.enqueue(l, hdr(1, 1500), &mut q, SimTime::ZERO);
        let b = links.int_hop(l, 1500);
        assert_eq!(a.qlen, 0);
        assert_eq!(b.qlen, 1500, "the second found the first ahead of it");
        assert_eq!(b.tx_bytes - a.tx_bytes, 1500);
        let rate = (b.tx_bytes - a.tx_bytes) as f64 * 8e12 / (b.ts - a.ts).0 as f64;
        assert_eq!(rate, 10e9);
        assert_eq!(a.ts, SimTime(1500 * 800), "the end of its serialization");
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
