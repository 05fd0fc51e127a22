//! pcap traces that Wireshark and tcpdump open.
//!
//! A capture point sits on a host's interface, as tcpdump does: outgoing
//! packets are recorded when the host hands them to its NIC, incoming ones
//! when they arrive. Packets are synthesized as IPv4 + TCP/UDP headers
//! (LINKTYPE_RAW, nanosecond timestamps) with the payload left out
//! (`orig_len` carries the real length). Host h is 10.0.0.0 + h + 1; a TCP
//! flow's data goes from port 1024 + flow % 60000 to port 5001 + flow / 60000.
//! Sequence numbers are relative (ISN 0). ECN uses the IP ECN field and the
//! TCP ECE/CWR flags; Kulkarni's probabilistic-retransmission mark sets the
//! first reserved TCP header bit, which Wireshark shows as "Reserved".
//!
//! A data packet a switch trimmed to its header (NDP, `[trimming]`) is
//! recorded as what the wire carried: its headers, no payload (IP total
//! length and `orig_len` without it), with the second reserved TCP bit set;
//! an NDP NACK (the answer to a trimmed header) carries that bit too. NDP's
//! PULL rides in bits TCP uses for ECN (ECE, and CWR for a bounced header):
//! on an NDP packet they are not written as ECE/CWR, a PULL sets the third
//! reserved bit instead (its pull number is the IP ID, as a data packet's
//! transmission number is).

use crate::net::{flags, Packet, PktKind};
use crate::sim::time::SimTime;

/// LINKTYPE_RAW: the packet begins with an IPv4 header.
const LINKTYPE_RAW: u32 = 101;
/// Magic of the nanosecond-resolution pcap format.
const MAGIC_NS: u32 = 0xa1b2_3c4d;

/// The size of each buffer after the first: records go into buffers of
/// this size, never one that doubles, so what a capture holds grows by
/// at most this much at once and the run-time memory guard (which counts
/// it) can stop a long capture in time, as it does the rest of a run.
pub const CHUNK: usize = 1 << 20;

pub struct Capture {
    /// Host index this capture belongs to.
    pub host: u32,
    /// The file: its header and records, in buffers of [`CHUNK`] bytes
    /// after the first; a record never straddles two.
    chunks: Vec<Vec<u8>>,
    pub packets: u64,
    /// Where the last record starts in the last buffer
    /// ([`Self::take_back_last`]).
    last: usize,
}

impl Capture {
    /// Heap bytes of the records held (the buffers' capacities).
    pub fn heap_bytes(&self) -> usize {
        self.chunks.iter().map(Vec::capacity).sum::<usize>()
            + self.chunks.capacity() * std::mem::size_of::<Vec<u8>>()
    }

    /// The pcap file's length in bytes.
    pub fn len(&self) -> usize {
        self.chunks.iter().map(Vec::len).sum()
    }

    /// Whether the file holds nothing (never: it has its header).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The pcap file, header and records, in one buffer.
    pub fn bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len());
        for c in &self.chunks {
            out.extend_from_slice(c);
        }
        out
    }

    pub fn new(host: u32) -> Self {
        let mut bytes = Vec::with_capacity(1 << 16);
        bytes.extend_from_slice(&MAGIC_NS.to_le_bytes());
        bytes.extend_from_slice(&2u16.to_le_bytes()); // version 2.4
        bytes.extend_from_slice(&4u16.to_le_bytes());
        bytes.extend_from_slice(&0i32.to_le_bytes()); // thiszone
        bytes.extend_from_slice(&0u32.to_le_bytes()); // sigfigs
        bytes.extend_from_slice(&65535u32.to_le_bytes()); // snaplen
        bytes.extend_from_slice(&LINKTYPE_RAW.to_le_bytes());
        let last = bytes.len();
        Capture {
            host,
            chunks: vec![bytes],
            packets: 0,
            last,
        }
    }

    pub fn record(&mut self, now: SimTime, p: &Packet) {
        let mut hdr = [0u8; 20 + 60];
        let (ip_len, l4_len) = synthesize(p, &mut hdr);
        let caplen = 20 + l4_len;
        let ns = now.0 / 1000;
        let need = 16 + caplen;
        let full = self
            .chunks
            .last()
            .is_none_or(|c| c.len() + need > c.capacity());
        if full {
            self.chunks.push(Vec::with_capacity(CHUNK));
        }
        let buf = self.chunks.last_mut().expect("a buffer was just made");
        self.last = buf.len();
        buf.extend_from_slice(&((ns / 1_000_000_000) as u32).to_le_bytes());
        buf.extend_from_slice(&((ns % 1_000_000_000) as u32).to_le_bytes());
        buf.extend_from_slice(&(caplen as u32).to_le_bytes());
        buf.extend_from_slice(&(ip_len as u32).to_le_bytes());
        buf.extend_from_slice(&hdr[..caplen]);
        self.packets += 1;
    }

    /// Remove the record just made (a packet its host's NIC queue then
    /// dropped): called at most once after each [`Self::record`].
    pub fn take_back_last(&mut self) {
        let buf = self.chunks.last_mut().expect("a capture has a buffer");
        debug_assert!(self.packets > 0 && self.last < buf.len());
        buf.truncate(self.last);
        self.packets -= 1;
    }
}

