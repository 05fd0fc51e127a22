//! Behaviour of the congestion controls on small scenarios: DCTCP holds the
//! queue near K without loss, its window floor and "no marks, no cut"; FaST
//! loses less than DCTCP under a 100-worker incast; CUBIC flows converge to
//! a fair share; every congestion control runs with every segment policy.

mod common;
use common::*;
use dcnsim::config::*;
use dcnsim::sim::time::SimTime;
use dcnsim::world::World;

const MSS: u32 = 1460;
const PKT: u64 = 1500; // wire bytes of a full segment (40 B headers, no L2 overhead)

/// `n` hosts on one 1 Gbps switch with 25 us links; switch ports hold
/// `buffer` and mark CE above `k_pkts` packets. Host NICs hold 1000
/// packets (Linux's default txqueuelen), so an aggregator's burst of 100
/// requests plus ACKs is not dropped at its own NIC.
fn ecn_star(n: usize, buffer: Limit, k_pkts: u64) -> TopologySpec {
    let mut t = star(n, GBPS, SimTime::from_us(25), buffer);
    for l in t.links.iter_mut() {
        l.queue_ba.ecn_k = Some(Limit::Packets(k_pkts));
        l.queue_ab.limit = Limit::Packets(1000);
    }
    t
}

/// Make every host but `dst` attach at 10 Gbps, so that the switch port to
/// `dst` (1 Gbps), not a sender's own NIC, is the bottleneck even for one flow.
fn fast_senders(mut t: TopologySpec, dst: usize) -> TopologySpec {
    for (i, l) in t.links.iter_mut().enumerate() {
        if i != dst {
            l.rate_bps = 10 * GBPS;
        }
    }
    t
}

/// The directed link from the switch to host `h` in [`ecn_star`] / `star`.
fn to_host(h: usize) -> usize {
    2 * h + 1
}

fn tcp_with(cc: CcKind, f: impl FnOnce(&mut TcpConfig)) -> TcpConfig {
    let mut t = TcpConfig {
        cc,
        mss: MSS,
        ..TcpConfig::default()
    };
    if cc == CcKind::Fast {
        t.seg = SegPolicyKind::Fast;
    }
    f(&mut t);
    t
}

fn bulk(src: usize, dst: usize, start: SimTime, dur: SimTime, tcp: TcpConfig) -> AppSpec {
    AppSpec::Bulk {
        src,
        dst,
        amount: BulkAmount::Duration(dur),
        start,
        tcp,
    }
}

/// Queue occupancy at the bottleneck sampled every `dt` over [from, to],
/// and the bytes it sent in that interval.
struct Sampled {
    mean_bytes: f64,
    min_bytes: u64,
    max_bytes: u64,
    tx_bytes: u64,
}

fn sample_queue(w: &mut World, link: usize, from: SimTime, to: SimTime, dt: SimTime) -> Sampled {
    w.run_until(from);
    // `occupancy` brings the link's lazily retired buffer (and its tx
    // counters) up to the given time.
    w.core.links.occupancy(link, from);
    let tx0 = w.core.links.stats(link).tx_bytes;
    let (mut sum, mut n, mut lo, mut hi) = (0u128, 0u64, u64::MAX, 0u64);
    let mut t = from;
    while t < to {
        t += dt;
        w.run_until(t);
        let (q, _) = w.core.links.occupancy(link, t);
        sum += q as u128;
        n += 1;
        lo = lo.min(q);
        hi = hi.max(q);
    }
    Sampled {
        mean_bytes: sum as f64 / n as f64,
        min_bytes: lo,
        max_bytes: hi,
        tx_bytes: w.core.links.stats(link).tx_bytes - tx0,
    }
}

