"""``RemoteMemory``: the ``Memory`` API over HTTP, against ``prism serve``.

Design:
- Same methods, signatures and return types as :class:`~prism_memory.Memory` (sync, and the
  ``a``-prefixed async twins), so code and adapters written for ``Memory`` run unchanged
  against a service shared by several processes. No signature is written here: each method is
  made from the ``Memory`` method of its name (:func:`_remote` gives the blocking method and
  its async twin: its ``inspect.signature``, docstring and, for mypy, its parameter types),
  binds its arguments
  to that signature and sends the :class:`~prism_memory._remote_calls.Call` that
  ``_remote_calls.ROUTES`` makes of them (``httpx.Client`` / ``httpx.AsyncClient``). Export and
  import stream local files (:func:`_local` gives them ``Memory``'s signature too).
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
from ._remote_calls import Call, query_params
from ._transfer import ImportReport
from ._validation import new_record
from .errors import PrismError, ScopeError, StoreUnavailableError, ValidationError
from .memory import Memory
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


def _method_signature(method: Callable[..., Any]) -> inspect.Signature:
    """``Memory``'s signature of ``method``, with ``self`` positional-only."""
    sig = inspect.signature(method)
    me = inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)
    return sig.replace(parameters=[me, *list(sig.parameters.values())[1:]])


