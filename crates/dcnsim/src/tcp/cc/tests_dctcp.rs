//! Laws of the window on the ACK path, stated on a whole sender (not just
//! the algorithm): DCTCP's cut never goes below two segments, a flow in CWR
//! leaves it on the ACK that reaches its recovery point, and congestion
//! avoidance per ACK adds SMSS²/cwnd on each ACK. The ns-3 harness
//! (validation/README.md) found ns-3.37's TcpDctcp breaking the first two
//! and stalling; these pin that dcnsim does not.

use crate::config::{CaIncrease, CcKind, DctcpParams, TcpConfig};
use crate::net::{flags, Packet, PktKind};
use crate::sim::rng::{stream, Stream};
use crate::sim::time::SimTime;
use crate::tcp::{CongState, TcpFlow, TcpIo};
use proptest::prelude::*;

const MSS: u64 = 1000;

fn flow(cfg: TcpConfig) -> (TcpFlow, TcpIo) {
    let mut f = TcpFlow::new(0, 0, 0, 1, cfg, stream(1, Stream::Flow, 0));
    f.handshake_sample(SimTime::from_us(100));
    (f, TcpIo::new(0))
}

fn dctcp(init_cwnd: u32, alpha_init: f64) -> TcpConfig {
    TcpConfig {
        cc: CcKind::Dctcp,
        mss: MSS as u32,
        init_cwnd_segments: init_cwnd,
        ecn: true,
        dctcp: DctcpParams {
            g: 1.0 / 16.0,
            alpha_init,
        },
        ..TcpConfig::default()
    }
}

fn ack(seq: u64, ece: bool) -> Packet {
    Packet {
        kind: PktKind::Ack,
        flags: if ece { flags::ECE } else { 0 },
        src: 1,
        dst: 0,
        seq,
        ..Packet::EMPTY
    }
}

/// Acknowledge everything outstanding, `step` bytes per ACK in order (the
/// flow sends more as its window allows), ECE on the ACKs `ece` picks.
/// Calls `check(flow, ack, ece, cut, sent)` after every ACK: whether it
/// carried ECE and caused an ECN cut, and snd_max when it arrived (before
/// what it released).
fn drain(
    f: &mut TcpFlow,
    io: &mut TcpIo,
    step: u64,
    mut ece: impl FnMut(u64) -> bool,
    mut check: impl FnMut(&TcpFlow, u64, bool, bool, u64),
) {
    let mut i = 0;
    while f.snd_una() < f.snd_max() {
        let to = (f.snd_una() + step).min(f.snd_max());
        let (cuts, sent, e) = (f.stats.ecn_cuts, f.snd_max(), ece(i));
        f.on_ack(io, &ack(to, e));
        check(f, to, e, f.stats.ecn_cuts > cuts, sent);
        i += 1;
    }
}

