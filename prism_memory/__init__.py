"""PRISM: long-term memory for LLM agents.

Four layers (buffer, working, episodic, semantic), schema-constrained facts, and a two-stage,
intent-aware, token-budgeted recall over Qdrant.

>>> from prism_memory import Memory  # doctest: +SKIP
>>> with Memory(path="./.prism") as m:  # doctest: +SKIP
...     m.add("I prefer window seats", user_id="alice", kind="preference")

The names below are the public surface (``tests/test_exported_members.py`` pins them): the
facade, the settings you construct, the types you receive, the errors you catch and the two
protocols you may implement. Everything else is importable from its module
(``prism_memory.stores``, ``prism_memory.records``, ``prism_memory.extraction``, ...).
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
from .embeddings import Embedder, FakeEmbedder, FastEmbedEmbedder
from .errors import (
    AuthenticationError,
    ConfigError,
    EmbeddingDimensionError,
    ExtractionError,
    ImportDataError,
    NotFoundError,
    PermissionDeniedError,
    PrismError,
    QuarantinedError,
    RequestLimitError,
    ScopeError,
    ServiceError,
    StoreError,
    StoreLockedError,
    StoreUnavailableError,
    ValidationError,
)
from .llm import ChatModel
from .memory import Memory
from .records import Kind, Layer, MemoryRecord, Scope, ScoredRecord
from .remote import RemoteMemory
from .results import RememberResult
from .retrieval import Intent, MemoryContext
from .versions import MemoryVersion

__version__ = "0.1.0"

__all__ = [
    "AuthenticationError",
    "BufferConfig",
    "ChatModel",
    "ConfigError",
    "Embedder",
    "EmbeddingDimensionError",
    "ExtractionConfig",
    "ExtractionError",
    "FakeEmbedder",
    "FastEmbedEmbedder",
    "ImportDataError",
    "Intent",
    "Kind",
    "Layer",
    "LifecycleConfig",
    "Memory",
    "MemoryContext",
    "MemoryRecord",
    "MemoryVersion",
    "NotFoundError",
    "PermissionDeniedError",
    "PrismConfig",
    "PrismError",
    "QuarantinedError",
    "RememberResult",
    "RemoteMemory",
    "RequestLimitError",
    "RetrievalConfig",
    "SafetyConfig",
    "Scope",
    "ScopeError",
    "ScoredRecord",
    "ServiceError",
    "StoreConfig",
    "StoreError",
    "StoreLockedError",
    "StoreUnavailableError",
    "ValidationError",
]
