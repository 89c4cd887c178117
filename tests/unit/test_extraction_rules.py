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


# -- general mechanisms (#18): examples written for these tests ---------------------------
from prism_memory.extraction.english_words import normalize_attribute, third_person  # noqa: E402
from prism_memory.extraction.reconcile import accumulate  # noqa: E402
from prism_memory.extraction.schemas import SchemaRegistry  # noqa: E402
from prism_memory.extraction.sentences import (  # noqa: E402
    drop_quotes,
    speech_act,
    split_clauses,
    split_sentences,
)

SAT = datetime(2025, 9, 13, 10, 0, tzinfo=timezone.utc)  # a Saturday
REG = SchemaRegistry()


def _all(text: str, speaker: str | None = "Kofi", base: datetime = SAT) -> list[object]:
    return extract(text, event_time=base, speaker=speaker)


def _texts(text: str, speaker: str | None = "Kofi", base: datetime = SAT) -> list[str]:
    out = []
    for c in extract(text, event_time=base, speaker=speaker):
        spec = REG.get(c.schema)
        out.append(spec.text(spec.validate_fields(c.fields)))
    return out


def test_sentences_split_at_sentence_ends_not_at_abbreviations() -> None:
    text = "I see Dr. Okoye at St. Jude's clinic, e.g. for check-ups. It costs 3.5 euros! Ok?"
    assert split_sentences(text) == [
        "I see Dr. Okoye at St. Jude's clinic, e.g. for check-ups.",
        "It costs 3.5 euros!",
        "Ok?",
    ]
    assert split_sentences("J. R. R. Tolkien is my favourite author. 我喜欢猫。你呢？") == [
        "J. R. R. Tolkien is my favourite author.",
        "我喜欢猫。",
        "你呢？",
    ]


def test_clauses_split_at_clause_boundaries_and_keep_compound_subjects() -> None:
    assert split_clauses("I teach maths, and I coach hockey on weekends") == [
        "I teach maths",
        "I coach hockey on weekends",
    ]
    assert split_clauses("My brother Sam and I share a flat") == [
        "My brother Sam and I share a flat"
    ]


def test_an_abbreviation_stays_inside_the_value() -> None:
    (job,) = [
        c.fields for c in _all("I'm a pharmacist at St. Luke's clinic.") if c.schema == "Fact"
    ]
    assert job["attribute"] == "occupation" and job["value"] == "pharmacist at St. Luke's clinic"


@pytest.mark.parametrize(
    "text, act",
    [
        ("Shall we grab lunch tomorrow at noon?", "question"),
        ("Any tips for a rainy weekend in Ghent", "question"),
        ("If I ever get a dog, I'd name it Pickle.", "hypothetical"),
        ("Imagine I retired at fifty, would that work?", "question"),
        ("Suppose I switched banks next month.", "hypothetical"),
        ("My neighbour says the river floods every spring.", "reported"),
        ("Oh great, I just LOVE doing laundry at midnight.", "sarcasm"),
        ("Yeah right, mornings are my favourite.", "sarcasm"),
        ("I wish I could play the cello.", "wish"),
        ("Cool, thanks a lot!", "chitchat"),
        ("如果明年换工作，我会搬家。", "hypothetical"),
        ("你周末有空吗？", "question"),
        ("对啊，我最喜欢排队了，真开心。", "sarcasm"),
        ("I coach a youth hockey team.", "statement"),
    ],
)
def test_speech_acts(text: str, act: str) -> None:
    assert speech_act(text) == act


@pytest.mark.parametrize(
    "text",
    [
        "Shall we grab lunch tomorrow at noon?",
        "If I ever get a dog, I'd name it Pickle.",
        "My neighbour says the river floods every spring.",
        "Oh great, I just LOVE doing laundry at midnight.",
        "I wish I could play the cello.",
        "I think the second film was better.",
        "There's a sign at work that says 'I love Mondays'.",
        "I'd probably move to the coast if I could.",
        "You should try the falafel place on Dock Street.",
        "Cool, thanks a lot!",
        "要是下雨的话，我们就改天再去。",
    ],
)
def test_what_states_no_fact_yields_no_candidate(text: str) -> None:
    assert _all(text) == []


def test_quoted_speech_is_dropped_but_a_quoted_title_is_kept() -> None:
    assert "Pickle" not in drop_quotes("The card said 'I adore Pickle' on it")
    assert drop_quotes('I read "Dune" twice') == "I read Dune twice"


@pytest.mark.parametrize(
    "text, attribute, value",
    [
        ("I live in Tallinn with my partner.", "home city", "Tallinn with their partner"),
        ("We moved to Porto in 2021.", "home city", "Porto"),
        ("I work for a small shipping firm.", "workplace", "a small shipping firm"),
        ("I'm now a product designer at a bank.", "occupation", "product designer at a bank"),
        ("I've been vegan for years.", "diet", "vegan"),
        ("I'm on 61,000 a year.", "salary", "61000 a year"),
        ("I bike to work most days.", "commute", "bikes to work most days"),
        ("I drive an old Volvo estate.", "car", "old Volvo estate"),
        ("Please call me Jo.", "preferred name", "Jo"),
        ("I'm 38 years old.", "age", "38"),
        ("My monthly phone bill is 25 dollars.", "phone bill", "25 dollars"),
    ],
)
def test_slot_facts_get_a_normalised_attribute(text: str, attribute: str, value: str) -> None:
    facts = [c.fields for c in _all(text) if c.schema == "Fact"]
    assert any(f["attribute"] == attribute and f["value"] == value for f in facts), facts


