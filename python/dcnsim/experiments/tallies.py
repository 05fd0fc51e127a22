"""A paper's tally as its docs show it: the register's claims judged on the
last full run's measurements.

The last full run of a paper is committed as data beside its register,
``<paper>/results.json``: for each claim, what the figure measured (the
criterion's input), the text our table shows and the verdict the run
gave. The docs' tally table is rendered from the register and that file
(:func:`render`), between ``<!-- tally: KEY -->`` and ``<!-- /tally -->``;
tests/test_docs_drift.py checks each doc against it, as it checks the
benchmark tables against benchmarks/results.json, without re-running the
papers. A criterion changed in the register changes the rendered verdict
at once (the measurement is kept): the doc must then be rendered again.

    python -m dcnsim.experiments.tallies record rps DIR --commit C --date 2026-12-01 \
        --command "dcnsim reproduce rps --out DIR"
    python -m dcnsim.experiments.tallies render           # rewrite every doc's tally block
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from .._atomic import atomic_write
from .claims import Claim, judge_spec
from .paper import TALLIED, Paper
from .registry import PAPERS, get_paper

__all__ = ["results_path", "load_results", "record", "render", "render_doc", "registered_papers", "BLOCK",
           "NUMBERS", "unsourced_numbers"]

REPO = Path(__file__).resolve().parents[3]
#: a doc's tally block: ``<!-- tally: rps -->`` ... ``<!-- /tally -->``
BLOCK = re.compile(r"(<!-- tally: (\w+) -->\n)(.*?)(<!-- /tally -->)", re.S)
#: prose that quotes the last full run: ``<!-- numbers: rps -->`` ... ``<!-- /numbers -->``
NUMBERS = re.compile(r"<!-- numbers: (\w+) -->\n(.*?)<!-- /numbers -->", re.S)
#: a decimal number in prose, not part of a name or version ("ns-3.23")
_DECIMAL = re.compile(r"(?<![\w.−-])[−+-]?\d+\.\d+(?![\w.])")


def registered_papers() -> List[str]:
    """The papers whose tallies come from a claims register."""
    out = []
    for key in sorted(PAPERS):
        p = get_paper(key)
        if p.own_study or p.register is None:
            continue
        if key == p.register.paper:
            out.append(key)
        elif p.register.paper != p.tallied_in:
            # a copied register that kept its origin's name would be left
            # out of every render and drift check without a word
            raise ValueError(f"{p.register.source}: paper = {p.register.paper!r}, but it is paper {key!r}'s "
                             f"register (set paper = {key!r})")
    return out


def results_path(paper: Paper) -> Path:
    return Path(paper.register.source).with_name("results.json")


def load_results(paper: Paper) -> Dict[str, Any]:
    path = results_path(paper)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no recorded full run of {paper.key} (python -m dcnsim.experiments.tallies "
                                "record ...)")
    return json.loads(path.read_text(encoding="utf-8"))


def record(key: str, run_dir: Path, *, commit: str, command: str, date: str, note: str = "",
           partial: bool = False) -> Path:
    """Store a full run's register rows (from ``run_dir``'s per-figure
    ``*.report.json``) as ``<paper>/results.json``. ``partial``: a run that
    did not finish every figure is stored with its missing claims named
    (``not_run``), and the tally renders them "not run"."""
    p = get_paper(key)
    rows: Dict[str, Any] = {}
    notes: Dict[str, List[str]] = {}
    cores: set = set()
    for f in sorted(Path(run_dir).glob("*.report.json")):
        rec = json.loads(f.read_text(encoding="utf-8"))
        if rec.get("quick"):
            raise ValueError(f"{f.name}: this figure ran with --quick (fewer points than the paper's); a tally "
                             "records a full run")
        if rec.get("ties") is not None:
            # the docs' tally is the engine's default order; a run of
            # another order (`reproduce --ties`) is compared beside it
            raise ValueError(f"{f.name}: this figure ran with ties = {rec['ties']!r} (`reproduce --ties`); "
                             "a tally records a run in the engine's default order")
        cores.update(rec.get("cores") or [])
        # every row's text and every note: the numbers a doc's prose may quote
        notes[rec["id"]] = list(rec.get("notes", [])) + [
            f"{c['quantity']}: {c['ours']}" + (f" ({c['note']})" if c.get("note") else "")
            for c in rec.get("comparisons", [])]
        for c in rec.get("comparisons", []):
            cid = c.get("claim")
            # a row of a setting of ours (a model check of a variant figure)
            # is not the paper's setup: only the paper's own rows are recorded
            if cid and c["verdict"] not in ("not in paper",) and not c.get("setting") and cid in p.register.by_id:
                if cid in rows and rows[cid]["figure"] != rec["id"]:
                    raise ValueError(f"{run_dir}: claim {cid!r} has a row in Fig. {rows[cid]['figure']} and in "
                                     f"Fig. {rec['id']}: a claim is counted once")
                rows[cid] = {"figure": rec["id"], "quantity": c["quantity"], "ours": c["ours"],
                             "measured": c.get("measured"), "verdict": c["verdict"], "judged": c.get("judged"),
                             "note": c.get("note", "")}
    rows.update(_statements(p, rows))
    missing = [c.id for c in p.register.claims if c.id not in rows]
    if missing and not partial:
        raise ValueError(f"{run_dir}: no row for claim(s) {', '.join(missing)}: record a full run of every figure")
    doc = {"paper": key, "source": "partial run" if missing else "full run", "commit": commit, "date": date,
           "command": command, "cores": sorted(cores), "note": note,
           "rows": {c.id: rows[c.id] for c in p.register.claims if c.id in rows}, "figures": notes}
    if missing:
        doc["not_run"] = missing
    if p.register.beside:
        doc["beside"] = _beside_rows(p, run_dir)
    path = results_path(p)
    text = json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=True) + "\n"
    atomic_write(path, lambda fh: fh.write(text))
    return path


def _beside_rows(p: Paper, run_dir: Path) -> Dict[str, Dict[str, Any]]:
    """Per ``[[beside]]`` setting: each tallied claim's row as the variant
    figures (whose setting starts with its ``match``) measured it."""
    out: Dict[str, Dict[str, Any]] = {}
    for b in p.register.beside:
        got: Dict[str, Any] = {}
        for f in sorted(Path(run_dir).glob("*.report.json")):
            rec = json.loads(f.read_text(encoding="utf-8"))
            for c in rec.get("comparisons", []):
                cid = c.get("claim")
                # the claim's own series under the setting (not a variant
                # series of ours judged by the same criterion, e.g. CT200)
                if cid in p.register.by_id and str(c.get("setting") or "").startswith(b["match"]) \
                        and c.get("series") == p.register[cid].series:
                    got[cid] = {"figure": rec["id"], "quantity": c["quantity"], "ours": c["ours"],
                                "measured": c.get("measured"), "verdict": c.get("judged") or c["verdict"],
                                "judged": c.get("judged"), "note": c.get("note", "")}
        # a claim neither re-run under the setting nor listed as the same
        # is rendered "not run" and counted so: a partial run says so
        got.update(_statements(p, got))
        out[b["key"]] = {c.id: got[c.id] for c in p.register.tallied if c.id in got}
    return out


def _render_beside(p: Paper, res: Dict[str, Any], main: Dict[str, str]) -> List[str]:
    """The whole tally again under each ``[[beside]]`` setting, beside the
    paper's: a claim re-run under it is judged on that run, a claim the
    setting cannot change keeps the paper setup's verdict (said so)."""
    out: List[str] = []
    for b in p.register.beside:
        rows = res.get("beside", {}).get(b["key"], {})
        rows = {**rows, **_statements(p, rows)}
        counts = {v: 0 for v in TALLIED + ("untestable", "not run")}
        lines = []
        for c in p.register.tallied:
            if c.id in rows:
                verdict, ours, _ = _judge(c, rows[c.id])
                src = f"Fig. {rows[c.id]['figure']}"
            elif c.id in b.get("same", []):
                verdict, ours, src = main[c.id], "as in the paper setup", "the same run (the setting cannot change it)"
            else:
                verdict, ours, src = "not run", "—", "—"
            counts[verdict] = counts.get(verdict, 0) + 1
            moved = "" if verdict == main[c.id] or "not run" in (verdict, main[c.id]) else \
                f" (paper setup: {main[c.id]})"
            lines.append(f"| {_cell(c.id)} | {_cell(ours)} | {_cell(src)} | {verdict}{moved} |")
        n = sum(counts[v] for v in TALLIED)
        parts = ", ".join(f"{counts[v]} {v}" for v in TALLIED if counts[v]) or "none"
        extra = [f"{k} {v}" for k, v in counts.items() if k not in TALLIED and v]
        changed = sum(1 for line in lines if "(paper setup:" in line)
        out += ["", f"**The same {n} claims under {b['title']}: {parts}**" + (f" ({', '.join(extra)})" if extra else "")
                + f" — {changed} verdict(s) differ from the paper setup's. Shown beside the tally, never added to it; "
                f"the same criteria on the variant figures of the same run; the same for {', '.join(b.get('same', []))}"
                f" ({b['same_why']}).", "",
                "| claim | ours | measured by | verdict |", "|---|---|---|---|", *lines]
    return out


