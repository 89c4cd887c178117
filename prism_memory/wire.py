"""The JSON forms of what ``Memory`` returns and raises, both ways (the service's wire format).

Design:
- One pair of pure functions per type: ``*_to_json`` (the server's responses) and
  ``*_from_json`` (``RemoteMemory`` rebuilding the very objects ``Memory`` returns), so a
  record, a search hit, a recall context, a remember result or an error crosses HTTP and comes
  back equal. Nothing here does I/O or imports a web framework.
- A record is ``MemoryRecord.model_dump(mode="json", by_alias=True)``, the same JSON as an
  export line. Hits and context items add their own fields next to ``id`` and ``text``.
- Errors travel as ``{"error": <class name>, "message": ..., "status": ...}`` with the HTTP
  status of :func:`status_of`; :func:`error_from_json` raises the same class on the client
  (an unknown name becomes :class:`ServiceError`), so ``except NotFoundError`` works remotely.

Example:
    >>> from prism_memory.records import MemoryRecord
    >>> r = MemoryRecord(text="I prefer window seats", user_id="alice")
    >>> record_from_json(record_to_json(r)) == r
    True
"""

from __future__ import annotations

from typing import Any

from . import errors
from ._record_api import RecordPage
from ._transfer import ImportReport
from .layers.working import TaskState
from .records import MemoryRecord, ScoredRecord
from .results import RecordChange, RememberResult
from .retrieval.context import CandidateTrace, ContextItem, MemoryContext, RecallTrace
from .versions import MemoryVersion

__all__ = [
    "context_from_json",
    "context_to_json",
    "error_from_json",
    "error_to_json",
    "hit_from_json",
    "hit_to_json",
    "import_report_from_json",
    "import_report_to_json",
    "page_from_json",
    "page_to_json",
    "record_from_json",
    "record_to_json",
    "remember_from_json",
    "remember_to_json",
    "status_of",
    "task_from_json",
    "task_to_json",
    "version_from_json",
    "version_to_json",
    "why_chosen",
]

_CHANGE_KINDS = ("added", "updated", "superseded", "skipped", "quarantined")


# -- versions ---------------------------------------------------------------------------------
def version_to_json(version: MemoryVersion) -> dict[str, Any]:
    """One event of a memory's history as JSON (``MemoryVersion``'s fields, ISO times)."""
    data: dict[str, Any] = version.model_dump(mode="json")
    return data


def version_from_json(data: dict[str, Any]) -> MemoryVersion:
    return MemoryVersion.model_validate(data)


# -- records ----------------------------------------------------------------------------------
def record_to_json(record: MemoryRecord) -> dict[str, Any]:
    """A record as JSON (the export line form: ``id``, ``text``, ``layer``, ``kind``, scope, ...)."""
    data: dict[str, Any] = record.model_dump(mode="json", by_alias=True)
    return data


def record_from_json(data: dict[str, Any]) -> MemoryRecord:
    return MemoryRecord.model_validate(data)


def page_to_json(page: RecordPage) -> dict[str, Any]:
    return {"results": [record_to_json(r) for r in page], "next_cursor": page.next_cursor}


def page_from_json(data: dict[str, Any]) -> RecordPage:
    return RecordPage([record_from_json(r) for r in data["results"]], data.get("next_cursor"))


# -- search hits ----------------------------------------------------------------------------
def hit_to_json(hit: ScoredRecord) -> dict[str, Any]:
    """``{"id", "text", "score", "rank_score", "routes", "route_scores", "record"}``."""
    return {
        "id": hit.id,
        "text": hit.text,
        "score": hit.score,
        "rank_score": hit.rank_score,
        "routes": list(hit.routes),
        "route_scores": dict(hit.route_scores),
        "record": record_to_json(hit.record),
    }


def hit_from_json(data: dict[str, Any]) -> ScoredRecord:
    return ScoredRecord(
        record=record_from_json(data["record"]),
        score=data["score"],
        routes=data.get("routes", []),
        route_scores=data.get("route_scores", {}),
        rank_score=data.get("rank_score", 0.0),
    )


