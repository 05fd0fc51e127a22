//! `results::TABLE_SCHEMA` is the list of tables and columns Python gives
//! absent tables: a run that exercises every table (all four app kinds, a
//! trace, a failure; PFC in a run of its own, as failures and PFC do not
//! go together) returns exactly those columns, in that order, with those
//! types.

use dcnsim::stats::results::{table_schema, Results, TABLE_SCHEMA};

/// `asked`: the tables beyond the always-present ones the run asked for.
fn conforms(r: &Results, asked: &[&str]) {
    for t in &r.tables {
        let s = table_schema(&t.name)
            .unwrap_or_else(|| panic!("table {} is not in TABLE_SCHEMA", t.name));
        let got: Vec<(&str, &str)> = t
            .columns
            .iter()
            .map(|(n, c)| (n.as_str(), c.dtype().name()))
            .collect();
        let want: Vec<(&str, &str)> = s.columns.iter().map(|(n, d)| (*n, d.name())).collect();
        assert_eq!(got, want, "table {}", t.name);
    }
    for s in TABLE_SCHEMA {
        let present = r.table(s.name).is_some();
        assert_eq!(
            present,
            s.always || asked.contains(&s.name),
            "table {} present = {present}",
            s.name
        );
    }
}

#[test]
fn every_table_has_the_schema_columns() {
    let doc = |trace: bool, pfc: bool| {
        let mut v = serde_json::json!({
            "name": "all-tables", "stop": "50ms",
            "topology": {"kind": "star", "hosts": 12, "rate": "1Gbps", "delay": "25us",
                         "buffer": "100KB"},
            "tcp": {"rto_min": "10ms"},
            "apps": [
                {"kind": "bulk", "src": 11, "dst": 0, "size": "1MB"},
                {"kind": "partition_aggregate", "aggregator": 0, "workers": "1-5", "queries": 2},
                {"kind": "sync_reads", "client": 6, "servers": "7-10", "blocks": 2},
                {"kind": "udp_cbr", "src": 1, "dst": 2, "rate": "10Mbps"}
            ]
        });
        if trace {
            v["trace"] = serde_json::json!({"interval": "1ms", "queues": "all"});
            v["failures"] = serde_json::json!([{"a": "h1", "b": "sw", "loss": 0.01}]);
        }
        if pfc {
            v["pfc"] = serde_json::json!({});
        }
        v.to_string()
    };
    // with none, then the tables a scenario asks for
    let runs: [(bool, bool, &[&str]); 3] = [
        (false, false, &[]),
        (true, false, &["flow_ts", "queue_ts", "failures"]),
        (false, true, &["pfc", "pfc_log"]),
    ];
    for (trace, pfc, asked) in runs {
        let r = dcnsim::run_json(&doc(trace, pfc), None).unwrap();
        conforms(&r, asked);
    }
}
