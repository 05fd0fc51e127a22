"""`dcnsim reproduce rps` (Kaymak & Rojas-Cessa 2016) and the routing and
loss-detection options it shows.

The quick run of Fig. 7 (random pairs), the per-path utilization and the
hash-polarisation figures goes through the CLI; the tests check outputs,
that the paper's claims are printed with a criterion, and laws: spraying
reorders and single-path forwarding does not, RPS splits the bytes into a
pod evenly over the four cores, unsalted ECMP leaves the off-diagonal
cores idle."""

from __future__ import annotations

import dcnsim
import pandas as pd
import pytest
from conftest import cli, needs_core
from dcnsim.experiments import get_paper
from dcnsim.experiments.claims import ordering
from dcnsim.experiments.rps.common import (
    HOSTS,
    NIC_BUFFER,
    NIC_BUFFER_ALT,
    RPS,
    SINGLE,
    ci95,
    random_apps,
    random_pairs,
    scenario,
    static_apps,
    tcp,
)
from dcnsim.experiments.rps.static_pairs import NO_FR_THRESHOLD


def test_every_paper_figure_is_registered():
    p = get_paper("rps")
    ids = [f.id for f in p.figures]
    assert ids[:8] == ["2", "3", "4", "5", "6", "7", "8", "9"]
    assert {"paths", "polarisation", "tcp", "settings"} <= set(ids)
    assert p.docs == "docs/rps.md"


def test_static_and_random_pairs():
    apps = static_apps(5)
    assert [(a["src"], a["dst"], a["size"]) for a in apps] == \
        [(s, 15, "10MB") for s in range(5)] + [(0, 15, "200KB")]
    pairs = random_pairs(200, 3, 1)
    assert all(s != d and 0 <= s < HOSTS and 0 <= d < HOSTS for s, d in pairs)
    assert len({s for s, _ in pairs}) == HOSTS and len({d for _, d in pairs}) == HOSTS
    # the same pairs for every scheme of a run; the 10 short flows are the first of the 20
    assert random_apps(4, 20, 7) == random_apps(4, 20, 7)
    assert random_apps(4, 20, 7)[4:14] == random_apps(4, 10, 7)[4:]
    t = tcp()
    # ns-3.23's limits: no window scaling, so 65 535 B whatever the buffer
    assert (t["mss"], t["init_cwnd"], t["rwnd"], t["delayed_ack"], t["sack"], t["dupack_threshold"]) == \
        (1460, 1, "65535B", True, False, 3)
    # the hosts' NIC queue is an explicit setting of the setup, with its alternative
    assert scenario("x", static_apps(1), {"mode": "rps"}, 1)["topology"]["nic_buffer"] == NIC_BUFFER == "1000pkt"
    assert scenario("x", static_apps(1), {"mode": "rps"}, 1, nic_buffer=NIC_BUFFER_ALT)["topology"][
        "nic_buffer"] == "100pkt"


def test_ci_and_ordering_criterion():
    m, h = ci95([1.0, 2.0, 3.0])
    assert m == 2.0 and h == pytest.approx(4.303 * 1.0 / 3 ** 0.5)
    m1, h1 = ci95([5.0])  # one run gives no interval (NaN), not an interval of 0
    assert m1 == 5.0 and h1 != h1
    assert ci95([2.0, 2.0]) == (2.0, 0.0)
    sig = {1: (2.0, 0.5), 2: (3.0, 1.0)}
    assert ordering("q", sig, "p", +1, "a − b", "x").verdict == "agrees"
    assert ordering("q", sig, "p", -1, "a − b", "x").verdict == "differs"
    # means on the claimed side within CIs five times wider: noise, not a trend
    noisy = {1: (2.0, 5.0), 2: (1.0, 5.0), 3: (-1.0, 5.0)}
    assert ordering("q", noisy, "p", +1, "a − b", "x").verdict == "differs"
    # no x significant alone, their mean beyond its CI: a trend
    c = ordering("q", {1: (2.0, 2.5), 2: (1.5, 2.5), 3: (1.0, 2.5)}, "p", +1, "a − b", "x")
    assert c.verdict == "trend agrees" and "CI on the claimed side" in c.criterion and "trend:" in c.criterion


