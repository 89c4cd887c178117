"""Each LangChain entry point remembers across sessions and keeps users apart.

Real frameworks (langchain v1 create_agent, LCEL + RunnableWithMessageHistory, langchain-classic
ConversationChain, a LangGraph graph with a store), scripted fake chat models, the embedded
Qdrant Edge store and the real offline embedding model. Each test checks what the model was
shown: the memory of session 1 reaches the prompt of session 2, and never another user's prompt.
"""

from __future__ import annotations

import uuid
from operator import itemgetter
from typing import Any

import pytest
from chat_fakes import ScriptedChat, UserContext, scripted
from langchain.agents import create_agent
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables import Runnable, RunnablePassthrough
from langchain_core.runnables.history import RunnableWithMessageHistory
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.runtime import Runtime

from langchain_prism import (
    PrismChatMessageHistory,
    PrismMemory,
    PrismMemoryMiddleware,
    PrismRetriever,
    PrismStore,
    create_memory_tools,
)
from prism_memory import Memory


def prompt_text(messages: list[BaseMessage]) -> str:
    return "\n".join(str(m.content) for m in messages)


def test_create_agent_middleware_remembers_across_sessions(memory: Memory) -> None:
    model = scripted(
        "Noted: vegetarian, and Italian food.", "How about a mushroom risotto?", "Sure."
    )
    agent = create_agent(
        model,
        tools=[],
        system_prompt="You are a cooking assistant.",
        context_schema=UserContext,
        middleware=[PrismMemoryMiddleware(memory, budget_tokens=600)],
        checkpointer=InMemorySaver(),
    )
    agent.invoke(
        {"messages": [{"role": "user", "content": "I am vegetarian and I prefer Italian food."}]},
        context=UserContext("alice-agent"),
        config={"configurable": {"thread_id": "alice-s1"}},
    )
    # session 1 was remembered in its own session (thread id -> session id)
    history = memory.session_turns(user_id="alice-agent", session_id="alice-s1")
    assert [r.metadata["role"] for r in history] == ["user", "assistant"]

    agent.invoke(
        {"messages": [{"role": "user", "content": "What should I cook for dinner?"}]},
        context=UserContext("alice-agent"),
        config={"configurable": {"thread_id": "alice-s2"}},
    )
    system = model.prompts[1][0]
    assert isinstance(system, SystemMessage)
    assert system.text.startswith("You are a cooking assistant.")
    assert "vegetarian" in system.text.lower()

    agent.invoke(
        {"messages": [{"role": "user", "content": "What should I cook for dinner?"}]},
        context=UserContext("bob-agent"),
        config={"configurable": {"thread_id": "bob-s1"}},
    )
    assert "vegetarian" not in prompt_text(model.prompts[2]).lower()


async def test_create_agent_async_hooks_and_memory_tools(memory: Memory) -> None:
    remember_call = AIMessage(
        "",
        tool_calls=[
            {"name": "remember", "args": {"content": "Alice's sister is called Maya"}, "id": "c1"}
        ],
    )
    model = scripted(remember_call, "Saved.", "Your sister is Maya.", "I don't know.")

    def build(user_id: str) -> Any:
        return create_agent(
            model,
            tools=create_memory_tools(memory, user_id=user_id),
            middleware=[PrismMemoryMiddleware(memory, user_id=user_id)],
        )

    await build("alice-tools").ainvoke(
        {"messages": [{"role": "user", "content": "Please remember my sister's name is Maya."}]},
        config={"configurable": {"thread_id": "a1"}},
    )
    assert model.prompts[1][-1].type == "tool"  # the tool ran and its result reached the model
    saved = memory.search("sister", user_id="alice-tools", limit=5)
    assert any(
        "Maya" in h.record.text and h.record.provenance.source.value == "assistant" for h in saved
    )

    await build("alice-tools").ainvoke(
        {"messages": [{"role": "user", "content": "What is my sister called?"}]},
        config={"configurable": {"thread_id": "a2"}},
    )
    assert "Maya" in prompt_text(model.prompts[2])
    await build("bob-tools").ainvoke(
        {"messages": [{"role": "user", "content": "What is my sister called?"}]},
        config={"configurable": {"thread_id": "b1"}},
    )
    assert "Maya" not in prompt_text(model.prompts[3])
    bob_hits = memory.search("Maya sister", user_id="bob-tools", limit=5)
    assert all("Maya" not in h.record.text for h in bob_hits)


def _format(docs: list[Document]) -> str:
    return "\n".join(f"- {d.page_content}" for d in docs)


def lcel_chain(memory: Memory, user_id: str, model: ScriptedChat) -> Runnable[Any, Any]:
    prompt = ChatPromptTemplate.from_messages(
        [
            ("system", "What you know about the user:\n{memories}"),
            MessagesPlaceholder("history"),
            ("human", "{question}"),
        ]
    )
    retriever = PrismRetriever(memory, user_id=user_id, k=4)
    chain = (
        RunnablePassthrough.assign(memories=itemgetter("question") | retriever | _format)
        | prompt
        | model
    )
    return RunnableWithMessageHistory(
        chain,
        lambda session_id: PrismChatMessageHistory(memory, user_id=user_id, session_id=session_id),
        input_messages_key="question",
        history_messages_key="history",
    )


