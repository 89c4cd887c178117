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
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone, tzinfo
from functools import lru_cache
from typing import Any, Literal

__all__ = [
    "TimeMention",
    "cn_number",
    "find_times",
    "parse_clock",
    "parse_session_date",
    "resolve_year",
    "turn_tense",
]

Precision = Literal["day", "month", "year"]

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
_CN_DIGIT = {
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
}
_CN_UNIT = {"十": 10, "百": 100, "千": 1000, "万": 10000}


def cn_number(text: str) -> int | None:
    """A number written in digits or Chinese numerals ("两万" -> 20000, "十五" -> 15); a
    last digit right after 百/千/万 counts in the next lower unit, as said ("一万二" -> 12000,
    "三千五" -> 3500).

    >>> cn_number("一万二"), cn_number("一百零二"), cn_number("二十五")
    (12000, 102, 25)
    """
    if text.isdigit():
        return int(text)
    if len(text) >= 3 and text[-1] in _CN_DIGIT and text[-2] in "百千万":
        head = cn_number(text[:-1])
        if head is not None:
            return head + _CN_DIGIT[text[-1]] * _CN_UNIT[text[-2]] // 10
    total, section, digit = 0, 0, 0
    for ch in text:
        if ch in _CN_DIGIT:
            digit = _CN_DIGIT[ch]
        elif ch in _CN_UNIT:
            unit = _CN_UNIT[ch]
            if unit == 10000:
                total += (section + digit) * unit
                section, digit = 0, 0
            else:
                section += (digit or 1) * unit
                digit = 0
        else:
            return None
    return total + section + digit


_CN_DIGITS = "零一二两三四五六七八九十"
_CN_DAY = re.compile(
    r"(大前天|前天|昨天|今天|今晚|明天|明晚|后天|大后天|"
    r"(?<!每)(?:下|上|这|本)(?:个)?(?:周|星期|礼拜)(?:[一二三四五六日天]|末)?|"
    r"(?<![每上下这本个])(?:周|星期|礼拜)[一二三四五六日天](?!晚上?都)|(?<!每)周末)"
)
_CN_OFFSET = re.compile(
    rf"([\d{_CN_DIGITS}半]{{1,3}})(?:个)?(天|日|周|星期|个?月|年)(?:之?后|以后|之?前|以前)"
)
_CN_MONTH_DAY = re.compile(
    rf"(下|上|这|本)个?月([\d{_CN_DIGITS}]{{1,3}})[日号號]|(?<![月\d{_CN_DIGITS}])([\d{_CN_DIGITS}]{{1,3}})[号號](?!码|楼|线|房)"
)
_CN_MONTH = re.compile(r"(下|上|这|本)个?月(?![\d零一二两三四五六七八九十]{1,3}[日号號])")
# a bare month ("五月", "10月份"): not "3个月" (a duration) and not a month with its day
_CN_BARE_MONTH = re.compile(
    r"(?<![\d零一二两三四五六七八九十年个每上下这本])(1[0-2]|[1-9]|十[一二]?|[一二三四五六七八九])月份?"
    r"(?![\d零一二两三四五六七八九十]{1,3}[日号號])(?!薪|租|费|饼|光|亮|子|嫂|票)"
)
_CN_YEAR = re.compile(r"(去年|今年|明年|前年|后年)(?:([\d一二三四五六七八九十]{1,3})月)?")
_CN_HOLIDAYS = {
    "元旦": (1, 1),
    "五一": (5, 1),
    "劳动节": (5, 1),
    "国庆": (10, 1),
    "国庆节": (10, 1),
    "圣诞": (12, 25),
    "圣诞节": (12, 25),
    "情人节": (2, 14),
    "儿童节": (6, 1),
    "平安夜": (12, 24),
}
_CN_HOLIDAY = re.compile("|".join(sorted(_CN_HOLIDAYS, key=len, reverse=True)))
_CN_CLOCK = re.compile(
    r"(上午|早上|中午|下午|晚上)?([零一二两三四五六七八九十\d]{1,3})[点點时](?:([零一二三四五六七八九十\d]{1,3})分?|半)?"
)
_CN_DATE = re.compile(
    r"(?:(\d{4})年)?([零一二两三四五六七八九十\d]{1,3})月([零一二两三四五六七八九十\d]{1,3})[日号號]"
)
_CN_OFFSETS = {
    "大前天": -3,
    "前天": -2,
    "昨天": -1,
    "今天": 0,
    "今晚": 0,
    "明天": 1,
    "明晚": 1,
    "后天": 2,
    "大后天": 3,
}
_CN_WEEKDAY = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6, "末": 5}


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


def cn_int(text: str) -> int:
    """A day or count in digits or Chinese numerals (0 when it is neither)."""
    return cn_number(text) or 0


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


def day_start(value: datetime) -> datetime:
    return value.replace(hour=0, minute=0, second=0, microsecond=0)


