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
        assert!(w.flow.st.cwnd > 10 * m, "{ssthresh:?}: cwnd {}", w.flow.st.cwnd);
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
        let mut w = world(reno(|t| {
            t.sack = true;
            t.abc_limit = ABC_UNLIMITED;
            t.ack_counting = counting;
        }));
        w.flow.app_write(&mut w.io, 100 * m, None);
        // Segments 1 and 2 SACKed (reordering), then segment 0 arrives.
        w.flow.on_ack(&mut w.io, &sack_ack0(0, &[(m, 3 * m)]));
        assert_eq!(w.flow.st.cwnd, 10 * m, "{counting:?}: a SACK grows nothing");
        w.flow.on_ack(&mut w.io, &ack_pkt(3 * m, false));
        assert_eq!(w.flow.st.cwnd, (10 + grown) * m, "{counting:?}");
    }
}
