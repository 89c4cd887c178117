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
  never the whole store in memory); an import checks the scope of every line before anything
  is written.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from .. import wire
from ..errors import PrismError, ValidationError
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
    ScopeBody,
    SearchBody,
    TaskBody,
    TouchBody,
    UpdateBody,
)

__all__ = ["caller", "memory_of", "router", "scoped"]

router = APIRouter(prefix="/v1")

_CHUNK = 1 << 16


def memory_of(request: Request) -> Memory:
    m: Memory = request.app.state.memory
    return m


def caller(request: Request) -> Principal:
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


def scope_query(
    user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
) -> ScopeQuery:
    return ScopeQuery(user_id=user_id, agent_id=agent_id, session_id=session_id)


ScopeQ = Annotated[ScopeQuery, Depends(scope_query)]


def scoped(principal: Principal, body: ScopeBody) -> dict[str, Any]:
    """The body's scope keywords, once the key is allowed to use them."""
    scope = body.scope()
    authorize(principal, **scope)
    return scope


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
def health(request: Request) -> dict[str, Any]:
    from .. import __version__

    return {"status": "ok", "version": __version__, "auth": request.app.state.keys is not None}


# -- records ------------------------------------------------------------------------------------
@router.post("/memories", tags=["records"], summary="Memory.add: store one memory as is")
def add(body: AddBody, p: Caller, m: Mem) -> dict[str, Any]:
    return wire.record_to_json(m.add(**scoped(p, body), **body.rest()))


@router.post("/memories/batch", tags=["records"], summary="Memory.add_many")
def add_many(body: AddManyBody, p: Caller, m: Mem) -> dict[str, Any]:
    records = m.add_many(**scoped(p, body), **body.rest())
    return {"results": [wire.record_to_json(r) for r in records]}


@router.get("/memories", tags=["records"], summary="Memory.list: a page of a scope's memories")
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
def delete_all(p: Caller, m: Mem, s: ScopeQ, purge: bool = True) -> dict[str, Any]:
    return {"deleted": m.delete_all(**scoped(p, s), purge=purge)}


@router.get("/memories/{record_id}", tags=["records"], summary="Memory.get")
def get(record_id: str, p: Caller, m: Mem, s: ScopeQ) -> dict[str, Any]:
    return wire.record_to_json(m.get(record_id, **scoped(p, s)))


@router.patch("/memories/{record_id}", tags=["records"], summary="Memory.update (same id)")
def update(record_id: str, body: UpdateBody, p: Caller, m: Mem) -> dict[str, Any]:
    return wire.record_to_json(m.update(record_id, **scoped(p, body), **body.rest()))


@router.delete("/memories/{record_id}", tags=["records"], summary="Memory.delete")
def delete(record_id: str, p: Caller, m: Mem, s: ScopeQ) -> dict[str, Any]:
    return {"deleted": m.delete(record_id, **scoped(p, s))}


@router.get("/count", tags=["records"], summary="Memory.count")
def count(
    p: Caller, m: Mem, s: ScopeQ, layer: str | None = None, include_history: bool = True
) -> dict[str, Any]:
    return {"count": m.count(**scoped(p, s), layer=layer, include_history=include_history)}


@router.post("/delete_by_source", tags=["records"], summary="Memory.delete_by_source")
def delete_by_source(body: DeleteBySourceBody, p: Caller, m: Mem) -> dict[str, Any]:
    return {"deleted": m.delete_by_source(**scoped(p, body), **body.rest())}


@router.get("/stats", tags=["records"], summary="Memory.stats (all_scopes: admin)")
def stats(p: Caller, m: Mem, s: ScopeQ, all_scopes: bool = False) -> dict[str, Any]:
    if all_scopes:
        require_admin(p, "stats over every tenant (all_scopes)")
    result: dict[str, Any] = json.loads(
        json.dumps(m.stats(**scoped(p, s), all_scopes=all_scopes), default=str)
    )
    return result


# -- quarantine -----------------------------------------------------------------------------
@router.get("/quarantine", tags=["quarantine"], summary="Quarantined memories of a scope")
def quarantine(
    p: Caller, m: Mem, s: ScopeQ, limit: int = 100, cursor: str | None = None
) -> dict[str, Any]:
    page = m.list(**scoped(p, s), limit=limit, cursor=cursor, trust="quarantined")
    return wire.page_to_json(page)


@router.post("/quarantine/{record_id}/release", tags=["quarantine"], summary="Memory.release")
def release(record_id: str, body: ReleaseBody, p: Caller, m: Mem) -> dict[str, Any]:
    return wire.record_to_json(m.release(record_id, **scoped(p, body), **body.rest()))


# -- recall ---------------------------------------------------------------------------------
@router.post("/search", tags=["recall"], summary="Memory.search: hybrid search in a scope")
def search(body: SearchBody, p: Caller, m: Mem) -> dict[str, Any]:
    hits = m.search(**body.rest(), **scoped(p, body))
    return {"results": [wire.hit_to_json(h) for h in hits]}


@router.post("/recall", tags=["recall"], summary="Memory.recall: the token-budgeted context")
def recall(body: RecallBody, p: Caller, m: Mem) -> dict[str, Any]:
    from ..config import RetrievalConfig

    scope = scoped(p, body)
    try:
        intent = Intent.model_validate(body.intent) if body.intent is not None else None
        config = RetrievalConfig.model_validate(body.config) if body.config is not None else None
    except PrismError:
        raise
    except ValueError as exc:
        from ..errors import pydantic_reason

        raise ValidationError(f"recall: {pydantic_reason(exc)}") from None
    ctx = m.recall(
        body.query,
        **scope,
        intent=intent,
        budget_tokens=body.budget_tokens,
        config=config,
        now=body.now,
    )
    return wire.context_to_json(ctx)


