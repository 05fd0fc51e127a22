//! Scripted sender/receiver exchanges against the I/O-free endpoint: the
//! test hands every data segment, ACK and timer wake-up to the flow and
//! reads back every packet and wake-up it asked for from its outbox. No
//! network, no event loop: the clock moves only in [`run_timers`].

use super::*;
use crate::config::{CcKind, SegPolicyKind};
use crate::sim::rng::{stream, Stream};
use crate::sim::time::tx_time;

const MSS: u32 = 1000;

/// One endpoint and everything it has asked for. The outbox is never
/// drained: it is the record the tests read.
struct Script {
    flow: TcpFlow,
    io: TcpIo,
    /// Outbox entries already looked at by [`run_timers`].
    seen: usize,
    /// Wake-ups not yet handed back: (time, order asked, timer).
    wakes: Vec<(SimTime, usize, TcpTimer)>,
}

/// Flow 0 from host 0 to host 1, as a world would build it for a two-host
/// network (1 Gbps, 10 µs links through one switch, no L2 overhead): the
/// same random stream, and the handshake's RTT sample of that path.
fn world(tcp: TcpConfig) -> Script {
    let hdr = tcp.header_bytes as u64;
    let mut flow = TcpFlow::new(0, 0, 0, 1, tcp, stream(1, Stream::Flow, 0));
    let hop = tx_time(hdr, 1_000_000_000) + SimTime::from_us(10);
    flow.handshake_sample(SimTime(4 * hop.0));
    Script {
        flow,
        io: TcpIo::new(0),
        seen: 0,
        wakes: Vec::new(),
    }
}

fn tcp(cc: CcKind) -> TcpConfig {
    TcpConfig {
        cc,
        mss: MSS,
        init_cwnd_segments: 10,
        ecn: true,
        ..TcpConfig::default()
    }
}

/// Every packet the flow has sent so far, in order.
fn emitted(w: &Script) -> Vec<Packet> {
    w.io.pending()
        .iter()
        .filter_map(|o| match o {
            TcpOut::Send(p) | TcpOut::SendNicStamped(p) => Some(*p),
            TcpOut::Wake { .. } => None,
        })
        .collect()
}

fn acks(w: &Script) -> Vec<Packet> {
    emitted(w)
        .into_iter()
        .filter(|p| p.kind == PktKind::Ack)
        .collect()
}

fn data_sent(w: &Script) -> Vec<Packet> {
    emitted(w)
        .into_iter()
        .filter(|p| p.kind == PktKind::Data)
        .collect()
}

fn ack_pkt(ack: u64, ece: bool) -> Packet {
    Packet {
        kind: PktKind::Ack,
        flags: if ece { flags::ECE } else { 0 },
        src: 1,
        dst: 0,
        seq: ack,
        ..Packet::EMPTY
    }
}

fn data_pkt(seq: u64, len: u32, ce: bool) -> Packet {
    Packet {
        kind: PktKind::Data,
        flags: flags::ECT | if ce { flags::CE } else { 0 },
        src: 0,
        dst: 1,
        seq,
        payload: len,
        wire: len + 40,
        ..Packet::EMPTY
    }
}

/// SPEC §2 pitfall: leave CWR on an ACK *at* the recovery point. An
/// app-limited flow whose data ends exactly there must respond to the next
/// ECN-Echo, not stay in CWR until some later ACK goes beyond it.
#[test]
fn cwr_ends_on_an_ack_at_the_recovery_point() {
    for cc in [CcKind::NewReno, CcKind::Dctcp] {
        let mut w = world(tcp(cc));
        let m = MSS as u64;
        w.flow.app_write(&mut w.io, 10 * m, None);
        assert_eq!(w.flow.snd_max(), 10 * m);
        let f = &mut w.flow;
        f.on_ack(&mut w.io, &ack_pkt(m, true));
        assert_eq!(f.stats.ecn_cuts, 1, "{cc:?}");
        assert!(f.ecn_in_cwr);
        assert_eq!(f.ecn_recover, 10 * m);
        // More ECE within the window: no second cut.
        f.on_ack(&mut w.io, &ack_pkt(5 * m, true));
        assert_eq!(f.stats.ecn_cuts, 1, "{cc:?}");
        // The ACK exactly at the recovery point ends CWR.
        f.on_ack(&mut w.io, &ack_pkt(10 * m, false));
        assert!(!f.ecn_in_cwr, "{cc:?}: CWR must end at the recovery point");
        f.app_write(&mut w.io, 10 * m, None);
        let f = &mut w.flow;
        f.on_ack(&mut w.io, &ack_pkt(11 * m, true));
        assert_eq!(f.stats.ecn_cuts, 2, "{cc:?}");
    }
}

/// An ACK up to the recovery point acknowledges data sent before the cut,
/// so its ECE echoes the window already answered: classic ECN's receiver
/// latches ECE until the CWR segment (which starts at the recovery point)
/// reaches it, and DCTCP's per-segment echo there marks the last segment
/// of the old window. Answered, one window cut twice (a reviewer's traces:
/// 20 of 38 cuts of one NewReno flow, 17 of 32 of one DCTCP flow). The
/// next ACK beyond it is fresh. (FaST answers ECE through the same path
/// as DCTCP; its first flight here is one small segment.)
#[test]
fn an_echo_at_the_recovery_point_does_not_cut_again() {
    for cc in [CcKind::NewReno, CcKind::Cubic, CcKind::Dctcp] {
        let mut w = world(tcp(cc));
        let m = MSS as u64;
        w.flow.app_write(&mut w.io, 10 * m, None);
        let f = &mut w.flow;
        f.on_ack(&mut w.io, &ack_pkt(m, true));
        assert_eq!((f.stats.ecn_cuts, f.ecn_recover), (1, 10 * m), "{cc:?}");
        // more to send, and room for it: the CWR segment goes out at 10m
        f.app_write(&mut w.io, 10 * m, None);
        let f = &mut w.flow;
        f.on_ack(&mut w.io, &ack_pkt(9 * m, false));
        assert!(!f.send_cwr, "{cc:?}: the CWR segment was sent");
        assert!(data_sent(&w)
            .iter()
            .any(|p| p.seq == 10 * m && p.flags & flags::CWR != 0));
        let f = &mut w.flow;
        f.on_ack(&mut w.io, &ack_pkt(10 * m, true));
        assert_eq!(
            f.stats.ecn_cuts, 1,
            "{cc:?}: the echo of the window already cut cut again"
        );
        assert!(
            !f.ecn_in_cwr,
            "{cc:?}: CWR still ends at the recovery point"
        );
        f.on_ack(&mut w.io, &ack_pkt(11 * m, true));
        assert_eq!(
            f.stats.ecn_cuts, 2,
            "{cc:?}: an echo past the CWR segment is a new event"
        );
    }
}

/// RFC 3168 §6.1.2: "reduced only once in response to a series of dropped
/// and/or CE packets from a single window". A loss found by duplicate ACKs
/// in the window an echo already cut starts recovery on the echo's
/// ssthresh under classic ECN; DCTCP and FaST answer it as conventional TCP
/// all the same (RFC 8257 §3.5, Linux's dctcp_react_to_loss), since their
/// echo's cut can be a few per cent. Outside a CWR window every one reduces.
#[test]
fn a_loss_in_the_window_an_echo_cut_reduces_again_only_under_dctcp() {
    for cc in [CcKind::NewReno, CcKind::Cubic, CcKind::Dctcp, CcKind::Fast] {
        for echo_first in [true, false] {
            let mut t = tcp(cc);
            // (α = 0: the echo's cut is DCTCP's smallest, RFC 5681's floor)
            t.dctcp.alpha_init = 0.0;
            t.fast.alpha_init = 0.0;
            let mut w = world(t);
            let m = MSS as u64;
            w.flow.app_write(&mut w.io, 100 * m, None);
            let f = &mut w.flow;
            f.on_ack(&mut w.io, &ack_pkt(m, echo_first));
            let after_ack = f.st.ssthresh;
            assert_eq!(f.ecn_in_cwr, echo_first);
            assert_eq!(f.stats.ecn_cuts, u64::from(echo_first), "{cc:?}");
            // Segment 2 is lost, inside the echo's window (below snd_max at the cut).
            for _ in 0..3 {
                f.on_ack(&mut w.io, &ack_pkt(m, false));
            }
            assert_eq!(f.cong, CongState::Recovery, "{cc:?}");
            let flight = f.snd_max() - f.snd_una;
            if echo_first && !cc.needs_ecn() {
                assert_eq!(
                    f.st.ssthresh, after_ack,
                    "{cc:?}: reduced twice in one window"
                );
            } else {
                assert!(f.st.ssthresh < after_ack, "{cc:?}: the loss must reduce");
                if cc.needs_ecn() {
                    assert!(
                        f.st.ssthresh <= flight / 2 + m,
                        "{cc:?}: not a conventional halving"
                    );
                }
            }
        }
    }
}

#[test]
fn ecn_cut_never_raises_cwnd_and_skips_growth_on_that_ack() {
    let mut w = world(TcpConfig {
        init_cwnd_segments: 1,
        ..tcp(CcKind::NewReno)
    });
    let m = MSS as u64;
    w.flow.app_write(&mut w.io, 10 * m, None);
    let f = &mut w.flow;
    assert_eq!(f.st.cwnd, m);
    // RFC 5681's 2·SMSS floor would double a 1-segment window.
    f.on_ack(&mut w.io, &ack_pkt(m, true));
    assert_eq!(f.stats.ecn_cuts, 1);
    assert_eq!(f.st.cwnd, m);
    assert_eq!(f.st.ssthresh, 2 * m);
}

/// DCTCP counts marked bytes on every ACK, in fast recovery too, and
/// updates α when the window ends there.
#[test]
fn dctcp_accounts_acks_during_fast_recovery() {
    let mut t = tcp(CcKind::Dctcp);
    t.dctcp.alpha_init = 0.0;
    t.dctcp.g = 1.0;
    let mut w = world(t);
    let m = MSS as u64;
    w.flow.app_write(&mut w.io, 100 * m, None);
    let f = &mut w.flow;
    let alpha = |f: &TcpFlow| match f.cc() {
        Cc::Dctcp(d) => (d.alpha(), d.estimator().updates()),
        _ => unreachable!(),
    };
    // The first ACK closes the initial window: α = 0, next window ends at 11·MSS.
    f.on_ack(&mut w.io, &ack_pkt(m, false));
    assert_eq!(alpha(f), (0.0, 1));
    let window_end = f.snd_max();
    // Segment 2 is lost: three duplicate ACKs start fast recovery.
    for _ in 0..3 {
        f.on_ack(&mut w.io, &ack_pkt(m, false));
    }
    assert_eq!(f.cong, CongState::Recovery);
    // A marked partial ACK, then a full one past the window's end: all of
    // it counts, inside recovery.
    f.on_ack(&mut w.io, &ack_pkt(5 * m, true));
    assert_eq!(f.cong, CongState::Recovery);
    f.on_ack(&mut w.io, &ack_pkt(window_end, false));
    let (a, n) = alpha(f);
    assert_eq!(n, 2);
    let want = 4.0 / (window_end / m - 1) as f64;
    assert!((a - want).abs() < 1e-12, "α {a} vs {want}");
}

/// RFC 8257 §3.2 with delayed ACKs: the receiver never merges marked and
/// unmarked segments into one ACK.
#[test]
fn dctcp_receiver_delayed_ack_state_machine() {
    let mut t = tcp(CcKind::Dctcp);
    t.delayed_ack = true;
    let mut w = world(t);
    let m = MSS as u64;
    let ce = [false, false, false, true, true, true, false, true];
    for (i, &c) in ce.iter().enumerate() {
        w.flow.on_data(&mut w.io, &data_pkt(i as u64 * m, MSS, c));
    }
    let got: Vec<(u64, bool)> = acks(&w)
        .iter()
        .map(|p| (p.seq / m, p.flags & flags::ECE != 0))
        .collect();
    assert_eq!(
        got,
        vec![
            (2, false), // delayed ACK of segments 1–2
            (3, false), // segment 3 was pending when CE arrived: flushed unmarked
            (4, true),  // the CE segment itself, at once
            (6, true),  // segments 5–6, delayed ACK, marked
            (7, false), // state change: immediate, unmarked (nothing pending)
            (8, true),  // state change: immediate, marked
        ]
    );
}

#[test]
fn dctcp_receiver_without_delayed_acks_echoes_each_segment() {
    let mut w = world(tcp(CcKind::Fast));
    let m = MSS as u64;
    let ce = [false, true, false, false, true, true];
    for (i, &c) in ce.iter().enumerate() {
        w.flow.on_data(&mut w.io, &data_pkt(i as u64 * m, MSS, c));
    }
    let got: Vec<bool> = acks(&w).iter().map(|p| p.flags & flags::ECE != 0).collect();
    assert_eq!(got, ce);
}

#[test]
fn classic_receiver_latches_ece_until_cwr() {
    let mut w = world(tcp(CcKind::Cubic));
    let m = MSS as u64;
    let segs = [
        (false, false),
        (true, false),
        (false, false),
        (false, true),
        (false, false),
    ];
    for (i, &(ce, cwr)) in segs.iter().enumerate() {
        let mut p = data_pkt(i as u64 * m, MSS, ce);
        if cwr {
            p.flags |= flags::CWR;
        }
        w.flow.on_data(&mut w.io, &p);
    }
    let got: Vec<bool> = acks(&w).iter().map(|p| p.flags & flags::ECE != 0).collect();
    assert_eq!(got, vec![false, true, true, false, false]);
}

#[test]
fn ecn_off_never_sets_ect_or_ece() {
    let mut t = tcp(CcKind::NewReno);
    t.ecn = false;
    let mut w = world(t);
    w.flow.app_write(&mut w.io, 3000, None);
    w.flow.on_data(&mut w.io, &data_pkt(0, MSS, true));
    assert!(data_sent(&w).iter().all(|p| p.flags & flags::ECT == 0));
    assert!(acks(&w).iter().all(|p| p.flags & flags::ECE == 0));
    // DCTCP turns ECN on whatever the config says.
    let mut t = tcp(CcKind::Dctcp);
    t.ecn = false;
    let mut w = world(t);
    w.flow.app_write(&mut w.io, 3000, None);
    assert!(data_sent(&w).iter().all(|p| p.flags & flags::ECT != 0));
}

/// Pure ACKs are ECN-capable only for a congestion control that needs ECN
/// (DCTCP, FaST: Linux's tcp_ca_needs_ecn, ns-3's DctcpEcn), so a RED port
/// with ECN marks them rather than drops them; classic RFC 3168 ECN
/// (`tcp.ecn` with CUBIC or NewReno) and ECN off send them without ECT.
#[test]
fn only_an_ecn_congestion_control_sends_ect_acks() {
    for (cc, ecn, ect) in [
        (CcKind::Dctcp, true, true),
        (CcKind::Fast, true, true),
        (CcKind::Cubic, true, false),
        (CcKind::NewReno, true, false),
        (CcKind::NewReno, false, false),
    ] {
        let mut t = tcp(cc);
        t.ecn = ecn;
        let mut w = world(t);
        let m = MSS as u64;
        for i in 0..4 {
            w.flow
                .on_data(&mut w.io, &data_pkt(i * m, MSS, i == 2 && ecn));
        }
        let a = acks(&w);
        assert!(!a.is_empty());
        assert!(
            a.iter().all(|p| (p.flags & flags::ECT != 0) == ect),
            "{cc:?}, ecn {ecn}: {:?}",
            a.iter().map(|p| p.flags).collect::<Vec<_>>()
        );
    }
}

