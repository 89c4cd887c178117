"""Relative dates and clock times, resolved against a turn's ``event_time``.

Design: a regex finds the temporal expressions (English and Chinese) so the slow, general
parser only sees short candidate phrases; English relative phrases are resolved by
``dateparser`` with ``RELATIVE_BASE`` = the turn's time, Chinese day words, dates and clock
times ("明天下午三点", "5月13日", "3pm", "15:30") by small pure functions. The result is a list of
:class:`TimeMention`. Nothing here reads the clock: the same text and base give the same dates
on any day.

A date without a year ("May 13", "13th of May", "5月13日") takes the year chosen by
:func:`resolve_year`, relative to the turn's time (the base), from the turn's tense
(:func:`turn_tense`): a plan (future cue such as "will", "going to", "plan to", "要", "打算") ->
the first such date on or after the base; a past-tense turn ("went", "was", "ago", "了", "过")
-> the last one on or before the base; no cue, or both kinds -> the one nearest the base. A bare
weekday ("on Friday") is the next one for a plan, else the most recent one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

__all__ = [
    "TimeMention",
    "find_times",
    "parse_clock",
    "parse_session_date",
    "resolve_year",
    "turn_tense",
]

_WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december|"
    "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
_EN_DAY = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|the day (?:before yesterday|after tomorrow)|"
    rf"(?:next|last|this|coming) (?:{_WEEKDAYS}|week|weekend|month|year)|"
    r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of) "
    r"(?:days?|weeks?|months?|years?) ago|"
    r"in (?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten) (?:days?|weeks?|months?)|"
    rf"(?:on )?(?:{_WEEKDAYS}))\b",
    re.IGNORECASE,
)
_EN_DATE = re.compile(
    rf"\b(?:(?P<d1>\d{{1,2}})(?:st|nd|rd|th)? (?:of )?(?P<m1>{_MONTHS})\.?(?:,? (?P<y1>\d{{4}}))?|"
    rf"(?P<m2>{_MONTHS})\.? (?P<d2>\d{{1,2}})(?:st|nd|rd|th)?(?:,? (?P<y2>\d{{4}}))?)\b(?!:)",
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
# tense cues of a turn: they only choose the year of a date written without one
_EN_FUTURE = re.compile(
    r"\b(?:will|shall|'ll|going to|gonna|plan(?:s|ning)? to|planning|want(?:s)? to|"
    r"would like|'d like|hope to|intend(?:s)? to|about to|upcoming|coming up|next|tomorrow|"
    r"soon|looking forward|can't wait|scheduled|remind me)\b",
    re.IGNORECASE,
)
_EN_PAST = re.compile(
    r"\b(?:was|were|went|did|had|ago|used to|back in|visited|attended|"
    r"happened|celebrated|spent|took|saw|met)\b",
    re.IGNORECASE,
)
_CN_FUTURE = re.compile(r"要|将|会|打算|计划|准备|想去|以后|之后|安排|明年")
_CN_PAST = re.compile(r"过|以前|曾|去年")
_EN_CLOCK = re.compile(
    r"\b(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)|\b(\d{1,2}):(\d{2})\b", re.I
)
_CN_NUM = {
    "零": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
    "十": 10,
}
_CN_DAY = re.compile(
    r"(大前天|前天|昨天|今天|明天|后天|大后天|(?:下|上|这|本)(?:个)?(?:周|星期|礼拜)[一二三四五六日天]?)"
)
_CN_CLOCK = re.compile(
    r"(上午|早上|中午|下午|晚上)?([零一二两三四五六七八九十\d]{1,3})[点點时](?:([零一二三四五六七八九十\d]{1,3})分?|半)?"
)
_CN_DATE = re.compile(
    r"(?:(\d{4})年)?([零一二两三四五六七八九十\d]{1,3})月([零一二两三四五六七八九十\d]{1,3})[日号號]"
)
_CN_OFFSETS = {"大前天": -3, "前天": -2, "昨天": -1, "今天": 0, "明天": 1, "后天": 2, "大后天": 3}
_CN_WEEKDAY = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}


@dataclass
class TimeMention:
    """A temporal expression in a text and the date/time it resolves to."""

    phrase: str
    start: int
    value: datetime
    has_date: bool
    has_clock: bool = False


def _cn_int(text: str) -> int:
    if text.isdigit():
        return int(text)
    if text == "十":
        return 10
    if text.startswith("十"):
        return 10 + _CN_NUM.get(text[1:], 0)
    if "十" in text:
        tens, _, ones = text.partition("十")
        return _CN_NUM.get(tens, 0) * 10 + (_CN_NUM.get(ones, 0) if ones else 0)
    return _CN_NUM.get(text, 0)


def parse_clock(text: str) -> tuple[int, int] | None:
    """The last clock time in ``text`` as (hour, minute), English or Chinese.

    >>> parse_clock("move it from 3pm to 4:30 pm"), parse_clock("明天下午三点")
    ((16, 30), (15, 0))
    """
    found: tuple[int, int] | None = None
    for m in _EN_CLOCK.finditer(text):
        if m.group(1):
            hour, minute = int(m.group(1)) % 12, int(m.group(2) or 0)
            if m.group(3).lower().startswith("p"):
                hour += 12
        else:
            hour, minute = int(m.group(4)), int(m.group(5))
        if hour < 24 and minute < 60:
            found = (hour, minute)
    for m in _CN_CLOCK.finditer(text):
        hour = _cn_int(m.group(2))
        minute = 30 if m.group(0).endswith("半") else (_cn_int(m.group(3)) if m.group(3) else 0)
        if m.group(1) in ("下午", "晚上") and hour < 12:
            hour += 12
        if hour < 24 and minute < 60:
            found = (hour, minute)
    return found


def _cn_day(phrase: str, base: datetime) -> datetime:
    if phrase in _CN_OFFSETS:
        return base + timedelta(days=_CN_OFFSETS[phrase])
    week = 7 if phrase[0] == "下" else (-7 if phrase[0] == "上" else 0)
    monday = base - timedelta(days=base.weekday()) + timedelta(days=week)
    last = phrase[-1]
    return monday + timedelta(days=_CN_WEEKDAY[last]) if last in _CN_WEEKDAY else monday


def turn_tense(text: str) -> str | None:
    """``"future"`` (a plan), ``"past"`` or ``None`` (no cue, or cues of both kinds).

    >>> turn_tense("We will fly on May 13"), turn_tense("I went there on May 13"), turn_tense("May 13")
    ('future', 'past', None)
    >>> turn_tense("我打算5月13日去北京"), turn_tense("我以前去过北京")
    ('future', 'past')
    """
    future = bool(_EN_FUTURE.search(text) or _CN_FUTURE.search(text))
    past = bool(_EN_PAST.search(text) or _CN_PAST.search(text))
    if future == past:
        return None
    return "future" if future else "past"


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


def _absolute_day(
    day: int, month: int, year: str | None, base: datetime, tense: str | None
) -> datetime | None:
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    if year is None:
        return resolve_year(month, day, base, tense)
    try:
        return datetime(int(year), month, day, tzinfo=base.tzinfo or timezone.utc)
    except ValueError:
        return None


def _en_day(phrase: str, base: datetime, tense: str | None) -> datetime | None:
    import dateparser

    lowered = phrase.lower().removeprefix("on ")
    plan = re.match(r"(next|coming|in |tomorrow|tonight|the day after)", lowered)
    bare_weekday = re.fullmatch(_WEEKDAYS, lowered) is not None
    prefer = "future" if plan or (bare_weekday and tense == "future") else "past"
    settings: dict[str, Any] = {
        "RELATIVE_BASE": base.replace(tzinfo=None),
        "PREFER_DATES_FROM": prefer,
        "RETURN_AS_TIMEZONE_AWARE": False,
    }
    if lowered.startswith("this "):
        lowered = lowered[5:]
        settings["PREFER_DATES_FROM"] = "current_period"
    value = dateparser.parse(
        lowered.replace("coming ", "next "), languages=["en"], settings=settings
    )
    if not isinstance(value, datetime):
        return None
    return value.replace(tzinfo=base.tzinfo or timezone.utc)


def find_times(text: str, base: datetime) -> list[TimeMention]:
    """Every date expression in ``text`` resolved against ``base``; a clock time in the text
    is applied to the first date (or to ``base``'s day when there is no date). A date without
    a year gets the year :func:`resolve_year` picks for the text's :func:`turn_tense`.

    >>> b = datetime(2024, 5, 8, 10, tzinfo=timezone.utc)
    >>> [m.value.isoformat() for m in find_times("move tomorrow's 3pm meeting to 4pm", b)]
    ['2024-05-09T16:00:00+00:00']
    """
    mentions: list[TimeMention] = []
    tense = turn_tense(text)
    for m in _EN_DATE.finditer(text):
        day, month = m.group("d1") or m.group("d2"), m.group("m1") or m.group("m2")
        value = _absolute_day(
            int(day), _MONTH_NUMBER[month.lower()], m.group("y1") or m.group("y2"), base, tense
        )
        if value is not None:
            mentions.append(TimeMention(m.group(0), m.start(), value, True))
    for m in _EN_DAY.finditer(text):
        value = _en_day(m.group(0), base, tense)
        if value is not None:
            mentions.append(TimeMention(m.group(0), m.start(), value, True))
    for m in _CN_DATE.finditer(text):
        value = _absolute_day(_cn_int(m.group(3)), _cn_int(m.group(2)), m.group(1), base, tense)
        if value is not None:
            mentions.append(TimeMention(m.group(0), m.start(), value, True))
    for m in _CN_DAY.finditer(text):
        mentions.append(TimeMention(m.group(0), m.start(), _cn_day(m.group(0), base), True))
    clock = parse_clock(text)
    if clock is not None:
        if mentions:
            first = min(mentions, key=lambda t: t.start)
            first.value = first.value.replace(
                hour=clock[0], minute=clock[1], second=0, microsecond=0
            )
            first.has_clock = True
        else:
            mentions.append(
                TimeMention(
                    "clock",
                    -1,
                    base.replace(hour=clock[0], minute=clock[1], second=0, microsecond=0),
                    False,
                    True,
                )
            )
    return sorted(mentions, key=lambda t: t.start)


def parse_session_date(text: str) -> datetime | None:
    """A LoCoMo-style session date ("1:56 pm on 8 May, 2023") as UTC, or ``None``.

    >>> parse_session_date("1:56 pm on 8 May, 2023").isoformat()
    '2023-05-08T13:56:00+00:00'
    """
    import dateparser

    value = dateparser.parse(text, languages=["en"], settings={"RETURN_AS_TIMEZONE_AWARE": False})
    return None if value is None else value.replace(tzinfo=timezone.utc)
