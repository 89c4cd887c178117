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
- ``batch`` answers every read against the state before the batch, then applies its puts
  deduplicated per (namespace, key), the last one winning, as ``InMemoryStore`` does;
  ``abatch`` runs ``batch`` in a worker thread.
- Records of the first layout (ids without ``agent_id``, a single registry entry per namespace)
  are migrated the first time a store of that ``agent_id`` is used.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping
from contextvars import ContextVar
from typing import Any

from langchain_prism._namespaces import (
    USER_PLACEHOLDER,
    check_user_namespace,
    decode_value,
    encode_namespace,
    encode_value,
    fill_user_namespace,
    item_record_id,
    matches_filter,
    matches_namespace,
    namespace_user_id,
    prefix_user_id,
    registry_record_id,
    truncate_namespace,
    user_of_namespace,
)
from prism_memory.errors import ConfigError, QuarantinedError, ValidationError
from prism_memory.records import MemoryRecord, Scope, Trust
from prism_memory.retrieval.scoring import check_score_threshold
from prism_memory.safety import redact_value
from prism_memory.stores.filters import Condition, RecordFilter, parse_filters
from prism_memory.validation import check_depth, check_string

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
except ImportError as exc:  # pragma: no cover - run in a subprocess by test_packaging
    raise ImportError("PrismStore needs langgraph: pip install 'prism-memory[langgraph]'") from exc

__all__ = ["PrismStore"]

log = logging.getLogger("prism_memory")

LAYOUT = 3
LAYOUT_USER_ID = "prism-store-layout"
LEGACY_REGISTRY_USER_ID = "prism-store-namespaces"  # the first layout's registry scope
_MAX_TEXT = 20_000
_PAGE = 10_000
# an item's address (namespace and key) is an identifier, like a scope id: never redacted
_ADDRESS = ("ns", "namespace", "key")
_ITEM, _NAMESPACE = "item", "namespace"
#: a screened put refused over a live value: kept for audit beside it, never read as the item
_REFUSED = "refused-item"


def refused_record_id(item_id: str) -> str:
    """Where a refused put of the item ``item_id`` is kept for audit (its live value stays)."""
    return str(uuid.uuid5(uuid.NAMESPACE_OID, f"{item_id}\x1frefused"))


_FACET = 1_000_000  # every user of a store in one facet
_LAYOUT_NS = uuid.UUID("6a1c3e5f-0b7d-4f2a-9c8e-1d3b5a7c9e0f")

_seq_lock = threading.Lock()
_last_seq = 0


def _check_op(op: Op) -> None:
    """Refuse, with the library's own error, what the store cannot hold: a namespace or key
    that is not text, a put whose value is not a dict or nests deeper than the documented
    32 levels (measured without recursion, so any depth gets this error)."""
    namespace = getattr(op, "namespace", None) or getattr(op, "namespace_prefix", None) or ()
    for i, segment in enumerate(namespace):
        if isinstance(segment, str):
            check_string(segment, f"namespace segment {i}")
    key = getattr(op, "key", None)
    if isinstance(key, str):
        check_string(key, "key")
    if isinstance(op, PutOp) and op.value is not None:
        if not isinstance(op.value, dict):
            raise ValidationError(
                f"put({tuple(op.namespace)!r}, {op.key!r}): the value must be a dict, got "
                f"{type(op.value).__name__}; wrap it, e.g. {{'value': ...}}"
            )
        check_depth(op.value, f"put({tuple(op.namespace)!r}, {op.key!r}): the value")


def _refused(record: MemoryRecord) -> QuarantinedError:
    """The error of a put whose value the screen quarantined (``record``: what was written)."""
    ns, key = tuple(record.metadata["namespace"]), record.metadata["key"]
    if record.metadata.get("prism_store") == _REFUSED:
        return QuarantinedError(
            f"put({ns!r}, {key!r}): the value was quarantined by the poisoning "
            f"screen ({record.provenance.reason}); the item keeps its earlier "
            f"value, and the refused one is kept for audit as memory {record.id!r} "
            "(memory.list(trust='quarantined', ...)). To store it anyway, put it "
            "through a PrismStore(..., screen=False) (the default)",
            record_id=record.id,
            reason=record.provenance.reason,
        )
    return QuarantinedError(
        f"put({ns!r}, {key!r}): the value was quarantined by the poisoning screen "
        f"({record.provenance.reason}); it is kept for audit and not served. Release "
        f"it with memory.release({record.id!r}, **store.scope_of(namespace)), or "
        "store application data with PrismStore(..., screen=False) (the default)",
        record_id=record.id,
        reason=record.provenance.reason,
    )


