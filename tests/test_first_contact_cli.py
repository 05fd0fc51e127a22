"""A new user's first commands: each bad option is refused by name, with
its reason and exit status 2, before anything runs; no command loses what
an earlier one wrote."""

from __future__ import annotations

import pytest
from conftest import DATA, cli


@pytest.mark.parametrize("seed", ["-1", "abc", "1.5", str(2**64)])
def test_run_seed_out_of_range_is_the_options_error_not_the_files(seed):
    # the file's own seed is fine: the problem is --seed's, and it says so
    f = str(DATA / "small_incast.toml")
    r = cli("run", f, "--seed", seed)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    last = r.stderr.strip().splitlines()[-1]
    assert "--seed" in last and "[0, 2^64)" in last and repr(seed) in last, r.stderr
    assert not last.startswith(f), r.stderr
