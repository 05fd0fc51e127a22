//! The sending side of a [`TcpFlow`]: the window, sizing and sending new
//! segments, (re)transmission, and the ACK path (`on_ack`: RTT, window
//! growth, ECN response) that releases them. Loss recovery is in
//! [`super::recovery`], timers in [`super::rto`].

use super::*;

impl TcpFlow {
    /// A modern transport's (NDP's, HPCC's, Swift's) data packet `[start, start +
    /// len)`, counted as sent (and as a retransmission if `retx`).
    pub(in crate::tcp) fn modern_data(
        &mut self,
        io: &TcpIo,
        start: u64,
        len: u32,
        retx: bool,
        mut f: u8,
    ) -> Packet {
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += len as u64;
        if retx {
            self.stats.retransmits += 1;
            self.stats.retx_bytes += len as u64;
            f |= flags::RETX;
        }
        self.segs_sent += 1;
        self.last_send = io.now();
        Packet {
            kind: PktKind::Data,
            flags: f,
            nsack: 0,
            label: self.label,
            flow: self.id,
            txn: self.segs_sent as u32,
            src: self.src_host,
            dst: self.dst_host,
            payload: len,
            wire: len + self.cfg.header_bytes + io.l2_overhead(),
            seq: start,
            ts: io.now(),
            sack: [(0, 0); 3],
        }
    }

    #[inline]
    pub(in crate::tcp) fn window(&self) -> u64 {
        self.cc.send_window(&self.st).min(self.cfg.rwnd_bytes)
    }

    /// What the segment policy sees when sizing the next new segment.
    #[inline]
    pub(in crate::tcp) fn seg_view(&self, available: u64) -> SegView {
        let h = self.cc.hints(&self.st);
        SegView {
            cwnd: self.st.cwnd,
            ssthresh: self.st.ssthresh,
            smss: self.st.smss,
            available,
            segs_sent: self.segs_sent,
            vwnd: h.vwnd,
            w_max: h.w_max,
            epoch_start_cwnd: h.epoch_start_cwnd,
        }
    }

    /// The payload of the next new segment with `available` bytes waiting:
    /// [`SegPolicy::next_payload`] on [`Self::seg_view`], the view built
    /// only for a policy that reads it.
    #[inline]
    pub(in crate::tcp) fn next_len(&mut self, available: u64) -> u32 {
        if let Some(len) = self
            .seg_policy
            .payload_without_view(self.st.smss, available)
        {
            return len;
        }
        let view = self.seg_view(available);
        self.seg_policy.next_payload(&view, &mut self.rng)
    }

    /// Record and transmit a new segment of `len` bytes at snd_max.
    pub(in crate::tcp) fn send_new(&mut self, io: &mut TcpIo, len: u32) {
        if self.snd_una == self.snd_max && self.segs_sent > 0 {
            // Leaving idle: let the CC discount the idle time (CUBIC).
            let now = io.now();
            let idle = now.saturating_sub(self.last_send);
            self.cc.on_tx_start(now, idle);
            self.plb_tx_start(now);
        }
        if let Cc::Bbr(_) = self.cc {
            self.bbr_on_new(io.now(), len);
        }
        let start = self.snd_max;
        self.segs.push_back(Seg {
            start,
            len,
            sacked: false,
            rexmit: false,
            rexmit_hi: 0,
            xmit: io.now(),
            retx_ever: false,
            lost: false,
        });
        self.snd_max += len as u64;
        self.snd_nxt = self.snd_max;
        self.segs_sent += 1;
        self.seg_policy.consumed();
        if !self.cfg.timestamps && self.rtt_timing.is_none() {
            self.rtt_timing = Some((self.snd_max, io.now()));
        }
        self.transmit(io, start, len, false);
    }

    /// Send whatever the window allows.
    pub fn try_send(&mut self, io: &mut TcpIo) {
        // Linux validates cwnd after a pass that had new data to send
        // (tcp_write_xmit runs only with a send head).
        let pending = self.app_limit > self.snd_max;
        let snd_max = self.snd_max;
        let in_flight = if self.cong == CongState::Recovery && self.rec.uses_sack() {
            self.sack_send(io)
        } else {
            self.send_in_order(io)
        };
        if pending {
            self.cwnd_validate(in_flight, self.snd_max > snd_max);
        }
    }

