"""The rule-based extractor: English and Chinese patterns, money, dates, persons."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from prism_memory.extraction.dates import find_times, parse_clock, parse_session_date
from prism_memory.extraction.rules import extract, find_entities, parse_money, task_hints

BASE = datetime(2024, 5, 8, 10, 0, tzinfo=timezone.utc)  # a Wednesday


def _fields(text: str, schema: str) -> list[dict[str, object]]:
    return [c.fields for c in extract(text, event_time=BASE) if c.schema == schema]


@pytest.mark.parametrize(
    "text, subject, polarity",
    [
        ("I love seafood", "seafood", "like"),
        ("I really prefer aisle seats when I fly", "aisle seats", "like"),
        ("I hate long layovers.", "long layovers", "dislike"),
        ("I can't eat peanuts", "peanuts", "avoid"),
        ("I'm allergic to shellfish", "shellfish", "avoid"),
        ("window seat please", "window seat", "need"),
        ("我喜欢川菜", "川菜", "like"),
        ("我讨厌排队", "排队", "dislike"),
    ],
)
def test_preferences(text: str, subject: str, polarity: str) -> None:
    prefs = _fields(text, "Preference")
    assert prefs and prefs[0]["subject"] == subject and prefs[0]["polarity"] == polarity


def test_favourite_patterns_give_strong_likes() -> None:
    (fav,) = _fields("Three-Body is my favourite", "Preference")
    assert fav["subject"] == "Three-Body" and fav["strength"] == 0.9
    (cat,) = _fields("My favorite cuisine is Thai food", "Preference")
    assert cat["subject"] == "Thai food" and cat["category"] == "cuisine"


def test_pronoun_objects_are_not_preferences() -> None:
    assert _fields("I like that", "Preference") == []
    assert _fields("I love it!", "Preference") == []


@pytest.mark.parametrize(
    "text, amount, unit",
    [
        ("My budget is 500 a night", 500.0, None),
        ("I can go up to 800 now", 800.0, None),
        ("our budget is $1,200 for the trip", 1200.0, "USD"),
        ("我的预算是3000元", 3000.0, "CNY"),
    ],
)
def test_budget_facts(text: str, amount: float, unit: str | None) -> None:
    facts = [f for f in _fields(text, "Fact") if f["attribute"] == "budget"]
    assert facts and facts[0]["amount"] == amount and facts[0]["unit"] == unit


def test_other_facts_and_persons() -> None:
    assert {"attribute": "home city", "value": "Paris"} in _fields("I live in Paris.", "Fact")
    assert _fields("I work as a nurse", "Fact")[0]["attribute"] == "occupation"
    (person,) = _fields("My sister Anna is visiting", "Person")
    assert person == {"name": "Anna", "relationship": "sister"}
    assert _fields("明天下午三点和张先生开会", "Person")[0]["name"] == "张先生"


def test_money_parsing() -> None:
    assert parse_money("€45.50") == (45.5, "EUR")
    assert parse_money("2k dollars") == (2000.0, "USD")
    assert parse_money("no number") == (None, None)


def test_relative_dates_resolve_against_event_time() -> None:
    def first(text: str) -> str:
        return find_times(text, BASE)[0].value.date().isoformat()

    assert first("I saw it yesterday") == "2024-05-07"
    assert first("let's meet next Friday") == "2024-05-10"
    assert first("I moved last week") == "2024-05-01"
    assert first("明天") == "2024-05-09"
    assert first("下周五") == "2024-05-17"
    assert find_times("nothing temporal here", BASE) == []


def test_clock_times_in_english_and_chinese() -> None:
    assert parse_clock("at 3pm") == (15, 0)
    assert parse_clock("下午三点半") == (15, 30)
    assert parse_clock("at 9:05") == (9, 5)
    assert parse_clock("no time") is None
    assert parse_session_date("1:56 pm on 8 May, 2023") == datetime(
        2023, 5, 8, 13, 56, tzinfo=timezone.utc
    )


def test_meeting_becomes_an_event_with_resolved_time_and_participant() -> None:
    (event,) = _fields("move tomorrow's 3pm meeting with Mr. Zhang to 4pm and notify him", "Event")
    assert event["when"] == "2024-05-09T16:00:00+00:00"
    assert event["participants"] == ["Zhang"]
    (zh,) = _fields("明天下午三点和张先生开会", "Event")
    assert zh["when"] == "2024-05-09T15:00:00+00:00"


def test_entities_skip_sentence_words_and_keep_names() -> None:
    names = {e.name for e in find_entities("Hey Mel! Yesterday I met Dr. Smith in New York.")}
    assert {"Mel", "Smith", "New York"} <= names and "Hey" not in names and "Yesterday" not in names


def test_small_talk_and_unmatched_languages_extract_nothing() -> None:
    assert extract("thanks!", event_time=BASE) == []
    assert extract("Das Wetter ist schön", event_time=BASE) == []


def test_task_hints_split_constraints_and_decisions() -> None:
    hints = task_hints(["The hotel must be near the station. Let's book the Hilton. Any ideas?"])
    assert hints.constraints == ["The hotel must be near the station."]
    assert hints.decisions == ["Let's book the Hilton."]


def test_named_speakers_own_their_preferences_and_facts() -> None:
    found = extract(
        "I love live music. My goal is to run a marathon", event_time=BASE, speaker="Mel"
    )
    pref = next(c.fields for c in found if c.schema == "Preference")
    fact = next(c.fields for c in found if c.schema == "Fact")
    assert pref["holder"] == "Mel" and fact["subject"] == "Mel"
    plain = extract("I love live music", event_time=BASE, speaker="user")
    assert "holder" not in plain[0].fields  # the schema default: "user"


def test_praise_clauses_are_not_preferences() -> None:
    assert _fields("I love how you paint", "Preference") == []
    assert _fields("I like what you did there", "Preference") == []


@pytest.mark.parametrize(
    "text, base, expected",
    [
        # no tense cue: the date nearest the turn's time
        ("I have a meeting with Priya on May 13 at 10am", "2024-04-02", "2024-05-13"),
        ("dinner on 30 December", "2025-01-03", "2024-12-30"),
        ("Booked the hotel for May 14", "2024-03-11", "2024-05-14"),
        # a plan: on or after the turn's time
        ("We will fly to Lisbon on Feb 3rd", "2024-04-02", "2025-02-03"),
        ("I'm planning to visit on the 2nd of April", "2024-04-02", "2024-04-02"),
        # past tense: on or before the turn's time
        ("I went to Rome on May 13", "2024-04-02", "2023-05-13"),
        ("We visited my aunt on December 30", "2025-12-29", "2024-12-30"),
        # an explicit year is kept whatever the tense
        ("We will fly on Dec 1st, 2031", "2024-04-02", "2031-12-01"),
        # Chinese absolute dates without a year
        ("我打算2月3日去上海", "2024-04-02", "2025-02-03"),
        ("我5月13号去过上海", "2024-04-02", "2023-05-13"),
        ("五月十三号和张先生开会", "2024-04-02", "2024-05-13"),
        ("2022年5月13日", "2024-04-02", "2022-05-13"),
    ],
)
def test_dates_without_a_year_take_the_year_from_the_turn_time_and_tense(
    text: str, base: str, expected: str
) -> None:
    when = datetime.fromisoformat(base).replace(hour=9, tzinfo=timezone.utc)
    assert find_times(text, when)[0].value.date().isoformat() == expected


@pytest.mark.parametrize("year", [1999, 2024, 2031])
def test_dates_resolve_against_the_turn_time_never_today(year: int) -> None:
    base = datetime(year, 3, 4, 9, tzinfo=timezone.utc)

    def first(text: str) -> str:
        return find_times(text, base)[0].value.date().isoformat()

    assert first("meeting on May 13") == f"{year}-05-13"
    assert first("5月13日开会") == f"{year}-05-13"
    assert first("I saw him yesterday") == f"{year}-03-03"
    assert first("后天") == f"{year}-03-06"
    assert first("let's meet in 3 days") == f"{year}-03-07"
    assert first("I went there on Jan 2") == f"{year}-01-02"
    assert first("we will go on Jan 2") == f"{year + 1}-01-02"


def test_bare_weekday_is_the_next_one_for_a_plan_else_the_last_one() -> None:
    assert find_times("I will call her on Friday", BASE)[0].value.date().isoformat() == "2024-05-10"
    assert find_times("I called her on Friday", BASE)[0].value.date().isoformat() == "2024-05-03"


def test_event_of_a_meeting_said_in_april_is_dated_in_the_coming_may() -> None:
    base = datetime(2024, 4, 2, 8, 15, tzinfo=timezone.utc)
    text = "Quick one: I have a meeting with my manager Priya on May 13 at 10am"
    (event,) = [c for c in extract(text, event_time=base) if c.schema == "Event"]
    assert event.fields["when"] == "2024-05-13T10:00:00+00:00"
