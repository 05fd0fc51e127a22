//! The TCP outcast problem (Lee et al. 2017, Fig. 1) and what TCPRand does
//! to it: port blackout exists with fixed-size segments, it is visible in
//! the per-input-port accounting, and payload randomization raises
//! fairness. Also the accounting laws of the `queue_inputs` table.

mod common;
use common::*;
use dcnsim::stats::results::Results;
use serde_json::{json, Value};

/// The paper's Fig. 1 with CUBIC, `tcp_extra` over its TCP settings.
fn fig1(secs: f64, seed: u64, tcp_extra: Value) -> Value {
    outcast_fig1(secs, seed, tcp_extra, None)
}

fn run(doc: &Value) -> Results {
    run_checked(doc)
}

/// Every packet a switch queue sees came in on one of its switch's input
/// ports: per queue, the inputs' offered = enqueued + dropped, and their
/// sums are the queue's own counts. Host NIC queues have no input rows.
#[test]
fn input_port_accounting_adds_up_to_the_queue() {
    let r = run(&fig1(0.2, 1, json!({})));
    let q_enq = col_u64(&r, "queues", "enqueued");
    let q_drop = col_u64(&r, "queues", "dropped");
    let q_node = col_str(&r, "queues", "node");
    let id = col_u64(&r, "queue_inputs", "queue_id");
    let (off, enq, drop, run_) = (
        col_u64(&r, "queue_inputs", "offered"),
        col_u64(&r, "queue_inputs", "enqueued"),
        col_u64(&r, "queue_inputs", "dropped"),
        col_u64(&r, "queue_inputs", "max_drop_run"),
    );
    assert!(!id.is_empty());
    for q in 0..q_enq.len() {
        let rows: Vec<usize> = (0..id.len()).filter(|&i| id[i] == q as u64).collect();
        if q_node[q].starts_with('h') {
            assert!(rows.is_empty(), "host NIC queue {q} has input rows");
            continue;
        }
        let e: u64 = rows.iter().map(|&i| enq[i]).sum();
        let d: u64 = rows.iter().map(|&i| drop[i]).sum();
        assert_eq!((e, d), (q_enq[q], q_drop[q]), "queue {q} ({})", q_node[q]);
        for &i in &rows {
            assert_eq!(off[i], enq[i] + drop[i]);
            assert!(run_[i] <= drop[i] && (drop[i] == 0) == (run_[i] == 0));
        }
    }
    // The run is deterministic, input table included.
    assert_eq!(r.tables, run(&fig1(0.2, 1, json!({}))).tables);
}

fn goodputs(r: &Results) -> Vec<f64> {
    col_f64(r, "flows", "goodput_bps").to_vec()
}

/// Port blackout exists: with fixed-size segments the 2-hop flow F1 gets
/// far less than a fair share (total/15) of R's link under CUBIC and
/// 20-packet queues, although it has the shortest RTT; at R's edge switch
/// its input port (the one from host 1) loses a fraction of its packets at
/// least twice that of either aggregation port (in our runs, ~45 % vs < 10 %).
///
/// Under first-in first-out ties (ns-2's and ns-3's order, the paper's
/// setting). Under the seeded order, the default since issue 42, seed 1
/// loses no more at h1's port than at an aggregation port (0.465 against
/// 0.542): the blackout is a tie-order effect there, which the TCPRand
/// re-run under the default must weigh (tests/test_outcast_phase.py runs
/// Fig. 1 under both orders).
#[test]
fn port_blackout_starves_the_two_hop_flow() {
    for seed in 1..=3 {
        let mut doc = fig1(0.5, seed, json!({}));
        doc["ties"] = json!("fifo");
        let r = run(&doc);
        let g = goodputs(&r);
        let fair = g.iter().sum::<f64>() / g.len() as f64;
        assert!(
            g[0] < 0.25 * fair,
            "seed {seed}: F1 {:.1} Mbps vs fair share {:.1}",
            g[0] / 1e6,
            fair / 1e6
        );
        // Queue edge0_0 → h0, split by input.
        let (node, to, from) = (
            col_str(&r, "queue_inputs", "node"),
            col_str(&r, "queue_inputs", "to"),
            col_str(&r, "queue_inputs", "input_from"),
        );
        let (off, drop) = (
            col_u64(&r, "queue_inputs", "offered"),
            col_u64(&r, "queue_inputs", "dropped"),
        );
        let rows: Vec<usize> = (0..node.len())
            .filter(|&i| node[i] == "edge0_0" && to[i] == "h0")
            .collect();
        assert_eq!(
            rows.len(),
            3,
            "R's port has inputs from h1 and two aggregation switches"
        );
        let host = *rows.iter().find(|&&i| from[i] == "h1").unwrap();
        let frac = |i: usize| drop[i] as f64 / off[i] as f64;
        for &i in rows.iter().filter(|&&i| i != host) {
            assert!(
                frac(host) > 2.0 * frac(i),
                "seed {seed}: h1's port drops {:.3}, {}'s {:.3}",
                frac(host),
                from[i],
                frac(i)
            );
        }
    }
}

