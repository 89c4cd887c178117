"""English slot rules: stage functions that turn a read clause into candidates.

Design:
- Each rule takes the predicate, the words after it and the holder, and returns candidates, or
  ``None`` when it does not apply: ``residence_slot`` ("I live in Leeds"), ``work_slot``,
  ``routine_slot``, ``history_slot``, ``copula_preference`` ("allergic to nuts"),
  ``copula_state`` ("I'm a morning person"); ``states_something`` guards the generic statement.
- ``stated_change`` reads a changed value ("my rent went up to 1,950"); ``without_date_words``
  and ``tidy_event_text`` make an event's text; ``possessed_subject`` reads "my monthly rent".
- ``fact_candidate`` and ``preference_candidate`` build every candidate of the English reader,
  so keys and values are rendered one way.
- Pure functions, no extractor state: ``clauses.EnglishExtractor`` decides which rule runs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from .candidate import FactCandidate
from .dates import TimeMention
from .english_predicate import Pred, Subject
from .english_words import (
    Tok,
    clean_obj,
    clean_value,
    looks_like_verb,
    possessive_value,
    strip_article,
    third_singular,
)
from .lexicon_grammar import (
    ADVERBS,
    BE,
    DETERMINERS,
    DO,
    FILLER_WORDS,
    HAVE,
    INTENSIFIERS,
    MODALS,
    MY_NOUN_STOP,
    OBJ_STOP,
    PREPOSITIONS,
    PRONOUN_OBJECTS,
    STATE_OPENERS,
)
from .lexicon_life import (
    DIET_RESTRICTIONS,
    DIETS,
)
from .lexicon_nouns import (
    EMOTION,
    PLACE_WORDS,
)
from .lexicon_verbs import (
    CHANGE_VERBS,
    COMMUTE_VERBS,
    DISLIKE_PHRASES,
    LIKE_PHRASES,
    STATE_CHANGE,
    TRAVEL_VERBS,
    VAGUE_VERBS,
)
from .patterns import MONEY, read_money

__all__ = [
    "SALARY",
    "copula_preference",
    "copula_state",
    "fact_candidate",
    "history_slot",
    "possessed_subject",
    "preference_candidate",
    "residence_slot",
    "routine_slot",
    "stated_change",
    "states_something",
    "tidy_event_text",
    "without_date_words",
    "work_slot",
]
_CHANGE = re.compile(
    rf"\b(?P<verb>{CHANGE_VERBS})(?:\s+(?:up|back|forward|out))?\s+(?P<own>my|our|the|his|her|their)\s+"
    r"(?P<thing>[\w' -]{2,40}?)\s+(?:(?:from\s+(?P<old>[^,;]{1,40}?)\s+)?(?:to|until|till|into|up to|down to)\s+)"
    r"(?P<new>[^;]{1,60}?)\s*$",
    re.I,
)
_NOW_VALUE = re.compile(
    r"(?:^|,\s*|\bso\s+)(?P<own>my|our|the|his|her)\s+(?P<thing>[\w' -]{2,40}?)\s+(?:is|are|will be)\s+"
    r"now\s+(?P<new>.{1,60}?)\s*$|"
    r"(?:^|,\s*|\bso\s+)(?P<own2>my|our|the|his|her)\s+(?P<thing2>[\w' -]{2,40}?)\s+(?:has|have)\s+"
    r"(?:been\s+)?(?:moved|changed|switched|rescheduled|pushed|postponed)\s+(?:back\s+|forward\s+)?"
    r"(?:to|until)\s+(?P<new2>.{1,60}?)\s*$",
    re.I,
)
_WENT_TO = re.compile(
    r"(?:^|,\s*|\bso\s+)(?:(?P<own>my|our|the|his|her)\s+)?(?P<thing>[\w' -]{2,40}?)\s+"
    r"(?:went|has gone|is going|goes|rose|has risen|fell|has fallen|jumped|dropped|increased|"
    r"decreased|climbed|grew|has grown|shrank|has shrunk|expanded)\s+(?:up\s+|down\s+)?"
    r"(?:to|by)\s+(?P<new>.{1,60}?)\s*$",
    re.I,
)
SALARY = re.compile(
    rf"{MONEY}\s*(?:a|per|/|each|every)\s*(?P<per>year|yr|annum|month|hour|hr|week)\b", re.I
)
# adjectives that describe a lasting state of a person, not a mood
_LASTING_STATE = re.compile(
    r"\b(?:pregnant|married|engaged|retired|divorced|single|widowed|left-handed|right-handed|"
    r"colou?r-?blind|deaf|blind|diabetic|asthmatic|introverted|extroverted|shy|tall|short)\b"
)


def stated_change(clause: str) -> tuple[str, str, str] | None:
    """``(thing, new value, owner word)`` of "my X changed to Y", "my X went up to 40" (a
    number) or "my X is now Y"; ``None``: no change stated (or "set/cut" without a number)."""
    m = _CHANGE.search(clause)
    thing = new = own = None
    if m:
        thing, new, own = m.group("thing"), m.group("new"), m.group("own").lower()
        if m.group("verb").lower() in ("set", "cut", "dropped", "reset") and not re.search(
            r"\d", new
        ):
            thing = None
    elif (m3 := _WENT_TO.search(clause)) and re.search(r"\d", m3.group("new")):
        thing, new, own = m3.group("thing"), m3.group("new"), (m3.group("own") or "my").lower()
    else:
        m2 = _NOW_VALUE.search(clause)
        if m2:
            thing = m2.group("thing") or m2.group("thing2")
            new = m2.group("new") or m2.group("new2")
            own = (m2.group("own") or m2.group("own2")).lower()
    if not thing or not new:
        return None
    return thing, new, own or ""


def possessed_subject(toks: Sequence[Tok], i: int, j: int) -> Subject | None:
    """Something owned ("my monthly rent"): the noun phrase from ``j`` up to the verb (at most
    five words); ``None`` when no verb follows or the phrase is no noun."""
    n = len(toks)
    k = j
    words = []
    while k < n and k < j + 5:
        w = toks[k].low
        if w in BE or w in HAVE or w in MODALS or w in DO or w in ("not",):
            break
        if k > j and (looks_like_verb(w) and w not in PREPOSITIONS):
            break
        if w in (",", "and") or w in OBJ_STOP or w in ("i", "we", "he", "she", "they", "you"):
            return None
        words.append(toks[k].text)
        k += 1
    if not words or k >= n or toks[j].low in MY_NOUN_STOP:
        return None
    if any("'" in w for w in words) or words[-1].lower().endswith("ed"):
        return None
    noun = " ".join(words)
    return Subject("possessed", None, noun=noun, start=i, end=k)


def without_date_words(clause: str, times: Sequence[TimeMention]) -> str:
    """``clause`` without its date phrases (and the "on", "next", "since" before them), clock
    times and "to the 5th" ranges."""
    text = clause
    for t in sorted(times, key=lambda x: -x.start):
        start = t.start
        end = t.end if t.end >= 0 else t.start + len(t.phrase)
        before = text[:start]
        pre = re.search(
            r"(?:\b(?:on|at|in|for|by|from|until|till|this|next|of|since|starting)\s+)+$",
            before,
            re.I,
        )
        if pre:
            start = pre.start()
        if text[end : end + 2] == "'s":
            end += 2
        text = text[:start] + text[end:]
    text = re.sub(
        r"\b(?:at|around|by|from)\s+\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)?(?=\W|$)",
        "",
        text,
        flags=re.I,
    )
    text = re.sub(
        r"(?:\b(?:to|until|till)\s+)?\b\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)",
        "",
        text,
        flags=re.I,
    )
    return re.sub(
        r"\b(?:to|until|till|through)\s+the\s+\d{1,2}(?:st|nd|rd|th)\b", "", text, flags=re.I
    )


def tidy_event_text(text: str) -> str:
    """An event's words without a trailing part of day, a dangling "is", openers ("so", "and
    then") and trailing "instead"/"again"; spaces and punctuation normalised."""
    text = re.sub(r"\s*\b(?:morning|afternoon|evening|night)\b\s*$", "", text.strip(), flags=re.I)
    text = re.sub(r"\s+", " ", text).strip(" ,;:-")
    text = re.sub(r"\s+([,.;:!?])", r"\1", text)
    text = re.sub(r"\s+(?:is|are|was|were|will be)$", "", text)
    text = re.sub(
        r"^(?:(?:just|so|and|but|also|oh|well|anyway|now|then|actually)\s+)+",
        "",
        text,
        flags=re.I,
    )
    return re.sub(r"\s+(?:instead|now|again|too|as well)$", "", text, flags=re.I)


