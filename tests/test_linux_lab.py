"""validation/linux_lab without root: the argument handling, the dcnsim
half (a custom star of the lab's shape), the flag rule and the table. The
kernel half needs root and network namespaces and never runs here."""

from __future__ import annotations

import json
from pathlib import Path

import dcnsim
import pytest
from conftest import load_module, needs_core

REPO = Path(__file__).resolve().parents[1]
LAB = REPO / "validation" / "linux_lab"


run = load_module("linux_lab_run", LAB / "run.py")


def _error(capsys, argv):
    with pytest.raises(SystemExit) as e:
        run.parse_args(argv)
    assert e.value.code == 2
    return capsys.readouterr().err


def test_bad_arguments_name_the_option(capsys):
    assert "--n: 1 to 32 servers, got [0, 33]" in _error(capsys, ["--n", "1", "0", "33"])
    assert "--blocks" in _error(capsys, ["--blocks", "0"])
    assert "rto" in _error(capsys, ["--rto-min", "soon"]).lower()
    assert "is not positive" in _error(capsys, ["--rto-min", "0ms"])
    a = run.parse_args(["--size", "256KB", "--rto-min", "10ms"])
    assert a.size_bytes == 262144 and a.rto_min == ["10ms"]


def test_a_lab_interrupted_while_it_is_built_is_torn_down(monkeypatch):
    """A Ctrl-C or a refused sysctl while `Lab()` builds the lab: the
    caller never gets a Lab to close, so the lab closes itself (11 of its
    namespaces were left behind). The building is stood in for: no root
    or kernel needed."""
    removed = []
    monkeypatch.setattr(run.lab, "down", lambda: removed.append("down") or [])
    for error in (KeyboardInterrupt(), RuntimeError("sysctl: cannot stat")):
        def up(cfg, error=error):
            raise error
        monkeypatch.setattr(run.lab, "up", up)
        removed.clear()
        with pytest.raises(type(error)):
            run.Lab(run.lab.LabConfig(2))
        assert removed == ["down"], error


def test_a_missing_chrt_is_named_before_the_lab_is_built(monkeypatch, tmp_path):
    """The servers run under chrt (SCHED_FIFO): without it the first
    server's exec failed after the lab was built; now run.py names it, and
    --no-realtime, before building anything."""
    import shutil

    real = shutil.which
    monkeypatch.setattr(shutil, "which", lambda t: None if t == "chrt" else real(t))
    monkeypatch.setattr(run.lab, "require_tools", lambda: None)
    built = []
    monkeypatch.setattr(run.lab, "up", lambda cfg: built.append(cfg))
    with pytest.raises(SystemExit, match="chrt .*--no-realtime"):
        run.main(["--only", "kernel", "--n", "2", "--blocks", "1", "--json", str(tmp_path / "r.json")])
    assert built == []


def test_removing_a_lab_needs_only_ip_and_root(monkeypatch):
    """`--down` was refused where ethtool, tc or nstat was missing, though
    removing namespaces needs only `ip`."""
    import shutil

    monkeypatch.setattr(shutil, "which", lambda t: "/usr/sbin/ip" if t == "ip" else None)
    monkeypatch.setattr(run.lab.os, "geteuid", lambda: 0)
    run.lab.require_down_tools()
    with pytest.raises(SystemExit, match="needs tc, ethtool, nstat"):
        run.lab.require_tools()


def test_route_times_are_what_iproute2_reads():
    assert run.tc_time("200ms") == "200ms"
    assert run.tc_time("0.01s") == "10ms"
    assert run.tc_time("2500us") == "2500us"


def test_every_lab_interface_sends_one_segment_per_packet_unless_gso_is_asked(monkeypatch):
    """TCP builds multi-segment GSO packets whatever ethtool says, and its
    deferral sends them back to back: the lab caps GSO at one segment on
    both ends of every veth, and only --gso leaves the kernel's default."""
    lab = run.lab
    for gso in (False, True):
        calls = []
        monkeypatch.setattr(lab, "sh", lambda cmd, ns=None, check=True, calls=calls: calls.append((ns, cmd)))
        lab.host("dl45-s1", lab.server_ip(1), "p1", "1gbit", lab.LabConfig(1, gso=gso))
        capped = {(ns, cmd[4]) for ns, cmd in calls if cmd[:3] == ["ip", "link", "set"] and "gso_max_segs" in cmd
                  and cmd[cmd.index("gso_max_segs") + 1] == "1"}
        offloaded = {(ns, cmd[2]) for ns, cmd in calls if cmd[:2] == ["ethtool", "-K"]}
        assert offloaded == {("dl45-s1", "eth0"), (lab.SWITCH, "p1")}
        assert capped == (set() if gso else offloaded)
    assert run.parse_args(["--gso"]).gso and not run.parse_args([]).gso


