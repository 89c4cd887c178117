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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..records import Entity
from .candidate import FactCandidate
from .dates import TimeMention, find_times
from .entities import find_entities
from .lexicon_grammar import (
    ADVERBS,
    BE,
    DETERMINERS,
    DO,
    FILLER_WORDS,
    FUNCTION_WORDS,
    HABITUAL,
    HAVE,
    INTENSIFIERS,
    KIN_MODIFIERS,
    KIN_RELATION_MODIFIERS,
    MODALS,
    MY_NOUN_STOP,
    NEW_CLAUSE_AFTER_AND,
    NO_EVENT_OPENERS,
    NOT_LOWER,
    OBJ_STOP,
    OPENERS,
    PARTICLES,
    PREPOSITIONS,
    PRONOUN_OBJECTS,
    QUALIFIERS,
    STATE_OPENERS,
    SUBORDINATORS,
    TITLES,
)
from .lexicon_life import (
    ATTRIBUTE_SYNONYMS,
    DIET_RESTRICTIONS,
    DIETS,
    JOBS,
    NOT_JOBS,
    PETS,
    RELATIONS,
)
from .lexicon_nouns import (
    ABSTRACT_NOUNS,
    COUNT_AFTER,
    EMOTION,
    EVALUATIVE,
    ING_NOUNS,
    NON_PERSON_SUBJECTS,
    PLACE_WORDS,
    TIME_WORDS,
    UNIT_NOUNS,
)
from .lexicon_verbs import (
    ACQUIRE_VERBS,
    AVOID_VERBS,
    CHANGE_VERBS,
    CHOICE_VERBS,
    COGNITIVE,
    COMMUTE_VERBS,
    CONSUME_VERBS,
    DISLIKE_PHRASES,
    DISLIKE_VERBS,
    IRREGULAR,
    LIKE_PHRASES,
    LIKE_VERBS,
    PARTICIPLES,
    PAST_FORMS,
    STATE_CHANGE,
    STATE_PARTICIPLES,
    TO_VERBS,
    TRAVEL_VERBS,
    VAGUE_VERBS,
    VERBLIKE,
)
from .patterns import BUDGET, MONEY, NOT_NAMES, read_money
from .sentences import drop_quotes, expand_contractions, is_cjk, speech_act, split_clauses

__all__ = ["EnglishExtractor", "is_reply_instruction", "lemma", "third_person", "third_singular"]

