"""What ``PrismStore`` checks and builds from LangGraph's values: pure functions, no store calls.

Design:
- The record layout's constants (markers of items, registry entries and refused puts, the
  address fields never redacted, the layout number) are defined here once and read by every
  part of the store.
- Checking an operation (:func:`check_op`), the text an item is embedded as
  (:func:`index_text`), the ``Item`` a record reads as (:func:`to_item`), the order keys
  (:func:`next_seq`, :func:`ns_time`) and the error of a quarantined put
  (:func:`refused_error`) are pure: they take values and return values.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from typing import Any

from langchain_prism._namespaces import decode_value
from prism_memory.errors import QuarantinedError, ValidationError
from prism_memory.records import MemoryRecord
from prism_memory.validation import check_depth, check_string

try:
    from langgraph.store.base import Item, Op, PutOp, SearchItem
    from langgraph.store.base.embed import get_text_at_path
except ImportError as exc:  # pragma: no cover - run in a subprocess by test_packaging
    raise ImportError("PrismStore needs langgraph: pip install 'prism-memory[langgraph]'") from exc

__all__ = [
    "ADDRESS",
    "FACET",
    "ITEM",
    "LAYOUT",
    "LAYOUT_NS",
    "LAYOUT_USER_ID",
    "LEGACY_REGISTRY_USER_ID",
    "NAMESPACE",
    "PAGE",
    "REFUSED",
    "check_op",
    "index_text",
    "next_seq",
    "ns_time",
    "prefixes",
    "refused_error",
    "refused_record_id",
    "to_item",
]

LAYOUT = 3
LAYOUT_USER_ID = "prism-store-layout"
LEGACY_REGISTRY_USER_ID = "prism-store-namespaces"  # the first layout's registry scope
LAYOUT_NS = uuid.UUID("6a1c3e5f-0b7d-4f2a-9c8e-1d3b5a7c9e0f")
_MAX_TEXT = 20_000
PAGE = 10_000
FACET = 1_000_000  # every user of a store in one facet
#: an item's address (namespace and key) is an identifier, like a scope id: never redacted
ADDRESS = ("ns", "namespace", "key")
ITEM, NAMESPACE = "item", "namespace"
#: a screened put refused over a live value: kept for audit beside it, never read as the item
REFUSED = "refused-item"

_seq_lock = threading.Lock()
_last_seq = 0


def refused_record_id(item_id: str) -> str:
    """Where a refused put of the item ``item_id`` is kept for audit (its live value stays)."""
    return str(uuid.uuid5(uuid.NAMESPACE_OID, f"{item_id}\x1frefused"))


def check_op(op: Op) -> None:
    """Refuse, with the library's own error, what the store cannot hold: a namespace or key
    that is not text, a put whose value is not a dict or nests deeper than the documented
    32 levels (measured without recursion, so any depth gets this error)."""
    namespace = getattr(op, "namespace", None) or getattr(op, "namespace_prefix", None) or ()
    for i, segment in enumerate(namespace):
        if isinstance(segment, str):
            check_string(segment, f"namespace segment {i}")
    key = getattr(op, "key", None)
    if isinstance(key, str):
        check_string(key, "key")
    if isinstance(op, PutOp) and op.value is not None:
        if not isinstance(op.value, dict):
            raise ValidationError(
                f"put({tuple(op.namespace)!r}, {op.key!r}): the value must be a dict, got "
                f"{type(op.value).__name__}; wrap it, e.g. {{'value': ...}}"
            )
        check_depth(op.value, f"put({tuple(op.namespace)!r}, {op.key!r}): the value")


def refused_error(record: MemoryRecord) -> QuarantinedError:
    """The error of a put whose value the screen quarantined (``record``: what was written)."""
    ns, key = tuple(record.metadata["namespace"]), record.metadata["key"]
    if record.metadata.get("prism_store") == REFUSED:
        return QuarantinedError(
            f"put({ns!r}, {key!r}): the value was quarantined by the poisoning "
            f"screen ({record.provenance.reason}); the item keeps its earlier "
            f"value, and the refused one is kept for audit as memory {record.id!r} "
            "(memory.list(trust='quarantined', ...)). To store it anyway, put it "
            "through a PrismStore(..., screen=False) (the default)",
            record_id=record.id,
            reason=record.provenance.reason,
        )
    return QuarantinedError(
        f"put({ns!r}, {key!r}): the value was quarantined by the poisoning screen "
        f"({record.provenance.reason}); it is kept for audit and not served. Release "
        f"it with memory.release({record.id!r}, **store.scope_of(namespace)), or "
        "store application data with PrismStore(..., screen=False) (the default)",
        record_id=record.id,
        reason=record.provenance.reason,
    )


def next_seq() -> int:
    """A creation order key: nanoseconds since the epoch, strictly increasing in this process."""
    global _last_seq
    with _seq_lock:
        _last_seq = max(time.time_ns(), _last_seq + 1)
        return _last_seq


def ns_time(record: MemoryRecord) -> int:
    """A first-layout record's order key: its ``created_at`` in nanoseconds."""
    return int(record.created_at.timestamp() * 1_000_000) * 1000


