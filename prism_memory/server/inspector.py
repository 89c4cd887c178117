"""The web inspector at ``/``: look at what an agent knows, why it recalled it, and fix it.

Design:
- Plain server-rendered HTML (Jinja2 templates in ``templates/``, no script needed, no build
  step): every page is a ``GET`` with the scope in its query string, every change a ``POST``
  form followed by a redirect. Links, forms, labelled fields and a skip link make it usable
  from the keyboard alone.
- The same rules as the JSON API: the key (kept after ``/login`` in an ``HttpOnly``,
  ``SameSite=Strict`` cookie) is authenticated by the server's ``KeyRing``, every scope goes
  through ``auth.authorize``, and every page is one or two calls of ``Memory``'s public API
  (``list`` / ``search`` / ``get`` / ``recall`` / ``update`` / ``delete`` / ``release`` /
  ``stats``). A ``POST`` whose ``Origin`` (or ``Referer``) is another site is refused, and no
  page may be framed by another site.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from .. import wire
from ..errors import AuthenticationError, PermissionDeniedError, PrismError
from ..memory import Memory
from ..records import SCOPE_FIELDS, Kind, Layer, MemoryRecord
from .auth import OPEN, Principal, ScopeKwargs, authorize, default_scope
from .routes import visible_stats

__all__ = ["COOKIE", "router"]

COOKIE = "prism_key"
router = APIRouter(include_in_schema=False)
templates = Jinja2Templates(directory=str(Path(__file__).parent / "templates"))

_LAYERS = [layer.value for layer in Layer]
_KINDS = [kind.value for kind in Kind]


#: every page: no other site may frame it (clickjacking a Delete button), post its forms
#: elsewhere, or read the scope in its address from a Referer
_PAGE_HEADERS = {
    "Content-Security-Policy": (
        "frame-ancestors 'none'; form-action 'self'; base-uri 'none'; object-src 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}


class _LoginNeeded(Exception):
    pass


def _principal(request: Request) -> Principal:
    keys = request.app.state.keys
    if keys is None:
        return OPEN
    key = request.cookies.get(COOKIE)
    if not key:
        raise _LoginNeeded
    try:
        principal: Principal = keys.authenticate(f"Bearer {key}")
    except AuthenticationError:
        raise _LoginNeeded from None
    return principal


def _scope(request: Request) -> ScopeKwargs:
    scope = ScopeKwargs()
    for k in SCOPE_FIELDS:
        if v := request.query_params.get(k, "").strip():
            scope[k] = v  # type: ignore[literal-required]  # k is one of the three
    return scope


def _qs(scope: ScopeKwargs) -> str:
    return "?" + urlencode(dict(scope)) if scope else ""


def _memory(request: Request) -> Memory:
    m: Memory = request.app.state.memory
    return m


def _page(
    request: Request,
    template: str,
    page: str,
    principal: Principal | None,
    scope: ScopeKwargs,
    status: int = 200,
    **context: Any,
) -> HTMLResponse:
    label = ", ".join(f"{k}={v}" for k, v in scope.items())
    response: HTMLResponse = templates.TemplateResponse(
        request,
        template,
        {
            "title": page.strip("/").capitalize() or "Scope",
            "page": page,
            "principal": principal,
            "auth": request.app.state.keys is not None,
            "scope": scope,
            "scope_label": label,
            "scope_fields": list(scope.items()),
            "qs": _qs(scope),
            "flash": _FLASH.get(request.query_params.get("done", "")),
            **context,
        },
        status_code=status,
    )
    response.headers.update(_PAGE_HEADERS)
    return response


def _guarded(request: Request, page: str) -> tuple[Principal, ScopeKwargs] | Response:
    """The caller and the page's scope, or the response that replaces the page (log in, pick
    a scope, or a 403)."""
    try:
        principal = _principal(request)
    except _LoginNeeded:
        return RedirectResponse("/login", status_code=303)
    scope = _scope(request)
    if not scope.get("user_id") and not scope.get("agent_id"):
        return RedirectResponse("/" + _qs(scope), status_code=303)
    try:
        authorize(principal, **scope)
    except PermissionDeniedError as exc:
        return _page(
            request,
            "scope.html",
            "/",
            principal,
            scope,
            status=403,
            error=str(exc),
            users=sorted(principal.user_ids),
            agents=sorted(principal.agent_ids),
        )
    return principal, scope


def _same_origin(request: Request) -> bool:
    """Whether a form was posted from this site: its ``Origin`` (or, from a client that sends
    none, its ``Referer``) names this host; a request with neither is a script's, not a
    cross-site form's (the cookie is ``SameSite=Strict`` too)."""
    origin = request.headers.get("origin")
    if origin is None:
        origin = request.headers.get("referer")
        if origin is None:
            return True
    if not origin or origin == "null":
        return False
    return urlsplit(origin).netloc == request.headers.get("host")