_TOKEN = re.compile(r"[$€£¥]?[\w\u00C0-\u024F][\w\u00C0-\u024F'\-.&%]*|[^\w\s]")
_OBJ_TAIL = re.compile(
    r"(?:\s+(?:now|too|anymore|any more|as well|these days|at the moment|currently|instead|"
    r"again|though|then|either|lately|nowadays|for now|right now|honestly|actually|"
    r"specifically|really|very much|so much|a lot|at all|the most|either way|just so you know|"
    r"by the way|btw|lol|haha|please|thanks|thank you))+$",
    re.I,
)
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
_CHANGE = re.compile(
    rf"\b(?P<verb>{CHANGE_VERBS})(?:\s+(?:up|back|forward|out))?\s+(?P<own>my|our|the|his|her|their)\s+"
    r"(?P<thing>[\w' -]{2,40}?)\s+(?:(?:from\s+(?P<old>[^,;]{1,40}?)\s+)?(?:to|until|till|into|up to|down to)\s+)"
    r"(?P<new>[^;]{1,60}?)\s*$",
    re.I,
)
_NOW_VALUE = re.compile(
    r"(?:^|,\s*|\bso\s+)(?P<own>my|our|the|his|her)\s+(?P<thing>[\w' -]{2,40}?)\s+(?:is|are|will be)\s+"
    r"now\s+(?P<new>.{1,60}?)\s*$|"
    r"(?:^|,\s*|\bso\s+)(?P<own2>my|our|the|his|her)\s+(?P<thing2>[\w' -]{2,40}?)\s+(?:has|have)\s+"
    r"(?:been\s+)?(?:moved|changed|switched|rescheduled|pushed|postponed)\s+(?:back\s+|forward\s+)?"
    r"(?:to|until)\s+(?P<new2>.{1,60}?)\s*$",
    re.I,
)
_WENT_TO = re.compile(
    r"(?:^|,\s*|\bso\s+)(?:(?P<own>my|our|the|his|her)\s+)?(?P<thing>[\w' -]{2,40}?)\s+"
    r"(?:went|has gone|is going|goes|rose|has risen|fell|has fallen|jumped|dropped|increased|"
    r"decreased|climbed|grew|has grown|shrank|has shrunk|expanded)\s+(?:up\s+|down\s+)?"
    r"(?:to|by)\s+(?P<new>.{1,60}?)\s*$",
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
_SALARY = re.compile(
    rf"{MONEY}\s*(?:a|per|/|each|every)\s*(?P<per>year|yr|annum|month|hour|hr|week)\b", re.I
)
# adjectives that describe a lasting state of a person, not a mood
_LASTING_STATE = re.compile(
    r"\b(?:pregnant|married|engaged|retired|divorced|single|widowed|left-handed|right-handed|"
    r"colou?r-?blind|deaf|blind|diabetic|asthmatic|introverted|extroverted|shy|tall|short)\b"
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


@dataclass
class _Tok:
    text: str
    low: str
    start: int
    end: int


def _tokens(text: str) -> list[_Tok]:
    out = []
    for m in _TOKEN.finditer(text):
        word = m.group(0)
        end = m.end()
        if word.endswith(".") and len(word) > 1:
            word, end = word[:-1], end - 1  # "Mr." is the title "mr"
        out.append(_Tok(word, word.lower(), m.start(), end))
    return out


def lemma(word: str) -> str:
    """A crude verb lemma (irregular table, then suffix rules); consistent, not perfect.

    >>> [lemma(w) for w in ("plays", "went", "studies", "moved", "watches", "stopped")]
    ['play', 'go', 'study', 'move', 'watch', 'stop']
    """
    w = word.lower()
    if w in IRREGULAR:
        return IRREGULAR[w]
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith(("sses", "shes", "ches", "xes", "zes", "oes")) and len(w) > 4:
        return w[:-2]
    if w.endswith("s") and not w.endswith(("ss", "us", "is")) and len(w) > 3:
        return w[:-1]
    if w.endswith("ied") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith("ed") and len(w) > 4:
        stem = w[:-2]
        if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
            return stem[:-1]
        if re.search(
            r"(?:[^aeiou][aeiouy][^aeiouwxy]|[cgsvz]|[^aeiou][lr]|ur|at|it)$", stem
        ) and not re.search(
            r"(?:ck|ng|nt|ld|rd|st|sh|ch|rk|lk|sk|pt|ft|ct|mp|nd|wn|rm|rn|lm|ss|ll|en|er|on|el)$",
            stem,
        ):
            return stem + "e"
        return stem
    if w.endswith("ing") and len(w) > 5:
        stem = w[:-3]
        if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
            return stem[:-1]
        if re.search(
            r"(?:[^aeiou][aeiouy][cgkvzs]|[^aeiou][aeiou]t|[cgsvz]|ur)$", stem
        ) and not re.search(r"(?:ck|ng|nt|st|sh|ch|rk|ss|ll|en|er|on)$", stem):
            return stem + "e"
        return stem
    return w


def third_singular(verb: str) -> str:
    """The third person singular present of a verb given in the first person.

    >>> [third_singular(v) for v in ("am", "have", "do", "go", "play", "teach", "study", "can")]
    ['is', 'has', 'does', 'goes', 'plays', 'teaches', 'studies', 'can']
    """
    low = verb.lower()
    special = {"am": "is", "have": "has", "do": "does", "go": "goes", "are": "is", "be": "is"}
    if low in special:
        return special[low]
    if low in MODALS or low in PAST_FORMS or low.endswith("ed") or low in ("was", "were"):
        return "was" if low == "were" else verb
    if re.search(r"(?:s|sh|ch|x|z|o)$", low):
        return verb + "es"
    if re.search(r"[^aeiou]y$", low):
        return verb[:-1] + "ies"
    return verb + "s"


def third_person(text: str, who: str | None = None) -> str:
    """A first-person clause told about its speaker (``who``, default "they").

    >>> third_person("I have a call with my landlord", "Hannah")
    'Hannah has a call with their landlord'
    >>> third_person("I am flying to Osaka")
    'they are flying to Osaka'
    """
    name = who or "they"
    text = expand_contractions(text)
    out = re.sub(
        r"\bI\b(?:\s+(?:(?:(?!(?:apply|reply|supply|fly|rely|comply|imply|multiply)\b)[a-z]+ly|also|just|only|always|never|still|now|often|"
        r"currently)\s+)*(\w+))?",
        lambda m: _subject_verb(m, name, who),
        text,
    )
    if who:
        out = re.sub(r"^[Mm]y\b", f"{who}'s", out)
    out = re.sub(r"\bmy\b", "their", out)
    out = re.sub(r"\bMy\b", "Their", out)
    out = re.sub(r"\bme\b", "them", out)
    out = re.sub(r"\bmyself\b", "themselves", out)
    out = re.sub(r"\bmine\b", "theirs", out)
    return out


_PARTNER_PRONOUNS = frozenset({"he", "she", "you", "they", "him", "her", "we", "it"})


def _compound_subject(before: str) -> bool:
    """Whether "I" is the second half of a compound subject ("Tom and I", "my wife and I"),
    not the subject of a new clause joined by "and" ("I love tea and I hate coffee",
    "..., and I hate red-eye flights").

    >>> _compound_subject("My partner Tom and "), _compound_subject("I love tea and ")
    (True, False)
    >>> _compound_subject("I like aisle seats, and ")
    False
    """
    m = re.search(r"(\S+)\s+(?:and|or)\s+$", before)
    if m is None:
        return False
    prev = m.group(1)
    if prev.endswith((",", ";", ":")):
        return False
    word = prev.strip(".!?\"'").lower()
    return prev[:1].isupper() or word in _PARTNER_PRONOUNS or word in RELATIONS


def _subject_verb(m: re.Match[str], name: str, who: str | None) -> str:
    whole = m.group(0)
    verb = m.group(1)
    if verb is None:
        return name
    middle = whole[1 : whole.rfind(verb)]
    if m.start() > 0 and name.startswith("The "):  # "..., the user can pay", not "The user"
        name = "the " + name[4:]
    compound = _compound_subject(m.string[: m.start()])
    if compound:  # "Tom and I want": the verb agrees with both
        return f"{name}{middle}{ {'am': 'are', 'was': 'were'}.get(verb.lower(), verb) }"
    if who is None:
        form = {"am": "are", "was": "were"}.get(verb.lower(), verb)
    else:
        form = third_singular(verb) if _is_present_verb(verb) else verb
    return f"{name}{middle}{form}"


def _is_present_verb(word: str) -> bool:
    low = word.lower()
    if low in MODALS or low in PAST_FORMS or low in ("was", "were"):
        return False
    if low.endswith("ed") or low.endswith("ing"):
        return False
    if low == "like":  # after a subject it is the verb ("I like" -> "Maya likes")
        return True
    return not (low in DETERMINERS or low in PREPOSITIONS or low in ("not", "never"))


def _possessive_value(text: str) -> str:
    """A value told from the holder's side: "my" -> "their", "me" -> "them"."""
    text = re.sub(r"\bmy\b", "their", text)
    text = re.sub(r"\bMy\b", "Their", text)
    text = re.sub(r"\bme\b", "them", text)
    text = re.sub(r"\bmyself\b", "themselves", text)
    return text


def _clean_value(text: str) -> str:
    text = re.sub(r"[,\s]+please$", "", text.strip(), flags=re.I)
    text = text.strip(" ,;:-—–'\"")
    prev = None
    while prev != text:
        prev = text
        text = _OBJ_TAIL.sub("", text).strip(" ,;:-—–'\"")
    return text


def _strip_article(text: str) -> str:
    return re.sub(r"^(?:a|an|the|some)\s+", "", text, flags=re.I)


def normalize_attribute(noun: str) -> str:
    """One key for the many names of an attribute ("my monthly rent" -> "rent", "my new car"
    -> "car", "my job" -> "occupation").

    >>> [normalize_attribute(a) for a in ("monthly rent", "new car", "job", "yoga class")]
    ['rent', 'car', 'occupation', 'yoga class']
    """
    words = [w for w in re.findall(r"[\w'-]+", noun.lower()) if w not in DETERMINERS]
    qualifiers = QUALIFIERS
    while words and words[0] in qualifiers:
        words = words[1:]
    if not words:
        return noun.lower().strip()
    text = " ".join(words)
    if text in ATTRIBUTE_SYNONYMS:
        return ATTRIBUTE_SYNONYMS[text]
    if words[-1] in ("budget", "salary", "rent"):
        return str(words[-1])
    return text


def _head(words: Sequence[str]) -> str | None:
    """The head noun of an object phrase (its last word before a preposition)."""
    head: str | None = None
    for w in words:
        if w in PREPOSITIONS or w in OBJ_STOP or w in (",", "and", "or"):
            break
        if w in DETERMINERS or w.isdigit():
            continue
        head = w
    return head


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us")) and len(word) > 3:
        return word[:-1]
    return word


def _is_job(phrase: str) -> bool:
    words = re.findall(r"[a-z-]+", phrase.lower())
    if not words:
        return False
    head = _head(words) or words[-1]
    if head in NOT_JOBS:
        return False
    if head in JOBS or _singular(head) in JOBS:
        return True
    return bool(re.search(r"(?:ist|ian|eer|ista|ologist|ographer)$", head)) or (
        bool(re.search(r"(?:er|or|ant)$", head))
        and len(head) > 5
        and head not in NOT_JOBS
        and re.search(r"\b(?:at|for|with)\b", phrase.lower()) is not None
    )


@dataclass
class _Subject:
    kind: str  # self | person | pet | possessed | other
    name: str | None = None  # the holder (None: the speaker)
    relation: str | None = None
    noun: str | None = None  # possessed: what is owned
    start: int = 0
    end: int = 0
    pronoun: bool = False
    subordinate: bool = False


@dataclass
class _Pred:
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


class _VerbGroup:
    """Reads the verb group of a clause from token ``i`` into a :class:`_Pred`.

    Stages, in the order a clause meets them: adverbs and negation (:meth:`skip`, between any
    two), a modal ("will", "would rather", "can"), an "X to" verb ("need to", "plan to"), "start
    to"; then the auxiliary decides the rest: a form of *be* (copula, "going to", progressive,
    passive), of *have* (possession, "have got to", perfect) or of *do* (negation and emphasis),
    else the main verb itself (:func:`_main_verb`). ``None``: no predicate.
    """

    def __init__(self, toks: list[_Tok], i: int) -> None:
        self.toks = toks
        self.words = [t.low for t in toks]
        self.n = len(toks)
        self.p = _Pred(start=i)

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

    def read(self) -> _Pred | None:
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

    def _copula(self, rest: int) -> _Pred:
        self.p.copula = True
        self.p.rest = rest
        return self.p

    def _be(self, j: int) -> _Pred | None:
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

    def _going_to(self, j: int) -> _Pred | None:
        """``be going to``: the future ("I'm going to move"), else a trip ("going to Rome")."""
        words, n, p = self.words, self.n, self.p
        nxt = words[j + 2] if j + 2 < n else ""
        if (
            nxt
            and nxt not in DETERMINERS
            and not self.toks[j + 2].text[:1].isupper()
            and _looks_like_verb(nxt)
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

    def _have(self, j: int) -> _Pred | None:
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

    def _have_been(self, j2: int) -> _Pred | None:
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

    def _do(self, j: int) -> _Pred | None:
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


def _main_verb(p: _Pred, toks: list[_Tok], j: int) -> _Pred | None:
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
        toks = _tokens(clause)
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
    def _subject(self, toks: list[_Tok]) -> _Subject | None:
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
            if s.kind != "self" or s.start == 0 or fronted or _starts_clause(toks, s.start)
        ]
        found = [s for s in found if s.kind != "possessed" or _starts_clause(toks, s.start)]
        if not found:
            return None
        if lead in SUBORDINATORS:
            selves = [s for s in found if s.kind == "self" and s.start > 1]
            if len(found) > 1 and selves:
                return selves[-1]  # "Since my office moved, I take the train"
            found[0].subordinate = True
        return self._chosen_subject(toks, found[0], first_self)

    def _subject_spans(self, toks: list[_Tok]) -> tuple[list[_Subject], _Subject | None]:
        """Every span that can be a subject ("I", "we", "my sister Anna", "my rent", "she" for
        the last person named, "Dr. Lee", a person met before), in order, and the first "I"."""
        first_self = None
        found: list[_Subject] = []
        n = len(toks)
        for i, t in enumerate(toks):
            if t.text == "I" or t.low == "we":
                s = _Subject("self", None, start=i, end=i + 1)
                found.append(s)
                if first_self is None:
                    first_self = s
            elif t.low in ("my", "our") and i + 1 < n:
                s2 = self._possessive_subject(toks, i)
                if s2 is not None:
                    found.append(s2)
            elif t.low in ("he", "she") and self.last_person:
                found.append(_Subject("person", self.last_person, start=i, end=i + 1, pronoun=True))
            elif t.low in TITLES and i + 1 < n and toks[i + 1].text[:1].isupper():
                name = toks[i + 1].text
                found.append(_Subject("person", name, start=i, end=i + 2))
            elif (
                t.text[:1].isupper()
                and t.low in self.people
                and i + 1 < n
                and (toks[i + 1].low not in PREPOSITIONS)
            ):
                found.append(_Subject("person", self.people[t.low], start=i, end=i + 1))
        return found, first_self

    def _chosen_subject(
        self, toks: list[_Tok], chosen: _Subject, first_self: _Subject | None
    ) -> _Subject:
        """``chosen``, except "My partner Tom and I" (the speaker's statement) and a possessed
        thing after an "I" (the "I"); a chosen person becomes the last person named."""
        if (
            chosen.kind == "person"
            and chosen.end + 1 < len(toks)
            and toks[chosen.end].low in ("and", "&")
            and (toks[chosen.end + 1].text == "I" or toks[chosen.end + 1].low == "we")
        ):
            # "My partner Tom and I want ...": the speaker's (shared) statement
            return _Subject("self", None, start=chosen.start, end=chosen.end + 2)
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

    def _possessive_subject(self, toks: list[_Tok], i: int) -> _Subject | None:
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
        return _possessed(toks, i, j)

    def _relative(self, toks: list[_Tok], i: int, j: int, kind: str, relation: str) -> _Subject:
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
            return _Subject(kind, name, relation, start=i, end=k + len(name_toks))
        owner = self.who or "User"
        if kind == "pet":
            return _Subject("pet", None, relation, start=i, end=j + 1)
        return _Subject("person", f"{owner}'s {relation}", relation, start=i, end=j + 1)

    # -- predicates ---------------------------------------------------------------------
    def _predicate(self, toks: list[_Tok], i: int) -> _Pred | None:
        return _VerbGroup(toks, i).read()

    # -- rules over (subject, predicate) -------------------------------------------------
    def _holder(self, subject: _Subject) -> str:
        if subject.kind == "self":
            return self.who or "user"
        return subject.name or (self.who or "user")

    def _rest_text(self, clause: str, toks: list[_Tok], k: int) -> str:
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
        return _clean_value(clause[toks[k].start : toks[end - 1].end])

    def _predicate_rules(
        self,
        clause: str,
        toks: list[_Tok],
        subject: _Subject,
        p: _Pred,
        times: list[TimeMention],
    ) -> list[FactCandidate]:
        """What a (subject, verb group) clause states, by the verb group's kind: a wish or a
        preference ("would rather", "I'd like"), a copula ("I am ..."), a change of state
        ("I went vegan"), a plan ("I will ..."), a preference verb, a slot verb ("I live in"),
        a habit, else a generic statement ("I play bass")."""
        holder = self._holder(subject)
        rest = _without_times(self._rest_text(clause, toks, p.rest), times)
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
            full = _clean_value(clause[toks[p.rest].start :]) if p.rest < len(toks) else ""
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
            obj = _clean_obj(rest)
            if obj:
                return [_pref(holder, _strip_article(obj), "like", 0.7)]
        if not _states_something(subject, p, rest, times):
            return []
        return self._generic_statement(clause, toks, subject, p, rest, holder)

    def _wanted(
        self, clause: str, toks: list[_Tok], p: _Pred, rest: str, holder: str
    ) -> list[FactCandidate]:
        """ "I'd rather X" (a like, or with "not" an avoid) and "I'd like X" (a need)."""
        if p.modal == "rather":
            obj = _clean_obj(
                rest if p.copula or not p.verb else self._rest_text(clause, toks, p.verb_index)
            )
            if obj and len(obj.split()) >= 2:
                return [_pref(holder, obj, "avoid" if p.neg else "like", 0.7)]
            return []
        obj = _clean_obj(self._rest_text(clause, toks, p.verb_index + 1))
        if obj and not obj.lower().startswith("to "):
            return [_pref(holder, _strip_article(obj), "need", 0.65)]
        return []

    @staticmethod
    def _verb_preference(p: _Pred, rest: str, holder: str) -> list[FactCandidate]:
        """A preference verb ("I love X", "I don't like X", "I avoid X"), "I can't stand X",
        or a negated present consumption ("I don't eat meat": an avoid)."""
        verb = p.lemma
        if verb in LIKE_VERBS | DISLIKE_VERBS | AVOID_VERBS:
            if p.tense == "past":
                return []  # "I loved it as a kid": not a current preference
            obj = _clean_obj(rest)
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
            return [_pref(holder, _strip_article(obj), polarity, 0.75)]
        if p.verb == "stand":
            obj = _clean_obj(rest)
            return [_pref(holder, obj, "dislike", 0.75)] if obj else []
        consume = verb in CONSUME_VERBS or (verb == "have" and p.modal == "ability")
        if consume and rest and p.tense == "present":
            obj = _clean_obj(re.sub(r"^(?:any|anything with)\s+", "", rest, flags=re.I))
            if obj:
                return [_pref(holder, _strip_article(obj), "avoid", 0.8)]
        return []

    def _generic_statement(
        self,
        clause: str,
        toks: list[_Tok],
        subject: _Subject,
        p: _Pred,
        rest: str,
        holder: str,
    ) -> list[FactCandidate]:
        """A statement that can hold many values ("plays bass", "speaks Arabic"), keyed with its
        value; "I bought a new bike" and "I do my workouts" name a slot (the head noun)."""
        verb = p.lemma
        rest_low = rest.lower()
        phrase = self._verb_phrase(toks, p, clause, subject.kind == "self")
        head = _head([t.low for t in _tokens(rest)]) or ""
        key_head = _singular(head) if head else ""
        value = _possessive_value(rest)
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
            fields["attribute"] = _singular(head)
            key = None
        elif (
            verb == "do"
            and head
            and head.islower()
            and re.match(r"^(?:my|our|the|all\s+my)\s", rest_low)
        ):
            fields["attribute"] = _singular(head)  # "I do my workouts in the morning"
            key = None
        else:
            key = "Fact|" + "|".join([holder.lower(), *key_words, value.lower()])
        return [FactCandidate("Fact", fields, 0.6, 0.55, key=key, generic=key is not None)]

    def _verb_phrase(
        self, toks: list[_Tok], p: _Pred, clause: str, first_person: bool = True
    ) -> str:
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
                        if _is_present_verb(w) or w.lower() in ("am", "have", "do")
                        else w
                    )
                    break
        else:
            words[0] = (
                third_singular(first)
                if _is_present_verb(first) or first.lower() in ("am", "have", "do")
                else first
            )
        return " ".join(words)

    @staticmethod
    def _verb_slots(p: _Pred, rest: str, holder: str) -> list[FactCandidate]:
        """A slot a verb fills, read in this order: where the holder lives, where and as what
        they work, how they commute, what they drive, what they earn, a new job, what they
        studied, where they grew up, an age they turned; ``[]``: none."""
        for read in (_residence_slot, _work_slot, _routine_slot, _history_slot):
            found = read(p, rest, holder)
            if found is not None:
                return found
        return []

    def _copula_rules(
        self,
        subject: _Subject,
        p: _Pred,
        rest: str,
        holder: str,
        times: list[TimeMention],
        full_rest: str = "",
    ) -> list[FactCandidate]:
        """What "<subject> is <rest>" states: an allergy, a diet or a preference phrase
        (:func:`_copula_preference`); when affirmative and present, a slot
        (:meth:`_copula_slot`: age, workplace, hometown, home city, dose, salary, occupation);
        else a lasting state ("I'm a morning person", :func:`_copula_state`)."""
        if not rest or (p.modal in ("future", "must") and not times):
            return []
        if p.tense == "passive":
            return []
        said = _copula_preference(p, rest, holder)
        if said is not None:
            return said
        if p.neg:
            return []
        if p.tense == "past":
            return []  # "I was 17": not what holds now
        slot = self._copula_slot(subject, p, rest, holder, full_rest)
        if slot is not None:
            return slot
        return _copula_state(subject, p, rest, holder, times)

    def _copula_slot(
        self, subject: _Subject, p: _Pred, rest: str, holder: str, full_rest: str
    ) -> list[FactCandidate] | None:
        """A slot a copula fills ("I'm 34", "I'm now at KPMG", "I'm from Leeds", "I'm based in
        Oslo", "I'm on 20mg of X", "I'm on 60k", "I'm the one who plays bass", "I'm a nurse");
        ``None`` when it fills none."""
        low = rest.lower()
        m = re.match(
            r"^(?P<n>\d{1,3})(?:\s+years?\s+old|\s+y/?o)?(?:\s+(?:now|this year|already))?$", low
        )
        if m and 0 < int(m.group("n")) < 125 and subject.kind in ("self", "person"):
            return [_fact(holder, "age", m.group("n"), 0.8, 0.6, amount=float(m.group("n")))]
        m = re.match(r"^(?:working\s+)?(?:at|with|for)\s+(?P<v>[A-Z][\w&.' -]{1,40})$", rest)
        if m and (p.now or _JOB_CONTEXT.search(self._sentence)):
            return [_fact(holder, "workplace", m.group("v"), 0.75, 0.65)]  # "I'm now at KPMG"
        m = re.match(r"^from\s+(?P<v>[A-Z][\w .'-]{1,40})$", rest)
        if m:
            return [_fact(holder, "hometown", m.group("v"), 0.75, 0.6)]
        m = re.match(
            r"^(?:living|based|located|settled)\s+(?:in|near|outside)\s+(?P<v>.+)$", rest, re.I
        )
        if m:
            return [_fact(holder, "home city", m.group("v"), 0.8, 0.7)]
        m = _DOSE.match(rest)
        if m:
            return [
                _fact(
                    holder, f"{m.group('drug').lower()} dose", m.group("dose"), 0.8, 0.7, money=True
                )
            ]
        if re.match(r"^on\s+", low) and _SALARY.search(rest):
            return [_fact(holder, "salary", re.sub(r"^on\s+", "", rest), 0.8, 0.7, money=True)]
        m = re.match(r"^the\s+one\s+(?:who|that)\s+(?P<v>\w+)\s+(?P<o>.+)$", full_rest, re.I)
        if m:
            value = _possessive_value(m.group("o"))
            verb = lemma(m.group("v"))
            fields = {"attribute": verb, "value": value, "predicate": m.group("v")}
            key = f"Fact|{holder.lower()}|{verb}|{value.lower()}"
            return [FactCandidate("Fact", {**fields, "subject": holder}, 0.65, 0.55, key=key)]
        m = re.match(r"^(?:a|an)\s+(?P<v>.+)$", rest, re.I)
        job_text = (
            m.group("v") if m else (rest if subject.kind in ("self", "person") and p.now else None)
        )
        if job_text and _is_job(job_text):
            job_text = re.split(r"\s+and\s+", job_text)[0]
            return [_fact(holder, "occupation", _possessive_value(job_text), 0.8, 0.7)]
        return None

    def _possessed_rules(
        self, subject: _Subject, p: _Pred, rest: str, holder: str, times: list[TimeMention]
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
            value = _strip_article(_possessive_value(rest))
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
        value = _possessive_value(
            f"{p.verb}{' ' + p.particle if p.particle else ''} {rest}".strip()
        )
        fields = {"attribute": attr, "value": value, "subject": holder}
        return [FactCandidate("Fact", fields, 0.65, 0.6)]

    def _plan_rules(
        self, subject: _Subject, p: _Pred, rest: str, holder: str, times: list[TimeMention]
    ) -> list[FactCandidate]:
        if times:
            return []  # the event carries it
        if p.lemma in TRAVEL_VERBS and re.match(r"^(?:to|into)\s+[A-Z]", rest):
            return [self._plan_event(holder, p, rest)]
        return []

    def _plan_event(self, holder: str, p: _Pred, rest: str) -> FactCandidate:
        who = holder if holder != "user" else None
        verb = p.verb if p.tense == "progressive" else p.lemma
        desc = f"{who or 'User'} {'is ' + verb if p.tense == 'progressive' else 'plans to ' + verb} {_possessive_value(rest)}"
        return FactCandidate(
            "Event",
            {"description": desc, "actor": who, "participants": []},
            0.6,
            0.6,
        )

    # -- clause-level patterns ----------------------------------------------------------
    def _persons(self, toks: list[_Tok]) -> list[FactCandidate]:
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
        self, clause: str, times: list[TimeMention], subject: _Subject | None
    ) -> list[FactCandidate]:
        """A stated change ("my rent went up to 1,400", "the meeting is now on the 5th"): the
        new value of the thing (a fact), or, when a date is the new value, the moved event;
        both retire what the thing's words name."""
        said = _stated_change(clause)
        if said is None:
            return []
        thing, new, own = said
        if own in ("his", "her"):
            holder = self.last_person or (self.who or "user")
        else:
            holder = self.who or "user"
        new = _clean_value(new)
        thing_clean = re.sub(r"\s+(?:up|back)$", "", thing.strip())
        attr = normalize_attribute(thing_clean)
        retire = _topic_words(thing_clean)
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
        new = _clean_value(_without_times(re.split(r",\s*", new)[0], times))
        if not new:
            return []
        amount, unit = read_money(new) if re.search(r"\d", new) else (None, None)
        values: dict[str, Any] = {
            "attribute": attr,
            "value": _possessive_value(new),
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
            out.append(_fact(holder, "preferred name", m.group("name"), 0.85, 0.7))
        m = _NEEDS.match(clause)
        if m and not re.match(r"^\s*(?:I|we|you|he|she|they|it|that|this)\b", clause, re.I):
            obj = _clean_obj(m.group("obj") or m.group("obj2") or "")
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
                obj = _clean_obj(m.group("obj") or (m.groupdict().get("obj2") or ""))
                if obj:
                    return [_pref(holder, obj, polarity, 0.75)]
        for pattern in (_FAVOURITE_B, _FAVOURITE_A):
            m = pattern.search(text)
            if not m:
                continue
            obj = _clean_obj(m.group("obj"))
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
        value = _strip_article(_clean_value(m.group("val")))
        return [_fact(holder, slot, value, 0.75, 0.65)]

    def _counts(
        self, clause: str, subject: _Subject | None, sentence: str = ""
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
            if noun in UNIT_NOUNS or _singular(noun) in UNIT_NOUNS or not noun.endswith("s"):
                continue
            if noun in PREPOSITIONS or noun in DETERMINERS or noun in ADVERBS:
                continue
            n = m.group("n")
            key_noun = _singular(noun)
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
                        key=f"Fact|{holder.lower()}|number of {_singular(noun)}",
                    )
                )
        return out

    # -- events -------------------------------------------------------------------------
    def _eventful(self, toks: list[_Tok], subject: _Subject | None, pred: _Pred | None) -> bool:
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
        self, clause: str, toks: list[_Tok], subject: _Subject | None, times: list[TimeMention]
    ) -> FactCandidate | None:
        """A dated event: the clause without its date words, told in the third person, with the
        persons it names; ``None`` when nothing but the date is left ("Last week.")."""
        when = times[0]
        text = _tidy_event_text(_without_date_words(clause, times))
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

    def _participants(self, clause: str, toks: list[_Tok], subject: _Subject | None) -> list[str]:
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


