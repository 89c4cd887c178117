"""The JSON API under ``/v1``: one route per ``Memory`` method, each confined to the key's scopes.

Design:
- Every route does three things: authenticate (:func:`caller`), check the scope it was given
  against the key (:func:`scoped`, the one rule of ``auth.authorize``), and call the one
  ``Memory`` method it stands for; the answer is that method's result in the JSON of
  :mod:`prism_memory.wire`. No route reads the store or rebuilds a stage.
- Scopes come from the query string on ``GET`` / ``DELETE`` and from the body otherwise, named
  exactly as the library names them. Operations over every tenant (``all_scopes``, intent
  templates, resuming extraction) need an admin key.
- Handlers are plain ``def``: FastAPI runs them on its worker threads, so a slow recall does
  not hold up the event loop. Export and import stream (a temporary file on the server side,
  never the whole store in memory); an import checks the scope of every line, read by the
  import's own reader, before anything is written.
"""

from __future__ import annotations

import functools
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from typing import Annotated, Any, ParamSpec

import orjson
from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response, StreamingResponse
from pydantic import ValidationError as PydanticValidationError
from starlette.concurrency import run_in_threadpool

from .. import wire
from .._pydantic_errors import pydantic_reason
from .._transfer import line_scopes
from ..config import RetrievalConfig
from ..errors import ImportDataError, PermissionDeniedError, ValidationError
from ..memory import Memory
from ..retrieval.intent import Intent
from .auth import OPEN, Principal, authorize, require_admin
from .models import (
    AddBody,
    AddManyBody,
    ConsolidateBody,
    DeleteBySourceBody,
    EndSessionBody,
    FeedbackBody,
    ForgetBody,
    IntentBody,
    RecallBody,
    ReleaseBody,
    RememberBody,
    RememberFactBody,
    RestoreBody,
    ScopeBody,
    SearchBody,
    TaskBody,
    TouchBody,
    UpdateBody,
)

__all__ = ["caller", "memory_of", "router", "scoped", "visible_stats"]

router = APIRouter(prefix="/v1")

_CHUNK = 1 << 16
_P = ParamSpec("_P")


def _json_response(data: Any, took_s: float | None = None) -> Response:
    """``data`` as a JSON response, serialised once by orjson (FastAPI's generic encoder walks
    every value in Python, which cost more than the recall itself on large contexts), with the
    time the call took in the standard ``Server-Timing`` header (``app;dur=<ms>``)."""
    headers = {"Server-Timing": f"app;dur={took_s * 1000:.2f}"} if took_s is not None else None
    try:
        body = orjson.dumps(data, default=str)
    except TypeError:  # an integer past 64 bits (echoed from a request): the standard encoder
        body = json.dumps(data, default=str).encode()
    return Response(body, media_type="application/json", headers=headers)


def _answers_json(fn: Callable[_P, Any]) -> Callable[_P, Response]:
    """A route that returns plain JSON data, answered by :func:`_json_response`."""

    @functools.wraps(fn)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> Response:
        start = time.perf_counter()
        data = fn(*args, **kwargs)
        return _json_response(data, time.perf_counter() - start)

    return run


# Dependencies are `async def` although they do no I/O: FastAPI runs a plain `def` dependency on
# a worker thread, and each hop to a thread costs more than the work here (measured: three hops
# per call on a loaded machine cost more than the recall).
async def memory_of(request: Request) -> Memory:
    m: Memory = request.app.state.memory
    return m


async def caller(request: Request) -> Principal:
    """The principal of the request's ``Authorization: Bearer`` key (everyone is admin in
    open mode, which only listens on loopback)."""
    keys = request.app.state.keys
    if keys is None:
        return OPEN
    principal: Principal = keys.authenticate(request.headers.get("authorization"))
    return principal


Caller = Annotated[Principal, Depends(caller)]
Mem = Annotated[Memory, Depends(memory_of)]


class ScopeQuery(ScopeBody):
    """The scope as query parameters (``?user_id=alice``)."""


