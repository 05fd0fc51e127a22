//! `[topology]`: the built-in kinds and custom node/link lists, read into
//! a [`TopologySpec`] (built by `crate::net::topology`, imported here as
//! `net_topo` to keep the two apart).

use super::schema;
use super::table::{idx_path, key_path, Ctx, Tbl};
use super::units::{self, json_excerpt};
use super::ScenarioError;
use crate::config::*;
use crate::net::topology::{
    self as net_topo, CustomLink, CustomNode, CustomParams, FatTreeParams, LeafSpineParams,
    StarParams, TopologyParams, TwoTierParams, DEFAULT_NIC_BUFFER, MAX_LINKS, MAX_NODES,
};
use crate::text::{excerpt, suggest};
use serde_json::Value;
use std::collections::BTreeSet;

// ---------------------------------------------------------------- topology

/// Parsed topology: the spec (if it could be built) and the host count (if known).
pub(super) struct TopoOut {
    pub(super) spec: Option<TopologySpec>,
    pub(super) hosts: Option<usize>,
    /// `ecn_kmax`/`ecn_pmax`, checked against the ports (scenario/mod.rs).
    pub(super) ramp: Option<EcnRamp>,
}

pub(super) fn parse_topology(ctx: &mut Ctx, v: &Value) -> TopoOut {
    use schema::Topology;
    let none = TopoOut {
        spec: None,
        hosts: None,
        ramp: None,
    };
    let Some(t) = Tbl::new(ctx, v, "topology") else {
        return none;
    };
    let kinds = schema::TOPOLOGY_KINDS;
    let kind = t.req(ctx, "kind", |v| {
        let s = v
            .as_str()
            .ok_or_else(|| format!("expected a string, got {}", json_excerpt(v)))?;
        kinds.iter().copied().find(|k| *k == s).ok_or_else(|| {
            let hint = suggest(s, kinds.iter().copied())
                .map(|x| format!("did you mean '{x}'? "))
                .unwrap_or_default();
            format!(
                "unknown topology kind '{}' ({hint}valid: {})",
                excerpt(s),
                kinds.join(", ")
            )
        })
    });
    let Some(kind) = kind else {
        return none;
    };
    // The kind's struct (`schema::*Topology`): every unknown key and bad
    // value reported; what follows checks presence and combinations.
    let what = format!(" for topology kind '{kind}'");
    let errs = &mut ctx.errs;
    let read = match kind {
        "star" => schema::read_table(v, "topology", &what, errs).map(|r| Topology::Star(r.value)),
        "two_tier" => {
            schema::read_table(v, "topology", &what, errs).map(|r| Topology::TwoTier(r.value))
        }
        "fat_tree" => {
            schema::read_table(v, "topology", &what, errs).map(|r| Topology::FatTree(r.value))
        }
        "leaf_spine" => {
            schema::read_table(v, "topology", &what, errs).map(|r| Topology::LeafSpine(r.value))
        }
        _ => schema::read_table(v, "topology", &what, errs).map(|r| Topology::Custom(r.value)),
    };
    let Some(read) = read else {
        return none;
    };
    let q = match &read {
        Topology::Star(a) => a.queues(),
        Topology::TwoTier(a) => a.queues(),
        Topology::FatTree(a) => a.queues(),
        Topology::LeafSpine(a) => a.queues(),
        Topology::Custom(a) => a.queues(),
    };
    let ramp = match (q.ecn_kmax, q.ecn_pmax) {
        (Some(kmax), pmax) => Some(EcnRamp {
            kmax,
            pmax: pmax.unwrap_or(0.01),
        }),
        (None, Some(_)) => {
            ctx.err(
                t.p("ecn_pmax"),
                "RED's probability at ecn_kmax: set ecn_kmax too",
            );
            None
        }
        (None, None) => None,
    };
    let nic_buffer = q.nic_buffer.unwrap_or(DEFAULT_NIC_BUFFER);
    let ecn_k = q.ecn_k;
    let non_ect = q.ecn_non_ect;
    let has_buffer = t.has("buffer");
    let buf = q.buffer;
    // A required key: reported when absent (a bad value is reported already).
    fn req<T>(ctx: &mut Ctx, t: &Tbl, key: &str, x: Option<T>) -> Option<T> {
        if !t.has(key) {
            ctx.err(t.p(key), "missing required key");
        }
        x
    }
    let mut missing = false;
    // `buffer` is required unless a kind-specific replacement is given.
    let mut need = |ctx: &mut Ctx, x: Option<Limit>, key: &str, msg: &str| -> Limit {
        x.unwrap_or_else(|| {
            if !t.has(key) && !has_buffer {
                ctx.err(t.p(key), msg);
            }
            missing = true;
            Limit::Packets(1)
        })
    };
    let mut ok = true;
    let mut track = |x: Option<()>| ok &= x.is_some();
    let params = match read {
        Topology::Star(a) => {
            let hosts = req(ctx, &t, "hosts", *a.hosts);
            let rate = req(ctx, &t, "rate", *a.rate);
            let delay = req(ctx, &t, "delay", *a.delay);
            let b = need(ctx, buf, "buffer", "missing required key");
            track(rate.map(|_| ()));
            track(delay.map(|_| ()));
            hosts.map(|hosts| {
                TopologyParams::Star(StarParams {
                    hosts,
                    rate_bps: rate.unwrap_or(1),
                    delay: delay.unwrap_or_default(),
                    switch_queue: QueueConfig {
                        limit: b,
                        ecn_k,
                        non_ect,
                    },
                    nic_buffer,
                })
            })
        }
        Topology::TwoTier(a) => {
            let racks = req(ctx, &t, "racks", *a.racks);
            let hpr = req(ctx, &t, "hosts_per_rack", *a.hosts_per_rack);
            let host_rate = req(ctx, &t, "host_rate", *a.host_rate);
            let core_rate = req(ctx, &t, "core_rate", *a.core_rate);
            let delay = req(ctx, &t, "delay", *a.delay);
            let tor_b = *a.tor_buffer;
            let agg_b = *a.agg_buffer;
            let tor_b = need(
                ctx,
                tor_b.or(buf),
                "tor_buffer",
                "missing required key (give 'tor_buffer' or the topology-wide 'buffer')",
            );
            let agg_b = need(
                ctx,
                agg_b.or(buf),
                "agg_buffer",
                "missing required key (give 'agg_buffer' or the topology-wide 'buffer')",
            );
            let tor_k = a.tor_ecn_k.or(ecn_k);
            let agg_k = a.agg_ecn_k.or(ecn_k);
            // The ToR's uplink port runs at core_rate: its own buffer and K.
            let up_b = a.uplink_buffer.unwrap_or(tor_b);
            let up_k = a.uplink_ecn_k.or(tor_k);
            track(host_rate.map(|_| ()));
            track(core_rate.map(|_| ()));
            track(delay.map(|_| ()));
            match (racks, hpr) {
                (Some(racks), Some(hosts_per_rack)) => {
                    Some(TopologyParams::TwoTier(TwoTierParams {
                        racks,
                        hosts_per_rack,
                        host_rate_bps: host_rate.unwrap_or(1),
                        core_rate_bps: core_rate.unwrap_or(1),
                        delay: delay.unwrap_or_default(),
                        tor_queue: QueueConfig {
                            limit: tor_b,
                            ecn_k: tor_k,
                            non_ect,
                        },
                        uplink_queue: QueueConfig {
                            limit: up_b,
                            ecn_k: up_k,
                            non_ect,
                        },
                        agg_queue: QueueConfig {
                            limit: agg_b,
                            ecn_k: agg_k,
                            non_ect,
                        },
                        nic_buffer,
                    }))
                }
                _ => None,
            }
        }
        Topology::FatTree(a) => {
            let k = req(ctx, &t, "k", *a.k);
            let rate = req(ctx, &t, "rate", *a.rate);
            let delay = req(ctx, &t, "delay", *a.delay);
            let b = need(ctx, buf, "buffer", "missing required key");
            track(rate.map(|_| ()));
            track(delay.map(|_| ()));
            k.map(|k| {
                TopologyParams::FatTree(FatTreeParams {
                    k,
                    rate_bps: rate.unwrap_or(1),
                    delay: delay.unwrap_or_default(),
                    switch_queue: QueueConfig {
                        limit: b,
                        ecn_k,
                        non_ect,
                    },
                    nic_buffer,
                })
            })
        }
        Topology::LeafSpine(a) => {
            let leaves = req(ctx, &t, "leaves", *a.leaves);
            let spines = req(ctx, &t, "spines", *a.spines);
            let hpl = req(ctx, &t, "hosts_per_leaf", *a.hosts_per_leaf);
            let host_rate = req(ctx, &t, "host_rate", *a.host_rate);
            let fabric_rate = req(ctx, &t, "fabric_rate", *a.fabric_rate);
            let delay = req(ctx, &t, "delay", *a.delay);
            let b = need(ctx, buf, "buffer", "missing required key");
            track(host_rate.map(|_| ()));
            track(fabric_rate.map(|_| ()));
            track(delay.map(|_| ()));
            match (leaves, spines, hpl) {
                (Some(leaves), Some(spines), Some(hosts_per_leaf)) => {
                    Some(TopologyParams::LeafSpine(LeafSpineParams {
                        leaves,
                        spines,
                        hosts_per_leaf,
                        host_rate_bps: host_rate.unwrap_or(1),
                        fabric_rate_bps: fabric_rate.unwrap_or(1),
                        delay: delay.unwrap_or_default(),
                        switch_queue: QueueConfig {
                            limit: b,
                            ecn_k,
                            non_ect,
                        },
                        nic_buffer,
                    }))
                }
                _ => None,
            }
        }
        Topology::Custom(a) => {
            let (p, all_ok, nodes_ok) =
                parse_custom(ctx, &t, &a, buf, (ecn_k, non_ect), nic_buffer);
            track(all_ok.then_some(()));
            if !nodes_ok {
                // Host numbering is unknown: check names only, skip host ranges.
                if let Some(p) = &p {
                    if let Err(errs) = net_topo::custom_checked(p, true) {
                        ctx.errs.extend(errs.into_iter().map(ScenarioError::from));
                    }
                }
                return none;
            }
            p.map(TopologyParams::Custom)
        }
    };
    let Some(params) = params else {
        return none;
    };
    let hosts = match params.node_count() {
        Some((h, s)) if h.saturating_add(s) <= MAX_NODES => h as usize,
        Some((h, s)) => {
            ctx.err(
                "topology",
                format!(
                    "too large: {h} hosts and {s} switch{}, {} nodes (at most {MAX_NODES}, so at \
                     most {} hosts with these switches)",
                    if s == 1 { "" } else { "es" },
                    h.saturating_add(s),
                    MAX_NODES.saturating_sub(s)
                ),
            );
            return none;
        }
        None => {
            ctx.err("topology", format!("too large (at most {MAX_NODES} nodes)"));
            return none;
        }
    };
    match params.link_count() {
        Some(n) if n <= MAX_LINKS => {}
        n => {
            let n = n.map_or("more than 2^64".to_string(), |n| n.to_string());
            ctx.err(
                "topology",
                format!("too large: {n} links (at most {MAX_LINKS}; checked before building them)"),
            );
            return none;
        }
    }
    if hosts < 2 && kind != "custom" {
        ctx.err("topology", format!("needs at least 2 hosts, has {hosts}"));
        return TopoOut {
            spec: None,
            hosts: Some(hosts),
            ramp: None,
        };
    }
    if kind == "custom" {
        // Structural checks run even when some link values were invalid
        // (placeholders stand in); the spec is kept only if all is well.
        return match params.build() {
            Ok(spec) => TopoOut {
                spec: (ok && !missing).then_some(spec),
                hosts: Some(hosts),
                ramp,
            },
            Err(errs) => {
                ctx.errs.extend(errs.into_iter().map(ScenarioError::from));
                TopoOut {
                    spec: None,
                    hosts: Some(hosts),
                    ramp: None,
                }
            }
        };
    }
    if !ok || missing {
        return TopoOut {
            spec: None,
            hosts: Some(hosts),
            ramp: None,
        };
    }
    match params.build() {
        Ok(spec) => TopoOut {
            spec: Some(spec),
            hosts: Some(hosts),
            ramp,
        },
        Err(errs) => {
            ctx.errs.extend(errs.into_iter().map(ScenarioError::from));
            TopoOut {
                spec: None,
                hosts: Some(hosts),
                ramp: None,
            }
        }
    }
}

