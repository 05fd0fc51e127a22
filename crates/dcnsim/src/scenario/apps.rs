//! `apps`: each app kind's keys and checks, flow-size CDFs, and the
//! Poisson app's sources, destinations and offered load.

use super::schema;
use super::table::{idx_path, key_path, Ctx, Tbl};
use super::tcp::{tcp_cross_checks, TcpLayer};
use super::topology::TopoOut;
use super::units::{self, json_excerpt};
use super::values::*;
use super::{ScenarioError, DOCUMENT};
use crate::cdf::{FlowSizeCdf, Sampling};
use crate::config::*;
use crate::sim::time::SimTime;
use crate::text::{excerpt, suggest};
use serde_json::Value;

// -------------------------------------------------------------------- apps

pub(super) fn parse_app(
    ctx: &mut Ctx,
    v: &Value,
    path: &str,
    topo: &TopoOut,
    top_tcp: &TcpLayer,
    scenario_stop: SimTime,
) -> Option<(AppSpec, SimTime)> {
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
        match own {
            Some(tv) => {
                let tcp_path = t.p("tcp");
                let before = ctx.errs.len();
                let own = TcpLayer::parse(ctx, tv, &tcp_path);
                let bad = super::bad_keys(&ctx.errs[before..], &tcp_path);
                let merged = own.over(top_tcp);
                let mut failed = tcp_cross_checks(&merged.section.resolve());
                failed.retain(|(_, _, involved)| {
                    !involved.iter().any(|k| bad.iter().any(|b| b == k))
                });
                // what [tcp] alone fails is said there, once, not per app
                let top_failed = if failed.is_empty() {
                    Vec::new()
                } else {
                    tcp_cross_checks(&top_tcp.section.resolve())
                };
                for (key, msg, involved) in failed {
                    if own.sets_any(involved) {
                        ctx.err(key_path(&tcp_path, key), msg);
                    } else if !top_failed.iter().any(|(k, _, _)| *k == key) {
                        // [tcp]'s values, which pass there, fail with this
                        // app's own keys (a transport the check is about,
                        // an mss): said where the app made them apply
                        let here = if own.sets_any(&["transport"]) {
                            key_path(&tcp_path, "transport")
                        } else {
                            tcp_path.clone()
                        };
                        let from: Vec<String> =
                            involved.iter().map(|k| key_path("tcp", k)).collect();
                        ctx.err(
                            here,
                            format!(
                                "{msg} ({} from the top-level [tcp], applied by this app's own \
                                 tcp table)",
                                from.join(", ")
                            ),
                        );
                    }
                }
                merged.section.resolve()
            }
            // the top-level table as it is: cloning it (its keys' map)
            // for each of a fat-tree's thousands of apps was a tenth of
            // reading the document
            None => top_tcp.section.resolve(),
        }
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
            Some((
                AppSpec::Bulk {
                    src: src?,
                    dst: dst?,
                    amount: amount?,
                    start: a.start.unwrap_or(SimTime::ZERO),
                    tcp,
                },
                a.start_jitter.unwrap_or(SimTime::ZERO),
            ))
        }
        "partition_aggregate" => {
            let a =
                schema::read_table::<schema::PartitionAggregateApp>(v, path, &what, &mut ctx.errs)?
                    .value;
            let tcp = tcp(ctx, &a.tcp);
            require(ctx, "aggregator");
            let agg = in_range(ctx, "aggregator", *a.aggregator);
            let workers = fan_in(ctx, &t, ("aggregator", "workers"), agg, &a.workers, nhosts);
            Some((
                AppSpec::PartitionAggregate {
                    aggregator: agg?,
                    workers: workers?,
                    response_bytes: a.response.unwrap_or(10 << 10),
                    request_bytes: a.request.unwrap_or(64),
                    queries: a.queries.unwrap_or(100),
                    gap: a.gap.unwrap_or(SimTime::ZERO),
                    start: a.start.unwrap_or(SimTime::ZERO),
                    tcp,
                },
                a.start_jitter.unwrap_or(SimTime::ZERO),
            ))
        }
        "sync_reads" => {
            let a =
                schema::read_table::<schema::SyncReadsApp>(v, path, &what, &mut ctx.errs)?.value;
            let tcp = tcp(ctx, &a.tcp);
            require(ctx, "client");
            let client = in_range(ctx, "client", *a.client);
            let servers = fan_in(ctx, &t, ("client", "servers"), client, &a.servers, nhosts);
            Some((
                AppSpec::SyncReads {
                    client: client?,
                    servers: servers?,
                    sru_bytes: a.sru.unwrap_or(256 << 10),
                    request_bytes: a.request.unwrap_or(64),
                    blocks: a.blocks.unwrap_or(100),
                    jitter: a.jitter.unwrap_or(SimTime::ZERO),
                    spacing: a.spacing.unwrap_or(SimTime::ZERO),
                    start: a.start.unwrap_or(SimTime::ZERO),
                    tcp,
                },
                a.start_jitter.unwrap_or(SimTime::ZERO),
            ))
        }
        "poisson" => {
            let a = schema::read_table::<schema::PoissonApp>(v, path, &what, &mut ctx.errs)?.value;
            let tcp = tcp(ctx, &a.tcp);
            parse_poisson(ctx, &t, &a, path, topo, tcp, scenario_stop)
                .map(|p| (AppSpec::Poisson(Box::new(p)), SimTime::ZERO))
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
            Some((
                AppSpec::UdpCbr {
                    src: src?,
                    dst: dst?,
                    rate_bps: (*a.rate)?,
                    payload_bytes: a.payload.unwrap_or(1460),
                    start,
                    stop,
                },
                a.start_jitter.unwrap_or(SimTime::ZERO),
            ))
        }
    }
}

