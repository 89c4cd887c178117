"""The ASGI application of ``prism serve``: the JSON API, MCP at ``/mcp`` and the inspector.

Design:
- :func:`create_app` composes the parts over one ``Memory`` it is given (and does not own):
  ``routes.router`` (``/v1``), ``inspector.router`` (``/``) and, when the ``mcp`` extra is
  installed, the MCP SDK's streamable-HTTP endpoint (``/mcp``) behind the same API keys.
  :func:`serve` checks the bind address against the keys, loads the model and the store's
  indexes (so ``/v1/health`` answering means ready) and runs uvicorn; ``prism serve`` opens
  the ``Memory`` before and closes it (flushed) after.
- Errors: a :class:`~prism_memory.errors.PrismError` answers with its class name, message and
  status (:mod:`prism_memory.wire`); a malformed body answers 422 ``ValidationError`` naming
  the field; anything else 500 ``ServiceError`` without a traceback (logged on the server).
- API docs: ``/openapi.json``, Swagger UI at ``/docs`` and ReDoc at ``/redoc``, whose scripts
  the app serves itself (``fastapi-offline`` ships them), so they work with no network.
- Limits (:mod:`.limits`): every body is size-limited; the time to answer is limited on every
  route but MCP's streams and the streamed export / import.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, MutableMapping
from typing import TYPE_CHECKING, Any

from ..errors import AuthenticationError, PermissionDeniedError, PrismError, ValidationError
from ..memory import Memory
from ..wire import error_to_json, status_of
from .auth import KeyRing, check_bind, is_loopback

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = [
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_MAX_IMPORT_BYTES",
    "DEFAULT_TIMEOUT",
    "create_app",
    "serve",
]

log = logging.getLogger("prism_memory.server")

DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024
DEFAULT_MAX_IMPORT_BYTES = 1024 * 1024 * 1024
DEFAULT_TIMEOUT = 60.0


def _require_server_extra() -> None:
    try:
        import fastapi  # noqa: F401
        import fastapi_offline  # noqa: F401
        import jinja2  # noqa: F401
        import orjson  # noqa: F401
        import python_multipart  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        raise ImportError(
            f"prism serve needs the server extra ({exc.name} is missing): "
            "pip install 'prism-memory[server]'"
        ) from exc


def _mcp_asgi(memory: Memory, keys: KeyRing | None, host: str) -> tuple[Any, Any] | None:
    """The MCP endpoint (an ASGI app) and its session manager, or ``None`` without the SDK."""
    try:
        from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
    except ImportError:
        log.warning("MCP is off: pip install 'prism-memory[mcp]' to serve it at /mcp")
        return None
    from .mcp import build_mcp_server, key_scope

    server = build_mcp_server(memory, key_scope(keys))
    # builds the session manager (stateless JSON: any call, any worker, one POST each)
    server.streamable_http_app(
        streamable_http_path="/mcp", stateless_http=True, json_response=True, host=host
    )
    manager = server.session_manager
    endpoint = StreamableHTTPASGIApp(manager)

    class Guarded:
        """The MCP endpoint behind the API keys (an ASGI app, not a request handler)."""

        async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
            # the same keys as the API: no MCP session starts without one
            if keys is not None and scope["type"] == "http":
                headers = {k.decode().lower(): v.decode() for k, v in scope.get("headers", [])}
                try:
                    keys.authenticate(headers.get("authorization"))
                except AuthenticationError as exc:
                    from starlette.responses import JSONResponse

                    await JSONResponse(error_to_json(exc), status_code=401)(scope, receive, send)
                    return
            await endpoint(scope, receive, send)

    return Guarded(), manager


class _LoopbackHostOnly:
    """Open mode (no keys, loopback only): answer only requests addressed to a loopback host.
    A web page cannot reach a loopback port by its own name, but DNS rebinding makes its name
    resolve to 127.0.0.1; its requests then carry its own ``Host``, which this refuses (every
    caller is admin in open mode)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = dict(scope.get("headers", []))
            host = headers.get(b"host", b"").decode("latin-1")
            name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
            if not is_loopback(name.strip("[]")):
                from starlette.responses import JSONResponse

                exc = PermissionDeniedError(
                    f"this server runs without API keys and answers only requests addressed to "
                    f"a loopback host, not {host!r}; call it as 127.0.0.1 or localhost, or "
                    "start it with --api-keys"
                )
                await JSONResponse(error_to_json(exc), status_code=403)(scope, receive, send)
                return
        await self.app(scope, receive, send)


class _AnswerUnexpected:
    """Answer an unexpected error with a JSON 500 ``ServiceError`` (logged with its traceback
    on the server) and keep the connection open for the client's next call."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watched(message: MutableMapping[str, Any]) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception as exc:
            from starlette.responses import JSONResponse

            if isinstance(exc, PrismError):  # raised past the handlers (e.g. by a stream)
                status = status_of(exc)
            else:
                status = 500
                log.exception("unexpected error in %s %s", scope.get("method"), scope.get("path"))
            if started:  # the answer is half-sent: only closing the connection tells the client
                raise
            await JSONResponse(error_to_json(exc), status_code=status)(scope, receive, send)


def _document_keys(app: Any) -> None:
    """Name the API keys in the OpenAPI schema (a bearer scheme), so the docs' "Authorize"
    button sends ``Authorization: Bearer <key>`` with "Try it out"."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema: dict[str, Any] = build()
            schemes = schema.setdefault("components", {}).setdefault("securitySchemes", {})
            schemes["apiKey"] = {
                "type": "http",
                "scheme": "bearer",
                "description": "A key from the server's --api-keys file (open mode: any value).",
            }
            schema["security"] = [{"apiKey": []}]
        result: dict[str, Any] = app.openapi_schema
        return result

    app.openapi = openapi


