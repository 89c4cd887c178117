"""``RecordAPI``: the record-level part of :class:`~prism_memory.Memory` — add, get, list,
count, update, release, stats.

Design:
- Every method takes ``user_id`` / ``agent_id`` / ``session_id`` and validates them into a
  :class:`Scope` first; the store applies the scope as a filter itself.
- A record's id is derived from its text: a re-add is an upsert that keeps ``created_at`` and
  access statistics (:meth:`RecordAPI.merge_existing`), taken under the scope lock.
- ``stats`` of a scope reports that scope's figures only; the engine's point counts cover
  every tenant and appear only in the store-wide report (``all_scopes=True``).
- It holds the :class:`~prism_memory.engine.Engine` only; writes go through
  ``engine.write_records``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from ._validation import check_json_dict, check_text, coerce_enum
from ._version_api import new_version
from .engine import Engine
from .errors import NotFoundError, StoreError, ValidationError
from .records import (
    Entity,
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

__all__ = ["RecordAPI", "RecordPage"]

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


class RecordAPI:
    """add / add_many / get / list / count / update / release / stats over an engine."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def add(
        self,
        text: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        kind: Kind | str = Kind.FACT,
        layer: Layer | str = Layer.SEMANTIC,
        metadata: dict[str, Any] | None = None,
        event_time: datetime | None = None,
        task_id: str | None = None,
        subgoal_id: str | None = None,
        entities: Sequence[Entity | dict[str, str] | str] | None = None,
        importance: float | None = None,
        source: Source | str = Source.USER,
        source_ids: Sequence[str] | None = None,
    ) -> MemoryRecord:
        """Store one memory as is (no extraction) and return it."""
        self.engine.check_open()
        scope = Scope.of(user_id, agent_id, session_id)
        record = self.engine.build_record(
            text,
            scope,
            kind=kind,
            layer=layer,
            metadata=metadata,
            event_time=event_time,
            task_id=task_id,
            subgoal_id=subgoal_id,
            entities=entities,
            importance=importance,
            source=source,
            source_ids=source_ids,
        )
        with self.engine.scope_lock(scope):
            self.merge_existing([record], scope)
            return self.engine.write_records([record])[0]

    def add_many(
        self,
        items: Sequence[str | dict[str, Any]],
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        kind: Kind | str = Kind.FACT,
        layer: Layer | str = Layer.SEMANTIC,
        event_time: datetime | None = None,
        source: Source | str = Source.USER,
    ) -> list[MemoryRecord]:
        """Store many memories with one embedding batch and one upsert."""
        self.engine.check_open()
        scope = Scope.of(user_id, agent_id, session_id)
        if not isinstance(items, (list, tuple)):
            raise ValidationError(
                f"items must be a list of strings or dicts, got {type(items).__name__}"
            )
        allowed = {
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
        records: list[MemoryRecord] = []
        for i, item in enumerate(items):
            spec: dict[str, Any]
            if isinstance(item, str):
                spec = {"text": item}
            elif isinstance(item, dict):
                spec = dict(item)
                unknown = set(spec) - allowed
                if unknown:
                    raise ValidationError(
                        f"item {i}: unknown keys {sorted(unknown)}; allowed: {sorted(allowed)}"
                    )
            else:
                raise ValidationError(
                    f"item {i} must be a string or a dict, got {type(item).__name__}"
                )
            try:
                text = spec.pop("text")
            except KeyError:
                raise ValidationError(f"item {i} has no 'text'") from None
            spec.setdefault("kind", kind)
            spec.setdefault("layer", layer)
            spec.setdefault("event_time", event_time)
            spec.setdefault("source", source)
            try:
                records.append(self.engine.build_record(text, scope, **spec))
            except ValidationError as exc:
                raise ValidationError(f"item {i}: {exc}") from None
        # one record per id: the last spelling of a repeated text wins, as a re-add would
        by_id = {r.id: r for r in records}
        order = [r.id for r in records]
        unique = list(by_id.values())
        with self.engine.scope_lock(scope):
            self.merge_existing(unique, scope)  # may move a record to another id
            self.engine.write_records(unique)
        return [by_id[i] for i in order]

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

    def get(
        self,
        record_id: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> MemoryRecord:
        """The record with this id in the scope; :class:`NotFoundError` if there is none."""
        self.engine.check_open()
        scope = Scope.of(user_id, agent_id, session_id)
        found = self.engine.store.get([str(record_id)], scope)
        if not found:
            raise NotFoundError(
                f"no memory {record_id!r} in scope {scope.as_dict()}; list(...) shows the ids there"
            )
        return found[0]

    def list(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        layer: Layer | str | None = None,
        kind: Kind | str | None = None,
        limit: int = 100,
        cursor: str | None = None,
        filters: dict[str, Any] | None = None,
        include_history: bool = False,
        trust: Trust | str | None = None,
    ) -> RecordPage:
        """A page of the scope's records; pass ``page.next_cursor`` as ``cursor`` for the next."""
        self.engine.check_open()
        scope = Scope.of(user_id, agent_id, session_id)
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

    def count(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        layer: Layer | str | None = None,
        include_history: bool = True,
    ) -> int:
        """Number of records in the scope (all layers and states unless narrowed)."""
        self.engine.check_open()
        scope = Scope.of(user_id, agent_id, session_id)
        flt = self.engine.visible_filter(include_history=include_history, include_quarantined=True)
        if layer is not None:
            flt = flt & RecordFilter.eq("layer", coerce_enum(Layer, layer, "layer").value)
        return self.engine.store.count(scope, flt)

    def update(
        self,
        record_id: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        text: str | None = None,
        metadata: dict[str, Any] | None = None,
        importance: float | None = None,
        kind: Kind | str | None = None,
        reason: str | None = None,
    ) -> MemoryRecord:
        """Change a record (same id); a new text is re-embedded and the old one is kept as a
        version (``history``). Returns the new record."""
        self.engine.check_open()
        scope = Scope.of(user_id, agent_id, session_id)
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
            record = self.get(record_id, **scope.as_dict())

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

    def release(
        self,
        record_id: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        note: str | None = None,
    ) -> MemoryRecord:
        """Restore a quarantined record: it is read and recalled again from now on."""
        self.engine.check_open()
        scope = Scope.of(user_id, agent_id, session_id)
        if note is not None:
            check_text(note, "note")
            if self.engine.config.safety.redact_pii:
                from .safety import redact

                note = redact(note)
        with self.engine.scope_lock(scope):
            record = self.get(record_id, **scope.as_dict())
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
                {
                    "provenance": record.provenance.model_dump(mode="json"),
                    "trust": record.provenance.trust.value,
                },
            )
        log.info("released quarantined memory %s", record.id)
        return record

    # -- lifecycle ----------------------------------------------------------------------
    def stats(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        all_scopes: bool = False,
    ) -> dict[str, Any]:
        """The scope's counts per layer / kind / status / trust, and what the engine is.

        ``engine`` names the engine (kind, where, dimension) without its point / vector /
        segment counts: those cover every tenant, so they are no scope's figures. They are
        reported only for the whole store, ``all_scopes=True`` (no scope), under
        ``store_total``.
        """
        self.engine.check_open()
        store = self.engine.store
        if all_scopes:
            if any(v is not None for v in (user_id, agent_id, session_id)):
                raise ValidationError("pass either a scope or all_scopes=True, not both")
            info = store.info()
            return {
                "scope": {},
                "store_total": {k: info[k] for k in STORE_WIDE_COUNTS if k in info},
                "engine": {k: v for k, v in info.items() if k not in STORE_WIDE_COUNTS},
            }
        scope = Scope.of(user_id, agent_id, session_id)
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
