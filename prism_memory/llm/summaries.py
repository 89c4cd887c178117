"""The LLM steps of consolidation: a window of turns distilled, insights drawn from summaries.

Design:
- Two pure-prompt functions over :func:`~prism_memory.llm.client.call_llm`, each given the
  model, the texts, the language to answer in and the timeout; consolidation
  (``lifecycle/consolidate.py``) decides when to call them and builds the records.
- Any failure (exception, timeout, empty or unparsable answer) returns ``None`` or ``[]`` and
  consolidation keeps its extractive summary; the log names that fallback, never the texts.

Example:
    >>> from langchain_core.language_models.fake_chat_models import FakeListChatModel
    >>> llm = FakeListChatModel(responses=['{"insights": ["Alice travels for work"]}'])
    >>> reflect_with_llm(llm, ["Alice flew to Rome for a client."], "English", 5.0)
    ['Alice travels for work']
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from .client import call_llm

__all__ = ["MAX_INSIGHTS", "reflect_with_llm", "summarise_with_llm"]

#: insights kept from one reflection
MAX_INSIGHTS = 3

_FALLBACK = "the extractive summary"


def summarise_with_llm(
    llm: Any, lines: Sequence[str], language: str, timeout_s: float
) -> str | None:
    """At most two sentences in ``language`` for ``lines`` (``"speaker: text"`` turns), or
    ``None`` when the model fails.

    >>> from langchain_core.language_models.fake_chat_models import FakeListChatModel
    >>> llm = FakeListChatModel(responses=["Bo booked Rome for May 3."])
    >>> summarise_with_llm(llm, ["user: I booked Rome for May 3"], "English", 5.0)
    'Bo booked Rome for May 3.'
    """
    prompt = (
        f"Summarise these conversation turns in {language}, in at most two "
        "sentences, keeping names, dates and numbers:\n" + "\n".join(lines)
    )
    return call_llm(llm, prompt, timeout_s, fallback=_FALLBACK)


def reflect_with_llm(
    llm: Any, summaries: Sequence[str], language: str, timeout_s: float
) -> list[str]:
    """Up to :data:`MAX_INSIGHTS` durable insights about the user in ``language``, drawn from
    session ``summaries``; ``[]`` when the model fails or answers anything but the JSON object
    ``{"insights": [...]}`` (code fences tolerated)."""
    body = "\n".join(f"- {s}" for s in summaries)
    text = call_llm(
        llm,
        f"From these conversation summaries, state up to {MAX_INSIGHTS} durable insights about "
        f'the user, in {language}, as JSON {{"insights": ["..."]}}.\n' + body,
        timeout_s,
        fallback=_FALLBACK,
    )
    if text is None:
        return []
    try:
        data = json.loads(re.sub(r"^```(?:json)?\s*|\s*```$", "", text))
        return [str(i) for i in data.get("insights", []) if str(i).strip()][:MAX_INSIGHTS]
    except (json.JSONDecodeError, AttributeError):
        return []
