"""A Dask cluster that cannot be used, or stops being usable mid-sweep:
one clear error naming the address, never a traceback or a silent wait
(something else on the port, no workers, workers of another dcnsim core,
the scheduler or every worker lost mid-sweep)."""

from __future__ import annotations

import re
import socket
import sys
import threading
import time

import dcnsim
import pytest
from conftest import DATA, needs_core
from dcnsim import cli
from dcnsim import sweep as sweep_mod
from dcnsim.sweep import (
    ClusterError,
    ClusterLostError,
    SweepError,
    point_dir,
    run_sweep,
)
from test_sweep import points

distributed = pytest.importorskip("distributed", reason="dask.distributed not installed (pip install 'dcnsim[cluster]')")

pytestmark = needs_core


class _Server:
    """A throwaway TCP service on 127.0.0.1 that is not a Dask scheduler:
    ``greeting`` is sent on accepting (as sshd's banner); without one it
    reads and never answers (as a web server waiting for a request line)."""

    def __init__(self, greeting: bytes = b""):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.sock.settimeout(0.2)
        self.address = f"tcp://127.0.0.1:{self.sock.getsockname()[1]}"
        self.greeting = greeting
        self.conns: list = []
        self.stop = False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop:
            try:
                c, _ = self.sock.accept()
            except OSError:
                continue
            self.conns.append(c)
            if self.greeting:
                c.sendall(self.greeting)

    def close(self) -> None:
        self.stop = True
        self.thread.join()
        for c in self.conns:
            c.close()
        self.sock.close()


@pytest.fixture
def fast(monkeypatch):
    # the bounds the tests wait for, short
    monkeypatch.setattr(sweep_mod, "CONNECT_TIMEOUT_S", 2.0)
    monkeypatch.setattr(sweep_mod, "WORKER_WAIT_S", 1.0)


@pytest.mark.parametrize("greeting", [b"SSH-2.0-OpenSSH_9.6p1 Debian\r\n", b""], ids=["banner", "silent"])
def test_a_port_that_is_not_a_scheduler_is_one_clear_error(tmp_path, fast, greeting):
    server = _Server(greeting)
    try:
        start = time.monotonic()
        with pytest.raises(ClusterError, match=f"cannot reach the Dask scheduler at '{server.address}'.*"
                                               r"not a Dask scheduler\?"):
            run_sweep(points()[:1], tmp_path, progress=False, cluster=server.address)
        assert time.monotonic() - start < 6  # bounded by the timeout, not Dask's unbounded handshake read
        assert not any(tmp_path.rglob("summary.json"))
    finally:
        server.close()


def test_cli_a_port_that_is_not_a_scheduler(tmp_path, fast, capfd):
    server = _Server(b"SSH-2.0-OpenSSH_9.6p1\r\n")
    try:
        rc = cli.main(["sweep", str(DATA / "small_incast.toml"), "--set", "topology.buffer=16KB,32KB",
                       "--out", str(tmp_path / "o"), "--no-progress", "--cluster", server.address])
    finally:
        server.close()
    err = capfd.readouterr().err
    assert rc == 2
    assert err.strip().splitlines() == [f"sweep: cluster: cannot reach the Dask scheduler at '{server.address}': "
                                        "the service there does not speak Dask's protocol (not a Dask scheduler?)"]


@pytest.fixture(scope="module")
def one_worker():
    """A scheduler with one worker process (its own dcnsim, as on another machine)."""
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        with distributed.Client(c.scheduler_address) as client:
            yield c.scheduler_address, client


def _fake_build() -> None:
    # runs on a worker: a stale install there (another build of the core)
    dcnsim.core_build = lambda: "0ldbu1ld00000000"


def _fake_record() -> None:
    # runs on a worker: its results say another core computed them (a
    # worker that joined after the sweep checked the others)
    from dcnsim.result import Result

    orig = Result.summary_record
    Result._orig_summary_record = orig

    def rec(self):
        r = orig(self)
        r["core_build"] = "0ldbu1ld00000000"
        return r

    Result.summary_record = rec


def _fake_metrics() -> None:
    # runs on a worker: the same core, other Python code deriving the
    # metrics (another checkout's result.py), which a resume keys on
    import dcnsim.result as result

    result._real_metrics_build = result.__dict__.get("_real_metrics_build", result.metrics_build)
    result.metrics_build = lambda: "0ldmetr1cs000000"


def _undo() -> None:
    import dcnsim.result as result
    from dcnsim.result import Result

    result.metrics_build = result.__dict__.get("_real_metrics_build", result.metrics_build)
    dcnsim.core_build = dcnsim.__dict__.get("_real_core_build", dcnsim.core_build)
    if hasattr(Result, "_orig_summary_record"):
        Result.summary_record = Result._orig_summary_record
        del Result._orig_summary_record


def _remember() -> None:
    dcnsim._real_core_build = dcnsim.core_build


@pytest.fixture
def patched(one_worker):
    import cloudpickle

    # the functions above go to the worker by value (it cannot import this test module)
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    address, client = one_worker
    client.run(_remember)
    try:
        yield address, client
    finally:
        client.run(_undo)
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])


def test_a_worker_with_another_core_is_refused_before_anything_runs(tmp_path, patched):
    address, client = patched
    client.run(_fake_build)
    (worker,) = client.scheduler_info(n_workers=-1)["workers"]
    with pytest.raises(ClusterError, match=f"1 of 1 worker.*{address}.*run another dcnsim core or Python code than "
                                           rf"this process \({re.escape(dcnsim.core_id())} \(metrics [0-9a-f]+\)\): "
                                           f"{worker}.*0ldbu1ld00000000"):
        run_sweep(points()[:2], tmp_path, progress=False, cluster=address)
    assert not any(tmp_path.rglob("summary.json"))