/// IPv4 address of host `h`.
pub fn host_ip(h: u32) -> [u8; 4] {
    (0x0a00_0000u32 + h + 1).to_be_bytes()
}

/// The TCP ports of flow `flow`'s data direction.
pub fn flow_ports(flow: u32) -> (u16, u16) {
    ((1024 + flow % 60000) as u16, (5001 + flow / 60000) as u16)
}

/// Write IPv4 + L4 headers into `out`; returns (IP total length, L4 header length).
fn synthesize(p: &Packet, out: &mut [u8]) -> (usize, usize) {
    let (data_port, server_port) = flow_ports(p.flow);
    let (sport, dport) = match p.kind {
        PktKind::Data | PktKind::Udp => (data_port, server_port),
        PktKind::Ack => (server_port, data_port),
    };
    let l4 = &mut out[20..];
    let (proto, l4_len) = match p.kind {
        PktKind::Udp => {
            l4[0..2].copy_from_slice(&sport.to_be_bytes());
            l4[2..4].copy_from_slice(&dport.to_be_bytes());
            // a datagram above 64 KiB has no length UDP can say: the
            // field saturates as the IP total length does
            l4[4..6].copy_from_slice(&((8 + p.payload as usize).min(65535) as u16).to_be_bytes());
            (17u8, 8usize)
        }
        PktKind::Data | PktKind::Ack => {
            let (seq, ack) = match p.kind {
                PktKind::Data => (p.seq as u32, 1u32),
                _ => (1u32, p.seq as u32),
            };
            l4[0..2].copy_from_slice(&sport.to_be_bytes());
            l4[2..4].copy_from_slice(&dport.to_be_bytes());
            l4[4..8].copy_from_slice(&seq.to_be_bytes());
            l4[8..12].copy_from_slice(&ack.to_be_bytes());
            // Options: NOP NOP timestamps (10), then SACK blocks.
            let mut opt = 20;
            l4[opt] = 1;
            l4[opt + 1] = 1;
            l4[opt + 2] = 8;
            l4[opt + 3] = 10;
            let ts_us = (p.ts.0 / 1_000_000) as u32;
            let (tsval, tsecr) = match p.kind {
                PktKind::Data => (ts_us, 0),
                _ => (0, ts_us),
            };
            l4[opt + 4..opt + 8].copy_from_slice(&tsval.to_be_bytes());
            l4[opt + 8..opt + 12].copy_from_slice(&tsecr.to_be_bytes());
            opt += 12;
            if p.nsack > 0 {
                l4[opt] = 1;
                l4[opt + 1] = 1;
                l4[opt + 2] = 5;
                l4[opt + 3] = 2 + 8 * p.nsack;
                opt += 4;
                for &(l, r) in &p.sack[..p.nsack as usize] {
                    l4[opt..opt + 4].copy_from_slice(&(l as u32).to_be_bytes());
                    l4[opt + 4..opt + 8].copy_from_slice(&(r as u32).to_be_bytes());
                    opt += 8;
                }
            }
            let doff = (opt / 4) as u8;
            let ndp = p.flags & flags::NDP != 0;
            // Data offset, then the three reserved bits: the mark, trimmed
            // (or an NDP NACK), an NDP PULL.
            let mut reserved = 0u8;
            if p.flags & flags::MARKED != 0 {
                reserved |= 0x08;
            }
            if p.flags & flags::TRIMMED != 0 {
                reserved |= 0x04;
            }
            if ndp && p.flags & flags::PULL != 0 {
                reserved |= 0x02;
            }
            l4[12] = doff << 4 | reserved;
            let mut f = 0x10u8; // ACK
            if p.kind == PktKind::Data && wire_payload(p) > 0 {
                f |= 0x08; // PSH
            }
            if !ndp && p.flags & flags::ECE != 0 {
                f |= 0x40;
            }
            if !ndp && p.flags & flags::CWR != 0 {
                f |= 0x80;
            }
            l4[13] = f;
            l4[14..16].copy_from_slice(&65535u16.to_be_bytes());
            (6u8, opt)
        }
    };
    let ip_len = 20 + l4_len + wire_payload(p) as usize;
    let ip = &mut out[..20];
    ip[0] = 0x45;
    ip[1] = match (p.flags & flags::ECT != 0, p.flags & flags::CE != 0) {
        (_, true) => 0b11,
        (true, false) => 0b10,
        _ => 0,
    };
    ip[2..4].copy_from_slice(&(ip_len.min(65535) as u16).to_be_bytes());
    ip[4..6].copy_from_slice(&(p.txn as u16).to_be_bytes());
    ip[6] = 0x40; // DF
    ip[8] = 64;
    ip[9] = proto;
    let (src, dst) = (host_ip(p.src), host_ip(p.dst));
    ip[12..16].copy_from_slice(&src);
    ip[16..20].copy_from_slice(&dst);
    let sum = checksum(ip);
    ip[10..12].copy_from_slice(&sum.to_be_bytes());
    (ip_len, l4_len)
}