def prefixes(namespace: tuple[str, ...]) -> list[tuple[str, ...]]:
    """``namespace`` and every prefix of it, ``()`` first."""
    return [namespace[:i] for i in range(len(namespace) + 1)]


def _flatten(value: Any, prefix: str = "", labels: bool = True) -> Iterator[str]:
    """``key: value`` lines for every scalar leaf (what the whole-value index embeds); with
    ``labels=False`` the values alone (a user's memory reads as what it says)."""
    if isinstance(value, Mapping):
        for k, v in value.items():
            yield from _flatten(v, f"{prefix}{k}." if prefix or k else prefix, labels)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for v in value:
            yield from _flatten(v, prefix, labels)
    elif value is not None and str(value).strip():
        label = prefix.rstrip(".") if labels else ""
        yield f"{label}: {value}" if label else str(value)


def _texts_at(value: Mapping[str, Any], path: str) -> list[str]:
    try:
        return get_text_at_path(dict(value), path)
    except (TypeError, ValueError):  # a datetime, a set... under the path: read it as JSON
        return get_text_at_path(json.loads(json.dumps(value, default=str)), path)


def index_text(
    value: Mapping[str, Any], fields: list[str] | None, *, labels: bool = True
) -> tuple[str, bool]:
    """The text a value is embedded as (its indexed fields, one per line) and whether it is
    indexed at all: as in ``InMemoryStore``, when a field path yields a text (the whole value,
    ``"$"``, always does). ``fields=None`` or ``[]``: not indexed.

    Example::

        index_text({"text": "Alice is vegetarian", "n": 1}, ["text"])
        # -> ("Alice is vegetarian", True)
    """
    lines: list[str] = []
    indexed = False
    for path in fields or ():
        if path == "$":
            indexed = True
            whole = list(_flatten(value, labels=labels))
            lines.extend(whole or [json.dumps(value, default=str, ensure_ascii=False)])
        else:
            texts = _texts_at(value, path)
            indexed = indexed or bool(texts)
            lines.extend(t for t in texts if t.strip())
    return "\n".join(lines)[:_MAX_TEXT].strip(), indexed


def to_item(record: MemoryRecord, score: float | None = None, *, search: bool = False) -> Item:
    """The LangGraph ``Item`` (``SearchItem`` with ``search=True``) an item record reads as."""
    meta = record.metadata
    kwargs: dict[str, Any] = {
        "namespace": tuple(meta["namespace"]),
        "key": str(meta["key"]),
        "value": decode_value(meta.get("value") or {}),
        "created_at": record.created_at,
        "updated_at": record.updated_at,
    }
    return SearchItem(**kwargs, score=score) if search else Item(**kwargs)
