"""A schema instance proposed by an extractor, before validation and reconciliation."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..records import Entity

__all__ = ["CandidateLink", "FactCandidate"]


@dataclass
class CandidateLink:
    """A relationship an extractor stated from its candidate to another memory, before the
    ids are known: ``item`` is another candidate of the same answer, ``record_id`` a record
    the extractor was shown (a turn). ``type`` is one of ``links.LINK_TYPES``.

    >>> CandidateLink("after", record_id="0b9c...").type
    'after'
    """

    type: str
    item: FactCandidate | None = None
    record_id: str | None = None


@dataclass
class FactCandidate:
    """A schema instance proposed by an extractor, not yet validated or reconciled.

    ``key``: the identity the extractor chose (``None``: the schema's entity key). A slot
    ("budget", "home city") keeps the schema key, so a later value supersedes the earlier one;
    a statement that can hold many values ("plays bass", "plays tennis") gets a key that
    includes its value. ``retire``: words naming what this candidate replaces ("the Madrid
    flight is now on March 19" -> ``["madrid"]``); current records of the same holder that
    contain all of them are closed when it is written; ``retire_date`` (``YYYY-MM-DD``) closes
    the holder's current events on that day ("五一的计划改了，我们改去厦门"). ``replaces``: ids
    of current records this candidate is the new value of, found by meaning
    (``layers/slots.py``); they are closed when it is written. ``conflicts``: ids of current
    records of the same slot that it contradicts without replacing (no change was said); both
    stay current, linked ``conflicts``, and a context shows the newer first. ``generic``: a
    statement rather than a slot; dropped when its clause also gave a slot, a preference or an
    event. ``links``: relationships to other memories the extractor stated
    (:class:`CandidateLink`); the write path resolves them to ids and stores them as
    ``relations`` (``layers/relations.py``).
    """

    schema: str
    fields: dict[str, Any]
    confidence: float = 0.8
    importance: float = 0.6
    entities: list[Entity] = field(default_factory=list)
    event_time: datetime | None = None
    source_ids: list[str] = field(default_factory=list)
    evidence: str = ""
    extractor: str = "rules"
    key: str | None = None
    retire: list[str] = field(default_factory=list)
    retire_date: str | None = None
    replaces: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    generic: bool = False
    links: list[CandidateLink] = field(default_factory=list)
