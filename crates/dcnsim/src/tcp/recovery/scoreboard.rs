//! The SACK scoreboard (RFC 6675 §4): what is SACKed, what is deemed lost,
//! what is in the pipe.
//!
//! The flow keeps running counts of its SACKed segments and bytes
//! ([`Counters`]), so IsLost() of the first unacknowledged segment is O(1).
//! [`board`] takes one reverse pass per ACK and gives pipe and the
//! boundary below which every unSACKed segment is lost; the sender then
//! keeps pipe up to date as it sends and walks a cursor forward for the
//! next lost segment, instead of a full pass per segment sent (O(W²) per
//! ACK before issue 24).

use super::View;
use crate::tcp::*;

/// Running totals over the scoreboard.
#[derive(Clone, Copy, Debug, Default)]
pub(in crate::tcp) struct Counters {
    /// SACKed segments and bytes above snd_una.
    pub sacked_segs: u32,
    pub sacked_bytes: u64,
    /// Bytes Limited Transmit sent since the last ACK that advanced
    /// snd_una: RFC 5681 §3.2 step 2 leaves them out of FlightSize.
    pub lt_bytes: u64,
}

/// One pass over the scoreboard.
#[derive(Clone, Copy, Debug)]
pub(in crate::tcp) struct Board {
    /// RFC 6675 SetPipe(): bytes deemed in the network.
    pub pipe: u64,
    /// Duplicate-ACK detection: every unSACKed segment with an index below
    /// this is IsLost() (the SACKed count above a segment only grows
    /// toward snd_una, so the lost ones form a prefix).
    pub lost_end: usize,
    /// End of the highest SACKed segment (0: none).
    pub high_sacked: u64,
    /// End of the highest unSACKed segment deemed lost: grows when an ACK
    /// reports a new loss (PRR's "no further losses", RFC 6937bis).
    pub lost_hi: u64,
    /// Some retransmission is itself deemed lost.
    pub lost_again: bool,
}

/// How a machine decides what is lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::tcp) enum LossMarks {
    /// RFC 6675 IsLost(): `dupthresh` segments SACKed above. `lost_rexmit`:
    /// a retransmission is lost again once data sent `dupthresh` segments
    /// after it is SACKed (Linux's tcp_mark_lost_retrans, before RACK took
    /// the job over; the PRR rules detect it, RFC 6675 as written does not).
    DupAck { lost_rexmit: bool },
    /// RACK's marks (time-based, [`super::rack::RackTlp::detect`]).
    Rack,
}

/// A retransmission is lost again once data sent at least `dupthresh`
/// segments after it has been SACKed: it would have arrived first on a
/// path that does not reorder (RFC 6675's IsLost() applied to the
/// retransmission, measured from where snd_max was when it left).
#[inline]
pub(in crate::tcp) fn rexmit_lost(v: &View, marks: LossMarks, s: &Seg, high_sacked: u64) -> bool {
    s.rexmit
        && marks == (LossMarks::DupAck { lost_rexmit: true })
        && high_sacked > s.rexmit_hi + (v.dupthresh as u64).saturating_sub(1) * v.st.smss
}

/// One reverse pass (RFC 6675 §4 SetPipe with IsLost, or RACK's marks).
pub(in crate::tcp) fn board(v: &View, marks: LossMarks) -> Board {
    let thresh = v.dupthresh;
    let byte_thresh = (thresh as u64).saturating_sub(1) * v.st.smss;
    let rack = marks == LossMarks::Rack;
    let high_sacked = v
        .segs
        .iter()
        .rev()
        .find(|s| s.sacked)
        .map_or(0, |s| s.end());
    let (mut n_above, mut bytes_above) = (0u32, 0u64);
    let mut b = Board {
        pipe: 0,
        lost_end: 0,
        high_sacked,
        lost_hi: 0,
        lost_again: false,
    };
    let mut lost_from_here = false;
    for (i, s) in v.segs.iter().enumerate().rev() {
        if s.sacked {
            n_above += 1;
            bytes_above += s.len as u64;
            continue;
        }
        if rack {
            // RACK: lost is what RACK marked (time-based); a
            // retransmission clears the mark, so a segment in flight
            // (original or copy) counts once, and one whose copy RACK
            // also judged lost counts nothing and goes out again.
            if s.lost {
                b.lost_hi = b.lost_hi.max(s.end());
            } else {
                b.pipe += s.len as u64;
            }
            continue;
        }
        if !lost_from_here && (n_above >= thresh || bytes_above > byte_thresh) {
            lost_from_here = true;
            b.lost_end = i + 1;
            b.lost_hi = s.end();
        }
        // RFC 6675 §4 SetPipe: (a) not lost: +1; (b) retransmitted: +1
        // — unless the retransmission is lost too.
        if !lost_from_here {
            b.pipe += s.len as u64;
        }
        if s.rexmit {
            if rexmit_lost(v, marks, s, high_sacked) {
                b.lost_again = true;
            } else {
                b.pipe += s.len as u64;
            }
        }
    }
    if rack {
        b.lost_end = v.segs.len();
    }
    b
}

/// NextSeg (1) from index `from` on: the first segment deemed lost and
/// not yet retransmitted (or whose retransmission is lost too).
pub(in crate::tcp) fn next_lost(
    v: &View,
    marks: LossMarks,
    b: &Board,
    from: usize,
) -> Option<usize> {
    (from..b.lost_end).find(|&i| {
        let s = &v.segs[i];
        if s.sacked {
            false
        } else if marks == LossMarks::Rack {
            s.lost
        } else {
            !s.rexmit || rexmit_lost(v, marks, s, b.high_sacked)
        }
    })
}

