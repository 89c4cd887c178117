"""Build the LlamaIndex cookbook notebooks (05-07) from the cells below, without outputs.

Run ``.venv/bin/python cookbook/_build_llamaindex.py`` after editing a cell; the notebooks are
generated files. Every notebook runs offline top to bottom: LlamaIndex's ``MockLLM`` or a
scripted function-calling LLM stands in for a model, and embeddings come from PRISM's packaged
offline MiniLM. ``tests/test_notebooks.py`` executes them.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).parent
KERNEL = {
    "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
    "language_info": {"name": "python"},
}


def md(text: str) -> nbformat.NotebookNode:
    return new_markdown_cell(text.strip())


def code(text: str) -> nbformat.NotebookNode:
    return new_code_cell(text.strip())


CHAT_ENGINE = [
    md(
        """
# A LlamaIndex chat engine that remembers a user across sessions

`PrismMemory` is a LlamaIndex `BaseMemory`. Give it to any chat engine or agent: the chat
history of the conversation is PRISM's short-term buffer for one session, and every call adds
one system message with what PRISM recalls from *all* of the user's earlier sessions.

Offline: `MockLLM` stands in for the model (it echoes its prompt), so we can look at exactly
what the model would receive. Swap in `llama_index.llms.openai.OpenAI()` for a real one.
"""
    ),
    code(
        """
import tempfile
import warnings

from tqdm import TqdmWarning

# LlamaIndex imports tqdm.auto, which warns in Jupyter without ipywidgets
warnings.filterwarnings("ignore", category=TqdmWarning)

from llama_index.core.chat_engine import SimpleChatEngine
from llama_index.core.llms.mock import MockLLMWithChatMemoryOfLastCall

from llamaindex_prism import PrismMemory
from prism_memory import Memory

memory = Memory(path=tempfile.mkdtemp() + "/prism")  # embedded Qdrant Edge, offline embedder
"""
    ),
    md("## Monday: Alice mentions a preference"),
    code(
        """
monday = PrismMemory(memory, user_id="alice", session_id="monday")
engine = SimpleChatEngine.from_defaults(llm=MockLLMWithChatMemoryOfLastCall(), memory=monday)
engine.chat("Hi! I'm vegetarian and I love really spicy Thai food.")
engine.chat("Also, I'm cooking for two most evenings.")

monday.reset()  # ends the PRISM session: its turns move to long-term memory
[(m.role.value, m.content) for m in monday.get_all()][:1]
"""
    ),
    md(
        """
## Tuesday: a new session, a new engine

Nothing of Monday's chat history is replayed; what reaches the model is the system message
with the recalled memories, rendered as data (not instructions), plus Tuesday's own turns.
"""
    ),
    code(
        """
llm = MockLLMWithChatMemoryOfLastCall()
tuesday = PrismMemory(memory, user_id="alice", session_id="tuesday", budget_tokens=300)
engine = SimpleChatEngine.from_defaults(
    llm=llm, memory=tuesday, system_prompt="You are a helpful cooking assistant."
)
engine.chat("What should I cook tonight?")

for message in llm.last_chat_messages:
    print(f"--- {message.role.value}\\n{message.content}\\n")
"""
    ),
    code(
        """
recalled = "\\n".join(m.content for m in llm.last_chat_messages if m.role.value == "system")
assert "vegetarian" in recalled and "spicy" in recalled
[(m.role.value, m.content) for m in tuesday.get_all()][:1]  # Tuesday's history is its own
"""
    ),
    md(
        """
## Another user sees none of it

Every read is confined to its scope by the store itself.
"""
    ),
    code(
        """
bob = PrismMemory(memory, user_id="bob", session_id="tuesday")
bob_context = bob.recall("What should I cook tonight? Anything spicy?").text
assert "vegetarian" not in bob_context
repr(bob_context)
"""
    ),
    md(
        """
## Async engines work the same way

