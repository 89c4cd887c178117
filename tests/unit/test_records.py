"""MemoryRecord, Scope and ids: validation, determinism and the payload round trip."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone

import pytest

from prism_memory import Kind, Layer, MemoryRecord, Scope, ScopeError, ScoredRecord
from prism_memory.records import (
    MAX_SCOPE_ID_CHARS,
    Entity,
    Provenance,
    Source,
    Status,
    Trust,
    is_record_id,
    make_record_id,
    normalize_entity,
    normalize_text,
)


# -- Scope ------------------------------------------------------------------------------
def test_scope_requires_one_field() -> None:
    with pytest.raises(ScopeError, match="user_id=, agent_id= or session_id="):
        Scope.of()
    with pytest.raises(ScopeError):
        Scope()


@pytest.mark.parametrize("bad", ["", "   ", "\n\t"])
def test_scope_rejects_blank_ids(bad: str) -> None:
    with pytest.raises(ScopeError, match="user_id is empty"):
        Scope.of(user_id=bad)


@pytest.mark.parametrize("bad", [123, 1.5, ["alice"], b"alice"])
def test_scope_rejects_non_strings_with_a_fix(bad: object) -> None:
    with pytest.raises(ScopeError, match=r"str\(value\)"):
        Scope.of(agent_id=bad)  # type: ignore[arg-type]


def test_scope_rejects_overlong_ids() -> None:
    Scope.of(user_id="a" * MAX_SCOPE_ID_CHARS)
    with pytest.raises(ScopeError, match="limit"):
        Scope.of(user_id="a" * (MAX_SCOPE_ID_CHARS + 1))


def test_scope_key_is_unambiguous() -> None:
    keys = {
        Scope.of(user_id="foo").key(),
        Scope.of(user_id="foobar").key(),
        Scope.of(user_id="john_doe").key(),
        Scope.of(user_id="john-doe").key(),
        Scope.of(agent_id="foo").key(),
        Scope.of(session_id="foo").key(),
        Scope.of(user_id="foo", session_id="s").key(),
    }
    assert len(keys) == 7
    assert Scope.of(user_id="a", session_id="s").key() == "agent_id=|session_id=s|user_id=a"


def test_scope_as_dict_and_widen() -> None:
    s = Scope.of(user_id="alice", session_id="s1")
    assert s.as_dict() == {"user_id": "alice", "session_id": "s1"}
    assert s.widen(session=True) == Scope.of(user_id="alice")
    assert s.widen() == s
    only_session = Scope.of(session_id="s1")
    assert only_session.widen(session=True) == only_session  # nothing else would remain


def test_scope_is_frozen_and_hashable() -> None:
    s = Scope.of(user_id="alice")
    assert {s: 1}[Scope.of(user_id="alice")] == 1
    with pytest.raises(Exception):  # noqa: B017 - pydantic frozen-instance error
        s.user_id = "bob"  # type: ignore[misc]


# -- ids --------------------------------------------------------------------------------
def test_record_id_is_deterministic_and_normalised() -> None:
    s = Scope.of(user_id="alice")
    a = make_record_id(s, Layer.SEMANTIC, "I prefer window seats")
    assert a == make_record_id(s, "semantic", "  i PREFER   window seats ")
    assert is_record_id(a) and uuid.UUID(a).version == 5


def test_record_id_differs_by_scope_layer_and_text() -> None:
    base = make_record_id(Scope.of(user_id="foo"), Layer.SEMANTIC, "x")
    others = {
        make_record_id(Scope.of(user_id="foobar"), Layer.SEMANTIC, "x"),
        make_record_id(Scope.of(user_id="foo", session_id="s"), Layer.SEMANTIC, "x"),
        make_record_id(Scope.of(agent_id="foo"), Layer.SEMANTIC, "x"),
        make_record_id(Scope.of(user_id="foo"), Layer.EPISODIC, "x"),
        make_record_id(Scope.of(user_id="foo"), Layer.SEMANTIC, "y"),
    }
    assert base not in others and len(others) == 5


@pytest.mark.parametrize("value", ["", "abc", None, 12, "0ec08139-b7af-5668-9564"])
def test_is_record_id_rejects_non_uuids(value: object) -> None:
    assert not is_record_id(value)


def test_normalisation() -> None:
    assert normalize_text("  Ｈｅｌｌｏ\n  World ") == "hello world"  # NFKC + casefold
    assert normalize_entity(" Mr. Zhang. ") == "mr. zhang"
    assert Entity(name="ZHANG!").key == "zhang"


# -- MemoryRecord -----------------------------------------------------------------------
def test_record_defaults() -> None:
    r = MemoryRecord(text="I prefer window seats", user_id="alice", kind="preference")
    assert r.layer is Layer.SEMANTIC and r.kind is Kind.PREFERENCE
    assert r.status is Status.ACTIVE and r.is_current
    assert r.provenance.trust is Trust.TRUSTED and r.provenance.source is Source.USER
    assert r.utility == 0.5 and r.importance == 0.5 and r.confidence == 1.0
    assert r.id == make_record_id(Scope.of(user_id="alice"), Layer.SEMANTIC, r.text)
    assert r.valid_from == r.created_at and r.created_at.tzinfo is not None


def test_record_requires_a_scope() -> None:
    r = MemoryRecord(text="orphan", id=str(uuid.uuid4()))
    with pytest.raises(ScopeError):
        _ = r.scope


def test_naive_datetimes_become_utc() -> None:
    r = MemoryRecord(
        text="x",
        user_id="a",
        event_time=datetime(2023, 5, 1, 12, 0),
        created_at=datetime(2023, 5, 2, 14, 0, tzinfo=timezone(timedelta(hours=2))),
    )
    assert r.event_time == datetime(2023, 5, 1, 12, 0, tzinfo=timezone.utc)
    assert r.created_at == datetime(2023, 5, 2, 12, 0, tzinfo=timezone.utc)
    assert r.created_at.utcoffset() == timedelta(0)
    assert r.valid_from == r.event_time and r.time == r.event_time


@pytest.mark.parametrize("field", ["importance", "utility", "confidence"])
@pytest.mark.parametrize("value", [-0.1, 1.01])
def test_scores_are_bounded(field: str, value: float) -> None:
    with pytest.raises(ValueError):
        MemoryRecord(text="x", user_id="a", **{field: value})


def test_payload_round_trip_is_lossless() -> None:
    r = MemoryRecord(
        text="Zhang moved to Shanghai",
        user_id="alice",
        session_id="s1",
        layer="episodic",
        kind="event",
        schema="Event",
        fields={"who": "Zhang", "where": "Shanghai"},
        metadata={"topic": "friends", "nested": {"a": [1, 2]}},
        entities=[Entity(type="person", name="Zhang"), Entity(name="Shanghai")],
        event_time=datetime(2023, 5, 1, tzinfo=timezone.utc),
        provenance=Provenance(source="tool", trust="untrusted", source_ids=["t1", "t2"]),
        task_id="trip",
    )
    payload = r.to_payload()
    assert payload["schema"] == "Event" and "schema_name" not in payload
    assert payload["entity_keys"] == ["shanghai", "zhang"]
    assert payload["trust"] == "untrusted" and payload["source"] == "tool"
    assert payload["source_ids"] == ["t1", "t2"]
    assert payload["ts"] == r.event_time.timestamp()  # type: ignore[union-attr]
    assert payload["event_time"] == "2023-05-01T00:00:00Z"
    back = MemoryRecord.from_payload(payload)
    assert back == r
    assert back.to_payload() == payload


def test_ts_falls_back_to_created_at() -> None:
    r = MemoryRecord(text="x", user_id="a")
    assert r.to_payload()["ts"] == r.created_at.timestamp()


def test_scored_record_shortcuts() -> None:
    r = MemoryRecord(text="x", user_id="a")
    hit = ScoredRecord(record=r, score=0.5, routes=["dense"], vector=[0.1])
    assert hit.id == r.id and hit.text == "x"
    assert "vector" not in hit.model_dump()
