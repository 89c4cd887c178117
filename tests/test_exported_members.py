"""Every name a package exports in ``__all__`` exists and is importable (httpx-style check),
``prism_memory``'s surface is exactly the one decided, and the adapters use only public names."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

PACKAGES = ["prism_memory", "langchain_prism", "llamaindex_prism"]
ADAPTERS = ["langchain_prism", "llamaindex_prism"]
ROOT = Path(__file__).resolve().parents[1]

# The public surface of ``prism_memory``: the facade, the settings users construct, the types
# they receive, the errors they catch and the protocols they implement (plus the shipped test
# double and the default embedder). Adding a name here is a decision: it becomes API.
PRISM_MEMORY_ALL = [
    "AuthenticationError",
    "BufferConfig",
    "ChatModel",
    "ConfigError",
    "Embedder",
    "EmbeddingDimensionError",
    "ExtractionConfig",
    "ExtractionError",
    "FakeEmbedder",
    "FastEmbedEmbedder",
    "ImportDataError",
    "Intent",
    "Kind",
    "Layer",
    "LifecycleConfig",
    "Memory",
    "MemoryContext",
    "MemoryRecord",
    "MemoryVersion",
    "NotFoundError",
    "PermissionDeniedError",
    "PrismConfig",
    "PrismError",
    "QuarantinedError",
    "RememberResult",
    "RemoteMemory",
    "RequestLimitError",
    "RetrievalConfig",
    "SafetyConfig",
    "Scope",
    "ScopeError",
    "ScoredRecord",
    "ServiceError",
    "StoreConfig",
    "StoreError",
    "StoreLockedError",
    "StoreUnavailableError",
    "ValidationError",
]


@pytest.mark.parametrize("package", PACKAGES)
def test_all_names_import(package: str) -> None:
    module = importlib.import_module(package)
    names = getattr(module, "__all__", None)
    assert isinstance(names, list) and names, f"{package} must declare a non-empty __all__"
    assert len(names) == len(set(names)), f"{package}.__all__ has duplicates"
    for name in names:
        assert hasattr(module, name), f"{package}.__all__ names {name!r}, which does not exist"
        exec(f"from {package} import {name}", {})


def test_prism_memory_surface_is_exact() -> None:
    import prism_memory

    assert sorted(prism_memory.__all__) == PRISM_MEMORY_ALL
    for name in PRISM_MEMORY_ALL:
        value = getattr(prism_memory, name)
        assert (value.__doc__ or "").strip(), f"prism_memory.{name} has no docstring"
    assert isinstance(prism_memory.__version__, str)


def test_prism_memory_top_level_holds_only_the_surface() -> None:
    """Names outside ``__all__`` are not reachable from the top level (submodules aside)."""
    import types

    import prism_memory

    public = {
        name
        for name, value in vars(prism_memory).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert public - {"annotations"} == set(PRISM_MEMORY_ALL)


def _prism_imports(path: Path) -> list[tuple[int, str, str | None]]:
    """``(line, module, name)`` for every import of ``prism_memory`` in ``path`` (``name`` is
    ``None`` for ``import prism_memory.x``), type-only and function-level imports included."""
    found: list[tuple[int, str, str | None]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [
                (node.lineno, a.name, None)
                for a in node.names
                if a.name.split(".")[0] == "prism_memory"
            ]
        elif (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and (node.module or "").split(".")[0] == "prism_memory"
        ):
            found += [(node.lineno, str(node.module), a.name) for a in node.names]
    return found


def _import_problem(module: str, name: str | None) -> str | None:
    import prism_memory

    if any(part.startswith("_") for part in module.split(".")):
        return f"private module {module}"
    if name is None:
        return None
    if name.startswith("_"):
        return f"private name {module}.{name}"
    if module == "prism_memory" and name not in prism_memory.__all__:
        return f"{name} is not in prism_memory.__all__"
    return None


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_adapters_import_only_public_names(adapter: str) -> None:
    problems = [
        f"{path.relative_to(ROOT)}:{line}: {problem}"
        for path in sorted((ROOT / adapter).rglob("*.py"))
        for line, module, name in _prism_imports(path)
        if (problem := _import_problem(module, name)) is not None
    ]
    assert not problems, "adapters must use public names only:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    ("module", "name", "ok"),
    [
        ("prism_memory", "Memory", True),
        ("prism_memory", "EdgeStore", False),
        ("prism_memory.stores", "EdgeStore", True),
        ("prism_memory._core", "MemoryCore", False),
        ("prism_memory.records", "_utc", False),
        ("prism_memory._llm", None, False),
    ],
)
def test_import_rule_itself(module: str, name: str | None, ok: bool) -> None:
    assert (_import_problem(module, name) is None) is ok
