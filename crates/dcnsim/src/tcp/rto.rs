//! Timers of a [`TcpFlow`]: RTT estimation and the retransmission timeout
//! (RFC 6298 with RTOmin, granularity and capped backoff), the timeout
//! taxonomy (ABTT/IBTT), and Kulkarni's probabilistic retransmission.

use super::*;
use crate::config::{RtoSsthresh, RtoTimer};

impl TcpFlow {
    /// The RTT sample an ACK advancing snd_una to `ack` gives: with
    /// timestamps, from the echo (valid for retransmissions too, RFC 7323);
    /// without, only when it covers the timed segment (Karn: a
    /// retransmission below its end has cancelled the timing).
    pub(in crate::tcp) fn ack_rtt_sample(
        &mut self,
        ack: u64,
        echoed: SimTime,
        now: SimTime,
    ) -> Option<SimTime> {
        if self.cfg.timestamps {
            return Some(now.saturating_sub(echoed));
        }
        match self.rtt_timing {
            Some((end, sent)) if ack >= end => {
                self.rtt_timing = None;
                Some(now.saturating_sub(sent))
            }
            _ => None,
        }
    }

    pub(in crate::tcp) fn current_rto(&self) -> SimTime {
        let r = self.rto_base.saturating_mul(self.backoff as u64);
        r.min(self.cfg.rto_max.max(self.rto_base))
    }

    pub(in crate::tcp) fn arm_rto(&mut self, io: &mut TcpIo) {
        let at = if self.cfg.rto_timer == RtoTimer::Linux {
            // whole jiffies already (rtt_sample): armed mid-tick, the
            // timer fires at the tick its count reaches
            super::jiffies::timer_deadline(io.now(), self.current_rto(), 0, self.cfg.hz)
        } else {
            io.now() + self.current_rto()
        };
        self.rto.arm(io, at, TcpTimer::Rto);
    }

