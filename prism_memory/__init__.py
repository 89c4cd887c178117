"""PRISM: long-term memory for LLM agents.

Four layers (buffer, working, episodic, semantic), schema-constrained facts, and a two-stage,
intent-aware, token-budgeted recall over Qdrant.

>>> from prism_memory import Memory  # doctest: +SKIP
>>> with Memory(path="./.prism") as m:  # doctest: +SKIP
...     m.add("I prefer window seats", user_id="alice", kind="preference")
"""

from __future__ import annotations

from .config import (
    BufferConfig,
    ExtractionConfig,
    LifecycleConfig,
    PrismConfig,
    RetrievalConfig,
    SafetyConfig,
    StoreConfig,
)
from .embeddings import Embedder, FakeEmbedder, FastEmbedEmbedder, LangChainEmbedder
from .errors import (
    ConfigError,
    EmbeddingDimensionError,
    ExtractionError,
    ImportDataError,
    NotFoundError,
    PrismError,
    ScopeError,
    StoreError,
    StoreLockedError,
    StoreUnavailableError,
    ValidationError,
)
from .memory import ImportReport, Memory, RecordPage
from .records import (
    Entity,
    Kind,
    Layer,
    MemoryRecord,
    Provenance,
    Relation,
    Scope,
    ScoredRecord,
    Source,
    Status,
    Trust,
)
from .stores import EdgeStore, MemoryStore, QdrantStore

__version__ = "0.1.0"

__all__ = [
    "BufferConfig",
    "ConfigError",
    "EdgeStore",
    "Embedder",
    "EmbeddingDimensionError",
    "Entity",
    "ExtractionConfig",
    "ExtractionError",
    "FakeEmbedder",
    "FastEmbedEmbedder",
    "ImportDataError",
    "ImportReport",
    "Kind",
    "LangChainEmbedder",
    "Layer",
    "LifecycleConfig",
    "Memory",
    "MemoryRecord",
    "MemoryStore",
    "NotFoundError",
    "PrismConfig",
    "PrismError",
    "Provenance",
    "QdrantStore",
    "RecordPage",
    "Relation",
    "RetrievalConfig",
    "SafetyConfig",
    "Scope",
    "ScopeError",
    "ScoredRecord",
    "Source",
    "Status",
    "StoreConfig",
    "StoreError",
    "StoreLockedError",
    "StoreUnavailableError",
    "Trust",
    "ValidationError",
    "__version__",
]
