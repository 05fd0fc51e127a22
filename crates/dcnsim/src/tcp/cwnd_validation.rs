//! Congestion-window validation as Linux does it (`tcp.cwnd_validation =
//! "linux"`): cwnd grows on an ACK only if the sender has been using it.
//!
//! Linux records after each transmission pass (tcp_write_xmit →
//! tcp_cwnd_validate) whether the flight reached cwnd, and the largest
//! number of segments outstanding, once per window of data: the record
//! restarts when snd_una passes the snd_nxt at which it began, and within a
//! window a cwnd-limited pass, or a larger flight while not cwnd-limited,
//! replaces it. tcp_cong_avoid grows cwnd only when tcp_is_cwnd_limited
//! holds: the record says cwnd-limited, or, in slow start, cwnd is below
//! twice the largest flight (so slow start still reaches twice what was
//! used). A sender held back by its application or the receiver's window
//! therefore keeps its cwnd instead of inflating it without testing the
//! path (RFC 7661 argues the same; its rule differs and is not modelled).
//!
//! Bytes stand for Linux's segment counts: "the flight reached cwnd" is
//! less than one SMSS of cwnd left unused.

use crate::config::CwndValidation;
use crate::tcp::*;

/// The record of the current window's use of cwnd.
#[derive(Clone, Copy, Debug, Default)]
pub(in crate::tcp) struct CwndUse {
    /// The flight reached cwnd in this window (Linux's is_cwnd_limited).
    pub limited: bool,
    /// The largest outstanding bytes seen in this window (max_packets_out).
    pub max_out: u64,
    /// snd_nxt when the record began (cwnd_usage_seq).
    pub seq: u64,
}

impl TcpFlow {
    /// After a transmission pass: `in_flight` is what the pass left in the
    /// network (pipe in SACK recovery), `sent` whether it sent anything.
    #[inline]
    pub(in crate::tcp) fn cwnd_validate(&mut self, in_flight: u64, sent: bool) {
        if self.cfg.cwnd_validation == CwndValidation::Off {
            return;
        }
        let limited = in_flight + self.st.smss > self.cc.send_window(&self.st);
        if !sent && !limited {
            return;
        }
        let out = self.snd_max - self.snd_una;
        let u = &mut self.cwnd_use;
        if self.snd_una >= u.seq || limited || (!u.limited && out > u.max_out) {
            *u = CwndUse {
                limited,
                max_out: out,
                seq: self.snd_nxt,
            };
        }
    }

    /// Whether an ACK may grow cwnd (Linux's tcp_is_cwnd_limited).
    #[inline]
    pub(in crate::tcp) fn may_grow_cwnd(&self) -> bool {
        if self.cfg.cwnd_validation == CwndValidation::Off || self.cwnd_use.limited {
            return true;
        }
        // Slow start: grow while cwnd is below twice the largest flight.
        self.st.cwnd < self.st.ssthresh && self.st.cwnd < 2 * self.cwnd_use.max_out
    }
}