/// RFC 3168 §6.1.5: classic ECN sends a retransmission without ECT (and
/// without CWR); a congestion control that needs ECN keeps ECT on it, as
/// Linux does (`tcp_ca_needs_ecn`). A lost first flight, resent by the RTO.
#[test]
fn only_an_ecn_congestion_control_retransmits_ect() {
    for (cc, keep) in [
        (CcKind::NewReno, false),
        (CcKind::Cubic, false),
        (CcKind::Dctcp, true),
    ] {
        let mut w = world(tcp(cc));
        w.flow.app_write(&mut w.io, 3 * MSS as u64, None);
        run_timers(&mut w, SimTime::from_secs(2));
        let sent = data_sent(&w);
        let (retx, first): (Vec<&Packet>, Vec<&Packet>) =
            sent.iter().partition(|p| p.flags & flags::RETX != 0);
        assert!(!retx.is_empty() && !first.is_empty(), "{cc:?}");
        assert!(first.iter().all(|p| p.flags & flags::ECT != 0), "{cc:?}");
        assert!(
            retx.iter().all(|p| (p.flags & flags::ECT != 0) == keep),
            "{cc:?}"
        );
        assert!(retx.iter().all(|p| p.flags & flags::CWR == 0), "{cc:?}");
    }
}

/// FaST's first flight is the probes only; the window then follows vwnd in
/// sub-MSS segments once ECN-Echo has cut it below Wmin.
#[test]
fn fast_sender_probes_then_sends_reduced_segments() {
    let mut t = tcp(CcKind::Fast);
    t.seg = SegPolicyKind::Fast;
    t.init_cwnd_segments = 2;
    let mut w = world(t);
    w.flow.app_write(&mut w.io, 50_000, None);
    let sizes = |w: &Script| data_sent(w).iter().map(|p| p.payload).collect::<Vec<_>>();
    assert_eq!(sizes(&w), vec![100, 100, 100]);
    // First probe ACKed with ECE: probing ends, α = 1 halves vwnd to 1 MSS,
    // i.e. two segments of MSS/2; with two probes still out, one fits.
    let f = &mut w.flow;
    f.on_ack(&mut w.io, &ack_pkt(100, true));
    let f = &w.flow;
    assert_eq!(f.st.cwnd, MSS as u64);
    assert_eq!(f.send_window(), MSS as u64);
    assert_eq!(sizes(&w), vec![100, 100, 100, 500]);
    let f = &mut w.flow;
    f.on_ack(&mut w.io, &ack_pkt(300, false));
    assert_eq!(sizes(&w), vec![100, 100, 100, 500, 500]);
    // The view the segment policy got carries vwnd.
    let v = w.flow.seg_view(1 << 20);
    assert_eq!(v.vwnd, Some(MSS as u64));
    assert_eq!(v.segs_sent, 5);
}

#[test]
fn cubic_exposes_w_max_and_epoch_window_to_segment_policies() {
    // The window numbers below are for a flight of exactly the initial
    // window when the loss is detected: no Limited Transmit segments.
    let mut w = world(TcpConfig {
        limited_transmit: false,
        ..tcp(CcKind::Cubic)
    });
    let m = MSS as u64;
    w.flow.app_write(&mut w.io, 100 * m, None);
    let v = w.flow.seg_view(1);
    assert_eq!((v.w_max, v.epoch_start_cwnd), (None, None));
    let f = &mut w.flow;
    // Loss of the first segment: three duplicate ACKs, then a full ACK.
    for _ in 0..3 {
        f.on_ack(&mut w.io, &ack_pkt(0, false));
    }
    let flight = f.snd_max();
    assert_eq!(f.st.ssthresh, flight * 7 / 10);
    let v = f.seg_view(1);
    assert_eq!((v.w_max, v.epoch_start_cwnd), (Some(10 * m), None));
    // The full ACK ends recovery; slow start back to ssthresh, then the
    // first ACK in congestion avoidance starts the epoch.
    let mut ack = flight;
    for _ in 0..20 {
        w.flow.on_ack(&mut w.io, &ack_pkt(ack, false));
        ack += m;
        if w.flow.seg_view(1).epoch_start_cwnd.is_some() {
            break;
        }
    }
    let v = w.flow.seg_view(1);
    assert_eq!(v.w_max, Some(10 * m));
    assert_eq!(v.epoch_start_cwnd, Some(7 * m));
    assert!(v.vwnd.is_none());
}

/// TCPRand's Algorithm 1 reads W_max as "the cwnd where losses occurred".
/// After a timeout CUBIC restarts its own curve with W_max = α (RFC 9438
/// §4.8), which would leave Algorithm 1 with no span (W_max ≤ α: off for
/// the whole epoch); the policy must instead still see the loss point and
/// randomize in the epoch that follows the timeout.
#[test]
fn tcprand_still_adapts_in_the_epoch_after_a_timeout() {
    let mut cfg = tcp(CcKind::Cubic);
    cfg.seg = SegPolicyKind::TcpRand;
    cfg.tcprand = crate::config::TcpRandParams {
        mode: crate::config::TcpRandMode::Adaptive,
        ..Default::default()
    }
    .with_preset("default")
    .unwrap();
    let mut w = world(cfg);
    let m = MSS as u64;
    w.flow.app_write(&mut w.io, 200 * m, None);
    assert_eq!(w.flow.st.cwnd, 10 * m);
    // The whole first window is lost: the RTO fires at cwnd = 10 segments.
    let deadline = w.flow.rto.deadline().unwrap();
    run_timers(&mut w, deadline);
    assert_eq!(w.flow.stats.timeouts, 1);
    assert_eq!(w.flow.st.ssthresh, 7 * m);
    // Slow start from one segment back to ssthresh, then the first ACK in
    // congestion avoidance starts CUBIC's epoch after the timeout.
    let mut ack = w.flow.snd_una();
    for _ in 0..40 {
        ack += m;
        w.flow.on_ack(&mut w.io, &ack_pkt(ack, false));
        if w.flow.st.cwnd > w.flow.st.ssthresh && w.flow.seg_view(1).epoch_start_cwnd.is_some() {
            break;
        }
    }
    let v = w.flow.seg_view(1 << 20);
    let alpha = v
        .epoch_start_cwnd
        .expect("an epoch began after the timeout");
    assert!((7 * m..8 * m).contains(&alpha), "alpha {alpha}");
    // The loss point, not CUBIC's restarted W_max (= alpha).
    assert_eq!(v.w_max, Some(10 * m));
    // Just above alpha, x = (cwnd − α)/(W_max − α) is near 0: rMin =
    // MSS·(1 − Φ(x; 1, 1)) ≈ 0.8·MSS, below a full segment.
    let rmin = w.flow.seg_policy.rmin(&v);
    let want = super::seg::tcprand::tcprand_rmin(
        &w.flow.cfg.tcprand,
        v.cwnd,
        Some(10 * m),
        Some(alpha),
        m,
    );
    assert_eq!(rmin, want);
    assert!(rmin < 9 * m / 10 && rmin > m / 2, "rMin {rmin} of MSS {m}");
}

// ------------------------------------------------ Kulkarni's mechanisms

fn marked_pkt(seq: u64, len: u32) -> Packet {
    let mut p = data_pkt(seq, len, false);
    p.flags = flags::MARKED | flags::RETX;
    p
}

/// Algorithm 2: after the normal ACK of a marked segment not seen before,
/// exactly three more ACKs with the same acknowledgement number; a marked
/// duplicate (below rcv_nxt or already buffered out of order) gets only the
/// normal ACK, as does an unmarked segment.
#[test]
fn receiver_sends_three_extra_dupacks_per_new_marked_segment() {
    for delayed in [false, true] {
        let mut t = tcp(CcKind::NewReno);
        t.ecn = false;
        t.delayed_ack = delayed;
        let mut w = world(t);
        let m = MSS as u64;
        let step = |w: &mut Script, p: Packet| {
            let before = acks(w).len();
            w.flow.on_data(&mut w.io, &p);
            acks(w)[before..]
                .iter()
                .map(|a| a.seq / m)
                .collect::<Vec<_>>()
        };
        // In order, marked, new: the cumulative ACK (at once, even with
        // delayed ACKs) and three duplicates of it.
        assert_eq!(step(&mut w, marked_pkt(0, MSS)), vec![1, 1, 1, 1]);
        // In order, unmarked: the normal ACK (none yet when delayed).
        let unmarked = step(&mut w, data_pkt(m, MSS, false));
        assert_eq!(unmarked, if delayed { vec![] } else { vec![2] });
        // Marked duplicate below rcv_nxt: the normal ACK only.
        assert_eq!(step(&mut w, marked_pkt(0, MSS)), vec![2]);
        // Out of order (segment 3 missing), marked, new: dup ACK + 3.
        assert_eq!(step(&mut w, marked_pkt(4 * m, MSS)), vec![2, 2, 2, 2]);
        // The same marked segment again: already buffered, a duplicate.
        assert_eq!(step(&mut w, marked_pkt(4 * m, MSS)), vec![2]);
        // Unmarked out of order: one duplicate ACK.
        assert_eq!(step(&mut w, data_pkt(5 * m, MSS, false)), vec![2]);
        // The marked hole-filler: cumulative ACK over the buffered data + 3.
        assert_eq!(step(&mut w, marked_pkt(2 * m, MSS)), vec![3, 3, 3, 3]);
        assert_eq!(step(&mut w, marked_pkt(3 * m, MSS)), vec![6, 6, 6, 6]);
        assert_eq!(w.flow.stats.probretx_dupacks, 12);
        assert_eq!(w.flow.delivered(), 6 * m);
    }
}

/// Hand the flow its timer wake-ups in time order (FIFO among equal
/// times, as the world's event queue does) up to `t`; the clock ends at `t`.
fn run_timers(w: &mut Script, t: SimTime) {
    loop {
        for (k, o) in w.io.pending().iter().enumerate().skip(w.seen) {
            if let TcpOut::Wake { at, timer } = *o {
                w.wakes.push((at, k, timer));
            }
        }
        w.seen = w.io.pending().len();
        let Some(i) = (0..w.wakes.len())
            .filter(|&i| w.wakes[i].0 <= t)
            .min_by_key(|&i| (w.wakes[i].0, w.wakes[i].1))
        else {
            break;
        };
        let (at, _, timer) = w.wakes.swap_remove(i);
        w.flow.on_timer(w.io.at(at), timer);
    }
    w.io.at(t);
}

fn marked_sent(w: &Script) -> Vec<u64> {
    data_sent(w)
        .iter()
        .filter(|p| p.flags & flags::MARKED != 0)
        .map(|p| p.seq / MSS as u64)
        .collect()
}

fn prx_tcp(p: f64, target: crate::config::ProbRetxTarget) -> TcpConfig {
    let mut t = tcp(CcKind::NewReno);
    t.ecn = false;
    t.rto_min = SimTime::from_ms(200);
    t.probretx.p = p;
    t.probretx.target = target;
    t
}

/// Algorithm 1 with p = 1: every 20 µs run retransmits the target segment
/// with the mark; "highest" and "lowest" pick the two ends of the window.
#[test]
fn retransmit_thread_marks_the_target_segment_every_period() {
    use crate::config::ProbRetxTarget::{Highest, Lowest};
    for (target, seg) in [(Highest, 9), (Lowest, 0)] {
        let mut w = world(prx_tcp(1.0, target));
        w.flow.app_write(&mut w.io, 10 * MSS as u64, None);
        run_timers(&mut w, SimTime::from_us(101));
        assert_eq!(marked_sent(&w), vec![seg; 5], "{target:?}");
        let f = &w.flow;
        assert_eq!(f.stats.probretx_sent, 5);
        assert_eq!(f.stats.retransmits, 5, "marked copies are retransmissions");
        let times: Vec<SimTime> = data_sent(&w)
            .iter()
            .filter(|p| p.flags & flags::MARKED != 0)
            .map(|p| p.ts)
            .collect();
        assert_eq!(times[0], SimTime::from_us(20));
        assert_eq!(times[4], SimTime::from_us(100));
    }
}

/// Algorithm 3: three duplicate ACKs suspend the thread and fast
/// retransmit; it resumes on the full ACK that ends recovery, and stops
/// (no events at all) while nothing is outstanding.
#[test]
fn thread_suspends_on_three_dupacks_and_resumes_after_recovery() {
    // The ACK of the initial window (10 segments) is the full ACK ending
    // recovery only if the duplicate ACKs released nothing beyond it.
    let mut w = world(TcpConfig {
        limited_transmit: false,
        ..prx_tcp(1.0, crate::config::ProbRetxTarget::Highest)
    });
    let m = MSS as u64;
    w.flow.app_write(&mut w.io, 20 * m, None);
    run_timers(&mut w, SimTime::from_us(20));
    assert_eq!(marked_sent(&w), vec![9]);
    for _ in 0..3 {
        let f = &mut w.flow;
        f.on_ack(&mut w.io, &ack_pkt(0, false));
    }
    let f = &w.flow;
    assert_eq!(f.cong, CongState::Recovery);
    assert_eq!(f.stats.fast_retransmits, 1);
    assert!(f.prx_suspended);
    run_timers(&mut w, SimTime::from_us(200));
    assert_eq!(marked_sent(&w), vec![9], "suspended: no runs");
    // The full ACK ends recovery: new data goes out and the thread resumes.
    let f = &mut w.flow;
    f.on_ack(&mut w.io, &ack_pkt(10 * m, false));
    assert_eq!(f.cong, CongState::Open);
    assert!(!f.prx_suspended);
    let hi = (f.snd_max() - 1) / m;
    run_timers(&mut w, SimTime::from_us(220));
    assert_eq!(marked_sent(&w), vec![9, hi]);
    // Everything acknowledged: the thread stops, nothing is scheduled.
    let f = &mut w.flow;
    while f.snd_una() < 20 * m {
        let to = f.snd_max();
        f.on_ack(&mut w.io, &ack_pkt(to, false));
    }
    assert!(!f.prx.is_armed());
    run_timers(&mut w, SimTime::from_ms(100));
    assert_eq!(marked_sent(&w), vec![9, hi]);
}

/// p = 0 never draws, never schedules a run; the tosses of 0 < p < 1 come
/// from the flow's own stream and are spaced by whole periods.
#[test]
fn thread_off_at_p_zero_and_geometric_at_small_p() {
    let mut w = world(prx_tcp(0.0, crate::config::ProbRetxTarget::Highest));
    w.flow.app_write(&mut w.io, 10 * MSS as u64, None);
    assert!(!w.flow.prx.is_armed());
    let mut w = world(prx_tcp(0.05, crate::config::ProbRetxTarget::Highest));
    w.flow.app_write(&mut w.io, 10 * MSS as u64, None);
    run_timers(&mut w, SimTime::from_ms(100));
    let times: Vec<u64> = data_sent(&w)
        .iter()
        .filter(|p| p.flags & flags::MARKED != 0)
        .map(|p| p.ts.0)
        .collect();
    // 5000 runs at p = 0.05: about 250 marked copies.
    assert!((180..320).contains(&times.len()), "{}", times.len());
    let period = SimTime::from_us(20).0;
    assert!(times.iter().all(|t| t % period == 0));
}

