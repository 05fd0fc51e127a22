"""Auto-tuning: search a scenario's free parameters for an objective.

``dcnsim tune`` (and :func:`dcnsim.tune`) asks Optuna (a TPE or random sampler)
for points in the ranges given, runs every point on the same seeds as an
ordinary sweep point (:func:`dcnsim.sweep.run_sweep`: cached in
``OUT/runs``, resumable, locally parallel or on a Dask cluster), and tells
Optuna the objective's mean over the seeds. A constraint (``goodput >= 0.95
× baseline``) is judged against a baseline run on the same seeds; trials
that break it are kept but never chosen.

Determinism: trial *k*'s sampler is seeded with :func:`trial_seed`
(``sampler_seed`` × 1,000,003 + k, modulo 2^32) and sees only the trials
before it, so the same arguments give the same trials
whether the study ran in one go or was interrupted and resumed. Trials run
one after another (their seeds in parallel): a trial's point depends on
every result before it.

Resuming: the study lives in ``OUT/study.log`` (Optuna's journal file
storage). Rerunning the same command continues it up to ``trials``
finished trials; finished trials are not run again, and a trial cut off in
the middle is re-asked with the same point (its finished seeds come from
the cache). The directory remembers what it was tuned for: another
scenario, range, objective, seed list, constraint, baseline or sampler in
the same ``OUT`` is an error naming what differs.

Output in ``OUT``: ``trials.csv`` (one row per trial: parameters, the
objective per seed, its mean and 95 % confidence half-width, the
constraint's metric, feasibility), ``confirm.csv`` (the best point, the
baseline and the reference run again on ``confirm_seeds``: mean ± 95 % CI
and the paired difference against each), ``best.json``, and one
``objective_vs_<param>.png`` per parameter.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import re
import sys
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from .errors import DcnsimWarning, ScenarioError, caller_stacklevel
from .scenario import as_dict, with_overrides

# `dcnsim --version`, `run` and every other command build the tune
# subparser from this module: what a search needs (numpy and pandas through
# analysis, the sweep's process pool, Optuna) is imported where it runs.

__all__ = ["Param", "Objective", "Constraint", "TuneError", "TuneResult", "tune",
           "parse_param", "parse_constraint", "objective_named", "OBJECTIVES"]

STUDY = "dcnsim-tune"


class TuneError(ValueError):
    """Bad tuning input; the message starts with the flag or argument at fault."""


# ----------------------------------------------------------------- parameters

_NUM = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


@dataclass(frozen=True)
class Param:
    """One searched parameter: a scenario path (as ``--set``'s, e.g.
    ``tcp.probretx_p`` or ``apps.0.tcp.dsr_cwnd``) and its range.

    ``kind`` is ``float``, ``int`` or ``choice``; ``log`` samples on a log
    scale; ``unit`` says a range was given as times (``"s"``: ``1ms:200ms``,
    written back to the scenario in microseconds) or packets (``"pkt"``:
    ``2pkt:60pkt``, an int range written back as ``"20pkt"``)."""

    path: str
    kind: str = "float"
    low: float = 0.0
    high: float = 1.0
    log: bool = False
    choices: Tuple[Any, ...] = ()
    unit: str = ""

    def __post_init__(self) -> None:
        where = f"params {self.path!r}"
        if not self.path or self.path.startswith(".") or self.path.endswith("."):
            raise TuneError(f"params: bad scenario path {self.path!r}")
        if self.kind not in ("float", "int", "choice"):
            raise TuneError(f"{where}: kind must be float, int or choice, got {self.kind!r}")
        if self.kind == "choice":
            if len(self.choices) < 1:
                raise TuneError(f"{where}: a choice needs at least one value")
            return
        if not (math.isfinite(self.low) and math.isfinite(self.high)):
            raise TuneError(f"{where}: bounds must be finite numbers")
        if self.low > self.high:
            raise TuneError(f"{where}: low bound {self.low:g} is above the high bound {self.high:g}")
        if self.log and self.low <= 0:
            raise TuneError(f"{where}: a log-scale range needs a low bound > 0, got {self.low:g}")
        if self.kind == "int" and (self.low != int(self.low) or self.high != int(self.high)):
            raise TuneError(f"{where}: an int range needs whole bounds, got {self.low:g}:{self.high:g}")

    def suggest(self, trial: Any) -> Any:
        """Ask ``trial`` (an Optuna trial) for a value; returns what goes into the scenario."""
        if self.kind == "choice":
            return trial.suggest_categorical(self.path, list(self.choices))
        if self.kind == "int":
            return self.to_scenario(trial.suggest_int(self.path, int(self.low), int(self.high), log=self.log))
        return self.to_scenario(trial.suggest_float(self.path, self.low, self.high, log=self.log))

    def to_scenario(self, v: Any) -> Any:
        if self.kind == "choice":
            return v
        if self.unit == "s":
            return f"{v * 1e6:.9g}us"
        if self.unit == "pkt":
            return f"{int(v)}pkt"
        return v

    def contains(self, v: Any) -> bool:
        if self.kind == "choice":
            return v in self.choices
        try:
            x = float(_from_scenario(self, v))
        except (TypeError, ValueError):
            return False
        return self.low <= x <= self.high

    def describe(self) -> str:
        if self.kind == "choice":
            return ",".join(map(str, self.choices))
        unit = self.unit
        return f"{'log ' if self.log else ''}{self.kind} {self.low:g}{unit}..{self.high:g}{unit}"


def _bound(text: str, flag: str) -> Tuple[float, str]:
    """A range bound: a number, or a time with its unit (returned in seconds)."""
    t = text.strip()
    if _NUM.match(t):
        return float(t), ""
    m = re.match(r"^(\d+)\s*pkts?$", t, re.IGNORECASE)
    if m:
        return float(m.group(1)), "pkt"
    from .units import UnitError, parse_time

    try:
        return parse_time(t), "s"
    except UnitError as e:
        raise TuneError(f"{flag}: bound {t!r} is neither a number, a packet count ('20pkt') nor a time ({e}); "
                        "a size range takes plain bytes (topology.buffer=int:65536:1048576), "
                        "a rate is a choice (topology.rate=choice:1Gbps,10Gbps)") from None


def parse_param(spec: str) -> Param:
    """``PATH=LOW:HIGH`` (float), ``PATH=int:LOW:HIGH``, ``PATH=log:LOW:HIGH``,
    ``PATH=int,log:LOW:HIGH`` or ``PATH=choice:A,B,C``. Bounds may be
    times (``tcp.rto_min=log:1ms:200ms``) or packets (``topology.ecn_k=2pkt:60pkt``)."""
    flag = f"params {spec!r}"
    if "=" not in spec:
        raise TuneError(f"{flag}: expected PATH=LOW:HIGH, PATH=int:LOW:HIGH, PATH=log:LOW:HIGH "
                        "or PATH=choice:A,B,...")
    path, rng = (s.strip() for s in spec.split("=", 1))
    if not path:
        raise TuneError(f"{flag}: no scenario path before '='")
    mods: List[str] = []
    m = re.match(r"^([a-z,]+):(.*)$", rng)
    if m and all(x in ("int", "log", "float", "choice") for x in m.group(1).split(",")):
        mods, rng = m.group(1).split(","), m.group(2)
    if "choice" in mods:
        from ._args import parse_value, split_values

        try:
            raw = split_values(rng)
            if "" in raw and len(raw) > 1:
                # `choice:1ms,,2ms` (as --seeds and --set refuse): a value meant there, or a typo
                raise ValueError(f"choice:{rng}: an empty value between commas")
            vals = tuple(parse_value(v) for v in raw if v != "")
        except ValueError as e:
            raise TuneError(f"{flag}: {e}") from None
        if not vals:
            raise TuneError(f"{flag}: choice needs values, e.g. choice:default,aggressive")
        try:
            return Param(path, "choice", choices=vals)
        except TuneError as e:
            raise TuneError(f"{flag}: {e}") from None
    parts = rng.split(":")
    if len(parts) != 2 or not all(p.strip() for p in parts):
        hint = f" (a list of values is a choice: {path}=choice:{rng})" if len(parts) == 1 and "," in rng else ""
        raise TuneError(f"{flag}: the range must be LOW:HIGH, got {rng!r}{hint}")
    (lo, ulo), (hi, uhi) = _bound(parts[0], flag), _bound(parts[1], flag)
    if ulo != uhi:
        raise TuneError(f"{flag}: give both bounds with the same unit (a time or pkt), or neither")
    kind = "int" if "int" in mods or ulo == "pkt" else "float"
    if kind == "int" and ulo == "s":
        raise TuneError(f"{flag}: an int range takes plain numbers or packets, not times")
    try:
        return Param(path, kind, lo, hi, log="log" in mods, unit=ulo)
    except TuneError as e:
        raise TuneError(f"{flag}: {str(e).split(': ', 1)[-1]}") from None


# ------------------------------------------------------------------ objectives

Evaluator = Callable[[Mapping[str, Any], Path], float]


@dataclass(frozen=True)
class Objective:
    """What a run is scored by: ``fn(record, point_dir)`` -> a number, where
    ``record`` is the run's summary record (``Result.summary_record``:
    the summary and every metric) and ``point_dir`` holds its tables."""

    name: str
    direction: str
    fn: Evaluator = field(compare=False)

    def __post_init__(self) -> None:
        if self.direction not in ("minimize", "maximize"):
            raise TuneError(f"objective {self.name!r}: direction must be minimize or maximize, got {self.direction!r}")


def _metric(key: str) -> Evaluator:
    def f(rec: Mapping[str, Any], _d: Path) -> float:
        v = rec.get(key)
        return float(v) if v is not None else math.nan
    return f


def _fct(stat: str) -> Evaluator:
    def f(_rec: Mapping[str, Any], d: Path) -> float:
        import numpy as np

        from .analysis import _tcp
        from .experiments.framework import read_table

        # flows with a completion time: not UDP's open-loop sources (whose
        # "FCT" is their duration), as fct_bins counts them
        flows = _tcp(read_table(d, "flows"))
        done = flows[flows["completed"].astype(bool)]["fct_s"].to_numpy(dtype=float)
        if not len(done):
            return math.nan
        return float(done.mean() if stat == "mean" else np.percentile(done, 99))
    return f


#: name -> (the run's quantity, its natural direction)
OBJECTIVES: Dict[str, Tuple[Evaluator, str, str]] = {
    "qct_mean": (_metric("qct_mean_s"), "minimize", "mean query completion time, s"),
    "qct_p99": (_metric("qct_p99_s"), "minimize", "99th-percentile query completion time, s"),
    "goodput": (_metric("goodput_bps"), "maximize", "goodput of all flows, bit/s"),
    "block_goodput": (_metric("block_goodput_bps"), "maximize", "synchronized-reads block goodput, bit/s"),
    "jain": (_metric("jain"), "maximize", "Jain's index of the bulk flows' goodput"),
    "fct_mean": (_fct("mean"), "minimize", "mean flow completion time of completed flows (UDP sources aside), s"),
    "fct_p99": (_fct("p99"), "minimize", "99th-percentile flow completion time (UDP sources aside; numpy's linear interpolation), s"),
    "timeouts": (_metric("timeouts"), "minimize", "retransmission timeouts, all flows"),
}


def objective_named(name: str, direction: Optional[str] = None, flag: str = "objective") -> Objective:
    """A named objective (:data:`OBJECTIVES`), or any key of a run's summary
    record (``qct_p50_s``, ``drops``, …), which then needs ``direction``."""
    if name in OBJECTIVES:
        fn, natural, _ = OBJECTIVES[name]
        return Objective(name, direction or natural, fn)
    if not re.match(r"^[a-z][a-z0-9_]*$", name):
        raise TuneError(f"{flag}: {name!r} is not a metric name (known: {', '.join(OBJECTIVES)})")
    if direction is None:
        import difflib

        close = difflib.get_close_matches(name, list(OBJECTIVES), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise TuneError(f"{flag}: {name!r} is not one of {', '.join(OBJECTIVES)}{hint}; for another summary "
                        "metric give direction='minimize' or 'maximize'")
    return Objective(name, direction, _metric(name))


@dataclass(frozen=True)
class Constraint:
    """``metric op bound``, or ``metric op bound × baseline`` when ``relative``."""

    metric: str
    op: str
    bound: float
    relative: bool = False
    #: the bound was written with its unit (``10ms``), so it is not
    #: checked for a unit left out
    unit_given: bool = field(default=False, compare=False)

    def text(self) -> str:
        return f"{self.metric} {self.op} {self.bound:g}{' × baseline' if self.relative else ''}"


def parse_constraint(text: str) -> Constraint:
    """``goodput>=0.95*baseline``, ``timeouts<=10``; an absolute bound of a
    rate or a time may carry its unit (``goodput>=900Mbps``,
    ``qct_p99<=10ms``), a bare number is in SI units (bit/s, s)."""
    flag = f"constraint {text!r}"
    # a unit may stand apart from its number (``900 Mbps``), as in a scenario
    m = re.match(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(>=|<=)\s*([^*\s]+(?:\s+[A-Za-z/%]+)?)\s*(\*\s*baseline)?\s*$",
                 text)
    if not m:
        raise TuneError(f"{flag}: expected METRIC>=X, METRIC<=X or METRIC>=X*baseline "
                        "(e.g. goodput>=0.95*baseline)")
    try:
        bound, unit_given = float(m.group(3)), False
    except ValueError:
        bound, unit_given = _bound_with_unit(m.group(1), m.group(3), bool(m.group(4)), flag), True
    if not math.isfinite(bound):
        raise TuneError(f"{flag}: the bound must be finite")
    objective_named(m.group(1), "minimize", flag)  # checks the name
    return Constraint(m.group(1), m.group(2), bound, bool(m.group(4)), unit_given)


def _bound_with_unit(metric: str, text: str, relative: bool, flag: str) -> float:
    """A constraint's bound written with a unit, in SI: ``900Mbps`` for a
    rate metric, ``10ms`` for a time; a relative bound is a plain factor."""
    from . import units

    unit = display_unit(metric)[1]
    if relative or not unit:
        what = "a relative bound is a plain factor" if relative else f"{metric} has no unit"
        if not relative and metric not in OBJECTIVES:
            # a mistyped rate or time (`gooput>=900Mbps`) has no unit either:
            # its unit is refused, and the name is the mistake to point at
            import difflib

            close = difflib.get_close_matches(metric, list(OBJECTIVES), n=1)
            what += f"; did you mean {close[0]!r}?" if close else ""
        raise TuneError(f"{flag}: {text!r} is not a number ({what})")
    try:
        return units.parse_rate(text) if unit == "Mbps" else units.parse_time(text)
    except units.UnitError as e:
        raise TuneError(f"{flag}: {e}") from None


def _check_not_timing(metric: Optional[str], flag: str) -> None:
    """Warn of a metric that is how a run was computed (its wall-clock
    time, its threads), not what it simulated: it differs from one run and
    machine to the next, and a cached trial keeps its first run's, so the
    same arguments no longer give the same trials."""
    from .result import PARALLEL_TIMING, TIMING_KEYS

    if metric is not None and metric in (*TIMING_KEYS, *PARALLEL_TIMING):
        warnings.warn(DcnsimWarning(flag, f"{metric} is how the runs were computed, not what they simulated: it "
                                          "varies from run to run and machine to machine, a cached trial keeps its "
                                          "first run's, and the same arguments no longer give the same trials"),
                      stacklevel=caller_stacklevel())


#: a rate bound below this, given as a bare number, was probably meant in
#: Mbps (``goodput>=900``: 900 bit/s, which every trial meets)
_SMALL_RATE_BOUND = 1e4


#: a time bound of at least this, given as a bare number, was probably
#: meant in ms, the unit tune's tables print times in (``qct_p99<=10``: 10 s)
_LARGE_TIME_BOUND = 1.0


def _check_bound_unit(cons: Constraint) -> None:
    """Warn of a bare absolute rate bound too small to be meant in bit/s,
    or a bare time bound too large to be meant in seconds."""
    unit = display_unit(cons.metric)[1]
    if not cons.relative and not cons.unit_given and unit == "ms" and abs(cons.bound) >= _LARGE_TIME_BOUND:
        warnings.warn(DcnsimWarning("constraint", f"{cons.metric} {cons.op} {cons.bound:g} is {cons.bound:g} s (a bare "
                                    f"bound is in SI units, though tune prints {cons.metric} in ms); did you mean "
                                    f"{cons.metric}{cons.op}{cons.bound:g}ms? (write {cons.bound:g}s to keep seconds)"),
                      stacklevel=caller_stacklevel())
        return
    if cons.relative or unit != "Mbps" or not 0 < abs(cons.bound) < _SMALL_RATE_BOUND:
        return

    meant = f"{cons.metric}{cons.op}{cons.bound:g}Mbps"
    if 0 < cons.bound <= _FACTOR_BOUND:
        # `goodput>=0.95` is more likely a relative bound without its baseline
        meant = f"{cons.metric}{cons.op}{cons.bound:g}*baseline or {meant}"
    warnings.warn(DcnsimWarning("constraint", f"{cons.metric} {cons.op} {cons.bound:g} is {cons.bound:g} bit/s (a bare "
                                f"bound is in SI units), which every run of a data-center network meets or misses "
                                f"alike; did you mean {meant}?"),
                  stacklevel=caller_stacklevel())


#: a bare rate bound up to this may be a factor of the baseline whose
#: ``*baseline`` was left out (``goodput>=0.95``)
_FACTOR_BOUND = 2.0


# ---------------------------------------------------------------------- running


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _label(over: Mapping[str, Any], seed: int) -> str:
    body = "__".join(f"{k}={_fmt(v)}" for k, v in over.items()) or "base"
    if len(body) > 180:  # file names stay short; the hash keeps them distinct
        body = body[:120] + "-" + hashlib.sha256(body.encode()).hexdigest()[:16]
    return f"{body}__seed={seed}"


@dataclass
class _Runner:
    base: Dict[str, Any]
    seeds: List[int]
    out: Path
    jobs: Optional[int]
    cluster: Optional[str]
    format: str

    def run(self, over: Mapping[str, Any], seeds: Optional[Sequence[int]] = None,
            tag: str = "", switched: bool = False) -> List[Tuple[int, Dict[str, Any], Path]]:
        """Run ``base`` with ``over`` on each seed (cached): (seed, record, dir).
        ``switched``: ``over`` may switch the scheme (the reference, ``tcp.cc =
        "fast"``): the keys it leaves inert are not warned of, its own are."""
        from .sweep import Point, SweepError, point_dir, run_sweep

        seeds = list(seeds if seeds is not None else self.seeds)
        scen = with_overrides(self.base, over)
        pts = [Point((tag + "__" if tag else "") + _label(over, s), scen, s) for s in seeds]
        caught: List[Any] = []
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                if tag == "baseline":
                    # the scheme switched off: its other keys are inert by design
                    # (`probretx_period` with `probretx_p = 0`), not the user's slip
                    warnings.simplefilter("ignore", DcnsimWarning)
                try:
                    df = run_sweep(pts, self.out / "runs", jobs=self.jobs, progress=False, format=self.format,
                                   cluster=self.cluster)
                except SweepError as e:
                    # a full disk or a read-only file system failed the runs,
                    # not the point: raised as the OSError it is, so no trial
                    # is recorded as failed for it (it is asked again on resume)
                    first = next(iter(e.environment.values()), None)
                    if first is not None:
                        raise first from e
                    raise
        finally:  # said after a Ctrl-C or a failure too, as they were when not recorded
            for w in caught:
                if not (_unfinished_said(w.message) or switched and _inert_by_switch(w.message, over)):
                    warnings.warn(w.message, w.category, stacklevel=caller_stacklevel())
        recs = df.to_dict("records")
        return [(s, r, point_dir(self.out / "runs", p.label)) for s, r, p in zip(seeds, recs, pts)]


def _unfinished_said(message: Any) -> bool:
    """The sweep's warning of apps unfinished at `stop`, which tune says
    itself: a trial fails with it as its reason (in trials.csv), a
    confirmation run is warned of by its point's name. It came once per
    trial besides, each naming its run's directory."""
    return (isinstance(message, DcnsimWarning) and message.field == "apps"
            and "had not finished at `stop`" in message.reason)


