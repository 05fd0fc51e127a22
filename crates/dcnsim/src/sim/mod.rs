//! The engine layer: integer simulated time, the event queue and the
//! seeded random streams. It runs no model code and reads no packet or
//! flow; its `Event` only names the model's kinds of event (a packet's
//! arrival, the TCP timers, the pacers' and serializers' wake-ups), so
//! that an event fits a word. Every other layer schedules its events and
//! draws its randomness through it.

pub mod prefetch;
pub mod queue;
pub mod rng;
pub mod time;
