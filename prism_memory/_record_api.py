"""``RecordAPI``: the record-level part of :class:`~prism_memory.Memory` — add, get, list,
count, update, release, stats.

Design:
- ``Memory``'s public methods are the one place the parameters and their docs are written: each
  checks the memory is open, validates the scope and hands a method here that :class:`Scope`
  with the call's own arguments (or a small frozen request: :class:`RecordQuery`,
  :class:`RecordEdit`); the store applies the scope as a filter itself.
- A record's id is derived from its text: a re-add is an upsert that keeps ``created_at`` and
  access statistics (:meth:`RecordAPI.merge_existing`), taken under the scope lock.
- ``stats`` of a scope reports that scope's figures only; the engine's point counts cover
  every tenant and appear only in the store-wide report (``all_scopes=True``).
- It holds the :class:`~prism_memory.engine.Engine` only; writes go through
  ``engine.write_records``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._validation import check_json_dict, check_text, coerce_enum
from ._version_api import new_version
from .engine import Engine
from .errors import NotFoundError, StoreError, ValidationError
from .records import (
    Kind,
    Layer,
    MemoryRecord,
    Scope,
    Source,
    Trust,
    is_record_id,
    next_content_id,
    normalize_text,
    utcnow,
)
from .stores import RecordFilter, parse_filters

__all__ = ["RecordAPI", "RecordEdit", "RecordPage", "RecordQuery"]

#: engine figures that count every tenant's points (never part of a scope's stats)
STORE_WIDE_COUNTS = ("points", "indexed_vectors", "segments")

log = logging.getLogger("prism_memory")

_CHAIN_PROBE = 4
_MAX_CHAIN_ROUNDS = 16


def _chain(first: str, n: int) -> list[str]:
    """``first`` and the next ``n - 1`` ids of its content-id chain."""
    out = [first]
    while len(out) < n:
        out.append(next_content_id(out[-1]))
    return out


class RecordPage(list[MemoryRecord]):
    """A page of records (a plain list) plus ``next_cursor`` for the following page (``None`` at the end)."""

    def __init__(
        self, records: Iterable[MemoryRecord] = (), next_cursor: str | None = None
    ) -> None:
        super().__init__(records)
        self.next_cursor = next_cursor


@dataclass(frozen=True)
class RecordQuery:
    """What a ``Memory.list`` call asks for besides its scope (validated by :meth:`RecordAPI.list`)."""

    layer: Layer | str | None
    kind: Kind | str | None
    limit: int
    cursor: str | None
    filters: dict[str, Any] | None
    include_history: bool
    trust: Trust | str | None


@dataclass(frozen=True)
class RecordEdit:
    """The changes of a ``Memory.update`` call (validated by :meth:`RecordAPI.update`)."""

    text: str | None
    metadata: dict[str, Any] | None
    importance: float | None
    kind: Kind | str | None
    reason: str | None


#: the keywords an ``add_many`` item may give (``Memory.add``'s, the scope's aside)
_ITEM_KEYS = frozenset(
    {
        "text",
        "kind",
        "layer",
        "metadata",
        "event_time",
        "task_id",
        "subgoal_id",
        "entities",
        "importance",
        "source",
        "source_ids",
    }
)


def _items(items: Any) -> Sequence[Any]:
    if not isinstance(items, (list, tuple)):
        raise ValidationError(
            f"items must be a list of strings or dicts, got {type(items).__name__}"
        )
    return items


class RecordAPI:
    """add / add_many / get / list / count / update / release / stats over an engine."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def add(self, record: MemoryRecord) -> MemoryRecord:
        """Write a record built by ``Memory.add``; a re-add of its text in its scope is an
        upsert of the stored record (:meth:`merge_existing`)."""
        with self.engine.scope_lock(record.scope):
            self.merge_existing([record], record.scope)
            return self.engine.write_records([record])[0]

    def add_many(
        self, items: Sequence[str | dict[str, Any]], scope: Scope, defaults: Mapping[str, Any]
    ) -> list[MemoryRecord]:
        """Validate every item into a record (``defaults`` fill the keywords an item leaves
        out), then write them in one batch; one bad item writes nothing."""
        records = [
            self._item_record(i, item, scope, defaults) for i, item in enumerate(_items(items))
        ]
        # one record per id: the last spelling of a repeated text wins, as a re-add would
        by_id = {r.id: r for r in records}
        order = [r.id for r in records]
        unique = list(by_id.values())
        with self.engine.scope_lock(scope):
            self.merge_existing(unique, scope)  # may move a record to another id
            self.engine.write_records(unique)
        return [by_id[i] for i in order]

    def _item_record(
        self, i: int, item: Any, scope: Scope, defaults: Mapping[str, Any]
    ) -> MemoryRecord:
        """Item ``i`` of an ``add_many`` batch as a record (errors name the item)."""
        spec: dict[str, Any]
        if isinstance(item, str):
            spec = {"text": item}
        elif isinstance(item, dict):
            spec = dict(item)
            unknown = set(spec) - _ITEM_KEYS
            if unknown:
                raise ValidationError(
                    f"item {i}: unknown keys {sorted(unknown)}; allowed: {sorted(_ITEM_KEYS)}"
                )
        else:
            raise ValidationError(f"item {i} must be a string or a dict, got {type(item).__name__}")
        try:
            text = spec.pop("text")
        except KeyError:
            raise ValidationError(f"item {i} has no 'text'") from None
        for key, value in defaults.items():
            spec.setdefault(key, value)
        try:
            return self.engine.build_record(text, scope, **spec)
        except ValidationError as exc:
            raise ValidationError(f"item {i}: {exc}") from None

    def merge_existing(self, records: list[MemoryRecord], scope: Scope) -> None:
        """Keep ``created_at``/stats of records that already exist (re-adds are upserts).

        A record's id is derived from its text, but ``update(text=...)`` keeps the id, and a
        summary, task or keyed record may sit at an id some text hashes to: a record found at
        the id with *another* text is never overwritten. The new record takes the next id of
        its chain (:func:`~prism_memory.records.next_content_id`) instead; the chain is probed
        a few ids at a time, so an add finds the record of its text even past a deleted one.
        """
        self.engine.redact(records)  # the id is derived from the redacted text: look that one up
        pending = list(records)
        for _ in range(_MAX_CHAIN_ROUNDS):
            chains = {r.id: _chain(r.id, _CHAIN_PROBE) for r in pending}
            found = {
                x.id: x
                for x in self.engine.store.get([i for c in chains.values() for i in c], scope)
            }
            left: list[MemoryRecord] = []
            for r in pending:
                chain = chains[r.id]
                text = normalize_text(r.text)
                same = [i for i in chain if i in found and normalize_text(found[i].text) == text]
                free = [i for i in chain if i not in found]
                if same:
                    r.id = same[0]
                    old = found[same[0]]
                    r.created_at = old.created_at
                    r.access_count = old.access_count
                    r.last_accessed = old.last_accessed
                    r.utility = old.utility
                    r.metadata = {**old.metadata, **r.metadata}
                elif free:
                    r.id = free[0]
                else:
                    r.id = next_content_id(chain[-1])
                    left.append(r)
            pending = left
            if not pending:
                return
        raise StoreError(
            f"{len(pending)} memories found no free id after {_MAX_CHAIN_ROUNDS * _CHAIN_PROBE} "
            "records with other texts at their ids; this only happens when many updated "
            "records share an original text: delete some of them and add again"
        )

    def get(self, record_id: str, scope: Scope) -> MemoryRecord:
        """The record with this id in the scope, or :class:`NotFoundError` naming the scope."""
        found = self.engine.store.get([str(record_id)], scope)
        if not found:
            raise NotFoundError(
                f"no memory {record_id!r} in scope {scope.as_dict()}; list(...) shows the ids there"
            )
        return found[0]

    def list(self, scope: Scope, query: RecordQuery) -> RecordPage:
        """One page of the scope's records matching ``query``, in id order."""
        layer, kind, limit, cursor = query.layer, query.kind, query.limit, query.cursor
        filters, include_history, trust = query.filters, query.include_history, query.trust
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1 or limit > 10_000:
            raise ValidationError(f"limit must be an integer in [1, 10000], got {limit!r}")
        level = None if trust is None else coerce_enum(Trust, trust, "trust")
        flt = self.engine.visible_filter(
            include_history=include_history, include_quarantined=level == Trust.QUARANTINED
        ) & parse_filters(filters)
        if level is not None:
            flt = flt & RecordFilter.eq("trust", level.value)
        if layer is not None:
            flt = flt & RecordFilter.eq("layer", coerce_enum(Layer, layer, "layer").value)
        if kind is not None:
            flt = flt & RecordFilter.eq("kind", coerce_enum(Kind, kind, "kind").value)
        if cursor is not None and not is_record_id(cursor):
            raise ValidationError(
                f"cursor {cursor!r} is not a cursor from list(); pass page.next_cursor of the "
                "previous page, or None for the first page"
            )
        records, nxt = self.engine.store.scroll(scope, flt, limit=limit, cursor=cursor)
        return RecordPage(records, nxt)

    def count(self, scope: Scope, layer: Layer | str | None, include_history: bool) -> int:
        """How many records of the scope (of ``layer``; current ones only unless
        ``include_history``) the store holds, quarantined ones included."""
        flt = self.engine.visible_filter(include_history=include_history, include_quarantined=True)
        if layer is not None:
            flt = flt & RecordFilter.eq("layer", coerce_enum(Layer, layer, "layer").value)
        return self.engine.store.count(scope, flt)

    def update(self, record_id: str, scope: Scope, edit: RecordEdit) -> MemoryRecord:
        """Apply ``edit`` to the record under the scope lock: a new text makes a new version
        (the old state kept for ``history``), anything else changes the record in place."""
        text, metadata, importance, kind, reason = (
            edit.text,
            edit.metadata,
            edit.importance,
            edit.kind,
            edit.reason,
        )
        new_text = check_text(text) if text is not None else None
        extra = check_json_dict(metadata, "metadata") if metadata is not None else None
        if importance is not None and not (
            isinstance(importance, (int, float))
            and not isinstance(importance, bool)
            and 0 <= importance <= 1
        ):
            raise ValidationError(f"importance must be in [0, 1], got {importance!r}")
        new_kind = coerce_enum(Kind, kind, "kind") if kind is not None else None
        if reason is not None:
            reason = check_text(reason, "reason")
        with self.engine.scope_lock(scope):
            record = self.get(record_id, scope)

            def apply(r: MemoryRecord) -> None:
                if new_text is not None:
                    r.text = new_text
                if extra is not None:
                    r.metadata = {**r.metadata, **extra}
                if importance is not None:
                    r.importance = float(importance)
                if new_kind is not None:
                    r.kind = new_kind
                r.updated_at = utcnow()

            if new_text is not None and new_text != record.text:
                return new_version(
                    self.engine, record, apply, event="updated", reason=reason or "update()"
                )
            apply(record)
            return self.engine.write_records([record])[0]

    def release(self, record_id: str, scope: Scope, note: str | None) -> MemoryRecord:
        """Lift the quarantine of a record (trust back to its source's level), recording the
        release and ``note`` in its provenance."""
        if note is not None:
            check_text(note, "note")
            if self.engine.config.safety.redact_pii:
                from .safety import redact

                note = redact(note)
        with self.engine.scope_lock(scope):
            record = self.get(record_id, scope)
            if record.provenance.trust != Trust.QUARANTINED:
                raise ValidationError(
                    f"memory {record_id!r} is not quarantined (trust: "
                    f"{record.provenance.trust.value}); list(trust='quarantined') shows those"
                )
            own = record.provenance.source in (Source.USER, Source.SYSTEM)
            record.provenance.trust = Trust.TRUSTED if own else Trust.UNTRUSTED
            record.provenance.released_at = utcnow()
            record.provenance.reason = (
                f"released{f' ({note})' if note else ''}; had been quarantined: "
                f"{record.provenance.reason or 'no reason recorded'}"
            )
            self.engine.update(
                [record.id],
                scope,
                {"provenance": record.provenance.model_dump(mode="json")},
            )
        log.info("released quarantined memory %s", record.id)
        return record

    # -- lifecycle ----------------------------------------------------------------------
    def stats(self, scope: Scope | None) -> dict[str, Any]:
        """The scope's counts per layer / kind / status / trust, and what the engine is; for
        ``None`` (every scope) the store's point / vector / segment counts instead: those cover
        every tenant, so they are no scope's figures."""
        store = self.engine.store
        if scope is None:
            info = store.info()
            return {
                "scope": {},
                "store_total": {k: info[k] for k in STORE_WIDE_COUNTS if k in info},
                "engine": {k: v for k, v in info.items() if k not in STORE_WIDE_COUNTS},
            }
        engine = {k: v for k, v in store.info().items() if k not in STORE_WIDE_COUNTS}
        return {
            "scope": scope.as_dict(),
            "total": store.count(scope),
            "layers": dict(store.facet("layer", scope)),
            "kinds": dict(store.facet("kind", scope)),
            "status": dict(store.facet("status", scope)),
            "trust": dict(store.facet("trust", scope)),
            "engine": engine,
        }