def _cn_day(phrase: str, base: datetime) -> datetime:
    if phrase in _CN_OFFSETS:
        return base + timedelta(days=_CN_OFFSETS[phrase])
    if phrase == "周末":
        return base + timedelta(days=(5 - base.weekday()) % 7)
    week = 7 if phrase[0] == "下" else (-7 if phrase[0] == "上" else 0)
    monday = base - timedelta(days=base.weekday()) + timedelta(days=week)
    last = phrase[-1]
    if last in _CN_WEEKDAY:
        day = monday + timedelta(days=_CN_WEEKDAY[last])
        if phrase[0] in "周星礼" and week == 0 and day.date() < base.date():
            return day + timedelta(days=7)  # a bare "周五" is the coming one
        return day
    return monday


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
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    if year is None:
        return resolve_year(month, day, base, tense)
    try:
        return datetime(int(year), month, day, tzinfo=base.tzinfo or timezone.utc)
    except ValueError:
        return None


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


# a cheap first look: texts without any of these have no temporal expression at all
_ANY_TIME = re.compile(
    rf"\d|\b(?:{WEEKDAYS}|{MONTHS}|today|tonight|tomorrow|yesterday|ago|week|month|year|"
    r"fortnight|christmas|new year|halloween|valentine|morning|afternoon|evening|night|day)|"
    r"[天周月号日年晚点]|星期|礼拜|元旦|五一|劳动节|国庆|圣诞|情人节|儿童节|平安夜|"
    r"[零一二两三四五六七八九十]",
    re.I,
)


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
        return self.base.tzinfo or timezone.utc

    def add(self, m: re.Match[str], value: datetime | None, precision: Precision = "day") -> None:
        if value is None or _overlaps(m.span(), self.taken):
            return
        self.taken.append(m.span())
        self.mentions.append(
            TimeMention(m.group(0), m.start(), value, True, precision=precision, end=m.end())
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


def chinese_dates(f: Found) -> None:
    """Chinese dates: "2024年5月3日", "(下个月)15号", "下个月", "去年三月", "三月", "国庆"."""
    text, base, tense, tz = f.text, f.base, f.tense, f.tz
    for m in _CN_DATE.finditer(text):
        f.add(m, absolute_day(cn_int(m.group(3)), cn_int(m.group(2)), m.group(1), base, tense))
    for m in _CN_MONTH_DAY.finditer(text):
        rel, day_text = m.group(1), m.group(2) or m.group(3)
        day = cn_int(day_text)
        month_shift = {"下": 1, "上": -1}.get(rel or "", 0)
        month_index = base.month - 1 + month_shift
        year, month = base.year + month_index // 12, month_index % 12 + 1
        if rel is None and day < base.day and tense != "past":
            month_index += 1  # a bare "15号" already passed this month is next month's
            year, month = base.year + month_index // 12, month_index % 12 + 1
        try:
            f.add(m, datetime(year, month, day, tzinfo=tz))
        except ValueError:
            continue
    for m in _CN_MONTH.finditer(text):
        shift = {"下": 1, "上": -1}.get(m.group(1), 0)
        index = base.month - 1 + shift
        f.add(m, datetime(base.year + index // 12, index % 12 + 1, 1, tzinfo=tz), "month")
    for m in _CN_YEAR.finditer(text):
        year = base.year + {"前年": -2, "去年": -1, "今年": 0, "明年": 1, "后年": 2}[m.group(1)]
        if m.group(2):
            f.add(m, datetime(year, max(1, min(12, cn_int(m.group(2)))), 1, tzinfo=tz), "month")
        elif m.group(1) != "今年":
            f.add(m, datetime(year, 1, 1, tzinfo=tz), "year")
    for m in _CN_BARE_MONTH.finditer(text):
        f.add(m, resolve_month(cn_int(m.group(1)), base, tense, ""), "month")
    for m in _CN_HOLIDAY.finditer(text):
        month, day = _CN_HOLIDAYS[m.group(0)]
        f.add(m, resolve_year(month, day, base, tense))


def chinese_relative(f: Found) -> None:
    """Chinese offsets and days: "三天后", "两个月前", "明天", "下周三"."""
    for m in _CN_OFFSET.finditer(f.text):
        n_text, unit = m.group(1), m.group(2).lstrip("个")
        n = 0.5 if n_text == "半" else cn_int(n_text)
        sign = -1 if "前" in m.group(0) else 1
        days = {"天": 1, "日": 1, "周": 7, "星期": 7, "月": 30, "年": 365}[unit] * n * sign
        precision: Precision = "day" if unit in ("天", "日", "周", "星期") else "month"
        f.add(m, f.base + timedelta(days=days), precision)
    for m in _CN_DAY.finditer(f.text):
        f.add(m, _cn_day(m.group(0), f.base))


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


def parse_session_date(text: str) -> datetime | None:
    """A LoCoMo-style session date ("1:56 pm on 8 May, 2023") as UTC, or ``None``.

    >>> parse_session_date("1:56 pm on 8 May, 2023").isoformat()
    '2023-05-08T13:56:00+00:00'
    """
    import dateparser

    value = dateparser.parse(text, languages=["en"], settings={"RETURN_AS_TIMEZONE_AWARE": False})
    return None if value is None else value.replace(tzinfo=timezone.utc)
