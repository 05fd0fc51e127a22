//! Shortest-path (hop count) routing tables.
//!
//! **Directed-link numbering** (the engine relies on it): link `i` of
//! [`TopologySpec::links`] is the two directed links `2*i` (a → b, queue
//! `queue_ab`) and `2*i + 1` (b → a, queue `queue_ba`).
//!
//! Hosts are never transit nodes: a host forwards only its own packets, so a
//! BFS does not expand through a host other than the destination. For every
//! (node, destination host) [`Routes::next_hops`] gives the directed links
//! leaving the node that lie on some shortest path, sorted ascending (so
//! `Single` routing's "lowest-index equal-cost next hop" is the first entry).
//!
//! **Storage stays small as the network grows**, because the table is read
//! on every packet-hop and a table that spills out of the cache costs a miss
//! per hop. A host with one link, to a switch (every host of the built-in
//! topologies) is *single-homed*: every shortest path to it ends with its
//! gateway switch and that link, and every path from it starts with that
//! link. So destinations are grouped by gateway (one BFS per edge switch, not
//! per host), single-homed hosts get no row of their own, and the distinct
//! next-hop lists are interned (an aggregation switch sends every packet for
//! another pod up the same set of links). A k = 16 fat-tree (1,024 hosts)
//! needs 128 groups × 320 switches of 4-byte entries, 0.16 MB, instead of
//! 1,024 × 1,344 entries plus lists, ≈ 18 MB, per host. Multi-homed hosts
//! (custom topologies) are their own group and have their own column.

use super::FixedHashMap;
use crate::config::{NodeKind, TopologySpec};
use std::collections::BTreeMap;

const UNREACHED: u32 = u32::MAX;
const NONE: u32 = u32::MAX;

/// How packets reach one destination host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Dest {
    /// Row group: the gateway's group for a single-homed host, else its own.
    group: u32,
    /// Gateway switch node of a single-homed host (`NONE` otherwise).
    gw: u32,
    /// The gateway's link down to the host.
    down: u32,
}

/// A single-homed host's only link and the switch it leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Uplink {
    link: u32,
    gw: u32,
}

/// What one run of destination searches reads (shared by every thread):
/// `adj`/`adj_off` the directed links out of each node, ascending,
/// without those into single-homed hosts.
struct Search<'a> {
    /// Per node (so its length is the node count).
    is_host: &'a [bool],
    /// The node each of `adj`'s links leads to, beside it (the searches
    /// read it in order instead of looking each link up).
    to: &'a [u32],
    adj: &'a [u32],
    adj_off: &'a [u32],
    col_nodes: &'a [usize],
}

/// Distinct next-hop lists, numbered by first appearance (0: the empty
/// list): `hops[spans[i].0..spans[i].1]` is list `i`.
struct Interner {
    spans: Vec<(u32, u32)>,
    hops: Vec<u32>,
    known: FixedHashMap<Vec<u32>, u32>,
}

impl Interner {
    fn new() -> Self {
        Interner {
            spans: vec![(0, 0)],
            hops: Vec::new(),
            known: FixedHashMap::from_iter([(Vec::new(), 0)]),
        }
    }

    /// `list`'s number, a new one if it was not seen before.
    fn id(&mut self, list: &[u32]) -> u32 {
        if let Some(&s) = self.known.get(list) {
            return s;
        }
        let start = self.hops.len() as u32;
        self.hops.extend_from_slice(list);
        self.spans.push((start, self.hops.len() as u32));
        let s = (self.spans.len() - 1) as u32;
        self.known.insert(list.to_vec(), s);
        s
    }

    fn list(&self, i: u32) -> &[u32] {
        let (a, b) = self.spans[i as usize];
        &self.hops[a as usize..b as usize]
    }
}

/// One block's rows, each the number of a list in the block's own
/// interner.
struct Lists {
    rows: Vec<u32>,
    lists: Interner,
}

