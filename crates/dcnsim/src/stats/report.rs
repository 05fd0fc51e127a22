//! Result tables: `flows`, `queues`, `queries`, `blocks`, and the summary.

use crate::app::App;
use crate::config::Limit;
use crate::sim::time::SimTime;
use crate::stats::results::{Column, Results, Table};
use crate::world::World;
use std::borrow::Cow;

fn f64s(v: impl Iterator<Item = f64>) -> Column {
    Column::F64(v.collect())
}
fn u64s(v: impl Iterator<Item = u64>) -> Column {
    Column::U64(v.collect())
}

/// Columns of the `flows` table, at most (tests/limits.rs checks it).
pub const FLOW_COLUMNS_MAX: usize = 80;
/// String columns of the `flows` table, at most.
pub const FLOW_STR_COLUMNS_MAX: usize = 5;

/// Bytes the result tables take per flow, at most: the row built first,
/// then one 8-byte cell per column and a short string (24 bytes plus, if
/// owned, a 32-byte allocation) per string column (limits.rs).
pub const FLOW_RESULT_BYTES: usize = std::mem::size_of::<FlowRow>()
    + FLOW_COLUMNS_MAX * 8
    + FLOW_STR_COLUMNS_MAX * (std::mem::size_of::<Cow<str>>() + 32);

/// Bytes per row of the `losses` table, at most: its sort key, time, flow
/// id and the kind as a string (borrowed; 32 bytes more if ever owned).
pub const LOSS_RESULT_BYTES: usize =
    std::mem::size_of::<u128>() + 8 + 8 + std::mem::size_of::<Cow<str>>() + 32;

/// One row of the `flows` table, TCP or UDP.
struct FlowRow {
    flow_id: u64,
    app: u64,
    app_kind: &'static str,
    role: &'static str,
    transport: &'static str,
    src: u64,
    dst: u64,
    cc: &'static str,
    segment: &'static str,
    start_s: f64,
    end_s: f64,
    /// The picoseconds between the two, correctly rounded (the difference
    /// of the two rounded seconds is not, by up to an ulp).
    fct_s: f64,
    app_bytes: u64,
    delivered: u64,
    /// Bytes the receiving application counted (independent of `delivered`).
    received: u64,
    msgs_written: u64,
    msgs_received: u64,
    goodput_bps: f64,
    segments_sent: u64,
    bytes_sent: u64,
    retransmits: u64,
    retx_bytes: u64,
    timeouts: u64,
    timeout_period_s: f64,
    abtt: u64,
    ibtt: u64,
    rto_first_flight: u64,
    rto_whole_window: u64,
    rto_few_dupacks: u64,
    rto_many_dupacks: u64,
    ibtt_whole_window: u64,
    ibtt_few_dupacks: u64,
    fast_retransmits: u64,
    probretx_sent: u64,
    probretx_dupacks: u64,
    spurious_retransmits: u64,
    tlp_probes: u64,
    reorder_events: u64,
    rehashes: u64,
    dupthresh: u64,
    drops: u64,
    ack_drops: u64,
    drop_runs: u64,
    max_drop_run: u64,
    drop_run_len: [u64; 5],
    ecn_marks: u64,
    ecn_cuts: u64,
    ooo_arrivals: u64,
    dup_arrivals: u64,
    acks_sent: u64,
    srtt_s: f64,
    final_cwnd: u64,
    completed: bool,
}

/// A row of the rounds tables (`queries`, `blocks`): at most 64 numeric
/// cells (limits.rs).
pub const ROUND_ROW_BYTES: usize = 64 * 8;
/// A row of `queues`: at most 32 numeric cells (plus two node names).
pub const QUEUE_ROW_BYTES: usize = 32 * 8;
/// A row of `queue_inputs`: at most 16 numeric cells and the 24-byte entry
/// it is built from (plus three node names).
pub const SLOT_ROW_BYTES: usize = 16 * 8 + 24;

/// Every result table and the summary of a finished world.
pub fn build(w: &World, wall_s: f64) -> Results {
    let mut rows = tcp_flow_rows(w);
    rows.extend(udp_flow_rows(w));
    let (queries, blocks) = rounds_tables(w);
    let mut tables = vec![
        flows_table(&rows),
        queues_table(w),
        queue_inputs_table(w),
        queries,
        blocks,
        losses_table(w),
    ];
    tables.extend(trace_tables(w));
    if w.links().has_failures() {
        tables.push(failures_table(w));
    }
    if w.links().pfc_on() {
        tables.push(pfc_table(w));
        tables.push(pfc_log_table(w));
    }
    Results {
        tables,
        summary: summary(w, wall_s),
        pcaps: w
            .captures()
            .iter()
            .map(|c| (format!("h{}.pcap", c.host), c.bytes()))
            .collect(),
        timing: Vec::new(),
    }
}

/// Bytes per second as bits per second over `span_s` (0 over no time).
fn rate_bps(bytes: u64, span_s: f64) -> f64 {
    if span_s > 0.0 {
        bytes as f64 * 8.0 / span_s
    } else {
        0.0
    }
}