def _stated_change(clause: str) -> tuple[str, str, str] | None:
    """``(thing, new value, owner word)`` of "my X changed to Y", "my X went up to 40" (a
    number) or "my X is now Y"; ``None``: no change stated (or "set/cut" without a number)."""
    m = _CHANGE.search(clause)
    thing = new = own = None
    if m:
        thing, new, own = m.group("thing"), m.group("new"), m.group("own").lower()
        if m.group("verb").lower() in ("set", "cut", "dropped", "reset") and not re.search(
            r"\d", new
        ):
            thing = None
    elif (m3 := _WENT_TO.search(clause)) and re.search(r"\d", m3.group("new")):
        thing, new, own = m3.group("thing"), m3.group("new"), (m3.group("own") or "my").lower()
    else:
        m2 = _NOW_VALUE.search(clause)
        if m2:
            thing = m2.group("thing") or m2.group("thing2")
            new = m2.group("new") or m2.group("new2")
            own = (m2.group("own") or m2.group("own2")).lower()
    if not thing or not new:
        return None
    return thing, new, own or ""


def _possessed(toks: Sequence[_Tok], i: int, j: int) -> _Subject | None:
    """Something owned ("my monthly rent"): the noun phrase from ``j`` up to the verb (at most
    five words); ``None`` when no verb follows or the phrase is no noun."""
    n = len(toks)
    k = j
    words = []
    while k < n and k < j + 5:
        w = toks[k].low
        if w in BE or w in HAVE or w in MODALS or w in DO or w in ("not",):
            break
        if k > j and (_looks_like_verb(w) and w not in PREPOSITIONS):
            break
        if w in (",", "and") or w in OBJ_STOP or w in ("i", "we", "he", "she", "they", "you"):
            return None
        words.append(toks[k].text)
        k += 1
    if not words or k >= n or toks[j].low in MY_NOUN_STOP:
        return None
    if any("'" in w for w in words) or words[-1].lower().endswith("ed"):
        return None
    noun = " ".join(words)
    return _Subject("possessed", None, noun=noun, start=i, end=k)