impl Search<'_> {
    fn out(&self, v: usize) -> &[u32] {
        &self.adj[self.adj_off[v] as usize..self.adj_off[v + 1] as usize]
    }

    fn to_of(&self, v: usize) -> &[u32] {
        &self.to[self.adj_off[v] as usize..self.adj_off[v + 1] as usize]
    }

    /// The rows of the groups whose targets are `targets`, in order;
    /// `None` if `stop` said stop (asked every [`SETUP_POLL_WORK`] steps,
    /// counted in `work` across a thread's blocks).
    fn rows(
        &self,
        targets: &[usize],
        work: &mut usize,
        stop: &mut dyn FnMut() -> bool,
    ) -> Option<Lists> {
        let is_host = self.is_host;
        let n = is_host.len();
        let mut rows = Vec::with_capacity(targets.len() * self.col_nodes.len());
        let mut lists = Interner::new();
        let mut list = Vec::new();
        // Each column's list for the last target: a column's links toward
        // the targets of one pod (consecutive groups) are mostly the same
        // list, and comparing with it is cheaper than hashing it. The
        // numbers are the ones `id` would give (it numbers equal lists
        // alike), so the tables do not change.
        let mut last = vec![0u32; self.col_nodes.len()];
        let mut dist = vec![UNREACHED; n];
        let mut queue = Vec::with_capacity(n);
        for &d in targets {
            // One search touches every node and link, then every column's links.
            *work += n + 2 * self.adj.len();
            if *work >= SETUP_POLL_WORK {
                *work = 0;
                if stop() {
                    return None;
                }
            }
            // the last search set only the nodes it queued (at k = 64, 5,120
            // of 70,656: single-homed hosts are never reached)
            for &v in &queue {
                dist[v] = UNREACHED;
            }
            queue.clear();
            dist[d] = 0;
            queue.push(d);
            let mut head = 0;
            while head < queue.len() {
                let v = queue[head];
                head += 1;
                if v != d && is_host[v] {
                    continue; // hosts do not forward
                }
                // Links are full duplex: neighbours of v reach v over the reverse link.
                for &w in self.to_of(v) {
                    let w = w as usize;
                    if dist[w] == UNREACHED {
                        dist[w] = dist[v] + 1;
                        queue.push(w);
                    }
                }
            }
            for (&v, last) in self.col_nodes.iter().zip(&mut last) {
                list.clear();
                if v != d && dist[v] != UNREACHED {
                    // a neighbour one step nearer (`dist[v]` is at least 1
                    // here, so `nearer` is never UNREACHED); the link's id
                    // is read only for the few that are
                    let nearer = dist[v] - 1;
                    let to = self.to_of(v);
                    let ids = &self.out(v)[..to.len()];
                    for (i, &w) in to.iter().enumerate() {
                        let w = w as usize;
                        if dist[w] == nearer && (w == d || !is_host[w]) {
                            list.push(ids[i]);
                        }
                    }
                }
                if lists.list(*last) != list.as_slice() {
                    *last = lists.id(&list);
                }
                rows.push(*last);
            }
        }
        Some(Lists { rows, lists })
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Routes {
    num_nodes: usize,
    /// Node index of each host, in host-index order.
    host_nodes: Vec<usize>,
    /// `(from, to)` node of every directed link.
    ends: Vec<(u32, u32)>,
    dests: Vec<Dest>,
    /// Column of each node in `rows`; `NONE` for a single-homed host.
    col: Vec<u32>,
    /// Per node: a single-homed host's uplink (unused for other nodes).
    uplink: Vec<Uplink>,
    cols: usize,
    /// `rows[group * cols + col]` indexes `spans`.
    rows: Vec<u32>,
    /// Interned next-hop lists: `hops[start..end]`; span 0 is the empty list.
    spans: Vec<(u32, u32)>,
    hops: Vec<u32>,
}

/// Steps of set-up work (nodes and links visited) between two asks of an
/// interrupt check: about a millisecond, so Ctrl-C stops set-up at once
/// while a small topology asks none.
pub const SETUP_POLL_WORK: usize = 1 << 22;

/// Directed link id `2*i` / `2*i+1` for link `i` in direction a→b / b→a.
#[inline]
pub fn directed_link(link: usize, reverse: bool) -> u32 {
    (2 * link + reverse as usize) as u32
}

impl Routes {
    /// Heap bytes of the tables.
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.host_nodes.capacity() * size_of::<usize>()
            + self.ends.capacity() * size_of::<(u32, u32)>()
            + self.dests.capacity() * size_of::<Dest>()
            + self.col.capacity() * 4
            + self.uplink.capacity() * size_of::<Uplink>()
            + self.rows.capacity() * 4
            + self.spans.capacity() * size_of::<(u32, u32)>()
            + self.hops.capacity() * 4
    }

    pub fn compute(topo: &TopologySpec) -> Routes {
        Self::compute_until(topo, &mut || false).expect("a check that never stops")
    }

    /// [`Self::compute`], asking `stop` every [`SETUP_POLL_WORK`] steps of
    /// the per-destination searches (a k = 128 fat-tree's tables take
    /// minutes); `None` if it said stop.
    pub fn compute_until(topo: &TopologySpec, stop: &mut dyn FnMut() -> bool) -> Option<Routes> {
        Self::compute_on(topo, 1, stop)
    }

    /// [`Self::compute_until`] on `threads` threads: the destinations'
    /// searches in blocks of consecutive groups that the threads take in
    /// turn, the caller's among them (it alone asks `stop`, which may need
    /// to run there: Python's signal check does; the others stop with
    /// it), and the lists interned in group order after. The same tables
    /// for any number of threads: a list's number is its first appearance
    /// in group order, and each block's lists, numbered by first
    /// appearance within it, are taken block by block in that order. At
    /// k = 64 the searches are most of a run's set-up.
    pub fn compute_on(
        topo: &TopologySpec,
        threads: usize,
        stop: &mut dyn FnMut() -> bool,
    ) -> Option<Routes> {
        Self::compute_without(topo, &[], threads, stop)
    }

    /// [`Self::compute_on`] with the directed links `dead` names (both
    /// directions of a cable between two switches: the searches assume
    /// full-duplex links; empty: none) left out of every path, as a fabric
    /// whose routing has withdrawn them (`[[failures]]`, `withdrawn`).
    pub fn compute_without(
        topo: &TopologySpec,
        dead: &[bool],
        threads: usize,
        stop: &mut dyn FnMut() -> bool,
    ) -> Option<Routes> {
        let n = topo.nodes.len();
        let host_nodes = topo.hosts();
        let is_host: Vec<bool> = topo
            .nodes
            .iter()
            .map(|x| x.kind == NodeKind::Host)
            .collect();

        // Outgoing adjacency in CSR form, each list in ascending directed-link order.
        let mut ends = Vec::with_capacity(2 * topo.links.len());
        let mut deg = vec![0u32; n + 1];
        for l in &topo.links {
            ends.push((l.a as u32, l.b as u32));
            ends.push((l.b as u32, l.a as u32));
            deg[l.a] += 1;
            deg[l.b] += 1;
        }
        let mut adj_off = vec![0u32; n + 1];
        for i in 0..n {
            adj_off[i + 1] = adj_off[i] + deg[i];
        }
        let mut fill = adj_off.clone();
        let mut adj = vec![0u32; 2 * topo.links.len()]; // directed link ids
        for (id, &(from, _)) in ends.iter().enumerate() {
            let f = from as usize;
            adj[fill[f] as usize] = id as u32;
            fill[f] += 1;
        }
        let out = |v: usize| &adj[adj_off[v] as usize..adj_off[v + 1] as usize];

        // Single-homed hosts, their uplinks, and the columns of everything else.
        let mut uplink = vec![
            Uplink {
                link: NONE,
                gw: NONE
            };
            n
        ];
        let mut col = vec![NONE; n];
        let mut col_nodes = Vec::new();
        for v in 0..n {
            let o = out(v);
            if is_host[v] && o.len() == 1 && !is_host[ends[o[0] as usize].1 as usize] {
                uplink[v] = Uplink {
                    link: o[0],
                    gw: ends[o[0] as usize].1,
                };
            } else {
                col[v] = col_nodes.len() as u32;
                col_nodes.push(v);
            }
        }
        let cols = col_nodes.len();

        // Destination groups: one per gateway switch, one per other host.
        let mut group_of_target: FixedHashMap<usize, u32> = FixedHashMap::default();
        let mut targets = Vec::new();
        let mut dests = Vec::with_capacity(host_nodes.len());
        for &h in &host_nodes {
            let u = uplink[h];
            let target = if u.gw == NONE { h } else { u.gw as usize };
            let group = *group_of_target.entry(target).or_insert_with(|| {
                targets.push(target);
                (targets.len() - 1) as u32
            });
            dests.push(Dest {
                group,
                gw: u.gw,
                down: if u.gw == NONE { NONE } else { u.link ^ 1 },
            });
        }

        // The searches skip the links into single-homed hosts: such a host
        // is never a search's target (its gateway is), never transit and
        // never a column, so neither its distance nor those links decide
        // any row; at k = 64 they are 65,536 of the 70,656 nodes each
        // search would visit.
        let mut fwd_off = vec![0u32; n + 1];
        let mut fwd = Vec::with_capacity(adj.len());
        for v in 0..n {
            fwd.extend(out(v).iter().copied().filter(|&id| {
                uplink[ends[id as usize].1 as usize].link == NONE
                    && !dead.get(id as usize).copied().unwrap_or(false)
            }));
            fwd_off[v + 1] = fwd.len() as u32;
        }
        let fwd_to: Vec<u32> = fwd.iter().map(|&id| ends[id as usize].1).collect();
        let ctx = Search {
            is_host: &is_host,
            to: &fwd_to,
            adj: &fwd,
            adj_off: &fwd_off,
            col_nodes: &col_nodes,
        };
        // Blocks of consecutive groups, taken by whichever thread is free
        // (8 a thread: the last ones in flight are short), merged in order.
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        let threads = threads.max(1);
        let block = targets.len().div_ceil(8 * threads).max(1);
        let blocks: Vec<&[usize]> = targets.chunks(block).collect();
        let (next, halt) = (AtomicUsize::new(0), AtomicBool::new(false));
        let take = |stop: &mut dyn FnMut() -> bool| -> Option<Vec<(usize, Lists)>> {
            let mut done = Vec::new();
            let mut work = 0;
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(part) = blocks.get(i) else {
                    return Some(done);
                };
                done.push((i, ctx.rows(part, &mut work, stop)?));
            }
        };
        let taken: Vec<Option<Vec<(usize, Lists)>>> = std::thread::scope(|s| {
            let handles: Vec<_> = (1..threads.min(blocks.len()))
                .map(|_| s.spawn(|| take(&mut || halt.load(Ordering::Relaxed))))
                .collect();
            let mine = take(&mut || {
                let stopped = stop();
                if stopped {
                    halt.store(true, Ordering::Relaxed);
                }
                stopped
            });
            let mut all = vec![mine];
            all.extend(
                handles
                    .into_iter()
                    .map(|h| h.join().expect("a routing thread panicked")),
            );
            all
        });
        let mut chunks = Vec::with_capacity(blocks.len());
        for t in taken {
            chunks.extend(t?);
        }
        chunks.sort_unstable_by_key(|&(i, _)| i);
        debug_assert!(chunks.iter().enumerate().all(|(i, c)| c.0 == i));
        let mut rows = Vec::with_capacity(targets.len() * cols);
        let mut lists = Interner::new();
        for (_, chunk) in chunks {
            // each block's list numbers, in its order of first appearance
            let global: Vec<u32> = (0..chunk.lists.spans.len() as u32)
                .map(|i| lists.id(chunk.lists.list(i)))
                .collect();
            rows.extend(chunk.rows.iter().map(|&l| global[l as usize]));
        }
        let Interner {
            mut spans,
            mut hops,
            ..
        } = lists;
        hops.shrink_to_fit();
        spans.shrink_to_fit();
        Some(Routes {
            num_nodes: n,
            host_nodes,
            ends,
            dests,
            col,
            uplink,
            cols,
            rows,
            spans,
            hops,
        })
    }

    #[inline]
    fn row(&self, group: u32, col: u32) -> &[u32] {
        let (s, e) = self.spans[self.rows[group as usize * self.cols + col as usize] as usize];
        &self.hops[s as usize..e as usize]
    }

    /// Directed links leaving `node` on some shortest path to host
    /// `dst_host`, ascending; empty if `node` is the destination or cannot
    /// reach it.
    #[inline]
    pub fn next_hops(&self, node: usize, dst_host: usize) -> &[u32] {
        let d = &self.dests[dst_host];
        if node as u32 == d.gw {
            return std::slice::from_ref(&d.down);
        }
        let c = self.col[node];
        if c != NONE {
            return self.row(d.group, c);
        }
        // A single-homed host: everything leaves by its uplink, if it gets there.
        let u = &self.uplink[node];
        if node == self.host_nodes[dst_host]
            || (u.gw != d.gw && self.row(d.group, self.col[u.gw as usize]).is_empty())
        {
            return &[];
        }
        std::slice::from_ref(&u.link)
    }

    /// Bytes the routing state occupies (what the forwarding path reads).
    pub fn table_bytes(&self) -> usize {
        use std::mem::size_of;
        self.dests.len() * size_of::<Dest>()
            + self.col.len() * 4
            + self.uplink.len() * size_of::<Uplink>()
            + self.rows.len() * 4
            + self.spans.len() * 8
            + self.hops.len() * 4
    }

    pub fn num_nodes(&self) -> usize {
        self.num_nodes
    }

    pub fn num_hosts(&self) -> usize {
        self.host_nodes.len()
    }

    /// Node index of host `host`.
    pub fn host_node(&self, host: usize) -> usize {
        self.host_nodes[host]
    }

    /// Node the directed link leaves from.
    pub fn link_source(&self, dlink: u32) -> usize {
        self.ends[dlink as usize].0 as usize
    }

    /// Node the directed link arrives at.
    pub fn link_target(&self, dlink: u32) -> usize {
        self.ends[dlink as usize].1 as usize
    }

    /// Links on a shortest path from host `src_host` to host `dst_host`
    /// (`Some(0)` if they are the same host), `None` if unreachable.
    pub fn hop_count(&self, src_host: usize, dst_host: usize) -> Option<u32> {
        let dst = self.host_nodes[dst_host];
        let mut v = self.host_nodes[src_host];
        let mut n = 0;
        while v != dst {
            let h = self.next_hops(v, dst_host);
            let &first = h.first()?;
            v = self.link_target(first);
            n += 1;
        }
        Some(n)
    }

    /// Number of distinct equal-cost shortest paths (sequences of directed
    /// links) from host `src_host` to host `dst_host`; 1 if they are the
    /// same host, 0 if unreachable. Saturates at `u64::MAX`.
    pub fn path_count(&self, src_host: usize, dst_host: usize) -> u64 {
        let dst = self.host_nodes[dst_host];
        let mut layer: BTreeMap<usize, u64> = BTreeMap::new();
        layer.insert(self.host_nodes[src_host], 1);
        loop {
            if let Some(&c) = layer.get(&dst) {
                return c;
            }
            let mut next: BTreeMap<usize, u64> = BTreeMap::new();
            for (&v, &c) in &layer {
                for &id in self.next_hops(v, dst_host) {
                    let e = next.entry(self.link_target(id)).or_insert(0);
                    *e = e.saturating_add(c);
                }
            }
            if next.is_empty() {
                return 0;
            }
            layer = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Limit, LinkSpec, NodeSpec, NonEct, QueueConfig};
    use crate::net::topology::{self, FatTreeParams, StarParams, DEFAULT_NIC_BUFFER};
    use crate::sim::time::SimTime;

    fn q() -> QueueConfig {
        QueueConfig {
            limit: Limit::Packets(100),
            ecn_k: None,
            non_ect: NonEct::Queue,
        }
    }

    fn fat(k: usize) -> TopologySpec {
        topology::fat_tree(&FatTreeParams {
            k,
            rate_bps: 1_000_000_000,
            delay: SimTime::from_us(1),
            switch_queue: q(),
            nic_buffer: DEFAULT_NIC_BUFFER,
        })
    }

    #[test]
    fn fat_tree_k4_path_counts() {
        let t = fat(4);
        let r = Routes::compute(&t);
        // hosts 0,1 share edge0_0; 2,3 on edge0_1; 4.. pod 1
        assert_eq!(r.path_count(0, 1), 1);
        assert_eq!(r.hop_count(0, 1), Some(2));
        assert_eq!(r.path_count(0, 2), 2);
        assert_eq!(r.hop_count(0, 2), Some(4));
        assert_eq!(r.path_count(0, 4), 4);
        assert_eq!(r.hop_count(0, 4), Some(6));
        assert_eq!(r.path_count(15, 0), 4);
        assert_eq!(r.path_count(3, 3), 1);
        assert_eq!(r.hop_count(3, 3), Some(0));
        // Every pair is symmetric and consistent.
        for s in 0..16 {
            for d in 0..16 {
                let same_edge = s / 2 == d / 2;
                let same_pod = s / 4 == d / 4;
                let want = if s == d || same_edge {
                    1
                } else if same_pod {
                    2
                } else {
                    4
                };
                assert_eq!(r.path_count(s, d), want, "{s}->{d}");
            }
        }
    }

    #[test]
    fn fat_tree_k8_path_counts_and_storage() {
        let t = fat(8);
        let r = Routes::compute(&t);
        assert_eq!(r.num_nodes(), 208);
        assert_eq!(r.num_hosts(), 128);
        assert_eq!(r.path_count(0, 127), 16);
        assert_eq!(r.path_count(0, 5), 4);
        assert_eq!(r.path_count(0, 1), 1);
        // one row group per edge switch, one column per switch
        assert_eq!(r.rows.len(), 32 * 80);
    }

    /// The table as it would be without grouping or interning: one BFS per
    /// destination host, every node's list stored.
    fn reference(topo: &TopologySpec) -> Vec<Vec<Vec<u32>>> {
        let n = topo.nodes.len();
        let is_host: Vec<bool> = topo
            .nodes
            .iter()
            .map(|x| x.kind == NodeKind::Host)
            .collect();
        let mut out: Vec<Vec<(u32, usize)>> = vec![Vec::new(); n];
        for (i, l) in topo.links.iter().enumerate() {
            out[l.a].push((directed_link(i, false), l.b));
            out[l.b].push((directed_link(i, true), l.a));
        }
        for o in &mut out {
            o.sort();
        }
        topo.hosts()
            .into_iter()
            .map(|d| {
                let mut dist = vec![UNREACHED; n];
                dist[d] = 0;
                let mut queue = std::collections::VecDeque::from([d]);
                while let Some(v) = queue.pop_front() {
                    if v != d && is_host[v] {
                        continue;
                    }
                    for &(_, w) in &out[v] {
                        if dist[w] == UNREACHED {
                            dist[w] = dist[v] + 1;
                            queue.push_back(w);
                        }
                    }
                }
                (0..n)
                    .map(|v| {
                        if v == d || dist[v] == UNREACHED {
                            return Vec::new();
                        }
                        out[v]
                            .iter()
                            .filter(|&&(_, w)| {
                                dist[w] != UNREACHED
                                    && dist[w] + 1 == dist[v]
                                    && (w == d || !is_host[w])
                            })
                            .map(|&(id, _)| id)
                            .collect()
                    })
                    .collect()
            })
            .collect()
    }

    fn assert_same_as_reference(t: &TopologySpec) {
        let r = Routes::compute(t);
        let want = reference(t);
        for (d, rows) in want.iter().enumerate() {
            for (v, hops) in rows.iter().enumerate() {
                assert_eq!(r.next_hops(v, d), hops.as_slice(), "node {v} -> host {d}");
            }
        }
    }

    #[test]
    fn grouped_table_equals_per_host_bfs() {
        for k in [2, 4, 6] {
            assert_same_as_reference(&fat(k));
        }
        assert_same_as_reference(&topology::star(&StarParams {
            hosts: 7,
            rate_bps: 1,
            delay: SimTime::ZERO,
            switch_queue: q(),
            nic_buffer: DEFAULT_NIC_BUFFER,
        }));
        // custom: a dual-homed host (h0), a host behind a host (h3 only via
        // h2), parallel links (s1 = s2 twice), an isolated switch island
        let t = TopologySpec {
            nodes: vec![
                node("h0", NodeKind::Host),
                node("h1", NodeKind::Host),
                node("h2", NodeKind::Host),
                node("h3", NodeKind::Host),
                node("s0", NodeKind::Switch),
                node("s1", NodeKind::Switch),
                node("s2", NodeKind::Switch),
                node("s3", NodeKind::Switch),
                node("h4", NodeKind::Host),
            ],
            links: vec![
                link(0, 4),
                link(0, 5),
                link(4, 6),
                link(5, 6),
                link(5, 6),
                link(6, 1),
                link(2, 4),
                link(2, 3),
                link(7, 8),
            ],
        };
        assert_same_as_reference(&t);
    }

    #[test]
    fn table_stays_small_as_the_fat_tree_grows() {
        // 0.16 MB at k = 16: far below one core's cache, where the per-host
        // table (1,024 × 1,344 entries + lists) was ≈ 18 MB.
        let r = Routes::compute(&fat(16));
        assert!(r.table_bytes() < 512 << 10, "{} bytes", r.table_bytes());
        assert_eq!(r.path_count(0, 1023), 64);
    }

    #[test]
    fn next_hops_are_sorted_leave_the_node_and_skip_the_destination() {
        let t = fat(4);
        let r = Routes::compute(&t);
        for d in 0..r.num_hosts() {
            for v in 0..r.num_nodes() {
                let h = r.next_hops(v, d);
                assert!(h.windows(2).all(|w| w[0] < w[1]));
                for &id in h {
                    assert_eq!(r.link_source(id), v);
                    let l = &t.links[id as usize / 2];
                    let (from, to) = if id % 2 == 0 { (l.a, l.b) } else { (l.b, l.a) };
                    assert_eq!((from, to), (v, r.link_target(id)));
                }
            }
            assert!(r.next_hops(r.host_node(d), d).is_empty());
        }
        // Edge switch going up to another pod: both aggregation switches.
        let edge00 = 16;
        assert_eq!(r.next_hops(edge00, 8).len(), 2);
        // Host's only next hop is its uplink, directed a→b (host is `a`).
        assert_eq!(r.next_hops(0, 8), &[0]);
        // Towards host 0 from its edge switch: reverse of link 0.
        assert_eq!(r.next_hops(edge00, 0), &[1]);
    }

    #[test]
    fn star_one_path_two_hops() {
        let t = topology::star(&StarParams {
            hosts: 5,
            rate_bps: 1_000_000_000,
            delay: SimTime::from_us(50),
            switch_queue: q(),
            nic_buffer: DEFAULT_NIC_BUFFER,
        });
        let r = Routes::compute(&t);
        for s in 0..5 {
            for d in 0..5 {
                if s != d {
                    assert_eq!(r.path_count(s, d), 1);
                    assert_eq!(r.hop_count(s, d), Some(2));
                }
            }
        }
    }

    fn node(name: &str, kind: NodeKind) -> NodeSpec {
        NodeSpec {
            name: name.into(),
            kind,
        }
    }
    fn link(a: usize, b: usize) -> LinkSpec {
        LinkSpec {
            a,
            b,
            rate_bps: 1,
            delay: SimTime::ZERO,
            queue_ab: q(),
            queue_ba: q(),
        }
    }

    #[test]
    fn hosts_are_not_transit() {
        // h0 - s - h1 and a shortcut h0 - h2 - h1 through a host: the
        // host-free path (2 hops) must be used even though it ties, and
        // h2 never appears as a transit.
        let t = TopologySpec {
            nodes: vec![
                node("h0", NodeKind::Host),
                node("h1", NodeKind::Host),
                node("h2", NodeKind::Host),
                node("s", NodeKind::Switch),
            ],
            links: vec![link(0, 3), link(3, 1), link(0, 2), link(2, 1)],
        };
        let r = Routes::compute(&t);
        assert_eq!(r.next_hops(0, 1), &[0]);
        assert_eq!(r.path_count(0, 1), 1);
        // Only h0 - h2 - h1 (no switch): unreachable.
        let t2 = TopologySpec {
            nodes: vec![
                node("h0", NodeKind::Host),
                node("h1", NodeKind::Host),
                node("h2", NodeKind::Host),
            ],
            links: vec![link(0, 2), link(2, 1)],
        };
        let r2 = Routes::compute(&t2);
        assert_eq!(r2.hop_count(0, 1), None);
        assert_eq!(r2.path_count(0, 1), 0);
        assert_eq!(r2.hop_count(0, 2), Some(1));
    }

    /// The tables do not depend on how many threads built them: the same
    /// rows, lists and list numbers (a partitioned run's forwarding, and
    /// so its bits, read them), single- and multi-homed hosts alike.
    #[test]
    fn routes_are_the_same_on_any_number_of_threads() {
        // two hosts on two switches each, on a ring of six switches
        let mut nodes: Vec<NodeSpec> = (0..6)
            .map(|i| node(&format!("s{i}"), NodeKind::Switch))
            .collect();
        let mut links: Vec<LinkSpec> = (0..6).map(|i| link(i, (i + 1) % 6)).collect();
        for h in 0..6 {
            nodes.push(node(&format!("h{h}"), NodeKind::Host));
            links.push(link(6 + h, h));
            links.push(link(6 + h, (h + 2) % 6));
        }
        let ring = TopologySpec { nodes, links };
        for t in [fat(4), fat(8), ring] {
            let one = Routes::compute(&t);
            for threads in 2..=5 {
                let r = Routes::compute_on(&t, threads, &mut || false).unwrap();
                assert_eq!(r.rows, one.rows, "{threads} threads");
                assert_eq!(r.spans, one.spans, "{threads} threads");
                assert_eq!(r.hops, one.hops, "{threads} threads");
            }
        }
    }

    /// Asked to stop, a build on several threads stops and returns no
    /// tables, as on one.
    #[test]
    fn routes_on_several_threads_stop_when_asked() {
        let t = fat(32); // 512 searches of 9,472 nodes: several asks a run
        for threads in [1, 2, 3] {
            let mut asked = 0;
            let r = Routes::compute_on(&t, threads, &mut || {
                asked += 1;
                true
            });
            assert!(r.is_none(), "{threads} threads");
            assert_eq!(asked, 1, "{threads} threads: stopped at the first ask");
        }
    }

    proptest::proptest! {
        #![proptest_config(crate::proptest_ci::config(256))]
        /// Any graph of hosts and switches (dual-homed hosts, hosts behind
        /// hosts, parallel links, islands): the grouped tables are the
        /// per-host searches' lists, on one thread and on three.
        #[test]
        fn any_graph_routes_as_per_host_searches(
            kinds in proptest::collection::vec(proptest::bool::ANY, 2..12),
            pairs in proptest::collection::vec((0usize..12, 0usize..12), 0..30),
        ) {
            let n = kinds.len();
            let nodes = kinds
                .iter()
                .enumerate()
                .map(|(i, &host)| node(&format!("n{i}"), if host { NodeKind::Host } else { NodeKind::Switch }))
                .collect();
            let links = pairs
                .iter()
                .map(|&(a, b)| (a % n, b % n))
                .filter(|&(a, b)| a != b)
                .map(|(a, b)| link(a, b))
                .collect();
            let t = TopologySpec { nodes, links };
            assert_same_as_reference(&t);
            proptest::prop_assert_eq!(
                Routes::compute_on(&t, 3, &mut || false),
                Some(Routes::compute(&t))
            );
        }
    }

    #[test]
    fn parallel_links_are_equal_cost() {
        let t = TopologySpec {
            nodes: vec![
                node("h0", NodeKind::Host),
                node("h1", NodeKind::Host),
                node("s0", NodeKind::Switch),
                node("s1", NodeKind::Switch),
            ],
            links: vec![link(0, 2), link(2, 3), link(3, 2), link(3, 1)],
        };
        let r = Routes::compute(&t);
        assert_eq!(r.next_hops(2, 1), &[2, 5]);
        assert_eq!(r.path_count(0, 1), 2);
        assert_eq!(r.hop_count(0, 1), Some(3));
        assert_eq!(directed_link(2, true), 5);
    }
}