def _inert_by_switch(message: Any, over: Mapping[str, Any]) -> bool:
    """A warning that a key of the scenario changes nothing, where ``over``
    (a reference) switched the scheme that reads it: the FaST example's
    ``--reference tcp.cc=fast`` warned "tcp.dctcp_g: dctcp_g changes
    nothing", the very parameter the trials tune. A key ``over`` sets
    itself is still warned of (``--reference tcp.dctcp_g=0.1`` under
    cubic)."""
    if not isinstance(message, DcnsimWarning) or "changes nothing" not in message.reason:
        return False
    own = {re.split(r"[.\[\]]", str(k).rstrip("]"))[-1] for k in over}
    return re.split(r"[.\[\]]", str(message.field).rstrip("]"))[-1] not in own


def _values(runs: Sequence[Tuple[int, Dict[str, Any], Path]], ev: Evaluator) -> List[float]:
    return [float(ev(rec, d)) for _s, rec, d in runs]


# ------------------------------------------------------------------------ result


@dataclass
class TuneResult:
    """What :func:`tune` found. ``trials``: one row per trial; ``confirm``:
    best/baseline/reference on the confirmation seeds; ``best``: the best
    feasible trial (also in ``best.json``); ``figures``: the plots."""

    trials: Any
    confirm: Any
    best: Dict[str, Any]
    figures: List[Path]
    out_dir: Path
    computed: int = 0

    def __repr__(self) -> str:
        return f"<dcnsim.TuneResult {len(self.trials)} trials, best {self.best.get('params')} in {self.out_dir}>"


