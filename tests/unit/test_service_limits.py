"""Body size and time limits of the service (the ASGI middleware alone, on a tiny app)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from prism_memory.server.limits import LimitsMiddleware


async def _call(
    app: Any, path: str, body: bytes, *, declared: bool = True
) -> tuple[int, dict[str, Any]]:
    sent: list[dict[str, Any]] = []
    chunks = [body[i : i + 1000] for i in range(0, len(body), 1000)] or [b""]

    async def receive() -> dict[str, Any]:
        chunk = chunks.pop(0) if chunks else b""
        return {"type": "http.request", "body": chunk, "more_body": bool(chunks)}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    headers = [(b"content-length", str(len(body)).encode())] if declared else []
    await app({"type": "http", "path": path, "headers": headers}, receive, send)
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    payload = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, json.loads(payload) if payload.startswith(b"{") else {}


async def echo(scope: Any, receive: Any, send: Any) -> None:
    size = 0
    while True:
        message = await receive()
        size += len(message.get("body", b""))
        if not message.get("more_body"):
            break
    if scope["path"] == "/slow":
        await asyncio.sleep(5)
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": json.dumps({"size": size}).encode()})


def _app(**kw: Any) -> LimitsMiddleware:
    return LimitsMiddleware(
        echo, max_body_bytes=2000, timeout=0.2, large=("/import",), max_large_bytes=10_000, **kw
    )


async def test_bodies_over_the_limit_are_refused_declared_or_streamed() -> None:
    app = _app()
    assert await _call(app, "/v1/x", b"a" * 1500) == (200, {"size": 1500})
    status, body = await _call(app, "/v1/x", b"a" * 2500)
    assert (
        status == 413
        and body["error"] == "RequestLimitError"
        and "--max-body-bytes" in body["message"]
    )
    status, body = await _call(app, "/v1/x", b"a" * 2500, declared=False)  # chunked, no length
    assert status == 413
    assert (await _call(app, "/import", b"a" * 9000))[0] == 200  # the import's own limit
    status, body = await _call(app, "/import", b"a" * 12_000)
    assert status == 413 and "--max-import-bytes" in body["message"]


async def test_a_request_that_does_not_answer_in_time_gets_504() -> None:
    status, body = await _call(_app(), "/slow", b"")
    assert (
        status == 504
        and "--request-timeout" in body["message"]
        and "retrying it is safe" in body["message"]
    )