def test_the_dcnsim_scenario_has_the_lab_s_shape():
    doc = run.dcnsim_scenario(4, "reno", False, "10ms", 3, 262144, bottleneck="100Mbps", buffer=32,
                              server_rate="1Gbps", nic_buffer=1000, delay_us=4, delayed_ack=False)
    topo = doc["topology"]
    hosts = [n["name"] for n in topo["nodes"] if n["kind"] == "host"]
    assert hosts == ["c", "s1", "s2", "s3", "s4"]  # the client is host 0
    client = [lk for lk in topo["links"] if "c" in (lk["a"], lk["b"])]
    assert client == [{"a": "c", "b": "sw", "rate": "100Mbps", "delay": "4us", "buffer": "32pkt"}]
    assert all(lk["rate"] == "1Gbps" for lk in topo["links"] if lk not in client)
    assert doc["tcp"] == {"profile": "linux", "cc": "newreno", "sack": False, "rto_min": "10ms",
                          "delayed_ack": False}
    assert doc["l2_overhead"] == 14  # the Ethernet header htb counts
    app = doc["apps"][0]
    assert app["kind"] == "sync_reads" and app["servers"] == "1-4" and app["sru"] == "262144B"
    assert app["request"] == "9B"  # incast.py's request
    q = run.dcnsim_scenario(2, "cubic", True, "200ms", 3, 10000, bottleneck="100Mbps", buffer=32,
                            server_rate="1Gbps", nic_buffer=1000, delay_us=4, delayed_ack=True, gap="10ms")
    assert q["apps"][0]["kind"] == "partition_aggregate" and q["apps"][0]["gap"] == "10ms"
    # BBR runs on both sides (docs/bbr.md): the kernel's name is dcnsim's.
    b = run.dcnsim_scenario(1, "bbr", True, "200ms", 1, 1000, bottleneck="100Mbps", buffer=32,
                            server_rate="1Gbps", nic_buffer=1000, delay_us=4, delayed_ack=False)
    assert b["tcp"]["cc"] == "bbr" and b["tcp"]["profile"] == "linux"


def _row(goodput, drops):
    return {"goodput_mbps": goodput, "drops": drops}


def test_flag_marks_the_issue_s_bounds_in_both_directions():
    assert run.flag(_row(100, 10), _row(86, 10)) == ""  # 14 % apart
    assert run.flag(_row(100, 10), _row(84, 10)) == "*"
    assert run.flag(_row(80, 10), _row(93, 10)) == "*"  # 16 % above
    assert run.flag(_row(90, 10), _row(90, 15)) == ""  # 1.5× exactly
    assert run.flag(_row(90, 10), _row(90, 16)) == "*"
    assert run.flag(_row(90, 16), _row(90, 10)) == "*"
    assert run.flag(_row(90, 0.4), _row(90, 0)) == ""  # under one drop per block
    assert run.flag(_row(90, 1.0), _row(90, 0)) == "*"
    # one side only: nothing compared, and said so (it read as agreeing)
    assert run.flag(None, _row(90, 1)) == "?" and run.flag(None, None) == ""
    # timeouts and the request flows' timeouts by the drops' bound: 0
    # against 5 a block went unflagged (audit 35)
    assert run.flag({**_row(90, 10), "request_timeouts": 0.0}, {**_row(90, 10), "request_timeouts": 5.05}) == "*"
    assert run.flag({**_row(90, 10), "timeouts": 10.0}, {**_row(90, 10), "timeouts": 14.0}) == ""
    assert run.flag({**_row(90, 10), "timeouts": 10.0}, {**_row(90, 10), "timeouts": 16.0}) == "*"
    assert run.flag({**_row(90, 10), "timeouts": 0.5}, {**_row(90, 10), "timeouts": 0.0}) == ""


