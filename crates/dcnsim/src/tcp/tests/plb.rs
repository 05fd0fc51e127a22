//! Protective Load Balancing (tcp/plb.rs): when a DCTCP sender draws a new
//! flow label, and which of its packets carry it.

use super::*;
use crate::config::PlbParams;
use proptest::prelude::*;

/// DCTCP with PLB: `rounds` congested rounds move the flow, idle moves
/// after `idle` (0: never), a round is congested at half its bytes marked.
fn plb_tcp(rounds: u32, idle: u32) -> TcpConfig {
    let mut t = tcp(CcKind::Dctcp);
    // α is each round's F, so a test can read the F PLB judged
    t.dctcp.g = 1.0;
    t.plb = PlbParams {
        enabled: true,
        rehash_rounds: rounds,
        idle_rehash_rounds: idle,
        ..PlbParams::default()
    };
    // as a scenario with `plb` defaults it (Linux's net.core.txrehash)
    t.txrehash = true;
    t
}

/// One DCTCP round closed by an ACK of everything sent but the last
/// segment (so the flight never empties), CE-echoed or not; returns the
/// rounds closed so far.
fn round(w: &mut Script, marked: bool) -> u64 {
    let ack = w.flow.snd_max() - MSS as u64;
    assert!(
        ack > w.flow.snd_una(),
        "a round needs new data acknowledged"
    );
    w.flow.on_ack(&mut w.io, &ack_pkt(ack, marked));
    match w.flow.cc() {
        Cc::Dctcp(d) => d.estimator().updates(),
        _ => unreachable!(),
    }
}

fn labels(w: &Script) -> Vec<u16> {
    data_sent(w).iter().map(|p| p.label).collect()
}

/// Three marked rounds in a row move the flow; two, then an unmarked one,
/// do not (the count starts again), and every data packet sent after the
/// move carries the new label, every one before it the old.
#[test]
fn plb_moves_a_flow_after_its_rehash_rounds_of_congestion_in_a_row() {
    let mut w = world(plb_tcp(3, 0));
    w.flow.app_write(&mut w.io, 1000 * MSS as u64, None);
    let mut closed = 0;
    for marked in [true, true, false, true, true] {
        let n = round(&mut w, marked);
        assert_eq!(n, closed + 1, "each ACK closes one round");
        closed = n;
    }
    assert_eq!(w.flow.rehashes(), 0, "never three marked rounds in a row");
    assert!(labels(&w).iter().all(|&l| l == 0));
    let before = data_sent(&w).len();
    round(&mut w, true);
    assert_eq!(w.flow.rehashes(), 1);
    let new = w.flow.label();
    assert_ne!(new, 0);
    let after = labels(&w);
    assert!(after.len() > before, "the ACK sent new data");
    assert!(after[..before].iter().all(|&l| l == 0));
    assert!(after[before..].iter().all(|&l| l == new), "{after:?}");
    // The count restarted at the move: three more marked rounds for the next.
    round(&mut w, true);
    round(&mut w, true);
    assert_eq!(w.flow.rehashes(), 1);
    round(&mut w, true);
    assert_eq!(w.flow.rehashes(), 2);
    assert_ne!(w.flow.label(), new);
}

/// A round is congested at `plb_cong_thresh` of its acknowledged bytes
/// marked, not below: at a threshold of one half, a round of which three
/// segments in eleven were marked leaves the flow where it is, a round all
/// marked moves it.
#[test]
fn plb_counts_only_rounds_marked_at_its_threshold() {
    let mut w = world(plb_tcp(1, 0));
    let m = MSS as u64;
    w.flow.app_write(&mut w.io, 1000 * m, None);
    // The first ACK closes the first round (unmarked); the next round
    // ends at what has been sent by then.
    w.flow.on_ack(&mut w.io, &ack_pkt(m, false));
    let end = w.flow.snd_max();
    assert_eq!(end, 12 * m, "slow start sent two more");
    w.flow.on_ack(&mut w.io, &ack_pkt(4 * m, true));
    w.flow.on_ack(&mut w.io, &ack_pkt(end, false));
    match w.flow.cc() {
        // α = F of the round with g = 1: the round's marked share was 3/11
        Cc::Dctcp(d) => {
            assert_eq!(d.estimator().updates(), 2);
            assert!((d.alpha() - 3.0 / 11.0).abs() < 1e-12, "{}", d.alpha());
        }
        _ => unreachable!(),
    }
    assert_eq!(w.flow.rehashes(), 0, "3/11 marked is below one half");
    round(&mut w, true);
    assert_eq!(w.flow.rehashes(), 1, "a round all marked is over it");
}

