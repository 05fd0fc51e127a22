//! Scenario documents (JSON values; TOML is converted to JSON by the
//! Python front) → validated [`Config`], following `docs/scenario.md`.
//!
//! Validation collects **every** problem, each with its field path
//! (`apps[2].servers[3]`, `tcp.rto_min`, `topology.links[0].a`) and a
//! reason; nothing stops at the first error. The parser never panics on
//! any input.
//!
//! Each table is read through its struct in `schema.rs` (`scenario::schema`, the one
//! declaration of keys, value kinds and defaults, from which the JSON
//! Schema is generated); this module dispatches on `kind`, resolves
//! defaults and layers, and runs the checks across keys and sections.

use crate::cdf::{FlowSizeCdf, Sampling};
use crate::config::{
    AppSpec, BulkAmount, CcKind, Config, CubicParams, DctcpParams, DsrParams, FastParams,
    FastSegRule, Limit, LossRecovery, NodeKind, PoissonSpec, ProbRetxParams, ProbRetxTarget,
    QueueConfig, Reordering, RoutingMode, SegPolicyKind, TcpConfig, TcpProfile, TcpRandMode,
    TcpRandParams, TopologySpec, TraceConfig,
};
pub mod schema;
pub mod units;

use crate::net::topology::{
    self, CustomLink, CustomNode, CustomParams, FatTreeParams, LeafSpineParams, StarParams,
    TopologyParams, TwoTierParams, DEFAULT_NIC_BUFFER, MAX_LINKS, MAX_NODES,
};
use crate::sim::time::SimTime;
use crate::text::{excerpt, suggest};
use schema::TcpSection;
use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::fmt;
use units::json_excerpt;

/// One validation problem: where (`apps[1].servers[3]`) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub path: String,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

impl std::error::Error for ScenarioError {}

/// A topology's own problems sit under the scenario's `topology` key.
impl From<topology::TopologyError> for ScenarioError {
    fn from(e: topology::TopologyError) -> Self {
        let path = if e.path.is_empty() {
            "topology".to_string()
        } else {
            format!("topology.{}", e.path)
        };
        ScenarioError {
            path,
            message: e.message,
        }
    }
}

/// Path used for problems with the document as a whole.
pub const DOCUMENT: &str = "<document>";

/// Congestion-control names. Adding a variant is one line here.
pub(crate) const CC_NAMES: &[(&str, CcKind)] = &[
    ("newreno", CcKind::NewReno),
    ("cubic", CcKind::Cubic),
    ("dctcp", CcKind::Dctcp),
    ("fast", CcKind::Fast),
];

/// Segment-size policy names. Adding a variant is one line here.
pub(crate) const SEGMENT_NAMES: &[(&str, SegPolicyKind)] = &[
    ("fixed", SegPolicyKind::Fixed),
    ("fast", SegPolicyKind::Fast),
    ("dsr", SegPolicyKind::Dsr),
    ("tcprand", SegPolicyKind::TcpRand),
];

pub(crate) const TCPRAND_MODES: &[(&str, TcpRandMode)] = &[
    ("static", TcpRandMode::Static),
    ("adaptive", TcpRandMode::Adaptive),
];

/// TCPRand's (σ², μ, v_τ, v_ω) presets, by name (values in `TcpRandParams::PRESETS`).
pub(crate) const TCPRAND_PRESETS: &[(&str, &str)] = &[
    ("default", "default"),
    ("conservative", "conservative"),
    ("aggressive", "aggressive"),
];

/// The readings of "highest unacknowledged segment" (Kulkarni Algorithm 1).
pub(crate) const PROBRETX_TARGETS: &[(&str, ProbRetxTarget)] = &[
    ("highest", ProbRetxTarget::Highest),
    ("lowest", ProbRetxTarget::Lowest),
];

/// The readings of FaST's eq. (9) (SPEC §2.1).
pub(crate) const FAST_SEG_RULES: &[(&str, FastSegRule)] = &[
    ("continuous", FastSegRule::Continuous),
    ("literal", FastSegRule::Literal),
];

pub(crate) const REORDERING_NAMES: &[(&str, Reordering)] = &[
    ("fixed", Reordering::Fixed),
    ("adaptive", Reordering::Adaptive),
];

pub(crate) const PROFILE_NAMES: &[(&str, TcpProfile)] =
    &[("papers", TcpProfile::Papers), ("linux", TcpProfile::Linux)];

pub(crate) const RECOVERY_NAMES: &[(&str, LossRecovery)] = &[
    ("dupack", LossRecovery::DupAck),
    ("rack", LossRecovery::Rack),
];

pub(crate) const ROUTING_NAMES: &[(&str, RoutingMode)] = &[
    ("single", RoutingMode::Single),
    ("ecmp", RoutingMode::Ecmp),
    ("rps", RoutingMode::Rps),
    (
        "flowlet",
        RoutingMode::Flowlet {
            gap: DEFAULT_FLOWLET_GAP,
        },
    ),
];

/// Default flowlet gap: CONGA's (Alizadeh et al. 2014) 500 µs, larger than
/// the delay difference of the paths of a loaded data-center fabric.
pub const DEFAULT_FLOWLET_GAP: SimTime = SimTime::from_us(500);

/// `[routing]` (`schema::RoutingSection`), then its checks across keys:
/// `salt` only with ECMP, `flowlet_gap` only with flowlets.
fn parse_routing(ctx: &mut Ctx, v: &Value) -> Option<RoutingMode> {
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

const SAMPLING_NAMES: &[(&str, Sampling)] =
    &[("linear", Sampling::Linear), ("step", Sampling::Step)];

/// Node kinds of a custom topology.
pub(crate) const NODE_KINDS: &[(&str, NodeKind)] =
    &[("host", NodeKind::Host), ("switch", NodeKind::Switch)];

// ---------------------------------------------------------------- helpers

fn is_ident(k: &str) -> bool {
    !k.is_empty()
        && k.len() <= 64
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// `parent.key`, or `parent["odd key"]` for keys that are not identifiers.
pub fn key_path(parent: &str, key: &str) -> String {
    if is_ident(key) {
        if parent.is_empty() {
            key.to_string()
        } else {
            format!("{parent}.{key}")
        }
    } else {
        let quoted = serde_json::to_string(&excerpt(key)).unwrap_or_else(|_| "\"?\"".into());
        format!("{parent}[{quoted}]")
    }
}

fn idx_path(parent: &str, i: usize) -> String {
    format!("{parent}[{i}]")
}

struct Ctx {
    errs: Vec<ScenarioError>,
}

impl Ctx {
    fn err(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.errs.push(ScenarioError {
            path: path.into(),
            message: message.into(),
        });
    }
}

/// A JSON table being read: reports unknown keys up front, then typed getters.
struct Tbl<'a> {
    map: &'a Map<String, Value>,
    path: String,
}

impl<'a> Tbl<'a> {
    /// `None` (and an error) if `v` is not a table.
    fn new(ctx: &mut Ctx, v: &'a Value, path: &str) -> Option<Tbl<'a>> {
        match v {
            Value::Object(map) => Some(Tbl {
                map,
                path: path.to_string(),
            }),
            other => {
                ctx.err(
                    if path.is_empty() { DOCUMENT } else { path },
                    format!("expected a table, got {}", units::json_type(other)),
                );
                None
            }
        }
    }

    /// Report every key not in `allowed` (`what` qualifies the message).
    fn check_keys(&self, ctx: &mut Ctx, allowed: &[&str], what: &str) {
        for k in self.map.keys() {
            if !allowed.contains(&k.as_str()) {
                let hint = suggest(k, allowed.iter().copied())
                    .map(|s| format!(" (did you mean '{s}'?)"))
                    .unwrap_or_default();
                ctx.err(key_path(&self.path, k), format!("unknown key{what}{hint}"));
            }
        }
    }

    fn p(&self, key: &str) -> String {
        key_path(&self.path, key)
    }

    fn has(&self, key: &str) -> bool {
        self.map.contains_key(key)
    }

    fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key)
    }

    /// Optional key: `None` if absent or invalid (invalid → error recorded).
    fn opt<T>(
        &self,
        ctx: &mut Ctx,
        key: &str,
        f: impl FnOnce(&Value) -> Result<T, String>,
    ) -> Option<T> {
        let v = self.map.get(key)?;
        match f(v) {
            Ok(x) => Some(x),
            Err(m) => {
                ctx.err(self.p(key), m);
                None
            }
        }
    }

    /// Required key: a missing key is an error too.
    fn req<T>(
        &self,
        ctx: &mut Ctx,
        key: &str,
        f: impl FnOnce(&Value) -> Result<T, String>,
    ) -> Option<T> {
        if !self.has(key) {
            ctx.err(self.p(key), "missing required key");
            return None;
        }
        self.opt(ctx, key, f)
    }
}

// ------------------------------------------------------------ value kinds

pub(crate) fn uint(v: &Value) -> Result<u64, String> {
    match v {
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                Ok(u)
            } else if let Some(i) = n.as_i64() {
                Err(format!("must be ≥ 0, got {i}"))
            } else {
                Err(format!("expected an integer, got {}", json_excerpt(v)))
            }
        }
        other => Err(format!("expected an integer, got {}", json_excerpt(other))),
    }
}

/// A count that may be written as an integer or a float such as `1e12`.
pub(crate) fn event_count(v: &Value) -> Result<u64, String> {
    match v.as_f64() {
        Some(x) if v.is_number() && (1.0..1.8e19).contains(&x) && x.fract() == 0.0 => Ok(x as u64),
        _ => Err(format!(
            "expected a whole number from 1 to 1e19, such as 1e12, got {}",
            json_excerpt(v)
        )),
    }
}

/// An integer in `[min, max]`.
pub(crate) fn int_in(min: u64, max: u64) -> impl Fn(&Value) -> Result<u64, String> {
    move |v| {
        // A negative number gets this range's bound, not uint's "≥ 0".
        if let Some(i) = v.as_i64().filter(|i| *i < 0) {
            return Err(format!("must be ≥ {min}, got {i}"));
        }
        let x = uint(v)?;
        if x < min {
            Err(format!("must be ≥ {min}, got {x}"))
        } else if x > max {
            Err(format!("must be ≤ {max}, got {x}"))
        } else {
            Ok(x)
        }
    }
}

