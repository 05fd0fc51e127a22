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
