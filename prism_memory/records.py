"""The memory record: one Qdrant point, its payload the record's JSON.

Design:
- ``MemoryRecord`` is a pydantic model; ``to_payload()`` / ``from_payload()`` are the only
  conversion to and from the store, so both engines store byte-identical payloads.
- Ids are deterministic (uuid5 over scope + layer + normalised content, or an entity key) so a
  retried write is an upsert, never a duplicate.
- Times are timezone-aware UTC; naive datetimes are taken as UTC.
- ``Scope`` is validated here once: at least one of ``user_id`` / ``agent_id`` /
  ``session_id``; ids are non-empty strings. Stores turn it into an exact-match filter.
"""

from __future__ import annotations

import re
import unicodedata
import uuid
from datetime import datetime, timezone
from enum import Enum
from functools import lru_cache
from typing import Any, overload

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic import ValidationError as PydanticValidationError

from .errors import ScopeError
from .links import link_keys

__all__ = [
    "SCOPE_FIELDS",
    "Entity",
    "Kind",
    "Layer",
    "MemoryRecord",
    "Provenance",
    "Relation",
    "Scope",
    "ScoredRecord",
    "Source",
    "Status",
    "Trust",
    "as_utc",
    "is_record_id",
    "make_record_id",
    "next_content_id",
    "normalize_entity",
    "normalize_text",
    "utcnow",
]

SCOPE_FIELDS: tuple[str, ...] = ("user_id", "agent_id", "session_id")
_NAMESPACE = uuid.UUID("5b7c8f0e-2a57-4d1e-9a3c-7e0f1c2d3b4a")
MAX_SCOPE_ID_CHARS = 512


def utcnow() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(timezone.utc)


@overload
def as_utc(value: datetime) -> datetime: ...
@overload
def as_utc(value: None) -> None: ...
def as_utc(value: datetime | None) -> datetime | None:
    """``value`` in UTC (naive = UTC); ``ValueError`` when UTC leaves years 1-9999."""
    if value is None:
        return None
    if value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    try:
        return value.astimezone(timezone.utc)
    except OverflowError:
        raise ValueError(
            f"{value.isoformat()} falls outside years 1-9999 once converted to UTC"
        ) from None


class Layer(str, Enum):
    """Where a memory lives: raw turns settle into events, events distil into facts."""

    BUFFER = "buffer"
    WORKING = "working"
    EPISODIC = "episodic"
    SEMANTIC = "semantic"


class Kind(str, Enum):
    """PRISM memory type."""

    OBSERVATION = "observation"
    ACTION = "action"
    RESULT = "result"
    DERIVATION = "derivation"
    FACT = "fact"
    PREFERENCE = "preference"
    EVENT = "event"
    REFLECTION = "reflection"
    SUMMARY = "summary"
    TASK = "task"


class Source(str, Enum):
    """Who produced the content of a record."""

    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"
    WEB = "web"
    SYSTEM = "system"
    DERIVED = "derived"


class Trust(str, Enum):
    """Whether a record may reach a prompt. Quarantined records are kept for audit only."""

    TRUSTED = "trusted"
    UNTRUSTED = "untrusted"
    QUARANTINED = "quarantined"


class Status(str, Enum):
    """Lifecycle state. Only ``active`` records are returned by default."""

    ACTIVE = "active"
    SUPERSEDED = "superseded"
    ARCHIVED = "archived"