/// `nodes`/`links` of a custom topology (`schema::NodeSection`,
/// `schema::LinkSection`). Invalid link values are replaced by
/// placeholders so that name/connectivity checks still run; the bools say
/// whether everything parsed, and whether every node did.
pub(super) fn parse_custom(
    ctx: &mut Ctx,
    t: &Tbl,
    a: &schema::CustomTopology,
    buf: Option<Limit>,
    (ecn_k, non_ect): (Option<Limit>, NonEct),
    nic_buffer: Limit,
) -> (Option<CustomParams>, bool, bool) {
    let mut ok = true;
    let mut nodes_ok = true;
    let mut nodes = Vec::new();
    // A required key of an item: reported when absent.
    let req = |ctx: &mut Ctx, item: &Value, path: &str, key: &str| {
        if item.get(key).is_none() {
            ctx.err(key_path(path, key), "missing required key");
        }
    };
    match &*a.nodes {
        None => {
            ctx.err(t.p("nodes"), "missing required key");
            return (None, false, false);
        }
        Some(Value::Array(items)) => {
            for (i, it) in items.iter().enumerate() {
                let path = idx_path(&t.p("nodes"), i);
                let Some(n) =
                    schema::read_table::<schema::NodeSection>(it, &path, "", &mut ctx.errs)
                else {
                    ok = false;
                    continue;
                };
                req(ctx, it, &path, "name");
                req(ctx, it, &path, "kind");
                if let Some(c) = n
                    .value
                    .name
                    .0
                    .as_deref()
                    .and_then(|s| s.chars().find(|c| c.is_control()))
                {
                    // a name is a cell of the queues table and a label of the
                    // summary: a line break would split a CSV row
                    ctx.err(
                        key_path(&path, "name"),
                        format!(
                            "a node name must not hold a control character (U+{:04X}): it names queues in the tables",
                            c as u32
                        ),
                    );
                    nodes_ok = false;
                }
                match (n.value.name.0, *n.value.kind) {
                    (Some(name), Some(kind)) => nodes.push(CustomNode { name, kind }),
                    (Some(name), None) => {
                        // Keep the name so links to it resolve; the kind is a placeholder.
                        nodes.push(CustomNode {
                            name,
                            kind: NodeKind::Switch,
                        });
                        nodes_ok = false;
                    }
                    _ => nodes_ok = false,
                }
            }
        }
        Some(other) => {
            ctx.err(
                t.p("nodes"),
                format!(
                    "expected an array of tables, got {}",
                    units::json_type(other)
                ),
            );
            return (None, false, false);
        }
    }
    let host_names: BTreeSet<&str> = nodes
        .iter()
        .filter(|n| n.kind == NodeKind::Host)
        .map(|n| n.name.as_str())
        .collect();
    let mut links = Vec::new();
    match &*a.links {
        None => {
            ctx.err(t.p("links"), "missing required key");
            ok = false;
        }
        Some(Value::Array(items)) => {
            for (i, it) in items.iter().enumerate() {
                let path = idx_path(&t.p("links"), i);
                let Some(l) =
                    schema::read_table::<schema::LinkSection>(it, &path, "", &mut ctx.errs)
                else {
                    ok = false;
                    continue;
                };
                for key in ["a", "b", "rate", "delay"] {
                    req(ctx, it, &path, key);
                }
                let l = l.value;
                let (r, d) = (*l.rate, *l.delay);
                ok &= r.is_some() && d.is_some();
                let (Some(a), Some(b)) = (l.a.0, l.b.0) else {
                    ok = false;
                    continue;
                };
                let host_only = host_names.contains(a.as_str()) && host_names.contains(b.as_str());
                if host_only {
                    // both ends are NICs: nic_buffer, never marking
                    for key in ["buffer", "ecn_k"] {
                        if it.get(key).is_some() {
                            ctx.err(
                                key_path(&path, key),
                                "a link between two hosts has no switch port: its two queues \
                                 are the hosts' NICs (topology.nic_buffer, never ECN-marking); \
                                 put a switch between them for a switch's queue",
                            );
                        }
                    }
                }
                let limit = match l.buffer.or(buf) {
                    Some(x) => x,
                    None => {
                        if !host_only && it.get("buffer").is_none() {
                            ctx.err(
                                key_path(&path, "buffer"),
                                "missing (no topology-wide 'buffer' either)",
                            );
                        }
                        if !host_only {
                            ok = false;
                        }
                        Limit::Packets(1)
                    }
                };
                links.push(CustomLink {
                    a,
                    b,
                    rate_bps: r.unwrap_or(1),
                    delay: d.unwrap_or_default(),
                    switch_queue: QueueConfig {
                        limit,
                        ecn_k: l.ecn_k.or(ecn_k),
                        non_ect,
                    },
                });
            }
        }
        Some(other) => {
            ctx.err(
                t.p("links"),
                format!(
                    "expected an array of tables, got {}",
                    units::json_type(other)
                ),
            );
            ok = false;
        }
    }
    if nodes.len() as u64 > MAX_NODES {
        ctx.err(
            t.p("nodes"),
            format!("too many nodes (at most {MAX_NODES})"),
        );
        return (None, false, false);
    }
    (
        Some(CustomParams {
            nodes,
            links,
            nic_buffer,
        }),
        ok,
        nodes_ok,
    )
}
