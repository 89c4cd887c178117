"""Intent: rule-based query analysis, templates, merging, cache signature."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from prism_memory import Intent, ValidationError
from prism_memory.records import Kind
from prism_memory.retrieval.intent import IntentRegistry, analyze_query, parse_time_range

NOW = datetime(2023, 6, 15, 12, tzinfo=timezone.utc)  # a Thursday


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("what did we do last week?", "2023-06-05", "2023-06-12"),
        ("anything in May 2023?", "2023-05-01", "2023-06-01"),
        ("what happened on 8 May, 2023", "2023-05-08", "2023-05-09"),
        ("what happened on July 4th 2022", "2022-07-04", "2022-07-05"),
        ("what did I say yesterday", "2023-06-14", "2023-06-15"),
        ("plans from last month", "2023-05-01", "2023-06-01"),
        ("trips last year", "2022-01-01", "2023-01-01"),
        ("moves in 2021", "2021-01-01", "2022-01-01"),
    ],
)
def test_temporal_expressions_become_ranges(query: str, start: str, end: str) -> None:
    rng = parse_time_range(query, NOW)
    assert rng is not None
    assert (rng[0].date().isoformat(), rng[1].date().isoformat()) == (start, end)


def test_relative_ago_is_centred_on_the_offset() -> None:
    rng = parse_time_range("the concert two weeks ago", NOW)
    assert rng is not None and rng[0] < datetime(2023, 6, 1, tzinfo=timezone.utc) < rng[1]


def test_may_as_a_verb_is_not_a_month() -> None:
    assert parse_time_range("may I ask what seat she likes?", NOW) is None
    assert parse_time_range("what seat does she like?", NOW) is None


def test_known_speakers_and_entities_are_found_as_whole_words() -> None:
    it = analyze_query(
        "What did Priya's friend say about Hotel Lumen?",
        known_entities={"hotel lumen", "lume"},
        known_speakers={"priya", "pri"},
        now=NOW,
    )
    assert it.speakers == ["priya"]
    assert it.entities == ["hotel lumen"]
    assert it.sources == ["rules"]


def test_recency_cue() -> None:
    assert analyze_query("what is my current budget?", now=NOW).recency
    assert not analyze_query("what is my budget?", now=NOW).recency


def test_caller_intent_wins_over_template_and_lists_merge() -> None:
    template = Intent(step="book_hotel", kinds=["fact"], weights={"task": 0.5, "semantic": 0.5})
    given = Intent(step="book_hotel", kinds=["result"], weights={"task": 0.9})
    merged = given.merged_over(template)
    assert merged.kinds == [Kind.FACT, Kind.RESULT]
    assert merged.weights == {"task": 0.9, "semantic": 0.5}


def test_registry_validates_and_names() -> None:
    reg = IntentRegistry()
    reg.register("compare_hotel_prices", kinds=["fact"], entities=["Hotel"])
    assert reg.get("compare_hotel_prices").entities == ["hotel"]
    assert reg.get("unknown") is None and reg.names() == ["compare_hotel_prices"]
    with pytest.raises(ValidationError, match="weights"):
        reg.register("bad", weights={"novelty": 1.0})
    with pytest.raises(ValidationError, match="name"):
        reg.register("", kinds=["fact"])


def test_signature_is_stable_and_sensitive() -> None:
    a = Intent(step="s", kinds=["fact"])
    assert a.signature() == Intent(step="s", kinds=["fact"]).signature()
    assert a.signature() != Intent(step="s", kinds=["preference"]).signature()
