"""Scores mean relevance everywhere: the cosine of query and record vectors, clipped to [0, 1].

With the real offline embedder on an embedded (Qdrant Edge) store: ``Memory.search`` /
``asearch``, the LangChain retriever (both modes), the LlamaIndex retriever, recall items and
``PrismStore`` all score a relevant memory above an unrelated one, keep every score in [0, 1],
drop the unrelated one with ``score_threshold``, and keep the fusion order.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterator
from typing import Any

import pytest
from llama_index.core.schema import QueryBundle
from pydantic import ValidationError as PydanticValidationError

from langchain_prism import PrismRetriever as LangChainRetriever
from langchain_prism import PrismStore
from llamaindex_prism import PrismRetriever as LlamaIndexRetriever
from prism_memory import ConfigError, FastEmbedEmbedder, Memory, Scope, ValidationError
from prism_memory.retrieval.fusion import rrf
from prism_memory.retrieval.scoring import relevance
from prism_memory.stores.base import hybrid_routes

RELEVANT = "Alice is allergic to peanuts and carries an epinephrine pen"
UNRELATED = "The quarterly tax filing deadline for the bakery is in March"
OTHERS = [
    "Alice prefers aisle seats on long flights",
    "Alice's daughter Emma plays the violin",
    "Alice drives a blue hatchback",
]
QUERY = "what food allergies does Alice have?"


@pytest.fixture(scope="module")
def memory(
    tmp_path_factory: pytest.TempPathFactory, real_embedder: FastEmbedEmbedder
) -> Iterator[Memory]:
    m = Memory(path=tmp_path_factory.mktemp("relevance") / "store", embedder=real_embedder)
    m.add_many([RELEVANT, UNRELATED, *OTHERS], user_id="alice", kind="fact")
    yield m
    m.close()


def _by_text(hits: list[Any], text_of: Any, score_of: Any) -> dict[str, float]:
    return {text_of(h): score_of(h) for h in hits}


def _threshold_between(memory: Memory) -> float:
    """A threshold above the unrelated memory's score and below the relevant one's."""
    scores = {h.text: h.score for h in memory.search(QUERY, user_id="alice")}
    assert scores[RELEVANT] > scores[UNRELATED] + 0.1
    return (scores[RELEVANT] + scores[UNRELATED]) / 2


def test_search_score_is_the_cosine_of_query_and_record(memory: Memory) -> None:
    hits = memory.search(QUERY, user_id="alice")
    assert {h.text for h in hits} == {RELEVANT, UNRELATED, *OTHERS}
    assert all(0.0 <= h.score <= 1.0 for h in hits)
    qvec = memory.embedder.embed_query(QUERY)
    vectors = memory.store.get_vectors([h.id for h in hits], Scope.of("alice"))
    for h in hits:  # whichever route found it (a BM25 hit gets its cosine too)
        assert h.score == pytest.approx(relevance(qvec, vectors[h.id]), abs=1e-5)
    scores = {h.text: h.score for h in hits}
    assert scores[RELEVANT] == max(scores.values()) and scores[UNRELATED] < scores[RELEVANT]


def test_search_keeps_the_fusion_order_and_value(memory: Memory) -> None:
    hits = memory.search(QUERY, user_id="alice")
    qvec = memory.embedder.embed_query(QUERY)
    routes = hybrid_routes(qvec, memory.sparse.query(QUERY), prefetch_limit=40)
    raw = memory.store.query_routes(Scope.of("alice"), routes, memory.visible_filter())
    fused = rrf(raw, k=memory.config.retrieval.rrf_k)
    assert [h.id for h in hits] == [c.id for c in fused]
    assert [h.rank_score for h in hits] == pytest.approx([c.fused for c in fused])
    assert [h.rank_score for h in hits] == sorted((h.rank_score for h in hits), reverse=True)


def test_search_threshold_drops_the_unrelated_memory(memory: Memory) -> None:
    threshold = _threshold_between(memory)
    every = memory.search(QUERY, user_id="alice")
    kept = memory.search(QUERY, user_id="alice", score_threshold=threshold)
    assert RELEVANT in {h.text for h in kept} and UNRELATED not in {h.text for h in kept}
    assert all(h.score >= threshold for h in kept)
    assert [h.id for h in kept] == [h.id for h in every if h.score >= threshold]  # same order
    assert memory.search(QUERY, user_id="alice", score_threshold=0.0) == every
    assert memory.search(QUERY, user_id="alice", score_threshold=1.0) == []
    async_kept = asyncio.run(memory.asearch(QUERY, user_id="alice", score_threshold=threshold))
    assert [h.id for h in async_kept] == [h.id for h in kept]


def test_threshold_applies_before_the_limit(memory: Memory) -> None:
    threshold = _threshold_between(memory)
    kept = memory.search(QUERY, user_id="alice", score_threshold=threshold)
    assert memory.search(QUERY, user_id="alice", limit=1, score_threshold=threshold) == kept[:1]


@pytest.mark.parametrize("bad", [-0.1, 1.5, math.nan, "0.5", True])
def test_score_threshold_is_validated_everywhere(memory: Memory, bad: Any) -> None:
    with pytest.raises(ValidationError, match="score_threshold"):
        memory.search(QUERY, user_id="alice", score_threshold=bad)
    with pytest.raises(ValidationError, match="score_threshold"):
        PrismStore(memory, score_threshold=bad)
    with pytest.raises(ValidationError, match="score_threshold"):
        PrismStore(memory).search(("x",), query="q", score_threshold=bad)
    with pytest.raises(ConfigError, match="score_threshold"):
        LlamaIndexRetriever(memory, user_id="alice", score_threshold=bad)
    with pytest.raises(PydanticValidationError, match="score_threshold"):
        LangChainRetriever(memory, user_id="alice", score_threshold=bad)


def test_recall_items_carry_the_same_relevance(memory: Memory) -> None:
    ctx = memory.recall(QUERY, user_id="alice", budget_tokens=500)
    searched = {h.id: h.score for h in memory.search(QUERY, user_id="alice")}
    assert ctx.items
    for item in ctx.items:
        assert item.relevance is not None and 0.0 <= item.relevance <= 1.0
        assert item.relevance == pytest.approx(searched[item.record.id], abs=1e-5)


@pytest.mark.parametrize("mode", ["search", "recall"])
def test_langchain_retriever_scores_and_threshold(memory: Memory, mode: str) -> None:
    every = LangChainRetriever(memory, user_id="alice", mode=mode, k=10).invoke(QUERY)
    scores = _by_text(every, lambda d: d.page_content, lambda d: d.metadata["score"])
    assert RELEVANT in scores and all(0.0 <= s <= 1.0 for s in scores.values())
    assert all(isinstance(d.metadata["rank_score"], float) for d in every)
    if UNRELATED in scores:
        assert scores[RELEVANT] > scores[UNRELATED]
    threshold = _threshold_between(memory)
    kept = LangChainRetriever(
        memory, user_id="alice", mode=mode, k=10, score_threshold=threshold
    ).invoke(QUERY)
    texts = [d.page_content for d in kept]
    assert RELEVANT in texts and UNRELATED not in texts
    assert texts == [d.page_content for d in every if d.metadata["score"] >= threshold]


def test_llamaindex_retriever_scores_and_threshold(memory: Memory) -> None:
    every = LlamaIndexRetriever(memory, user_id="alice").retrieve(QueryBundle(QUERY))
    scores = _by_text(every, lambda n: n.node.get_content(), lambda n: n.score)
    assert RELEVANT in scores and all(0.0 <= (s or 0.0) <= 1.0 for s in scores.values())
    searched = {h.id: h.score for h in memory.search(QUERY, user_id="alice")}
    for n in every:
        assert n.score == pytest.approx(searched[n.node.node_id], abs=1e-5)
    threshold = _threshold_between(memory)
    kept = LlamaIndexRetriever(memory, user_id="alice", score_threshold=threshold).retrieve(
        QueryBundle(QUERY)
    )
    ids = [n.node.node_id for n in kept]
    assert ids == [n.node.node_id for n in every if (n.score or 0.0) >= threshold]
    assert RELEVANT in {n.node.get_content() for n in kept}
    assert UNRELATED not in {n.node.get_content() for n in kept}


def test_store_search_scores_and_threshold(memory: Memory) -> None:
    store = PrismStore(memory, agent_id="relevance-test")
    for i, text in enumerate([RELEVANT, UNRELATED, *OTHERS]):
        store.put(("memories", "alice"), f"k{i}", {"text": text})
    every = store.search(("memories",), query=QUERY, limit=10)
    scores = _by_text(every, lambda h: h.value["text"], lambda h: h.score)
    assert all(s is not None and 0.0 <= s <= 1.0 for s in scores.values())
    assert scores[RELEVANT] > scores[UNRELATED]
    # the same scoring function as the core: the same score as Memory.search over the items
    core = {
        h.record.metadata["key"]: h.score
        for h in memory.search(QUERY, **store.scope_of(("memories", "alice")))
    }
    assert {h.key: h.score for h in every} == pytest.approx(core, abs=1e-6)
    threshold = (scores[RELEVANT] + scores[UNRELATED]) / 2
    expected = [h.key for h in every if (h.score or 0.0) >= threshold]
    kept = store.search(("memories",), query=QUERY, limit=10, score_threshold=threshold)
    assert [h.key for h in kept] == expected and "k0" in expected and "k1" not in expected
    async_kept = asyncio.run(
        store.asearch(("memories",), query=QUERY, limit=10, score_threshold=threshold)
    )
    assert [h.key for h in async_kept] == expected
    by_default = PrismStore(memory, agent_id="relevance-test", score_threshold=threshold)
    assert [h.key for h in by_default.search(("memories",), query=QUERY, limit=10)] == expected
    assert len(store.search(("memories",), query=QUERY, limit=10)) == len(every)  # per call
