//! The event engine: a calendar wheel, a coarser far wheel behind it and
//! an overflow heap, popping in time order; equal-time events in one of two orders:
//!
//! * first-in first-out (`ties = "fifo"`), as ns-2 and ns-3 order them:
//!   the papers' simulators, whose phase effects in synchronized incast a
//!   reviewer may want to see (Kulkarni's probabilistic retransmission
//!   pays off against exactly those);
//! * by component (`ties = "seeded"`, the default since issue 42): the event's kind, then its
//!   component's index scrambled per instant by the seed, then an app's
//!   tag ([`Event::rank`]). That order is a property of the events alone,
//!   not of when they were scheduled, so a partitioned run (one queue per
//!   partition, packets handed across at window ends: `threads`, issue 29)
//!   pops each partition's events in the order one queue pops them all.
//!   First-in first-out cannot be kept there: a handed-over arrival is
//!   inserted at the window's end, not when its sender scheduled it.
//!
//! Either way a run is a pure function of the scenario and the seed.
//! Components keep at most one pending event each (a link's head packet,
//! a flow's timer), so the queue stays O(components), not O(packets).

use crate::sim::time::SimTime;

/// What happens at an event. Indices refer to the world's arrays. At
/// equal times events run in the order of these variants, then by index
/// (then by an app's tag): arrivals, TCP timers, applications, UDP
/// sources, and the time-series sample last, so it sees the instant's end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The head packet of directed link `0` reaches the far end.
    Arrive(u32),
    /// Retransmission timer of TCP flow `0`.
    Rto(u32),
    /// Delayed-ACK timer of TCP flow `0`.
    DelAck(u32),
    /// Probabilistic-retransmission thread of TCP flow `0` (Kulkarni Alg. 1).
    ProbRetx(u32),
    /// RACK reordering timer or tail loss probe of TCP flow `0`.
    Rack(u32),
    /// Application `app` wake-up with an app-defined tag.
    App { app: u32, tag: u32 },
    /// UDP source `0` sends its next packet.
    Udp(u32),
    /// Periodic time-series sample.
    Sample,
    /// The NDP pull pacer of host `0` may release its next pull.
    Pace(u32),
    /// The serializer of priority link `0` (trimming queues) is free.
    Serve(u32),
}

/// Bits of an app's tag in an event's rank ([`Event::rank`]).
pub const TAG_BITS: u32 = 29;

impl Event {
    /// The event's place among events at the same time `t`: its kind in
    /// the top 3 bits, then its component's index, then an app's tag in
    /// the low [`TAG_BITS`]. The index is scrambled by a bijection that
    /// changes with the instant and the run's `salt` (the seed's), so a
    /// tie between two links (two packets reaching one switch in the same
    /// picosecond, as synchronized senders on equal links do) goes to no
    /// link every time: a fixed order would hand the last buffer slot to
    /// the lower-numbered port at every tie, a phase effect of our own
    /// making. Depends on nothing but the event, the time and the seed, so
    /// the order is the same however the run is partitioned.
    #[inline(always)]
    pub fn rank(self, t: u64, salt: u64) -> u64 {
        self.rank_in(instant_word(t, salt))
    }
    /// [`Self::rank`] at the instant whose word is `h` ([`instant_word`]).
    #[inline(always)]
    fn rank_in(self, h: u32) -> u64 {
        let (kind, id, tag) = match self {
            Event::Arrive(l) => (0, l, 0),
            Event::Rto(f) => (1, f, 0),
            Event::DelAck(f) => (2, f, 0),
            Event::ProbRetx(f) => (3, f, 0),
            Event::Rack(f) => (4, f, 0),
            Event::App { app, tag } => {
                debug_assert!(tag < 1 << TAG_BITS, "app tag {tag} too large");
                (5, app, tag)
            }
            Event::Udp(u) => (6, u, 0),
            // Pacers and serializers share the last kind with the sample,
            // at odd and even ids above it, so no rank moved when they came.
            Event::Sample => (7, 0, 0),
            Event::Pace(h) => (7, 2 * h + 1, 0),
            Event::Serve(l) => (7, 2 * l + 2, 0),
        };
        // xor with a per-instant word, then times an odd constant: both
        // are bijections on u32, so distinct ids keep distinct ranks
        let id = (id ^ h).wrapping_mul(SCRAMBLE);
        (kind as u64) << 61 | (id as u64) << TAG_BITS | tag as u64
    }
    /// The event whose rank at the instant of word `h` is `rank`: a rank
    /// holds the whole event (kind, scrambled index, tag: 3 + 32 + 29
    /// bits), and the scramble is undone by its inverse, so an instant's
    /// buffer keeps ranks alone, sorted as plain integers.
    #[inline(always)]
    fn from_rank(rank: u64, h: u32) -> Event {
        let id = ((rank >> TAG_BITS) as u32).wrapping_mul(UNSCRAMBLE) ^ h;
        // most events are arrivals: one test before the table's jump
        if rank >> 61 == 0 {
            return Event::Arrive(id);
        }
        match rank >> 61 {
            0 => Event::Arrive(id),
            1 => Event::Rto(id),
            2 => Event::DelAck(id),
            3 => Event::ProbRetx(id),
            4 => Event::Rack(id),
            5 => Event::App {
                app: id,
                tag: (rank & ((1 << TAG_BITS) - 1)) as u32,
            },
            6 => Event::Udp(id),
            // the last kind's ids: the sample 0, pacers odd, serializers
            // even above it ([`Self::rank_in`])
            _ if id == 0 => Event::Sample,
            _ if id & 1 == 1 => Event::Pace(id >> 1),
            _ => Event::Serve((id >> 1) - 1),
        }
    }
}

