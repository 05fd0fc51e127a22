//! Packets, links and queues.
//!
//! A directed link is an egress queue (drop-tail, optional ECN threshold
//! marking on the instantaneous queue), a serializer and a propagation pipe.
//! Each link has at most one pending event: its head packet's `Arrive`
//! (and, on a link with priority queues, its serializer's `Serve`:
//! net/trim.rs).
//! Packets live in an arena and move by index.
//!
//! **Layout.** Every packet-hop touches two links (the one it arrives on and
//! the one it leaves by), and at a few thousand links they no longer fit in
//! a core's cache, so what a hop reads is packed into cache lines: a link's
//! queue state and the counters an enqueue bumps are one 64-byte line (read
//! on arrival and on enqueue); its far end, class and high-water marks are
//! small entries of dense arrays (a few bytes per link, so they stay in
//! cache where a line per link would not), and counters of rare events
//! (drops, marks, carries) a second line touched only by them. Its
//! configuration is interned into a handful of `LinkClass`es (a fat-tree
//! has one or two), and the names and configuration the report needs live
//! apart in [`LinkInfo`]. The FIFOs are rings in one shared pool of
//! 64-byte lines rather than one heap allocation each.

pub mod failure;
pub mod inputs;
pub mod int;
pub mod pcap;
pub mod pfc;
pub mod ramp;
pub mod route;
pub mod routing;
pub mod topology;
pub mod trim;

use crate::config::{Limit, QueueConfig};
use crate::sim::queue::{Event, EventQueue};
use crate::sim::time::{tx_time, SimTime};

/// A hash map whose hasher is foldhash's with a fixed seed: fast on the
/// short integer keys the network's tables intern (SipHash, the standard
/// map's default, was 7 % of a k = 32 fat-tree's set-up), and the same on
/// every run. Nothing hashed here is chosen by an adversary, and no output
/// depends on a map's order (they are looked up, never walked for output).
pub(crate) type FixedHashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::FixedState>;

pub type PktId = u32;

/// No link: a packet's input when its own host sent it.
pub const NO_LINK: u32 = u32::MAX;

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
    /// Data: a trimming queue cut the payload (a header). On an NDP ACK:
    /// a NACK (the answer to a trimmed header).
    pub const TRIMMED: u8 = 64;
    /// A packet of an NDP flow (tcp/ndp.rs).
    pub const NDP: u8 = 128;
    /// On an NDP ACK, NACK or PULL: a pull rides along (number in `txn`).
    /// ECE's bit: NDP echoes no ECN.
    pub const PULL: u8 = ECE;
    /// On a trimmed NDP data header: returned to its sender once already
    /// (CWR's bit: NDP sends no CWR). Read it through [`bounced`]: on a
    /// TCP packet the bit is CWR.
    pub const BOUNCED: u8 = CWR;

    /// Whether a packet with these flags is a header the fabric returned
    /// to its sender: only NDP-framed packets are returned
    /// (`trimming.return_to_sender`), so on any other the bit is TCP's CWR
    /// (DCTCP sets it on the first segment after each window cut).
    #[inline(always)]
    pub const fn bounced(f: u8) -> bool {
        f & (NDP | BOUNCED) == NDP | BOUNCED
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PktKind {
    #[default]
    Data,
    Ack,
    Udp,
}

/// One packet. `seq` is the first payload byte for data, the cumulative ACK
/// for ACKs. `ts` is the sender's timestamp (data) or its echo (ACKs), as in
/// RFC 7323, so RTT samples survive retransmission.
///
/// The [`Arena`] keeps all but the SACK blocks in one line ([`PktHead`]).
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct Packet {
    pub flow: u32,
    /// Per-flow transmission number (data and UDP), for consecutive-drop runs.
    pub txn: u32,
    pub src: u32,
    pub dst: u32,
    pub payload: u32,
    pub wire: u32,
    pub kind: PktKind,
    pub flags: u8,
    pub nsack: u8,
    /// The data's flow label (0 until PLB or a timeout draws another),
    /// which ECMP hashes with the 5-tuple: an IPv6 flow label, as Linux's
    /// `sk_rethink_txhash` changes it.
    pub label: u16,
    pub seq: u64,
    pub ts: SimTime,
    pub sack: [(u64, u64); 3],
}

impl Packet {
    pub const EMPTY: Packet = Packet {
        kind: PktKind::Data,
        flags: 0,
        nsack: 0,
        label: 0,
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

/// "No source route": the packet is routed hop by hop from the tables.
pub const NO_ROUTE: u32 = u32::MAX;

/// What forwarding needs of a packet in flight, carried in its link FIFO
/// slot from hop to hop, so a switch forwards a packet without reading it:
/// its size, ECN bits and place on its source route. The bits are written
/// back to the packet when it reaches its host.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hdr {
    pub id: PktId,
    pub wire: u32,
    /// The entry of the packet's source route (in `Core`'s path store)
    /// for its next hop, or [`NO_ROUTE`].
    pub route: u32,
    /// The egress link at the node this hop leads to, when the source
    /// route names it and that node is a switch (else `u32::MAX`), so the
    /// event loop can prefetch that link's state one hop early.
    pub next: u32,
    /// The packet's flow and kind (copies of the packet's), so the event
    /// loop can prefetch the endpoint's state before the packet arrives.
    pub flow: u32,
    pub flags: u8,
    pub kind: PktKind,
}

/// A [`Hdr`] as three words, for handing it to a function that is not
/// inlined. The ABI passes a 24-byte struct by address, and a header whose
/// address escapes to any call stays in memory on the whole hot loop: a
/// hop rewrote two of its words and then copied it whole into the next
/// ring slot, and a wide load over several narrower stores cannot take its
/// data from the store buffer (it waits for them to retire: 5.7 % of the
/// event loop's samples on the DCTCP permutation sat on that one copy).
/// Three words go in registers. The header then lives in registers too,
/// which costs instructions (about 5 % more per hop) and saves more time
/// than they cost (3–4 % less CPU on the fabrics: docs/performance.md).
#[derive(Clone, Copy)]
pub struct HdrWords(pub u64, pub u64, pub u64);

impl Hdr {
    #[inline(always)]
    pub fn words(self) -> HdrWords {
        let kind = match self.kind {
            PktKind::Data => 0u64,
            PktKind::Ack => 1,
            PktKind::Udp => 2,
        };
        HdrWords(
            self.id as u64 | (self.wire as u64) << 32,
            self.route as u64 | (self.next as u64) << 32,
            self.flow as u64 | (self.flags as u64) << 32 | kind << 40,
        )
    }

    #[inline(always)]
    pub fn from_words(w: HdrWords) -> Hdr {
        Hdr {
            id: w.0 as u32,
            wire: (w.0 >> 32) as u32,
            route: w.1 as u32,
            next: (w.1 >> 32) as u32,
            flow: w.2 as u32,
            flags: (w.2 >> 32) as u8,
            kind: match (w.2 >> 40) as u8 {
                0 => PktKind::Data,
                1 => PktKind::Ack,
                _ => PktKind::Udp,
            },
        }
    }
}

/// A packet as the arena keeps it: everything but the SACK blocks, in one
/// cache line. SACK blocks (on ACKs of a flow with losses, read only by
/// the sender) live in a side array, so a packet in flight holds 64 bytes
/// of the arena instead of two lines. Its fields are [`Packet`]'s but
/// `sack`, kept in step by [`Arena::copy_out`], which names every field of
/// a `Packet` (a new one fails to compile there until it is stored here).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub struct PktHead {
    pub flow: u32,
    pub txn: u32,
    pub src: u32,
    pub dst: u32,
    pub payload: u32,
    pub wire: u32,
    pub kind: PktKind,
    pub flags: u8,
    pub nsack: u8,
    pub label: u16,
    pub seq: u64,
    pub ts: SimTime,
}

const _: () = assert!(
    std::mem::size_of::<PktHead>() == 64,
    "a packet in the arena is one line"
);

impl PktHead {
    /// The packet this head is of, with its SACK blocks `sack` (zero past
    /// its `nsack`).
    #[inline(always)]
    pub fn packet(&self, sack: [(u64, u64); 3]) -> Packet {
        Packet {
            flow: self.flow,
            txn: self.txn,
            src: self.src,
            dst: self.dst,
            payload: self.payload,
            wire: self.wire,
            kind: self.kind,
            flags: self.flags,
            nsack: self.nsack,
            label: self.label,
            seq: self.seq,
            ts: self.ts,
            sack,
        }
    }
}

/// Slab of packets with a free list: no allocation per packet once warm.
/// The free list is LIFO, so a new packet reuses the line of the one just
/// released, which is still in cache.
#[derive(Default)]
pub struct Arena {
    pkts: Vec<PktHead>,
    /// SACK blocks of packet `id` (meaningful when its `nsack > 0`),
    /// grown to cover the arena only once a packet carries some.
    sacks: Vec<[(u64, u64); 3]>,
    free: Vec<PktId>,
    pub created: u64,
    pub released: u64,
}

impl Arena {
    /// The id the next [`Self::alloc`] returns.
    pub fn next_id(&self) -> PktId {
        self.free
            .last()
            .copied()
            .unwrap_or(self.pkts.len() as PktId)
    }
    #[inline]
    pub fn alloc(&mut self, pkt: &Packet) -> PktId {
        self.created += 1;
        let head = PktHead {
            flow: pkt.flow,
            txn: pkt.txn,
            src: pkt.src,
            dst: pkt.dst,
            payload: pkt.payload,
            wire: pkt.wire,
            kind: pkt.kind,
            flags: pkt.flags,
            nsack: pkt.nsack,
            label: pkt.label,
            seq: pkt.seq,
            ts: pkt.ts,
        };
        let id = if let Some(id) = self.free.pop() {
            self.pkts[id as usize] = head;
            id
        } else {
            self.pkts.push(head);
            (self.pkts.len() - 1) as PktId
        };
        if pkt.nsack > 0 {
            self.set_sack(id, &pkt.sack);
        }
        id
    }
    /// A packet whose head is `head` (its SACK blocks, if it has some,
    /// given next by [`Self::set_sack`]): a partition taking in a packet
    /// handed over writes the head it was sent with, not a [`Packet`]
    /// built first (a copy and 48 bytes of zero blocks per crossing).
    #[inline]
    pub fn alloc_head(&mut self, head: PktHead) -> PktId {
        self.created += 1;
        if let Some(id) = self.free.pop() {
            self.pkts[id as usize] = head;
            id
        } else {
            self.pkts.push(head);
            (self.pkts.len() - 1) as PktId
        }
    }
    /// The SACK blocks of packet `id`, allocated with [`Self::alloc_head`].
    #[cold]
    pub fn set_sack(&mut self, id: PktId, sack: &[(u64, u64); 3]) {
        if self.sacks.len() <= id as usize {
            self.sacks.resize(self.pkts.len(), [(0, 0); 3]);
        }
        self.sacks[id as usize] = *sack;
    }
    #[inline]
    pub fn release(&mut self, id: PktId) {
        self.released += 1;
        self.free.push(id);
    }
    #[inline]
    pub fn get(&self, id: PktId) -> &PktHead {
        &self.pkts[id as usize]
    }
    /// Prefetch packet `id`'s head (a live packet's id: unchecked).
    #[inline(always)]
    pub fn prefetch(&self, id: PktId) {
        crate::sim::prefetch::prefetch_at(&self.pkts, id as usize);
    }
    #[inline]
    pub fn get_mut(&mut self, id: PktId) -> &mut PktHead {
        &mut self.pkts[id as usize]
    }
    /// A copy of packet `id` for its receiver. Only the first `nsack` SACK
    /// blocks are part of a packet (the rest read as zero).
    #[inline]
    pub fn copy_out(&self, id: PktId) -> Packet {
        let p = &self.pkts[id as usize];
        let mut sack = [(0, 0); 3];
        if p.nsack > 0 {
            let n = p.nsack as usize;
            sack[..n].copy_from_slice(&self.sacks[id as usize][..n]);
        }
        p.packet(sack)
    }
    pub fn live(&self) -> u64 {
        self.created - self.released
    }
    /// Heap bytes of the slab (cache-line slots), the SACK side array and
    /// the free list.
    pub fn heap_bytes(&self) -> usize {
        self.pkts.capacity() * std::mem::size_of::<PktHead>()
            + self.sacks.capacity() * std::mem::size_of::<[(u64, u64); 3]>()
            + self.free.capacity() * std::mem::size_of::<PktId>()
    }
    /// What one packet can cost the slab: its line, its SACK blocks (if
    /// any packet carries some) and a free-list entry.
    pub const PACKET_BYTES: usize = std::mem::size_of::<PktHead>()
        + std::mem::size_of::<[(u64, u64); 3]>()
        + std::mem::size_of::<PktId>();
}

/// Per-queue counters, as reported (see [`Links::stats`]).
#[derive(Clone, Debug, Default)]
pub struct QueueStats {
    pub enqueued: u64,
    pub dropped: u64,
    /// Of `dropped`, packets without ECT dropped at the ECN threshold
    /// (`topology.ecn_non_ect = "drop"`), not for want of room.
    pub dropped_non_ect: u64,
    /// Of `dropped`, packets lost to a failure of the link
    /// (`[[failures]]`), not for want of room.
    pub dropped_failed: u64,
    pub marked: u64,
    pub max_bytes: u64,
    pub max_pkts: u64,
    pub tx_bytes: u64,
    pub tx_pkts: u64,
    /// Packets that reached the far end (left the propagation pipe).
    pub arrived: u64,
    /// ∫ bytes dt, in byte·ps, for the time-averaged occupancy. Exact once
    /// [`Links::finish`] has run; before that it already counts every
    /// buffered packet up to its (known) departure.
    pub byte_time: u128,
}

/// The outcome of offering a packet to a queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enqueue {
    Queued,
    Dropped,
    /// A trimmed header found the header queue full and goes back to its
    /// sender (`trimming.return_to_sender`): the caller turns it round.
    Bounced,
}

