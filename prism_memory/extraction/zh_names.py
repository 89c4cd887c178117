"""Chinese personal names, found by where they stand in a sentence.

Design: Chinese writes no capitals and no spaces, so a name is recognised by its shape *and*
its position, never by shape alone (高兴, 江边 and 文件 are surname-shaped words). Shape: a
surname (a common single one or a compound one) and one or two given characters, or a
familiar form (小陈, 老王, 阿强). Positions that only a person fills:

- the topic of a role copula: ``李明杰是我的下属`` (X 是 我/我们的 + a kinship or role noun),
  also when the role comes in a later clause (``张伟今年35岁，是我大学同学``) or in apposition
  (``李明杰，我的同事，今年32岁``);
- the object of a naming verb: ``我舅舅叫刘建国``, ``名叫``, ``名字是``;
- right after a kinship or role noun of the speaker: ``我弟弟许斌``, ``我的领导赵刚``, also a
  doubled nickname (``我女儿朵朵``);
- one side of a coordination of two name shapes: ``李明杰和王志宏谁更年轻``;
- the start of a sentence, right before a time word: ``王芳下个月要来北京``;
- a possessor of a person's attribute: ``王芳的生日``, ``张伟的年龄``;
- a title: ``张先生``, ``李老师``.

A name ends where a function word or punctuation begins (是, 和, 的, 今年, 在, 说 ...), so
``王志宏谁`` gives 王志宏 and ``张伟是`` gives 张伟. :func:`find_names` returns them in order
with their role noun when one was said. Pure regex, microseconds a sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .zh_lexicon import ZH_ATTRIBUTES, ZH_COMPOUND_SURNAMES, ZH_ROLES, ZH_SURNAMES

__all__ = ["NAME_END", "ROLE_PHRASE", "ZhName", "find_names", "is_name_shaped"]

_HAN = "\u4e00-\u9fff"
# what may follow a name: a function word, a verb that starts a predicate, or punctuation
NAME_END = (
    r"(?=是|和|跟|与|同|及|的|今年|去年|明年|在|说|也|都|很|叫|还|就|对|把|被|给|让|谁|比|去|要|会|"
    r"有|最|不|没|已经|刚|每|从|正|才|又|现在|目前|平时|一直|特别|非常|住|做|当|喜欢|爱|讨厌|"
    r"怕|养|吃|喝|打算|准备|下个?|上个?|这个?|明天|昨天|后天|前天|周|星期|哪|多|身高|年龄|"
    r"体重|生日|职业|[，,。！？!?；;、：:\s）)]|$)"
)
_SURNAME = rf"(?:{ZH_COMPOUND_SURNAMES}|[{ZH_SURNAMES}])"
_PRONOUNS = "他们|她们|我们|你们|咱们|大家|这些|那些|这位|那位|这个|那个|他俩|她俩|两人|二人|对方"
# a given name's characters: any, except the function words that follow a name in speech
_GIVEN = (
    rf"(?![说是在的了和跟与也都很就还要会有去来把被给让对我你他她它们这那个些不没吗呢吧啊])[{_HAN}]"
)
_FULL = rf"{_SURNAME}{_GIVEN}(?:{_GIVEN})??"
_FAMILIAR = rf"(?:(?:小|老)[{ZH_SURNAMES}]|阿[{_HAN}])"
_NAME = rf"(?:{_FAMILIAR}|{_FULL})"
_MODIFIER = (
    r"(?:大学|高中|初中|小学|研究生|前|新|老|亲|好|最好的|远房|以前的|现在的|公司的|单位的)?"
)
ROLE_PHRASE = rf"{_MODIFIER}(?:{ZH_ROLES})"
_ATTRIBUTE = "|".join(sorted(ZH_ATTRIBUTES, key=len, reverse=True))
_TITLE = r"先生|女士|小姐|老师|总|经理|医生|教授|阿姨|师傅|大夫|主任|律师"

# the topic of "X是我的<role>" is a person whatever its shape (志宏, 可欣), unless a pronoun
_ROLE_COPULA = re.compile(
    rf"(?:^|(?<=[，,。！？!?；;、\s]))(?!{_PRONOUNS})(?P<name>{_NAME}|{_GIVEN}{{2,3}}?)"
    rf"(?:也|都|就)?是(?:我|我们|咱们)的?(?P<rel>{ROLE_PHRASE})"
)
# a role's name may be any two or three characters ("我女朋友叫可欣"); without a role, only
# a name shape is a person ("我叫外卖" is not)
# "张伟今年35岁，是我大学同学": the topic of a sentence whose later clause gives the role
_TOPIC_ROLE = re.compile(
    rf"^(?P<name>{_NAME}){NAME_END}[^。！？!?]*?[，,]\s*(?:也|都|就)?是(?:我|我们)的?(?P<rel>{ROLE_PHRASE})"
)
# "王芳下个月要来北京": a sentence's topic followed by when it happens
_BEFORE_TIME = re.compile(
    rf"^(?P<name>{_FULL})(?=今天|明天|后天|昨天|前天|下周|下星期|下个?月|上周|上个?月|今年|明年|去年|这周|这个月|本周)"
)
# "李明杰，我的同事，今年32岁": a name in apposition with its role
_APPOSITION = re.compile(
    rf"(?:^|(?<=[，,。！？!?；;、\s]))(?P<name>{_NAME})[，,]\s*(?:是)?(?:我|我们)的?(?P<rel>{ROLE_PHRASE})(?=[，,。！？!?；;]|$)"
)
_NAMED = re.compile(
    rf"(?:我|我们)的?(?P<rel>{ROLE_PHRASE})(?:的名字)?"
    rf"(?:(?:叫做|名叫|叫|名字是|名字叫)(?P<name>(?:{_FAMILIAR}|[{_HAN}]{{2,3}}?))"
    rf"|是(?P<full>{_FULL})){NAME_END}"
)
# someone else's name; "我的名字是王小明" is the speaker's own (a fact, not a person)
_CALLED = re.compile(rf"(?<!我)(?<!我的)(?:名叫|名字叫|名字是|叫做)(?P<name>{_NAME}){NAME_END}")
_AFTER_ROLE = re.compile(
    rf"(?:我|我们|咱们)的?(?P<rel>{ROLE_PHRASE})(?P<name>{_NAME}|(?P<d>[{_HAN}])(?P=d)){NAME_END}"
)
_PAIR = re.compile(
    rf"(?:^|(?<=[，,。！？!?；;、\s问找给让帮对跟和请说见约]))(?P<a>{_FULL})(?:和|跟|与|同|还是|或)(?P<b>{_FULL}){NAME_END}"
)
_POSSESSOR = re.compile(
    rf"(?:^|(?<=[，,。！？!?；;、\s和跟与]))(?P<name>{_NAME})的(?:{_ATTRIBUTE})"
)
_TITLED = re.compile(rf"(?P<name>{_SURNAME}(?:{_TITLE}))")
# name-shaped words that are times or pronoun phrases ("我女儿明年上小学", "我们全家")
_NOT_A_NAME = re.compile(
    r"^(?:明年|明天|明早|明晚|明儿|时候|全家|全部|全都|高中|初中|白天|常常|平时|同时|单位|公司|"
    r"文件|江边|万一|安全|方面|方便|于是|应该|经常|马上|毕业|周[末日天一二三四五六]|周末[一-龥]?|"
    r"金额|章节|程序|单位里|石头|夏天|秋天|冬天|春天|钱包|车子|房子)$"
)
_SHAPE = re.compile(rf"^(?:{_FAMILIAR}|{_SURNAME}[{_HAN}]{{1,2}})$")


@dataclass(frozen=True)
class ZhName:
    """A name found in a sentence, where it starts, and its role towards the speaker."""

    name: str
    start: int
    relationship: str | None = None


def is_name_shaped(text: str) -> bool:
    """True for a surname and one or two given characters, or 小/老/阿 + one character.

    >>> is_name_shaped("王志宏"), is_name_shaped("小陈"), is_name_shaped("手机")
    (True, True, False)
    """
    return _SHAPE.match(text) is not None


def find_names(sentence: str) -> list[ZhName]:
    """Personal names in a Chinese sentence, in order, with the role said with them.

    >>> [(n.name, n.relationship) for n in find_names("李明杰是我的下属，其年龄是32岁。")]
    [('李明杰', '下属')]
    >>> [n.name for n in find_names("李明杰和王志宏谁更年轻？")]
    ['李明杰', '王志宏']
    >>> [(n.name, n.relationship) for n in find_names("我舅舅叫刘建国，他在广州开饭店。")]
    [('刘建国', '舅舅')]
    """
    found: dict[str, ZhName] = {}

    def add(name: str, start: int, rel: str | None) -> None:
        if _NOT_A_NAME.match(name):
            return
        old = found.get(name)
        if old is None or (old.relationship is None and rel):
            found[name] = ZhName(name, start if old is None else old.start, rel)

    for m in _ROLE_COPULA.finditer(sentence):
        add(m.group("name"), m.start("name"), m.group("rel"))
    topic = _BEFORE_TIME.match(sentence)
    if topic:
        add(topic.group("name"), 0, None)
    for m in _APPOSITION.finditer(sentence):
        add(m.group("name"), m.start("name"), m.group("rel"))
    for m in _TOPIC_ROLE.finditer(sentence):
        add(m.group("name"), m.start("name"), m.group("rel"))
    for m in _NAMED.finditer(sentence):
        which = "name" if m.group("name") else "full"
        add(m.group(which), m.start(which), m.group("rel"))
    for m in _CALLED.finditer(sentence):
        add(m.group("name"), m.start("name"), None)
    for m in _AFTER_ROLE.finditer(sentence):
        add(m.group("name"), m.start("name"), m.group("rel"))
    for m in _PAIR.finditer(sentence):
        add(m.group("a"), m.start("a"), None)
        add(m.group("b"), m.start("b"), None)
    for m in _POSSESSOR.finditer(sentence):
        if is_name_shaped(m.group("name")):
            add(m.group("name"), m.start("name"), None)
    for m in _TITLED.finditer(sentence):
        add(m.group("name"), m.start("name"), None)
    return sorted(found.values(), key=lambda n: n.start)