# -- recall ---------------------------------------------------------------------------------
def why_chosen(candidate: CandidateTrace | None, item: ContextItem) -> str:
    """One sentence on why an item reached the context: the routes that found it (with its
    rank in each), its score parts, and the section it was placed in."""
    parts: list[str] = []
    if candidate is not None and candidate.routes:
        found = ", ".join(
            f"{route} #{rank + 1}" for route, rank in sorted(candidate.routes.items())
        )
        parts.append(f"found by {found}")
    elif item.neighbour_of:
        parts.append(f"neighbouring turn of {item.neighbour_of}")
    elif item.routes:
        parts.append(f"found by {', '.join(item.routes)}")
    if candidate is not None and candidate.scores:
        shown = [f"{k} {v:.2f}" for k, v in candidate.scores.items() if k != "total"]
        total = candidate.scores.get("total", item.score)
        parts.append(f"score {total:.3f}" + (f" ({', '.join(shown)})" if shown else ""))
    parts.append(f"placed in {item.section}")
    if item.compressed:
        parts.append("compressed to the sentences the query needs")
    return "; ".join(parts)


def context_to_json(ctx: MemoryContext) -> dict[str, Any]:
    """``{"text", "tokens", "budget_tokens", "records", "items", "left_out", "trace"}``.

    Each item has ``id``, ``text`` (what was shown), ``section``, ``score``, ``relevance``,
    ``routes`` and ``why`` (:func:`why_chosen`); ``left_out`` lists each candidate that did not
    reach the context with its reason. ``records`` are the chosen records in context order.
    """
    records = [record_to_json(r) for r in ctx.records]
    in_records = {r.id for r in ctx.records}
    items = []
    for item in ctx.items:
        entry: dict[str, Any] = {
            "id": item.record.id,
            "text": item.shown,
            "section": item.section,
            "score": item.score,
            "relevance": item.relevance,
            "routes": list(item.routes),
            "compressed": item.compressed,
            "neighbour_of": item.neighbour_of,
            "why": why_chosen(ctx.trace.candidate(item.record.id), item),
        }
        if item.record.id not in in_records:
            entry["record"] = record_to_json(item.record)
        items.append(entry)
    return {
        "text": ctx.text,
        "tokens": ctx.tokens,
        "budget_tokens": ctx.budget_tokens,
        "records": records,
        "items": items,
        "left_out": [{"id": rid, "reason": why} for rid, why in ctx.trace.cut().items()],
        "trace": ctx.trace.as_dict(),
    }


def _trace_from_json(data: dict[str, Any]) -> RecallTrace:
    return RecallTrace(
        intent=data.get("intent", {}),
        routes=data.get("routes", {}),
        candidates=[CandidateTrace(**c) for c in data.get("candidates", [])],
        contradictions=[(a, b) for a, b in data.get("contradictions", [])],
        expanded=data.get("expanded", []),
        compression=data.get("compression", "extractive"),
        cached=data.get("cached", False),
        timings_ms=data.get("timings_ms", {}),
    )


def context_from_json(data: dict[str, Any]) -> MemoryContext:
    records = [record_from_json(r) for r in data["records"]]
    by_id = {r.id: r for r in records}
    items = [
        ContextItem(
            record=by_id[i["id"]] if "record" not in i else record_from_json(i["record"]),
            section=i["section"],
            shown=i["text"],
            score=i.get("score", 0.0),
            routes=i.get("routes", []),
            compressed=i.get("compressed", False),
            neighbour_of=i.get("neighbour_of"),
            relevance=i.get("relevance"),
        )
        for i in data.get("items", [])
    ]
    return MemoryContext(
        text=data["text"],
        records=records,
        tokens=data["tokens"],
        budget_tokens=data["budget_tokens"],
        trace=_trace_from_json(data.get("trace", {})),
        items=items,
    )


