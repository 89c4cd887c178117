"""The rule-based extractor: no LLM, deterministic, well under a millisecond a sentence.

Design:
- A turn is cut into sentences (``sentences.split_sentences``, abbreviation-aware); each
  sentence's speech act decides whether it can state a fact at all (questions, hypotheticals,
  reported speech, sarcasm, wishes and chit-chat cannot). Statements are read clause by
  clause: English by ``clauses.EnglishExtractor`` (subject + predicate), Chinese by
  ``chinese.ChineseExtractor``.
- The result is *candidates*: field dicts for a registered schema (``Preference``, ``Fact``,
  ``Person``, ``Event``) plus confidence, importance, an identity ``key`` (slots like "budget"
  or "home city" keep the schema key so a later value supersedes; statements that can hold
  many values are keyed with their value) and what they ``retire``. They are validated and
  reconciled before anything is stored (``layers/semantic.py``).
- Every date is resolved against the turn's ``event_time`` (``dates.py``: dateparser for
  English relative phrases, small functions for Chinese). Facts about another person are
  attributed to that person, never to the speaker.
- ``turn_annotations`` (entities + importance) runs on every turn; ``extract`` on user turns.
- Text in any language is stored and searchable even where no rule matches: rules only add.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from ..records import Entity
from .candidate import FactCandidate
from .chinese import ChineseExtractor
from .clauses import EnglishExtractor
from .entities import find_entities
from .patterns import BUDGET, CURRENCY
from .sentences import is_cjk, split_sentences

__all__ = [
    "FactCandidate",
    "TaskHints",
    "extract",
    "find_entities",
    "parse_money",
    "score_importance",
    "task_hints",
    "turn_annotations",
]


# turns that are small talk, questions, decisions or constraints (``score_importance``,
# ``task_hints``)
_QUESTION = re.compile(r"\?\s*$")
_SMALL_TALK = re.compile(
    r"^\s*(?:hi|hey|hello|thanks|thank you|bye|goodbye|ok|okay|cool|nice|great|lol|haha|你好|谢谢|好的|再见)\W*$",
    re.I,
)
_CONSTRAINT = re.compile(
    r"\b(?:budget|must|need to|have to|can't|cannot|no more than|at most|at least|under|before|by|without)\b|预算|不超过|以内|必须|不能",
    re.I,
)
_DECISION = re.compile(
    r"\b(?:let's|let us|I'll|I will|we'll|we will|decided|go with|book it|choose|chose|confirm|confirmed)\b|决定|就选|确定|订了",
    re.I,
)
# a turn that states a like, a dislike, a food the user avoids or a budget probably states a
# fact (``turn_annotations``: cheap cues, not the clause reader)
_END = r"(?=[.!?;,，。！？；]|\s+(?:but|and|because|since|so|though|although|when|if)\b|$)"
_OBJ = r"(?P<obj>[^.!?;,，。！？；\n]{2,60}?)"
_FACT_CUES: tuple[re.Pattern[str], ...] = (
    re.compile(
        rf"\bI\s+(?:really\s+|absolutely\s+|do\s+|also\s+|just\s+)?(?:love|like|enjoy|adore|prefer)\s+(?:to\s+)?{_OBJ}{_END}",
        re.I,
    ),
    re.compile(
        rf"\bI\s+(?:really\s+)?(?:hate|dislike|detest|can't stand|cannot stand|don't like|do not like|don't enjoy)\s+{_OBJ}{_END}",
        re.I,
    ),
    re.compile(
        rf"\bI\s+(?:can't|cannot|can not|don't|do not|never)\s+(?:eat|drink|have|stand)\s+{_OBJ}{_END}",
        re.I,
    ),
    BUDGET[0],
    re.compile(
        r"我(?:很|非常|最|也|特别|真的)?(?<!不)(?:喜欢|爱吃|爱|偏好|喜爱)(?P<obj>[^，。！？,.!?；;\s]{1,30})"
    ),
)


@dataclass
class TaskHints:
    constraints: list[str] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)


def parse_money(text: str) -> tuple[float | None, str | None]:
    """Amount and currency of a money/number phrase.

    >>> parse_money("$1,200"), parse_money("500 a night"), parse_money("3万元")
    ((1200.0, 'USD'), (500.0, None), (30000.0, 'CNY'))
    """
    m = re.search(r"(\d[\d,]*(?:\.\d+)?)\s?([kK]|万|千)?", text)
    if m is None:
        return None, None
    amount = float(m.group(1).replace(",", ""))
    amount *= {"k": 1e3, "K": 1e3, "万": 1e4, "千": 1e3}.get(m.group(2) or "", 1.0)
    unit = None
    lowered = text.lower()
    for token, code in CURRENCY.items():
        if token in lowered:
            unit = code
            break
    return amount, unit


def score_importance(text: str, *, has_fact: bool = False, has_time: bool = False) -> float:
    """Rule importance in [0, 1]: preferences/facts, dates, numbers, names and length raise it.

    >>> score_importance("thanks!") < score_importance("My budget is 500 a night", has_fact=True)
    True
    """
    if _SMALL_TALK.match(text):
        return 0.1
    score = 0.3
    if has_fact:
        score += 0.3
    if has_time:
        score += 0.1
    if re.search(r"\d", text):
        score += 0.1
    if len(text) > 80:
        score += 0.1
    if _QUESTION.search(text):
        score -= 0.1
    return round(min(1.0, max(0.0, score)), 3)


def turn_annotations(text: str) -> tuple[list[Entity], float]:
    """Entities and importance of a turn (cheap: regex only, no date parsing)."""
    has_fact = any(cue.search(text) for cue in _FACT_CUES)
    return find_entities(text), score_importance(text, has_fact=has_fact)


def task_hints(texts: Iterable[str]) -> TaskHints:
    """Constraint and decision sentences of a task's user turns."""
    hints = TaskHints()
    for text in texts:
        for sentence in re.split(r"(?<=[.!?。！？])\s*", text):
            s = sentence.strip()
            if not s or _QUESTION.search(s):
                continue
            if _DECISION.search(s):
                hints.decisions.append(s)
            elif _CONSTRAINT.search(s):
                hints.constraints.append(s)
    return hints


