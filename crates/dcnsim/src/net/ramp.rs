//! RED's ECN marking ramp (`topology.ecn_kmax`, `ecn_pmax`): the switches of
//! the DCQCN paper (Zhu et al., SIGCOMM 2015, §3: K_min 5 KB, K_max 200 KB,
//! P_max 1 %) and ns-3's `RedQueueDisc` with ECN, on the instantaneous
//! queue a packet finds on arrival.
//!
//! A port with an `ecn_k` marks an ECN-capable packet that finds more than
//! K (K_min) queued with probability P_max·(q − K_min)/(K_max − K_min), and
//! always once q reaches K_max. Without a ramp every such packet is marked
//! (DCTCP's step, P = 1 above K).
//!
//! **What it costs others.** Nothing on the per-hop path: a ramped port's
//! class has its limit at K (a gate), so only a packet that may be over K leaves the
//! per-hop enqueue, for the cold over-limit branch, which decides under the
//! port's real class and queues the packet under a class that does not
//! mark. (A test in the marking branch itself, even call-free, cost 0.8 to
//! 1 % more instructions on every DCTCP run: measured, not adopted.) PFC's
//! and a cut link's sink paths, cold already, test the ramp themselves.
//! Each port draws from its own stream (seeded by the run's seed and the
//! link), so a run on several threads marks the same packets as on one.

use super::{flags, Enqueue, EventQueue, Hdr, Link, LinkRare, Links, SimTime};
use crate::config::{EcnRamp, Limit};
use crate::sim::rng::{mix64, Stream};

/// A ramped link's classes: its own (`real`, marking at K) and the same
/// without marking (`quiet`, what a packet over K is queued under once
/// the ramp has decided).
#[derive(Clone, Copy, Debug)]
pub(super) struct Ramped {
    pub(super) real: u32,
    quiet: u32,
}

/// [`Links::ramped`]'s entry for a link without a ramp.
pub(super) const NOT_RAMPED: Ramped = Ramped {
    real: u32::MAX,
    quiet: u32::MAX,
};

impl Links {
    /// Give every link that marks (its class has an ECN threshold in the
    /// unit of `r.kmax`) the ramp from its threshold K to `r.kmax`. Its
    /// class becomes a gate at K: a
    /// packet that may be over K leaves the per-hop path for
    /// [`Self::over_ramp`]. Under PFC every link's class is PFC's already
    /// (its path applies the ramp itself), so only the ramp is recorded:
    /// call after [`Self::set_pfc`], before [`Self::set_sinks`]; not with
    /// trimming, INT or failures (the scenario check refuses them).
    pub fn set_ecn_ramp(&mut self, r: &EcnRamp, seed: u64) {
        for l in 0..self.hot.len() {
            let own = self.hot[l].st.class;
            let real = if self.pfc.on() {
                self.pfc.real_class(l)
            } else {
                own
            };
            let c = self.classes[real as usize];
            let kmax = match r.kmax {
                Limit::Bytes(b) if c.ecn_bytes != u64::MAX => b,
                Limit::Packets(p) if c.ecn_pkts != u64::MAX => p,
                // no threshold, or another unit (the scenario check refuses it)
                _ => continue,
            };
            let rare = &mut self.hot[l].rare;
            rare.ramp_kmax = kmax.min(u32::MAX as u64) as u32;
            rare.ramp_pmax = r.pmax as f32;
            rare.ramp_rng = mix64(mix64(seed ^ mix64(Stream::EcnRamp as u64)) ^ l as u64);
            if self.pfc.on() {
                continue;
            }
            let gate = c.gated_at_k();
            let mut quiet = c;
            (quiet.ecn_bytes, quiet.ecn_pkts) = (u64::MAX, u64::MAX);
            let (gate, quiet) = (self.intern(gate), self.intern(quiet));
            if self.ramped.len() <= l {
                self.ramped.resize(l + 1, NOT_RAMPED);
            }
            self.ramped[l] = Ramped { real: own, quiet };
            self.hot[l].st.class = gate;
        }
    }

