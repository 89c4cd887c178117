"""``RecordStore``: record-level access to a ``Memory`` for integrations (``memory.record_store``).

Design:
- Integrations that keep their own records in PRISM (the LangGraph ``PrismStore``, a service, a
  migration script) need more than ``add``/``search``: whole ``MemoryRecord`` objects with the
  ids and metadata they choose, reads by id in a :class:`Scope`, a :class:`RecordFilter`, and
  a hybrid query of their own. This object gives them exactly that, on the public API, so no
  adapter reaches into ``Memory``'s private names or its store.
- Every write goes through the engine (validate, redact, screen when asked, embed, upsert,
  announce the write so recall caches of the scope are dropped); every delete announces too.
  Reads apply the scope as the store's filter, like every other read.
- One object per ``Memory`` (``memory.record_store``); it holds nothing but the engine.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import Any

from .engine import Engine
from .records import MemoryRecord, Scope, ScoredRecord
from .retrieval.hybrid import hybrid_query
from .stores import RecordFilter

__all__ = ["RecordStore"]


class RecordStore:
    """Whole-record reads and writes in a scope, through the engine.

    Example:
        >>> from prism_memory import FakeEmbedder, Memory, Scope
        >>> m = Memory(location=":memory:", embedder=FakeEmbedder())
        >>> rs = m.record_store
        >>> rec = m.build_record("Alice is vegetarian", Scope.of(user_id="alice"),
        ...                      metadata={"app": "diet"}, record_id=None)
        >>> [r.text for r in rs.write([rec])]
        ['Alice is vegetarian']
        >>> rs.count(Scope.of(user_id="alice")), rs.get([rec.id], Scope.of(user_id="bob"))
        (1, [])
        >>> m.close()
    """

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def check_open(self) -> None:
        """Raise :class:`prism_memory.StoreError` if the ``Memory`` was closed."""
        self._engine.check_open()

    @property
    def dim(self) -> int:
        """The dimension of the dense vectors (the embedder's)."""
        return self._engine.embedder.dim

    # -- reads ----------------------------------------------------------------------------
    def get(self, ids: Sequence[str], scope: Scope) -> list[MemoryRecord]:
        """The records of ``ids`` that exist in ``scope`` (others left out), any trust."""
        self._engine.check_open()
        return self._engine.store.get(list(ids), scope) if ids else []

    def vectors(self, ids: Sequence[str], scope: Scope) -> dict[str, list[float]]:
        """The dense vectors of the records ``ids`` in ``scope`` (missing ids left out)."""
        self._engine.check_open()
        return self._engine.store.get_vectors(list(ids), scope) if ids else {}

    def scroll(
        self,
        scope: Scope,
        flt: RecordFilter | None = None,
        *,
        limit: int = 256,
        cursor: str | None = None,
    ) -> tuple[list[MemoryRecord], str | None]:
        """One page of the records of ``scope`` matching ``flt`` and the next page's cursor."""
        self._engine.check_open()
        return self._engine.store.scroll(scope, flt, limit=limit, cursor=cursor)

    def iter(
        self, scope: Scope, flt: RecordFilter | None = None, *, page_size: int = 256
    ) -> Iterator[MemoryRecord]:
        """Every record of ``scope`` matching ``flt`` (all pages)."""
        self._engine.check_open()
        return self._engine.iter_records(scope, flt, page_size=page_size)

    def count(self, scope: Scope, flt: RecordFilter | None = None) -> int:
        """How many records of ``scope`` match ``flt``."""
        self._engine.check_open()
        return self._engine.store.count(scope, flt)

    def facet(
        self, key: str, scope: Scope, flt: RecordFilter | None = None, *, limit: int = 100
    ) -> list[tuple[str, int]]:
        """``(value, count)`` of an indexed payload ``key`` (``user_id``, ``layer``, ...) over
        the records of ``scope`` matching ``flt``, most frequent first."""
        self._engine.check_open()
        return self._engine.store.facet(key, scope, flt, limit=limit)

    def query(
        self,
        text: str,
        scope: Scope,
        flt: RecordFilter | None = None,
        *,
        limit: int = 10,
        score_threshold: float | None = None,
    ) -> list[ScoredRecord]:
        """Hybrid search (dense + BM25, RRF) of ``text`` over the records of ``scope`` matching
        ``flt``; each hit's ``score`` is its relevance (query cosine in [0, 1], the value of a
        ``Memory.search`` score) and hits below ``score_threshold`` are dropped. No recall
        construction, no intent: the integration's own ranking of its own records."""
        self._engine.check_open()
        engine = self._engine
        return hybrid_query(
            engine.store,
            scope,
            engine.embedder.embed_query(text),
            engine.sparse.query(text),
            flt,
            limit=limit,
            prefetch_limit=max(limit * 4, 32),
            rrf_k=engine.config.retrieval.rrf_k,
            score_threshold=score_threshold,
        )

    # -- writes ---------------------------------------------------------------------------
    def write(
        self,
        records: Sequence[MemoryRecord],
        *,
        dense: Mapping[str, list[float]] | None = None,
        screen: bool = True,
        keep_metadata: Collection[str] = (),
    ) -> list[MemoryRecord]:
        """Upsert whole records (built with ``Memory.build_record``) and return what was written.

        Nothing is written unless every record can be stored as is. PII redaction (when on)
        runs on every record; ``keep_metadata`` names metadata keys that are addresses, not
        content, and are kept as given. Each record is read by the poisoning screen by its
        provenance (a quarantined record is written with ``trust=quarantined`` and returned
        so); ``screen=False`` for internal records (registries, markers) or application data
        the integration does not screen. ``dense`` gives vectors by record id (not embedded again).
        An id that names a record of another scope is refused (``ScopeError``: a write never
        replaces another scope's record); to move records to another scope use :meth:`move`.
        """
        return self._engine.write_records(
            list(records), dense=dense, screen=screen, keep_metadata=keep_metadata
        )

    def move(
        self,
        ids: Sequence[str],
        from_scope: Scope,
        to_scope: Scope,
        *,
        metadata: Mapping[str, Any] | None = None,
    ) -> list[MemoryRecord]:
        """Move the records ``ids`` of ``from_scope`` into ``to_scope`` (a migration of an
        integration's own records): same ids, vectors and contents, ``metadata`` keys set on
        each; returns the moved records. Every id must name a record of ``from_scope``, else
        ``ScopeError`` and nothing moves. Recall caches of both scopes follow the move.

        Example:
            >>> from prism_memory import FakeEmbedder, Memory, Scope
            >>> m = Memory(location=":memory:", embedder=FakeEmbedder())
            >>> old, new = Scope.of(user_id="ns-alice"), Scope.of(user_id="alice")
            >>> rec = m.build_record("Alice is vegetarian", old, record_id=None)
            >>> _ = m.record_store.write([rec])
            >>> [r.user_id for r in m.record_store.move([rec.id], old, new)]
            ['alice']
            >>> m.record_store.count(old), m.record_store.count(new)
            (0, 1)
            >>> m.close()
        """
        return self._engine.move(list(ids), from_scope, to_scope, metadata=metadata)

    def screen(
        self, records: Sequence[MemoryRecord], *, keep_metadata: Collection[str] = ()
    ) -> list[MemoryRecord]:
        """Redact (when on) and screen records without writing them, for an integration that
        must decide where a refused record goes before anything is written (a refused
        ``PrismStore`` put keeps the key's earlier value). Write them after with
        ``write(..., screen=False)``: a quarantined record stays quarantined."""
        self._engine.check_open()
        return self._engine.screen(list(records), keep_metadata)

    def delete(self, ids: Sequence[str], scope: Scope) -> int:
        """Delete the records ``ids`` of ``scope`` (others untouched); returns how many went.
        The scope's recall caches are dropped."""
        return self._engine.delete(list(ids), scope)
