//! Result tables: named columns, ready to become pandas DataFrames.

use std::borrow::Cow;

#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    U64(Vec<u64>),
    I64(Vec<i64>),
    F64(Vec<f64>),
    Bool(Vec<bool>),
    /// Text: a label the core knows (a kind, a role) borrowed, no copy
    /// per row (a losses table has tens of thousands); a name owned.
    Str(Vec<Cow<'static, str>>),
}

/// A column's element type (numpy's name for it in [`Dtype::name`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dtype {
    U64,
    I64,
    F64,
    Bool,
    Str,
}

impl Dtype {
    /// The numpy/pandas dtype a column of this type becomes.
    pub fn name(self) -> &'static str {
        match self {
            Dtype::U64 => "uint64",
            Dtype::I64 => "int64",
            Dtype::F64 => "float64",
            Dtype::Bool => "bool",
            Dtype::Str => "str",
        }
    }
}

/// One table the core returns: its columns in order, and whether every run
/// has it (`flow_ts` and `queue_ts` only come with a `trace` table).
#[derive(Clone, Copy, Debug)]
pub struct TableSchema {
    pub name: &'static str,
    pub always: bool,
    pub columns: &'static [(&'static str, Dtype)],
}

/// Every table a run can return, with its columns in the order the core
/// builds them. The one list: Python (`_core.table_schema()`) gives absent
/// tables their columns from it, and tests/table_schema.rs checks that
/// runs exercising every table return exactly these columns and types.
pub const TABLE_SCHEMA: &[TableSchema] = &[
    TableSchema {
        name: "flows",
        always: true,
        columns: &[
            ("flow_id", Dtype::U64),
            ("app", Dtype::U64),
            ("app_kind", Dtype::Str),
            ("role", Dtype::Str),
            ("transport", Dtype::Str),
            ("src", Dtype::U64),
            ("dst", Dtype::U64),
            ("cc", Dtype::Str),
            ("segment", Dtype::Str),
            ("start_s", Dtype::F64),
            ("end_s", Dtype::F64),
            ("fct_s", Dtype::F64),
            ("app_bytes", Dtype::U64),
            ("delivered_bytes", Dtype::U64),
            ("goodput_bps", Dtype::F64),
            ("segments_sent", Dtype::U64),
            ("bytes_sent", Dtype::U64),
            ("retransmits", Dtype::U64),
            ("retx_bytes", Dtype::U64),
            ("timeouts", Dtype::U64),
            ("timeout_period_s", Dtype::F64),
            ("abtt", Dtype::U64),
            ("ibtt", Dtype::U64),
            ("rto_first_flight", Dtype::U64),
            ("rto_whole_window", Dtype::U64),
            ("rto_few_dupacks", Dtype::U64),
            ("rto_many_dupacks", Dtype::U64),
            ("ibtt_whole_window", Dtype::U64),
            ("ibtt_few_dupacks", Dtype::U64),
            ("fast_retransmits", Dtype::U64),
            ("probretx_sent", Dtype::U64),
            ("probretx_dupacks", Dtype::U64),
            ("spurious_retransmits", Dtype::U64),
            ("tlp_probes", Dtype::U64),
            ("reorder_events", Dtype::U64),
            ("rehashes", Dtype::U64),
            ("dupthresh", Dtype::U64),
            ("drops", Dtype::U64),
            ("ack_drops", Dtype::U64),
            ("drop_runs", Dtype::U64),
            ("max_drop_run", Dtype::U64),
            ("drop_runs_len1", Dtype::U64),
            ("drop_runs_len2", Dtype::U64),
            ("drop_runs_len3", Dtype::U64),
            ("drop_runs_len4", Dtype::U64),
            ("drop_runs_len5plus", Dtype::U64),
            ("ecn_marks", Dtype::U64),
            ("ecn_cuts", Dtype::U64),
            ("ooo_arrivals", Dtype::U64),
            ("dup_arrivals", Dtype::U64),
            ("acks_sent", Dtype::U64),
            ("srtt_s", Dtype::F64),
            ("final_cwnd_bytes", Dtype::U64),
            ("completed", Dtype::Bool),
            ("received_bytes", Dtype::U64),
            ("messages_written", Dtype::U64),
            ("messages_received", Dtype::U64),
        ],
    },
    TableSchema {
        name: "queues",
        always: true,
        columns: &[
            ("queue_id", Dtype::U64),
            ("node", Dtype::Str),
            ("to", Dtype::Str),
            ("rate_bps", Dtype::U64),
            ("limit_bytes", Dtype::U64),
            ("limit_pkts", Dtype::U64),
            ("enqueued", Dtype::U64),
            ("dropped", Dtype::U64),
            ("marked", Dtype::U64),
            ("max_bytes", Dtype::U64),
            ("max_pkts", Dtype::U64),
            ("mean_bytes", Dtype::F64),
            ("tx_bytes", Dtype::U64),
            ("tx_pkts", Dtype::U64),
            ("utilization", Dtype::F64),
            ("in_flight_pkts", Dtype::U64),
            ("from_host", Dtype::Bool),
        ],
    },
    TableSchema {
        name: "queue_inputs",
        always: true,
        columns: &[
            ("queue_id", Dtype::U64),
            ("node", Dtype::Str),
            ("to", Dtype::Str),
            ("input_queue_id", Dtype::U64),
            ("input_from", Dtype::Str),
            ("offered", Dtype::U64),
            ("enqueued", Dtype::U64),
            ("dropped", Dtype::U64),
            ("max_drop_run", Dtype::U64),
        ],
    },
    TableSchema {
        name: "queries",
        always: true,
        columns: &[
            ("app", Dtype::U64),
            ("query", Dtype::U64),
            ("n_workers", Dtype::U64),
            ("start_s", Dtype::F64),
            ("end_s", Dtype::F64),
            ("qct_s", Dtype::F64),
            ("bytes", Dtype::U64),
            ("goodput_bps", Dtype::F64),
            ("timeouts", Dtype::U64),
            ("request_timeouts", Dtype::U64),
            ("abtt", Dtype::U64),
            ("ibtt", Dtype::U64),
            ("rto_first_flight", Dtype::U64),
            ("abtt_flows", Dtype::U64),
        ],
    },
    TableSchema {
        name: "blocks",
        always: true,
        columns: &[
            ("app", Dtype::U64),
            ("block", Dtype::U64),
            ("n_servers", Dtype::U64),
            ("start_s", Dtype::F64),
            ("end_s", Dtype::F64),
            ("duration_s", Dtype::F64),
            ("bytes", Dtype::U64),
            ("goodput_bps", Dtype::F64),
            ("timeouts", Dtype::U64),
            ("request_timeouts", Dtype::U64),
            ("abtt", Dtype::U64),
            ("ibtt", Dtype::U64),
            ("rto_first_flight", Dtype::U64),
            ("abtt_flows", Dtype::U64),
        ],
    },
    TableSchema {
        name: "losses",
        always: true,
        columns: &[
            ("time_s", Dtype::F64),
            ("flow_id", Dtype::U64),
            ("kind", Dtype::Str),
        ],
    },
    TableSchema {
        name: "flow_ts",
        always: false,
        columns: &[
            ("time_s", Dtype::F64),
            ("flow_id", Dtype::U64),
            ("delivered_bytes", Dtype::U64),
            ("cwnd_bytes", Dtype::U64),
            ("ssthresh_bytes", Dtype::F64),
            ("srtt_s", Dtype::F64),
        ],
    },
    TableSchema {
        name: "queue_ts",
        always: false,
        columns: &[
            ("time_s", Dtype::F64),
            ("queue_id", Dtype::U64),
            ("bytes", Dtype::U64),
            ("pkts", Dtype::U64),
        ],
    },
    TableSchema {
        name: "failures",
        always: false,
        columns: &[
            ("failure", Dtype::U64),
            ("queue_id", Dtype::U64),
            ("node", Dtype::Str),
            ("to", Dtype::Str),
            ("at_s", Dtype::F64),
            ("until_s", Dtype::F64),
            ("loss", Dtype::F64),
            ("rate_bps", Dtype::U64),
            ("lost", Dtype::U64),
        ],
    },
    TableSchema {
        name: "pfc",
        always: false,
        columns: &[
            ("queue_id", Dtype::U64),
            ("node", Dtype::Str),
            ("to", Dtype::Str),
            ("pauses", Dtype::U64),
            ("paused_s", Dtype::F64),
            ("max_held_bytes", Dtype::U64),
            ("paused_at_end", Dtype::Bool),
        ],
    },
    TableSchema {
        name: "pfc_log",
        always: false,
        columns: &[
            ("time_s", Dtype::F64),
            ("queue_id", Dtype::U64),
            ("node", Dtype::Str),
            ("to", Dtype::Str),
            ("paused", Dtype::Bool),
        ],
    },
];