/// The timeout taxonomy: an RTO before any ACK of the current message is
/// an ABTT, after one an IBTT; no duplicate ACK = whole-window loss,
/// 1–2 = too few duplicate ACKs, ≥ 3 = many; a hole sent before the
/// message's first ACK arrived is a first-flight loss.
#[test]
fn timeouts_are_classified_by_block_position_and_dupacks() {
    let mut t = tcp(CcKind::NewReno);
    t.ecn = false;
    let mut w = world(t);
    let m = MSS as u64;
    // Block 0: the whole first window is lost.
    w.flow.app_write(&mut w.io, 20 * m, Some(0));
    let f = &mut w.flow;
    f.on_timeout(&mut w.io);
    assert_eq!((f.stats.abtt, f.stats.ibtt), (1, 0));
    assert_eq!(f.stats.rto_whole_window, 1);
    // The same data times out again: still anterior.
    f.on_timeout(&mut w.io);
    assert_eq!((f.stats.abtt, f.stats.ibtt), (2, 0));
    // Part of the block acknowledged, then two duplicate ACKs and an RTO.
    f.on_ack(&mut w.io, &ack_pkt(m, false));
    f.on_ack(&mut w.io, &ack_pkt(2 * m, false));
    for _ in 0..2 {
        f.on_ack(&mut w.io, &ack_pkt(2 * m, false));
    }
    f.on_timeout(&mut w.io);
    assert_eq!((f.stats.abtt, f.stats.ibtt), (2, 1));
    assert_eq!(f.stats.rto_few_dupacks, 1);
    // the two ABTTs were whole windows, this IBTT too few duplicate ACKs
    assert_eq!(
        (f.stats.ibtt_whole_window, f.stats.ibtt_few_dupacks),
        (0, 1)
    );
    // The rest of block 0 acknowledged; block 1 starts at 20·MSS.
    while f.snd_una() < 20 * m {
        let to = f.snd_max();
        f.on_ack(&mut w.io, &ack_pkt(to, false));
    }
    assert_eq!(f.snd_max(), 20 * m);
    f.app_write(&mut w.io, 40 * m, Some(1));
    let f = &mut w.flow;
    f.on_timeout(&mut w.io);
    assert_eq!((f.stats.abtt, f.stats.ibtt), (3, 1));
    // Fast recovery whose retransmission is lost: an IBTT after many dup ACKs.
    f.on_ack(&mut w.io, &ack_pkt(21 * m, false));
    let una = f.snd_una();
    for _ in 0..3 {
        f.on_ack(&mut w.io, &ack_pkt(una, false));
    }
    f.on_timeout(&mut w.io);
    assert_eq!((f.stats.abtt, f.stats.ibtt), (3, 2));
    assert_eq!(f.stats.rto_many_dupacks, 1);
    // Every hole so far was in its block's first flight (the 10 segments
    // sent before the block's first ACK).
    assert_eq!(f.stats.rto_first_flight, 5);
    // Past block 1's first flight, a timeout is only an IBTT.
    for _ in 0..100 {
        if f.snd_una() >= 32 * m {
            break;
        }
        let to = f.snd_max().min(f.snd_una() + m);
        f.on_ack(&mut w.io, &ack_pkt(to, false));
    }
    assert!(f.snd_una() >= 32 * m);
    f.on_timeout(&mut w.io);
    assert_eq!((f.stats.abtt, f.stats.ibtt), (3, 3));
    assert_eq!(f.stats.rto_first_flight, 5);
    let s = &f.stats;
    // the last IBTT came after new ACKs alone: a whole window; of the
    // three ABTTs (all whole windows) none counts among the IBTTs' kinds
    assert_eq!((s.ibtt_whole_window, s.ibtt_few_dupacks), (1, 1));
    assert_eq!(s.rto_whole_window - s.ibtt_whole_window, s.abtt);
    assert_eq!(
        s.ibtt,
        s.ibtt_whole_window + s.ibtt_few_dupacks + s.rto_many_dupacks
    );
    assert_eq!(s.timeouts, s.abtt + s.ibtt);
    assert_eq!(
        s.timeouts,
        s.rto_whole_window + s.rto_few_dupacks + s.rto_many_dupacks
    );
}

/// DSR in the sender: the connection starts with MSS_dsr segments and a
/// window of init_cwnd of them; when the window reaches cwnd_dsr segments
/// the segment size grows and the bytes allowed in flight do not change.
#[test]
fn dsr_sender_resizes_without_changing_bytes_in_flight() {
    let mut t = tcp(CcKind::NewReno);
    t.ecn = false;
    t.seg = SegPolicyKind::Dsr;
    t.init_cwnd_segments = 2;
    t.mss = 1024;
    let mut w = world(t);
    w.flow.app_write(&mut w.io, 1 << 20, None);
    let sizes = |w: &Script| data_sent(w).iter().map(|p| p.payload).collect::<Vec<_>>();
    assert_eq!(sizes(&w), vec![50, 50]);
    let mut resized = 0;
    // ACK one segment at a time (slow start) and watch each resize.
    for _ in 0..400 {
        let f = &mut w.flow;
        let (una, smss) = (f.snd_una(), f.st.smss);
        let next = una + data_sent(&w).iter().find(|p| p.seq == una).unwrap().payload as u64;
        let f = &mut w.flow;
        let wnd_before = f.send_window() + (next - una).min(2 * smss);
        f.on_ack(&mut w.io, &ack_pkt(next, false));
        if f.st.smss != smss {
            resized += 1;
            // The growth of this ACK happened first; the resize kept the window.
            assert_eq!(f.send_window(), wnd_before, "window bytes kept");
            assert!(f.st.cwnd >= 50 * smss);
            assert_eq!(f.st.smss, (2 * f.st.cwnd / 50).min(1024));
            // What is in flight is the window, in the new size's segments.
            assert!(f.snd_max() - f.snd_una() <= f.send_window());
            assert!(f.snd_max() - f.snd_una() + f.st.smss > f.send_window());
        }
    }
    assert!(resized >= 3, "resized {resized} times");
    let last = *sizes(&w).last().unwrap() as u64;
    assert_eq!(last, w.flow.st.smss);
}

// ------------------------------------------------------ reordering, RACK-TLP

fn loss_tcp(
    recovery: crate::config::LossRecovery,
    reordering: crate::config::Reordering,
) -> TcpConfig {
    let mut t = tcp(CcKind::NewReno);
    t.ecn = false;
    t.sack = true;
    t.recovery = recovery;
    t.reordering = reordering;
    t.rto_min = SimTime::from_ms(200);
    t
}

fn sack_ack(ack: u64, blocks: &[(u64, u64)], ts: SimTime) -> Packet {
    let mut p = ack_pkt(ack, false);
    p.ts = ts;
    for (i, &b) in blocks.iter().enumerate() {
        p.sack[i] = b;
    }
    p.nsack = blocks.len() as u8;
    p
}

// ------------------------------------------------------------------
// Loss recovery and RTT estimation (issue 11): scripted exchanges.

fn reno(f: impl Fn(&mut TcpConfig)) -> TcpConfig {
    let mut t = TcpConfig {
        cc: CcKind::NewReno,
        mss: MSS,
        init_cwnd_segments: 10,
        ..TcpConfig::default()
    };
    f(&mut t);
    t
}

fn sack_ack0(ack: u64, blocks: &[(u64, u64)]) -> Packet {
    let mut p = ack_pkt(ack, false);
    for (k, &b) in blocks.iter().take(3).enumerate() {
        p.sack[k] = b;
        p.nsack += 1;
    }
    p
}

/// Sequence numbers (in segments) of the retransmissions sent so far.
fn retransmitted(w: &Script) -> Vec<u64> {
    data_sent(w)
        .iter()
        .filter(|p| p.flags & flags::RETX != 0)
        .map(|p| p.seq / MSS as u64)
        .collect()
}

/// ACKs of the tail-loss scripts arrive at this time (below the world's
/// handshake SRTT, ≈ 48.6 µs, so no probe fires before them).
const ACK_AT: SimTime = SimTime::from_us(40);

/// Ten segments go out at t = 0; every ACK arrives at `ACK_AT`
/// acknowledging segments `0..acked` (the rest of the window, the tail, is
/// lost). Returns the world at `until`.
fn tail_loss(recovery: crate::config::LossRecovery, acked: u64, until: SimTime) -> Script {
    let mut w = world(loss_tcp(recovery, crate::config::Reordering::Fixed));
    w.flow.app_write(&mut w.io, 10 * MSS as u64, None);
    assert_eq!(data_sent(&w).len(), 10);
    run_timers(&mut w, ACK_AT);
    for i in 1..=acked {
        let f = &mut w.flow;
        f.on_ack(&mut w.io, &sack_ack(i * MSS as u64, &[], SimTime::ZERO));
    }
    run_timers(&mut w, until);
    w
}

/// RFC 8985 §7: the last segment of a window is lost. RACK-TLP's probe
/// (after 2·SRTT) resends it and its ACK completes the transfer with no
/// RTO; duplicate-ACK recovery gets no duplicate ACK at all and waits for
/// the 200 ms RTO.
#[test]
fn rack_tlp_repairs_a_lost_tail_segment_without_an_rto() {
    use crate::config::LossRecovery::{DupAck, Rack};
    let mut w = tail_loss(Rack, 9, SimTime::from_us(400));
    assert_eq!(w.flow.stats.tlp_probes, 1);
    assert_eq!(retransmitted(&w), vec![9], "the probe resends the tail");
    let probe_at = data_sent(&w).last().unwrap().ts;
    // PTO = 2·SRTT after the last ACK.
    let srtt = w.flow.srtt().unwrap();
    assert_eq!(probe_at, ACK_AT + SimTime(2 * srtt.0));
    let f = &mut w.flow;
    f.on_ack(&mut w.io, &sack_ack(10 * MSS as u64, &[], probe_at));
    assert_eq!(f.snd_una(), f.snd_max(), "everything acknowledged");
    run_timers(&mut w, SimTime::from_secs(1));
    assert_eq!(w.flow.stats.timeouts, 0);

    let w = tail_loss(DupAck, 9, SimTime::from_ms(150));
    assert!(
        retransmitted(&w).is_empty(),
        "no duplicate ACK, nothing to trigger on"
    );
    let w = tail_loss(DupAck, 9, SimTime::from_ms(250));
    assert_eq!(w.flow.stats.timeouts, 1, "only the RTO repairs it");
}

/// Three tail segments lost: the probe's SACK shows that a segment sent
/// later was delivered, so RACK marks the two older ones lost at once
/// (their reordering window has long passed) and SACK recovery resends
/// them — still no RTO. The probe's SACK delivers one segment, so PRR
/// lets one leave on it (the fast retransmission of 7); 8 follows on the
/// ACK that 7's copy brings.
#[test]
fn rack_marks_segments_sent_before_a_delivered_probe_lost() {
    use crate::config::LossRecovery::Rack;
    let mut w = tail_loss(Rack, 7, SimTime::from_us(400));
    assert_eq!(retransmitted(&w), vec![9]);
    let probe_at = data_sent(&w).last().unwrap().ts;
    let f = &mut w.flow;
    f.on_ack(
        &mut w.io,
        &sack_ack(
            7 * MSS as u64,
            &[(9 * MSS as u64, 10 * MSS as u64)],
            probe_at,
        ),
    );
    assert_eq!(f.cong, CongState::Recovery);
    let lost: Vec<u64> = (f.segs.iter())
        .filter(|s| s.lost)
        .map(|s| s.start / MSS as u64)
        .collect();
    assert_eq!(lost, vec![8], "7 and 8 marked at once, 7 resent");
    assert_eq!(retransmitted(&w), vec![9, 7]);
    let f = &mut w.flow;
    f.on_ack(
        &mut w.io,
        &sack_ack(
            8 * MSS as u64,
            &[(9 * MSS as u64, 10 * MSS as u64)],
            probe_at,
        ),
    );
    assert_eq!(retransmitted(&w), vec![9, 7, 8]);
    let f = &mut w.flow;
    f.on_ack(&mut w.io, &sack_ack(10 * MSS as u64, &[], probe_at));
    assert_eq!(f.cong, CongState::Open);
    assert_eq!(f.stats.timeouts, 0);
}

/// Segment 0 is lost twice: its fast retransmission too. Once a segment
/// sent after that copy is SACKed, RACK resends 0 a third time, and the
/// retransmission timer restarts from that copy (Linux's tcp_rearm_rto
/// when it resends snd_una): it must not fire one RTO after the second
/// copy, while the third is still on its way.
#[test]
fn rack_resending_the_head_restarts_the_retransmission_timer() {
    use crate::config::{LossRecovery::Rack, Reordering::Fixed};
    let m = MSS as u64;
    let mut w = world(loss_tcp(Rack, Fixed));
    w.flow.app_write(&mut w.io, 20 * m, None);
    run_timers(&mut w, ACK_AT);
    for hi in 2..=4 {
        let f = &mut w.flow;
        f.on_ack(&mut w.io, &sack_ack(0, &[(m, hi * m)], SimTime::ZERO));
    }
    assert_eq!(retransmitted(&w), vec![0], "fast retransmission");
    let second = data_sent(&w).last().unwrap().ts;
    // The SACKs of 4..10 bring new data, sent after the second copy.
    for hi in 5..=10 {
        let f = &mut w.flow;
        f.on_ack(&mut w.io, &sack_ack(0, &[(m, hi * m)], SimTime::ZERO));
    }
    assert!(w.flow.snd_max() > 10 * m, "new data after the second copy");
    // Later, the first new segment is SACKed, not the copy: RACK marks the
    // copy lost once its reordering window has passed, and sends a third.
    let later = second + SimTime::from_ms(50);
    run_timers(&mut w, later);
    let f = &mut w.flow;
    f.on_ack(&mut w.io, &sack_ack(0, &[(m, 11 * m)], second));
    run_timers(&mut w, later + SimTime::from_ms(10));
    assert_eq!(retransmitted(&w), vec![0, 0], "RACK resends the head");
    let third = data_sent(&w).iter().rev().find(|p| p.seq == 0).unwrap().ts;
    assert!(third > second);
    // One RTO after the second copy: no timeout. One after the third: its
    // ACK never came, the timer fires.
    let rto = w.flow.current_rto();
    run_timers(&mut w, second + rto + SimTime::from_ms(1));
    assert_eq!(
        w.flow.stats.timeouts, 0,
        "the timer of the second copy fired"
    );
    run_timers(&mut w, third + rto + SimTime::from_ms(1));
    assert_eq!(w.flow.stats.timeouts, 1);
}

/// Segment 0 arrives after segments 1..=5 (reordering, no loss): five
/// duplicate ACKs, then one ACK for everything that echoes segment 0's
/// original send time. Returns the flow's fast retransmits after `rounds`
/// such windows.
fn reorder_rounds(reordering: crate::config::Reordering, rounds: u64) -> Script {
    use crate::config::LossRecovery::DupAck;
    let mut t = loss_tcp(DupAck, reordering);
    t.sack = false; // the paper's NewReno: Eifel detection needs no SACK
    t.init_cwnd_segments = 6;
    // The script's rounds are six segments each: Limited Transmit's two
    // would spill into the next round, which the script does not model.
    t.limited_transmit = false;
    let mut w = world(t);
    w.flow.app_write(&mut w.io, 6 * rounds * MSS as u64, None);
    for r in 0..rounds {
        let base = 6 * r * MSS as u64;
        let sent_at = w.io.now();
        run_timers(&mut w, sent_at + SimTime::from_us(100));
        for _ in 0..5 {
            let f = &mut w.flow;
            f.on_ack(&mut w.io, &sack_ack(base, &[], sent_at));
        }
        let f = &mut w.flow;
        f.on_ack(&mut w.io, &sack_ack(base + 6 * MSS as u64, &[], sent_at));
        let f = &mut w.flow;
        // keep the next window at six segments whatever cwnd did
        f.st.cwnd = 6 * MSS as u64;
        f.try_send(&mut w.io);
    }
    w
}

