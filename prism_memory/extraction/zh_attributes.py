"""Chinese predicates that state a property of their subject (a slot with one current value).

Design: the clause reader (``chinese.py``) finds the subject (我, a named person, 其/他/她 for
the person just named) and hands the rest of the clause here. Each reader recognises one
grammatical construction, by its structure rather than by its words:

- *attribute copula*: ``(的)ATTR 是/为 VALUE`` and ``ATTR + measure`` (``其年龄是32岁``,
  ``她的生日是5月20日``, ``体重65公斤``, ``专业是计算机``). ATTR is a noun that names a property
  of a person (``zh_lexicon.ZH_ATTRIBUTES`` -> a slot such as ``age`` or ``birthday``); after an
  explicit possessor (我的, 其, 她的) any short noun is accepted except discourse nouns
  (意思, 问题: "我的意思是..." states no property). A birthday keeps month and day only: it
  recurs every year, it is not a one-off event.
- *nominalised verb* ``V的(N)是W``: what the subject uses, drives, wears (``我平时用的是雅漾的
  喷雾`` -> what they use: the brand and item, ``我开的是比亚迪``); with a liking verb
  (``最爱喝的奶茶是X``) it is a preference for X.
- *employer*: ``跳槽到了腾讯``, ``入职了X`` fill the workplace.
- *residence*: a move (``搬到了杭州``, ``搬去深圳``) or a home (``家在北京``) fills the home city,
  so a later move supersedes the earlier city; ``是湖南人`` / ``老家是长沙`` the hometown.
- *schooling*: ``读高二``, ``在读研究生`` (what they study), ``是浙大毕业的`` / ``毕业于X``,
  ``考上了复旦``; *work*: ``是做外贸的``, ``退休了``; *age*: ``满三十``.
- *commute*: ``上班坐地铁``.

Every reader returns ``None`` when its construction is absent; the first match wins.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from ..records import Entity
from .candidate import FactCandidate
from .dates import cn_number, find_times
from .zh_lexicon import ZH_ATTRIBUTES, ZH_DISCOURSE_NOUNS, ZH_MEASURE_UNITS
from .zh_names import is_name_shaped

__all__ = ["read_change", "read_property", "slot_fields"]

_HAN = "\u4e00-\u9fff"
_ATTR = "|".join(sorted(ZH_ATTRIBUTES, key=len, reverse=True))
_NUM = r"[\d零一二两三四五六七八九十百千万.]+"
_LEAD = re.compile(r"^(?:现在|目前|今年|如今|已经|一直|平时|本人|刚刚|刚|每个?月|每年|每周|每天)+")
_TAIL = re.compile(r"(?:了|啦|呢|吧|啊|呀|哦|哈|左右|上下)+$")
_COPULA = re.compile(rf"^(?P<attr>[{_HAN}A-Za-z]{{1,6}}?)(?P<cop>是|为|在|：|:)(?P<v>.+)$")
_MEASURE = re.compile(
    rf"^(?P<attr>{_ATTR})(?:是|为|有|大概|大约|约|差不多|才|快|刚|已经|都)*(?P<v>{_NUM}\s*(?:{ZH_MEASURE_UNITS})?.*)$"
)
_HEDGE = re.compile(r"(?:大概|大约|差不多|一般|基本|都|也|还|就|应该|可能)+$")
_DISCOURSE = re.compile(rf"(?:{ZH_DISCOURSE_NOUNS})$")
_NOMINAL = re.compile(
    rf"^(?P<frame>[{_HAN}]{{0,4}}?(?P<like>最爱|最喜欢|喜欢|爱|常)?"
    rf"(?P<verb>用|开|穿|戴|喝|吃|抽|看|听|玩|骑|坐|读|背|住|涂|擦|买|订|点)?)的"
    rf"(?P<noun>[{_HAN}A-Za-z]{{0,6}}?)(?:一直|都|就|基本|主要)?是(?P<v>.{{2,40}})$"
)
_SIGN = re.compile(r"^属(?P<animal>[鼠牛虎兔龙蛇马羊猴鸡狗猪])$|^是[\u4e00-\u9fff]{2}座$")
_MEASURE_WORD = re.compile(r"^(?:一|两|几)?(?:辆|台|部|款|个|件|双|只|把|瓶|支|套|本|杯|份|种)")
_MOVE = re.compile(rf"(?:搬|迁)(?:家)?(?:到|去|来|回)了?(?P<v>[{_HAN}A-Za-z]{{2,12}})")
_JOINED = re.compile(
    rf"(?:跳槽|调|转)(?:到|去)了?(?P<v>[{_HAN}A-Za-z]{{2,12}})|^(?:入职|加入)了?(?P<w>[{_HAN}A-Za-z]{{2,12}})"
)
_HOME = re.compile(
    rf"^(?:(?:家|家里|家就)(?:住)?在|住在)(?P<v>[{_HAN}A-Za-z]{{2,12}}?)(?<![楼层号室边旁面壁近])(?:了|啦)?$"
)
_NATIVE = re.compile(rf"^是(?P<v>[{_HAN}]{{2,6}}?)人$")
_SELF_NAME = re.compile(rf"^(?:叫|名叫)(?P<v>[{_HAN}]{{2,3}})$")
_AGE_REACHED = re.compile(r"^满(?P<n>[\d零一二两三四五六七八九十]{1,4})(?:岁|周岁)?$")
_RETIRED = re.compile(r"^(?:已经)?退休(?:了|啦)?$")
_QUIT = re.compile(r"^(?:已经)?(?:辞职|离职|裸辞|被裁|失业)(?:了|啦)?$")
_TRADE = re.compile(rf"^是?(?:做|搞|干)(?P<v>[{_HAN}]{{2,6}}?)的$")
_ADMITTED = re.compile(rf"考(?:上|进|取)了?(?P<v>[{_HAN}A-Za-z]{{2,12}})")
_GRADE = re.compile(
    r"^(?:在读|正在读|在上|读|上|念)(?P<v>研究生|研[一二三]|博士|大学|大[一二三四]|高中|高[一二三]|"
    r"初中|初[一二三]|小学|[一二三四五六]年级|幼儿园|中专|大专|本科)"
)
_GRADUATED = re.compile(
    rf"^(?:是)?(?P<v>[{_HAN}A-Za-z]{{2,12}}?)(?:毕业的?|毕业)$|^毕业于(?P<w>[{_HAN}A-Za-z]{{2,12}})"
)
_COMMUTE = re.compile(
    rf"^(?:上班|上学|通勤|下班)(?:一般|都|通常|基本|主要)?(?:是)?(?P<v>(?:坐|乘|搭|开|骑|打|走)[{_HAN}A-Za-z]{{1,6}})"
)

_QUALITY = re.compile(r"(?:色|款|种|样|新|旧|大|小|长|短|高|低|贵|便宜)$")
_CHANGE = re.compile(
    rf"^(?P<attr>[{_HAN}]{{2,4}}?)(?:又|也|已经|下个?月|明年)?(?:从[^，。,]{{1,10}}?)?"
    rf"(?:涨到|涨了到|降到|提高到|增加到|降低到|调整到|调到|改成|改为|变成|变为|上调到|下调到|减到)了?"
    rf"(?P<v>{_NUM}\s*(?:万|千)?(?:元|块钱|块|美元|{ZH_MEASURE_UNITS})?)"
)


def slot_fields(holder: str, attribute: str, value: str) -> dict[str, Any]:
    """``Fact`` fields of a slot; the user is the schema's default subject."""
    fields: dict[str, Any] = {"attribute": attribute, "value": value}
    if holder != "user":
        fields["subject"] = holder
    return fields