/// What links share: rate, delay and queue limits, interned per distinct
/// configuration so the per-hop path reads a table that stays in L1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct LinkClass {
    /// Exact picoseconds per byte when the rate divides 8·10¹² evenly, else 0.
    ps_per_byte: u64,
    rate_bps: u64,
    /// Propagation delay (plus the receiving switch's processing delay).
    delay: SimTime,
    /// Drop-tail limit: over when bytes > `lim_bytes` or packets > `lim_pkts`
    /// (the limit not in force is `u64::MAX`).
    lim_bytes: u64,
    lim_pkts: u64,
    /// ECN threshold, the same way (both `u64::MAX` without marking).
    ecn_bytes: u64,
    ecn_pkts: u64,
    /// `ecn_non_ect = "drop"`: a packet without ECT that finds the queue
    /// over the ECN threshold is dropped (as RED with ECN drops it) rather
    /// than queued unmarked.
    drop_non_ect: bool,
}

impl LinkClass {
    fn new(rate_bps: u64, delay: SimTime, cfg: QueueConfig) -> Self {
        let split = |l: Option<Limit>| match l {
            Some(Limit::Bytes(b)) => (b, u64::MAX),
            Some(Limit::Packets(p)) => (u64::MAX, p),
            None => (u64::MAX, u64::MAX),
        };
        let (lim_bytes, lim_pkts) = split(Some(cfg.limit));
        let (ecn_bytes, ecn_pkts) = split(cfg.ecn_k);
        LinkClass {
            ps_per_byte: Self::ps_per_byte(rate_bps),
            rate_bps,
            delay,
            lim_bytes,
            lim_pkts,
            ecn_bytes,
            ecn_pkts,
            drop_non_ect: cfg.drops_non_ect(),
        }
    }

    /// Exact picoseconds per byte at `rate_bps` when it divides 8·10¹²
    /// evenly, else 0 (`tx_time` divides then).
    fn ps_per_byte(rate_bps: u64) -> u64 {
        if 8_000_000_000_000u64.is_multiple_of(rate_bps) {
            8_000_000_000_000u64 / rate_bps
        } else {
            0
        }
    }

    /// This class at another rate (a slower link: net/failure.rs).
    fn at_rate(self, rate_bps: u64) -> Self {
        LinkClass {
            ps_per_byte: Self::ps_per_byte(rate_bps),
            rate_bps,
            ..self
        }
    }

