"""PRISM scoring and utility feedback: pure functions the ranking relies on."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from prism_memory import Intent, MemoryRecord
from prism_memory.retrieval.scoring import (
    ScoreParts,
    combine,
    freshness,
    intent_match,
    task_relevance,
    updated_utility,
)

NOW = datetime(2024, 6, 1, tzinfo=timezone.utc)


def test_freshness_halves_every_half_life_and_future_is_fresh() -> None:
    assert freshness(NOW, NOW, 10) == 1.0
    assert abs(freshness(NOW - timedelta(days=10), NOW, 10) - 0.5) < 1e-9
    assert abs(freshness(NOW - timedelta(days=20), NOW, 10) - 0.25) < 1e-9
    assert freshness(NOW + timedelta(days=3), NOW, 10) == 1.0


def test_task_relevance_follows_the_task_tree() -> None:
    intent = Intent(task_id="trip", step="book_hotel")
    same_step = MemoryRecord(text="x", user_id="u", task_id="trip", subgoal_id="book_hotel")
    same_task = MemoryRecord(text="x", user_id="u", task_id="trip", subgoal_id="book_flight")
    untasked = MemoryRecord(text="x", user_id="u")
    other = MemoryRecord(text="x", user_id="u", task_id="groceries")
    scores = [task_relevance(r, intent) for r in (same_step, same_task, untasked, other)]
    assert scores == sorted(scores, reverse=True)
    assert scores[0] == 1.0 and scores[-1] == 0.0
    assert task_relevance(same_step, Intent()) == 0.0  # no task in the intent: neutral


def test_intent_match_counts_soft_constraints() -> None:
    r = MemoryRecord(
        text="Hotel Lumen costs 180 a night",
        user_id="u",
        kind="fact",
        entities=[{"type": "place", "name": "Hotel Lumen"}],
    )
    assert intent_match(r, Intent(kinds=["fact"], entities=["hotel lumen"])) == 1.0
    assert intent_match(r, Intent(kinds=["preference"], entities=["hotel lumen"])) == 0.5
    assert intent_match(r, Intent()) == 0.0


def test_combine_is_a_weighted_mean_plus_boost() -> None:
    parts = ScoreParts(semantic=1.0, fresh=0.0, task=1.0, utility=0.5, importance=0.5, match=0.0)
    assert combine(parts, {"semantic": 1.0, "task": 1.0}, 0.5) == 1.0
    assert combine(parts, {"semantic": 1.0, "fresh": 1.0}, 0.0) == 0.5
    with_match = ScoreParts(**{**parts.__dict__, "match": 1.0})
    assert combine(with_match, {"semantic": 1.0}, 0.2) > combine(parts, {"semantic": 1.0}, 0.2)


def test_utility_steps_shrink_with_repeated_feedback() -> None:
    first = updated_utility(0.5, True, 0) - 0.5
    later = updated_utility(0.5, True, 10) - 0.5
    assert first > later > 0
    assert updated_utility(0.5, False, 0) < 0.5


@given(
    st.floats(0, 1),
    st.booleans(),
    st.integers(0, 1000),
    st.floats(0.01, 1),
    st.floats(0, 5),
)
def test_utility_stays_in_unit_interval(
    u: float, success: bool, n: int, step: float, decay: float
) -> None:
    new = updated_utility(u, success, n, step=step, decay=decay)
    assert 0.0 <= new <= 1.0
    assert (new >= u - 1e-6) if success else (new <= u + 1e-6)
