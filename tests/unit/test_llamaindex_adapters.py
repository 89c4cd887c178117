"""LlamaIndex adapters without a store: public surface, conversions, postprocessor, embedding."""

from __future__ import annotations

from datetime import date, datetime, timezone

import pytest
from llama_index.core.base.llms.types import ChatMessage, MessageRole, TextBlock, ToolCallBlock
from llama_index.core.schema import MetadataMode, NodeWithScore, TextNode

import llamaindex_prism
from llamaindex_prism import PrismEmbedding, PrismMemoryBlock, PrismNodePostprocessor
from llamaindex_prism._convert import (
    check_memory,
    message_text,
    messages_to_turns,
    record_and_score,
    record_to_message,
    record_to_node,
)
from llamaindex_prism.postprocessor import _node_time
from prism_memory import ConfigError, FakeEmbedder, MemoryRecord, ScoredRecord
from prism_memory.retrieval.context import ContextItem
from prism_memory.tokens import count_tokens


def test_every_public_name_imports() -> None:
    for name in llamaindex_prism.__all__:
        assert getattr(llamaindex_prism, name) is not None
    assert sorted(llamaindex_prism.__all__) == llamaindex_prism.__all__


def test_messages_become_remember_turns() -> None:
    messages = [
        ChatMessage(role="user", content="hi", additional_kwargs={"name": "Ann", "id": "m1"}),
        ChatMessage(role=MessageRole.CHATBOT, content="hello"),
        ChatMessage(role=MessageRole.DEVELOPER, content="be brief"),
        ChatMessage(role=MessageRole.FUNCTION, content="42"),
        ChatMessage(role="assistant", blocks=[ToolCallBlock(tool_name="f", tool_kwargs={})]),
        ChatMessage(role="user", blocks=[TextBlock(text="a"), TextBlock(text="b")]),
    ]
    assert messages_to_turns(messages) == [
        {"role": "user", "content": "hi", "name": "Ann", "id": "m1"},
        {"role": "assistant", "content": "hello"},
        {"role": "system", "content": "be brief"},
        {"role": "tool", "content": "42"},
        {"role": "user", "content": "a\nb"},
    ]
    assert message_text(messages[4]) == ""


def test_records_become_messages_and_nodes() -> None:
    r = MemoryRecord(
        text="I prefer window seats",
        user_id="alice",
        session_id="s1",
        kind="preference",
        speaker="alice",
        metadata={"role": "assistant", "nested": {"x": 1}, "topic": "travel"},
        event_time=datetime(2024, 5, 1, tzinfo=timezone.utc),
    )
    msg = record_to_message(r)
    assert msg.role == MessageRole.ASSISTANT and msg.content == r.text
    assert record_to_message(r.model_copy(update={"metadata": {}})).role == MessageRole.USER

    node = record_to_node(r, 0.7).node
    assert node.node_id == r.id
    assert node.metadata["kind"] == "preference" and node.metadata["meta_topic"] == "travel"
    assert "meta_nested" not in node.metadata  # only flat values are node metadata
    shown = node.get_content(metadata_mode=MetadataMode.LLM)
    assert "2024-05-01" in shown and "alice" in shown and "s1" not in shown
    part = record_to_node(r, 0.7, text="window seats").node
    assert part.get_content() == "window seats" and part.metadata["compressed"] is True


def test_record_and_score_from_every_recall_item_shape() -> None:
    r = MemoryRecord(text="long text here", user_id="u")
    item = ContextItem(record=r, section="semantic", shown="long text", score=0.8)
    assert record_and_score(item, 0) == (r, 0.8, "long text")
    assert record_and_score(ScoredRecord(record=r, score=0.3), 0) == (r, 0.3, r.text)
    assert record_and_score(r, 3) == (r, 0.25, r.text)
    with pytest.raises(TypeError):
        record_and_score("text", 0)


def test_adapters_need_a_prism_memory() -> None:
    with pytest.raises(ConfigError, match=r"Memory\(path="):
        check_memory(object(), "PrismRetriever")
    with pytest.raises(ConfigError, match="Memory"):
        PrismMemoryBlock("memory")
    with pytest.raises(ConfigError, match="Memory"):
        PrismNodePostprocessor("memory")
    with pytest.raises(ConfigError, match="Embedder"):
        PrismNodePostprocessor(embedder="minilm")


def nodes(*items: tuple[str, float | None, dict[str, object]]) -> list[NodeWithScore]:
    return [NodeWithScore(node=TextNode(text=t, metadata=m), score=s) for t, s, m in items]


def test_postprocessor_without_embedder_uses_scores_and_text_overlap() -> None:
    ns = nodes(
        ("The refund window is 30 days from delivery.", 12.0, {}),
        ("the refund window is 30 days from delivery", 11.5, {}),
        ("Shipping to Canada takes a week.", 3.0, {}),
    )
    post = PrismNodePostprocessor(budget_tokens=None)
    out = post.postprocess_nodes(ns, query_str="refund window")
    # recall's dedup keeps the cheaper of two near-duplicates, at the better score
    assert [n.node.get_content() for n in out] == [
        "the refund window is 30 days from delivery",
        "Shipping to Canada takes a week.",
    ]
    assert post.postprocess_nodes([], query_str="x") == []


def test_postprocessor_budget_and_metadata_signals_with_a_fake_embedder() -> None:
    embedder = FakeEmbedder(dim=64)
    ns = nodes(
        ("Task note: book the hotel in Lisbon.", 0.5, {"task_id": "trip", "importance": 0.9}),
        ("Weather note: sunny all week.", 0.5, {"task_id": "other"}),
        ("A long note. " * 40, 0.9, {}),
    )
    post = PrismNodePostprocessor(
        embedder=embedder,
        budget_tokens=30,
        task_id="trip",
        weights={"task": 1.0, "importance": 1.0},
        relevance_floor=0.0,  # the fake embedder's cosines mean nothing: budget decisions only
    )
    out = post.postprocess_nodes(ns, query_str="what about the hotel?")
    assert out[0].node.get_content().startswith("Task note")
    assert sum(count_tokens(n.node.get_content(metadata_mode=MetadataMode.LLM)) for n in out) <= 30
    decision = post.explain(ns, "what about the hotel?")
    assert "budget" in decision.dropped[2]


def test_node_time_reads_common_shapes() -> None:
    utc = timezone.utc
    assert _node_time({"date": "2024-03-01"}, None) == datetime(2024, 3, 1, tzinfo=utc)
    assert _node_time({"event_time": "2024-03-01T10:00:00Z"}, None) == datetime(
        2024, 3, 1, 10, tzinfo=utc
    )
    assert _node_time({"created_at": 0}, None) == datetime(1970, 1, 1, tzinfo=utc)
    assert _node_time({"when": date(2024, 1, 2)}, "when") == datetime(2024, 1, 2, tzinfo=utc)
    assert _node_time({"date": "not a date"}, None) is None
    assert _node_time({"date": "2024-03-01"}, "other") is None


async def test_prism_embedding_forwards_to_the_prism_embedder() -> None:
    fake = FakeEmbedder(dim=32)
    emb = PrismEmbedding(fake)
    assert emb.model_name == fake.name
    assert emb.get_query_embedding("hello") == fake.embed_query("hello")
    assert emb.get_text_embedding_batch(["a", "b"]) == fake.embed_documents(["a", "b"])
    assert await emb.aget_query_embedding("hello") == fake.embed_query("hello")
    assert await emb.aget_text_embedding("a") == fake.embed_documents(["a"])[0]
    with pytest.raises(ConfigError, match="Embedder"):
        PrismEmbedding("minilm")
