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
    QuarantinedError,
    ScopeError,
    StoreError,
    StoreLockedError,
    StoreUnavailableError,
    ValidationError,
)
from .extraction import Event, Fact, Person, Preference, SchemaSpec
from .layers.working import TaskState
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
from .results import RecordChange, RememberResult
from .retrieval import Intent, MemoryContext, RecallTrace
from .stores import EdgeStore, MemoryStore, QdrantStore

__version__ = "0.1.0"

__all__ = [
    "BufferConfig",
    "ConfigError",
    "EdgeStore",
    "Embedder",
    "EmbeddingDimensionError",
    "Entity",
    "Event",
    "ExtractionConfig",
    "ExtractionError",
    "Fact",
    "FakeEmbedder",
    "FastEmbedEmbedder",
    "ImportDataError",
    "ImportReport",
    "Intent",
    "Kind",
    "LangChainEmbedder",
    "Layer",
    "LifecycleConfig",
    "Memory",
    "MemoryContext",
    "MemoryRecord",
    "MemoryStore",
    "NotFoundError",
    "Person",
    "Preference",
    "PrismConfig",
    "PrismError",
    "Provenance",
    "QdrantStore",
    "QuarantinedError",
    "RecallTrace",
    "RecordChange",
    "RecordPage",
    "Relation",
    "RememberResult",
    "RetrievalConfig",
    "SafetyConfig",
    "SchemaSpec",
    "Scope",
    "ScopeError",
    "ScoredRecord",
    "Source",
    "Status",
    "StoreConfig",
    "StoreError",
    "StoreLockedError",
    "StoreUnavailableError",
    "TaskState",
    "Trust",
    "ValidationError",
    "__version__",
]
