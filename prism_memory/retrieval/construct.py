"""Stage 2 (LazyMem "construct selectively"), first half: score and select the candidates.

Design:
- Score every candidate with the PRISM objectives (``scoring.py``); the cosine to the query
  comes from the vectors the broad retrieve already returned (numpy, no refetch).
- Select: drop expired (``valid_to`` passed), superseded and quarantined records; drop
  candidates only meaning found (no lexical, entity, time or task support) whose relevance
  (query cosine) is below ``relevance_floor`` x the best
  candidate's (:func:`relevance_floor`: relative to the query's best hit, so calibrated to the
  embedder in use; a context may be shorter than its budget: budgets are a ceiling, never a
  quota), candidates no lexical/entity/task route supports whose cosine is below
  ``min_semantic``, and those whose score is far below the best (``relative_floor``) -- a
  small store must not pad the context with unrelated memories; drop near-duplicates (cosine
  above ``dedup_threshold``, optionally MMR re-ranking); flag contradictions (``contradicts``
  relations) in trace and text.
- The second half, compressing and packing what is selected into the budget, is
  ``packing.py``.
- The same stage serves the LlamaIndex postprocessor: it turns nodes from any retriever into
  candidates (one synthetic record per node) and runs :func:`score_candidates`,
  :func:`select` and ``packing.place`` (the greedy placement ``packing.pack`` uses, with the
  node's own token count as its line cost).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from ..config import RetrievalConfig
from ..records import Kind, MemoryRecord, Status, Trust, is_record_id
from .context import CandidateTrace, RecallTrace
from .fusion import Candidate
from .intent import Intent
from .render import section_of
from .scoring import (
    ScoreParts,
    combine,
    freshness,
    intent_match,
    semantic_score,
    task_relevance,
)
from .text import analysed, content_terms, is_filler, names_or_numbers, text_terms

__all__ = [
    "Scored",
    "low_information",
    "prism_total",
    "relevance_floor",
    "score_candidates",
    "select",
]

DENSE_ROUTES = frozenset({"dense", "entity", "speaker", "time"})  # scores are cosines
_ROUTES_WITH_EVIDENCE = frozenset({"bm25", "entity", "speaker", "time", "recent", "buffer"})


@dataclass
class Scored:
    """A candidate with its parsed record and PRISM score."""

    record: MemoryRecord
    vector: np.ndarray | None
    cosine: float | None
    parts: ScoreParts
    total: float
    section: str
    trace: CandidateTrace
    routes: list[str] = field(default_factory=list)
    neighbour_of: str | None = None


def prism_total(
    parts: ScoreParts, record: MemoryRecord, weights: Mapping[str, float], config: RetrievalConfig
) -> float:
    """The PRISM score from its parts: the weighted objectives plus the intent boost, times
    ``confidence ** confidence_factor`` (derived records, summaries and rule facts, are less
    sure than the turns they come from)."""
    total = combine(parts, weights, config.intent_boost)
    if config.confidence_factor > 0:
        total *= record.confidence**config.confidence_factor
    return total


def score_candidates(
    candidates: Sequence[Candidate],
    query_vector: Sequence[float],
    intent: Intent,
    config: RetrievalConfig,
    *,
    now: datetime,
    buffer_session: str | None,
    trace: RecallTrace,
    as_of: datetime | None = None,
    calibrate: Callable[[float], float] | None = None,
) -> list[Scored]:
    """Parse and score the fused pool (best first). Records that must not be shown are cut;
    ``as_of``: a state valid at that time is shown even if it was superseded since.

    The cosine of a candidate is its best score on the dense routes (cosines in
    ``query_vector``'s space), else the cosine of its vector, put on the reference scale by
    ``calibrate`` (``retrieval/calibration.py``) before it meets any threshold."""
    if not candidates:
        return []
    top = max(c.fused for c in candidates) or 1.0
    weights = {**config.weights, **intent.weights}
    out: list[Scored] = []
    for c in candidates:
        ct = CandidateTrace(c.id, dict(c.ranks), round(c.fused, 6))
        trace.candidates.append(ct)
        record = MemoryRecord.from_payload(c.payload)
        cut = _hidden(record, now=now, as_of=as_of)
        if cut is not None:
            ct.outcome = cut
            continue
        vec = np.asarray(c.vector, dtype=np.float32) if c.vector else None
        cos = _cosine(c, vec, query_vector, calibrate)
        parts = ScoreParts(
            semantic=semantic_score(c.fused / top, cos, config.semantic_mix),
            fresh=freshness(record.time, now, config.freshness_half_life_days),
            task=task_relevance(record, intent),
            utility=record.utility,
            importance=record.importance,
            match=intent_match(record, intent),
        )
        total = prism_total(parts, record, weights, config)
        ct.scores = {**parts.as_dict(), "cosine": round(cos or 0.0, 4), "total": round(total, 4)}
        section = section_of(record, buffer_session)
        ct.section = section
        out.append(Scored(record, vec, cos, parts, total, section, ct, sorted(c.ranks)))
    out.sort(key=lambda s: (-s.total, s.record.id))
    return out


def _hidden(record: MemoryRecord, *, now: datetime, as_of: datetime | None) -> str | None:
    """Why a record must not be shown (a trace outcome), or None: quarantined, superseded
    (unless it was the valid state at ``as_of``) or expired."""
    if record.provenance.trust == Trust.QUARANTINED:
        return "cut:quarantined"
    valid_then = (
        as_of is not None
        and record.status == Status.SUPERSEDED
        and (record.valid_from is None or record.valid_from <= as_of)
        and (record.valid_to is None or record.valid_to > as_of)
    )
    if record.status != Status.ACTIVE and not valid_then:
        return "cut:superseded"
    if record.valid_to is not None and record.valid_to <= now:
        return "cut:expired"
    return None


def _cosine(
    c: Candidate,
    vec: np.ndarray | None,
    query_vector: Sequence[float],
    calibrate: Callable[[float], float] | None,
) -> float | None:
    """The candidate's best dense-route score, else the cosine of its vector to the query,
    put on the reference scale by ``calibrate``; None when neither is known."""
    dense_scores = [v for r, v in c.route_scores.items() if r in DENSE_ROUTES]
    cos = max(dense_scores) if dense_scores else None
    if cos is None and vec is not None and len(query_vector) == vec.shape[0]:
        cos = float(np.dot(vec, np.asarray(query_vector, dtype=np.float32)))
    if cos is not None and calibrate is not None:
        cos = calibrate(cos)
    return cos


def relevance_floor(scored: Sequence[Scored], share: float) -> float | None:
    """The relevance below which a candidate that only meaning found is not worth its tokens:
    ``share`` of the best relevance (query cosine) among the candidates that could answer --
    the current session's turns and questions aside (a question asked before, "What should I
    cook tonight?", sits close to the query without answering it). ``None`` (no floor) when
    ``share`` is 0 or no candidate has a relevance. Relative to the query's best hit, so it
    is calibrated to whatever embedder produced the cosines.

    >>> from types import SimpleNamespace as S
    >>> def c(cos, text="Refunds within 60 days."):
    ...     return S(cosine=cos, section="semantic", record=S(text=text))
    >>> relevance_floor([c(0.9, "Any refunds?"), c(0.68), c(0.1)], 0.5)
    0.34
    """
    if share <= 0:
        return None
    cosines = [
        s.cosine
        for s in scored
        if s.cosine is not None
        and s.section != "buffer"
        and not s.record.text.rstrip().endswith(("?", "？"))
    ]
    best = max(cosines, default=0.0)
    return share * best if best > 0 else None


def low_information(record: MemoryRecord, query_terms: AbstractSet[str]) -> bool:
    """A turn that takes context budget without carrying anything: an assistant, tool or
    system turn every sentence of which is filler (at most two content words, none from the
    query, no number and no name: "Noted.", "Got it, thanks!", "Sounds good."), or any turn
    with no content word at all ("ok", "yes!"). The user's own short statements ("I'm
    vegan") are kept: they are often the fact itself.

    >>> turn = MemoryRecord(text="Noted!", user_id="a", layer="episodic", kind="observation",
    ...                     metadata={"role": "assistant"})
    >>> booked = turn.model_copy(update={"text": "Booked for 8pm."})
    >>> low_information(turn, set()), low_information(booked, set())
    (True, False)
    """
    role = record.metadata.get("role")
    if role is None or record.kind != Kind.OBSERVATION:
        return False
    if not text_terms(record.text):
        return True
    if role == "user" or names_or_numbers(record.text):
        return False  # a sentence holding a number or a name is not filler: no split needed
    sentences, infos = analysed(record.text)
    terms = set(query_terms)
    return all(is_filler(sent, info, terms) for sent, info in zip(sentences, infos))


def select(
    scored: list[Scored], config: RetrievalConfig, trace: RecallTrace, *, query: str = ""
) -> list[Scored]:
    """Relevance floors, low-information turns, near-duplicate removal (threshold or MMR),
    contradiction flags."""
    if not scored:
        return []
    best = scored[0].total
    floor = relevance_floor(scored, config.relevance_floor)
    query_terms = content_terms(query)
    kept: list[Scored] = []
    for s in scored:
        supported = bool(set(s.routes) & _ROUTES_WITH_EVIDENCE) or s.parts.task >= 0.7
        if low_information(s.record, query_terms):
            s.trace.outcome = "cut:low_information"
            continue
        if s.section == "buffer":
            pass  # the current session's turns are always eligible for the recent section
        elif not supported and s.cosine is not None and s.cosine < config.min_semantic:
            s.trace.outcome = "cut:low_similarity"
            continue
        elif not supported and floor is not None and s.cosine is not None and s.cosine < floor:
            s.trace.outcome = "cut:below_relevance_floor"
            continue
        elif s.total < config.min_score or s.total < config.relative_floor * best:
            s.trace.outcome = "cut:low_score"
            continue
        kept.append(s)
    kept = _dedup(kept, config)
    ids = {s.record.id: s for s in kept}
    for s in kept:
        for rel in s.record.relations:
            other = ids.get(rel.target_id)
            if rel.type in ("contradicts", "conflicts") and other is not None:
                newer, older = sorted(
                    (s.record, other.record),
                    key=lambda r: (r.valid_from or r.time, r.id),
                    reverse=True,
                )
                newer.metadata["_conflict"] = "newer"
                older.metadata["_conflict"] = "older"
                older.metadata["_newer"] = newer.id
                pair = (newer.id, older.id)
                if pair not in trace.contradictions:
                    trace.contradictions.append(pair)
    return kept


def _jaccard_matrix(term_sets: Sequence[frozenset[str]]) -> np.ndarray:
    """Pairwise word-set Jaccard similarity.

    Only terms held by two or more sets can be shared, so the incidence matrix has a column
    for those alone (a long turn's other words only count in its size), and its product is an
    integer one: numpy computes it without BLAS, whose threads cost more than the product for
    a few dozen rows (and far more on a busy machine). Exact: the same numbers as
    ``|a & b| / |a | b|`` computed pair by pair.

    >>> _jaccard_matrix([frozenset("ab"), frozenset("bc"), frozenset()]).round(2).tolist()
    [[1.0, 0.33, 0.0], [0.33, 1.0, 0.0], [0.0, 0.0, 0.0]]
    """
    n = len(term_sets)
    seen = Counter(itertools.chain.from_iterable(term_sets))
    shared = {t: k for k, t in enumerate(t for t, c in seen.items() if c > 1)}
    inc = np.zeros((n, max(1, len(shared))), dtype=np.int32)
    for row, terms in enumerate(term_sets):
        inc[row, [shared[t] for t in terms if t in shared]] = 1
    size = np.fromiter(map(len, term_sets), dtype=np.float64, count=n)
    inter = (inc @ inc.T).astype(np.float64)
    np.fill_diagonal(inter, size)
    union = size[:, None] + size[None, :] - inter
    out: np.ndarray = np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)
    return out


def _related(a: MemoryRecord, b: MemoryRecord) -> bool:
    """A turn and a record derived from it, or two different records derived from one turn
    (an occupation and a home city)."""
    if a.id in b.provenance.source_ids or b.id in a.provenance.source_ids:
        return True
    if a.kind == Kind.OBSERVATION or b.kind == Kind.OBSERVATION or a.text == b.text:
        return False
    turns_a = {i for i in a.provenance.source_ids if is_record_id(i)}
    return bool(turns_a & set(b.provenance.source_ids))


def _dedup(items: list[Scored], config: RetrievalConfig) -> list[Scored]:
    """Near-duplicate removal: cosine of the vectors when present, else word-set Jaccard."""
    if len(items) < 2:
        return items
    with_vec = all(s.vector is not None for s in items)
    lam = config.mmr_lambda if with_vec else 1.0
    if with_vec:
        mat = np.stack([s.vector for s in items if s.vector is not None])
        sims = mat @ mat.T
    else:
        sims = _jaccard_matrix([text_terms(s.record.text) for s in items])
    remaining = list(range(len(items)))
    chosen: list[int] = []

    def sim_to_chosen(i: int) -> float:
        return float(sims[i, chosen].max()) if chosen else 0.0

    while remaining:
        if lam < 1.0 and chosen:
            nxt = max(remaining, key=lambda i: lam * items[i].total - (1 - lam) * sim_to_chosen(i))
        else:
            nxt = remaining[0]
        remaining.remove(nxt)
        dup = None
        if chosen:
            close = np.flatnonzero(sims[nxt, chosen] >= config.dedup_threshold)
            # a turn and a record made from it, or two records of one turn, share the turn's
            # vector but not their content: never near-duplicates (packing keeps a turn once)
            dup = next(
                (
                    chosen[k]
                    for k in close
                    if not _related(items[nxt].record, items[chosen[k]].record)
                ),
                None,
            )
        if dup is None:
            chosen.append(nxt)
            continue
        # same content twice: keep the copy that costs fewer tokens, at the better score
        if len(items[nxt].record.text) < len(items[dup].record.text):
            items[dup].trace.outcome = "cut:duplicate"
            items[nxt].total = max(items[nxt].total, items[dup].total)
            chosen[chosen.index(dup)] = nxt
        else:
            items[nxt].trace.outcome = "cut:duplicate"
    return [items[i] for i in chosen]
