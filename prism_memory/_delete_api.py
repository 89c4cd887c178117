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
- ``delete_all`` counts what it removes per layer and per surface (``results.surface_of``:
  conversation turns, extracted facts, memory tools, the LangGraph store's items of the
  user's namespace, task state, ``add``) and returns a ``DeleteReport`` (an ``int``).
- Every deletion sends a write event (recall caches of the scope are dropped); ``delete_all``
  sends it with ``reindex=True``, so the buffer index is rebuilt from the store.
"""

from __future__ import annotations

from collections import Counter

from .engine import Engine
from .errors import ValidationError
from .records import Scope, Source, is_record_id
from .results import DeleteReport, surface_of
from .stores import RecordFilter

__all__ = ["DeleteAPI"]


class DeleteAPI:
    """Deletion methods of :class:`prism_memory.Memory`, over an engine."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def delete(
        self,
        record_id: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> bool:
        """Delete one record of the scope. Returns whether it existed."""
        self.engine.check_open()
        scope = Scope.of(user_id, agent_id, session_id)
        n = self.engine.store.delete([str(record_id)], scope)
        self.engine.notify_write(scope)
        return n > 0

    def delete_all(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        purge: bool = True,
    ) -> DeleteReport:
        """Delete every record of the scope (all layers, all pages), then purge the engine's
        files; report what went per layer and per surface."""
        self.engine.check_open()
        scope = Scope.of(user_id, agent_id, session_id)
        if purge:
            self.engine.begin_purge()
        by_layer: Counter[str] = Counter()
        by_surface: Counter[str] = Counter()
        with self.engine.scope_lock(scope):
            for record in self.engine.iter_records(scope, page_size=1024):
                by_layer[record.layer.value] += 1
                by_surface[surface_of(record)] += 1
            self.engine.store.delete_by_filter(scope)
        self.engine.notify_write(scope, reindex=True)
        if purge:
            self.engine.store.purge()
        return DeleteReport(dict(by_layer), dict(by_surface))

    def delete_by_source(
        self,
        source: str | Source,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        purge: bool = False,
    ) -> int:
        """Roll back everything one source wrote in the scope; returns how many records went."""
        self.engine.check_open()
        scope = Scope.of(user_id, agent_id, session_id)
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
            self.engine.begin_purge()
        with self.engine.scope_lock(scope):
            first = RecordFilter.any_of("source_ids", [key])
            seeds = [r.id for r in self.engine.iter_records(scope, first)]
            if key in kinds:
                seeds += [
                    r.id for r in self.engine.iter_records(scope, RecordFilter.eq("source", key))
                ]
            if is_record_id(key):
                seeds += [r.id for r in self.engine.store.get([key], scope)]
            frontier = sorted(set(seeds))
            for _ in range(32):  # derivation chains are short; the bound guards against cycles
                if not frontier:
                    break
                self.engine.store.delete(frontier, wide)  # wide contains scope
                removed.update(frontier)
                derived = RecordFilter.any_of("source_ids", frontier)
                frontier = sorted({r.id for r in self.engine.iter_records(wide, derived)} - removed)
        self.engine.notify_write(scope)
        if wide != scope:
            self.engine.notify_write(wide)
        if purge:
            self.engine.store.purge()
        return len(removed)
