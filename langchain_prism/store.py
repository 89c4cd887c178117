"""``PrismStore``: a LangGraph ``BaseStore`` on PRISM memory.

Design:
- Namespace -> scope rule (documented in docs/langchain.md): the items of namespace ``ns`` live
  in the PRISM scope ``user_id = "ns:" + encode(ns)``, ``agent_id = <store agent_id>`` (default
  ``"langgraph"``), where ``encode`` percent-encodes each segment and joins them with ``/``.
  Every item record also carries ``metadata.ns`` (the exact encoding) and ``metadata.key``;
  reads filter on both the scope and ``metadata.ns``, so namespaces are matched exactly, segment
  by segment: ``("john_doe",)`` never sees ``("john-doe",)``.
- One record per (namespace, key), with a deterministic id, so ``put`` is an upsert that keeps
  ``created_at``. The value dict is kept verbatim in ``metadata.value`` (its strings redacted
  first under ``Memory(redact_pii=True)``; namespace and key never are); the record text (what is
  embedded and BM25-indexed) is the value's indexed fields (``index=[...]`` per put, the store's
  ``index={"fields": [...]}``, default the whole value).
- Namespaces are listed from a small registry (one record per namespace in the store's own scope),
  which also resolves prefix searches: ``search(("memories",), query=...)`` runs one scoped
  hybrid search per matching namespace and merges them by score.
- Value filters use LangGraph's semantics and are applied exactly: with a filter, the matching
  items of a namespace are found first and the query ranks only those.
- ``batch`` runs the operations in order; ``abatch`` runs ``batch`` in a worker thread.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from langchain_prism._namespaces import (
    encode_namespace,
    item_record_id,
    matches_filter,
    matches_namespace,
    namespace_user_id,
    registry_record_id,
    truncate_namespace,
)
from prism_memory.errors import NotFoundError, QuarantinedError
from prism_memory.records import MemoryRecord, Scope, Trust
from prism_memory.safety import redact_value

from ._scope import check_memory

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        Item,
        ListNamespacesOp,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
    )
    from langgraph.store.base import validate_op_namespace as _validate_op
    from langgraph.store.base.embed import get_text_at_path
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("PrismStore needs langgraph: pip install 'prism-memory[agents]'") from exc

__all__ = ["PrismStore"]

REGISTRY_USER_ID = "prism-store-namespaces"
_MAX_TEXT = 20_000
_PAGE = 1000
# an item's address (namespace and key) is an identifier, like a scope id: never redacted
_ADDRESS = ("ns", "namespace", "key")


def _flatten(value: Any, prefix: str = "") -> Iterator[str]:
    """``key: value`` lines for every scalar leaf (what the whole-value index embeds)."""
    if isinstance(value, Mapping):
        for k, v in value.items():
            yield from _flatten(v, f"{prefix}{k}." if prefix or k else prefix)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _flatten(v, prefix)
    elif value is not None and str(value).strip():
        label = prefix.rstrip(".")
        yield f"{label}: {value}" if label else str(value)


def index_text(value: Mapping[str, Any], fields: list[str] | None) -> str:
    """The text a value is embedded as: its indexed fields, one per line."""
    if not fields or fields == ["$"]:
        lines = list(_flatten(value))
    else:
        lines = []
        for path in fields:
            if path == "$":
                lines.extend(_flatten(value))
            else:
                lines.extend(t for t in get_text_at_path(dict(value), path) if t.strip())
    return "\n".join(lines)[:_MAX_TEXT].strip()


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
            hits[0].value, hits[0].score

    Values are the application's own data: they are stored as given, unscreened. With
    ``screen=True`` each value is read by the poisoning screen as content from ``source``
    (use ``source="tool"`` for values that come from outside); a value it quarantines raises
    :class:`prism_memory.QuarantinedError` (the item is kept for audit, never served, and
    ``memory.release(error.record_id, ...)`` restores it). The namespace registry is never
    screened.
    """

    supports_ttl: bool = False

    def __init__(
        self,
        memory: Any = None,
        *,
        agent_id: str = "langgraph",
        index: Mapping[str, Any] | None = None,
        source: str = "system",
        screen: bool = False,
    ) -> None:
        self.memory = check_memory(memory, "PrismStore")
        Scope.of(agent_id=agent_id)  # validate early
        self.agent_id = agent_id
        fields = (index or {}).get("fields") or ["$"]
        if not isinstance(fields, list) or not all(isinstance(f, str) for f in fields):
            raise ValueError("index={'fields': [...]} must list JSON paths such as ['text']")
        self.index_fields: list[str] = fields
        self.source = source
        self.screen = screen
        self._lock = threading.RLock()
        self._known: set[tuple[str, ...]] = set()

    # -- scopes -------------------------------------------------------------------------
    def scope_of(self, namespace: tuple[str, ...]) -> dict[str, str]:
        """The PRISM scope holding the items of ``namespace`` (see the module docstring)."""
        return {"user_id": namespace_user_id(namespace), "agent_id": self.agent_id}

    def _registry_scope(self) -> dict[str, str]:
        return {"user_id": REGISTRY_USER_ID, "agent_id": self.agent_id}

    # -- operations ---------------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        results: list[Result] = []
        for op in ops:
            _validate_op(op)
            if isinstance(op, GetOp):
                results.append(self._get(op.namespace, op.key))
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            elif isinstance(op, PutOp):
                self._put(op)
                results.append(None)
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op))
            else:
                raise TypeError(f"PrismStore cannot run {type(op).__name__}")
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    # -- get / put ----------------------------------------------------------------------
    @staticmethod
    def _item(record: MemoryRecord, score: float | None = None, *, search: bool = False) -> Item:
        meta = record.metadata
        kwargs: dict[str, Any] = {
            "namespace": tuple(meta["namespace"]),
            "key": str(meta["key"]),
            "value": dict(meta.get("value") or {}),
            "created_at": record.created_at,
            "updated_at": record.updated_at,
        }
        return SearchItem(**kwargs, score=score) if search else Item(**kwargs)

    def _record(self, namespace: tuple[str, ...], key: str) -> MemoryRecord | None:
        try:
            record: MemoryRecord = self.memory.get(
                item_record_id(namespace, key), **self.scope_of(namespace)
            )
        except NotFoundError:
            return None
        meta = record.metadata
        if meta.get("ns") != encode_namespace(namespace) or meta.get("key") != key:
            return None
        if record.provenance.trust == Trust.QUARANTINED:
            return None  # kept for audit only, as search leaves it out
        return record

    def _get(self, namespace: tuple[str, ...], key: str) -> Item | None:
        record = self._record(namespace, key)
        return self._item(record) if record is not None else None

    def _put(self, op: PutOp) -> None:
        namespace, key = tuple(op.namespace), str(op.key)
        scope = self.scope_of(namespace)
        with self._lock:
            if op.value is None:
                self.memory.delete(item_record_id(namespace, key), **scope)
                if self.memory.count(**scope) == 0:
                    self.memory.delete(registry_record_id(namespace), **self._registry_scope())
                    self._known.discard(namespace)
                return
            value = dict(op.value)
            if self.memory.config.safety.redact_pii:  # before the text is built from it
                value = redact_value(value)
            fields = self.index_fields if op.index is None else op.index or None
            text = index_text(value, fields) if op.index is not False else ""
            indexed = bool(text)
            old = self._record(namespace, key)
            record = self.memory.build_record(
                text or key,
                Scope.of(**scope),
                kind="fact",
                layer="semantic",
                source=self.source,
                metadata={
                    "ns": encode_namespace(namespace),
                    "namespace": list(namespace),
                    "key": key,
                    "value": value,
                    "indexed": "yes" if indexed else "no",
                },
                record_id=item_record_id(namespace, key),
            )
            if old is not None:
                record.created_at = old.created_at
            written = self.memory._write_records(
                [record], screen=self.screen, keep_metadata=_ADDRESS
            )[0]
            self._register(namespace)
        if written.provenance.trust == Trust.QUARANTINED:
            raise QuarantinedError(
                f"put({namespace!r}, {key!r}): the value was quarantined by the poisoning screen "
                f"({written.provenance.reason}); it is kept for audit and not served. Release it "
                f"with memory.release({written.id!r}, **store.scope_of(namespace)), or store "
                "application data with PrismStore(..., screen=False) (the default)",
                record_id=written.id,
                reason=written.provenance.reason,
            )

    def _register(self, namespace: tuple[str, ...]) -> None:
        if namespace in self._known:
            return
        entry = self.memory.build_record(
            "namespace " + encode_namespace(namespace),
            Scope.of(**self._registry_scope()),
            kind="fact",
            layer="working",
            source="system",
            metadata={"namespace": list(namespace), "ns": encode_namespace(namespace)},
            record_id=registry_record_id(namespace),
        )
        # internal: never screened
        self.memory._write_records([entry], screen=False, keep_metadata=_ADDRESS)
        self._known.add(namespace)

    # -- namespaces ---------------------------------------------------------------------
    def _pages(
        self, scope: dict[str, str], filters: dict[str, Any] | None = None
    ) -> Iterator[MemoryRecord]:
        cursor: str | None = None
        while True:
            page = self.memory.list(limit=_PAGE, cursor=cursor, filters=filters, **scope)
            yield from page
            cursor = page.next_cursor
            if cursor is None:
                return

    def _namespaces(self) -> list[tuple[str, ...]]:
        found = {tuple(r.metadata["namespace"]) for r in self._pages(self._registry_scope())}
        return sorted(found)

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        prefix: tuple[str, ...] | None = None
        suffix: tuple[str, ...] | None = None
        for cond in op.match_conditions or ():
            if cond.match_type == "prefix":
                prefix = tuple(cond.path)
            elif cond.match_type == "suffix":
                suffix = tuple(cond.path)
            else:
                raise ValueError(f"unknown match_type {cond.match_type!r}; use prefix or suffix")
        out: dict[tuple[str, ...], None] = {}
        for ns in self._namespaces():
            if matches_namespace(ns, prefix, suffix):
                out[truncate_namespace(ns, op.max_depth)] = None
        return sorted(out)[op.offset : op.offset + op.limit]

    # -- search -------------------------------------------------------------------------
    def _items_of(self, namespace: tuple[str, ...]) -> Iterator[MemoryRecord]:
        return self._pages(self.scope_of(namespace), {"metadata.ns": encode_namespace(namespace)})

    def _ranked(
        self, namespace: tuple[str, ...], op: SearchOp, need: int
    ) -> list[tuple[float | None, MemoryRecord]]:
        scope = self.scope_of(namespace)
        filters: dict[str, Any] = {"metadata.ns": encode_namespace(namespace)}
        unscored: list[MemoryRecord] = []
        if op.filter:
            matching = [
                r
                for r in self._items_of(namespace)
                if matches_filter(r.metadata.get("value") or {}, op.filter)
            ]
            if not matching:
                return []
            indexed_ids = [r.id for r in matching if r.metadata.get("indexed") != "no"]
            unscored = [r for r in matching if r.metadata.get("indexed") == "no"]
            filters["id"] = indexed_ids
        else:
            filters["metadata.indexed"] = "yes"
        ranked: list[tuple[float | None, MemoryRecord]] = []
        if filters.get("id", True):
            hits = self.memory.search(
                str(op.query), limit=max(1, min(1000, need)), filters=filters, **scope
            )
            ranked = [(h.score, h.record) for h in hits]
        if len(ranked) < need:
            if not op.filter:
                unscored = [
                    r for r in self._items_of(namespace) if r.metadata.get("indexed") == "no"
                ]
            ranked.extend((None, r) for r in unscored[: need - len(ranked)])
        return ranked

    def _search(self, op: SearchOp) -> list[Item]:
        # search prefixes are literal (as in LangGraph's own stores); "*" is a wildcard only in
        # list_namespaces match conditions, so a tenant named "*" sees only its own items
        prefix = tuple(op.namespace_prefix)
        namespaces = [ns for ns in self._namespaces() if ns[: len(prefix)] == prefix]
        need = op.offset + op.limit
        if op.query and op.query.strip():
            scored: list[tuple[float | None, MemoryRecord]] = []
            for ns in namespaces:
                scored.extend(self._ranked(ns, op, need))
            scored.sort(key=lambda pair: (pair[0] is None, -(pair[0] or 0.0)))
            window = scored[op.offset : need]
            return [self._item(r, score, search=True) for score, r in window]
        records: list[MemoryRecord] = []
        for ns in namespaces:
            records.extend(
                r
                for r in self._items_of(ns)
                if matches_filter(r.metadata.get("value") or {}, op.filter)
            )
        records.sort(key=lambda r: r.updated_at, reverse=True)
        return [self._item(r, search=True) for r in records[op.offset : need]]

    def __repr__(self) -> str:
        return f"PrismStore(agent_id={self.agent_id!r}, index_fields={self.index_fields!r})"
