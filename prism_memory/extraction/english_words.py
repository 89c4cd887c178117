"""English words and values: tokens, lemmas, agreement, and the clean-up of copied values.

Design:
- Pure functions over strings, no state. ``tokens`` cuts a clause into ``Tok`` spans (text,
  lower case, offsets); ``lemma``, ``third_singular`` and ``third_person`` inflect verbs and
  render a statement from its holder's side ("I love jazz" -> "Anna loves jazz");
  ``normalize_attribute``, ``head_noun``, ``singular_noun`` and ``is_job`` read nouns.
- A value copied from the text is trimmed here (``clean_value``, ``clean_obj``,
  ``strip_article``, ``possessive_value``, ``without_times``), so every rule renders it alike.
- The lowest of the English modules: it knows no subject, predicate or record.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .dates import TimeMention
from .lexicon_grammar import (
    BE,
    DETERMINERS,
    DO,
    HAVE,
    MODALS,
    OBJ_STOP,
    OPENERS,
    PREPOSITIONS,
    PRONOUN_OBJECTS,
    QUALIFIERS,
)
from .lexicon_life import (
    ATTRIBUTE_SYNONYMS,
    JOBS,
    NOT_JOBS,
    RELATIONS,
)
from .lexicon_verbs import (
    DISLIKE_VERBS,
    IRREGULAR,
    LIKE_VERBS,
    PAST_FORMS,
    VERBLIKE,
)
from .patterns import NOT_NAMES
from .sentences import expand_contractions

__all__ = [
    "Tok",
    "clean_obj",
    "clean_value",
    "head_noun",
    "is_job",
    "is_present_verb",
    "lemma",
    "looks_like_verb",
    "normalize_attribute",
    "possessive_value",
    "singular_noun",
    "starts_clause",
    "strip_article",
    "third_person",
    "third_singular",
    "tokens",
    "topic_words",
    "without_times",
]

_TOKEN = re.compile(r"[$€£¥]?[\w\u00C0-\u024F][\w\u00C0-\u024F'\-.&%]*|[^\w\s]")
_OBJ_TAIL = re.compile(
    r"(?:\s+(?:now|too|anymore|any more|as well|these days|at the moment|currently|instead|"
    r"again|though|then|either|lately|nowadays|for now|right now|honestly|actually|"
    r"specifically|really|very much|so much|a lot|at all|the most|either way|just so you know|"
    r"by the way|btw|lol|haha|please|thanks|thank you))+$",
    re.I,
)


@dataclass
class Tok:
    """A token: its text, lower case and character offsets in the clause."""

    text: str
    low: str
    start: int
    end: int


def tokens(text: str) -> list[Tok]:
    """The words and punctuation of ``text``; a title's period is dropped ("Mr." -> "Mr").

    >>> [t.low for t in tokens("Mr. Okafor moved, $40 later")]
    ['mr', 'okafor', 'moved', ',', '$40', 'later']
    """
    out = []
    for m in _TOKEN.finditer(text):
        word = m.group(0)
        end = m.end()
        if word.endswith(".") and len(word) > 1:
            word, end = word[:-1], end - 1  # "Mr." is the title "mr"
        out.append(Tok(word, word.lower(), m.start(), end))
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
        form = third_singular(verb) if is_present_verb(verb) else verb
    return f"{name}{middle}{form}"


def is_present_verb(word: str) -> bool:
    """Whether ``word`` after a subject is a verb in the present (it takes a third-person
    "-s"): not a modal, past form, participle, determiner or preposition."""
    low = word.lower()
    if low in MODALS or low in PAST_FORMS or low in ("was", "were"):
        return False
    if low.endswith("ed") or low.endswith("ing"):
        return False
    if low == "like":  # after a subject it is the verb ("I like" -> "Maya likes")
        return True
    return not (low in DETERMINERS or low in PREPOSITIONS or low in ("not", "never"))


def possessive_value(text: str) -> str:
    """A value told from the holder's side: "my" -> "their", "me" -> "them"."""
    text = re.sub(r"\bmy\b", "their", text)
    text = re.sub(r"\bMy\b", "Their", text)
    text = re.sub(r"\bme\b", "them", text)
    text = re.sub(r"\bmyself\b", "themselves", text)
    return text