    /// Outside SACK recovery: go-back-N resends after a timeout, then new
    /// data, while the window allows. Returns the flight it leaves.
    fn send_in_order(&mut self, io: &mut TcpIo) -> u64 {
        if self.snd_nxt < self.snd_max {
            if let Some(inflight) = self.go_back_n(io) {
                return inflight;
            }
        }
        // Two copies of the loop: a check of the pacing clock in the loop
        // of every flow cost the others 0.3 % of their instructions.
        if let Cc::Bbr(_) = self.cc {
            self.send_new_data::<true>(io)
        } else {
            self.send_new_data::<false>(io)
        }
    }

    /// New data while the window allows (and, `PACED`, the pacing clock).
    #[inline(always)]
    fn send_new_data<const PACED: bool>(&mut self, io: &mut TcpIo) -> u64 {
        loop {
            let wnd = self.window();
            let inflight = self.in_order_flight(wnd);
            let available = self.app_limit - self.snd_max;
            if available == 0 || (PACED && self.bbr_pace_hold(io)) {
                return inflight;
            }
            let len = self.next_len(available);
            // A segment goes out only when it fits (no SWS), but an empty
            // pipe always sends one so a window below one segment cannot stall.
            if inflight > 0 && self.window_full(inflight, len, wnd) {
                return inflight;
            }
            self.send_new(io, len);
        }
    }

    /// Go-back-N after a timeout: resend the recorded segments from
    /// snd_nxt in order while the window allows. Returns the flight when
    /// the window fills, `None` once snd_nxt reaches snd_max. The
    /// scoreboard's segments are contiguous and none is added or removed
    /// here, so after segment `i` the resend goes on at `i + 1` (checked)
    /// without a search per segment.
    #[inline(never)]
    fn go_back_n(&mut self, io: &mut TcpIo) -> Option<u64> {
        let mut next = usize::MAX;
        while self.snd_nxt < self.snd_max {
            let wnd = self.window();
            let inflight = self.in_order_flight(wnd);
            if self.paced_out(io) {
                return Some(inflight);
            }
            let i = match self.segs.get(next) {
                Some(s) if s.start == self.snd_nxt => next,
                _ => self.seg_index(self.snd_nxt).expect("segment at snd_nxt"),
            };
            next = i + 1;
            let s = self.segs[i];
            if s.sacked {
                // SACKed before the timeout: the receiver holds it.
                self.snd_nxt = s.end();
                continue;
            }
            if inflight > 0 && self.window_full(inflight, s.len, wnd) {
                return Some(inflight);
            }
            self.snd_nxt = s.end();
            self.retransmit(io, i);
        }
        None
    }

    /// Whether a segment of `len` bytes may not join `inflight` bytes
    /// under the window `wnd`. Under `cwnd_counting = "packets"` cwnd
    /// admits ⌊cwnd / SMSS⌋ segments of any size (Linux's tcp_cwnd_test),
    /// so a sub-MSS tail cannot slip in beside a full segment on a
    /// fractional cwnd; the receiver's window stays in bytes. The byte
    /// test, asked once or twice per send, is made inline.
    #[inline(always)]
    fn window_full(&self, inflight: u64, len: u32, wnd: u64) -> bool {
        match self.cfg.cwnd_counting {
            crate::config::CwndCounting::Bytes => inflight + len as u64 > wnd,
            crate::config::CwndCounting::Packets => self.window_full_in_packets(len),
        }
    }

    #[inline(never)]
    fn window_full_in_packets(&self, len: u32) -> bool {
        // FaST's window is Wmin (or its probes') segments of its own size,
        // under one MSS: counted in MSS it was one segment, not Wmin
        let unit = match &self.seg_policy {
            crate::tcp::seg::SegPolicy::Fast(f) => f.size(&self.seg_view(0)),
            _ => self.st.smss,
        };
        let cwnd_segs = (self.cc.send_window(&self.st) / unit.max(1)).max(1);
        self.in_order_flight_segs() >= cwnd_segs
            || self.snd_nxt + len as u64 > self.snd_una + self.cfg.rwnd_bytes
    }

