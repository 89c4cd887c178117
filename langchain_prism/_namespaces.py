"""Pure functions behind ``PrismStore``: namespace encoding, matching and value filters.

Design:
- A namespace tuple is encoded segment by segment with percent-encoding (``/`` included), then
  joined with ``/``: the encoding is injective, so ``("a/b",)`` and ``("a", "b")`` or
  ``("john_doe",)`` and ``("john-doe",)`` can never share a key, and it is stored as an exact
  keyword field (no prefix or fuzzy matching anywhere).
- The PRISM scope of a namespace is ``user_id = "ns:" + encoding`` (or ``"nsh:" + sha256`` when
  the encoding is longer than a scope id may be) under the store's ``agent_id``. Every item read
  is an exact scope filter plus an exact ``metadata.ns`` match.
- Prefix/suffix matching of namespaces (``search``, ``list_namespaces``) compares whole segments,
  with ``"*"`` as a one-segment wildcard, like LangGraph's in-memory store.
- Value filters follow LangGraph's semantics: nested dicts, ``$eq $ne $gt $gte $lt $lte``.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

__all__ = [
    "encode_namespace",
    "item_record_id",
    "matches_filter",
    "matches_namespace",
    "namespace_user_id",
    "registry_record_id",
    "truncate_namespace",
]

_ITEM_NS = uuid.UUID("0f4b5a52-9d0c-4b8e-8a57-2a3c9e4d1b60")
_MAX_USER_ID = 500


def encode_namespace(namespace: Sequence[str]) -> str:
    """Injective text form of a namespace: percent-encoded segments joined by ``/``."""
    return "/".join(quote(segment, safe="") for segment in namespace)


def namespace_user_id(namespace: Sequence[str]) -> str:
    """The ``user_id`` a namespace's items are stored under (stable across processes)."""
    encoded = encode_namespace(namespace)
    if len(encoded) + 3 <= _MAX_USER_ID:
        return "ns:" + encoded
    return "nsh:" + hashlib.sha256(encoded.encode()).hexdigest()


def item_record_id(namespace: Sequence[str], key: str) -> str:
    """The record id of the item ``key`` in ``namespace`` (case-sensitive, exact)."""
    return str(uuid.uuid5(_ITEM_NS, json.dumps(["item", list(namespace), key])))


def registry_record_id(namespace: Sequence[str]) -> str:
    """The record id of a namespace's entry in the store's namespace registry."""
    return str(uuid.uuid5(_ITEM_NS, json.dumps(["namespace", list(namespace)])))


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
    if suffix:
        if len(namespace) < len(suffix):
            return False
        if not _segments_match(list(reversed(namespace)), list(reversed(suffix))):
            return False
    return True


def truncate_namespace(namespace: tuple[str, ...], max_depth: int | None) -> tuple[str, ...]:
    return namespace if max_depth is None else namespace[:max_depth]


def _apply(value: Any, op: str, expected: Any) -> bool:
    if op == "$eq":
        return bool(value == expected)
    if op == "$ne":
        return bool(value != expected)
    if op not in ("$gt", "$gte", "$lt", "$lte"):
        raise ValueError(f"unsupported filter operator {op!r}; use $eq $ne $gt $gte $lt $lte")
    try:
        a, b = float(value), float(expected)
    except (TypeError, ValueError):
        return False
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