def residence_slot(p: Pred, rest: str, holder: str) -> list[FactCandidate] | None:
    """ "I live in Leeds"; "I moved to Oslo" (home city) or "to the Paris office" (workplace)."""
    verb = p.lemma
    rest_low = rest.lower()
    if verb == "live" and re.match(r"^(?:in|on|near|at|outside|just outside)\b", rest_low):
        place = re.sub(r"^(?:in|on|near|at|outside|just outside)\s+", "", rest, flags=re.I)
        return [fact_candidate(holder, "home city", place, 0.8, 0.7)]
    if (
        verb in ("move", "relocate")
        and p.tense in ("past", "perfect")
        and re.match(r"^(?:to|into|in)\b", rest_low)
    ):
        place = re.sub(r"^(?:to|into|in)\s+", "", rest, flags=re.I)
        if re.search(
            r"\b(?:office|branch|team|department|division|site|campus|company|firm|role|job)\b",
            place,
            re.I,
        ):
            return [fact_candidate(holder, "workplace", place, 0.75, 0.65)]
        if place[:1].isupper() or re.search(r"\b[A-Z]\w+", place):
            return [fact_candidate(holder, "home city", place, 0.8, 0.7)]
    return None


def work_slot(p: Pred, rest: str, holder: str) -> list[FactCandidate] | None:
    """ "I work out", "I work as a nurse", "from home", "at Acme as an analyst", "for Acme"."""
    if p.lemma != "work":
        return None
    if p.particle == "out":
        value = rest or "works out"
        return [fact_candidate(holder, "workout", value, 0.65, 0.55, predicate="works out")]
    m = re.match(r"^as\s+(?P<v>.+)$", rest, re.I)
    if m:
        return [fact_candidate(holder, "occupation", strip_article(m.group("v")), 0.8, 0.7)]
    m = re.match(r"^from\s+home\b\s*(?P<v>.*)$", rest, re.I)
    if m:
        value = m.group("v") or "works from home"
        return [fact_candidate(holder, "remote work", value, 0.7, 0.6, predicate="works from home")]
    m = re.match(r"^(?:at|for)\s+(?P<v>.+?)\s+as\s+(?:an?\s+)?(?P<j>.+)$", rest, re.I)
    if m:
        return [
            fact_candidate(holder, "workplace", m.group("v"), 0.75, 0.7),
            fact_candidate(holder, "occupation", m.group("j"), 0.75, 0.7),
        ]
    m = re.match(r"^(?:at|for)\s+(?P<v>[^,;]+?)(?:\s+(?:to|so|because)\s.*)?$", rest, re.I)
    if m:
        return [fact_candidate(holder, "workplace", m.group("v"), 0.75, 0.7)]
    m = re.match(r"^in\s+(?P<v>[A-Z].+)$", rest)
    if m:
        return [fact_candidate(holder, "workplace", m.group("v"), 0.7, 0.65)]
    return None


