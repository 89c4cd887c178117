"""History when a slot's value changes: the old value is kept as a closed version, and what a
change statement replaces is closed.

Design:
- A keyed record's versions are numbered (``metadata["version"]``, 1 for its first value);
  the state a new value replaces is copied to a version id (the key's id + ``#v<n>``, never a
  clock reading, so the same writes give the same ids), closed (``valid_to``,
  ``status=superseded``) and linked ``contradicts`` to the current id, reusing its vector
  (:meth:`Supersession.keep_version`).
- A candidate that names what it replaces (``replaces`` ids matched by meaning, ``retire``
  words, ``retire_date``) closes the holder's current events, facts and preferences from
  other turns that match, linked both ways (:meth:`Supersession.retire`).
- The turns that stated a value that changed since are noted (:func:`note_changed`) so the
  caller can mark them. Every write goes through the engine, unannounced: the batch's write
  announces it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from ..errors import PrismError
from ..extraction.rules import FactCandidate
from ..records import (
    Kind,
    MemoryRecord,
    Relation,
    Scope,
    Status,
    is_record_id,
    make_record_id,
    utcnow,
)
from ..results import RecordChange, RememberResult
from ..stores import RecordFilter
from ..stores.filters import Condition
from ..versions import change_note
from .slots import holder_of_record

if TYPE_CHECKING:
    from ..engine import Engine

__all__ = ["Supersession", "note_changed", "version_of"]

log = logging.getLogger("prism_memory")


def version_of(record: MemoryRecord) -> int:
    """The version number of a keyed record (1 for its first value)."""
    value = record.metadata.get("version")
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 1


def _label(record: MemoryRecord) -> str:
    """What a record is about, in a few words ("home city", "aisle seats", "Madrid flight")."""
    f = record.fields
    if record.schema_name == "Fact":
        return str(f.get("attribute") or "")
    if record.schema_name == "Preference":
        return str(f.get("category") or f.get("subject") or "")
    if record.schema_name == "Person":
        return str(f.get("name") or "")
    words = str(f.get("description") or record.text).split()
    return " ".join(words[:6])


def note_changed(
    changed: dict[str, set[str]], old: MemoryRecord, new_sources: Sequence[str]
) -> None:
    """Remember which turns stated a value that ``old``'s successor replaces."""
    label = _label(old)
    if not label:
        return
    for source in old.provenance.source_ids:
        if source not in new_sources and is_record_id(source):
            changed.setdefault(source, set()).add(label)


def _local_day(value: datetime, like: datetime | None) -> str:
    """``value``'s day in the time zone of ``like`` (the new record's own date)."""
    if like is not None and like.tzinfo is not None:
        value = value.astimezone(like.tzinfo)
    return value.date().isoformat()


class Supersession:
    """Keeps versions and closes replaced records of one engine's store.

    Example::

        history = Supersession(engine)
        copy = history.keep_version(current, rid, scope, utcnow(), in_batch=False)
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def retire(
        self,
        retiring: Sequence[tuple[FactCandidate, str]],
        pending: dict[str, MemoryRecord],
        scope: Scope,
        result: RememberResult,
        changed_turns: dict[str, set[str]],
    ) -> None:
        """Close the holder's current records that a change statement replaces."""
        flt = RecordFilter(
            must=[
                Condition(
                    "kind", "any", [Kind.EVENT.value, Kind.FACT.value, Kind.PREFERENCE.value]
                ),
                Condition("status", "eq", Status.ACTIVE.value),
            ]
        )
        named = list(dict.fromkeys(i for c, _ in retiring for i in c.replaces if i not in pending))
        try:
            current = self.engine.store.get(named, scope) if named else []
            if any(c.retire or c.retire_date for c, _ in retiring):
                seen = {r.id for r in current}
                current += [
                    r
                    for r in self.engine.iter_records(scope, flt)
                    if r.id not in pending and r.id not in seen
                ]
        except PrismError as exc:
            log.info("records to retire not read: %s", exc)
            return
        for cand, rid in retiring:
            new = pending[rid]
            holder = holder_of_record(new)
            words = [w.lower() for w in cand.retire if w]
            turn_ids = set(cand.source_ids)
            for old in current:
                if old.status != Status.ACTIVE or old.valid_to is not None:
                    continue
                if old.id in cand.replaces:  # the same slot, matched by meaning
                    self.close(old, new, scope, cand, result, changed_turns, "a new value")
                    continue
                if holder_of_record(old) != holder:
                    continue
                if turn_ids & set(old.provenance.source_ids):
                    continue  # said in the same turn
                values = [str(v) for k, v in old.fields.items() if k not in ("reasons", "evidence")]
                haystack = " ".join([old.text, *values]).lower()
                by_words = bool(words) and all(w in haystack for w in words)
                by_day = (
                    cand.retire_date is not None
                    and old.kind == Kind.EVENT
                    and old.event_time is not None
                    and _local_day(old.event_time, cand.event_time) == cand.retire_date
                )
                if not (by_words or by_day):
                    continue
                self.close(
                    old, new, scope, cand, result, changed_turns, ", ".join(words) or "same day"
                )

    def close(
        self,
        old: MemoryRecord,
        new: MemoryRecord,
        scope: Scope,
        cand: FactCandidate,
        result: RememberResult,
        changed_turns: dict[str, set[str]],
        what: str,
    ) -> None:
        """Close ``old`` (``valid_to``, ``status=superseded``), linked both ways to ``new``."""
        when = new.valid_from or utcnow()
        old.status = Status.SUPERSEDED
        old.valid_to = max(when, old.valid_from or when)
        old.relations = [*old.relations, Relation(type="contradicts", target_id=new.id)]
        old.metadata = {**old.metadata, "superseded_by": new.id}
        self.engine.update(
            [old.id],
            scope,
            {
                "status": old.status.value,
                "valid_to": old.valid_to.isoformat(),
                "relations": [r.model_dump(mode="json") for r in old.relations],
                "metadata": old.metadata,
                "updated_at": utcnow().isoformat(),
            },
            announce=False,  # the batch's write announces it
        )
        new.relations = [*new.relations, Relation(type="supersedes", target_id=old.id)]
        new.metadata.setdefault("change", change_note("superseded", "replaced: " + what))
        note_changed(changed_turns, old, cand.source_ids)
        result.superseded.append(RecordChange(old, "replaced by a change: " + what))

    def keep_version(
        self, current: MemoryRecord, rid: str, scope: Scope, when: datetime, in_batch: bool
    ) -> MemoryRecord:
        """Keep the current version under a version id, closed and linked to its successor."""
        version = f"{rid}#v{version_of(current)}"
        copy = current.model_copy(deep=True)
        copy.id = make_record_id(scope, current.layer, version)
        copy.status = Status.SUPERSEDED
        copy.valid_to = max(when, copy.valid_from or when)
        copy.updated_at = utcnow()
        copy.relations = [*copy.relations, Relation(type="contradicts", target_id=rid)]
        copy.metadata = {**copy.metadata, "superseded_by": rid}
        # a version of a stored state reuses its vector; one that never reached the store
        # (this batch's) is embedded
        dense = {} if in_batch else self.engine.store.get_vectors([rid], scope)
        self.engine.rewrite(
            [copy], dense={copy.id: dense[rid]} if rid in dense else None, announce=False
        )  # the batch's write announces it
        return copy
