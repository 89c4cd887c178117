"""Build the LangChain cookbook notebooks (01-04) from the cells below, without outputs.

Run ``.venv/bin/python cookbook/_build_langchain.py`` after editing; ``tests/test_notebooks.py``
executes every ``cookbook/*.ipynb`` offline. Each notebook uses a scripted fake chat model and
says in one markdown cell how to switch to a real one.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).parent

REAL_MODEL = """**Using a real model.** Everything here runs offline with a scripted fake model. To use a
real one, replace the fake with any LangChain chat model, e.g.
`from langchain_openai import ChatOpenAI; model = ChatOpenAI(model="gpt-4o-mini")` (set
`OPENAI_API_KEY`). Passing it to `Memory(llm=model)` as well turns on LLM extraction and
compression; `from langchain_openai import OpenAIEmbeddings` plus
`Memory(embedder=LangChainEmbedder(OpenAIEmbeddings(), dim=1536))` swaps the embedding model."""

FAKE_MODEL = '''from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from pydantic import Field


class ScriptedChat(GenericFakeChatModel):
    """Answers from a script and keeps every prompt it was shown (so we can look at them)."""

    prompts: list[list[BaseMessage]] = Field(default_factory=list)

    def bind_tools(self, tools: Any, **kwargs: Any) -> "ScriptedChat":
        return self

    def _generate(self, messages, *args, **kwargs):
        self.prompts.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


def scripted(*replies):
    return ScriptedChat(messages=iter([r if isinstance(r, AIMessage) else AIMessage(r) for r in replies]))'''

SETUP = """import tempfile
from pathlib import Path

from prism_memory import Memory

memory = Memory(path=Path(tempfile.mkdtemp()) / "prism")  # embedded Qdrant Edge, offline embedder"""

# Jupyter without ipywidgets: tqdm (imported by the embedding model's downloader) warns that it
# cannot draw progress bars; nothing is downloaded offline, so the warning is noise.
QUIET_SETUP = """import warnings

warnings.filterwarnings("ignore", message="IProgress not found")  # no ipywidgets: no progress bars

""" + SETUP