    /// A packet that finds `q_bytes` and `pkts` queued is over the ECN
    /// threshold (marked if ECN-capable; dropped if not and the class says
    /// so).
    #[inline(always)]
    fn over_k(&self, q_bytes: u64, pkts: u64) -> bool {
        q_bytes > self.ecn_bytes || pkts > self.ecn_pkts
    }

    /// This class with its limits at its ECN threshold K: every packet
    /// that may find the queue over K leaves the per-hop enqueue for the
    /// over-limit branch (the gate of RED's ramp).
    fn gated_at_k(mut self) -> LinkClass {
        // q_bytes > K implies q_bytes + wire > K, and pkts > K is pkts + 1 > K + 1
        self.lim_bytes = self.lim_bytes.min(self.ecn_bytes);
        self.lim_pkts = self.lim_pkts.min(self.ecn_pkts.saturating_add(1));
        self
    }

    /// RED's ramp on a port over this class's threshold (net/ramp.rs).
    #[inline]
    fn ramp_marks(&self, rare: &mut LinkRare, q_bytes: u64, pkts: u64) -> bool {
        if self.ecn_pkts != u64::MAX {
            ramp::marks(rare, pkts, self.ecn_pkts)
        } else {
            ramp::marks(rare, q_bytes, self.ecn_bytes)
        }
    }

    #[inline]
    fn tx_time(&self, bytes: u32) -> SimTime {
        if self.ps_per_byte != 0 {
            SimTime(bytes as u64 * self.ps_per_byte)
        } else {
            tx_time(bytes as u64, self.rate_bps)
        }
    }
}

/// One FIFO entry: a packet on the link and when it reaches the far end.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(32))]
struct Slot {
    arrive: SimTime,
    h: Hdr,
}

/// Two slots, so ring segments start on a cache line.
#[derive(Clone, Copy, Default)]
#[repr(align(64))]
struct SlotLine([Slot; 2]);

/// The links' FIFO rings: power-of-two segments (at least one line) of one
/// array, recycled by size when a ring grows.
#[derive(Default)]
struct SlotPool {
    lines: Vec<SlotLine>,
    /// Free segments by log2 of their size in lines.
    free: Vec<Vec<u32>>,
}

impl SlotPool {
    #[inline(always)]
    fn get(&self, i: u32) -> &Slot {
        &self.lines[(i >> 1) as usize].0[(i & 1) as usize]
    }
    #[inline(always)]
    fn get_mut(&mut self, i: u32) -> &mut Slot {
        &mut self.lines[(i >> 1) as usize].0[(i & 1) as usize]
    }
    /// Prefetch slot `i`'s line (every caller names a slot of a live
    /// ring, so unchecked: [`crate::sim::prefetch::prefetch_at`]).
    #[inline(always)]
    fn prefetch(&self, i: u32) {
        crate::sim::prefetch::prefetch_at(&self.lines, (i >> 1) as usize);
    }
    /// A segment of `2 << c` slots; returns its first slot.
    fn alloc(&mut self, c: usize) -> u32 {
        if let Some(s) = self.free.get_mut(c).and_then(Vec::pop) {
            return s;
        }
        let start = self.lines.len();
        self.lines.resize(start + (1 << c), SlotLine::default());
        u32::try_from(start * 2).expect("more than 2³² packets on links")
    }
    fn release(&mut self, start: u32, c: usize) {
        if self.free.len() <= c {
            self.free.resize(c + 1, Vec::new());
        }
        self.free[c].push(start);
    }
}

/// A link's queue state and the counters every enqueue bumps: everything
/// an arrival or an enqueue reads or writes but the link's far end
/// (`Links::to`, a dense array) and high-water marks ([`LinkMax`]), one line.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
struct LinkState {
    /// When the serializer frees up (the last buffered packet's departure).
    free_at: SimTime,
    /// Bytes in the buffer, including the packet being serialized.
    q_bytes: u64,
    /// Packets accepted. Those that reached the far end are this minus
    /// `len`: every accepted packet enters the ring and leaves it on arrival.
    enqueued: u64,
    /// Bytes accepted: `tx_bytes` is this minus what is still buffered.
    enq_bytes: u64,
    /// ∫ bytes dt in byte·ps, mod 2⁶⁴ (carries in [`LinkRare`]). Each
    /// accepted packet adds its bytes × its time in the buffer on enqueue
    /// (its departure is known then), so the integral costs no work when it
    /// leaves; [`Links::finish`] takes back what lies beyond the end of the run.
    byte_time: u64,
    /// The FIFO ring: slots `base..=base + mask` of the pool; `len` packets
    /// from `head`, buffered or propagating, in order, of which the last
    /// `buffered` have not departed yet. A FIFO served at a constant rate
    /// knows each packet's departure time on enqueue, so a hop costs one
    /// event (the arrival) instead of two, and the buffer is advanced lazily.
    base: u32,
    mask: u32,
    head: u32,
    len: u32,
    buffered: u32,
    class: u32,
}

/// Counters of rare events, and what does not fit the state line when it
/// overflows: the line after the state, touched by none of the common paths.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
struct LinkRare {
    dropped: u64,
    marked: u64,
    /// Of `dropped`, packets without ECT over the ECN threshold
    /// ([`crate::config::NonEct::Drop`]).
    dropped_non_ect: u64,
    /// Bits 64–127 of the occupancy integral.
    byte_time_hi: u64,
    /// The buffer's high-water mark in bytes once it passed 2³² − 1.
    max_bytes: u64,
    /// Of `dropped`, packets a failure of the link cost (net/failure.rs).
    dropped_failed: u64,
    /// RED's marking ramp (net/ramp.rs): K_max in the unit of the
    /// threshold (0: no ramp), P_max, and its stream's state.
    ramp_kmax: u32,
    ramp_pmax: f32,
    ramp_rng: u64,
}

impl LinkRare {
    /// A packet without ECT dropped over its queue's ECN threshold ([`crate::config::NonEct::Drop`]).
    #[cold]
    fn drop_non_ect(&mut self) -> Enqueue {
        self.dropped += 1;
        self.dropped_non_ect += 1;
        Enqueue::Dropped
    }
}

const _: () = assert!(
    std::mem::size_of::<LinkState>() == 64,
    "the state is one line"
);
const _: () = assert!(
    std::mem::size_of::<LinkRare>() <= 64,
    "the rare part is one line"
);

/// The per-link part of forwarding: its state line, and its rare line.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
pub struct Link {
    st: LinkState,
    rare: LinkRare,
}

/// A link's buffer high-water marks, written by enqueues that raise them:
/// 8 bytes in a dense array (48 KB for a k = 16 fat-tree's links), which
/// stays in cache where a line per link would not.
#[derive(Clone, Copy, Debug, Default)]
struct LinkMax {
    pkts: u32,
    /// Bytes, saturating at 2³² − 1 (then [`LinkRare::max_bytes`] holds it).
    bytes: u32,
}

/// What the report (not the hot path) needs about a link.
#[derive(Clone, Copy, Debug)]
pub struct LinkInfo {
    pub from: u32,
    pub to: u32,
    pub rate_bps: u64,
    /// Propagation delay (plus the receiving switch's processing delay).
    pub delay: SimTime,
    pub cfg: QueueConfig,
}

/// A packet sent into a sink (see [`Links::set_sinks`]): when it reaches
/// the far end, and what forwarding needs of it there.
#[derive(Clone, Copy, Debug)]
pub struct Handoff {
    pub link: u32,
    pub arrive: SimTime,
    pub h: Hdr,
}

/// [`Links::sinks`] of a link whose far end is here.
const NOT_A_SINK: u32 = u32::MAX;