def _statements(p: Paper, rows: Dict[str, Any]) -> Dict[str, Any]:
    """The rows of the claims of several points (``parts``) that ``rows``
    lacks and whose points it holds: judged on the points' measurements
    (a run recorded before the points were one claim)."""
    out: Dict[str, Any] = {}
    for c in p.register.claims:
        ids = p.register.parts(c.id)
        if not ids or c.id in rows or not all(i in rows and rows[i].get("measured") is not None for i in ids):
            continue
        verdict, ours, _ = judge_spec(c.criterion, {i: rows[i]["measured"] for i in ids})
        out[c.id] = {"figure": rows[ids[0]]["figure"], "quantity": c.metric, "ours": ours,
                     "measured": {i: rows[i]["measured"] for i in ids}, "verdict": verdict, "judged": None,
                     "note": "judged on its points' rows"}
    return out


def _cell(v: Any) -> str:
    return str(v).replace("|", "\\|").replace("\n", " ")


def _judge(c: Claim, row: Dict[str, Any]) -> tuple:
    """(verdict, ours, rule): the register's criterion on the stored
    measurement; a row stored without one keeps the run's text."""
    if row.get("measured") is None:
        return (row.get("judged") or row["verdict"]), str(row["ours"]), "(as recorded)"
    return judge_spec(c.criterion, row["measured"])


