"""Required literals of a regular expression: a cheap, exact test that a pattern cannot match.

Design:
- :func:`requirement` reads a compiled pattern's parse tree and returns what every match
  needs (``None`` when nothing can be derived, e.g. a pattern that can match with no fixed
  letters). It is the prefilter idea of RE2 and Hyperscan, kept small: a run of literal
  characters is needed; a sequence needs *all* its elements' needs; an alternation *any* of
  its branches' (``None`` if a branch needs nothing); a repeat with a minimum of at least one
  what its body needs; a group what its content needs. Assertions, classes, backreferences
  and case-insensitive parts need nothing. Each node is necessary for a match of its part,
  so the tree is exact; and it is selective on long texts, where one word of a single
  best set ("the", "you") is in a 1,000-character turn for most families but a family such as
  "when X asks ..., tell ..." | "the answer you must give ..." needs a trigger word *and* an
  asking verb *and* an order verb, or the other branch's words: the whole tree holds for
  about a third of the families (LongMemEval turns: 10,987 family scans -> 3,538).
- :class:`Prefilter` holds the tree of one pattern; ``may_match(text)`` is ``False`` only when
  the pattern cannot match ``text``. :class:`LiteralIndex` finds which literals of many
  patterns a text holds in one pass (its 4-grams against the literals'), so the screen looks
  a view's words up once for all its families; each family's test is then a few set
  operations, where a scan by a long pattern costs a fraction of a millisecond.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet
from re import _constants as _c  # type: ignore[attr-defined]
from re import _parser as _sre  # type: ignore[attr-defined]
from typing import Any

__all__ = ["LiteralIndex", "Need", "Prefilter", "holds", "requirement"]

#: what a match needs: a set of strings (one of them), or ``(any, parts)``: at least one part
#: (``any`` true) or every part (false)
Need = frozenset[str] | tuple[bool, tuple["Need", ...]]


def requirement(pattern: re.Pattern[str]) -> Need | None:
    """What every match of ``pattern`` needs, as a tree of literal sets (``None``: nothing).

    A leaf (a frozenset) needs one of its strings; ``(False, parts)`` needs every part,
    ``(True, parts)`` at least one.

    >>> need = requirement(re.compile(r"\\b(?:when|if)\\W+\\w+ asks\\b|\\bthe answer is\\b"))
    >>> [holds(need, set(words)) for words in (["if", " asks"], ["if"], ["the answer is"])]
    [True, False, True]
    >>> requirement(re.compile(r"(?:a|\\d)x?")) is None
    True
    """
    if pattern.flags & re.IGNORECASE:
        return None
    need = _need_of_sequence(_sre.parse(pattern.pattern, pattern.flags).data)
    return None if need is None else _ordered(need)


def _need_of_sequence(items: list[tuple[Any, Any]]) -> Need | None:
    """A sequence needs every literal run and every element's need."""
    needs: list[Need] = []
    run: list[str] = []
    for op, av in items:
        if op is _c.LITERAL:
            run.append(chr(av))
            continue
        if run:
            needs.append(frozenset({"".join(run)}))
            run = []
        need = _need_of_item(op, av)
        if need is not None:
            needs.append(need)
    if run:
        needs.append(frozenset({"".join(run)}))
    if not needs:
        return None
    return needs[0] if len(needs) == 1 else (False, tuple(needs))


def _need_of_item(op: Any, av: Any) -> Need | None:
    """What one parse item needs (``None``: nothing); an alternation of plain literal sets is
    one set."""
    if op is _c.BRANCH:
        branches = [_need_of_sequence(list(b)) for b in av[1]]
        if any(b is None for b in branches):
            return None
        kept = [b for b in branches if b is not None]
        sets = [b for b in kept if isinstance(b, frozenset)]
        return frozenset().union(*sets) if len(sets) == len(kept) else (True, tuple(kept))
    if op is _c.SUBPATTERN:
        _group, add_flags, _del_flags, body = av
        return None if add_flags & _c.SRE_FLAG_IGNORECASE else _need_of_sequence(list(body))
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", None)):
        low, _high, body = av
        return _need_of_sequence(list(body)) if low >= 1 else None
    if op is getattr(_c, "ATOMIC_GROUP", None):
        return _need_of_sequence(list(av))
    if op is _c.IN and len(av) == 1 and av[0][0] is _c.LITERAL:
        return frozenset({chr(av[0][1])})
    return None