/// When TCP flow `i` ended and the bytes it delivered by then. Completion
/// is the application's own event, never inferred from byte counts (the
/// conservation checker compares those): a bulk flow ends when its app
/// records the end (the last message received, or the deadline of a
/// duration-limited flow); a request/response flow when its app has
/// received every message written on it.
fn tcp_flow_end(w: &World, i: usize) -> (Option<SimTime>, u64) {
    let f = &w.tcp_flows()[i];
    match &w.apps()[f.app as usize] {
        App::Bulk(b) => (
            b.end,
            if b.end.is_some() {
                b.delivered_at_end
            } else {
                f.delivered()
            },
        ),
        _ => {
            let rx = w.app_rx(i);
            let done = f.msgs_written() > 0 && rx.msgs == f.msgs_written();
            (if done { rx.last_msg } else { None }, f.delivered())
        }
    }
}

fn tcp_flow_rows(w: &World) -> Vec<FlowRow> {
    let now = w.now();
    let mut rows = Vec::with_capacity(w.tcp_flows().len() + w.udp_flows().len());
    for (i, f) in w.tcp_flows().iter().enumerate() {
        let app = &w.apps()[f.app as usize];
        let d = w.tcp_drops(i);
        let rx = w.app_rx(i);
        let start = f.start_time;
        let (end, delivered) = tcp_flow_end(w, i);
        let span = match (start, end) {
            (Some(s), Some(e)) => e.saturating_sub(s),
            (Some(s), None) => now.saturating_sub(s),
            _ => SimTime::ZERO,
        };
        let kind = f.cfg.transport;
        rows.push(FlowRow {
            flow_id: i as u64,
            app: f.app as u64,
            app_kind: app.kind(),
            role: w.flow_meta(i).role.name(),
            transport: kind.name(),
            src: f.src_host as u64,
            dst: f.dst_host as u64,
            // TCP's congestion control and duplicate-ACK threshold are not
            // read by the other transports (Swift alone counts duplicate
            // ACKs): empty and 0 there, as on a UDP row, not NewReno's
            cc: if kind.runs_tcp_cc() { f.cc_name() } else { "" },
            segment: f.seg_name(),
            start_s: start.map_or(f64::NAN, |s| s.as_secs_f64()),
            end_s: end.map_or(f64::NAN, |e| e.as_secs_f64()),
            fct_s: match (start, end) {
                (Some(s), Some(e)) => e.saturating_sub(s).as_secs_f64(),
                _ => f64::NAN,
            },
            // A duration-limited flow's writes end at its deadline
            // (`app_close`): what it offered, not what arrived.
            app_bytes: f.app_bytes(),
            delivered,
            received: rx.bytes,
            msgs_written: f.msgs_written(),
            msgs_received: rx.msgs,
            // a flow that never started has no rate: NaN, not a starved 0
            // (Jain's index over the flows would count it)
            goodput_bps: if start.is_some() {
                rate_bps(delivered, span.as_secs_f64())
            } else {
                f64::NAN
            },
            segments_sent: f.stats.segments_sent,
            bytes_sent: f.stats.bytes_sent,
            retransmits: f.stats.retransmits,
            retx_bytes: f.stats.retx_bytes,
            timeouts: f.stats.timeouts,
            timeout_period_s: f.stats.timeout_period.as_secs_f64(),
            abtt: f.stats.abtt,
            ibtt: f.stats.ibtt,
            rto_first_flight: f.stats.rto_first_flight,
            rto_whole_window: f.stats.rto_whole_window,
            rto_few_dupacks: f.stats.rto_few_dupacks,
            rto_many_dupacks: f.stats.rto_many_dupacks,
            ibtt_whole_window: f.stats.ibtt_whole_window,
            ibtt_few_dupacks: f.stats.ibtt_few_dupacks,
            fast_retransmits: f.stats.fast_retransmits,
            probretx_sent: f.stats.probretx_sent,
            probretx_dupacks: f.stats.probretx_dupacks,
            spurious_retransmits: f.stats.spurious_retransmits,
            tlp_probes: f.stats.tlp_probes,
            reorder_events: f.stats.reorder_events,
            rehashes: f.rehashes(),
            dupthresh: if kind.counts_dupacks() {
                f.dupthresh as u64
            } else {
                0
            },
            drops: d.drops,
            ack_drops: d.ack_drops,
            drop_runs: d.runs,
            max_drop_run: d.max_run,
            drop_run_len: d.run_len,
            ecn_marks: f.stats.ecn_marks,
            ecn_cuts: f.stats.ecn_cuts,
            ooo_arrivals: f.stats.ooo_arrivals,
            dup_arrivals: f.stats.dup_arrivals,
            acks_sent: f.stats.acks_sent,
            srtt_s: f.reported_srtt().map_or(f64::NAN, |t| t.as_secs_f64()),
            final_cwnd: f.st.cwnd,
            completed: end.is_some(),
        });
    }
    rows
}

