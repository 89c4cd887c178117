"""The docs and the tree agree: every file or folder the README and docs/ name exists.

A newcomer follows the README's and docs/architecture.md's links and module names to the code;
a moved or renamed module must take its mentions with it. Checked: relative markdown links, and
code spans naming a repository path (``prism_memory/write/path.py``), a module path inside the
package (``retrieval/packing.py``) or a bare module file (``engine.py``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [
    ROOT / "README.md",
    ROOT / "benchmarks" / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
]
_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
_REPO_PATH = re.compile(
    r"`((?:prism_memory|langchain_prism|llamaindex_prism|benchmarks|tests|docs|research|screen)"
    r"/[\w./-]*)`"
)
_PACKAGE_PATH = re.compile(
    r"`((?:layers|retrieval|extraction|lifecycle|stores|write|llm|safety|server|embeddings)"
    r"/[\w/]*\.py)`"
)
_MODULE_FILE = re.compile(r"`(\w+\.py)`")
_CODE_ROOTS = (
    "prism_memory",
    "langchain_prism",
    "llamaindex_prism",
    "benchmarks",
    "tests",
    "research",
    "screen",
)


def _expand(path: str) -> list[str]:
    """``a{b,c}.x`` -> ``ab.x``, ``ac.x`` (one brace group)."""
    m = re.search(r"\{([^}]*)\}", path)
    if not m:
        return [path]
    return [path[: m.start()] + alt + path[m.end() :] for alt in m.group(1).split(",")]


def _missing(doc: Path) -> list[str]:
    text = doc.read_text(encoding="utf-8")
    out = []
    for m in _LINK.finditer(text):
        target = m.group(1)
        if not re.match(r"[a-z]+:", target) and not (doc.parent / target).exists():
            out.append(f"link {target}")
    for m in _REPO_PATH.finditer(text):
        for path in _expand(m.group(1).rstrip("/")):
            if "*" not in path and not (ROOT / path).exists():
                out.append(f"path {path}")
    for m in _PACKAGE_PATH.finditer(text):
        if not (ROOT / "prism_memory" / m.group(1)).exists():
            out.append(f"module {m.group(1)}")
    for m in _MODULE_FILE.finditer(text):
        if not any(next((ROOT / r).glob(f"**/{m.group(1)}"), None) for r in _CODE_ROOTS):
            out.append(f"file {m.group(1)}")
    return out


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_path_a_doc_names_exists(doc: Path) -> None:
    assert _missing(doc) == []


def test_the_check_finds_a_moved_module(tmp_path: Path) -> None:
    doc = tmp_path / "x.md"
    doc.write_text(
        "See `retrieval/no_such_stage.py` and [the path](../nowhere.md).", encoding="utf-8"
    )
    assert _missing(doc) == ["link ../nowhere.md", "module retrieval/no_such_stage.py"]
