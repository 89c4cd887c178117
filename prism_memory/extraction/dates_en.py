"""English dates: the patterns and readers of English date phrases.

Design:
- ``english_dates`` reads phrases that name their day or month ("2024-05-03", "May 3rd",
  "the 14th", "March 2025", "on Christmas"); ``english_relative`` the relative ones ("next
  Friday", "in two weeks", "three days ago", "last month", "in October", "in 2019"),
  resolved by ``dateparser`` with the turn's time as its base (phrases it reads differently
  are rewritten first); recurring phrases ("every Tuesday", "on Mondays") are not dates.
- ``ordinals_in_month`` puts a bare "the 14th" in the month the text names ("in May, from the
  14th"); the month mention is dropped.
- Each reader adds to a ``date_values.Found``; ``dates.find_times`` runs them in order.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from functools import lru_cache
from typing import Any

from .date_values import Found, Precision, TimeMention, absolute_day, resolve_month, resolve_year

__all__ = ["MONTHS", "WEEKDAYS", "english_dates", "english_relative", "ordinals_in_month"]

WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december|"
    "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
_NUMBER_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "a couple of": 2,
    "a few": 3,
    "several": 3,
}
_NUM = r"(?:\d+|a couple of|a few|several|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_UNIT = r"(?:days?|weeks?|fortnights?|months?|years?)"
_EN_DAY = re.compile(
    r"\b(?:the day (?:before yesterday|after tomorrow)|yesterday|today|tonight|tomorrow|last night|"
    r"this (?:morning|afternoon|evening)|"
    rf"(?:next|last|this|coming|past) (?:{WEEKDAYS}|week|weekend|month|year)|"
    r"(?:next|last|this|coming) (?:mon|tues?|weds?|thu|thurs?|fri|sat|sun)\b\.?|"
    rf"{_NUM} {_UNIT} (?:ago|before|earlier)|"
    rf"(?:in )?{_NUM} {_UNIT} (?:from (?:now|today)|later|time)|"
    rf"in (?:the next |another )?{_NUM} {_UNIT}|"
    rf"(?:a|one|two|three) (?:weeks?|days?) from (?:today|tomorrow)|"
    rf"(?<!every )(?<!each )(?:on )?(?:{WEEKDAYS})(?!s\b))\b",
    re.IGNORECASE,
)
_EN_DATE = re.compile(
    rf"\b(?:(?:(?:{WEEKDAYS}),? )?(?:the )?(?P<d1>\d{{1,2}})(?:st|nd|rd|th)? (?:of )?(?P<m1>{MONTHS})\.?(?:,? (?P<y1>\d{{4}}))?|"
    rf"(?:(?:{WEEKDAYS}),? )?(?P<m2>{MONTHS})\.? (?:the )?(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?(?:,? (?P<y2>\d{{4}}))?)\b(?!:)",
    re.IGNORECASE,
)
_EN_ISO = re.compile(r"\b(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})\b")
_EN_ORDINAL_DAY = re.compile(
    rf"\b(?:on|from|by|until|till|before|after|starting) the (?P<d>\d{{1,2}})(?:st|nd|rd|th)\b(?! (?:of )?(?:{MONTHS}))",
    re.IGNORECASE,
)
_EN_MONTH_YEAR = re.compile(rf"\b(?P<m>{MONTHS})\.?,? (?P<y>(?:19|20)\d{{2}})\b", re.IGNORECASE)
_EN_MONTH = re.compile(
    r"\b(?P<pre>in|this|next|last|by|until|till|since|early|late|mid|mid-|through|from|during|"
    r"before|after|around|for) (?:the end of |the beginning of |the start of )?"
    r"(?P<m>january|february|march|april|may|june|july|august|september|october|november|"
    r"december)\b(?! \d)",
    re.IGNORECASE,
)
_EN_YEAR = re.compile(
    r"\b(?:in|since|from|by|until|till|back in|during|of|around|circa|early|late) "
    r"(?P<y>(?:19|20)\d{2})\b(?![-/]\d)"
)
_EN_HOLIDAYS = {
    "christmas eve": (12, 24),
    "christmas day": (12, 25),
    "christmas": (12, 25),
    "new year's eve": (12, 31),
    "new years eve": (12, 31),
    "new year's day": (1, 1),
    "halloween": (10, 31),
    "valentine's day": (2, 14),
    "valentines day": (2, 14),
}
_EN_HOLIDAY = re.compile(
    r"\b(?:on |for |at |over |this |next |last )?("
    + "|".join(re.escape(h) for h in sorted(_EN_HOLIDAYS, key=len, reverse=True))
    + r")\b",
    re.IGNORECASE,
)
_MONTH_NUMBER = {
    name: i
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}


def _number(word: str) -> int | None:
    word = word.lower()
    if word.isdigit():
        return int(word)
    return _NUMBER_WORDS.get(word)


_FROM_NOW = re.compile(
    rf"^(?:in )?(?:the next |another )?(?P<n>{_NUM}) (?P<u>{_UNIT})"
    r"(?: (?:from (?P<from>now|today|tomorrow)|later|time))?$",
    re.I,
)
_RECURRING = re.compile(
    rf"\b(?:every|each)\s+(?:(?:{WEEKDAYS}|morning|evening|night|and|or|other)[\s,]+)*$", re.I
)
_HABITUAL_CUE = re.compile(
    r"\b(?:usually|always|often|normally|generally|typically|every|each)\b", re.I
)
_AGO = re.compile(rf"^(?P<n>{_NUM}) (?P<u>{_UNIT}) (?:ago|before|earlier)$", re.I)


@lru_cache(maxsize=4096)
def _dateparser(phrase: str, base: datetime, prefer: str) -> datetime | None:
    import dateparser

    settings: dict[str, Any] = {
        "RELATIVE_BASE": base,
        "PREFER_DATES_FROM": prefer,
        "RETURN_AS_TIMEZONE_AWARE": False,
    }
    value = dateparser.parse(phrase, languages=["en"], settings=settings)
    return value if isinstance(value, datetime) else None


def _en_day(phrase: str, base: datetime, tense: str | None) -> datetime | None:
    """An English relative day phrase resolved by ``dateparser`` against ``base``."""
    lowered = " ".join(phrase.lower().split()).removeprefix("on ")
    tz = base.tzinfo or timezone.utc
    naive = base.replace(tzinfo=None)
    if lowered.startswith("this ") and lowered[5:] in ("morning", "afternoon", "evening"):
        return base
    if lowered == "tonight":
        return base
    if lowered == "last night":
        return base - timedelta(days=1)
    if lowered in ("this weekend", "next weekend", "coming weekend", "last weekend"):
        saturday = base + timedelta(days=5 - base.weekday())  # this week's
        shift = {"next": 7, "last": -7}.get(lowered.split()[0], 0)
        return saturday + timedelta(days=shift)
    m = _FROM_NOW.match(lowered)
    if m and (lowered.startswith("in ") or m.group("from") or lowered.endswith(("later", "time"))):
        n, unit = _number(m.group("n")), m.group("u").rstrip("s")
        if n is None:
            return None
        if unit == "fortnight":
            n, unit = n * 2, "week"
        start = naive + timedelta(days=1) if m.group("from") == "tomorrow" else naive
        value = _dateparser(f"in {n} {unit}{'s' if n > 1 else ''}", start, "future")
        return None if value is None else value.replace(tzinfo=tz)
    m = _AGO.match(lowered)
    if m:
        n, unit = _number(m.group("n")), m.group("u").rstrip("s")
        if n is None:
            return None
        if unit == "fortnight":
            n, unit = n * 2, "week"
        value = _dateparser(f"{n} {unit}{'s' if n > 1 else ''} ago", naive, "past")
        return None if value is None else value.replace(tzinfo=tz)
    plan = re.match(r"(next|coming|in |tomorrow|the day after)", lowered)
    bare_weekday = re.fullmatch(WEEKDAYS, lowered) is not None
    # a bare weekday is the coming one unless the turn tells of the past
    prefer = "future" if plan or (bare_weekday and tense != "past") else "past"
    if lowered.startswith("this "):
        prefer = "current_period"
        if re.fullmatch(WEEKDAYS, lowered[5:]):
            prefer = "future"
    if lowered.startswith("past "):
        lowered = "last " + lowered[5:]
    short = re.fullmatch(
        r"(next|last|this|coming) (mon|tues?|weds?|thu|thurs?|fri|sat|sun)\.?", lowered
    )
    if short:
        day = next(d for d in WEEKDAYS.split("|") if d.startswith(short.group(2)[:3]))
        lowered = f"{short.group(1)} {day}"
    value = _dateparser(lowered.replace("coming ", "next "), naive, prefer)
    if value is None:
        return None
    return value.replace(tzinfo=tz)


def _precision_of(phrase: str) -> Precision:
    lowered = phrase.lower()
    if re.search(r"\byears?\b", lowered):
        return "year"
    if re.search(r"\bmonths?\b", lowered):
        return "month"
    return "day"


def english_dates(f: Found) -> None:
    """Dates that name their day or month: "2024-05-03", "May 3rd", "the 14th", "March 2025",
    "on Christmas"."""
    text, base, tense, tz = f.text, f.base, f.tense, f.tz
    for m in _EN_ISO.finditer(text):
        f.add(m, absolute_day(int(m.group("d")), int(m.group("m")), m.group("y"), base, tense))
    for m in _EN_DATE.finditer(text):
        day, month = m.group("d1") or m.group("d2"), m.group("m1") or m.group("m2")
        year = m.group("y1") or m.group("y2")
        f.add(m, absolute_day(int(day), _MONTH_NUMBER[month.lower()], year, base, tense))
    for m in _EN_ORDINAL_DAY.finditer(text):
        day = int(m.group("d"))
        month_index = base.month - 1 + (1 if day < base.day and tense != "past" else 0)
        if tense == "past" and day > base.day:
            month_index -= 1
        try:
            f.add(m, datetime(base.year + month_index // 12, month_index % 12 + 1, day, tzinfo=tz))
        except ValueError:
            pass
    for m in _EN_MONTH_YEAR.finditer(text):
        month = _MONTH_NUMBER[m.group("m").lower()]
        f.add(m, datetime(int(m.group("y")), month, 1, tzinfo=tz), "month")
    for m in _EN_HOLIDAY.finditer(text):
        month, day = _EN_HOLIDAYS[m.group(1).lower()]
        f.add(m, resolve_year(month, day, base, tense))


def english_relative(f: Found) -> None:
    """Days, months and years said relative to the turn: "next Friday", "tomorrow", "in
    October", "in 2019" (a weekday said as a habit, "every Tuesday", is no date)."""
    text, base, tense = f.text, f.base, f.tense
    habitual = _HABITUAL_CUE.search(text) is not None
    for m in _EN_DAY.finditer(text):
        phrase = m.group(0)
        if _RECURRING.search(text[max(0, m.start() - 40) : m.start()]):
            continue  # "every Tuesday and Thursday"
        bare = re.fullmatch(rf"(?:on )?(?:{WEEKDAYS})", phrase, re.I) is not None
        if bare and (
            habitual
            or re.match(r"\s+(?:mornings|afternoons|evenings|nights)\b", text[m.end() :], re.I)
        ):
            continue  # "I usually run on Sunday mornings": a habit, not a date
        f.add(m, _en_day(phrase, base, tense), _precision_of(phrase))
    for m in _EN_MONTH.finditer(text):
        if m.group("m").lower() == "may" and not m.group("m")[0].isupper():
            continue  # "in may" is too often the verb
        month = _MONTH_NUMBER[m.group("m").lower()]
        f.add(m, resolve_month(month, base, tense, m.group("pre").lower()), "month")
    for m in _EN_YEAR.finditer(text):
        f.add(m, datetime(int(m.group("y")), 1, 1, tzinfo=f.tz), "year")


def ordinals_in_month(mentions: list[TimeMention]) -> list[TimeMention]:
    """ "in May, from the 14th": the 14th of that May (the month mention is dropped)."""
    months = [t for t in mentions if t.precision == "month"]
    ordinals = [t for t in mentions if _EN_ORDINAL_DAY.fullmatch(t.phrase)]
    if not (months and ordinals):
        return mentions
    month = months[0]
    for t in ordinals:
        day = int(re.search(r"\d+", t.phrase).group(0))  # type: ignore[union-attr]
        try:
            t.value = month.value.replace(day=day)
        except ValueError:
            continue
        t.start = min(t.start, month.start)
    return [t for t in mentions if t is not month]