/// DCTCP paper (Alizadeh et al., SIGCOMM 2010, §3.3) and RFC 8257 §1:
/// with N synchronized flows the queue oscillates with Q_max = K + N and
/// amplitude A ≈ ½·√(2N(C·RTT + K)) packets. Here C·RTT ≈ 9 packets and
/// K = 20, so the sawtooth spans about [K − 1, K + 2] for N = 2 and
/// [K − 2, K + 10] for N = 10: its mean lies well inside [K/2, 2K], a band
/// that a marking or α bug (queue pinned at the buffer, or drained) leaves.
#[test]
fn dctcp_holds_the_queue_near_k_without_loss() {
    let k = 20;
    // (flows, delayed ACKs): the last case exercises the receiver's
    // RFC 8257 §3.2 CE state machine.
    for (n, dack) in [(2usize, false), (5, false), (10, false), (5, true)] {
        let topo = ecn_star(n + 1, Limit::Bytes(100_000), k);
        let dur = SimTime::from_ms(600);
        let tcp = tcp_with(CcKind::Dctcp, |t| {
            t.delayed_ack = dack;
            t.delayed_ack_timeout = SimTime::from_us(500);
        });
        let apps = (0..n)
            .map(|i| bulk(i, n, SimTime::ZERO, dur, tcp.clone()))
            .collect();
        let cfg = config(topo, apps, SimTime::from_secs(1));
        let mut w = World::new(&cfg);
        let link = to_host(n);
        let (from, to) = (SimTime::from_ms(100), SimTime::from_ms(600));
        let s = sample_queue(&mut w, link, from, to, SimTime::from_us(10));
        w.run();
        let drops = w.core.links.stats(link).dropped;
        let marked = w.core.links.stats(link).marked;
        let r = dcnsim::finish(w, 0.0);
        check_conservation(&r);
        let util = s.tx_bytes as f64 * 8.0 / (GBPS as f64 * (to.0 - from.0) as f64 * 1e-12);
        let mean_pkts = s.mean_bytes / PKT as f64;
        eprintln!(
            "DCTCP n={n} delayed_ack={dack}: queue mean {mean_pkts:.1} pkt (min {}, max {}), util {util:.4}, drops {drops}, marked {marked}",
            s.min_bytes / PKT,
            s.max_bytes / PKT
        );
        assert_eq!(drops, 0, "n={n}: DCTCP must not overflow a 100 KB buffer");
        assert!(marked > 0);
        assert!(
            mean_pkts > 0.5 * k as f64 && mean_pkts < 2.0 * k as f64,
            "n={n}: mean queue {mean_pkts:.1} packets vs K = {k}"
        );
        assert!(util > 0.95, "n={n}: utilization {util:.4}");
        assert!(s.min_bytes > 0, "n={n}: the queue never drains");
        let g = col_f64(&r, "flows", "goodput_bps");
        assert!(
            dcnsim::stats::report::jain(g) > 0.95,
            "n={n}: goodputs {g:?}"
        );
        assert_eq!(col_u64(&r, "flows", "timeouts").iter().sum::<u64>(), 0);
    }
}

/// FaST's setup (§5.1–5.2) on a star: an aggregator and `workers` workers
/// on 1 Gbps / 25 us links, 100 KB ports marking at K = 20, RTOmin 10 ms,
/// 10 KB responses. Returns (bottleneck drops, timeouts, mean QCT in s).
fn incast(cc: CcKind, workers: usize, queries: u32, f: impl Fn(&mut TcpConfig)) -> (u64, u64, f64) {
    let topo = ecn_star(workers + 1, Limit::Bytes(100_000), 20);
    let tcp = tcp_with(cc, |t| {
        t.rto_min = SimTime::from_ms(10);
        f(t);
    });
    let apps = vec![AppSpec::PartitionAggregate {
        aggregator: 0,
        workers: (1..=workers).collect(),
        response_bytes: 10_000,
        request_bytes: 64,
        queries,
        gap: SimTime::ZERO,
        start: SimTime::ZERO,
        tcp,
    }];
    let r = dcnsim::run(&config(topo, apps, SimTime::from_secs(100)));
    check_conservation(&r);
    let qct = col_f64(&r, "queries", "qct_s");
    assert_eq!(qct.len(), queries as usize, "{cc:?}: every query completes");
    let to = match r.table("queues").unwrap().column("to").unwrap() {
        dcnsim::stats::results::Column::Str(v) => v.clone(),
        _ => unreachable!(),
    };
    // The aggregator's switch port: the incast bottleneck.
    let i = to.iter().position(|n| n == "h0").unwrap();
    let drops = col_u64(&r, "queues", "dropped")[i];
    let timeouts = col_u64(&r, "flows", "timeouts").iter().sum();
    (drops, timeouts, qct.iter().sum::<f64>() / qct.len() as f64)
}

