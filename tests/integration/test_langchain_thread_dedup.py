"""Middleware and retriever never hand back what the current thread already shows: a LangGraph
agent with a checkpointer, two turns in one thread, on the real store and embedder."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage
from langchain_core.outputs import ChatResult
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import Field

from langchain_prism import PrismMemoryMiddleware, PrismRetriever
from prism_memory import Memory


class ScriptedChat(GenericFakeChatModel):
    """Replies from a script and records every prompt it was given."""

    prompts: list[list[BaseMessage]] = Field(default_factory=list)

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedChat:  # type: ignore[override]
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        self.prompts.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


@dataclass
class UserContext:
    user_id: str


def test_second_turn_of_a_thread_gets_no_echo_of_the_first(
    memory: Memory, uid: Callable[[str], str]
) -> None:
    user = uid("lena")
    first = "I am vegetarian and my sister Maya lives in Porto."
    reply = "Noted: vegetarian, and Maya lives in Porto."
    model = ScriptedChat(messages=iter([AIMessage(reply), AIMessage("Try a mushroom risotto.")]))
    agent = create_agent(
        model,
        tools=[],
        system_prompt="You are a cooking assistant.",
        context_schema=UserContext,
        # the session ends after every turn: turn one moves on to the episodic layer
        middleware=[PrismMemoryMiddleware(memory, end_session_after_turn=True)],
        checkpointer=InMemorySaver(),
    )
    memory.add("Lena has a nut allergy", user_id=user, kind="fact")
    config = {"configurable": {"thread_id": uid("thread")}}
    agent.invoke(
        {"messages": [{"role": "user", "content": first}]},
        context=UserContext(user),
        config=config,
    )
    turns = memory.list(user_id=user, filters={"layer": "episodic"}, limit=10)
    assert first in {r.text for r in turns}  # turn one is a long-term memory now

    agent.invoke(
        {"messages": [{"role": "user", "content": "What should I cook for Maya and me?"}]},
        context=UserContext(user),
        config=config,
    )
    prompt = model.prompts[1]
    assert next(m.content for m in prompt if m.type == "human") == first  # the checkpointer's
    system = prompt[0]
    assert isinstance(system, SystemMessage)
    assert "nut allergy" in system.text  # a real memory is still recalled
    assert first not in system.text and reply not in system.text  # no echo of the thread


def test_retriever_leaves_out_the_sessions_turns_after_they_left_the_buffer(
    memory: Memory, uid: Callable[[str], str]
) -> None:
    user, session = uid("omar"), uid("now")
    memory.add("Omar prefers aisle seats", user_id=user, kind="preference")
    memory.remember(
        [
            {"role": "user", "content": "Which seat should I book for Lisbon?"},
            {"role": "assistant", "content": "Let me check your seat preference."},
        ],
        user_id=user,
        session_id=session,
    )
    memory.flush_buffer(user_id=user, session_id=session)  # the turns are episodic now
    retriever = PrismRetriever(memory, user_id=user, k=10)
    docs = retriever.invoke(
        "Which seat should I book for Lisbon?", config={"configurable": {"thread_id": session}}
    )
    texts = [d.page_content for d in docs]
    assert "Omar prefers aisle seats" in texts
    assert "Which seat should I book for Lisbon?" not in texts
    assert "Let me check your seat preference." not in texts
    # another session sees them as memories
    other = retriever.invoke(
        "Which seat should I book?", config={"configurable": {"thread_id": "x"}}
    )
    assert "Which seat should I book for Lisbon?" in [d.page_content for d in other]
