"""The namespace registry of ``PrismStore``: which namespaces hold items, and since when.

Design:
- For each non-empty namespace outside the ``user_namespace`` template, one entry per prefix
  of it (``()`` and itself included) in the scope ``user_id = "nsp:" + encode(prefix)``, with
  ``seq`` (when the namespace last became non-empty). The namespaces under a prefix are one
  indexed scope read; nothing is cached per process.
- User namespaces have no entries: they are read from their items (a facet of ``user_id``), so
  a user's deletion leaves nothing to list.
- Entries left behind by a scope deleted by hand are dropped when read (:meth:`live`); a delete
  that empties a namespace removes its entries and counts again, putting them back if a
  concurrent put landed (:meth:`unregister_if_empty`).
"""

from __future__ import annotations

from collections.abc import Iterable

from langchain_prism._namespaces import (
    USER_PLACEHOLDER,
    encode_namespace,
    fill_user_namespace,
    matches_namespace,
    prefix_user_id,
    registry_record_id,
    truncate_namespace,
)
from langchain_prism._store_context import StoreContext
from langchain_prism._store_values import ADDRESS, FACET, ITEM, NAMESPACE, next_seq, prefixes
from prism_memory.records import MemoryRecord, Scope
from prism_memory.stores.filters import parse_filters

try:
    from langgraph.store.base import ListNamespacesOp
except ImportError as exc:  # pragma: no cover - run in a subprocess by test_packaging
    raise ImportError("PrismStore needs langgraph: pip install 'prism-memory[langgraph]'") from exc

__all__ = ["NamespaceRegistry"]


class NamespaceRegistry:
    """The registry entries of one store (``ctx``) and the namespaces they list.

    Example::

        registry = NamespaceRegistry(ctx)
        registry.namespaces_under(("docs",))     # {("docs", "a"): <seq>, ...}
    """

    def __init__(self, ctx: StoreContext) -> None:
        self.ctx = ctx

    def entries(self, namespace: tuple[str, ...], seq: int) -> list[MemoryRecord]:
        """The registry records of ``namespace`` (none for a user namespace)."""
        ctx = self.ctx
        if ctx.user_of(namespace) is not None:
            return []  # a user namespace is listed from its items (the user's scope)
        return [
            ctx.memory.build_record(
                "namespace " + encode_namespace(namespace),
                Scope.of(user_id=prefix_user_id(prefix), agent_id=ctx.agent_id),
                kind="fact",
                layer="working",
                source="system",
                metadata={
                    "prism_store": NAMESPACE,
                    "ns": encode_namespace(namespace),
                    "namespace": list(namespace),
                    "seq": seq,
                },
                record_id=registry_record_id(ctx.agent_id, prefix, namespace),
            )
            for prefix in prefixes(namespace)
        ]

    def user_namespace_seq(self, namespace: tuple[str, ...]) -> int | None:
        """When a user namespace became non-empty (``None`` if it is empty): its items carry
        it, as the registry entry does for other namespaces."""
        ctx = self.ctx
        page, _ = ctx.memory.record_store.scroll(
            Scope.of(**ctx.scope_of(namespace)), ctx.ns_filter([namespace]), limit=1
        )
        if not page:
            return None
        meta = page[0].metadata
        return int(meta.get("ns_seq") or meta.get("seq") or 0) or None

    def unregister_if_empty(self, namespace: tuple[str, ...], seq: int | None) -> None:
        """Drop the registry entries of a namespace left without items. A put from another
        store may land between the count and the delete: count again and put them back."""
        ctx = self.ctx
        if ctx.user_of(namespace) is not None:
            return  # no registry entries to drop
        scope = Scope.of(**ctx.scope_of(namespace))
        records = ctx.memory.record_store
        if records.count(scope) > 0:
            return
        ids = [registry_record_id(ctx.agent_id, p, namespace) for p in prefixes(namespace)]
        records.delete(ids, ctx.store_scope())
        if records.count(scope) > 0:
            entries = self.entries(namespace, seq if seq is not None else next_seq())
            vec = ctx.fixed_vector()
            records.write(
                keep_metadata=ADDRESS,
                records=entries,
                dense={e.id: vec for e in entries},
                screen=False,
            )

    def namespaces_under(self, prefix: tuple[str, ...]) -> dict[tuple[str, ...], int]:
        """Every non-empty namespace under ``prefix`` (whole segments, literal) and the order it
        became non-empty in: one read of the registry scope of that prefix."""
        scope = Scope.of(user_id=prefix_user_id(prefix), agent_id=self.ctx.agent_id)
        out: dict[tuple[str, ...], int] = {}
        for r in self.ctx.pages(scope, None):  # the scope holds registry entries only
            ns = tuple(r.metadata.get("namespace") or ())
            if (
                r.metadata.get("prism_store") == NAMESPACE
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
        ctx = self.ctx
        template = ctx.user_namespace
        if template is None or len(prefix) > len(template):
            return {}
        pos = template.index(USER_PLACEHOLDER)
        if any(seg != template[i] for i, seg in enumerate(prefix) if i != pos):
            return {}
        flt = parse_filters({"metadata.prism_store": ITEM, "metadata.user_ns": "yes"})
        store = ctx.memory.record_store
        if len(prefix) > pos:
            user = prefix[pos]
            scope = Scope.of(user_id=user, agent_id=ctx.agent_id)
            users = [user] if user and store.count(scope, flt) > 0 else []
        else:
            users = [u for u, n in store.facet("user_id", ctx.store_scope(), flt, limit=FACET)]
        return {fill_user_namespace(template, u): 0 for u in users}

    def live(self, namespaces: Iterable[tuple[str, ...]]) -> list[tuple[str, ...]]:
        """The registry's namespaces that still hold items. A scope deleted by hand (e.g.
        ``memory.delete_all(**store.scope_of(ns))``) leaves registry entries behind: they are
        dropped here, so ``list_namespaces`` never lists a namespace with no items."""
        ctx = self.ctx
        out: list[tuple[str, ...]] = []
        for ns in namespaces:
            if ctx.user_of(ns) is not None:
                out.append(ns)  # read from its items
            elif ctx.memory.record_store.count(Scope.of(**ctx.scope_of(ns)), ctx.ns_filter([ns])):
                out.append(ns)
            else:
                with ctx.lock:
                    self.unregister_if_empty(ns, None)
        return out

    def list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        """The answer to a ``ListNamespacesOp``, as ``InMemoryStore`` gives it."""
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
        found = self.namespaces_under(literal)
        matching = self.live(ns for ns in found if matches_namespace(ns, prefix, suffix))
        out = sorted({truncate_namespace(ns, op.max_depth) for ns in matching})
        return out[op.offset : op.offset + op.limit]
