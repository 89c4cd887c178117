"""The import graph reads like the architecture: adapters -> Memory -> write path / recall
pipeline -> engine -> stores.

Every ``import`` statement of every module under ``prism_memory/`` counts, wherever it is
(module level, inside a function, under ``if TYPE_CHECKING:``): no stage below the facade
imports it, and the graph has no cycle. Ranking is defined once: one ``Candidate``, one RRF,
one freshness function.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import prism_memory

ROOT = Path(prism_memory.__file__).parent
PACKAGE = "prism_memory"

#: the facade and the parts it composes; nothing below them may import these
FACADE = {
    "prism_memory",
    "prism_memory.memory",
    "prism_memory._record_api",
    "prism_memory._delete_api",
    "prism_memory._transfer",
    "prism_memory.write",
    "prism_memory.write.path",
    "prism_memory.retrieval.pipeline",
}
#: what sits above the facade (tools built on Memory; RemoteMemory takes Memory's signatures)
ABOVE = {"prism_memory.cli", "prism_memory.demo", "prism_memory.__main__", "prism_memory.remote"}
#: the stages and the engine: they receive the engine, never the facade
BELOW_PREFIXES = (
    "prism_memory.engine",
    "prism_memory.layers",
    "prism_memory.extraction",
    "prism_memory.lifecycle",
    "prism_memory.retrieval",
    "prism_memory.stores",
    "prism_memory.embeddings",
    "prism_memory.safety",
    "prism_memory.llm",
)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """Modules of the package that ``name`` imports anywhere in its source."""
    is_package = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                base = base if is_package else base[:-1]
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            # ``from pkg import mod`` imports the submodule; ``from pkg import name`` the package
            targets = [
                f"{module}.{a.name}" if f"{module}.{a.name}" in known else module
                for a in node.names
            ]
        else:
            continue
        for target in targets:
            while target and target not in known:  # "prism_memory.stores.base.X" -> module
                target = target.rpartition(".")[0]
            if target.startswith(PACKAGE) and target != name:
                out.add(target)
    return out


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: _imports(name, path, known) for name, path in modules.items()}


def test_nothing_below_the_facade_imports_it() -> None:
    graph = _graph()
    offenders = {
        f"{name} imports {sorted(targets & FACADE)}"
        for name, targets in graph.items()
        if name.startswith(BELOW_PREFIXES) and name not in FACADE and targets & FACADE
    }
    assert not offenders, sorted(offenders)
    # the parts of the facade do not import Memory either (it composes them)
    parts = FACADE - {"prism_memory", "prism_memory.memory"}
    assert not {n for n in parts if graph[n] & {"prism_memory", "prism_memory.memory"}}, (
        "a part of Memory imports the facade"
    )


def test_only_tools_above_the_facade_import_memory() -> None:
    graph = _graph()
    importers = {n for n, targets in graph.items() if "prism_memory.memory" in targets}
    # the service (prism_memory.server) is a front door above the facade, like the CLI
    above = ABOVE | {n for n in graph if ".bench" in n or n.startswith("prism_memory.server")}
    assert importers <= {"prism_memory"} | above


def test_the_import_graph_has_no_cycle() -> None:
    graph = _graph()
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            assert cycle is None, " -> ".join(cycle)


ADAPTERS = [ROOT.parent / "llamaindex_prism", ROOT.parent / "langchain_prism"]


def _definitions(pattern: str) -> list[str]:
    """``file:line`` of every source line matching ``pattern``, in the engine and adapters."""
    found = []
    for folder in [ROOT, *ADAPTERS]:
        for path in sorted(folder.rglob("*.py")):
            for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if re.search(pattern, line):
                    found.append(f"{path.relative_to(ROOT.parent).as_posix()}:{i}")
    return found


def _one_in(pattern: str, module: str) -> None:
    found = _definitions(pattern)
    assert len(found) == 1 and found[0].startswith(module + ":"), (pattern, found)


def test_ranking_is_defined_once_in_retrieval() -> None:
    _one_in(r"^class Candidate\b", "prism_memory/retrieval/fusion.py")
    _one_in(r"^def rrf\(", "prism_memory/retrieval/fusion.py")
    _one_in(r"^def dbsf\(", "prism_memory/retrieval/fusion.py")
    _one_in(r"^def freshness\(", "prism_memory/retrieval/scoring.py")
    _one_in(r"return .*0\.5 \*\*", "prism_memory/retrieval/scoring.py")  # half-life formula
