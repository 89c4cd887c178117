"""The adapters use ``Memory``'s public API only (issue 28, item 2): no private attribute of any
object but the adapter's own (``self``/``cls``), no ``.store`` / ``.engine`` under a ``Memory``,
no ``getattr`` of a private name and no private module or name of ``prism_memory``, anywhere in
``langchain_prism`` or ``llamaindex_prism`` (whatever the receiver is called); what ``PrismStore`` needs is
``memory.record_store``, documented and usable by any application. One thread filter (item 5): both adapters leave out what the
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


#: what only the core may reach: the engine under the facade and the raw store under it
UNDER_THE_FACADE = frozenset({"store", "engine", "_engine"})
#: attribute readers that take the name as a string
NAME_READERS = frozenset({"getattr", "hasattr", "setattr", "delattr", "attrgetter"})


def _dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def _own(node: ast.expr) -> bool:
    """``self`` / ``cls``: an adapter's own private state is its business."""
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def _private_module(module: str) -> bool:
    return module.split(".")[0] == "prism_memory" and any(
        part.startswith("_") for part in module.split(".")
    )


#: the descriptor protocol's methods, whose second parameter is the owner's instance: a
#: descriptor reading its owner's private state is the owner's own business, like ``self``
DESCRIPTOR_METHODS = frozenset({"__get__", "__set__", "__delete__"})


def _owners(tree: ast.AST) -> dict[int, str]:
    """``id(node) -> name`` of the owner parameter for every node inside a descriptor method."""
    out: dict[int, str] = {}
    for fn in ast.walk(tree):
        if (
            isinstance(fn, ast.FunctionDef)
            and fn.name in DESCRIPTOR_METHODS
            and len(fn.args.args) > 1
        ):
            owner = fn.args.args[1].arg
            out.update((id(node), owner) for node in ast.walk(fn))
    return out


def _violations(path: Path) -> list[str]:
    """Whatever reaches under ``Memory``'s public API, on any receiver: a private attribute of
    anything but ``self``/``cls`` (``self._memory._engine``, ``m.record_store._engine``), a
    ``.store`` / ``.engine`` anywhere (``self.prism.store.upsert``), a name reader given a
    private name (``getattr(memory, "_engine")``), ``vars()`` / ``__dict__`` of another object,
    and an import of a private module or name of ``prism_memory``. A descriptor's ``__get__`` /
    ``__set__`` may read its owner instance's private state (``obj._ctx``)."""
    out = []
    tree = ast.parse(path.read_text("utf-8"))
    owners = _owners(tree)
    for node in ast.walk(tree):
        where = f"{path.name}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Attribute):
            private = node.attr.startswith("_") and not _dunder(node.attr)
            mine = _own(node.value) or (
                isinstance(node.value, ast.Name) and owners.get(id(node)) == node.value.id
            )
            if (private or node.attr == "__dict__") and not mine:
                out.append(f"{where}: .{node.attr} of {ast.unparse(node.value)}")
            elif node.attr in UNDER_THE_FACADE:
                out.append(f"{where}: .{node.attr} reaches under the Memory facade")
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            strings = [
                a.value
                for a in node.args
                if isinstance(a, ast.Constant) and isinstance(a.value, str)
            ]
            if name in NAME_READERS and any(
                s.startswith("_") or s.split(".")[-1] in UNDER_THE_FACADE for s in strings
            ):
                out.append(f"{where}: {name}() of {strings}")
            elif name == "vars" and node.args and not _own(node.args[0]):
                out.append(f"{where}: vars() of {ast.unparse(node.args[0])}")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("prism_memory"):
            module = node.module or ""
            names = [a.name for a in node.names if a.name.startswith("_")]
            if _private_module(module) or names:
                out.append(f"{where}: private import from {module}: {names or module}")
        elif isinstance(node, ast.Import):
            out += [
                f"{where}: private import {a.name}" for a in node.names if _private_module(a.name)
            ]
    return out


def test_no_adapter_reaches_under_the_facade() -> None:
    found = [v for root in ADAPTERS for p in sorted(root.rglob("*.py")) for v in _violations(p)]
    assert found == []


def test_the_scan_catches_what_it_forbids(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    lines = [
        "from prism_memory._shared import helper",
        "from prism_memory.engine import _private",
        "import prism_memory._delete_api",
        "def f(self, memory, m, prism, x):",
        "    self.memory._write_records([])",
        "    memory.store.get([])",
        "    self._memory._engine.delete([])",
        "    memory.record_store._engine",
        '    getattr(memory, "_engine")',
        "    self.prism.store.upsert([])",
        "    x.engine.purge()",
        "    vars(memory)",
        "    memory.__dict__",
        '    operator.attrgetter("record_store._engine")(m)',
        # the adapter's own state and the public API: allowed
        "    self._scope.user_id",
        "    cls._cache",
        "    memory.record_store.delete([], scope)",
        "    type(x).__name__",
        '    getattr(memory, "recall")',
        "from prism_memory import Memory",
        "from langchain_prism._scope import resolve",
        "class Setting:",
        "    def __get__(self, obj, objtype=None):",
        "        return obj._ctx.value",
        "    def __set__(self, obj, value):",
        "        obj._ctx.value = value",
        "        value._private",  # not the owner: flagged
    ]
    bad.write_text("\n".join(lines) + "\n")
    flagged = sorted({int(v.split(":")[1]) for v in _violations(bad)})
    assert flagged == [1, 2, 3, *range(5, 15), 27]


def test_the_adapter_plumbing_is_gone_from_memory() -> None:
    for name in ("_write_records", "_notify_write", "_check_open", "_iter_all", "_scope"):
        assert not hasattr(Memory, name), name
    assert isinstance(Memory.record_store, property)
    assert prism_memory.record_store.RecordStore.__doc__


def _memory_like(node: ast.expr) -> bool:
    """``memory``, ``self.memory``, ``m.memory``...: an expression naming a Memory object."""
    if isinstance(node, ast.Name):
        return node.id in ("memory", "m", "mem")
    if isinstance(node, ast.Attribute):
        return node.attr == "memory"
    return False


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
