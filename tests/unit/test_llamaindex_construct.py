"""The node-level selective-construct stage (pure functions of ``prism_memory.retrieval.construct``)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from llamaindex_prism.memory_block import shrink_context
from prism_memory.retrieval.construct import ConstructItem as Candidate
from prism_memory.retrieval.construct import (
    construct,
    near_duplicates,
    semantic_scores,
    shingle_jaccard,
)
from prism_memory.retrieval.construct import item_freshness as node_freshness
from prism_memory.retrieval.construct import pack_in_order as pack
from prism_memory.tokens import count_tokens

NOW = datetime(2024, 6, 1, tzinfo=timezone.utc)


def cand(text: str, **kw: object) -> Candidate:
    return Candidate(text=text, tokens=count_tokens(text), **kw)  # type: ignore[arg-type]


def test_semantic_prefers_query_similarity_and_clips_it() -> None:
    cs = [cand("a", similarity=0.8, base_score=0.1), cand("b", similarity=-0.2, base_score=9)]
    assert semantic_scores(cs) == [0.8, 0.0]


def test_semantic_normalises_retriever_scores_on_any_scale() -> None:
    cs = [cand("a", base_score=12.0), cand("b", base_score=4.0), cand("c", base_score=8.0)]
    assert semantic_scores(cs) == [1.0, 0.0, 0.5]


def test_semantic_without_any_score_keeps_retriever_order() -> None:
    s = semantic_scores([cand("a"), cand("b"), cand("c")])
    assert s[0] > s[1] > s[2]


def test_freshness_halves_per_half_life_and_is_neutral_without_time() -> None:
    assert node_freshness(NOW - timedelta(days=30), NOW, 30.0) == 0.5
    assert node_freshness(None, NOW, 30.0) == 0.5
    assert node_freshness(NOW + timedelta(days=1), NOW, 30.0) == 1.0


def test_near_duplicates_by_vector_keep_the_first_in_order() -> None:
    cs = [
        cand("x", vector=[1.0, 0.0]),
        cand("y", vector=[0.99, 0.05]),
        cand("z", vector=[0.0, 1.0]),
    ]
    assert near_duplicates([0, 1, 2], cs, threshold=0.95) == {1: 0}
    assert near_duplicates([1, 0, 2], cs, threshold=0.95) == {0: 1}


def test_near_duplicates_without_vectors_use_word_trigrams() -> None:
    a = "The refund window is thirty days from the delivery date."
    b = "the refund window is thirty days from the delivery date"
    c = "Shipping to Canada takes five business days."
    assert shingle_jaccard(a, b) == 1.0
    assert near_duplicates([0, 1, 2], [cand(a), cand(b), cand(c)], threshold=0.9) == {1: 0}


def test_pack_skips_what_does_not_fit_and_keeps_smaller_items() -> None:
    kept, over = pack([0, 1, 2], [50, 80, 20], budget_tokens=75)
    assert kept == [0, 2]
    assert over == [1]
    assert pack([0, 1], [5, 5], None) == ([0, 1], [])


def test_construct_dedups_budgets_and_explains_every_cut() -> None:
    long = "Refunds are issued to the original payment method within ten business days. " * 4
    cs = [
        cand("Refunds take ten business days.", similarity=0.9, vector=[1.0, 0.0, 0.0]),
        cand("Refunds take ten business days!", similarity=0.89, vector=[1.0, 0.01, 0.0]),
        cand(long, similarity=0.7, vector=[0.0, 1.0, 0.0]),
        cand("Our office dog is called Biscuit.", similarity=0.1, vector=[0.0, 0.0, 1.0]),
    ]
    result = construct(cs, budget_tokens=30, now=NOW)
    assert result.kept == [0, 3]
    assert "near-duplicate of candidate 0" in result.dropped[1]
    assert "do not fit" in result.dropped[2]
    assert result.tokens_out <= 30
    assert result.tokens_saved == result.tokens_in - result.tokens_out > 0


def test_construct_top_n_min_score_and_weights() -> None:
    cs = [cand(f"fact number {i}", similarity=s) for i, s in enumerate([0.9, 0.5, 0.2])]
    only_semantic = {"semantic": 1.0}
    r = construct(cs, weights=only_semantic, top_n=2, now=NOW)
    assert r.kept == [0, 1]
    assert "top_n" in r.dropped[2]
    r = construct(cs, weights=only_semantic, min_score=0.4, now=NOW)
    assert r.kept == [0, 1]
    assert "min_score" in r.dropped[2]
    assert r.scores == [0.9, 0.5, 0.2]


def test_construct_task_and_importance_change_the_ranking() -> None:
    cs = [
        cand("flight booked for Monday", similarity=0.6, task_id="trip"),
        cand("hotel has a pool", similarity=0.65),
    ]
    plain = construct(cs, weights={"semantic": 1.0, "task": 1.0}, now=NOW)
    assert plain.kept == [1, 0]  # no task given: the task weight scores nobody
    tasked = construct(cs, weights={"semantic": 1.0, "task": 1.0}, task_id="trip", now=NOW)
    assert tasked.kept == [0, 1]


def test_construct_time_order_puts_undated_items_last() -> None:
    cs = [
        cand("third", similarity=0.9, time=NOW - timedelta(days=1)),
        cand("undated", similarity=0.95),
        cand("first", similarity=0.5, time=NOW - timedelta(days=30)),
        cand("second", similarity=0.7, time=(NOW - timedelta(days=10)).replace(tzinfo=None)),
    ]
    r = construct(cs, order="time", now=NOW, dedup_threshold=1.0, text_dup_threshold=1.0)
    assert [cs[i].text for i in r.kept] == ["first", "second", "third", "undated"]


def test_construct_on_nothing() -> None:
    r = construct([], budget_tokens=10)
    assert r.kept == [] and r.tokens_in == 0


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
