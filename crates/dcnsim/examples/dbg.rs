#[path = "../tests/common.rs"]
mod common;
use common::*;
use dcnsim::config::*;
use dcnsim::results::Column;
use dcnsim::time::SimTime;
fn main() {
    let topo = star(3, GBPS, SimTime::from_us(25), Limit::Packets(100));
    let bulk = |src| AppSpec::Bulk {
        src,
        dst: 2,
        amount: BulkAmount::Duration(SimTime::from_secs(4)),
        start: SimTime::ZERO,
        tcp: tcp(1460),
    };
    let apps = vec![bulk(0), bulk(1)];
    let mut c = config(topo, apps, SimTime::from_secs(5));
    c.host_jitter = SimTime::from_us(0);
    let r = dcnsim::run(&c);
    for t in &r.tables {
        println!("== {}", t.name);
        for (n, c) in &t.columns {
            let s = match c {
                Column::U64(v) => format!("{v:?}"),
                Column::F64(v) => format!("{v:?}"),
                Column::Bool(v) => format!("{v:?}"),
                Column::Str(v) => format!("{v:?}"),
                Column::I64(v) => format!("{v:?}"),
            };
            println!("{n:>18}: {}", &s[..s.len().min(150)]);
        }
    }
    println!("{:?}", r.summary);
}
