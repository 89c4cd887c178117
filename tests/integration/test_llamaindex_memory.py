"""``PrismMemory`` with the real LlamaIndex chat engines and a FunctionAgent workflow.

Real embedded store (Qdrant Edge) and the real offline embedder; LLMs are LlamaIndex's
``MockLLM`` and a scripted ``MockFunctionCallingLLM``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest
from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock
from llama_index.core.chat_engine import CondensePlusContextChatEngine, SimpleChatEngine
from llama_index.core.llms.mock import MockFunctionCallingLLM, MockLLMWithChatMemoryOfLastCall
from llama_index.core.tools import FunctionTool

from llamaindex_prism import PrismMemory, PrismRetriever
from prism_memory import ConfigError, Memory, ScopeError

PREFERENCE = "I am vegetarian and I love very spicy Thai food."


def system_text(messages: Sequence[ChatMessage]) -> str:
    return "\n".join(m.content or "" for m in messages if m.role == MessageRole.SYSTEM)


def remember_preference(memory: Memory, user_id: str, session_id: str) -> None:
    """Session 1: the user states a preference; the session then ends."""
    llm = MockLLMWithChatMemoryOfLastCall()
    chat_memory = PrismMemory(memory, user_id=user_id, session_id=session_id)
    engine = SimpleChatEngine.from_defaults(llm=llm, memory=chat_memory)
    engine.chat(PREFERENCE)
    chat_memory.reset()  # ends the PRISM session: the turns reach long-term memory


def test_simple_chat_engine_remembers_a_preference_across_sessions(
    memory: Memory, uid: Callable[[str], str]
) -> None:
    remember_preference(memory, uid("alice"), "monday")

    llm = MockLLMWithChatMemoryOfLastCall()
    tuesday = PrismMemory(memory, user_id=uid("alice"), session_id="tuesday")
    engine = SimpleChatEngine.from_defaults(
        llm=llm, memory=tuesday, system_prompt="You are a cooking assistant."
    )
    engine.chat("What should I cook for dinner? Something Thai maybe.")
    sent = llm.last_chat_messages
    assert sent is not None
    assert "vegetarian" in system_text(sent)
    assert sent[0].content == "You are a cooking assistant."  # the engine's prefix stays first
    # the new session's history holds only its own turns
    assert [m.role for m in tuesday.get_all()] == [MessageRole.USER, MessageRole.ASSISTANT]
    assert tuesday.get_all()[0].content == "What should I cook for dinner? Something Thai maybe."


async def test_simple_chat_engine_async_path(memory: Memory, uid: Callable[[str], str]) -> None:
    remember_preference(memory, uid("alice"), "monday")
    llm = MockLLMWithChatMemoryOfLastCall()
    tuesday = PrismMemory(memory, user_id=uid("alice"), session_id="tuesday")
    engine = SimpleChatEngine.from_defaults(llm=llm, memory=tuesday)
    await engine.achat("Any Thai dinner idea?")
    assert llm.last_chat_messages is not None
    assert "vegetarian" in system_text(llm.last_chat_messages)
    history = await tuesday.aget_all()
    assert [m.role for m in history] == [MessageRole.USER, MessageRole.ASSISTANT]
    assert history[0].content == "Any Thai dinner idea?"


def test_users_and_sessions_never_see_each_others_memories(
    memory: Memory, uid: Callable[[str], str]
) -> None:
    remember_preference(memory, uid("alice"), "monday")
    bob = PrismMemory(memory, user_id=uid("bob"), session_id="monday")
    bob.put(ChatMessage(role="user", content="Any Thai dinner idea for a spicy food lover?"))
    got = bob.get()
    assert "vegetarian" not in system_text(got)
    assert [m.content for m in got if m.role == MessageRole.USER] == [
        "Any Thai dinner idea for a spicy food lover?"
    ]
    # two open sessions of one user do not share their short-term history
    s1 = PrismMemory(memory, user_id=uid("carol"), session_id="s1")
    s2 = PrismMemory(memory, user_id=uid("carol"), session_id="s2")
    s1.put(ChatMessage(role="user", content="My locker code is 4411."))
    assert s2.get() == [] and s2.get_all() == []
    # anonymous sessions (no user) are isolated even in long-term memory
    anon_a = PrismMemory(memory, session_id=uid("anon-a"))
    anon_a.put(ChatMessage(role="user", content="My locker code is 9911."))
    anon_a.reset()
    anon_b = PrismMemory(memory, session_id=uid("anon-b"))
    assert "9911" not in system_text(anon_b.get("what is my locker code?"))
    assert "9911" in system_text(anon_a.get("what is my locker code?"))


def test_get_put_set_reset_semantics(memory: Memory, uid: Callable[[str], str]) -> None:
    m = PrismMemory(memory, user_id=uid("dave"), session_id="s1")
    m.put_messages(
        [
            ChatMessage(role="user", content="Book me a table for two."),
            ChatMessage(role="assistant", content="Done: Friday 8pm at Luigi's."),
            ChatMessage(role="assistant", blocks=[]),  # a pure tool call has no text: skipped
        ]
    )
    got = m.get()
    assert [(x.role, x.content) for x in got if x.role != MessageRole.SYSTEM] == [
        (MessageRole.USER, "Book me a table for two."),
        (MessageRole.ASSISTANT, "Done: Friday 8pm at Luigi's."),
    ]
    m.set([ChatMessage(role="user", content="Actually make it Saturday.")])
    assert [x.content for x in m.get() if x.role != MessageRole.SYSTEM] == [
        "Actually make it Saturday."
    ]
    assert len(m.get_all()) == 3  # earlier turns moved on to long-term memory, not lost
    m.reset()
    assert [x for x in m.get() if x.role != MessageRole.SYSTEM] == []
    recalled = m.get("when is the table at Luigi's booked?")
    assert "Luigi" in system_text(recalled)

    gone = PrismMemory(memory, user_id=uid("dave"), session_id="s2", forget_on_reset=True)
    gone.put(ChatMessage(role="user", content="Forget this: my PIN is 1234."))
    gone.reset()
    assert gone.get_all() == []
    assert "1234" not in system_text(gone.get("what is my PIN?"))


def test_from_defaults_and_session_ids(memory: Memory, uid: Callable[[str], str]) -> None:
    seeded = PrismMemory.from_defaults(
        memory,
        user_id=uid("erin"),
        chat_history=[ChatMessage(role="user", content="hello there")],
        token_limit=3000,
    )
    assert seeded.session_id.startswith("session-")
    assert [m.content for m in seeded.get()] == ["hello there"]
    other = PrismMemory(memory=memory, user_id=uid("erin"))
    assert other.session_id != seeded.session_id
    assert other.get() == []
    assert PrismMemory(memory, user_id=uid("erin"), recall_on_get=False).get("hello") == []


def test_constructor_errors_say_how_to_fix(memory: Memory, uid: Callable[[str], str]) -> None:
    with pytest.raises(ConfigError, match="Memory"):
        PrismMemory(None, user_id=uid("alice"))
    with pytest.raises(ScopeError, match="user_id"):
        PrismMemory(memory, user_id="")
    with pytest.raises(ConfigError, match="context"):
        PrismMemory(memory, user_id=uid("alice"), system_template="no placeholder")


def test_condense_plus_context_engine_with_prism_memory_and_retriever(
    memory: Memory, uid: Callable[[str], str]
) -> None:
    memory.add("Alice's passport expires in March 2026.", user_id=uid("alice"), kind="fact")
    memory.add("Alice is allergic to penicillin.", user_id=uid("alice"), kind="fact")
    llm = MockLLMWithChatMemoryOfLastCall(is_chat_model=True)
    engine = CondensePlusContextChatEngine.from_defaults(
        retriever=PrismRetriever(memory, user_id=uid("alice"), budget_tokens=300),
        llm=llm,
        memory=PrismMemory(memory, user_id=uid("alice"), session_id="travel"),
    )
    response = engine.chat("When does my passport expire?")
    assert any("passport" in n.node.get_content() for n in response.source_nodes)
    sent = llm.last_chat_messages
    assert sent is not None
    assert "March 2026" in system_text(sent)
    assert engine.chat_history[0].content == "When does my passport expire?"


async def test_condense_plus_context_engine_async(
    memory: Memory, uid: Callable[[str], str]
) -> None:
    memory.add("Alice's passport expires in March 2026.", user_id=uid("alice"), kind="fact")
    llm = MockLLMWithChatMemoryOfLastCall()
    engine = CondensePlusContextChatEngine.from_defaults(
        retriever=PrismRetriever(memory, user_id=uid("alice")),
        llm=llm,
        memory=PrismMemory(memory, user_id=uid("alice"), session_id="travel"),
    )
    response = await engine.achat("When does my passport expire?")
    assert any("March 2026" in n.node.get_content() for n in response.source_nodes)
    assert len(await engine._memory.aget_all()) == 2


class ScriptedLLM:
    """A function-calling LLM script: records what it was sent, replies in order."""

    def __init__(self, replies: list[ChatMessage]) -> None:
        self.replies = list(replies)
        self.calls: list[list[ChatMessage]] = []

    def __call__(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
        self.calls.append(list(messages))
        return self.replies.pop(0)

    def llm(self) -> MockFunctionCallingLLM:
        return MockFunctionCallingLLM(response_generator=self)


def tool_call(name: str, **kwargs: Any) -> ChatMessage:
    return ChatMessage(
        role="assistant",
        blocks=[ToolCallBlock(tool_call_id=f"call-{name}", tool_name=name, tool_kwargs=kwargs)],
    )


def restaurant_tool() -> FunctionTool:
    def find_restaurant(cuisine: str) -> str:
        """Find a restaurant serving a cuisine."""
        return f"Green Basil serves vegetarian {cuisine} food."

    return FunctionTool.from_defaults(fn=find_restaurant)


async def test_function_agent_workflow_uses_prism_memory(
    memory: Memory, uid: Callable[[str], str]
) -> None:
    remember_preference(memory, uid("alice"), "monday")
    script = ScriptedLLM(
        [
            tool_call("find_restaurant", cuisine="thai"),
            ChatMessage(role="assistant", content="Try Green Basil, it is vegetarian."),
        ]
    )
    agent = FunctionAgent(tools=[restaurant_tool()], llm=script.llm(), system_prompt="Be brief.")
    chat_memory = PrismMemory(memory, user_id=uid("alice"), session_id="tuesday")
    result = await agent.run("Where should I eat tonight?", memory=chat_memory)
    assert "Green Basil" in str(result)
    first_call = script.calls[0]
    assert "vegetarian" in system_text(first_call)  # recalled before the first model call
    assert any(m.role == MessageRole.TOOL for m in script.calls[1])  # the tool ran
    history = chat_memory.get_all()
    assert history[0].content == "Where should I eat tonight?"
    assert history[-1].content == "Try Green Basil, it is vegetarian."
    # replayed history carries no orphan tool results (their tool calls are not kept)
    assert all(m.role != MessageRole.TOOL for m in chat_memory.get())

    follow_up = ScriptedLLM([ChatMessage(role="assistant", content="It opens at 6pm.")])
    agent2 = FunctionAgent(tools=[restaurant_tool()], llm=follow_up.llm())
    await agent2.run("When does it open?", memory=chat_memory)
    contents = [m.content for m in follow_up.calls[0]]
    assert "Where should I eat tonight?" in contents  # the session's history was replayed


def test_get_leaves_the_current_thread_out_of_the_long_term_block(
    memory: Memory, uid: Callable[[str], str]
) -> None:
    """The core's thread filter: what this session said (buffered or already moved on to
    long-term memory) is the chat history, not a memory; an older session's fact is."""
    user = uid("erin")
    remember_preference(memory, user, "monday")
    today = PrismMemory(memory, user_id=user, session_id="tuesday")
    said = "My favourite Thai dish is green curry with tofu."
    today.put_messages([ChatMessage(role="user", content=said)])
    today.set(today.get_all())  # the turn moves on to long-term memory and is shown again
    sent = today.get("Which Thai food should I cook tonight?")
    system = system_text(sent)
    assert "vegetarian" in system  # the older session's fact is recalled
    assert said not in system  # the thread's own turn is not repeated
    assert [m.content for m in sent if m.role == MessageRole.USER] == [said]