/// The payload bytes the wire carried: none for a data packet trimmed to
/// its header.
fn wire_payload(p: &Packet) -> u32 {
    if p.kind == PktKind::Data && p.flags & flags::TRIMMED != 0 {
        0
    } else {
        p.payload
    }
}

fn checksum(h: &[u8]) -> u16 {
    let mut s: u32 = h
        .chunks(2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]) as u32)
        .sum();
    while s > 0xffff {
        s = (s & 0xffff) + (s >> 16);
    }
    !(s as u16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ip_header_checksum_verifies() {
        let p = Packet {
            kind: PktKind::Data,
            payload: 1000,
            flags: flags::ECT | flags::CE,
            ..Packet::EMPTY
        };
        let mut buf = [0u8; 80];
        let (ip_len, l4) = synthesize(&p, &mut buf);
        assert_eq!(ip_len, 20 + l4 + 1000);
        // a header with a correct checksum sums to 0xffff
        assert_eq!(checksum(&buf[..20]), 0);
        assert_eq!(buf[1] & 3, 3, "CE in the IP ECN field");
    }

    #[test]
    fn a_trimmed_header_is_recorded_without_its_payload() {
        let full = Packet {
            kind: PktKind::Data,
            payload: 9000,
            ..Packet::EMPTY
        };
        let trimmed = Packet {
            flags: flags::TRIMMED,
            ..full
        };
        let mut buf = [0u8; 80];
        let (full_len, l4) = synthesize(&full, &mut buf);
        assert_eq!(full_len, 20 + l4 + 9000);
        let (len, l4) = synthesize(&trimmed, &mut buf);
        assert_eq!(len, 20 + l4, "the wire carried the headers alone");
        assert_eq!(u16::from_be_bytes([buf[2], buf[3]]) as usize, len);
        assert_eq!(buf[20 + 12] & 0x0e, 0x04, "the trimmed bit");
        assert_eq!(buf[20 + 13] & 0x08, 0, "no PSH without a payload");
    }

    #[test]
    fn an_ndp_pull_is_not_an_ecn_echo() {
        let pull = Packet {
            kind: PktKind::Ack,
            flags: flags::NDP | flags::PULL,
            ..Packet::EMPTY
        };
        let mut buf = [0u8; 80];
        synthesize(&pull, &mut buf);
        assert_eq!(buf[20 + 13] & 0xc0, 0, "neither ECE nor CWR");
        assert_eq!(buf[20 + 12] & 0x0e, 0x02, "the PULL bit");
        // a TCP ACK's ECE is still ECE
        let ece = Packet {
            kind: PktKind::Ack,
            flags: flags::ECE,
            ..Packet::EMPTY
        };
        synthesize(&ece, &mut buf);
        assert_eq!(buf[20 + 13] & 0x40, 0x40);
        assert_eq!(buf[20 + 12] & 0x0e, 0);
    }

    #[test]
    fn a_udp_length_above_64_kib_saturates() {
        let p = Packet {
            kind: PktKind::Udp,
            payload: 70_000,
            ..Packet::EMPTY
        };
        let mut buf = [0u8; 80];
        synthesize(&p, &mut buf);
        assert_eq!(u16::from_be_bytes([buf[24], buf[25]]), 65535);
    }

    #[test]
    fn marked_segment_sets_a_reserved_bit() {
        let p = Packet {
            kind: PktKind::Data,
            payload: 10,
            flags: flags::MARKED,
            ..Packet::EMPTY
        };
        let mut buf = [0u8; 80];
        synthesize(&p, &mut buf);
        assert_eq!(buf[20 + 12] & 0x0e, 0x08);
    }
}
