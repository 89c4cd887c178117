"""The episodic layer: turns that left the buffer, kept verbatim and searchable.

Design:
- A turn enters the episodic layer when the buffer overflows (or the session ends): the move
  is a payload update of the same point (``layer`` and ``updated_at``), so its vector is
  reused, never recomputed; the turn keeps its id, session and turn index.
- The buffer decides *which* turns leave (``layers/buffer.py``: oldest first until both bounds
  hold); this module owns the move itself. Extracted events also live in this layer
  (``layers/semantic.py`` writes them), and consolidation later summarises its turns.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from pydantic import TypeAdapter

from ..records import Layer, MemoryRecord, Scope, utcnow

if TYPE_CHECKING:
    from ..engine import Engine

__all__ = ["move_to_episodic"]

_DT = TypeAdapter(datetime)


def move_to_episodic(engine: Engine, scope: Scope, ids: Sequence[str]) -> list[MemoryRecord]:
    """Move buffered turns of a session to the episodic layer; returns the moved records."""
    if not ids:
        return []
    engine.update(
        list(ids),
        scope,
        {"layer": Layer.EPISODIC.value, "updated_at": _DT.dump_python(utcnow(), mode="json")},
    )
    return engine.store.get(list(ids), scope)
