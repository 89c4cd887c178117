"""What ``prism`` reads from its command line: the store to open, the scope, and the values
of options (JSON objects, times, filters, messages), refused with a ``ValidationError`` that
shows the expected form.

Design:
- One place opens the ``Memory`` of a command line (:func:`open_memory`): store options,
  ``QDRANT_API_KEY`` for a server, the embedding model; ``Memory`` is imported when a command
  runs, so ``prism --help`` loads no model.
- Parsers are pure: a string in, a value or a ``ValidationError`` out.
- ``remember`` takes messages from its arguments or stdin: a JSON list of ``{"role",
  "content"}`` messages (or one such object), else plain text, one message per line
  (``assistant: ...`` / ``user: ...`` / ``system: ...`` prefixes set the role).
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypedDict

from .._validation import MAX_JSON_DEPTH
from ..errors import ValidationError

if TYPE_CHECKING:
    from ..memory import Memory

__all__ = [
    "ScopeKwargs",
    "open_memory",
    "parse_as_of",
    "parse_filters",
    "parse_json_object",
    "parse_messages",
    "parse_time",
    "scope_kwargs",
]


def open_memory(
    args: argparse.Namespace, *, embedder: Any = None, default_path: str | None = None
) -> Memory:
    """A :class:`~prism_memory.Memory` for the store options of a parsed command line."""
    from ..memory import Memory

    path = getattr(args, "path", None) or None
    url = getattr(args, "url", None) or None
    location = getattr(args, "location", None) or None
    api_key = getattr(args, "api_key", None) or None
    if path is None and url is None and location is None:
        path = default_path
    if api_key is not None and url is None:
        raise ValidationError("--api-key is only used with --url (a Qdrant server)")
    if url is not None and api_key is None:
        api_key = os.environ.get("QDRANT_API_KEY") or None
    emb = embedder if embedder is not None else getattr(args, "embedding_model", None)
    return Memory(path=path, url=url, location=location, api_key=api_key, embedder=emb)


class ScopeKwargs(TypedDict):
    user_id: str | None
    agent_id: str | None
    session_id: str | None


def scope_kwargs(args: argparse.Namespace) -> ScopeKwargs:
    return {
        "user_id": getattr(args, "user_id", None),
        "agent_id": getattr(args, "agent_id", None),
        "session_id": getattr(args, "session_id", None),
    }


def parse_json_object(value: str, what: str) -> dict[str, Any]:
    try:
        data = json.loads(value)
    except json.JSONDecodeError as exc:
        raise ValidationError(
            f"{what} is not valid JSON ({exc.msg}); pass e.g. '{{\"k\": 1}}'"
        ) from None
    except RecursionError:
        raise ValidationError(
            f"{what} is nested too deeply to read (at most {MAX_JSON_DEPTH} levels); flatten "
            "it, e.g. store the deep part as a JSON string"
        ) from None
    if not isinstance(data, dict):
        raise ValidationError(f"{what} must be a JSON object, e.g. '{{\"k\": 1}}'")
    return data


def parse_time(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ValidationError(
            f"--event-time {value!r} is not an ISO date/time; use e.g. 2024-05-13T10:00:00+00:00"
        ) from None


def parse_as_of(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ValidationError(
            f"--as-of needs an ISO 8601 date or time, e.g. 2026-04-01 or 2026-04-01T09:00Z; "
            f"got {value!r}"
        ) from None


def parse_filters(items: Sequence[str] | None) -> dict[str, Any] | None:
    """``key=value`` pairs (value parsed as JSON when it is JSON, e.g. a list) into a dict."""
    if not items:
        return None
    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise ValidationError(
                f"--filter {item!r} must look like key=value, e.g. --filter kind=preference"
            )
        try:
            out[key] = json.loads(raw)
        except json.JSONDecodeError:
            out[key] = raw
    return out


_ROLES = ("user", "assistant", "system", "tool")


def _text_messages(text: str) -> list[dict[str, str]]:
    """Plain text as messages: one per non-empty line, ``role: `` prefixes honoured."""
    messages: list[dict[str, str]] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        role, sep, rest = line.partition(":")
        if sep and role.strip().lower() in _ROLES and rest.strip():
            messages.append({"role": role.strip().lower(), "content": rest.strip()})
        else:
            messages.append({"role": "user", "content": line.strip()})
    return messages


def parse_messages(chunks: Sequence[str]) -> list[Any]:
    """Messages from ``remember``'s arguments or stdin (JSON messages or plain text lines)."""
    messages: list[Any] = []
    for chunk in chunks:
        stripped = chunk.strip()
        if stripped[:1] in ("[", "{"):
            try:
                data = json.loads(stripped)
            except json.JSONDecodeError as exc:
                raise ValidationError(
                    f"remember: input starts like JSON but is not valid JSON ({exc.msg} at line "
                    f'{exc.lineno}); pass a JSON list of {{"role", "content"}} messages or '
                    "plain text"
                ) from None
            items = data if isinstance(data, list) else [data]
            if not all(isinstance(i, (dict, str)) for i in items):
                raise ValidationError(
                    'remember: JSON input must be a list of {"role": ..., "content": ...} '
                    "messages (or strings)"
                )
            messages.extend(items)
        else:
            messages.extend(_text_messages(chunk))
    if not messages:
        raise ValidationError(
            "remember: no messages; pass them as arguments (prism remember 'I moved to Lyon' "
            "--user alice) or on stdin (a JSON messages list or text lines)"
        )
    return messages
