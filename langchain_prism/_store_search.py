"""The reads of ``PrismStore``: gets by address and searches over namespaces.

Design:
- A get is one store read by id for all the keys of a batch; a quarantined item is never
  served.
- A search is two store calls whatever the number of namespaces: the registry read, then one
  query over the items of those namespaces (``user_id`` in the list, an indexed match).
  Without a query the items come in ``InMemoryStore``'s order (namespaces in the order they
  became non-empty, keys in the order they were created). With a query PRISM's hybrid search
  ranks the hits and ``score`` is the cosine similarity of the query and the item's vector,
  clipped to [0, 1]; unindexed matches fill up the page as in ``InMemoryStore`` unless a
  ``score_threshold`` is given. Value filters are applied in Python, exactly.
"""

from __future__ import annotations

from typing import Any

from langchain_prism._namespaces import (
    decode_value,
    encode_namespace,
    item_record_id,
    matches_filter,
)
from langchain_prism._store_context import StoreContext
from langchain_prism._store_registry import NamespaceRegistry
from langchain_prism._store_values import to_item
from prism_memory.records import MemoryRecord, Trust

try:
    from langgraph.store.base import Item, SearchOp
except ImportError as exc:  # pragma: no cover - run in a subprocess by test_packaging
    raise ImportError("PrismStore needs langgraph: pip install 'prism-memory[langgraph]'") from exc

__all__ = ["ItemReader"]


class ItemReader:
    """Answers the gets and searches of one store (``ctx``), listing namespaces by ``registry``.

    Example::

        reader = ItemReader(ctx, NamespaceRegistry(ctx))
        reader.get_many([(("docs",), "a")])                  # [Item(...)] or [None]
        reader.search(SearchOp(("docs",), query="hello"), threshold=None)
    """

    def __init__(self, ctx: StoreContext, registry: NamespaceRegistry) -> None:
        self.ctx = ctx
        self.registry = registry

    def get_many(self, keys: list[tuple[tuple[str, ...], str]]) -> list[Item | None]:
        """The items at ``keys``: one store read for all of them."""
        ctx = self.ctx
        ids = [item_record_id(ctx.agent_id, ns, key) for ns, key in keys]
        got = ctx.memory.record_store.get(list(dict.fromkeys(ids)), ctx.store_scope())
        found = {r.id: r for r in got}
        out: list[Item | None] = []
        for rid, (ns, key) in zip(ids, keys):
            r = found.get(rid)
            visible = (
                r is not None
                and ctx.is_item(r, ns, key)
                and r.provenance.trust != Trust.QUARANTINED
            )
            out.append(to_item(r) if visible and r is not None else None)
        return out

    def _matching(
        self,
        namespaces: dict[tuple[str, ...], int],
        flt: dict[str, Any] | None,
        extra: dict[str, Any],
    ) -> list[MemoryRecord]:
        """The items of ``namespaces`` whose value passes ``flt``, in ``InMemoryStore``'s
        order: namespaces in the order they became non-empty, then keys in creation order."""
        ctx = self.ctx
        order = {encode_namespace(ns): seq for ns, seq in namespaces.items()}
        records = [
            r
            for r in ctx.pages(ctx.store_scope(), ctx.item_filter(namespaces, extra))
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

    def search(self, op: SearchOp, threshold: float | None) -> list[Item]:
        """The answer to a ``SearchOp``; ``threshold`` (``None``: the store's) drops query hits
        scored below it."""
        # search prefixes are literal (as in LangGraph's own stores); "*" is a wildcard only in
        # list_namespaces match conditions, so a tenant named "*" sees only its own items
        namespaces = self.registry.namespaces_under(tuple(op.namespace_prefix))
        if not namespaces:
            return []
        if not op.query:
            found = self._matching(namespaces, op.filter, {})
            return [to_item(r, search=True) for r in found[op.offset : op.offset + op.limit]]
        need = op.offset + op.limit
        threshold = self.ctx.score_threshold if threshold is None else threshold
        extra: dict[str, Any] = {"metadata.indexed": "yes"}
        unscored: list[MemoryRecord] | None = None
        if op.filter:  # the filter is applied here, exactly: the query ranks what passes it
            passing = self._matching(namespaces, op.filter, {})
            extra["id"] = [r.id for r in passing if r.metadata.get("indexed") != "no"]
            unscored = [r for r in passing if r.metadata.get("indexed") == "no"]
        ranked: list[tuple[float | None, MemoryRecord]] = []
        if need > 0 and extra.get("id", True):
            hits = self.ctx.memory.record_store.query(
                op.query,
                self.ctx.store_scope(),
                self.ctx.item_filter(namespaces, extra),
                limit=need,
                score_threshold=threshold,
            )
            ranked = [(h.score, h.record) for h in hits[max(op.offset, 0) : need]]
        if len(ranked) < op.limit and threshold is None:
            # as InMemoryStore: unindexed matches fill up the page, in order, from the first
            if unscored is None:
                unscored = self._matching(namespaces, None, {"metadata.indexed": "no"})
            ranked.extend((None, r) for r in unscored[: op.limit - len(ranked)])
        return [to_item(r, score, search=True) for score, r in ranked]
