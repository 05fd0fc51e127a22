//! Per-flow path choice: the source routes of the static routing modes
//! (`Paths`, one `FlowRoute` per flow direction), the flowlet table's
//! entries and the 5-tuple hash the modes share.

use super::FixedHashMap;

use super::inputs::InputTable;
use super::{PktKind, NO_LINK, NO_ROUTE};
use crate::sim::rng::mix64;
use crate::sim::time::SimTime;

/// Entries per switch in the flowlet table. A slot is shared by the flows
/// that hash to it; a different flow arriving evicts the entry (and starts a
/// new flowlet), as a real table without tags would merge them instead.
pub const FLOWLET_SLOTS: usize = 1024;

#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct FlowletEntry {
    /// The 5-tuple hash + 1 of the flow in this slot (0 = empty).
    pub(crate) key: u64,
    pub(crate) last: SimTime,
    pub(crate) link: u32,
}

/// What a flow's routes cost in the static routing modes, per hop and
/// fixed, at most (limits.rs): per direction, its `FlowRoute` in a Vec grown
/// by resizing (twice), the map entry (a map at most half full), and per
/// hop its `RouteHop` in a Vec grown by pushing (twice), the `Hop` once
/// more as the interning map's key (exact: shrunk before it is stored),
/// and its link in the chain of route entries through its slot (a Vec
/// grown by pushing, twice).
pub const ROUTE_BYTES_PER_HOP: usize =
    2 * (2 * std::mem::size_of::<RouteHop>() + std::mem::size_of::<Hop>() + 2 * 4);
pub const ROUTE_BYTES_FIXED: usize =
    2 * (2 * std::mem::size_of::<FlowRoute>() + 2 * (std::mem::size_of::<(Vec<Hop>, u32)>() + 1));

/// What a partition of a cut run keeps per flow, at most, to resume the
/// source routes of the flow's packets that cross into it without a walk
/// (crate::parallel's `ResumeMap`): 12 bytes a direction, in a Vec grown
/// by resizing (twice).
pub const RESUME_BYTES_PER_FLOW: usize = 2 * 2 * 12;

/// Bytes of a switch's flowlet table (limits.rs).
pub const FLOWLET_TABLE_BYTES: usize = FLOWLET_SLOTS * std::mem::size_of::<FlowletEntry>();

/// The 5-tuple (src, dst, src port = flow, dst port, proto = kind) and the
/// flow label as one word. The fields fill two words without overlap, and
/// the first is mixed before the second joins it: XOR-ed at overlapping
/// offsets, as they once were, tuples that differ made one word (flow f to
/// host d and flow f + 2¹⁴ to host d ^ 1 took the same path at every
/// switch), so large runs had pairs of flows perfectly correlated.
#[inline]
pub(crate) fn five_tuple(src: u32, dst: u32, flow: u32, kind: PktKind, label: u16) -> u64 {
    let hosts = (src as u64) << 32 | dst as u64;
    let ports = (flow as u64) << 18 | (label as u64) << 2 | kind as u64;
    mix64(hosts) ^ ports
}

/// One hop of a source route: the egress link, and (after the first hop,
/// at a switch) the input-tally slot of the (input, egress) pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Hop {
    pub(crate) link: u32,
    pub(crate) slot: u32,
}

/// A hop as stored in a route, with the input tally of the packets that
/// took it: forwarding reads the entry anyway, so counting there costs no
/// cache line of its own (the slot's word in [`InputTable`] would). A
/// slot's offered count is its word plus the tallies of the route entries
/// through it, folded into the word at the end of the run
/// ([`Paths::fold_tallies`], at the end of the run). Drop runs
/// need a slot's running count at each drop, so on its first drop a slot's
/// entries are folded into its word and flagged [`RouteHop::DIRECT`]: from
/// then on they count in the word, as table-routed packets always do.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RouteHop {
    pub(crate) link: u32,
    /// The input-tally slot (`u32::MAX`: none, the first hop), with
    /// [`RouteHop::DIRECT`] set once the slot counts in its word.
    pub(crate) slot: u32,
    /// Packets offered through this hop, mod 2³² (a wrap carries into the
    /// slot's word), while the slot is not direct.
    pub(crate) offered: u32,
    /// The next hop's link ([`NO_LINK`] on the last hop, which reaches the
    /// destination host): the packet's [`crate::net::Hdr::next`] hint
    /// from here on, known without asking where `link` leads and reading
    /// the next entry (and 16 bytes keep every entry within one line).
    pub(crate) next: u32,
}

impl RouteHop {
    pub(crate) const DIRECT: u32 = 1 << 31;
}

/// The route of one flow direction, valid for packets with these
/// addresses and flow label (a packet leaves from its `src` host).
#[derive(Clone, Copy, Debug)]
pub(crate) struct FlowRoute {
    /// The flow label the route was worked out for ([`crate::net::Packet::label`]);
    /// `u32::MAX` in an empty slot, which no label equals.
    pub(crate) label: u32,
    pub(crate) src: u32,
    pub(crate) dst: u32,
    pub(crate) route: u32,
}

impl FlowRoute {
    pub(crate) const NONE: FlowRoute = FlowRoute {
        label: u32::MAX,
        src: u32::MAX,
        dst: u32::MAX,
        route: NO_ROUTE,
    };
}

