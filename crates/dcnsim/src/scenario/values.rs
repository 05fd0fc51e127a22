//! Value kinds: the readers of single values (integers in a range, times,
//! rates, buffers, host indices and host lists) and the tables of names
//! (congestion controls, segment policies, routing modes, …) that the
//! schema in `schema.rs` reads keys with. One floor below every section.

use super::table::{idx_path, Ctx, Tbl};
use super::units::{self, json_excerpt};
use crate::cdf::Sampling;
use crate::config::*;
use crate::net::topology::MAX_NODES;
use crate::sim::time::SimTime;
use crate::text::excerpt;
use serde_json::Value;
use std::collections::BTreeSet;

/// Congestion-control names. Adding a variant is one line here.
pub(crate) const CC_NAMES: &[(&str, CcKind)] = &[
    ("newreno", CcKind::NewReno),
    ("cubic", CcKind::Cubic),
    ("dctcp", CcKind::Dctcp),
    ("fast", CcKind::Fast),
    ("bbr", CcKind::Bbr),
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

pub(crate) const CA_INCREASE_NAMES: &[(&str, CaIncrease)] = &[
    ("bytes", CaIncrease::Bytes),
    ("per_ack", CaIncrease::PerAck),
];

pub(crate) const PROFILE_NAMES: &[(&str, TcpProfile)] =
    &[("papers", TcpProfile::Papers), ("linux", TcpProfile::Linux)];

pub(crate) const RECOVERY_NAMES: &[(&str, LossRecovery)] = &[
    ("dupack", LossRecovery::DupAck),
    ("rack", LossRecovery::Rack),
];

pub(crate) const REDUCTION_NAMES: &[(&str, Reduction)] = &[
    ("rfc6675", Reduction::Rfc6675),
    ("prr", Reduction::Prr),
    ("prr_bis", Reduction::PrrBis),
];

pub(crate) const HYSTART_NAMES: &[(&str, HyStart)] = &[
    ("off", HyStart::Off),
    ("linux", HyStart::Linux),
    ("rfc9406", HyStart::Rfc9406),
];

pub(crate) const CWND_VALIDATION_NAMES: &[(&str, CwndValidation)] = &[
    ("off", CwndValidation::Off),
    ("linux", CwndValidation::Linux),
];

pub(crate) const ACK_COUNTING_NAMES: &[(&str, AckCounting)] = &[
    ("acked", AckCounting::Acked),
    ("delivered", AckCounting::Delivered),
];

pub(crate) const CWND_COUNTING_NAMES: &[(&str, CwndCounting)] = &[
    ("bytes", CwndCounting::Bytes),
    ("packets", CwndCounting::Packets),
];

pub(crate) const PARTIAL_ACK_TIMER_NAMES: &[(&str, PartialAckTimer)] = &[
    ("impatient", PartialAckTimer::Impatient),
    ("slow_but_steady", PartialAckTimer::SlowButSteady),
    ("linux", PartialAckTimer::Linux),
];

pub(crate) const RENO_REDUCTION_NAMES: &[(&str, RenoReduction)] = &[
    ("inflation", RenoReduction::Inflation),
    ("prr", RenoReduction::Prr),
];

pub(crate) const ECN_REDUCTION_NAMES: &[(&str, EcnReduction)] =
    &[("cut", EcnReduction::Cut), ("prr", EcnReduction::Prr)];

pub(crate) const RTO_TIMER_NAMES: &[(&str, RtoTimer)] =
    &[("exact", RtoTimer::Exact), ("linux", RtoTimer::Linux)];

pub(crate) const RENO_EXIT_NAMES: &[(&str, RenoExit)] = &[
    ("flightsize", RenoExit::FlightSize),
    ("ssthresh", RenoExit::Ssthresh),
];

pub(crate) const RTO_SSTHRESH_NAMES: &[(&str, RtoSsthresh)] = &[
    ("hold", RtoSsthresh::Hold),
    ("recompute", RtoSsthresh::Recompute),
];

pub(crate) const RACK_TIMERS_NAMES: &[(&str, RackTimers)] = &[
    ("rfc8985", RackTimers::Rfc8985),
    ("linux", RackTimers::Linux),
];

pub(crate) const IDLE_RESTART_NAMES: &[(&str, IdleRestart)] = &[
    ("off", IdleRestart::Off),
    ("rfc5681", IdleRestart::Rfc5681),
    ("linux", IdleRestart::Linux),
];

pub(crate) const TRANSPORT_NAMES: &[(&str, Transport)] = &[
    ("tcp", Transport::Tcp),
    ("ndp", Transport::Ndp),
    ("swift", Transport::Swift),
    ("hpcc", Transport::Hpcc),
    ("dcqcn", Transport::Dcqcn),
    ("timely", Transport::Timely),
];

pub(crate) const NON_ECT_NAMES: &[(&str, NonEct)] =
    &[("queue", NonEct::Queue), ("drop", NonEct::Drop)];
pub(crate) const TIES_NAMES: &[(&str, Ties)] = &[("fifo", Ties::Fifo), ("seeded", Ties::Seeded)];
pub(crate) const UNTIL_NAMES: &[(&str, Until)] =
    &[("apps_done", Until::AppsDone), ("stop", Until::Stop)];

/// `threads`: a whole number ≥ 1 or "auto".
pub(crate) fn threads(v: &Value) -> Result<Threads, String> {
    if v.as_str().map(str::to_lowercase).as_deref() == Some("auto") {
        return Ok(Threads::Auto);
    }
    u32_in(1)(v)
        .map(Threads::N)
        .map_err(|e| format!("{e} (or \"auto\")"))
}

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

pub(super) const SAMPLING_NAMES: &[(&str, Sampling)] =
    &[("linear", Sampling::Linear), ("step", Sampling::Step)];

/// Node kinds of a custom topology.
/// A failure's `direction`: (a → b fails, b → a fails).
pub(crate) const DIRECTION_NAMES: &[(&str, (bool, bool))] = &[
    ("both", (true, true)),
    ("a_to_b", (true, false)),
    ("b_to_a", (false, true)),
];

pub(crate) const NODE_KINDS: &[(&str, NodeKind)] =
    &[("host", NodeKind::Host), ("switch", NodeKind::Switch)];

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
    // also as text ("1e12"), as sizes and times are written
    let x = match v {
        Value::String(s) => s.trim().parse::<f64>().ok(),
        _ if v.is_number() => v.as_f64(),
        _ => None,
    };
    match x {
        Some(x) if (1.0..=1e19).contains(&x) && x.fract() == 0.0 => Ok(x as u64),
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
        // a whole number past u64 reaches here as a float (1e+20): it is
        // out of range, not "not an integer"; one that fits in u64 is
        // compared as written (through f64, 2^64 - 1 would read 2^64)
        if v.as_u64().is_none()
            && v.as_f64()
                .is_some_and(|x| x.fract() == 0.0 && x > max as f64)
        {
            // as written (1e+30), not the float's 31 exact digits
            return Err(format!("must be ≤ {max}, got {}", json_excerpt(v)));
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

/// `tcp.abc_limit`: SMSS per ACK ≥ 1, or "unlimited" (Linux's count).
pub(crate) fn abc_limit(v: &Value) -> Result<u32, String> {
    if v.as_str().map(str::to_lowercase).as_deref() == Some("unlimited") {
        return Ok(ABC_UNLIMITED);
    }
    u32_in(1)(v).map_err(|e| format!("{e} (or \"unlimited\")"))
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
            // "0.01" in a JSON file is what --set's 0.01 is: the number
            Value::String(s) if !s.contains('/') => s
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(bad)?,
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
        // a negative value of a (0, 1] key is told the bound it has, > 0
        if !x.is_finite() || x < 0.0 {
            let bound = if zero_ok { "≥" } else { ">" };
            Err(format!("must be {bound} 0, got {}", json_excerpt(v)))
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
        return Ok(Limit::UNLIMITED);
    }
    buffer(v).map_err(|e| format!("{e} (or \"unlimited\")"))
}

/// The name `v` goes by in a names table (the reverse of [`named`]).
pub(crate) fn name_of<T: Copy + PartialEq>(table: &[(&'static str, T)], v: T) -> &'static str {
    table.iter().find(|(_, x)| *x == v).map_or("?", |(n, _)| n)
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
        if let Some(key) = belongs_elsewhere(&what, &lower) {
            return Err(format!(
                "unknown {what} '{}' ({key}; valid: {})",
                excerpt(s),
                valid.join(", ")
            ));
        }
        // A name that starts differently is another word, not a typo of
        // this one: the names are short acronyms, one letter apart
        // ("sack" is not "rack", "udp" not "ndp", "lifo" not "fifo").
        let hint = crate::text::suggest(&lower, valid.iter().copied())
            .filter(|x| x.chars().next() == lower.chars().next())
            .map(|x| format!("did you mean '{x}'? "))
            .unwrap_or_default();
        Err(format!(
            "unknown {what} '{}' ({hint}valid: {})",
            excerpt(s),
            valid.join(", ")
        ))
    }
}

/// Where a name given as a `what` belongs instead, when it is a valid
/// name of another key (a transport given as `tcp.cc`, SACK as the
/// recovery machine, UDP as a transport).
fn belongs_elsewhere(what: &str, lower: &str) -> Option<String> {
    fn has<T>(table: &[(&str, T)], name: &str) -> bool {
        table.iter().any(|(n, _)| *n == name)
    }
    match what {
        "congestion control" if lower != "tcp" && has(TRANSPORT_NAMES, lower) => {
            Some(format!("{lower} is a transport: tcp.transport = \"{lower}\""))
        }
        "transport" if has(CC_NAMES, lower) => Some(format!(
            "{lower} is a congestion control of the TCP transport: tcp.cc = \"{lower}\""
        )),
        "transport" if lower == "udp" => {
            Some("UDP is an app: kind = \"udp_cbr\" in [[apps]]".to_string())
        }
        "loss recovery" if lower == "sack" => {
            Some("SACK is its own key, tcp.sack = true: RFC 6675 recovery with \"dupack\", RACK-TLP with \"rack\"".to_string())
        }
        _ => None,
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

/// The largest UDP payload one IPv4 packet carries: 65,535 less the IP
/// and UDP headers (20 + 8 bytes).
pub(crate) const MAX_UDP_PAYLOAD: u64 = 65_535 - 20 - 8;

/// A datagram payload: a size > 0 that fits one IPv4 packet (a larger
/// one ran, and its pcap records were malformed: a UDP length past the
/// IP packet's).
pub(crate) fn payload_size(v: &Value) -> Result<u32, String> {
    let s = positive_size(v)?;
    if s > MAX_UDP_PAYLOAD {
        return Err(format!(
            "at most {MAX_UDP_PAYLOAD} bytes (IPv4's largest packet less its IP and UDP headers), got {s}"
        ));
    }
    Ok(s as u32)
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

pub(super) fn check_host(h: u64, nhosts: Option<usize>) -> Result<usize, String> {
    match nhosts {
        Some(n) if h >= n as u64 => Err(format!(
            "host {h} out of range (topology has {n} host{})",
            if n == 1 { "" } else { "s" }
        )),
        // before the topology's count is known: a bound every topology keeps
        _ if h > MAX_NODES => Err(format!(
            "host {h} out of range (no topology has more than {MAX_NODES} nodes)"
        )),
        _ => Ok(h as usize),
    }
}

/// A many-to-one app's list of peers (`workers`, `servers`): present and
/// valid, and the hub (`aggregator`, `client`; already read) not among them.
pub(super) fn fan_in(
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
pub(super) fn host_list(
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
