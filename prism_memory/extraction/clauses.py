"""English clause analysis: who a statement is about, what it says, and the records it yields.

Design:
- ``EnglishExtractor`` reads the English sentences of one turn clause by clause
  (``sentences.split_clauses``) as *subject + predicate*, and composes the parts that live in
  their own modules: the subject (``english_subjects.SubjectReader``: the speaker, a named
  person, a "he"/"she" that follows one, a pet, something the speaker owns; words before the
  subject are an adverbial), the predicate (``english_predicate``: auxiliaries for negation,
  modality, tense, aspect and habit, and a main verb), the words and values
  (``english_words``).
- This module holds the rules over (subject, predicate): preferences (like / dislike / avoid /
  need), *slot* facts that hold one value at a time ("home city", "occupation", "diet",
  "<thing> dose", "<my thing>": keyed by subject + normalised attribute, so a later value
  supersedes; the standalone slot rules are ``english_slots``), *statements* that can hold many
  values ("plays bass", "speaks Arabic"; keyed with their value) and dated events.
- Clause-level rules run whatever the subject (``english_clause_rules``): changes ("HR moved
  my review to Monday") give the new value and the words of what it replaces
  (``FactCandidate.retire``); requests ("call me Sam", "oat milk, please"); budgets;
  favourites; counts.
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

from .candidate import FactCandidate
from .dates import TimeMention, find_times
from .english_clause_rules import (
    budgets,
    counts,
    favourites,
    next_thing,
    requests,
    stated_changes,
)
from .english_events import dated_event, eventful
from .english_predicate import Pred, Subject, VerbGroup
from .english_slots import (
    SALARY,
    copula_preference,
    copula_state,
    fact_candidate,
    history_slot,
    preference_candidate,
    residence_slot,
    routine_slot,
    states_something,
    work_slot,
)
from .english_subjects import SubjectReader
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
    strip_article,
    third_singular,
    tokens,
    without_times,
)
from .lexicon_grammar import (
    ADVERBS,
    DETERMINERS,
    NEW_CLAUSE_AFTER_AND,
    OBJ_STOP,
    PRONOUN_OBJECTS,
)
from .lexicon_life import (
    RELATIONS,
)
from .lexicon_nouns import (
    ABSTRACT_NOUNS,
    EMOTION,
    EVALUATIVE,
    PLACE_WORDS,
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
from .patterns import read_money
from .sentences import drop_quotes, expand_contractions, speech_act, split_clauses

__all__ = ["EnglishExtractor"]
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
        self.subjects = SubjectReader(who, people)
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
        subject = self.subjects.subject(toks)
        out: list[FactCandidate] = []
        out.extend(self.subjects.persons(toks))
        changed = stated_changes(clause, times, self.who or "user", self.subjects.last_person)
        out.extend(changed)
        out.extend(requests(clause, self.who or "user"))
        out.extend(budgets(clause, self.who or "user"))
        out.extend(favourites(clause, self.who or "user"))
        out.extend(next_thing(clause, self.who or "user"))
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
        out.extend(counts(clause, subject, self._sentence, self.who or "user"))
        if (
            times
            and not any(c.schema == "Event" for c in changed)
            and eventful(toks, subject, pred)
        ):
            event = dated_event(
                clause, toks, subject, times, self.who, self.subjects.people.values()
            )
            if event is not None:
                out.append(event)
        has_slot = any(c.schema == "Fact" and not c.generic for c in out)
        has_event = any(c.schema == "Event" for c in out)
        has_pref = any(c.schema == "Preference" for c in out)
        if has_slot or has_event or has_pref:
            out = [c for c in out if not c.generic]
        return out

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
