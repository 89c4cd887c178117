"""English clause-level rules: what a clause states whatever its subject.

Design:
- Each rule is a pure function of the clause and its holder (the speaker's name, or "user")
  returning candidates: ``stated_changes`` ("HR moved my review to Monday", "the landlord
  raised our rent to 1,950": the new value, and the words of what it retires), ``requests``
  ("call me Sam", "oat milk, please", a standing reply style), ``budgets``, ``favourites``,
  ``next_thing`` ("going with the Corolla as my next car") and ``counts`` ("I have 3 cats").
- They run on every clause beside the subject + predicate reading of
  ``clauses.EnglishExtractor``, which passes the holder in; no state is kept here.
- ``is_reply_instruction`` is shared with the change reader (``change.py``).
"""

from __future__ import annotations

import re
from typing import Any

from .candidate import FactCandidate
from .dates import TimeMention
from .english_predicate import Subject
from .english_slots import (
    fact_candidate,
    preference_candidate,
    stated_change,
)
from .english_words import (
    clean_obj,
    clean_value,
    normalize_attribute,
    possessive_value,
    singular_noun,
    strip_article,
    topic_words,
    without_times,
)
from .lexicon_grammar import (
    ADVERBS,
    DETERMINERS,
    PREPOSITIONS,
    PRONOUN_OBJECTS,
)
from .lexicon_nouns import (
    COUNT_AFTER,
    UNIT_NOUNS,
)
from .patterns import BUDGET, read_money

__all__ = [
    "budgets",
    "counts",
    "favourites",
    "is_reply_instruction",
    "next_thing",
    "requests",
    "stated_changes",
]
_NEEDS = re.compile(
    r"^\s*(?:an?\s+|some\s+)?(?P<obj>[\w][\w' -]{1,60}?)\s*,?\s+please\s*$|"
    r"^\s*(?:please\s+)?(?:book|get|reserve|find)\s+me\s+(?:an?\s+|some\s+)?(?P<obj2>[^,;]{2,60})$",
    re.I,
)
# a standing instruction on how the assistant communicates ("Please reply to me in Spanish",
# "From now on respond only in French"): an imperative of a verb of communicating
_REPLY_STYLE = re.compile(
    r"^\s*(?:(?:please|kindly|from\s+now\s+on|going\s+forward|in\s+future|always|only)"
    r"\s*,?\s+)*(?P<verb>reply|respond|answer|write|talk|speak|explain|address)\s+"
    r"(?:(?:back\s+)?to\s+(?:me|us)\s+)?(?P<rest>(?:only\s+|always\s+)?(?:in|with|using|as)\s+"
    r"[^.?!;]{2,60}?)\s*(?:,?\s*please)?\s*$",
    re.I,
)

_STANDING = re.compile(
    r"\b(?:please|kindly|from\s+now\s+on|going\s+forward|in\s+future|always|only)\b", re.I
)
_WH = re.compile(r"\b(?:how|what|why|which|who|whether|if|when|where)\b", re.I)


def is_reply_instruction(text: str) -> bool:
    """Whether ``text`` tells the assistant how to reply ("From now on respond only in
    French"): an instruction of the speaker, about the speaker's own preference.

    >>> is_reply_instruction("Please reply to me in Spanish"), is_reply_instruction("I reply fast")
    (True, False)
    """
    m = _REPLY_STYLE.match(text.strip().rstrip(".!"))
    return (
        m is not None
        and _STANDING.search(text) is not None  # a standing instruction, not a one-off task
        and _WH.search(m.group("rest")) is None  # "explain in detail how X works" is a task
    )


