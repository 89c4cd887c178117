"""``PrismNodePostprocessor``: PRISM's selective-construct stage on nodes from any retriever.

Design:
- A plain top-k retriever hands the LLM every hit, duplicates and all. LazyMem's second stage
  fixes that after the fact: score each node on several objectives, drop near-duplicates,
  pack what is left into a token budget, optionally put it in time order. The logic is the
  engine's one construct stage (``prism_memory.retrieval.construct``, ``.packing``): each node
  becomes a candidate (a synthetic ``MemoryRecord``: text, time, utility, importance, task
  id) scored by ``score_candidates``, deduplicated by ``select`` and placed by ``place``,
  recall's greedy packing, with the node's token count as its cost; this class converts
  nodes and back.
- Relevance is the cosine between the query and the node text under the postprocessor's
  embedder (the ``Memory``'s by default, so one model serves both), never the retriever's raw
  score: vector, BM25 and reranker scores live on different scales (``semantic_mix`` 0).
  Without any embedder the retriever's scores are min-max normalised and duplicates are found
  by recall's word-set overlap (``text_dup_threshold``); of two near-duplicates recall keeps
  the shorter copy, at the better score.
- Time, utility, importance and task id come from node metadata when present (PRISM nodes
  carry them; document nodes usually carry a date at most). Budgets count the node as the
  LLM sees it (``MetadataMode.LLM``) with PRISM's tiktoken counter. A node without a time is
  neutral on freshness (0.5: its record is dated one half-life back).
- Weights, half-life and dedup threshold default to the ``Memory``'s ``RetrievalConfig``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from typing import Any, Literal

import numpy as np
from llama_index.core.bridge.pydantic import Field
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle

from prism_memory import ConfigError, Embedder, Intent, Memory, MemoryRecord, RetrievalConfig
from prism_memory.retrieval.construct import score_candidates, select
from prism_memory.retrieval.context import RecallTrace
from prism_memory.retrieval.fusion import Candidate
from prism_memory.retrieval.packing import place
from prism_memory.tokens import count_tokens

__all__ = ["ConstructResult", "PrismNodePostprocessor"]

_USER = "llamaindex-nodes"  # the synthetic scope of the records nodes become


@dataclass
class ConstructResult:
    """What the postprocessor kept (indices into the input, in output order) and why it cut."""

    kept: list[int]
    scores: list[float]
    dropped: dict[int, str] = field(default_factory=dict)
    tokens_in: int = 0
    tokens_out: int = 0

    @property
    def tokens_saved(self) -> int:
        return self.tokens_in - self.tokens_out


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


def _retriever_relevance(scores: Sequence[float | None]) -> list[float]:
    """The retriever's scores in [0, 1], best 1.0: min-max normalised (scales differ between
    retrievers, ranks do not), a missing score 0; without any score, the retriever's order."""
    known = [s for s in scores if s is not None]
    if not known:
        return [1.0 - i / len(scores) for i in range(len(scores))]
    lo, hi = min(known), max(known)
    return [0.0 if s is None else (1.0 if hi == lo else (s - lo) / (hi - lo)) for s in scores]


def _unit_vectors(vectors: Sequence[Sequence[float]]) -> list[list[float]]:
    mat = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(mat, axis=1, keepdims=True)
    out: list[list[float]] = np.divide(mat, norms, out=np.zeros_like(mat), where=norms > 0).tolist()
    return out


