//! The scenario of issue 24's recovery study, shared by tests/recovery.rs
//! and examples/recovery_table.rs (each uses part of it).
#![allow(dead_code)]

/// One flow, synchronized reads: 100 blocks of 256 KB from a 1 Gbps sender
/// through a 100 Mbps, 32-packet drop-tail port (the issue's scenario).
/// `extra` is appended to the `[tcp]` table.
pub fn one_flow(cc: &str, sack: bool, extra: &str) -> String {
    format!(
        r#"{{"name": "one-flow", "stop": "600s", "seed": 1,
  "topology": {{"kind": "custom", "buffer": "1000pkt", "nic_buffer": "1000pkt",
    "nodes": [{{"name": "sw", "kind": "switch"}}, {{"name": "c", "kind": "host"}}, {{"name": "s1", "kind": "host"}}],
    "links": [{{"a": "c", "b": "sw", "rate": "100Mbps", "delay": "12us", "buffer": "32pkt"}},
              {{"a": "s1", "b": "sw", "rate": "1Gbps", "delay": "12us"}}]}},
  "tcp": {{"cc": "{cc}", "sack": {sack}, "rto_min": "200ms", "mss": 1448 {extra}}},
  "apps": [{{"kind": "sync_reads", "client": 0, "servers": "1-1", "sru": "256KB",
             "request": "8B", "blocks": 100}}]}}"#
    )
}

/// Blocks and block size of [`one_flow`].
pub const BLOCKS: u64 = 100;
pub const SRU: u64 = 256 * 1024;

/// The (SACK, reduction) pairs worth comparing: without SACK the reduction
/// key changes nothing (RFC 6582's inflation paces recovery).
pub const RULES: [(bool, &str); 4] = [
    (false, "prr_bis"),
    (true, "rfc6675"),
    (true, "prr"),
    (true, "prr_bis"),
];