/// The schema of table `name`, if the core has such a table.
pub fn table_schema(name: &str) -> Option<&'static TableSchema> {
    TABLE_SCHEMA.iter().find(|t| t.name == name)
}

impl Column {
    /// The element type.
    pub fn dtype(&self) -> Dtype {
        match self {
            Column::U64(_) => Dtype::U64,
            Column::I64(_) => Dtype::I64,
            Column::F64(_) => Dtype::F64,
            Column::Bool(_) => Dtype::Bool,
            Column::Str(_) => Dtype::Str,
        }
    }
    pub fn len(&self) -> usize {
        match self {
            Column::U64(v) => v.len(),
            Column::I64(v) => v.len(),
            Column::F64(v) => v.len(),
            Column::Bool(v) => v.len(),
            Column::Str(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Table {
    pub name: String,
    pub columns: Vec<(String, Column)>,
}

impl Table {
    pub fn new(name: &str) -> Self {
        Table {
            name: name.to_string(),
            columns: Vec::new(),
        }
    }
    pub fn push(&mut self, name: &str, col: Column) {
        if let Some(first) = self.columns.first() {
            assert_eq!(first.1.len(), col.len(), "column {name} length mismatch");
        }
        self.columns.push((name.to_string(), col));
    }
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |c| c.1.len())
    }
}

/// Everything a run returns.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Results {
    /// `flows`, `queues`, `queries`, `blocks` (the last two may be empty).
    pub tables: Vec<Table>,
    /// Run-level scalars: events, packet_hops, sim_time_s, packets_created, …
    pub summary: Vec<(String, f64)>,
    /// pcap traces: (file name, bytes), one per captured host.
    pub pcaps: Vec<(String, Vec<u8>)>,
    /// Where a run cut into partitions spent its wall time (empty on one
    /// thread): `windows`, each partition's mean work (`partition_work_s`),
    /// the waits for the slower partition at each window (`imbalance_s`)
    /// and the steps between windows with the build and close
    /// (`between_windows_s`). Not physics: two runs of one scenario differ here.
    pub timing: Vec<(String, f64)>,
}

impl Results {
    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.name == name)
    }
    pub fn summary_value(&self, key: &str) -> Option<f64> {
        self.summary.iter().find(|(k, _)| k == key).map(|(_, v)| *v)
    }
    /// A value of [`Self::timing`] (`None` on one thread, or for a key it lacks).
    pub fn timing_value(&self, key: &str) -> Option<f64> {
        self.timing.iter().find(|(k, _)| k == key).map(|(_, v)| *v)
    }
}

/// Jain's fairness index (Σx)² / (n·Σx²): 1 for equal shares, 1/n when one
/// value takes everything. NaN for no values or all zeros: the index is
/// 0/0 there, and calling that "fair" (1) or an error would hide an empty
/// selection in a figure; NaN shows as a gap and fails every comparison.
/// The one definition: Python's `dcnsim.jain` calls this.
pub fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    if x.is_empty() || s2 == 0.0 {
        return f64::NAN;
    }
    s * s / (x.len() as f64 * s2)
}

#[cfg(test)]
mod tests {
    use super::jain;

    #[test]
    fn jain_index_bounds() {
        assert_eq!(jain(&[3.0, 3.0, 3.0]), 1.0);
        assert!((jain(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
        for n in 1..20 {
            let x: Vec<f64> = (0..n).map(|i| (i * 7 % 5) as f64 + 0.5).collect();
            let j = jain(&x);
            assert!(
                j >= 1.0 / n as f64 - 1e-12 && j <= 1.0 + 1e-12,
                "{x:?}: {j}"
            );
        }
    }

    #[test]
    fn jain_of_nothing_is_nan() {
        assert!(jain(&[]).is_nan());
        assert!(jain(&[0.0, 0.0]).is_nan());
    }
}