    /// Segments in flight for the send test: those sent below snd_nxt,
    /// less the SACKed ones after a timeout (as `in_order_flight`).
    fn in_order_flight_segs(&self) -> u64 {
        let nxt = self.snd_nxt;
        let sent = self.segs.partition_point(|s| s.start < nxt);
        let sacked = if self.cong == CongState::Loss && self.sh.sb.sacked_segs > 0 {
            self.segs.iter().take(sent).filter(|s| s.sacked).count()
        } else {
            0
        };
        (sent - sacked) as u64
    }

    /// RFC 6675 §5 step (3): Limited Transmit with SACK sends new data while
    /// cwnd − pipe ≥ 1 SMSS (3.3), pipe counting what SACKs and IsLost()
    /// take out of the network, and the receiver's window allows.
    pub(in crate::tcp) fn sack_limited_transmit(&mut self, io: &mut TcpIo) {
        if self.snd_nxt < self.snd_max {
            return;
        }
        let mut pipe = self.board().pipe;
        loop {
            let available = self.app_limit - self.snd_max;
            if available == 0 || self.paced_out(io) {
                return;
            }
            let len = self.next_len(available) as u64;
            let beyond_rwnd = self.snd_max + len > self.snd_una + self.cfg.rwnd_bytes;
            if pipe + len > self.window() || beyond_rwnd {
                return;
            }
            self.send_new(io, len as u32);
            self.sh.sb.lt_bytes += len;
            pipe += len;
        }
    }

    /// RFC 3042 Limited Transmit, on the first and second duplicate ACK:
    /// one new segment if the flight stays within cwnd + 2·SMSS and the
    /// receiver's window; cwnd itself does not change.
    pub(in crate::tcp) fn limited_transmit(&mut self, io: &mut TcpIo) {
        let available = self.app_limit - self.snd_max;
        if available == 0 || self.snd_nxt < self.snd_max || self.paced_out(io) {
            return;
        }
        let len = self.next_len(available) as u64;
        let after = self.snd_max - self.snd_una + len;
        if after <= self.st.cwnd + 2 * self.st.smss && after <= self.cfg.rwnd_bytes {
            self.send_new(io, len as u32);
            self.sh.sb.lt_bytes += len;
        }
    }

    pub(in crate::tcp) fn transmit(&mut self, io: &mut TcpIo, start: u64, len: u32, retx: bool) {
        self.transmit_flags(io, start, len, retx, 0);
    }

    /// Retransmit scoreboard segment `i` whole, for a caller that holds
    /// its index: [`Self::transmit`] of its range without the search for
    /// the segment it lies in.
    pub(in crate::tcp) fn retransmit(&mut self, io: &mut TcpIo, i: usize) {
        self.note_resent(i, io.now());
        let s = self.segs[i];
        self.send_data(io, s.start, s.len, true, 0);
    }

    /// Segment `i` is sent again at `now`.
    #[inline(always)]
    fn note_resent(&mut self, i: usize, now: SimTime) {
        if let Cc::Bbr(_) = self.cc {
            self.bbr_resent(i, now);
        }
        let s = &mut self.segs[i];
        s.xmit = now;
        s.retx_ever = true;
        s.lost = false;
    }

    /// Transmit with extra header flags (`flags::MARKED` for the
    /// probabilistic-retransmission thread).
    pub(in crate::tcp) fn transmit_flags(
        &mut self,
        io: &mut TcpIo,
        start: u64,
        len: u32,
        retx: bool,
        extra: u8,
    ) {
        if retx {
            if let Some(i) = self.seg_index(start) {
                self.note_resent(i, io.now());
            }
        }
        self.send_data(io, start, len, retx, extra);
    }