/// Under reordering without loss the fixed threshold fast-retransmits
/// every time the late segment is more than three segments late; the
/// adaptive one makes that mistake once, detects it (the ACK echoes the
/// original's timestamp), undoes it and raises the threshold past the
/// reordering depth.
#[test]
fn adaptive_dupthresh_stops_spurious_fast_retransmits() {
    use crate::config::Reordering::{Adaptive, Fixed};
    let fixed = reorder_rounds(Fixed, 4);
    let f = &fixed.flow;
    assert_eq!(f.stats.fast_retransmits, 4);
    assert_eq!(
        f.stats.spurious_retransmits, 4,
        "every one detected as spurious"
    );
    assert_eq!(f.dupthresh, 3);
    let adaptive = reorder_rounds(Adaptive, 4);
    let f = &adaptive.flow;
    assert_eq!(
        f.stats.fast_retransmits, 1,
        "only the first, before it learned"
    );
    assert_eq!(f.stats.spurious_retransmits, 1);
    assert_eq!(f.dupthresh, 6, "five duplicate ACKs were reordering");
}

/// The undo restores the window the spurious retransmit halved.
#[test]
fn spurious_fast_retransmit_is_undone() {
    use crate::config::Reordering::{Adaptive, Fixed};
    for (mode, restored) in [(Fixed, false), (Adaptive, true)] {
        let mut w = reorder_rounds(mode, 1);
        let f = &mut w.flow;
        assert_eq!(f.stats.spurious_retransmits, 1);
        assert!(f.cong == CongState::Open);
        assert_eq!(
            f.st.ssthresh == u64::MAX,
            restored,
            "{mode:?}: ssthresh {}",
            f.st.ssthresh
        );
    }
}

/// RFC 6675 NextSeg rule 3: with no new data, an unSACKed segment below
/// the highest SACK goes out although IsLost() does not hold for it yet —
/// a response's tail does not wait for the RTO.
#[test]
fn sack_rule3_retransmits_an_unsacked_segment_below_the_highest_sack() {
    let m = MSS as u64;
    let mut w = world(reno(|t| t.sack = true));
    w.flow.app_write(&mut w.io, 7 * m, None); // segments 0..6; 1 and 5 lost
    let f = &mut w.flow;
    f.on_ack(&mut w.io, &ack_pkt(m, false));
    for hi in [3, 4, 5] {
        f.on_ack(&mut w.io, &sack_ack0(m, &[(2 * m, hi * m)]));
    }
    assert_eq!(f.cong, CongState::Recovery);
    assert_eq!(retransmitted(&w), vec![1], "rule 1: the lost head");
    // Segment 6 arrives: segment 5 has one SACKed segment above it, not lost
    // by IsLost(), but pipe leaves room and there is no new data.
    let f = &mut w.flow;
    f.on_ack(&mut w.io, &sack_ack0(m, &[(6 * m, 7 * m), (2 * m, 5 * m)]));
    assert_eq!(retransmitted(&w), vec![1, 5], "rule 3");
    // Nothing more to send: no duplicate retransmission of 5 on the next ACK.
    let f = &mut w.flow;
    f.on_ack(&mut w.io, &sack_ack0(m, &[(6 * m, 7 * m), (2 * m, 5 * m)]));
    assert_eq!(retransmitted(&w), vec![1, 5]);
}

/// RFC 6675 NextSeg rule 4 (`sack_rescue`): the lost last segment has
/// nothing SACKed above it; one rescue retransmission per recovery.
#[test]
fn sack_rescue_retransmits_the_tail_once_per_recovery() {
    let m = MSS as u64;
    let run = |rescue: bool| {
        let mut w = world(reno(|t| {
            t.sack = true;
            t.sack_rescue = rescue;
        }));
        w.flow.app_write(&mut w.io, 10 * m, None); // 0..9; 1 and 9 lost
        let f = &mut w.flow;
        f.on_ack(&mut w.io, &ack_pkt(m, false));
        for hi in 3..=9 {
            f.on_ack(&mut w.io, &sack_ack0(m, &[(2 * m, hi * m)]));
        }
        for _ in 0..3 {
            f.on_ack(&mut w.io, &sack_ack0(m, &[(2 * m, 9 * m)]));
        }
        assert_eq!(f.cong, CongState::Recovery);
        retransmitted(&w)
    };
    assert_eq!(
        run(false),
        vec![1],
        "without rule 4 the tail waits for the RTO"
    );
    assert_eq!(
        run(true),
        vec![1, 9],
        "one rescue retransmission of the tail"
    );
}

/// RFC 3042: the first two duplicate ACKs each release one new segment,
/// cwnd unchanged; the third starts fast retransmit.
#[test]
fn limited_transmit_sends_new_data_on_the_first_two_dupacks() {
    let m = MSS as u64;
    for lt in [false, true] {
        let mut w = world(reno(|t| {
            t.init_cwnd_segments = 4;
            t.limited_transmit = lt;
        }));
        w.flow.app_write(&mut w.io, 20 * m, None); // 0..3 sent, 0 lost
        let f = &mut w.flow;
        assert_eq!(f.snd_max(), 4 * m);
        f.on_ack(&mut w.io, &ack_pkt(0, false));
        f.on_ack(&mut w.io, &ack_pkt(0, false));
        assert_eq!(f.st.cwnd, 4 * m, "cwnd unchanged");
        assert_eq!(f.cong, CongState::Open);
        assert_eq!(
            f.snd_max(),
            if lt { 6 * m } else { 4 * m },
            "limited_transmit = {lt}"
        );
        f.on_ack(&mut w.io, &ack_pkt(0, false));
        assert_eq!(f.cong, CongState::Recovery);
        assert_eq!(retransmitted(&w), vec![0]);
    }
}

/// Acknowledge everything sent, as often as the flow sends more.
fn ack_all(w: &mut Script) {
    while w.flow.snd_una() < w.flow.snd_max() {
        let a = w.flow.snd_max();
        w.flow.on_ack(&mut w.io, &sack_ack0(a, &[]));
    }
}

/// Issue 18, the incast mechanism: a 7-segment response on a window of 3
/// (a persistent connection after an earlier loss) loses its first
/// segment. Segments 1 and 2 give two duplicate ACKs and nothing else is
/// in flight. With Limited Transmit — on by default, as RFC 5681 §3.2 says
/// a TCP SHOULD — they release 3 and 4, whose duplicate ACKs are the third
/// and fourth, and fast retransmit repairs the loss within an RTT. Without
/// it no third duplicate ACK can come and the flow waits for the RTO.
#[test]
fn a_loss_with_two_segments_behind_it_is_fast_retransmitted() {
    assert!(
        TcpConfig::default().limited_transmit,
        "RFC 5681 §3.2: SHOULD"
    );
    let m = MSS as u64;
    let run = |limited_transmit: Option<bool>| {
        let mut w = world(reno(|t| {
            t.init_cwnd_segments = 3;
            t.sack = true;
            t.rto_min = SimTime::from_ms(10);
            if let Some(lt) = limited_transmit {
                t.limited_transmit = lt;
            }
        }));
        w.flow.app_write(&mut w.io, 7 * m, None); // 0..2 sent; 0 is lost
        assert_eq!(w.flow.snd_max(), 3 * m);
        run_timers(&mut w, ACK_AT);
        let f = &mut w.flow;
        f.on_ack(&mut w.io, &sack_ack0(0, &[(m, 2 * m)]));
        f.on_ack(&mut w.io, &sack_ack0(0, &[(m, 3 * m)]));
        assert_eq!(f.cong, CongState::Open, "two duplicate ACKs only");
        // The segments Limited Transmit sent arrive, each SACKed.
        run_timers(&mut w, SimTime(2 * ACK_AT.0));
        let mut high = 3 * m;
        while w.flow.snd_max() > high && w.flow.snd_una() == 0 {
            high += m;
            w.flow.on_ack(&mut w.io, &sack_ack0(0, &[(m, high)]));
        }
        // Whatever repaired segment 0 (fast retransmit now, or the RTO
        // later) arrives; then everything else does.
        let t = if retransmitted(&w).is_empty() {
            SimTime::from_ms(15)
        } else {
            SimTime(3 * ACK_AT.0)
        };
        run_timers(&mut w, t);
        ack_all(&mut w);
        run_timers(&mut w, SimTime::from_secs(1));
        assert_eq!(w.flow.snd_una(), 7 * m, "all delivered");
        w
    };
    let w = run(None);
    assert_eq!(
        data_sent(&w)[3].seq,
        3 * m,
        "segment 3 went out on a dup ACK"
    );
    assert_eq!(retransmitted(&w), vec![0]);
    assert_eq!(w.flow.stats.fast_retransmits, 1);
    assert_eq!(w.flow.stats.timeouts, 0, "repaired without the RTO");
    let w = run(Some(false));
    assert_eq!(retransmitted(&w), vec![0]);
    assert_eq!(w.flow.stats.fast_retransmits, 0);
    assert_eq!(
        w.flow.stats.timeouts, 1,
        "without Limited Transmit: the RTO"
    );
    assert_eq!(w.flow.stats.rto_few_dupacks, 1);
}

/// A fast retransmit found spurious is undone (adaptive reordering, RFC
/// 3522's timestamps): the reduction is withdrawn, and with it its CWR
/// and its claim on the window's echoes (Linux's tcp_undo_cwnd_reduction
/// calls tcp_ecn_withdraw_cwr). A CE mark in that window, echoed by the
/// classic receiver until CWR, is then answered by one cut. Before the
/// fix the undone loss still sent CWR and held the echo stale: the mark
/// went unanswered (the review of 651c5794).
#[test]
fn an_undone_loss_withdraws_its_cwr_and_the_mark_is_answered() {
    use crate::config::LossRecovery::DupAck;
    use crate::config::Reordering::Adaptive;
    let m = MSS as u64;
    let mut t = loss_tcp(DupAck, Adaptive);
    t.sack = false;
    t.ecn = true;
    t.init_cwnd_segments = 6;
    t.limited_transmit = false;
    let mut w = world(t);
    w.flow.app_write(&mut w.io, 40 * m, None);
    let sent = data_sent(&w);
    assert_eq!(sent.len(), 6);
    run_timers(&mut w, SimTime::from_us(100));
    // segments 1..=5 overtake segment 0 (segment 3 CE-marked)
    let mut order = (1..6).chain([0]);
    let mut hop = |_: &Packet| {
        let i = order.next()?;
        let mut p = sent[i];
        if i == 3 {
            p.flags |= flags::CE;
        }
        Some(p)
    };
    let mut next = 0;
    let mut reordered = |p: &Packet| {
        if p.seq < 6 * m && p.flags & flags::RETX == 0 {
            hop(p)
        } else {
            Some(*p)
        }
    };
    fifo_hop(&mut w, &mut next, &mut reordered, SimTime::from_us(5));
    let f = &w.flow;
    assert_eq!(f.snd_una(), 40 * m, "all delivered");
    assert_eq!(
        (f.stats.fast_retransmits, f.stats.spurious_retransmits),
        (1, 1),
        "one fast retransmit, found spurious"
    );
    assert_eq!(
        f.stats.ecn_cuts, 1,
        "the mark is answered once the loss is undone"
    );
}

/// RFC 7323 §4.3: an ACK echoes TS.Recent, which a segment replaces only
/// with a TSval at least as new. The late original of a segment whose
/// retransmission arrived first is a duplicate, and its ACK echoed its own
/// older stamp, which the sender read as that long an RTT (the receiver
/// audit). A duplicate with a newer stamp (a retransmission of data
/// already received) still updates it.
#[test]
fn a_duplicate_echoes_ts_recent_not_an_older_stamp_of_its_own() {
    let m = MSS as u64;
    let us = SimTime::from_us;
    let mut w = world(reno(|t| t.delayed_ack = false));
    let seg = |seq: u64, ts: SimTime| Packet {
        ts,
        ..data_pkt(seq, MSS, false)
    };
    w.flow.on_data(&mut w.io, &seg(0, us(100)));
    // segment 1's retransmission, stamped 110 µs, arrives first
    w.flow.on_data(&mut w.io, &seg(m, us(110)));
    // then its original, stamped 5 µs: a duplicate
    w.flow.on_data(&mut w.io, &seg(m, us(5)));
    // and a spurious retransmission of segment 0, stamped 300 µs
    w.flow.on_data(&mut w.io, &seg(0, us(300)));
    let echoes: Vec<(u64, SimTime)> = acks(&w).iter().map(|a| (a.seq, a.ts)).collect();
    assert_eq!(
        echoes,
        vec![
            (m, us(100)),
            (2 * m, us(110)),
            (2 * m, us(110)),
            (2 * m, us(300))
        ]
    );
    assert_eq!(w.flow.stats.dup_arrivals, 2);
    // in order too: segment 3 out of order, segment 2's retransmission
    // (stamped 400 µs) fills the hole, then segment 4's late original
    // (stamped 50 µs) arrives in order: the echo stays 400 µs
    w.flow.on_data(&mut w.io, &seg(3 * m, us(350)));
    w.flow.on_data(&mut w.io, &seg(2 * m, us(400)));
    w.flow.on_data(&mut w.io, &seg(4 * m, us(50)));
    let last: Vec<(u64, SimTime)> = acks(&w).iter().skip(4).map(|a| (a.seq, a.ts)).collect();
    assert_eq!(
        last,
        vec![(2 * m, us(300)), (4 * m, us(400)), (5 * m, us(400))]
    );
}

/// A FIFO path (a star never reorders): the data segments the flow sent
/// since `next`, except those `lose` drops, reach its own receiving side
/// `gap` apart, in the order sent, and each ACK returns at once (timers due
/// meanwhile fire). Runs until the flow sends nothing more.
fn fifo(w: &mut Script, next: &mut usize, lose: &mut dyn FnMut(&Packet) -> bool, gap: SimTime) {
    fifo_hop(w, next, &mut |p| (!lose(p)).then_some(*p), gap)
}

/// [`fifo`] through a hop that may drop a segment (`None`) or change it
/// (a switch's CE mark) on its way.
fn fifo_hop(
    w: &mut Script,
    next: &mut usize,
    hop: &mut dyn FnMut(&Packet) -> Option<Packet>,
    gap: SimTime,
) {
    loop {
        let data = data_sent(w);
        let Some(&sent) = data.get(*next) else { break };
        *next += 1;
        let t = w.io.now() + gap;
        run_timers(w, t);
        let Some(p) = hop(&sent) else {
            continue;
        };
        let before = w.io.pending().len();
        w.flow.on_data(&mut w.io, &p);
        let acks: Vec<Packet> = w.io.pending()[before..]
            .iter()
            .filter_map(|o| match o {
                TcpOut::Send(a) if a.kind == PktKind::Ack => Some(*a),
                _ => None,
            })
            .collect();
        for a in acks {
            w.flow.on_ack(&mut w.io, &a);
        }
    }
}

/// Whether the first segment the flow sent with CWR is new data sent after
/// its first retransmission (the reduction's).
fn cwr_after_the_first_retransmission(w: &Script) -> bool {
    let sent = data_sent(w);
    let first_retx = sent.iter().position(|p| p.flags & flags::RETX != 0);
    let first_cwr = sent.iter().position(|p| p.flags & flags::CWR != 0);
    first_cwr > first_retx && first_cwr.is_some_and(|i| sent[i].flags & flags::RETX == 0)
}

