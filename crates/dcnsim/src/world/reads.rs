//! What the result tables and the limits read of a finished (or running)
//! world, through small accessors, so they do not reach into its parts:
//! a part can change its layout without touching stats/.

use super::{AppRx, DropRuns, InputTable, Trace, World};
use crate::app::{App, FlowMeta, UdpFlow};
use crate::net::pcap::Capture;
use crate::net::Links;
use crate::sim::time::SimTime;
use crate::tcp::TcpFlow;

/// A run's counters, for its summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counters {
    /// Events processed.
    pub events: u64,
    pub packet_hops: u64,
    pub packets_created: u64,
    pub packets_delivered: u64,
    pub packets_dropped: u64,
    /// New flowlets started (a next hop chosen afresh), over all switches.
    pub flowlets_started: u64,
    /// Packets alive in the arena now.
    pub packets_live: u64,
}

impl World {
    /// The simulated time now (the end, once the run is over).
    pub fn now(&self) -> SimTime {
        self.core.q.now()
    }

    pub fn tcp_flows(&self) -> &[TcpFlow] {
        &self.flows
    }

    pub fn udp_flows(&self) -> &[UdpFlow] {
        &self.udps
    }

    pub fn apps(&self) -> &[App] {
        &self.apps
    }

    /// TCP flow `i`'s role in its app.
    pub fn flow_meta(&self, i: usize) -> FlowMeta {
        self.flow_meta[i]
    }

    /// What TCP flow `i`'s receiving application was handed.
    pub fn app_rx(&self, i: usize) -> AppRx {
        self.app_rx[i]
    }

    /// TCP flow `i`'s drops and their runs.
    pub fn tcp_drops(&self, i: usize) -> &DropRuns {
        &self.core.tcp_drops[i]
    }

    /// UDP flow `i`'s drops and their runs.
    pub fn udp_drops(&self, i: usize) -> &DropRuns {
        &self.core.udp_drops[i]
    }

    pub fn links(&self) -> &Links {
        &self.core.links
    }

    /// The per-input tallies of the switches' egress queues.
    pub fn inputs(&self) -> &InputTable {
        &self.core.inputs
    }

    pub fn node_names(&self) -> &[String] {
        &self.core.node_names
    }

    pub fn node_is_host(&self, node: u32) -> bool {
        self.core.node_host[node as usize] != u32::MAX
    }

    pub fn captures(&self) -> &[Capture] {
        &self.core.captures
    }

    pub fn trace(&self) -> Option<&Trace> {
        self.trace.as_ref()
    }

    pub fn counters(&self) -> Counters {
        let c = &self.core;
        Counters {
            events: c.q.processed(),
            packet_hops: c.packet_hops,
            packets_created: c.arena.created,
            packets_delivered: c.delivered,
            packets_dropped: c.dropped,
            flowlets_started: c.flowlets_started,
            packets_live: c.arena.live(),
        }
    }
}
