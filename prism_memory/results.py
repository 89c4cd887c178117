"""What a write did: every record added, updated, superseded or skipped, each with a reason.

Design: plain dataclasses, built by the write path and returned to the caller, so an agent (or a
test) can see exactly what happened to each message without reading the store again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .records import MemoryRecord

__all__ = ["SURFACES", "DeleteReport", "RecordChange", "RememberResult", "surface_of"]

#: where a record came from, as ``delete_all`` reports it (:func:`surface_of`)
SURFACES = (
    "conversation",
    "extracted",
    "memory_tools",
    "langgraph_store",
    "task_state",
    "api",
)


def surface_of(record: MemoryRecord) -> str:
    """The surface that wrote ``record``: ``langgraph_store`` (an item of ``PrismStore``),
    ``memory_tools`` (the LangChain memory tools), ``conversation`` (a turn given to
    ``remember`` or a chat adapter), ``extracted`` (a fact, event or summary derived from
    turns), ``task_state`` (working memory) or ``api`` (``add`` and the like).

    >>> surface_of(MemoryRecord(text="hi", user_id="a", metadata={"role": "user"}, layer="buffer"))
    'conversation'
    """
    meta = record.metadata
    if meta.get("prism_store") is not None:
        return "langgraph_store"
    surface = meta.get("surface")
    if isinstance(surface, str) and surface in SURFACES:
        return surface
    if record.layer.value in ("buffer", "episodic") and "role" in meta:
        return "conversation"
    if record.layer.value == "working":
        return "task_state"
    if record.provenance.source.value == "derived" or (
        record.layer.value in ("semantic", "episodic") and record.provenance.source_ids
    ):
        return "extracted"
    return "api"


class DeleteReport(int):
    """What a deletion removed. It is the number of records (an ``int``, as before), with the
    counts per layer (``by_layer``) and per surface (``by_surface``, see :func:`surface_of`).

    Example:
        >>> r = DeleteReport({"semantic": 2, "buffer": 1}, {"langgraph_store": 1, "conversation": 2})
        >>> r == 3, r.by_surface["langgraph_store"], r.as_dict()["total"]
        (True, 1, 3)
    """

    by_layer: dict[str, int]
    by_surface: dict[str, int]

    def __new__(cls, by_layer: dict[str, int], by_surface: dict[str, int]) -> DeleteReport:
        report = super().__new__(cls, sum(by_layer.values()))
        report.by_layer = dict(sorted(by_layer.items()))
        report.by_surface = dict(sorted(by_surface.items()))
        return report

    def as_dict(self) -> dict[str, object]:
        """``{"total", "by_layer", "by_surface"}`` (JSON-ready)."""
        return {"total": int(self), "by_layer": self.by_layer, "by_surface": self.by_surface}

    def __repr__(self) -> str:
        return (
            f"DeleteReport(total={int(self)}, by_layer={self.by_layer}, "
            f"by_surface={self.by_surface})"
        )


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
    ``Memory.release(id)``). ``dropped_links``: relationship links an extractor stated that
    were not stored, by reason (``unknown_type``, ``dangling``, ``self``; the LLM path).

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
    dropped_links: dict[str, int] = field(default_factory=dict)

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
        self.count_dropped_links(other.dropped_links)
        return self

    def count_dropped_links(self, dropped: dict[str, int]) -> None:
        """Add ``dropped`` (links not stored, by reason) to :attr:`dropped_links`."""
        for reason, n in dropped.items():
            self.dropped_links[reason] = self.dropped_links.get(reason, 0) + n

    def __bool__(self) -> bool:
        return bool(self.added or self.updated or self.superseded or self.quarantined)

    def __repr__(self) -> str:
        quarantined = f", quarantined={len(self.quarantined)}" if self.quarantined else ""
        return (
            f"RememberResult(added={len(self.added)}, updated={len(self.updated)}, "
            f"superseded={len(self.superseded)}, skipped={len(self.skipped)}{quarantined})"
        )
