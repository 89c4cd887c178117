"""A record's identity is exact: scope keys never collide, message ids are compared byte for
byte, an add finds the record it would repeat (even one updated, redacted or past a deleted one)
instead of overwriting it, and a record's consolidation mark survives update and export/import.

Engine-level tests run on the real embedded engine (Qdrant Edge) with the hashing fake embedder
and the rules-only poisoning screen, so every test here takes well under a second.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from memories import open_memory

from prism_memory import (
    FakeEmbedder,
    Memory,
    MemoryRecord,
    Scope,
)
from prism_memory.config import PrismConfig, SafetyConfig
from prism_memory.layers.buffer import turn_record_id
from prism_memory.records import SCOPE_FIELDS, make_record_id


# -- Scope.key() is unambiguous ---------------------------------------------------------
def legacy_key(scope: Scope) -> str:
    """``Scope.key()`` as it was before ids with separators were escaped."""
    return "|".join(f"{name}={getattr(scope, name) or ''}" for name in sorted(SCOPE_FIELDS))


# ids made of separators and field names, so that look-alike keys are likely
_PIECES = ["a", "x", "|", "=", "\\", "\\|", "\\=", "user_id", "session_id", "agent_id", "|user_id="]
scope_ids = st.one_of(
    st.none(), st.lists(st.sampled_from(_PIECES), min_size=1, max_size=4).map("".join)
)


@settings(max_examples=500, deadline=None)
@example(("alice", None, "s1|user_id=x"), ("x|user_id=alice", None, "s1"))
@example(("a", "b\\", None), ("a", "b\\|session_id=", None))
@given(st.tuples(scope_ids, scope_ids, scope_ids), st.tuples(scope_ids, scope_ids, scope_ids))
def test_distinct_scopes_have_distinct_keys(
    a: tuple[str | None, ...], b: tuple[str | None, ...]
) -> None:
    if a == b or all(v is None for v in a) or all(v is None for v in b):
        return
    sa, sb = Scope.of(*a), Scope.of(*b)
    assert sa.key() != sb.key()


def test_scope_keys_are_injective_exhaustively() -> None:
    # every scope whose ids are at most two of these pieces: ~30,000 scopes, one key each
    pieces = ["x", "\\", "=", "|user_id=", "|session_id="]
    values: list[str | None] = [None, *pieces, *(a + b for a in pieces for b in pieces)]
    seen: dict[str, tuple[str | None, ...]] = {}
    for triple in itertools.product(values, repeat=3):
        if all(v is None for v in triple):
            continue
        key = Scope.model_construct(
            user_id=triple[0], agent_id=triple[1], session_id=triple[2]
        ).key()
        assert seen.setdefault(key, triple) == triple, (key, seen[key], triple)


ordinary_ids = st.one_of(
    st.none(),
    st.text(min_size=1, max_size=12).filter(lambda s: s.strip() and "|" not in s and "=" not in s),
)


@settings(max_examples=200, deadline=None)
@given(ordinary_ids, ordinary_ids, ordinary_ids)
def test_ordinary_scope_keys_are_unchanged(
    user: str | None, agent: str | None, session: str | None
) -> None:
    if user is None and agent is None and session is None:
        return
    scope = Scope.of(user, agent, session)
    assert scope.key() == legacy_key(scope)


def test_ordinary_record_ids_are_unchanged() -> None:
    # ids derived by the code before the change: existing stores keep their deterministic ids
    scope = Scope(user_id="alice", session_id="s1")
    assert scope.key() == "agent_id=|session_id=s1|user_id=alice"
    assert make_record_id(scope, "semantic", "I like tea") == "4dbf6f95-3302-5ff6-b731-df5b71e05cba"
    assert (
        make_record_id(Scope(user_id="a\\b", agent_id="bot"), "episodic", "Trip to Rome")
        == "3044f294-ad95-5f53-b429-e96bda2079da"
    )


def test_lookalike_scopes_do_not_overwrite_each_other(mem: Memory, uid: str) -> None:
    a = {"user_id": uid, "session_id": "s1|user_id=x"}
    b = {"user_id": f"x|user_id={uid}", "session_id": "s1"}
    assert Scope(**a).key() != Scope(**b).key()
    ra = mem.add("hello world", **a)
    rb = mem.add("hello world", **b)
    assert ra.id != rb.id
    assert [r.id for r in mem.list(**a)] == [ra.id]
    assert [r.id for r in mem.list(**b)] == [rb.id]


# -- message ids are compared byte for byte ---------------------------------------------
def turn_texts(m: Memory, **scope: str) -> list[str]:
    return [r.text for r in m.session_turns(**scope)]


def test_message_ids_differing_in_case_are_two_messages(mem: Memory, uid: str) -> None:
    scope = {"user_id": uid, "session_id": "s"}
    mem.remember([{"role": "user", "content": "first turn", "id": "msg_AbC"}], **scope)
    again = mem.remember([{"role": "user", "content": "second turn", "id": "msg_aBc"}], **scope)
    assert [c.record.text for c in again.added][:1] == ["second turn"] and not again.skipped
    retry = mem.remember([{"role": "user", "content": "first turn", "id": "msg_AbC"}], **scope)
    assert len(retry.skipped) == 1 and not retry.added
    assert turn_texts(mem, **scope) == ["first turn", "second turn"]


@pytest.mark.parametrize("ids", [("K1", "k1"), ("ﬁ", "fi"), ("a  b", "a b"), ("Straße", "strasse")])
def test_message_ids_equal_after_normalisation_in_one_call(
    mem: Memory, uid: str, ids: tuple[str, str]
) -> None:
    scope = {"user_id": uid, "session_id": "s"}
    result = mem.remember(
        [{"role": "user", "content": "turn one", "id": ids[0]},
         {"role": "user", "content": "turn two", "id": ids[1]}],
        **scope,
    )  # fmt: skip
    assert sum(c.reason == "buffered turn" for c in result.added) == 2
    assert turn_texts(mem, **scope) == ["turn one", "turn two"]


def test_normal_form_message_ids_keep_their_record_ids() -> None:
    # computed by the code before the change
    scope = Scope(user_id="alice", session_id="s1")
    assert turn_record_id(scope, "msg_abc", 0) == "394c80fa-df6f-5ef1-a8c2-ab0c4092cb1b"
    assert turn_record_id(scope, None, 3) == "1f6d6a14-a5d3-5be2-b0f6-0a027ccfd6e3"


def test_turn_stored_under_a_legacy_id_is_recognised_and_kept(mem: Memory, uid: str) -> None:
    # an older version stored message "msg_AbC" under the id of its normal form "msg_abc"
    scope = Scope(user_id=uid, session_id="s")
    old = mem.build_record(
        "old turn",
        scope,
        kind="observation",
        layer="buffer",
        metadata={"role": "user", "turn_index": 0},
        source="user",
        source_ids=["msg_AbC"],
        speaker="user",
        record_id=make_record_id(scope, "turn", "msg:msg_AbC"),  # the legacy id
    )
    mem.record_store.write([old])
    retry = mem.remember(
        [{"role": "user", "content": "old turn", "id": "msg_AbC"}], **scope.as_dict()
    )
    assert len(retry.skipped) == 1 and not retry.added
    new = mem.remember(
        [{"role": "user", "content": "new turn", "id": "msg_abc"}], **scope.as_dict()
    )
    assert not new.skipped
    assert turn_texts(mem, **scope.as_dict()) == ["old turn", "new turn"]
    again = mem.remember(
        [{"role": "user", "content": "new turn", "id": "msg_abc"}], **scope.as_dict()
    )
    assert len(again.skipped) == 1 and not again.added


# -- an updated record is not replaced by a later add of its old text -------------------
def texts(m: Memory, **scope: str) -> list[str]:
    return sorted(r.text for r in m.list(**scope))


def test_add_of_the_old_text_does_not_clobber_an_updated_record(mem: Memory, uid: str) -> None:
    first = mem.add("I like tea", user_id=uid)
    updated = mem.update(first.id, text="I like coffee", user_id=uid)
    assert updated.id == first.id  # update keeps the id (documented)
    again = mem.add("I like tea", user_id=uid)
    assert again.id != first.id
    assert mem.get(first.id, user_id=uid).text == "I like coffee"
    assert texts(mem, user_id=uid) == ["I like coffee", "I like tea"]
    # a re-add of the old text finds its own record (an upsert, no third record)
    assert mem.add("i like  TEA", user_id=uid).id == again.id
    many = mem.add_many(["I like tea", "I like tea", "I like milk"], user_id=uid)
    assert [r.id for r in many[:2]] == [again.id, again.id]
    assert texts(mem, user_id=uid) == ["I like coffee", "I like milk", "I like tea"]


def test_add_finds_its_record_past_a_deleted_one(mem: Memory, uid: str) -> None:
    first = mem.add("Rome in May", user_id=uid)
    mem.update(first.id, text="Rome in June", user_id=uid)
    second = mem.add("Rome in May", user_id=uid)
    mem.update(second.id, text="Rome in July", user_id=uid)
    third = mem.add("Rome in May", user_id=uid)
    mem.delete(first.id, user_id=uid)
    assert mem.add("Rome in May", user_id=uid).id == third.id
    assert texts(mem, user_id=uid) == ["Rome in July", "Rome in May"]


def test_add_does_not_overwrite_a_summary_at_the_same_id(mem: Memory, uid: str) -> None:
    # a text equal to the key a derived record's id is hashed from
    derived = mem.build_record(
        "Summary of the first session", Scope(user_id=uid), record_id=mem.add("x", user_id=uid).id
    )
    mem.record_store.write([derived])
    clash = mem.add("x", user_id=uid)
    assert clash.id != derived.id
    assert texts(mem, user_id=uid) == ["Summary of the first session", "x"]


def test_redacted_add_does_not_clobber_an_updated_record(mem: Memory, uid: str) -> None:
    mem.config.safety.redact_pii = True
    try:
        first = mem.add("mail me at bob@example.com", user_id=uid)
        assert first.text == "mail me at [EMAIL]"
        mem.update(first.id, text="call me instead", user_id=uid)
        mem.add("mail me at bob@example.com", user_id=uid)
    finally:
        mem.config.safety.redact_pii = False
    assert texts(mem, user_id=uid) == ["call me instead", "mail me at [EMAIL]"]


# -- consolidated_at is part of the record -----------------------------------------------
@pytest.fixture(params=["edge", "local"])
def either(request: pytest.FixtureRequest, mem: Memory) -> Iterator[Memory]:
    """The module's embedded store, or a throwaway qdrant-client local one."""
    if request.param == "edge":
        yield mem
        return
    m = Memory(
        location=":memory:",
        embedder=FakeEmbedder(dim=64),
        config=PrismConfig(safety=SafetyConfig(screen="off")),
    )
    yield m
    m.close()