async def scope_query(
    user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
) -> ScopeQuery:
    return ScopeQuery(user_id=user_id, agent_id=agent_id, session_id=session_id)


ScopeQ = Annotated[ScopeQuery, Depends(scope_query)]


def scoped(principal: Principal, body: ScopeBody) -> dict[str, Any]:
    """The body's scope keywords, once the key is allowed to use them."""
    scope = body.scope()
    authorize(principal, **scope)
    return scope


def visible_stats(principal: Principal, stats: dict[str, Any]) -> dict[str, Any]:
    """``Memory.stats`` as a key may see it: where the store lives on the server (a path, a URL)
    is for admin keys only."""
    if principal.admin or not isinstance(stats.get("engine"), dict):
        return stats
    hidden = ("path", "where", "url", "location")
    return {**stats, "engine": {k: v for k, v in stats["engine"].items() if k not in hidden}}


def _json_filters(filters: str | None) -> dict[str, Any] | None:
    if filters is None:
        return None
    try:
        data = json.loads(filters)
    except json.JSONDecodeError as exc:
        raise ValidationError(
            f'filters is not valid JSON ({exc.msg}); pass e.g. filters={{"kind": "preference"}}'
        ) from None
    if not isinstance(data, dict):
        raise ValidationError('filters must be a JSON object, e.g. {"kind": "preference"}')
    return data


# -- health -------------------------------------------------------------------------------------
@router.get("/health", tags=["service"], summary="Liveness: answers once the store is open")
@_answers_json
def health(request: Request) -> dict[str, Any]:
    from .. import __version__

    return {"status": "ok", "version": __version__, "auth": request.app.state.keys is not None}


# -- records ------------------------------------------------------------------------------------
@router.post("/memories", tags=["records"], summary="Memory.add: store one memory as is")
@_answers_json
def add(body: AddBody, p: Caller, m: Mem) -> dict[str, Any]:
    return wire.record_to_json(m.add(**scoped(p, body), **body.rest()))


@router.post("/memories/batch", tags=["records"], summary="Memory.add_many")
@_answers_json
def add_many(body: AddManyBody, p: Caller, m: Mem) -> dict[str, Any]:
    records = m.add_many(**scoped(p, body), **body.rest())
    return {"results": [wire.record_to_json(r) for r in records]}


@router.get("/memories", tags=["records"], summary="Memory.list: a page of a scope's memories")
@_answers_json
def list_memories(
    p: Caller,
    m: Mem,
    s: ScopeQ,
    layer: str | None = None,
    kind: str | None = None,
    limit: int = 100,
    cursor: str | None = None,
    filters: Annotated[
        str | None, Query(description="A JSON object, as Memory.list's filters")
    ] = None,
    include_history: bool = False,
    trust: str | None = None,
) -> dict[str, Any]:
    page = m.list(
        **scoped(p, s),
        layer=layer,
        kind=kind,
        limit=limit,
        cursor=cursor,
        filters=_json_filters(filters),
        include_history=include_history,
        trust=trust,
    )
    return wire.page_to_json(page)


@router.delete("/memories", tags=["records"], summary="Memory.delete_all: every memory of a scope")
@_answers_json
def delete_all(
    p: Caller, m: Mem, s: ScopeQ, purge: bool = True, derived: bool = True
) -> dict[str, Any]:
    report = m.delete_all(**scoped(p, s), purge=purge, derived=derived)
    return {"deleted": int(report), "by_layer": report.by_layer, "by_surface": report.by_surface}


@router.get("/memories/{record_id}", tags=["records"], summary="Memory.get")
@_answers_json
def get(record_id: str, p: Caller, m: Mem, s: ScopeQ) -> dict[str, Any]:
    return wire.record_to_json(m.get(record_id, **scoped(p, s)))


@router.patch("/memories/{record_id}", tags=["records"], summary="Memory.update (same id)")
@_answers_json
def update(record_id: str, body: UpdateBody, p: Caller, m: Mem) -> dict[str, Any]:
    return wire.record_to_json(m.update(record_id, **scoped(p, body), **body.rest()))


