//! Linux's window growth under `profile = "linux"`: slow start counts
//! every segment an ACK covers (`abc_limit = "unlimited"`), and cwnd grows
//! only while the sender uses it (`cwnd_validation = "linux"`).

use super::*;
use crate::config::{CwndValidation, ABC_UNLIMITED};

/// NewReno, 1000-byte segments, an initial window of 10, no ECN.
fn linux_growth(abc_limit: u32, validation: CwndValidation) -> TcpConfig {
    reno(|t| {
        t.abc_limit = abc_limit;
        t.cwnd_validation = validation;
    })
}

/// Slow start under the Linux profile grows cwnd by the number of
/// segments an ACK covers, where RFC 3465's L = 2 caps it at two; it
/// stops at ssthresh either way.
#[test]
fn linux_slow_start_grows_cwnd_by_the_segments_an_ack_covers() {
    let m = MSS as u64;
    for (limit, per_ack) in [(ABC_UNLIMITED, 4), (2, 2)] {
        let mut w = world(linux_growth(limit, CwndValidation::Off));
        w.flow.app_write(&mut w.io, 100 * m, None);
        w.flow.on_ack(&mut w.io, &ack_pkt(4 * m, false));
        assert_eq!(w.flow.st.cwnd, (10 + per_ack) * m, "abc_limit {limit}");
    }
    // Capped at ssthresh: the rest goes to congestion avoidance.
    let mut w = world(reno(|t| {
        t.abc_limit = ABC_UNLIMITED;
        t.init_ssthresh_segments = Some(12);
    }));
    w.flow.app_write(&mut w.io, 100 * m, None);
    w.flow.on_ack(&mut w.io, &ack_pkt(8 * m, false));
    assert_eq!(w.flow.st.cwnd, 12 * m);
}

/// cwnd does not grow while the sender is application-limited: an
/// application that keeps 3 segments in flight under a window of 10 gets
/// every one ACKed and cwnd stays 10 (slow start grows only below twice
/// the largest flight); without validation each ACK adds a segment.
#[test]
fn cwnd_does_not_grow_while_the_sender_is_application_limited() {
    let m = MSS as u64;
    for (validation, grown) in [(CwndValidation::Linux, 10), (CwndValidation::Off, 10 + 30)] {
        let mut w = world(linux_growth(ABC_UNLIMITED, validation));
        let mut acked = 0;
        for _ in 0..10 {
            w.flow.app_write(&mut w.io, 3 * m, None);
            for _ in 0..3 {
                acked += m;
                w.flow.on_ack(&mut w.io, &ack_pkt(acked, false));
            }
        }
        assert_eq!(w.flow.st.cwnd, grown * m, "{validation:?}");
    }
}

/// Slow start under validation still reaches twice the largest flight of
/// the window being ACKed, and no more: 9 segments out grow cwnd to 18.
#[test]
fn validated_slow_start_grows_to_twice_the_flight_used() {
    let m = MSS as u64;
    let mut w = world(linux_growth(ABC_UNLIMITED, CwndValidation::Linux));
    w.flow.app_write(&mut w.io, 9 * m, None);
    for k in 1..=9 {
        w.flow.on_ack(&mut w.io, &ack_pkt(k * m, false));
    }
    assert_eq!(w.flow.st.cwnd, 18 * m);
}

/// A sender that fills cwnd grows it as before, in slow start and in
/// congestion avoidance; one held back by the receiver's window does not.
#[test]
fn cwnd_grows_when_cwnd_limited_and_not_when_rwnd_limited() {
    let m = MSS as u64;
    for ssthresh in [None, Some(10)] {
        let mut w = world(reno(|t| {
            t.abc_limit = ABC_UNLIMITED;
            t.cwnd_validation = CwndValidation::Linux;
            t.init_ssthresh_segments = ssthresh;
        }));
        w.flow.app_write(&mut w.io, 1000 * m, None);
        let mut acked = 0;
        for _ in 0..20 {
            acked += m;
            w.flow.on_ack(&mut w.io, &ack_pkt(acked, false));
        }
        assert!(
            w.flow.st.cwnd > 10 * m,
            "{ssthresh:?}: cwnd {}",
            w.flow.st.cwnd
        );
    }
    let mut w = world(reno(|t| {
        t.abc_limit = ABC_UNLIMITED;
        t.cwnd_validation = CwndValidation::Linux;
        t.init_ssthresh_segments = Some(10);
        t.rwnd_bytes = 5 * MSS as u64;
    }));
    w.flow.app_write(&mut w.io, 1000 * m, None);
    let mut acked = 0;
    for _ in 0..100 {
        acked += m;
        w.flow.on_ack(&mut w.io, &ack_pkt(acked, false));
    }
    assert_eq!(w.flow.st.cwnd, 10 * m, "rwnd-limited: cwnd untouched");
}

