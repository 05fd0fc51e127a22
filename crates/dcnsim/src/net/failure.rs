//! Link failures (`[[failures]]`): a link that goes down, loses a fraction
//! of its packets (a gray failure: a dirty optic, a flapping lane) or runs
//! at a lower rate for a while, as data-center studies of path failures
//! and asymmetry set them (Protective ReRoute, SIGCOMM 2023; CONGA and
//! Hermes's degraded links; htsim's failed fat-tree links run slower).
//!
//! **The rule.** While a link is down, a packet is lost when its time on
//! the link, from its enqueue to its arrival at the far end, overlaps the
//! outage: the packets in the buffer and on the wire when the link fails
//! are lost, and nothing passes until it is restored. Each such packet is
//! known to be lost when it is offered (its departure and arrival are
//! known then: the FIFO is served at a constant rate), so it is dropped
//! there, and so never takes buffer room. Only packets that would have
//! been lost with it could have queued behind it, so the others' timing is
//! the same as if it had been queued and then flushed. While a link loses
//! a fraction `loss`, each packet offered is lost with that probability
//! (from its own seeded stream), dropped when offered: a corrupted frame
//! would also take its time on the wire before the far end discarded it,
//! a share `loss` of the link's capacity, under 1 % at the loss rates of
//! gray failures (10⁻⁴ to 10⁻²). While a link is slow, a packet whose
//! serialization starts then is serialized at the slower rate, and one
//! that starts outside the window at the link's own (a backlog drains at
//! full rate once the link is restored). Routing does not react (it sees
//! no failure): ECMP keeps hashing flows onto a link that is down, as a
//! fabric does until its routing converges, and only a new flow label
//! (`tcp.txrehash`, `tcp.plb`) or spraying moves them.
//!
//! **Cost.** Nothing for a link that never fails, whatever the run: a
//! failing link gets a class of its own that refuses every packet (as a
//! trimming or sink link's does), so its enqueues alone leave the per-hop
//! path for [`Links::over_failure`], before, during and after its windows.

use super::{Enqueue, Hdr, Links, NO_LINK};
use crate::config::FailureSpec;
use crate::sim::queue::EventQueue;
use crate::sim::rng::{stream, Rng, Stream};
use crate::sim::time::SimTime;
use rand::Rng as _;

const NONE: u32 = u32::MAX;

/// One failure on one directed link.
#[derive(Clone, Debug)]
struct Window {
    at: SimTime,
    until: SimTime,
    loss: f64,
    /// The class the link enqueues with meanwhile (its own, or slower).
    class: u32,
    /// The `[[failures]]` entry it comes from.
    spec: u32,
    /// Packets it cost (down: overlapped the outage; lossy: drawn lost).
    lost: u64,
    /// Down: a packet was lost to it. Every packet offered after, before
    /// `until`, queues behind that one in the FIFO and so arrives after
    /// `at` too, however short (a small packet must not take the lost
    /// one's slot on the serializer and slip through before `at`).
    doomed: bool,
}

/// A directed link that fails at least once.
#[derive(Clone, Debug)]
struct Failing {
    link: u32,
    /// Its class while it fails or may fail: zero limits, so every enqueue
    /// comes to [`Links::over_failure`].
    gate: u32,
    /// The class it had (a slower window's is this one at another rate,
    /// so it keeps `ecn_non_ect = "drop"` too).
    base: u32,
    /// Its windows, in `[[failures]]` order (they do not overlap:
    /// scenario/failures.rs).
    windows: Vec<Window>,
    rng: Rng,
}

/// The failing links of a world (empty: none).
#[derive(Clone, Debug, Default)]
pub struct Failures {
    /// Per directed link, its entry in `links` (`NONE`: never fails);
    /// empty when no link fails.
    of: Vec<u32>,
    links: Vec<Failing>,
}

/// What a failure cost one directed link, for the `failures` table.
#[derive(Clone, Copy, Debug)]
pub struct FailureRow {
    pub spec: u32,
    pub link: u32,
    pub at: SimTime,
    pub until: SimTime,
    pub loss: f64,
    pub rate_bps: u64,
    pub lost: u64,
}

impl Failures {
    pub(super) fn is_empty(&self) -> bool {
        self.links.is_empty()
    }
}

impl Links {
    /// Make the directed links of `specs` fail as they say. Call once the
    /// links, their trimming and INT are set and before [`Self::set_sinks`]
    /// (a sink keeps the failure's class and comes here like any other).
    pub fn set_failures(&mut self, specs: &[FailureSpec], seed: u64) {
        if specs.is_empty() {
            return;
        }
        self.failures.of = vec![NONE; self.hot.len()];
        for (s, spec) in specs.iter().enumerate() {
            for &l in &spec.dlinks {
                let li = l as usize;
                if self.failures.of[li] == NONE {
                    let base = self.hot[li].st.class;
                    let gate = self.refusing(base);
                    self.hot[li].st.class = gate;
                    self.failures.of[li] = self.failures.links.len() as u32;
                    self.failures.links.push(Failing {
                        link: l,
                        gate,
                        base,
                        windows: Vec::new(),
                        rng: stream(seed, Stream::Failure, l as u64),
                    });
                }
                let fi = self.failures.of[li] as usize;
                let base = self.failures.links[fi].base;
                let class = match spec.rate_bps {
                    Some(r) => self.intern(self.classes[base as usize].at_rate(r)),
                    None => base,
                };
                self.failures.links[fi].windows.push(Window {
                    at: spec.at,
                    until: spec.until,
                    loss: spec.loss,
                    class,
                    spec: s as u32,
                    lost: 0,
                    doomed: false,
                });
            }
        }
    }