def routine_slot(p: Pred, rest: str, holder: str) -> list[FactCandidate] | None:
    """ "I cycle to work" (commute), "I drive a Golf" (car), "I earn 60k" (salary)."""
    verb = p.lemma
    rest_low = rest.lower()
    to_work = re.search(r"\bto\s+(?:work|the office|school|campus|class)\b", rest_low)
    if to_work and (
        verb in COMMUTE_VERBS or (verb == "take" and re.match(r"^(?:the|a)\s+\w+\s+to\s", rest_low))
    ):
        phrase = (third_singular(p.verb) if p.tense == "present" else p.verb) + " " + rest
        return [fact_candidate(holder, "commute", possessive_value(phrase.strip()), 0.7, 0.6)]
    if (
        verb == "drive"
        and re.match(r"^(?:an?|the|my|our)\s+", rest_low)
        and not re.search(r"\bto\b", rest_low)
    ):
        return [fact_candidate(holder, "car", strip_article(rest), 0.75, 0.6)]
    if verb in ("earn", "make", "get") and SALARY.search(rest):
        return [fact_candidate(holder, "salary", rest, 0.8, 0.7, money=True)]
    return None


def history_slot(p: Pred, rest: str, holder: str) -> list[FactCandidate] | None:
    """ "I started a new job at Acme" (workplace), "I studied law" (education), "I grew up in
    Cork" (hometown), "I just turned 40" (age)."""
    verb = p.lemma
    rest_low = rest.lower()
    if verb in ("start", "begin", "join", "get", "land", "accept", "take", "find", "have"):
        m = re.search(
            r"^(?:(?:a|an|my|the)\s+)?(?:new\s+|first\s+|dream\s+|full-time\s+|part-time\s+)*"
            r"(?:job|role|position|post|work|working|gig|internship)\s+(?:at|with|for)\s+(?P<v>[^,;]+)$",
            rest,
            re.I,
        )
        if m:
            return [fact_candidate(holder, "workplace", m.group("v"), 0.8, 0.7)]
    if verb in ("study", "major", "graduate") and rest and p.tense in ("past", "perfect"):
        phrase = (third_singular(p.verb) if p.tense == "present" else p.verb) + " " + rest
        return [fact_candidate(holder, "education", possessive_value(phrase), 0.75, 0.6)]
    if verb == "grow" and p.particle == "up" and re.match(r"^(?:in|near|outside|on)\s", rest_low):
        return [fact_candidate(holder, "hometown", re.sub(r"^\w+\s+", "", rest), 0.75, 0.6)]
    m = re.match(r"^(?P<n>\d{1,3})(?:\s+years?\s+old)?$", rest_low)
    if verb == "turn" and m and 0 < int(m.group("n")) < 125:
        return [fact_candidate(holder, "age", m.group("n"), 0.8, 0.6, amount=float(m.group("n")))]
    return None


