//! Scenario documents (JSON values; TOML is converted to JSON by the
//! Python front) → validated [`Config`], following `docs/scenario.md`.
//!
//! Validation collects **every** problem, each with its field path
//! (`apps[2].servers[3]`, `tcp.rto_min`, `topology.links[0].a`) and a
//! reason; nothing stops at the first error. The parser never panics on
//! any input.
//!
//! The reading is split by section, one file each, in layers (each file
//! uses only those above it in this list):
//!
//! * `units.rs` — unit strings (`"50us"`, `"1Gbps"`, `"32KB"`) → base units;
//! * `table.rs` — field paths, collected problems, typed table getters;
//! * `values.rs` — value kinds and name tables (`"dctcp"`, `"ecmp"`, …);
//! * `schema.rs` — every section's serde struct: the one declaration of
//!   keys, value kinds and defaults, from which the JSON Schema is
//!   generated. All serde structs live here, none beside its reader;
//! * `tcp.rs`, `topology.rs`, `routing.rs`, `trace.rs`, `apps.rs`,
//!   `failures.rs` — each section's reading and its checks across keys;
//! * `json.rs` — strict JSON text reading (duplicate keys are errors);
//! * this file — the document: dispatch to the sections, layering of the
//!   app `tcp` overrides, checks across sections, warnings.

pub mod schema;
pub mod units;

mod apps;
mod failures;
mod json;
mod routing;
mod table;
mod tcp;
mod topology;
mod trace;
mod values;

pub use apps::parse_cdf_table;
pub use table::key_path;
pub use values::DEFAULT_FLOWLET_GAP;

