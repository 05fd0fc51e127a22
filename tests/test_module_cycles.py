"""The core's modules and the Python package form layers: no import circles.

Builds the module dependency graph of crates/dcnsim/src from its
`crate::…` and `super::…` paths (in `use` lines and inline) and fails on any
cycle, printing it with the line behind each edge.

The check runs at every level of the module tree: among the children of
one module (the crate root's `tcp`, `world`, `app`…; `tcp`'s `cc`, `seg`,
`io`…), child A depends on child B when any file in A's subtree names
anything in B's. A parent and its own children may refer to each other (a
child reading its parent's shared types through `super::` is the usual
Rust pattern; the parent declares and uses its children), so those edges
are not counted. Test code (`#[cfg(test)]` items and test-module files) is
left out: a test may use a higher layer to drive a lower one.

The same rule holds for python/dcnsim, read with `ast`: every `import` and
`from … import …` anywhere in a file counts, those inside functions included
(a lazy import hides a circle from the interpreter, not from a reader). A
package's `__init__` is its parent module, as `mod.rs` is in Rust: the
package re-exporting its children's API and a child reading a name from its
package are not counted; a child of `experiments` importing from `cli`
counts as `experiments -> cli` one level up.

Run as a script to print both graphs: `python tests/test_module_cycles.py`.
"""

from __future__ import annotations

import ast
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

REPO = Path(__file__).resolve().parent.parent
SRC = REPO / "crates" / "dcnsim" / "src"
PY_SRC = REPO / "python"

Module = Tuple[str, ...]
# (from module, to module, file, line)
Ref = Tuple[Module, Module, str, int]


RAW_STRING = re.compile(r'b?r(#*)"')
CHAR_LITERAL = re.compile(r"'(\\(u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|.)|[^\\'])'")


