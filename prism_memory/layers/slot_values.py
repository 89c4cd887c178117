"""What a change statement is about and what it becomes: pure functions over records and
candidates, no store and no embedder.

Design:
- Which records hold a slot's value (:func:`is_value`), whose they are
  (:func:`holder_of_record`) and what they are called (:func:`slot_label`).
- Which of the user's sentences may change a slot (:func:`change_sentences`: a change
  statement, a preference that may contradict one that holds, a reported change of someone the
  user knows).
- The new value a change sentence becomes when no structured candidate holds it
  (:func:`new_value`), and a rescheduled event kept the same event (:func:`same_event`).
- Word-level evidence for embedders that cannot tell a script's sentences apart
  (:func:`content_words`, :func:`without_names`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from ..extraction.candidate import FactCandidate
from ..extraction.change import about_person, holder_of, is_change_statement, told
from ..extraction.sentences import is_cjk, speech_act, split_sentences
from ..records import Kind, Layer, MemoryRecord

__all__ = [
    "VALUE_SCHEMAS",
    "Found",
    "change_sentences",
    "content_words",
    "holder_of_record",
    "is_value",
    "new_value",
    "same_event",
    "slot_label",
    "without_names",
]


VALUE_SCHEMAS = frozenset({"Fact", "Preference"})


def is_value(record: MemoryRecord) -> bool:
    """A fact or preference: a schema's, or one stated as free text (``add``, a tool)."""
    if record.schema_name is None:
        return record.kind in (Kind.FACT, Kind.PREFERENCE) and record.layer == Layer.SEMANTIC
    return record.schema_name in VALUE_SCHEMAS


def holder_of_record(record: MemoryRecord) -> str:
    """Whose record it is (the user is ``"user"``, whatever the speaker's name)."""
    f = record.fields
    if record.schema_name == "Event":
        return str(f.get("actor") or "user").lower()
    if record.schema_name == "Preference":
        return str(f.get("holder") or "user").lower()
    return str(f.get("subject") or "user").lower()


def slot_label(record: MemoryRecord) -> str:
    f = record.fields
    if record.schema_name == "Fact":
        return str(f.get("attribute") or "")
    if record.schema_name == "Preference":  # the category, never the old value itself
        if f.get("category"):
            return str(f["category"])
        return "偏好" if is_cjk(record.text) else "preference"
    words = str(f.get("description") or record.text).split()
    return " ".join(words[:4])


def new_value(turn: MemoryRecord, sentence: str, hits: list[MemoryRecord]) -> FactCandidate:
    """A ``Fact`` made from a change sentence no structured candidate holds: the best hit's
    label as attribute, the sentence told in the third person as the value, keyed like the
    best hit when that is a keyed fact (its versions form one chain), replacing the hits."""
    best = hits[0]
    who = turn.speaker or None
    value, predicate = told(sentence, who)
    label = slot_label(best) or ("情况" if is_cjk(sentence) else "news")
    fields: dict[str, object] = {"attribute": label, "value": value}
    if who:
        fields["subject"] = who
    if predicate is not None:
        fields["predicate"] = predicate
    key = None
    if best.schema_name == "Fact" and isinstance(best.metadata.get("entity_key"), str):
        key = str(best.metadata["entity_key"])
    new = FactCandidate(
        "Fact",
        fields,
        confidence=max(0.6, best.confidence),
        importance=max(0.5, best.importance),
        entities=list(best.entities),
        event_time=turn.event_time or turn.created_at,
        source_ids=[*turn.provenance.source_ids, turn.id],
        evidence=sentence,
        extractor="slots",
        key=key,
        replaces=[h.id for h in hits if not (key and h.id == best.id)],
    )
    return new


#: a sentence that may change a slot: (turn, sentence, whose) where whose is "self" or
#: "thing" for the speaker's own change, "conflict" for a preference that may contradict one
#: that holds, or "@<person>" for a change of someone the user knows
Found = tuple[MemoryRecord, str, str]


def change_sentences(
    turns: Sequence[MemoryRecord], candidates: Sequence[FactCandidate], known: set[str]
) -> list[Found]:
    """The sentences of the user's (not quarantined) turns that may change a slot."""
    found: list[Found] = []
    for turn in turns:
        if turn.metadata.get("role") != "user" or turn.provenance.trust.value == "quarantined":
            continue
        for sentence in split_sentences(turn.text):
            sentence = sentence.strip()
            whose = is_change_statement(sentence, known)
            if whose is not None:
                found.append((turn, sentence, whose))
            elif (
                any(
                    c.schema == "Preference"
                    and c.evidence.strip() == sentence
                    and turn.id in c.source_ids
                    for c in candidates
                )
                and holder_of(sentence, known) == "self"
            ):
                # a preference said without a change: it may contradict one that holds
                found.append((turn, sentence, "conflict"))
            elif speech_act(sentence) in ("statement", "reported"):
                # "Lars told me he's quit": the user reports a change of someone they know
                person = about_person(sentence, known)
                if person is not None:
                    found.append((turn, sentence, "@" + person))
    return found


_WORDS = re.compile(r"[\w']+")


_STOP = frozenset(
    [
        "the",
        "a",
        "an",
        "and",
        "or",
        "but",
        "to",
        "of",
        "in",
        "on",
        "at",
        "for",
        "with",
        "from",
        "by",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "has",
        "have",
        "had",
        "got",
        "get",
        "gets",
        "this",
        "that",
        "it",
        "its",
        "my",
        "our",
        "your",
        "their",
        "his",
        "her",
        "now",
        "new",
        "just",
        "then",
        "than",
    ]
)


def content_words(text: str) -> set[str]:
    """Lower-case words of 3+ letters that are not function words (plural -s folded)."""
    words = {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z-]{2,}", text)}
    return {w[:-1] if w.endswith("s") and len(w) > 3 else w for w in words} - _STOP


def without_names(text: str, names: Sequence[str]) -> str:
    """A record's text without its holder's name ("Maya's budget: 1800" -> "budget: 1800")."""
    for name in names:
        text = re.sub(rf"\b{re.escape(name)}(?:'s|')?\s*", "", text)
    return text.strip() or text


def same_event(new: FactCandidate, old: MemoryRecord, turn: MemoryRecord) -> None:
    """A rescheduled event is the same event: it keeps the old description when the new one
    says less ("Sam's appointment" for "Sam's dentist appointment"), and stays a plan when
    the old one was a plan (a moved flight is not in the past because "rebooked" is)."""
    said = str(new.fields.get("description") or "")
    before = str(old.fields.get("description") or "")
    if said and before and set(_WORDS.findall(said.lower())) <= set(_WORDS.findall(before.lower())):
        new.fields["description"] = before
    now = turn.event_time or turn.created_at
    if old.event_time is None or new.event_time is None or old.event_time <= now:
        return
    when: datetime = new.event_time
    if when < now:
        moved = _next_year(when)
        if moved is not None and moved > now:
            new.event_time = moved
            text = new.fields.get("when")
            if isinstance(text, str) and text[:4].isdigit():
                new.fields["when"] = f"{moved.year:04d}{text[4:]}"


def _next_year(when: datetime) -> datetime | None:
    try:
        return when.replace(year=when.year + 1)
    except ValueError:  # 29 February
        return None
