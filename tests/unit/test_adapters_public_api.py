"""The adapters use ``Memory``'s public API only (issue 28, item 2): no private name of a
``Memory`` object and no ``memory.store`` anywhere in ``langchain_prism`` or
``llamaindex_prism``; what ``PrismStore`` needs is ``memory.record_store``, documented and
usable by any application. One thread filter (item 5): both adapters leave out what the
thread shows through ``Memory.recall(thread_session=..., thread_texts=...)``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import langchain_prism
import llamaindex_prism
import prism_memory
from prism_memory import Memory

ADAPTERS = [Path(langchain_prism.__file__).parent, Path(llamaindex_prism.__file__).parent]


def _memory_like(node: ast.expr) -> bool:
    """``memory``, ``self.memory``, ``m.memory``...: an expression naming a Memory object."""
    if isinstance(node, ast.Name):
        return node.id in ("memory", "m", "mem")
    if isinstance(node, ast.Attribute):
        return node.attr == "memory"
    return False


def _violations(path: Path) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if (
            isinstance(node, ast.Attribute)
            and _memory_like(node.value)
            and (node.attr.startswith("_") or node.attr == "store")
        ):
            out.append(f"{path.name}:{node.lineno}: .{node.attr} on a Memory")
    return out


def test_no_adapter_reaches_under_the_facade() -> None:
    found = [v for root in ADAPTERS for p in sorted(root.rglob("*.py")) for v in _violations(p)]
    assert found == []


def test_the_scan_catches_what_it_forbids(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("def f(self):\n    self.memory._write_records([])\n    memory.store.get([])\n")
    assert len(_violations(bad)) == 2


def test_the_adapter_plumbing_is_gone_from_memory() -> None:
    for name in ("_write_records", "_notify_write", "_check_open", "_iter_all", "_scope"):
        assert not hasattr(Memory, name), name
    assert isinstance(Memory.record_store, property)
    assert prism_memory.record_store.RecordStore.__doc__


def test_one_thread_filter() -> None:
    """Both adapters hand the thread to ``Memory.recall`` (``thread_texts=``, the core's one
    rule) and none re-implements it."""
    sources = {
        p.name: p.read_text("utf-8") for root in ADAPTERS for p in sorted(root.rglob("*.py"))
    }
    users = {name for name, text in sources.items() if "thread_texts=" in text}
    assert {"_scope.py", "memory_block.py"} <= users
    assert "def in_thread" not in "".join(sources.values())
