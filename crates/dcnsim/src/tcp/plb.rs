//! Protective Load Balancing (PLB; Qureshi et al., SIGCOMM 2022), as Linux
//! runs it for DCTCP (net/ipv4/tcp_plb.c, tcp_dctcp.c): once per round the
//! sender learns what fraction of the data it delivered was CE-marked; after
//! `rehash_rounds` congested rounds in a row (or `idle_rehash_rounds` when
//! it next sends with nothing in flight) it draws a new flow label, which
//! the fabric's ECMP hash includes, so its data take another path. A
//! timeout suspends PLB for `suspend_rto` plus a random part of it, so PLB
//! does not move the flow back onto a path the timeout left, and with
//! `txrehash` (Linux's net.core.txrehash; on by default with PLB, and
//! usable without it) draws a new label itself, as Linux rethinks the hash
//! on every RTO (`tcp_write_timeout`).
//!
//! The label lives in [`TcpFlow`]'s sending lines and rides on each data
//! packet ([`crate::net::Packet::label`]); the world hashes it with the
//! 5-tuple wherever it hashes the 5-tuple. Only the sender's data move:
//! the receiver's ACKs keep their own (unchanged) label, as the other
//! socket's hash in Linux.

use super::TcpFlow;
use crate::sim::rng::{mix64, Rng};
use crate::sim::time::SimTime;
use rand::{Rng as _, SeedableRng};

/// A flow's PLB state (Linux's `struct tcp_plb_state`).
#[derive(Clone, Debug)]
pub(crate) struct PlbState {
    /// Consecutive congested rounds, capped at `rehash_rounds`.
    consec: u32,
    /// While set, PLB keeps the flow where it is (after a timeout).
    pause_until: Option<SimTime>,
    /// New labels and suspensions, from a stream of the flow's own that no
    /// other draw of the flow shares.
    rng: Rng,
    /// New labels drawn, PLB's and the timeouts' (Linux's TCP_NLA_REHASH:
    /// plb_rehash + timeout_rehash). Here, not in the flow's counters, whose
    /// lines are laid out for the ACK path.
    rehashes: u64,
    /// Swift's PLB (htsim's): the last ACK whose fabric delay was within
    /// the base target (`None` before the first ACK), and how long the
    /// flow may go without one before it moves.
    last_good: Option<SimTime>,
    interval: SimTime,
}

impl PlbState {
    /// The state of a flow whose random stream is `flow_rng` (left as it
    /// is: PLB's draws come from a stream derived from it).
    pub(crate) fn new(flow_rng: &Rng) -> Self {
        let seed = flow_rng.clone().gen::<u64>();
        PlbState {
            consec: 0,
            pause_until: None,
            rehashes: 0,
            rng: Rng::seed_from_u64(mix64(seed ^ 0x504c_425f_6c61_6265)),
            last_good: None,
            interval: SWIFT_PLB_FIRST,
        }
    }
}

/// Swift's PLB before its first good delay: a second (htsim's "disable
/// PLB til we've seen some traffic").
const SWIFT_PLB_FIRST: SimTime = SimTime(1_000_000_000_000);

/// Where a flow's ACK labels' draws start ([`TcpFlow::rx_rehash`]), from
/// its random stream (left as it is).
pub(crate) fn ack_salt(flow_rng: &Rng) -> u64 {
    mix64(flow_rng.clone().gen::<u64>() ^ 0x4143_4b5f_6c61_6265)
}

impl TcpFlow {
    /// A DCTCP round closed with `fraction` of its acknowledged bytes
    /// CE-marked (tcp_plb_update_state, then tcp_plb_check_rehash). Out of
    /// line: the ACK path calls it once a round, for flows with PLB.
    #[inline(never)]
    pub(in crate::tcp) fn plb_round(&mut self, fraction: f64, now: SimTime) {
        let p = self.cfg.plb;
        let Some(s) = self.plb.as_deref_mut() else {
            return;
        };
        if fraction < p.cong_thresh {
            s.consec = 0;
        } else if s.consec < p.rehash_rounds {
            s.consec += 1;
        }
        // The ACK that closed the round still counts its data in flight
        // (Linux's in_ack_event runs before the retransmit queue is
        // cleaned), so only the forced rule can fire here.
        self.plb_check(false, now);
    }

    /// The sender starts sending with nothing in flight (Linux's
    /// CA_EVENT_TX_START): an idle flow whose last rounds were congested
    /// moves now, between flowlets, where moving reorders nothing.
    #[inline]
    pub(in crate::tcp) fn plb_tx_start(&mut self, now: SimTime) {
        if self.cfg.plb.enabled {
            self.plb_check(true, now);
        }
    }

