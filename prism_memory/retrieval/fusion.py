"""Fusion of per-route hit lists into one candidate pool (pure functions).

Design:
- Input is what ``MemoryStore.query_routes`` returns: ``{route: [RouteHit, ...]}`` best first.
- RRF (default): ``sum_r w_r / (k + rank_r)``; rank-based, so routes with incomparable score
  scales (cosine, BM25) mix safely. DBSF: each route's scores normalised by mean +- 3 sigma
  to [0, 1], then summed with the route weights.
- Output :class:`Candidate` keeps the ranks per route (the trace shows which routes found a
  record) and the first dense vector seen (for semantic scoring and dedup without a refetch).
- ``Candidate`` and RRF live in ``stores.base`` (the stores' own ``hybrid_query`` fuses with
  the same function); this module adds DBSF and the method switch. Ties break on id.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Literal

from ..stores.base import Candidate, RouteHit, collect, ranked, rrf

__all__ = ["Candidate", "dbsf", "fuse", "rrf"]


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
