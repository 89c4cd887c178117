"""Validation of user input into records: one place, so every entry point rejects the same bad
values (wrong types, empty text, unserialisable metadata, unknown enum values) with the same
message. Pure functions, no I/O."""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Sequence
from datetime import date, datetime, time
from enum import Enum
from typing import Any

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
    as_utc,
    make_record_id,
    utcnow,
)

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "MAX_JSON_DEPTH",
    "MAX_SPEAKER_CHARS",
    "MAX_TEXT_CHARS",
    "check_depth",
    "check_json_dict",
    "check_record",
    "check_speaker",
    "check_string",
    "check_text",
    "check_utc",
    "coerce_enum",
    "has_visible_text",
    "nesting_depth",
    "new_record",
]

MAX_TEXT_CHARS = 100_000
#: A speaker (a message's ``name``) is a name: at most this many characters, on one line.
MAX_SPEAKER_CHARS = 128
#: Containers (dicts, lists) nested in ``metadata`` / ``fields``, counting the dict itself. The
#: engine stops decoding a payload nested about 128 levels deep: a deeper record would be
#: stored and then be unreadable, taking every page of results it falls in with it.
MAX_JSON_DEPTH = 32
#: What a stored record may hold (a caller's 32 levels plus the wrappers an adapter adds, such
#: as the LangGraph store's tagged tuples): the last guard before the engine's ~128.
MAX_STORED_DEPTH = 100
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def coerce_enum(enum: Any, value: Any, what: str) -> Any:
    if isinstance(value, enum):
        return value
    try:
        return enum(str(value).lower())
    except ValueError:
        allowed = ", ".join(e.value for e in enum)
        raise ValidationError(f"unknown {what} {value!r}; use one of: {allowed}") from None


