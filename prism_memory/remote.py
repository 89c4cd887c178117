"""``RemoteMemory``: the ``Memory`` API over HTTP, against ``prism serve``.

Design:
- Same methods, signatures and return types as :class:`~prism_memory.Memory` (sync, and the
  ``a``-prefixed async twins), so code and adapters written for ``Memory`` run unchanged
  against a service shared by several processes. Each method is written once, as a function
  that turns its arguments into an :class:`_Call` (HTTP method, path, query, body, and how to
  read the answer); :func:`_sync` and :func:`_async` make the blocking and the async method
  from it (``httpx.Client`` / ``httpx.AsyncClient``), with the ``Memory`` signature.
- Answers are rebuilt into the library's own objects (``MemoryRecord``, ``ScoredRecord``,
  ``MemoryContext``, ``RememberResult``, ``RecordPage``, ...) by :mod:`prism_memory.wire`;
  a service error is raised as the library's error class (``NotFoundError``,
  ``ValidationError``, ``PermissionDeniedError``, ...) with the server's message.
- Arguments are validated where ``Memory`` would (messages are parsed here, so a bad message
  fails before anything is sent); datetimes travel as ISO 8601.
- Not mirrored: ``register_schema`` (schemas hold Python callables; register them in the
  server's process) and the engine's parts (``store``, ``embedder``, ``iter_records``, ...).
- ``httpx`` comes with the ``server`` extra and is imported when the first client is made.
"""

from __future__ import annotations

import asyncio
import builtins
import functools
import json
import os
import weakref
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar

from . import wire
from ._messages import parse_messages
from ._record_api import RecordPage
from ._transfer import ImportReport
from ._validation import new_record
from .config import RetrievalConfig
from .errors import StoreUnavailableError, ValidationError
from .layers.working import TaskState
from .records import Entity, Kind, Layer, MemoryRecord, ScoredRecord, Source, Trust
from .results import RememberResult
from .retrieval.context import MemoryContext
from .retrieval.intent import Intent

__all__ = ["RemoteMemory"]

_P = ParamSpec("_P")
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
    if isinstance(value, (list, tuple)):
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


@dataclass
class _Call(Generic[_R]):
    """One HTTP request and how to read its JSON answer."""

    method: str
    path: str
    read: Callable[[Any], _R]
    params: dict[str, str] = field(default_factory=dict)
    json: dict[str, Any] | None = None


