"""The ```python blocks of README.md and docs/*.md run (issue #17).

Every block is either a program, run here, or an API overview listed in ``REFERENCE`` with the
reason it is not run; a new block that is neither fails ``test_every_block_is_run_or_listed``.

A program starts with an import. Some programs are excerpts that use names the surrounding prose
introduces (``memory``, ``model``, ``llm``, ``index``): ``GIVEN`` states, per block, the code that
defines them, so what a block assumes is written down here. The programs run in one child
interpreter (one import of the frameworks and one load of the embedding model keep the file
near 20 s), each in a fresh namespace and its own temporary directory, offline, after
``PRELUDE``, which replaces the paid providers a snippet constructs (``ChatOpenAI``,
``OpenAIEmbeddings``) with LangChain's fake models. A block may contain top-level ``await``; it
is then run with ``asyncio.run``. A block must not raise, and what it writes to stderr (file
descriptor 2, captured per block) must hold neither a traceback nor a warning.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def _blocks() -> list[tuple[str, int, str]]:
    out = []
    for path in DOCS:
        name = path.relative_to(ROOT).as_posix()
        for i, code in enumerate(BLOCK.findall(path.read_text(encoding="utf-8"))):
            out.append((name, i, code))
    return out


def _first_line(code: str) -> str:
    return code.strip().splitlines()[0].strip()


def _is_program(code: str) -> bool:
    return _first_line(code).startswith(("import ", "from "))


BLOCKS = _blocks()

OVERVIEW = "API overview: one line per call, with `...` and names a reader fills in"
SERVICE = (
    "needs a running `prism serve` and its key; tests/integration/test_service_congruence.py and "
    "test_service_adapters.py make the same calls against one"
)
REFERENCE: dict[tuple[str, str], str] = {
    ("README.md", 'm.add(text, kind="fact", layer="semantic", metadata={...}, event_time=dt, entities=[...])  # -> MemoryRecord'): OVERVIEW,
    ("README.md", 'res = m.remember(messages, user_id="alice", session_id="s1", task_id="trip-123", event_time=dt)'): OVERVIEW,
    ("README.md", 'ctx = m.recall("what seat does she like?", user_id="alice", budget_tokens=1000,'): OVERVIEW,
    ("README.md", 'm = Memory(url="http://localhost:6333")   # docker run -p 6333:6333 qdrant/qdrant'): "needs a Qdrant server (QDRANT_URL)",
    ("docs/llamaindex.md", "from llama_index.core.memory import Memory as LlamaMemory"): "an excerpt of an agent's async run: it needs a workflow agent driven by a real LLM (on MockLLM's echo a ReActAgent never finishes)",
    ("docs/write-path.md", 'm.buffer(user_id="alice", session_id="s1")     # buffered turns, oldest first (survives a restart)'): OVERVIEW,
    ("docs/write-path.md", 'm.remember("My budget is 500 a night", user_id="alice")'): "continues the `m` of the first block; its values are in the comments",
    ("docs/write-path.md", 'm.task("trip-123", user_id="alice", goal="Kyoto in May", constraints=["<= 800/night"])'): OVERVIEW,
    ("docs/write-path.md", 'm.consolidate(user_id="alice")          # episodic turns -> summary records (idempotent)'): OVERVIEW,
    ("README.md", "from prism_memory import RemoteMemory"): SERVICE,
    ("docs/service.md", "from prism_memory import RemoteMemory"): SERVICE,
    ("docs/service.md", "from langchain_prism import PrismRetriever, PrismChatMessageHistory"): SERVICE,
}  # fmt: skip

# The providers a snippet may construct, swapped for LangChain's fakes before the block runs.
PRELUDE = """
import langchain_openai
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage


