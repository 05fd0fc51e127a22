"""Poisson flow arrivals from Python and the CLI, and the FCT analysis."""

from __future__ import annotations

import math

import dcnsim
import numpy as np
import pandas as pd
import pytest
from conftest import cli, needs_core
from dcnsim.analysis import (
    common_completed,
    fct_bins,
    normalize,
    offered_load,
)

pytestmark = needs_core


def small(cc="cubic", flows=80, load=0.6, cdf="websearch", seed=1, **app):
    return dcnsim.Scenario(
        topology=dcnsim.FatTree(k=4, rate="1Gbps", delay="25us", buffer="100pkt"),
        tcp=dcnsim.Tcp(cc=cc, rto_min="2ms"),
        apps=dcnsim.Poisson(load=load, cdf=cdf, flows=flows, **app),
        stop="20s",
        seed=seed,
    )


def test_builder_runs_end_to_end_and_conserves_bytes():
    r = dcnsim.run(small())
    f = r.flows
    assert len(f) == 80
    assert (f.app_kind == "poisson").all() and (f.role == "flow").all()
    assert f.completed.all()
    assert (f.delivered_bytes == f.app_bytes).all()
    assert (f.src != f.dst).all()
    # No flow beats its bytes at the 1 Gbps edge.
    assert (f.fct_s >= f.app_bytes * 8 / 1e9).all()


def test_sizes_match_the_cdf_ks():
    # Sizes from a light run (no TCP needed for the law, but this checks the
    # whole path: scenario -> core -> flows table -> Python CDF).
    cdf = dcnsim.flow_size_cdf("websearch")
    r = dcnsim.run(small(flows=3000, load=0.05))
    x = np.sort(r.flows.app_bytes.to_numpy())
    n = len(x)
    ecdf_hi = np.searchsorted(x, x, side="right") / n
    ecdf_lo = np.searchsorted(x, x, side="left") / n
    d = max(np.abs(ecdf_hi - cdf.prob_le(x)).max(), np.abs(ecdf_lo - cdf.prob_le(x - 1)).max())
    assert d < 1.63 / math.sqrt(n), d
    # ... and the statistic sees a wrong CDF.
    wrong = dcnsim.flow_size_cdf("datamining")
    assert np.abs(ecdf_hi - wrong.prob_le(x)).max() > 10 * 1.63 / math.sqrt(n)


def test_offered_load_over_a_run():
    # Inline light-tailed CDF so ~3 000 flows pin the load within a few %.
    sc = dcnsim.Scenario(
        topology=dcnsim.Star(hosts=8, rate="1Gbps", delay="10us", buffer="200pkt"),
        tcp=dcnsim.Tcp(cc="cubic", rto_min="2ms"),
        apps=dcnsim.Poisson(load=0.4, cdf=[[20000, 0], [60000, 1]], duration="400ms"),
        stop="5s",
    )
    r = dcnsim.run(sc)
    f = r.flows
    assert len(f) > 2000
    assert r.summary["app0_capacity_bps"] == 8e9
    assert r.summary["app0_flows_generated"] == len(f)
    assert abs(offered_load(f, r.summary["app0_capacity_bps"], 0.0, 0.4) / 0.4 - 1) < 0.05


def test_deterministic():
    a = dcnsim.run(small(flows=50)).flows.drop(columns=[])
    b = dcnsim.run(small(flows=50)).flows
    pd.testing.assert_frame_equal(a, b)


def test_fct_bins_partition_and_order():
    f = dcnsim.run(small(flows=150, load=0.8)).flows
    s = fct_bins(f)
    assert list(s.index) == ["short", "mid", "long"]
    assert s.flows.sum() == len(f)
    assert (s.completed + s.incomplete == s.flows).all()
    ok = s.completed > 0
    assert (s.max_s[ok] >= s.p99_s[ok]).all() and (s.p99_s[ok] >= s.p50_s[ok]).all()
    assert (s.mean_s[ok] <= s.max_s[ok]).all()
    # Larger flows take longer on average.
    assert s.mean_s["short"] < s.mean_s["mid"]
    one = normalize(s, s)
    assert np.allclose(one.loc[ok, ["mean_s", "p99_s", "max_s"]], 1.0)
    custom = fct_bins(f, bins=[("all", 0, math.inf)])
    assert custom.flows["all"] == len(f)
    with pytest.raises(ValueError, match="empty"):
        fct_bins(f, bins=[("x", 5, 5)])


