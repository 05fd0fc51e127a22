//! The I/O-free TCP endpoint driven by a script of timed events, for the
//! packetdrill runner (validation/packetdrill/run.py): no network, no event
//! loop, only the endpoint, its timers and its outbox.
//!
//!     cargo build --release --example packetdrill_endpoint -p dcnsim
//!     target/release/examples/packetdrill_endpoint < events.json
//!
//! Input (stdin, JSON): `{"tcp": {..[tcp] keys..}, "handshake_rtt_us": N,
//! "end_us": N, "events": [{"t_us": N, "op": ...}, ...]}` with `op` one of
//! `write` (`bytes`), `ack` (`ack`, `sack` [[start, end], ...], `win`,
//! `ece`), `window` (`win`: the handshake's), `data` (`seq`, `len`, `ce`, `cwr`), `info` (`id`). Sequence
//! numbers are the endpoint's: byte 0 is the first data byte. The `tcp`
//! keys are layered over `profile = "linux"` exactly as a scenario's
//! `[tcp]` is, so the same checks and error messages apply.
//!
//! Output (stdout): one JSON object a line, in order — every packet the
//! endpoint sent (`{"t_us", "kind": "data"|"ack", ...}`) and, for each
//! `info` event, the endpoint's `tcp_info` at that time.

use dcnsim::config::{AppSpec, TcpConfig};
use dcnsim::net::{flags, Packet, PktKind};
use dcnsim::sim::rng::{stream, Stream};
use dcnsim::sim::time::SimTime;
use dcnsim::tcp::{TcpFlow, TcpIo, TcpOut, TcpTimer};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::sync::Arc;

fn fail(msg: String) -> ! {
    eprintln!("packetdrill_endpoint: {msg}");
    std::process::exit(2);
}

/// The `[tcp]` table resolved over the linux profile by the scenario
/// parser: one bulk flow on a two-host star carries it.
fn resolve(tcp: &Value) -> TcpConfig {
    let mut t = tcp.as_object().cloned().unwrap_or_default();
    t.entry("profile").or_insert(json!("linux"));
    let doc = json!({
        "name": "packetdrill",
        "stop": "1s",
        "topology": {"kind": "star", "hosts": 2, "rate": "1Gbps", "delay": "10us", "buffer": "100pkt"},
        "tcp": t,
        "apps": [{"kind": "bulk", "src": 0, "dst": 1, "size": "1MB"}],
    });
    match dcnsim::scenario::parse_config(&doc) {
        Ok(c) => match c.apps.into_iter().next() {
            Some(AppSpec::Bulk { tcp, .. }) => tcp,
            _ => fail("the scenario lost its bulk app".into()),
        },
        Err(errs) => fail(
            errs.iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("; "),
        ),
    }
}

fn us(t: SimTime) -> f64 {
    t.0 as f64 / 1e6
}

fn u64_of(e: &Value, k: &str) -> u64 {
    e.get(k)
        .and_then(Value::as_u64)
        .unwrap_or_else(|| fail(format!("event {e}: '{k}' must be a non-negative integer")))
}

struct Driver {
    flow: TcpFlow,
    io: TcpIo,
    /// Wake-ups asked for and not yet handed back: (time, order asked, timer).
    wakes: Vec<(SimTime, u64, TcpTimer)>,
    asked: u64,
    out: Vec<String>,
    /// Last transmission time of each segment, by its end: the timestamp a
    /// peer's ACK echoes (RFC 7323 §4.3, an in-order receiver ACKing at once).
    sent_at: std::collections::BTreeMap<u64, SimTime>,
}

impl Driver {
    /// Move the outbox to the output and the wake-up list.
    fn collect(&mut self) {
        let now = self.io.now();
        for o in self.io.drain() {
            match o {
                TcpOut::Wake { at, timer } => {
                    self.wakes.push((at, self.asked, timer));
                    self.asked += 1;
                }
                TcpOut::Send(p) | TcpOut::SendNicStamped(p) => {
                    if p.kind == PktKind::Data {
                        self.sent_at.insert(p.seq + p.payload as u64, now);
                    }
                    self.out.push(packet_line(now, &p))
                }
            }
        }
    }

    /// Hand back every wake-up due by `t`, earliest (then first asked) first.
    fn advance(&mut self, t: SimTime) {
        while let Some(i) = (0..self.wakes.len())
            .filter(|&i| self.wakes[i].0 <= t)
            .min_by_key(|&i| (self.wakes[i].0, self.wakes[i].1))
        {
            let (at, _, timer) = self.wakes.swap_remove(i);
            self.flow.on_timer(self.io.at(at), timer);
            self.collect();
        }
        self.io.at(t);
    }
}

fn packet_line(now: SimTime, p: &Packet) -> String {
    let v = match p.kind {
        PktKind::Data => json!({
            "t_us": us(now), "kind": "data", "seq": p.seq, "len": p.payload,
            "retx": p.flags & flags::RETX != 0,
            "ect": p.flags & flags::ECT != 0,
            "cwr": p.flags & flags::CWR != 0,
        }),
        _ => json!({
            "t_us": us(now), "kind": "ack", "ack": p.seq,
            "sack": p.sack[..p.nsack as usize].iter().map(|&(a, b)| [a, b]).collect::<Vec<_>>(),
            "ece": p.flags & flags::ECE != 0,
        }),
    };
    v.to_string()
}