def test_a_worker_with_other_metrics_code_is_refused_before_anything_runs(tmp_path, patched):
    """The same core, another result.py: its points' metrics were stored,
    and every resume replaced them again (the check read the core alone)."""
    address, client = patched
    client.run(_fake_metrics)
    with pytest.raises(ClusterError, match=r"run another dcnsim core or Python code than this process .*"
                                           r"\(metrics 0ldmetr1cs000000\)"):
        run_sweep(points()[:2], tmp_path, progress=False, cluster=address)
    assert not any(tmp_path.rglob("summary.json"))


def test_a_point_computed_by_another_core_is_not_stored(tmp_path, patched):
    address, client = patched
    client.run(_fake_record)  # passes the check at the start; its records do not
    pts = points()[:2]
    with pytest.raises(SweepError, match="computed by worker .* with dcnsim core .*0ldbu1ld00000000.*not stored") as e:
        run_sweep(pts, tmp_path, progress=False, cluster=address)
    assert sorted(e.value.failures) == sorted(p.label for p in pts)
    assert not any(tmp_path.rglob("summary.json"))
    assert e.value.df is not None and len(e.value.df) == 0


def test_a_scheduler_without_workers_is_said_and_bounded(tmp_path, fast):
    with distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=None) as c:
        with pytest.warns(dcnsim.DcnsimWarning, match="has no workers; waiting up to 1 s"):
            with pytest.raises(ClusterError, match=f"the Dask scheduler at '{c.scheduler_address}' has no workers "
                                                   r"\(waited 1 s\): start one with: dask worker"):
                run_sweep(points()[:1], tmp_path, progress=False, cluster=c.scheduler_address)
    assert not any(tmp_path.rglob("summary.json"))


def _after_the_check(monkeypatch, then):
    """Run ``then(client)`` once the sweep has checked the cluster, before
    it submits: the cluster changes mid-sweep, deterministically."""
    real = sweep_mod._check_cores

    def check(client, *a, **k):
        why = real(client, *a, **k)
        then(client)
        return why

    monkeypatch.setattr(sweep_mod, "_check_cores", check)


def test_every_worker_gone_mid_sweep_is_a_clear_error(tmp_path, fast, monkeypatch):
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as c:
        def retire(client):
            c.scale(0)
            end = time.monotonic() + 10
            while client.nthreads() and time.monotonic() < end:
                time.sleep(0.05)

        _after_the_check(monkeypatch, retire)
        with pytest.warns(dcnsim.DcnsimWarning, match="every worker of the Dask scheduler left; waiting up to 1 s"):
            with pytest.raises(ClusterLostError, match=f"every worker of the Dask scheduler at '{c.scheduler_address}' "
                                                       r"left \(none for 1 s\) after 0 of 2 point\(s\) run"):
                run_sweep(points()[:2], tmp_path, progress=False, cluster=c.scheduler_address)


def test_a_lost_scheduler_is_one_line_with_the_resume_command(tmp_path, monkeypatch, capfd):
    c = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None)
    try:
        _after_the_check(monkeypatch, lambda client: c.close())
        argv = ["sweep", str(DATA / "small_incast.toml"), "--set", "topology.buffer=16KB,32KB",
                "--out", str(tmp_path / "o"), "--no-progress", "--cluster", c.scheduler_address]
        rc = cli.main(argv)
    finally:
        c.close()
    err = capfd.readouterr().err
    assert rc == 2
    lines = [ln for ln in err.strip().splitlines() if ln]
    assert len(lines) == 1, err
    assert lines[0].startswith(f"sweep: cluster: lost the Dask scheduler at '{c.scheduler_address}' after 0 of 2 ")
    assert "finished points are kept" in lines[0] and lines[0].endswith("resume with: dcnsim " + " ".join(argv))
    assert not (point_dir(tmp_path / "o", "topology.buffer=16KB") / "summary.json").exists()


def test_reproduce_report_names_the_cluster_not_a_local_worker_count(tmp_path, one_worker):
    from dcnsim.experiments import reproduce
    from test_reproduce_fast import fake_paper

    address, _ = one_worker
    reproduce(fake_paper(), out=tmp_path, jobs=1, progress=False, echo=None, cluster=address)
    text = (tmp_path / "report.md").read_text()
    assert f"on the Dask cluster at {address}" in text and "1 worker process(es)" not in text


_STARTED = threading.Event()
_REAL_POINT = sweep_mod._cluster_point


def _slow_point(*a, **k):
    # on a worker in this process (pickled by reference): the point waits
    # here while the scheduler goes
    _STARTED.set()
    time.sleep(3)
    return _REAL_POINT(*a, **k)


def test_a_scheduler_lost_while_points_run_is_a_lost_cluster(tmp_path, monkeypatch):
    c = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None)
    _STARTED.clear()
    monkeypatch.setattr(sweep_mod, "_cluster_point", _slow_point)

    def kill():
        _STARTED.wait(30)
        c.close()

    killer = threading.Thread(target=kill, daemon=True)
    killer.start()
    try:
        with pytest.raises(ClusterLostError, match=f"lost the Dask scheduler at '{c.scheduler_address}' after 0 of 2 "
                                                   r"point\(s\) run \(0 of 2 complete\); finished points are kept"):
            run_sweep(points()[:2], tmp_path, progress=False, cluster=c.scheduler_address)
    finally:
        killer.join(30)
        c.close()