def check_string(value: str, what: str) -> str:
    """Reject what cannot be stored as UTF-8: a lone surrogate (``"\\ud800"``, e.g. from a
    ``surrogateescape`` decode or a broken JSON escape)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValidationError(
            f"{what} holds a lone surrogate ({value[exc.start]!r} at position {exc.start}), "
            "which is no character and cannot be encoded as UTF-8; decode the input with "
            "errors='replace' or drop the character"
        ) from None
    return value


def _where(what: str, path: tuple[Any, ...]) -> str:
    """``metadata['a'][0]``, its middle cut when it is long."""
    parts = [f"[{p!r}]" for p in path]
    if len(parts) > 6:
        parts = [*parts[:3], "...", *parts[-2:]]
    return what + "".join(parts)


def nesting_depth(value: Any, stop: int = MAX_JSON_DEPTH + 1) -> int:
    """How many containers (dicts, lists, tuples, sets) are nested in ``value``, counting
    the outermost; counting stops at ``stop``. Iterative, so a value nested thousands of
    levels deep is measured, not a ``RecursionError``.

    >>> nesting_depth({"a": [1, {"b": 2}]}), nesting_depth("x")
    (3, 0)
    """
    deepest = 0
    todo: list[tuple[Any, int]] = [(value, 1)]
    while todo:
        item, level = todo.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, (list, tuple, set, frozenset)):
            children = item
        else:
            continue
        deepest = max(deepest, level)
        if deepest >= stop:
            return deepest
        todo.extend((c, level + 1) for c in children)
    return deepest


def check_depth(value: Any, what: str, limit: int = MAX_JSON_DEPTH) -> None:
    """``ValidationError`` unless ``value`` nests at most ``limit`` containers."""
    if nesting_depth(value, limit + 1) > limit:
        raise ValidationError(
            f"{what} is nested more than {limit} levels deep; flatten it (e.g. store the "
            "deep part as a JSON string)"
        )


def _walk(
    value: Any, what: str, path: tuple[Any, ...] = (), level: int = 0, limit: int = MAX_JSON_DEPTH
) -> None:
    """Check one JSON value of a payload: what the engine would reject, change or be unable
    to read back is refused here, before anything is written."""
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, str):
        if not value.isascii():  # only non-ASCII text can hold a surrogate
            check_string(value, _where(what, path))
    elif isinstance(value, int):
        if not INT64_MIN <= value <= INT64_MAX:
            raise ValidationError(
                f"{_where(what, path)} is {value}, outside the 64-bit integer range the store "
                "keeps exactly (-2**63 .. 2**63-1); store it as a string"
            )
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise ValidationError(
                f"{_where(what, path)} is {value}, which JSON cannot hold (it would be stored "
                "as null); store a finite number, None or a string such as 'nan'"
            )
    elif isinstance(value, (dict, list, tuple)):
        if level >= limit:
            raise ValidationError(
                f"{_where(what, path)} is nested more than {limit} levels deep; "
                "flatten it (e.g. store the deep part as a JSON string)"
            )
        if isinstance(value, dict):
            for k, v in value.items():
                if not isinstance(k, str):
                    raise ValidationError(
                        f"{_where(what, path)} keys must be strings, got {k!r}; "
                        f"e.g. {{{str(k)!r}: ...}}"
                    )
                if not k.isascii():
                    check_string(k, f"a key of {_where(what, path)}")
                _walk(v, what, (*path, k), level + 1, limit)
        else:
            for i, v in enumerate(value):
                _walk(v, what, (*path, i), level + 1, limit)
    elif isinstance(value, (set, frozenset)):
        raise ValidationError(
            f"{_where(what, path)} is a set, which JSON cannot hold (it would come back as a "
            "list in some order); pass sorted(...) or list(...)"
        )
    elif not isinstance(value, (datetime, date, time, Enum)):
        raise ValidationError(
            f"{_where(what, path)} is a {type(value).__name__}, which is not "
            "JSON-serialisable; pass strings, numbers, booleans, None, lists or dicts "
            "(datetimes are stored as ISO strings)"
        )


def check_json_dict(value: Any, what: str = "metadata") -> dict[str, Any]:
    """Reject what the payload cannot hold exactly: non-dicts, non-string keys, values JSON
    has no form for (NaN, infinity, sets, arbitrary objects), integers beyond 64 bits, lone
    surrogates and nesting deeper than :data:`MAX_JSON_DEPTH`."""
    if not isinstance(value, dict):
        raise ValidationError(f"{what} must be a dict, got {type(value).__name__}")
    _walk(value, what)
    return value


def check_speaker(value: Any, what: str = "speaker") -> str:
    """A speaker name (a message's ``name``) as given, or ``ValidationError``.

    Refused rather than cleaned, so what is stored is what the caller sent: a name with no
    visible character, longer than :data:`MAX_SPEAKER_CHARS`, or holding a line break, a tab
    or another control or invisible format character (zero-width, bidi override). A name is
    shown in every recalled context; one that spans lines could write outside the memories
    block.
    """
    if not isinstance(value, str):
        raise ValidationError(f"{what} must be a string, got {type(value).__name__}")
    check_string(value, what)
    if not has_visible_text(value):
        raise ValidationError(f"{what} {value[:40]!r} has no visible character; pass a name")
    if len(value) > MAX_SPEAKER_CHARS:
        raise ValidationError(
            f"{what} has {len(value)} characters; a speaker is a name of at most "
            f"{MAX_SPEAKER_CHARS}: put longer text in the message content"
        )
    for i, ch in enumerate(value):
        if (ch.isspace() and ch != " ") or unicodedata.category(ch) in ("Cc", "Cf"):
            raise ValidationError(
                f"{what} holds {ch!r} at position {i}; a speaker is a name on one line, with "
                "no line breaks, tabs, control or invisible characters: pass e.g. 'Alice'"
            )
    return value


def check_record(record: MemoryRecord, what: str = "the memory") -> MemoryRecord:
    """Check every value of a record as :func:`check_json_dict` checks metadata (the last
    guard before a write: imported lines and records built inside PRISM pass it too), with
    room for the wrappers adapters add (:data:`MAX_STORED_DEPTH`)."""
    for name, value in record.model_dump(by_alias=True).items():
        _walk(value, f"{what}'s {name}", limit=MAX_STORED_DEPTH)
    if record.speaker is not None:
        check_speaker(record.speaker, f"{what}'s speaker")
    return record


def has_visible_text(text: str) -> bool:
    """True when ``text`` has a character that is neither whitespace nor an invisible
    control / format character (zero-width space, joiner, BOM, ...)."""
    return any(not ch.isspace() and unicodedata.category(ch) not in ("Cc", "Cf") for ch in text)


def check_text(text: Any, what: str = "text") -> str:
    """Reject non-strings, text with nothing visible in it, lone surrogates and absurdly
    long text."""
    if not isinstance(text, str):
        raise ValidationError(f"{what} must be a string, got {type(text).__name__}")
    hint = (
        "pass the words to search for, e.g. 'which seat does she like?' (list() reads "
        "memories without a query)"
        if "query" in what
        else "pass the content to remember"
    )
    if not text.strip():
        raise ValidationError(f"{what} is empty or whitespace; {hint}")
    if not has_visible_text(text):
        raise ValidationError(
            f"{what} has no visible character (only whitespace and invisible characters such "
            f"as zero-width spaces); {hint}"
        )
    if len(text) > MAX_TEXT_CHARS:
        raise ValidationError(
            f"{what} has {len(text)} characters; the limit is {MAX_TEXT_CHARS}. Split it into "
            "smaller memories (remember() splits conversations into turns for you)"
        )
    return check_string(text, what)


def check_utc(value: datetime, what: str) -> datetime:
    """``value`` in UTC (naive = UTC); a time that leaves years 1-9999 in UTC is refused."""
    try:
        return as_utc(value)
    except ValueError:
        raise ValidationError(
            f"{what} {value.isoformat()} falls outside years 1-9999 once converted to UTC; "
            "pass a time within that range"
        ) from None


def _check_parts(metadata: Any, fields: Any, speaker: Any, event_time: Any) -> None:
    """The optional parts of a new record: JSON dicts, a speaker name, a time in years 1-9999."""
    if metadata is not None:
        check_json_dict(metadata, "metadata")
    if fields is not None:
        check_json_dict(fields, "fields")
    if speaker is not None:
        check_speaker(speaker)
    if event_time is not None:
        if not isinstance(event_time, datetime):
            raise ValidationError(f"event_time must be a datetime, got {type(event_time).__name__}")
        check_utc(event_time, "event_time")


def _entity(e: Any) -> Entity:
    """An entity given as an :class:`Entity`, a name, or a ``{"type", "name"}`` dict."""
    if isinstance(e, Entity):
        return e
    if isinstance(e, str) and e.strip():
        return Entity(name=e)
    if isinstance(e, dict) and e.get("name"):
        return Entity(type=str(e.get("type", "thing")), name=str(e["name"]))
    raise ValidationError(f"entity {e!r} must be a name or a {{'type', 'name'}} dict")


def _unit(name: str, value: float | None, default: float) -> float:
    """A score in [0, 1] (``default`` when not given)."""
    if value is None:
        return default
    if not (isinstance(value, (int, float)) and 0.0 <= value <= 1.0):
        raise ValidationError(f"{name} must be a number in [0, 1], got {value!r}")
    return float(value)


def _provenance(source: Source, source_ids: Sequence[str] | None) -> Provenance:
    """Where a record comes from: ``user`` and ``system`` are trusted, the rest is not."""
    trusted = source in (Source.USER, Source.SYSTEM)
    return Provenance(
        source=source,
        trust=Trust.TRUSTED if trusted else Trust.UNTRUSTED,
        source_ids=list(source_ids or []),
    )


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
    """A validated :class:`MemoryRecord` (no I/O; a bad value raises ``ValidationError``), public
    as ``Memory.build_record``: records for ``Memory.record_store.write``. ``entities``: names,
    dicts or ``Entity``; ``importance`` / ``confidence`` in [0, 1] (default 0.5 / 1.0);
    ``source`` ``user`` / ``system`` is trusted; ``source_ids``: the records it derives from;
    ``fields`` / ``schema``: a structured fact; ``record_id``: default from scope, layer, text.

    >>> from prism_memory.records import Scope
    >>> r = new_record("I prefer window seats", Scope.of(user_id="alice"), kind="preference")
    >>> r.kind.value, r.layer.value, r.importance, r.user_id
    ('preference', 'semantic', 0.5, 'alice')
    """
    check_text(text)
    kind_v = coerce_enum(Kind, kind, "kind")
    layer_v = coerce_enum(Layer, layer, "layer")
    source_v = coerce_enum(Source, source, "source")
    _check_parts(metadata, fields, speaker, event_time)
    ents = [_entity(e) for e in entities or []]
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
        importance=_unit("importance", importance, 0.5),
        confidence=_unit("confidence", confidence, 1.0),
        provenance=_provenance(source_v, source_ids),
        user_id=scope.user_id,
        agent_id=scope.agent_id,
        session_id=scope.session_id,
    )
