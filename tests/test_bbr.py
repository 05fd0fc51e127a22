"""BBR (`tcp.cc = "bbr"`) from Python and the command line: the builder
takes it, a run reports its flows as `bbr` and keeps the conservation
laws, the shipped incast drops more than CUBIC on the same port (BBR does
not slow down for loss) and still delivers every block, the same bits on
every run, and what BBR cannot run with is refused with its field. The laws
on whole runs are in crates/dcnsim/tests/bbr.rs, the model's in
tcp/cc/bbr.rs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import dcnsim
import pytest

try:
    from conftest import needs_core

    pytestmark = needs_core
except ImportError:  # pragma: no cover
    pass

ROOT = Path(__file__).resolve().parent.parent
FILE = ROOT / "scenarios" / "bbr_incast.toml"


def path(cc: str = "bbr", n: int = 1, **tcp) -> dcnsim.Scenario:
    """`n` bulk flows over a 100 Mbps, 4 ms-RTT bottleneck of 500 packets."""
    nodes = [{"name": "sw", "kind": "switch"}, {"name": "c", "kind": "host"}]
    links = [{"a": "c", "b": "sw", "rate": "100Mbps", "delay": "1ms", "buffer": "500pkt"}]
    for i in range(1, n + 1):
        nodes.append({"name": f"s{i}", "kind": "host"})
        links.append({"a": f"s{i}", "b": "sw", "rate": "10Gbps", "delay": "1ms"})
    return dcnsim.Scenario(
        name="bbr", stop="300ms",
        topology={"kind": "custom", "buffer": "1000pkt", "nodes": nodes, "links": links},
        tcp=dcnsim.Tcp(profile="linux", cc=cc, **tcp),
        trace={"interval": "1ms", "queues": "switches"},
        apps=[{"kind": "bulk", "src": s, "dst": 0, "duration": "1s"} for s in range(1, n + 1)],
    )


def test_the_builder_takes_bbr_and_flows_fill_the_path_with_a_short_queue():
    sc = path()
    assert sc.to_dict()["tcp"]["cc"] == "bbr"
    r = dcnsim.run(sc)
    f = r.flows
    assert set(f.cc) == {"bbr"}
    assert not r.conservation_problems()
    # together at least 90 % of the link's payload rate
    assert f.goodput_bps.sum() >= 0.9 * 100e6 * 1460 / 1514
    # Once STARTUP's queue is drained BBR queues no more than its window
    # (2 BDP, three TSO bursts of 8 segments, 4 for rounding and probing)
    # beyond the BDP in the pipe; CUBIC on the same path queues until its
    # window meets the port.
    bdp = int(100e6 / 8 * (4e-3 + 2 * 1514 * 8 / 100e6) / 1460) + 1
    def late_queue(res):
        q = res.queue_ts
        return q[q.time_s >= 0.1].pkts.max()
    bbr_q, cubic_q = late_queue(r), late_queue(dcnsim.run(path("cubic")))
    assert bbr_q <= bdp + 28 < cubic_q, (bbr_q, bdp, cubic_q)


def test_the_shipped_incast_drops_more_than_cubic_and_delivers_every_block():
    bbr = dcnsim.run(str(FILE))
    out = subprocess.run([sys.executable, "-m", "dcnsim", "run", str(FILE), "--set", "tcp.cc=cubic"],
                         capture_output=True, text=True, check=True).stdout
    assert "20: goodput" in out  # every block of the loss-based run too
    cubic_drops = int(next(ln for ln in out.splitlines() if "losses" in ln)
                      .split("retransmits,")[1].split("drops")[0].replace(",", ""))
    assert len(bbr.blocks) == 20
    assert bbr.summary["packets_dropped"] > 2 * cubic_drops
    again = dcnsim.run(str(FILE))
    assert bbr.flows.equals(again.flows) and bbr.blocks.equals(again.blocks)


@pytest.mark.parametrize("key,value,needle", [
    ("probretx_p", 0.1, "paces"),
    ("segment", "tcprand", "segments of mss"),
    ("hystart", "rfc9406", "STARTUP"),
])
def test_what_bbr_cannot_run_with_is_refused_with_its_field(key, value, needle):
    with pytest.raises(dcnsim.ScenarioError) as e:
        dcnsim.run(path(**{key: value}))
    text = str(e.value)
    assert f"tcp.{key}" in text and needle in text