def _as_params(params: Any) -> List[Param]:
    out: List[Param] = []
    if isinstance(params, Mapping):
        for path, spec in params.items():
            if isinstance(spec, Param):
                out.append(spec)
            elif isinstance(spec, str):
                out.append(parse_param(f"{path}={spec}"))
            elif isinstance(spec, (tuple, list)) and len(spec) == 2 and all(isinstance(x, (int, float)) for x in spec):
                kind = "int" if all(isinstance(x, int) and not isinstance(x, bool) for x in spec) else "float"
                out.append(Param(path, kind, float(spec[0]), float(spec[1])))
            elif isinstance(spec, (tuple, list)) and len(spec) == 2 and all(isinstance(x, str) for x in spec):
                # ("1ms", "5ms"): the pair of numbers is a number's range; a
                # range with units is the string form
                raise TuneError(f"params {path!r}: (low, high) takes numbers; a range with units is a string, "
                                f"'{spec[0]}:{spec[1]}' (or 'log:{spec[0]}:{spec[1]}')")
            else:
                raise TuneError(f"params {path!r}: give (low, high), a Param, or a range string like 'log:1e-4:0.1'")
    elif isinstance(params, (str, bytes)) or not isinstance(params, Iterable):
        raise TuneError(f"params: expected a mapping of field paths to ranges ({{'tcp.rto_min': '1ms:10ms'}}), "
                        f"Param objects or --param strings, got {params!r}")
    else:
        for p in params:
            out.append(p if isinstance(p, Param) else parse_param(str(p)))
    if not out:
        raise TuneError("params: give at least one parameter to tune")
    from ._args import field_key

    paths = [p.path for p in out]
    dup = sorted({p for p in paths if paths.count(p) > 1})
    if dup:
        raise TuneError(f"params: {', '.join(dup)} given more than once")
    # one field in two spellings (apps[0].size and apps.0.size): both were
    # searched, the later written over the earlier in every trial, and the
    # table showed two columns of which one was never run
    first: Dict[str, str] = {}
    for path in paths:
        other = first.setdefault(field_key(path), path)
        if other != path:
            raise TuneError(f"params: {other} and {path} name one field: give it once")
    for p in out:
        one = p.choices if p.kind == "choice" and len(set(p.choices)) == 1 else (
            (p.low,) if p.kind != "choice" and p.low == p.high else None)
        if one is not None:
            # allowed (a study's saved command run with a range narrowed to a point), but a search of
            # nothing, each trial the same run, is never what a typo in a range meant
            v = one[0] if p.kind == "choice" else p.to_scenario(int(p.low) if p.kind == "int" else p.low)
            warnings.warn(DcnsimWarning("params", f"{p.path} has one value ({v}): every trial runs it; give it "
                                                  "a range to search it, or set it as an override instead"),
                          stacklevel=caller_stacklevel())
    return out


def _own_code(obj: Objective) -> List[str]:
    """A digest of a user's own objective function's code, as one item, so a
    study resumed with another function under the same name is refused
    (its trials were scored by the old one); none for the named objectives
    (:data:`OBJECTIVES` and a run's summary keys), which the name fixes.
    The code's bytes, constants and names count, not where it sits in a
    file; values a closure captures do not."""
    fn = obj.fn
    named = OBJECTIVES.get(obj.name, (None,))[0] is fn or getattr(fn, "__qualname__", "").startswith("_metric.")
    code = getattr(fn, "__code__", None)
    if named or code is None:
        return []

    def digest(c: Any) -> bytes:
        consts = b"".join(digest(k) if hasattr(k, "co_code") else repr(k).encode() for k in c.co_consts)
        return c.co_code + consts + repr(c.co_names).encode()

    return ["code " + hashlib.sha256(digest(code)).hexdigest()[:16]]


def _spec_key(base: Mapping[str, Any], params: Sequence[Param], obj: Objective, seeds: Sequence[int],
              constraint: Optional[Constraint], baseline: Mapping[str, Any], sampler: str,
              sampler_seed: int) -> str:
    doc = {
        "scenario": base,
        "params": [[p.path, p.kind, p.low, p.high, p.log, [str(c) for c in p.choices], p.unit] for p in params],
        "objective": [obj.name, obj.direction, *_own_code(obj)], "seeds": list(seeds),
        "constraint": constraint.text() if constraint else None,
        "baseline": {k: _fmt(v) for k, v in baseline.items()}, "sampler": [sampler, sampler_seed],
    }
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), default=str)


def _open_study(out: Path, spec: str, direction: str):
    import optuna
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    out.mkdir(parents=True, exist_ok=True)
    journal = out / "study.log"
    _mend_journal(journal)
    sd = optuna.study.StudyDirection.MINIMIZE if direction == "minimize" else optuna.study.StudyDirection.MAXIMIZE
    try:  # the storage reads the journal as it is made
        storage = JournalStorage(JournalFileBackend(str(journal)))
        study = optuna.create_study(study_name=STUDY, storage=storage, direction=sd, load_if_exists=True)
    except ValueError as e:  # json's JSONDecodeError is one, as is Optuna's "Invalid log format"
        raise TuneError(f"out: {journal} cannot be read as Optuna's journal of a study ({e}): move it away to start "
                        f"the study afresh (the runs cached in {out / 'runs'} are reused), or use another out directory") from None
    old = study.user_attrs.get("spec")
    if old is None:
        study.set_user_attr("spec", spec)
    elif old != spec:
        raise TuneError(f"out: {out} holds a study of another {_spec_difference(old, spec)}; use another out "
                        "directory (or delete that one) to start afresh")
    return study


#: The parts of a study's spec (:func:`_spec_key`), as the refusal names them
_SPEC_PARTS = (("scenario", "scenario"),
               ("params", "parameter list or range"), ("objective", "objective or direction"),
               ("seeds", "seed list"), ("constraint", "constraint"), ("baseline", "baseline"),
               ("sampler", "sampler or sampler seed"))


def _spec_difference(old: str, new: str) -> str:
    """What differs between a study's saved spec and this call's: the
    parts by name, with both values where they are short (``constraint
    (the study's: goodput >= 0.9 × baseline; now: none)``). A constraint or
    a baseline changed was refused as "another scenario, range, objective,
    seed list or sampler", none of which the user had changed."""
    try:
        a, b = json.loads(old), json.loads(new)
    except ValueError:
        a, b = {}, {}
    if not isinstance(a, dict):
        a = {}
    names = []
    for key, what in _SPEC_PARTS:
        if key not in a or a.get(key) == b.get(key):
            continue
        if key == "scenario":
            paths = _paths_differing(a.get(key), b.get(key))
            names.append(f"{what}: {', '.join(paths[:4])}{' …' if len(paths) > 4 else ''} differ" if paths else what)
            continue
        x, y = (_spec_text(key, v) for v in (a.get(key), b.get(key)))
        names.append(f"{what} (the study's: {x}; now: {y})" if len(x) + len(y) < 160 else what)
    if not names:  # a spec of an older dcnsim, with other parts
        return "scenario, range, objective, seed list, constraint, baseline or sampler"
    return ", ".join(names[:-1]) + (" and " if len(names) > 1 else "") + names[-1]


def _spec_text(key: str, v: Any) -> str:
    if v is None or v == {}:
        return "none"
    if key == "params":
        return "; ".join(f"{p[0]} {p[1]}{' log' if p[4] else ''} "
                         + (",".join(p[5]) if p[1] == "choice" else f"{p[2]:g}..{p[3]:g}{p[6]}") for p in v)
    if key == "objective":
        return f"{v[1]} {v[0]}" + (f", a function of your own ({v[2]})" if len(v) > 2 else "")
    if key == "seeds":
        return ",".join(map(str, v))
    if key == "sampler":
        return f"{v[0]}, seed {v[1]}"
    if key == "baseline":
        return ", ".join(f"{k}={x}" for k, x in v.items())
    return str(v)