@needs_core
def test_new_options_are_deterministic():
    doc = scenario("det", random_apps(3, 5, 2), {"mode": "flowlet", "flowlet_gap": "50us"}, 2,
                   tcp(sack=True, recovery="rack", reordering="adaptive"))
    a, b = dcnsim.run(doc).flows, dcnsim.run(doc).flows
    pd.testing.assert_frame_equal(a, b)
    assert a["completed"].all()


@needs_core
def test_static_case_is_lossless_so_rps_fast_retransmits_are_spurious():
    """With ns-3.23's 65 535 B windows five long flows and the short one
    need 6 × 45 packets at E7's port (< 1000) and two windows at S0's NIC
    (< 100 even with ns-3's default queue): nothing is dropped, so every fast
    retransmit RPS makes is spurious, and with fast retransmit off it makes
    none and still finishes without a timeout (Fig. 3's extra series)."""
    apps = static_apps(5)
    for nic in (NIC_BUFFER, NIC_BUFFER_ALT):
        spurious = 0
        for routing in ({"mode": "single"}, {"mode": "rps"}):
            # a seed's run may reorder too little for three duplicate ACKs
            # (seed 1 under the seeded tie order): the law is over seeds
            for seed in (1, 2, 3):
                f = dcnsim.run(scenario("lossless", apps, routing, seed, nic_buffer=nic)).flows
                assert f["completed"].all() and f["drops"].sum() == 0, (nic, routing, seed)
                if routing["mode"] == "single":
                    assert f["fast_retransmits"].sum() == 0 and f["ooo_arrivals"].sum() == 0
                else:
                    assert f["ooo_arrivals"].sum() > 0, (nic, seed)  # spraying reorders
                    spurious += f["fast_retransmits"].sum()
        assert spurious > 0, nic  # reordering alone
    f = dcnsim.run(scenario("nofr", apps, {"mode": "rps"}, 1, tcp(dupack_threshold=NO_FR_THRESHOLD))).flows
    assert f["completed"].all()
    assert (f["fast_retransmits"].sum(), f["timeouts"].sum(), f["drops"].sum()) == (0, 0, 0)


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("rps")
    r = cli("reproduce", "rps", "--quick", "--figure", "7", "--figure", "paths", "--figure", "polarisation",
            "--out", str(out), "--no-progress", "--jobs", "2", timeout=600)
    return out, r


@needs_core
def test_reproduce_quick_writes_outputs_and_prints_claims(quick_run):
    out, r = quick_run
    assert r.returncode == 0, r.stderr + r.stdout
    for stem in ("fig7", "paths", "polarisation"):
        assert (out / f"{stem}.csv").stat().st_size > 0
        assert (out / f"{stem}.png").stat().st_size > 1000
    report = (out / "report.md").read_text()
    assert "Fig. 7" in report and "docs/rps.md" in report
    # the register's criterion, printed from its parameters, judges the row
    assert "| within 20 % of 20 % (close: 50 %) |" in report
    assert "about 20 % of packets out of order" in r.stdout
    assert not (out / "fig2.csv").exists()


@needs_core
def test_spraying_reorders_single_path_does_not(quick_run):
    out, r = quick_run
    assert r.returncode == 0, r.stderr
    df = pd.read_csv(out / "fig7.csv")
    for n, g in df.groupby("n_long"):
        rps = g[g["scheme"] == RPS]["mean"].iloc[0]
        single = g[g["scheme"] == SINGLE]["mean"].iloc[0]
        assert rps > 5 and rps > 3 * single, (n, rps, single)


@needs_core
def test_rps_splits_evenly_and_unsalted_ecmp_polarises(quick_run):
    out, r = quick_run
    assert r.returncode == 0, r.stderr
    paths = pd.read_csv(out / "paths.csv")
    rps = paths[paths["scheme"] == RPS]["share"]
    assert len(rps) == 4 and ((rps - 0.25).abs() < 0.03).all(), rps.tolist()
    assert (paths[paths["scheme"] == SINGLE]["share"] > 0).sum() == 1
    pol = pd.read_csv(out / "polarisation.csv")
    busiest = pol.groupby(["scheme", "core"])["utilization"].max()
    assert sorted(busiest["ECMP, no salt"].loc[lambda s: s == 0].index) == ["core1", "core2"]
    assert (busiest["ECMP, per-switch salt"] > 0).all()


@needs_core
def test_every_figure_analyzes_in_quick_mode(tmp_path):
    # each figure's comparisons go through the framework's checks (criteria,
    # trend rules); a claim built against them wrongly fails the analysis
    from dcnsim.experiments import reproduce

    rep = reproduce("rps", quick=True, out=tmp_path, progress=False, echo=None)
    assert not rep.errors, rep.errors