/// RFC 3168 §6.1.2: CWR follows *any* reduction of the window, and one
/// window is reduced once "in response to a series of dropped and/or CE
/// packets". A drop and a CE mark in one window: the loss's recovery
/// reduces, and CWR goes out on the first new segment after it, so the
/// classic receiver's latched ECE ends and no echo cuts the window again.
/// Before, CWR followed only an echo's cut: the echo latched since the
/// mark cut again past the recovery point (the RFC audit: NewReno's
/// ssthresh 3000 where the one reduction gives 6000, CUBIC's 5600).
#[test]
fn a_drop_and_a_mark_in_one_window_reduce_it_once() {
    let m = MSS as u64;
    for (cc, sack) in [
        (CcKind::NewReno, false),
        (CcKind::NewReno, true),
        (CcKind::Cubic, false),
    ] {
        let mut w = world(reno(|t| {
            t.cc = cc;
            t.ecn = true;
            t.sack = sack;
            t.rto_min = SimTime::from_ms(10);
        }));
        w.flow.app_write(&mut w.io, 40 * m, None);
        let mut next = 0;
        let mut hop = |p: &Packet| {
            let first = p.flags & flags::RETX == 0;
            let mut q = *p;
            match p.seq / m {
                2 if first => return None,
                4 if first => q.flags |= flags::CE,
                _ => {}
            }
            Some(q)
        };
        fifo_hop(&mut w, &mut next, &mut hop, SimTime::from_us(5));
        let f = &w.flow;
        assert_eq!(f.snd_una(), 40 * m, "{cc:?} sack {sack}: all delivered");
        assert_eq!(
            (f.stats.fast_retransmits, f.stats.timeouts, f.stats.ecn_cuts),
            (1, 0, 0),
            "{cc:?} sack {sack}: one reduction, the loss's"
        );
        assert!(
            cwr_after_the_first_retransmission(&w),
            "{cc:?} sack {sack}: CWR on a new segment after the reduction"
        );
    }
}

/// The same after a retransmission timeout: its reduction sends CWR too,
/// so the echo of a CE mark in the window the timeout reduced does not cut
/// the window again once the flow is back in the open state (before: the
/// timeout's ssthresh 5000, then the latched echo's 3000).
#[test]
fn a_timeout_sends_cwr_and_a_marked_window_is_reduced_once() {
    let m = MSS as u64;
    let mut w = world(reno(|t| {
        t.ecn = true;
        t.limited_transmit = false;
        t.rto_min = SimTime::from_ms(10);
    }));
    w.flow.app_write(&mut w.io, 40 * m, None);
    let mut next = 0;
    let mut hop = |p: &Packet| {
        let first = p.flags & flags::RETX == 0;
        let mut q = *p;
        match p.seq / m {
            // the whole first window but segment 1, which is marked
            0 | 2..=9 if first => return None,
            1 if first => q.flags |= flags::CE,
            _ => {}
        }
        Some(q)
    };
    fifo_hop(&mut w, &mut next, &mut hop, SimTime::from_us(5));
    // nothing more in flight: the timeout, then the rest
    let mut t = w.io.now();
    while w.flow.stats.timeouts == 0 {
        t += SimTime::from_ms(1);
        run_timers(&mut w, t);
    }
    fifo_hop(&mut w, &mut next, &mut hop, SimTime::from_us(5));
    let f = &w.flow;
    assert_eq!(f.snd_una(), 40 * m, "all delivered");
    assert_eq!(
        (f.stats.timeouts, f.stats.ecn_cuts),
        (1, 0),
        "one reduction, the timeout's"
    );
    assert!(
        cwr_after_the_first_retransmission(&w),
        "CWR on a new segment after the timeout"
    );
}

/// A recovery whose head was already resent (an earlier episode's copy,
/// still queued) must not call itself spurious when the ACK echoes that
/// earlier copy: the loss was real. Found on a star under seeded ties
/// (tests/physics.rs): the ACK echoed the first retransmission, older than
/// the second, and Eifel read it as the original's arrival — a reordering
/// event on a path that cannot reorder. The control: the same exchange
/// with no earlier copy, the ACK echoing the original, is spurious.
#[test]
fn eifel_does_not_judge_a_head_resent_before() {
    use crate::config::{LossRecovery::DupAck, Reordering::Fixed};
    let m = MSS as u64;
    for earlier_copy in [true, false] {
        let mut t = loss_tcp(DupAck, Fixed);
        t.limited_transmit = false;
        let mut w = world(t);
        w.flow.app_write(&mut w.io, 10 * m, None);
        let first = SimTime::from_us(100);
        run_timers(&mut w, first);
        if earlier_copy {
            let f = &mut w.flow;
            f.transmit(&mut w.io, 0, MSS, true);
        }
        run_timers(&mut w, SimTime::from_us(200));
        for k in 1..=3 {
            let f = &mut w.flow;
            f.on_ack(&mut w.io, &sack_ack(0, &[(m, (k + 1) * m)], SimTime::ZERO));
        }
        assert_eq!(w.flow.stats.fast_retransmits, 1, "copy {earlier_copy}");
        // The ACK for everything echoes the earlier copy's stamp, or the
        // original's (sent at 0) when there was none.
        let echo = if earlier_copy { first } else { SimTime::ZERO };
        let f = &mut w.flow;
        f.on_ack(&mut w.io, &sack_ack(10 * m, &[], echo));
        let f = &w.flow;
        assert_eq!(f.snd_una(), 10 * m);
        assert_eq!(
            (f.stats.spurious_retransmits, f.stats.reorder_events),
            if earlier_copy { (0, 0) } else { (1, 1) },
            "earlier copy {earlier_copy}"
        );
    }
}

/// Issue 18 (false reordering on a star): NewReno without SACK; segments
/// 0–3 of a 10-segment response are lost, the fast retransmission of 0
/// too, so the RTO repairs them by go-back-N, which also resends 4, 5 and 6
/// that the receiver already holds. When 3 fills the last hole the ACK
/// jumps to 10 — exactly `recover`, all that was sent before the timeout —
/// and the three duplicates then repeat that ACK while the next response
/// is in flight. RFC 6582 §3.2 step 1 (§4.1): duplicate ACKs that do not
/// cover *more* than recover are not a loss. Taking them as one sent a
/// spurious fast retransmission of 10, which Eifel then took for
/// reordering and the adaptive threshold rose on.
///
/// The papers' stacks keep RFC 6582's rule as its §3.2 reads it (a new
/// episode once an ACK reaches `recover`: issue 18, RFC 6582's strict rule
/// would also block Kulkarni's marked duplicates at block boundaries,
/// kulkarni_mechanisms; docs/model.md); Linux holds the episode until an
/// ACK covers more (`reno_hold`, the linux profile's: issue 45, mechanism K).
#[test]
fn duplicate_acks_from_go_back_n_duplicates_are_not_a_loss() {
    duplicate_acks_after_go_back_n(true);
}

/// Linux holds a Reno recovery whose ACKs reach exactly its recovery point
/// (`reno_hold`; validation/packetdrill/scripts/reno-hold-at-recovery-point.pkt,
/// which Linux 6.18 passes, is this exchange on the wire): segment 0 is
/// lost and recovered, the retransmission's ACK lands on `recover`, new
/// data goes, and its first segment is lost. The duplicate ACKs at
/// `recover` start no fast retransmit and send nothing; the timer resends
/// it. Without the hold the flow is Open there and the third duplicate
/// ACK fast-retransmits it.
#[test]
fn a_held_recovery_leaves_a_loss_at_its_recovery_point_to_the_timer() {
    use crate::config::{PartialAckTimer, RenoReduction};
    let m = MSS as u64;
    for hold in [true, false] {
        let mut w = world(reno(|t| {
            t.sack = false;
            t.timestamps = false;
            t.limited_transmit = false;
            t.reno_reduction = RenoReduction::Prr;
            t.partial_ack_timer = PartialAckTimer::Linux;
            t.rto_min = SimTime::from_ms(200);
            t.reno_hold = hold;
        }));
        w.flow.app_write(&mut w.io, 10 * m, None);
        let rtt = SimTime::from_us(100);
        run_timers(&mut w, rtt);
        for _ in 0..3 {
            w.flow.on_ack(&mut w.io, &ack_pkt(0, false));
        }
        assert_eq!(retransmitted(&w), [0], "hold {hold}");
        assert_eq!(w.flow.cong, CongState::Recovery);
        run_timers(&mut w, SimTime::from_us(200));
        w.flow.on_ack(&mut w.io, &ack_pkt(10 * m, false));
        let cong = if hold {
            CongState::Recovery
        } else {
            CongState::Open
        };
        assert_eq!(w.flow.cong, cong, "hold {hold}: at recover");
        w.flow.app_write(&mut w.io, 5 * m, None);
        let new: Vec<u64> = data_sent(&w)[11..].iter().map(|p| p.seq / m).collect();
        assert_eq!(new[0], 10, "hold {hold}: new data after the recovery");
        run_timers(&mut w, SimTime::from_us(300));
        let sent = data_sent(&w).len();
        for _ in 0..4 {
            w.flow.on_ack(&mut w.io, &ack_pkt(10 * m, false));
        }
        if hold {
            assert_eq!(
                data_sent(&w).len(),
                sent,
                "duplicate ACKs of a held recovery send nothing"
            );
            assert_eq!(w.flow.stats.fast_retransmits, 1);
            assert_eq!(w.flow.cong, CongState::Recovery);
            run_timers(&mut w, SimTime::from_ms(600));
            assert_eq!(w.flow.stats.timeouts, 1, "the timer repairs it");
            assert_eq!(retransmitted(&w), [0, 10]);
            assert_eq!(w.flow.cong, CongState::Loss);
            // the timeout's ACK lands on its recovery point: Loss is held too
            w.flow.on_ack(&mut w.io, &ack_pkt(w.flow.snd_max, false));
            assert_eq!(w.flow.cong, CongState::Loss);
        } else {
            assert_eq!(w.flow.stats.fast_retransmits, 2);
            assert_eq!(retransmitted(&w), [0, 10]);
            assert_eq!(w.flow.stats.timeouts, 0);
        }
    }
}

/// Without `reno_hold` the duplicates of go-back-N start a second fast
/// retransmit at the recovery point.
#[test]
fn without_the_hold_go_back_n_duplicates_start_a_fast_retransmit() {
    let w = go_back_n_then_duplicates(false);
    assert_eq!(w.flow.snd_una(), 16 * MSS as u64, "all delivered");
    assert_eq!(w.flow.stats.fast_retransmits, 2, "a spurious second one");
}

fn go_back_n_then_duplicates(hold: bool) -> Script {
    let m = MSS as u64;
    let mut w = world(reno(|t| {
        t.init_cwnd_segments = 10;
        t.limited_transmit = false;
        t.reordering = crate::config::Reordering::Adaptive;
        t.rto_min = SimTime::from_ms(200);
        t.reno_hold = hold;
    }));
    w.flow.app_write(&mut w.io, 10 * m, None);
    let mut next = 0;
    let mut retx0 = 0;
    let mut lose = |p: &Packet| {
        if p.flags & flags::RETX == 0 {
            return p.seq < 4 * m;
        }
        if p.seq == 0 {
            retx0 += 1;
            return retx0 == 1; // the fast retransmission is lost too
        }
        false
    };
    let gap = SimTime::from_us(10);
    fifo(&mut w, &mut next, &mut lose, gap);
    assert_eq!(w.flow.stats.fast_retransmits, 1);
    assert_eq!(w.flow.snd_una(), 0);
    run_timers(&mut w, SimTime::from_ms(300));
    assert_eq!(w.flow.stats.timeouts, 1);
    // The client asks for the next response.
    w.flow.app_write(&mut w.io, 6 * m, None);
    fifo(&mut w, &mut next, &mut lose, gap);
    w
}

fn duplicate_acks_after_go_back_n(hold: bool) {
    let m = MSS as u64;
    let w = go_back_n_then_duplicates(hold);
    let f = &w.flow;
    assert_eq!(f.snd_una(), 16 * m, "all delivered");
    assert_eq!(f.stats.fast_retransmits, 1, "no second fast retransmit");
    assert_eq!(
        retransmitted(&w),
        vec![0, 0, 1, 2, 3, 4, 5, 6],
        "go-back-N resent 4, 5 and 6, which had arrived"
    );
    assert_eq!(f.stats.spurious_retransmits, 0);
    assert_eq!(f.stats.reorder_events, 0, "a FIFO path never reorders");
    assert_eq!(f.dupthresh, 3);
}

/// Issue 18 (false reordering on a star), RACK: segment 0 is lost and the
/// first duplicate ACK both lets Limited Transmit send a new segment and
/// shows RACK that 0 is lost. RFC 8985's RACK_sent_after breaks a tie of
/// send times by sequence number, which is right only if retransmissions
/// leave before new data sent in the same instant. New data first made the
/// retransmission of 0 look older than that segment, so when the segment's
/// SACK came back (ahead of the retransmission, queued behind it) RACK
/// marked 0 lost again: a spurious second retransmission, counted as a
/// reordering event.
#[test]
fn rack_retransmission_leaves_before_limited_transmit_data() {
    let m = MSS as u64;
    let mut w = world(loss_tcp(
        crate::config::LossRecovery::Rack,
        crate::config::Reordering::Fixed,
    ));
    assert!(w.flow.cfg.limited_transmit);
    w.flow.app_write(&mut w.io, m, None); // 0, alone
                                          // 1..9 30 µs later (more than RACK's reordering window, SRTT/4
                                          // here), and more data than the window holds.
    run_timers(&mut w, SimTime::from_us(30));
    w.flow.app_write(&mut w.io, 19 * m, None);
    let mut next = 0;
    let mut lose = |p: &Packet| p.seq == 0 && p.flags & flags::RETX == 0;
    fifo(&mut w, &mut next, &mut lose, SimTime::from_us(10));
    let f = &w.flow;
    assert_eq!(f.snd_una(), 20 * m, "all delivered");
    assert_eq!(data_sent(&w)[10].seq, 0, "the retransmission first");
    assert_eq!(retransmitted(&w), vec![0], "0 is retransmitted once");
    assert_eq!(f.stats.fast_retransmits, 1);
    assert_eq!(f.stats.timeouts, 0);
    assert_eq!(f.stats.spurious_retransmits, 0);
    assert_eq!(f.stats.reorder_events, 0, "a FIFO path never reorders");
}

/// SACKed marks survive an RTO: the go-back-N resend after the timeout
/// skips a segment the receiver already holds.
#[test]
fn sacked_marks_survive_an_rto_and_are_not_resent() {
    let m = MSS as u64;
    let mut w = world(reno(|t| t.sack = true));
    w.flow.app_write(&mut w.io, 6 * m, None); // 0..5; 0 and 2 lost
    let f = &mut w.flow;
    f.on_ack(&mut w.io, &sack_ack0(0, &[(m, 2 * m)]));
    f.on_ack(&mut w.io, &sack_ack0(0, &[(3 * m, 4 * m), (m, 2 * m)]));
    assert_eq!(f.cong, CongState::Open, "two dup ACKs, nothing IsLost yet");
    run_timers(&mut w, SimTime::from_ms(300)); // one RTO (RTOmin 200 ms)
    assert_eq!(w.flow.stats.timeouts, 1);
    assert_eq!(retransmitted(&w), vec![0]);
    // The retransmission fills the first hole; this ACK carries no SACK
    // block, so only the marks kept from before the timeout know about 3.
    // cwnd is now 3 segments (slow start, L = 2) and 3, SACKed, takes no
    // room in it (RFC 6675 §5.1): 2, 4 and 5 go out, 3 does not.
    let f = &mut w.flow;
    f.on_ack(&mut w.io, &ack_pkt(2 * m, false));
    assert_eq!(f.st.cwnd, 3 * m);
    assert_eq!(
        retransmitted(&w),
        vec![0, 2, 4, 5],
        "segment 3 was SACKed before the RTO"
    );
}