pub(crate) fn u32_in(min: u32) -> impl Fn(&Value) -> Result<u32, String> {
    move |v| int_in(min as u64, u32::MAX as u64)(v).map(|x| x as u32)
}

/// A number in [0, 1], or in (0, 1] when `zero_ok` is false: a JSON number
/// or a fraction string such as `"1/16"`.
pub(crate) fn unit_fraction(zero_ok: bool) -> impl Fn(&Value) -> Result<f64, String> {
    move |v| {
        let bad = || {
            format!(
                "expected a number like 0.0625 or a fraction like '1/16', got {}",
                json_excerpt(v)
            )
        };
        let x = match v {
            Value::Number(n) => n.as_f64().ok_or_else(bad)?,
            Value::String(s) => {
                let (a, b) = s.split_once('/').ok_or_else(bad)?;
                let (Ok(a), Ok(b)) = (a.trim().parse::<u64>(), b.trim().parse::<u64>()) else {
                    return Err(bad());
                };
                if b == 0 {
                    return Err(format!("division by zero in '{}'", excerpt(s)));
                }
                a as f64 / b as f64
            }
            _ => return Err(bad()),
        };
        if !x.is_finite() || x < 0.0 {
            Err(format!("must be ≥ 0, got {}", json_excerpt(v)))
        } else if !zero_ok && x == 0.0 {
            Err(format!("must be > 0, got {}", json_excerpt(v)))
        } else if x > 1.0 {
            Err(format!("must be ≤ 1, got {}", json_excerpt(v)))
        } else {
            Ok(x)
        }
    }
}

/// A size in bytes that fits a segment length (> 0, < 2³²).
pub(crate) fn segment_size(v: &Value) -> Result<u32, String> {
    let s = positive_size(v)?;
    u32::try_from(s).map_err(|_| format!("must be < 4 GiB, got {}", json_excerpt(v)))
}

/// A finite JSON number.
pub(crate) fn finite(v: &Value) -> Result<f64, String> {
    match v.as_f64() {
        Some(x) if x.is_finite() => Ok(x),
        _ => Err(format!("expected a number, got {}", json_excerpt(v))),
    }
}

pub(crate) fn positive_finite(v: &Value) -> Result<f64, String> {
    let x = finite(v)?;
    if x <= 0.0 {
        return Err(format!("must be > 0, got {}", json_excerpt(v)));
    }
    Ok(x)
}

/// A scale factor: a number (> 0, or ≥ 0 when `zero_ok`) or the string
/// `"inf"` (returned as `f64::INFINITY`, which callers branch on).
pub(crate) fn scale(zero_ok: bool) -> impl Fn(&Value) -> Result<f64, String> {
    move |v| {
        if let Some(s) = v.as_str() {
            return match s.trim().to_lowercase().as_str() {
                "inf" | "infinity" | "∞" => Ok(f64::INFINITY),
                _ => Err(format!(
                    "expected a number or \"inf\", got {}",
                    json_excerpt(v)
                )),
            };
        }
        let x = v
            .as_f64()
            .filter(|x| x.is_finite())
            .ok_or_else(|| format!("expected a number or \"inf\", got {}", json_excerpt(v)))?;
        if x < 0.0 || (!zero_ok && x == 0.0) {
            let bound = if zero_ok { "≥ 0" } else { "> 0" };
            return Err(format!(
                "must be {bound} (or \"inf\"), got {}",
                json_excerpt(v)
            ));
        }
        Ok(x)
    }
}

pub(crate) fn boolean(v: &Value) -> Result<bool, String> {
    v.as_bool()
        .ok_or_else(|| format!("expected true or false, got {}", json_excerpt(v)))
}

pub(crate) fn string(v: &Value) -> Result<String, String> {
    v.as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("expected a string, got {}", json_excerpt(v)))
}

pub(crate) fn time(v: &Value) -> Result<SimTime, String> {
    units::time_from_json(v)
}

pub(crate) fn positive_time(v: &Value) -> Result<SimTime, String> {
    let t = units::time_from_json(v)?;
    if t == SimTime::ZERO {
        return Err(format!("must be > 0, got {}", json_excerpt(v)));
    }
    Ok(t)
}

pub(crate) fn rate(v: &Value) -> Result<u64, String> {
    units::rate_from_json(v)
}

pub(crate) fn positive_size(v: &Value) -> Result<u64, String> {
    let s = units::size_from_json(v)?;
    if s == 0 {
        return Err(format!("must be > 0, got {}", json_excerpt(v)));
    }
    Ok(s)
}

pub(crate) fn limit(v: &Value) -> Result<Limit, String> {
    units::limit_from_json(v)
}

/// A queue limit (buffer): must be > 0.
pub(crate) fn buffer(v: &Value) -> Result<Limit, String> {
    let l = units::limit_from_json(v)?;
    if matches!(l, Limit::Bytes(0) | Limit::Packets(0)) {
        return Err(format!("must be > 0, got {}", json_excerpt(v)));
    }
    Ok(l)
}

/// A host NIC queue: a buffer, or `"unlimited"` (a host that never drops its
/// own packets, as htsim's hosts).
pub(crate) fn nic_buffer(v: &Value) -> Result<Limit, String> {
    if v.as_str().map(str::to_lowercase).as_deref() == Some("unlimited") {
        return Ok(Limit::Bytes(u64::MAX));
    }
    buffer(v).map_err(|e| format!("{e} (or \"unlimited\")"))
}

pub(crate) fn named<'a, T: Copy>(
    table: &'a [(&'a str, T)],
    what: &str,
) -> impl Fn(&Value) -> Result<T, String> + 'a {
    let what = what.to_string();
    move |v| {
        let s = v
            .as_str()
            .ok_or_else(|| format!("expected a string, got {}", json_excerpt(v)))?;
        let lower = s.to_lowercase();
        if let Some((_, x)) = table.iter().find(|(n, _)| *n == lower) {
            return Ok(*x);
        }
        let valid: Vec<&str> = table.iter().map(|(n, _)| *n).collect();
        Err(format!(
            "unknown {what} '{}' (valid: {})",
            excerpt(s),
            valid.join(", ")
        ))
    }
}

/// A Poisson app's offered load: in (0, 1].
pub(crate) fn load(v: &Value) -> Result<f64, String> {
    let x = v
        .as_f64()
        .ok_or_else(|| format!("expected a number in (0, 1], got {}", json_excerpt(v)))?;
    if x <= 0.0 {
        Err(format!("must be > 0, got {}", json_excerpt(v)))
    } else if x > 1.0 {
        Err(format!(
            "must be ≤ 1 (a load above the sources' edge capacity never drains), got {}",
            json_excerpt(v)
        ))
    } else {
        Ok(x)
    }
}

/// A datagram payload: a size > 0 that fits 32 bits.
pub(crate) fn payload_size(v: &Value) -> Result<u32, String> {
    let s = positive_size(v)?;
    u32::try_from(s).map_err(|_| format!("too large: {s} bytes"))
}

/// A host index, range-checked when the host count is known.
pub(crate) fn host(nhosts: Option<usize>) -> impl Fn(&Value) -> Result<usize, String> {
    move |v| {
        let h = uint(v).map_err(|e| {
            if matches!(v, Value::Number(_)) {
                e
            } else {
                format!("expected a host index, got {}", json_excerpt(v))
            }
        })?;
        check_host(h, nhosts)
    }
}

fn check_host(h: u64, nhosts: Option<usize>) -> Result<usize, String> {
    match nhosts {
        Some(n) if h >= n as u64 => Err(format!(
            "host {h} out of range (topology has {n} host{})",
            if n == 1 { "" } else { "s" }
        )),
        _ if h > MAX_NODES => Err(format!("host {h} out of range")),
        _ => Ok(h as usize),
    }
}

/// A many-to-one app's list of peers (`workers`, `servers`): present and
/// valid, and the hub (`aggregator`, `client`; already read) not among them.
fn fan_in(
    ctx: &mut Ctx,
    t: &Tbl,
    (hub_key, list_key): (&str, &str),
    hub: Option<usize>,
    list: &Option<Value>,
    nhosts: Option<usize>,
) -> Option<Vec<usize>> {
    let list = match list {
        None => {
            ctx.err(t.p(list_key), "missing required key");
            None
        }
        Some(v) => host_list(ctx, v, &t.p(list_key), nhosts),
    };
    if let (Some(c), Some(peers)) = (hub, &list) {
        for (peer, path) in peers {
            if *peer == c {
                ctx.err(path, format!("host {c} is the {hub_key} itself"));
            }
        }
    }
    list.map(|l| l.into_iter().map(|(h, _)| h).collect())
}

/// A list of hosts: an array of indices or a range string `"a-b"` (inclusive).
/// Returns each host with the path to report it at.
fn host_list(
    ctx: &mut Ctx,
    v: &Value,
    path: &str,
    nhosts: Option<usize>,
) -> Option<Vec<(usize, String)>> {
    match v {
        Value::Array(items) => {
            if items.is_empty() {
                ctx.err(path, "empty list (needs at least one host)");
                return None;
            }
            let mut out = Vec::with_capacity(items.len());
            let mut ok = true;
            let mut seen = BTreeSet::new();
            for (i, it) in items.iter().enumerate() {
                let p = idx_path(path, i);
                match host(nhosts)(it) {
                    Ok(h) => {
                        if !seen.insert(h) {
                            ctx.err(&p, format!("host {h} is listed twice"));
                            ok = false;
                        }
                        out.push((h, p));
                    }
                    Err(m) => {
                        ctx.err(p, m);
                        ok = false;
                    }
                }
            }
            ok.then_some(out)
        }
        Value::String(s) => {
            let bad = || {
                format!(
                    "expected a list of host indices or a range like '1-16', got '{}'",
                    excerpt(s)
                )
            };
            let Some((a, b)) = s.split_once('-') else {
                ctx.err(path, bad());
                return None;
            };
            let (Ok(a), Ok(b)) = (a.trim().parse::<u64>(), b.trim().parse::<u64>()) else {
                ctx.err(path, bad());
                return None;
            };
            if a > b {
                ctx.err(
                    path,
                    format!("range '{}' is empty (start > end)", excerpt(s)),
                );
                return None;
            }
            if let Err(m) = check_host(b, nhosts) {
                ctx.err(path, m);
                return None;
            }
            Some(
                (a as usize..=b as usize)
                    .map(|h| (h, path.to_string()))
                    .collect(),
            )
        }
        other => {
            ctx.err(
                path,
                format!(
                    "expected a list of host indices or a range like '1-16', got {}",
                    units::json_type(other)
                ),
            );
            None
        }
    }
}

