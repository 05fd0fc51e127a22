//! The interrupt check (`World::set_interrupt`, `run_interruptible`): the
//! loop asks it every 2¹⁶ events; `true` stops the run with no tables, and
//! a check that never says stop changes nothing a run reports.

use dcnsim::scenario::parse_config_str;
use dcnsim::{run_interruptible, Stopped};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

mod common;
use common::assert_same_tables;

/// Two long flows through a star: a few million events.
fn scenario() -> dcnsim::config::Config {
    parse_config_str(
        r#"{"stop": "200ms", "seed": 3,
            "topology": {"kind": "star", "hosts": 3, "rate": "10Gbps", "delay": "5us", "buffer": "100pkt"},
            "apps": [{"kind": "bulk", "src": 0, "dst": 2, "duration": "200ms"},
                     {"kind": "bulk", "src": 1, "dst": 2, "duration": "200ms"}]}"#,
    )
    .unwrap()
}

fn counting(stop_at: u64) -> (Arc<AtomicU64>, dcnsim::world::Interrupt) {
    let calls = Arc::new(AtomicU64::new(0));
    let c = Arc::clone(&calls);
    (
        calls,
        Box::new(move || c.fetch_add(1, Ordering::Relaxed) + 1 >= stop_at),
    )
}

#[test]
fn a_check_that_never_stops_changes_no_table() {
    let cfg = scenario();
    let (calls, hook) = counting(u64::MAX);
    let with = run_interruptible(&cfg, Some(hook)).unwrap();
    let without = run_interruptible(&cfg, None).unwrap();
    assert_same_tables(&with, &without);
    let events = with.summary.iter().find(|(k, _)| k == "events").unwrap().1;
    // asked once per 2^16 events (and at the first event)
    let asked = calls.load(Ordering::Relaxed) as f64;
    assert!(
        events > 4.0 * 65536.0,
        "too short a run to test: {events} events"
    );
    assert!(
        (asked - (events / 65536.0).ceil()).abs() <= 1.0,
        "{asked} checks for {events} events"
    );
}

#[test]
fn a_check_that_says_stop_ends_the_run_with_no_tables() {
    let cfg = scenario();
    let (calls, hook) = counting(3);
    assert_eq!(
        run_interruptible(&cfg, Some(hook)).err(),
        Some(Stopped::Interrupted)
    );
    // stopped at the third look: nothing ran on after it
    assert_eq!(calls.load(Ordering::Relaxed), 3);
}

/// A fat-tree whose routing tables take tens of millions of steps to
/// build: set-up asks the check several times before any event.
fn big_fat_tree(k: usize) -> serde_json::Value {
    serde_json::json!({
        "stop": "1ms", "limits": {"memory": "1TB"},
        "topology": {"kind": "fat_tree", "k": k, "rate": "10Gbps", "delay": "1us", "buffer": "100pkt"},
        "apps": [{"kind": "bulk", "src": 0, "dst": 1, "duration": "1ms"}]
    })
}

#[test]
fn set_up_asks_the_check_and_a_stop_builds_no_world() {
    let cfg = dcnsim::scenario::parse_config(&big_fat_tree(32)).unwrap();
    let (calls, hook) = counting(u64::MAX);
    let w = dcnsim::world::World::new_interruptible(&cfg, hook).expect("never told to stop");
    assert_eq!(w.core.q.processed(), 0, "set-up ran no event");
    assert!(
        calls.load(Ordering::Relaxed) >= 2,
        "the routes of a k = 32 fat-tree were built without asking"
    );
    let (calls, hook) = counting(1);
    assert!(dcnsim::world::World::new_interruptible(&cfg, hook).is_none());
    assert_eq!(
        calls.load(Ordering::Relaxed),
        1,
        "went on asking after a stop"
    );
    assert_eq!(
        run_interruptible(&cfg, Some(counting(1).1)).err(),
        Some(Stopped::Interrupted)
    );
}

#[test]
fn validation_asks_the_check_and_a_stop_is_one_problem() {
    let doc = big_fat_tree(8);
    let mut asked = 0;
    let cfg = dcnsim::scenario::parse_config_until(&doc, &mut || {
        asked += 1;
        false
    });
    assert!(cfg.is_ok() && asked >= 2, "asked {asked} times");
    // Stopped at any of its asks, validation ends with the one problem.
    for stop_at in 1..=asked {
        let mut n = 0;
        let errs = dcnsim::scenario::parse_config_until(&doc, &mut || {
            n += 1;
            n >= stop_at
        })
        .unwrap_err();
        assert_eq!(n, stop_at);
        assert_eq!(errs.len(), 1);
        assert_eq!(
            (errs[0].path.as_str(), errs[0].message.as_str()),
            (dcnsim::scenario::DOCUMENT, dcnsim::scenario::INTERRUPTED)
        );
    }
}

/// The progress report watches and changes nothing: told every 2¹⁶
/// events, its clock never runs back or past `stop`, its event count
/// climbs by 2¹⁶ and stays below the run's, and the tables are the ones
/// of a run without it.
#[test]
fn progress_is_told_the_clock_and_changes_no_table() {
    use std::sync::Mutex;
    let cfg = scenario();
    let seen: Arc<Mutex<Vec<(dcnsim::sim::time::SimTime, u64)>>> = Arc::default();
    let s = Arc::clone(&seen);
    let with = dcnsim::run_watched(
        &cfg,
        None,
        Some(Box::new(move |t, n| s.lock().unwrap().push((t, n)))),
    )
    .unwrap();
    let without = run_interruptible(&cfg, None).unwrap();
    assert_same_tables(&with, &without);
    let seen = seen.lock().unwrap();
    let events = with.summary.iter().find(|(k, _)| k == "events").unwrap().1;
    assert!(
        (seen.len() as f64 - (events / 65536.0).ceil()).abs() <= 1.0,
        "{} reports for {events} events",
        seen.len()
    );
    for w in seen.windows(2) {
        assert!(w[0].0 <= w[1].0, "the clock ran back: {w:?}");
        assert_eq!(w[1].1 - w[0].1, 1 << 16, "{w:?}");
    }
    let last = seen.last().unwrap();
    assert!(last.0 <= cfg.stop && (last.1 as f64) < events);
}
