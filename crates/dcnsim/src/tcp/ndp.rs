//! NDP (Handley et al., "Re-architecting datacenter networks and stacks
//! for low latency and high performance", SIGCOMM 2017) as a mode of the
//! endpoint (`tcp.transport = "ndp"`): the byte stream, messages,
//! delivery and counters are the flow's, the sending and acknowledging
//! are NDP's.
//!
//! * The sender sends its first `ndp_initial_window` packets unsolicited,
//!   then one packet per pull: a retransmission first (a NACKed, bounced
//!   or timed-out packet), else new data. Pulls are numbered; a pull
//!   numbered n lets the sender have sent n pulled packets in all, so a
//!   lost pull is made up by the next.
//! * The receiver answers every data packet with an ACK and every trimmed
//!   header (a data packet a switch cut to its header) with a NACK, at
//!   once, and asks its host's pull pacer for one pull per packet that
//!   arrived, header or whole. The pacer (in the world: one per receiving
//!   host, shared by its flows) releases pulls no faster than one
//!   `mss + header` packet per `ndp_pull_rate` × the host's line rate,
//!   round-robin over its flows; a pull the pacer may release at once
//!   rides on the ACK or NACK (`flags::PULL`), others leave as PULL
//!   packets later.
//! * A header that finds a switch's header queue full is dropped, or with
//!   `trimming.return_to_sender` sent back to the sender (a bounce), which
//!   queues the packet for retransmission and resends it at once only if
//!   it has nothing else in flight (so no pull is coming).
//! * Anything unanswered for `ndp_rto` is resent (the last resort: with
//!   trimming no data packet is lost silently).
//!
//! On the wire: data is `PktKind::Data` with `flags::NDP`; ACK, NACK and
//! PULL are `PktKind::Ack` with `flags::NDP`, `seq` the first byte of the
//! packet acknowledged ([`NO_SEQ`] on a PULL), `flags::TRIMMED` on a NACK,
//! `flags::PULL` and the pull number in `txn` when a pull rides along.

use super::*;
use std::collections::BTreeMap;

/// `seq` of a PULL packet: it acknowledges nothing.
pub const NO_SEQ: u64 = u64::MAX;

/// NDP's state of one flow, both ends (each end touches only its own).
#[derive(Clone, Debug, Default)]
pub struct NdpState {
    /// Sender: packets to send again on the next pull (first byte → length).
    rtx: BTreeMap<u64, u32>,
    /// Sender: packets sent and not yet answered (first byte → length,
    /// last send time).
    out: BTreeMap<u64, (u32, SimTime)>,
    /// Sender: packets a transfer sends unsolicited (`ndp_initial_window`,
    /// or one BDP of the path, set by the world).
    pub iw: u32,
    /// Sender: pulled packets sent, and the highest pull number heard.
    last_pull: u32,
    max_pull: u32,
    /// Receiver: pulls asked of the pacer, and released by it.
    pub pulls_asked: u32,
    pub pulls_released: u32,
    /// Receiver: the flow waits in its pacer's round-robin list.
    pub queued: bool,
    /// Counters: NACKs and bounces the sender received, pulls it heard.
    pub nacks: u64,
    pub bounces: u64,
    pub pulls: u64,
}

impl NdpState {
    /// Take the receiver's fields from `rx`, the state another world of
    /// the same model kept for this flow's receiving end.
    pub fn absorb_receiver(&mut self, rx: &NdpState) {
        self.pulls_asked = rx.pulls_asked;
        self.pulls_released = rx.pulls_released;
        self.queued = rx.queued;
    }

    /// Pulls the receiver has asked for that its pacer has not released.
    pub fn pulls_pending(&self) -> u32 {
        self.pulls_asked - self.pulls_released
    }
}

impl TcpFlow {
    /// Whether this flow runs NDP.
    #[inline]
    pub fn is_ndp(&self) -> bool {
        self.ndp.is_some()
    }

    /// The NDP state (both ends), for the world's pacer and the report.
    pub fn ndp(&self) -> Option<&NdpState> {
        self.ndp.as_deref()
    }

    pub fn ndp_mut(&mut self) -> Option<&mut NdpState> {
        self.ndp.as_deref_mut()
    }

    /// Set the initial window: `ndp_initial_window`, or with 0 there the
    /// packets of one bandwidth-delay product of the flow's path (`rtt`
    /// unloaded, `rate_bps` the sender's line rate), rounded up.
    pub fn ndp_set_window(&mut self, rtt: SimTime, rate_bps: u64, l2: u32) {
        let wire = (self.cfg.mss + self.cfg.header_bytes + l2) as u128;
        let iw = match self.cfg.ndp.initial_window {
            0 => (rtt.0 as u128 * rate_bps as u128).div_ceil(8_000_000_000_000 * wire) as u32,
            n => n,
        };
        if let Some(n) = self.ndp.as_deref_mut() {
            n.iw = iw.max(1);
        }
    }