/// RFC 6675 §5.1: the slow start after an RTO uses the SACK information,
/// and a SACKed segment is no longer in the network. A flow whose resend
/// of a hole is lost again keeps sending on the duplicate ACKs that SACK
/// what it sent beyond the hole — one new segment per segment SACKed,
/// the flight less the SACKed bytes never above cwnd — but it does not
/// start a fast retransmit below the recovery point (RFC 6582), and new
/// data ends within snd_una + rwnd.
#[test]
fn after_an_rto_sacked_segments_leave_room_in_the_window() {
    let m = MSS as u64;
    for rwnd in [100 * m, 4 * m] {
        let mut w = world(reno(|t| {
            t.sack = true;
            t.init_cwnd_segments = 3;
            t.rwnd_bytes = rwnd;
        }));
        w.flow.app_write(&mut w.io, 10 * m, None);
        assert_eq!(w.flow.snd_max(), 3 * m);
        run_timers(&mut w, SimTime::from_ms(300)); // the first flight, 0..2, is lost
        assert_eq!(w.flow.stats.timeouts, 1);
        assert_eq!(w.flow.cong, CongState::Loss);
        let f = &mut w.flow;
        f.on_ack(&mut w.io, &ack_pkt(m, false)); // 0's resend arrives: 1 and 2 go again
        assert_eq!(retransmitted(&w), vec![0, 1, 2]);
        let f = &mut w.flow;
        f.on_ack(&mut w.io, &ack_pkt(2 * m, false)); // 1 arrives, 2 is lost again
        let sent = f.snd_max();
        assert_eq!(sent, 4 * m, "one new segment (3) on the window cwnd allows");
        let mut high = sent;
        for k in 4..=6 {
            // Duplicate ACKs SACKing 3..k: each frees the room of what it SACKs.
            let f = &mut w.flow;
            f.on_ack(&mut w.io, &sack_ack0(2 * m, &[(3 * m, k * m)]));
            let sacked = (k - 3) * m;
            let pipe = f.snd_max() - f.snd_una() - sacked;
            assert!(
                pipe <= f.st.cwnd,
                "pipe {pipe} > cwnd {} after SACK of 3..{k}",
                f.st.cwnd
            );
            assert!(
                f.snd_max() <= f.snd_una() + rwnd,
                "beyond the receiver's window"
            );
            if rwnd > 10 * m {
                assert_eq!(f.snd_max(), high + m, "SACK of 3..{k}: one new segment");
            }
            high = f.snd_max();
            assert_eq!(
                f.cong,
                CongState::Loss,
                "no fast retransmit below the recovery point"
            );
        }
        assert_eq!(
            retransmitted(&w),
            vec![0, 1, 2],
            "the hole waits for the RTO"
        );
        if rwnd <= 10 * m {
            assert_eq!(
                w.flow.snd_max(),
                2 * m + rwnd,
                "up to the receiver's window"
            );
        }
    }
}

/// An ACK below snd_una (reordered, old) is ignored: its ECE must not cut
/// the window a second time, nor count as a duplicate.
#[test]
fn an_old_ack_with_ece_is_ignored() {
    let m = MSS as u64;
    for cc in [CcKind::NewReno, CcKind::Dctcp] {
        let mut w = world(tcp(cc));
        w.flow.app_write(&mut w.io, 20 * m, None);
        let f = &mut w.flow;
        f.on_ack(&mut w.io, &ack_pkt(5 * m, false));
        let (cwnd, ssthresh) = (f.st.cwnd, f.st.ssthresh);
        f.on_ack(&mut w.io, &ack_pkt(3 * m, true));
        assert_eq!(f.stats.ecn_cuts, 0, "{cc:?}");
        assert_eq!((f.st.cwnd, f.st.ssthresh), (cwnd, ssthresh), "{cc:?}");
        assert_eq!(f.ep.dupacks, 0, "{cc:?}");
        assert_eq!(f.snd_una(), 5 * m);
    }
}

/// RFC 7323 §4.3: a delayed ACK echoes the timestamp of the earliest
/// segment it acknowledges (so the sender's RTT includes the delay),
/// whether the second segment or the timer sends it.
#[test]
fn delayed_ack_echoes_the_earliest_unacknowledged_timestamp() {
    let m = MSS as u64;
    let mut w = world(reno(|t| t.delayed_ack = true));
    let seg = |seq: u64, ts_us: u64| Packet {
        ts: SimTime::from_us(ts_us),
        ..data_pkt(seq, MSS, false)
    };
    let f = &mut w.flow;
    f.on_data(&mut w.io, &seg(0, 10));
    assert!(acks(&w).is_empty(), "first segment: ACK delayed");
    let f = &mut w.flow;
    f.on_data(&mut w.io, &seg(m, 30));
    let a = acks(&w);
    assert_eq!(
        (a.len(), a[0].seq, a[0].ts),
        (1, 2 * m, SimTime::from_us(10))
    );
    // One segment, then the timer.
    let f = &mut w.flow;
    f.on_data(&mut w.io, &seg(2 * m, 50));
    run_timers(&mut w, SimTime::from_ms(100));
    let a = acks(&w);
    assert_eq!(
        (a.len(), a[1].seq, a[1].ts),
        (2, 3 * m, SimTime::from_us(50))
    );
    // An out-of-order segment's ACK echoes TS.Recent, not its own stamp.
    let f = &mut w.flow;
    f.on_data(&mut w.io, &seg(5 * m, 70));
    let a = acks(&w);
    assert_eq!((a[2].seq, a[2].ts), (3 * m, SimTime::from_us(50)));
}

/// Without timestamps: one timed segment, no sample from an ACK of a
/// retransmitted segment, and the backed-off RTO kept until a valid
/// sample (Karn). With timestamps the echo times retransmissions too.
#[test]
fn karn_rtt_sampling_without_timestamps() {
    let m = MSS as u64;
    for ts in [true, false] {
        let mut w = world(reno(|t| {
            t.timestamps = ts;
            t.handshake_rtt_sample = false;
            t.rto_min = SimTime::ZERO;
        }));
        w.flow.app_write(&mut w.io, m, None);
        run_timers(&mut w, SimTime::from_ms(1200)); // RTO (1 s initial) resends it
        assert_eq!(w.flow.stats.timeouts, 1);
        let echo = Packet {
            ts: SimTime::from_ms(1000), // the retransmission's send time
            ..ack_pkt(m, false)
        };
        let f = &mut w.flow;
        f.on_ack(&mut w.io, &echo);
        if ts {
            assert_eq!(f.srtt(), Some(SimTime::from_ms(200)));
            assert_eq!(f.backoff, 1);
        } else {
            assert_eq!(f.srtt(), None, "ambiguous ACK: no sample");
            assert_eq!(f.backoff, 2, "backed-off RTO kept");
            assert_eq!(f.current_rto(), SimTime::from_secs(2));
            // Fresh data is timed: its ACK 30 ms later is a valid sample.
            f.app_write(&mut w.io, m, None);
            run_timers(&mut w, SimTime::from_ms(1230));
            let f = &mut w.flow;
            f.on_ack(&mut w.io, &ack_pkt(2 * m, false));
            assert_eq!(f.srtt(), Some(SimTime::from_ms(30)));
            assert_eq!(f.backoff, 1);
        }
    }
}

/// A timeout in a row (the timer's own resend lost again): RFC 5681 §3.1
/// holds ssthresh (`rto_ssthresh = "hold"`, Linux's rule); ns-2's and
/// ns-3's `recompute` sets it from what went out since the first timeout,
/// one segment, so to the 2-segment floor. The first timeout sets it from
/// the whole flight either way.
#[test]
fn a_repeated_timeout_holds_or_recomputes_ssthresh() {
    use crate::config::RtoSsthresh;
    let m = MSS as u64;
    for (rule, second) in [(RtoSsthresh::Hold, 5 * m), (RtoSsthresh::Recompute, 2 * m)] {
        let mut w = world(reno(|t| {
            t.rto_min = SimTime::ZERO;
            t.handshake_rtt_sample = false;
            t.rto_ssthresh = rule;
        }));
        w.flow.app_write(&mut w.io, 20 * m, None);
        assert_eq!(data_sent(&w).len(), 10, "the initial window");
        run_timers(&mut w, SimTime::from_ms(1500)); // the 1 s initial RTO
        assert_eq!(w.flow.stats.timeouts, 1);
        assert_eq!(
            w.flow.st.ssthresh,
            5 * m,
            "{rule:?}: half the 10-segment flight"
        );
        run_timers(&mut w, SimTime::from_ms(3500)); // backed off to 2 s
        assert_eq!(w.flow.stats.timeouts, 2);
        assert_eq!(w.flow.st.ssthresh, second, "{rule:?}");
        assert_eq!(w.flow.st.cwnd, m, "{rule:?}: the loss window");
    }
}

/// RFC 6298 §2 directly: first sample, a second one, granularity, and the
/// RTOmin / RTOmax clamps.
#[test]
fn rfc6298_estimator() {
    let us = SimTime::from_us;
    let mut w = world(reno(|t| {
        t.rto_min = SimTime::ZERO;
        t.handshake_rtt_sample = false;
    }));
    let f = &mut w.flow;
    f.rtt_sample(us(100));
    // (2.2): SRTT = R, RTTVAR = R/2, RTO = SRTT + 4·RTTVAR
    assert_eq!(
        (f.srtt, f.rttvar, f.rto_base),
        (Some(us(100)), us(50), us(300))
    );
    f.rtt_sample(us(200));
    // (2.3): RTTVAR = 3/4·50 + 1/4·|100 − 200| = 62.5; SRTT = 7/8·100 + 1/8·200 = 112.5
    assert_eq!(f.rttvar, SimTime(62_500_000));
    assert_eq!(f.srtt, Some(SimTime(112_500_000)));
    assert_eq!(f.rto_base, SimTime(112_500_000 + 4 * 62_500_000));
    // G dominates a small variance; RTOmin and RTOmax clamp.
    let mut w = world(reno(|t| {
        t.rto_min = SimTime::ZERO;
        t.granularity = SimTime::from_ms(1);
        t.handshake_rtt_sample = false;
    }));
    let f = &mut w.flow;
    f.rtt_sample(us(100));
    assert_eq!(f.rto_base, us(100) + SimTime::from_ms(1));
    let mut w = world(reno(|t| {
        t.rto_min = SimTime::from_ms(200);
        t.rto_max = SimTime::from_secs(1);
        t.handshake_rtt_sample = false;
    }));
    let f = &mut w.flow;
    f.rtt_sample(us(100));
    assert_eq!(f.rto_base, SimTime::from_ms(200));
    f.rtt_sample(SimTime::from_secs(5));
    assert_eq!(f.rto_base, SimTime::from_secs(1));
}

/// `rto_timer = "linux"`: __tcp_set_rto in jiffies (HZ = 250). The
/// route's RTOmin is whole jiffies (10 ms → 3, 12 ms), the RTO SRTT plus
/// that rounded up (12.4 ms → 4 jiffies, 16 ms: the kernel lab's
/// `tcpi_rto`), 200 ms + SRTT → 51 jiffies, 204 ms; the exact timer keeps
/// 10.4 and 200.4 ms. Armed mid-tick, the timer fires at the tick its
/// count reaches: 1 ms into a jiffy, 15 ms later.
#[test]
fn a_linux_rto_counts_whole_jiffies_and_fires_at_a_tick() {
    use crate::config::RtoTimer;
    let (us, ms) = (SimTime::from_us, SimTime::from_ms);
    for (timer, rto_min, want) in [
        (RtoTimer::Linux, ms(10), ms(16)),
        (RtoTimer::Linux, ms(200), ms(204)),
        (RtoTimer::Exact, ms(10), us(10_400)),
        (RtoTimer::Exact, ms(200), us(200_400)),
    ] {
        let mut w = world(reno(|t| {
            t.rto_timer = timer;
            t.hz = 250;
            t.rto_min = rto_min;
            t.granularity = rto_min; // the linux profile's G
            t.handshake_rtt_sample = false;
        }));
        w.flow.rtt_sample(us(400));
        assert_eq!(w.flow.current_rto(), want, "{timer:?}, RTOmin {rto_min:?}");
    }
    let mut w = world(reno(|t| {
        t.rto_timer = RtoTimer::Linux;
        t.hz = 250;
        t.rto_min = ms(10);
        t.granularity = ms(10);
        t.handshake_rtt_sample = false;
    }));
    w.flow.rtt_sample(us(400));
    run_timers(&mut w, ms(401)); // 1 ms into jiffy 100
    w.flow.app_write(&mut w.io, MSS as u64, None);
    assert_eq!(w.flow.rto.deadline(), Some(ms(416)));
}

/// RFC 6582 directly: three duplicate ACKs halve ssthresh and inflate cwnd
/// by 3 segments, each further one by one; a partial ACK retransmits the
/// next hole and deflates by the amount acknowledged (plus one segment); a
/// full ACK deflates to min(ssthresh, FlightSize + SMSS) and ends recovery.
#[test]
fn newreno_partial_and_full_acks() {
    let m = MSS as u64;
    let mut w = world(reno(|_| {}));
    w.flow.app_write(&mut w.io, 10 * m, None); // 0..9; 0 and 4 lost
    let f = &mut w.flow;
    for _ in 0..3 {
        f.on_ack(&mut w.io, &ack_pkt(0, false));
    }
    assert_eq!(f.cong, CongState::Recovery);
    assert_eq!(f.st.ssthresh, 5 * m);
    assert_eq!(f.st.cwnd, 8 * m);
    assert_eq!(f.ep.recover, 10 * m);
    for _ in 0..2 {
        f.on_ack(&mut w.io, &ack_pkt(0, false));
    }
    assert_eq!(f.st.cwnd, 10 * m);
    assert_eq!(retransmitted(&w), vec![0]);
    // Partial ACK up to the second hole.
    let f = &mut w.flow;
    f.on_ack(&mut w.io, &ack_pkt(4 * m, false));
    assert_eq!(f.cong, CongState::Recovery);
    assert_eq!(f.st.cwnd, 10 * m - 4 * m + m);
    assert!(f.ep.partial_seen && f.rto.is_armed());
    assert_eq!(retransmitted(&w), vec![0, 4]);
    // Full ACK: nothing left in flight, cwnd = min(5, 0 + 1) + ... = 2 segments.
    let f = &mut w.flow;
    f.on_ack(&mut w.io, &ack_pkt(10 * m, false));
    assert_eq!(f.cong, CongState::Open);
    assert_eq!(f.st.cwnd, 2 * m);
}

