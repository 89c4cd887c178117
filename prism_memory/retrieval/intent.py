"""PRISM intent: what the agent is trying to do, turned into filters, boosts and weights.

Design:
- :class:`Intent` is optional. Sources, cheapest first, merged so that what the caller states
  wins: a registered template for the agent's step (:class:`IntentRegistry`), rule-based query
  analysis (:func:`analyze_query`), and an LLM parser (``prism_memory/llm/recall.py``) only when asked.
- Query analysis is generic: entity names and speakers the store already knows (payload
  facets) found in the query, and temporal expressions ("last week", "in May 2023",
  "3 days ago", "yesterday") turned into a time range relative to a reference time.
- Everything in an intent is a soft signal unless ``strictness`` makes it a filter.
"""

from __future__ import annotations

import calendar
import hashlib
import json
import math
import re
from collections.abc import Iterable
from datetime import MAXYEAR, MINYEAR, datetime, timedelta, timezone
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic import ValidationError as PydanticValidationError

from .._pydantic_errors import pydantic_reason
from ..errors import ValidationError
from ..records import Kind, Layer, normalize_entity

__all__ = [
    "WEIGHT_KEYS",
    "Intent",
    "IntentRegistry",
    "analyze_query",
    "parse_time_range",
]

WEIGHT_KEYS = ("semantic", "fresh", "task", "utility", "importance")

_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name} | {
    name.lower(): i for i, name in enumerate(calendar.month_abbr) if name
}
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))
_UNIT_DAYS = {"day": 1, "week": 7, "fortnight": 14, "month": 30, "year": 365}
_NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "few": 3, "couple": 2,
}  # fmt: skip
_RECENCY_CUES = re.compile(
    r"\b(latest|most recent(ly)?|recently|current(ly)?|now|last time|newest|so far)\b", re.I
)


class Intent(BaseModel):
    """What a recall is for (PRISM). Every field is optional.

    Example:
        >>> Intent(step="book_flight", kinds=["preference"], entities=["seat"]).kinds
        [<Kind.PREFERENCE: 'preference'>]
    """

    model_config = ConfigDict(extra="forbid")

    step: str | None = Field(default=None, description="The agent's current step (template name).")
    task_id: str | None = None
    subgoal_id: str | None = None
    kinds: list[Kind] = Field(default_factory=list)
    layers: list[Layer] = Field(default_factory=list)
    entities: list[str] = Field(default_factory=list)
    speakers: list[str] = Field(default_factory=list)
    time_range: tuple[datetime | None, datetime | None] | None = None
    recency: bool = Field(default=False, description="The query asks for the latest state.")
    weights: dict[str, float] = Field(default_factory=dict)
    strictness: float | None = Field(default=None, ge=0, le=1)
    sources: list[str] = Field(default_factory=list, description="Where each part came from.")

    @field_validator("weights")
    @classmethod
    def _check_weights(cls, value: dict[str, float]) -> dict[str, float]:
        unknown = set(value) - set(WEIGHT_KEYS)
        if unknown:
            raise ValidationError(
                f"unknown intent weights {sorted(unknown)}; use any of {', '.join(WEIGHT_KEYS)}"
            )
        if any(
            not isinstance(w, (int, float)) or isinstance(w, bool) or not 0 <= w < math.inf
            for w in value.values()
        ):
            raise ValidationError(
                f"intent weights must be finite numbers >= 0, got {value!r}; e.g. "
                "{'semantic': 1.0}"
            )
        return {k: float(v) for k, v in value.items()}

    @field_validator("entities", "speakers")
    @classmethod
    def _norm(cls, value: list[str]) -> list[str]:
        return sorted({normalize_entity(v) for v in value if isinstance(v, str) and v.strip()})

    def __init__(self, **data: Any) -> None:
        # pydantic wraps every field error in its own ValidationError; PRISM raises its own
        try:
            super().__init__(**data)
        except PydanticValidationError as exc:
            raise ValidationError(f"invalid Intent: {pydantic_reason(exc)}") from None

    def merged_over(self, base: Intent | None) -> Intent:
        """This intent with gaps filled from ``base`` (lists are unioned, weights overlaid)."""
        if base is None:
            return self
        data: dict[str, Any] = {}
        for name in type(self).model_fields:
            mine, theirs = getattr(self, name), getattr(base, name)
            if isinstance(mine, list):
                data[name] = list(dict.fromkeys([*theirs, *mine]))
            elif isinstance(mine, dict):
                data[name] = {**theirs, **mine}
            elif name == "recency":
                data[name] = mine or theirs
            else:
                data[name] = mine if mine is not None else theirs
        return Intent.model_validate(data)

    def signature(self) -> str:
        """Stable hash of the intent (cache key part)."""
        blob = json.dumps(self.model_dump(mode="json", exclude={"sources"}), sort_keys=True)
        return hashlib.blake2b(blob.encode(), digest_size=12).hexdigest()