/// A Reno sender in slow start with unlimited ABC, SACK on or off and
/// the given ACK counting, with 100 segments written.
fn counting_world(sack: bool, counting: crate::config::AckCounting) -> Script {
    let mut w = world(reno(|t| {
        t.sack = sack;
        t.abc_limit = ABC_UNLIMITED;
        t.ack_counting = counting;
    }));
    w.flow.app_write(&mut w.io, 100 * MSS as u64, None);
    w
}

/// Under `ack_counting = "delivered"` a segment grows the window once,
/// when first delivered: a SACK alone grows nothing, and the cumulative
/// ACK that then covers the SACKed segments counts only the bytes it newly
/// delivers. RFC 5681's `acked` counts the SACKed ones at the cumulative
/// ACK.
#[test]
fn delivered_counting_counts_a_sacked_segment_once() {
    use crate::config::AckCounting;
    let m = MSS as u64;
    for (counting, grown) in [(AckCounting::Delivered, 1), (AckCounting::Acked, 3)] {
        let mut w = counting_world(true, counting);
        // Segments 1 and 2 SACKed (reordering), then segment 0 arrives.
        w.flow.on_ack(&mut w.io, &sack_ack0(0, &[(m, 3 * m)]));
        assert_eq!(w.flow.st.cwnd, 10 * m, "{counting:?}: a SACK grows nothing");
        w.flow.on_ack(&mut w.io, &ack_pkt(3 * m, false));
        assert_eq!(w.flow.st.cwnd, (10 + grown) * m, "{counting:?}");
    }
}

/// Under cwnd validation a congestion signal reduces cwnd, as Linux's
/// ssthresh functions do (RFC 9438 §4.6 allows it only with validation):
/// a timeout with one segment in flight under a window of 10 sets
/// ssthresh to half the window, where RFC 5681's FlightSize gives the
/// floor of two segments.
#[test]
fn under_validation_ssthresh_comes_from_cwnd_not_the_flight() {
    let m = MSS as u64;
    for (validation, ssthresh) in [(CwndValidation::Linux, 5), (CwndValidation::Off, 2)] {
        let mut w = world(linux_growth(ABC_UNLIMITED, validation));
        w.flow.app_write(&mut w.io, m, None);
        run_timers(&mut w, SimTime::from_ms(300));
        assert_eq!(w.flow.stats.timeouts, 1, "{validation:?}");
        assert_eq!(w.flow.st.ssthresh, ssthresh * m, "{validation:?}");
    }
}

/// cwnd after an idle period: kept while the idle time is below the RTO;
/// beyond it RFC 5681 §4.1 restarts from min(IW, cwnd), Linux halves cwnd
/// per RTO of idle time down to the initial window, and `off` keeps it.
#[test]
fn an_idle_sender_restarts_its_window_after_an_rto_of_silence() {
    use crate::config::IdleRestart;
    let m = MSS as u64;
    for (idle_ms, restart, cwnd) in [
        (150, IdleRestart::Linux, 40),
        (150, IdleRestart::Rfc5681, 40),
        (300, IdleRestart::Linux, 20),
        (700, IdleRestart::Linux, 10),
        (300, IdleRestart::Rfc5681, 10),
        (300, IdleRestart::Off, 40),
    ] {
        let mut w = world(reno(|t| {
            t.idle_restart = restart;
            t.abc_limit = ABC_UNLIMITED;
        }));
        // Two rounds of slow start, each fully ACKed: cwnd 10 → 20 → 40.
        w.flow.app_write(&mut w.io, 10 * m, None);
        w.flow.on_ack(&mut w.io, &ack_pkt(10 * m, false));
        w.flow.app_write(&mut w.io, 20 * m, None);
        w.flow.on_ack(&mut w.io, &ack_pkt(30 * m, false));
        assert_eq!(w.flow.st.cwnd, 40 * m);
        run_timers(&mut w, SimTime::from_ms(idle_ms));
        w.flow.app_write(&mut w.io, 100 * m, None);
        assert_eq!(
            w.flow.st.cwnd,
            cwnd * m,
            "{restart:?} after {idle_ms} ms (RTO {:?})",
            w.flow.current_rto()
        );
    }
}

