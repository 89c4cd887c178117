"""``PrismMemoryMiddleware``: long-term memory for LangChain v1 ``create_agent`` agents.

Design:
- Before each model call (``wrap_model_call``) it recalls with the latest user message as the
  query and the agent state's task fields (``task_id``, ``subgoal_id``, ``step``) as the PRISM
  intent, and appends the rendered context to the system message via
  ``ModelRequest.override`` -- the conversation messages are left untouched. The recall leaves
  out the current thread (its session's turns, buffered or moved on to the episodic layer,
  and any record equal to a message of the request): with a checkpointer those messages are
  already in the prompt.
- After the run (``after_agent``) it remembers the latest exchange: the last user message and
  the assistant's text replies after it (tool calls and tool results are not memories).
- The scope comes from the run context (``context=...`` of a ``context_schema`` with
  ``user_id`` / ``agent_id`` / ``session_id``), else the run config's ``configurable`` (the
  same keys, or ``langgraph_user_id``), else the constructor; the session falls back to the
  run's ``thread_id``. It is never read from model output.
- Sync and async hooks share the same helpers; async runs them in a worker thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from langchain_core.messages import BaseMessage, SystemMessage

from ._messages import last_human_text, message_text, to_turns, turn_tail
from ._scope import check_memory, recall_outside_session, scope_from_context

try:
    from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
except ImportError as exc:  # pragma: no cover - run in a subprocess by test_packaging
    raise ImportError(
        "PrismMemoryMiddleware needs langchain v1: pip install 'prism-memory[langchain]'"
    ) from exc

__all__ = ["PrismMemoryMiddleware"]

_TASK_FIELDS = ("task_id", "subgoal_id")


def _configurable() -> Mapping[str, Any]:
    """The current run's ``configurable`` (empty outside a LangGraph run)."""
    try:
        from langgraph.config import get_config

        return get_config().get("configurable") or {}
    except (RuntimeError, ImportError):
        return {}


def _with_context(system: SystemMessage | None, context: str) -> SystemMessage:
    if system is None:
        return SystemMessage(content=context)
    if isinstance(system.content, str):
        text = f"{system.content}\n\n{context}" if system.content else context
        return SystemMessage(content=text, id=system.id)
    blocks = [*system.content, {"type": "text", "text": context}]
    return SystemMessage(content=blocks, id=system.id)


class PrismMemoryMiddleware(AgentMiddleware):
    """Recall before every model call, remember after every turn.

    Setup:
        .. code-block:: python

            from dataclasses import dataclass
            from langchain.agents import create_agent
            from prism_memory import Memory
            from langchain_prism import PrismMemoryMiddleware

            @dataclass
            class Context:
                user_id: str

            memory = Memory(path="./.prism")
            agent = create_agent(
                model, tools=[], context_schema=Context,
                middleware=[PrismMemoryMiddleware(memory, budget_tokens=800)],
            )

    Use:
        .. code-block:: python

            agent.invoke({"messages": [{"role": "user", "content": "I'm vegan"}]},
                         context=Context(user_id="alice"),
                         config={"configurable": {"thread_id": "s1"}})
            # in a later session the model's system prompt holds "I'm vegan"
    """

    def __init__(
        self,
        memory: Any = None,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        budget_tokens: int = 1000,
        remember_turns: bool = True,
        end_session_after_turn: bool = False,
    ) -> None:
        super().__init__()
        self.memory = check_memory(memory, "PrismMemoryMiddleware")
        self.defaults = {"user_id": user_id, "agent_id": agent_id, "session_id": session_id}
        if not isinstance(budget_tokens, int) or budget_tokens < 16:
            raise ValueError(f"budget_tokens must be an integer >= 16, got {budget_tokens!r}")
        self.budget_tokens = budget_tokens
        self.remember_turns = remember_turns
        self.end_session_after_turn = end_session_after_turn

    # -- shared logic -------------------------------------------------------------------
    def _scope(self, context: Any) -> dict[str, str]:
        return scope_from_context(
            self.defaults, context, _configurable(), adapter="PrismMemoryMiddleware"
        )

    @staticmethod
    def _intent(state: Mapping[str, Any]) -> Any:
        """PRISM intent from the agent state's task fields (``None`` when it has none)."""
        fields = {name: state.get(name) for name in ("step", *_TASK_FIELDS)}
        if not any(fields.values()):
            return None
        from prism_memory.retrieval.intent import Intent

        return Intent.model_validate({k: str(v) for k, v in fields.items() if v})

    def _request_with_memory(self, request: ModelRequest) -> ModelRequest:
        query = last_human_text(request.messages)
        if not query:
            return request
        scope = self._scope(request.runtime.context if request.runtime else None)
        state: Mapping[str, Any] = request.state or {}
        # the thread's own messages are already in the prompt: recall what lies outside it
        ctx = recall_outside_session(
            self.memory,
            query,
            scope,
            thread_texts=[message_text(m) for m in request.messages],
            intent=self._intent(state),
            budget_tokens=self.budget_tokens,
        )
        if not ctx.text.strip():
            return request
        return request.override(system_message=_with_context(request.system_message, ctx.text))

    def _remember(self, state: Mapping[str, Any], context: Any) -> None:
        if not self.remember_turns:
            return
        messages: list[BaseMessage] = list(state.get("messages") or [])
        tail = [m for m in turn_tail(messages) if m.type in ("human", "ai")]
        turns = to_turns(tail)
        if not turns:
            return
        scope = self._scope(context)
        task = {name: str(state[name]) for name in _TASK_FIELDS if state.get(name)}
        self.memory.remember(turns, **scope, **task)
        if self.end_session_after_turn and "session_id" in scope:
            self.memory.end_session(**scope)

    # -- hooks --------------------------------------------------------------------------
    def wrap_model_call(
        self,
        request: ModelRequest,
        handler: Callable[[ModelRequest], ModelResponse],
    ) -> ModelResponse:
        return handler(self._request_with_memory(request))

    async def awrap_model_call(
        self,
        request: ModelRequest,
        handler: Callable[[ModelRequest], Awaitable[ModelResponse]],
    ) -> ModelResponse:
        # to_thread copies the context variables, so the run's config is visible there too
        return await handler(await asyncio.to_thread(self._request_with_memory, request))

    def after_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        self._remember(state, runtime.context if runtime is not None else None)
        return None

    async def aafter_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        context = runtime.context if runtime is not None else None
        await asyncio.to_thread(self._remember, state, context)
        return None
