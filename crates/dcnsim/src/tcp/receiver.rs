//! The receiving side of a [`TcpFlow`]: in-order and out-of-order data,
//! delivery to the application, delayed ACKs and the ACKs (with SACK
//! blocks and ECN echo) sent back.

use super::*;

impl TcpFlow {
    /// A modern transport's receiver (NDP, Swift) takes a packet's payload:
    /// in order, out of order or a duplicate, with no ACK of TCP's.
    /// Returns the bytes in-order delivery advanced by.
    pub(in crate::tcp) fn take_payload(&mut self, io: &TcpIo, p: &Packet) -> u64 {
        let before = self.rx.rcv_nxt;
        let (start, end) = (p.seq, p.seq + p.payload as u64);
        if end <= self.rx.rcv_nxt {
            self.stats.dup_arrivals += 1;
        } else if start > self.rx.rcv_nxt {
            self.stats.ooo_arrivals += 1;
            self.insert_ooo(start, end);
        } else {
            self.rx.rcv_nxt = end;
            while let Some(&(l, r, _)) = self.rx.ooo.first() {
                if l > self.rx.rcv_nxt {
                    break;
                }
                self.rx.rcv_nxt = self.rx.rcv_nxt.max(r);
                self.rx.ooo.remove(0);
            }
            self.rx.last_delivery = io.now();
        }
        self.rx.rcv_nxt - before
    }

    /// A data segment arrives at the receiver. Returns how many bytes
    /// in-order delivery advanced by: what the receiving application is
    /// handed now (and, when > 0, it may have messages to collect).
    pub fn on_data(&mut self, io: &mut TcpIo, p: &Packet) -> u64 {
        if self.cfg.transport == crate::config::Transport::Swift {
            return self.swift_on_data(io, p);
        }
        let start = p.seq;
        let end = p.seq + p.payload as u64;
        let ce = p.flags & flags::CE != 0;
        if ce {
            self.stats.ecn_marks += 1;
        }
        let mut ack_now = false;
        if let EchoAction::StateChanged { prior_ece } =
            self.rx.echo.on_segment(ce, p.flags & flags::CWR != 0)
        {
            // RFC 8257 §3.2: a delayed ACK must not merge segments with
            // different CE; flush it with the prior state, ACK this one now.
            if self.rx.unacked_segs > 0 {
                let ts = self.rx.ts_recent;
                self.send_ack_ece(io, ts, prior_ece);
            }
            ack_now = true;
        }
        let marked = p.flags & flags::MARKED != 0;
        if self.cfg.txrehash {
            self.rx_note_label(p.label, end <= self.rx.rcv_nxt);
        }
        if end <= self.rx.rcv_nxt {
            // A duplicate: a marked one gets the normal ACK only (Algorithm 2).
            self.stats.dup_arrivals += 1;
            // RFC 7323 §4.3: the echo is TS.Recent, which a segment at or
            // below the last ACK sent replaces only with a TSval as new.
            // A late original behind its retransmission echoed its own
            // older stamp, and the sender's RTT sample (or Eifel's check)
            // read the gap between the two copies as path delay.
            if start <= self.rx.last_ack_sent && p.ts >= self.rx.ts_recent {
                self.rx.ts_recent = p.ts;
            }
            self.send_ack(io, self.rx.ts_recent);
            return 0;
        }
        if start > self.rx.rcv_nxt {
            self.stats.ooo_arrivals += 1;
            let marked_new = marked && !self.rx.ooo.iter().any(|&(l, r, _)| l <= start && end <= r);
            self.insert_ooo(start, end);
            self.send_ack(io, self.rx.ts_recent);
            if marked_new {
                self.probretx_extra_acks(io, self.rx.ts_recent);
            }
            return 0;
        }
        let had_hole = !self.rx.ooo.is_empty();
        let before = self.rx.rcv_nxt;
        self.rx.rcv_nxt = end;
        // RFC 7323 §4.3: TS.Recent only from a segment at or below the last
        // ACK sent, so a delayed ACK echoes its earliest segment's timestamp,
        // and only with a stamp at least as new (a late original behind a
        // retransmission of the segment before it keeps the newer echo).
        if start <= self.rx.last_ack_sent && p.ts >= self.rx.ts_recent {
            self.rx.ts_recent = p.ts;
        }
        let ts = self.rx.ts_recent;
        // Pull in any out-of-order ranges that are now contiguous.
        let mut i = 0;
        while i < self.rx.ooo.len() {
            let (l, r, _) = self.rx.ooo[i];
            if l <= self.rx.rcv_nxt {
                self.rx.rcv_nxt = self.rx.rcv_nxt.max(r);
                self.rx.ooo.remove(i);
            } else {
                i += 1;
            }
        }
        if self.rx.ooo.is_empty() && self.rx.ooo.capacity() > IDLE_CAPACITY {
            self.rx.ooo.shrink_to(IDLE_CAPACITY); // the holes are filled: as above
        }
        self.rx.last_delivery = io.now();
        if marked {
            // Algorithm 2: the normal ACK (at once), then three duplicates of it.
            self.send_ack(io, ts);
            self.probretx_extra_acks(io, ts);
        } else if had_hole || !self.cfg.delayed_ack || ack_now {
            self.send_ack(io, ts);
        } else if self.rx_rare.quickacks > 0 {
            // Linux's quick-ACK mode at connection start: ACKing every
            // segment keeps slow start's ACK clock, which a delayed-ACK
            // timer would stall while the window is still small.
            self.rx_rare.quickacks -= 1;
            self.send_ack(io, ts);
        } else {
            self.rx.unacked_segs += 1;
            if self.rx.unacked_segs >= self.cfg.delayed_ack_segments {
                self.send_ack(io, ts);
            } else if !self.rx_rare.dack.is_armed() {
                let at = io.now() + self.cfg.delayed_ack_timeout;
                self.rx_rare.dack.arm(io, at, TcpTimer::DelAck);
            }
        }
        self.rx.rcv_nxt - before
    }

