"""``MemoryContext``: what ``recall`` returns, and ``RecallTrace``, how it was built.

Design:
- ``text`` is the rendered block, ready for a prompt; ``records`` the chosen records in context
  order; ``tokens`` the cl100k count of ``text`` (never above the budget).
- ``trace`` records every stage (intent, routes, candidates with the routes that found them and
  their score parts, what was cut and why) so a surprising context can be explained.
- ``items`` keeps what was shown per record (a compressed turn shows only some sentences), and
  ``covered_ids`` which source turns each shown record stands for.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..records import MemoryRecord
from ..tokens import count_tokens
from .items import ContextItem
from .render import render

__all__ = [
    "CandidateTrace",
    "ContextItem",
    "MemoryContext",
    "RecallTrace",
    "in_thread",
    "thread_signature",
]


def _norm(text: str) -> str:
    return " ".join(text.split())


def in_thread(record: MemoryRecord, session_id: str | None, texts: Iterable[str]) -> bool:
    """Whether the conversation in the prompt already shows ``record``: a record of the
    session ``session_id`` (its turns, buffered or moved on to the episodic layer, and a
    summary of that session; long-term facts are not session-scoped), or a record whose text is
    one of ``texts`` (the messages in the prompt; whitespace-insensitive). The one rule of
    "drop what the thread already shows", for recall and for :meth:`MemoryContext.without`.

    >>> r = MemoryRecord(text="I'm  vegan", user_id="a", session_id="t1", metadata={"role": "user"})
    >>> in_thread(r, "t1", ()), in_thread(r, None, ["I'm vegan"]), in_thread(r, "t2", ())
    (True, True, False)
    """
    if session_id is not None and session_id in (
        record.session_id,
        record.metadata.get("session_id"),  # a summary of that session's turns
    ):
        return True
    shown = texts if isinstance(texts, (set, frozenset)) else {_norm(t) for t in texts if t}
    return _norm(record.text) in shown


def thread_signature(session_id: str | None, texts: Iterable[str]) -> str:
    """A short key of a thread view (for the recall cache)."""
    blob = "\x1e".join([session_id or "", *sorted({_norm(t) for t in texts if t})])
    return hashlib.blake2b(blob.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


@dataclass
class CandidateTrace:
    """One candidate of the broad retrieve: where it came from and how it scored."""

    id: str
    routes: dict[str, int] = field(default_factory=dict)  # route -> rank (0 = best)
    fused: float = 0.0
    scores: dict[str, float] = field(default_factory=dict)  # score parts and ``total``
    outcome: str = "candidate"  # kept | cut:<reason>
    section: str | None = None


@dataclass
class RecallTrace:
    """Per-stage record of one ``recall`` call (observability is a feature)."""

    intent: dict[str, Any] = field(default_factory=dict)
    routes: dict[str, int] = field(default_factory=dict)  # route -> hits returned
    candidates: list[CandidateTrace] = field(default_factory=list)
    contradictions: list[tuple[str, str]] = field(default_factory=list)
    expanded: list[str] = field(default_factory=list)
    compression: str = "extractive"
    cached: bool = False
    timings_ms: dict[str, float] = field(default_factory=dict)

    def candidate(self, record_id: str) -> CandidateTrace | None:
        """The trace of one candidate, or ``None`` if the broad retrieve never saw it."""
        for c in self.candidates:
            if c.id == record_id:
                return c
        return None

    def cut(self) -> dict[str, str]:
        """``{record_id: reason}`` for every candidate that did not reach the context."""
        return {c.id: c.outcome[4:] for c in self.candidates if c.outcome.startswith("cut:")}

    def as_dict(self) -> dict[str, Any]:
        return {
            "intent": self.intent,
            "routes": dict(self.routes),
            "candidates": [c.__dict__ for c in self.candidates],
            "contradictions": [list(p) for p in self.contradictions],
            "expanded": list(self.expanded),
            "compression": self.compression,
            "cached": self.cached,
            "timings_ms": dict(self.timings_ms),
        }


@dataclass
class MemoryContext:
    """The result of :meth:`Memory.recall`: a token-budgeted, rendered context.

    Example:
        >>> from prism_memory import Memory, FakeEmbedder
        >>> m = Memory(location=":memory:", embedder=FakeEmbedder())
        >>> _ = m.add("I prefer window seats", user_id="alice", kind="preference")
        >>> ctx = m.recall("which seat?", user_id="alice", budget_tokens=200)
        >>> ctx.tokens <= 200, "window seats" in ctx.text
        (True, True)
        >>> m.close()
    """

    text: str
    records: list[MemoryRecord]
    tokens: int
    budget_tokens: int
    trace: RecallTrace = field(default_factory=RecallTrace)
    items: list[ContextItem] = field(default_factory=list)

    def __str__(self) -> str:
        return self.text

    def __len__(self) -> int:
        return len(self.records)

    @property
    def ids(self) -> list[str]:
        """Ids of the records in context order (pass them to ``Memory.feedback``)."""
        return [r.id for r in self.records]

    def without(self, *, session_id: str | None = None, texts: Iterable[str] = ()) -> MemoryContext:
        """This context without what the current conversation already shows, rendered again.

        Left out: the turns of ``session_id`` (buffered, or moved on to the episodic layer
        when the session ended or the buffer overflowed), and any record, of any layer, whose
        text is one of ``texts`` (the messages already in the prompt; whitespace-insensitive).
        Every adapter that puts a recall next to a conversation uses this one rule. A context
        an LLM compressed cannot be split and is returned as it is.

        >>> from prism_memory import MemoryRecord
        >>> r = MemoryRecord(text="I'm vegan", user_id="a", session_id="t1", layer="buffer",
        ...                  metadata={"role": "user"})
        >>> ctx = MemoryContext("...", [r], 5, 100, items=[ContextItem(r, "buffer", r.text)])
        >>> len(ctx.without(session_id="t1")), len(ctx.without(texts=["I'm  vegan"]))
        (0, 0)
        """
        shown = frozenset(_norm(t) for t in texts if t and t.strip())
        if self.trace.compression.startswith("llm"):
            return self
        keep = [item for item in self.items if not in_thread(item.record, session_id, shown)]
        if len(keep) == len(self.items):
            return self
        text = render(keep)
        return MemoryContext(
            text,
            [item.record for item in keep],
            count_tokens(text) if text else 0,
            self.budget_tokens,
            self.trace,
            keep,
        )
