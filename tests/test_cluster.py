"""Sweeps on a Dask cluster: a local scheduler and two worker processes on
this machine stand in for a real cluster. The law: a point's results do not
depend on where it ran."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import needs_core
from dcnsim.sweep import ClusterError, point_dir, run_sweep
from test_sweep import points

distributed = pytest.importorskip("distributed", reason="dask.distributed not installed (pip install 'dcnsim[cluster]')")

pytestmark = needs_core

FILES = ("flows.csv", "queues.csv", "blocks.csv", "scenario.json")


@pytest.fixture(scope="module")
def cluster():
    # processes=True: separate worker processes, as on real machines; no
    # dashboard (no port to collide with)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as c:
        yield c.scheduler_address


def test_cluster_results_equal_local_results(tmp_path, cluster):
    pts = points()
    local = run_sweep(pts, tmp_path / "local", jobs=2, progress=False)
    remote = run_sweep(pts, tmp_path / "remote", progress=False, cluster=cluster)
    assert list(remote["label"]) == list(local["label"])
    assert sorted(remote.attrs["computed"]) == sorted(p.label for p in pts)
    for p in pts:
        a, b = point_dir(tmp_path / "local", p.label), point_dir(tmp_path / "remote", p.label)
        for f in FILES:
            assert (a / f).read_bytes() == (b / f).read_bytes(), f"{p.label}/{f}"
        # the summary differs only in wall time
        assert (b / "summary.json").is_file()
    physics = [c for c in local.columns if c not in ("wall_s", "events_per_s")]
    assert local[physics].equals(remote[physics])


def test_cluster_sweep_resumes(tmp_path, cluster):
    pts = points()
    run_sweep(pts[:2], tmp_path, progress=False, cluster=cluster)
    df = run_sweep(pts, tmp_path, progress=False, cluster=cluster)
    assert sorted(df.attrs["computed"]) == sorted(p.label for p in pts[2:])


def test_unreachable_scheduler_is_a_clear_error(tmp_path):
    # the cause is said: Dask's own connect retried a closed port and an
    # unknown host to its timeout and named neither (audit 36)
    with pytest.raises(ClusterError, match="cannot reach the Dask scheduler at 'tcp://127.0.0.1:9': connection "
                                           "refused"):
        run_sweep(points(), tmp_path, progress=False, cluster="tcp://127.0.0.1:9")
    with pytest.raises(ClusterError, match="cannot reach the Dask scheduler at 'tcp://nosuchhost.invalid:8786': "
                                           "unknown host 'nosuchhost.invalid'"):
        run_sweep(points(), tmp_path, progress=False, cluster="tcp://nosuchhost.invalid:8786")
    assert not any(tmp_path.rglob("summary.json"))


def test_a_worker_lost_during_the_core_check_is_not_a_wrong_install():
    """A worker that died while asked (its nanny restarting it after a point
    killed it) answered the check with CommClosedError, which was reported
    as "no usable dcnsim … install the same dcnsim build on every worker"."""
    from dcnsim.sweep import _check_cores
    from distributed.comm.core import CommClosedError

    class Client:
        def __init__(self, answers):
            self.answers = answers

        def run(self, fn, workers=None, on_error="return"):
            return dict(self.answers)

        def scheduler_info(self, n_workers=-1):
            return {"workers": {a: {"name": a} for a in self.answers}}

    core = "0.1.0+abc (metrics def)"
    assert _check_cores(Client({"tcp://w1": core, "tcp://w2": CommClosedError("Address removed.")}), "c", core) \
        is None
    why = _check_cores(Client({"tcp://w1": core, "tcp://w2": ModuleNotFoundError("No module named 'dcnsim'")}),
                       "c", core)
    assert why is not None and "no usable dcnsim (ModuleNotFoundError" in why


def test_cli_cluster_flag(tmp_path, cluster):
    from conftest import ROOT

    out = tmp_path / "sw"
    cmd = [sys.executable, "-m", "dcnsim", "sweep", str(ROOT / "scenarios" / "kulkarni_incast.toml"),
           "--set", "apps.0.blocks=2", "--set", "apps.0.servers=1-2,1-4", "--out", str(out),
           "--no-progress", "--cluster", cluster]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "2 points (2 run, 0 resumed)" in r.stdout
    # a fresh directory: with every point done, no scheduler is contacted
    bad_cmd = [str(tmp_path / "sw2") if c == str(out) else c for c in cmd[:-1]] + ["tcp://127.0.0.1:9"]
    bad = subprocess.run(bad_cmd, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2
    assert "cannot reach the Dask scheduler" in bad.stderr and "Traceback" not in bad.stderr


def test_reproduce_on_cluster_matches_local(tmp_path, cluster):
    from dcnsim.experiments import reproduce
    from test_reproduce_fast import fake_paper

    local = reproduce(fake_paper(), out=tmp_path / "local", jobs=1, progress=False, echo=None)
    lines = []
    remote = reproduce(fake_paper(), out=tmp_path / "remote", progress=False, echo=lines.append, cluster=cluster)
    assert remote.n_computed == local.n_computed == 4 and not remote.errors
    assert f"the Dask cluster at {cluster}" in lines[0]
    for f in ("fig1.csv", "sec2.csv"):
        assert (tmp_path / "local" / f).read_bytes() == (tmp_path / "remote" / f).read_bytes()


def test_a_cdf_file_travels_with_its_point_to_a_worker_without_the_clients_files(tmp_path):
    """A worker reads no file of the client's: a point's ``cdf_file`` goes
    to it as the bytes the client read, written into the point's private
    directory (the client's absolute path failed on a worker without the
    client's file system, on every rerun). Run where the path no longer
    exists, the point gives the files a local run with the file gives."""
    import json

    from dcnsim._document import read_cdf_files
    from dcnsim.sweep import _cluster_point, _run_point_files

    cdf = tmp_path / "my_cdf.txt"
    cdf.write_text("1000 0\n30000 1\n")
    doc = {"name": "cdf", "seed": 1, "stop": "3ms",
           "topology": {"kind": "star", "hosts": 4, "rate": "10Gbps", "delay": "1us", "buffer": "100pkt"},
           "apps": [{"kind": "poisson", "load": 0.4, "cdf_file": str(cdf), "duration": "3ms"}]}
    local = _run_point_files(doc, "csv")[1]
    sent = read_cdf_files(doc)
    assert sent == {0: cdf.read_bytes()}
    cdf.unlink()  # the worker's view: no such path
    record, remote, _where = _cluster_point(doc, "csv", sent)
    assert record.get("error") is None, record
    assert sorted(remote) == sorted(local)
    for name in local:
        if name != "summary.json":
            assert remote[name] == local[name], name
    a, b = json.loads(local["summary.json"]), json.loads(remote["summary.json"])
    timing = {"wall_s", "events_per_s", "partition_work_s", "imbalance_s", "between_windows_s"}
    assert {k: v for k, v in a.items() if k not in timing} == {k: v for k, v in b.items() if k not in timing}