/// The word a seeded instant's ranks are scrambled with: a mix of its
/// time and the run's salt ([`Event::rank`]).
#[inline(always)]
fn instant_word(t: u64, salt: u64) -> u32 {
    ((t ^ salt).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as u32
}

/// The odd constant that scrambles a component index ([`Event::rank`]).
const SCRAMBLE: u32 = 0x9E37_79B1;
/// Its inverse modulo 2³², by Newton's iteration x ← x(2 − ax): each step
/// doubles the correct low bits, and x = a starts with 3 (an odd number
/// is its own inverse modulo 8).
const UNSCRAMBLE: u32 = {
    let mut x = SCRAMBLE;
    let mut i = 0;
    while i < 5 {
        x = x.wrapping_mul(2u32.wrapping_sub(SCRAMBLE.wrapping_mul(x)));
        i += 1;
    }
    x
};
const _: () = assert!(SCRAMBLE.wrapping_mul(UNSCRAMBLE) == 1);

/// Sort `v` descending (the next entry last), as `sort_unstable` does,
/// using `sorted` and `counts` as scratch. An instant's entries are
/// ranks (equal only for equal events) whose high bits are a scrambled
/// component index, spread evenly ([`Event::rank`]): one counting pass
/// deals them into about as many buckets as entries, by their bits just below those all of them
/// share, and an insertion sort then finishes a nearly sorted list. The
/// library's comparison sort took 4 % of a k = 32 DCTCP permutation, whose
/// instants hold 46 entries on average.
fn sort_desc(v: &mut Vec<u64>, sorted: &mut Vec<u64>, counts: &mut Vec<u32>) {
    let n = v.len();
    if n <= 8 {
        sort8_desc(v);
        return;
    }
    if n <= 16 {
        sort16_desc(v);
        return;
    }
    if n < SMALL_SORT {
        insertion_sort_desc(v);
        return;
    }
    let (or, and) = v.iter().fold((0, !0), |(o, a), &k| (o | k, a & k));
    let varying = or ^ and;
    if varying == 0 {
        return;
    }
    // bits [shift, shift + bits) begin at the highest bit that varies, so
    // a bucket's number grows with its entries (the bits above are equal)
    let top = u64::BITS - varying.leading_zeros();
    let bits = (usize::BITS - (n - 1).leading_zeros()).min(top);
    let shift = top - bits;
    let last = (1usize << bits) - 1;
    // descending: the largest bucket first
    let bucket = |k: u64| last - ((k >> shift) as usize & last);
    counts.clear();
    counts.resize(last + 1, 0);
    for &k in v.iter() {
        counts[bucket(k)] += 1;
    }
    // each bucket's first place; the sum kept in a register (adding in
    // place waited on the store before at every bucket)
    let mut sum = 0;
    for c in counts.iter_mut() {
        let here = *c;
        *c = sum;
        sum += here;
    }
    sorted.clear();
    sorted.resize(n, 0);
    for &k in v.iter() {
        let c = &mut counts[bucket(k)];
        sorted[*c as usize] = k;
        *c += 1;
    }
    // each entry is at most a bucket's length from its place
    insertion_sort_desc(sorted);
    std::mem::swap(v, sorted);
}

/// Compare-exchange steps of a sorting network, in straight-line code: the
/// larger of each pair to the lower place (descending). Each step is a
/// comparison and two conditional moves, no branch.
macro_rules! network {
    ($a:ident; $(($i:literal, $j:literal)),* $(,)?) => {
        $(
            let (x, y) = ($a[$i], $a[$j]);
            $a[$i] = x.max(y);
            $a[$j] = x.min(y);
        )*
    };
}

/// Sort up to 8 entries descending with Batcher's odd-even merge network
/// (19 steps), in place: the places above `v.len()` padded with 0, which
/// sorts last and is cut off again (an entry equal to it is the same value,
/// so which copy is cut does not matter; padding in place, not copying the
/// entries into an array and back, keeps the two copies' `memmove` calls
/// out: 1 % of a k = 16 run). An insertion sort's comparisons here are coin
/// flips (ranks are scrambled): on the k = 16 DCTCP permutation 82 % of the
/// events are gathered into instants of 5 or more, half of them of 5–8 and
/// nearly all of at most 16.
#[inline(always)]
fn sort8_desc(v: &mut Vec<u64>) {
    sort_padded_desc::<8>(v, network8);
}

/// Batcher's network of [`sort8_desc`] on 8 entries in place.
#[inline(always)]
fn network8(a: &mut [u64; 8]) {
    network!(a; (0, 1), (2, 3), (0, 2), (1, 3), (1, 2), (4, 5), (6, 7), (4, 6), (5, 7), (5, 6),
        (0, 4), (2, 6), (2, 4), (1, 5), (3, 7), (3, 5), (1, 2), (3, 4), (5, 6));
}

/// `v` (at most `N` entries) padded with zeros to `N`, sorted by `network`,
/// cut back to its length.
#[inline(always)]
fn sort_padded_desc<const N: usize>(v: &mut Vec<u64>, network: impl FnOnce(&mut [u64; N])) {
    let n = v.len();
    debug_assert!(n <= N);
    v.resize(N, 0);
    network(v.as_mut_slice().try_into().expect("N entries"));
    v.truncate(n);
}

/// [`sort8_desc`] for up to 16 entries.
#[inline(never)]
fn sort16_desc(v: &mut Vec<u64>) {
    sort_padded_desc::<16>(v, network16);
}

/// Batcher's network on 16 entries in place (63 steps), out of line: a
/// sixth of k = 16's gathers and fewer of k = 8's take it.
#[inline(never)]
fn network16(a: &mut [u64; 16]) {
    network!(a; (0, 1), (2, 3), (0, 2), (1, 3), (1, 2), (4, 5), (6, 7), (4, 6), (5, 7), (5, 6),
    (0, 4), (2, 6), (2, 4), (1, 5), (3, 7), (3, 5), (1, 2), (3, 4), (5, 6), (8, 9), (10, 11),
    (8, 10), (9, 11), (9, 10), (12, 13), (14, 15), (12, 14), (13, 15), (13, 14), (8, 12),
    (10, 14), (10, 12), (9, 13), (11, 15), (11, 13), (9, 10), (11, 12), (13, 14), (0, 8),
    (4, 12), (4, 8), (2, 10), (6, 14), (6, 10), (2, 4), (6, 8), (10, 12), (1, 9), (5, 13),
    (5, 9), (3, 11), (7, 15), (7, 11), (3, 5), (7, 9), (11, 13), (1, 2), (3, 4), (5, 6), (7, 8),
    (9, 10), (11, 12), (13, 14));
}

/// Sort `v` descending by insertion: a nearly sorted list, or a short one
/// (the library's sort, called for an instant of a few events, cost more
/// in its set-up than in sorting).
#[inline(always)]
fn insertion_sort_desc(v: &mut [u64]) {
    for i in 1..v.len() {
        let k = v[i];
        let mut j = i;
        while j > 0 && v[j - 1] < k {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = k;
    }
}

/// Fewest entries [`sort_desc`] deals into buckets; shorter lists are
/// sorted by insertion in place (on the k = 32 DCTCP permutation,
/// instants of fewer than 32 events hold an eighth of the events
/// gathered).
const SMALL_SORT: usize = 24;

/// One pending event. `key` is the time in its high 64 bits and in its low
/// 64 the insertion number (first-in first-out: no two keys equal), so one
/// integer comparison orders a pop; with seeded ties, the event's rank
/// ([`Event::rank`], computed once, when it is scheduled), which a pop
/// compares within its instant. Packed to 4-byte alignment so a [`Node`]
/// is 32 bytes, two to a cache line (at 16-byte alignment it was 48, and every third node
/// straddled two lines).
#[derive(Clone, Copy, Debug)]
#[repr(C, packed(4))]
pub struct Entry {
    key: u128,
    ev: Event,
}

impl Entry {
    #[inline(always)]
    fn time(&self) -> u64 {
        (self.key >> 64) as u64
    }
}

/// A pending event's storage: its entry and the next node of its wheel
/// bucket (or of the free list).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
struct Node {
    e: Entry,
    next: u32,
}

const NIL: u32 = u32::MAX;
const _: () = assert!(std::mem::size_of::<Node>() == 32);

/// An overflow-heap entry: its node's key beside the node, so a sift
/// compares keys without loading four nodes per level (incasts keep a
/// heap of hundreds of retransmission timers, thousands of wake-ups per
/// query: the indirect loads were ≈ 400 instructions per event moved).
#[derive(Clone, Copy, Debug)]
#[repr(C, packed(4))]
struct Far {
    key: u128,
    n: u32,
}
const _: () = assert!(std::mem::size_of::<Far>() == 20);
/// Wheel size bounds (buckets, powers of two).
const MIN_BUCKETS: usize = 1024;
const MAX_BUCKETS: usize = 1 << 20;
/// Pops between two looks at the event density.
const TUNE_EVERY: u64 = 1 << 14;
/// List steps of inserts inside buckets that make the next pop re-tune.
const WALK_BUDGET: u64 = 1 << 14;
/// Fewest pops a density window needs before it is trusted.
const MIN_WINDOW: u64 = 64;
/// Wheel buckets per pending event. The wheel then reaches about
/// `SPAN` × the mean lead (how far ahead an event is scheduled: pending
/// events × the mean gap between pops, by Little's law), so nearly every
/// link event lands in it. With one bucket per pending event it reached
/// about the mean lead, short of a data packet's (serialization plus
/// delay, 8.2 µs at 10 Gbps with 9 KB packets, against 1 µs for an ACK):
/// on the k = 32 DCTCP permutation half of all events went through the
/// overflow heap (5.1 M of 10.6 M in 2 ms, 26 % of the time).
const SPAN: usize = 4;
/// Seeded ties: most events at one instant that a pop picks the least of
/// in the wheel's list, ranking them there, rather than gathering them
/// into a sorted buffer ([`EventQueue::pop_least_of_few`]). Since a short
/// instant is sorted by a network ([`sort8_desc`]), an instant of four
/// costs less gathered than selected (its 9 comparisons of nodes, each a
/// coin flip on scrambled ranks): k = 16 DCTCP permutation 2.5–5 % faster
/// on one thread, k = 8 about 1 %, `fattree_k8` +0.2 % instructions.
const SELECT_MAX: u32 = 3;
/// Seeded ties: most read-ahead nodes kept for a gather's prefetch (on
/// the k = 32 DCTCP permutation a quarter of the events gathered are in
/// instants of more than 64).
const TRAIL_MAX: usize = 256;
/// Overflow-heap fan-out.
const ARITY: usize = 4;
/// Buckets of the far wheel (a power of two), each half the near wheel's
/// reach wide: together they reach 128 near wheels ahead, past a TCP
/// retransmission timer and its first backoffs.
const FAR_BUCKETS: u64 = 256;
/// Longest far list moved into the wheel in the order scheduled when that
/// is not key order ([`EventQueue::move_far_list`]): the FaST incast's
/// lists hold dozens of timers (more than 32 often, at most 256), spread
/// over a far bucket's many buckets, and sorting them cost more than the
/// few steps they take (10.0 M → 5.5 M instructions of moves).
const FAR_SORT_ABOVE: usize = 256;

/// The pending events: a calendar wheel for the near future, a far wheel
/// of [`FAR_BUCKETS`] coarse buckets after it and a 4-ary heap for the
/// rest, popping in exact key order (time, then insertion number or rank).
///
/// The wheel covers `nb` buckets of `2^shift` ps from the bucket of the
/// clock; each bucket is a list of its events sorted by key (nearly always
/// appended at the tail: a new event has the largest insertion number), and
/// a bitmap finds the next non-empty bucket. It holds the events before
/// `front`, more than half and at most all of its buckets ahead. Later
/// events (retransmission timers, mostly) wait unsorted in the far wheel,
/// whose buckets are half the wheel's reach wide, and a far bucket moves
/// into the wheel whole when the clock comes within half a wheel of it;
/// events beyond the far wheel wait in the heap and move into the far
/// wheel when it reaches them. Every 2¹⁴ pops (sooner once
/// inserts inside buckets have walked 2¹⁴ list nodes: the buckets are too
/// wide for a burst after a quiet spell) the bucket width is set to the
/// mean gap between events and the wheel to [`SPAN`] buckets per pending
/// event, rebuilding it if either is off by more than 2×; the order of
/// events does not depend on these choices, so neither do results.
///
/// Why not the radix heap this replaced: nearly every event here is
/// scheduled a serialization time plus a link delay ahead (≈ 2²³ ps at
/// 10 Gbps with 9 KB packets), so a radix heap on picoseconds moved each
/// event through ≈ 4 buckets before it ran, ≈ 250 instructions per event
/// in all; a 4-ary heap cost more (≈ 340: a sift-down of depth
/// log₄(pending) per pop). Here an event is one list append and one unlink.
#[derive(Debug)]
pub struct EventQueue {
    shift: u32,
    /// Buckets − 1 (a power of two minus one).
    mask: u64,
    /// (head, tail) node of each bucket's list.
    lists: Vec<[u32; 2]>,
    /// Bit `b` set iff bucket `b` is non-empty.
    bits: Vec<u64>,
    /// Seeded ties: the events of the instant being run (`inst_t`) when
    /// more than one fell on it, by descending rank (the next at the end).
    /// The wheel keeps an instant's events together, in no particular
    /// order (each key's low half is its rank, computed once), so a pop
    /// that finds more than [`SELECT_MAX`] at its bucket's head gathers
    /// them here, sorted once; an event scheduled at the instant while it
    /// runs is inserted by rank. Smaller instants are ranked in the list
    /// ([`Self::pop_least_of_few`]), lone events not at all (most events
    /// share their instant: synchronized senders on equal links). Sorting
    /// whole
    /// buckets when the clock reached them instead walked each bucket
    /// twice more (k = 16 DCTCP permutation: +20 to +40 % time over
    /// first-in first-out), and keeping every bucket sorted by rank walked
    /// it on most inserts (+45 %). An entry is the event's rank, which
    /// names the event ([`Event::from_rank`]): the instant sorts as plain
    /// integers, and no second buffer of events is filled and read.
    inst: Vec<u64>,
    inst_t: u64,
    /// [`instant_word`] of `inst_t`.
    inst_h: u32,
    /// Seeded ties: the last wheel node the read-ahead prefetched (`NIL`:
    /// start at the wheel's head). An instant is gathered in one walk of
    /// its list, a chain of loads; walking it two nodes per event while the
    /// instant before runs has its nodes in cache when it is gathered
    /// (k = 32: the chain misses the cache). Two, so an instant larger than
    /// the one before is reached too: on the k = 32 DCTCP permutation 70 %
    /// of the nodes gathered had been prefetched at one node per event and
    /// at most 64 kept, 87 % at two and 256. A hint: a stale index costs
    /// time, never a result.
    ahead: u32,
    /// The nodes the read-ahead walked since it last started (at most
    /// [`TRAIL_MAX`]): prefetched again all at once when their instant is
    /// gathered, so its walk of the list finds each node in the first-level
    /// cache instead of waiting on one second-level hit after another.
    trail: Vec<u32>,
    /// Seeded ties: [`sort_desc`]'s scratch (an instant's entries by
    /// bucket, and the buckets' counts).
    sorted: Vec<u64>,
    counts: Vec<u32>,
    nodes: Vec<Node>,
    /// Free list through `Node::next`.
    free: u32,
    /// Absolute bucket number (time >> shift) of the clock: the wheel holds
    /// events of buckets `cur .. front`, and `front <= cur + buckets`.
    cur: u64,
    in_wheel: usize,
    /// Absolute bucket number where the far wheel begins: every event of
    /// an earlier bucket is in the (near) wheel, every later one in the far
    /// wheel or the heap. A multiple of half the wheel's buckets.
    front: u64,
    /// Far bucket number (time >> `far_shift`) of `front`.
    far_cur: u64,
    /// log2 of a far bucket's width in ps: `shift` plus log2(buckets) − 1,
    /// so a far bucket is half the wheel's reach.
    far_shift: u32,
    /// The clock's bucket number at which the next far bucket moves into
    /// the wheel (`front` minus a far bucket's width): one comparison per
    /// pop, as the heap's horizon check was.
    move_at: u64,
    /// The far wheel: [`FAR_BUCKETS`] lists (head, tail) of the events of
    /// far buckets `far_cur .. far_cur + FAR_BUCKETS`, each in the order
    /// scheduled; bit `i` of `far_bits` set iff list `i` is non-empty.
    /// A retransmission timer (an incast re-arms hundreds per query, each a
    /// wake-up 10 ms or more ahead) lands here with one append and moves
    /// into the wheel with one more link, where the heap cost a sift down
    /// and one up (≈ 430 instructions per wake-up on the FaST incast).
    far_lists: Vec<[u32; 2]>,
    far_bits: [u64; (FAR_BUCKETS / 64) as usize],
    far_len: usize,
    /// The node of the earliest far event (far wheel or heap), `NIL` when
    /// not known: a pop with the wheel empty reads it, and it holds until
    /// a far bucket or heap event moves into the wheel.
    far_first: u32,
    /// A far bucket's nodes while they move into the wheel (scratch).
    moving: Vec<u32>,
    /// Events beyond the far wheel: their nodes, as a 4-ary min-heap on key.
    overflow: Vec<Far>,
    /// Far bucket number of the overflow heap's first event (`u64::MAX`
    /// when empty).
    overflow_fb: u64,
    /// Insertion number of the next event scheduled (first-in first-out).
    seq: u64,
    /// Equal-time order by [`Event::rank`] salted with `salt` (the seed's),
    /// rather than first-in first-out.
    seeded: bool,
    salt: u64,
    now: SimTime,
    /// Key of the event [`Self::pop_before`] popped last.
    last_key: u128,
    processed: u64,
    next_tune: u64,
    /// Clock and pop count when the current density window began.
    tune_from: SimTime,
    tune_from_pops: u64,
    /// Time since then that the clock jumped over an empty wheel (every
    /// flow of an incast waiting on its retransmission timer, the gap
    /// between two queries): left out of the mean gap, which would
    /// otherwise fit the buckets to the idle spells and make them wide
    /// for the bursts, where most inserts then walked inside a bucket's
    /// list (the FaST incast: 161,550 of 421,521 events).
    idle: u64,
    /// List nodes walked past by inserts inside a bucket since then.
    walked: u64,
    /// Every list step inserts inside buckets took, same-instant ones
    /// included (a test's measure of the wheel's work).
    steps: u64,
    /// Events scheduled since the last look that fell just past the
    /// wheel (within one wheel's reach beyond `front`): a wheel that
    /// reaches too short a way sends them through the far wheel and back.
    near_far: u64,
    /// The fewest buckets the wheel keeps at this width: raised when too
    /// many events fell just past it ([`Self::tune`]).
    reach_buckets: usize,
    /// Every event scheduled beyond the wheel (a test's measure).
    far_scheduled: u64,
}

impl Default for EventQueue {
    fn default() -> Self {
        Self::with_wheel(13, MIN_BUCKETS)
    }
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }
    /// A queue whose equal-time order is by component, scrambled by
    /// `salt` (a run's seed, mixed): see [`Event::rank`].
    pub fn seeded(salt: u64) -> Self {
        EventQueue {
            seeded: true,
            salt,
            ..Self::default()
        }
    }
    fn with_wheel(shift: u32, buckets: usize) -> Self {
        let mut q = EventQueue {
            shift,
            mask: buckets as u64 - 1,
            lists: vec![[NIL; 2]; buckets],
            bits: vec![0; buckets / 64],
            inst: Vec::new(),
            inst_t: 0,
            inst_h: 0,
            ahead: NIL,
            trail: Vec::new(),
            sorted: Vec::new(),
            counts: Vec::new(),
            nodes: Vec::new(),
            free: NIL,
            cur: 0,
            in_wheel: 0,
            front: 0,
            far_cur: 0,
            far_shift: 0,
            move_at: 0,
            far_lists: vec![[NIL; 2]; FAR_BUCKETS as usize],
            far_bits: [0; (FAR_BUCKETS / 64) as usize],
            far_len: 0,
            far_first: NIL,
            moving: Vec::new(),
            overflow: Vec::new(),
            overflow_fb: u64::MAX,
            seq: 0,
            seeded: false,
            salt: 0,
            now: SimTime::ZERO,
            last_key: 0,
            processed: 0,
            next_tune: TUNE_EVERY,
            tune_from: SimTime::ZERO,
            tune_from_pops: 0,
            idle: 0,
            walked: 0,
            steps: 0,
            near_far: 0,
            reach_buckets: MIN_BUCKETS,
            far_scheduled: 0,
        };
        q.set_front();
        q
    }
    /// A far bucket's width in wheel buckets: half the wheel's.
    #[inline(always)]
    fn far_width(&self) -> u64 {
        (self.mask >> 1) + 1
    }
    /// Place the far wheel for the wheel's geometry and the clock: its
    /// first bucket the second whole one after the clock's, so the wheel
    /// reaches more than half its buckets ahead, and at most all of them.
    fn set_front(&mut self) {
        let half = self.far_width();
        self.far_shift = self.shift + half.trailing_zeros();
        self.far_cur = self.cur / half + 2;
        self.front = self.far_cur * half;
        self.move_at = self.front - half;
        self.far_first = NIL;
    }
    #[inline]
    pub fn now(&self) -> SimTime {
        self.now
    }
    /// Whether bucket number `bn` (≥ `cur`) lies within the wheel.
    #[inline(always)]
    fn in_horizon(&self, bn: u64) -> bool {
        bn < self.front
    }
    /// Schedule `ev` at absolute time `t`. Scheduling in the past is a bug.
    #[inline(always)]
    pub fn schedule(&mut self, t: SimTime, ev: Event) {
        debug_assert!(
            t >= self.now,
            "event scheduled in the past: {t} < {}",
            self.now
        );
        let low = if self.seeded {
            let rank = ev.rank(t.0, self.salt);
            if !self.inst.is_empty() && t.0 == self.inst_t {
                return self.inst_insert(rank);
            }
            rank
        } else {
            self.seq += 1;
            self.seq - 1
        };
        let e = Entry {
            key: (t.0 as u128) << 64 | low as u128,
            ev,
        };
        let n = self.alloc(e);
        if self.in_horizon(t.0 >> self.shift) {
            self.wheel_link(n, e.key);
        } else {
            self.far_schedule(n, t.0);
        }
    }
    /// [`Self::far_push`] for an event just scheduled at `t`, counting it
    /// when it falls within a wheel's reach of `front` (a longer wheel
    /// would have held it: [`Self::tune`]).
    #[cold]
    fn far_schedule(&mut self, n: u32, t: u64) {
        self.near_far += ((t >> self.far_shift) - self.far_cur < 2) as u64;
        self.far_scheduled += 1;
        self.far_push(n);
    }
    /// Put node `n`, beyond the wheel, in the far wheel if it reaches it,
    /// else in the heap.
    #[cold]
    fn far_push(&mut self, n: u32) {
        let key = self.key(n);
        let fb = (key >> 64) as u64 >> self.far_shift;
        if fb - self.far_cur < FAR_BUCKETS {
            let i = (fb & (FAR_BUCKETS - 1)) as usize;
            let [head, tail] = self.far_lists[i];
            if head == NIL {
                self.far_lists[i] = [n, n];
                self.far_bits[i >> 6] |= 1 << (i & 63);
            } else {
                self.nodes[tail as usize].next = n;
                self.far_lists[i][1] = n;
            }
            self.far_len += 1;
        } else {
            self.overflow_push(n);
        }
        if self.far_first != NIL && key < self.key(self.far_first) {
            self.far_first = n;
        }
    }
    /// A node holding `e`, from the free list if it has one.
    #[inline(always)]
    fn alloc(&mut self, e: Entry) -> u32 {
        if self.free != NIL {
            let n = self.free;
            self.free = self.nodes[n as usize].next;
            self.nodes[n as usize] = Node { e, next: NIL };
            n
        } else {
            self.nodes.push(Node { e, next: NIL });
            (self.nodes.len() - 1) as u32
        }
    }
    /// Link node `n` (key `key`, next = NIL) into its bucket, keeping the
    /// bucket sorted by key (an equal key goes after its equals); with
    /// seeded ties, by time only: an event of the tail's instant is
    /// appended whatever its rank, as a pop ranks its instant's events
    /// itself ([`Self::pop_least_of_few`], [`Self::gather`]), and an
    /// insertion by rank would walk the instant on most inserts. The
    /// common cases (an empty bucket, or a key at or after the tail's) are
    /// inlined; an insertion inside a list is not.
    #[inline(always)]
    fn wheel_link(&mut self, n: u32, key: u128) {
        self.in_wheel += 1;
        let b = (((key >> 64) as u64 >> self.shift) & self.mask) as usize;
        let [head, tail] = self.lists[b];
        if head == NIL {
            self.lists[b] = [n, n];
            self.bits[b >> 6] |= 1 << (b & 63);
            return;
        }
        let tail_key = self.nodes[tail as usize].e.key;
        // seeded: by time alone (an event of the tail's instant is
        // appended whatever its rank), one comparison of the high halves;
        // the full key's compare, true or false by the ranks' scramble,
        // was mispredicted half the time (k = 16: 3.4 M of 48.8 M)
        let append = if self.seeded {
            (tail_key >> 64) <= (key >> 64)
        } else {
            tail_key <= key
        };
        if append {
            self.nodes[tail as usize].next = n;
            self.lists[b][1] = n;
        } else {
            self.wheel_insert_inside(b, n, key);
        }
    }
    #[inline(never)]
    fn wheel_insert_inside(&mut self, b: usize, n: u32, key: u128) {
        let head = self.lists[b][0];
        if key < self.nodes[head as usize].e.key {
            self.nodes[n as usize].next = head;
            self.lists[b][0] = n;
            return;
        }
        // between head and tail: the tail's key is larger (an equal one
        // took the append path)
        self.link_after(head, n, key);
        // Buckets far wider than the gaps between events (the width was
        // fitted to a quiet spell, and a burst followed): look at the
        // density again at the next pop instead of up to 2^14 pops later.
        if self.walked > WALK_BUDGET {
            self.next_tune = self.processed;
        }
    }
    /// Link node `n` (key `key`) after `p` or further down `p`'s list:
    /// `p`'s key is below `key` and the list's tail's above, so the walk
    /// stops before the end.
    #[inline(always)]
    fn link_after(&mut self, mut p: u32, n: u32, key: u128) {
        loop {
            let next = self.nodes[p as usize].next;
            if key < self.nodes[next as usize].e.key {
                self.nodes[n as usize].next = next;
                self.nodes[p as usize].next = n;
                return;
            }
            p = next;
            self.steps += 1;
            // Only a step past an earlier instant says the bucket is too
            // wide: no width separates one instant's events.
            self.walked += ((self.nodes[p as usize].e.key ^ key) >> 64 != 0) as u64;
        }
    }
    /// Seeded ties: an event of rank `k` scheduled at the instant being
    /// run joins its events by rank.
    #[inline(never)]
    fn inst_insert(&mut self, k: u64) {
        // descending: the entries before `at` rank above `k` (an equal
        // rank is an equal event, so either side of it will do)
        let at = self.inst.partition_point(|&x| x > k);
        self.inst.insert(at, k);
    }
    /// The event entry `k` of the instant's buffer names.
    #[inline(always)]
    fn event_of(&self, k: u64) -> Event {
        Event::from_rank(k, self.inst_h)
    }
    /// The link of the arrival entry `k` names, if it names one: a peek's
    /// decoding, without [`Event::from_rank`]'s match over every kind (the
    /// read-ahead peeks at one to three entries per event).
    #[inline(always)]
    fn arrival_of(&self, k: u64) -> Option<u32> {
        // an arrival's kind, the rank's top bits, is 0 ([`Event::rank_in`])
        (k >> 61 == 0).then(|| ((k >> TAG_BITS) as u32).wrapping_mul(UNSCRAMBLE) ^ self.inst_h)
    }
    /// The read-ahead starts again from the wheel's head: the instant it
    /// walked is gone (a lone event popped, no instant gathered).
    #[inline(always)]
    fn restart_walk(&mut self) {
        self.ahead = NIL;
        self.trail.clear();
    }
    /// Seeded ties: move the events at time `t` (more than one, at the
    /// head of bucket `b`'s list) into the instant's buffer, by rank.
    #[inline(never)]
    fn gather(&mut self, b: usize, t: u64) {
        debug_assert!(self.inst.is_empty());
        for &x in &self.trail {
            crate::sim::prefetch::prefetch_at(&self.nodes, x as usize);
        }
        self.trail.clear();
        let mut n = self.lists[b][0];
        // the walk's state in registers, not in `self` (each field written
        // back per node was 4 of the walk's ≈ 12 instructions per event);
        // `get_mut` ends it at NIL (past any index) with no second test.
        // The first 16 entries go to a buffer on the stack, zeros after
        // them, sorted there by a network and copied to the instant's
        // buffer at once: pushed one by one and padded in place there,
        // the pushes, the padding's `memset` and the cut were a third of a
        // gather (k = 16 DCTCP permutation: 8.4 entries a gather).
        let mut free = self.free;
        let mut buf = [0u64; 16];
        let mut len = 0;
        while let Some(node) = self.nodes.get_mut(n as usize) {
            if node.e.time() != t || len == buf.len() {
                break;
            }
            // a seeded key's low half is the event's rank
            buf[len] = node.e.key as u64;
            len += 1;
            let next = node.next;
            node.next = free;
            free = n;
            n = next;
        }
        let more = len == buf.len() && self.nodes.get(n as usize).is_some_and(|x| x.e.time() == t);
        if !more {
            if len <= 8 {
                network8(buf.first_chunk_mut().expect("8 of 16"));
            } else {
                network16(&mut buf);
            }
            self.inst.extend_from_slice(&buf[..len]);
        } else {
            (n, free) = self.gather_more(n, free, t, &buf);
        }
        self.free = free;
        self.in_wheel -= self.inst.len();
        self.lists[b][0] = n;
        if n == NIL {
            self.bits[b >> 6] &= !(1 << (b & 63));
        }
        self.inst_t = t;
        self.inst_h = instant_word(t, self.salt);
        self.ahead = n;
    }
    /// [`Self::gather`] of an instant of more than 16 (k = 32's hold 46–50
    /// on average): the buffer's 16 entries, then the rest of the walk from
    /// node `n` (free list `free`), into the instant's buffer, sorted there.
    /// Out of line, so the common instant's walk and network keep their
    /// registers (inlined, it cost k = 32's gathers 9 % more instructions).
    /// Returns the walk's end and the free list.
    #[inline(never)]
    fn gather_more(&mut self, mut n: u32, mut free: u32, t: u64, first: &[u64; 16]) -> (u32, u32) {
        self.inst.extend_from_slice(first);
        while let Some(node) = self.nodes.get_mut(n as usize) {
            if node.e.time() != t {
                break;
            }
            self.inst.push(node.e.key as u64);
            let next = node.next;
            node.next = free;
            free = n;
            n = next;
        }
        // descending, the next event last (with this walk, an insertion
        // by rank as the list was walked and a sort of (rank, event) pairs
        // past 32 events took 16 % of a k = 32 run, whose instants hold 46
        // events on average; the library's sort of plain integers, 10.5 %;
        // this, 7.8 %)
        sort_desc(&mut self.inst, &mut self.sorted, &mut self.counts);
        (n, free)
    }
    /// Seeded ties: the smallest rank among the events at time `t`, the
    /// earliest pending (nothing gathered): walked, not moved, because an
    /// event may still be scheduled before `t` ([`Self::next_key`]).
    #[cold]
    fn least_rank_at(&mut self, t: u64) -> u64 {
        let rank = |q: &Self, n: u32| q.nodes[n as usize].e.key as u64;
        let mut least = u64::MAX;
        if self.in_wheel > 0 {
            let b = self.next_bucket((self.cur & self.mask) as usize);
            let mut n = self.lists[b][0];
            while n != NIL && self.nodes[n as usize].e.time() == t {
                least = least.min(rank(self, n));
                n = self.nodes[n as usize].next;
            }
            return least;
        }
        if self.far_len > 0 {
            // the far wheel's first list holds the earliest far events
            let mut n = self.far_lists[self.first_far_list()][0];
            while n != NIL {
                if self.nodes[n as usize].e.time() == t {
                    least = least.min(rank(self, n));
                }
                n = self.nodes[n as usize].next;
            }
            return least;
        }
        // In the heap, the events at the earliest time form a subtree at
        // its root (a parent's key is at most its children's).
        let mut stack = vec![0usize];
        while let Some(i) = stack.pop() {
            let n = self.overflow[i].n;
            if self.nodes[n as usize].e.time() != t {
                continue;
            }
            least = least.min(rank(self, n));
            stack.extend(
                (ARITY * i + 1..ARITY * i + 1 + ARITY).filter(|&c| c < self.overflow.len()),
            );
        }
        least
    }
    /// The far wheel's first non-empty list (it must hold an event).
    fn first_far_list(&self) -> usize {
        (0..FAR_BUCKETS)
            .map(|d| ((self.far_cur + d) & (FAR_BUCKETS - 1)) as usize)
            .find(|&i| self.far_bits[i >> 6] & (1 << (i & 63)) != 0)
            .expect("a far event")
    }
    /// The node of the earliest event beyond the wheel, if any (known
    /// since the last move, or found: the least key of the far wheel's
    /// first list, or the heap's first).
    fn far_first(&mut self) -> Option<u32> {
        if self.far_first == NIL {
            self.far_first = if self.far_len > 0 {
                let mut n = self.far_lists[self.first_far_list()][0];
                let mut best = n;
                while n != NIL {
                    if self.key(n) < self.key(best) {
                        best = n;
                    }
                    n = self.nodes[n as usize].next;
                }
                best
            } else {
                self.overflow.first()?.n
            };
        }
        Some(self.far_first)
    }
    /// The clock has reached `move_at`: move far buckets into the wheel
    /// until the far wheel begins more than half the wheel's buckets
    /// ahead, and what the far wheel then reaches out of the heap. A far
    /// bucket's events, in the order scheduled, are sorted by key first
    /// when they are not in order, so each is appended at its bucket's
    /// tail (the wheel holds nothing at or after `front`): an instant of
    /// m events costs m links, not m²/2 steps.
    #[cold]
    fn advance_front(&mut self) {
        let half = self.far_width();
        let target = self.cur / half + 2;
        self.far_first = NIL;
        while self.far_cur < target {
            if self.far_len == 0 {
                // an empty far wheel: on to the target, or to where the
                // heap's first event enters the far wheel
                let to = target.min(self.overflow_fb.saturating_sub(FAR_BUCKETS - 1));
                if to > self.far_cur {
                    self.far_cur = to;
                    self.refill_far();
                    continue;
                }
            }
            let i = (self.far_cur & (FAR_BUCKETS - 1)) as usize;
            if self.far_bits[i >> 6] & (1 << (i & 63)) != 0 {
                self.move_far_list(i);
            }
            self.far_cur += 1;
            // the list just emptied now stands for the far wheel's last bucket
            self.refill_far();
        }
        self.front = self.far_cur * half;
        self.move_at = self.front - half;
    }
    /// Move what the far wheel now reaches out of the heap, in key order
    /// (into the wheel what lies before the far wheel's first bucket).
    fn refill_far(&mut self) {
        while self.overflow_fb < self.far_cur + FAR_BUCKETS {
            let n = self.overflow_pop();
            self.nodes[n as usize].next = NIL;
            self.far_push_moved(n);
        }
    }
    /// Move far list `i` (its bucket now below `front`'s) into the wheel:
    /// in the order scheduled when that is key order or the list is short
    /// (timers: the wheel's buckets there are empty and narrow, so an
    /// insertion out of order steps past few nodes), else sorted by key
    /// first, so a long list (instants of thousands of events) is
    /// appended, not walked m²/2 steps.
    fn move_far_list(&mut self, i: usize) {
        let head = self.far_lists[i][0];
        let (mut len, mut sorted) = (0, true);
        let mut n = head;
        while n != NIL {
            let next = self.nodes[n as usize].next;
            sorted &= next == NIL || self.key(n) <= self.key(next);
            len += 1;
            n = next;
        }
        self.far_lists[i] = [NIL; 2];
        self.far_bits[i >> 6] &= !(1 << (i & 63));
        self.far_len -= len;
        if sorted || len <= FAR_SORT_ABOVE {
            let mut n = head;
            while n != NIL {
                let next = self.nodes[n as usize].next;
                self.relink(n);
                n = next;
            }
            return;
        }
        let mut moving = std::mem::take(&mut self.moving);
        moving.clear();
        let mut n = head;
        while n != NIL {
            moving.push(n);
            n = self.nodes[n as usize].next;
        }
        let nodes = &self.nodes;
        moving.sort_unstable_by_key(|&n| nodes[n as usize].e.key);
        for &n in &moving {
            self.relink(n);
        }
        self.moving = moving;
    }
    /// Place node `n` out of the heap (in key order): in the wheel if the
    /// far wheel's front passed it, else at its far list's tail.
    fn far_push_moved(&mut self, n: u32) {
        if (self.key(n) >> 64) as u64 >> self.far_shift < self.far_cur {
            self.relink(n);
        } else {
            self.far_push(n);
        }
    }
    /// Link a node that was in the overflow heap (or the old wheel).
    fn relink(&mut self, n: u32) {
        self.nodes[n as usize].next = NIL;
        let key = self.nodes[n as usize].e.key;
        self.wheel_link(n, key);
    }
    /// The first non-empty bucket at or after `idx`, going round the wheel
    /// (the wheel must hold an event).
    #[inline]
    fn next_bucket(&self, idx: usize) -> usize {
        let words = self.bits.len();
        let w = idx >> 6;
        let first = self.bits[w] & (!0u64 << (idx & 63));
        if first != 0 {
            return (w << 6) + first.trailing_zeros() as usize;
        }
        // bits of word `w` below `idx` are the wheel's last buckets: the
        // scan ends on them
        for i in 1..=words {
            let w2 = (w + i) & (words - 1);
            let word = self.bits[w2];
            if word != 0 {
                return (w2 << 6) + word.trailing_zeros() as usize;
            }
        }
        unreachable!("next_bucket on an empty wheel")
    }
    /// Pop the next event, advancing the clock, unless it lies beyond `limit`.
    /// Always inlined: the event loop's hot path (the compiler stopped
    /// inlining it once a partitioned run's `pop_before` called it too,
    /// +4 to +6 % per event).
    #[inline(always)]
    pub fn pop_until(&mut self, limit: SimTime) -> Option<Event> {
        if self.seeded {
            self.pop_seeded(limit)
        } else {
            self.pop_fifo(limit)
        }
    }
    /// [`Self::pop_until`] for a queue known to be seeded (`SEEDED`) or
    /// not: the event loop is compiled once for each order, so neither
    /// carries the other's branches and calls ([`Self::is_seeded`]).
    #[inline(always)]
    pub fn pop_until_in<const SEEDED: bool>(&mut self, limit: SimTime) -> Option<Event> {
        debug_assert_eq!(SEEDED, self.seeded);
        if SEEDED {
            self.pop_seeded(limit)
        } else {
            self.pop_fifo(limit)
        }
    }
    /// Whether equal-time events run in the seeded order.
    pub fn is_seeded(&self) -> bool {
        self.seeded
    }
    #[inline(always)]
    fn pop_fifo(&mut self, limit: SimTime) -> Option<Event> {
        let (b, h, node) = self.head(limit)?;
        Some(self.take_head(b, h, node))
    }
    /// [`Self::pop_until`] with seeded ties: an instant's events by rank.
    #[inline(always)]
    fn pop_seeded(&mut self, limit: SimTime) -> Option<Event> {
        if self.inst.is_empty() {
            let (b, h, node) = self.head(limit)?;
            let t = node.e.time();
            let tie = node.next != NIL && self.nodes[node.next as usize].e.time() == t;
            if !tie {
                self.restart_walk();
                return Some(self.take_head(b, h, node));
            }
            if let Some(ev) = self.pop_least_of_few(b, h, node, t) {
                return Some(ev);
            }
            self.gather(b, t);
            // the clock moves to the instant once; its pops leave it there
            // (a re-tune between them sets `cur` from `now`)
            self.advance_to(t);
        } else if self.inst_t > limit.0 {
            return None;
        }
        let k = self.inst.pop().expect("an instant's event");
        let ev = self.event_of(k);
        debug_assert_eq!(self.now.0, self.inst_t);
        self.count_pop();
        Some(ev)
    }
    /// Seeded ties: when at most [`SELECT_MAX`] events (more than one) fall
    /// on time `t` at the head of bucket `b`'s list (head `h`, `node`),
    /// return the one of least rank (the low half of its key), leaving the
    /// others there ([`Self::take_least`]); `None` (nothing moved) when more do, for
    /// [`Self::gather`]. The next pop compares the rest again: an instant
    /// of m events costs m(m + 1)/2 − 1 comparisons of nodes read anyway,
    /// against a gather's call, buffer and sort (in the k = 8 fat-tree and
    /// DCTCP permutation benches 21 % and 40 % of events are alone at
    /// their instant, and the rest share it with 1.7 others on average).
    /// The order is the same: each pop takes the least (time, rank)
    /// pending.
    #[inline(always)]
    fn pop_least_of_few(&mut self, b: usize, h: u32, node: Node, t: u64) -> Option<Event> {
        let (best, _) = self.least_of_few(h, node, t)?;
        self.restart_walk();
        Some(self.take_least(b, h, node, best))
    }
    /// [`Self::pop_least_of_few`]'s search alone: the node holding the
    /// least-ranked of the few events at `t` and its rank, or `None` when
    /// more than [`SELECT_MAX`] fall on `t`. Ranks are scrambled, so which
    /// node wins is a coin flip: the choice is kept in selects, not
    /// branches.
    #[inline(always)]
    fn least_of_few(&self, h: u32, node: Node, t: u64) -> Option<(u32, u64)> {
        let mut best = node.e.key as u64;
        let mut best_n = h;
        let mut n = node.next;
        let mut seen = 1;
        loop {
            let here = &self.nodes[n as usize];
            let r = here.e.key as u64;
            let less = r < best;
            best_n = if less { n } else { best_n };
            best = best.min(r);
            seen += 1;
            let next = here.next;
            if next == NIL || self.nodes[next as usize].e.time() != t {
                break;
            }
            if seen == SELECT_MAX {
                return None;
            }
            n = next;
        }
        Some((best_n, best))
    }
    /// Take the event in node `best` of the few at the head `h` (`node`)
    /// of bucket `b` ([`Self::least_of_few`]'s): the head's entry moves
    /// into `best`'s node and the head is unlinked, as every pop of a lone
    /// event unlinks it. The instant's other events stay in the list in
    /// another order, which no pop reads: each compares them all again
    /// (or a gather sorts them), so the order of pops is the same. No
    /// branch on whether the head won (half the time, with two events).
    #[inline(always)]
    fn take_least(&mut self, b: usize, h: u32, node: Node, best: u32) -> Event {
        let won = self.nodes[best as usize].e;
        self.nodes[best as usize].e = node.e;
        self.take_head(b, h, node);
        won.ev
    }
    /// The bucket, node index and node of the next wheel event, unless it
    /// lies beyond `limit` (first moving what the horizon reaches out of
    /// the overflow heap, and jumping the wheel to the heap's first event
    /// when the wheel is empty).
    #[inline(always)]
    fn head(&mut self, limit: SimTime) -> Option<(usize, u32, Node)> {
        loop {
            // Move the far buckets the clock now nears into the wheel; the
            // far wheel and the heap then hold only later events.
            if self.move_at <= self.cur {
                self.advance_front();
            }
            if self.in_wheel == 0 {
                let first = self.far_first()?;
                let t = self.nodes[first as usize].e.time();
                if t > limit.0 {
                    return None;
                }
                // jump the wheel to the next event; nothing pending is
                // earlier, and the clock moves there on this pop
                self.idle += t.saturating_sub(self.now.0);
                self.cur = t >> self.shift;
                continue;
            }
            let b = self.next_bucket((self.cur & self.mask) as usize);
            let h = self.lists[b][0];
            let node = self.nodes[h as usize];
            if node.e.time() > limit.0 {
                return None;
            }
            return Some((b, h, node));
        }
    }
    /// Unlink the head `h` (`node`) of bucket `b` and advance the clock to it.
    #[inline(always)]
    fn take_head(&mut self, b: usize, h: u32, node: Node) -> Event {
        let t = node.e.time();
        self.lists[b][0] = node.next;
        if node.next == NIL {
            self.bits[b >> 6] &= !(1 << (b & 63));
        }
        self.retire(h, t);
        node.e.ev
    }
    /// Free wheel node `n`, unlinked from its list, and advance the clock
    /// to its time `t`.
    #[inline(always)]
    fn retire(&mut self, n: u32, t: u64) {
        self.nodes[n as usize].next = self.free;
        self.free = n;
        self.in_wheel -= 1;
        self.cur = t >> self.shift;
        self.now = SimTime(t);
        self.count_pop();
    }
    /// Move the clock to time `t`.
    #[inline(always)]
    fn advance_to(&mut self, t: u64) {
        self.cur = t >> self.shift;
        self.now = SimTime(t);
    }
    #[inline(always)]
    fn count_pop(&mut self) {
        self.processed += 1;
        if self.processed >= self.next_tune {
            self.tune();
        }
    }
    /// Pop the next event if its key is below `limit` (a time in the high
    /// 64 bits, a rank in the low: [`Event::rank`]), advancing the clock: a
    /// partition's window ends at a time, and a run's last instant at the
    /// key of the event that finished its last app ([`crate::parallel`]).
    ///
    /// Nothing may be scheduled before `limit`'s time afterwards (a
    /// window's end: handed-over packets arrive at or after it), so an
    /// instant at that time can be gathered here even when its first event
    /// stays queued, unlike in [`Self::next_key`], which walks it instead.
    #[inline]
    pub fn pop_before(&mut self, limit: u128) -> Option<Event> {
        if self.inst.is_empty() {
            let (b, h, node) = self.head(SimTime((limit >> 64) as u64))?;
            let t = node.e.time();
            let tie =
                self.seeded && node.next != NIL && self.nodes[node.next as usize].e.time() == t;
            if !tie {
                let key = node.e.key;
                if key >= limit {
                    return None;
                }
                // only a partitioned run asks for the key (pop_until does
                // not keep it: a store per event on one thread's path)
                self.last_key = key;
                self.restart_walk();
                return Some(self.take_head(b, h, node));
            }
            // a few at the instant: the least-ranked, as pop_until takes
            // it (a gather for every tie cost a k = 8 partition 3 % more
            // instructions than one thread's run)
            if let Some((best, r)) = self.least_of_few(h, node, t) {
                let key = (t as u128) << 64 | r as u128;
                if key >= limit {
                    return None;
                }
                self.last_key = key;
                self.restart_walk();
                return Some(self.take_least(b, h, node, best));
            }
            self.gather(b, t);
        }
        let r = *self.inst.last().expect("an instant's event");
        let key = (self.inst_t as u128) << 64 | r as u128;
        if key >= limit {
            return None;
        }
        self.last_key = key;
        // the instant may have been gathered by a call that then popped
        // nothing (its first key at or past that window's end)
        self.advance_to(self.inst_t);
        self.pop_seeded(SimTime(u64::MAX))
    }
    /// The key of the next event, if any (moves what the horizon reaches
    /// into the wheel first, as a pop would; pops nothing, and leaves the
    /// wheel where the clock is: an event may still be scheduled before
    /// the next one, a packet handed over at a window's end).
    pub fn next_key(&mut self) -> Option<u128> {
        if let Some(&k) = self.inst.last() {
            return Some((self.inst_t as u128) << 64 | k as u128);
        }
        if self.move_at <= self.cur {
            self.advance_front();
        }
        let first = if self.in_wheel == 0 {
            // the far wheel and the heap hold only later events
            let n = self.far_first()?;
            self.nodes[n as usize]
        } else {
            let b = self.next_bucket((self.cur & self.mask) as usize);
            self.nodes[self.lists[b][0] as usize]
        };
        if !self.seeded {
            return Some(first.e.key);
        }
        let t = first.e.time();
        Some((t as u128) << 64 | self.least_rank_at(t) as u128)
    }
    /// The key of the event [`Self::pop_before`] popped last.
    pub fn last_key(&self) -> u128 {
        self.last_key
    }
    /// The key an event `ev` at `t` has in this queue (seeded ties only:
    /// a first-in first-out key depends on when it was scheduled).
    pub fn key_of(&self, t: SimTime, ev: Event) -> u128 {
        debug_assert!(self.seeded, "a FIFO key is its insertion number");
        (t.0 as u128) << 64 | ev.rank(t.0, self.salt) as u128
    }
    /// Set the clock and the count of events processed: a partitioned
    /// run's merged world reads the run's end and its events here.
    pub fn set_end(&mut self, now: SimTime, last_key: u128, processed: u64) {
        self.now = now;
        self.last_key = last_key;
        self.processed = processed;
    }
    /// Fit the bucket width to the mean gap between the events popped
    /// since the last look (at least 64) and the wheel to the pending
    /// events ([`SPAN`] buckets each, rounded up to a power of two);
    /// rebuild if either is off by more than a factor of two.
    #[cold]
    fn tune(&mut self) {
        let pops = self.processed - self.tune_from_pops;
        if pops < MIN_WINDOW {
            self.next_tune = self.tune_from_pops + MIN_WINDOW;
            return;
        }
        self.next_tune = self.processed + TUNE_EVERY;
        if self.now == self.tune_from {
            // Every pop since the last look ran at one instant (a k = 64
            // permutation's lockstep hosts fill instants of 65,536
            // events): no gap to measure. A width fitted to zero (1 ps
            // buckets, a wheel reaching 1 µs) sent every event through
            // the heap and re-built the wheel at every look; keep
            // counting pops until the clock moves.
            self.walked = 0;
            return;
        }
        let elapsed = self.now.0 - self.tune_from.0;
        let busy = match elapsed.saturating_sub(self.idle) {
            0 => elapsed,
            b => b,
        };
        let gap = busy / pops;
        self.idle = 0;
        self.tune_from = self.now;
        self.tune_from_pops = self.processed;
        self.walked = 0;
        let near_far = std::mem::take(&mut self.near_far);
        let shift = 63 - gap.max(1).leading_zeros();
        let pending = self.pending();
        let have = self.lists.len();
        // Reach as well as density: SPAN buckets per pending event can
        // reach less far than the events are scheduled. A partition of a
        // k = 8 fat-tree holds ≈ 330 events, 1,024 buckets of 8 ns whose
        // far wheel began 4–8 µs ahead, while a 9 KB packet's arrival is
        // 8.2 µs ahead at 10 Gbps: 40 % of its events went through the far
        // wheel and back (≈ 5 % of its instructions). When more than an
        // eighth of the events since the last look fell within a reach
        // past the wheel, it doubles, and keeps that length at this width.
        if shift.abs_diff(self.shift) > 1 {
            self.reach_buckets = MIN_BUCKETS;
        }
        // never past the buckets the memory bound allows (bound_bytes: two
        // SPANs a pending event), a power of two
        let cap = (2 * SPAN * pending).clamp(MIN_BUCKETS, MAX_BUCKETS);
        let cap = 1usize << (usize::BITS - 1 - cap.leading_zeros());
        let short = near_far * 8 > pops && 2 * have <= cap;
        if short {
            self.reach_buckets = self.reach_buckets.max(2 * have);
        }
        let buckets = (SPAN * pending)
            .next_power_of_two()
            .clamp(self.reach_buckets.min(cap), MAX_BUCKETS);
        if !short && shift.abs_diff(self.shift) <= 1 && buckets <= 2 * have && 2 * buckets >= have {
            return;
        }
        // Relink the same nodes into the new wheel, in key order, so each
        // is appended at its bucket's tail (or pushed on the heap at a
        // leaf): in the heap's order, each of an instant's events walked
        // its bucket's list from the head past the instant's others, and
        // a rebuild with 65,536 events at one instant took seconds. The
        // wheel's buckets from the clock's on hold its events in key
        // order, all before the far wheel's and the heap's (sorted here);
        // the only extra memory is a list of their indices.
        let mut all: Vec<u32> = Vec::with_capacity(pending);
        let first = (self.cur & self.mask) as usize;
        for i in 0..self.lists.len() {
            let b = (first + i) & self.mask as usize;
            if self.bits[b >> 6] & (1 << (b & 63)) == 0 {
                continue;
            }
            let mut n = self.lists[b][0];
            while n != NIL {
                all.push(n);
                n = self.nodes[n as usize].next;
            }
        }
        let from_heap = all.len();
        for i in 0..FAR_BUCKETS as usize {
            let mut n = self.far_lists[i][0];
            while n != NIL {
                all.push(n);
                n = self.nodes[n as usize].next;
            }
        }
        all.extend(self.overflow.iter().map(|f| f.n));
        let nodes = &self.nodes;
        all[from_heap..].sort_unstable_by_key(|&n| nodes[n as usize].e.key);
        // (seeded: an instant's events lie in any order, see wheel_link)
        debug_assert!(all.windows(2).all(|p| if self.seeded {
            self.key(p[0]) >> 64 <= self.key(p[1]) >> 64
        } else {
            self.key(p[0]) < self.key(p[1])
        }));
        self.overflow.clear();
        self.overflow_fb = u64::MAX;
        self.far_lists.fill([NIL; 2]);
        self.far_bits = [0; (FAR_BUCKETS / 64) as usize];
        self.far_len = 0;
        self.in_wheel = 0;
        self.shift = shift;
        self.mask = buckets as u64 - 1;
        self.lists = vec![[NIL; 2]; buckets];
        self.bits = vec![0; buckets / 64];
        self.cur = self.now.0 >> shift;
        self.set_front();
        for n in all {
            if self.in_horizon(self.nodes[n as usize].e.time() >> shift) {
                self.relink(n);
            } else {
                self.nodes[n as usize].next = NIL;
                self.far_push(n);
            }
        }
    }
    #[inline(always)]
    fn key(&self, n: u32) -> u128 {
        self.nodes[n as usize].e.key
    }
    fn overflow_push(&mut self, n: u32) {
        let key = self.key(n);
        let heap = &mut self.overflow;
        let mut i = heap.len();
        heap.push(Far { key, n });
        while i > 0 {
            let p = (i - 1) / ARITY;
            let parent = heap[p];
            if { parent.key } < key {
                break;
            }
            heap[i] = parent;
            i = p;
        }
        heap[i] = Far { key, n };
        self.overflow_fb = self.overflow_top_fb();
    }
    fn overflow_top_fb(&self) -> u64 {
        self.overflow
            .first()
            .map_or(u64::MAX, |f| (f.key >> 64) as u64 >> self.far_shift)
    }
    fn overflow_pop(&mut self) -> u32 {
        let heap = &mut self.overflow;
        let top = heap[0].n;
        let last = heap.pop().expect("non-empty");
        let n = heap.len();
        if n == 0 {
            self.overflow_fb = u64::MAX;
            return top;
        }
        let key = last.key;
        let mut i = 0;
        loop {
            let c = ARITY * i + 1;
            if c >= n {
                break;
            }
            let kids = &heap[c..n.min(c + ARITY)];
            let mut m = 0;
            let mut least = kids[0].key;
            for (j, f) in kids.iter().enumerate().skip(1) {
                let k = f.key;
                if k < least {
                    (m, least) = (j, k);
                }
            }
            if key < least {
                break;
            }
            heap[i] = kids[m];
            i = c + m;
        }
        heap[i] = last;
        self.overflow_fb = self.overflow_top_fb();
        top
    }
    /// The link of the next event if it is a packet's arrival: the world
    /// reads that link's state early, so its cache misses overlap the
    /// current event's work. Also prefetches the node of the event after
    /// it, so the next peek does not begin with a miss.
    ///
    /// With seeded ties an instant's events are named in rank order once
    /// gathered; before that, in the order they were scheduled: the same
    /// events, so the hints still fall on lines about to be read.
    #[inline(always)]
    pub fn peek_arrive_in<const SEEDED: bool>(&mut self) -> Option<u32> {
        if SEEDED && !self.inst.is_empty() {
            return self.peek_arrive_inst();
        }
        if self.in_wheel == 0 {
            return None;
        }
        let b = self.next_bucket((self.cur & self.mask) as usize);
        let h = self.lists[b][0];
        let node = &self.nodes[h as usize];
        // The node after it, when in the same bucket; else the head again
        // (in cache: a wasted hint). Finding the next bucket's head for
        // the hint took a branch as often taken as not (a bucket's last
        // event), mispredicted 39 % of the time, and its search: the next
        // peek hints that node an event later instead.
        let n2 = if node.next != NIL { node.next } else { h };
        crate::sim::prefetch::prefetch_at(&self.nodes, n2 as usize);
        match node.e.ev {
            Event::Arrive(l) => Some(l),
            _ => None,
        }
    }

    /// The links of the next three events (`u32::MAX` where there is no
    /// such event or it is not an arrival), for a read-ahead staged over
    /// three events; prefetches the node of the fourth. Each node is then
    /// read an event after its prefetch.
    #[inline(always)]
    pub fn peek_arrivals_in<const SEEDED: bool>(&mut self) -> [u32; 3] {
        if SEEDED && !self.inst.is_empty() {
            return self.peek_arrivals_inst();
        }
        self.peek_arrivals_wheel()
    }
    #[inline(always)]
    fn peek_arrivals_wheel(&self) -> [u32; 3] {
        let mut links = [NIL; 3];
        let n = self.in_wheel.min(3);
        if n == 0 {
            return links;
        }
        let mut b = self.next_bucket((self.cur & self.mask) as usize);
        let mut node = &self.nodes[self.lists[b][0] as usize];
        for (i, l) in links.iter_mut().enumerate() {
            if let Event::Arrive(x) = node.e.ev {
                *l = x;
            }
            if i + 1 == n {
                if n == 3 && self.in_wheel > 3 {
                    let (_, n4) = self.after(b, node);
                    crate::sim::prefetch::prefetch_at(&self.nodes, n4 as usize);
                }
                break;
            }
            let (b2, n2) = self.after(b, node);
            b = b2;
            node = &self.nodes[n2 as usize];
        }
        links
    }
    /// The bucket and node of the wheel event after `node` (in bucket `b`),
    /// when the wheel holds another.
    #[inline(always)]
    fn after(&self, b: usize, node: &Node) -> (usize, u32) {
        if node.next != NIL {
            (b, node.next)
        } else {
            let b2 = self.next_bucket((b + 1) & self.mask as usize);
            (b2, self.lists[b2][0])
        }
    }
    /// Prefetch the wheel node after the last one prefetched ([`Self::ahead`]).
    #[inline(always)]
    fn walk_ahead(&mut self) {
        let a = self.ahead;
        let next = if a == NIL {
            if self.in_wheel == 0 {
                return;
            }
            self.lists[self.next_bucket((self.cur & self.mask) as usize)][0]
        } else {
            // NIL at a list's tail: stay there, events may be appended
            self.nodes.get(a as usize).map_or(NIL, |n| n.next)
        };
        if let Some(node) = self.nodes.get(next as usize) {
            crate::sim::prefetch::prefetch(node);
            self.ahead = next;
            if self.trail.len() < TRAIL_MAX {
                self.trail.push(next);
            }
        }
    }
    /// [`Self::peek_arrive`] during a seeded instant: its next event,
    /// and two more steps of the read-ahead's walk ([`Self::walk_ahead`]).
    #[inline(always)]
    fn peek_arrive_inst(&mut self) -> Option<u32> {
        self.walk_ahead();
        self.walk_ahead();
        self.inst.last().and_then(|&k| self.arrival_of(k))
    }
    /// [`Self::peek_arrivals`] during a seeded instant: its next events,
    /// then the wheel's; and two more steps of the read-ahead's walk.
    #[inline(always)]
    fn peek_arrivals_inst(&mut self) -> [u32; 3] {
        self.walk_ahead();
        self.walk_ahead();
        let mut links = [NIL; 3];
        let k = self.inst.len().min(3);
        for (l, &k) in links.iter_mut().zip(self.inst.iter().rev()) {
            if let Some(x) = self.arrival_of(k) {
                *l = x;
            }
        }
        if k < 3 {
            let rest = self.peek_arrivals_wheel();
            links[k..].copy_from_slice(&rest[..3 - k]);
        }
        links
    }
    pub fn processed(&self) -> u64 {
        self.processed
    }
    pub fn pending(&self) -> usize {
        self.in_wheel + self.far_len + self.overflow.len() + self.inst.len()
    }
    /// Heap bytes of the queue (capacities, not just what is pending).
    pub fn heap_bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<Node>()
            + self.overflow.capacity() * std::mem::size_of::<Far>()
            + self.far_lists.capacity() * std::mem::size_of::<[u32; 2]>()
            + self.moving.capacity() * std::mem::size_of::<u32>()
            + self.lists.capacity() * std::mem::size_of::<[u32; 2]>()
            + self.bits.capacity() * 8
            + self.inst.capacity() * std::mem::size_of::<u64>()
            + self.sorted.capacity() * std::mem::size_of::<u64>()
            + self.counts.capacity() * std::mem::size_of::<u32>()
    }
    /// An upper bound on [`Self::heap_bytes`] while at most `pending`
    /// events are pending at once: nodes and the heap's entries each at
    /// most twice the most pending (vector growth, at least 4), a rebuild's
    /// transient list of indices and a far bucket's moving list (at most
    /// twice the most pending each), a wheel of at most 2 × [`SPAN`]
    /// buckets per pending event, and the far wheel's lists.
    pub fn bound_bytes(pending: u64) -> u64 {
        let node = std::mem::size_of::<Node>() as u64;
        let bucket_bits = std::mem::size_of::<[u32; 2]>() as u64 * 64 + 8;
        let buckets = (2 * SPAN as u64 * pending).clamp(MIN_BUCKETS as u64, MAX_BUCKETS as u64);
        let p = pending.max(4);
        let far = std::mem::size_of::<Far>() as u64;
        let far_lists = FAR_BUCKETS * std::mem::size_of::<[u32; 2]>() as u64;
        p.saturating_mul(2 * node + 2 * far + 4 + 8) + buckets * bucket_bits / 64 + far_lists
    }
    /// [`Self::bound_bytes`] of a seeded queue: also an instant's buffer
    /// and its sort's scratch (at most every pending event, grown by
    /// doubling; [`sort_desc`]'s counts, at most two per entry).
    pub fn bound_bytes_seeded(pending: u64) -> u64 {
        let inst =
            2 * 2 * std::mem::size_of::<u64>() as u64 + 2 * 2 * std::mem::size_of::<u32>() as u64;
        Self::bound_bytes(pending) + pending.max(4).saturating_mul(inst)
    }
}