def render(key: str) -> str:
    """The tally block of paper ``key``: counts, the tallied claims and the
    model checks kept beyond the tally."""
    p = get_paper(key)
    reg, res = p.register, load_results(p)
    counts = {v: 0 for v in TALLIED + ("untestable",)}
    tallied, checks, points, testbed = [], [], [], []
    main: Dict[str, str] = {}
    rows = {**res["rows"], **_statements(p, res["rows"])}
    for c in reg.claims:
        row = rows.get(c.id)
        if row is None:
            verdict, ours, rule = "not run", "—", "—"
        else:
            verdict, ours, rule = _judge(c, row)
        main[c.id] = verdict
        where = f"{c.where} ({c.page})"
        if c.tally:
            counts[verdict] = counts.get(verdict, 0) + 1
            tallied.append(f"| {_cell(c.id)} | {_cell(where)} | {_cell(c.paper or c.says)} | {_cell(c.metric)}: "
                           f"{_cell(ours)} | {_cell(rule)} | {verdict} |")
        elif c.testbed:
            testbed.append(f"| {_cell(c.id)} | {_cell(where)} | {_cell(c.paper or c.says)} | {_cell(c.metric)}: "
                           f"{_cell(ours)} | {_cell(rule)} | {verdict} | {_cell(c.out)} |")
        elif c.counted_in:
            points.append(f"| {_cell(c.id)} | {_cell(where)} | {_cell(c.paper or c.says)} | {_cell(c.metric)}: "
                          f"{_cell(ours)} | {_cell(rule)} | {verdict} | {_cell(', '.join(c.counted_in))}: "
                          f"{_cell(c.out)} |")
        else:
            checks.append(f"| {_cell(c.id)} | {_cell(where)} | {_cell(c.metric)}: {_cell(ours)} | {_cell(rule)} "
                          f"| {verdict} | {_cell(c.out)} |")
    n = sum(counts[v] for v in TALLIED)
    parts = ", ".join(f"{counts[v]} {v}" for v in TALLIED if counts[v]) or "none"
    extra = [f"{k} {v}" for k, v in counts.items() if k not in TALLIED and v]
    head = (f"**{n} tested claim{'' if n == 1 else 's'} of the paper: {parts}**" + (f" ({', '.join(extra)})" if extra else "")
            + f" — the register (`{Path(reg.source).relative_to(REPO / 'python').as_posix()}`) judging the "
            f"{res['source']} at {res['commit']} ({res['date']}; `{res['command']}`"
            + (f"; core {', '.join(res['cores'])}" if res.get("cores") else "") + ")."
            + (f" {res['note']}" if res.get("note") else ""))
    out = [head, "",
           "| claim | where | the paper | ours | criterion | verdict |", "|---|---|---|---|---|---|", *tallied]
    if points:
        out += ["", f"Points counted in another claim ({len(points)}): one point of a statement the paper makes "
                "once (the claim named counts it, judged on every point), or a restatement of claims tallied "
                "already. Judged and shown, never added to the tally.", "",
                "| point | where | the paper | ours | criterion | our criterion gives | counted in, and why |",
                "|---|---|---|---|---|---|---|", *points]
    if testbed:
        out += ["", f"Claims the paper measured on its hardware testbed ({len(testbed)}): testbed not modelled, "
                "never tallied; each judged by its criterion all the same, and shown.", "",
                "| claim | where | the paper | ours | criterion | our criterion gives | what the testbed had |",
                "|---|---|---|---|---|---|---|", *testbed]
    if checks:
        held = sum(1 for line in checks if line.split(" | ")[-2] == "agrees")
        out += ["", f"Checks of the model, beyond the tally ({held} of {len(checks)} hold): not claims of the "
                "paper (true by construction, the paper's own arithmetic, a result it cites, or our model against "
                "its formula: each row says why), so they test our simulator, not the paper.", "",
                "| check | where | ours | criterion | our criterion gives | why not the paper's claim |",
                "|---|---|---|---|---|---|", *checks]
    if reg.beside:
        out += _render_beside(p, res, main)
    return "\n".join(out)