@needs_core
def test_the_plb_figures_move_flows_only_under_plb(tmp_path):
    """Our PLB figures (DCTCP on the random pairs, and on a permutation):
    ECMP and RPS draw no flow label, eager PLB does; their rows stand
    beyond the paper's tally."""
    r = cli("reproduce", "rps", "--quick", "--figure", "plb", "--figure", "plbperm", "--out", str(tmp_path),
            "--no-progress", "--jobs", "2", timeout=300)
    assert r.returncode == 0, r.stderr + r.stdout
    for stem in ("plb", "plbperm"):
        t = pd.read_csv(tmp_path / f"{stem}.csv")
        moved = t[t["metric"] == "rehashes"].groupby("scheme")["mean"].max()
        assert moved["ECMP"] == 0 and moved[RPS] == 0, (stem, moved)
        assert moved["ECMP + PLB (20 %, 3 rounds)"] > 0, (stem, moved)
        assert (tmp_path / f"{stem}.png").stat().st_size > 1000
    assert "0 tested claims" in r.stdout and "beyond the paper" in r.stdout
    # in the permutation every host sends one flow and receives one: only
    # the fabric collides, and moving off a shared link shortens the last
    perm = pd.read_csv(tmp_path / "plbperm.csv").set_index(["metric", "scheme"])["mean"]
    assert perm["makespan_ms", "ECMP + PLB (20 %, 3 rounds)"] < perm["makespan_ms", "ECMP"]


@needs_core
def test_the_failure_figure_shows_who_leaves_a_black_hole(tmp_path):
    """Our failure figure (a core link down for good under the permutation,
    routing not converged): ECMP leaves the flows hashed onto it stuck, and
    a new flow label at each timeout (txrehash) or a new flowlet after the
    pause gets them out; only txrehash draws labels. Rows beyond the tally."""
    r = cli("reproduce", "rps", "--quick", "--figure", "failure", "--out", str(tmp_path),
            "--no-progress", "--jobs", "2", timeout=300)
    assert r.returncode == 0, r.stderr + r.stdout
    t = pd.read_csv(tmp_path / "failure.csv").set_index(["metric", "scheme"])["mean"]
    assert t["unfinished", "ECMP"] > 0
    for escape in ("ECMP + txrehash", "flowlet 500 µs"):
        assert t["unfinished", escape] < t["unfinished", "ECMP"], escape
    assert t["rehashes", "ECMP + txrehash"] > 0
    assert t["rehashes", "ECMP"] == t["rehashes", RPS] == t["rehashes", "flowlet 500 µs"] == 0
    assert (tmp_path / "failure.png").stat().st_size > 1000
    assert "0 tested claims" in r.stdout and "beyond the paper" in r.stdout


@needs_core
def test_the_nic_figure_says_when_its_queues_changed_nothing(tmp_path):
    """With no drop in its runs, the 100-packet NIC figure is Figs. 5–6
    packet for packet: its note says so (a quick run's rows equal Figs.
    5–6's to the digit and read as a finding); with drops, it does not."""
    import json

    r = cli("reproduce", "rps", "--quick", "--figure", "nic", "--out", str(tmp_path), "--no-progress", "--jobs", "2",
            timeout=300)
    assert r.returncode == 0, r.stderr + r.stdout
    rec = json.loads((tmp_path / "nic.report.json").read_text())
    drops = sum(json.loads((p / "summary.json").read_text())["packets_dropped"]
                for p in (tmp_path / "runs").iterdir() if p.name.startswith("nic100"))
    said = any("no packet was dropped in these runs" in n for n in rec["notes"])
    assert said == (drops == 0), (drops, rec["notes"])


def test_the_interval_is_student_t_beyond_thirty_degrees_of_freedom_too():
    """Above 30 degrees of freedom ci95 took the normal's 1.96 (a hundred
    queries' interval 1.2 % narrow); t95 gives the t quantiles (published
    values, 4 decimals)."""
    from dcnsim.analysis import ci95, t95

    for df, exact in ((1, 12.706), (30, 2.042), (31, 2.0395), (40, 2.0211), (60, 2.0003), (99, 1.9842),
                      (120, 1.9799), (1000, 1.9623)):
        assert t95(df) == pytest.approx(exact, abs=1e-4), df
    v = [float(i % 7) for i in range(100)]
    m, h = ci95(v)
    import statistics

    assert h == pytest.approx(1.9842 * statistics.stdev(v) / 10, rel=1e-4)