// --------------------------------------------------------------------- tcp

/// A `[tcp]` layer as read (`schema::TcpSection`), with the keys it set
/// validly: an app's override is layered over the top-level one key by key.
#[derive(Clone, Debug, Default)]
struct TcpLayer {
    section: TcpSection,
    keys: Map<String, Value>,
}

impl TcpLayer {
    fn parse(ctx: &mut Ctx, v: &Value, path: &str) -> TcpLayer {
        match schema::read_table::<TcpSection>(v, path, "", &mut ctx.errs) {
            Some(r) => TcpLayer {
                section: r.value,
                keys: r
                    .valid
                    .into_iter()
                    .filter_map(|k| v.get(&k).map(|x| (k, x.clone())))
                    .collect(),
            },
            None => TcpLayer::default(),
        }
    }

    /// `self` over `base`: keys set in `self` win.
    fn over(&self, base: &TcpLayer) -> TcpLayer {
        let mut keys = base.keys.clone();
        keys.extend(self.keys.clone());
        // Every key was read on its own already, so they read together.
        let section = serde_json::from_value(Value::Object(keys.clone())).unwrap_or_default();
        TcpLayer { section, keys }
    }

    /// Whether the layer sets any of `keys` (schema key names).
    fn sets_any(&self, keys: &[&str]) -> bool {
        keys.iter().any(|k| self.keys.contains_key(*k))
    }
}

impl TcpSection {
    /// Apply over [`TcpConfig::default`].
    fn resolve(&self) -> TcpConfig {
        let profile = self.profile.unwrap_or(TcpProfile::Papers);
        let d = TcpConfig::of_profile(profile);
        let mss = self.mss.unwrap_or(d.mss);
        let rwnd_bytes = match *self.rwnd {
            None => d.rwnd_bytes,
            Some(Limit::Bytes(b)) => b,
            Some(Limit::Packets(n)) => n.saturating_mul(mss as u64),
        };
        let cc = self.cc.unwrap_or(d.cc);
        let rto_min = self.rto_min.unwrap_or(d.rto_min);
        let sack = self.sack.unwrap_or(d.sack);
        let fast_smin = self.fast_smin.unwrap_or(d.fast.smin);
        // A preset sets (σ², μ, v_τ, v_ω); explicit keys override it.
        let rand_base = self
            .tcprand_preset
            .and_then(|n| d.tcprand.with_preset(n))
            .unwrap_or(d.tcprand);
        TcpConfig {
            cc,
            // FaST's natural segment policy is its own.
            seg: self.segment.unwrap_or(if cc == CcKind::Fast {
                SegPolicyKind::Fast
            } else {
                d.seg
            }),
            mss,
            // Header compression (Kulkarni §4.3, after RFC 1144): 4 bytes
            // per packet on the wire; an explicit `header` wins.
            header_bytes: self
                .header
                .unwrap_or(if *self.header_compression == Some(true) {
                    4
                } else {
                    d.header_bytes
                }),
            init_cwnd_segments: self.init_cwnd.unwrap_or(d.init_cwnd_segments),
            init_ssthresh_segments: self.init_ssthresh.or(d.init_ssthresh_segments),
            ca_increase: d.ca_increase,
            rwnd_bytes,
            rto_min,
            rto_init: self.rto_init.unwrap_or(d.rto_init),
            rto_max: self.rto_max.unwrap_or(d.rto_max),
            // Linux's G is its rto_min (TcpConfig::linux): they move together.
            granularity: self.granularity.unwrap_or(if profile == TcpProfile::Linux {
                rto_min
            } else {
                d.granularity
            }),
            max_backoff: self.max_backoff.unwrap_or(d.max_backoff),
            dupack_threshold: self.dupack_threshold.unwrap_or(d.dupack_threshold),
            reordering: self.reordering.unwrap_or(d.reordering),
            // RACK needs SACK: without it Linux falls back to duplicate ACKs.
            recovery: self.recovery.unwrap_or(if sack {
                d.recovery
            } else {
                LossRecovery::DupAck
            }),
            delayed_ack: self.delayed_ack.unwrap_or(d.delayed_ack),
            delayed_ack_timeout: self.delayed_ack_timeout.unwrap_or(d.delayed_ack_timeout),
            delayed_ack_segments: self.delayed_ack_segments.unwrap_or(d.delayed_ack_segments),
            delayed_ack_quickack: self.delayed_ack_quickack.unwrap_or(d.delayed_ack_quickack),
            sack,
            sack_rescue: self.sack_rescue.unwrap_or(d.sack_rescue),
            limited_transmit: self.limited_transmit.unwrap_or(d.limited_transmit),
            timestamps: self.timestamps.unwrap_or(d.timestamps),
            // DCTCP and FaST imply ECN unless it is explicitly (and wrongly) off.
            ecn: self.ecn.unwrap_or(d.ecn || cc.needs_ecn()),
            handshake_rtt_sample: self.handshake_rtt_sample.unwrap_or(d.handshake_rtt_sample),
            cubic: CubicParams {
                fast_convergence: self
                    .cubic_fast_convergence
                    .unwrap_or(d.cubic.fast_convergence),
            },
            dctcp: DctcpParams {
                g: self.dctcp_g.unwrap_or(d.dctcp.g),
                alpha_init: self.dctcp_alpha_init.unwrap_or(d.dctcp.alpha_init),
            },
            fast: FastParams {
                g: self.fast_g.unwrap_or(d.fast.g),
                alpha_init: self.fast_alpha_init.unwrap_or(d.fast.alpha_init),
                wmin: self.fast_wmin.unwrap_or(d.fast.wmin),
                smin: fast_smin,
                probe_segments: self.fast_probe_segments.unwrap_or(d.fast.probe_segments),
                // The probes are S_min-sized unless told otherwise.
                probe_size: self.fast_probe_size.unwrap_or(fast_smin),
                seg_rule: self.fast_seg_rule.unwrap_or(d.fast.seg_rule),
            },
            dsr: DsrParams {
                mss: self.dsr_mss.unwrap_or(d.dsr.mss),
                cwnd: self.dsr_cwnd.unwrap_or(d.dsr.cwnd),
            },
            tcprand: TcpRandParams {
                mode: self.tcprand_mode.unwrap_or(rand_base.mode),
                rmin: self.tcprand_rmin.unwrap_or(rand_base.rmin),
                theta: self.tcprand_theta.unwrap_or(rand_base.theta),
                sigma2: self.tcprand_sigma2.unwrap_or(rand_base.sigma2),
                mu: self.tcprand_mu.unwrap_or(rand_base.mu),
                v_tau: self.tcprand_v_tau.unwrap_or(rand_base.v_tau),
                v_omega: self.tcprand_v_omega.unwrap_or(rand_base.v_omega),
            },
            probretx: ProbRetxParams {
                p: self.probretx_p.unwrap_or(d.probretx.p),
                period: self.probretx_period.unwrap_or(d.probretx.period),
                target: self.probretx_target.unwrap_or(d.probretx.target),
            },
        }
    }
}

