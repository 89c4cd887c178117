"""Required literals of a regular expression: a cheap, exact test that a pattern cannot match.

Design:
- :func:`required_literals` reads a compiled pattern's parse tree and returns a set of strings
  such that every match of the pattern contains at least one of them (``None`` when no such
  set can be derived, e.g. a pattern that can match with no fixed letters). It is the
  prefilter idea of RE2 and Hyperscan, kept small: a run of literal characters is required;
  a sequence requires what its most selective element requires; an alternation requires the
  union of what each branch requires (``None`` if any branch requires nothing); a repeat with
  a minimum of at least one requires what its body requires; a group what its content
  requires. Assertions, classes, backreferences and case-insensitive parts require nothing.
- :class:`Prefilter` holds the literals of one pattern; ``may_match(text)`` is ``False`` only
  when no required literal occurs in ``text``, so the pattern cannot match there. A ``str in
  str`` scan per literal costs microseconds where a scan by a long pattern costs a fraction of
  a millisecond, so the screen skips most families on most benign texts with the same result.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from re import _constants as _c  # type: ignore[attr-defined]
from re import _parser as _sre  # type: ignore[attr-defined]
from typing import Any

__all__ = ["Prefilter", "required_literals"]

_Literals = frozenset[str]


def required_literals(pattern: re.Pattern[str]) -> _Literals | None:
    """Strings one of which every match of ``pattern`` contains, or ``None``.

    >>> sorted(required_literals(re.compile(r"\\b(?:run|execute)\\w* now")))
    [' now']
    >>> sorted(required_literals(re.compile(r"(?:ignore|forget) (?:all|any)")))
    ['forget', 'ignore']
    >>> required_literals(re.compile(r"\\w+@\\w+")) == frozenset({"@"})
    True
    >>> required_literals(re.compile(r"(?:a|\\d)x?")) is None
    True
    """
    if pattern.flags & re.IGNORECASE:
        return None
    found = _sequence(_sre.parse(pattern.pattern, pattern.flags).data)
    if found is None or not all(found):
        return None
    return found


def _score(lits: _Literals) -> tuple[int, int]:
    """How selective a set is: longer shortest literal first, then fewer literals."""
    return (min(map(len, lits)), -len(lits))


def _best(options: Iterable[_Literals]) -> _Literals | None:
    usable = [o for o in options if o and all(o)]
    return max(usable, key=_score) if usable else None


def _sequence(items: list[tuple[Any, Any]]) -> _Literals | None:
    """What a sequence of parse items requires: its best run of literals or element."""
    options: list[_Literals] = []
    run: list[str] = []
    for op, av in items:
        if op is _c.LITERAL:
            run.append(chr(av))
            continue
        if run:
            options.append(frozenset({"".join(run)}))
            run = []
        found = _item(op, av)
        if found is not None:
            options.append(found)
    if run:
        options.append(frozenset({"".join(run)}))
    return _best(options)


def _item(op: Any, av: Any) -> _Literals | None:
    """What one parse item requires (``None``: nothing)."""
    if op is _c.BRANCH:
        branches = [_sequence(list(b)) for b in av[1]]
        if any(b is None for b in branches):
            return None
        return frozenset().union(*(b for b in branches if b is not None))
    if op is _c.SUBPATTERN:
        _group, add_flags, _del_flags, body = av
        if add_flags & _c.SRE_FLAG_IGNORECASE:
            return None
        return _sequence(list(body))
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", None)):
        low, _high, body = av
        return _sequence(list(body)) if low >= 1 else None
    if op is getattr(_c, "ATOMIC_GROUP", None):
        return _sequence(list(av))
    if op is _c.IN and len(av) == 1 and av[0][0] is _c.LITERAL:
        return frozenset({chr(av[0][1])})
    return None


class Prefilter:
    """A pattern's required literals, for skipping texts it cannot match.

    >>> f = Prefilter(re.compile(r"\\bwire (?:the|all) funds\\b"))
    >>> f.may_match("please wire the funds today"), f.may_match("a quiet evening at home")
    (True, False)
    """

    __slots__ = ("literals",)

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.literals = required_literals(pattern)

    def may_match(self, text: str) -> bool:
        """``False`` only when the pattern cannot match ``text``."""
        lits = self.literals
        return lits is None or any(lit in text for lit in lits)