/// Whatever a [`LazyTimer`] schedules its wake-ups with: the world's
/// [`EventQueue`], or an endpoint's outbox that the world drains later
/// (`tcp::TcpIo`), so a timer's owner needs no access to the queue.
pub trait Schedule<E> {
    fn now(&self) -> SimTime;
    fn schedule(&mut self, t: SimTime, ev: E);
}

impl Schedule<Event> for EventQueue {
    #[inline]
    fn now(&self) -> SimTime {
        self.now
    }
    #[inline]
    fn schedule(&mut self, t: SimTime, ev: Event) {
        EventQueue::schedule(self, t, ev)
    }
}

/// A timer with lazy cancellation: re-arming never touches the heap unless
/// the new deadline is earlier than the pending wake-up. A stale wake-up
/// finds a later deadline and re-schedules itself; this keeps at most one
/// live heap entry per timer even though TCP re-arms its RTO on every ACK.
#[derive(Clone, Copy, Debug, Default)]
pub struct LazyTimer {
    deadline: Option<SimTime>,
    pending: Option<SimTime>,
}

/// What a timer wake-up means.
#[derive(Debug, PartialEq, Eq)]
pub enum Fire {
    /// Not this timer's live wake-up, or the timer was cancelled.
    Ignore,
    /// The deadline moved later; a new wake-up was scheduled.
    Rescheduled,
    /// The deadline is reached: act.
    Expired,
}