def _size(need: Need) -> int:
    return len(need) if isinstance(need, frozenset) else sum(_size(n) for n in need[1])


def _ordered(need: Need) -> Need:
    """The same tree with the smallest parts of each conjunction tried first."""
    if isinstance(need, frozenset):
        return need
    wanted, parts = need
    kids = [_ordered(n) for n in parts]
    return (wanted, tuple(kids if wanted else sorted(kids, key=_size)))


def _leaves(need: Need) -> Iterator[frozenset[str]]:
    if isinstance(need, frozenset):
        yield need
    else:
        for part in need[1]:
            yield from _leaves(part)


def holds(need: Need, present: AbstractSet[str]) -> bool:
    """Whether a text holding the literals ``present`` (:meth:`LiteralIndex.present`) has
    what ``need`` asks for."""
    if isinstance(need, frozenset):
        return not need.isdisjoint(present)
    wanted, parts = need  # wanted: the answer of a part that decides the node
    for part in parts:  # a loop, not all()/any() over a generator: ~15 nodes a family
        if holds(part, present) is wanted:
            return wanted
    return not wanted


class LiteralIndex:
    """Which of many literals a text holds, in one pass over the text.

    A literal of four characters or more can be in a text only if its first four are, so
    the text's 4-grams (one set, built once) are intersected with the literals' (a C-level
    set operation) and only the literals whose 4-gram is there are searched for; 3-letter
    literals are looked up in the text's 3-grams, shorter ones searched. Exact: the same set
    as ``{lit for lit in literals if lit in text}``, for ~1/4 of the cost on long texts.

    >>> index = LiteralIndex(["send", "wire the", "ai", "key"])
    >>> sorted(index.present("please wire the money to the key holder"))
    ['key', 'wire the']
    """

    __slots__ = ("_by_gram", "_grams", "_short", "_three")

    def __init__(self, literals: Iterable[str]) -> None:
        by_gram: dict[str, list[str]] = {}
        unique = sorted(set(literals))
        for lit in unique:
            if len(lit) >= 4:
                by_gram.setdefault(lit[:4], []).append(lit)
        self._by_gram = by_gram
        self._grams = frozenset(by_gram)
        self._three = frozenset(lit for lit in unique if len(lit) == 3)
        self._short = tuple(lit for lit in unique if 0 < len(lit) < 3)

    @classmethod
    def of(cls, needs: Iterable[Need | None]) -> LiteralIndex:
        """The index of every literal of ``needs``."""
        return cls(lit for n in needs if n is not None for leaf in _leaves(n) for lit in leaf)

    def present(self, text: str) -> set[str]:
        """The indexed literals that occur in ``text``."""
        n = len(text)
        out = {lit for lit in self._short if lit in text}
        out.update(self._three.intersection({text[i : i + 3] for i in range(n - 2)}))
        by_gram = self._by_gram
        for gram in self._grams.intersection({text[i : i + 4] for i in range(n - 3)}):
            out.update(lit for lit in by_gram[gram] if lit in text)
        return out


class Prefilter:
    """A pattern's required literals, for skipping texts it cannot match.

    >>> f = Prefilter(re.compile(r"\\bwire (?:the|all) funds\\b"))
    >>> f.may_match("please wire the funds today"), f.may_match("a quiet evening at home")
    (True, False)
    """

    __slots__ = ("_index", "need")

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.need = requirement(pattern)
        self._index = LiteralIndex.of([self.need])

    def may_match(self, text: str, present: AbstractSet[str] | None = None) -> bool:
        """``False`` only when the pattern cannot match ``text``; ``present``: the literals
        ``text`` holds, when a :class:`LiteralIndex` covering this pattern's found them."""
        if self.need is None:
            return True
        return holds(self.need, self._index.present(text) if present is None else present)
