"""One reader of a results directory's tables (dcnsim._tables): the paper
analyses (experiments.framework.read_table), the incast model beside a run
(models.fromrun) and Kulkarni's per-point tables find the same file in
either format and agree on what a missing table is."""


import dcnsim
import pytest
from conftest import needs_core
from dcnsim import _tables
from dcnsim.experiments import framework
from dcnsim.experiments.kulkarni.common import _PointTables
from dcnsim.models import fromrun
from test_fromrun import _incast


@pytest.fixture(scope="module")
def result():
    return dcnsim.run(_incast(8, blocks=4))


@needs_core
@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_every_reader_reads_the_table_the_run_wrote(result, tmp_path, fmt):
    d = result.write(tmp_path / "r", format=fmt)
    assert _tables.table_file(d, "flows") == d / f"flows.{fmt}"
    want = result.tables["flows"]
    for got in (framework.read_table(d, "flows"), framework.read_table({"dir": str(d)}, "flows"),
                fromrun.read_table(d, "flows"), _PointTables(d)["flows"]):
        assert list(got.columns) == list(want.columns)
        assert got["segments_sent"].tolist() == want["segments_sent"].tolist()
    cols = ["flow_id", "timeouts"]
    assert list(framework.read_table(d, "flows", columns=cols).columns) == cols


@needs_core
def test_a_rewrite_in_the_other_format_leaves_one_file_to_find(result, tmp_path):
    d = result.write(tmp_path / "r", format="csv")
    with pytest.warns(dcnsim.DcnsimWarning):
        result.write(d, format="parquet")
    assert not (d / "flows.csv").exists()
    assert _tables.table_file(d, "flows") == d / "flows.parquet"


@needs_core
def test_a_missing_table_is_an_error_to_the_analyses_and_none_to_the_model(result, tmp_path):
    d = result.write(tmp_path / "r")
    (d / "losses.csv").unlink()
    with pytest.raises(FileNotFoundError, match=r"no losses\.csv or losses\.parquet"):
        framework.read_table(d, "losses")
    assert fromrun.read_table(d, "losses") is None
    assert _PointTables(d)["losses"] is None
    assert framework.table_version(d, "losses") == 0.0
    # the model does not need them: ζ falls back to the strict count (the
    # dissertation's reading needs the losses' timeouts), not a crash
    inputs = fromrun.model_from_run(d).inputs
    assert inputs.n == 8 and inputs.zeta == inputs.zeta_strict
