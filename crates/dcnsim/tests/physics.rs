//! Laws the network and TCP must obey, checked on small scenarios.

mod common;
use common::*;
use dcnsim::config::*;
use dcnsim::time::SimTime;

#[test]
fn one_flow_on_idle_link_reaches_line_rate_less_headers() {
    let topo = star(2, GBPS, SimTime::from_us(25), Limit::Packets(200));
    let apps = vec![AppSpec::Bulk { src: 0, dst: 1, amount: BulkAmount::Duration(SimTime::from_secs(1)), start: SimTime::ZERO, tcp: tcp(1460) }];
    let r = dcnsim::run(&config(topo, apps, SimTime::from_secs(2)));
    check_conservation(&r);
    let g = col_f64(&r, "flows", "goodput_bps")[0];
    let ideal = GBPS as f64 * 1460.0 / 1500.0;
    assert!((g - ideal).abs() / ideal < 0.01, "goodput {g:.0} vs ideal {ideal:.0}");
}
