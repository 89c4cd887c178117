"""Fusion of per-route hit lists into one candidate pool (pure functions).

Design:
- Input is what ``MemoryStore.query_routes`` returns: ``{route: [RouteHit, ...]}`` best first.
- RRF (default): ``sum_r w_r / (k + rank_r)``; rank-based, so routes with incomparable score
  scales (cosine, BM25) mix safely. DBSF: each route's scores normalised by mean +- 3 sigma
  to [0, 1], then summed with the route weights.
- Output :class:`Candidate` keeps the ranks per route (the trace shows which routes found a
  record) and the first dense vector seen (for semantic scoring and dedup without a refetch).
- This is the one place records are fused: ``Memory.search`` (:func:`scored_records`), the
  recall pipeline (:func:`fuse`) and ``retrieval.hybrid.hybrid_query`` all call it.
  Ties break on id, so every engine gives the same order.
- A :class:`ScoredRecord` carries two numbers: ``rank_score`` is the fused value (the order),
  ``score`` is the relevance of ``scoring.relevance`` (cosine of query and record vectors,
  clipped to [0, 1]) computed from the vectors the routes returned or, for the hits that need
  a score, fetched by id after fusion (one call without a threshold: cheaper than having the
  routes return the vectors of the whole prefetch). ``score_threshold`` drops hits below a
  relevance before ``limit`` is applied; it never reorders.
- Hits are typed structurally (:class:`Hit`: ``id``, ``score``, ``payload``, ``vector``), so
  this module imports nothing from ``stores/``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from ..records import MemoryRecord, ScoredRecord
from .scoring import relevance

__all__ = [
    "Candidate",
    "Hit",
    "collect",
    "dbsf",
    "fuse",
    "ranked",
    "rrf",
    "scored_records",
    "with_payloads",
]


class Hit(Protocol):
    """One route's hit (``stores.base.RouteHit``): id, score, payload, dense vector if asked."""

    @property
    def id(self) -> str: ...

    @property
    def score(self) -> float: ...

    @property
    def payload(self) -> dict[str, Any]: ...

    @property
    def vector(self) -> list[float] | None: ...


@dataclass
class Candidate:
    """One record found by the broad retrieve: its payload, first dense vector seen, fused
    score, and its rank and score in every route that found it."""

    id: str
    payload: dict[str, Any]
    vector: list[float] | None = None
    fused: float = 0.0
    ranks: dict[str, int] = field(default_factory=dict)
    route_scores: dict[str, float] = field(default_factory=dict)


def collect(results: Mapping[str, Sequence[Hit]]) -> dict[str, Candidate]:
    """One :class:`Candidate` per record id, with its best rank in each route."""
    pool: dict[str, Candidate] = {}
    for route, hits in results.items():
        for rank, hit in enumerate(hits):
            c = pool.get(hit.id)
            if c is None:
                c = pool[hit.id] = Candidate(hit.id, hit.payload, hit.vector)
            elif c.vector is None and hit.vector is not None:
                c.vector = hit.vector
            if route not in c.ranks:
                c.ranks[route] = rank
                c.route_scores[route] = hit.score
    return pool


def ranked(pool: Mapping[str, Candidate], limit: int | None) -> list[Candidate]:
    """Best fused score first; ties break on id so both engines give the same order."""
    out = sorted(pool.values(), key=lambda c: (-c.fused, c.id))
    return out if limit is None else out[:limit]


def rrf(
    results: Mapping[str, Sequence[Hit]],
    *,
    k: int = 60,
    weights: Mapping[str, float] | None = None,
    limit: int | None = None,
) -> list[Candidate]:
    """Reciprocal-rank fusion: ``sum_r w_r / (k + rank_r + 1)`` over the routes that found a
    record (rank-based, so cosine and BM25 scales mix safely).

    >>> from prism_memory.stores.base import RouteHit
    >>> a, b = RouteHit("a", 0.9, {}), RouteHit("b", 0.8, {})
    >>> [c.id for c in rrf({"dense": [a, b], "bm25": [b]})]
    ['b', 'a']
    """
    pool = collect(results)
    for c in pool.values():
        c.fused = sum(
            (1.0 if weights is None else weights.get(r, 1.0)) / (k + rank + 1)
            for r, rank in c.ranks.items()
        )
    return ranked(pool, limit)


def with_payloads(candidates: Sequence[Candidate], points: Mapping[str, Hit]) -> list[Candidate]:
    """The candidates still stored, each given its payload from ``points`` (the store's
    ``get_points`` for routes that ran without payloads); a record gone in between is left
    out, order kept.

    >>> from prism_memory.stores.base import RouteHit
    >>> cs = [Candidate("a", {}), Candidate("b", {})]
    >>> [(c.id, c.payload) for c in with_payloads(cs, {"b": RouteHit("b", 0.0, {"x": 1})})]
    [('b', {'x': 1})]
    """
    kept = []
    for c in candidates:
        point = points.get(c.id)
        if point is not None:
            c.payload = point.payload
            kept.append(c)
    return kept


#: the route whose score is the query-record cosine (``retrieval.routes`` names it so)
DENSE_ROUTE = "dense"