def _without_date_words(clause: str, times: Sequence[TimeMention]) -> str:
    """``clause`` without its date phrases (and the "on", "next", "since" before them), clock
    times and "to the 5th" ranges."""
    text = clause
    for t in sorted(times, key=lambda x: -x.start):
        start = t.start
        end = t.end if t.end >= 0 else t.start + len(t.phrase)
        before = text[:start]
        pre = re.search(
            r"(?:\b(?:on|at|in|for|by|from|until|till|this|next|of|since|starting)\s+)+$",
            before,
            re.I,
        )
        if pre:
            start = pre.start()
        if text[end : end + 2] == "'s":
            end += 2
        text = text[:start] + text[end:]
    text = re.sub(
        r"\b(?:at|around|by|from)\s+\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)?(?=\W|$)",
        "",
        text,
        flags=re.I,
    )
    text = re.sub(
        r"(?:\b(?:to|until|till)\s+)?\b\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)",
        "",
        text,
        flags=re.I,
    )
    return re.sub(
        r"\b(?:to|until|till|through)\s+the\s+\d{1,2}(?:st|nd|rd|th)\b", "", text, flags=re.I
    )


def _tidy_event_text(text: str) -> str:
    """An event's words without a trailing part of day, a dangling "is", openers ("so", "and
    then") and trailing "instead"/"again"; spaces and punctuation normalised."""
    text = re.sub(r"\s*\b(?:morning|afternoon|evening|night)\b\s*$", "", text.strip(), flags=re.I)
    text = re.sub(r"\s+", " ", text).strip(" ,;:-")
    text = re.sub(r"\s+([,.;:!?])", r"\1", text)
    text = re.sub(r"\s+(?:is|are|was|were|will be)$", "", text)
    text = re.sub(
        r"^(?:(?:just|so|and|but|also|oh|well|anyway|now|then|actually)\s+)+",
        "",
        text,
        flags=re.I,
    )
    return re.sub(r"\s+(?:instead|now|again|too|as well)$", "", text, flags=re.I)


