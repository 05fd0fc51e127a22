//! What counts as reordering: a segment delivered below what an earlier
//! ACK had already reported delivered, never one of the same ACK.

use super::*;
use crate::config::{LossRecovery, Reordering};

fn adaptive() -> Script {
    let mut w = world(loss_tcp(LossRecovery::DupAck, Reordering::Adaptive));
    w.flow.app_write(&mut w.io, 10 * MSS as u64, None);
    w
}

/// One ACK's blocks, most recent first as receivers list them, and the
/// cumulative ACK that arrives with them, are not reordering among
/// themselves: a star that never reorders saw none.
#[test]
fn blocks_and_the_cumulative_ack_of_one_ack_are_not_reordering() {
    let m = MSS as u64;
    let mut w = adaptive();
    w.flow
        .on_ack(&mut w.io, &sack_ack0(m, &[(7 * m, 9 * m), (3 * m, 4 * m)]));
    assert_eq!(w.flow.stats.reorder_events, 0);
    assert_eq!(w.flow.dupthresh, 3);
}

/// A segment SACKed below an earlier ACK's highest SACK is reordering, of
/// a degree up to the end of the highest SACKed segment (Linux's
/// tcp_check_sack_reordering): SACK of 7, then of 3, is 5 segments; the
/// adaptive threshold becomes 5.
#[test]
fn reordering_degree_reaches_the_end_of_the_highest_sack() {
    let m = MSS as u64;
    let mut w = adaptive();
    w.flow.on_ack(&mut w.io, &sack_ack0(0, &[(7 * m, 8 * m)]));
    assert_eq!(w.flow.stats.reorder_events, 0);
    w.flow
        .on_ack(&mut w.io, &sack_ack0(0, &[(3 * m, 4 * m), (7 * m, 8 * m)]));
    assert_eq!(w.flow.stats.reorder_events, 1);
    assert_eq!(w.flow.dupthresh, 5);
}
