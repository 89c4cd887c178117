"""English subjects: who a clause is about, and the persons and pets a turn names in passing.

Design:
- ``SubjectReader.subject(toks)`` finds the subject of a clause: the speaker ("I", "we"), a
  named person ("my sister Anna", "Mr. Okafor", a name met before), a pet, or something the
  speaker owns ("my rent"); words before it ("For short trips I prefer trains") are an
  adverbial, an "I" after a noun phrase a relative clause.
- The reader is the one piece of state of the English reading of a turn: the last person
  named, whom a later "he"/"she" refers to. ``clauses.EnglishExtractor`` composes one per
  turn and calls it clause by clause, in order.
- ``persons(toks)`` yields the Person records ("my sister Anna") and pets ("a cat named Miso")
  of a clause, whatever its subject.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..records import Entity
from .candidate import FactCandidate
from .english_predicate import Subject
from .english_slots import (
    possessed_subject,
)
from .english_words import (
    Tok,
    starts_clause,
)
from .lexicon_grammar import (
    KIN_MODIFIERS,
    KIN_RELATION_MODIFIERS,
    OPENERS,
    PREPOSITIONS,
    SUBORDINATORS,
    TITLES,
)
from .lexicon_life import (
    PETS,
    RELATIONS,
)
from .patterns import NOT_NAMES

__all__ = ["SubjectReader"]


class SubjectReader:
    """Who the clauses of one turn are about; remembers the last person named, whom a later
    "he" or "she" refers to."""

    def __init__(self, who: str | None, people: Iterable[str] = ()) -> None:
        self.who = who  # the speaker's name (None: "user")
        self.people = {p.lower(): p for p in people}
        self.last_person: str | None = None

    # -- subjects -----------------------------------------------------------------------
    def subject(self, toks: list[Tok]) -> Subject | None:
        """The clause's subject: of the subject-like spans (:meth:`_subject_spans`), those a
        relative clause does not hide, the first (:meth:`_chosen_subject`); in a clause opened
        by a subordinator, the "I" of the main clause after it, else the first, marked
        subordinate."""
        found, first_self = self._subject_spans(toks)
        lead = toks[0].low
        fronted = lead in PREPOSITIONS or lead in SUBORDINATORS or lead in OPENERS
        # "the support I got made a difference", "This book I read": an "I" right after a noun
        # phrase is a relative clause, unless the clause opens with an adverbial ("For short
        # trips I prefer trains", "In the end I ordered")
        found = [
            s
            for s in found
            if s.kind != "self" or s.start == 0 or fronted or starts_clause(toks, s.start)
        ]
        found = [s for s in found if s.kind != "possessed" or starts_clause(toks, s.start)]
        if not found:
            return None
        if lead in SUBORDINATORS:
            selves = [s for s in found if s.kind == "self" and s.start > 1]
            if len(found) > 1 and selves:
                return selves[-1]  # "Since my office moved, I take the train"
            found[0].subordinate = True
        return self._chosen_subject(toks, found[0], first_self)

    def _subject_spans(self, toks: list[Tok]) -> tuple[list[Subject], Subject | None]:
        """Every span that can be a subject ("I", "we", "my sister Anna", "my rent", "she" for
        the last person named, "Dr. Lee", a person met before), in order, and the first "I"."""
        first_self = None
        found: list[Subject] = []
        n = len(toks)
        for i, t in enumerate(toks):
            if t.text == "I" or t.low == "we":
                s = Subject("self", None, start=i, end=i + 1)
                found.append(s)
                if first_self is None:
                    first_self = s
            elif t.low in ("my", "our") and i + 1 < n:
                s2 = self._possessive_subject(toks, i)
                if s2 is not None:
                    found.append(s2)
            elif t.low in ("he", "she") and self.last_person:
                found.append(Subject("person", self.last_person, start=i, end=i + 1, pronoun=True))
            elif t.low in TITLES and i + 1 < n and toks[i + 1].text[:1].isupper():
                name = toks[i + 1].text
                found.append(Subject("person", name, start=i, end=i + 2))
            elif (
                t.text[:1].isupper()
                and t.low in self.people
                and i + 1 < n
                and (toks[i + 1].low not in PREPOSITIONS)
            ):
                found.append(Subject("person", self.people[t.low], start=i, end=i + 1))
        return found, first_self

    def _chosen_subject(
        self, toks: list[Tok], chosen: Subject, first_self: Subject | None
    ) -> Subject:
        """``chosen``, except "My partner Tom and I" (the speaker's statement) and a possessed
        thing after an "I" (the "I"); a chosen person becomes the last person named."""
        if (
            chosen.kind == "person"
            and chosen.end + 1 < len(toks)
            and toks[chosen.end].low in ("and", "&")
            and (toks[chosen.end + 1].text == "I" or toks[chosen.end + 1].low == "we")
        ):
            # "My partner Tom and I want ...": the speaker's (shared) statement
            return Subject("self", None, start=chosen.start, end=chosen.end + 2)
        if chosen.kind == "person":
            self.last_person = chosen.name
        if (
            chosen.kind == "possessed"
            and chosen.start > 0
            and first_self is not None
            and first_self.start < chosen.start
        ):
            return first_self
        return chosen

    def _possessive_subject(self, toks: list[Tok], i: int) -> Subject | None:
        """ "my sister Anna", "my boss", "our cat Miso", "my monthly rent" at index i."""
        n = len(toks)
        j = i + 1
        mods = []
        while j < n and toks[j].low in KIN_MODIFIERS:
            mods.append(toks[j].low)
            j += 1
        if j >= n:
            return None
        word = toks[j].low
        rel_word = word
        if j + 1 < n and f"{word} {toks[j + 1].low}" in ("best friend", "grand kid"):
            rel_word = f"{word} {toks[j + 1].low}"
            j += 1
        if word in RELATIONS or word in PETS:
            kind = "pet" if word in PETS else "person"
            relation = " ".join([*[m for m in mods if m in KIN_RELATION_MODIFIERS], rel_word])
            return self._relative(toks, i, j, kind, relation)
        return possessed_subject(toks, i, j)

    def _relative(self, toks: list[Tok], i: int, j: int, kind: str, relation: str) -> Subject:
        """A relative or a pet from "my" at ``i`` to its noun at ``j``: named ("my sister
        (named) Anna Lee") or not ("my boss": the speaker's boss)."""
        n = len(toks)
        k = j + 1
        if k < n and toks[k].low in ("named", "called"):
            k += 1
        if k < n and toks[k].low in TITLES:
            k += 1
        if k < n and toks[k].text[:1].isupper() and toks[k].text not in NOT_NAMES:
            name_toks = [toks[k].text]
            if k + 1 < n and toks[k + 1].text[:1].isupper() and toks[k + 1].text not in NOT_NAMES:
                name_toks.append(toks[k + 1].text)
            name = " ".join(name_toks)
            if kind == "person":
                self.last_person = name
            return Subject(kind, name, relation, start=i, end=k + len(name_toks))
        owner = self.who or "User"
        if kind == "pet":
            return Subject("pet", None, relation, start=i, end=j + 1)
        return Subject("person", f"{owner}'s {relation}", relation, start=i, end=j + 1)

    # -- persons and pets named in passing ---------------------------------------------
    # persons ("my sister Anna", "Mr. Okafor") and pets ("my dog Rex", "a cat named Miso") a
    # clause names, whatever its subject; a titled name becomes the last person
    def persons(self, toks: list[Tok]) -> list[FactCandidate]:
        out = []
        n = len(toks)
        for i, t in enumerate(toks):
            if t.low in ("my", "our"):
                s = self._possessive_subject(toks, i)
                if s is None:
                    continue
                if s.kind == "person" and s.name and not s.name.endswith(f"'s {s.relation}"):
                    out.append(
                        FactCandidate(
                            "Person",
                            {"name": s.name, "relationship": s.relation},
                            0.8,
                            0.6,
                            [Entity(type="person", name=s.name)],
                        )
                    )
                elif s.kind == "pet" and s.name:
                    holder = self.who or "user"
                    value = f"{s.relation} {s.name}"
                    out.append(
                        FactCandidate(
                            "Fact",
                            {"attribute": "pet", "value": value, "subject": holder},
                            0.8,
                            0.6,
                            key=f"Fact|{holder.lower()}|pet|{s.name.lower()}",
                        )
                    )
            elif t.low in TITLES and i + 1 < n and toks[i + 1].text[:1].isupper():
                name = toks[i + 1].text
                if name not in NOT_NAMES:
                    self.last_person = name
                    out.append(
                        FactCandidate(
                            "Person", {"name": name}, 0.7, 0.5, [Entity(type="person", name=name)]
                        )
                    )
            elif (
                t.low in ("named", "called")
                and i + 1 < n
                and toks[i + 1].text[:1].isupper()
                and i > 0
            ):
                prev = [x.low for x in toks[max(0, i - 4) : i]]
                pet = next((w for w in reversed(prev) if w in PETS), None)
                if pet:
                    holder = self.who or "user"
                    name = toks[i + 1].text
                    out.append(
                        FactCandidate(
                            "Fact",
                            {"attribute": "pet", "value": f"{pet} named {name}", "subject": holder},
                            0.8,
                            0.6,
                            key=f"Fact|{holder.lower()}|pet|{name.lower()}",
                        )
                    )
        return out
