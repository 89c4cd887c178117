"""Configuration: plain pydantic models, no I/O and no environment reads at import time.

``PrismConfig`` groups the settings of each part; ``RetrievalConfig`` holds every read-path
knob (``prism bench pareto`` sweeps it). Environment variables are read only by
:func:`PrismConfig.from_env`, called by ``Memory()`` when no path is given.
"""

from __future__ import annotations

import os
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .errors import ConfigError

__all__ = [
    "DEFAULT_EMBEDDING_MODEL",
    "BufferConfig",
    "ExtractionConfig",
    "LifecycleConfig",
    "PrismConfig",
    "RetrievalConfig",
    "SafetyConfig",
    "StoreConfig",
]

DEFAULT_EMBEDDING_MODEL = "sentence-transformers/all-MiniLM-L6-v2"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class StoreConfig(_Section):
    """Where and how records are stored."""

    collection: str = Field(default="prism_memory", description="Qdrant collection name.")
    optimize_after: int = Field(
        default=2000,
        ge=0,
        description="Embedded store: run the segment optimizer in the background after this many "
        "unindexed writes (0 = never), so search stays on the HNSW index.",
    )
    hnsw_m: int = Field(default=16, ge=4, description="HNSW graph degree.")
    hnsw_ef_construct: int = Field(default=100, ge=8, description="HNSW build-time beam width.")
    timeout_s: float = Field(default=10.0, gt=0, description="Qdrant server request timeout.")


class BufferConfig(_Section):
    """Short-term buffer of a session's raw turns."""

    max_turns: int = Field(default=20, ge=1, description="Turns kept before the oldest move on.")
    max_tokens: int = Field(default=2000, ge=16, description="Token bound of the buffer.")


class ExtractionConfig(_Section):
    """Schema-constrained extraction (rules by default, an LLM when given)."""

    use_llm: bool = Field(default=True, description="Use Memory(llm=...) for extraction when set.")
    llm_timeout_s: float = Field(default=30.0, gt=0)
    llm_retries: int = Field(default=1, ge=0, le=3)
    fallback_confidence: float = Field(
        default=0.4, ge=0, le=1, description="Confidence given to rule results when the LLM failed."
    )


class LifecycleConfig(_Section):
    """Consolidation, decay and forgetting."""

    consolidate_every_turns: int = Field(
        default=0,
        ge=0,
        description="Consolidate automatically after this many turns (0 = at session end only).",
    )
    consolidate_on_session_end: bool = True
    freshness_half_life_days: float = Field(default=30.0, gt=0)


class SafetyConfig(_Section):
    """Poisoning and PII defences."""

    quarantine_threshold_user: float = Field(
        default=0.8,
        ge=0,
        le=1,
        description="Injection score at which a user's own words are quarantined.",
    )
    quarantine_threshold_external: float = Field(
        default=0.5, ge=0, le=1, description="Threshold for tool and web content (stricter)."
    )
    redact_pii: bool = False


class RetrievalConfig(_Section):
    """Every knob of the read path: broad retrieve, then selective construct.

    Example:
        >>> RetrievalConfig(pool_size=96, weights={"semantic": 0.6, "fresh": 0.1})
        ... # doctest: +ELLIPSIS
        RetrievalConfig(...)
    """

    pool_size: int = Field(default=64, ge=1, le=1000, description="Candidates kept after fusion.")
    route_limit: int = Field(default=64, ge=1, le=1000, description="Hits fetched per route.")
    routes: list[str] = Field(
        default_factory=lambda: ["dense", "bm25", "entity", "recent"],
        description="Routes of the broad retrieve.",
    )
    fusion: Literal["rrf", "dbsf"] = "rrf"
    rrf_k: int = Field(default=60, ge=1)
    route_weights: dict[str, float] = Field(
        default_factory=lambda: {"dense": 1.0, "bm25": 1.0, "entity": 0.7, "recent": 0.5}
    )
    weights: dict[str, float] = Field(
        default_factory=lambda: {
            "semantic": 0.7,
            "fresh": 0.05,
            "task": 0.1,
            "utility": 0.1,
            "importance": 0.05,
        },
        description="PRISM score weights: semantic, fresh, task, utility, importance.",
    )
    freshness_half_life_days: float = Field(default=30.0, gt=0)
    dedup_threshold: float = Field(
        default=0.92, ge=0, le=1, description="Cosine above which a candidate is a near-duplicate."
    )
    expand_neighbors: int = Field(
        default=1, ge=0, le=5, description="Neighbouring turns added around an episodic hit."
    )
    expand_min_score: float = Field(default=0.5, ge=0, le=1)
    compress_sentences: bool = Field(
        default=True, description="Keep only the sentences of long turns the query needs."
    )
    compress_min_tokens: int = Field(default=60, ge=8)
    budget_split: dict[str, float] = Field(
        default_factory=lambda: {"working": 0.15, "semantic": 0.3, "episodic": 0.5, "buffer": 0.05},
        description="Soft share of the budget per section; unused share flows to the others.",
    )
    strictness: float = Field(
        default=0.0, ge=0, le=1, description="0 = intent fields are soft boosts, 1 = hard filters."
    )
    min_score: float = Field(
        default=0.0, ge=0, le=1, description="Drop candidates below this score."
    )
    cache_ttl_s: float = Field(default=300.0, ge=0)
    cache_size: int = Field(default=256, ge=0)
    llm_compression: Literal[
        "off", "auto", "summarize", "timeline", "causal", "contrast", "dedupe"
    ] = "off"
    llm_timeout_s: float = Field(default=20.0, gt=0)
    llm_intent: bool = Field(default=False, description="Parse intent with Memory(llm=...).")

    @model_validator(mode="after")
    def _check(self) -> RetrievalConfig:
        unknown = set(self.routes) - {"dense", "bm25", "entity", "recent"}
        if unknown:
            raise ConfigError(
                f"unknown retrieval routes {sorted(unknown)}; use any of dense, bm25, entity, recent"
            )
        if not self.routes:
            raise ConfigError("routes is empty; keep at least one of dense, bm25, entity, recent")
        if any(w < 0 for w in self.weights.values()):
            raise ConfigError("score weights must be >= 0")
        return self


class PrismConfig(_Section):
    """All settings of a :class:`~prism_memory.Memory`.

    Example:
        >>> cfg = PrismConfig(buffer=BufferConfig(max_turns=10))
        >>> cfg.embedding_model
        'sentence-transformers/all-MiniLM-L6-v2'
    """

    embedding_model: str = Field(
        default=DEFAULT_EMBEDDING_MODEL,
        description="fastembed model name; the default resolves to the packaged offline int8 model.",
    )
    embedding_batch_size: int = Field(default=16, ge=1, le=1024)
    store: StoreConfig = Field(default_factory=StoreConfig)
    buffer: BufferConfig = Field(default_factory=BufferConfig)
    extraction: ExtractionConfig = Field(default_factory=ExtractionConfig)
    lifecycle: LifecycleConfig = Field(default_factory=LifecycleConfig)
    retrieval: RetrievalConfig = Field(default_factory=RetrievalConfig)
    safety: SafetyConfig = Field(default_factory=SafetyConfig)

    @staticmethod
    def default_path() -> str:
        """``$PRISM_PATH`` or ``./.prism`` (read at call time, never at import)."""
        return os.environ.get("PRISM_PATH") or "./.prism"