def test_common_completed_pairs_the_same_arrivals():
    a = dcnsim.run(small(cc="cubic", flows=100)).flows
    b = dcnsim.run(small(cc="dctcp", flows=100)).flows
    pa, pb = common_completed(a, b)
    assert len(pa) == len(pb) > 0
    for c in ["src", "dst", "app_bytes", "start_s"]:
        assert (pa[c].to_numpy() == pb[c].to_numpy()).all()
    assert (pa.cc == "cubic").all() and (pb.cc == "dctcp").all()
    r = normalize(fct_bins(pa), fct_bins(pb))
    assert (r.completed == r.baseline_completed).all()


def test_flow_size_cdf_mean_is_the_integral():
    for name in ["websearch", "datamining"]:
        c = dcnsim.flow_size_cdf(name)
        x, p = c.points[:, 0], c.points[:, 1]
        # linear pieces: mean = p0*x0 + Σ Δp (x_i + x_{i+1})/2
        want = p[0] * x[0] + float(np.sum(np.diff(p) * (x[1:] + x[:-1]) / 2))
        assert c.mean_bytes == pytest.approx(want)
        assert c.prob_le(x[-1]) == 1.0 and c.prob_le(-1) == 0.0


def test_bad_cdfs_name_the_field(tmp_path):
    probs = dcnsim.validate(small(cdf=[[10, 0], [20, 0.5]]))
    assert any(p.startswith("apps[0].cdf[1]:") and "end at probability 1" in p for p in probs), probs
    probs = dcnsim.validate(small(cdf=[[30, 0], [20, 1]]))
    assert any(p.startswith("apps[0].cdf[1]:") and "must not decrease" in p for p in probs), probs
    with pytest.raises(dcnsim.ScenarioError, match="cdf: unknown built-in CDF"):
        dcnsim.flow_size_cdf("websarch")
    bad = tmp_path / "bad.txt"
    bad.write_text("100 0\n200 1.5\n")
    with pytest.raises(dcnsim.ScenarioError, match=r"cdf_file: line 2: probability must be in \[0, 1\]"):
        dcnsim.flow_size_cdf(file=bad)