@router.delete("/memories/{record_id}", tags=["records"], summary="Memory.delete")
@_answers_json
def delete(record_id: str, p: Caller, m: Mem, s: ScopeQ, purge: bool = False) -> dict[str, Any]:
    return {"deleted": m.delete(record_id, **scoped(p, s), purge=purge)}


@router.get("/count", tags=["records"], summary="Memory.count")
@_answers_json
def count(
    p: Caller, m: Mem, s: ScopeQ, layer: str | None = None, include_history: bool = True
) -> dict[str, Any]:
    return {"count": m.count(**scoped(p, s), layer=layer, include_history=include_history)}


@router.post("/delete_by_source", tags=["records"], summary="Memory.delete_by_source")
@_answers_json
def delete_by_source(body: DeleteBySourceBody, p: Caller, m: Mem) -> dict[str, Any]:
    return {"deleted": m.delete_by_source(**scoped(p, body), **body.rest())}


@router.get("/stats", tags=["records"], summary="Memory.stats (all_scopes: admin)")
@_answers_json
def stats(p: Caller, m: Mem, s: ScopeQ, all_scopes: bool = False) -> dict[str, Any]:
    if all_scopes:
        require_admin(p, "stats over every tenant (all_scopes)")
    return visible_stats(p, m.stats(**scoped(p, s), all_scopes=all_scopes))


# -- quarantine -----------------------------------------------------------------------------
@router.get("/quarantine", tags=["quarantine"], summary="Quarantined memories of a scope")
@_answers_json
def quarantine(
    p: Caller, m: Mem, s: ScopeQ, limit: int = 100, cursor: str | None = None
) -> dict[str, Any]:
    page = m.list(**scoped(p, s), limit=limit, cursor=cursor, trust="quarantined")
    return wire.page_to_json(page)


@router.post("/quarantine/{record_id}/release", tags=["quarantine"], summary="Memory.release")
@_answers_json
def release(record_id: str, body: ReleaseBody, p: Caller, m: Mem) -> dict[str, Any]:
    return wire.record_to_json(m.release(record_id, **scoped(p, body), **body.rest()))


# -- recall ---------------------------------------------------------------------------------
@router.post("/search", tags=["recall"], summary="Memory.search: hybrid search in a scope")
@_answers_json
def search(body: SearchBody, p: Caller, m: Mem) -> dict[str, Any]:
    hits = m.search(**body.rest(), **scoped(p, body))
    return {"results": [wire.hit_to_json(h) for h in hits]}


@router.post("/recall", tags=["recall"], summary="Memory.recall: the token-budgeted context")
@_answers_json
def recall(body: RecallBody, p: Caller, m: Mem) -> dict[str, Any]:
    scope = scoped(p, body)
    try:
        intent = Intent.model_validate(body.intent) if body.intent is not None else None
        config = RetrievalConfig.model_validate(body.config) if body.config is not None else None
    except PydanticValidationError as exc:
        raise ValidationError(f"recall: {pydantic_reason(exc)}") from None
    ctx = m.recall(
        body.query,
        **scope,
        intent=intent,
        budget_tokens=body.budget_tokens,
        config=config,
        now=body.now,
        as_of=body.as_of,
        thread_session=body.thread_session,
        thread_texts=body.thread_texts,
    )
    return wire.context_to_json(ctx)


@router.post("/feedback", tags=["recall"], summary="Memory.feedback")
@_answers_json
def feedback(body: FeedbackBody, p: Caller, m: Mem) -> dict[str, Any]:
    return {"utility": m.feedback(body.record_ids, body.success, **scoped(p, body))}


@router.post("/touch", tags=["recall"], summary="Memory.touch")
@_answers_json
def touch(body: TouchBody, p: Caller, m: Mem) -> dict[str, Any]:
    return {"count": m.touch(body.records, **scoped(p, body), now=body.now)}


# -- write path -------------------------------------------------------------------------------
@router.post("/remember", tags=["write path"], summary="Memory.remember: conversation turns")
@_answers_json
def remember(body: RememberBody, p: Caller, m: Mem) -> dict[str, Any]:
    rest = body.rest()
    messages = rest.pop("messages")
    return wire.remember_to_json(m.remember(messages, **scoped(p, body), **rest))


