"""``PrismRetriever``: PRISM recall as a LlamaIndex ``BaseRetriever``.

Design:
- One call of ``Memory.recall`` per query: intent analysis, broad multi-route retrieval and
  selective construction happen in the engine, so the nodes are already deduplicated and fit
  ``budget_tokens``. Each record becomes a ``NodeWithScore(TextNode)`` whose id is the
  record id, whose text is what PRISM chose to show (a long turn may be cut to the sentences
  the query needs: ``metadata["compressed"]``), whose score is the record's relevance (the
  cosine of query and record vectors clipped to [0, 1], ``ContextItem.relevance``: the same
  value as a ``Memory.search`` score; the nodes keep PRISM's context order, not the score's),
  and whose metadata is the record's (only time and speaker reach the LLM).
- ``score_threshold`` drops nodes whose score is below it.
- Plugs into ``RetrieverQueryEngine``, ``CondensePlusContextChatEngine``, routers and tools
  like any retriever; ``_aretrieve`` runs the same call in a worker thread.
"""

from __future__ import annotations

import asyncio
from typing import Any

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.callbacks import CallbackManager
from llama_index.core.schema import NodeWithScore, QueryBundle

from prism_memory import ConfigError, Scope, ValidationError
from prism_memory.retrieval.scoring import check_score_threshold

from ._convert import as_intent, check_memory, context_records, record_and_score, record_to_node

__all__ = ["PrismRetriever"]


class PrismRetriever(BaseRetriever):
    """Retrieve a user's memories as LlamaIndex nodes, token-budgeted by PRISM.

    Setup:
        .. code-block:: python

            from prism_memory import Memory
            from llamaindex_prism import PrismRetriever

            memory = Memory(path="./.prism")
            retriever = PrismRetriever(memory, user_id="alice", budget_tokens=800)

    Use:
        .. code-block:: python

            nodes = retriever.retrieve("Which seat does Alice like?")
            nodes[0].node.text, nodes[0].node.metadata["kind"]
            # ('I prefer window seats', 'preference')
    """

    def __init__(
        self,
        memory: Any = None,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        budget_tokens: int = 1000,
        intent: Any = None,
        config: Any = None,
        score_threshold: float | None = None,
        callback_manager: CallbackManager | None = None,
        verbose: bool = False,
    ) -> None:
        self._memory = check_memory(memory, "PrismRetriever")
        self._scope = Scope.of(user_id, agent_id, session_id)
        if (
            not isinstance(budget_tokens, int)
            or isinstance(budget_tokens, bool)
            or budget_tokens < 1
        ):
            raise ConfigError(f"budget_tokens must be a positive integer, got {budget_tokens!r}")
        self._budget_tokens = budget_tokens
        try:
            self._score_threshold = check_score_threshold(score_threshold)
        except ValidationError as exc:
            raise ConfigError(str(exc)) from None
        self._intent = intent
        self._config = config
        super().__init__(callback_manager=callback_manager, verbose=verbose)

    @property
    def memory(self) -> Any:
        """The ``prism_memory.Memory`` this retriever reads."""
        return self._memory

    @property
    def scope(self) -> dict[str, str]:
        """The scope every query is confined to."""
        return self._scope.as_dict()

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        if not query_bundle.query_str.strip():
            return []
        context = self._memory.recall(
            query_bundle.query_str,
            user_id=self._scope.user_id,
            agent_id=self._scope.agent_id,
            session_id=self._scope.session_id,
            budget_tokens=self._budget_tokens,
            intent=as_intent(self._memory, self._intent),
            config=self._config,
        )
        nodes = [
            record_to_node(*record_and_score(item, rank))
            for rank, item in enumerate(context_records(context))
        ]
        if self._score_threshold is None:
            return nodes
        return [n for n in nodes if (n.score or 0.0) >= self._score_threshold]

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return await asyncio.to_thread(self._retrieve, query_bundle)