impl LazyTimer {
    #[inline]
    pub fn deadline(&self) -> Option<SimTime> {
        self.deadline
    }
    #[inline]
    pub fn is_armed(&self) -> bool {
        self.deadline.is_some()
    }
    /// Arm (or re-arm) for `at`; schedules `ev` only when needed.
    #[inline]
    pub fn arm<E>(&mut self, q: &mut impl Schedule<E>, at: SimTime, ev: E) {
        self.deadline = Some(at);
        match self.pending {
            Some(p) if p <= at => {}
            _ => {
                self.pending = Some(at);
                q.schedule(at, ev);
            }
        }
    }
    #[inline]
    pub fn cancel(&mut self) {
        self.deadline = None;
    }
    /// Handle a wake-up at the current time.
    #[inline]
    pub fn fire<E>(&mut self, q: &mut impl Schedule<E>, ev: E) -> Fire {
        let now = q.now();
        if self.pending != Some(now) {
            return Fire::Ignore;
        }
        self.pending = None;
        match self.deadline {
            None => Fire::Ignore,
            Some(d) if d > now => {
                self.pending = Some(d);
                q.schedule(d, ev);
                Fire::Rescheduled
            }
            Some(_) => {
                self.deadline = None;
                Fire::Expired
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_times_run_fifo() {
        let mut q = EventQueue::new();
        for i in [3, 0, 4, 1, 2] {
            q.schedule(SimTime(10), Event::Udp(i));
        }
        q.schedule(SimTime(5), Event::Udp(99));
        let order: Vec<_> = std::iter::from_fn(|| q.pop_until(SimTime::MAX)).collect();
        assert_eq!(order[0], Event::Udp(99));
        let fifo = [3, 0, 4, 1, 2].map(Event::Udp);
        assert_eq!(&order[1..], &fifo);
    }

    /// A seeded instant's buffer keeps ranks alone, so a rank must name its
    /// event: every kind, the extreme indices and tags, at many instants
    /// and salts, come back from their ranks unchanged.
    #[test]
    fn a_rank_names_its_event() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(5);
        for _ in 0..20_000 {
            let (t, salt) = (rng.gen::<u64>(), rng.gen::<u64>());
            let id = match rng.gen_range(0..4) {
                0 => 0,
                1 => u32::MAX,
                _ => rng.gen(),
            };
            let tag = match rng.gen_range(0..3) {
                0 => 0,
                1 => (1 << TAG_BITS) - 1,
                _ => rng.gen_range(0..1 << TAG_BITS),
            };
            for ev in [
                Event::Arrive(id),
                Event::Rto(id),
                Event::DelAck(id),
                Event::ProbRetx(id),
                Event::Rack(id),
                Event::App { app: id, tag },
                Event::Udp(id),
                Event::Sample,
                // the last kind holds two indices each (odd and even ids)
                Event::Pace(id >> 2),
                Event::Serve(id >> 2),
            ] {
                let h = instant_word(t, salt);
                assert_eq!(Event::from_rank(ev.rank(t, salt), h), ev);
            }
        }
    }

    /// Seeded, equal-time events run by kind, then by a per-instant
    /// scramble of their index, then an app's tag, whatever order they
    /// were scheduled in: the same events scheduled in two orders pop
    /// identically; another instant or salt orders the indices otherwise.
    #[test]
    fn seeded_ties_run_in_component_order_not_insertion_order() {
        let evs = [
            Event::Sample,
            Event::Udp(3),
            Event::App { app: 2, tag: 7 },
            Event::App { app: 2, tag: 1 },
            Event::App { app: 1, tag: 9 },
            Event::Rack(0),
            Event::ProbRetx(4),
            Event::DelAck(4),
            Event::Rto(5),
            Event::Rto(4),
            Event::Arrive(9),
            Event::Arrive(2),
        ];
        let popped = |salt: u64, t: u64, order: &mut dyn Iterator<Item = Event>| {
            let mut q = EventQueue::seeded(salt);
            for e in order {
                q.schedule(SimTime(t), e);
            }
            std::iter::from_fn(|| q.pop_until(SimTime::MAX)).collect::<Vec<_>>()
        };
        let fwd = popped(1, 10, &mut evs.iter().copied());
        let rev = popped(1, 10, &mut evs.iter().rev().copied());
        assert_eq!(fwd, rev);
        let kind = |e: &Event| e.rank(0, 0) >> 61;
        assert!(
            fwd.windows(2).all(|w| kind(&w[0]) <= kind(&w[1])),
            "{fwd:?}"
        );
        let mut sorted = fwd.clone();
        sorted.sort_by_key(|e| format!("{e:?}"));
        let mut all = evs.to_vec();
        all.sort_by_key(|e| format!("{e:?}"));
        assert_eq!(sorted, all, "every event once");
        // an app's wake-ups keep their tag order
        let tags: Vec<u32> = fwd
            .iter()
            .filter_map(|e| match e {
                Event::App { app: 2, tag } => Some(*tag),
                _ => None,
            })
            .collect();
        assert_eq!(tags, [1, 7]);
        // Ties between many links: no link wins every instant.
        let links: Vec<Event> = (0..16).map(Event::Arrive).collect();
        let firsts: std::collections::BTreeSet<String> = (0..64u64)
            .map(|t| format!("{:?}", popped(1, 1000 + t, &mut links.iter().copied())[0]))
            .collect();
        assert!(firsts.len() > 4, "first link over 64 instants: {firsts:?}");
    }

    /// Seeded, equal keys are equal events: scheduled twice, an event
    /// runs twice (a bucket appends an equal key after its equals).
    #[test]
    fn an_event_scheduled_twice_runs_twice() {
        let mut q = EventQueue::seeded(3);
        for _ in 0..3 {
            q.schedule(SimTime(7), Event::Rto(1));
            q.schedule(SimTime(7), Event::Arrive(1));
        }
        let got: Vec<_> = std::iter::from_fn(|| q.pop_until(SimTime::MAX)).collect();
        assert_eq!(got, [[Event::Arrive(1); 3], [Event::Rto(1); 3]].concat());
    }

    /// The heap pops in (time, insertion) order for any monotone
    /// schedule, compared against a sort of the same events.
    #[test]
    fn heap_matches_a_stable_sort() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        let mut q = EventQueue::new();
        let mut expect: Vec<(u64, u32)> = Vec::new();
        let mut got: Vec<(u64, u32)> = Vec::new();
        let mut id = 0u32;
        for _ in 0..20_000 {
            if rng.gen_bool(0.55) {
                // schedule in the future, with many exact ties
                let dt = match rng.gen_range(0..4) {
                    0 => 0,
                    1 => rng.gen_range(0..4),
                    2 => rng.gen_range(0..1_000_000),
                    _ => rng.gen_range(0..u32::MAX as u64),
                };
                let t = q.now().0 + dt;
                q.schedule(SimTime(t), Event::Udp(id));
                expect.push((t, id));
                id += 1;
            } else if let Some(Event::Udp(i)) = q.pop_until(SimTime::MAX) {
                got.push((q.now().0, i));
            }
        }
        while let Some(Event::Udp(i)) = q.pop_until(SimTime::MAX) {
            got.push((q.now().0, i));
        }
        // Events popped must come out in (time, id) order relative to
        // everything still queued when they were popped: check global
        // properties: time never decreases, equal times keep id order,
        // and every event comes out exactly once.
        assert!(got
            .windows(2)
            .all(|w| w[0].0 < w[1].0 || (w[0].0 == w[1].0 && w[0].1 < w[1].1)));
        let mut a = got.clone();
        a.sort();
        expect.sort();
        assert_eq!(a, expect);
    }

    /// Every pop equals the minimum (time, insertion) of a reference set,
    /// through phases of very different event density (so the wheel is
    /// re-tuned and rebuilt), far timers (the overflow heap), exact ties,
    /// and pops bounded by a limit.
    #[test]
    fn pops_match_a_reference_through_retuning() {
        use rand::{Rng, SeedableRng};
        use std::collections::BTreeSet;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(11);
        let mut q = EventQueue::new();
        let mut reference: BTreeSet<(u64, u32)> = BTreeSet::new();
        let mut id = 0u32;
        let mut rebuilt = 0;
        let mut last_buckets = q.lists.len();
        let mut last_shift = q.shift;
        for phase in 0..12u32 {
            // typical gap of this phase: 1 ps .. 2^22 ps
            let scale = 1u64 << (2 * phase % 23);
            for _ in 0..40_000 {
                let r = rng.gen_range(0..100);
                if r < 50 || reference.is_empty() {
                    let dt = match rng.gen_range(0..10) {
                        0 => 0,
                        1 => rng.gen_range(0..1_000_000_000_000),
                        _ => rng.gen_range(0..64 * scale),
                    };
                    let t = q.now().0 + dt;
                    q.schedule(SimTime(t), Event::Udp(id));
                    reference.insert((t, id));
                    id += 1;
                } else {
                    let first = *reference.iter().next().unwrap();
                    let limit = if r < 60 { q.now().0 + scale } else { u64::MAX };
                    match q.pop_until(SimTime(limit)) {
                        Some(Event::Udp(i)) => {
                            assert_eq!((q.now().0, i), first);
                            reference.remove(&first);
                        }
                        None => assert!(first.0 > limit, "{first:?} not popped at limit {limit}"),
                        other => panic!("{other:?}"),
                    }
                }
                assert_eq!(q.pending(), reference.len());
            }
            if q.lists.len() != last_buckets || q.shift != last_shift {
                rebuilt += 1;
                last_buckets = q.lists.len();
                last_shift = q.shift;
            }
        }
        while let Some(Event::Udp(i)) = q.pop_until(SimTime::MAX) {
            let first = *reference.iter().next().unwrap();
            assert_eq!((q.now().0, i), first);
            reference.remove(&first);
        }
        assert!(reference.is_empty());
        assert!(rebuilt >= 3, "the wheel was rebuilt {rebuilt} times");
        assert!(q.heap_bytes() as u64 <= EventQueue::bound_bytes(id as u64));
        assert!(EventQueue::bound_bytes(id as u64) < EventQueue::bound_bytes_seeded(id as u64));
    }

    /// Seeded ties: every pop is the minimum (time, rank) of a reference
    /// set, and `next_key` names it first, through the shapes an
    /// instant's buffer meets: instants of one event and of hundreds,
    /// events scheduled at the instant while it runs (zero delay), far
    /// timers in the overflow heap (ties among them), re-tuned wheels,
    /// and pops bounded by a time or by a key (`pop_before`).
    #[test]
    fn seeded_pops_match_a_reference_of_time_and_rank() {
        use rand::{Rng, SeedableRng};
        use std::collections::BTreeSet;
        let salt = 0x5eed;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(13);
        let mut q = EventQueue::seeded(salt);
        // UDP sources with distinct ids, and wake-ups of three apps whose
        // tags alone order them (the buffer's entries replace the tag)
        let key = |t: u64, ev: Event| (t as u128) << 64 | ev.rank(t, salt) as u128;
        let mut reference: BTreeSet<(u128, u32)> = BTreeSet::new();
        let mut events: Vec<Event> = Vec::new();
        let mut id = 0u32;
        let mut gathered = 0;
        for phase in 0..8u32 {
            let scale = 1u64 << (3 * phase % 22);
            for _ in 0..12_000 {
                let r = rng.gen_range(0..100);
                if r < 50 || reference.is_empty() {
                    // a burst of ties at one time, or single events
                    let dt = match rng.gen_range(0..10) {
                        0 => 0,
                        1 => rng.gen_range(0..1_000_000_000_000),
                        _ => rng.gen_range(0..8) * scale,
                    };
                    let t = q.now().0 + dt;
                    let n = if rng.gen_range(0..50) == 0 {
                        300
                    } else {
                        rng.gen_range(1..4)
                    };
                    for _ in 0..n {
                        let ev = if rng.gen_range(0..4) == 0 {
                            Event::App {
                                app: rng.gen_range(0..3),
                                tag: rng.gen_range(0..(1 << TAG_BITS)),
                            }
                        } else {
                            Event::Udp(id)
                        };
                        q.schedule(SimTime(t), ev);
                        reference.insert((key(t, ev), id));
                        events.push(ev);
                        id += 1;
                    }
                } else {
                    let first = *reference.iter().next().unwrap();
                    assert_eq!(q.next_key(), Some(first.0));
                    let got = match r {
                        50..=59 => {
                            let limit = q.now().0 + scale;
                            let got = q.pop_until(SimTime(limit));
                            if got.is_none() {
                                assert!((first.0 >> 64) as u64 > limit);
                            }
                            got
                        }
                        60..=69 => {
                            // a key between the first and the one after
                            let got = q.pop_before(first.0);
                            assert_eq!(got, None, "pop_before stops at its limit");
                            q.pop_before(first.0 + 1)
                        }
                        _ => q.pop_until(SimTime::MAX),
                    };
                    if let Some(ev) = got {
                        // (equal keys are equal events)
                        assert_eq!(ev, events[first.1 as usize]);
                        assert_eq!(q.now().0, (first.0 >> 64) as u64);
                        reference.remove(&first);
                        gathered += (q.inst.len() > 1) as u32;
                    }
                }
                assert_eq!(q.pending(), reference.len());
            }
        }
        while let Some(ev) = q.pop_until(SimTime::MAX) {
            let first = *reference.iter().next().unwrap();
            assert_eq!(ev, events[first.1 as usize]);
            reference.remove(&first);
        }
        assert!(reference.is_empty());
        assert!(gathered > 1000, "instants of many events: {gathered}");
        assert!(q.heap_bytes() as u64 <= EventQueue::bound_bytes_seeded(id as u64));
    }

    /// Few events pending, each scheduled a fixed time ahead that lies
    /// just past the wheel its density alone would size (a partition of a
    /// k = 8 fat-tree: ≈ 330 pending, arrivals 8.2 µs ahead, 1,024 buckets
    /// of 8 ns): the wheel grows to reach them, so they stop going through
    /// the far wheel and back, and the pops stay in key order throughout.
    #[test]
    fn a_wheel_grows_to_reach_where_events_are_scheduled() {
        let mut q = EventQueue::new();
        let ahead = 8_200_000; // ps
        let pending = 330u64;
        for i in 0..pending {
            q.schedule(SimTime(ahead + i * ahead / pending), Event::Udp(i as u32));
        }
        let (mut last, mut far_before) = (0, 0);
        for i in 0..200_000u64 {
            let ev = q.pop_until(SimTime::MAX).expect("an event");
            let t = q.now().0;
            assert!(t >= last, "pops in time order");
            last = t;
            q.schedule(SimTime(t + ahead), ev);
            if i == 100_000 {
                far_before = q.far_scheduled;
            }
        }
        let late = q.far_scheduled - far_before;
        assert!(
            late < 1_000,
            "{late} of the last 100,000 events went through the far wheel ({} buckets)",
            q.lists.len()
        );
        assert!(q.lists.len() * (1 << q.shift) > 2 * ahead as usize);
    }

    /// A burst after a quiet spell: the buckets fitted to events a second
    /// apart are far too wide for 2 000 events pending within a
    /// microsecond. The walk budget re-tunes the wheel at once, so inserts
    /// stay short (without it they walk ~1 000 nodes each until the next
    /// periodic look, 2¹⁴ pops later).
    #[test]
    fn a_burst_after_a_quiet_spell_retunes_at_once() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(5);
        let mut q = EventQueue::new();
        q.schedule(SimTime(0), Event::Udp(0));
        for _ in 0..20_000 {
            q.pop_until(SimTime::MAX).unwrap();
            q.schedule(SimTime(q.now().0 + 1_000_000_000_000), Event::Udp(0));
        }
        let wide = q.shift;
        let t0 = q.now().0;
        for i in 0..2_000 {
            q.schedule(SimTime(t0 + rng.gen_range(1..1_000_000)), Event::Udp(i));
        }
        let mut walked = 0;
        let pops = 50_000;
        for _ in 0..pops {
            let before = q.walked;
            let ev = q.pop_until(SimTime::MAX).unwrap();
            q.schedule(SimTime(q.now().0 + rng.gen_range(1..1_000_000)), ev);
            walked += q.walked.saturating_sub(before);
        }
        assert!(q.shift + 10 < wide, "shift {} (was {wide})", q.shift);
        assert!(walked < 4 * pops, "{walked} list steps in {pops} pops");
    }