#: what a change's redirect (``?done=<code>``) shows; a link can name only these, so no other
#: site can put its own words in the inspector's status line
_FLASH = {
    "Saved": "Saved.",
    "Deleted": "Deleted.",
    "Gone": "It was already gone.",
    "Released": "Released: it is recalled again.",
}


def _guarded_form(request: Request, page: str) -> tuple[Principal, ScopeKwargs] | Response:
    """:func:`_guarded` for a state-changing form: also refuses a post from another site."""
    guard = _guarded(request, page)
    if isinstance(guard, Response) or _same_origin(request):
        return guard
    principal, scope = guard
    return _page(
        request, "scope.html", "/", principal, scope, status=403, error="cross-site form refused"
    )


def _done(path: str, scope: ScopeKwargs, code: str) -> RedirectResponse:
    return RedirectResponse(path + "?" + urlencode({**dict(scope), "done": code}), status_code=303)


# -- login ----------------------------------------------------------------------------------
@router.get("/login", response_class=HTMLResponse)
def login_page(request: Request) -> Response:
    if request.app.state.keys is None:
        return RedirectResponse("/", status_code=303)
    return _page(request, "login.html", "/login", None, {})


@router.post("/login", response_class=HTMLResponse)
async def login(request: Request) -> Response:
    keys = request.app.state.keys
    if keys is None:
        return RedirectResponse("/", status_code=303)
    if not _same_origin(request):
        return _page(
            request, "login.html", "/login", None, {}, status=403, error="cross-site form refused"
        )
    form = await request.form()
    key = str(form.get("key", "")).strip()
    try:
        keys.authenticate(f"Bearer {key}")
    except AuthenticationError as exc:
        return _page(request, "login.html", "/login", None, {}, status=401, error=str(exc))
    response = RedirectResponse("/", status_code=303)
    response.set_cookie(COOKIE, key, httponly=True, samesite="strict", path="/")
    return response


@router.post("/logout")
def logout(request: Request) -> Response:
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(COOKIE, path="/")
    return response


# -- pages ----------------------------------------------------------------------------------
@router.get("/", response_class=HTMLResponse)
def scope_page(request: Request) -> Response:
    try:
        principal = _principal(request)
    except _LoginNeeded:
        return RedirectResponse("/login", status_code=303)
    scope = _scope(request)
    if not scope and not principal.admin:
        scope = default_scope(principal) or scope
    return _page(
        request,
        "scope.html",
        "/",
        principal,
        scope,
        users=sorted(principal.user_ids),
        agents=sorted(principal.agent_ids),
    )


