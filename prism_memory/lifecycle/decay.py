"""Decay signals: freshness by half-life and access statistics, as pure functions.

Design: ranking code and forgetting share one definition of "how alive is this memory":
``retention = utility`` weighted by freshness (half-life on the record's last use or its time)
and a small bonus for use (``access_count``). ``record_access`` updates ``last_accessed`` and
``access_count`` on the store (one payload update per record, no re-embedding).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime

from pydantic import TypeAdapter

from ..records import MemoryRecord, Scope, utcnow
from ..stores import MemoryStore

__all__ = ["freshness", "record_access", "retention"]

_DT = TypeAdapter(datetime)


def freshness(age_days: float, half_life_days: float) -> float:
    """``0.5 ** (age / half_life)``: 1.0 now, 0.5 after one half-life.

    >>> freshness(0, 30), freshness(30, 30)
    (1.0, 0.5)
    """
    if half_life_days <= 0:
        raise ValueError("half_life_days must be > 0")
    return float(0.5 ** (max(0.0, age_days) / half_life_days))


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
    fresh = freshness(age, half_life_days)
    use = 1.0 - math.exp(-record.access_count / 3.0)
    base = 0.75 * record.utility + 0.25 * record.importance
    base += (1.0 - base) * 0.3 * use
    return round(min(1.0, max(0.0, base * (0.5 + 0.5 * fresh))), 4)


def record_access(store: MemoryStore, scope: Scope, record_ids: Sequence[str]) -> int:
    """Set ``last_accessed`` = now and increment ``access_count`` of the given records."""
    ids = [str(i) for i in record_ids]
    if not ids:
        return 0
    now = _DT.dump_python(utcnow(), mode="json")
    n = 0
    for record in store.get(ids, scope):
        store.set_payload(
            [record.id], scope, {"last_accessed": now, "access_count": record.access_count + 1}
        )
        n += 1
    return n
