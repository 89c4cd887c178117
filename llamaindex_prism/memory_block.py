"""``PrismMemoryBlock``: PRISM as a long-term block of ``llama_index.core.memory.Memory``.

Design:
- ``llama_index.core.memory.Memory`` keeps the short-term chat queue itself, asks every block
  for content on each ``get`` (``_aget``, with the session's active messages and
  ``session_id``) and pushes only the messages it ejects from a ~21K-token window to
  ``_aput``. With default settings most sessions never eject anything, so the block
  remembers the messages ``_aget`` receives: the window is aligned with the session's stored
  turns (``_convert.new_tail``: identity by position in the session, not by text), so every
  turn is stored once however often ``get`` runs, and a message said twice ("ok", "thanks")
  is stored each time; each new turn's id is its position in the session.
  Ejected messages (``_aput``) take the same path. New turns go straight to long-term memory
  (``flush_buffer``): LlamaIndex keeps the chat window, PRISM keeps what outlives it.
- ``_aget`` answers with ``Memory.recall`` minus what the conversation already shows
  (``MemoryContext.without``: records equal to one of the window's messages; the session's
  turns that left the window are memories again). ``save_session`` /
  ``asave_session`` store the turns after the last ``get`` (the final reply) at session end.
- The scope of every call is computed from the block's configured ``user_id`` /
  ``agent_id`` and the ``session_id`` of *that* call; the only per-block state is the private
  list of each session's stored turns (read from PRISM on first use in a process). One block instance can serve many sessions at once.
- Without a user/agent id, a session only ever reads its own memories. With one, long-term
  memories are shared by that user's sessions (that is what long-term memory is for).
- ``atruncate`` drops whole items from the end of the rendered context until it fits.
"""

from __future__ import annotations

import asyncio
import logging
import re
import threading
from typing import Any

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.memory.memory import BaseMemoryBlock
from llama_index.core.memory.memory import Memory as LlamaMemory

from prism_memory import Scope, ValidationError
from prism_memory.tokens import count_tokens

from ._convert import (
    as_intent,
    check_memory,
    context_text,
    message_text,
    session_turns,
)

__all__ = ["PrismMemoryBlock"]

log = logging.getLogger("prism_memory")


_CLOSING = re.compile(r"^\s*(</[^>]+>|-{3,}|={3,}|`{3,}|\[/[^\]]+\]|\]\s*)\s*$")
_HEADER = re.compile(r"^\s*(#.*|.*:\s*|\[[^\]/]+\]\s*)$")


def shrink_context(text: str, max_tokens: int) -> str:
    """``text`` cut to at most ``max_tokens`` tokens by dropping whole lines from the end.

    The first line (an opening delimiter or title) and a closing delimiter line are kept;
    section headers left without items are dropped. ``""`` when not even that fits.
    """
    if max_tokens <= 0 or not text.strip():
        return ""
    if count_tokens(text) <= max_tokens:
        return text
    lines = text.splitlines()
    footer = [lines.pop()] if len(lines) > 1 and _CLOSING.match(lines[-1]) else []
    header = [lines.pop(0)] if len(lines) > 1 else []
    body = lines
    while body:
        body.pop()
        while body and (not body[-1].strip() or _HEADER.match(body[-1])):
            body.pop()
        candidate = "\n".join(header + body + footer)
        if body and count_tokens(candidate) <= max_tokens:
            return candidate
    return ""


