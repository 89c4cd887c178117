"""English dated events: whether a dated clause tells an event, and the Event it yields.

Design:
- ``eventful(toks, subject, pred)`` decides from the predicate (no hedge, wish, thought or
  habit) and the opening words (no request, no non-event opener, not subordinate) whether a
  clause with a date tells something that happens.
- ``dated_event`` renders it: the clause without its date words (``english_slots``), told in
  the third person, dated by its first date, with the persons it names as participants;
  ``None`` when only the date is left ("Last week.").
- Pure functions: the speaker and the people known are passed in by
  ``clauses.EnglishExtractor``.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from ..records import Entity
from .candidate import FactCandidate
from .dates import TimeMention
from .english_predicate import Pred, Subject
from .english_slots import (
    tidy_event_text,
    without_date_words,
)
from .english_words import (
    Tok,
    third_person,
)
from .entities import find_entities
from .lexicon_grammar import (
    NO_EVENT_OPENERS,
    NOT_LOWER,
    OPENERS,
)
from .lexicon_nouns import (
    NON_PERSON_SUBJECTS,
    TIME_WORDS,
)
from .lexicon_verbs import (
    COGNITIVE,
)
from .sentences import is_cjk

__all__ = ["dated_event", "eventful"]


def eventful(toks: list[Tok], subject: Subject | None, pred: Pred | None) -> bool:
    """Whether a dated clause tells an event: not a hedge, wish, thought or habit, not opened
    like a request or a non-event ("please", "remind"), not subordinate."""
    if pred is not None and (
        pred.modal in ("hedge", "want", "rather", "past_habit")
        or (pred.lemma in COGNITIVE and pred.lemma not in ("hear", "remember", "forget"))
    ):
        return False
    if pred is not None and pred.habitual:
        return False
    lead = 0
    while lead < len(toks) - 1 and (
        (
            toks[lead].low in OPENERS
            and toks[lead].low not in ("this", "that", "these", "those", "since", "if", "as")
        )
        or toks[lead].low in (",", "!")
    ):
        lead += 1
    first = toks[lead].low
    if first in NO_EVENT_OPENERS:
        return False
    if subject is not None:
        return not subject.subordinate
    if first in NON_PERSON_SUBJECTS or first in ("i",):
        return False
    if first in ("please", "remind", "let", "tell", "check", "keep", "don't", "do"):
        return False
    # a noun phrase or a scene: "Parent-teacher conference this Thursday", "The plumber is coming"
    return any(len(t.low) > 2 and t.low.isalpha() and t.low not in NOT_LOWER for t in toks[:4])


def dated_event(
    clause: str,
    toks: list[Tok],
    subject: Subject | None,
    times: list[TimeMention],
    who: str | None,
    people: Collection[str],
) -> FactCandidate | None:
    """A dated event: the clause without its date words, told in the third person, with the
    persons it names; ``None`` when nothing but the date is left ("Last week.")."""
    when = times[0]
    text = tidy_event_text(without_date_words(clause, times))
    desc = third_person(text, who or "User") if re.search(r"\b(?:I|[Mm]y|me)\b", text) else text
    desc = desc[:1].upper() + desc[1:]
    words = [w for w in re.findall(r"[A-Za-z]{3,}", desc) if w.lower() not in TIME_WORDS]
    if len(words) < 2 and not is_cjk(desc):
        return None  # "Last week." says when, not what
    participants = _participants(clause, toks, subject, who, people)
    actor = who
    entities = [Entity(type="person", name=p) for p in participants]
    return FactCandidate(
        "Event",
        {"description": desc, "actor": actor, "participants": participants, "when": when.iso()},
        0.7,
        0.7,
        entities,
        event_time=when.value,
    )


def _participants(
    clause: str, toks: list[Tok], subject: Subject | None, who: str | None, people: Collection[str]
) -> list[str]:
    """The persons of an event: a named subject, persons met before, named persons."""
    participants = []
    if (
        subject is not None
        and subject.kind == "person"
        and subject.name
        and not subject.name.endswith(f"'s {subject.relation}")
    ):
        participants.append(subject.name)
    for tok in toks:
        if tok.text in people and tok.text not in participants:
            participants.append(tok.text)
    for e in find_entities(clause):
        if e.type == "person" and e.name not in participants and e.name != who:
            participants.append(e.name)
    return participants