@router.post("/remember_fact", tags=["write path"], summary="Memory.remember_fact: a stated fact")
def remember_fact(body: RememberFactBody, p: Caller, m: Mem) -> dict[str, Any]:
    return wire.remember_to_json(
        m.remember_fact(
            body.text,
            **scoped(p, body),
            kind=body.kind,
            source=body.source,
            source_ids=body.source_ids,
            surface=body.surface,
        )
    )


@router.post("/end_session", tags=["write path"], summary="Memory.end_session")
@_answers_json
def end_session(body: EndSessionBody, p: Caller, m: Mem) -> dict[str, Any]:
    return wire.remember_to_json(m.end_session(**scoped(p, body), **body.rest()))


@router.post("/flush_buffer", tags=["write path"], summary="Memory.flush_buffer")
@_answers_json
def flush_buffer(body: ScopeBody, p: Caller, m: Mem) -> dict[str, Any]:
    return wire.remember_to_json(m.flush_buffer(**scoped(p, body)))


@router.get("/buffer", tags=["write path"], summary="Memory.buffer: the session's recent turns")
@_answers_json
def buffer(p: Caller, m: Mem, s: ScopeQ) -> dict[str, Any]:
    return {"results": [wire.record_to_json(r) for r in m.buffer(**scoped(p, s))]}


@router.get(
    "/session_turns", tags=["write path"], summary="Memory.session_turns: every turn of a session"
)
@_answers_json
def session_turns(p: Caller, m: Mem, s: ScopeQ, limit: int | None = None) -> dict[str, Any]:
    turns = m.session_turns(**scoped(p, s), limit=limit)
    return {"results": [wire.record_to_json(r) for r in turns]}


@router.get(
    "/history",
    tags=["write path"],
    summary="Deprecated: the session's turns (use /session_turns; a memory's versions are "
    "/memories/{id}/history)",
    deprecated=True,
)
@_answers_json
def history(p: Caller, m: Mem, s: ScopeQ, limit: int | None = None) -> dict[str, Any]:
    turns = m.session_turns(**scoped(p, s), limit=limit)
    return {"results": [wire.record_to_json(r) for r in turns]}


@router.get(
    "/memories/{record_id}/history",
    tags=["records"],
    summary="Memory.history: every version of a memory",
)
@_answers_json
def memory_history(
    record_id: str, p: Caller, m: Mem, s: ScopeQ, limit: int | None = None
) -> dict[str, Any]:
    versions = m.history(record_id, **scoped(p, s), limit=limit)
    return {"results": [wire.version_to_json(v) for v in versions]}


@router.post(
    "/memories/{record_id}/restore",
    tags=["records"],
    summary="Memory.restore: make an earlier version current again",
)
@_answers_json
def restore(record_id: str, body: RestoreBody, p: Caller, m: Mem) -> dict[str, Any]:
    return wire.record_to_json(m.restore(record_id, **scoped(p, body), **body.rest()))


@router.post("/tasks/{task_id}", tags=["write path"], summary="Memory.task: read or update a task")
@_answers_json
def task(task_id: str, body: TaskBody, p: Caller, m: Mem) -> dict[str, Any]:
    return wire.task_to_json(m.task(task_id, **scoped(p, body), **body.rest()))


@router.post("/consolidate", tags=["write path"], summary="Memory.consolidate")
@_answers_json
def consolidate(body: ConsolidateBody, p: Caller, m: Mem) -> dict[str, Any]:
    return wire.remember_to_json(m.consolidate(**scoped(p, body), **body.rest()))


@router.post("/forget", tags=["write path"], summary="Memory.forget: archive or delete by policy")
@_answers_json
def forget(body: ForgetBody, p: Caller, m: Mem) -> dict[str, Any]:
    return {"count": m.forget(**scoped(p, body), **body.rest())}


