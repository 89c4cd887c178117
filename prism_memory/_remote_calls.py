"""What HTTP call each ``Memory`` method is, for :class:`~prism_memory.remote.RemoteMemory`.

Design: one function per method, with ``Memory``'s signature, that validates and converts the
arguments and returns a :class:`Call`: the HTTP method, path, query, JSON body and how to read
the answer back into the library's objects (:mod:`prism_memory.wire`). No I/O here; the
transport (sync or async) lives in ``remote.py``.
"""

from __future__ import annotations

import builtins
import json
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar

from . import wire
from ._messages import parse_messages
from ._record_api import RecordPage
from .config import RetrievalConfig
from .errors import ValidationError
from .layers.working import TaskState
from .records import Entity, Kind, Layer, MemoryRecord, ScoredRecord, Source, Trust
from .results import DeleteReport, RememberResult
from .retrieval.context import MemoryContext
from .retrieval.intent import Intent

__all__ = [
    "Call",
    "add",
    "add_many",
    "buffer",
    "consolidate",
    "count",
    "delete",
    "delete_all",
    "delete_by_source",
    "end_session",
    "feedback",
    "flush",
    "flush_access",
    "flush_buffer",
    "forget",
    "get",
    "history",
    "list",
    "purge",
    "recall",
    "register_intent",
    "release",
    "remember",
    "restore",
    "resume_extraction",
    "search",
    "session_turns",
    "stats",
    "task",
    "touch",
    "update",
]

_R = TypeVar("_R")


def _plain(value: Any) -> Any:
    """A JSON-ready form of an argument (enums by value, datetimes in ISO 8601)."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, (Kind, Layer, Source, Trust)):
        return value.value
    if isinstance(value, Entity):
        return value.model_dump()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (builtins.list, tuple)):
        return [_plain(v) for v in value]
    return value


def _query(**params: Any) -> dict[str, str]:
    out: dict[str, str] = {}
    for k, v in params.items():
        if v is None:
            continue
        if isinstance(v, bool):
            out[k] = "true" if v else "false"
        elif isinstance(v, dict):
            out[k] = json.dumps(_plain(v))
        else:
            out[k] = str(_plain(v))
    return out


def _body(**fields: Any) -> dict[str, Any]:
    return {k: _plain(v) for k, v in fields.items() if v is not None}


def _segment(value: str) -> str:
    """``value`` as one URL path segment."""
    from urllib.parse import quote

    if not isinstance(value, str) or not value:
        raise ValidationError(f"an id must be a non-empty string, got {value!r}")
    return quote(value, safe="")


@dataclass
class Call(Generic[_R]):
    """One HTTP request and how to read its JSON answer."""

    method: str
    path: str
    read: Callable[[Any], _R]
    params: dict[str, str] = field(default_factory=dict)
    json: dict[str, Any] | None = None


def _records(data: Any) -> builtins.list[MemoryRecord]:
    return [wire.record_from_json(r) for r in data["results"]]


def _messages_json(messages: Any) -> str | builtins.list[dict[str, Any]]:
    if isinstance(messages, str):
        return messages
    return [
        _body(role=t.role, content=t.text, name=t.name, timestamp=t.timestamp, id=t.id)
        for t in parse_messages(messages)
    ]


# -- records ------------------------------------------------------------------------------
def add(
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
) -> Call[MemoryRecord]:
    """Store one memory as is (no extraction) and return it (``Memory.add``)."""
    body = _body(
        text=text,
        user_id=user_id,
        agent_id=agent_id,
        session_id=session_id,
        kind=kind,
        layer=layer,
        metadata=metadata,
        event_time=event_time,
        task_id=task_id,
        subgoal_id=subgoal_id,
        entities=builtins.list(entities) if entities is not None else None,
        importance=importance,
        source=source,
        source_ids=builtins.list(source_ids) if source_ids is not None else None,
    )
    return Call("POST", "/v1/memories", wire.record_from_json, json=body)


def add_many(
    items: Sequence[str | dict[str, Any]],
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    session_id: str | None = None,
    kind: Kind | str = Kind.FACT,
    layer: Layer | str = Layer.SEMANTIC,
    event_time: datetime | None = None,
    source: Source | str = Source.USER,
) -> Call[builtins.list[MemoryRecord]]:
    """Store many memories with one embedding batch and one upsert (``Memory.add_many``)."""
    body = _body(
        items=builtins.list(items),
        user_id=user_id,
        agent_id=agent_id,
        session_id=session_id,
        kind=kind,
        layer=layer,
        event_time=event_time,
        source=source,
    )
    return Call("POST", "/v1/memories/batch", _records, json=body)


def get(
    record_id: str,
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    session_id: str | None = None,
) -> Call[MemoryRecord]:
    """The record with this id in the scope; :class:`NotFoundError` if there is none."""
    params = _query(user_id=user_id, agent_id=agent_id, session_id=session_id)
    return Call("GET", f"/v1/memories/{_segment(record_id)}", wire.record_from_json, params)


def list(
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
) -> Call[RecordPage]:
    """A page of the scope's records (``Memory.list``)."""
    params = _query(
        user_id=user_id,
        agent_id=agent_id,
        session_id=session_id,
        layer=layer,
        kind=kind,
        limit=limit,
        cursor=cursor,
        filters=filters,
        include_history=include_history,
        trust=trust,
    )
    return Call("GET", "/v1/memories", wire.page_from_json, params)


