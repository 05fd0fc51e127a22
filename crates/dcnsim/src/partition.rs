//! The topology partitioner of the conservative parallel engine (issue 29).
//!
//! The engine runs each partition's event queue on its own thread and hands
//! packets on cut links over at the end of synchronization windows no
//! longer than [`Partition::lookahead`]. This module decides which nodes
//! may be separated and where to cut; docs/architecture.md ("Partitions for
//! the parallel engine") states the rules.
//!
//! Everything here is deterministic: groups are numbered by their lowest
//! node, ties are broken by index, and no hash map's order reaches a result.

use crate::config::{AppSpec, Config, NodeKind, NodeSpec, TcpConfig};
use crate::sim::time::{tx_time, SimTime};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};

/// UDP and IP header bytes app.rs puts on the wire with every UDP CBR payload.
const UDP_IP_HEADER: u32 = 28;

const NONE: u32 = u32::MAX;

/// Fiduccia–Mattheyses passes at most; each pass that improves the cut
/// costs about as much as the growth, and later passes rarely find more.
const FM_PASSES: usize = 8;

/// A pass gives up after this many moves without a better cut: long chains
/// of losing moves almost never lead back to a gain, and a full pass over
/// every unit would cost O(units · degree) for nothing.
const FM_STALL: usize = 100;

/// How a topology is split among the parallel engine's threads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partition {
    /// Partitions actually made (1 ..= asked).
    pub parts: u32,
    /// Partition of each node, indexed like `cfg.topology.nodes`.
    /// Partitions are numbered in order of their lowest node, so node 0 is
    /// always in partition 0.
    pub node_part: Vec<u32>,
    /// How the cut was chosen: "single", "fat_tree_pods", "leaf_spine_leaves", "graph".
    pub method: &'static str,
    /// Why fewer partitions than asked were made (None if as asked), a
    /// sentence naming the cause.
    pub reason: Option<String>,
    /// Directed link ids (2i = a→b, 2i + 1 = b→a of topology link i, as in
    /// `World::build`) whose ends are in different partitions, ascending.
    pub cut_links: Vec<u32>,
    /// The smallest lookahead over cut links (None when nothing is cut):
    /// for a directed link into node `to`, its propagation delay
    /// (+ `cfg.switch_delay` if `to` is a switch) + the serialization time
    /// of [`min_wire_bytes`] at the link's rate.
    pub lookahead: Option<SimTime>,
    /// Hosts per partition.
    pub hosts_per_part: Vec<u32>,
    /// Total capacity (bit/s) of the cut, each full-duplex link counted once.
    pub cut_capacity_bps: u64,
}

/// The smallest wire size of any packet the scenario can put on a link:
/// over the apps' TCP configs, a pure ACK (`header_bytes + l2_overhead`); a
/// UDP CBR app's payload + 28 + `l2_overhead`; the default [`TcpConfig`]'s
/// ACK if there are no apps; and a trimmed packet's `trimming.header`
/// where switches trim, if smaller.
pub fn min_wire_bytes(cfg: &Config) -> u32 {
    // Matched variant by variant so that a new kind of app cannot slip
    // through without deciding its smallest packet.
    let smallest = cfg
        .apps
        .iter()
        .map(|a| match a {
            // A data segment carries at least one payload byte more than
            // the receiver's pure ACK.
            AppSpec::Bulk { tcp, .. }
            | AppSpec::PartitionAggregate { tcp, .. }
            | AppSpec::SyncReads { tcp, .. } => tcp.header_bytes,
            AppSpec::Poisson(p) => p.tcp.header_bytes,
            AppSpec::UdpCbr { payload_bytes, .. } => payload_bytes.saturating_add(UDP_IP_HEADER),
        })
        .min()
        .unwrap_or_else(|| TcpConfig::default().header_bytes);
    let framed = smallest.saturating_add(cfg.l2_overhead);
    // A trimmed packet is cut to `trimming.header` wire bytes, framing
    // included (net/trim.rs): smaller than an ACK with its framing when
    // `l2_overhead` is set (64 against 40 + 38), it crossed a cut link
    // sooner than the lookahead allowed, and an NDP run with l2_overhead
    // came out differently on 1, 2 and 4 threads (an audit's fuzzing).
    match &cfg.trimming {
        Some(t) => framed.min(t.header_bytes),
        None => framed,
    }
}

/// Split `cfg`'s topology into at most `threads` partitions.
pub fn partition(cfg: &Config, threads: u32) -> Partition {
    let ctx = Ctx::new(cfg);
    let n = cfg.topology.nodes.len();
    if threads <= 1 || n == 0 {
        return ctx.finish(vec![0; n], "single", None);
    }
    // `base`: what the structure alone ties together (a host and every node
    // it links to: its access link is never cut); `full`: plus the apps.
    let mut base = Dsu::new(n);
    for l in &cfg.topology.links {
        if ctx.is_host(l.a) || ctx.is_host(l.b) {
            base.union(l.a, l.b);
        }
    }
    let mut full = base.clone();
    let ties = ties(cfg);
    for t in &ties {
        for w in t.hosts.windows(2) {
            full.union(ctx.hosts[w[0]], ctx.hosts[w[1]]);
        }
    }
    let mut groups = Groups {
        base,
        full,
        ties: &ties,
    };
    let plan = match recognise(&ctx) {
        Some(t) => tiered(&ctx, &t, threads as usize, &mut groups),
        None => graph(&ctx, threads as usize, &mut groups),
    };
    ctx.finish(plan.node_part, plan.method, plan.reason)
}

/// What a method decided, before renumbering and the cut's measures.
struct Plan {
    node_part: Vec<u32>,
    method: &'static str,
    reason: Option<String>,
}

impl Plan {
    fn single(n: usize, reason: String) -> Plan {
        Plan {
            node_part: vec![0; n],
            method: "single",
            reason: Some(reason),
        }
    }
}

struct Ctx<'a> {
    cfg: &'a Config,
    /// Node of each host index.
    hosts: Vec<usize>,
    /// Neighbours of each node, in link order.
    adj: Vec<Vec<usize>>,
}

impl<'a> Ctx<'a> {
    fn new(cfg: &'a Config) -> Self {
        let topo = &cfg.topology;
        let mut adj = vec![Vec::new(); topo.nodes.len()];
        for l in &topo.links {
            adj[l.a].push(l.b);
            adj[l.b].push(l.a);
        }
        Ctx {
            cfg,
            hosts: topo.hosts(),
            adj,
        }
    }

    fn is_host(&self, v: usize) -> bool {
        self.cfg.topology.nodes[v].kind == NodeKind::Host
    }

    /// Renumber, then measure the cut.
    fn finish(&self, raw: Vec<u32>, method: &'static str, reason: Option<String>) -> Partition {
        let cfg = self.cfg;
        let topo = &cfg.topology;
        assert_eq!(raw.len(), topo.nodes.len());
        assert!(
            raw.iter().all(|&k| k != NONE),
            "a node was left without a partition"
        );
        // Partition 0 holds node 0, partition 1 the lowest node not in 0, …:
        // the numbering follows the nodes, not the order a method found them.
        let mut renum: BTreeMap<u32, u32> = BTreeMap::new();
        let node_part: Vec<u32> = raw
            .iter()
            .map(|&k| {
                let next = renum.len() as u32;
                *renum.entry(k).or_insert(next)
            })
            .collect();
        let parts = (renum.len() as u32).max(1);
        let mut hosts_per_part = vec![0u32; parts as usize];
        for &h in &self.hosts {
            hosts_per_part[node_part[h] as usize] += 1;
        }
        let wire = min_wire_bytes(cfg) as u64;
        let mut cut_links = Vec::new();
        let mut cut_capacity_bps = 0u64;
        let mut lookahead: Option<SimTime> = None;
        for (i, l) in topo.links.iter().enumerate() {
            if node_part[l.a] == node_part[l.b] {
                continue;
            }
            cut_links.extend([2 * i as u32, 2 * i as u32 + 1]);
            cut_capacity_bps = cut_capacity_bps.saturating_add(l.rate_bps);
            for to in [l.b, l.a] {
                let t = if cfg.pfc.is_some() {
                    // a PAUSE or RESUME crosses in the propagation delay
                    // alone (net/pfc.rs), and a paused port's packet is
                    // handed over when it starts, past the switch's delay
                    l.delay
                } else if cfg.trimming.is_some() || self.is_host(to) {
                    // (a trimming port's packet is handed over when it
                    // starts, past the switch's delay: net/trim.rs)
                    l.delay + tx_time(wire, l.rate_bps)
                } else {
                    l.delay + tx_time(wire, l.rate_bps) + cfg.switch_delay
                };
                lookahead = Some(lookahead.map_or(t, |m| m.min(t)));
            }
        }
        Partition {
            parts,
            node_part,
            method: if parts == 1 { "single" } else { method },
            reason,
            cut_links,
            lookahead,
            hosts_per_part,
            cut_capacity_bps,
        }
    }
}

/// Union-find whose root is always the group's lowest node, so groups come
/// out in node order whatever order the unions ran in.
#[derive(Clone)]
struct Dsu(Vec<u32>);

impl Dsu {
    fn new(n: usize) -> Self {
        Dsu((0..n as u32).collect())
    }

