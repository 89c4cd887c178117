"""Dates and clock times in a turn, resolved against the turn's ``event_time``.

Design: regexes find the temporal expressions (English and Chinese) so the general parser only
sees short candidate phrases; English relative phrases ("next Friday", "last week", "in two
weeks", "three days from now") are resolved by ``dateparser`` with ``RELATIVE_BASE`` = the
turn's time (phrases it reads differently, "a week from today", are rewritten first), Chinese
day words, holidays, dates and clock times ("明天下午三点", "下个月15号", "五一", "3pm", "15:30")
by small pure functions. The result is a list of :class:`TimeMention` with a ``precision``
(``day``, ``month`` or ``year``: "in October" is a month, "in 2019" a year). Nothing here reads
the clock: the same text and base give the same dates on any day. Recurring expressions
("every Tuesday", "on Mondays", "每周三") are not dates.

A date without a year ("May 13", "13th of May", "5月13日", "in October") takes the year chosen
by :func:`resolve_year`, relative to the turn's time (the base), from the turn's tense
(:func:`turn_tense`): a plan (future cue such as "will", "going to", "plan to", a present
progressive "I'm flying", "要", "打算") -> the first such date on or after the base; a
past-tense turn ("went", "was", "ago", "了", "过") -> the last one on or before the base; no
cue, or both kinds -> the one nearest the base. A bare weekday ("on Friday") is the next one
for a plan, else the most recent one.

Layout: ``find_times`` runs the readers of ``dates_en`` and ``dates_zh`` in order (most specific
first) over one ``date_values.Found``; ``date_values`` holds ``TimeMention`` and the year/month
resolution; this module adds the clock (``parse_clock``), the turn's tense (``turn_tense``)
and session headers (``parse_session_date``).
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

from .date_values import Found, TimeMention, day_start, resolve_year
from .dates_en import MONTHS, WEEKDAYS, english_dates, english_relative, ordinals_in_month
from .dates_zh import chinese_dates, chinese_relative, cn_int, cn_number

__all__ = [
    "TimeMention",
    "cn_number",
    "find_times",
    "parse_clock",
    "parse_session_date",
    "resolve_year",
    "turn_tense",
]
# tense cues of a turn: they only choose the year of a date written without one
_EN_FUTURE = re.compile(
    r"\b(?:will|shall|'ll|going to|gonna|plan(?:s|ning)? to|planning|want(?:s)? to|"
    r"would like|'d like|hope to|intend(?:s)? to|about to|upcoming|coming up|next|tomorrow|"
    r"soon|looking forward|can't wait|scheduled|remind me|need to|have to|"
    r"(?:am|is|are|'m|'re) (?!going\b)\w+ing)\b",
    re.IGNORECASE,
)
_EN_PAST = re.compile(
    r"\b(?:was|were|went|did|had|ago|used to|back in|visited|attended|"
    r"happened|celebrated|spent|took|saw|met|last|yesterday|got back|came back|returned)\b|"
    r"\b(?:I|we|he|she|they)\s+(?:just\s+|already\s+|finally\s+)?\w+ed\b",
    re.IGNORECASE,
)
_CN_FUTURE = re.compile(
    r"要|将|会|打算|计划|准备|想去|以后|之后|安排|明年|下个?月|下周|约了|"
    r"改到|改在|改成|推迟|延期|提前到|挪到|定在|定于"
)
_CN_PAST = re.compile(r"过|以前|曾|去年|上个?月|上周|了")
_EN_CLOCK = re.compile(
    r"\b(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)|\b(\d{1,2}):(\d{2})\b|"
    r"\bat (\d{1,2})(?![:.\d]|\s*(?:%|\w))",
    re.I,
)
_CN_CLOCK = re.compile(
    r"(上午|早上|中午|下午|晚上)?([零一二两三四五六七八九十\d]{1,3})[点點时](?:([零一二三四五六七八九十\d]{1,3})分?|半)?"
)


def parse_clock(text: str, *, bare: bool = False) -> tuple[int, int] | None:
    """The last clock time in ``text`` as (hour, minute), English or Chinese. ``bare``: also
    read "at 4" (1-7 is afternoon), which only makes sense next to a date.

    >>> parse_clock("move it from 3pm to 4:30 pm"), parse_clock("明天下午三点")
    ((16, 30), (15, 0))
    """
    found: tuple[int, int] | None = None
    for m in _EN_CLOCK.finditer(text):
        if m.group(1):
            hour, minute = int(m.group(1)) % 12, int(m.group(2) or 0)
            if m.group(3).lower().startswith("p"):
                hour += 12
        elif m.group(4):
            hour, minute = int(m.group(4)), int(m.group(5))
        else:
            if not bare:
                continue
            hour, minute = int(m.group(6)), 0
            if not 1 <= hour <= 12:
                continue
            if hour <= 7:
                hour += 12
        if hour < 24 and minute < 60:
            found = (hour, minute)
    for m in _CN_CLOCK.finditer(text):
        hour = cn_int(m.group(2))
        minute = 30 if m.group(0).endswith("半") else (cn_int(m.group(3)) if m.group(3) else 0)
        if m.group(1) in ("下午", "晚上") and hour < 12:
            hour += 12
        if hour < 24 and minute < 60:
            found = (hour, minute)
    return found


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


# a cheap first look: texts without any of these have no temporal expression at all
_ANY_TIME = re.compile(
    rf"\d|\b(?:{WEEKDAYS}|{MONTHS}|today|tonight|tomorrow|yesterday|ago|week|month|year|"
    r"fortnight|christmas|new year|halloween|valentine|morning|afternoon|evening|night|day)|"
    r"[天周月号日年晚点]|星期|礼拜|元旦|五一|劳动节|国庆|圣诞|情人节|儿童节|平安夜|"
    r"[零一二两三四五六七八九十]",
    re.I,
)


def find_times(text: str, base: datetime) -> list[TimeMention]:
    """Every date expression in ``text`` resolved against ``base``; a clock time in the text
    is applied to the first date (or to ``base``'s day when there is no date). A date without
    a year gets the year :func:`resolve_year` picks for the text's :func:`turn_tense`.

    >>> b = datetime(2024, 5, 8, 10, tzinfo=timezone.utc)
    >>> [m.value.isoformat() for m in find_times("move tomorrow's 3pm meeting to 4pm", b)]
    ['2024-05-09T16:00:00+00:00']
    >>> [(m.phrase, m.iso()) for m in find_times("I'm training for a marathon in October", b)]
    [('in October', '2024-10')]
    """
    if not _ANY_TIME.search(text):
        return []
    found = Found(text, base, turn_tense(text))
    # most specific first: a later, vaguer pattern never overrides a span already read
    for read in (english_dates, english_relative, chinese_dates, chinese_relative):
        read(found)
    mentions = found.mentions
    _apply_clock(mentions, text, base)
    mentions = ordinals_in_month(mentions)
    for t in mentions:
        if t.has_date and not t.has_clock:
            t.value = day_start(t.value)
    return sorted(mentions, key=lambda t: t.start)


def _apply_clock(mentions: list[TimeMention], text: str, base: datetime) -> None:
    """A clock time in ``text`` goes to the first dated mention (a day), or, without a date,
    becomes a mention of ``base``'s day at that time."""
    clock = parse_clock(text, bare=bool(mentions))
    if clock is None:
        return
    if mentions:
        first = min(mentions, key=lambda t: t.start)
        if first.precision == "day":
            first.value = first.value.replace(
                hour=clock[0], minute=clock[1], second=0, microsecond=0
            )
            first.has_clock = True
        return
    at = base.replace(hour=clock[0], minute=clock[1], second=0, microsecond=0)
    mentions.append(TimeMention("clock", -1, at, False, True))


def parse_session_date(text: str) -> datetime | None:
    """A LoCoMo-style session date ("1:56 pm on 8 May, 2023") as UTC, or ``None``.

    Only a complete, absolute date is a session date: a relative phrase ("10 years ago") or
    one without its year would be read against today's clock, so it is ``None``.

    >>> parse_session_date("1:56 pm on 8 May, 2023").isoformat()
    '2023-05-08T13:56:00+00:00'
    >>> parse_session_date("10 years ago") is None, parse_session_date("8 May") is None
    (True, True)
    """
    import dateparser

    settings = {
        "RETURN_AS_TIMEZONE_AWARE": False,
        "PARSERS": ["timestamp", "custom-formats", "absolute-time"],
        "REQUIRE_PARTS": ["day", "month", "year"],
    }
    value = dateparser.parse(text, languages=["en"], settings=settings)
    return None if value is None else value.replace(tzinfo=timezone.utc)
