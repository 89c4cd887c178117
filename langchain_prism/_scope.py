"""Scope and argument handling shared by every adapter.

Design:
- One convention: the ``Memory`` comes first (positional, or ``memory=``), the scope as
  ``user_id`` / ``agent_id`` / ``session_id`` keywords. :func:`check_memory` gives a clear
  error when something else was passed.
- A run's scope is resolved from trusted inputs only: the adapter's constructor and the
  framework's run context (``runtime.context``, ``configurable``). Model output never reaches
  these functions, so a model cannot change whose memory it reads or writes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from prism_memory.errors import ConfigError, ScopeError
from prism_memory.records import SCOPE_FIELDS, Scope

__all__ = [
    "MemoryFirstArg",
    "check_memory",
    "recall_outside_session",
    "scope_from_context",
    "scope_kwargs",
]

#: ``configurable`` keys read as the run's user (ours first, then LangMem's convention).
_CONFIGURABLE_KEYS = {
    "user_id": ("user_id", "langgraph_user_id"),
    "agent_id": ("agent_id",),
    "session_id": ("session_id",),
}


def check_memory(memory: Any, adapter: str) -> Any:
    """Return ``memory`` if it looks like a :class:`prism_memory.Memory`, else raise."""
    if memory is None:
        raise ConfigError(
            f"{adapter} needs a Memory: pass it first, e.g. {adapter}(Memory(path='./.prism'), "
            "user_id='alice'), or as memory=..."
        )
    if not all(hasattr(memory, name) for name in ("add", "search", "list", "delete")):
        raise ConfigError(
            f"{adapter} got {type(memory).__name__} where a prism_memory.Memory was expected; "
            "create one with Memory(path=...) and pass it as the first argument"
        )
    return memory


def scope_kwargs(
    user_id: str | None, agent_id: str | None, session_id: str | None, *, adapter: str
) -> dict[str, str]:
    """Validate a scope given as keywords and return it as ``Memory`` keyword arguments."""
    try:
        scope = Scope.of(user_id, agent_id, session_id)
    except ScopeError as exc:
        raise ScopeError(f"{adapter}: {exc}") from None
    return scope.as_dict()


class MemoryFirstArg:
    """Mixin of the pydantic-based adapters: ``Adapter(memory, user_id=...)`` (or ``memory=``),
    the Memory and scope checked by :meth:`_check_adapter`, and the validated ``scope``."""

    def __init__(self, memory: Any = None, /, **data: Any) -> None:
        if memory is not None and "memory" in data:
            raise TypeError("pass the Memory once: positionally or as memory=, not both")
        if memory is not None:
            data["memory"] = memory
        super().__init__(**data)

    def _check_adapter(self) -> None:
        check_memory(getattr(self, "memory", None), type(self).__name__)
        self.scope  # noqa: B018 - validates the scope keywords

    @property
    def scope(self) -> dict[str, str]:
        """The scope every read and write of this adapter is confined to."""
        return scope_kwargs(
            getattr(self, "user_id", None),
            getattr(self, "agent_id", None),
            getattr(self, "session_id", None),
            adapter=type(self).__name__,
        )


def _read(source: Any, name: str) -> Any:
    if source is None:
        return None
    if isinstance(source, Mapping):
        return source.get(name)
    return getattr(source, name, None)


def scope_from_context(
    defaults: Mapping[str, str | None],
    context: Any = None,
    configurable: Mapping[str, Any] | None = None,
    *,
    adapter: str,
) -> dict[str, str]:
    """Merge a run's scope: constructor ``defaults``, then ``configurable``, then ``context``.

    ``context`` is a LangGraph ``runtime.context`` (dataclass, pydantic model, TypedDict or
    dict); ``configurable`` is the run config's ``configurable`` (``user_id`` -- or LangMem's
    ``langgraph_user_id`` -- ``agent_id``, ``session_id``). A field the context sets wins over
    ``configurable``, which wins over the constructor. ``session_id`` falls back to the run's
    ``thread_id`` so each conversation thread is a session. Both are set by the application
    that starts the run, never by the model.
    """
    merged: dict[str, str | None] = {name: defaults.get(name) for name in SCOPE_FIELDS}
    for name in SCOPE_FIELDS:
        for key in _CONFIGURABLE_KEYS.get(name, (name,)):
            value = configurable.get(key) if configurable else None
            if value is not None:
                merged[name] = str(value)
                break
        value = _read(context, name)
        if value is not None:
            merged[name] = str(value)
    if merged["session_id"] is None and configurable:
        thread_id = configurable.get("thread_id")
        if thread_id is not None:
            merged["session_id"] = str(thread_id)
    if merged["user_id"] is None and merged["agent_id"] is None:
        raise ScopeError(
            f"{adapter}: no user_id or agent_id for this run. Pass one to the constructor "
            "(e.g. user_id='alice'), in the run context (context={'user_id': 'alice'} with "
            "a context_schema that has a user_id field) or in the run config "
            "(config={'configurable': {'user_id': 'alice'}})"
        )
    return scope_kwargs(
        merged["user_id"], merged["agent_id"], merged["session_id"], adapter=adapter
    )


def recall_outside_session(
    memory: Any,
    query: str,
    scope: Mapping[str, str],
    *,
    thread_texts: Iterable[str] = (),
    **kwargs: Any,
) -> Any:
    """``memory.recall`` across the user's/agent's sessions, without the current conversation.

    The current conversation is not a memory: the turns of ``scope["session_id"]`` (buffered,
    or moved on to the episodic layer when the session ended or the buffer overflowed) and any
    record, of any layer, whose text is one of ``thread_texts`` (the messages already in the
    prompt) are left out before ranking (``recall(thread_session=..., thread_texts=...)``), so
    the budget goes to what the prompt does not already show.
    """
    session = scope.get("session_id")
    long_term = {k: v for k, v in scope.items() if k != "session_id"}
    texts = [t for t in thread_texts if t]
    return memory.recall(query, **long_term, thread_session=session, thread_texts=texts, **kwargs)
