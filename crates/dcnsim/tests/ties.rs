//! Seeded equal-time order (`ties = "seeded"`, sim/queue.rs): a run is a
//! pure function of scenario and seed, conserves every byte, and the seed
//! decides who wins a tie — on a synchronized incast, where every server's
//! burst reaches the switch in the same picosecond, another seed moves the
//! losses to other flows; with first-in first-out ties the seed draws
//! nothing here (no jitter, no randomness), so it moves nothing.

mod common;
use common::*;
use dcnsim::config::Ties;

fn incast(ties: Ties, seed: u64) -> dcnsim::stats::results::Results {
    let mut c = kulkarni_incast(16, 32 * 1024, 10, |_| {});
    if let dcnsim::config::AppSpec::SyncReads { jitter, .. } = &mut c.apps[0] {
        // perfectly synchronized servers: the ties this key is about
        *jitter = dcnsim::sim::time::SimTime::ZERO;
    }
    c.ties = ties;
    c.seed = seed;
    let r = dcnsim::run(&c);
    check_conservation(&r);
    assert_eq!(r.summary_value("apps_unfinished"), Some(0.0));
    r
}

#[test]
fn seeded_ties_are_deterministic_and_the_seed_picks_the_winners() {
    let a = incast(Ties::Seeded, 1);
    let b = incast(Ties::Seeded, 1);
    assert_eq!(a.tables, b.tables, "same scenario and seed, same run");
    let drops = |r: &dcnsim::stats::results::Results| col_u64(r, "flows", "drops").to_vec();
    assert!(drops(&a).iter().sum::<u64>() > 0, "the incast drops");
    let other = (2..6)
        .map(|s| drops(&incast(Ties::Seeded, s)))
        .filter(|d| *d != drops(&a))
        .count();
    assert!(
        other > 0,
        "four other seeds all lost the same packets per flow"
    );
    // FIFO ties: nothing in this scenario draws from the seed.
    assert_eq!(
        incast(Ties::Fifo, 1).tables,
        incast(Ties::Fifo, 2).tables,
        "the seed moved a FIFO run with nothing random in it"
    );
}