def _legacy_items(
    legacy: list[MemoryRecord],
) -> tuple[list[MemoryRecord], dict[tuple[str, ...], int]]:
    """The items among first-layout records (registry entries left out), and when each
    namespace became non-empty (the earliest of its entries and items)."""
    items: list[MemoryRecord] = []
    since: dict[tuple[str, ...], int] = {}
    for r in legacy:
        names = r.metadata.get("namespace")
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            continue
        ns = tuple(names)
        is_entry = r.user_id == LEGACY_REGISTRY_USER_ID
        if is_entry or (
            r.user_id == namespace_user_id(ns) and isinstance(r.metadata.get("key"), str)
        ):
            since[ns] = min(since.get(ns, _ns_time(r)), _ns_time(r))
            if not is_entry:
                items.append(r)
    return items, since


def _in_current_layout(
    items: list[MemoryRecord],
    new_ids: list[str],
    present: set[str],
    vectors: dict[str, list[float]],
) -> tuple[list[MemoryRecord], dict[str, list[float]]]:
    """First-layout items as current-layout records under their new ids (those written
    since in the current layout win, and are left out), with the vectors they keep."""
    moved: list[MemoryRecord] = []
    dense: dict[str, list[float]] = {}
    for r, new_id in zip(items, new_ids):
        if new_id in present:
            continue  # written since in the current layout: that one wins
        meta = {
            **r.metadata,
            "prism_store": _ITEM,
            "value": encode_value(dict(r.metadata.get("value") or {})),
            "indexed": r.metadata.get("indexed", "yes"),
            "seq": _ns_time(r),
        }
        moved.append(r.model_copy(update={"id": new_id, "metadata": meta}))
        if r.id in vectors:
            dense[new_id] = vectors[r.id]
    return moved, dense


def _next_seq() -> int:
    """A creation order key: nanoseconds since the epoch, strictly increasing in this process."""
    global _last_seq
    with _seq_lock:
        _last_seq = max(time.time_ns(), _last_seq + 1)
        return _last_seq


def _prefixes(namespace: tuple[str, ...]) -> list[tuple[str, ...]]:
    return [namespace[:i] for i in range(len(namespace) + 1)]


def _flatten(value: Any, prefix: str = "", labels: bool = True) -> Iterator[str]:
    """``key: value`` lines for every scalar leaf (what the whole-value index embeds); with
    ``labels=False`` the values alone (a user's memory reads as what it says)."""
    if isinstance(value, Mapping):
        for k, v in value.items():
            yield from _flatten(v, f"{prefix}{k}." if prefix or k else prefix, labels)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for v in value:
            yield from _flatten(v, prefix, labels)
    elif value is not None and str(value).strip():
        label = prefix.rstrip(".") if labels else ""
        yield f"{label}: {value}" if label else str(value)


def _texts_at(value: Mapping[str, Any], path: str) -> list[str]:
    try:
        return get_text_at_path(dict(value), path)
    except (TypeError, ValueError):  # a datetime, a set... under the path: read it as JSON
        return get_text_at_path(json.loads(json.dumps(value, default=str)), path)


def index_text(
    value: Mapping[str, Any], fields: list[str] | None, *, labels: bool = True
) -> tuple[str, bool]:
    """The text a value is embedded as (its indexed fields, one per line) and whether it is
    indexed at all: as in ``InMemoryStore``, when a field path yields a text (the whole value,
    ``"$"``, always does). ``fields=None`` or ``[]``: not indexed."""
    lines: list[str] = []
    indexed = False
    for path in fields or ():
        if path == "$":
            indexed = True
            whole = list(_flatten(value, labels=labels))
            lines.extend(whole or [json.dumps(value, default=str, ensure_ascii=False)])
        else:
            texts = _texts_at(value, path)
            indexed = indexed or bool(texts)
            lines.extend(t for t in texts if t.strip())
    return "\n".join(lines)[:_MAX_TEXT].strip(), indexed


#: the ``score_threshold`` of the ``search`` / ``asearch`` call being run (``SearchOp`` has no
#: such field, so it reaches ``_search`` through the context)
_CALL_THRESHOLD: ContextVar[float | None] = ContextVar("prism_store_threshold", default=None)


