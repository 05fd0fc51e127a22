"""A paper's claims register and the criteria that judge its claims.

A figure's code *measures*; the register *judges*. Each paper keeps one
register, ``claims.toml`` beside its experiments: one entry per claim of
the paper, with

* ``id`` — stable name (``fig3-fct``), the key the figure's code and the
  last full run's results (``results.json``) use;
* ``where`` and ``page`` — the figure or section, and the page (or, where
  the paper text we have carries no page numbers, where in the text);
* ``says`` — the paper's claim in our words (shown as the "paper" column);
* ``series`` and ``metric`` — what is measured, and from which of the
  paper's series;
* ``criterion`` — a table naming a criterion :data:`KINDS` with its
  parameters (the rule is printed from it, so the doc and the verdict
  cannot drift apart);
* ``tally`` — ``true`` for a claim of the paper, with ``why`` (why it is a
  claim of the paper and not a property of the model or the setup);
  ``false`` for a *model check* kept beyond the tally, with ``out`` (why it
  holds by construction);
* ``testbed`` — ``true`` for a claim the paper measured on its hardware
  testbed, whose hosts and switches we do not model: out of the tally,
  with ``out`` saying what the testbed had that we lack; judged and shown
  (verdict "testbed not modelled", our criterion's verdict beside it), so
  the register holds every claim of the paper, counted or not;
* ``counted_in`` — the tallied claim(s) that count this entry's statement:
  one point of a sentence judged as one claim (that claim's criterion is
  ``{ kind = "parts", of = [ids] }``: every point's own criterion, the
  worst verdict of theirs), or a restatement of claims tallied already.
  Such an entry is out of the tally, with ``out`` saying why, judged and
  shown beside (verdict "counted in another claim"), so that each
  statement of the paper is counted once.

A figure calls ``REGISTER.judge(id, measured)``; the framework refuses a
tallied row that the register did not judge (:func:`register_problems`).

Every criterion can fail both ways: ``tests/test_tallies.py`` feeds each
tallied claim's criterion one input on the paper's side and one on the
other side of the claim and asserts the verdicts. A *close* band never
covers a value on the wrong side of the paper's direction.

The shared verdict helpers every paper uses (``claim``, ``ordering``,
``near``, ``info``) live here too.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from .paper import COUNTED_IN, MODEL_CHECK, NOT_MODELLED, TALLIED, Comparison

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

__all__ = [
    "Claim",
    "Register",
    "KINDS",
    "MODEL_CHECK",
    "judge_spec",
    "claim",
    "compare_claim",
    "ordering",
    "near",
    "info",
    "register_problems",
]

Measured = Any
#: a criterion: (params, measured) -> (verdict, ours as text, the rule in words)
Judge = Callable[[Mapping[str, Any], Measured], Tuple[str, str, str]]


# ---------------------------------------------------------------- criteria


def _xs(measured: Mapping[Any, Sequence[float]]) -> List[Any]:
    return sorted(measured, key=lambda x: float(x))


def _h(half: float) -> float:
    """A CI half-width to compare with: one run's (NaN: no interval) as 0,
    so the mean alone decides; the rule says so (:func:`_one_run`)."""
    return 0.0 if half != half else half


def _one_run(measured: Mapping[Any, Sequence[float]]) -> bool:
    """Whether some x has one run only (its half-width NaN: no interval)."""
    return any(v[1] != v[1] for v in measured.values())


#: what a rule says when its intervals are single runs: no significance
ONE_RUN = "one run per x: no interval, the means alone decide"


def _is_difference(p: Mapping[str, Any]) -> bool:
    """Whether a claim's quantity is a difference ("FaST − DCTCP …"), whose
    sign says which side: shown with it."""
    return "−" in str(p.get("what", ""))


def _per_x_text(measured: Mapping[Any, Sequence[float]], signed: bool = False) -> str:
    """Each x's mean ± CI; ``signed`` for differences (a + says which side),
    not for values (an onset of 2 servers is not "+2")."""
    spec = "+.3g" if signed else ".3g"
    return "; ".join(f"{x}: {measured[x][0]:{spec}} ± " + ("n/a" if measured[x][1] != measured[x][1]
                                                            else f"{measured[x][1]:.2g}") for x in _xs(measured))


def _ordering(p: Mapping[str, Any], measured: Mapping[Any, Sequence[float]]) -> Tuple[str, str, str]:
    """"A is higher (``sign`` +1) / lower (−1) than B" from per-x differences
    A − B, each ``(mean, 95 % CI half-width)``. agrees: the CI on the
    claimed side at ≥ half of the x and on the wrong side at none; trend
    agrees: the mean on the claimed side at a majority, the CI wrong
    nowhere, and the mean over the x (the x's runs independent: its CI
    √(Σ h²) / k) on the claimed side beyond its CI; else differs. Means
    that fall the claimed way within their CIs are not a trend: with no
    effect at all, three x do so half the time. ``every`` (a claim of
    "always", "every group"): agrees also needs the mean on the claimed
    side at every x; a mean on the wrong side, even within its CI, leaves a
    trend at best."""
    sign = int(p["sign"])
    every = bool(p.get("every", False))
    xs = _xs(measured)
    sig = sum(1 for x in xs if sign * measured[x][0] - _h(measured[x][1]) > 0)
    wrong = sum(1 for x in xs if -sign * measured[x][0] - _h(measured[x][1]) > 0)
    side = sum(1 for x in xs if sign * measured[x][0] > 0)
    k = len(xs) or 1
    pooled = sum(measured[x][0] for x in xs) / k
    pooled_ci = math.sqrt(sum(_h(measured[x][1]) ** 2 for x in xs)) / k
    unit = p.get("unit", "")
    one = _one_run(measured)
    counts = (f"{sig}/{len(xs)} on the claimed side, {wrong} on the wrong; {ONE_RUN}" if one
              else f"{sig}/{len(xs)} significant, {wrong} wrong")
    rule = (f"paired difference {p['what']} per x (± 95 % CI{', ' + unit if unit else ''}) "
            f"{'above' if sign > 0 else 'below'} 0: the CI on the claimed side at ≥ half of the x and on the wrong "
            f"side at none ({counts})" + (f", the mean on the claimed side at every x ({side}/{len(xs)})" if every
                                          else "") + "; trend: the mean on the claimed side at a "
            f"majority ({side}/{len(xs)}), the CI wrong nowhere and the mean over the x beyond its CI "
            f"({pooled:+.3g}" + (")" if one else f" ± {pooled_ci:.2g})"))
    if not xs:
        return "untestable", "no paired runs", rule
    if wrong == 0 and sig * 2 >= len(xs) and (side == len(xs) or not every):
        verdict = "agrees"
    elif wrong == 0 and side * 2 > len(xs) and sign * pooled - pooled_ci > 0:
        verdict = "trend agrees"
    else:
        verdict = "differs"
    return verdict, _per_x_text(measured, signed=True), rule


def _rises(p: Mapping[str, Any], measured: Mapping[Any, Sequence[float]]) -> Tuple[str, str, str]:
    """"Q grows (``sign`` +1) / shrinks (−1) with x" from per-x ``(mean,
    CI)``. agrees: the mean moves the claimed way at every step and the last
    x exceeds the first by more than the sum of their CIs; trend agrees: the
    claimed way at a majority of steps and the last beyond the first by
    more than the sum of their CIs too; else differs. Two end points alone
    are not a trend: every step counts; and means that drift the claimed
    way within their CIs are not one either."""
    sign = int(p["sign"])
    xs = _xs(measured)
    unit = p.get("unit", "")
    steps = [sign * (measured[b][0] - measured[a][0]) for a, b in zip(xs, xs[1:])]
    up = sum(1 for s in steps if s > 0)
    rule = (f"{p['what']} {'rises' if sign > 0 else 'falls'} with x{' (' + unit + ')' if unit else ''}: at every step "
            f"({up}/{len(steps)}) and last vs first beyond the sum of their 95 % CIs; trend: at a majority of steps "
            "and last vs first beyond the sum of their CIs" + (f" ({ONE_RUN})" if _one_run(measured) else ""))
    if len(xs) < 2:
        return "untestable", "fewer than two x values", rule
    lo, hi = measured[xs[0]], measured[xs[-1]]
    span = sign * (hi[0] - lo[0])
    if up == len(steps) and span > _h(hi[1]) + _h(lo[1]):
        verdict = "agrees"
    elif up * 2 > len(steps) and span > _h(hi[1]) + _h(lo[1]):
        verdict = "trend agrees"
    else:
        verdict = "differs"
    return verdict, _per_x_text(measured, _is_difference(p)), rule


def _number(p: Mapping[str, Any], measured: Any) -> Tuple[str, str, str]:
    """A number against the paper's ``value``: agrees within ``rel_tol``
    (relative) or ``abs_tol`` (absolute), close within ``close_tol`` /
    ``abs_close``. With ``side`` (``"below"``/``"above"``) and ``ref`` the
    paper's value states a direction against ``ref`` (e.g. "loses goodput":
    below 1.0): a value on the other side of ``ref`` differs whatever the
    bands say."""
    v = float(p["value"])
    unit = p.get("unit", "")
    us = f" {unit}" if unit else ""
    if "abs_tol" in p:
        rule = f"|ours − {v:g}| ≤ {p['abs_tol']:g}{us}"
        if "abs_close" in p:
            rule += f" (close: ≤ {p['abs_close']:g}{us})"
    else:
        rule = f"within {100 * p['rel_tol']:g} % of {v:g}{us}"
        if "close_tol" in p:
            rule += f" (close: {100 * p['close_tol']:g} %)"
    side = p.get("side")
    if side:
        rule += f"; {side} {p['ref']:g}{us} (the paper's direction), else differs"
    fmt = p.get("fmt", ".3g")
    if measured is None or (isinstance(measured, float) and math.isnan(measured)):
        return "untestable", "n/a", rule
    x = float(measured)
    text = f"{format(x, fmt)}{us}"
    if side and not ((x < p["ref"]) if side == "below" else (x > p["ref"])):
        return "differs", text, rule
    err = abs(x - v)
    if "abs_tol" in p:
        ok, near_ = err <= p["abs_tol"], "abs_close" in p and err <= p["abs_close"]
    else:
        rel = err / abs(v)
        ok, near_ = rel <= p["rel_tol"], "close_tol" in p and rel <= p["close_tol"]
    return ("agrees" if ok else "close" if near_ else "differs"), text, rule


def _bound(p: Mapping[str, Any], measured: Any) -> Tuple[str, str, str]:
    """A value at most (``at_most``) or at least (``at_least``) a bound;
    ``strict``: below (above) it, the bound itself differing, for a bound
    that is the claim's null ("much better": a lead of 0 is none;
    "underestimates": a ratio of 1 is no error)."""
    unit = p.get("unit", "")
    us = f" {unit}" if unit else ""
    strict = bool(p.get("strict", False))
    if "at_most" in p:
        b = float(p["at_most"])
        ok = (lambda x: x < b) if strict else (lambda x: x <= b)
        rule = f"{p['what']} {'<' if strict else '≤'} {b:g}{us}, differs {'at or ' if strict else ''}above"
    else:
        b = float(p["at_least"])
        ok = (lambda x: x > b) if strict else (lambda x: x >= b)
        rule = f"{p['what']} {'>' if strict else '≥'} {b:g}{us}, differs {'at or ' if strict else ''}below"
    if measured is None or (isinstance(measured, float) and math.isnan(measured)):
        return "untestable", "n/a", rule
    x = float(measured)
    return ("agrees" if ok(x) else "differs"), f"{format(x, p.get('fmt', '.3g'))}{us}", rule


def _flat(p: Mapping[str, Any], measured: Mapping[Any, Sequence[float]]) -> Tuple[str, str, str]:
    """"About the same over x": the per-x means lie within ``within`` of
    each other and every 95 % CI is no wider than ``within`` (so the data
    can tell "the same" from a difference of that size): agrees; the means
    within it but a CI wider: untestable (not resolved: noise does not make
    values "the same"); the means further apart: differs."""
    xs = _xs(measured)
    unit = p.get("unit", "")
    w = float(p["within"])
    rule = (f"{p['what']}: the means over x within {w:g} {unit} of each other, every 95 % CI ≤ {w:g} (else not "
            "resolved: untestable), differs otherwise")
    if not xs:
        return "untestable", "no values", rule
    means = [measured[x][0] for x in xs]
    if not all(math.isfinite(m) for m in means):
        # min/max of a NaN pass it through, and NaN − NaN > w is false:
        # a missing mean is not a flat curve
        return "untestable", "a mean missing (NaN or inf)", rule
    ci = max(_h(measured[x][1]) for x in xs)
    lo, hi = min(means), max(means)
    text = f"{lo:.3g}–{hi:.3g} {unit}".strip() + (f" (CIs up to ± {ci:.2g})" if ci > 0 else "")
    if _one_run(measured):
        text += f" ({ONE_RUN})"
    if hi - lo > w:
        return "differs", text, rule
    return ("agrees" if ci <= w else "untestable"), text, rule


def _level(p: Mapping[str, Any], measured: Mapping[Any, Sequence[float]]) -> Tuple[str, str, str]:
    """"Q is above (``sign`` +1) / below (−1) ``ref`` at every x", Q a
    distribution over seeds given per x as ``(mean, 95 % CI)``: the
    ``ordering`` rule on Q − ref (the CI on the claimed side at ≥ half of
    the x and on the wrong side at none; trend: the mean on the claimed side
    at a majority, the CI wrong nowhere and the mean over the x beyond its
    CI). Shows Q itself, not Q − ref."""
    ref = float(p["ref"])
    shifted = {x: (v[0] - ref, v[1]) for x, v in measured.items()}
    verdict, _, rule = _ordering({**p, "what": f"{p['what']} − {ref:g}"}, shifted)
    return verdict, _per_x_text(measured, _is_difference(p)), rule.replace("paired difference ", "", 1)


def _near(p: Mapping[str, Any], measured: Mapping[Any, Sequence[float]]) -> Tuple[str, str, str]:
    """"Q stays near a level": per x ``(mean, 95 % CI)`` of Q, agrees when
    the mean lies in [``lo``, ``hi``] at every x, trend agrees at a majority
    of the x, else differs. A CI reaching into the band does not count: the
    mean is the estimate."""
    lo, hi = float(p["lo"]), float(p["hi"])
    xs = _xs(measured)
    inside = sum(1 for x in xs if lo <= measured[x][0] <= hi)
    unit = p.get("unit", "")
    rule = (f"{p['what']}: the mean over seeds within [{lo:g}, {hi:g}]{' ' + unit if unit else ''} at every x "
            f"({inside}/{len(xs)}); trend: at a majority of the x")
    if not xs:
        return "untestable", "no values", rule
    verdict = "agrees" if inside == len(xs) else "trend agrees" if inside * 2 > len(xs) else "differs"
    return verdict, _per_x_text(measured, _is_difference(p)), rule


def unit_of(spec: Mapping[str, Any]) -> Any:
    """The unit of the numbers criterion ``spec`` reads (a report's
    ``measured_unit``): its ``unit``, empty for a count or a ratio; for
    ``all``, the parts' unit if they share one, else ``{key: unit}`` as
    ``measured`` is keyed. A ``rises`` unit of the form "x = rMin in B"
    names the keys' unit: the values there are counts, shares and
    indices (``what`` says which), so empty."""
    if spec.get("kind") == "all":
        units = {sub["key"]: unit_of(sub) for sub in spec["of"]}
        distinct = set(map(str, units.values()))
        return next(iter(units.values())) if len(distinct) == 1 else units
    unit = spec.get("unit", "")
    return "" if unit.startswith("x = ") else unit


#: criterion kind -> judge. A register entry's ``criterion.kind`` names one.
KINDS: Dict[str, Judge] = {
    "ordering": _ordering,
    "rises": _rises,
    "number": _number,
    "bound": _bound,
    "flat": _flat,
    "level": _level,
    "near": _near,
}


# ---- criteria added for FaST (issue 43): an order with real gaps, several criteria at once

#: worst first wins when a claim is several criteria at once (``all``)
_RANK = {"agrees": 0, "close": 1, "trend agrees": 2, "untestable": 3, "differs": 4}


def _ranked(p: Mapping[str, Any], measured: Mapping[str, Sequence[float]]) -> Tuple[str, str, str]:
    """"A > B > C" (``order``, the paper's, highest first) from each one's
    ``(mean, 95 % CI)``: agrees when every one exceeds the next by a factor
    ≥ ``min_ratio`` and by more than their CIs combined (√(h₁² + h₂²), the
    runs are not paired); else differs. A tie is not an order, however the
    means happen to fall."""
    order = list(p["order"])
    r = float(p["min_ratio"])
    unit = p.get("unit", "")
    rule = (f"{' > '.join(order)}: each ≥ {r:g} × the next and above it by more than their 95 % CIs combined "
            "(a tie is not an order), differs otherwise")
    if any(measured.get(k) is None or math.isnan(float(measured[k][0])) for k in order):
        return "untestable", "n/a", rule
    text = " / ".join(f"{measured[k][0]:.3g} ± " + ("n/a" if measured[k][1] != measured[k][1] else f"{measured[k][1]:.2g}")
                      for k in order) + (f" {unit}" if unit else "")
    if any(measured[k][1] != measured[k][1] for k in order):
        text += f" ({ONE_RUN.replace('per x', 'each')})"
    ok = all(measured[a][0] >= r * measured[b][0]
             and measured[a][0] - measured[b][0] > math.hypot(_h(measured[a][1]), _h(measured[b][1]))
             for a, b in zip(order, order[1:]))
    return ("agrees" if ok else "differs"), text, rule


def _all(p: Mapping[str, Any], measured: Mapping[str, Any]) -> Tuple[str, str, str]:
    """One claim that holds only if each of several criteria does (``of``:
    criteria, each with the ``key`` of its input in ``measured``), e.g.
    "every protocol's QCT rises": the verdict is the worst of theirs."""
    verdicts, texts, rules = [], [], []
    for sub in p["of"]:
        key = sub["key"]
        v, t, r = judge_spec(sub, measured[key]) if key in measured else ("untestable", "n/a", "")
        verdicts.append(v)
        texts.append(f"{key}: {t}")
        rules.append(f"{key}: {r or sub['kind']}")
    return max(verdicts, key=_RANK.__getitem__), " — ".join(texts), "each of — " + " — ".join(rules)


# ---------------------------------------------------------------- criteria added for Kulkarni (issue 43)


def _values(measured: Any) -> Optional[List[float]]:
    """A number, a list of numbers or a mapping x -> number as a list
    (mapping in x order); None when a value is missing or NaN."""
    if measured is None:
        return None
    if isinstance(measured, Mapping):
        vals = [measured[x] for x in _xs(measured)]
    elif isinstance(measured, (list, tuple)):
        vals = list(measured)
    else:
        vals = [measured]
    out = []
    for v in vals:
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return None
        out.append(float(v))
    return out or None


def _vals_text(vals: Sequence[float], p: Mapping[str, Any]) -> str:
    unit = p.get("unit", "")
    return " / ".join(format(v, p.get("fmt", ".3g")) for v in vals) + (f" {unit}" if unit else "")


def _band(p: Mapping[str, Any], measured: Any) -> Tuple[str, str, str]:
    """Every value (a number, a list, or a mapping name or x -> number)
    inside ``[lo, hi]`` — "a small penalty", "almost the same" — else
    differs: a value below ``lo`` and one above ``hi`` both fail.
    ``lo_open``: strictly above ``lo``, so two claims the paper contrasts
    ("slightly more" against "almost the same") take bands that do not
    overlap. ``outside`` ("no longer matches"): every value outside the band
    agrees and one inside differs."""
    lo, hi = float(p["lo"]), float(p["hi"])
    opened, out = bool(p.get("lo_open")), bool(p.get("outside"))
    unit = p.get("unit", "")
    us = f" {unit}" if unit else ""
    rule = (f"{p['what']} {'outside' if out else 'within'} {'(' if opened else '['}{lo:g}, {hi:g}]{us} "
            f"(every value), differs {'inside' if out else 'outside'}")
    named = isinstance(measured, Mapping) and not all(_is_number(k) for k in measured)
    if named:
        if not measured or any(v is None or math.isnan(float(v)) for v in measured.values()):
            return "untestable", "n/a", rule
        items = [(str(k), float(v)) for k, v in measured.items()]
        text = "; ".join(f"{k}: {format(v, p.get('fmt', '.3g'))}{us}" for k, v in items)
        vals: List[float] = [v for _, v in items]
    else:
        got = _values(measured)
        if got is None:
            return "untestable", "n/a", rule
        vals, text = got, _vals_text(got, p)
    inside = [(lo < v if opened else lo <= v) and v <= hi for v in vals]
    ok = all(i != out for i in inside)
    return ("agrees" if ok else "differs"), text, rule


def _is_number(x: Any) -> bool:
    try:
        float(x)
    except (TypeError, ValueError):
        return False
    return True


def _threshold(p: Mapping[str, Any], measured: Any) -> Tuple[str, str, str]:
    """Every value at least ``at_least`` (or at most ``at_most``): agrees;
    every value past the weaker ``trend_at_least`` (``trend_at_most``),
    e.g. half an order of magnitude for "orders of magnitude": trend
    agrees; else differs. The weaker level lies on the claim's side of the
    other side: a value on the wrong side of it differs. ``strict``: a value
    at a level is not past it (a trend level that is the claim's null, a
    correlation of 0, then never passes no effect for a trend)."""
    unit = p.get("unit", "")
    us = f" {unit}" if unit else ""
    strict = bool(p.get("strict", False))
    if "at_least" in p:
        strong, weak = float(p["at_least"]), float(p.get("trend_at_least", p["at_least"]))
        if weak > strong:
            raise ValueError(f"criterion {p}: trend_at_least must not exceed at_least")
        beyond = (lambda v, b: v > b) if strict else (lambda v, b: v >= b)
        rel = ">" if strict else "≥"
    else:
        strong, weak = float(p["at_most"]), float(p.get("trend_at_most", p["at_most"]))
        if weak < strong:
            raise ValueError(f"criterion {p}: trend_at_most must not be below at_most")
        beyond = (lambda v, b: v < b) if strict else (lambda v, b: v <= b)
        rel = "<" if strict else "≤"
    rule = f"{p['what']} {rel} {strong:g}{us}"
    if weak != strong:
        rule += f"; trend: {rel} {weak:g}{us}"
    rule += ", differs otherwise"
    vals = _values(measured)
    if vals is None:
        return "untestable", "n/a", rule
    if all(beyond(v, strong) for v in vals):
        verdict = "agrees"
    elif all(beyond(v, weak) for v in vals):
        verdict = "trend agrees"
    else:
        verdict = "differs"
    return verdict, _vals_text(vals, p), rule


def _step_ratio(p: Mapping[str, Any], measured: Mapping[Any, Any]) -> Tuple[str, str, str]:
    """"Doubling x doubles Q": per x (in order) a value; every step's ratio
    Q(next)/Q(this) within ``[lo, hi]``: agrees; every ratio above 1 (Q
    grows at each step, by less or more than the claim): trend agrees; a
    step at which Q does not grow: differs."""
    lo, hi = float(p["lo"]), float(p["hi"])
    rule = (f"{p['what']}: the ratio at every step within [{lo:g}, {hi:g}]; trend: > 1 at every step; "
            "differs otherwise")
    vals = _values(measured) if isinstance(measured, Mapping) else None
    if vals is None or len(vals) < 2:
        return "untestable", "a value missing" if vals is None else "fewer than two x values", rule
    if not all(math.isfinite(v) for v in vals) or min(vals) < 0:
        return "untestable", "a value missing or negative", rule
    # from 0: growth to anything above it is unbounded, 0 to 0 is none
    ratios = [b / a if a > 0 else (math.inf if b > 0 else 1.0) for a, b in zip(vals, vals[1:])]
    if all(lo <= r <= hi for r in ratios):
        verdict = "agrees"
    elif all(r > 1 for r in ratios):
        verdict = "trend agrees"
    else:
        verdict = "differs"
    return verdict, _vals_text(vals, p) + " (ratios " + ", ".join(f"{r:.2f}" for r in ratios) + ")", rule


def _slope(pts: Sequence[Tuple[float, float]]) -> float:
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / sxx


def _slope_ratio(p: Mapping[str, Any], measured: Any) -> Tuple[str, str, str]:
    """"Q grows linearly with x": per x a value; the least-squares slope
    over the upper half of the x (the middle x in both halves when their
    number is odd) over that of the lower half within ``[lo, hi]``: a
    straight line gives 1, a saturating curve (√x, log x) less, an
    accelerating one more; else differs. A correlation cannot tell these
    apart: √x over 40…100 has r = 0.99."""
    lo, hi = float(p["lo"]), float(p["hi"])
    rule = (f"{p['what']}: least-squares slope over the upper half of the x ÷ over the lower half within "
            f"[{lo:g}, {hi:g}] (a line gives 1), differs otherwise")
    if not isinstance(measured, Mapping):
        return "untestable", "n/a", rule
    vals = _values(measured)
    xs = [float(x) for x in _xs(measured)]
    if vals is None or len(vals) < 4:
        return "untestable", "fewer than four x values" if vals is not None else "a value missing", rule
    half = (len(xs) + 1) // 2
    pts = list(zip(xs, vals))
    s_lo, s_hi = _slope(pts[:half]), _slope(pts[-half:])
    ratio = s_hi / s_lo if s_lo > 0 else math.inf
    verdict = "agrees" if lo <= ratio <= hi else "differs"
    return verdict, f"slopes {s_lo:.3g} → {s_hi:.3g} per x (ratio {ratio:.2f})", rule


KINDS.update({"ranked": _ranked, "all": _all, "band": _band, "threshold": _threshold, "step_ratio": _step_ratio,
              "slope_ratio": _slope_ratio})


def judge_spec(spec: Mapping[str, Any], measured: Measured) -> Tuple[str, str, str]:
    """(verdict, ours as text, the rule in words) of criterion ``spec``."""
    kind = spec.get("kind")
    if kind not in KINDS:
        raise ValueError(f"criterion kind {kind!r} is not one of {sorted(KINDS)}")
    if spec.get("exclude") and isinstance(measured, Mapping):
        # x values the claim is not about (spraying over one path is single
        # path by construction; a point another claim counts): not judged
        drop = {float(x) for x in spec["exclude"]}
        measured = {x: v for x, v in measured.items() if not (_is_number(x) and float(x) in drop)}
        verdict, ours, rule = KINDS[kind](spec, measured)
        return verdict, ours, rule + f" (x = {', '.join(format(float(x), 'g') for x in spec['exclude'])} not judged)"
    return KINDS[kind](spec, measured)


# ---------------------------------------------------------------- the register


def _plain(measured: Measured) -> Any:
    """``measured`` as JSON keeps it (mappings with string keys, lists,
    floats), so that a stored run is judged exactly as the live one."""
    if isinstance(measured, Mapping):
        return {str(k): _plain(v) for k, v in measured.items()}
    if isinstance(measured, (list, tuple)):
        return [_plain(v) for v in measured]
    if hasattr(measured, "item"):  # numpy scalar
        return measured.item()
    return measured


@dataclass(frozen=True)
class Claim:
    id: str
    where: str
    page: str
    says: str
    series: str
    metric: str
    criterion: Mapping[str, Any]
    tally: bool = True
    #: tallied: why this is a claim of the paper, not a property of the setup
    why: str = ""
    #: a model check: why it holds by construction (kept out of the tally)
    out: str = ""
    #: the paper's value or words for the "paper" column (default: ``says``)
    paper: str = ""
    #: the tallied claim(s) that count this entry's statement (out of the
    #: tally, judged beside: one point of one statement, or a restatement)
    counted_in: Tuple[str, ...] = ()
    #: measured on the paper's hardware testbed, which we do not model: out
    #: of the tally, ``out`` says why; judged and shown
    testbed: bool = False

    def judge(self, measured: Measured, note: str = "") -> Comparison:
        verdict, ours, rule = judge_spec(self.criterion, measured)
        paper = self.paper or self.says
        if self.testbed:
            judged = verdict if verdict in TALLIED + ("untestable",) else None
            gives = f"our criterion gives: {verdict}" if judged else ""
            return Comparison(self.metric, ours, paper, NOT_MODELLED, "; ".join(x for x in (self.out, gives, note) if x),
                              criterion=rule, series=self.series, judged=judged, claim=self.id,
                              measured=_plain(measured), measured_unit=unit_of(self.criterion))
        if self.counted_in:
            judged = verdict if verdict in TALLIED + ("untestable",) else None
            return Comparison(self.metric, ours, paper, COUNTED_IN, "; ".join(x for x in (self.out, note) if x),
                              criterion=rule, series=self.series, judged=judged, claim=self.id,
                              measured=_plain(measured), measured_unit=unit_of(self.criterion))
        if not self.tally:
            judged = verdict if verdict in TALLIED + ("untestable",) else None
            return Comparison(self.metric, ours, paper, MODEL_CHECK, "; ".join(x for x in (self.out, note) if x),
                              criterion=rule, series=self.series, judged=judged, claim=self.id,
                              measured=_plain(measured), measured_unit=unit_of(self.criterion))
        return Comparison(self.metric, ours, paper, verdict, note, criterion=rule, series=self.series,
                          claim=self.id, measured=_plain(measured), measured_unit=unit_of(self.criterion))


@dataclass
class Register:
    """One paper's claims, in the paper's order, from its ``claims.toml``."""

    paper: str
    claims: List[Claim]
    source: str = ""
    #: the whole tally again under another setting, shown beside the paper's
    #: (``[[beside]]`` in the register: ``key``, ``title``, ``match`` — the
    #: start of the variant figures' setting —, ``same``: the tallied claims
    #: whose measurement the setting cannot change, with ``same_why``)
    beside: List[Dict[str, Any]] = field(default_factory=list)
    by_id: Dict[str, Claim] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.by_id = {}
        for c in self.claims:
            if c.id in self.by_id:
                raise ValueError(f"{self.source}: claim id {c.id!r} twice")
            self.by_id[c.id] = c

    @classmethod
    def load(cls, path: Path) -> "Register":
        doc = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        claims = []
        for i, raw in enumerate(doc.get("claim", [])):
            where = f"{path.name}: claim {raw.get('id', i)!r}"
            for need in ("id", "where", "page", "says", "series", "metric", "criterion"):
                if not raw.get(need):
                    raise ValueError(f"{where}: field {need!r} is missing or empty")
            counted = raw.get("counted_in", ())
            counted = (counted,) if isinstance(counted, str) else tuple(counted)
            if counted and raw.get("tally", False):
                raise ValueError(f"{where}: an entry counted in another claim ({', '.join(counted)}) is not tallied")
            testbed = raw.get("testbed", False)
            if not isinstance(testbed, bool):
                raise ValueError(f"{where}: field 'testbed' must be true or false, got {testbed!r}")
            if testbed and (raw.get("tally", False) or counted):
                raise ValueError(f"{where}: a claim measured on the paper's testbed (testbed = true) is not tallied "
                                 "and counts in no other claim")
            if testbed and not raw.get("out"):
                raise ValueError(f"{where}: field 'out' is missing: a testbed claim says what the testbed had that "
                                 "we do not model")
            tally = bool(raw.get("tally", not (counted or testbed)))
            if tally and not raw.get("why"):
                raise ValueError(f"{where}: field 'why' is missing: a tallied claim says why it is the paper's, "
                                 "not a property of the setup")
            if counted and not raw.get("out"):
                raise ValueError(f"{where}: field 'out' is missing: an entry counted in another claim says why")
            if not tally and not raw.get("out"):
                raise ValueError(f"{where}: field 'out' is missing: a model check says why it holds by construction")
            unknown = set(raw) - {f.name for f in dataclasses.fields(Claim)}
            if unknown:
                raise ValueError(f"{where}: unknown field(s) {sorted(unknown)}")
            if raw["criterion"].get("kind") not in set(KINDS) | {"parts"}:
                raise ValueError(f"{where}: field 'criterion.kind' must be one of {sorted(KINDS) + ['parts']}, "
                                 f"got {raw['criterion'].get('kind')!r}")
            claims.append(Claim(**{**raw, "tally": tally, "counted_in": counted}))
        claims = _expand_parts(claims, path.name)
        beside = [dict(b) for b in doc.get("beside", [])]
        ids = {c.id for c in claims}
        for b in beside:
            for need in ("key", "title", "match", "same_why"):
                if not b.get(need):
                    raise ValueError(f"{path.name}: beside {b.get('key', '?')!r}: field {need!r} is missing or empty")
            strays = sorted(set(b.get("same", [])) - ids)
            if strays:
                raise ValueError(f"{path.name}: beside {b['key']!r}: field 'same' names no claim {strays}")
        return cls(str(doc.get("paper", path.parent.name)), claims, str(path), beside)

    def parts(self, cid: str) -> List[str]:
        """The ids of the points claim ``cid`` judges as one statement
        (empty: not such a claim)."""
        return list(self[cid].criterion.get("parts", []))

    def statement_rows(self, comparisons: Sequence[Comparison]) -> List[Comparison]:
        """For each claim of several points (``parts``) whose points are all
        among ``comparisons`` (rows of one figure) and which none of them
        judged itself: its row, judged on the points' measurements (under
        the points' setting of ours, if any, as a variant row)."""
        done = {(c.claim, c.setting) for c in comparisons if c.claim}
        # the points as the paper's series measured them (not a variant
        # series of ours judged by the same criterion)
        got: Dict[Tuple[str, str], Comparison] = {
            (c.claim, c.setting): c for c in comparisons
            if c.claim in self.by_id and self[c.claim].counted_in and c.series in ("", self[c.claim].series)}
        out = []
        for c in self.claims:
            ids = self.parts(c.id)
            for setting in sorted({s for (cid, s) in got if cid in ids}):
                if (c.id, setting) in done or not all((i, setting) in got for i in ids):
                    continue
                measured = {i: got[(i, setting)].measured for i in ids}
                if setting:
                    out.append(self.variant(c.id, measured, quantity=c.metric, setting=setting))
                else:
                    out.append(self.judge(c.id, measured))
        return out

    def __getitem__(self, cid: str) -> Claim:
        try:
            return self.by_id[cid]
        except KeyError:
            raise KeyError(f"{self.paper}: no claim {cid!r} in its register {self.source}") from None

    def judge(self, cid: str, measured: Measured, note: str = "") -> Comparison:
        return self[cid].judge(measured, note)

    def variant(self, cid: str, measured: Measured, *, quantity: str, setting: str = "", series: str = "",
                note: str = "") -> Comparison:
        """Claim ``cid``'s criterion applied to a variant of ours (a
        ``setting`` of ours or a ``series`` the paper does not plot): shown
        "beyond the paper" with the verdict it gives, never tallied."""
        if not (setting or series):
            raise ValueError(f"{quantity!r}: a variant row names its setting or its series")
        c = self[cid].judge(measured, note)
        judged = c.verdict if c.verdict in TALLIED + ("untestable",) else c.judged
        return dataclasses.replace(c, quantity=quantity, verdict="not in paper", judged=judged,
                                   setting=setting, series=series or c.series)

    @property
    def tallied(self) -> List[Claim]:
        return [c for c in self.claims if c.tally]


def _expand_parts(claims: List[Claim], name: str) -> List[Claim]:
    """A claim of several points (``{ kind = "parts", of = [ids] }``) as an
    ``all`` criterion over its points' own criteria (each keyed by the
    point's id), each point ``counted_in`` it; and every ``counted_in``
    naming tallied claims of the register."""
    by_id = {c.id: c for c in claims}
    out = []
    for c in claims:
        for other in c.counted_in:
            if other not in by_id or not by_id[other].tally:
                raise ValueError(f"{name}: claim {c.id!r}: counted_in names {other!r}, not a tallied claim")
        if c.criterion.get("kind") != "parts":
            out.append(c)
            continue
        ids = list(c.criterion.get("of", []))
        if len(ids) < 2:
            raise ValueError(f"{name}: claim {c.id!r}: a claim of parts names two or more points")
        for i in ids:
            if i not in by_id or c.id not in by_id[i].counted_in or by_id[i].criterion.get("kind") == "parts":
                raise ValueError(f"{name}: claim {c.id!r}: part {i!r} is not an entry counted_in it")
        spec = {"kind": "all", "of": [{**by_id[i].criterion, "key": i} for i in ids], "parts": ids}
        out.append(dataclasses.replace(c, criterion=spec))
    return out


def register_problems(register: Optional[Register], comparisons: Sequence[Comparison]) -> List[str]:
    """Why a tallied row is not the register's: it names no claim, a claim
    the register does not hold, or a model check; or its verdict is not the
    one the register's criterion gives (a row judged by a figure's own
    code)."""
    if register is None:
        return []
    out = []
    seen: Dict[str, int] = {}
    for c in comparisons:
        if c.verdict not in TALLIED:
            continue
        if not c.claim:
            out.append(f"{c.quantity!r} is tallied but no claim of the register judged it (a claim of the paper: "
                       "a [[claim]] of its claims.toml, judged by REGISTER.judge; a value of ours: info(); a "
                       "variant of ours: beyond(...))")
        elif c.claim not in register.by_id:
            out.append(f"{c.quantity!r} names claim {c.claim!r}, which is not in the register")
        elif not register.by_id[c.claim].tally:
            out.append(f"{c.quantity!r} is tallied but {c.claim!r} is a model check")
        elif c.setting:
            continue  # a variant of ours: refused elsewhere when tallied
        else:
            seen[c.claim] = seen.get(c.claim, 0) + 1
            if seen[c.claim] == 2:
                out.append(f"claim {c.claim!r} is judged twice: a claim is counted once (one row; its points "
                           "as one measurement, or a claim of parts)")
            elif _rejudged(register.by_id[c.claim], c) != c.verdict:
                out.append(f"{c.quantity!r} names claim {c.claim!r}, but its verdict {c.verdict!r} is not what the "
                           "register's criterion gives its measurement (a row judged by the figure's own code)")
    return out


def _rejudged(claim: Claim, c: Comparison) -> Optional[str]:
    """The verdict ``claim``'s criterion gives ``c``'s stored measurement
    (None: no measurement, or one the criterion cannot read)."""
    if c.measured is None:
        return None
    try:
        return judge_spec(claim.criterion, c.measured)[0]
    except (KeyError, TypeError, ValueError, IndexError):
        return None


# ---------------------------------------------------------------- verdict helpers shared by the papers


def compare_claim(quantity: str, ours: Any, paper: Any, holds: Optional[bool], note: str = "",
                  partly: Optional[bool] = None, *, criterion: str,
                  partly_criterion: Optional[str] = None, series: str = "") -> Comparison:
    """A claim of the paper tested by ``criterion`` (the rule, in words and
    numbers, that ``holds`` evaluates, e.g. ``"ratio ≥ 10"`` for "orders of
    magnitude"): ``agrees`` if it holds. If not, ``trend agrees`` when
    ``partly`` holds — a weaker rule that must be stated in
    ``partly_criterion`` and must be able to fail — else ``differs``.
    ``holds=None``: the claim could not be measured (``untestable``)."""
    if not criterion:
        raise ValueError(f"{quantity!r}: a claim needs a criterion")
    if partly is not None and not partly_criterion:
        raise ValueError(f"{quantity!r}: partly= needs partly_criterion= (the weaker rule it tests)")
    crit = criterion + (f"; trend: {partly_criterion}" if partly_criterion else "")
    if holds is None:
        return Comparison(quantity, ours, paper, "untestable", note or "not measurable in our run", criterion=crit,
                          series=series)
    verdict = "agrees" if bool(holds) else "trend agrees" if partly is not None and bool(partly) else "differs"
    return Comparison(quantity, ours, paper, verdict, note, criterion=crit, series=series)


def claim(quantity: str, ours: Any, paper: Any, holds: Optional[bool], criterion: str, note: str = "",
          partly: Optional[bool] = None, partly_rule: str = "") -> Comparison:
    """A qualitative claim tested by ``criterion``: ``agrees`` when it holds;
    when not, ``trend agrees`` when ``partly`` — the weaker rule stated in
    ``partly_rule`` — holds, else ``differs``; ``holds=None``: untestable;
    with no paper value either, a value of ours ("not in paper")."""
    if holds is None and paper is None:
        return Comparison(quantity, ours, None, "not in paper", "; ".join(x for x in (criterion, note) if x))
    return compare_claim(quantity, ours, paper, holds, note, partly, criterion=criterion,
                         partly_criterion=partly_rule if partly is not None else None)


def ordering(quantity: str, diffs: Mapping[Any, Sequence[float]], paper: Optional[str], sign: int, what: str,
             unit: str, series: str = "") -> Comparison:
    """A row judged by the ``ordering`` criterion outside a register: a
    comparison the paper does not make (our variants' rows, to be passed
    through ``beyond``); see :func:`_ordering`."""
    verdict, ours, rule = judge_spec({"kind": "ordering", "sign": sign, "what": what, "unit": unit}, diffs)
    return Comparison(quantity, ours, paper, verdict, criterion=rule, series=series)


def near(quantity: str, ours: float, paper: float, agree: float, close: float, note: str = "",
         fmt: str = ".3f", relative: bool = False) -> Comparison:
    """A number against the paper's: ``agrees`` if within ``agree``, ``close``
    within ``close`` (absolute, or relative with ``relative``), else ``differs``."""
    kind = "relative" if relative else "absolute"
    rule = f"agrees if the {kind} difference ≤ {agree:g}, close if ≤ {close:g}, else differs"
    if ours is None or (isinstance(ours, float) and math.isnan(ours)):
        return Comparison(quantity, ours, paper, "untestable", note or "no value measured", fmt=fmt, criterion=rule)
    d = abs(ours - paper) / abs(paper) if relative else abs(ours - paper)
    verdict = "agrees" if d <= agree else "close" if d <= close else "differs"
    return Comparison(quantity, ours, paper, verdict, note, fmt=fmt, criterion=rule)


def info(quantity: str, ours: Any, note: str = "") -> Comparison:
    """A reference value of ours, nothing in the paper to compare it with."""
    return Comparison(quantity, ours, None, "not in paper", note, criterion="— (our reference value)")