def consolidated_session(m: Memory, uid: str) -> list[MemoryRecord]:
    turns = [f"I went hiking in the Alps on day {i} with Sam" for i in range(6)]
    m.remember([{"role": "user", "content": t} for t in turns], user_id=uid, session_id="s")
    ended = m.end_session(user_id=uid, session_id="s")
    assert [c.record.kind.value for c in ended.added] == ["summary"]
    history = m.session_turns(user_id=uid, session_id="s")
    assert all(t.consolidated_at is not None for t in history)
    return history


def test_update_keeps_the_consolidated_mark(either: Memory, uid: str) -> None:
    turn = consolidated_session(either, uid)[0]
    kept = either.update(turn.id, user_id=uid, session_id="s", metadata={"checked": 1})
    assert kept.consolidated_at == turn.consolidated_at
    assert not either.consolidate(user_id=uid).added
    assert either.count(user_id=uid, layer="semantic") == 1


def test_export_import_keeps_the_consolidated_mark(mem: Memory, uid: str, tmp_path: Path) -> None:
    history = consolidated_session(mem, uid)
    mem.export_jsonl(tmp_path / "e.jsonl", user_id=uid)
    with open_memory(tmp_path / "copy") as copy:
        copy.import_jsonl(tmp_path / "e.jsonl")
        assert [t.consolidated_at for t in copy.session_turns(user_id=uid, session_id="s")] == [
            t.consolidated_at for t in history
        ]
        assert not copy.consolidate(user_id=uid).added