/// Without PLB nothing moves, however marked.
#[test]
fn without_plb_the_label_stays() {
    let mut w = world(tcp(CcKind::Dctcp));
    w.flow.app_write(&mut w.io, 1000 * MSS as u64, None);
    for _ in 0..30 {
        round(&mut w, true);
    }
    assert_eq!(w.flow.rehashes(), 0);
    assert!(labels(&w).iter().all(|&l| l == 0));
}

/// A timeout draws a new label for the retransmission (Linux rethinks the
/// hash on every RTO) and suspends PLB: marked rounds then move nothing
/// until `plb_suspend_rto` (plus its random part) has passed.
#[test]
fn a_timeout_moves_the_flow_and_suspends_plb() {
    let mut t = plb_tcp(1, 0);
    t.plb.suspend_rto = SimTime::from_ms(50);
    let mut w = world(t);
    w.flow.app_write(&mut w.io, 1000 * MSS as u64, None);
    let first = data_sent(&w).len();
    // RTOmin (200 ms) after the first flight, nothing acknowledged.
    let rto_at = SimTime::from_ms(201);
    run_timers(&mut w, rto_at);
    assert_eq!(w.flow.stats.timeouts, 1);
    assert_eq!(w.flow.rehashes(), 1);
    let label = w.flow.label();
    assert_ne!(label, 0);
    let sent = data_sent(&w);
    assert_eq!(sent[first].seq, 0, "the head resent");
    assert_eq!(sent[first].label, label);
    // Marked rounds while suspended: no move.
    let m = MSS as u64;
    w.flow.on_ack(&mut w.io, &ack_pkt(m, true));
    for _ in 0..5 {
        w.flow
            .on_ack(&mut w.io, &ack_pkt(w.flow.snd_max() - m, true));
    }
    assert_eq!(w.flow.rehashes(), 1, "suspended");
    // 50 ms plus at most 50 ms later the next congested round moves it.
    w.io.at(rto_at + SimTime::from_ms(100));
    w.flow
        .on_ack(&mut w.io, &ack_pkt(w.flow.snd_max() - m, true));
    assert_eq!(w.flow.rehashes(), 2);
    assert_ne!(w.flow.label(), label);
}

/// `txrehash` alone (any cc, here NewReno without ECN): every timeout draws a
/// new label for the resend, and nothing else does; PLB without it: a
/// timeout suspends PLB but keeps the label.
#[test]
fn txrehash_moves_a_flow_on_each_timeout_and_plb_without_it_keeps_the_label() {
    let mut t = tcp(CcKind::NewReno);
    t.ecn = false;
    t.txrehash = true;
    let mut w = world(t);
    w.flow.app_write(&mut w.io, 100 * MSS as u64, None);
    let first = data_sent(&w).len();
    // RTOmin 200 ms, then 400 ms backed off: two timeouts by 601 ms
    run_timers(&mut w, SimTime::from_ms(601));
    assert_eq!(w.flow.stats.timeouts, 2);
    assert_eq!(w.flow.rehashes(), 2);
    let sent = data_sent(&w);
    assert_eq!(sent.len(), first + 2, "the head, resent twice");
    assert_ne!(sent[first].label, 0);
    assert_ne!(sent[first + 1].label, sent[first].label);
    assert_eq!(sent[first + 1].label, w.flow.label());

    let mut t = plb_tcp(1, 0);
    t.txrehash = false;
    t.plb.suspend_rto = SimTime::from_ms(50);
    let mut w = world(t);
    w.flow.app_write(&mut w.io, 1000 * MSS as u64, None);
    run_timers(&mut w, SimTime::from_ms(201));
    assert_eq!(
        (w.flow.stats.timeouts, w.flow.rehashes(), w.flow.label()),
        (1, 0, 0)
    );
    let m = MSS as u64;
    w.flow.on_ack(&mut w.io, &ack_pkt(m, true));
    w.flow
        .on_ack(&mut w.io, &ack_pkt(w.flow.snd_max() - m, true));
    assert_eq!(w.flow.rehashes(), 0, "suspended by the timeout");
}