/// Every directed link, indexed by directed-link id.
#[derive(Default)]
pub struct Links {
    hot: Vec<Link>,
    /// Per link whose far end is a sink ([`Self::set_sinks`]), the class it
    /// enqueues with ([`NOT_A_SINK`] for the others); empty when no link
    /// is a sink.
    sinks: Vec<u32>,
    /// Packets sent into sinks since the last [`Self::take_outbox`].
    outbox: Vec<Handoff>,
    /// The node each link leads to (4 bytes a link: stays in cache).
    to: Vec<u32>,
    max: Vec<LinkMax>,
    info: Vec<LinkInfo>,
    classes: Vec<LinkClass>,
    class_of: FixedHashMap<[u64; 8], u32>,
    pool: SlotPool,
    /// Per link, its two queues when trimming is on (net/trim.rs); empty
    /// otherwise.
    prio: Vec<trim::Prio>,
    /// Wire bytes of a trimmed header, and whether full header queues
    /// return trimmed headers to their senders.
    trim_header: u32,
    trim_rts: bool,
    /// In-band telemetry (net/int.rs; off: empty, never touched).
    pub int: int::Int,
    /// Links that go down, lose packets or slow down (net/failure.rs).
    failures: failure::Failures,
    /// Priority flow control (net/pfc.rs; off: empty, never touched).
    pfc: pfc::Pfc,
    /// Per link, the classes of a link with RED's ramp (net/ramp.rs;
    /// `NOT_RAMPED` otherwise); empty when no link has one.
    ramped: Vec<ramp::Ramped>,
}

impl Links {
    /// Room for `n` directed links: a k = 32 fat-tree's 49,152 grew the
    /// per-link tables by doubling, a copy and fresh pages each time.
    pub fn with_capacity(n: usize) -> Links {
        Links {
            hot: Vec::with_capacity(n),
            to: Vec::with_capacity(n),
            max: Vec::with_capacity(n),
            info: Vec::with_capacity(n),
            ..Links::default()
        }
    }

    /// Add the next directed link; returns its id.
    pub fn push(
        &mut self,
        from: u32,
        to: u32,
        rate_bps: u64,
        delay: SimTime,
        cfg: QueueConfig,
    ) -> u32 {
        let class = self.intern(LinkClass::new(rate_bps, delay, cfg));
        self.hot.push(Link {
            st: LinkState {
                class,
                base: self.pool.alloc(0),
                mask: 1,
                ..LinkState::default()
            },
            rare: LinkRare::default(),
        });
        self.to.push(to);
        self.max.push(LinkMax::default());
        self.info.push(LinkInfo {
            from,
            to,
            rate_bps,
            delay,
            cfg,
        });
        (self.hot.len() - 1) as u32
    }

    /// Whether some link drops packets without ECT over its threshold
    /// (`topology.ecn_non_ect = "drop"`).
    pub fn gated(&self) -> bool {
        self.classes.iter().any(|c| c.drop_non_ect)
    }

    /// Class `class` with zero limits (interned): every enqueue under it
    /// leaves the per-hop path for [`Self::over_limit`], where a sink or a
    /// failing link keeps its own class aside.
    fn refusing(&mut self, class: u32) -> u32 {
        let mut c = self.classes[class as usize];
        (c.lim_bytes, c.lim_pkts) = (0, 0);
        self.intern(c)
    }

    /// The index of class `c`, added if new.
    fn intern(&mut self, c: LinkClass) -> u32 {
        let key = [
            c.ps_per_byte,
            c.rate_bps,
            c.delay.0,
            c.lim_bytes,
            c.lim_pkts,
            c.ecn_bytes,
            c.ecn_pkts,
            c.drop_non_ect as u64,
        ];
        let classes = &mut self.classes;
        *self.class_of.entry(key).or_insert_with(|| {
            classes.push(c);
            (classes.len() - 1) as u32
        })
    }

    pub fn len(&self) -> usize {
        self.hot.len()
    }

