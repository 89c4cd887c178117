"""``QueryVectors``: the query vectors of the process, per embedder, shared by every pipeline.

Design: a query's vector is a pure function of the embedder and the text, so it is cached by
embedder *object* (identity, held through a weak reference: an embedder that is garbage
collected takes its vectors with it, and a later object at the same address starts empty)
and text, in one LRU per embedder. Every ``Memory`` of a process that uses one embedder
object shares it: a store opened after another (one store per user or per agent, a bench
that opens a store per question) does not embed again what the process embedded before --
the speakers' names (``"user:"``, ``"assistant:"``) that recall weighs every spoken record
against, and any repeated query. An embedder that cannot be weakly referenced gets a cache of
its own, held by the caller. Thread-safe; vectors are shared, never mutated.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable

from ..embeddings import Embedder

__all__ = ["QUERY_VECTORS", "QueryVectors"]

_Lru = OrderedDict[str, list[float]]


class QueryVectors:
    """Query vectors by (embedder object, text): an LRU of ``size`` texts per embedder.

    Setup:
        >>> from prism_memory import FakeEmbedder
        >>> vectors, emb = QueryVectors(size=2), FakeEmbedder(dim=8)

    Use:
        >>> first = vectors.get(emb, "user:")
        >>> vectors.get(emb, "user:") is first   # embedded once for every pipeline
        True
    """

    def __init__(self, size: int) -> None:
        self.size = size
        # re-entrant: a weak reference's callback can run in a collection this lock's holder set off
        self._lock = threading.RLock()
        self._by_id: dict[int, tuple[weakref.ref[Embedder], _Lru]] = {}

    def get(
        self, embedder: Embedder, text: str, local: dict[int, _Lru] | None = None
    ) -> list[float]:
        """The vector of ``text`` by ``embedder``, embedded on a miss. ``local``: the caller's
        own caches, by embedder id, for an embedder that cannot be weakly referenced (the
        caller holds it, so its id stays its own)."""
        with self._lock:
            lru = self._lru(embedder, local)
            vec = lru.get(text)
            if vec is not None:
                lru.move_to_end(text)
                return vec
        vec = embedder.embed_query(text)
        with self._lock:
            lru[text] = vec
            while len(lru) > self.size:
                lru.popitem(last=False)
        return vec

    def _lru(self, embedder: Embedder, local: dict[int, _Lru] | None) -> _Lru:
        key = id(embedder)
        got = self._by_id.get(key)
        if got is not None and got[0]() is embedder:
            return got[1]
        try:
            ref = weakref.ref(embedder, self._forget(key))
        except TypeError:  # no weak references (``__slots__`` without ``__weakref__``)
            return local.setdefault(key, OrderedDict()) if local is not None else OrderedDict()
        lru: _Lru = OrderedDict()
        self._by_id[key] = (ref, lru)
        return lru

    def _forget(self, key: int) -> Callable[[weakref.ref[Embedder]], None]:
        def forget(ref: weakref.ref[Embedder]) -> None:
            with self._lock:
                got = self._by_id.get(key)
                if got is not None and got[0] is ref:
                    del self._by_id[key]

        return forget


#: the process's query vectors (1,024 texts per embedder)
QUERY_VECTORS = QueryVectors(1024)