@router.post("/feedback", tags=["recall"], summary="Memory.feedback")
def feedback(body: FeedbackBody, p: Caller, m: Mem) -> dict[str, Any]:
    return {"utility": m.feedback(body.record_ids, body.success, **scoped(p, body))}


@router.post("/touch", tags=["recall"], summary="Memory.touch")
def touch(body: TouchBody, p: Caller, m: Mem) -> dict[str, Any]:
    return {"count": m.touch(body.records, **scoped(p, body), now=body.now)}


# -- write path -------------------------------------------------------------------------------
@router.post("/remember", tags=["write path"], summary="Memory.remember: conversation turns")
def remember(body: RememberBody, p: Caller, m: Mem) -> dict[str, Any]:
    return wire.remember_to_json(
        m.remember(
            body.messages,
            **scoped(p, body),
            **{k: v for k, v in body.rest().items() if k != "messages"},
        )
    )


@router.post("/end_session", tags=["write path"], summary="Memory.end_session")
def end_session(body: EndSessionBody, p: Caller, m: Mem) -> dict[str, Any]:
    return wire.remember_to_json(m.end_session(**scoped(p, body), **body.rest()))


@router.post("/flush_buffer", tags=["write path"], summary="Memory.flush_buffer")
def flush_buffer(body: ScopeBody, p: Caller, m: Mem) -> dict[str, Any]:
    return wire.remember_to_json(m.flush_buffer(**scoped(p, body)))


@router.get("/buffer", tags=["write path"], summary="Memory.buffer: the session's recent turns")
def buffer(p: Caller, m: Mem, s: ScopeQ) -> dict[str, Any]:
    return {"results": [wire.record_to_json(r) for r in m.buffer(**scoped(p, s))]}


@router.get("/history", tags=["write path"], summary="Memory.history: every turn of a session")
def history(p: Caller, m: Mem, s: ScopeQ, limit: int | None = None) -> dict[str, Any]:
    return {"results": [wire.record_to_json(r) for r in m.history(**scoped(p, s), limit=limit)]}


@router.post("/tasks/{task_id}", tags=["write path"], summary="Memory.task: read or update a task")
def task(task_id: str, body: TaskBody, p: Caller, m: Mem) -> dict[str, Any]:
    return wire.task_to_json(m.task(task_id, **scoped(p, body), **body.rest()))


@router.post("/consolidate", tags=["write path"], summary="Memory.consolidate")
def consolidate(body: ConsolidateBody, p: Caller, m: Mem) -> dict[str, Any]:
    return wire.remember_to_json(m.consolidate(**scoped(p, body), **body.rest()))


@router.post("/forget", tags=["write path"], summary="Memory.forget: archive or delete by policy")
def forget(body: ForgetBody, p: Caller, m: Mem) -> dict[str, Any]:
    return {"count": m.forget(**scoped(p, body), **body.rest())}


# -- whole-store operations ----------------------------------------------------------------------
@router.post("/flush", tags=["service"], summary="Memory.flush: make acknowledged writes durable")
def flush(p: Caller, m: Mem) -> dict[str, Any]:
    m.flush()
    return {"flushed": True}


@router.post("/intents", tags=["service"], summary="Memory.register_intent (admin)")
def register_intent(body: IntentBody, p: Caller, m: Mem) -> dict[str, Any]:
    require_admin(p, "registering an intent template (it applies to every tenant)")
    m.register_intent(body.name, **body.fields)
    return {"registered": body.name}


@router.post("/flush_access", tags=["service"], summary="Memory.flush_access (admin)")
def flush_access(p: Caller, m: Mem) -> dict[str, Any]:
    require_admin(p, "flush_access (it writes every tenant's access statistics)")
    return {"count": m.flush_access()}


@router.post("/resume_extraction", tags=["service"], summary="Memory.resume_extraction (admin)")
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


class _LineScopes:
    """Checks the scope of each JSON line of an import as the body streams in."""

    def __init__(self, principal: Principal) -> None:
        self.principal = principal
        self.partial = b""

    def feed(self, chunk: bytes) -> None:
        if self.principal.admin:
            return
        lines = (self.partial + chunk).split(b"\n")
        self.partial = lines.pop()
        for line in lines:
            self._check(line)

    def close(self) -> None:
        if not self.principal.admin:
            self._check(self.partial)

    def _check(self, line: bytes) -> None:
        try:
            data = json.loads(line)
        except ValueError:
            return  # the import reports the bad line with its number
        if isinstance(data, dict):
            authorize(
                self.principal,
                **{
                    k: v if isinstance(v, str) else None
                    for k, v in ((k, data.get(k)) for k in ("user_id", "agent_id", "session_id"))
                },
            )


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
) -> dict[str, Any]:
    memory = memory_of(request)
    checker = _LineScopes(p)
    fd, path = tempfile.mkstemp(prefix="prism-import-", suffix=".jsonl")
    try:
        with os.fdopen(fd, "wb") as fh:
            async for chunk in request.stream():
                checker.feed(chunk)
                fh.write(chunk)
        checker.close()
        report = await run_in_threadpool(
            memory.import_jsonl, path, skip_bad=skip_bad, batch_size=batch_size, reembed=reembed
        )
    finally:
        os.unlink(path)
    return wire.import_report_to_json(report)