_SPEAKER_ROLES = frozenset({"user", "assistant", "system", "tool", "human", "ai"})


def _dedupe(candidates: Iterable[FactCandidate]) -> list[FactCandidate]:
    seen: set[str] = set()
    out: list[FactCandidate] = []
    for c in candidates:
        ident = c.key or c.schema + "|" + repr(sorted((k, str(v)) for k, v in c.fields.items()))
        if ident in seen:
            continue
        seen.add(ident)
        out.append(c)
    return out


def extract(
    text: str,
    *,
    event_time: datetime,
    speaker: str | None = None,
    people: Iterable[str] = (),
) -> list[FactCandidate]:
    """Candidates from one user turn: preferences, facts, persons and dated events.

    ``speaker``: the message name; a named speaker's preferences and facts are theirs, not
    "the user's". ``people``: names of persons met before in the conversation, so "Jonah quit
    accounting" is read as a statement about Jonah.

    >>> from datetime import datetime, timezone
    >>> [c.fields["subject"] for c in extract("I love seafood", event_time=datetime.now(timezone.utc))]
    ['seafood']
    """
    if _SMALL_TALK.match(text):
        return []
    owner = speaker if speaker and speaker.lower() not in _SPEAKER_ROLES else None
    people = tuple(people)
    english = EnglishExtractor(event_time, owner, people)
    chinese: ChineseExtractor | None = None  # built for the first Chinese sentence only
    out: list[FactCandidate] = []
    for sentence in split_sentences(text):
        if is_cjk(sentence):
            chinese = chinese or ChineseExtractor(event_time, owner, people)
            found = chinese.sentence(sentence)
        else:
            found = english.sentence(sentence)
        for c in found:
            c.evidence = sentence.strip()  # what the record states, for its vector and audit
            if c.generic:  # a statement of uncertain use ranks below the turn it comes from
                c.confidence = min(c.confidence, 0.5)
            if c.schema == "Preference":
                c.fields.setdefault("reasons", [sentence.strip()[:200]])
            for name in ("subject", "holder"):  # the schema default stands for the user
                if c.schema in ("Fact", "Preference") and c.fields.get(name) == "user":
                    del c.fields[name]
        out.extend(found)
    out = _fold_people(_dedupe(out), owner)
    for c in out:
        c.evidence = c.evidence or text
    return out


_POLARITY = {"like": "likes", "dislike": "dislikes", "avoid": "avoids", "need": "needs"}


def _statement(c: FactCandidate) -> str:
    """A fact or preference about a person as an entry of their card (``key: value`` for a
    slot, so a later value of the same slot replaces it)."""
    f = c.fields
    if c.schema == "Preference":
        return f"{_POLARITY.get(str(f.get('polarity')), 'likes')} {f.get('subject')}"
    if f.get("predicate") is not None:
        return " ".join(str(x) for x in (f["predicate"], f.get("value")) if x)
    return f"{f.get('attribute')}: {f.get('value')}"


def _fold_people(candidates: list[FactCandidate], owner: str | None) -> list[FactCandidate]:
    """Facts and preferences about a named person go to that person's record (their card:
    name, relationship, what is known about them), attributed to them, never to the speaker."""
    persons = {str(c.fields.get("name")): c for c in candidates if c.schema == "Person"}
    out: list[FactCandidate] = []
    for c in candidates:
        if c.schema == "Preference":
            holder = c.fields.get("holder")
        elif c.schema == "Fact":
            holder = c.fields.get("subject")
        else:
            holder = None
        if (
            not isinstance(holder, str)
            or holder in ("user", owner)
            or "'s " in holder
            or "的" in holder
        ):
            out.append(c)
            continue
        person = persons.get(holder)
        if person is None:
            person = FactCandidate(
                "Person",
                {"name": holder},
                c.confidence,
                c.importance,
                [Entity(type="person", name=holder)],
            )
            persons[holder] = person
            out.append(person)
        person.fields.setdefault("attributes", []).append(_statement(c))
        person.importance = max(person.importance, c.importance)
    return out
