//! Result tables: named columns, ready to become pandas DataFrames.

#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    U64(Vec<u64>),
    I64(Vec<i64>),
    F64(Vec<f64>),
    Bool(Vec<bool>),
    Str(Vec<String>),
}

impl Column {
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
}

impl Results {
    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.name == name)
    }
    pub fn summary_value(&self, key: &str) -> Option<f64> {
        self.summary.iter().find(|(k, _)| k == key).map(|(_, v)| *v)
    }
}