/// UDP sources' rows, numbered after the TCP flows; TCP-only columns are 0.
fn udp_flow_rows(w: &World) -> Vec<FlowRow> {
    let now = w.now();
    let first_id = w.tcp_flows().len();
    let mut rows = Vec::with_capacity(w.udp_flows().len());
    for (i, u) in w.udp_flows().iter().enumerate() {
        let d = w.udp_drops(i);
        // a source whose start lay past the run's end never started: no
        // start and no rate (NaN, as a TCP flow's; a 0 in `goodput_bps`
        // read as starved, and its start stretched the run's goodput window)
        // (and one whose jittered start fell past its own stop never sent)
        let started = u.start < now.min(u.stop) || u.sent_pkts > 0;
        // a source cut off by the run's stop has not finished: no end
        // (NaN, as a TCP flow's), its goodput over what it ran
        let done = started && now >= u.stop;
        // a finished source ends at the later of its stop and its last
        // datagram's arrival, as a TCP flow ends at its last byte delivered:
        // datagrams queued at its stop arrive after it (ended at its stop, a
        // 2 Gbps source into a 1 Gbps link read 1.10 Gbps, and 2x the link
        // in the run's goodput)
        let end = if u.rx.pkts > 0 {
            u.stop.max(u.rx.last)
        } else {
            u.stop
        }
        .min(now);
        let span = if done { end } else { now }.saturating_sub(u.start);
        rows.push(FlowRow {
            flow_id: (first_id + i) as u64,
            app: u.app as u64,
            app_kind: "udp_cbr",
            role: "cbr",
            transport: "udp",
            src: u.src as u64,
            dst: u.dst as u64,
            cc: "",
            segment: "",
            start_s: if started {
                u.start.as_secs_f64()
            } else {
                f64::NAN
            },
            end_s: if done { end.as_secs_f64() } else { f64::NAN },
            fct_s: if done { span.as_secs_f64() } else { f64::NAN },
            app_bytes: u.sent_bytes,
            delivered: u.rx.bytes,
            received: u.rx.bytes,
            msgs_written: 0,
            msgs_received: 0,
            goodput_bps: if started {
                rate_bps(u.rx.bytes, span.as_secs_f64())
            } else {
                f64::NAN
            },
            segments_sent: u.sent_pkts,
            bytes_sent: u.sent_bytes,
            retransmits: 0,
            retx_bytes: 0,
            timeouts: 0,
            timeout_period_s: 0.0,
            abtt: 0,
            ibtt: 0,
            rto_first_flight: 0,
            rto_whole_window: 0,
            rto_few_dupacks: 0,
            rto_many_dupacks: 0,
            ibtt_whole_window: 0,
            ibtt_few_dupacks: 0,
            fast_retransmits: 0,
            probretx_sent: 0,
            probretx_dupacks: 0,
            spurious_retransmits: 0,
            tlp_probes: 0,
            reorder_events: 0,
            rehashes: 0,
            dupthresh: 0,
            drops: d.drops,
            ack_drops: 0,
            drop_runs: d.runs,
            max_drop_run: d.max_run,
            drop_run_len: d.run_len,
            ecn_marks: 0,
            ecn_cuts: 0,
            ooo_arrivals: 0,
            dup_arrivals: 0,
            acks_sent: 0,
            srtt_s: f64::NAN,
            final_cwnd: 0,
            completed: done,
        });
    }
    rows
}

fn strs(v: impl Iterator<Item = &'static str>) -> Column {
    Column::Str(v.map(Cow::Borrowed).collect())
}

