"""Store over ``qdrant-client``: a Qdrant server or cluster (``url=``), or ``location=":memory:"``.

Design:
- Same collection layout as the embedded engine: named vectors ``dense`` (cosine) and ``bm25``
  (sparse, IDF modifier); keyword payload indexes, ``user_id`` with ``is_tenant``.
- Only APIs that behave the same on a server: ``query_batch_points``, ``scroll``, ``count``,
  ``retrieve``, ``delete`` / ``set_payload`` by filter, ``facet``.
- Connection failures become :class:`StoreUnavailableError` naming the URL; writes use
  ``wait=True`` so an acknowledged write is durable on the server.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from ..errors import EmbeddingDimensionError, StoreError, StoreUnavailableError
from ..records import MemoryRecord, Scope, is_record_id
from ..sparse import SPARSE_VERSION
from .base import (
    BM25_VECTOR,
    CJK_VECTOR,
    DATETIME_FIELDS,
    DATETIME_INDEXES,
    DENSE_VECTOR,
    FLOAT_INDEXES,
    KEYWORD_INDEXES,
    PointData,
    RouteHit,
    RouteQuery,
    StoreBase,
    in_scope,
    scoped_points,
    stable_order,
)
from .filters import Condition, RecordFilter

__all__ = ["QdrantStore"]

log = logging.getLogger("prism_memory")

T = TypeVar("T")


def _m() -> Any:
    from qdrant_client import models

    return models


def _condition(c: Condition) -> Any:
    m = _m()
    if c.key == "id":
        ids = c.value if c.op == "any" else [c.value]
        return m.HasIdCondition(has_id=[str(i) for i in ids])
    if c.op == "eq":
        return m.FieldCondition(key=c.key, match=m.MatchValue(value=c.value))
    if c.op == "any":
        return m.FieldCondition(key=c.key, match=m.MatchAny(any=list(c.value)))
    if c.op == "empty":
        return m.IsEmptyCondition(is_empty=m.PayloadField(key=c.key))
    if c.op == "range":
        if c.key in DATETIME_INDEXES or c.key in DATETIME_FIELDS:
            return m.FieldCondition(key=c.key, range=m.DatetimeRange(**c.value))
        return m.FieldCondition(key=c.key, range=m.Range(**c.value))
    raise StoreError(f"unsupported filter operation {c.op!r}")


def _filter(
    scope: Scope | None, flt: RecordFilter | None = None, extra: RecordFilter | None = None
) -> Any:
    m = _m()
    must: list[Any] = [
        m.FieldCondition(key=k, match=m.MatchValue(value=v))
        for k, v in (scope.as_dict() if scope is not None else {}).items()
    ]
    must_not: list[Any] = []
    for f in (flt, extra):
        if f is not None:
            must += [_condition(c) for c in f.must]
            must_not += [_condition(c) for c in f.must_not]
    return m.Filter(must=must, must_not=must_not or None)


class QdrantStore(StoreBase):
    """Qdrant server / cluster store (``Memory(url=...)``) or a throwaway ``":memory:"`` one.

    Setup:
        >>> store = QdrantStore(location=":memory:", dim=8)
        >>> store.dim
        8
    """

    def __init__(
        self,
        *,
        dim: int,
        url: str | None = None,
        api_key: str | None = None,
        location: str | None = None,
        collection: str = "prism_memory",
        timeout_s: float = 10.0,
        embedder_name: str = "",
        client: Any = None,
        cjk_dim: int = 0,
        cjk_embedder: str = "",
    ) -> None:
        from qdrant_client import QdrantClient

        self._dim = dim
        self._sparse_version = SPARSE_VERSION
        self._cjk_dim, self._cjk_embedder = cjk_dim, cjk_embedder
        self.collection = collection
        self._where = url or location or "qdrant"
        self._is_server = url is not None
        if client is not None:
            self._client = client
        elif url is not None:
            # the client's own version check runs on a background thread and warns even when
            # the server is down; check once here instead, after the server has answered
            self._client = QdrantClient(
                url=url, api_key=api_key, timeout=int(max(1, timeout_s)), check_compatibility=False
            )
        else:
            self._client = QdrantClient(location=location or ":memory:")
        self._call(self._ensure_collection, embedder_name)
        if self._is_server and client is None:
            self._call(self._check_server_version)

    # -- plumbing -------------------------------------------------------------------
    def _call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        try:
            return fn(*args, **kwargs)
        except (EmbeddingDimensionError, StoreError):
            raise
        except Exception as exc:
            name = type(exc).__name__
            text = str(exc)
            if _is_transport_error(exc) or any(
                s in name or s in text
                for s in (
                    "Connect",
                    "Timeout",
                    "timed out",
                    "refused",
                    "Name or service",
                    "ResponseHandlingException",
                )
            ):
                raise StoreUnavailableError(
                    f"the Qdrant server at {self._where} did not answer ({name}: {text[:200]}); "
                    "check the URL and that the server is running, or use the embedded store "
                    "with Memory(path=...)"
                ) from exc
            raise StoreError(f"Qdrant at {self._where} failed: {name}: {text[:300]}") from exc

    def _check_server_version(self) -> None:
        from importlib.metadata import version

        server = str(self._client.info().version)
        ours = version("qdrant-client")
        try:
            s_major, s_minor = (int(x) for x in server.split(".")[:2])
            c_major, c_minor = (int(x) for x in ours.split(".")[:2])
        except ValueError:
            return  # a development build: nothing to compare
        if s_major != c_major or abs(s_minor - c_minor) > 1:
            log.warning(
                "the Qdrant server at %s runs %s and qdrant-client is %s; versions more than one "
                "minor release apart may disagree: upgrade the older one",
                self._where,
                server,
                ours,
            )

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def sparse_version(self) -> int:
        """The BM25 tokenizer version the collection's sparse vectors were written with
        (recorded in the collection's metadata on a server; 1 for one created before)."""
        return self._sparse_version

    def _ensure_collection(self, embedder_name: str) -> None:
        m = _m()
        c = self._client
        if c.collection_exists(self.collection):
            info = c.get_collection(self.collection)
            vectors = info.config.params.vectors
            size = (
                vectors[DENSE_VECTOR].size
                if isinstance(vectors, dict) and DENSE_VECTOR in vectors
                else None
            )
            if size is None:
                raise StoreError(
                    f"collection {self.collection!r} at {self._where} was not created by PRISM (no "
                    "'dense' vector); pass another collection name via PrismConfig.store.collection"
                )
            meta = getattr(info.config, "metadata", None) or {}
            self._sparse_version = int(meta.get("prism_sparse", 1))
            # the CJK vector is part of the collection's layout: what it has decides
            cjk = vectors.get(CJK_VECTOR)
            self._cjk_dim = int(cjk.size) if cjk is not None else 0
            self._cjk_embedder = str(meta.get("prism_cjk_embedder", "")) if cjk else ""
            if size != self._dim:
                raise EmbeddingDimensionError(
                    f"collection {self.collection!r} at {self._where} holds {size}-dimensional "
                    f"vectors but the embedder makes {self._dim}-dimensional ones; use the original "
                    "embedder or another collection"
                )
            return
        c.create_collection(
            self.collection,
            vectors_config={
                DENSE_VECTOR: m.VectorParams(size=self._dim, distance=m.Distance.COSINE),
                **(
                    {CJK_VECTOR: m.VectorParams(size=self._cjk_dim, distance=m.Distance.COSINE)}
                    if self._cjk_dim
                    else {}
                ),
            },
            sparse_vectors_config={BM25_VECTOR: m.SparseVectorParams(modifier=m.Modifier.IDF)},
            metadata={
                "prism_embedder": embedder_name,
                "prism_sparse": SPARSE_VERSION,
                "prism_cjk_embedder": self._cjk_embedder if self._cjk_dim else "",
            },
        )
        if not self._is_server:
            return  # local mode ignores payload indexes (and warns about each one)
        for name in KEYWORD_INDEXES:
            schema: Any = m.KeywordIndexParams(
                type=m.KeywordIndexType.KEYWORD, is_tenant=name == "user_id"
            )
            c.create_payload_index(self.collection, name, field_schema=schema)
        for name in FLOAT_INDEXES:
            c.create_payload_index(self.collection, name, field_schema=m.PayloadSchemaType.FLOAT)
        for name in DATETIME_INDEXES:
            c.create_payload_index(self.collection, name, field_schema=m.PayloadSchemaType.DATETIME)

    def info(self) -> dict[str, Any]:
        i = self._call(self._client.get_collection, self.collection)
        return {
            "engine": "qdrant-server" if self._is_server else "qdrant-client-local",
            "where": self._where,
            "collection": self.collection,
            "points": i.points_count,
            "indexed_vectors": i.indexed_vectors_count,
            "dim": self._dim,
        }

    def flush(self) -> None:
        """Writes are acknowledged with ``wait=True``; nothing is buffered client-side."""

    def purge(self) -> None:
        """The server vacuums deleted points itself; nothing to do client-side."""

    def close(self) -> None:
        try:
            self._client.close()
        except Exception:  # closing twice or a dead server must not raise from close()
            pass

    # -- writes ---------------------------------------------------------------------
    def upsert(self, points: Sequence[PointData]) -> None:
        if not points:
            return
        m = _m()
        batch = []
        for p in points:
            if len(p.dense) != self._dim:
                raise EmbeddingDimensionError(
                    f"a {len(p.dense)}-dimensional vector was written to a {self._dim}-dimensional "
                    "collection; use the embedder the collection was created with"
                )
            vector: dict[str, Any] = {DENSE_VECTOR: p.dense}
            if p.cjk is not None and self._cjk_dim:
                vector[CJK_VECTOR] = p.cjk
            if p.sparse:
                vector[BM25_VECTOR] = m.SparseVector(
                    indices=p.sparse.indices, values=p.sparse.values
                )
            batch.append(
                m.PointStruct(id=p.record.id, vector=vector, payload=p.record.to_payload())
            )
        self._call(self._client.upsert, self.collection, points=batch, wait=True)

    def set_payload(self, ids: Sequence[str], scope: Scope, payload: dict[str, Any]) -> None:
        valid = [i for i in ids if is_record_id(i)]  # a server rejects non-UUID ids
        if not valid:
            return
        m = _m()
        f = _filter(scope, RecordFilter.any_of("id", valid))
        self._call(
            self._client.set_payload,
            self.collection,
            payload=payload,
            points=m.FilterSelector(filter=f),
            wait=True,
        )

    def delete(self, ids: Sequence[str], scope: Scope) -> int:
        valid = [i for i in ids if is_record_id(i)]
        if not valid:
            return 0
        return self.delete_by_filter(scope, RecordFilter.any_of("id", valid))

    def delete_by_filter(self, scope: Scope, flt: RecordFilter | None = None) -> int:
        m = _m()
        f = _filter(scope, flt)
        n = self._call(self._client.count, self.collection, count_filter=f, exact=True).count
        if n:
            self._call(
                self._client.delete,
                self.collection,
                points_selector=m.FilterSelector(filter=f),
                wait=True,
            )
        return int(n)

    # -- reads ----------------------------------------------------------------------
    def get(
        self, ids: Sequence[str], scope: Scope, *, with_vectors: bool = False
    ) -> list[MemoryRecord]:
        valid = [i for i in ids if is_record_id(i)]
        if not valid:
            return []
        got = self._call(self._client.retrieve, self.collection, ids=valid, with_payload=True)
        allowed = scope.as_dict()
        by_id = {
            str(r.id): MemoryRecord.from_payload(r.payload or {})
            for r in got
            if in_scope(r.payload, allowed)
        }
        return [by_id[i] for i in valid if i in by_id]

    def get_vectors(
        self, ids: Sequence[str], scope: Scope, *, vector: str = DENSE_VECTOR
    ) -> dict[str, list[float]]:
        valid = [i for i in ids if is_record_id(i)]
        if not valid:
            return {}
        allowed = scope.as_dict()
        got = self._call(
            self._client.retrieve,
            self.collection,
            ids=valid,
            with_payload=list(allowed),
            with_vectors=[vector],
        )
        out: dict[str, list[float]] = {}
        for r in got:
            if in_scope(r.payload, allowed) and isinstance(r.vector, dict) and r.vector.get(vector):
                out[str(r.id)] = list(r.vector[vector])
        return out

    def get_points(
        self, ids: Sequence[str], scope: Scope, *, vector: str = DENSE_VECTOR
    ) -> dict[str, RouteHit]:
        valid = [i for i in ids if is_record_id(i)]
        if not valid:
            return {}
        got = self._call(
            self._client.retrieve,
            self.collection,
            ids=valid,
            with_payload=True,
            with_vectors=[vector],
        )
        return scoped_points(got, scope, vector)

    def _scroll(
        self, scope: Scope | None, flt: RecordFilter | None, *, limit: int, cursor: str | None
    ) -> tuple[list[MemoryRecord], str | None]:
        records, nxt = self._call(
            self._client.scroll,
            self.collection,
            scroll_filter=_filter(scope, flt),
            limit=limit,
            offset=cursor or None,
            with_payload=True,
            with_vectors=False,
        )
        return [MemoryRecord.from_payload(r.payload or {}) for r in records], (
            str(nxt) if nxt is not None else None
        )

    def count(self, scope: Scope, flt: RecordFilter | None = None) -> int:
        return int(
            self._call(
                self._client.count, self.collection, count_filter=_filter(scope, flt), exact=True
            ).count
        )

    def facet(
        self, key: str, scope: Scope, flt: RecordFilter | None = None, *, limit: int = 100
    ) -> list[tuple[str, int]]:
        resp = self._call(
            self._client.facet,
            self.collection,
            key=key,
            facet_filter=_filter(scope, flt),
            limit=limit,
            exact=True,
        )
        return [(str(h.value), int(h.count)) for h in resp.hits]

    def query_routes(
        self,
        scope: Scope,
        routes: Sequence[RouteQuery],
        flt: RecordFilter | None = None,
        *,
        with_vectors: bool = False,
        with_payload: bool = True,
    ) -> dict[str, list[RouteHit]]:
        live = [r for r in routes if self._runnable(r)]
        requests = [
            _route_request(r, _filter(scope, flt, r.filter), with_vectors, with_payload)
            for r in live
        ]
        results = (
            self._call(self._client.query_batch_points, self.collection, requests=requests)
            if requests
            else []
        )
        out: dict[str, list[RouteHit]] = {r.name: [] for r in routes}
        for r, res in zip(live, results):
            hits = []
            for p in res.points:
                vec = None
                if with_vectors and isinstance(p.vector, dict):
                    vec = list(p.vector.get(DENSE_VECTOR, []))
                hits.append(RouteHit(str(p.id), float(p.score), p.payload or {}, vec))
            out[r.name] = stable_order(hits, r.using)
        return out


def _route_request(r: RouteQuery, f: Any, with_vectors: bool, with_payload: bool) -> Any:
    """One route as a request of the server's batch query: newest first by ``ts`` for an
    ordering, else a nearest-neighbour search on the route's named vector."""
    m = _m()
    with_vector: Any = [DENSE_VECTOR] if with_vectors else False
    payload: Any = True if with_payload else (["ts"] if r.using == "order" else False)
    if r.using == "order":
        return m.QueryRequest(
            query=m.OrderByQuery(order_by=m.OrderBy(key="ts", direction=m.Direction.DESC)),
            filter=f,
            limit=r.limit,
            with_payload=payload,
            with_vector=with_vector,
        )
    if r.using == "bm25":
        sv = r.vector
        assert sv is not None and not isinstance(sv, list)
        query: Any = m.SparseVector(indices=sv.indices, values=sv.values)
        using = BM25_VECTOR
    else:
        query = list(r.vector) if isinstance(r.vector, list) else []
        using = CJK_VECTOR if r.using == CJK_VECTOR else DENSE_VECTOR
    return m.QueryRequest(
        query=query,
        using=using,
        filter=f,
        limit=r.limit,
        with_payload=payload,
        with_vector=with_vector,
    )


def _is_transport_error(exc: BaseException) -> bool:
    """Whether ``exc`` (or what caused it) means the server was not reached or did not answer."""
    import httpx
    from qdrant_client.http.exceptions import ResponseHandlingException

    seen: BaseException | None = exc
    for _ in range(5):
        if seen is None:
            return False
        if isinstance(
            seen, (httpx.TransportError, ResponseHandlingException, ConnectionError, TimeoutError)
        ):
            return True
        seen = seen.__cause__ or seen.__context__
    return False
