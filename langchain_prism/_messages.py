"""Conversion between LangChain messages and PRISM turns.

Design:
- LangChain -> PRISM: each message becomes ``{"role", "content"[, "id", "name"]}``, the
  message shape ``Memory.remember`` accepts. Content blocks are reduced to their text;
  messages without text (an AI message that only calls tools) are skipped, because a turn
  with nothing to embed carries no memory.
- PRISM -> LangChain: a turn record's ``metadata["role"]`` picks the message class; the
  first source id, when there is one, becomes the message id so a message read back can be
  matched with the one written.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    HumanMessage,
    SystemMessage,
)

from prism_memory.messages import content_text
from prism_memory.records import MemoryRecord

__all__ = [
    "last_human_id",
    "last_human_text",
    "message_text",
    "record_to_message",
    "role_of",
    "to_turns",
    "turn_tail",
]

# every message class of langchain_core.messages by its ``type`` (chunks included): tool and
# function output must never be read as the user's own words
_ROLE_OF_TYPE = {
    "human": "user",
    "HumanMessageChunk": "user",
    "user": "user",
    "ai": "assistant",
    "AIMessageChunk": "assistant",
    "assistant": "assistant",
    "system": "system",
    "SystemMessageChunk": "system",
    "developer": "system",
    "tool": "tool",
    "ToolMessageChunk": "tool",
    "function": "tool",
    "FunctionMessageChunk": "tool",
}
# a ChatMessage / ChatMessageChunk carries its role in ``.role``
_CHAT_TYPES = ("chat", "ChatMessageChunk")
_CHAT_ROLES = {
    "human": "user",
    "user": "user",
    "ai": "assistant",
    "assistant": "assistant",
    "system": "system",
    "developer": "system",
    "tool": "tool",
    "function": "tool",
}


def message_text(message: Any) -> str:
    """The text a message is remembered as, stripped: text blocks joined, images, audio and
    files as one-line references (``prism_memory.messages.content_text``, the core's one
    rule, so a prompt's message and its stored turn read the same). Tool calls are actions,
    not memories: an AI message that only calls tools has no text."""
    content = getattr(message, "content", message)
    try:
        return content_text(content).strip()
    except TypeError:
        return ""


def last_human_id(messages: Sequence[BaseMessage]) -> str | None:
    """The id of the latest user message (``None`` when it has none)."""
    for message in reversed(messages):
        if role_of(message) == "user":
            return str(message.id) if getattr(message, "id", None) else None
    return None


def role_of(message: BaseMessage) -> str | None:
    """The PRISM role of a LangChain message (``None`` for a type that carries no turn, such as
    ``RemoveMessage``, or one this version does not know)."""
    kind = getattr(message, "type", None)
    if kind in _CHAT_TYPES:
        role = str(getattr(message, "role", "")).strip()
        return _CHAT_ROLES.get(role.lower(), role or None)
    return _ROLE_OF_TYPE.get(kind) if isinstance(kind, str) else None


def _role(message: BaseMessage) -> str:
    role = role_of(message)
    if role is None:
        raise ValueError(
            f"cannot remember a {type(message).__name__} (type {message.type!r}): it is no "
            "human, ai, system, tool, function or chat message; drop it before saving"
        )
    return role


def to_turns(messages: Iterable[BaseMessage]) -> list[dict[str, str]]:
    """LangChain messages as ``remember`` turns; messages without text are left out.

    The role comes from the message's class (``type``), chunks included: a
    ``ToolMessageChunk`` is a tool turn, never the user's.
    """
    turns: list[dict[str, str]] = []
    for message in messages:
        text = message_text(message)
        if not text:
            continue
        turn = {"role": _role(message), "content": text}
        if message.id:
            turn["id"] = str(message.id)
        if getattr(message, "name", None):
            turn["name"] = str(message.name)
        turns.append(turn)
    return turns


def record_to_message(record: MemoryRecord) -> BaseMessage:
    """A stored turn as the LangChain message it came from."""
    role = str(record.metadata.get("role") or record.provenance.source.value)
    msg_id = record.provenance.source_ids[0] if record.provenance.source_ids else record.id
    meta = {"prism_id": record.id, "event_time": _iso(record)}
    if role == "user":
        return HumanMessage(content=record.text, id=msg_id, additional_kwargs=meta)
    if role == "assistant":
        return AIMessage(content=record.text, id=msg_id, additional_kwargs=meta)
    if role == "system":
        return SystemMessage(content=record.text, id=msg_id, additional_kwargs=meta)
    return ChatMessage(role=role, content=record.text, id=msg_id, additional_kwargs=meta)


def _iso(record: MemoryRecord) -> str:
    return record.time.isoformat()


def last_human_text(messages: Sequence[BaseMessage]) -> str:
    """Text of the latest user message, or ``""`` when there is none."""
    for message in reversed(messages):
        if role_of(message) == "user":
            text = message_text(message)
            if text:
                return text
    return ""


def turn_tail(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The latest exchange: the last user message and the messages after it."""
    for i in range(len(messages) - 1, -1, -1):
        if role_of(messages[i]) == "user":
            return list(messages[i:])
    return []