def count(
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    session_id: str | None = None,
    layer: Layer | str | None = None,
    include_history: bool = True,
) -> Call[int]:
    """Number of records in the scope (``Memory.count``)."""
    params = _query(
        user_id=user_id,
        agent_id=agent_id,
        session_id=session_id,
        layer=layer,
        include_history=include_history,
    )
    return Call("GET", "/v1/count", lambda d: int(d["count"]), params)


def update(
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
) -> Call[MemoryRecord]:
    """Change a record (same id; a new text keeps the old one as a version); returns the new
    record (``Memory.update``)."""
    body = _body(
        user_id=user_id,
        agent_id=agent_id,
        session_id=session_id,
        text=text,
        metadata=metadata,
        importance=importance,
        kind=kind,
        reason=reason,
    )
    return Call("PATCH", f"/v1/memories/{_segment(record_id)}", wire.record_from_json, json=body)


def release(
    record_id: str,
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    session_id: str | None = None,
    note: str | None = None,
) -> Call[MemoryRecord]:
    """Restore a quarantined record (``Memory.release``)."""
    body = _body(user_id=user_id, agent_id=agent_id, session_id=session_id, note=note)
    path = f"/v1/quarantine/{_segment(record_id)}/release"
    return Call("POST", path, wire.record_from_json, json=body)


def stats(
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    session_id: str | None = None,
    all_scopes: bool = False,
) -> Call[dict[str, Any]]:
    """Counts per layer / kind / status / trust of a scope (``Memory.stats``)."""
    params = _query(
        user_id=user_id, agent_id=agent_id, session_id=session_id, all_scopes=all_scopes
    )
    return Call("GET", "/v1/stats", dict, params)


# -- deletion -----------------------------------------------------------------------------
def delete(
    record_id: str,
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    session_id: str | None = None,
    purge: bool = False,
) -> Call[bool]:
    """Delete one record of the scope and what was derived from it; returns whether it
    existed (``Memory.delete``)."""
    params = _query(user_id=user_id, agent_id=agent_id, session_id=session_id, purge=purge)
    return Call(
        "DELETE", f"/v1/memories/{_segment(record_id)}", lambda d: bool(d["deleted"]), params
    )


def delete_all(
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    session_id: str | None = None,
    purge: bool = True,
    derived: bool = True,
) -> Call[DeleteReport]:
    """Delete every record of the scope (``Memory.delete_all``), with what went per layer and
    surface."""
    params = _query(
        user_id=user_id, agent_id=agent_id, session_id=session_id, purge=purge, derived=derived
    )

    def read(d: Any) -> DeleteReport:
        by_layer = d.get("by_layer") or {"unknown": int(d["deleted"])}
        return DeleteReport(by_layer, d.get("by_surface") or {})

    return Call("DELETE", "/v1/memories", read, params)


def delete_by_source(
    source: str | Source,
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    session_id: str | None = None,
    purge: bool = False,
) -> Call[int]:
    """Roll back everything one source wrote in the scope (``Memory.delete_by_source``)."""
    body = _body(
        source=source, user_id=user_id, agent_id=agent_id, session_id=session_id, purge=purge
    )
    return Call("POST", "/v1/delete_by_source", lambda d: int(d["deleted"]), json=body)


# -- write path ---------------------------------------------------------------------------
def remember(
    messages: Any,
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    session_id: str | None = None,
    task_id: str | None = None,
    subgoal_id: str | None = None,
    event_time: datetime | str | float | None = None,
) -> Call[RememberResult]:
    """Remember conversation turns (``Memory.remember``)."""
    body = _body(
        messages=_messages_json(messages),
        user_id=user_id,
        agent_id=agent_id,
        session_id=session_id,
        task_id=task_id,
        subgoal_id=subgoal_id,
        event_time=event_time,
    )
    return Call("POST", "/v1/remember", wire.remember_from_json, json=body)


