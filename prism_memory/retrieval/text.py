"""Words and sentences of memory text: content terms, filler detection, sentence compression.

Design:
- Pure functions over strings, shared by the construct stage (``construct.py``,
  ``packing.py``) and the benchmarks.
- ``content_terms``: lower-cased content words (3+ letters, or numbers) minus generic English
  function words, reduced to a crude root (suffix strip, first six letters) so "moved" and
  "move" meet. No stemmer dependency, no data-specific word list.
- ``compress_text``: keep the sentences of a long turn that share the most terms with the query
  within a token allowance; filler sentences ("Wow, that's great!") go first. When the
  question's form says what answers it (``answer_kind``: a number for "how many", a date for
  "when", a name for "who"), a sentence on its subject holding such a token ranks as if it
  matched one more, the heaviest, query term.
- Script-aware: a run of CJK characters (no spaces between words) contributes its character
  bigrams as terms, the keyword route's unit (``prism_memory.sparse``), and a sentence also
  ends at a full-width 。！？ without a following space. Text without CJK characters gets
  exactly the terms and sentences it got before.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache

from ..sparse import cjk_bigrams, has_cjk
from ..tokens import count_tokens

__all__ = [
    "NO_LIMIT",
    "STOPWORDS",
    "analysed",
    "answer_kind",
    "compress_text",
    "content_terms",
    "is_filler",
    "names_or_numbers",
    "split_sentences",
    "text_terms",
]

# Generic English function words (not derived from any data set).
STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "done",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "get",
        "got",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "yes",
        "yeah",
        "really",
        "much",
        "many",
        "like",
        "one",
        "thing",
        "things",
        "well",
    ]
)
_WORD = re.compile(r"[a-z][a-z']+|\d+(?:[.,]\d+)*")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=\S)|\s+(?=\[)|(?<=[。！？])\s*(?=\S)")
# the same without its full-width alternative, for ASCII text (the empty-width alternative
# would be tried at every character of it, for nothing)
_SENTENCE_ASCII = re.compile(r"(?<=[.!?])\s+(?=\S)|\s+(?=\[)")


@lru_cache(maxsize=65536)
def _root(word: str) -> str:
    w = word.strip("'")
    if w.endswith("'s"):
        w = w[:-2]
    for suffix in ("ing", "ed", "es", "s", "ly"):
        if len(w) > len(suffix) + 3 and w.endswith(suffix):
            return w[: -len(suffix)][:6]
    return w[:6]


def content_terms(text: str) -> set[str]:
    """Roots of the content words of ``text`` (lower-cased, 3+ letters or a number, no stopwords).

    >>> sorted(content_terms("She painted sunrises at the lake"))
    ['lake', 'paint', 'sunris']
    >>> sorted(content_terms("我搬到了杭州"))
    ['了杭', '到了', '我搬', '搬到', '杭州']
    """
    terms = set(map(_term, _WORD.findall(text.lower())))
    terms.discard("")
    if has_cjk(text):
        terms.update(t for t in cjk_bigrams(text).split() if has_cjk(t))
    return terms


@lru_cache(maxsize=65536)
def _term(word: str) -> str:
    """The term a lower-cased word stands for ("" for a stopword or a short word)."""
    if word[0].isdigit():
        return word
    if len(word) < 3 or word in STOPWORDS:
        return ""
    return _root(word)


NO_LIMIT = 1 << 30
_FILLER_WORDS = 2
_NAME_OR_NUMBER = re.compile(r"\d|(?<=[\w,;:] )[A-Z][a-z]")


def names_or_numbers(text: str) -> bool:
    """Whether ``text`` holds a number or a name after a word: then one of its sentences
    does (no sentence ends inside the match), and that sentence is no filler.

    >>> names_or_numbers("ok, thanks Tom"), names_or_numbers("Sounds good. Thanks!")
    (True, False)
    """
    return _NAME_OR_NUMBER.search(text) is not None


def is_filler(sentence: str, info: set[str], terms: set[str]) -> bool:
    """A sentence with at most two content words, none from the query, no number and no
    name after its first word ("Wow, that's great!", "How are you?"): it carries no fact."""
    return (
        len(info) <= _FILLER_WORDS and not (info & terms) and not _NAME_OR_NUMBER.search(sentence)
    )


# What a question asks for, by its English question form; and how a sentence can hold it.
_ASKS = (
    ("number", re.compile(r"\bhow (?:many|much|long|old|often|far|big|tall)\b")),
    (
        "date",
        re.compile(r"\bwhen\b|\bwhat (?:date|day|time|year|month)\b|\bwhich (?:day|year|month)\b"),
    ),
    ("name", re.compile(r"\bwho\b|\bwhose\b|\bwhom\b|\bname(?:d|s)?\b")),
)
_NUMBER_WORDS = (
    r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|"
    r"forty|fifty|hundred|thousand|million|dozen|half|once|twice|couple"
)
_MONTHS_DAYS = (
    r"january|february|march|april|may|june|july|august|september|october|november|december|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|yesterday|today|tomorrow|"
    r"tonight|weekend|week|month|year|ago|last|next"
)
_HOLDS = {
    "number": re.compile(rf"\d|\b(?:{_NUMBER_WORDS})\b", re.IGNORECASE),
    "date": re.compile(rf"\d|\b(?:{_MONTHS_DAYS})\b", re.IGNORECASE),
    "name": re.compile(r"(?<=[\w,;:] )[A-Z][a-z]"),
}


def answer_kind(query: str) -> str | None:
    """What kind of token answers ``query`` (``number``, ``date`` or ``name``), by its
    question form; ``None`` when the form does not say.

    >>> answer_kind("How many days did the trip take?"), answer_kind("When did I move?")
    ('number', 'date')
    >>> answer_kind("What is the name of my cat?"), answer_kind("Where do I live?")
    ('name', None)
    """
    q = query.casefold()
    for kind, form in _ASKS:
        if form.search(q):
            return kind
    return None


def compress_text(
    text: str,
    terms: set[str],
    keep_tokens: int,
    weights: Mapping[str, float] | None = None,
    asks: str | None = None,
) -> tuple[str, bool]:
    """The informative sentences of ``text``, best for the query first, within ``keep_tokens``.

    Filler sentences (at most two content words: "Wow!", "How are you?") go first; then, if
    the rest is still over ``keep_tokens``, the sentences sharing the fewest ``terms`` with the
    query. A shared term counts its length, or its weight in ``weights`` when given (e.g. how
    rare it is among the texts competing for the context). Kept sentences stay in order, gaps
    marked with an ellipsis; at least one sentence is kept. Returns ``(text, compressed?)``.

    >>> compress_text("Hi there! I adopted a cat named Tom. It was fun.", {"cat"}, 8)
    ('I adopted a cat named Tom.', True)
    """
    sentences, info = analysed(text)
    if len(sentences) <= 1:
        return text, False
    keep: list[int] = []
    used = 0
    for i in _by_query_share(sentences, info, terms, weights, asks):
        # a cl100k token never spans two words: the word count bounds the cost from below,
        # so a sentence that cannot fit is skipped without being tokenised
        if keep and used + len(sentences[i].split()) + 1 > keep_tokens:
            continue
        cost = _sentence_tokens(sentences[i]) + 1
        filler = is_filler(sentences[i], info[i], terms)
        if keep and (filler or used + cost > keep_tokens):
            continue
        keep.append(i)
        used += cost
    if len(keep) == len(sentences):
        return text, False
    return _with_gaps(sentences, sorted(keep)), True


def _by_query_share(
    sentences: Sequence[str],
    info: Sequence[set[str]],
    terms: set[str],
    weights: Mapping[str, float] | None,
    asks: str | None,
) -> list[int]:
    """Sentence indices, the most query terms (by length or weight) first; then the most
    content words, then text order."""

    def weight(term: str) -> float:
        return len(term) if weights is None else weights.get(term, 0.0)

    # the token the question asks for is the query's missing term: a sentence on the query's
    # subject that holds one (a number for "how many", a date for "when") scores as if it
    # also matched the query's heaviest term
    holds = _HOLDS.get(asks or "")
    bonus = max((weight(t) for t in terms), default=0.0) if holds is not None else 0.0

    def score(i: int) -> float:
        shared = info[i] & terms
        base = sum(weight(h) for h in shared)
        if shared and holds is not None and holds.search(sentences[i]):
            base += bonus
        return base

    return sorted(range(len(sentences)), key=lambda i: (-score(i), -len(info[i]), i))


def _with_gaps(sentences: Sequence[str], keep: Sequence[int]) -> str:
    """The kept sentences (indices in order) joined, each gap marked with an ellipsis."""
    parts: list[str] = []
    for pos, i in enumerate(keep):
        if pos and i != keep[pos - 1] + 1:
            parts.append("…")
        parts.append(sentences[i])
    return " ".join(parts)


@lru_cache(maxsize=16384)
def analysed(text: str) -> tuple[list[str], list[set[str]]]:
    """Sentences of ``text`` and the content terms of each (memoised per text: a long turn is
    cut into passages for query after query; callers never mutate what this returns)."""
    sentences = split_sentences(text)
    return sentences, [content_terms(s) for s in sentences]


@lru_cache(maxsize=32768)
def text_terms(text: str) -> frozenset[str]:
    """The content terms of a whole text: the union of its sentences' terms. Without CJK
    characters that is the terms of the text read in one pass (a sentence split only cuts at
    whitespace, which no word holds), half the cost of splitting it first; a CJK bigram
    could straddle a sentence end, so CJK text takes the union.

    >>> sorted(text_terms("She painted sunrises. At the lake!"))
    ['lake', 'paint', 'sunris']
    """
    if not has_cjk(text):
        return frozenset(content_terms(text))
    return frozenset().union(*analysed(text)[1])


@lru_cache(maxsize=65536)
def _sentence_tokens(sentence: str) -> int:
    """cl100k count of a sentence (memoised: long turns are compressed for query after query)."""
    return count_tokens(sentence)


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text`` (a bracketed note such as an image caption is its own).

    >>> split_sentences("Hi! I moved. [shares an image]")
    ['Hi!', 'I moved.', '[shares an image]']
    >>> split_sentences("我搬到了杭州。那里很美！")
    ['我搬到了杭州。', '那里很美！']
    """
    pattern = _SENTENCE_ASCII if text.isascii() else _SENTENCE
    return [s.strip() for s in pattern.split(text) if s.strip()]
