"""``scored_records``: relevance as ``score`` from the hits' vectors, the RRF value as
``rank_score``, fusion order kept, ``score_threshold`` applied before ``limit``."""

from __future__ import annotations

import pytest

from prism_memory import ValidationError
from prism_memory.retrieval.fusion import rrf, scored_records
from prism_memory.retrieval.scoring import check_score_threshold, relevance
from prism_memory.stores.base import RouteHit


def _hit(rid: str, score: float, vector: list[float]) -> RouteHit:
    return RouteHit(rid, score, {"id": rid, "text": rid, "user_id": "u"}, vector)


A, B, C = [1.0, 0.0], [0.6, 0.8], [-1.0, 0.0]
RESULTS = {
    "dense": [_hit("a", 1.0, A), _hit("b", 0.6, B), _hit("c", -1.0, C)],
    "bm25": [_hit("c", 7.0, C), _hit("z", 5.0, [0.0, 2.0])],  # z: found by BM25 only
}


def test_score_is_relevance_and_order_is_fusion() -> None:
    hits = scored_records(RESULTS, [1.0, 0.0])
    assert [h.id for h in hits] == [c.id for c in rrf(RESULTS)]
    assert [h.rank_score for h in hits] == [c.fused for c in rrf(RESULTS)]
    scores = {h.id: h.score for h in hits}
    assert scores == {"a": 1.0, "b": pytest.approx(0.6), "c": 0.0, "z": 0.0}
    assert {h.id: h.routes for h in hits}["z"] == ["bm25"]
    assert all(h.vector is None for h in hits)
    assert all(h.vector is not None for h in scored_records(RESULTS, A, keep_vectors=True))


def test_bm25_only_hit_gets_its_cosine() -> None:
    hits = {h.id: h for h in scored_records(RESULTS, [0.0, 1.0])}
    assert hits["z"].score == 1.0 and hits["z"].route_scores == {"bm25": 5.0}


def test_threshold_drops_before_the_limit_and_keeps_the_order() -> None:
    every = scored_records(RESULTS, [1.0, 0.0])
    kept = scored_records(RESULTS, [1.0, 0.0], score_threshold=0.5)
    assert [h.id for h in kept] == [h.id for h in every if h.score >= 0.5] == ["a", "b"]
    assert [h.id for h in scored_records(RESULTS, [1.0, 0.0], limit=1, score_threshold=0.9)] == [
        "a"
    ]


def test_relevance_is_clipped_cosine() -> None:
    assert relevance([1.0, 0.0], [3.0, 0.0]) == 1.0
    assert relevance([1.0, 0.0], [-1.0, 0.0]) == 0.0
    assert relevance([1.0, 0.0], None) == 0.0 and relevance([1.0, 0.0], []) == 0.0
    assert relevance([1.0, 1.0], [1.0, 0.0]) == pytest.approx(2**-0.5)


@pytest.mark.parametrize("bad", [-0.01, 1.01, float("nan"), "0.5", True, [0.5]])
def test_threshold_validation(bad: object) -> None:
    with pytest.raises(ValidationError, match="score_threshold"):
        check_score_threshold(bad)
    assert check_score_threshold(0) == 0.0 and check_score_threshold(1) == 1.0
