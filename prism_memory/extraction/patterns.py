"""Regex patterns shared by the rule extractor and the turn annotations (English and Chinese).

They are generic language patterns — money amounts, "my budget is", "I can spend up to",
"my sister Anna", "Mr. Zhang", "我喜欢", "我的预算是" — never tuned to any evaluation data.
The clause reader (``clauses.py``, ``chinese.py``) keeps its own patterns next to its logic and
its word lists in ``lexicon.py``.
"""

from __future__ import annotations

import re

_END = r"(?=[.!?;,，。！？；]|\s+(?:but|and|because|since|so|though|although|when|if)\b|$)"
_OBJ = r"(?P<obj>[^.!?;,，。！？；\n]{2,60}?)"
_MONEY = (
    r"(?P<money>(?:[$€£¥]\s?\d[\d,]*(?:\.\d+)?\s?[kK]?|\d[\d,]*(?:\.\d+)?\s?[kK]?"
    r"(?:\s?(?:dollars|usd|bucks|euros?|eur|pounds|gbp|yuan|rmb|cny|元|块|美元|人民币|万|千))?))"
)
_CURRENCY = {
    "$": "USD",
    "dollars": "USD",
    "usd": "USD",
    "bucks": "USD",
    "€": "EUR",
    "euro": "EUR",
    "euros": "EUR",
    "eur": "EUR",
    "£": "GBP",
    "pounds": "GBP",
    "gbp": "GBP",
    "¥": "CNY",
    "yuan": "CNY",
    "rmb": "CNY",
    "cny": "CNY",
    "元": "CNY",
    "块": "CNY",
    "人民币": "CNY",
    "美元": "USD",
}
_EN_PREFS: list[tuple[re.Pattern[str], str, float]] = [
    (
        re.compile(
            rf"\bI\s+(?:really\s+|absolutely\s+|do\s+|also\s+|just\s+)?(?:love|like|enjoy|adore|prefer)\s+(?:to\s+)?{_OBJ}{_END}",
            re.I,
        ),
        "like",
        0.75,
    ),
    (
        re.compile(
            rf"\bI\s+(?:really\s+)?(?:hate|dislike|detest|can't stand|cannot stand|don't like|do not like|don't enjoy)\s+{_OBJ}{_END}",
            re.I,
        ),
        "dislike",
        0.75,
    ),
    (
        re.compile(
            rf"\bI\s+(?:can't|cannot|can not|don't|do not|never)\s+(?:eat|drink|have|stand)\s+{_OBJ}{_END}",
            re.I,
        ),
        "avoid",
        0.8,
    ),
    (re.compile(rf"\bI(?:'m| am)\s+allergic\s+to\s+{_OBJ}{_END}", re.I), "avoid", 0.9),
    (re.compile(r"^\s*(?:an?\s+)?(?P<obj>[\w][\w -]{2,40}?),?\s+please\b", re.I), "need", 0.7),
    (
        re.compile(rf"\b(?:please\s+)?(?:book|get|reserve)\s+me\s+(?:an?\s+)?{_OBJ}{_END}", re.I),
        "need",
        0.6,
    ),
]
_ZH_PREFS: list[tuple[re.Pattern[str], str, float]] = [
    (
        re.compile(
            r"我(?:很|非常|最|也|特别|真的)?(?:不喜欢|讨厌|不爱|受不了)(?P<obj>[^，。！？,.!?；;\s]{1,30})"
        ),
        "dislike",
        0.75,
    ),
    (
        re.compile(
            r"我(?:很|非常|最|也|特别|真的)?(?<!不)(?:喜欢|爱吃|爱|偏好|喜爱)(?P<obj>[^，。！？,.!?；;\s]{1,30})"
        ),
        "like",
        0.75,
    ),
    (
        re.compile(
            r"我(?:不能|不吃|不喝|对)(?P<obj>[^，。！？,.!?；;\s]{1,20}?)(?:过敏)?(?=[，。！？,.!?；;]|$)"
        ),
        "avoid",
        0.7,
    ),
]
_BUDGET = [
    re.compile(
        rf"\b(?:my|our|the)\s+(?:[\w-]+\s+){{0,2}}?budget(?:\s+(?:for|on|of)\s+[^.!?;,]{{1,40}}?)?\s+"
        rf"(?:is|was|of|will be|would be|is now|now is|has gone up to|went up to|is up to)\s+"
        rf"(?:now\s+)?(?:about\s+|around\s+|roughly\s+|up to\s+|at most\s+|max\s+)?{_MONEY}(?P<rest>[^.!?;,]{{0,20}})",
        re.I,
    ),
    re.compile(
        rf"\b(?:I|we)\s+(?:can|could|am able to|are able to|'m able to)\s+(?:now\s+|only\s+|still\s+)?"
        rf"(?:go|spend|pay|afford)\s+(?:up\s+to\s+|as much as\s+|about\s+|around\s+)?{_MONEY}(?P<rest>[^.!?;,]{{0,20}})",
        re.I,
    ),
    re.compile(
        rf"我的?预算(?:是|为|有|在)?(?:大概|大约|差不多)?{_MONEY}(?P<rest>[^，。！？,.!?]{{0,8}})"
    ),
]
_RELATIONS = (
    "wife|husband|partner|boyfriend|girlfriend|son|daughter|kid|child|mother|mom|mum|father|dad|"
    "brother|sister|grandmother|grandma|grandfather|grandpa|aunt|uncle|cousin|friend|best friend|"
    "boss|manager|colleague|coworker|co-worker|roommate|neighbor|neighbour|doctor|teacher|dog|cat"
)
_PERSON_REL = re.compile(
    rf"\b[Mm]y\s+(?P<rel>(?i:{_RELATIONS}))(?:,)?\s+(?:is\s+|named\s+|called\s+)?(?P<name>[A-Z][a-z]+(?:\s[A-Z][a-z]+)?)\b"
)
_TITLED = re.compile(r"\b(?P<title>Mr|Mrs|Ms|Miss|Dr|Prof)\.?\s+(?P<name>[A-Z][a-z]+)\b")
_ZH_SURNAMES = "张王李赵刘陈杨黄吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦方白邹孟熊秦邱江尹薛段雷侯龙史陶黎贺顾毛郝龚邵万钱严武戴莫孔向汤"
_ZH_PERSON = re.compile(rf"(?P<name>[{_ZH_SURNAMES}](?:先生|女士|小姐|老师|总|经理|医生|教授))")
_CAPITALISED = re.compile(r"\b[A-Z][a-z]+(?:[ -][A-Z][a-z]+)*\b")
_NOT_NAMES = frozenset(
    [
        "I",
        "I'm",
        "I've",
        "I'd",
        "I'll",
        "The",
        "A",
        "An",
        "It",
        "It's",
        "That",
        "This",
        "These",
        "Those",
        "What",
        "How",
        "Why",
        "When",
        "Where",
        "Who",
        "Which",
        "Yes",
        "No",
        "Oh",
        "Hey",
        "Hi",
        "Hello",
        "Thanks",
        "Thank",
        "Wow",
        "Well",
        "So",
        "But",
        "And",
        "Or",
        "My",
        "We",
        "You",
        "Your",
        "He",
        "She",
        "They",
        "Our",
        "Their",
        "His",
        "Her",
        "Do",
        "Did",
        "Does",
        "Is",
        "Are",
        "Was",
        "Were",
        "Have",
        "Has",
        "Had",
        "Can",
        "Could",
        "Would",
        "Should",
        "Will",
        "Just",
        "Not",
        "Also",
        "Sure",
        "Great",
        "Good",
        "Nice",
        "Sounds",
        "Let",
        "Let's",
        "Please",
        "Maybe",
        "Really",
        "Absolutely",
        "Definitely",
        "Haha",
        "Lol",
        "Ok",
        "Okay",
        "Same",
        "Glad",
        "Congrats",
        "Congratulations",
        "Awesome",
        "If",
        "In",
        "On",
        "At",
        "For",
        "With",
        "As",
        "After",
        "Before",
        "Then",
        "Now",
        "Today",
        "Tomorrow",
        "Yesterday",
        "Tonight",
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
        "There",
        "Here",
        "Anyway",
        "Of",
        "To",
        "From",
        "By",
        "All",
        "Any",
        "Some",
        "Every",
        "Each",
        "Be",
        "Being",
        "Been",
        "Am",
        "Me",
        "Us",
        "Them",
        "Mine",
        "Yours",
        "Love",
        "Bye",
        "See",
        "Take",
        "Make",
        "Keep",
        "Go",
        "Get",
        "Got",
        "Hope",
        "Wish",
        "Yeah",
        "Yep",
        "Nope",
        "Cool",
        "Right",
        "Exactly",
        "True",
        "Totally",
        "Mr",
        "Mrs",
        "Ms",
        "Dr",
        "Prof",
        "Miss",
        "Once",
        "Still",
        "Even",
        "Though",
        "Although",
        "Because",
        "Since",
        "Until",
        "While",
        "Sometimes",
        "Always",
        "Never",
        "Often",
        "Last",
        "Next",
        "First",
        "Second",
        "Lately",
        "Recently",
    ]
)
_QUESTION = re.compile(r"\?\s*$")
_SMALL_TALK = re.compile(
    r"^\s*(?:hi|hey|hello|thanks|thank you|bye|goodbye|ok|okay|cool|nice|great|lol|haha|你好|谢谢|好的|再见)\W*$",
    re.I,
)
_CONSTRAINT = re.compile(
    r"\b(?:budget|must|need to|have to|can't|cannot|no more than|at most|at least|under|before|by|without)\b|预算|不超过|以内|必须|不能",
    re.I,
)
_DECISION = re.compile(
    r"\b(?:let's|let us|I'll|I will|we'll|we will|decided|go with|book it|choose|chose|confirm|confirmed)\b|决定|就选|确定|订了",
    re.I,
)