`achat` / `astream_chat` go through `PrismMemory.aget` / `aput`.
"""
    ),
    code(
        """
llm = MockLLMWithChatMemoryOfLastCall()
engine = SimpleChatEngine.from_defaults(llm=llm, memory=tuesday)
await engine.achat("And a dessert idea?")
assert any("vegetarian" in (m.content or "") for m in llm.last_chat_messages)
len(tuesday.get_all())
"""
    ),
    md("What did recall do? The trace explains every candidate kept or cut."),
    code(
        """
ctx = tuesday.recall("What should I cook tonight?")
print(ctx.text)
print(ctx.tokens, "tokens;", ctx.trace.timings_ms)
"""
    ),
    code("memory.close()"),
]


MEMORY_BLOCK = [
    md(
        """
# PRISM as a memory block of `llama_index.core.memory.Memory`, in an agent

LlamaIndex's `Memory` keeps a short-term chat queue; on every read it asks each of its
*memory blocks* for content and adds it to the prompt inside `<memory>...</memory>`.
`PrismMemoryBlock` is such a block: on each read it remembers the session's new messages in
PRISM (facts extracted, turns indexed; each message once) and answers with a PRISM `recall`
for the latest message, leaving out what the chat window already shows. LlamaIndex's default
settings are all it needs: nothing has to be ejected from the ~21K-token window first.

One block can serve many sessions: it keeps no per-call state, so one session's memories never
leak into another's.
"""
    ),
    code(
        """
import tempfile
import warnings
from collections.abc import Sequence
from typing import Any

from tqdm import TqdmWarning

# LlamaIndex imports tqdm.auto, which warns in Jupyter without ipywidgets
warnings.filterwarnings("ignore", category=TqdmWarning)

from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, ToolCallBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.memory import Memory as LlamaMemory
from llama_index.core.tools import FunctionTool

from llamaindex_prism import PrismMemoryBlock
from prism_memory import Memory

memory = Memory(path=tempfile.mkdtemp() + "/prism")
block = PrismMemoryBlock(memory, user_id="alice", budget_tokens=300)
"""
    ),
    md(
        """
## A scripted model and one tool

No LLM is needed to run this notebook: the function-calling "model" below follows a script.
It books a table with a cuisine; it picks the cuisine from what it finds in the prompt, so you
can see whether the memory reached it.
"""
    ),
    code(
        """
def book_table(cuisine: str, people: int = 2) -> str:
    \"\"\"Book a restaurant table.\"\"\"
    return f"Booked a table for {people} at a {cuisine} restaurant, 8pm."