proptest! {
    #![proptest_config(crate::proptest_ci::config(64))]

    /// RFC 8257 §3.3 step 9 with RFC 5681's floor (Linux's dctcp_ssthresh):
    /// whatever α and the marking pattern, an ECN cut leaves ssthresh and
    /// cwnd at two segments or more. (ns-3.37's TcpDctcp::GetSsThresh has
    /// no floor: 1630 B = 1.1 segments in the harness's trace.)
    #[test]
    fn dctcp_never_cuts_below_two_segments(
        init_cwnd in 2u32..40,
        alpha_init in 0.0f64..=1.0,
        marks in proptest::collection::vec(any::<bool>(), 1..64),
        responses in 1usize..6,
        step_segs in 1u64..3,
    ) {
        let (mut f, mut io) = flow(dctcp(init_cwnd, alpha_init));
        let mut cuts = 0;
        for r in 0..responses {
            f.app_write(&mut io, 20 * MSS, None);
            drain(&mut f, &mut io, step_segs * MSS, |i| marks[(i as usize + r) % marks.len()], |f, _, _, cut, _| {
                assert!(f.st.cwnd >= 2 * MSS, "cwnd {} after an ACK", f.st.cwnd);
                if cut {
                    cuts += 1;
                    assert!(f.st.ssthresh >= 2 * MSS, "ssthresh {} after a cut", f.st.ssthresh);
                }
            });
        }
        prop_assert_eq!(cuts, f.stats.ecn_cuts);
        prop_assert_eq!(f.cong, CongState::Open);
    }

    /// RFC 3168 §6.1.2 / RFC 8257: one cut per window of data, and the
    /// window ends on the ACK that acknowledges the recovery point (snd_max
    /// at the cut), at it or beyond. Up to it ECE cuts nothing (an echo on
    /// the ACK at it is of the window's last segment, sent before the cut:
    /// Linux holds CWR there); beyond it, the next ECE cuts again — also
    /// when a response ends exactly at the recovery point and the next one
    /// starts later on the same connection (where ns-3.37 stays in CWR and,
    /// with its window below a segment, never sends the next response).
    #[test]
    fn cwr_ends_when_the_recovery_point_is_acknowledged(
        init_cwnd in 2u32..20,
        response_segs in 1u64..30,
        step_segs in 1u64..4,
        first_ece in 0u64..10,
        responses in 1usize..5,
    ) {
        let (mut f, mut io) = flow(dctcp(init_cwnd, 1.0));
        let mut point: Option<u64> = None;
        for _ in 0..responses {
            let before = f.snd_max();
            f.app_write(&mut io, response_segs * MSS, None);
            // A window below one segment would stall here with nothing in flight.
            prop_assert!(f.snd_max() > before, "the response's first segment did not go out");
            drain(&mut f, &mut io, step_segs * MSS, |i| i >= first_ece, |f, acked, ece, cut, sent| {
                if let Some(p) = point {
                    if acked < p {
                        assert!(f.ecn_in_cwr && !cut, "ACK {acked} below the recovery point {p}");
                    } else if acked == p && ece {
                        // Left CWR on this ACK; its echo is the old window's.
                        assert!(!f.ecn_in_cwr && !cut, "ECE at the recovery point {p}: cut again");
                    } else if ece {
                        assert!(cut, "ECE at {acked}, beyond the recovery point {p}: no cut");
                    } else {
                        assert!(!f.ecn_in_cwr, "in CWR at {acked}, at or beyond the recovery point {p}");
                        point = None;
                    }
                }
                if cut {
                    assert!(f.ecn_in_cwr);
                    // The recovery point: everything sent when the cut came.
                    assert_eq!(f.ecn_recover, sent);
                    point = Some(f.ecn_recover);
                }
            });
            // Everything is acknowledged. Still in CWR only if the last ACK
            // itself cut (its recovery point is that ACK): then the next
            // response's first ACK ends CWR and, with ECE, cuts again (the
            // `point` check above, carried over).
            if f.ecn_in_cwr {
                prop_assert_eq!(f.ecn_recover, f.snd_una());
                prop_assert_eq!(point, Some(f.snd_una()));
            }
        }
    }
}

/// RFC 5681 eq. 3 on a sender: in congestion avoidance every ACK of new
/// data adds SMSS²/cwnd, one-segment and stretch ACKs alike; byte counting
/// adds one SMSS per cwnd of acknowledged bytes. For NewReno and DCTCP.
#[test]
fn per_ack_avoidance_adds_smss_squared_over_cwnd_on_each_ack() {
    for cc in [CcKind::NewReno, CcKind::Dctcp] {
        for rule in [CaIncrease::PerAck, CaIncrease::Bytes] {
            let (mut f, mut io) = flow(TcpConfig {
                cc,
                mss: MSS as u32,
                init_cwnd_segments: 4,
                init_ssthresh_segments: Some(2),
                ca_increase: rule,
                ..TcpConfig::default()
            });
            f.app_write(&mut io, 400 * MSS, None);
            let (mut acked, mut grown) = (0u64, 0u64);
            let mut n = 0;
            while f.snd_una() < f.snd_max() {
                // Alternate one- and two-segment ACKs.
                let step = MSS * (1 + n % 2);
                n += 1;
                let to = (f.snd_una() + step).min(f.snd_max());
                let before = f.st.cwnd;
                let newly = to - f.snd_una();
                f.on_ack(&mut io, &ack(to, false));
                assert_eq!(f.cong, CongState::Open);
                let inc = f.st.cwnd - before;
                match rule {
                    CaIncrease::PerAck => {
                        assert_eq!(
                            inc,
                            MSS * MSS / before,
                            "{cc:?}: ACK of {newly} B at cwnd {before}"
                        )
                    }
                    CaIncrease::Bytes => assert!(inc == 0 || inc == MSS, "{cc:?}: {inc}"),
                }
                acked += newly;
                grown += inc;
            }
            if rule == CaIncrease::Bytes {
                // One SMSS per window acknowledged: fewer than acked/4 SMSS,
                // since the window started at 4 segments and only grew.
                assert!(
                    grown > 0 && grown * 4 <= acked,
                    "{cc:?}: grew {grown} for {acked} acked"
                );
            }
        }
    }
}