def _clean(value: str) -> str:
    return _TAIL.sub("", value.strip(" ，,。")).strip()


def _amount(value: str) -> float | None:
    m = re.search(r"(\d+(?:\.\d+)?)\s*(万|千)?", value)
    if m:
        return float(m.group(1)) * {"万": 1e4, "千": 1e3}.get(m.group(2) or "", 1.0)
    m = re.search(r"[零一二两三四五六七八九十百千万]+", value)
    n = cn_number(m.group(0)) if m else None
    return float(n) if n is not None else None


def _slot(attr: str) -> str | None:
    """The slot a noun phrase names: its head noun (the longest known suffix)."""
    for size in range(min(len(attr), 6), 1, -1):
        slot = ZH_ATTRIBUTES.get(attr[-size:])
        if slot is not None:
            return slot
    return None


def _property(
    holder: str, attr: str, value: str, base: datetime, explicit: bool
) -> FactCandidate | None:
    slot = _slot(attr)
    value = _clean(value).removesuffix("的")  # "是苹果的": the maker
    if not value or len(value) > 30:
        return None
    if slot is None:
        if not explicit or len(attr) > 4 or _DISCOURSE.search(attr):
            return None
        slot = attr
    fields = slot_fields(holder, slot, value)
    if slot == "age":
        years = _amount(value)
        if years is None or not 0 < years < 125:
            return None
        fields.update(value=str(int(years)), amount=years)
    elif slot == "birthday":
        day = next((t for t in find_times(value, base) if t.precision == "day"), None)
        if day is not None:  # it recurs: month and day, never the year of this mention
            fields["value"] = f"{day.value.month}月{day.value.day}日"
    elif any(t.has_date for t in find_times(value, base)):
        return None  # "X是下周三": when something happens is an event, not a property
    elif slot in ("height", "weight", "salary", "income", "rent", "budget", "shoe size"):
        amount = _amount(value)
        if amount is not None:
            fields["amount"] = amount
            if slot in ("salary", "income", "rent", "budget"):
                fields["unit"] = "CNY"
    return FactCandidate("Fact", fields, 0.8, 0.65)


