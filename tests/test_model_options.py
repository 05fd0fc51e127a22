"""`dcnsim model` options: `enqueue --mss` (and `--rmin`) take sizes as
`dctcp --mss` does (`1460B`, `9KB`: KB = 1024 B, as scenario files), and
every subcommand's error starts with the option to change."""

from __future__ import annotations

import json

import pytest
from conftest import needs_core
from dcnsim.cli import main


def _run(capsys, *argv: str):
    rc = main(["model", *argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.mark.parametrize("sized, bare", [
    (["--mss", "1460B"], ["--mss", "1460"]),
    (["--mss", "9KB", "--rmin", "1KB,9KB"], ["--mss", "9216", "--rmin", "1024,9216"]),
])
def test_enqueue_takes_sizes_as_dctcp_does(capsys, sized, bare):
    args = ["enqueue", "--trials", "50", "--json"]
    rc, a, err = _run(capsys, *args, *sized)
    assert rc == 0, err
    rc, b, err = _run(capsys, *args, *bare)
    assert rc == 0, err
    assert a == b and len(a.splitlines()) >= 2


def test_enqueue_prints_the_mss_it_read(capsys):
    rc, out, err = _run(capsys, "enqueue", "--trials", "5", "--mss", "2KB", "--rmin", "1")
    assert rc == 0, err
    assert "(MSS 2048 B," in out.splitlines()[0], out


def test_the_same_mss_mistake_reads_the_same_in_both_models(capsys):
    said = {}
    for model in ("dctcp", "enqueue"):
        rc, _, err = _run(capsys, model, "--mss", "0")
        assert rc == 2
        said[model] = err.strip()
    assert said["dctcp"] == "model dctcp: --mss: must be > 0, got '0'"
    assert said["enqueue"] == "model enqueue: --mss: must be > 0, got '0'"


@pytest.mark.parametrize("argv, starts", [
    (["enqueue", "--mss", "abc"], "model enqueue: --mss: "),
    (["enqueue", "--mss", "1500b"], "model enqueue: --mss: "),
    (["enqueue", "--rmin", "1,abc"], "model enqueue: --rmin: "),
    (["enqueue", "--rmin", "2000"], "model enqueue: --rmin: "),
    (["dctcp", "--mss", "abc"], "model dctcp: --mss: "),
    (["incast", "--from-run", "no/such/dir"], "model incast: --from-run: "),
])
def test_every_model_error_names_its_option(capsys, argv, starts):
    rc, _, err = _run(capsys, *argv)
    assert rc == 2 and err.startswith(starts), err


_TWO_APPS = """
name = "two-apps"
stop = "1s"
[topology]
kind = "star"
hosts = 5
rate = "1Gbps"
delay = "10us"
buffer = "64KB"
[[apps]]
kind = "sync_reads"
client = 0
servers = "1-2"
sru = "16KB"
blocks = 2
[[apps]]
kind = "sync_reads"
client = 3
servers = "4-4"
sru = "16KB"
blocks = 2
"""


@needs_core
def test_incast_says_which_app_option_is_wrong(tmp_path, capsys):
    f = tmp_path / "two.toml"
    f.write_text(_TWO_APPS)
    assert main(["run", str(f), "--out", str(tmp_path / "out")]) == 0
    capsys.readouterr()
    d = str(tmp_path / "out")
    rc, _, err = _run(capsys, "incast", "--from-run", d)
    assert rc == 2 and err.startswith("model incast: --app: ") and "apps 0, 1" in err, err
    rc, _, err = _run(capsys, "incast", "--from-run", d, "--app", "5")
    assert rc == 2 and err.startswith("model incast: --app: ") and "app 5" in err, err
    rc, out, err = _run(capsys, "incast", "--from-run", d, "--app", "1", "--json")
    assert rc == 0 and json.loads(out)["inputs"]["n"] == 1, err


@pytest.mark.parametrize("mss", ["1500", "1.5KB"])
def test_dctcp_takes_a_buffer_in_packets_as_scenario_files_hold_it(capsys, mss):
    """`--buffer 100pkt` (a scenario's `buffer = "100pkt"`, the paper's B in
    packets) was refused as not a size: it is 100 full segments, the same
    model as `--buffer` given their bytes, in each reading of a KB in the
    MSS; anything else that is not a size is still refused."""
    def model(buffer, m):
        rc, out, err = _run(capsys, "dctcp", "--mss", m, "--buffer", buffer, "--json")
        assert rc == 0, err
        return json.loads(out)

    pkts = model("100pkt", mss)
    for reading in ("decimal", "binary"):
        if reading not in pkts:
            continue
        seg = pkts[reading]["mss_bytes"]
        assert pkts[reading]["B_bytes"] == 100 * seg
        same = model(str(int(100 * seg)), str(int(seg)))
        assert pkts[reading]["n_star_max"] == pytest.approx(same["decimal"]["n_star_max"])
    rc, out, err = _run(capsys, "dctcp", "--buffer", "100pkt")
    assert rc == 0 and "(100pkt of 1,500 B)" in out, out
    rc, _, err = _run(capsys, "dctcp", "--buffer", "100xyz")
    assert rc == 2 and err.startswith("model dctcp: --buffer: "), err


def test_a_fraction_of_a_byte_and_a_missing_required_option_are_one_line(capsys):
    """`model enqueue --rmin 1.5` ran rMin = 2 without a word (the Python
    API refuses the fraction), and `model incast` without --from-run
    printed argparse's usage block, where every other model error is one
    line naming the option."""
    from dcnsim import cli as cli_mod

    assert cli_mod.main(["model", "enqueue", "--rmin", "1.5"]) == 2
    assert capsys.readouterr().err.strip() == "model enqueue: --rmin: '1.5' is not a whole number of bytes"
    try:
        code = cli_mod.main(["model", "incast"])
    except SystemExit as e:
        code = e.code
    assert code == 2
    assert capsys.readouterr().err.strip() == "model incast: --from-run: required"