/// Checks across fields of a resolved TCP config:
/// (key to report at, message, keys involved).
fn tcp_cross_checks(c: &TcpConfig) -> Vec<(&'static str, String, &'static [&'static str])> {
    let mut out = Vec::new();
    if c.rwnd_bytes < c.mss as u64 {
        out.push((
            "rwnd",
            format!(
                "receiver window ({} bytes) is smaller than mss ({} bytes)",
                c.rwnd_bytes, c.mss
            ),
            &["rwnd", "mss"][..],
        ));
    }
    if c.rto_max < c.rto_min {
        out.push((
            "rto_max",
            format!("rto_max ({}) is below rto_min ({})", c.rto_max, c.rto_min),
            &["rto_max", "rto_min"][..],
        ));
    }
    if c.rto_init > c.rto_max {
        out.push((
            "rto_init",
            format!("rto_init ({}) exceeds rto_max ({})", c.rto_init, c.rto_max),
            &["rto_init", "rto_max"][..],
        ));
    }
    if c.recovery == LossRecovery::Rack && !c.sack {
        out.push((
            "recovery",
            "'rack' detects losses from SACK information (RFC 8985): set sack = true".to_string(),
            &["recovery", "sack"][..],
        ));
    }
    if c.cc.needs_ecn() && !c.ecn {
        out.push((
            "ecn",
            format!(
                "cc '{}' is built on ECN; ecn cannot be false (leave it out or set it true)",
                c.cc.name()
            ),
            &["ecn", "cc"][..],
        ));
    }
    let uses_fast = c.cc == CcKind::Fast || c.seg == SegPolicyKind::Fast;
    if uses_fast && c.fast.smin > c.mss {
        out.push((
            "fast_smin",
            format!(
                "fast_smin ({} bytes) exceeds mss ({} bytes)",
                c.fast.smin, c.mss
            ),
            &["fast_smin", "mss", "cc", "segment"][..],
        ));
    }
    if uses_fast && c.fast.probe_size > c.mss {
        out.push((
            "fast_probe_size",
            format!(
                "fast_probe_size ({} bytes) exceeds mss ({} bytes)",
                c.fast.probe_size, c.mss
            ),
            &["fast_probe_size", "fast_smin", "mss", "cc", "segment"][..],
        ));
    }
    if c.seg == SegPolicyKind::Dsr && c.dsr.mss > c.mss {
        out.push((
            "dsr_mss",
            format!(
                "dsr_mss ({} bytes) exceeds mss ({} bytes)",
                c.dsr.mss, c.mss
            ),
            &["dsr_mss", "mss", "segment"][..],
        ));
    }
    if c.seg == SegPolicyKind::TcpRand {
        let r = &c.tcprand;
        if r.mode == TcpRandMode::Static && r.rmin > c.mss {
            out.push((
                "tcprand_rmin",
                format!(
                    "tcprand_rmin ({} bytes) exceeds mss ({} bytes): payloads are drawn from [rmin, mss]",
                    r.rmin, c.mss
                ),
                &["tcprand_rmin", "tcprand_mode", "mss", "segment"][..],
            ));
        }
        if r.mode == TcpRandMode::Adaptive && r.theta > c.mss {
            out.push((
                "tcprand_theta",
                format!(
                    "tcprand_theta ({} bytes) exceeds mss ({} bytes): it is the floor of rMin ≤ mss",
                    r.theta, c.mss
                ),
                &["tcprand_theta", "tcprand_mode", "mss", "segment"][..],
            ));
        }
    }
    out
}

// ---------------------------------------------------------------- topology

/// Parsed topology: the spec (if it could be built) and the host count (if known).
struct TopoOut {
    spec: Option<TopologySpec>,
    hosts: Option<usize>,
}

/// A fat-tree's k: even, 2 to 1000.
pub(crate) fn fat_tree_k(v: &Value) -> Result<usize, String> {
    let k = uint(v)?;
    if k < 2 || k % 2 == 1 {
        return Err(format!("must be even and ≥ 2, got {k}"));
    }
    if k > 1000 {
        return Err(format!("must be ≤ 1000, got {k}"));
    }
    Ok(k as usize)
}

pub(crate) fn usize_in(min: u64) -> impl Fn(&Value) -> Result<usize, String> {
    move |v| int_in(min, MAX_NODES)(v).map(|x| x as usize)
}

fn parse_topology(ctx: &mut Ctx, v: &Value) -> TopoOut {
    use schema::Topology;
    let none = TopoOut {
        spec: None,
        hosts: None,
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
    let nic_buffer = q.nic_buffer.unwrap_or(DEFAULT_NIC_BUFFER);
    let ecn_k = q.ecn_k;
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
                    switch_queue: QueueConfig { limit: b, ecn_k },
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
                        },
                        uplink_queue: QueueConfig {
                            limit: up_b,
                            ecn_k: up_k,
                        },
                        agg_queue: QueueConfig {
                            limit: agg_b,
                            ecn_k: agg_k,
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
                    switch_queue: QueueConfig { limit: b, ecn_k },
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
                        switch_queue: QueueConfig { limit: b, ecn_k },
                        nic_buffer,
                    }))
                }
                _ => None,
            }
        }
        Topology::Custom(a) => {
            let (p, all_ok, nodes_ok) = parse_custom(ctx, &t, &a, buf, ecn_k, nic_buffer);
            track(all_ok.then_some(()));
            if !nodes_ok {
                // Host numbering is unknown: check names only, skip host ranges.
                if let Some(p) = &p {
                    if let Err(errs) = topology::custom_checked(p, true) {
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
                    "too large: {} nodes (at most {MAX_NODES})",
                    h.saturating_add(s)
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
        };
    }
    if kind == "custom" {
        // Structural checks run even when some link values were invalid
        // (placeholders stand in); the spec is kept only if all is well.
        return match params.build() {
            Ok(spec) => TopoOut {
                spec: (ok && !missing).then_some(spec),
                hosts: Some(hosts),
            },
            Err(errs) => {
                ctx.errs.extend(errs.into_iter().map(ScenarioError::from));
                TopoOut {
                    spec: None,
                    hosts: Some(hosts),
                }
            }
        };
    }
    if !ok || missing {
        return TopoOut {
            spec: None,
            hosts: Some(hosts),
        };
    }
    match params.build() {
        Ok(spec) => TopoOut {
            spec: Some(spec),
            hosts: Some(hosts),
        },
        Err(errs) => {
            ctx.errs.extend(errs.into_iter().map(ScenarioError::from));
            TopoOut {
                spec: None,
                hosts: Some(hosts),
            }
        }
    }
}

/// `nodes`/`links` of a custom topology (`schema::NodeSection`,
/// `schema::LinkSection`). Invalid link values are replaced by
/// placeholders so that name/connectivity checks still run; the bools say
/// whether everything parsed, and whether every node did.
fn parse_custom(
    ctx: &mut Ctx,
    t: &Tbl,
    a: &schema::CustomTopology,
    buf: Option<Limit>,
    ecn_k: Option<Limit>,
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

// -------------------------------------------------------------------- apps

fn parse_app(
    ctx: &mut Ctx,
    v: &Value,
    path: &str,
    topo: &TopoOut,
    top_tcp: &TcpLayer,
    scenario_stop: SimTime,
) -> Option<AppSpec> {
    let nhosts = topo.hosts;
    let t = Tbl::new(ctx, v, path)?;
    let kinds = schema::APP_KINDS;
    let kind = t.req(ctx, "kind", |v| {
        let s = v
            .as_str()
            .ok_or_else(|| format!("expected a string, got {}", json_excerpt(v)))?;
        kinds.iter().copied().find(|k| *k == s).ok_or_else(|| {
            let hint = suggest(s, kinds.iter().copied())
                .map(|x| format!("did you mean '{x}'? "))
                .unwrap_or_default();
            format!(
                "unknown app kind '{}' ({hint}valid: {})",
                excerpt(s),
                kinds.join(", ")
            )
        })
    })?;
    let what = format!(" for app kind '{kind}'");
    // A required key: reported when absent (a bad value is reported already).
    let require = |ctx: &mut Ctx, key: &str| {
        if !t.has(key) {
            ctx.err(t.p(key), "missing required key");
        }
    };
    // The range of a host read without the topology: checked now.
    let in_range = |ctx: &mut Ctx, key: &str, h: Option<usize>| -> Option<usize> {
        match check_host(h? as u64, nhosts) {
            Ok(h) => Some(h),
            Err(m) => {
                ctx.err(t.p(key), m);
                None
            }
        }
    };
    // Per-app TCP: layered over the top-level table, then over defaults.
    let tcp = |ctx: &mut Ctx, own: &Option<Value>| -> TcpConfig {
        let layer = match own {
            Some(tv) => {
                let tcp_path = t.p("tcp");
                let own = TcpLayer::parse(ctx, tv, &tcp_path);
                let merged = own.over(top_tcp);
                for (key, msg, involved) in tcp_cross_checks(&merged.section.resolve()) {
                    if own.sets_any(involved) {
                        ctx.err(key_path(&tcp_path, key), msg);
                    }
                }
                merged
            }
            None => top_tcp.clone(),
        };
        layer.section.resolve()
    };
    // src/dst of a point-to-point app: both valid, and not the same host.
    let pair = |ctx: &mut Ctx, src: Option<usize>, dst: Option<usize>| {
        require(ctx, "src");
        require(ctx, "dst");
        let src = in_range(ctx, "src", src);
        let dst = in_range(ctx, "dst", dst);
        if let (Some(s), Some(d)) = (src, dst) {
            if s == d {
                ctx.err(t.p("dst"), format!("same host as src ({s})"));
            }
        }
        (src, dst)
    };

    match kind {
        "bulk" => {
            let a = schema::read_table::<schema::BulkApp>(v, path, &what, &mut ctx.errs)?.value;
            let tcp = tcp(ctx, &a.tcp);
            let (src, dst) = pair(ctx, *a.src, *a.dst);
            let amount = match (t.has("size"), t.has("duration")) {
                (true, true) => {
                    ctx.err(path, "needs exactly one of 'size' or 'duration', got both");
                    None
                }
                (false, false) => {
                    ctx.err(
                        path,
                        "needs exactly one of 'size' or 'duration', got neither",
                    );
                    None
                }
                (true, false) => a.size.map(BulkAmount::Bytes),
                (false, true) => a.duration.map(BulkAmount::Duration),
            };
            Some(AppSpec::Bulk {
                src: src?,
                dst: dst?,
                amount: amount?,
                start: a.start.unwrap_or(SimTime::ZERO),
                tcp,
            })
        }
        "partition_aggregate" => {
            let a =
                schema::read_table::<schema::PartitionAggregateApp>(v, path, &what, &mut ctx.errs)?
                    .value;
            let tcp = tcp(ctx, &a.tcp);
            require(ctx, "aggregator");
            let agg = in_range(ctx, "aggregator", *a.aggregator);
            let workers = fan_in(ctx, &t, ("aggregator", "workers"), agg, &a.workers, nhosts);
            Some(AppSpec::PartitionAggregate {
                aggregator: agg?,
                workers: workers?,
                response_bytes: a.response.unwrap_or(10 << 10),
                request_bytes: a.request.unwrap_or(64),
                queries: a.queries.unwrap_or(100),
                gap: a.gap.unwrap_or(SimTime::ZERO),
                start: a.start.unwrap_or(SimTime::ZERO),
                tcp,
            })
        }
        "sync_reads" => {
            let a =
                schema::read_table::<schema::SyncReadsApp>(v, path, &what, &mut ctx.errs)?.value;
            let tcp = tcp(ctx, &a.tcp);
            require(ctx, "client");
            let client = in_range(ctx, "client", *a.client);
            let servers = fan_in(ctx, &t, ("client", "servers"), client, &a.servers, nhosts);
            Some(AppSpec::SyncReads {
                client: client?,
                servers: servers?,
                sru_bytes: a.sru.unwrap_or(256 << 10),
                request_bytes: a.request.unwrap_or(64),
                blocks: a.blocks.unwrap_or(100),
                jitter: a.jitter.unwrap_or(SimTime::ZERO),
                start: a.start.unwrap_or(SimTime::ZERO),
                tcp,
            })
        }
        "poisson" => {
            let a = schema::read_table::<schema::PoissonApp>(v, path, &what, &mut ctx.errs)?.value;
            let tcp = tcp(ctx, &a.tcp);
            parse_poisson(ctx, &t, &a, path, topo, tcp, scenario_stop)
                .map(|p| AppSpec::Poisson(Box::new(p)))
        }
        _ => {
            // udp_cbr
            let a = schema::read_table::<schema::UdpCbrApp>(v, path, &what, &mut ctx.errs)?.value;
            let start = a.start.unwrap_or(SimTime::ZERO);
            let (src, dst) = pair(ctx, *a.src, *a.dst);
            require(ctx, "rate");
            let stop = a.stop.unwrap_or(scenario_stop);
            if stop <= start && (t.has("stop") || t.has("start")) {
                ctx.err(
                    t.p(if t.has("stop") { "stop" } else { "start" }),
                    format!("stop ({stop}) must be after start ({start})"),
                );
            }
            Some(AppSpec::UdpCbr {
                src: src?,
                dst: dst?,
                rate_bps: (*a.rate)?,
                payload_bytes: a.payload.unwrap_or(1460),
                start,
                stop,
            })
        }
    }
}

/// A Poisson app's CDF: `cdf` (a built-in name or inline `[size, p]`
/// points) or `cdf_file` (a path, read here), with its `sampling` rule.
fn parse_cdf(ctx: &mut Ctx, t: &Tbl, path: &str) -> Option<(FlowSizeCdf, String)> {
    let sampling = t
        .opt(ctx, "sampling", named(SAMPLING_NAMES, "CDF sampling"))
        .unwrap_or(Sampling::Linear);
    let builtin_names: Vec<&str> = crate::cdf::BUILTIN.iter().map(|(n, _)| *n).collect();
    // Report CDF problems at the point (`cdf[3]`) or at the key.
    let report = |ctx: &mut Ctx,
                  errs: Vec<crate::cdf::CdfError>,
                  key: &str,
                  lines: Option<&[usize]>| {
        for e in errs {
            match (e.point, lines) {
                (Some(i), None) => ctx.err(idx_path(&t.p(key), i), e.message),
                (Some(i), Some(l)) => ctx.err(t.p(key), format!("line {}: {}", l[i], e.message)),
                (None, _) => ctx.err(t.p(key), e.message),
            }
        }
    };
    match (t.get("cdf"), t.get("cdf_file")) {
        (Some(_), Some(_)) => {
            ctx.err(path, "needs exactly one of 'cdf' or 'cdf_file', got both");
            None
        }
        (None, None) => {
            ctx.err(
                t.p("cdf"),
                format!(
                    "missing required key (a built-in workload: {}; a list of [size, probability] points; or 'cdf_file')",
                    builtin_names.join(", ")
                ),
            );
            None
        }
        (Some(Value::String(name)), None) => {
            let lower = name.to_lowercase().replace(['_', '-', ' '], "");
            match FlowSizeCdf::builtin(&lower, sampling) {
                Some(c) => Some((c, lower)),
                None => {
                    let hint = suggest(name, builtin_names.iter().copied())
                        .map(|x| format!("did you mean '{x}'? "))
                        .unwrap_or_default();
                    ctx.err(
                        t.p("cdf"),
                        format!(
                            "unknown built-in CDF '{}' ({hint}valid: {}; a file goes in 'cdf_file')",
                            excerpt(name),
                            builtin_names.join(", ")
                        ),
                    );
                    None
                }
            }
        }
        (Some(Value::Array(items)), None) => {
            let cpath = t.p("cdf");
            let mut pts = Vec::with_capacity(items.len());
            let mut ok = true;
            for (i, it) in items.iter().enumerate() {
                let ip = idx_path(&cpath, i);
                let pair = match it {
                    Value::Array(xy) if xy.len() == 2 => {
                        let x = match &xy[0] {
                            Value::Number(n) => n.as_f64().ok_or_else(|| "bad number".to_string()),
                            other => units::size_from_json(other).map(|b| b as f64),
                        };
                        let p = xy[1].as_f64().ok_or_else(|| {
                            format!("expected a probability, got {}", json_excerpt(&xy[1]))
                        });
                        match (x, p) {
                            (Ok(x), Ok(p)) => Some((x, p)),
                            (Err(m), _) => {
                                ctx.err(idx_path(&ip, 0), m);
                                None
                            }
                            (_, Err(m)) => {
                                ctx.err(idx_path(&ip, 1), m);
                                None
                            }
                        }
                    }
                    other => {
                        ctx.err(
                            ip,
                            format!(
                                "expected a [size, probability] pair, got {}",
                                json_excerpt(other)
                            ),
                        );
                        None
                    }
                };
                match pair {
                    Some(xy) => pts.push(xy),
                    None => ok = false,
                }
            }
            if !ok {
                return None;
            }
            match FlowSizeCdf::new(&pts, sampling) {
                Ok(c) => Some((c, "inline".into())),
                Err(errs) => {
                    report(ctx, errs, "cdf", None);
                    None
                }
            }
        }
        (Some(other), None) => {
            ctx.err(
                t.p("cdf"),
                format!(
                    "expected a built-in workload name ({}) or a list of [size, probability] points, got {}",
                    builtin_names.join(", "),
                    json_excerpt(other)
                ),
            );
            None
        }
        (None, Some(_)) => {
            let file = t.opt(ctx, "cdf_file", string)?;
            let text = match std::fs::read_to_string(&file) {
                Ok(s) => s,
                Err(e) => {
                    ctx.err(
                        t.p("cdf_file"),
                        format!("cannot read '{}': {e}", excerpt(&file)),
                    );
                    return None;
                }
            };
            let (pts, lines) = match FlowSizeCdf::parse_text_lines(&text) {
                Ok(x) => x,
                Err(m) => {
                    ctx.err(t.p("cdf_file"), format!("'{}': {m}", excerpt(&file)));
                    return None;
                }
            };
            match FlowSizeCdf::new(&pts, sampling) {
                Ok(c) => Some((c, file)),
                Err(errs) => {
                    report(ctx, errs, "cdf_file", Some(&lines));
                    None
                }
            }
        }
    }
}

/// A CDF given as a table with the Poisson app's keys (`cdf` or
/// `cdf_file`, and `sampling`): what the Python front uses to show a
/// workload's points and mean. Returns the CDF and its name.
pub fn parse_cdf_table(v: &Value) -> Result<(FlowSizeCdf, String), Vec<ScenarioError>> {
    let mut ctx = Ctx { errs: Vec::new() };
    let Some(t) = Tbl::new(&mut ctx, v, "") else {
        return Err(ctx.errs);
    };
    t.check_keys(&mut ctx, &["cdf", "cdf_file", "sampling"], "");
    let out = parse_cdf(&mut ctx, &t, DOCUMENT);
    match out {
        Some(c) if ctx.errs.is_empty() => Ok(c),
        _ => Err(ctx.errs),
    }
}

/// `kind = "poisson"`: open-loop flow arrivals at a target load.
fn parse_poisson(
    ctx: &mut Ctx,
    t: &Tbl,
    a: &schema::PoissonApp,
    path: &str,
    topo: &TopoOut,
    tcp: TcpConfig,
    scenario_stop: SimTime,
) -> Option<PoissonSpec> {
    let start = a.start.unwrap_or(SimTime::ZERO);
    if !t.has("load") {
        ctx.err(t.p("load"), "missing required key");
    }
    let load = *a.load;
    let cdf = parse_cdf(ctx, t, path);
    let all = topo.hosts.map(|n| (0..n).collect::<Vec<_>>());
    let list = |ctx: &mut Ctx, key: &str, given: &Option<Value>| -> Option<Vec<usize>> {
        match given {
            None => all.clone(),
            Some(v) => host_list(ctx, v, &t.p(key), topo.hosts)
                .map(|l| l.into_iter().map(|(h, _)| h).collect()),
        }
    };
    let sources = list(ctx, "sources", &a.sources);
    let destinations = list(ctx, "destinations", &a.destinations);
    if let (Some(s), Some(d)) = (&sources, &destinations) {
        if d.len() == 1 && s.contains(&d[0]) {
            ctx.err(
                t.p("sources"),
                format!(
                    "host {} is a source and the only destination: it has nowhere to send",
                    d[0]
                ),
            );
        }
    }
    let duration = match t.get("duration") {
        Some(_) => *a.duration, // None: already reported
        None => {
            if scenario_stop <= start {
                ctx.err(
                    t.p("start"),
                    format!("start ({start}) is not before the scenario's stop ({scenario_stop})"),
                );
                None
            } else {
                Some(scenario_stop.saturating_sub(start))
            }
        }
    };
    let max_flows = *a.flows;
    // Edge capacity of each source: the rate of its access link(s).
    let spec = topo.spec.as_ref()?;
    let host_nodes = spec.hosts();
    let sources = sources?;
    let mut capacity_bps: u64 = 0;
    for &h in &sources {
        let node = *host_nodes.get(h)?;
        let rate: u64 = spec
            .links
            .iter()
            .filter(|l| l.a == node || l.b == node)
            .map(|l| l.rate_bps)
            .sum();
        capacity_bps = capacity_bps.saturating_add(rate);
    }
    let (cdf, cdf_name) = cdf?;
    Some(PoissonSpec {
        sources,
        destinations: destinations?,
        load: load?,
        cdf,
        cdf_name,
        capacity_bps,
        start,
        duration: duration?,
        max_flows,
        tcp,
    })
}

// -------------------------------------------------------------- top level

/// `[trace]` (`schema::TraceSection`): `interval` required, `queues`
/// checked against the topology's queues.
fn parse_trace(ctx: &mut Ctx, v: &Value, topo: &TopoOut) -> Option<TraceConfig> {
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

/// Parse and validate a scenario document (a JSON value). Returns every
/// problem found, each with its field path.
pub fn parse_config(doc: &Value) -> Result<Config, Vec<ScenarioError>> {
    let mut ctx = Ctx { errs: Vec::new() };
    // The document's own keys (`schema::Document`); each section is then
    // read on its own, so that all its problems are reported.
    let Some(read) = schema::read_table::<schema::Document>(doc, "", "", &mut ctx.errs) else {
        return Err(ctx.errs);
    };
    let d = read.value;
    let name = d.name.0.clone().unwrap_or_else(|| "scenario".into());
    let seed = d.seed.unwrap_or(1);
    let stop = d.stop.unwrap_or(SimTime::from_secs(10));
    let l2_overhead = d.l2_overhead.unwrap_or(0);
    let switch_delay = d.switch_delay.unwrap_or(SimTime::ZERO);
    let host_jitter = d.host_jitter.unwrap_or(SimTime::ZERO);

    let topo = match &*d.topology {
        Some(v) => parse_topology(&mut ctx, v),
        None => {
            ctx.err("topology", "missing required key");
            TopoOut {
                spec: None,
                hosts: None,
            }
        }
    };

    let routing = match &*d.routing {
        None => Some(RoutingMode::Ecmp),
        Some(v) => parse_routing(&mut ctx, v),
    };

    // [pcap] hosts = [...]: capture points on these hosts' interfaces.
    let pcap_hosts = match &*d.pcap {
        None => Some(Vec::new()),
        Some(v) => schema::read_table::<schema::PcapSection>(v, "pcap", "", &mut ctx.errs)
            .and_then(|r| match &*r.value.hosts {
                None => {
                    ctx.err("pcap.hosts", "missing required key");
                    None
                }
                Some(h) => host_list(&mut ctx, h, "pcap.hosts", topo.hosts)
                    .map(|l| l.into_iter().map(|(h, _)| h).collect()),
            }),
    };

    let trace = match &*d.trace {
        None => Some(None),
        Some(v) => parse_trace(&mut ctx, v, &topo).map(Some),
    };

    // limits = { memory = "16GB", events = 1e12 }: the guard of limits.rs.
    let limits = match &*d.limits {
        None => Some(crate::stats::limits::Limits::default()),
        Some(v) => {
            schema::read_table::<schema::LimitsSection>(v, "limits", "", &mut ctx.errs).map(|r| {
                let d = crate::stats::limits::Limits::default();
                crate::stats::limits::Limits {
                    memory: r.value.memory.unwrap_or(d.memory),
                    events: r.value.events.unwrap_or(d.events),
                }
            })
        }
    };

    let top_tcp = match &*d.tcp {
        Some(v) => {
            let p = TcpLayer::parse(&mut ctx, v, "tcp");
            for (key, msg, _) in tcp_cross_checks(&p.section.resolve()) {
                ctx.err(key_path("tcp", key), msg);
            }
            p
        }
        None => TcpLayer::default(),
    };

    let mut apps = Vec::new();
    match &*d.apps {
        None if doc.get("apps").is_some() => {} // already reported
        None => ctx.err("apps", "missing required key"),
        Some(Value::Array(items)) => {
            if items.is_empty() {
                ctx.err("apps", "needs at least one app");
            }
            for (i, it) in items.iter().enumerate() {
                let p = idx_path("apps", i);
                if let Some(a) = parse_app(&mut ctx, it, &p, &topo, &top_tcp, stop) {
                    apps.push(a);
                }
            }
        }
        Some(other) => ctx.err(
            "apps",
            format!(
                "expected an array of tables, got {}",
                units::json_type(other)
            ),
        ),
    }

    if !ctx.errs.is_empty() {
        return Err(ctx.errs);
    }
    match (topo.spec, routing, pcap_hosts, trace, limits) {
        (Some(topology), Some(routing), Some(pcap_hosts), Some(trace), Some(limits)) => {
            let cfg = Config {
                trace,
                name,
                topology,
                routing,
                pcap_hosts,
                l2_overhead,
                switch_delay,
                host_jitter,
                stop,
                seed,
                apps,
                limits,
            };
            // Too big for the machine: say so before the world (routes,
            // flows, packets) is built; the topology was sized above.
            let too_big = crate::stats::limits::check(&cfg, &limits);
            if too_big.is_empty() {
                Ok(cfg)
            } else {
                Err(too_big
                    .into_iter()
                    .map(|(path, message)| ScenarioError { path, message })
                    .collect())
            }
        }
        // Unreachable in practice: a missing piece always records an error.
        _ => Err(vec![ScenarioError {
            path: DOCUMENT.into(),
            message: "invalid scenario".into(),
        }]),
    }
}

/// A JSON value read like `serde_json::Value`, except that an object
/// naming a key twice is an error: `Value` keeps the last one silently, and
/// a scenario whose `seed` or `stop` is quietly overridden is a wrong result.
struct StrictJson(Value);

impl<'de> serde::Deserialize<'de> for StrictJson {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(StrictJson)
    }
}

struct StrictVisitor;

impl<'de> serde::de::Visitor<'de> for StrictVisitor {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_f64<E>(self, x: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_owned()))
    }
    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        <StrictJson as serde::Deserialize>::deserialize(d).map(|s| s.0)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Value, A::Error> {
        let mut v = Vec::new();
        while let Some(StrictJson(x)) = a.next_element()? {
            v.push(x);
        }
        Ok(Value::Array(v))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<Value, A::Error> {
        let mut m = Map::new();
        while let Some(k) = a.next_key::<String>()? {
            if m.contains_key(&k) {
                return Err(serde::de::Error::custom(format!(
                    "duplicate key {k:?} (an object may name a key once)"
                )));
            }
            let StrictJson(v) = a.next_value()?;
            m.insert(k, v);
        }
        Ok(Value::Object(m))
    }
}

/// Parse JSON text; a syntax error is one error at path `<document>`.
pub fn parse_config_str(json: &str) -> Result<Config, Vec<ScenarioError>> {
    match serde_json::from_str::<StrictJson>(json) {
        Ok(StrictJson(v)) => parse_config(&v),
        Err(e) => Err(vec![ScenarioError {
            path: DOCUMENT.into(),
            message: format!("invalid JSON: {e}"),
        }]),
    }
}

/// What is valid but probably not what was meant, as `(path, reason)`
/// pairs the front ends print as warnings; the run is the same either way.
///
/// An ECN-based congestion control (DCTCP, FaST) on a network where no
/// queue marks: its window then only reacts to drops, i.e. it runs as
/// loss-based TCP, and a comparison under its name is a comparison of
/// NewReno-like behaviour.
pub fn warnings(cfg: &Config) -> Vec<ScenarioError> {
    let marks = cfg
        .topology
        .links
        .iter()
        .any(|l| l.queue_ab.ecn_k.is_some() || l.queue_ba.ecn_k.is_some());
    if marks {
        return Vec::new();
    }
    // cc name -> the apps using it, in order.
    let mut by_cc: Vec<(&str, Vec<usize>)> = Vec::new();
    for (i, a) in cfg.apps.iter().enumerate() {
        let tcp = match a {
            AppSpec::Bulk { tcp, .. }
            | AppSpec::PartitionAggregate { tcp, .. }
            | AppSpec::SyncReads { tcp, .. } => tcp,
            AppSpec::Poisson(p) => &p.tcp,
            AppSpec::UdpCbr { .. } => continue,
        };
        if !tcp.cc.needs_ecn() {
            continue;
        }
        let name = tcp.cc.name();
        match by_cc.iter_mut().find(|(n, _)| *n == name) {
            Some((_, apps)) => apps.push(i),
            None => by_cc.push((name, vec![i])),
        }
    }
    by_cc
        .into_iter()
        .map(|(name, apps)| {
            let which = apps.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", ");
            ScenarioError {
                path: "tcp.cc".into(),
                message: format!(
                    "{name} (app{} {which}) needs ECN-marking queues, but no queue has an `ecn_k`: \
                     it reacts to drops only, like loss-based TCP; set topology.ecn_k (e.g. \"20pkt\")",
                    if apps.len() > 1 { "s" } else { "" }
                ),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn example() -> Value {
        // The example of docs/scenario.md, as JSON.
        json!({
            "name": "kulkarni-incast-16",
            "stop": "20s",
            "topology": {"kind": "star", "hosts": 17, "rate": "1Gbps", "delay": "50us", "buffer": "32KB"},
            "tcp": {"mss": 1024, "rto_min": "200ms", "rwnd": "1000pkt"},
            "apps": [{"kind": "sync_reads", "client": 0, "servers": "1-16", "sru": "256KB",
                      "blocks": 50, "jitter": "20us"}]
        })
    }

    #[test]
    fn doc_example_parses() {
        let c = parse_config(&example()).unwrap();
        assert_eq!(c.name, "kulkarni-incast-16");
        assert_eq!(c.stop, SimTime::from_secs(20));
        assert_eq!(c.seed, 1);
        assert_eq!(c.routing, RoutingMode::Ecmp);
        assert_eq!(c.l2_overhead, 0);
        assert_eq!(c.switch_delay, SimTime::ZERO);
        assert_eq!(c.topology.nodes.len(), 18);
        assert_eq!(c.topology.links[0].queue_ba.limit, Limit::Bytes(32768));
        assert_eq!(c.topology.links[0].queue_ab.limit, DEFAULT_NIC_BUFFER);
        let AppSpec::SyncReads {
            client,
            servers,
            sru_bytes,
            request_bytes,
            blocks,
            jitter,
            start,
            tcp,
        } = &c.apps[0]
        else {
            panic!()
        };
        assert_eq!(*client, 0);
        assert_eq!(servers, &(1..=16).collect::<Vec<_>>());
        assert_eq!(*sru_bytes, 262_144);
        assert_eq!(*request_bytes, 64);
        assert_eq!(*blocks, 50);
        assert_eq!(*jitter, SimTime::from_us(20));
        assert_eq!(*start, SimTime::ZERO);
        assert_eq!(tcp.mss, 1024);
        assert_eq!(tcp.rwnd_bytes, 1000 * 1024);
        let want = TcpConfig {
            mss: 1024,
            rwnd_bytes: 1_024_000,
            ..TcpConfig::default()
        };
        assert_eq!(tcp, &want);
    }

    #[test]
    fn defaults() {
        let c = parse_config(&json!({
            "topology": {"kind": "star", "hosts": 2, "rate": "1Gbps", "delay": "1us", "buffer": "100pkt"},
            "apps": [
                {"kind": "partition_aggregate", "aggregator": 0, "workers": [1]},
                {"kind": "udp_cbr", "src": 1, "dst": 0, "rate": "10Mbps"},
                {"kind": "bulk", "src": 0, "dst": 1, "duration": "1s", "start": "5ms"}
            ]
        }))
        .unwrap();
        assert_eq!(c.name, "scenario");
        assert_eq!(c.seed, 1);
        assert_eq!(c.stop, SimTime::from_secs(10));
        assert_eq!(
            c.apps[0],
            AppSpec::PartitionAggregate {
                aggregator: 0,
                workers: vec![1],
                response_bytes: 10240,
                request_bytes: 64,
                queries: 100,
                gap: SimTime::ZERO,
                start: SimTime::ZERO,
                tcp: TcpConfig::default(),
            }
        );
        assert_eq!(
            c.apps[1],
            AppSpec::UdpCbr {
                src: 1,
                dst: 0,
                rate_bps: 10_000_000,
                payload_bytes: 1460,
                start: SimTime::ZERO,
                stop: SimTime::from_secs(10),
            }
        );
        assert_eq!(
            c.apps[2],
            AppSpec::Bulk {
                src: 0,
                dst: 1,
                amount: BulkAmount::Duration(SimTime::from_secs(1)),
                start: SimTime::from_ms(5),
                tcp: TcpConfig::default(),
            }
        );
    }

    #[test]
    fn tcp_layers_merge_app_over_top_over_defaults() {
        let mut doc = example();
        doc["tcp"] = json!({"mss": 1000, "rwnd": "10pkt", "sack": true, "cc": "NewReno"});
        doc["apps"] = json!([
            {"kind": "bulk", "src": 0, "dst": 1, "size": "1MB", "tcp": {"mss": 500, "ecn": true}},
            {"kind": "bulk", "src": 0, "dst": 2, "size": "1MB"}
        ]);
        let c = parse_config(&doc).unwrap();
        let tcp = |i: usize| match &c.apps[i] {
            AppSpec::Bulk { tcp, .. } => tcp.clone(),
            _ => unreachable!(),
        };
        let a = tcp(0);
        assert_eq!(
            (a.mss, a.rwnd_bytes, a.sack, a.ecn),
            (500, 5000, true, true)
        );
        let b = tcp(1);
        assert_eq!(
            (b.mss, b.rwnd_bytes, b.sack, b.ecn),
            (1000, 10_000, true, false)
        );
        assert_eq!(b.rto_min, SimTime::from_ms(200));
    }

    /// `profile = "linux"` sets every key it names (TcpConfig::linux); an
    /// explicit key wins over it, at the top level and in an app's
    /// override; G follows an overridden rto_min; without SACK, RACK falls
    /// back to duplicate ACKs.
    #[test]
    fn linux_profile_sets_each_key_and_explicit_keys_win() {
        let tcp_of = |top: Value, own: Option<Value>| {
            let mut doc = example();
            doc["tcp"] = top;
            let mut app = json!({"kind": "bulk", "src": 0, "dst": 1, "size": "1MB"});
            if let Some(o) = own {
                app["tcp"] = o;
            }
            doc["apps"] = json!([app]);
            match &parse_config(&doc).unwrap().apps[0] {
                AppSpec::Bulk { tcp, .. } => tcp.clone(),
                _ => unreachable!(),
            }
        };
        let l = tcp_of(json!({"profile": "linux"}), None);
        assert_eq!(l, TcpConfig::linux());
        assert_eq!(l.cc, CcKind::Cubic);
        assert_eq!(
            (l.mss, l.header_bytes, l.init_cwnd_segments),
            (1448, 52, 10)
        );
        assert_eq!(
            (l.rto_min, l.rto_init, l.rto_max, l.granularity),
            (
                SimTime::from_ms(200),
                SimTime::from_secs(1),
                SimTime::from_secs(120),
                SimTime::from_ms(200)
            )
        );
        assert_eq!(l.max_backoff, 1024);
        assert!(l.sack && l.limited_transmit && l.timestamps && l.delayed_ack);
        assert!(!l.ecn && !l.sack_rescue);
        assert_eq!(l.recovery, LossRecovery::Rack);
        assert_eq!(l.reordering, Reordering::Adaptive);
        assert_eq!(
            (
                l.delayed_ack_timeout,
                l.delayed_ack_segments,
                l.delayed_ack_quickack
            ),
            (SimTime::from_ms(40), 2, 16)
        );
        assert_eq!(l.dupack_threshold, 3);
        // "papers" and no profile are the same defaults
        assert_eq!(
            tcp_of(json!({"profile": "papers"}), None),
            TcpConfig::default()
        );
        assert_eq!(tcp_of(json!({}), None), TcpConfig::default());

        // explicit keys win, each on its own
        let over = json!({"profile": "linux", "cc": "newreno", "init_cwnd": 2, "mss": 1024,
                          "delayed_ack": false, "limited_transmit": false, "reordering": "fixed",
                          "delayed_ack_quickack": 0, "rto_min": "10ms", "timestamps": false});
        let o = tcp_of(over, None);
        assert_eq!(
            (o.cc, o.init_cwnd_segments, o.mss),
            (CcKind::NewReno, 2, 1024)
        );
        assert!(!o.delayed_ack && !o.limited_transmit && !o.timestamps);
        assert_eq!(
            (o.reordering, o.delayed_ack_quickack),
            (Reordering::Fixed, 0)
        );
        assert_eq!(
            (o.rto_min, o.granularity),
            (SimTime::from_ms(10), SimTime::from_ms(10))
        );
        assert_eq!(o.header_bytes, 52, "unset keys keep the profile's");
        let g = tcp_of(json!({"profile": "linux", "granularity": "1ms"}), None);
        assert_eq!(
            (g.rto_min, g.granularity),
            (SimTime::from_ms(200), SimTime::from_ms(1))
        );
        let ns = tcp_of(json!({"profile": "linux", "sack": false}), None);
        assert_eq!((ns.sack, ns.recovery), (false, LossRecovery::DupAck));

        // an app's override: its profile under its own and the top-level keys
        let a = tcp_of(json!({"mss": 1000}), Some(json!({"profile": "linux"})));
        assert_eq!((a.cc, a.mss, a.sack), (CcKind::Cubic, 1000, true));
        let b = tcp_of(json!({"profile": "linux"}), Some(json!({"cc": "dctcp"})));
        assert_eq!(
            (b.cc, b.ecn, b.sack, b.init_cwnd_segments),
            (CcKind::Dctcp, true, true, 10)
        );

        let mut doc = example();
        doc["tcp"] = json!({"profile": "bsd"});
        let errs = parse_config(&doc).unwrap_err();
        assert!(
            errs.iter()
                .any(|e| e.path == "tcp.profile" && e.message.contains("linux")),
            "{errs:?}"
        );
    }

    #[test]
    fn routing_seed_and_switch_delay() {
        let mut doc = example();
        doc["routing"] = json!({"mode": "rps"});
        doc["seed"] = json!(42);
        doc["switch_delay"] = json!("1us");
        doc["l2_overhead"] = json!(38);
        let c = parse_config(&doc).unwrap();
        assert_eq!(c.routing, RoutingMode::Rps);
        assert_eq!(c.seed, 42);
        assert_eq!(c.switch_delay, SimTime::from_us(1));
        assert_eq!(c.l2_overhead, 38);
        doc["routing"] = json!({});
        assert_eq!(parse_config(&doc).unwrap().routing, RoutingMode::Ecmp);
    }

    #[test]
    fn routing_salt_and_flowlet_keys() {
        let mut doc = example();
        let with = |doc: &mut Value, r: Value| {
            doc["routing"] = r;
            parse_config(doc)
        };
        assert_eq!(
            with(&mut doc, json!({"mode": "ecmp", "salt": false}))
                .unwrap()
                .routing,
            RoutingMode::EcmpUnsalted
        );
        assert_eq!(
            with(&mut doc, json!({"salt": true})).unwrap().routing,
            RoutingMode::Ecmp
        );
        assert_eq!(
            with(&mut doc, json!({"mode": "flowlet"})).unwrap().routing,
            RoutingMode::Flowlet {
                gap: DEFAULT_FLOWLET_GAP
            }
        );
        assert_eq!(
            with(&mut doc, json!({"mode": "Flowlet", "flowlet_gap": "100us"}))
                .unwrap()
                .routing,
            RoutingMode::Flowlet {
                gap: SimTime::from_us(100)
            }
        );
        let err = |doc: &mut Value, r: Value| {
            with(doc, r)
                .unwrap_err()
                .iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        };
        let e = err(&mut doc, json!({"mode": "rps", "salt": false}));
        assert!(
            e.contains("routing.salt: only used with mode = \"ecmp\""),
            "{e}"
        );
        let e = err(&mut doc, json!({"mode": "ecmp", "flowlet_gap": "1ms"}));
        assert!(
            e.contains("routing.flowlet_gap: only used with mode"),
            "{e}"
        );
        let e = err(&mut doc, json!({"mode": "flowlet", "flowlet_gap": "0s"}));
        assert!(e.contains("routing.flowlet_gap"), "{e}");
        let e = err(&mut doc, json!({"mode": "ecmp", "salt": "no"}));
        assert!(e.contains("routing.salt"), "{e}");
        let e = err(&mut doc, json!({"mode": "flowlets"}));
        assert!(e.contains("routing.mode"), "{e}");
    }

    #[test]
    fn two_tier_buffer_fallbacks() {
        let mut doc = example();
        doc["topology"] = json!({"kind": "two_tier", "racks": 5, "hosts_per_rack": 20,
            "host_rate": "1Gbps", "core_rate": "10Gbps", "delay": "25us",
            "buffer": "100KB", "agg_buffer": "10MB", "ecn_k": "20pkt", "agg_ecn_k": "100pkt"});
        let c = parse_config(&doc).unwrap();
        let t = &c.topology;
        assert_eq!(t.hosts().len(), 100);
        let up = t.links.iter().find(|l| t.nodes[l.b].name == "agg").unwrap();
        assert_eq!(
            up.queue_ab,
            QueueConfig {
                limit: Limit::Bytes(102_400),
                ecn_k: Some(Limit::Packets(20))
            }
        );
        assert_eq!(
            up.queue_ba,
            QueueConfig {
                limit: Limit::Bytes(10 << 20),
                ecn_k: Some(Limit::Packets(100))
            }
        );
    }

    #[test]
    fn custom_topology_with_overrides() {
        let mut doc = example();
        doc["topology"] = json!({"kind": "custom", "buffer": "100KB", "nic_buffer": "1MB", "nodes": [
            {"name": "a", "kind": "host"}, {"name": "s", "kind": "switch"}, {"name": "b", "kind": "host"}],
            "links": [
                {"a": "a", "b": "s", "rate": "1Gbps", "delay": "25us"},
                {"a": "s", "b": "b", "rate": "10Gbps", "delay": "5us", "buffer": "20pkt", "ecn_k": "5pkt"}]});
        doc["apps"] = json!([{"kind": "bulk", "src": 0, "dst": 1, "size": 1000}]);
        let c = parse_config(&doc).unwrap();
        let t = &c.topology;
        assert_eq!(t.hosts(), vec![0, 2]);
        assert_eq!(
            t.links[0].queue_ab,
            QueueConfig {
                limit: Limit::Bytes(1 << 20),
                ecn_k: None
            }
        );
        assert_eq!(
            t.links[0].queue_ba,
            QueueConfig {
                limit: Limit::Bytes(102_400),
                ecn_k: None
            }
        );
        assert_eq!(
            t.links[1].queue_ab,
            QueueConfig {
                limit: Limit::Packets(20),
                ecn_k: Some(Limit::Packets(5))
            }
        );
        assert_eq!(t.links[1].rate_bps, 10_000_000_000);
    }

    #[test]
    fn suggestions() {
        let keys = schema::struct_fields::<TcpSection>().iter().copied();
        assert_eq!(suggest("rto_mn", keys.clone()), Some("rto_min"));
        assert_eq!(suggest("RTO_MIN", keys.clone()), Some("rto_min"));
        assert_eq!(suggest("delayed_acks", keys.clone()), Some("delayed_ack"));
        assert_eq!(suggest("banana", keys), None);
        assert_eq!(crate::text::edit_distance("kitten", "sitting"), 3);
        assert_eq!(crate::text::edit_distance("stpo", "stop"), 1);
        assert_eq!(suggest("s1", ["h1", "s0"].into_iter()), Some("s0"));
    }

    #[test]
    fn duplicate_json_keys_are_rejected_not_overridden() {
        let mut text = example().to_string();
        text.insert_str(1, r#""seed": 5, "#);
        text = text.replacen(r#""name""#, r#""seed": 6, "name""#, 1);
        let errs = parse_config_str(&text).unwrap_err();
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].path, DOCUMENT);
        assert!(
            errs[0].message.contains(r#"duplicate key "seed""#),
            "{}",
            errs[0]
        );
        // Nested objects too, and the same key in sibling objects is fine.
        let nested = r#"{"topology": {"kind": "star", "kind": "star"}, "apps": []}"#;
        assert!(parse_config_str(nested).unwrap_err()[0]
            .message
            .contains("duplicate key"));
        let siblings = example().to_string();
        parse_config_str(&siblings).unwrap();
    }

    #[test]
    fn parse_config_str_works() {
        let c = parse_config_str(&example().to_string()).unwrap();
        assert_eq!(c.apps.len(), 1);
    }

    // ------------------------------------------------------------ fuzzing

    const VOCAB: &[&str] = &[
        "name",
        "seed",
        "stop",
        "topology",
        "routing",
        "tcp",
        "apps",
        "kind",
        "hosts",
        "rate",
        "delay",
        "buffer",
        "ecn_k",
        "nic_buffer",
        "k",
        "racks",
        "hosts_per_rack",
        "host_rate",
        "core_rate",
        "leaves",
        "spines",
        "hosts_per_leaf",
        "fabric_rate",
        "nodes",
        "links",
        "a",
        "b",
        "mode",
        "mss",
        "rwnd",
        "rto_min",
        "src",
        "dst",
        "size",
        "duration",
        "workers",
        "servers",
        "client",
        "aggregator",
        "star",
        "fat_tree",
        "custom",
        "two_tier",
        "leaf_spine",
        "bulk",
        "sync_reads",
        "udp_cbr",
        "partition_aggregate",
        "host",
        "switch",
        "1-3",
        "0-0",
        "3-1",
        "1Gbps",
        "0Gbps",
        "50us",
        "-1us",
        "32KB",
        "100pkt",
        "0pkt",
        "1e999s",
        "s0",
        "h0",
        "h1",
        "",
        "é",
        "newreno",
        "ecmp",
        "poisson",
        "load",
        "cdf",
        "cdf_file",
        "sampling",
        "websearch",
        "datamining",
    ];

    fn leaf() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (0u64..20).prop_map(|n| json!(n)),
            any::<i64>().prop_map(|n| json!(n)),
            any::<u64>().prop_map(|n| json!(n)),
            any::<f64>()
                .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
            proptest::sample::select(VOCAB).prop_map(|s| json!(s)),
            ".{0,12}".prop_map(Value::String),
        ]
    }

    fn arb_json() -> impl Strategy<Value = Value> {
        leaf().prop_recursive(5, 64, 8, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec(
                    (
                        prop_oneof![
                            proptest::sample::select(VOCAB).prop_map(str::to_string),
                            ".{0,6}"
                        ],
                        inner
                    ),
                    0..8
                )
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    /// Replace the value at a pseudo-random position of `doc` with `new`.
    fn mutate(doc: &mut Value, mut pick: usize, new: Value) {
        let mut cur = doc;
        loop {
            let n = match cur {
                Value::Object(m) => m.len(),
                Value::Array(a) => a.len(),
                _ => 0,
            };
            if n == 0 || pick.is_multiple_of(4) {
                *cur = new;
                return;
            }
            let i = (pick / 4) % n;
            pick /= 4 * n.max(1);
            pick += 1;
            cur = match cur {
                Value::Object(m) => m.values_mut().nth(i).unwrap(),
                Value::Array(a) => &mut a[i],
                _ => unreachable!(),
            };
        }
    }

    fn rich_valid() -> Value {
        json!({
            "name": "x", "seed": 3, "stop": "1s", "l2_overhead": 38, "switch_delay": "1us",
            "routing": {"mode": "single"},
            "topology": {"kind": "custom", "buffer": "100KB", "ecn_k": "10pkt", "nodes": [
                {"name": "h0", "kind": "host"}, {"name": "h1", "kind": "host"},
                {"name": "h2", "kind": "host"}, {"name": "s0", "kind": "switch"}],
                "links": [
                    {"a": "h0", "b": "s0", "rate": "1Gbps", "delay": "1us"},
                    {"a": "h1", "b": "s0", "rate": "1Gbps", "delay": "1us"},
                    {"a": "h2", "b": "s0", "rate": "1Gbps", "delay": "1us", "buffer": "5pkt"}]},
            "tcp": {"mss": 1000, "rwnd": "100pkt", "sack": true},
            "apps": [
                {"kind": "bulk", "src": 0, "dst": 1, "size": "1MB", "tcp": {"ecn": true}},
                {"kind": "partition_aggregate", "aggregator": 0, "workers": "1-2", "gap": "1ms"},
                {"kind": "sync_reads", "client": 2, "servers": [0, 1], "jitter": "1us"},
                {"kind": "udp_cbr", "src": 1, "dst": 2, "rate": "1Mbps", "stop": "2s"},
                {"kind": "poisson", "load": 0.5, "cdf": [[100, 0], ["1KB", 1]], "sampling": "step",
                 "sources": "0-1", "destinations": [2], "flows": 3, "duration": "1s"}
            ]
        })
    }

    #[test]
    fn rich_valid_parses() {
        parse_config(&rich_valid()).unwrap();
    }

    fn check_no_panic(doc: &Value) {
        match parse_config(doc) {
            Ok(c) => assert!(!c.apps.is_empty()),
            Err(errs) => {
                assert!(!errs.is_empty());
                for e in &errs {
                    assert!(!e.path.is_empty());
                    assert!(!e.message.trim().is_empty(), "{}: empty reason", e.path);
                    // The path names a field: the document itself, a known
                    // top-level key, or a key the document has (an unknown
                    // key is reported at its own path).
                    let root = e.path.split(['.', '[']).next().unwrap();
                    let in_doc = doc.as_object().is_some_and(|m| {
                        m.keys().any(|k| {
                            e.path == key_path("", k) || e.path.starts_with(&key_path("", k))
                        })
                    });
                    assert!(
                        e.path == DOCUMENT
                            || schema::struct_fields::<schema::Document>().contains(&root)
                            || in_doc,
                        "problem at {:?} names no field of the document: {}",
                        e.path,
                        e.message
                    );
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        #[test]
        fn random_json_never_panics(doc in arb_json()) {
            check_no_panic(&doc);
        }

        #[test]
        fn mutated_scenarios_never_panic(pick in any::<usize>(), new in arb_json(), base in 0usize..2) {
            let mut doc = if base == 0 { rich_valid() } else { example() };
            mutate(&mut doc, pick, new);
            check_no_panic(&doc);
        }

        #[test]
        fn random_text_never_panics(s in "\\PC{0,64}") {
            let _ = parse_config_str(&s);
        }
    }
}