use crate::config::{
    AppSpec, BulkAmount, Config, EcnRamp, Limit, NonEct, PfcConfig, RoutingMode, TcpConfig,
    TcpWritten, Threads, Ties, TopologySpec, Transport, TrimConfig,
};
use crate::net::topology::TopologyError;
use crate::sim::time::SimTime;
use apps::parse_app;
use json::StrictJson;
use routing::parse_routing;
use serde_json::Value;
use std::fmt;
use table::{idx_path, Ctx};
use tcp::{tcp_cross_checks, TcpLayer};
use topology::{parse_topology, TopoOut};
use trace::parse_trace;
use values::host_list;

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
impl From<TopologyError> for ScenarioError {
    fn from(e: TopologyError) -> Self {
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

/// Parse and validate a scenario document (a JSON value). Returns every
/// problem found, each with its field path.
pub fn parse_config(doc: &Value) -> Result<Config, Vec<ScenarioError>> {
    parse_config_until(doc, &mut || false)
}

/// The one problem of a validation that `stop` ended.
pub const INTERRUPTED: &str = "interrupted";

/// The most framing bytes `l2_overhead` may add to a packet.
pub(crate) const MAX_L2_OVERHEAD: u32 = 65_535;

/// A threshold's unit in words.
fn limit_unit(l: Limit) -> &'static str {
    match l {
        Limit::Bytes(_) => "bytes",
        Limit::Packets(_) => "packets",
    }
}

/// A threshold (PFC's, RED's) in words.
fn limit_text(l: Limit) -> String {
    match l {
        Limit::Bytes(b) => format!("{b} bytes"),
        Limit::Packets(n) => format!("{n} packets"),
    }
}

/// `[pfc]`'s thresholds when a key is left out: htsim's HPCC fabric's (15
/// and 12 packets of 9,000 B).
pub const PFC_XOFF: u64 = 135_000;
pub const PFC_XON: u64 = 108_000;

/// [`parse_config`], asking `interrupt` after each costly step (the
/// topology, every 64 apps, before the size check); if it says stop, the one
/// problem is [`INTERRUPTED`] at `<document>`.
pub fn parse_config_until(
    doc: &Value,
    interrupt: &mut dyn FnMut() -> bool,
) -> Result<Config, Vec<ScenarioError>> {
    let interrupted = || {
        vec![ScenarioError {
            path: DOCUMENT.into(),
            message: INTERRUPTED.into(),
        }]
    };
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
    // A time past the clock's range saturates at its end (`SimTime`'s
    // adds): kept beyond `stop`, such an event never runs, as it would not
    // have in time. A `stop` in the clock's upper half could reach it.
    if stop > MAX_STOP {
        ctx.err(
            "stop",
            format!(
                "{stop} is past the longest run, {MAX_STOP} (2^63 ps): times beyond it \
                 could not be told from one another"
            ),
        );
    }
    let l2_overhead = d.l2_overhead.unwrap_or(0);
    // a packet's wire size is a u32 sum of payload, header and framing:
    // framing no larger than an IP packet can be keeps it from wrapping
    if l2_overhead > MAX_L2_OVERHEAD {
        ctx.err(
            "l2_overhead",
            format!(
                "{l2_overhead} bytes of framing per packet is more than an IP packet's \
                 largest size ({MAX_L2_OVERHEAD}): no link layer adds that (Ethernet's \
                 preamble, header, FCS and gap are 38)"
            ),
        );
    }
    let switch_delay = d.switch_delay.unwrap_or(SimTime::ZERO);
    let host_jitter = d.host_jitter.unwrap_or(SimTime::ZERO);
    // The seeded order by default, which any thread count reproduces, and
    // as many threads as pay now ("auto"): a user who sets neither gets
    // every free core and the bits one thread writes. First-in first-out
    // (ns-2's and ns-3's order) is asked for by name, and then runs on one
    // thread unless told otherwise (and refused on more, below).
    let ties = d.ties.unwrap_or(Ties::Seeded);
    let threads = match (*d.threads, ties) {
        (None, Ties::Seeded) => Threads::Auto,
        // "auto" is as many threads as pay, and under first-in first-out
        // only one can: the default written out (`threads = "auto"`, a
        // sweep's `--threads auto`) was refused as if more were asked
        (None | Some(Threads::Auto), Ties::Fifo) => Threads::N(1),
        (Some(t), _) => t,
    };
    if ties == Ties::Fifo && threads != Threads::N(1) {
        ctx.err(
            "ties",
            "\"fifo\" cannot run on more than one thread: a packet handed across \
             partitions is scheduled at a window's end, not when it was sent, so \
             first-in first-out would depend on the partition; use \"seeded\" (or \
             threads = 1)",
        );
    }

    let topo = match &*d.topology {
        Some(v) => parse_topology(&mut ctx, v),
        None => {
            ctx.err("topology", "missing required key");
            TopoOut {
                spec: None,
                hosts: None,
                ramp: None,
            }
        }
    };

    if interrupt() {
        return Err(interrupted());
    }

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

    // [trimming]: payload trimming and header queues (net/trim.rs).
    let trimming = match &*d.trimming {
        None => Some(None),
        Some(v) => schema::read_table::<schema::TrimmingSection>(v, "trimming", "", &mut ctx.errs)
            .map(|r| {
                r.value.enabled.unwrap_or(true).then_some(TrimConfig {
                    header_limit: *r.value.header_buffer,
                    header_bytes: r.value.header.unwrap_or(64),
                    return_to_sender: r.value.return_to_sender.unwrap_or(false),
                })
            }),
    };
    // (`enabled = false` is as if the table were absent, for every check)
    let trim_on = matches!(trimming, Some(Some(_)));

    // [pfc]: a lossless fabric (net/pfc.rs).
    let pfc = match &*d.pfc {
        None => None,
        Some(v) => {
            schema::read_table::<schema::PfcSection>(v, "pfc", "", &mut ctx.errs).and_then(|r| {
                let xoff = r.value.xoff.unwrap_or(Limit::Bytes(PFC_XOFF));
                let xon = r.value.xon.unwrap_or(match xoff {
                    Limit::Bytes(b) => Limit::Bytes(PFC_XON.min(b)),
                    Limit::Packets(n) => Limit::Packets((n * 4 / 5).max(1)),
                });
                let mut ok = true;
                // xon left out follows xoff: one error, at the key written
                let given = [
                    ("pfc.xoff", Some(xoff)),
                    ("pfc.xon", r.value.xon.map(|_| xon)),
                ];
                for (key, v) in given.into_iter().filter_map(|(k, v)| v.map(|v| (k, v))) {
                    if matches!(v, Limit::Bytes(0) | Limit::Packets(0)) {
                        ctx.err(
                            key,
                            "must be above 0: a port holding nothing would pause its sender",
                        );
                        ok = false;
                    }
                }
                let problem = match (xon, xoff) {
                    (Limit::Bytes(a), Limit::Bytes(b)) | (Limit::Packets(a), Limit::Packets(b)) => {
                        (a > b).then(|| {
                            format!(
                                "{} is above xoff ({}): a port would be resumed while still \
                                 over the count that paused it",
                                limit_text(xon),
                                limit_text(xoff)
                            )
                        })
                    }
                    // packets of any size against bytes: no order holds for
                    // every packet (10pkt of 1,500 B under 100KB resumes a
                    // port as it pauses)
                    _ => Some(format!(
                        "xon is in {} and xoff in {} ({} and {}): give both in one unit",
                        limit_unit(xon),
                        limit_unit(xoff),
                        limit_text(xon),
                        limit_text(xoff)
                    )),
                };
                if let Some(why) = problem {
                    ctx.err("pfc.xon", why);
                    ok = false;
                }
                if !ok {
                    return None;
                }
                r.value
                    .enabled
                    .unwrap_or(true)
                    .then_some(PfcConfig { xoff, xon })
            })
        }
    };
    if pfc.is_some() {
        let clash = [
            (
                trim_on,
                "trimming",
                "[trimming] (a trimming switch loses no packet, it cuts them)",
            ),
            (
                (*d.failures)
                    .as_ref()
                    .is_some_and(|f| f.as_array().is_none_or(|a| !a.is_empty())),
                "failures",
                "[[failures]] (not modelled on a paused fabric)",
            ),
        ];
        for (on, key, what) in clash {
            if on {
                ctx.err(key, format!("not with [pfc]: {what}"));
            }
        }
    }

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
            let before = ctx.errs.len();
            let p = TcpLayer::parse(&mut ctx, v, "tcp");
            let bad = bad_keys(&ctx.errs[before..], "tcp");
            for (key, msg, involved) in tcp_cross_checks(&p.section.resolve()) {
                if !involved.iter().any(|k| bad.iter().any(|b| b == k)) {
                    ctx.err(key_path("tcp", key), msg);
                }
            }
            p
        }
        None => TcpLayer::default(),
    };

    let mut apps = Vec::new();
    let mut start_jitter = Vec::new();
    match d.apps.and(doc.get("apps")) {
        None if doc.get("apps").is_some() => {} // already reported
        None => ctx.err("apps", "missing required key"),
        Some(Value::Array(items)) => {
            if items.is_empty() {
                ctx.err("apps", "needs at least one app");
            }
            for (i, it) in items.iter().enumerate() {
                if i % 64 == 63 && interrupt() {
                    return Err(interrupted());
                }
                let p = idx_path("apps", i);
                if let Some((a, jitter)) = parse_app(&mut ctx, it, &p, &topo, &top_tcp, stop) {
                    apps.push(a);
                    start_jitter.push(jitter);
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

    if let Some(Some(t)) = &trimming {
        trim_checks(&mut ctx, t, &apps, l2_overhead);
    }
    // (an app that could not be read would shift the others' indices)
    let all_apps = doc
        .get("apps")
        .and_then(Value::as_array)
        .is_some_and(|a| a.len() == apps.len());
    if let (Some(t), true) = (&topo.spec, all_apps) {
        hpcc_w_ai_checks(&mut ctx, t, &apps, doc.get("apps"), l2_overhead);
    }
    let hpcc = apps
        .iter()
        .any(|a| a.tcp().is_some_and(|t| t.transport == Transport::Hpcc));
    if hpcc && *d.int == Some(false) {
        ctx.err(
            "int",
            "\"hpcc\" flows need in-band telemetry: leave int unset or true",
        );
    }
    if (hpcc || *d.int == Some(true)) && trim_on {
        ctx.err(
            "trimming",
            "in-band telemetry reads the drop-tail FIFO's state: not with [trimming]",
        );
    }
    let gated = topo.spec.as_ref().is_some_and(|t| {
        t.links
            .iter()
            .flat_map(|l| [&l.queue_ab, &l.queue_ba])
            .any(|q| q.drops_non_ect())
    });
    if let (Some(r), Some(t)) = (&topo.ramp, &topo.spec) {
        let with = [
            (
                trim_on,
                "[trimming] (a trimming port trims, it does not mark)",
            ),
            (
                hpcc || *d.int == Some(true),
                "in-band telemetry (int, hpcc flows)",
            ),
            (
                (*d.failures)
                    .as_ref()
                    .is_some_and(|f| f.as_array().is_none_or(|a| !a.is_empty())),
                "[[failures]]",
            ),
            (
                gated,
                "ecn_non_ect = \"drop\" (dropping packets without ECT along the ramp); \
                 leave ecn_non_ect at \"queue\"",
            ),
        ];
        ramp_checks(&mut ctx, r, t);
        for (_, what) in with.iter().filter(|w| w.0) {
            ctx.err(
                "topology.ecn_kmax",
                format!("RED's ramp is not modelled with {what}"),
            );
        }
    }
    if gated && pfc.is_some() {
        ctx.err(
            "topology.ecn_non_ect",
            "\"drop\" drops at the ECN threshold: not with [pfc] (a lossless fabric)",
        );
    }
    if gated && trim_on {
        ctx.err(
            "topology.ecn_non_ect",
            "\"drop\" drops at the ECN threshold, and a trimming switch neither marks nor \
             drops there (it trims): not with [trimming]",
        );
    }
    let failures = match &*d.failures {
        None => Some(Vec::new()),
        Some(v) => failures::parse_failures(
            &mut ctx,
            v,
            &failures::Around {
                topo: topo.spec.as_ref(),
                trimming: trim_on,
                int: hpcc || *d.int == Some(true),
                stop,
            },
        ),
    };
    if !ctx.errs.is_empty() {
        return Err(ctx.errs);
    }
    match (topo.spec, routing, pcap_hosts, trace, limits, trimming) {
        (
            Some(topology),
            Some(routing),
            Some(pcap_hosts),
            Some(trace),
            Some(limits),
            Some(trimming),
        ) => {
            let mut inert = inert_key_warnings(&top_tcp, doc.get("apps"), &apps);
            inert.extend(two_tier_inert(doc.get("topology")));
            let tcp_written = (0..apps.len())
                .map(|i| TcpWritten {
                    own_keys: own_tcp(doc.get("apps"), i)
                        .map(|o| o.keys().cloned().collect())
                        .unwrap_or_default(),
                })
                .collect();
            let cfg = Config {
                inert_keys: inert,
                tcp_written,
                failures: failures.unwrap_or_default(),
                int: (*d.int).unwrap_or(hpcc),
                pfc,
                ecn_ramp: topo.ramp,
                trimming,
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
                start_jitter,
                limits,
                ties,
                until: d.until.unwrap_or_default(),
                threads,
            };
            let fast = timer_floor_errors(&cfg);
            if !fast.is_empty() {
                return Err(fast);
            }
            // Too big for the machine: say so before the world (routes,
            // flows, packets) is built; the topology was sized above.
            if interrupt() {
                return Err(interrupted());
            }
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

/// Parse JSON text; a syntax error is one error at path `<document>`.
pub fn parse_config_str(json: &str) -> Result<Config, Vec<ScenarioError>> {
    parse_config_str_until(json, &mut || false)
}

/// [`parse_config_str`] with [`parse_config_until`]'s `interrupt`.
pub fn parse_config_str_until(
    json: &str,
    interrupt: &mut dyn FnMut() -> bool,
) -> Result<Config, Vec<ScenarioError>> {
    match serde_json::from_str::<StrictJson>(json) {
        Ok(StrictJson(v)) => parse_config_until(&v, interrupt),
        Err(e) => Err(vec![ScenarioError {
            path: DOCUMENT.into(),
            message: format!("invalid JSON: {e}"),
        }]),
    }
}

/// The longest `stop`: half the picosecond clock's range (≈ 106 days), so
/// that every time the run computes past it (saturating at the range's
/// end) stays past it.
pub const MAX_STOP: SimTime = SimTime(1 << 63);

/// What is valid but probably not what was meant, as `(path, reason)`
/// pairs the front ends print as warnings; the run is the same either way.
///
/// An ECN-based congestion control (DCTCP, FaST) on a network where no
/// queue marks: its window then only reacts to drops, i.e. it runs as
/// loss-based TCP, and a comparison under its name is a comparison of
/// NewReno-like behaviour.
///
/// A buffer or marking threshold above 0 but below one full-size packet:
/// sizes are bytes, so a paper's K = 20 copied as `ecn_k = 20` marks every
/// packet that finds another queued, and such a buffer drops every full
/// packet. `ecn_k = 0` (mark every packet) is meant and stays silent.
///
/// `ecn_k` where no app's transport is ECN-capable: nothing is marked and
/// the run is the same as without it (unless those queues drop what they
/// cannot mark: `ecn_non_ect = "drop"`). Said once, in place of the
/// sub-packet warning about the threshold, which would promise marks.
///
/// `ecn_non_ect = "drop"` where no queue has an `ecn_k`: nothing to drop at.
///
/// A `[trace]` that samples nothing (`flows = false`, no `queues`).
///
/// A memory estimate over `limits.memory` (its part allocated before the
/// run can be stopped fits, or the scenario is refused): the run-time
/// guard stops the run if it really holds more.
pub fn warnings(cfg: &Config) -> Vec<ScenarioError> {
    let unmarked = unmarked_warning(cfg);
    let mut out = ecn_cc_warnings(cfg);
    let queues = || {
        cfg.topology
            .links
            .iter()
            .flat_map(|l| [&l.queue_ab, &l.queue_ba])
    };
    if queues().any(|q| q.non_ect == NonEct::Drop) && queues().all(|q| q.ecn_k.is_none()) {
        out.push(ScenarioError {
            path: "topology.ecn_non_ect".into(),
            message: "\"drop\" drops packets without ECT where a queue's ecn_k would mark, \
                      but no queue has an ecn_k: the run is the same as without it"
                .into(),
        });
    }
    out.extend(sub_packet_warnings(cfg, unmarked.is_none()));
    if unmarked.is_none() {
        out.extend(unreachable_k_warnings(cfg));
    }
    out.extend(unmarked);
    out.extend(ramp_warnings(cfg));
    out.extend(ndp_warnings(cfg));
    out.extend(dcqcn_warnings(cfg));
    out.extend(rate_floor_warnings(cfg));
    out.extend(timely_hai_warnings(cfg));
    out.extend(timely_shallow_port_warnings(cfg));
    out.extend(timer_below_rtt_warnings(cfg));
    out.extend(dcqcn_hai_warnings(cfg));
    out.extend(hpcc_base_rtt_warnings(cfg));
    out.extend(plb_warnings(cfg));
    out.extend(rps_go_back_n_warnings(cfg));
    out.extend(rps_swift_warnings(cfg));
    out.extend(int_without_hpcc_warnings(cfg));
    out.extend(failure_warnings(cfg));
    out.extend(pfc_warnings(cfg));
    out.extend(header_buffer_warnings(cfg));
    out.extend(tiny_app_size_warnings(cfg));
    out.extend(host_name_warnings(cfg));
    out.extend(hz_warnings(cfg));
    out.extend(slow_path_warning(cfg));
    out.extend(empty_trace_warning(cfg));
    out.extend(cdf_in_packets_warnings(cfg));
    out.extend(init_cwnd_warnings(cfg));
    out.extend(delayed_ack_segments_warnings(cfg));
    out.extend(bbr_without_sack_warnings(cfg));
    out.extend(poisson_overload_warnings(cfg));
    out.extend(cfg.inert_keys.iter().map(|(path, message)| ScenarioError {
        path: path.clone(),
        message: message.clone(),
    }));
    out.extend(
        crate::stats::limits::warnings(cfg, &cfg.limits)
            .into_iter()
            .map(|(path, message)| ScenarioError { path, message }),
    );
    out
}

/// Initial windows from this many segments up are warned of
/// ([`init_cwnd_warnings`]).
const HUGE_INIT_CWND: u32 = 1000;

/// An `init_cwnd` of [`HUGE_INIT_CWND`] segments or more: a count of
/// segments (RFC 6928's is 10), where htsim's and some papers' initial
/// windows are given in bytes (`init_cwnd = 14600` is then 14,600
/// segments, 21 MB at once). Said, not refused: a window that large is a
/// way to take slow start out of an experiment.
fn init_cwnd_warnings(cfg: &Config) -> Vec<ScenarioError> {
    let huge = cfg.apps.iter().enumerate().filter_map(|(i, a)| {
        let t = a.tcp().filter(|t| t.transport == Transport::Tcp)?;
        (t.init_cwnd_segments >= HUGE_INIT_CWND).then_some((i, (t.init_cwnd_segments, t.mss)))
    });
    by_origin(cfg, "init_cwnd", huge)
        .into_iter()
        .map(|(path, (segs, mss), apps)| ScenarioError {
            path,
            message: format!(
                "init_cwnd is a count of segments: {segs} segments of {mss} B is {} B sent at \
                 once by {} (RFC 6928's initial window is 10); for a window in bytes, divide \
                 by the MSS",
                u64::from(segs) * u64::from(mss),
                apps_text(&apps)
            ),
        })
        .collect()
}

/// Delayed ACKs every `delayed_ack_segments` above the initial window
/// (and no quick ACKs at the start, which ns-3's first-segment ACK and
/// Linux's quickack mode give): the first window cannot fill one
/// ACK, so every flow's first ACK waits for `delayed_ack_timeout` (an audit's
/// DCTCP star at 4 of 2: 40 ms stalls, 972 → 778 Mbps). RFC 1122 ACKs
/// at least every second full segment.
fn delayed_ack_segments_warnings(cfg: &Config) -> Vec<ScenarioError> {
    let found = cfg.apps.iter().enumerate().filter_map(|(i, a)| {
        let t = a
            .tcp()
            .filter(|t| t.transport == Transport::Tcp && t.delayed_ack)?;
        (t.delayed_ack_segments > t.init_cwnd_segments && t.delayed_ack_quickack == 0).then_some((
            i,
            (
                t.delayed_ack_segments,
                t.init_cwnd_segments,
                t.delayed_ack_timeout,
            ),
        ))
    });
    by_origin(cfg, "delayed_ack_segments", found)
        .into_iter()
        .map(|(path, (segs, init, timeout), apps)| ScenarioError {
            path,
            message: format!(
                "an ACK every {segs} segments, more than the initial window of {init} ({}): the \
                 first window cannot fill one, so each flow's first ACK waits for \
                 delayed_ack_timeout ({timeout}) and slow start stalls there (RFC 1122 ACKs at \
                 least every second full segment); lower delayed_ack_segments, raise \
                 init_cwnd, or set delayed_ack_quickack",
                apps_text(&apps)
            ),
        })
        .collect()
}

/// BBR without SACK (`sack = false`, the "papers" profile's default, or
/// set): NewReno's recovery repairs one hole a round trip, so a burst of
/// losses in the queue BBR keeps full can end in a timeout. The kernel's
/// BBR without SACK falls to 5–13 Mbit/s of a 100 Mbit/s line in the lab,
/// where dcnsim's lone flow does not (94 Mbit/s: docs/bbr.md), so the
/// warning says what the kernel does, not that this run will. Said, not
/// refused: the kernel lab compares exactly that case.
fn bbr_without_sack_warnings(cfg: &Config) -> Vec<ScenarioError> {
    let found = cfg.apps.iter().enumerate().filter_map(|(i, a)| {
        let t = a.tcp().filter(|t| t.transport == Transport::Tcp)?;
        (t.cc == crate::config::CcKind::Bbr && !t.sack).then_some((i, ()))
    });
    by_origin(cfg, "cc", found)
        .into_iter()
        .map(|(path, (), apps)| ScenarioError {
            path,
            message: format!(
                "bbr without SACK ({}: tcp.sack = false): NewReno's recovery repairs one hole \
                 a round trip, so a burst of losses in the queue BBR keeps full can end in a \
                 timeout; Linux's BBR without SACK falls to 5–13 Mbit/s of a 100 Mbit/s line \
                 in the kernel lab, where this model's lone flow does not (docs/bbr.md); set \
                 tcp.sack = true for the stack Linux runs",
                apps_text(&apps)
            ),
        })
        .collect()
}

/// A Poisson app whose mean offered rate exceeds a host's access link:
/// sources are drawn uniformly, so each is offered load × C / n of the
/// sources' total access rate C, and a destination its share of the
/// arrivals. With unequal access rates (or a few destinations) a slow
/// host's link is loaded past 100 % and its flows never all finish,
/// though `load` ≤ 1. Said, not refused: an overloaded host is a
/// possible experiment.
fn poisson_overload_warnings(cfg: &Config) -> Vec<ScenarioError> {
    // a pass over every link and host: only for a scenario it concerns
    if !cfg
        .apps
        .iter()
        .any(|a| matches!(a, crate::config::AppSpec::Poisson(_)))
    {
        return Vec::new();
    }
    let spec = &cfg.topology;
    let host_nodes = spec.hosts();
    let node_rate = spec.node_rates();
    let rate = |h: usize| host_nodes.get(h).map_or(0, |&n| node_rate[n]) as f64;
    let mut out = Vec::new();
    for (i, a) in cfg.apps.iter().enumerate() {
        let crate::config::AppSpec::Poisson(p) = a else {
            continue;
        };
        let (ns, nd) = (p.sources.len(), p.destinations.len());
        if ns == 0 || nd == 0 {
            continue;
        }
        let total = p.load * p.capacity_bps as f64;
        // arrivals expected while the app runs before stop: under one, the
        // run most likely starts no flow at all, and said nothing of it
        // (`load = 1e-300`: "flows 0", no word)
        let end = SimTime(p.start.0.saturating_add(p.duration.0)).min(cfg.stop);
        let expected = p.arrival_rate() * end.0.saturating_sub(p.start.0) as f64 / 1e12;
        // under ln 2 expected, no flow at all is the likelier outcome
        if p.start < cfg.stop && expected < std::f64::consts::LN_2 {
            out.push(ScenarioError {
                path: format!("apps[{i}].load"),
                message: format!(
                    "{} flow arrivals expected by stop (load {} × C {} over a mean flow of \
                     {:.0} bytes, for {}): the run most likely starts no flow; a load is a \
                     fraction of C (0.5 for 50 %)",
                    if expected < 0.01 {
                        format!("{expected:.2e}")
                    } else {
                        format!("{expected:.2}")
                    },
                    if p.load < 1e-3 {
                        format!("{:.3e}", p.load)
                    } else {
                        format!("{}", p.load)
                    },
                    failures::bps_text(p.capacity_bps),
                    p.cdf.mean(),
                    SimTime(end.0.saturating_sub(p.start.0)),
                ),
            });
        }
        let per_source = total / ns as f64;
        // the most loaded source: the slowest (all are offered the same)
        let over = |offered: f64, h: usize| offered > rate(h) * (1.0 + 1e-9);
        let slow: Vec<usize> = p
            .sources
            .iter()
            .copied()
            .filter(|&h| over(per_source, h))
            .collect();
        if let Some(&h) = slow.iter().min_by(|&&a, &&b| rate(a).total_cmp(&rate(b))) {
            out.push(ScenarioError {
                path: format!("apps[{i}].load"),
                message: format!(
                    "each source is offered load × C / n = {} on average (C = {}, the sources' \
                     total access rate; sources are drawn uniformly), {:.0} % of host {h}'s \
                     access link ({}){}: its flows cannot all finish; lower load, or list \
                     sources of equal rates",
                    failures::bps_text(per_source.round() as u64),
                    failures::bps_text(p.capacity_bps),
                    100.0 * per_source / rate(h),
                    failures::bps_text(rate(h) as u64),
                    others(slow.len())
                ),
            });
        }
        // a destination's share: each source picks uniformly among the
        // destinations other than itself
        let is_dest: std::collections::HashSet<usize> = p.destinations.iter().copied().collect();
        let in_both = p.sources.iter().filter(|h| is_dest.contains(h)).count();
        let is_source: std::collections::HashSet<usize> = p.sources.iter().copied().collect();
        let share = |d: usize| {
            // a source that is also a destination picks among the nd − 1
            // others, any other source among all nd; d never sends to itself
            let others_in_both = in_both - usize::from(is_source.contains(&d));
            let both_part = others_in_both as f64 / nd.saturating_sub(1).max(1) as f64;
            let only_part = (ns - in_both) as f64 / nd as f64;
            (both_part + only_part) / ns as f64
        };
        let mut worst: Option<(usize, f64)> = None;
        let mut hot = 0usize;
        for &d in &p.destinations {
            let offered = total * share(d);
            if over(offered, d) {
                hot += 1;
                let r = offered / rate(d);
                if worst.is_none_or(|(_, w)| r > w) {
                    worst = Some((d, r));
                }
            }
        }
        if let Some((d, r)) = worst {
            out.push(ScenarioError {
                path: format!("apps[{i}].destinations"),
                message: format!(
                    "host {d} receives {} on average, {:.0} % of its access link ({}){}: the \
                     destinations' links carry load × C spread over {nd} host{}, more than \
                     they hold; lower load, or give more destinations",
                    failures::bps_text((total * share(d)).round() as u64),
                    100.0 * r,
                    failures::bps_text(rate(d) as u64),
                    others(hot),
                    if nd == 1 { "" } else { "s" }
                ),
            });
        }
    }
    out
}

/// `" (and N other hosts)"` for a warning that names the worst of `n`.
fn others(n: usize) -> String {
    match n {
        0 | 1 => String::new(),
        2 => " (and 1 other host)".into(),
        _ => format!(" (and {} other hosts)", n - 1),
    }
}

/// Smallest flow size a CDF in bytes plausibly holds much of: below it a
/// size reads as a count of packets ([`cdf_in_packets_warnings`]).
const CDF_TINY_FLOW: f64 = 64.0;

/// A Poisson app whose flow-size CDF puts 1 % or more of its flows below
/// [`CDF_TINY_FLOW`] bytes: sizes are bytes, and the CDF files of ns-2's
/// pFabric and PIAS scripts list packets (the data-mining table's first
/// point, 1 packet with probability 0.5, read as bytes makes half of all
/// flows one byte long). Said, not refused: a workload of tiny messages
/// is possible.
fn cdf_in_packets_warnings(cfg: &Config) -> Vec<ScenarioError> {
    let builtin = |name: &str| crate::cdf::BUILTIN.iter().any(|(n, _)| *n == name);
    cfg.apps
        .iter()
        .enumerate()
        .filter_map(|(i, a)| {
            let crate::config::AppSpec::Poisson(p) = a else {
                return None;
            };
            let tiny = p.cdf.prob_le(CDF_TINY_FLOW - 1.0);
            if tiny < 0.01 {
                return None;
            }
            let key = if p.cdf_name == "inline" || builtin(&p.cdf_name) {
                "cdf"
            } else {
                "cdf_file"
            };
            Some(ScenarioError {
                path: format!("apps[{i}].{key}"),
                message: format!(
                    "{:.0} % of its flows are under {CDF_TINY_FLOW} bytes (mean {:.0} bytes): \
                     sizes are bytes; if the CDF lists packets, as the CDF files of ns-2's \
                     pFabric and PIAS scripts do, multiply each size by the MSS ({} B)",
                    100.0 * tiny,
                    p.cdf.mean(),
                    p.tcp.mss
                ),
            })
        })
        .collect()
}

/// A `[trace]` that samples nothing: `flows = false` and no `queues`.
fn empty_trace_warning(cfg: &Config) -> Option<ScenarioError> {
    let t = cfg.trace.as_ref()?;
    (!t.flows && t.queues.is_empty()).then(|| ScenarioError {
        path: "trace".into(),
        message: "records nothing: `flows = false` and no `queues`, so flow_ts and queue_ts \
                  stay empty; set `flows = true` or `queues` (\"switches\", \"all\" or a list)"
            .into(),
    })
}

/// Links so slow to cross that no packet arrives by `stop`
/// ([`crate::stats::limits::least_one_way`] is the least a delivery
/// takes). Usually a unit slip (`50s` for `50us`).
fn slow_path_warning(cfg: &Config) -> Option<ScenarioError> {
    let delays = crate::stats::limits::least_one_way(cfg)?;
    let nodes = &cfg.topology.nodes;
    let host = |v: usize| nodes[v].kind == crate::config::NodeKind::Host;
    let direct = host_links(cfg).any(|l| host(l.a) && host(l.b) && l.delay == delays);
    // and the time to put the smallest packet on a link, once per host
    // link crossed: at `rate = "1bps"` a 1,064-byte packet takes 8,500 s,
    // and a run whose delays fit in `stop` delivered nothing, unwarned
    let fastest = host_links(cfg).map(|l| l.rate_bps).max().unwrap_or(1);
    let smallest = cfg
        .apps
        .iter()
        .map(|a| match a {
            AppSpec::UdpCbr { payload_bytes, .. } => *payload_bytes as u64 + 28,
            // a data segment: its header and at least one byte
            _ => a.tcp().map_or(0, |t| t.header_bytes as u64) + 1,
        })
        .min()
        .unwrap_or(1)
        + cfg.l2_overhead as u64;
    let tx = tx_saturating(smallest, fastest);
    let crossings = if direct { 1 } else { 2 };
    let least = SimTime(delays.0.saturating_add(tx.0.saturating_mul(crossings)));
    // a packet that arrives at stop itself is delivered (events at stop run)
    if !(cfg.apps.iter().any(|a| !a.hosts().is_empty()) && least > cfg.stop) {
        return None;
    }
    if delays <= cfg.stop {
        return Some(ScenarioError {
            path: "topology".into(),
            message: format!(
                "no packet can arrive by stop ({}): the fastest host link ({}) takes {tx} to \
                 send the smallest packet ({smallest} bytes), {least} at least with the delays; \
                 is a rate's unit wrong (`1Gbps`, not `1`)?",
                cfg.stop,
                failures::bps_text(fastest)
            ),
        });
    }
    let least = delays;
    let how = if direct {
        "the shortest path is a link joining two hosts".to_string()
    } else {
        let sd = cfg.switch_delay;
        format!(
            "a packet crosses two host links (the shortest with a delay of {}) and a switch{}",
            SimTime((least.0 - sd.0) / 2),
            if sd > SimTime::ZERO {
                format!(" (`switch_delay` {sd})")
            } else {
                String::new()
            }
        )
    };
    Some(ScenarioError {
        path: "topology".into(),
        message: format!(
            "no packet can arrive by stop ({}): {how}, {least} at least; is a delay's unit \
             wrong (µs is `us`)?",
            cfg.stop
        ),
    })
}

/// A kernel tick other than the default that nothing counts in: `tcp.hz`
/// acts only on Linux's jiffy arithmetic (`cubic_linux`, `rack_timers =
/// "linux"` with RACK, `rto_timer = "linux"`), so under another stack it
/// would change nothing.
fn hz_warnings(cfg: &Config) -> Vec<ScenarioError> {
    use crate::config::{CcKind, LossRecovery, RackTimers, RtoTimer, TcpConfig};
    let default_hz = TcpConfig::default().hz;
    let idle: Vec<String> = cfg
        .apps
        .iter()
        .enumerate()
        .filter_map(|(i, a)| {
            // another transport's hz is named by the inert keys' warning
            let t = a.tcp().filter(|t| t.transport == Transport::Tcp)?;
            let ticks = (t.cc == CcKind::Cubic && t.cubic.linux)
                || (t.recovery == LossRecovery::Rack && t.rack_timers == RackTimers::Linux)
                || t.rto_timer == RtoTimer::Linux;
            (t.hz != default_hz && !ticks).then(|| i.to_string())
        })
        .collect();
    if idle.is_empty() {
        return Vec::new();
    }
    vec![ScenarioError {
        path: "tcp.hz".into(),
        message: format!(
            "hz changes nothing for app{} {}: only `cubic_linux` (cc = \"cubic\"), \
             `rack_timers = \"linux\"` and `rto_timer = \"linux\"` count in jiffies (the first \
             two on under profile = \"linux\")",
            if idle.len() > 1 { "s" } else { "" },
            idle.join(", ")
        ),
    }]
}

/// App `i`'s own `tcp` table in the document's `apps`, if it has one.
fn own_tcp(raw_apps: Option<&Value>, i: usize) -> Option<&serde_json::Map<String, Value>> {
    raw_apps
        .and_then(|a| a.get(i))
        .and_then(|a| a.get("tcp"))
        .and_then(Value::as_object)
}

/// Where app `i`'s TCP key `key` was set: `apps[i].tcp.KEY` if in its
/// own table (or if nothing says, in a config built in code), else the
/// top-level `tcp.KEY` it inherited.
fn tcp_key_path(cfg: &Config, i: usize, key: &str) -> String {
    let own = cfg
        .tcp_written
        .get(i)
        .is_none_or(|w| w.own_keys.iter().any(|k| k == key));
    written_path(own, i, key)
}

/// `apps[i].tcp.KEY` for a key app `i` set in its own table, else the
/// top-level `tcp.KEY` it inherited.
fn written_path(own: bool, i: usize, key: &str) -> String {
    if own {
        format!("apps[{i}].tcp.{key}")
    } else {
        key_path("tcp", key)
    }
}

/// `(app, value)` pairs with one problem of TCP key `key`, grouped by
/// where the key was set and its value: `(path, value, apps)`, the path
/// `tcp.KEY` for the apps that inherit it, the first app's
/// `apps[i].tcp.KEY` for those that set it themselves. One warning per
/// group, naming its apps ([`apps_text`]), so a fat-tree's thousands of
/// overrides give one line and each value is told with its own apps.
fn by_origin<V: PartialEq>(
    cfg: &Config,
    key: &str,
    found: impl IntoIterator<Item = (usize, V)>,
) -> Vec<(String, V, Vec<usize>)> {
    let top = key_path("tcp", key);
    let mut out: Vec<(String, V, Vec<usize>)> = Vec::new();
    for (i, v) in found {
        let path = tcp_key_path(cfg, i, key);
        let inherited = path == top;
        match out
            .iter_mut()
            .find(|(p, w, _)| (*p == top) == inherited && *w == v)
        {
            Some((_, _, apps)) => apps.push(i),
            None => out.push((path, v, vec![i])),
        }
    }
    out
}

/// A two-tier topology's common `buffer` or `ecn_k` when both tiers set
/// their own, or a custom topology's when every link sets its own: no
/// port reads it (a sweep over it would give flat results).
fn two_tier_inert(topology: Option<&Value>) -> Vec<(String, String)> {
    let Some(t) = topology.and_then(Value::as_object) else {
        return Vec::new();
    };
    if t.get("kind").and_then(Value::as_str) == Some("custom") {
        let Some(links) = t.get("links").and_then(Value::as_array) else {
            return Vec::new();
        };
        let every = |key: &str| {
            !links.is_empty()
                && links
                    .iter()
                    .all(|l| l.as_object().is_some_and(|l| l.contains_key(key)))
        };
        return ["buffer", "ecn_k"]
            .into_iter()
            .filter(|k| t.contains_key(*k) && every(k))
            .map(|k| {
                (
                    format!("topology.{k}"),
                    format!("{k} changes nothing: every link gives its own"),
                )
            })
            .collect();
    }
    if t.get("kind").and_then(Value::as_str) != Some("two_tier") {
        return Vec::new();
    }
    [
        ("buffer", "tor_buffer", "agg_buffer"),
        ("ecn_k", "tor_ecn_k", "agg_ecn_k"),
    ]
    .into_iter()
    .filter(|(common, tor, agg)| {
        t.contains_key(*common) && t.contains_key(*tor) && t.contains_key(*agg)
    })
    .map(|(common, tor, agg)| {
        (
            format!("topology.{common}"),
            format!("{common} changes nothing: {tor} and {agg} are both given"),
        )
    })
    .collect()
}

/// `app 3`, `apps 0, 1` or `apps 0, 1, 2, 3, 4 and 7 more`.
fn apps_text(v: &[usize]) -> String {
    let shown: Vec<String> = v.iter().take(5).map(|i| i.to_string()).collect();
    let more = if v.len() > 5 {
        format!(" and {} more", v.len() - 5)
    } else {
        String::new()
    };
    format!(
        "app{} {}{more}",
        if v.len() > 1 { "s" } else { "" },
        shown.join(", ")
    )
}

/// TCP keys set where nothing reads them ([`tcp::inert_key`]): a key of
/// the top-level `[tcp]` when no app that takes it from there reads it,
/// an app's own when that app does not. One warning per key, naming the
/// apps (a fat-tree's thousands of overrides give one line, not
/// thousands).
fn inert_key_warnings(
    top: &TcpLayer,
    raw_apps: Option<&Value>,
    apps: &[AppSpec],
) -> Vec<(String, String)> {
    let own = |i: usize| own_tcp(raw_apps, i);
    let mut out = Vec::new();
    let tcp_apps: Vec<usize> = (0..apps.len())
        .filter(|&i| apps[i].tcp().is_some())
        .collect();
    if tcp_apps.is_empty() && !apps.is_empty() {
        // a sweep over any of them would give flat results
        if let Some(key) = top.keys.keys().next() {
            out.push((
                key_path("tcp", key),
                "[tcp] changes nothing: no app runs a TCP flow (every app is UDP)".to_string(),
            ));
        }
        return out;
    }
    for key in top.keys.keys() {
        let mut takers = apps
            .iter()
            .enumerate()
            .filter(|(i, _)| own(*i).is_none_or(|o| !o.contains_key(key)))
            .filter_map(|(_, a)| a.tcp())
            .peekable();
        if takers.peek().is_none() {
            out.push((
                key_path("tcp", key),
                format!(
                    "{key} changes nothing here: every app that runs TCP sets its own ({})",
                    apps_text(&tcp_apps)
                ),
            ));
            continue;
        }
        // what a key needs is the key's own (its family), whichever app asks
        let Some(needs) = takers.next().and_then(|t| tcp::inert_key(key, t)) else {
            continue;
        };
        if takers.all(|t| tcp::inert_key(key, t).is_some()) {
            out.push((
                key_path("tcp", key),
                format!(
                    "{key} changes nothing: it is read only with {needs}, which no app taking \
                     it from [tcp] has"
                ),
            ));
        }
    }
    // key -> (what it needs, the apps that set it in vain)
    let mut idle: Vec<(String, &str, Vec<usize>)> = Vec::new();
    for (i, a) in apps.iter().enumerate() {
        let (Some(o), Some(t)) = (own(i), a.tcp()) else {
            continue;
        };
        for key in o.keys() {
            if let Some(needs) = tcp::inert_key(key, t) {
                match idle.iter_mut().find(|(k, _, _)| k == key) {
                    Some((_, _, v)) => v.push(i),
                    None => idle.push((key.clone(), needs, vec![i])),
                }
            }
        }
    }
    for (key, needs, v) in idle {
        out.push((
            format!("apps[{}].tcp.{key}", v[0]),
            format!(
                "{key} changes nothing for {}: it is read only with {needs}",
                apps_text(&v)
            ),
        ));
    }
    out
}

/// `rps` under a go-back-N transport (DCQCN, TIMELY, HPCC: RoCE's
/// recovery): a sprayed packet overtaken on another path reads as a gap,
/// whose NACK makes the sender resend everything after it, with no packet
/// lost. DCQCN on `dcqcn_websearch.toml` at 3 ms of arrivals: 1.23 M
/// resends and 0 drops, 1.0 Tbps against ECMP's 1.78 (docs/dcqcn.md).
fn rps_go_back_n_warnings(cfg: &Config) -> Vec<ScenarioError> {
    if !sprays_over_paths(cfg) {
        return Vec::new();
    }
    let gbn = cfg.apps.iter().enumerate().filter_map(|(i, a)| {
        let t = a.tcp()?.transport;
        matches!(t, Transport::Dcqcn | Transport::Timely | Transport::Hpcc).then_some((i, t))
    });
    let mut by: Vec<(Transport, Vec<usize>)> = Vec::new();
    for (i, t) in gbn {
        match by.iter_mut().find(|(u, _)| *u == t) {
            Some((_, v)) => v.push(i),
            None => by.push((t, vec![i])),
        }
    }
    if by.is_empty() {
        return Vec::new();
    }
    let named: Vec<String> = by
        .iter()
        .map(|(t, v)| format!("{} ({})", t.name(), apps_text(v)))
        .collect();
    vec![ScenarioError {
        path: "routing.mode".into(),
        message: format!(
            "rps sprays the packets of go-back-N transports: {}. A packet overtaken on \
             another path reads as a gap, whose NACK makes the sender resend everything \
             after it, though nothing was lost (RoCE NICs keep a connection on one path): \
             expect resends without drops and goodput far below ecmp's; use ecmp, or ndp, \
             which tolerates reordering",
            named.join(", ")
        ),
    }]
}

/// Whether `rps` sprays packets over more than one path: a topology
/// without a cycle (fewer links than nodes) has one path between any two
/// hosts, and spraying reorders nothing there.
fn sprays_over_paths(cfg: &Config) -> bool {
    let t = &cfg.topology;
    cfg.routing == crate::config::RoutingMode::Rps && t.links.len() >= t.nodes.len()
}

/// `rps` under Swift: Swift recovers as htsim's does, on the
/// `dupack_threshold`-th duplicate ACK (htsim spreads a Swift connection
/// over paths as subflows, each on one path), so a sprayed packet overtaken
/// on another path is resent though nothing was lost. The audit's k = 4
/// fat-tree permutation of 4 MB flows: 411 retransmits, 0 drops.
fn rps_swift_warnings(cfg: &Config) -> Vec<ScenarioError> {
    if !sprays_over_paths(cfg) {
        return Vec::new();
    }
    let swift: Vec<usize> = cfg
        .apps
        .iter()
        .enumerate()
        .filter_map(|(i, a)| (a.tcp()?.transport == Transport::Swift).then_some(i))
        .collect();
    if swift.is_empty() {
        return Vec::new();
    }
    vec![ScenarioError {
        path: "routing.mode".into(),
        message: format!(
            "rps sprays the packets of Swift ({}): a packet overtaken on another path brings \
             duplicate ACKs, and at tcp.dupack_threshold of them Swift resends it though \
             nothing was lost (htsim's Swift keeps each subflow on one path): expect \
             retransmits without drops; use ecmp, or raise tcp.dupack_threshold past the \
             reordering",
            apps_text(&swift)
        ),
    }]
}

/// `int = true` with no HPCC flow: nothing reads the records, and every
/// switch egress takes INT's out-of-line enqueue.
fn int_without_hpcc_warnings(cfg: &Config) -> Vec<ScenarioError> {
    let hpcc = cfg
        .apps
        .iter()
        .any(|a| a.tcp().is_some_and(|t| t.transport == Transport::Hpcc));
    if !cfg.int || hpcc {
        return Vec::new();
    }
    vec![ScenarioError {
        path: "int".into(),
        message: "in-band telemetry with no hpcc flow: HPCC is the only transport that reads \
                  it, so the records change nothing, and every switch port's enqueue takes \
                  INT's slower path; leave int unset"
            .into(),
    }]
}

/// PLB under a routing mode that does not hash the flow label: `single`
/// takes one path whatever the label, `rps` sprays every packet anyway.
fn plb_warnings(cfg: &Config) -> Vec<ScenarioError> {
    use crate::config::RoutingMode;
    let mode = match cfg.routing {
        RoutingMode::Single => "single",
        RoutingMode::Rps => "rps",
        _ => return Vec::new(),
    };
    let apps: Vec<String> = cfg
        .apps
        .iter()
        .enumerate()
        .filter(|(_, a)| a.tcp().is_some_and(|t| t.plb.enabled || t.txrehash))
        .map(|(i, _)| i.to_string())
        .collect();
    if apps.is_empty() {
        return Vec::new();
    }
    // name the key that asked for new labels: plb if any app has it, else txrehash
    let plb = cfg
        .apps
        .iter()
        .any(|a| a.tcp().is_some_and(|t| t.plb.enabled));
    vec![ScenarioError {
        path: if plb { "tcp.plb" } else { "tcp.txrehash" }.into(),
        message: format!(
            "routing mode \"{mode}\" does not hash the flow label, so the new labels of PLB and \
             txrehash move no packet of app{} {} (use \"ecmp\", salted or not, or \"flowlet\")",
            if apps.len() > 1 { "s" } else { "" },
            apps.join(", ")
        ),
    }]
}

/// Entries of `list` (index, time of `key`) at or after `stop`: a warning
/// each, or, past a few, one for them all (a generated workload whose
/// arrivals run past `stop` has thousands, and a warning a line buried the
/// rest of what a run says). `why`: what that means for one, and for many.
fn after_stop(
    late: &[(usize, SimTime)],
    stop: SimTime,
    list: &str,
    key: &str,
    (one, many): (&str, &str),
) -> Vec<ScenarioError> {
    const EACH: usize = 3;
    if late.len() <= EACH {
        return late
            .iter()
            .map(|&(i, t)| ScenarioError {
                path: format!("{list}[{i}].{key}"),
                message: format!("{t} is not before stop ({stop}): {one}"),
            })
            .collect();
    }
    let (first, t) = late[0];
    let last = late.iter().map(|&(_, t)| t).max().unwrap_or(t);
    let named: Vec<String> = late[1..EACH]
        .iter()
        .map(|(i, _)| format!("{list}[{i}]"))
        .collect();
    vec![ScenarioError {
        path: format!("{list}[{first}].{key}"),
        message: format!(
            "{t} is not before stop ({stop}), nor are those of {} more {list} ({}, …, the \
             latest {last}): {many}",
            crate::text::count(late.len() - 1),
            named.join(", ")
        ),
    }]
}

/// A link down for good under per-flow routing, with TCP flows that never
/// draw a new flow label: routing does not react (net/failure.rs), so a
/// flow hashed onto the link stalls, its timer backing off, until `stop`.
fn failure_warnings(cfg: &Config) -> Vec<ScenarioError> {
    use crate::config::RoutingMode;
    // an app that starts at or after `stop` (a UDP source's own `stop` is
    // checked against its start as an error; the run's is the run's)
    let late_apps: Vec<(usize, SimTime)> = cfg
        .apps
        .iter()
        .enumerate()
        .map(|(i, a)| (i, a.start()))
        .filter(|&(_, t)| t >= cfg.stop)
        .collect();
    let mut out = after_stop(
        &late_apps,
        cfg.stop,
        "apps",
        "start",
        (
            "the app never sends, and its flows count as unfinished",
            "they never send, and their flows count as unfinished",
        ),
    );
    let late_failures: Vec<(usize, SimTime)> = cfg
        .failures
        .iter()
        .enumerate()
        .map(|(i, f)| (i, f.at))
        .filter(|&(_, t)| t >= cfg.stop)
        .collect();
    out.extend(after_stop(
        &late_failures,
        cfg.stop,
        "failures",
        "at",
        ("the failure never happens", "they never happen"),
    ));
    // a host whose only link fails has no path to move to: no routing
    // mode or flow label helps, so say so whatever they are
    let t = &cfg.topology;
    let mut degree = vec![0u32; t.nodes.len()];
    for l in &t.links {
        degree[l.a] += 1;
        degree[l.b] += 1;
    }
    let cut_off = |f: &crate::config::FailureSpec| -> Option<usize> {
        if f.loss < 1.0 || f.at >= cfg.stop || f.until < cfg.stop {
            return None;
        }
        f.dlinks.iter().find_map(|&d| {
            let l = &t.links[(d / 2) as usize];
            [l.a, l.b]
                .into_iter()
                .find(|&n| t.nodes[n].kind == crate::config::NodeKind::Host && degree[n] == 1)
        })
    };
    for (i, f) in cfg.failures.iter().enumerate() {
        if let Some(h) = cut_off(f) {
            out.push(ScenarioError {
                path: format!("failures[{i}]"),
                message: format!(
                    "cuts host {} off (the failed link is its only one) from {} until stop: \
                     every flow to or from it stalls, whatever the routing or tcp.txrehash (no \
                     other path exists); give the failure an until before stop to see them \
                     resume",
                    t.nodes[h].name, f.at
                ),
            });
        }
    }
    if matches!(cfg.routing, RoutingMode::Rps | RoutingMode::Flowlet { .. }) {
        return out;
    }
    // under `single` a new flow label moves nothing (one path whatever the
    // label): every TCP flow is pinned, and txrehash is no way out (the
    // warning told a user to set it, then went quiet while the flow stalled)
    let single = cfg.routing == RoutingMode::Single;
    let pinned = cfg
        .apps
        .iter()
        .filter_map(|a| a.tcp())
        .any(|t| t.transport == Transport::Tcp && (single || (!t.txrehash && !t.plb.enabled)));
    if !pinned {
        return out;
    }
    let way_out = if single {
        "routing.mode = \"single\" takes one path whatever the flow label, so tcp.txrehash \
         and PLB cannot move it; give the failure an until, set withdrawn = true or a \
         converge time (routing converged around it), or route by ecmp"
    } else {
        "set tcp.txrehash = true (a new flow label at each timeout, as Linux does), give the \
         failure an until, or set withdrawn = true or a converge time (routing converged \
         around it)"
    };
    out.extend(
        cfg.failures
            .iter()
            .enumerate()
            .filter(|(_, f)| {
                f.loss >= 1.0
                    && cut_off(f).is_none()
                    && f.until == SimTime::MAX
                    && !f.withdrawn
                    && f.converge.is_none()
                    && f.at < cfg.stop
            })
            .map(|(i, _)| ScenarioError {
                path: format!("failures[{i}]"),
                message: format!(
                    "down for good, and routing does not react: a TCP flow whose packets or ACKs \
                     hash onto the link stalls until stop; {way_out}"
                ),
            }),
    );
    out
}

/// `[pfc]` with a switch port whose buffer is smaller than what one of the
/// switch's inputs can bring before its pause takes effect (`xoff`, the
/// link's round trip at line rate, a packet in serialization at each end):
/// that port can drop however the fabric pauses. The worst such port is
/// named.
fn pfc_warnings(cfg: &Config) -> Vec<ScenarioError> {
    let Some(p) = cfg.pfc else {
        return Vec::new();
    };
    let t = &cfg.topology;
    let wire = cfg.full_packet();
    let mut out = Vec::new();
    let xoff = match p.xoff {
        Limit::Bytes(b) => {
            if b < wire {
                out.push(ScenarioError {
                    path: "pfc.xoff".into(),
                    message: format!(
                        "{b} byte{} is less than one full-size packet ({wire} bytes on the wire): \
                         every packet pauses its sender{}",
                        if b == 1 { "" } else { "s" },
                        if b < 1000 {
                            format!(" (did you mean \"{b}pkt\"?)")
                        } else {
                            String::new()
                        }
                    ),
                });
            }
            b
        }
        Limit::Packets(n) => n.saturating_mul(wire),
    };
    let switch = |n: usize| t.nodes[n].kind == crate::config::NodeKind::Switch;
    // per switch, the most one input can bring before its pause acts
    let mut need = vec![0u64; t.nodes.len()];
    for l in &t.links {
        for to in [l.a, l.b] {
            // the world folds switch_delay into a link into a switch, and a
            // PAUSE travels back over that same delay (net/pfc.rs), so the
            // round trip is twice the link's delay plus the switch's
            let one_way = l.delay.0 + if switch(to) { cfg.switch_delay.0 } else { 0 };
            let rtt_bytes =
                (l.rate_bps as u128 * 2 * one_way as u128 / 8 / 1_000_000_000_000) as u64;
            let h = xoff.saturating_add(rtt_bytes).saturating_add(2 * wire);
            need[to] = need[to].max(h);
        }
    }
    let mut worst: Option<(u64, usize, usize)> = None;
    // every port that falls short, so a fabric of them is not told as one
    let mut short = 0usize;
    for l in &t.links {
        for (from, to, q) in [(l.a, l.b, &l.queue_ab), (l.b, l.a, &l.queue_ba)] {
            if !switch(from) {
                continue;
            }
            let bytes = match q.limit {
                Limit::Bytes(b) => b,
                Limit::Packets(n) => n.saturating_mul(wire),
            };
            if bytes < need[from] {
                short += 1;
                if worst.is_none_or(|(b, _, _)| bytes < b) {
                    worst = Some((bytes, from, to));
                }
            }
        }
    }
    let Some((bytes, from, to)) = worst else {
        return out;
    };
    out.push(ScenarioError {
        path: "pfc.xoff".into(),
        message: format!(
            "port {}→{} holds {bytes} bytes, less than one input of {} brings before its pause \
             takes effect ({} bytes: xoff, a round trip at line rate, two packets): it can drop \
             however the fabric pauses{}; raise topology.buffer or lower xoff",
            t.nodes[from].name,
            t.nodes[to].name,
            t.nodes[from].name,
            need[from],
            match short - 1 {
                0 => String::new(),
                1 => " (and so can 1 more port, the smallest named here)".to_string(),
                m => format!(" (and so can {m} more ports, the smallest named here)"),
            }
        ),
    });
    out
}

/// `[trimming]` against the packets it cuts: a header queue that holds
/// something, and a trimmed header smaller than every app's full-size
/// packet (a "trimmed" packet would otherwise grow, or keep its size).
fn trim_checks(ctx: &mut Ctx, t: &TrimConfig, apps: &[AppSpec], l2_overhead: u32) {
    let header = t.header_bytes as u64;
    let wire = header + l2_overhead as u64;
    match t.header_limit {
        Some(Limit::Bytes(0) | Limit::Packets(0)) => ctx.err(
            "trimming.header_buffer",
            "must be above 0: a header queue that holds nothing drops every trimmed header, \
             ACK and pull that finds its port busy",
        ),
        // a limit short of one header holds none either: a port then drops
        // every header, ACK and pull, busy or idle, and no NDP flow ends
        // (htsim's "15 packets" written bare is 15 bytes)
        Some(Limit::Bytes(b)) if b < wire => ctx.err(
            "trimming.header_buffer",
            format!(
                "{b} byte{} is below one trimmed header ({wire} bytes on the wire): the header \
                 queue would hold none, so every trimmed header, ACK and pull would be dropped \
                 and no NDP flow could finish; sizes without a unit are bytes (did you mean \
                 \"{b}pkt\"?)",
                if b == 1 { "" } else { "s" }
            ),
        ),
        _ => {}
    }
    // a transport's full segments only: a UDP source of small datagrams
    // beside them is no misconfiguration (a trimmed packet no larger than
    // the header keeps its size, net/trim.rs)
    let small = apps.iter().enumerate().find_map(|(i, a)| {
        a.tcp()?;
        let wire = a.full_packet()? + l2_overhead as u64;
        (wire <= header).then_some((i, wire))
    });
    if let Some((i, wire)) = small {
        ctx.err(
            "trimming.header",
            format!(
                "a trimmed packet is cut to {header} bytes, but app {i}'s full-size packets are \
                 {wire} bytes on the wire: trimming would not shrink them; give a header below \
                 {wire} bytes (htsim's NDP: 64B)"
            ),
        );
    }
}

/// A host named `hN` that is not host N: apps, `pcap.hosts` and the pcap
/// files (`h0.pcap`) number hosts in the order the nodes list them, so a
/// custom topology that named its first host `h1` had host 0's trace in
/// `h0.pcap` and an app's `src = 1` on the node named `h2` (audit of
/// 2026-12-07). Built-in topologies name each host by its number.
fn host_name_warnings(cfg: &Config) -> Vec<ScenarioError> {
    let nodes = &cfg.topology.nodes;
    let off: Vec<(usize, usize, usize)> = cfg
        .topology
        .hosts()
        .into_iter()
        .enumerate()
        .filter_map(|(i, n)| {
            let num = nodes[n].name.strip_prefix('h')?.parse::<usize>().ok()?;
            (num != i).then_some((n, i, num))
        })
        .collect();
    let Some(&(n, i, num)) = off.first() else {
        return Vec::new();
    };
    vec![ScenarioError {
        path: format!("topology.nodes[{n}].name"),
        message: format!(
            "\"h{num}\" is host {i}: hosts are numbered in the order the nodes list them, and \
             apps, `pcap.hosts` and the pcap files (h{i}.pcap) use that number{}; name it \"h{i}\" \
             or list the hosts in their names' order",
            if off.len() > 1 {
                format!(" ({} hosts are named so)", off.len())
            } else {
                String::new()
            }
        ),
    }]
}

/// A response (`partition_aggregate.response`), SRU (`sync_reads.sru`) or
/// bulk flow's `size` under 1000 bytes and under one segment: a size
/// written bare is bytes,
/// and `sru = 256` (Kulkarni's 256 KB) or `response = 10` validated as 256
/// and 10 bytes without a word, as a buffer of `100` would have been
/// warned of. A small request-response study may mean it; the warning
/// says how to write the other.
fn tiny_app_size_warnings(cfg: &Config) -> Vec<ScenarioError> {
    cfg.apps
        .iter()
        .enumerate()
        .filter_map(|(i, a)| {
            let (key, b, mss) = match a {
                AppSpec::PartitionAggregate {
                    response_bytes,
                    tcp,
                    ..
                } => ("response", *response_bytes, tcp.mss as u64),
                AppSpec::SyncReads { sru_bytes, tcp, .. } => ("sru", *sru_bytes, tcp.mss as u64),
                // a bulk flow's size: "10" for 10 MB or 10 GB is the slip
                AppSpec::Bulk {
                    amount: BulkAmount::Bytes(b),
                    tcp,
                    ..
                } => ("size", *b, tcp.mss as u64),
                _ => return None,
            };
            (b < 1000 && b < mss).then(|| ScenarioError {
                path: format!("apps[{i}].{key}"),
                message: format!(
                    "{b} byte{} is less than one segment (mss {mss}): sizes without a unit are \
                     bytes (did you mean \"{b}KB\"?)",
                    if b == 1 { "" } else { "s" }
                ),
            })
        })
        .collect()
}

/// A header queue (`trimming.header_buffer`) in bytes that holds less than
/// one full-size packet: a count of packets written bare (htsim's "100
/// packets" as `100`) holds a header or two, and the incast that needed
/// the queue runs on timeouts (`header_buffer = 100`: 827 timeouts and a
/// QCT of 450 ms where `"100pkt"` had none and 2.7 ms). As the other
/// queue limits warn below one packet; a limit short of one header is
/// refused ([`trim_checks`]).
fn header_buffer_warnings(cfg: &Config) -> Vec<ScenarioError> {
    let Some(t) = &cfg.trimming else {
        return Vec::new();
    };
    let Some(Limit::Bytes(b)) = t.header_limit else {
        return Vec::new();
    };
    let header = t.header_bytes as u64 + cfg.l2_overhead as u64;
    let full = cfg.full_packet();
    if b < header || b >= full || b >= 1000 {
        return Vec::new();
    }
    let n = b / header;
    vec![ScenarioError {
        path: "trimming.header_buffer".into(),
        message: format!(
            "{b} bytes hold {n} trimmed header{} ({header} bytes on the wire), less than one \
             full-size packet ({full} bytes): a burst of trimmed headers, ACKs and pulls \
             overflows it; sizes without a unit are bytes (did you mean \"{b}pkt\"?)",
            if n == 1 { "" } else { "s" }
        ),
    }]
}

/// NDP without trimming: a data packet that overflows a queue is lost
/// silently and waits for `ndp_rto`; NDP assumes switches trim.
fn ndp_warnings(cfg: &Config) -> Vec<ScenarioError> {
    if cfg.trimming.is_some() {
        // (a header queue short of one header is refused: trim_checks)
        return Vec::new();
    }
    // one warning where the transport was set (tcp.transport for the
    // apps that take it from [tcp]), naming its apps, not one per app
    let ndp = cfg
        .apps
        .iter()
        .enumerate()
        .filter(|(_, a)| a.tcp().is_some_and(|t| t.transport == Transport::Ndp))
        .map(|(i, _)| (i, ()));
    by_origin(cfg, "transport", ndp)
        .into_iter()
        .map(|(path, (), apps)| ScenarioError {
            path,
            // `enabled = false` leaves no trimming, as an absent table does:
            // the message must not tell that user the table is missing
            message: format!(
                "\"ndp\" without trimming (no [trimming] table, or trimming.enabled = false) \
                 for {}: switches drop instead of trimming, so every overflow waits for ndp_rto",
                apps_text(&apps)
            ),
        })
        .collect()
}

/// `ecn_kmax` against the ports it ramps from: some port marks, and every
/// marking port's `ecn_k` is in the unit of `ecn_kmax` and below it.
fn ramp_checks(ctx: &mut Ctx, r: &EcnRamp, t: &TopologySpec) {
    let ks: Vec<Limit> = t
        .links
        .iter()
        .flat_map(|l| [&l.queue_ab, &l.queue_ba])
        .filter_map(|q| q.ecn_k)
        .collect();
    if ks.is_empty() {
        ctx.err(
            "topology.ecn_kmax",
            "RED's ramp starts at each port's ecn_k, and no port has one: set ecn_k",
        );
        return;
    }
    if let Some(k) = ks.iter().find(|k| limit_unit(**k) != limit_unit(r.kmax)) {
        ctx.err(
            "topology.ecn_kmax",
            format!(
                "ecn_kmax is in {} and an ecn_k in {} ({}): give both in one unit",
                limit_unit(r.kmax),
                limit_unit(*k),
                limit_text(*k)
            ),
        );
        return;
    }
    let val = |l: &Limit| match *l {
        Limit::Bytes(b) | Limit::Packets(b) => b,
    };
    if let Some(k) = ks.iter().find(|k| val(k) >= val(&r.kmax)) {
        ctx.err(
            "topology.ecn_kmax",
            format!(
                "ecn_kmax ({}) must be above every port's ecn_k (K_min), and one is {}",
                limit_text(r.kmax),
                limit_text(*k)
            ),
        );
    }
}

/// RED's ramp ending at or above a marking port's buffer: the queue
/// overflows before the marking probability reaches `ecn_pmax`, so the
/// ramp's top is never used (compared in one unit, packets as full-size
/// ones where the two differ).
fn ramp_warnings(cfg: &Config) -> Vec<ScenarioError> {
    let Some(r) = cfg.ecn_ramp else {
        return Vec::new();
    };
    let full = cfg.full_packet().max(1);
    let bytes = |l: Limit| match l {
        Limit::Bytes(b) => b,
        Limit::Packets(p) => p.saturating_mul(full),
    };
    let mut over: Vec<(Limit, usize)> = Vec::new();
    for q in cfg
        .topology
        .links
        .iter()
        .flat_map(|l| [&l.queue_ab, &l.queue_ba])
        .filter(|q| q.ecn_k.is_some() && !q.limit.is_unlimited())
    {
        let above = match (r.kmax, q.limit) {
            (Limit::Packets(k), Limit::Packets(p)) => k >= p,
            (Limit::Bytes(k), Limit::Bytes(b)) => k >= b,
            (k, b) => bytes(k) >= bytes(b),
        };
        if above {
            match over.iter_mut().find(|(l, _)| *l == q.limit) {
                Some((_, n)) => *n += 1,
                None => over.push((q.limit, 1)),
            }
        }
    }
    over.into_iter()
        .map(|(limit, n)| ScenarioError {
            path: "topology.ecn_kmax".into(),
            message: format!(
                "ecn_kmax ({}) is not below the buffer of {n} marking queue{} ({}): the queue \
                 overflows before RED's marking probability reaches ecn_pmax ({}); set ecn_kmax \
                 below the buffer for the whole ramp",
                limit_text(r.kmax),
                if n == 1 { "" } else { "s" },
                limit_text(limit),
                r.pmax
            ),
        })
        .collect()
}

/// DCQCN where no switch queue marks: no CNP is ever sent, so every flow
/// sends at line rate whatever the queues do.
fn dcqcn_warnings(cfg: &Config) -> Vec<ScenarioError> {
    let marks = cfg
        .topology
        .links
        .iter()
        .flat_map(|l| [&l.queue_ab, &l.queue_ba])
        .any(|q| q.ecn_k.is_some());
    // a trimming port trims where it would mark (net/trim.rs)
    let trims = cfg.trimming.is_some();
    if marks && !trims {
        return Vec::new();
    }
    let apps: Vec<usize> = cfg
        .apps
        .iter()
        .enumerate()
        .filter(|(_, a)| a.tcp().is_some_and(|t| t.transport == Transport::Dcqcn))
        .map(|(i, _)| i)
        .collect();
    let Some(&first) = apps.first() else {
        return Vec::new();
    };
    let others = match apps.len() {
        1 => String::new(),
        n => format!(" (and {} more apps)", crate::text::count(n - 1)),
    };
    let message = if trims {
        format!(
            "\"dcqcn\"{others} with [trimming]: a trimming port trims instead of marking, \
             so no CNP is sent, every flow sends at line rate, and each trimmed packet is a \
             loss go-back-N resends everything after; DCQCN runs over ECN marks (and PFC)"
        )
    } else {
        format!(
            "\"dcqcn\"{others} where no queue has an ecn_k: nothing is marked, no CNP is \
             sent, and every flow sends at line rate; set the topology's ecn_k (DCQCN's \
             paper marks from Kmin = 5 KB)"
        )
    };
    vec![ScenarioError {
        path: tcp_key_path(cfg, first, "transport"),
        message,
    }]
}

/// The links with a host at one end: every path starts on one and ends on
/// one, so their rates and delays bound every flow's.
fn host_links(cfg: &Config) -> impl Iterator<Item = &crate::config::LinkSpec> {
    topology_host_links(&cfg.topology)
}

fn topology_host_links(t: &TopologySpec) -> impl Iterator<Item = &crate::config::LinkSpec> {
    let nodes = &t.nodes;
    t.links.iter().filter(move |l| {
        [l.a, l.b]
            .iter()
            .any(|&n| nodes[n].kind == crate::config::NodeKind::Host)
    })
}

/// A bound on every path's unloaded RTT: `hops` (the longest shortest
/// path's, [`crate::stats::limits::path_hops`]) each at the longest link
/// delay both ways and the slowest link's serialization of a `data`-byte
/// packet one way and a `ack`-byte ACK back.
fn rtt_upper_bound(topo: &TopologySpec, hops: u64, data: u64, ack: u64) -> SimTime {
    let slowest = topo
        .links
        .iter()
        .map(|l| l.rate_bps)
        .min()
        .unwrap_or(1)
        .max(1);
    let longest = topo
        .links
        .iter()
        .map(|l| l.delay)
        .max()
        .unwrap_or(SimTime::ZERO);
    let tx = |bytes: u64| (bytes as u128 * 8_000_000_000_000 / slowest as u128) as u64;
    SimTime((longest.0 * 2 + tx(data) + tx(ack)).saturating_mul(hops))
}

/// The keys of table `table` that `errs` (its parse's errors) refused. A
/// cross-key check reads a refused key's default in its place, so one
/// involving it would blame a value the user never wrote (an unknown
/// transport also drew "plb … needs cc = 'dctcp' (cc is 'newreno')").
pub(super) fn bad_keys(errs: &[ScenarioError], table: &str) -> Vec<String> {
    errs.iter()
        .filter_map(|e| e.path.strip_prefix(table)?.strip_prefix('.'))
        .map(|k| k.split(['.', '[']).next().unwrap_or(k).to_string())
        .collect()
}

/// The fixed retransmission timers (NDP's, DCQCN's, TIMELY's, HPCC's):
/// transport, key, and the timer of a resolved config.
type Timer = fn(&TcpConfig) -> SimTime;
const FIXED_TIMERS: [(Transport, &str, Timer); 4] = [
    (Transport::Ndp, "ndp_rto", |t| t.ndp.rto),
    (Transport::Dcqcn, "dcqcn_rto", |t| t.dcqcn.rto),
    (Transport::Timely, "timely_rto", |t| t.timely.rto),
    (Transport::Hpcc, "hpcc_rto", |t| t.hpcc.rto),
];

/// The time `rate_bps` takes to send `bytes`, saturating at the clock's
/// end: the checks read any rate a file gives (`1bps` and a 100 MB
/// buffer overflow the per-packet [`crate::sim::time::tx_time`]).
fn tx_saturating(bytes: u64, rate_bps: u64) -> SimTime {
    SimTime(
        (bytes as u128 * 8_000_000_000_000 / rate_bps.max(1) as u128).min(u64::MAX as u128) as u64,
    )
}

/// The time the fastest host link takes to send `bytes` (a lower bound on
/// any host's serialization of them).
fn fastest_host_tx(cfg: &Config, bytes: u64) -> SimTime {
    tx_saturating(
        bytes,
        host_links(cfg).map(|l| l.rate_bps).max().unwrap_or(1),
    )
}

/// Each fixed timer ([`FIXED_TIMERS`]) of an app of its transport set
/// below `bound(t)`, as one error per place it was set: "KEY (VALUE) of
/// APPS is " and what `says` of the bound. A value the user may never have
/// written is said to be the default.
fn fixed_timers_below(
    cfg: &Config,
    bound: impl Fn(&TcpConfig) -> SimTime,
    says: impl Fn(SimTime) -> String,
) -> Vec<ScenarioError> {
    let defaults = TcpConfig::default();
    let mut out = Vec::new();
    for (transport, key, rto) in FIXED_TIMERS {
        let default = rto(&defaults);
        let low = cfg.apps.iter().enumerate().filter_map(|(i, a)| {
            let t = a.tcp().filter(|t| t.transport == transport)?;
            let b = bound(t);
            (rto(t) < b).then_some((i, (rto(t), b)))
        });
        out.extend(
            by_origin(cfg, key, low)
                .into_iter()
                .map(|(path, (t, b), apps)| ScenarioError {
                    path,
                    message: format!(
                        "{key} ({t}{}) of {} is {}",
                        if t == default { ", its default" } else { "" },
                        apps_text(&apps),
                        says(b)
                    ),
                }),
        );
    }
    out
}

/// A fixed retransmission timer, or Kulkarni's retransmit thread, shorter
/// than the fastest host link takes to send one full-size packet: each
/// expiry resends faster than anything resent can leave, the NIC's queue
/// and the events grow without bound, and the run never reaches `stop`
/// (`ndp_rto = "1ps"` ran a 10 µs incast past a minute and 3 GB). Refused;
/// a timer merely below the paths' RTT is warned of
/// ([`timer_below_rtt_warnings`]).
fn timer_floor_errors(cfg: &Config) -> Vec<ScenarioError> {
    if host_links(cfg).next().is_none() {
        return Vec::new();
    }
    let l2 = cfg.l2_overhead as u64;
    let mut out = fixed_timers_below(
        cfg,
        |t| fastest_host_tx(cfg, t.mss as u64 + t.header_bytes as u64 + l2),
        |one| {
            format!(
                "shorter than the fastest host link takes to send one full packet ({one}): each \
                 expiry would resend faster than anything resent can leave, and the run would \
                 never reach stop; give a timer above the largest RTT"
            )
        },
    );
    let thread = cfg.apps.iter().enumerate().filter_map(|(i, a)| {
        let t = a
            .tcp()
            .filter(|t| t.transport == Transport::Tcp && t.probretx.p > 0.0)?;
        let one = fastest_host_tx(cfg, t.header_bytes as u64 + l2 + 1);
        (t.probretx.period < one).then_some((i, (t.probretx.period, one)))
    });
    out.extend(
        by_origin(cfg, "probretx_period", thread)
            .into_iter()
            .map(|(path, (t, one), apps)| ScenarioError {
                path,
                message: format!(
                    "probretx_period ({t}) of {} is shorter than the fastest host link takes to send the \
                     smallest segment ({one}): the retransmit thread would run faster than \
                     anything it resends can leave, so the run would never reach stop \
                     (the dissertation's period is 20us)",
                    apps_text(&apps)
                ),
            }),
    );
    out
}

/// A fixed retransmission timer below the unloaded RTT of every path:
/// every packet is sent again before its answer can arrive, and again at
/// each expiry, as long as the timer stays below the RTT (`ndp_rto =
/// "1us"` at 100 Gbps filled 16 GB before `limits.memory` stopped it). A
/// bound below every RTT: twice the least a packet takes one way
/// ([`crate::stats::limits::least_one_way`]: a host-to-host link's delay,
/// or two host links' and a switch's) and a header's serialization each
/// way at the fastest host link. Warned, not refused: a timer somewhat
/// below a long path's RTT resends each packet a few times and finishes.
fn timer_below_rtt_warnings(cfg: &Config) -> Vec<ScenarioError> {
    let Some(one_way) = crate::stats::limits::least_one_way(cfg) else {
        return Vec::new();
    };
    let l2 = cfg.l2_overhead as u64;
    fixed_timers_below(
        cfg,
        |t| {
            let tx = fastest_host_tx(cfg, t.header_bytes as u64 + l2);
            SimTime(one_way.0.saturating_add(tx.0).saturating_mul(2))
        },
        |bound| {
            format!(
                "below the unloaded RTT of every path (at least {bound}): every packet is sent \
                 again before its answer can arrive, and again at each expiry; give a timer \
                 above the largest RTT"
            )
        },
    )
}

/// TIMELY over switch ports, without PFC, whose buffer drains in less
/// than `timely_t_low`: TIMELY cuts only on an RTT gradient or an RTT
/// above T_high, and a queue cannot add more delay than its buffer drains
/// in, so such a port drops before the RTT says anything (a 200 KB port at
/// 100 Gbps, 16 µs against T_low = 50 µs: 400,909 drops and 1,060
/// timeouts, 2 of 5 queries done in 100 ms, where PFC's ran in 4.85 ms).
/// A packet limit is read at the full packet's size.
fn timely_shallow_port_warnings(cfg: &Config) -> Vec<ScenarioError> {
    if cfg.pfc.is_some() {
        return Vec::new();
    }
    // a TIMELY study: with other transports beside it, which ports its
    // flows cross is not known here, and another's shallow ports are not
    // TIMELY's to warn of
    let tcp_apps: Vec<(usize, &TcpConfig)> = cfg
        .apps
        .iter()
        .enumerate()
        .filter_map(|(i, a)| a.tcp().map(|t| (i, t)))
        .collect();
    if tcp_apps.is_empty()
        || tcp_apps
            .iter()
            .any(|(_, t)| t.transport != Transport::Timely)
    {
        return Vec::new();
    }
    let Some(&(app, t)) = tcp_apps.iter().min_by_key(|(_, t)| t.timely.t_low) else {
        return Vec::new();
    };
    let t_low = t.timely.t_low;
    // a path whose own round trip may reach T_low needs no queue to: the
    // other warning (timely_path_rtt_over_t_low) speaks there
    let hops = crate::stats::limits::path_hops(&cfg.topology);
    let header = t.header_bytes as u64 + cfg.l2_overhead as u64;
    let base = rtt_upper_bound(&cfg.topology, hops, t.mss as u64 + header, header);
    let nodes = &cfg.topology.nodes;
    let switch = |v: usize| nodes[v].kind != crate::config::NodeKind::Host;
    let full = cfg.full_packet();
    let mut ports = 0usize;
    let mut shallow: Vec<(SimTime, u64, u64)> = Vec::new();
    for l in &cfg.topology.links {
        for (at, q) in [(l.a, &l.queue_ab), (l.b, &l.queue_ba)] {
            if !switch(at) {
                continue;
            }
            ports += 1;
            let bytes = match q.limit {
                Limit::Bytes(b) => b,
                Limit::Packets(n) => n.saturating_mul(full),
            };
            let drain = tx_saturating(bytes, l.rate_bps);
            if drain.0.saturating_add(base.0) < t_low.0 {
                shallow.push((drain, bytes, l.rate_bps));
            }
        }
    }
    let Some(&(drain, bytes, rate)) = shallow.iter().min() else {
        return Vec::new();
    };
    vec![ScenarioError {
        path: tcp_key_path(cfg, app, "timely_t_low"),
        message: format!(
            "{} of {ports} switch ports drain their buffer in less than timely_t_low ({t_low}) \
             less the longest unloaded RTT ({base} at most), the least in {drain} ({bytes} \
             bytes at {}), and there is no [pfc]: a queue there cannot bring an RTT to T_low, \
             so it drops before TIMELY's RTT calls for a cut (docs/timely.md); give the ports \
             more buffer, turn on [pfc], or lower timely_t_low",
            shallow.len(),
            failures::bps_text(rate)
        ),
    }]
}

/// HPCC's additive increase W_AI at or above W_init = line rate × T, the
/// window's cap: ComputeWind's W = W_c/(U/η) + W_AI can then never fall
/// below W_init, so the window stays there and the flow is paced at line
/// rate whatever INT reports — no congestion control at all. W_init is
/// each flow's own (its NIC's rate; its path's unloaded RTT unless
/// `hpcc_base_rtt`), known only once routes are built, so a W_AI is
/// refused only at or above the largest W_init any flow can have: the
/// fastest host link times T, or times a bound on every path's RTT (the
/// longest shortest path's hops, each at the longest delay and the
/// slowest serialization, data one way and its ACK back).
fn hpcc_w_ai_checks(
    ctx: &mut Ctx,
    topo: &TopologySpec,
    apps: &[AppSpec],
    raw_apps: Option<&Value>,
    l2: u32,
) {
    let Some(rate) = topology_host_links(topo).map(|l| l.rate_bps).max() else {
        return;
    };
    let hops = crate::stats::limits::path_hops(topo);
    for (i, a) in apps.iter().enumerate() {
        let Some(t) = a.tcp().filter(|t| t.transport == Transport::Hpcc) else {
            continue;
        };
        let w_ai = t.hpcc.w_ai;
        if w_ai == 0 {
            continue; // the paper's W_init·(1 − η)/N
        }
        let header = t.header_bytes as u64 + l2 as u64;
        let (rtt, what) = if t.hpcc.base_rtt > SimTime::ZERO {
            let t = t.hpcc.base_rtt;
            (t, format!("hpcc_base_rtt {t}"))
        } else {
            let bound = rtt_upper_bound(topo, hops, t.mss as u64 + header, header);
            (bound, format!("T, a path's unloaded RTT, at most {bound}"))
        };
        let w_init = rate as f64 * rtt.0 as f64 / 8e12;
        if (w_ai as f64) < w_init {
            continue;
        }
        let own = own_tcp(raw_apps, i).is_some_and(|o| o.contains_key("hpcc_w_ai"));
        let path = written_path(own, i, "hpcc_w_ai");
        if ctx.errs.iter().any(|e| e.path == path) {
            continue;
        }
        ctx.err(
            path,
            format!(
                "{w_ai} bytes is not below W_init = line rate × T, the window's cap (at most \
                 {} bytes: {} × {what}): HPCC's W = W_c/(U/η) + W_AI then never falls \
                 below W_init, so every window stays there and every flow is paced at line \
                 rate whatever INT reports; the paper's W_AI is W_init·(1 − η)/N, a small part \
                 of it (leave hpcc_w_ai out for that)",
                w_init.floor(),
                failures::bps_text(rate),
            ),
        );
    }
}

/// A DCQCN or TIMELY rate floor (`dcqcn_min_rate`, `timely_min_rate`) at
/// or above the line rate of every host: a cut can never take a sender
/// below it, so the scheme sends at line rate whatever it hears (the
/// floor is clamped to the sender's line rate, tcp/dcqcn.rs).
fn rate_floor_warnings(cfg: &Config) -> Vec<ScenarioError> {
    let fastest = host_links(cfg).map(|l| l.rate_bps).max().unwrap_or(0);
    let mut out = Vec::new();
    for (transport, key) in [
        (Transport::Dcqcn, "dcqcn_min_rate"),
        (Transport::Timely, "timely_min_rate"),
    ] {
        let high = cfg.apps.iter().enumerate().filter_map(|(i, a)| {
            let t = a.tcp().filter(|t| t.transport == transport)?;
            let floor = match transport {
                Transport::Dcqcn => t.dcqcn.min_rate_bps,
                _ => t.timely.min_rate_bps,
            };
            // 0: the default, a thousandth of the line rate
            (floor > 0 && floor >= fastest).then_some((i, floor))
        });
        for (path, floor, apps) in by_origin(cfg, key, high) {
            out.push(ScenarioError {
                path,
                message: format!(
                    "{key} ({}) of {} is not below any host's line rate ({}): no cut can \
                     slow a sender, so every flow of {} sends at line rate whatever the \
                     network says",
                    failures::bps_text(floor),
                    apps_text(&apps),
                    failures::bps_text(fastest),
                    if apps.len() > 1 { "them" } else { "it" }
                ),
            });
        }
    }
    out
}

/// The slowest and fastest NIC among the hosts an app's flows leave from
/// (its data senders, and its client or aggregator for the requests): the
/// transports' rate defaults are fractions of each flow's own source NIC
/// (world.rs hands it to the flow), not of the fabric's fastest host.
fn sender_nic_range(nic: &[u64], a: &AppSpec) -> Option<(u64, u64)> {
    let hosts: Vec<usize> = match a {
        AppSpec::Bulk { src, .. } | AppSpec::UdpCbr { src, .. } => vec![*src],
        AppSpec::PartitionAggregate {
            aggregator,
            workers,
            ..
        } => workers.iter().copied().chain([*aggregator]).collect(),
        AppSpec::SyncReads {
            client, servers, ..
        } => servers.iter().copied().chain([*client]).collect(),
        AppSpec::Poisson(p) => p.sources.clone(),
    };
    let rates = hosts.iter().filter_map(|&h| nic.get(h).copied());
    rates.fold(None, |r, x| match r {
        None => Some((x, x)),
        Some((lo, hi)) => Some((lo.min(x), hi.max(x))),
    })
}

/// Each host's NIC rate, by host index (the rate of its link).
fn host_nic_rates(cfg: &Config) -> Vec<u64> {
    let t = &cfg.topology;
    let mut by_node = vec![0u64; t.nodes.len()];
    for l in host_links(cfg) {
        for n in [l.a, l.b] {
            if t.nodes[n].kind == crate::config::NodeKind::Host {
                by_node[n] = l.rate_bps;
            }
        }
    }
    t.hosts().into_iter().map(|n| by_node[n]).collect()
}

/// A TIMELY hyper-active increase (`timely_rhai`) below its additive one
/// (`timely_rai`, by default a thousandth of the sender's line rate):
/// valid, since the rate still grows, but the paper's hyper-active mode
/// is a larger step (N·δ, N = 5) taken after increases in a row, so a
/// smaller one slows TIMELY exactly when the path has room. Equal steps
/// are the way to turn the mode off, and stay silent.
fn timely_hai_warnings(cfg: &Config) -> Vec<ScenarioError> {
    let nic = host_nic_rates(cfg);
    let slow = cfg.apps.iter().enumerate().filter_map(|(i, a)| {
        let t = a.tcp().filter(|t| t.transport == Transport::Timely)?;
        let (rai, rhai) = (t.timely.rai_bps, t.timely.rhai_bps);
        // 0: a default; rhai's (5 × rai) is never below rai, rai's is
        // its sender's line rate / 1000, at most the app's fastest sender's
        let (_, fastest) = sender_nic_range(&nic, a)?;
        let step = if rai > 0 { rai } else { fastest / 1000 };
        (rhai > 0 && rhai < step).then_some((i, (rhai, rai, step)))
    });
    by_origin(cfg, "timely_rhai", slow)
        .into_iter()
        .map(|(path, (rhai, rai, step), apps)| ScenarioError {
            path,
            message: format!(
                "timely_rhai ({}) of {} is below timely_rai ({}): after timely_hai_after \
                 increases in a row TIMELY steps by timely_rhai instead, so its hyper-active \
                 increase (the paper's N·δ, N = 5) would be slower than the additive one; give \
                 timely_rhai at least timely_rai (equal turns the hyper-active mode off)",
                failures::bps_text(rhai),
                apps_text(&apps),
                if rai > 0 {
                    failures::bps_text(rai)
                } else {
                    format!(
                        "{}, the default: the line rate / 1000",
                        failures::bps_text(step)
                    )
                }
            ),
        })
        .collect()
}

/// A DCQCN hyper increase (`dcqcn_rhai`, R_HAI) below its additive one
/// (`dcqcn_rai`, R_AI): valid, since the rate still grows, but DCQCN's
/// hyper-increase stage, entered once both the byte counter and the timer
/// have passed F stages without a cut, is meant to reclaim bandwidth
/// faster (its defaults, the line rate / 10 and / 20, keep R_HAI twice
/// R_AI), so a smaller step slows DCQCN exactly when the path has room.
/// Named at the key the user set: `dcqcn_rhai`, or `dcqcn_rai` raised
/// above the default R_HAI. Equal steps stay silent.
fn dcqcn_hai_warnings(cfg: &Config) -> Vec<ScenarioError> {
    let nic = host_nic_rates(cfg);
    // (app, rhai, rai, rhai given) where the hyper step is the smaller
    let slow: Vec<(usize, (u64, u64, bool))> = cfg
        .apps
        .iter()
        .enumerate()
        .filter_map(|(i, a)| {
            let t = a.tcp().filter(|t| t.transport == Transport::Dcqcn)?;
            let (rai, rhai) = (t.dcqcn.rai_bps, t.dcqcn.rhai_bps);
            let given = rhai > 0;
            if rai == 0 && !given {
                // both defaults, of one sender's rate: R_HAI is twice R_AI
                return None;
            }
            // a default is a fraction of each sender's line rate
            // (tcp/dcqcn.rs): the app's worst sender for the comparison
            let (slowest, fastest) = sender_nic_range(&nic, a)?;
            let rai = if rai > 0 { rai } else { fastest / 20 };
            let rhai = if given { rhai } else { slowest / 10 };
            (rhai < rai).then_some((i, (rhai, rai, given)))
        })
        .collect();
    let mut out = Vec::new();
    for given in [true, false] {
        let key = if given { "dcqcn_rhai" } else { "dcqcn_rai" };
        let found = slow.iter().filter(|(_, v)| v.2 == given).copied();
        for (path, (rhai, rai, _), apps) in by_origin(cfg, key, found) {
            let rhai = if given {
                failures::bps_text(rhai)
            } else {
                format!(
                    "{}, the default: the line rate / 10",
                    failures::bps_text(rhai)
                )
            };
            out.push(ScenarioError {
                path,
                message: format!(
                    "dcqcn_rhai ({rhai}) of {} is below dcqcn_rai ({}): DCQCN's hyper-increase \
                     stage (after dcqcn_f stages of both its byte counter and its timer without \
                     a cut) steps by dcqcn_rhai, so it would reclaim bandwidth more slowly than \
                     the additive stage before it; give dcqcn_rhai at least dcqcn_rai",
                    apps_text(&apps),
                    failures::bps_text(rai),
                ),
            });
        }
    }
    out
}

/// An HPCC base RTT below the unloaded RTT of every path: W_init = line
/// rate × T, the window's cap, is then below every path's
/// bandwidth-delay product, so no flow reaches more than T / RTT of its
/// line rate (with 1 µs links a T of 1 µs held two flows of a fat-tree to
/// 9 Gbps). Every path crosses two host links each way, so four times the
/// shortest host link's delay bounds every RTT from below.
fn hpcc_base_rtt_warnings(cfg: &Config) -> Vec<ScenarioError> {
    let Some(shortest) = host_links(cfg).map(|l| l.delay).min() else {
        return Vec::new();
    };
    let bound = SimTime(shortest.0.saturating_mul(4));
    let hpcc = || {
        cfg.apps.iter().enumerate().filter_map(|(i, a)| {
            let t = a.tcp().filter(|t| t.transport == Transport::Hpcc)?;
            (t.hpcc.base_rtt > SimTime::ZERO).then_some((i, t))
        })
    };
    let low = hpcc().filter_map(|(i, t)| (t.hpcc.base_rtt < bound).then_some((i, t.hpcc.base_rtt)));
    let mut out: Vec<ScenarioError> = by_origin(cfg, "hpcc_base_rtt", low)
        .into_iter()
        .map(|(path, t, apps)| ScenarioError {
            path,
            message: format!(
                "hpcc_base_rtt ({t}) of {} is below the unloaded RTT of every path (at \
                 least {bound}: two host links each way): W_init = line rate × T is below a \
                 path's bandwidth-delay product, so no flow reaches more than T / RTT of its \
                 line rate; leave it out (the flow's own path RTT) or give the largest RTT",
                apps_text(&apps)
            ),
        })
        .collect();
    if hpcc().all(|(_, t)| t.hpcc.base_rtt < bound) {
        return out; // no T above the floor: spare the path search
    }
    let hops = crate::stats::limits::path_hops(&cfg.topology);
    let l2 = cfg.l2_overhead as u64;
    let high = hpcc().filter_map(|(i, t)| {
        let header = t.header_bytes as u64 + l2;
        let most = rtt_upper_bound(&cfg.topology, hops, t.mss as u64 + header, header);
        let far = most > SimTime::ZERO && t.hpcc.base_rtt.0 / HPCC_T_FAR > most.0;
        far.then_some((i, (t.hpcc.base_rtt, most)))
    });
    out.extend(
        by_origin(cfg, "hpcc_base_rtt", high)
            .into_iter()
            .map(|(path, (t, most), apps)| ScenarioError {
                path,
                message: format!(
                    "hpcc_base_rtt ({t}) of {} is more than {HPCC_T_FAR} times the longest \
                 unloaded RTT any path can have (at most {most}), where the paper's T is the \
                 largest one: W_init = line rate × T, each flow's first window and its cap, \
                 is then that many bandwidth-delay products, and U's queue term \
                 qlen / (line rate × T) that much weaker, so queues stand where HPCC keeps \
                 them near empty (four flows into one 100 Gbps port, T = 1 ms: a mean queue \
                 of 7.9 MB against 14 KB at 12 µs; docs/hpcc.md, \"T\"); leave it out (each \
                 flow's own path RTT) or give the largest RTT",
                    apps_text(&apps)
                ),
            }),
    );
    out
}

/// How many times every path's RTT bound an `hpcc_base_rtt` may be before
/// it is warned about: a T a few times the largest RTT (htsim's 12 µs on
/// a small fabric) still holds a port's queue near empty; at 9 times a
/// four-flow incast's utilisation fell to 0.84 and its mean queue grew
/// 4.5-fold (docs/hpcc.md, "T").
const HPCC_T_FAR: u64 = 8;

/// Marking thresholds on a network whose packets are never ECN-capable:
/// no TCP app has `ecn` (or an ECN-based cc) and UDP apps send none.
fn unmarked_warning(cfg: &Config) -> Option<ScenarioError> {
    let queues = cfg
        .topology
        .links
        .iter()
        .flat_map(|l| [&l.queue_ab, &l.queue_ba])
        .filter(|q| q.ecn_k.is_some() && q.non_ect == NonEct::Queue)
        .count();
    let tcps = || cfg.apps.iter().filter_map(|a| a.tcp());
    // only TCP reads `ecn` and `cc`: NDP, Swift, HPCC and TIMELY send no
    // ECN-capable packet whatever they say, DCQCN's always are
    let ect = |t: &TcpConfig| match t.transport {
        Transport::Tcp => t.ecn || t.cc.needs_ecn(),
        other => other == Transport::Dcqcn,
    };
    if queues == 0 || tcps().any(ect) {
        return None;
    }
    let (mut ccs, mut others): (Vec<&str>, Vec<&str>) = (Vec::new(), Vec::new());
    for t in tcps() {
        // NDP, Swift and HPCC send no ECN-capable packet whatever tcp.cc says
        let (list, name) = match t.transport {
            Transport::Tcp => (&mut ccs, t.cc.name()),
            other => (&mut others, values::name_of(values::TRANSPORT_NAMES, other)),
        };
        if !list.contains(&name) {
            list.push(name);
        }
    }
    let mut senders: Vec<String> = Vec::new();
    if !ccs.is_empty() {
        senders.push(format!("tcp.cc = {} with tcp.ecn = false", ccs.join(", ")));
    }
    if !others.is_empty() {
        senders.push(format!(
            "tcp.transport = {}, which reads no ECN",
            others.join(", ")
        ));
    }
    if senders.is_empty() {
        senders.push("the apps send UDP".to_string());
    }
    // a fix that applies to what the apps run: tcp.ecn and cc are read by
    // TCP alone, so following a hint never just brings another warning
    let ecn_tcp = "tcp.ecn = true (RFC 3168) or an ECN-based cc (dctcp, fast)";
    let fix = match (ccs.is_empty(), others.is_empty()) {
        (false, true) => format!("set {ecn_tcp}, or transport dcqcn, to use it"),
        (true, false) => {
            format!("set tcp.transport = dcqcn, or tcp with {ecn_tcp}, to use it")
        }
        (false, false) => {
            format!("set {ecn_tcp} for the TCP apps, or transport dcqcn, to use it")
        }
        (true, true) => {
            format!("only apps over TCP with {ecn_tcp}, or over DCQCN, send ECN-capable packets")
        }
    };
    Some(ScenarioError {
        path: "topology".into(),
        message: format!(
            "ecn_k is set on {queues} queue{}, but no app sends ECN-capable packets \
             ({}): nothing will be marked, and the run is the same as without ecn_k; {fix}",
            if queues == 1 { "" } else { "s" },
            senders.join("; ")
        ),
    })
}

/// `marks`: whether any queue's marks reach an ECN-capable packet (else
/// an `ecn_k` below one packet is not worth a word: nothing is marked).
fn sub_packet_warnings(cfg: &Config, marks: bool) -> Vec<ScenarioError> {
    let full = cfg.full_packet();
    // (key, bytes) -> queues with it
    let mut found: Vec<((&str, u64), usize)> = Vec::new();
    let nodes = &cfg.topology.nodes;
    for (q, at) in cfg
        .topology
        .links
        .iter()
        .flat_map(|l| [(&l.queue_ab, l.a), (&l.queue_ba, l.b)])
    {
        let small = |lim: &Limit| match *lim {
            Limit::Bytes(b) if b > 0 && b < full => Some(b),
            _ => None,
        };
        // a host's egress queue is always nic_buffer's (every topology
        // kind); a switch port's is buffer's, a tier's or a link's
        let key = if nodes[at].kind == crate::config::NodeKind::Host {
            "nic_buffer"
        } else {
            "buffer"
        };
        let hits = [
            small(&q.limit).map(|b| (key, b)),
            q.ecn_k
                .as_ref()
                .filter(|_| marks)
                .and_then(small)
                .map(|b| ("ecn_k", b)),
        ];
        for key in hits.into_iter().flatten() {
            match found.iter_mut().find(|(k, _)| *k == key) {
                Some((_, n)) => *n += 1,
                None => found.push((key, 1)),
            }
        }
    }
    found
        .into_iter()
        .map(|((key, b), n)| {
            let effect = if key == "ecn_k" {
                "every packet that finds another queued is marked"
            } else {
                "no full-size packet fits"
            };
            ScenarioError {
                // nic_buffer is one key; a switch's buffer may come from
                // topology.buffer, a tier's or a custom link's
                path: if key == "nic_buffer" {
                    "topology.nic_buffer".into()
                } else {
                    "topology".into()
                },
                message: format!(
                    "{} {key} of {b} byte{} on {n} {}queue{} is below one full-size packet \
                     ({full} bytes on the wire): {effect}{}",
                    if key.starts_with(['a', 'e', 'i', 'o', 'u']) {
                        "an"
                    } else {
                        "a"
                    },
                    if b == 1 { "" } else { "s" },
                    if key == "nic_buffer" {
                        "host "
                    } else {
                        "switch "
                    },
                    if n == 1 { "" } else { "s" },
                    // a count of packets written bare reads as bytes
                    if b < 1000 {
                        format!("; sizes without a unit are bytes (did you mean \"{b}pkt\"?)")
                    } else {
                        String::new()
                    }
                ),
            }
        })
        .collect()
}

/// Marking thresholds at or above the buffer: a port marks a packet that
/// finds more than `ecn_k` queued ahead of it, and admits one only while
/// what is queued plus the packet fits its buffer, so such an `ecn_k` marks
/// nothing (a unit slip, or a sweep of `ecn_k` past the buffer, runs DCTCP
/// as drop-tail). In one unit that holds for every packet, and each such
/// queue is named. A threshold in packets against a buffer in bytes holds
/// only for full-size packets, so it is named only when no marking queue
/// of the network can mark one: a single tier whose full-size packets just
/// miss K (FaST's 10 Gbps uplinks at MSS 1500) is not worth a word.
fn unreachable_k_warnings(cfg: &Config) -> Vec<ScenarioError> {
    let full = cfg.full_packet().max(1);
    // (K, buffer) -> queues with it, for certain and for full-size packets
    let mut certain: Vec<((Limit, Limit), usize)> = Vec::new();
    let mut full_size: Vec<((Limit, Limit), usize)> = Vec::new();
    let mut marks_somewhere = false;
    for q in cfg
        .topology
        .links
        .iter()
        .flat_map(|l| [&l.queue_ab, &l.queue_ba])
    {
        let Some(k) = q.ecn_k else { continue };
        let (list, over) = match (k, q.limit) {
            _ if q.limit.is_unlimited() => (&mut certain, false),
            (Limit::Bytes(k), Limit::Bytes(b)) => (&mut certain, k >= b),
            // at most p - 1 packets wait ahead of one that is let in
            (Limit::Packets(k), Limit::Packets(p)) => (&mut certain, k >= p.saturating_sub(1)),
            (Limit::Bytes(k), Limit::Packets(p)) => {
                (&mut certain, k >= p.saturating_sub(1).saturating_mul(full))
            }
            (Limit::Packets(k), Limit::Bytes(b)) => (&mut full_size, k.saturating_mul(full) >= b),
        };
        if !over {
            marks_somewhere = true;
            continue;
        }
        match list.iter_mut().find(|(pair, _)| *pair == (k, q.limit)) {
            Some((_, n)) => *n += 1,
            None => list.push(((k, q.limit), 1)),
        }
    }
    if marks_somewhere {
        full_size.clear();
    }
    // a queue marks a packet that finds more than K ahead of it, and at
    // most a buffer of p packets less one waits ahead of one let in: 99
    // packets in a buffer of 100 was "not below" it in the words, though
    // below it in the numbers
    let said = |((k, limit), n): ((Limit, Limit), usize), which: String| ScenarioError {
        path: "topology.ecn_k".into(),
        message: format!(
            "{} on {n} queue{} is at least what their buffer of {}{} lets wait ahead of a \
             packet: {which}and ECN-based flows run as on drop-tail; set ecn_k below that",
            limit_text(k),
            if n == 1 { "" } else { "s" },
            limit_text(limit),
            match limit {
                Limit::Packets(p) if !limit.is_unlimited() => {
                    format!(" (at most {} packets)", p.saturating_sub(1))
                }
                _ => String::new(),
            },
        ),
    };
    let mut out: Vec<ScenarioError> = certain
        .into_iter()
        .map(|x| said(x, "nothing will be marked, ".into()))
        .collect();
    out.extend(full_size.into_iter().map(|x| {
        said(
            x,
            format!("no full-size packet ({full} bytes on the wire) will be marked anywhere, "),
        )
    }));
    out
}

/// An ECN-based congestion control with no marking queue anywhere, or
/// ECN under `[trimming]`, whose ports trim where they would mark.
fn ecn_cc_warnings(cfg: &Config) -> Vec<ScenarioError> {
    let marks = cfg
        .topology
        .links
        .iter()
        .any(|l| l.queue_ab.ecn_k.is_some() || l.queue_ba.ecn_k.is_some());
    // a trimming port trims where it would mark (net/trim.rs): its ecn_k
    // is never read (the ECN audit: DCTCP's queue sat at 120 packets
    // against K = 20, 0 marks, and validation said "ok")
    let trims = cfg.trimming.is_some();
    if marks && !trims {
        return Vec::new();
    }
    // (what the apps run, the key that chose it) -> the apps, in order
    let mut by_cc: Vec<((&str, &str), Vec<usize>)> = Vec::new();
    for (i, a) in cfg.apps.iter().enumerate() {
        let Some(tcp) = a.tcp() else {
            continue;
        };
        // another transport runs no cc: its `cc` is warned of as inert
        if tcp.transport != Transport::Tcp {
            continue;
        }
        let what = if tcp.cc.needs_ecn() {
            (tcp.cc.name(), "cc")
        } else if tcp.ecn && trims {
            ("classic ECN", "ecn")
        } else {
            continue;
        };
        match by_cc.iter_mut().find(|(w, _)| *w == what) {
            Some((_, apps)) => apps.push(i),
            None => by_cc.push((what, vec![i])),
        }
    }
    by_cc
        .into_iter()
        .map(|((name, key), apps)| {
            let which = apps
                .iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(", ");
            let s = if apps.len() > 1 { "s" } else { "" };
            ScenarioError {
                path: format!("tcp.{key}"),
                message: if trims {
                    format!(
                        "{name} (app{s} {which}) runs on ECN marks, but with [trimming] a port \
                         trims where it would mark and reads no ecn_k: nothing is marked, and \
                         it reacts to trimmed packets as losses only; NDP is the transport \
                         trimming is for"
                    )
                } else {
                    format!(
                        "{name} (app{s} {which}) needs ECN-marking queues, but no queue has an \
                         `ecn_k`: it reacts to drops only, like loss-based TCP; set \
                         topology.ecn_k (e.g. \"20pkt\")"
                    )
                },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