class IntentRegistry:
    """Named intent templates, one per agent step (PRISM's recommended starting point).

    Example:
        >>> reg = IntentRegistry()
        >>> reg.register("book_hotel", kinds=["fact", "result"], entities=["hotel", "budget"])
        >>> reg.get("book_hotel").entities
        ['budget', 'hotel']
    """

    def __init__(self) -> None:
        self._templates: dict[str, Intent] = {}

    def register(self, name: str, **fields: Any) -> None:
        if not isinstance(name, str) or not name.strip():
            raise ValidationError("an intent template needs a non-empty name, e.g. 'book_hotel'")
        try:
            self._templates[name] = Intent(step=name, sources=["template"], **fields)
        except ValidationError:
            raise
        except Exception as exc:  # pydantic error: say which field is wrong
            raise ValidationError(f"intent template {name!r}: {exc}") from None

    def get(self, name: str | None) -> Intent | None:
        return self._templates.get(name) if name else None

    def names(self) -> list[str]:
        return sorted(self._templates)


def _day(d: datetime) -> datetime:
    return d.replace(hour=0, minute=0, second=0, microsecond=0)


_MIN = datetime.min.replace(tzinfo=timezone.utc)
_MAX = datetime.max.replace(tzinfo=timezone.utc)


def _plus(t: datetime, days: int) -> datetime:
    """``t`` moved by ``days``, saturating at the ends of the calendar (year 1, year 9999):
    a window that would start before year 1 starts at its first instant instead."""
    try:
        return t + timedelta(days=days)
    except OverflowError:
        return _MAX if days > 0 else _MIN


def _year_start(year: int) -> datetime:
    if year < MINYEAR:
        return _MIN
    if year > MAXYEAR:
        return _MAX
    return datetime(year, 1, 1, tzinfo=timezone.utc)


def _month_range(year: int, month: int) -> tuple[datetime, datetime]:
    if not MINYEAR <= year <= MAXYEAR:
        edge = _MIN if year < MINYEAR else _MAX
        return edge, edge
    start = datetime(year, month, 1, tzinfo=timezone.utc)
    last = calendar.monthrange(year, month)[1]
    return start, _plus(start, last)


def parse_time_range(query: str, now: datetime) -> tuple[datetime, datetime] | None:
    """A time range for the first temporal expression in ``query``, relative to ``now``.

    Windows saturate at the ends of the calendar: "last week" on 3 Jan of year 1 is the empty
    window at its start, never an error.

    >>> now = datetime(2023, 6, 15, tzinfo=timezone.utc)
    >>> parse_time_range("what did I do last week?", now)[0].date()
    datetime.date(2023, 6, 5)
    >>> parse_time_range("in May 2023", now)[1].date()
    datetime.date(2023, 6, 1)
    >>> parse_time_range("last year", datetime(1, 1, 3, tzinfo=timezone.utc))[0].year
    1
    """
    try:
        return _time_range(query, now)
    except (OverflowError, ValueError):  # a number too large for any calendar
        return None


