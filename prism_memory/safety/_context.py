"""What surrounds a rule match in the poisoning screen: the context that discounts it, and
whether a user's words are about their own service.

Design:
- Pure functions over one lower- or mixed-case *view* of a text (``_normalize``), no state.
- :func:`discount` is how much of a family's weight a match keeps: inside the scope of a
  negation, in a sentence (or after one) that discusses attacks, in a quotation presented as
  a mention, a reported request to a model, a how-to purpose clause, a credential used in an
  ``Authorization:`` header; and, for the user's own words only, reported speech and a verb
  whose subject is the user. An order naming the agent as its subject is never discounted as
  discussion.
- :func:`sensitive` (a secret, account, personal data or outside address is named) and
  :func:`self_directed` (the user speaks about their own service: first person, no other
  people or addresses, or their own plan or family) are the two readings the scorer combines
  with the families' hits; :data:`TRANSCRIPT` tells a dialogue's speaker labels from an
  address to the agent.
"""

from __future__ import annotations

import re

from ._rules import EXTERNAL_DEST, FIRST_PERSON, NEGATABLE, SENSITIVE, THIRD_PARTY

__all__ = [
    "CREDENTIAL_FAMILIES",
    "MONEY_FAMILIES",
    "TRANSCRIPT",
    "discount",
    "self_directed",
    "sensitive",
]