    /// Lockstep senders (a k = 64 permutation: 65,536 hosts whose packets
    /// reach their next hop in the same picosecond) make instants of tens
    /// of thousands of events, each scheduling the next a packet time on.
    /// Moving them between the wheel and the heap must cost list steps in
    /// proportion to the events, not to their square: a width fitted to a
    /// look with no time between its pops, re-fitted at the next look, and
    /// each re-tune relinking them in the heap's order made a 50 µs k = 64
    /// run take 500 s. (Moves out of the heap in order: the next test.)
    #[test]
    fn lockstep_instants_cost_list_steps_in_proportion_to_events() {
        for seeded in [false, true] {
            let mut q = if seeded {
                EventQueue::seeded(7)
            } else {
                EventQueue::new()
            };
            let m = 20_000u32;
            for i in 0..m {
                q.schedule(SimTime(0), Event::Arrive(i));
            }
            let mut pops = 0u64;
            while let Some(ev) = q.pop_until(SimTime(60_000_000)) {
                pops += 1;
                let Event::Arrive(i) = ev else { unreachable!() };
                // a data packet's time on a 10 Gbps hop, an ACK's for some
                let gap = if i % 3 == 0 { 1_032_000 } else { 8_200_000 };
                q.schedule(SimTime(q.now().0 + gap), ev);
            }
            assert!(pops > 5 * m as u64, "{pops} pops");
            assert!(
                q.steps < 4 * pops,
                "seeded {seeded}: {} list steps in {pops} pops",
                q.steps
            );
        }
    }