def remember_fact(
    text: str,
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    session_id: str | None = None,
    kind: Kind | str = Kind.FACT,
    source: Source | str = Source.ASSISTANT,
    source_ids: Sequence[str] = (),
    surface: str | None = None,
) -> Call[RememberResult]:
    """Remember a stated fact the way extracted facts are (``Memory.remember_fact``)."""
    body = _body(
        text=text,
        user_id=user_id,
        agent_id=agent_id,
        session_id=session_id,
        kind=kind,
        source=source,
        source_ids=builtins.list(source_ids),
        surface=surface,
    )
    return Call("POST", "/v1/remember_fact", wire.remember_from_json, json=body)


def buffer(
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    session_id: str | None = None,
) -> Call[builtins.list[MemoryRecord]]:
    """The session's buffered (recent, raw) turns, oldest first."""
    params = _query(user_id=user_id, agent_id=agent_id, session_id=session_id)
    return Call("GET", "/v1/buffer", _records, params)


def session_turns(
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    session_id: str | None = None,
    limit: int | None = None,
) -> Call[builtins.list[MemoryRecord]]:
    """Every turn of the session, in order; the last ``limit`` if given."""
    params = _query(user_id=user_id, agent_id=agent_id, session_id=session_id, limit=limit)
    return Call("GET", "/v1/session_turns", _records, params)


def history(
    memory_id: str | None = None,
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    session_id: str | None = None,
    limit: int | None = None,
) -> Call[Any]:
    """Every version of a memory (``Memory.history``); without ``memory_id`` the session's
    turns (deprecated, as in ``Memory``: use ``session_turns``)."""
    params = _query(user_id=user_id, agent_id=agent_id, session_id=session_id, limit=limit)
    if memory_id is None:
        warnings.warn(
            "RemoteMemory.history(user_id=..., session_id=...) without a memory id is the "
            "session transcript and is deprecated: call session_turns(...) for the turns, "
            "history(memory_id, ...) for a memory's versions",
            DeprecationWarning,
            stacklevel=3,
        )
        return Call("GET", "/v1/session_turns", _records, params)
    return Call(
        "GET",
        f"/v1/memories/{_segment(memory_id)}/history",
        lambda d: [wire.version_from_json(v) for v in d["results"]],
        params,
    )


def restore(
    memory_id: str,
    version: int,
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    session_id: str | None = None,
    reason: str | None = None,
) -> Call[MemoryRecord]:
    """Make an earlier version the memory's current state (``Memory.restore``)."""
    body = _body(
        user_id=user_id, agent_id=agent_id, session_id=session_id, version=version, reason=reason
    )
    return Call(
        "POST", f"/v1/memories/{_segment(memory_id)}/restore", wire.record_from_json, json=body
    )


def flush_buffer(
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    session_id: str | None = None,
) -> Call[RememberResult]:
    """Move every buffered turn of the session to the episodic layer now."""
    body = _body(user_id=user_id, agent_id=agent_id, session_id=session_id)
    return Call("POST", "/v1/flush_buffer", wire.remember_from_json, json=body)


def end_session(
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    session_id: str | None = None,
    consolidate: bool | None = None,
) -> Call[RememberResult]:
    """Flush the session's buffer and (by policy) consolidate (``Memory.end_session``)."""
    body = _body(user_id=user_id, agent_id=agent_id, session_id=session_id, consolidate=consolidate)
    return Call("POST", "/v1/end_session", wire.remember_from_json, json=body)


def task(
    task_id: str,
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    session_id: str | None = None,
    goal: str | None = None,
    status: str | None = None,
    subgoal_id: str | None = None,
    subgoal_status: str | None = None,
    entities: Sequence[str] | str | None = None,
    constraints: Sequence[str] | str | None = None,
    decisions: Sequence[str] | str | None = None,
    notes: Sequence[str] | str | None = None,
    parent_task_id: str | None = None,
) -> Call[TaskState]:
    """Read (no changes given) or update a task's working state (``Memory.task``)."""
    body = _body(
        user_id=user_id,
        agent_id=agent_id,
        session_id=session_id,
        goal=goal,
        status=status,
        subgoal_id=subgoal_id,
        subgoal_status=subgoal_status,
        entities=entities,
        constraints=constraints,
        decisions=decisions,
        notes=notes,
        parent_task_id=parent_task_id,
    )
    return Call("POST", f"/v1/tasks/{_segment(task_id)}", wire.task_from_json, json=body)


