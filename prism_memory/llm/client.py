"""Calling the optional chat model: one place for the timeout and for reading its answer.

Design:
- :func:`message_text` reads a LangChain reply (a message whose ``content`` is a string or a list
  of content blocks, or a plain string) as text.
- :func:`call_llm` runs ``llm.invoke`` on a worker thread with a timeout; an exception or a
  timeout returns ``None`` and logs a warning naming the fallback the caller takes. Only the
  exception's type is logged: a provider error may echo the prompt, and prompts hold memories.
"""

from __future__ import annotations

import concurrent.futures
import logging
from typing import Any

__all__ = ["call_llm", "message_text"]

log = logging.getLogger("prism_memory")


def message_text(reply: Any) -> str:
    """The text of a chat model's reply.

    >>> message_text("plain"), message_text([{"type": "text", "text": "a"}, "b"])
    ('plain', 'ab')
    """
    content = getattr(reply, "content", reply)
    if isinstance(content, list):  # content blocks
        content = "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)
    return str(content)


def call_llm(llm: Any, prompt: Any, timeout_s: float, *, fallback: str) -> str | None:
    """The stripped text ``llm`` answers to ``prompt``, or ``None`` (logged, with ``fallback``)
    on an exception, a timeout or an empty answer."""
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    try:
        reply = pool.submit(llm.invoke, prompt).result(timeout=timeout_s)
    except concurrent.futures.TimeoutError:
        log.warning("LLM call timed out after %.1fs; %s", timeout_s, fallback)
        return None
    except Exception as exc:  # any model/provider failure falls back
        log.warning("LLM call failed (%s); %s", type(exc).__name__, fallback)
        return None
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    return message_text(reply).strip() or None
