"""Request limits: body size and time to answer, as one pure ASGI middleware.

Design:
- Body size: a declared ``Content-Length`` over the limit is refused at once (413) and never
  read; a streamed body is counted as it arrives and refused when it passes the limit. Paths
  listed in ``large`` (the streamed import) get their own, larger limit.
- Time: a request that has not started its answer after ``timeout`` seconds gets a 504. A
  handler running on a worker thread cannot be stopped half-way, so a write may still complete
  after its 504; retrying it is safe (ids are deterministic). Once an answer has started (a
  streamed export, an MCP event stream) the limit no longer applies.
- Both answers are the service's JSON error (``RequestLimitError``) with a message saying
  which server flag to raise.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from ..errors import RequestLimitError
from ..wire import error_to_json

__all__ = ["LimitsMiddleware"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


async def _send_error(send: Send, status: int, message: str) -> None:
    exc = RequestLimitError(message)
    body = json.dumps({**error_to_json(exc), "status": status}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class LimitsMiddleware:
    """Refuse bodies over ``max_body_bytes`` (``large`` paths: ``max_large_bytes``) and answer
    504 when no answer has started within ``timeout`` seconds."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        max_body_bytes: int,
        timeout: float,
        large: tuple[str, ...] = (),
        max_large_bytes: int = 0,
        untimed: tuple[str, ...] = (),
    ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.timeout = timeout
        self.large = large
        self.max_large_bytes = max_large_bytes
        self.untimed = untimed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Stages: the path's body limit; a declared length over it refused unread; the app
        run with the body counted as it arrives, under the time limit unless the path is
        untimed; a body found over the limit before the answer started answered 413."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope.get("path", "")
        limit, flag = self._body_limit(path)
        declared = _declared_over(scope, limit)
        if declared is not None:
            await _send_error(
                send,
                413,
                f"the request body is {declared} bytes; this server accepts "
                f"{limit} (raise it with prism serve {flag})",
            )
            return
        started = asyncio.Event()

        async def watched_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                started.set()
            await send(message)

        run = self.app(scope, _counted(receive, limit, flag), watched_send)
        try:
            if path.startswith(self.untimed) and self.untimed:
                await run
            else:
                await self._within_timeout(run, started, send)
        except RequestLimitError:
            if not started.is_set():
                await _send_error(
                    send, 413, f"the request body is over {limit} bytes; raise prism serve {flag}"
                )

    def _body_limit(self, path: str) -> tuple[int, str]:
        """The body limit of ``path`` and the server flag that raises it."""
        limit = (
            self.max_large_bytes
            if path.startswith(self.large) and self.large
            else self.max_body_bytes
        )
        flag = (
            "--max-import-bytes"
            if limit == self.max_large_bytes and self.large
            else "--max-body-bytes"
        )
        return limit, flag

    async def _within_timeout(
        self, run: Awaitable[None], started: asyncio.Event, send: Send
    ) -> None:
        """Run the app; answer 504 (and cancel it) when no answer started within the timeout."""
        task = asyncio.ensure_future(run)
        waiter = asyncio.ensure_future(started.wait())
        try:
            done, _ = await asyncio.wait(
                {task, waiter}, timeout=self.timeout, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            waiter.cancel()
        if not done:
            task.cancel()
            await _send_error(
                send,
                504,
                f"no answer within {self.timeout:g} s (prism serve --request-timeout); "
                "a write may still complete on the server, and retrying it is safe",
            )
            return
        await task


def _declared_over(scope: Scope, limit: int) -> int | None:
    """A ``Content-Length`` the request declares over ``limit``, if any."""
    for name, value in scope.get("headers", []):
        if name == b"content-length" and value.isdigit() and int(value) > limit:
            return int(value)
    return None


def _counted(receive: Receive, limit: int, flag: str) -> Receive:
    """``receive`` counting the body's bytes; past ``limit`` it raises
    :class:`RequestLimitError` (the app answers 413, ``wire.status_of``)."""
    seen = 0

    async def counted_receive() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                raise RequestLimitError(
                    f"the request body is over {limit} bytes; raise prism serve {flag}"
                )
        return message

    return counted_receive