_CALL_ME = re.compile(
    r"\b(?i:(?:please\s+)?call\s+me|I\s+go\s+by|my\s+(?:nick)?name\s+is|I\s+am\s+called|"
    r"everyone\s+calls\s+me|friends\s+call\s+me|you\s+can\s+call\s+me)\s+"
    r"(?P<name>[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?)",
)
_FAVOURITE_A = re.compile(
    r"^(?:and\s+)?(?P<obj>[A-Z\d][^,;]{0,50}?)\s+(?:is|are)\s+(?:definitely\s+|still\s+|easily\s+|"
    r"probably\s+|totally\s+)?(?:my|our)\s+(?:all-time\s+|absolute\s+|new\s+|current\s+)?"
    r"(?:favou?rite|weakness|thing|jam|go-to|guilty pleasure|comfort food|happy place)"
    r"(?:\s+(?P<cat>[a-z]+(?:\s[a-z]+)?))?\s*(?:,|$)",
    re.I,
)
_FAVOURITE_B = re.compile(
    r"\b(?:my|our)\s+(?:all-time\s+|absolute\s+|new\s+|current\s+)?favou?rite\s+"
    r"(?P<cat>[a-z][a-z ]{1,30}?)\s+(?:is|are|has been|was)\s+(?:still\s+|now\s+|definitely\s+)?"
    r"(?P<obj>[^,;]{2,60})(?:,|$)",
    re.I,
)
# "peanuts make me sick", "dairy doesn't agree with me": something the speaker avoids
_MAKES_ME_ILL = re.compile(
    r"^(?P<obj>[A-Za-z][\w' -]{1,40}?)\s+(?:makes?|gives?|made|give|gave)\s+me\s+(?:really\s+|so\s+|very\s+)?"
    r"(?:sick|ill|nauseous|queasy|itchy|bloated|a\s+headache|headaches|migraines?|a\s+migraine|"
    r"heartburn|a\s+rash|hives)\b|"
    r"^(?P<obj2>[A-Za-z][\w' -]{1,40}?)\s+(?:does|do)\s+not\s+agree\s+with\s+me\b",
    re.I,
)
# "Jazz is what I listen to most": a pseudo-cleft stating a preference
_WHAT_I = re.compile(
    r"^(?P<obj>[A-Za-z][\w' -]{1,40}?)\s+(?:is|are)\s+(?:what|all)\s+I\s+(?:usually\s+|mostly\s+|always\s+)?"
    r"(?:listen\s+to|eat|drink|watch|read|play|use|wear|cook|order|buy|choose|pick|live\s+for)\b",
    re.I,
)
_NEXT_THING = re.compile(
    r"\b(?:get|getting|buy|buying|choose|choosing|chose|pick|picking|picked|go with|going with|"
    r"leaning towards?|considering|ordered|order|bought|got|settled on|decided on|went with|"
    r"thinking of getting|looking at)\s+(?:an?\s+|the\s+)?(?P<val>[^,;]{2,40}?)\s+(?:now\s+)?"
    r"(?:as|for)\s+(?:my|our)\s+(?:next|new|future|first)\s+(?P<slot>[a-z][a-z ]{1,20}?)(?:\s+now)?$",
    re.I,
)
_COUNT = re.compile(
    r"(?<![\d.,])(?P<n>\d{1,6})\s+(?P<noun>[a-z][a-z-]{2,20})\b(?!\s+(?:old|of\s+(?:them|us)))",
    re.I,
)
_LIST_TOPIC = re.compile(r"\b(?P<noun>[a-z]{3,20})\s+(?:list|count|number|total|tally)\b", re.I)
_AT_NUMBER = re.compile(
    r"\b(?:at|to|up to|down to|now)\s+(?P<n>\d{1,6})(?![\d.,%])"
    r"(?!\s*(?:percent|dollars?|euros?|pounds?|bucks|kg|km|miles?|am|pm|o'clock)\b)",
    re.I,
)


def stated_changes(
    clause: str, times: list[TimeMention], speaker: str, person: str | None
) -> list[FactCandidate]:
    """A stated change ("my rent went up to 1,400", "the meeting is now on the 5th"): the
    new value of the thing (a fact), or, when a date is the new value, the moved event;
    both retire what the thing's words name."""
    said = stated_change(clause)
    if said is None:
        return []
    thing, new, own = said
    holder = (person or speaker) if own in ("his", "her") else speaker
    new = clean_value(new)
    thing_clean = re.sub(r"\s+(?:up|back)$", "", thing.strip())
    attr = normalize_attribute(thing_clean)
    retire = topic_words(thing_clean)
    if attr in ("plan", "plans", "trip", "holiday") and not retire:
        retire = [attr]
    new_at = clause.find(new)
    dated = [t for t in times if new_at >= 0 and abs(t.start - new_at) <= 4]
    if dated:
        when = dated[0]
        owner = holder if holder != "user" else None
        desc = f"{owner + chr(39) + 's' if owner else 'User' + chr(39) + 's'} {thing_clean}"
        if own == "the":
            desc = thing_clean[:1].upper() + thing_clean[1:]
        fields: dict[str, Any] = {
            "description": desc,
            "actor": owner,
            "participants": [],
            "when": when.iso(),
        }
        return [FactCandidate("Event", fields, 0.75, 0.7, event_time=when.value, retire=retire)]
    new = clean_value(without_times(re.split(r",\s*", new)[0], times))
    if not new:
        return []
    amount, unit = read_money(new) if re.search(r"\d", new) else (None, None)
    values: dict[str, Any] = {
        "attribute": attr,
        "value": possessive_value(new),
        "subject": holder,
    }
    if amount is not None:
        values.update(amount=amount, unit=unit)
    return [FactCandidate("Fact", values, 0.8, 0.7, retire=retire if own == "the" else [])]


def requests(clause: str, holder: str) -> list[FactCandidate]:
    """A standing reply style ("please reply in Spanish"), a name to be called ("call me
    Sam") or a need stated as a request ("oat milk, please"), held by ``holder``."""
    out = []
    m = _REPLY_STYLE.match(clause)
    if m and is_reply_instruction(clause):
        fields: dict[str, Any] = {
            "subject": "replies " + " ".join(m.group("rest").split()),
            "polarity": "like",
            "category": "how to reply",
            "reasons": [],
        }
        if holder != "user":
            fields["holder"] = holder
        out.append(FactCandidate("Preference", fields, 0.8, 0.7))
    m = _CALL_ME.search(clause)
    if m:
        out.append(fact_candidate(holder, "preferred name", m.group("name"), 0.85, 0.7))
    m = _NEEDS.match(clause)
    if m and not re.match(r"^\s*(?:I|we|you|he|she|they|it|that|this)\b", clause, re.I):
        obj = clean_obj(m.group("obj") or m.group("obj2") or "")
        if (
            obj
            and obj.lower() not in PRONOUN_OBJECTS
            and not re.match(
                r"^(?:yes|no|ok|okay|sure|thanks|thank you|help|hi|hello|one more|more|another|just)\b",
                obj,
                re.I,
            )
        ):
            fields = {"subject": obj, "polarity": "need", "reasons": []}
            if holder != "user":
                fields["holder"] = holder
            out.append(FactCandidate("Preference", fields, 0.7, 0.7))
    return out


