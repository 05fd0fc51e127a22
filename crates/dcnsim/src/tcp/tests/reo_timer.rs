//! Recovery that RACK's reordering timer starts, with no ACK to pace it.

use super::*;
use crate::config::{LossRecovery, RackTimers, Reduction, Reordering};
use crate::tcp::recovery::rack::RackTlp;

/// RACK with SACK, `set` applied to the config; ten segments sent at
/// t = 0 and the clock run to `ACK_AT`, before any ACK.
fn ten_out_under_rack(set: impl FnOnce(&mut TcpConfig)) -> Script {
    let mut t = loss_tcp(LossRecovery::Rack, Reordering::Fixed);
    set(&mut t);
    let mut w = world(t);
    w.flow.app_write(&mut w.io, 10 * MSS as u64, None);
    run_timers(&mut w, ACK_AT);
    w
}

/// Ten segments at t = 0; at `ACK_AT` a SACK of the last one only. One
/// SACKed segment is below the duplicate threshold, so RACK waits out the
/// reordering window of the nine sent before it; its timer then finds all
/// nine lost and starts recovery. Returns the world 100 µs on, before any
/// further ACK.
fn reo_timer_entry(red: Reduction) -> Script {
    let mut w = ten_out_under_rack(|t| t.reduction = red);
    let m = MSS as u64;
    w.flow
        .on_ack(&mut w.io, &sack_ack(0, &[(9 * m, 10 * m)], SimTime::ZERO));
    assert!(retransmitted(&w).is_empty(), "{red:?}: RACK waits");
    run_timers(&mut w, ACK_AT + SimTime::from_us(100));
    assert_eq!(w.flow.cong, CongState::Recovery, "{red:?}");
    w
}

/// Recovery entered by the reordering timer is paced by the reduction
/// rule, as on an ACK that delivered one segment without advancing
/// snd_una (Linux's tcp_rack_reo_timeout): PRR-bis lets only the fast
/// retransmission leave, RFC 6937's slow-start bound one segment more,
/// where RFC 6675's cwnd = ssthresh sends ssthresh − pipe at once.
#[test]
fn recovery_entered_by_the_reordering_timer_is_paced_by_prr() {
    let m = MSS as u64;
    for (red, sent) in [(Reduction::PrrBis, 1), (Reduction::Prr, 2)] {
        let w = reo_timer_entry(red);
        assert_eq!(retransmitted(&w), (0..sent).collect::<Vec<_>>(), "{red:?}");
        assert!(w.flow.st.cwnd <= w.flow.board().pipe + m, "{red:?}");
    }
    let w = reo_timer_entry(Reduction::Rfc6675);
    let ssthresh = w.flow.st.ssthresh / m;
    assert_eq!(ssthresh, 5, "half the flight of 10");
    assert_eq!(retransmitted(&w), (0..ssthresh).collect::<Vec<_>>());
}

/// A tail loss probe of a single segment allows for the peer's
/// worst-case delayed ACK (RFC 8985 §7.2's WCDelAckT, 200 ms, as Linux),
/// not the receiver's usual 40 ms timer; capped at the RTO it still goes
/// first, and the RTO restarts after it (Linux arms the probe in the
/// retransmission timer's place).
#[test]
fn a_one_segment_probe_waits_for_a_delayed_ack_and_goes_before_the_rto() {
    let mut t = loss_tcp(LossRecovery::Rack, Reordering::Fixed);
    t.delayed_ack = true;
    let mut w = world(t);
    w.flow.app_write(&mut w.io, MSS as u64, None);
    let rto_at = w.flow.rto.deadline().expect("RTO armed");
    run_timers(&mut w, SimTime::from_ms(150));
    assert_eq!(w.flow.stats.tlp_probes, 0, "not after 2·SRTT + 40 ms");
    run_timers(&mut w, rto_at + SimTime::from_ms(50));
    assert_eq!(w.flow.stats.tlp_probes, 1);
    assert_eq!(w.flow.stats.timeouts, 0, "the probe, not the RTO");
    let probe_at = data_sent(&w).last().unwrap().ts;
    assert_eq!(probe_at, rto_at - SimTime(1));
}