fn flows_table(r: &[FlowRow]) -> Table {
    let mut flows = Table::new("flows");
    flows.push("flow_id", u64s(r.iter().map(|x| x.flow_id)));
    flows.push("app", u64s(r.iter().map(|x| x.app)));
    flows.push("app_kind", strs(r.iter().map(|x| x.app_kind)));
    flows.push("role", strs(r.iter().map(|x| x.role)));
    flows.push("transport", strs(r.iter().map(|x| x.transport)));
    flows.push("src", u64s(r.iter().map(|x| x.src)));
    flows.push("dst", u64s(r.iter().map(|x| x.dst)));
    flows.push("cc", strs(r.iter().map(|x| x.cc)));
    flows.push("segment", strs(r.iter().map(|x| x.segment)));
    flows.push("start_s", f64s(r.iter().map(|x| x.start_s)));
    flows.push("end_s", f64s(r.iter().map(|x| x.end_s)));
    flows.push("fct_s", f64s(r.iter().map(|x| x.fct_s)));
    flows.push("app_bytes", u64s(r.iter().map(|x| x.app_bytes)));
    flows.push("delivered_bytes", u64s(r.iter().map(|x| x.delivered)));
    flows.push("goodput_bps", f64s(r.iter().map(|x| x.goodput_bps)));
    flows.push("segments_sent", u64s(r.iter().map(|x| x.segments_sent)));
    flows.push("bytes_sent", u64s(r.iter().map(|x| x.bytes_sent)));
    flows.push("retransmits", u64s(r.iter().map(|x| x.retransmits)));
    flows.push("retx_bytes", u64s(r.iter().map(|x| x.retx_bytes)));
    flows.push("timeouts", u64s(r.iter().map(|x| x.timeouts)));
    flows.push(
        "timeout_period_s",
        f64s(r.iter().map(|x| x.timeout_period_s)),
    );
    flows.push("abtt", u64s(r.iter().map(|x| x.abtt)));
    flows.push("ibtt", u64s(r.iter().map(|x| x.ibtt)));
    flows.push(
        "rto_first_flight",
        u64s(r.iter().map(|x| x.rto_first_flight)),
    );
    flows.push(
        "rto_whole_window",
        u64s(r.iter().map(|x| x.rto_whole_window)),
    );
    flows.push("rto_few_dupacks", u64s(r.iter().map(|x| x.rto_few_dupacks)));
    flows.push(
        "rto_many_dupacks",
        u64s(r.iter().map(|x| x.rto_many_dupacks)),
    );
    flows.push(
        "ibtt_whole_window",
        u64s(r.iter().map(|x| x.ibtt_whole_window)),
    );
    flows.push(
        "ibtt_few_dupacks",
        u64s(r.iter().map(|x| x.ibtt_few_dupacks)),
    );
    flows.push(
        "fast_retransmits",
        u64s(r.iter().map(|x| x.fast_retransmits)),
    );
    flows.push("probretx_sent", u64s(r.iter().map(|x| x.probretx_sent)));
    flows.push(
        "probretx_dupacks",
        u64s(r.iter().map(|x| x.probretx_dupacks)),
    );
    flows.push(
        "spurious_retransmits",
        u64s(r.iter().map(|x| x.spurious_retransmits)),
    );
    flows.push("tlp_probes", u64s(r.iter().map(|x| x.tlp_probes)));
    flows.push("reorder_events", u64s(r.iter().map(|x| x.reorder_events)));
    flows.push("rehashes", u64s(r.iter().map(|x| x.rehashes)));
    flows.push("dupthresh", u64s(r.iter().map(|x| x.dupthresh)));
    flows.push("drops", u64s(r.iter().map(|x| x.drops)));
    flows.push("ack_drops", u64s(r.iter().map(|x| x.ack_drops)));
    flows.push("drop_runs", u64s(r.iter().map(|x| x.drop_runs)));
    flows.push("max_drop_run", u64s(r.iter().map(|x| x.max_drop_run)));
    for (k, name) in [
        "drop_runs_len1",
        "drop_runs_len2",
        "drop_runs_len3",
        "drop_runs_len4",
        "drop_runs_len5plus",
    ]
    .into_iter()
    .enumerate()
    {
        flows.push(name, u64s(r.iter().map(|x| x.drop_run_len[k])));
    }
    flows.push("ecn_marks", u64s(r.iter().map(|x| x.ecn_marks)));
    flows.push("ecn_cuts", u64s(r.iter().map(|x| x.ecn_cuts)));
    flows.push("ooo_arrivals", u64s(r.iter().map(|x| x.ooo_arrivals)));
    flows.push("dup_arrivals", u64s(r.iter().map(|x| x.dup_arrivals)));
    flows.push("acks_sent", u64s(r.iter().map(|x| x.acks_sent)));
    flows.push("srtt_s", f64s(r.iter().map(|x| x.srtt_s)));
    flows.push("final_cwnd_bytes", u64s(r.iter().map(|x| x.final_cwnd)));
    flows.push(
        "completed",
        Column::Bool(r.iter().map(|x| x.completed).collect()),
    );
    flows.push("received_bytes", u64s(r.iter().map(|x| x.received)));
    flows.push("messages_written", u64s(r.iter().map(|x| x.msgs_written)));
    flows.push("messages_received", u64s(r.iter().map(|x| x.msgs_received)));
    flows
}

/// One row per directed link: its configuration, what it carried and
/// what it held.
fn queues_table(w: &World) -> Table {
    let now = w.now();
    let mut queues = Table::new("queues");
    let links = w.links();
    let ls = links.infos();
    let st: Vec<_> = (0..links.len()).map(|i| links.stats(i)).collect();
    let name = |n: u32| Cow::Owned(w.node_names()[n as usize].clone());
    let span = now.as_secs_f64();
    queues.push("queue_id", u64s(0..ls.len() as u64));
    queues.push(
        "node",
        Column::Str(ls.iter().map(|l| name(l.from)).collect()),
    );
    queues.push("to", Column::Str(ls.iter().map(|l| name(l.to)).collect()));
    queues.push("rate_bps", u64s(ls.iter().map(|l| l.rate_bps)));
    // The drop-tail limit in force, in the unit it was given (0 in the
    // other); 0 in both when there is none: `unlimited` (held as the
    // largest u64, which read as 18 EB and wrapped in pandas' arithmetic),
    // or a host's NIC under PFC, which holds its transports' packets
    // without limit (only UDP's keep `nic_buffer`).
    let pfc = links.pfc_on();
    let limit = |l: &crate::net::LinkInfo| match l.cfg.limit {
        _ if pfc && w.node_is_host(l.from) => (0, 0),
        lim if lim.is_unlimited() => (0, 0),
        Limit::Bytes(b) => (b, 0),
        Limit::Packets(p) => (0, p),
    };
    queues.push("limit_bytes", u64s(ls.iter().map(|l| limit(l).0)));
    queues.push("limit_pkts", u64s(ls.iter().map(|l| limit(l).1)));
    queues.push("enqueued", u64s(st.iter().map(|s| s.enqueued)));
    queues.push("dropped", u64s(st.iter().map(|s| s.dropped)));
    queues.push("marked", u64s(st.iter().map(|s| s.marked)));
    queues.push("max_bytes", u64s(st.iter().map(|s| s.max_bytes)));
    queues.push("max_pkts", u64s(st.iter().map(|s| s.max_pkts)));
    queues.push(
        "mean_bytes",
        f64s(st.iter().map(|s| {
            if now.0 > 0 {
                s.byte_time as f64 / now.0 as f64
            } else {
                0.0
            }
        })),
    );
    queues.push("tx_bytes", u64s(st.iter().map(|s| s.tx_bytes)));
    queues.push("tx_pkts", u64s(st.iter().map(|s| s.tx_pkts)));
    queues.push(
        "utilization",
        f64s(ls.iter().zip(&st).map(|(l, s)| {
            if span > 0.0 {
                s.tx_bytes as f64 * 8.0 / (l.rate_bps as f64 * span)
            } else {
                0.0
            }
        })),
    );
    // Packets on the link at the end (buffered or propagating), counted by
    // the link itself; the conservation checker sets their sum against the
    // arena's live packets.
    queues.push(
        "in_flight_pkts",
        u64s((0..links.len()).map(|i| links.in_flight(i) as u64)),
    );
    queues.push(
        "from_host",
        Column::Bool(ls.iter().map(|l| w.node_is_host(l.from)).collect()),
    );
    queues
}

