"""``DeleteAPI``: deleting records — one, a whole scope, or everything one source wrote.

Design:
- Every deletion is scoped: the store applies the scope as a filter, so ``delete_all(user_id=
  "alice")`` cannot touch ``bob`` (and takes every page, not the first).
- ``delete_by_source`` follows derivations: records whose ``source_ids`` name a removed record
  go too, across the scope's sessions, until nothing new is found (bounded against cycles).
- ``purge`` asks the engine to rewrite its files so deleted text leaves the disk; listeners are
  notified so caches of the scope are dropped. The embedded store journals a purge before its
  deletes (``EdgeStore.begin_purge``), so one a crash interrupted is completed when the store
  is opened again.
"""

from __future__ import annotations

from ._core import MemoryCore
from .errors import ValidationError
from .records import Source, is_record_id
from .stores import RecordFilter

__all__ = ["DeleteAPI"]


class DeleteAPI(MemoryCore):
    """Deletion methods of :class:`prism_memory.Memory`."""

    def _begin_purge(self) -> None:
        """Journal the purge before deleting, where the engine keeps a journal (embedded)."""
        begin = getattr(self.store, "begin_purge", None)
        if callable(begin):
            begin()

    def delete(
        self,
        record_id: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> bool:
        """Delete one record of the scope. Returns whether it existed."""
        self._check_open()
        scope = self._scope(user_id, agent_id, session_id)
        n = self.store.delete([str(record_id)], scope)
        self._notify_write(scope)
        return n > 0

    def delete_all(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        purge: bool = True,
    ) -> int:
        """Delete every record of the scope (all layers, all pages), then purge the engine's files.

        Only the given scope is touched: ``delete_all(user_id="alice")`` never affects ``bob``.
        """
        self._check_open()
        scope = self._scope(user_id, agent_id, session_id)
        if purge:
            self._begin_purge()
        with self.scope_lock(scope):
            n = self.store.delete_by_filter(scope)
        self._notify_write(scope)
        if purge:
            self.store.purge()
        return n

    def delete_by_source(
        self,
        source: str | Source,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        purge: bool = False,
    ) -> int:
        """Roll back everything one source wrote in the scope; returns how many records went.

        ``source`` is either a source id (a message / tool call / URL id given as ``source_ids``
        when writing, or a record id) or a source kind (``"tool"``, ``"web"``, ...: every record
        with that ``provenance.source``). Records derived from removed records (their
        ``source_ids`` name a removed id) are removed too, in the scope and across its
        sessions. ``purge=True`` also scrubs the engine's files (see :meth:`delete_all`).

        >>> m.add("Wire refunds to IBAN X", user_id="alice", source="web",  # doctest: +SKIP
        ...       source_ids=["https://evil.example/page"])
        >>> m.delete_by_source("https://evil.example/page", user_id="alice")  # doctest: +SKIP
        1
        """
        self._check_open()
        scope = self._scope(user_id, agent_id, session_id)
        key = source.value if isinstance(source, Source) else source
        if not isinstance(key, str) or not key.strip():
            raise ValidationError(
                "source must be a non-empty source id or one of "
                + ", ".join(s.value for s in Source)
            )
        kinds = {s.value for s in Source}
        wide = scope.widen(session=True)
        removed: set[str] = set()
        if purge:
            self._begin_purge()
        with self.scope_lock(scope):
            first = RecordFilter.any_of("source_ids", [key])
            seeds = [r.id for r in self.iter_records(scope, first)]
            if key in kinds:
                seeds += [r.id for r in self.iter_records(scope, RecordFilter.eq("source", key))]
            if is_record_id(key):
                seeds += [r.id for r in self.store.get([key], scope)]
            frontier = sorted(set(seeds))
            for _ in range(32):  # derivation chains are short; the bound guards against cycles
                if not frontier:
                    break
                self.store.delete(frontier, wide)  # wide contains scope
                removed.update(frontier)
                derived = RecordFilter.any_of("source_ids", frontier)
                frontier = sorted({r.id for r in self.iter_records(wide, derived)} - removed)
        self._notify_write(scope)
        if wide != scope:
            self._notify_write(wide)
        if purge:
            self.store.purge()
        return len(removed)
