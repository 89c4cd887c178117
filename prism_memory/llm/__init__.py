"""Every call to a chat model, in one package; here, what ``Memory(llm=...)`` needs from one.

PRISM calls one method, ``invoke(prompt)``, and reads the reply's text (a string, or an object
whose ``content`` is a string or a list of text blocks). Every LangChain ``BaseChatModel``
(``langchain_openai.ChatOpenAI``, ``FakeListChatModel``, ...) already fits; so does a small
class of your own around any other client.

Design:
- The model is optional everywhere: each use asks it through :mod:`.client` (a timeout on a
  worker thread, the reply read as text, failures logged by exception type only) and falls
  back to the deterministic path when it fails.
- One module per use, named for what it does: :mod:`.extraction` (schema-constrained facts
  from turns), :mod:`.summaries` (consolidation's digests and reflections), :mod:`.recall`
  (intent parsing and context compression), :mod:`.judge` (the poisoning screen's second
  opinion). The stages that use them (``layers/semantic.py``, ``lifecycle/consolidate.py``,
  ``retrieval/pipeline.py``, ``engine/screening.py``) import them; this ``__init__`` imports
  none of them, so ``from prism_memory.llm import ChatModel`` stays as light as before.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["ChatModel"]


@runtime_checkable
class ChatModel(Protocol):
    """Anything with ``invoke(prompt) -> reply``: the optional LLM of a :class:`Memory`.

    ``prompt`` is a string or a list of LangChain-style messages; the reply is a string or a
    message with ``.content``. PRISM calls it with a timeout and falls back to its deterministic
    path when the call fails, so an implementation may raise.

    Example:
        >>> class Echo:
        ...     def invoke(self, prompt: object, /) -> str:
        ...         return "no"
        >>> isinstance(Echo(), ChatModel)
        True
    """

    def invoke(self, prompt: Any, /) -> Any: ...