    /// An instant of many events that waited beyond the wheel, in the far
    /// wheel or in the heap, with a later-scheduled event of the same
    /// instant behind them: they reach the wheel in order, each appended
    /// at its bucket's tail (no list steps), and pop first-in first-out.
    #[test]
    fn an_instant_moved_from_far_is_linked_in_order() {
        let q0 = EventQueue::new();
        let reach = (q0.mask + 1) << q0.shift;
        let far_reach = FAR_BUCKETS * (reach / 2);
        for t in [4 * reach + reach / 16, 2 * far_reach + reach / 16] {
            let mut q = EventQueue::new();
            q.schedule(SimTime(0), Event::Udp(u32::MAX));
            let m = 20_000u32;
            for i in 0..m {
                q.schedule(SimTime(t), Event::Udp(i));
            }
            let in_heap = q.overflow.len();
            assert_eq!(
                in_heap + q.far_len,
                m as usize,
                "the instant waits beyond the wheel"
            );
            assert_eq!(
                in_heap == 0,
                t < far_reach,
                "the far wheel holds what it reaches"
            );
            assert_eq!(q.pop_until(SimTime::MAX), Some(Event::Udp(u32::MAX)));
            q.schedule(SimTime(t), Event::Udp(m));
            for i in 0..=m {
                assert_eq!(q.pop_until(SimTime::MAX), Some(Event::Udp(i)));
            }
            assert_eq!(q.steps, 0, "{} list steps for {m} events", q.steps);
        }
    }