/// FaST §5.2 (Fig. 4–6): with 100 workers DCTCP overflows the aggregator's
/// port and times out; FaST's probing stage and sub-MSS segments keep the
/// burst inside the buffer. DCTCP's own limit sits near FaST eq. (7)'s
/// N*max = (C·RTT + B)/(Wmin·MSS) ≈ (12.5 KB + 100 KB)/3 KB ≈ 37.5 flows.
#[test]
fn fast_loses_fewer_packets_than_dctcp_with_100_workers() {
    let q = 10;
    let (d_drops, d_to, d_qct) = incast(CcKind::Dctcp, 100, q, |_| {});
    let (f_drops, f_to, f_qct) = incast(CcKind::Fast, 100, q, |_| {});
    eprintln!(
        "100 workers, {q} queries: DCTCP {d_drops} drops, {d_to} timeouts, QCT {:.1} ms; \
         FaST {f_drops} drops, {f_to} timeouts, QCT {:.1} ms",
        d_qct * 1e3,
        f_qct * 1e3
    );
    assert!(
        d_drops > 0 && d_to > 0,
        "DCTCP should suffer incast at 100 workers"
    );
    // Fewer by a good margin (under once-per-window cuts about half of
    // DCTCP's; until 2026-12-07 an echo at the recovery point cut a
    // second time, which at FaST's two-segment windows was nearly every
    // window, and FaST lost next to nothing here).
    assert!(
        f_drops * 3 <= d_drops * 2,
        "FaST drops {f_drops} vs DCTCP {d_drops}"
    );
    assert!(f_to < d_to && f_qct < d_qct);
    // The literal reading of eq. (9) also runs; it keeps full segments
    // while 1 ≤ vwnd < Wmin, so it gains much less than the continuous
    // one — about as lossy as DCTCP (2092 drops against DCTCP's 1839 with
    // Limited Transmit, 10 queries; fewer than DCTCP without it).
    let (l_drops, _, _) = incast(CcKind::Fast, 100, q, |t| {
        t.fast.seg_rule = FastSegRule::Literal
    });
    assert!(
        f_drops <= l_drops,
        "literal FaST {l_drops} vs continuous FaST {f_drops}"
    );
    // DCTCP's scalability limit: loss-free well below N*max, lossy above.
    assert_eq!(incast(CcKind::Dctcp, 30, q, |_| {}).0, 0);
    assert!(incast(CcKind::Dctcp, 50, q, |_| {}).0 > 0);
}

/// A window counted in packets (`cwnd_counting = "packets"`, which
/// `profile = "linux"` sets) counts FaST's own segments: its three 100-byte
/// probes leave together, and below Wmin its Wmin segments of
/// `fast_segment`'s size stay in flight, as when it counts bytes. Counted
/// in MSS each was one segment: a 5,000-byte flow's probes left one a
/// round trip and it took 240 µs against 154 µs counting bytes.
#[test]
fn fast_counted_in_packets_keeps_its_segments_in_flight() {
    let fct = |counting: &str| {
        let doc = format!(
            r#"{{"name": "fast-one", "seed": 1, "stop": "1s",
                "topology": {{"kind": "star", "hosts": 3, "rate": "1Gbps", "delay": "10us",
                              "buffer": "100KB", "ecn_k": "20pkt"}},
                "tcp": {{"cc": "fast", "cwnd_counting": "{counting}"}},
                "apps": [{{"kind": "bulk", "src": 1, "dst": 0, "size": "5000B"}}]}}"#
        );
        let r = dcnsim::run(&dcnsim::scenario::parse_config_str(&doc).expect("a valid scenario"));
        check_conservation(&r);
        col_f64(&r, "flows", "fct_s")[0]
    };
    let (bytes, packets) = (fct("bytes"), fct("packets"));
    assert!(
        packets <= bytes * 1.05,
        "FCT {:.1} µs in packets against {:.1} µs in bytes",
        packets * 1e6,
        bytes * 1e6
    );
}