/// `init_ssthresh` ends slow start at that window: below it an ACK of one
/// segment grows cwnd by a segment, at or above it by about a segment per
/// window (RFC 5681), and without it slow start goes on.
#[test]
fn init_ssthresh_ends_slow_start() {
    let m = MSS as u64;
    for (ssthresh, want_ss) in [(Some(12), false), (None, true)] {
        let mut t = tcp(CcKind::NewReno);
        t.init_ssthresh_segments = ssthresh;
        let mut w = world(t);
        assert_eq!(
            w.flow.st.ssthresh,
            ssthresh.map_or(u64::MAX, |s| s as u64 * m)
        );
        w.flow.app_write(&mut w.io, 100 * m, None);
        let f = &mut w.flow;
        for i in 1..=2 {
            f.on_ack(&mut w.io, &ack_pkt(i * m, false)); // slow start: 10 -> 12
        }
        assert_eq!(f.st.cwnd, 12 * m);
        let before = f.st.cwnd;
        for i in 3..=8 {
            f.on_ack(&mut w.io, &ack_pkt(i * m, false));
        }
        let grew = f.st.cwnd - before;
        if want_ss {
            assert_eq!(grew, 6 * m, "slow start goes on without init_ssthresh");
        } else {
            assert!(
                grew < m,
                "congestion avoidance from 12 segments: grew {grew}"
            );
        }
    }
}

/// RFC 6675's pipe leaves out SACKed bytes, but the receiver's window
/// starts at snd_una: with the first segment lost and the other nine
/// SACKed, SACK recovery must not send beyond snd_una + rwnd.
#[test]
fn sack_recovery_stays_within_the_receive_window() {
    use crate::config::{LossRecovery, Reordering};
    let mut t = loss_tcp(LossRecovery::DupAck, Reordering::Fixed);
    t.rwnd_bytes = 10 * MSS as u64;
    let mut w = world(t);
    w.flow.app_write(&mut w.io, 100 * MSS as u64, None);
    assert_eq!(w.flow.snd_max(), 10 * MSS as u64);
    let m = MSS as u64;
    for k in 2..=10 {
        let f = &mut w.flow;
        f.on_ack(&mut w.io, &sack_ack(0, &[(m, k * m)], SimTime::ZERO));
        assert!(
            f.snd_max() <= f.snd_una() + 10 * m,
            "snd_max {} after SACK of 1..{k}",
            f.snd_max()
        );
    }
    assert_eq!(w.flow.cong, CongState::Recovery);
    assert_eq!(retransmitted(&w), vec![0]);
}

/// RFC 3168: a classic-ECN receiver latches ECE until it sees CWR, so an
/// ECE that arrives before our CWR went out (no new data since the cut)
/// echoes the congestion we already answered and must not cut again, even
/// after the ACK at the recovery point ends CWR. Once new data carried CWR,
/// a fresh ECE cuts.
#[test]
fn latched_ece_before_cwr_is_sent_does_not_cut_again() {
    let m = MSS as u64;
    let mut w = world(tcp(CcKind::NewReno));
    w.flow.app_write(&mut w.io, 10 * m, None);
    let f = &mut w.flow;
    f.on_ack(&mut w.io, &ack_pkt(m, true));
    assert_eq!(f.stats.ecn_cuts, 1);
    // all data acknowledged (CWR ends at the recovery point) with ECE still latched
    f.on_ack(&mut w.io, &ack_pkt(10 * m, true));
    assert_eq!(
        f.stats.ecn_cuts, 1,
        "a latched ECE before CWR was sent must not cut"
    );
    f.app_write(&mut w.io, 10 * m, None);
    assert!(
        data_sent(&w)
            .iter()
            .any(|p| p.seq == 10 * m && p.flags & flags::CWR != 0),
        "the next new segment carries CWR"
    );
    let f = &mut w.flow;
    f.on_ack(&mut w.io, &ack_pkt(11 * m, true));
    assert_eq!(f.stats.ecn_cuts, 2, "after CWR went out, a new ECE cuts");
}

// ------------------------------------------- the endpoint's outbox itself

/// What the flow asked for since outbox entry `mark`: packets and wake-ups.
fn since(w: &Script, mark: usize) -> (Vec<Packet>, Vec<(SimTime, TcpTimer)>) {
    let (mut pkts, mut wakes) = (Vec::new(), Vec::new());
    for o in &w.io.pending()[mark..] {
        match *o {
            TcpOut::Send(p) | TcpOut::SendNicStamped(p) => pkts.push(p),
            TcpOut::Wake { at, timer } => wakes.push((at, timer)),
        }
    }
    (pkts, wakes)
}

/// A write sends the initial window as data segments from the sender's
/// host, each sized MSS plus header, and asks for exactly one RTO wake-up,
/// one RTO after now (RFC 6298 (5.1)), right after the first segment.
#[test]
fn write_emits_the_initial_window_and_one_rto_wakeup() {
    let mut w = world(tcp(CcKind::NewReno));
    let m = MSS as u64;
    w.io.at(SimTime::from_us(7));
    w.flow.app_write(&mut w.io, 20 * m, None);
    let (pkts, wakes) = since(&w, 0);
    assert_eq!(pkts.len(), 10, "init_cwnd segments");
    for (i, p) in pkts.iter().enumerate() {
        assert_eq!((p.kind, p.src, p.dst), (PktKind::Data, 0, 1));
        assert_eq!((p.seq, p.payload, p.wire), (i as u64 * m, MSS, MSS + 40));
        assert_eq!(p.ts, SimTime::from_us(7));
    }
    let rto = w.flow.current_rto();
    assert_eq!(wakes, vec![(SimTime::from_us(7) + rto, TcpTimer::Rto)]);
    assert!(matches!(w.io.pending()[1], TcpOut::Wake { .. }));
}

/// An ACK that advances snd_una re-arms the RTO later without a new
/// wake-up (the timer is lazy); the old wake-up, handed back, asks for one
/// at the new deadline; that one expires: the head segment goes out again
/// marked as a retransmission and the next wake-up is one doubled RTO away.
#[test]
fn rto_rearms_lazily_and_retransmits_the_head_on_expiry() {
    let mut w = world(tcp(CcKind::NewReno));
    let m = MSS as u64;
    w.flow.app_write(&mut w.io, 40 * m, None);
    let rto = w.flow.current_rto();
    let first = SimTime::ZERO + rto;
    let t_ack = SimTime::from_us(50);
    let mark = w.io.pending().len();
    w.io.at(t_ack);
    w.flow.on_ack(&mut w.io, &ack_pkt(2 * m, false));
    let (pkts, wakes) = since(&w, mark);
    // New data continues at 10 segments and fills the grown window.
    assert!(!pkts.is_empty());
    for (i, p) in pkts.iter().enumerate() {
        assert_eq!((p.kind, p.seq), (PktKind::Data, (10 + i as u64) * m));
    }
    let f = &w.flow;
    assert_eq!(f.snd_max() - f.snd_una(), f.send_window());
    assert!(wakes.is_empty(), "a later deadline needs no new wake-up");
    let deadline = t_ack + w.flow.current_rto();
    assert_eq!(w.flow.rto.deadline(), Some(deadline));

    // The stale wake-up at `first` reschedules itself at the deadline.
    let mark = w.io.pending().len();
    w.io.at(first);
    w.flow.on_timer(&mut w.io, TcpTimer::Rto);
    let (pkts, wakes) = since(&w, mark);
    assert!(pkts.is_empty());
    assert_eq!(wakes, vec![(deadline, TcpTimer::Rto)]);

    // At the deadline: a timeout.
    let mark = w.io.pending().len();
    w.io.at(deadline);
    w.flow.on_timer(&mut w.io, TcpTimer::Rto);
    let (pkts, wakes) = since(&w, mark);
    assert_eq!(w.flow.stats.timeouts, 1);
    assert_eq!(pkts.len(), 1, "cwnd = 1 segment after a timeout");
    assert_eq!(
        (pkts[0].seq, pkts[0].flags & flags::RETX),
        (2 * m, flags::RETX)
    );
    assert_eq!(wakes, vec![(deadline + SimTime(2 * rto.0), TcpTimer::Rto)]);
}

/// With delayed ACKs one in-order segment is not acknowledged at once: the
/// receiver asks to be woken after the delayed-ACK timeout and then sends
/// one cumulative ACK from the receiver's host; a second segment before
/// that sends the ACK at once and the pending wake-up finds nothing to do.
#[test]
fn delayed_ack_waits_for_its_wakeup_or_the_second_segment() {
    let mut t = tcp(CcKind::NewReno);
    t.delayed_ack = true;
    let timeout = t.delayed_ack_timeout;
    let m = MSS as u64;
    let mut w = world(t.clone());
    w.flow.on_data(&mut w.io, &data_pkt(0, MSS, false));
    let (acks, wakes) = since(&w, 0);
    assert!(acks.is_empty(), "the first segment waits");
    assert_eq!(wakes, vec![(timeout, TcpTimer::DelAck)]);
    let mark = w.io.pending().len();
    w.io.at(timeout);
    w.flow.on_timer(&mut w.io, TcpTimer::DelAck);
    let (acks, wakes) = since(&w, mark);
    assert!(wakes.is_empty());
    assert_eq!(acks.len(), 1);
    assert_eq!(
        (acks[0].kind, acks[0].src, acks[0].dst),
        (PktKind::Ack, 1, 0)
    );
    assert_eq!((acks[0].seq, acks[0].wire), (m, 40));

    let mut w = world(t);
    w.flow.on_data(&mut w.io, &data_pkt(0, MSS, false));
    w.flow.on_data(&mut w.io, &data_pkt(m, MSS, false));
    let (acks, _) = since(&w, 0);
    assert_eq!(acks.iter().map(|a| a.seq).collect::<Vec<_>>(), vec![2 * m]);
    let mark = w.io.pending().len();
    w.io.at(timeout);
    w.flow.on_timer(&mut w.io, TcpTimer::DelAck);
    let (acks, wakes) = since(&w, mark);
    assert!(acks.is_empty() && wakes.is_empty(), "nothing left to ACK");
}

/// Quick-ACK at start: the first `delayed_ack_quickack` in-order segments
/// are each ACKed at once; after them the receiver delays as usual (one ACK
/// per two segments). Without delayed ACKs the key changes nothing.
#[test]
fn quickack_acks_the_first_segments_at_once_then_delays() {
    let m = MSS as u64;
    for quick in [0u32, 3] {
        let mut t = tcp(CcKind::NewReno);
        t.delayed_ack = true;
        t.delayed_ack_quickack = quick;
        let mut w = world(t);
        for i in 0..9u64 {
            w.flow.on_data(&mut w.io, &data_pkt(i * m, MSS, false));
        }
        let (acks, _) = since(&w, 0);
        let seqs: Vec<u64> = acks.iter().map(|a| a.seq / m).collect();
        // quick segments one by one, then every second one
        let want: Vec<u64> = (1..=quick as u64)
            .chain((quick as u64 + 2..=9).step_by(2))
            .collect();
        assert_eq!(seqs, want, "quickack = {quick}");
    }
    let mut t = tcp(CcKind::NewReno);
    t.delayed_ack_quickack = 3;
    let mut w = world(t);
    for i in 0..5u64 {
        w.flow.on_data(&mut w.io, &data_pkt(i * m, MSS, false));
    }
    assert_eq!(
        since(&w, 0).0.len(),
        5,
        "no delayed ACKs: every segment ACKed"
    );
}

/// The fields a data or ACK arrival touches stay in the cache lines the
/// `TcpFlow` layout gives them (a layout change that spreads them shows
/// here, not only as cache misses at k = 16).
#[test]
fn hot_fields_stay_in_their_lines() {
    use std::mem::{offset_of, size_of_val};
    let f = TcpFlow::new(0, 0, 0, 1, TcpConfig::default(), stream(1, Stream::Flow, 0));
    macro_rules! line {
        ($($field:ident).+, $n:expr) => {{
            let at = offset_of!(TcpFlow, $($field).+);
            let end = at + size_of_val(&f.$($field).+) - 1;
            assert_eq!(
                (at / 64, end / 64),
                ($n, $n),
                concat!(stringify!($($field).+), " left line ", stringify!($n))
            );
        }};
    }
    line!(snd_una, 0);
    line!(app_limit, 0);
    line!(st, 0);
    line!(segs, 1);
    line!(rto, 1);
    assert_eq!(
        std::mem::size_of::<HalfLine<LazyTimer>>(),
        32,
        "the RTO timer outgrew half a line"
    );
    line!(srtt, 2);
    line!(ecn_recover, 2);
    assert_eq!(offset_of!(TcpFlow, cc) / 64, 3);
    assert!((offset_of!(TcpFlow, cc) + size_of_val(&f.cc) - 1) / 64 <= 4);
    line!(ep, 4);
    line!(prx_hit, 4);
    line!(label, 4);
    line!(cfg, 5);
    line!(id, 5);
    line!(app, 5);
    line!(undo, 5);
    line!(msg_starts, 6);
    line!(first_flight, 6);
    // The policy's tag (its first byte, `repr(u8)`) ends line 6.
    assert_eq!(offset_of!(TcpFlow, seg_policy) / 64, 6);
    line!(rx.rcv_nxt, 8);
    line!(rx.ooo, 8);
    line!(rx.unacked_segs, 8);
    line!(rx.echo, 8);
    line!(rx.msg_ends, 9);
    let stats = offset_of!(TcpFlow, stats);
    assert_eq!(stats / 64, 9);
    assert_eq!(
        (stats + offset_of!(FlowStats, ecn_marks) + 7) / 64,
        9,
        "the packet counters of FlowStats left line 9"
    );
    // Every ACK reads the recovery machine: it starts line 13, and a
    // NewReno machine's tag and the flag its ACK hook reads share that line.
    assert_eq!(
        offset_of!(TcpFlow, rec),
        13 * 64,
        "the recovery machine left line 13"
    );
    let mut c = TcpConfig::default();
    (c.sack, c.recovery) = (false, crate::config::LossRecovery::DupAck);
    let reno = Box::new(TcpFlow::new(0, 0, 0, 1, c, stream(1, Stream::Flow, 0)));
    let Recovery::NewReno(m) = &reno.rec else {
        panic!("a flow without SACK runs NewReno")
    };
    let at = m.detect_at() - std::ptr::addr_of!(*reno) as usize;
    assert_eq!(at / 64, 13, "NewReno's ACK flag left the machine's line");
}

// ------------------------------------------------------------------
// Issue 24: rate reduction in recovery (RFC 6937), and RFC 5681 §3.2.

/// 40 segments out, the first lost; each later ACK SACKs one more. For
/// every ACK in recovery: (bytes delivered since recovery began, bytes
/// sent since, pipe after, ssthresh), and the flow at the end.
fn prr_run(reduction: crate::config::Reduction) -> (Vec<(u64, u64, u64, u64)>, Script) {
    let m = MSS as u64;
    let mut w = world(reno(|t| {
        t.sack = true;
        t.init_cwnd_segments = 40;
        t.limited_transmit = false;
        t.reduction = reduction;
    }));
    w.flow.app_write(&mut w.io, 200 * m, None);
    let mut log = Vec::new();
    let (mut sent_at_start, mut delivered) = (None, 0);
    for hi in 2..=40 {
        let f = &mut w.flow;
        f.on_ack(&mut w.io, &sack_ack0(0, &[(m, hi * m)]));
        if f.cong != CongState::Recovery {
            continue;
        }
        // The ACK that starts recovery counts (its SACK is delivery).
        let start = *sent_at_start.get_or_insert(data_sent(&w).len() as u64 - 1);
        delivered += m;
        let sent = (data_sent(&w).len() as u64 - start) * m;
        log.push((delivered, sent, w.flow.board().pipe, w.flow.st.ssthresh));
    }
    (log, w)
}

