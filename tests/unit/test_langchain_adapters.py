"""Adapter plumbing: public surface, argument convention, scope resolution, message conversion."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

import langchain_prism
from langchain_prism import (
    PrismChatMessageHistory,
    PrismRetriever,
    create_memory_tools,
)
from langchain_prism._messages import last_human_text, message_text, to_turns, turn_tail
from langchain_prism._scope import scope_from_context
from prism_memory import ConfigError, FakeEmbedder, Memory, ScopeError


@pytest.fixture
def memory() -> Iterator[Memory]:
    m = Memory(location=":memory:", embedder=FakeEmbedder(dim=64))
    yield m
    m.close()


def test_every_public_name_imports() -> None:
    for name in langchain_prism.__all__:
        assert getattr(langchain_prism, name) is not None, name
    with pytest.raises(AttributeError):
        langchain_prism.NoSuchThing  # noqa: B018


def test_memory_positional_or_keyword(memory: Memory) -> None:
    a = PrismRetriever(memory, user_id="alice", k=2)
    b = PrismRetriever(memory=memory, user_id="alice", k=2)
    assert a.memory is b.memory is memory and a.scope == b.scope == {"user_id": "alice"}
    with pytest.raises(TypeError):
        PrismRetriever(memory, memory=memory, user_id="alice")


def test_missing_or_wrong_memory_and_scope_say_how_to_fix(memory: Memory) -> None:
    with pytest.raises(ConfigError, match="needs a Memory"):
        PrismChatMessageHistory(user_id="a", session_id="s")
    with pytest.raises(ConfigError, match=r"prism_memory\.Memory was expected"):
        create_memory_tools(object(), user_id="a")
    # the tools take their scope from the run: without one they refuse when called
    recall = {t.name: t for t in create_memory_tools(memory)}["recall"]
    assert recall.invoke({"query": "x"}).startswith("Memory unavailable")
    assert "user_id=" in recall.invoke({"query": "x"})
    with pytest.raises(ValueError, match="session_id="):
        PrismChatMessageHistory(memory, user_id="a")


@dataclass
class Ctx:
    user_id: str
    session_id: str | None = None


def test_scope_from_context_precedence() -> None:
    defaults = {"user_id": "fallback", "agent_id": "bot", "session_id": None}
    got = scope_from_context(defaults, Ctx("alice"), {"thread_id": "t1"}, adapter="X")
    assert got == {"user_id": "alice", "agent_id": "bot", "session_id": "t1"}
    got = scope_from_context(defaults, {"session_id": "s9"}, {"thread_id": "t1"}, adapter="X")
    assert got == {"user_id": "fallback", "agent_id": "bot", "session_id": "s9"}
    with pytest.raises(ScopeError, match="context_schema"):
        scope_from_context({}, None, {"thread_id": "t"}, adapter="X")


def test_message_conversion() -> None:
    msgs = [
        SystemMessage("be nice"),
        HumanMessage("I like tea", id="m1"),
        AIMessage("", tool_calls=[{"name": "t", "args": {}, "id": "c1"}]),
        ToolMessage("tool out", tool_call_id="c1"),
        AIMessage([{"type": "text", "text": "Noted"}, {"type": "image", "url": "x"}]),
    ]
    turns = to_turns(msgs)
    assert [t["role"] for t in turns] == ["system", "user", "tool", "assistant"]
    assert turns[1] == {"role": "user", "content": "I like tea", "id": "m1"}
    assert message_text(msgs[4]) == "Noted\n[image: x]"  # kept as a reference, not dropped
    assert last_human_text(msgs) == "I like tea"
    assert turn_tail(msgs) == msgs[1:]
    assert turn_tail([AIMessage("hi")]) == []


def test_tools_bind_scope_and_reject_bad_ids(memory: Memory) -> None:
    tools = {t.name: t for t in create_memory_tools(memory, user_id="alice")}
    assert set(tools) == {"remember", "recall", "forget"}
    for tool in tools.values():
        assert "user_id" not in tool.args and "agent_id" not in tool.args
    out = tools["remember"].invoke({"content": "Alice's cat is called Miso", "kind": "fact"})
    rid = out.split("id=")[1].rstrip(").")
    assert memory.get(rid, user_id="alice").text == "Alice's cat is called Miso"
    bob_forget = {t.name: t for t in create_memory_tools(memory, user_id="bob")}["forget"]
    assert "No memory" in bob_forget.invoke({"memory_id": rid})
    assert memory.get(rid, user_id="alice") is not None
    assert "No memory" in tools["forget"].invoke({"memory_id": "not-an-id"})
    assert tools["forget"].invoke({"memory_id": rid}) == "Forgotten."
    assert memory.count(user_id="alice") == 0
    with pytest.raises(ValueError, match="unknown memory tools"):
        create_memory_tools(memory, user_id="a", include=("remember", "edit"))
