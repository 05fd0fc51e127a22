//! `[routing]`: the path-choice mode and its keys.

use super::schema;
use super::table::Ctx;
use super::values::DEFAULT_FLOWLET_GAP;
use crate::config::RoutingMode;
use serde_json::Value;

/// `[routing]` (`schema::RoutingSection`), then its checks across keys:
/// `salt` only with ECMP, `flowlet_gap` only with flowlets.
pub(super) fn parse_routing(ctx: &mut Ctx, v: &Value) -> Option<RoutingMode> {
    let r = schema::read_table::<schema::RoutingSection>(v, "routing", "", &mut ctx.errs)?;
    let given = |k: &str| v.get(k).is_some();
    if given("mode") && r.value.mode.is_none() {
        return None; // already reported
    }
    let mode = r.value.mode.unwrap_or(RoutingMode::Ecmp);
    if given("salt") && mode != RoutingMode::Ecmp {
        ctx.err("routing.salt", "only used with mode = \"ecmp\"");
        return None;
    }
    let is_flowlet = matches!(mode, RoutingMode::Flowlet { .. });
    if given("flowlet_gap") && !is_flowlet {
        ctx.err("routing.flowlet_gap", "only used with mode = \"flowlet\"");
        return None;
    }
    if (given("salt") && r.value.salt.is_none())
        || (given("flowlet_gap") && r.value.flowlet_gap.is_none())
    {
        return None; // already reported
    }
    Some(match mode {
        RoutingMode::Ecmp if *r.value.salt == Some(false) => RoutingMode::EcmpUnsalted,
        RoutingMode::Flowlet { .. } => RoutingMode::Flowlet {
            gap: r.value.flowlet_gap.unwrap_or(DEFAULT_FLOWLET_GAP),
        },
        m => m,
    })
}
