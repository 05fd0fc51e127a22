//! TCP mechanisms visible in a run: delayed ACKs, ECN, SACK, RTO backoff; and UDP CBR.

mod common;
use common::*;
use dcnsim::config::*;
use dcnsim::sim::time::SimTime;
use dcnsim::stats::results::Results;

fn bulk(src: usize, dst: usize, bytes: u64, t: TcpConfig) -> AppSpec {
    AppSpec::Bulk {
        src,
        dst,
        amount: BulkAmount::Bytes(bytes),
        start: SimTime::ZERO,
        tcp: t,
    }
}

fn run(topo: TopologySpec, apps: Vec<AppSpec>, stop_s: u64) -> Results {
    let r = dcnsim::run(&config(topo, apps, SimTime::from_secs(stop_s)));
    check_conservation(&r);
    r
}

#[test]
fn delayed_ack_halves_the_ack_count() {
    let topo = || star(2, GBPS, SimTime::from_us(25), Limit::Packets(100));
    let plain = run(topo(), vec![bulk(0, 1, 10 << 20, tcp(1460))], 5);
    let t = TcpConfig {
        delayed_ack: true,
        ..tcp(1460)
    };
    let delayed = run(topo(), vec![bulk(0, 1, 10 << 20, t)], 5);
    // every segment that was not dropped on the way is acknowledged once
    let segs = (col_u64(&plain, "flows", "segments_sent")[0] - col_u64(&plain, "flows", "drops")[0])
        as f64;
    let acks_plain = col_u64(&plain, "flows", "acks_sent")[0] as f64;
    let acks_delayed = col_u64(&delayed, "flows", "acks_sent")[0] as f64;
    assert_eq!(acks_plain, segs, "one ACK per segment without delayed ACKs");
    let ratio = acks_delayed
        / (col_u64(&delayed, "flows", "segments_sent")[0] - col_u64(&delayed, "flows", "drops")[0])
            as f64;
    assert!((0.45..0.6).contains(&ratio), "delayed ACK ratio {ratio:.3}");
    assert!(col_bool(&delayed, "flows", "completed")[0]);
}

#[test]
fn ecn_newreno_backs_off_on_marks_instead_of_losing_packets() {
    // K = 20 packets far below the 200-packet buffer: marks come long
    // before the buffer fills, and RFC 3168 halving keeps it from filling.
    let mut topo = star(3, GBPS, SimTime::from_us(25), Limit::Packets(200));
    for l in topo.links.iter_mut() {
        l.queue_ba.ecn_k = Some(Limit::Packets(20));
    }
    let t = TcpConfig {
        ecn: true,
        ..tcp(1460)
    };
    let r = run(
        topo,
        vec![bulk(0, 2, 20 << 20, t.clone()), bulk(1, 2, 20 << 20, t)],
        10,
    );
    let marked: u64 = col_u64(&r, "queues", "marked").iter().sum();
    let switch_drops: u64 = col_u64(&r, "queues", "dropped").iter().sum();
    let cuts = col_u64(&r, "flows", "ecn_cuts");
    assert!(
        marked > 0 && cuts.iter().all(|&c| c > 0),
        "marks {marked}, cuts {cuts:?}"
    );
    assert_eq!(switch_drops, 0, "ECN should have prevented every drop");
    let max_pkts = col_u64(&r, "queues", "max_pkts");
    assert!(max_pkts.iter().all(|&m| m < 200));
}

#[test]
fn sack_repairs_a_multi_loss_window_without_timeouts_or_spurious_retransmits() {
    // One flow into an 8-packet buffer: slow start overshoots and loses many
    // segments of one window; SACK retransmits exactly the lost ones.
    let topo = || star(2, GBPS, SimTime::from_us(25), Limit::Packets(8));
    let mk = |sack| {
        let mut topo = topo();
        // make the switch port the bottleneck: a 10 Gbps sender NIC
        topo.links[0].rate_bps = 10 * GBPS;
        let t = TcpConfig {
            sack,
            init_cwnd_segments: 10,
            ..tcp(1460)
        };
        run(topo, vec![bulk(0, 1, 4 << 20, t)], 20)
    };
    let (nr, sack) = (mk(false), mk(true));
    for r in [&nr, &sack] {
        assert!(col_bool(r, "flows", "completed")[0]);
        assert!(
            col_u64(r, "flows", "drops")[0] > 3,
            "the scenario must lose several packets in a window"
        );
    }
    assert_eq!(col_u64(&sack, "flows", "timeouts")[0], 0);
    let (retx, drops) = (
        col_u64(&sack, "flows", "retransmits")[0],
        col_u64(&sack, "flows", "drops")[0],
    );
    assert_eq!(
        retx, drops,
        "SACK should retransmit exactly what was dropped"
    );
    assert!(col_f64(&sack, "flows", "fct_s")[0] <= col_f64(&nr, "flows", "fct_s")[0]);
}

#[test]
fn rto_backoff_doubles_and_is_capped() {
    // A UDP source at line rate owns the receiver's port (1-packet buffer):
    // every TCP segment is dropped and the sender lives on timeouts.
    let timeouts = |cap: u32| {
        let topo = star(3, GBPS, SimTime::from_us(25), Limit::Packets(1));
        let t = TcpConfig {
            max_backoff: cap,
            ..tcp(1460)
        };
        let udp = AppSpec::UdpCbr {
            src: 1,
            dst: 2,
            rate_bps: GBPS,
            payload_bytes: 1472,
            start: SimTime::ZERO,
            stop: SimTime::from_secs(20),
        };
        let r = run(topo, vec![udp, bulk(0, 2, 1 << 20, t)], 20);
        col_u64(&r, "flows", "timeouts")[0]
    };
    // RTO 200 ms doubling: 0.2+0.4+…+12.8 s = 25.4 s > 20 s → at most 7 timeouts.
    let (t64, t4) = (timeouts(64), timeouts(4));
    assert!(
        (5..=7).contains(&t64),
        "capped at 64×: {t64} timeouts in 20 s"
    );
    // capped at 4× (0.8 s): 0.2+0.4 then every 0.8 s → about 25
    assert!(t4 >= 20, "capped at 4×: {t4} timeouts in 20 s");
}

#[test]
fn udp_cbr_delivers_its_rate_on_an_idle_link() {
    let topo = star(2, GBPS, SimTime::from_us(25), Limit::Packets(100));
    let udp = AppSpec::UdpCbr {
        src: 0,
        dst: 1,
        rate_bps: 100_000_000,
        payload_bytes: 1000,
        start: SimTime::ZERO,
        stop: SimTime::from_secs(1),
    };
    let r = run(topo, vec![udp], 2);
    let g = col_f64(&r, "flows", "goodput_bps")[0];
    // the rate is on the wire: payload share 1000 / (1000 + 28 UDP/IP)
    let expect = 100e6 * 1000.0 / 1028.0;
    assert!(
        (g - expect).abs() / expect < 0.01,
        "UDP goodput {g:.0} vs {expect:.0}"
    );
    assert_eq!(col_u64(&r, "flows", "drops")[0], 0);
}
