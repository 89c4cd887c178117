"""``PrismRetriever``: PRISM recall (or plain hybrid search) as a LangChain retriever.

Design:
- ``mode="recall"`` (default) runs the full read path (intent, broad retrieve, selective
  construct within ``budget_tokens``) and returns the records that made it into the context,
  in context order, at most ``k``. ``mode="search"`` returns the top ``k`` hybrid-search hits.
- Every ``Document`` carries the record's id, layer, kind, score, event time, the routes
  that found it and its source, so a chain can cite or filter them. ``score`` is the
  record's relevance in [0, 1] (cosine of query and record vectors, clipped: the
  ``Memory.search`` score, or a recall item's ``relevance``); ``rank_score`` is the value
  the documents are ordered by (the RRF value in search mode, the PRISM score in recall
  mode). ``score_threshold`` drops documents whose ``score`` is below it, in both modes.
- In recall mode the current conversation is left out: the turns of the current session
  (``session_id``, else the run config's ``configurable`` ``session_id`` / ``thread_id``, as
  LangGraph sets them), buffered or already moved to the episodic layer, are the
  conversation, not memories.
- ``k`` can be overridden per call (``retriever.invoke(q, k=2)``), as the LangChain standard
  retriever tests expect. Async runs the same code in a worker thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from contextvars import ContextVar
from typing import Any, Literal

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import ensure_config
from pydantic import ConfigDict, Field, field_validator, model_validator

from prism_memory.records import MemoryRecord
from prism_memory.retrieval.scoring import check_score_threshold

from ._scope import MemoryFirstArg, recall_outside_session

__all__ = ["PrismRetriever", "record_document"]

#: ``configurable`` of the run a retriever call is made in (set by invoke / ainvoke).
_RUN_CONFIGURABLE: ContextVar[Mapping[str, Any] | None] = ContextVar(
    "prism_retriever_configurable", default=None
)


def record_document(
    record: MemoryRecord,
    *,
    score: float | None = None,
    routes: list[str] | None = None,
    rank_score: float | None = None,
) -> Document:
    """A memory record as a ``Document`` (text as content, provenance in metadata).

    ``score``: relevance in [0, 1]; ``rank_score``: the value the hit was ranked by."""
    return Document(
        id=record.id,
        page_content=record.text,
        metadata={
            "id": record.id,
            "layer": record.layer.value,
            "kind": record.kind.value,
            "score": score,
            "rank_score": rank_score,
            "event_time": record.time.isoformat(),
            "routes": list(routes or []),
            "source": record.provenance.source.value,
            "session_id": record.session_id,
            "speaker": record.speaker,
        },
    )


class PrismRetriever(MemoryFirstArg, BaseRetriever):
    """Retrieve a user's memories as ``Document``s.

    Setup:
        .. code-block:: python

            from prism_memory import Memory
            from langchain_prism import PrismRetriever

            memory = Memory(path="./.prism")
            memory.add("Alice prefers aisle seats", user_id="alice", kind="preference")
            retriever = PrismRetriever(memory, user_id="alice", k=4, budget_tokens=800)

    Use:
        .. code-block:: python

            docs = retriever.invoke("Which seat should I book?")
            docs[0].page_content, docs[0].metadata["kind"]
            # ('Alice prefers aisle seats', 'preference')
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: Any = Field(description="The prism_memory.Memory to read from.")
    user_id: str | None = None
    agent_id: str | None = None
    session_id: str | None = Field(
        default=None,
        description="The current session: its buffer turns (the conversation itself) are "
        "left out of recall mode. Default: the run config's configurable session_id or "
        "thread_id. Long-term layers are searched across all sessions of the user/agent.",
    )
    k: int = Field(default=4, ge=1, le=1000, description="Most documents returned.")
    budget_tokens: int = Field(
        default=1000, ge=16, description="Token budget of the recalled context (recall mode)."
    )
    mode: Literal["recall", "search"] = Field(
        default="recall",
        description="'recall': budgeted, intent-aware context; 'search': top-k hybrid search.",
    )
    filters: dict[str, Any] | None = Field(
        default=None, description="Memory.search filters (search mode), e.g. {'kind': 'fact'}."
    )
    intent: Any = Field(default=None, description="A prism_memory Intent for recall mode.")
    score_threshold: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="Drop documents whose score (relevance: cosine of query and record, "
        "clipped to [0, 1]) is below this. None keeps every document.",
    )

    @field_validator("score_threshold", mode="before")
    @classmethod
    def _check_threshold(cls, value: Any) -> float | None:
        return check_score_threshold(value)  # no bool or str coercion: the core's rule

    @model_validator(mode="after")
    def _check(self) -> PrismRetriever:
        self._check_adapter()
        return self

    def _documents(self, query: str, k: int | None) -> list[Document]:
        limit = self.k if k is None else int(k)
        if not query.strip():
            return []  # nothing to look for; an empty query is not an error in a chain
        if self.mode == "search":
            hits = self.memory.search(
                query,
                limit=limit,
                filters=self.filters,
                score_threshold=self.score_threshold,
                **self.scope,
            )
            return [
                record_document(h.record, score=h.score, routes=h.routes, rank_score=h.rank_score)
                for h in hits
            ]
        scope = dict(self.scope)
        configurable = _RUN_CONFIGURABLE.get() or {}
        session = self.session_id or configurable.get("session_id") or configurable.get("thread_id")
        if session is not None:
            scope["session_id"] = str(session)
        ctx = recall_outside_session(
            self.memory, query, scope, intent=self.intent, budget_tokens=self.budget_tokens
        )
        shown = {item.record.id: item for item in getattr(ctx, "items", [])}
        docs: list[Document] = []
        for record in ctx.records:
            if len(docs) >= limit:
                break
            item = shown.get(record.id)
            score = item.relevance if item is not None else None
            if self.score_threshold is not None and (score is None or score < self.score_threshold):
                continue
            docs.append(
                record_document(
                    record,
                    score=score,
                    routes=item.routes if item is not None else None,
                    rank_score=item.score if item is not None else None,
                )
            )
        return docs

    def invoke(
        self, input: str, config: RunnableConfig | None = None, **kwargs: Any
    ) -> list[Document]:
        token = _RUN_CONFIGURABLE.set(ensure_config(config).get("configurable") or {})
        try:
            return super().invoke(input, config, **kwargs)
        finally:
            _RUN_CONFIGURABLE.reset(token)

    async def ainvoke(self, input: str, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        token = _RUN_CONFIGURABLE.set(ensure_config(config).get("configurable") or {})
        try:
            return await super().ainvoke(input, config, **kwargs)
        finally:
            _RUN_CONFIGURABLE.reset(token)

    def _get_relevant_documents(
        self,
        query: str,
        *,
        run_manager: CallbackManagerForRetrieverRun,
        k: int | None = None,
        **kwargs: Any,
    ) -> list[Document]:
        return self._documents(query, k)

    async def _aget_relevant_documents(
        self,
        query: str,
        *,
        run_manager: AsyncCallbackManagerForRetrieverRun,
        k: int | None = None,
        **kwargs: Any,
    ) -> list[Document]:
        return await asyncio.to_thread(self._documents, query, k)
