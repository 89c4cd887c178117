"""``PrismStore``: a LangGraph ``BaseStore`` on PRISM memory that behaves like LangGraph's
reference ``InMemoryStore`` (the differences are listed in docs/langchain.md).

Design:
- Namespace -> scope rule (documented in docs/langchain.md): the items of namespace ``ns`` live
  in the PRISM scope ``user_id = "ns:" + encode(ns)``, ``agent_id = <store agent_id>`` (default
  ``"langgraph"``), where ``encode`` percent-encodes each segment and joins them with ``/``.
  One record per (agent_id, namespace, key), its id deterministic over all three, so ``put`` is
  an upsert that keeps ``created_at`` and two ``agent_id`` never share an item.
- An item record's ``metadata``: ``prism_store="item"``, ``ns`` (the exact encoding),
  ``namespace``, ``key``, ``value`` (kept with its Python types, ``_namespaces.encode_value``),
  ``indexed`` and ``seq`` (when the key was created; an overwrite keeps it). Its text (embedded
  and BM25-indexed) is the value's indexed fields.
- The namespace registry holds, for each non-empty namespace, one entry per prefix of it
  (``()`` and itself included) in the scope ``user_id = "nsp:" + encode(prefix)``, with ``seq``
  (when the namespace last became non-empty). The namespaces under a prefix are one indexed
  scope read; nothing is cached per process. A put writes a new namespace's entries with its
  items, and checks an existing namespace's entries after writing (writing them again if another
  store removed them meanwhile); a delete that empties a namespace removes them and counts again,
  putting them back if a concurrent put landed, so concurrent stores stay right.
- A search is two store calls whatever the number of namespaces: the registry read, then one
  query over the items of those namespaces (``user_id`` in the list, an indexed match). Without
  a query the items come in ``InMemoryStore``'s order (namespaces in the order they became
  non-empty, keys in the order they were created). With a query PRISM's hybrid search (dense +
  BM25, RRF) ranks the hits and ``score`` is the cosine similarity of the query and the item's
  vector, clipped to [0, 1] (the core's one relevance function, computed by retrieval's
  ``hybrid_query``, the same value as a ``Memory.search`` score); unindexed matches fill up
  the page as in ``InMemoryStore``. Value filters are applied in Python, exactly.
- ``score_threshold``: LangGraph's ``BaseStore.search`` and ``SearchOp`` have no such
  parameter, so it is a constructor option (every query search, ``batch`` included) and an
  extra keyword of this store's ``search`` / ``asearch`` (carried to ``_search`` by a context
  variable). With a threshold, hits below it are dropped and unindexed items (no score) do
  not fill up the page.
- The store composes its parts, each with one job and the one ``StoreContext`` (settings,
  scopes): ``NamespaceRegistry`` (``_store_registry``), ``PutWriter`` (``_store_puts``),
  ``ItemReader`` (gets and searches, ``_store_search``) and ``LayoutMigration``
  (``_store_layout``); the values' checks and conversions are pure functions
  (``_store_values``). This module is the LangGraph surface: ``batch``, ``search`` and
  their async twins, one line per part.
- ``batch`` answers every read against the state before the batch, then applies its puts
  deduplicated per (namespace, key), the last one winning, as ``InMemoryStore`` does;
  ``abatch`` runs ``batch`` in a worker thread.
- Records of the first layout (ids without ``agent_id``, a single registry entry per namespace)
  are migrated the first time a store of that ``agent_id`` is used.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from contextvars import ContextVar
from typing import Any, Generic, TypeVar, overload

from langchain_prism._namespaces import USER_PLACEHOLDER, check_user_namespace
from langchain_prism._store_context import StoreContext
from langchain_prism._store_layout import LayoutMigration
from langchain_prism._store_puts import PutWriter
from langchain_prism._store_registry import NamespaceRegistry
from langchain_prism._store_search import ItemReader
from langchain_prism._store_values import check_op
from prism_memory.errors import ConfigError
from prism_memory.records import Scope
from prism_memory.retrieval.scoring import check_score_threshold

from ._scope import check_memory

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        ListNamespacesOp,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
    )
    from langgraph.store.base import validate_op_namespace as _validate_op
except ImportError as exc:  # pragma: no cover - run in a subprocess by test_packaging
    raise ImportError("PrismStore needs langgraph: pip install 'prism-memory[langgraph]'") from exc

__all__ = ["PrismStore"]

_T = TypeVar("_T")

#: the ``score_threshold`` of the ``search`` / ``asearch`` call being run (``SearchOp`` has no
#: such field, so it reaches the search through the context)
_CALL_THRESHOLD: ContextVar[float | None] = ContextVar("prism_store_threshold", default=None)


class _Setting(Generic[_T]):
    """A public attribute of the store kept on its ``StoreContext`` (what its parts read)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, objtype: type | None = None) -> _Setting[_T]: ...
    @overload
    def __get__(self, obj: PrismStore, objtype: type | None = None) -> _T: ...
    def __get__(self, obj: PrismStore | None, objtype: type | None = None) -> Any:
        return self if obj is None else getattr(obj._ctx, self.name)

    def __set__(self, obj: PrismStore, value: _T) -> None:
        setattr(obj._ctx, self.name, value)


