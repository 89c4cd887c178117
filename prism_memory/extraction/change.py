"""What makes a sentence a *change statement*, and how its new value reads: pure functions.

Design:
- A change statement says that something about its speaker is now different: "Switched to a
  Pixel 8", "I'm in Edinburgh these days", "Down to 76 kg", "我换车了，现在开比亚迪". Which
  earlier record it changes is decided by meaning elsewhere (``layers/slots.py``: the
  sentence's vector against the holder's current records); this module only answers the
  grammatical questions, from closed word classes rather than from sentences:
  - :func:`change_marker`: an aspect or time word that contrasts now with before ("now",
    "anymore", "no longer", "these days", "instead", "since", "new"; Chinese "现在", "已经",
    "不再", sentence-final "了"), a change verb ("switched", "moved", "quit", "joined"), a
    verb in the perfect or the past tense (an action that produced the present state), or
    a value that moved ("up to", "down to"). A bare past tense is not one: "I had lunch with
    a friend who works at Meta" mentions, it does not change;
  - :func:`additive`: the sentence adds a value rather than replacing one ("also", "too",
    "still", "another", "也", "还");
  - :func:`holder_of`: whose change it is — the speaker's (first person, or no subject),
    a thing's that the sentence must name ("Standup got moved"), or nobody's here (the
    listener, someone the speaker mentions: "my friend ...", a known person, "我朋友");
  - :func:`told`: the sentence as the new value of the slot, in the third person.
- No sentence, topic or value is listed here; a new phrasing of a change is recognised as long
  as it uses the grammar of change, which is what the held-out figure measures.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .english_clause_rules import is_reply_instruction
from .english_words import lemma, third_person
from .lexicon_life import (
    RELATIONS,
)
from .lexicon_verbs import (
    CHANGE_VERBS,
)
from .sentences import expand_contractions, is_cjk, speech_act
from .zh_lexicon import ZH_RELATIONS

__all__ = [
    "about_person",
    "additive",
    "change_marker",
    "holder_of",
    "is_change_statement",
    "told",
    "told_of",
]

_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
# aspect / time adverbs that contrast the present with an earlier value ("now" as an adverb,
# not "right now"/"for now"; "since" and the perfect are left out: "a lot has happened since
# we talked" narrates, it does not replace)
_NOW = re.compile(
    r"(?<!right )(?<!for )(?<!until )\bnow\b(?!\s+(?:and\s+then|that))|"
    r"\b(?:anymore|any\s+more|no\s+longer|not\s+any\s+longer|these\s+days|nowadays|"
    r"lately|from\s+now\s+on|instead|in\s+the\s+end|(?:up|down)\s+to\s+\d+|no\s+more)\b|"
    r"\b(?:my|our|a|his|her|their)\s+new\s+(?!\w+ing\b)",
    re.I,
)
# verbs whose meaning is that a value was replaced: moved, switched, quit, joined, sold, ...
_CHANGE_LEMMAS = frozenset(
    {
        "move",
        "relocate",
        "switch",
        "change",
        "quit",
        "leave",
        "join",
        "sell",
        "retire",
        "transfer",
        "swap",
        "replace",
        "convert",
        "promote",
        "resign",
        "cancel",
        "rebook",
        "reschedule",
        "postpone",
        "upgrade",
        "downgrade",
        "raise",
        "lower",
        "increase",
        "decrease",
        "reduce",
        "cut",
        "bump",
        "up",
        "shift",
        "push",
        "drop",
        "trade",
        "graduate",
        "divorce",
        "marry",
        "hire",
        "fire",
        "open",
    }
)
_CHANGE = frozenset(CHANGE_VERBS.split("|")) | {
    "moved",
    "relocated",
    "switched",
    "changed",
    "quit",
    "left",
    "joined",
    "sold",
    "retired",
    "transferred",
    "swapped",
    "replaced",
    "converted",
    "promoted",
    "resigned",
    "cancelled",
    "canceled",
    "rebooked",
    "rescheduled",
    "postponed",
    "upgraded",
    "downgraded",
    "raised",
    "lowered",
    "increased",
    "decreased",
    "reduced",
    "bumped",
    "upped",
    "shifted",
    "pushed",
    "dropped",
    "traded",
    "graduated",
    "divorced",
    "married",
    "hired",
    "fired",
    "switching",
    "moving",
    "quitting",
    "leaving",
    "joining",
    "selling",
    "retiring",
    "opened",
}
_NOT_CHANGE = frozenset({"set", "reset", "brought", "extended", "cut", "lifted", "capped"})
_ADDITIVE = re.compile(r"\b(?:also|too|as\s+well|still|another|plus|in\s+addition)\b", re.I)
# Chinese: time words that contrast now with before, change verbs, and the change-of-state 了
_ZH_NOW = re.compile(r"现在|如今|已经|不再|以后|从此|最近|这些天|改|换|变|了")
_ZH_ADDITIVE = re.compile(r"也|还有|另外")
_ZH_OTHER = re.compile(r"我(?:的)?(?:" + ZH_RELATIONS + r")|^(?:他|她|他们|她们|你)")
_FIRST_PERSON = frozenset({"i", "me", "my", "myself", "we", "us", "our", "mine", "ours"})
# a sentence about someone or something else: the listener, a third person, a demonstrative
_OTHER_SUBJECT = frozenset(
    {
        "you",
        "your",
        "he",
        "she",
        "his",
        "her",
        "they",
        "their",
        "it",
        "its",
        "that",
        "this",
        "there",
        "those",
        "these",
        "must",
        "what",
        "how",
        "why",
        "who",
    }
)
_OPENER = re.compile(
    r"^(?:(?:[A-Za-z]+ly|so|well|ok|okay|anyway|oh|update|news|yeah|yes|no|big\s+news|"
    r"good\s+news|bad\s+news|these\s+days|nowadays|now|in\s+the\s+end|from\s+now\s+on)"
    r"\b[,:!]?\s+)+",
    re.I,
)
# subjects that may stand for an unnamed agent when the speaker is the object ("They moved me
# to day shifts"); he / she / you never do
_AGENTS = frozenset({"they", "it", "that", "this", "there"})


def change_marker(sentence: str) -> bool:
    """Whether the sentence marks that a value was replaced: a time contrast ("now",
    "anymore", "these days", "instead"), a new thing ("my new car"), a value that moved ("up
    to 600") or a verb of replacing ("switched", "moved", "quit", "joined").

    >>> change_marker("Switched to a Pixel 8 over the weekend."), change_marker("I like tea.")
    (True, False)
    >>> change_marker("A lot has happened since we talked."), change_marker("I've been painting.")
    (False, False)
    >>> change_marker("最近我改喝茶了。"), change_marker("我喜欢喝茶。")
    (True, False)
    """
    if is_cjk(sentence):
        return _ZH_NOW.search(sentence.strip()) is not None
    text = expand_contractions(sentence)
    if _NOW.search(text):
        return True
    for word in _WORD.findall(text):
        low = word.lower()
        if low in _NOT_CHANGE:
            continue
        if low in _CHANGE or (low.endswith("ed") and lemma(low) in _CHANGE_LEMMAS):
            return True
    return False


def additive(sentence: str) -> bool:
    """Whether the sentence adds a value to what holds ("I also like ...", "我也喜欢")."""
    if is_cjk(sentence):
        return _ZH_ADDITIVE.search(sentence) is not None
    return _ADDITIVE.search(sentence) is not None


def holder_of(sentence: str, people: Iterable[str] = ()) -> str | None:
    """Whose change the sentence states: ``"self"`` (first person, or a clause without a
    subject: "Switched to a Pixel 8"), ``"thing"`` (a thing without an owner named: "Standup
    got moved to 10:15" — it must name the slot it changes), or ``None`` (the listener, a
    third person, someone the speaker mentions: "my friend ...", a known name, "我朋友").

    >>> holder_of("Switched to a Pixel 8."), holder_of("My friend spent 2000 on hers.")
    ('self', None)
    >>> holder_of("Standup got moved to 10:15."), holder_of("You are helping others now.")
    ('thing', None)
    >>> holder_of("Lars told me he quit.", ["Lars"]), holder_of("我朋友住在上海。")
    (None, None)
    """
    text = expand_contractions(_OPENER.sub("", sentence.strip()))
    if is_cjk(text):
        if _ZH_OTHER.search(text):
            return None
        return "self" if "我" in text else "thing"
    words = _WORD.findall(text)
    if not words or text.startswith("["):
        return None
    if is_reply_instruction(sentence):  # "From now on respond only in French": the speaker's
        return "self"
    first = words[0].lower()
    names = {p.lower() for p in people}
    lowered = [w.lower() for w in words]
    if first in _AGENTS and set(lowered[1:]) & _FIRST_PERSON:
        return "self"
    if first in _OTHER_SUBJECT or first in names:
        return None
    if first in ("my", "our") and len(words) > 1:
        second = lowered[1]
        third = lowered[2] if len(words) > 2 else ""
        later = set(lowered[2:])
        # "my friend spent ..." is about the friend; "my doctor raised my dose" about me
        if (second in RELATIONS or third in RELATIONS) and not later & _FIRST_PERSON:
            return None
    if set(lowered) & _FIRST_PERSON:
        return "self"
    if first.endswith(("ed", "ing")) or first in _CHANGE or first in ("down", "up", "got"):
        return "self"  # no subject: the speaker's own clause ("Switched to ...", "Down to 76 kg")
    return "thing"


def about_person(sentence: str, people: Iterable[str]) -> str | None:
    """The known person a change statement is about ("Lars told me he quit", "My sister Ines
    switched to architecture"), or ``None``.

    >>> about_person("Hanna moved to Bergen for her new job.", ["Hanna"])
    'Hanna'
    >>> about_person("Hanna is lovely.", ["Hanna"]), about_person("I moved.", ["Hanna"])
    (None, None)
    """
    text = _OPENER.sub("", sentence.strip())
    if is_cjk(text) or not change_marker(text) or additive(text):
        return None
    words = _WORD.findall(text)
    names = {p.lower(): p for p in people}
    if words and words[0].lower() in names and words[0][0].isupper():
        return names[words[0].lower()]
    if (
        len(words) > 2
        and words[0].lower() in ("my", "our")
        and words[1].lower() in RELATIONS
        and words[2].lower() in names
        and words[2][0].isupper()
    ):
        return names[words[2].lower()]
    return None


def is_change_statement(sentence: str, people: Iterable[str] = ()) -> str | None:
    """Whose change a statement states (:func:`holder_of`) when it marks a change and adds
    nothing; ``None`` otherwise.

    >>> is_change_statement("These days it's all history books for me.")
    'self'
    >>> is_change_statement("Would an aisle seat be cheaper?"), is_change_statement("I also like jazz now.")
    (None, None)
    """
    if speech_act(sentence) != "statement" or additive(sentence) or not change_marker(sentence):
        return None
    return holder_of(sentence, people)


def told_of(sentence: str, person: str) -> str:
    """A change statement about ``person`` as an entry of their card.

    >>> told_of("Lars told me he's quit the restaurant.", "Lars")
    'told them he has quit the restaurant'
    """
    text = _OPENER.sub("", sentence.strip().rstrip(".!"))
    text = re.sub(rf"^(?:(?:[Mm]y|[Oo]ur)\s+\w+\s+)?{re.escape(person)}\s+", "", text)
    text = re.sub(
        r"\b(he|she|it)'s\s+(\w+ed|been|got|gone|quit|left|done|made)\b", r"\1 has \2", text
    )
    return re.sub(r"\bcan not\b", "cannot", third_person(text))


def told(sentence: str, who: str | None) -> tuple[str, str | None]:
    """The sentence as a new value said of ``who``: ``(value, predicate)``.

    A sentence whose subject is the speaker reads ``"<who> <value>"`` (the predicate is
    empty); one without the speaker as subject keeps its words as the slot's value.

    >>> told("Weirdly I can't stand cilantro anymore.", "Vic")
    ('cannot stand cilantro anymore', '')
    >>> told("Switched to a Pixel 8 over the weekend!", "Fatima")
    ('Switched to a Pixel 8 over the weekend', None)
    """
    text = sentence.strip().rstrip(".!。！")
    if is_cjk(text):
        return text, None
    text = _OPENER.sub("", text)
    name = who or "they"
    said = re.sub(r"\bcan not\b", "cannot", third_person(text, name))
    if said.startswith(name + " "):
        return said[len(name) + 1 :], ""
    return said, None