def _reason(outcome: str | None, score: float, min_score: float) -> str:
    if outcome == "cut:duplicate":
        return "near-duplicate of a better or cheaper node that was kept"
    if outcome == "cut:low_score":
        return f"score {score:.3f} below min_score {min_score}"
    if outcome == "cut:below_relevance_floor":
        return "relevance below the floor (relevance_floor x the best node's query cosine)"
    return outcome or "cut"


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
    relevance_floor: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="Drop nodes whose query cosine is below this share of the best node's "
        "(the relevance floor of recall; None: the Memory's or the default RetrievalConfig's, "
        "0: off). Needs an embedder.",
    )
    weights: dict[str, float] | None = Field(
        default=None,
        description="PRISM score weights (semantic, fresh, task, utility, importance).",
    )
    half_life_days: float | None = Field(default=None, gt=0, description="Freshness half-life.")
    dedup_threshold: float | None = Field(
        default=None, ge=0, le=1, description="Cosine at which a node is a near-duplicate."
    )
    text_dup_threshold: float = Field(
        default=0.8, ge=0, le=1, description="Word-set overlap for duplicates without vectors."
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

    def _candidates(
        self, nodes: list[NodeWithScore], query: str, now: datetime, half_life_days: float
    ) -> tuple[list[Candidate], list[float], bool]:
        """One candidate per node (its synthetic record's payload, the retriever's relevance as
        the fused score, the query cosine as a dense route score), the query vector, and
        whether every node has a vector."""
        texts = [n.node.get_content(metadata_mode=MetadataMode.NONE) for n in nodes]
        vectors: list[list[float]] | None = None
        query_vector: list[float] = []
        embedder = self._embedder()
        if embedder is not None:
            vectors = _unit_vectors(embedder.embed_documents(texts))
            if query.strip():
                query_vector = _unit_vectors([embedder.embed_query(query)])[0]
        fused = _retriever_relevance([n.score for n in nodes])
        undated = now - timedelta(days=half_life_days)  # freshness 0.5: neutral
        out = []
        for i, n in enumerate(nodes):
            metadata = n.node.metadata
            task_id = metadata.get("task_id")
            record = MemoryRecord(
                id=f"{i:06d}",
                text=texts[i],
                user_id=_USER,
                event_time=_node_time(metadata, self.time_key) or undated,
                utility=_unit(metadata.get("utility")),
                importance=_unit(metadata.get("importance")),
                task_id=task_id if isinstance(task_id, str) else None,
            )
            vector = vectors[i] if vectors is not None else None
            route_scores = {}
            if vector is not None and query_vector:
                route_scores["dense"] = float(np.dot(vector, query_vector))
            out.append(
                Candidate(
                    record.id,
                    record.to_payload(),
                    vector,
                    fused[i],
                    {"retriever": i},
                    route_scores,
                )
            )
        return out, query_vector, vectors is not None

    def explain(
        self, nodes: list[NodeWithScore], query: str | QueryBundle | None = None
    ) -> ConstructResult:
        """The construct decision for ``nodes``: kept indices, scores, and why each cut was made."""
        query_str = query.query_str if isinstance(query, QueryBundle) else (query or "")
        if not nodes:
            return ConstructResult(kept=[], scores=[])
        base = self._retrieval_config()
        now = datetime.now(timezone.utc)
        half_life = self.half_life_days or base.freshness_half_life_days
        candidates, query_vector, with_vectors = self._candidates(nodes, query_str, now, half_life)
        config = self._construct_config(base, half_life, with_vectors)
        trace = RecallTrace()
        scored = score_candidates(
            candidates,
            query_vector,
            Intent(task_id=self.task_id),
            config,
            now=now,
            buffer_session=None,
            trace=trace,
        )
        selected = select(scored, config, trace, query=query_str)
        scores = [0.0] * len(nodes)
        for s in scored:
            scores[int(s.record.id)] = s.total
        dropped = {
            int(ct.id): _reason(ct.outcome, scores[int(ct.id)], self.min_score)
            for ct in trace.candidates
            if ct.outcome and ct.outcome.startswith("cut:")
        }
        ranked = [int(s.record.id) for s in selected]
        if self.top_n is not None:
            for i in ranked[self.top_n :]:
                dropped[i] = f"beyond top_n={self.top_n}"
            ranked = ranked[: self.top_n]
        tokens = [count_tokens(n.node.get_content(metadata_mode=MetadataMode.LLM)) for n in nodes]
        kept = ranked
        if self.budget_tokens is not None:
            kept = place(ranked, tokens, self.budget_tokens)
            for i in set(ranked) - set(kept):
                dropped[i] = f"{tokens[i]} tokens do not fit the {self.budget_tokens}-token budget"
        if self.order == "time":
            kept = self._in_time_order(kept, nodes)
        return ConstructResult(
            kept=kept,
            scores=scores,
            dropped=dropped,
            tokens_in=sum(tokens),
            tokens_out=sum(tokens[i] for i in kept),
        )

    def _construct_config(
        self, base: RetrievalConfig, half_life: float, with_vectors: bool
    ) -> RetrievalConfig:
        """The engine's retrieval config with this postprocessor's settings: its weights,
        half-life and floors; no recall floors (the retriever chose these nodes); text overlap
        for duplicates when there are no vectors."""
        dedup = self.dedup_threshold if self.dedup_threshold is not None else base.dedup_threshold
        return base.model_copy(
            update={
                "weights": self.weights if self.weights is not None else dict(base.weights),
                "freshness_half_life_days": half_life,
                "dedup_threshold": dedup if with_vectors else self.text_dup_threshold,
                "semantic_mix": 0.0,  # the query cosine alone when there is one
                "min_semantic": -1.0,  # no recall floors: the retriever chose these nodes
                "relative_floor": 0.0,
                "min_score": self.min_score,
                "relevance_floor": (
                    base.relevance_floor if self.relevance_floor is None else self.relevance_floor
                ),
                "mmr_lambda": 1.0,
            }
        )

    def _in_time_order(self, kept: list[int], nodes: Sequence[NodeWithScore]) -> list[int]:
        """``kept`` oldest first by node time; undated nodes after, in their order."""
        times = {i: _node_time(nodes[i].node.metadata, self.time_key) for i in kept}
        dated = {i: t for i, t in times.items() if t is not None}
        timed = sorted(dated, key=lambda i: dated[i])
        return timed + [i for i in kept if times[i] is None]

    def _postprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        if not nodes:
            return []
        result = self.explain(nodes, query_bundle)
        return [NodeWithScore(node=nodes[i].node, score=result.scores[i]) for i in result.kept]