/// Per-input-port accounting at switch egress queues (inputs that offered
/// anything): port blackout shows as one input's drops.
fn queue_inputs_table(w: &World) -> Table {
    let it = w.inputs();
    let ls = w.links().infos();
    let name = |n: u32| Cow::Owned(w.node_names()[n as usize].clone());
    let rows_in: Vec<(usize, usize, crate::world::InputStats)> = it
        .slots()
        .into_iter()
        .map(|(e, input, slot)| (e as usize, input as usize, it.stats(slot as usize)))
        .filter(|r| r.2.offered > 0)
        .collect();
    let mut qin = Table::new("queue_inputs");
    qin.push("queue_id", u64s(rows_in.iter().map(|r| r.0 as u64)));
    qin.push(
        "node",
        Column::Str(rows_in.iter().map(|r| name(ls[r.0].from)).collect()),
    );
    qin.push(
        "to",
        Column::Str(rows_in.iter().map(|r| name(ls[r.0].to)).collect()),
    );
    qin.push("input_queue_id", u64s(rows_in.iter().map(|r| r.1 as u64)));
    qin.push(
        "input_from",
        Column::Str(rows_in.iter().map(|r| name(ls[r.1].from)).collect()),
    );
    qin.push("offered", u64s(rows_in.iter().map(|r| r.2.offered)));
    qin.push(
        "enqueued",
        u64s(rows_in.iter().map(|r| r.2.offered - r.2.dropped)),
    );
    qin.push("dropped", u64s(rows_in.iter().map(|r| r.2.dropped)));
    qin.push(
        "max_drop_run",
        u64s(rows_in.iter().map(|r| r.2.max_drop_run)),
    );
    qin
}

/// The `queries` (partition/aggregate) and `blocks` (synchronized reads)
/// tables, each round's column named as its app names it.
fn rounds_tables(w: &World) -> (Table, Table) {
    let mut queries = rounds_table(w, "queries", "partition_aggregate");
    let mut blocks = rounds_table(w, "blocks", "sync_reads");
    // QCT is the natural name for partition/aggregate rounds.
    for (n, _) in queries.columns.iter_mut() {
        match n.as_str() {
            "round" => *n = "query".into(),
            "duration_s" => *n = "qct_s".into(),
            _ => {}
        }
    }
    for (n, _) in blocks.columns.iter_mut() {
        if n == "round" {
            *n = "block".into();
        }
    }
    (queries, blocks)
}

/// The run's counters, and what each Poisson app was asked for and what
/// it generated (so the offered load can be checked from the results
/// alone).
fn summary(w: &World, wall_s: f64) -> Vec<(String, f64)> {
    let c = w.counters();
    let links = w.links();
    let mut summary = vec![
        ("seed".to_string(), w.seed as f64),
        ("events".to_string(), c.events as f64),
        ("packet_hops".to_string(), c.packet_hops as f64),
        ("sim_time_s".to_string(), w.now().as_secs_f64()),
        ("wall_s".to_string(), wall_s),
        ("threads".to_string(), w.threads_used as f64),
        ("workers".to_string(), w.workers_used as f64),
        ("packets_created".to_string(), c.packets_created as f64),
        ("packets_delivered".to_string(), c.packets_delivered as f64),
        ("packets_dropped".to_string(), c.packets_dropped as f64),
        ("flowlets_started".to_string(), c.flowlets_started as f64),
        ("packets_in_flight".to_string(), c.packets_live as f64),
        (
            "packets_on_links".to_string(),
            (0..links.len()).map(|i| links.in_flight(i) as f64).sum(),
        ),
        ("apps_unfinished".to_string(), w.pending_apps as f64),
    ];
    // Only with trimming on, so every other run's summary is unchanged.
    if links.trimming() {
        let t = links.trim_counts();
        summary.push(("packets_trimmed".to_string(), t.trimmed as f64));
        summary.push(("header_drops".to_string(), t.header_drops as f64));
        summary.push(("headers_bounced".to_string(), t.bounced as f64));
        summary.push((
            "tcp_headers_discarded".to_string(),
            w.tcp_headers_discarded as f64,
        ));
    }
    // Only where a queue drops packets without ECT at its threshold
    // (`topology.ecn_non_ect = "drop"`), so every other run's summary is
    // unchanged: of `packets_dropped`, those (the rest found no room).
    if links.gated() {
        let n: u64 = (0..links.len())
            .map(|i| links.stats(i).dropped_non_ect)
            .sum();
        summary.push(("packets_dropped_non_ect".to_string(), n as f64));
    }
    // Only with `[[failures]]`, so every other run's summary is unchanged:
    // of `packets_dropped`, those a failed link lost.
    if links.has_failures() {
        let n: u64 = (0..links.len())
            .map(|i| links.stats(i).dropped_failed)
            .sum();
        summary.push(("packets_dropped_failed".to_string(), n as f64));
    }
    // Only with `[pfc]`, so every other run's summary is unchanged.
    if links.pfc_on() {
        let counts = links.pfc_counts(w.now());
        let pauses: u64 = counts.iter().map(|c| c.pauses).sum();
        let ports = counts.iter().filter(|c| c.pauses > 0).count();
        let paused: u64 = counts.iter().map(|c| c.paused_ps).sum();
        summary.push(("pfc_pauses".to_string(), pauses as f64));
        summary.push(("pfc_ports_paused".to_string(), ports as f64));
        summary.push(("pfc_paused_s".to_string(), SimTime(paused).as_secs_f64()));
    }
    transport_summary(w, &mut summary);
    for (i, a) in w.apps().iter().enumerate() {
        if let App::Poisson(p) = a {
            summary.push((format!("app{i}_capacity_bps"), p.spec.capacity_bps as f64));
            summary.push((format!("app{i}_arrival_rate_per_s"), p.spec.arrival_rate()));
            summary.push((format!("app{i}_mean_size_bytes"), p.spec.cdf.mean()));
            summary.push((format!("app{i}_flows_generated"), p.generated as f64));
        }
    }
    summary
}

