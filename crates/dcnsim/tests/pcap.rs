//! pcap traces: a valid file per captured host holding every packet that
//! host sent or received, with ECN bits where the switch set them.

mod common;
use common::*;
use dcnsim::config::*;
use dcnsim::sim::time::SimTime;

/// (ts_ns, caplen, origlen, bytes) for each record of a nanosecond pcap.
fn records(b: &[u8]) -> Vec<(u64, usize, usize, Vec<u8>)> {
    let u32le = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
    assert_eq!(u32le(0), 0xa1b2_3c4d, "nanosecond pcap magic");
    assert_eq!(u32le(20), 101, "LINKTYPE_RAW");
    let mut out = Vec::new();
    let mut o = 24;
    while o < b.len() {
        let ts = u32le(o) as u64 * 1_000_000_000 + u32le(o + 4) as u64;
        let (cap, orig) = (u32le(o + 8) as usize, u32le(o + 12) as usize);
        out.push((ts, cap, orig, b[o + 16..o + 16 + cap].to_vec()));
        o += 16 + cap;
    }
    assert_eq!(o, b.len(), "no truncated record");
    out
}

#[test]
fn capture_holds_every_packet_of_the_host_in_time_order() {
    let mut topo = star(3, GBPS, SimTime::from_us(25), Limit::Packets(100));
    for l in topo.links.iter_mut() {
        l.queue_ba.ecn_k = Some(Limit::Packets(5));
    }
    let t = TcpConfig {
        ecn: true,
        ..tcp(1460)
    };
    let bulk = |src| AppSpec::Bulk {
        src,
        dst: 2,
        amount: BulkAmount::Bytes(1 << 20),
        start: SimTime::ZERO,
        tcp: t.clone(),
    };
    let mut c = config(topo, vec![bulk(0), bulk(1)], SimTime::from_secs(5));
    c.pcap_hosts = vec![2];
    let r = dcnsim::run(&c);
    check_conservation(&r);
    assert_eq!(r.pcaps.len(), 1);
    assert_eq!(r.pcaps[0].0, "h2.pcap");
    let recs = records(&r.pcaps[0].1);
    // host 2 receives every data segment that was not dropped and sends one ACK each
    let segs: u64 = col_u64(&r, "flows", "segments_sent").iter().sum::<u64>()
        - col_u64(&r, "flows", "drops").iter().sum::<u64>();
    let acks: u64 = col_u64(&r, "flows", "acks_sent").iter().sum();
    assert_eq!(recs.len() as u64, segs + acks);
    assert!(
        recs.windows(2).all(|w| w[0].0 <= w[1].0),
        "records in time order"
    );
    let mut ce = 0;
    for (_, cap, orig, pkt) in &recs {
        assert_eq!(pkt[0], 0x45, "IPv4");
        assert_eq!(pkt[9], 6, "TCP");
        assert_eq!(u16::from_be_bytes([pkt[2], pkt[3]]) as usize, *orig);
        assert!(cap <= orig);
        if pkt[1] & 3 == 3 {
            ce += 1;
        }
    }
    let marks: u64 = col_u64(&r, "flows", "ecn_marks").iter().sum();
    assert_eq!(
        ce, marks,
        "CE-marked packets in the trace = marks counted by receivers"
    );
    assert!(marks > 0);
}