/// RFC 6937 §3: while pipe > ssthresh, PRR sends ssthresh/RecoverFS of
/// what is delivered — within one segment, on every ACK. RFC 6675's rule
/// sends nothing at first (pipe above cwnd = ssthresh), then two per ACK.
#[test]
fn prr_sends_ssthresh_over_recoverfs_of_what_is_delivered() {
    use crate::config::Reduction::{Prr, PrrBis, Rfc6675};
    let m = MSS as u64;
    for red in [Prr, PrrBis] {
        let (log, w) = prr_run(red);
        let rfs = w.flow.rec.sack().unwrap().prr.recover_fs;
        let mut checked = 0;
        for &(delivered, sent, pipe, ssthresh) in &log {
            if pipe <= ssthresh + m {
                break; // the reduction bound's part (PRR-SSRB / bis)
            }
            let target = (delivered * ssthresh).div_ceil(rfs);
            assert!(
                sent + m > target && sent < target + m,
                "{red:?}: sent {sent} for {delivered} delivered, ssthresh/RecoverFS = {ssthresh}/{rfs}"
            );
            checked += 1;
        }
        assert!(
            checked >= 10,
            "{red:?}: only {checked} ACKs in the proportional part"
        );
    }
    let (log, _) = prr_run(Rfc6675);
    let unproportional = log
        .iter()
        .any(|&(d, s, _, th)| s + m <= d * th / (40 * m) || s >= d * th / (36 * m) + m);
    assert!(
        unproportional,
        "RFC 6675's rule is not proportional: {log:?}"
    );
}

/// RFC 6937 §3, per ACK: what an ACK in recovery sends — the fast
/// retransmission of the ACK that starts it included — is no more than
/// the rule allows from pipe and prr_out *before* that ACK sends:
/// ceil(prr_delivered · ssthresh / RecoverFS) − prr_out above ssthresh,
/// else min(ssthresh − pipe, limit), limit being PRR-SSRB's
/// max(prr_delivered − prr_out, DeliveredData) + MSS, or for `prr_bis`
/// DeliveredData alone unless the ACK advances snd_una. 10 segments out,
/// the first four lost (packetdrill's prr-ss-30pkt-lost-1_4-11_16 without
/// Limited Transmit): recovery starts with pipe below ssthresh, and the
/// ACK that starts it delivers one segment, so it may send one.
#[test]
fn no_ack_in_recovery_sends_more_than_prr_allows() {
    use crate::config::Reduction::{Prr, PrrBis};
    let m = MSS as u64;
    for red in [Prr, PrrBis] {
        let mut w = world(reno(|t| {
            t.sack = true;
            t.limited_transmit = false;
            t.reduction = red;
        }));
        w.flow.app_write(&mut w.io, 60 * m, None);
        // (ack, SACKed up to): one more segment delivered on each ACK; the
        // retransmissions of 0..4 arrive one by one after the SACKs.
        let mut script: Vec<(u64, u64)> = (5..=10).map(|hi| (0, hi * m)).collect();
        script.extend((1..=4).map(|a| (a * m, 10 * m)));
        let (mut prr_delivered, mut prr_out, mut checked) = (0u64, 0u64, 0);
        let (mut una, mut prev_hi) = (0, 4 * m);
        for (ack, hi) in script {
            let f = &mut w.flow;
            let was_recovering = f.cong == CongState::Recovery;
            let before = data_sent(&w).len() as u64;
            let f = &mut w.flow;
            f.on_ack(&mut w.io, &sack_ack0(ack, &[(4 * m, hi)]));
            let entered = !was_recovering && f.cong == CongState::Recovery;
            if !was_recovering && !entered {
                prev_hi = hi;
                continue;
            }
            // DeliveredData: no ACK here reaches the SACKed 4..10.
            let delivered = (ack - una) + (hi - prev_hi);
            let sent = (data_sent(&w).len() as u64 - before) * m;
            let f = &w.flow;
            let pipe_before = f.board().pipe - sent;
            let ssthresh = f.st.ssthresh;
            prr_delivered += delivered;
            let allowed = if pipe_before > ssthresh {
                (prr_delivered * ssthresh).div_ceil(f.rec.sack().unwrap().prr.recover_fs) - prr_out
            } else {
                let ssrb = prr_delivered.saturating_sub(prr_out).max(delivered) + m;
                let limit = match red {
                    PrrBis if ack == una => delivered,
                    _ => ssrb,
                };
                (ssthresh - pipe_before).min(limit)
            };
            // The fast retransmission goes out whatever the window.
            let allowed = if entered { allowed.max(m) } else { allowed };
            assert!(
                sent <= allowed,
                "{red:?}: ACK {ack} SACK to {hi} sent {sent} where PRR allows {allowed} \
                 (delivered {delivered}, pipe before {pipe_before}, ssthresh {ssthresh}, \
                 prr_delivered {prr_delivered}, prr_out {prr_out})"
            );
            prr_out += sent;
            (una, prev_hi) = (ack, hi);
            checked += 1;
        }
        assert!(checked >= 8, "{red:?}: only {checked} ACKs in recovery");
        assert!(prr_out > 0, "{red:?}: recovery sent nothing");
    }
}

/// RFC 6937 §3 "on exiting recovery": cwnd = ssthresh, whichever rule.
#[test]
fn recovery_ends_at_cwnd_equal_to_ssthresh() {
    use crate::config::Reduction::{Prr, PrrBis, Rfc6675};
    for red in [Prr, PrrBis, Rfc6675] {
        let (_, mut w) = prr_run(red);
        let f = &mut w.flow;
        assert_eq!(f.cong, CongState::Recovery);
        let ssthresh = f.st.ssthresh;
        // The retransmission arrives: everything up to what recovery began with is acked.
        f.on_ack(&mut w.io, &sack_ack0(f.ep.recover, &[]));
        assert_eq!(f.cong, CongState::Open, "{red:?}");
        assert_eq!(f.st.cwnd, ssthresh, "{red:?}");
    }
}

/// RFC 5681 §3.2 step 2: FlightSize for ssthresh MUST NOT count what
/// Limited Transmit sent. 8 segments out, the first lost: Limited
/// Transmit sends two more, and ssthresh is half of 8, not of 10.
#[test]
fn ssthresh_at_fast_retransmit_ignores_limited_transmit_segments() {
    let m = MSS as u64;
    for sack in [false, true] {
        let mut w = world(reno(|t| {
            t.init_cwnd_segments = 8;
            t.sack = sack;
        }));
        w.flow.app_write(&mut w.io, 40 * m, None);
        let f = &mut w.flow;
        for hi in 2..=4 {
            f.on_ack(&mut w.io, &sack_ack0(0, &[(m, hi * m)]));
        }
        assert_eq!(f.cong, CongState::Recovery, "sack = {sack}");
        assert_eq!(
            f.snd_max(),
            10 * m,
            "sack = {sack}: two Limited Transmit segments"
        );
        assert_eq!(f.st.ssthresh, 4 * m, "sack = {sack}");
    }
}

/// With SACK, Limited Transmit is bounded by pipe (RFC 6675 §5 step 3)
/// and applies on every duplicate ACK below DupThresh, also when that is
/// above 3; and the ACK that starts recovery sends the retransmission
/// first.
#[test]
fn sack_limited_transmit_follows_pipe_below_a_raised_dupthresh() {
    let m = MSS as u64;
    let mut w = world(reno(|t| {
        t.init_cwnd_segments = 8;
        t.sack = true;
        t.dupack_threshold = 5;
    }));
    w.flow.app_write(&mut w.io, 40 * m, None);
    for hi in 2..=5 {
        let f = &mut w.flow;
        f.on_ack(&mut w.io, &sack_ack0(0, &[(m, hi * m)]));
        assert_eq!(f.cong, CongState::Open);
        // One segment SACKed per ACK, one new segment out: pipe = cwnd.
        assert_eq!(f.snd_max(), (8 + hi - 1) * m, "{} dup ACKs", hi - 1);
    }
    let before = data_sent(&w).len();
    let f = &mut w.flow;
    f.on_ack(&mut w.io, &sack_ack0(0, &[(m, 6 * m)]));
    assert_eq!(f.cong, CongState::Recovery);
    let after = data_sent(&w);
    assert!(
        after[before].flags & flags::RETX != 0,
        "the retransmission leaves first"
    );
}

/// A retransmission lost again is resent once data sent after it is
/// SACKed, without waiting for the RTO (PRR rules); RFC 6675's rule
/// leaves it to the RTO.
#[test]
fn a_lost_retransmission_is_resent_without_the_rto() {
    use crate::config::Reduction::{PrrBis, Rfc6675};
    let m = MSS as u64;
    for red in [PrrBis, Rfc6675] {
        let mut w = world(reno(|t| {
            t.init_cwnd_segments = 10;
            t.sack = true;
            t.limited_transmit = false;
            t.reduction = red;
        }));
        w.flow.app_write(&mut w.io, 100 * m, None);
        let f = &mut w.flow;
        for hi in 2..=4 {
            f.on_ack(&mut w.io, &sack_ack0(0, &[(m, hi * m)]));
        }
        assert_eq!(retransmitted(&w), vec![0]);
        // Everything else arrives, and what was sent after the
        // retransmission too — but no copy of segment 0.
        let mut hi = 4;
        while hi < w.flow.snd_max() / m && hi < 30 {
            hi += 1;
            w.flow.on_ack(&mut w.io, &sack_ack0(0, &[(m, hi * m)]));
        }
        let resent = retransmitted(&w).iter().filter(|&&s| s == 0).count();
        match red {
            // The script loses every copy, so each is found lost in turn.
            PrrBis => assert!(resent >= 2, "resent once found lost again"),
            _ => assert_eq!(resent, 1, "RFC 6675: left to the RTO"),
        }
        assert_eq!(w.flow.stats.timeouts, 0);
    }
}

// Linux's slow-start counting and cwnd validation (issue 24).
mod linux;

// Recovery entered by RACK's reordering timer (issue 24).
mod reo_timer;

// RACK after a timeout: a resend lost again (issue 45, mechanism J).
mod rack_loss;

// Reordering detection from SACKs (issue 24).
mod reorder;

// Protective Load Balancing: when a DCTCP sender takes a new flow label.
mod plb;

/// RFC 6582 §4.1 without SACK: eight holes in one window are repaired one
/// per partial ACK, each behind the new data the inflated window sends.
/// The Impatient timer, restarted by the first partial ACK only, fires
/// before the last hole is repaired; Slow-but-Steady (Linux, which rearms
/// the RTO on every ACK of new data) finishes the recovery without one.
#[test]
fn a_long_newreno_recovery_times_out_only_when_impatient() {
    use crate::config::PartialAckTimer;
    let m = MSS as u64;
    for (timer, want) in [
        (PartialAckTimer::Impatient, true),
        (PartialAckTimer::SlowButSteady, false),
        (PartialAckTimer::Linux, false),
    ] {
        let mut w = world(reno(|t| {
            t.init_cwnd_segments = 20;
            t.rto_min = SimTime::from_ms(2);
            t.partial_ack_timer = timer;
        }));
        w.flow.app_write(&mut w.io, 200 * m, None);
        let mut next = 0;
        let holes = [0u64, 2, 4, 6, 8, 10, 12, 14];
        let mut lose = |p: &Packet| p.flags & flags::RETX == 0 && holes.contains(&(p.seq / m));
        fifo(&mut w, &mut next, &mut lose, SimTime::from_us(50));
        let f = &w.flow;
        assert_eq!(f.snd_una(), 200 * m, "{timer:?}: all delivered");
        assert_eq!(
            f.stats.timeouts > 0,
            want,
            "{timer:?}: {} timeouts",
            f.stats.timeouts
        );
    }
}

/// BBR paces recovery's retransmissions as the kernel does: the fast
/// retransmit that three duplicate ACKs call for, arriving while the
/// pacing gate holds the sender, waits for the pacing timer and then
/// leaves ahead of new data (tcp_xmit_retransmit_queue stops at
/// tcp_pacing_check; tcp_tsq_write sends the retransmit queue first).
/// With and without SACK.
#[test]
fn a_bbr_fast_retransmit_waits_for_its_pacing_slot() {
    let m = MSS as u64;
    for sack in [false, true] {
        let mut w = world(TcpConfig {
            cc: CcKind::Bbr,
            mss: MSS,
            init_cwnd_segments: 10,
            sack,
            ..TcpConfig::default()
        });
        w.flow.app_write(&mut w.io, 60 * m, None);
        assert_eq!(data_sent(&w).len(), 10, "sack {sack}: the initial window");
        run_timers(&mut w, ACK_AT);
        // Segment 0 is delivered, 1 is lost; the cumulative ACK lets new
        // data go and the pacing gate closes behind it.
        w.flow.on_ack(&mut w.io, &sack_ack(m, &[], SimTime::ZERO));
        let hold = match &w.flow.cc {
            Cc::Bbr(b) => b.hold_until(w.io.now()),
            _ => unreachable!(),
        };
        let hold = hold.expect("pacing holds the sender after the ACK's sends");
        for k in 3..=5u64 {
            let blocks = [(2 * m, k * m)];
            let p = sack_ack(m, if sack { &blocks } else { &[] }, SimTime::ZERO);
            w.flow.on_ack(&mut w.io, &p);
        }
        assert_eq!(w.flow.cong, CongState::Recovery, "sack {sack}");
        assert!(
            retransmitted(&w).is_empty(),
            "sack {sack}: resent at {:?}, before the pacing slot at {hold:?}",
            w.io.now()
        );
        let before = data_sent(&w).len();
        run_timers(&mut w, hold);
        let after = data_sent(&w);
        assert!(after.len() > before, "sack {sack}: the slot sends");
        assert_eq!(
            (after[before].seq, after[before].flags & flags::RETX != 0),
            (m, true),
            "sack {sack}: the retransmission leaves first, in its slot"
        );
        assert_eq!(retransmitted(&w), vec![1], "sack {sack}: once");
    }
}

/// Found by `bbr_runs_obey_the_laws` at 100,000 cases: a BBR timeout's
/// go-back-N asked the pacing gate before its first resend, so a flow
/// whose pacing clock ran ahead (a low rate) counted a timeout and sent
/// nothing until its slot. The kernel's tcp_retransmit_timer resends the
/// head itself (tcp_retransmit_skb, no tcp_pacing_check).
#[test]
fn a_bbr_timeout_resends_the_head_at_once() {
    let m = MSS as u64;
    let mut w = world(TcpConfig {
        cc: CcKind::Bbr,
        mss: MSS,
        init_cwnd_segments: 10,
        ..TcpConfig::default()
    });
    w.flow.app_write(&mut w.io, 60 * m, None);
    run_timers(&mut w, ACK_AT);
    w.flow.on_ack(&mut w.io, &sack_ack(m, &[], SimTime::ZERO));
    let hold = |w: &Script| match &w.flow.cc {
        Cc::Bbr(b) => b.hold_until(w.io.now()),
        _ => unreachable!(),
    };
    assert!(
        hold(&w).is_some(),
        "pacing holds the sender after the ACK's sends"
    );
    let before = data_sent(&w).len();
    w.flow.on_timeout(&mut w.io);
    let sent = data_sent(&w);
    assert_eq!(w.flow.stats.timeouts, 1);
    assert_eq!(
        sent.len(),
        before + 1,
        "the head alone, before the pacing slot"
    );
    assert_eq!(
        (sent[before].seq, sent[before].flags & flags::RETX != 0),
        (m, true)
    );
    assert_eq!(retransmitted(&w), vec![1]);
    assert_eq!(w.flow.snd_nxt(), 2 * m, "the go-back goes on from the next");
}
