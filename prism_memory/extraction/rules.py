"""The rule-based extractor: no LLM, deterministic, a few hundred microseconds a turn.

Design:
- Regex patterns (English and Chinese) produce *candidates*: field dicts for a registered
  schema (``Preference``, ``Fact``, ``Person``, ``Event``) plus confidence and importance.
  They are validated against the schema and reconciled before anything is stored.
- Patterns are generic language patterns ("I like / prefer / hate / can't", "my budget is",
  "my sister Anna", "Mr. Zhang", "我喜欢", "我的预算是"); temporal expressions are resolved
  against the turn's ``event_time`` by ``dates.py``; money and numbers are parsed into amounts.
- ``turn_annotations`` (entities + importance) runs on every turn; ``extract`` on user turns.
- Text in any language is stored and searchable even where no rule matches: rules only add.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..records import Entity
from .dates import find_times
from .patterns import (
    _AGE,
    _BUDGET,
    _CAPITALISED,
    _CONSTRAINT,
    _CURRENCY,
    _DECISION,
    _EN_PREFS,
    _EVENT_CUES,
    _FAVOURITE_A,
    _FAVOURITE_B,
    _LIVE,
    _MY_FACT,
    _NOT_NAMES,
    _PERSON_REL,
    _PRONOUNS,
    _QUESTION,
    _RELATIONS,
    _SMALL_TALK,
    _TITLED,
    _WORK,
    _ZH_PERSON,
    _ZH_PREFS,
)

__all__ = [
    "Candidate",
    "TaskHints",
    "extract",
    "find_entities",
    "parse_money",
    "score_importance",
    "task_hints",
    "turn_annotations",
]


@dataclass
class Candidate:
    """A schema instance proposed by an extractor, not yet validated or reconciled."""

    schema: str
    fields: dict[str, Any]
    confidence: float = 0.8
    importance: float = 0.6
    entities: list[Entity] = field(default_factory=list)
    event_time: datetime | None = None
    source_ids: list[str] = field(default_factory=list)
    evidence: str = ""
    extractor: str = "rules"


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
    for token, code in _CURRENCY.items():
        if token in lowered:
            unit = code
            break
    return amount, unit


# "I love how you paint" / "I like that you came" praise something said, they are no preference
_CLAUSE_STARTS = frozenset(
    {"it", "that", "this", "you", "your", "how", "what", "when", "where", "why", "which"}
    | {"those", "these", "them", "him", "her"}
)


def _clean_obj(obj: str) -> str | None:
    obj = re.sub(
        r"\s+(?:very much|so much|a lot|too|as well|anymore|at all|the most)$",
        "",
        obj.strip(),
        flags=re.I,
    )
    obj = obj.strip(" '\"")
    if len(obj) < 2 or obj.lower() in _PRONOUNS or obj.lower().split()[0] in _CLAUSE_STARTS:
        return None
    return obj


def find_entities(text: str) -> list[Entity]:
    """Named things in a text: titled and related persons, Chinese names, capitalised names."""
    found: dict[str, Entity] = {}
    for m in _TITLED.finditer(text):
        found.setdefault(m.group("name").lower(), Entity(type="person", name=m.group("name")))
    for m in _PERSON_REL.finditer(text):
        found.setdefault(m.group("name").lower(), Entity(type="person", name=m.group("name")))
    for m in _ZH_PERSON.finditer(text):
        found.setdefault(m.group("name"), Entity(type="person", name=m.group("name")))
    for m in _CAPITALISED.finditer(text):
        words = [w for w in re.split(r"[ -]", m.group(0)) if w not in _NOT_NAMES]
        if not words:
            continue
        name = " ".join(words)
        if len(name) > 1 and name.lower() not in found:
            found[name.lower()] = Entity(type="thing", name=name)
    return list(found.values())[:12]


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
    has_fact = any(p.search(text) for p, _, _ in _EN_PREFS[:3]) or bool(
        _BUDGET[0].search(text) or _ZH_PREFS[1][0].search(text)
    )
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


def _preferences(text: str) -> Iterable[Candidate]:
    for pattern, polarity, conf in _EN_PREFS + _ZH_PREFS:
        for m in pattern.finditer(text):
            obj = _clean_obj(m.group("obj"))
            if obj:
                yield Candidate(
                    "Preference",
                    {"subject": obj, "polarity": polarity, "reasons": [text.strip()[:200]]},
                    conf,
                    0.7,
                )
    for pattern in (_FAVOURITE_A, _FAVOURITE_B):
        for m in pattern.finditer(text):
            obj = _clean_obj(m.group("obj"))
            if obj:
                fields: dict[str, Any] = {
                    "subject": obj,
                    "polarity": "like",
                    "strength": 0.9,
                    "reasons": [text.strip()[:200]],
                }
                if m.group("cat"):
                    fields["category"] = m.group("cat").strip()
                yield Candidate("Preference", fields, 0.85, 0.75)


def _facts(text: str) -> Iterable[Candidate]:
    budget_found = False
    for pattern in _BUDGET:
        for m in pattern.finditer(text):
            rest = re.sub(
                r"\s*\b(?:now|then|instead|too|max|maximum|tops)\s*$", "", m.group("rest")
            )
            value = (m.group("money") + rest).strip()
            amount, unit = parse_money(value)
            if amount is None:
                continue
            budget_found = True
            yield Candidate(
                "Fact",
                {"attribute": "budget", "value": value, "amount": amount, "unit": unit},
                0.85,
                0.8,
            )
    for m in _MY_FACT.finditer(text):
        attr = m.group("attr").strip().lower()
        if budget_found and "budget" in attr:
            continue
        if re.fullmatch(_RELATIONS, attr):
            continue  # "my sister is ..." is a person mention
        value = m.group("val").strip()
        amount, unit = parse_money(value) if re.search(r"\d", value) else (None, None)
        yield Candidate(
            "Fact", {"attribute": attr, "value": value, "amount": amount, "unit": unit}, 0.7, 0.6
        )
    for m in _LIVE.finditer(text):
        yield Candidate(
            "Fact", {"attribute": "home city", "value": m.group("val").strip()}, 0.8, 0.7
        )
    for m in _WORK.finditer(text):
        attr = "occupation" if m.group("how").lower() == "as" else "employer"
        yield Candidate("Fact", {"attribute": attr, "value": m.group("val").strip()}, 0.75, 0.7)
    for m in _AGE.finditer(text):
        yield Candidate(
            "Fact",
            {"attribute": "age", "value": m.group("val"), "amount": float(m.group("val"))},
            0.8,
            0.6,
        )


def _persons(text: str) -> Iterable[Candidate]:
    for m in _PERSON_REL.finditer(text):
        yield Candidate(
            "Person",
            {"name": m.group("name"), "relationship": m.group("rel").lower()},
            0.8,
            0.6,
            [Entity(type="person", name=m.group("name"))],
        )
    for m in _TITLED.finditer(text):
        name = m.group("name")
        yield Candidate("Person", {"name": name}, 0.7, 0.5, [Entity(type="person", name=name)])
    for m in _ZH_PERSON.finditer(text):
        yield Candidate(
            "Person",
            {"name": m.group("name")},
            0.7,
            0.5,
            [Entity(type="person", name=m.group("name"))],
        )


def extract(text: str, *, event_time: datetime, speaker: str | None = None) -> list[Candidate]:
    """Candidates from one user turn: preferences, facts, persons and dated events.

    >>> from datetime import datetime, timezone
    >>> [c.fields["subject"] for c in extract("I love seafood", event_time=datetime.now(timezone.utc))]
    ['seafood']
    """
    if _SMALL_TALK.match(text):
        return []
    out: list[Candidate] = [*_preferences(text), *_facts(text), *_persons(text)]
    owner = speaker if speaker and speaker not in ("user", "assistant", "system", "tool") else None
    if owner is not None:  # a named speaker's preferences and facts are theirs, not "the user's"
        for c in out:
            if c.schema == "Preference":
                c.fields["holder"] = owner
            elif c.schema == "Fact":
                c.fields["subject"] = owner
    times = [t for t in find_times(text, event_time) if t.has_date or t.has_clock]
    if times and _EVENT_CUES.search(text):
        entities = find_entities(text)
        participants = [e.name for e in entities if e.type == "person"]
        when = times[0].value
        out.append(
            Candidate(
                "Event",
                {
                    "description": text.strip()[:300],
                    "actor": speaker,
                    "participants": participants,
                    "when": when.isoformat(),
                },
                0.7,
                0.7,
                entities,
                event_time=when,
            )
        )
    for c in out:
        c.evidence = text
    return out