def _paths_differing(a: Any, b: Any, at: str = "") -> List[str]:
    """The scenario paths (as --set spells them) at which two documents differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        out: List[str] = []
        for k in sorted(set(a) | set(b), key=str):
            out += _paths_differing(a.get(k), b.get(k), f"{at}.{k}" if at else str(k))
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [p for i, (x, y) in enumerate(zip(a, b)) for p in _paths_differing(x, y, f"{at}.{i}")]
    return [] if a == b else [at or "the document"]


#: how far apart two sampler seeds' trial seeds start: more trials than any
#: study runs, so searches under two seeds below 2^32 / SEED_STRIDE (4,294)
#: never share a trial's seed (larger ones wrap modulo 2^32 and may)
SEED_STRIDE = 1_000_003


def trial_seed(sampler_seed: int, k: int) -> int:
    """The seed of trial ``k``'s sampler. ``sampler_seed + k`` gave a search
    under seed 1 the start-up points of seed 0's, shifted by one (5 of 6
    shared): a rerun meant to check the best under another seed was the
    same search. Seed 0's trials are k, as before; seeds below 4,294 never
    share one (larger ones wrap modulo 2^32 and may)."""
    return (sampler_seed * SEED_STRIDE + k) % 2**32


def _sampler(kind: str, seed: int):
    import optuna

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        if kind == "random":
            return optuna.samplers.RandomSampler(seed=seed)
        if kind == "tpe":
            return optuna.samplers.TPESampler(seed=seed, n_startup_trials=8, multivariate=True)
    raise TuneError(f"sampler: expected tpe or random, got {kind!r}")


@dataclass
class _Search:
    """What one tuning run needs at every step: the runner, the parameters,
    the objective and the constraint with its bound (None without one)."""

    runner: _Runner
    ps: List[Param]
    obj: Objective
    seeds: List[int]
    cons: Optional[Constraint]
    cons_ev: Optional[Evaluator]
    bound: Optional[float]

    def violation(self, rec_value: float) -> float:
        """How far a constraint metric is on the wrong side of its bound
        (≤ 0: feasible)."""
        assert self.cons is not None and self.bound is not None
        if not math.isfinite(rec_value):
            return math.inf
        return self.bound - rec_value if self.cons.op == ">=" else rec_value - self.bound

    def evaluate(self, trial: Any, over: Dict[str, Any]) -> Tuple[Optional[float], str]:
        """Run one trial's point on every seed and record it on the trial:
        (the objective's mean, or None and why)."""
        runs = self.runner.run(over)
        vals = _values(runs, self.obj.fn)
        for s, v in zip(self.seeds, vals):
            trial.set_user_attr(f"seed{s}", v if math.isfinite(v) else None)
        mean, half = _ci95(vals)
        trial.set_user_attr("ci95", half if math.isfinite(half) else None)
        if self.cons and self.cons_ev:
            cv = _ci95(_values(runs, self.cons_ev))[0]
            trial.set_user_attr("constraint_metric", cv if math.isfinite(cv) else None)
            trial.set_user_attr("violation", self.violation(cv))
            # the samplers read it: TPE models feasible and infeasible apart
            trial.set_constraint(self.cons.metric, self.violation(cv))
        # the stall first: it is also why an objective of completed flows or
        # queries is not a number (none completed), and the reason to give
        stalled = _unfinished(runs)
        if stalled:
            return None, (f"apps unfinished at stop on {_seeds_text(stalled)}: their unfinished rounds and flows "
                          f"are in no statistic, so {self.obj.name} would favour the stall; a longer stop, or a "
                          "range without it")
        bad = [s for s, v in zip(self.seeds, vals) if not math.isfinite(v)]
        if bad:
            return None, f"objective {self.obj.name} is not a number on {_seeds_text(bad)}"
        return mean, ""


def _seeds_text(seeds: Sequence[int]) -> str:
    return f"seed{'s' if len(seeds) > 1 else ''} {', '.join(map(str, seeds))}"


def _unfinished(runs: Sequence[Tuple[int, Dict[str, Any], Path]]) -> List[int]:
    """The seeds whose run ended with apps unfinished at `stop`: their
    unfinished rounds and flows are in no statistic (a stall past `stop`
    drops its slow rounds and its pending timeouts), so an objective read
    from such a run would favour the stall."""
    return [s for s, rec, _d in runs if float(rec.get("apps_unfinished") or 0) > 0]


def _ci95(values: Sequence[float]) -> Tuple[float, float]:
    """The mean and its 95 % half-width; one seed gives no interval: n/a
    (NaN, null in best.json), not ±0 (``analysis.ci95``'s rule; imported
    here, where it is used, as numpy is)."""
    from .analysis import ci95

    return ci95(values)


def _checked_seeds(trials: Any, seeds: Sequence[int], direction: Optional[str]) -> List[int]:
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise TuneError(f"trials: expected a positive integer, got {trials!r}")
    out = _seed_list(seeds, "seeds")
    if direction is not None and direction not in ("minimize", "maximize"):
        raise TuneError(f"direction: expected minimize or maximize, got {direction!r}")
    return out


def _seed_list(seeds: Any, name: str) -> List[int]:
    """``seeds`` as distinct whole numbers in the core's range, or a
    TuneError naming ``name``: a string ("12" is not seeds 1 and 2), a
    bare number or a fraction (3.9 is not seed 3) is refused."""
    from . import _SEED_RANGE, _seed_ok

    if isinstance(seeds, (str, bytes)) or not hasattr(seeds, "__iter__"):
        raise TuneError(f"{name}: expected a list of integers, got {seeds!r}")
    import operator

    out = []
    for v in seeds:
        try:
            if isinstance(v, bool):
                raise TypeError
            out.append(operator.index(v))  # ints and numpy's, not 3.9
        except TypeError:
            raise TuneError(f"{name}: expected whole numbers, got {v!r}") from None
    if not out or len(set(out)) != len(out):
        raise TuneError(f"{name}: expected distinct integers >= 0, got {out!r}")
    bad = next((v for v in out if not _seed_ok(v)), None)
    if bad is not None:  # the core's seed is 64 bits: every trial would fail
        raise TuneError(f"{name}: expected integers in {_SEED_RANGE}, got {bad}")
    return out


def _check_overrides(base: Dict[str, Any], ps: Sequence[Param], baseline: Mapping[str, Any],
                     reference: Optional[Mapping[str, Any]]) -> None:
    """Every override must make a valid scenario before anything runs: check
    the range ends, the baseline and the reference once."""
    from . import _problems

    # the scenario itself first: its problems once, as `dcnsim run` gives
    # them (each used to come again for the baseline and every range end,
    # blamed on the values)
    own = _problems(base)
    if own:
        raise ScenarioError(own)
    probes: List[Tuple[str, Mapping[str, Any]]] = [("baseline", baseline)]
    if reference:
        probes.append(("reference", reference))
    for p in ps:
        ends = list(p.choices) if p.kind == "choice" else [p.low, p.high]
        # a one-value range (int:9:9) has one end, probed once: its error
        # was listed twice
        for v in dict.fromkeys(ends):
            v = int(v) if p.kind == "int" else v
            # named by the value, which reads the same from Python (params) and the command (--param)
            probes.append((f"{p.path}={_fmt(v)} (a range end)", {p.path: p.to_scenario(v)}))
    errs: List[Any] = []
    unitless: Dict[str, str] = {}  # path -> the unit example its error gives
    for what, over in probes:
        try:
            problems = _problems(with_overrides(base, over))
        except ScenarioError as e:
            problems = list(e.errors)
        errs.extend(f"{what}: {pr}" for pr in problems)
        # a plain-number range over a field that wants a unit (1:200 for a
        # time): the fix is the range's spelling, not the scenario
        path = what.split("=", 1)[0]
        like = [m.group(1) for pr in problems if (m := re.search(r"with a unit like '([^']*)'", str(pr)))]
        if what.endswith("(a range end)") and like and path not in unitless:
            unitless[path] = like[0]
    if errs:
        hint = ""
        for q, example in unitless.items():
            unit = re.sub(r"^[0-9.]+", "", example)
            p = next(x for x in ps if x.path == q)
            hint += (f"\n  hint: {q} takes values with a unit (like '{example}'): give each end of the range "
                     f"one, e.g. {q}={float(p.low):g}{unit}:{float(p.high):g}{unit}")
        raise TuneError("the scenario is invalid with these values:\n  " + "\n  ".join(map(str, errs)) + hint)


#: Metrics only some apps make: a run without such an app has none (NaN),
#: so every trial would fail.
_NEEDS_APP = (("qct_", "partition_aggregate", "queries"), ("query_", "partition_aggregate", "queries"),
              ("n_queries", "partition_aggregate", "queries"), ("block_", "sync_reads", "blocks"),
              ("n_blocks", "sync_reads", "blocks"), ("jain", "bulk", "bulk flows"))


#: What Result.metrics adds to a run's summary record where its apps make
#: queries or blocks (a run cut to its first microsecond has them too, as 0
#: and NaN, but this list does not depend on that)
_LATE_METRICS = ("n_queries", "qct_mean_s", "qct_p50_s", "qct_p99_s", "qct_max_s", "query_timeouts_mean",
                 "query_request_timeouts_mean", "n_blocks", "block_goodput_bps", "block_timeouts",
                 "block_request_timeouts", "retransmits", "drops", "timeouts")


def _record_keys(base: Mapping[str, Any]) -> List[str]:
    """The keys a run of ``base`` can have in its summary record: those of
    a run of it cut to its first microsecond (the core's keys depend on the
    scenario's features, not its length) and the metrics completed queries
    and blocks add."""
    from . import run
    from .scenario import with_overrides

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rec = run(with_overrides(dict(base), {"stop": "1us"})).summary_record()
    # a metric is a number: the core's name and build and the warnings' text are not
    numeric = {k for k, v in rec.items() if v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))}
    return sorted(numeric | set(_LATE_METRICS))


def _check_metric(base: Mapping[str, Any], metric: str, flag: str, keys: Optional[Sequence[str]] = None) -> None:
    """A metric no run of the scenario can report (a typo), or one that
    needs an app kind the scenario lacks, fails now, not after every trial
    has run and failed (the default objective, qct_p99, on a scenario
    without queries). ``keys``: :func:`_record_keys` of ``base``."""
    if metric not in OBJECTIVES and keys is not None and metric not in keys:
        import difflib

        close = difflib.get_close_matches(metric, list(OBJECTIVES) + list(keys), n=1)
        hint = close[0] if close else None
        raise TuneError(f"{flag}: {metric!r} is not a metric a run of this scenario reports"
                        + (f" (did you mean {hint!r}?)" if hint else "")
                        + f"; named: {', '.join(OBJECTIVES)}; a run's summary keys: {', '.join(keys)}")
    apps = base.get("apps")
    apps = [apps] if isinstance(apps, Mapping) else list(apps or [])
    kinds = [str(a.get("kind")) for a in apps if isinstance(a, Mapping)]
    for prefix, kind, what in _NEEDS_APP:
        if metric.startswith(prefix) and kind not in kinds:
            have = ", ".join(dict.fromkeys(kinds)) or "none"
            # the named objectives these apps report (block_goodput for sync_reads ones)
            usable = [n for n in OBJECTIVES if all(not n.startswith(p) or k in kinds for p, k, _w in _NEEDS_APP)]
            raise TuneError(f"{flag}: {metric} needs {what}, which only a {kind} app makes, and the scenario's apps "
                            f"are {have}: every trial would fail (for these: {', '.join(usable)})")


def _constraint_bound(runner: _Runner, cons: Optional[Constraint],
                      baseline: Mapping[str, Any]) -> Tuple[Optional[Evaluator], Optional[float]]:
    """The constraint's metric and its bound: a relative constraint's is
    measured on the baseline, run on the search's seeds."""
    if not cons:
        return None, None
    cons_ev = objective_named(cons.metric, "minimize").fn
    bound = cons.bound
    if cons.relative:
        ref_v = _ci95(_values(runner.run(baseline, tag="baseline"), cons_ev))[0]
        if not math.isfinite(ref_v):
            raise TuneError(f"constraint: the baseline's {cons.metric} is not a number")
        bound = cons.bound * ref_v
    return cons_ev, bound