    /// Whether some link fails.
    pub fn has_failures(&self) -> bool {
        !self.failures.is_empty()
    }

    /// Packet `h` offered to a failing link `link` (`None`: the link does
    /// not fail, or this is the enqueue a failure let through, under the
    /// class it chose). Down across the packet's time on the link: lost.
    /// Lossy now: lost with the window's probability. Otherwise offered
    /// under the class of the moment its serialization starts (the link's
    /// own, or a slower one).
    #[cold]
    #[inline(never)]
    pub(super) fn over_failure(
        &mut self,
        link: u32,
        h: Hdr,
        q: &mut EventQueue,
        start_delay: SimTime,
    ) -> Option<Enqueue> {
        let fi = *self.failures.of.get(link as usize)?;
        if fi == NONE {
            return None;
        }
        let f = &mut self.failures.links[fi as usize];
        let l = link as usize;
        if self.hot[l].st.class != f.gate {
            return None;
        }
        let now = q.now();
        let super::Link { st, rare } = &mut self.hot[l];
        Self::advance(st, &self.pool, &self.classes, now);
        let active = f.windows.iter().position(|w| w.at <= now && now < w.until);
        // The FIFO serializes in order, so the packet starts when the one
        // ahead of it has left, and runs at the rate of that moment: a
        // backlog built while the link was slow drains at its own rate once
        // `until` passes, and what was queued before `at` but starts after
        // it goes slowly (a packet under way at either edge keeps the rate
        // it started at).
        let start = st.free_at.max(now + start_delay);
        let class = f
            .windows
            .iter()
            .find(|w| w.at <= start && start < w.until)
            .map_or(f.base, |w| w.class);
        let c = &self.classes[class as usize];
        let depart = start + c.tx_time(h.wire);
        let arrive = depart + c.delay;
        if let Some(w) = f
            .windows
            .iter_mut()
            .find(|w| w.loss >= 1.0 && (w.at < arrive || w.doomed) && now < w.until)
        {
            w.doomed = true;
            w.lost += 1;
            rare.dropped += 1;
            rare.dropped_failed += 1;
            return Some(Enqueue::Dropped);
        }
        if let Some(i) = active {
            let w = &mut f.windows[i];
            if w.loss > 0.0 && f.rng.gen::<f64>() < w.loss {
                w.lost += 1;
                rare.dropped += 1;
                rare.dropped_failed += 1;
                return Some(Enqueue::Dropped);
            }
        }
        Some(self.enqueue_under(class, link, h, q, start_delay))
    }

    /// Offer `h` to `link` under `class`, whether its far end is here or a
    /// sink (whose class is the sink's entry).
    fn enqueue_under(
        &mut self,
        class: u32,
        link: u32,
        h: Hdr,
        q: &mut EventQueue,
        start_delay: SimTime,
    ) -> Enqueue {
        let l = link as usize;
        match self.sinks.get(l) {
            Some(&own) if own != super::NOT_A_SINK => {
                self.sinks[l] = class;
                let res = self.enqueue_on::<true>(link, h, q, start_delay, NO_LINK);
                self.sinks[l] = own;
                res
            }
            _ => self.enqueue_as(class, link, h, q, start_delay),
        }
    }

    /// Absorb the failure counters of the links `theirs` names from
    /// `other` (see [`Self::absorb`]).
    pub(super) fn absorb_failures(&mut self, other: &Links, theirs: &impl Fn(usize) -> bool) {
        for (mine, o) in self.failures.links.iter_mut().zip(&other.failures.links) {
            if theirs(mine.link as usize) {
                for (w, ow) in mine.windows.iter_mut().zip(&o.windows) {
                    w.lost = ow.lost;
                }
            }
        }
    }

    /// Every failure on every directed link, by `[[failures]]` entry, then
    /// link.
    pub fn failure_rows(&self) -> Vec<FailureRow> {
        let mut rows: Vec<FailureRow> = self
            .failures
            .links
            .iter()
            .flat_map(|f| {
                f.windows.iter().map(move |w| FailureRow {
                    spec: w.spec,
                    link: f.link,
                    at: w.at,
                    until: w.until,
                    loss: w.loss,
                    rate_bps: self.classes[w.class as usize].rate_bps,
                    lost: w.lost,
                })
            })
            .collect();
        rows.sort_by_key(|r| (r.spec, r.link));
        rows
    }
}