    /// Retransmission timers far beyond the wheel (an incast's, each a
    /// wake-up ten wheels ahead, re-armed when it fires) while packets keep
    /// the wheel busy: they wait in the far wheel, never in the heap, and
    /// every pop is the earliest pending (time, insertion).
    #[test]
    fn far_timers_wait_in_the_far_wheel_not_the_heap() {
        use std::collections::BTreeSet;
        let mut q = EventQueue::new();
        let reach = (q.mask + 1) << q.shift;
        let mut reference: BTreeSet<(u64, u32)> = BTreeSet::new();
        let flows = 200u32;
        for f in 0..flows {
            let t = 10 * reach + f as u64 * 997;
            q.schedule(SimTime(t), Event::Rto(f));
            reference.insert((t, f));
        }
        // a packet stream: one event per eighth of a bucket
        let gap = (1u64 << q.shift) / 8;
        q.schedule(SimTime(gap), Event::Arrive(0));
        reference.insert((gap, u32::MAX));
        let mut fired = 0;
        while fired < 3 * flows {
            let first = *reference.iter().next().unwrap();
            reference.remove(&first);
            let ev = q.pop_until(SimTime::MAX).unwrap();
            assert_eq!(q.now().0, first.0);
            let next = match ev {
                Event::Arrive(0) => (q.now().0 + gap, u32::MAX),
                Event::Rto(f) => {
                    assert_eq!(f, first.1);
                    fired += 1;
                    (q.now().0 + 10 * reach, f)
                }
                other => panic!("{other:?}"),
            };
            let ev = if next.1 == u32::MAX {
                Event::Arrive(0)
            } else {
                ev
            };
            q.schedule(SimTime(next.0), ev);
            reference.insert(next);
            assert!(q.overflow.is_empty(), "a timer went through the heap");
        }
    }

