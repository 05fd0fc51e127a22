//! The world's one boundary with what runs beside it.
//!
//! A world runs the nodes, hosts and apps its [`Seam`] says it runs and
//! tells the seam of the few events another world may need to know of;
//! it never asks whether it is one of several. A run on one thread
//! carries [`Whole`], whose every answer is "all of it" and whose every
//! notice is dropped. A partitioned run ([`crate::parallel`]) gives each
//! partition's world its part of the cut (`crate::partition::PartCtx`):
//! the links whose far end it does not run become sinks
//! ([`crate::net::Links::set_sinks`]), which hand their packets to the
//! far end's partition instead of scheduling their arrival.

use crate::net::PktKind;

/// What a world runs of the model, and what it tells whoever runs the
/// rest. Every method is off the per-hop path but [`Self::dropped`],
/// which runs once per dropped packet.
pub trait Seam: Send + std::any::Any {
    /// Whether this world runs node `node`: its arrivals and the sending
    /// end of the links leaving it.
    fn runs_node(&self, node: u32) -> bool;
    /// Whether this world runs host `host`'s end of its flows.
    fn runs_host(&self, host: u32) -> bool;
    /// Whether this world schedules app `app`'s events.
    fn runs_app(&self, app: u32) -> bool;
    /// Whether app `app` is among the apps whose end ends this world's run.
    fn counts_app(&self, app: u32) -> bool;
    /// An event of app `app` starts.
    fn app_event(&mut self, app: u32);
    /// A message of one of app `app`'s flows is handed to it.
    fn app_message(&mut self, app: u32);
    /// The app of the last [`Self::app_event`] or [`Self::app_message`]
    /// says it is done: whether it is one of those this world counts.
    fn app_done(&mut self) -> bool;
    /// The last app this world counts finished, at the event with queue
    /// key `key`.
    fn all_apps_done(&mut self, key: u128);
    /// A time-series sample is taken.
    fn sample(&mut self);
    /// A packet of `kind` (flow `flow`, transmission `txn`) was dropped by
    /// the event with queue key `key`.
    fn dropped(&mut self, key: u128, flow: u32, txn: u32, kind: PktKind);
}

/// The seam of a world that runs the whole model (one thread).
#[derive(Clone, Copy, Debug, Default)]
pub struct Whole;

impl Seam for Whole {
    #[inline]
    fn runs_node(&self, _: u32) -> bool {
        true
    }
    #[inline]
    fn runs_host(&self, _: u32) -> bool {
        true
    }
    fn runs_app(&self, _: u32) -> bool {
        true
    }
    fn counts_app(&self, _: u32) -> bool {
        true
    }
    fn app_event(&mut self, _: u32) {}
    fn app_message(&mut self, _: u32) {}
    fn app_done(&mut self) -> bool {
        true
    }
    fn all_apps_done(&mut self, _: u128) {}
    fn sample(&mut self) {}
    fn dropped(&mut self, _: u128, _: u32, _: u32, _: PktKind) {}
}