def test_budget_with_a_qualifier_and_a_later_amount_share_the_slot() -> None:
    (first,) = [c.fields for c in _all("My budget for the flat is 900 pounds a month.")]
    (later,) = [c.fields for c in _all("We can afford up to 1,050 pounds now.")]
    assert first["attribute"] == later["attribute"] == "budget"
    assert (first["amount"], later["amount"]) == (900.0, 1050.0)


def test_attribute_names_are_normalised() -> None:
    assert normalize_attribute("monthly rent") == normalize_attribute("rent") == "rent"
    assert normalize_attribute("new car") == "car" and normalize_attribute("job") == "occupation"
    rent = next(c.fields for c in _all("The landlord raised our rent to 760 euros."))
    assert rent["attribute"] == "rent" and rent["amount"] == 760.0


def test_statements_that_hold_many_values_are_keyed_with_their_value() -> None:
    (cello,) = _all("I play the cello in an amateur orchestra.")
    (chess,) = _all("I play chess online most evenings.")
    assert cello.key and chess.key and cello.key != chess.key
    assert _texts("I play the cello in an amateur orchestra.") == [
        "Kofi plays the cello in an amateur orchestra"
    ]


def test_preferences_with_negation_habits_and_phrases() -> None:
    assert _texts("I don't drink coffee after lunch.") == ["Kofi avoids coffee after lunch"]
    assert _texts("I'm not a fan of crowded beaches.") == ["Kofi dislikes crowded beaches"]
    assert _texts("I usually book a room on a high floor.") == ["Kofi likes room on a high floor"]
    assert _texts("Lately I've been really into bouldering.") == ["Kofi likes bouldering"]
    assert _texts("I loved climbing trees as a kid.") == []  # a past liking is not a current one


def test_third_party_facts_are_attributed_to_the_named_person() -> None:
    found = _all("My cousin Ravi works as an electrician in Leeds and he hates spiders.")
    (person,) = [c for c in found if c.schema == "Person"]
    assert person.fields["name"] == "Ravi" and person.fields["relationship"] == "cousin"
    assert person.fields["attributes"] == ["occupation: electrician in Leeds", "dislikes spiders"]
    assert not [c for c in found if c.schema in ("Fact", "Preference")]  # nothing about Kofi
    zh = _all("我表哥李强是工程师，在成都工作。")
    (card,) = [c for c in zh if c.schema == "Person"]
    assert card.fields["name"] == "李强" and "occupation: 工程师" in card.fields["attributes"]


def test_a_known_person_is_a_subject_in_a_later_turn() -> None:
    found = extract("Ravi quit his job, he's a plumber now.", event_time=SAT, people={"Ravi"})
    (person,) = [c for c in found if c.schema == "Person"]
    assert "occupation: plumber" in person.fields["attributes"]


def test_keyed_card_entries_replace_the_same_key() -> None:
    merged, replaced = accumulate(["occupation: nurse", "likes tea"], ["occupation: plumber"])
    assert merged == ["occupation: plumber", "likes tea"] and replaced
    assert accumulate(["likes tea"], ["likes jam"]) == (["likes tea", "likes jam"], False)


@pytest.mark.parametrize(
    "text, when",
    [
        ("I'm seeing the optician the day after tomorrow.", "2025-09-15"),
        ("I fly to Nairobi next Wednesday.", "2025-09-17"),
        ("My thesis defence is a fortnight from today.", "2025-09-27"),
        ("I had a flu jab last Tuesday.", "2025-09-09"),
        ("We're repainting the kitchen in ten days.", "2025-09-23"),
        ("I'm running a half marathon in November.", "2025-11"),
        ("I started at the bakery in 2019.", "2019"),
        ("后天我要去杭州开会。", "2025-09-15"),
        ("下个月3号我们搬家。", "2025-10-03"),
        ("上周四我们去了博物馆。", "2025-09-04"),
    ],
)
def test_events_get_absolute_dates_resolved_against_the_turn_time(text: str, when: str) -> None:
    events = [c for c in _all(text) if c.schema == "Event"]
    assert events and str(events[0].fields["when"]).startswith(when), events


def test_questions_never_become_events() -> None:
    assert [c for c in _all("How about dinner tonight at 8pm?") if c.schema == "Event"] == []


def test_event_descriptions_are_third_person_without_the_relative_date() -> None:
    (text,) = _texts("I have a vet appointment for my dog tomorrow at 9am.")
    assert text == "Kofi has a vet appointment for their dog (2025-09-14 09:00)"


def test_a_change_names_what_it_replaces() -> None:
    (event,) = [c for c in _all("The clinic moved my MRI scan to Friday, October 3.")]
    assert event.schema == "Event" and event.fields["when"].startswith("2025-10-03")
    assert event.retire == ["mri"]  # a name in the phrase identifies it
    (flight,) = _all("Change of plans, the Lagos flight is now on October 9.")
    assert flight.retire == ["lagos"]
    (zh,) = [c for c in _all("国庆的计划改了，我们改去青岛。") if c.schema == "Event"]
    assert zh.retire_date == "2025-10-01"


def test_third_person_rendering() -> None:
    assert third_person("I'm flying to Oslo with my sister", "Ines") == (
        "Ines is flying to Oslo with their sister"
    )
    assert third_person("My sister and I run a cafe", "Ines") == "Ines's sister and Ines run a cafe"