    /// A packet that may be over its ramped link's threshold: under the
    /// link's real class, an overflow (`None`: dropped as any), or queued,
    /// an ECN-capable one over K marked as the ramp draws. `None` too for
    /// a link without a ramp.
    #[cold]
    #[inline(never)]
    pub(super) fn over_ramp(
        &mut self,
        link: u32,
        mut h: Hdr,
        q: &mut EventQueue,
        start_delay: SimTime,
    ) -> Option<Enqueue> {
        let r = *self.ramped.get(link as usize)?;
        if r.real == u32::MAX {
            return None;
        }
        let Link { st, rare } = &mut self.hot[link as usize];
        Self::advance(st, &self.pool, &self.classes, q.now());
        let c = self.classes[r.real as usize];
        let pkts = st.buffered as u64;
        if st.q_bytes + h.wire as u64 > c.lim_bytes || pkts + 1 > c.lim_pkts {
            return None;
        }
        if c.over_k(st.q_bytes, pkts)
            && h.flags & flags::ECT != 0
            && c.ramp_marks(rare, st.q_bytes, pkts)
        {
            h.flags |= flags::CE;
            rare.marked += 1;
        }
        Some(self.enqueue_as(r.quiet, link, h, q, start_delay))
    }
}

/// Whether an ECN-capable packet that found `q` queued (in the unit of the
/// threshold: bytes or packets), over its port's threshold `kmin`, is
/// marked under the port's ramp (`rare.ramp_kmax` > 0).
#[inline]
pub(super) fn marks(rare: &mut LinkRare, q: u64, kmin: u64) -> bool {
    let kmax = rare.ramp_kmax as u64;
    if q >= kmax {
        return true;
    }
    let p = rare.ramp_pmax as f64 * q.saturating_sub(kmin) as f64 / (kmax - kmin) as f64;
    // SplitMix64 along the link's own stream
    rare.ramp_rng = rare.ramp_rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let u = (mix64(rare.ramp_rng) >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
    u < p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{NonEct, QueueConfig};
    use crate::net::{flags, Hdr};
    use crate::sim::queue::EventQueue;
    use crate::sim::time::SimTime;

    const LINKS: usize = 400;

    /// Per packet i of 80 ECN-capable 1,500-byte packets offered at once
    /// to each of 400 links (K = 15,000 B, K_max = 75,000 B, P_max = 0.5):
    /// the queue it found, and on how many links it was marked.
    fn marks(seed: u64) -> Vec<(u64, u32)> {
        let cfg = QueueConfig {
            limit: Limit::Packets(100),
            ecn_k: Some(Limit::Bytes(15_000)),
            non_ect: NonEct::Queue,
        };
        let mut links = Links::default();
        for _ in 0..LINKS {
            links.push(0, 1, 1_000_000_000, SimTime(1_000_000), cfg);
        }
        let ramp = EcnRamp {
            kmax: Limit::Bytes(75_000),
            pmax: 0.5,
        };
        links.set_ecn_ramp(&ramp, seed);
        let mut q = EventQueue::new();
        let mut out = vec![(0u64, 0u32); 80];
        for l in 0..LINKS {
            for (i, o) in out.iter_mut().enumerate() {
                let (found, _) = links.occupancy(l, q.now());
                let before = links.stats(l).marked;
                let h = Hdr {
                    id: i as u32,
                    wire: 1500,
                    flags: flags::ECT,
                    ..Hdr::default()
                };
                links.enqueue(l as u32, h, &mut q, SimTime::ZERO);
                o.0 = found;
                o.1 += (links.stats(l).marked - before) as u32;
            }
        }
        out
    }

    /// None marked at or under K_min, all at or past K_max, and between
    /// them each queue length marked in a share within 5 σ of
    /// P_max·(q − K_min)/(K_max − K_min) of the 400 draws.
    #[test]
    fn the_marked_share_rises_linearly_from_k_to_kmax() {
        for (q, n) in marks(1) {
            let n = n as f64;
            let l = LINKS as f64;
            if q <= 15_000 {
                assert_eq!(n, 0.0, "queue {q}");
            } else if q >= 75_000 {
                assert_eq!(n, l, "queue {q}");
            } else {
                let p = 0.5 * (q - 15_000) as f64 / 60_000.0;
                let sd = (l * p * (1.0 - p)).sqrt();
                assert!(
                    (n - l * p).abs() <= 5.0 * sd + 1.0,
                    "queue {q}: {n} marked against {}",
                    l * p
                );
            }
        }
    }

    /// The draws are the run seed's: the same seed marks the same packets,
    /// another seed others.
    #[test]
    fn the_seed_decides_which_packets_are_marked() {
        assert_eq!(marks(7), marks(7));
        assert_ne!(marks(7), marks(8));
    }
}