def _residence_slot(p: _Pred, rest: str, holder: str) -> list[FactCandidate] | None:
    """ "I live in Leeds"; "I moved to Oslo" (home city) or "to the Paris office" (workplace)."""
    verb = p.lemma
    rest_low = rest.lower()
    if verb == "live" and re.match(r"^(?:in|on|near|at|outside|just outside)\b", rest_low):
        place = re.sub(r"^(?:in|on|near|at|outside|just outside)\s+", "", rest, flags=re.I)
        return [_fact(holder, "home city", place, 0.8, 0.7)]
    if (
        verb in ("move", "relocate")
        and p.tense in ("past", "perfect")
        and re.match(r"^(?:to|into|in)\b", rest_low)
    ):
        place = re.sub(r"^(?:to|into|in)\s+", "", rest, flags=re.I)
        if re.search(
            r"\b(?:office|branch|team|department|division|site|campus|company|firm|role|job)\b",
            place,
            re.I,
        ):
            return [_fact(holder, "workplace", place, 0.75, 0.65)]
        if place[:1].isupper() or re.search(r"\b[A-Z]\w+", place):
            return [_fact(holder, "home city", place, 0.8, 0.7)]
    return None


def _work_slot(p: _Pred, rest: str, holder: str) -> list[FactCandidate] | None:
    """ "I work out", "I work as a nurse", "from home", "at Acme as an analyst", "for Acme"."""
    if p.lemma != "work":
        return None
    if p.particle == "out":
        value = rest or "works out"
        return [_fact(holder, "workout", value, 0.65, 0.55, predicate="works out")]
    m = re.match(r"^as\s+(?P<v>.+)$", rest, re.I)
    if m:
        return [_fact(holder, "occupation", _strip_article(m.group("v")), 0.8, 0.7)]
    m = re.match(r"^from\s+home\b\s*(?P<v>.*)$", rest, re.I)
    if m:
        value = m.group("v") or "works from home"
        return [_fact(holder, "remote work", value, 0.7, 0.6, predicate="works from home")]
    m = re.match(r"^(?:at|for)\s+(?P<v>.+?)\s+as\s+(?:an?\s+)?(?P<j>.+)$", rest, re.I)
    if m:
        return [
            _fact(holder, "workplace", m.group("v"), 0.75, 0.7),
            _fact(holder, "occupation", m.group("j"), 0.75, 0.7),
        ]
    m = re.match(r"^(?:at|for)\s+(?P<v>[^,;]+?)(?:\s+(?:to|so|because)\s.*)?$", rest, re.I)
    if m:
        return [_fact(holder, "workplace", m.group("v"), 0.75, 0.7)]
    m = re.match(r"^in\s+(?P<v>[A-Z].+)$", rest)
    if m:
        return [_fact(holder, "workplace", m.group("v"), 0.7, 0.65)]
    return None