def _scenario_value(base: Mapping[str, Any], path: str) -> Any:
    """The value at ``path`` (``tcp.rto_min``, ``apps.0.size``) of the
    scenario document, or None where it does not set it."""
    cur: Any = base
    for part in path.split("."):
        if isinstance(cur, Mapping) and part in cur:
            cur = cur[part]
        elif isinstance(cur, list) and part.isdigit() and int(part) < len(cur):
            cur = cur[int(part)]
        else:
            return None
    return cur


def _resume(study: Any, ps: Sequence[Param], reference: Optional[Mapping[str, Any]],
            base: Optional[Mapping[str, Any]] = None) -> List[int]:
    """Close the trials an interruption cut off and ask their points again
    first; on a new study, enqueue the reference when it is a point of the
    search space, so the search starts from the paper's choice: the tuned
    parameters it leaves out as the scenario sets them (the point the
    confirmation runs as the reference), sampled where the scenario leaves
    them to the defaults. The cut-off trials' numbers."""
    from optuna.trial import TrialState

    interrupted = list(study.user_attrs.get("interrupted", []))
    for ft in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        study.tell(ft.number, state=TrialState.FAIL)
        interrupted.append(ft.number)
        if len(ft.params) == len(ps):
            study.enqueue_trial(dict(ft.params), skip_if_exists=False)
    study.set_user_attr("interrupted", interrupted)
    if reference:
        # the reference's keys as the parameters spell them (apps[0].size for apps.0.size)
        from ._args import field_key

        spelled = {field_key(p.path): p.path for p in ps}
        reference = {spelled.get(field_key(k), k): v for k, v in reference.items()}
    if reference and not study.trials and all(k in {p.path for p in ps} for k in reference):
        outside = [f"{p.path}={reference[p.path]}" for p in ps if p.path in reference and not p.contains(reference[p.path])]
        if outside:
            # documented as the first trial: a reference the ranges leave out is only compared with
            warnings.warn(DcnsimWarning("reference", f"{', '.join(outside)} is outside the range searched, so the "
                                                     "search does not start from the reference; confirm.csv compares "
                                                     "the best with it all the same"),
                          stacklevel=caller_stacklevel())
        else:
            point = {p.path: _from_scenario(p, reference[p.path]) for p in ps if p.path in reference}
            for p in ps:
                v = _scenario_value(base or {}, p.path) if p.path not in reference else None
                if v is not None and p.contains(v):
                    point[p.path] = _from_scenario(p, v)
            study.enqueue_trial(point)
    return interrupted


def _search(study: Any, s: _Search, trials: int, sampler: str, sampler_seed: int,
            interrupted: Sequence[int], progress: Optional[bool]) -> int:
    """Ask, run and tell trials until ``trials`` have finished; the trials
    computed by this call."""
    from optuna.trial import TrialState
    from tqdm.auto import tqdm

    from .sweep import ClusterError, environment_failure

    done = len(_finished(study, interrupted))
    show = progress if progress is not None else sys.stderr.isatty()
    bar = tqdm(total=trials, initial=min(done, trials), disable=not show, unit="trial", desc="tune")
    computed = 0
    try:
        while done < trials:
            # Seeded by its index among the study's trials: the same point
            # whether or not the study was interrupted before.
            study.sampler = _sampler(sampler, trial_seed(sampler_seed, done))
            trial = study.ask()
            over = {p.path: p.suggest(trial) for p in s.ps}
            try:
                value, why = s.evaluate(trial, over)
            except ClusterError:
                raise  # no trial can run: stop (the trial is asked again on resume)
            except Exception as e:  # noqa: BLE001 - recorded on the trial, the search goes on
                if environment_failure(e):
                    raise  # the machine's (a full disk), not the point's: as a lost cluster
                value, why = None, f"{type(e).__name__}: {e}"
            if value is None:
                trial.set_user_attr("error", why)
                study.tell(trial, state=TrialState.FAIL)
            else:
                study.tell(trial, value)
            computed += 1
            done = len(_finished(study, interrupted))
            bar.update(1)
            b = _best_row(study, s.obj, s.cons, interrupted)
            if b is not None:
                # in the unit the tables print (Mbps, ms), named
                factor, unit = display_unit(s.obj.name)
                bar.set_postfix_str(f"best {s.obj.name}={b['value'] * factor:.4g}{' ' + unit if unit else ''}")
    finally:
        bar.close()
    return computed


def _confirm(s: _Search, best_over: Dict[str, Any], baseline: Dict[str, Any],
             reference: Optional[Dict[str, Any]], confirm: List[int]) -> List[Dict[str, Any]]:
    """The best point, the baseline and the reference run again on the
    confirmation seeds: one row each, with the paired differences."""
    named: List[Tuple[str, Dict[str, Any]]] = [("best", best_over), ("baseline", baseline)]
    if reference:
        named.append(("reference", reference))
    rows: List[Dict[str, Any]] = []
    got: Dict[str, List[float]] = {}
    for name, over in named:
        runs = s.runner.run(over, confirm, tag="baseline" if name == "baseline" else "",
                            switched=name == "reference")
        vals = _values(runs, s.obj.fn)
        stalled = _unfinished(runs)
        if stalled:
            # the comparison is still made, with the reason it may mislead
            warnings.warn(DcnsimWarning(name, f"apps unfinished at stop on confirmation {_seeds_text(stalled)}: "
                                              f"its {s.obj.name} leaves out their unfinished rounds and flows"),
                          stacklevel=caller_stacklevel())
        got[name] = vals
        m, h = _ci95(vals)
        row: Dict[str, Any] = {"point": name, "overrides": json.dumps(over, default=str),
                               "seeds": ",".join(map(str, confirm)), "mean": m, "ci95": h}
        row.update({f"seed{seed}": v for seed, v in zip(confirm, vals)})
        if s.cons and s.cons_ev:
            cm, ch = _ci95(_values(runs, s.cons_ev))
            row.update({f"{s.cons.metric}_mean": cm, f"{s.cons.metric}_ci95": ch,
                        "feasible": bool(s.violation(cm) <= 0)})
        rows.append(row)
    for row in rows:
        for other in ("baseline", "reference"):
            if other in got and row["point"] != other:
                d, h = _ci95([a - b for a, b in zip(got[row["point"]], got[other])])
                row[f"diff_vs_{other}"], row[f"diff_vs_{other}_ci95"] = d, h
    return rows


def tune(
    scenario: Any,
    params: Any,
    objective: Union[str, Objective] = "qct_p99",
    *,
    direction: Optional[str] = None,
    trials: int = 30,
    seeds: Sequence[int] = (1, 2),
    out: Union[str, os.PathLike] = "dcnsim-tune",
    constraint: Union[None, str, Constraint] = None,
    baseline: Optional[Mapping[str, Any]] = None,
    reference: Optional[Mapping[str, Any]] = None,
    confirm_seeds: Optional[Sequence[int]] = None,
    sampler: str = "tpe",
    sampler_seed: int = 0,
    jobs: Optional[int] = None,
    cluster: Optional[str] = None,
    progress: Optional[bool] = None,
    format: str = "csv",
    plots: bool = True,
) -> TuneResult:
    """Search ``params`` of ``scenario`` for the best ``objective`` (mean over
    ``seeds``) in ``trials`` trials; see the module doc.

    ``params``: ``{"tcp.probretx_p": "log:1e-4:0.1", "tcp.dsr_cwnd": (5, 60)}``
    or :class:`Param` objects or ``--param`` strings. ``objective``: a name
    of :data:`OBJECTIVES`, any summary metric with ``direction``, or an
    :class:`Objective` with your own function. ``constraint``:
    ``"goodput>=0.95*baseline"``; the baseline is ``scenario`` with the
    ``baseline`` overrides (e.g. ``{"tcp.probretx_p": 0}``). ``reference``:
    overrides giving a point to compare with (e.g. a paper's choice); when
    its keys are all tuned, it is also the first trial. ``confirm_seeds``
    (default ``seeds``): the best point, the baseline and the reference are
    rerun on them for the confidence intervals in ``confirm.csv`` (fresh
    seeds avoid the optimism of reusing the seeds the search chose on)."""
    try:
        import optuna  # noqa: F401 - only to say what to install before any work
    except ImportError as e:
        from ._args import install_hint

        raise TuneError(f"tune needs Optuna ({install_hint('tune')}): {e}") from None
    from ._atomic import check_out_dir, dir_lock

    seeds = _checked_seeds(trials, seeds, direction)
    # trial k's sampler is seeded from it (trial_seed, below 2^32 as numpy
    # takes): refused before the study's directory is made
    import operator

    try:
        ss: Optional[int] = None if isinstance(sampler_seed, bool) else operator.index(sampler_seed)
    except TypeError:
        ss = None
    if ss is None or not 0 <= ss < 2**32:
        raise TuneError(f"sampler_seed: expected an integer in [0, 2^32), got {sampler_seed!r}")
    sampler_seed = ss
    ps = _as_params(params)
    if not isinstance(objective, (str, Objective)):
        raise TuneError(f"objective: expected a metric's name ({', '.join(OBJECTIVES)}, or a summary key with "
                        f"direction) or an Objective, got {objective!r}")
    if constraint is not None and not isinstance(constraint, (str, Constraint)):
        raise TuneError(f"constraint: expected a string like 'goodput>=0.95*baseline' or a Constraint, "
                        f"got {constraint!r}")
    if any(p.path == "seed" for p in ps):
        raise TuneError("params: seed: a trial runs each of `seeds` (--seeds), whatever a parameter says; a seed "
                        "is no parameter to tune")
    for name, over in (("baseline", baseline), ("reference", reference)):
        if over is not None and not isinstance(over, Mapping):
            raise TuneError(f"{name}: expected a mapping of field paths to values ({{'tcp.probretx_p': 0}}), "
                            f"got {over!r}")
        if over is not None and "seed" in over:
            raise TuneError(f"{name}: seed: the {name} runs each of `seeds` (--seeds), as every trial does")
    if not isinstance(out, (str, os.PathLike)):
        raise TuneError(f"out: expected a directory path, got {out!r}")
    obj = objective if isinstance(objective, Objective) else objective_named(objective, direction)
    natural = OBJECTIVES[objective][1] if isinstance(objective, str) and objective in OBJECTIVES else None
    if natural is not None and direction is not None and direction != natural:
        # allowed (a study of what makes it worst), but never silently
        warnings.warn(DcnsimWarning("objective", f"{objective} is {natural}d as a named objective; direction={direction!r} "
                                    f"searches for its {'largest' if direction == 'maximize' else 'smallest'} value "
                                    "instead"), stacklevel=caller_stacklevel())
    if isinstance(objective, Objective) and direction is not None:
        obj = Objective(obj.name, direction, obj.fn)
    cons = parse_constraint(constraint) if isinstance(constraint, str) else constraint
    if cons is not None:
        _check_bound_unit(cons)
    for flag, metric in (("objective", None if isinstance(objective, Objective) else obj.name),
                         ("constraint", cons.metric if cons is not None else None)):
        _check_not_timing(metric, flag)
    baseline = dict(baseline or {})
    reference = dict(reference) if reference else None
    confirm = _seed_list(confirm_seeds, "confirm_seeds") if confirm_seeds is not None else list(seeds)
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise TuneError(f"jobs: expected a positive integer or None, got {jobs!r}")
    if format not in ("csv", "parquet"):
        raise TuneError(f"format: expected 'csv' or 'parquet', got {format!r}")
    out_dir = Path(out)
    base = as_dict(scenario)
    _check_overrides(base, ps, baseline, reference)
    keys = _record_keys(base) if (not isinstance(objective, Objective) or cons is not None) else None
    if not isinstance(objective, Objective):  # an Objective's fn reads what it likes
        _check_metric(base, obj.name, "objective", keys)
    if cons is not None:
        _check_metric(base, cons.metric, "constraint", keys)
    # a file or a read-only place fails now (OutputDirError), not after the first runs; ~ is the home
    # directory, as run_sweep and Result.write take it (it was checked there, and written at ./~)
    out_dir = check_out_dir(out_dir)

    # OUT held from before the study is opened to the end of its files: a
    # second tune into it (the same command in another terminal) is refused
    # at once, naming this one, instead of closing this one's trial under
    # way as interrupted and failing its own trials on the runs' lock
    with dir_lock(out_dir):
        journal = out_dir / "study.log"
        new = not journal.exists()
        study = None
        try:
            runner = _Runner(base, seeds, out_dir, jobs, cluster, format)
            # the study first: an --out holding another study is refused before the
            # baseline's runs (which would have replaced that study's cached ones)
            study = _open_study(out_dir, _spec_key(base, ps, obj, seeds, cons, baseline, sampler, sampler_seed),
                                obj.direction)
            cons_ev, bound = _constraint_bound(runner, cons, baseline)
            search = _Search(runner, ps, obj, seeds, cons, cons_ev, bound)
            interrupted = _resume(study, ps, reference, base)
            computed = _search(study, search, trials, sampler, sampler_seed, interrupted, progress)
        except Exception:
            # refused before any trial ended (a cluster that cannot be
            # reached): a study this call began goes again, and with it the
            # directories made for it (dir_lock), as a refused sweep's do.
            # Ctrl-C keeps it: the command line says the study is kept
            if new and (study is None or not _finished(study, ())):
                _forget_journal(journal)
            raise
        try:
            return _report(study, search, ps, obj, seeds, cons, bound, baseline, reference, confirm, interrupted,
                           out_dir, plots, computed)
        except KeyboardInterrupt as e:
            # every trial asked for has finished: a resume asks none again, it
            # only finishes the confirmation runs and writes the files (the
            # command line says so, not that a trial is asked again)
            e.trials_done = True  # type: ignore[attr-defined]
            raise