fn main() {
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .unwrap_or_else(|e| fail(format!("stdin: {e}")));
    let doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| fail(format!("stdin: {e}")));
    let cfg = resolve(doc.get("tcp").unwrap_or(&Value::Null));
    let ecn = cfg.ecn;
    let mut d = Driver {
        flow: TcpFlow::new(0, 0, 0, 1, Arc::new(cfg), stream(1, Stream::Flow, 0)),
        io: TcpIo::new(0),
        wakes: Vec::new(),
        asked: 0,
        out: Vec::new(),
        sent_at: Default::default(),
    };
    if let Some(r) = doc.get("handshake_rtt_us").and_then(Value::as_f64) {
        d.flow.handshake_sample(SimTime((r * 1e6) as u64));
    }
    let events = doc
        .get("events")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for e in &events {
        let t_us = e
            .get("t_us")
            .and_then(Value::as_f64)
            .unwrap_or_else(|| fail(format!("event {e}: 't_us' must be a number")));
        let t = SimTime((t_us * 1e6).round() as u64);
        if t < d.io.now() {
            fail(format!("event {e}: 't_us' goes back in time"));
        }
        d.advance(t);
        match e.get("op").and_then(Value::as_str).unwrap_or("") {
            "write" => {
                let n = u64_of(e, "bytes");
                d.flow.app_write(&mut d.io, n, None);
            }
            // The window of the ACK that completes the handshake.
            "window" => Arc::make_mut(&mut d.flow.cfg).rwnd_bytes = u64_of(e, "win"),
            "ack" => {
                // The peer's advertised window (already scaled) bounds the
                // flight as rwnd does.
                if let Some(w) = e.get("win").and_then(Value::as_u64) {
                    Arc::make_mut(&mut d.flow.cfg).rwnd_bytes = w;
                }
                let mut p = Packet {
                    kind: PktKind::Ack,
                    src: 1,
                    dst: 0,
                    seq: u64_of(e, "ack"),
                    ..Packet::EMPTY
                };
                if e.get("ece").and_then(Value::as_bool) == Some(true) {
                    p.flags |= flags::ECE;
                }
                if let Some(blocks) = e.get("sack").and_then(Value::as_array) {
                    for b in blocks.iter().take(3) {
                        let a = b.get(0).and_then(Value::as_u64);
                        let z = b.get(1).and_then(Value::as_u64);
                        let (Some(a), Some(z)) = (a, z) else {
                            fail(format!("event {e}: 'sack' blocks are [start, end] pairs"))
                        };
                        p.sack[p.nsack as usize] = (a, z);
                        p.nsack += 1;
                    }
                }
                // The segment this ACK answers: the highest SACKed one, or
                // the last one it acknowledges.
                let top = p.sack[..p.nsack as usize]
                    .iter()
                    .map(|b| b.1)
                    .max()
                    .unwrap_or(p.seq);
                if let Some((_, &at)) = d.sent_at.range(..=top).next_back() {
                    p.ts = at;
                }
                d.flow.on_ack(&mut d.io, &p);
            }
            "data" => {
                let mut p = Packet {
                    kind: PktKind::Data,
                    src: 1,
                    dst: 0,
                    seq: u64_of(e, "seq"),
                    payload: u64_of(e, "len") as u32,
                    flags: if ecn { flags::ECT } else { 0 },
                    ..Packet::EMPTY
                };
                p.wire = p.payload + 40;
                if e.get("ce").and_then(Value::as_bool) == Some(true) {
                    p.flags |= flags::CE;
                }
                if e.get("cwr").and_then(Value::as_bool) == Some(true) {
                    p.flags |= flags::CWR;
                }
                d.flow.on_data(&mut d.io, &p);
            }
            "info" => {
                let i = d.flow.tcp_info();
                d.out.push(
                    json!({
                        "t_us": us(t), "kind": "info", "id": e.get("id").cloned().unwrap_or(Value::Null),
                        "ca_state": i.ca_state, "snd_cwnd": i.snd_cwnd,
                        "snd_ssthresh": i.snd_ssthresh, "unacked": i.unacked,
                        "sacked": i.sacked, "lost": i.lost, "retrans": i.retrans,
                        "reordering": i.reordering, "reord_seen": i.reord_seen, "rtt": i.rtt_us,
                        "snd_una": d.flow.snd_una(), "snd_max": d.flow.snd_max(),
                    })
                    .to_string(),
                );
            }
            other => fail(format!(
                "event {e}: unknown 'op' '{other}' (write, window, ack, data, info)"
            )),
        }
        d.collect();
    }
    if let Some(end) = doc.get("end_us").and_then(Value::as_f64) {
        d.advance(SimTime((end * 1e6) as u64));
    }
    let mut so = std::io::stdout().lock();
    for l in &d.out {
        writeln!(so, "{l}").unwrap();
    }
}
