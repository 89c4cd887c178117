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
  - :func:`speaker_holds`: the sentence is about its speaker (first person, or no subject),
    not about someone they mention ("my friend ...", a known person's name, "我朋友");
  - :func:`told`: the sentence as the new value of the slot, in the third person.
- No sentence, topic or value is listed here; a new phrasing of a change is recognised as long
  as it uses the grammar of change, which is what the held-out figure measures.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .clauses import lemma, third_person
from .lexicon import CHANGE_VERBS, RELATIONS, STATE_CHANGE, ZH_RELATIONS
from .sentences import expand_contractions, is_cjk, speech_act

__all__ = [
    "about_person",
    "additive",
    "change_marker",
    "is_change_statement",
    "speaker_holds",
    "told",
    "told_of",
]

_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
# aspect / time adverbs that contrast the present with an earlier state
_NOW = re.compile(
    r"\b(?:now|anymore|any\s+more|no\s+longer|not\s+any\s+longer|these\s+days|nowadays|"
    r"lately|currently|from\s+now\s+on|instead|since|in\s+the\s+end|finally|"
    r"(?:up|down)\s+to|new|no\s+more|again|actually|turns\s+out)\b",
    re.I,
)
_PERFECT = re.compile(r"\b(?:have|has|'ve|had)\s+(?:\w+ly\s+)?(?:been\s+)?(\w+ed|\w+en)\b", re.I)
_CHANGE = frozenset(CHANGE_VERBS.split("|")) | {
    # verbs whose meaning is a change of place, owner, booking or kind
    "transferred",
    "transfer",
    "rebooked",
    "rebook",
    "replaced",
    "replace",
    "swapped",
    "swap",
    "converted",
    "convert",
    "promoted",
    "cancelled",
    "canceled",
    "sold",
    "gave",
    "traded",
}
_ADDITIVE = re.compile(r"\b(?:also|too|as\s+well|still|another|plus|in\s+addition)\b", re.I)
# Chinese: time words that contrast now with before, change verbs, and the change-of-state 了
_ZH_NOW = re.compile(r"现在|如今|已经|不再|以后|从此|最近|这些天|改|换|变|了")
_ZH_ADDITIVE = re.compile(r"也|还有|另外")
_ZH_OTHER = re.compile(r"我(?:的)?(?:" + ZH_RELATIONS + r")|^(?:他|她|他们|她们)")
_FIRST_PERSON = frozenset({"i", "me", "my", "myself", "we", "us", "our"})
_OPENER = re.compile(
    r"^(?:[A-Za-z]+ly|so|well|ok|okay|anyway|oh|update|news|yeah|yes|no)\b,?\s+", re.I
)


def change_marker(sentence: str) -> bool:
    """Whether the sentence marks a change (aspect, time contrast, change or past verb).

    >>> change_marker("Switched to a Pixel 8 over the weekend."), change_marker("I like tea.")
    (True, False)
    >>> change_marker("最近我改喝茶了。"), change_marker("我喜欢喝茶。")
    (True, False)
    """
    if is_cjk(sentence):
        return _ZH_NOW.search(sentence.strip()) is not None
    text = expand_contractions(sentence)
    if _NOW.search(text) or _PERFECT.search(text):
        return True
    for word in _WORD.findall(text):
        low = word.lower()
        if low in _CHANGE or lemma(low) in STATE_CHANGE:
            return True
    return False


def additive(sentence: str) -> bool:
    """Whether the sentence adds a value to what holds ("I also like ...", "我也喜欢")."""
    if is_cjk(sentence):
        return _ZH_ADDITIVE.search(sentence) is not None
    return _ADDITIVE.search(sentence) is not None


def speaker_holds(sentence: str, people: Iterable[str] = ()) -> bool:
    """Whether the sentence is about its speaker: first person or no subject, and not a
    statement about someone they mention (a relation, a known person, he/she).

    >>> speaker_holds("Switched to a Pixel 8."), speaker_holds("My friend spent 2000 on hers.")
    (True, False)
    >>> speaker_holds("Lars told me he quit.", ["Lars"]), speaker_holds("我朋友住在上海。")
    (False, False)
    """
    text = _OPENER.sub("", sentence.strip())
    if is_cjk(text):
        return _ZH_OTHER.search(text) is None
    words = _WORD.findall(text)
    if not words:
        return False
    first = words[0].lower()
    names = {p.lower() for p in people}
    if first in ("he", "she", "his", "her") or first in names:
        return False
    if first in ("my", "our") and len(words) > 1:
        second = words[1].lower()
        third = words[2].lower() if len(words) > 2 else ""
        later = {w.lower() for w in words[2:]}
        # "my friend spent ..." is about the friend; "my doctor raised my dose" about me
        if (second in RELATIONS or third in RELATIONS) and not later & _FIRST_PERSON:
            return False
    return True


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


def is_change_statement(sentence: str, people: Iterable[str] = ()) -> bool:
    """A statement by the speaker about themselves that marks a change and adds nothing.

    >>> is_change_statement("These days it's all history books for me.")
    True
    >>> is_change_statement("Would an aisle seat be cheaper?"), is_change_statement("I also like jazz now.")
    (False, False)
    """
    if speech_act(sentence) != "statement":
        return False
    return change_marker(sentence) and not additive(sentence) and speaker_holds(sentence, people)


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
