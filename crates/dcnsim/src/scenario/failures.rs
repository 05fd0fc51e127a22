//! `[[failures]]`: links that go down, lose packets or slow down for a
//! while (net/failure.rs), named by the nodes they join.

use super::schema;
use super::table::{idx_path, key_path, Ctx};
use super::units;
use crate::config::{FailureSpec, NodeKind, TopologySpec};
use crate::sim::time::SimTime;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// What the failures must not meet elsewhere in the document.
pub(super) struct Around<'a> {
    /// The topology, when it read without problems.
    pub topo: Option<&'a TopologySpec>,
    pub trimming: bool,
    pub int: bool,
    /// The run's end: routing converges only before it.
    pub stop: SimTime,
}

/// `failures = [{a, b, at, until, loss, rate, direction}, …]`, each entry
/// checked against the topology: its nodes exist and some link joins them,
/// its window is not empty, it changes something, and no two windows of
/// one link overlap. `None` when something was reported.
pub(super) fn parse_failures(
    ctx: &mut Ctx,
    v: &Value,
    around: &Around,
) -> Option<Vec<FailureSpec>> {
    let Value::Array(items) = v else {
        ctx.err(
            "failures",
            format!("expected an array of tables, got {}", units::json_type(v)),
        );
        return None;
    };
    let errs_before = ctx.errs.len();
    if !items.is_empty() && around.trimming {
        ctx.err(
            "failures",
            "link failures are not modelled with [trimming] (a trimming port's two queues)",
        );
    }
    if !items.is_empty() && around.int {
        ctx.err(
            "failures",
            "link failures are not modelled with in-band telemetry (int, hpcc flows)",
        );
    }
    let names: HashMap<&str, usize> = around
        .topo
        .map(|t| {
            t.nodes
                .iter()
                .enumerate()
                .map(|(i, n)| (n.name.as_str(), i))
                .collect()
        })
        .unwrap_or_default();
    let mut out = Vec::with_capacity(items.len());
    // per directed link: (window start, end, entry) of the entries so far
    let mut taken: HashMap<u32, Vec<(SimTime, SimTime, usize)>> = HashMap::new();
    for (i, it) in items.iter().enumerate() {
        let path = idx_path("failures", i);
        let Some(r) = schema::read_table::<schema::FailureSection>(it, &path, "", &mut ctx.errs)
        else {
            continue;
        };
        let f = r.value;
        let given = |k: &str| it.get(k).is_some();
        for key in ["a", "b"] {
            if !given(key) {
                ctx.err(key_path(&path, key), "missing required key");
            }
        }
        let at = f.at.unwrap_or(SimTime::ZERO);
        let until = f.until.unwrap_or(SimTime::MAX);
        if f.until.is_some() && until <= at {
            ctx.err(
                key_path(&path, "until"),
                format!("must be after at ({until} ≤ {at}): the link would never fail"),
            );
        }
        let loss = f.loss.unwrap_or(if f.rate.is_some() { 0.0 } else { 1.0 });
        if given("loss") && f.loss.is_some() && loss == 0.0 && f.rate.is_none() {
            ctx.err(
                key_path(&path, "loss"),
                "0 without rate: the failure would change nothing",
            );
        }
        if loss >= 1.0 && f.rate.is_some() {
            ctx.err(
                key_path(&path, "rate"),
                "with loss = 1 the link carries nothing: a rate for it would change nothing \
                 (a lossy link may run slower: loss below 1)",
            );
        }
        let (ab, ba) = f.direction.unwrap_or((true, true));
        let withdrawn = f.withdrawn.unwrap_or(false);
        let converge = *f.converge;
        if converge.is_some() {
            let why = if withdrawn {
                Some("withdrawn: routed around from the start already")
            } else if loss < 1.0 {
                Some("loss: routing withdraws a link that is down")
            } else if !(ab && ba) {
                Some("direction: routing withdraws a link both ways")
            } else {
                None
            };
            if let Some(why) = why {
                ctx.err(key_path(&path, "converge"), format!("not with {why}"));
            }
        }
        if withdrawn {
            let why = if at != SimTime::ZERO {
                Some("at")
            } else if f.until.is_some() {
                Some("until")
            } else if loss < 1.0 {
                Some("loss")
            } else if f.rate.is_some() {
                Some("rate")
            } else if !(ab && ba) {
                Some("direction")
            } else {
                None
            };
            if let Some(key) = why {
                ctx.err(
                    key_path(&path, "withdrawn"),
                    format!(
                        "routing that has converged around a link needs it down from the start \
                         for good, both ways ({key} says otherwise): for routing that converges \
                         during the run, give the failure a converge time instead"
                    ),
                );
            }
        }
        let (Some(a), Some(b)) = (f.a.0.as_deref(), f.b.0.as_deref()) else {
            continue;
        };
        let Some(topo) = around.topo else {
            continue; // the topology's own problems are reported
        };
        let mut ends = [None, None];
        for (k, (key, name)) in [("a", a), ("b", b)].into_iter().enumerate() {
            match names.get(name) {
                Some(&n) => ends[k] = Some(n),
                None => {
                    let hint = crate::text::suggest(name, names.keys().copied())
                        .map(|s| format!(" (did you mean '{s}'?)"))
                        .unwrap_or_default();
                    ctx.err(
                        key_path(&path, key),
                        format!("unknown node '{}'{hint}", crate::text::excerpt(name)),
                    );
                }
            }
        }
        let [Some(na), Some(nb)] = ends else {
            continue;
        };
        let routed = if withdrawn {
            Some("withdrawn")
        } else {
            converge.map(|_| "converge")
        };
        if let Some(key) = routed.filter(|_| {
            topo.nodes[na].kind == NodeKind::Host || topo.nodes[nb].kind == NodeKind::Host
        }) {
            ctx.err(
                key_path(&path, key),
                "only a link between two switches can be routed around (a host's link is its way in)",
            );
        }
        let mut dlinks = Vec::new();
        let mut slow_checked = false;
        for (li, l) in topo.links.iter().enumerate() {
            let fwd = if (l.a, l.b) == (na, nb) {
                Some(true)
            } else if (l.a, l.b) == (nb, na) {
                Some(false)
            } else {
                None
            };
            let Some(fwd) = fwd else { continue };
            // directed link 2·li runs l.a → l.b (net/routing.rs)
            let (a_to_b, b_to_a) = if fwd {
                (2 * li as u32, 2 * li as u32 + 1)
            } else {
                (2 * li as u32 + 1, 2 * li as u32)
            };
            if ab {
                dlinks.push(a_to_b);
            }
            if ba {
                dlinks.push(b_to_a);
            }
            // a degraded link runs slower; a "failure" at or above the
            // link's own rate would speed it up or change nothing
            if let Some(r) = (*f.rate).filter(|&r| r >= l.rate_bps) {
                if !slow_checked {
                    ctx.err(
                        key_path(&path, "rate"),
                        format!(
                            "{} is not below the link's own {}: a failure slows a link (a degraded \
                             link runs at a lower rate); it cannot speed it up",
                            bps_text(r),
                            bps_text(l.rate_bps)
                        ),
                    );
                    slow_checked = true;
                }
            }
        }
        if dlinks.is_empty() && (ab || ba) {
            // a link never joins a node to itself: `a` and `b` naming one
            // node is the mistake, not a missing link
            let why = if a == b {
                format!("'{b}' is also `a`: a failure names a link's two ends, two nodes")
            } else {
                format!("no link joins '{a}' and '{b}'")
            };
            ctx.err(key_path(&path, "b"), why);
            continue;
        }
        for &d in &dlinks {
            let seen = taken.entry(d).or_default();
            if let Some(&(_, _, j)) = seen.iter().find(|&&(s, e, _)| s < until && at < e) {
                ctx.err(
                    path.clone(),
                    format!("overlaps failures[{j}] on the link from '{a}' to '{b}' (or back): one failure at a time on a link"),
                );
                break;
            }
            seen.push((at, until, i));
        }
        out.push(FailureSpec {
            dlinks,
            at,
            until,
            loss,
            rate_bps: *f.rate,
            withdrawn,
            converge,
        });
    }
    if ctx.errs.len() == errs_before {
        if let Some(topo) = around.topo {
            cut_off(ctx, topo, &out, around.stop);
        }
    }
    (ctx.errs.len() == errs_before).then_some(out)
}

