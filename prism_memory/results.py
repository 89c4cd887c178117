"""What a write did: every record added, updated, superseded or skipped, each with a reason.

Design: plain dataclasses, built by the write path and returned to the caller, so an agent (or a
test) can see exactly what happened to each message without reading the store again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .records import MemoryRecord

__all__ = ["RecordChange", "RememberResult"]


@dataclass
class RecordChange:
    """One record and why it changed (or did not).

    Example:
        >>> from prism_memory import MemoryRecord
        >>> RecordChange(MemoryRecord(text="hi", user_id="a"), "buffered turn").reason
        'buffered turn'
    """

    record: MemoryRecord
    reason: str


@dataclass
class RememberResult:
    """The outcome of ``remember`` / ``end_session`` / ``flush_buffer``.

    ``added``: new records; ``updated``: records changed in place (a turn moved from the buffer
    to the episodic layer, a merged fact); ``superseded``: old versions closed by a
    contradicting value; ``skipped``: what was not written (a retried message id, a duplicate);
    ``quarantined``: turns the poisoning screen kept for audit only, each with its reason
    (review them with ``Memory.list(trust="quarantined")``, restore one with
    ``Memory.release(id)``).

    Example:
        >>> res = RememberResult()
        >>> res.ids, bool(res)
        ([], False)
    """

    added: list[RecordChange] = field(default_factory=list)
    updated: list[RecordChange] = field(default_factory=list)
    superseded: list[RecordChange] = field(default_factory=list)
    skipped: list[RecordChange] = field(default_factory=list)
    quarantined: list[RecordChange] = field(default_factory=list)

    @property
    def records(self) -> list[MemoryRecord]:
        """Records added or updated by the call (the current versions)."""
        return [c.record for c in self.added + self.updated]

    @property
    def ids(self) -> list[str]:
        return [r.id for r in self.records]

    def extend(self, other: RememberResult) -> RememberResult:
        self.added.extend(other.added)
        self.updated.extend(other.updated)
        self.superseded.extend(other.superseded)
        self.skipped.extend(other.skipped)
        self.quarantined.extend(other.quarantined)
        return self

    def __bool__(self) -> bool:
        return bool(self.added or self.updated or self.superseded or self.quarantined)

    def __repr__(self) -> str:
        quarantined = f", quarantined={len(self.quarantined)}" if self.quarantined else ""
        return (
            f"RememberResult(added={len(self.added)}, updated={len(self.updated)}, "
            f"superseded={len(self.superseded)}, skipped={len(self.skipped)}{quarantined})"
        )