_REPORTED = re.compile(
    r"\b(?:told|asked|advised|reminded|warned|wants|wanted|taught|said|says|tells)\s+"
    r"(?:me|us|him|her|them|(?:the|my|our) \w+|[A-Z]\w+)\s+"
    r"(?:not |never )?to\s+$|\b(?:i|we) (?:was|were) (?:told|asked|advised) (?:not |never )?to\s+$",
    re.I,
)
_FIRST = re.compile(rf"\b{FIRST_PERSON}\b", re.I)
_THIRD = re.compile(rf"\b{THIRD_PARTY}\b", re.I)
_DEST = re.compile(EXTERNAL_DEST, re.I)
_OWN_PLAN = re.compile(
    r"^\W*(?:please\s+)?(?:remind me|help me remember|don't let me forget|recuérdame|rappelle-moi|"
    r"erinnere mich|ricordami|lembre-me|напомни мне)\b"
    r"|^\W*(?:when(?:ever)?|if|each time|every time)\s+i\s+(?:ask|say|tell|request|type|want)\b",
    re.I,
)
_MY_PERSON = re.compile(
    r"\bmy\s+(?:[\w'-]+\s+)?(?:daughter|son|wife|husband|partner|mother|mom|mum|father|dad|sister|"
    r"brother|kids?|children|child|parents?|grandm\w+|grandf\w+|friend|babysitter|nanny|"
    r"accountant|landlord|doctor|boss|assistant|cleaner)\b",
    re.I,
)
_PRONOUN = re.compile(r"\b(?:she|he|her|him|his|they|them|their)\b", re.I)
_SELF_OBJECT = re.compile(r"\b(?:tell|remind|give|send|show|answer|call|ask|text|email) me\b", re.I)
# someone else's money: an account given by number, or owned by a named person
_OTHERS_ACCOUNT = re.compile(
    r"\b(?:owned by|belonging to|in the name of|held by)\b"
    r"|(?<!my )\b(?:iban|account|acct|wallet)\b\s*(?:number|no\.?|#|:)?\s*(?=[A-Z0-9-]*\d)[A-Z0-9][A-Z0-9 -]{5,}",
    re.I,
)
# a negation whose scope reaches the match: "employees must not share credentials"
_NEGATED = re.compile(
    r"\b(?:not|never|no one|nobody|cannot|can't|won't|don't|doesn't|didn't|shouldn't|mustn't|"
    r"refuses?d? to|avoid(?:s|ed)?|forbid\w*|prohibit\w*)\b(?:\s+(?:\w+|to|be))?\s*$",
    re.I,
)
# the user is the one who acts: "so I can share it with visitors", "I'll send it to"
_USER_ACTS = re.compile(
    r"\b(?:i|we)\s+(?:can|could|will|'ll|want to|need to|have to|might|may|would like to|plan to|"
    r"am going to|'m going to|usually|always|often|sometimes)\s+(?:\w+\s+)?$",
    re.I,
)
# a credential in an Authorization header is being used where it belongs, not disclosed
CREDENTIAL_FAMILIES = frozenset(
    {"exfiltrate", "disclose", "send_elsewhere", "disclose_to", "data_elsewhere"}
)
_AUTH_HEADER = re.compile(r"authorization:\s*(?:bearer|basic|token)\b", re.I)
_AGENT_OBLIGED = re.compile(
    r"\b(?:assistants?|ai|agents?|bots?|models?)\s+(?:must|should|shall|will|is to|are to|needs? to|"
    r"has to|have to)\s+(?:\w+\s+)?$"
    r"|\b(?:has|have|had) (?:instructed|told|ordered|asked|directed|required) (?:all|any|every) (?:ai )?"
    r"(?:assistants?|agents?|bots?|models?) to\s+(?:\w+\s+)?$",
    re.I,
)
# text *about* attacks (security advice, news, research) describes them rather than making them
_DISCUSSION = re.compile(
    r"(?<![\w@./-])(?:phishing|scam\w*|fraud\w*|attack\w*|hackers?|criminals?|malicious|suspicious|injections?|"
    r"jailbreak\w*|red[- ]team\w*|ctfs?|capture the flag|social engineering|impersonat\w+|spoof\w*|exploits?|"
    r"vulnerabilit\w+|threats?|adversar\w+|ataque\w*|atacante\w*|attaque\w*|attaquant\w*|angriff\w*|"
    r"angreifer\w*|attacc\w+|estafa\w*|betrug\w*|мошенни\w*|атак\w*)\b(?![@.]\w)|注入|攻击|诈骗|钓鱼|攻撃|詐欺|"
    r"フィッシング|공격|사기",
    re.I,
)
# "to transfer money, open the app": a purpose clause of a how-to, not an order
MONEY_FAMILIES = frozenset({"money", "money_elsewhere", "money_redirect", "money_ml"})
_HOW_TO = re.compile(
    r"(?:(?:^|[,;:(]\s*)\s*(?:para|pour|per|um|zum|для|чтобы|to|in order to)|\bhow to)\s+$|(?:如何|怎么|怎样)$",
    re.I,
)
# someone else's request to a model, reported: "users asked it to reveal its prompt"
_ASKED_TO = re.compile(
    r"\b(?:asked|asks|asking|ask|told|tells|tricked|tricks|trick|got|gets|convinced?|persuaded?|"
    r"urged?|wanted|pressured?|tried to get)\s+(?:it|the (?:bot|chatbot|model|assistant|ai|system)|"
    r"models?|chatbots?|assistants?|bots?|llms?)\s+(?:in)?to\s+(?:\w+\s+)?$"
    r"|\b(?:make|makes|making|made|force|forces|forcing|forced|let|lets|letting)\s+(?:an?|the|its|your|this)?\s*(?:[\w-]+\s+)?(?:chatbot|bot|model|assistant|ai|llm|agent)s?\s+(?:\w+\s+)?$"
    r"|\b(?:e-?mail|message|text|sms|letter|call|caller|scammers?|fraudsters?|someone|they|it|this|that|"
    r"the (?:site|page|link|sender|caller|email|message|text))\s+(?:\w+\s+)?"
    r"(?:asking|asks|asked|telling|tells|told|urging|urges|requesting|requests)\s+(?:you|them|him|her|"
    r"people|victims?|staff|employees|users?|customers?|\w+ staff)\s+to\s+(?:[\"“'‘]?\w+[\"”'’]?\s+)?[\"“'‘]?$",
    re.I,
)
# a quotation introduced as a mention: "the line 'forget your orders'", "phrases like '...'"
_QUOTED = re.compile(
    r"(?:(?:^|(?<=[\s(\[:,]))[\"']|[“«‘「『])(?=\S)([^\"“”«»「」『』\n]{3,200}?)(?<=\S)"
    r"(?:[\"'](?=[\s.,;:!?)\]—-]|$)|[”»’」』])"
)
_MENTION_AFTER = re.compile(
    r"^\s*(?:prompts?|payloads?|attacks?|messages?|tricks?|techniques?|jailbreaks?|means?|meant|mean|"
    r"is an? (?:example|attack|classic)|(?:became|becomes|has become|turned into) an? (?:\w+ )?(?:meme|joke|catchphrase|trend|slogan)|之类|这样的|などの)",
    re.I,
)
_MENTION_CUE = re.compile(
    r"\b(?:like|such as|e\.g\.|for example|phrases?|lines?|lyrics?|chorus|words?|titled|title|called|"
    r"named|slogan|motto|song|novel|film|movie|book|game|poem|quote|sentence|strings?|catchphrase|"
    r"villain|character|single|album|track|episode|chapter|headline|hit|show|series|goes|sings?|"
    r"shouts?|reads?|what does|what is|meaning of)\b[^.!?\n\"“”:{}]{0,40}:?\s*$",
    re.I,
)
# a dialogue transcript: other speakers are labelled too, so "Agent:" is a label, not a vocative
TRANSCRIPT = re.compile(
    r"(?:^|\n|[.!?]\s+)(?:customer|user|caller|client|visitor|human|me|guest)\s*:", re.I
)