/// A sender whose last rounds were congested moves when it next sends
/// with nothing in flight (Linux's CA_EVENT_TX_START), before that send,
/// short of the forced rule's rounds; a round's end with data in flight
/// does not move it.
#[test]
fn an_idle_sender_moves_when_it_sends_again() {
    let mut w = world(plb_tcp(12, 2));
    let m = MSS as u64;
    // Ten segments, then two more on the first ACK: all twelve written.
    w.flow.app_write(&mut w.io, 12 * m, None);
    round(&mut w, true);
    assert_eq!(w.flow.snd_max(), 12 * m);
    // The second marked round ends with everything acknowledged and
    // nothing left to send.
    w.flow.on_ack(&mut w.io, &ack_pkt(12 * m, true));
    assert_eq!(w.flow.snd_una(), w.flow.snd_max());
    assert_eq!(
        w.flow.rehashes(),
        0,
        "two rounds are short of the forced rule's 12"
    );
    let before = data_sent(&w).len();
    w.io.at(SimTime::from_ms(5));
    w.flow.app_write(&mut w.io, 10 * m, None);
    assert_eq!(w.flow.rehashes(), 1, "idle after two congested rounds");
    let sent = data_sent(&w);
    assert!(sent.len() > before);
    assert!(sent[..before].iter().all(|p| p.label == 0));
    assert!(sent[before..].iter().all(|p| p.label == w.flow.label()));
    assert_ne!(w.flow.label(), 0);
}

/// Linux's tcp_plb.c, transcribed as the reference the flow's rules are
/// held to: tcp_plb_update_state, tcp_plb_check_rehash and
/// tcp_plb_update_state_upon_rto (with tcp_write_timeout's rehash when
/// `txrehash`), on `u64` picoseconds instead of jiffies.
struct LinuxPlb {
    rounds: u32,
    idle_rounds: u32,
    thresh: f64,
    txrehash: bool,
    consec: u32,
    pause_until: Option<u64>,
    rehashes: u64,
}

impl LinuxPlb {
    fn update_state(&mut self, ratio: f64) {
        if ratio < self.thresh {
            self.consec = 0;
        } else if self.consec < self.rounds {
            self.consec += 1;
        }
    }
    fn check_rehash(&mut self, packets_out: bool, now: u64) {
        let forced = self.consec >= self.rounds;
        let idle = self.idle_rounds > 0 && !packets_out && self.consec >= self.idle_rounds;
        if !forced && !idle {
            return;
        }
        if self.pause_until.is_some_and(|t| now >= t) {
            self.pause_until = None;
        }
        if self.pause_until.is_some() {
            return;
        }
        self.rehashes += 1;
        self.consec = 0;
    }
    /// `pause`: the suspension's end the flow drew (random in Linux too).
    fn upon_rto(&mut self, pause: u64) {
        if self.txrehash {
            self.rehashes += 1;
        }
        self.pause_until = Some(pause);
        self.consec = 0;
    }
}

#[derive(Clone, Debug)]
enum PlbOp {
    /// A round closes with this fraction of its bytes marked (data in flight).
    Round(f64),
    /// The sender sends again with nothing in flight.
    Idle,
    Timeout,
    /// The clock moves on, µs.
    Wait(u64),
}

fn plb_op() -> impl Strategy<Value = PlbOp> {
    prop_oneof![
        4 => prop_oneof![Just(0.0), Just(0.1), Just(0.2), Just(0.5), Just(0.7), Just(1.0), 0.0f64..=1.0]
            .prop_map(PlbOp::Round),
        1 => Just(PlbOp::Idle),
        1 => Just(PlbOp::Timeout),
        2 => (0u64..3_000).prop_map(PlbOp::Wait),
    ]
}

