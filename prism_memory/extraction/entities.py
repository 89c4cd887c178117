"""Named things in a text: titled and related persons, Chinese names, capitalised names."""

from __future__ import annotations

import re

from ..records import Entity
from .patterns import _CAPITALISED, _NOT_NAMES, _PERSON_REL, _TITLED, _ZH_PERSON

__all__ = ["find_entities"]


def find_entities(text: str) -> list[Entity]:
    """Named things in a text: titled and related persons, Chinese names, capitalised names."""
    found: dict[str, Entity] = {}
    for m in _TITLED.finditer(text):
        found.setdefault(m.group("name").lower(), Entity(type="person", name=m.group("name")))
    for m in _PERSON_REL.finditer(text):
        found.setdefault(m.group("name").lower(), Entity(type="person", name=m.group("name")))
    for m in _ZH_PERSON.finditer(text):
        found.setdefault(m.group("name"), Entity(type="person", name=m.group("name")))
    for m in _CAPITALISED.finditer(text):
        words = [w for w in re.split(r"[ -]", m.group(0)) if w not in _NOT_NAMES]
        if not words:
            continue
        name = " ".join(words)
        if len(name) > 1 and name.lower() not in found:
            found[name.lower()] = Entity(type="thing", name=name)
    return list(found.values())[:12]
