"""The puts of ``PrismStore``: a batch's puts and deletions written as item records.

Design:
- One record per (agent_id, namespace, key), its id deterministic over all three, so a put is
  an upsert that keeps ``created_at`` and the key's creation order (``seq``); a ``None`` value
  deletes the record.
- A batch's puts (deduplicated by the caller, the last one winning) are written in one
  sequence under the store's lock: order the namespaces (registry entry, items, or next in
  line), build the item records, delete, write the items and the entries of new namespaces,
  check the entries of known ones after the write (putting them back if another store removed
  them meanwhile), drop the entries of emptied namespaces.
- With ``screen=True`` the items are screened before the write; a refused put over a live value
  is kept for audit beside it under its own id, and the batch then raises
  ``QuarantinedError``. The registry is never screened.
"""

from __future__ import annotations

from langchain_prism._namespaces import (
    encode_namespace,
    encode_value,
    item_record_id,
    registry_record_id,
)
from langchain_prism._store_context import StoreContext
from langchain_prism._store_registry import NamespaceRegistry
from langchain_prism._store_values import (
    ADDRESS,
    ITEM,
    NAMESPACE,
    REFUSED,
    index_text,
    next_seq,
    ns_time,
    refused_error,
    refused_record_id,
)
from prism_memory.records import MemoryRecord, Scope, Trust
from prism_memory.safety import redact_value

try:
    from langgraph.store.base import PutOp
except ImportError as exc:  # pragma: no cover - run in a subprocess by test_packaging
    raise ImportError("PrismStore needs langgraph: pip install 'prism-memory[langgraph]'") from exc

__all__ = ["PutWriter"]

Puts = dict[tuple[tuple[str, ...], str], PutOp]