/// tcp_cubic (`cubic_linux`, the linux profile) grows cwnd at least one
/// segment per 20 acknowledged while W_max is unknown (bictcp_update caps
/// cnt at 20 while `last_max_cwnd == 0`): before the first congestion
/// event and again after a timeout, which resets it. On the plateau of the
/// curve (K = 0, t + min RTT ≈ 1 s) RFC 9438's arithmetic adds nothing in
/// 22 segments, nor does Linux's once a loss has set W_max.
#[test]
fn linux_cubic_grows_a_segment_per_20_acked_while_w_max_is_unknown() {
    use crate::config::CubicParams;
    use crate::tcp::cc::cubic::Cubic;
    use crate::tcp::cc::tests::{ack, st};
    use crate::tcp::cc::{CongestionControl, LossKind};
    let m = 1000; // st()'s SMSS
                  // 11 ACKs of 2 segments, 100 ms apart, min RTT 100 ms, from cwnd 48 in
                  // congestion avoidance: 22 segments acknowledged.
    let grow = |c: &mut Cubic| {
        let mut s = st(48 * m, 48 * m);
        for i in 0..11 {
            let mut a = ack(i * 100_000, 2 * m, false, 2 * m, 2 * m);
            a.rtt = Some(SimTime::from_ms(100));
            c.on_ack(&mut s, &a);
        }
        s.cwnd / m
    };
    let params = |linux| CubicParams {
        linux,
        ..CubicParams::default()
    };
    assert_eq!(
        grow(&mut Cubic::new(params(true))),
        49,
        "linux, no loss yet"
    );
    assert_eq!(grow(&mut Cubic::new(params(false))), 48, "RFC 9438");
    for (kind, cwnd) in [(LossKind::DupAck, 48), (LossKind::Rto, 49)] {
        let mut c = Cubic::new(params(true));
        c.ssthresh(&st(48 * m, 0), 48 * m, kind, SimTime::ZERO);
        assert_eq!(grow(&mut c), cwnd, "linux after {kind:?}");
    }
}

/// Without SACK, `ack_counting = "delivered"` counts each duplicate ACK as
/// a segment delivered (Linux's tcp_add_reno_sack), so the cumulative ACK
/// after two of them delivers its three segments less those two, and at
/// least one (tcp_remove_reno_sacks): cwnd grows by 1 in slow start, where
/// RFC 5681's `acked` grows it by 3.
#[test]
fn without_sack_duplicate_acks_count_as_delivered() {
    use crate::config::AckCounting;
    let m = MSS as u64;
    for (counting, grown) in [(AckCounting::Delivered, 1), (AckCounting::Acked, 3)] {
        let mut w = counting_world(false, counting);
        // Segments 1 and 2 arrive before segment 0 (reordering).
        w.flow.on_ack(&mut w.io, &ack_pkt(0, false));
        w.flow.on_ack(&mut w.io, &ack_pkt(0, false));
        assert_eq!(w.flow.st.cwnd, 10 * m, "{counting:?}: dupacks grow nothing");
        w.flow.on_ack(&mut w.io, &ack_pkt(3 * m, false));
        assert_eq!(w.flow.st.cwnd, (10 + grown) * m, "{counting:?}");
        // The next ACK counts in full: the duplicate ACKs are used up.
        w.flow.on_ack(&mut w.io, &ack_pkt(5 * m, false));
        assert_eq!(w.flow.st.cwnd, (12 + grown) * m, "{counting:?}");
    }
}