    /// [`Self::transmit_flags`] once a retransmitted segment is marked.
    #[inline]
    fn send_data(&mut self, io: &mut TcpIo, start: u64, len: u32, retx: bool, extra: u8) {
        let now = io.now();
        let mut f = extra;
        if self.cfg.ecn {
            // RFC 3168 §6.1.5: a retransmission is not ECN-capable, unless
            // the congestion control needs ECN (Linux keeps ECT for it:
            // tcp_ca_needs_ecn; a RED port would drop it at K otherwise)
            if !retx || self.cfg.cc.needs_ecn() {
                f |= flags::ECT;
            }
            if self.send_cwr && !retx {
                f |= flags::CWR;
                self.send_cwr = false;
            }
        }
        if retx {
            f |= flags::RETX;
            self.stats.retransmits += 1;
            self.stats.retx_bytes += len as u64;
            if self.rtt_timing.is_some_and(|(end, _)| start < end) {
                self.rtt_timing = None; // Karn: its ACK would be ambiguous
            }
        }
        if extra & flags::MARKED == 0 {
            // A marked copy does not restart the timer: the flow still
            // waits on it, so the timeout period runs on.
            self.last_activity = now;
        }
        self.last_send = now;
        if self.cong == CongState::Recovery {
            self.rec.sent_in_recovery(len as u64);
        }
        let pkt = Packet {
            kind: PktKind::Data,
            flags: f,
            nsack: 0,
            label: self.label,
            flow: self.id,
            txn: self.stats.segments_sent as u32,
            src: self.src_host,
            dst: self.dst_host,
            payload: len,
            wire: len + self.cfg.header_bytes + io.l2_overhead(),
            seq: start,
            ts: now,
            sack: [(0, 0); 3],
        };
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += len as u64;
        io.send(pkt);
        // RFC 6298 (5.1): start the timer if it is not running.
        if !self.rto.is_armed() {
            self.arm_rto(io);
        }
    }

    /// An ACK arrives: update the scoreboard, let the recovery machine
    /// judge it, carry out what it asks, grow the window, send.
    pub fn on_ack(&mut self, io: &mut TcpIo, p: &Packet) {
        if self.cfg.transport == crate::config::Transport::Swift {
            return self.swift_on_ack(io, p);
        }
        let now = io.now();
        let ack = p.seq;
        let prior_una = self.snd_una;
        // Beyond what was sent, or below snd_una (an old, reordered ACK: its
        // ECE and SACK blocks are stale and must not cut the window again).
        if ack > self.snd_max || ack < self.snd_una {
            if ack < self.snd_una && self.cfg.sack_on_old_ack && self.cfg.sack && p.nsack > 0 {
                self.old_ack_sacks(io, p);
            }
            return;
        }
        let ece = p.flags & flags::ECE != 0;
        let mut dupack = false;
        if let Some(m) = self.rec.sack_mut() {
            m.prr.ack_out = 0;
        }
        // RFC 6937 DeliveredData: the change in snd_una plus the change in
        // SACKed bytes (newly SACKed, less the SACKed bytes now acked).
        let mut delivered = ack - self.snd_una;
        // Linux's prior_fack: cumulatively ACKed data is reordered only
        // below the highest SACK before this ACK.
        let prior_fack = self.sh.seen.fack;
        if self.cfg.sack && p.nsack > 0 {
            let blocks = p.sack;
            delivered += self.mark_sacked(&blocks[..p.nsack as usize], now);
            if let Cc::Bbr(_) = self.cc {
                self.bbr_sacked(&blocks[..p.nsack as usize], now);
            }
        }
        if ack > self.snd_una {
            delivered = self.ack_new_data(io, p, delivered, prior_fack);
        } else if ack == self.snd_una && self.snd_una < self.snd_max && p.payload == 0 {
            if let Cc::Bbr(_) = self.cc {
                self.bbr_reno_dupack();
            }
            self.on_dupack(io);
            dupack = true;
            if !self.rec.is_rack() {
                self.grow_on_sack(now, delivered);
            }
        } else if ece {
            let info = self.info_without_progress(now, ece);
            self.ecn_response(&info);
        }
        if self.rec.is_rack() {
            if self.cong != CongState::Loss {
                self.rack_after_ack(io, dupack, delivered);
            } else if self.cfg.rack_in_loss && ack <= prior_una {
                // (an ACK of new data ran it before growing cwnd)
                self.rack_loss_detect(io);
            }
        }
        if let Cc::Bbr(_) = self.cc {
            self.bbr_cong_control(now);
        } else {
            self.prr_ack(delivered, ack > prior_una);
        }
        self.try_send(io);
        self.prx_update(io);
        if ack > prior_una {
            self.tlp_arm(io);
        }
    }

