"""Named things in a text: titled and related persons, Chinese names, capitalised names."""

from __future__ import annotations

import re

from ..records import Entity
from .patterns import _CAPITALISED, _NOT_NAMES, _PERSON_REL, _TITLED
from .sentences import is_cjk
from .zh_names import find_names

__all__ = ["find_entities"]


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
        words = [w for w in re.split(r"[ -]", m.group(0)) if w not in _NOT_NAMES]
        if not words:
            continue
        name = " ".join(words)
        if len(name) > 1 and name.lower() not in found:
            found[name.lower()] = Entity(type="thing", name=name)
    return list(found.values())[:12]