class FakeChat(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self


def fake_chat(*args, **kwargs):
    return FakeChat(messages=iter([AIMessage("Noted.") for _ in range(50)]))


def fake_embeddings(*args, **kwargs):
    return DeterministicFakeEmbedding(size=1536)


langchain_openai.ChatOpenAI = fake_chat
langchain_openai.OpenAIEmbeddings = fake_embeddings
"""

MEMORY = 'from prism_memory import Memory\nmemory = Memory(path="./.prism")\n'
CHAT = "from langchain_openai import ChatOpenAI\nmodel = llm = ChatOpenAI()  # a fake (PRELUDE)\n"
LLAMA_LLM = "from llama_index.core.llms import MockLLM\nllm = MockLLM()\n"

# What the prose around an excerpt defines, by (file, first line of the block).
GIVEN: dict[tuple[str, str], str] = {
    ("README.md", "from langchain.agents import create_agent"): MEMORY + CHAT + """
from dataclasses import dataclass

@dataclass
class Context:
    user_id: str

inputs = {"messages": [{"role": "user", "content": "I prefer window seats"}]}
""",
    ("README.md", "from llamaindex_prism import PrismMemory, PrismMemoryBlock, PrismNodePostprocessor, PrismRetriever"): MEMORY + LLAMA_LLM + """
import llama_index.core.memory
from llama_index.core import Document, VectorStoreIndex
from llama_index.core.chat_engine import SimpleChatEngine
from llama_index.core import Settings
from llamaindex_prism import PrismEmbedding

Settings.llm = llm  # the application's LLM, which a query engine uses
index = VectorStoreIndex.from_documents(
    [Document(text="Alice prefers window seats.")], embed_model=PrismEmbedding()
)
""",
    ("docs/langchain.md", "from dataclasses import dataclass"): CHAT,
    ("docs/langchain.md", "from langchain_prism import create_memory_tools"): MEMORY,
    ("docs/langchain.md", "from langchain_prism import PrismStore"): MEMORY + """
from langgraph.graph import START, MessagesState, StateGraph

builder = StateGraph(MessagesState)
builder.add_node("reply", lambda state: {})
builder.add_edge(START, "reply")
""",
    ("docs/langchain.md", "from langchain_prism import PrismRetriever"): MEMORY + CHAT + """
from operator import itemgetter
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnablePassthrough

def fmt(docs):
    return "\\n".join(d.page_content for d in docs)

prompt = ChatPromptTemplate.from_template("{memories}\\n\\n{question}")
""",
    ("docs/langchain.md", "from langchain_prism import PrismMemory"): MEMORY,
    ("docs/llamaindex.md", "from llama_index.core.chat_engine import SimpleChatEngine"): LLAMA_LLM,
    ("docs/llamaindex.md", "from llama_index.core.query_engine import RetrieverQueryEngine"): MEMORY + LLAMA_LLM,
    ("docs/llamaindex.md", "from llamaindex_prism import PrismEmbedding, PrismNodePostprocessor"): LLAMA_LLM + """
from llama_index.core import Document, Settings, VectorStoreIndex
from llama_index.core.schema import NodeWithScore, TextNode

Settings.llm = llm
docs = [Document(text="Alice prefers window seats."), Document(text="Bob likes trains.")]
nodes = [NodeWithScore(node=TextNode(text=d.text), score=1.0) for d in docs]
""",
    ("docs/write-path.md", "from pydantic import BaseModel"): 'from prism_memory import Memory\nm = Memory(path="./.prism")\n',
}  # fmt: skip

# One interpreter runs every program (imports and the embedding model load once): PRELUDE,
# then for each block, in a fresh namespace and a fresh directory, GIVEN and the block (top-level
# ``await`` allowed), with file descriptor 2 sent to a file per block and a 60 s alarm.
RUNNER = """
import ast, asyncio, json, os, signal, sys, traceback, warnings
jobs = json.load(open(sys.argv[1]))
exec(compile(jobs["prelude"], "<prelude>", "exec"), {"__name__": "__prelude__"})
results = {}
def alarm(*_):
    raise TimeoutError("block ran over 60 s")
signal.signal(signal.SIGALRM, alarm)
for job in jobs["blocks"]:
    os.chdir(job["cwd"])
    err = os.path.join(job["cwd"], "stderr.txt")
    sys.stderr.flush()
    saved = os.dup(2)
    fd = os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(fd, 2)
    ok = True
    try:
        with warnings.catch_warnings():  # warnings already shown by an earlier block show again
            signal.alarm(60)
            ns = {"__name__": "__main__"}
            exec(compile(job["given"], "<given>", "exec"), ns)
            code = compile(job["code"], job["name"], "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
            result = eval(code, ns)
            if asyncio.iscoroutine(result):
                asyncio.run(result)
            for value in ns.values():
                if type(value).__name__ == "Memory" and hasattr(value, "close"):
                    value.close()
    except BaseException:
        ok = False
        traceback.print_exc()
    finally:
        signal.alarm(0)
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(fd)
        os.close(saved)
    results[job["id"]] = {"ok": ok, "stderr": open(err).read()}
json.dump(results, open(sys.argv[2], "w"))
"""

PROGRAMS = [
    (f, i, c) for f, i, c in BLOCKS if _is_program(c) and (f, _first_line(c)) not in REFERENCE
]
IDS = [f"{f}-{i}" for f, i, _ in PROGRAMS]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """Run every program once, in one subprocess; results by test id."""
    base = tmp_path_factory.mktemp("docs")
    blocks = []
    for (doc, index, code), ident in zip(PROGRAMS, IDS, strict=True):
        cwd = base / ident.replace("/", "_")
        cwd.mkdir()
        given = GIVEN.get((doc, _first_line(code)), "")
        blocks.append({"id": ident, "cwd": str(cwd), "given": given, "code": code,
                       "name": f"{doc}[{index}]"})  # fmt: skip
    (base / "jobs.json").write_text(json.dumps({"prelude": PRELUDE, "blocks": blocks}))
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "HF_HUB_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }
    env.pop("OPENAI_API_KEY", None)
    run = subprocess.run(
        [sys.executable, "-c", RUNNER, str(base / "jobs.json"), str(base / "results.json")],
        cwd=base,
        env=env,
        capture_output=True,
        text=True,
        timeout=60 * len(blocks),
    )
    assert run.returncode == 0, run.stderr
    return json.loads((base / "results.json").read_text())


def test_every_block_is_run_or_listed() -> None:
    unlisted = [
        (f, _first_line(c)) for f, _, c in BLOCKS
        if not _is_program(c) and (f, _first_line(c)) not in REFERENCE
    ]  # fmt: skip
    assert not unlisted, (
        f"add these blocks to REFERENCE (with a reason) or make them programs: {unlisted}"
    )
    keys = {(f, _first_line(c)) for f, _, c in BLOCKS}
    assert not (set(REFERENCE) | set(GIVEN)) - keys, "stale keys in REFERENCE / GIVEN"


@pytest.mark.parametrize(("doc", "index", "code"), PROGRAMS, ids=IDS)
def test_program_runs(doc: str, index: int, code: str, runs: dict[str, dict]) -> None:
    result = runs[f"{doc}-{index}"]
    assert result["ok"], result["stderr"]
    assert "Traceback" not in result["stderr"], result["stderr"]
    warned = [line for line in result["stderr"].splitlines() if "warning" in line.lower()]
    assert not warned, f"{doc} block {index} printed warnings: {warned}"
