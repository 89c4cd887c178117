"""``RemoteMemory``: the ``Memory`` API over HTTP, against ``prism serve``.

Design:
- Same methods, signatures and return types as :class:`~prism_memory.Memory` (sync, and the
  ``a``-prefixed async twins), so code and adapters written for ``Memory`` run unchanged
  against a service shared by several processes. Each method is written once, in
  ``_remote_calls.py``, as a function with ``Memory``'s signature that turns its arguments
  into a ``Call`` (HTTP method, path, query, body, and how to read the answer); :func:`_sync`
  and :func:`_async` make the blocking and the async method from it (``httpx.Client`` /
  ``httpx.AsyncClient``).
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
import functools
import inspect
import json
import os
import weakref
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

from . import _remote_calls as calls
from . import wire
from ._remote_calls import Call, _query
from ._transfer import ImportReport
from ._validation import new_record
from .errors import PrismError, ScopeError, StoreUnavailableError, ValidationError
from .records import SCOPE_FIELDS

__all__ = ["RemoteMemory"]

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _loads(content: bytes) -> Any:
    try:
        import orjson  # the server extra's fast parser; the stdlib's otherwise
    except ImportError:  # pragma: no cover - depends on the environment
        return json.loads(content)
    return orjson.loads(content)


def _method_signature(op: Callable[..., Any]) -> inspect.Signature:
    """``op``'s signature as a method's: ``self`` first, and the answer's type as the return."""
    sig = inspect.signature(op)
    returns = str(sig.return_annotation)
    if returns.startswith("Call[") and returns.endswith("]"):
        returns = returns[5:-1]
    me = inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)
    return sig.replace(parameters=[me, *sig.parameters.values()], return_annotation=returns)


def _request_parts(call: Call[Any]) -> dict[str, Any]:
    """The query and body of a call as httpx sends them. The body is JSON with every non-ASCII
    character escaped and NaN / Infinity written as Python's ``json`` writes them, so what
    ``Memory`` refuses (a lone surrogate, a NaN) reaches the server, whose answer is the
    library's own error, instead of failing to encode here. A query value that cannot be sent
    (a lone surrogate has no UTF-8 form) is the library's ``ValidationError``."""
    parts: dict[str, Any] = {}
    if call.params:
        for name, value in call.params.items():
            if isinstance(value, str):
                try:
                    value.encode("utf-8")
                except UnicodeEncodeError:
                    error = ScopeError if name in SCOPE_FIELDS else ValidationError
                    raise error(
                        f"{name} holds a lone surrogate, which cannot be sent (it has no UTF-8 "
                        "form); pass text of real characters"
                    ) from None
        parts["params"] = call.params
    if call.json is not None:
        parts["content"] = json.dumps(call.json, separators=(",", ":")).encode("ascii")
        parts["headers"] = {"content-type": "application/json"}
    return parts


