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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from ..records import MemoryRecord, Scope, ScoredRecord
from ..sparse import SparseVec
from .filters import RecordFilter

__all__ = [
    "BM25_VECTOR",
    "DENSE_VECTOR",
    "Candidate",
    "MemoryStore",
    "PointData",
    "RouteHit",
    "RouteQuery",
    "StoreBase",
    "collect",
    "in_scope",
    "ranked",
    "rrf",
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
    "extraction",  # "pending": a user turn whose LLM extraction has not run yet
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
class Candidate:
    """One record found by the broad retrieve: its payload, first dense vector seen, fused
    score, and its rank and score in every route that found it."""

    id: str
    payload: dict[str, Any]
    vector: list[float] | None = None
    fused: float = 0.0
    ranks: dict[str, int] = field(default_factory=dict)
    route_scores: dict[str, float] = field(default_factory=dict)


def collect(results: Mapping[str, list[RouteHit]]) -> dict[str, Candidate]:
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
    results: Mapping[str, list[RouteHit]],
    *,
    k: int = 60,
    weights: Mapping[str, float] | None = None,
    limit: int | None = None,
) -> list[Candidate]:
    """Reciprocal-rank fusion: ``sum_r w_r / (k + rank_r + 1)`` over the routes that found a
    record (rank-based, so cosine and BM25 scales mix safely).

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


def in_scope(payload: Mapping[str, Any] | None, allowed: Mapping[str, Any]) -> bool:
    """Whether a point fetched by id belongs to the scope (``allowed`` = ``scope.as_dict()``).

    Reads by id cannot carry a filter on every engine, so the payload is checked here: an id
    from another tenant returns nothing rather than that tenant's record.

    >>> in_scope({"user_id": "a", "text": "x"}, {"user_id": "a"})
    True
    >>> in_scope({"user_id": "ab"}, {"user_id": "a"}), in_scope(None, {"user_id": "a"})
    (False, False)
    """
    got = payload or {}
    return all(got.get(k) == v for k, v in allowed.items())


class StoreBase(ABC):
    """Logic shared by the engines; subclasses implement the primitive operations."""

    @abstractmethod
    def _scroll(
        self, scope: Scope | None, flt: RecordFilter | None, *, limit: int, cursor: str | None
    ) -> tuple[list[MemoryRecord], str | None]:
        """One page of records (``scope=None``: every tenant) and the next cursor."""

    def scroll(
        self,
        scope: Scope,
        flt: RecordFilter | None = None,
        *,
        limit: int = 100,
        cursor: str | None = None,
    ) -> tuple[list[MemoryRecord], str | None]:
        return self._scroll(scope, flt, limit=limit, cursor=cursor)

    def scroll_all(
        self, flt: RecordFilter | None = None, *, limit: int = 100, cursor: str | None = None
    ) -> tuple[list[MemoryRecord], str | None]:
        """Every tenant's records (admin export only; never used by a scoped read)."""
        return self._scroll(None, flt, limit=limit, cursor=cursor)

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
        for c in rrf(results, k=rrf_k, limit=limit):
            out.append(
                ScoredRecord(
                    record=MemoryRecord.from_payload(c.payload),
                    score=c.fused,
                    routes=sorted(c.ranks),
                    route_scores=c.route_scores,
                    vector=c.vector,
                )
            )
        return out