def copula_preference(p: Pred, rest: str, holder: str) -> list[FactCandidate] | None:
    """An allergy ("allergic to nuts"), a diet ("vegan"), a dietary restriction or a preference
    phrase ("a big fan of jazz", "not into horror") after a copula; ``None``: none of them."""
    low = rest.lower()
    m = re.match(
        r"^(?:very\s+|severely\s+|mildly\s+|deathly\s+)?allergic\s+to\s+(?P<o>.+)$", rest, re.I
    )
    if m:
        obj = clean_obj(m.group("o"))
        return [preference_candidate(holder, obj, "avoid", 0.9)] if obj else []
    diet = _diet(p, low, holder)
    if diet is not None:
        return diet
    for phrase in LIKE_PHRASES:
        if low.startswith(phrase + " "):
            obj = clean_obj(rest[len(phrase) + 1 :])
            if obj:
                return [
                    preference_candidate(
                        holder, strip_article(obj), "dislike" if p.neg else "like", 0.75
                    )
                ]
    for phrase in DISLIKE_PHRASES:
        if low.startswith(phrase + " "):
            obj = clean_obj(rest[len(phrase) + 1 :])
            if obj:
                return [preference_candidate(holder, strip_article(obj), "dislike", 0.75)]
    return None


def _diet(p: Pred, low: str, holder: str) -> list[FactCandidate] | None:
    """ "(now fully) vegan" -> a diet, "gluten-free" -> a dietary restriction; negated: nothing
    (``[]``); ``None``: no diet named."""
    for diet in DIETS:
        if re.match(
            rf"^(?:(?:a|an|now|fully|strictly|mostly|completely|100%|basically|pretty much|gone)\s+)*{re.escape(diet)}\b",
            low,
        ):
            if p.neg:
                return []
            return [fact_candidate(holder, "diet", diet, 0.85, 0.75)]
    for diet in DIET_RESTRICTIONS:
        if re.match(
            rf"^(?:(?:a|an|now|fully|strictly|mostly|severely|completely|very)\s+)*{re.escape(diet)}\b",
            low,
        ):
            if p.neg:
                return []
            key = "Fact|" + holder.lower() + "|restriction|" + diet.split()[0].split("-")[0]
            fields = {"attribute": "dietary restriction", "value": diet, "subject": holder}
            return [FactCandidate("Fact", fields, 0.85, 0.75, key=key)]
    return None