    fn find(&mut self, mut x: usize) -> usize {
        while self.0[x] as usize != x {
            self.0[x] = self.0[self.0[x] as usize];
            x = self.0[x] as usize;
        }
        x
    }

    fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.0[ra.max(rb)] = ra.min(rb) as u32;
        }
    }
}

/// An app whose hosts must share a partition.
struct Tie {
    app: usize,
    kind: &'static str,
    /// Host indices, sorted, distinct.
    hosts: Vec<usize>,
}

fn ties(cfg: &Config) -> Vec<Tie> {
    let tie = |app: usize, kind: &'static str, first: usize, rest: &[usize]| {
        let mut hosts: Vec<usize> = std::iter::once(first).chain(rest.iter().copied()).collect();
        hosts.sort_unstable();
        hosts.dedup();
        Tie { app, kind, hosts }
    };
    cfg.apps
        .iter()
        .enumerate()
        .filter_map(|(i, a)| match a {
            // Their app code reads the state of every flow of a round at
            // zero delay to decide when the round is over.
            AppSpec::PartitionAggregate {
                aggregator,
                workers,
                ..
            } => Some(tie(i, "partition_aggregate", *aggregator, workers)),
            AppSpec::SyncReads {
                client, servers, ..
            } => Some(tie(i, "sync_reads", *client, servers)),
            // The engine carries a bulk or UDP flow's packets across a cut
            // like any other. Every partition draws a Poisson app's
            // arrivals from the seed and opens each flow, and the sender's
            // partition starts it: nothing it does reads across the cut.
            AppSpec::Bulk { .. } | AppSpec::UdpCbr { .. } | AppSpec::Poisson(_) => None,
        })
        .collect()
}

/// The structural and the app-level union-finds, and the apps behind the
/// latter, for naming the cause when they limit the partitions.
struct Groups<'t> {
    base: Dsu,
    full: Dsu,
    ties: &'t [Tie],
}

impl Groups<'_> {
    /// The first app whose hosts fall in more than one of the groups the
    /// structure alone allows to separate (`unit` maps a host's node to
    /// its group), as a sentence.
    fn tie_cause(&self, ctx: &Ctx, mut unit: impl FnMut(usize) -> usize) -> Option<String> {
        let mut binding = self.ties.iter().filter(|t| {
            let first = unit(ctx.hosts[t.hosts[0]]);
            t.hosts[1..].iter().any(|&h| unit(ctx.hosts[h]) != first)
        });
        let t = binding.next()?;
        let more = match binding.count() {
            0 => String::new(),
            1 => " (and 1 more app)".into(),
            m => format!(" (and {} more apps)", crate::text::count(m)),
        };
        Some(format!(
            "app {} ({}) keeps hosts {} together{more}",
            t.app,
            t.kind,
            host_ranges(&t.hosts)
        ))
    }
}

/// `0..=3, 8, 12..=15`, the first few runs of sorted host indices.
fn host_ranges(hosts: &[usize]) -> String {
    const SHOWN: usize = 6;
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &h in hosts {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == h => *end = h,
            _ => runs.push((h, h)),
        }
    }
    let mut s = runs
        .iter()
        .take(SHOWN)
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}..={b}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ");
    if runs.len() > SHOWN {
        s += &format!(" and {} more runs", runs.len() - SHOWN);
    }
    s
}

// ---- fat-tree and leaf-spine / two-tier: whole lower units, top tier dealt

/// A node's place in a builder's naming scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Host,
    Edge(u64),
    Aggr(u64),
    Core(u64),
    /// `leaf{i}` or a two-tier `tor{i}`.
    Leaf(u64),
    /// `spine{i}` or the two-tier `agg`.
    Spine(u64),
    Other,
}

