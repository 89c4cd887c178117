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

from dataclasses import dataclass, field
from typing import Any

from ..records import MemoryRecord

__all__ = ["CandidateTrace", "ContextItem", "MemoryContext", "RecallTrace"]


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
class ContextItem:
    """A record as shown in the context: its section and the text actually rendered.

    ``score`` is the PRISM score the record was ranked by (its scale depends on the weights);
    ``relevance`` is the cosine of the query and the record's vector clipped to [0, 1] (the
    same value as a ``Memory.search`` hit's ``score``), ``None`` on items built by hand.
    """

    record: MemoryRecord
    section: str
    shown: str
    score: float = 0.0
    routes: list[str] = field(default_factory=list)
    compressed: bool = False
    neighbour_of: str | None = None
    relevance: float | None = None


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
