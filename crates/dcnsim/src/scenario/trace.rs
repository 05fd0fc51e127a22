//! `[trace]`: sampling interval, per-flow traces, and which queues.

use super::schema;
use super::table::{idx_path, Ctx};
use super::topology::TopoOut;
use super::units;
use crate::config::{NodeKind, TraceConfig};
use serde_json::Value;

/// `[trace]` (`schema::TraceSection`): `interval` required, `queues`
/// checked against the topology's queues.
pub(super) fn parse_trace(ctx: &mut Ctx, v: &Value, topo: &TopoOut) -> Option<TraceConfig> {
    let r = schema::read_table::<schema::TraceSection>(v, "trace", "", &mut ctx.errs)?;
    let interval = match *r.value.interval {
        None if v.get("interval").is_none() => {
            ctx.err("trace.interval", "missing required key");
            None
        }
        x => x, // None: already reported
    };
    let flows = r.value.flows.unwrap_or(true);
    let nqueues = topo.spec.as_ref().map(|s| 2 * s.links.len());
    let queues: Option<Vec<usize>> = match &*r.value.queues {
        None => Some(Vec::new()),
        Some(Value::String(w)) if w == "all" => Some((0..nqueues.unwrap_or(0)).collect()),
        Some(Value::String(w)) if w == "switches" => topo.spec.as_ref().map(|sp| {
            sp.links
                .iter()
                .enumerate()
                .flat_map(|(i, l)| {
                    let a = (sp.nodes[l.a].kind == NodeKind::Switch).then_some(2 * i);
                    let b = (sp.nodes[l.b].kind == NodeKind::Switch).then_some(2 * i + 1);
                    a.into_iter().chain(b)
                })
                .collect()
        }),
        Some(Value::Array(items)) => {
            let mut out = Vec::new();
            let mut ok = true;
            for (i, it) in items.iter().enumerate() {
                match it.as_u64() {
                    // a queue listed twice would give every row of it twice
                    Some(q) if out.contains(&(q as usize)) => {
                        ok = false;
                        ctx.err(
                            idx_path("trace.queues", i),
                            format!("queue {q} is listed twice"),
                        );
                    }
                    Some(q) if nqueues.is_none_or(|n| (q as usize) < n) => out.push(q as usize),
                    _ => {
                        ok = false;
                        ctx.err(
                            idx_path("trace.queues", i),
                            format!(
                                "expected a queue id (the queue_id column, 0 to {}), got {}",
                                nqueues.unwrap_or(1).saturating_sub(1),
                                units::json_excerpt(it)
                            ),
                        );
                    }
                }
            }
            ok.then_some(out)
        }
        Some(other) => {
            ctx.err(
                "trace.queues",
                format!(
                    "expected \"all\", \"switches\" or a list of queue ids, got {}",
                    units::json_excerpt(other)
                ),
            );
            None
        }
    };
    Some(TraceConfig {
        interval: interval?,
        flows,
        queues: queues?,
    })
}
