"""Date values: a resolved date mention, and the year/month choice for dates written without one.

Design:
- ``TimeMention`` is what ``dates.find_times`` returns: the phrase, its offsets, the resolved
  ``datetime`` and its ``precision`` (day, month or year).
- ``resolve_year``, ``resolve_month`` and ``absolute_day`` give a date written without its
  year (or month) the one the turn's tense picks, relative to the base; ``day_start`` drops
  the clock. Pure functions of their arguments: nothing here reads the clock.
- ``Found`` collects the mentions the English and Chinese readers find in one text; a span
  once read is never read again, so a later, vaguer pattern never overrides it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone, tzinfo
from typing import Literal

__all__ = [
    "Found",
    "Precision",
    "TimeMention",
    "absolute_day",
    "day_start",
    "resolve_month",
    "resolve_year",
]

Precision = Literal["day", "month", "year"]


@dataclass
class TimeMention:
    """A temporal expression in a text and the date/time it resolves to."""

    phrase: str
    start: int
    value: datetime
    has_date: bool
    has_clock: bool = False
    precision: Precision = "day"
    end: int = -1

    def iso(self) -> str:
        """The value at its precision: ``2026-10`` for a month, ``2026-05-15T15:00:00+00:00``."""
        if self.precision == "year":
            return f"{self.value.year:04d}"
        if self.precision == "month":
            return f"{self.value.year:04d}-{self.value.month:02d}"
        return self.value.isoformat()


def day_start(value: datetime) -> datetime:
    """``value`` at midnight (its time zone kept): a date without a clock time."""
    return value.replace(hour=0, minute=0, second=0, microsecond=0)


def resolve_year(month: int, day: int, base: datetime, tense: str | None) -> datetime | None:
    """The date ``month``/``day`` without a year, placed relative to ``base`` (see the module
    docstring): on/after ``base`` for ``"future"``, on/before for ``"past"``, else the nearest.
    Midnight in ``base``'s timezone; ``None`` for a day that exists in none of the years.

    >>> b = datetime(2024, 4, 2, 9, tzinfo=timezone.utc)
    >>> [resolve_year(5, 13, b, t).date().isoformat() for t in ("future", "past", None)]
    ['2024-05-13', '2023-05-13', '2024-05-13']
    >>> resolve_year(12, 30, datetime(2025, 1, 3, tzinfo=timezone.utc), None).year
    2024
    """
    tz = base.tzinfo or timezone.utc
    candidates: list[datetime] = []
    for year in (base.year - 1, base.year, base.year + 1):
        try:
            candidates.append(datetime(year, month, day, tzinfo=tz))
        except ValueError:  # 29 February, 31 April ...
            continue
    if not candidates:
        return None
    day0 = base.date()
    if tense == "future":
        later = [c for c in candidates if c.date() >= day0]
        return later[0] if later else candidates[-1]
    if tense == "past":
        earlier = [c for c in candidates if c.date() <= day0]
        return earlier[-1] if earlier else candidates[0]
    # nearest to the base; on a tie the later one (plans are said ahead more than recalled)
    return min(candidates, key=lambda c: (abs((c.date() - day0).days), -c.year))


def resolve_month(month: int, base: datetime, tense: str | None, pre: str) -> datetime:
    """The first day of ``month`` in the year a year-less month name means."""
    tz = base.tzinfo or timezone.utc
    this = datetime(base.year, month, 1, tzinfo=tz)
    if pre == "next":
        return this if month > base.month else this.replace(year=base.year + 1)
    if pre == "last":
        return this if month < base.month else this.replace(year=base.year - 1)
    if month == base.month:
        return this
    if tense == "past" or pre == "since":
        return this if month < base.month else this.replace(year=base.year - 1)
    if tense == "future" or pre in ("by", "until", "till", "this", "in"):
        return this if month > base.month else this.replace(year=base.year + 1)
    return min(
        (this.replace(year=base.year + d) for d in (-1, 0, 1)),
        key=lambda c: (abs((c - base).days), -c.year),
    )


def absolute_day(
    day: int, month: int, year: str | None, base: datetime, tense: str | None
) -> datetime | None:
    """The date of ``day``/``month`` in ``year``, or, without a year, in the one
    :func:`resolve_year` picks; ``None`` for an impossible date ("31/02").

    >>> b = datetime(2024, 5, 8, tzinfo=timezone.utc)
    >>> absolute_day(3, 5, "2023", b, None).date(), absolute_day(31, 2, "2024", b, None)
    (datetime.date(2023, 5, 3), None)
    """
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    if year is None:
        return resolve_year(month, day, base, tense)
    try:
        return datetime(int(year), month, day, tzinfo=base.tzinfo or timezone.utc)
    except ValueError:
        return None


def _overlaps(span: tuple[int, int], taken: list[tuple[int, int]]) -> bool:
    return any(span[0] < e and s < span[1] for s, e in taken)


@dataclass
class Found:
    """The date mentions read so far from one text; a span once read is never read again."""

    text: str
    base: datetime
    tense: str | None
    mentions: list[TimeMention] = field(default_factory=list)
    taken: list[tuple[int, int]] = field(default_factory=list)

    @property
    def tz(self) -> tzinfo:
        """The base's time zone (UTC when it has none)."""
        return self.base.tzinfo or timezone.utc

    def add(self, m: re.Match[str], value: datetime | None, precision: Precision = "day") -> None:
        """Record the mention ``m`` resolves to ``value``, unless ``value`` is ``None`` or its
        span overlaps one already read."""
        if value is None or _overlaps(m.span(), self.taken):
            return
        self.taken.append(m.span())
        self.mentions.append(
            TimeMention(m.group(0), m.start(), value, True, precision=precision, end=m.end())
        )
