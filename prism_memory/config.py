"""Configuration: plain pydantic models, no I/O and no environment reads at import time.

``PrismConfig`` groups the settings of each part; ``RetrievalConfig`` holds every read-path
knob (``prism bench pareto`` sweeps it). Environment variables are read only by
:func:`PrismConfig.from_env`, called by ``Memory()`` when no path is given.
"""

from __future__ import annotations

import os
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic import ValidationError as PydanticValidationError

from ._pydantic_errors import pydantic_reason
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
_ROUTES = ("dense", "bm25", "entity", "speaker", "time", "recent", "graph", "graph_time")


class _Section(BaseModel):
    """A settings section: an unknown, out-of-range or non-finite setting raises
    :class:`ConfigError` (a ``PrismError``) naming the setting, at construction and on
    assignment, never pydantic's own error."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except PydanticValidationError as exc:
            raise ConfigError(_config_reason(type(self).__name__, exc)) from None

    def __setattr__(self, name: str, value: Any) -> None:
        try:
            super().__setattr__(name, value)
        except PydanticValidationError as exc:
            raise ConfigError(_config_reason(type(self).__name__, exc)) from None


def _config_reason(section: str, exc: PydanticValidationError) -> str:
    return (
        f"invalid {section} setting {pydantic_reason(exc)}; see the setting's description "
        f"(help({section})) for what it accepts"
    )


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
    min_free_mb: int = Field(
        default=256,
        ge=0,
        description="Embedded store: free disk space (MB) kept as a margin. A write needs this "
        "much plus about three times its own size free, a new store this plus 132 MB, opening "
        "a store or deleting 64 MB (or this, when lower), a purge this plus the store's size; "
        "otherwise StoreError says what is missing (the engine would die with SIGBUS on a full "
        "disk). 0 turns the checks off.",
    )


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
    llm_timeout_s: float = Field(
        default=30.0,
        gt=0,
        description="Seconds to wait for Memory(llm=...) to distil a summary or reflect before "
        "keeping the extractive summary.",
    )


class SafetyConfig(_Section):
    """Poisoning and PII defences.

    The poisoning screen runs by provenance (``screen``): what the user says is kept unless it
    is an attack by its very form; what comes from tools, web pages, documents and the assistant
    is also read by a small learned model. Internal records (registries, task state, records
    derived from screened sources) are never screened. Every quarantine is reported in the write's
    result, logged at INFO (id and reason, never the text), listed by
    ``Memory.list(trust="quarantined")`` and reversible with ``Memory.release(id)``.

    Example:
        >>> SafetyConfig().screen
        'default'
        >>> SafetyConfig(screen="strict").screen
        'strict'
    """

    screen: Literal["off", "rules", "default", "strict"] = Field(
        default="default",
        description="'default': the user's own words get only the high-precision rules "
        "(explicit overrides, fake role or chat markup, hidden payloads, data sent to an outside "
        "address); tool, web, document and assistant content gets the rules plus the n-gram model "
        "(about 1 ms a text). 'strict': every source gets the rules plus the n-gram model and the "
        "fine-tuned transformer (pip install 'prism-memory[screen]'; one onnxruntime batch per "
        "write call). 'rules': the rules alone, every source. 'off': nothing is quarantined.",
    )
    quarantine_threshold_user: float = Field(
        default=0.8,
        ge=0,
        le=1,
        description="Injection score at which a user's own words are quarantined.",
    )
    quarantine_threshold_external: float = Field(
        default=0.5, ge=0, le=1, description="Threshold for tool and web content (stricter)."
    )
    llm_judge: bool = Field(
        default=False,
        description="Ask Memory(llm=...) about the texts the screen let through although the "
        "rules found some evidence or the model's P(attack) >= 0.3; it can only add quarantines, "
        "and any failure keeps the screen's verdict (prism_memory.llm.judge). Unmeasured here.",
    )
    llm_judge_timeout_s: float = Field(
        default=10.0, gt=0, description="Seconds to wait for the judge before keeping the verdict."
    )
    redact_pii: bool = False

    @model_validator(mode="before")
    @classmethod
    def _legacy_switches(cls, data: object) -> object:
        """``screen_model`` / ``screen_transformer`` (before 0.2) map onto ``screen``."""
        if not isinstance(data, dict) or not {"screen_model", "screen_transformer"} & data.keys():
            return data
        import warnings

        data = dict(data)
        model = data.pop("screen_model", True)
        transformer = data.pop("screen_transformer", True)
        mode = "rules" if not model else "strict" if transformer else "default"
        warnings.warn(
            f"SafetyConfig(screen_model=..., screen_transformer=...) is deprecated; "
            f"use SafetyConfig(screen={mode!r})",
            DeprecationWarning,
            stacklevel=4,
        )
        data.setdefault("screen", mode)
        return data


class RetrievalConfig(_Section):
    """Every knob of the read path: broad retrieve, then selective construct.

    ``prism bench pareto`` sweeps these on a LoCoMo-format set; the defaults sit on the knee
    of its recall / tokens / latency frontier.

    Example:
        >>> RetrievalConfig(pool_size=96, weights={"semantic": 0.6, "fresh": 0.1})
        ... # doctest: +ELLIPSIS
        RetrievalConfig(...)
    """

    pool_size: int = Field(default=64, ge=1, le=1000, description="Candidates kept after fusion.")
    route_limit: int = Field(
        default=48,
        ge=1,
        le=1000,
        description="Hits kept from the dense and BM25 routes (8 more are fetched to cut ties "
        "cleanly). Every hit's payload is read, which dominates the store time at 100K "
        "memories when pages are cold; 48 instead of 64 loses nothing on LoCoMo "
        "(prism bench pareto).",
    )
    aux_route_limit: int = Field(
        default=32, ge=1, le=1000, description="Hits fetched by the entity/speaker/time routes."
    )
    entity_max_share: float = Field(
        default=0.05,
        ge=0,
        le=1,
        description="Entities tagged on more than this share of a scope's records are too common "
        "to route on (speakers' own names are routed by the speaker route instead).",
    )
    recent_limit: int = Field(default=8, ge=1, le=1000, description="Hits of the recent route.")
    buffer_turns: int = Field(
        default=10, ge=0, le=1000, description="Current-session buffer turns considered."
    )
    routes: list[str] = Field(
        default_factory=lambda: ["dense", "bm25", "entity", "time", "recent"],
        description="Routes of the broad retrieve (any of " + ", ".join(_ROUTES) + "). The "
        "default is the `prism bench pareto` choice: the speaker route crowds out better "
        "candidates (dense and BM25 already index the speaker's name with each turn); entity, "
        "time and recent only run when the query names a known entity, has a time range or "
        "asks for the latest state. `graph` (off by default: on LoCoMo dev it moved no figure, "
        "benchmarks/results/locomo-dev-graph.md) is a second hop from the first hop's best "
        "records along their link keys to records of other sessions; `graph_time` (off by "
        "default) a second hop to records of other sessions next to them in time "
        "(`graph_time_window_days`).",
    )
    fusion: Literal["rrf", "dbsf"] = "rrf"
    rrf_k: int = Field(
        default=20,
        ge=1,
        description="RRF constant (smaller = top ranks weigh more; the knee of `prism bench pareto`).",
    )
    route_weights: dict[str, float] = Field(
        default_factory=lambda: {
            "dense": 1.0,
            "bm25": 1.0,
            "entity": 0.3,
            "speaker": 0.5,
            "time": 0.7,
            "recent": 0.5,
            "buffer": 0.5,
            "graph": 0.5,
            "graph_time": 0.5,
            "relations": 1.0,
        }
    )
    graph_seeds: int = Field(
        default=3,
        ge=1,
        le=100,
        description="The graph route's seeds: the best candidates of the first hop whose link "
        "keys (people, places, things, events) lead to records in other sessions.",
    )
    graph_limit: int = Field(
        default=8,
        ge=1,
        le=1000,
        description="Records the graph route adds to the pool: its best by relevance to the "
        "query and strength of the link to the seeds.",
    )
    graph_time_window_days: int = Field(
        default=1,
        ge=0,
        le=3650,
        description="The graph_time route's reach: records of other sessions whose event time "
        "falls on a seed's day or within this many days of it (0: the same day; 1: also the "
        "day before and the day after).",
    )
    follow_relations: bool = Field(
        default=True,
        description="The second hop follows the best records' stored relations (caused_by, "
        "causes, before, after, conflicts: links the LLM extraction states, conflicts the "
        "write path keeps) to the linked records, scored by relevance to the query like any "
        "candidate; free when no best record has one.",
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
    semantic_mix: float = Field(
        default=0.7,
        ge=0,
        le=1,
        description="Share of the fused rank in the semantic part (the rest is the cosine).",
    )
    intent_boost: float = Field(
        default=0.05, ge=0, le=2, description="Score added for fully matching the intent."
    )
    confidence_factor: float = Field(
        default=1.0,
        ge=0,
        le=4,
        description="Score is multiplied by confidence ** this (0 = ignore confidence): a derived "
        "record must be more relevant than a raw turn to outrank it.",
    )
    speaker_only_penalty: float = Field(
        default=0.5,
        ge=0,
        le=4,
        description="Records are embedded with their speaker, so a content-free turn "
        "('Priya: Wow!') sits close to any question naming Priya. A spoken record's score is "
        "multiplied by (1 - cosine(record, speaker-name-only vector)) ** this; 0 turns it off "
        "(and saves fetching the pool's vectors).",
    )
    freshness_half_life_days: float = Field(default=30.0, gt=0)
    min_semantic: float = Field(
        default=0.15,
        ge=-1,
        le=1,
        description="Cosine below which a candidate found only by the dense route is dropped.",
    )
    relative_floor: float = Field(
        default=0.3, ge=0, le=1, description="Drop candidates scoring below this share of the best."
    )
    relevance_floor: float = Field(
        default=0.25,
        ge=0,
        le=1,
        description="The relevance floor of recall, the retrievers and the node postprocessor: "
        "drop a candidate that only meaning found (no keyword, entity, time or task support) "
        "whose relevance (cosine to the query) is below this share of the best relevance "
        "among the candidates that could answer (the current session's turns and questions "
        "aside). Relative to the query's best hit, so it holds for any embedder's similarity "
        "scale; a context may be shorter than its budget. 0 turns it off.",
    )
    dedup_threshold: float = Field(
        default=0.9,
        ge=0,
        le=1,
        description="Similarity (cosine, or word-set Jaccard without vectors) above which a "
        "candidate is a near-duplicate of a better one.",
    )
    dedup_vectors: bool = Field(
        default=False,
        description="Deduplicate (and MMR) on dense vectors fetched for the pool (one more store "
        "call); off = word-set overlap, which needs no vectors.",
    )
    mmr_lambda: float = Field(
        default=1.0,
        ge=0,
        le=1,
        description="MMR trade-off (1 = rank by score, dedup by threshold).",
    )
    expand_neighbors: int = Field(
        default=0, ge=0, le=5, description="Neighbouring turns fetched around an episodic hit."
    )
    expand_top: int = Field(
        default=8, ge=0, le=64, description="Hits whose neighbours are fetched."
    )
    expand_max_tokens: int = Field(
        default=16,
        ge=0,
        description="Only hits at most this long are expanded (a short reply needs its context).",
    )
    expand_weight: float = Field(
        default=0.85, ge=0, le=1, description="A neighbour's score as a share of its hit's."
    )
    long_item_tokens: int = Field(
        default=120,
        ge=1,
        description="Items longer than this are packed by score per token (a long summary must "
        "earn its space), shorter ones by score.",
    )
    passage_tokens: int = Field(
        default=60,
        ge=16,
        description="A raw turn longer than long_item_tokens competes for the budget as its "
        "passage: its sentences that share the most words with the query, within this many "
        "tokens; the whole turn replaces the passage when it still fits after packing.",
    )
    compress_sentences: bool = Field(
        default=False,
        description="Keep only the informative, query-relevant sentences of long turns. Off by "
        "default: on LoCoMo it raises evidence recall per token but loses answer words "
        "(see benchmarks/results/locomo-dev.md).",
    )
    drop_filler: bool = Field(
        default=False,
        description="Drop sentences of episodic turns that look empty (at most two content words, "
        "none from the query, no number or name: 'Wow, that's great!'). Off by default: on "
        "LoCoMo it fits more turns into 250-500 tokens but some dropped short sentences held "
        "answer words ('Just got new shoes!').",
    )
    compress_min_tokens: int = Field(
        default=16, ge=8, description="Turns longer than this are compressed."
    )
    compress_keep_tokens: int = Field(
        default=14, ge=4, description="Tokens kept (whole sentences) of a compressed turn."
    )
    budget_split: dict[str, float] = Field(
        default_factory=lambda: {"working": 0.3, "semantic": 0.4, "episodic": 0.9, "buffer": 0.3},
        description="Most of the budget a section may take while other sections still have "
        "candidates that fit (caps, not reservations; the rest is filled by score).",
    )
    strictness: float = Field(
        default=0.0, ge=0, le=1, description="0 = intent fields are soft boosts, 1 = hard filters."
    )
    track_access: bool = Field(
        default=True,
        description="Count recalls in the returned records' access_count / last_accessed "
        "(written in the background, batched; see Memory.flush_access).",
    )
    access_flush_s: float = Field(
        default=1.0, gt=0, le=3600, description="Seconds between background access writes."
    )
    min_score: float = Field(
        default=0.0, ge=0, le=1, description="Drop candidates below this score."
    )
    cache_ttl_s: float = Field(default=300.0, ge=0)
    cache_size: int = Field(default=256, ge=0)
    warm_up: bool = Field(
        default=True,
        description="When a store opens, load on a background thread what the first recall "
        "would wait for: the token encoding and an embedder that offers warm_up() (the "
        "packaged default model; a remote API is never called). ~1 s off the first recall of "
        "a fresh process.",
    )
    feedback_step: float = Field(
        default=0.3, gt=0, le=1, description="First utility step of feedback."
    )
    feedback_decay: float = Field(
        default=0.5, ge=0, description="How fast the feedback step shrinks with repeated feedback."
    )
    llm_compression: Literal[
        "off", "auto", "summarize", "timeline", "causal", "contrast", "dedupe"
    ] = "off"
    llm_timeout_s: float = Field(default=20.0, gt=0)
    llm_intent: bool = Field(default=False, description="Parse intent with Memory(llm=...).")

    @model_validator(mode="after")
    def _check(self) -> RetrievalConfig:
        unknown = set(self.routes) - set(_ROUTES)
        if unknown:
            raise ConfigError(
                f"unknown retrieval routes {sorted(unknown)}; use any of {', '.join(_ROUTES)}"
            )
        if not self.routes:
            raise ConfigError(f"routes is empty; keep at least one of {', '.join(_ROUTES)}")
        if any(w < 0 for w in self.weights.values()):
            raise ConfigError("score weights must be >= 0")
        unknown_sections = set(self.budget_split) - {"working", "semantic", "episodic", "buffer"}
        if unknown_sections:
            raise ConfigError(
                f"unknown budget_split sections {sorted(unknown_sections)}; use working, "
                "semantic, episodic, buffer"
            )
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
    cjk_embedding_model: str | None = Field(
        default="auto",
        description="Multilingual embedder of the 'dense_cjk' vector, computed only for texts "
        "and queries holding Chinese, Japanese or Korean characters: 'auto' (the default) uses "
        "'use-multilingual-v3' when prism-memory[zh] is installed and nothing otherwise; "
        "'use-multilingual-v3' requires it; None never adds the vector. Fixed when a store is "
        "created (docs/multilingual.md).",
    )
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