class PrismMemoryBlock(BaseMemoryBlock[str]):
    """A ``llama_index.core.memory.Memory`` block with PRISM long-term recall.

    Setup:
        .. code-block:: python

            from llama_index.core.memory import Memory as LlamaMemory
            from prism_memory import Memory
            from llamaindex_prism import PrismMemoryBlock

            block = PrismMemoryBlock(Memory(path="./.prism"), user_id="alice")
            chat_memory = LlamaMemory.from_defaults(session_id="monday", memory_blocks=[block])

    Use:
        .. code-block:: python

            from llama_index.core.agent.workflow import FunctionAgent

            agent = FunctionAgent(tools=[...], llm=llm)
            await agent.run("I'm allergic to peanuts", memory=chat_memory)
            await block.asave_session(chat_memory)  # at the end: the last reply too
            # every turn is remembered; later sessions get it back in <prism_memory>
    """

    memory: Any = Field(exclude=True, description="The prism_memory.Memory to remember into.")
    name: str = Field(default="prism_memory", description="Name of the block in the prompt.")
    description: str | None = Field(
        default="Long-term memories PRISM recalled for the latest messages."
    )
    priority: int = Field(
        default=1, description="Truncation priority (0 = never truncate, 1 = truncated last)."
    )
    user_id: str | None = Field(default=None, description="Whose memory this is.")
    agent_id: str | None = Field(default=None, description="Which agent's memory this is.")
    session_id: str | None = Field(
        default=None,
        description="Session used only when a call passes none (Memory always passes its own).",
    )
    budget_tokens: int = Field(default=600, ge=1, description="Token budget of the recall.")
    intent: Any = Field(
        default=None,
        description="A prism_memory Intent (or a registered intent name) steering recall.",
    )
    query_messages: int = Field(
        default=1, ge=1, description="How many of the latest messages form the recall query."
    )
    flush_to_long_term: bool = Field(
        default=True,
        description="Move remembered messages straight to long-term memory (flush_buffer).",
    )
    _stored: dict[str, list[tuple[str, str]]] = PrivateAttr(default_factory=dict)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def __init__(self, memory: Any = None, **data: Any) -> None:
        data["memory"] = check_memory(memory, "PrismMemoryBlock")
        if any(data.get(k) is not None for k in ("user_id", "agent_id", "session_id")):
            # ScopeError (with its how-to-fix message) before pydantic would wrap it
            Scope.of(data.get("user_id"), data.get("agent_id"), data.get("session_id"))
        super().__init__(**data)

    def _scope(self, session_id: str | None) -> dict[str, str]:
        """The scope of one call; raises ScopeError when neither the block nor the call has one."""
        return Scope.of(self.user_id, self.agent_id, session_id or self.session_id).as_dict()

    def _query(self, messages: list[ChatMessage] | None) -> str:
        texts = [message_text(m) for m in (messages or [])[-self.query_messages :]]
        return "\n".join(t for t in texts if t.strip())

    async def _aget(self, messages: list[ChatMessage] | None = None, **block_kwargs: Any) -> str:
        """Remember the session's new messages, then recall for the latest ones (minus the
        conversation itself); ``""`` when nothing."""
        session_id = block_kwargs.get("session_id")
        scope = self._scope(session_id if isinstance(session_id, str) else None)
        return await asyncio.to_thread(self._get, list(messages or []), scope)

    def _get(self, messages: list[ChatMessage], scope: dict[str, str]) -> str:
        self._remember(messages, scope)
        query = self._query(messages)
        if not query:
            return ""
        # LlamaIndex keeps a window of the session, not all of it: what left the window is
        # memory again, so only what the window shows is left out (not the whole session)
        context = self.memory.recall(
            query,
            **scope,
            budget_tokens=self.budget_tokens,
            intent=as_intent(self.memory, self.intent),
            thread_texts=[message_text(m) for m in messages],
        )
        return context_text(context).strip()

    async def _aput(self, messages: list[ChatMessage]) -> None:
        """Remember messages ejected from the short-term queue, per session they came from."""
        by_session: dict[str | None, list[ChatMessage]] = {}
        for message in messages:
            sid = message.additional_kwargs.get("session_id")
            by_session.setdefault(sid if isinstance(sid, str) else None, []).append(message)
        for session_id, group in by_session.items():
            await asyncio.to_thread(self._remember, group, self._scope(session_id))

    def _remember(self, messages: list[ChatMessage], scope: dict[str, str]) -> None:
        """Store the messages of one session that are not stored yet: the window is aligned
        with the session's stored turns (read once per session and process), so a re-sent
        window adds nothing and a message said again is stored again."""
        session = scope.get("session_id", "")
        key = "\x1f".join(f"{k}={v}" for k, v in sorted(scope.items()))
        with self._lock:
            stored = self._stored.get(key)
            if stored is None:
                stored = [
                    (str(r.metadata.get("role") or "user"), r.text)
                    for r in self.memory.session_turns(**scope)
                ]
                self._stored[key] = stored
            turns = session_turns(messages, session, stored)
            if not turns:
                return
            try:
                self.memory.remember(turns, **scope)
            except ValidationError:
                # chat input never makes a read fail: store the turns one by one and leave out
                # (and log, by position only) a message PRISM cannot store as is
                for turn in turns:
                    try:
                        self.memory.remember([turn], **scope)
                    except ValidationError as exc:
                        log.warning("PrismMemoryBlock left out message %s: %s", turn["id"], exc)
            if self.flush_to_long_term:
                self.memory.flush_buffer(**scope)
            stored.extend((str(t["role"]), str(t["content"])) for t in turns)

    async def asave_session(self, chat_memory: LlamaMemory) -> None:
        """Remember every turn of ``chat_memory``'s session (call it when the session ends:
        the reply after the last ``get`` is stored only then)."""
        messages = await chat_memory.aget_all()
        scope = self._scope(chat_memory.session_id)
        await asyncio.to_thread(self._remember, messages, scope)

    def save_session(self, chat_memory: LlamaMemory) -> None:
        """Sync :meth:`asave_session`."""
        self._remember(chat_memory.get_all(), self._scope(chat_memory.session_id))

    async def atruncate(self, content: str, tokens_to_truncate: int) -> str | None:
        """The context without its last items, ``tokens_to_truncate`` tokens shorter (or ``None``)."""
        if not content or tokens_to_truncate <= 0:
            return content or None
        return shrink_context(content, count_tokens(content) - tokens_to_truncate) or None
