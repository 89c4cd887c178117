"""Crash safety: a child writing batches is SIGKILLed; every acknowledged write survives.

The harness (``prism_bench.reliability.crash_trials``) is the one that produces the
committed figures: after each kill it reopens the store (no repair step), checks that every
acknowledged record is present and identical and every acknowledged delete stayed deleted, that
every stored point has both payload and dense vector, and that no text is stored twice; the next
child first retries the batch that was in flight (deterministic ids make it an upsert).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from prism_bench.reliability import batch_items, crash_trials
from prism_memory import FakeEmbedder, Memory


def test_a_handful_of_kills_lose_nothing_acknowledged(tmp_path: Path) -> None:
    """Each child is killed at a random moment after its first acknowledgement, so every kill
    lands in a child that is writing, however loaded the machine is."""
    report = crash_trials(3, path=tmp_path, min_delay=0.0, max_delay=1.0, seed=1)
    assert report.kills == 3
    assert report.errors == []
    assert report.acknowledged_writes >= 3 * 20, "a child was killed before it acknowledged"
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


def test_an_uncertain_delete_stays_uncertain_until_a_child_acknowledges_it() -> None:
    """A delete in flight at one kill may have landed; if the next child is killed before it
    acknowledges anything, that record is still unresolved (not "lost")."""
    import json as _json

    from prism_bench.reliability import _record_id, apply_child_output, batch_user

    expected: dict[str, tuple[str, str] | None] = {}
    unresolved: set[str] = set()
    size = 2
    acked = "".join(
        _json.dumps({"op": "add", "batch": k, "ids": [f"id-{k}-{i}" for i in range(size)]}) + "\n"
        for k in range(5)
    )
    step = apply_child_output(acked, 0, size, expected, unresolved)  # killed in batch 4's delete
    victim = _record_id(batch_user(2), batch_items(2, size)[0])
    assert victim in unresolved and step.next_batch == 4  # batch 4 is redone from its add
    step = apply_child_output("", step.next_batch, size, expected, unresolved)  # killed at once
    assert victim in unresolved and step.next_batch == 4
    redo = _json.dumps({"op": "add", "batch": 4, "ids": ["id-4-0", "id-4-1"]}) + "\n"
    redo += _json.dumps({"op": "del", "batch": 4, "id": victim}) + "\n"
    step = apply_child_output(redo, 4, size, expected, unresolved)
    assert victim not in unresolved and expected[victim] is None and step.next_batch == 5