class PrismStore(BaseStore):
    """A LangGraph store whose items are PRISM memories (hybrid search, scoped per namespace).

    Setup:
        .. code-block:: python

            from prism_memory import Memory
            from langchain_prism import PrismStore

            store = PrismStore(Memory(path="./.prism"))
            graph = builder.compile(store=store)        # or create_agent(..., store=store)

    Use:
        .. code-block:: python

            store.put(("memories", "alice"), "food", {"text": "Alice is vegetarian"})
            hits = store.search(("memories", "alice"), query="what does she eat?")
            hits[0].value, hits[0].score                # score: cosine similarity in [0, 1]

    Values are the application's own data: they are stored as given, unscreened, and come back
    with their types (datetime, tuple, set...: see docs/langchain.md). With ``screen=True`` each
    value is read by the poisoning screen as content from ``source`` (use ``source="tool"`` for
    values that come from outside); a value it quarantines raises
    :class:`prism_memory.errors.QuarantinedError` (the item is kept for audit, never served, and
    ``memory.release(error.record_id, ...)`` restores it). The namespace registry is never
    screened.
    """

    supports_ttl: bool = False

    #: the ``prism_memory.Memory`` holding the items
    memory: _Setting[Any] = _Setting()
    #: the PRISM ``agent_id`` of every record of this store
    agent_id: _Setting[str] = _Setting()
    #: the namespace template whose items are part of a user's memory (``None``: none)
    user_namespace: _Setting[tuple[str, ...] | None] = _Setting()
    #: query searches drop hits whose ``score`` (relevance in [0, 1]) is below this
    score_threshold: _Setting[float | None] = _Setting()
    #: the JSON paths of a value that are embedded (``["$"]``: the whole value)
    index_fields: _Setting[list[str]] = _Setting()
    #: what the poisoning screen reads the values as (with ``screen=True``)
    source: _Setting[str] = _Setting()
    #: whether each value is read by the poisoning screen
    screen: _Setting[bool] = _Setting()

    def __init__(
        self,
        memory: Any = None,
        *,
        agent_id: str = "langgraph",
        index: Mapping[str, Any] | None = None,
        source: str = "system",
        screen: bool = False,
        score_threshold: float | None = None,
        user_namespace: tuple[str, ...] | None = ("memories", USER_PLACEHOLDER),
    ) -> None:
        memory = check_memory(memory, "PrismStore")
        if not hasattr(memory, "record_store"):
            raise ConfigError(
                f"PrismStore needs an in-process prism_memory.Memory (it keeps whole records "
                f"through memory.record_store); {type(memory).__name__} has none. Open the "
                "store with Memory(path=...) or Memory(url=...) (a Qdrant server) in this process"
            )
        user_namespace = check_user_namespace(user_namespace)
        score_threshold = check_score_threshold(score_threshold)
        Scope.of(agent_id=agent_id)  # validate early
        fields = (index or {}).get("fields") or ["$"]
        if not isinstance(fields, list) or not all(isinstance(f, str) for f in fields):
            raise ValueError("index={'fields': [...]} must list JSON paths such as ['text']")
        self._ctx = StoreContext(
            memory=memory,
            agent_id=agent_id,
            user_namespace=user_namespace,
            index_fields=fields,
            source=source,
            screen=screen,
            score_threshold=score_threshold,
        )
        registry = NamespaceRegistry(self._ctx)
        self._registry = registry
        self._writer = PutWriter(self._ctx, registry)
        self._reader = ItemReader(self._ctx, registry)
        self._layout = LayoutMigration(self._ctx, registry)

    # -- scopes -------------------------------------------------------------------------
    def scope_of(self, namespace: tuple[str, ...]) -> dict[str, str]:
        """The PRISM scope holding the items of ``namespace`` (see the module docstring): the
        user's own scope for a namespace of the ``user_namespace`` template (``("memories",
        "carol")`` -> ``user_id="carol"``), else a store-only scope."""
        return self._ctx.scope_of(namespace)

    def user_of(self, namespace: tuple[str, ...]) -> str | None:
        """The user whose memory ``namespace`` is part of (``None`` for other namespaces)."""
        return self._ctx.user_of(namespace)

    def _unregister_if_empty(self, namespace: tuple[str, ...], seq: int | None) -> None:
        """The registry's check after a delete (a seam the race tests drive directly)."""
        self._registry.unregister_if_empty(namespace, seq)

    # -- operations ---------------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        for op in ops:
            if not isinstance(op, (GetOp, SearchOp, PutOp, ListNamespacesOp)):
                raise ValueError(f"Unknown operation type: {type(op)}")
            _validate_op(op)
            check_op(op)
        self.memory.record_store.check_open()
        self._layout.check()
        results: list[Result] = [None] * len(ops)
        gets = [(i, op) for i, op in enumerate(ops) if isinstance(op, GetOp)]
        if gets:
            found = self._reader.get_many([(tuple(op.namespace), str(op.key)) for _, op in gets])
            for (i, _), item in zip(gets, found):
                results[i] = item
        puts: dict[tuple[tuple[str, ...], str], PutOp] = {}
        for i, op in enumerate(ops):
            if isinstance(op, SearchOp):
                results[i] = self._reader.search(op, _CALL_THRESHOLD.get())
            elif isinstance(op, ListNamespacesOp):
                results[i] = self._registry.list_namespaces(op)
            elif isinstance(op, PutOp):
                puts[(tuple(op.namespace), str(op.key))] = op  # the last put of a key wins
        if puts:
            self._writer.apply(puts)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    # -- search with a threshold --------------------------------------------------------
    def search(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        refresh_ttl: bool | None = None,
        score_threshold: float | None = None,
    ) -> list[SearchItem]:
        """``BaseStore.search``, plus ``score_threshold``: with a ``query``, hits whose
        ``score`` (relevance in [0, 1]) is below it are dropped, and unindexed items (no
        score) no longer fill up the page. Default: the store's ``score_threshold``."""
        token = _CALL_THRESHOLD.set(check_score_threshold(score_threshold))
        try:
            return super().search(
                namespace_prefix,
                query=query,
                filter=filter,
                limit=limit,
                offset=offset,
                refresh_ttl=refresh_ttl,
            )
        finally:
            _CALL_THRESHOLD.reset(token)

    async def asearch(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        refresh_ttl: bool | None = None,
        score_threshold: float | None = None,
    ) -> list[SearchItem]:
        """The async twin of :meth:`search` (``abatch`` runs in a worker thread that sees
        the threshold: ``asyncio.to_thread`` copies the context)."""
        token = _CALL_THRESHOLD.set(check_score_threshold(score_threshold))
        try:
            return await super().asearch(
                namespace_prefix,
                query=query,
                filter=filter,
                limit=limit,
                offset=offset,
                refresh_ttl=refresh_ttl,
            )
        finally:
            _CALL_THRESHOLD.reset(token)

    def __repr__(self) -> str:
        return f"PrismStore(agent_id={self.agent_id!r}, index_fields={self.index_fields!r})"
