"""Adapter for any LangChain ``Embeddings`` (e.g. ``langchain_openai.OpenAIEmbeddings``)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings

__all__ = ["LangChainEmbedder"]


def _normalise(vec: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vec)) or 1.0
    return [float(x) / norm for x in vec]


class LangChainEmbedder:
    """Wrap a LangChain ``Embeddings`` object as a PRISM embedder.

    Example:
        >>> from langchain_core.embeddings import DeterministicFakeEmbedding
        >>> emb = LangChainEmbedder(DeterministicFakeEmbedding(size=8))
        >>> emb.dim
        8
    """

    def __init__(
        self, embeddings: Embeddings, *, name: str | None = None, dim: int | None = None
    ) -> None:
        self._inner = embeddings
        self._name = (
            name or f"langchain:{type(embeddings).__name__}:{getattr(embeddings, 'model', '')}"
        )
        self._dim = dim

    @property
    def name(self) -> str:
        return self._name

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = len(self.embed_query("dimension probe"))
        return self._dim

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        return [_normalise(v) for v in self._inner.embed_documents(texts)]

    def embed_query(self, text: str) -> list[float]:
        return _normalise(self._inner.embed_query(text))
