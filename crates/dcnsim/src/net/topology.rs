//! Topology builders: typed parameters (already in base units) →
//! [`TopologySpec`].
//!
//! Conventions shared by every builder:
//! * hosts come first in `nodes` (`"h0"`, `"h1"`, …), so for the built-in
//!   kinds host index == node index; switches follow;
//! * on a host–switch link the host's side (its NIC egress queue) uses
//!   `nic_buffer` with no ECN marking, the switch's side uses the switch's
//!   queue configuration;
//! * `links` lists host links first, then switch–switch links, in a fixed
//!   order, so the directed-link numbering of [`crate::net::routing`] is stable.
//!
//! `scenario.rs` parses and range-checks the parameters; the builders here
//! only assume the counts are ≥ 1 (and `k` even), and use checked
//! arithmetic via [`TopologyParams::node_count`].

use crate::config::{Limit, LinkSpec, NodeKind, NodeSpec, NonEct, QueueConfig, TopologySpec};
use crate::sim::time::SimTime;
use std::collections::BTreeMap;
use std::fmt;

/// A problem with a custom topology's structure: where, relative to the
/// topology (`links[3].a`; empty for the topology as a whole), and why.
/// A scenario reports it under its own `topology` key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopologyError {
    pub path: String,
    pub message: String,
}

impl fmt::Display for TopologyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for TopologyError {}

/// Default host NIC egress buffer (`nic_buffer`): 100 packets, as ns-3's
/// point-to-point device queue. A NIC that can hold a whole receive window
/// lets a sender whose own link is the bottleneck queue its excess there,
/// never see loss, and pace out perfectly periodic packets that lock other
/// flows out of a full drop-tail switch queue.
pub const DEFAULT_NIC_BUFFER: Limit = Limit::Packets(100);

/// Upper bound on the number of nodes a builder may create (guards against
/// typos such as `k = 4000` allocating gigabytes).
pub const MAX_NODES: u64 = 1_000_000;

/// Upper bound on the number of links, checked before building for the
/// same reason (`leaves = spines = 10000` is 10⁸ links, ~50 GB of state).
pub const MAX_LINKS: u64 = 16_000_000;

