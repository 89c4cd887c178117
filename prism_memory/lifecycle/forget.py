"""Forgetting by policy: archive (default) or delete records that are old or no longer useful.

Design: criteria are ANDed — ``older_than`` (a datetime, an ISO string, or an age in days;
compared with the record's time), ``below_utility`` (decayed :func:`retention` under the
threshold), ``layer``. Archiving sets ``status=archived`` (hidden from default reads, kept for
audit and ``include_history=True``); deleting removes the points and purges the engine's files
so the text does not linger on disk. ``Memory.forget`` is the one place the parameters and their
defaults are written; it builds one frozen, keyword-only :class:`ForgetCriteria` (validated when
built, so a bad value changes nothing) and :func:`forget_records` takes it.

Example:
    >>> c = ForgetCriteria(older_than=None, below_utility=None, layer="episodic",
    ...                    mode="archive", include_history=True)
    >>> c.layer
    <Layer.EPISODIC: 'episodic'>
    >>> ForgetCriteria(older_than=None, below_utility=None, layer=None, mode="archive",
    ...                include_history=True)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    prism_memory.errors.ValidationError: forget needs a criterion: ...
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from .._messages import parse_time
from ..errors import ValidationError
from ..records import Layer, Scope, Status, utcnow
from ..stores import RecordFilter
from ..stores.filters import Condition
from .decay import retention

if TYPE_CHECKING:
    from ..engine import Engine

__all__ = ["ForgetCriteria", "forget_records", "parse_older_than"]


def parse_older_than(value: Any) -> datetime:
    """A cut-off time from a datetime, an ISO string or an age in days (number)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if not (isinstance(value, int) or math.isfinite(value)) or value < 0:
            raise ValidationError(
                f"older_than={value!r}: an age in days must be a finite number >= 0"
            )
        age: timedelta | None = None
        try:
            age = timedelta(days=float(value))
        except OverflowError:
            pass
        return _before_now(age, value)
    if isinstance(value, timedelta):
        if value < timedelta(0):
            raise ValidationError(f"older_than={value!r}: an age must be >= 0")
        return _before_now(value, value)
    cutoff = parse_time(value, "older_than")
    if cutoff is None:
        raise ValidationError("older_than is required here")
    return cutoff


def _before_now(age: timedelta | None, given: Any) -> datetime:
    """``now - age``, refused when it falls before year 1."""
    try:
        if age is not None:
            return utcnow() - age
    except OverflowError:
        pass
    raise ValidationError(
        f"older_than={given!r}: that age reaches back before year 1; pass an age below "
        f"{(utcnow() - datetime.min.replace(tzinfo=timezone.utc)).days} days, or a datetime"
    )


@dataclass(frozen=True, kw_only=True)
class ForgetCriteria:
    """One ``Memory.forget`` call's criteria, validated (ANDed; at least one of ``older_than``,
    ``below_utility``, ``layer``). ``older_than`` holds the cut-off time, ``layer`` a
    :class:`Layer`."""

    older_than: datetime | float | str | timedelta | None
    below_utility: float | None
    layer: Layer | str | None
    mode: str
    include_history: bool

    def __post_init__(self) -> None:
        mode, below = self.mode, self.below_utility
        if mode not in ("archive", "delete"):
            raise ValidationError(
                f"mode={mode!r}: use 'archive' (keeps the text, hidden) or 'delete'"
            )
        if self.older_than is None and below is None and self.layer is None:
            raise ValidationError(
                "forget needs a criterion: older_than=, below_utility= or layer= "
                "(use delete_all(...) to erase a whole scope)"
            )
        if below is not None and (
            isinstance(below, bool) or not isinstance(below, (int, float)) or not 0 <= below <= 1
        ):
            raise ValidationError(f"below_utility must be a number in [0, 1], got {below!r}")
        if self.layer is not None and not isinstance(self.layer, Layer):
            try:
                object.__setattr__(self, "layer", Layer(str(self.layer)))
            except ValueError:
                raise ValidationError(
                    f"unknown layer {self.layer!r}; use one of {', '.join(x.value for x in Layer)}"
                ) from None
        if self.older_than is not None:
            object.__setattr__(self, "older_than", parse_older_than(self.older_than))

    def record_filter(self) -> RecordFilter:
        """The store filter of the criteria (all but ``below_utility``, applied per record)."""
        flt = RecordFilter()
        if not self.include_history:
            flt.must.append(Condition("status", "eq", Status.ACTIVE.value))
        if self.mode == "archive":
            flt.must_not.append(Condition("status", "eq", Status.ARCHIVED.value))
        if isinstance(self.layer, Layer):
            flt.must.append(Condition("layer", "eq", self.layer.value))
        if isinstance(self.older_than, datetime):
            flt.must.append(Condition("ts", "range", {"lt": self.older_than.timestamp()}))
        return flt


def forget_records(engine: Engine, scope: Scope, criteria: ForgetCriteria) -> int:
    """Archive or delete the scope's records that match every criterion; returns how many."""
    below_utility, mode = criteria.below_utility, criteria.mode
    flt = criteria.record_filter()
    now = utcnow()
    half_life = engine.config.lifecycle.freshness_half_life_days
    chosen = [
        r.id
        for r in engine.iter_records(scope, flt)
        if below_utility is None or retention(r, now=now, half_life_days=half_life) < below_utility
    ]
    if not chosen:
        return 0
    if mode == "delete":
        engine.delete(chosen, scope, reindex=True)
        engine.purge()
        return len(chosen)
    for start in range(0, len(chosen), 256):
        batch = chosen[start : start + 256]
        engine.update(batch, scope, {"status": Status.ARCHIVED.value}, reindex=True)
    return len(chosen)