    /// The wire size of an NDP control packet (ACK, NACK, PULL).
    pub fn ndp_ctrl_wire(&self, l2: u32) -> u32 {
        self.cfg.header_bytes + l2
    }

    /// The application wrote: with nothing in flight, a new initial
    /// window goes out unsolicited; otherwise the bytes wait for pulls (a
    /// pull already heard and unused sends at once).
    pub(in crate::tcp) fn ndp_write(&mut self, io: &mut TcpIo) {
        let n = self.ndp.as_deref_mut().expect("an NDP flow");
        if n.out.is_empty() && n.rtx.is_empty() {
            // A new transfer, as htsim's flow start: pulls left over from
            // the last one (heard when there was nothing to send) lapse.
            n.last_pull = n.max_pull;
            for _ in 0..n.iw.max(1) {
                if !self.ndp_send_one(io) {
                    break;
                }
            }
        } else {
            self.ndp_use_pulls(io);
        }
    }

    /// Send one packet: a retransmission if one waits, else new data.
    /// Returns false when there is nothing to send.
    fn ndp_send_one(&mut self, io: &mut TcpIo) -> bool {
        let now = io.now();
        let n = self.ndp.as_deref_mut().expect("an NDP flow");
        let (start, len, retx) = if let Some((s, l)) = n.rtx.pop_first() {
            (s, l, true)
        } else if self.snd_max < self.app_limit {
            let len = (self.app_limit - self.snd_max).min(self.cfg.mss as u64) as u32;
            let s = self.snd_max;
            self.snd_max += len as u64;
            self.snd_nxt = self.snd_max;
            (s, len, false)
        } else {
            return false;
        };
        n.out.insert(start, (len, now));
        self.send_marked_data(io, start, len, retx);
        true
    }

    /// Hand NDP's or HPCC's data packet of `len` bytes from `start` to the
    /// NIC, and arm the timer for the transport's timeout (`ndp_rto`,
    /// `hpcc_rto`) if it is idle.
    pub(in crate::tcp) fn send_marked_data(
        &mut self,
        io: &mut TcpIo,
        start: u64,
        len: u32,
        retx: bool,
    ) {
        let pkt = self.modern_data(io, start, len, retx, flags::NDP);
        io.send(pkt);
        if !self.rto.is_armed() {
            let rto = if self.hpcc.is_some() {
                self.cfg.hpcc.rto
            } else {
                self.cfg.ndp.rto
            };
            let at = io.now() + rto;
            self.rto.arm(io, at, TcpTimer::Rto);
        }
    }

    /// Hand the receiver's ACK (NDP's ACK or NACK, HPCC's) to the NIC:
    /// `seq` acknowledged, `ts` echoed.
    pub(in crate::tcp) fn send_marked_ack(
        &mut self,
        io: &mut TcpIo,
        flags: u8,
        seq: u64,
        ts: SimTime,
    ) {
        self.stats.acks_sent += 1;
        io.send(Packet {
            kind: PktKind::Ack,
            flags,
            nsack: 0,
            label: 0,
            flow: self.id,
            txn: 0,
            src: self.dst_host,
            dst: self.src_host,
            payload: 0,
            wire: self.ndp_ctrl_wire(io.l2_overhead()),
            seq,
            ts,
            sack: [(0, 0); 3],
        });
    }

    /// Send what the pulls heard so far allow.
    fn ndp_use_pulls(&mut self, io: &mut TcpIo) {
        loop {
            let n = self.ndp.as_deref().expect("an NDP flow");
            if n.last_pull >= n.max_pull || !self.ndp_send_one(io) {
                break;
            }
            self.ndp.as_deref_mut().expect("an NDP flow").last_pull += 1;
        }
    }

    /// The lowest byte not yet acknowledged.
    fn ndp_update_una(&mut self) {
        let n = self.ndp.as_deref().expect("an NDP flow");
        let lo = [n.out.keys().next(), n.rtx.keys().next()]
            .into_iter()
            .flatten()
            .min()
            .copied();
        self.snd_una = lo.unwrap_or(self.snd_max);
    }

    /// An ACK, NACK or PULL reaches the sender.
    pub fn ndp_on_ack(&mut self, io: &mut TcpIo, p: &Packet) {
        let now = io.now();
        let n = self.ndp.as_deref_mut().expect("an NDP flow");
        if p.seq != NO_SEQ {
            if let Some((len, sent)) = n.out.remove(&p.seq) {
                if p.flags & flags::TRIMMED != 0 {
                    n.nacks += 1;
                    n.rtx.insert(p.seq, len);
                } else {
                    self.ndp_rtt_sample(now.saturating_sub(sent));
                }
            }
            self.last_activity = now;
            self.ndp_update_una();
        }
        if p.flags & flags::PULL != 0 {
            self.last_activity = now; // a pull is the receiver alive, asking
            let n = self.ndp.as_deref_mut().expect("an NDP flow");
            n.pulls += 1;
            n.max_pull = n.max_pull.max(p.txn);
            self.ndp_use_pulls(io);
        }
        if self.snd_una >= self.snd_max {
            if self.snd_max >= self.app_limit {
                self.rto.cancel();
            } else if !self.rto.is_armed() {
                // Everything sent is acknowledged and more waits for pulls:
                // should the pulls be lost (a full header queue drops
                // them), nothing else would ever start the flow again.
                let at = io.now() + self.cfg.ndp.rto;
                self.rto.arm(io, at, TcpTimer::Rto);
            }
        }
    }