def _mentions(view: str) -> list[tuple[int, int]]:
    """Spans of quotations that the sentence presents as mentioned words, not as orders."""
    out = []
    for m in _QUOTED.finditer(view):
        if _MENTION_CUE.search(view[max(0, m.start() - 60) : m.start()]) or _MENTION_AFTER.search(
            view[m.end() : m.end() + 30]
        ):
            out.append((m.start(), m.end()))
    return out


def discount(view: str, name: str, m: re.Match[str], *, user: bool) -> float:
    """How much of a family's weight a match keeps, given what surrounds it."""
    left = view[max(0, m.start() - 200) : m.start()]
    sentences = re.split(r"[.!?\n]\s|[。！？]", left)
    sentence_left = sentences[-1]
    keep = 1.0
    if user and _REPORTED.search(view[max(0, m.start() - 40) : m.start()]):
        keep *= 0.4
    if user and _USER_ACTS.search(sentence_left[-40:]):
        keep *= 0.3
    if name in CREDENTIAL_FAMILIES and _AUTH_HEADER.search(m.group()):
        keep *= 0.2
    if name in MONEY_FAMILIES and _HOW_TO.search(sentence_left):
        keep *= 0.3
    if name in NEGATABLE and _NEGATED.search(sentence_left[-60:]):
        keep *= 0.2
    if _ASKED_TO.search(sentence_left[-80:]):
        keep *= 0.35
    # a text that speaks to the agent is not discussing attacks, whatever its letterhead says
    if not _AGENT_OBLIGED.search(sentence_left[-60:]):
        if _DISCUSSION.search(sentence_left):
            keep *= 0.2
        elif len(sentences) > 1 and _DISCUSSION.search(sentences[-2]):
            keep *= 0.35
    if any(a <= m.start() and m.end() <= b + 1 for a, b in _mentions(view)):
        keep *= 0.3
    return keep


def sensitive(view: str) -> bool:
    """Whether ``view`` names a secret, account, personal data or outside address.

    "Memory" alone does not count: a request to be remembered names it by definition.
    """
    return any(m.group() not in ("memory", "memories") for m in SENSITIVE.finditer(view))


def self_directed(view: str) -> bool:
    """The user speaking about their own service: first person, no other people or addresses."""
    # "remind me to ...", "when I ask you to ...": the owner's own plan or own trigger
    if _OWN_PLAN.search(view) and not _OTHERS_ACCOUNT.search(view):
        return True
    if not _FIRST.search(view) or _DEST.search(view) or _OTHERS_ACCOUNT.search(view):
        return False
    # "tell me", "remind me" make "them"/"her" objects of the user's own plans, not targets;
    # beside "my daughter", "her" is the user's own family, not a stranger
    rest = _SELF_OBJECT.sub(" ", view)
    if _MY_PERSON.search(rest):
        rest = _PRONOUN.sub(" ", rest)
    return not _THIRD.findall(rest)
