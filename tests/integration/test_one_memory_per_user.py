"""Issue 26: one memory per user across every surface.

One compiled LangChain v1 agent (scripted fake model, real ``create_agent``, checkpointer and
LangGraph store) serves two users over several threads with everything the README recommends
at once: ``PrismMemoryMiddleware``, PRISM's memory tools, LangMem's ``manage_memory`` tool on
``PrismStore``, and a ``PrismRetriever``. What each surface writes is that user's memory:
recalled by every other surface, shown once, and gone from every surface and every file of
the store after ``delete_all(user_id=...)``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, SystemMessage
from langgraph.checkpoint.memory import InMemorySaver

from langchain_prism import (
    PrismMemoryMiddleware,
    PrismRetriever,
    PrismStore,
    create_memory_tools,
)
from prism_memory import FastEmbedEmbedder, Memory
from tests.chat_fakes import scripted

langmem = pytest.importorskip("langmem", reason="the dev extra installs langmem")

CANARY_TOOL = "Quokkaberry"  # only in what carol's memory tool call saves
CANARY_LANGMEM = "Zorblatt"  # only in what LangMem saves for carol


def _call(name: str, args: dict[str, object], call_id: str) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": call_id}])


def _files_with(root: Path, needle: str) -> list[str]:
    raw = needle.encode()
    return [str(p) for p in root.rglob("*") if p.is_file() and raw in p.read_bytes()]


def test_every_surface_is_one_memory_per_user(
    tmp_path: Path, real_embedder: FastEmbedEmbedder
) -> None:
    root = tmp_path / "store"
    memory = Memory(path=root, embedder=real_embedder)
    store = PrismStore(memory)
    model = scripted(
        # carol, thread 1: she states a fact; the model also saves it with the remember tool
        _call(
            "remember", {"content": f"Carol is vegan ({CANARY_TOOL})", "kind": "preference"}, "c1"
        ),
        "Noted.",
        # carol, thread 2: LangMem's tool saves a memory into ("memories", "carol")
        _call(
            "manage_memory",
            {
                "content": f"Carol's favourite restaurant is {CANARY_LANGMEM} in Kreuzberg",
                "action": "create",
            },
            "c2",
        ),
        "Got it.",
        # dave, thread 1
        "Noted.",
        # carol, thread 3
        "How about a lentil curry?",
    )
    manage = langmem.create_manage_memory_tool(namespace=("memories", "{langgraph_user_id}"))
    agent = create_agent(
        model,
        tools=[*create_memory_tools(memory), manage],
        middleware=[PrismMemoryMiddleware(memory, budget_tokens=600)],
        checkpointer=InMemorySaver(),
        store=store,
    )

    def say(user: str, thread: str, text: str) -> None:
        cfg = {"configurable": {"langgraph_user_id": user, "thread_id": thread}}
        agent.invoke({"messages": [{"role": "user", "content": text}]}, config=cfg)

    say("carol", "t1", f"I'm vegan and I keep a {CANARY_TOOL} plant on my desk.")
    say("carol", "t2", "Remember my favourite restaurant, please.")
    say("dave", "d1", "I am allergic to peanuts.")
    say("carol", "t3", "What should I cook tonight?")

    # the middleware's prompt in thread 3: carol's memories from every surface, each once
    system = model.prompts[-1][0]
    assert isinstance(system, SystemMessage)
    prompt = system.text
    assert "vegan" in prompt and prompt.count(CANARY_TOOL) == 1, prompt
    assert "Noted." not in prompt and "Got it." not in prompt  # low-information turns
    assert "peanuts" not in prompt  # dave's
    # what LangMem saved is carol's memory: recall, the retriever and the store all see it
    ctx = memory.recall("favourite restaurant", user_id="carol")
    assert CANARY_LANGMEM in ctx.text
    docs = PrismRetriever(memory, user_id="carol").invoke("favourite restaurant")
    assert any(CANARY_LANGMEM in d.page_content for d in docs)
    assert store.list_namespaces() == [("memories", "carol")]
    hits = store.search(("memories", "carol"), query="restaurant")
    assert hits and CANARY_LANGMEM in str(hits[0].value)
    assert store.search(("memories", "dave")) == []

    # forgetting carol forgets her on every surface, and reports what went where
    report = memory.delete_all(user_id="carol")
    assert report.by_surface.get("langgraph_store") == 1
    assert report.by_surface.get("memory_tools", 0) >= 1
    assert report.by_surface.get("conversation", 0) >= 3
    assert int(report) == sum(report.by_layer.values())
    assert store.list_namespaces() == []
    assert store.search(("memories", "carol"), query="restaurant") == []
    assert store.get(("memories", "carol"), hits[0].key) is None
    assert memory.recall("restaurant vegan cook", user_id="carol").records == []
    assert "peanuts" in memory.recall("allergies", user_id="dave").text  # dave stays
    memory.close()
    for canary in (CANARY_TOOL, CANARY_LANGMEM):
        assert _files_with(root, canary) == []


def test_a_repeated_fact_from_the_tools_is_one_memory(memory: Memory, uid: object) -> None:
    user = uid("erin")  # type: ignore[operator]
    tools = {t.name: t for t in create_memory_tools(memory, user_id=user)}
    first = tools["remember"].invoke({"content": "Erin prefers window seats", "kind": "preference"})
    again = tools["remember"].invoke(
        {"content": "Erin prefers window seats.", "kind": "preference"}
    )
    assert first.startswith("Remembered") and again.startswith("Already remembered"), again
    assert memory.count(user_id=user) == 1
