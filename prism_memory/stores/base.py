"""The storage protocol every engine implements, and the engine-neutral query types.

Design:
- A store holds ``MemoryRecord`` payloads with two named vectors: ``dense`` (cosine) and
  ``bm25`` (sparse, IDF modifier). Every operation takes a :class:`Scope`; the engine ANDs it
  into the filter itself, so isolation never depends on the caller remembering to filter.
- Retrieval is expressed as *routes* (:class:`RouteQuery`): one vector search or ordering each,
  all sent to the engine in one batch. Per-route hit lists come back so the caller can fuse them
  (pure functions in ``retrieval/fusion.py``) and know which routes found each record.
- :class:`StoreBase` holds the logic both engines share (hybrid query = routes + RRF).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from ..records import MemoryRecord, Scope, ScoredRecord
from ..sparse import SparseVec
from .filters import RecordFilter

__all__ = [
    "BM25_VECTOR",
    "DENSE_VECTOR",
    "MemoryStore",
    "PointData",
    "RouteHit",
    "RouteQuery",
    "StoreBase",
    "rrf_fuse",
    "stable_order",
]

DENSE_VECTOR = "dense"
BM25_VECTOR = "bm25"

# payload fields with a keyword index on both engines
KEYWORD_INDEXES: tuple[str, ...] = (
    "user_id",
    "agent_id",
    "session_id",
    "layer",
    "kind",
    "task_id",
    "subgoal_id",
    "status",
    "trust",
    "source",
    "schema",
    "speaker",
    "entity_keys",
    "source_ids",
)
FLOAT_INDEXES: tuple[str, ...] = ("ts", "utility", "importance")
DATETIME_INDEXES: tuple[str, ...] = ("event_time", "created_at")


@dataclass
class PointData:
    """A record with its vectors, ready to upsert."""

    record: MemoryRecord
    dense: list[float]
    sparse: SparseVec


@dataclass
class RouteQuery:
    """One retrieval route: a dense or sparse nearest-neighbour search, or an ordering.

    ``using="order"`` returns the newest records by ``ts`` (no vector needed).
    ``filter`` is ANDed with the request's base filter and the scope.
    """

    name: str
    using: Literal["dense", "bm25", "order"]
    vector: list[float] | SparseVec | None = None
    limit: int = 64
    filter: RecordFilter | None = None


@dataclass
class RouteHit:
    id: str
    score: float
    payload: dict[str, Any]
    vector: list[float] | None = None


def stable_order(hits: list[RouteHit], using: str) -> list[RouteHit]:
    """Hits best first with ties broken on id, so every engine returns the same order.

    Engines order equal scores arbitrarily (Qdrant Edge differs from run to run on BM25 ties),
    which would change RRF ranks; vector routes sort on ``(-score, id)``, the ``order`` route
    on ``(-ts, id)``.
    """
    if using == "order":
        return sorted(hits, key=lambda h: (-float(h.payload.get("ts") or 0.0), h.id))
    return sorted(hits, key=lambda h: (-h.score, h.id))


@dataclass
class _Fused:
    id: str
    score: float = 0.0
    routes: dict[str, float] = field(default_factory=dict)
    hit: RouteHit | None = None


def rrf_fuse(
    results: dict[str, list[RouteHit]],
    *,
    k: int = 60,
    weights: dict[str, float] | None = None,
    limit: int | None = None,
) -> list[tuple[RouteHit, float, dict[str, float]]]:
    """Reciprocal-rank fusion of per-route hit lists.

    Returns ``(hit, fused_score, {route: route_score})`` best first. Ties break on id so the
    order is deterministic across engines.
    """
    fused: dict[str, _Fused] = {}
    for route, hits in results.items():
        w = 1.0 if weights is None else weights.get(route, 1.0)
        for rank, hit in enumerate(hits):
            f = fused.setdefault(hit.id, _Fused(hit.id))
            f.score += w / (k + rank + 1)
            f.routes[route] = hit.score
            if f.hit is None or (hit.vector is not None and f.hit.vector is None):
                f.hit = hit
    ranked = sorted(fused.values(), key=lambda f: (-f.score, f.id))
    if limit is not None:
        ranked = ranked[:limit]
    return [(f.hit, f.score, f.routes) for f in ranked if f.hit is not None]


@runtime_checkable
class MemoryStore(Protocol):
    """What PRISM needs from a storage engine. Both engines pass one congruence suite."""

    @property
    def dim(self) -> int: ...

    def upsert(self, points: Sequence[PointData]) -> None: ...

    def get(
        self, ids: Sequence[str], scope: Scope, *, with_vectors: bool = False
    ) -> list[MemoryRecord]: ...

    def get_vectors(self, ids: Sequence[str], scope: Scope) -> dict[str, list[float]]: ...

    def delete(self, ids: Sequence[str], scope: Scope) -> int: ...

    def delete_by_filter(self, scope: Scope, flt: RecordFilter | None = None) -> int: ...

    def scroll(
        self,
        scope: Scope,
        flt: RecordFilter | None = None,
        *,
        limit: int = 100,
        cursor: str | None = None,
    ) -> tuple[list[MemoryRecord], str | None]: ...

    def scroll_all(
        self, flt: RecordFilter | None = None, *, limit: int = 100, cursor: str | None = None
    ) -> tuple[list[MemoryRecord], str | None]: ...

    def count(self, scope: Scope, flt: RecordFilter | None = None) -> int: ...

    def info(self) -> dict[str, Any]: ...

    def set_payload(self, ids: Sequence[str], scope: Scope, payload: dict[str, Any]) -> None: ...

    def query_routes(
        self,
        scope: Scope,
        routes: Sequence[RouteQuery],
        flt: RecordFilter | None = None,
        *,
        with_vectors: bool = False,
    ) -> dict[str, list[RouteHit]]: ...

    def hybrid_query(
        self,
        scope: Scope,
        dense: list[float],
        sparse: SparseVec,
        flt: RecordFilter | None = None,
        *,
        limit: int = 10,
        prefetch_limit: int = 64,
        rrf_k: int = 60,
        with_vectors: bool = False,
    ) -> list[ScoredRecord]: ...

    def facet(
        self, key: str, scope: Scope, flt: RecordFilter | None = None, *, limit: int = 100
    ) -> list[tuple[str, int]]: ...

    def flush(self) -> None: ...

    def purge(self) -> None: ...

    def close(self) -> None: ...


class StoreBase(ABC):
    """Logic shared by the engines; subclasses implement the primitive operations."""

    @abstractmethod
    def query_routes(
        self,
        scope: Scope,
        routes: Sequence[RouteQuery],
        flt: RecordFilter | None = None,
        *,
        with_vectors: bool = False,
    ) -> dict[str, list[RouteHit]]:
        """Run every route in one batch; per-route hit lists, best first."""

    def hybrid_query(
        self,
        scope: Scope,
        dense: list[float],
        sparse: SparseVec,
        flt: RecordFilter | None = None,
        *,
        limit: int = 10,
        prefetch_limit: int = 64,
        rrf_k: int = 60,
        with_vectors: bool = False,
    ) -> list[ScoredRecord]:
        """Dense + BM25 prefetch, fused with RRF, in one batched engine call."""
        routes = [RouteQuery("dense", "dense", dense, prefetch_limit)]
        if sparse:
            routes.append(RouteQuery("bm25", "bm25", sparse, prefetch_limit))
        results = self.query_routes(scope, routes, flt, with_vectors=with_vectors)
        out: list[ScoredRecord] = []
        for hit, score, route_scores in rrf_fuse(results, k=rrf_k, limit=limit):
            out.append(
                ScoredRecord(
                    record=MemoryRecord.from_payload(hit.payload),
                    score=score,
                    routes=sorted(route_scores),
                    route_scores=route_scores,
                    vector=hit.vector,
                )
            )
        return out
