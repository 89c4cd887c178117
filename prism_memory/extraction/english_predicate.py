"""English predicates: what a clause's verb group says, and who the clause is about, as values.

Design:
- ``Subject`` says who a clause is about (the speaker, a person, a pet, something owned);
  ``Pred`` what its verb group says: main verb (lemma + particle), negation, modality, tense,
  aspect, habitual adverbs, copula, and the token where the object starts.
- ``VerbGroup(toks, i).read()`` walks the auxiliaries from token ``i`` (modals, "going to",
  "have been", "do" support, "need to"-style verbs) to the main verb; ``None`` when no verb
  follows. Finding the subject is the clause reader's job (``clauses``).
- Knows words (``english_words``) and the lexicon only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .english_words import Tok, lemma, looks_like_verb
from .lexicon_grammar import (
    ADVERBS,
    BE,
    DETERMINERS,
    DO,
    FUNCTION_WORDS,
    HABITUAL,
    HAVE,
    MODALS,
    OBJ_STOP,
    PARTICLES,
    PREPOSITIONS,
)
from .lexicon_nouns import (
    ING_NOUNS,
)
from .lexicon_verbs import (
    DISLIKE_VERBS,
    LIKE_VERBS,
    PARTICIPLES,
    PAST_FORMS,
    STATE_PARTICIPLES,
    TO_VERBS,
)

__all__ = ["Pred", "Subject", "VerbGroup"]


@dataclass
class Subject:
    """Who a clause is about: ``kind`` (self, person, pet, possessed, other), the holder's
    ``name`` (``None``: the speaker), and its token span."""

    kind: str  # self | person | pet | possessed | other
    name: str | None = None  # the holder (None: the speaker)
    relation: str | None = None
    noun: str | None = None  # possessed: what is owned
    start: int = 0
    end: int = 0
    pronoun: bool = False
    subordinate: bool = False


@dataclass
class Pred:
    """What a clause's verb group says: main verb and lemma, particle, negation, modality,
    tense, copula, habitual and "now" markers, and ``rest``, the token after the verb."""

    start: int
    verb: str = ""
    lemma: str = ""
    particle: str | None = None
    neg: bool = False
    modal: str | None = None  # future, want, must, hedge, ability, rather, past_habit, wish
    tense: str = "present"  # present, past, perfect, progressive
    copula: bool = False
    habitual: bool = False
    now: bool = False
    rest: int = 0  # index of the first word after the verb (and particle)
    verb_index: int = 0
    aux: list[str] = field(default_factory=list)


# the modal a "X to" verb gives the verb after it ("need to" -> must, "plan to" -> future)
_TO_MODALS = {
    "need": "must",
    "needs": "must",
    "have": "must",
    "has": "must",
    "got": "must",
    "plan": "future",
    "plans": "future",
    "hope": "future",
    "hopes": "future",
    "intend": "future",
    "aim": "future",
    "expect": "future",
    "decided": "future",
    "decide": "future",
    "used": "past_habit",
}


class VerbGroup:
    """Reads the verb group of a clause from token ``i`` into a :class:`Pred`.

    Stages, in the order a clause meets them: adverbs and negation (:meth:`skip`, between any
    two), a modal ("will", "would rather", "can"), an "X to" verb ("need to", "plan to"), "start
    to"; then the auxiliary decides the rest: a form of *be* (copula, "going to", progressive,
    passive), of *have* (possession, "have got to", perfect) or of *do* (negation and emphasis),
    else the main verb itself (:func:`_main_verb`). ``None``: no predicate.
    """

    def __init__(self, toks: list[Tok], i: int) -> None:
        self.toks = toks
        self.words = [t.low for t in toks]
        self.n = len(toks)
        self.p = Pred(start=i)

    def skip(self, j: int) -> int:
        """The index after the adverbs, "kind of", "no longer" and negations from ``j``."""
        words, n, p = self.words, self.n, self.p
        while j < n:
            w = words[j]
            if w in ("kind", "sort") and j + 1 < n and words[j + 1] == "of":
                j += 2
                continue
            if w == "no" and j + 1 < n and words[j + 1] == "longer":
                p.neg = True
                j += 2
                continue
            if w in ("not", "never"):
                p.neg = True
                j += 1
                continue
            if w in ADVERBS:
                p.habitual |= w in HABITUAL
                p.now |= w in ("now", "currently")
                j += 1
                continue
            break
        return j

    def read(self) -> Pred | None:
        """The predicate from the subject's end: auxiliaries, then the main verb; ``None``
        when no verb follows."""
        j = self.skip(self.p.start)
        for stage in (self._modal, self._to_verb, self._start_to):
            if j >= self.n:
                return None
            j = stage(j)
        if j >= self.n:
            return None
        w = self.words[j]
        if w in BE:
            return self._be(j)
        if w in HAVE:
            return self._have(j)
        if w in DO:
            return self._do(j)
        return _main_verb(self.p, self.toks, j)

    def _modal(self, j: int) -> int:
        words, n, p = self.words, self.n, self.p
        w = words[j]
        if w not in MODALS:
            return j
        p.aux.append(w)
        j = self.skip(j + 1)
        if w == "would" and j < n and words[j] == "rather":
            p.modal = "rather"
            j = self.skip(j + 1)
        elif w in ("would", "should") and j < n and words[j] in ("like", "love"):
            p.modal = "want" if not (j + 1 < n and words[j + 1] == "to") else "wish"
        elif w in ("will", "shall"):
            p.modal = "future"
        elif w in ("can", "could"):
            p.modal = "ability" if w == "can" else "hedge"
        elif w == "must":
            p.modal = "must"
        else:
            p.modal = "hedge"
        return j

    def _to_verb(self, j: int) -> int:
        w = self.words[j]
        if w in TO_VERBS and j + 1 < self.n and self.words[j + 1] == "to":
            self.p.modal = _TO_MODALS.get(w, "wish")
            return self.skip(j + 2)
        return j

    def _start_to(self, j: int) -> int:
        w = self.words[j]
        if (
            w in ("start", "started", "starting", "begin", "began", "beginning")
            and j + 1 < self.n
            and self.words[j + 1] == "to"
        ):
            return self.skip(j + 2)  # "I started to learn Spanish": the verb is "learn"
        return j

    def _copula(self, rest: int) -> Pred:
        self.p.copula = True
        self.p.rest = rest
        return self.p

    def _be(self, j: int) -> Pred | None:
        words, n, p = self.words, self.n, self.p
        w = words[j]
        p.aux.append(w)
        if w in ("was", "were"):
            p.tense = "past"
        j = self.skip(j + 1)
        if j >= n:
            return self._copula(j)
        w = words[j]
        if w == "going" and j + 1 < n and words[j + 1] == "to":
            return self._going_to(j)
        if w in ("used", "about", "supposed") and j + 1 < n and words[j + 1] == "to":
            p.modal = "past_habit" if w == "used" else "hedge"
            return p
        if w.endswith("ing") and w not in ING_NOUNS and len(w) > 4:
            p.tense = "progressive" if p.tense != "past" else "past"
            if w in ("starting", "beginning", "trying") and j + 1 < n and words[j + 1] == "to":
                j = self.skip(j + 2)
                if j >= n:
                    return None
                if w == "trying":
                    p.modal = "wish"
            return _main_verb(p, self.toks, j)
        if (
            (w.endswith("ed") or w in PAST_FORMS)
            and w not in STATE_PARTICIPLES
            and "-" not in w
            and (p.aux[-1] in ("be", "been") or w not in ("a", "an"))
        ):
            p.tense = "passive"  # "I was told", "it is cancelled": no state of the subject
        return self._copula(j)

    def _going_to(self, j: int) -> Pred | None:
        """``be going to``: the future ("I'm going to move"), else a trip ("going to Rome")."""
        words, n, p = self.words, self.n, self.p
        nxt = words[j + 2] if j + 2 < n else ""
        if (
            nxt
            and nxt not in DETERMINERS
            and not self.toks[j + 2].text[:1].isupper()
            and looks_like_verb(nxt)
        ):
            p.modal = "future"
            j = self.skip(j + 2)
            if j >= n:
                return None
            # "going to be ..." is a copula; "going to move": the verb is read as its complement
            return self._copula(self.skip(j + 1) if words[j] == "be" else j)
        p.tense = "progressive"
        p.verb, p.lemma, p.verb_index, p.rest = "going", "go", j, j + 1
        return p

    def _have(self, j: int) -> Pred | None:
        words, n, p = self.words, self.n, self.p
        w = words[j]
        p.aux.append(w)
        j2 = self.skip(j + 1)
        nxt = words[j2] if j2 < n else ""
        if nxt == "got" and j2 + 1 < n and words[j2 + 1] == "to":
            p.modal = "must"
            after = self.skip(j2 + 2)
            return _main_verb(p, self.toks, after) if after < n else None
        if nxt == "got":
            p.verb, p.lemma, p.verb_index, p.rest = "have", "have", j, j2 + 1
            return p
        if nxt == "been":
            return self._have_been(j2)
        if (
            nxt
            and (
                nxt.endswith("ed")
                or nxt in PARTICIPLES
                or (nxt in PAST_FORMS and nxt not in ("had",))
            )
            and nxt not in ("need",)
        ):
            p.tense = "perfect"
            return _main_verb(p, self.toks, j2)
        p.tense = "past" if w == "had" else "present"
        p.verb, p.lemma, p.verb_index, p.rest = w, "have", j, j + 1
        return p

    def _have_been(self, j2: int) -> Pred | None:
        """``have been``: perfect progressive ("been learning"), "been to", else a copula."""
        words, n, p = self.words, self.n, self.p
        p.tense = "perfect"
        j3 = self.skip(j2 + 1)
        if j3 < n and words[j3].endswith("ing") and words[j3] not in ING_NOUNS:
            p.tense = "progressive"
            return _main_verb(p, self.toks, j3)
        if j3 < n and words[j3] == "to":
            p.verb, p.lemma, p.verb_index, p.rest = "been", "be", j2, j3
            return p
        p.aux.append("been")
        return self._copula(j3)

    def _do(self, j: int) -> Pred | None:
        words, n, p = self.words, self.n, self.p
        w = words[j]
        j2 = self.skip(j + 1)
        if p.neg or (j2 < n and words[j2] in LIKE_VERBS | DISLIKE_VERBS):
            if j2 >= n:
                return None
            p.aux.append(w)
            if w == "did":
                p.tense = "past"
            return _main_verb(p, self.toks, j2)
        p.verb, p.lemma, p.verb_index, p.rest = w, "do", j, j + 1
        if w == "did":
            p.tense = "past"
        return p


def _main_verb(p: Pred, toks: list[Tok], j: int) -> Pred | None:
    """``p`` completed with the main verb at ``j`` (and its particle), or ``None`` when the
    word there cannot be a verb."""
    n = len(toks)
    if j >= n:
        return None
    w = toks[j].low
    if not re.fullmatch(r"[a-z][a-z']*(?:-[a-z]+)?", w) or w in DETERMINERS:
        return None
    if (w in PREPOSITIONS and w != "like") or w in OBJ_STOP or w in FUNCTION_WORDS:
        return None
    p.verb, p.verb_index = w, j
    p.lemma = lemma(w)
    if p.tense == "present" and (w in PAST_FORMS or (w.endswith("ed") and len(w) > 3)):
        p.tense = "past"
    k = j + 1
    parts = PARTICLES.get(p.lemma, ())
    if k < n and toks[k].low in parts:
        p.particle = toks[k].low
        k += 1
    p.rest = k
    return p