def _routine_slot(p: _Pred, rest: str, holder: str) -> list[FactCandidate] | None:
    """ "I cycle to work" (commute), "I drive a Golf" (car), "I earn 60k" (salary)."""
    verb = p.lemma
    rest_low = rest.lower()
    to_work = re.search(r"\bto\s+(?:work|the office|school|campus|class)\b", rest_low)
    if to_work and (
        verb in COMMUTE_VERBS or (verb == "take" and re.match(r"^(?:the|a)\s+\w+\s+to\s", rest_low))
    ):
        phrase = (third_singular(p.verb) if p.tense == "present" else p.verb) + " " + rest
        return [_fact(holder, "commute", _possessive_value(phrase.strip()), 0.7, 0.6)]
    if (
        verb == "drive"
        and re.match(r"^(?:an?|the|my|our)\s+", rest_low)
        and not re.search(r"\bto\b", rest_low)
    ):
        return [_fact(holder, "car", _strip_article(rest), 0.75, 0.6)]
    if verb in ("earn", "make", "get") and _SALARY.search(rest):
        return [_fact(holder, "salary", rest, 0.8, 0.7, money=True)]
    return None


def _history_slot(p: _Pred, rest: str, holder: str) -> list[FactCandidate] | None:
    """ "I started a new job at Acme" (workplace), "I studied law" (education), "I grew up in
    Cork" (hometown), "I just turned 40" (age)."""
    verb = p.lemma
    rest_low = rest.lower()
    if verb in ("start", "begin", "join", "get", "land", "accept", "take", "find", "have"):
        m = re.search(
            r"^(?:(?:a|an|my|the)\s+)?(?:new\s+|first\s+|dream\s+|full-time\s+|part-time\s+)*"
            r"(?:job|role|position|post|work|working|gig|internship)\s+(?:at|with|for)\s+(?P<v>[^,;]+)$",
            rest,
            re.I,
        )
        if m:
            return [_fact(holder, "workplace", m.group("v"), 0.8, 0.7)]
    if verb in ("study", "major", "graduate") and rest and p.tense in ("past", "perfect"):
        phrase = (third_singular(p.verb) if p.tense == "present" else p.verb) + " " + rest
        return [_fact(holder, "education", _possessive_value(phrase), 0.75, 0.6)]
    if verb == "grow" and p.particle == "up" and re.match(r"^(?:in|near|outside|on)\s", rest_low):
        return [_fact(holder, "hometown", re.sub(r"^\w+\s+", "", rest), 0.75, 0.6)]
    m = re.match(r"^(?P<n>\d{1,3})(?:\s+years?\s+old)?$", rest_low)
    if verb == "turn" and m and 0 < int(m.group("n")) < 125:
        return [_fact(holder, "age", m.group("n"), 0.8, 0.6, amount=float(m.group("n")))]
    return None


