//! RACK after a timeout (`rack_in_loss`): a resend the timeout made that is
//! lost again is found as soon as a segment resent after it is SACKed.

use super::*;
use crate::config::{CwndValidation, LossRecovery, Reordering};

/// The round trip of the scripted ACKs.
const RTT: SimTime = SimTime::from_us(100);

/// Ten segments at t = 0, all lost (the tail loss probe's copy of the last
/// too); the timeout resends the head, whose ACK lets two more go, 1 and
/// 2. Segment 1 is lost again and 2 arrives: its SACK, one RTT after both
/// left, shows 1 lost. With `rack_in_loss` (Linux: tcp_fastretrans_alert
/// runs its loss detection in TCP_CA_Loss, and FLAG_LOST_RETRANS moves the
/// connection to Recovery) segment 1 goes again at once, in Recovery;
/// without it the flow sends the next segment of its go-back-N, 3, and
/// leaves 1 to the next timeout, 400 ms on. (validation/packetdrill's
/// rto-lost-retransmission-enters-recovery.pkt, which Linux 6.18 passes,
/// is this exchange on the wire.)
#[test]
fn a_resend_lost_again_after_a_timeout_is_found_by_rack() {
    let m = MSS as u64;
    for (on, next) in [(true, 1), (false, 3)] {
        let mut t = loss_tcp(LossRecovery::Rack, Reordering::Fixed);
        t.rack_in_loss = on;
        // reductions from cwnd, as Linux's
        t.cwnd_validation = CwndValidation::Linux;
        let mut w = world(t);
        w.flow.app_write(&mut w.io, 10 * m, None);
        run_timers(&mut w, SimTime::from_ms(300));
        assert_eq!(w.flow.stats.timeouts, 1, "rack_in_loss {on}");
        assert_eq!(w.flow.cong, CongState::Loss);
        assert_eq!(
            retransmitted(&w),
            [9, 0],
            "the probe, then the timeout's head"
        );
        let head = *data_sent(&w).last().unwrap();

        run_timers(&mut w, head.ts + RTT);
        w.flow.on_ack(&mut w.io, &sack_ack(m, &[], head.ts));
        assert_eq!(
            retransmitted(&w)[2..],
            [1, 2],
            "slow start from one segment"
        );
        let pair = *data_sent(&w).last().unwrap();

        run_timers(&mut w, pair.ts + RTT);
        let fast = w.flow.stats.fast_retransmits;
        w.flow
            .on_ack(&mut w.io, &sack_ack(m, &[(2 * m, 3 * m)], pair.ts));
        assert_eq!(retransmitted(&w)[4..], [next], "rack_in_loss {on}");
        if on {
            assert_eq!(w.flow.cong, CongState::Recovery);
            assert_eq!(w.flow.stats.fast_retransmits, fast + 1);
            // the reduction starts from the window the timeout left
            assert!(
                w.flow.st.ssthresh <= 2 * m,
                "ssthresh {}",
                w.flow.st.ssthresh
            );
        } else {
            assert_eq!(w.flow.cong, CongState::Loss);
        }
    }
}

/// After the lost resend is repaired, what the timeout left unsent counts as
/// lost in Recovery: every segment reaches the receiver and the flow
/// leaves Recovery with everything acknowledged and no second timeout.
#[test]
fn recovery_after_a_lost_resend_repairs_the_whole_window() {
    let m = MSS as u64;
    let mut t = loss_tcp(LossRecovery::Rack, Reordering::Fixed);
    t.rack_in_loss = true;
    let mut w = world(t);
    w.flow.app_write(&mut w.io, 10 * m, None);
    run_timers(&mut w, SimTime::from_ms(300));
    let head = *data_sent(&w).last().unwrap();
    run_timers(&mut w, head.ts + RTT);
    w.flow.on_ack(&mut w.io, &sack_ack(m, &[], head.ts));
    let pair = *data_sent(&w).last().unwrap();
    let mut seen = data_sent(&w).len();
    run_timers(&mut w, pair.ts + RTT);
    let sack = sack_ack(m, &[(2 * m, 3 * m)], pair.ts);
    w.flow.on_ack(&mut w.io, &sack);
    assert_eq!(w.flow.cong, CongState::Recovery);
    // From here the receiver gets everything: each ACK covers, cumulatively
    // and by SACK, every segment sent since the one before.
    let mut held = [
        true, false, true, false, false, false, false, false, false, false,
    ];
    let mut now = w.io.now();
    for _ in 0..50 {
        let sent = data_sent(&w);
        for p in &sent[seen..] {
            held[(p.seq / m) as usize] = true;
        }
        seen = sent.len();
        let cum = held.iter().position(|h| !h).unwrap_or(10);
        let blocks: Vec<(u64, u64)> = (cum..10)
            .filter(|&i| held[i])
            .map(|i| (i as u64 * m, (i as u64 + 1) * m))
            .take(3)
            .collect();
        now += RTT;
        run_timers(&mut w, now);
        w.flow
            .on_ack(&mut w.io, &sack_ack(cum as u64 * m, &blocks, now));
        if cum == 10 {
            break;
        }
    }
    assert_eq!(w.flow.snd_una, 10 * m);
    assert_eq!(w.flow.stats.timeouts, 1, "no second timeout");
    assert_eq!(w.flow.cong, CongState::Open);
}