def _answer_errors(app: FastAPI) -> None:
    """The app's error answers: a :class:`PrismError` with its status; a malformed body as a
    422 ``ValidationError`` naming the field; an unknown route or method as JSON naming it."""
    from fastapi import Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse
    from starlette.exceptions import HTTPException as StarletteHTTPException

    @app.exception_handler(PrismError)
    async def prism_error(request: Request, exc: PrismError) -> JSONResponse:
        return JSONResponse(error_to_json(exc), status_code=status_of(exc))

    @app.exception_handler(RequestValidationError)
    async def bad_body(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body") or "body"
        exc2 = ValidationError(
            f"{where}: {first.get('msg', 'invalid')}; see /docs for the request schema"
        )
        return JSONResponse(error_to_json(exc2), status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if isinstance(exc.__cause__, PrismError):  # e.g. a streamed body over the limit
            return JSONResponse(error_to_json(exc.__cause__), status_code=status_of(exc.__cause__))
        if exc.status_code == 400:  # a body FastAPI could not parse (e.g. nested too deeply)
            bad = ValidationError(
                f"{request.method} {request.url.path}: the body could not be read as JSON "
                f"({exc.detail}); send one JSON object (nested at most a few hundred levels)"
            )
            return JSONResponse(error_to_json(bad), status_code=422)
        name = {404: "NotFoundError", 405: "ValidationError"}.get(exc.status_code, "ServiceError")
        message = f"{request.method} {request.url.path}: {exc.detail}; see /docs for the routes"
        return JSONResponse(
            {"error": name, "message": message, "status": exc.status_code},
            status_code=exc.status_code,
        )


def _api_app(memory: Memory, keys: KeyRing | None, mounted: tuple[Any, Any] | None) -> FastAPI:
    """The FastAPI app holding ``memory`` and ``keys``, running the MCP session manager (if
    mounted) for its lifetime; its /docs and /redoc load their scripts from this server."""
    from fastapi_offline import FastAPIOffline

    from .. import __version__

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        if mounted is None:
            yield
        else:
            async with mounted[1].run():
                yield

    # a FastAPI app whose /docs (Swagger UI) and /redoc load their scripts from this server
    # (under /static-offline-docs), not from a CDN: the API docs work offline
    app = FastAPIOffline(
        title="PRISM memory service",
        version=__version__,
        summary="Long-term memory for LLM agents over HTTP: the prism_memory.Memory API, "
        "scoped by API key.",
        lifespan=lifespan,
    )
    app.state.memory = memory
    app.state.keys = keys
    _document_keys(app)
    return app


def create_app(
    memory: Memory,
    *,
    keys: KeyRing | None = None,
    host: str = "127.0.0.1",
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    max_import_bytes: int = DEFAULT_MAX_IMPORT_BYTES,
    request_timeout: float = DEFAULT_TIMEOUT,
    mcp: bool = True,
) -> Any:
    """The service's ASGI app over ``memory`` (which the caller keeps and closes).

    >>> from prism_memory import Memory
    >>> from prism_memory.server import create_app, load_keys
    >>> app = create_app(Memory(path="./.prism"), keys=load_keys("keys.json"))  # doctest: +SKIP
    >>> # uvicorn.run(app, host="127.0.0.1", port=8765)
    """
    _require_server_extra()
    from starlette.routing import Route

    from . import inspector, routes
    from .limits import LimitsMiddleware

    mounted = _mcp_asgi(memory, keys, host) if mcp else None
    app = _api_app(memory, keys, mounted)
    _answer_errors(app)

    # an unexpected error is answered by a middleware, not `exception_handler(Exception)`:
    # Starlette re-raises after such a handler, and uvicorn then drops the connection, so a
    # keep-alive client's next call failed with a reset
    app.add_middleware(_AnswerUnexpected)
    if keys is None:
        app.add_middleware(_LoopbackHostOnly)

    app.include_router(routes.router)
    app.include_router(inspector.router)
    if mounted is not None:
        app.router.routes.append(
            Route("/mcp", endpoint=mounted[0], methods=["GET", "POST", "DELETE"])
        )

    return LimitsMiddleware(
        app,
        max_body_bytes=max_body_bytes,
        timeout=request_timeout,
        large=("/v1/import",),
        max_large_bytes=max_import_bytes,
        # MCP streams; an export is written whole before its answer starts
        untimed=("/mcp", "/v1/import", "/v1/export"),
    )


def serve(
    memory: Memory,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    keys: KeyRing | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    max_import_bytes: int = DEFAULT_MAX_IMPORT_BYTES,
    request_timeout: float = DEFAULT_TIMEOUT,
    log_level: str = "warning",
) -> None:
    """Serve ``memory`` until interrupted (``prism serve``). The caller closes ``memory``
    afterwards (which flushes the store).

    >>> serve(Memory(path="./.prism"), port=8765, keys=load_keys("keys.json"))  # doctest: +SKIP
    """
    _require_server_extra()
    import uvicorn

    check_bind(host, keys)
    # load the embedding model, tokenizer and store indexes now, so /v1/health answers only once
    # the first real call will be fast (a recall in a scope nobody uses writes nothing)
    memory.recall("warm up", user_id="prism-serve-warm-up", budget_tokens=50)
    app = create_app(
        memory,
        keys=keys,
        host=host,
        max_body_bytes=max_body_bytes,
        max_import_bytes=max_import_bytes,
        request_timeout=request_timeout,
    )
    config = uvicorn.Config(
        app, host=host, port=port, log_level=log_level, lifespan="on", timeout_graceful_shutdown=5
    )
    uvicorn.Server(config).run()
