"""Money and name patterns shared by the English and Chinese readers and the turn annotations.

They are generic language patterns (money amounts, "my budget is", "I can spend up to",
"我的预算是", words that are capitalised without being names), never tuned to any evaluation
data. What one reader alone uses stays next to its logic: the clause readers' patterns in
``clauses.py`` and ``chinese.py``, the turn cues in ``rules.py``, the person patterns in
``entities.py``; word lists are in ``lexicon_*.py`` and ``zh_lexicon.py``.

Example:
    >>> m = BUDGET[0].search("My budget is about $400 a night")
    >>> m.group("money"), CURRENCY["$"]
    ('$400 ', 'USD')
"""

from __future__ import annotations

import re

__all__ = ["BUDGET", "CURRENCY", "MONEY", "NOT_NAMES", "read_money"]

#: an amount of money: a currency sign or word around a number ("$1,200", "500 euros", "3万"),
#: captured as ``money``
MONEY = (
    r"(?P<money>(?:[$€£¥]\s?\d[\d,]*(?:\.\d+)?\s?[kK]?|\d[\d,]*(?:\.\d+)?\s?[kK]?"
    r"(?:\s?(?:dollars|usd|bucks|euros?|eur|pounds|gbp|yuan|rmb|cny|元|块|美元|人民币|万|千))?))"
)
#: currency signs and words (lower case) -> ISO code
CURRENCY = {
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
#: "my budget is X", "I can spend up to X", "我的预算是X": ``money`` and the words after it
#: (``rest``); the first is the English budget statement
BUDGET = [
    re.compile(
        rf"\b(?:my|our|the)\s+(?:[\w-]+\s+){{0,2}}?budget(?:\s+(?:for|on|of)\s+[^.!?;,]{{1,40}}?)?\s+"
        rf"(?:is|was|of|will be|would be|is now|now is|has gone up to|went up to|is up to)\s+"
        rf"(?:now\s+)?(?:about\s+|around\s+|roughly\s+|up to\s+|at most\s+|max\s+)?{MONEY}(?P<rest>[^.!?;,]{{0,20}})",
        re.I,
    ),
    re.compile(
        rf"\b(?:I|we)\s+(?:can|could|am able to|are able to|'m able to)\s+(?:now\s+|only\s+|still\s+)?"
        rf"(?:go|spend|pay|afford)\s+(?:up\s+to\s+|as much as\s+|about\s+|around\s+)?{MONEY}(?P<rest>[^.!?;,]{{0,20}})",
        re.I,
    ),
    re.compile(
        rf"我的?预算(?:是|为|有|在)?(?:大概|大约|差不多)?{MONEY}(?P<rest>[^，。！？,.!?]{{0,8}})"
    ),
]
#: capitalised words that are not names (pronoun forms, titles, sentence openers)
NOT_NAMES = frozenset(
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


def read_money(text: str) -> tuple[float | None, str | None]:
    """The amount and ISO currency of a money phrase (``k``, 千 and 万 multiply; a currency
    word counts as a whole word); ``(None, None)`` without a number.

    >>> read_money("$1,200"), read_money("2k euros a month"), read_money("3万")
    ((1200.0, 'USD'), (2000.0, 'EUR'), (30000.0, None))
    """
    m = re.search(r"(\d[\d,]*(?:\.\d+)?)\s?([kK]|万|千)?(?![\d])", text)
    if m is None:
        return None, None
    try:
        amount = float(m.group(1).replace(",", ""))
    except ValueError:
        return None, None
    amount *= {"k": 1e3, "K": 1e3, "万": 1e4, "千": 1e3}.get(m.group(2) or "", 1.0)
    lowered = text.lower()
    unit = None
    for token, code in CURRENCY.items():
        if re.search(rf"(?<![a-z]){re.escape(token)}(?![a-z])", lowered):
            unit = code
            break
    return amount, unit
