"""Where each ``Memory`` method goes over HTTP, for :class:`~prism_memory.remote.RemoteMemory`.

Design: no Python signature is written here. ``RemoteMemory`` binds a call's arguments to the
signature of the ``Memory`` method of the same name (``inspect.signature``) and hands the bound
arguments, by name, to :func:`call`, which looks the method's :class:`Route` up in
:data:`ROUTES`: the HTTP method, the path (``{name}`` segments are filled from the argument of
that name), whether the other arguments travel as the JSON body or the query, how an argument
is encoded when its plain JSON form is not what the server reads, and how the answer becomes
the library's objects (:mod:`prism_memory.wire`). Every argument is sent under its own name, as
the server's request models (``server/models.py``, the wire contract) name it; ``None`` is
left out. No I/O here; the transport (sync or async) lives in ``remote.py``.

Example:
    >>> c = call("get", {"record_id": "r/1", "user_id": "alice", "agent_id": None,
    ...                  "session_id": None})
    >>> c.method, c.path, c.params
    ('GET', '/v1/memories/r%2F1', {'user_id': 'alice'})
"""

from __future__ import annotations

import builtins
import json
import string
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Any, Generic, TypeVar
from urllib.parse import quote

from . import wire
from ._messages import parse_messages
from .errors import ValidationError
from .records import Entity, MemoryRecord
from .results import DeleteReport

__all__ = [
    "ROUTES",
    "Call",
    "Route",
    "call",
    "query_params",
]

_R = TypeVar("_R")


def _plain(value: Any) -> Any:
    """A JSON-ready form of an argument (enums by value, datetimes in ISO 8601, sequences as
    lists)."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Entity):
        return value.model_dump()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (Sequence, AbstractSet, Iterator)) and not isinstance(value, (str, bytes)):
        return [_plain(v) for v in value]
    return value


def query_params(**params: Any) -> dict[str, str]:
    """Query parameters: ``None`` left out, booleans as ``true`` / ``false``, dicts as JSON."""
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


def _segment(value: Any) -> str:
    """``value`` as one URL path segment."""
    if not isinstance(value, str) or not value:
        raise ValidationError(f"an id must be a non-empty string, got {value!r}")
    return quote(value, safe="")


@dataclass
class Call(Generic[_R]):
    """One HTTP request and how to read its JSON answer."""

    method: str
    path: str
    read: Callable[[Any], _R]
    params: dict[str, str] = field(default_factory=dict)
    json: dict[str, Any] | None = None


@dataclass(frozen=True)
class Route(Generic[_R]):
    """Where one method's call goes and how its answer comes back (see the module docstring)."""

    method: str
    path: str
    read: Callable[[Any], _R]
    in_body: bool = True
    encode: Mapping[str, Callable[[Any], Any]] = field(default_factory=dict)

    def call(self, arguments: Mapping[str, Any]) -> Call[_R]:
        """The request for these bound arguments (a path id that is no string: ``ValidationError``)."""
        args = dict(arguments)
        segments = {n: _segment(args.pop(n)) for _, n, _, _ in _FORMAT.parse(self.path) if n}
        path = self.path.format_map(segments)
        for name, encode in self.encode.items():
            if name in args:
                args[name] = encode(args[name])
        if self.in_body:
            return Call(self.method, path, self.read, json=_body(**args))
        return Call(self.method, path, self.read, query_params(**args))


_FORMAT = string.Formatter()


# -- answers and argument encodings -------------------------------------------------------
def _records(data: Any) -> builtins.list[MemoryRecord]:
    return [wire.record_from_json(r) for r in data["results"]]


def _count(key: str) -> Callable[[Any], int]:
    return lambda d: int(d[key])


def _nothing(data: Any) -> None:
    return None


def _delete_report(d: Any) -> DeleteReport:
    by_layer = d.get("by_layer") or {"unknown": int(d["deleted"])}
    return DeleteReport(by_layer, d.get("by_surface") or {})


def _messages_json(messages: Any) -> str | builtins.list[dict[str, Any]]:
    """Messages parsed here, so a bad message fails before anything is sent."""
    if isinstance(messages, str):
        return messages
    return [
        _body(role=t.role, content=t.text, name=t.name, timestamp=t.timestamp, id=t.id)
        for t in parse_messages(messages)
    ]


def _record_ids(records: Any) -> builtins.list[Any]:
    return [r.id if isinstance(r, MemoryRecord) else r for r in records]


