"""English clause analysis: who a statement is about, what it says, and the records it yields.

Design:
- A clause (``sentences.split_clauses``) is read as *subject + predicate*. The subject is the
  speaker ("I", "we"), a named person ("my sister Anna", "Mr. Okafor", a name met before, a
  "he"/"she" that follows one), a pet, or something the speaker owns ("my rent", "our lease").
  Words before the subject ("For short trips I prefer trains", "Since my office moved I take
  the train") are an adverbial and are skipped.
- The predicate is parsed into auxiliaries (negation, modality, tense, aspect, habitual
  adverbs) and a main verb (lemma + particle). Rules over (subject, predicate) give:
  preferences (like / dislike / avoid / need), *slot* facts that hold one value at a time
  ("home city", "occupation", "workplace", "diet", "salary", "budget", "car", "commute",
  "<thing> dose", "number of <things>", "favourite <category>", "<my thing>": keyed by
  subject + normalised attribute, so a later value supersedes), *statements* that can hold many
  values ("plays bass", "speaks Arabic"; keyed with their value) and dated events.
- Clause-level patterns run whatever the subject: changes ("HR moved my review to Monday",
  "the landlord raised our rent to 1,950", "the Madrid flight is now on March 19") give the new
  value and the words of what it replaces (``FactCandidate.retire``); requests ("call me Sam",
  "oat milk, please"); budgets; favourites.
- Modality decides: a wish, a hedge ("I'd probably"), a plan without a date, a thought ("I
  think") states no fact; a plan with a date is an event. A statement about someone else is
  attributed to them, never to the speaker.
- Values are copied from the text, with "my" rendered from the holder's side ("their").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from ..records import Entity
from .candidate import FactCandidate
from .dates import TimeMention, find_times
from .english_predicate import Pred, Subject, VerbGroup
from .english_slots import (
    SALARY,
    copula_preference,
    copula_state,
    fact_candidate,
    history_slot,
    possessed_subject,
    preference_candidate,
    residence_slot,
    routine_slot,
    stated_change,
    states_something,
    tidy_event_text,
    without_date_words,
    work_slot,
)
from .english_words import (
    Tok,
    clean_obj,
    clean_value,
    head_noun,
    is_job,
    is_present_verb,
    lemma,
    normalize_attribute,
    possessive_value,
    singular_noun,
    starts_clause,
    strip_article,
    third_person,
    third_singular,
    tokens,
    topic_words,
    without_times,
)
from .entities import find_entities
from .lexicon_grammar import (
    ADVERBS,
    DETERMINERS,
    KIN_MODIFIERS,
    KIN_RELATION_MODIFIERS,
    NEW_CLAUSE_AFTER_AND,
    NO_EVENT_OPENERS,
    NOT_LOWER,
    OBJ_STOP,
    OPENERS,
    PREPOSITIONS,
    PRONOUN_OBJECTS,
    SUBORDINATORS,
    TITLES,
)
from .lexicon_life import (
    PETS,
    RELATIONS,
)
from .lexicon_nouns import (
    ABSTRACT_NOUNS,
    COUNT_AFTER,
    EMOTION,
    EVALUATIVE,
    NON_PERSON_SUBJECTS,
    PLACE_WORDS,
    TIME_WORDS,
    UNIT_NOUNS,
)
from .lexicon_verbs import (
    ACQUIRE_VERBS,
    AVOID_VERBS,
    CHOICE_VERBS,
    COGNITIVE,
    CONSUME_VERBS,
    DISLIKE_VERBS,
    LIKE_VERBS,
    TRAVEL_VERBS,
)
from .patterns import BUDGET, NOT_NAMES, read_money
from .sentences import drop_quotes, expand_contractions, is_cjk, speech_act, split_clauses

__all__ = ["EnglishExtractor", "is_reply_instruction"]
_NEEDS = re.compile(
    r"^\s*(?:an?\s+|some\s+)?(?P<obj>[\w][\w' -]{1,60}?)\s*,?\s+please\s*$|"
    r"^\s*(?:please\s+)?(?:book|get|reserve|find)\s+me\s+(?:an?\s+|some\s+)?(?P<obj2>[^,;]{2,60})$",
    re.I,
)
# a standing instruction on how the assistant communicates ("Please reply to me in Spanish",
# "From now on respond only in French"): an imperative of a verb of communicating
_REPLY_STYLE = re.compile(
    r"^\s*(?:(?:please|kindly|from\s+now\s+on|going\s+forward|in\s+future|always|only)"
    r"\s*,?\s+)*(?P<verb>reply|respond|answer|write|talk|speak|explain|address)\s+"
    r"(?:(?:back\s+)?to\s+(?:me|us)\s+)?(?P<rest>(?:only\s+|always\s+)?(?:in|with|using|as)\s+"
    r"[^.?!;]{2,60}?)\s*(?:,?\s*please)?\s*$",
    re.I,
)

_STANDING = re.compile(
    r"\b(?:please|kindly|from\s+now\s+on|going\s+forward|in\s+future|always|only)\b", re.I
)
_WH = re.compile(r"\b(?:how|what|why|which|who|whether|if|when|where)\b", re.I)


def is_reply_instruction(text: str) -> bool:
    """Whether ``text`` tells the assistant how to reply ("From now on respond only in
    French"): an instruction of the speaker, about the speaker's own preference.

    >>> is_reply_instruction("Please reply to me in Spanish"), is_reply_instruction("I reply fast")
    (True, False)
    """
    m = _REPLY_STYLE.match(text.strip().rstrip(".!"))
    return (
        m is not None
        and _STANDING.search(text) is not None  # a standing instruction, not a one-off task
        and _WH.search(m.group("rest")) is None  # "explain in detail how X works" is a task
    )


_CALL_ME = re.compile(
    r"\b(?i:(?:please\s+)?call\s+me|I\s+go\s+by|my\s+(?:nick)?name\s+is|I\s+am\s+called|"
    r"everyone\s+calls\s+me|friends\s+call\s+me|you\s+can\s+call\s+me)\s+"
    r"(?P<name>[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?)",
)
_FAVOURITE_A = re.compile(
    r"^(?:and\s+)?(?P<obj>[A-Z\d][^,;]{0,50}?)\s+(?:is|are)\s+(?:definitely\s+|still\s+|easily\s+|"
    r"probably\s+|totally\s+)?(?:my|our)\s+(?:all-time\s+|absolute\s+|new\s+|current\s+)?"
    r"(?:favou?rite|weakness|thing|jam|go-to|guilty pleasure|comfort food|happy place)"
    r"(?:\s+(?P<cat>[a-z]+(?:\s[a-z]+)?))?\s*(?:,|$)",
    re.I,
)
_FAVOURITE_B = re.compile(
    r"\b(?:my|our)\s+(?:all-time\s+|absolute\s+|new\s+|current\s+)?favou?rite\s+"
    r"(?P<cat>[a-z][a-z ]{1,30}?)\s+(?:is|are|has been|was)\s+(?:still\s+|now\s+|definitely\s+)?"
    r"(?P<obj>[^,;]{2,60})(?:,|$)",
    re.I,
)
# "peanuts make me sick", "dairy doesn't agree with me": something the speaker avoids
_MAKES_ME_ILL = re.compile(
    r"^(?P<obj>[A-Za-z][\w' -]{1,40}?)\s+(?:makes?|gives?|made|give|gave)\s+me\s+(?:really\s+|so\s+|very\s+)?"
    r"(?:sick|ill|nauseous|queasy|itchy|bloated|a\s+headache|headaches|migraines?|a\s+migraine|"
    r"heartburn|a\s+rash|hives)\b|"
    r"^(?P<obj2>[A-Za-z][\w' -]{1,40}?)\s+(?:does|do)\s+not\s+agree\s+with\s+me\b",
    re.I,
)
# "Jazz is what I listen to most": a pseudo-cleft stating a preference
_WHAT_I = re.compile(
    r"^(?P<obj>[A-Za-z][\w' -]{1,40}?)\s+(?:is|are)\s+(?:what|all)\s+I\s+(?:usually\s+|mostly\s+|always\s+)?"
    r"(?:listen\s+to|eat|drink|watch|read|play|use|wear|cook|order|buy|choose|pick|live\s+for)\b",
    re.I,
)
_NEXT_THING = re.compile(
    r"\b(?:get|getting|buy|buying|choose|choosing|chose|pick|picking|picked|go with|going with|"
    r"leaning towards?|considering|ordered|order|bought|got|settled on|decided on|went with|"
    r"thinking of getting|looking at)\s+(?:an?\s+|the\s+)?(?P<val>[^,;]{2,40}?)\s+(?:now\s+)?"
    r"(?:as|for)\s+(?:my|our)\s+(?:next|new|future|first)\s+(?P<slot>[a-z][a-z ]{1,20}?)(?:\s+now)?$",
    re.I,
)
_COUNT = re.compile(
    r"(?<![\d.,])(?P<n>\d{1,6})\s+(?P<noun>[a-z][a-z-]{2,20})\b(?!\s+(?:old|of\s+(?:them|us)))",
    re.I,
)
_LIST_TOPIC = re.compile(r"\b(?P<noun>[a-z]{3,20})\s+(?:list|count|number|total|tally)\b", re.I)
_AT_NUMBER = re.compile(
    r"\b(?:at|to|up to|down to|now)\s+(?P<n>\d{1,6})(?![\d.,%])"
    r"(?!\s*(?:percent|dollars?|euros?|pounds?|bucks|kg|km|miles?|am|pm|o'clock)\b)",
    re.I,
)
_DOSE = re.compile(
    r"^on\s+(?P<dose>\d[\d.]*\s?(?:mg|mcg|g|ml|iu|units?)\b[^,;]*?)\s+of\s+(?P<drug>[a-z][\w-]+)",
    re.I,
)
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
_JOB_CONTEXT = re.compile(
    r"\b(?:jobs?|work|working|role|position|company|employer|hired|joined|career|promoted)\b",
    re.I,
)
_NAME_FIRST = re.compile(r"^([A-Z][\w'-]+),\s+((?:my|our)\s+(?:[\w-]+\s+)?([\w-]+)),\s+")
_ASIDE = re.compile(r",\s+(?:who|which)\s+[^,]{2,60},\s+")


def _name_first(m: re.Match[str]) -> str:
    if m.group(3).lower() not in RELATIONS:
        return m.group(0)
    return f"{m.group(2)[0].upper()}{m.group(2)[1:]} {m.group(1)} "


_APPOSITIVE = re.compile(r"\b((?:[Mm]y|[Oo]ur)\s+(?:[\w-]+\s+)?[\w-]+),\s+([A-Z][\w'-]+),")


class EnglishExtractor:
    """Candidates from the English sentences of one turn (see the module docstring)."""

    def __init__(self, base: datetime, who: str | None, people: Iterable[str] = ()) -> None:
        self.base = base
        self.who = who  # the speaker's name (None: "user")
        self.people = {p.lower(): p for p in people}
        self.last_person: str | None = None
        self._sentence = ""

    # -- entry point --------------------------------------------------------------------
    def sentence(self, sentence: str) -> list[FactCandidate]:
        act = speech_act(sentence)
        if act not in ("statement", "question"):
            return []
        text = expand_contractions(drop_quotes(sentence))
        text = _THOUSANDS.sub("", text)
        text = _APPOSITIVE.sub(r"\1 \2", text)
        text = _NAME_FIRST.sub(
            _name_first, text
        )  # "Sophie, my best friend, is" -> "My best friend Sophie is"
        text = _ASIDE.sub(" ", text)  # "My dad, who is retired, lives in Porto"
        clauses = split_clauses(text)
        self._sentence = text
        if act == "question":  # only the statements before the question clause
            clauses = [c for c in clauses[:-1] if speech_act(c) == "statement"]
        out: list[FactCandidate] = []
        for clause in clauses:
            if speech_act(clause) not in ("statement",):
                continue
            out.extend(self.clause(clause))
        return out

    # -- one clause ---------------------------------------------------------------------
    def clause(self, clause: str) -> list[FactCandidate]:
        toks = tokens(clause)
        if not toks:
            return []
        times = [t for t in find_times(clause, self.base) if t.has_date]
        subject = self._subject(toks)
        out: list[FactCandidate] = []
        out.extend(self._persons(toks))
        changed = self._changes(clause, times, subject)
        out.extend(changed)
        out.extend(self._requests(clause))
        out.extend(self._budget(clause))
        out.extend(self._favourites(clause))
        out.extend(self._next_thing(clause))
        pred = None
        if (
            subject is not None
            and not (changed and subject.kind == "possessed")
            and subject.kind
            in (
                "self",
                "person",
                "pet",
                "possessed",
            )
        ):
            pred = self._predicate(toks, subject.end)
            if pred is not None:
                out.extend(self._predicate_rules(clause, toks, subject, pred, times))
        out.extend(self._counts(clause, subject, self._sentence))
        if (
            times
            and not any(c.schema == "Event" for c in changed)
            and self._eventful(toks, subject, pred)
        ):
            event = self._event(clause, toks, subject, times)
            if event is not None:
                out.append(event)
        has_slot = any(c.schema == "Fact" and not c.generic for c in out)
        has_event = any(c.schema == "Event" for c in out)
        has_pref = any(c.schema == "Preference" for c in out)
        if has_slot or has_event or has_pref:
            out = [c for c in out if not c.generic]
        return out

    # -- subjects -----------------------------------------------------------------------
    def _subject(self, toks: list[Tok]) -> Subject | None:
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

    # -- predicates ---------------------------------------------------------------------
    def _predicate(self, toks: list[Tok], i: int) -> Pred | None:
        return VerbGroup(toks, i).read()

    # -- rules over (subject, predicate) -------------------------------------------------
    def _holder(self, subject: Subject) -> str:
        if subject.kind == "self":
            return self.who or "user"
        return subject.name or (self.who or "user")

    def _rest_text(self, clause: str, toks: list[Tok], k: int) -> str:
        """The object/complement: the clause from token k up to a clause-ending word."""
        n = len(toks)
        end = n
        for m in range(k, n):
            low = toks[m].low
            if low in OBJ_STOP and m > k:
                end = m
                break
            if low == "and" and m + 1 < n and toks[m + 1].low in NEW_CLAUSE_AFTER_AND:
                end = m
                break
        if k >= end:
            return ""
        return clean_value(clause[toks[k].start : toks[end - 1].end])

    def _predicate_rules(
        self,
        clause: str,
        toks: list[Tok],
        subject: Subject,
        p: Pred,
        times: list[TimeMention],
    ) -> list[FactCandidate]:
        """What a (subject, verb group) clause states, by the verb group's kind: a wish or a
        preference ("would rather", "I'd like"), a copula ("I am ..."), a change of state
        ("I went vegan"), a plan ("I will ..."), a preference verb, a slot verb ("I live in"),
        a habit, else a generic statement ("I play bass")."""
        holder = self._holder(subject)
        rest = without_times(self._rest_text(clause, toks, p.rest), times)
        if p.modal in ("hedge", "wish", "past_habit"):
            return []
        if subject.kind == "possessed":
            return self._possessed_rules(subject, p, rest, holder, times)
        if subject.kind == "pet":
            return []
        if p.modal in ("rather", "want"):
            return self._wanted(clause, toks, p, rest, holder)
        verb = p.lemma
        if p.copula:
            full = clean_value(clause[toks[p.rest].start :]) if p.rest < len(toks) else ""
            return self._copula_rules(subject, p, rest, holder, times, full)
        if verb in ("become", "go", "turn", "get", "stay", "remain") and rest:
            became = self._copula_rules(subject, p, rest, holder, times)
            if any(c.fields.get("attribute") in ("diet", "dietary restriction") for c in became):
                return became
        if (verb in COGNITIVE and not (verb == "ask" and p.particle == "for")) or not verb:
            return []
        if p.modal in ("future", "must"):
            return self._plan_rules(subject, p, rest, holder, times)
        if verb in LIKE_VERBS | DISLIKE_VERBS | AVOID_VERBS or p.neg:
            return self._verb_preference(p, rest, holder)
        slot = self._verb_slots(p, rest, holder)
        if slot:
            return slot
        rest_low = rest.lower()
        if (
            p.habitual
            and verb in CHOICE_VERBS
            and rest
            and not rest_low.startswith(("to ", "with "))
        ):
            obj = clean_obj(rest)
            if obj:
                return [preference_candidate(holder, strip_article(obj), "like", 0.7)]
        if not states_something(subject, p, rest, times):
            return []
        return self._generic_statement(clause, toks, subject, p, rest, holder)

    def _wanted(
        self, clause: str, toks: list[Tok], p: Pred, rest: str, holder: str
    ) -> list[FactCandidate]:
        """ "I'd rather X" (a like, or with "not" an avoid) and "I'd like X" (a need)."""
        if p.modal == "rather":
            obj = clean_obj(
                rest if p.copula or not p.verb else self._rest_text(clause, toks, p.verb_index)
            )
            if obj and len(obj.split()) >= 2:
                return [preference_candidate(holder, obj, "avoid" if p.neg else "like", 0.7)]
            return []
        obj = clean_obj(self._rest_text(clause, toks, p.verb_index + 1))
        if obj and not obj.lower().startswith("to "):
            return [preference_candidate(holder, strip_article(obj), "need", 0.65)]
        return []

    @staticmethod
    def _verb_preference(p: Pred, rest: str, holder: str) -> list[FactCandidate]:
        """A preference verb ("I love X", "I don't like X", "I avoid X"), "I can't stand X",
        or a negated present consumption ("I don't eat meat": an avoid)."""
        verb = p.lemma
        if verb in LIKE_VERBS | DISLIKE_VERBS | AVOID_VERBS:
            if p.tense == "past":
                return []  # "I loved it as a kid": not a current preference
            obj = clean_obj(rest)
            if obj is None:
                return []
            if verb in LIKE_VERBS:
                polarity = "dislike" if p.neg else "like"
            elif verb in DISLIKE_VERBS:
                polarity = "like" if p.neg else "dislike"
            else:
                polarity = "avoid"
            if p.verb in ("stand",):
                polarity = "dislike"
            return [preference_candidate(holder, strip_article(obj), polarity, 0.75)]
        if p.verb == "stand":
            obj = clean_obj(rest)
            return [preference_candidate(holder, obj, "dislike", 0.75)] if obj else []
        consume = verb in CONSUME_VERBS or (verb == "have" and p.modal == "ability")
        if consume and rest and p.tense == "present":
            obj = clean_obj(re.sub(r"^(?:any|anything with)\s+", "", rest, flags=re.I))
            if obj:
                return [preference_candidate(holder, strip_article(obj), "avoid", 0.8)]
        return []

    def _generic_statement(
        self,
        clause: str,
        toks: list[Tok],
        subject: Subject,
        p: Pred,
        rest: str,
        holder: str,
    ) -> list[FactCandidate]:
        """A statement that can hold many values ("plays bass", "speaks Arabic"), keyed with its
        value; "I bought a new bike" and "I do my workouts" name a slot (the head noun)."""
        verb = p.lemma
        rest_low = rest.lower()
        phrase = self._verb_phrase(toks, p, clause, subject.kind == "self")
        head = head_noun([t.low for t in tokens(rest)]) or ""
        key_head = singular_noun(head) if head else ""
        value = possessive_value(rest)
        fields = {
            "attribute": verb + (f" {p.particle}" if p.particle else ""),
            "value": value,
            "predicate": phrase,
            "subject": holder,
        }
        key_words = [verb, p.particle or "", key_head]
        if verb in ACQUIRE_VERBS and head in ABSTRACT_NOUNS:
            return []
        if (
            verb in ACQUIRE_VERBS
            and head
            and head.islower()
            and head not in PRONOUN_OBJECTS
            and re.match(r"^(?:a|an|the|my|our|some|two|three|new)\s", rest_low)
        ):
            fields["attribute"] = singular_noun(head)
            key = None
        elif (
            verb == "do"
            and head
            and head.islower()
            and re.match(r"^(?:my|our|the|all\s+my)\s", rest_low)
        ):
            fields["attribute"] = singular_noun(head)  # "I do my workouts in the morning"
            key = None
        else:
            key = "Fact|" + "|".join([holder.lower(), *key_words, value.lower()])
        return [FactCandidate("Fact", fields, 0.6, 0.55, key=key, generic=key is not None)]

    def _verb_phrase(self, toks: list[Tok], p: Pred, clause: str, first_person: bool = True) -> str:
        """The verb group as said of the holder: "I am learning" -> "is learning"."""
        start = toks[p.start].start if p.start < len(toks) else 0
        end_tok = p.rest - 1 if p.rest - 1 < len(toks) else len(toks) - 1
        phrase = clause[start : toks[end_tok].end] if end_tok >= p.start else ""
        words = phrase.split()
        if not words:
            return p.verb
        if not first_person:
            return phrase
        first = words[0]
        if first.lower() in ADVERBS and len(words) > 1:
            for idx, w in enumerate(words):
                if w.lower() not in ADVERBS:
                    words[idx] = (
                        third_singular(w)
                        if is_present_verb(w) or w.lower() in ("am", "have", "do")
                        else w
                    )
                    break
        else:
            words[0] = (
                third_singular(first)
                if is_present_verb(first) or first.lower() in ("am", "have", "do")
                else first
            )
        return " ".join(words)

    @staticmethod
    def _verb_slots(p: Pred, rest: str, holder: str) -> list[FactCandidate]:
        """A slot a verb fills, read in this order: where the holder lives, where and as what
        they work, how they commute, what they drive, what they earn, a new job, what they
        studied, where they grew up, an age they turned; ``[]``: none."""
        for read in (residence_slot, work_slot, routine_slot, history_slot):
            found = read(p, rest, holder)
            if found is not None:
                return found
        return []

    def _copula_rules(
        self,
        subject: Subject,
        p: Pred,
        rest: str,
        holder: str,
        times: list[TimeMention],
        full_rest: str = "",
    ) -> list[FactCandidate]:
        """What "<subject> is <rest>" states: an allergy, a diet or a preference phrase
        (:func:`copula_preference`); when affirmative and present, a slot
        (:meth:`_copula_slot`: age, workplace, hometown, home city, dose, salary, occupation);
        else a lasting state ("I'm a morning person", :func:`copula_state`)."""
        if not rest or (p.modal in ("future", "must") and not times):
            return []
        if p.tense == "passive":
            return []
        said = copula_preference(p, rest, holder)
        if said is not None:
            return said
        if p.neg:
            return []
        if p.tense == "past":
            return []  # "I was 17": not what holds now
        slot = self._copula_slot(subject, p, rest, holder, full_rest)
        if slot is not None:
            return slot
        return copula_state(subject, p, rest, holder, times)

    def _copula_slot(
        self, subject: Subject, p: Pred, rest: str, holder: str, full_rest: str
    ) -> list[FactCandidate] | None:
        """A slot a copula fills ("I'm 34", "I'm now at KPMG", "I'm from Leeds", "I'm based in
        Oslo", "I'm on 20mg of X", "I'm on 60k", "I'm the one who plays bass", "I'm a nurse");
        ``None`` when it fills none."""
        low = rest.lower()
        m = re.match(
            r"^(?P<n>\d{1,3})(?:\s+years?\s+old|\s+y/?o)?(?:\s+(?:now|this year|already))?$", low
        )
        if m and 0 < int(m.group("n")) < 125 and subject.kind in ("self", "person"):
            return [
                fact_candidate(holder, "age", m.group("n"), 0.8, 0.6, amount=float(m.group("n")))
            ]
        m = re.match(r"^(?:working\s+)?(?:at|with|for)\s+(?P<v>[A-Z][\w&.' -]{1,40})$", rest)
        if m and (p.now or _JOB_CONTEXT.search(self._sentence)):
            return [
                fact_candidate(holder, "workplace", m.group("v"), 0.75, 0.65)
            ]  # "I'm now at KPMG"
        m = re.match(r"^from\s+(?P<v>[A-Z][\w .'-]{1,40})$", rest)
        if m:
            return [fact_candidate(holder, "hometown", m.group("v"), 0.75, 0.6)]
        m = re.match(
            r"^(?:living|based|located|settled)\s+(?:in|near|outside)\s+(?P<v>.+)$", rest, re.I
        )
        if m:
            return [fact_candidate(holder, "home city", m.group("v"), 0.8, 0.7)]
        m = _DOSE.match(rest)
        if m:
            return [
                fact_candidate(
                    holder, f"{m.group('drug').lower()} dose", m.group("dose"), 0.8, 0.7, money=True
                )
            ]
        if re.match(r"^on\s+", low) and SALARY.search(rest):
            return [
                fact_candidate(holder, "salary", re.sub(r"^on\s+", "", rest), 0.8, 0.7, money=True)
            ]
        m = re.match(r"^the\s+one\s+(?:who|that)\s+(?P<v>\w+)\s+(?P<o>.+)$", full_rest, re.I)
        if m:
            value = possessive_value(m.group("o"))
            verb = lemma(m.group("v"))
            fields = {"attribute": verb, "value": value, "predicate": m.group("v")}
            key = f"Fact|{holder.lower()}|{verb}|{value.lower()}"
            return [FactCandidate("Fact", {**fields, "subject": holder}, 0.65, 0.55, key=key)]
        m = re.match(r"^(?:a|an)\s+(?P<v>.+)$", rest, re.I)
        job_text = (
            m.group("v") if m else (rest if subject.kind in ("self", "person") and p.now else None)
        )
        if job_text and is_job(job_text):
            job_text = re.split(r"\s+and\s+", job_text)[0]
            return [fact_candidate(holder, "occupation", possessive_value(job_text), 0.8, 0.7)]
        return None

    def _possessed_rules(
        self, subject: Subject, p: Pred, rest: str, holder: str, times: list[TimeMention]
    ) -> list[FactCandidate]:
        noun = subject.noun or ""
        attr = normalize_attribute(noun)
        low = attr.lower()
        if (
            low.startswith(("favourite", "favorite"))
            or low in ("budget", "name", "nickname")
            or "budget" in low
        ):
            return []
        if p.modal in ("hedge", "want", "rather"):
            return []
        if not rest:
            return []
        if p.copula:
            if p.neg or p.tense == "passive":
                return []
            if times and re.fullmatch(
                r"(?:on|at|in|for|this|next|coming)?\s*" + re.escape(times[0].phrase) + r".*",
                rest,
                re.I | re.S,
            ):
                return []  # "my review is on Thursday": an event
            first = rest.lower().split()[0]
            if first in EVALUATIVE or (first in EMOTION and first not in PLACE_WORDS):
                return []  # "my art is important to me": an opinion
            value = strip_article(possessive_value(rest))
            amount, unit = (None, None)
            if re.search(r"\d", value):
                amount, unit = read_money(value)
            fields: dict[str, Any] = {"attribute": attr, "value": value, "subject": holder}
            if amount is not None:
                fields.update(amount=amount, unit=unit)
            if low == "car" or low in ("phone", "laptop"):
                pass
            return [FactCandidate("Fact", fields, 0.75, 0.65)]
        if times:
            return []  # "our lease ends on 31 October": the event says it
        if p.modal is not None or p.neg or p.tense != "present":
            return []
        attr = " ".join(w for w in noun.lower().split() if w not in DETERMINERS) or attr
        value = possessive_value(f"{p.verb}{' ' + p.particle if p.particle else ''} {rest}".strip())
        fields = {"attribute": attr, "value": value, "subject": holder}
        return [FactCandidate("Fact", fields, 0.65, 0.6)]

    def _plan_rules(
        self, subject: Subject, p: Pred, rest: str, holder: str, times: list[TimeMention]
    ) -> list[FactCandidate]:
        if times:
            return []  # the event carries it
        if p.lemma in TRAVEL_VERBS and re.match(r"^(?:to|into)\s+[A-Z]", rest):
            return [self._plan_event(holder, p, rest)]
        return []

    def _plan_event(self, holder: str, p: Pred, rest: str) -> FactCandidate:
        who = holder if holder != "user" else None
        verb = p.verb if p.tense == "progressive" else p.lemma
        desc = f"{who or 'User'} {'is ' + verb if p.tense == 'progressive' else 'plans to ' + verb} {possessive_value(rest)}"
        return FactCandidate(
            "Event",
            {"description": desc, "actor": who, "participants": []},
            0.6,
            0.6,
        )

    # -- clause-level patterns ----------------------------------------------------------
    def _persons(self, toks: list[Tok]) -> list[FactCandidate]:
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

    def _changes(
        self, clause: str, times: list[TimeMention], subject: Subject | None
    ) -> list[FactCandidate]:
        """A stated change ("my rent went up to 1,400", "the meeting is now on the 5th"): the
        new value of the thing (a fact), or, when a date is the new value, the moved event;
        both retire what the thing's words name."""
        said = stated_change(clause)
        if said is None:
            return []
        thing, new, own = said
        if own in ("his", "her"):
            holder = self.last_person or (self.who or "user")
        else:
            holder = self.who or "user"
        new = clean_value(new)
        thing_clean = re.sub(r"\s+(?:up|back)$", "", thing.strip())
        attr = normalize_attribute(thing_clean)
        retire = topic_words(thing_clean)
        if attr in ("plan", "plans", "trip", "holiday") and not retire:
            retire = [attr]
        new_at = clause.find(new)
        dated = [t for t in times if new_at >= 0 and abs(t.start - new_at) <= 4]
        if dated:
            when = dated[0]
            owner = holder if holder != "user" else None
            desc = f"{owner + chr(39) + 's' if owner else 'User' + chr(39) + 's'} {thing_clean}"
            if own == "the":
                desc = thing_clean[:1].upper() + thing_clean[1:]
            fields: dict[str, Any] = {
                "description": desc,
                "actor": owner,
                "participants": [],
                "when": when.iso(),
            }
            return [FactCandidate("Event", fields, 0.75, 0.7, event_time=when.value, retire=retire)]
        new = clean_value(without_times(re.split(r",\s*", new)[0], times))
        if not new:
            return []
        amount, unit = read_money(new) if re.search(r"\d", new) else (None, None)
        values: dict[str, Any] = {
            "attribute": attr,
            "value": possessive_value(new),
            "subject": holder,
        }
        if amount is not None:
            values.update(amount=amount, unit=unit)
        return [FactCandidate("Fact", values, 0.8, 0.7, retire=retire if own == "the" else [])]

    def _requests(self, clause: str) -> list[FactCandidate]:
        out = []
        holder = self.who or "user"
        m = _REPLY_STYLE.match(clause)
        if m and is_reply_instruction(clause):
            fields: dict[str, Any] = {
                "subject": "replies " + " ".join(m.group("rest").split()),
                "polarity": "like",
                "category": "how to reply",
                "reasons": [],
            }
            if holder != "user":
                fields["holder"] = holder
            out.append(FactCandidate("Preference", fields, 0.8, 0.7))
        m = _CALL_ME.search(clause)
        if m:
            out.append(fact_candidate(holder, "preferred name", m.group("name"), 0.85, 0.7))
        m = _NEEDS.match(clause)
        if m and not re.match(r"^\s*(?:I|we|you|he|she|they|it|that|this)\b", clause, re.I):
            obj = clean_obj(m.group("obj") or m.group("obj2") or "")
            if (
                obj
                and obj.lower() not in PRONOUN_OBJECTS
                and not re.match(
                    r"^(?:yes|no|ok|okay|sure|thanks|thank you|help|hi|hello|one more|more|another|just)\b",
                    obj,
                    re.I,
                )
            ):
                fields = {"subject": obj, "polarity": "need", "reasons": []}
                if holder != "user":
                    fields["holder"] = holder
                out.append(FactCandidate("Preference", fields, 0.7, 0.7))
        return out

    def _budget(self, clause: str) -> list[FactCandidate]:
        out = []
        holder = self.who or "user"
        for pattern in BUDGET:
            for m in pattern.finditer(clause):
                rest = re.sub(
                    r"\s*\b(?:now|then|instead|too|max|maximum|tops|on the trip|in total)\s*$",
                    "",
                    m.group("rest"),
                )
                value = (m.group("money") + rest).strip()
                amount, unit = read_money(value)
                if amount is None:
                    continue
                fields: dict[str, Any] = {
                    "attribute": "budget",
                    "value": value,
                    "amount": amount,
                    "unit": unit,
                }
                if holder != "user":
                    fields["subject"] = holder
                out.append(FactCandidate("Fact", fields, 0.85, 0.8))
                return out
        return out

    def _favourites(self, clause: str) -> list[FactCandidate]:
        holder = self.who or "user"
        text = clause.strip()
        for pattern, polarity in ((_MAKES_ME_ILL, "avoid"), (_WHAT_I, "like")):
            m = pattern.search(text)
            if m:
                obj = clean_obj(m.group("obj") or (m.groupdict().get("obj2") or ""))
                if obj:
                    return [preference_candidate(holder, obj, polarity, 0.75)]
        for pattern in (_FAVOURITE_B, _FAVOURITE_A):
            m = pattern.search(text)
            if not m:
                continue
            obj = clean_obj(m.group("obj"))
            if not obj:
                continue
            obj = re.sub(r"^(?:and|but|so)\s+", "", obj, flags=re.I)
            fields: dict[str, Any] = {
                "subject": obj,
                "polarity": "like",
                "strength": 0.9,
                "reasons": [],
            }
            cat = m.group("cat")
            if cat:
                fields["category"] = cat.strip()
            if holder != "user":
                fields["holder"] = holder
            key = None
            if cat and pattern is _FAVOURITE_B:
                key = f"Preference|{holder.lower()}|favourite {cat.strip().lower()}"
            return [FactCandidate("Preference", fields, 0.85, 0.75, key=key)]
        return []

    def _next_thing(self, clause: str) -> list[FactCandidate]:
        m = _NEXT_THING.search(clause)
        if not m:
            return []
        holder = self.who or "user"
        slot = normalize_attribute(m.group("slot"))
        value = strip_article(clean_value(m.group("val")))
        return [fact_candidate(holder, slot, value, 0.75, 0.65)]

    def _counts(
        self, clause: str, subject: Subject | None, sentence: str = ""
    ) -> list[FactCandidate]:
        if subject is not None and subject.kind in ("person", "pet"):
            return []
        holder = self.who or "user"
        out = []
        for m in _COUNT.finditer(clause):
            noun = m.group("noun").lower()
            before = re.findall(r"[\w']+", clause[: m.start()].lower())
            if before and before[-1] not in COUNT_AFTER:
                continue  # "type 2 diabetes", "room 12 keys"
            if noun in UNIT_NOUNS or singular_noun(noun) in UNIT_NOUNS or not noun.endswith("s"):
                continue
            if noun in PREPOSITIONS or noun in DETERMINERS or noun in ADVERBS:
                continue
            n = m.group("n")
            key_noun = singular_noun(noun)
            out.append(
                FactCandidate(
                    "Fact",
                    {
                        "attribute": f"number of {noun}",
                        "value": f"{n} {noun}",
                        "amount": float(n),
                        "subject": holder,
                    },
                    0.7,
                    0.6,
                    key=f"Fact|{holder.lower()}|number of {key_noun}",
                )
            )
        if not out:
            topic = _LIST_TOPIC.search(sentence or clause)
            m2 = _AT_NUMBER.search(clause)
            if topic and m2:
                noun = topic.group("noun").lower()
                plural = noun if noun.endswith("s") else noun + "s"
                n = m2.group("n")
                out.append(
                    FactCandidate(
                        "Fact",
                        {
                            "attribute": f"number of {plural}",
                            "value": f"{n} {plural}",
                            "amount": float(n),
                            "subject": holder,
                        },
                        0.65,
                        0.6,
                        key=f"Fact|{holder.lower()}|number of {singular_noun(noun)}",
                    )
                )
        return out

    # -- events -------------------------------------------------------------------------
    def _eventful(self, toks: list[Tok], subject: Subject | None, pred: Pred | None) -> bool:
        if pred is not None and (
            pred.modal in ("hedge", "want", "rather", "past_habit")
            or (pred.lemma in COGNITIVE and pred.lemma not in ("hear", "remember", "forget"))
        ):
            return False
        if pred is not None and pred.habitual:
            return False
        lead = 0
        while lead < len(toks) - 1 and (
            (
                toks[lead].low in OPENERS
                and toks[lead].low not in ("this", "that", "these", "those", "since", "if", "as")
            )
            or toks[lead].low in (",", "!")
        ):
            lead += 1
        first = toks[lead].low
        if first in NO_EVENT_OPENERS:
            return False
        if subject is not None:
            return not subject.subordinate
        if first in NON_PERSON_SUBJECTS or first in ("i",):
            return False
        if first in ("please", "remind", "let", "tell", "check", "keep", "don't", "do"):
            return False
        # a noun phrase or a scene: "Parent-teacher conference this Thursday", "The plumber is coming"
        return any(len(t.low) > 2 and t.low.isalpha() and t.low not in NOT_LOWER for t in toks[:4])

    def _event(
        self, clause: str, toks: list[Tok], subject: Subject | None, times: list[TimeMention]
    ) -> FactCandidate | None:
        """A dated event: the clause without its date words, told in the third person, with the
        persons it names; ``None`` when nothing but the date is left ("Last week.")."""
        when = times[0]
        text = tidy_event_text(without_date_words(clause, times))
        desc = (
            third_person(text, self.who or "User")
            if re.search(r"\b(?:I|[Mm]y|me)\b", text)
            else text
        )
        desc = desc[:1].upper() + desc[1:]
        words = [w for w in re.findall(r"[A-Za-z]{3,}", desc) if w.lower() not in TIME_WORDS]
        if len(words) < 2 and not is_cjk(desc):
            return None  # "Last week." says when, not what
        participants = self._participants(clause, toks, subject)
        actor = self.who
        entities = [Entity(type="person", name=p) for p in participants]
        return FactCandidate(
            "Event",
            {"description": desc, "actor": actor, "participants": participants, "when": when.iso()},
            0.7,
            0.7,
            entities,
            event_time=when.value,
        )

    def _participants(self, clause: str, toks: list[Tok], subject: Subject | None) -> list[str]:
        """The persons of an event: a named subject, persons met before, named persons."""
        participants = []
        if (
            subject is not None
            and subject.kind == "person"
            and subject.name
            and not subject.name.endswith(f"'s {subject.relation}")
        ):
            participants.append(subject.name)
        for tok in toks:
            if tok.text in self.people.values() and tok.text not in participants:
                participants.append(tok.text)
        for e in find_entities(clause):
            if e.type == "person" and e.name not in participants and e.name != self.who:
                participants.append(e.name)
        return participants
