"""The embedder protocol: texts in, L2-normalised float vectors out."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

__all__ = ["Embedder"]


@runtime_checkable
class Embedder(Protocol):
    """Anything that turns texts into fixed-size dense vectors.

    ``dim`` is the vector size; ``name`` identifies the model (stored with the collection so a
    later mismatch is caught). ``embed_query`` may differ from ``embed_documents`` for
    asymmetric models; for MiniLM they are the same.
    """

    @property
    def dim(self) -> int: ...

    @property
    def name(self) -> str: ...

    def embed_documents(self, texts: list[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...
