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

use crate::config::{CwndValidation, IdleRestart};
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

    /// The window a congestion signal reduces: RFC 5681's FlightSize
    /// (`flight`), or under Linux's validation cwnd, as tcp_reno_ssthresh
    /// and tcp_cubic's bictcp_recalc_ssthresh take it. RFC 9438 §4.6 allows
    /// cwnd only where cwnd cannot grow past what is in flight, which the
    /// validation ensures; after a timeout the flight is one segment while
    /// cwnd still says where the path was.
    #[inline]
    pub(in crate::tcp) fn reduction_base(&self, flight: u64) -> u64 {
        match self.cfg.cwnd_validation {
            CwndValidation::Off => flight,
            CwndValidation::Linux => self.st.cwnd,
        }
    }

    /// The application writes: after an idle period (nothing in flight,
    /// nothing sent) longer than the RTO, the window restarts
    /// (`tcp.idle_restart`): the path may have changed since cwnd was last
    /// tested, and a full window at once would be a line-rate burst.
    pub(in crate::tcp) fn restart_after_idle(&mut self, now: SimTime) {
        // Linux leaves a congestion control with its own cong_control
        // (BBR) alone after idle (tcp_slow_start_after_idle_check).
        if self.cfg.idle_restart == IdleRestart::Off
            || matches!(self.cc, super::cc::Cc::Bbr(_))
            || self.snd_una < self.snd_max
            || self.segs_sent == 0
        {
            return;
        }
        let rto = self.current_rto();
        let mut idle = now.saturating_sub(self.last_send);
        if idle <= rto {
            return;
        }
        let iw = self.cfg.init_cwnd_segments as u64 * self.st.smss;
        let rw = iw.min(self.st.cwnd);
        match self.cfg.idle_restart {
            IdleRestart::Off => {}
            // RFC 5681 §4.1: cwnd = RW = min(IW, cwnd).
            IdleRestart::Rfc5681 => self.st.cwnd = rw,
            IdleRestart::Linux => {
                // tcp_cwnd_restart: ssthresh = tcp_current_ssthresh (at
                // least 3/4 of cwnd), then one halving per RTO idle.
                let cwnd = self.st.cwnd;
                self.st.ssthresh = self.st.ssthresh.max((cwnd >> 1) + (cwnd >> 2));
                let mut c = cwnd;
                while idle > rto && c > rw {
                    idle = idle.saturating_sub(rto);
                    c >>= 1;
                }
                self.st.cwnd = c.max(rw);
            }
        }
        self.st.ca_acked = 0;
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
