"""Reconciliation (SCG merge): one current record per entity key, merged per field policy.

Design: a pure function, :func:`merge_fields`, decides what a new candidate does to the current
record with the same key — nothing (``skip``), merge in place (``update``: accumulated lists,
weighted strengths, filled gaps) or replace it (``supersede``: a ``latest_wins`` /
``max_confidence`` field got a different value, or an accumulated ``"key: value"`` entry got a
new value for its key, e.g. a person's ``"occupation: teacher"``). The caller (``layers/semantic.py``) turns the
decision into records: a superseded version is kept with ``valid_to`` closed and a
``contradicts`` link, the new version links ``supersedes`` — nothing is overwritten destructively.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from .schemas import SchemaSpec, entity_key

__all__ = ["MergeOutcome", "accumulate", "entry_key", "merge_fields", "same_value"]

Action = Literal["skip", "update", "supersede"]


@dataclass
class MergeOutcome:
    """What a candidate does to the current record of its key."""

    action: Action
    fields: dict[str, Any]
    changed: list[str] = field(default_factory=list)
    contradicted: list[str] = field(default_factory=list)
    confidence: float = 1.0

    @property
    def reason(self) -> str:
        if self.action == "supersede":
            return "contradicts the current value of " + ", ".join(self.contradicted)
        if self.action == "update":
            return "merged into the existing record (" + ", ".join(self.changed) + ")"
        return "already known"


def _empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


def same_value(a: Any, b: Any) -> bool:
    """Equal after normalisation (case, spacing, articles; numbers by value)."""
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(float(a) - float(b)) < 1e-9
    if isinstance(a, list) and isinstance(b, list):
        return [entity_key(x) for x in a] == [entity_key(x) for x in b]
    return entity_key(a) == entity_key(b)


_KEYED = re.compile(r"^(?P<k>[^:]{1,40}):\s+(?P<v>.+)$", re.S)


def entry_key(item: Any) -> str | None:
    """The key of a ``"key: value"`` entry (``"occupation: nurse"`` -> ``"occupation"``)."""
    m = _KEYED.match(item) if isinstance(item, str) else None
    return entity_key(m.group("k")) if m else None


def accumulate(old: Any, new: Any) -> tuple[Any, bool]:
    """``old`` with ``new``'s items added; a ``"key: value"`` string replaces the entry with
    the same key. Returns the merged value and whether an entry was replaced.

    >>> accumulate(["occupation: nurse", "likes tea"], ["occupation: teacher", "likes tea"])
    (['occupation: teacher', 'likes tea'], True)
    """
    if isinstance(old, list) or isinstance(new, list):
        merged = list(old or [])
        seen = {entity_key(x) for x in merged}
        replaced = False
        for item in new or []:
            if entity_key(item) in seen:
                continue
            key = entry_key(item)
            same = [i for i, x in enumerate(merged) if key is not None and entry_key(x) == key]
            if same:
                merged[same[0]] = item
                replaced = True
            else:
                merged.append(item)
            seen = {entity_key(x) for x in merged}
        return merged, replaced
    if isinstance(old, dict) and isinstance(new, dict):
        return {**old, **new}, False
    return (old if _empty(new) else new), False


def _merged_value(
    policy: str, old: Any, new: Any, old_confidence: float, new_confidence: float
) -> tuple[Any, bool] | None:
    """A field's merged value under its policy and whether it contradicts the old value (a
    new version), or None when the old value stays. Both values are set and differ.

    >>> _merged_value("weighted", 0.4, 0.8, 1.0, 1.0), _merged_value("latest_wins", "a", "b", 1, 1)
    ((0.6, False), ('b', True))
    """
    if policy == "first_write":
        return None
    if policy == "accumulate":
        value, replaced = accumulate(old, new)
        return (value, replaced) if value != old else None
    if policy == "weighted":
        if isinstance(old, (int, float)) and isinstance(new, (int, float)):
            total = max(old_confidence + new_confidence, 1e-9)
            return round((old * old_confidence + new * new_confidence) / total, 4), False
        return new, False
    if policy == "max_confidence":
        return (new, True) if new_confidence >= old_confidence else None
    return new, True  # latest_wins


def merge_fields(
    spec: SchemaSpec,
    old: dict[str, Any],
    old_confidence: float,
    new: dict[str, Any],
    new_confidence: float,
    *,
    explicit: set[str] | None = None,
) -> MergeOutcome:
    """Merge ``new`` into ``old`` per the schema's field policies.

    ``explicit``: fields the extractor actually set (defaults of the others never contradict).

    >>> from prism_memory.extraction.schemas import SchemaRegistry
    >>> fact = SchemaRegistry().get("Fact")
    >>> old = {"attribute": "budget", "value": "500 a night", "subject": "user"}
    >>> merge_fields(fact, old, 0.8, {**old, "value": "800"}, 0.8).action
    'supersede'
    """
    merged = dict(old)
    changed: list[str] = []
    contradicted: list[str] = []
    keys = set(spec.key)
    for name in spec.field_names:
        if name in keys or name not in new:
            continue
        if explicit is not None and name not in explicit:
            continue
        o, n = old.get(name), new.get(name)
        if _empty(n) or (not _empty(o) and same_value(o, n)):
            continue
        if _empty(o):
            merged[name] = n
            changed.append(name)
            continue
        result = _merged_value(spec.policy(name), o, n, old_confidence, new_confidence)
        if result is None:
            continue
        merged[name], contradicts = result
        (contradicted if contradicts else changed).append(name)
    if contradicted:
        return MergeOutcome(
            "supersede", merged, changed + contradicted, contradicted, new_confidence
        )
    if changed:
        return MergeOutcome("update", merged, changed, [], max(old_confidence, new_confidence))
    return MergeOutcome("skip", merged, [], [], old_confidence)