def render_doc(text: str, keys: Optional[Sequence[str]] = None) -> str:
    """``text`` with every tally block (of ``keys``, default all) rendered."""
    def sub(m: "re.Match[str]") -> str:
        if keys is not None and m.group(2) not in keys:
            return m.group(0)
        return f"{m.group(1)}{render(m.group(2))}\n{m.group(4)}"
    return BLOCK.sub(sub, text)


def _write_text(path: Path, text: str) -> None:
    atomic_write(path, lambda fh: fh.write(text))


def unsourced_numbers(key: str, text: str) -> List[str]:
    """The decimal numbers in ``text``'s ``<!-- numbers: KEY -->`` prose
    that no value of the last full run gives at the precision printed: a
    number of an older run, or one edited by hand. The paper's own values
    (the register's "paper" column) are sources too: prose quotes them
    beside ours ("0.620 (paper 0.63)")."""
    p = get_paper(key)
    res = load_results(p)
    pool = json.dumps(res["rows"], ensure_ascii=False) + json.dumps(res.get("figures", {}), ensure_ascii=False)
    if p.register is not None:
        pool += " ".join(f"{c.paper} {c.says}" for c in p.register.claims)
    values = [float(v.replace("−", "-")) for v in re.findall(r"[−+-]?\d+(?:\.\d+)?(?:e[−+-]?\d+)?", pool)]
    out = []
    for m in NUMBERS.finditer(text):
        if m.group(1) != key:
            continue
        for tok in _DECIMAL.findall(m.group(2)):
            x = float(tok.replace("−", "-"))
            places = len(tok.split(".")[1])
            if not any(round(abs(v), places) == round(abs(x), places) for v in values):
                out.append(tok)
    return out


def docs_of(key: str) -> Path:
    return REPO / get_paper(key).docs


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m dcnsim.experiments.tallies", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record", help="store a full run's register rows as <paper>/results.json")
    r.add_argument("paper")
    r.add_argument("run_dir", type=Path)
    r.add_argument("--commit", required=True)
    r.add_argument("--command", required=True)
    r.add_argument("--date", required=True, help="YYYY-MM-DD of the run")
    r.add_argument("--note", default="")
    r.add_argument("--partial", action="store_true", help="a run that did not finish every figure: its missing "
                   "claims are stored as not run")
    d = sub.add_parser("render", help="rewrite the tally blocks of the papers' docs")
    d.add_argument("papers", nargs="*")
    a = ap.parse_args(argv)
    if a.cmd == "record":
        try:
            print(record(a.paper, a.run_dir, commit=a.commit, command=a.command, date=a.date, note=a.note,
                         partial=a.partial))
        except ValueError as e:
            print(f"tallies record: {e}", file=sys.stderr)
            return 2
        return 0
    for key in a.papers or registered_papers():
        doc = docs_of(key)
        text = doc.read_text(encoding="utf-8")
        new = render_doc(text, [key])
        if f"<!-- tally: {key} -->" not in text:
            print(f"{doc}: no '<!-- tally: {key} -->' block", file=sys.stderr)
            return 1
        if new != text:
            _write_text(doc, new)
            print(f"rendered {doc}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
