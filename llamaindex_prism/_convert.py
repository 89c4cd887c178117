"""Conversions between LlamaIndex objects and PRISM records, shared by every adapter.

Design:
- Adapters are thin: this module holds the only code that knows both shapes (``ChatMessage``
  <-> the message dicts ``Memory.remember`` takes, ``MemoryRecord`` -> ``ChatMessage`` /
  ``NodeWithScore``), so each adapter is conversion + one delegation to ``Memory``.
- The scope is validated once, up front, into a :class:`~prism_memory.Scope`; adapters never
  build store filters themselves (tenant isolation is the engine's job).
- Nothing here keeps state: every function is pure over its arguments.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, MessageRole, TextBlock
from llama_index.core.schema import NodeWithScore, TextNode

from prism_memory import ConfigError, Memory, MemoryRecord, RemoteMemory, Scope
from prism_memory.messages import content_text
from prism_memory.retrieval.intent import Intent

__all__ = [
    "NODE_LLM_METADATA_KEYS",
    "as_intent",
    "check_memory",
    "context_records",
    "context_text",
    "long_term_scope",
    "message_text",
    "messages_to_turns",
    "new_tail",
    "record_and_score",
    "record_to_message",
    "record_to_node",
    "session_turns",
]

# Roles PRISM stores (``metadata["role"]`` of a turn) for each LlamaIndex role.
_ROLE_TO_PRISM = {
    MessageRole.USER: "user",
    MessageRole.ASSISTANT: "assistant",
    MessageRole.CHATBOT: "assistant",
    MessageRole.MODEL: "assistant",
    MessageRole.SYSTEM: "system",
    MessageRole.DEVELOPER: "system",
    MessageRole.TOOL: "tool",
    MessageRole.FUNCTION: "tool",
}
_PRISM_TO_ROLE = {
    "user": MessageRole.USER,
    "assistant": MessageRole.ASSISTANT,
    "system": MessageRole.SYSTEM,
    "tool": MessageRole.TOOL,
}

# Metadata a node shows the LLM; ids, scores and bookkeeping stay out of the prompt.
NODE_LLM_METADATA_KEYS = ("event_time", "speaker")


def check_memory(memory: Any, owner: str) -> Memory:
    """``memory`` if it is a PRISM :class:`~prism_memory.Memory` (or a
    :class:`~prism_memory.RemoteMemory`, which has its API), else a :class:`ConfigError`."""
    if isinstance(memory, (Memory, RemoteMemory)):
        return memory  # type: ignore[return-value]  # RemoteMemory mirrors Memory's methods
    got = "nothing" if memory is None else type(memory).__name__
    raise ConfigError(
        f"{owner} needs a prism_memory.Memory as its first argument, got {got}; create one with "
        f"Memory(path='./.prism') and pass it: {owner}(memory, user_id='alice')"
    )


def as_intent(memory: Memory, intent: Any) -> Intent | None:
    """``intent`` as an :class:`Intent`: a registered intent name becomes ``Intent(step=name)``.

    An unknown name is a :class:`ConfigError` naming the registered ones (a typo would
    otherwise silently recall without the template).
    """
    if intent is None or isinstance(intent, Intent):
        return intent
    if isinstance(intent, str) and intent.strip():
        registered = memory.intents.names()
        if intent not in registered:
            known = ", ".join(repr(n) for n in registered) or "none yet"
            raise ConfigError(
                f"intent {intent!r} is not registered (registered: {known}); call "
                f"memory.register_intent({intent!r}, kinds=[...]) first, or pass a "
                "prism_memory.Intent"
            )
        return Intent(step=intent)
    raise ConfigError(
        f"intent must be a prism_memory.Intent or a registered intent name, got {intent!r}"
    )


def long_term_scope(
    user_id: str | None, agent_id: str | None, session_id: str | None
) -> dict[str, str]:
    """Where long-term memories of this scope live: without the session when a user or agent
    remains (facts are shared by that user's sessions); a session-only scope stays as it is."""
    return Scope.of(user_id, agent_id, session_id).widen(session=True).as_dict()


def _block_part(block: Any) -> dict[str, Any]:
    """A LlamaIndex content block as the content part ``prism_memory.messages.content_text``
    reads: text as text; image, audio, video and document blocks as references (URL, path or
    a hash of inline bytes, MIME type, title); a tool call as a call."""
    kind = str(getattr(block, "block_type", "") or "")
    if isinstance(block, TextBlock) or kind == "text":
        return {"type": "text", "text": getattr(block, "text", "") or ""}
    if kind in ("tool_call", "tool_use"):
        return {
            "type": "tool_call",
            "name": getattr(block, "tool_name", None) or "tool",
            "args": getattr(block, "tool_kwargs", None) or {},
        }
    part: dict[str, Any] = {"type": "file" if kind == "document" else kind or "unknown"}
    url = getattr(block, "url", None)
    path = getattr(block, "path", None)
    if url:
        part["url"] = str(url)
    elif path:
        part["path"] = str(path)
    for attr in ("image", "audio", "video", "data"):
        raw = getattr(block, attr, None)
        if isinstance(raw, (bytes, str)) and raw and "url" not in part and "path" not in part:
            part["data"] = raw
    for attr in ("image_mimetype", "document_mimetype", "video_mimetype", "format"):
        mime = getattr(block, attr, None)
        if isinstance(mime, str) and mime:
            part["mime_type"] = mime
    title = getattr(block, "title", None)
    if isinstance(title, str) and title:
        part["title"] = title
    return part


def message_text(message: ChatMessage) -> str:
    """The text a chat message is remembered as: text blocks joined, images, audio, video and
    documents as one-line references (never dropped silently); tool calls are actions, not
    memories, and thinking blocks are left out (``content_text``'s rule)."""
    parts = [_block_part(b) for b in message.blocks if _block_part(b)["type"] != "tool_call"]
    return content_text(parts).strip()


def messages_to_turns(messages: Iterable[ChatMessage]) -> list[dict[str, Any]]:
    """Message dicts for ``Memory.remember``; messages without text (pure tool calls) are skipped."""
    turns: list[dict[str, Any]] = []
    for message in messages:
        text = message_text(message)
        if not text.strip():
            continue
        turn: dict[str, Any] = {
            "role": _ROLE_TO_PRISM.get(message.role, "user"),
            "content": text,
        }
        name = message.additional_kwargs.get("name")
        if isinstance(name, str) and name.strip():
            turn["name"] = name
        message_id = message.additional_kwargs.get("id")
        if isinstance(message_id, str) and message_id.strip():
            turn["id"] = message_id
        turns.append(turn)
    return turns


def new_tail(stored: Sequence[tuple[str, str]], window: Sequence[tuple[str, str]]) -> int:
    """How many leading messages of ``window`` (``(role, text)``, the chat window the
    framework passes, oldest first) are already among the ``stored`` turns of the session
    (oldest first): the rest are new.

    The window is the session's latest messages, so it is aligned with the end of what was
    stored: a window wholly inside the stored turns adds nothing; otherwise the longest
    suffix of ``stored`` that is a prefix of ``window`` is what was seen. Identity is by
    position in the session, not by text, so a message said twice ("ok", "thanks") is stored
    each time it is said.

    >>> new_tail([("user", "hi"), ("assistant", "ok")], [("assistant", "ok"), ("user", "ok")])
    1
    >>> new_tail([], [("user", "ok"), ("user", "ok")])
    0
    """
    n, m = len(stored), len(window)
    if m == 0 or n == 0:
        return 0
    if m <= n:
        for end in range(n, m - 1, -1):
            if list(stored[end - m : end]) == list(window):
                return m
    for k in range(min(n, m), 0, -1):
        if list(stored[n - k :]) == list(window[:k]):
            return k
    return 0


def session_turns(
    messages: Sequence[ChatMessage], session_id: str, stored: Sequence[tuple[str, str]]
) -> list[dict[str, Any]]:
    """The turns of ``messages`` not stored yet (:func:`new_tail`), each with an id that is
    its position in the session, so re-sending a window is idempotent and a repeated message
    is a new turn. A message's own ``additional_kwargs["id"]`` wins."""
    turns = messages_to_turns(messages)
    seen = new_tail(stored, [(str(t["role"]), str(t["content"])) for t in turns])
    turns = turns[seen:]
    for i, turn in enumerate(turns):
        if "id" not in turn:
            key = f"{session_id}\x1f{len(stored) + i}"
            turn["id"] = f"li-{hashlib.sha256(key.encode('utf-8')).hexdigest()[:24]}"
    return turns


def record_to_message(record: MemoryRecord) -> ChatMessage:
    """A buffered / historical turn as a chat message (role from ``metadata["role"]``)."""
    role = _PRISM_TO_ROLE.get(str(record.metadata.get("role", "user")), MessageRole.USER)
    return ChatMessage(role=role, content=record.text, additional_kwargs={"id": record.id})


def record_and_score(item: Any, rank: int) -> tuple[MemoryRecord, float, str]:
    """``(record, score, text)`` of a recall item (``ContextItem``, ``ScoredRecord`` or record).

    A ``ContextItem`` brings the text PRISM chose to show (a long turn may be cut to the
    sentences the query needs, which is what the token budget paid for) and its
    ``relevance`` (cosine of query and record, in [0, 1]), which is the score; an item built
    without one falls back to its ``score``, as does a ``ScoredRecord`` (whose ``score`` is
    that relevance). A bare record has no score of its own; its rank stands in
    (``1 / (rank + 1)``), keeping the engine's order.
    """
    record = getattr(item, "record", item)
    if not isinstance(record, MemoryRecord):
        raise TypeError(f"expected a MemoryRecord or a recall item, got {type(item).__name__}")
    shown = getattr(item, "shown", None)
    text = shown if isinstance(shown, str) and shown.strip() else record.text
    score = getattr(item, "relevance", None)
    if score is None:
        score = getattr(item, "score", None)
    if isinstance(score, (int, float)) and not isinstance(score, bool):
        return record, float(score), text
    return record, 1.0 / (rank + 1), text


def record_to_node(record: MemoryRecord, score: float, text: str | None = None) -> NodeWithScore:
    """A record as a ``NodeWithScore(TextNode)``: id, text and the record's metadata.

    ``text`` replaces the record's text when PRISM showed only part of it (``compressed``).

    Only ``event_time`` and ``speaker`` are shown to the LLM and the embedder; the rest
    (scope, layer, kind, scores, provenance) is there for filters and postprocessors.
    """
    metadata: dict[str, Any] = {
        "record_id": record.id,
        "layer": record.layer.value,
        "kind": record.kind.value,
        "user_id": record.user_id,
        "agent_id": record.agent_id,
        "session_id": record.session_id,
        "task_id": record.task_id,
        "subgoal_id": record.subgoal_id,
        "speaker": record.speaker,
        "event_time": record.event_time.isoformat() if record.event_time else None,
        "created_at": record.created_at.isoformat(),
        "entities": [e.name for e in record.entities],
        "importance": record.importance,
        "utility": record.utility,
        "confidence": record.confidence,
        "source": record.provenance.source.value,
        "trust": record.provenance.trust.value,
        "compressed": text is not None and text != record.text,
        **{f"meta_{k}": v for k, v in record.metadata.items() if _is_flat(v)},
    }
    metadata = {k: v for k, v in metadata.items() if v is not None and v != []}
    hidden = [k for k in metadata if k not in NODE_LLM_METADATA_KEYS]
    node = TextNode(
        id_=record.id,
        text=record.text if text is None else text,
        metadata=metadata,
        excluded_llm_metadata_keys=hidden,
        excluded_embed_metadata_keys=hidden,
    )
    return NodeWithScore(node=node, score=score)


def _is_flat(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool)) or value is None


def context_text(context: Any) -> str:
    """The rendered text of a ``MemoryContext`` (``.text``), tolerant of plain strings."""
    if isinstance(context, str):
        return context
    text = getattr(context, "text", None)
    return text if isinstance(text, str) else str(context)


def context_records(context: Any) -> Sequence[Any]:
    """The items of a ``MemoryContext`` (``ContextItem``s, else its records), in context order."""
    items = getattr(context, "items", None)
    if items:
        return list(items)
    records = getattr(context, "records", None)
    return list(records) if records is not None else []
