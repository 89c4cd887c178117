"""Validation of user input into records: one place, so every entry point rejects the same bad
values (wrong types, empty text, unserialisable metadata, unknown enum values) with the same
message. Pure functions, no I/O."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pydantic_core import PydanticSerializationError, to_jsonable_python

from .errors import ValidationError
from .records import (
    Entity,
    Kind,
    Layer,
    MemoryRecord,
    Provenance,
    Scope,
    Source,
    Trust,
    make_record_id,
    utcnow,
)

__all__ = ["MAX_TEXT_CHARS", "check_json_dict", "check_text", "coerce_enum", "new_record"]

MAX_TEXT_CHARS = 100_000


def coerce_enum(enum: Any, value: Any, what: str) -> Any:
    if isinstance(value, enum):
        return value
    try:
        return enum(str(value).lower())
    except ValueError:
        allowed = ", ".join(e.value for e in enum)
        raise ValidationError(f"unknown {what} {value!r}; use one of: {allowed}") from None


def check_json_dict(value: Any, what: str = "metadata") -> dict[str, Any]:
    """Reject what the payload cannot hold: non-dicts, non-string keys, unserialisable values."""
    if not isinstance(value, dict):
        raise ValidationError(f"{what} must be a dict, got {type(value).__name__}")
    bad_keys = [k for k in value if not isinstance(k, str)]
    if bad_keys:
        raise ValidationError(
            f"{what} keys must be strings, got {bad_keys[0]!r}; e.g. {{{str(bad_keys[0])!r}: ...}}"
        )
    try:  # the serialiser the payload uses; json.dumps(default=str) would accept anything
        to_jsonable_python(value)
    except (PydanticSerializationError, TypeError, ValueError) as exc:
        raise ValidationError(
            f"{what} must be JSON-serialisable (strings, numbers, booleans, lists, dicts, "
            f"datetimes): {exc}"
        ) from None
    return value


def check_text(text: Any, what: str = "text") -> str:
    """Reject non-strings, empty and whitespace-only text, and absurdly long text."""
    if not isinstance(text, str):
        raise ValidationError(f"{what} must be a string, got {type(text).__name__}")
    if not text.strip():
        raise ValidationError(f"{what} is empty or whitespace; pass the content to remember")
    if len(text) > MAX_TEXT_CHARS:
        raise ValidationError(
            f"{what} has {len(text)} characters; the limit is {MAX_TEXT_CHARS}. Split it into "
            "smaller memories (remember() splits conversations into turns for you)"
        )
    return text


def new_record(
    text: str,
    scope: Scope,
    *,
    kind: Kind | str = Kind.FACT,
    layer: Layer | str = Layer.SEMANTIC,
    metadata: dict[str, Any] | None = None,
    event_time: datetime | None = None,
    task_id: str | None = None,
    subgoal_id: str | None = None,
    entities: Sequence[Entity | dict[str, str] | str] | None = None,
    importance: float | None = None,
    confidence: float | None = None,
    source: Source | str = Source.USER,
    source_ids: Sequence[str] | None = None,
    fields: dict[str, Any] | None = None,
    schema: str | None = None,
    speaker: str | None = None,
    record_id: str | None = None,
) -> MemoryRecord:
    """Validate arguments into a :class:`MemoryRecord` (no I/O): the one place a record is built
    from user input, so every entry point rejects the same bad values with the same message."""
    check_text(text)
    kind_v = coerce_enum(Kind, kind, "kind")
    layer_v = coerce_enum(Layer, layer, "layer")
    source_v = coerce_enum(Source, source, "source")
    if metadata is not None:
        check_json_dict(metadata, "metadata")
    if fields is not None:
        check_json_dict(fields, "fields")
    if event_time is not None and not isinstance(event_time, datetime):
        raise ValidationError(f"event_time must be a datetime, got {type(event_time).__name__}")
    for name, value in (("importance", importance), ("confidence", confidence)):
        if value is not None and not (isinstance(value, (int, float)) and 0.0 <= value <= 1.0):
            raise ValidationError(f"{name} must be a number in [0, 1], got {value!r}")
    ents: list[Entity] = []
    for e in entities or []:
        if isinstance(e, Entity):
            ents.append(e)
        elif isinstance(e, str) and e.strip():
            ents.append(Entity(name=e))
        elif isinstance(e, dict) and e.get("name"):
            ents.append(Entity(type=str(e.get("type", "thing")), name=str(e["name"])))
        else:
            raise ValidationError(f"entity {e!r} must be a name or a {{'type', 'name'}} dict")
    now = utcnow()
    return MemoryRecord(
        id=record_id or make_record_id(scope, layer_v, text),
        text=text,
        fields=fields or {},
        schema=schema,
        metadata=metadata or {},
        layer=layer_v,
        kind=kind_v,
        task_id=task_id,
        subgoal_id=subgoal_id,
        entities=ents,
        speaker=speaker,
        event_time=event_time,
        created_at=now,
        updated_at=now,
        importance=0.5 if importance is None else float(importance),
        confidence=1.0 if confidence is None else float(confidence),
        provenance=Provenance(
            source=source_v,
            trust=Trust.TRUSTED if source_v in (Source.USER, Source.SYSTEM) else Trust.UNTRUSTED,
            source_ids=list(source_ids or []),
        ),
        user_id=scope.user_id,
        agent_id=scope.agent_id,
        session_id=scope.session_id,
    )
