"""Chinese clause analysis: the same records as ``clauses.py`` from Chinese statements.

Design: a sentence (``sentences.split_sentences``) that is a statement (``speech_act``: no
question particle, no 如果/假如, no ironic 是啊…最喜欢) is cut into clauses at ，；：. A clause's
subject is 我/我们, a relative with or without a name ("我姐姐王丽", "我老公小陈") or, when a
clause has none, the subject of the clause before it (Chinese drops repeated subjects:
"我已经跳槽了，现在在深圳工作"). Predicate patterns give preferences (喜欢/讨厌/不吃/对…过敏),
slots (住在 -> home city, 在…上班/工作 -> workplace, 做/当/是 + a job noun -> occupation, 吃素 ->
diet, 预算/房租 + an amount), pets (养了一只…叫…), habits (每周三去练瑜伽) and, with a date,
events. A change (改去/改成/提高到/推迟到) retires what it replaces. No segmenter, no model.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..records import Entity
from .candidate import FactCandidate
from .dates import TimeMention, cn_number, find_times
from .patterns import MONEY, read_money
from .sentences import is_cjk, speech_act, split_clauses
from .zh_attributes import read_change, read_property
from .zh_lexicon import (
    ZH_DIETS,
    ZH_DISCOURSE_NOUNS,
    ZH_JOB_SUFFIX,
    ZH_MEASURE_UNITS,
    ZH_PETS,
    ZH_ROLES,
)
from .zh_names import NAME_END, ROLE_PHRASE, ZhName, find_names, is_name_shaped

__all__ = ["ChineseExtractor"]

_MARKERS = (
    "是|在|不|很|也|都|喜欢|爱|讨厌|每|刚|就|今年|已经|还|最|会|要|想|对|做|当|住|养|吃|喝|去|从|说|"
    "打算|准备|计划|特别|非常|一直|经常|平时|现在|以前|最近|明天|后天|下周|上周|今天|昨天|"
    "下个月|上个月|这个月|明年|去年|今年|周末|结婚|离婚|生|出生|退休|毕业|搬|刚刚|正在"
)
# kinship and roles, longest first so "我妈妈" is not read as 我妈 + 妈; 我妈/我爸 are the
# everyday short forms
ZH_RELATIONS = "|".join(sorted({*ZH_ROLES.split("|"), "妈", "爸"}, key=len, reverse=True))
_FULL_FORM = {"妈": "妈妈", "爸": "爸爸"}
_REL_PERSON = re.compile(
    rf"我(?:的)?(?P<rel>{ZH_RELATIONS})(?P<name>(?!的|是|在|也|都|叫|和|跟)[\u4e00-\u9fff]{{2,3}}?)?(?=(?:{_MARKERS}|的|[，,。！？；]|$))"
)
_SELF = re.compile(r"我们|咱们|我(?!的?(?:" + ZH_RELATIONS + r"))")
_ADVERBS = re.compile(
    r"^(?:也|都|还|就|一直|一般|通常|总是|平时|经常|现在|目前|已经|最近|真的|特别|非常|很|最|"
    r"每天|每周[一二三四五六日天]?|每个?月|每年|每晚|每次|周末|早上|晚上|上午|下午|中午)+"
)
_HABIT = re.compile(r"每天|每周|每个?月|每年|每晚|每次|经常|平时|一般|通常|总是|习惯")
_LIKE = re.compile(
    r"^(?:很|非常|最|也|特别|真的|超|比较|挺)*(?<!不)(?:喜欢|爱吃|爱喝|爱|偏好|喜爱|热爱|迷上了?|偏爱)(?P<o>.{1,30})$"
)
_DISLIKE = re.compile(
    r"^(?:很|非常|最|也|特别|真的|超|比较|挺)*(?:不喜欢|讨厌|受不了|不爱|烦|怕)(?P<o>.{1,30})$"
)
_AVOID = re.compile(
    r"^(?:从来|一直|完全)?(?:不(?:太|怎么|大)?(?:能)?(?:吃|喝)|吃不了|喝不了|忌|戒了|不碰)(?P<o>.{1,20})$"
)
_ALLERGY = re.compile(r"^对(?P<o>.{1,20}?)(?:严重)?过敏")
_CHOOSE = re.compile(
    r"^(?:都|只|一般|通常|总是|习惯)*(?:选|要|坐|点|订|买|用|喝|吃)(?P<o>.{2,20})$"
)
_LIVE = re.compile(r"^(?:现在|目前)?住在(?P<v>.{2,20})$")
_WORK_AS = re.compile(r"^在(?P<place>.{2,20}?)(?:做|当|担任)(?P<job>.{1,12})$")
_WORK_AT = re.compile(r"^(?:现在|目前)?在(?P<place>.{2,20}?)(?:上班|工作|任职|实习)$")
_JOB = re.compile(
    rf"^(?:改行|转行|改|换|也)?(?:是|当|做|成了|成为)(?:一名|一个|一位|个|名)?(?P<job>.{{1,10}}(?:{ZH_JOB_SUFFIX}))$"
)
_PET = re.compile(
    rf"养了?(?:一|两|三|几)?(?:只|条|个|匹)?(?P<pet>[\u4e00-\u9fff]{{0,4}}?(?:{ZH_PETS}))(?:[，,]?\s*(?:叫|名叫|名字叫)(?P<name>[\u4e00-\u9fff]{{1,4}}))?"
)
_AMOUNT = re.compile(
    rf"^(?:每个?月|每年|每晚|每天|每周)?(?:的)?(?P<attr>[\u4e00-\u9fff]{{2,4}}?)(?:是|为|大概|差不多|大约|要|有)?(?:每个?月|每年|每晚|每天)?{MONEY}"
)
_BUDGET = re.compile(
    rf"(?:我的?|我们的?)?(?P<what>[\u4e00-\u9fff]{{0,4}}?)预算(?:是|为|有|在|可以|能)?"
    rf"(?:提高到|增加到|涨到|降到|降低到|调整到|改成|改为|改到|减到)?(?:大概|大约|差不多)?"
    rf"(?:每晚|每个?月|每天|每人|一晚)?{MONEY}(?P<rest>[^，。！？,.!?]{{0,8}})"
)
_CHANGE = re.compile(r"改(?:去|成|到|为|在)|换成|换到|推迟到|提前到|挪到|调到|延期到|搬到")
# what a change is about: "五一的计划改了", "婚礼改到了7月8号" (never a pronoun: "我们改去厦门")
_CHANGE_TOPIC = re.compile(
    r"(?P<topic>(?!我|你|他|她|咱)[\u4e00-\u9fff]{2,6}?)的?(?:计划|安排|行程|时间|日期)?"
    r"(?:改|变|取消|推迟|提前|延期|挪)"
)
_CANCELLED = re.compile(
    r"^(?P<topic>(?!我|你|他|她|咱)[\u4e00-\u9fff]{2,6}?)的?(?:计划|安排|行程|预约|会议|聚会|旅行|活动)?"
    r"(?:被)?取消了?$"
)
_SWITCH = re.compile(
    r"^(?:改|换)(?:成|为)?(?P<o>(?:喝|吃|用|坐|骑|开|穿)[\u4e00-\u9fffA-Za-z]{1,10})$"
)
_PARTED = re.compile(r"^(?:和|跟|与)(?P<name>[\u4e00-\u9fff]{2,3})(?:分手|离婚|分开)了?$")
_PRONOUN = re.compile(r"^(?:其|他|她)(?!们)(?P<of>的)?")
_NAMED_ROLE = re.compile(
    rf"^(?:我|我们)的?(?P<rel>{ROLE_PHRASE})(?:的名字)?(?:叫做|名叫|叫|名字是|名字叫)"
    rf"(?P<name>[\u4e00-\u9fff]{{2,3}}?){NAME_END}"
)
_ROLE_COPULA = re.compile(
    rf"^(?P<name>[\u4e00-\u9fff]{{2,4}}?)(?:也|都|就)?是(?:我|我们|咱们)的?(?P<rel>{ROLE_PHRASE})$"
)
_ROLE_OF_TOPIC = re.compile(rf"^(?:也|都|就)?是?(?:我|我们|咱们)的?(?:{ROLE_PHRASE})$")
_REPORTER = re.compile(r"^[\u4e00-\u9fff]{1,4}(?:说|告诉我|通知我|通知)")
_PET_NAME = re.compile(
    r"(?:一|另一|另外一)(?:只|条|个|匹)(?:叫|名叫)(?P<name>[\u4e00-\u9fff]{1,3})"
)
_DISCOURSE = re.compile(rf"^(?:{ZH_DISCOURSE_NOUNS})(?:是|就是)")
_BIRTHDAY_OF = re.compile(r"^(?P<when>.{2,12}?)是(?P<who>.{1,8}?)的(?:生日|生辰)$")
_MEASURED = re.compile(rf"\d\s*(?:{ZH_MEASURE_UNITS})")
_AGE = re.compile(r"(?:今年)?(?P<n>[\d零一二两三四五六七八九十百]{1,4})岁")
_CN_MONEY = re.compile(
    r"^(?:每个?月|每年|每晚|每天|每周)?(?P<attr>[\u4e00-\u9fff]{2,4}?)(?:是|为|大概|差不多|大约|有)?"
    r"(?P<n>[零一二两三四五六七八九十百千万]{1,8})(?P<unit>元|块|块钱)"
)
_PLAN = re.compile(r"^(?:打算|计划|准备|要|想|会)(?P<v>.+)$")
_DIET = re.compile("|".join(ZH_DIETS))
_EVENT_CUE = re.compile(
    r"会议|开会|见面|预订|预约|约了?|飞|出差|聚餐|吃饭|面试|考试|复查|看病|体检|上课|出发|到达|回来|"
    r"回国|生日|婚礼|聚会|旅行|旅游|搬家|入职|报到|办理?|参加|去"
)
_GENERIC_VERB = re.compile(
    r"^(?:正在|在.{0,10}?)?(?:去|练|学|做|打|弹|玩|跑|骑|读|写|画|教|开|坐|看|听)(?!得)"
)  # "写得真不错" judges, it states nothing


def _holder_name(who: str | None) -> str:
    return who or "user"


@dataclass
class _Reading:
    """What the clauses of one sentence share: its dates and names, whether it gave a budget,
    states a change, and has any subject; the subject carried from clause to clause and
    whether its dated event was told."""

    sentence: str
    times: list[TimeMention]
    names: list[ZhName]
    holder: str
    has_budget: bool
    changed: bool
    topic: re.Match[str] | None
    anyone: bool
    subject: tuple[str, str | None] | None = None  # (kind, holder)
    event_done: bool = False


class ChineseExtractor:
    """Candidates from the Chinese sentences of one turn."""

    def __init__(self, base: datetime, who: str | None, people: Iterable[str] = ()) -> None:
        self.base = base
        self.who = who
        # persons the conversation named before: "张伟今年35岁" is about 张伟
        self.people = {p for p in people if p and is_cjk(p)}
        self.last_person: str | None = None  # whom 其/他/她 refer to

    def sentence(self, sentence: str) -> list[FactCandidate]:
        """Candidates from one Chinese statement: the persons it names, pets, a budget, then
        clause by clause (:meth:`_clause`), a subject carried over to the clauses after it."""
        if speech_act(sentence) != "statement":
            return []
        sentence = _drop_quotes(sentence)
        times = [t for t in find_times(sentence, self.base) if t.has_date]
        names = find_names(sentence)
        holder = _holder_name(self.who)
        out = self._persons(names)
        out.extend(self._pets(sentence, holder))
        out.extend(self._budget(sentence, holder))
        clauses = split_clauses(sentence)
        r = _Reading(
            sentence=sentence,
            times=times,
            names=names,
            holder=holder,
            has_budget=any(c.fields.get("attribute") == "budget" for c in out),
            changed=bool(_CHANGE.search(sentence)),
            topic=_CHANGE_TOPIC.search(sentence),
            anyone=any(self._subject(c, names, peek=True) is not None for c in clauses),
        )
        for clause in clauses:
            out.extend(self._clause(r, clause))
        return out

    def _persons(self, names: list[ZhName]) -> list[FactCandidate]:
        """A person record for each name (with the relationship said), remembered as met."""
        out = []
        for n in names:
            fields: dict[str, Any] = {"name": n.name}
            if n.relationship:
                fields["relationship"] = n.relationship
            out.append(
                FactCandidate("Person", fields, 0.8, 0.6, [Entity(type="person", name=n.name)])
            )
            self.people.add(n.name)
        return out

    def _budget(self, sentence: str, holder: str) -> list[FactCandidate]:
        """The first budget with an amount ("预算五千元"), or nothing."""
        for m in _BUDGET.finditer(sentence):
            value = (m.group("money") + m.group("rest")).strip().rstrip("了啦呢吧啊")
            amount, unit = _amount(m.group(0))
            if amount is not None:
                fields = self._fields(holder, "budget", value)
                fields.update(amount=amount, unit=unit or "CNY")
                return [FactCandidate("Fact", fields, 0.85, 0.8)]
        return []

    def _clause(self, r: _Reading, clause: str) -> list[FactCandidate]:
        """One clause: a birthday; else, once whose clause it is is known (:meth:`_resolve`),
        a property or what its predicate says, and the dated event it tells (one a sentence)."""
        birthday = self._birthday_of(clause, r.holder)
        if birthday is not None:  # "下个月3号是我妈妈的生日": a yearly date, not an event
            r.event_done = True
            return [birthday]
        resolved = self._resolve(r, clause)
        if isinstance(resolved, list):
            return resolved
        rest, explicit = resolved
        kind, who = r.subject or ("self", None)
        holder_here = who or r.holder
        here: list[FactCandidate] = []
        prop = (
            None
            if r.has_budget or not rest
            else read_property(rest, holder_here, self.base, explicit=explicit)
        )
        if prop is not None:
            here.append(prop)
            if prop.fields.get("attribute") != "home city":
                r.event_done = True  # a property (a birthday's date) is not an event
        elif not r.has_budget:
            pred = self._strip_time(rest, r.times)
            dated = bool(r.times) and not _HABIT.search(clause)
            here.extend(self._predicate(pred, holder_here, kind, has_date=dated))
        clause_times = [t for t in r.times if t.phrase in clause] or (
            r.times if not r.event_done else []
        )
        if _HABIT.search(clause):  # "我周末一般去图书馆": a habit, not this weekend's event
            clause_times = []
        if clause_times and not r.event_done and kind in ("self", "person") and rest:
            here.append(self._event(clause, clause_times, holder_here, r.changed, r.topic))
            r.event_done = True
        if any(not c.generic for c in here):
            here = [c for c in here if not c.generic]
        return here

    def _resolve(self, r: _Reading, clause: str) -> tuple[str, bool] | list[FactCandidate]:
        """``(rest, explicit)`` once ``r.subject`` says whose clause this is (its own subject,
        the one before, or the speaker's plan said without one); else what a clause without a
        subject says (a cancelled plan, a changed amount), maybe nothing."""
        found = self._subject(clause, r.names)
        if found is not None:
            r.subject, rest, explicit = found
            if r.subject[0] == "unknown":  # 他/她 with nobody named before: not the user
                r.subject = None
                return []
            if explicit and _DISCOURSE.match(rest):  # "我的意思是...": no property
                r.event_done = True
                return []
            return rest, explicit
        if r.subject is not None:
            return clause, False
        if r.anyone:
            return []
        if _CANCELLED.match(clause):
            # "成都的行程取消了": the plan is off; its records are closed
            return [self._cancelled(clause)]
        if r.has_budget:
            return []
        # a subjectless change of one of the speaker's amounts ("房东说房租涨到3500元")
        said = self._strip_time(_REPORTER.sub("", clause), r.times)
        change = read_change(said, r.holder, self.base)
        if change is not None:
            return [change]
        if r.times and not r.event_done and _EVENT_CUE.search(r.sentence):
            r.subject = ("self", None)  # a plan said without a subject
            return clause, False
        return []

    # -- parts ----------------------------------------------------------------------------
    def _fields(self, holder: str, attribute: str, value: str) -> dict[str, Any]:
        fields: dict[str, Any] = {"attribute": attribute, "value": value}
        if holder != "user":
            fields["subject"] = holder
        return fields

    def _pets(self, sentence: str, holder: str) -> list[FactCandidate]:
        """``养了一只柯基，叫豆豆``; ``养了两只猫，一只叫咪咪，一只叫花花``: one fact a pet,
        the pet of the subject of its clause (``我的邻居王阿姨养了一只金毛``: hers)."""
        out: list[FactCandidate] = []
        for m in _PET.finditer(sentence):
            start = max(sentence.rfind(p, 0, m.start()) for p in "，,；;")
            found = self._subject(sentence[start + 1 : m.start()], [], peek=True)
            if found is not None and found[0][0] == "person" and found[0][1]:
                holder = str(found[0][1])
            named = [m.group("name")] if m.group("name") else []
            if not named:
                named = [n.group("name") for n in _PET_NAME.finditer(sentence, m.end())]
            for name in named or [None]:
                value = m.group("pet") + (f" {name}" if name else "")
                key = f"Fact|{holder.lower()}|pet|{(name or m.group('pet')).lower()}"
                fields = self._fields(holder, "宠物", value)
                out.append(FactCandidate("Fact", fields, 0.8, 0.6, key=key))
        return out

    def _birthday_of(self, clause: str, holder: str) -> FactCandidate | None:
        m = _BIRTHDAY_OF.match(clause)
        if m is None:
            return None
        day = next(
            (t for t in find_times(m.group("when"), self.base) if t.precision == "day"), None
        )
        if day is None:
            return None
        who = m.group("who")
        if who in ("我", "我们"):
            whose = holder
        elif who.startswith("我") and who.lstrip("我的") in ZH_RELATIONS.split("|"):
            whose = f"{holder}的{who.lstrip('我的')}"
        elif who in self.people:
            whose = who
        else:
            return None
        value = f"{day.value.month}月{day.value.day}日"
        return FactCandidate("Fact", self._fields(whose, "birthday", value), 0.8, 0.65)

    def _cancelled(self, clause: str) -> FactCandidate:
        m = _CANCELLED.match(clause)
        assert m is not None
        fields: dict[str, Any] = {
            "description": clause,
            "actor": self.who,
            "participants": [],
            "when": None,
        }
        return FactCandidate("Event", fields, 0.7, 0.6, retire=[m.group("topic")])

    def _subject(
        self, clause: str, names: list[ZhName], *, peek: bool = False
    ) -> tuple[tuple[str, str | None], str, bool] | None:
        """``((kind, holder), rest of the clause, possessor said explicitly)`` or ``None``
        when the clause has no subject of its own (it continues the one before)."""
        m = _ROLE_COPULA.match(clause)  # "李明杰是我的下属": the clause introduces the person
        if m and any(n.name == m.group("name") for n in names):
            if not peek:
                self.last_person = m.group("name")
            return ("person", m.group("name")), "", False
        if _ROLE_OF_TOPIC.match(clause) and self.last_person:  # "..., 是我大学同学"
            return ("person", self.last_person), "", False
        m = _NAMED_ROLE.match(clause)  # "我舅舅叫刘建国"
        if m:
            if not peek:
                self.last_person = m.group("name")
            return ("person", m.group("name")), clause[m.end() :], False
        m = _PRONOUN.match(clause)  # "其年龄是32岁", "她的生日是5月20日", "他在广州开饭店"
        if m:
            if self.last_person is None:
                return ("unknown", None), clause, False
            return (
                ("person", self.last_person),
                clause[m.end() :],
                bool(m.group("of")) or (clause.startswith("其")),
            )
        for known in sorted(self.people, key=len, reverse=True):
            if clause.startswith(known) and not clause.startswith(known + "是我"):
                rest = clause[len(known) :]
                if not peek:
                    self.last_person = known
                return ("person", known), rest.lstrip("的"), rest.startswith("的")
        m = _REL_PERSON.search(clause)
        if m and (m.start() == 0 or not _SELF.search(clause[: m.start()])):
            name: str | None = m.group("name")
            rel = _FULL_FORM.get(m.group("rel"), m.group("rel"))
            end = m.end()
            # a name has a name's shape (王丽, 小陈) or is a doubled nickname (朵朵); "我女朋友
            # 不喜欢..." has none
            if name and not (is_name_shaped(name) or (len(name) == 2 and name[0] == name[1])):
                name, end = None, m.end("rel")
            if name:
                who: str | None = name
                if not peek:
                    self.last_person = name
            else:
                who = f"{_holder_name(self.who)}的{rel}"
            rest = clause[end:]
            return ("person", who), rest.lstrip("的"), rest.startswith("的")
        s = _SELF.search(clause)
        if s:
            before = clause[: s.start()]
            if before and before[-1] in "和跟给对帮让被替向与":
                return None
            rest = clause[s.end() :]
            return ("self", None), rest.lstrip("的"), rest.startswith("的")
        return None

    def _strip_time(self, text: str, times: list[TimeMention]) -> str:
        for t in times:
            text = text.replace(t.phrase, "")
        text = re.sub(r"^(?:上午|下午|晚上|早上|中午)", "", text)
        return text.strip()

    def _predicate(
        self, pred: str, holder: str, kind: str, *, has_date: bool
    ) -> list[FactCandidate]:
        """What a predicate says of ``holder``, read in order: a diet or a preference
        (:meth:`_taste`), a slot of the person (:meth:`_person_slot`: age, partner, home,
        work), an amount (:meth:`_amount_slot`), else a habit or a generic state."""
        pred = pred.strip().rstrip("了啦呢吧啊呀哦")
        if not pred:
            return []
        core = _ADVERBS.sub("", pred)
        for read in (self._taste, self._person_slot, self._amount_slot):
            found = read(core, holder)
            if found is not None:
                return found
        return self._habit_or_state(pred, core, holder, has_date=has_date)

    def _taste(self, core: str, holder: str) -> list[FactCandidate] | None:
        """A diet ("我吃素", "我不吃素了"), an allergy, a dislike, a food avoided, a like."""
        d = _DIET.search(core)
        if d:  # "我不吃素了" ends a diet: the slot takes the new state
            diet = "不吃素" if core.startswith("不") else ZH_DIETS[d.group(0)]
            return [FactCandidate("Fact", self._fields(holder, "diet", diet), 0.85, 0.75)]
        m = _ALLERGY.match(core)
        if m:
            return [self._pref(holder, m.group("o"), "avoid", 0.9)]
        m = _DISLIKE.match(core)
        if m:
            return [self._pref(holder, re.sub(r"^[吃喝]", "", m.group("o")), "dislike", 0.75)]
        m = _AVOID.match(core)
        if m:
            obj = re.sub(r"[，,].*$", "", m.group("o")).rstrip("了的")
            return [self._pref(holder, obj, "avoid", 0.8)]
        m = _LIKE.match(core)
        if m:
            obj = re.sub(r"^[吃喝]", "", m.group("o")).rstrip("了的")
            return [self._pref(holder, obj, "like", 0.75)]
        return None

    def _person_slot(self, core: str, holder: str) -> list[FactCandidate] | None:
        """An age ("我今年三十岁"), a new habit ("改喝茶"), a break-up with a person named
        before, a home city, an occupation and workplace."""
        m = _AGE.search(core)
        if m:
            years = cn_number(m.group("n"))
            if years is not None and 0 < years < 125:
                fields = {**self._fields(holder, "age", str(years)), "amount": float(years)}
                return [FactCandidate("Fact", fields, 0.8, 0.6)]
        m = _SWITCH.match(core)
        if m:  # "改喝茶": the new habit
            return [self._pref(holder, m.group("o").rstrip("了的"), "like", 0.7)]
        m = _PARTED.match(core)
        if m and m.group("name") in self.people:  # "我和张强分手了"
            fields = {"name": m.group("name"), "relationship": "前任"}
            ent = [Entity(type="person", name=m.group("name"))]
            return [FactCandidate("Person", fields, 0.75, 0.6, ent)]
        m = _LIVE.match(core)
        if m and m.group("v")[-1] not in "楼层号室边旁":  # 住在三楼 is a floor, not a city
            return [
                FactCandidate("Fact", self._fields(holder, "home city", m.group("v")), 0.8, 0.7)
            ]
        m = _WORK_AS.match(core)
        if m:
            return [
                FactCandidate("Fact", self._fields(holder, "occupation", m.group("job")), 0.8, 0.7),
                FactCandidate(
                    "Fact", self._fields(holder, "workplace", m.group("place")), 0.75, 0.65
                ),
            ]
        m = _WORK_AT.match(core)
        if m:
            return [
                FactCandidate("Fact", self._fields(holder, "workplace", m.group("place")), 0.8, 0.7)
            ]
        m = _JOB.match(core)
        if m:
            return [
                FactCandidate("Fact", self._fields(holder, "occupation", m.group("job")), 0.8, 0.7)
            ]
        return None

    def _amount_slot(self, core: str, holder: str) -> list[FactCandidate] | None:
        """An amount of an attribute: in Chinese numerals ("房租三千块") or digits ("房租3000元"),
        not a budget (read before) and not a measure ("身高170厘米")."""
        m = _CN_MONEY.match(core.lstrip("的"))
        if m:
            number = cn_number(m.group("n"))
            if number is not None:
                fields = self._fields(holder, m.group("attr"), m.group("n") + m.group("unit"))
                fields.update(amount=float(number), unit="CNY")
                return [FactCandidate("Fact", fields, 0.75, 0.65)]
        m = _AMOUNT.match(core.lstrip("的"))
        if m and m.group("attr") not in ("预算",) and not _MEASURED.search(core):
            amount, unit = _amount(m.group(0))
            fields = self._fields(holder, m.group("attr"), _tail(m))
            if amount is not None:
                fields.update(amount=amount, unit=unit)
            return [FactCandidate("Fact", fields, 0.75, 0.65)]
        return None

    def _habit_or_state(
        self, pred: str, core: str, holder: str, *, has_date: bool
    ) -> list[FactCandidate]:
        """A habitual choice ("我一般喝绿茶": a like), else, when undated and not a plan, a
        habit or a generic state keyed with its words."""
        habitual = bool(_HABIT.search(pred))
        if habitual:
            m = _CHOOSE.match(core)
            if m and len(m.group("o")) >= 2:
                return [self._pref(holder, m.group("o").rstrip("了的"), "like", 0.7)]
        if has_date or _PLAN.match(core):
            return []
        if not (habitual or _GENERIC_VERB.match(core)):
            return []
        value = pred
        key = f"Fact|{holder.lower()}|{value}"
        fields = {**self._fields(holder, "习惯" if habitual else "情况", value), "predicate": ""}
        return [FactCandidate("Fact", fields, 0.6, 0.55, key=key, generic=True)]

    def _pref(self, holder: str, obj: str, polarity: str, confidence: float) -> FactCandidate:
        obj = obj.strip("，,。 ")
        fields: dict[str, Any] = {"subject": obj, "polarity": polarity}
        if holder != "user":
            fields["holder"] = holder
        return FactCandidate("Preference", fields, confidence, 0.7)

    def _event(
        self,
        clause: str,
        times: list[TimeMention],
        holder: str,
        changed: bool,
        topic: re.Match[str] | None,
    ) -> FactCandidate:
        when = times[0]
        desc = clause
        for t in times:
            desc = desc.replace(t.phrase, "")
        desc = re.sub(r"^(?:上午|下午|晚上|早上|中午)", "", desc.strip("，, "))
        # 我 is always the speaker, whoever the event is about ("我的好朋友刘洋下个月结婚")
        desc = re.sub(r"我(?!们)", _holder_name(self.who).replace("user", "用户"), desc)
        retire: list[str] = []
        if changed and topic is not None:
            retire = [topic.group("topic")]
        cand = FactCandidate(
            "Event",
            {
                "description": desc,
                "actor": holder if holder != "user" else None,
                "participants": [],
                "when": when.iso(),
            },
            0.7,
            0.7,
            event_time=when.value,
            retire=retire,
        )
        if changed:
            cand.retire_date = when.value.date().isoformat()
        return cand


_ZH_QUOTE = re.compile(r"[“\"「『](?P<inner>[^”\"」』]*)[”\"」』]")


def _drop_quotes(sentence: str) -> str:
    """Quoted speech is someone else's words (他说：“我最喜欢吃火锅。”), not the speaker's
    claim; a short quoted name or term stays, without its marks."""

    def repl(m: re.Match[str]) -> str:
        said = re.search(r"(?:说|道|问|写|讲)[：:，,]?\s*$", sentence[: m.start()])
        inner = m.group("inner")
        return "" if said or "我" in inner or len(inner) > 12 else inner

    return _ZH_QUOTE.sub(repl, sentence)


def _tail(m: re.Match[str]) -> str:
    return m.group(0)[m.end("attr") - m.start(0) :].lstrip("是为")


def _amount(text: str) -> tuple[float | None, str | None]:
    amount, unit = read_money(text)
    if unit is None and re.search(r"元|块", text):
        unit = "CNY"
    return amount, unit
