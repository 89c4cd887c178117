"""``PrismNodePostprocessor`` on a real ``VectorStoreIndex`` (offline embedder) and query engine."""

from __future__ import annotations

import pytest
from llama_index.core import Document, VectorStoreIndex
from llama_index.core.llms import MockLLM
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import MetadataMode, NodeWithScore

from llamaindex_prism import PrismEmbedding, PrismNodePostprocessor
from prism_memory import FastEmbedEmbedder, Memory, RetrievalConfig
from prism_memory.tokens import count_tokens

REFUND_OLD = "Refund policy: customers may return items within 14 days of delivery for a refund."
REFUND_NEW = "Refund policy update: the return window is now 30 days from delivery for a refund."
DOCS = [
    (REFUND_OLD, "2023-01-10"),
    (REFUND_OLD, "2023-01-10"),  # the same page indexed twice (a mirror of the help centre)
    (
        "Refund policy: customers may return items within 14 days of delivery, for a refund.",
        "2023-01-11",
    ),
    (REFUND_NEW, "2024-03-01"),
    (
        "Refunds are paid to the original payment method. Card refunds take five to ten "
        "business days to appear, bank transfers up to three days, and store credit is "
        "immediate. Gift cards cannot be refunded to cash under any circumstances.",
        "2023-06-15",
    ),
    ("Shipping to Canada takes five to eight business days with tracking.", "2023-02-01"),
    ("Our support team answers chats from 9am to 6pm on weekdays.", "2023-04-20"),
]
QUESTION = "How many days do I have to return an item for a refund?"


@pytest.fixture(scope="module")
def index(real_embedder: FastEmbedEmbedder) -> VectorStoreIndex:
    docs = [Document(text=t, metadata={"date": d}) for t, d in DOCS]
    return VectorStoreIndex.from_documents(docs, embed_model=PrismEmbedding(real_embedder))


def llm_tokens(nodes: list[NodeWithScore]) -> int:
    return sum(count_tokens(n.node.get_content(metadata_mode=MetadataMode.LLM)) for n in nodes)


def test_query_engine_gets_a_deduplicated_budgeted_context(
    index: VectorStoreIndex, real_embedder: FastEmbedEmbedder
) -> None:
    retriever = index.as_retriever(similarity_top_k=7)
    plain = retriever.retrieve(QUESTION)
    post = PrismNodePostprocessor(embedder=real_embedder, budget_tokens=90)
    engine = RetrieverQueryEngine.from_args(retriever, llm=MockLLM(), node_postprocessors=[post])
    response = engine.query(QUESTION)
    kept = response.source_nodes
    texts = [n.node.get_content() for n in kept]
    assert len(texts) == len(set(texts))  # the mirrored page and its comma twin are gone
    assert sum(t.startswith("Refund policy: customers") for t in texts) == 1
    assert REFUND_NEW in texts  # the answer that matters survives
    assert llm_tokens(kept) <= 90 < llm_tokens(plain)
    scores = [n.score or 0.0 for n in kept]
    assert scores == sorted(scores, reverse=True)

    decision = post.explain(plain, QUESTION)
    assert decision.tokens_saved == llm_tokens(plain) - llm_tokens(kept)
    assert any("near-duplicate" in why for why in decision.dropped.values())


async def test_async_query_engine_path(
    index: VectorStoreIndex, real_embedder: FastEmbedEmbedder
) -> None:
    post = PrismNodePostprocessor(embedder=real_embedder, budget_tokens=90)
    engine = index.as_query_engine(similarity_top_k=7, llm=MockLLM(), node_postprocessors=[post])
    response = await engine.aquery(QUESTION)
    sync = engine.query(QUESTION)
    assert [n.node.node_id for n in response.source_nodes] == [
        n.node.node_id for n in sync.source_nodes
    ]
    assert llm_tokens(response.source_nodes) <= 90


def test_time_order_and_postprocess_nodes_directly(
    index: VectorStoreIndex, real_embedder: FastEmbedEmbedder
) -> None:
    nodes = index.as_retriever(similarity_top_k=7).retrieve(QUESTION)
    post = PrismNodePostprocessor(embedder=real_embedder, budget_tokens=None, order="time")
    out = post.postprocess_nodes(nodes, query_str=QUESTION)
    dates = [n.node.metadata["date"] for n in out]
    assert dates == sorted(dates)
    top2 = PrismNodePostprocessor(embedder=real_embedder, top_n=2, budget_tokens=None)
    assert len(top2.postprocess_nodes(nodes, query_str=QUESTION)) == 2


def test_memory_supplies_embedder_and_config(
    index: VectorStoreIndex, real_embedder: FastEmbedEmbedder
) -> None:
    nodes = index.as_retriever(similarity_top_k=7).retrieve(QUESTION)
    with Memory(location=":memory:", embedder=real_embedder) as memory:
        keep_all = memory.config.model_copy(
            update={"retrieval": RetrievalConfig(dedup_threshold=1.0)}
        )
        memory.config = keep_all
        loose = PrismNodePostprocessor(memory, budget_tokens=None).postprocess_nodes(
            nodes, query_str=QUESTION
        )
        # the comma twin is not a byte-identical copy: with a 1.0 threshold it stays
        assert sum(n.node.get_content().startswith("Refund policy: customers") for n in loose) >= 2
        strict = PrismNodePostprocessor(memory, budget_tokens=None, dedup_threshold=0.9)
        kept = strict.postprocess_nodes(nodes, query_str=QUESTION)
        assert sum(n.node.get_content().startswith("Refund policy: customers") for n in kept) == 1