def _copula_preference(p: _Pred, rest: str, holder: str) -> list[FactCandidate] | None:
    """An allergy ("allergic to nuts"), a diet ("vegan"), a dietary restriction or a preference
    phrase ("a big fan of jazz", "not into horror") after a copula; ``None``: none of them."""
    low = rest.lower()
    m = re.match(
        r"^(?:very\s+|severely\s+|mildly\s+|deathly\s+)?allergic\s+to\s+(?P<o>.+)$", rest, re.I
    )
    if m:
        obj = _clean_obj(m.group("o"))
        return [_pref(holder, obj, "avoid", 0.9)] if obj else []
    diet = _diet(p, low, holder)
    if diet is not None:
        return diet
    for phrase in LIKE_PHRASES:
        if low.startswith(phrase + " "):
            obj = _clean_obj(rest[len(phrase) + 1 :])
            if obj:
                return [_pref(holder, _strip_article(obj), "dislike" if p.neg else "like", 0.75)]
    for phrase in DISLIKE_PHRASES:
        if low.startswith(phrase + " "):
            obj = _clean_obj(rest[len(phrase) + 1 :])
            if obj:
                return [_pref(holder, _strip_article(obj), "dislike", 0.75)]
    return None


def _diet(p: _Pred, low: str, holder: str) -> list[FactCandidate] | None:
    """ "(now fully) vegan" -> a diet, "gluten-free" -> a dietary restriction; negated: nothing
    (``[]``); ``None``: no diet named."""
    for diet in DIETS:
        if re.match(
            rf"^(?:(?:a|an|now|fully|strictly|mostly|completely|100%|basically|pretty much|gone)\s+)*{re.escape(diet)}\b",
            low,
        ):
            if p.neg:
                return []
            return [_fact(holder, "diet", diet, 0.85, 0.75)]
    for diet in DIET_RESTRICTIONS:
        if re.match(
            rf"^(?:(?:a|an|now|fully|strictly|mostly|severely|completely|very)\s+)*{re.escape(diet)}\b",
            low,
        ):
            if p.neg:
                return []
            key = "Fact|" + holder.lower() + "|restriction|" + diet.split()[0].split("-")[0]
            fields = {"attribute": "dietary restriction", "value": diet, "subject": holder}
            return [FactCandidate("Fact", fields, 0.85, 0.75, key=key)]
    return None


