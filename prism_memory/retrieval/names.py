"""``ScopeNames``: the speaker and entity names a scope's records hold, kept current by writes.

Design: query analysis needs the names a scope knows (speakers, entity keys with how many
records carry each, and the scope's record count, for the share cap that drops names tagged on
most records). They come from two payload facets and a count the first time a scope is read
(:meth:`ScopeNames.counts`), or never, for a scope this process saw begin: the first insert
into a user/agent scope that holds nothing else (one count) starts its counts from the
inserted records. After that the counts are maintained, not recomputed:
- a write event that carries the records it inserted adds them to every tracked scope they
  fall in (current, not quarantined: what a default read sees);
- any other write event (an update, a supersession, a delete, a quarantine) drops the tracked
  scopes it overlaps, which are read again by facets when next needed.
So an agent that recalls, remembers and recalls again reads the facets once per scope, not
after every turn. A record written again with the same id is counted twice until the next
non-insert event: the counts feed a share threshold, where that is immaterial, and the set
of names is exact.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..records import MemoryRecord, Scope, Status, Trust
from ..stores.base import MemoryStore, in_scope
from ..stores.filters import RecordFilter
from .cache import scopes_overlap

__all__ = ["NameCounts", "ScopeNames", "known_names"]

_FACET_LIMIT = 2000
_ROLES = frozenset({"user", "assistant", "system", "tool"})


@dataclass
class NameCounts:
    """Records per speaker and per entity key in one scope, and the scope's visible records."""

    scope: Scope
    speakers: Counter[str] = field(default_factory=Counter)
    entities: Counter[str] = field(default_factory=Counter)
    total: int = 0

    def add(self, record: MemoryRecord) -> None:
        self.total += 1
        if record.speaker:
            self.speakers[record.speaker] += 1
        self.entities.update(set(record.entity_keys))


def _visible(record: MemoryRecord) -> bool:
    return record.status == Status.ACTIVE and record.provenance.trust != Trust.QUARANTINED


class ScopeNames:
    """Per-scope name counts: facets on first read, then maintained by write events.

    Setup:
        >>> from prism_memory.stores.qdrant import QdrantStore  # doctest: +SKIP
        >>> names = ScopeNames(store, engine.visible_filter)    # doctest: +SKIP
        >>> engine.on_write(lambda e: names.on_write(e.scope, e.inserted))  # doctest: +SKIP

    Use:
        >>> names.counts(Scope(user_id="alice")).speakers  # doctest: +SKIP
        Counter({'Alice': 120, 'Bob': 97})
    """

    def __init__(self, store: MemoryStore, visible: Callable[[], RecordFilter]) -> None:
        self._store = store
        self._visible = visible
        self._tracked: dict[str, NameCounts] = {}
        self._settled: set[str] = set()  # scopes that held records before this process wrote
        self._events = 0
        self._lock = threading.Lock()
        self.facet_reads = 0  # how many scopes were read from the store (tests, profiles)

    def counts(self, scope: Scope) -> NameCounts:
        """The scope's counts (a copy-free view: callers only read it)."""
        key = scope.key()
        with self._lock:
            hit = self._tracked.get(key)
        if hit is not None:
            return hit
        flt = self._visible()
        got = NameCounts(scope)
        got.speakers.update(dict(self._store.facet("speaker", scope, flt, limit=_FACET_LIMIT)))
        got.entities.update(dict(self._store.facet("entity_keys", scope, flt, limit=_FACET_LIMIT)))
        got.total = self._store.count(scope, flt)
        with self._lock:
            self.facet_reads += 1
            # a write that landed while the facets ran may be in them or not: keep the first
            # reader's result only when no event dropped or extended the scope meanwhile
            self._tracked.setdefault(key, got)
            return self._tracked[key]

    def on_write(self, scope: Scope | None, inserted: Sequence[MemoryRecord] | None) -> None:
        """Add ``inserted`` records to the tracked scopes they fall in; without them (any
        other write), drop the tracked scopes that overlap ``scope`` (``None``: all). An
        insert into a user/agent scope that held nothing before starts that scope's counts."""
        with self._lock:
            self._events += 1
            seen = self._events
            if scope is None:
                self._tracked.clear()
                return
            hit = [k for k, v in self._tracked.items() if scopes_overlap(scope, v.scope)]
            if inserted is None:
                for key in hit:
                    del self._tracked[key]
                return
            for key in hit:
                counts = self._tracked[key]
                allowed = counts.scope.as_dict()
                for record in inserted:
                    if _visible(record) and in_scope(record.scope.as_dict(), allowed):
                        counts.add(record)
        self._adopt(inserted, seen)

    def _adopt(self, inserted: Sequence[MemoryRecord], seen: int) -> None:
        """Start counting the user/agent scopes ``inserted`` began: those whose visible
        records in the store are exactly the inserted ones (one count each, once per scope
        and process). Skipped when another write was announced meanwhile."""
        owners = {_owner_scope(r.scope) for r in inserted if _visible(r)}
        for cand in (o for o in owners if o is not None):
            key = cand.key()
            with self._lock:
                if key in self._tracked or key in self._settled:
                    continue
            allowed = cand.as_dict()
            mine = [r for r in inserted if _visible(r) and in_scope(r.scope.as_dict(), allowed)]
            began = self._store.count(cand, self._visible()) == len({r.id for r in mine})
            with self._lock:
                if self._events != seen or key in self._tracked:
                    return
                if not began:
                    self._settled.add(key)
                    continue
                counts = NameCounts(cand)
                for record in mine:
                    counts.add(record)
                self._tracked[key] = counts


def _owner_scope(scope: Scope) -> Scope | None:
    """The scope a recall of this record's owner reads: its user (or agent), no session."""
    if scope.user_id is None and scope.agent_id is None:
        return None
    return Scope(user_id=scope.user_id, agent_id=scope.agent_id if scope.user_id is None else None)


def known_names(
    counts: NameCounts, max_share: float
) -> tuple[frozenset[str], dict[str, list[str]]]:
    """Entity keys and speakers (normalised name -> spellings) a query can name.

    Speakers are also known by their first name ("Priya Shah" is asked about as "Priya"). An
    entity tagged on a large share of the records (a speaker's own name, a word the extractor
    over-tags) does not narrow anything: like a term with no IDF, it is skipped.

    >>> c = NameCounts(Scope(user_id="u"), Counter({"Priya Shah": 3}), Counter({"tokyo": 1}), 9)
    >>> known_names(c, 0.2)
    (frozenset({'tokyo'}), {'priya shah': ['Priya Shah'], 'priya': ['Priya Shah']})
    """
    speakers: dict[str, list[str]] = {}
    for value in counts.speakers:
        norm = value.casefold().strip()
        if norm and norm not in _ROLES:
            speakers.setdefault(norm, []).append(value)
            first = norm.split()[0]
            if first != norm and len(first) > 2:
                speakers.setdefault(first, []).append(value)
    cap = max(3.0, max_share * max(1, counts.total))
    entities = frozenset(v for v, n in counts.entities.items() if n <= cap and v not in speakers)
    return entities, speakers