/// A Poisson app's CDF: `cdf` (a built-in name or inline `[size, p]`
/// points) or `cdf_file` (a path, read here), with its `sampling` rule.
pub(super) fn parse_cdf(ctx: &mut Ctx, t: &Tbl, path: &str) -> Option<(FlowSizeCdf, String)> {
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
            let text = match read_cdf_file(&file) {
                Ok(s) => s,
                Err(m) => {
                    ctx.err(t.p("cdf_file"), m);
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

/// The most bytes a `cdf_file` may hold: the shipped CDFs are a few
/// hundred bytes, and a path to a device (`/dev/zero`) was read whole, into
/// every byte of memory the machine had, before the kernel killed it.
pub const MAX_CDF_FILE: u64 = 16 << 20;

/// The text of a `cdf_file`: a regular file (a FIFO was opened and waited
/// on for ever, a device read without end) of at most [`MAX_CDF_FILE`]
/// bytes; else the message, naming the path.
fn read_cdf_file(file: &str) -> Result<String, String> {
    use std::io::Read;
    let shown = excerpt(file);
    let meta = std::fs::metadata(file).map_err(|e| format!("cannot read '{shown}': {e}"))?;
    if !meta.is_file() {
        let what = if meta.is_dir() {
            "a directory"
        } else {
            special_file_kind(&meta)
        };
        return Err(format!(
            "'{shown}' is {what}, not a regular file: a flow-size CDF is a text file of \
             `size probability` lines"
        ));
    }
    let too_big = |n: u64| {
        format!(
            "'{shown}' holds {n} bytes, more than a flow-size CDF's {} MiB at most: not a CDF \
             of `size probability` lines",
            MAX_CDF_FILE >> 20
        )
    };
    if meta.len() > MAX_CDF_FILE {
        return Err(too_big(meta.len()));
    }
    let mut text = String::new();
    std::fs::File::open(file)
        .and_then(|f| f.take(MAX_CDF_FILE + 1).read_to_string(&mut text))
        .map_err(|e| format!("cannot read '{shown}': {e}"))?;
    if text.len() as u64 > MAX_CDF_FILE {
        return Err(too_big(text.len() as u64)); // grown since its size was read
    }
    Ok(text)
}

/// What a file that is neither regular nor a directory is, in words.
#[cfg(unix)]
fn special_file_kind(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_fifo() {
        "a named pipe (FIFO)"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

#[cfg(not(unix))]
fn special_file_kind(_meta: &std::fs::Metadata) -> &'static str {
    "a special file"
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
pub(super) fn parse_poisson(
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
    // Edge capacity of each source: the rate of its access link(s), from
    // one pass over the links (a scan per source is hosts × links: minutes
    // at k = 64).
    let spec = topo.spec.as_ref()?;
    let host_nodes = spec.hosts();
    let sources = sources?;
    let node_rate = spec.node_rates();
    let mut capacity_bps: u64 = 0;
    for &h in &sources {
        let node = *host_nodes.get(h)?;
        capacity_bps = capacity_bps.saturating_add(node_rate[node]);
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