impl TcpFlow {
    /// The scoreboard as the flow's recovery machine judges it.
    #[inline]
    pub(in crate::tcp) fn board(&self) -> Board {
        board(&self.view(), self.rec.marks())
    }

    /// What counts against the window `wnd` when sending in order
    /// (go-back-N resends, then new data). Outside SACK recovery that is
    /// snd_nxt − snd_una, except after a timeout with SACK: RFC 6675 §5.1
    /// says the slow start that follows SHOULD use the SACK information,
    /// and segments the receiver has SACKed are no longer in the network
    /// (RFC 6675's pipe; Linux's tcp_packets_in_flight, ns-3's
    /// BytesInFlight), so they leave room for the resends and new data.
    /// Counting them kept a flow whose resend of a hole was lost from
    /// sending on the duplicate ACKs that SACK what it sent beyond, and
    /// from ever reaching the duplicate ACKs that would retransmit the hole
    /// once snd_una passes the recovery point: it waited for a second RTO
    /// (issue 25, validation/README.md). New data still ends within the
    /// receiver's window, counted from snd_una. (Without SACK nothing is
    /// ever SACKed.)
    pub(in crate::tcp) fn in_order_flight(&self, wnd: u64) -> u64 {
        let out = self.snd_nxt - self.snd_una;
        if self.cong != CongState::Loss || self.sh.sb.sacked_segs == 0 {
            return out;
        }
        if self.snd_nxt < self.snd_max {
            let nxt = self.snd_nxt;
            let sacked: u64 = self
                .segs
                .iter()
                .take_while(|s| s.start < nxt)
                .filter(|s| s.sacked)
                .map(|s| s.len as u64)
                .sum();
            return out - sacked;
        }
        let pipe = out - self.sh.sb.sacked_bytes;
        // pipe + len ≤ wnd must also keep snd_max + len ≤ snd_una + rwnd.
        let rwnd_used = out.saturating_sub(self.cfg.rwnd_bytes.saturating_sub(wnd));
        pipe.max(rwnd_used)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{board as segs, view, MSS};
    use super::*;

    const DUPACK: LossMarks = LossMarks::DupAck { lost_rexmit: true };

    /// RFC 6675 IsLost(): a segment with three SACKed segments above it is
    /// lost and leaves pipe; one with fewer stays in it; SACKed segments
    /// are never in pipe.
    #[test]
    fn three_sacked_above_make_a_segment_lost() {
        // 0 1 2 [3] 4 [5] [6] 7: 0–2 have three SACKed above, 4 two.
        let q = segs(8, &[3, 5, 6]);
        let v = view(&q, 10, 5, CongState::Recovery);
        let b = board(&v, DUPACK);
        assert_eq!(b.lost_end, 3);
        assert_eq!(b.lost_hi, 3 * MSS);
        assert_eq!(b.pipe, 2 * MSS, "4 and 7 are in the network");
        assert_eq!(b.high_sacked, 7 * MSS);
        assert!(v.head_is_lost());
        assert_eq!(next_lost(&v, DUPACK, &b, 0), Some(0));
        assert_eq!(next_lost(&v, DUPACK, &b, 3), None);
    }

    /// A retransmitted segment counts twice in pipe (original and copy)
    /// until it is deemed lost; the copy is judged lost again once data
    /// sent `dupthresh` segments after it is SACKed, and only under the
    /// rules that detect it.
    #[test]
    fn a_retransmission_is_lost_again_when_later_data_is_sacked() {
        let mut q = segs(8, &[1, 2, 3]);
        q[0].rexmit = true;
        q[0].rexmit_hi = 4 * MSS;
        let v = view(&q, 10, 5, CongState::Recovery);
        let b = board(&v, DUPACK);
        assert_eq!(b.pipe, 4 * MSS + MSS, "4–7, and the copy of 0");
        assert!(!b.lost_again);
        let mut q = segs(8, &[1, 2, 3, 5, 6]);
        q[0].rexmit = true;
        q[0].rexmit_hi = 4 * MSS;
        let v = view(&q, 10, 5, CongState::Recovery);
        let b = board(&v, DUPACK);
        assert!(b.lost_again);
        assert_eq!(next_lost(&v, DUPACK, &b, 0), Some(0), "resend it");
        let plain = LossMarks::DupAck { lost_rexmit: false };
        assert!(!board(&v, plain).lost_again);
        assert_eq!(
            next_lost(&v, plain, &board(&v, plain), 0),
            None,
            "wait for the RTO"
        );
    }

    /// Under RACK the marks decide: a marked segment leaves pipe whatever
    /// is SACKed above it, an unmarked one stays.
    #[test]
    fn rack_marks_decide_what_is_lost() {
        let mut q = segs(6, &[4, 5]);
        q[1].lost = true;
        let v = view(&q, 10, 5, CongState::Recovery);
        let b = board(&v, LossMarks::Rack);
        assert_eq!(b.pipe, 3 * MSS);
        assert_eq!(b.lost_hi, 2 * MSS);
        assert_eq!(next_lost(&v, LossMarks::Rack, &b, 0), Some(1));
    }
}
