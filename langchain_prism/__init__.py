"""LangChain adapters for PRISM memory.

One convention for every adapter: the :class:`prism_memory.Memory` comes first (or as
``memory=``), the scope as ``user_id`` / ``agent_id`` / ``session_id`` keywords, everything else
optional. Adapters that need an optional framework (langchain-classic, langchain v1 agents,
langgraph) are imported on first use, so ``import langchain_prism`` needs only langchain-core
(``pip install 'prism-memory[langchain]'`` installs all three).

>>> from langchain_prism import PrismRetriever  # doctest: +SKIP
>>> retriever = PrismRetriever(memory, user_id="alice", budget_tokens=800)  # doctest: +SKIP
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

try:
    import langchain_core  # noqa: F401  (the guard: every adapter here builds on it)
except ImportError as exc:
    raise ImportError(
        "langchain_prism needs langchain-core: pip install 'prism-memory[langchain]'"
    ) from exc

from .chat_history import PrismChatMessageHistory
from .retriever import PrismRetriever
from .tools import create_memory_tools

if TYPE_CHECKING:
    from .classic import PrismMemory
    from .middleware import PrismMemoryMiddleware
    from .store import PrismStore

__all__ = [
    "PrismChatMessageHistory",
    "PrismMemory",
    "PrismMemoryMiddleware",
    "PrismRetriever",
    "PrismStore",
    "create_memory_tools",
]

_LAZY = {
    "PrismMemory": ".classic",
    "PrismMemoryMiddleware": ".middleware",
    "PrismStore": ".store",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'langchain_prism' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
