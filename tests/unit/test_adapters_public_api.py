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


#: adapter entries (module/function) that recall without a thread in the prompt, and why
NO_THREAD = {
    # a query-engine retriever: its query is not a conversation
    "retriever.py/_retrieve",
    # LangChain's classic memory is the chain's only history: its recent turns are the thread
    "classic.py/load_memory_variables",
    # PrismMemory.recall: the context itself, recent turns included (get() builds the prompt)
    "memory.py/recall",
}


def _recall_calls(path: Path) -> list[tuple[str, ast.Call]]:
    """``(function name, call)`` for each ``<memory>.recall(...)`` in ``path``."""
    out = []
    for fn in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("recall", "arecall")
                    and (_memory_like(node.func.value) or "memory" in ast.unparse(node.func))
                ):
                    out.append((fn.name, node))
    return out


def test_one_thread_filter() -> None:
    """Every adapter entry that builds a prompt hands the thread to ``Memory.recall``
    (``thread_texts=``, the core's one rule, applied before the budget is spent) and none
    re-implements it or cuts sections out of a packed context afterwards."""
    sources = {p: p.read_text("utf-8") for root in ADAPTERS for p in sorted(root.rglob("*.py"))}
    missing = []
    for path in sources:
        for function, call in _recall_calls(path):
            key = f"{path.name}/{function}"
            if key not in NO_THREAD and "thread_texts" not in {k.arg for k in call.keywords}:
                missing.append(f"{path.parent.name}/{key}:{call.lineno}")
    assert missing == []
    callers = {p.name for p, text in sources.items() if "thread_texts=" in text}
    assert {"_scope.py", "memory_block.py", "memory.py"} <= callers
    joined = "".join(sources.values())
    assert "def in_thread" not in joined
    assert ".section !=" not in joined and "def long_term_text" not in joined
