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

/// Linux arms the probe 2·SRTT, rounded up to whole jiffies, plus
/// TCP_TIMEOUT_MIN (2 jiffies) after the last ACK, and it fires at a tick
/// (tcp_schedule_loss_probe; HZ = 250 by default); RFC 8985 at 2·SRTT.
#[test]
fn linux_probes_at_a_tick_two_jiffies_after_rfc8985() {
    use crate::tcp::jiffies::timer_deadline;
    for rules in [RackTimers::Rfc8985, RackTimers::Linux] {
        let mut w = open_with_a_lost_tail(rules, |_| ());
        let srtt = w.flow.srtt().unwrap();
        let due = match rules {
            RackTimers::Rfc8985 => ACK_AT + SimTime(2 * srtt.0),
            RackTimers::Linux => timer_deadline(ACK_AT, SimTime(2 * srtt.0), 2, 250),
        };
        assert!(due >= ACK_AT + SimTime(2 * srtt.0));
        run_timers(&mut w, due - SimTime(1));
        assert_eq!(w.flow.stats.tlp_probes, 0, "{rules:?}: early");
        run_timers(&mut w, due);
        assert_eq!(w.flow.stats.tlp_probes, 1, "{rules:?}");
        assert_eq!(data_sent(&w).last().unwrap().ts, due, "{rules:?}");
    }
}

/// With one segment out Linux adds TCP_RTO_MIN (200 ms, the peer's
/// worst-case delayed ACK) whatever the peer does and whatever the route's
/// RTOmin; RFC 8985's WCDelAckT only when the peer delays ACKs. In
/// jiffies, from the tick the arming falls in; capped at the RTO, the
/// probe goes first either way.
#[test]
fn a_lone_segment_probe_waits_tcp_rto_min_in_jiffies_under_linux() {
    let (us, ms) = (SimTime::from_us, SimTime::from_ms);
    let (now, srtt) = (ms(1), Some(us(100)));
    for (hz, srtt, one_out, rto_left, want) in [
        // 2·SRTT = 200 us: 1 jiffy, + 50 (200 ms), from tick 0: 204 ms
        (250, srtt, true, None, ms(203)),
        // + 2 jiffies: tick 3, 12 ms
        (250, srtt, false, None, ms(11)),
        (1000, srtt, false, None, ms(3)),
        (250, None, false, None, ms(999)),
        (250, srtt, true, Some(ms(5)), ms(5) - SimTime(1)),
    ] {
        let got = RackTlp::pto_linux(now, srtt, one_out, hz, rto_left);
        assert_eq!(
            got, want,
            "HZ {hz}, srtt {srtt:?}, one out {one_out}, RTO in {rto_left:?}"
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

/// Linux's reordering timer waits the window's remainder rounded up to
/// whole jiffies plus TCP_TIMEOUT_MIN (2 jiffies) and fires at a tick
/// (tcp_rack_mark_lost; HZ = 250 by default): the same SACK of the tenth
/// segment starts recovery 8–16 ms after RFC 8985's timer would.
#[test]
fn linux_reordering_timer_fires_at_a_tick_two_jiffies_later() {
    let first_retx = |rules| {
        let mut w = ten_out_under_rack(|t| t.rack_timers = rules);
        let m = MSS as u64;
        w.flow
            .on_ack(&mut w.io, &sack_ack(0, &[(9 * m, 10 * m)], SimTime::ZERO));
        run_timers(&mut w, SimTime::from_ms(50));
        assert_eq!(retransmitted(&w).first(), Some(&0), "{rules:?}");
        let sent = data_sent(&w);
        sent.iter().find(|p| p.flags & flags::RETX != 0).unwrap().ts
    };
    let (rfc, linux) = (
        first_retx(RackTimers::Rfc8985),
        first_retx(RackTimers::Linux),
    );
    let jiffy = SimTime::from_ms(4);
    assert_eq!(linux.ps() % jiffy.ps(), 0, "{linux:?} is on a tick");
    assert!(linux >= rfc + SimTime(2 * jiffy.0), "{rfc:?} -> {linux:?}");
    assert!(linux < rfc + SimTime(4 * jiffy.0), "{rfc:?} -> {linux:?}");
}
