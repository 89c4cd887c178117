"""Memories for tests: the real embedded engine with a small fake embedder and no screen, and
records as store points with their real vectors."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from prism_memory import Embedder, FakeEmbedder, Memory, MemoryRecord
from prism_memory.config import PrismConfig, SafetyConfig
from prism_memory.sparse import SparseEncoder
from prism_memory.stores import PointData


def open_memory(path: Path, **kwargs: Any) -> Memory:
    """A ``Memory`` on ``path`` with a 64-dimension fake embedder and the screen off (unless
    ``config=`` says otherwise); other keyword arguments go to ``Memory``."""
    config = kwargs.pop("config", None) or PrismConfig(safety=SafetyConfig(screen="off"))
    return Memory(path=path, embedder=FakeEmbedder(dim=64), config=config, **kwargs)


def embedded_points(records: Sequence[MemoryRecord], embedder: Embedder) -> list[PointData]:
    """``records`` as store points with ``embedder``'s dense and the BM25 sparse vectors of
    their texts, as the write path would store them."""
    texts = [r.text for r in records]
    dense = embedder.embed_documents(texts)
    sparse = SparseEncoder().documents(texts)
    return [PointData(r, d, s) for r, d, s in zip(records, dense, sparse)]