/// SPEC §2 pitfall: DCTCP's ssthresh keeps a floor of 2 segments. Twenty
/// flows through a port that marks above 2 packets (with a buffer too large
/// to drop): α → 1 and every window is cut, but cwnd never sinks below
/// 2·MSS, no flow stalls and none times out.
#[test]
fn dctcp_cwnd_never_drops_below_two_segments() {
    let n = 20;
    let topo = ecn_star(n + 1, Limit::Bytes(10 << 20), 2);
    let dur = SimTime::from_ms(200);
    let apps = (0..n)
        .map(|i| bulk(i, n, SimTime::ZERO, dur, tcp_with(CcKind::Dctcp, |_| {})))
        .collect();
    let cfg = config(topo, apps, SimTime::from_secs(1));
    let mut w = World::new(&cfg);
    let floor = 2 * MSS as u64;
    let (mut min_cwnd, mut at_floor) = (u64::MAX, 0u64);
    let mut t = SimTime::ZERO;
    while t < dur {
        t += SimTime::from_us(20);
        w.run_until(t);
        for f in &w.flows {
            min_cwnd = min_cwnd.min(f.st.cwnd);
            at_floor += (f.st.cwnd == floor) as u64;
        }
    }
    w.run();
    let alpha = match w.flows[0].cc() {
        dcnsim::tcp::cc::Cc::Dctcp(d) => d.alpha(),
        _ => unreachable!(),
    };
    let r = dcnsim::finish(w, 0.0);
    check_conservation(&r);
    eprintln!("min cwnd {min_cwnd}, samples at the floor {at_floor}, alpha {alpha:.3}");
    assert_eq!(min_cwnd, floor);
    assert!(at_floor > 1000, "the floor is actually exercised");
    assert!(
        alpha > 0.8,
        "persistent marking drives alpha towards 1: {alpha}"
    );
    assert_eq!(col_u64(&r, "flows", "timeouts").iter().sum::<u64>(), 0);
    assert_eq!(col_u64(&r, "flows", "drops").iter().sum::<u64>(), 0);
    let g = col_f64(&r, "flows", "goodput_bps");
    assert!(
        g.iter().all(|&x| x > 0.02 * GBPS as f64),
        "no flow stalls: {g:?}"
    );
    assert!(g.iter().sum::<f64>() > 0.9 * GBPS as f64 * 1460.0 / 1500.0);
}

/// SPEC §2 pitfall (htsim cuts at every window end): a window with no
/// marks causes no cut. One DCTCP flow with α starting at 1, limited by
/// its receiver window to a queue far below K: it is never marked, so it
/// never cuts, and runs at line rate.
#[test]
fn dctcp_window_without_marks_is_never_cut() {
    let topo = ecn_star(2, Limit::Bytes(1 << 20), 100);
    let tcp = tcp_with(CcKind::Dctcp, |t| {
        t.rwnd_bytes = 40 * MSS as u64;
        t.dctcp.alpha_init = 1.0;
    });
    let dur = SimTime::from_ms(100);
    let r = dcnsim::run(&config(
        topo,
        vec![bulk(0, 1, SimTime::ZERO, dur, tcp)],
        SimTime::from_secs(1),
    ));
    check_conservation(&r);
    assert_eq!(col_u64(&r, "flows", "ecn_marks")[0], 0);
    assert_eq!(col_u64(&r, "flows", "ecn_cuts")[0], 0);
    assert!(col_u64(&r, "flows", "final_cwnd_bytes")[0] >= 40 * MSS as u64);
    let g = col_f64(&r, "flows", "goodput_bps")[0];
    assert!(g > 0.95 * GBPS as f64 * 1460.0 / 1500.0, "goodput {g}");
}

/// And with marks: cuts happen at most once per window of data. A single
/// DCTCP flow against K = 20 cuts far less often than it is marked.
#[test]
fn dctcp_cuts_at_most_once_per_window() {
    let topo = fast_senders(ecn_star(2, Limit::Bytes(100_000), 20), 1);
    let dur = SimTime::from_ms(200);
    let tcp = tcp_with(CcKind::Dctcp, |_| {});
    let r = dcnsim::run(&config(
        topo,
        vec![bulk(0, 1, SimTime::ZERO, dur, tcp)],
        SimTime::from_secs(1),
    ));
    check_conservation(&r);
    let marks = col_u64(&r, "flows", "ecn_marks")[0];
    let cuts = col_u64(&r, "flows", "ecn_cuts")[0];
    // The window oscillates around BDP + K ≈ 29 packets and a cut takes
    // off α/2 (α ≈ √(2/W) ≈ 0.3 for one flow): every window is well over
    // 20 packets, so there are fewer than delivered / 20 packets windows.
    let windows = col_u64(&r, "flows", "delivered_bytes")[0] / (20 * PKT);
    eprintln!("marks {marks}, cuts {cuts}, windows ≈ {windows}");
    assert!(
        cuts > 0 && cuts <= windows,
        "cuts {cuts} vs ≈ {windows} windows"
    );
    assert!(cuts < marks);
}