def test_cli_with_a_cdf_file_relative_to_the_scenario(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "mine.txt").write_text("# bytes  P\n1000 0\n50000 1\n")
    (tmp_path / "s.toml").write_text(
        """
stop = "5s"
[topology]
kind = "star"
hosts = 4
rate = "1Gbps"
delay = "10us"
buffer = "100pkt"
[[apps]]
kind = "poisson"
load = 0.3
cdf_file = "data/mine.txt"
flows = 40
"""
    )
    r = cli("run", str(tmp_path / "s.toml"), "--out", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    f = pd.read_csv(tmp_path / "out" / "flows.csv")
    assert len(f) == 40 and f.completed.all()
    assert f.app_bytes.between(1000, 50000).all()
    (tmp_path / "b.toml").write_text((tmp_path / "s.toml").read_text().replace("mine.txt", "none.txt"))
    r = cli("run", str(tmp_path / "b.toml"))
    assert r.returncode == 2 and "apps[0].cdf_file" in (r.stdout + r.stderr)


def test_import_dcnsim_stays_light():
    # `dcnsim bench` children time the core with only `import dcnsim`
    # loaded; the analysis module (pandas, numpy) must stay lazy.
    import subprocess
    import sys

    code = "import sys, dcnsim; dcnsim.Poisson; print('pandas' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_fct_helpers_count_every_transport_but_udp():
    """The FCT helpers take the flows of every transport with completion
    times (a comparison of HPCC against DCQCN on one workload used to find
    none: they kept `transport == "tcp"` alone) and leave UDP sources out."""
    def run(transport: str) -> pd.DataFrame:
        sc = small(flows=60, load=0.5)
        # (DCQCN reads the marks; HPCC reads INT and would be warned that nothing marks)
        sc.topology = dcnsim.FatTree(k=4, rate="10Gbps", delay="1us", buffer="1MB",
                                     ecn_k="30KB" if transport == "dcqcn" else None)
        sc.tcp = dcnsim.Tcp(transport=transport, mss=4096)
        sc.pfc = dcnsim.Pfc()
        return dcnsim.run(sc).flows
    hp, dq = run("hpcc"), run("dcqcn")
    assert set(hp.transport) == {"hpcc"} and set(dq.transport) == {"dcqcn"}
    for f in (hp, dq):
        s = fct_bins(f)
        assert s.flows.sum() == len(f) == 60
        assert s.completed.sum() == int(f.completed.sum()) > 0
    a, b = common_completed(hp, dq)
    assert len(a) == len(b) > 0
    sc = small(flows=20)
    sc.apps = [dcnsim.Poisson(load=0.5, cdf="websearch", flows=20),
               {"kind": "udp_cbr", "src": 1, "dst": 2, "rate": "10Mbps", "payload": 1000}]
    f = dcnsim.run(sc).flows
    assert "udp" in set(f.transport)
    assert fct_bins(f).flows.sum() == int((f.transport != "udp").sum())


def test_offered_load_over_an_empty_window_says_so():
    from dcnsim.analysis import offered_load

    flows = pd.DataFrame({"start_s": [0.1], "app_bytes": [1000], "transport": ["tcp"]})
    with pytest.raises(ValueError, match="window .* is empty"):
        offered_load(flows, 1e9, 0.2, 0.2)
    with pytest.raises(ValueError, match="capacity_bps must be > 0"):
        offered_load(flows, 0.0, 0.0, 1.0)
    assert offered_load(flows, 1e9, 0.0, 1.0) == pytest.approx(8000 / 1e9)


def test_a_cdf_file_given_as_a_path_object_runs_as_its_text(tmp_path):
    """``cdf_file=pathlib.Path(...)``, as ``run()`` and ``flow_size_cdf``
    take paths, in a builder and in a dict: the same run as the path's
    text (it was refused: "unsupported value of type pathlib.PosixPath")."""
    cdf = tmp_path / "mine.txt"
    cdf.write_text("# bytes  P\n1000 0\n50000 1\n")
    topo = dcnsim.Star(hosts=4, rate="1Gbps", delay="10us", buffer="100pkt")
    as_text = dcnsim.run(dcnsim.Scenario(topology=topo, stop="5s",
                                         apps=dcnsim.Poisson(load=0.3, cdf_file=str(cdf), flows=20)))
    as_path = dcnsim.run(dcnsim.Scenario(topology=topo, stop="5s",
                                         apps=dcnsim.Poisson(load=0.3, cdf_file=cdf, flows=20)))
    pd.testing.assert_frame_equal(as_text.flows, as_path.flows)
    doc = as_path.scenario
    assert isinstance(doc["apps"][0]["cdf_file"], str)
    as_dict = dcnsim.run({**doc, "apps": [{**doc["apps"][0], "cdf_file": cdf}]})
    pd.testing.assert_frame_equal(as_text.flows, as_dict.flows)


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="named pipes are POSIX-only")
def test_a_cdf_file_that_is_not_a_regular_file_is_refused_at_once(tmp_path):
    """A named pipe was opened and waited on for ever (validate hung, and
    SIGTERM could not end it), /dev/zero read until the kernel killed the
    process at 24 GB: each is refused, naming the key and what the path is."""
    import os

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path, what in ((fifo, "a named pipe (FIFO)"), ("/dev/zero", "a device"), (tmp_path, "a directory")):
        sc = {"stop": "1ms",
              "topology": {"kind": "star", "hosts": 3, "rate": "1Gbps", "delay": "1us", "buffer": "10KB"},
              "apps": [{"kind": "poisson", "load": 0.3, "cdf_file": str(path), "flows": 2}]}
        with pytest.raises(dcnsim.ScenarioError) as e:
            dcnsim.run(sc)
        (p,) = e.value.errors
        assert p.path == "apps[0].cdf_file" and f"' is {what}, not a regular file" in p.message, p
    big = tmp_path / "big.cdf"
    with open(big, "wb") as fh:
        fh.truncate((16 << 20) + 1)  # sparse: no disk used
    with pytest.raises(dcnsim.ScenarioError, match=r"holds 16777217 bytes, more than a flow-size CDF's 16 MiB"):
        dcnsim.run({"stop": "1ms",
                    "topology": {"kind": "star", "hosts": 3, "rate": "1Gbps", "delay": "1us", "buffer": "10KB"},
                    "apps": [{"kind": "poisson", "load": 0.3, "cdf_file": str(big), "flows": 2}]})