fn number(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

fn role(node: &NodeSpec) -> Role {
    if node.kind == NodeKind::Host {
        return Role::Host;
    }
    let name = node.name.as_str();
    let pod = |rest: &str| {
        let (p, i) = rest.split_once('_')?;
        number(i)?;
        number(p)
    };
    let numbered = |prefix: &str| name.strip_prefix(prefix).and_then(number);
    if let Some(p) = name.strip_prefix("edge").and_then(pod) {
        Role::Edge(p)
    } else if let Some(p) = name.strip_prefix("aggr").and_then(pod) {
        Role::Aggr(p)
    } else if let Some(i) = numbered("core") {
        Role::Core(i)
    } else if let Some(i) = numbered("leaf").or_else(|| numbered("tor")) {
        Role::Leaf(i)
    } else if let Some(i) = numbered("spine") {
        Role::Spine(i)
    } else if name == "agg" {
        Role::Spine(0)
    } else {
        Role::Other
    }
}

/// A recognised tiered fabric: units kept whole with their hosts (pods, or
/// single leaves), and the top-tier switches joining them.
struct Tiers {
    method: &'static str,
    fabric: &'static str,
    unit_noun: &'static str,
    /// Switch nodes of each unit, units in the order they are dealt.
    units: Vec<Vec<usize>>,
    top: Vec<usize>,
}

/// The builder's fat-tree or leaf-spine/two-tier, recognised by names *and*
/// structure: with every link between the expected tiers, whole units with
/// the top tier elsewhere cut exactly the unit↔top links. Anything else
/// (a renamed switch, one extra link) is left to the graph method.
fn recognise(ctx: &Ctx) -> Option<Tiers> {
    let roles: Vec<Role> = ctx.cfg.topology.nodes.iter().map(role).collect();
    if roles.contains(&Role::Other) {
        return None;
    }
    let fat = roles
        .iter()
        .any(|r| matches!(r, Role::Edge(_) | Role::Aggr(_) | Role::Core(_)));
    let ls = roles
        .iter()
        .any(|r| matches!(r, Role::Leaf(_) | Role::Spine(_)));
    if fat == ls {
        return None;
    }
    for (v, nbrs) in ctx.adj.iter().enumerate() {
        // An unattached host has no switch whose partition it could follow.
        if roles[v] == Role::Host && nbrs.is_empty() {
            return None;
        }
        for &w in nbrs {
            let ok = match (roles[v], roles[w]) {
                (Role::Host, Role::Edge(_)) | (Role::Edge(_), Role::Host) => true,
                (Role::Edge(p), Role::Aggr(q)) | (Role::Aggr(p), Role::Edge(q)) => p == q,
                (Role::Aggr(_), Role::Core(_)) | (Role::Core(_), Role::Aggr(_)) => true,
                (Role::Host, Role::Leaf(_)) | (Role::Leaf(_), Role::Host) => true,
                (Role::Leaf(_), Role::Spine(_)) | (Role::Spine(_), Role::Leaf(_)) => true,
                _ => false,
            };
            if !ok {
                return None;
            }
        }
    }
    let sorted = |keep: &dyn Fn(Role) -> Option<u64>| {
        let mut v: Vec<(u64, usize)> = (0..roles.len())
            .filter_map(|i| keep(roles[i]).map(|k| (k, i)))
            .collect();
        v.sort_unstable();
        v.into_iter().map(|(_, i)| i).collect::<Vec<usize>>()
    };
    let t = if fat {
        let mut pods: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
        for (i, r) in roles.iter().enumerate() {
            if let Role::Edge(p) | Role::Aggr(p) = *r {
                pods.entry(p).or_default().push(i);
            }
        }
        Tiers {
            method: "fat_tree_pods",
            fabric: "fat-tree",
            unit_noun: "pods",
            units: pods.into_values().collect(),
            top: sorted(&|r| match r {
                Role::Core(i) => Some(i),
                _ => None,
            }),
        }
    } else {
        Tiers {
            method: "leaf_spine_leaves",
            fabric: "topology",
            unit_noun: "leaf (ToR) switches",
            units: sorted(&|r| match r {
                Role::Leaf(i) => Some(i),
                _ => None,
            })
            .into_iter()
            .map(|s| vec![s])
            .collect(),
            top: sorted(&|r| match r {
                Role::Spine(i) => Some(i),
                _ => None,
            }),
        }
    };
    // One unit cannot be split this way; the graph method may still find a cut.
    (t.units.len() >= 2).then_some(t)
}

/// Units merged by a union-find: the block of each unit (blocks numbered in
/// order of their lowest unit), the block count, and a unit of each
/// union-find root that holds a unit switch.
fn blocks(t: &Tiers, dsu: &mut Dsu, n: usize) -> (Vec<u32>, usize, Vec<u32>) {
    let nu = t.units.len();
    let mut merged = Dsu::new(nu);
    let mut unit_of_root = vec![NONE; n];
    for (u, members) in t.units.iter().enumerate() {
        for &s in members {
            let r = dsu.find(s);
            if unit_of_root[r] == NONE {
                unit_of_root[r] = u as u32;
            } else {
                merged.union(unit_of_root[r] as usize, u);
            }
        }
    }
    let mut block_of_root = vec![NONE; nu];
    let mut block = vec![NONE; nu];
    let mut nb = 0;
    for (u, b) in block.iter_mut().enumerate() {
        let r = merged.find(u);
        if block_of_root[r] == NONE {
            block_of_root[r] = nb;
            nb += 1;
        }
        *b = block_of_root[r];
    }
    (block, nb as usize, unit_of_root)
}

fn tiered(ctx: &Ctx, t: &Tiers, threads: usize, g: &mut Groups) -> Plan {
    let n = ctx.cfg.topology.nodes.len();
    let (base_block, nb_base, base_unit) = blocks(t, &mut g.base, n);
    let (block, nb, unit_of_root) = blocks(t, &mut g.full, n);
    let p = threads.min(nb);
    let reason = (p < threads).then(|| {
        let mut causes = Vec::new();
        if nb < nb_base.min(threads) {
            let base = &mut g.base.clone();
            causes.extend(g.tie_cause(ctx, |h| {
                base_block[base_unit[base.find(h)] as usize] as usize
            }));
        }
        if nb_base < threads {
            causes.push(if nb_base == t.units.len() {
                format!(
                    "the {} has {nb_base} {}, each kept whole with its hosts",
                    t.fabric, t.unit_noun
                )
            } else {
                format!(
                    "the {}'s {} {} form {nb_base} groups tied by hosts attached to several",
                    t.fabric,
                    t.units.len(),
                    t.unit_noun
                )
            });
        }
        causes.join("; ")
    });
    if p <= 1 {
        return Plan::single(n, reason.unwrap_or_default());
    }
    let unit_of_host = |full: &mut Dsu, h: usize| unit_of_root[full.find(h)] as usize;
    let mut weight = vec![0u64; nb];
    for &h in &ctx.hosts {
        weight[block[unit_of_host(&mut g.full, h)] as usize] += 1;
    }
    let part_of_block = deal(&weight, p);
    let mut node_part = vec![NONE; n];
    for (u, members) in t.units.iter().enumerate() {
        for &s in members {
            node_part[s] = part_of_block[block[u] as usize];
        }
    }
    for &h in &ctx.hosts {
        node_part[h] = part_of_block[block[unit_of_host(&mut g.full, h)] as usize];
    }
    // A top switch links only to units (one link each in the builders), so
    // wherever it goes its links to the other partitions' units are cut:
    // with balanced partitions its place hardly changes the cut, and
    // contiguous equal-sized blocks share the top tier's work out evenly.
    let nt = t.top.len();
    for (j, &s) in t.top.iter().enumerate() {
        node_part[s] = (j * p / nt) as u32;
    }
    Plan {
        node_part,
        method: t.method,
        reason,
    }
}

/// Contiguous groups of `w` into `p` parts, none empty: cut j is the
/// prefix sum nearest j·total/p (the earlier on a tie) that leaves room
/// for the parts after it. Equal weights in a multiple of `p` come out
/// exactly equal.
fn deal(w: &[u64], p: usize) -> Vec<u32> {
    let n = w.len();
    assert!(p >= 1 && p <= n, "deal {n} items into {p} parts");
    let mut prefix = vec![0u128; n + 1];
    for i in 0..n {
        prefix[i + 1] = prefix[i] + w[i] as u128;
    }
    let total = prefix[n];
    let mut cuts = vec![0usize];
    for j in 1..p {
        let target = total * j as u128;
        let lo = cuts[j - 1] + 1;
        let hi = n - (p - j);
        let best = (lo..=hi)
            .min_by_key(|&i| (prefix[i] * p as u128).abs_diff(target))
            .expect("lo <= hi: at least one item per part");
        cuts.push(best);
    }
    cuts.push(n);
    let mut part = vec![0u32; n];
    for j in 0..p {
        part[cuts[j]..cuts[j + 1]].fill(j as u32);
    }
    part
}

// ---- any other graph: grow from separated seeds, then refine

/// The contracted graph: one vertex per app-level group (a switch with its
/// hosts, or what an app ties together), parallel links summed.
struct UnitGraph {
    off: Vec<usize>,
    nbr: Vec<u32>,
    cap: Vec<u64>,
    /// Hosts in each unit.
    w: Vec<u64>,
}

impl UnitGraph {
    fn build(ctx: &Ctx, unit_of: &[u32], nu: usize) -> UnitGraph {
        let mut w = vec![0u64; nu];
        for &h in &ctx.hosts {
            w[unit_of[h] as usize] += 1;
        }
        let e = ctx.cfg.topology.links.iter().filter_map(|l| {
            let (a, b) = (unit_of[l.a], unit_of[l.b]);
            (a != b).then_some((a, b, l.rate_bps))
        });
        UnitGraph::from_edges(w, e)
    }

    /// From unit weights and undirected edges (a, b, capacity), any order.
    fn from_edges(w: Vec<u64>, edges: impl Iterator<Item = (u32, u32, u64)>) -> UnitGraph {
        let nu = w.len();
        let mut e: Vec<(u32, u32, u64)> =
            edges.flat_map(|(a, b, c)| [(a, b, c), (b, a, c)]).collect();
        // Sorted, so parallel links are adjacent and summed, and every
        // neighbour list comes out in index order.
        e.sort_unstable();
        let mut off = vec![0usize; nu + 1];
        let mut nbr = Vec::new();
        let mut cap: Vec<u64> = Vec::new();
        let mut last = None;
        for (a, b, c) in e {
            if last == Some((a, b)) {
                let s = cap.last_mut().expect("a merged edge follows its first");
                *s = s.saturating_add(c);
            } else {
                nbr.push(b);
                cap.push(c);
                off[a as usize + 1] += 1;
                last = Some((a, b));
            }
        }
        for u in 0..nu {
            off[u + 1] += off[u];
        }
        UnitGraph { off, nbr, cap, w }
    }

    fn len(&self) -> usize {
        self.w.len()
    }

    fn edges(&self, u: usize) -> impl Iterator<Item = (usize, u64)> + '_ {
        let r = self.off[u]..self.off[u + 1];
        self.nbr[r.clone()]
            .iter()
            .zip(&self.cap[r])
            .map(|(&v, &c)| (v as usize, c))
    }

    /// Hop counts from `from` (`u32::MAX`: unreachable).
    fn bfs(&self, from: usize) -> Vec<u32> {
        let mut d = vec![u32::MAX; self.len()];
        d[from] = 0;
        let mut q = VecDeque::from([from]);
        while let Some(u) = q.pop_front() {
            for (v, _) in self.edges(u) {
                if d[v] == u32::MAX {
                    d[v] = d[u] + 1;
                    q.push_back(v);
                }
            }
        }
        d
    }

    /// `p` units with hosts, far apart: the one farthest from `start`, then
    /// repeatedly the one farthest from all chosen (lowest index on a tie).
    fn seeds(&self, p: usize, start: usize) -> Vec<usize> {
        let mut chosen = vec![false; self.len()];
        let farthest = |d: &[u32], chosen: &[bool]| {
            (0..self.len())
                .filter(|&u| self.w[u] > 0 && !chosen[u])
                .max_by_key(|&u| (d[u], Reverse(u)))
                .expect("p is at most the number of units with hosts")
        };
        let mut dist = self.bfs(start);
        let mut seeds = Vec::with_capacity(p);
        for k in 0..p {
            let s = farthest(&dist, &chosen);
            chosen[s] = true;
            seeds.push(s);
            let d = self.bfs(s);
            if k == 0 {
                dist = d;
            } else {
                for (m, x) in dist.iter_mut().zip(d) {
                    *m = (*m).min(x);
                }
            }
        }
        seeds
    }
}

/// Host-count bounds every partition should keep: ±10 % of the mean, or
/// one unit's hosts when a unit is bigger than that.
#[derive(Clone, Copy)]
struct Bounds {
    lo: u64,
    hi: u64,
}

impl Bounds {
    fn new(hosts: u64, p: u64, wmax: u64) -> Bounds {
        Bounds {
            lo: (9 * hosts / (10 * p)).min((hosts / p).saturating_sub(wmax)),
            hi: (11 * hosts)
                .div_ceil(10 * p)
                .max(hosts.div_ceil(p).saturating_add(wmax)),
        }
    }

    fn violation(self, load: u64) -> u64 {
        load.saturating_sub(self.hi) + self.lo.saturating_sub(load)
    }

    /// Whether moving `w` hosts from part `a` to `b` is allowed: it leaves
    /// `a` some host and does not take the pair further out of bounds.
    fn fits(self, load: &[u64], a: usize, b: usize, w: u64) -> bool {
        if w == 0 {
            return true;
        }
        if load[a] <= w {
            return false;
        }
        let before = self.violation(load[a]) + self.violation(load[b]);
        before >= self.violation(load[a] - w) + self.violation(load[b] + w)
    }
}

/// Capacity from one unit to each partition, reused across units.
struct Tally {
    conn: Vec<u128>,
    touched: Vec<u32>,
    /// (partition, capacity) of the partitions other than the unit's own.
    out: Vec<(u32, u128)>,
}

impl Tally {
    fn new(p: usize) -> Tally {
        Tally {
            conn: vec![0; p],
            touched: Vec::new(),
            out: Vec::new(),
        }
    }

    /// Capacity to the unit's own partition; `self.out` holds the others.
    fn run(&mut self, g: &UnitGraph, part: &[u32], u: usize) -> u128 {
        for (v, c) in g.edges(u) {
            let k = part[v] as usize;
            if !self.touched.contains(&(k as u32)) {
                self.touched.push(k as u32);
            }
            self.conn[k] += c as u128;
        }
        let own = part[u];
        let internal = self.conn[own as usize];
        self.out.clear();
        for &k in &self.touched {
            if k != own {
                self.out.push((k, self.conn[k as usize]));
            }
            self.conn[k as usize] = 0;
        }
        self.touched.clear();
        internal
    }
}