    /// The part of [`Self::on_ack`] for an ACK that advances snd_una:
    /// RTT, release the acknowledged segments, Eifel's check, congestion
    /// control and the recovery machine, the timer. `delivered` is what
    /// the ACK delivered so far; returns it less the SACKed bytes it
    /// cumulatively acknowledged.
    fn ack_new_data(&mut self, io: &mut TcpIo, p: &Packet, delivered: u64, prior_fack: u64) -> u64 {
        let now = io.now();
        let ack = p.seq;
        let acked = ack - self.snd_una;
        let flight = self.snd_max - self.snd_una;
        // RFC 7323: RTT from the echoed timestamp of an ACK that advances
        // snd_una; without timestamps Karn's algorithm, which also keeps
        // the backed-off RTO until a valid sample (RFC 6298 (5.7)).
        let rtt = self.ack_rtt_sample(ack, p.ts, now);
        if let Some(r) = rtt {
            self.rtt_sample(r);
            self.backoff = 1;
        }
        self.snd_una = ack;
        self.note_block_progress(ack);
        let outstanding = self.segs.len();
        if let Cc::Bbr(_) = self.cc {
            // before the entries go: each carries its sending record
            self.bbr_cum_acked(ack, now, acked);
        }
        let (delivered, send_rtt) = self.release_acked(ack, now, delivered, prior_fack);
        let acked_segs = (outstanding - self.segs.len()) as u32;
        let acts = self
            .rec
            .on_cumulative_ack(&recovery::view!(self), acked_segs);
        self.apply(io, acts);
        // Only RACK sends tail loss probes.
        if let Some(r) = self.rec.rack_mut() {
            if r.tlp_end.is_some_and(|e| ack >= e) {
                r.tlp_end = None;
            }
        }
        if let Some(u) = self.undo {
            if ack > u.seq {
                self.undo = None;
                // Eifel needs the timestamp option on the wire.
                if self.cfg.timestamps && p.ts < u.retx_ts {
                    self.on_spurious_retransmit(u);
                }
            }
        }
        if self.snd_nxt < ack {
            self.snd_nxt = ack;
        }
        self.last_activity = now;
        let info = AckInfo {
            now,
            acked,
            ece: p.flags & flags::ECE != 0,
            rtt,
            srtt: self.srtt,
            snd_una: ack,
            snd_max: self.snd_max,
            flight,
            segs_sent: self.segs_sent,
            abc_limit: self.cfg.abc_limit as u64,
            cwnd_limited: true,
        };
        // Every ACK, in every state: per-window accounting (DCTCP's α);
        // once a round, PLB's look at it
        if let Some(marked) = self.cc.on_ack_ecn(&self.st, &info) {
            if self.cfg.plb.enabled {
                self.plb_round(marked, now);
            }
        }
        // The ECN response comes first; the ACK that triggers a cut
        // does not also grow the window (RFC 3168 §6.1.2).
        let cut = self.ecn_response(&info);
        match self.cong {
            CongState::Recovery => {
                let acts = self.rec.on_ack(&recovery::view!(self), acked);
                self.apply(io, acts);
            }
            CongState::Loss => {
                self.ep.dupacks = 0;
                // `reno_hold`: Linux leaves Loss only past high_seq without SACK.
                if ack > self.ep.recover || (ack == self.ep.recover && !self.holds_at_recover()) {
                    self.cong = CongState::Open;
                }
                // Linux's loss detection (tcp_fastretrans_alert) runs
                // before its window growth (tcp_cong_control): a resend
                // found lost starts Recovery, whose PRR sets cwnd.
                let recovering = self.cong == CongState::Loss
                    && self.rec.is_rack()
                    && self.cfg.rack_in_loss
                    && self.rack_loss_detect(io);
                if !recovering {
                    self.grow_cwnd(info, delivered, send_rtt);
                }
            }
            CongState::Open => {
                let delivered = self
                    .rec
                    .delivered_on_open(delivered, acked, flight, &self.view());
                self.ep.dupacks = 0;
                // In a CWR by PRR the reduction owns cwnd (tcp_cong_control).
                if !cut && !self.cwr_on {
                    self.grow_cwnd(info, delivered, send_rtt);
                }
            }
        }
        if self.cong != CongState::Recovery {
            // DSR (or another policy) may grow the segment size; the
            // byte window stays as it is.
            self.seg_policy.resize(&mut self.st);
            // Out of fast recovery (or none began): the retransmit thread resumes.
            self.prx_suspended = false;
        }
        self.rto_after_ack(io);
        delivered
    }