    /// Heap bytes fixed once the links are built: their lines, report
    /// data and classes.
    pub fn fixed_heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.hot.capacity() * size_of::<Link>()
            + self.to.capacity() * 4
            + self.max.capacity() * size_of::<LinkMax>()
            + self.info.capacity() * size_of::<LinkInfo>()
            + self.classes.capacity() * size_of::<LinkClass>()
            + self.class_of.capacity() * (size_of::<([u64; 8], u32)>() + 1)
            + self.pfc.heap_bytes()
    }

    /// Heap bytes of the shared FIFO pool (buffered and propagating
    /// packets' slots) and its free lists.
    pub fn pool_heap_bytes(&self) -> usize {
        self.pool.lines.capacity() * std::mem::size_of::<SlotLine>()
            + self
                .pool
                .free
                .iter()
                .map(|f| f.capacity() * 4)
                .sum::<usize>()
    }

    /// What one directed link costs, at most, before any packet: its two
    /// lines, dense entries and report data in Vecs grown by pushing
    /// (twice), and a class with its map entry.
    pub const LINK_BYTES: usize = 2
        * (std::mem::size_of::<Link>()
            + 4
            + std::mem::size_of::<LinkMax>()
            + std::mem::size_of::<LinkInfo>())
        + 2 * (std::mem::size_of::<LinkClass>() + std::mem::size_of::<([u64; 8], u32)>() + 1);
    /// A directed link's first ring segment (one line), in a pool grown by
    /// doubling.
    pub const FIRST_SEGMENT_BYTES: usize = 2 * std::mem::size_of::<SlotLine>();
    /// What one packet on a link can cost the pool, at most: its slot in a
    /// ring that grew by doubling (the old segments stay for reuse: twice),
    /// in a pool Vec grown by doubling (twice again), and free-list entries.
    pub const SLOT_BYTES: usize = 4 * std::mem::size_of::<Slot>() + 4;

    pub fn is_empty(&self) -> bool {
        self.hot.is_empty()
    }

    #[inline]
    pub fn info(&self, i: usize) -> &LinkInfo {
        &self.info[i]
    }

    pub fn infos(&self) -> &[LinkInfo] {
        &self.info
    }

    /// The header of link `i`'s head packet, read early (with the link's
    /// state line) so the cache misses of its next arrival overlap other
    /// work. Meaningless on an empty link.
    #[inline(always)]
    pub fn peek_head(&self, i: u32) -> Hdr {
        let st = &self.hot[i as usize].st;
        self.pool.get(st.base + st.head).h
    }

    /// Prefetch link `i`'s state line (any `i`: out of range is a no-op).
    #[inline(always)]
    pub fn prefetch_state(&self, i: u32) {
        if let Some(l) = self.hot.get(i as usize) {
            crate::sim::prefetch::prefetch(&l.st);
        }
    }

    /// Prefetch link `i`'s head ring slot (any `i`: out of range is a
    /// no-op). Reads the state line, so call it once that line is on its way.
    #[inline(always)]
    pub fn prefetch_head(&self, i: u32) {
        if let Some(l) = self.hot.get(i as usize) {
            self.pool.prefetch(l.st.base + l.st.head);
        }
    }

    /// Prefetch the ring slots an enqueue on link `i` will touch: the
    /// tail it writes and the oldest buffered packet it may retire (any
    /// `i`: out of range is a no-op). Reads the state line, so call it
    /// once that line is on its way.
    #[inline(always)]
    pub fn prefetch_slots(&self, i: u32) {
        if let Some(l) = self.hot.get(i as usize) {
            let st = &l.st;
            self.pool
                .prefetch(st.base + (st.head.wrapping_add(st.len) & st.mask));
            self.pool
                .prefetch(st.base + (st.head.wrapping_add(st.len - st.buffered) & st.mask));
        }
    }

    /// The node link `i` leads to.
    #[inline]
    pub fn to(&self, i: u32) -> u32 {
        self.to[i as usize]
    }

    #[inline]
    pub fn tx_time(&self, i: usize, bytes: u32) -> SimTime {
        self.classes[self.hot[i].st.class as usize].tx_time(bytes)
    }

    #[inline]
    pub fn delay(&self, i: usize) -> SimTime {
        self.classes[self.hot[i].st.class as usize].delay
    }

    /// Nothing is being serialized on link `i` at `now`.
    #[inline]
    pub fn idle_at(&self, i: u32, now: SimTime) -> bool {
        self.hot[i as usize].st.free_at <= now
    }

    /// Retire from link `i`'s buffer every packet whose departure (arrival
    /// minus propagation delay) is at or before `now`. When the serializer
    /// is free, that is all of them, known without reading the ring.
    #[inline(always)]
    fn advance(st: &mut LinkState, pool: &SlotPool, classes: &[LinkClass], now: SimTime) {
        if st.free_at <= now {
            st.buffered = 0;
            st.q_bytes = 0;
            return;
        }
        // The last buffered packet departs after `now`: the loop stops there.
        let delay = classes[st.class as usize].delay;
        while st.buffered > 1 {
            let s = pool.get(st.base + (st.head.wrapping_add(st.len - st.buffered) & st.mask));
            if s.arrive - delay > now {
                break;
            }
            st.q_bytes -= s.h.wire as u64;
            st.buffered -= 1;
        }
    }

    /// Buffer occupancy (bytes, packets) of link `i` at `now`.
    pub fn occupancy(&mut self, i: usize, now: SimTime) -> (u64, u64) {
        let (wb, wp) = self.prio_waiting(i);
        let st = &mut self.hot[i].st;
        Self::advance(st, &self.pool, &self.classes, now);
        (st.q_bytes + wb, st.buffered as u64 + wp)
    }

    /// Offer packet `h` to link `link`'s egress queue (drop-tail; ECN marks
    /// CE on ECT packets when the instantaneous queue on arrival exceeds K).
    /// Always inlined: it is the per-hop hot path, and the compiler stops
    /// inlining it into `Core::forward` once that grows.
    #[inline(always)]
    pub fn enqueue(
        &mut self,
        link: u32,
        h: Hdr,
        q: &mut EventQueue,
        start_delay: SimTime,
    ) -> Enqueue {
        self.enqueue_on::<false>(link, h, q, start_delay, NO_LINK)
    }

    /// [`Self::enqueue`] of a packet that came in on link `input`
    /// (`NO_LINK`: from the node's own host), which PFC counts against
    /// that input (net/pfc.rs).
    #[inline(always)]
    pub fn enqueue_from(
        &mut self,
        link: u32,
        h: Hdr,
        q: &mut EventQueue,
        start_delay: SimTime,
        input: u32,
    ) -> Enqueue {
        self.enqueue_on::<false>(link, h, q, start_delay, input)
    }

    /// [`Self::enqueue`] on a link whose far end is here (`SINK` false), or
    /// on one whose far end is a sink, with the class it keeps for that
    /// ([`Self::set_sinks`]): the packet goes to the outbox instead of
    /// arriving here.
    #[inline(always)]
    fn enqueue_on<const SINK: bool>(
        &mut self,
        link: u32,
        mut h: Hdr,
        q: &mut EventQueue,
        start_delay: SimTime,
        input: u32,
    ) -> Enqueue {
        let now = q.now();
        let Link { st, rare } = &mut self.hot[link as usize];
        Self::advance(st, &self.pool, &self.classes, now);
        let class = if SINK {
            match self.ramped.get(link as usize) {
                Some(r) if r.real != u32::MAX => r.real,
                _ => self.sinks[link as usize],
            }
        } else {
            st.class
        };
        let c = &self.classes[class as usize];
        let wire = h.wire;
        let pkts = st.buffered as u64;
        if st.q_bytes + wire as u64 > c.lim_bytes || pkts + 1 > c.lim_pkts {
            if SINK {
                // (sinks have no priority queues: set_sinks)
                rare.dropped += 1;
                return Enqueue::Dropped;
            }
            let w = h.words();
            return self.over_limit(link, w.0, w.1, w.2, q, start_delay, input);
        }
        if c.over_k(st.q_bytes, pkts) {
            if h.flags & flags::ECT != 0 {
                // (a sink's ramp: the per-hop instantiation has none)
                if !SINK || rare.ramp_kmax == 0 || c.ramp_marks(rare, st.q_bytes, pkts) {
                    h.flags |= flags::CE;
                    rare.marked += 1;
                }
            } else if c.drop_non_ect {
                return rare.drop_non_ect();
            }
        }
        st.q_bytes += wire as u64;
        st.buffered += 1;
        let depart = st.free_at.max(now + start_delay) + c.tx_time(wire);
        st.free_at = depart;
        let arrive = depart + c.delay;
        st.enqueued += 1;
        st.enq_bytes += wire as u64;
        let m = &mut self.max[link as usize];
        if st.q_bytes > m.bytes as u64 {
            Self::raise_max_bytes(m, rare, st.q_bytes);
        }
        m.pkts = m.pkts.max(st.buffered);
        Self::add_area(st, rare, wire as u128 * (depart.0 - now.0) as u128);
        if SINK {
            self.outbox.push(Handoff { link, arrive, h });
        } else if st.len == 0 {
            q.schedule(arrive, Event::Arrive(link));
        }
        if st.len > st.mask {
            // The far end of a sink runs its arrivals; here its ring only
            // keeps the buffer's accounting, and its arrived packets are
            // retired when it fills.
            if SINK {
                Self::retire_arrived(st, &self.pool, now);
            }
            if st.len > st.mask {
                Self::grow(st, &mut self.pool);
            }
        }
        let tail = st.base + (st.head.wrapping_add(st.len) & st.mask);
        *self.pool.get_mut(tail) = Slot { arrive, h };
        st.len += 1;
        Enqueue::Queued
    }

    /// The FIFO's limit refused packet `h`: a drop, or, on a link whose
    /// far end is a sink or that has priority queues (whose class has a
    /// zero limit so that every enqueue comes here: [`Self::set_sinks`],
    /// net/trim.rs), the sink's or the priority path.
    /// (`h` in words: [`HdrWords`])
    #[cold]
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn over_limit(
        &mut self,
        link: u32,
        h0: u64,
        h1: u64,
        h2: u64,
        q: &mut EventQueue,
        start_delay: SimTime,
        input: u32,
    ) -> Enqueue {
        let h = Hdr::from_words(HdrWords(h0, h1, h2));
        if self.pfc.on() {
            return self.enqueue_pfc(link, h, q, start_delay, input);
        }
        if !self.failures.is_empty() {
            if let Some(res) = self.over_failure(link, h, q, start_delay) {
                return res;
            }
        }
        // (a priority link's sink hands its packet over when it starts:
        // net/trim.rs)
        if self.prio.is_empty() && self.is_sink(link) {
            if let Some(real) = self.int.real_class(link as usize) {
                return self.enqueue_sink_int(link, real, h, q, start_delay, input);
            }
            return self.enqueue_on::<true>(link, h, q, start_delay, input);
        }
        if !self.prio.is_empty() {
            return self.enqueue_prio(link, h, q, start_delay);
        }
        if self.int.on() {
            if let Some(res) = self.enqueue_int(link, h, q, start_delay) {
                return res;
            }
        }
        if !self.ramped.is_empty() {
            if let Some(res) = self.over_ramp(link, h, q, start_delay) {
                return res;
            }
        }
        self.hot[link as usize].rare.dropped += 1;
        Enqueue::Dropped
    }

    /// Offer packet `h` to link `link` under class `class` instead of the
    /// link's own (a gate's or INT's zero-limit class keeps its real one
    /// aside), the link's own restored after.
    pub(super) fn enqueue_as(
        &mut self,
        class: u32,
        link: u32,
        h: Hdr,
        q: &mut EventQueue,
        start_delay: SimTime,
    ) -> Enqueue {
        let own = std::mem::replace(&mut self.hot[link as usize].st.class, class);
        let res = self.enqueue(link, h, q, start_delay);
        self.hot[link as usize].st.class = own;
        res
    }

    /// Retire from a sink link's ring the packets that reached the far end
    /// by `now` (departed ones only: their arrival is when they leave the
    /// ring on a link whose far end is local). Called from an enqueue that
    /// has counted its packet in `buffered` but not yet put it in the ring.
    #[cold]
    fn retire_arrived(st: &mut LinkState, pool: &SlotPool, now: SimTime) {
        while st.len + 1 > st.buffered && pool.get(st.base + st.head).arrive <= now {
            st.head = (st.head + 1) & st.mask;
            st.len -= 1;
        }
        if st.len == 0 {
            st.head = 0;
        }
    }

    /// Make the far end of each link with `sink[l]` a sink: a packet
    /// enqueued there is queued, marked, dropped and timed as anywhere,
    /// then put in the outbox ([`Self::take_outbox`]) instead of arriving
    /// here. Each such link gets a class of its own that refuses every
    /// packet (as a trimming link's does), so its enqueues leave the
    /// per-hop path for [`Self::over_limit`], and the links whose far end
    /// is here pay nothing for sinks.
    pub fn set_sinks(&mut self, sink: Vec<bool>) {
        assert_eq!(sink.len(), self.hot.len(), "one flag per link");
        self.sinks = Vec::new();
        if !sink.iter().any(|&s| s) {
            return;
        }
        self.sinks = vec![NOT_A_SINK; sink.len()];
        for (l, _) in sink.iter().enumerate().filter(|s| *s.1) {
            let own = self.hot[l].st.class;
            self.hot[l].st.class = self.refusing(own);
            self.sinks[l] = own;
        }
    }

    /// Whether link `link`'s far end is a sink ([`Self::set_sinks`]).
    #[inline]
    fn is_sink(&self, link: u32) -> bool {
        self.sinks
            .get(link as usize)
            .is_some_and(|&c| c != NOT_A_SINK)
    }

    /// The packets sent into sinks since the last call, in the order they
    /// were enqueued.
    pub fn take_outbox(&mut self) -> Vec<Handoff> {
        std::mem::take(&mut self.outbox)
    }

    /// [`Self::take_outbox`] into `buf`, whose allocation (cleared) the
    /// outbox takes in exchange: a run in step with other worlds empties
    /// its outbox every window, and a fresh one would grow by doubling
    /// each time.
    pub fn swap_outbox(&mut self, buf: &mut Vec<Handoff>) {
        buf.clear();
        std::mem::swap(&mut self.outbox, buf);
    }

    /// A packet sent on link `link` by the world that runs its sending
    /// end (where the link ends in a sink) joins the link's ring here, to
    /// arrive at `arrive`; the first in an empty ring schedules its
    /// arrival. Packets of one link come in the order they were sent, so
    /// the ring stays in arrival order.
    pub fn accept(&mut self, q: &mut EventQueue, link: u32, arrive: SimTime, h: Hdr) {
        let st = &mut self.hot[link as usize].st;
        if st.len == 0 {
            q.schedule(arrive, Event::Arrive(link));
        } else if st.len > st.mask {
            Self::grow(st, &mut self.pool);
        }
        debug_assert!(
            st.len == 0
                || self
                    .pool
                    .get(st.base + ((st.head + st.len - 1) & st.mask))
                    .arrive
                    < arrive,
            "handed-over packets out of order on link {link}"
        );
        let tail = st.base + (st.head.wrapping_add(st.len) & st.mask);
        *self.pool.get_mut(tail) = Slot { arrive, h };
        st.len += 1;
    }

    /// At the end of a run in step with other worlds, retire from each
    /// sink link's ring what reached the far end: arrivals before `end`'s
    /// instant, and at it those whose event key (`key_of`) is at most
    /// `end` — exactly the arrivals the far end processed, as one
    /// thread's ring would have; then give the link its own class back:
    /// from here on it reads as any other link.
    pub fn close_sinks(&mut self, end: u128, key_of: impl Fn(SimTime, u32) -> u128) {
        for (l, &own) in self.sinks.iter().enumerate() {
            if own == NOT_A_SINK {
                continue;
            }
            let st = &mut self.hot[l].st;
            st.class = own;
            while st.len > st.buffered {
                let a = self.pool.get(st.base + st.head).arrive;
                if key_of(a, l as u32) > end {
                    break;
                }
                st.head = (st.head + 1) & st.mask;
                st.len -= 1;
            }
        }
        self.sinks = Vec::new();
    }

    /// Absorb from `other` (the world that ran their sending ends, its
    /// sinks closed) the state and counters of the links `theirs` names,
    /// for a merged world's report: the rings' slots stay behind (after
    /// [`Self::finish`] nothing reads them), so this world's rings of
    /// those links must not be used again.
    pub fn absorb(&mut self, other: &Links, theirs: impl Fn(usize) -> bool) {
        debug_assert!(other.sinks.is_empty(), "the other world's sinks are closed");
        for i in (0..self.hot.len()).filter(|&i| theirs(i)) {
            self.hot[i] = other.hot[i];
            self.max[i] = other.max[i];
            if let (Some(p), Some(o)) = (self.prio.get_mut(i), other.prio.get(i)) {
                // its priority queues and what they trimmed, bounced, dropped
                *p = o.clone();
            }
        }
        self.absorb_failures(other, &theirs);
    }

    /// Add `area` byte·ps to the link's occupancy integral (its high bits
    /// and carries in the rare line).
    #[inline(always)]
    fn add_area(st: &mut LinkState, rare: &mut LinkRare, area: u128) {
        let (lo, carry) = st.byte_time.overflowing_add(area as u64);
        st.byte_time = lo;
        if carry || area >> 64 != 0 {
            rare.byte_time_hi += (area >> 64) as u64 + carry as u64;
        }
    }

    /// A new byte high-water mark; past 2³² − 1 it lives in the rare line.
    #[inline]
    fn raise_max_bytes(m: &mut LinkMax, rare: &mut LinkRare, q_bytes: u64) {
        if let Ok(b) = u32::try_from(q_bytes) {
            m.bytes = b;
        } else {
            m.bytes = u32::MAX;
            rare.max_bytes = rare.max_bytes.max(q_bytes);
        }
    }

    /// Double a full ring.
    #[cold]
    fn grow(st: &mut LinkState, pool: &mut SlotPool) {
        let cap = st.mask + 1;
        let c = (cap / 2).trailing_zeros() as usize + 1;
        let base = pool.alloc(c);
        for k in 0..st.len {
            *pool.get_mut(base + k) = *pool.get(st.base + (st.head.wrapping_add(k) & st.mask));
        }
        pool.release(st.base, c - 1);
        st.base = base;
        st.head = 0;
        st.mask = (2u32 << c) - 1;
    }

    /// [`Self::arrive`], first prefetching the ring slots the packet's
    /// next enqueue will touch ([`Self::prefetch_slots`] of its egress,
    /// [`Hdr::next`]; that link's state line was prefetched an event ago),
    /// so they are on their way while the arrival runs. The header is read
    /// once for both: prefetching from [`Self::peek_head`] and then calling
    /// [`Self::arrive`] read the slot twice, the prefetch between them
    /// keeping the compiler from reusing the first load (−1.3 % of the
    /// instructions on the k = 8 DCTCP permutation).
    #[inline(always)]
    pub fn arrive_prefetching(&mut self, q: &mut EventQueue, link: u32) -> Hdr {
        let h = self.peek_head(link);
        self.prefetch_slots(h.next);
        self.take_head(q, link, h.wire);
        h
    }

    /// The head packet of link `link` arrives at its far end; returns it and
    /// schedules the next arrival.
    #[inline(always)]
    pub fn arrive(&mut self, q: &mut EventQueue, link: u32) -> Hdr {
        let h = self.peek_head(link);
        self.take_head(q, link, h.wire);
        h
    }

    /// Remove link `link`'s head packet (arrived; `wire` bytes) and
    /// schedule the next arrival.
    ///
    /// The buffer is not advanced here: every reader of `buffered` and
    /// `q_bytes` advances it first ([`Self::advance`]), so an arrival only
    /// has to keep `buffered ≤ len`, by retiring its own packet when that
    /// is still counted (it left the buffer a propagation delay ago). The
    /// advance's test, whether the serializer is free, was true or false
    /// by the traffic, mispredicted nearly half the time at both of a
    /// hop's calls; this retirement has no branch.
    #[inline(always)]
    fn take_head(&mut self, q: &mut EventQueue, link: u32, wire: u32) {
        let st = &mut self.hot[link as usize].st;
        debug_assert!(st.len > 0, "Arrive on an empty link");
        let counted = (st.buffered == st.len) as u32;
        st.buffered -= counted;
        st.q_bytes -= wire as u64 * counted as u64;
        st.head = (st.head + 1) & st.mask;
        st.len -= 1;
        debug_assert!(st.buffered <= st.len);
        if st.len > 0 {
            q.schedule(self.pool.get(st.base + st.head).arrive, Event::Arrive(link));
        } else {
            // An emptied ring starts over at its first line, which stays
            // in cache: a lightly loaded link reuses one line however far
            // its ring once grew.
            st.head = 0;
        }
    }

    /// Bring every buffer up to the end of the run and close the occupancy
    /// integrals: packets still buffered are counted only up to `now`.
    pub fn finish(&mut self, now: SimTime) {
        // Packets still waiting in priority queues count up to the end.
        let queued = if self.pfc.on() {
            self.hot.len()
        } else {
            self.prio.len()
        };
        let waiting: Vec<u128> = (0..queued)
            .map(|l| self.prio_waiting_area(l, now))
            .collect();
        for (l, Link { st, rare }) in self.hot.iter_mut().enumerate() {
            Self::advance(st, &self.pool, &self.classes, now);
            let delay = self.classes[st.class as usize].delay;
            let mut byte_time = (rare.byte_time_hi as u128) << 64 | st.byte_time as u128;
            byte_time += waiting.get(l).copied().unwrap_or(0);
            for k in st.len - st.buffered..st.len {
                let s = self.pool.get(st.base + (st.head.wrapping_add(k) & st.mask));
                byte_time -= s.h.wire as u128 * (s.arrive - delay - now).0 as u128;
            }
            st.byte_time = byte_time as u64;
            rare.byte_time_hi = (byte_time >> 64) as u64;
        }
    }

    /// Link `i`'s counters. `tx_*` count what left the buffer as of the
    /// last look at it (an enqueue, [`Self::occupancy`] or
    /// [`Self::finish`]; an arrival retires only its own packet).
    pub fn stats(&self, i: usize) -> QueueStats {
        let Link { st, rare } = &self.hot[i];
        let m = self.max[i];
        let (wb, wp) = self.prio_waiting(i);
        QueueStats {
            enqueued: st.enqueued,
            dropped: rare.dropped,
            dropped_non_ect: rare.dropped_non_ect,
            dropped_failed: rare.dropped_failed,
            marked: rare.marked,
            max_bytes: (m.bytes as u64).max(rare.max_bytes),
            max_pkts: m.pkts as u64,
            tx_bytes: st.enq_bytes - st.q_bytes - wb,
            tx_pkts: st.enqueued - st.buffered as u64 - wp,
            arrived: st.enqueued - st.len as u64 - wp,
            byte_time: (rare.byte_time_hi as u128) << 64 | st.byte_time as u128,
        }
    }

    /// Packets on link `i`: buffered or propagating.
    pub fn in_flight(&self, i: usize) -> usize {
        self.hot[i].st.len as usize + self.prio_waiting(i).1 as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::NonEct;
    use crate::sim::rng::mix64;

    #[test]
    fn a_header_survives_its_words() {
        for kind in [PktKind::Data, PktKind::Ack, PktKind::Udp] {
            for (id, wire, route, next, flow, flags) in [
                (0, 0, 0, 0, 0, 0),
                (7, 1538, NO_ROUTE, u32::MAX, 3, flags::ECT | flags::CE),
                (u32::MAX, u32::MAX, 12, 345, u32::MAX, u8::MAX),
            ] {
                let h = Hdr {
                    id,
                    wire,
                    route,
                    next,
                    flow,
                    flags,
                    kind,
                };
                assert_eq!(Hdr::from_words(h.words()), h);
            }
        }
    }

    /// The arena returns every packet as it was stored, SACK blocks
    /// included, through slot reuse in any order: packets with and
    /// without blocks take each other's slots, and a reused slot never
    /// shows a previous packet's blocks.
    #[test]
    fn arena_keeps_packets_and_their_sack_blocks() {
        let mut arena = Arena::default();
        let mut live: Vec<(PktId, Packet)> = Vec::new();
        for i in 0..20_000u64 {
            let r = mix64(i);
            if r.is_multiple_of(3) && !live.is_empty() {
                let (id, want) = live.swap_remove((r >> 8) as usize % live.len());
                let got = arena.copy_out(id);
                assert_eq!(format!("{got:?}"), format!("{want:?}"));
                arena.release(id);
                continue;
            }
            let nsack = (r >> 20) as u8 % 4;
            let mut sack = [(0u64, 0u64); 3];
            for (k, b) in sack.iter_mut().enumerate().take(nsack as usize) {
                *b = (r ^ k as u64, (r ^ k as u64) + 9000);
            }
            let p = Packet {
                flow: i as u32,
                txn: (r >> 32) as u32,
                seq: r,
                nsack,
                label: 0,
                sack,
                kind: [PktKind::Data, PktKind::Ack, PktKind::Udp][(r >> 40) as usize % 3],
                ..Packet::EMPTY
            };
            live.push((arena.alloc(&p), p));
        }
        assert!(arena.live() == live.len() as u64 && arena.released > 0);
        for (id, want) in live {
            assert_eq!(format!("{:?}", arena.copy_out(id)), format!("{want:?}"));
        }
    }

    /// A sink is a link like any other up to its far end: offered the same
    /// packets at the same times as a link whose far end is here, it
    /// queues, marks and drops the same ones, and puts in its outbox, in
    /// order, each packet it accepted with the header and the arrival time
    /// the other link delivers it at, while nothing arrives at its own
    /// end. Closed, it counts what the other counts, with its own class
    /// back. Bursts overflow a 40-packet buffer and pass its 10-packet
    /// marking threshold, and fill the sink's ring past several doublings.
    #[test]
    fn a_sink_queues_as_a_link_and_hands_its_packets_over() {
        sink_queues_as_a_link(NonEct::Queue);
    }

    /// The same with the queue dropping what it cannot mark
    /// (`ecn_non_ect = "drop"`): its sink gates as the link does.
    #[test]
    fn a_gated_sink_queues_as_a_link_and_hands_its_packets_over() {
        sink_queues_as_a_link(NonEct::Drop);
    }

    fn sink_queues_as_a_link(non_ect: NonEct) {
        let cfg = QueueConfig {
            limit: Limit::Packets(40),
            ecn_k: Some(Limit::Packets(10)),
            non_ect,
        };
        let build = || {
            let mut links = Links::default();
            for (a, b) in [(0, 1), (1, 0)] {
                links.push(a, b, 8_000_000_000, SimTime(5_000_000), cfg);
            }
            links
        };
        let (mut here, mut sink) = (build(), build());
        sink.set_sinks(vec![true, false]);
        let (mut qh, mut qs) = (EventQueue::new(), EventQueue::new());
        let mut t = 0u64;
        let mut n = 0u32;
        for b in 0..200u64 {
            let burst = 1 + mix64(b) % 80;
            for i in 0..burst {
                let at = SimTime(t + i * 50_000);
                qh.schedule(at, Event::Udp(n));
                qs.schedule(at, Event::Udp(n));
                n += 1;
            }
            t += burst * 50_000 + mix64(b ^ 5) % 400_000_000;
        }
        // two packets in three ECN-capable
        let hdr = |i: u32| Hdr {
            id: i,
            wire: 64 + (mix64(i as u64 + 3) % 1500) as u32,
            flags: if i.is_multiple_of(3) { 0 } else { flags::ECT },
            ..Hdr::default()
        };
        let (mut offered, mut delivered) = (Vec::new(), Vec::new());
        while let Some(ev) = qh.pop_until(SimTime(u64::MAX)) {
            match ev {
                Event::Udp(i) => offered.push(here.enqueue(0, hdr(i), &mut qh, SimTime::ZERO)),
                Event::Arrive(0) => {
                    let h = here.arrive(&mut qh, 0);
                    delivered.push((qh.now(), h.id, h.flags));
                }
                e => panic!("unexpected {e:?}"),
            }
        }
        let mut sunk = Vec::new();
        while let Some(ev) = qs.pop_until(SimTime(u64::MAX)) {
            let Event::Udp(i) = ev else {
                panic!("{ev:?} at the sink's own end")
            };
            sunk.push(sink.enqueue(0, hdr(i), &mut qs, SimTime::ZERO));
        }
        assert_eq!(offered, sunk);
        assert!(offered.contains(&Enqueue::Dropped), "no drop");
        let out: Vec<_> = sink
            .take_outbox()
            .iter()
            .map(|o| (o.arrive, o.h.id, o.h.flags))
            .collect();
        assert!(out.iter().any(|o| o.2 & flags::CE != 0), "no mark");
        assert_eq!(out, delivered);
        let end = SimTime(u64::MAX / 2);
        here.occupancy(0, end);
        sink.occupancy(0, end);
        sink.close_sinks(u128::MAX, |t, _| t.0 as u128);
        assert_eq!(
            format!("{:?}", sink.stats(0)),
            format!("{:?}", here.stats(0))
        );
        assert_eq!(sink.hot[0].st.class, here.hot[0].st.class);
        let st = here.stats(0);
        if non_ect == NonEct::Drop {
            assert!(st.dropped_non_ect > 0, "nothing dropped at the threshold");
            assert!(st.dropped > st.dropped_non_ect, "no overflow drop");
        } else {
            assert_eq!(st.dropped_non_ect, 0);
        }
    }

    /// `ecn_non_ect`: over the threshold K a packet without ECT is queued
    /// (`Queue`) or dropped (`Drop`), an ECN-capable one marked either way;
    /// under K nothing is dropped or marked while the buffer has room; at
    /// the buffer's limit every packet is dropped as overflow. Checked
    /// packet by packet against the occupancy each one found, on a
    /// 10-packet threshold in bytes and in packets.
    #[test]
    fn a_gated_queue_drops_what_it_cannot_mark_over_k() {
        for k in [Limit::Packets(10), Limit::Bytes(10 * 1500)] {
            for non_ect in [NonEct::Queue, NonEct::Drop] {
                let cfg = QueueConfig {
                    limit: Limit::Packets(40),
                    ecn_k: Some(k),
                    non_ect,
                };
                let mut links = Links::default();
                links.push(0, 1, 1_000_000_000, SimTime(1_000_000), cfg);
                let mut q = EventQueue::new();
                let (mut marked, mut early, mut overflow) = (0u64, 0u64, 0u64);
                // 200 packets at once: the buffer fills past K and its limit
                for i in 0..200u32 {
                    let ect = i % 2 == 0;
                    let h = Hdr {
                        id: i,
                        wire: 1500,
                        flags: if ect { flags::ECT } else { 0 },
                        ..Hdr::default()
                    };
                    let (bytes, pkts) = links.occupancy(0, q.now());
                    let over_k = match k {
                        Limit::Packets(n) => pkts > n,
                        Limit::Bytes(b) => bytes > b,
                    };
                    let res = links.enqueue(0, h, &mut q, SimTime::ZERO);
                    let full = pkts + 1 > 40;
                    let want = if full || (over_k && !ect && non_ect == NonEct::Drop) {
                        Enqueue::Dropped
                    } else {
                        Enqueue::Queued
                    };
                    assert_eq!(res, want, "packet {i} ({k:?}, {non_ect:?})");
                    match res {
                        Enqueue::Dropped if full => overflow += 1,
                        Enqueue::Dropped => early += 1,
                        _ if over_k && ect => marked += 1,
                        _ => {}
                    }
                }
                let st = links.stats(0);
                assert_eq!(st.marked, marked);
                assert_eq!(st.dropped, early + overflow);
                assert_eq!(st.dropped_non_ect, early);
                assert!(marked > 0 && overflow > 0);
                assert_eq!(early > 0, non_ect == NonEct::Drop);
                assert_eq!(links.gated(), non_ect == NonEct::Drop);
            }
        }
    }

    /// Past what the state line holds — a buffer above 2³² − 1 bytes, an
    /// occupancy integral above 2⁶⁴ byte·ps — the counts carry into the
    /// rare line and come out exact: 480,000 packets of 9,000 bytes
    /// offered at once to an unlimited 8 Mbps link (1 µs a byte).
    #[test]
    fn counts_past_the_state_line_stay_exact() {
        let mut links = Links::default();
        let cfg = QueueConfig {
            limit: Limit::Packets(u64::MAX),
            ecn_k: None,
            non_ect: NonEct::Queue,
        };
        let l = links.push(0, 1, 8_000_000, SimTime::ZERO, cfg);
        let mut q = EventQueue::new();
        let (n, wire) = (480_000u64, 9_000u64);
        for i in 0..n {
            let h = Hdr {
                id: i as u32,
                wire: wire as u32,
                route: NO_ROUTE,
                ..Hdr::default()
            };
            assert_eq!(links.enqueue(l, h, &mut q, SimTime::ZERO), Enqueue::Queued);
        }
        let s = links.stats(l as usize);
        assert!(n * wire > u32::MAX as u64);
        assert_eq!((s.max_bytes, s.max_pkts), (n * wire, n));
        // Packet i waits (i + 1) · 9 ms: Σ = wire · 9e9 ps · n(n + 1)/2.
        let expect = wire as u128 * (wire as u128 * 1_000_000) * (n as u128 * (n as u128 + 1) / 2);
        assert!(expect > u64::MAX as u128);
        assert_eq!(s.byte_time, expect);
        assert_eq!((s.enqueued, s.arrived, s.tx_pkts), (n, 0, 0));
    }

    /// The link against a direct model of a constant-rate FIFO: departures
    /// back to back from max(previous departure, enqueue time), arrivals a
    /// delay later in order, occupancy = packets enqueued and not departed,
    /// ∫ occupancy dt summed per packet over [enqueue, min(departure, end)].
    /// Bursts grow the ring past several doublings while it wraps; gaps
    /// empty it (and restart it at its first line).
    #[test]
    fn link_matches_a_fifo_model() {
        let mut links = Links::default();
        let cfg = QueueConfig {
            limit: Limit::Packets(1000),
            ecn_k: None,
            non_ect: NonEct::Queue,
        };
        let delay = SimTime(5_000);
        // 8 Gbps: 1 ps per bit, 1 ns per byte.
        let l = links.push(0, 1, 8_000_000_000, delay, cfg);
        let mut arena = Arena::default();
        let mut q = EventQueue::new();
        // Enqueue times: bursts of up to 40 packets, then gaps.
        let mut t = 0u64;
        let mut n = 0u32;
        for b in 0..60u64 {
            let burst = 1 + mix64(b) % 40;
            for i in 0..burst {
                q.schedule(SimTime(t + i * 100), Event::Udp(n));
                n += 1;
            }
            t += burst * 100 + mix64(b ^ 99) % 60_000_000;
        }
        let end = SimTime(t / 2); // packets still buffered and on the wire at the end
        let wire = |i: u32| 64 + (mix64(i as u64 + 7) % 9000) as u32;
        let (mut depart, mut free_at) = (Vec::new(), 0u64);
        let mut arrived = Vec::new();
        let mut max_pkts = 0;
        while let Some(ev) = q.pop_until(end) {
            let now = q.now();
            match ev {
                Event::Udp(i) => {
                    let id = arena.alloc(&Packet {
                        txn: i,
                        wire: wire(i),
                        ..Packet::EMPTY
                    });
                    assert_eq!(
                        links.enqueue(
                            l,
                            Hdr {
                                id,
                                wire: wire(i),
                                ..Hdr::default()
                            },
                            &mut q,
                            SimTime::ZERO
                        ),
                        Enqueue::Queued
                    );
                    free_at = free_at.max(now.0) + wire(i) as u64 * 1000;
                    depart.push((now.0, free_at, wire(i)));
                    let (_, pkts) = links.occupancy(l as usize, now);
                    let model = depart
                        .iter()
                        .filter(|d| d.0 <= now.0 && d.1 > now.0)
                        .count();
                    assert_eq!(pkts as usize, model);
                    max_pkts = max_pkts.max(model as u64);
                }
                Event::Arrive(x) => {
                    assert_eq!(x, l);
                    let id = links.arrive(&mut q, l).id;
                    let i = arena.get(id).txn as usize;
                    assert_eq!(i, arrived.len(), "FIFO order");
                    assert_eq!(now.0, depart[i].1 + delay.0);
                    arrived.push(i);
                }
                _ => unreachable!(),
            }
        }
        assert!(
            links.in_flight(l as usize) > 1,
            "the run must end with packets on the link"
        );
        links.finish(end);
        let s = links.stats(l as usize);
        let gone: Vec<_> = depart.iter().filter(|d| d.1 <= end.0).collect();
        assert_eq!(s.enqueued, depart.len() as u64);
        assert_eq!(s.arrived, arrived.len() as u64);
        assert_eq!(s.tx_pkts, gone.len() as u64);
        assert_eq!(s.tx_bytes, gone.iter().map(|d| d.2 as u64).sum::<u64>());
        assert_eq!(s.max_pkts, max_pkts);
        let integral: u128 = depart
            .iter()
            .map(|&(e, d, w)| w as u128 * (d.min(end.0) - e) as u128)
            .sum();
        assert_eq!(s.byte_time, integral);
    }
}