/// RFC 9438: two CUBIC flows on a drop-tail bottleneck, the second joining
/// 0.5 s later, converge to a fair share (measured over the last 6 s).
/// Without host jitter the two settle into a deterministic orbit, fair or
/// not by chance: with RFC 5681 §3.2's ssthresh (Limited Transmit's
/// segments left out, issue 24) it is a steady 561/412 Mbps split, before
/// it 487/487. 5 µs of jitter breaks the orbit (docs/model.md, "Phase
/// effects"); per-second shares then swing, so the law is over seconds.
#[test]
fn two_cubic_flows_converge_to_a_fair_share() {
    let topo = fast_senders(star(3, GBPS, SimTime::from_us(25), Limit::Packets(100)), 2);
    let tcp = tcp_with(CcKind::Cubic, |_| {});
    let end = SimTime::from_secs(8);
    let apps = vec![
        bulk(0, 2, SimTime::ZERO, end, tcp.clone()),
        bulk(
            1,
            2,
            SimTime::from_ms(500),
            end - SimTime::from_ms(500),
            tcp,
        ),
    ];
    let mut cfg = config(topo, apps, SimTime::from_secs(9));
    cfg.host_jitter = SimTime::from_us(5);
    let mut w = World::new(&cfg);
    // Goodput of each flow over [2 s, 8 s].
    w.run_until(SimTime::from_secs(2));
    let d0: Vec<u64> = w.flows.iter().map(|f| f.delivered()).collect();
    w.run_until(end);
    let g: Vec<f64> = w
        .flows
        .iter()
        .zip(&d0)
        .map(|(f, &d)| (f.delivered() - d) as f64 * 8.0 / 6.0)
        .collect();
    let (wmax, epoch) = match w.flows[0].cc() {
        dcnsim::tcp::cc::Cc::Cubic(c) => (c.w_max(), c.epoch_start_cwnd()),
        _ => unreachable!(),
    };
    w.run();
    let r = dcnsim::finish(w, 0.0);
    check_conservation(&r);
    eprintln!("CUBIC goodputs {g:?}, W_max {wmax}, epoch cwnd {epoch}");
    let ratio = g[0].min(g[1]) / g[0].max(g[1]);
    assert!(ratio > 0.9, "goodputs {g:?}");
    let ideal = GBPS as f64 * 1460.0 / 1500.0;
    assert!(g.iter().sum::<f64>() > 0.9 * ideal);
    assert!(wmax > 0 && epoch > 0 && epoch < wmax);
}