    /// Kulkarni's Algorithm 2: after the ACK of a marked segment not seen
    /// before, three more ACKs — duplicates the sender counts towards fast
    /// retransmit.
    pub(in crate::tcp) fn probretx_extra_acks(&mut self, io: &mut TcpIo, ts: SimTime) {
        for _ in 0..3 {
            self.send_ack(io, ts);
        }
        self.stats.probretx_dupacks += 3;
    }

    pub(in crate::tcp) fn insert_ooo(&mut self, l: u64, r: u64) {
        self.rx_rare.ooo_stamp += 1;
        let stamp = self.rx_rare.ooo_stamp;
        let i = self.rx.ooo.partition_point(|&(_, rr, _)| rr < l);
        let mut nl = l;
        let mut nr = r;
        let mut j = i;
        while j < self.rx.ooo.len() && self.rx.ooo[j].0 <= nr {
            nl = nl.min(self.rx.ooo[j].0);
            nr = nr.max(self.rx.ooo[j].1);
            j += 1;
        }
        self.rx.ooo.splice(i..j, std::iter::once((nl, nr, stamp)));
    }

    /// The application answered this flow's data on a flow of its own (a
    /// server's response to a request): the ACK a delayed-ACK receiver
    /// holds leaves now. A real stack's would ride on the answer's first
    /// segment; one flow here carries one direction's data (no
    /// piggybacking), so without this a one-segment request waited for
    /// the delayed-ACK timer, and where that is longer than the sender's
    /// RTO (200 ms against an RTOmin of 10 ms) every request of a query
    /// that outlasted the RTO was sent twice.
    pub fn ack_answered(&mut self, io: &mut TcpIo) {
        if self.cfg.transport == crate::config::Transport::Tcp
            && self.cfg.delayed_ack
            && self.rx.unacked_segs > 0
        {
            let ts = self.rx.ts_recent;
            self.send_ack(io, ts);
        }
    }

    pub(in crate::tcp) fn on_delack_event(&mut self, io: &mut TcpIo) {
        if self.rx_rare.dack.fire(io, TcpTimer::DelAck) == Fire::Expired && self.rx.unacked_segs > 0
        {
            let ts = self.rx.ts_recent;
            self.send_ack(io, ts);
        }
    }

    pub(in crate::tcp) fn send_ack(&mut self, io: &mut TcpIo, ts: SimTime) {
        let ece = self.rx.echo.ece();
        self.send_ack_ece(io, ts, ece);
    }

    pub(in crate::tcp) fn send_ack_ece(&mut self, io: &mut TcpIo, ts: SimTime, ece: bool) {
        self.rx.unacked_segs = 0;
        self.rx.last_ack_sent = self.rx.rcv_nxt;
        if self.cfg.delayed_ack {
            // Only delayed ACKs arm it: otherwise its line stays cold.
            self.rx_rare.dack.cancel();
        }
        // A congestion control that needs ECN sends its pure ACKs
        // ECN-capable too (Linux's tcp_ca_needs_ecn keeps ECT on ACKs and
        // retransmissions; ns-3's DctcpEcn mode): a RED port with ECN
        // would drop them at K otherwise (`ecn_non_ect = "drop"`). A CE
        // mark on an ACK is ignored by its receiver, as in Linux.
        // (`ecn` first: it is set whenever the cc needs ECN, and false
        // for most flows, which then read nothing more)
        let mut f = if self.cfg.ecn && self.cfg.cc.needs_ecn() {
            flags::ECT
        } else {
            0
        };
        if ece {
            f |= flags::ECE;
        }
        let mut pkt = Packet {
            kind: PktKind::Ack,
            flags: f,
            nsack: 0,
            label: self.rx.ack_label,
            flow: self.id,
            txn: 0,
            src: self.dst_host,
            dst: self.src_host,
            payload: 0,
            wire: self.cfg.header_bytes + io.l2_overhead(),
            seq: self.rx.rcv_nxt,
            ts,
            sack: [(0, 0); 3],
        };
        if self.cfg.sack && !self.rx.ooo.is_empty() {
            // RFC 2018: the most recently changed block first, then others.
            // Stamps are distinct, so picking the three newest in turn gives
            // the order a sort would, without copying the list per ACK.
            let mut below = u64::MAX;
            for k in 0..3 {
                let Some(b) = self
                    .rx
                    .ooo
                    .iter()
                    .filter(|b| b.2 < below)
                    .max_by_key(|b| b.2)
                else {
                    break;
                };
                pkt.sack[k] = (b.0, b.1);
                pkt.nsack += 1;
                below = b.2;
            }
        }
        self.stats.acks_sent += 1;
        io.send(pkt);
    }
}
