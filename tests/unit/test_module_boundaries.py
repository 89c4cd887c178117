"""Module boundaries are true: what a module shares is public, and ``__all__`` says what it is.

Issue #28, "untrue boundaries": a name with a leading underscore is private to its module, and a
module's ``__all__`` is the list of names other modules may import from it. This test reads every
``from X import Y`` (module level, inside functions, under ``if TYPE_CHECKING:``) of the shipped
packages and fails when

- ``Y`` starts with ``_`` (a private name of another module; dunders such as ``__version__``
  and private *submodules* such as ``from . import _rules`` are not names of a module), or
- ``X`` defines ``__all__`` and ``Y`` is neither in it nor a submodule of ``X``.

``ALLOWLIST`` names the imports other engineers are moving while issue #28 is in flight, each
tagged with the owner of the importing file this session; an entry that no longer matches an
import fails ``test_allowlist_names_only_live_imports``, so the list only shrinks, and the lead
empties it when #28 closes.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parents[2]
ROOTS = ("prism_memory", "langchain_prism", "llamaindex_prism")

#: (importing file stem, imported module stem, name) -> owner of the importing file this session;
#: keyed by stems so that an entry survives its module moving to another folder
ALLOWLIST: dict[tuple[str, str, str], str] = {}


class Import(NamedTuple):
    importer: str
    module: str
    name: str
    line: int

    @property
    def key(self) -> tuple[str, str, str]:
        """The allowlist's key: the two modules' last components and the name."""
        return (self.importer.rpartition(".")[2], self.module.rpartition(".")[2], self.name)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def _modules() -> dict[str, Path]:
    return {
        _module_name(p): p
        for root in ROOTS
        if (REPO / root).is_dir()
        for p in sorted((REPO / root).rglob("*.py"))
    }


@cache
def _tree(name: str) -> ast.Module:
    return ast.parse(_modules()[name].read_text(encoding="utf-8"))


@cache
def _all(name: str) -> frozenset[str] | None:
    """The names of the module's ``__all__`` (a literal list or tuple), or ``None``."""
    for node in _tree(name).body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                assert node.value is not None
                return frozenset(ast.literal_eval(node.value))
    return None


def _resolve(importer: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = importer.split(".")
    if _modules()[importer].name != "__init__.py":
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports() -> list[Import]:
    out = []
    for importer in _modules():
        for node in ast.walk(_tree(importer)):
            if not isinstance(node, ast.ImportFrom):
                continue
            module = _resolve(importer, node)
            if module in _modules():
                out += [Import(importer, module, a.name, node.lineno) for a in node.names]
    return out


def _problem(imp: Import) -> str | None:
    dunder = imp.name.startswith("__") and imp.name.endswith("__")
    if imp.name == "*" or dunder or f"{imp.module}.{imp.name}" in _modules():
        return None  # a star import, ``__version__`` and the like, or a submodule
    if imp.name.startswith("_"):
        return f"private name {imp.module}.{imp.name}"
    public = _all(imp.module)
    if public is not None and imp.name not in public:
        return f"{imp.name} is not in {imp.module}.__all__"
    return None


def test_modules_import_only_public_names() -> None:
    problems = [
        f"{_modules()[imp.importer].relative_to(REPO)}:{imp.line}: {problem}"
        for imp in _imports()
        if (problem := _problem(imp)) is not None and imp.key not in ALLOWLIST
    ]
    assert not problems, "import public names only:\n" + "\n".join(sorted(problems))


def test_allowlist_names_only_live_imports() -> None:
    live = {i.key for i in _imports() if _problem(i) is not None}
    stale = sorted(set(ALLOWLIST) - live)
    assert not stale, f"remove these fixed imports from ALLOWLIST: {stale}"


def test_the_rule_itself() -> None:
    rules = "prism_memory.extraction.rules"
    assert _problem(Import("x", rules, "extract", 1)) is None
    assert _problem(Import("x", rules, "_dedupe", 1)) is not None
    assert _problem(Import("x", "prism_memory", "__version__", 1)) is None
    assert _problem(Import("x", "prism_memory", "Memory", 1)) is None
    assert _problem(Import("x", "prism_memory", "Engine", 1)) is not None
    assert _problem(Import("x", "prism_memory.llm", "client", 1)) is None  # a submodule