class PutWriter:
    """Writes a batch's puts for one store (``ctx``), keeping ``registry`` right.

    Example::

        writer = PutWriter(ctx, NamespaceRegistry(ctx))
        writer.apply({(("docs",), "a"): PutOp(("docs",), "a", {"text": "hello"})})
    """

    def __init__(self, ctx: StoreContext, registry: NamespaceRegistry) -> None:
        self.ctx = ctx
        self.registry = registry

    def apply(self, puts: Puts) -> None:
        """Write a batch's puts: order the namespaces, build the item records (deletions for
        ``None`` values), delete, write, drop registry entries of emptied namespaces; then
        refuse (``QuarantinedError``) a put the screen quarantined."""
        ctx = self.ctx
        agent = ctx.agent_id
        namespaces = list(dict.fromkeys(ns for ns, _ in puts))
        with ctx.lock:
            ids = [item_record_id(agent, ns, key) for ns, key in puts]
            ids += [registry_record_id(agent, ns, ns) for ns in namespaces]
            existing = {r.id: r for r in ctx.memory.record_store.get(ids, ctx.store_scope())}
            ns_seq, registered = self._namespace_order(namespaces, existing)
            items, kept, deleted = self._item_records(puts, existing, ns_seq)
            if deleted:
                gone = [rid for rids in deleted.values() for rid in rids]
                ctx.memory.record_store.delete(gone, ctx.store_scope())
            written = self._write(items, ns_seq, registered, kept)
            refilled = {tuple(r.metadata["namespace"]) for r in items}
            for ns in deleted:
                if ns not in refilled:
                    self.registry.unregister_if_empty(ns, ns_seq.get(ns))
        for record in written:
            if record.provenance.trust == Trust.QUARANTINED:
                raise refused_error(record)

    def _namespace_order(
        self, namespaces: list[tuple[str, ...]], existing: dict[str, MemoryRecord]
    ) -> tuple[dict[tuple[str, ...], int], set[tuple[str, ...]]]:
        """Each namespace's order key (from its registry entry or its items; a new one's
        next in line) in the order the batch first touches them, as ``InMemoryStore``, and
        the namespaces already registered."""
        ns_seq: dict[tuple[str, ...], int] = {}
        registered: set[tuple[str, ...]] = set()
        for ns in namespaces:
            entry = existing.get(registry_record_id(self.ctx.agent_id, ns, ns))
            if self.ctx.user_of(ns) is not None:  # no registry: its items carry the order
                live = self.registry.user_namespace_seq(ns)
                ns_seq[ns] = live if live is not None else next_seq()
                registered.add(ns)
            elif entry is not None and entry.metadata.get("prism_store") == NAMESPACE:
                ns_seq[ns] = int(entry.metadata.get("seq") or ns_time(entry))
                registered.add(ns)
            else:
                ns_seq[ns] = next_seq()
        return ns_seq, registered

    def _item_records(
        self,
        puts: Puts,
        existing: dict[str, MemoryRecord],
        ns_seq: dict[tuple[str, ...], int],
    ) -> tuple[list[MemoryRecord], set[str], dict[tuple[str, ...], list[str]]]:
        """The records of the puts with a value; the ids whose current value a refused put
        must not replace; the ids to delete (``None`` values) by namespace."""
        items: list[MemoryRecord] = []
        kept: set[str] = set()
        deleted: dict[tuple[str, ...], list[str]] = {}
        for (ns, key), op in puts.items():
            rid = item_record_id(self.ctx.agent_id, ns, key)
            if op.value is None:
                deleted.setdefault(ns, []).append(rid)
                continue
            old = existing.get(rid)
            if old is not None and (
                not self.ctx.is_item(old, ns, key) or old.provenance.trust == Trust.QUARANTINED
            ):
                old = None  # a quarantined item was never served: this put creates the key
            if old is not None:
                kept.add(rid)
            items.append(self._item_record(ns, key, op, old, ns_seq[ns]))
        return items, kept, deleted

    def _item_record(
        self,
        namespace: tuple[str, ...],
        key: str,
        op: PutOp,
        old: MemoryRecord | None,
        ns_seq: int,
    ) -> MemoryRecord:
        ctx = self.ctx
        value = dict(op.value or {})
        if ctx.memory.config.safety.redact_pii:  # before the text is built from it
            value = redact_value(value)
        encoded = encode_value(value)  # refuses what would not come back as it went in
        if op.index is False:
            text, indexed = "", False
        else:
            text, indexed = index_text(
                value,
                ctx.index_fields if op.index is None else op.index,
                labels=ctx.user_of(namespace) is None,
            )
        seq = old.metadata.get("seq") if old is not None else None
        record: MemoryRecord = ctx.memory.build_record(
            text or key,
            Scope.of(**ctx.scope_of(namespace)),
            kind="fact",
            layer="semantic",
            source=ctx.source,
            metadata={
                "prism_store": ITEM,
                "ns": encode_namespace(namespace),
                "namespace": list(namespace),
                "key": key,
                "indexed": "yes" if indexed else "no",
                "seq": int(seq) if isinstance(seq, int) else next_seq(),
                "ns_seq": ns_seq,
                "user_ns": "yes" if ctx.user_of(namespace) is not None else "no",
            },
            record_id=item_record_id(ctx.agent_id, namespace, key),
        )
        # set after the build: the value's 32 levels were checked as given (check_op), and
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
        and it puts them back (:meth:`NamespaceRegistry.unregister_if_empty`)."""
        if not items:
            return []
        ctx, records = self.ctx, self.ctx.memory.record_store
        if ctx.screen:  # a refused put changes nothing: its value goes beside the live one
            items = records.screen(items, keep_metadata=ADDRESS)
            for r in items:
                if r.provenance.trust == Trust.QUARANTINED and r.id in (kept or set()):
                    r.id = refused_record_id(r.id)
                    r.metadata["prism_store"] = REFUSED
        vec = ctx.fixed_vector()
        namespaces = list(dict.fromkeys(tuple(r.metadata["namespace"]) for r in items))
        entries = [
            e
            for ns in namespaces
            if ns not in registered
            for e in self.registry.entries(ns, ns_seq[ns])
        ]
        dense = {r.id: vec for r in items if r.metadata["indexed"] == "no"}
        dense.update((e.id, vec) for e in entries)
        written = items  # screened above (when screening); the registry never is
        records.write(keep_metadata=ADDRESS, records=[*items, *entries], dense=dense, screen=False)
        known = [ns for ns in namespaces if ns in registered and ctx.user_of(ns) is None]
        ids = [registry_record_id(ctx.agent_id, ns, ns) for ns in known]
        present = {r.id for r in records.get(ids, ctx.store_scope())} if ids else set()
        lost = [
            e
            for ns, rid in zip(known, ids)
            if rid not in present
            for e in self.registry.entries(ns, ns_seq[ns])
        ]
        if lost:
            records.write(
                keep_metadata=ADDRESS, records=lost, dense={e.id: vec for e in lost}, screen=False
            )
        return written