def normalize_text(text: str) -> str:
    """Casefolded, NFKC-normalised, whitespace-collapsed text (used for ids and dedup)."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip().casefold()


@lru_cache(maxsize=32768)
def normalize_entity(name: str) -> str:
    """Normalised entity name used as a payload-indexed key (``"Mr. Zhang"`` -> ``"mr. zhang"``).

    Memoised: every recall scores the same entities of the same records again."""
    return normalize_text(name).strip(" .,;:!?\"'")


def _key_part(value: str | None) -> str:
    """A scope id as written in :meth:`Scope.key` (escaped only when it holds a separator).

    Injective: an unescaped part holds neither ``|`` nor ``=``, an escaped one always does, and
    every ``|`` / ``=`` of an escaped part follows a backslash, so the key splits back into
    its fields in one way only.
    """
    if value is None:
        return ""
    if "|" not in value and "=" not in value:
        return value
    return value.replace("\\", "\\\\").replace("|", "\\|").replace("=", "\\=")


class Scope(BaseModel):
    """Who a memory belongs to. At least one field is required; all given fields must match.

    Example:
        >>> Scope(user_id="alice", session_id="s1").key()
        'agent_id=|session_id=s1|user_id=alice'
    """

    model_config = ConfigDict(frozen=True)

    user_id: str | None = None
    agent_id: str | None = None
    session_id: str | None = None

    @field_validator("user_id", "agent_id", "session_id", mode="before")
    @classmethod
    def _check_id(cls, value: Any, info: Any) -> Any:
        if value is None:
            return None
        if not isinstance(value, str):
            raise ScopeError(
                f"{info.field_name} must be a string, got {type(value).__name__}; "
                f"pass e.g. {info.field_name}=str(value)"
            )
        if not value.strip():
            raise ScopeError(
                f"{info.field_name} is empty; pass a non-empty identifier such as "
                f"{info.field_name}='alice' (an empty id would match nobody or everybody)"
            )
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise ScopeError(
                f"{info.field_name} holds a lone surrogate, which cannot be stored as UTF-8; "
                "pass an id of real characters"
            ) from None
        if len(value) > MAX_SCOPE_ID_CHARS:
            raise ScopeError(
                f"{info.field_name} is {len(value)} characters long; the limit is "
                f"{MAX_SCOPE_ID_CHARS}: pass a shorter id or a hash of it"
            )
        return value

    @model_validator(mode="after")
    def _at_least_one(self) -> Scope:
        if self.user_id is None and self.agent_id is None and self.session_id is None:
            raise ScopeError(
                "no scope given: pass at least one of user_id=, agent_id= or session_id= "
                "(every read, write and delete is confined to a scope)"
            )
        return self

    def __init__(self, **data: Any) -> None:
        # pydantic wraps validator errors in its own ValidationError; callers catch ScopeError
        try:
            super().__init__(**data)
        except PydanticValidationError as exc:
            cause = exc.errors()[0].get("ctx", {}).get("error")
            if isinstance(cause, ScopeError):
                raise cause from None
            raise ScopeError(str(exc)) from None

    @classmethod
    def of(
        cls,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> Scope:
        """Build a scope from keywords, raising :class:`ScopeError` if none is given."""
        return cls(user_id=user_id, agent_id=agent_id, session_id=session_id)

    def key(self) -> str:
        """A stable string for the scope (cache keys, ids); distinct scopes have distinct keys.

        Fields are named and joined with ``|``. An id holding a separator (``|`` or ``=``) is
        written with ``\\``, ``|`` and ``=`` escaped by a backslash, so ``session_id="s1|user_id=x"``
        cannot pass for another field; every other id is written as is, which keeps the keys
        (and so the record ids derived from them) of ordinary scopes what they have always been.
        """
        return "|".join(f"{name}={_key_part(getattr(self, name))}" for name in sorted(SCOPE_FIELDS))

    def as_dict(self) -> dict[str, str]:
        """Only the fields that are set."""
        return {n: v for n in SCOPE_FIELDS if (v := getattr(self, n)) is not None}

    def widen(self, *, session: bool = False) -> Scope:
        """The same scope without ``session_id`` (when another field remains), for cross-session reads."""
        if session and self.session_id and (self.user_id or self.agent_id):
            return Scope(user_id=self.user_id, agent_id=self.agent_id)
        return self


class Entity(BaseModel):
    """A named thing a record is about: ``{"type": "person", "name": "Zhang"}``."""

    model_config = ConfigDict(frozen=True)

    type: str = "thing"
    name: str

    @property
    def key(self) -> str:
        return normalize_entity(self.name)


class Relation(BaseModel):
    """A typed link to another record: the version lineage (``supersedes``, ``contradicts``),
    ``conflicts`` between current records that disagree, and the links an extractor states
    (``caused_by``/``causes``, ``before``/``after``; ``prism_memory.links.LINK_TYPES``)."""

    model_config = ConfigDict(frozen=True)

    type: str
    target_id: str


class Provenance(BaseModel):
    """Where a record came from and whether it may be rendered into a prompt."""

    source: Source = Source.USER
    trust: Trust = Trust.TRUSTED
    source_ids: list[str] = Field(default_factory=list)
    reason: str | None = Field(default=None, description="Why the trust level was set.")
    released_at: datetime | None = Field(
        default=None, description="When a quarantined record was released (Memory.release)."
    )


_DERIVED_PAYLOAD_KEYS = frozenset(
    {"entity_keys", "link_keys", "trust", "source", "source_ids", "ts"}
)


def is_record_id(value: object) -> bool:
    """True when ``value`` is a UUID string (record ids are; anything else cannot exist)."""
    try:
        uuid.UUID(str(value))
    except (ValueError, AttributeError, TypeError):
        return False
    return True


def make_record_id(scope: Scope, layer: Layer | str, content_key: str) -> str:
    """Deterministic record id: uuid5 of scope, layer and a normalised content (or entity) key."""
    layer_value = layer.value if isinstance(layer, Layer) else str(layer)
    name = f"{scope.key()}\x1f{layer_value}\x1f{normalize_text(content_key)}"
    return str(uuid.uuid5(_NAMESPACE, name))


def next_content_id(record_id: str) -> str:
    """The id a content record takes when ``record_id`` holds another text (see ``Memory.add``).

    Deterministic, so the same adds give the same ids; its name (an id, not a scope key) can
    equal no name :func:`make_record_id` hashes.
    """
    return str(uuid.uuid5(_NAMESPACE, f"{record_id}\x1fnext"))


class MemoryRecord(BaseModel):
    """One memory. Stored as one Qdrant point whose payload is this model's JSON.

    Example:
        >>> r = MemoryRecord(text="I prefer window seats", user_id="alice", kind="preference")
        >>> r.layer, r.kind, r.scope.user_id
        (<Layer.SEMANTIC: 'semantic'>, <Kind.PREFERENCE: 'preference'>, 'alice')
    """

    model_config = ConfigDict(validate_assignment=False, populate_by_name=True)

    id: str = ""
    text: str
    fields: dict[str, Any] = Field(default_factory=dict)
    schema_name: str | None = Field(default=None, alias="schema")
    metadata: dict[str, Any] = Field(default_factory=dict)

    layer: Layer = Layer.SEMANTIC
    kind: Kind = Kind.FACT

    user_id: str | None = None
    agent_id: str | None = None
    session_id: str | None = None

    task_id: str | None = None
    subgoal_id: str | None = None
    parent_task_id: str | None = None

    entities: list[Entity] = Field(default_factory=list)
    relations: list[Relation] = Field(default_factory=list)
    speaker: str | None = None

    event_time: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    last_accessed: datetime | None = None
    access_count: int = 0
    consolidated_at: datetime | None = Field(
        default=None,
        description="When consolidation summarised this episodic turn (a second run skips it).",
    )
    extraction: str | None = Field(
        default=None,
        description="'pending' on a user turn whose LLM extraction has not run yet: set when "
        "the turn is written, cleared (None) once its facts are written; a Memory opened "
        "later resumes the pending ones.",
    )

    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    utility: float = Field(default=0.5, ge=0.0, le=1.0)
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)

    status: Status = Status.ACTIVE
    provenance: Provenance = Field(default_factory=Provenance)

    @field_validator(
        "event_time",
        "created_at",
        "updated_at",
        "valid_from",
        "valid_to",
        "last_accessed",
        "consolidated_at",
    )
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        return as_utc(value)

    @model_validator(mode="after")
    def _fill(self) -> MemoryRecord:
        if not self.id:
            self.id = make_record_id(self.scope, self.layer, self.text)
        if self.valid_from is None:
            self.valid_from = self.event_time or self.created_at
        return self

    @property
    def scope(self) -> Scope:
        return Scope.of(self.user_id, self.agent_id, self.session_id)

    @property
    def entity_keys(self) -> list[str]:
        return sorted({e.key for e in self.entities if e.key})

    @property
    def time(self) -> datetime:
        """When it happened, else when it was written."""
        return self.event_time or self.created_at

    @property
    def is_current(self) -> bool:
        return self.status == Status.ACTIVE

    def to_payload(self) -> dict[str, Any]:
        """JSON payload for the store, plus derived index fields (``entity_keys``,
        ``link_keys`` of ``links.py``, ``source_ids``, ``trust``)."""
        payload = self.model_dump(mode="json", by_alias=True)
        payload["entity_keys"] = self.entity_keys
        payload["link_keys"] = link_keys(self.text, self.speaker)
        payload["trust"] = self.provenance.trust.value
        payload["source"] = self.provenance.source.value
        payload["source_ids"] = list(self.provenance.source_ids)
        payload["ts"] = self.time.timestamp()
        return payload

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> MemoryRecord:
        data = {k: v for k, v in payload.items() if k not in _DERIVED_PAYLOAD_KEYS}
        return cls.model_validate(data)


class ScoredRecord(BaseModel):
    """A search hit: the record, its relevance, its rank score and the routes that found it.

    - ``score``: relevance in [0, 1], the cosine similarity of the query and the record's
      dense vector clipped to [0, 1] (``retrieval.scoring.relevance``), whichever route found
      it (a BM25-only hit gets its cosine too). Threshold it, or compare it with other vector
      stores' cosine scores.
    - ``rank_score``: the fused value the hits are ordered by (RRF over the routes), so hits
      come best-ranked first and ``score`` need not decrease along the list.
    - ``routes`` / ``route_scores``: the routes that found the record and its raw score in
      each (cosine for ``dense``, BM25 for ``bm25``).
    """

    record: MemoryRecord
    score: float
    routes: list[str] = Field(default_factory=list)
    route_scores: dict[str, float] = Field(default_factory=dict)
    rank_score: float = 0.0
    vector: list[float] | None = Field(default=None, repr=False, exclude=True)

    @property
    def id(self) -> str:
        return self.record.id

    @property
    def text(self) -> str:
        return self.record.text