proptest! {
    #![proptest_config(crate::proptest_ci::config(256))]

    /// Whatever the rounds, idle restarts, timeouts and waits, the flow
    /// draws a new label exactly when Linux's PLB would, and every new label
    /// differs from the one before; a suspension ends 1–2 × `plb_suspend_rto`
    /// after its timeout.
    #[test]
    fn plb_moves_when_linux_would(
        rounds in 1u32..6,
        idle_rounds in 0u32..4,
        thresh in prop_oneof![Just(0.2), Just(0.5), 0.05f64..1.0],
        txrehash in any::<bool>(),
        ops in proptest::collection::vec(plb_op(), 1..80),
    ) {
        let mut t = plb_tcp(rounds, idle_rounds);
        t.plb.cong_thresh = thresh;
        t.plb.suspend_rto = SimTime::from_ms(1);
        t.txrehash = txrehash;
        let mut w = world(t);
        let mut linux = LinuxPlb {
            rounds, idle_rounds, thresh, txrehash, consec: 0, pause_until: None, rehashes: 0,
        };
        let mut now = SimTime::ZERO;
        for op in ops {
            let (label, drawn) = (w.flow.label(), linux.rehashes);
            match op {
                PlbOp::Round(f) => {
                    w.flow.plb_round(f, now);
                    linux.update_state(f);
                    linux.check_rehash(true, now.0);
                }
                PlbOp::Idle => {
                    w.flow.plb_tx_start(now);
                    linux.check_rehash(false, now.0);
                }
                PlbOp::Timeout => {
                    w.flow.plb_on_timeout(now);
                    let pause = w.flow.plb_pause_until().expect("a timeout suspends PLB");
                    let s = SimTime::from_ms(1).0;
                    prop_assert!(pause.0 >= now.0 + s && pause.0 < now.0 + 2 * s, "{pause} after {now}");
                    linux.upon_rto(pause.0);
                }
                PlbOp::Wait(us) => now += SimTime::from_us(us),
            }
            prop_assert_eq!(w.flow.rehashes(), linux.rehashes);
            // a new label exactly when this step drew one
            prop_assert_eq!(w.flow.label() != label, linux.rehashes != drawn);
        }
    }
}

/// `txrehash` at the receiver (Linux's tcp_rcv_spurious_retrans since
/// 6.7): a segment it already has draws a new label for the ACKs only
/// when it carries another label than the last segment did (its sender
/// timed out and moved); a duplicate on the same label (reordering, a
/// spurious fast retransmit) keeps the ACKs where they are. Every ACK
/// after the draw carries the new label; without txrehash none changes.
#[test]
fn the_receiver_moves_its_acks_on_a_duplicate_with_a_new_label_only() {
    let m = MSS as u64;
    for txrehash in [true, false] {
        let mut t = tcp(CcKind::NewReno);
        t.txrehash = txrehash;
        let mut w = world(t);
        let seg = |seq: u64, label: u16| Packet {
            label,
            ..data_pkt(seq, MSS, false)
        };
        w.flow.on_data(&mut w.io, &seg(0, 0));
        w.flow.on_data(&mut w.io, &seg(m, 0));
        // the same label again: reordering's spurious retransmission
        w.flow.on_data(&mut w.io, &seg(0, 0));
        assert_eq!(w.flow.rehashes(), 0);
        // the sender timed out and moved: its retransmission carries 7
        w.flow.on_data(&mut w.io, &seg(0, 7));
        assert_eq!(w.flow.rehashes(), u64::from(txrehash));
        // another duplicate on label 7: the last segment's label already
        w.flow.on_data(&mut w.io, &seg(m, 7));
        assert_eq!(w.flow.rehashes(), u64::from(txrehash));
        // new data on label 7, then a duplicate back on 0 (a late copy)
        w.flow.on_data(&mut w.io, &seg(2 * m, 7));
        w.flow.on_data(&mut w.io, &seg(m, 0));
        assert_eq!(w.flow.rehashes(), 2 * u64::from(txrehash));
        let labels: Vec<u16> = acks(&w).iter().map(|a| a.label).collect();
        assert!(!labels.is_empty());
        if txrehash {
            // the ACKs before the first draw on the old label, after on new ones
            assert_eq!(&labels[..3], &[0, 0, 0], "{labels:?}");
            assert!(labels[3..].iter().all(|&l| l != 0), "{labels:?}");
            assert_ne!(labels[3], *labels.last().unwrap(), "{labels:?}");
        } else {
            assert!(labels.iter().all(|&l| l == 0));
        }
    }
}