@pytest.mark.filterwarnings("ignore::langchain_core._api.deprecation.LangChainDeprecationWarning")
def test_lcel_retriever_and_message_history(memory: Memory) -> None:
    model = scripted("Lisbon is lovely.", "You said Lisbon.", "Try Porto, near Lisbon.", "No idea.")
    alice = lcel_chain(memory, "alice-lcel", model)
    cfg = {"configurable": {"session_id": "s1"}}
    alice.invoke({"question": "My favourite city is Lisbon."}, config=cfg)
    alice.invoke({"question": "Which city did I mention?"}, config=cfg)
    # in-session: the previous exchange is in the prompt as messages, in order
    assert [m.type for m in model.prompts[1]] == ["system", "human", "ai", "human"]
    assert model.prompts[1][1].content == "My favourite city is Lisbon."
    stored = PrismChatMessageHistory(memory, user_id="alice-lcel", session_id="s1").messages
    assert [m.content for m in stored][:2] == ["My favourite city is Lisbon.", "Lisbon is lovely."]

    alice.invoke(
        {"question": "Where should I travel next?"}, config={"configurable": {"session_id": "s2"}}
    )
    s2_prompt = model.prompts[2]
    assert [m.type for m in s2_prompt] == ["system", "human"]  # a new session: no old messages
    assert "Lisbon" in s2_prompt[0].text  # ...but long-term memory recalled it

    bob = lcel_chain(memory, "bob-lcel", model)
    bob.invoke(
        {"question": "Where should I travel next?"}, config={"configurable": {"session_id": "s1"}}
    )
    assert "Lisbon" not in prompt_text(model.prompts[3])
    assert PrismChatMessageHistory(memory, user_id="bob-lcel", session_id="s1").messages[
        0
    ].content == ("Where should I travel next?")


@pytest.mark.filterwarnings("ignore::langchain_core._api.deprecation.LangChainDeprecationWarning")
def test_classic_conversation_chain(memory: Memory) -> None:
    from langchain_classic.chains import ConversationChain

    model = scripted("Rex is a great name.", "Your dog is Rex.", "I don't know your dog.")

    def chain(user_id: str, session_id: str) -> ConversationChain:
        return ConversationChain(
            llm=model, memory=PrismMemory(memory, user_id=user_id, session_id=session_id)
        )

    out = chain("alice-classic", "s1").invoke({"input": "My dog is named Rex."})
    assert out["response"] == "Rex is a great name."
    chain("alice-classic", "s2").invoke({"input": "What is my dog's name?"})
    assert "Rex" in prompt_text(model.prompts[1])
    chain("bob-classic", "s1").invoke({"input": "What is my dog's name?"})
    assert "Rex" not in prompt_text(model.prompts[2])

    mem = PrismMemory(memory, user_id="alice-classic", session_id="s1", return_messages=True)
    loaded = mem.load_memory_variables({"input": "dog name"})["history"]
    assert isinstance(loaded[0], SystemMessage) and "Rex" in loaded[0].text
    mem.clear()
    assert memory.session_turns(user_id="alice-classic", session_id="s1") == []


def memory_graph(store: PrismStore, model: ScriptedChat) -> Any:
    def call_model(state: MessagesState, runtime: Runtime[UserContext]) -> dict[str, Any]:
        assert runtime.store is not None
        namespace = ("memories", runtime.context.user_id)
        last = str(state["messages"][-1].content)
        found = runtime.store.search(namespace, query=last, limit=3)
        notes = "\n".join(item.value["text"] for item in found)
        if last.lower().startswith("remember"):
            runtime.store.put(
                namespace, str(uuid.uuid4()), {"text": last[len("remember") :].strip(" :")}
            )
        reply = model.invoke([SystemMessage(f"Memories:\n{notes}"), *state["messages"]])
        return {"messages": [reply]}

    builder = StateGraph(MessagesState, context_schema=UserContext)
    builder.add_node("call_model", call_model)
    builder.add_edge(START, "call_model")
    return builder.compile(store=store, checkpointer=InMemorySaver())


def test_langgraph_graph_with_prism_store(memory: Memory) -> None:
    model = scripted("Noted.", "You like window seats.", "I have no notes.")
    store = PrismStore(memory, agent_id="graph-test")
    graph = memory_graph(store, model)
    graph.invoke(
        {"messages": [{"role": "user", "content": "Remember: I always book window seats"}]},
        config={"configurable": {"thread_id": "t1"}},
        context=UserContext("alice-graph"),
    )
    # a new session, and a new store object over the same memory (as after a restart)
    graph = memory_graph(PrismStore(memory, agent_id="graph-test"), model)
    graph.invoke(
        {"messages": [{"role": "user", "content": "Which seat do I like on planes?"}]},
        config={"configurable": {"thread_id": "t2"}},
        context=UserContext("alice-graph"),
    )
    assert "window seats" in model.prompts[1][0].text
    graph.invoke(
        {"messages": [{"role": "user", "content": "Which seat do I like on planes?"}]},
        config={"configurable": {"thread_id": "t3"}},
        context=UserContext("alice-graph2"),
    )
    assert "window" not in model.prompts[2][0].text
    assert store.list_namespaces(prefix=("memories",)) == [("memories", "alice-graph")]
