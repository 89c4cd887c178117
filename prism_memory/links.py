"""Link keys: the people, places, things and events a text mentions, as normalised keys.

Design:
- A record's ``link_keys`` (a payload field with a keyword index on both engines, derived by
  ``MemoryRecord.to_payload`` like ``entity_keys``) are the nodes it touches; records of one
  scope sharing a key are neighbours. The entity/event graph is therefore the payload index
  itself: no second database, no edge table to keep in step with deletes and versions.
- Keys come from the surface of the text, by grammatical role rather than by word lists:
  names (capitalised words that do not open a sentence), the head words of determiner-led noun
  phrases ("the kids", "a pottery class", "my horse painting"), activities of "go + -ing"
  ("went camping"), and people named by their relation to the speaker. A stated alias is
  coreference: "my sister Maya" keys the record by ``maya`` and by ``sister``, so a later
  "my sister called" reaches the records about Maya through the shared ``sister``.
- Pure and cheap (a few regular expressions, no model): it runs on every write and, for
  records written before the field existed, on the fly at recall (``keys_of_payload``).
- Stores written before this field keep working: their records have no ``link_keys``, so the
  second hop cannot reach them (it never fails on them), and their keys as seeds are
  computed from the text.

>>> link_keys("My sister Maya took the kids camping; we went swimming at Lake Tahoe.")
['camping', 'kid', 'lake tahoe', 'maya', 'sister', 'swimming']
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Any

__all__ = [
    "FOLLOWED_RELATIONS",
    "INVERSE_RELATION",
    "LINK_TYPES",
    "MAX_LINK_KEYS",
    "RELATIONS",
    "STORED_RELATION",
    "keys_of_payload",
    "link_keys",
    "normalize_key",
]

MAX_LINK_KEYS = 24

#: the relationship links an extractor (the LLM path) may state between memories, a closed
#: set: ``caused_by`` (this happened because of the target), ``before`` / ``after`` (this
#: happened before / after the target), ``contradicts`` (this and the target cannot both hold)
LINK_TYPES = ("caused_by", "before", "after", "contradicts")
#: the relation type each link is stored as: a stated contradiction between two current
#: memories is the ``conflicts`` link the write path already keeps (``contradicts`` is the
#: version lineage, old value -> its successor, which ``Memory.history`` follows)
STORED_RELATION = {
    "caused_by": "caused_by",
    "before": "before",
    "after": "after",
    "contradicts": "conflicts",
}
#: the relation stored on the target, so a link is followed from either end
INVERSE_RELATION = {
    "caused_by": "causes",
    "causes": "caused_by",
    "before": "after",
    "after": "before",
    "conflicts": "conflicts",
}
#: the relations recall follows from its best records (the version links are history, not
#: neighbours, and are never followed)
FOLLOWED_RELATIONS = frozenset(INVERSE_RELATION)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: people named by their relation to the speaker (the closed class of kinship and social roles)
RELATIONS = _words(
    """sister brother mom mother dad father son daughter wife husband partner boyfriend
    girlfriend fiance fiancee grandma grandmother grandpa grandfather aunt uncle cousin niece
    nephew friend bestie roommate boss manager colleague coworker mentor teacher coach
    therapist doctor neighbor neighbour kid kids child children baby parents family
    dog cat pet"""
)

# function words and vague nouns: they follow determiners ("a lot", "the same") but name
# nothing a second record could share meaningfully
_VAGUE = _words(
    """a an the my our your his her their its this that these those some any every each no
    other another same few many much more most lot lots bit kind sort type way thing things
    stuff time times day days week weeks month months year years today tomorrow yesterday
    weekend night morning evening moment while one ones first last next new old good great
    nice big small little best better own whole really very so just also too such few
    something anything everything nothing someone anyone everyone people person guy guys
    part place idea point fun rest end start sure photo picture pic image"""
)

_STOP = _VAGUE | _words(
    """i me we us you he him she it they them and or but if then than of in on at to for from
    with by about as into over after before up down out off is am are was were be been being
    have has had do does did will would can could should may might must not what which who
    whom whose when where why how all both here there now ok okay yes yeah hey hi hello wow
    thanks thank oh lol haha"""
)

# words that open sentences without naming anything (greetings, interjections, discourse
# markers, time adverbs, imperatives of talk); a capitalised opener not among them, nor a
# function word, nor an -ly adverb, is read as a name ("Maya called", "Lisbon was warm")
_OPENERS = _words(
    """thanks thank sorry wow yeah yep yup nope yes no well so hey hi hello oh ah hmm great
    awesome cool nice sounds sound sure really totally definitely absolutely glad congrats
    congratulations please let lets look check see guess maybe perhaps anyway besides also
    still even last next recently lately finally honestly actually basically plus love good
    bad happy wish hope haha lol omg omw"""
)

_DETERMINER = r"(?:the|a|an|my|our|your|his|her|their|this|that|these|those|some)"
_WORD = r"[A-Za-z][A-Za-z'-]*"
_LOWER = r"[a-z][a-z'-]*"
# a determiner and the one or two lower-case words after it (names are found on their own)
_NP = re.compile(rf"\b(?i:{_DETERMINER})\s+({_LOWER})(?:\s+({_LOWER}))?")
_GO_ING = re.compile(r"\b(?:go|goes|going|gone|went)\s+([a-z]+ing)\b", re.I)
_REL_NAME = re.compile(
    rf"\b(?:[Mm]y|[Oo]ur)\s+({_WORD})(?:,)?\s+(?:(?:is|named|called)\s+)?([A-Z][a-z]+)\b"
)
_NAME = re.compile(r"\b[A-Z][a-z]+(?:[ -][A-Z][a-z]+)*\b")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;\"\n(\[]\s*)$")


def normalize_key(word: str) -> str:
    """Lower-case, accents folded, a plural ``-s`` dropped from longer words.

    >>> [normalize_key(w) for w in ["Kids", "Café", "class", "bus"]]
    ['kid', 'cafe', 'class', 'bus']
    """
    w = unicodedata.normalize("NFKD", word.strip().lower())
    w = "".join(ch for ch in w if not unicodedata.combining(ch)).strip("'-")
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    return w


def _noun_phrase_heads(text: str) -> set[str]:
    out: set[str] = set()
    for m in _NP.finditer(text):
        for word in m.groups():
            if word is None:
                break
            key = normalize_key(word)
            if word.lower() in _STOP or key in _STOP or len(key) < 3:
                break  # the phrase ends at a function word
            out.add(key)
    return out


def _names(text: str) -> set[str]:
    out: set[str] = set()
    for m in _NAME.finditer(text):
        words = m.group(0)
        first = words.split(" ", 1)[0].lower()
        if _SENTENCE_START.search(text[: m.start()]) and (
            first in _STOP or first in _OPENERS or first.endswith("ly")
        ):
            # a capital that opens a sentence is a name only when the word is no common opener
            rest = words.split(" ", 1)
            if len(rest) < 2:
                continue
            words = rest[1]
        key = " ".join(
            normalize_key(w) if i == len(words.split()) - 1 else w.lower()
            for i, w in enumerate(words.split())
        )
        if key not in _STOP and len(key) > 1:
            out.add(key)
    return out


def link_keys(text: str, speaker: str | None = None) -> list[str]:
    """The normalised keys of the people, places, things and events ``text`` mentions
    (at most :data:`MAX_LINK_KEYS`, sorted); the ``speaker``'s own name is not a key (every
    turn of theirs would link).

    >>> link_keys("Our dog, Rex, loves the beach.")
    ['beach', 'dog', 'rex']
    """
    if not text:
        return []
    people: set[str] = set()
    for m in _REL_NAME.finditer(text):
        rel = m.group(1).lower()
        if rel in RELATIONS:  # coreference stated in the text: the name and the role
            people.add(normalize_key(rel))
            people.add(normalize_key(m.group(2)))
    events = {normalize_key(m.group(1)) for m in _GO_ING.finditer(text)}
    own = normalize_key(speaker) if speaker else None
    keys: list[str] = []
    # names, people and events first: when a long text has more keys than fit, the things
    # named by common nouns are the ones left out
    for group in (people | _names(text), events, _noun_phrase_heads(text)):
        for k in sorted(group):
            if k and k not in _STOP and k != own and k not in keys:
                keys.append(k)
    return sorted(keys[:MAX_LINK_KEYS])


def keys_of_payload(payload: Mapping[str, Any]) -> list[str]:
    """A stored record's link keys: the ``link_keys`` field, or computed from its text for a
    record written before the field existed."""
    stored = payload.get("link_keys")
    if isinstance(stored, list):
        return [str(k) for k in stored]
    speaker = payload.get("speaker")
    return link_keys(str(payload.get("text") or ""), speaker if isinstance(speaker, str) else None)