def consolidate(
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    session_id: str | None = None,
    reflect: bool | None = None,
) -> Call[RememberResult]:
    """Distil episodic turns into summaries (``Memory.consolidate``)."""
    body = _body(user_id=user_id, agent_id=agent_id, session_id=session_id, reflect=reflect)
    return Call("POST", "/v1/consolidate", wire.remember_from_json, json=body)


def forget(
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    session_id: str | None = None,
    older_than: datetime | float | str | None = None,
    below_utility: float | None = None,
    layer: Layer | str | None = None,
    mode: str = "archive",
    include_history: bool = True,
) -> Call[int]:
    """Archive or delete records by policy (``Memory.forget``)."""
    body = _body(
        user_id=user_id,
        agent_id=agent_id,
        session_id=session_id,
        older_than=older_than,
        below_utility=below_utility,
        layer=layer,
        mode=mode,
        include_history=include_history,
    )
    return Call("POST", "/v1/forget", lambda d: int(d["count"]), json=body)


def touch(
    records: Sequence[str | MemoryRecord],
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    session_id: str | None = None,
    now: datetime | None = None,
) -> Call[int]:
    """Record an access for decay (``Memory.touch``)."""
    ids = [r.id if isinstance(r, MemoryRecord) else r for r in records]
    body = _body(records=ids, user_id=user_id, agent_id=agent_id, session_id=session_id, now=now)
    return Call("POST", "/v1/touch", lambda d: int(d["count"]), json=body)


def resume_extraction() -> Call[int]:
    """Extract the facts of user turns whose extraction never ran (admin key)."""
    return Call("POST", "/v1/resume_extraction", lambda d: int(d["count"]), json={})


# -- recall -------------------------------------------------------------------------------
def search(
    query: str,
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    session_id: str | None = None,
    limit: int = 10,
    filters: dict[str, Any] | None = None,
    include_history: bool = False,
    score_threshold: float | None = None,
    as_of: datetime | None = None,
) -> Call[builtins.list[ScoredRecord]]:
    """Hybrid search (dense + BM25, RRF) within the scope (``Memory.search``)."""
    body = _body(
        query=query,
        user_id=user_id,
        agent_id=agent_id,
        session_id=session_id,
        limit=limit,
        filters=filters,
        include_history=include_history,
        score_threshold=score_threshold,
        as_of=as_of,
    )
    return Call(
        "POST", "/v1/search", lambda d: [wire.hit_from_json(h) for h in d["results"]], json=body
    )


def recall(
    query: str,
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    session_id: str | None = None,
    intent: Intent | None = None,
    budget_tokens: int = 1000,
    config: RetrievalConfig | None = None,
    now: datetime | None = None,
    as_of: datetime | None = None,
    thread_session: str | None = None,
    thread_texts: Sequence[str] = (),
) -> Call[MemoryContext]:
    """Build a token-budgeted context of the memories that serve ``query`` (``Memory.recall``)."""
    body = _body(
        query=query,
        user_id=user_id,
        agent_id=agent_id,
        session_id=session_id,
        budget_tokens=budget_tokens,
        now=now,
        as_of=as_of,
        thread_session=thread_session,
        thread_texts=builtins.list(thread_texts) or None,
        intent=intent.model_dump(mode="json", exclude_defaults=True)
        if intent is not None
        else None,
        config=config.model_dump(mode="json") if config is not None else None,
    )
    return Call("POST", "/v1/recall", wire.context_from_json, json=body)


def feedback(
    record_ids: Sequence[str],
    success: bool = True,
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    session_id: str | None = None,
) -> Call[dict[str, float]]:
    """Tell PRISM whether the recalled records helped (``Memory.feedback``)."""
    body = _body(
        record_ids=builtins.list(record_ids),
        success=success,
        user_id=user_id,
        agent_id=agent_id,
        session_id=session_id,
    )
    return Call("POST", "/v1/feedback", lambda d: dict(d["utility"]), json=body)


def register_intent(name: str, **fields: Any) -> Call[None]:
    """Register a PRISM intent template on the server (admin key)."""
    body = {"name": name, "fields": _plain(fields)}
    return Call("POST", "/v1/intents", lambda d: None, json=body)


def flush_access() -> Call[int]:
    """Write the pending access statistics of past recalls now (admin key)."""
    return Call("POST", "/v1/flush_access", lambda d: int(d["count"]), json={})


def purge() -> Call[None]:
    """Erase from disk what deletions and replacements left there (``Memory.purge``; admin
    key: it rewrites the store's files for every tenant)."""
    return Call("POST", "/v1/purge", lambda d: None, json={})


def flush() -> Call[None]:
    return Call("POST", "/v1/flush", lambda d: None, json={})