def _model(**dump: Any) -> Callable[[Any], Any]:
    return lambda v: v.model_dump(mode="json", **dump) if v is not None else None


def _omitted(value: Any) -> None:  # an argument only the in-process Memory reads
    return None


_QUERY, _BODY = False, True

#: every ``Memory`` method ``RemoteMemory`` mirrors, by name (``history`` is :func:`_history`)
ROUTES: dict[str, Route[Any]] = {
    # records
    "add": Route("POST", "/v1/memories", wire.record_from_json),
    "add_many": Route("POST", "/v1/memories/batch", _records),
    "get": Route("GET", "/v1/memories/{record_id}", wire.record_from_json, _QUERY),
    "list": Route("GET", "/v1/memories", wire.page_from_json, _QUERY),
    "count": Route("GET", "/v1/count", _count("count"), _QUERY),
    "update": Route("PATCH", "/v1/memories/{record_id}", wire.record_from_json),
    "release": Route("POST", "/v1/quarantine/{record_id}/release", wire.record_from_json),
    "stats": Route("GET", "/v1/stats", dict, _QUERY),
    "restore": Route("POST", "/v1/memories/{memory_id}/restore", wire.record_from_json),
    # deletion
    "delete": Route("DELETE", "/v1/memories/{record_id}", lambda d: bool(d["deleted"]), _QUERY),
    "delete_all": Route("DELETE", "/v1/memories", _delete_report, _QUERY),
    "delete_by_source": Route("POST", "/v1/delete_by_source", _count("deleted")),
    "purge": Route("POST", "/v1/purge", _nothing),
    # write path
    "remember": Route(
        "POST", "/v1/remember", wire.remember_from_json, encode={"messages": _messages_json}
    ),
    "remember_fact": Route("POST", "/v1/remember_fact", wire.remember_from_json),
    "buffer": Route("GET", "/v1/buffer", _records, _QUERY),
    "session_turns": Route("GET", "/v1/session_turns", _records, _QUERY),
    "flush_buffer": Route("POST", "/v1/flush_buffer", wire.remember_from_json),
    "end_session": Route("POST", "/v1/end_session", wire.remember_from_json),
    "task": Route("POST", "/v1/tasks/{task_id}", wire.task_from_json),
    "consolidate": Route("POST", "/v1/consolidate", wire.remember_from_json),
    "forget": Route("POST", "/v1/forget", _count("count")),
    "touch": Route("POST", "/v1/touch", _count("count"), encode={"records": _record_ids}),
    "resume_extraction": Route("POST", "/v1/resume_extraction", _count("count")),
    # recall
    "search": Route("POST", "/v1/search", lambda d: [wire.hit_from_json(h) for h in d["results"]]),
    "recall": Route(
        "POST",
        "/v1/recall",
        wire.context_from_json,
        encode={
            "thread_texts": lambda v: builtins.list(v) or None,
            "intent": _model(exclude_defaults=True),
            "config": _model(),
        },
    ),
    "feedback": Route("POST", "/v1/feedback", lambda d: dict(d["utility"])),
    "register_intent": Route("POST", "/v1/intents", _nothing),
    "flush_access": Route("POST", "/v1/flush_access", _count("count")),
    # durability: the service flushes now, it has no background steps to wait for
    "flush": Route("POST", "/v1/flush", _nothing, encode={"timeout": _omitted}),
}

_VERSIONS = Route(
    "GET",
    "/v1/memories/{memory_id}/history",
    lambda d: [wire.version_from_json(v) for v in d["results"]],
    _QUERY,
)


def _history(arguments: Mapping[str, Any]) -> Call[Any]:
    """A memory's versions; without ``memory_id`` the session's turns (deprecated, as in
    ``Memory``)."""
    args = dict(arguments)
    if args["memory_id"] is not None:
        return _VERSIONS.call(args)
    warnings.warn(
        "RemoteMemory.history(user_id=..., session_id=...) without a memory id is the "
        "session transcript and is deprecated: call session_turns(...) for the turns, "
        "history(memory_id, ...) for a memory's versions",
        DeprecationWarning,
        stacklevel=4,  # _history, call, the RemoteMemory method, its caller
    )
    del args["memory_id"]
    return ROUTES["session_turns"].call(args)


def call(name: str, arguments: Mapping[str, Any]) -> Call[Any]:
    """The request for ``Memory.<name>`` called with these arguments (bound by name, defaults
    applied)."""
    if name == "history":
        return _history(arguments)
    return ROUTES[name].call(arguments)
