"""The recall cache is keyed by every input that changes the answer, the clock included, and
never hands out shared mutable state."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest

from prism_memory import FakeEmbedder, Memory

MAR = [datetime(2026, 3, d, 10, tzinfo=timezone.utc) for d in range(32 - 31, 32)]


@pytest.fixture
def diary(tmp_path: Path) -> Iterator[Memory]:
    m = Memory(path=tmp_path / "s", embedder=FakeEmbedder(dim=64))
    m.add("I went to the dentist", user_id="a", kind="event", event_time=MAR[0])  # 1 Mar
    m.add("I repainted the kitchen", user_id="a", kind="event", event_time=MAR[8])  # 9 Mar
    yield m
    m.close()


def test_a_later_now_is_not_answered_from_the_cache(diary: Memory) -> None:
    q = "what did I do yesterday?"
    on_2nd = diary.recall(q, user_id="a", now=MAR[1])
    on_10th = diary.recall(q, user_id="a", now=MAR[9])
    assert "dentist" in on_2nd.records[0].text  # the day before 2 Mar ranks first ...
    assert "kitchen" in on_10th.records[0].text  # ... and the day before 10 Mar
    assert on_10th is not on_2nd and not on_10th.trace.cached
    assert on_2nd.trace.intent["time_range"] != on_10th.trace.intent["time_range"]


def test_a_cache_hit_is_a_copy_and_leaves_the_first_context_alone(diary: Memory) -> None:
    q = "what did I do yesterday?"
    first = diary.recall(q, user_id="a", now=MAR[1])
    again = diary.recall(q, user_id="a", now=MAR[1])
    assert again.trace.cached and not first.trace.cached  # the first caller's trace is untouched
    assert again is not first and again.text == first.text
    again.records.clear()  # a caller editing its copy ...
    again.trace.candidates.clear()
    third = diary.recall(q, user_id="a", now=MAR[1])
    assert third.ids == first.ids and third.trace.candidates  # ... changes no one else's