/// Source routes, as htsim gives each flow its route once. Where the
/// routing mode makes the path a fixed function of the packet's 5-tuple
/// (single path, ECMP salted or not), each flow direction's path is worked
/// out from the tables on its first packet and every later packet follows
/// it hop by hop: forwarding then reads one entry per hop instead of the
/// routing tables, the ECMP hash and the input-port maps, and stays out of
/// tables that outgrow the cache. The links chosen are the ones hop-by-hop
/// routing would choose. Per-packet modes (RPS, flowlets) route from the
/// tables at every hop.
#[derive(Default)]
pub(crate) struct Paths {
    pub(crate) enabled: bool,
    /// TCP flow `f`'s data (`2f`) and ACKs (`2f + 1`); UDP flow `u`.
    pub(crate) tcp: Vec<FlowRoute>,
    pub(crate) udp: Vec<FlowRoute>,
    /// Routes, each a run of hops ending at a host.
    pub(crate) hops: Vec<RouteHop>,
    /// Identical routes (many flows between the same hosts) are stored once.
    pub(crate) interned: FixedHashMap<Vec<Hop>, u32>,
    /// The route entries through each input-tally slot, to fold them in
    /// (cold: never read per hop): per slot the last entry interned
    /// (`u32::MAX`: none), and per entry the one before it in its slot.
    pub(crate) slot_head: Vec<u32>,
    pub(crate) next_in_slot: Vec<u32>,
}

impl Paths {
    pub(crate) fn intern(&mut self, mut route: Vec<Hop>, inputs: &InputTable) -> u32 {
        if let Some(&r) = self.interned.get(&route) {
            return r;
        }
        // The key is kept for the run: no spare capacity (limits.rs).
        route.shrink_to_fit();
        let r = u32::try_from(self.hops.len()).expect("more than 2³² route hops");
        // Wide switches add slots as routes first take them.
        if self.slot_head.len() < inputs.len() {
            assert!(
                inputs.len() < RouteHop::DIRECT as usize,
                "more than 2³¹ input-tally slots"
            );
            self.slot_head.resize(inputs.len(), u32::MAX);
        }
        for (i, h) in route.iter().enumerate() {
            let mut slot = h.slot;
            if slot == u32::MAX {
                self.next_in_slot.push(u32::MAX);
            } else {
                let head = &mut self.slot_head[slot as usize];
                self.next_in_slot.push(*head);
                *head = r + i as u32;
                if inputs.counts_directly(slot) {
                    slot |= RouteHop::DIRECT;
                }
            }
            self.hops.push(RouteHop {
                link: h.link,
                slot,
                offered: 0,
                next: route.get(i + 1).map_or(NO_LINK, |n| n.link),
            });
        }
        self.interned.insert(route, r);
        r
    }

    /// A route entry's tally wrapped, or its packet was dropped: carry the
    /// wrap into the slot's word; on the slot's first drop, fold every
    /// entry through it into the word and count there from now on (see
    /// [`RouteHop`]), then record the drop as the word's latest offer.
    #[cold]
    pub(crate) fn tally_rare(&mut self, entry: u32, dropped: bool, inputs: &mut InputTable) {
        let slot = self.hops[entry as usize].slot;
        if self.hops[entry as usize].offered == 0 {
            inputs.add_offers(slot, 1 << 32);
        }
        if !dropped {
            return;
        }
        let mut e = self.slot_head[slot as usize];
        while e != u32::MAX {
            let h = &mut self.hops[e as usize];
            inputs.add_offers(slot, h.offered as u64);
            h.offered = 0;
            h.slot |= RouteHop::DIRECT;
            e = self.next_in_slot[e as usize];
        }
        inputs.record_drop(slot as usize);
    }

    /// Fold every route entry's tally into its slot's word (the end of
    /// the run: the report reads the words); the entries count there
    /// from then on.
    pub(crate) fn fold_tallies(&mut self, inputs: &mut InputTable) {
        for h in &mut self.hops {
            if h.slot != u32::MAX && h.slot & RouteHop::DIRECT == 0 {
                inputs.add_offers(h.slot, h.offered as u64);
                h.offered = 0;
                h.slot |= RouteHop::DIRECT;
            }
        }
    }

    /// Heap bytes of the per-flow routes of the static routing modes.
    pub(crate) fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        let p = self;
        (p.tcp.capacity() + p.udp.capacity()) * size_of::<FlowRoute>()
            + p.hops.capacity() * size_of::<RouteHop>()
            + p.interned.capacity() * (size_of::<(Vec<Hop>, u32)>() + 1)
            + p.interned.keys().map(|k| k.capacity()).sum::<usize>() * size_of::<Hop>()
            + (p.slot_head.capacity() + p.next_in_slot.capacity()) * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// Tuples that differ in any field make different words, those the old
    /// overlapping XOR merged among them (flow f to host d and flow
    /// f + 2¹⁴ to host d ^ 1; a source past 256 hosts and a label).
    #[test]
    fn differing_tuples_make_different_words() {
        let kinds = [PktKind::Data, PktKind::Ack, PktKind::Udp];
        let mut seen = HashSet::new();
        let mut n = 0;
        for src in (0..8).chain([255, 256, 257, 8191]) {
            for dst in (0..8).chain([8190, 8191]) {
                for flow in [0, 1, 3, 1 << 14, (1 << 14) + 1, 1 << 20, u32::MAX] {
                    for kind in kinds {
                        for label in [0, 1, 255, u16::MAX] {
                            seen.insert(five_tuple(src, dst, flow, kind, label));
                            n += 1;
                        }
                    }
                }
            }
        }
        assert_eq!(seen.len(), n, "two tuples made one word");
        assert_ne!(
            five_tuple(4, 6, 7, PktKind::Data, 0),
            five_tuple(4, 6 ^ 1, 7 + (1 << 14), PktKind::Data, 0)
        );
    }
}