@router.get("/memories", response_class=HTMLResponse)
def memories_page(request: Request) -> Response:
    guard = _guarded(request, "/memories")
    if isinstance(guard, Response):
        return guard
    principal, scope = guard
    m = _memory(request)
    params = request.query_params
    q = params.get("q", "").strip()
    layer = params.get("layer") or None
    kind = params.get("kind") or None
    history = params.get("history") == "1"
    try:
        rows, next_cursor = _memory_rows(m, scope, q, layer, kind, history, params.get("cursor"))
    except PrismError as exc:
        return _page(
            request,
            "memories.html",
            "/memories",
            principal,
            scope,
            status=wire.status_of(exc),
            error=str(exc),
            rows=[],
            layers=_LAYERS,
            kinds=_KINDS,
            q=q,
            layer=layer,
            kind=kind,
        )
    keep = {k: v for k, v in params.items() if k not in ("cursor", "done")}
    return _page(
        request,
        "memories.html",
        "/memories",
        principal,
        scope,
        rows=rows,
        layers=_LAYERS,
        kinds=_KINDS,
        q=q,
        layer=layer,
        kind=kind,
        history=history,
        next_cursor=next_cursor,
        next_href="/memories?" + urlencode({**keep, "cursor": next_cursor or ""}),
    )


def _memory_rows(
    m: Memory,
    scope: ScopeKwargs,
    q: str,
    layer: str | None,
    kind: str | None,
    history: bool,
    cursor: str | None,
) -> tuple[list[dict[str, Any]], str | None]:
    """The rows of the memories page and the next page's cursor: the search hits for ``q``
    (with score and routes), or a page of the list when there is no query."""
    if q:
        filters = {k: v for k, v in (("layer", layer), ("kind", kind)) if v}
        hits = m.search(q, **scope, limit=50, filters=filters or None, include_history=history)
        return [{"record": h.record, "score": h.score, "routes": h.routes} for h in hits], None
    page = m.list(
        **scope,
        layer=layer,
        kind=kind,
        limit=50,
        cursor=cursor or None,
        include_history=history,
    )
    return [{"record": r} for r in page], page.next_cursor


def _timeline(m: Memory, record: MemoryRecord, scope: ScopeKwargs) -> list[MemoryRecord]:
    """The record's versions, oldest first: follow ``supersedes`` back and ``contradicts``
    forward (both are links the write path keeps on every superseded version)."""
    seen = {record.id: record}

    def follow(start: MemoryRecord, link: str) -> list[MemoryRecord]:
        out: list[MemoryRecord] = []
        current = start
        for _ in range(50):
            nxt = next(
                (
                    r.target_id
                    for r in current.relations
                    if r.type == link and r.target_id not in seen
                ),
                None,
            )
            if nxt is None:
                break
            try:
                current = m.get(nxt, **scope)
            except PrismError:
                break
            seen[current.id] = current
            out.append(current)
        return out

    older = follow(record, "supersedes")
    newer = follow(record, "contradicts")
    versions = [*reversed(older), record, *newer]
    return sorted(versions, key=lambda r: r.valid_from or r.created_at)


@router.get("/memories/{record_id}", response_class=HTMLResponse)
def record_page(record_id: str, request: Request) -> Response:
    guard = _guarded(request, "/memories")
    if isinstance(guard, Response):
        return guard
    principal, scope = guard
    m = _memory(request)
    try:
        record = m.get(record_id, **scope)
    except PrismError as exc:
        return _page(
            request,
            "memories.html",
            "/memories",
            principal,
            scope,
            status=wire.status_of(exc),
            error=str(exc),
            rows=[],
            layers=_LAYERS,
            kinds=_KINDS,
        )
    return _page(
        request,
        "record.html",
        "/memories",
        principal,
        scope,
        record=record,
        timeline=_timeline(m, record, scope),
        kinds=_KINDS,
    )


@router.post("/memories/{record_id}/edit")
async def edit(record_id: str, request: Request) -> Response:
    guard = _guarded_form(request, "/memories")
    if isinstance(guard, Response):
        return guard
    principal, scope = guard
    form = await request.form()
    text = str(form.get("text", "")).strip() or None
    kind = str(form.get("kind", "")).strip() or None
    raw_importance = str(form.get("importance", "")).strip()
    m = _memory(request)
    try:
        importance = float(raw_importance) if raw_importance else None
        current = m.get(record_id, **scope)
        m.update(
            record_id,
            **scope,
            text=text if text != current.text else None,
            kind=kind,
            importance=importance,
        )
    except (PrismError, ValueError) as exc:
        status = wire.status_of(exc) if isinstance(exc, PrismError) else 422
        return _page(
            request,
            "memories.html",
            "/memories",
            principal,
            scope,
            status=status,
            error=str(exc),
            rows=[],
            layers=_LAYERS,
            kinds=_KINDS,
        )
    return _done(f"/memories/{record_id}", scope, "Saved")