/// The summary's keys of the transports beyond TCP (Swift, TIMELY, NDP,
/// HPCC, DCQCN), each only in runs with its flows, so every other
/// run's summary is unchanged.
fn transport_summary(w: &World, summary: &mut Vec<(String, f64)>) {
    // Only with Swift flows, so every other run's summary is unchanged.
    let swift: Vec<_> = w.tcp_flows().iter().filter_map(|f| f.swift()).collect();
    if !swift.is_empty() {
        let paced = swift.iter().map(|s| s.paced).sum::<u64>();
        let cuts = swift.iter().map(|s| s.decreases).sum::<u64>();
        summary.push(("swift_paced_packets".to_string(), paced as f64));
        summary.push(("swift_window_decreases".to_string(), cuts as f64));
        // Below 1 a lone flow cannot fill its path: the run's warnings say
        // so from this (docs/swift.md, "A target below the path's delay").
        let (mut lowest, mut short, mut over) = (f64::INFINITY, 0.0f64, 0.0f64);
        for f in w.tcp_flows() {
            if let (Some(r), Some(s)) = (f.swift_target_over_path_rtt(), f.swift()) {
                lowest = lowest.min(r);
                // how far the target falls short of the path's delay: what
                // the base target must rise by for this path
                short = short.max(s.path_rtt.as_secs_f64() * (1.0 - r));
            }
            // above 1 the largest window cannot fill the path
            over = over.max(f.swift_bdp_over_max_cwnd().unwrap_or(0.0));
        }
        if lowest.is_finite() {
            summary.push(("swift_target_over_path_rtt_min".to_string(), lowest));
            summary.push(("swift_target_short_s".to_string(), short));
            summary.push(("swift_bdp_over_max_cwnd_max".to_string(), over));
        }
    }
    // Only with TIMELY flows, so every other run's summary is unchanged.
    let timely: Vec<_> = w.tcp_flows().iter().filter_map(|f| f.timely()).collect();
    if !timely.is_empty() {
        let updates = timely.iter().map(|t| t.updates).sum::<u64>();
        let cuts = timely.iter().map(|t| t.decreases).sum::<u64>();
        summary.push(("timely_rate_updates".to_string(), updates as f64));
        summary.push(("timely_rate_decreases".to_string(), cuts as f64));
        // Above 1 the run's warnings say that the thresholds are shorter
        // than a path (docs/timely.md, "Paths longer than T_low").
        let (mut over, mut rtt, mut min_rtt) = (0.0f64, SimTime::ZERO, SimTime::ZERO);
        for f in w.tcp_flows() {
            if let Some((r, path)) = f.timely_path_rtt_over_t_low() {
                if r > over {
                    (over, rtt, min_rtt) = (r, path, f.cfg.timely.min_rtt);
                }
            }
        }
        summary.push(("timely_path_rtt_over_t_low_max".to_string(), over));
        summary.push(("timely_path_rtt_at_max_s".to_string(), rtt.as_secs_f64()));
        summary.push(("timely_min_rtt_at_max_s".to_string(), min_rtt.as_secs_f64()));
    }
    // Only with NDP flows: what the senders heard back (a trimmed
    // header's NACK, a header the fabric returned, the receivers' pulls).
    let ndp: Vec<_> = w.tcp_flows().iter().filter_map(|f| f.ndp()).collect();
    if !ndp.is_empty() {
        let nacks = ndp.iter().map(|n| n.nacks).sum::<u64>();
        let bounces = ndp.iter().map(|n| n.bounces).sum::<u64>();
        let pulls = ndp.iter().map(|n| n.pulls).sum::<u64>();
        summary.push(("ndp_nacks".to_string(), nacks as f64));
        summary.push(("ndp_bounces".to_string(), bounces as f64));
        summary.push(("ndp_pulls".to_string(), pulls as f64));
    }
    // Only with HPCC flows: the windows INT set, and go-back-N's NACKs.
    let hpcc: Vec<_> = w.tcp_flows().iter().filter_map(|f| f.hpcc()).collect();
    if !hpcc.is_empty() {
        let updates = hpcc.iter().map(|h| h.updates).sum::<u64>();
        let nacks = hpcc.iter().map(|h| h.nacks).sum::<u64>();
        summary.push(("hpcc_window_updates".to_string(), updates as f64));
        summary.push(("hpcc_nacks".to_string(), nacks as f64));
        // The window moves in whole packets of `mss`: with few in W_init,
        // flows can lock at unequal shares (docs/hpcc.md, "Few packets in
        // a window"), which the run's warnings say from this.
        let fewest = w
            .tcp_flows()
            .iter()
            .filter_map(|f| f.hpcc().map(|h| h.w_init() / f.cfg.mss as f64))
            .fold(f64::INFINITY, f64::min);
        summary.push(("hpcc_window_min_pkts".to_string(), fewest));
    }
    // Only with DCQCN flows (TIMELY on RoCE sends no CNP): the receivers'
    // CNPs; the senders' cuts on them are the flows' `ecn_cuts`.
    let dcqcn: Vec<_> = w
        .tcp_flows()
        .iter()
        .filter(|f| f.is_dcqcn() && !f.is_timely())
        .filter_map(|f| f.dcqcn())
        .collect();
    if !dcqcn.is_empty() {
        let cnps = dcqcn.iter().map(|d| d.cnps_sent).sum::<u64>();
        summary.push(("dcqcn_cnps_sent".to_string(), cnps as f64));
    }
}

