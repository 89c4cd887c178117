"""The ``Memory`` facade: one object for writing, reading and managing an agent's memory.

It is the composition of parts kept in their own modules: ``MemoryCore`` (engine,
record-level API), ``DeleteAPI`` (scoped deletion), ``TransferAPI`` (JSONL export/import),
``WriteAPI`` (remember, layers, lifecycle; built on ``DeleteAPI``) and ``ReadAPI``
(intent-aware recall). Async methods are thin ``asyncio.to_thread`` shells over the sync ones,
so logic exists once.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ._core import RecordPage
from ._read_api import ReadAPI
from ._transfer import ImportReport, TransferAPI
from ._write_api import WriteAPI
from .records import MemoryRecord, ScoredRecord

__all__ = ["ImportReport", "Memory", "RecordPage"]


class Memory(ReadAPI, WriteAPI, TransferAPI):
    """Long-term memory for an LLM agent.

    Setup:
        >>> from prism_memory import Memory
        >>> m = Memory(path="./.prism")                  # embedded Qdrant Edge (default)  # doctest: +SKIP
        >>> m = Memory(location=":memory:")              # throwaway, qdrant-client local  # doctest: +SKIP
        >>> m = Memory(url="http://qdrant:6333")         # Qdrant server / cluster         # doctest: +SKIP

    Use:
        >>> m.add("I prefer window seats", user_id="alice", kind="preference")  # doctest: +SKIP
        >>> hits = m.search("which seat?", user_id="alice")                     # doctest: +SKIP
        >>> hits[0].record.text, hits[0].routes                                 # doctest: +SKIP
        ('I prefer window seats', ['bm25', 'dense'])

    Every call takes ``user_id`` / ``agent_id`` / ``session_id`` (at least one); the store
    applies them as a filter, so one scope never sees another's memories.
    """

    def __enter__(self) -> Memory:
        return self

    # -- async shells ------------------------------------------------------------------
    async def aadd(self, text: str, **kwargs: Any) -> MemoryRecord:
        """Async :meth:`add`."""
        return await asyncio.to_thread(self.add, text, **kwargs)

    async def aadd_many(self, items: Any, **kwargs: Any) -> list[MemoryRecord]:
        """Async :meth:`add_many`."""
        return await asyncio.to_thread(self.add_many, items, **kwargs)

    async def asearch(self, query: str, **kwargs: Any) -> list[ScoredRecord]:
        """Async :meth:`search`."""
        return await asyncio.to_thread(self.search, query, **kwargs)

    async def aget(self, record_id: str, **kwargs: Any) -> MemoryRecord:
        """Async :meth:`get`."""
        return await asyncio.to_thread(self.get, record_id, **kwargs)

    async def alist(self, **kwargs: Any) -> RecordPage:
        """Async :meth:`list`."""
        return await asyncio.to_thread(self.list, **kwargs)

    async def arelease(self, record_id: str, **kwargs: Any) -> MemoryRecord:
        """Async :meth:`release`."""
        return await asyncio.to_thread(self.release, record_id, **kwargs)

    async def adelete(self, record_id: str, **kwargs: Any) -> bool:
        """Async :meth:`delete`."""
        return await asyncio.to_thread(self.delete, record_id, **kwargs)

    async def adelete_all(self, **kwargs: Any) -> int:
        """Async :meth:`delete_all`."""
        return await asyncio.to_thread(self.delete_all, **kwargs)
