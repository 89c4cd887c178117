"""The buffer layer: bounds, persistence, moving turns to the episodic layer, retries."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest

from prism_memory import (
    BufferConfig,
    FakeEmbedder,
    LifecycleConfig,
    Memory,
    PrismConfig,
    ScopeError,
    ValidationError,
)
from prism_memory.layers.buffer import overflow_count


def _memory(path: Path, **buffer: int) -> Memory:
    cfg = PrismConfig(
        buffer=BufferConfig(**buffer), lifecycle=LifecycleConfig(consolidate_on_session_end=False)
    )
    return Memory(path=path, embedder=FakeEmbedder(dim=64), config=cfg)


_users = itertools.count()


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    """One embedded store for the module (opening one costs seconds); tests use their own user."""
    m = _memory(tmp_path_factory.mktemp("buffer") / "s")
    yield m
    m.close()


@pytest.fixture
def m(shared: Memory) -> Iterator[Memory]:
    shared.config.buffer = BufferConfig()
    yield shared
    shared.config.buffer = BufferConfig()


@pytest.fixture
def user() -> str:
    return f"user-{next(_users)}"


def test_overflow_count_evicts_oldest_until_both_bounds_hold() -> None:
    assert overflow_count([], 3, 100) == 0
    assert overflow_count([1, 1, 1, 1], 3, 100) == 1
    assert overflow_count([90, 5, 5], 10, 50) == 1
    assert overflow_count([200], 10, 50) == 1  # a single oversized turn does not stay


def test_turns_are_buffered_with_role_index_speaker_and_source_ids(m: Memory, user: str) -> None:
    when = datetime(2024, 5, 8, 13, 56, tzinfo=timezone.utc)
    res = m.remember(
        [
            {"role": "user", "content": "I love seafood", "name": "Ann", "id": "D1:1"},
            {"role": "assistant", "content": "Noted."},
        ],
        user_id=user,
        session_id="s1",
        event_time=when,
    )
    turns = [c.record for c in res.added if c.reason == "buffered turn"]
    assert [t.metadata["turn_index"] for t in turns] == [0, 1]
    assert turns[0].speaker == "Ann" and turns[1].speaker == "assistant"
    assert turns[0].provenance.source_ids == ["D1:1"]
    assert turns[0].event_time == when and turns[0].session_id == "s1"
    assert [r.text for r in m.buffer(user_id=user, session_id="s1")] == [
        "I love seafood",
        "Noted.",
    ]


def test_overflow_moves_oldest_turns_to_episodic_without_losing_any(m: Memory, user: str) -> None:
    m.config.buffer = BufferConfig(max_turns=3)
    for i in range(7):
        m.remember(f"turn number {i}", user_id=user, session_id="s")
    buf = m.buffer(user_id=user, session_id="s")
    assert [r.text for r in buf] == ["turn number 4", "turn number 5", "turn number 6"]
    hist = m.session_turns(user_id=user, session_id="s")
    assert [r.metadata["turn_index"] for r in hist] == list(range(7))
    assert {r.layer.value for r in hist[:4]} == {"episodic"}
    assert m.session_turns(user_id=user, session_id="s", limit=2)[0].text == "turn number 5"


def test_moving_a_turn_keeps_its_vector(m: Memory, user: str) -> None:
    m.config.buffer = BufferConfig(max_turns=1)
    first = m.remember("the first turn", user_id=user, session_id="s").added[0].record
    from prism_memory.records import Scope

    before = m.store.get_vectors([first.id], Scope(user_id=user, session_id="s"))
    res = m.remember("the second turn", user_id=user, session_id="s")
    assert [c.record.id for c in res.updated] == [first.id]
    after = m.store.get_vectors([first.id], Scope(user_id=user, session_id="s"))
    assert before == after and m.get(first.id, user_id=user).layer.value == "episodic"


def test_buffer_survives_a_restart(tmp_path: Path) -> None:
    m = _memory(tmp_path / "s", max_turns=2)
    m.remember(["one", "two"], user_id="a", session_id="s")
    m.close()
    m2 = _memory(tmp_path / "s", max_turns=2)
    assert [r.text for r in m2.buffer(user_id="a", session_id="s")] == ["one", "two"]
    m2.remember("three", user_id="a", session_id="s")  # indexes continue, oldest moves on
    hist = m2.session_turns(user_id="a", session_id="s")
    assert [(r.text, r.metadata["turn_index"]) for r in hist] == [
        ("one", 0),
        ("two", 1),
        ("three", 2),
    ]
    assert [r.text for r in m2.buffer(user_id="a", session_id="s")] == ["two", "three"]
    m2.close()


def test_retried_message_ids_are_skipped(m: Memory, user: str) -> None:
    msg = [{"role": "user", "content": "hello there", "id": "m-1"}]
    m.remember(msg, user_id=user, session_id="s")
    res = m.remember(msg, user_id=user, session_id="s")
    assert not res.added and "already remembered" in res.skipped[0].reason
    assert len(m.session_turns(user_id=user, session_id="s")) == 1


def test_flush_buffer_and_end_session_empty_the_buffer(m: Memory, user: str) -> None:
    m.remember(["a turn", "another turn"], user_id=user, session_id="s")
    res = m.flush_buffer(user_id=user, session_id="s")
    assert len(res.updated) == 2 and m.buffer(user_id=user, session_id="s") == []
    m.remember("late turn", user_id=user, session_id="s")
    assert len(m.end_session(user_id=user, session_id="s").updated) == 1
    assert m.buffer(user_id=user, session_id="s") == []
    assert len(m.session_turns(user_id=user, session_id="s")) == 3


def test_default_session_and_scope_errors(m: Memory, user: str) -> None:
    m.remember("no session given", user_id=user)
    assert [r.text for r in m.buffer(user_id=user)] == ["no session given"]
    with pytest.raises(ScopeError):
        m.remember("who am I?")
    with pytest.raises(ScopeError):
        m.buffer()
    with pytest.raises(ValidationError, match="task_id"):
        m.remember("x", user_id=user, task_id="")
    with pytest.raises(ValidationError, match="event_time"):
        m.remember("x", user_id=user, event_time="yesterday-ish")
    with pytest.raises(ValidationError, match="limit"):
        m.session_turns(user_id=user, limit=0)
    assert m.count(user_id=user) == 1


def test_delete_all_resets_the_buffer_index(m: Memory, user: str) -> None:
    m.remember("to be erased", user_id=user, session_id="s")
    m.delete_all(user_id=user, purge=False)
    m.remember("fresh start", user_id=user, session_id="s")
    hist = m.session_turns(user_id=user, session_id="s")
    assert [(r.text, r.metadata["turn_index"]) for r in hist] == [("fresh start", 0)]


async def test_async_shells(m: Memory, user: str) -> None:
    res = await m.aremember("async hello", user_id=user, session_id="s")
    assert res.added
    assert [r.text for r in await m.abuffer(user_id=user, session_id="s")] == ["async hello"]
    assert len((await m.aend_session(user_id=user, session_id="s")).updated) == 1
    assert len(await m.asession_turns(user_id=user, session_id="s")) == 1


def test_a_failed_write_stores_nothing_and_frees_the_turn_indexes(
    m: Memory, user: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from prism_memory import StoreError

    def broken(points: object) -> None:
        raise StoreError("disk full")

    with monkeypatch.context() as patch:
        patch.setattr(m.store, "upsert", broken)
        with pytest.raises(StoreError):
            m.remember(["first try", "second turn"], user_id=user, session_id="s")
    assert m.session_turns(user_id=user, session_id="s") == []
    m.remember(["first try", "second turn"], user_id=user, session_id="s")
    hist = m.session_turns(user_id=user, session_id="s")
    assert [(r.text, r.metadata["turn_index"]) for r in hist] == [
        ("first try", 0),
        ("second turn", 1),
    ]