    /// The timeout taxonomy's reference points as snd_una reaches `ack`:
    /// the message it is in, and that message's first flight.
    fn note_block_progress(&mut self, ack: u64) {
        while self.msg_starts.len() >= 2 && self.msg_starts[1] <= ack {
            self.msg_starts.pop_front();
        }
        let bs = self.block_start();
        if ack > bs && self.first_flight.is_none_or(|(b, _)| b != bs) {
            // The first ACK into this message: its first flight ends at snd_max.
            self.first_flight = Some((bs, self.snd_max));
        }
    }

    /// Drop the segments below `ack` from the scoreboard, feeding RACK's
    /// delivery record. Returns `delivered` less the SACKed bytes now
    /// cumulatively acknowledged, and HyStart's delay sample: the newest
    /// segment this ACK covers that was sent once, timed from its send
    /// time whatever the timestamp option (tcp_cubic's per-ACK delay;
    /// without timestamps Karn's timing samples once per RTT).
    fn release_acked(
        &mut self,
        ack: u64,
        now: SimTime,
        mut delivered: u64,
        prior_fack: u64,
    ) -> (u64, Option<SimTime>) {
        let track = self.sh.track;
        let mut reord: Option<u64> = None;
        let mut send_rtt = None;
        self.sh.sb.lt_bytes = 0;
        while let Some(s) = self.segs.front() {
            if s.end() <= ack {
                if s.sacked {
                    self.sh.sb.sacked_segs -= 1;
                    self.sh.sb.sacked_bytes -= s.len as u64;
                    delivered -= s.len as u64;
                }
                if !s.sacked && !s.retx_ever {
                    send_rtt = Some(now.saturating_sub(s.xmit));
                }
                if track && !s.sacked {
                    reord = reord.or(self.sh.seen.on_seg(s, now, prior_fack));
                }
                self.segs.pop_front();
            } else {
                if s.start < ack {
                    let s = self.segs.front_mut().unwrap();
                    if s.sacked {
                        self.sh.sb.sacked_bytes -= ack - s.start;
                        delivered -= ack - s.start;
                    }
                    s.len -= (ack - s.start) as u32;
                    s.start = ack;
                }
                break;
            }
        }
        self.on_reordered(reord);
        (delivered, send_rtt)
    }

    /// RFC 6298 (5.2)/(5.3) after an ACK of new data.
    fn rto_after_ack(&mut self, io: &mut TcpIo) {
        if self.snd_una >= self.snd_max {
            self.rto.cancel();
            // Everything is acknowledged: give back a large scoreboard.
            // A finished flow would otherwise hold its peak window's
            // worth of entries to the end of the run, and memory would
            // grow with every flow ever started instead of with the
            // flows active at once (the soak benchmark's churn).
            if self.segs.capacity() > IDLE_CAPACITY {
                self.segs.shrink_to(IDLE_CAPACITY);
            }
        } else if self.cong != CongState::Recovery || !self.ep.partial_seen {
            self.arm_rto(io);
        }
    }

    /// An ACK below snd_una with SACK blocks (`sack_on_old_ack`, Linux's
    /// tcp_ack old_ack path): its blocks that lie wholly above snd_una
    /// (`snd_una < start < end <= snd_max`, tcp_is_sackblock_valid: one
    /// starting at snd_una or straddling it is dropped whole) are tagged,
    /// RACK looks for losses, and what the fewer segments in flight allow
    /// is sent, lost segments first. Its ECE and cumulative ACK are stale,
    /// and no window changes: no tcp_cong_control, so no PRR step, and
    /// what it SACKs is not counted as delivered.
    #[cold]
    #[inline(never)]
    fn old_ack_sacks(&mut self, io: &mut TcpIo, p: &Packet) {
        let (una, max) = (self.snd_una, self.snd_max);
        let mut valid = [(0u64, 0u64); 4];
        let mut k = 0;
        for &(l, r) in &p.sack[..p.nsack as usize] {
            if una < l && l < r && r <= max {
                valid[k] = (l, r);
                k += 1;
            }
        }
        if k == 0 || self.mark_sacked(&valid[..k], io.now()) == 0 {
            return;
        }
        if self.rec.is_rack() && self.cong != CongState::Loss {
            self.rack_detect(io);
        }
        self.try_send(io);
    }

