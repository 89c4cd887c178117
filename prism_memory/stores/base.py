"""The storage protocol every engine implements, and the engine-neutral query types.

Design:
- A store holds ``MemoryRecord`` payloads with two named vectors: ``dense`` (cosine) and
  ``bm25`` (sparse, IDF modifier), and in a store created with a CJK embedder a third,
  ``dense_cjk`` (cosine), present only on records whose text holds CJK characters
  (docs/multilingual.md). Every operation takes a :class:`Scope`; the engine ANDs it
  into the filter itself, so isolation never depends on the caller remembering to filter.
- Retrieval is expressed as *routes* (:class:`RouteQuery`): one vector search or ordering each,
  all sent to the engine in one batch. Per-route hit lists come back so the caller can fuse them
  (pure functions in ``retrieval/fusion.py``) and know which routes found each record.
  Ranking is retrieval's: a store never fuses or scores, and imports nothing from
  ``retrieval/``; :func:`hybrid_routes` builds the two routes of a hybrid search, and
  ``retrieval.hybrid.hybrid_query`` fuses what they return.
- :class:`StoreBase` holds the logic both engines share.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from ..records import MemoryRecord, Scope
from ..sparse import SparseVec
from .filters import RecordFilter

__all__ = [
    "BM25_VECTOR",
    "CJK_VECTOR",
    "DATETIME_FIELDS",
    "DATETIME_INDEXES",
    "DENSE_VECTOR",
    "FLOAT_INDEXES",
    "KEYWORD_INDEXES",
    "MemoryStore",
    "PointData",
    "RouteHit",
    "RouteQuery",
    "StoreBase",
    "hybrid_routes",
    "in_scope",
    "scoped_points",
    "stable_order",
]

DENSE_VECTOR = "dense"
BM25_VECTOR = "bm25"
#: the multilingual vector of records with CJK text (stores created with a CJK embedder)
CJK_VECTOR = "dense_cjk"

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
    "link_keys",  # links.py: the entity/event graph's nodes (retrieval/graph.py)
    "source_ids",
    "extraction",  # "pending": a user turn whose LLM extraction has not run yet
)
FLOAT_INDEXES: tuple[str, ...] = ("ts", "utility", "importance")
DATETIME_INDEXES: tuple[str, ...] = ("event_time", "created_at")
#: datetime fields filtered by range without an index (validity windows, ``as_of`` reads)
DATETIME_FIELDS: tuple[str, ...] = ("updated_at", "valid_from", "valid_to")


@dataclass
class PointData:
    """A record with its vectors, ready to upsert."""

    record: MemoryRecord
    dense: list[float]
    sparse: SparseVec
    #: the CJK embedder's vector (records with CJK text, in a store that has ``dense_cjk``)
    cjk: list[float] | None = None


@dataclass
class RouteQuery:
    """One retrieval route: a dense or sparse nearest-neighbour search, or an ordering.

    ``using="order"`` returns the newest records by ``ts`` (no vector needed).
    ``filter`` is ANDed with the request's base filter and the scope.
    """

    name: str
    using: Literal["dense", "dense_cjk", "bm25", "order"]
    vector: list[float] | SparseVec | None = None
    limit: int = 64
    filter: RecordFilter | None = None


@dataclass
class RouteHit:
    id: str
    score: float
    payload: dict[str, Any]
    vector: list[float] | None = None


def hybrid_routes(dense: list[float], sparse: SparseVec, prefetch_limit: int) -> list[RouteQuery]:
    """The two routes of a hybrid search: dense, and BM25 when the query has terms."""
    routes = [RouteQuery("dense", "dense", dense, prefetch_limit)]
    if sparse:
        routes.append(RouteQuery("bm25", "bm25", sparse, prefetch_limit))
    return routes


def stable_order(hits: list[RouteHit], using: str) -> list[RouteHit]:
    """Hits best first with ties broken on id, so every engine returns the same order.

    Engines order equal scores arbitrarily (Qdrant Edge differs from run to run on BM25 ties),
    which would change RRF ranks; vector routes sort on ``(-score, id)``, the ``order`` route
    on ``(-ts, id)``.
    """
    if using == "order":
        return sorted(hits, key=lambda h: (-float(h.payload.get("ts") or 0.0), h.id))
    return sorted(hits, key=lambda h: (-h.score, h.id))


@runtime_checkable
class MemoryStore(Protocol):
    """What PRISM needs from a storage engine. Both engines pass one congruence suite."""

    @property
    def dim(self) -> int: ...

    def upsert(self, points: Sequence[PointData]) -> None: ...

    def get(
        self, ids: Sequence[str], scope: Scope, *, with_vectors: bool = False
    ) -> list[MemoryRecord]: ...

    def get_vectors(
        self, ids: Sequence[str], scope: Scope, *, vector: str = DENSE_VECTOR
    ) -> dict[str, list[float]]: ...

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
        with_payload: bool = True,
    ) -> dict[str, list[RouteHit]]: ...

    def get_points(
        self, ids: Sequence[str], scope: Scope, *, vector: str = DENSE_VECTOR
    ) -> dict[str, RouteHit]: ...

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


def scoped_points(
    got: Iterable[Any], scope: Scope, vector: str = DENSE_VECTOR
) -> dict[str, RouteHit]:
    """Points an engine retrieved by id, as hits with score 0 (payload and the named
    vector), keeping only those of ``scope``: what ``get_points`` returns on every engine."""
    allowed = scope.as_dict()
    out: dict[str, RouteHit] = {}
    for r in got:
        payload = r.payload or {}
        if in_scope(payload, allowed):
            vec = r.vector.get(vector) if isinstance(r.vector, dict) else None
            out[str(r.id)] = RouteHit(str(r.id), 0.0, payload, list(vec) if vec else None)
    return out


class StoreBase(ABC):
    """Logic shared by the engines; subclasses implement the primitive operations."""

    #: size of the ``dense_cjk`` vector (0: the store has none) and the embedder that made it
    _cjk_dim: int = 0
    _cjk_embedder: str = ""

    @property
    def cjk_dim(self) -> int:
        """Size of the store's ``dense_cjk`` vectors; 0 when it was created without one."""
        return self._cjk_dim

    @property
    def cjk_embedder(self) -> str:
        """Name of the embedder of the store's ``dense_cjk`` vectors ("" without one)."""
        return self._cjk_embedder

    def _runnable(self, r: RouteQuery) -> bool:
        """Whether a route can run: a BM25 query with terms, a CJK route on a store with it."""
        if r.using == "bm25":
            return bool(r.vector)
        if r.using == CJK_VECTOR:
            return self._cjk_dim > 0 and bool(r.vector)
        return True

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
        with_payload: bool = True,
    ) -> dict[str, list[RouteHit]]:
        """Run every route in one batch; per-route hit lists, best first.

        ``with_payload=False``: hits carry ids and scores only (an ``order`` route keeps
        ``ts``, its sort key), for a caller that fetches the payloads of the hits it keeps
        with :meth:`get_points`; loading payloads is most of a route's cost when records are
        long."""

    @abstractmethod
    def get_points(
        self, ids: Sequence[str], scope: Scope, *, vector: str = DENSE_VECTOR
    ) -> dict[str, RouteHit]:
        """Payload and ``vector`` (the named vector; ``dense`` by default) of each record of
        ``ids`` in ``scope`` (missing ids and records of other scopes left out), as hits with
        score 0."""

    @abstractmethod
    def get_vectors(
        self, ids: Sequence[str], scope: Scope, *, vector: str = DENSE_VECTOR
    ) -> dict[str, list[float]]:
        """The ``vector`` vectors (``dense`` by default) of the records ``ids`` in ``scope``
        (missing ids and records without that vector left out)."""