# -- write results ----------------------------------------------------------------------------
def remember_to_json(result: RememberResult) -> dict[str, Any]:
    """``{"added": [{"record", "reason"}], "updated", "superseded", "skipped", "quarantined",
    "ids", "dropped_links"}``."""
    out: dict[str, Any] = {
        kind: [
            {"record": record_to_json(c.record), "reason": c.reason} for c in getattr(result, kind)
        ]
        for kind in _CHANGE_KINDS
    }
    out["ids"] = result.ids
    out["dropped_links"] = dict(result.dropped_links)
    return out


def remember_from_json(data: dict[str, Any]) -> RememberResult:
    result = RememberResult()
    for kind in _CHANGE_KINDS:
        getattr(result, kind).extend(
            RecordChange(record_from_json(c["record"]), c["reason"]) for c in data.get(kind, [])
        )
    dropped = data.get("dropped_links")
    if isinstance(dropped, dict):
        result.count_dropped_links({str(k): int(v) for k, v in dropped.items()})
    return result


def task_to_json(state: TaskState) -> dict[str, Any]:
    data: dict[str, Any] = state.model_dump(mode="json")
    return data


def task_from_json(data: dict[str, Any]) -> TaskState:
    return TaskState.model_validate(data)


def import_report_to_json(report: ImportReport) -> dict[str, Any]:
    return {"imported": report.imported, "skipped": report.skipped, "errors": list(report.errors)}


def import_report_from_json(data: dict[str, Any]) -> ImportReport:
    return ImportReport(
        imported=data["imported"], skipped=data["skipped"], errors=list(data["errors"])
    )


# -- errors ---------------------------------------------------------------------------------
_STATUS: tuple[tuple[type[BaseException], int], ...] = (
    (errors.AuthenticationError, 401),
    (errors.PermissionDeniedError, 403),
    (errors.NotFoundError, 404),
    (errors.QuarantinedError, 422),
    (errors.ValidationError, 422),
    (errors.ConfigError, 400),
    (errors.StoreLockedError, 503),
    (errors.StoreUnavailableError, 503),
    (errors.EmbeddingDimensionError, 409),
    (errors.RequestLimitError, 413),
    (errors.StoreError, 500),
    (errors.ExtractionError, 500),
    (errors.ServiceError, 500),
    (errors.PrismError, 400),
)


def status_of(exc: BaseException) -> int:
    """The HTTP status of a PRISM error (``ValidationError`` 422, ``NotFoundError`` 404, ...)."""
    for cls, status in _STATUS:
        if isinstance(exc, cls):
            return status
    return 500


def error_to_json(exc: BaseException) -> dict[str, Any]:
    """``{"error": class name, "message", "status"}`` (plus ``record_id`` / ``reason`` of a
    :class:`~prism_memory.errors.QuarantinedError`). Never a traceback."""
    if isinstance(exc, errors.PrismError):
        name, message = type(exc).__name__, str(exc)
    else:
        name = "ServiceError"
        message = (
            f"internal error ({type(exc).__name__}) in the memory service; the server log has "
            "the details, and retrying a write is safe (ids are deterministic)"
        )
    out: dict[str, Any] = {"error": name, "message": message, "status": status_of(exc)}
    if isinstance(exc, errors.QuarantinedError):
        out["record_id"], out["reason"] = exc.record_id, exc.reason
    return out


def error_from_json(status: int, data: Any) -> errors.PrismError:
    """The PRISM error a service answer stands for (the same class when PRISM has it)."""
    if not isinstance(data, dict) or "error" not in data:
        return errors.ServiceError(
            f"the memory service answered HTTP {status} without a PRISM error body; check that "
            "the URL points at `prism serve` (GET /v1/health answers {'status': 'ok'})"
        )
    name, message = str(data["error"]), str(data.get("message", ""))
    cls = getattr(errors, name, None)
    if name == "QuarantinedError":
        return errors.QuarantinedError(
            message, record_id=str(data.get("record_id", "")), reason=data.get("reason")
        )
    if isinstance(cls, type) and issubclass(cls, errors.PrismError):
        return cls(message)
    return errors.ServiceError(f"{name}: {message}")