/// Static TCPRand (rMin = 200 B) breaks the synchronized arrivals: Jain's
/// index over the 15 flows rises above fixed-size CUBIC's on every seed,
/// and F1 is no longer starved.
#[test]
fn static_tcprand_raises_fairness_on_the_outcast_scenario() {
    for seed in 1..=3 {
        let fixed = goodputs(&run(&fig1(0.5, seed, json!({}))));
        let rand = goodputs(&run(&fig1(
            0.5,
            seed,
            json!({"segment": "tcprand", "tcprand_rmin": 200}),
        )));
        let (jf, jr) = (
            dcnsim::stats::report::jain(&fixed),
            dcnsim::stats::report::jain(&rand),
        );
        assert!(
            jr > jf + 0.05,
            "seed {seed}: Jain {jr:.3} (TCPRand) vs {jf:.3} (fixed)"
        );
        let fair = rand.iter().sum::<f64>() / rand.len() as f64;
        assert!(
            rand[0] > 0.5 * fair,
            "seed {seed}: F1 {:.1} Mbps",
            rand[0] / 1e6
        );
    }
}

/// The run-length histogram partitions each flow's drop runs and accounts
/// for its drops exactly: Σ count = `drop_runs`, runs of 1..4 hold
/// Σ k·count_k drops, and the rest (the drops of runs ≥ 5) lie between
/// 5·count_5+ and `max_drop_run`·count_5+ (zero when there is no such run).
/// Checked on fixed segments and on TCPRand, whose drops are the paper's
/// Fig. 13 subject.
#[test]
fn drop_run_histogram_accounts_for_every_drop() {
    for extra in [
        json!({}),
        json!({"segment": "tcprand", "tcprand_rmin": 200}),
    ] {
        let r = run(&fig1(0.2, 1, extra.clone()));
        let drops = col_u64(&r, "flows", "drops");
        let runs = col_u64(&r, "flows", "drop_runs");
        let max_run = col_u64(&r, "flows", "max_drop_run");
        let h: Vec<&[u64]> = [
            "drop_runs_len1",
            "drop_runs_len2",
            "drop_runs_len3",
            "drop_runs_len4",
            "drop_runs_len5plus",
        ]
        .iter()
        .map(|c| col_u64(&r, "flows", c))
        .collect();
        assert!(drops.iter().sum::<u64>() > 0, "{extra}: no losses to check");
        for f in 0..drops.len() {
            let count: u64 = h.iter().map(|c| c[f]).sum();
            assert_eq!(count, runs[f], "{extra} flow {f}: Σ histogram vs drop_runs");
            let short: u64 = (0..4).map(|k| (k as u64 + 1) * h[k][f]).sum();
            assert!(
                short <= drops[f],
                "{extra} flow {f}: {short} > {} drops",
                drops[f]
            );
            let rest = drops[f] - short;
            let c5 = h[4][f];
            assert!(
                rest >= 5 * c5 && rest <= max_run[f] * c5,
                "{extra} flow {f}: {rest} drops in {c5} runs ≥ 5 (max run {})",
                max_run[f]
            );
            // The longest run sits in the histogram's top non-empty bin.
            let top = (0..5)
                .rev()
                .find(|&k| h[k][f] > 0)
                .map_or(0, |k| k as u64 + 1);
            assert_eq!(
                top,
                max_run[f].min(5),
                "{extra} flow {f}: top bin vs max run"
            );
        }
    }
}