/// Any congestion control combines with any segment policy: every pair
/// runs a small incast plus a long flow with conservation intact. ECN is
/// on, so NewReno and CUBIC use the classic RFC 3168 echo through the
/// marking queues, DCTCP and FaST the per-segment one.
#[test]
fn every_cc_runs_with_every_segment_policy() {
    let ccs = [CcKind::NewReno, CcKind::Cubic, CcKind::Dctcp, CcKind::Fast];
    // TCPRand twice: static rMin = 200 B, and adaptive with the aggressive
    // preset (v_ω = 0), which is off under every CC but CUBIC.
    let segs = [
        (SegPolicyKind::Fixed, TcpRandMode::Static),
        (SegPolicyKind::Fast, TcpRandMode::Static),
        (SegPolicyKind::Dsr, TcpRandMode::Static),
        (SegPolicyKind::TcpRand, TcpRandMode::Static),
        (SegPolicyKind::TcpRand, TcpRandMode::Adaptive),
    ];
    for cc in ccs {
        for (seg, rand_mode) in segs {
            for (ecn, dack, sack, prx) in [
                (true, false, false, 0.0),
                (false, true, true, 0.0),
                (true, true, true, 0.05),
            ] {
                let topo = ecn_star(10, Limit::Bytes(32_000), 10);
                let tcp = tcp_with(cc, |t| {
                    t.seg = seg;
                    t.tcprand = TcpRandParams {
                        mode: rand_mode,
                        ..TcpRandParams::default()
                    }
                    .with_preset("aggressive")
                    .unwrap();
                    t.ecn = ecn;
                    t.delayed_ack = dack;
                    t.delayed_ack_timeout = SimTime::from_us(200);
                    t.sack = sack;
                    t.rto_min = SimTime::from_ms(1);
                    t.probretx.p = prx;
                });
                let apps = vec![
                    AppSpec::PartitionAggregate {
                        aggregator: 0,
                        workers: (1..=8).collect(),
                        response_bytes: 20_000,
                        request_bytes: 64,
                        queries: 5,
                        gap: SimTime::ZERO,
                        start: SimTime::ZERO,
                        tcp: tcp.clone(),
                    },
                    AppSpec::Bulk {
                        src: 9,
                        dst: 0,
                        amount: BulkAmount::Bytes(2_000_000),
                        start: SimTime::ZERO,
                        tcp,
                    },
                ];
                let r = dcnsim::run(&config(topo, apps, SimTime::from_secs(10)));
                check_conservation(&r);
                let what = format!(
                    "cc {cc:?} segment {seg:?} {rand_mode:?} ecn {ecn} dack {dack} prx {prx}"
                );
                if seg == SegPolicyKind::TcpRand {
                    // The bulk flow (last) sends 2 MB: with static rMin = 200 B
                    // its mean payload is near (200 + 1460)/2. Adaptive mode
                    // randomizes only under CUBIC, and only inside [τ, ω] of an
                    // epoch, so some segments are short; under any other CC
                    // every segment is full (the last one of 2 MB aside).
                    let n = r.table("flows").unwrap().rows() - 1;
                    let mean = col_u64(&r, "flows", "bytes_sent")[n] as f64
                        / col_u64(&r, "flows", "segments_sent")[n] as f64;
                    match (rand_mode, cc) {
                        (TcpRandMode::Static, _) => {
                            assert!(
                                (780.0..880.0).contains(&mean),
                                "{what}: mean payload {mean}"
                            )
                        }
                        (TcpRandMode::Adaptive, CcKind::Cubic) => {
                            assert!(mean < 1459.0, "{what}: mean payload {mean}")
                        }
                        (TcpRandMode::Adaptive, _) => {
                            assert!(mean > 1459.0, "{what}: mean payload {mean}")
                        }
                    }
                }
                assert_eq!(r.summary_value("apps_unfinished"), Some(0.0), "{what}");
                assert!(
                    col_bool(&r, "flows", "completed").iter().all(|&c| c),
                    "{what}"
                );
                let names = match r.table("flows").unwrap().column("cc").unwrap() {
                    dcnsim::stats::results::Column::Str(v) => v.clone(),
                    _ => unreachable!(),
                };
                assert!(names.iter().all(|n| n == cc.name()), "{what}");
                let marks: u64 = col_u64(&r, "flows", "ecn_marks").iter().sum();
                if ecn || cc.needs_ecn() {
                    assert!(marks > 0, "{what}: ECN is in use");
                } else {
                    assert_eq!(marks, 0, "{what}");
                }
            }
        }
    }
}