def budgets(clause: str, holder: str) -> list[FactCandidate]:
    """The first budget the clause states ("my budget is $800 max"), as a money fact."""
    out = []
    for pattern in BUDGET:
        for m in pattern.finditer(clause):
            rest = re.sub(
                r"\s*\b(?:now|then|instead|too|max|maximum|tops|on the trip|in total)\s*$",
                "",
                m.group("rest"),
            )
            value = (m.group("money") + rest).strip()
            amount, unit = read_money(value)
            if amount is None:
                continue
            fields: dict[str, Any] = {
                "attribute": "budget",
                "value": value,
                "amount": amount,
                "unit": unit,
            }
            if holder != "user":
                fields["subject"] = holder
            out.append(FactCandidate("Fact", fields, 0.85, 0.8))
            return out
    return out


def favourites(clause: str, holder: str) -> list[FactCandidate]:
    """A favourite ("my favourite band is X"; keyed per category), what makes ``holder`` ill
    (avoid) or "what I love is X" (like)."""
    text = clause.strip()
    for pattern, polarity in ((_MAKES_ME_ILL, "avoid"), (_WHAT_I, "like")):
        m = pattern.search(text)
        if m:
            obj = clean_obj(m.group("obj") or (m.groupdict().get("obj2") or ""))
            if obj:
                return [preference_candidate(holder, obj, polarity, 0.75)]
    for pattern in (_FAVOURITE_B, _FAVOURITE_A):
        m = pattern.search(text)
        if not m:
            continue
        obj = clean_obj(m.group("obj"))
        if not obj:
            continue
        obj = re.sub(r"^(?:and|but|so)\s+", "", obj, flags=re.I)
        fields: dict[str, Any] = {
            "subject": obj,
            "polarity": "like",
            "strength": 0.9,
            "reasons": [],
        }
        cat = m.group("cat")
        if cat:
            fields["category"] = cat.strip()
        if holder != "user":
            fields["holder"] = holder
        key = None
        if cat and pattern is _FAVOURITE_B:
            key = f"Preference|{holder.lower()}|favourite {cat.strip().lower()}"
        return [FactCandidate("Preference", fields, 0.85, 0.75, key=key)]
    return []


def next_thing(clause: str, holder: str) -> list[FactCandidate]:
    """ "Going with the Corolla as my next car": the value of the slot named after "next"
    (or "new", "first")."""
    m = _NEXT_THING.search(clause)
    if not m:
        return []
    slot = normalize_attribute(m.group("slot"))
    value = strip_article(clean_value(m.group("val")))
    return [fact_candidate(holder, slot, value, 0.75, 0.65)]


def counts(clause: str, subject: Subject | None, sentence: str, holder: str) -> list[FactCandidate]:
    """ "I have 3 cats" -> "number of cats"; in a sentence about a list ("my reading list"), a
    bare "at 12 now" counts its items; nothing when the subject is another person or a pet."""
    if subject is not None and subject.kind in ("person", "pet"):
        return []
    out = []
    for m in _COUNT.finditer(clause):
        noun = m.group("noun").lower()
        before = re.findall(r"[\w']+", clause[: m.start()].lower())
        if before and before[-1] not in COUNT_AFTER:
            continue  # "type 2 diabetes", "room 12 keys"
        if noun in UNIT_NOUNS or singular_noun(noun) in UNIT_NOUNS or not noun.endswith("s"):
            continue
        if noun in PREPOSITIONS or noun in DETERMINERS or noun in ADVERBS:
            continue
        n = m.group("n")
        key_noun = singular_noun(noun)
        out.append(
            FactCandidate(
                "Fact",
                {
                    "attribute": f"number of {noun}",
                    "value": f"{n} {noun}",
                    "amount": float(n),
                    "subject": holder,
                },
                0.7,
                0.6,
                key=f"Fact|{holder.lower()}|number of {key_noun}",
            )
        )
    if not out:
        topic = _LIST_TOPIC.search(sentence or clause)
        m2 = _AT_NUMBER.search(clause)
        if topic and m2:
            noun = topic.group("noun").lower()
            plural = noun if noun.endswith("s") else noun + "s"
            n = m2.group("n")
            out.append(
                FactCandidate(
                    "Fact",
                    {
                        "attribute": f"number of {plural}",
                        "value": f"{n} {plural}",
                        "amount": float(n),
                        "subject": holder,
                    },
                    0.65,
                    0.6,
                    key=f"Fact|{holder.lower()}|number of {singular_noun(noun)}",
                )
            )
    return out
