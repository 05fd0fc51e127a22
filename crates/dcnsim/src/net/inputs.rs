//! Per-input-port accounting at switch egress queues ([`InputTable`]) and
//! per-flow drop runs ([`DropRuns`]): what the `queue_inputs` and drop-run
//! tables of the report are counted from.

// The tallies' maps are `FixedHashMap`s: a drop looks its slot's record
// up, and with the standard library's SipHash that lookup was most of a
// drop's cost (≈ 400 instructions per drop; an n = 100 incast drops 34,000
// packets). No output depends on the maps' order (`InputTable::slots` sorts).
use super::{FixedHashMap, LinkInfo};

/// Consecutive-drop bookkeeping for one flow (data packets only).
#[derive(Clone, Debug, Default)]
pub struct DropRuns {
    pub drops: u64,
    pub ack_drops: u64,
    pub runs: u64,
    pub max_run: u64,
    /// Runs by length: `run_len[k]` counts runs of `k + 1` drops, the last
    /// slot runs of 5 or more (TCPRand Fig. 13's histogram). Counted once
    /// per run in [`Self::close`], off the per-packet path.
    pub run_len: [u64; 5],
    cur: u64,
    last_txn: u32,
}

impl DropRuns {
    /// A run is a maximal set of drops of consecutively *transmitted*
    /// packets of the flow (`txn` numbers transmissions, retransmissions included).
    #[inline]
    pub(crate) fn on_drop(&mut self, txn: u32) {
        self.drops += 1;
        if self.cur > 0 && txn == self.last_txn.wrapping_add(1) {
            self.cur += 1;
        } else {
            self.close();
            self.cur = 1;
        }
        self.last_txn = txn;
    }
    pub fn close(&mut self) {
        if self.cur > 0 {
            self.runs += 1;
            self.max_run = self.max_run.max(self.cur);
            self.run_len[(self.cur.min(5) - 1) as usize] += 1;
            self.cur = 0;
        }
    }
}

/// What one input port offered to one switch egress queue.
#[derive(Clone, Copy, Debug, Default)]
pub struct InputStats {
    /// Enqueued = offered − dropped (not counted separately: hot path).
    pub offered: u64,
    pub dropped: u64,
    /// Longest run of consecutive offered packets from this input that were
    /// all dropped: port blackout made visible.
    pub max_drop_run: u64,
}

/// The part of a slot's tally that changes only on a drop (or once every
/// 2³² offers), kept apart so the per-hop count is one 4-byte word, and
/// only for the slots that ever needed it (a k = 32 fat-tree has 1.3 M
/// slots; few see drops).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct InputDrops {
    /// High 32 bits of the offered count.
    offered_hi: u64,
    dropped: u64,
    max_drop_run: u64,
    run: u64,
    /// The offered count (this slot's) at its last drop: the next drop
    /// extends the run only if no offer came in between.
    last_drop: u64,
}

/// Per-input-port accounting at switch egress queues, in one flat array:
/// egress link `e` at switch `n` owns `first[e]..first[e] + (inputs of n)`,
/// and the input link `i` arriving at `n` is slot `port[i]` of each. A
/// switch with more inputs than [`WIDE_SWITCH_INPUTS`] would need a square
/// of them (10⁸ slots for a 10,000-host star); its egresses are marked
/// [`InputTable::WIDE`] and a slot is made for an (egress, input) pair
/// when a packet first takes it, after the dense ones.
#[derive(Default)]
pub struct InputTable {
    pub first: Vec<u32>,
    pub port: Vec<u32>,
    /// Slots `0..dense` belong to the dense switches.
    dense: u32,
    /// Wide switches' slots by (egress, input).
    wide: FixedHashMap<(u32, u32), u32>,
    /// Low 32 bits of each slot's offered count, of the packets routed
    /// from the tables (a switch's inputs to one egress share a cache
    /// line) and, once the slot has dropped, of source-routed ones too;
    /// until then those count in their route entry ([`RouteHop`]).
    offered: Vec<u32>,
    drops: FixedHashMap<u32, InputDrops>,
    /// The input link of each slot (for the report).
    pub slot_link: Vec<u32>,
}

/// Inputs above which a switch's (egress, input) tallies are made on use
/// rather than for every pair ([`InputTable`]): 256² = 65,536 slots is the
/// most a dense switch allocates (a k = 32 fat-tree's switches have 32).
pub const WIDE_SWITCH_INPUTS: usize = 256;

impl InputTable {
    /// `first` of an egress whose slots are made on use.
    pub const WIDE: u32 = u32::MAX - 1;