def scored_records(
    results: Mapping[str, Sequence[Hit]],
    query: Sequence[float],
    *,
    k: int = 60,
    limit: int | None = None,
    score_threshold: float | None = None,
    keep_vectors: bool = False,
    fetch_vectors: Callable[[list[str]], Mapping[str, list[float]]] | None = None,
    fetch_points: Callable[[list[str]], Mapping[str, Hit]] | None = None,
) -> list[ScoredRecord]:
    """RRF of the routes as :class:`ScoredRecord` hits (what ``Memory.search`` returns), in
    fusion order: ``rank_score`` the fused value, ``score`` the relevance of the record's
    vector to ``query``, the routes that found it and its score in each.

    The vectors come with the hits, or from ``fetch_vectors`` (ids -> vectors, e.g. the
    store's ``get_vectors``) for the hits that need a score: the best ``limit`` in one call,
    and when ``score_threshold`` dropped some, the rest of the pool in a second one. Hits
    whose relevance is below ``score_threshold`` are dropped before ``limit``;
    ``keep_vectors`` keeps each hit's dense vector on ``vector``.

    ``fetch_points`` (ids -> hits with payload and vector, the store's ``get_points``) is for
    routes that ran without payloads: the hits kept get theirs in the same one or two calls,
    and a record gone in between is left out.

    >>> from prism_memory.stores.base import RouteHit
    >>> hits = {"dense": [RouteHit("a", 0.6, {"text": "a", "user_id": "u"}, [0.6, 0.8])],
    ...         "bm25": [RouteHit("b", 3.0, {"text": "b", "user_id": "u"}, [0.0, 1.0])]}
    >>> [(h.record.text, round(h.score, 2)) for h in scored_records(hits, [1.0, 0.0])]
    [('a', 0.6), ('b', 0.0)]
    >>> [h.record.text for h in scored_records(hits, [1.0, 0.0], score_threshold=0.5)]
    ['a']
    """
    pool = rrf(results, k=k)
    out: list[ScoredRecord] = []
    start = 0
    while start < len(pool) and (limit is None or len(out) < limit):
        end = len(pool) if limit is None or start > 0 else limit
        chunk, from_points = _with_vectors(
            pool[start:end], keep_vectors, fetch_vectors, fetch_points
        )
        start = end
        for c in chunk:
            if limit is not None and len(out) >= limit:
                break
            score = _relevance(c, query, from_points)
            if score_threshold is not None and score < score_threshold:
                continue
            out.append(
                ScoredRecord(
                    record=MemoryRecord.from_payload(c.payload),
                    score=score,
                    routes=sorted(c.ranks),
                    route_scores=c.route_scores,
                    rank_score=c.fused,
                    vector=c.vector if keep_vectors else None,
                )
            )
    return out


def _with_vectors(
    chunk: list[Candidate],
    keep_vectors: bool,
    fetch_vectors: Callable[[list[str]], Mapping[str, list[float]]] | None,
    fetch_points: Callable[[list[str]], Mapping[str, Hit]] | None,
) -> tuple[list[Candidate], bool]:
    """The chunk with the vectors a relevance score needs (one fetch), and whether they came
    from ``fetch_points`` (which also fills payloads and leaves out records gone since).

    The dense route's score is already the cosine of query and record (the engine's Cosine
    distance on the same normalised vectors): only hits the dense route did not find need
    their vector fetched, unless ``keep_vectors`` asks for every hit's vector."""
    if fetch_points is not None:
        points = fetch_points([c.id for c in chunk])
        chunk = with_payloads(chunk, points)
        for c in chunk:
            c.vector = c.vector or points[c.id].vector
        return chunk, True
    missing = [
        c.id
        for c in chunk
        if c.vector is None and (keep_vectors or DENSE_ROUTE not in c.route_scores)
    ]
    if missing and fetch_vectors is not None:
        fetched = fetch_vectors(missing)
        for c in chunk:
            if c.vector is None:
                c.vector = fetched.get(c.id)
    return chunk, False


def _relevance(c: Candidate, query: Sequence[float], from_points: bool) -> float:
    """The dense route's cosine (clipped to [0, 1]) when it found the record and no vector
    was fetched for it, else the relevance of the record's vector to ``query``."""
    if DENSE_ROUTE in c.route_scores and (c.vector is None or from_points):
        return min(1.0, max(0.0, float(c.route_scores[DENSE_ROUTE])))
    return relevance(query, c.vector)


def dbsf(
    results: Mapping[str, Sequence[Hit]],
    *,
    weights: Mapping[str, float] | None = None,
    limit: int | None = None,
) -> list[Candidate]:
    """Distribution-based score fusion: per-route scores normalised by mean +- 3 sigma.

    Routes without a meaningful score (an ordering) contribute by rank instead.

    >>> from prism_memory.stores.base import RouteHit
    >>> hits = {"dense": [RouteHit("a", 0.9, {}), RouteHit("b", 0.1, {})]}
    >>> [round(c.fused, 2) for c in dbsf(hits)]
    [0.67, 0.33]
    """
    pool = collect(results)
    for route, hits in results.items():
        if not hits:
            continue
        w = 1.0 if weights is None else weights.get(route, 1.0)
        scores = [h.score for h in hits]
        mean = sum(scores) / len(scores)
        sd = math.sqrt(sum((s - mean) ** 2 for s in scores) / len(scores))
        lo, hi = mean - 3 * sd, mean + 3 * sd
        for rank, h in enumerate(hits):
            if hi > lo:
                norm = min(1.0, max(0.0, (h.score - lo) / (hi - lo)))
            else:
                norm = 1.0 - rank / len(hits)
            c = pool[h.id]
            if c.ranks.get(route) == rank:  # count a record once per route
                c.fused += w * norm
    return ranked(pool, limit)


def fuse(
    results: Mapping[str, Sequence[Hit]],
    *,
    method: Literal["rrf", "dbsf"] = "rrf",
    k: int = 60,
    weights: Mapping[str, float] | None = None,
    limit: int | None = None,
) -> list[Candidate]:
    """Fuse with the configured method."""
    if method == "dbsf":
        return dbsf(results, weights=weights, limit=limit)
    return rrf(results, k=k, weights=weights, limit=limit)
