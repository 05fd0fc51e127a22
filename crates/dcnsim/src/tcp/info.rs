//! The sender's state in the units and names of Linux's `struct tcp_info`,
//! for drivers that judge the endpoint against Linux (the packetdrill
//! runner, validation/packetdrill): read-only, never on the hot path.

use super::{CongState, TcpFlow};

/// Linux's `tcpi_*` fields the endpoint has a counterpart for. Segment
/// counts are of the scoreboard's segments; windows are in SMSS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpInfo {
    /// `TCP_CA_Open` 0, `Disorder` 1, `CWR` 2, `Recovery` 3, `Loss` 4.
    pub ca_state: u8,
    pub snd_cwnd: u64,
    /// Linux reports an unset ssthresh as `TCP_INFINITE_SSTHRESH`.
    pub snd_ssthresh: u64,
    pub unacked: u64,
    pub sacked: u64,
    pub lost: u64,
    pub retrans: u64,
    pub reordering: u32,
    /// Reordering events detected (Linux's `reord_seen`; here also the
    /// fast retransmits shown spurious by timestamps).
    pub reord_seen: u64,
    /// Smoothed RTT in µs (0 before the first sample).
    pub rtt_us: u64,
}

/// Linux's `TCP_INFINITE_SSTHRESH`.
pub const INFINITE_SSTHRESH: u64 = 0x7fff_ffff;

impl TcpFlow {
    pub fn tcp_info(&self) -> TcpInfo {
        let b = self.board();
        let rack = self.rec.is_rack();
        let mut lost = 0;
        let mut retrans = 0;
        for (i, s) in self.segs.iter().enumerate() {
            if s.sacked {
                continue;
            }
            // Linux keeps a retransmitted segment in lost_out until it is
            // acknowledged: it was marked lost to be resent.
            if s.lost || s.rexmit || (!rack && i < b.lost_end) {
                lost += 1;
            }
            if s.rexmit {
                retrans += 1;
            }
        }
        let smss = self.st.smss.max(1);
        // Linux's Disorder: SACKs or duplicate ACKs seen, no reduction yet.
        let ca_state = match self.cong {
            CongState::Loss => 4,
            CongState::Recovery => 3,
            CongState::Open if self.ecn_in_cwr => 2,
            CongState::Open if self.ep.dupacks > 0 || self.sh.sb.sacked_segs > 0 => 1,
            CongState::Open => 0,
        };
        TcpInfo {
            ca_state,
            snd_cwnd: self.st.cwnd / smss,
            snd_ssthresh: if self.st.ssthresh >= INFINITE_SSTHRESH * smss {
                INFINITE_SSTHRESH
            } else {
                self.st.ssthresh / smss
            },
            unacked: self.segs.len() as u64,
            sacked: self.sh.sb.sacked_segs as u64,
            lost,
            retrans,
            reordering: self.dupthresh,
            reord_seen: self.stats.reorder_events,
            rtt_us: self.srtt.map_or(0, |r| r.0 / 1_000_000),
        }
    }
}
