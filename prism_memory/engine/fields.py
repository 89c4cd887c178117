"""What an engine write may carry: checked ids and scopes, the payload of an in-place update,
records re-scoped by a move.

Design: pure functions over records and values, no store; the :class:`~prism_memory.engine.Engine`
write methods call them before they touch the store, so a refused write changes nothing.
``payload_fields`` is the one place that knows which fields an in-place update may set and
which index fields follow from them (``trust``/``source``/``source_ids`` from ``provenance``,
``entity_keys`` from ``entities``); every other field change is a new state
(``Engine.rewrite``) or a move (``Engine.move``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from pydantic import TypeAdapter
from pydantic import ValidationError as PydanticValidationError

from ..errors import ValidationError
from ..records import MemoryRecord, Scope

__all__ = [
    "TIME_FIELDS",
    "by_scope",
    "checked_ids",
    "checked_scope",
    "payload_fields",
    "rescoped",
]


def checked_ids(ids: Sequence[str]) -> list[str]:
    """``ids`` as a list, each a non-empty string (``ValidationError`` naming the first bad one)."""
    if isinstance(ids, str):
        raise ValidationError(f"ids must be a list of record ids, not one string {ids!r}")
    out = list(ids)
    for rid in out:
        if not isinstance(rid, str) or not rid:
            raise ValidationError(f"record ids must be non-empty strings, got {rid!r}")
    return out


def checked_scope(scope: Scope) -> Scope:
    if not isinstance(scope, Scope):
        raise ValidationError(
            f"scope must be a Scope, got {type(scope).__name__}; build one with "
            "Scope.of(user_id, agent_id, session_id)"
        )
    return scope


_SCOPE_FIELDS = frozenset({"user_id", "agent_id", "session_id"})
TIME_FIELDS = frozenset({"event_time", "created_at"})
#: payload key -> the ``MemoryRecord`` field it stores
_PAYLOAD_KEYS = {(f.alias or n): n for n, f in MemoryRecord.model_fields.items()}
_REFUSED = {
    "id": "a record's id is fixed; write a new record (Memory.add) and delete the old one",
    "text": "the text is what the vectors are computed from: Memory.update(record_id, "
    "text=...) re-embeds it (a new version), Engine.rewrite stores a new state",
    "speaker": "the speaker is part of what the vectors are computed from: Engine.rewrite "
    "stores a new state with its vectors",
    **{
        k: "moving records to another scope is Engine.move(ids, from_scope, to_scope) "
        "(RecordStore.move), which checks the records are the old scope's"
        for k in _SCOPE_FIELDS
    },
    **{
        k: "it is an index field derived from the record: set 'provenance' (trust, source, "
        "source_ids), 'entities' (entity_keys) or 'event_time' (ts) and it follows"
        for k in ("trust", "source", "source_ids", "ts", "entity_keys", "link_keys")
    },
}


@cache
def _adapter(name: str) -> TypeAdapter[Any]:
    annotation: Any = MemoryRecord.model_fields[name].annotation
    return TypeAdapter(annotation)


def payload_fields(fields: Mapping[str, Any]) -> dict[str, Any]:
    """The payload an in-place update of ``fields`` sets: each value checked against its
    :class:`MemoryRecord` field and stored as a written record stores it, plus the index
    fields it derives (``trust`` / ``source`` / ``source_ids`` from ``provenance``,
    ``entity_keys`` from ``entities``). ``ValidationError`` for an unknown field, one an
    in-place update may not set (saying which call does) or a bad value.

    >>> payload_fields({"status": "superseded"})
    {'status': 'superseded'}
    """
    out: dict[str, Any] = {}
    for key, value in fields.items():
        if key in _REFUSED:
            raise ValidationError(f"an update cannot set {key!r}: {_REFUSED[key]}")
        name = _PAYLOAD_KEYS.get(key)
        if name is None:
            raise ValidationError(
                f"unknown record field {key!r}; the fields an update may set are "
                f"{sorted(set(_PAYLOAD_KEYS) - _REFUSED.keys())}"
            )
        adapter = _adapter(name)
        try:
            checked = adapter.validate_python(value)
        except PydanticValidationError as exc:
            raise ValidationError(f"bad value for record field {key!r}: {exc}") from None
        out[key] = adapter.dump_python(checked, mode="json", by_alias=True)
        if name == "provenance":
            out["trust"] = checked.trust.value
            out["source"] = checked.source.value
            out["source_ids"] = list(checked.source_ids)
        elif name == "entities":
            out["entity_keys"] = sorted({e.key for e in checked if e.key})
    return out


def by_scope(records: Sequence[MemoryRecord]) -> list[list[MemoryRecord]]:
    """``records`` grouped by scope, in first-seen order."""
    groups: dict[str, list[MemoryRecord]] = {}
    for r in records:
        groups.setdefault(r.scope.key(), []).append(r)
    return list(groups.values())


def rescoped(
    records: Sequence[MemoryRecord],
    from_scope: Scope,
    to_scope: Scope,
    metadata: Mapping[str, Any],
) -> list[MemoryRecord]:
    """Copies of ``records`` in ``to_scope``: each scope field that ``from_scope`` or
    ``to_scope`` sets takes ``to_scope``'s value, one both leave open is kept; ``metadata``
    keys are set on each copy's metadata.

    >>> r = MemoryRecord(text="t", user_id="ns", session_id="s1")
    >>> [(c.user_id, c.session_id) for c in rescoped([r], Scope(user_id="ns"), Scope(user_id="u"), {})]
    [('u', 's1')]
    """

    def field(name: str, record: MemoryRecord) -> str | None:
        old: str | None = getattr(from_scope, name)
        new: str | None = getattr(to_scope, name)
        kept: str | None = getattr(record, name)
        return new if old is not None or new is not None else kept

    return [
        r.model_copy(
            update={
                **{k: field(k, r) for k in ("user_id", "agent_id", "session_id")},
                "metadata": {**r.metadata, **metadata},
            }
        )
        for r in records
    ]