/// Once reordering has raised the degree above `dupack_threshold` (Linux's
/// `tp->reordering > net.ipv4.tcp_reordering`), `ack_counting =
/// "delivered"` grows cwnd on an ACK that only SACKs new data
/// (tcp_may_raise_cwnd: FLAG_FORWARD_PROGRESS); below it such an ACK grows
/// nothing (FLAG_DATA_ACKED only), nor does it under RFC 5681's `acked`.
#[test]
fn a_sack_grows_cwnd_once_reordering_raised_the_degree() {
    use crate::config::AckCounting;
    let m = MSS as u64;
    for (counting, degree, grown) in [
        (AckCounting::Delivered, 10, 1),
        (AckCounting::Delivered, 3, 0),
        (AckCounting::Acked, 10, 0),
    ] {
        let mut w = world(reno(|t| {
            t.sack = true;
            t.abc_limit = ABC_UNLIMITED;
            t.ack_counting = counting;
        }));
        w.flow.dupthresh = degree;
        w.flow.app_write(&mut w.io, 100 * m, None);
        w.flow.on_ack(&mut w.io, &sack_ack0(0, &[(m, 2 * m)]));
        assert_eq!(
            w.flow.st.cwnd,
            (10 + grown) * m,
            "{counting:?}, degree {degree}"
        );
    }
}

/// tcp_cubic recomputes its cnt at most every HZ/32 jiffies (28 ms at
/// HZ = 250) while cwnd is unchanged (bictcp_update returns early): 15 ACKs
/// 2 ms apart
/// from cwnd 7 after a timeout keep the cnt of 20 computed on the first,
/// though the Reno-friendly window (one segment per 7·15/8 = 13 ACKed)
/// has reached 8 meanwhile; the next ACK, 40 ms later, recomputes cnt = 7
/// and cwnd grows.
#[test]
fn linux_cubic_keeps_its_cnt_for_a_32nd_of_a_second() {
    use crate::config::CubicParams;
    use crate::tcp::cc::cubic::Cubic;
    use crate::tcp::cc::tests::{ack, st};
    use crate::tcp::cc::{CongestionControl, LossKind};
    let m = 1000; // st()'s SMSS
    let mut c = Cubic::new(CubicParams {
        linux: true,
        ..CubicParams::default()
    });
    c.ssthresh(&st(10 * m, 0), 10 * m, LossKind::Rto, SimTime::ZERO);
    let mut s = st(7 * m, 7 * m);
    let mut on = |s: &mut _, us| {
        let mut a = ack(us, m, false, m, m);
        a.rtt = Some(SimTime::from_ms(100));
        c.on_ack(s, &a);
    };
    for i in 0..15 {
        on(&mut s, 1_000_000 + i * 2_000);
    }
    assert_eq!(s.cwnd, 7 * m, "cnt held at 20 for 28 ms");
    on(&mut s, 1_068_000);
    assert_eq!(s.cwnd, 8 * m, "cnt recomputed: 7");
}

/// The Linux profile with CUBIC, ECN and SACK, 1000-byte segments, and
/// the ECN response `mode`.
fn ecn_cubic(mode: crate::config::EcnReduction) -> TcpConfig {
    TcpConfig {
        cc: CcKind::Cubic,
        mss: MSS,
        ecn: true,
        sack: true,
        ecn_reduction: mode,
        ..TcpConfig::linux()
    }
}

