"""``ScopeNames``: the speaker and entity names a scope's records hold, kept current by writes.

Design: query analysis needs the names a scope knows (speakers, entity keys with how many
records carry each, and the scope's record count, for the share cap that drops names tagged on
most records). They come from two payload facets and a count the first time a scope is read
(:meth:`ScopeNames.counts`), or never, for a scope this process saw begin: the first insert
into a user/agent scope that holds nothing else (one count) starts its counts from the
inserted records. After that the counts are maintained, not recomputed:
- a write event that carries the records it inserted adds them to every tracked scope they
  fall in (current, not quarantined: what a default read sees);
- an in-place update of fields the counts do not read (the layer a turn moved to, timestamps,
  access statistics, metadata: ``NAME_NEUTRAL_FIELDS``) leaves them as they are;
- any other write event (an edit, a supersession, a delete, a quarantine) drops the tracked
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
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from ..records import MemoryRecord, Scope, Status, Trust
from ..stores.base import MemoryStore, in_scope
from ..stores.filters import RecordFilter
from .cache import scopes_overlap

__all__ = ["NAME_NEUTRAL_FIELDS", "NameCounts", "ScopeNames", "known_names"]

_FACET_LIMIT = 2000
_ADOPT_TRIES = 4  # insert events into a new-looking scope before its count must agree
# payload fields whose change alters no speaker, entity key or visibility (status, trust)
NAME_NEUTRAL_FIELDS = frozenset(
    {
        "layer",
        "updated_at",
        "consolidated_at",
        "last_accessed",
        "access_count",
        "metadata",
        "utility",
        "importance",
        "extraction",
    }
)
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
        # scopes this process saw begin, counted from their inserts until one count of the
        # store agrees (then tracked); scopes that held other records are settled (facets)
        self._pending: dict[str, tuple[NameCounts, set[str], list[int]]] = {}
        self._settled: set[str] = set()
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
            self._pending.pop(key, None)
            return self._tracked[key]

    def on_write(
        self,
        scope: Scope | None,
        inserted: Sequence[MemoryRecord] | None,
        fields: AbstractSet[str] | None = None,
    ) -> None:
        """Add ``inserted`` records to the tracked scopes they fall in; an update that set
        only ``fields`` the counts do not read changes nothing; any other write drops the
        tracked scopes that overlap ``scope`` (``None``: all). An insert into a user/agent
        scope that held nothing before starts that scope's counts."""
        if inserted is None and fields is not None and fields <= NAME_NEUTRAL_FIELDS:
            return
        with self._lock:
            if scope is None:
                self._tracked.clear()
                self._settled.update(self._pending)
                self._pending.clear()
                return
            hit = [k for k, v in self._tracked.items() if scopes_overlap(scope, v.scope)]
            if inserted is None:
                for key in hit:
                    del self._tracked[key]
                for key in [
                    k for k, v in self._pending.items() if scopes_overlap(scope, v[0].scope)
                ]:
                    self._settled.add(key)
                    del self._pending[key]
                return
            for key in hit:
                counts = self._tracked[key]
                allowed = counts.scope.as_dict()
                for record in inserted:
                    if _visible(record) and in_scope(record.scope.as_dict(), allowed):
                        counts.add(record)
        self._adopt(inserted)

    def _adopt(self, inserted: Sequence[MemoryRecord]) -> None:
        """Count the user/agent scopes ``inserted`` falls in that this process saw begin.

        Each such scope gathers its inserted records (by id) until the store's count of its
        visible records equals theirs; then it is tracked like a scope read by facets. Equal
        counts mean nothing older is there: a record written but not yet announced when the
        store was counted is added by its own event, as for any tracked scope. A scope whose
        count never agrees (it held records before this process wrote) is settled after a few
        tries and read by facets when first needed."""
        owners = {_owner_scope(r.scope) for r in inserted if _visible(r)}
        for cand in (o for o in owners if o is not None):
            key = cand.key()
            allowed = cand.as_dict()
            with self._lock:
                if key in self._tracked or key in self._settled:
                    continue
                counts, ids, tries = self._pending.setdefault(key, (NameCounts(cand), set(), [0]))
                tries[0] += 1
                for record in inserted:
                    if (
                        record.id not in ids
                        and _visible(record)
                        and in_scope(record.scope.as_dict(), allowed)
                    ):
                        ids.add(record.id)
                        counts.add(record)
                wanted = len(ids)
            stored = self._store.count(cand, self._visible())
            with self._lock:
                if key not in self._pending:  # another change settled it meanwhile
                    continue
                if stored == wanted == len(self._pending[key][1]):
                    self._tracked[key] = self._pending.pop(key)[0]
                elif stored > wanted and tries[0] >= _ADOPT_TRIES:
                    self._settled.add(key)
                    del self._pending[key]


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