def _mend_journal(journal: Path) -> None:
    """Cut a torn last record off a study's journal. Optuna appends each
    batch of records with one write and an fsync, so a record without its
    newline is a write the machine stopped in (a power cut, a full disk):
    left there, the next append runs on from it into one line no JSON
    reader parses, and every resume after fails on it. The records before
    it are whole; the trial it was writing is run again. Called with OUT
    locked (dir_lock), so no other writer is appending."""
    try:
        size = journal.stat().st_size
    except OSError:
        return
    if size == 0:
        return
    with open(journal, "rb+") as f:
        f.seek(size - 1)
        if f.read(1) == b"\n":
            return
        keep, end = 0, size
        while end > 0:  # back to the last newline, a block at a time
            start = max(0, end - 65536)
            f.seek(start)
            at = f.read(end - start).rfind(b"\n")
            if at >= 0:
                keep = start + at + 1
                break
            end = start
        f.truncate(keep)
        f.flush()
        os.fsync(f.fileno())
    cut = size - keep
    warnings.warn(DcnsimWarning("out", f"{journal}: its last record was cut short ({cut:,} byte{'s' if cut != 1 else ''} "
                                "without an end, a write stopped by a crash or a full disk): dropped, and the study "
                                "resumes from the records before it"),
                  stacklevel=caller_stacklevel())


def _forget_journal(journal: Path) -> None:
    """Remove a study's journal (and a lock Optuna left beside it)."""
    for f in (journal, journal.with_name(journal.name + ".lock")):
        try:
            os.unlink(f)
        except OSError:
            pass


def _report(study: Any, search: "_Search", ps: Sequence[Param], obj: "Objective", seeds: List[int],
            cons: Optional["Constraint"], bound: Optional[float], baseline: Dict[str, Any],
            reference: Optional[Dict[str, Any]], confirm: List[int], interrupted: Sequence[int], out_dir: Path,
            plots: bool, computed: int) -> "TuneResult":
    """:func:`tune` once the search is over: the trials' table, the best
    point's confirmation runs, ``best.json`` and the plots."""
    import pandas as pd

    from ._atomic import atomic_write

    table = _trials_table(study, ps, seeds, interrupted, cons)
    best_ft = _best_row(study, obj, cons, interrupted)
    best: Dict[str, Any] = {"objective": obj.name, "direction": obj.direction, "seeds": seeds,
                            "constraint": cons.text() if cons else None,
                            "constraint_bound": bound, "trials": int(len(table))}
    rows: List[Dict[str, Any]] = []
    if best_ft is not None:
        best_over = {p.path: p.to_scenario(best_ft["params"][p.path]) for p in ps}
        index = {t.number: i for i, t in enumerate(_finished(study, interrupted))}
        best.update({"trial": index[best_ft["number"]], "params": best_over, "value": best_ft["value"]})
        rows = _confirm(search, best_over, baseline, reference, confirm)
        best["confirm"] = {r["point"]: {k: r[k] for k in ("mean", "ci95")} for r in rows}
        best["confirm_seeds"] = confirm
    # no best, no confirmation: the table's header still says what it holds
    # (a file of one empty line is no CSV a reader can open)
    conf = pd.DataFrame(rows, columns=None if rows else ["point", "overrides", "seeds", "mean", "ci95"])
    # the three files once every run is done, one after another: the
    # confirmation runs take minutes, and a Ctrl-C in them left this call's
    # trials.csv beside the confirm.csv and best.json of the call before
    # (their best from fewer trials); now those stay as a set until the
    # new set is written in a moment
    atomic_write(out_dir / "trials.csv", lambda fh: table.to_csv(fh, index=False, lineterminator="\n"))
    atomic_write(out_dir / "confirm.csv", lambda fh: conf.to_csv(fh, index=False, lineterminator="\n"))
    atomic_write(out_dir / "best.json", lambda fh: fh.write(json.dumps(_clean(best), indent=2) + "\n"))
    # the scenario and the seeds in each figure's title: the worked examples'
    # plots (one per fan-in) could not be told apart by "maximize block_goodput"
    what = f"{search.runner.base.get('name', 'scenario')}, seeds {','.join(map(str, seeds))}"
    figures = _plot(table, ps, obj, conf, out_dir, what) if plots and len(table) else []
    return TuneResult(table, conf, best, figures, out_dir, computed)


def confirm_notes(best: Mapping[str, Any], confirm: Any) -> List[str]:
    """What a reader of the confirmation must know before quoting it: runs
    on the search's own seeds measure the best point on the runs that
    picked it (biased in its favour), and a baseline that did better on
    the same seeds means the search found nothing better."""
    notes = []
    seeds = list(best.get("seeds") or [])
    confirm_seeds = list(best.get("confirm_seeds") or [])
    shared = sorted(set(confirm_seeds) & set(seeds))
    if confirm_seeds and sorted(confirm_seeds) == sorted(seeds):
        notes.append(f"confirmed on the search's seeds ({','.join(map(str, seeds))}): the best point's mean and its "
                     "difference to the baseline come from the runs that picked it, biased in its favour; "
                     "--confirm-seeds with fresh seeds gives an unbiased check")
    elif shared:
        # a seed of the search among the confirmation's flatters the best
        # as the whole set does, in part (it moved a confirmed mean over a bound)
        notes.append(f"{len(shared)} of the {len(confirm_seeds)} confirmation seeds ({','.join(map(str, shared))}) "
                     "picked the best point in the search: its confirmed mean leans its way; confirmation seeds "
                     "apart from --seeds give an unbiased check")
    rows = {r["point"]: r for _, r in confirm.iterrows()} if len(confirm) else {}
    b_row = rows.get("best")
    if b_row is not None and "feasible" in b_row and b_row["feasible"] is not None and not bool(b_row["feasible"]):
        notes.append("the best trial breaks the constraint on the confirmation seeds (feasible False above): it met "
                     "it on the search's seeds only; the search found no point known to meet it")
    means = {k: r["mean"] for k, r in rows.items()}
    b, base = means.get("best"), means.get("baseline")
    if b is not None and base is not None and math.isfinite(b) and math.isfinite(base):
        worse = b < base if best.get("direction") == "maximize" else b > base
        if worse:
            notes.append(f"the baseline did better than the best trial on these seeds ({best['objective']}): the "
                         "search found no point better than the baseline")
    return notes


def _from_scenario(p: Param, v: Any) -> Any:
    """A scenario value back into the trial's parameter space."""
    if p.unit == "s":
        from .units import parse_time

        return parse_time(str(v))
    if p.unit == "pkt":
        from .units import parse_count

        return int(parse_count(str(v)))
    if p.kind == "int":
        return int(v)
    if p.kind == "float":
        return float(v)
    return v