    /// RACK-TLP after any ACK outside Loss: time-based detection, then on
    /// a duplicate ACK window growth and Limited Transmit.
    fn rack_after_ack(&mut self, io: &mut TcpIo, dupack: bool, delivered: u64) {
        self.rack_detect(io);
        if dupack {
            // Linux grows cwnd (tcp_cong_control) after its loss
            // detection (tcp_fastretrans_alert) and before it sends.
            self.grow_on_sack(io.now(), delivered);
            // Limited Transmit only now, after any retransmission this
            // ACK caused: RFC 8985's RACK_sent_after breaks a tie of
            // send times by sequence, which holds only if within one
            // instant retransmissions leave before new data (as Linux
            // sends them). New data first made the retransmission look
            // older than the new segment, and once that was SACKed RACK
            // declared the retransmission (still queued behind it) lost:
            // a spurious second retransmission, counted as reordering.
            self.dupack_limited_transmit(io);
        }
    }

    /// Window growth on an ACK of new data outside recovery: HyStart sees
    /// every ACK, the cc grows cwnd only while it is used (Linux's
    /// bictcp_acked before tcp_cong_avoid's tcp_is_cwnd_limited test).
    /// `delivered` is what the ACK newly delivered (RFC 6937's
    /// DeliveredData), counted instead of `info.acked` under
    /// `ack_counting = "delivered"`.
    /// `send_rtt` is HyStart's delay sample when the ACK has no RTT sample.
    #[inline]
    fn grow_cwnd(&mut self, info: AckInfo, delivered: u64, send_rtt: Option<SimTime>) {
        let acked = match self.cfg.ack_counting {
            crate::config::AckCounting::Acked => info.acked,
            crate::config::AckCounting::Delivered => delivered,
        };
        let info = self.slow_start_exit(AckInfo { acked, ..info }, send_rtt);
        let cwnd_limited = self.may_grow_cwnd();
        self.cc.on_ack(
            &mut self.st,
            &AckInfo {
                cwnd_limited,
                ..info
            },
        );
    }

    /// Window growth on an ACK that SACKs new data without advancing
    /// snd_una, under `ack_counting = "delivered"`: Linux grows cwnd
    /// whenever data is delivered, in order or not, once reordering has
    /// raised its degree above the sysctl (tcp_may_raise_cwnd:
    /// FLAG_FORWARD_PROGRESS when `tp->reordering > tcp_reordering`,
    /// otherwise FLAG_DATA_ACKED only), outside a window reduction.
    fn grow_on_sack(&mut self, now: SimTime, delivered: u64) {
        if self.cfg.ack_counting != crate::config::AckCounting::Delivered
            || delivered == 0
            || self.dupthresh <= self.cfg.dupack_threshold
            || self.cong != CongState::Open
            || self.ecn_in_cwr
        {
            return;
        }
        let info = self.info_without_progress(now, false);
        self.grow_cwnd(info, delivered, None);
    }

    /// What congestion control sees of an ACK that advanced nothing (a
    /// duplicate carrying SACK blocks or ECE): no bytes acked, no RTT sample.
    fn info_without_progress(&self, now: SimTime, ece: bool) -> AckInfo {
        AckInfo {
            now,
            acked: 0,
            ece,
            rtt: None,
            srtt: self.srtt,
            snd_una: self.snd_una,
            snd_max: self.snd_max,
            flight: self.snd_max - self.snd_una,
            segs_sent: self.segs_sent,
            abc_limit: self.cfg.abc_limit as u64,
            cwnd_limited: true,
        }
    }

    /// HyStart in slow start (before the cc grows the window): it may set
    /// ssthresh = cwnd, and HyStart++'s CSS counts fewer bytes.
    #[inline]
    fn slow_start_exit(&mut self, info: AckInfo, send_rtt: Option<SimTime>) -> AckInfo {
        if self.st.cwnd >= self.st.ssthresh || self.cfg.hystart == crate::config::HyStart::Off {
            return info;
        }
        let sampled = AckInfo {
            rtt: info.rtt.or(send_rtt),
            ..info
        };
        let acked = self.ss_exit.on_ack(&mut self.st, &sampled);
        AckInfo { acked, ..info }
    }

