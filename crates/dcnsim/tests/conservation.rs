//! The conservation checker can fail: each deliberately broken run (a
//! hidden, test-only fault in the core) must be reported, and the same run
//! without the fault must pass.

mod common;
use common::*;
use dcnsim::stats::results::Results;
use dcnsim::world::{Fault, World};

/// Kulkarni's incast with drops and timeouts (8 servers, 32 KB buffer).
fn run(fault: Option<Fault>) -> Results {
    let cfg = kulkarni_incast(8, 32 * 1024, 3, |_| {});
    let mut w = World::new(&cfg);
    w.fault = fault;
    w.run();
    dcnsim::finish(w, 0.0)
}

#[test]
fn clean_run_passes_and_exercises_drops() {
    let r = run(None);
    assert!(r.summary_value("packets_dropped").unwrap() > 0.0);
    assert_eq!(conservation_problems(&r), Vec::<String>::new());
}

#[test]
fn a_vanished_packet_is_reported() {
    let r = run(Some(Fault::LosePacket(200)));
    let p = conservation_problems(&r);
    assert!(p.iter().any(|m| m.contains("live in the arena")), "{p:?}");
    assert!(p.iter().any(|m| m.contains("created")), "{p:?}");
}

#[test]
fn a_double_handoff_to_the_application_is_reported() {
    let r = run(Some(Fault::DoubleHandoff(40)));
    let p = conservation_problems(&r);
    assert!(
        p.iter().any(|m| m.contains("the application received")),
        "{p:?}"
    );
}

#[test]
fn a_lost_handoff_is_reported_even_though_the_flow_completes() {
    let r = run(Some(Fault::DropHandoff(40)));
    let p = conservation_problems(&r);
    assert!(p.iter().any(|m| m.contains("transport delivered")), "{p:?}");
    // the transport still finished, so the app's own completion event fired
    // on a flow whose application is short of bytes
    assert!(p.iter().any(|m| m.contains("completed with")), "{p:?}");
}
