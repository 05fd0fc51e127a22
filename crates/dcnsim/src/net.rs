//! Packets, links and queues.
//!
//! A directed link is an egress queue (drop-tail, optional ECN threshold
//! marking on the instantaneous queue), a serializer and a propagation pipe.
//! Each link has at most one pending event: its head packet's `Arrive`.
//! Packets live in an arena and move by index.

use crate::config::{Limit, QueueConfig};
use crate::sim::{Event, EventQueue};
use crate::time::{tx_time, SimTime};
use std::collections::VecDeque;

pub type PktId = u32;

pub mod flags {
    /// ECN-capable transport.
    pub const ECT: u8 = 1;
    /// Congestion experienced (set by a switch).
    pub const CE: u8 = 2;
    /// ECN echo (on ACKs).
    pub const ECE: u8 = 4;
    /// Congestion window reduced (on data).
    pub const CWR: u8 = 8;
    /// Retransmitted segment (bookkeeping, not a wire bit).
    pub const RETX: u8 = 16;
    /// Kulkarni's probabilistic-retransmission mark (a reserved TCP bit).
    pub const MARKED: u8 = 32;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PktKind {
    Data,
    Ack,
    Udp,
}

/// One packet. `seq` is the first payload byte for data, the cumulative ACK
/// for ACKs. `ts` is the sender's timestamp (data) or its echo (ACKs), as in
/// RFC 7323, so RTT samples survive retransmission.
#[derive(Clone, Copy, Debug)]
pub struct Packet {
    pub kind: PktKind,
    pub flags: u8,
    pub nsack: u8,
    pub flow: u32,
    /// Per-flow transmission number (data and UDP), for consecutive-drop runs.
    pub txn: u32,
    pub src: u32,
    pub dst: u32,
    pub payload: u32,
    pub wire: u32,
    pub seq: u64,
    pub ts: SimTime,
    pub sack: [(u64, u64); 3],
}

impl Packet {
    pub const EMPTY: Packet = Packet {
        kind: PktKind::Data,
        flags: 0,
        nsack: 0,
        flow: 0,
        txn: 0,
        src: 0,
        dst: 0,
        payload: 0,
        wire: 0,
        seq: 0,
        ts: SimTime::ZERO,
        sack: [(0, 0); 3],
    };
}

/// Slab of packets with a free list: no allocation per packet once warm.
#[derive(Default)]
pub struct Arena {
    pkts: Vec<Packet>,
    free: Vec<PktId>,
    pub created: u64,
    pub released: u64,
}

impl Arena {
    #[inline]
    pub fn alloc(&mut self, p: Packet) -> PktId {
        self.created += 1;
        if let Some(id) = self.free.pop() {
            self.pkts[id as usize] = p;
            id
        } else {
            self.pkts.push(p);
            (self.pkts.len() - 1) as PktId
        }
    }
    #[inline]
    pub fn release(&mut self, id: PktId) {
        self.released += 1;
        self.free.push(id);
    }
    #[inline]
    pub fn get(&self, id: PktId) -> &Packet {
        &self.pkts[id as usize]
    }
    #[inline]
    pub fn get_mut(&mut self, id: PktId) -> &mut Packet {
        &mut self.pkts[id as usize]
    }
    pub fn live(&self) -> u64 {
        self.created - self.released
    }
    /// Heap bytes of the slab and its free list.
    pub fn heap_bytes(&self) -> usize {
        self.pkts.capacity() * std::mem::size_of::<Packet>()
            + self.free.capacity() * std::mem::size_of::<PktId>()
    }
}

/// Per-queue counters.
#[derive(Clone, Debug, Default)]
pub struct QueueStats {
    pub enqueued: u64,
    pub dropped: u64,
    pub marked: u64,
    pub max_bytes: u64,
    pub max_pkts: u64,
    pub tx_bytes: u64,
    pub tx_pkts: u64,
    /// Packets that reached the far end (left the propagation pipe).
    pub arrived: u64,
    /// ∫ bytes dt, in byte·ps, for the time-averaged occupancy.
    pub byte_time: u128,
    pub last_change: SimTime,
}

/// The outcome of offering a packet to a queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enqueue {
    Queued,
    Dropped,
}

pub struct Link {
    pub from: u32,
    pub to: u32,
    pub rate_bps: u64,
    /// Propagation delay (plus the receiving switch's processing delay).
    pub delay: SimTime,
    /// Exact picoseconds per byte when the rate divides 8·10¹² evenly.
    ps_per_byte: Option<u64>,
    pub cfg: QueueConfig,
    /// Every packet on this link, buffered or propagating, in FIFO order,
    /// with its arrival time at `to`. A FIFO served at a constant rate
    /// knows each packet's departure time on enqueue, so a hop costs one
    /// event (the arrival) instead of two; the buffer occupancy is the
    /// suffix of packets that have not departed yet, advanced lazily.
    fifo: VecDeque<(SimTime, PktId, u32)>,
    /// How many packets at the back of `fifo` are still in the buffer.
    buffered: usize,
    /// Bytes in the buffer, including the packet being serialized.
    q_bytes: u64,
    /// When the serializer frees up (the last buffered packet's departure).
    free_at: SimTime,
    pub stats: QueueStats,
}