struct Refiner<'g> {
    g: &'g UnitGraph,
    part: Vec<u32>,
    load: Vec<u64>,
    bounds: Bounds,
    tally: Tally,
}

impl<'g> Refiner<'g> {
    /// Balanced BFS growth: the partition with the fewest hosts takes the
    /// next unit of its own BFS frontier. Among equally loaded ones the one
    /// with fewer units goes first, so host-less switches are shared out
    /// instead of all going to partition 0.
    fn grow(g: &'g UnitGraph, seeds: &[usize], bounds: Bounds) -> Refiner<'g> {
        let p = seeds.len();
        let mut r = Refiner {
            g,
            part: vec![NONE; g.len()],
            load: vec![0; p],
            bounds,
            tally: Tally::new(p),
        };
        let mut frontier: Vec<VecDeque<usize>> = vec![VecDeque::new(); p];
        let mut size = vec![0usize; p];
        let take = |r: &mut Refiner,
                    frontier: &mut [VecDeque<usize>],
                    size: &mut [usize],
                    u: usize,
                    k: usize| {
            r.part[u] = k as u32;
            r.load[k] += g.w[u];
            size[k] += 1;
            frontier[k].extend(g.edges(u).map(|(v, _)| v).filter(|&v| r.part[v] == NONE));
        };
        for (k, &s) in seeds.iter().enumerate() {
            take(&mut r, &mut frontier, &mut size, s, k);
        }
        let mut next_free = 0;
        loop {
            for f in frontier.iter_mut() {
                while f.front().is_some_and(|&u| r.part[u] != NONE) {
                    f.pop_front();
                }
            }
            let lightest =
                |r: &Refiner, size: &[usize], frontier: &[VecDeque<usize>], any: bool| {
                    (0..p)
                        .filter(|&k| any || !frontier[k].is_empty())
                        .min_by_key(|&k| (r.load[k], size[k], k))
                };
            if let Some(k) = lightest(&r, &size, &frontier, false) {
                let u = frontier[k].pop_front().expect("a non-empty frontier");
                take(&mut r, &mut frontier, &mut size, u, k);
                continue;
            }
            // Only a disconnected graph gets here: start its next piece in
            // the lightest partition.
            while next_free < g.len() && r.part[next_free] != NONE {
                next_free += 1;
            }
            if next_free == g.len() {
                break;
            }
            let k = lightest(&r, &size, &frontier, true).expect("p >= 1");
            take(&mut r, &mut frontier, &mut size, next_free, k);
        }
        r
    }

    fn apply(&mut self, u: usize, to: u32) {
        let w = self.g.w[u];
        self.load[self.part[u] as usize] -= w;
        self.load[to as usize] += w;
        self.part[u] = to;
    }

    /// The best allowed move of `u` to a neighbouring partition: the
    /// largest cut reduction, then the lighter destination, then the lower.
    fn best_move(&mut self, u: usize) -> Option<(i128, u32)> {
        let internal = self.tally.run(self.g, &self.part, u) as i128;
        let a = self.part[u] as usize;
        let w = self.g.w[u];
        let mut best: Option<(i128, u32)> = None;
        for &(b, c) in &self.tally.out {
            if !self.bounds.fits(&self.load, a, b as usize, w) {
                continue;
            }
            let gain = c as i128 - internal;
            let better = best.is_none_or(|(bg, bb)| {
                (gain, Reverse(self.load[b as usize]), Reverse(b))
                    > (bg, Reverse(self.load[bb as usize]), Reverse(bb))
            });
            if better {
                best = Some((gain, b));
            }
        }
        best
    }

    /// Bring partitions that growth left out of bounds back in. Moving one
    /// unit to a neighbouring partition is not always possible: a partition
    /// enclosed by another through switches without hosts (a pod behind its
    /// aggregation switches) has no host on its border. So the receiving
    /// partition takes the nearest unit with hosts whose move reduces the
    /// violation, together with the host-less units on the way to it; those
    /// change no load, so every step strictly reduces the total violation.
    fn rebalance(&mut self) {
        let p = self.load.len();
        for _ in 0..self.g.len() {
            let v = |x: u64| self.bounds.violation(x);
            // Out-of-bounds partitions, furthest out first; each paired with
            // the partitions that could take or give it hosts, lightest
            // (heaviest) first, until one pair has a path.
            let mut out: Vec<usize> = (0..p).filter(|&k| v(self.load[k]) > 0).collect();
            out.sort_by_key(|&k| (Reverse(v(self.load[k])), k));
            let mut by_load: Vec<usize> = (0..p).collect();
            by_load.sort_by_key(|&k| (self.load[k], k));
            let path = out.iter().find_map(|&k| {
                if self.load[k] < self.bounds.lo {
                    self.path_to_hosts(k, None).map(|path| (k, path))
                } else {
                    by_load
                        .iter()
                        .filter(|&&to| to != k)
                        .find_map(|&to| self.path_to_hosts(to, Some(k)).map(|path| (to, path)))
                }
            });
            let Some((to, path)) = path else {
                return;
            };
            for u in path {
                self.apply(u, to as u32);
            }
        }
    }

    /// BFS from partition `to` through host-less units to the nearest unit
    /// with hosts (in partition `from`, if given) whose move to `to` reduces
    /// the violation; the units from the first step to it.
    fn path_to_hosts(&self, to: usize, from: Option<usize>) -> Option<Vec<usize>> {
        let nu = self.g.len();
        let mut prev = vec![NONE; nu];
        let mut q: VecDeque<usize> = (0..nu).filter(|&u| self.part[u] as usize == to).collect();
        for &u in &q {
            prev[u] = u as u32;
        }
        let v = |x: u64| self.bounds.violation(x);
        while let Some(u) = q.pop_front() {
            for (x, _) in self.g.edges(u) {
                if prev[x] != NONE {
                    continue;
                }
                prev[x] = u as u32;
                let (b, w) = (self.part[x] as usize, self.g.w[x]);
                if w == 0 {
                    q.push_back(x);
                    continue;
                }
                let (lb, lt) = (self.load[b], self.load[to]);
                let helps =
                    from.is_none_or(|f| f == b) && lb > w && v(lb - w) + v(lt + w) < v(lb) + v(lt);
                if helps {
                    let mut path = vec![x];
                    let mut y = u;
                    while self.part[y] as usize != to {
                        path.push(y);
                        y = prev[y] as usize;
                    }
                    return Some(path);
                }
            }
        }
        None
    }

    /// One Fiduccia–Mattheyses pass: move the unlocked unit with the best
    /// gain (losing moves too, to climb out of local minima), lock it, and
    /// keep the prefix of moves with the smallest cut. Whether it improved.
    fn fm_pass(&mut self) -> bool {
        let nu = self.g.len();
        let mut locked = vec![false; nu];
        let mut version = vec![0u32; nu];
        let mut heap = BinaryHeap::new();
        for u in 0..nu {
            if let Some((gain, to)) = self.best_move(u) {
                heap.push((gain, Reverse(u), to, 0u32));
            }
        }
        let mut log: Vec<(usize, u32)> = Vec::new();
        let (mut cum, mut best, mut best_len, mut stale) = (0i128, 0i128, 0usize, 0usize);
        while let Some((gain, Reverse(u), to, ver)) = heap.pop() {
            if locked[u] || ver != version[u] {
                continue;
            }
            // Loads moved since this entry was pushed: take it only if it
            // is still the unit's best move, else queue the current one.
            match self.best_move(u) {
                Some(m) if m == (gain, to) => {}
                Some((g2, t2)) => {
                    version[u] += 1;
                    heap.push((g2, Reverse(u), t2, version[u]));
                    continue;
                }
                None => continue,
            }
            log.push((u, self.part[u]));
            self.apply(u, to);
            locked[u] = true;
            cum += gain;
            if cum > best {
                (best, best_len, stale) = (cum, log.len(), 0);
            } else {
                stale += 1;
                if stale >= FM_STALL {
                    break;
                }
            }
            for i in self.g.off[u]..self.g.off[u + 1] {
                let v = self.g.nbr[i] as usize;
                if locked[v] {
                    continue;
                }
                version[v] += 1;
                if let Some((g2, t2)) = self.best_move(v) {
                    heap.push((g2, Reverse(v), t2, version[v]));
                }
            }
        }
        for &(u, from) in log[best_len..].iter().rev() {
            self.apply(u, from);
        }
        best > 0
    }
}

fn graph(ctx: &Ctx, threads: usize, g: &mut Groups) -> Plan {
    let topo = &ctx.cfg.topology;
    let n = topo.nodes.len();
    let switches = n - ctx.hosts.len();
    if switches <= 1 {
        let why = if switches == 1 {
            "the topology has one switch, and every host stays with its switch"
        } else {
            "the topology has no switch, and linked hosts stay together"
        };
        return Plan::single(n, why.into());
    }
    // Units: the app-level groups, numbered by their lowest node.
    let mut unit_of = vec![NONE; n];
    let mut nu = 0u32;
    for v in 0..n {
        let r = g.full.find(v);
        if unit_of[r] == NONE {
            unit_of[r] = nu;
            nu += 1;
        }
        unit_of[v] = unit_of[r];
    }
    let ug = UnitGraph::build(ctx, &unit_of, nu as usize);
    let with_hosts = ug.w.iter().filter(|&&w| w > 0).count();
    let mut base_with_hosts: Vec<usize> = ctx.hosts.iter().map(|&h| g.base.find(h)).collect();
    base_with_hosts.sort_unstable();
    base_with_hosts.dedup();
    let nb_base = base_with_hosts.len();
    let p = threads.min(with_hosts);
    let reason = (p < threads).then(|| {
        let mut causes = Vec::new();
        if with_hosts < nb_base.min(threads) {
            let base = &mut g.base.clone();
            causes.extend(g.tie_cause(ctx, |h| base.find(h)));
        }
        if nb_base < threads {
            let groups = match nb_base {
                1 => "one switch (or group of switches) with hosts".to_string(),
                m => format!("{m} switches (or groups of switches) with hosts"),
            };
            causes.push(format!(
                "the topology has {groups}, and a host stays with every switch it attaches to"
            ));
        }
        causes.join("; ")
    });
    if p <= 1 {
        return Plan::single(n, reason.unwrap_or_default());
    }
    let hosts = ctx.hosts.len() as u64;
    let wmax = ug.w.iter().copied().max().unwrap_or(0);
    let bounds = Bounds::new(hosts, p as u64, wmax);
    let seeds = ug.seeds(p, unit_of[0] as usize);
    let mut r = Refiner::grow(&ug, &seeds, bounds);
    r.rebalance();
    for _ in 0..FM_PASSES {
        if !r.fm_pass() {
            break;
        }
    }
    Plan {
        node_part: unit_of.iter().map(|&u| r.part[u as usize]).collect(),
        method: "graph",
        reason,
    }
}

// ------------------------------------------------ a partition's world

/// A TCP or UDP drop in a partitioned run: the key of the event that
/// dropped it, so the partitions' drops replay into each flow's drop runs
/// in the order one thread would have counted them.
#[derive(Clone, Copy, Debug)]
pub struct DropRec {
    pub key: u128,
    pub flow: u32,
    pub txn: u32,
    pub kind: crate::net::PktKind,
}

/// [`PartCtx::app_home`] of an app that every partition runs and counts
/// (a Poisson app: each draws every arrival, and is done when the flows
/// it receives are; the run's end is the last partition's).
pub const EVERY_PART: u32 = u32::MAX;

/// What a partition's world knows of the partitioning.
pub struct PartCtx {
    pub me: u32,
    /// Partition of each node.
    pub node_part: std::sync::Arc<Vec<u32>>,
    /// Partition of each host.
    pub host_part: std::sync::Arc<Vec<u32>>,
    /// The partition whose count of unfinished apps holds each app: a
    /// bulk or UDP app's receiving end's (where it learns it is done), a
    /// round-based app's (all its hosts are there), or [`EVERY_PART`].
    pub app_home: std::sync::Arc<Vec<u32>>,
    /// The apps whose events this partition runs: its home apps, the bulk
    /// and UDP apps whose sending end it holds, the apps every partition
    /// runs.
    pub app_runs: Vec<bool>,
    /// The home apps this partition saw finish (the merge counts the
    /// unfinished ones).
    pub app_finished: Vec<bool>,
    /// The app whose event or message runs now.
    pub cur_app: u32,
    /// Events run here that another partition runs too (an app's event at
    /// both ends, the time-series sample everywhere): counted once.
    pub dup_events: u64,
    /// Key of the event that finished this partition's last home app.
    pub zero_at: Option<u128>,
    /// Its TCP and UDP drops in event order, replayed across partitions
    /// into the flows' drop runs when the worlds merge.
    pub drops: Vec<DropRec>,
}

/// A partition's world runs its nodes, hosts and apps, and tells this
/// context of what the merge and the run's end need.
impl crate::world::Seam for PartCtx {
    #[inline]
    fn runs_node(&self, node: u32) -> bool {
        self.node_part[node as usize] == self.me
    }
    #[inline]
    fn runs_host(&self, host: u32) -> bool {
        self.owns_host(host)
    }
    fn runs_app(&self, app: u32) -> bool {
        self.app_runs[app as usize]
    }
    fn counts_app(&self, app: u32) -> bool {
        self.is_home_of(app)
    }
    fn app_event(&mut self, app: u32) {
        self.enter_app(app)
    }
    fn app_message(&mut self, app: u32) {
        self.cur_app = app;
    }
    fn app_done(&mut self) -> bool {
        self.finish_app()
    }
    fn all_apps_done(&mut self, key: u128) {
        self.zero_at = Some(key);
    }
    fn sample(&mut self) {
        // every partition samples its own; counted once
        self.dup_events += (self.me != 0) as u64;
    }
    fn dropped(&mut self, key: u128, flow: u32, txn: u32, kind: crate::net::PktKind) {
        self.drops.push(DropRec {
            key,
            flow,
            txn,
            kind,
        });
    }
}

impl PartCtx {
    #[inline]
    pub fn owns_host(&self, h: u32) -> bool {
        self.host_part[h as usize] == self.me
    }
    pub fn home_of(&self, app: u32) -> u32 {
        self.app_home[app as usize]
    }
    pub fn runs_app(&self, app: u32) -> bool {
        self.app_runs[app as usize]
    }
    /// Whether this partition counts app `app` among its unfinished ones.
    pub fn is_home_of(&self, app: u32) -> bool {
        let h = self.home_of(app);
        h == self.me || h == EVERY_PART
    }
    /// Whether the app running now counts as done here.
    pub fn is_home(&self) -> bool {
        self.is_home_of(self.cur_app)
    }
    /// An app's event starts here: counted once over the partitions (by
    /// its home, or partition 0 for an app every partition runs).
    pub fn enter_app(&mut self, app: u32) {
        self.cur_app = app;
        let counted = match self.home_of(app) {
            EVERY_PART => 0,
            h => h,
        };
        if counted != self.me {
            self.dup_events += 1;
        }
    }
    /// The app running now finished here; whether it counts here (it is
    /// one of this partition's home apps).
    pub fn finish_app(&mut self) -> bool {
        if !self.is_home() {
            return false;
        }
        self.app_finished[self.cur_app as usize] = true;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::LinkSpec;
    use crate::scenario::parse_config_str;

    fn cfg(extra: &str, topology: &str, apps: &str) -> Config {
        let doc = format!(
            r#"{{"name": "part", "stop": "1ms", {extra} "topology": {topology}, "apps": [{apps}]}}"#
        );
        parse_config_str(&doc).expect("valid scenario")
    }

    fn fat_tree(k: usize) -> String {
        format!(
            r#"{{"kind": "fat_tree", "k": {k}, "rate": "10Gbps", "delay": "1us", "buffer": "100pkt"}}"#
        )
    }

    const BULK: &str = r#"{"kind": "bulk", "src": 0, "dst": 1, "size": "1MB"}"#;

    fn name(c: &Config, v: usize) -> &str {
        &c.topology.nodes[v].name
    }

    /// The lookahead of one directed link, from its LinkSpec.
    fn link_lookahead(c: &Config, l: &LinkSpec, to: usize) -> SimTime {
        if c.pfc.is_some() {
            return l.delay;
        }
        let sw = if c.topology.nodes[to].kind == NodeKind::Switch && c.trimming.is_none() {
            c.switch_delay
        } else {
            SimTime::ZERO
        };
        l.delay + sw + tx_time(min_wire_bytes(c) as u64, l.rate_bps)
    }

    /// The laws every partition obeys, whatever the method.
    fn laws(c: &Config, threads: u32, p: &Partition) {
        let t = &c.topology;
        let np = &p.node_part;
        assert_eq!(np.len(), t.nodes.len(), "every node assigned");
        assert!(p.parts >= 1 && p.parts <= threads.max(1));
        assert!(np.iter().all(|&k| k < p.parts));
        // Numbered by first appearance, so node 0 is in partition 0 and none is empty.
        let mut seen = 0;
        for &k in np {
            assert!(k <= seen, "partition {k} appears before {seen}");
            if k == seen {
                seen += 1;
            }
        }
        assert_eq!(seen, p.parts, "no empty partition");
        assert_eq!(p.method == "single", p.parts == 1);
        assert_eq!(
            p.reason.is_some(),
            p.parts < threads.max(1),
            "a reason exactly when fewer partitions than asked: {:?}",
            p.reason
        );
        let mut hosts = vec![0u32; p.parts as usize];
        for h in t.hosts() {
            hosts[np[h] as usize] += 1;
        }
        assert_eq!(p.hosts_per_part, hosts);
        let mut cut = Vec::new();
        let mut cap = 0;
        let mut look: Option<SimTime> = None;
        for (i, l) in t.links.iter().enumerate() {
            let host_link =
                t.nodes[l.a].kind == NodeKind::Host || t.nodes[l.b].kind == NodeKind::Host;
            if np[l.a] != np[l.b] {
                assert!(!host_link, "host link {i} cut");
                cut.extend([2 * i as u32, 2 * i as u32 + 1]);
                cap += l.rate_bps;
                for x in [link_lookahead(c, l, l.b), link_lookahead(c, l, l.a)] {
                    look = Some(look.map_or(x, |m| m.min(x)));
                }
            }
        }
        assert_eq!(p.cut_links, cut);
        assert_eq!(p.cut_capacity_bps, cap);
        assert_eq!(p.lookahead, look);
        // Apps that read their flows' state at zero delay stay whole.
        for a in &c.apps {
            let group: Vec<usize> = match a {
                AppSpec::PartitionAggregate {
                    aggregator,
                    workers,
                    ..
                } => std::iter::once(*aggregator)
                    .chain(workers.iter().copied())
                    .collect(),
                AppSpec::SyncReads {
                    client, servers, ..
                } => std::iter::once(*client)
                    .chain(servers.iter().copied())
                    .collect(),
                _ => continue,
            };
            let hosts = t.hosts();
            assert!(group.iter().all(|&h| np[hosts[h]] == np[hosts[group[0]]]));
        }
    }

    fn fat_tree_pod(c: &Config, v: usize) -> Option<u64> {
        match role(&c.topology.nodes[v]) {
            Role::Edge(p) | Role::Aggr(p) => Some(p),
            _ => None,
        }
    }

    #[test]
    fn fat_tree_is_cut_between_whole_pods_and_the_cores() {
        for k in [4usize, 8] {
            for threads in [2u32, 4] {
                let c = cfg("", &fat_tree(k), BULK);
                let p = partition(&c, threads);
                laws(&c, threads, &p);
                assert_eq!(p.method, "fat_tree_pods");
                assert_eq!(p.parts, threads);
                let hosts = c.topology.hosts().len() as u32;
                assert!(
                    p.hosts_per_part.iter().all(|&h| h == hosts / threads),
                    "{p:?}"
                );
                for &d in &p.cut_links {
                    let l = &c.topology.links[d as usize / 2];
                    let mut ends = [name(&c, l.a), name(&c, l.b)];
                    ends.sort();
                    assert!(
                        ends[0].starts_with("aggr") && ends[1].starts_with("core"),
                        "{ends:?}"
                    );
                }
                // Each pod whole: its switches and the hosts under them.
                let mut pod_part: BTreeMap<u64, u32> = BTreeMap::new();
                for v in 0..c.topology.nodes.len() {
                    if let Some(pod) = fat_tree_pod(&c, v) {
                        assert_eq!(
                            *pod_part.entry(pod).or_insert(p.node_part[v]),
                            p.node_part[v]
                        );
                    }
                }
                assert_eq!(pod_part.len(), k);
                // Cores dealt evenly.
                let mut cores = vec![0usize; threads as usize];
                for v in 0..c.topology.nodes.len() {
                    if name(&c, v).starts_with("core") {
                        cores[p.node_part[v] as usize] += 1;
                    }
                }
                assert!(cores.iter().max().unwrap() - cores.iter().min().unwrap() <= 1);
            }
        }
    }

    #[test]
    fn fat_tree_with_more_threads_than_pods_gives_one_pod_each() {
        let k = 4;
        let c = cfg("", &fat_tree(k), BULK);
        let p = partition(&c, 8);
        laws(&c, 8, &p);
        assert_eq!(p.parts as usize, k);
        let why = p.reason.expect("capped");
        assert!(why.contains(&format!("{k} pods")), "{why}");
    }

    #[test]
    fn leaf_spine_and_two_tier_are_cut_between_leaves_and_spines() {
        let ls = r#"{"kind": "leaf_spine", "leaves": 4, "spines": 3, "hosts_per_leaf": 3,
            "host_rate": "10Gbps", "fabric_rate": "40Gbps", "delay": "1us", "buffer": "100pkt"}"#;
        let tt = r#"{"kind": "two_tier", "racks": 4, "hosts_per_rack": 2, "host_rate": "1Gbps",
            "core_rate": "10Gbps", "delay": "5us", "buffer": "100pkt"}"#;
        for (topo, lower, upper) in [(ls, "leaf", "spine"), (tt, "tor", "agg")] {
            let c = cfg("", topo, BULK);
            let p = partition(&c, 2);
            laws(&c, 2, &p);
            assert_eq!((p.parts, p.method), (2, "leaf_spine_leaves"));
            let count = |prefix: &str| {
                let mut n = vec![0usize; 2];
                for v in 0..c.topology.nodes.len() {
                    if name(&c, v).starts_with(prefix) {
                        n[p.node_part[v] as usize] += 1;
                    }
                }
                n
            };
            let leaves = count(lower);
            assert_eq!(leaves[0], leaves[1], "leaves split evenly");
            let spines = count(upper);
            assert!(spines[0].abs_diff(spines[1]) <= 1, "spines dealt evenly");
            assert_eq!(p.hosts_per_part[0], p.hosts_per_part[1]);
            for &d in &p.cut_links {
                let l = &c.topology.links[d as usize / 2];
                let (a, b) = (name(&c, l.a), name(&c, l.b));
                assert!(
                    (a.starts_with(lower) && b.starts_with(upper))
                        || (a.starts_with(upper) && b.starts_with(lower)),
                    "{a}-{b}"
                );
            }
            assert!(!p.cut_links.is_empty());
        }
        let c = cfg("", ls, BULK);
        let p = partition(&c, 6);
        laws(&c, 6, &p);
        assert_eq!(p.parts, 4);
        assert!(p.reason.unwrap().contains("4 leaf"));
    }

