"""Crash safety: a child writing batches is SIGKILLed; every acknowledged write survives.

The harness (``prism_memory.bench.reliability.crash_trials``) is the one that produces the
committed figures: after each kill it reopens the store (no repair step), checks that every
acknowledged record is present and identical and every acknowledged delete stayed deleted, that
every stored point has both payload and dense vector, and that no text is stored twice; the next
child first retries the batch that was in flight (deterministic ids make it an upsert).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from prism_memory import FakeEmbedder, Memory
from prism_memory.bench.reliability import batch_items, crash_trials


def test_a_handful_of_kills_lose_nothing_acknowledged(tmp_path: Path) -> None:
    report = crash_trials(3, path=tmp_path, min_delay=0.8, max_delay=1.6, seed=1)
    assert report.kills == 3
    assert report.errors == []
    assert report.acknowledged_writes > 0, "the child never acknowledged a batch"
    assert report.reopen_failures == 0
    assert report.records_lost == 0
    assert report.deletes_lost == 0
    assert report.records_changed == 0
    assert report.half_written == 0
    assert report.duplicates == 0


def test_retrying_an_acknowledged_batch_creates_no_duplicates(tmp_path: Path) -> None:
    items = batch_items(3, 20)
    with Memory(path=tmp_path / "s", embedder=FakeEmbedder(dim=32)) as m:
        first = m.add_many(items, user_id="u")
        again = m.add_many(items, user_id="u")
        assert [r.id for r in first] == [r.id for r in again]
        assert m.count(user_id="u") == 20
    with Memory(path=tmp_path / "s", embedder=FakeEmbedder(dim=32)) as m:
        m.add_many(items, user_id="u")
        assert m.count(user_id="u") == 20
        assert sorted(r.text for r in m.list(user_id="u")) == sorted(items)


@pytest.mark.slow
def test_two_hundred_kills_lose_nothing_acknowledged(tmp_path: Path) -> None:
    report = crash_trials(200, path=tmp_path, seed=7)
    assert report.kills == 200
    assert report.ok, report
    assert report.errors == []
    assert report.acknowledged_writes > 1000
