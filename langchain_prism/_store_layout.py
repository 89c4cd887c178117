"""The record layout of ``PrismStore`` over time: earlier layouts are migrated once.

Design:
- A layout marker (one record read by id, per agent_id, layout number and user-namespace
  template) says whether this store's records are in the current layout; the check runs once
  per store object, under the store's lock.
- Layout 1 (ids without ``agent_id``, a single registry entry per namespace) is rewritten in
  the current layout: new ids, the same vectors, times and trust; ``created_at`` gives the
  order keys (:func:`legacy_items`, :func:`in_current_layout` are pure).
- Layout 3 moves the items of ``user_namespace`` namespaces written under a store-only scope
  into their user's scope and drops their registry entries. Both steps are idempotent: an
  interrupted migration is finished by the next store.
"""

from __future__ import annotations

import json
import logging
import uuid

from langchain_prism._namespaces import (
    encode_value,
    item_record_id,
    namespace_user_id,
    registry_record_id,
)
from langchain_prism._store_context import StoreContext
from langchain_prism._store_registry import NamespaceRegistry
from langchain_prism._store_values import (
    ADDRESS,
    ITEM,
    LAYOUT,
    LAYOUT_NS,
    LAYOUT_USER_ID,
    LEGACY_REGISTRY_USER_ID,
    ns_time,
    prefixes,
)
from prism_memory.records import MemoryRecord, Scope
from prism_memory.stores.filters import Condition, RecordFilter, parse_filters

__all__ = ["LayoutMigration", "in_current_layout", "legacy_items"]

log = logging.getLogger("prism_memory")


def legacy_items(
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
            since[ns] = min(since.get(ns, ns_time(r)), ns_time(r))
            if not is_entry:
                items.append(r)
    return items, since


def in_current_layout(
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
            "prism_store": ITEM,
            "value": encode_value(dict(r.metadata.get("value") or {})),
            "indexed": r.metadata.get("indexed", "yes"),
            "seq": ns_time(r),
        }
        moved.append(r.model_copy(update={"id": new_id, "metadata": meta}))
        if r.id in vectors:
            dense[new_id] = vectors[r.id]
    return moved, dense


class LayoutMigration:
    """Brings one store's records (``ctx``) to the current layout, once per store object.

    Example::

        layout = LayoutMigration(ctx, NamespaceRegistry(ctx))
        layout.check()        # a no-op after the first call
    """

    def __init__(self, ctx: StoreContext, registry: NamespaceRegistry) -> None:
        self.ctx = ctx
        self.registry = registry
        self.checked = False

    def check(self) -> None:
        """Once per store object: migrate this agent_id's first-layout records if a layout
        marker does not say it was done (one read by id)."""
        if self.checked:
            return
        ctx = self.ctx
        with ctx.lock:
            if self.checked:
                return
            scope = Scope.of(user_id=LAYOUT_USER_ID, agent_id=ctx.agent_id)
            marker_id = str(
                uuid.uuid5(
                    LAYOUT_NS, json.dumps([ctx.agent_id, LAYOUT, list(ctx.user_namespace or ())])
                )
            )
            if not ctx.memory.record_store.get([marker_id], scope):
                self._migrate()
                self._move_user_namespaces()
                marker = ctx.memory.build_record(
                    f"PrismStore layout {LAYOUT}",
                    scope,
                    kind="fact",
                    layer="working",
                    source="system",
                    metadata={"prism_store": "layout", "layout": LAYOUT},
                    record_id=marker_id,
                )
                ctx.memory.record_store.write(
                    keep_metadata=ADDRESS,
                    records=[marker],
                    dense={marker_id: ctx.fixed_vector()},
                    screen=False,
                )
            self.checked = True

    def _move_user_namespaces(self) -> None:
        """Layout 3: items of ``user_namespace`` namespaces written under a store-only scope
        (``ns:...``) move into their user's scope (same ids and vectors, so each upsert
        replaces the point), and their registry entries go: the user's memory now holds them.
        Idempotent, like :meth:`_migrate`."""
        ctx = self.ctx
        if ctx.user_namespace is None:
            return
        records = ctx.memory.record_store
        earlier = parse_filters({"metadata.prism_store": ITEM, "metadata.user_ns": {"$ne": "yes"}})
        by_ns: dict[tuple[str, ...], list[MemoryRecord]] = {}
        for r in ctx.pages(ctx.store_scope(), earlier):  # a one-time scan of the items
            names = r.metadata.get("namespace")
            ns = tuple(names) if isinstance(names, list) else ()
            if ctx.user_of(ns) is not None and r.user_id == namespace_user_id(ns):
                by_ns.setdefault(ns, []).append(r)
        for ns, items in by_ns.items():
            old_scope = Scope.of(user_id=namespace_user_id(ns), agent_id=ctx.agent_id)
            seq = min(int(r.metadata.get("seq") or 0) for r in items)
            new_scope = Scope.of(user_id=ctx.user_of(ns), agent_id=ctx.agent_id)
            marks = {"ns_seq": seq, "user_ns": "yes"}
            moved = records.move([r.id for r in items], old_scope, new_scope, metadata=marks)
            entries = [registry_record_id(ctx.agent_id, p, ns) for p in prefixes(ns)]
            records.delete(entries, ctx.store_scope())
            log.info("PrismStore: %d items of a user namespace moved to its user", len(moved))

    def _migrate(self) -> None:
        """Rewrite this agent_id's first-layout records (no ``metadata.prism_store``) in the
        current layout: new ids, the same vectors, times and trust; ``created_at`` gives the
        order keys. Idempotent: an interrupted migration is finished by the next store."""
        ctx = self.ctx
        flt = RecordFilter(
            must=[Condition("metadata.prism_store", "empty")],
            must_not=[Condition("metadata.ns", "empty")],
        )
        legacy = list(ctx.pages(ctx.store_scope(), flt))
        if not legacy:
            return
        agent, records = ctx.agent_id, ctx.memory.record_store
        items, since = legacy_items(legacy)
        new_ids = [
            item_record_id(agent, tuple(r.metadata["namespace"]), r.metadata["key"]) for r in items
        ]
        entry_ids = [registry_record_id(agent, ns, ns) for ns in since]
        present = {r.id for r in records.get(new_ids + entry_ids, ctx.store_scope())}
        vectors = records.vectors([r.id for r in items], ctx.store_scope())
        moved, dense = in_current_layout(items, new_ids, present, vectors)
        live = {tuple(r.metadata["namespace"]) for r in items}
        entries = [
            e
            for ns in since
            if ns in live and registry_record_id(agent, ns, ns) not in present
            for e in self.registry.entries(ns, since[ns])
        ]
        dense.update((e.id, ctx.fixed_vector()) for e in entries)
        records.write(keep_metadata=ADDRESS, records=[*moved, *entries], dense=dense, screen=False)
        records.delete([r.id for r in legacy], ctx.store_scope())
        log.info("PrismStore(agent_id=%r): %d items moved to layout %d", agent, len(moved), LAYOUT)
