"""Every function reads as its stages: none is longer than 60 lines.

Issue #28, "stages as methods": an orchestrator is a short list of named stages, each a private
method or a small pure function a reader can find and test on its own. This test walks the AST of
every module of the shipped packages and fails on any function (or method, nested function,
``async def``) longer than ``MAX_LINES``.

How a function is counted: from its ``def`` line to its last line, both included, so the
docstring, comments and blank lines inside the body count (decorators above ``def`` do not).
That is the literal reading of "<= 60 lines a function", and it keeps the rule independent of
style choices inside the body. A nested function counts inside its parent and on its own.

Exemptions:
- ``EXEMPT``: the CLI argument parser (``cli.parser.build_parser``), a flat declaration of
  commands and options that reads best in one place, as the issue allows.
- ``ALLOWLIST``: functions other engineers are splitting while issue #28 is in flight, each tagged
  with its owner. It is keyed by file stem and qualified name, so it survives a module moving to
  another folder or package. An entry must still name a long function: once it is split, the
  entry fails ``test_allowlist_names_only_long_functions`` until it is removed, so the list only
  shrinks, and the lead empties it when #28 closes.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parents[2]
#: the packages (the benchmarks, ``prism_bench``, are their own distribution under benchmarks/)
ROOTS = ("prism_memory", "langchain_prism", "llamaindex_prism", "benchmarks/prism_bench")
MAX_LINES = 60

#: (file stem, qualified name) exempt for good: the CLI parser's flat declaration
EXEMPT = {("parser", "build_parser")}  # prism_memory/cli/parser.py

#: (file stem, qualified name) -> owner; temporary while #28 is in flight (see module docstring)
ALLOWLIST: dict[tuple[str, str], str] = {}


class Function(NamedTuple):
    path: str
    qualname: str
    line: int
    length: int

    @property
    def key(self) -> tuple[str, str]:
        return (Path(self.path).stem, self.qualname)


def _functions(tree: ast.AST, path: str, prefix: str = "") -> list[Function]:
    """Every function under ``tree`` with its qualified name (``Class.method``, ``f.<locals>.g``)."""
    out: list[Function] = []
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            qualname = prefix + node.name
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            out.append(Function(path, qualname, node.lineno, length))
            out += _functions(node, path, qualname + ".<locals>.")
        elif isinstance(node, ast.ClassDef):
            out += _functions(node, path, prefix + node.name + ".")
        else:
            out += _functions(node, path, prefix)
    return out


@cache
def _all_functions() -> tuple[Function, ...]:
    """Every function of the shipped packages (parsed once per test session)."""
    out: list[Function] = []
    for root in ROOTS:
        assert (REPO / root).is_dir(), f"{root} moved: update ROOTS so the walk still covers it"
        for path in sorted((REPO / root).rglob("*.py")):
            rel = path.relative_to(REPO).as_posix()
            out += _functions(ast.parse(path.read_text(encoding="utf-8")), rel)
    return tuple(out)


def _long(functions: list[Function] | tuple[Function, ...]) -> list[Function]:
    return [f for f in functions if f.length > MAX_LINES]


def test_the_walk_counts_def_to_end_and_names_methods_and_nested_functions() -> None:
    body = "\n".join(["    x = 1"] * 59)
    source = (
        f"class A:\n    async def m(self):\n    {body.replace(chr(10), chr(10) + '    ')}\n"
        f"def f():\n    def g():\n        return 1\n{body}\n"
    )
    found = {fn.qualname: fn.length for fn in _functions(ast.parse(source), "x/mod.py")}
    assert found == {"A.m": 60, "f": 62, "f.<locals>.g": 2}
    assert [fn.qualname for fn in _long(_functions(ast.parse(source), "x/mod.py"))] == ["f"]


def test_no_function_is_longer_than_60_lines() -> None:
    offenders = [
        f for f in _long(_all_functions()) if f.key not in EXEMPT and f.key not in ALLOWLIST
    ]
    assert not offenders, (
        f"functions over {MAX_LINES} lines (def to end, docstring included); split each into "
        "its named stages (private methods or small pure functions):\n"
        + "\n".join(f"  {f.path}:{f.line} {f.qualname} ({f.length} lines)" for f in offenders)
    )


def test_allowlist_names_only_long_functions() -> None:
    """A split function leaves the allowlist, so the list only shrinks."""
    long_keys = {f.key for f in _long(_all_functions())}
    stale = sorted(
        f"{stem}.py {qualname} (owner: {owner})"
        for (stem, qualname), owner in ALLOWLIST.items()
        if (stem, qualname) not in long_keys
    )
    assert not stale, (
        "these allowlisted functions are no longer over 60 lines (or no longer exist); remove "
        "their entries from ALLOWLIST in tests/unit/test_function_length.py:\n  "
        + "\n  ".join(stale)
    )