def strip_comments_and_strings(text: str) -> str:
    """Blank out comments, string and char literals, keeping newlines (so
    line numbers hold) and everything else."""
    out: List[str] = []
    i, n = 0, len(text)

    def blank(s: str) -> str:
        return "".join(c if c == "\n" else " " for c in s)

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(blank(text[i:j]))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(blank(text[i:j]))
            i = j
        elif (m := RAW_STRING.match(text, i)) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            end = '"' + m.group(1)
            j = text.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append(blank(text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(blank(text[i : j + 1]))
            i = j + 1
        elif c == "'":
            # A char literal ('x', '\n', '\u{1F}') or a lifetime ('a).
            m = CHAR_LITERAL.match(text, i)
            if m:
                out.append("' '")
                i = m.end()
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _skip_item(text: str, i: int) -> Tuple[int, bool]:
    """End of the item starting at `i` (after its attributes), and whether
    it is an out-of-line `mod name;`."""
    while True:  # further attributes
        m = re.match(r"\s*#\[", text[i:])
        if not m:
            break
        depth, j = 1, i + m.end()
        while depth:
            depth += {"[": 1, "]": -1}.get(text[j], 0)
            j += 1
        i = j
    semi, brace = text.find(";", i), text.find("{", i)
    if semi >= 0 and (brace < 0 or semi < brace):
        return semi + 1, bool(re.match(r"\s*(pub(\([^)]*\))?\s+)?mod\s+\w+\s*;", text[i : semi + 1]))
    depth, j = 1, brace + 1
    while depth and j < len(text):
        depth += {"{": 1, "}": -1}.get(text[j], 0)
        j += 1
    return j, False


def strip_test_code(text: str) -> Tuple[str, Set[str]]:
    """Blank out `#[cfg(test)]` items; return the text and the names of
    out-of-line test modules (`#[cfg(test)] mod tests;`)."""
    test_mods: Set[str] = set()
    while True:
        m = re.search(r"#\[cfg\(test\)\]", text)
        if not m:
            return text, test_mods
        end, is_mod_decl = _skip_item(text, m.end())
        item = text[m.start() : end]
        if is_mod_decl:
            test_mods.add(re.search(r"mod\s+(\w+)", item).group(1))
        text = text[: m.start()] + "".join(c if c == "\n" else " " for c in item) + text[end:]


def module_of(path: Path, root: Path) -> Module:
    rel = path.relative_to(root).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] in ("mod", "lib"):
        parts.pop()
    return tuple(parts)


def expand_use(tree: str) -> List[List[str]]:
    """`a::{b, c::{d, e}, self}` → [[a, b], [a, c, d], [a, c, e], [a]]
    (`as` renames already removed)."""
    tree = re.sub(r"\s+", "", tree)

    def split_top(s: str) -> List[str]:
        parts, depth, cur = [], 0, ""
        for ch in s:
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
                continue
            depth += {"{": 1, "}": -1}.get(ch, 0)
            cur += ch
        if cur:
            parts.append(cur)
        return parts

    def go(prefix: List[str], s: str) -> List[List[str]]:
        brace = s.find("{")
        if brace < 0:
            segs = [p for p in s.split("::") if p]
            if segs and segs[-1] == "self":
                segs.pop()
            return [prefix + segs]
        head = [p for p in s[:brace].split("::") if p]
        inner = s[brace + 1 : s.rfind("}")]
        result = []
        for part in split_top(inner):
            result += go(prefix + head, part)
        return result

    return go([], tree)


def _absolute(segs: List[str], here: Module) -> Module | None:
    """Resolve a path's leading `crate`/`super`/`self` against module `here`."""
    if not segs:
        return None
    if segs[0] == "crate":
        return tuple(segs[1:])
    if segs[0] in ("super", "self"):
        base = list(here)
        k = 0
        while k < len(segs) and segs[k] in ("super", "self"):
            if segs[k] == "super":
                if not base:
                    return None
                base.pop()
            k += 1
        return tuple(base + segs[k:])
    return None  # an external crate or a relative path (only reaches children)


def _resolve(path: Module, modules: Set[Module]) -> Module:
    """The longest prefix of `path` that is a module."""
    for k in range(len(path), -1, -1):
        if path[:k] in modules:
            return path[:k]
    return ()


def collect(root: Path = SRC) -> Tuple[Set[Module], List[Ref]]:
    files = sorted(root.rglob("*.rs"))
    texts: Dict[Path, str] = {}
    test_files: Set[Path] = set()
    for f in files:
        text, test_mods = strip_test_code(strip_comments_and_strings(f.read_text()))
        texts[f] = text
        here_dir = f.parent if f.name in ("mod.rs", "lib.rs") else f.with_suffix("")
        for name in test_mods:
            test_files |= {here_dir / f"{name}.rs", here_dir / name / "mod.rs"}
    # a test module's own submodules are test code too
    live = [f for f in files if not any(f == t or t.parent in f.parents and t.name == "mod.rs" for t in test_files)]
    modules = {module_of(f, root) for f in live}
    refs: List[Ref] = []
    for f in live:
        here = module_of(f, root)
        text = texts[f]

        def line_of(pos: int, text: str = text) -> int:
            return text.count("\n", 0, pos) + 1

        uses = list(re.finditer(r"\buse\s+([^;]+);", text))
        for m in uses:
            body = re.sub(r"\s+as\s+\w+", "", m.group(1))
            for segs in expand_use(body):
                target = _absolute(segs, here)
                if target is not None:
                    refs.append((here, _resolve(target, modules), str(f.relative_to(root)), line_of(m.start())))
        rest = text
        for m in reversed(uses):
            rest = rest[: m.start()] + "".join(c if c == "\n" else " " for c in m.group(0)) + rest[m.end() :]
        for m in re.finditer(r"\b(?:crate|super|self)(?:\s*::\s*\w+)+", rest):
            segs = [s.strip() for s in m.group(0).split("::")]
            target = _absolute(segs, here)
            if target is not None:
                refs.append((here, _resolve(target, modules), str(f.relative_to(root)), line_of(m.start())))
    return modules, refs


def sibling_edges(refs: List[Ref]) -> Dict[Module, Dict[Tuple[Module, Module], Tuple[str, int]]]:
    """Per parent module: edges between its children, each with the first
    reference behind it."""
    levels: Dict[Module, Dict[Tuple[Module, Module], Tuple[str, int]]] = defaultdict(dict)
    for src, tgt, file, line in refs:
        k = 0
        while k < min(len(src), len(tgt)) and src[k] == tgt[k]:
            k += 1
        if k == len(src) or k == len(tgt):
            continue  # same module, or an ancestor and its descendant
        edge = (src[: k + 1], tgt[: k + 1])
        levels[src[:k]].setdefault(edge, (file, line))
    return levels


def find_cycles(edges: Dict[Tuple[Module, Module], Tuple[str, int]]) -> List[List[Module]]:
    """Per strongly connected component of more than one module: a
    shortest cycle through its first module, then its other modules."""
    graph: Dict[Module, List[Module]] = defaultdict(list)
    for a, b in sorted(edges):
        graph[a].append(b)
    index: Dict[Module, int] = {}
    low: Dict[Module, int] = {}
    stack: List[Module] = []
    on: Set[Module] = set()
    sccs: List[List[Module]] = []

    def strong(v: Module) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(comp)

    for v in sorted(set(graph) | {b for bs in graph.values() for b in bs}):
        if v not in index:
            strong(v)
    cycles = []
    for comp in sccs:
        members = set(comp)
        start = min(comp)
        # breadth-first back to start gives a shortest cycle through it
        prev: Dict[Module, Module] = {}
        frontier = [start]
        found = None
        while frontier and found is None:
            nxt = []
            for v in frontier:
                for w in graph[v]:
                    if w not in members:
                        continue
                    if w == start:
                        found = v
                        break
                    if w not in prev:
                        prev[w] = v
                        nxt.append(w)
                if found is not None:
                    break
            frontier = nxt
        path = [found]
        while path[-1] != start:
            path.append(prev[path[-1]])
        cycles.append(list(reversed(path)) + [start])
        cycles[-1].extend(sorted(members - set(cycles[-1])))  # the rest of the tangle
    return cycles


def name(m: Module) -> str:
    return "::".join(("crate",) + m)


def describe(found: List[Module], edges: Dict[Tuple[Module, Module], Tuple[str, int]], name=name) -> str:
    """A cycle (`found` starts with it, closed, then lists the other
    modules of the same tangle) with the line behind each edge."""
    end = found.index(found[0], 1) + 1
    cycle, others = found[:end], found[end:]
    steps = []
    for a, b in zip(cycle, cycle[1:]):
        file, line = edges[(a, b)]
        steps.append(f"  {name(a)} -> {name(b)}   ({file}:{line})")
    also = f"\n  (tangled with it too: {', '.join(name(m) for m in others)})" if others else ""
    return " -> ".join(name(m) for m in cycle) + "\n" + "\n".join(steps) + also


def all_cycles(root: Path = SRC) -> List[str]:
    _, refs = collect(root)
    out = []
    for _, edges in sorted(sibling_edges(refs).items()):
        out += [describe(c, edges) for c in find_cycles(edges)]
    return out


def test_core_modules_have_no_import_cycles():
    cycles = all_cycles()
    assert not cycles, "import cycles between modules:\n" + "\n".join(cycles)


def _write(root: Path, files: Dict[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def test_checker_finds_cycles_at_every_level_and_ignores_tests(tmp_path):
    _write(
        tmp_path,
        {
            "lib.rs": "pub mod a;\npub mod b;\npub mod t;\nuse crate::a::X; // root -> child is fine\n",
            # a <-> b through a nested file and an inline path
            "a/mod.rs": "pub mod deep;\npub struct X;\n",
            "a/deep.rs": "use super::X; // child -> parent is fine\nfn f() { crate::b::g(); }\n",
            "b.rs": 'use crate::{a::{self, X as Y}};\npub fn g() { let _ = "crate::t::z"; }\n',
            # t: inner siblings p <-> q; its test code uses b, not counted
            "t/mod.rs": "mod p;\nmod q;\n#[cfg(test)]\nmod tests;\n#[cfg(test)]\nmod more {\n use crate::b::g;\n}\n",
            "t/p.rs": "use super::q::Q;\npub struct P;\n",
            "t/q.rs": "pub struct Q(super::p::P);\n",
            "t/tests.rs": "use crate::b::g;\n",
        },
    )
    found = all_cycles(tmp_path)
    assert len(found) == 2, found
    assert found[0].startswith("crate::a -> crate::b -> crate::a"), found[0]
    assert "a/deep.rs:2" in found[0] and "b.rs:1" in found[0]
    assert found[1].startswith("crate::t::p -> crate::t::q -> crate::t::p"), found[1]
    # Breaking one edge of each clears them.
    (tmp_path / "a" / "deep.rs").write_text("use super::X;\n")
    (tmp_path / "t" / "q.rs").write_text("pub struct Q;\n")
    assert all_cycles(tmp_path) == []


# ---------------------------------------------------------------- Python


def py_name(m: Module) -> str:
    return ".".join(m)


def py_collect(root: Path = PY_SRC, package: str = "dcnsim", broken: Optional[List[str]] = None
               ) -> Tuple[Set[Module], List[Ref]]:
    """Modules of `package` under `root` (a `.pyi` stands for an extension
    module such as `_core`) and every import between them. `broken`
    receives the `from <module> import` lines of the package whose module
    does not exist (a lazy import fails only when its function runs)."""
    files: Dict[Module, Tuple[Path, bool]] = {}
    for f in sorted((root / package).rglob("*.py*")):
        if f.suffix not in (".py", ".pyi"):
            continue
        parts = list(f.relative_to(root).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts.pop()
        if f.suffix == ".py" or tuple(parts) not in files:
            files[tuple(parts)] = (f, is_pkg)
    modules = set(files)

    def resolve(path: Module) -> Module:
        while path and path not in modules:
            path = path[:-1]
        return path

    refs: List[Ref] = []
    for here, (f, is_pkg) in files.items():
        if f.suffix != ".py":
            continue
        pkg = here if is_pkg else here[:-1]
        rel = str(f.relative_to(root))
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"), str(f))):
            if isinstance(node, ast.Import):
                targets = [tuple(a.name.split(".")) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = pkg[: len(pkg) - node.level + 1] if node.level else ()
                base += tuple(node.module.split(".")) if node.module else ()
                if broken is not None and base[:1] == (package,) and base not in modules:
                    broken.append(f"{rel}:{node.lineno}: no module {py_name(base)}")
                # `from . import x`: x is a submodule, or a name in the package
                targets = [base + (a.name,) for a in node.names]
            else:
                continue
            for t in targets:
                target = resolve(t)
                if target:  # () is outside the package
                    refs.append((here, target, rel, node.lineno))
    return modules, refs


def py_cycles(root: Path = PY_SRC, package: str = "dcnsim") -> List[str]:
    _, refs = py_collect(root, package)
    out = []
    for _, edges in sorted(sibling_edges(refs).items()):
        out += [describe(c, edges, name=py_name) for c in find_cycles(edges)]
    return out


def test_python_modules_have_no_import_cycles():
    cycles = py_cycles()
    assert not cycles, "import cycles between Python modules:\n" + "\n".join(cycles)


def test_python_imports_name_modules_that_exist():
    broken: List[str] = []
    py_collect(broken=broken)
    assert not broken, "imports of modules that do not exist:\n" + "\n".join(broken)


def test_python_checker_sees_function_level_imports_and_nested_packages(tmp_path):
    _write(
        tmp_path,
        {
            # the package facade and its children may import each other
            "pkg/__init__.py": "from .a import f\n\ndef g():\n    from .b import h\n",
            "pkg/_core.pyi": "def run() -> None: ...\n",
            # a -> b at the top, b -> a only inside a function
            "pkg/a.py": "from . import _core\nfrom .b import h\nimport json\n",
            "pkg/b.py": "import pkg\n\ndef h():\n    if True:\n        from pkg.a import f\n",
            # sub.x -> sub.y -> sub.x, one of them relative two levels up
            "pkg/sub/__init__.py": "",
            "pkg/sub/x.py": "from .y import Y\n",
            "pkg/sub/y.py": "from ..sub import x\nY = 1\n",
        },
    )
    found = py_cycles(tmp_path, "pkg")
    broken: List[str] = []
    py_collect(tmp_path, "pkg", broken)
    assert broken == []
    assert len(found) == 2, found
    assert found[0].startswith("pkg.a -> pkg.b -> pkg.a"), found[0]
    assert "pkg/b.py:5" in found[0], found[0]
    assert found[1].startswith("pkg.sub.x -> pkg.sub.y -> pkg.sub.x"), found[1]
    (tmp_path / "pkg" / "b.py").write_text("import pkg\n")
    (tmp_path / "pkg" / "sub" / "y.py").write_text("from ..a import f\nY = 1\n\ndef later():\n    from .a import f\n")
    assert py_cycles(tmp_path, "pkg") == []
    py_collect(tmp_path, "pkg", broken)
    assert broken == ["pkg/sub/y.py:5: no module pkg.sub.a"], broken


if __name__ == "__main__":
    _, refs = collect()
    for parent, edges in sorted(sibling_edges(refs).items()):
        print(f"{name(parent)}:")
        for (a, b), (file, line) in sorted(edges.items()):
            print(f"  {name(a)[len(name(parent)) + 2:]} -> {name(b)[len(name(parent)) + 2:]}   ({file}:{line})")
    _, py_refs = py_collect()
    for parent, edges in sorted(sibling_edges(py_refs).items()):
        print(f"{py_name(parent)}:")
        for (a, b), (file, line) in sorted(edges.items()):
            print(f"  {py_name(a)[len(py_name(parent)) + 1:]} -> {py_name(b)[len(py_name(parent)) + 1:]}   ({file}:{line})")
    cycles = all_cycles() + py_cycles()
    print("\n".join(cycles) if cycles else "no cycles")
    sys.exit(1 if cycles else 0)