def copula_state(
    subject: Subject, p: Pred, rest: str, holder: str, times: Sequence[TimeMention]
) -> list[FactCandidate]:
    """A lasting state of a person ("I'm a morning person", "she is in her second year"),
    keyed with its value; not an emotion, a place, a dated whereabouts or a passing activity."""
    low = rest.lower()
    if subject.kind not in ("self", "person"):
        return []
    first = low.split()[0] if low.split() else ""
    if (first in EMOTION and first not in PLACE_WORDS) or first in INTENSIFIERS:
        return []
    if low in PLACE_WORDS:
        return []
    if times:
        return []  # "I am at the dentist tomorrow": the event says it
    words = re.findall(r"[A-Za-z\d%]+", rest)
    has_article = first in ("a", "an", "the", "one", "part")
    stated = (
        has_article
        or p.habitual
        or re.search(r"\d", rest)
        or (len(words) >= 3 and first in STATE_OPENERS)
        or _LASTING_STATE.search(low)
    )
    if not stated:
        return []
    if re.match(
        r"^(?:in|at|on)\s+(?:the\s+)?(?:car|bus|train|way|middle|process|mood|kitchen|office|hospital|gym|shower|meeting)\b",
        low,
    ):
        return []
    be = "is" if p.tense != "past" else "was"
    if p.tense == "perfect" or "been" in p.aux:
        be = "has been"
    value = possessive_value(rest)
    fields = {"attribute": "is", "value": value, "predicate": be, "subject": holder}
    key = f"Fact|{holder.lower()}|be|{value.lower()}"
    return [FactCandidate("Fact", fields, 0.6, 0.55, key=key, generic=True)]


def states_something(subject: Subject, p: Pred, rest: str, times: Sequence[TimeMention]) -> bool:
    """Whether a clause left to the generic statement says something durable: not past (but a
    change of state), not modal, not subordinate, not vague; not a dated trip; a complement with
    content words, not a pronoun or "a lot"."""
    verb = p.lemma
    rest_low = rest.lower()
    if p.tense == "past" and verb not in STATE_CHANGE:
        return False
    if p.modal is not None or subject.subordinate or verb in VAGUE_VERBS:
        return False
    if p.tense == "progressive" and verb in TRAVEL_VERBS and times:
        return False  # a dated trip: the event says it
    if not rest or len(re.findall(r"[A-Za-z\d]{2,}", rest)) < 1:
        return False
    if rest_low in ("a lot", "lots", "much", "often", "sometimes", "there", "here", "it"):
        return False
    first_word = rest_low.split()[0].strip(",.;:!")
    if first_word in PRONOUN_OBJECTS and first_word not in ("one",):
        return False
    content = [
        w
        for w in re.findall(r"[a-z\d][\w'-]*", rest_low)
        if w not in PREPOSITIONS
        and w not in DETERMINERS
        and w not in PRONOUN_OBJECTS
        and w not in ADVERBS
        and w not in FILLER_WORDS
    ]
    return bool(content)


def fact_candidate(
    holder: str,
    attribute: str,
    value: str,
    confidence: float,
    importance: float,
    *,
    amount: float | None = None,
    money: bool = False,
    predicate: str | None = None,
) -> FactCandidate:
    """A ``Fact`` candidate of ``holder``: the value cleaned and told from the holder's side;
    with ``money`` (or an ``amount``) the amount and unit read from the value.

    >>> fact_candidate("user", "home city", "Leeds, please", 0.8, 0.7).fields["value"]
    'Leeds'
    """
    fields: dict[str, Any] = {
        "attribute": attribute,
        "value": possessive_value(clean_value(value)),
        "subject": holder,
    }
    if money or amount is not None:
        if amount is None:
            amount, unit = read_money(value)
            fields["unit"] = unit
        fields["amount"] = amount
    if predicate:
        fields["predicate"] = predicate
    return FactCandidate("Fact", fields, confidence, importance)


def preference_candidate(
    holder: str, subject: str | None, polarity: str, confidence: float
) -> FactCandidate:
    """A ``Preference`` candidate: ``subject`` told from the holder's side, ``polarity``
    (like, dislike, avoid, need); the holder is named unless it is the user.

    >>> preference_candidate("Anna", "my cooking", "like", 0.8).fields
    {'subject': 'their cooking', 'polarity': 'like', 'holder': 'Anna'}
    """
    if subject:
        subject = possessive_value(re.sub(r"\s+yet$", "", subject))
    fields: dict[str, Any] = {"subject": subject, "polarity": polarity}
    if holder != "user":
        fields["holder"] = holder
    return FactCandidate("Preference", fields, confidence, 0.7)
