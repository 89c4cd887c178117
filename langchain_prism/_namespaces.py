"""Pure functions behind ``PrismStore``: namespace encoding, ids, value codec, matching, filters.

Design:
- A namespace tuple is encoded segment by segment with percent-encoding (``/`` included), then
  joined with ``/``: the encoding is injective, so ``("a/b",)`` and ``("a", "b")`` or
  ``("john_doe",)`` and ``("john-doe",)`` can never share a key, and it is stored as an exact
  keyword field (no prefix or fuzzy matching anywhere).
- The PRISM scope of a namespace is ``user_id = "ns:" + encoding`` (or ``"nsh:" + sha256`` when
  the encoding is longer than a scope id may be) under the store's ``agent_id``. Item and
  registry ids are uuid5 over the store's ``agent_id``, the namespace and the key, so two stores
  with different ``agent_id`` never share a point.
- The namespace registry has one entry per namespace and prefix of it (``()`` included), in the
  scope ``user_id = "nsp:" + encode(prefix)``: the namespaces under a prefix are one exact,
  indexed scope read, whatever the number of namespaces in the store.
- Values are kept with their Python types (:func:`encode_value`): plain JSON as is, anything else
  (datetime, date, time, timedelta, tuple, set, frozenset, bytes, UUID, Decimal, non-string dict
  keys, non-finite floats, integers beyond 64 bits) as a tagged JSON object; other types are
  refused rather than silently turned into strings.
- Prefix/suffix matching of namespaces (``list_namespaces``) compares whole segments, with
  ``"*"`` as a one-segment wildcard, like LangGraph's in-memory store.
- Value filters follow LangGraph's in-memory store exactly (nested dicts, lists compared element
  by element, ``$eq $ne $gt $gte $lt $lte``), except that a range operator on a missing or
  non-numeric value does not match where the reference store raises, and ``$in`` / ``$nin``
  (which the reference store refuses) work as in ``Memory.search`` filters.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import uuid
from collections.abc import Sequence
from datetime import date, datetime, time, timedelta, timezone
from decimal import Decimal
from typing import Any
from urllib.parse import quote
from zoneinfo import ZoneInfo

from prism_memory.errors import ValidationError
from prism_memory.stores.filters import DOLLAR_OPS

__all__ = [
    "USER_PLACEHOLDER",
    "check_user_namespace",
    "decode_value",
    "encode_namespace",
    "encode_value",
    "fill_user_namespace",
    "item_record_id",
    "legacy_item_record_id",
    "legacy_registry_record_id",
    "matches_filter",
    "matches_namespace",
    "namespace_user_id",
    "prefix_user_id",
    "registry_record_id",
    "truncate_namespace",
    "user_of_namespace",
]

_ITEM_NS = uuid.UUID("0f4b5a52-9d0c-4b8e-8a57-2a3c9e4d1b60")
_MAX_USER_ID = 500
_TAG = "$t"
_INT64 = 2**63


#: the segment of a ``user_namespace`` template that stands for the user id
USER_PLACEHOLDER = "{user_id}"


def check_user_namespace(template: Any) -> tuple[str, ...] | None:
    """A ``user_namespace`` template validated: ``None``, or a tuple of string segments with
    exactly one ``"{user_id}"`` segment (LangMem's convention is ``("memories", "{user_id}")``).

    >>> check_user_namespace(["memories", "{user_id}"])
    ('memories', '{user_id}')
    """
    if template is None:
        return None
    if (
        not isinstance(template, (tuple, list))
        or not template
        or not all(isinstance(seg, str) and seg for seg in template)
        or list(template).count(USER_PLACEHOLDER) != 1
    ):
        raise ValidationError(
            f"user_namespace must be a tuple of non-empty strings with exactly one "
            f"{USER_PLACEHOLDER!r} segment, such as ('memories', {USER_PLACEHOLDER!r}) "
            f"(LangMem's convention), or None; got {template!r}"
        )
    return tuple(template)


def user_of_namespace(template: Sequence[str] | None, namespace: Sequence[str]) -> str | None:
    """The user id ``namespace`` holds at the template's ``"{user_id}"`` segment when every
    other segment matches exactly (``None`` otherwise, or without a template).

    >>> user_of_namespace(("memories", "{user_id}"), ("memories", "carol"))
    'carol'
    >>> user_of_namespace(("memories", "{user_id}"), ("memories", "carol", "x")) is None
    True
    """
    if template is None or len(namespace) != len(template):
        return None
    user: str | None = None
    for seg, pattern in zip(namespace, template):
        if pattern == USER_PLACEHOLDER:
            user = seg
        elif seg != pattern:
            return None
    return user if user else None


def fill_user_namespace(template: Sequence[str], user_id: str) -> tuple[str, ...]:
    """The namespace of ``user_id`` under ``template``."""
    return tuple(user_id if seg == USER_PLACEHOLDER else seg for seg in template)


def encode_namespace(namespace: Sequence[str]) -> str:
    """Injective text form of a namespace: percent-encoded segments joined by ``/``."""
    return "/".join(quote(segment, safe="") for segment in namespace)


def _scoped(tag: str, encoded: str) -> str:
    if len(encoded) + len(tag) + 1 <= _MAX_USER_ID:
        return f"{tag}:{encoded}"
    return f"{tag}h:" + hashlib.sha256(encoded.encode()).hexdigest()


def namespace_user_id(namespace: Sequence[str]) -> str:
    """The ``user_id`` a namespace's items are stored under (stable across processes)."""
    return _scoped("ns", encode_namespace(namespace))


def prefix_user_id(prefix: Sequence[str]) -> str:
    """The ``user_id`` of the registry entries of every namespace under ``prefix`` (one entry
    per namespace and prefix, ``()`` included), so the namespaces under a prefix are one exact
    scope read."""
    return _scoped("nsp", encode_namespace(prefix))


def item_record_id(agent_id: str, namespace: Sequence[str], key: str) -> str:
    """The record id of the item ``key`` in ``namespace`` of the store ``agent_id`` (exact)."""
    return str(uuid.uuid5(_ITEM_NS, json.dumps(["item", agent_id, list(namespace), key])))


def registry_record_id(agent_id: str, prefix: Sequence[str], namespace: Sequence[str]) -> str:
    """The id of ``namespace``'s registry entry under ``prefix`` in the store ``agent_id``."""
    return str(
        uuid.uuid5(_ITEM_NS, json.dumps(["namespace", agent_id, list(prefix), list(namespace)]))
    )


def legacy_item_record_id(namespace: Sequence[str], key: str) -> str:
    """Item id of the first layout (no ``agent_id``), read only to migrate such items."""
    return str(uuid.uuid5(_ITEM_NS, json.dumps(["item", list(namespace), key])))


def legacy_registry_record_id(namespace: Sequence[str]) -> str:
    """Registry id of the first layout (no ``agent_id``), read only to migrate it."""
    return str(uuid.uuid5(_ITEM_NS, json.dumps(["namespace", list(namespace)])))


# -- values -------------------------------------------------------------------------------
_KEPT = (
    "JSON types, datetime, date, time, timedelta, tuple, set, frozenset, bytes, UUID and Decimal"
)


def _tz(value: datetime | time) -> dict[str, Any]:
    extra: dict[str, Any] = {}
    if isinstance(value.tzinfo, ZoneInfo):
        extra["tz"] = value.tzinfo.key
    if value.fold:
        extra["fold"] = 1
    return extra


def encode_value(value: Any, path: str = "value") -> Any:
    """A JSON-compatible form of ``value`` that :func:`decode_value` turns back into an equal
    value of the same types. Plain JSON is returned unchanged (dicts holding a ``"$t"`` key
    aside); unsupported types raise :class:`prism_memory.ValidationError`.

    >>> encode_value({"n": 1, "t": (1, 2)})
    {'n': 1, 't': {'$t': 'tuple', 'v': [1, 2]}}
    """
    kind = type(value)
    if value is None or kind is bool or kind is str:
        return value
    if kind is int:
        return value if -_INT64 <= value < _INT64 else {_TAG: "int", "v": str(value)}
    if kind is float:
        return value if math.isfinite(value) else {_TAG: "float", "v": repr(value)}
    if kind is list:
        return [encode_value(v, f"{path}[{i}]") for i, v in enumerate(value)]
    if kind is dict:
        if _TAG not in value and all(type(k) is str for k in value):
            return {k: encode_value(v, f"{path}[{k!r}]") for k, v in value.items()}
        return {
            _TAG: "dict",
            "v": [
                [encode_value(k, f"{path} key"), encode_value(v, f"{path}[{k!r}]")]
                for k, v in value.items()
            ],
        }
    if kind in (tuple, set, frozenset):
        items = [encode_value(v, f"{path}[{i}]") for i, v in enumerate(value)]
        return {_TAG: kind.__name__, "v": items}
    if kind in (bytes, bytearray):
        return {_TAG: kind.__name__, "v": base64.b64encode(value).decode("ascii")}
    if kind is datetime:
        return {_TAG: "datetime", "v": value.isoformat(), **_tz(value)}
    if kind is date:
        return {_TAG: "date", "v": value.isoformat()}
    if kind is time:
        return {_TAG: "time", "v": value.isoformat(), **_tz(value)}
    if kind is timedelta:
        return {_TAG: "timedelta", "v": [value.days, value.seconds, value.microseconds]}
    if kind is uuid.UUID:
        return {_TAG: "uuid", "v": str(value)}
    if kind is Decimal:
        return {_TAG: "decimal", "v": str(value)}
    raise ValidationError(
        f"{path} is a {kind.__module__}.{kind.__qualname__}; a PrismStore value may hold "
        f"{_KEPT} (kept with their types). Store a plain form of it instead "
        "(e.g. model.model_dump(), enum.value, str(path))"
    )


def _with_tz(value: Any, data: dict[str, Any]) -> Any:
    if "tz" in data:
        value = value.replace(tzinfo=ZoneInfo(data["tz"]))
    elif value.tzinfo is not None and value.utcoffset() == timedelta(0):
        value = value.replace(tzinfo=timezone.utc)
    if data.get("fold"):
        value = value.replace(fold=1)
    return value


_DECODERS: dict[str, Any] = {
    "int": lambda d: int(d["v"]),
    "float": lambda d: float(d["v"]),
    "dict": lambda d: {decode_value(k): decode_value(v) for k, v in d["v"]},
    "tuple": lambda d: tuple(decode_value(v) for v in d["v"]),
    "set": lambda d: {decode_value(v) for v in d["v"]},
    "frozenset": lambda d: frozenset(decode_value(v) for v in d["v"]),
    "bytes": lambda d: base64.b64decode(d["v"]),
    "bytearray": lambda d: bytearray(base64.b64decode(d["v"])),
    "datetime": lambda d: _with_tz(datetime.fromisoformat(d["v"]), d),
    "date": lambda d: date.fromisoformat(d["v"]),
    "time": lambda d: _with_tz(time.fromisoformat(d["v"]), d),
    "timedelta": lambda d: timedelta(days=d["v"][0], seconds=d["v"][1], microseconds=d["v"][2]),
    "uuid": lambda d: uuid.UUID(d["v"]),
    "decimal": lambda d: Decimal(d["v"]),
}


def decode_value(data: Any) -> Any:
    """The value :func:`encode_value` encoded (a fresh object on every call)."""
    if isinstance(data, list):
        return [decode_value(v) for v in data]
    if isinstance(data, dict):
        tag = data.get(_TAG)
        if isinstance(tag, str) and tag in _DECODERS:
            return _DECODERS[tag](data)
        return {k: decode_value(v) for k, v in data.items()}
    return data


# -- namespaces ---------------------------------------------------------------------------
def _segments_match(segments: Sequence[str], pattern: Sequence[str]) -> bool:
    return all(p == "*" or s == p for s, p in zip(segments, pattern))


def matches_namespace(
    namespace: Sequence[str],
    prefix: Sequence[str] | None = None,
    suffix: Sequence[str] | None = None,
) -> bool:
    """Whether whole segments of ``namespace`` start with ``prefix`` and end with ``suffix``."""
    if prefix and (len(namespace) < len(prefix) or not _segments_match(namespace, prefix)):
        return False
    if suffix is not None:
        if len(namespace) < len(suffix):
            return False
        if not _segments_match(list(reversed(namespace)), list(reversed(suffix))):
            return False
    return True


def truncate_namespace(namespace: tuple[str, ...], max_depth: int | None) -> tuple[str, ...]:
    return namespace if max_depth is None else namespace[:max_depth]


# -- value filters (langgraph.store.memory._compare_values / _apply_operator) -----------------
def _apply(value: Any, op: str, expected: Any) -> bool:
    if op == "$eq":
        return bool(value == expected)
    if op == "$ne":
        return bool(value != expected)
    if op in ("$in", "$nin"):  # beyond the reference store: the rest of the $ dialect
        if not isinstance(expected, (list, tuple, set)):
            raise ValueError(f"filter operator {op} needs a list, got {expected!r}")
        return (value in list(expected)) == (op == "$in")
    if op not in ("$gt", "$gte", "$lt", "$lte"):
        raise ValueError(f"unsupported filter operator {op!r}; accepted: {', '.join(DOLLAR_OPS)}")
    try:
        a, b = float(value), float(expected)
    except (TypeError, ValueError, OverflowError):
        return False  # the reference store raises here; a missing field simply does not match
    return {"$gt": a > b, "$gte": a >= b, "$lt": a < b, "$lte": a <= b}[op]


def _compare(value: Any, expected: Any) -> bool:
    if isinstance(expected, dict):
        if any(str(k).startswith("$") for k in expected):
            return all(_apply(value, op, v) for op, v in expected.items())
        if not isinstance(value, dict):
            return False
        return all(_compare(value.get(k), v) for k, v in expected.items())
    if isinstance(expected, (list, tuple)):
        return (
            isinstance(value, (list, tuple))
            and len(value) == len(expected)
            and all(_compare(a, b) for a, b in zip(value, expected))
        )
    return bool(value == expected)


def matches_filter(value: dict[str, Any], flt: dict[str, Any] | None) -> bool:
    """LangGraph filter semantics over an item's value."""
    if not flt:
        return True
    return all(_compare(value.get(k), v) for k, v in flt.items())
