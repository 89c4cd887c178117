"""Safety screens applied to every record before it is embedded and stored.

Design:
- ``pii``: regex + checksum redaction of structured identifiers (Presidio optional), in
  every string of a record: text, field and metadata values, and the keys of its dicts.
- ``poisoning``: scores how much a text reads as an instruction to the assistant and decides
  quarantine by source (a user's own words are held to a lenient threshold, tool/web content to
  a strict one).
- This module adapts both to records: :func:`redact_record` and :func:`screen_record`;
  ``Memory``'s write path (``Engine.screen``) screens a whole write call with
  :func:`screen_batch`, by each record's source (``SafetyConfig.screen``).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ..config import SafetyConfig
from ..records import Entity, MemoryRecord, Trust, make_record_id
from .pii import PII_KINDS, PiiMatch, find_pii, luhn_valid, redact, redact_with_presidio
from .poisoning import (
    EXTERNAL_SOURCES,
    InjectionAssessment,
    ScreenVerdict,
    deobfuscate,
    injection_score,
    precise_screen,
    screen,
    screen_batch,
    threshold_for,
)

__all__ = [
    "EXTERNAL_SOURCES",
    "PII_KINDS",
    "InjectionAssessment",
    "PiiMatch",
    "ScreenVerdict",
    "deobfuscate",
    "find_pii",
    "injection_score",
    "luhn_valid",
    "precise_screen",
    "redact",
    "redact_keys",
    "redact_record",
    "redact_value",
    "redact_with_presidio",
    "screen",
    "screen_batch",
    "screen_record",
    "threshold_for",
]


def redact_value(value: Any) -> Any:
    """``value`` with every string in it redacted: nested lists, dict values *and dict keys*
    (an address used as a key is as much an identifier as one used as a value); other types
    are kept. Two keys that redact alike stay apart (``"[EMAIL]"``, ``"[EMAIL] #2"``).

    >>> redact_value({"card": "4111 1111 1111 1111", "n": 3, "to": ["ana@example.org"]})
    {'card': '[CARD]', 'n': 3, 'to': ['[EMAIL]']}
    >>> redact_value({"ana@example.org": 1, "bo@example.org": {"x": 2}})
    {'[EMAIL]': 1, '[EMAIL] #2': {'x': 2}}
    """
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        return [redact_value(v) for v in value]
    if isinstance(value, dict):
        return redact_keys({k: redact_value(v) for k, v in value.items()})
    return value


def redact_keys(value: dict[Any, Any], keep: Collection[str] = ()) -> dict[Any, Any]:
    """``value`` with its string keys redacted (but ``keep``), in order, never merging two
    keys into one.

    >>> redact_keys({"ana@example.org": 1, "plain": 2})
    {'[EMAIL]': 1, 'plain': 2}
    """
    out: dict[Any, Any] = {}
    for k, v in value.items():
        key = redact(k) if isinstance(k, str) and k not in keep else k
        if key != k:
            n, base = 1, key
            while key in out or (key in value and key != k):
                n += 1
                key = f"{base} #{n}"
        out[key] = v
    return out


def redact_record(record: MemoryRecord, *, keep_metadata: Collection[str] = ()) -> bool:
    """Redact, in place, everything of a record that holds content: ``text``, ``fields``,
    ``speaker``, entity names and ``metadata`` values (except the top-level keys in
    ``keep_metadata``: addresses such as a LangGraph item's namespace and key, which are
    identifiers like scope ids). Returns whether anything changed.

    A content-derived id is re-derived from the redacted text, so no id is a hash of an
    identifier (entity-keyed ids are left alone). Ids (scope ids, record, message and task
    ids, ``source_ids``) are identifiers the application chooses and are not redacted.
    """
    new_text = redact(record.text)
    new_fields = redact_value(record.fields)
    new_speaker = None if record.speaker is None else redact(record.speaker)
    new_metadata = redact_keys(
        {k: v if k in keep_metadata else redact_value(v) for k, v in record.metadata.items()},
        keep=keep_metadata,
    )
    names = [redact(e.name) for e in record.entities]
    changed = (
        new_text != record.text
        or new_fields != record.fields
        or new_speaker != record.speaker
        or new_metadata != record.metadata
        or names != [e.name for e in record.entities]
    )
    if not changed:
        return False
    if record.id == make_record_id(record.scope, record.layer, record.text):
        record.id = make_record_id(record.scope, record.layer, new_text)
    record.text = new_text
    record.fields = new_fields
    record.speaker = new_speaker
    record.metadata = new_metadata
    entities = [Entity(type=e.type, name=n) for e, n in zip(record.entities, names)]
    record.entities = list({e.key: e for e in entities}.values())
    return True


def screen_record(record: MemoryRecord, config: SafetyConfig) -> ScreenVerdict | None:
    """The quarantine verdict for a record under ``config.screen`` (``None`` when it is already
    quarantined). ``Memory`` screens whole write calls at once with
    :func:`.poisoning.screen_batch`; this is the same decision for one record."""
    if record.provenance.trust == Trust.QUARANTINED:
        return None
    return screen_batch(
        [(record.text, record.provenance.source.value)],
        mode=config.screen,
        user=config.quarantine_threshold_user,
        external=config.quarantine_threshold_external,
    )[0]