#[derive(Clone, Debug, PartialEq)]
pub struct StarParams {
    pub hosts: usize,
    pub rate_bps: u64,
    pub delay: SimTime,
    pub switch_queue: QueueConfig,
    pub nic_buffer: Limit,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TwoTierParams {
    pub racks: usize,
    pub hosts_per_rack: usize,
    /// Host–ToR links.
    pub host_rate_bps: u64,
    /// ToR–aggregation links.
    pub core_rate_bps: u64,
    pub delay: SimTime,
    /// ToR egress ports towards hosts.
    pub tor_queue: QueueConfig,
    /// ToR egress port towards the aggregation switch (at core rate).
    pub uplink_queue: QueueConfig,
    /// Every aggregation-switch egress port.
    pub agg_queue: QueueConfig,
    pub nic_buffer: Limit,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FatTreeParams {
    /// Even, ≥ 2.
    pub k: usize,
    pub rate_bps: u64,
    pub delay: SimTime,
    pub switch_queue: QueueConfig,
    pub nic_buffer: Limit,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LeafSpineParams {
    pub leaves: usize,
    pub spines: usize,
    pub hosts_per_leaf: usize,
    /// Host–leaf links.
    pub host_rate_bps: u64,
    /// Leaf–spine links.
    pub fabric_rate_bps: u64,
    pub delay: SimTime,
    pub switch_queue: QueueConfig,
    pub nic_buffer: Limit,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CustomNode {
    pub name: String,
    pub kind: NodeKind,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CustomLink {
    /// Node names.
    pub a: String,
    pub b: String,
    pub rate_bps: u64,
    pub delay: SimTime,
    /// Queue at switch ends (the link's `buffer`/`ecn_k`, else the topology-wide ones).
    pub switch_queue: QueueConfig,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CustomParams {
    pub nodes: Vec<CustomNode>,
    pub links: Vec<CustomLink>,
    pub nic_buffer: Limit,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TopologyParams {
    Star(StarParams),
    TwoTier(TwoTierParams),
    FatTree(FatTreeParams),
    LeafSpine(LeafSpineParams),
    Custom(CustomParams),
}

impl TopologyParams {
    /// (hosts, switches) this builder will create; `None` on arithmetic overflow.
    pub fn node_count(&self) -> Option<(u64, u64)> {
        let u = |x: usize| x as u64;
        match self {
            TopologyParams::Star(p) => Some((u(p.hosts), 1)),
            TopologyParams::TwoTier(p) => {
                Some((u(p.racks).checked_mul(u(p.hosts_per_rack))?, u(p.racks) + 1))
            }
            TopologyParams::FatTree(p) => {
                let k = u(p.k);
                let h = k.checked_mul(k)?.checked_mul(k)? / 4;
                let s = k.checked_mul(k)? + (k / 2).checked_mul(k / 2)?;
                Some((h, s))
            }
            TopologyParams::LeafSpine(p) => Some((
                u(p.leaves).checked_mul(u(p.hosts_per_leaf))?,
                u(p.leaves).checked_add(u(p.spines))?,
            )),
            TopologyParams::Custom(p) => {
                let h = p.nodes.iter().filter(|n| n.kind == NodeKind::Host).count();
                Some((u(h), u(p.nodes.len() - h)))
            }
        }
    }

    /// Links this builder will create; `None` on arithmetic overflow.
    pub fn link_count(&self) -> Option<u64> {
        let u = |x: usize| x as u64;
        match self {
            TopologyParams::Star(p) => Some(u(p.hosts)),
            TopologyParams::TwoTier(p) => u(p.racks)
                .checked_mul(u(p.hosts_per_rack))?
                .checked_add(u(p.racks)),
            TopologyParams::FatTree(p) => u(p.k).checked_pow(3)?.checked_mul(3).map(|x| x / 4),
            TopologyParams::LeafSpine(p) => u(p.leaves)
                .checked_mul(u(p.hosts_per_leaf))?
                .checked_add(u(p.leaves).checked_mul(u(p.spines))?),
            TopologyParams::Custom(p) => Some(u(p.links.len())),
        }
    }

    /// Build the topology. Errors (custom topologies only) carry paths
    /// relative to the topology.
    pub fn build(&self) -> Result<TopologySpec, Vec<TopologyError>> {
        match self {
            TopologyParams::Star(p) => Ok(star(p)),
            TopologyParams::TwoTier(p) => Ok(two_tier(p)),
            TopologyParams::FatTree(p) => Ok(fat_tree(p)),
            TopologyParams::LeafSpine(p) => Ok(leaf_spine(p)),
            TopologyParams::Custom(p) => custom(p),
        }
    }
}

fn nic(limit: Limit) -> QueueConfig {
    QueueConfig {
        limit,
        ecn_k: None,
        non_ect: NonEct::Queue,
    }
}

struct Builder {
    t: TopologySpec,
}

impl Builder {
    fn new() -> Self {
        Builder {
            t: TopologySpec::default(),
        }
    }
    fn node(&mut self, name: String, kind: NodeKind) -> usize {
        self.t.nodes.push(NodeSpec { name, kind });
        self.t.nodes.len() - 1
    }
    fn hosts(&mut self, n: usize) {
        for i in 0..n {
            self.node(format!("h{i}"), NodeKind::Host);
        }
    }
    fn link(
        &mut self,
        a: usize,
        b: usize,
        rate_bps: u64,
        delay: SimTime,
        qa: QueueConfig,
        qb: QueueConfig,
    ) {
        self.t.links.push(LinkSpec {
            a,
            b,
            rate_bps,
            delay,
            queue_ab: qa,
            queue_ba: qb,
        });
    }
}

/// `hosts` hosts on one switch `"sw"`.
pub fn star(p: &StarParams) -> TopologySpec {
    let mut b = Builder::new();
    b.hosts(p.hosts);
    let sw = b.node("sw".into(), NodeKind::Switch);
    for h in 0..p.hosts {
        b.link(
            h,
            sw,
            p.rate_bps,
            p.delay,
            nic(p.nic_buffer),
            p.switch_queue,
        );
    }
    b.t
}

/// Racks of hosts under ToRs `"tor{r}"`, ToRs under one switch `"agg"`.
/// Host h is in rack h / hosts_per_rack.
pub fn two_tier(p: &TwoTierParams) -> TopologySpec {
    let mut b = Builder::new();
    let n = p.racks * p.hosts_per_rack;
    b.hosts(n);
    let tors: Vec<usize> = (0..p.racks)
        .map(|r| b.node(format!("tor{r}"), NodeKind::Switch))
        .collect();
    let agg = b.node("agg".into(), NodeKind::Switch);
    for h in 0..n {
        let tor = tors[h / p.hosts_per_rack];
        b.link(
            h,
            tor,
            p.host_rate_bps,
            p.delay,
            nic(p.nic_buffer),
            p.tor_queue,
        );
    }
    for &tor in &tors {
        b.link(
            tor,
            agg,
            p.core_rate_bps,
            p.delay,
            p.uplink_queue,
            p.agg_queue,
        );
    }
    b.t
}

/// Al-Fares k-ary fat-tree. Node order: hosts (pod by pod, edge switch by
/// edge switch), then per pod its edge switches `"edge{pod}_{i}"` and
/// aggregation switches `"aggr{pod}_{i}"`, then core switches `"core{i}"`.
/// Edge i of a pod connects to every aggregation switch of the pod;
/// aggregation switch i of every pod connects to cores i·k/2 … i·k/2 + k/2 − 1.
pub fn fat_tree(p: &FatTreeParams) -> TopologySpec {
    let k = p.k;
    let half = k / 2;
    let mut b = Builder::new();
    let hosts = k * half * half;
    b.hosts(hosts);
    let mut edge: Vec<Vec<usize>> = Vec::with_capacity(k);
    let mut aggr: Vec<Vec<usize>> = Vec::with_capacity(k);
    for pod in 0..k {
        edge.push(
            (0..half)
                .map(|i| b.node(format!("edge{pod}_{i}"), NodeKind::Switch))
                .collect(),
        );
        aggr.push(
            (0..half)
                .map(|i| b.node(format!("aggr{pod}_{i}"), NodeKind::Switch))
                .collect(),
        );
    }
    let core: Vec<usize> = (0..half * half)
        .map(|i| b.node(format!("core{i}"), NodeKind::Switch))
        .collect();
    let sq = p.switch_queue;
    for h in 0..hosts {
        let pod = h / (half * half);
        let e = (h / half) % half;
        b.link(h, edge[pod][e], p.rate_bps, p.delay, nic(p.nic_buffer), sq);
    }
    for (edges, aggrs) in edge.iter().zip(&aggr) {
        for &e in edges {
            for &a in aggrs {
                b.link(e, a, p.rate_bps, p.delay, sq, sq);
            }
        }
    }
    for aggrs in &aggr {
        for (i, &a) in aggrs.iter().enumerate() {
            for &c in &core[i * half..(i + 1) * half] {
                b.link(a, c, p.rate_bps, p.delay, sq, sq);
            }
        }
    }
    b.t
}

/// `leaves` leaf switches `"leaf{i}"` with `hosts_per_leaf` hosts each
/// (host h under leaf h / hosts_per_leaf), every leaf connected to every
/// spine `"spine{j}"`.
pub fn leaf_spine(p: &LeafSpineParams) -> TopologySpec {
    let mut b = Builder::new();
    let n = p.leaves * p.hosts_per_leaf;
    b.hosts(n);
    let leaves: Vec<usize> = (0..p.leaves)
        .map(|i| b.node(format!("leaf{i}"), NodeKind::Switch))
        .collect();
    let spines: Vec<usize> = (0..p.spines)
        .map(|i| b.node(format!("spine{i}"), NodeKind::Switch))
        .collect();
    let sq = p.switch_queue;
    for h in 0..n {
        let leaf = leaves[h / p.hosts_per_leaf];
        b.link(h, leaf, p.host_rate_bps, p.delay, nic(p.nic_buffer), sq);
    }
    for &l in &leaves {
        for &s in &spines {
            b.link(l, s, p.fabric_rate_bps, p.delay, sq, sq);
        }
    }
    b.t
}

/// A custom topology: nodes in the order listed (hosts numbered in that
/// order), links by node name. Checks: unique non-empty names, known link
/// ends, no self-loops, every host attached, the graph connected, and every
/// host able to reach every other host without forwarding through a third host.
pub fn custom(p: &CustomParams) -> Result<TopologySpec, Vec<TopologyError>> {
    custom_checked(p, false)
}

/// [`custom`]; with `names_only`, only the per-node and per-link checks run
/// (used when some nodes could not be parsed, so counts and connectivity
/// would be misleading).
pub(crate) fn custom_checked(
    p: &CustomParams,
    names_only: bool,
) -> Result<TopologySpec, Vec<TopologyError>> {
    let mut errs = Vec::new();
    let err = |errs: &mut Vec<TopologyError>, path: String, message: String| {
        errs.push(TopologyError { path, message })
    };
    let mut by_name: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, n) in p.nodes.iter().enumerate() {
        if n.name.is_empty() {
            err(
                &mut errs,
                format!("nodes[{i}].name"),
                "must not be empty".into(),
            );
            continue;
        }
        if let Some(&first) = by_name.get(n.name.as_str()) {
            err(
                &mut errs,
                format!("nodes[{i}].name"),
                format!(
                    "duplicate node name '{}' (first used by nodes[{first}])",
                    n.name
                ),
            );
        } else {
            by_name.insert(&n.name, i);
        }
    }
    let hosts = p.nodes.iter().filter(|n| n.kind == NodeKind::Host).count();
    if hosts < 2 && !names_only {
        err(
            &mut errs,
            "nodes".into(),
            format!("needs at least 2 hosts, has {hosts}"),
        );
    }
    let mut t = TopologySpec {
        nodes: Vec::new(),
        links: Vec::new(),
    };
    t.nodes = p
        .nodes
        .iter()
        .map(|n| NodeSpec {
            name: n.name.clone(),
            kind: n.kind,
        })
        .collect();
    let mut links_ok = true;
    for (i, l) in p.links.iter().enumerate() {
        let mut end = |name: &str, key: &str, errs: &mut Vec<TopologyError>| -> Option<usize> {
            match by_name.get(name) {
                Some(&n) => Some(n),
                None => {
                    let hint = crate::text::suggest(name, by_name.keys().copied())
                        .map(|s| format!(" (did you mean '{s}'?)"))
                        .unwrap_or_default();
                    err(
                        errs,
                        format!("links[{i}].{key}"),
                        format!("unknown node '{}'{hint}", crate::text::excerpt(name)),
                    );
                    links_ok = false;
                    None
                }
            }
        };
        let a = end(&l.a, "a", &mut errs);
        let b = end(&l.b, "b", &mut errs);
        if let (Some(a), Some(b)) = (a, b) {
            if a == b {
                err(
                    &mut errs,
                    format!("links[{i}]"),
                    format!("links node '{}' to itself", l.a),
                );
                links_ok = false;
                continue;
            }
            let q = |n: usize| match p.nodes[n].kind {
                NodeKind::Host => nic(p.nic_buffer),
                NodeKind::Switch => l.switch_queue,
            };
            t.links.push(LinkSpec {
                a,
                b,
                rate_bps: l.rate_bps,
                delay: l.delay,
                queue_ab: q(a),
                queue_ba: q(b),
            });
        }
    }
    if !links_ok || !errs.is_empty() || names_only {
        return Err(errs);
    }
    // Attachment and connectivity.
    let n = t.nodes.len();
    let mut degree = vec![0usize; n];
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); n];
    for l in &t.links {
        degree[l.a] += 1;
        degree[l.b] += 1;
        adj[l.a].push(l.b);
        adj[l.b].push(l.a);
    }
    for (i, node) in t.nodes.iter().enumerate() {
        if node.kind == NodeKind::Host && degree[i] == 0 {
            err(
                &mut errs,
                format!("nodes[{i}]"),
                format!("host '{}' has no link", node.name),
            );
        }
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    if n > 0 {
        let mut seen = vec![false; n];
        let mut stack = vec![0usize];
        seen[0] = true;
        while let Some(v) = stack.pop() {
            for &w in &adj[v] {
                if !seen[w] {
                    seen[w] = true;
                    stack.push(w);
                }
            }
        }
        let unreachable: Vec<&str> = (0..n)
            .filter(|&i| !seen[i])
            .map(|i| t.nodes[i].name.as_str())
            .collect();
        if !unreachable.is_empty() {
            let shown: Vec<String> = unreachable
                .iter()
                .take(5)
                .map(|s| format!("'{s}'"))
                .collect();
            let more = if unreachable.len() > 5 {
                format!(" and {} more", unreachable.len() - 5)
            } else {
                String::new()
            };
            err(
                &mut errs,
                String::new(),
                format!(
                    "graph is disconnected: {}{more} not reachable from '{}'",
                    shown.join(", "),
                    t.nodes[0].name
                ),
            );
            return Err(errs);
        }
    }
    // Hosts do not forward: every host pair must be joined through switches
    // (or a direct link). Two hosts are joined iff they touch a common
    // component of the switch-only graph or share a link, so the check is
    // linear when one component touches every host (any fabric that is
    // itself connected); the pairwise check (quadratic in hosts: 140 s at
    // 200 000 hosts when it ran on routing tables for every topology) is
    // left to the others.
    let is_switch = |v: usize| t.nodes[v].kind != NodeKind::Host;
    let mut comp = vec![usize::MAX; n];
    let mut ncomp = 0;
    for v in 0..n {
        if !is_switch(v) || comp[v] != usize::MAX {
            continue;
        }
        comp[v] = ncomp;
        let mut stack = vec![v];
        while let Some(x) = stack.pop() {
            for &w in &adj[x] {
                if is_switch(w) && comp[w] == usize::MAX {
                    comp[w] = ncomp;
                    stack.push(w);
                }
            }
        }
        ncomp += 1;
    }
    let host_nodes = t.hosts();
    let touches: Vec<Vec<usize>> = host_nodes
        .iter()
        .map(|&h| {
            let mut c: Vec<usize> = adj[h]
                .iter()
                .filter(|&&w| is_switch(w))
                .map(|&w| comp[w])
                .collect();
            c.sort_unstable();
            c.dedup();
            c
        })
        .collect();
    let mut hosts_touching = vec![0usize; ncomp];
    for c in &touches {
        for &x in c {
            hosts_touching[x] += 1;
        }
    }
    if host_nodes.len() > 1 && !hosts_touching.contains(&host_nodes.len()) {
        let mut host_of = vec![usize::MAX; n];
        for (i, &h) in host_nodes.iter().enumerate() {
            host_of[h] = i;
        }
        let mut direct = std::collections::HashSet::new();
        for l in &t.links {
            if !is_switch(l.a) && !is_switch(l.b) {
                let (a, b) = (host_of[l.a], host_of[l.b]);
                direct.insert((a.min(b), a.max(b)));
            }
        }
        let share = |a: &[usize], b: &[usize]| {
            let (mut i, mut j) = (0, 0);
            while i < a.len() && j < b.len() {
                match a[i].cmp(&b[j]) {
                    std::cmp::Ordering::Less => i += 1,
                    std::cmp::Ordering::Greater => j += 1,
                    std::cmp::Ordering::Equal => return true,
                }
            }
            false
        };
        'outer: for si in 0..host_nodes.len() {
            for di in si + 1..host_nodes.len() {
                if !share(&touches[si], &touches[di]) && !direct.contains(&(si, di)) {
                    err(
                        &mut errs,
                        String::new(),
                        format!(
                            "host '{}' can reach host '{}' only by forwarding through another host (hosts do not forward)",
                            t.nodes[host_nodes[si]].name, t.nodes[host_nodes[di]].name
                        ),
                    );
                    break 'outer;
                }
            }
        }
    }
    if errs.is_empty() {
        Ok(t)
    } else {
        Err(errs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(limit: Limit) -> QueueConfig {
        QueueConfig {
            limit,
            ecn_k: None,
            non_ect: NonEct::Queue,
        }
    }

    fn ft(k: usize) -> TopologySpec {
        fat_tree(&FatTreeParams {
            k,
            rate_bps: 1_000_000_000,
            delay: SimTime::from_us(1),
            switch_queue: q(Limit::Packets(100)),
            nic_buffer: DEFAULT_NIC_BUFFER,
        })
    }

    fn degrees(t: &TopologySpec) -> Vec<usize> {
        let mut d = vec![0; t.nodes.len()];
        for l in &t.links {
            d[l.a] += 1;
            d[l.b] += 1;
        }
        d
    }

    fn count(t: &TopologySpec, kind: NodeKind) -> usize {
        t.nodes.iter().filter(|n| n.kind == kind).count()
    }

    #[test]
    fn fat_tree_k4_counts_and_degrees() {
        let t = ft(4);
        assert_eq!(count(&t, NodeKind::Host), 16);
        assert_eq!(count(&t, NodeKind::Switch), 20);
        assert_eq!(t.links.len(), 48);
        let d = degrees(&t);
        for (i, n) in t.nodes.iter().enumerate() {
            let want = if n.kind == NodeKind::Host { 1 } else { 4 };
            assert_eq!(d[i], want, "{}", n.name);
        }
        // Hosts first, numbered pod by pod, edge by edge.
        assert_eq!(t.hosts(), (0..16).collect::<Vec<_>>());
        assert_eq!(t.nodes[16].name, "edge0_0");
        assert_eq!(t.nodes[18].name, "aggr0_0");
        assert_eq!(t.nodes[32].name, "core0");
        let edge_of = |h: usize| {
            let l = t.links.iter().find(|l| l.a == h).unwrap();
            t.nodes[l.b].name.clone()
        };
        assert_eq!(edge_of(0), "edge0_0");
        assert_eq!(edge_of(1), "edge0_0");
        assert_eq!(edge_of(2), "edge0_1");
        assert_eq!(edge_of(4), "edge1_0");
        assert_eq!(edge_of(15), "edge3_1");
    }

    #[test]
    fn fat_tree_core_wiring_is_al_fares() {
        let t = ft(4);
        let idx = |name: &str| t.nodes.iter().position(|n| n.name == name).unwrap();
        let cores_of = |a: usize| -> Vec<String> {
            let mut v: Vec<String> = t
                .links
                .iter()
                .filter(|l| l.a == a && t.nodes[l.b].name.starts_with("core"))
                .map(|l| t.nodes[l.b].name.clone())
                .collect();
            v.sort();
            v
        };
        for pod in 0..4 {
            assert_eq!(cores_of(idx(&format!("aggr{pod}_0"))), ["core0", "core1"]);
            assert_eq!(cores_of(idx(&format!("aggr{pod}_1"))), ["core2", "core3"]);
        }
    }

    #[test]
    fn fat_tree_k8_counts_and_degrees() {
        let t = ft(8);
        assert_eq!(count(&t, NodeKind::Host), 128);
        assert_eq!(count(&t, NodeKind::Switch), 80);
        assert_eq!(t.links.len(), 3 * 128);
        let d = degrees(&t);
        for (i, n) in t.nodes.iter().enumerate() {
            let want = if n.kind == NodeKind::Host { 1 } else { 8 };
            assert_eq!(d[i], want, "{}", n.name);
        }
    }

    #[test]
    fn fat_tree_k2_is_tiny() {
        let t = ft(2);
        assert_eq!(count(&t, NodeKind::Host), 2);
        assert_eq!(count(&t, NodeKind::Switch), 5);
        assert_eq!(
            TopologyParams::FatTree(FatTreeParams {
                k: 2,
                rate_bps: 1,
                delay: SimTime::ZERO,
                switch_queue: q(Limit::Packets(1)),
                nic_buffer: DEFAULT_NIC_BUFFER,
            })
            .node_count(),
            Some((2, 5))
        );
    }

    #[test]
    fn star_queues() {
        let t = star(&StarParams {
            hosts: 3,
            rate_bps: 1_000_000_000,
            delay: SimTime::from_us(50),
            switch_queue: QueueConfig {
                limit: Limit::Bytes(32768),
                ecn_k: Some(Limit::Packets(20)),
                non_ect: NonEct::Queue,
            },
            nic_buffer: DEFAULT_NIC_BUFFER,
        });
        assert_eq!(t.nodes.len(), 4);
        assert_eq!(t.nodes[3].name, "sw");
        assert_eq!(t.links.len(), 3);
        for l in &t.links {
            assert_eq!(t.nodes[l.a].kind, NodeKind::Host);
            assert_eq!(l.queue_ab, q(DEFAULT_NIC_BUFFER));
            assert_eq!(l.queue_ba.limit, Limit::Bytes(32768));
            assert_eq!(l.queue_ba.ecn_k, Some(Limit::Packets(20)));
        }
    }

    #[test]
    fn two_tier_layout() {
        let tor_q = q(Limit::Bytes(100 << 10));
        let agg_q = q(Limit::Bytes(10 << 20));
        let up_q = QueueConfig {
            limit: Limit::Bytes(100 << 10),
            ecn_k: Some(Limit::Packets(65)),
            non_ect: NonEct::Queue,
        };
        let t = two_tier(&TwoTierParams {
            racks: 5,
            hosts_per_rack: 20,
            host_rate_bps: 1_000_000_000,
            core_rate_bps: 10_000_000_000,
            delay: SimTime::from_us(25),
            tor_queue: tor_q,
            uplink_queue: up_q,
            agg_queue: agg_q,
            nic_buffer: DEFAULT_NIC_BUFFER,
        });
        assert_eq!(count(&t, NodeKind::Host), 100);
        assert_eq!(count(&t, NodeKind::Switch), 6);
        assert_eq!(t.links.len(), 105);
        let d = degrees(&t);
        assert_eq!(d[100], 21); // tor0
        assert_eq!(d[105], 5); // agg
        assert_eq!(t.nodes[105].name, "agg");
        // host 45 is in rack 2
        let l = t.links.iter().find(|l| l.a == 45).unwrap();
        assert_eq!(t.nodes[l.b].name, "tor2");
        assert_eq!(l.rate_bps, 1_000_000_000);
        assert_eq!(l.queue_ba, tor_q);
        let up = t.links.iter().find(|l| l.b == 105).unwrap();
        assert_eq!(up.rate_bps, 10_000_000_000);
        assert_eq!(up.queue_ab, up_q, "the ToR uplink has its own queue");
        assert_eq!(up.queue_ba, agg_q);
    }

    #[test]
    fn leaf_spine_layout() {
        let t = leaf_spine(&LeafSpineParams {
            leaves: 4,
            spines: 2,
            hosts_per_leaf: 3,
            host_rate_bps: 10_000_000_000,
            fabric_rate_bps: 40_000_000_000,
            delay: SimTime::from_us(1),
            switch_queue: q(Limit::Packets(100)),
            nic_buffer: DEFAULT_NIC_BUFFER,
        });
        assert_eq!(count(&t, NodeKind::Host), 12);
        assert_eq!(count(&t, NodeKind::Switch), 6);
        assert_eq!(t.links.len(), 12 + 8);
        let d = degrees(&t);
        assert_eq!(d[12], 5); // leaf0: 3 hosts + 2 spines
        assert_eq!(d[16], 4); // spine0: 4 leaves
        assert_eq!(t.nodes[16].name, "spine0");
    }

    fn cl(a: &str, b: &str) -> CustomLink {
        CustomLink {
            a: a.into(),
            b: b.into(),
            rate_bps: 1_000_000_000,
            delay: SimTime::from_us(10),
            switch_queue: q(Limit::Packets(50)),
        }
    }
    fn cn(name: &str, kind: NodeKind) -> CustomNode {
        CustomNode {
            name: name.into(),
            kind,
        }
    }

    #[test]
    fn custom_ok_and_host_side_uses_nic() {
        let p = CustomParams {
            nodes: vec![
                cn("s0", NodeKind::Switch),
                cn("a", NodeKind::Host),
                cn("b", NodeKind::Host),
            ],
            links: vec![cl("a", "s0"), cl("s0", "b")],
            nic_buffer: Limit::Bytes(1000),
        };
        let t = custom(&p).unwrap();
        assert_eq!(t.hosts(), vec![1, 2]);
        assert_eq!(t.links[0].queue_ab, q(Limit::Bytes(1000)));
        assert_eq!(t.links[0].queue_ba, q(Limit::Packets(50)));
        assert_eq!(t.links[1].queue_ab, q(Limit::Packets(50)));
        assert_eq!(t.links[1].queue_ba, q(Limit::Bytes(1000)));
    }

    /// The linear "hosts do not forward" check agrees with the routing
    /// tables' verdict (every host pair has a route) on random small
    /// graphs: hosts and switches, parallel links, host-to-host links,
    /// fabrics in pieces.
    #[test]
    fn hosts_do_not_forward_check_agrees_with_routing() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(9);
        let mut checked = [0usize; 2];
        for _ in 0..3000 {
            let hosts = rng.gen_range(2..7);
            let switches = rng.gen_range(0..5);
            let mut nodes: Vec<CustomNode> = (0..hosts)
                .map(|i| cn(&format!("h{i}"), NodeKind::Host))
                .collect();
            nodes.extend((0..switches).map(|i| cn(&format!("s{i}"), NodeKind::Switch)));
            let name = |v: usize| nodes[v].name.clone();
            let mut links = Vec::new();
            // every host attached, then random extra links
            for h in 0..hosts {
                let to = if switches > 0 && rng.gen_bool(0.8) {
                    hosts + rng.gen_range(0..switches)
                } else {
                    (h + 1 + rng.gen_range(0..hosts - 1)) % hosts
                };
                links.push(cl(&name(h), &name(to)));
            }
            for _ in 0..rng.gen_range(0..6) {
                let a = rng.gen_range(0..hosts + switches);
                let b = rng.gen_range(0..hosts + switches);
                if a != b {
                    links.push(cl(&name(a), &name(b)));
                }
            }
            let p = CustomParams {
                nodes: nodes.clone(),
                links,
                nic_buffer: DEFAULT_NIC_BUFFER,
            };
            // reference: BFS from each host where only switches pass packets on
            let nn = hosts + switches;
            let mut adj = vec![Vec::new(); nn];
            let idx = |n: &str| nodes.iter().position(|x| x.name == n).unwrap();
            for l in &p.links {
                let (a, b) = (idx(&l.a), idx(&l.b));
                adj[a].push(b);
                adj[b].push(a);
            }
            let all_routed = (0..hosts).all(|src| {
                let mut seen = vec![false; nn];
                seen[src] = true;
                let mut stack = vec![src];
                while let Some(v) = stack.pop() {
                    if v != src && v < hosts {
                        continue; // a host is reached but forwards nothing
                    }
                    for &w in &adj[v] {
                        if !seen[w] {
                            seen[w] = true;
                            stack.push(w);
                        }
                    }
                }
                (0..hosts).all(|d| seen[d])
            });
            let verdict = custom_checked(&p, false);
            if let Ok(t) = &verdict {
                // and the routing tables route every pair of an accepted topology
                let routes = crate::net::routing::Routes::compute(t);
                assert!((0..hosts)
                    .all(|s| (0..hosts).all(|d| s == d || routes.hop_count(s, d).is_some())));
            }
            let forwarding_error = matches!(&verdict, Err(e) if e.iter().any(|e| e.message.contains("hosts do not forward")));
            let disconnected =
                matches!(&verdict, Err(e) if e.iter().any(|e| e.message.contains("disconnected")));
            if disconnected {
                continue; // an unreachable switch or host: rejected before this check
            }
            assert_eq!(all_routed, !forwarding_error, "{verdict:?}");
            checked[all_routed as usize] += 1;
        }
        assert!(checked[0] > 100 && checked[1] > 100, "{checked:?}");
    }

    #[test]
    fn custom_errors() {
        let mk = |nodes: Vec<CustomNode>, links: Vec<CustomLink>| {
            custom(&CustomParams {
                nodes,
                links,
                nic_buffer: DEFAULT_NIC_BUFFER,
            })
            .unwrap_err()
        };
        let e = mk(
            vec![
                cn("h", NodeKind::Host),
                cn("h", NodeKind::Host),
                cn("s", NodeKind::Switch),
            ],
            vec![cl("h", "s")],
        );
        assert_eq!(e[0].path, "nodes[1].name");
        assert!(e[0].message.contains("duplicate node name 'h'"));

        let e = mk(
            vec![
                cn("h0", NodeKind::Host),
                cn("h1", NodeKind::Host),
                cn("s", NodeKind::Switch),
            ],
            vec![cl("h0", "s"), cl("h2", "s")],
        );
        assert_eq!(e[0].path, "links[1].a");
        assert!(
            e[0].message.contains("unknown node 'h2'"),
            "{}",
            e[0].message
        );

        let e = mk(
            vec![
                cn("h0", NodeKind::Host),
                cn("h1", NodeKind::Host),
                cn("s", NodeKind::Switch),
            ],
            vec![cl("h0", "s")],
        );
        assert_eq!(e[0].path, "nodes[1]");
        assert!(e[0].message.contains("host 'h1' has no link"));

        let e = mk(
            vec![
                cn("h0", NodeKind::Host),
                cn("h1", NodeKind::Host),
                cn("s", NodeKind::Switch),
                cn("t", NodeKind::Switch),
            ],
            vec![cl("h0", "s"), cl("h1", "t")],
        );
        assert_eq!(e[0].path, "");
        assert!(e[0].message.contains("disconnected"), "{}", e[0].message);

        // h0 - h1 - h2 chain through hosts only.
        let e = mk(
            vec![
                cn("h0", NodeKind::Host),
                cn("h1", NodeKind::Host),
                cn("h2", NodeKind::Host),
            ],
            vec![cl("h0", "h1"), cl("h1", "h2")],
        );
        assert!(
            e[0].message.contains("hosts do not forward"),
            "{}",
            e[0].message
        );
    }
}