    /// RFC 6298 (2.2)/(2.3).
    pub(in crate::tcp) fn rtt_sample(&mut self, r: SimTime) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = SimTime(r.0 / 2);
            }
            Some(srtt) => {
                let diff = srtt.0.abs_diff(r.0);
                self.rttvar = SimTime((3 * self.rttvar.0 + diff) / 4);
                self.srtt = Some(SimTime((7 * srtt.0 + r.0) / 8));
            }
        }
        let srtt = self.srtt.unwrap();
        if self.cfg.rto_timer == RtoTimer::Linux {
            // __tcp_set_rto: usecs_to_jiffies(srtt + rttvar), the route's
            // RTOmin (rttvar's floor) held in whole jiffies
            let j = super::jiffies::jiffy(self.cfg.hz).ps();
            let up = |t: SimTime| SimTime::from_ps(t.ps().div_ceil(j) * j);
            let var = up(self.cfg.granularity).max(SimTime(4 * self.rttvar.0));
            self.rto_base = up(srtt + var)
                .max(up(self.cfg.rto_min))
                .min(self.cfg.rto_max);
            return;
        }
        let var = self.cfg.granularity.max(SimTime(4 * self.rttvar.0));
        // (2.4): RTOmin applies; (2.5): an upper bound applies.
        self.rto_base = (srtt + var).max(self.cfg.rto_min).min(self.cfg.rto_max);
    }

    /// A wake-up the owner was asked for ([`TcpOut::Wake`]) is due: `io`'s
    /// clock must read its time. Stale wake-ups (the timer was re-armed
    /// later or cancelled) are recognised and ignored or rescheduled.
    pub fn on_timer(&mut self, io: &mut TcpIo, timer: TcpTimer) {
        match timer {
            TcpTimer::Rto if self.ndp.is_some() => self.ndp_on_rto(io),
            TcpTimer::Rto if self.swift.is_some() => self.swift_on_rto(io),
            TcpTimer::DelAck if self.swift.is_some() => self.swift_on_pace(io),
            TcpTimer::Rto if self.hpcc.is_some() => self.hpcc_on_rto(io),
            TcpTimer::ProbRetx if self.hpcc.is_some() => self.hpcc_on_pace(io),
            TcpTimer::Rto if self.dcqcn.is_some() => self.dcqcn_on_rto(io),
            TcpTimer::ProbRetx if self.dcqcn.is_some() => self.dcqcn_on_pace(io),
            TcpTimer::DelAck if self.dcqcn.is_some() => self.dcqcn_on_timer(io),
            TcpTimer::Rack if self.dcqcn.is_some() => self.dcqcn_on_cnp_timer(io),
            TcpTimer::ProbRetx if matches!(self.cc, super::cc::Cc::Bbr(_)) => self.bbr_on_pace(io),
            TcpTimer::Rto => self.on_rto_event(io),
            TcpTimer::DelAck => self.on_delack_event(io),
            TcpTimer::ProbRetx => self.on_prx_event(io),
            TcpTimer::Rack => self.on_rack_event(io),
        }
    }

    /// The retransmission timer's event.
    pub(in crate::tcp) fn on_rto_event(&mut self, io: &mut TcpIo) {
        match self.rto.fire(io, TcpTimer::Rto) {
            Fire::Expired => self.on_timeout(io),
            Fire::Ignore | Fire::Rescheduled => {}
        }
    }

    pub(in crate::tcp) fn on_timeout(&mut self, io: &mut TcpIo) {
        if self.snd_una >= self.snd_max {
            return;
        }
        let now = io.now();
        // (a no-op for a flow without PLB or txrehash: no label state)
        self.plb_on_timeout(now);
        self.count_timeout(now, self.ep.dupacks);
        // The machine sees the state the timeout ends (Linux's
        // tcp_enter_loss reads it before entering Loss).
        let acts = self.rec.on_timeout(&recovery::view!(self));
        self.apply(io, acts);
        let flight = self.reduction_base(self.snd_max - self.snd_una);
        let again = self.cong == CongState::Loss && self.backoff > 1;
        if !again {
            self.st.ssthresh = self.cc.ssthresh(&self.st, flight, LossKind::Rto, now);
        } else if self.cfg.rto_ssthresh == RtoSsthresh::Recompute {
            // ns-2 and ns-3 set it again from what went out since the last
            // timeout (go-back-N from snd_una), where RFC 5681 §3.1 holds it
            let sent = self.reduction_base(self.snd_nxt - self.snd_una);
            self.st.ssthresh = self.cc.ssthresh(&self.st, sent, LossKind::Rto, now);
        }
        self.st.cwnd = self.st.smss; // loss window, RFC 5681 eq. (5)
        self.ecn_loss_reduced();
        self.ss_exit.on_loss(true);
        self.st.ca_acked = 0;
        self.cong = CongState::Loss;
        self.cwr_on = false;
        self.ep.recover = self.snd_max; // RFC 6582 §3.2 step 1 after a timeout
        self.ep.dupacks = 0;
        self.snd_nxt = self.snd_una;
        if let super::cc::Cc::Bbr(_) = self.cc {
            self.bbr_on_timeout();
        }
        // SACKed marks stay (our receivers never renege, RFC 2018 §8's
        // reason to clear them); the go-back-N resend skips those segments.
        for s in self.segs.iter_mut() {
            s.rexmit = false;
            s.lost = false;
        }
        self.undo = None;
        // RFC 6298 (5.5): back off, capped.
        self.backoff = (self.backoff * 2).min(self.cfg.max_backoff.max(1));
        self.arm_rto(io);
        // The timer has taken over loss recovery: the thread runs again.
        self.prx_suspended = false;
        if let super::cc::Cc::Bbr(_) = self.cc {
            self.bbr_resend_head(io);
        }
        self.try_send(io);
        self.prx_update(io);
    }

    /// Start of the application message (block) snd_una is in: the
    /// largest message start ≤ snd_una (0 for a flow without messages).
    pub(in crate::tcp) fn block_start(&self) -> u64 {
        let mut start = 0;
        for &s in &self.msg_starts {
            if s > self.snd_una {
                break;
            }
            start = s;
        }
        start
    }

    /// Timeout taxonomy (SPEC §2.3, Kulkarni 2012 §3.1): ABTT when no ACK
    /// has advanced snd_una into the current block (the window sent at the
    /// block's start was lost), IBTT otherwise; and whether any duplicate
    /// ACKs arrived since the last new ACK.
    /// A timeout of any transport, counted: `timeouts`, the loss log, the
    /// stall before it (`timeout_period`, from the last transmission or
    /// ACK progress) and its kinds ([`Self::classify_timeout`]), with
    /// `dupacks` the duplicate ACKs since the last progress (0 for the
    /// go-back-N transports and NDP, whose receivers NACK instead). Every
    /// transport's timer goes through here, so `abtt + ibtt = timeouts`
    /// and the stall hold for each (they counted the timeout alone).
    pub(in crate::tcp) fn count_timeout(&mut self, now: SimTime, dupacks: u32) {
        self.stats.timeouts += 1;
        self.stats.loss_log.push((now, true));
        self.stats.timeout_period += now.saturating_sub(self.last_activity);
        self.classify_timeout(dupacks);
    }

    pub(in crate::tcp) fn classify_timeout(&mut self, dupacks: u32) {
        let bs = self.block_start();
        let ibtt = self.snd_una != bs;
        if !ibtt {
            self.stats.abtt += 1;
            self.stats.rto_first_flight += 1;
        } else {
            self.stats.ibtt += 1;
            if matches!(self.first_flight, Some((b, end)) if b == bs && self.snd_una < end) {
                self.stats.rto_first_flight += 1;
            }
        }
        match dupacks {
            0 => {
                self.stats.rto_whole_window += 1;
                self.stats.ibtt_whole_window += ibtt as u64;
            }
            d if d < self.cfg.dupack_threshold => {
                self.stats.rto_few_dupacks += 1;
                self.stats.ibtt_few_dupacks += ibtt as u64;
            }
            _ => self.stats.rto_many_dupacks += 1,
        }
    }

    // ------------------------------------------------ probabilistic retransmission

    /// Keep the retransmit thread (Kulkarni 2012 Algorithm 1) running
    /// exactly while it is enabled, not suspended and data is outstanding.
    ///
    /// The thread tosses a coin of probability p once per period. The
    /// tosses are independent, so instead of an event per period the
    /// sender tosses ahead (from the flow's own random stream) and
    /// schedules only the run that succeeds — at most 2¹⁶ periods ahead;
    /// a batch without success ends in a run that only tosses again.
    /// Stopping and restarting the thread starts a fresh sequence of
    /// tosses, which by memorylessness is the same process.
    #[inline]
    pub(in crate::tcp) fn prx_update(&mut self, io: &mut TcpIo) {
        if self.cfg.probretx.p <= 0.0 {
            return;
        }
        let run = !self.prx_suspended && self.snd_una < self.snd_max;
        if run && !self.prx.is_armed() {
            self.prx_schedule(io);
        } else if !run && self.prx.is_armed() {
            self.prx.cancel();
        }
    }

    pub(in crate::tcp) fn prx_schedule(&mut self, io: &mut TcpIo) {
        const BATCH: u64 = 1 << 16;
        let ProbRetxParams { p, period, .. } = self.cfg.probretx;
        let mut k = 1;
        self.prx_hit = true;
        while !self.rng.gen_bool(p) {
            if k == BATCH {
                self.prx_hit = false;
                break;
            }
            k += 1;
        }
        let at = io.now() + period.saturating_mul(k);
        self.prx.arm(io, at, TcpTimer::ProbRetx);
    }

    /// The retransmit thread's run (Algorithm 1): retransmit the target
    /// segment with the mark set, then schedule the next successful run.
    pub(in crate::tcp) fn on_prx_event(&mut self, io: &mut TcpIo) {
        if self.prx.fire(io, TcpTimer::ProbRetx) != Fire::Expired {
            return;
        }
        if self.prx_hit && !self.prx_suspended && self.snd_una < self.snd_max {
            let seg = match self.cfg.probretx.target {
                ProbRetxTarget::Highest => self.segs.iter().rev().find(|s| !s.sacked),
                ProbRetxTarget::Lowest => self.segs.front(),
            };
            if let Some(&s) = seg {
                self.stats.probretx_sent += 1;
                self.transmit_flags(io, s.start, s.len, true, flags::MARKED);
            }
        }
        self.prx_update(io);
    }
}
