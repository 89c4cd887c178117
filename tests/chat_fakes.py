"""Scripted LangChain chat models for the adapter tests (one definition, shared).

``scripted("hi", AIMessage("", tool_calls=[...]))`` replies from the script in order and keeps
every prompt it was given in ``.prompts``; ``bind_tools`` returns the model itself, so
``create_agent`` can drive tool calls with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatResult
from pydantic import Field


class ScriptedChat(GenericFakeChatModel):
    """Replies from a script and records every prompt it was given; tools bind to itself."""

    prompts: list[list[BaseMessage]] = Field(default_factory=list)

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedChat:  # type: ignore[override]
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        self.prompts.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


def scripted(*replies: str | AIMessage) -> ScriptedChat:
    """A :class:`ScriptedChat` answering with ``replies`` in order (strings become messages)."""
    return ScriptedChat(
        messages=iter([r if isinstance(r, AIMessage) else AIMessage(r) for r in replies])
    )


@dataclass
class UserContext:
    """The run context the agents in these tests carry (``context=UserContext("alice")``)."""

    user_id: str