/// The links routing avoids must leave every pair of hosts a path through
/// switches at every instant (routing has nowhere to send a packet
/// otherwise): the switches joined by the links still in use, and every
/// host on the one group of them. The set routing avoids grows only where
/// a failure's routing converges (`at` + `converge`), so those instants,
/// and the start for `withdrawn` links, are the ones to look at: two
/// uplinks of one switch that fail one after the other keep it joined,
/// a convergence at or after `stop` never happens,
/// where both at once would not (until 2026-12-08 every `converge` link
/// counted as withdrawn for the whole run, and such a run was refused).
fn cut_off(ctx: &mut Ctx, topo: &TopologySpec, failures: &[FailureSpec], stop: SimTime) {
    let mut instants: Vec<SimTime> = failures
        .iter()
        .filter_map(|f| {
            if f.withdrawn {
                Some(SimTime::ZERO)
            } else {
                f.converge.map(|c| f.at.saturating_add(c))
            }
        })
        // routing converges only before stop (Config::reroutes)
        .filter(|&t| t < stop)
        .collect();
    instants.sort_unstable();
    instants.dedup();
    let mut seen: Vec<Vec<u32>> = Vec::new();
    for t in instants {
        let mut dead: Vec<u32> = failures
            .iter()
            .filter(|f| f.routed_around_at(t))
            .flat_map(|f| f.dlinks.iter().copied())
            .collect();
        dead.sort_unstable();
        dead.dedup();
        if dead.is_empty() || seen.contains(&dead) {
            continue;
        }
        if !joined(ctx, topo, &dead.iter().copied().collect()) {
            return;
        }
        seen.push(dead);
    }
}

