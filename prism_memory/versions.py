"""Versions of a memory: what ``Memory.history(memory_id)`` returns, built by a pure function.

Design:
- Nothing is overwritten: every change to a memory leaves the earlier state as a record of its
  own (a *version*: the same text, fields and vector, ``status=superseded``, ``valid_to``
  closed, ``metadata["superseded_by"]`` naming its successor). A keyed fact keeps its id for
  its current value and its versions sit at derived ids (``<id>#v<n>``); a record replaced by
  meaning (a change statement said in other words) is closed in place and linked both ways
  (``supersedes`` / ``contradicts``) to the record that replaced it.
- Each state says how it came about in ``metadata["change"]`` (``event``: ``updated`` by
  ``Memory.update`` or a merge, ``superseded`` by a contradicting value, ``restored`` by
  ``Memory.restore``; ``reason``; ``source``). The first state is ``added``; a state archived
  by ``forget`` ends with ``deleted``. ``Memory.delete`` erases a memory with its versions
  (the right to be forgotten), so a deleted id has no history to show.
- :func:`build_history` turns the states of one lineage (oldest first) into the events a mem0
  or Zep user expects: one :class:`MemoryVersion` per event, each with its time, text, the
  text before, source and reason; the store reads live in ``_version_api.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from .records import MemoryRecord, Status

__all__ = ["MemoryVersion", "VersionEvent", "build_history", "change_note"]

VersionEvent = Literal["added", "updated", "superseded", "restored", "deleted"]


class MemoryVersion(BaseModel):
    """One event in a memory's history.

    Example:
        >>> from prism_memory import Memory, FakeEmbedder
        >>> m = Memory(location=":memory:", embedder=FakeEmbedder())
        >>> r = m.add("Budget: 500 a night", user_id="a")
        >>> _ = m.update(r.id, user_id="a", text="Budget: 800 a night", reason="raised")
        >>> [(v.event, v.text) for v in m.history(r.id, user_id="a")]
        [('added', 'Budget: 500 a night'), ('updated', 'Budget: 800 a night')]
        >>> m.close()
    """

    memory_id: str = Field(description="The id that was asked about.")
    record_id: str = Field(description="The stored record that holds this state.")
    version: int = Field(description="1 for the first state, counting every change.")
    event: VersionEvent
    time: datetime = Field(description="When the event took effect (the state's valid_from).")
    text: str | None = Field(description="The memory's text after the event (None: deleted).")
    previous_text: str | None = None
    fields: dict[str, Any] = Field(default_factory=dict)
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    source: str = Field(default="user", description="Who produced the state's content.")
    reason: str = ""
    current: bool = Field(default=False, description="Whether this state holds now.")


def change_note(event: VersionEvent, reason: str, source: str | None = None) -> dict[str, str]:
    """The ``metadata["change"]`` of a state: how it came about."""
    note = {"event": event, "reason": reason}
    if source:
        note["source"] = source
    return note


def _first_reason(record: MemoryRecord) -> str:
    extractor = record.metadata.get("extractor")
    if extractor and record.schema_name:
        return f"extracted {record.schema_name} ({extractor})"
    return "added"


def build_history(memory_id: str, states: Sequence[MemoryRecord]) -> list[MemoryVersion]:
    """The events of a lineage of states (oldest first).

    >>> from prism_memory.records import MemoryRecord
    >>> a = MemoryRecord(text="lives in Lisbon", user_id="u")
    >>> b = MemoryRecord(text="lives in Porto", user_id="u",
    ...                  metadata={"change": {"event": "superseded", "reason": "moved"}})
    >>> [(v.event, v.previous_text) for v in build_history(b.id, [a, b])]
    [('added', None), ('superseded', 'lives in Lisbon')]
    """
    out: list[MemoryVersion] = []
    previous: MemoryRecord | None = None
    for n, state in enumerate(states, start=1):
        note = state.metadata.get("change")
        note = note if isinstance(note, dict) else {}
        event = "added" if previous is None else str(note.get("event") or "updated")
        if event not in ("added", "updated", "superseded", "restored"):
            event = "updated"
        reason = str(note.get("reason") or (_first_reason(state) if previous is None else ""))
        out.append(
            MemoryVersion(
                memory_id=memory_id,
                record_id=state.id,
                version=n,
                event=event,  # type: ignore[arg-type]  # checked above
                time=state.valid_from or state.created_at,
                text=state.text,
                previous_text=previous.text if previous is not None else None,
                fields={k: v for k, v in state.fields.items() if k not in ("reasons", "evidence")},
                valid_from=state.valid_from,
                valid_to=state.valid_to,
                source=str(note.get("source") or state.provenance.source.value),
                reason=reason,
                current=state.status == Status.ACTIVE and state.valid_to is None,
            )
        )
        previous = state
    last = states[-1] if states else None
    if last is not None and last.status == Status.ARCHIVED:
        out.append(
            MemoryVersion(
                memory_id=memory_id,
                record_id=last.id,
                version=len(out) + 1,
                event="deleted",
                time=last.updated_at,
                text=None,
                previous_text=last.text,
                valid_from=last.valid_from,
                valid_to=last.valid_to,
                source=last.provenance.source.value,
                reason=str(last.metadata.get("archived_reason") or "archived by forget()"),
            )
        )
    return out
