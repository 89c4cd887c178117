"""``hybrid_query``: dense + BM25 over one scope, fused by RRF, scored by relevance — the
two-route search of an integration's own records (``RecordStore.search``) and of the stated
fact look-up, without intent or construction.

Design: the store runs the two routes (:func:`~prism_memory.stores.base.hybrid_routes`) in one
batched call and returns the hits of each (``MemoryStore.query_routes``); fusion and the
relevance score are retrieval's (:func:`~prism_memory.retrieval.fusion.scored_records`), with
the store's ``get_vectors`` fetching the vectors of the hits kept. A store never fuses.
"""

from __future__ import annotations

from ..records import Scope, ScoredRecord
from ..sparse import SparseVec
from ..stores import MemoryStore, RecordFilter
from ..stores.base import hybrid_routes
from .fusion import scored_records

__all__ = ["hybrid_query"]


def hybrid_query(
    store: MemoryStore,
    scope: Scope,
    dense: list[float],
    sparse: SparseVec,
    flt: RecordFilter | None = None,
    *,
    limit: int = 10,
    prefetch_limit: int = 64,
    rrf_k: int = 60,
    with_vectors: bool = False,
    score_threshold: float | None = None,
) -> list[ScoredRecord]:
    """Dense + BM25 prefetch of ``store`` in one batched call, fused by RRF; each hit's
    ``score`` is its relevance to ``dense`` (vectors fetched by id for the hits kept), hits
    below ``score_threshold`` are dropped; ``with_vectors`` returns every hit's vector with
    the routes and keeps it on the hit.

    >>> hits = hybrid_query(engine.store, Scope(user_id="alice"),  # doctest: +SKIP
    ...                     engine.embedder.embed_query("tea"), engine.sparse.query("tea"))
    """
    results = store.query_routes(
        scope, hybrid_routes(dense, sparse, prefetch_limit), flt, with_vectors=with_vectors
    )
    return scored_records(
        results,
        dense,
        k=rrf_k,
        limit=limit,
        score_threshold=score_threshold,
        keep_vectors=with_vectors,
        fetch_vectors=lambda ids: store.get_vectors(ids, scope),
    )