    pub(crate) fn build(links: &[LinkInfo], is_switch: &[bool], wide_inputs: usize) -> InputTable {
        let n = is_switch.len();
        let mut ins: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut port = vec![u32::MAX; links.len()];
        for (i, l) in links.iter().enumerate() {
            if is_switch[l.to as usize] {
                port[i] = ins[l.to as usize].len() as u32;
                ins[l.to as usize].push(i as u32);
            }
        }
        let mut t = InputTable {
            first: vec![u32::MAX; links.len()],
            port,
            ..InputTable::default()
        };
        for (e, l) in links.iter().enumerate() {
            if !is_switch[l.from as usize] {
                continue;
            }
            let inputs = &ins[l.from as usize];
            if inputs.len() > wide_inputs {
                t.first[e] = Self::WIDE;
            } else {
                t.first[e] = t.slot_link.len() as u32;
                t.slot_link.extend_from_slice(inputs);
            }
        }
        t.offered = vec![0; t.slot_link.len()];
        t.dense = t.slot_link.len() as u32;
        t
    }

    /// Every slot that exists, as (egress, input link, slot), by egress
    /// then input (the report's order).
    pub fn slots(&self) -> Vec<(u32, u32, u32)> {
        let mut out = Vec::with_capacity(self.offered.len());
        let mut egresses: Vec<(u32, u32)> = self
            .first
            .iter()
            .enumerate()
            .filter(|&(_, &f)| f < Self::WIDE)
            .map(|(e, &f)| (f, e as u32))
            .collect();
        egresses.sort_unstable();
        for (k, &(f, e)) in egresses.iter().enumerate() {
            let end = egresses.get(k + 1).map_or(self.dense, |n| n.0);
            out.extend((f..end).map(|i| (e, self.slot_link[i as usize], i)));
        }
        out.extend(self.wide.iter().map(|(&(e, i), &s)| (e, i, s)));
        out.sort_unstable_by_key(|&(e, i, _)| (e, i));
        out
    }

    /// Heap bytes: the per-slot words, and a drop record per slot that dropped.
    pub fn heap_bytes(&self) -> usize {
        (self.first.capacity()
            + self.port.capacity()
            + self.offered.capacity()
            + self.slot_link.capacity())
            * 4
            + self.drops.capacity() * (std::mem::size_of::<(u32, InputDrops)>() + 1)
            + self.wide.capacity() * (std::mem::size_of::<((u32, u32), u32)>() + 1)
    }

    /// Take the tallies of the slots of every egress link `e` with
    /// `take(e)` from `other` (the partition that ran those links' sending
    /// ends; same topology, no wide switches), for the merged report.
    pub fn adopt_egresses(&mut self, other: &InputTable, take: impl Fn(usize) -> bool) {
        let mut egresses: Vec<(u32, usize)> = self
            .first
            .iter()
            .enumerate()
            .filter(|&(_, &f)| f < Self::WIDE)
            .map(|(e, &f)| (f, e))
            .collect();
        egresses.sort_unstable();
        for (k, &(f, e)) in egresses.iter().enumerate() {
            if !take(e) {
                continue;
            }
            let end = egresses.get(k + 1).map_or(self.dense, |n| n.0);
            for i in f..end {
                self.offered[i as usize] = other.offered[i as usize];
                match other.drops.get(&i) {
                    Some(d) => self.drops.insert(i, *d),
                    None => self.drops.remove(&i),
                };
            }
        }
    }

    /// Number of slots.
    pub fn len(&self) -> usize {
        self.offered.len()
    }

    pub fn is_empty(&self) -> bool {
        self.offered.is_empty()
    }

    /// The tally of slot `i` (once the route entries' tallies are folded
    /// in: `World::finish`).
    pub fn stats(&self, i: usize) -> InputStats {
        let d = self.drops.get(&(i as u32)).copied().unwrap_or_default();
        InputStats {
            offered: d.offered_hi << 32 | self.offered[i] as u64,
            dropped: d.dropped,
            max_drop_run: d.max_drop_run,
        }
    }

    /// Whether slot `i` has dropped: its offers are then counted here, not
    /// in the route entries (see [`RouteHop`]).
    pub(crate) fn counts_directly(&self, i: u32) -> bool {
        self.drops.get(&i).is_some_and(|d| d.dropped > 0)
    }

