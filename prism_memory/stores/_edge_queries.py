"""What ``EdgeStore`` sends to the engine and reads back: points, route queries, facets.

Design:
- Pure translations between PRISM's values and the engine's, no engine call and no lock:
  a write's ``PointData`` become engine points with their estimated size (for the disk-space
  check, :func:`engine_points`); a recall's routes become one batch of query requests
  (:func:`route_requests`) and its answers ``RouteHit`` lists in a stable order
  (:func:`route_hits`); a facet's engine values become plain strings (:func:`facet_counts`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..errors import EmbeddingDimensionError
from ..records import Scope
from ._edge_engine import edge_filter, qdrant_edge
from .base import (
    BM25_VECTOR,
    CJK_VECTOR,
    DENSE_VECTOR,
    PointData,
    RouteHit,
    RouteQuery,
    stable_order,
)
from .filters import RecordFilter

__all__ = ["engine_points", "facet_counts", "route_hits", "route_requests"]


def engine_points(points: Sequence[PointData], dim: int, cjk_dim: int) -> tuple[list[Any], int]:
    """The engine points of ``points`` and their size in bytes (payload, dense and sparse);
    :class:`EmbeddingDimensionError` for a vector of another size than the store's ``dim``."""
    q = qdrant_edge()
    batch = []
    size = 0
    for p in points:
        if len(p.dense) != dim:
            raise EmbeddingDimensionError(
                f"a {len(p.dense)}-dimensional vector was written to a {dim}-dimensional "
                "store; use the embedder the store was created with"
            )
        vector: dict[str, Any] = {DENSE_VECTOR: p.dense}
        if p.cjk is not None and cjk_dim:
            vector[CJK_VECTOR] = p.cjk
        if p.sparse:
            vector[BM25_VECTOR] = q.SparseVector(indices=p.sparse.indices, values=p.sparse.values)
        payload = p.record.to_payload()
        size += len(json.dumps(payload)) + 4 * len(p.dense) + 8 * len(p.sparse.indices)
        batch.append(q.Point(id=p.record.id, vector=vector, payload=payload))
    return batch, size


def _route_query(r: RouteQuery) -> Any:
    q = qdrant_edge()
    if r.using == "order":
        return q.OrderBy(key="ts", direction=q.Direction.Desc)
    if r.using == "bm25":
        sv = r.vector
        assert sv is not None and not isinstance(sv, list)
        return q.Query.Nearest(
            q.SparseVector(indices=sv.indices, values=sv.values), using=BM25_VECTOR
        )
    return q.Query.Nearest(
        list(r.vector) if isinstance(r.vector, list) else [],
        using=CJK_VECTOR if r.using == CJK_VECTOR else DENSE_VECTOR,
    )


def route_requests(
    scope: Scope,
    routes: Sequence[RouteQuery],
    flt: RecordFilter | None,
    *,
    with_vectors: bool,
    with_payload: bool,
) -> list[Any]:
    """One engine query request per route (all runnable), in the order of ``routes``."""
    q = qdrant_edge()
    requests = []
    for r in routes:
        with_vector: Any = [DENSE_VECTOR] if with_vectors else False
        payload: Any = True if with_payload else (["ts"] if r.using == "order" else False)
        requests.append(
            q.QueryRequest(
                limit=r.limit,
                query=_route_query(r),
                filter=edge_filter(scope, flt, r.filter),
                with_payload=payload,
                with_vector=with_vector,
            )
        )
    return requests


def route_hits(
    routes: Sequence[RouteQuery],
    live: Sequence[RouteQuery],
    batches: Sequence[Any],
    *,
    with_vectors: bool,
) -> dict[str, list[RouteHit]]:
    """The hits of every route (empty for those not run), each in a stable order."""
    out: dict[str, list[RouteHit]] = {r.name: [] for r in routes}
    for r, points in zip(live, batches):
        hits = []
        for p in points:
            vec = None
            if with_vectors and isinstance(p.vector, dict):
                vec = list(p.vector.get(DENSE_VECTOR, []))
            hits.append(RouteHit(str(p.id), float(p.score), p.payload or {}, vec))
        out[r.name] = stable_order(hits, r.using)
    return out


def facet_counts(resp: Any) -> list[tuple[str, int]]:
    """The (value, count) pairs of an engine facet response, values as plain strings."""
    out = []
    for hit in resp.hits:
        value = hit.value
        value = getattr(value, "value", value)
        s = str(value)
        if s.startswith("Keyword(") and s.endswith(")"):
            s = s[len("Keyword(") : -1].strip('"')
        out.append((s, int(hit.count)))
    return out
