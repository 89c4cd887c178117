"""Turning what an agent passes to ``remember`` into turns.

Accepted shapes (no adapter import needed):
- a ``str`` (one user turn);
- a list of dicts ``{"role", "content"[, "name", "timestamp", "id"]}``, OpenAI
  chat-completions messages included (``tool_calls``, ``tool_call_id``, ``function_call``,
  ``refusal``, ``audio``, ``annotations``; ``content`` may be ``None`` beside tool calls);
- objects with ``.type`` / ``.content`` [/ ``.id`` / ``.name``] (LangChain messages, chunks
  included: a ``ToolMessageChunk`` is a tool turn), or a single such object or dict.
Content may be a list of content parts (OpenAI, LangChain, Anthropic shapes): text parts are
joined; images, audio, video and files are kept as one-line references (type, URL or content
hash, MIME type, file name, alt text), never their bytes and never silently dropped; tool
calls become ``[tool call: name {args}]`` lines (:func:`content_text`, :func:`calls_text`).
Everything is validated before anything is written: a bad message raises ``ValidationError``
naming its index, and nothing is stored.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from ._validation import MAX_TEXT_CHARS, check_speaker, check_string, has_visible_text
from .errors import ValidationError

__all__ = ["ROLES", "Turn", "calls_text", "content_text", "parse_messages", "parse_time"]

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
#: keys of a message dict: ours plus those of OpenAI chat completions
_DICT_KEYS = {
    "role",
    "content",
    "name",
    "timestamp",
    "id",
    "type",
    "text",
    "tool_calls",
    "tool_call_id",
    "function_call",
    "refusal",
    "audio",
    "annotations",
}


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


#: content-part types whose payload is kept as a reference (never the bytes)
_MEDIA = {
    "image": "image",
    "image_url": "image",
    "input_image": "image",
    "audio": "audio",
    "input_audio": "audio",
    "file": "file",
    "input_file": "file",
    "document": "file",
    "video": "video",
}


def _short_hash(data: Any) -> str:
    raw = data if isinstance(data, bytes) else str(data).encode("utf-8", "surrogatepass")
    return "sha256:" + hashlib.sha256(raw).hexdigest()[:16]


def _media_ref(kind: str, block: Mapping[str, Any]) -> str:
    """``[image: URL | sha256:... | file id; mime; "alt"]`` for a media content part.

    Reads the shapes of OpenAI chat completions (``image_url.url``, ``input_audio.data``,
    ``file.file_data`` / ``file_id`` / ``filename``), LangChain content blocks (``url``,
    ``base64`` / ``data``, ``file_id``, ``mime_type``, ``source_type``), Anthropic-style
    ``source`` objects and LlamaIndex blocks converted to dicts. A ``data:`` URL or inline
    bytes are kept as a content hash, never stored.
    """
    inner: Mapping[str, Any] = block
    for key in ("image_url", "input_audio", "file", "source", "audio", "document"):
        value = block.get(key)
        if isinstance(value, Mapping):
            inner = {**block, **value}
        elif isinstance(value, str) and key in ("image_url", "file"):
            inner = {**block, "url": value}
    where: str | None = None
    url = inner.get("url")
    if isinstance(url, str) and url.strip() and not url.startswith("data:"):
        where = url.strip()
    elif isinstance(url, str) and url.startswith("data:"):
        where = _short_hash(url)
    for key in ("base64", "data", "file_data", "image"):
        value = inner.get(key)
        if where is None and isinstance(value, (str, bytes)) and value:
            where = _short_hash(value)
    for key in ("file_id", "id", "path"):
        value = inner.get(key)
        if where is None and isinstance(value, str) and value.strip():
            where = f"{key.replace('_', ' ')} {value.strip()}"
    parts = [where or "no reference"]
    mime = inner.get("mime_type") or inner.get("media_type") or inner.get("format")
    if isinstance(mime, str) and mime.strip():
        parts.append(mime.strip())
    name = inner.get("filename") or inner.get("title") or inner.get("name")
    if isinstance(name, str) and name.strip():
        parts.append(name.strip())
    alt = inner.get("alt") or inner.get("alt_text") or inner.get("caption")
    if isinstance(alt, str) and alt.strip():
        parts.append(f'"{" ".join(alt.split())}"')
    return f"[{kind}: {'; '.join(parts)}]"


def content_text(content: Any) -> str:
    """The text a message's content is remembered as: text parts as they are, each image,
    audio, video or file part as a one-line reference (type, URL or content hash, MIME type,
    file name, alt text) so nothing is dropped silently, a refusal as ``[refused: ...]``.
    Unknown part types are named (``[part: type]``).

    >>> content_text([{"type": "text", "text": "Here is my cat"},
    ...               {"type": "image_url", "image_url": {"url": "https://x.org/cat.png"}}])
    'Here is my cat\\n[image: https://x.org/cat.png]'
    """
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Mapping):
        content = [content]
    if not isinstance(content, (list, tuple)):
        raise TypeError(type(content).__name__)
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
            continue
        if not isinstance(block, Mapping):
            raise TypeError(type(block).__name__)
        kind = str(block.get("type") or ("text" if "text" in block else ""))
        if kind in ("text", "input_text", "output_text") or (
            not kind and isinstance(block.get("text"), str)
        ):
            text = block.get("text")
            if isinstance(text, str):
                parts.append(text)
        elif kind == "refusal" and isinstance(block.get("refusal"), str):
            parts.append(f"[refused: {block['refusal']}]")
        elif kind in _MEDIA:
            parts.append(_media_ref(_MEDIA[kind], block))
        elif kind in ("tool_use", "tool_call", "function_call"):
            parts.append(_call_text(block))
        elif kind in ("reasoning", "thinking"):
            continue  # the model's private reasoning is not part of what was said
        else:
            parts.append(f"[part: {kind or 'unknown'}]")
    return "\n".join(p for p in parts if p)


def _call_text(call: Mapping[str, Any]) -> str:
    """``[tool call: name {"args"}]`` for an OpenAI ``tool_calls`` entry or a LangChain tool
    call (``{"name", "args"}``)."""
    fn = call.get("function") if isinstance(call.get("function"), Mapping) else call
    assert isinstance(fn, Mapping)
    name = fn.get("name") or "tool"
    args = fn.get("arguments", fn.get("args", fn.get("input")))
    if isinstance(args, str):
        shown = " ".join(args.split())
    elif args:
        shown = json.dumps(args, ensure_ascii=False, sort_keys=True, default=str)
    else:
        shown = ""
    return f"[tool call: {name} {shown}]".replace(" ]", "]")


def calls_text(calls: Any) -> str:
    """The tool calls of an assistant message (OpenAI ``tool_calls`` / ``function_call``,
    LangChain ``tool_calls``) as one line each."""
    if isinstance(calls, Mapping):
        calls = [calls]
    if not isinstance(calls, (list, tuple)):
        return ""
    return "\n".join(_call_text(c) for c in calls if isinstance(c, Mapping))


def _content_text(content: Any, where: str, calls: Any = None) -> str:
    try:
        text = content_text(content)
    except TypeError as exc:
        raise ValidationError(
            f"{where}: content must be a string or a list of content parts (text, image, "
            f"audio, file...), got {exc}"
        ) from None
    called = calls_text(calls) if calls else ""
    if called:
        text = f"{text}\n{called}" if text.strip() else called
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
        unknown = set(item) - _DICT_KEYS
        if unknown:
            raise ValidationError(
                f"{where}: unknown keys {sorted(unknown)}; a message has role, content and "
                "optionally name, timestamp, id (and the OpenAI chat-completions keys "
                "tool_calls, tool_call_id, function_call, refusal, audio, annotations)"
            )
        raw_role = item.get("role", item.get("type", "user"))
        content = item.get("content", item.get("text"))
        calls = item.get("tool_calls") or item.get("function_call")
        if content is None and item.get("refusal"):
            content = [{"type": "refusal", "refusal": item["refusal"]}]
        if content is None and isinstance(item.get("audio"), Mapping):
            content = [{"type": "audio", **item["audio"]}]
        if content is None and not calls:
            raise ValidationError(f"{where}: a message dict needs 'content'")
        return Turn(
            text=_content_text(content, where, calls),
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
            text=_content_text(item.content, where, getattr(item, "tool_calls", None)),
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