    /// Add `n` offers to slot `i`'s count (a route entry's tally folded in).
    #[cold]
    pub(crate) fn add_offers(&mut self, i: u32, n: u64) {
        let total = (self.offered[i as usize] as u64) + n;
        self.offered[i as usize] = total as u32;
        if total >> 32 > 0 {
            self.drops.entry(i).or_default().offered_hi += total >> 32;
        }
    }

    /// The slot of packets from input link `input` to egress link `egress`.
    #[inline(always)]
    pub(crate) fn slot(&mut self, egress: u32, input: u32) -> u32 {
        let f = self.first[egress as usize];
        if f != Self::WIDE {
            f + self.port[input as usize]
        } else {
            self.wide_slot(egress, input)
        }
    }

    /// A wide switch's slot, made on first use.
    #[cold]
    pub(crate) fn wide_slot(&mut self, egress: u32, input: u32) -> u32 {
        let (offered, slot_link) = (&mut self.offered, &mut self.slot_link);
        *self.wide.entry((egress, input)).or_insert_with(|| {
            offered.push(0);
            slot_link.push(input);
            u32::try_from(offered.len() - 1).expect("more than 2³² input-tally slots")
        })
    }

    #[inline(always)]
    pub(crate) fn record(&mut self, slot: u32, dropped: bool) {
        let i = slot as usize;
        let o = &mut self.offered[i];
        *o = o.wrapping_add(1);
        if *o == 0 || dropped {
            self.record_rare(i, dropped);
        }
    }

    #[cold]
    pub(crate) fn record_rare(&mut self, i: usize, dropped: bool) {
        if self.offered[i] == 0 {
            self.drops.entry(i as u32).or_default().offered_hi += 1;
        }
        if dropped {
            self.record_drop(i);
        }
    }

    /// The packet just counted as slot `i`'s latest offer was dropped.
    #[cold]
    pub(crate) fn record_drop(&mut self, i: usize) {
        let d = self.drops.entry(i as u32).or_default();
        let n = d.offered_hi << 32 | self.offered[i] as u64;
        d.run = if d.run > 0 && d.last_drop + 1 == n {
            d.run + 1
        } else {
            1
        };
        d.last_drop = n;
        d.dropped += 1;
        d.max_drop_run = d.max_drop_run.max(d.run);
    }
}

/// What one (egress, input) slot of a switch costs, at most: its offered
/// count and input link (Vecs grown by extending: twice), a drop record
/// in a map at most half full, and the head of its chain of route
/// entries (static routing modes; limits.rs).
pub const INPUT_SLOT_BYTES: usize =
    2 * (4 + 4) + 2 * (std::mem::size_of::<(u32, InputDrops)>() + 1) + 4;
/// The same for a wide switch's slot, with its entry in the map of
/// (egress, input) pairs (at most half full).
pub const WIDE_SLOT_BYTES: usize =
    INPUT_SLOT_BYTES + 2 * (std::mem::size_of::<((u32, u32), u32)>() + 1);

#[cfg(test)]
mod tests {
    use super::DropRuns;

    fn script(txns: &[u32]) -> DropRuns {
        let mut d = DropRuns::default();
        for &t in txns {
            d.on_drop(t);
        }
        d.close();
        d
    }

    /// Runs are split on any gap in transmission numbers, counted once
    /// each into their length bin, 5 and longer sharing the last bin.
    #[test]
    fn drop_runs_histogram_from_known_sequences() {
        // Runs: [3] [5 6] [9 10 11] [20..24) [30..37) [40]
        let mut txns = vec![3, 5, 6, 9, 10, 11, 20, 21, 22, 23];
        txns.extend(30..37);
        txns.push(40);
        let d = script(&txns);
        assert_eq!(d.drops, txns.len() as u64);
        assert_eq!(d.runs, 6);
        assert_eq!(d.max_run, 7);
        assert_eq!(d.run_len, [2, 1, 1, 1, 1]);

        // A repeated or backwards txn starts a new run; so does wrapping
        // past u32::MAX only when consecutive (MAX then 0 is one run).
        let d = script(&[7, 7, 6, u32::MAX, 0, 1]);
        assert_eq!(d.runs, 4);
        assert_eq!(d.run_len, [3, 0, 1, 0, 0]);

        // Exactly 5 lands in the 5+ bin; close() twice counts nothing more.
        let mut d = script(&[0, 1, 2, 3, 4]);
        d.close();
        assert_eq!((d.runs, d.max_run, d.run_len), (1, 5, [0, 0, 0, 0, 1]));

        // No drops: no runs.
        assert_eq!(script(&[]).run_len, [0; 5]);
    }
}
