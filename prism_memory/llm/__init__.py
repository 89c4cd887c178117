"""The chat-model protocol: what ``Memory(llm=...)`` needs from a language model.

PRISM calls one method, ``invoke(prompt)``, and reads the reply's text (a string, or an object
whose ``content`` is a string or a list of text blocks). Every LangChain ``BaseChatModel``
(``langchain_openai.ChatOpenAI``, ``FakeListChatModel``, ...) already fits; so does a small
class of your own around any other client.
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
