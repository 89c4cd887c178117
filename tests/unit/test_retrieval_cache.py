"""Recall cache (TTL + LRU, scope invalidation) and feedback, through the Memory API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from prism_memory import FakeEmbedder, Intent, Memory, RetrievalConfig, Scope, ValidationError
from prism_memory.config import PrismConfig
from prism_memory.retrieval.cache import RecallCache


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_ttl_expires_entries() -> None:
    clock = Clock()
    c = RecallCache(max_size=4, ttl_s=10, time_fn=clock)
    s = Scope(user_id="a")
    c.put(s, "i", "q", 100, "c", "ctx")
    clock.t = 9.0
    assert c.get(s, "i", "q", 100, "c") == "ctx"
    clock.t = 20.0
    assert c.get(s, "i", "q", 100, "c") is None


def test_lru_evicts_the_least_recently_used() -> None:
    c = RecallCache(max_size=2, ttl_s=100)
    s = Scope(user_id="a")
    c.put(s, "i", "q1", 1, "c", 1)
    c.put(s, "i", "q2", 1, "c", 2)
    assert c.get(s, "i", "q1", 1, "c") == 1  # q1 now most recent
    c.put(s, "i", "q3", 1, "c", 3)
    assert c.get(s, "i", "q2", 1, "c") is None
    assert c.get(s, "i", "q1", 1, "c") == 1 and c.get(s, "i", "q3", 1, "c") == 3


def test_invalidation_is_per_owner() -> None:
    c = RecallCache()
    alice, bob = Scope(user_id="alice", session_id="s1"), Scope(user_id="bob")
    c.put(alice, "i", "q", 1, "c", "a")
    c.put(bob, "i", "q", 1, "c", "b")
    c.invalidate(Scope(user_id="alice", session_id="s2"))  # any session of alice
    assert c.get(alice, "i", "q", 1, "c") is None
    assert c.get(bob, "i", "q", 1, "c") == "b"
    c.invalidate(None)
    assert len(c) == 0


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    m = Memory(path=tmp_path / "s", embedder=FakeEmbedder())
    yield m
    m.close()


def test_recall_is_cached_until_a_write_in_the_scope(mem: Memory) -> None:
    mem.add("I prefer window seats", user_id="alice", kind="preference")
    mem.add("Bob likes aisle seats", user_id="bob", kind="preference")
    first = mem.recall("which seats do I like", user_id="alice")
    assert not first.trace.cached
    assert mem.recall("which seats do I like", user_id="alice").trace.cached
    mem.add("I never sit in exit rows", user_id="bob")  # another user: cache kept
    assert mem.recall("which seats do I like", user_id="alice").trace.cached
    mem.add("I also like seats near the front", user_id="alice", session_id="s9")
    after = mem.recall("which seats do I like", user_id="alice")
    assert not after.trace.cached
    assert "near the front" in after.text


def test_cache_respects_intent_and_budget(mem: Memory) -> None:
    mem.add("I prefer window seats", user_id="alice", kind="preference")
    mem.recall("seats", user_id="alice", budget_tokens=100)
    assert not mem.recall("seats", user_id="alice", budget_tokens=200).trace.cached
    assert not mem.recall(
        "seats", user_id="alice", budget_tokens=100, intent=Intent(kinds=["fact"])
    ).trace.cached


def test_feedback_moves_utility_and_reranks(tmp_path: Path) -> None:
    cfg = PrismConfig(retrieval=RetrievalConfig(weights={"semantic": 0.5, "utility": 0.5}))
    with Memory(path=tmp_path / "f", embedder=FakeEmbedder(), config=cfg) as m:
        a = m.add("hotel option alpha near the station", user_id="u")
        b = m.add("hotel option beta near the station", user_id="u")
        query = "hotel option near the station"
        first = sorted(m.recall(query, user_id="u").items, key=lambda it: -it.score)
        loser = first[-1].record.id  # the one ranked lower before feedback
        for _ in range(3):
            out = m.feedback([loser], success=True, user_id="u")
        assert out[loser] > 0.5
        m.feedback([r for r in (a.id, b.id) if r != loser], success=False, user_id="u")
        ctx = m.recall("hotel option near the station", user_id="u")
        ranked = sorted(ctx.items, key=lambda it: -it.score)
        assert ranked[0].record.id == loser
        assert m.get(loser, user_id="u").utility == out[loser]
        assert m.feedback(["not-an-id"], user_id="u") == {}
        with pytest.raises(ValidationError):
            m.feedback("abc", user_id="u")


def test_a_value_that_cannot_be_pickled_is_still_cached_as_a_private_copy() -> None:
    """Contexts are kept pickled; anything else a caller caches is deep-copied instead."""
    from prism_memory.records import Scope
    from prism_memory.retrieval.cache import RecallCache

    cache = RecallCache(8, 60.0)
    value: dict[str, Any] = {"fn": lambda: 1, "items": [1, 2]}  # a lambda cannot be pickled
    cache.put(Scope(user_id="u"), "", "q", 100, "", value)
    value["items"].append(3)
    got = cache.get(Scope(user_id="u"), "", "q", 100, "")
    assert got is not None and got["items"] == [1, 2]
    got["items"].append(9)
    assert cache.get(Scope(user_id="u"), "", "q", 100, "")["items"] == [1, 2]
