//! The endpoint's only contact with the outside: an outbox.
//!
//! A [`super::TcpFlow`] never touches the network or the event queue. Each
//! of its entry points takes a [`TcpIo`] holding the current time; the flow
//! appends what it wants done — packets to hand to the NIC, timer wake-ups
//! — in the order it decided them, and its owner (the world, or a test)
//! moves them on afterwards. Keeping one ordered list, rather than one for
//! packets and one for timers, lets the world replay them exactly as if the
//! flow had acted directly (packets leave the NIC in the order the flow
//! sent them). The buffer is reused, so the hot path allocates
//! nothing once it has grown to the largest burst.

use crate::net::Packet;
use crate::sim::queue::Schedule;
use crate::sim::time::SimTime;

/// The endpoint's timers. Each has at most one pending wake-up; the owner
/// hands a wake-up back with [`super::TcpFlow::on_timer`] at its time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcpTimer {
    /// Retransmission timeout.
    Rto,
    /// Delayed ACK (receiver).
    DelAck,
    /// Probabilistic-retransmission thread (Kulkarni Alg. 1).
    ProbRetx,
    /// RACK reordering window or tail loss probe.
    Rack,
}

/// One request from the endpoint to its owner.
#[derive(Clone, Copy, Debug)]
pub enum TcpOut {
    /// Hand this packet to the NIC of host `pkt.src` now.
    Send(Packet),
    /// Call [`super::TcpFlow::on_timer`] with `timer` at time `at`.
    Wake { at: SimTime, timer: TcpTimer },
    /// Hand this packet to the NIC of host `pkt.src` now, its `ts` set to
    /// the time it will start to leave the NIC (a hardware TX timestamp,
    /// as Swift's; tcp/swift.rs).
    SendNicStamped(Packet),
}

/// The clock reading and outbox an endpoint works with.
#[derive(Debug, Default)]
pub struct TcpIo {
    now: SimTime,
    /// Link-layer bytes added to every packet's wire size.
    l2_overhead: u32,
    out: Vec<TcpOut>,
    /// Bytes waiting at the NIC of the flow being called, set by the world
    /// for DCQCN's calls only (a RoCE NIC makes its next packet when its
    /// transmit queue has room; tcp/dcqcn.rs).
    nic_backlog: u64,
}

impl TcpIo {
    pub fn new(l2_overhead: u32) -> TcpIo {
        TcpIo {
            now: SimTime::ZERO,
            l2_overhead,
            out: Vec::with_capacity(64),
            nic_backlog: 0,
        }
    }
    /// Set the clock for the next call into an endpoint.
    #[inline]
    pub fn at(&mut self, now: SimTime) -> &mut TcpIo {
        self.now = now;
        self
    }
    #[inline]
    pub fn now(&self) -> SimTime {
        self.now
    }
    /// Tell a DCQCN sender how many bytes wait at its NIC.
    #[inline]
    pub fn set_nic_backlog(&mut self, bytes: u64) -> &mut TcpIo {
        self.nic_backlog = bytes;
        self
    }
    #[inline]
    pub(super) fn nic_backlog(&self) -> u64 {
        self.nic_backlog
    }
    #[inline]
    pub fn l2_overhead(&self) -> u32 {
        self.l2_overhead
    }
    /// What the endpoints asked for since the last [`Self::drain`] or
    /// [`Self::clear`], in order.
    #[inline]
    pub fn pending(&self) -> &[TcpOut] {
        &self.out
    }
    /// Take the requests in order, keeping the buffer's memory.
    #[inline]
    pub fn drain(&mut self) -> std::vec::Drain<'_, TcpOut> {
        self.out.drain(..)
    }
    /// Forget the requests (after carrying them out from [`Self::pending`]),
    /// keeping the buffer's memory.
    #[inline]
    pub fn clear(&mut self) {
        self.out.clear();
    }
    /// The last packet asked to be sent, if the last request was a send
    /// (the world puts an NDP pull on an ACK just made).
    pub fn last_send_mut(&mut self) -> Option<&mut Packet> {
        match self.out.last_mut() {
            Some(TcpOut::Send(p)) => Some(p),
            _ => None,
        }
    }
    #[inline(always)]
    pub(super) fn send(&mut self, pkt: Packet) {
        self.out.push(TcpOut::Send(pkt));
    }
    pub(super) fn send_nic_stamped(&mut self, pkt: Packet) {
        self.out.push(TcpOut::SendNicStamped(pkt));
    }
}

impl Schedule<TcpTimer> for TcpIo {
    #[inline]
    fn now(&self) -> SimTime {
        self.now
    }
    #[inline]
    fn schedule(&mut self, at: SimTime, timer: TcpTimer) {
        self.out.push(TcpOut::Wake { at, timer });
    }
}