    /// tcp_plb_check_rehash.
    fn plb_check(&mut self, idle: bool, now: SimTime) {
        let p = self.cfg.plb;
        let Some(s) = self.plb.as_deref_mut() else {
            return;
        };
        let forced = s.consec >= p.rehash_rounds;
        let idle = idle && p.idle_rehash_rounds > 0 && s.consec >= p.idle_rehash_rounds;
        if !forced && !idle {
            return;
        }
        if s.pause_until.is_some_and(|t| now >= t) {
            s.pause_until = None;
        }
        if s.pause_until.is_some() {
            return;
        }
        s.consec = 0;
        self.plb_rehash();
    }

    /// Swift's PLB, as htsim's `SwiftSubflowSrc` runs it (swift.cpp,
    /// `adjust_cwnd`), on every ACK: a fabric `delay` within `base` (the
    /// target without its flow-scaling term: base plus the path's hops) is
    /// a good path, and the flow may then go 5 to 7 RTTs (`srtt`; the
    /// draw uniform) without another before it moves to a new label. Out
    /// of line: Swift's ACK path calls it for flows with PLB only.
    #[inline(never)]
    pub(in crate::tcp) fn swift_plb(
        &mut self,
        now: SimTime,
        delay: SimTime,
        base: SimTime,
        srtt: SimTime,
    ) {
        let Some(s) = self.plb.as_deref_mut() else {
            return;
        };
        let last = *s.last_good.get_or_insert(now);
        if delay <= base {
            s.last_good = Some(now);
            let spread = if srtt.0 > 0 {
                s.rng.gen_range(0..2 * srtt.0)
            } else {
                0
            };
            s.interval = SimTime(5 * srtt.0 + spread);
        } else if now.saturating_sub(last) > s.interval {
            s.last_good = Some(now);
            self.plb_rehash();
        }
    }

    /// A timeout: PLB suspended for `suspend_rto` plus up to as long again
    /// (tcp_plb_update_state_upon_rto), and with `txrehash` a new label
    /// (tcp_write_timeout's sk_rethink_txhash).
    pub(in crate::tcp) fn plb_on_timeout(&mut self, now: SimTime) {
        let suspend = self.cfg.plb.suspend_rto.0;
        let (plb, txrehash) = (self.cfg.plb.enabled, self.cfg.txrehash);
        let Some(s) = self.plb.as_deref_mut() else {
            return;
        };
        if plb {
            let extra = if suspend > 0 {
                s.rng.gen_range(0..suspend)
            } else {
                0
            };
            s.pause_until = Some(SimTime(now.0.saturating_add(suspend + extra)));
            s.consec = 0;
        }
        if txrehash {
            self.plb_rehash();
        }
    }

    /// Draw a new flow label, another than the one in use (sk_rethink_txhash).
    fn plb_rehash(&mut self) {
        let Some(s) = self.plb.as_deref_mut() else {
            return;
        };
        let old = self.label;
        // never 0, the label of a flow that never moved
        self.label = loop {
            let l: u16 = s.rng.gen();
            if l != old && l != 0 {
                break l;
            }
        };
        s.rehashes += 1;
    }

    /// `txrehash` at the receiver, for each data segment: one it already
    /// has (`dup`) that carries another flow label than the last segment
    /// did — its sender timed out and moved, so perhaps the ACKs are being
    /// lost — draws a new label for the ACKs, as Linux (since 6.7) does in
    /// tcp_rcv_spurious_retrans (TCPDuplicateDataRehash); a duplicate on
    /// the same label (reordering, a spurious fast retransmit) does not.
    /// Every segment's label is kept as the last (`lrcv_flowlabel`).
    #[inline(never)]
    pub(in crate::tcp) fn rx_note_label(&mut self, label: u16, dup: bool) {
        if dup && label != self.rx_rare.lrcv_label {
            self.rx_rehash();
        }
        self.rx_rare.lrcv_label = label;
    }

    /// A new label for the flow's ACKs, from the flow's salt and the
    /// draw's number, not a stream: the world that runs the receiver may
    /// not be the sender's.
    #[cold]
    fn rx_rehash(&mut self) {
        let r = &mut self.rx_rare;
        let old = self.rx.ack_label;
        self.rx.ack_label = loop {
            r.ack_rehashes += 1;
            let l = (mix64(r.ack_salt ^ r.ack_rehashes as u64) >> 48) as u16;
            if l != old {
                break l;
            }
        };
    }

    /// New flow labels the flow drew, its data's (PLB's and the timeouts')
    /// and its ACKs' (0 without PLB or `txrehash`).
    pub fn rehashes(&self) -> u64 {
        self.plb.as_ref().map_or(0, |s| s.rehashes) + self.rx_rare.ack_rehashes as u64
    }

    /// When a timeout's suspension of PLB ends (`None`: not suspended); for
    /// tests that follow Linux's rules step by step.
    #[cfg(test)]
    pub(in crate::tcp) fn plb_pause_until(&self) -> Option<SimTime> {
        self.plb.as_ref().and_then(|s| s.pause_until)
    }

    /// The flow label its data carry now.
    pub fn label(&self) -> u16 {
        self.label
    }
}