def _copula_state(
    subject: _Subject, p: _Pred, rest: str, holder: str, times: Sequence[TimeMention]
) -> list[FactCandidate]:
    """A lasting state of a person ("I'm a morning person", "she is in her second year"),
    keyed with its value; not an emotion, a place, a dated whereabouts or a passing activity."""
    low = rest.lower()
    if subject.kind not in ("self", "person"):
        return []
    first = low.split()[0] if low.split() else ""
    if (first in EMOTION and first not in PLACE_WORDS) or first in INTENSIFIERS:
        return []
    if low in PLACE_WORDS:
        return []
    if times:
        return []  # "I am at the dentist tomorrow": the event says it
    words = re.findall(r"[A-Za-z\d%]+", rest)
    has_article = first in ("a", "an", "the", "one", "part")
    stated = (
        has_article
        or p.habitual
        or re.search(r"\d", rest)
        or (len(words) >= 3 and first in STATE_OPENERS)
        or _LASTING_STATE.search(low)
    )
    if not stated:
        return []
    if re.match(
        r"^(?:in|at|on)\s+(?:the\s+)?(?:car|bus|train|way|middle|process|mood|kitchen|office|hospital|gym|shower|meeting)\b",
        low,
    ):
        return []
    be = "is" if p.tense != "past" else "was"
    if p.tense == "perfect" or "been" in p.aux:
        be = "has been"
    value = _possessive_value(rest)
    fields = {"attribute": "is", "value": value, "predicate": be, "subject": holder}
    key = f"Fact|{holder.lower()}|be|{value.lower()}"
    return [FactCandidate("Fact", fields, 0.6, 0.55, key=key, generic=True)]


def _states_something(subject: _Subject, p: _Pred, rest: str, times: Sequence[TimeMention]) -> bool:
    """Whether a clause left to the generic statement says something durable: not past (but a
    change of state), not modal, not subordinate, not vague; not a dated trip; a complement with
    content words, not a pronoun or "a lot"."""
    verb = p.lemma
    rest_low = rest.lower()
    if p.tense == "past" and verb not in STATE_CHANGE:
        return False
    if p.modal is not None or subject.subordinate or verb in VAGUE_VERBS:
        return False
    if p.tense == "progressive" and verb in TRAVEL_VERBS and times:
        return False  # a dated trip: the event says it
    if not rest or len(re.findall(r"[A-Za-z\d]{2,}", rest)) < 1:
        return False
    if rest_low in ("a lot", "lots", "much", "often", "sometimes", "there", "here", "it"):
        return False
    first_word = rest_low.split()[0].strip(",.;:!")
    if first_word in PRONOUN_OBJECTS and first_word not in ("one",):
        return False
    content = [
        w
        for w in re.findall(r"[a-z\d][\w'-]*", rest_low)
        if w not in PREPOSITIONS
        and w not in DETERMINERS
        and w not in PRONOUN_OBJECTS
        and w not in ADVERBS
        and w not in FILLER_WORDS
    ]
    return bool(content)


def _starts_clause(toks: Sequence[_Tok], i: int) -> bool:
    """Whether a subject at index ``i`` opens its clause: first, or after a comma, a colon or a
    discourse word ("Anyway, my rent is", "For the record, my blood type is")."""
    if i == 0 or toks[i - 1].low in (",", ":", ";", "!"):
        return True
    return all(t.low in OPENERS or t.low in (",", ":", "!") for t in toks[:i])


def _without_times(text: str, times: Sequence[TimeMention]) -> str:
    """The text without its date phrases (and the preposition before them)."""
    for t in times:
        text = re.sub(
            r"(?:\b(?:on|at|in|for|by|from|until|till|since|starting)\s+)?" + re.escape(t.phrase),
            "",
            text,
        )
    return _clean_value(re.sub(r"\s+", " ", text))


def _looks_like_verb(word: str) -> bool:
    if word in BE or word in HAVE or word in DO or word in MODALS:
        return True
    if word in PAST_FORMS or word in LIKE_VERBS or word in DISLIKE_VERBS:
        return True
    if word.endswith(("ed", "es")) and len(word) > 3:
        return True
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        return True
    return word in VERBLIKE


def _clean_obj(obj: str | None) -> str | None:
    if obj is None:
        return None
    obj = _clean_value(re.split(r"\s*[,;]\s+(?=(?:it|this|that|they|which|so|but)\b)", obj)[0])
    obj = re.sub(r"\s+(?:and|or)$", "", obj).strip()
    if len(obj) < 2:
        return None
    first = obj.lower().split()[0].strip(",.;:!")
    if (
        obj.lower() in PRONOUN_OBJECTS
        or first in PRONOUN_OBJECTS
        or first in ("how", "when", "why")
    ):
        return None
    return obj[:80]


def _topic_words(phrase: str) -> list[str]:
    """Words naming a thing for retirement: its proper nouns, else its content words."""
    words = re.findall(r"[\w'-]+", phrase)
    proper = [w.lower() for w in words if w[:1].isupper() and w not in NOT_NAMES]
    if proper:
        return proper
    return [
        w.lower()
        for w in words
        if w.lower() not in DETERMINERS
        and w.lower() not in PREPOSITIONS
        and w.lower() not in ("plan", "plans", "new", "old", "next")
        and len(w) > 2
    ]


def _fact(
    holder: str,
    attribute: str,
    value: str,
    confidence: float,
    importance: float,
    *,
    amount: float | None = None,
    money: bool = False,
    predicate: str | None = None,
) -> FactCandidate:
    fields: dict[str, Any] = {
        "attribute": attribute,
        "value": _possessive_value(_clean_value(value)),
        "subject": holder,
    }
    if money or amount is not None:
        if amount is None:
            amount, unit = read_money(value)
            fields["unit"] = unit
        fields["amount"] = amount
    if predicate:
        fields["predicate"] = predicate
    return FactCandidate("Fact", fields, confidence, importance)


def _pref(holder: str, subject: str | None, polarity: str, confidence: float) -> FactCandidate:
    if subject:
        subject = _possessive_value(re.sub(r"\s+yet$", "", subject))
    fields: dict[str, Any] = {"subject": subject, "polarity": polarity}
    if holder != "user":
        fields["holder"] = holder
    return FactCandidate("Preference", fields, confidence, 0.7)
