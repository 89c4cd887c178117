"""``PrismChatMessageHistory``: a session's messages, persisted by PRISM.

Design:
- Writing goes through ``Memory.remember``: messages land in the session's buffer and move
  on to the episodic layer (with extraction into long-term facts) when the buffer overflows
  or the session ends. Nothing is kept in this object, so a restarted process reads the same
  history back.
- Reading is ``Memory.history``: every turn of the session in time order, whichever layer it
  has reached.
- ``clear()`` deletes this session's turns only; facts already learned from them are
  long-term memory of the user and stay (use ``Memory.delete_all(user_id=...)`` to forget the
  user entirely).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import BaseMessage

from ._messages import record_to_message, to_turns
from ._scope import check_memory, scope_kwargs

__all__ = ["PrismChatMessageHistory"]


class PrismChatMessageHistory(BaseChatMessageHistory):
    """Chat history of one session, stored in PRISM memory.

    Setup:
        .. code-block:: python

            from prism_memory import Memory
            from langchain_prism import PrismChatMessageHistory

            memory = Memory(path="./.prism")
            history = PrismChatMessageHistory(memory, user_id="alice", session_id="s1")

    Use:
        .. code-block:: python

            history.add_user_message("I moved to Lisbon last month")
            history.add_ai_message("Noted!")
            [m.type for m in history.messages]   # ['human', 'ai']

    With ``RunnableWithMessageHistory``:
        .. code-block:: python

            chain_with_history = RunnableWithMessageHistory(
                chain,
                lambda session_id: PrismChatMessageHistory(
                    memory, user_id="alice", session_id=session_id
                ),
                input_messages_key="question",
                history_messages_key="history",
            )
    """

    def __init__(
        self,
        memory: Any = None,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        end_session_on_clear: bool = False,
    ) -> None:
        self.memory = check_memory(memory, "PrismChatMessageHistory")
        if session_id is None:
            raise ValueError(
                "PrismChatMessageHistory needs session_id= (one history per conversation); "
                "pass e.g. session_id='thread-1'"
            )
        self.scope = scope_kwargs(user_id, agent_id, session_id, adapter="PrismChatMessageHistory")
        self.end_session_on_clear = end_session_on_clear

    # BaseChatMessageHistory declares `messages` as an attribute and documents overriding it
    # with a property; mypy reports that as an incompatible override.
    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        """Every message of the session, oldest first."""
        return [record_to_message(r) for r in self.memory.session_turns(**self.scope)]

    async def aget_messages(self) -> list[BaseMessage]:
        records = await asyncio.to_thread(self.memory.history, **self.scope)
        return [record_to_message(r) for r in records]

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Remember the messages as turns of this session (one write for the batch)."""
        turns = to_turns(messages)
        if turns:
            self.memory.remember(turns, **self.scope)

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        await asyncio.to_thread(self.add_messages, messages)

    def end_session(self) -> None:
        """Flush the session's buffer into long-term memory (episodes and facts)."""
        self.memory.end_session(**self.scope)

    def clear(self) -> None:
        """Delete this session's turns (long-term facts learned from them stay)."""
        if self.end_session_on_clear:
            self.end_session()
        self.memory.delete_all(**self.scope, purge=False, derived=False)

    async def aclear(self) -> None:
        await asyncio.to_thread(self.clear)