def test_tidy_counts_the_runs_its_interval_is_over():
    import pandas as pd
    from dcnsim.experiments.rps.common import tidy

    df = pd.DataFrame({"n": [1, 1, 1], "fct": [1.0, float("nan"), 3.0]})
    (row,) = tidy(df, "fct", ["n"]).to_dict("records")
    assert row["runs"] == 2 and row["mean"] == 2.0 and row["ci95"] == pytest.approx(12.706 * 2 ** 0.5 / 2 ** 0.5)


@needs_core
def test_reproduce_in_parquet_reads_what_it_wrote_and_reports_the_same(quick_run, tmp_path):
    """`--format parquet`: every simulation's tables are Parquet, none CSV,
    and the analysis, which reads either, gives the CSV run's figure table."""
    out, r = quick_run
    assert r.returncode == 0, r.stderr + r.stdout
    pq = tmp_path / "pq"
    r2 = cli("reproduce", "rps", "--quick", "--figure", "7", "--format", "parquet", "--out", str(pq),
             "--no-progress", "--jobs", "2", timeout=600)
    assert r2.returncode == 0, r2.stderr + r2.stdout
    runs = [d for d in (pq / "runs").iterdir() if d.is_dir()]
    assert runs and all((d / "flows.parquet").is_file() and not list(d.glob("*.csv")) for d in runs)
    assert (pq / "fig7.csv").read_bytes() == (out / "fig7.csv").read_bytes()


@needs_core
def test_a_papers_table_caches_see_a_parquet_point_written_again(tmp_path):
    """The analyses cache what they read of a point's table, keyed by the
    table's version: a Parquet point was keyed by its absent flows.csv's
    (always 0), so a point run again in the same process was read from
    the cache, stale. Keyed by the Parquet file's, it is read again."""
    import os
    import warnings

    from dcnsim.experiments.framework import table_version
    from dcnsim.experiments.rps.common import metrics
    from dcnsim.experiments.tcprand.common import flows

    def write(rate):
        doc = {"stop": "50ms", "topology": {"kind": "star", "hosts": 3, "rate": rate, "delay": "25us",
                                             "buffer": "100KB"},
               "apps": [{"kind": "bulk", "src": 1, "dst": 0, "size": "200KB"}]}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", dcnsim.DcnsimWarning)  # "replacing them"
            dcnsim.run(doc).write(d, format="parquet")

    d = tmp_path / "p"
    write("1Gbps")
    row = {"dir": str(d)}
    assert table_version(d, "flows") == os.stat(d / "flows.parquet").st_mtime > 0
    fast_fct, fast_flows = metrics(row)["makespan_ms"], flows(row)["fct_s"].iloc[0]
    write("100Mbps")
    later = os.stat(d / "flows.parquet").st_mtime + 10  # a new version whatever the clock's grain
    os.utime(d / "flows.parquet", (later, later))
    assert metrics(row)["makespan_ms"] > 5 * fast_fct
    assert flows(row)["fct_s"].iloc[0] > 5 * fast_flows


def test_error_bars_never_reach_past_what_the_quantity_can_be():
    """Three runs' Student-t interval around 900 Mbps drew a bar to 1,390
    Mbps on 1 Gbps links, and one around a small count below 0; the cap is
    what a flow's payload can carry, 1460 of each 1500 bytes on the link."""
    import numpy as np
    from dcnsim.experiments.rps.common import _err, _throughput_bound

    g = pd.DataFrame({"mean": [900.0, 10.0, 500.0], "ci95": [300.0, 20.0, 100.0]})
    top = _throughput_bound(pd.DataFrame({"metric": ["long_tput_mbps", "nic_tput_mbps"]}))
    assert top == 1000.0 * 1460 / 1500
    lo, hi = _err(g, top)
    mean = g["mean"].to_numpy()
    assert np.all(mean - lo >= 0) and np.all(mean + hi <= top)
    assert hi[2] == 100.0 and lo[2] == 100.0  # an interval inside the bounds is drawn whole
    # an FCT or a count has no such ceiling
    assert _throughput_bound(pd.DataFrame({"metric": ["short_fct_ms"]})) is None
