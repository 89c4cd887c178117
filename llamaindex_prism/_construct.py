"""Selective construction on arbitrary candidates: score, drop near-duplicates, pack, order.

Design:
- This is LazyMem's second stage as pure functions over :class:`Candidate` (text, tokens,
  retriever score, similarity to the query, vector, time, utility, importance, task), so it
  runs on nodes from *any* retriever, not only on PRISM records. Framework types stay out:
  ``postprocessor.py`` converts nodes to candidates and back.
- PRISM score = the engine's own formula (``prism_memory.retrieval.scoring.combine``, the
  weighted mean of ``semantic``, ``fresh`` (half-life decay), ``task`` (same task id),
  ``utility`` and ``importance``) with the weights of ``RetrievalConfig.weights``.
  ``semantic`` is the cosine to the query when known, else the retriever's score min-max
  normalised over the candidates (scales differ between retrievers; ranks do not).
- Near-duplicates: greedy in score order, a candidate whose cosine to a kept one is at least
  ``dedup_threshold`` is dropped; without vectors, word-trigram Jaccard stands in.
- Packing: greedy by score into ``budget_tokens``; a candidate that does not fit is skipped
  and smaller ones further down may still fit. Every cut is recorded with its reason.
- ``shrink_context`` cuts a rendered context to a token count by dropping whole lines from
  the end, keeping the opening and closing delimiter lines.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Literal

from prism_memory.records import normalize_text
from prism_memory.retrieval.scoring import ScoreParts, combine, freshness
from prism_memory.tokens import count_tokens

__all__ = [
    "Candidate",
    "ConstructResult",
    "construct",
    "cosine",
    "near_duplicates",
    "node_freshness",
    "pack",
    "semantic_scores",
    "shingle_jaccard",
    "shrink_context",
]

DEFAULT_WEIGHTS: dict[str, float] = {
    "semantic": 0.7,
    "fresh": 0.05,
    "task": 0.1,
    "utility": 0.1,
    "importance": 0.05,
}


@dataclass(frozen=True)
class Candidate:
    """One retrieved item as the construct stage sees it."""

    text: str
    tokens: int
    base_score: float | None = None
    similarity: float | None = None
    vector: Sequence[float] | None = None
    time: datetime | None = None
    utility: float = 0.5
    importance: float = 0.5
    task_id: str | None = None


@dataclass
class ConstructResult:
    """What the construct stage kept (indices into the input, in output order) and why it cut."""

    kept: list[int]
    scores: list[float]
    dropped: dict[int, str] = field(default_factory=dict)
    tokens_in: int = 0
    tokens_out: int = 0

    @property
    def tokens_saved(self) -> int:
        return self.tokens_in - self.tokens_out


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity; 0.0 for a zero vector or mismatched lengths."""
    if len(a) != len(b) or not a:
        return 0.0
    dot = sum(x * y for x, y in zip(a, b))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    if na == 0.0 or nb == 0.0:
        return 0.0
    return dot / (na * nb)


def _shingles(text: str) -> set[tuple[str, ...]]:
    words = re.findall(r"\w+", normalize_text(text))
    if len(words) < 3:
        return {tuple(words)} if words else set()
    return {tuple(words[i : i + 3]) for i in range(len(words) - 2)}


def shingle_jaccard(a: str, b: str) -> float:
    """Jaccard overlap of word trigrams (casefolded): 1.0 for the same text."""
    sa, sb = _shingles(a), _shingles(b)
    if not sa or not sb:
        return 1.0 if normalize_text(a) == normalize_text(b) else 0.0
    return len(sa & sb) / len(sa | sb)


def node_freshness(when: datetime | None, now: datetime, half_life_days: float) -> float:
    """PRISM's half-life freshness; 0.5 (neutral) when a node carries no time."""
    if when is None:
        return 0.5
    return freshness(
        when if when.tzinfo else when.replace(tzinfo=timezone.utc), now, half_life_days
    )


def semantic_scores(candidates: Sequence[Candidate]) -> list[float]:
    """Per-candidate relevance in [0, 1] (see the module docstring)."""
    if candidates and all(c.similarity is not None for c in candidates):
        return [min(1.0, max(0.0, float(c.similarity or 0.0))) for c in candidates]
    known = [c.base_score for c in candidates if c.base_score is not None]
    if not known:  # no scores at all: the retriever's order is the only signal
        n = len(candidates)
        return [1.0 - i / n for i in range(n)]
    lo, hi = min(known), max(known)
    return [
        0.0 if c.base_score is None else (1.0 if hi == lo else (c.base_score - lo) / (hi - lo))
        for c in candidates
    ]


