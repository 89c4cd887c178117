"""Fusion of per-route hit lists: order, weights, provenance of each candidate."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from prism_memory.retrieval.fusion import dbsf, fuse, rrf
from prism_memory.stores.base import RouteHit


def hits(*ids: str) -> list[RouteHit]:
    return [RouteHit(i, 1.0 - n * 0.1, {"id": i}) for n, i in enumerate(ids)]


def test_rrf_rewards_agreement_between_routes() -> None:
    out = rrf({"dense": hits("a", "b", "c"), "bm25": hits("b", "d")})
    assert out[0].id == "b"  # second for dense, first for BM25 beats first for dense only
    assert out[0].ranks == {"dense": 1, "bm25": 0}


def test_route_weights_change_the_order() -> None:
    results = {"dense": hits("a"), "bm25": hits("b")}
    assert rrf(results, weights={"dense": 1.0, "bm25": 0.5})[0].id == "a"
    assert rrf(results, weights={"dense": 0.5, "bm25": 1.0})[0].id == "b"


def test_ties_break_on_id_so_engines_agree() -> None:
    assert [c.id for c in rrf({"dense": hits("z"), "bm25": hits("a")})] == ["a", "z"]


def test_dbsf_uses_score_distribution_and_limit() -> None:
    results = {
        "dense": [RouteHit("a", 0.9, {}), RouteHit("b", 0.5, {}), RouteHit("c", 0.1, {})],
        "bm25": [RouteHit("c", 12.0, {}), RouteHit("a", 11.0, {})],
    }
    out = dbsf(results, limit=2)
    assert [c.id for c in out] == ["a", "c"]
    assert fuse(results, method="dbsf", limit=2)[0].id == "a"


@given(
    st.dictionaries(
        st.sampled_from(["dense", "bm25", "entity"]),
        st.lists(st.sampled_from("abcdefgh"), unique=True, max_size=8),
    )
)
def test_every_hit_is_a_candidate_once(routes: dict[str, list[str]]) -> None:
    results = {name: hits(*ids) for name, ids in routes.items()}
    out = fuse(results)
    expected = {i for ids in routes.values() for i in ids}
    assert sorted(c.id for c in out) == sorted(expected)
    assert all(c.fused > 0 for c in out)
    assert [c.fused for c in out] == sorted((c.fused for c in out), reverse=True)