/// Ten segments at t = 0, the first seven cumulatively ACKed at `ACK_AT`
/// under `rack_timers`, the last three lost: the flow is Open with an
/// RTT sample and nothing SACKed. `before_last` runs before the seventh
/// ACK. Returns the world then.
fn open_with_a_lost_tail(rules: RackTimers, before_last: impl Fn(&mut Script)) -> Script {
    let mut w = ten_out_under_rack(|t| t.rack_timers = rules);
    let m = MSS as u64;
    for i in 1..=7 {
        if i == 7 {
            before_last(&mut w);
        }
        w.flow
            .on_ack(&mut w.io, &sack_ack(i * m, &[], SimTime::ZERO));
    }
    w
}

/// Linux arms the probe 2·SRTT + TCP_TIMEOUT_MIN (2 ms) after the last
/// ACK (tcp_schedule_loss_probe), RFC 8985 at 2·SRTT.
#[test]
fn linux_probes_two_milliseconds_after_rfc8985() {
    for (rules, slack) in [
        (RackTimers::Rfc8985, SimTime::ZERO),
        (RackTimers::Linux, SimTime::from_ms(2)),
    ] {
        let mut w = open_with_a_lost_tail(rules, |_| ());
        let srtt = w.flow.srtt().unwrap();
        let due = ACK_AT + SimTime(2 * srtt.0) + slack;
        run_timers(&mut w, due - SimTime(1));
        assert_eq!(w.flow.stats.tlp_probes, 0, "{rules:?}: early");
        run_timers(&mut w, due);
        assert_eq!(w.flow.stats.tlp_probes, 1, "{rules:?}");
        assert_eq!(data_sent(&w).last().unwrap().ts, due, "{rules:?}");
    }
}

/// With one segment out Linux adds the connection's RTOmin (the peer's
/// worst-case delayed ACK) whatever the peer does; RFC 8985's WCDelAckT
/// only when the peer delays ACKs. Capped at the RTO, the probe goes
/// first either way.
#[test]
fn a_lone_segment_probe_waits_rto_min_under_linux() {
    let us = SimTime::from_us;
    let (srtt, rto_min) = (Some(us(100)), SimTime::from_ms(10));
    for (srtt, one_out, rto_left, want) in [
        (srtt, true, None, us(10_200)),
        (srtt, false, None, us(2_200)),
        (None, false, None, SimTime::from_secs(1)),
        (srtt, true, Some(us(5_000)), us(5_000) - SimTime(1)),
    ] {
        let got = RackTlp::pto_linux(srtt, one_out, rto_min, rto_left);
        assert_eq!(
            got, want,
            "srtt {srtt:?}, one out {one_out}, RTO in {rto_left:?}"
        );
    }
}

/// Linux probes only in Open (and CWR): once a segment is SACKed or a
/// retransmission is outstanding the connection is in Disorder, where
/// an ACK that advances snd_una arms the RTO, not the probe, and a probe
/// armed before gives way to it (tcp_set_xmit_timer); RFC 8985 keeps
/// probing while the flow is not in recovery.
#[test]
fn linux_sends_no_probe_in_disorder() {
    let m = MSS as u64;
    for (rules, probes) in [(RackTimers::Rfc8985, 1), (RackTimers::Linux, 0)] {
        // The seventh ACK leaves segment 7 at the head, marked as once
        // retransmitted (tcp_any_retrans_done): Disorder.
        let mut w = open_with_a_lost_tail(rules, |w| {
            let head = w.flow.segs.iter_mut().find(|s| s.start == 7 * m).unwrap();
            head.retx_ever = true;
            w.flow.stats.retransmits += 1; // as the retransmission counts it
        });
        let rto_at = w.flow.rto.deadline().expect("RTO armed");
        run_timers(&mut w, rto_at - SimTime(2));
        assert_eq!(w.flow.stats.tlp_probes, probes, "{rules:?}");
        assert_eq!(w.flow.cong, CongState::Open, "{rules:?}");
    }
}
