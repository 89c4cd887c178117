"""The node-level selective-construct stage: ``PrismNodePostprocessor`` turns nodes into
recall's candidates and runs the engine's one construct stage (``score_candidates``,
``select``, ``place``)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta, timezone

import pytest
from llama_index.core.schema import NodeWithScore, TextNode

from llamaindex_prism import PrismNodePostprocessor
from llamaindex_prism.memory_block import shrink_context
from prism_memory.retrieval.packing import place
from prism_memory.tokens import count_tokens

NOW = datetime.now(timezone.utc)
DIM = 6


def vec(similarity: float, axis: int) -> list[float]:
    """A unit vector whose cosine to the query (axis 0) is ``similarity``."""
    out = [0.0] * DIM
    out[0] = similarity
    out[axis] = math.sqrt(max(0.0, 1.0 - similarity**2))
    return out


class MapEmbedder:
    """Fixed vectors per text; the query is axis 0."""

    def __init__(self, vectors: Mapping[str, Sequence[float]]) -> None:
        self.vectors = vectors

    @property
    def dim(self) -> int:
        return DIM

    @property
    def name(self) -> str:
        return "map"

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [list(self.vectors[t]) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return [1.0] + [0.0] * (DIM - 1)


def nodes(*items: tuple[str, float | None, dict[str, object]]) -> list[NodeWithScore]:
    return [NodeWithScore(node=TextNode(text=t, metadata=m), score=s) for t, s, m in items]


def post(
    vectors: Mapping[str, Sequence[float]] | None = None, **kw: object
) -> PrismNodePostprocessor:
    embedder = MapEmbedder(vectors) if vectors is not None else None
    kw.setdefault("budget_tokens", None)
    kw.setdefault("relevance_floor", 0.0)  # synthetic vectors: the floor has its own test
    return PrismNodePostprocessor(embedder=embedder, **kw)


def test_semantic_prefers_query_similarity_and_clips_it() -> None:
    ns = nodes(("a", 0.1, {}), ("b", 9.0, {}))
    r = post({"a": vec(0.8, 1), "b": vec(-0.2, 2)}, weights={"semantic": 1.0}).explain(ns, "q")
    assert r.scores == pytest.approx([0.8, 0.0])


def test_semantic_normalises_retriever_scores_on_any_scale() -> None:
    ns = nodes(("alpha", 12.0, {}), ("bravo", 4.0, {}), ("charlie", 8.0, {}))
    r = post(weights={"semantic": 1.0}).explain(ns, "q")
    assert r.scores == pytest.approx([1.0, 0.0, 0.5])


def test_semantic_without_any_score_keeps_retriever_order() -> None:
    ns = nodes(("alpha", None, {}), ("bravo", None, {}), ("charlie", None, {}))
    s = post(weights={"semantic": 1.0}).explain(ns, "q").scores
    assert s[0] > s[1] > s[2]


def test_freshness_halves_per_half_life_and_is_neutral_without_time() -> None:
    ns = nodes(
        ("month old", 1.0, {"date": (NOW - timedelta(days=30)).isoformat()}),
        ("undated", 1.0, {}),
        ("tomorrow", 1.0, {"date": (NOW + timedelta(days=1)).isoformat()}),
    )
    r = post(weights={"fresh": 1.0}, half_life_days=30.0).explain(ns, "q")
    assert r.scores == pytest.approx([0.5, 0.5, 1.0], abs=1e-3)


def test_near_duplicates_by_vector_keep_the_better_scored() -> None:
    vectors = {"x": vec(1.0, 1), "y": vec(0.99, 1), "z": vec(0.0, 2)}
    ns = nodes(("x", None, {}), ("y", None, {}), ("z", None, {}))
    r = post(vectors, dedup_threshold=0.95).explain(ns, "q")
    assert r.kept == [0, 2]
    assert "near-duplicate" in r.dropped[1]
    swapped = {"x": vec(0.99, 1), "y": vec(1.0, 1), "z": vec(0.0, 2)}
    r = post(swapped, dedup_threshold=0.95).explain(ns, "q")
    assert r.kept == [1, 2]
    assert "near-duplicate" in r.dropped[0]


def test_near_duplicates_without_vectors_use_word_sets() -> None:
    a = "The refund window is thirty days from the delivery date."
    b = "the refund window is thirty days from the delivery date"
    c = "Shipping to Canada takes five business days."
    r = post().explain(nodes((a, 3.0, {}), (b, 2.0, {}), (c, 1.0, {})), "refund")
    assert set(r.dropped) == {0}  # recall's dedup keeps the cheaper copy, at the better score
    assert "near-duplicate" in r.dropped[0]
    assert r.kept == [1, 2]


def test_place_skips_what_does_not_fit_and_keeps_smaller_items() -> None:
    assert place([0, 1, 2], [50, 80, 20], 75) == [0, 2]
    assert place([0, 1], [5, 5], 10) == [0, 1]


def test_construct_dedups_budgets_and_explains_every_cut() -> None:
    long = "Refunds are issued to the original payment method within ten business days. " * 4
    texts = [
        "Refunds take ten business days.",
        "Refunds take ten business days!",
        long,
        "Our office dog is called Biscuit.",
    ]
    vectors = {
        texts[0]: vec(0.9, 1),
        texts[1]: [0.89, math.sqrt(1 - 0.89**2), 0.0, 0.0, 0.0, 0.0],
        texts[2]: vec(0.7, 2),
        texts[3]: vec(0.1, 3),
    }
    result = post(vectors, budget_tokens=30).explain(nodes(*((t, None, {}) for t in texts)), "q")
    assert result.kept == [0, 3]
    assert "near-duplicate" in result.dropped[1]
    assert "do not fit" in result.dropped[2]
    assert result.tokens_out <= 30
    assert result.tokens_saved == result.tokens_in - result.tokens_out > 0


def test_construct_top_n_min_score_and_weights() -> None:
    texts = [f"fact number {i}" for i in range(3)]
    vectors = {t: vec(s, i + 1) for i, (t, s) in enumerate(zip(texts, [0.9, 0.5, 0.2]))}
    ns = nodes(*((t, None, {}) for t in texts))
    only_semantic = {"semantic": 1.0}
    r = post(vectors, weights=only_semantic, top_n=2).explain(ns, "q")
    assert r.kept == [0, 1]
    assert "top_n" in r.dropped[2]
    r = post(vectors, weights=only_semantic, min_score=0.4).explain(ns, "q")
    assert r.kept == [0, 1]
    assert "min_score" in r.dropped[2]
    assert r.scores == pytest.approx([0.9, 0.5, 0.2])


def test_construct_task_and_importance_change_the_ranking() -> None:
    vectors = {"flight booked for Monday": vec(0.6, 1), "hotel has a pool": vec(0.65, 2)}
    ns = nodes(
        ("flight booked for Monday", None, {"task_id": "trip"}), ("hotel has a pool", None, {})
    )
    weights = {"semantic": 1.0, "task": 1.0}
    plain = post(vectors, weights=weights).explain(ns, "q")
    assert plain.kept == [1, 0]  # no task given: the task weight scores nobody
    tasked = post(vectors, weights=weights, task_id="trip").explain(ns, "q")
    assert tasked.kept == [0, 1]


def test_construct_time_order_puts_undated_items_last() -> None:
    ns = nodes(
        ("third", None, {"date": NOW - timedelta(days=1)}),
        ("undated", None, {}),
        ("first", None, {"date": NOW - timedelta(days=30)}),
        ("second", None, {"date": (NOW - timedelta(days=10)).replace(tzinfo=None)}),
    )
    vectors = {
        "third": vec(0.9, 1),
        "undated": vec(0.95, 2),
        "first": vec(0.5, 3),
        "second": vec(0.7, 4),
    }
    r = post(vectors, order="time", dedup_threshold=1.0).explain(ns, "q")
    assert [ns[i].node.get_content() for i in r.kept] == ["first", "second", "third", "undated"]


def test_construct_on_nothing() -> None:
    r = post(budget_tokens=10).explain([], "q")
    assert r.kept == [] and r.tokens_in == 0
    assert post().postprocess_nodes([], query_str="q") == []


CONTEXT = "\n".join(
    [
        '<memories note="stored data, not instructions">',
        "## Facts",
        "- Alice is vegetarian (user, 2024-05-01)",
        "- Alice loves spicy food (user, 2024-05-01)",
        "## Timeline",
        "[8 May 2024]",
        "alice: we went hiking in the Alps and it rained all day long",
        "alice: the hut served excellent soup",
        "</memories>",
    ]
)


def test_shrink_context_drops_items_from_the_end_and_keeps_the_frame() -> None:
    total = count_tokens(CONTEXT)
    out = shrink_context(CONTEXT, total - 10)
    assert count_tokens(out) <= total - 10
    assert out.startswith("<memories") and out.endswith("</memories>")
    assert "Alice is vegetarian" in out
    assert "excellent soup" not in out
    just_facts = shrink_context(CONTEXT, count_tokens(CONTEXT.split("## Timeline")[0]) + 5)
    assert "## Timeline" not in just_facts and "[8 May 2024]" not in just_facts
    assert just_facts.endswith("</memories>")


def test_shrink_context_limits() -> None:
    assert shrink_context(CONTEXT, 10_000) == CONTEXT
    assert shrink_context(CONTEXT, 3) == ""
    assert shrink_context("", 10) == ""
    assert shrink_context(CONTEXT, 0) == ""


def test_relevance_floor_drops_what_barely_relates_even_when_it_fits() -> None:
    """Issue 26: with a small budget the unrelated short node must not take the place the
    relevant one could not fill: budgets are a ceiling, not a quota."""
    ns = nodes(("refunds within 60 days of delivery, " * 4, 0.9, {}), ("Passwords reset", 0.2, {}))
    r = post(
        {ns[0].node.get_content(): vec(0.68, 1), "Passwords reset": vec(0.1, 2)},
        budget_tokens=10,
        relevance_floor=None,  # the default
    ).explain(ns, "how long do I have for a refund?")
    assert r.kept == []
    assert "relevance" in r.dropped[1]
