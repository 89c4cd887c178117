"""Named things in a text: titled and related persons, Chinese names, capitalised names."""

from __future__ import annotations

import re

from ..records import Entity
from .patterns import NOT_NAMES
from .sentences import is_cjk
from .zh_names import find_names

__all__ = ["find_entities"]

# "my sister Anna", "Dr. Lee", "New York": persons by relation or title, and capitalised names
_RELATIONS = (
    "wife|husband|partner|boyfriend|girlfriend|son|daughter|kid|child|mother|mom|mum|father|dad|"
    "brother|sister|grandmother|grandma|grandfather|grandpa|aunt|uncle|cousin|friend|best friend|"
    "boss|manager|colleague|coworker|co-worker|roommate|neighbor|neighbour|doctor|teacher|dog|cat"
)
_PERSON_REL = re.compile(
    rf"\b[Mm]y\s+(?P<rel>(?i:{_RELATIONS}))(?:,)?\s+(?:is\s+|named\s+|called\s+)?(?P<name>[A-Z][a-z]+(?:\s[A-Z][a-z]+)?)\b"
)
_TITLED = re.compile(r"\b(?P<title>Mr|Mrs|Ms|Miss|Dr|Prof)\.?\s+(?P<name>[A-Z][a-z]+)\b")
_CAPITALISED = re.compile(r"\b[A-Z][a-z]+(?:[ -][A-Z][a-z]+)*\b")


def find_entities(text: str) -> list[Entity]:
    """Named things in a text: titled and related persons, Chinese names, capitalised names."""
    found: dict[str, Entity] = {}
    for m in _TITLED.finditer(text):
        found.setdefault(m.group("name").lower(), Entity(type="person", name=m.group("name")))
    for m in _PERSON_REL.finditer(text):
        found.setdefault(m.group("name").lower(), Entity(type="person", name=m.group("name")))
    if is_cjk(text):  # Chinese names by their place in the sentence (zh_names.py)
        for zh in find_names(text):
            found.setdefault(zh.name, Entity(type="person", name=zh.name))
    for m in _CAPITALISED.finditer(text):
        words = [w for w in re.split(r"[ -]", m.group(0)) if w not in NOT_NAMES]
        if not words:
            continue
        name = " ".join(words)
        if len(name) > 1 and name.lower() not in found:
            found[name.lower()] = Entity(type="thing", name=name)
    return list(found.values())[:12]