def clean_value(text: str) -> str:
    """A value without a trailing "please", filler ("now", "too", "these days") and edge
    punctuation.

    >>> clean_value("oat milk now, please")
    'oat milk'
    """
    text = re.sub(r"[,\s]+please$", "", text.strip(), flags=re.I)
    text = text.strip(" ,;:-—–'\"")
    prev = None
    while prev != text:
        prev = text
        text = _OBJ_TAIL.sub("", text).strip(" ,;:-—–'\"")
    return text


def strip_article(text: str) -> str:
    """``text`` without a leading article ("a", "an", "the", "some")."""
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


def head_noun(words: Sequence[str]) -> str | None:
    """The head noun of an object phrase (its last word before a preposition)."""
    head: str | None = None
    for w in words:
        if w in PREPOSITIONS or w in OBJ_STOP or w in (",", "and", "or"):
            break
        if w in DETERMINERS or w.isdigit():
            continue
        head = w
    return head


def singular_noun(word: str) -> str:
    """The singular of an English plural by its ending ("cities" -> "city").

    >>> singular_noun("cities"), singular_noun("boxes"), singular_noun("cats"), singular_noun("bus")
    ('city', 'box', 'cat', 'bus')
    """
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us")) and len(word) > 3:
        return word[:-1]
    return word


def is_job(phrase: str) -> bool:
    """Whether ``phrase`` names an occupation: its head noun is a known job, or ends like
    one ("-ist", "-ian", "-eer"; "-er"/"-or" when a workplace follows)."""
    words = re.findall(r"[a-z-]+", phrase.lower())
    if not words:
        return False
    head = head_noun(words) or words[-1]
    if head in NOT_JOBS:
        return False
    if head in JOBS or singular_noun(head) in JOBS:
        return True
    return bool(re.search(r"(?:ist|ian|eer|ista|ologist|ographer)$", head)) or (
        bool(re.search(r"(?:er|or|ant)$", head))
        and len(head) > 5
        and head not in NOT_JOBS
        and re.search(r"\b(?:at|for|with)\b", phrase.lower()) is not None
    )


def starts_clause(toks: Sequence[Tok], i: int) -> bool:
    """Whether a subject at index ``i`` opens its clause: first, or after a comma, a colon or a
    discourse word ("Anyway, my rent is", "For the record, my blood type is")."""
    if i == 0 or toks[i - 1].low in (",", ":", ";", "!"):
        return True
    return all(t.low in OPENERS or t.low in (",", ":", "!") for t in toks[:i])


def without_times(text: str, times: Sequence[TimeMention]) -> str:
    """The text without its date phrases (and the preposition before them)."""
    for t in times:
        text = re.sub(
            r"(?:\b(?:on|at|in|for|by|from|until|till|since|starting)\s+)?" + re.escape(t.phrase),
            "",
            text,
        )
    return clean_value(re.sub(r"\s+", " ", text))


def looks_like_verb(word: str) -> bool:
    """Whether the lower-case ``word`` can be a finite verb (an auxiliary, a past form, a
    liking verb, an "-ed"/"-s" form or a known verb)."""
    if word in BE or word in HAVE or word in DO or word in MODALS:
        return True
    if word in PAST_FORMS or word in LIKE_VERBS or word in DISLIKE_VERBS:
        return True
    if word.endswith(("ed", "es")) and len(word) > 3:
        return True
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        return True
    return word in VERBLIKE


def clean_obj(obj: str | None) -> str | None:
    """An object phrase cleaned as a value, cut before a following clause ("..., it is");
    ``None`` when nothing or only a pronoun or question word is left.

    >>> clean_obj("spicy food, it is great"), clean_obj("it")
    ('spicy food', None)
    """
    if obj is None:
        return None
    obj = clean_value(re.split(r"\s*[,;]\s+(?=(?:it|this|that|they|which|so|but)\b)", obj)[0])
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


def topic_words(phrase: str) -> list[str]:
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
