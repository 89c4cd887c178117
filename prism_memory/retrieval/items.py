"""``ContextItem``: one record as a recall shows it (its own module, so rendering and the
context object can both use it without importing each other).

Design: a plain dataclass; ``retrieval.context`` re-exports it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..records import MemoryRecord

__all__ = ["ContextItem"]


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