@router.post("/memories/{record_id}/delete")
def delete(record_id: str, request: Request) -> Response:
    guard = _guarded_form(request, "/memories")
    if isinstance(guard, Response):
        return guard
    _, scope = guard
    deleted = _memory(request).delete(record_id, **scope)
    return _done("/memories", scope, "Deleted" if deleted else "Gone")


@router.get("/recall", response_class=HTMLResponse)
def recall_page(request: Request) -> Response:
    guard = _guarded(request, "/recall")
    if isinstance(guard, Response):
        return guard
    principal, scope = guard
    q = request.query_params.get("q", "").strip()
    budget_raw = request.query_params.get("budget", "1000")
    if not q:
        return _page(
            request, "recall.html", "/recall", principal, scope, q="", budget=budget_raw, ctx=None
        )
    m = _memory(request)
    try:
        budget = int(budget_raw)
        ctx = m.recall(q, **scope, budget_tokens=budget)
    except (PrismError, ValueError) as exc:
        status = wire.status_of(exc) if isinstance(exc, PrismError) else 422
        return _page(
            request,
            "recall.html",
            "/recall",
            principal,
            scope,
            status=status,
            error=str(exc),
            q=q,
            budget=budget_raw,
            ctx=None,
        )
    data = wire.context_to_json(ctx)
    left_out = []
    for entry in data["left_out"]:
        cand = ctx.trace.candidate(entry["id"])
        try:
            text = m.get(entry["id"], **scope).text
        except PrismError:
            text = ""
        left_out.append(
            {
                "id": entry["id"],
                "reason": entry["reason"],
                "text": text,
                "routes": sorted(cand.routes) if cand else [],
                "total": cand.scores.get("total") if cand else None,
            }
        )
    return _page(
        request,
        "recall.html",
        "/recall",
        principal,
        scope,
        q=q,
        budget=budget,
        ctx=ctx,
        items=data["items"],
        left_out=left_out,
    )


@router.get("/quarantine", response_class=HTMLResponse)
def quarantine_page(request: Request) -> Response:
    guard = _guarded(request, "/quarantine")
    if isinstance(guard, Response):
        return guard
    principal, scope = guard
    rows = _memory(request).list(**scope, trust="quarantined", limit=100)
    return _page(request, "quarantine.html", "/quarantine", principal, scope, rows=list(rows))


@router.post("/quarantine/{record_id}/release")
def release(record_id: str, request: Request) -> Response:
    guard = _guarded_form(request, "/quarantine")
    if isinstance(guard, Response):
        return guard
    principal, scope = guard
    try:
        _memory(request).release(record_id, **scope, note="released in the inspector")
    except PrismError as exc:
        return _page(
            request,
            "quarantine.html",
            "/quarantine",
            principal,
            scope,
            status=wire.status_of(exc),
            error=str(exc),
            rows=[],
        )
    return _done("/quarantine", scope, "Released")


@router.get("/stats", response_class=HTMLResponse)
def stats_page(request: Request) -> Response:
    guard = _guarded(request, "/stats")
    if isinstance(guard, Response):
        return guard
    principal, scope = guard
    stats = visible_stats(principal, _memory(request).stats(**scope))
    groups = [
        (title, sorted(stats.get(key, {}).items(), key=lambda kv: -kv[1]))
        for title, key in (
            ("Layers", "layers"),
            ("Kinds", "kinds"),
            ("Trust", "trust"),
            ("Status", "status"),
        )
    ]
    peak = max([v for _, counts in groups for _, v in counts] or [1])
    return _page(
        request, "stats.html", "/stats", principal, scope, stats=stats, groups=groups, peak=peak
    )
