"""Dense embedders: the protocol, the offline fastembed default, a LangChain adapter and a fake."""

from __future__ import annotations

from typing import Any

from ..errors import ConfigError
from .base import Embedder
from .fake import FakeEmbedder
from .fastembed import FastEmbedEmbedder, offline_model_available
from .langchain import LangChainEmbedder

__all__ = [
    "Embedder",
    "FakeEmbedder",
    "FastEmbedEmbedder",
    "LangChainEmbedder",
    "offline_model_available",
    "resolve_embedder",
]


def resolve_embedder(embedder: Any, default_model: str, batch_size: int = 16) -> Embedder:
    """Turn what a user passed as ``embedder=`` into an :class:`Embedder`.

    ``None`` -> the configured fastembed model; a ``str`` -> that fastembed model; a LangChain
    ``Embeddings`` -> wrapped; anything with ``embed_documents``/``embed_query``/``dim`` -> as is.
    """
    if embedder is None:
        return FastEmbedEmbedder(default_model, batch_size=batch_size)
    if isinstance(embedder, str):
        return FastEmbedEmbedder(embedder, batch_size=batch_size)
    if isinstance(embedder, Embedder):
        return embedder
    if hasattr(embedder, "embed_documents") and hasattr(embedder, "embed_query"):
        return LangChainEmbedder(embedder)
    raise ConfigError(
        f"embedder={type(embedder).__name__!r} is not usable: pass a fastembed model name, a "
        "LangChain Embeddings object, or an object with dim, name, embed_documents and embed_query"
    )
