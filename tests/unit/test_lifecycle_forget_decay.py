"""Decay signals, forgetting by policy, the background worker."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from prism_memory import FakeEmbedder, Memory, MemoryRecord, ValidationError
from prism_memory.lifecycle.decay import retention
from prism_memory.lifecycle.worker import BackgroundWorker
from prism_memory.retrieval.scoring import half_life_decay as freshness

NOW = datetime(2024, 6, 1, tzinfo=timezone.utc)


def test_freshness_halves_every_half_life() -> None:
    assert freshness(0, 10) == 1.0 and freshness(10, 10) == 0.5 and freshness(20, 10) == 0.25
    with pytest.raises(ValueError):
        freshness(1, 0)


def test_retention_prefers_fresh_used_useful_memories() -> None:
    old = MemoryRecord(text="x", user_id="a", created_at=NOW - timedelta(days=120))
    old.updated_at = old.created_at
    new = MemoryRecord(text="y", user_id="a", created_at=NOW, updated_at=NOW)
    used = new.model_copy(update={"access_count": 5, "last_accessed": NOW})
    useless = new.model_copy(update={"utility": 0.0, "importance": 0.0})
    assert retention(old, now=NOW) < retention(new, now=NOW) < retention(used, now=NOW)
    assert retention(useless, now=NOW) == 0.0


def test_touch_records_access(fake_memory: Memory) -> None:
    rec = fake_memory.add("the sky is blue", user_id="a")
    assert fake_memory.touch([rec.id, "not-there"], user_id="a") == 1
    got = fake_memory.get(rec.id, user_id="a")
    assert got.access_count == 1 and got.last_accessed is not None


def test_forget_archives_or_deletes_by_policy() -> None:
    m = Memory(location=":memory:", embedder=FakeEmbedder(dim=32))
    old_time = datetime.now(timezone.utc) - timedelta(days=400)
    old = m.add("an old episode", user_id="a", layer="episodic", event_time=old_time)
    keep = m.add("a recent episode", user_id="a", layer="episodic")
    fact = m.add("a fact", user_id="a", layer="semantic", event_time=old_time)
    assert m.forget(user_id="a", older_than=365, layer="episodic") == 1
    assert m.get(old.id, user_id="a").status.value == "archived"
    assert [r.id for r in m.list(user_id="a", layer="episodic")] == [keep.id]
    assert m.forget(user_id="a", older_than=365, layer="episodic") == 0  # already archived
    assert m.forget(user_id="a", older_than=old_time + timedelta(days=1), mode="delete") == 2
    assert {r.id for r in m.list(user_id="a", include_history=True)} == {keep.id}
    assert fact.id not in {r.id for r in m.list(user_id="a", include_history=True)}
    m.add("useless", user_id="b", importance=0.0)
    assert m.forget(user_id="b", below_utility=0.5) == 1
    m.close()


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({}, "needs a criterion"),
        ({"older_than": 5, "mode": "shred"}, "mode"),
        ({"below_utility": 2}, "below_utility"),
        ({"layer": "attic"}, "unknown layer"),
        ({"older_than": -1}, ">= 0"),
        ({"older_than": "last tuesday"}, "not a date"),
    ],
)
def test_forget_rejects_bad_policies_and_keeps_everything(
    kwargs: dict[str, object], words: str
) -> None:
    m = Memory(location=":memory:", embedder=FakeEmbedder(dim=32))
    m.add("keep me", user_id="a")
    with pytest.raises(ValidationError, match=words):
        m.forget(user_id="a", **kwargs)  # type: ignore[arg-type]
    assert m.count(user_id="a") == 1
    m.close()


def test_worker_runs_in_order_survives_errors_and_drains_on_stop() -> None:
    errors: list[str] = []
    out: list[int] = []
    w = BackgroundWorker(on_error=errors.append)
    w.submit(lambda: out.append(1))
    w.submit(lambda: 1 / 0)
    w.submit(lambda: out.append(2))
    assert w.join(timeout=120)  # generous: a loaded machine may starve the worker
    assert out == [1, 2] and errors and "ZeroDivisionError" in errors[0]
    w.stop()
    w.submit(lambda: out.append(3))  # after stop: runs inline, nothing dropped
    assert out == [1, 2, 3]


def test_lifecycle_calls_need_a_scope_and_valid_ids() -> None:
    from prism_memory import ScopeError

    m = Memory(location=":memory:", embedder=FakeEmbedder(dim=32))
    with pytest.raises(ScopeError):
        m.consolidate()
    with pytest.raises(ScopeError):
        m.forget(older_than=1)
    with pytest.raises(ValidationError, match="list of records or id strings"):
        m.touch("abc", user_id="a")  # type: ignore[arg-type]
    assert m.touch([], user_id="a") == 0
    m.close()


def test_touch_with_recalled_records_is_one_payload_call_and_no_read(
    fake_memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    fact = fake_memory.add("Maya is vegetarian", user_id="a")
    turn = fake_memory.add("hello there", user_id="a", session_id="s1", layer="episodic")
    other = fake_memory.add("bob's secret", user_id="b")
    hits = list(fake_memory.list(user_id="a"))
    calls: list[str] = []
    store = fake_memory.store
    real_get, real_set = store.get, store.set_payload
    monkeypatch.setattr(store, "get", lambda *a, **k: calls.append("get") or real_get(*a, **k))
    monkeypatch.setattr(
        store, "set_payload", lambda *a, **k: calls.append("set") or real_set(*a, **k)
    )
    when = datetime(2030, 1, 2, tzinfo=timezone.utc)
    # a session-scoped caller touches what recall showed it, semantic records included
    assert fake_memory.touch([*hits, other], user_id="a", session_id="s1", now=when) == 2
    assert calls == ["set"]  # records of another user are ignored, not written
    monkeypatch.undo()
    for rid in (fact.id, turn.id):
        got = fake_memory.get(rid, user_id="a")
        assert got.access_count == 1 and got.last_accessed == when
    assert fake_memory.get(other.id, user_id="b").access_count == 0
    assert fake_memory.touch([fact.id, fact.id], user_id="a", now=when) == 1
    assert fake_memory.get(fact.id, user_id="a").access_count == 2
    assert fake_memory.touch([other.id], user_id="a") == 0
