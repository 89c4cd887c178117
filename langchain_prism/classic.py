"""``PrismMemory``: a langchain-classic ``BaseMemory`` for legacy chains (``ConversationChain``).

Design:
- ``load_memory_variables(inputs)`` recalls with the chain's input as the query and returns
  the rendered, token-budgeted context under ``memory_key`` (a string, or one
  ``SystemMessage`` with ``return_messages=True`` for chat prompts).
- ``save_context(inputs, outputs)`` remembers the exchange as two turns of the session.
- ``clear()`` deletes the session's turns; long-term facts stay.
- Needs the optional ``langchain-classic`` package (``pip install 'prism-memory[classic]'``).
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import SystemMessage
from pydantic import ConfigDict, Field, model_validator

from ._scope import MemoryFirstArg

try:
    from langchain_classic.base_memory import BaseMemory
except ImportError as exc:  # pragma: no cover - run in a subprocess by test_packaging
    raise ImportError(
        "PrismMemory needs langchain-classic: pip install 'prism-memory[classic]'"
    ) from exc

__all__ = ["PrismMemory"]


class PrismMemory(MemoryFirstArg, BaseMemory):
    """PRISM long-term memory for langchain-classic chains.

    Setup:
        .. code-block:: python

            from langchain_classic.chains import ConversationChain
            from prism_memory import Memory
            from langchain_prism import PrismMemory

            memory = Memory(path="./.prism")
            chain = ConversationChain(
                llm=llm, memory=PrismMemory(memory, user_id="alice", session_id="s1")
            )

    Use:
        .. code-block:: python

            chain.invoke({"input": "I'm vegetarian"})
            # a later session recalls it:
            PrismMemory(memory, user_id="alice", session_id="s2").load_memory_variables(
                {"input": "what should I cook?"}
            )["history"]
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: Any = Field(description="The prism_memory.Memory to read and write.")
    user_id: str | None = None
    agent_id: str | None = None
    session_id: str | None = None
    memory_key: str = Field(default="history", description="Prompt variable of the context.")
    input_key: str | None = Field(
        default=None, description="Input holding the user's message (default: the only one)."
    )
    output_key: str | None = Field(
        default=None, description="Output holding the reply (default: the only one)."
    )
    budget_tokens: int = Field(default=1000, ge=16)
    return_messages: bool = Field(
        default=False, description="Return [SystemMessage(context)] instead of a string."
    )

    @model_validator(mode="after")
    def _check(self) -> PrismMemory:
        self._check_adapter()
        return self

    @property
    def memory_variables(self) -> list[str]:
        return [self.memory_key]

    def _pick(self, values: dict[str, Any], key: str | None, what: str) -> str:
        if key is not None:
            return str(values.get(key, ""))
        candidates = {k: v for k, v in values.items() if k != self.memory_key and k != "stop"}
        if len(candidates) != 1:
            raise ValueError(
                f"PrismMemory cannot tell which {what} to use among {sorted(candidates)}; "
                f"pass {what}_key=... to PrismMemory"
            )
        return str(next(iter(candidates.values())))

    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """The context recalled for this input, under ``memory_key``."""
        query = self._pick(inputs, self.input_key, "input").strip()
        text = ""
        if query:
            text = self.memory.recall(query, budget_tokens=self.budget_tokens, **self.scope).text
        if self.return_messages:
            return {self.memory_key: [SystemMessage(content=text)] if text else []}
        return {self.memory_key: text}

    def save_context(self, inputs: dict[str, Any], outputs: dict[str, str]) -> None:
        """Remember the exchange (user input, then the chain's answer) in this session."""
        turns = [
            {"role": "user", "content": self._pick(inputs, self.input_key, "input")},
            {"role": "assistant", "content": self._pick(outputs, self.output_key, "output")},
        ]
        turns = [t for t in turns if t["content"].strip()]
        if turns:
            self.memory.remember(turns, **self.scope)

    def clear(self) -> None:
        """Delete this session's turns (needs ``session_id``); long-term facts stay."""
        if self.session_id is None:
            raise ValueError(
                "PrismMemory.clear() deletes one session's turns; create PrismMemory with "
                "session_id=... (to forget a user entirely use Memory.delete_all(user_id=...))"
            )
        self.memory.delete_all(**self.scope, purge=False, derived=False)
