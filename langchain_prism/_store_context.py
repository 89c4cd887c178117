"""The narrow object every part of ``PrismStore`` works through: its settings and its scopes.

Design:
- ``PrismStore`` composes four parts (the namespace registry, the writer of puts, the reader of
  gets and searches, the layout migration); each receives this one ``StoreContext`` and never
  the store itself, so arrows point one way: store -> parts -> context -> ``Memory``.
- The context holds the store's settings (``PrismStore`` forwards its public attributes here,
  so changing ``store.screen`` changes what the parts see), its lock, and the answers every
  part needs: the scope of a namespace, whether a record is the item at an address, the
  filters of items, the paged read of a scope, the fixed vector of records never searched by
  meaning.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from langchain_prism._namespaces import encode_namespace, namespace_user_id, user_of_namespace
from langchain_prism._store_values import ITEM, PAGE
from prism_memory.records import MemoryRecord, Scope
from prism_memory.stores.filters import RecordFilter, parse_filters

__all__ = ["StoreContext"]


@dataclass
class StoreContext:
    """A ``PrismStore``'s settings and the scope answers its parts share.

    Example::

        ctx = StoreContext(memory, agent_id="langgraph", user_namespace=("memories", "{user_id}"),
                           index_fields=["$"], source="system", screen=False,
                           score_threshold=None)
        ctx.scope_of(("memories", "alice"))   # {"user_id": "alice", "agent_id": "langgraph"}
    """

    memory: Any
    agent_id: str
    user_namespace: tuple[str, ...] | None
    index_fields: list[str]
    source: str
    screen: bool
    score_threshold: float | None
    lock: threading.RLock = field(default_factory=threading.RLock)

    def scope_of(self, namespace: tuple[str, ...]) -> dict[str, str]:
        """The PRISM scope holding the items of ``namespace``."""
        return {"user_id": self.scope_user(namespace), "agent_id": self.agent_id}

    def user_of(self, namespace: tuple[str, ...]) -> str | None:
        """The user whose memory ``namespace`` is part of (``None`` for other namespaces)."""
        return user_of_namespace(self.user_namespace, namespace)

    def scope_user(self, namespace: tuple[str, ...]) -> str:
        """The ``user_id`` of the scope of ``namespace``."""
        user = self.user_of(namespace)
        return user if user is not None else namespace_user_id(namespace)

    def store_scope(self) -> Scope:
        """Every record of this store: the items of all namespaces and the registry."""
        return Scope.of(agent_id=self.agent_id)

    def fixed_vector(self) -> list[float]:
        """The dense vector of records never searched by meaning (registry, unindexed items):
        no embedding call for them."""
        return [1.0] + [0.0] * (self.memory.record_store.dim - 1)

    def is_item(self, record: MemoryRecord, namespace: tuple[str, ...], key: str) -> bool:
        """Whether ``record`` is the item at (``namespace``, ``key``) of this store."""
        meta = record.metadata
        return (
            meta.get("prism_store") == ITEM
            and record.user_id == self.scope_user(namespace)
            and meta.get("ns") == encode_namespace(namespace)
            and meta.get("key") == key
        )

    def ns_filter(self, namespaces: Iterable[tuple[str, ...]]) -> RecordFilter | None:
        """Items of exactly these namespaces (whatever their scope)."""
        return parse_filters(
            {
                "metadata.prism_store": ITEM,
                "metadata.ns": [encode_namespace(ns) for ns in namespaces],
            }
        )

    def item_filter(
        self, namespaces: Iterable[tuple[str, ...]], extra: dict[str, Any]
    ) -> RecordFilter:
        """The visible items of the scopes of ``namespaces`` that pass ``extra``."""
        users = RecordFilter.any_of("user_id", [self.scope_user(ns) for ns in namespaces])
        flt = parse_filters({"metadata.prism_store": ITEM, **extra})
        visible: RecordFilter = self.memory.visible_filter()
        return visible & users & flt

    def pages(self, scope: Scope, flt: RecordFilter | None) -> Iterator[MemoryRecord]:
        """Every record of ``scope`` passing ``flt``, read page by page."""
        cursor: str | None = None
        while True:
            page, cursor = self.memory.record_store.scroll(scope, flt, limit=PAGE, cursor=cursor)
            yield from page
            if cursor is None:
                return