def _sync(
    op: Callable[Concatenate[RemoteMemory, _P], _Call[_R]],
) -> Callable[Concatenate[RemoteMemory, _P], _R]:
    @functools.wraps(op)
    def call(self: RemoteMemory, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        return self._send(op(self, *args, **kwargs))

    call.__name__ = call.__qualname__ = op.__name__.lstrip("_")
    return call


def _async(
    op: Callable[Concatenate[RemoteMemory, _P], _Call[_R]],
) -> Callable[Concatenate[RemoteMemory, _P], Coroutine[Any, Any, _R]]:
    @functools.wraps(op)
    async def call(self: RemoteMemory, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        return await self._asend(op(self, *args, **kwargs))

    name = op.__name__.lstrip("_")
    call.__name__ = call.__qualname__ = f"a{name}"
    call.__doc__ = f"Async :meth:`{name}`."
    return call


def _thread_twin(
    method: Callable[Concatenate[RemoteMemory, _P], _R],
) -> Callable[Concatenate[RemoteMemory, _P], Coroutine[Any, Any, _R]]:
    """The async twin of a method that streams a local file: the same call on a worker thread."""

    @functools.wraps(method)
    async def call(self: RemoteMemory, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        return await asyncio.to_thread(method, self, *args, **kwargs)

    call.__name__ = call.__qualname__ = f"a{method.__name__}"
    call.__doc__ = f"Async :meth:`{method.__name__}`."
    return call


def _records(data: Any) -> list[MemoryRecord]:
    return [wire.record_from_json(r) for r in data["results"]]


def _messages_json(messages: Any) -> str | list[dict[str, Any]]:
    if isinstance(messages, str):
        return messages
    return [
        _body(role=t.role, content=t.text, name=t.name, timestamp=t.timestamp, id=t.id)
        for t in parse_messages(messages)
    ]


class RemoteMemory:
    """The :class:`~prism_memory.Memory` API of a memory service (``prism serve``).

    Setup:
        >>> from prism_memory import RemoteMemory
        >>> m = RemoteMemory("http://127.0.0.1:8765", api_key="...")  # doctest: +SKIP

    Use (exactly as ``Memory``; sync or async):
        >>> m.add("I prefer window seats", user_id="alice", kind="preference")  # doctest: +SKIP
        >>> ctx = m.recall("which seat?", user_id="alice", budget_tokens=300)  # doctest: +SKIP
        >>> hits = await m.asearch("seat", user_id="alice")  # doctest: +SKIP

    Every adapter takes it where it takes a ``Memory``:
    ``PrismRetriever(memory=RemoteMemory(...), user_id="alice")``.
    """

    def __init__(
        self,
        url: str = "http://127.0.0.1:8765",
        *,
        api_key: str | None = None,
        timeout: float = 60.0,
        headers: dict[str, str] | None = None,
    ) -> None:
        try:
            import httpx
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError(
                "RemoteMemory needs httpx: pip install 'prism-memory[server]'"
            ) from exc
        self.url = url.rstrip("/")
        self._headers = {"Accept": "application/json", **(headers or {})}
        if api_key is None:
            api_key = os.environ.get("PRISM_API_KEY") or None
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        self._timeout = timeout
        self._client = httpx.Client(base_url=self.url, headers=self._headers, timeout=timeout)
        self._aclients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient] = (
            weakref.WeakKeyDictionary()
        )

    # -- transport ----------------------------------------------------------------------------
    def _unavailable(self, exc: Exception) -> StoreUnavailableError:
        return StoreUnavailableError(
            f"the memory service at {self.url} did not answer ({type(exc).__name__}: {exc}); "
            "start it with `prism serve` or check the URL"
        )

    def _read(self, call: _Call[_R], status: int, content: bytes) -> _R:
        try:
            data = json.loads(content) if content else None
        except ValueError:
            data = None
        if status >= 400:
            raise wire.error_from_json(status, data)
        return call.read(data)

    def _send(self, call: _Call[_R]) -> _R:
        import httpx

        try:
            r = self._client.request(call.method, call.path, params=call.params, json=call.json)
        except httpx.TransportError as exc:
            raise self._unavailable(exc) from None
        return self._read(call, r.status_code, r.content)

    def _aclient(self) -> Any:
        import httpx

        loop = asyncio.get_running_loop()
        client = self._aclients.get(loop)
        if client is None:
            client = httpx.AsyncClient(
                base_url=self.url, headers=self._headers, timeout=self._timeout
            )
            self._aclients[loop] = client
        return client

    async def _asend(self, call: _Call[_R]) -> _R:
        import httpx

        try:
            r = await self._aclient().request(
                call.method, call.path, params=call.params, json=call.json
            )
        except httpx.TransportError as exc:
            raise self._unavailable(exc) from None
        return self._read(call, r.status_code, r.content)

    #: Validate arguments into a :class:`MemoryRecord` (no I/O), as ``Memory.build_record``.
    build_record = staticmethod(new_record)

    # -- records ------------------------------------------------------------------------------
    def _add(
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
    ) -> _Call[MemoryRecord]:
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
            entities=list(entities) if entities is not None else None,
            importance=importance,
            source=source,
            source_ids=list(source_ids) if source_ids is not None else None,
        )
        return _Call("POST", "/v1/memories", wire.record_from_json, json=body)

    def _add_many(
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
    ) -> _Call[builtins.list[MemoryRecord]]:
        """Store many memories with one embedding batch and one upsert (``Memory.add_many``)."""
        body = _body(
            items=list(items),
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            kind=kind,
            layer=layer,
            event_time=event_time,
            source=source,
        )
        return _Call("POST", "/v1/memories/batch", _records, json=body)

    def _get(
        self,
        record_id: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> _Call[MemoryRecord]:
        """The record with this id in the scope; :class:`NotFoundError` if there is none."""
        params = _query(user_id=user_id, agent_id=agent_id, session_id=session_id)
        return _Call("GET", f"/v1/memories/{_segment(record_id)}", wire.record_from_json, params)

    def _list(
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
    ) -> _Call[RecordPage]:
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
        return _Call("GET", "/v1/memories", wire.page_from_json, params)

    def _count(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        layer: Layer | str | None = None,
        include_history: bool = True,
    ) -> _Call[int]:
        """Number of records in the scope (``Memory.count``)."""
        params = _query(
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            layer=layer,
            include_history=include_history,
        )
        return _Call("GET", "/v1/count", lambda d: int(d["count"]), params)

    def _update(
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
    ) -> _Call[MemoryRecord]:
        """Change a record in place (same id); returns the new record (``Memory.update``)."""
        body = _body(
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            text=text,
            metadata=metadata,
            importance=importance,
            kind=kind,
        )
        return _Call(
            "PATCH", f"/v1/memories/{_segment(record_id)}", wire.record_from_json, json=body
        )

    def _release(
        self,
        record_id: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        note: str | None = None,
    ) -> _Call[MemoryRecord]:
        """Restore a quarantined record (``Memory.release``)."""
        body = _body(user_id=user_id, agent_id=agent_id, session_id=session_id, note=note)
        path = f"/v1/quarantine/{_segment(record_id)}/release"
        return _Call("POST", path, wire.record_from_json, json=body)

    def _stats(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        all_scopes: bool = False,
    ) -> _Call[dict[str, Any]]:
        """Counts per layer / kind / status / trust of a scope (``Memory.stats``)."""
        params = _query(
            user_id=user_id, agent_id=agent_id, session_id=session_id, all_scopes=all_scopes
        )
        return _Call("GET", "/v1/stats", dict, params)

    # -- deletion -----------------------------------------------------------------------------
    def _delete(
        self,
        record_id: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> _Call[bool]:
        """Delete one record of the scope; returns whether it existed."""
        params = _query(user_id=user_id, agent_id=agent_id, session_id=session_id)
        return _Call(
            "DELETE", f"/v1/memories/{_segment(record_id)}", lambda d: bool(d["deleted"]), params
        )

    def _delete_all(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        purge: bool = True,
    ) -> _Call[int]:
        """Delete every record of the scope (``Memory.delete_all``)."""
        params = _query(user_id=user_id, agent_id=agent_id, session_id=session_id, purge=purge)
        return _Call("DELETE", "/v1/memories", lambda d: int(d["deleted"]), params)

    def _delete_by_source(
        self,
        source: str | Source,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        purge: bool = False,
    ) -> _Call[int]:
        """Roll back everything one source wrote in the scope (``Memory.delete_by_source``)."""
        body = _body(
            source=source, user_id=user_id, agent_id=agent_id, session_id=session_id, purge=purge
        )
        return _Call("POST", "/v1/delete_by_source", lambda d: int(d["deleted"]), json=body)

    # -- write path ---------------------------------------------------------------------------
    def _remember(
        self,
        messages: Any,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        task_id: str | None = None,
        subgoal_id: str | None = None,
        event_time: datetime | str | float | None = None,
    ) -> _Call[RememberResult]:
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
        return _Call("POST", "/v1/remember", wire.remember_from_json, json=body)

    def _buffer(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> _Call[builtins.list[MemoryRecord]]:
        """The session's buffered (recent, raw) turns, oldest first."""
        params = _query(user_id=user_id, agent_id=agent_id, session_id=session_id)
        return _Call("GET", "/v1/buffer", _records, params)

    def _history(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        limit: int | None = None,
    ) -> _Call[builtins.list[MemoryRecord]]:
        """Every turn of the session, in order; the last ``limit`` if given."""
        params = _query(user_id=user_id, agent_id=agent_id, session_id=session_id, limit=limit)
        return _Call("GET", "/v1/history", _records, params)

    def _flush_buffer(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> _Call[RememberResult]:
        """Move every buffered turn of the session to the episodic layer now."""
        body = _body(user_id=user_id, agent_id=agent_id, session_id=session_id)
        return _Call("POST", "/v1/flush_buffer", wire.remember_from_json, json=body)

    def _end_session(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        consolidate: bool | None = None,
    ) -> _Call[RememberResult]:
        """Flush the session's buffer and (by policy) consolidate (``Memory.end_session``)."""
        body = _body(
            user_id=user_id, agent_id=agent_id, session_id=session_id, consolidate=consolidate
        )
        return _Call("POST", "/v1/end_session", wire.remember_from_json, json=body)

    def _task(
        self,
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
    ) -> _Call[TaskState]:
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
        return _Call("POST", f"/v1/tasks/{_segment(task_id)}", wire.task_from_json, json=body)

    def _consolidate(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        reflect: bool | None = None,
    ) -> _Call[RememberResult]:
        """Distil episodic turns into summaries (``Memory.consolidate``)."""
        body = _body(user_id=user_id, agent_id=agent_id, session_id=session_id, reflect=reflect)
        return _Call("POST", "/v1/consolidate", wire.remember_from_json, json=body)

    def _forget(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        older_than: datetime | float | str | None = None,
        below_utility: float | None = None,
        layer: Layer | str | None = None,
        mode: str = "archive",
        include_history: bool = True,
    ) -> _Call[int]:
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
        return _Call("POST", "/v1/forget", lambda d: int(d["count"]), json=body)

    def _touch(
        self,
        records: Sequence[str | MemoryRecord],
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        now: datetime | None = None,
    ) -> _Call[int]:
        """Record an access for decay (``Memory.touch``)."""
        ids = [r.id if isinstance(r, MemoryRecord) else r for r in records]
        body = _body(
            records=ids, user_id=user_id, agent_id=agent_id, session_id=session_id, now=now
        )
        return _Call("POST", "/v1/touch", lambda d: int(d["count"]), json=body)

    def _resume_extraction(self) -> _Call[int]:
        """Extract the facts of user turns whose extraction never ran (admin key)."""
        return _Call("POST", "/v1/resume_extraction", lambda d: int(d["count"]), json={})

    # -- recall -------------------------------------------------------------------------------
    def _search(
        self,
        query: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        limit: int = 10,
        filters: dict[str, Any] | None = None,
        include_history: bool = False,
        score_threshold: float | None = None,
    ) -> _Call[builtins.list[ScoredRecord]]:
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
        )
        return _Call(
            "POST", "/v1/search", lambda d: [wire.hit_from_json(h) for h in d["results"]], json=body
        )

    def _recall(
        self,
        query: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        intent: Intent | None = None,
        budget_tokens: int = 1000,
        config: RetrievalConfig | None = None,
        now: datetime | None = None,
    ) -> _Call[MemoryContext]:
        """Build a token-budgeted context of the memories that serve ``query`` (``Memory.recall``)."""
        body = _body(
            query=query,
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            budget_tokens=budget_tokens,
            now=now,
            intent=intent.model_dump(mode="json", exclude_defaults=True)
            if intent is not None
            else None,
            config=config.model_dump(mode="json") if config is not None else None,
        )
        return _Call("POST", "/v1/recall", wire.context_from_json, json=body)

    def _feedback(
        self,
        record_ids: Sequence[str],
        success: bool = True,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> _Call[dict[str, float]]:
        """Tell PRISM whether the recalled records helped (``Memory.feedback``)."""
        body = _body(
            record_ids=list(record_ids),
            success=success,
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
        )
        return _Call("POST", "/v1/feedback", lambda d: dict(d["utility"]), json=body)

    def _register_intent(self, name: str, **fields: Any) -> _Call[None]:
        """Register a PRISM intent template on the server (admin key)."""
        body = {"name": name, "fields": _plain(fields)}
        return _Call("POST", "/v1/intents", lambda d: None, json=body)

    def _flush_access(self) -> _Call[int]:
        """Write the pending access statistics of past recalls now (admin key)."""
        return _Call("POST", "/v1/flush_access", lambda d: int(d["count"]), json={})

    def _flush_now(self) -> _Call[None]:
        return _Call("POST", "/v1/flush", lambda d: None, json={})

    # -- the public methods: one sync and one async method per operation above ------------------
    add = _sync(_add)
    add_many = _sync(_add_many)
    get = _sync(_get)
    list = _sync(_list)
    count = _sync(_count)
    update = _sync(_update)
    release = _sync(_release)
    stats = _sync(_stats)
    delete = _sync(_delete)
    delete_all = _sync(_delete_all)
    delete_by_source = _sync(_delete_by_source)
    remember = _sync(_remember)
    buffer = _sync(_buffer)
    history = _sync(_history)
    flush_buffer = _sync(_flush_buffer)
    end_session = _sync(_end_session)
    task = _sync(_task)
    consolidate = _sync(_consolidate)
    forget = _sync(_forget)
    touch = _sync(_touch)
    resume_extraction = _sync(_resume_extraction)
    search = _sync(_search)
    recall = _sync(_recall)
    feedback = _sync(_feedback)
    register_intent = _sync(_register_intent)  # type: ignore[arg-type]  # **fields
    flush_access = _sync(_flush_access)

    aadd = _async(_add)
    aadd_many = _async(_add_many)
    aget = _async(_get)
    alist = _async(_list)
    acount = _async(_count)
    aupdate = _async(_update)
    arelease = _async(_release)
    astats = _async(_stats)
    adelete = _async(_delete)
    adelete_all = _async(_delete_all)
    adelete_by_source = _async(_delete_by_source)
    aremember = _async(_remember)
    abuffer = _async(_buffer)
    ahistory = _async(_history)
    aflush_buffer = _async(_flush_buffer)
    aend_session = _async(_end_session)
    atask = _async(_task)
    aconsolidate = _async(_consolidate)
    aforget = _async(_forget)
    atouch = _async(_touch)
    aresume_extraction = _async(_resume_extraction)
    asearch = _async(_search)
    arecall = _async(_recall)
    afeedback = _async(_feedback)
    aregister_intent = _async(_register_intent)  # type: ignore[arg-type]  # **fields
    aflush_access = _async(_flush_access)

    # -- export / import: streamed to and from local files ----------------------------------
    def export_jsonl(
        self,
        path: str | os.PathLike[str],
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        all_scopes: bool = False,
        vectors: bool = True,
    ) -> int:
        """Stream the service's export of a scope into the local file ``path``; returns how
        many records it holds (``Memory.export_jsonl``; ``all_scopes`` needs an admin key)."""
        import httpx

        target = Path(path)
        if not target.parent.is_dir():
            raise ValidationError(
                f"cannot export to {target}: the directory {target.parent} does not exist; "
                "create it first or pick another path"
            )
        params = _query(
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            all_scopes=all_scopes,
            vectors=vectors,
        )
        tmp = target.with_name(target.name + ".tmp")
        try:
            with self._client.stream("GET", "/v1/export", params=params) as r:
                if r.status_code >= 400:
                    self._read(_Call("GET", "/v1/export", lambda d: None), r.status_code, r.read())
                n = 0
                with open(tmp, "wb") as fh:
                    for chunk in r.iter_bytes():
                        n += chunk.count(b"\n")
                        fh.write(chunk)
            os.replace(tmp, target)
        except httpx.TransportError as exc:
            tmp.unlink(missing_ok=True)
            raise self._unavailable(exc) from None
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        return n

    def import_jsonl(
        self,
        path: str | os.PathLike[str],
        *,
        skip_bad: bool = False,
        batch_size: int = 64,
        progress: Callable[[int], None] | None = None,
        reembed: bool = False,
    ) -> ImportReport:
        """Stream the local export ``path`` to the service, which imports it
        (``Memory.import_jsonl``: a bad line imports nothing unless ``skip_bad``; a key may
        import only records of its own scopes). ``progress(n)`` is called once, at the end."""
        import httpx

        source = Path(path)
        if not source.is_file():
            raise ValidationError(f"cannot import {source}: no such file")
        params = _query(skip_bad=skip_bad, batch_size=batch_size, reembed=reembed)

        def chunks() -> Any:
            with open(source, "rb") as fh:
                while chunk := fh.read(1 << 16):
                    yield chunk

        try:
            r = self._client.post(
                "/v1/import",
                params=params,
                content=chunks(),
                headers={"Content-Type": "application/x-ndjson"},
            )
        except httpx.TransportError as exc:
            raise self._unavailable(exc) from None
        report = self._read(
            _Call("POST", "/v1/import", wire.import_report_from_json), r.status_code, r.content
        )
        if progress is not None:
            progress(report.imported)
        return report

    aexport_jsonl = _thread_twin(export_jsonl)
    aimport_jsonl = _thread_twin(import_jsonl)

    # -- durability and closing -------------------------------------------------------------
    def flush(self, timeout: float | None = None) -> None:
        """Ask the service to make acknowledged writes durable (``Memory.flush``)."""
        self._send(self._flush_now())

    async def aflush(self, timeout: float | None = None) -> None:
        """Async :meth:`flush`."""
        await self._asend(self._flush_now())

    def health(self) -> dict[str, Any]:
        """The service's ``GET /v1/health`` answer (``{"status": "ok", ...}``)."""
        result: dict[str, Any] = self._send(_Call("GET", "/v1/health", dict))
        return result

    def close(self) -> None:
        """Close the HTTP connections (the service and its store keep running)."""
        self._client.close()

    async def aclose(self) -> None:
        """Close the HTTP connections of this event loop and the blocking client."""
        try:
            loop = asyncio.get_running_loop()
            client = self._aclients.pop(loop, None)
            if client is not None:
                await client.aclose()
        finally:
            self._client.close()

    def __enter__(self) -> RemoteMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> RemoteMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"RemoteMemory({self.url!r})"


def _segment(value: str) -> str:
    """``value`` as one URL path segment."""
    from urllib.parse import quote

    if not isinstance(value, str) or not value:
        raise ValidationError(f"an id must be a non-empty string, got {value!r}")
    return quote(value, safe="")