/// Whether every pair of hosts keeps a path with the directed links
/// `dead` out of use; if not, the error naming a pair cut off.
fn joined(ctx: &mut Ctx, topo: &TopologySpec, dead: &HashSet<u32>) -> bool {
    let n = topo.nodes.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(p: &mut [usize], mut v: usize) -> usize {
        while p[v] != v {
            p[v] = p[p[v]];
            v = p[v];
        }
        v
    }
    let is_host = |v: usize| topo.nodes[v].kind == NodeKind::Host;
    for (i, l) in topo.links.iter().enumerate() {
        if dead.contains(&(2 * i as u32)) || is_host(l.a) || is_host(l.b) {
            continue;
        }
        let (ra, rb) = (root(&mut parent, l.a), root(&mut parent, l.b));
        parent[ra] = rb;
    }
    // each host's group: the group of the switches it is linked to
    let mut group = vec![None; n];
    for l in &topo.links {
        for (h, sw) in [(l.a, l.b), (l.b, l.a)] {
            if is_host(h) && !is_host(sw) {
                let r = root(&mut parent, sw);
                group[h].get_or_insert(r);
            }
        }
    }
    let hosts = topo.hosts();
    let Some(&first) = hosts.first() else {
        return true;
    };
    for &h in &hosts[1..] {
        if group[h] != group[first] {
            ctx.err(
                "failures",
                format!(
                    "the links routed around (withdrawn, converge) leave no path between '{}' and '{}'",
                    topo.nodes[first].name, topo.nodes[h].name
                ),
            );
            return false;
        }
    }
    true
}

/// A rate as the scenario would write it: "10Gbps", "2.5Gbps", "100Mbps".
pub(super) fn bps_text(bps: u64) -> String {
    for (unit, scale) in [("Tbps", 1e12), ("Gbps", 1e9), ("Mbps", 1e6), ("Kbps", 1e3)] {
        if bps as f64 >= scale {
            return format!("{}{unit}", bps as f64 / scale);
        }
    }
    format!("{bps}bps")
}
