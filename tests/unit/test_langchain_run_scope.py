"""One compiled LangChain agent, many users: the scope is resolved at run time (#17).

The real ``create_agent`` with a checkpointer, ``PrismMemoryMiddleware`` and the memory tools,
a scripted chat model that emits tool calls, and the embedded store with the fake embedder.
The user comes from the run (``context=`` or ``config["configurable"]``), never from the tools'
constructor, so Bob's tools can neither read, write nor delete Alice's memories.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from chat_fakes import UserContext, scripted
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, SystemMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

from langchain_prism import PrismMemoryMiddleware, PrismRetriever, create_memory_tools
from prism_memory import Memory
from prism_memory.errors import ScopeError


def call(name: str, call_id: str, **args: Any) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": call_id}])


def tool_results(result: dict[str, Any]) -> list[str]:
    return [str(m.content) for m in result["messages"] if isinstance(m, ToolMessage)]


def run_kwargs(how: str, user: str, thread: str) -> dict[str, Any]:
    if how == "context":
        return {"context": UserContext(user), "config": {"configurable": {"thread_id": thread}}}
    return {"config": {"configurable": {"thread_id": thread, "user_id": user}}}


SECRET = "Alice's locker code is 4417"


@pytest.mark.parametrize("how", ["context", "configurable"])
def test_one_agent_two_users_tools_never_cross(fake_memory: Memory, how: str) -> None:
    model = scripted(
        call("remember", "c1", content=SECRET),
        "Saved.",
        call("recall", "c2", query="locker code"),
        "I don't know your locker code.",
    )
    agent = create_agent(
        model,
        tools=create_memory_tools(fake_memory, user_id="alice"),  # a default, not a binding
        context_schema=UserContext,
        middleware=[PrismMemoryMiddleware(fake_memory, budget_tokens=400)],
        checkpointer=InMemorySaver(),
    )
    ask = {"messages": [{"role": "user", "content": "Remember my locker code is 4417."}]}
    out = agent.invoke(ask, **run_kwargs(how, "alice", "a1"))
    saved = tool_results(out)[-1]
    match = re.search(r"id=([0-9a-f-]+)", saved)
    assert match, saved
    alice_id = match.group(1)
    assert fake_memory.get(alice_id, user_id="alice") is not None

    bob_ask = {"messages": [{"role": "user", "content": "What is my locker code?"}]}
    out = agent.invoke(bob_ask, **run_kwargs(how, "bob", "b1"))
    bob_recall = tool_results(out)[-1]
    assert "4417" not in bob_recall and alice_id not in bob_recall
    assert all("4417" not in str(m.content) for p in model.prompts[2:] for m in p)
    assert all("4417" not in h.record.text for h in fake_memory.search("locker", user_id="bob"))

    # Bob's forget of Alice's record id finds nothing in Bob's scope and deletes nothing
    model.messages = iter([call("forget", "c3", memory_id=alice_id), "Done."])
    out = agent.invoke(
        {"messages": [{"role": "user", "content": "Forget that."}]},
        **run_kwargs(how, "bob", "b1"),
    )
    assert "No memory with id" in tool_results(out)[-1]
    assert fake_memory.get(alice_id, user_id="alice") is not None

    # positive control: the same agent, run for Alice, recalls it through the tool
    model.messages = iter([call("recall", "c4", query="locker code"), "It is 4417."])
    out = agent.invoke(
        {"messages": [{"role": "user", "content": "What is my locker code?"}]},
        **run_kwargs(how, "alice", "a2"),
    )
    assert "4417" in tool_results(out)[-1]


def test_tools_refuse_without_scope(fake_memory: Memory) -> None:
    model = scripted(call("remember", "c1", content="The sky is green"), "ok")
    agent = create_agent(model, tools=create_memory_tools(fake_memory))
    out = agent.invoke(
        {"messages": [{"role": "user", "content": "Remember the sky is green."}]},
        config={"configurable": {"thread_id": "t"}},
    )
    (refusal,) = tool_results(out)
    assert refusal.startswith("Memory unavailable") and "user_id" in refusal
    for tool in create_memory_tools(fake_memory):
        args = {"remember": {"content": "x"}, "recall": {"query": "x"}}.get(
            tool.name, {"memory_id": "x"}
        )
        assert tool.invoke(args).startswith("Memory unavailable")
    assert fake_memory.search("sky green", user_id="default", limit=5) == []


def test_scope_is_not_a_tool_argument(fake_memory: Memory) -> None:
    for tool in create_memory_tools(fake_memory):
        schema = tool.tool_call_schema.model_json_schema()
        assert not {"runtime", "user_id", "agent_id", "session_id"} & set(schema["properties"])


def test_run_context_wins_over_configurable_and_defaults(fake_memory: Memory) -> None:
    from langchain_prism._scope import scope_from_context

    defaults = {"user_id": "dflt", "agent_id": None, "session_id": None}
    cfg = {"user_id": "cfg", "thread_id": "t1"}
    assert scope_from_context(defaults, None, None, adapter="x")["user_id"] == "dflt"
    assert scope_from_context(defaults, None, cfg, adapter="x") == {
        "user_id": "cfg",
        "session_id": "t1",
    }
    assert scope_from_context(defaults, {"user_id": "ctx"}, cfg, adapter="x")["user_id"] == "ctx"
    lg = {"langgraph_user_id": "lg"}
    assert scope_from_context({}, None, lg, adapter="x")["user_id"] == "lg"
    with pytest.raises(ScopeError):
        scope_from_context({}, None, {"thread_id": "t"}, adapter="x")


def test_middleware_configurable_scope_and_no_thread_echo(fake_memory: Memory) -> None:
    model = scripted("Noted.", "How about risotto?", "Risotto again?")
    agent = create_agent(
        model,
        tools=[],
        system_prompt="You are a cooking assistant.",
        middleware=[PrismMemoryMiddleware(fake_memory, budget_tokens=600)],
        checkpointer=InMemorySaver(),
    )
    first = "I am vegetarian and I prefer Italian food."
    cfg = {"configurable": {"user_id": "carol", "thread_id": "c1"}}
    agent.invoke({"messages": [{"role": "user", "content": first}]}, config=cfg)
    agent.invoke(
        {"messages": [{"role": "user", "content": "What should I cook tonight?"}]}, config=cfg
    )
    prompt = model.prompts[1]
    assert any(m.type == "human" and m.content == first for m in prompt)  # the checkpointer's
    system = prompt[0]
    assert isinstance(system, SystemMessage)
    # the thread's own turns are in the messages; the recalled context does not repeat them
    assert "Recent turns" not in system.text
    assert first not in system.text and "Noted." not in system.text

    # another thread of the same user: the first thread is a memory now
    agent.invoke(
        {"messages": [{"role": "user", "content": "What should I cook for lunch?"}]},
        config={"configurable": {"user_id": "carol", "thread_id": "c2"}},
    )
    assert "vegetarian" in model.prompts[2][0].text.lower()


def test_retriever_leaves_out_the_current_conversation(fake_memory: Memory) -> None:
    fake_memory.add("Dana prefers aisle seats", user_id="dana", kind="preference")
    fake_memory.remember(
        [
            {"role": "user", "content": "Which seat should I book?"},
            {"role": "assistant", "content": "Let me check your seat preference."},
        ],
        user_id="dana",
        session_id="now",
    )
    texts = [d.page_content for d in PrismRetriever(fake_memory, user_id="dana").invoke("seat")]
    assert "Which seat should I book?" in texts  # without a session, turns are memories
    current = PrismRetriever(fake_memory, user_id="dana", session_id="now", k=10)
    texts = [d.page_content for d in current.invoke("Which seat should I book?")]
    assert "Dana prefers aisle seats" in texts
    assert "Which seat should I book?" not in texts
    assert "Let me check your seat preference." not in texts
    # the session can come from the run config too (e.g. RunnableWithMessageHistory's)
    run = PrismRetriever(fake_memory, user_id="dana", k=10)
    docs = run.invoke("Which seat should I book?", config={"configurable": {"session_id": "now"}})
    assert "Which seat should I book?" not in [d.page_content for d in docs]


async def test_async_tools_take_the_scope_from_the_run(fake_memory: Memory) -> None:
    model = scripted(
        call("remember", "c1", content="Erin's bike lock code is 2290"),
        "Saved.",
        call("recall", "c2", query="bike lock code"),
        "No idea.",
    )
    agent = create_agent(
        model,
        tools=create_memory_tools(fake_memory),
        context_schema=UserContext,
        middleware=[PrismMemoryMiddleware(fake_memory)],
        checkpointer=InMemorySaver(),
    )
    await agent.ainvoke(
        {"messages": [{"role": "user", "content": "Remember my bike lock code is 2290."}]},
        **run_kwargs("context", "erin", "e1"),
    )
    assert any("2290" in h.record.text for h in fake_memory.search("bike", user_id="erin"))
    out = await agent.ainvoke(
        {"messages": [{"role": "user", "content": "What is my bike lock code?"}]},
        **run_kwargs("configurable", "frank", "f1"),
    )
    assert "2290" not in tool_results(out)[-1]


def test_model_cannot_smuggle_a_scope_into_a_tool_call(fake_memory: Memory) -> None:
    fake_memory.add("Gina's safe combination is 8812", user_id="gina")
    smuggled = {"query": "safe combination", "user_id": "gina"}
    smuggled["runtime"] = {"context": {"user_id": "gina"}}  # type: ignore[assignment]
    model = scripted(call("recall", "c1", **smuggled), "No idea.")
    agent = create_agent(model, tools=create_memory_tools(fake_memory), context_schema=UserContext)
    out = agent.invoke(
        {"messages": [{"role": "user", "content": "What is the safe combination?"}]},
        context=UserContext("hank"),
    )
    result = tool_results(out)[-1]
    assert "8812" not in result and result == "No relevant memories."  # it ran, as hank
    assert "8812" in create_memory_tools(fake_memory)[1].invoke(
        {"query": "safe combination"}, config={"configurable": {"user_id": "gina"}}
    )