def _ns_time(record: MemoryRecord) -> int:
    """A first-layout record's order key: its ``created_at`` in nanoseconds."""
    return int(record.created_at.timestamp() * 1_000_000) * 1000


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
        self.memory = check_memory(memory, "PrismStore")
        if not hasattr(self.memory, "record_store"):
            raise ConfigError(
                f"PrismStore needs an in-process prism_memory.Memory (it keeps whole records "
                f"through memory.record_store); {type(self.memory).__name__} has none. Open the "
                "store with Memory(path=...) or Memory(url=...) (a Qdrant server) in this process"
            )
        #: the namespace template whose items are part of a user's memory (``None``: none)
        self.user_namespace = check_user_namespace(user_namespace)
        #: query searches drop hits whose ``score`` (relevance in [0, 1]) is below this
        self.score_threshold = check_score_threshold(score_threshold)
        Scope.of(agent_id=agent_id)  # validate early
        self.agent_id = agent_id
        fields = (index or {}).get("fields") or ["$"]
        if not isinstance(fields, list) or not all(isinstance(f, str) for f in fields):
            raise ValueError("index={'fields': [...]} must list JSON paths such as ['text']")
        self.index_fields: list[str] = fields
        self.source = source
        self.screen = screen
        self._lock = threading.RLock()
        self._layout_checked = False

    # -- scopes -------------------------------------------------------------------------
    def scope_of(self, namespace: tuple[str, ...]) -> dict[str, str]:
        """The PRISM scope holding the items of ``namespace`` (see the module docstring): the
        user's own scope for a namespace of the ``user_namespace`` template (``("memories",
        "carol")`` -> ``user_id="carol"``), else a store-only scope."""
        return {"user_id": self._scope_user(namespace), "agent_id": self.agent_id}

    def user_of(self, namespace: tuple[str, ...]) -> str | None:
        """The user whose memory ``namespace`` is part of (``None`` for other namespaces)."""
        return user_of_namespace(self.user_namespace, namespace)

    def _scope_user(self, namespace: tuple[str, ...]) -> str:
        user = self.user_of(namespace)
        return user if user is not None else namespace_user_id(namespace)

    def _store_scope(self) -> Scope:
        """Every record of this store: the items of all namespaces and the registry."""
        return Scope.of(agent_id=self.agent_id)

    # -- operations ---------------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        for op in ops:
            if not isinstance(op, (GetOp, SearchOp, PutOp, ListNamespacesOp)):
                raise ValueError(f"Unknown operation type: {type(op)}")
            _validate_op(op)
            _check_op(op)
        self.memory.record_store.check_open()
        self._check_layout()
        results: list[Result] = [None] * len(ops)
        gets = [(i, op) for i, op in enumerate(ops) if isinstance(op, GetOp)]
        if gets:
            found = self._get_many([(tuple(op.namespace), str(op.key)) for _, op in gets])
            for (i, _), item in zip(gets, found):
                results[i] = item
        puts: dict[tuple[tuple[str, ...], str], PutOp] = {}
        for i, op in enumerate(ops):
            if isinstance(op, SearchOp):
                results[i] = self._search(op)
            elif isinstance(op, ListNamespacesOp):
                results[i] = self._list_namespaces(op)
            elif isinstance(op, PutOp):
                puts[(tuple(op.namespace), str(op.key))] = op  # the last put of a key wins
        if puts:
            self._apply_puts(puts)
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

    # -- get ----------------------------------------------------------------------------
    @staticmethod
    def _item(record: MemoryRecord, score: float | None = None, *, search: bool = False) -> Item:
        meta = record.metadata
        kwargs: dict[str, Any] = {
            "namespace": tuple(meta["namespace"]),
            "key": str(meta["key"]),
            "value": decode_value(meta.get("value") or {}),
            "created_at": record.created_at,
            "updated_at": record.updated_at,
        }
        return SearchItem(**kwargs, score=score) if search else Item(**kwargs)

    def _is_item(self, record: MemoryRecord, namespace: tuple[str, ...], key: str) -> bool:
        meta = record.metadata
        return (
            meta.get("prism_store") == _ITEM
            and record.user_id == self._scope_user(namespace)
            and meta.get("ns") == encode_namespace(namespace)
            and meta.get("key") == key
        )

    def _get_many(self, keys: list[tuple[tuple[str, ...], str]]) -> list[Item | None]:
        """The items at ``keys``: one store read for all of them."""
        ids = [item_record_id(self.agent_id, ns, key) for ns, key in keys]
        got = self.memory.record_store.get(list(dict.fromkeys(ids)), self._store_scope())
        found = {r.id: r for r in got}
        out: list[Item | None] = []
        for rid, (ns, key) in zip(ids, keys):
            r = found.get(rid)
            visible = (
                r is not None
                and self._is_item(r, ns, key)
                and r.provenance.trust != Trust.QUARANTINED
            )
            out.append(self._item(r) if visible and r is not None else None)
        return out

    # -- put / delete -------------------------------------------------------------------
    def _fixed_vector(self) -> list[float]:
        """The dense vector of records never searched by meaning (registry, unindexed items):
        no embedding call for them."""
        return [1.0] + [0.0] * (self.memory.record_store.dim - 1)

    def _registry_entries(self, namespace: tuple[str, ...], seq: int) -> list[MemoryRecord]:
        entries: list[MemoryRecord] = []
        if self.user_of(namespace) is not None:
            return entries  # a user namespace is listed from its items (the user's scope)
        for prefix in _prefixes(namespace):
            entries.append(
                self.memory.build_record(
                    "namespace " + encode_namespace(namespace),
                    Scope.of(user_id=prefix_user_id(prefix), agent_id=self.agent_id),
                    kind="fact",
                    layer="working",
                    source="system",
                    metadata={
                        "prism_store": _NAMESPACE,
                        "ns": encode_namespace(namespace),
                        "namespace": list(namespace),
                        "seq": seq,
                    },
                    record_id=registry_record_id(self.agent_id, prefix, namespace),
                )
            )
        return entries

    def _apply_puts(self, puts: dict[tuple[tuple[str, ...], str], PutOp]) -> None:
        """Write a batch's puts: order the namespaces, build the item records (deletions for
        ``None`` values), delete, write, drop registry entries of emptied namespaces; then
        refuse (``QuarantinedError``) a put the screen quarantined."""
        agent = self.agent_id
        namespaces = list(dict.fromkeys(ns for ns, _ in puts))
        with self._lock:
            ids = [item_record_id(agent, ns, key) for ns, key in puts]
            ids += [registry_record_id(agent, ns, ns) for ns in namespaces]
            existing = {r.id: r for r in self.memory.record_store.get(ids, self._store_scope())}
            ns_seq, registered = self._namespace_order(namespaces, existing)
            items, kept, deleted = self._item_records(puts, existing, ns_seq)
            if deleted:
                gone = [rid for rids in deleted.values() for rid in rids]
                self.memory.record_store.delete(gone, self._store_scope())
            written = self._write(items, ns_seq, registered, kept)
            refilled = {tuple(r.metadata["namespace"]) for r in items}
            for ns in deleted:
                if ns not in refilled:
                    self._unregister_if_empty(ns, ns_seq.get(ns))
        for record in written:
            if record.provenance.trust == Trust.QUARANTINED:
                raise _refused(record)

    def _namespace_order(
        self, namespaces: list[tuple[str, ...]], existing: dict[str, MemoryRecord]
    ) -> tuple[dict[tuple[str, ...], int], set[tuple[str, ...]]]:
        """Each namespace's order key (from its registry entry or its items; a new one's
        next in line) in the order the batch first touches them, as ``InMemoryStore``, and
        the namespaces already registered."""
        ns_seq: dict[tuple[str, ...], int] = {}
        registered: set[tuple[str, ...]] = set()
        for ns in namespaces:
            entry = existing.get(registry_record_id(self.agent_id, ns, ns))
            if self.user_of(ns) is not None:  # no registry: its items carry the order
                live = self._user_namespace_seq(ns)
                ns_seq[ns] = live if live is not None else _next_seq()
                registered.add(ns)
            elif entry is not None and entry.metadata.get("prism_store") == _NAMESPACE:
                ns_seq[ns] = int(entry.metadata.get("seq") or _ns_time(entry))
                registered.add(ns)
            else:
                ns_seq[ns] = _next_seq()
        return ns_seq, registered

    def _item_records(
        self,
        puts: dict[tuple[tuple[str, ...], str], PutOp],
        existing: dict[str, MemoryRecord],
        ns_seq: dict[tuple[str, ...], int],
    ) -> tuple[list[MemoryRecord], set[str], dict[tuple[str, ...], list[str]]]:
        """The records of the puts with a value; the ids whose current value a refused put
        must not replace; the ids to delete (``None`` values) by namespace."""
        items: list[MemoryRecord] = []
        kept: set[str] = set()
        deleted: dict[tuple[str, ...], list[str]] = {}
        for (ns, key), op in puts.items():
            rid = item_record_id(self.agent_id, ns, key)
            if op.value is None:
                deleted.setdefault(ns, []).append(rid)
                continue
            old = existing.get(rid)
            if old is not None and (
                not self._is_item(old, ns, key) or old.provenance.trust == Trust.QUARANTINED
            ):
                old = None  # a quarantined item was never served: this put creates the key
            if old is not None:
                kept.add(rid)
            items.append(self._item_record(ns, key, op, old, ns_seq[ns]))
        return items, kept, deleted

    def _user_namespace_seq(self, namespace: tuple[str, ...]) -> int | None:
        """When a user namespace became non-empty (``None`` if it is empty): its items carry
        it, as the registry entry does for other namespaces."""
        page, _ = self.memory.record_store.scroll(
            Scope.of(**self.scope_of(namespace)), self._ns_filter([namespace]), limit=1
        )
        if not page:
            return None
        meta = page[0].metadata
        return int(meta.get("ns_seq") or meta.get("seq") or 0) or None

    def _ns_filter(self, namespaces: Iterable[tuple[str, ...]]) -> RecordFilter | None:
        """Items of exactly these namespaces (whatever their scope)."""
        return parse_filters(
            {
                "metadata.prism_store": _ITEM,
                "metadata.ns": [encode_namespace(ns) for ns in namespaces],
            }
        )

    def _item_record(
        self,
        namespace: tuple[str, ...],
        key: str,
        op: PutOp,
        old: MemoryRecord | None,
        ns_seq: int,
    ) -> MemoryRecord:
        value = dict(op.value or {})
        if self.memory.config.safety.redact_pii:  # before the text is built from it
            value = redact_value(value)
        encoded = encode_value(value)  # refuses what would not come back as it went in
        if op.index is False:
            text, indexed = "", False
        else:
            text, indexed = index_text(
                value,
                self.index_fields if op.index is None else op.index,
                labels=self.user_of(namespace) is None,
            )
        seq = old.metadata.get("seq") if old is not None else None
        record: MemoryRecord = self.memory.build_record(
            text or key,
            Scope.of(**self.scope_of(namespace)),
            kind="fact",
            layer="semantic",
            source=self.source,
            metadata={
                "prism_store": _ITEM,
                "ns": encode_namespace(namespace),
                "namespace": list(namespace),
                "key": key,
                "indexed": "yes" if indexed else "no",
                "seq": int(seq) if isinstance(seq, int) else _next_seq(),
                "ns_seq": ns_seq,
                "user_ns": "yes" if self.user_of(namespace) is not None else "no",
            },
            record_id=item_record_id(self.agent_id, namespace, key),
        )
        # set after the build: the value's 32 levels were checked as given (_check_op), and
        # its encoding's wrappers must not count against them (check_record bounds the rest)
        record.metadata["value"] = encoded
        if old is not None:
            record.created_at = old.created_at
        return record

    def _write(
        self,
        items: list[MemoryRecord],
        ns_seq: dict[tuple[str, ...], int],
        registered: set[tuple[str, ...]],
        kept: set[str] | None = None,
    ) -> list[MemoryRecord]:
        """Upsert the items and the registry entries of their namespaces not ``registered``
        when read before; for those that were, check after the write and write the entries
        if they are gone. Writing or checking after the items keeps the registry right when
        another store deletes the last item of a namespace meanwhile: either its delete of the
        entries comes first and is undone here, or its count after that delete sees these items
        and it puts them back (:meth:`_unregister_if_empty`)."""
        if not items:
            return []
        if self.screen:  # a refused put changes nothing: its value goes beside the live one
            items = self.memory.record_store.screen(items, keep_metadata=_ADDRESS)
            for r in items:
                if r.provenance.trust == Trust.QUARANTINED and r.id in (kept or set()):
                    r.id = refused_record_id(r.id)
                    r.metadata["prism_store"] = _REFUSED
        vec = self._fixed_vector()
        namespaces = list(dict.fromkeys(tuple(r.metadata["namespace"]) for r in items))
        entries = [
            e
            for ns in namespaces
            if ns not in registered
            for e in self._registry_entries(ns, ns_seq[ns])
        ]
        dense = {r.id: vec for r in items if r.metadata["indexed"] == "no"}
        dense.update((e.id, vec) for e in entries)
        written = items  # screened above (when screening); the registry never is
        self.memory.record_store.write(
            keep_metadata=_ADDRESS, records=[*items, *entries], dense=dense, screen=False
        )
        known = [ns for ns in namespaces if ns in registered and self.user_of(ns) is None]
        ids = [registry_record_id(self.agent_id, ns, ns) for ns in known]
        present = (
            {r.id for r in self.memory.record_store.get(ids, self._store_scope())} if ids else set()
        )
        lost = [
            e
            for ns, rid in zip(known, ids)
            if rid not in present
            for e in self._registry_entries(ns, ns_seq[ns])
        ]
        if lost:
            self.memory.record_store.write(
                keep_metadata=_ADDRESS, records=lost, dense={e.id: vec for e in lost}, screen=False
            )
        return written

    def _unregister_if_empty(self, namespace: tuple[str, ...], seq: int | None) -> None:
        """Drop the registry entries of a namespace left without items. A put from another
        store may land between the count and the delete: count again and put them back."""
        if self.user_of(namespace) is not None:
            return  # no registry entries to drop
        scope = Scope.of(**self.scope_of(namespace))
        if self.memory.record_store.count(scope) > 0:
            return
        ids = [registry_record_id(self.agent_id, p, namespace) for p in _prefixes(namespace)]
        self.memory.record_store.delete(ids, self._store_scope())
        if self.memory.record_store.count(scope) > 0:
            entries = self._registry_entries(namespace, seq if seq is not None else _next_seq())
            vec = self._fixed_vector()
            self.memory.record_store.write(
                keep_metadata=_ADDRESS,
                records=entries,
                dense={e.id: vec for e in entries},
                screen=False,
            )

    # -- namespaces ---------------------------------------------------------------------
    def _pages(self, scope: Scope, flt: RecordFilter | None) -> Iterator[MemoryRecord]:
        cursor: str | None = None
        while True:
            page, cursor = self.memory.record_store.scroll(scope, flt, limit=_PAGE, cursor=cursor)
            yield from page
            if cursor is None:
                return

    def _namespaces_under(self, prefix: tuple[str, ...]) -> dict[tuple[str, ...], int]:
        """Every non-empty namespace under ``prefix`` (whole segments, literal) and the order it
        became non-empty in: one read of the registry scope of that prefix."""
        scope = Scope.of(user_id=prefix_user_id(prefix), agent_id=self.agent_id)
        out: dict[tuple[str, ...], int] = {}
        for r in self._pages(scope, None):  # the scope holds registry entries only
            ns = tuple(r.metadata.get("namespace") or ())
            if (
                r.metadata.get("prism_store") == _NAMESPACE
                and ns[: len(prefix)] == prefix
                and len(ns) >= max(1, len(prefix))
            ):
                out[ns] = int(r.metadata.get("seq") or 0)
        out.update(self._user_namespaces_under(prefix))
        return out

    def _user_namespaces_under(self, prefix: tuple[str, ...]) -> dict[tuple[str, ...], int]:
        """The non-empty user namespaces under ``prefix``: read from the items themselves (a
        facet of ``user_id`` over this store's user-namespace items, or one count when the
        prefix names the user), so a user's deletion leaves nothing to list. Their order keys
        are on the items (``ns_seq``); 0 here."""
        template = self.user_namespace
        if template is None or len(prefix) > len(template):
            return {}
        pos = template.index(USER_PLACEHOLDER)
        if any(seg != template[i] for i, seg in enumerate(prefix) if i != pos):
            return {}
        flt = parse_filters({"metadata.prism_store": _ITEM, "metadata.user_ns": "yes"})
        store = self.memory.record_store
        if len(prefix) > pos:
            user = prefix[pos]
            scope = Scope.of(user_id=user, agent_id=self.agent_id)
            users = [user] if user and store.count(scope, flt) > 0 else []
        else:
            users = [u for u, n in store.facet("user_id", self._store_scope(), flt, limit=_FACET)]
        return {fill_user_namespace(template, u): 0 for u in users}

    def _live(self, namespaces: Iterable[tuple[str, ...]]) -> list[tuple[str, ...]]:
        """The registry's namespaces that still hold items. A scope deleted by hand (e.g.
        ``memory.delete_all(**store.scope_of(ns))``) leaves registry entries behind: they are
        dropped here, so ``list_namespaces`` never lists a namespace with no items."""
        live: list[tuple[str, ...]] = []
        for ns in namespaces:
            if self.user_of(ns) is not None:
                live.append(ns)  # read from its items
            elif self.memory.record_store.count(
                Scope.of(**self.scope_of(ns)), self._ns_filter([ns])
            ):
                live.append(ns)
            else:
                with self._lock:
                    self._unregister_if_empty(ns, None)
        return live

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        prefix: tuple[str, ...] | None = None
        suffix: tuple[str, ...] | None = None
        for cond in op.match_conditions or ():
            if cond.match_type == "prefix":
                prefix = tuple(cond.path)
            elif cond.match_type == "suffix":
                suffix = tuple(cond.path)
            else:
                raise ValueError(f"Unsupported match type: {cond.match_type}")
        literal = prefix or ()  # the registry read covers the segments before a wildcard
        if "*" in literal:
            literal = literal[: literal.index("*")]
        found = self._namespaces_under(literal)
        matching = self._live(ns for ns in found if matches_namespace(ns, prefix, suffix))
        out = sorted({truncate_namespace(ns, op.max_depth) for ns in matching})
        return out[op.offset : op.offset + op.limit]

    # -- search -------------------------------------------------------------------------
    def _item_filter(
        self, namespaces: Iterable[tuple[str, ...]], extra: dict[str, Any]
    ) -> RecordFilter:
        users = RecordFilter.any_of("user_id", [self._scope_user(ns) for ns in namespaces])
        flt = parse_filters({"metadata.prism_store": _ITEM, **extra})
        visible: RecordFilter = self.memory.visible_filter()
        return visible & users & flt

    def _matching(
        self,
        namespaces: dict[tuple[str, ...], int],
        flt: dict[str, Any] | None,
        extra: dict[str, Any],
    ) -> list[MemoryRecord]:
        """The items of ``namespaces`` whose value passes ``flt``, in ``InMemoryStore``'s
        order: namespaces in the order they became non-empty, then keys in creation order."""
        order = {encode_namespace(ns): seq for ns, seq in namespaces.items()}
        records = [
            r
            for r in self._pages(self._store_scope(), self._item_filter(namespaces, extra))
            if r.metadata.get("ns") in order
            and matches_filter(decode_value(r.metadata.get("value") or {}), flt)
        ]
        records.sort(
            key=lambda r: (
                order[r.metadata["ns"]] or int(r.metadata.get("ns_seq") or 0),
                r.metadata["ns"],
                int(r.metadata.get("seq") or 0),
                r.metadata["key"],
            )
        )
        return records

    def _search(self, op: SearchOp) -> list[Item]:
        # search prefixes are literal (as in LangGraph's own stores); "*" is a wildcard only in
        # list_namespaces match conditions, so a tenant named "*" sees only its own items
        namespaces = self._namespaces_under(tuple(op.namespace_prefix))
        if not namespaces:
            return []
        if not op.query:
            found = self._matching(namespaces, op.filter, {})
            return [self._item(r, search=True) for r in found[op.offset : op.offset + op.limit]]
        need = op.offset + op.limit
        threshold = _CALL_THRESHOLD.get()
        threshold = self.score_threshold if threshold is None else threshold
        extra: dict[str, Any] = {"metadata.indexed": "yes"}
        unscored: list[MemoryRecord] | None = None
        if op.filter:  # the filter is applied here, exactly: the query ranks what passes it
            passing = self._matching(namespaces, op.filter, {})
            extra["id"] = [r.id for r in passing if r.metadata.get("indexed") != "no"]
            unscored = [r for r in passing if r.metadata.get("indexed") == "no"]
        ranked: list[tuple[float | None, MemoryRecord]] = []
        if need > 0 and extra.get("id", True):
            hits = self.memory.record_store.query(
                op.query,
                self._store_scope(),
                self._item_filter(namespaces, extra),
                limit=need,
                score_threshold=threshold,
            )
            ranked = [(h.score, h.record) for h in hits[max(op.offset, 0) : need]]
        if len(ranked) < op.limit and threshold is None:
            # as InMemoryStore: unindexed matches fill up the page, in order, from the first
            if unscored is None:
                unscored = self._matching(namespaces, None, {"metadata.indexed": "no"})
            ranked.extend((None, r) for r in unscored[: op.limit - len(ranked)])
        return [self._item(r, score, search=True) for score, r in ranked]

    # -- the first layout ---------------------------------------------------------------
    def _check_layout(self) -> None:
        """Once per store object: migrate this agent_id's first-layout records if a layout
        marker does not say it was done (one read by id)."""
        if self._layout_checked:
            return
        with self._lock:
            if self._layout_checked:
                return
            scope = Scope.of(user_id=LAYOUT_USER_ID, agent_id=self.agent_id)
            marker_id = str(
                uuid.uuid5(
                    _LAYOUT_NS, json.dumps([self.agent_id, LAYOUT, list(self.user_namespace or ())])
                )
            )
            if not self.memory.record_store.get([marker_id], scope):
                self._migrate()
                self._move_user_namespaces()
                marker = self.memory.build_record(
                    f"PrismStore layout {LAYOUT}",
                    scope,
                    kind="fact",
                    layer="working",
                    source="system",
                    metadata={"prism_store": "layout", "layout": LAYOUT},
                    record_id=marker_id,
                )
                self.memory.record_store.write(
                    keep_metadata=_ADDRESS,
                    records=[marker],
                    dense={marker_id: self._fixed_vector()},
                    screen=False,
                )
            self._layout_checked = True

    def _move_user_namespaces(self) -> None:
        """Layout 3: items of ``user_namespace`` namespaces written under a store-only scope
        (``ns:...``) move into their user's scope (same ids and vectors, so each upsert
        replaces the point), and their registry entries go: the user's memory now holds them.
        Idempotent, like :meth:`_migrate`."""
        template = self.user_namespace
        if template is None:
            return
        records = self.memory.record_store
        earlier = parse_filters({"metadata.prism_store": _ITEM, "metadata.user_ns": {"$ne": "yes"}})
        by_ns: dict[tuple[str, ...], list[MemoryRecord]] = {}
        for r in self._pages(self._store_scope(), earlier):  # a one-time scan of the items
            names = r.metadata.get("namespace")
            ns = tuple(names) if isinstance(names, list) else ()
            if self.user_of(ns) is not None and r.user_id == namespace_user_id(ns):
                by_ns.setdefault(ns, []).append(r)
        for ns, items in by_ns.items():
            old_scope = Scope.of(user_id=namespace_user_id(ns), agent_id=self.agent_id)
            seq = min(int(r.metadata.get("seq") or 0) for r in items)
            new_scope = Scope.of(user_id=self.user_of(ns), agent_id=self.agent_id)
            marks = {"ns_seq": seq, "user_ns": "yes"}
            moved = records.move([r.id for r in items], old_scope, new_scope, metadata=marks)
            entries = [registry_record_id(self.agent_id, p, ns) for p in _prefixes(ns)]
            records.delete(entries, self._store_scope())
            log.info("PrismStore: %d items of a user namespace moved to its user", len(moved))

    def _migrate(self) -> None:
        """Rewrite this agent_id's first-layout records (no ``metadata.prism_store``) in the
        current layout: new ids, the same vectors, times and trust; ``created_at`` gives the
        order keys. Idempotent: an interrupted migration is finished by the next store."""
        flt = RecordFilter(
            must=[Condition("metadata.prism_store", "empty")],
            must_not=[Condition("metadata.ns", "empty")],
        )
        legacy = list(self._pages(self._store_scope(), flt))
        if not legacy:
            return
        agent = self.agent_id
        items, since = _legacy_items(legacy)
        new_ids = [
            item_record_id(agent, tuple(r.metadata["namespace"]), r.metadata["key"]) for r in items
        ]
        entry_ids = [registry_record_id(agent, ns, ns) for ns in since]
        present = {
            r.id for r in self.memory.record_store.get(new_ids + entry_ids, self._store_scope())
        }
        vectors = self.memory.record_store.vectors([r.id for r in items], self._store_scope())
        moved, dense = _in_current_layout(items, new_ids, present, vectors)
        live = {tuple(r.metadata["namespace"]) for r in items}
        entries = [
            e
            for ns in since
            if ns in live and registry_record_id(agent, ns, ns) not in present
            for e in self._registry_entries(ns, since[ns])
        ]
        dense.update((e.id, self._fixed_vector()) for e in entries)
        self.memory.record_store.write(
            keep_metadata=_ADDRESS, records=[*moved, *entries], dense=dense, screen=False
        )
        self.memory.record_store.delete([r.id for r in legacy], self._store_scope())
        log.info("PrismStore(agent_id=%r): %d items moved to layout %d", agent, len(moved), LAYOUT)

    def __repr__(self) -> str:
        return f"PrismStore(agent_id={self.agent_id!r}, index_fields={self.index_fields!r})"