def _sync(op: Callable[_P, Call[_R]]) -> Callable[Concatenate[RemoteMemory, _P], _R]:
    @functools.wraps(op)
    def method(self: RemoteMemory, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        return self._send(op(*args, **kwargs))

    method.__signature__ = _method_signature(op)  # type: ignore[attr-defined]
    return method


def _async(
    op: Callable[_P, Call[_R]],
) -> Callable[Concatenate[RemoteMemory, _P], Coroutine[Any, Any, _R]]:
    @functools.wraps(op)
    async def method(self: RemoteMemory, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        return await self._asend(op(*args, **kwargs))

    method.__name__ = method.__qualname__ = f"a{op.__name__}"
    method.__doc__ = f"Async :meth:`{op.__name__}`."
    method.__signature__ = _method_signature(op)  # type: ignore[attr-defined]
    return method


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
        self._closed = False
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

    def _read(self, call: Call[_R], status: int, content: bytes) -> _R:
        try:
            data = _loads(content) if content else None
        except ValueError:
            data = None
        if status >= 400:
            raise wire.error_from_json(status, data)
        return call.read(data)

    def _check_open(self) -> None:
        if self._closed:
            raise PrismError(
                "this RemoteMemory is closed; create a new RemoteMemory(...) to keep using it"
            )

    def _send(self, call: Call[_R]) -> _R:
        import httpx

        self._check_open()
        try:
            r = self._client.request(call.method, call.path, **_request_parts(call))
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

    async def _asend(self, call: Call[_R]) -> _R:
        import httpx

        self._check_open()
        try:
            r = await self._aclient().request(call.method, call.path, **_request_parts(call))
        except httpx.TransportError as exc:
            raise self._unavailable(exc) from None
        return self._read(call, r.status_code, r.content)

    #: Validate arguments into a :class:`MemoryRecord` (no I/O), as ``Memory.build_record``.
    build_record = staticmethod(new_record)

    # -- the public methods: one sync and one async method per operation above ------------------
    add = _sync(calls.add)
    add_many = _sync(calls.add_many)
    get = _sync(calls.get)
    list = _sync(calls.list)
    count = _sync(calls.count)
    update = _sync(calls.update)
    release = _sync(calls.release)
    stats = _sync(calls.stats)
    delete = _sync(calls.delete)
    delete_all = _sync(calls.delete_all)
    delete_by_source = _sync(calls.delete_by_source)
    remember = _sync(calls.remember)
    remember_fact = _sync(calls.remember_fact)
    buffer = _sync(calls.buffer)
    history = _sync(calls.history)
    session_turns = _sync(calls.session_turns)
    restore = _sync(calls.restore)
    flush_buffer = _sync(calls.flush_buffer)
    end_session = _sync(calls.end_session)
    task = _sync(calls.task)
    consolidate = _sync(calls.consolidate)
    forget = _sync(calls.forget)
    touch = _sync(calls.touch)
    resume_extraction = _sync(calls.resume_extraction)
    search = _sync(calls.search)
    recall = _sync(calls.recall)
    feedback = _sync(calls.feedback)
    register_intent = _sync(calls.register_intent)  # type: ignore[arg-type]  # **fields
    flush_access = _sync(calls.flush_access)
    purge = _sync(calls.purge)

    aadd = _async(calls.add)
    aadd_many = _async(calls.add_many)
    aget = _async(calls.get)
    alist = _async(calls.list)
    acount = _async(calls.count)
    aupdate = _async(calls.update)
    arelease = _async(calls.release)
    astats = _async(calls.stats)
    adelete = _async(calls.delete)
    adelete_all = _async(calls.delete_all)
    adelete_by_source = _async(calls.delete_by_source)
    aremember = _async(calls.remember)
    aremember_fact = _async(calls.remember_fact)
    abuffer = _async(calls.buffer)
    ahistory = _async(calls.history)
    asession_turns = _async(calls.session_turns)
    arestore = _async(calls.restore)
    aflush_buffer = _async(calls.flush_buffer)
    aend_session = _async(calls.end_session)
    atask = _async(calls.task)
    aconsolidate = _async(calls.consolidate)
    aforget = _async(calls.forget)
    atouch = _async(calls.touch)
    aresume_extraction = _async(calls.resume_extraction)
    asearch = _async(calls.search)
    arecall = _async(calls.recall)
    afeedback = _async(calls.feedback)
    aregister_intent = _async(calls.register_intent)  # type: ignore[arg-type]  # **fields
    aflush_access = _async(calls.flush_access)
    apurge = _async(calls.purge)

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
                    self._read(Call("GET", "/v1/export", lambda d: None), r.status_code, r.read())
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
            Call("POST", "/v1/import", wire.import_report_from_json), r.status_code, r.content
        )
        if progress is not None:
            progress(report.imported)
        return report

    aexport_jsonl = _thread_twin(export_jsonl)
    aimport_jsonl = _thread_twin(import_jsonl)

    # -- durability and closing -------------------------------------------------------------
    def flush(self, timeout: float | None = None) -> None:
        """Ask the service to make acknowledged writes durable (``Memory.flush``)."""
        self._send(calls.flush())

    async def aflush(self, timeout: float | None = None) -> None:
        """Async :meth:`flush`."""
        await self._asend(calls.flush())

    def health(self) -> dict[str, Any]:
        """The service's ``GET /v1/health`` answer (``{"status": "ok", ...}``)."""
        result: dict[str, Any] = self._send(Call("GET", "/v1/health", dict))
        return result

    def close(self) -> None:
        """Close the HTTP connections (the service and its store keep running). A call after
        it raises the ``PrismError`` a closed ``Memory`` raises."""
        self._closed = True
        self._client.close()

    async def aclose(self) -> None:
        """Close the HTTP connections of this event loop and the blocking client."""
        self._closed = True
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