    /// Two clusters of switches, each a ring of 10 Gbps links with hosts on
    /// every switch, joined by one 1 Gbps link.
    fn two_clusters() -> (String, usize) {
        let mut nodes = Vec::new();
        let mut links = Vec::new();
        let link = |links: &mut Vec<String>, a: String, b: String, rate: &str| {
            links.push(format!(
                r#"{{"a": "{a}", "b": "{b}", "rate": "{rate}", "delay": "2us"}}"#
            ));
        };
        let mut h = 0;
        for (cl, switches, per) in [("x", 3, 2), ("y", 2, 3)] {
            for s in 0..switches {
                nodes.push(format!(r#"{{"name": "{cl}{s}", "kind": "switch"}}"#));
                for _ in 0..per {
                    nodes.push(format!(r#"{{"name": "n{h}", "kind": "host"}}"#));
                    link(&mut links, format!("n{h}"), format!("{cl}{s}"), "10Gbps");
                    h += 1;
                }
                if s > 0 {
                    link(
                        &mut links,
                        format!("{cl}{}", s - 1),
                        format!("{cl}{s}"),
                        "10Gbps",
                    );
                }
            }
            link(
                &mut links,
                format!("{cl}0"),
                format!("{cl}{}", switches - 1),
                "10Gbps",
            );
        }
        let thin = links.len();
        link(&mut links, "x1".into(), "y1".into(), "1Gbps");
        let topo = format!(
            r#"{{"kind": "custom", "buffer": "100pkt", "nodes": [{}], "links": [{}]}}"#,
            nodes.join(","),
            links.join(",")
        );
        (topo, thin)
    }

    #[test]
    fn graph_method_cuts_only_the_thin_link_between_two_clusters() {
        let (topo, thin) = two_clusters();
        let c = cfg(r#""switch_delay": "1us","#, &topo, BULK);
        let p = partition(&c, 2);
        laws(&c, 2, &p);
        assert_eq!(p.method, "graph");
        assert_eq!(p.cut_links, vec![2 * thin as u32, 2 * thin as u32 + 1]);
        assert_eq!(p.cut_capacity_bps, c.topology.links[thin].rate_bps);
    }

    #[test]
    fn a_fat_tree_that_does_not_match_the_builder_is_cut_as_a_graph() {
        let k = 4;
        let pods = partition(&cfg("", &fat_tree(k), BULK), 2);
        // A renamed switch, and an extra link between pods: either breaks
        // the pod structure the fat-tree method relies on.
        let mut renamed = cfg("", &fat_tree(k), BULK);
        let e = renamed
            .topology
            .nodes
            .iter()
            .position(|n| n.name == "edge1_0")
            .unwrap();
        renamed.topology.nodes[e].name = "tor-a".into();
        let mut linked = cfg("", &fat_tree(k), BULK);
        let find = |c: &Config, s: &str| c.topology.nodes.iter().position(|n| n.name == s).unwrap();
        let (a, b) = (find(&linked, "edge0_0"), find(&linked, "edge1_0"));
        let mut extra = linked.topology.links.last().unwrap().clone();
        (extra.a, extra.b) = (a, b);
        linked.topology.links.push(extra);
        for c in [renamed, linked] {
            let p = partition(&c, 2);
            laws(&c, 2, &p);
            assert_eq!(p.method, "graph");
            assert_eq!(p.parts, 2);
            // Balance within ±10 % or one switch's hosts of the mean.
            let mean = c.topology.hosts().len() as u32 / 2;
            let slack = (k as u32 / 2).max(mean / 10);
            assert!(
                p.hosts_per_part.iter().all(|&h| h.abs_diff(mean) <= slack),
                "{p:?}"
            );
            // No worse than whole pods (the extra link adds at most itself).
            assert!(
                p.cut_capacity_bps <= pods.cut_capacity_bps + c.topology.links[0].rate_bps,
                "{p:?}"
            );
        }
    }

    #[test]
    fn graph_method_keeps_balance_on_a_ring_with_chords() {
        // 12 ToRs with 2..=4 hosts in a ring, chords of varying rate.
        let mut nodes = Vec::new();
        let mut links = Vec::new();
        let mut h = 0;
        let tors = 12;
        for s in 0..tors {
            nodes.push(format!(r#"{{"name": "s{s}", "kind": "switch"}}"#));
            for _ in 0..2 + s % 3 {
                nodes.push(format!(r#"{{"name": "n{h}", "kind": "host"}}"#));
                links.push(format!(
                    r#"{{"a": "n{h}", "b": "s{s}", "rate": "10Gbps", "delay": "1us"}}"#
                ));
                h += 1;
            }
            links.push(format!(
                r#"{{"a": "s{s}", "b": "s{}", "rate": "{}Gbps", "delay": "1us"}}"#,
                (s + 1) % tors,
                10 + s
            ));
            if s % 4 == 0 {
                links.push(format!(
                    r#"{{"a": "s{s}", "b": "s{}", "rate": "5Gbps", "delay": "3us"}}"#,
                    (s + 5) % tors
                ));
            }
        }
        let topo = format!(
            r#"{{"kind": "custom", "buffer": "100pkt", "nodes": [{}], "links": [{}]}}"#,
            nodes.join(","),
            links.join(",")
        );
        let c = cfg("", &topo, BULK);
        for threads in [2u32, 3, 5] {
            let p = partition(&c, threads);
            laws(&c, threads, &p);
            assert_eq!((p.parts, p.method), (threads, "graph"));
            let total = h as u64;
            let b = Bounds::new(total, threads as u64, 4);
            assert!(
                p.hosts_per_part.iter().all(|&x| b.violation(x as u64) == 0),
                "{threads}: {:?}",
                p.hosts_per_part
            );
        }
    }

    #[test]
    fn partition_aggregate_across_pods_keeps_the_pods_together() {
        // Aggregator in pod 0, workers in pod 3 of a k = 4 fat-tree.
        let pa = r#"{"kind": "partition_aggregate", "aggregator": 0, "workers": "12-15"}"#;
        let c = cfg("", &fat_tree(4), pa);
        let hosts = c.topology.hosts();
        for threads in [2u32, 4] {
            let p = partition(&c, threads);
            laws(&c, threads, &p);
            assert_eq!(p.method, "fat_tree_pods");
            assert_eq!(p.node_part[hosts[0]], p.node_part[hosts[15]]);
            let pods_with = |part: u32| {
                (0..c.topology.nodes.len())
                    .filter(|&v| p.node_part[v] == part)
                    .filter_map(|v| fat_tree_pod(&c, v))
                    .collect::<std::collections::BTreeSet<_>>()
            };
            assert!(pods_with(p.node_part[hosts[0]]).is_superset(&[0, 3].into()));
            if threads == 4 {
                assert_eq!(p.parts, 3);
                let why = p.reason.expect("capped");
                assert!(
                    why.contains("app 0 (partition_aggregate)") && why.contains("0, 12..=15"),
                    "{why}"
                );
            } else {
                assert_eq!(p.parts, 2);
            }
        }
        // The same through the graph method.
        let (topo, _) = two_clusters();
        let sr = r#"{"kind": "sync_reads", "client": 0, "servers": [1, 7]}"#;
        let c = cfg("", &topo, sr);
        let p = partition(&c, 2);
        laws(&c, 2, &p);
        assert_eq!(p.method, "graph");
        // Five switches with hosts, two of them tied: four partitions at most.
        let p = partition(&c, 5);
        laws(&c, 5, &p);
        assert_eq!(p.parts, 4);
        let why = p.reason.expect("capped");
        assert!(
            why.contains("app 0 (sync_reads) keeps hosts 0..=1, 7 together"),
            "{why}"
        );
    }

    #[test]
    fn poisson_is_cut_and_a_star_gives_one_partition_with_a_reason() {
        // a Poisson app ties no hosts: its arrivals are drawn everywhere
        let poisson = r#"{"kind": "poisson", "load": 0.5, "cdf": [[100, 0], ["1KB", 1]],
            "flows": 3, "duration": "1ms"}"#;
        let c = cfg("", &fat_tree(4), &format!("{BULK}, {poisson}"));
        let p = partition(&c, 4);
        laws(&c, 4, &p);
        assert_eq!((p.parts, p.method, p.reason), (4, "fat_tree_pods", None));
        let star =
            r#"{"kind": "star", "hosts": 8, "rate": "1Gbps", "delay": "1us", "buffer": "100pkt"}"#;
        let c = cfg("", star, BULK);
        let p = partition(&c, 4);
        laws(&c, 4, &p);
        assert!(p.reason.as_deref().unwrap().contains("one switch"));
        // One rack under its aggregation switch: the hosts hold their ToR.
        let rack = r#"{"kind": "two_tier", "racks": 1, "hosts_per_rack": 4, "host_rate": "1Gbps",
            "core_rate": "10Gbps", "delay": "5us", "buffer": "100pkt"}"#;
        let c1 = cfg("", rack, BULK);
        let p = partition(&c1, 2);
        laws(&c1, 2, &p);
        assert!(p.reason.as_deref().unwrap().contains("one switch"), "{p:?}");
        // Asked for one thread, nothing to explain.
        for threads in [0, 1] {
            let p = partition(&c, threads);
            laws(&c, threads, &p);
            assert_eq!(p.reason, None);
        }
    }

    #[test]
    fn lookahead_is_the_smallest_over_cut_links() {
        // Mixed rates and delays, switch delay and L2 framing: `laws`
        // recomputes the minimum from the LinkSpecs.
        let (topo, _) = two_clusters();
        let extra = r#""switch_delay": "700ns", "l2_overhead": 38,"#;
        let udp = r#"{"kind": "udp_cbr", "src": 2, "dst": 9, "rate": "1Mbps", "payload": 10}"#;
        for apps in [BULK.to_string(), format!("{BULK}, {udp}")] {
            let c = cfg(extra, &topo, &apps);
            for threads in [2, 3] {
                let p = partition(&c, threads);
                laws(&c, threads, &p);
                assert!(p.lookahead.is_some());
            }
        }
        let c = cfg("", &fat_tree(4), BULK);
        assert_eq!(partition(&c, 1).lookahead, None);
    }

    #[test]
    fn min_wire_bytes_counts_a_trimmed_header_smaller_than_a_framed_ack() {
        let mut c = crate::scenario::parse_config(&serde_json::json!({
            "stop": "1ms", "l2_overhead": 38, "trimming": {},
            "topology": {"kind": "star", "hosts": 3, "rate": "10Gbps", "delay": "1us", "buffer": "60KB"},
            "tcp": {"transport": "ndp", "mss": 1460},
            "apps": [{"kind": "bulk", "src": 1, "dst": 0, "size": "1MB"}]
        }))
        .unwrap();
        // an ACK 40 + 38 framed, a trimmed packet 64 on the wire
        assert_eq!(min_wire_bytes(&c), 64);
        c.trimming = None;
        assert_eq!(min_wire_bytes(&c), 78);
    }

    #[test]
    fn min_wire_bytes_is_the_smallest_packet() {
        let tcp = r#"{"kind": "bulk", "src": 0, "dst": 1, "size": "1MB", "tcp": {"header": 20}}"#;
        let udp = |payload: u32| {
            format!(
                r#"{{"kind": "udp_cbr", "src": 2, "dst": 3, "rate": "1Mbps", "payload": {payload}}}"#
            )
        };
        let l2 = r#""l2_overhead": 38,"#;
        let ack = |c: &Config| {
            c.apps
                .iter()
                .filter_map(|a| a.tcp())
                .map(|t| t.header_bytes + c.l2_overhead)
                .min()
                .unwrap()
        };
        let c = cfg(l2, &fat_tree(4), &format!("{BULK}, {tcp}"));
        assert_eq!(min_wire_bytes(&c), ack(&c));
        assert_eq!(min_wire_bytes(&c), 20 + c.l2_overhead);
        // A small UDP payload is below any ACK; a large one is not.
        let c = cfg(l2, &fat_tree(4), &format!("{BULK}, {}", udp(1)));
        assert_eq!(min_wire_bytes(&c), 1 + UDP_IP_HEADER + c.l2_overhead);
        assert!(min_wire_bytes(&c) < ack(&c));
        let c = cfg(l2, &fat_tree(4), &format!("{BULK}, {}", udp(1000)));
        assert_eq!(min_wire_bytes(&c), ack(&c));
        let mut c = cfg(l2, &fat_tree(4), BULK);
        c.apps.clear();
        assert_eq!(
            min_wire_bytes(&c),
            TcpConfig::default().header_bytes + c.l2_overhead
        );
    }

    #[test]
    fn partitions_are_deterministic() {
        let (topo, _) = two_clusters();
        let configs = [
            cfg("", &fat_tree(8), BULK),
            cfg("", &topo, BULK),
            cfg(
                "",
                &fat_tree(4),
                r#"{"kind": "partition_aggregate", "aggregator": 0, "workers": "12-15"}"#,
            ),
        ];
        for c in &configs {
            for threads in [2, 3, 4] {
                assert_eq!(partition(c, threads), partition(c, threads));
            }
        }
    }

    #[test]
    fn deal_gives_contiguous_non_empty_balanced_groups() {
        let cases: [(&[u64], usize); 5] = [
            (&[4; 8], 4),
            (&[1; 10], 4),
            (&[0, 0, 0, 10], 4),
            (&[1, 1, 10, 1, 1], 2),
            (&[3, 1, 4, 1, 5, 9, 2, 6], 3),
        ];
        for (w, p) in cases {
            let d = deal(w, p);
            assert_eq!(d[0], 0);
            assert!(d.windows(2).all(|x| x[1] == x[0] || x[1] == x[0] + 1));
            assert_eq!(*d.last().unwrap() as usize, p - 1);
            let mut sums = vec![0u64; p];
            for (i, &k) in d.iter().enumerate() {
                sums[k as usize] += w[i];
            }
            let total: u64 = w.iter().sum();
            let wmax = *w.iter().max().unwrap();
            assert!(
                sums.iter().all(|&s| s <= total.div_ceil(p as u64) + wmax),
                "{w:?} {sums:?}"
            );
            if w.iter().all(|&x| x == w[0]) && w.len() % p == 0 {
                assert!(sums.iter().all(|&s| s == total / p as u64), "{sums:?}");
            }
        }
    }
    /// A random connected custom topology: a random tree of switches plus
    /// extra links, each host on a random switch, rates and delays from a
    /// few values.
    fn random_custom(parents: &[u32], extra: &[(u32, u32)], hosts: &[u32], speed: &[u8]) -> String {
        let switches = parents.len() + 1;
        let rates = ["1Gbps", "10Gbps", "40Gbps"];
        let delays = ["500ns", "1us", "3us"];
        let mut k = 0;
        let mut link = |a: String, b: String| {
            let s = speed[k % speed.len()] as usize;
            k += 1;
            format!(
                r#"{{"a": "{a}", "b": "{b}", "rate": "{}", "delay": "{}"}}"#,
                rates[s % 3],
                delays[s / 3 % 3]
            )
        };
        let mut nodes: Vec<String> = (0..switches)
            .map(|i| format!(r#"{{"name": "s{i}", "kind": "switch"}}"#))
            .collect();
        let mut links = Vec::new();
        for (i, &p) in parents.iter().enumerate() {
            links.push(link(
                format!("s{}", i + 1),
                format!("s{}", p as usize % (i + 1)),
            ));
        }
        for &(a, b) in extra {
            let (a, b) = (a as usize % switches, b as usize % switches);
            if a != b {
                links.push(link(format!("s{a}"), format!("s{b}")));
            }
        }
        for (h, &sw) in hosts.iter().enumerate() {
            nodes.push(format!(r#"{{"name": "n{h}", "kind": "host"}}"#));
            links.push(link(
                format!("n{h}"),
                format!("s{}", sw as usize % switches),
            ));
        }
        format!(
            r#"{{"kind": "custom", "buffer": "100pkt", "nodes": [{}], "links": [{}]}}"#,
            nodes.join(","),
            links.join(",")
        )
    }

    proptest::proptest! {
        #![proptest_config(crate::proptest_ci::config(64))]

        /// Any connected graph, with or without an app tying hosts: the
        /// laws hold, every graph partition has hosts, and a second call
        /// gives the same partition.
        #[test]
        fn random_graphs_obey_the_laws(
            parents in proptest::collection::vec(0u32..1000, 1..12),
            extra in proptest::collection::vec((0u32..1000, 0u32..1000), 0..12),
            hosts in proptest::collection::vec(0u32..1000, 2..24),
            speed in proptest::collection::vec(0u8..9, 1..8),
            workers in proptest::collection::vec(0usize..1000, 0..4),
            threads in 2u32..7,
        ) {
            let topo = random_custom(&parents, &extra, &hosts, &speed);
            let n = hosts.len();
            let mut apps = vec![format!(
                r#"{{"kind": "bulk", "src": 0, "dst": {}, "size": "1MB"}}"#,
                n - 1
            )];
            let mut ws: Vec<usize> = workers.iter().map(|w| 1 + w % (n - 1)).collect();
            ws.sort_unstable();
            ws.dedup();
            if !ws.is_empty() {
                let list = ws.iter().map(|w| w.to_string()).collect::<Vec<_>>().join(",");
                apps.push(format!(
                    r#"{{"kind": "partition_aggregate", "aggregator": 0, "workers": [{list}]}}"#
                ));
            }
            let c = cfg(r#""switch_delay": "200ns","#, &topo, &apps.join(","));
            let p = partition(&c, threads);
            laws(&c, threads, &p);
            if p.method == "graph" {
                proptest::prop_assert!(p.hosts_per_part.iter().all(|&h| h >= 1), "{:?}", p);
            }
            proptest::prop_assert_eq!(&p, &partition(&c, threads));
        }

        #[test]
        fn deal_is_contiguous_and_balanced(
            w in proptest::collection::vec(0u64..20, 1..30),
            p in 1usize..30,
        ) {
            let p = p.min(w.len());
            let d = deal(&w, p);
            proptest::prop_assert_eq!(d[0], 0);
            proptest::prop_assert!(d.windows(2).all(|x| x[1] == x[0] || x[1] == x[0] + 1));
            proptest::prop_assert_eq!(*d.last().unwrap() as usize, p - 1);
            let mut sums = vec![0u64; p];
            for (i, &k) in d.iter().enumerate() {
                sums[k as usize] += w[i];
            }
            let total: u64 = w.iter().sum();
            let wmax = *w.iter().max().unwrap();
            proptest::prop_assert!(
                sums.iter().all(|&s| s <= total.div_ceil(p as u64) + wmax),
                "{:?} {:?}", w, sums
            );
        }
    }
}

#[cfg(test)]
mod refine_tests {
    use super::*;

    fn cut(r: &Refiner) -> u64 {
        (0..r.g.len())
            .flat_map(|u| r.g.edges(u).map(move |(v, c)| (u, v, c)))
            .filter(|&(u, v, _)| u < v && r.part[u] != r.part[v])
            .map(|(_, _, c)| c)
            .sum()
    }

    fn refiner<'g>(g: &'g UnitGraph, part: &[u32], p: usize) -> Refiner<'g> {
        let mut load = vec![0; p];
        for (u, &k) in part.iter().enumerate() {
            load[k as usize] += g.w[u];
        }
        let hosts = g.w.iter().sum();
        let wmax = *g.w.iter().max().unwrap();
        Refiner {
            g,
            part: part.to_vec(),
            load,
            bounds: Bounds::new(hosts, p as u64, wmax),
            tally: Tally::new(p),
        }
    }

    /// A pod (unit 0) enclosed by host-less switches of the other
    /// partition: no unit with hosts borders it, so the light partition
    /// must take the switches on the way to the nearest hosts.
    #[test]
    fn rebalance_reaches_hosts_through_switches_without_hosts() {
        let w = vec![2, 0, 0, 0, 2, 2, 2, 2];
        let edges = [(0, 1), (1, 2), (2, 3), (3, 4), (3, 5), (3, 6), (3, 7)];
        let g = UnitGraph::from_edges(w, edges.iter().map(|&(a, b)| (a, b, 10)));
        let mut r = refiner(&g, &[0, 1, 1, 1, 1, 1, 1, 1], 2);
        assert!(r.load.iter().any(|&l| r.bounds.violation(l) > 0));
        let total: u64 = r.load.iter().sum();
        r.rebalance();
        assert!(
            r.load.iter().all(|&l| r.bounds.violation(l) == 0),
            "{:?}",
            r.load
        );
        assert_eq!(r.load.iter().sum::<u64>(), total);
        // The units on the way went along: partition 0 is still connected.
        let mut seen = vec![false; g.len()];
        let mut stack = vec![0];
        seen[0] = true;
        while let Some(u) = stack.pop() {
            for (v, _) in g.edges(u) {
                if r.part[v] == 0 && !seen[v] {
                    seen[v] = true;
                    stack.push(v);
                }
            }
        }
        assert!((0..g.len()).all(|u| r.part[u] != 0 || seen[u]));
    }

    /// Two 4-cliques of 10-unit links joined by one 1-unit link, started
    /// with one unit of each on the wrong side: FM finds the thin cut and
    /// never leaves the bounds.
    #[test]
    fn fm_finds_the_thin_cut_from_a_bad_start() {
        let mut edges = Vec::new();
        for base in [0u32, 4] {
            for a in 0..4 {
                for b in a + 1..4 {
                    edges.push((base + a, base + b, 10));
                }
            }
        }
        edges.push((3, 4, 1));
        let g = UnitGraph::from_edges(vec![1; 8], edges.into_iter());
        let mut r = refiner(&g, &[0, 0, 0, 1, 0, 1, 1, 1], 2);
        let before = cut(&r);
        let mut passes = 0;
        while r.fm_pass() {
            passes += 1;
            assert!(passes <= FM_PASSES);
            assert!(r.load.iter().all(|&l| r.bounds.violation(l) == 0));
        }
        assert!(cut(&r) < before);
        assert_eq!(cut(&r), 1, "{:?}", r.part);
        assert_eq!(r.part[0..4], [r.part[0]; 4]);
        assert_eq!(r.part[4..8], [r.part[4]; 4]);
    }
}
