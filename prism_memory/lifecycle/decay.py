"""Decay signals: freshness by half-life and access statistics, as pure functions.

Design: ranking code and forgetting share one definition of "how alive is this memory"
(the half-life formula is ``prism_memory.halflife.half_life_decay``, defined once, below
both; lifecycle imports nothing from ``retrieval/``):
``retention = utility`` weighted by freshness (half-life on the record's last use or its time)
and a small bonus for use (``access_count``). ``record_access`` updates ``last_accessed`` and
``access_count`` through ``Engine.update`` with payload updates only (never re-embedding):
records that share their new count go in one call, so touching the hits of a recall is
one or two store calls; given the records themselves (as recall has them), no read is needed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from pydantic import TypeAdapter

from ..halflife import half_life_decay
from ..records import MemoryRecord, Scope, utcnow

if TYPE_CHECKING:
    from ..engine import Engine

__all__ = ["record_access", "retention"]

_DT = TypeAdapter(datetime)


def retention(
    record: MemoryRecord, *, now: datetime | None = None, half_life_days: float = 30.0
) -> float:
    """How worth keeping a record is, in [0, 1]: utility x freshness, raised by use and importance.

    >>> from prism_memory import MemoryRecord
    >>> r = MemoryRecord(text="x", user_id="a")
    >>> round(retention(r), 2)
    0.5
    """
    now = now or utcnow()
    last = record.last_accessed or record.updated_at or record.created_at
    age = (now - max(last, record.time)).total_seconds() / 86400.0
    fresh = half_life_decay(age, half_life_days)
    use = 1.0 - math.exp(-record.access_count / 3.0)
    base = 0.75 * record.utility + 0.25 * record.importance
    base += (1.0 - base) * 0.3 * use
    return round(min(1.0, max(0.0, base * (0.5 + 0.5 * fresh))), 4)


def _within(record: MemoryRecord, scope: Scope) -> bool:
    return all(
        want is None or getattr(record, name) == want for name, want in scope.as_dict().items()
    )


def record_access(
    engine: Engine,
    scope: Scope,
    items: Sequence[str | MemoryRecord],
    *,
    now: datetime | None = None,
) -> int:
    """Set ``last_accessed`` = ``now`` and increment ``access_count``; returns how many.

    ``items``: record ids (their counts are read with one ``get``) or records (their counts are
    known: no read; the objects are updated in place). Records with the same new count are
    updated by one ``set_payload``. Unknown ids and records of another scope are ignored. A
    count is read once and written back: a concurrent touch of the same record may be lost,
    which a ranking signal tolerates.
    """
    known = {i.id: i for i in items if isinstance(i, MemoryRecord) and _within(i, scope)}
    # records of another scope are ignored; ids are read in the scope (unknown ones drop out)
    ids = [i for i in dict.fromkeys(i for i in items if isinstance(i, str)) if i not in known]
    records = list(known.values()) + (engine.store.get(ids, scope) if ids else [])
    if not records:
        return 0
    when = now or utcnow()
    stamp = _DT.dump_python(when, mode="json")
    by_count: dict[int, list[str]] = {}
    for record in records:
        by_count.setdefault(record.access_count + 1, []).append(record.id)
    for count, group in sorted(by_count.items()):
        # ranking bookkeeping: recall caches are not dropped for it
        engine.update(group, scope, {"last_accessed": stamp, "access_count": count}, announce=False)
    for record in known.values():
        record.access_count += 1
        record.last_accessed = when
    return len(records)
