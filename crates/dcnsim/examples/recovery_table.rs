//! What each loss-recovery rate reduction gives on issue 24's scenario
//! (one flow, 100 blocks of 256 KB through a 32-packet, 100 Mbps port):
//! goodput, timeouts and retransmissions per (cc, SACK, reduction), the
//! table docs/model.md discusses.
//!
//!     cargo run --release --example recovery_table -p dcnsim
#[path = "../tests/common.rs"]
mod common;
#[path = "../tests/recovery/scenario.rs"]
mod scenario;

fn main() {
    println!(
        "| cc | SACK | reduction | goodput (Mbps) | timeouts | fast retransmits | retransmits |"
    );
    println!("|---|---|---|---|---|---|---|");
    for cc in ["newreno", "cubic"] {
        for (sack, red) in scenario::RULES {
            let json = scenario::one_flow(cc, sack, &format!(r#", "reduction": "{red}""#));
            let r = dcnsim::run_json(&json, None).unwrap_or_else(|e| panic!("{e:?}"));
            let sum = |col| common::col_u64(&r, "flows", col).iter().sum::<u64>();
            let goodput: f64 = common::col_f64(&r, "flows", "goodput_bps").iter().sum();
            println!(
                "| {cc} | {sack} | {red} | {:.1} | {} | {} | {} |",
                goodput / 1e6,
                sum("timeouts"),
                sum("fast_retransmits"),
                sum("retransmits")
            );
        }
    }
}
