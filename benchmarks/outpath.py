"""A measuring script's ``--json`` path, checked before the measuring: the
record is written after minutes of runs, so a path that cannot take it
is refused at once (shared by the scripts here; no dcnsim import, as
machine_noise.py runs without the simulator)."""

from __future__ import annotations

import argparse
import os
from typing import Union


def check_json_path(ap: argparse.ArgumentParser, path: Union[str, "os.PathLike[str]", None]) -> None:
    """``ap.error`` unless ``path`` (None: no record asked for) can be
    written: its directory exists and takes files."""
    if path is None:
        return
    parent = os.path.dirname(os.path.abspath(os.path.expanduser(os.fspath(path))))
    if not os.path.isdir(parent):
        ap.error(f"--json: {path}: no directory {parent} to write it in")
    if not os.access(parent, os.W_OK):
        ap.error(f"--json: {path}: cannot write in {parent}")