def test_table_rows_line_up_with_the_header_and_show_a_missing_side():
    pt = {"cc": "bbr", "sack": True, "rto_min": "200ms", "n": 8}
    kernel = {k: 1.0 for k, _, _ in run.COLS}
    for markdown in (True, False):
        head = run.header(markdown)[0]
        line = run.format_row(pt, kernel, None, markdown)
        if markdown:
            assert line.count("|") == head.count("|")
        else:
            # right-aligned cells end where their headings end
            assert len(line.rstrip()) == len(head)
            # the flag column says the missing side: "?"
            assert len(line.split()) == 4 + 2 * len(run.COLS) + 1 and line.split()[-1] == "?"
        assert line.count("—") == len(run.COLS)


@needs_core
def test_the_dcnsim_half_of_a_lone_flow_obeys_line_rate_and_repairs_every_drop(tmp_path, capsys):
    out = tmp_path / "lab.json"
    assert run.main(["--only", "dcnsim", "--cc", "reno", "cubic", "--sack", "1", "0", "--rto-min", "200ms",
                     "--n", "1", "--blocks", "3", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert len(rows) == 4 and all(r["kernel"] is None for r in rows)
    # payload's share of each 1514-byte frame at 100 Mbit/s
    line = 100 * 1448 / (1448 + 52 + 14)
    for r in rows:
        s = r["dcnsim"]
        assert 0 < s["goodput_mbps"] <= line
        # a lone flow's drops are its own data segments: each is resent
        assert s["retrans"] >= s["drops"]
        # the client's share of the timeouts and probes is a part of them
        assert 0 <= s["request_timeouts"] <= s["timeouts"] and 0 <= s["request_tlps"] <= s["tlps"]
    printed = capsys.readouterr().out
    assert printed.count("\n  reno") + printed.count("\n cubic") == 4


@needs_core
def test_the_dcnsim_half_runs_again_beside_a_saved_kernel_half(tmp_path, capsys):
    """--kernel-from: the kernel's numbers come from the file unchanged, and
    dcnsim's per-link delay from the base RTT measured there (a quarter)."""
    saved = tmp_path / "kernel.json"
    kernel = {"goodput_mbps": 94.0, "timeouts": 0.0, "request_timeouts": 0.0, "drops": 1.0, "retrans": 1.0,
              "recoveries": 0.5, "tlps": 0.0, "blocks": 3, "base_rtt_us": 24}
    saved.write_text(json.dumps({"meta": {"date": "then", "commit": "abc"},
                                 "rows": [{"cc": "reno", "sack": False, "rto_min": "200ms", "n": 1,
                                           "kernel": kernel, "dcnsim": None}]}))
    out = tmp_path / "again.json"
    assert run.main(["--kernel-from", str(saved), "--cc", "reno", "--sack", "0", "--rto-min", "200ms",
                     "--n", "1", "2", "--blocks", "3", "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    one, two = doc["rows"]
    assert one["kernel"] == kernel and two["kernel"] is None
    assert one["dcnsim"]["delay_us"] == 6 and two["dcnsim"]["delay_us"] == run.DEFAULT_DELAY_US
    assert doc["meta"]["kernel_from"]["commit"] == "abc"
    # the point the file lacks is said, with the delay it ran at
    err = capsys.readouterr().err
    assert f"1 of the 2 points asked are not in {saved}; they run dcnsim alone, at the default per-link " \
           f"delay of {run.DEFAULT_DELAY_US} us" in err and "reno sack 0 200ms n=2" in err, err
    # a file of another number of blocks, or not a run's file, is named
    assert "ran [3] blocks per point; pass --blocks 3" in _error(
        capsys, ["--kernel-from", str(saved), "--blocks", "50"])
    junk = tmp_path / "junk.json"
    junk.write_text("[]")
    assert "--kernel-from: " in _error(capsys, ["--kernel-from", str(junk)])
    assert "--only has nothing to choose" in _error(capsys, ["--kernel-from", str(saved), "--only", "dcnsim"])


def test_the_dcnsim_half_ticks_at_the_kernel_s_hz(tmp_path, monkeypatch):
    """dcnsim's linux profile counts in jiffies (`tcp.hz`): the lab runs it at
    the kernel's CONFIG_HZ, read from /boot/config-RELEASE, recorded in the
    --json meta; --kernel-from takes the file's; `--tcp hz=N` wins."""
    boot = tmp_path / "boot"
    boot.mkdir()
    (boot / "config-6.1.0-lab").write_text("CONFIG_HZ_1000=y\nCONFIG_HZ=1000\n")
    assert run.kernel_hz("6.1.0-lab", boot=boot) == 1000
    assert run.kernel_hz("no-such-release", boot=boot) is None
    monkeypatch.setattr(run, "kernel_hz", lambda release=None, boot=None: {None: 300}.get(release))
    saved = tmp_path / "kernel.json"
    saved.write_text(json.dumps({"meta": {"hz": 100}, "rows": []}))

    def hz(argv):
        return run.dcnsim_hz(run.argparse.Namespace(**{"kernel_from": None, "tcp_over": {}, **argv}))

    assert hz({}) == 300
    assert hz({"kernel_from": saved}) == 100
    assert hz({"kernel_from": saved, "tcp_over": {"hz": 1000}}) == 1000
    # the scenario carries it, under any --tcp override
    a = run.parse_args(["--n", "2", "--tcp", "sack=true"])
    a.hz = 1000
    doc = run.sim_doc(a, {"n": 2, "cc": "cubic", "sack": True, "rto_min": "200ms"}, 6.0)
    assert doc["tcp"]["hz"] == 1000 and doc["tcp"]["sack"] is True


# ---- trace.py: one server's pcap read block by block -------------------------

trace = load_module("linux_lab_trace", LAB / "trace.py")


def _pcap(packets):
    """A nanosecond LINKTYPE_RAW pcap of IPv4/TCP packets (t, src, dst, sport, dport, seq, ack, len)."""
    import struct
    out = [struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 101)]
    for t, src, dst, sport, dport, seq, ack, n in packets:
        tcp = struct.pack(">HHIIBBHHH", sport, dport, seq, ack, 5 << 4, 0x10, 65535, 0, 0)
        ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + 20 + n, 0, 0, 64, 6, 0, bytes([10, 0, 0, src]),
                         bytes([10, 0, 0, dst]))
        pkt = ip + tcp + b"\0" * n
        sec, ns = int(t), round((t - int(t)) * 1e9)
        out.append(struct.pack("<IIII", sec, ns, len(pkt), len(pkt)) + pkt)
    return b"".join(out)


def test_trace_a_request_resent_by_its_timer_opens_no_block():
    """dcnsim carries requests on a flow of their own whose timer may resend
    one (E): the resend is the same request, not a new block. Two blocks of
    four segments; the first block's request is resent 200 ms in, and its
    last segment is resent by the timer 300 ms in, after the server sent
    nothing (a stall of every server, this being the only one)."""
    mss, req = 1448, trace.REQUEST
    server, client = 2, 1
    data = lambda t, k: (t, server, client, 5000, 6000, 1 + k * mss, 1, mss)  # noqa: E731
    request = lambda t, seq: (t, client, server, 7000, 5001, seq, 1, req)  # noqa: E731
    ack = lambda t, k: (t, client, server, 6000, 5000, 1, 1 + k * mss, 0)  # noqa: E731
    pk = [ack(0.0, 0), request(0.0001, 100)]       # the connection is open before the first request
    pk += [data(0.001 + 0.0001 * k, k) for k in range(4)]
    pk += [ack(0.0012, 1), ack(0.0013, 2), ack(0.0014, 3)]
    pk += [request(0.2, 100)]                      # the same request again (its flow's timer)
    pk += [data(0.3, 3), ack(0.3002, 4)]           # the tail resent by the server's timer
    pk += [request(0.31, 100 + req)]               # the next block's request
    pk += [data(0.311 + 0.0001 * k, 4 + k) for k in range(4)]
    pk += [ack(0.312, 8)]
    blocks = trace.blocks_of(_pcap(pk), mss, 0.2)
    assert [b["segs"] for b in blocks] == [5, 4], "the resent request cut the first block in two"
    (r,) = blocks[0]["retx"]
    assert r["timer"] and r["pos"] == 3 and r["from_end"] == 1
    s = trace.summary([blocks])
    assert (s["tail_timeouts"], s["other_timeouts"]) == (1, 0)
    # no segment from 0.0013 to 0.3 and none from 0.3 to 0.311: one stall, over 2 blocks
    assert s["stalled_per_block"] == pytest.approx((0.3 - 0.0013 + 0.011) / 2)


def test_trace_counts_what_each_ack_releases():
    """The per-ACK count that found mechanism C: a sender clocked by its
    ACKs sends one segment per ACK of new data; a sender that batches (GSO)
    sends nothing on some ACKs and several on others, though the gaps
    between ACKs are the same."""
    mss, req = 1448, trace.REQUEST
    server, client = 2, 1

    def run(pattern):
        pk = [(0.0, client, server, 6000, 5000, 1, 1, 0), (0.0001, client, server, 7000, 5001, 100, 1, req)]
        t, sent, acked = 0.001, 0, 0
        for _ in range(2):
            pk.append((t, server, client, 5000, 6000, 1 + sent * mss, 1, mss))
            t, sent = t + 1e-5, sent + 1
        for k in pattern:
            acked, t = acked + 1, t + 1.21e-4  # one ACK per 121 us, each of one segment
            pk.append((t, client, server, 6000, 5000, 1, 1 + acked * mss, 0))
            for _ in range(k):
                t, sent = t + 1e-6, sent + 1
                pk.append((t, server, client, 5000, 6000, 1 + (sent - 1) * mss, 1, mss))
        return trace.summary([trace.blocks_of(_pcap(pk), mss, 0.2)])

    clocked = run([1] * 100)
    assert clocked["acks_released_none"] == 0 and clocked["acks_released_several"] == 0
    batched = run([1] * 40 + [0, 0, 3] * 20)
    assert batched["acks_released_none"] == pytest.approx(2 / 3)
    assert batched["acks_released_several"] == pytest.approx(1 / 3)
    assert batched["burst_share"] > clocked["burst_share"] == 0


def test_trace_measures_how_far_apart_the_servers_start_a_block():
    """The spread of the servers' first data segments of a block, from one
    clock: three servers answering 0, 300 and 900 us after one another in
    the first block and 0, 100, 200 in the second spread 900 and 200 us
    (the median of the blocks: 550)."""
    mss, req = 1448, trace.REQUEST
    client = 1

    def server(addr, starts):
        pk = [(0.0, client, addr, 6000 + addr, 5000, 1, 1, 0)]
        for k, start in enumerate(starts):
            pk.append((start - 5e-5, client, addr, 7000 + addr, 5001, 100 + k * req, 1, req))
            pk.append((start, addr, client, 5000, 6000 + addr, 1 + k * mss, 1, mss))
            pk.append((start + 2e-4, client, addr, 6000 + addr, 5000, 1, 1 + (k + 1) * mss, 0))
        return trace.blocks_of(_pcap(pk), mss, 0.2)

    flows = [server(2, [0.010, 0.050]), server(3, [0.0103, 0.0501]), server(4, [0.0109, 0.0502])]
    assert trace.summary(flows)["start_spread_us"] == pytest.approx(550, abs=1e-3)
    assert trace.summary(flows[:1])["start_spread_us"] == 0  # one server: nothing to spread


def test_kernel_sysctls_are_checked_and_set_in_every_namespace(monkeypatch, capsys):
    """--sysctl switches a kernel mechanism off to see whether it is what
    parts the two sides: only per-namespace network keys, never the lab's
    own, and each host namespace gets them with the lab's."""
    lab = run.lab
    assert lab.parse_sysctls(["net.ipv4.tcp_frto=0", "net.ipv4.tcp_slow_start_after_idle=0"]) == {
        "net.ipv4.tcp_frto": "0", "net.ipv4.tcp_slow_start_after_idle": "0"}
    assert "expected KEY=VALUE" in _error(capsys, ["--sysctl", "net.ipv4.tcp_frto"])
    assert "not a per-namespace network sysctl" in _error(capsys, ["--sysctl", "kernel.hz=100"])
    assert "use --sack" in _error(capsys, ["--sysctl", "net.ipv4.tcp_sack=0"])
    assert run.parse_args(["--sysctl", "net.ipv4.tcp_frto=0"]).sysctls == {"net.ipv4.tcp_frto": "0"}
    calls = []
    monkeypatch.setattr(lab, "sh", lambda cmd, ns=None, check=True: calls.append((ns, cmd)))
    lab.host("dl45-s1", lab.server_ip(1), "p1", "1gbit",
             lab.LabConfig(1, sack=False, extra_sysctls={"net.ipv4.tcp_frto": "0"}))
    (cmd,) = [c for ns, c in calls if c[0] == "sysctl" and ns == "dl45-s1"]
    assert "net.ipv4.tcp_sack=0" in cmd and "net.ipv4.tcp_frto=0" in cmd


@needs_core
@pytest.mark.parametrize("rack_in_loss", [True, False])
def test_after_a_timeout_no_server_sends_its_block_past_a_hole(rack_in_loss):
    """The lab's n = 32 incast with SACK (reno, RTOmin 200 ms, 6 blocks),
    read from dcnsim's pcaps as trace.py reads the kernel's: under the linux
    profile no server's largest flight in a block (highest segment sent less
    the highest cumulative ACK) exceeds what the port holds plus an initial
    window, 42 segments (the kernel's: 24 at most, docs/linux_profile.md
    mechanism J). Without RACK after the timeout (rack_in_loss = false) a
    resend lost again waits for the next timeout while the flow sends on,
    one segment per SACK, up to the whole block (181 segments)."""
    doc = run.dcnsim_scenario(32, "reno", True, "200ms", 6, 262144, bottleneck="100Mbps", buffer=32,
                              server_rate="1Gbps", nic_buffer=1000, delay_us=4, delayed_ack=False,
                              tcp_over={"rack_in_loss": rack_in_loss})
    doc["pcap"] = {"hosts": "1-32"}
    r = dcnsim.run(doc)
    flights = [b["max_flight"] for i in range(1, 33) for b in trace.blocks_of(r.pcaps[f"h{i}.pcap"], 1448, 0.2)]
    assert len(flights) == 32 * 6
    if rack_in_loss:
        assert max(flights) <= 32 + 10, max(flights)
    else:
        assert max(flights) > 32 + 10


def test_incast_servers_told_a_start_instant_send_from_it_on_loopback():
    """incast.py without root, over loopback: with --sync-start the client
    tells every server one instant (a T request before the D) and times the
    block from it. A server that sent at once would deliver its share before
    that instant (a negative duration); the 20 ms wait itself is not timed."""
    import socket
    import subprocess
    import sys
    import time

    incast = load_module("linux_lab_incast", LAB / "incast.py")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, str(LAB / "incast.py"), "serve", "--port", str(port)])
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        res = incast.run_client(["127.0.0.1"], port, "reno", blocks=3, size=10000, gap=0.0, probes=0,
                                timeout=30.0, sync_start=0.02)
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert len(res["durations_s"]) == 3
    assert all(0 < d < 0.02 for d in res["durations_s"]), res["durations_s"]


