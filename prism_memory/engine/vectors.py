"""The vectors of a record: what they are computed from, and how a batch is embedded.

Design:
- A record's dense and BM25 vectors are computed from its text after its speaker
  (:func:`embedding_text`); the shown text is unchanged.
- One embedding batch per write (:func:`record_points`): dense vectors already known are
  reused, a record sharing another's vector (an extracted event and its turn) is not embedded
  again, BM25 is the store's sparse encoder, and texts holding CJK characters get their
  ``dense_cjk`` vector when the store has one.
- CJK vectors are kept per text in a bounded LRU (:class:`CjkVectors`): a turn is written to
  the buffer, then as an episodic record, and its words recur in what is extracted from it.
  A store without the vector is told once in the log how to get it.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..records import MemoryRecord
from ..sparse import has_cjk
from ..stores import PointData

__all__ = ["CjkVectors", "embedding_text", "record_points"]

log = logging.getLogger("prism_memory")

_CJK_CACHE = 4096  # texts whose CJK vectors are kept (2 KB each)


def embedding_text(record: MemoryRecord) -> str:
    """What the dense and BM25 vectors of a record are computed from: the text, after its speaker.

    A turn's words rarely name who said them, but questions about it do ("what did Priya
    research?"); embedding ``"Priya: I researched solar installers"`` lets the vector
    carry both (on LoCoMo this doubles dense recall@5). The shown text is unchanged.
    """
    return f"{record.speaker}: {record.text}" if record.speaker else record.text


def record_points(
    records: Sequence[MemoryRecord],
    embedder: Any,
    sparse: Any,
    cjk_vectors: Callable[[Sequence[str]], dict[int, list[float]]],
    *,
    dense: Mapping[str, list[float]] | None = None,
    same_vector_as: Mapping[str, str] | None = None,
) -> list[PointData]:
    """Dense + sparse (+ CJK) vectors for records, one embedding batch.

    ``dense``: dense vectors already known, by record id (not embedded again);
    ``same_vector_as``: record id -> id of another record of the batch whose dense vector
    it shares (an extracted event and its turn), so each text is embedded once.
    """
    known = dict(dense or {})
    share = {k: v for k, v in (same_vector_as or {}).items() if k not in known}
    batch_ids = {r.id for r in records}
    todo = [r for r in records if r.id not in known and share.get(r.id) not in batch_ids]
    for r, vec in zip(todo, embedder.embed_documents([embedding_text(r) for r in todo])):
        known[r.id] = vec
    vectors = [known.get(r.id) or known[share[r.id]] for r in records]
    texts = [embedding_text(r) for r in records]
    sparse_vectors = sparse.documents(texts)
    cjk = cjk_vectors(texts)
    return [
        PointData(r, d, s, cjk.get(i))
        for i, (r, d, s) in enumerate(zip(records, vectors, sparse_vectors))
    ]


class CjkVectors:
    """The ``dense_cjk`` vectors of texts, kept per text (an LRU of ``limit`` texts).

    Example::

        cjk = CjkVectors()
        cjk.vectors(["我换车了", "hello"], cjk_embedder, dense_name="minilm", wanted=True)
        # {0: [...]}: only the text holding CJK characters
    """

    def __init__(self, limit: int = _CJK_CACHE) -> None:
        self.limit = limit
        self._cache: OrderedDict[str, list[float]] = OrderedDict()
        self._lock = threading.Lock()
        self._told_none = False

    def vectors(
        self, texts: Sequence[str], embedder: Any, *, dense_name: str, wanted: bool
    ) -> dict[int, list[float]]:
        """The vectors of the texts holding CJK characters, by position; none when
        ``embedder`` is ``None`` (the store has no such vector: told once in the log how to
        get it when ``wanted``, i.e. a CJK model is configured)."""
        idx = [i for i, t in enumerate(texts) if has_cjk(t)]
        if not idx:
            return {}
        if embedder is None:
            if not self._told_none and wanted:
                self._told_none = True
                log.info(
                    "CJK text stored with the keyword route and %s only; for multilingual "
                    "recall install prism-memory[zh] and use a new store",
                    dense_name,
                )
            return {}
        cache = self._cache
        with self._lock:
            out = {i: cache[texts[i]] for i in idx if texts[i] in cache}
        todo = sorted({texts[i] for i in idx if i not in out})
        if todo:
            fresh = dict(zip(todo, embedder.embed_documents(todo)))
            with self._lock:
                cache.update(fresh)
                while len(cache) > self.limit:
                    cache.popitem(last=False)
            out.update({i: fresh[texts[i]] for i in idx if texts[i] in fresh})
        return out