/// The congestion control is chosen per flow in scenario files: a DCTCP
/// background flow next to a FaST partition/aggregate app, from JSON.
#[test]
fn cc_is_selectable_per_app_in_scenarios() {
    let doc = r#"{
        "name": "mixed", "stop": "2s",
        "topology": {"kind": "star", "hosts": 12, "rate": "1Gbps", "delay": "25us",
                     "buffer": "100KB", "ecn_k": "20pkt"},
        "tcp": {"rto_min": "10ms", "cc": "dctcp"},
        "apps": [
            {"kind": "bulk", "src": 11, "dst": 0, "size": "5MB"},
            {"kind": "partition_aggregate", "aggregator": 0, "workers": "1-10",
             "queries": 5, "tcp": {"cc": "fast", "fast_seg_rule": "literal"}},
            {"kind": "bulk", "src": 1, "dst": 11, "size": "1MB", "tcp": {"cc": "cubic", "ecn": true}}
        ]
    }"#;
    let r = dcnsim::run_json(doc, None).unwrap();
    check_conservation(&r);
    let col = |name: &str| match r.table("flows").unwrap().column(name).unwrap() {
        dcnsim::stats::results::Column::Str(v) => v.clone(),
        _ => unreachable!(),
    };
    let (cc, seg, role) = (col("cc"), col("segment"), col("role"));
    assert_eq!((&*cc[0], &*seg[0]), ("dctcp", "fixed"));
    for i in 1..cc.len() - 1 {
        assert_eq!((&*cc[i], &*seg[i]), ("fast", "fast"), "{}", role[i]);
    }
    assert_eq!(cc.last().unwrap(), "cubic");
    assert!(col_bool(&r, "flows", "completed").iter().all(|&c| c));
    assert!(col_u64(&r, "flows", "ecn_marks").iter().sum::<u64>() > 0);
}

/// Extreme but valid parameters never panic (overflow, division, empty
/// windows) under any congestion control, and conservation holds.
#[test]
fn extreme_parameters_run_under_every_cc() {
    let ccs = [CcKind::NewReno, CcKind::Cubic, CcKind::Dctcp, CcKind::Fast];
    type Tweak = fn(&mut TcpConfig);
    let tweaks: [Tweak; 7] = [
        |t| {
            t.mss = 1;
            t.fast.smin = 1;
            t.fast.probe_size = 1;
        },
        |t| {
            t.rwnd_bytes = t.mss as u64;
            t.init_cwnd_segments = 1;
            t.dupack_threshold = 1;
        },
        |t| {
            t.fast.wmin = u32::MAX;
            t.fast.probe_segments = u32::MAX;
            t.fast.probe_size = t.mss;
        },
        |t| {
            t.fast.probe_segments = 0;
            t.fast.seg_rule = FastSegRule::Literal;
            t.dctcp.g = 1.0;
            t.fast.g = 1.0;
            t.dctcp.alpha_init = 0.0;
            t.fast.alpha_init = 0.0;
        },
        |t| {
            t.delayed_ack = true;
            t.delayed_ack_segments = 5;
            t.sack = true;
            t.header_bytes = 0;
            t.rto_min = SimTime::ZERO;
        },
        |t| {
            t.init_cwnd_segments = 1000;
            t.cubic.fast_convergence = false;
        },
        |t| {
            // A retransmit thread that marks every 1 µs, on the lowest
            // segment, with SACK; DSR with the smallest sizes.
            t.probretx.p = 1.0;
            t.probretx.period = SimTime::from_us(1);
            t.probretx.target = ProbRetxTarget::Lowest;
            t.sack = true;
            t.dsr.mss = 1;
            t.dsr.cwnd = 2;
            t.header_bytes = 4;
        },
    ];
    for cc in ccs {
        for seg in [
            SegPolicyKind::Fixed,
            SegPolicyKind::Fast,
            SegPolicyKind::Dsr,
            SegPolicyKind::TcpRand,
        ] {
            for (i, tweak) in tweaks.iter().enumerate() {
                for (buffer, k) in [(Limit::Packets(1), 0), (Limit::Packets(8), 2)] {
                    let topo = ecn_star(5, buffer, k);
                    let tcp = tcp_with(cc, |t| {
                        t.seg = seg;
                        t.ecn = true;
                        t.rto_min = SimTime::from_us(200);
                        tweak(t);
                    });
                    let apps = vec![
                        AppSpec::PartitionAggregate {
                            aggregator: 0,
                            workers: vec![1, 2, 3],
                            response_bytes: 3000,
                            request_bytes: 1,
                            queries: 2,
                            gap: SimTime::ZERO,
                            start: SimTime::ZERO,
                            tcp: tcp.clone(),
                        },
                        bulk(4, 0, SimTime::ZERO, SimTime::from_ms(2), tcp),
                    ];
                    eprintln!("{cc:?} {seg:?} tweak {i} {buffer:?}");
                    let r = dcnsim::run(&config(topo, apps, SimTime::from_ms(5)));
                    check_conservation(&r);
                }
            }
        }
    }
}
