"""``DeleteAPI``: deleting records — one, a whole scope, or everything one source wrote.

Design:
- Every deletion is scoped: the store applies the scope as a filter, so ``delete_all(user_id=
  "alice")`` cannot touch ``bob`` (and takes every page, not the first).
- Deletion cascades to what was derived. The rule: a record whose ``provenance.source_ids``
  name a deleted record is deleted too (a fact extracted from a turn, a summary of turns, a
  reflection over facts), and so on down the chain, across the scope's sessions. A derived
  record goes when *any* of its sources goes, even if others remain: its words may be that
  source's (a summary repeats the passport number of the one turn that said it), and a
  deletion means the data is gone. The remaining sources stay, so a later ``consolidate`` or
  extraction derives again from what is left. ``delete``, ``delete_all`` (for a session: what
  its turns fed into the user's long-term records, unless ``derived=False``: a chat reset
  that keeps what was learned) and ``delete_by_source`` all follow it;
  forgetting by policy (``forget``: decay, age) does not, because distilled facts are meant
  to outlive the raw turns they came from.
- The closure is found first and deleted derived-first, source last: a crash in between
  leaves the source, and deleting it again (its cascade is looked up every time, even when
  the source is already gone) finishes the job. The search is bounded (32 generations).
- ``purge`` asks the engine to rewrite its files so deleted text leaves the disk; listeners are
  notified so caches of the scope are dropped. The embedded store journals a purge before its
  deletes (``EdgeStore.begin_purge``), so one a crash interrupted is completed when the store
  is opened again.
- ``delete_all`` counts what it removes per layer and per surface (``results.surface_of``:
  conversation turns, extracted facts, memory tools, the LangGraph store's items of the
  user's namespace, task state, ``add``), derived records of other sessions included, and
  returns a ``DeleteReport`` (an ``int``).
- Every deletion goes through the engine (``Engine.delete`` / ``delete_where``), which sends
  the write event (recall caches of the scope are dropped); ``delete_all`` sends it with
  ``reindex=True``, so the buffer index is rebuilt from the store.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection

from ._version_api import version_ids
from .engine import Engine
from .errors import ValidationError
from .records import MemoryRecord, Scope, Source, is_record_id
from .results import DeleteReport, surface_of
from .stores import RecordFilter

__all__ = ["DeleteAPI"]


class DeleteAPI:
    """Deletion methods of :class:`prism_memory.Memory`, over an engine."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def derived_from(self, ids: Collection[str], scope: Scope) -> list[str]:
        """Ids of the records of ``scope`` derived, directly or down a chain, from ``ids``
        (their ``source_ids`` name one of them); ``ids`` themselves are not included.

        >>> DeleteAPI(engine).derived_from([turn.id], Scope(user_id="alice"))  # doctest: +SKIP
        ['9984eea4-...', 'c18d300e-...']
        """
        return [r.id for r in self._derived_records(ids, scope)]

    def _derived_records(self, ids: Collection[str], scope: Scope) -> list[MemoryRecord]:
        seen = set(ids)
        found: list[MemoryRecord] = []
        frontier = sorted(seen)
        for _ in range(_MAX_GENERATIONS):  # derivation chains are short; bounds cycles
            if not frontier:
                break
            nxt: dict[str, MemoryRecord] = {}
            for start in range(0, len(frontier), 256):
                flt = RecordFilter.any_of("source_ids", frontier[start : start + 256])
                nxt.update((r.id, r) for r in self.engine.iter_records(scope, flt))
            fresh = [nxt[i] for i in sorted(set(nxt) - seen)]
            frontier = [r.id for r in fresh]
            seen.update(frontier)
            found += fresh
        return found

    def _drop_derived(self, ids: Collection[str], scope: Scope) -> int:
        """Delete what was derived from ``ids`` in ``scope`` (see the module's rule)."""
        return self.engine.delete(self.derived_from(ids, scope), scope)

    def delete(self, record_id: str, scope: Scope, purge: bool) -> bool:
        """Delete one record of the scope, what was derived from it and the earlier versions
        kept for it (a deleted memory leaves no text behind); whether it existed."""
        wide = scope.widen(session=True)
        rid = str(record_id)
        journalled = self.engine.begin_purge() if purge else False
        n = 0
        try:
            with self.engine.scope_lock(scope):
                if is_record_id(rid):  # even when it is gone: finishes an interrupted cascade
                    n += self._drop_derived([rid], wide)
                found = self.engine.store.get([rid], scope)
                versions = version_ids(found[0]) if found else []
                gone = self.engine.delete([rid], scope)
                self.engine.delete(versions, scope)
                n += gone
        except BaseException:
            if journalled and n == 0:  # refused before deleting anything: no purge is owed
                self.engine.cancel_purge()
            raise
        if purge:
            self.engine.purge()
        return gone > 0

    def purge(self) -> None:
        """Make every deletion and replacement so far physical (embedded engine: the shard is
        rebuilt, so no file under the store path holds a deleted or overwritten text; cost
        linear in the store size). Journalled, so a crash mid-way is finished on next open."""
        self.engine.check_open()
        self.engine.begin_purge()
        self.engine.purge()

    def delete_all(self, scope: Scope, purge: bool, derived: bool) -> DeleteReport:
        """Delete every record of the scope and, for a session, what its records fed into the
        user's long-term records (unless not ``derived``); report what went per layer and
        per surface."""
        wide = scope.widen(session=True)
        journalled = self.engine.begin_purge() if purge else False
        by_layer: Counter[str] = Counter()
        by_surface: Counter[str] = Counter()
        n = 0
        try:
            with self.engine.scope_lock(scope):
                records = list(self.engine.iter_records(scope, page_size=1024))
                if derived and wide != scope:  # records outside the session may derive from it
                    own = {r.id for r in records}
                    others = [r for r in self._derived_records(own, wide) if r.id not in own]
                    n += self.engine.delete([r.id for r in others], wide, reindex=True)
                    records += others
                n += self.engine.delete_where(scope)
        except BaseException:
            if journalled and n == 0:  # refused before deleting anything: no purge is owed
                self.engine.cancel_purge()
            raise
        for record in records:
            by_layer[record.layer.value] += 1
            by_surface[surface_of(record)] += 1
        if purge:
            self.engine.purge()
        return DeleteReport(dict(by_layer), dict(by_surface))

    def delete_by_source(self, source: str | Source, scope: Scope, purge: bool) -> int:
        """Delete the records one source (an id, or a source kind) wrote in the scope and what
        was derived from them; how many went."""
        key = source.value if isinstance(source, Source) else source
        if not isinstance(key, str) or not key.strip():
            raise ValidationError(
                "source must be a non-empty source id or one of "
                + ", ".join(s.value for s in Source)
            )
        kinds = {s.value for s in Source}
        wide = scope.widen(session=True)
        journalled = self.engine.begin_purge() if purge else False
        n = 0
        try:
            with self.engine.scope_lock(scope):
                first = RecordFilter.any_of("source_ids", [key])
                seeds = [r.id for r in self.engine.iter_records(scope, first)]
                if key in kinds:
                    seeds += [
                        r.id
                        for r in self.engine.iter_records(scope, RecordFilter.eq("source", key))
                    ]
                if is_record_id(key):
                    seeds += [r.id for r in self.engine.store.get([key], scope)]
                seeds = sorted(set(seeds))
                derived = self.derived_from(seeds, wide)
                n += self.engine.delete(derived, wide)  # derived first, the sources last
                n += self.engine.delete(seeds, scope)
        except BaseException:
            if journalled and n == 0:  # refused before deleting anything: no purge is owed
                self.engine.cancel_purge()
            raise
        if purge:
            self.engine.purge()
        return len(seeds) + len(derived)


_MAX_GENERATIONS = 32
