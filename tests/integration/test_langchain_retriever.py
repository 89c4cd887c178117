"""PrismRetriever passes the LangChain standard retriever suite, in both modes, on real data."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from langchain_tests.integration_tests import RetrieversIntegrationTests

from langchain_prism import PrismRetriever
from prism_memory import FastEmbedEmbedder, Memory

FACTS = [
    "Alice prefers aisle seats on long flights",
    "Alice is allergic to peanuts",
    "Alice's daughter Emma plays the violin",
    "Alice works as a nurse at the city hospital",
    "Alice booked a trip to Kyoto for April",
    "Alice runs five kilometres every Sunday morning",
    "Alice's favourite tea is genmaicha",
    "Alice drives a blue hatchback",
]


@pytest.fixture(scope="module")
def memory(
    tmp_path_factory: pytest.TempPathFactory, real_embedder: FastEmbedEmbedder
) -> Iterator[Memory]:
    m = Memory(path=tmp_path_factory.mktemp("retriever") / "store", embedder=real_embedder)
    m.add_many(FACTS, user_id="alice", kind="fact")
    m.add("Bob is afraid of flying", user_id="bob", kind="fact")
    yield m
    m.close()


class _Suite(RetrieversIntegrationTests):
    mode = "search"
    _memory: Memory

    @pytest.fixture(autouse=True)
    def _bind(self, memory: Memory) -> None:
        self._memory = memory

    @property
    def retriever_constructor(self) -> type[PrismRetriever]:
        return PrismRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"memory": self._memory, "user_id": "alice", "mode": self.mode, "k": 4}

    @property
    def retriever_query_example(self) -> str:
        return "What does Alice like when she travels?"


class TestPrismRetrieverSearchStandard(_Suite):
    mode = "search"


class TestPrismRetrieverRecallStandard(_Suite):
    mode = "recall"


def test_documents_carry_provenance_and_stay_in_scope(memory: Memory) -> None:
    docs = PrismRetriever(memory, user_id="alice", k=8).invoke("Is Alice afraid of flying?")
    assert docs and all(d.page_content in FACTS for d in docs)  # never Bob's memory
    meta = docs[0].metadata
    assert set(meta) >= {"id", "layer", "kind", "score", "event_time", "routes", "source"}
    assert meta["layer"] == "semantic" and meta["kind"] == "fact" and meta["source"] == "user"
    assert memory.get(meta["id"], user_id="alice").text == docs[0].page_content
    hits = PrismRetriever(memory, user_id="alice", mode="search", k=1).invoke("peanut allergy")
    assert hits[0].page_content == "Alice is allergic to peanuts"
    assert set(hits[0].metadata["routes"]) <= {"dense", "bm25"} and hits[0].metadata["routes"]
    bob = PrismRetriever(memory, user_id="bob", mode="search", k=5).invoke("peanut allergy")
    assert [d.page_content for d in bob] == ["Bob is afraid of flying"]
    assert PrismRetriever(memory, user_id="alice").invoke("   ") == []


async def test_async_and_lcel(memory: Memory) -> None:
    from langchain_core.runnables import RunnableLambda

    retriever = PrismRetriever(memory, user_id="alice", mode="search", k=2)
    chain = retriever | RunnableLambda(lambda docs: [d.page_content for d in docs])
    out = await chain.ainvoke("What instrument does Emma play?")
    assert out[0] == "Alice's daughter Emma plays the violin" and len(out) == 2
