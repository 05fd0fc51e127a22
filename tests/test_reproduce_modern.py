"""`dcnsim reproduce modern`: the seeds' incast workloads with the papers'
schemes and NDP, Swift and HPCC. A reduced study (two fan-ins per incast,
one Qmax, short runs) is checked against laws: every scheme and point is
there, bytes are conserved, nothing beats the line rate, a trimming switch
drops no data and NDP times out only after a lost header, the report is our
own study with no tally, and a second run gives the same tables."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pandas as pd
import pytest
from conftest import needs_core

pytestmark = needs_core

KU_NS = (1, 16)
PA_NS = (10, 40)
QMAX = 20


def _small_study():
    from dcnsim.experiments import get_paper
    from dcnsim.experiments.modern import oc_points, pa_points
    from dcnsim.experiments.modern.workloads import ku_points

    study = get_paper("modern")
    pts = {
        "sync_reads": lambda quick: ku_points(True, ns=KU_NS, seeds=[1]),
        "partition_aggregate": lambda quick: pa_points(True, ns=PA_NS, seeds=[1]),
        "outcast": lambda quick: oc_points(True, qmaxes=[QMAX], seeds=[1], secs=0.2),
    }
    figs = [dataclasses.replace(f, points=pts[f.id]) for f in study.figures]
    return dataclasses.replace(study, figures=figs)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    from dcnsim.experiments import reproduce

    out = tmp_path_factory.mktemp("modern")
    said: list = []
    rep = reproduce(_small_study(), out=out, jobs=2, progress=False, echo=said.append)
    assert not rep.errors, rep.errors
    return rep, out, said


def test_every_scheme_and_point_is_in_each_table(run):
    from dcnsim.experiments.modern import SCHEME_NAMES

    rep, out, _ = run
    for fig, x, xs in (("sync_reads", "n", KU_NS), ("partition_aggregate", "n", PA_NS), ("outcast", "qmax", (QMAX,))):
        for f in (f"{fig}.csv", f"{fig}.png", f"{fig}.report.json"):
            assert (out / f).is_file(), f
        t = rep.results[fig].table
        assert sorted(zip(t["scheme"], t[x])) == sorted((s, v) for s in SCHEME_NAMES for v in xs), fig
        # one row per scheme and point in the report, each naming its scheme
        rows = rep.results[fig].comparisons
        assert len(rows) == len(SCHEME_NAMES) * len(xs)
        assert {c.series for c in rows} == set(SCHEME_NAMES)


def test_report_is_our_own_study_with_no_tally(run):
    rep, out, said = run
    report = (out / "report.md").read_text()
    assert "No tally" in report and "**Tally**" not in report and "tested claims" not in report
    assert "summary: our own study, no paper to tally against" in said
    assert rep.comparisons and {c.verdict for c in rep.comparisons} == {"not in paper"}
    # the fabric each scheme had is in the settings table
    for feature in ("trimming switches", "in-band telemetry", "ECN marking"):
        assert feature in report


def test_bytes_are_conserved_and_no_scheme_beats_the_line_rate(run):
    rep, _, _ = run
    sync = rep.results["sync_reads"].table
    pa = rep.results["partition_aggregate"].table
    oc = rep.results["outcast"].table
    # every finished block carried n SRUs, every finished query n responses
    assert (sync["bytes_ok"] == 1).all() and (sync["unfinished"] == 0).all()
    assert (pa["bytes_ok"] == 1).all() and (pa["unfinished"] == 0).all()
    # 1 Gbps bottlenecks: payload at most its share of each wire packet
    assert (sync["goodput_mbps"] <= 1000 * 1024 / 1064).all(), sync
    assert (pa["goodput_mbps"] <= 1000 * 1460 / 1500).all(), pa
    assert (oc["total_mbps"] <= 1000).all(), oc


def test_a_trimming_switch_drops_no_data_and_ndp_times_out_only_after_a_lost_header(run):
    rep, _, _ = run
    for fig in ("sync_reads", "partition_aggregate", "outcast"):
        t = rep.results[fig].table
        ndp = t[t["scheme"] == "NDP"]
        # every packet NDP's fabric lost was a header (pull, NACK, trimmed
        # packet): data over a port's buffer is trimmed, never dropped
        assert (ndp["drops"] == ndp["header_drops"]).all(), (fig, ndp)
        # with every header delivered a loss is answered by a NACK, so no
        # NDP flow waits for its timeout
        assert (ndp.loc[ndp["header_drops"] == 0, "timeouts"] == 0).all(), (fig, ndp)
        # NewReno on a drop-tail FIFO has no trimming and no NACK: at the
        # largest fan-in its losses end in retransmission timeouts
        if fig != "outcast":
            top = t[t["n"] == t["n"].max()].set_index("scheme")
            # n initial windows of one BDP each overflow the port: trimmed, not lost
            assert top.loc["NDP", "trims"] > 0, top
            if top.loc["NDP", "header_drops"] == 0:
                assert top.loc["NewReno", "timeouts"] > 0 and top.loc["NDP", "timeouts"] == 0, top


def test_the_text_names_what_the_data_shows(run):
    rep, _, _ = run
    oc = rep.results["outcast"].table
    note = " ".join(rep.results["outcast"].notes)
    below = sorted(oc.loc[oc["f1_share"] < 1, "scheme"])
    listed = note.split("outcast (below 1×): ")[1].split(".")[0]
    assert sorted(s.strip() for s in listed.replace(" and ", ", ").split(",") if s.strip() and s.strip() != "none") == below
    assert f"Most even (Jain's index): {oc.loc[oc['jain'].idxmax(), 'scheme']}" in note


def test_collapse_onset_is_kulkarnis():
    from dcnsim.experiments.modern.workloads import ku_text

    rows = []
    for scheme, gs in (("A", [900.0, 800.0, 500.0, 400.0, 420.0]), ("B", [900.0, 400.0, 800.0, 850.0, 820.0])):
        rows += [{"scheme": scheme, "n": n, "goodput_mbps": g, "timeouts": 0.0} for n, g in zip([1, 2, 4, 8, 16], gs)]
    text = " ".join(ku_text(pd.DataFrame(rows)))
    # A: from n = 8 on, goodput stays below half the best seen at fewer servers
    assert "A from n = 8" in text
    # B: a dip that recovers is no collapse
    assert "no collapse up to n = 16: B" in text


def test_same_seed_same_tables(run, tmp_path):
    from dcnsim.experiments import reproduce

    _, out, _ = run
    small = _small_study()
    again = dataclasses.replace(small, figures=[small.figure("outcast")])
    rep2 = reproduce(again, out=tmp_path, jobs=2, progress=False, echo=None)
    assert not rep2.errors
    pd.testing.assert_frame_equal(pd.read_csv(out / "outcast.csv"), pd.read_csv(tmp_path / "outcast.csv"))


def test_an_unknown_scheme_is_named():
    from dcnsim.experiments.modern import scheme_tcp

    with pytest.raises(ValueError, match="unknown scheme 'Vegas'.*NDP"):
        scheme_tcp("Vegas", {"mss": 1460}, 50.0)


def test_cli_reproduces_one_workload_and_lists_the_study(tmp_path):
    r = subprocess.run([sys.executable, "-m", "dcnsim", "reproduce", "--list", "modern"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("modern: ") and "our own study, no paper tally" in r.stdout.splitlines()[0]
    r = subprocess.run([sys.executable, "-m", "dcnsim", "reproduce", "modern", "--quick", "--figure",
                        "partition_aggregate", "--out", str(tmp_path), "--no-progress", "--jobs", "2"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    for f in ("partition_aggregate.csv", "partition_aggregate.png", "report.md"):
        assert (tmp_path / f).is_file(), f
    assert "no paper to tally against" in r.stdout
    from dcnsim.experiments.modern import PA_QUICK_NS, SCHEME_NAMES

    t = pd.read_csv(tmp_path / "partition_aggregate.csv")
    assert (t["bytes_ok"] == 1).all() and len(t) == len(SCHEME_NAMES) * len(PA_QUICK_NS)


def test_linux_and_bbr_are_the_linux_profile_with_the_workloads_packets_and_rtomin():
    from dcnsim.experiments.modern import scheme_tcp

    base = {"mss": 1024, "header": 40, "rto_min": "200ms", "cc": "newreno", "sack": False, "recovery": "dupack",
            "limited_transmit": False}
    # the papers' stack is replaced, not overlaid: the profile's SACK,
    # RACK and the rest apply; the packets and the route's RTOmin stay
    assert scheme_tcp("Linux", base, 50.0) == {"mss": 1024, "header": 40, "rto_min": "200ms", "profile": "linux"}
    assert scheme_tcp("BBR", base, 50.0) == {"mss": 1024, "header": 40, "rto_min": "200ms", "profile": "linux",
                                             "cc": "bbr"}


def test_the_linux_hosts_run_their_own_congestion_control(run):
    _, out, _ = run
    seen = {}
    for d in sorted((out / "runs").glob("modern-sync-*-n016-s1")):
        f = pd.read_csv(d / "flows.csv")
        seen[d.name.split("-")[2]] = set(f.loc[f["role"] == "response", "cc"])
    assert seen["linux"] == {"cubic"} and seen["bbr"] == {"bbr"} and seen["newreno"] == {"newreno"}, seen


def test_a_starved_group_is_named_not_divided_by():
    from dcnsim.experiments.modern.workloads import oc_text

    rows = [{"scheme": "A", "qmax": 20, "f1_share": 653.4 / 0.012, "F4:15_mbps": 0.012, "jain": 0.07},
            {"scheme": "B", "qmax": 20, "f1_share": 0.5, "F4:15_mbps": 60.0, "jain": 0.9}]
    text = " ".join(oc_text(pd.DataFrame(rows)))
    assert "A 54,450× (the 6-hop flows starved: 0.012 Mbps each)" in text, text
    assert "B 0.50×" in text and "outcast (below 1×): B." in text, text
