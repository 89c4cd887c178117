"""Engine-neutral filters and the parser for the user-facing ``filters={...}`` dict.

A :class:`RecordFilter` is a list of ``must`` and ``must_not`` conditions; each engine turns it
into its own filter type. The scope is never part of it: engines add the scope themselves.

User syntax (``Memory.search / recall / list(..., filters=...)``, ``prism --filter``)::

    {"layer": "semantic"}                          # equality
    {"kind": ["fact", "preference"]}               # any of
    {"event_time": {"gte": dt1, "lt": dt2}}        # datetime range
    {"importance": {"gte": 0.7}}                   # number range
    {"entities": "zhang"}                          # entity key (normalised)
    {"metadata.topic": "travel"}                   # a metadata field
    {"task_id": None}                              # field is empty

The ``$``-operator dialect of LangGraph / mem0 / MongoDB is the same parser, key by key:
``{"kind": {"$in": [...]}}``, ``{"$nin": [...]}``, ``{"$eq": v}``, ``{"$ne": v}``,
``{"$gt" / "$gte" / "$lt" / "$lte": x}`` (``"gt"`` etc. without ``$`` are the same ranges), and
a top-level ``{"$and": [filters, ...]}``. Filters are an AND of conditions plus negations
(``$ne``, ``$nin``), so ``$or`` is refused with what to write instead.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from typing import Any, Literal

from .._validation import INT64_MAX, INT64_MIN, check_string
from ..errors import ValidationError
from ..records import is_record_id, normalize_entity

__all__ = [
    "DOLLAR_OPS",
    "Condition",
    "RecordFilter",
    "parse_filters",
    "to_iso",
]

Op = Literal["eq", "any", "range", "empty"]

FILTERABLE = {
    "layer",
    "kind",
    "task_id",
    "subgoal_id",
    "parent_task_id",
    "status",
    "trust",
    "source",
    "schema",
    "speaker",
    "entity_keys",
    "source_ids",
    "event_time",
    "created_at",
    "updated_at",
    "ts",
    "importance",
    "utility",
    "confidence",
    "id",
}
_ALIASES = {"entities": "entity_keys", "entity": "entity_keys", "schema_name": "schema"}
_DATETIME_KEYS = {"event_time", "created_at", "updated_at"}
_RANGE_OPS = {"gt", "gte", "lt", "lte"}
# the operator dialect (LangGraph / mem0 / MongoDB): one parser with the plain form above
DOLLAR_OPS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin")
_ACCEPTED_OPS = ", ".join((*DOLLAR_OPS, "gt", "gte", "lt", "lte"))
# the JSON paths Qdrant accepts (both engines): word-character or quoted keys, each with an
# optional [] or [N], joined by dots
_PATH_KEY = r'(?:[\w-]+|"[^"\\]+")(?:\[[0-9]*\])?'
_METADATA_PATH = re.compile(rf"metadata(?:\.{_PATH_KEY})+")


@dataclass(frozen=True)
class Condition:
    key: str
    op: Op
    value: Any = None


@dataclass
class RecordFilter:
    """AND of ``must`` conditions, none of ``must_not``."""

    must: list[Condition] = field(default_factory=list)
    must_not: list[Condition] = field(default_factory=list)

    def __and__(self, other: RecordFilter | None) -> RecordFilter:
        if other is None:
            return self
        return RecordFilter(self.must + other.must, self.must_not + other.must_not)

    def is_empty(self) -> bool:
        return not self.must and not self.must_not

    @staticmethod
    def eq(key: str, value: Any) -> RecordFilter:
        return RecordFilter(must=[Condition(key, "eq", value)])

    @staticmethod
    def any_of(key: str, values: list[Any]) -> RecordFilter:
        return RecordFilter(must=[Condition(key, "any", list(values))])


def to_iso(value: Any, key: str) -> str:
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        try:
            utc = value.astimezone(timezone.utc)
        except OverflowError:
            raise ValidationError(
                f"filter {key!r}: {value.isoformat()} falls outside years 1-9999 once converted "
                "to UTC; pass a time within that range"
            ) from None
        return str(utc.isoformat()).replace("+00:00", "Z")
    if isinstance(value, date):
        return (
            datetime(value.year, value.month, value.day, tzinfo=timezone.utc)
            .isoformat()
            .replace("+00:00", "Z")
        )
    if isinstance(value, str):
        try:
            return to_iso(datetime.fromisoformat(value.replace("Z", "+00:00")), key)
        except ValueError:
            pass
    raise ValidationError(f"filter {key!r} needs a datetime or an ISO-8601 string, got {value!r}")


def _range(key: str, spec: dict[str, Any]) -> Condition:
    unknown = set(spec) - _RANGE_OPS
    if unknown or not spec:
        raise ValidationError(
            f"filter {key!r}: range keys must be among gt, gte, lt, lte; got {sorted(spec)}"
        )
    if key in _DATETIME_KEYS:
        return Condition(key, "range", {op: to_iso(v, key) for op, v in spec.items()})
    out: dict[str, float] = {}
    for op, v in spec.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ValidationError(f"filter {key!r}: {op} needs a number, got {v!r}")
        try:
            bound = float(v)
        except OverflowError:
            bound = math.inf
        if not math.isfinite(bound):  # the engine panics on NaN
            raise ValidationError(
                f"filter {key!r}: {op} needs a finite number, got {v!r}; drop the bound to "
                "leave that side open"
            )
        out[op] = bound
    return Condition(key, "range", out)


def _scalar(key: str, value: Any) -> str | int:
    if hasattr(value, "value") and isinstance(value.value, str):  # enums
        value = value.value
    if key == "entity_keys" and isinstance(value, str):
        return normalize_entity(check_string(value, f"filter {key!r}"))
    if isinstance(value, bool):
        # qdrant-edge-py 0.9 turns a Python bool into an integer before matching, so a boolean
        # filter would silently match nothing on the embedded engine: refuse it on every engine.
        raise ValidationError(
            f"filter {key!r}: boolean filter values are not supported; store the flag as a "
            "string ('yes'/'no') or an integer (1/0) and filter on that"
        )
    if isinstance(value, str):
        return check_string(value, f"filter {key!r}")
    if isinstance(value, int):
        if not INT64_MIN <= value <= INT64_MAX:
            raise ValidationError(
                f"filter {key!r}: {value} is outside the 64-bit integer range "
                "(-2**63 .. 2**63-1), so no stored value can equal it; filter on a string "
                "if you stored the number as one"
            )
        return value
    raise ValidationError(
        f"filter {key!r}: values must be strings or integers, got {type(value).__name__}"
    )


def _key(raw_key: Any) -> str:
    """The stored field a user filter key names (aliases resolved), or a ValidationError."""
    if not isinstance(raw_key, str) or not raw_key:
        raise ValidationError(f"filter keys must be non-empty strings, got {raw_key!r}")
    key = _ALIASES.get(raw_key, raw_key)
    if key in ("user_id", "agent_id", "session_id"):
        raise ValidationError(f"{key} is a scope, not a filter: pass it as a keyword ({key}=...)")
    if key.startswith("$"):
        raise ValidationError(
            f"unknown filter operator {raw_key!r} at the top level; there only $and is accepted "
            f"(field operators go inside a field: {{'kind': {{'$in': [...]}}}}: {_ACCEPTED_OPS})"
        )
    if key not in FILTERABLE and not key.startswith("metadata."):
        raise ValidationError(
            f"unknown filter key {raw_key!r}; use one of {sorted(FILTERABLE | {'entities'})} "
            "or 'metadata.<field>'"
        )
    if key.startswith("metadata.") and not _METADATA_PATH.fullmatch(key):
        raise ValidationError(
            f"filter key {raw_key!r} is not a metadata path: use metadata.<key>[.<key>...] "
            "with keys of letters, digits, _ and -, optionally followed by [] (any list "
            "item) or [N]; quote other keys: 'metadata.\"my key\"'"
        )
    return key


def _ids(value: Any) -> list[str]:
    ids = list(value) if isinstance(value, (list, tuple, set)) else [value]
    bad = [v for v in ids if not is_record_id(v)]
    if bad or not ids:
        raise ValidationError(
            f"filter 'id': {bad[0] if bad else value!r} is not a memory id; ids are UUID "
            "strings as returned by add() / list()"
        )
    return [str(v) for v in ids]


def _any(key: str, value: Any) -> Condition:
    """``key`` equal to any of ``value`` (a list, tuple or set)."""
    if not isinstance(value, (list, tuple, set)):
        raise ValidationError(f"filter {key!r}: $in / $nin need a list, got {value!r}")
    if key == "id":
        return Condition(key, "any", _ids(value))
    values = [_scalar(key, v) for v in value]
    if not values:
        raise ValidationError(f"filter {key!r}: empty list matches nothing; drop the key")
    return Condition(key, "any", values)


def _equal(key: str, value: Any) -> Condition:
    """``key`` equal to ``value`` (``None``: the field is empty; a list: any of it)."""
    if key == "id":
        return Condition(key, "any", _ids(value))
    if value is None:
        return Condition(key, "empty")
    if isinstance(value, (list, tuple, set)):
        return _any(key, value)
    return Condition(key, "eq", _scalar(key, value))


def _operators(key: str, spec: dict[str, Any], out: RecordFilter) -> None:
    """One field's operator dict (``{"$gte": 1, "$ne": 3}``, ``{"gte": 1}``) into ``out``."""
    bad = [op for op in spec if op not in DOLLAR_OPS and op not in _RANGE_OPS]
    if bad or not spec:
        raise ValidationError(
            f"filter {key!r}: unknown operator {bad[0]!r}; accepted: {_ACCEPTED_OPS}"
            if bad
            else f"filter {key!r}: empty operator dict; accepted: {_ACCEPTED_OPS}"
        )
    bounds: dict[str, Any] = {}
    for op, value in spec.items():
        name = op.lstrip("$")
        if name in _RANGE_OPS:
            if name in bounds:
                raise ValidationError(f"filter {key!r}: {name} is given twice ({op})")
            bounds[name] = value
        elif name == "eq":
            out.must.append(_equal(key, value))
        elif name == "ne":
            out.must_not.append(_equal(key, value))
        elif name == "in":
            out.must.append(_any(key, value))
        else:  # nin
            out.must_not.append(_any(key, value))
    if bounds:
        if key == "id":
            raise ValidationError("filter 'id': ids have no order; use $eq, $ne, $in or $nin")
        out.must.append(_range(key, bounds))


def _parse_into(filters: Any, out: RecordFilter) -> None:
    if not isinstance(filters, dict):
        raise ValidationError(f"filters must be a dict, got {type(filters).__name__}")
    for raw_key, value in filters.items():
        if raw_key == "$and":
            if not isinstance(value, (list, tuple)) or not value:
                raise ValidationError("filter '$and' needs a non-empty list of filter dicts")
            for part in value:
                _parse_into(part, out)
            continue
        if raw_key in ("$or", "$not", "$nor"):
            raise ValidationError(
                f"filter {raw_key!r} is not supported: filters are an AND of conditions. For "
                "'any of' on one field use a list or $in ({'kind': {'$in': ['fact', "
                "'preference']}}); for exclusions use $ne / $nin"
            )
        key = _key(raw_key)
        if isinstance(value, dict):
            _operators(key, value, out)
        else:
            out.must.append(_equal(key, value))


def parse_filters(filters: dict[str, Any] | None) -> RecordFilter | None:
    """Validate and translate a user ``filters`` dict (plain or ``$``-operator form).

    Unknown keys raise with the allowed list, unknown operators with the accepted ones.
    """
    if filters is None:
        return None
    out = RecordFilter()
    _parse_into(filters, out)
    return out
