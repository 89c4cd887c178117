"""Fusion of per-route hit lists into one candidate pool (pure functions).

Design:
- Input is what ``MemoryStore.query_routes`` returns: ``{route: [RouteHit, ...]}`` best first.
- RRF (default): ``sum_r w_r / (k + rank_r)``; rank-based, so routes with incomparable score
  scales (cosine, BM25) mix safely. DBSF: each route's scores normalised by mean +- 3 sigma
  to [0, 1], then summed with the route weights.
- Output :class:`Candidate` keeps the ranks per route (the trace shows which routes found a
  record) and the first dense vector seen (for semantic scoring and dedup without a refetch).
- Ties break on id, so both engines give the same order.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..stores.base import RouteHit, rrf_fuse

__all__ = ["Candidate", "dbsf", "fuse", "rrf", "rrf_fuse"]


@dataclass
class Candidate:
    """One record found by the broad retrieve."""

    id: str
    payload: dict[str, Any]
    vector: list[float] | None = None
    fused: float = 0.0
    ranks: dict[str, int] = field(default_factory=dict)
    route_scores: dict[str, float] = field(default_factory=dict)


def _collect(results: Mapping[str, list[RouteHit]]) -> dict[str, Candidate]:
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


def _ranked(pool: dict[str, Candidate], limit: int | None) -> list[Candidate]:
    out = sorted(pool.values(), key=lambda c: (-c.fused, c.id))
    return out if limit is None else out[:limit]


def rrf(
    results: Mapping[str, list[RouteHit]],
    *,
    k: int = 60,
    weights: Mapping[str, float] | None = None,
    limit: int | None = None,
) -> list[Candidate]:
    """Reciprocal-rank fusion.

    >>> a, b = RouteHit("a", 0.9, {}), RouteHit("b", 0.8, {})
    >>> [c.id for c in rrf({"dense": [a, b], "bm25": [b]})]
    ['b', 'a']
    """
    pool = _collect(results)
    for c in pool.values():
        c.fused = sum(
            (1.0 if weights is None else weights.get(r, 1.0)) / (k + rank + 1)
            for r, rank in c.ranks.items()
        )
    return _ranked(pool, limit)


def dbsf(
    results: Mapping[str, list[RouteHit]],
    *,
    weights: Mapping[str, float] | None = None,
    limit: int | None = None,
) -> list[Candidate]:
    """Distribution-based score fusion: per-route scores normalised by mean +- 3 sigma.

    Routes without a meaningful score (an ordering) contribute by rank instead.

    >>> hits = {"dense": [RouteHit("a", 0.9, {}), RouteHit("b", 0.1, {})]}
    >>> [round(c.fused, 2) for c in dbsf(hits)]
    [0.67, 0.33]
    """
    pool = _collect(results)
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
    return _ranked(pool, limit)


def fuse(
    results: Mapping[str, list[RouteHit]],
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
