"""The validated forms of a ``Memory.search`` and a ``Memory.recall`` call.

Design: ``Memory``'s public method is the one place their parameters and docstrings are written;
it hands the pipeline one of these frozen dataclasses, as httpx's ``get`` hands ``send`` a
``Request``. Building one validates it (the same checks, in the same order and with the same
messages, that the pipeline made before), so a stage never sees a bad value and nothing
downstream re-checks. Fields hold what the caller gave, with times already in UTC; the values
derived from several fields (the thread to leave out, its cache key) are properties. Fields are
keyword-only and have no defaults: the public method's signature is the one place those live.

Example:
    >>> from prism_memory.records import Scope
    >>> spec = dict(scope=Scope(user_id="alice"), limit=5, filters=None, include_history=False,
    ...             score_threshold=None, as_of=None)
    >>> SearchRequest(query="hotel budget", **spec).limit
    5
    >>> SearchRequest(query="", **spec)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    prism_memory.errors.ValidationError: query is empty or whitespace; pass the words to ...
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .._validation import check_text, check_utc
from ..config import RetrievalConfig
from ..errors import ValidationError
from ..records import Scope
from .context import thread_signature
from .intent import Intent
from .scoring import check_score_threshold

__all__ = ["RecallRequest", "SearchRequest", "as_of_time"]


def as_of_time(value: datetime | None) -> datetime | None:
    """``as_of`` validated: ``None`` or a datetime, in UTC (naive = UTC)."""
    if value is None:
        return None
    if not isinstance(value, datetime):
        raise ValidationError(f"as_of must be a datetime (naive = UTC), got {type(value).__name__}")
    return check_utc(value, "as_of")


@dataclass(frozen=True, kw_only=True)
class SearchRequest:
    """One ``Memory.search`` call, validated."""

    query: str
    scope: Scope
    limit: int
    filters: dict[str, Any] | None
    include_history: bool
    score_threshold: float | None
    as_of: datetime | None

    def __post_init__(self) -> None:
        check_text(self.query, "query")
        limit = self.limit
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1 or limit > 1000:
            raise ValidationError(f"limit must be an integer in [1, 1000], got {limit!r}")
        object.__setattr__(self, "score_threshold", check_score_threshold(self.score_threshold))
        object.__setattr__(self, "as_of", as_of_time(self.as_of))


@dataclass(frozen=True, kw_only=True)
class RecallRequest:
    """One ``Memory.recall`` call, validated (``now`` stays ``None`` when not given: the
    pipeline reads the clock, or ``as_of``, when it runs)."""

    query: str
    scope: Scope
    intent: Intent | None
    budget_tokens: int
    config: RetrievalConfig | None
    now: datetime | None
    as_of: datetime | None
    thread_session: str | None
    thread_texts: Sequence[str]

    def __post_init__(self) -> None:
        check_text(self.query, "query")
        budget = self.budget_tokens
        if not isinstance(budget, int) or isinstance(budget, bool) or budget < 1:
            raise ValidationError(
                f"budget_tokens must be a positive integer (tokens), got {budget!r}"
            )
        now = self.now
        if now is not None and not isinstance(now, datetime):
            raise ValidationError(f"now must be a datetime (naive = UTC), got {type(now).__name__}")
        if self.intent is not None and not isinstance(self.intent, Intent):
            raise ValidationError(
                f"intent must be a prism_memory.Intent, got {type(self.intent).__name__}; "
                "build one with Intent(step=..., kinds=[...])"
            )
        object.__setattr__(self, "as_of", as_of_time(self.as_of))
        texts: Any = self.thread_texts
        if isinstance(texts, (str, bytes)) or not hasattr(texts, "__iter__"):
            raise ValidationError(
                "thread_texts must be a list of strings (the texts of the messages in the "
                f"prompt), got {type(texts).__name__}; wrap a single message as [text]"
            )
        texts = tuple(texts)
        if not all(isinstance(t, str) for t in texts):
            bad = next(t for t in texts if not isinstance(t, str))
            raise ValidationError(
                f"thread_texts must hold strings only, got a {type(bad).__name__}; pass the "
                "text of each message in the prompt"
            )
        object.__setattr__(self, "thread_texts", texts)
        if now is not None:
            object.__setattr__(self, "now", check_utc(now, "now"))

    @property
    def thread(self) -> frozenset[str]:
        """The prompt's message texts (whitespace-normalised) whose records are left out."""
        return frozenset(" ".join(t.split()) for t in self.thread_texts if t and t.strip())

    @property
    def shows_thread(self) -> bool:
        """Whether the prompt shows a thread whose records are left out."""
        return self.thread_session is not None or bool(self.thread)

    def intent_key(self) -> str:
        """The part of the cache key the caller's intent and thread make."""
        key = self.intent.signature() if self.intent is not None else "-"
        if self.shows_thread:
            key += "|thread:" + thread_signature(self.thread_session, self.thread)
        return key