/// `failures`: one row per `[[failures]]` entry and directed link it
/// strikes, with the packets it cost there.
fn failures_table(w: &World) -> Table {
    let links = w.links();
    let rows = links.failure_rows();
    let name = |n: u32| Cow::Owned(w.node_names()[n as usize].clone());
    let secs = |t: SimTime| {
        if t == SimTime::MAX {
            f64::INFINITY
        } else {
            t.as_secs_f64()
        }
    };
    let mut t = Table::new("failures");
    t.push("failure", u64s(rows.iter().map(|r| r.spec as u64)));
    t.push("queue_id", u64s(rows.iter().map(|r| r.link as u64)));
    t.push(
        "node",
        Column::Str(
            rows.iter()
                .map(|r| name(links.info(r.link as usize).from))
                .collect(),
        ),
    );
    t.push(
        "to",
        Column::Str(
            rows.iter()
                .map(|r| name(links.info(r.link as usize).to))
                .collect(),
        ),
    );
    t.push("at_s", f64s(rows.iter().map(|r| secs(r.at))));
    t.push("until_s", f64s(rows.iter().map(|r| secs(r.until))));
    t.push("loss", f64s(rows.iter().map(|r| r.loss)));
    t.push("rate_bps", u64s(rows.iter().map(|r| r.rate_bps)));
    t.push("lost", u64s(rows.iter().map(|r| r.lost)));
    t
}

/// `pfc`: one row per directed link into a switch (an ingress port):
/// the PAUSE frames it sent back, the time its sender spent paused, the
/// most bytes it had in the switch, and whether its sender was still
/// paused when the run ended (a cycle of those is a PFC deadlock).
fn pfc_table(w: &World) -> Table {
    let links = w.links();
    let counts = links.pfc_counts(w.now());
    let is_switch = |n: u32| !w.node_is_host(n);
    let rows: Vec<usize> = (0..links.len())
        .filter(|&l| is_switch(links.info(l).to))
        .collect();
    let name = |n: u32| Cow::Owned(w.node_names()[n as usize].clone());
    let mut t = Table::new("pfc");
    t.push("queue_id", u64s(rows.iter().map(|&l| l as u64)));
    t.push(
        "node",
        Column::Str(rows.iter().map(|&l| name(links.info(l).from)).collect()),
    );
    t.push(
        "to",
        Column::Str(rows.iter().map(|&l| name(links.info(l).to)).collect()),
    );
    t.push("pauses", u64s(rows.iter().map(|&l| counts[l].pauses)));
    t.push(
        "paused_s",
        f64s(
            rows.iter()
                .map(|&l| SimTime(counts[l].paused_ps).as_secs_f64()),
        ),
    );
    t.push(
        "max_held_bytes",
        u64s(rows.iter().map(|&l| counts[l].max_held)),
    );
    let paused = links.pfc_paused_now();
    t.push(
        "paused_at_end",
        Column::Bool(rows.iter().map(|&l| paused[l]).collect()),
    );
    t
}

/// `pfc_log`: every PAUSE (`paused` true) and RESUME, at the time it
/// reaches the sender of link `queue_id` (`node` → `to`), in time order:
/// how pauses spread upstream.
fn pfc_log_table(w: &World) -> Table {
    let links = w.links();
    // a frame still on its way when the run ended reached no sender
    let end = w.now();
    let log: Vec<_> = links.pfc_log().into_iter().filter(|x| x.0 <= end).collect();
    let name = |n: u32| Cow::Owned(w.node_names()[n as usize].clone());
    let mut t = Table::new("pfc_log");
    t.push("time_s", f64s(log.iter().map(|x| x.0.as_secs_f64())));
    t.push("queue_id", u64s(log.iter().map(|x| x.1 as u64)));
    t.push(
        "node",
        Column::Str(
            log.iter()
                .map(|x| name(links.info(x.1 as usize).from))
                .collect(),
        ),
    );
    t.push(
        "to",
        Column::Str(
            log.iter()
                .map(|x| name(links.info(x.1 as usize).to))
                .collect(),
        ),
    );
    t.push("paused", Column::Bool(log.iter().map(|x| x.2).collect()));
    t
}

