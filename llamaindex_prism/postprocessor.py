"""``PrismNodePostprocessor``: PRISM's selective-construct stage on nodes from any retriever.

Design:
- A plain top-k retriever hands the LLM every hit, duplicates and all. LazyMem's second stage
  fixes that after the fact: score each node on several objectives, drop near-duplicates,
  pack what is left into a token budget, optionally put it in time order. The logic is
  ``prism_memory.retrieval.construct.construct``, the engine's construct stage; this class
  converts nodes to construct items and back.
- Relevance is the cosine between the query and the node text under the postprocessor's
  embedder (the ``Memory``'s by default, so one model serves both), never the retriever's raw
  score: vector, BM25 and reranker scores live on different scales. Without any embedder the
  retriever's scores are min-max normalised and duplicates are found by word-trigram overlap.
- Time, utility, importance and task id come from node metadata when present (PRISM nodes
  carry them; document nodes usually carry a date at most). Budgets count the node as the
  LLM sees it (``MetadataMode.LLM``) with PRISM's tiktoken counter.
- Weights, half-life and dedup threshold default to the ``Memory``'s ``RetrievalConfig``.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime, timezone
from typing import Any, Literal

from llama_index.core.bridge.pydantic import Field
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle

from prism_memory import ConfigError, Embedder, Memory, RetrievalConfig
from prism_memory.retrieval.construct import ConstructItem, ConstructResult, construct
from prism_memory.retrieval.scoring import cosine
from prism_memory.tokens import count_tokens

__all__ = ["PrismNodePostprocessor"]

_TIME_KEYS = (
    "event_time",
    "timestamp",
    "date",
    "created_at",
    "creation_date",
    "last_modified_date",
)


def _node_time(metadata: Mapping[str, Any], key: str | None) -> datetime | None:
    for k in (key,) if key else _TIME_KEYS:
        value = metadata.get(k)
        if isinstance(value, datetime):
            return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
        if isinstance(value, date):
            return datetime(value.year, value.month, value.day, tzinfo=timezone.utc)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            try:
                return datetime.fromtimestamp(float(value), tz=timezone.utc)
            except (OverflowError, OSError, ValueError):
                continue
        if isinstance(value, str) and value.strip():
            try:
                parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
            except ValueError:
                continue
            return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)
    return None


def _unit(value: Any, default: float = 0.5) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1:
        return float(value)
    return default


class PrismNodePostprocessor(BaseNodePostprocessor):
    """Score, deduplicate and token-budget nodes from any retriever (LazyMem stage 2).

    Setup:
        .. code-block:: python

            from prism_memory import FastEmbedEmbedder
            from llamaindex_prism import PrismNodePostprocessor

            post = PrismNodePostprocessor(embedder=FastEmbedEmbedder(), budget_tokens=300)
            # or PrismNodePostprocessor(memory, budget_tokens=300): the Memory's model and config

    Use:
        .. code-block:: python

            engine = index.as_query_engine(similarity_top_k=10, node_postprocessors=[post])
            engine.query("When did the refund policy change?")
            post.explain(nodes, "refund policy").tokens_saved   # what the budget cut
    """

    memory: Any = Field(
        default=None, exclude=True, description="Optional Memory: its embedder and config."
    )
    embedder: Any = Field(
        default=None, exclude=True, description="prism_memory Embedder for query similarity."
    )
    budget_tokens: int | None = Field(
        default=1000, ge=1, description="Token budget of the kept nodes (None = no budget)."
    )
    top_n: int | None = Field(default=None, ge=1, description="Keep at most this many nodes.")
    min_score: float = Field(default=0.0, ge=0, le=1, description="Drop nodes scoring below.")
    weights: dict[str, float] | None = Field(
        default=None,
        description="PRISM score weights (semantic, fresh, task, utility, importance).",
    )
    half_life_days: float | None = Field(default=None, gt=0, description="Freshness half-life.")
    dedup_threshold: float | None = Field(
        default=None, ge=0, le=1, description="Cosine at which a node is a near-duplicate."
    )
    text_dup_threshold: float = Field(
        default=0.8, ge=0, le=1, description="Trigram overlap for duplicates without vectors."
    )
    order: Literal["score", "time"] = Field(
        default="score", description="Order of the kept nodes: by score, or by time."
    )
    time_key: str | None = Field(
        default=None, description="Metadata key holding a node's time (default: common names)."
    )
    task_id: str | None = Field(default=None, description="Boost nodes of this task id.")

    def __init__(self, memory: Any = None, **data: Any) -> None:
        if memory is not None and not isinstance(memory, Memory):
            raise ConfigError(
                f"PrismNodePostprocessor's first argument is an optional prism_memory.Memory, "
                f"got {type(memory).__name__}; pass settings as keywords (budget_tokens=...)"
            )
        embedder = data.get("embedder")
        if embedder is not None and not isinstance(embedder, Embedder):
            raise ConfigError(
                f"embedder must be a prism_memory Embedder such as FastEmbedEmbedder(), got "
                f"{type(embedder).__name__}"
            )
        data["memory"] = memory
        super().__init__(**data)

    @classmethod
    def class_name(cls) -> str:
        return "PrismNodePostprocessor"

    def _retrieval_config(self) -> RetrievalConfig:
        if self.memory is not None:
            config: RetrievalConfig = self.memory.config.retrieval
            return config
        return RetrievalConfig()

    def _embedder(self) -> Embedder | None:
        if self.embedder is not None:
            return self.embedder  # type: ignore[no-any-return]
        if self.memory is not None:
            return self.memory.embedder  # type: ignore[no-any-return]
        return None

    def _candidates(self, nodes: list[NodeWithScore], query: str) -> list[ConstructItem]:
        texts = [n.node.get_content(metadata_mode=MetadataMode.NONE) for n in nodes]
        vectors: list[list[float]] | None = None
        sims: list[float | None] = [None] * len(nodes)
        embedder = self._embedder()
        if embedder is not None:
            vectors = embedder.embed_documents(texts)
            if query.strip():
                q = embedder.embed_query(query)
                sims = [cosine(q, v) for v in vectors]
        return [
            ConstructItem(
                text=texts[i],
                tokens=count_tokens(n.node.get_content(metadata_mode=MetadataMode.LLM)),
                base_score=n.score,
                similarity=sims[i],
                vector=vectors[i] if vectors is not None else None,
                time=_node_time(n.node.metadata, self.time_key),
                utility=_unit(n.node.metadata.get("utility")),
                importance=_unit(n.node.metadata.get("importance")),
                task_id=n.node.metadata.get("task_id"),
            )
            for i, n in enumerate(nodes)
        ]

    def explain(
        self, nodes: list[NodeWithScore], query: str | QueryBundle | None = None
    ) -> ConstructResult:
        """The construct decision for ``nodes``: kept indices, scores, and why each cut was made."""
        query_str = query.query_str if isinstance(query, QueryBundle) else (query or "")
        config = self._retrieval_config()
        return construct(
            self._candidates(nodes, query_str),
            weights=self.weights if self.weights is not None else dict(config.weights),
            half_life_days=self.half_life_days or config.freshness_half_life_days,
            task_id=self.task_id,
            dedup_threshold=(
                self.dedup_threshold if self.dedup_threshold is not None else config.dedup_threshold
            ),
            text_dup_threshold=self.text_dup_threshold,
            budget_tokens=self.budget_tokens,
            top_n=self.top_n,
            min_score=self.min_score,
            order=self.order,
        )

    def _postprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        if not nodes:
            return []
        result = self.explain(nodes, query_bundle)
        return [NodeWithScore(node=nodes[i].node, score=result.scores[i]) for i in result.kept]