def _place(
    holder: str, slot: str, value: str, confidence: float, importance: float
) -> FactCandidate:
    """A slot whose value is a place or an organisation, tagged as an entity so a question
    that names it ("杭州的天气") reaches the fact."""
    kind = "organization" if slot == "workplace" else "place"
    entities = [Entity(type=kind, name=value)] if value else []
    return FactCandidate("Fact", slot_fields(holder, slot, value), confidence, importance, entities)


def _nominal(holder: str, m: re.Match[str]) -> FactCandidate:
    value = _MEASURE_WORD.sub("", _clean(m.group("v"))).removesuffix("的")
    noun = m.group("noun")
    entities = []
    owner, sep, item = value.partition("的")
    if sep and 2 <= len(owner) <= 8 and item and not _QUALITY.search(owner):
        # "雅漾的舒护活泉喷雾": a maker and its item ("白色的" describes, it makes nothing)
        entities = [Entity(type="brand", name=owner), Entity(type="thing", name=item)]
    if m.group("like") in ("最爱", "最喜欢", "喜欢", "爱"):
        fields: dict[str, Any] = {"subject": value, "polarity": "like"}
        if noun:
            fields["category"] = noun
        if holder != "user":
            fields["holder"] = holder
        return FactCandidate("Preference", fields, 0.8, 0.7, entities)
    attribute = noun or f"{m.group('verb')}的"
    fields = slot_fields(holder, attribute, value)
    fields["predicate"] = m.group(0)[: m.start("v")]
    return FactCandidate("Fact", fields, 0.8, 0.65, entities)


def read_change(text: str, holder: str, base: datetime) -> FactCandidate | None:
    """A new value of a slot said as a change (``房租涨到3500元``, ``体重降到60公斤``): the
    slot keeps one current value, so the old one is superseded.

    >>> from datetime import datetime
    >>> read_change("房租涨到3500元", "user", datetime(2026, 5, 1)).fields["amount"]
    3500.0
    """
    m = _CHANGE.match(_LEAD.sub("", text.strip().lstrip("的")))
    if m is None or _DISCOURSE.search(m.group("attr")):
        return None
    return _property(holder, m.group("attr"), m.group("v"), base, True)


def read_property(
    pred: str, holder: str, base: datetime, *, explicit: bool = False
) -> FactCandidate | None:
    """A property stated by the predicate of a clause whose subject is ``holder``, read in
    order: an attribute said with its noun (a nominal, a sign, a measure, "<noun>是<value>"),
    a change (:func:`read_change`), where the holder lives, works or comes from
    (:func:`_places`), who they are: name, age, work, school, commute (:func:`_standing`).

    ``explicit``: the clause named its possessor (我的, 其, 她的), so an attribute noun
    outside the known ones is accepted.

    >>> from datetime import datetime
    >>> read_property("年龄是32岁", "李明杰", datetime(2026, 5, 1)).fields
    {'attribute': 'age', 'value': '32', 'subject': '李明杰', 'amount': 32.0}
    >>> read_property("生日是十月八号", "user", datetime(2026, 5, 1)).fields
    {'attribute': 'birthday', 'value': '10月8日'}
    """
    text = _LEAD.sub("", pred.strip().lstrip("的"))
    if not text:
        return None
    named = _named_attribute(text, holder)
    if named is not None:
        return named
    m = _MEASURE.match(text)
    if m:  # a measure ("身高一米七") is read as one, or not at all
        return _property(holder, m.group("attr"), m.group("v"), base, explicit)
    return (
        _copula_attribute(text, holder, base, explicit)
        or read_change(text, holder, base)
        or _places(text, holder)
        or _standing(text, holder, base)
    )