    #[test]
    fn pop_until_leaves_later_events_queued() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(10), Event::Udp(1));
        q.schedule(SimTime(30), Event::Udp(2));
        assert_eq!(q.pop_until(SimTime(20)), Some(Event::Udp(1)));
        assert_eq!(q.pop_until(SimTime(20)), None);
        assert_eq!(q.pending(), 1);
        q.schedule(SimTime(25), Event::Udp(3));
        assert_eq!(q.pop_until(SimTime::MAX), Some(Event::Udp(3)));
        assert_eq!(q.pop_until(SimTime::MAX), Some(Event::Udp(2)));
    }

    #[test]
    fn lazy_timer_fires_once_at_final_deadline() {
        let mut q = EventQueue::new();
        let mut t = LazyTimer::default();
        let ev = Event::Rto(0);
        t.arm(&mut q, SimTime(100), ev);
        t.arm(&mut q, SimTime(150), ev); // later: no new heap entry
        assert_eq!(q.pending(), 1);
        t.arm(&mut q, SimTime(50), ev); // earlier: one more entry
        assert_eq!(q.pending(), 2);
        t.arm(&mut q, SimTime(120), ev);
        let mut expired_at = vec![];
        while let Some(e) = q.pop_until(SimTime::MAX) {
            if t.fire(&mut q, e) == Fire::Expired {
                expired_at.push(q.now());
            }
        }
        assert_eq!(expired_at, vec![SimTime(120)]);
    }

    #[test]
    fn cancelled_timer_never_expires() {
        let mut q = EventQueue::new();
        let mut t = LazyTimer::default();
        t.arm(&mut q, SimTime(10), Event::Rto(1));
        t.cancel();
        while let Some(e) = q.pop_until(SimTime::MAX) {
            assert_ne!(t.fire(&mut q, e), Fire::Expired);
        }
    }

    /// Seeded ties: an instant of every size from 1 to 40 pops by rank,
    /// across the gather's stack buffer of 16 (an instant of exactly 16
    /// with the next instant's events right behind it in the bucket, and
    /// of 17, which goes on in the instant's buffer) and the sorts behind
    /// it (networks of 8 and 16, insertion, buckets).
    #[test]
    fn instants_of_each_size_pop_by_rank_across_the_gathers_buffer() {
        let salt = 0xb0f;
        for n in 1..=40u32 {
            let mut q = EventQueue::seeded(salt);
            let t = 1_000_000u64;
            // the instant, scheduled in descending id order, and a later
            // instant in the same bucket behind it
            for id in (0..n).rev() {
                q.schedule(SimTime(t), Event::Udp(id));
            }
            for id in 0..3 {
                q.schedule(SimTime(t + 1), Event::Udp(id));
            }
            let mut want: Vec<(u64, Event)> = (0..n)
                .map(|id| (t, Event::Udp(id)))
                .chain((0..3).map(|id| (t + 1, Event::Udp(id))))
                .collect();
            want.sort_by_key(|&(t, ev)| (t, ev.rank(t, salt)));
            let mut got = Vec::new();
            while let Some(ev) = q.pop_until(SimTime::MAX) {
                got.push((q.now().0, ev));
            }
            assert_eq!(got, want, "an instant of {n}");
        }
    }

    /// The instant's sort is a sort: the library's order, descending, for
    /// lists of any length, duplicates and shared high bits included (an
    /// instant of one kind shares its top 3 bits; ranks of one component
    /// share all but the index's).
    mod sort_desc_sorts {
        use super::super::{sort_desc, SMALL_SORT};
        use proptest::prelude::*;

        fn keys() -> impl Strategy<Value = Vec<u64>> {
            let n = 0..4 * SMALL_SORT + 600;
            (n, any::<u64>(), 0u32..64, 0u32..64).prop_flat_map(|(n, base, lo, hi)| {
                // bits [lo, hi) vary around `base`; the others are base's
                let (lo, hi) = (lo.min(hi), lo.max(hi) + 1);
                let span = if hi - lo >= 64 {
                    !0
                } else {
                    ((1u64 << (hi - lo)) - 1) << lo
                };
                proptest::collection::vec(any::<u64>(), n)
                    .prop_map(move |v| v.into_iter().map(|x| base & !span | x & span).collect())
            })
        }

        proptest! {
            #![proptest_config(crate::proptest_ci::config(256))]
            #[test]
            fn as_the_library_sorts(v in keys(), dup in 0usize..8) {
                let mut v = v;
                // some equal keys too
                for i in 0..dup.min(v.len() / 2) {
                    v[2 * i + 1] = v[2 * i];
                }
                let (got, want) = both_sorts(v);
                prop_assert_eq!(got, want);
            }

            /// The short lists the networks sort, with 0 (the padding's
            /// value) among the entries.
            #[test]
            fn short_lists_as_the_library_sorts(v in proptest::collection::vec(
                prop_oneof![Just(u64::MAX), Just(0u64), any::<u64>()], 0..=17)) {
                let (got, want) = both_sorts(v);
                prop_assert_eq!(got, want);
            }
        }

        /// `v` sorted by [`sort_desc`], and by the library, descending.
        fn both_sorts(mut v: Vec<u64>) -> (Vec<u64>, Vec<u64>) {
            let mut want = v.clone();
            want.sort_unstable_by(|a, b| b.cmp(a));
            let (mut sorted, mut counts) = (Vec::new(), Vec::new());
            sort_desc(&mut v, &mut sorted, &mut counts);
            (v, want)
        }

        /// Every list of up to 16 zeros and ones, each length through its
        /// network with the padding: by the 0-1 principle (a comparator
        /// network sorts every input if it sorts every input of 0s and 1s;
        /// the padding, the least value, is a 0 wherever the entries are
        /// split into 0s and 1s) the networks sort every list they are given.
        #[test]
        fn the_networks_sort_every_list_of_zeros_and_ones() {
            let (mut sorted, mut counts) = (Vec::new(), Vec::new());
            for n in 0..=16usize {
                for m in 0u32..1 << n {
                    let mut v: Vec<u64> = (0..n).map(|i| u64::from(m >> i & 1)).collect();
                    let ones = m.count_ones() as usize;
                    sort_desc(&mut v, &mut sorted, &mut counts);
                    assert!(v[..ones].iter().all(|&x| x == 1) && v[ones..].iter().all(|&x| x == 0));
                    assert_eq!(v.len(), n);
                }
            }
        }
    }
}