/// Loss indications of every TCP flow, merged in time order.
fn losses_table(w: &World) -> Table {
    // Stable by (time, flow): one unsigned integer a loss holds its time,
    // its flow, its place in the flows' logs and whether it was a timeout
    // (flow ids and places fit 32 bits and 31), so an unstable sort of
    // plain integers gives the stable sort's order, and the columns are
    // read back from the sorted keys alone: an incast logs tens of
    // thousands of losses, and every intermediate copy of them was pages
    // a short run's process faulted in (docs/performance.md).
    let n: usize = w.tcp_flows().iter().map(|f| f.stats.loss_log.len()).sum();
    debug_assert!(n < 1 << 31, "a loss's place must fit its 31 bits");
    let mut order: Vec<u128> = Vec::with_capacity(n);
    for f in w.tcp_flows() {
        for &(t, to) in &f.stats.loss_log {
            let place = order.len() as u128;
            order.push((t.0 as u128) << 64 | (f.id as u128) << 32 | place << 1 | to as u128);
        }
    }
    order.sort_unstable();
    let mut losses = Table::new("losses");
    losses.push(
        "time_s",
        f64s(
            order
                .iter()
                .map(|&k| SimTime((k >> 64) as u64).as_secs_f64()),
        ),
    );
    losses.push(
        "flow_id",
        u64s(order.iter().map(|&k| (k >> 32) as u32 as u64)),
    );
    losses.push(
        "kind",
        Column::Str(
            order
                .iter()
                .map(|&k| {
                    Cow::Borrowed(if k & 1 == 1 {
                        "timeout"
                    } else {
                        "fast_retransmit"
                    })
                })
                .collect(),
        ),
    );
    losses
}

/// The `trace` samples, as `flow_ts` and `queue_ts` (none without `trace`).
fn trace_tables(w: &World) -> Vec<Table> {
    let Some(tr) = w.trace() else {
        return Vec::new();
    };
    let mut ft = Table::new("flow_ts");
    ft.push("time_s", Column::F64(tr.f_time.clone()));
    ft.push("flow_id", Column::U64(tr.f_flow.clone()));
    ft.push("delivered_bytes", Column::U64(tr.f_delivered.clone()));
    ft.push("cwnd_bytes", Column::U64(tr.f_cwnd.clone()));
    ft.push("ssthresh_bytes", Column::F64(tr.f_ssthresh.clone()));
    ft.push("srtt_s", Column::F64(tr.f_srtt.clone()));
    let mut qt = Table::new("queue_ts");
    qt.push("time_s", Column::F64(tr.q_time.clone()));
    qt.push("queue_id", Column::U64(tr.q_id.clone()));
    qt.push("bytes", Column::U64(tr.q_bytes.clone()));
    qt.push("pkts", Column::U64(tr.q_pkts.clone()));
    vec![ft, qt]
}

fn rounds_table(w: &World, name: &str, kind: &str) -> Table {
    let mut app = Vec::new();
    let mut round = Vec::new();
    let mut n = Vec::new();
    let mut start = Vec::new();
    let mut end = Vec::new();
    let mut dur = Vec::new();
    let mut bytes = Vec::new();
    let mut goodput = Vec::new();
    let mut timeouts = Vec::new();
    let mut request_timeouts = Vec::new();
    let mut abtt = Vec::new();
    let mut ibtt = Vec::new();
    let mut first_flight = Vec::new();
    let mut abtt_flows = Vec::new();
    for (i, a) in w.apps().iter().enumerate() {
        let App::Rounds(r) = a else { continue };
        if r.kind != kind {
            continue;
        }
        for (k, d) in r.done.iter().enumerate() {
            let span = d.end.saturating_sub(d.start).as_secs_f64();
            app.push(i as u64);
            round.push(k as u64);
            n.push(r.servers.len() as u64);
            start.push(d.start.as_secs_f64());
            end.push(d.end.as_secs_f64());
            dur.push(span);
            bytes.push(d.bytes);
            goodput.push(rate_bps(d.bytes, span));
            timeouts.push(d.timeouts);
            request_timeouts.push(d.request_timeouts);
            abtt.push(d.abtt);
            ibtt.push(d.ibtt);
            first_flight.push(d.rto_first_flight);
            abtt_flows.push(d.abtt_flows);
        }
    }
    let mut t = Table::new(name);
    t.push("app", Column::U64(app));
    t.push("round", Column::U64(round));
    t.push(
        if kind == "sync_reads" {
            "n_servers"
        } else {
            "n_workers"
        },
        Column::U64(n),
    );
    t.push("start_s", Column::F64(start));
    t.push("end_s", Column::F64(end));
    t.push("duration_s", Column::F64(dur));
    t.push("bytes", Column::U64(bytes));
    t.push("goodput_bps", Column::F64(goodput));
    t.push("timeouts", Column::U64(timeouts));
    t.push("request_timeouts", Column::U64(request_timeouts));
    t.push("abtt", Column::U64(abtt));
    t.push("ibtt", Column::U64(ibtt));
    t.push("rto_first_flight", Column::U64(first_flight));
    t.push("abtt_flows", Column::U64(abtt_flows));
    t
}

/// Jain's fairness index: one definition, in `results` (NaN for no values).
pub use crate::stats::results::jain;
