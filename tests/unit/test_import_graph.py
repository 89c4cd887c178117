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
    above = ABOVE | {n for n in graph if n.startswith(("prism_memory.server", "prism_memory.cli."))}
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
    _one_in(r"return .*0\.5 \*\*", "prism_memory/halflife.py")  # half-life formula


# -- layering: no module imports one of a higher rank ---------------------------------------
#: ranks from docs/architecture.md, lowest first; a module takes the rank of its longest
#: listed prefix. Within the stages the order is the one the code needs: extraction (text ->
#: candidates) below lifecycle (runs over records), below retrieval (ranks them), below the
#: layers (orchestrated by the write path; they ask retrieval whether a fact is known).
RANKS: tuple[tuple[str, ...], ...] = (
    (  # 0: values, settings, vectors, safety: know nothing of storage
        "prism_memory.errors",
        "prism_memory._pydantic_errors",
        "prism_memory.config",
        "prism_memory.records",
        "prism_memory.links",
        "prism_memory.results",
        "prism_memory.versions",
        "prism_memory.sparse",
        "prism_memory.tokens",
        "prism_memory.heap",
        "prism_memory.halflife",
        "prism_memory._unicode",
        "prism_memory._validation",
        "prism_memory.validation",
        "prism_memory._messages",
        "prism_memory.messages",
        "prism_memory.llm",
        "prism_memory.embeddings",
        "prism_memory.safety",
    ),
    ("prism_memory.stores",),  # 1
    ("prism_memory.engine", "prism_memory._shared", "prism_memory._opening"),  # 2
    # 3-6: the stages; each LLM call of ``llm/`` sits with the stage whose types it speaks
    ("prism_memory.extraction", "prism_memory.llm.extraction"),  # 3
    ("prism_memory.lifecycle",),  # 4
    ("prism_memory.retrieval", "prism_memory.llm.recall"),  # 5
    ("prism_memory.layers",),  # 6
    (  # 7: the write path and the parts the facade composes
        "prism_memory.write",
        "prism_memory.retrieval.pipeline",
        "prism_memory._record_api",
        "prism_memory._delete_api",
        "prism_memory._version_api",
        "prism_memory._transfer",
        "prism_memory.record_store",
    ),
    (  # 8: the facade, its remote twin and its wire format
        "prism_memory.memory",
        "prism_memory.remote",
        "prism_memory._remote_calls",
        "prism_memory.wire",
        "prism_memory",
    ),
    (  # 9: built on Memory
        "prism_memory.server",
        "prism_memory.cli",
        "prism_memory.demo",
        "prism_memory.__main__",
        "prism_bench",
        "langchain_prism",
        "llamaindex_prism",
    ),
)
#: the packages walked, as paths from the repository root (the benchmarks are their own
#: distribution under benchmarks/)
LAYERED = ("prism_memory", "langchain_prism", "llamaindex_prism", "benchmarks/prism_bench")


#: packages ranked as a whole by their name (the adapters and the benches)
_PACKAGES_RANKED_WHOLE = ("langchain_prism", "llamaindex_prism", "prism_bench")


def rank_of(module: str) -> int | None:
    """The rank of ``module`` (its longest listed prefix), ``None`` when none is listed."""
    best: tuple[int, int] | None = None  # (prefix length, rank)
    for rank, prefixes in enumerate(RANKS):
        for prefix in prefixes:
            # a package's own name ranks only itself: a new top-level module must be listed
            nested = "." in prefix or prefix in _PACKAGES_RANKED_WHOLE
            matches = module == prefix or (nested and module.startswith(prefix + "."))
            if matches and (best is None or len(prefix) > best[0]):
                best = (len(prefix), rank)
    return None if best is None else best[1]


def _layered_graph() -> dict[str, set[str]]:
    """Every import (type-only and function-level included) of the three packages."""
    modules: dict[str, Path] = {}
    for package in LAYERED:
        base = ROOT.parent / package
        for path in sorted(base.rglob("*.py")):
            parts = list(path.relative_to(base.parent).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    known = set(modules)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        graph[name] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base_parts = name.split(".")
                    if path.name != "__init__.py":
                        base_parts = base_parts[:-1]
                    base_parts = base_parts[: len(base_parts) - (node.level - 1)]
                    module = ".".join(base_parts + ([node.module] if node.module else []))
                else:
                    module = node.module or ""
                targets = [
                    f"{module}.{a.name}" if f"{module}.{a.name}" in known else module
                    for a in node.names
                ]
            else:
                continue
            for target in targets:
                while target and target not in known:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def test_every_module_has_a_rank() -> None:
    unranked = sorted(n for n in _layered_graph() if rank_of(n) is None)
    assert not unranked, f"give these modules a rank in RANKS (docs/architecture.md): {unranked}"


def test_no_module_imports_a_higher_rank() -> None:
    """Arrows point one way: stores know nothing of retrieval, lifecycle nothing of ranking,
    no stage of the facade, nothing in the core of an adapter."""
    graph = _layered_graph()
    upward = sorted(
        f"{name} (rank {rank_of(name)}) imports {target} (rank {rank_of(target)})"
        for name, targets in graph.items()
        for target in targets
        if (rank_of(name) or 0) < (rank_of(target) or 0)
    )
    assert not upward, "\n".join(upward)


def test_the_layering_check_sees_an_upward_import() -> None:
    assert rank_of("prism_memory.stores.base") == 1
    assert rank_of("prism_memory.retrieval.fusion") == 5
    assert rank_of("prism_memory.retrieval.pipeline") == 7  # longest prefix wins
    decay, scoring = (
        rank_of("prism_memory.lifecycle.decay"),
        rank_of("prism_memory.retrieval.scoring"),
    )
    assert decay is not None and scoring is not None and decay < scoring