def _binder(
    method: Callable[..., Any],
) -> Callable[[tuple[Any, ...], dict[str, Any]], dict[str, Any]]:
    """Bind a call's arguments to ``Memory``'s signature of ``method`` (a wrong call raises the
    ``TypeError`` ``Memory`` would), by name, defaults applied."""
    sig = inspect.signature(method)

    def bind(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        bound = sig.bind(None, *args, **kwargs)
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        del arguments["self"]
        return arguments

    return bind


def _like(remote: Callable[..., Any], method: Callable[..., Any], name: str) -> None:
    """Give ``remote`` the name, signature and docstring of ``Memory``'s ``method``."""
    functools.update_wrapper(remote, method)
    remote.__name__ = name
    remote.__qualname__ = f"RemoteMemory.{name}"
    remote.__signature__ = _method_signature(method)  # type: ignore[attr-defined]


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


def _sync(
    method: Callable[Concatenate[Memory, _P], _R],
) -> Callable[Concatenate[RemoteMemory, _P], _R]:
    """The blocking method of ``RemoteMemory`` that sends ``Memory.<name>``'s call."""
    name, bind = method.__name__, _binder(method)

    def remote(self: RemoteMemory, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        result: _R = self._send(calls.call(name, bind(args, kwargs)))
        return result

    _like(remote, method, name)
    return remote


def _async(
    method: Callable[Concatenate[Memory, _P], _R],
) -> Callable[Concatenate[RemoteMemory, _P], Coroutine[Any, Any, _R]]:
    """The async twin (``a<name>``) of :func:`_sync`'s method, on ``httpx.AsyncClient``."""
    name, bind = method.__name__, _binder(method)

    async def remote(self: RemoteMemory, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        result: _R = await self._asend(calls.call(name, bind(args, kwargs)))
        return result

    _like(remote, method, f"a{name}")
    remote.__doc__ = f"Async :meth:`{name}`."
    return remote


def _remote(
    method: Callable[Concatenate[Memory, _P], _R],
) -> tuple[
    Callable[Concatenate[RemoteMemory, _P], _R],
    Callable[Concatenate[RemoteMemory, _P], Coroutine[Any, Any, _R]],
]:
    """The blocking method and its async twin for ``Memory``'s ``method``."""
    return _sync(method), _async(method)


def _local(
    method: Callable[Concatenate[Memory, _P], _R],
    run: Callable[[RemoteMemory, dict[str, Any]], _R],
) -> Callable[Concatenate[RemoteMemory, _P], _R]:
    """A method with ``Memory``'s signature of ``method`` whose work, ``run(self, arguments)``,
    is done here (streaming a local file), not by one request."""
    bind = _binder(method)

    def remote(self: RemoteMemory, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        return run(self, bind(args, kwargs))

    _like(remote, method, method.__name__)
    return remote


def _thread_twin(
    method: Callable[Concatenate[RemoteMemory, _P], _R],
) -> Callable[Concatenate[RemoteMemory, _P], Coroutine[Any, Any, _R]]:
    """The async twin of a method that streams a local file: the same call on a worker thread."""

    @functools.wraps(method)
    async def call(self: RemoteMemory, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        return await asyncio.to_thread(method, self, *args, **kwargs)

    call.__name__ = f"a{method.__name__}"
    call.__qualname__ = f"RemoteMemory.a{method.__name__}"
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

    # -- the public methods: Memory's, one request each (the sync method and its async twin)
    add, aadd = _remote(Memory.add)
    add_many, aadd_many = _remote(Memory.add_many)
    get, aget = _remote(Memory.get)
    list, alist = _remote(Memory.list)
    count, acount = _remote(Memory.count)
    update, aupdate = _remote(Memory.update)
    release, arelease = _remote(Memory.release)
    stats, astats = _remote(Memory.stats)
    delete, adelete = _remote(Memory.delete)
    delete_all, adelete_all = _remote(Memory.delete_all)
    delete_by_source, adelete_by_source = _remote(Memory.delete_by_source)
    remember, aremember = _remote(Memory.remember)
    remember_fact, aremember_fact = _remote(Memory.remember_fact)
    buffer, abuffer = _remote(Memory.buffer)
    history, ahistory = _remote(Memory.history)
    session_turns, asession_turns = _remote(Memory.session_turns)
    restore, arestore = _remote(Memory.restore)
    flush_buffer, aflush_buffer = _remote(Memory.flush_buffer)
    end_session, aend_session = _remote(Memory.end_session)
    task, atask = _remote(Memory.task)
    consolidate, aconsolidate = _remote(Memory.consolidate)
    forget, aforget = _remote(Memory.forget)
    touch, atouch = _remote(Memory.touch)
    resume_extraction, aresume_extraction = _remote(Memory.resume_extraction)
    search, asearch = _remote(Memory.search)
    recall, arecall = _remote(Memory.recall)
    feedback, afeedback = _remote(Memory.feedback)
    register_intent, aregister_intent = _remote(Memory.register_intent)  # type: ignore[arg-type]  # **fields
    flush_access, aflush_access = _remote(Memory.flush_access)
    purge, apurge = _remote(Memory.purge)
    flush, aflush = _remote(Memory.flush)

    # -- export / import: streamed to and from local files ----------------------------------
    def _export(self, args: dict[str, Any]) -> int:
        """Stream the service's export of a scope into the local file ``args["path"]``
        (``all_scopes`` needs an admin key)."""
        import httpx

        target = Path(args.pop("path"))
        if not target.parent.is_dir():
            raise ValidationError(
                f"cannot export to {target}: the directory {target.parent} does not exist; "
                "create it first or pick another path"
            )
        params = query_params(**args)
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

    def _import(self, args: dict[str, Any]) -> ImportReport:
        """Stream the local export ``args["path"]`` to the service, which imports it (a key may
        import only records of its own scopes); ``progress(n)`` is called once, at the end."""
        import httpx

        source = Path(args.pop("path"))
        progress = args.pop("progress")
        if not source.is_file():
            raise ValidationError(f"cannot import {source}: no such file")
        params = query_params(**args)

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

    export_jsonl = _local(Memory.export_jsonl, _export)
    import_jsonl = _local(Memory.import_jsonl, _import)
    aexport_jsonl = _thread_twin(export_jsonl)
    aimport_jsonl = _thread_twin(import_jsonl)

    # -- service and closing ------------------------------------------------------------------
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