def _time_range(query: str, now: datetime) -> tuple[datetime, datetime] | None:
    q = query.lower()
    today = _day(now)
    m = re.search(
        rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MONTH_RE})\b,?\s*(\d{{4}})?", q
    ) or re.search(rf"\b({_MONTH_RE})\s+(\d{{1,2}})(?:st|nd|rd|th)?\b,?\s*(\d{{4}})?", q)
    if m:
        a, b, year_s = m.groups()
        day_s, month_s = (a, b) if a.isdigit() else (b, a)
        year = int(year_s) if year_s else now.year
        try:
            start = datetime(year, _MONTHS[month_s], int(day_s), tzinfo=timezone.utc)
        except ValueError:
            start = None
        if start is not None:
            return start, _plus(start, 1)
    m = re.search(rf"\b({_MONTH_RE})\b,?\s*(\d{{4}})?", q)
    if m and not (m.group(1) in ("may", "mar") and m.group(2) is None):  # "may" is a verb
        year = int(m.group(2)) if m.group(2) else now.year
        return _month_range(year, _MONTHS[m.group(1)])
    if "yesterday" in q:
        return _plus(today, -1), today
    if re.search(r"\btoday\b", q):
        return today, _plus(today, 1)
    m = re.search(r"\b(last|past|previous|this)\s+(week|weekend|month|year)\b", q)
    if m:
        which, unit = m.groups()
        if unit in ("week", "weekend"):
            monday = _plus(today, -today.weekday())
            start = monday if which == "this" else _plus(monday, -7)
            return start, _plus(start, 7)
        if unit == "month":
            if which == "this":
                return _month_range(now.year, now.month)
            y, mo = (now.year, now.month - 1) if now.month > 1 else (now.year - 1, 12)
            return _month_range(y, mo)
        year = now.year if which == "this" else now.year - 1
        return _year_start(year), _year_start(year + 1)
    m = re.search(
        r"\b(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|few|couple)"
        r"(?: of)?\s+(day|week|fortnight|month|year)s?\s+ago\b",
        q,
    )
    if m:
        n = int(m.group(1)) if m.group(1).isdigit() else _NUMBER_WORDS[m.group(1)]
        days = n * _UNIT_DAYS[m.group(2)]
        slack = max(1, days // 4)
        centre = _plus(today, -days)
        return _plus(centre, -slack), _plus(centre, slack + 1)
    m = re.search(r"\b(?:in|during|since|of)\s+((?:19|20)\d{2})\b", q)
    if m:
        year = int(m.group(1))
        end = _plus(now, 1) if q[m.start() :].startswith("since") else None
        return _year_start(year), end or _year_start(year + 1)
    return None


_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def _find_names(query_norm: str, names: Iterable[str]) -> list[str]:
    """Known names (1-4 words) that occur in the query as whole words (possessives too).

    Chinese writes no spaces: a known name with Chinese characters (李明杰, 王丽娟的婶婶) counts
    where it occurs inside the query ("李明杰和王志宏谁更年轻"); only queries with Chinese
    characters pay for that scan.
    """
    words = [re.sub(r"'s$", "", w) for w in re.findall(r"[\w'.&-]+", query_norm)]
    words = [w.strip(".'-") for w in words]
    grams = {" ".join(words[i : i + n]) for n in range(1, 5) for i in range(len(words) - n + 1)}
    known = names if isinstance(names, (set, frozenset)) else set(names)
    found = {g for g in grams if len(g) >= 2 and g in known}
    if _CJK.search(query_norm):
        found.update(n for n in known if len(n) >= 2 and _CJK.search(n) and n in query_norm)
    return sorted(found)


def analyze_query(
    query: str,
    *,
    known_entities: Iterable[str] = (),
    known_speakers: Iterable[str] = (),
    now: datetime | None = None,
) -> Intent:
    """Rule-based intent from the query text alone (no LLM).

    >>> it = analyze_query("What did Priya do last week?", known_speakers=["priya"],
    ...                    now=datetime(2023, 6, 15, tzinfo=timezone.utc))
    >>> it.speakers, it.time_range is not None
    (['priya'], True)
    """
    q = normalize_entity(query)
    speakers = _find_names(q, known_speakers)
    entities = _find_names(q, known_entities)
    time_range = parse_time_range(query, now or datetime.now(timezone.utc))
    return Intent(
        speakers=speakers,
        entities=entities,
        time_range=time_range,
        recency=bool(_RECENCY_CUES.search(query)),
        sources=["rules"],
    )
