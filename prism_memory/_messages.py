"""Turning what an agent passes to ``remember`` into turns.

Accepted shapes (no adapter import needed):
- a ``str`` (one user turn);
- a list of dicts ``{"role", "content"[, "name", "timestamp", "id"]}``;
- objects with ``.type`` / ``.content`` [/ ``.id`` / ``.name``] (LangChain messages, chunks
  included: a ``ToolMessageChunk`` is a tool turn), or a single such object or dict.
Content may be a list of content blocks (LangChain multimodal); text blocks are joined.
Everything is validated before anything is written: a bad message raises ``ValidationError``
naming its index, and nothing is stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from ._validation import MAX_TEXT_CHARS, check_speaker, check_string, has_visible_text
from .errors import ValidationError

__all__ = ["ROLES", "Turn", "parse_messages", "parse_time"]

ROLES = ("user", "assistant", "system", "tool")
_ROLE_ALIASES = {
    "user": "user",
    "human": "user",
    "assistant": "assistant",
    "ai": "assistant",
    "model": "assistant",
    "bot": "assistant",
    "system": "system",
    "developer": "system",
    "tool": "tool",
    "function": "tool",
    # LangChain message chunks carry their class name as ``type``
    "humanmessagechunk": "user",
    "aimessagechunk": "assistant",
    "systemmessagechunk": "system",
    "toolmessagechunk": "tool",
    "functionmessagechunk": "tool",
}
_CHAT_TYPES = (None, "chat", "ChatMessageChunk")  # the role is in ``.role``
MAX_MESSAGES = 10_000


@dataclass
class Turn:
    """One message, normalised: ``role`` is one of user/assistant/system/tool.

    Example:
        >>> parse_messages([{"role": "human", "content": "hi", "id": "m1"}])[0]
        Turn(text='hi', role='user', name=None, timestamp=None, id='m1')
    """

    text: str
    role: str
    name: str | None = None
    timestamp: datetime | None = None
    id: str | None = None


def parse_time(value: Any, what: str = "timestamp") -> datetime | None:
    """A datetime from a datetime, an ISO-8601 string or epoch seconds (UTC when naive)."""
    if value is None:
        return None
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            dt = datetime.fromtimestamp(float(value), tz=timezone.utc)
        except (ValueError, OverflowError, OSError):
            raise ValidationError(
                f"{what} {value!r} is not a usable epoch time (seconds since 1970, within "
                "years 1-9999); pass a datetime or an ISO-8601 string"
            ) from None
    elif isinstance(value, str):
        try:
            dt = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise ValidationError(
                f"{what} {value!r} is not a date: pass a datetime, an ISO-8601 string "
                "('2024-05-08T13:56:00') or epoch seconds"
            ) from None
    else:
        raise ValidationError(
            f"{what} must be a datetime, an ISO-8601 string or epoch seconds, "
            f"got {type(value).__name__}"
        )
    dt = dt if dt.tzinfo is not None else dt.replace(tzinfo=timezone.utc)
    try:
        dt.astimezone(timezone.utc)
    except OverflowError:
        raise ValidationError(
            f"{what} {dt.isoformat()} falls outside years 1-9999 once converted to UTC; pass a "
            "time within that range"
        ) from None
    return dt


def _content_text(content: Any, where: str) -> str:
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        parts: list[str] = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, Mapping) and isinstance(block.get("text"), str):
                parts.append(block["text"])
        text = "\n".join(p for p in parts if p)
    else:
        raise ValidationError(
            f"{where}: content must be a string or a list of content blocks, "
            f"got {type(content).__name__}"
        )
    if not text.strip() or not has_visible_text(text):
        raise ValidationError(
            f"{where}: content is empty (or only invisible characters); drop the message or "
            "give it text"
        )
    check_string(text, f"{where}: content")
    if len(text) > MAX_TEXT_CHARS:
        raise ValidationError(
            f"{where}: content has {len(text)} characters; the limit is {MAX_TEXT_CHARS}. "
            "Split it into several messages"
        )
    return text


def _role(raw: Any, where: str) -> str:
    role = _ROLE_ALIASES.get(str(raw).strip().lower()) if isinstance(raw, str) else None
    if role is None:
        raise ValidationError(
            f"{where}: unknown role {raw!r}; use one of user, assistant, system, tool "
            "(or LangChain's human, ai)"
        )
    return role


def _opt_str(value: Any, what: str, where: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, (int, str)) and not isinstance(value, bool) and str(value).strip():
        return check_string(str(value), f"{where}: {what}")
    raise ValidationError(f"{where}: {what} must be a non-empty string, got {value!r}")


def _name(value: Any, where: str) -> str | None:
    """A message's ``name`` (stored as the turn's speaker): a one-line name, or refused."""
    name = _opt_str(value, "name", where)
    return None if name is None else check_speaker(name, f"{where}: name")


def _one(item: Any, where: str) -> Turn:
    if isinstance(item, Mapping):
        unknown = set(item) - {"role", "content", "name", "timestamp", "id", "type", "text"}
        if unknown:
            raise ValidationError(
                f"{where}: unknown keys {sorted(unknown)}; a message has role, content and "
                "optionally name, timestamp, id"
            )
        raw_role = item.get("role", item.get("type", "user"))
        content = item.get("content", item.get("text"))
        if content is None:
            raise ValidationError(f"{where}: a message dict needs 'content'")
        return Turn(
            text=_content_text(content, where),
            role=_role(raw_role, where),
            name=_name(item.get("name"), where),
            timestamp=parse_time(item.get("timestamp"), f"{where}: timestamp"),
            id=_opt_str(item.get("id"), "id", where),
        )
    if hasattr(item, "content") and (hasattr(item, "type") or hasattr(item, "role")):
        raw_role = getattr(item, "type", None)
        if raw_role in _CHAT_TYPES:
            raw_role = getattr(item, "role", "user")
        meta = getattr(item, "additional_kwargs", None) or {}
        return Turn(
            text=_content_text(item.content, where),
            role=_role(raw_role, where),
            name=_name(getattr(item, "name", None), where),
            timestamp=parse_time(meta.get("timestamp"), f"{where}: timestamp")
            if isinstance(meta, Mapping)
            else None,
            id=_opt_str(getattr(item, "id", None), "id", where),
        )
    raise ValidationError(
        f"{where} must be a string, a {{'role', 'content'}} dict or a message object with "
        f".type and .content, got {type(item).__name__}"
    )


def parse_messages(messages: Any) -> list[Turn]:
    """Validate ``messages`` into turns; raises ``ValidationError`` before anything is stored."""
    if isinstance(messages, str):
        return [Turn(text=_content_text(messages, "text"), role="user")]
    if isinstance(messages, Mapping) or hasattr(messages, "content"):
        return [_one(messages, "message")]
    if not isinstance(messages, (list, tuple)):
        raise ValidationError(
            "messages must be a string, a list of {'role', 'content'} dicts or LangChain "
            f"messages; got {type(messages).__name__}"
        )
    if not messages:
        raise ValidationError("messages is an empty list; pass at least one message")
    if len(messages) > MAX_MESSAGES:
        raise ValidationError(
            f"{len(messages)} messages in one call; the limit is {MAX_MESSAGES}: remember them "
            "in several calls"
        )
    turns: list[Turn] = []
    for i, item in enumerate(messages):
        if isinstance(item, str):
            turns.append(Turn(text=_content_text(item, f"message {i}"), role="user"))
        else:
            turns.append(_one(item, f"message {i}"))
    ids = [t.id for t in turns if t.id is not None]
    if len(ids) != len(set(ids)):
        dup = sorted({i for i in ids if ids.count(i) > 1})
        raise ValidationError(
            f"message ids {dup} appear more than once in one call; ids must be unique"
        )
    return turns