def _named_attribute(text: str, holder: str) -> FactCandidate | None:
    """ "名字叫…"/"爱好是…" (a nominal), a star sign or a zodiac animal."""
    m = _NOMINAL.match(text)
    if m and (m.group("verb") or m.group("like")):
        return _nominal(holder, m)
    m = _SIGN.match(text)
    if m:
        slot = "zodiac animal" if m.group("animal") else "star sign"
        return FactCandidate("Fact", slot_fields(holder, slot, m.group(0).lstrip("是")), 0.75, 0.6)
    return None


def _copula_attribute(
    text: str, holder: str, base: datetime, explicit: bool
) -> FactCandidate | None:
    """ "<attribute>是<value>" for a known attribute noun, or any noun with 是/为 when the
    possessor was said (``explicit``)."""
    m = _COPULA.match(text)
    attr = _HEDGE.sub("", m.group("attr")) if m else ""
    # an unknown noun is a slot only with 是/为 ("婚礼定在6月18号" is a plan, not a slot)
    if m and attr and (_slot(attr) or (explicit and m.group("cop") in "是为")):
        return _property(holder, attr, m.group("v"), base, explicit)
    return None


def _places(text: str, holder: str) -> FactCandidate | None:
    """ "搬到了杭州"/"住在…" (home city), "入职了腾讯" (workplace), "老家是…" (hometown)."""
    m = _MOVE.search(text) or _HOME.match(text)
    if m:
        return _place(holder, "home city", _clean(m.group("v")), 0.8, 0.7)
    m = _JOINED.search(text)
    if m:
        return _place(holder, "workplace", _clean(m.group("v") or m.group("w")), 0.75, 0.65)
    m = _NATIVE.match(text)
    if m:
        return _place(holder, "hometown", m.group("v"), 0.75, 0.6)
    return None


def _standing(text: str, holder: str, base: datetime) -> FactCandidate | None:
    """Who the holder is: a name ("我叫李华"), an age reached, retired, quit (the workplace
    ends), a trade, a school entered, a grade, a school graduated from, a commute."""
    m = _SELF_NAME.match(text)
    if m and is_name_shaped(m.group("v")):  # "我叫李华" (not "我叫外卖")
        return FactCandidate("Fact", slot_fields(holder, "name", m.group("v")), 0.8, 0.6)
    m = _AGE_REACHED.match(text)
    if m:
        return _property(holder, "年龄", m.group("n"), base, True)
    m = _RETIRED.match(text)
    if m:
        return FactCandidate("Fact", slot_fields(holder, "occupation", "已退休"), 0.75, 0.6)
    m = _QUIT.match(text)
    if m:  # the workplace slot ends: "我已经辞职了"
        return FactCandidate("Fact", slot_fields(holder, "workplace", "已离职"), 0.75, 0.6)
    m = _TRADE.match(text)
    if m:
        return FactCandidate("Fact", slot_fields(holder, "occupation", m.group("v")), 0.75, 0.6)
    m = _ADMITTED.search(text)
    if m:
        return FactCandidate("Fact", slot_fields(holder, "school", _clean(m.group("v"))), 0.75, 0.6)
    m = _GRADE.match(text)
    if m:
        return FactCandidate("Fact", slot_fields(holder, "education", m.group("v")), 0.75, 0.6)
    m = _GRADUATED.match(text)
    if m:
        school = _clean(m.group("v") or m.group("w"))
        return FactCandidate("Fact", slot_fields(holder, "school", school), 0.75, 0.6)
    m = _COMMUTE.match(text)
    if m:
        return FactCandidate("Fact", slot_fields(holder, "commute", _clean(m.group("v"))), 0.7, 0.5)
    return None