def near_duplicates(
    order: Sequence[int],
    candidates: Sequence[Candidate],
    threshold: float,
    text_threshold: float = 0.8,
) -> dict[int, int]:
    """``{dropped index: index of the kept near-duplicate}``, greedy in ``order``."""
    kept: list[int] = []
    dropped: dict[int, int] = {}
    for i in order:
        ci = candidates[i]
        twin = None
        for j in kept:
            cj = candidates[j]
            if ci.vector is not None and cj.vector is not None:
                similar = cosine(ci.vector, cj.vector) >= threshold
            else:
                similar = shingle_jaccard(ci.text, cj.text) >= text_threshold
            if similar:
                twin = j
                break
        if twin is None:
            kept.append(i)
        else:
            dropped[i] = twin
    return dropped


def pack(
    order: Sequence[int], tokens: Sequence[int], budget_tokens: int | None
) -> tuple[list[int], list[int]]:
    """Greedy packing in ``order``: ``(kept, over_budget)``. ``None`` budget keeps all."""
    if budget_tokens is None:
        return list(order), []
    kept: list[int] = []
    over: list[int] = []
    used = 0
    for i in order:
        if used + tokens[i] <= budget_tokens:
            kept.append(i)
            used += tokens[i]
        else:
            over.append(i)
    return kept, over


def construct(
    candidates: Sequence[Candidate],
    *,
    weights: dict[str, float] | None = None,
    half_life_days: float = 30.0,
    task_id: str | None = None,
    dedup_threshold: float = 0.92,
    text_dup_threshold: float = 0.8,
    budget_tokens: int | None = None,
    top_n: int | None = None,
    min_score: float = 0.0,
    order: Literal["score", "time"] = "score",
    now: datetime | None = None,
) -> ConstructResult:
    """Score, drop near-duplicates, cut to ``top_n`` / ``min_score``, pack, order."""
    now = now or datetime.now(timezone.utc)
    weights = DEFAULT_WEIGHTS if weights is None else weights
    semantic = semantic_scores(candidates)
    scores = [
        combine(
            ScoreParts(
                semantic=semantic[i],
                fresh=node_freshness(c.time, now, half_life_days),
                task=1.0 if task_id is not None and c.task_id == task_id else 0.0,
                utility=c.utility,
                importance=c.importance,
                match=0.0,
            ),
            weights,
            0.0,
        )
        for i, c in enumerate(candidates)
    ]
    ranked = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))
    dropped: dict[int, str] = {}
    for i in ranked:
        if scores[i] < min_score:
            dropped[i] = f"score {scores[i]:.3f} below min_score {min_score}"
    ranked = [i for i in ranked if i not in dropped]
    for i, twin in near_duplicates(ranked, candidates, dedup_threshold, text_dup_threshold).items():
        dropped[i] = f"near-duplicate of candidate {twin}"
    ranked = [i for i in ranked if i not in dropped]
    if top_n is not None:
        for i in ranked[top_n:]:
            dropped[i] = f"beyond top_n={top_n}"
        ranked = ranked[:top_n]
    kept, over = pack(ranked, [c.tokens for c in candidates], budget_tokens)
    for i in over:
        dropped[i] = f"{candidates[i].tokens} tokens do not fit the {budget_tokens}-token budget"
    if order == "time":
        timed = sorted(
            (i for i in kept if candidates[i].time is not None),
            key=lambda i: _utc(candidates[i].time),
        )
        kept = timed + [i for i in kept if candidates[i].time is None]
    return ConstructResult(
        kept=kept,
        scores=scores,
        dropped=dropped,
        tokens_in=sum(c.tokens for c in candidates),
        tokens_out=sum(candidates[i].tokens for i in kept),
    )


def _utc(when: datetime | None) -> datetime:
    if when is None:
        return datetime.min.replace(tzinfo=timezone.utc)
    return when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)


_CLOSING = re.compile(r"^\s*(</[^>]+>|-{3,}|={3,}|`{3,}|\[/[^\]]+\]|\]\s*)\s*$")
_HEADER = re.compile(r"^\s*(#.*|.*:\s*|\[[^\]/]+\]\s*)$")


def shrink_context(text: str, max_tokens: int) -> str:
    """``text`` cut to at most ``max_tokens`` tokens by dropping whole lines from the end.

    The first line (an opening delimiter or title) and a closing delimiter line are kept;
    section headers left without items are dropped. ``""`` when not even that fits.
    """
    if max_tokens <= 0 or not text.strip():
        return ""
    if count_tokens(text) <= max_tokens:
        return text
    lines = text.splitlines()
    footer = [lines.pop()] if len(lines) > 1 and _CLOSING.match(lines[-1]) else []
    header = [lines.pop(0)] if len(lines) > 1 else []
    body = lines
    while body:
        body.pop()
        while body and (not body[-1].strip() or _HEADER.match(body[-1])):
            body.pop()
        candidate = "\n".join(header + body + footer)
        if body and count_tokens(candidate) <= max_tokens:
            return candidate
    return ""