/// Linux's CWR by PRR (`ecn_reduction = "prr"`), as Linux 6.18 runs
/// packetdrill's cwnd-moderation-ecn-enter-cwr script (measured on the
/// lab's kernel with CUBIC; validation/packetdrill/scripts/ecn-cwr-prr.pkt
/// holds it): with cwnd 10 and four segments out, the ACK of the first
/// echoes a mark. ssthresh becomes CUBIC's 0.7 · 10 = 7, and cwnd = the
/// three in flight + min(ssthresh − 3, 1 delivered + 1) = 5; the next
/// ACKs keep it at in flight plus min(ssthresh − in flight, delivered −
/// sent + 1), no growth, also on the ACK of everything sent before the
/// echo (CWR holds until something above that point is ACKed); the ACK
/// past it ends CWR at ssthresh. RFC 3168's cut (`"cut"`) sets cwnd = 7
/// at once and never goes below.
#[test]
fn cwr_by_prr_reduces_the_window_ack_by_ack_as_linux() {
    let m = MSS as u64;
    let run = |mode: crate::config::EcnReduction| {
        let mut w = world(ecn_cubic(mode));
        w.flow.app_write(&mut w.io, 4 * m, None);
        assert_eq!(data_sent(&w).len(), 4);
        let mut seen = Vec::new();
        w.flow.on_ack(&mut w.io, &ack_pkt(m, true));
        seen.push((w.flow.st.cwnd / m, w.flow.st.ssthresh / m));
        for k in 2..=4 {
            w.flow.on_ack(&mut w.io, &ack_pkt(k * m, false));
            seen.push((w.flow.st.cwnd / m, w.flow.st.ssthresh / m));
        }
        // New data, and the ACK of one segment of it.
        w.flow.app_write(&mut w.io, 4 * m, None);
        w.flow.on_ack(&mut w.io, &ack_pkt(5 * m, false));
        seen.push((w.flow.st.cwnd / m, w.flow.st.ssthresh / m));
        seen
    };
    assert_eq!(
        run(crate::config::EcnReduction::Prr),
        [(5, 7), (5, 7), (5, 7), (5, 7), (7, 7)]
    );
    let cut = run(crate::config::EcnReduction::Cut);
    assert_eq!(cut[0], (7, 7), "RFC 3168: cut at once");
    assert!(cut.iter().all(|c| c.0 >= 7), "never below it: {cut:?}");
}

/// A loss found during a CWR by PRR starts fast recovery with the
/// echo's ssthresh (Linux's tcp_enter_recovery starts no second reduction
/// while one is under way): ten segments out, an echo on the first ACK
/// (ssthresh 7), three ACKs in CWR, then three SACKs past 4001:5001. Under
/// `"cut"` too (RFC 3168 §6.1.2: once per window of data). DCTCP is the
/// exception: Linux's dctcp_state answers the entry into Recovery with
/// dctcp_react_to_loss, half the window, whatever CWR had set (RFC 8257
/// §3.5), under either mode.
#[test]
fn a_loss_during_cwr_by_prr_keeps_the_echos_ssthresh() {
    let m = MSS as u64;
    let run = |mode: crate::config::EcnReduction, cc: CcKind| {
        let mut t = ecn_cubic(mode);
        t.cc = cc;
        t.dctcp.alpha_init = 0.0;
        let mut w = world(t);
        w.flow.app_write(&mut w.io, 10 * m, None);
        // (every ACK one RTT after the window: RACK then times the resend
        // after the SACKed segments' sends)
        run_timers(&mut w, ACK_AT);
        w.flow.on_ack(&mut w.io, &ack_pkt(m, true));
        for k in 2..=4 {
            w.flow.on_ack(&mut w.io, &ack_pkt(k * m, false));
        }
        for k in 6..=8 {
            w.flow.on_ack(
                &mut w.io,
                &sack_ack(4 * m, &[(5 * m, k * m)], SimTime::ZERO),
            );
        }
        assert_eq!(w.flow.cong, CongState::Recovery, "{mode:?}");
        assert_eq!(retransmitted(&w), vec![4], "{mode:?}");
        (w.flow.st.ssthresh / m, w.flow.stats.ecn_cuts)
    };
    use crate::config::EcnReduction::{Cut, Prr};
    assert_eq!(run(Prr, CcKind::Cubic), (7, 1));
    assert_eq!(run(Cut, CcKind::Cubic), (7, 1), "a second reduction");
    for mode in [Prr, Cut] {
        // α = 0: the echo leaves ssthresh at the window (10); the loss halves it.
        let (ssthresh, cuts) = run(mode, CcKind::Dctcp);
        assert_eq!(cuts, 1, "{mode:?}");
        assert!(
            ssthresh <= 5,
            "{mode:?}: DCTCP kept its echo's ssthresh {ssthresh}"
        );
    }
}
