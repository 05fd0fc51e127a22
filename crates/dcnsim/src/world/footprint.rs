//! What a world holds on the heap, by component: each part reports its own
//! size here or beside its type (`Core::fixed_heap_bytes`,
//! `App::heap_bytes`, `EventQueue::heap_bytes`, …), and the run-time
//! memory guard (stats/limits.rs) adds them up.

use super::{AppRx, DropRuns, Trace, World};
use crate::app::{FlowMeta, UdpFlow};
use crate::sim::time::SimTime;
use crate::tcp::TcpFlow;
use std::mem::size_of;

/// What a running world holds on the heap, by component: the capacities of
/// its structures (what the allocator handed out, not just what is used).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Accounted {
    /// Routes, links and per-node tables (fixed once built).
    pub fixed: usize,
    /// Flow structs and their per-flow rows (meta, receive tallies, drop runs).
    pub flows: usize,
    /// Scoreboards, out-of-order ranges and message boundaries.
    pub flow_buffers: usize,
    /// Loss indications kept for the `losses` table.
    pub loss_logs: usize,
    /// Loss indications (entries, not bytes).
    pub losses: usize,
    /// Packet slab and link FIFOs.
    pub packets: usize,
    /// Event-queue buckets.
    pub events: usize,
    /// Trace samples.
    pub trace: usize,
    /// pcap records.
    pub pcap: usize,
    /// Apps' own lists.
    pub apps: usize,
}

impl Accounted {
    pub fn total(&self) -> usize {
        self.fixed
            + self.flows
            + self.flow_buffers
            + self.loss_logs
            + self.packets
            + self.events
            + self.trace
            + self.pcap
            + self.apps
    }
}

impl World {
    /// A TCP flow's fixed cost in the world, at most, before it runs: its
    /// connection state and per-flow rows (Vecs at most twice their
    /// length), its message boundaries (VecDeques of at least 4 entries)
    /// and its entry in a Poisson app's list of flows awaiting their last
    /// ACK. Its result row is the tables' (stats/report.rs).
    pub const TCP_FLOW_BYTES: usize = 2
        * (size_of::<TcpFlow>()
            + size_of::<FlowMeta>()
            + size_of::<AppRx>()
            + size_of::<DropRuns>())
        + 2 * 4 * (size_of::<u64>() + size_of::<(u64, u32)>())
        + 2 * 4;

    /// A UDP source's fixed cost, as [`Self::TCP_FLOW_BYTES`].
    pub const UDP_FLOW_BYTES: usize = 2 * (size_of::<UdpFlow>() + size_of::<DropRuns>());

    /// What the world holds on the heap now, by component.
    pub fn accounted(&self) -> Accounted {
        let core = &self.core;
        let mut a = Accounted {
            fixed: core.fixed_heap_bytes(),
            flows: self.flow_rows_heap_bytes(),
            packets: core.arena.heap_bytes()
                + core.links.pool_heap_bytes()
                + core.links.int.heap_bytes(),
            events: core.q.heap_bytes(),
            pcap: core.captures.iter().map(|c| c.heap_bytes()).sum(),
            apps: self.apps.iter().map(|a| a.heap_bytes()).sum(),
            trace: self.trace.as_ref().map_or(0, Trace::heap_bytes),
            ..Accounted::default()
        };
        for f in &self.flows {
            a.flow_buffers += f.buffer_bytes();
            a.loss_logs += f.stats.loss_log.capacity() * size_of::<(SimTime, bool)>();
            a.losses += f.stats.loss_log.len();
        }
        a
    }

    /// The flows' structs and per-flow rows, their routes and the shared
    /// TCP configurations.
    fn flow_rows_heap_bytes(&self) -> usize {
        let core = &self.core;
        self.flows.capacity() * size_of::<TcpFlow>()
            + self.flow_meta.capacity() * size_of::<FlowMeta>()
            + self.app_rx.capacity() * size_of::<AppRx>()
            + core.tcp_drops.capacity() * size_of::<DropRuns>()
            + self.udps.capacity() * size_of::<UdpFlow>()
            + core.udp_drops.capacity() * size_of::<DropRuns>()
            + core.paths_heap_bytes()
            + self.tcp_class_bytes()
    }
}

impl Trace {
    /// Heap bytes of the samples: ten columns of 8-byte cells.
    pub fn heap_bytes(&self) -> usize {
        (self.f_time.capacity()
            + self.f_flow.capacity()
            + self.f_delivered.capacity()
            + self.f_cwnd.capacity()
            + self.f_ssthresh.capacity()
            + self.f_srtt.capacity()
            + self.q_time.capacity()
            + self.q_id.capacity()
            + self.q_bytes.capacity()
            + self.q_pkts.capacity())
            * 8
    }
}
