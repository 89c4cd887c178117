"""``PrismRetriever`` with ``RetrieverQueryEngine`` on the real store and embedder."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from llama_index.core.llms import MockLLM
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import MetadataMode, QueryBundle, TextNode

from llamaindex_prism import PrismRetriever
from prism_memory import ConfigError, FastEmbedEmbedder, Memory, ScopeError


@pytest.fixture(scope="module")
def setup(
    tmp_path_factory: pytest.TempPathFactory, real_embedder: FastEmbedEmbedder
) -> Iterator[tuple[Memory, str, str]]:
    """One store with two users' memories (module scope: opening a store costs seconds)."""
    m = Memory(
        path=tmp_path_factory.mktemp("llamaindex_retriever") / "store", embedder=real_embedder
    )
    alice, bob = f"alice-{uuid.uuid4().hex[:6]}", f"bob-{uuid.uuid4().hex[:6]}"
    m.add("I prefer window seats on long flights.", user_id=alice, kind="preference")
    m.add("My passport expires in March 2026.", user_id=alice, kind="fact", entities=["passport"])
    m.add("I live in Porto with my two cats.", user_id=alice, kind="fact")
    m.add("I always book aisle seats, I get up a lot.", user_id=bob, kind="preference")
    yield m, alice, bob
    m.close()


def test_retrieve_returns_nodes_with_the_records_metadata(setup: tuple[Memory, str, str]) -> None:
    memory, alice, _ = setup
    retriever = PrismRetriever(memory, user_id=alice, budget_tokens=200)
    nodes = retriever.retrieve("Which seat should I book for my flight?")
    assert nodes, "recall found the preference"
    top = nodes[0]
    assert isinstance(top.node, TextNode)
    assert top.node.text == "I prefer window seats on long flights."
    assert top.score is not None and top.score > 0
    meta = top.node.metadata
    assert meta["kind"] == "preference" and meta["layer"] == "semantic"
    assert meta["user_id"] == alice and meta["record_id"] == top.node.node_id
    assert memory.get(top.node.node_id, user_id=alice).text == top.node.text
    # ids and bookkeeping never reach the LLM prompt
    assert alice not in top.node.get_content(metadata_mode=MetadataMode.LLM)
    assert retriever.retrieve("   ") == []
    assert retriever.scope == {"user_id": alice}


async def test_aretrieve_matches_retrieve(setup: tuple[Memory, str, str]) -> None:
    memory, alice, _ = setup
    retriever = PrismRetriever(memory, user_id=alice)
    sync = retriever.retrieve("When does my passport expire?")
    async_ = await retriever.aretrieve(QueryBundle("When does my passport expire?"))
    assert [n.node.node_id for n in async_] == [n.node.node_id for n in sync]
    assert any("March 2026" in n.node.get_content() for n in async_)


def test_users_never_retrieve_each_others_memories(setup: tuple[Memory, str, str]) -> None:
    memory, alice, bob = setup
    for query in ("Which seat do I book?", "passport", "cats in Porto"):
        bobs = PrismRetriever(memory, user_id=bob).retrieve(query)
        texts = [n.node.get_content() for n in bobs]
        assert {n.node.metadata["user_id"] for n in bobs} <= {bob}
        assert not any("window" in t or "passport" in t or "Porto" in t for t in texts)
        ids = {
            n.node.metadata["user_id"]
            for n in PrismRetriever(memory, user_id=alice).retrieve(query)
        }
        assert ids <= {alice}


TRAVEL = "Before my flight: which seats do I like, when does my passport expire, where do I live?"


def test_budget_bounds_what_is_retrieved(setup: tuple[Memory, str, str]) -> None:
    memory, alice, _ = setup
    wide = PrismRetriever(memory, user_id=alice, budget_tokens=1000).retrieve(TRAVEL)
    narrow = PrismRetriever(memory, user_id=alice, budget_tokens=40).retrieve(TRAVEL)
    assert len(wide) >= 2
    assert 0 < len(narrow) < len(wide)


def test_query_engine_answers_from_prism_nodes(setup: tuple[Memory, str, str]) -> None:
    memory, alice, _ = setup
    engine = RetrieverQueryEngine.from_args(PrismRetriever(memory, user_id=alice), llm=MockLLM())
    response = engine.query("When does my passport expire?")
    assert any("March 2026" in n.node.get_content() for n in response.source_nodes)
    assert "March 2026" in str(response)  # MockLLM echoes its prompt: the context reached it


async def test_query_engine_async(setup: tuple[Memory, str, str]) -> None:
    memory, alice, _ = setup
    engine = RetrieverQueryEngine.from_args(PrismRetriever(memory, user_id=alice), llm=MockLLM())
    response = await engine.aquery("Where do I live?")
    assert any("Porto" in n.node.get_content() for n in response.source_nodes)


def test_retriever_arguments_are_checked(setup: tuple[Memory, str, str]) -> None:
    memory, alice, _ = setup
    with pytest.raises(ConfigError, match="Memory"):
        PrismRetriever("not a memory", user_id=alice)
    with pytest.raises(ScopeError):
        PrismRetriever(memory)
    with pytest.raises(ConfigError, match="budget_tokens"):
        PrismRetriever(memory, user_id=alice, budget_tokens=0)
    assert PrismRetriever(memory=memory, agent_id="planner").memory is memory
