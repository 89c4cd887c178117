"""Relationship links the LLM path states (caused_by, before, after, contradicts): resolved to
the stored ids on both ends, bad links dropped and counted, the rest of the answer kept."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from prism_memory import FakeEmbedder, Memory
from prism_memory.errors import ExtractionError
from prism_memory.extraction.schemas import SchemaRegistry
from prism_memory.llm.extraction import parse_answer

RAIN = {"schema": "Event", "fields": {"description": "a storm hit the coast"}}
CANCELLED = {
    "schema": "Event",
    "fields": {"description": "the beach trip was cancelled"},
    "links": [
        {"type": "caused_by", "item": 0},
        {"type": "after", "turn": 0},
        {"type": "rhymes_with", "item": 0},  # not a link type
        {"type": "before", "item": 7},  # no such item
        {"type": "after", "item": 1},  # itself
        {"type": "before", "turn": 3},  # no such turn
        "caused_by",  # not an object
    ],
}


def _memory(*answers: str) -> Memory:
    llm = FakeListChatModel(responses=list(answers))
    return Memory(location=":memory:", embedder=FakeEmbedder(dim=32), llm=llm)


def _relations(m: Memory, record_id: str) -> set[tuple[str, str]]:
    return {(r.type, r.target_id) for r in m.get(record_id, user_id="u").relations}


def test_links_are_stored_on_both_ends_and_bad_ones_counted() -> None:
    m = _memory(json.dumps({"items": [RAIN, CANCELLED]}))
    res = m.remember(
        [{"content": "A storm hit the coast, so our beach trip got cancelled.", "id": "t1"}],
        user_id="u",
        session_id="s",
    )
    events = {r.fields["description"]: r for r in m.list(user_id="u", kind="event")}
    storm, trip = events["a storm hit the coast"], events["the beach trip was cancelled"]
    turn = next(c.record for c in res.added if c.record.layer.value == "buffer")
    assert _relations(m, trip.id) == {("caused_by", storm.id), ("after", turn.id)}
    assert _relations(m, storm.id) == {("causes", trip.id)}  # followed from either end
    assert ("before", trip.id) in _relations(m, turn.id)
    assert res.dropped_links == {"dangling": 2, "self": 1, "unknown_type": 2}
    m.end_session(user_id="u", session_id="s")  # the turn moves on and keeps its link
    assert ("before", trip.id) in _relations(m, turn.id)
    m.close()


def test_a_stated_contradiction_is_a_conflict_not_a_version() -> None:
    a = {"schema": "Fact", "fields": {"attribute": "team size", "value": "five"}}
    b = {
        "schema": "Fact",
        "fields": {"attribute": "meeting day", "value": "Monday"},
        "links": [{"type": "contradicts", "item": 0}],
    }
    m = _memory(json.dumps({"items": [a, b]}))
    m.remember("We are five; we meet on Monday.", user_id="u", session_id="s")
    facts = {r.fields["attribute"]: r for r in m.list(user_id="u", kind="fact")}
    size, day = facts["team size"], facts["meeting day"]
    assert _relations(m, day.id) == {("conflicts", size.id)}
    assert _relations(m, size.id) == {("conflicts", day.id)}
    assert [v.text for v in m.history(size.id, user_id="u")] == [size.text]  # no lineage
    m.close()


def test_a_link_to_an_existing_memory_merged_by_the_batch_is_kept() -> None:
    pref = {"schema": "Preference", "fields": {"subject": "green tea", "polarity": "like"}}
    cause = {
        "schema": "Event",
        "fields": {"description": "stopped drinking coffee"},
        "links": [{"type": "before", "item": 0}],
    }
    m = _memory(json.dumps({"items": [pref]}), json.dumps({"items": [pref, cause]}))
    m.remember("I like green tea", user_id="u", session_id="s")
    m.remember("I stopped coffee and now drink green tea", user_id="u", session_id="s")
    (tea,) = m.list(user_id="u", kind="preference")  # merged: the stored record
    (stop,) = m.list(user_id="u", kind="event")
    assert ("before", tea.id) in _relations(m, stop.id)
    assert ("after", stop.id) in _relations(m, tea.id)  # a payload update of the stored one
    m.close()


def test_parse_answer_keeps_items_whatever_their_links() -> None:
    reg = SchemaRegistry()
    weird: dict[str, Any] = {**RAIN, "links": {"type": "before", "item": "1"}}
    answer = parse_answer(json.dumps({"items": [weird, RAIN]}), reg, ["turn-a"])
    first, second = answer.candidates
    assert [(link.type, link.item) for link in first.links] == [("before", second)]
    assert answer.dropped_links == {}
    broken = parse_answer(json.dumps({"items": [{**RAIN, "links": 5}]}), reg)
    assert len(broken.candidates) == 1 and broken.dropped_links == {"unknown_type": 1}
    # digits str.isdigit() accepts but int() refuses lost the whole batch (a ValueError)
    odd = [{"type": "caused_by", "item": "⁰"}, {"type": "after", "item": "٠"}]
    kept = parse_answer(json.dumps({"items": [RAIN, {**RAIN, "links": odd}]}), reg)
    assert len(kept.candidates) == 2 and kept.dropped_links == {"dangling": 2}
    with pytest.raises(ExtractionError, match="not usable JSON"):
        parse_answer('{"items": [{"links": [{"type": "after", "item": ' + "9" * 5000 + "}]}]}", reg)


def test_dropped_links_cross_the_wire() -> None:
    from prism_memory.results import RememberResult
    from prism_memory.wire import remember_from_json, remember_to_json

    res = RememberResult(dropped_links={"dangling": 2})
    assert remember_from_json(remember_to_json(res)).dropped_links == {"dangling": 2}