@needs_core
def test_the_txrehash_lab_dcnsim_half_draws_one_ack_label_per_timeout(capsys):
    """txrehash.py's dcnsim half (no root): the ACKs lost for 0.3 s, the
    sender times out and moves at each timeout, and the receiver moves its
    ACKs once per retransmission that came on a new label, never for the
    duplicate after the blackout on the last label: the kernel's counts
    (4 timeouts, 4 + 4 labels, 5 duplicates) follow the same rule."""
    import argparse

    tx = load_module("linux_lab_txrehash", LAB / "txrehash.py")
    args = argparse.Namespace(rto_min="10ms", at=0.3, blackout=0.3, bytes=1_200_000, chunk=20_000, gap=0.01)
    d = tx.dcnsim_half(args)
    assert d["timeouts"] >= 3
    assert d["ACK labels drawn"] == d["timeouts"]
    assert d["duplicate segments received"] == d["timeouts"] + 1
    assert tx.main(["--only", "dcnsim"]) == 0
    assert "ACK labels drawn" in capsys.readouterr().out


def test_a_root_without_the_capabilities_is_told_which(tmp_path, monkeypatch):
    """Root in a container started without CAP_NET_ADMIN or CAP_SYS_ADMIN
    passes the root check, and `ip netns add` then failed in a traceback;
    the lab names what is missing before building anything."""
    status = tmp_path / "status"
    # every capability but CAP_NET_ADMIN (bit 12)
    status.write_text("Name:\tpython\nCapEff:\t%016x\n" % ((1 << 41) - 1 & ~(1 << 12)))
    assert run.lab.missing_capabilities(str(status)) == ["CAP_NET_ADMIN"]
    status.write_text("CapEff:\t%016x\n" % ((1 << 41) - 1))
    assert run.lab.missing_capabilities(str(status)) == []
    # unreadable: the commands say what fails
    assert run.lab.missing_capabilities(str(tmp_path / "none")) == []
    monkeypatch.setattr(run.lab.os, "geteuid", lambda: 0)
    monkeypatch.setattr(run.lab.shutil, "which", lambda t: "/usr/bin/" + t)
    monkeypatch.setattr(run.lab, "missing_capabilities", lambda: ["CAP_NET_ADMIN", "CAP_SYS_ADMIN"])
    with pytest.raises(SystemExit) as e:
        run.lab.require_tools()
    assert "needs CAP_NET_ADMIN and CAP_SYS_ADMIN" in str(e.value)