    /// SRTT from ACKs of packets sent once (RFC 6298's smoothing), for
    /// the report: NDP's and HPCC's timeouts do not follow it.
    pub(in crate::tcp) fn ndp_rtt_sample(&mut self, r: SimTime) {
        self.srtt = Some(match self.srtt {
            None => r,
            Some(s) => SimTime((s.0 * 7 + r.0) / 8),
        });
    }

    /// A header the fabric returned to its sender (return-to-sender).
    pub fn ndp_on_bounce(&mut self, io: &mut TcpIo, p: &Packet) {
        let n = self.ndp.as_deref_mut().expect("an NDP flow");
        n.bounces += 1;
        if let Some((len, _)) = n.out.remove(&p.seq) {
            n.rtx.insert(p.seq, len);
        }
        // Nothing else in flight: no ACK or NACK will bring a pull, so
        // the receiver would never ask for it.
        if n.out.is_empty() {
            self.ndp_send_one(io);
        }
        self.ndp_update_una();
    }

    /// The retransmission timer: resend everything unanswered for `ndp_rto`.
    pub(in crate::tcp) fn ndp_on_rto(&mut self, io: &mut TcpIo) {
        if self.rto.fire(io, TcpTimer::Rto) != Fire::Expired {
            return;
        }
        let now = io.now();
        let rto = self.cfg.ndp.rto;
        let n = self.ndp.as_deref_mut().expect("an NDP flow");
        let late: Vec<(u64, u32)> = n
            .out
            .iter()
            .filter(|(_, &(_, t))| t + rto <= now)
            .map(|(&s, &(l, _))| (s, l))
            .collect();
        // one timeout a firing, however many packets it resends (and
        // whether or not an unpulled one follows below)
        let counted = !late.is_empty();
        if counted {
            self.count_timeout(now, 0);
        }
        for (s, l) in late {
            let n = self.ndp.as_deref_mut().expect("an NDP flow");
            n.out.remove(&s);
            n.rtx.insert(s, l);
            self.ndp_send_one(io);
        }
        let n = self.ndp.as_deref().expect("an NDP flow");
        if n.out.is_empty() && (!n.rtx.is_empty() || self.snd_max < self.app_limit) {
            // nothing in flight, so no ACK will bring a pull, and a pull
            // the fabric dropped is never asked again. Pulls still coming
            // (the flow heard from its receiver within the timeout) will
            // send; after a whole timeout of silence, send one unpulled
            // (its timer armed in send_marked_data), as a bounce does
            let quiet_until = self.last_activity + rto;
            if quiet_until > now {
                self.rto.arm(io, quiet_until, TcpTimer::Rto);
                return;
            }
            if !counted {
                self.count_timeout(now, 0);
            }
            self.ndp_send_one(io);
            return;
        }
        if let Some(first) = n.out.values().map(|&(_, t)| t).min() {
            self.rto.arm(io, first + rto, TcpTimer::Rto);
        }
    }

    /// A data packet or a trimmed header reaches the receiver: an ACK or
    /// a NACK goes back at once. Returns the bytes in-order delivery
    /// advanced by, and whether the flow still wants pulls (the world then
    /// asks the pacer for one; the answer is the last packet sent).
    pub fn ndp_on_data(&mut self, io: &mut TcpIo, p: &Packet) -> (u64, bool) {
        let trimmed = p.flags & flags::TRIMMED != 0;
        let before = self.rx.rcv_nxt;
        if !trimmed {
            self.take_payload(io, p);
        }
        let f = flags::NDP | if trimmed { flags::TRIMMED } else { 0 };
        self.send_marked_ack(io, f, p.seq, p.ts);
        // Everything written so far has arrived: no more pulls (as
        // htsim's sink releases a finished flow's pulls).
        let more = self.rx.rcv_nxt < self.rx_rare.written;
        (self.rx.rcv_nxt - before, more)
    }

    /// Every broken NDP invariant (see [`Self::invariant_violations`]).
    pub(in crate::tcp) fn ndp_violations(&self, v: &mut Vec<String>) {
        let Some(n) = self.ndp.as_deref() else {
            return;
        };
        let id = self.id;
        if let Some(s) = n.out.keys().find(|s| n.rtx.contains_key(s)) {
            v.push(format!(
                "flow {id}: NDP packet {s} both in flight and queued to resend"
            ));
        }
        if n.pulls_released > n.pulls_asked {
            v.push(format!(
                "flow {id}: NDP pacer released {} pulls of {} asked",
                n.pulls_released, n.pulls_asked
            ));
        }
    }
}