NOTEBOOKS: dict[str, list[tuple[str, str]]] = {
    "01_quickstart.ipynb": [
        ("md", "# PRISM quickstart\n\nThe core API on the embedded store: remember a conversation, "
               "recall a token-budgeted context for a new question, search, and forget."),
        ("code", QUIET_SETUP),
        ("md", "## Remember\n`remember` takes a string, role/content dicts or LangChain messages. "
               "Turns go to the session's buffer; facts and preferences are extracted into "
               "long-term (semantic) memory of the user right away."),
        ("code", '''result = memory.remember(
    [
        {"role": "user", "content": "Hi, I'm Alice. I prefer aisle seats and I'm allergic to peanuts."},
        {"role": "assistant", "content": "Got it: aisle seats, no peanuts."},
    ],
    user_id="alice",
    session_id="trip-planning",
)
print(result)
memory.add("Alice's passport expires in March 2027", user_id="alice", kind="fact")'''),
        ("md", "## Recall\nA new session asks a question; `recall` returns a rendered context within "
               "`budget_tokens`, the records it used and a trace of how it was built."),
        ("code", '''ctx = memory.recall("Which seat should I book on my flight to Lisbon?", user_id="alice", session_id="booking", budget_tokens=300)
print(ctx.text)
print(ctx.tokens, "tokens;", len(ctx.records), "records")
assert ctx.tokens <= 300
assert "aisle" in ctx.text'''),
        ("md", "## Search, history and isolation"),
        ("code", '''hits = memory.search("peanut allergy", user_id="alice", limit=3)
for hit in hits:
    print(round(hit.score, 4), hit.routes, hit.record.layer.value, hit.record.text)
print([r.metadata["role"] for r in memory.session_turns(user_id="alice", session_id="trip-planning")])
assert memory.search("peanut allergy", user_id="bob", limit=3) == []  # another user sees nothing'''),
        ("md", "## End the session and forget"),
        ("code", '''memory.end_session(user_id="alice", session_id="trip-planning")
print(memory.stats(user_id="alice")["layers"])
memory.delete_all(user_id="alice")
assert memory.count(user_id="alice") == 0
memory.close()'''),
        ("md", REAL_MODEL),
    ],
    "02_langchain_agent_memory.ipynb": [
        ("md", "# Long-term memory for a `create_agent` agent\n\nOne compiled agent serves every "
               "user. `PrismMemoryMiddleware` recalls before each model call (the context goes "
               "into the system prompt) and remembers each turn afterwards; the memory tools let "
               "the model `remember`, `recall` and `forget`. Both take the user **from each run** "
               "(`context=`, else `config[\"configurable\"]`) and the session from the thread "
               "id: never from the model, and never fixed when the agent is built."),
        ("code", QUIET_SETUP + "\n\n" + FAKE_MODEL),
        ("code", '''from dataclasses import dataclass

from langchain.agents import create_agent
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver

from langchain_prism import PrismMemoryMiddleware, create_memory_tools


@dataclass
class Context:
    user_id: str


def tool_call(name, **args):
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": f"call-{name}"}])


model = scripted(
    tool_call("remember", content="Alice is vegetarian and loves spicy food", kind="preference"),
    "Noted: you're vegetarian and love spicy food.",
    tool_call("recall", query="diet and food preferences"),
    "I don't know your diet yet. Tell me!",
    "How about a spicy chickpea curry? It's vegetarian.",
    "Any preferences or allergies I should know about?",
)
agent = create_agent(
    model,
    tools=create_memory_tools(memory),  # no user here: each call takes the run's user
    system_prompt="You are a helpful cooking assistant.",
    context_schema=Context,
    middleware=[PrismMemoryMiddleware(memory, budget_tokens=500)],
    checkpointer=InMemorySaver(),  # the thread's own messages
)'''),
        ("md", "## Alice, session 1: she states a preference, the model stores it with `remember`"),
        ("code", '''out = agent.invoke(
    {"messages": [{"role": "user", "content": "I'm vegetarian and I love spicy food. Please remember that."}]},
    context=Context(user_id="alice"),
    config={"configurable": {"thread_id": "alice-monday"}},
)
print(out["messages"][-2].content)  # the tool result'''),
        ("md", "## Bob, same agent: his `recall` only sees Bob's memories"),
        ("code", '''out = agent.invoke(
    {"messages": [{"role": "user", "content": "What do you remember about my diet?"}]},
    context=Context(user_id="bob"),
    config={"configurable": {"thread_id": "bob-monday"}},
)
bob_recall = out["messages"][-2].content
print(bob_recall)
assert "vegetarian" not in bob_recall.lower()'''),
        ("md", "## Alice, session 2: a new thread, the preference is used"),
        ("code", '''out = agent.invoke(
    {"messages": [{"role": "user", "content": "What should I cook tonight?"}]},
    context=Context(user_id="alice"),
    config={"configurable": {"thread_id": "alice-friday"}},
)
print(out["messages"][-1].content)
system_prompt = model.prompts[-1][0].text
print(system_prompt)
assert "vegetarian" in system_prompt.lower()'''),
        ("md", "## The user from `configurable` works the same\n\n`config={\"configurable\": "
               "{\"user_id\": ...}}` (LangMem's `langgraph_user_id` too) is read when the run "
               "has no context. The constructor's `user_id=` is only a default for runs that "
               "set none; a run with no user at all is refused."),
        ("code", '''out = agent.invoke(
    {"messages": [{"role": "user", "content": "What should I cook tonight?"}]},
    config={"configurable": {"user_id": "bob", "thread_id": "bob-friday"}},
)
print(out["messages"][-1].content)
assert "vegetarian" not in model.prompts[-1][0].text.lower()  # Bob never sees Alice's memory
memory.close()'''),
        ("md", REAL_MODEL),
    ],
    "03_langgraph_store.ipynb": [
        ("md", "# A LangGraph store on PRISM\n\n`PrismStore` implements LangGraph's `BaseStore`, so "
               "`runtime.store.put/search` in any graph (and LangMem-style tools) run on PRISM. "
               "Each namespace is its own scope, matched exactly segment by segment."),
        ("code", QUIET_SETUP + "\n\n" + FAKE_MODEL),
        ("code", '''import uuid
from dataclasses import dataclass

from langchain_core.messages import SystemMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.runtime import Runtime

from langchain_prism import PrismStore


@dataclass
class Context:
    user_id: str


model = scripted("Saved.", "You take your coffee black.")


def call_model(state: MessagesState, runtime: Runtime[Context]):
    namespace = ("memories", runtime.context.user_id)
    last = state["messages"][-1].content
    notes = "\\n".join(i.value["text"] for i in runtime.store.search(namespace, query=last, limit=3))
    if last.lower().startswith("remember"):
        runtime.store.put(namespace, str(uuid.uuid4()), {"text": last.split(":", 1)[-1].strip()})
    return {"messages": [model.invoke([SystemMessage(f"Memories:\\n{notes}"), *state["messages"]])]}


builder = StateGraph(MessagesState, context_schema=Context)
builder.add_node("call_model", call_model)
builder.add_edge(START, "call_model")
store = PrismStore(memory)
graph = builder.compile(store=store, checkpointer=InMemorySaver())'''),
        ("code", '''graph.invoke(
    {"messages": [{"role": "user", "content": "Remember: I take my coffee black"}]},
    {"configurable": {"thread_id": "1"}},
    context=Context(user_id="alice"),
)
graph.invoke(
    {"messages": [{"role": "user", "content": "How do I like my coffee?"}]},
    {"configurable": {"thread_id": "2"}},
    context=Context(user_id="alice"),
)
print(model.prompts[-1][0].text)
assert "black" in model.prompts[-1][0].text'''),
        ("md", "## The store API directly"),
        ("code", '''store.put(("memories", "john_doe"), "pet", {"text": "John has a cat named Miso"})
store.put(("memories", "john-doe"), "pet", {"text": "The other John has a parrot"})
print(store.list_namespaces(prefix=("memories",)))
hits = store.search(("memories", "john_doe"), query="what pet?")
print([(h.key, h.value, round(h.score, 4)) for h in hits])
assert [h.value["text"] for h in hits] == ["John has a cat named Miso"]  # exact namespaces
memory.close()'''),
        ("md", REAL_MODEL),
    ],
    "04_lcel_retriever_and_history.ipynb": [
        ("md", "# LCEL: a retriever and a chat history on PRISM\n\n`PrismRetriever` brings recalled "
               "long-term memories into a chain; `PrismChatMessageHistory` keeps each session's "
               "messages. The chain reads `history.messages` and the exchange is added after each "
               "call: plain LCEL, no `RunnableWithMessageHistory` (deprecated in LangChain 1.x).\n\n"
               "For agents, the LangChain 1.x way is `create_agent` with a checkpointer and "
               "`PrismMemoryMiddleware` (notebook 02)."),
        ("code", QUIET_SETUP + "\n\n" + FAKE_MODEL),
        ("code", '''from operator import itemgetter

from langchain_core.messages import HumanMessage
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables import RunnablePassthrough

from langchain_prism import PrismChatMessageHistory, PrismRetriever

model = scripted("Porto is lovely in May.", "You mentioned Porto.", "Maybe Porto again?")
prompt = ChatPromptTemplate.from_messages(
    [
        ("system", "What you know about the user:\\n{memories}"),
        MessagesPlaceholder("history"),
        ("human", "{question}"),
    ]
)
retriever = PrismRetriever(memory, user_id="alice", k=4, budget_tokens=400)


def as_text(docs):
    return "\\n".join(f"- {d.page_content}" for d in docs)


chain = RunnablePassthrough.assign(memories=itemgetter("question") | retriever | as_text) | prompt | model


def chat(question: str, session_id: str) -> str:
    """One turn: the session's messages in, the new exchange saved."""
    history = PrismChatMessageHistory(memory, user_id="alice", session_id=session_id)
    # the retriever reads the session from the config and leaves its turns out of the memories
    config = {"configurable": {"session_id": session_id}}
    answer = chain.invoke({"question": question, "history": history.messages}, config=config)
    history.add_messages([HumanMessage(question), answer])
    return answer.content'''),
        ("code", '''chat("My favourite city is Porto.", "s1")
chat("Which city did I mention?", "s1")
print([m.type for m in model.prompts[-1]])  # system, previous exchange, new question
print([m.content for m in PrismChatMessageHistory(memory, user_id="alice", session_id="s1").messages])'''),
        ("code", '''chat("Where should I travel next?", "s2")
print(model.prompts[-1][0].text)
assert "Porto" in model.prompts[-1][0].text  # a new session, recalled from long-term memory
for doc in retriever.invoke("favourite city"):
    print(doc.metadata["layer"], doc.metadata["kind"], doc.page_content)
memory.close()'''),
        ("md", REAL_MODEL),
    ],
}


def build() -> None:
    for name, cells in NOTEBOOKS.items():
        nb = new_notebook(
            cells=[new_markdown_cell(src) if kind == "md" else new_code_cell(src) for kind, src in cells],
            metadata={
                "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                "language_info": {"name": "python"},
            },
        )
        for i, cell in enumerate(nb.cells):
            cell["id"] = f"cell-{i:02d}"  # stable ids: rebuilding gives identical files
        nbformat.validate(nb)
        nbformat.write(nb, HERE / name)


if __name__ == "__main__":
    build()
