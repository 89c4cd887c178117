"""BM25 sparse vectors, the same encoder for every engine.

``qdrant_edge.Bm25`` (pure Rust, offline) turns text into term-frequency sparse vectors; the
collection's ``bm25`` vector has the IDF modifier, so the engine applies IDF at query time.
Documents and queries use different weightings (``embed_document`` vs ``embed_query``).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

__all__ = ["SparseEncoder", "SparseVec"]


@dataclass(frozen=True)
class SparseVec:
    """Engine-neutral sparse vector."""

    indices: list[int]
    values: list[float]

    def __bool__(self) -> bool:
        return bool(self.indices)


class SparseEncoder:
    """English BM25 tokenisation (lower-case, stemming, stopwords), thread-safe.

    Example:
        >>> enc = SparseEncoder()
        >>> bool(enc.document("I prefer window seats"))
        True
    """

    def __init__(self, language: str = "english", avg_len: float = 40.0) -> None:
        self._language = language
        self._avg_len = avg_len
        self._local = threading.local()

    def _model(self) -> Any:
        model = getattr(self._local, "model", None)
        if model is None:
            from qdrant_edge import Bm25, Bm25Config

            model = Bm25(Bm25Config(language=self._language, avg_len=self._avg_len))
            self._local.model = model
        return model

    def document(self, text: str) -> SparseVec:
        v = self._model().embed_document(text)
        return SparseVec(list(v.indices), [float(x) for x in v.values])

    def query(self, text: str) -> SparseVec:
        v = self._model().embed_query(text)
        return SparseVec(list(v.indices), [float(x) for x in v.values])

    def documents(self, texts: list[str]) -> list[SparseVec]:
        return [self.document(t) for t in texts]