    /// RFC 3168 §6.1.2: reduce once per window on ECE; tell the receiver
    /// with CWR. The CC chooses the new window (half the flight for Reno,
    /// flight·β for CUBIC, cwnd·(1 − α/2) for DCTCP and FaST); it never
    /// grows on a congestion signal. Returns whether the window was cut.
    pub(in crate::tcp) fn ecn_response(&mut self, a: &AckInfo) -> bool {
        if !self.cfg.ecn {
            return false;
        }
        // Leave CWR on an ACK at or beyond the recovery point (SPEC §2
        // pitfall: not only beyond it).
        if self.ecn_in_cwr && a.snd_una >= self.ecn_recover {
            if !self.cwr_on {
                self.ecn_in_cwr = false;
            } else if a.snd_una > self.ecn_recover {
                self.cwr_end();
            }
        }
        // An ECE on an ACK up to the recovery point echoes data sent before
        // the cut, the window already answered: answered, one window cut
        // twice (Linux holds CWR until something *above* high_seq is
        // ACKed, ns-2 until seqno > recover_). For DCTCP too, whose echo
        // is per segment (RFC 8257 §3.3: the cut once per window of data;
        // a reviewer's pcap: 17 of 32 cuts of one flow were such second
        // cuts). With classic ECN the receiver also latches ECE until it
        // sees CWR, so while our CWR has not gone out (no new data since
        // the cut) every echo is the old one. A loss's reduction counts as
        // the cut does (`ecn_recover` > 0 once either has been made;
        // [`Self::ecn_loss_reduced`]).
        let stale_echo = (self.ecn_recover > 0 && a.snd_una <= self.ecn_recover)
            || (self.send_cwr && !self.cfg.cc.needs_ecn());
        if a.ece && !self.ecn_in_cwr && !stale_echo && self.cong == CongState::Open {
            let base = self.reduction_base(a.flight);
            self.st.ssthresh = self.cc.ssthresh(&self.st, base, LossKind::Ecn, a.now);
            if self.cfg.ecn_reduction == EcnReduction::Cut {
                self.st.cwnd = self.st.cwnd.min(self.st.ssthresh);
            } else {
                self.cwr_start();
            }
            self.st.ca_acked = 0;
            self.ss_exit.on_loss(false);
            self.ecn_in_cwr = true;
            self.ecn_recover = self.snd_max;
            self.send_cwr = true;
            self.stats.ecn_cuts += 1;
            return true;
        }
        false
    }

    /// RFC 3168 §6.1.2: a window reduced for a loss (a fast retransmit or
    /// a timeout) tells the receiver too: CWR goes out on the first new
    /// segment, as after an echo's cut ("for any reason"; Linux's
    /// tcp_enter_recovery and tcp_enter_loss queue it), so a classic
    /// receiver stops echoing. Under classic ECN an echo of data sent
    /// before the reduction is that window's, already answered: without
    /// this, a CE mark and a drop in one window cut it twice, the loss
    /// first and then, past the recovery point, the echo the receiver
    /// had latched (the RFC audit: NewReno's ssthresh 3000 where 6000).
    /// DCTCP and FaST echo per segment and answer an echo after a loss
    /// as before (RFC 8257 §3.5); only their CWR bit is new.
    pub(in crate::tcp) fn ecn_loss_reduced(&mut self) {
        if self.cfg.ecn {
            self.send_cwr = true;
            if !self.cfg.cc.needs_ecn() {
                self.ecn_recover = self.snd_max;
            }
        }
    }

    /// `ecn_reduction = "prr"`: the echo starts Linux's CWR
    /// (tcp_init_cwnd_reduction); this ACK's share follows in prr_ack.
    #[inline(never)]
    fn cwr_start(&mut self) {
        self.cwr_on = true;
        self.cwr = CwrPrr {
            prior_cwnd: self.st.cwnd,
            delivered: 0,
        };
    }

    /// Linux's CWR by PRR holds until something *above* the point of the
    /// echo is ACKed, so that the CWR bit has reached the receiver
    /// (tcp_fastretrans_alert), and ends at ssthresh
    /// (tcp_end_cwnd_reduction).
    #[inline(never)]
    fn cwr_end(&mut self) {
        // (a CWR begins only in Open, and recovery or a timeout ends it)
        debug_assert_eq!(self.cong, CongState::Open);
        self.ecn_in_cwr = false;
        self.cwr_on = false;
        self.st.cwnd = self.st.ssthresh;
    }
}