impl Link {
    pub fn new(from: u32, to: u32, rate_bps: u64, delay: SimTime, cfg: QueueConfig) -> Self {
        let ps_per_byte = 8_000_000_000_000u64
            .is_multiple_of(rate_bps)
            .then(|| 8_000_000_000_000u64 / rate_bps);
        Link {
            from,
            to,
            rate_bps,
            delay,
            ps_per_byte,
            cfg,
            fifo: VecDeque::new(),
            buffered: 0,
            q_bytes: 0,
            free_at: SimTime::ZERO,
            stats: QueueStats::default(),
        }
    }

    #[inline]
    pub fn tx_time(&self, bytes: u32) -> SimTime {
        match self.ps_per_byte {
            Some(p) => SimTime(bytes as u64 * p),
            None => tx_time(bytes as u64, self.rate_bps),
        }
    }

    /// Heap bytes of the FIFO (buffered and propagating packets' slots).
    pub fn heap_bytes(&self) -> usize {
        self.fifo.capacity() * std::mem::size_of::<(SimTime, PktId, u32)>()
    }

    /// Nothing is being serialized at `now`.
    #[inline]
    pub fn idle_at(&self, now: SimTime) -> bool {
        self.free_at <= now
    }

    /// Buffer occupancy (bytes, packets) at `now`.
    pub fn occupancy(&mut self, now: SimTime) -> (u64, u64) {
        self.advance(now);
        (self.q_bytes, self.buffered as u64)
    }

    #[inline]
    fn account(&mut self, now: SimTime) {
        let dt = now.0 - self.stats.last_change.0;
        self.stats.byte_time += self.q_bytes as u128 * dt as u128;
        self.stats.last_change = now;
    }

    /// Retire from the buffer every packet whose departure (arrival minus
    /// propagation delay) is at or before `now`.
    #[inline]
    fn advance(&mut self, now: SimTime) {
        while self.buffered > 0 {
            let (arrive, _, wire) = self.fifo[self.fifo.len() - self.buffered];
            let depart = arrive - self.delay;
            if depart > now {
                break;
            }
            self.account(depart);
            self.q_bytes -= wire as u64;
            self.buffered -= 1;
            self.stats.tx_bytes += wire as u64;
            self.stats.tx_pkts += 1;
        }
    }

    #[inline]
    fn over(limit: Limit, bytes: u64, pkts: u64) -> bool {
        match limit {
            Limit::Bytes(b) => bytes > b,
            Limit::Packets(p) => pkts > p,
        }
    }

    /// Offer packet `id` to this link's egress queue (drop-tail; ECN marks CE
    /// on ECT packets when the instantaneous queue on arrival exceeds K).
    /// Always inlined: it is the per-hop hot path, and the compiler stops
    /// inlining it into `Core::forward` once that grows.
    #[inline(always)]
    pub fn enqueue(
        &mut self,
        id: PktId,
        arena: &mut Arena,
        q: &mut EventQueue,
        link_id: u32,
        start_delay: SimTime,
    ) -> Enqueue {
        let now = q.now();
        self.advance(now);
        let p = arena.get_mut(id);
        let wire = p.wire;
        let pkts = self.buffered as u64;
        if Self::over(self.cfg.limit, self.q_bytes + wire as u64, pkts + 1) {
            self.stats.dropped += 1;
            return Enqueue::Dropped;
        }
        if let Some(k) = self.cfg.ecn_k {
            if Self::over(k, self.q_bytes, pkts) && p.flags & flags::ECT != 0 {
                p.flags |= flags::CE;
                self.stats.marked += 1;
            }
        }
        self.account(now);
        self.q_bytes += wire as u64;
        self.buffered += 1;
        self.stats.enqueued += 1;
        self.stats.max_bytes = self.stats.max_bytes.max(self.q_bytes);
        self.stats.max_pkts = self.stats.max_pkts.max(self.buffered as u64);
        let depart = self.free_at.max(now + start_delay) + self.tx_time(wire);
        self.free_at = depart;
        let arrive = depart + self.delay;
        if self.fifo.is_empty() {
            q.schedule(arrive, Event::Arrive(link_id));
        }
        self.fifo.push_back((arrive, id, wire));
        Enqueue::Queued
    }

    /// The head packet arrives at `to`; returns it and schedules the next arrival.
    #[inline]
    pub fn arrive(&mut self, q: &mut EventQueue, link_id: u32) -> PktId {
        let now = q.now();
        self.advance(now);
        let (_, id, _) = self.fifo.pop_front().expect("Arrive on an empty link");
        self.stats.arrived += 1;
        debug_assert!(self.buffered <= self.fifo.len());
        if let Some(&(t, _, _)) = self.fifo.front() {
            q.schedule(t, Event::Arrive(link_id));
        }
        id
    }

    /// Close the occupancy integral at the end of the run.
    pub fn finish(&mut self, now: SimTime) {
        self.advance(now);
        self.account(now);
    }

    /// Packets on the link: buffered or propagating.
    pub fn in_flight(&self) -> usize {
        self.fifo.len()
    }

    /// Packets still in the buffer (not yet fully serialized) as of the
    /// last event at this link.
    pub fn buffered(&self) -> usize {
        self.buffered
    }
}
