"""What a reader sees of a character: whether it leaves any mark of its own.

Design: one pure predicate, :func:`inkless`, decided from Unicode's own data (general
category and character name), never from a hand list of code points: a character is inkless
when it is a control, format, surrogate, private-use or unassigned code point, a
non-spacing or enclosing mark (it draws on its neighbour, never a glyph of its own), or a
character Unicode itself names a blank (U+2800 BRAILLE PATTERN BLANK) or a letter that is a
filler (U+3164 HANGUL FILLER, U+FFA0 HALFWIDTH HANGUL FILLER). Text checks that must read text as a model
or a person reads it (the memories block's tag) skip such characters, so padding a word
with them hides nothing.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

__all__ = ["inkless"]

_NO_GLYPH = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Mn", "Me"})


@lru_cache(maxsize=65536)
def inkless(ch: str) -> bool:
    """Whether the character ``ch`` leaves no visible mark of its own.

    >>> [inkless(c) for c in ("a", "\\u200b", "\\u2800", "\\u3164", "\\uffa0", "\\u20dd", "<")]
    [False, True, True, True, True, True, False]
    >>> inkless(" ")  # a space is seen (it separates words): callers handle whitespace
    False
    """
    cat = unicodedata.category(ch)
    if cat in _NO_GLYPH:
        return True
    name = unicodedata.name(ch, "")
    # a blank pattern, or a letter that only holds an empty slot (Hangul fillers); the
    # "gap filler" punctuation marks of other scripts are drawn and are not inkless
    return name.endswith(" BLANK") or (cat == "Lo" and name.endswith(" FILLER"))