# -- whole-store operations ----------------------------------------------------------------------
@router.post("/flush", tags=["service"], summary="Memory.flush: make acknowledged writes durable")
@_answers_json
def flush(p: Caller, m: Mem) -> dict[str, Any]:
    m.flush()
    return {"flushed": True}


@router.post("/intents", tags=["service"], summary="Memory.register_intent (admin)")
@_answers_json
def register_intent(body: IntentBody, p: Caller, m: Mem) -> dict[str, Any]:
    require_admin(p, "registering an intent template (it applies to every tenant)")
    m.register_intent(body.name, **body.fields)
    return {"registered": body.name}


@router.post("/flush_access", tags=["service"], summary="Memory.flush_access (admin)")
@_answers_json
def flush_access(p: Caller, m: Mem) -> dict[str, Any]:
    require_admin(p, "flush_access (it writes every tenant's access statistics)")
    return {"count": m.flush_access()}


@router.post("/purge", tags=["service"], summary="Memory.purge (admin)")
@_answers_json
def purge(p: Caller, m: Mem) -> dict[str, Any]:
    require_admin(p, "purge (it rewrites the store's files for every tenant)")
    m.purge()
    return {}


@router.post("/resume_extraction", tags=["service"], summary="Memory.resume_extraction (admin)")
@_answers_json
def resume_extraction(p: Caller, m: Mem) -> dict[str, Any]:
    require_admin(p, "resume_extraction (it runs over every tenant)")
    return {"count": m.resume_extraction()}


# -- export / import (streamed) ---------------------------------------------------------------
def _stream_file(path: str) -> Iterator[bytes]:
    try:
        with open(path, "rb") as fh:
            while chunk := fh.read(_CHUNK):
                yield chunk
    finally:
        os.unlink(path)


@router.get(
    "/export",
    tags=["transfer"],
    summary="Memory.export_jsonl, streamed as JSON lines (all_scopes: admin)",
    response_class=StreamingResponse,
)
def export(
    p: Caller, m: Mem, s: ScopeQ, all_scopes: bool = False, vectors: bool = True
) -> StreamingResponse:
    if all_scopes:
        require_admin(p, "exporting every tenant (all_scopes)")
    scope = scoped(p, s)
    fd, path = tempfile.mkstemp(prefix="prism-export-", suffix=".jsonl")
    os.close(fd)
    try:
        n = m.export_jsonl(path, **scope, all_scopes=all_scopes, vectors=vectors)
    except BaseException:
        os.unlink(path)
        raise
    return StreamingResponse(
        _stream_file(path), media_type="application/x-ndjson", headers={"X-Prism-Records": str(n)}
    )


def _check_import(principal: Principal, path: str) -> None:
    """Refuse the import (403, nothing written) if one line it would write is outside the
    key's scopes; the lines are read by the import's own reader (``line_scopes``)."""
    if principal.admin:
        return
    for lineno, scope in line_scopes(path):
        try:
            authorize(principal, **scope.as_dict())
        except PermissionDeniedError as exc:
            raise PermissionDeniedError(
                f"import line {lineno}: {exc}; nothing was imported"
            ) from None


@router.post(
    "/import",
    tags=["transfer"],
    summary="Memory.import_jsonl: the body is an export (JSON lines), streamed",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
        }
    },
)
async def import_jsonl(
    request: Request,
    p: Caller,
    skip_bad: bool = False,
    batch_size: int = 64,
    reembed: bool = False,
) -> Response:
    memory = await memory_of(request)
    fd, path = tempfile.mkstemp(prefix="prism-import-", suffix=".jsonl")
    try:
        with os.fdopen(fd, "wb") as fh:
            async for chunk in request.stream():
                fh.write(chunk)
        await run_in_threadpool(_check_import, p, path)
        try:
            report = await run_in_threadpool(
                memory.import_jsonl, path, skip_bad=skip_bad, batch_size=batch_size, reembed=reembed
            )
        except ImportDataError as exc:  # its message names the server's temporary file
            raise ImportDataError(str(exc).replace(path, "the request body")) from None
    finally:
        os.unlink(path)
    return _json_response(wire.import_report_to_json(report))
