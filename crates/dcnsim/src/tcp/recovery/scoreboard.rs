//! The SACK scoreboard (RFC 6675 §4): what is SACKed, what is deemed lost,
//! what is in the pipe.
//!
//! The flow keeps running counts of its SACKed segments and bytes
//! ([`Counters`]), so IsLost() of the first unacknowledged segment is O(1).
//! [`TcpFlow::board`] takes one reverse pass per ACK and gives pipe and the
//! boundary below which every unSACKed segment is lost; the sender then
//! keeps pipe up to date as it sends and walks a cursor forward for the
//! next lost segment, instead of a full pass per segment sent (O(W²) per
//! ACK before issue 24).

use crate::config::Reduction;
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

impl TcpFlow {
    /// Whether lost retransmissions are detected (Linux's
    /// tcp_mark_lost_retrans, before RACK took the job over): with the PRR
    /// rules and duplicate-ACK detection (RACK finds them by time).
    #[inline]
    pub(in crate::tcp) fn detects_lost_rexmit(&self) -> bool {
        self.cfg.reduction != Reduction::Rfc6675 && !self.rack_on()
    }

    /// A retransmission is lost again once data sent at least `dupthresh`
    /// segments after it has been SACKed: it would have arrived first on a
    /// path that does not reorder (RFC 6675's IsLost() applied to the
    /// retransmission, measured from where snd_max was when it left).
    #[inline]
    pub(in crate::tcp) fn rexmit_lost(&self, s: &Seg, high_sacked: u64) -> bool {
        s.rexmit
            && self.detects_lost_rexmit()
            && high_sacked > s.rexmit_hi + (self.dupthresh as u64).saturating_sub(1) * self.st.smss
    }

    /// One reverse pass (RFC 6675 §4 SetPipe with IsLost, or RACK's marks).
    pub(in crate::tcp) fn board(&self) -> Board {
        let thresh = self.dupthresh;
        let byte_thresh = (thresh as u64).saturating_sub(1) * self.st.smss;
        let rack = self.rack_on();
        let high_sacked = self
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
        for (i, s) in self.segs.iter().enumerate().rev() {
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
                if self.rexmit_lost(s, high_sacked) {
                    b.lost_again = true;
                } else {
                    b.pipe += s.len as u64;
                }
            }
        }
        if rack {
            b.lost_end = self.segs.len();
        }
        b
    }

    /// NextSeg (1) from index `from` on: the first segment deemed lost and
    /// not yet retransmitted (or whose retransmission is lost too).
    pub(in crate::tcp) fn next_lost(&self, b: &Board, from: usize) -> Option<usize> {
        let rack = self.rack_on();
        (from..b.lost_end).find(|&i| {
            let s = &self.segs[i];
            if s.sacked {
                false
            } else if rack {
                s.lost
            } else {
                !s.rexmit || self.rexmit_lost(s, b.high_sacked)
            }
        })
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
    /// receiver's window, counted from snd_una.
    pub(in crate::tcp) fn in_order_flight(&self, wnd: u64) -> u64 {
        let out = self.snd_nxt - self.snd_una;
        if !self.cfg.sack || self.cong != CongState::Loss || self.sb.sacked_segs == 0 {
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
        let pipe = out - self.sb.sacked_bytes;
        // pipe + len ≤ wnd must also keep snd_max + len ≤ snd_una + rwnd.
        let rwnd_used = out.saturating_sub(self.cfg.rwnd_bytes.saturating_sub(wnd));
        pipe.max(rwnd_used)
    }

    /// RFC 6675 IsLost() for the first unacknowledged segment, from the
    /// running counts.
    pub(in crate::tcp) fn head_is_lost(&self) -> bool {
        let thresh = self.dupthresh;
        let byte_thresh = (thresh as u64).saturating_sub(1) * self.st.smss;
        let (mut n, mut bytes) = (self.sb.sacked_segs, self.sb.sacked_bytes);
        if let Some(h) = self.segs.front().filter(|s| s.sacked) {
            n -= 1;
            bytes -= h.len as u64;
        }
        n >= thresh || bytes > byte_thresh
    }
}