def _clean(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    return x


def _finished(study, interrupted: Sequence[int]) -> List[Any]:
    """The study's trials that ended, less those cut off by an interruption."""
    return [t for t in study.get_trials(deepcopy=False) if t.state.is_finished() and t.number not in interrupted]


def _best_row(study, obj: Objective, cons: Optional[Constraint], interrupted: Sequence[int]) -> Optional[Dict[str, Any]]:
    from optuna.trial import TrialState

    best = None
    for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
        if cons and float(t.user_attrs.get("violation", 0.0)) > 0:
            continue
        v = float(t.value)
        better = best is None or (v < best["value"] if obj.direction == "minimize" else v > best["value"])
        if better:  # ties keep the earlier trial
            best = {"number": t.number, "value": v, "params": dict(t.params)}
    return best


def _trials_table(study, ps: Sequence[Param], seeds: Sequence[int], interrupted: Sequence[int],
                  cons: Optional[Constraint]):
    import pandas as pd

    rows = []
    # numbered among the trials that count: a resumed study's trials are
    # numbered as one run's (Optuna's numbers skip those an interruption cut)
    for i, t in enumerate(_finished(study, interrupted)):
        row: Dict[str, Any] = {"trial": i, "state": t.state.name.lower()}
        for p in ps:
            row[p.path] = t.params.get(p.path)
        # NaN, not None, where there is no value: a column of failed trials
        # only was printed "None" (an object column), not "n/a"
        row["objective"] = math.nan if t.value is None else t.value
        ci = t.user_attrs.get("ci95")  # None: one seed, no interval
        # a failed trial has no objective, so no interval about it either
        # (its runs' values stay in the seed columns, its error says why)
        row["objective_ci95"] = math.nan if ci is None or t.value is None else ci
        for s in seeds:
            v = t.user_attrs.get(f"seed{s}")
            row[f"seed{s}"] = math.nan if v is None else v
        if cons:
            row[f"{cons.metric}"] = t.user_attrs.get("constraint_metric")
            row["feasible"] = float(t.user_attrs.get("violation", math.inf)) <= 0
        if "error" in t.user_attrs:
            row["error"] = t.user_attrs["error"]
        rows.append(row)
    return pd.DataFrame(rows)


#: the unit a plain number has for a key of each value kind of the schema
_KIND_UNITS = {"Time": "s", "PositiveTime": "s", "LimitValue": "bytes", "Buffer": "bytes", "NicBuffer": "bytes",
               "PositiveSize": "bytes", "SegmentSize": "bytes", "Rate": "bit/s"}


_PLAIN = {"Fraction", "PositiveFraction", "Number", "PositiveNumber", "Scale", "ScaleOrZero"}


def _axis_unit(p: "Param") -> str:
    """The unit of a parameter's axis: ms for a time range, packets for a
    pkt range, else what a plain number means for its key (the scenario
    schema's value kind), or "as in the scenario" when the key has none."""
    if p.unit == "s":
        return "ms"
    if p.unit == "pkt":
        return "packets"
    import json

    from . import _core

    try:
        schema = json.loads(_core.schema())
    except Exception:  # noqa: BLE001 - a label, never worth failing the plot
        return "as in the scenario"
    defs = schema.get("$defs", {})
    node: Any = schema
    kind = ""
    for part in p.path.split("."):
        for _ in range(8):  # follow $ref / anyOf / items down to properties
            if "$ref" in node:
                kind = node["$ref"].rsplit("/", 1)[-1]
                node = defs.get(kind, {})
            elif "items" in node and part.isdigit():
                node = node["items"]
                break
            elif "properties" not in node and (node.get("anyOf") or node.get("oneOf")):
                variants = [defs.get(n["$ref"].rsplit("/", 1)[-1], {}) if "$ref" in n else n
                            for n in node.get("anyOf") or node.get("oneOf")]
                node = next((n for n in variants if part in n.get("properties", {})), {})
            else:
                break
        if part.isdigit():
            continue
        node = node.get("properties", {}).get(part, {})
        kind = ""
    while "$ref" in node:
        kind = node["$ref"].rsplit("/", 1)[-1]
        node = defs.get(kind, {})
    return _KIND_UNITS.get(kind, "dimensionless" if kind in _PLAIN else "as in the scenario")


def _trials(ax, xs, y, yerr, mask, **kw) -> None:
    """The trials in ``mask`` as points with their seeds' 95 % CIs; every
    objective is non-negative (a rate, a time, an index), so a bar stops at
    0 where the interval reaches below it."""
    e = None if yerr is None or not yerr[mask].notna().any() else yerr[mask].fillna(0.0)
    if e is not None:
        e = [e.clip(upper=y[mask].clip(lower=0.0)).to_numpy(), e.to_numpy()]
    ax.errorbar(xs[mask], y[mask], yerr=e, fmt="o", ms=4, capsize=2, elinewidth=0.8, **kw)


def _log_axis(ax, integer: bool) -> None:
    """A log x axis labelled at 1, 2 and 5 of each decade and nowhere else
    (matplotlib labels every minor tick of an axis under one decade, and
    they overlap); an integer parameter's ticks read as plain numbers."""
    from matplotlib.ticker import LogLocator, NullFormatter, ScalarFormatter

    ax.set_xscale("log")
    ax.xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_minor_formatter(NullFormatter())
    if integer:
        ax.xaxis.set_major_formatter(ScalarFormatter())


def _plot(table, ps: Sequence[Param], obj: Objective, conf, out: Path, what: str = "") -> List[Path]:
    from .plots import new_figure, save

    ok = table[table["state"] == "complete"]
    feasible = ok["feasible"].astype(bool) if "feasible" in ok else None
    files = []
    lines = {}
    if len(conf):
        for _, r in conf.iterrows():
            lines[r["point"]] = (r["mean"], r["ci95"])
    best_trial = None
    if "best" in lines and len(ok):
        pick = ok if feasible is None else ok[feasible]
        if len(pick):
            best_trial = pick.loc[pick["objective"].idxmin() if obj.direction == "minimize" else pick["objective"].idxmax()]
    factor, unit = display_unit(obj.name)
    y = ok["objective"].astype(float) * factor
    # each trial's objective is a mean over its seeds: its 95 % CI (NaN
    # with one seed, drawn as no bar)
    yerr = ok["objective_ci95"].astype(float) * factor if "objective_ci95" in ok else None
    for p in ps:
        fig, ax = new_figure(figsize=(5.2, 3.6))
        x = ok[p.path]
        if p.kind == "choice":
            cats = [str(c) for c in p.choices]
            x = x.map(lambda v, cats=cats: cats.index(str(v)) if str(v) in cats else math.nan)
            ax.set_xticks(range(len(cats)), cats)
        xs = x * 1e3 if p.unit == "s" else x
        if feasible is not None:
            # a group with no trial has no entry in the legend (it listed
            # "breaks the constraint" where every trial met it)
            if feasible.any():
                _trials(ax, xs, y, yerr, feasible, label="trial (feasible)")
            if (~feasible).any():
                _trials(ax, xs, y, yerr, ~feasible, mfc="none", color="grey", label="trial (breaks the constraint)")
        else:
            _trials(ax, xs, y, yerr, ok["objective"].notna(), label="trial")
        if best_trial is not None:
            bx = best_trial[p.path]
            if p.kind == "choice":
                bx = [str(c) for c in p.choices].index(str(bx))
            elif p.unit == "s":
                bx = bx * 1e3
            ax.scatter([bx], [best_trial["objective"] * factor], marker="*", s=160, color="C3", zorder=5,
                       label="best")
        for name, style in (("baseline", ":"), ("reference", "--")):
            if name in lines and math.isfinite(lines[name][0]):
                m, h = lines[name][0] * factor, lines[name][1] * factor
                ax.axhline(m, ls=style, color="k", lw=1, label=f"{name} (confirm seeds)")
                if h and math.isfinite(h):
                    ax.axhspan(m - h, m + h, color="k", alpha=0.08)
        if p.log:
            _log_axis(ax, p.kind == "int")
        ax.set_xlabel(f"{p.path} ({_axis_unit(p)})")
        ax.set_ylabel(f"{obj.name} ({unit})\nmean ± 95 % CI over seeds" if unit
                      else f"{obj.name}\n(mean ± 95 % CI over seeds)")
        ax.set_title(f"{obj.direction} {obj.name}" + (f" ({what})" if what else ""), fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", p.path)
        files.extend(save(fig, out / f"objective_vs_{safe}.png"))
    return files


# --------------------------------------------------------------------------- CLI


def _sampler_seed(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer in [0, 2^32), got {text!r}") from None
    if not 0 <= v < 2**32:
        raise argparse.ArgumentTypeError(f"expected an integer in [0, 2^32), got {text!r}")
    return v


def add_parser(sub: Any) -> None:
    """Register ``dcnsim tune`` on the CLI's subcommands."""
    from ._args import out_dir, parse_seeds, positive_int, set_pair

    def param(s: str) -> Param:
        try:
            return parse_param(s)
        except TuneError as e:
            raise argparse.ArgumentTypeError(_after_flag(str(e))) from None

    def constraint(s: str) -> Constraint:
        try:
            return parse_constraint(s)
        except TuneError as e:
            raise argparse.ArgumentTypeError(_after_flag(str(e))) from None

    t = sub.add_parser("tune", help="search a scheme's free parameters for an objective (Optuna); resumable",
                       description="Search scenario parameters for the best objective (mean over seeds). "
                                   "Every trial is an ordinary cached run; rerun the command to resume. "
                                   "docs/tune.md has worked examples.")
    t.add_argument("file", help="base scenario (.toml or .json)")
    t.add_argument("--set", action="append", type=set_pair, default=[],
                   metavar="PATH=VALUE", help="change the base scenario first (repeatable), e.g. apps.0.servers=1-8")
    t.add_argument("--param", action="append", type=param, required=True, metavar="PATH=RANGE",
                   help="a parameter and its range (repeatable): LOW:HIGH (float), int:LOW:HIGH, log:LOW:HIGH, "
                        "int,log:LOW:HIGH, times (tcp.rto_min=log:1ms:200ms), packets (topology.ecn_k=2pkt:60pkt) "
                        "or choice:A,B,C; e.g. tcp.probretx_p=log:1e-4:0.1, tcp.dsr_cwnd=int:5:60, "
                        "tcp.tcprand_preset=choice:default,aggressive")
    t.add_argument("--objective", default="qct_p99", metavar="NAME",
                   help=f"{', '.join(OBJECTIVES)}, or any summary metric with --minimize/--maximize (default qct_p99)")
    g = t.add_mutually_exclusive_group()
    g.add_argument("--minimize", dest="direction", action="store_const", const="minimize",
                   help="the objective is best low (needed for a summary metric; the named ones know)")
    g.add_argument("--maximize", dest="direction", action="store_const", const="maximize",
                   help="the objective is best high")
    t.add_argument("--trials", type=positive_int, default=30, help="finished trials wanted (default 30)")
    t.add_argument("--seeds", type=parse_seeds, default=[1, 2], metavar="S1,S2,...",
                   help="seeds every trial runs on (default 1,2)")
    t.add_argument("--constraint", type=constraint, default=None, metavar="EXPR",
                   help="e.g. goodput>=0.95*baseline or timeouts<=10: trials that break it are never best; an "
                        "absolute bound is in SI units (goodput>=9e8 for 900 Mbps) or carries its unit "
                        "(goodput>=900Mbps, qct_p99<=10ms)")
    t.add_argument("--baseline", action="append", type=lambda s: set_pair(s, "--baseline"), default=[],
                   metavar="PATH=VALUE", help="overrides of the baseline run (repeatable; default: the scenario as is)")
    t.add_argument("--reference", action="append", type=lambda s: set_pair(s, "--reference"), default=[],
                   metavar="PATH=VALUE", help="a point to compare the best with, e.g. the paper's choice (repeatable)")
    t.add_argument("--confirm-seeds", type=lambda t: parse_seeds(t, "--confirm-seeds"), default=None,
                   metavar="S1,S2,...",
                   help="rerun best, baseline and reference on these seeds for the CIs (default: --seeds)")
    t.add_argument("--sampler", choices=("tpe", "random"), default="tpe",
                   help="Optuna's TPE (default) or uniform random search")
    t.add_argument("--sampler-seed", type=_sampler_seed, default=0,
                   help="seed of the sampler, an integer in [0, 2^32): trial k's sampler is seeded with it "
                        "x 1,000,003 + k (mod 2^32), so two seeds below 4,294 share no trial's seed (default 0)")
    t.add_argument("--out", required=True, type=out_dir, metavar="DIR", help="study, runs, tables and plots")
    t.add_argument("--jobs", type=positive_int, default=None, help="worker processes (default: CPU count)")
    t.add_argument("--format", choices=("csv", "parquet"), default="csv",
                   help="the runs' table format (default csv)")
    t.add_argument("--no-progress", action="store_true", help="no progress bar")
    t.add_argument("--cluster", metavar="ADDRESS", default=None,
                   help="run the simulations on a Dask cluster (scheduler address); needs dcnsim[cluster]")
    t.set_defaults(func=cmd_tune)


def display_unit(metric: str) -> Tuple[float, str]:
    """How a metric is printed, as in docs/tune.md's tables: rates in Mbps,
    times in ms, the rest as they are: (factor from SI, unit)."""
    what = OBJECTIVES[metric][2] if metric in OBJECTIVES else ""
    if metric.endswith("_per_s"):
        # a count per second (`app0_arrival_rate_per_s`), not a time
        return 1.0, ""
    if what.endswith("bit/s") or metric.endswith("_bps"):
        return 1e-6, "Mbps"
    if what.endswith(", s") or metric.endswith("_s"):
        return 1e3, "ms"
    return 1.0, ""


def _shown(df: Any, columns: Mapping[str, Tuple[float, str]]) -> Any:
    """A copy of ``df`` for printing: each of ``columns`` scaled to its unit,
    and the unit in its name (the CSV files keep SI units)."""
    out = df.copy()
    names = {}
    for col, (factor, unit) in columns.items():
        if col in out.columns and unit:
            out[col] = out[col] * factor
            names[col] = f"{col} ({unit})"
    return out.rename(columns=names)


def _scaled_columns(df: Any, objective: str, constraint: Optional[str],
                    params: Sequence["Param"] = ()) -> Dict[str, Tuple[float, str]]:
    obj_u = display_unit(objective)
    cols = {c: obj_u for c in df.columns
            if c in ("objective", "objective_ci95", "mean", "ci95") or re.fullmatch(r"seed\d+", str(c))
            or str(c).startswith("diff_vs_")}
    # a time parameter's values in ms, as the plot's axis (the CSV keeps s)
    cols.update({p.path: (1e3, "ms") for p in params if p.unit == "s"})
    if constraint:
        cons_u = display_unit(constraint)
        cols.update({c: cons_u for c in (constraint, f"{constraint}_mean", f"{constraint}_ci95") if c in df.columns})
    return cols


#: The keyword arguments of :func:`tune` a :class:`TuneError` or a
#: warning may start with, as the command line spells them: the library
#: names what a Python caller passed, the command what its user typed.
_FLAGS = {"out": "--out", "params": "--param", "param": "--param", "objective": "--objective",
          "trials": "--trials", "seeds": "--seeds", "confirm_seeds": "--confirm-seeds",
          "sampler": "--sampler", "sampler_seed": "--sampler-seed", "baseline": "--baseline",
          "reference": "--reference", "constraint": "--constraint", "direction": "--minimize/--maximize",
          "jobs": "--jobs", "format": "--format"}

#: Hints inside a message, as the command line says them.
_HINTS = ((re.compile(r"give direction='minimize' or 'maximize'"), "say --minimize or --maximize"),
          (re.compile(r"direction='(minimize|maximize)'"), r"--\1"),
          (re.compile(r"another out directory"), "another --out"),
          (re.compile(r"holds a study of another scenario\b"),
           "holds a study of another scenario (the file with its --set overrides)"))


def _flagged(message: str) -> str:
    """A :class:`TuneError`'s message as the command line says it: the
    argument at fault by its flag (``--out: ...``), not by the Python name
    a user of ``dcnsim tune`` never typed (``out: ...``)."""
    for pat, sub in _HINTS:
        message = pat.sub(sub, message)
    m = re.match(r"([a-z_]+)([ :])", message)
    if m is None or m.group(1) not in _FLAGS:
        return message
    return _FLAGS[m.group(1)] + message[len(m.group(1)):]


def _after_flag(message: str) -> str:
    """A parse error as argparse's ``argument --param:`` prefix is
    followed: without the argument's name again."""
    return _flagged(re.sub(r"^(params|constraint) ", "", message))


def _flagged_warnings(show: Callable[..., None]) -> Callable[..., None]:
    """``warnings.showwarning`` for ``dcnsim tune``: a warning about an
    argument names its flag, as the errors do."""

    def flagged(message: Any, category: Any, *rest: Any, **kw: Any) -> None:
        if isinstance(message, DcnsimWarning) and message.field in ("params", "constraint", "objective", "out"):
            message = DcnsimWarning(_FLAGS[message.field], _flagged(message.reason))
        show(message, category, *rest, **kw)

    return flagged


def cmd_tune(args: Any) -> int:
    import pandas as pd

    from ._args import nested_fields, nested_fields_text, print_problems, repeated_field
    from .scenario import load_scenario
    from .sweep import ClusterError

    for flag, pairs in (("--set", args.set), ("--baseline", args.baseline), ("--reference", args.reference)):
        rep = repeated_field([p for p, _ in pairs or []])
        if rep is not None:  # the later would win without a word, as `run --set` refuses
            print(f"tune: {flag} {rep[1]} is given twice ({rep[0]} and {rep[1]} name one field): give it once",
                  file=sys.stderr)
            return 2
        nested = nested_fields([p for p, _ in pairs or []])
        if nested is not None:
            print(nested_fields_text("tune", flag, *nested), file=sys.stderr)
            return 2
        seeded = next((v for p, v in pairs or [] if p == "seed"), None)
        if seeded is not None:
            # every run of a trial (and the baseline's, the reference's)
            # takes its seed from --seeds: this one was dropped without a word
            print(f"tune: {flag} seed={seeded}: every trial, the baseline and the reference run each seed of "
                  f"--seeds (now {','.join(map(str, args.seeds or (1, 2)))}): give --seeds {seeded} instead",
                  file=sys.stderr)
            return 2
    try:
        doc = with_overrides(load_scenario(args.file), dict(args.set))
    except ScenarioError as e:
        print_problems(args.file, e.errors)
        return 2
    shown = warnings.showwarning
    warnings.showwarning = _flagged_warnings(shown)
    try:
        res = tune(doc, args.param, args.objective, direction=args.direction, trials=args.trials,
                   seeds=args.seeds, out=args.out, constraint=args.constraint, baseline=dict(args.baseline),
                   reference=dict(args.reference) or None, confirm_seeds=args.confirm_seeds,
                   sampler=args.sampler, sampler_seed=args.sampler_seed, jobs=args.jobs, cluster=args.cluster,
                   progress=False if args.no_progress else None, format=args.format)
    except TuneError as e:
        print(f"tune: {_flagged(str(e))}", file=sys.stderr)
        return 2
    except ClusterError as e:
        print(f"tune: {e}", file=sys.stderr)
        return 2
    finally:
        warnings.showwarning = shown
    b = res.best
    cons_metric = args.constraint.metric if args.constraint else None
    factor, unit = display_unit(b["objective"])
    with pd.option_context("display.max_rows", 500, "display.max_columns", 50, "display.width", 200,
                           "display.float_format", "{:.6g}".format):
        print(_shown(res.trials, _scaled_columns(res.trials, b["objective"], cons_metric, args.param))
              .to_string(index=False, na_rep="n/a"))
        print()
        if "params" not in b:
            # nothing to report: a script must not take it for a result. "Feasible" is
            # the constraint's word: trials that all failed (a stall at `stop`, an
            # objective no run makes) met no constraint, they failed, each saying why
            if (res.trials["state"] == "complete").any():
                print("no feasible trial: see trials.csv")
                print(f"\n{len(res.trials)} trials ({res.computed} run now), none feasible; results in {args.out}/",
                      file=sys.stderr)
            else:
                print("no trial completed: see the error column of trials.csv")
                print(f"\n{len(res.trials)} trials ({res.computed} run now), every one failed; results in "
                      f"{args.out}/", file=sys.stderr)
            return 1
        else:
            print(f"best (trial {b['trial']}, {b.get('direction', 'maximize')}d): "
                  f"{json.dumps(b['params'], default=str)}  "
                  f"{b['objective']} = {b['value'] * factor:.6g}{' ' + unit if unit else ''} "
                  f"(mean over seeds {','.join(map(str, b['seeds']))})")
            print(_shown(res.confirm, _scaled_columns(res.confirm, b["objective"], cons_metric)).to_string(index=False, na_rep="n/a"))
            for line in confirm_notes(b, res.confirm):
                print(f"note: {line}")
    print(f"\n{len(res.trials)} trials ({res.computed} run now); results in {args.out}/ "
          f"(trials.csv, confirm.csv, best.json, {len(res.figures)} plot(s))")
    return 0