def scripted_model(messages: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
    prompt = "\\n".join(m.content or "" for m in messages)
    if any(m.role.value == "tool" for m in messages):  # the tool ran: answer with its result
        return ChatMessage(role="assistant", content=messages[-1].content)
    if "book" in (messages[-1].content or "").lower():
        cuisine = "vegetarian Thai" if "vegetarian" in prompt else "any"
        call = ToolCallBlock(tool_call_id="call-1", tool_name="book_table",
                             tool_kwargs={"cuisine": cuisine})
        return ChatMessage(role="assistant", blocks=[call])
    return ChatMessage(role="assistant", content="Got it.")


agent = FunctionAgent(
    tools=[FunctionTool.from_defaults(fn=book_table)],
    llm=MockFunctionCallingLLM(response_generator=scripted_model),
    system_prompt="You book restaurants for the user.",
)
"""
    ),
    md(
        """
## Monday: a chat with LlamaIndex's default `Memory`

Every turn reaches PRISM as the agent reads its memory before each model call;
`block.asave_session(...)` at the end stores the last reply too.
"""
    ),
    code(
        """
def session(session_id: str) -> LlamaMemory:
    return LlamaMemory.from_defaults(session_id=session_id, memory_blocks=[block])  # defaults


monday = session("monday")
for text in [
    "I'm vegetarian, and I love spicy Thai food.",
    "My partner and I usually eat out on Fridays.",
    "We live near the old harbour, so anything walkable from there is great.",
    "Next week is busy, we will probably order in most nights.",
]:
    await agent.run(text, memory=monday)
await block.asave_session(monday)  # the session ends: its last reply is stored too

print(len(memory.session_turns(user_id="alice", session_id="monday")), "turns remembered")
"""
    ),
    md("## Tuesday: a fresh session, same user"),
    code(
        """
tuesday = session("tuesday")
result = await agent.run("Please book dinner for tonight.", memory=tuesday)
print(result)
assert "vegetarian" in str(result)
"""
    ),
    md("What the block gave the model (the `<prism_memory>` part of the system message):"),
    code(
        """
messages = await tuesday.aget(input="Please book dinner for tonight.")
system = next(m.content for m in messages if m.role.value == "system")
assert "<prism_memory>" in system and "vegetarian" in system
print(system)
"""
    ),
    md(
        """
## Two sessions, one block, no leaks

A block without a user id scopes every read by the session LlamaIndex passes. Session A's
memories never reach session B, whichever asks first. (A later visit of a session is a new
`Memory` with the same session id: its chat window starts empty, PRISM still knows.)
"""
    ),
    code(
        """
shared = PrismMemoryBlock(memory)  # no user id: each session is its own scope


def kiosk(session_id: str) -> LlamaMemory:
    return LlamaMemory.from_defaults(session_id=session_id, memory_blocks=[shared])


for session_id, fact in [("kiosk-a", "My locker code is 4411."),
                         ("kiosk-b", "My locker code is 9090.")]:
    visit = kiosk(session_id)
    await visit.aput(ChatMessage(role="user", content=fact))
    await visit.aput(ChatMessage(role="assistant", content="Noted."))
    await shared.asave_session(visit)

a, b = kiosk("kiosk-a"), kiosk("kiosk-b")  # the next visit of each session


async def memory_part(mem: LlamaMemory) -> str:
    messages = await mem.aget(input="What is my locker code?")
    return "\\n".join(m.content or "" for m in messages if m.role.value == "system")


text_a, text_b = await memory_part(a), await memory_part(b)
assert "<prism_memory>" in text_a and "<prism_memory>" in text_b
assert "4411" in text_a and "9090" not in text_a
assert "9090" in text_b and "4411" not in text_b
print(text_b)
"""
    ),
    code("memory.close()"),
]


POSTPROCESSOR = [
    md(
        """
# PRISM's selective construction on any retriever's nodes

A plain top-k retriever hands the model every hit: mirrored pages, near-identical versions,
long passages it barely needs. LazyMem's answer is a second stage that *constructs* the
context: score each node on several objectives, drop near-duplicates, pack into a token
budget, optionally order by time. `PrismNodePostprocessor` is that stage for LlamaIndex, so a
`VectorStoreIndex` or a `RetrieverQueryEngine` gets it with one argument.

Offline: embeddings come from PRISM's packaged MiniLM (via `PrismEmbedding`), the LLM is
`MockLLM`.
"""
    ),
    code(
        """
import warnings

from tqdm import TqdmWarning

# LlamaIndex imports tqdm.auto, which warns in Jupyter without ipywidgets
warnings.filterwarnings("ignore", category=TqdmWarning)

from llama_index.core import Document, VectorStoreIndex
from llama_index.core.llms import MockLLM
from llama_index.core.schema import MetadataMode

from llamaindex_prism import PrismEmbedding, PrismNodePostprocessor
from prism_memory.tokens import count_tokens

embed_model = PrismEmbedding()  # FastEmbedEmbedder(): all-MiniLM-L6-v2 int8, no download
"""
    ),
    md("## A small help centre, indexed twice in places (as real ones are)"),
    code(
        """
pages = [
    ("Returns: items can be returned within 14 days of delivery for a full refund.", "2022-05-02"),
    ("Returns: items can be returned within 14 days of delivery for a full refund.", "2022-05-02"),
    ("Returns - items can be returned within 14 days of delivery, for a full refund.", "2022-06-10"),
    ("Update: the return window is now 30 days from delivery, for a full refund.", "2024-02-01"),
    ("Refunds go back to the original payment method. Card refunds take five to ten business "
     "days to appear on a statement, bank transfers up to three business days, and store "
     "credit is immediate. Gift cards cannot be refunded to cash.", "2023-03-15"),
    ("Damaged items: send a photo within 48 hours of delivery and we replace them for free.",
     "2023-01-20"),
    ("Shipping to Canada takes five to eight business days and includes tracking.", "2023-02-01"),
    ("Our support team answers chats from 9am to 6pm on weekdays.", "2023-04-20"),
]
docs = [Document(text=t, metadata={"date": d}) for t, d in pages]
index = VectorStoreIndex.from_documents(docs, embed_model=embed_model)
question = "How long do I have to return something for a refund?"
"""
    ),
    md("## Plain top-k"),
    code(
        """
def tokens(nodes):
    return sum(count_tokens(n.node.get_content(metadata_mode=MetadataMode.LLM)) for n in nodes)


retriever = index.as_retriever(similarity_top_k=8)
plain = retriever.retrieve(question)
print(tokens(plain), "tokens in the plain top-8 context")
for n in plain:
    print(f"{n.score:.3f}  {n.node.metadata['date']}  {n.node.get_content()[:70]}")
"""
    ),
    md(
        """
## With `PrismNodePostprocessor`

Same retriever, one postprocessor with a 120-token budget; time order so the model reads the
old policy before its update.
"""
    ),
    code(
        """
post = PrismNodePostprocessor(embedder=embed_model.embedder, budget_tokens=120, order="time")
engine = index.as_query_engine(similarity_top_k=8, llm=MockLLM(), node_postprocessors=[post])
response = engine.query(question)

kept = response.source_nodes
print(tokens(kept), "tokens after selective construction")
for n in kept:
    print(f"{n.score:.3f}  {n.node.metadata['date']}  {n.node.get_content()[:70]}")
"""
    ),
    md("Why each node was cut, and the tokens saved against the plain top-k context:"),
    code(
        """
decision = post.explain(plain, question)
for i, why in sorted(decision.dropped.items()):
    print(f"- {plain[i].node.get_content()[:50]!r}: {why}")
print(f"\\n{decision.tokens_in} -> {decision.tokens_out} tokens "
      f"({decision.tokens_saved} saved, {decision.tokens_saved / decision.tokens_in:.0%})")
assert decision.tokens_saved > 0
assert any("30 days" in n.node.get_content() for n in kept)
"""
    ),
    md(
        """
## Async query engines

`aquery` runs the same stage (`apostprocess_nodes`).
"""
    ),
    code(
        """
async_response = await engine.aquery(question)
assert [n.node.node_id for n in async_response.source_nodes] == [n.node.node_id for n in kept]
len(async_response.source_nodes)
"""
    ),
    md(
        """
With a PRISM `Memory`, pass it first instead (`PrismNodePostprocessor(memory, budget_tokens=...)`):
the postprocessor then uses the memory's embedder and its `RetrievalConfig` (score weights,
freshness half-life, duplicate threshold).
"""
    ),
]


def build() -> None:
    for name, cells in (
        ("05_llamaindex_chat_engine_memory.ipynb", CHAT_ENGINE),
        ("06_llamaindex_memory_block.ipynb", MEMORY_BLOCK),
        ("07_llamaindex_postprocessor.ipynb", POSTPROCESSOR),
    ):
        for i, cell in enumerate(cells):  # stable ids: rebuilding gives a clean diff
            cell["id"] = f"{name[:2]}-{i:02d}"
        nb = new_notebook(cells=cells, metadata=KERNEL)
        nbformat.validate(nb)
        nbformat.write(nb, HERE / name)


if __name__ == "__main__":
    build()
