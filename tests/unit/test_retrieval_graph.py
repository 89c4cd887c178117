"""The second hop's planning: which keys it follows, where it may not look, how it ranks."""

from __future__ import annotations

from prism_memory.retrieval.fusion import Candidate
from prism_memory.retrieval.graph import hop_candidates, hop_keys, link_strength, plan_hop
from prism_memory.stores.base import RouteHit

A = "00000000-0000-0000-0000-00000000000a"
B = "00000000-0000-0000-0000-00000000000b"


def test_the_hop_follows_the_seeds_keys_into_other_sessions_only() -> None:
    pool = [
        Candidate(A, {"link_keys": ["maya", "sister", "caroline"], "session_id": "s1"}),
        Candidate(B, {"text": "Had lunch with my friend Ana", "session_id": "s2"}),  # no field
    ]
    q = plan_hop(pool, seeds=2, vector=[0.1], space="dense", limit=8, speakers=["Caroline"])
    assert q is not None and q.name == "graph" and q.using == "dense"
    assert q.filter is not None
    (must,) = q.filter.must
    assert must.key == "link_keys" and set(must.value) == {"maya", "sister", "ana", "friend"}
    excluded = {c.key: c.value for c in q.filter.must_not}
    assert excluded == {"session_id": ["s1", "s2"], "id": [A, B]}


def test_only_the_best_seeds_lead_and_no_keys_means_no_hop() -> None:
    pool = [Candidate(A, {"link_keys": []}), Candidate(B, {"link_keys": ["maya"]})]
    assert plan_hop(pool, seeds=1, vector=[0.1], space="dense", limit=8) is None
    assert hop_keys(pool, speakers=()) == ["maya"]


def test_a_rare_shared_key_links_more_strongly_than_a_common_one() -> None:
    pool = [Candidate(str(i), {"link_keys": ["kid"]}) for i in range(5)]
    hits = [RouteHit("x", 0.9, {"link_keys": ["kid"]}), RouteHit("y", 0.9, {"link_keys": ["rome"]})]
    s = link_strength(hits, pool, ["kid", "rome"])
    assert s["y"] > s["x"] > 0


def test_a_neighbour_must_answer_and_be_linked() -> None:
    pool = [Candidate("p", {"link_keys": ["kid", "rome"]}), Candidate("q", {"link_keys": ["kid"]})]
    hits = [
        RouteHit("p", 0.99, {"link_keys": ["rome"]}),  # in the pool already: skipped
        RouteHit("near", 0.9, {"link_keys": ["kid"]}),  # relevant, weakly linked
        RouteHit("linked", 0.5, {"link_keys": ["rome", "kid"]}),  # strongly linked
        RouteHit("far", 0.1, {"link_keys": ["kid"]}),  # neither
    ]
    out = hop_candidates(hits, pool, keys=["kid", "rome"], k=20, weight=0.5, limit=2)
    assert [c.id for c in out] == ["linked", "near"]
    assert out[0].ranks == {"graph": 0} and out[0].fused == 0.5 / 21
    assert out[0].fused > out[1].fused
