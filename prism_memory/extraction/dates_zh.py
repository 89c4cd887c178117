"""Chinese dates: numerals, and the patterns and readers of Chinese date phrases.

Design:
- ``cn_number`` reads numbers in digits or Chinese numerals ("25", "二十五", "一万二");
  ``cn_int`` is the same with 0 for no number.
- ``chinese_dates`` reads dates that name their day, month or year ("2024年5月3日",
  "下个月15号", "去年三月", holidays such as "五一" and "国庆"); ``chinese_relative`` day words
  and offsets ("明天", "三天后", "两个月前", "下周三"). Small pure functions, no general parser.
- Each reader adds to a ``date_values.Found``; ``dates.find_times`` runs them in order.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from .date_values import Found, Precision, absolute_day, resolve_month, resolve_year

__all__ = ["chinese_dates", "chinese_relative", "cn_int", "cn_number"]
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


def cn_int(text: str) -> int:
    """A day or count in digits or Chinese numerals (0 when it is neither)."""
    return cn_number(text) or 0


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
