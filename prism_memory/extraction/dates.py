"""Relative dates and clock times, resolved against a turn's ``event_time``.

Design: a regex finds the temporal expressions (English and Chinese) so the slow, general
parser only sees short candidate phrases; English phrases are resolved by ``dateparser`` with
``RELATIVE_BASE`` = the turn's time, Chinese day words and clock times ("明天下午三点",
"3pm", "15:30") by small pure functions. The result is a list of :class:`TimeMention`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

__all__ = ["TimeMention", "find_times", "parse_clock", "parse_session_date"]

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
    rf"(?:on )?(?:{_WEEKDAYS})|"
    rf"\d{{1,2}}(?:st|nd|rd|th)? (?:of )?(?:{_MONTHS})(?:,? \d{{4}})?|"
    rf"(?:{_MONTHS}) \d{{1,2}}(?:st|nd|rd|th)?(?:,? \d{{4}})?)\b",
    re.IGNORECASE,
)
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


def _en_day(phrase: str, base: datetime) -> datetime | None:
    import dateparser

    lowered = phrase.lower().removeprefix("on ")
    prefer = (
        "future"
        if re.match(r"(next|coming|in |tomorrow|tonight|the day after)", lowered)
        else "past"
    )
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
    is applied to the first date (or to ``base``'s day when there is no date).

    >>> b = datetime(2024, 5, 8, 10, tzinfo=timezone.utc)
    >>> [m.value.isoformat() for m in find_times("move tomorrow's 3pm meeting to 4pm", b)]
    ['2024-05-09T16:00:00+00:00']
    """
    mentions: list[TimeMention] = []
    for m in _EN_DAY.finditer(text):
        value = _en_day(m.group(0), base)
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
